//! Undo acts on the job's own items only, whatever took their places since: never through a
//! link put where a copied folder was, never on a file made anew under a moved item's name
//! or trashed under a trashed item's name (which often get the freed inode number back);
//! and it knows its own items where an earlier, cancelled run of it put them, not a new file
//! at an item's old place.

use std::fs;
use std::os::unix::fs::MetadataExt;

use ferry_core::Error;
use ferry_tests::TempTree;

use crate::undo::{Setup, copy, moving};

/// A copied folder renamed by the user and a link to another folder put under its name:
/// undo looked through the link, found there a hard link of a copy (the same inode) and
/// trashed that folder's file. Nothing below a folder that is not the job's is looked at.
#[test]
fn undo_of_a_copy_never_looks_through_a_link_put_in_a_folders_place() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let src = t.file("U1/sub/f", "one");
    let dest = t.dir("dest");
    let out = s.run(copy(vec![t.join("U1")], &dest));
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    let elsewhere = t.file("elsewhere/other", "keep");
    fs::hard_link(dest.join("U1/sub/f"), t.join("elsewhere/f")).unwrap();
    fs::rename(dest.join("U1/sub"), dest.join("U1/subx")).unwrap();
    std::os::unix::fs::symlink(t.join("elsewhere"), dest.join("U1/sub")).unwrap();

    let out = s.undo();
    assert_eq!(
        fs::read(t.join("elsewhere/f")).unwrap(),
        b"one",
        "not trashed"
    );
    assert_eq!(fs::read(&elsewhere).unwrap(), b"keep");
    assert!(s.trashed().is_empty(), "{:?}", s.trashed());
    let failed: Vec<_> = out.summary.failed.iter().map(|f| f.path.clone()).collect();
    assert_eq!(failed, [dest.join("U1/sub")], "said once, for the link");
    assert!(src.exists());
}

/// A moved file deleted, and another made under its name: undo moved the other one back in
/// its place ("unrelated" came back as the moved file). Born after the job, it is not the
/// file the job renamed there: kept, and said.
#[test]
fn undo_of_a_move_keeps_a_file_made_anew_under_the_moved_name() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let (file, moved, ino) = moved_then_deleted(&t, &s);
    // Made anew, most file systems give it the freed inode number (ext4 at once); one that
    // does not is the easy case, and makes the same demand.
    if !made_with_inode(&moved, ino, "unrelated") {
        fs::write(&moved, "unrelated").unwrap();
    }

    let out = s.undo();
    assert_eq!(fs::read(&moved).unwrap(), b"unrelated", "kept where it is");
    assert!(!file.exists(), "nothing was moved back");
    let failed = &out.summary.failed;
    assert_eq!(failed.len(), 1, "{:#?}", out.summary);
    assert!(matches!(&*failed[0].error, Error::ChangedSince { path } if *path == moved));
}

/// The moved file deleted, then a new file made at its old place, which often gets the freed
/// inode number: undo took it for the item an earlier run had put back, and said the move
/// was undone. Born after the job, it is not: the moved file is said to be gone.
#[test]
fn undo_of_a_move_whose_item_is_gone_is_not_fooled_by_a_new_file_at_the_old_place() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let (file, moved, ino) = moved_then_deleted(&t, &s);
    if !made_with_inode(&file, ino, "new") {
        eprintln!("note: no inode number came back; the case is not reached here");
        return;
    }

    let out = s.undo();
    assert_eq!(fs::read(&file).unwrap(), b"new");
    let failed = &out.summary.failed;
    assert_eq!(failed.len(), 1, "{:#?}", out.summary);
    assert!(matches!(&*failed[0].error, Error::GoneSince { path } if *path == moved));
}

/// `V/a` moved into `W` by a journaled job, then deleted there some time after the job's start
/// (as its record has it, by a coarse clock): its old path, its path in `W`, its inode number.
fn moved_then_deleted(t: &TempTree, s: &Setup) -> (std::path::PathBuf, std::path::PathBuf, u64) {
    let file = t.file("V/a", "one");
    t.dir("W");
    let out = s.run(moving(vec![file.clone()], &t.join("W")));
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    let moved = t.join("W/a");
    let ino = fs::symlink_metadata(&moved).unwrap().ino();
    std::thread::sleep(std::time::Duration::from_millis(100));
    fs::remove_file(&moved).unwrap();
    (file, moved, ino)
}

