//! What the trash (and a permanent delete or a move of the same things) refuses or leaves
//! alone, and how it says so: another user's trash folder, a folder a restore cannot write
//! into, read-only folders of the user's own, read-only disks, and Ferry's own state folder.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use ferry_tests::TempTree;

use super::jobs_support::{Mounted, chmod};
use super::trash::{read, trash_contents};
use super::trash_cli::ferry_at;
use super::undo::ok;

/// A folder another user made where this user's trash on a volume would be (`.Trash-$uid`,
/// `.Trash/$uid`), which this user cannot open, is not this user's trash: listing, restoring
/// and emptying skip it rather than fail, on every volume.
#[test]
fn another_users_trash_folder_on_a_volume_locks_nobody_out() {
    let tree = TempTree::new();
    let home = unprivileged_home(&tree);
    let Some(volume) = Mounted::new(
        &tree.join("mnt"),
        &["-t", "tmpfs", "-o", "mode=1777", "tmpfs"],
    ) else {
        return;
    };
    let report = tree.file("home/report.txt", "precious");
    std::os::unix::fs::lchown(&report, Some(65534), Some(65534)).unwrap();
    let shared = volume.dir.join(".Trash");
    fs::create_dir(&shared).unwrap();
    chmod(&shared, 0o1777);
    for theirs in [volume.dir.join(".Trash-65534"), shared.join("65534")] {
        fs::create_dir_all(theirs.join("files")).unwrap();
        fs::create_dir_all(theirs.join("info")).unwrap();
        for dir in [theirs.join("files"), theirs.join("info"), theirs.clone()] {
            std::os::unix::fs::lchown(&dir, Some(1234), Some(1234)).unwrap();
            chmod(&dir, 0o700);
        }
    }

    ok(&ferry_unprivileged_at(
        &home,
        &[OsStr::new("trash"), report.as_os_str()],
    ));
    let out = ferry_unprivileged_at(&home, &[OsStr::new("restore")]);
    ok(&out);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("report.txt"),
        "{out:?}"
    );
    ok(&ferry_unprivileged_at(
        &home,
        &[OsStr::new("restore"), report.as_os_str()],
    ));
    assert_eq!(read(&report), "precious");
    ok(&ferry_unprivileged_at(
        &home,
        &[OsStr::new("trash"), report.as_os_str()],
    ));
    ok(&ferry_unprivileged_at(&home, &[OsStr::new("empty-trash")]));
    assert!(!report.exists() && trash_contents(&home.join("data/Trash")).is_empty());
    assert!(
        volume.dir.join(".Trash-65534/files").is_dir(),
        "theirs left alone"
    );
}

