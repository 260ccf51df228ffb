//! The trash: trash, list, restore (same file system, across file systems, into a vanished
//! folder), empty, links; restores onto a taken name with each answer to the conflict are in
//! `trash_conflicts.rs`, each file system's own trash folder in `trash_volumes.rs`, the CLI's
//! in `trash_cli.rs`, untrusted info files in `trash_untrusted.rs`. Helpers here are theirs.
//!
//! Never the user's trash: core tests give the engine a home trash in a temporary folder
//! ([`TrashRoots`]) and allow no volume trash except a tmpfs mounted for the test; CLI tests
//! run `ferry` with `HOME` and `XDG_DATA_HOME` pointing at a temporary folder and only
//! restore items they trashed themselves, found by path.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use ferry_core::jobs::{ConflictPolicy, Job, Summary, TrashRoots, TrashedItem, list_trash_in};
use ferry_tests::TempTree;

use super::jobs_support::{assert_accounts_for, assert_no_temporaries, run_job, snapshot};

pub(crate) fn trash(paths: &[PathBuf], roots: &TrashRoots) -> Summary {
    let out = run_job(Job::Trash {
        paths: paths.to_vec(),
        roots: roots.clone(),
    });
    assert_accounts_for(&out.summary, paths);
    out.summary
}

pub(crate) fn restore(items: Vec<TrashedItem>) -> Summary {
    restore_with(items, ConflictPolicy::Skip)
}

pub(crate) fn restore_with(items: Vec<TrashedItem>, on_conflict: ConflictPolicy) -> Summary {
    let originals: Vec<PathBuf> = items.iter().map(|i| i.original.clone()).collect();
    let out = run_job(Job::Restore { items, on_conflict });
    assert_accounts_for(&out.summary, &originals);
    assert!(!out.cancelled);
    out.summary
}

/// A 4 MiB tmpfs at `tree/vol` holding `d/file` (with `contents`), and the roots of a trash
/// with its home in `tree` that uses that volume's own trash; `None` (with a note) where it
/// cannot be mounted.
pub(crate) fn a_volume_with_a_file(
    tree: &TempTree,
    contents: &str,
) -> Option<(super::jobs_support::Mounted, TrashRoots, PathBuf)> {
    let mount = super::jobs_support::Mounted::tmpfs(&tree.join("vol"), "4m")?;
    let roots = TrashRoots {
        home: tree.join("home/Trash"),
        volumes: ferry_core::jobs::Volumes::Only(vec![mount.dir.clone()]),
    };
    let path = mount.dir.join("d/file");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, contents).unwrap();
    Some((mount, roots, path))
}

pub(crate) fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap()
}

/// Every entry of a trash folder's `files/` and `info/`.
pub(crate) fn trash_contents(trash: &Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    for sub in ["files", "info"] {
        if let Ok(entries) = fs::read_dir(trash.join(sub)) {
            all.extend(entries.map(|e| e.unwrap().path()));
        }
    }
    all
}

/// Rewrites the info file `info` to say its item was at `original`.
pub(crate) fn repoint(info: &Path, original: &Path) {
    let body = format!("[Trash Info]\nPath={}\n", original.display());
    fs::write(info, body).unwrap();
}

pub(crate) fn mode(path: &Path) -> u32 {
    fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
}

#[test]
fn trash_list_and_restore_on_one_file_system() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("data/Trash"));
    let odd = OsStr::from_bytes(b"caf\xe9 50%.txt");
    tree.file("work/a.txt", "alpha");
    tree.file("work/folder/inner/b", "beta");
    std::os::unix::fs::symlink("../a.txt", tree.join("work/folder/link")).unwrap();
    tree.file(Path::new("work").join(odd), "latin-1 name");
    let before = snapshot(&tree.join("work"));
    let paths = vec![
        tree.join("work/a.txt"),
        tree.join("work/folder"),
        tree.join("work").join(odd),
    ];

    let summary = trash(&paths, &roots);
    assert!(summary.is_complete(), "{summary:#?}");
    assert_eq!(summary.done, paths);
    assert!(fs::read_dir(tree.join("work")).unwrap().next().is_none());
    assert_eq!(mode(&roots.home), 0o700);
    for (record, path) in summary.trash.iter().zip(&paths) {
        assert_eq!(&record.original, path);
        assert!(record.file.starts_with(roots.home.join("files")));
        assert!(record.info.starts_with(roots.home.join("info")));
        let meta = fs::symlink_metadata(&record.file).unwrap();
        assert_eq!((meta.dev(), meta.ino()), (record.id.dev, record.id.ino));
    }
    let info = fs::read_to_string(&summary.trash[2].info).unwrap();
    assert!(info.contains("/caf%E9%2050%25.txt\n"), "{info}");

    let listed = list_trash_in(&roots).unwrap();
    let mut originals: Vec<&Path> = listed.iter().map(|i| i.original.as_path()).collect();
    originals.sort();
    let mut expected: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    expected.sort();
    assert_eq!(originals, expected);
    let odd_item = listed.iter().find(|i| i.name == odd).unwrap();
    assert_eq!(odd_item.size, "latin-1 name".len() as u64);
    let folder = listed.iter().find(|i| i.name == "folder").unwrap();
    assert_eq!(folder.size, "beta".len() as u64 + "../a.txt".len() as u64);
    assert!(folder.deleted_at.is_some());

    let summary = restore(listed);
    assert!(summary.is_complete(), "{summary:#?}");
    assert_eq!(snapshot(&tree.join("work")), before);
    assert_eq!(trash_contents(&roots.home), Vec::<PathBuf>::new());
    assert!(list_trash_in(&roots).unwrap().is_empty());
}

