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

#[test]
fn a_torn_last_line_never_hides_the_next_job_from_undo() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let (a, b) = (tree.file("a", "a"), tree.file("b", "b"));
    let dest = tree.dir("dest");
    ok(&ferry_in(&home)
        .arg("cp")
        .arg(&a)
        .arg(&dest)
        .output()
        .unwrap());
    // A crash in the middle of writing the first job's end line.
    let journal = journal_file(&home);
    let log = fs::read(&journal).unwrap();
    fs::write(&journal, &log[..log.len() - 20]).unwrap();
    ok(&ferry_in(&home)
        .arg("cp")
        .arg(&b)
        .arg(&dest)
        .output()
        .unwrap());

    let history = ferry_in(&home).arg("history").output().unwrap();
    let history = String::from_utf8_lossy(&history.stdout).into_owned();
    assert!(history.contains(&*b.to_string_lossy()), "{history}");
    let stderr = ok(&ferry_in(&home)
        .args(["undo", "--on-conflict", "skip"])
        .output()
        .unwrap());
    assert!(
        !dest.join("b").exists(),
        "the newest job is undone: {stderr}"
    );
    assert_eq!(fs::read_to_string(dest.join("a")).unwrap(), "a", "{stderr}");
}

#[test]
fn a_record_whose_details_are_gone_is_undone_by_comparison_and_says_so() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let a = tree.file("a", "a");
    let dest = tree.dir("dest");
    ok(&ferry_in(&home)
        .arg("cp")
        .arg(&a)
        .arg(&dest)
        .output()
        .unwrap());
    let details = home.join("state/ferry/records/1.json");
    fs::remove_file(&details).unwrap();

    let stderr = ok(&ferry_in(&home)
        .args(["undo", "--on-conflict", "skip"])
        .output()
        .unwrap());
    assert!(
        stderr.contains(&*details.to_string_lossy()) && stderr.contains("comparing"),
        "{stderr}"
    );
    assert!(!dest.join("a").exists());
    assert_eq!(fs::read_to_string(&a).unwrap(), "a");
}

/// `ferry` as the unprivileged user 65534 with its home in `home`.
fn ferry_as_nobody(home: &Path) -> std::process::Command {
    let mut command = std::process::Command::new("setpriv");
    command
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_ferry-under-test"))
        .env("HOME", home)
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"));
    command
}

