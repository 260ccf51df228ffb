//! Display order of a listing: natural, locale-aware, folders first.
//!
//! Names are compared by their `icu_collator` sort keys with numeric ordering on (so "file2"
//! sorts before "file10"), for the locale of `LC_ALL`, `LC_COLLATE` or `LANG`; names the
//! collator considers equal (canonically equivalent Unicode, or non-UTF-8 names, which are
//! collated in their lossy form) are ordered by their bytes, so the order is total and stable
//! across runs. Sort keys are computed once per call, into one buffer per thread; comparisons
//! are then integer and byte comparisons. Large folders are sorted as two halves on two
//! threads, then merged. A folder whose names are all printable ASCII gets its keys from a
//! table that orders them as the collator does, twenty times faster (`ascii.rs`). Which
//! collator, for which locale, is `collation.rs`'s.

use std::cmp::Ordering;
use std::ops::Range;
use std::thread;

use icu_collator::CollatorBorrowed;

use crate::entry::{EntryRef, Kind, Listing};

mod ascii;
mod collation;

use ascii::AsciiOrder;
use collation::collation;

/// What to sort by.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum SortKey {
    /// File name, natural order.
    #[default]
    Name,
    /// Size in bytes, then name.
    Size,
    /// Modification time, then name.
    Modified,
    /// Type: what the window's Type column names alike sits together (folders; files by
    /// extension, case-insensitive; programs without one; links; broken links; each kind of
    /// special file), then name.
    Type,
}

/// Sort direction.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Smallest, oldest or alphabetically first on top.
    #[default]
    Ascending,
    /// The reverse.
    Descending,
}

/// How a view is sorted (stored in the window's settings, hence serde).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct SortSpec {
    /// What to sort by.
    pub key: SortKey,
    /// Which way.
    pub direction: Direction,
    /// Folders (and symlinks to folders) before everything else, in either direction.
    pub folders_first: bool,
}

impl Default for SortSpec {
    fn default() -> Self {
        SortSpec {
            key: SortKey::Name,
            direction: Direction::Ascending,
            folders_first: true,
        }
    }
}

/// Below this many entries, one thread does it all; above, each of two threads computes the
/// keys of and sorts one half, and the halves are merged.
const PARALLEL_MIN: usize = 4096;

/// The display order of `listing` under `spec`: indices into `listing`.
///
/// Every entry's collation key is computed once; the sort then compares plain integers and
/// bytes. Takes tens of milliseconds for 200,000 entries: run it off the UI thread.
pub fn sorted_order(listing: &Listing, spec: SortSpec) -> Vec<u32> {
    let n = listing.len();
    u32::try_from(n).expect("more than 4 billion entries");
    let collation = collation();
    // One kind of key for the whole listing: the two kinds do not compare with each other.
    let keyer = match &collation.ascii {
        Some(table) if (0..n).all(|i| table.covers(listing.entry(i).name_bytes())) => {
            Keyer::Ascii(table)
        }
        _ => Keyer::Collator(&collation.collator),
    };
    if n < PARALLEL_MIN || thread::available_parallelism().map_or(1, |p| p.get()) < 2 {
        let mut run = Run::keyed(listing, spec, keyer, 0..n);
        let (_, common) = run.head_and_common();
        run.sort(listing, spec, common);
        return run.items.iter().map(|item| item.idx).collect();
    }
    // Each thread keys and sorts one half; between the two, they agree on the bytes every key
    // of the listing starts with, which no comparison needs to look at.
    let (to_main, from_helper) = crossbeam_channel::bounded(1);
    let (to_helper, from_main) = crossbeam_channel::bounded(1);
    let (first, second) = thread::scope(|s| {
        let second = crate::cpus::spawn_scoped(s, move || {
            let mut run = Run::keyed(listing, spec, keyer, n / 2..n);
            to_main
                .send(run.head_and_common())
                .expect("sort thread left");
            let common = from_main.recv().expect("sort thread left");
            run.sort(listing, spec, common);
            run
        });
        let mut first = Run::keyed(listing, spec, keyer, 0..n / 2);
        let (their_head, their_common) = from_helper.recv().expect("sort thread panicked");
        let (my_head, my_common) = first.head_and_common();
        let common = my_common
            .min(their_common)
            .min(common_len(&my_head, &their_head));
        to_helper.send(common).expect("sort thread panicked");
        first.sort(listing, spec, common);
        (first, second.join().expect("sort thread panicked"))
    });
    merge(listing, spec, &first, &second)
}

