//! What `cp -a` and `mv` keep, Ferry keeps (RELIABILITY rule 20): hard links among the items
//! of one batch stay links, on a copy and on a move across file systems; conflicts, resume
//! and undo treat each link as an item of its own.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use ferry_core::jobs::{ConflictPolicy, Job};
use ferry_tests::TempTree;

use crate::jobs_support::{assert_accounts_for, assert_no_temporaries, run_job};
use crate::{ferry_in, undo::ok};

/// Inode numbers of the files under `root`, by relative path.
fn inodes(root: &Path, rels: &[&str]) -> Vec<(u64, u64)> {
    rels.iter()
        .map(|rel| {
            let m = fs::symlink_metadata(root.join(rel)).unwrap();
            (m.ino(), m.nlink())
        })
        .collect()
}

/// `a`, `sub/b` and `c` are one file; `d` is another with a link outside the batch.
fn linked_tree(t: &TempTree) -> PathBuf {
    let src = t.dir("src");
    let a = t.file("src/tree/a", "linked three times");
    t.dir("src/tree/sub");
    fs::hard_link(&a, src.join("tree/sub/b")).unwrap();
    fs::hard_link(&a, src.join("tree/c")).unwrap();
    let d = t.file("src/tree/d", "linked outside");
    fs::hard_link(&d, src.join("outside")).unwrap();
    src.join("tree")
}

fn assert_links_kept(dest: &Path, what: &str) {
    let ids = inodes(dest, &["a", "sub/b", "c", "d"]);
    assert_eq!(ids[0].0, ids[1].0, "{what}: a and sub/b are one file");
    assert_eq!(ids[0].0, ids[2].0, "{what}: a and c are one file");
    assert_eq!(ids[0].1, 3, "{what}: three links");
    assert_ne!(ids[3].0, ids[0].0, "{what}");
    assert_eq!(ids[3].1, 1, "{what}: d's other link is not in the batch");
    assert_eq!(fs::read(dest.join("sub/b")).unwrap(), b"linked three times");
}

