//! What `ferry cp`, `ferry mv` and `ferry rm` say when a Ctrl+C (SIGINT) stops them part way: how many
//! files of a folder were copied or moved, and where they are, never only "not copied" while
//! the destination holds part of it; and, when the job had finished before the signal took
//! effect, that it had. The process is held at a fault point while the signal is sent, so
//! that it is under way, not before or after.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use ferry_tests::TempTree;
use rustix::process::Signal;

use crate::faults::Pause;
use crate::ferry_in;
use crate::undo_crash::files_below;

/// Files below `dir`, at any depth (0 if it is not there).
fn files_in(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    (entries.map(|e| e.unwrap()))
        .map(|e| match e.file_type().unwrap().is_dir() {
            true => files_in(&e.path()),
            false => 1,
        })
        .sum()
}

/// `src/docs` of `files` files (10 KiB each, in two subfolders and the folder itself).
fn docs(t: &TempTree, files: usize) -> std::path::PathBuf {
    let docs = t.dir("src/docs");
    for i in 0..files {
        let sub = ["", "a/", "b/"][i % 3];
        t.file(format!("src/docs/{sub}f{i}"), vec![b'x'; 10 << 10]);
    }
    docs
}

/// `ferry <verb> <src> <dest>` held as its `nth` item is done, sent SIGINT there and, 0.3 s
/// later, let go.
fn interrupted(home: &Path, verb: &str, src: &Path, dest: &Path, nth: u32) -> (Output, String) {
    let point = Box::leak(format!("item-done:{nth}").into_boxed_str());
    let args = [verb.as_ref(), src.as_os_str(), dest.as_os_str()];
    interrupted_at(home, &args, point)
}

/// `ferry ARGS` held at the fault point `point` ("deleted:5"), sent SIGINT there and, 0.3 s
/// later, let go; it must end by the signal.
fn interrupted_at(home: &Path, args: &[&OsStr], point: &'static str) -> (Output, String) {
    signalled_at(home, args, point, Signal::INT)
}

/// [`interrupted_at`] with `signal` for SIGINT.
fn signalled_at(
    home: &Path,
    args: &[&OsStr],
    point: &'static str,
    signal: Signal,
) -> (Output, String) {
    let pause = Pause::at(point);
    let mut child = pause.start_held(ferry_in(home).args(args));
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, signal).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    // One the signal killed outright never reads the point's FIFO: opening it would wait.
    if child.try_wait().unwrap().is_none() {
        pause.release(child.id());
    }
    let out = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    let number = signal.as_raw();
    assert_eq!(
        out.status.signal(),
        Some(number),
        "{:?}: {said}",
        out.status
    );
    (out, said)
}

#[test]
fn an_interrupted_move_says_how_many_files_moved_and_where_the_rest_are() {
    let t = TempTree::new();
    let shm = TempTree::new_in("/dev/shm");
    let src = docs(&t, 600);
    let (home, dest) = (t.dir("home"), shm.dir("dest"));
    let (_, said) = interrupted(&home, "mv", &src, &dest, 5);
    let (moved, left) = (files_in(&dest.join("docs")), files_in(&src));
    assert_eq!(moved + left, 600, "{said}");
    assert!(moved > 0 && left > 0, "{moved} moved: {said}");
    let line = format!(
        "ferry: interrupted: {moved} of 600 files moved; the rest are still in {} \
         (`ferry undo` puts back what was moved)",
        src.display()
    );
    assert!(said.contains(&line), "{said}");
    assert!(!said.contains("not moved"), "{said}");
}

#[test]
fn an_interrupted_copy_says_how_much_of_the_folder_it_copied_and_where() {
    let t = TempTree::new();
    let src = docs(&t, 600);
    let (home, dest) = (t.dir("home"), t.dir("dest"));
    let (_, said) = interrupted(&home, "cp", &src, &dest, 5);
    let copied = files_in(&dest.join("docs"));
    assert!(copied > 0 && copied < 600, "{copied} copied: {said}");
    let line = format!(
        "ferry: interrupted: {copied} of 600 files copied into {}, which holds part of {}",
        dest.join("docs").display(),
        src.display()
    );
    assert!(said.contains(&line), "{said}");
    assert!(!said.contains("not copied"), "{said}");
    assert_eq!(files_in(&src), 600);
}