/// A restore that cannot write the original folder names that place, not the item's path
/// in the trash.
#[test]
fn a_restore_refused_by_its_folder_names_the_original_place() {
    let tree = TempTree::new();
    let home = unprivileged_home(&tree);
    let w = tree.dir("w");
    chmod(&w, 0o777);
    let a = tree.file("w/a", "a");
    ok(&ferry_unprivileged_at(
        &home,
        &[OsStr::new("trash"), a.as_os_str()],
    ));
    chmod(&w, 0o755);
    let out = ferry_unprivileged_at(&home, &[OsStr::new("restore"), a.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot restore {}: ", a.display())),
        "{stderr}"
    );
    assert!(!stderr.contains("Trash/files"), "{stderr}");
}

/// `tree/home`, the home of user 65534 (`tree` opened to others for it).
fn unprivileged_home(tree: &TempTree) -> std::path::PathBuf {
    chmod(tree.path(), 0o755);
    let home = tree.dir("home");
    std::os::unix::fs::lchown(&home, Some(65534), Some(65534)).unwrap();
    home
}

/// `ferry` run as the unprivileged user 65534 (root ignores permissions) with its own `home`.
fn ferry_unprivileged_at(home: &Path, args: &[&OsStr]) -> std::process::Output {
    std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_ferry-under-test"))
        .args(args)
        .env("HOME", home)
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .output()
        .unwrap()
}

/// A folder of the user's own with read-only folders in it, as a copied CD or a Go module
/// cache has: `ro` (0555) holding a file, and `locked` (000) holding one.
fn read_only_tree(tree: &TempTree, name: &str) -> std::path::PathBuf {
    let top = tree.dir(name);
    for (path, mode) in [
        (tree.file(format!("{name}/ro/a"), "a"), 0o644),
        (tree.file(format!("{name}/locked/b"), "b"), 0o644),
        (top.join("ro"), 0o555),
        (top.join("locked"), 0o000),
        (top.clone(), 0o755),
    ] {
        std::os::unix::fs::lchown(&path, Some(65534), Some(65534)).unwrap();
        chmod(&path, mode);
    }
    top
}

#[test]
fn emptying_the_trash_removes_read_only_folders_of_ours_where_rm_fails() {
    let tree = TempTree::new();
    let home = unprivileged_home(&tree);
    let work = tree.dir("work");
    std::os::unix::fs::lchown(&work, Some(65534), Some(65534)).unwrap();

    // `rm -rf` cannot empty a folder without write permission; neither does `ferry rm`.
    let kept = read_only_tree(&tree, "work/kept");
    let out = ferry_unprivileged_at(&home, &[OsStr::new("rm"), kept.as_os_str()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(kept.join("ro/a").exists());
    // Nor in folders that are only called as a trash is.
    tree.dir("work/Trash/files");
    chmod(&tree.join("work/Trash"), 0o777);
    chmod(&tree.join("work/Trash/files"), 0o777);
    let named_alike = read_only_tree(&tree, "work/Trash/files/cd");
    let out = ferry_unprivileged_at(&home, &[OsStr::new("rm"), named_alike.as_os_str()]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(named_alike.join("ro/a").exists());

    let trashed = read_only_tree(&tree, "work/cd");
    let out = ferry_unprivileged_at(&home, &[OsStr::new("trash"), trashed.as_os_str()]);
    ok(&out);
    assert!(!trashed.exists());
    let out = ferry_unprivileged_at(&home, &[OsStr::new("empty-trash")]);
    ok(&out);
    let trash = home.join("data/Trash");
    assert!(
        trash_contents(&trash).is_empty(),
        "{:?}",
        trash_contents(&trash)
    );
    assert_eq!(fs::read_dir(trash.join("files")).unwrap().count(), 0);
    // What was outside the trash is as it was.
    assert!(kept.join("ro/a").exists());
    assert_eq!(
        fs::metadata(kept.join("ro")).unwrap().permissions().mode() & 0o777,
        0o555
    );
}

#[test]
fn ferrys_state_folder_is_never_trashed_and_its_history_stays() {
    state_folder_left_alone_by("trash");
}

/// `ferry rm` deleted the state folder, a folder holding it or the journal alone (exit 0):
/// the history was gone.
#[test]
fn ferrys_state_folder_is_never_deleted_and_its_history_stays() {
    state_folder_left_alone_by("rm");
}

/// `ferry mv` refused the state folder and a folder holding it, but moved the journal alone
/// (exit 0), and the history went with it: what is in the state folder stays too.
#[test]
fn the_journal_alone_is_not_moved_away() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let file = tree.file("home/f", "f");
    ok(&ferry_at(&home, &[OsStr::new("trash"), file.as_os_str()]));
    let journal = home.join("state/ferry/journal.jsonl");
    let away = tree.dir("away");
    let out = ferry_at(
        &home,
        &[OsStr::new("mv"), journal.as_os_str(), away.as_os_str()],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("Ferry's state folder"), "{stderr}");
    assert!(journal.is_file() && !away.join("journal.jsonl").exists());
    // A file beside the state folder moves as any other.
    let beside = tree.file("home/state/notes", "n");
    let out = ferry_at(
        &home,
        &[OsStr::new("mv"), beside.as_os_str(), away.as_os_str()],
    );
    ok(&out);
}

/// `ferry cp|mv --on-conflict replace` of a file named like the journal into the state
/// folder replaced the journal (exit 0), and every job's undo was gone; so did a backup of
/// the home folder copied back over it. Nothing is written into the state folder, and the
/// rest of the batch goes on.
#[test]
fn nothing_is_copied_or_moved_into_the_state_folder() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let file = tree.file("home/f", "f");
    ok(&ferry_at(&home, &[OsStr::new("trash"), file.as_os_str()]));
    let state = home.join("state/ferry");
    let journal = fs::read(state.join("journal.jsonl")).unwrap();
    let junk = tree.file("junk/ferry/journal.jsonl", "junk");
    let backup = tree.dir("backup");
    tree.file("backup/state/ferry/journal.jsonl", "old");
    tree.file("backup/docs/d", "from the backup");
    tree.file("home/docs/d", "mine");
    for verb in ["cp", "mv"] {
        for dest in [state.clone(), home.join("state")] {
            // The file into the folder; a folder of its name in its place.
            let source = if dest == state {
                junk.clone()
            } else {
                tree.join("junk/ferry")
            };
            let args = [verb, "--on-conflict", "replace"].map(OsStr::new);
            let out = ferry_at(
                &home,
                &[&args[..], &[source.as_os_str(), dest.as_os_str()]].concat(),
            );
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(1),
                "{verb} {source:?} {dest:?}: {stderr}"
            );
            assert!(stderr.contains("Ferry's state folder"), "{stderr}");
            assert!(
                fs::read(state.join("journal.jsonl"))
                    .unwrap()
                    .starts_with(&journal)
            );
        }
    }
    let args = ["cp", "--on-conflict", "replace"].map(OsStr::new);
    let out = ferry_at(
        &home,
        &[&args[..], &[backup.join(".").as_os_str(), home.as_os_str()]].concat(),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("Ferry's state folder"), "{stderr}");
    assert_eq!(read(&home.join("docs/d")), "from the backup");
    assert!(
        fs::read_to_string(state.join("journal.jsonl"))
            .unwrap()
            .starts_with('{')
    );
    // The journal still holds every job: the copy back is undone, then the first trash.
    ok(&ferry_at(&home, &[OsStr::new("undo")]));
    assert_eq!(read(&home.join("docs/d")), "mine");
    ok(&ferry_at(&home, &[OsStr::new("undo")]));
    assert_eq!(read(&file), "f");
}

/// `ferry VERB` of Ferry's state folder, of a folder holding it and of the journal in it
/// fails, each left alone, and a job trashed before is still the one to undo.
fn state_folder_left_alone_by(verb: &str) {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let file = tree.file("home/f", "f");
    let out = ferry_at(&home, &[OsStr::new("trash"), file.as_os_str()]);
    ok(&out);
    let state = home.join("state/ferry");
    assert!(state.join("journal.jsonl").is_file());
    for item in [
        state.clone(),
        home.join("state"),
        state.join("journal.jsonl"),
    ] {
        let out = ferry_at(&home, &[OsStr::new(verb), item.as_os_str()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{verb} {item:?}: {stderr}");
        assert!(stderr.contains("Ferry's state folder"), "{stderr}");
        assert!(state.join("journal.jsonl").is_file());
    }
    // The first trash is still the one to undo.
    let out = ferry_at(&home, &[OsStr::new("undo")]);
    ok(&out);
    assert_eq!(read(&file), "f");
}

/// An item on a read-only disk is refused as such: nothing there can be deleted either, so it
/// is not a "can't be moved to the trash" the window offers to delete permanently (a delete
/// that then failed "Read-only disk").
#[test]
fn an_item_on_a_read_only_disk_is_refused_as_read_only() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let Some(disk) = Mounted::tmpfs(&tree.join("disk"), "1m") else {
        return;
    };
    let file = disk.dir.join("inside.txt");
    fs::write(&file, "kept").unwrap();
    let remounted = std::process::Command::new("mount")
        .args(["-o", "remount,ro"])
        .arg(&disk.dir)
        .status()
        .unwrap();
    assert!(remounted.success());
    let out = ferry_at(&home, &[OsStr::new("trash"), file.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("Read-only file system"), "{stderr}");
    assert!(!stderr.contains("trash folder"), "{stderr}");
    assert_eq!(read(&file), "kept");
}

/// The same on a read-only bind mount of a folder of the home folder's disk, whose trash is
/// the home trash: it failed as "on another file system" and was offered for a permanent
/// delete.
#[test]
fn an_item_on_a_read_only_bind_mount_is_refused_as_read_only() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    tree.file("backing/inside.txt", "kept");
    let backing = tree.join("backing").to_string_lossy().into_owned();
    let Some(view) = Mounted::new(&tree.join("view"), &["--bind", "-o", "ro", &backing]) else {
        return;
    };
    let file = view.dir.join("inside.txt");
    let out = ferry_at(&home, &[OsStr::new("trash"), file.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("Read-only file system"), "{stderr}");
    assert!(!stderr.contains("another file system"), "{stderr}");
    assert_eq!(read(&file), "kept");
}

/// A read-only folder of one's own goes to the trash, with its mode: Linux wants write
/// permission on a folder to move it into another (its `..` changes), so the undo of a copy
/// of one failed on every try ("UNDO UNFINISHED", "`ferry undo` tries again"), as trashing
/// it did (and does in gio).
#[test]
fn a_read_only_folder_of_ones_own_is_trashed_and_its_copy_undone() {
    let tree = TempTree::new();
    let home = unprivileged_home(&tree);
    let work = tree.dir("work");
    let ro = tree.file("work/ro/sub/f", "f");
    let dest = tree.dir("work/dest");
    for path in [&work, &ro, &dest, &work.join("ro/sub"), &work.join("ro")] {
        std::os::unix::fs::lchown(path, Some(65534), Some(65534)).unwrap();
    }
    chmod(&work.join("ro/sub"), 0o555);
    chmod(&work.join("ro"), 0o555);
    let run = |args: &[&OsStr]| {
        let out = ferry_unprivileged_at(&home, args);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    };
    run(&[
        OsStr::new("cp"),
        work.join("ro").as_os_str(),
        dest.as_os_str(),
    ]);
    assert!(dest.join("ro/sub/f").exists());
    run(&[OsStr::new("undo")]);
    assert!(!dest.join("ro").exists(), "the copy is undone");
    let trashed = home.join("data/Trash/files/ro");
    let mode = |p: &Path| fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode(&trashed), 0o555, "its mode kept in the trash");
    assert_eq!(fs::read(trashed.join("sub/f")).unwrap(), b"f");
    // And trashed by hand, restored whole.
    run(&[OsStr::new("trash"), work.join("ro").as_os_str()]);
    run(&[OsStr::new("undo")]);
    assert_eq!(mode(&work.join("ro")), 0o555);
    assert_eq!(fs::read(work.join("ro/sub/f")).unwrap(), b"f");
}
