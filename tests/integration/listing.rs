//! The lister against real folders: completeness (compared with `ls -f`), odd names, symlinks,
//! special files, streaming batches and errors.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::ffi::OsStringExt;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use ferry_core::Error;
use ferry_core::entry::{Kind, Listing};
use ferry_core::lister::{self, ListMsg};
use ferry_tests::TempTree;

/// Names in `dir` as `ls -f` prints them (directory order, `.` and `..` dropped).
fn ls_f(dir: &Path) -> Vec<OsString> {
    let out = Command::new("ls").arg("-f").arg(dir).output().unwrap();
    assert!(out.status.success(), "ls -f failed: {out:?}");
    out.stdout
        .split(|&b| b == b'\n')
        .filter(|name| !name.is_empty() && *name != b"." && *name != b"..")
        .map(|name| OsString::from_vec(name.to_vec()))
        .collect()
}

fn names(listing: &Listing) -> Vec<OsString> {
    listing.iter().map(|e| e.name().to_owned()).collect()
}

fn entry_kind(listing: &Listing, name: &str) -> (Kind, Kind) {
    let i = listing
        .position(OsStr::new(name))
        .unwrap_or_else(|| panic!("{name} not listed"));
    (listing.entry(i).kind(), listing.entry(i).target_kind())
}

/// Collects a streaming listing: its batches, then the result.
fn stream(dir: &Path) -> (Vec<Listing>, Result<(), Error>) {
    let mut batches = Vec::new();
    for msg in lister::list_streaming(dir.to_owned(), Arc::new(AtomicBool::new(false))) {
        match msg {
            ListMsg::Batch(batch) => batches.push(batch),
            ListMsg::Done(result) => return (batches, result),
        }
    }
    panic!("the lister ended without Done");
}

#[test]
fn ten_thousand_entries_match_ls_f_exactly() {
    let tree = TempTree::new();
    let dir = tree.many_files("big", "file", 9_993, 3);
    tree.dir("big/sub folder");
    tree.file("big/.hidden", "");
    tree.file("big/with space.txt", "");
    tree.file_bytes_name("big", b"caf\xe9", b"");
    tree.symlink("big/link", "file1");
    tree.symlink("big/dangling", "no such file");
    tree.fifo("big/pipe");
    tree.dir("big/sub folder/not listed");

    let listing = lister::list_all(&dir).unwrap();
    // Same names in the same (directory) order: nothing lost, nothing doubled, no `.`/`..`.
    assert_eq!(names(&listing), ls_f(&dir));
    assert_eq!(listing.len(), 10_000);
    assert_eq!(listing.dir(), dir);
    assert!(listing.iter().all(|e| !e.stat_failed()));
    let file = listing.entry(listing.position(OsStr::new("file42")).unwrap());
    assert_eq!((file.kind(), file.size(), file.nlink()), (Kind::File, 3, 1));

    // The compactness goal: at most 100 bytes per entry, name included.
    assert!(
        listing.heap_bytes() <= 100 * listing.len(),
        "{} bytes",
        listing.heap_bytes()
    );

    // Streaming yields the same entries in the same order, the first batch small.
    let (batches, result) = stream(&dir);
    result.unwrap();
    assert!(
        batches[0].len() <= 1000,
        "first batch of {}",
        batches[0].len()
    );
    assert!(batches.len() > 1);
    let mut streamed = Listing::new(dir);
    for batch in &batches {
        streamed.append(batch);
    }
    assert_eq!(names(&streamed), names(&listing));
}

#[test]
fn non_utf8_names_round_trip() {
    let tree = TempTree::new();
    let dir = tree.dir("odd");
    let odd: [&[u8]; 5] = [
        b"caf\xe9",
        b"\xff\xfe",
        b"line\nbreak",
        b"tab\there",
        b"\xe2\x82",
    ];
    for name in odd {
        tree.file_bytes_name("odd", name, name);
    }
    let listing = lister::list_all(&dir).unwrap();
    let mut got: Vec<&[u8]> = listing.iter().map(|e| e.name_bytes()).collect();
    got.sort_unstable();
    let mut want = odd.to_vec();
    want.sort_unstable();
    assert_eq!(got, want);
    for e in listing.iter() {
        // The listed name opens the file it came from.
        assert_eq!(std::fs::read(dir.join(e.name())).unwrap(), e.name_bytes());
        assert_eq!(e.size(), e.name_bytes().len() as u64);
    }
}