/// A SIGHUP (the terminal closed) cancels a copy as a Ctrl-C does: it killed the process
/// outright, leaving its temporaries and a job that seemed interrupted.
#[test]
fn a_hangup_cancels_a_copy_as_ctrl_c_does() {
    let t = TempTree::new();
    let src = docs(&t, 600);
    let (home, dest) = (t.dir("home"), t.dir("dest"));
    let args = ["cp".as_ref(), src.as_os_str(), dest.as_os_str()];
    let (_, said) = signalled_at(&home, &args, "item-done:5", Signal::HUP);
    assert!(said.contains("ferry: interrupted:"), "{said}");
    let history = ferry_in(&home).arg("history").output().unwrap();
    let history = String::from_utf8_lossy(&history.stdout);
    assert!(history.contains("cancelled"), "{history}");
    assert!(!history.contains("INTERRUPTED"), "{history}");
}

/// Cancelled before it got into them, the folders a copy had made were left 0700 and
/// stamped with the time of the cancel; they get their source's mode and times.
#[test]
fn folders_a_cancelled_copy_made_have_their_sources_mode_and_times() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let t = TempTree::new();
    let src = t.dir("src/docs");
    for d in 0..40 {
        for f in 0..20 {
            t.file(format!("src/docs/d{d:02}/f{f}"), "x");
        }
        let dir = src.join(format!("d{d:02}"));
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o750)).unwrap();
        let old = filetime_of(2001);
        rustix::fs::utimensat(rustix::fs::CWD, &dir, &old, rustix::fs::AtFlags::empty()).unwrap();
    }
    let (home, dest) = (t.dir("home"), t.dir("dest"));
    let (_, said) = interrupted(&home, "cp", &src, &dest, 3);
    let made: Vec<_> = (fs::read_dir(dest.join("docs")).unwrap())
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_dir())
        .collect();
    assert!(!made.is_empty(), "{said}");
    let unfinished: Vec<_> = (made.iter())
        .filter(|e| {
            let m = e.metadata().unwrap();
            m.permissions().mode() & 0o7777 != 0o750 || m.mtime() != 978_307_200
        })
        .map(|e| {
            let m = e.metadata().unwrap();
            let files = fs::read_dir(e.path()).unwrap().count();
            (
                e.file_name(),
                m.permissions().mode() & 0o7777,
                m.mtime(),
                files,
            )
        })
        .collect();
    assert!(
        unfinished.is_empty(),
        "{unfinished:?} of {}: {said}",
        made.len()
    );
}

/// Access and modification times at the start of `year` (2001 only).
fn filetime_of(year: i32) -> rustix::fs::Timestamps {
    assert_eq!(year, 2001);
    let at = rustix::fs::Timespec {
        tv_sec: 978_307_200,
        tv_nsec: 0,
    };
    rustix::fs::Timestamps {
        last_access: at,
        last_modification: at,
    }
}

/// A copy cancelled part way, then undone: redo would copy everything it was given, where
/// the job (and so its undo) did only part of it. It is refused, saying why.
#[test]
fn a_cancelled_copy_undone_is_not_redone_whole() {
    let t = TempTree::new();
    let src = docs(&t, 600);
    let (home, dest) = (t.dir("home"), t.dir("dest"));
    interrupted(&home, "cp", &src, &dest, 5);
    let undo = ferry_in(&home).arg("undo").output().unwrap();
    assert!(undo.status.success(), "{undo:?}");
    assert_eq!(files_in(&dest.join("docs")), 0);
    let redo = ferry_in(&home).arg("redo").output().unwrap();
    let said = String::from_utf8_lossy(&redo.stderr);
    assert!(!redo.status.success(), "{said}");
    assert!(said.contains("it was stopped part way"), "{said}");
    assert_eq!(files_in(&dest.join("docs")), 0, "{said}");
}

/// The files of a folder, by path below it, with their contents.
type Files = BTreeMap<PathBuf, Vec<u8>>;