/// How many leading bytes `a` and `b` share.
fn common_len(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// What makes the collation keys of a listing's names.
#[derive(Clone, Copy)]
enum Keyer<'a> {
    Collator(&'a CollatorBorrowed<'static>),
    /// Every name is one the table covers.
    Ascii(&'a AsciiOrder),
}

impl Keyer<'_> {
    fn write(self, name: &[u8], key: &mut Vec<u8>) {
        match self {
            Keyer::Collator(collator) => {
                let Ok(()) = collator.write_sort_key_utf8_to(name, key);
            }
            Keyer::Ascii(table) => table.write_key(name, key),
        }
    }
}

/// One entry's precomputed sort fields, compared in field order (see [`compare`]). Sixteen
/// bytes, and with its key bytes about thirty an entry: a sort of 200,000 entries holds that
/// beside the listing (about sixty), which is what `ferry ls` peaks at.
#[derive(Clone, Copy)]
struct Item {
    /// The 8 bytes of the entry's sort key (see [`Keys`]) after those every key shares,
    /// big-endian, zero-padded: most comparisons end here, without touching the key buffer.
    prefix: u64,
    /// Index into the listing.
    idx: u32,
    /// 0 for folders when they go first, else 1; never reversed by the direction.
    group: u8,
}

/// The sort keys of a run's entries past their first 8 bytes (which the items hold), one after
/// another in listing order. An entry's sort key is its size (8 bytes, big-endian) or
/// modification time (seconds mapped to keep their order as unsigned, then nanoseconds:
/// 12 bytes) when sorting by those, then for the type sort its extension's collation key and a
/// 0x00 (which no collation key contains), then its name's collation key: comparing keys byte
/// by byte compares those fields in that order, as their headers have one length. A key
/// shorter than 8 bytes is taken as zero-padded, which orders it as it is, since no key goes
/// on from another with a zero byte.
struct Keys {
    /// Listing index of the run's first entry.
    start: usize,
    bytes: Vec<u8>,
    /// `ends[k]`: where the key rest of the run's entry `k` ends in `bytes`.
    ends: Vec<u32>,
    /// Bytes of each rest that comparisons skip: once sorted, the items hold the 8 bytes after
    /// those every key shares, and the rests go on from there.
    skip: usize,
}

impl Keys {
    /// The key of the run's `k`-th entry past its first 8 bytes.
    fn whole_rest(&self, k: usize) -> &[u8] {
        let from = if k == 0 { 0 } else { self.ends[k - 1] as usize };
        &self.bytes[from..self.ends[k] as usize]
    }

    /// The key of listing entry `idx` past the bytes its item holds.
    fn rest(&self, idx: u32) -> &[u8] {
        let rest = self.whole_rest(idx as usize - self.start);
        &rest[self.skip.min(rest.len())..]
    }
}

/// A key as its first 8 bytes and the rest.
#[derive(Clone, Copy)]
struct KeyParts<'a> {
    head: u64,
    rest: &'a [u8],
}

impl KeyParts<'_> {
    /// How many leading bytes two keys share.
    fn common(self, other: KeyParts<'_>) -> usize {
        match self.head ^ other.head {
            0 => 8 + common_len(self.rest, other.rest),
            diff => diff.leading_zeros() as usize / 8,
        }
    }

    /// The 8 bytes from byte `at` on, big-endian, zero-padded.
    fn window(self, at: usize) -> u64 {
        let mut bytes = [0; 16];
        bytes[..8].copy_from_slice(&self.head.to_be_bytes());
        let (from, rest) = if at < 8 {
            (at, &self.rest[..self.rest.len().min(8)])
        } else {
            (8, &self.rest[(at - 8).min(self.rest.len())..])
        };
        let rest = &rest[..rest.len().min(8)];
        bytes[8..8 + rest.len()].copy_from_slice(rest);
        let window: [u8; 8] = bytes[from..from + 8].try_into().expect("8 bytes");
        u64::from_be_bytes(window)
    }
}

