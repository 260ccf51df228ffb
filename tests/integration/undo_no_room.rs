//! An undo that the check before writing refuses (no room where it would put things back)
//! changes nothing, and says so: the job is still done, not an undo left unfinished. A redo
//! refused so, or whose every place is taken, leaves its job to redo.

use std::fs;

use ferry_tests::TempTree;

use crate::ferry_in;
use crate::jobs_support::Mounted;

/// `ferry history -n 1`'s line.
fn last_history(home: &std::path::Path) -> String {
    let out = ferry_in(home)
        .args(["history", "-n", "1"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A disk of 20 inodes.
fn small_disk(t: &TempTree) -> Option<Mounted> {
    Mounted::tmpfs_inodes(&t.join("small"), "2m", 20)
}

/// Another program takes every inode left on the disk at `dir`: the files it made.
fn take_every_inode(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut fill = Vec::new();
    while fs::write(dir.join(format!("fill{}", fill.len())), "").is_ok() {
        fill.push(dir.join(format!("fill{}", fill.len())));
    }
    fill
}

#[test]
fn an_undo_refused_for_want_of_room_leaves_the_job_done() {
    let t = TempTree::new();
    let home = t.dir("home");
    let Some(small) = small_disk(&t) else {
        return;
    };
    let folder = small.dir.join("d");
    fs::create_dir(&folder).unwrap();
    for i in 0..10 {
        fs::write(folder.join(format!("f{i}")), i.to_string()).unwrap();
    }
    let dest = t.dir("there");
    let out = ferry_in(&home)
        .arg("mv")
        .arg(&folder)
        .arg(&dest)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // Another program takes the inodes the folder's files had.
    let fill = take_every_inode(&small.dir);

    let out = ferry_in(&home).arg("undo").output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("not enough room for files"), "{said}");
    assert!(said.contains("nothing was undone"), "{said}");
    assert!(!said.contains("not all of it"), "{said}");
    assert_eq!(fs::read_dir(dest.join("d")).unwrap().count(), 10);
    let history = last_history(&home);
    assert!(history.contains(" done "), "{history}");
    assert!(!history.contains("UNFINISHED"), "{history}");

    // Room made, it goes back whole.
    fill.iter().for_each(|f| fs::remove_file(f).unwrap());
    let out = ferry_in(&home).arg("undo").output().unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(fs::read_dir(&folder).unwrap().count(), 10);
    assert!(!dest.join("d").exists());
    assert!(last_history(&home).contains(" undone "));
}

/// The same for a redo: refused for want of room, the job was listed as stopped with nothing
/// done, and neither redo nor undo found it again.
#[test]
fn a_redo_refused_for_want_of_room_can_be_redone_later() {
    let t = TempTree::new();
    let home = t.dir("home");
    let Some(small) = small_disk(&t) else {
        return;
    };
    let folder = t.dir("d");
    for i in 0..10 {
        t.file(format!("d/f{i}"), i.to_string());
    }
    let run = |verb: &str| ferry_in(&home).arg(verb).output().unwrap();
    let out = ferry_in(&home)
        .arg("mv")
        .arg(&folder)
        .arg(&small.dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(run("undo").status.success());
    let fill = take_every_inode(&small.dir);

    let out = run("redo");
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("not enough room for files"), "{said}");
    assert_eq!(fs::read_dir(&folder).unwrap().count(), 10);
    let history = last_history(&home);
    assert!(history.contains(" undone "), "{history}");

    fill.iter().for_each(|f| fs::remove_file(f).unwrap());
    let out = run("redo");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(fs::read_dir(small.dir.join("d")).unwrap().count(), 10);
    assert!(!folder.exists());
}

/// A redo without a terminal whose one place is taken skips it: the job was marked done with
/// nothing done, so it could never be redone, and the next redo redid an older job undone
/// before it was made. It stays the one redo redoes, and is redone once the place is free.
#[test]
fn a_redo_whose_every_place_is_taken_stays_the_one_to_redo() {
    let t = TempTree::new();
    let home = t.dir("home");
    let run = |args: &[&std::ffi::OsStr]| ferry_in(&home).args(args).output().unwrap();
    let (src, d) = (t.file("src", "S"), t.dir("d"));
    assert!(
        run(&["cp".as_ref(), src.as_os_str(), d.as_os_str()])
            .status
            .success()
    );
    assert!(run(&["undo".as_ref()]).status.success());
    let (a, b) = (t.file("a", "A"), t.join("b"));
    assert!(
        run(&["mv".as_ref(), a.as_os_str(), b.as_os_str()])
            .status
            .success()
    );
    assert!(run(&["undo".as_ref()]).status.success());
    fs::write(&b, "USER").unwrap();

    let out = run(&["redo".as_ref()]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("nothing was redone"), "{said}");
    let out = run(&["redo".as_ref()]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(
        said.contains("redoing the move"),
        "the older copy redone: {said}"
    );
    assert!(!d.join("src").exists());

    fs::remove_file(&b).unwrap();
    let out = run(&["redo".as_ref()]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(fs::read(&b).unwrap(), b"A");
    assert!(!a.exists());
}
