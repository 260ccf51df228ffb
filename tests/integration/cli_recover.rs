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

/// A staged item's name: staged at `secs` (unix time) by a process of this test.
fn staged_name(secs: u64) -> String {
    format!("{secs}-{}-1-0", std::process::id())
}

/// The folders replaced files are kept in are pruned at start, whether or not a record names
/// them (records fall out of the journal; an interrupted job never says where it put what it
/// replaced): the data folder's and the one at the root of another file system; at most
/// every ten minutes, for it costs a walk of everything staged.
#[test]
fn staging_is_pruned_at_start_even_where_no_record_names_it() {
    let t = TempTree::new();
    let home = t.dir("home");
    let at_root = Path::new("/dev/shm").join(ferry_core::jobs::staging_folder_name());
    let in_data = home.join("data/ferry/replaced");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let (old, recent) = (staged_name(1_000_001_000), staged_name(now));
    let mut made = Vec::new();
    for dir in [&at_root, &in_data] {
        if !dir.exists() {
            fs::create_dir_all(dir).unwrap();
            fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
        }
        fs::write(dir.join(&old), "replaced long ago").unwrap();
        fs::write(dir.join(&recent), "replaced just now").unwrap();
        made.push(dir.join(&recent));
    }
    // Any command starts up; the journal is empty.
    ok(&ferry_in(&home).arg("history").output().unwrap());
    for dir in [&at_root, &in_data] {
        assert!(!dir.join(&old).exists(), "{} is pruned", dir.display());
        assert!(
            dir.join(&recent).exists(),
            "{} keeps what is recent",
            dir.display()
        );
    }
    // At most every ten minutes: a start a moment later leaves what expired since.
    fs::write(in_data.join(&old), "expired since").unwrap();
    ok(&ferry_in(&home).arg("history").output().unwrap());
    assert!(in_data.join(&old).exists(), "not pruned again so soon");
    let stamp = fs::File::options()
        .write(true)
        .open(home.join("state/ferry/staging-pruned"))
        .unwrap();
    let eleven_minutes_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(660);
    stamp.set_modified(eleven_minutes_ago).unwrap();
    ok(&ferry_in(&home).arg("history").output().unwrap());
    assert!(
        !in_data.join(&old).exists(),
        "pruned once the last prune is old"
    );
    for path in made {
        fs::remove_file(path).unwrap();
    }
}

/// A defect that panics in the middle of a copy (here, a test's fault point on the third
/// file done) ends the command, says so, and leaves the job as a crash would: recorded as
/// running, so the next command finds it interrupted and `ferry resume` finishes it. Before,
/// the panic ended the job's thread and nothing told the command or the window it was over.
#[test]
fn a_job_a_defect_stopped_is_said_and_resumed_like_a_crashed_one() {
    let t = TempTree::new();
    let home = t.dir("home");
    for i in 0..10 {
        t.file(format!("src/f{i}"), format!("file {i}"));
    }
    let dest = t.dir("dest");
    let out = ferry_in(&home)
        .env("FERRY_FAULT_POINT", "item-done:3!")
        .arg("cp")
        .arg(t.path().join("src"))
        .arg(&dest)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    // The panic's own words and place, whichever thread it was on.
    assert!(
        said.contains("ferry: stopped by an internal error (fault point item-done, at core/src/"),
        "{said}"
    );
    assert!(
        said.contains("): `ferry resume` finishes the job, `ferry undo` rolls it back"),
        "{said}"
    );
    assert_eq!(interrupted(&home), 1);
    ok(&ferry_in(&home).arg("resume").output().unwrap());
    for i in 0..10 {
        let copied = fs::read_to_string(dest.join(format!("src/f{i}"))).unwrap();
        assert_eq!(copied, format!("file {i}"));
    }
    assert_eq!(interrupted(&home), 0);
}

/// Files the user had in a folder before a job, identical to its sources (an earlier `cp -a`):
/// `(src, backup)`, with `src` holding `n` files and `backup/src` copies of the first three,
/// changed last over a second before the job starts, plus a note of the user's own.
fn an_earlier_backup(t: &TempTree, n: usize) -> (std::path::PathBuf, std::path::PathBuf) {
    let src = t.many_files("src", "photo", n, 100);
    let mine = t.dir("backup/src");
    for i in 0..3 {
        let name = format!("photo{i}");
        let copied = std::process::Command::new("cp")
            .arg("-p")
            .arg(src.join(&name))
            .arg(mine.join(&name))
            .status()
            .unwrap();
        assert!(copied.success());
    }
    fs::write(mine.join("notes.txt"), "mine").unwrap();
    // A job records its start in whole seconds: the user's files are older than that.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    (src, mine.parent().unwrap().to_path_buf())
}