/// The type class of files by extension (and without one, not executable: "File").
const FILES: u8 = 1;

/// What the Type column groups before the extension: the window names every link to a file
/// "Link", every broken one "Broken link", and a file with no extension "Program" when it
/// may be run, "File" otherwise, whatever the names say.
fn type_class(entry: &EntryRef<'_>) -> u8 {
    match entry.kind() {
        _ if entry.is_dir_like() => 0,
        Kind::File if extension(entry.name_bytes()).is_empty() && entry.mode() & 0o111 != 0 => 2,
        Kind::File | Kind::Dir => FILES,
        Kind::Symlink if entry.target_kind() == Kind::Unknown => 4,
        Kind::Symlink => 3,
        Kind::Fifo => 5,
        Kind::Socket => 6,
        Kind::BlockDevice => 7,
        Kind::CharDevice => 8,
        Kind::Unknown if entry.stat_failed() => 9,
        Kind::Unknown => FILES,
    }
}

/// A sorted part of a listing and the keys its items point into.
struct Run {
    keys: Keys,
    items: Vec<Item>,
}

impl Run {
    /// Computes the keys of entries `range`, unsorted.
    fn keyed(listing: &Listing, spec: SortSpec, keyer: Keyer<'_>, range: Range<usize>) -> Run {
        let mut keys = Keys {
            start: range.start,
            bytes: Vec::with_capacity(range.len() * 16),
            ends: Vec::with_capacity(range.len()),
            skip: 0,
        };
        let mut items = Vec::with_capacity(range.len());
        let (mut key, mut ext) = (Vec::new(), Vec::new());
        for idx in range {
            let entry = listing.entry(idx);
            key.clear();
            match spec.key {
                // A folder's own size (its table of names, grown by every name it ever
                // held) is not shown, so it orders nothing: folders count as empty, by name.
                SortKey::Size => {
                    let size = if entry.is_dir_like() { 0 } else { entry.size() };
                    key.extend_from_slice(&size.to_be_bytes());
                }
                SortKey::Modified => {
                    let (sec, nsec) = entry.mtime();
                    // Flipping the sign bit maps i64 order onto u64 order.
                    key.extend_from_slice(&(sec.cast_unsigned() ^ (1 << 63)).to_be_bytes());
                    key.extend_from_slice(&nsec.to_be_bytes());
                }
                SortKey::Name | SortKey::Type => {}
            }
            if spec.key == SortKey::Type {
                // Class, extension key, 0x00, name key: compares like (class, extension,
                // name), so that the rows of one type shown sit together.
                let class = type_class(&entry);
                key.push(class);
                if class == FILES {
                    ext.clear();
                    ext.extend(
                        extension(entry.name_bytes())
                            .iter()
                            .map(u8::to_ascii_lowercase),
                    );
                    keyer.write(&ext, &mut key);
                }
                key.push(0);
            }
            keyer.write(entry.name_bytes(), &mut key);
            let mut prefix = [0; 8];
            let head = key.len().min(8);
            prefix[..head].copy_from_slice(&key[..head]);
            keys.bytes.extend_from_slice(&key[head..]);
            keys.ends
                .push(u32::try_from(keys.bytes.len()).expect("sort keys over 4 GiB"));
            items.push(Item {
                prefix: u64::from_be_bytes(prefix),
                idx: idx as u32,
                group: u8::from(spec.folders_first && !entry.is_dir_like()),
            });
        }
        Run { keys, items }
    }