/// `src/docs` of 600 files moved by `ferry mv` into `dest` on `shm`: the source, the home,
/// the destination folder, and the files the source held.
fn docs_moved_to(t: &TempTree, shm: &TempTree) -> (PathBuf, PathBuf, PathBuf, Files) {
    let src = docs(t, 600);
    let before = files_below(&src);
    let (home, dest) = (t.dir("home"), shm.dir("dest"));
    let moved = ferry_in(&home)
        .arg("mv")
        .arg(&src)
        .arg(&dest)
        .output()
        .unwrap();
    assert!(moved.status.success(), "{moved:?}");
    (src, home, dest, before)
}

/// An undo of a move across file systems stopped by Ctrl+C part way counts what it copied
/// back as put back: the folder is split between its two places. Run again, a plain undo
/// goes on into the folders it made (it stopped on them as places taken, and finished only
/// with `--on-conflict merge`, after which redo was refused); redo then moves it all again.
#[test]
fn an_undo_stopped_by_ctrl_c_goes_on_when_run_again_and_redoes() {
    let (t, shm) = (TempTree::new(), TempTree::new_in("/dev/shm"));
    let (src, home, dest, before) = docs_moved_to(&t, &shm);
    let (_, said) = interrupted_at(&home, &["undo".as_ref()], "item-done:5");
    let (back, left) = (files_in(&src), files_in(&dest.join("docs")));
    assert!(
        back > 0 && left > 0 && back + left == 600,
        "{back} + {left}: {said}"
    );
    assert!(said.contains("`ferry undo` goes on from there"), "{said}");

    let undo = ferry_in(&home).arg("undo").output().unwrap();
    assert!(undo.status.success(), "{undo:?}");
    assert_eq!(files_below(&src), before);
    assert!(
        !dest.join("docs").exists(),
        "its copies removed once emptied"
    );
    let redo = ferry_in(&home).arg("redo").output().unwrap();
    assert!(redo.status.success(), "{redo:?}");
    assert_eq!(files_below(&dest.join("docs")), before);
    assert!(!src.exists());
}

/// Of a move of two folders across file systems, an undo stopped by Ctrl+C had put the first
/// back whole: run again, it finished, yet said "… is no longer there; nothing was undone for
/// it" and exited 1. An item put back whole by the stopped run counts as undone.
#[test]
fn an_item_a_stopped_undo_put_back_whole_counts_as_undone() {
    let (t, shm) = (TempTree::new(), TempTree::new_in("/dev/shm"));
    let first = t.dir("src/first");
    for i in 0..5 {
        t.file(format!("src/first/f{i}"), format!("first {i}"));
    }
    let docs = docs(&t, 600);
    let (home, dest) = (t.dir("home"), shm.dir("dest"));
    let before = (files_below(&first), files_below(&docs));
    let args = [first.as_os_str(), docs.as_os_str(), dest.as_os_str()];
    let moved = ferry_in(&home).arg("mv").args(args).output().unwrap();
    assert!(moved.status.success(), "{moved:?}");
    interrupted_at(&home, &["undo".as_ref()], "item-done:200");
    assert!(!dest.join("first").exists(), "the first is back whole");
    assert_eq!(files_below(&first), before.0);

    let undo = ferry_in(&home).arg("undo").output().unwrap();
    let said = String::from_utf8_lossy(&undo.stderr);
    assert!(undo.status.success(), "{said}");
    assert!(!said.contains("no longer there"), "{said}");
    assert_eq!((files_below(&first), files_below(&docs)), before);
}

/// Ctrl+C, then `kill -9` of the undo run again: the folder is split, and some files are
/// both back and still where the job put them. A plain undo refused its own leftovers as
/// places taken ("use --on-conflict"), and merging left the copies behind; it removes them
/// and finishes.
#[test]
fn an_undo_killed_after_a_stopped_one_finishes_when_run_again() {
    let (t, shm) = (TempTree::new(), TempTree::new_in("/dev/shm"));
    let (src, home, dest, before) = docs_moved_to(&t, &shm);
    interrupted_at(&home, &["undo".as_ref()], "item-done:5");
    let killed = (ferry_in(&home).env("FERRY_FAULT_POINT", "item-done:3"))
        .arg("undo")
        .output()
        .unwrap();
    assert_eq!(killed.status.code(), None, "killed: {killed:?}");
    let twice = (files_below(&src).keys())
        .filter(|rel| dest.join("docs").join(rel).exists())
        .count();
    assert!(twice > 0, "some files are in both places");

    let undo = ferry_in(&home).arg("undo").output().unwrap();
    let said = String::from_utf8_lossy(&undo.stderr);
    assert!(undo.status.success(), "{said}");
    assert_eq!(files_below(&src), before);
    assert!(!dest.join("docs").exists(), "{said}");
}

