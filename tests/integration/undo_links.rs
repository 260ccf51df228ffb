//! The undo of a move of a tree holding symbolic links, killed while putting it back across
//! file systems, then run again: it finishes, with every item back as it was and nothing of
//! its own left behind.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

use ferry_tests::TempTree;

use crate::ferry_in;
use crate::jobs_support::{Node, assert_no_temporaries, snapshot};
use crate::undo::ok;

/// Paths below `root` whose names start with `prefix`.
fn named(root: &Path, prefix: &str) -> Vec<PathBuf> {
    (snapshot(root).into_keys())
        .filter(|rel| {
            let name = rel.file_name().unwrap_or_default();
            name.to_string_lossy().starts_with(prefix)
        })
        .collect()
}

/// `ferry mv source dest`, then `ferry undo` killed once it has made a link under its
/// temporary name.
fn moved_then_undo_killed(home: &Path, source: &Path, dest: &Path) {
    ok(&ferry_in(home)
        .arg("mv")
        .arg(source)
        .arg(dest)
        .output()
        .unwrap());
    let killed = ferry_in(home)
        .env("FERRY_FAULT_POINT", "special-made:1")
        .arg("undo")
        .output()
        .unwrap();
    assert_eq!(killed.status.code(), None, "the undo was killed");
}

/// `ferry undo` of a move of `work/tree` (links to a file, to nowhere, in folders of their
/// own modes) to tmpfs, killed once it had made a link under its temporary name: run again,
/// plainly or merging, it finishes with everything back with its own mode and no temporary
/// left. The temporary link stayed in the user's folder: the plain undo called the place
/// taken, the merging one left the link and its folder at 0700.
#[test]
fn an_undo_killed_while_putting_a_link_back_finishes_cleanly_when_run_again() {
    for merge in [false, true] {
        let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
        let home = t.dir("home");
        t.file("work/tree/a", "a".repeat(3000));
        t.file("work/tree/sub/b", "b".repeat(3000));
        symlink("../a", t.join("work/tree/sub/to-a")).unwrap();
        symlink("/nowhere/at/all", t.join("work/tree/dang")).unwrap();
        for (dir, mode) in [("work/tree", 0o750), ("work/tree/sub", 0o705)] {
            fs::set_permissions(t.join(dir), fs::Permissions::from_mode(mode)).unwrap();
        }
        let before = snapshot(&t.join("work"));
        let dest = shm.dir("dest");
        moved_then_undo_killed(&home, &t.join("work/tree"), &dest);
        // Another worker may have made the other link's by then.
        let left = named(&t.join("work"), ".ferry-tmp-");
        assert!(
            !left.is_empty(),
            "merge {merge}: killed with a link made aside"
        );

        let mut again = ferry_in(&home);
        again.arg("undo");
        if merge {
            again.args(["--on-conflict", "merge"]);
        }
        let out = again.output().unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "merge {merge}: {said}");
        assert_eq!(snapshot(&t.join("work")), before, "merge {merge}: {said}");
        assert_no_temporaries(&t.join("work"));
        assert!(snapshot(&dest).is_empty(), "merge {merge}");
        let history = ok(&ferry_in(&home).arg("history").output().unwrap());
        assert!(history.contains("undone"), "merge {merge}: {history}");
    }
}

/// The same for a link moved on its own: the undo killed once it had made the link under its
/// temporary name, in the folder the link goes back to, finishes when run again and leaves
/// no temporary there. The temporary link stayed beside the one put back.
#[test]
fn an_undo_killed_while_putting_a_lone_link_back_leaves_no_temporary() {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    t.file("work/kept", "the user's");
    symlink("/nowhere/at/all", t.join("work/lnk")).unwrap();
    let before = snapshot(&t.join("work"));
    let dest = shm.dir("dest");
    moved_then_undo_killed(&home, &t.join("work/lnk"), &dest);
    assert_eq!(named(&t.join("work"), ".ferry-tmp-").len(), 1);

    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_eq!(snapshot(&t.join("work")), before);
    assert!(snapshot(&dest).is_empty());
}

/// [`snapshot`] of `root` without the folders' times: folders merged into by a move are
/// made anew by its undo, and one killed before it gave them their times left the time of
/// its put-back.
fn snapshot_but_folder_times(root: &Path) -> BTreeMap<PathBuf, Node> {
    let mut nodes = snapshot(root);
    for node in nodes.values_mut() {
        if let Node::Dir { mtime, .. } = node {
            *mtime = (0, 0);
        }
    }
    nodes
}

/// `ferry mv --on-conflict replace` of a tree holding links to nowhere onto one holding
/// older items of the same names, its undo killed while removing what it had copied back:
/// run again, the undo finishes, each tree whole as it was. It failed on every link
/// ("cannot flush …/dang": the flush of the disk a link was put back on opened the link's
/// target), put the replaced items back regardless, and every later undo found their places
/// taken: the move stayed on top of the journal for good.
#[test]
fn an_undo_killed_while_putting_back_links_to_nowhere_over_replaced_ones_finishes() {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    t.file("work/src/a", "new a");
    t.file("work/src/sub/b", "new b");
    symlink("/nowhere/x", t.join("work/src/dang")).unwrap();
    symlink("nowhere", t.join("work/src/sub/dang2")).unwrap();
    shm.file("dest/src/a", "old a");
    shm.file("dest/src/sub/b", "old b");
    symlink("/old/target", shm.join("dest/src/dang")).unwrap();
    let (work, dest) = (
        snapshot_but_folder_times(&t.join("work")),
        snapshot_but_folder_times(&shm.join("dest")),
    );
    ok(&ferry_in(&home)
        .args(["mv", "--on-conflict", "replace"])
        .arg(t.join("work/src"))
        .arg(shm.join("dest"))
        .output()
        .unwrap());
    let killed = ferry_in(&home)
        .env("FERRY_FAULT_POINT", "source-checked:1")
        .arg("undo")
        .output()
        .unwrap();
    assert_eq!(killed.status.code(), None, "the undo was killed");

    let again = ferry_in(&home).arg("undo").output().unwrap();
    let said = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(0), "{said}");
    assert_eq!(snapshot_but_folder_times(&t.join("work")), work, "{said}");
    assert_eq!(snapshot_but_folder_times(&shm.join("dest")), dest, "{said}");
    let history = ok(&ferry_in(&home).arg("history").output().unwrap());
    assert!(history.contains("undone"), "{history}");
}

