//! What every `ferry` start does after a crash, from the command line: `ferry resume`
//! finishes every interrupted job (or the one named), and the folders replaced files are kept
//! in are bounded whether or not a record still names them.

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;

use ferry_tests::TempTree;

use crate::ferry_in;
use crate::undo::ok;

/// `ferry cp --on-conflict replace SRC DEST_DIR` killed once the old file is moved aside:
/// the destination is empty until the job is resumed or undone.
fn kill_a_replace(home: &Path, src: &Path, dest_dir: &Path) {
    let out = ferry_in(home)
        .env("FERRY_FAULT_POINT", "replace-staged")
        .args(["cp", "--on-conflict", "replace"])
        .arg(src)
        .arg(dest_dir)
        .output()
        .unwrap();
    assert_eq!(out.status.signal(), Some(9), "killed");
}

fn interrupted(home: &Path) -> usize {
    let history = ok(&ferry_in(home).arg("history").output().unwrap());
    history.matches("INTERRUPTED").count()
}

#[test]
fn resume_finishes_every_interrupted_job() {
    let t = TempTree::new();
    let home = t.dir("home");
    let mut dests = Vec::new();
    for i in 0..2 {
        let src = t.file(format!("src{i}/doc.txt"), format!("new {i}"));
        let dest = t.file(format!("dest{i}/doc.txt"), "old");
        kill_a_replace(&home, &src, dest.parent().unwrap());
        assert!(!dest.exists());
        dests.push(dest);
    }
    assert_eq!(interrupted(&home), 2);
    let out = ferry_in(&home).arg("resume").output().unwrap();
    ok(&out);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(said.matches("resuming").count(), 2, "{said}");
    for (i, dest) in dests.iter().enumerate() {
        assert_eq!(fs::read(dest).unwrap(), format!("new {i}").as_bytes());
    }
    assert_eq!(interrupted(&home), 0);
    let again = ferry_in(&home).arg("resume").output().unwrap();
    assert_eq!(again.status.code(), Some(2), "nothing left to resume");
}

#[test]
fn resume_of_one_record_leaves_the_others_and_says_so() {
    let t = TempTree::new();
    let home = t.dir("home");
    let mut dests = Vec::new();
    for i in 0..2 {
        let src = t.file(format!("src{i}/doc.txt"), "new");
        let dest = t.file(format!("dest{i}/doc.txt"), "old");
        kill_a_replace(&home, &src, dest.parent().unwrap());
        dests.push(dest);
    }
    // Records 1 and 2: resume the newer one only.
    let out = ferry_in(&home).args(["resume", "2"]).output().unwrap();
    ok(&out);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("1 interrupted job left"), "{said}");
    assert!(!dests[0].exists() && dests[1].exists());
    assert_eq!(interrupted(&home), 1);
}