/// What a stopped undo put back is taken for its own only while it is as the job left it: a
/// file changed there since makes the folder a place taken, and nothing is written.
#[test]
fn a_file_changed_where_a_stopped_undo_put_back_makes_its_folder_a_place_taken() {
    let (t, shm) = (TempTree::new(), TempTree::new_in("/dev/shm"));
    let (src, home, dest, _) = docs_moved_to(&t, &shm);
    interrupted_at(&home, &["undo".as_ref()], "item-done:5");
    let changed = files_below(&src).into_keys().next().unwrap();
    fs::write(src.join(&changed), "mine now").unwrap();
    let (back, left) = (files_below(&src), files_below(&dest));

    let undo = ferry_in(&home).arg("undo").output().unwrap();
    let said = String::from_utf8_lossy(&undo.stderr);
    assert!(!undo.status.success(), "{said}");
    assert!(said.contains("is taken"), "{said}");
    assert_eq!((files_below(&src), files_below(&dest)), (back, left));
}

#[test]
fn an_interrupted_delete_says_how_many_files_it_deleted() {
    let t = TempTree::new();
    let src = docs(&t, 600);
    let home = t.dir("home");
    let (_, said) = interrupted_at(&home, &["rm".as_ref(), src.as_os_str()], "deleted:5");
    let deleted = 600 - files_in(&src);
    assert!((5..600).contains(&deleted), "{deleted} deleted: {said}");
    // Cancelled after its count, it says the whole; while counting, what went so far.
    let counted = format!(
        "ferry: interrupted: {deleted} of 600 files deleted; the rest are still in {}",
        src.display()
    );
    let counting = "items deleted before all were counted; the rest are still in";
    assert!(said.contains(&counted) || said.contains(counting), "{said}");
    assert!(!said.contains("not deleted"), "{said}");
}

/// The signal came while the last item was written: nothing was left to stop, and the
/// command says so rather than nothing.
#[test]
fn a_move_interrupted_as_it_ended_says_it_finished() {
    let t = TempTree::new();
    let shm = TempTree::new_in("/dev/shm");
    let src = t.dir("src/docs");
    for i in 0..3 {
        t.file(format!("src/docs/f{i}"), format!("file {i}"));
    }
    let (home, dest) = (t.dir("home"), shm.dir("dest"));
    let (_, said) = interrupted(&home, "mv", &src, &dest, 3);
    assert_eq!(files_in(&dest.join("docs")), 3, "{said}");
    assert!(!src.exists(), "{said}");
    assert!(said.contains("the job had finished"), "{said}");
    assert!(!said.contains("not moved"), "{said}");
}

/// A restore to another disk stopped by Ctrl+C part way, then undone: the folder it had begun
/// was not recorded as restored, and the undo put nothing back, exited 0 and said nothing.
/// It says so now.
#[test]
fn the_undo_of_an_interrupted_restore_says_what_it_did_not_undo() {
    let t = TempTree::new();
    let shm = TempTree::new_in("/dev/shm");
    let home = t.dir("home");
    // Files larger than a tree filled under a hidden name holds: copied in place.
    let docs = t.dir("src/docs");
    for i in 0..40 {
        t.file(format!("src/docs/f{i}"), vec![b'x'; 200 << 10]);
    }
    let trashed = ferry_in(&home).arg("trash").arg(&docs).output().unwrap();
    assert!(trashed.status.success(), "{trashed:?}");
    let pause = Pause::at("item-done:5");
    let mut restore = ferry_in(&home);
    restore
        .arg("restore")
        .arg(&docs)
        .arg("--to")
        .arg(shm.path());
    let child = pause.start_held(&mut restore);
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, Signal::INT).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    pause.release(child.id());
    let _ = child.wait_with_output().unwrap();
    let undo = ferry_in(&home).arg("undo").output().unwrap();
    let said = String::from_utf8_lossy(&undo.stderr);
    let put_back = files_in(&shm.path().join("docs")) == 0;
    assert!(
        put_back || said.contains("nothing of it was undone"),
        "{said}"
    );
}