    /// The key of the run's `k`-th entry, before sorting.
    fn key(&self, k: usize) -> KeyParts<'_> {
        KeyParts {
            head: self.items[k].prefix,
            rest: self.keys.whole_rest(k),
        }
    }

    /// The run's first key (empty if it has none), and how many leading bytes all its keys
    /// share; before sorting.
    fn head_and_common(&self) -> (Vec<u8>, usize) {
        let Some(first) = (!self.items.is_empty()).then(|| self.key(0)) else {
            return (Vec::new(), usize::MAX);
        };
        let common = (1..self.items.len())
            .map(|k| first.common(self.key(k)))
            .min()
            .unwrap_or(usize::MAX);
        let mut head = first.head.to_be_bytes().to_vec();
        head.extend_from_slice(first.rest);
        (head, common)
    }

    /// Sorts the run, comparing keys past their first `common` bytes, which every key this
    /// run is ever compared with starts with.
    fn sort(&mut self, listing: &Listing, spec: SortSpec, common: usize) {
        // A run of one key: whatever it shares with itself.
        let common = common.min(self.keys.bytes.len() + 8);
        for k in 0..self.items.len() {
            self.items[k].prefix = self.key(k).window(common);
        }
        self.keys.skip = common;
        let keys = &self.keys;
        self.items
            .sort_unstable_by(|a, b| compare(listing, spec, (a, keys), (b, keys)));
    }
}

/// The order of two items, each with the keys of its run.
fn compare(listing: &Listing, spec: SortSpec, a: (&Item, &Keys), b: (&Item, &Keys)) -> Ordering {
    let ((a, a_keys), (b, b_keys)) = (a, b);
    a.group.cmp(&b.group).then_with(|| {
        let ord = a
            .prefix
            .cmp(&b.prefix)
            .then_with(|| a_keys.rest(a.idx).cmp(b_keys.rest(b.idx)))
            .then_with(|| {
                let name = |item: &Item| listing.entry(item.idx as usize).name_bytes();
                name(a).cmp(name(b))
            });
        match spec.direction {
            Direction::Ascending => ord,
            Direction::Descending => ord.reverse(),
        }
    })
}

/// Merges two sorted runs into the final order.
fn merge(listing: &Listing, spec: SortSpec, a: &Run, b: &Run) -> Vec<u32> {
    let mut order = Vec::with_capacity(a.items.len() + b.items.len());
    let (mut i, mut j) = (0, 0);
    while i < a.items.len() && j < b.items.len() {
        let (x, y) = (&a.items[i], &b.items[j]);
        if compare(listing, spec, (x, &a.keys), (y, &b.keys)) == Ordering::Greater {
            order.push(y.idx);
            j += 1;
        } else {
            order.push(x.idx);
            i += 1;
        }
    }
    order.extend(
        a.items[i..]
            .iter()
            .chain(&b.items[j..])
            .map(|item| item.idx),
    );
    order
}

