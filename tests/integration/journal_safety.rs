//! The undo journal under stress: two commands at once, a crash in the middle of a line, a
//! details file gone, a folder the user cannot write. Through `ferry` processes whose HOME
//! and XDG folders are temporary (never the user's journal).

use std::fs;
use std::path::Path;
use std::process::{Child, Output, Stdio};

use ferry_tests::TempTree;

use super::faults::{Pause, waits_for_a_lock};
use super::ferry_in;

fn journal_file(home: &Path) -> std::path::PathBuf {
    home.join("state/ferry/journal.jsonl")
}

fn ok(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    stderr
}

fn finish(child: Child) -> Output {
    child.wait_with_output().unwrap()
}

#[test]
fn two_undos_started_together_undo_the_job_once() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let file = tree.file("a", "a");
    let dest = tree.dir("dest");
    ok(&ferry_in(&home)
        .arg("cp")
        .arg(&file)
        .arg(&dest)
        .output()
        .unwrap());

    let pause = Pause::at("undo-decided");
    let undo = || {
        let mut command = ferry_in(&home);
        pause.hold(command.args(["undo", "--on-conflict", "skip"]));
        command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let first = undo();
    pause.wait_for(first.id());
    // The first has decided what to undo and is under way: the second starts now.
    let second = undo();
    let id = second.id();
    pause.wait_until(
        || pause.held().contains(&id) || waits_for_a_lock(id),
        "the second undo to decide or to wait",
    );
    let raced = pause.held().contains(&id);
    pause.release(first.id());
    if raced {
        pause.release(id);
    }
    let (first, second) = (finish(first), finish(second));
    assert!(!raced, "both undos decided to undo the same job at once");
    ok(&first);
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("waiting for another undo") && stderr.contains("nothing to undo"),
        "{stderr}"
    );
    let log = fs::read_to_string(journal_file(&home)).unwrap();
    assert_eq!(log.matches("\"undone\"").count(), 1, "{log}");
    assert!(fs::read_dir(&dest).unwrap().next().is_none());
    assert_eq!(fs::read_to_string(&file).unwrap(), "a");
}