/// A Ctrl-C typed at a conflict question (on `script`'s terminal) cancels the job and ends
/// the process by the signal, as `cp -i` ends; the job is recorded as cancelled. The
/// question's read was restarted after the signal and waited for ever.
#[test]
fn ctrl_c_at_a_conflict_question_cancels_the_job() {
    use std::io::{Read, Write};
    use std::process::Stdio;
    let t = TempTree::new();
    let home = t.dir("home");
    t.file("s/f", "new");
    let old = t.file("d/f", "old");
    let program = env!("CARGO_BIN_EXE_ferry-under-test");
    let shell = format!(
        "'{program}' cp '{}' '{}' --on-conflict ask",
        t.join("s/f").display(),
        t.join("d").display()
    );
    let ferry = ferry_in(&home);
    let mut script = std::process::Command::new("script");
    script
        .args(["-qec", &shell, "/dev/null"])
        .envs(ferry.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped());
    let Ok(mut child) = script.spawn() else {
        eprintln!("note: no `script` (util-linux) to give ferry a terminal; test skipped");
        return;
    };
    let mut shown = Vec::new();
    let mut stdout = child.stdout.take().unwrap();
    while !String::from_utf8_lossy(&shown).contains("[c]ancel?") {
        let mut chunk = [0; 4096];
        let n = stdout.read(&mut chunk).unwrap();
        assert!(n > 0, "no question: {}", String::from_utf8_lossy(&shown));
        shown.extend_from_slice(&chunk[..n]);
    }
    // The terminal's Ctrl-C: SIGINT to the process waiting at the question.
    child.stdin.as_mut().unwrap().write_all(b"\x03").unwrap();
    let mut status = None;
    crate::faults::wait_until(
        || {
            status = child.try_wait().unwrap();
            status.is_some()
        },
        "ferry to end at the Ctrl-C",
    );
    assert_eq!(status.unwrap().code(), Some(130), "{status:?}");
    assert_eq!(fs::read_to_string(&old).unwrap(), "old");
    let history = ferry_in(&home).arg("history").output().unwrap();
    let history = String::from_utf8_lossy(&history.stdout);
    assert!(history.contains("cancelled"), "{history}");
}

/// A job slow to stop after a Ctrl+C says what a second one does: that ends the process at
/// once, in the signal handler, where nothing can be said, and it ended with no word at all.
#[test]
fn a_job_slow_to_stop_says_what_a_second_ctrl_c_does() {
    use std::io::BufRead;
    let t = TempTree::new();
    let src = docs(&t, 50);
    let (home, dest) = (t.dir("home"), t.dir("dest"));
    let pause = Pause::at("item-done:3");
    let mut child = pause.start_held(ferry_in(&home).arg("cp").arg(&src).arg(&dest));
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, Signal::INT).unwrap();
    // Held at the point, the job cannot stop: the word comes.
    let stderr = child.stderr.take().unwrap();
    let (line, first) = crossbeam_channel::bounded(1);
    std::thread::spawn(move || {
        let mut said = String::new();
        let _ = std::io::BufReader::new(stderr).read_line(&mut said);
        let _ = line.send(said);
    });
    let said = first.recv_timeout(std::time::Duration::from_secs(30));
    if said.is_err() {
        let _ = child.kill();
    }
    let said = said.expect("no word within 30 s");
    assert!(said.contains("Ctrl+C again quits at once"), "{said}");
    assert!(
        said.contains("`ferry resume`") && said.contains("`ferry undo`"),
        "{said}"
    );
    rustix::process::kill_process(pid, Signal::INT).unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{status:?}");
}