/// The extension of a file name, as sorting by type and the window's Type column take it:
/// what follows the last dot, if it is short ASCII with a letter and the dot does not start
/// the name (".bashrc" has none, nor "GPL-2.0" or "notes.2024"). Empty when there is none.
pub fn extension(name: &[u8]) -> &[u8] {
    let Some(dot) = name.iter().rposition(|&b| b == b'.') else {
        return &[];
    };
    let ext = &name[dot + 1..];
    let valid = ext.len() <= 10
        && ext.iter().all(u8::is_ascii_alphanumeric)
        && ext.iter().any(u8::is_ascii_alphabetic);
    if dot == 0 || !valid {
        return &[];
    }
    ext
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::{Kind, Meta};
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    use std::path::PathBuf;

    fn listing(entries: &[(&[u8], Meta)]) -> Listing {
        let mut l = Listing::new(PathBuf::from("/t"));
        for (name, meta) in entries {
            l.push(OsStr::from_bytes(name), *meta);
        }
        l
    }

    fn file(size: u64, mtime_sec: i64) -> Meta {
        Meta {
            kind: Kind::File,
            size,
            mtime_sec,
            ..Meta::default()
        }
    }

    fn dir() -> Meta {
        Meta {
            kind: Kind::Dir,
            size: 4096,
            ..Meta::default()
        }
    }

    fn names_in(l: &Listing, spec: SortSpec) -> Vec<String> {
        let order = sorted_order(l, spec);
        order
            .iter()
            .map(|&i| l.entry(i as usize).name().to_string_lossy().into_owned())
            .collect()
    }

    fn spec(key: SortKey, direction: Direction) -> SortSpec {
        SortSpec {
            key,
            direction,
            folders_first: true,
        }
    }

    #[test]
    fn natural_order_with_folders_first() {
        let l = listing(&[
            (b"file10", file(0, 0)),
            (b"file2", file(0, 0)),
            (b"zeta", dir()),
            (b"file1", file(0, 0)),
            (b"alpha", dir()),
            (b"file02", file(0, 0)),
            (
                b"link",
                Meta {
                    kind: Kind::Symlink,
                    target: Kind::Dir,
                    ..Meta::default()
                },
            ),
            (
                b"broken",
                Meta {
                    kind: Kind::Symlink,
                    target: Kind::Unknown,
                    ..Meta::default()
                },
            ),
        ]);
        // "file02" and "file2" are numerically equal; the byte tie-break puts "file02" first.
        let want = [
            "alpha", "link", "zeta", "broken", "file1", "file02", "file2", "file10",
        ];
        assert_eq!(names_in(&l, SortSpec::default()), want);
        let mixed = SortSpec {
            folders_first: false,
            ..SortSpec::default()
        };
        assert_eq!(
            names_in(&l, mixed),
            [
                "alpha", "broken", "file1", "file02", "file2", "file10", "link", "zeta"
            ]
        );
    }

    #[test]
    fn case_and_accents_sort_together_not_by_byte() {
        let l = listing(&[
            (b"banana", file(0, 0)),
            ("Émile".as_bytes(), file(0, 0)),
            (b"Apple", file(0, 0)),
            (b"apple", file(0, 0)),
            (b"Banana", file(0, 0)),
            (b"eve", file(0, 0)),
            (b"_under", file(0, 0)),
        ]);
        // Byte order would put all capitals first and "Émile" last; lowercase first on ties.
        let got = names_in(&l, SortSpec::default());
        assert_eq!(
            got,
            [
                "_under", "apple", "Apple", "banana", "Banana", "Émile", "eve"
            ]
        );
    }

    #[test]
    fn canonically_equivalent_names_tie_break_on_bytes() {
        let nfc = "caf\u{e9}";
        let nfd = "cafe\u{301}";
        let l = listing(&[(nfd.as_bytes(), file(0, 0)), (nfc.as_bytes(), file(0, 0))]);
        // Equal to the collator, so bytes decide: "e" (0x65) < "é" (0xC3 0xA9) puts NFD first.
        assert_eq!(names_in(&l, SortSpec::default()), [nfd, nfc]);
    }

    #[test]
    fn descending_reverses_within_groups() {
        let l = listing(&[
            (b"b", dir()),
            (b"x2", file(0, 0)),
            (b"a", dir()),
            (b"x10", file(0, 0)),
            (b"x1", file(0, 0)),
        ]);
        let asc = names_in(&l, spec(SortKey::Name, Direction::Ascending));
        assert_eq!(asc, ["a", "b", "x1", "x2", "x10"]);
        assert_eq!(
            names_in(&l, spec(SortKey::Name, Direction::Descending)),
            ["b", "a", "x10", "x2", "x1"]
        );
    }

    #[test]
    fn by_size_folders_go_by_name_whatever_their_own_size() {
        let big_folder = Meta {
            size: 69_632,
            ..dir()
        };
        let l = listing(&[
            (b"zzz", dir()),
            (b"aaa", big_folder),
            (b"mmm", dir()),
            (b"f", file(5, 1)),
        ]);
        for direction in [Direction::Ascending, Direction::Descending] {
            let names = names_in(&l, spec(SortKey::Size, direction));
            let folders = match direction {
                Direction::Ascending => ["aaa", "mmm", "zzz"],
                Direction::Descending => ["zzz", "mmm", "aaa"],
            };
            assert_eq!(names[..3], folders, "{direction:?}");
        }
    }

    #[test]
    fn by_size_and_modified_then_name() {
        let l = listing(&[
            (b"big", file(300, 1)),
            (b"small-b", file(10, 3)),
            (b"small-a", file(10, 2)),
            (b"mid", file(20, 2)),
            (b"d", dir()),
        ]);
        assert_eq!(
            names_in(&l, spec(SortKey::Size, Direction::Ascending)),
            ["d", "small-a", "small-b", "mid", "big"]
        );
        assert_eq!(
            names_in(&l, spec(SortKey::Size, Direction::Descending)),
            ["d", "big", "mid", "small-b", "small-a"]
        );
        assert_eq!(
            names_in(&l, spec(SortKey::Modified, Direction::Ascending)),
            ["d", "big", "mid", "small-a", "small-b"]
        );
        let mut l = l;
        l.set_meta(
            0,
            Meta {
                mtime_nsec: 5,
                ..file(300, 3)
            },
        );
        assert_eq!(
            names_in(&l, spec(SortKey::Modified, Direction::Descending)),
            ["d", "big", "small-b", "small-a", "mid"]
        );
    }

    /// What the Type column names alike sits together: links (named "Link" whatever their
    /// extension), broken links, programs without an extension. A link `song.mp3` sat among
    /// the MP3 files, shown as "Link" between two "MP3 audio".
    #[test]
    fn by_type_keeps_each_shown_type_together() {
        let link = |target| Meta {
            kind: Kind::Symlink,
            target,
            ..Meta::default()
        };
        let program = Meta {
            mode: 0o100_755,
            ..file(0, 0)
        };
        let fifo = Meta {
            kind: Kind::Fifo,
            ..Meta::default()
        };
        let l = listing(&[
            (b"b.mp3", file(0, 0)),
            (b"song.mp3", link(Kind::File)),
            (b"a.mp3", file(0, 0)),
            (b"gone.mp3", link(Kind::Unknown)),
            (b"run", program),
            (b"to-run", link(Kind::File)),
            (b"notes", file(0, 0)),
            (b"pipe", fifo),
            (b"old-link", link(Kind::Unknown)),
            (b"z.txt", file(0, 0)),
            (b"build", program),
        ]);
        assert_eq!(
            names_in(&l, spec(SortKey::Type, Direction::Ascending)),
            [
                "notes", "a.mp3", "b.mp3", "z.txt", "build", "run", "song.mp3", "to-run",
                "gone.mp3", "old-link", "pipe"
            ]
        );
        assert_eq!(extension(b"notes.2024"), b"", "a number is no extension");
    }

    #[test]
    fn by_type_groups_extensions_case_insensitively() {
        let l = listing(&[
            (b"b.txt", file(0, 0)),
            (b"a.TXT", file(0, 0)),
            (b"c.pdf", file(0, 0)),
            (b"README", file(0, 0)),
            (b".bashrc", file(0, 0)),
            (b"x.tar.gz", file(0, 0)),
            (b"dir.d", dir()),
        ]);
        assert_eq!(
            names_in(&l, spec(SortKey::Type, Direction::Ascending)),
            [
                "dir.d", ".bashrc", "README", "x.tar.gz", "c.pdf", "a.TXT", "b.txt"
            ]
        );
        assert_eq!(extension(b"a.b.c"), b"c");
        assert_eq!(extension(b".hidden"), b"");
        assert_eq!(extension(b"trailing."), b"");
    }

    #[test]
    fn non_utf8_names_collate_lossily_and_tie_break_on_bytes() {
        let l = listing(&[
            (b"caf\xe9", file(0, 0)),
            (b"caf\xff", file(0, 0)),
            (b"cafe", file(0, 0)),
            (b"cab", file(0, 0)),
            (b"cafz", file(0, 0)),
        ]);
        let order = sorted_order(&l, SortSpec::default());
        let got: Vec<&[u8]> = order
            .iter()
            .map(|&i| l.entry(i as usize).name_bytes())
            .collect();
        // Both invalid names become "caf\u{FFFD}", after the letters; then byte order.
        let want: [&[u8]; 5] = [b"cab", b"cafe", b"cafz", b"caf\xe9", b"caf\xff"];
        assert_eq!(got, want);
    }

    #[test]
    fn large_listing_uses_both_halves_consistently() {
        // Above PARALLEL_MIN the keys come from two threads; the order must be the same as a
        // plain comparison sort.
        let mut l = Listing::default();
        for i in (0..PARALLEL_MIN as u64 * 2 + 3).rev() {
            let meta = if i % 5 == 0 { dir() } else { file(i, 0) };
            l.push(OsStr::new(&format!("n{i}")), meta);
        }
        let got = names_in(&l, SortSpec::default());
        let mut want: Vec<(bool, u64)> = (0..PARALLEL_MIN as u64 * 2 + 3)
            .map(|i| (i % 5 != 0, i))
            .collect();
        want.sort_unstable();
        let want: Vec<String> = want.into_iter().map(|(_, i)| format!("n{i}")).collect();
        assert_eq!(got, want);
    }

    /// The order the sort gave before it skipped the bytes all keys share: every key whole.
    fn whole_key_order(l: &Listing, spec: SortSpec) -> Vec<u32> {
        let collation = collation();
        let keyer = match &collation.ascii {
            Some(t) if (0..l.len()).all(|i| t.covers(l.entry(i).name_bytes())) => Keyer::Ascii(t),
            _ => Keyer::Collator(&collation.collator),
        };
        let mut run = Run::keyed(l, spec, keyer, 0..l.len());
        run.sort(l, spec, 0);
        run.items.iter().map(|item| item.idx).collect()
    }

    #[test]
    fn skipping_the_shared_bytes_keeps_the_order_of_whole_keys() {
        let sizes = [0, 1, 40, PARALLEL_MIN * 2 + 7];
        // Long shared starts (ASCII and not), keys shorter than 8 bytes, equal sizes and
        // times, extensions that are empty, shared or differ, and halves that share more
        // within than between them.
        let shapes: [fn(usize) -> (String, Meta); 6] = [
            |i| (format!("file-{:06}.txt", i * 7919 % 100_003), file(7, 7)),
            |i| {
                (
                    format!("été-rapport-{}", i * 31 % 9973),
                    file(i as u64 % 3, 5),
                )
            },
            |i| {
                (
                    format!("{}", (b'a' + (i % 26) as u8) as char).repeat(1 + i / 26),
                    file(0, 0),
                )
            },
            |i| {
                let ext = ["", ".tar.gz", ".TXT", ".txt", "."][i % 5];
                (
                    format!("doc{}{ext}", i / 5),
                    if i % 7 == 0 { dir() } else { file(1, 1) },
                )
            },
            |i| {
                (
                    format!("same-prefix-then-{}", i),
                    file(u64::MAX - (i as u64 % 2), -5),
                )
            },
            // Each half (one per thread) shares more than the two halves share.
            |i| {
                // Past their first byte, the left half's names would sort after the right's.
                let half = if i < PARALLEL_MIN + 3 { "x9" } else { "y1" };
                (format!("{half}-{i:05}"), file(0, 0))
            },
        ];
        for shape in shapes {
            for &n in &sizes {
                let l = listing_of((0..n).map(shape));
                for key in [
                    SortKey::Name,
                    SortKey::Size,
                    SortKey::Modified,
                    SortKey::Type,
                ] {
                    for direction in [Direction::Ascending, Direction::Descending] {
                        for folders_first in [true, false] {
                            let spec = SortSpec {
                                key,
                                direction,
                                folders_first,
                            };
                            let want = whole_key_order(&l, spec);
                            assert_eq!(sorted_order(&l, spec), want, "{n} names, {spec:?}");
                        }
                    }
                }
            }
        }
    }

    fn listing_of(entries: impl Iterator<Item = (String, Meta)>) -> Listing {
        let mut l = Listing::new(PathBuf::from("/t"));
        for (name, meta) in entries {
            l.push(OsStr::new(&name), meta);
        }
        l
    }

    #[test]
    fn collation_keys_never_contain_a_zero_byte() {
        // The type sort joins extension and name keys with 0x00, which relies on this.
        let collator = &collation().collator;
        let mut key = Vec::new();
        let samples = (1..0x3400).chain(0x4e00..0x4f00).chain(0x1f600..0x1f650);
        for c in samples.filter_map(char::from_u32) {
            for s in [
                c.to_string(),
                format!("a{c}1{c}"),
                format!("{c}{c}{c}{c}{c}{c}{c}{c}{c}"),
            ] {
                key.clear();
                let Ok(()) = collator.write_sort_key_to(&s, &mut key);
                assert!(!key.contains(&0), "{s:?} -> {key:?}");
            }
        }
    }
}
