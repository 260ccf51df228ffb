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

/// A key that orders names as a listing sorted by name does (natural and locale-aware:
/// "f2" before "f10"), for lists sorted outside a [`Listing`] such as the window's conflict
/// table: the name's collation key, then its bytes, so that the order is total.
pub fn name_key(name: &[u8]) -> Vec<u8> {
    let mut key = Vec::with_capacity(2 * name.len() + 1);
    let Ok(()) = collation().collator.write_sort_key_utf8_to(name, &mut key);
    // No collation key holds a 0x00: a key that ends first orders first.
    key.push(0);
    key.extend_from_slice(name);
    key
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
/// The class of links to what is not a folder, named by their extension as files are ("Link
/// to MP3 audio"): ordered by it too, they were ordered by name.
const LINKS: u8 = 3;

/// What the Type column groups before the extension: the window names every link to a file
/// "Link to" what its extension says, every broken one "Broken link", and a file with no
/// extension "Program" when it may be run, "File" otherwise, whatever the names say.
fn type_class(entry: &EntryRef<'_>) -> u8 {
    match entry.kind() {
        _ if entry.is_dir_like() => 0,
        Kind::File if extension(entry.name_bytes()).is_empty() && entry.mode() & 0o111 != 0 => 2,
        Kind::File | Kind::Dir => FILES,
        Kind::Symlink if entry.target_kind() == Kind::Unknown => 4,
        Kind::Symlink => LINKS,
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
                if class == FILES || class == LINKS {
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
mod tests;