/// What [`an_earlier_backup`] put in `backup` is there, and nothing else.
fn assert_only_the_earlier_backup_is_left(backup: &Path) {
    let mut left: Vec<String> = fs::read_dir(backup.join("src"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["notes.txt", "photo0", "photo1", "photo2"]);
}

/// Rolling back a killed copy into a folder that was there takes back only what the job
/// wrote: the user's identical files, which it skipped, stay (they went to the trash).
#[test]
fn rolling_back_a_killed_copy_keeps_the_files_that_were_there_before() {
    let t = TempTree::new();
    let home = t.dir("home");
    let (src, backup) = an_earlier_backup(&t, 12);
    let out = ferry_in(&home)
        .env("FERRY_FAULT_POINT", "item-done:6")
        .arg("cp")
        .arg(&src)
        .arg(&backup)
        .output()
        .unwrap();
    assert_eq!(out.status.signal(), Some(9), "killed");
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_only_the_earlier_backup_is_left(&backup);
}

/// A copy killed part way, one of its copies then edited: the roll back keeps it and says so
/// (it kept it without a word, exit 0, and the history said nothing was left undone).
#[test]
fn rolling_back_a_killed_copy_says_a_copy_changed_since_is_kept() {
    let t = TempTree::new();
    let home = t.dir("home");
    let src = t.many_files("src", "g", 4, 10);
    let dest = t.dir("dest");
    let out = ferry_in(&home)
        .env("FERRY_FAULT_POINT", "item-done:2")
        .arg("cp")
        .args(["g0", "g1", "g2", "g3"].map(|n| src.join(n)))
        .arg(&dest)
        .output()
        .unwrap();
    assert_eq!(out.status.signal(), Some(9), "killed");
    let edited = dest.join("g0");
    fs::write(&edited, "the user's work").unwrap();
    let out = ferry_in(&home).arg("undo").output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(
        said.contains(&format!("{} has changed since; kept", edited.display())),
        "{said}"
    );
    assert_eq!(fs::read(&edited).unwrap(), b"the user's work");
    assert!(!dest.join("g1").exists(), "the unchanged copy went");
}

/// The same for a finished copy undone without its details file, by comparison: a file it
/// skipped because it was there stays.
#[test]
fn an_undo_by_comparison_keeps_a_file_the_copy_skipped() {
    let t = TempTree::new();
    let home = t.dir("home");
    let (src, backup) = an_earlier_backup(&t, 5);
    let out = ferry_in(&home)
        .arg("cp")
        .arg(&src)
        .arg(&backup)
        .output()
        .unwrap();
    ok(&out);
    for details in fs::read_dir(home.join("state/ferry/records")).unwrap() {
        fs::remove_file(details.unwrap().path()).unwrap();
    }
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_only_the_earlier_backup_is_left(&backup);
}

/// `ferry resume` while a job is stopped (held, as by SIGSTOP or a suspended terminal) names
/// that job as running, rather than saying only that nothing was interrupted.
#[test]
fn resume_names_a_job_still_running() {
    let t = TempTree::new();
    let home = t.dir("home");
    let src = t.file("a.txt", "a");
    let pause = crate::faults::Pause::at("item-done");
    let mut copy = ferry_in(&home);
    copy.arg("cp").arg(&src).arg(t.dir("dest"));
    let mut held = pause.start_held(&mut copy);

    let out = ferry_in(&home).arg("resume").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("no interrupted job to resume: the copy")
            && stderr.contains("is still running"),
        "{stderr}"
    );
    pause.release(held.id());
    assert!(held.wait().unwrap().success());
}

/// `ferry resume N` of a job that finished, and of one that does not exist, says so of that
/// job: both said another job's undo was unfinished, or only "no interrupted job".
#[test]
fn resume_of_a_job_by_number_says_why_that_job_is_not_resumed() {
    let t = TempTree::new();
    let home = t.dir("home");
    let src = t.file("a.txt", "a");
    ok(&ferry_in(&home)
        .arg("cp")
        .arg(&src)
        .arg(t.dir("dest"))
        .output()
        .unwrap());
    let said = |seq: &str| {
        let out = ferry_in(&home).args(["resume", seq]).output().unwrap();
        assert_eq!(out.status.code(), Some(2));
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let finished = said("1");
    assert!(
        finished.contains("job 1, the copy") && finished.contains("was finished, not interrupted"),
        "{finished}"
    );
    let none = said("9999");
    assert!(none.contains("no job 9999 in the journal"), "{none}");
}

/// `ferry history` says a job with items failed is partial, not "done".
#[test]
fn history_says_a_job_with_failures_is_partial() {
    let t = TempTree::new();
    let home = t.dir("home");
    let src = t.file("a.txt", "a");
    let out = ferry_in(&home)
        .arg("cp")
        .arg(&src)
        .arg(t.join("missing.txt"))
        .arg(t.dir("dest"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let history = ok(&ferry_in(&home)
        .args(["history", "-n", "1"])
        .output()
        .unwrap());
    let line = history
        .lines()
        .find(|l| l.contains("copy"))
        .unwrap_or_default();
    assert!(
        line.contains("partial") && !line.contains(" done "),
        "{history}"
    );
}