/// A move of a tree to tmpfs, killed at its tenth item and resumed, then its undo (a roll
/// back: the record is a resumed run's) killed at a step of putting it back, then run again:
/// everything is back as it was, folders with their modes and times, and the two names of
/// each linked file one file. Run again, the undo filled the folders its killed run had made
/// and left them 0700 with the times of the undo; a name whose other name was back already
/// came back as a file apart now and then (which names are back at a kill varies: the
/// unit test `a_killed_runs_put_back_is_finished_with_modes_times_and_links` pins it).
#[test]
fn a_resumed_move_whose_undo_was_killed_comes_back_whole_when_run_again() {
    use std::os::unix::fs::MetadataExt;
    for step in ["item-done:3", "item-done:12", "copies-durable"] {
        let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
        let home = t.dir("home");
        for (dir, mode) in [("a", 0o750), ("b", 0o711), ("c", 0o705)] {
            for i in 1..=8 {
                t.file(format!("work/top/{dir}/f{i}"), format!("{dir}{i}"));
            }
            fs::set_permissions(
                t.join("work/top").join(dir),
                fs::Permissions::from_mode(mode),
            )
            .unwrap();
        }
        fs::hard_link(t.join("work/top/a/f1"), t.join("work/top/c/linked")).unwrap();
        fs::hard_link(t.join("work/top/a/f2"), t.join("work/top/b/linked")).unwrap();
        fs::set_permissions(t.join("work/top"), fs::Permissions::from_mode(0o751)).unwrap();
        let before = snapshot(&t.join("work"));
        let dest = shm.dir("dest");
        move_killed_at(&home, "item-done:10", &t.join("work/top"), &dest);
        ok(&ferry_in(&home).arg("resume").output().unwrap());
        let killed = ferry_in(&home)
            .env("FERRY_FAULT_POINT", step)
            .arg("undo")
            .output()
            .unwrap();
        assert_eq!(killed.status.code(), None, "{step}: the undo was killed");

        let again = ferry_in(&home).arg("undo").output().unwrap();
        let said = String::from_utf8_lossy(&again.stderr);
        assert_eq!(again.status.code(), Some(0), "{step}: {said}");
        assert_eq!(snapshot(&t.join("work")), before, "{step}: {said}");
        let inode = |rel: &str| fs::metadata(t.join("work/top").join(rel)).unwrap().ino();
        assert_eq!(inode("a/f1"), inode("c/linked"), "{step}");
        assert_eq!(inode("a/f2"), inode("b/linked"), "{step}");
        assert!(snapshot(&dest).is_empty(), "{step}");
        assert_no_temporaries(&t.join("work"));
    }
}

/// A move to tmpfs killed while removing its sources (every copy whole, with its folders'
/// times), then resumed and undone, or undone at once: the folders come back with their own
/// times. The killed run's removals had stamped the source folders with the time of the
/// kill, which the resume passed on to their copies and the roll back kept.
#[test]
fn a_move_killed_while_removing_sources_keeps_its_folders_times() {
    for resumed in [false, true] {
        let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
        let home = t.dir("home");
        for k in 0..4 {
            t.file(format!("work/top/sub/f{k}"), "sub");
            t.file(format!("work/top/g{k}"), "top");
        }
        for dir in ["work/top/sub", "work/top"] {
            let old = fs::File::open(t.join(dir)).unwrap();
            old.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1e9 as u64))
                .unwrap();
        }
        let before = snapshot(&t.join("work"));
        let dest = shm.dir("dest");
        move_killed_at(&home, "source-checked:3", &t.join("work/top"), &dest);
        if resumed {
            ok(&ferry_in(&home).arg("resume").output().unwrap());
            let at_dest = snapshot(&dest);
            assert_eq!(
                at_dest, before,
                "resumed: the copies' folders keep their times"
            );
        }
        ok(&ferry_in(&home).arg("undo").output().unwrap());
        assert_eq!(
            snapshot(&t.join("work")),
            before,
            "resumed first: {resumed}"
        );
        assert!(snapshot(&dest).is_empty(), "resumed first: {resumed}");
    }
}

/// `ferry mv source dest` killed (SIGKILL) at fault point `step`.
fn move_killed_at(home: &Path, step: &str, source: &Path, dest: &Path) {
    let killed = ferry_in(home)
        .env("FERRY_FAULT_POINT", step)
        .arg("mv")
        .arg(source)
        .arg(dest)
        .output()
        .unwrap();
    assert_eq!(killed.status.code(), None, "the move was killed at {step}");
}
