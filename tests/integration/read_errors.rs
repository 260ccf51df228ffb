//! A file whose data cannot be read (a bad sector, a btrfs checksum error: EIO on read) fails
//! alone, named, as `cp -a` has it; the rest of the copy or move goes on. EIO writing the
//! copy still stops the job (the destination disk is failing), and what it did not do is
//! said truthfully. The EIO is a fault point (`FERRY_FAULT_EIO`), not a corrupted disk image.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use ferry_tests::TempTree;

use crate::ferry_in;
use crate::jobs_support::{assert_no_temporaries, snapshot};

/// `t/f00`..`t/f19` and, among them by name, `t/f09x`, whose reads are to fail.
fn tree(t: &TempTree) -> (PathBuf, PathBuf) {
    let src = t.dir("t");
    for i in 0..20 {
        t.file(format!("t/f{i:02}"), format!("file {i}"));
    }
    let bad = t.file("t/f09x", "bad sector");
    (src, bad)
}

/// `ferry <args>` with reads (or, `write`, writes) of `bad`'s data failing with EIO.
fn run_failing(home: &Path, bad: &Path, write: bool, args: &[&Path]) -> (Output, String) {
    let ino = fs::metadata(bad).unwrap().ino();
    let spec = match write {
        true => format!("write:{ino}"),
        false => ino.to_string(),
    };
    let out = ferry_in(home)
        .env("FERRY_FAULT_EIO", spec)
        .args(args)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    (out, said)
}

/// The last line of `ferry history`.
fn last_history(home: &Path) -> String {
    let out = ferry_in(home)
        .args(["history", "-n", "1"])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn healthy(src_before: &std::collections::BTreeMap<PathBuf, crate::jobs_support::Node>) -> usize {
    src_before
        .keys()
        .filter(|p| p != &Path::new("f09x"))
        .count()
}

#[test]
fn a_file_that_cannot_be_read_fails_alone_and_the_copy_goes_on() {
    let t = TempTree::new();
    let shm = TempTree::new_in("/dev/shm");
    let (src, bad) = tree(&t);
    let before = snapshot(&src);
    let (home, dest) = (t.dir("home"), shm.dir("dest"));
    let (out, said) = run_failing(&home, &bad, false, &["cp".as_ref(), &src, &dest]);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(!said.contains("stopped"), "{said}");
    assert!(
        said.contains("t/f09x") && said.contains("Input/output error"),
        "{said}"
    );
    assert!(!said.contains("not copied"), "{said}");
    let mut copied = snapshot(&dest.join("t"));
    assert!(!dest.join("t/f09x").exists(), "{copied:?}");
    let mut expected = before.clone();
    expected.remove(Path::new("f09x"));
    // The folder's own entry differs only by what it holds.
    copied.remove(Path::new(""));
    expected.remove(Path::new(""));
    assert_eq!(copied, expected, "every healthy file is copied");
    assert_eq!(snapshot(&src), before);
    assert_no_temporaries(&dest);
    // The folder and its 20 healthy files; the bad one failed; nothing left undone.
    let history = last_history(&home);
    assert_eq!(healthy(&before), 20);
    assert!(
        history.trim_end().ends_with("21 done, 0 skipped, 1 failed"),
        "{history}"
    );
}

/// A job that failed on everything it was given is not "done" in the history: a copy of a
/// folder into itself, refused, and a copy of a file that cannot be read.
#[test]
fn history_calls_a_job_that_did_nothing_but_fail_failed() {
    let t = TempTree::new();
    let (src, bad) = tree(&t);
    let home = t.dir("home");
    let into_itself = ferry_in(&home)
        .arg("cp")
        .arg(&src)
        .arg(&src)
        .output()
        .unwrap();
    assert_eq!(into_itself.status.code(), Some(1));
    let history = last_history(&home);
    assert!(history.contains(" failed "), "{history}");
    let dest = t.dir("dest");
    let (out, said) = run_failing(&home, &bad, false, &["cp".as_ref(), &bad, &dest]);
    assert_eq!(out.status.code(), Some(1), "{said}");
    let history = last_history(&home);
    assert!(
        history.contains(" failed ") && !history.contains(" done "),
        "{history}"
    );
}

#[test]
fn a_file_that_cannot_be_read_stays_and_the_rest_moves() {
    let t = TempTree::new();
    let shm = TempTree::new_in("/dev/shm");
    let (src, bad) = tree(&t);
    let (home, dest) = (t.dir("home"), shm.dir("dest"));
    let (out, said) = run_failing(&home, &bad, false, &["mv".as_ref(), &src, &dest]);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(!said.contains("stopped"), "{said}");
    assert!(
        said.contains("t/f09x") && said.contains("Input/output error"),
        "{said}"
    );
    let left: Vec<_> = fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["f09x"], "only the bad file stays");
    assert_eq!(fs::read(&bad).unwrap(), b"bad sector");
    for i in 0..20 {
        let name = format!("f{i:02}");
        let moved = fs::read(dest.join("t").join(&name)).unwrap();
        assert_eq!(moved, format!("file {i}").as_bytes(), "{name}");
    }
    assert!(!dest.join("t/f09x").exists());
    assert_no_temporaries(&dest);
    let history = last_history(&home);
    assert!(history.trim_end().ends_with(" 1 failed"), "{history}");
}

/// EIO writing the copy means the destination disk is failing: the job stops there, and what
/// it says and records is what it did: the files copied before, counted, and the rest named
/// as not done.
#[test]
fn a_write_error_stops_the_copy_and_says_what_was_done() {
    let t = TempTree::new();
    let shm = TempTree::new_in("/dev/shm");
    let (src, bad) = tree(&t);
    let (home, dest) = (t.dir("home"), shm.dir("dest"));
    let (out, said) = run_failing(&home, &bad, true, &["cp".as_ref(), &src, &dest]);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("stopped"), "{said}");
    let copied = fs::read_dir(dest.join("t")).unwrap().count();
    assert!(copied <= 20, "{copied}: {said}");
    assert!(
        said.contains(&format!("{copied} of 21 files copied")),
        "{copied}: {said}"
    );
    assert_no_temporaries(&dest);
    let history = last_history(&home);
    assert!(
        history.contains(&format!(
            "{} done, 0 skipped, 1 failed; 1 of the items given unfinished",
            copied + 1
        )),
        "{copied}: {history}"
    );
}

/// A move across disks that could not read one file, undone: everything is back, and the
/// folders the move left behind (the unreadable file in them) have their own times again.
/// They kept the time of the undo, which put the rest back into them.
#[test]
fn the_undo_of_a_move_that_left_a_file_behind_gives_the_folders_their_times() {
    let (t, shm) = (TempTree::new(), TempTree::new_in("/dev/shm"));
    let home = t.dir("home");
    for k in 0..4 {
        t.file(format!("work/src/a/f{k}"), format!("file {k}"));
    }
    for dir in ["work/src/a", "work/src"] {
        let folder = fs::File::open(t.join(dir)).unwrap();
        let then = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_500_000_000);
        folder.set_modified(then).unwrap();
    }
    let before = snapshot(&t.join("work"));
    let dest = shm.dir("dest");
    let (src, bad) = (t.join("work/src"), t.join("work/src/a/f2"));
    let (out, said) = run_failing(&home, &bad, false, &["mv".as_ref(), &src, &dest]);
    assert_ne!(out.status.code(), Some(0), "{said}");
    crate::undo::ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_eq!(snapshot(&t.join("work")), before);
    assert!(snapshot(&dest).is_empty());
}