#[test]
fn one_name_trashed_twice_keeps_both() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("Trash"));
    let path = tree.file("w/same", "first");
    trash(std::slice::from_ref(&path), &roots);
    tree.file("w/same", "second");
    let summary = trash(std::slice::from_ref(&path), &roots);
    assert_eq!(summary.trash[0].file, roots.home.join("files/same.2"));
    let mut bodies: Vec<String> = list_trash_in(&roots)
        .unwrap()
        .iter()
        .map(|i| fs::read_to_string(&i.file).unwrap())
        .collect();
    bodies.sort();
    assert_eq!(bodies, ["first", "second"]);
}

#[test]
fn restore_recreates_a_vanished_parent() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("Trash"));
    let path = tree.file("w/gone/deeper/file", "kept");
    trash(std::slice::from_ref(&path), &roots);
    fs::remove_dir_all(tree.join("w/gone")).unwrap();

    let summary = restore(list_trash_in(&roots).unwrap());
    assert!(summary.is_complete(), "{summary:#?}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "kept");
    assert!(trash_contents(&roots.home).is_empty());
}

#[test]
fn restore_across_file_systems_copies_whole_then_removes_the_trashed_copy() {
    let tree = TempTree::new();
    let shm = TempTree::new_in("/dev/shm");
    let roots = TrashRoots::home_only(tree.join("Trash"));
    let big: Vec<u8> = (0..3_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
    tree.file("w/place/dir/big.bin", &big);
    tree.file("w/place/dir/sub/empty", "");
    tree.file("w/place/dir/sub/small", "small");
    fs::set_permissions(
        tree.join("w/place/dir/sub/small"),
        fs::Permissions::from_mode(0o640),
    )
    .unwrap();
    std::os::unix::fs::symlink("big.bin", tree.join("w/place/dir/link")).unwrap();
    std::os::unix::fs::symlink("/nowhere", tree.join("w/place/dir/broken")).unwrap();
    let before = snapshot(&tree.join("w/place"));
    let item = tree.join("w/place/dir");
    let trashed = trash(std::slice::from_ref(&item), &roots);

    // Its entry says it was on tmpfs (as the `trash` crate's fallback to the home trash
    // writes): restoring crosses file systems.
    repoint(&trashed.trash[0].info, &shm.join("place/dir"));
    fs::create_dir(shm.join("place")).unwrap();

    let summary = restore(list_trash_in(&roots).unwrap());
    assert!(summary.is_complete(), "{summary:#?}");
    assert_eq!(snapshot(&shm.join("place")), before);
    assert_eq!(fs::read(shm.join("place/dir/big.bin")).unwrap(), big);
    assert_eq!(
        fs::symlink_metadata(shm.join("place/dir")).unwrap().dev(),
        fs::metadata("/dev/shm").unwrap().dev()
    );
    assert_eq!(trash_contents(&roots.home), Vec::<PathBuf>::new());
    assert_no_temporaries(shm.path());
    let names: Vec<_> = fs::read_dir(shm.join("place"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["dir"], "no staging folder is left");
    let record = &summary.trash[0];
    let meta = fs::symlink_metadata(shm.join("place/dir")).unwrap();
    assert_eq!((record.id.dev, record.id.ino), (meta.dev(), meta.ino()));
}

#[test]
fn empty_trash_deletes_everything_with_progress() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("Trash"));
    let mut paths = Vec::new();
    for i in 0..5 {
        paths.push(tree.file(format!("w/f{i}"), "x"));
    }
    super::jobs_support::deep_chain(&tree.join("w"), "d", 300);
    paths.push(tree.join("w/d"));
    assert!(trash(&paths, &roots).is_complete());
    // An info file whose item is gone is removed as well.
    fs::write(
        roots.home.join("info/orphan.trashinfo"),
        "[Trash Info]\nPath=/x\n",
    )
    .unwrap();

    let out = run_job(Job::EmptyTrash {
        roots: roots.clone(),
        listed: None,
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert!(out.events.iter().any(
        |e| matches!(e, ferry_core::jobs::Event::Planned { totals, .. } if totals.items >= 306)
    ));
    assert_eq!(trash_contents(&roots.home), Vec::<PathBuf>::new());
    assert!(list_trash_in(&roots).unwrap().is_empty());
}

/// The window empties what it asked about: an item trashed while the question was open
/// stays, with its info file.
#[test]
fn emptying_what_was_listed_leaves_what_was_trashed_since() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("Trash"));
    let paths: Vec<PathBuf> = (0..3).map(|i| tree.file(format!("w/f{i}"), "x")).collect();
    assert!(trash(&paths, &roots).is_complete());
    let listed = (list_trash_in(&roots).unwrap().into_iter())
        .map(|item| (item.file, item.id))
        .collect();
    let late = tree.file("w/late", "trashed while asked");
    assert!(trash(std::slice::from_ref(&late), &roots).is_complete());

    let out = run_job(Job::EmptyTrash {
        roots: roots.clone(),
        listed: Some(listed),
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    let left = list_trash_in(&roots).unwrap();
    let [item] = left.as_slice() else {
        panic!("{left:#?}");
    };
    assert_eq!(item.original, late);
    assert_eq!(fs::read(&item.file).unwrap(), b"trashed while asked");
}

#[test]
fn a_link_to_a_folder_is_trashed_as_the_link() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("Trash"));
    tree.file("target/keep", "kept");
    let link = tree.join("w/link");
    fs::create_dir(tree.join("w")).unwrap();
    std::os::unix::fs::symlink(tree.join("target"), &link).unwrap();
    let summary = trash(std::slice::from_ref(&link), &roots);
    assert!(summary.is_complete(), "{summary:#?}");
    assert!(
        fs::symlink_metadata(&summary.trash[0].file)
            .unwrap()
            .is_symlink()
    );
    assert_eq!(
        fs::read_to_string(tree.join("target/keep")).unwrap(),
        "kept"
    );
    assert!(restore(list_trash_in(&roots).unwrap()).is_complete());
    assert_eq!(fs::read_link(&link).unwrap(), tree.join("target"));
}

