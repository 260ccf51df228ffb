//! The sort's orders, keys and threads.

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
        (b"notes-link.txt", link(Kind::File)),
        (b"a-link.mp3", link(Kind::File)),
    ]);
    // Links by their extension, as their type is named ("Link to file", "Link to MP3
    // audio", "Link to TXT text"): they were by name.
    assert_eq!(
        names_in(&l, spec(SortKey::Type, Direction::Ascending)),
        [
            "notes",
            "a.mp3",
            "b.mp3",
            "z.txt",
            "build",
            "run",
            "to-run",
            "a-link.mp3",
            "song.mp3",
            "notes-link.txt",
            "gone.mp3",
            "old-link",
            "pipe"
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