/// Makes a file holding `text` at `path` with inode number `ino` (freed just before), as most
/// file systems give a new file a freed number; false if none came back in 64 tries.
fn made_with_inode(path: &std::path::Path, ino: u64, text: &str) -> bool {
    for made in 0..64 {
        let candidate = path.with_file_name(format!("new{made}"));
        fs::write(&candidate, text).unwrap();
        if fs::symlink_metadata(&candidate).unwrap().ino() == ino {
            fs::rename(&candidate, path).unwrap();
            return true;
        }
    }
    false
}

/// Undo of a trash job after its item was deleted from the trash and another tool trashed
/// another file under its name there: ext4 gives the new file the freed inode number, and
/// undo brought that other file out of the trash, to where it came from, saying it had
/// undone the job. The info file names another place, the file was made after the job.
#[test]
fn undo_of_a_trash_leaves_in_the_trash_what_another_tool_put_under_its_name() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let mine = t.file("V/k5", "MINE");
    trash_journaled(&s, &mine);
    let (files, info) = (s.trash.home.join("files"), s.trash.home.join("info"));
    let trashed = files.join("k5");
    let ino = fs::symlink_metadata(&trashed).unwrap().ino();
    std::thread::sleep(std::time::Duration::from_millis(100));
    // Deleted from the trash for good (trash-rm), then theirs trashed by trash-put.
    fs::remove_file(&trashed).unwrap();
    fs::remove_file(info.join("k5.trashinfo")).unwrap();
    let theirs = t.join("W/k5");
    fs::create_dir_all(t.join("W")).unwrap();
    // Made where the first was (ext4 gives a freed number back in its folder's group).
    for made in 0..64 {
        let candidate = t.join(format!("V/new{made}"));
        fs::write(&candidate, "THEIRS!").unwrap();
        if fs::symlink_metadata(&candidate).unwrap().ino() == ino {
            fs::rename(&candidate, &trashed).unwrap();
            break;
        }
    }
    if !trashed.exists() {
        fs::write(&trashed, "THEIRS!").unwrap();
    }
    let entry = format!(
        "[Trash Info]\nPath={}\nDeletionDate=2026-12-06T21:20:00\n",
        theirs.display()
    );
    fs::write(info.join("k5.trashinfo"), entry).unwrap();

    let out = s.undo();
    assert!(
        !theirs.exists() && !mine.exists(),
        "nothing came out of the trash"
    );
    assert_eq!(fs::read(&trashed).unwrap(), b"THEIRS!");
    let failed = &out.summary.failed;
    assert_eq!(failed.len(), 1, "{:#?}", out.summary);
    assert!(
        matches!(&*failed[0].error, Error::ChangedSince { .. }),
        "{:?}",
        failed[0]
    );
}

/// A cancelled undo leaves its job to be undone again. Run again, it finds what the first
/// run put in the trash there and counts it undone: a second Undo of a 20,000-file copy said
/// "9,342 failed", each "no longer where it was left". A copy that went elsewhere is still
/// said gone.
#[test]
fn undo_run_again_after_a_cancelled_one_counts_what_that_one_trashed() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let sources = ["a.txt", "b.txt", "c.txt", "d.txt"].map(|n| t.file(format!("src/{n}"), n));
    let dst = t.dir("dst");
    let out = s.run(copy(sources.to_vec(), &dst));
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    // What the cancelled run did: a.txt and b.txt into the trash, as a trash job puts them.
    let trash = &s.trash.home;
    fs::create_dir_all(trash.join("files")).unwrap();
    fs::create_dir_all(trash.join("info")).unwrap();
    for name in ["a.txt", "b.txt"] {
        fs::rename(dst.join(name), trash.join("files").join(name)).unwrap();
        let info = format!(
            "[Trash Info]\nPath={}\nDeletionDate=2026-12-06T21:00:00\n",
            dst.join(name).display()
        );
        fs::write(trash.join(format!("info/{name}.trashinfo")), info).unwrap();
    }
    // And d.txt was moved away by the user meanwhile.
    fs::rename(dst.join("d.txt"), t.join("d-moved.txt")).unwrap();
    let out = s.undo();
    let failed: Vec<&std::path::Path> = out
        .summary
        .failed
        .iter()
        .map(|f| f.path.as_path())
        .collect();
    assert_eq!(failed, [dst.join("d.txt")], "{:#?}", out.summary);
    assert_eq!(s.trashed(), ["a.txt", "b.txt", "c.txt"]);
    assert!(out.summary.done.contains(&dst.join("a.txt")));
    assert!(t.join("d-moved.txt").exists());
}

