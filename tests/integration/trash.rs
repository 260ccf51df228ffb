//! The trash: trash, list, restore (same file system, across file systems, onto a taken
//! name, into a vanished folder), empty, per-volume `.Trash-$uid`, and the CLI.
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

use ferry_core::Error;
use ferry_core::jobs::{Job, Summary, TrashRoots, TrashedItem, Volumes, list_trash_in};
use ferry_tests::TempTree;

use super::ferry_in;
use super::jobs_support::{Mounted, assert_accounts_for, assert_no_temporaries, run_job, snapshot};

fn trash(paths: &[PathBuf], roots: &TrashRoots) -> Summary {
    let out = run_job(Job::Trash {
        paths: paths.to_vec(),
        roots: roots.clone(),
    });
    assert_accounts_for(&out.summary, paths);
    out.summary
}

fn restore(items: Vec<TrashedItem>) -> Summary {
    let originals: Vec<PathBuf> = items.iter().map(|i| i.original.clone()).collect();
    let out = run_job(Job::Restore { items });
    assert_accounts_for(&out.summary, &originals);
    out.summary
}

/// Every entry of a trash folder's `files/` and `info/`.
fn trash_contents(trash: &Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    for sub in ["files", "info"] {
        if let Ok(entries) = fs::read_dir(trash.join(sub)) {
            all.extend(entries.map(|e| e.unwrap().path()));
        }
    }
    all
}

fn mode(path: &Path) -> u32 {
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
fn restore_onto_a_taken_name_fails_and_keeps_both() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("Trash"));
    let path = tree.file("w/note", "old");
    trash(std::slice::from_ref(&path), &roots);
    fs::write(&path, "new").unwrap();

    let summary = restore(list_trash_in(&roots).unwrap());
    assert!(summary.done.is_empty());
    assert_eq!(summary.failed.len(), 1);
    let error = &summary.failed[0].error;
    assert_eq!(
        error.raw_os_error(),
        Some(rustix::io::Errno::EXIST.raw_os_error())
    );
    assert!(error.to_string().contains("note"), "{error}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "new");
    let still = list_trash_in(&roots).unwrap();
    assert_eq!(still.len(), 1);
    assert_eq!(fs::read_to_string(&still[0].file).unwrap(), "old");
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
    trash(std::slice::from_ref(&item), &roots);

    // The original folder is now a link to a folder on tmpfs: restoring crosses file systems.
    fs::remove_dir(tree.join("w/place")).unwrap();
    fs::create_dir(shm.join("place")).unwrap();
    std::os::unix::fs::symlink(shm.join("place"), tree.join("w/place")).unwrap();

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
fn an_item_without_a_trash_on_its_file_system_fails_offering_permanent_delete() {
    let tree = TempTree::new();
    let shm = TempTree::new_in("/dev/shm");
    let roots = TrashRoots::home_only(tree.join("Trash"));
    let path = shm.file("stays", "here");
    let summary = trash(std::slice::from_ref(&path), &roots);
    assert!(summary.done.is_empty());
    let error = &summary.failed[0].error;
    assert!(matches!(**error, Error::CannotTrash { .. }), "{error:?}");
    assert!(error.to_string().contains("deleted permanently"), "{error}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "here");
    assert!(!shm.path().join(".Trash-0").exists());
}

#[test]
fn a_volume_gets_its_own_private_trash_folder() {
    let tree = TempTree::new();
    let Some(mount) = Mounted::tmpfs(&tree.join("vol"), "4m") else {
        return;
    };
    let roots = TrashRoots {
        home: tree.join("home/Trash"),
        volumes: Volumes::Only(vec![mount.dir.clone()]),
    };
    let path = mount.dir.join("d/file");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, "on tmpfs").unwrap();
    let summary = trash(std::slice::from_ref(&path), &roots);
    assert!(summary.is_complete(), "{summary:#?}");
    let uid = rustix::process::getuid().as_raw();
    let vol_trash = mount.dir.join(format!(".Trash-{uid}"));
    for dir in [
        &vol_trash,
        &vol_trash.join("files"),
        &vol_trash.join("info"),
    ] {
        assert_eq!(mode(dir), 0o700, "{}", dir.display());
    }
    assert_eq!(summary.trash[0].file, vol_trash.join("files/file"));
    let listed = list_trash_in(&roots).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].original, path);
    assert!(restore(listed).is_complete());
    assert_eq!(fs::read_to_string(&path).unwrap(), "on tmpfs");
    assert!(trash_contents(&vol_trash).is_empty());
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
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert!(out.events.iter().any(
        |e| matches!(e, ferry_core::jobs::Event::Planned { totals, .. } if totals.items >= 306)
    ));
    assert_eq!(trash_contents(&roots.home), Vec::<PathBuf>::new());
    assert!(list_trash_in(&roots).unwrap().is_empty());
}