#[test]
fn symlinks_are_listed_not_followed() {
    let tree = TempTree::new();
    let dir = tree.dir("links");
    tree.dir("links/real dir");
    tree.file("links/real dir/inside", "x");
    tree.file("links/real file", "12345");
    tree.symlink("links/to dir", "real dir");
    tree.symlink("links/to file", "real file");
    tree.symlink("links/broken", "gone");
    tree.symlink("links/loop", "loop");
    tree.symlink("links/outside", tree.path());

    let listing = lister::list_all(&dir).unwrap();
    assert_eq!(
        listing.len(),
        7,
        "the link targets' contents are not listed"
    );
    assert_eq!(entry_kind(&listing, "to dir"), (Kind::Symlink, Kind::Dir));
    assert_eq!(entry_kind(&listing, "outside"), (Kind::Symlink, Kind::Dir));
    assert_eq!(entry_kind(&listing, "to file"), (Kind::Symlink, Kind::File));
    assert_eq!(
        entry_kind(&listing, "broken"),
        (Kind::Symlink, Kind::Unknown)
    );
    assert_eq!(entry_kind(&listing, "loop"), (Kind::Symlink, Kind::Unknown));
    assert_eq!(entry_kind(&listing, "real dir"), (Kind::Dir, Kind::Unknown));

    let to_dir = listing.entry(listing.position(OsStr::new("to dir")).unwrap());
    assert!(to_dir.is_dir_like() && !to_dir.stat_failed());
    // The link's own size (its target's length), not the folder's.
    assert_eq!(to_dir.size(), "real dir".len() as u64);
    let broken = listing.entry(listing.position(OsStr::new("broken")).unwrap());
    assert!(!broken.is_dir_like() && !broken.stat_failed());
    assert_eq!(broken.size(), "gone".len() as u64);
}

/// A link to a file is shown as Dolphin and Nautilus show it: with the size and time of the
/// file it opens, not the link's own (the length of the path it holds, when it was made).
#[test]
fn a_link_to_a_file_has_the_files_size_and_time() {
    let tree = TempTree::new();
    let dir = tree.dir("links");
    let file = tree.file("links/real file", "x".repeat(5000));
    let old = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
    fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(old)
        .unwrap();
    tree.symlink("links/to file", "real file");

    let listing = lister::list_all(&dir).unwrap();
    let link = listing.entry(listing.position(OsStr::new("to file")).unwrap());
    assert_eq!(
        (link.kind(), link.target_kind()),
        (Kind::Symlink, Kind::File)
    );
    assert_eq!(link.size(), 5000);
    assert_eq!(link.mtime(), (1_000_000_000, 0));
}

#[test]
fn special_files_are_listed_without_opening_them() {
    let tree = TempTree::new();
    let dir = tree.dir("special");
    // Opening a FIFO for reading would block this test forever.
    tree.fifo("special/fifo");
    let socket = std::os::unix::net::UnixListener::bind(dir.join("socket")).unwrap();
    let listing = lister::list_all(&dir).unwrap();
    drop(socket);
    assert_eq!(entry_kind(&listing, "fifo").0, Kind::Fifo);
    assert_eq!(entry_kind(&listing, "socket").0, Kind::Socket);

    let devices = lister::list_all(Path::new("/dev")).unwrap();
    assert_eq!(entry_kind(&devices, "null").0, Kind::CharDevice);
}

#[test]
fn bad_paths_give_errors_naming_them() {
    let tree = TempTree::new();
    let file = tree.file("a file", "x");
    let missing = tree.join("missing");
    let link = tree.symlink("link", tree.path());

    for path in [&file, &link] {
        let err = lister::open_dir(path).unwrap_err();
        assert!(
            matches!(&err, Error::NotADirectory { path: p } if p == path),
            "{err:?}"
        );
        assert!(err.to_string().contains(&*path.to_string_lossy()));
    }
    let err = lister::open_dir(&missing).unwrap_err();
    assert!(err.is_not_found());
    assert_eq!(err.path(), Some(missing.as_path()));
    assert!(err.to_string().contains(&*missing.to_string_lossy()));

    let err = lister::list_all(&file).unwrap_err();
    assert!(matches!(&err, Error::NotADirectory { path } if *path == file));
    let (batches, result) = stream(&missing);
    assert!(batches.is_empty());
    assert!(matches!(result, Err(e) if e.is_not_found() && e.path() == Some(missing.as_path())));
}