/// Undo of a trash whose item another tool restored meanwhile: the item is where the undo
/// would put it, so it is undone, and redo trashes it again. It said "nothing of it was
/// undone", recorded the undo as undoing nothing, and redo was refused.
#[test]
fn undo_of_a_trash_restored_by_another_tool_counts_it_undone_and_redo_trashes_again() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let file = t.file("r7/f7", "A");
    trash_journaled(&s, &file);
    // trash-restore: the item back, its info file gone.
    fs::rename(s.trash.home.join("files/f7"), &file).unwrap();
    fs::remove_file(s.trash.home.join("info/f7.trashinfo")).unwrap();
    let out = s.undo();
    assert!(out.summary.failed.is_empty(), "{:#?}", out.summary);
    assert_eq!(out.summary.done, std::slice::from_ref(&file));
    let redo = s
        .journal
        .redo_candidate()
        .unwrap()
        .expect("redo is offered");
    let out = s.run(redo.redo_job());
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert!(!file.exists(), "trashed again");
}

/// Trashes `path` as a journaled job of `s`, which must do it all.
fn trash_journaled(s: &Setup, path: &std::path::Path) {
    let out = s.run(ferry_core::jobs::Job::Trash {
        paths: vec![path.to_path_buf()],
        roots: s.trash.clone(),
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
}

/// A move merged `src/top` into the `top` already in its destination (and removed the emptied
/// source folder); a link to another folder was then put where `src/top` was. The undo put the
/// files back through it, into the folder it points to, and exited 0. It puts nothing through
/// it, on one file system and across two, and says why.
#[test]
fn undo_of_a_merged_move_never_puts_back_through_a_link_put_in_the_folders_place() {
    let shm = TempTree::new_in("/dev/shm");
    let t = TempTree::new();
    for dest_root in [t.path(), shm.path()] {
        let s = Setup::new(&t);
        let tag = if dest_root == t.path() {
            "same"
        } else {
            "across"
        };
        let src = t.file(format!("{tag}/src/top/a.txt"), "mine");
        let dest = dest_root.join(format!("{tag}-dest"));
        fs::create_dir_all(dest.join("top")).unwrap();
        fs::write(dest.join("top/b.txt"), "there before").unwrap();
        let out = s.run(moving(vec![t.join(format!("{tag}/src/top"))], &dest));
        assert!(out.summary.is_complete(), "{:#?}", out.summary);
        assert!(!src.exists());
        let elsewhere = t.dir(format!("{tag}/elsewhere"));
        std::os::unix::fs::symlink(&elsewhere, t.join(format!("{tag}/src/top"))).unwrap();
        let out = s.undo();
        assert!(
            !elsewhere.join("a.txt").exists(),
            "{tag}: put back through the link"
        );
        assert_eq!(fs::read(dest.join("top/a.txt")).unwrap(), b"mine", "{tag}");
        let failed: Vec<_> = out.summary.failed.iter().map(|f| &*f.error).collect();
        assert!(
            matches!(failed[..], [Error::LinkInPath { .. }]),
            "{tag}: {failed:#?}"
        );
    }
}

/// The undo of a restore takes back to the trash only what the restore put back, as it left
/// it: a file changed since (or one made anew under its name, which often gets the freed inode
/// number) stays, and the undo says so. It took it to the trash and said it had undone the job.
#[test]
fn undo_of_a_restore_keeps_a_file_changed_since() {
    use ferry_core::jobs::{ConflictPolicy, Job, list_trash_in};
    let t = TempTree::new();
    let s = Setup::new(&t);
    let file = t.file("work/x.txt", "orig");
    let out = s.run(Job::Trash {
        paths: vec![file.clone()],
        roots: s.trash.clone(),
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    let items = list_trash_in(&s.trash).unwrap();
    let out = s.run(Job::Restore {
        items,
        on_conflict: ConflictPolicy::Skip,
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    fs::write(&file, "the user's new contents").unwrap();
    let out = s.undo();
    assert_eq!(fs::read(&file).unwrap(), b"the user's new contents");
    assert_eq!(out.summary.failed.len(), 1, "{:#?}", out.summary);
    assert!(list_trash_in(&s.trash).unwrap().is_empty());
}