/// `ferry` with its home (and so its home trash) in `home`.
fn ferry_at(home: &Path, args: &[&OsStr]) -> std::process::Output {
    ferry_in(home).args(args).output().unwrap()
}

#[test]
fn cli_trashes_lists_and_restores_by_path_and_index() {
    let tree = TempTree::new();
    let home = tree.join("home");
    fs::create_dir(&home).unwrap();
    let a = tree.file("w/a file", "A");
    let b = tree.file(Path::new("w").join(OsStr::from_bytes(b"b\xff")), "B");
    let out = ferry_at(&home, &[OsStr::new("trash"), a.as_os_str(), b.as_os_str()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!a.exists() && !b.exists());
    assert_eq!(trash_contents(&home.join("data/Trash")).len(), 4);

    let out = ferry_at(&home, &[OsStr::new("restore")]);
    assert_eq!(out.status.code(), Some(0));
    let listing = String::from_utf8_lossy(&out.stdout).into_owned();
    let line_of = |p: &Path| {
        listing
            .lines()
            .find(|l| l.ends_with(&*p.to_string_lossy()))
            .unwrap_or_else(|| panic!("{} not listed:\n{listing}", p.display()))
            .to_owned()
    };
    let b_index = line_of(&b).split_whitespace().next().unwrap().to_owned();
    line_of(&a);

    // Indexes are those of the listing: restore by index before anything else changes it.
    let out = ferry_at(
        &home,
        &[
            OsStr::new("restore"),
            OsStr::new("--index"),
            OsStr::new(&b_index),
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = ferry_at(&home, &[OsStr::new("restore"), a.as_os_str()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(fs::read_to_string(&a).unwrap(), "A");
    assert_eq!(fs::read_to_string(&b).unwrap(), "B");
    assert!(trash_contents(&home.join("data/Trash")).is_empty());

    let out = ferry_at(&home, &[OsStr::new("restore"), a.as_os_str()]);
    assert_eq!(out.status.code(), Some(2), "not in the trash any more");
    let missing = tree.join("w/missing");
    let out = ferry_at(&home, &[OsStr::new("trash"), missing.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn cli_restore_refuses_a_taken_name() {
    let tree = TempTree::new();
    let home = tree.join("home");
    fs::create_dir(&home).unwrap();
    let a = tree.file("w/a", "old");
    let out = ferry_at(&home, &[OsStr::new("trash"), a.as_os_str()]);
    assert_eq!(out.status.code(), Some(0));
    fs::write(&a, "new").unwrap();
    let out = ferry_at(&home, &[OsStr::new("restore"), a.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("exists"));
    assert_eq!(fs::read_to_string(&a).unwrap(), "new");

    let keep_both = [
        OsStr::new("restore"),
        OsStr::new("--keep-both"),
        a.as_os_str(),
    ];
    let out = ferry_at(&home, &keep_both);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(fs::read_to_string(&a).unwrap(), "new");
    assert_eq!(fs::read_to_string(tree.join("w/a (copy)")).unwrap(), "old");
    assert!(trash_contents(&home.join("data/Trash")).is_empty());
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