/// `directorysizes` (Trash specification 1.0) has a line per trashed folder, `size mtime
/// name`: the size of its files, its info file's time in milliseconds (as KIO writes and
/// compares it), its name percent-encoded. A restore drops its folder's line, emptying the
/// trash the rest.
#[test]
fn the_trash_keeps_its_folders_sizes_for_other_file_managers() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("Trash"));
    tree.file("w/my docs/a", "abc");
    tree.file("w/my docs/sub/b", "hello");
    tree.file("w/two/c", "1234567");
    let file = tree.file("w/plain", "not a folder");
    let (docs, two) = (tree.join("w/my docs"), tree.join("w/two"));
    assert!(trash(&[docs.clone(), file], &roots).is_complete());
    assert!(trash(std::slice::from_ref(&two), &roots).is_complete());

    let sizes = roots.home.join("directorysizes");
    let info_millis = |name: &str| {
        let info = roots.home.join(format!("info/{name}.trashinfo"));
        let meta = fs::metadata(info).unwrap();
        meta.mtime() * 1000 + meta.mtime_nsec() / 1_000_000
    };
    let expected = format!(
        "8 {} my%20docs\n7 {} two\n",
        info_millis("my docs"),
        info_millis("two")
    );
    assert_eq!(read(&sizes), expected);

    let listed = list_trash_in(&roots).unwrap();
    let docs_item = listed.into_iter().filter(|i| i.original == docs).collect();
    assert!(restore(docs_item).is_complete());
    assert_eq!(read(&sizes), format!("7 {} two\n", info_millis("two")));

    let out = run_job(Job::EmptyTrash {
        roots: roots.clone(),
        listed: None,
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert!(!sizes.exists(), "{}", read(&sizes));
}