#[test]
fn a_copy_keeps_hard_links_within_the_batch() {
    let t = TempTree::new();
    let tree = linked_tree(&t);
    let dest = t.dir("dest");
    let out = run_job(Job::Copy {
        sources: vec![tree.clone()],
        dest_dir: dest.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_accounts_for(&out.summary, std::slice::from_ref(&tree));
    assert_links_kept(&dest.join("tree"), "copy");
    assert_no_temporaries(&dest);
    // Every link is an item done; the data is copied once.
    assert_eq!(out.summary.items_done, 6, "{:#?}", out.summary);
    assert_eq!(out.summary.bytes_done, 18 + 14);
    // Undo trashes every link the copy made.
    let entries: Vec<_> = out.summary.record.entries().collect();
    let ino = fs::metadata(dest.join("tree/a")).unwrap().ino();
    assert_eq!(entries.iter().filter(|e| e.id.ino == ino).count(), 3);
}

#[test]
fn a_move_across_file_systems_keeps_hard_links() {
    let shm = TempTree::new_in("/dev/shm");
    let t = TempTree::new();
    for (from, to, what) in [(&shm, &t, "tmpfs to ext4"), (&t, &shm, "ext4 to tmpfs")] {
        let tree = linked_tree(from);
        let dest = to.dir("moved");
        let out = ferry_in(&t.join("home"))
            .arg("mv")
            .arg(&tree)
            .arg(&dest)
            .output()
            .unwrap();
        ok(&out);
        assert!(!tree.exists(), "{what}");
        assert_links_kept(&dest.join("tree"), what);
        fs::remove_dir_all(&dest).unwrap();
        fs::remove_dir_all(from.join("src")).unwrap();
    }
}

/// Two names of one file given as two sources are two links, not one item given twice.
#[test]
fn links_given_as_sources_stay_links() {
    let t = TempTree::new();
    let a = t.file("src/a", "one file");
    let b = t.join("src/b");
    fs::hard_link(&a, &b).unwrap();
    let dest = t.dir("dest");
    let out = run_job(Job::Copy {
        sources: vec![a.clone(), b.clone(), a.clone()],
        dest_dir: dest.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    assert_eq!(out.summary.done, [a, b], "{:#?}", out.summary);
    assert_eq!(
        out.summary.skipped.len(),
        1,
        "a given twice: {:#?}",
        out.summary
    );
    let ids = inodes(&dest, &["a", "b"]);
    assert_eq!(ids[0], ids[1]);
    assert_eq!(ids[0].1, 2);
}

/// A link whose first name was skipped (taken at the destination) is copied, not linked to
/// the file in the way; the rest of its group is linked to that copy.
#[test]
fn a_link_whose_first_name_is_taken_is_copied_and_the_rest_linked_to_it() {
    let t = TempTree::new();
    let tree = linked_tree(&t);
    let dest = t.dir("dest");
    let theirs = t.file("dest/tree/a", "someone else's a");
    let out = run_job(Job::Copy {
        sources: vec![tree],
        dest_dir: dest.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    assert_eq!(out.summary.skipped.len(), 1, "{:#?}", out.summary);
    assert_eq!(fs::read(&theirs).unwrap(), b"someone else's a");
    let ids = inodes(&dest.join("tree"), &["a", "sub/b", "c"]);
    assert_ne!(ids[0].0, ids[1].0, "not linked to the file in the way");
    assert_eq!(ids[0].1, 1);
    assert_eq!(ids[1].0, ids[2].0, "sub/b and c stay one file");
    assert_eq!(ids[1].1, 2);
}

/// Killed once the first link is made: resume links the other names to the copy the killed
/// run made (not to a second copy), and undo then takes every name back.
#[test]
fn resume_after_a_kill_keeps_linking_to_the_copy_made() {
    use std::os::unix::process::ExitStatusExt;
    let shm = TempTree::new_in("/dev/shm");
    let t = TempTree::new();
    let home = t.dir("home");
    for (verb, from) in [("cp", &t), ("mv", &shm)] {
        let tree = linked_tree(from);
        let dest = t.dir(format!("dest-{verb}"));
        let out = ferry_in(&home)
            .env("FERRY_FAULT_POINT", "linked:1")
            .arg(verb)
            .arg(&tree)
            .arg(&dest)
            .output()
            .unwrap();
        assert_eq!(out.status.signal(), Some(9), "{verb}: killed");
        let made = ["a", "sub/b", "c"]
            .iter()
            .filter(|rel| dest.join("tree").join(rel).exists())
            .count();
        assert!(made < 3, "{verb}: killed before the last link");
        ok(&ferry_in(&home).arg("resume").output().unwrap());
        assert_links_kept(&dest.join("tree"), &format!("{verb}, resumed"));
        assert_eq!(tree.exists(), verb == "cp", "{verb}");
        ok(&ferry_in(&home).arg("undo").output().unwrap());
        assert!(!dest.join("tree").exists(), "{verb}: undone");
        assert_eq!(fs::read(tree.join("sub/b")).unwrap(), b"linked three times");
        fs::remove_dir_all(from.join("src")).unwrap();
    }
}

/// A link replacing a file keeps that file for undo, as any Replace.
#[test]
fn a_link_replacing_a_file_keeps_it_for_undo() {
    let t = TempTree::new();
    let home = t.dir("home");
    let tree = linked_tree(&t);
    let dest = t.dir("dest");
    let old = t.file("dest/tree/c", "the old c");
    let out = ferry_in(&home)
        .args(["cp", "--on-conflict", "replace"])
        .arg(&tree)
        .arg(&dest)
        .output()
        .unwrap();
    ok(&out);
    assert_links_kept(&dest.join("tree"), "replaced");
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_eq!(fs::read(&old).unwrap(), b"the old c");
    assert!(!dest.join("tree/a").exists() && !dest.join("tree/sub").exists());
}

/// The undo of a move across file systems keeps linked what the move kept linked, names in
/// different folders too (given as sources, and inside folders given as sources); a redo
/// then moves them linked again. The undo put each folder's items back in a plan of its own,
/// which could not link names of other plans: they came back as separate files.
#[test]
fn the_undo_of_a_move_across_file_systems_keeps_links_between_folders() {
    let (t, shm) = (TempTree::new(), TempTree::new_in("/dev/shm"));
    let home = t.dir("home");
    let f = t.file("h/s/f", "one file");
    t.dir("h/s/x");
    fs::hard_link(&f, t.join("h/s/x/g")).unwrap();
    let a = t.file("h/p1/dA/a", "another");
    t.dir("h/p2/dB");
    fs::hard_link(&a, t.join("h/p2/dB/b")).unwrap();
    let dest = shm.dir("dest");
    let sources = ["h/s/f", "h/s/x/g", "h/p1/dA", "h/p2/dB"].map(|s| t.join(s));
    ok(&ferry_in(&home)
        .arg("mv")
        .args(&sources)
        .arg(&dest)
        .output()
        .unwrap());
    let at_dest = inodes(&dest, &["f", "g", "dA/a", "dB/b"]);
    assert_eq!(at_dest[0], at_dest[1], "moved linked");
    assert_eq!(at_dest[2], at_dest[3], "moved linked");

    ok(&ferry_in(&home).arg("undo").output().unwrap());
    let back = inodes(t.path(), &["h/s/f", "h/s/x/g", "h/p1/dA/a", "h/p2/dB/b"]);
    assert_eq!(back[0], back[1], "back linked: {back:?}");
    assert_eq!(back[0].1, 2);
    assert_eq!(back[2], back[3], "back linked: {back:?}");
    assert_eq!(fs::read_to_string(t.join("h/s/x/g")).unwrap(), "one file");
    assert_no_temporaries(t.path());

    ok(&ferry_in(&home).arg("redo").output().unwrap());
    let again = inodes(&dest, &["f", "g", "dA/a", "dB/b"]);
    assert_eq!(again[0], again[1], "redone linked");
    assert_eq!(again[2], again[3], "redone linked");
}

/// `ferry cp --on-conflict replace` onto a `cp -a` copy of the tree (its links kept), killed
/// part way, then undone: the destination is as it was, every name on its old inode, and
/// none of them in the trash. Staging one name of the old file changed the file's ctime, so a name
/// the job never reached, identical to its source, was taken for the job's copy and trashed.
#[test]
fn the_undo_of_a_killed_replace_leaves_the_links_it_did_not_reach() {
    use std::os::unix::process::ExitStatusExt;
    const NAMES: &[&str] = &["a", "sub/b", "c", "d"];
    for point in [
        "replace-staged:1",
        "replace-placed:1",
        "linked:1",
        "job-ended",
    ] {
        let t = TempTree::new();
        let home = t.dir("home");
        let tree = linked_tree(&t);
        let dest = t.dir("dest");
        let cp = std::process::Command::new("cp")
            .arg("-a")
            .arg(&tree)
            .arg(&dest)
            .status()
            .unwrap();
        assert!(cp.success());
        let before = inodes(&dest.join("tree"), NAMES);
        // Written just before the job, the user's files could pass for made by it (the clock
        // file times are stamped by lags the precise one by a tick).
        std::thread::sleep(std::time::Duration::from_millis(100));
        let out = ferry_in(&home)
            .env("FERRY_FAULT_POINT", point)
            .args(["cp", "--on-conflict", "replace"])
            .arg(&tree)
            .arg(&dest)
            .output()
            .unwrap();
        if out.status.signal().is_none() {
            continue; // not a step of this job
        }
        assert_eq!(out.status.signal(), Some(9), "killed at {point}");
        ok(&ferry_in(&home).arg("undo").output().unwrap());
        let after = inodes(&dest.join("tree"), NAMES);
        assert_eq!(after, before, "killed at {point}, undone");
        assert_eq!(
            fs::read(dest.join("tree/c")).unwrap(),
            b"linked three times"
        );
        // The trash holds the job's copies, never a name of the user's files.
        let trashed = fs::read_dir(home.join("data/Trash/files"))
            .into_iter()
            .flatten();
        for entry in trashed {
            let ino = entry.unwrap().metadata().unwrap().ino();
            assert!(
                before.iter().all(|b| b.0 != ino),
                "killed at {point}: trashed"
            );
        }
        assert_no_temporaries(&dest);
    }
}