#[test]
fn a_journal_folder_the_user_cannot_write_is_read_and_the_job_says_it_is_not_undoable() {
    if !crate::jobs_support::root_or_skip("making a journal another user cannot write") {
        return;
    }
    let tree = TempTree::new();
    super::jobs_support::chmod(tree.path(), 0o755);
    let home = tree.dir("home");
    let (a, b) = (tree.file("a", "a"), tree.file("b", "b"));
    let dest = tree.dir("dest");
    super::jobs_support::chmod(&dest, 0o777);
    ok(&ferry_in(&home)
        .arg("cp")
        .arg(&a)
        .arg(&dest)
        .output()
        .unwrap());
    // Made user 65534's own journal, read-only: it may read it, not write there (another
    // user's journal it may not even read: 0700).
    let state = home.join("state");
    super::jobs_support::chmod(&state, 0o755);
    let mut everything = vec![state];
    let mut at = 0;
    while let Some(path) = everything.get(at).cloned() {
        at += 1;
        std::os::unix::fs::lchown(&path, Some(65534), Some(65534)).unwrap();
        if path.is_dir() {
            everything.extend(fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        }
    }
    for path in everything.iter().skip(1).rev() {
        super::jobs_support::chmod(path, if path.is_dir() { 0o500 } else { 0o400 });
    }
    let log = fs::read(journal_file(&home)).unwrap();

    let out = ferry_as_nobody(&home)
        .arg("cp")
        .arg(&b)
        .arg(&dest)
        .output()
        .unwrap();
    let stderr = ok(&out);
    assert!(
        stderr.contains("this job will not be undoable: "),
        "{stderr}"
    );
    assert_eq!(fs::read_to_string(dest.join("b")).unwrap(), "b");
    assert_eq!(fs::read(journal_file(&home)).unwrap(), log);

    let out = ferry_as_nobody(&home).arg("history").output().unwrap();
    ok(&out);
    let history = String::from_utf8_lossy(&out.stdout);
    assert!(history.contains(&*a.to_string_lossy()), "{history}");
}

/// A journal whose folder was made read-only after it was made (`chmod 500`) still records
/// jobs (its log and details can be written), and their undo works: the writer lock, which
/// no file could be made for, is taken on the log instead. Undo once said it could not open
/// `journal.writer.lock` and refused.
#[test]
fn a_journal_folder_made_read_only_later_still_undoes() {
    if !crate::jobs_support::root_or_skip("acting as another user") {
        return;
    }
    let tree = TempTree::new();
    super::jobs_support::chmod(tree.path(), 0o755);
    let home = tree.dir("home");
    std::os::unix::fs::lchown(&home, Some(65534), Some(65534)).unwrap();
    let (a, b) = (tree.file("a", "a"), tree.file("b", "b"));
    let dest = tree.dir("dest");
    super::jobs_support::chmod(&dest, 0o777);
    let nobody =
        |args: &[&std::ffi::OsStr]| ok(&ferry_as_nobody(&home).args(args).output().unwrap());
    nobody(&["cp".as_ref(), a.as_os_str(), dest.as_os_str()]);
    super::jobs_support::chmod(&home.join("state/ferry"), 0o500);
    let stderr = nobody(&["cp".as_ref(), b.as_os_str(), dest.as_os_str()]);
    assert!(!stderr.contains("not be undoable"), "{stderr}");
    nobody(&["undo".as_ref()]);
    assert!(!dest.join("b").exists(), "the copy is undone");
    assert!(dest.join("a").exists(), "the job before stays");
    super::jobs_support::chmod(&home.join("state/ferry"), 0o700);
}

/// A job onto a file system that stopped answering (a FUSE server stopped) is journaled at
/// once: its begin line looked at the places it would fill, which held the window's job out
/// of sight (no job shown, Ctrl+Q not asking) and every later job waiting for the journal.
/// Such a place counts as taken, which a roll back only reads as "not the job's". One that
/// answers is looked at: counted taken unasked, a roll back left all a killed move had
/// carried there.
#[test]
fn a_job_onto_a_file_system_that_stopped_answering_is_journaled_at_once() {
    for stopped in [true, false] {
        let t = TempTree::new();
        let Some((fuse, src)) = crate::jobs_support::StoppableFuse::with_a_source(&t) else {
            return;
        };
        let journal_file = t.join("state/journal");
        fs::create_dir_all(journal_file.parent().unwrap()).unwrap();
        if stopped {
            fuse.signal("-STOP");
        }
        let job = ferry_core::jobs::Job::Copy {
            sources: vec![src],
            dest_dir: fuse.dir.clone(),
            dest_name: None,
            on_conflict: ferry_core::jobs::ConflictPolicy::Skip,
        };
        let (tx, rx) = crossbeam_channel::bounded(1);
        let file = journal_file.clone();
        std::thread::spawn(move || {
            let journal = ferry_core::jobs::UndoJournal::at(file);
            let _ = tx.send(
                journal
                    .begin_in_background(&job)
                    .map(|b| b.map(|(seq, _)| seq)),
            );
        });
        let begun = rx.recv_timeout(std::time::Duration::from_secs(10));
        assert!(matches!(begun, Ok(Ok(Some(1)))), "{begun:?}");
        let line = fs::read_to_string(&journal_file).unwrap();
        let landing = fuse.dir.join("src.txt");
        let taken = line.contains(&*landing.to_string_lossy());
        assert_eq!(taken, stopped, "stopped: {stopped}; {line}");
    }
}
