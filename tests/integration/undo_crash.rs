//! Crash recovery of journaled jobs: a move killed midway (SIGKILL of a `ferry mv` process)
//! loses nothing, and `ferry resume` finishes it or `ferry undo` rolls it back; a move that
//! died while removing its sources, resumed or undone through the engine.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use ferry_core::jobs::{Job, UndoJournal};
use ferry_tests::TempTree;

use crate::ferry_in;
use crate::jobs_support::{
    Node, assert_no_temporaries, at_the_start_of_a_second, run_job, snapshot,
};
use crate::undo::{Setup, moving, ok};

/// Every file of `sources` (relative path -> contents) is whole in `src` or `dest` (or
/// identical in both); returns how many are in the destination only.
fn assert_each_file_whole_somewhere(
    sources: &BTreeMap<PathBuf, Vec<u8>>,
    src: &Path,
    dest: &Path,
) -> usize {
    let mut moved = 0;
    for (rel, data) in sources {
        let (s, d) = (fs::read(src.join(rel)).ok(), fs::read(dest.join(rel)).ok());
        match (s, d) {
            (Some(s), Some(d)) => {
                assert_eq!(&s, data, "{rel:?} changed in the source");
                assert_eq!(&d, data, "{rel:?} differs in the destination");
            }
            (Some(s), None) => assert_eq!(&s, data, "{rel:?}"),
            (None, Some(d)) => {
                assert_eq!(&d, data, "{rel:?}");
                moved += 1;
            }
            (None, None) => panic!("{rel:?} is lost"),
        }
    }
    moved
}

fn count_files(dir: &Path) -> usize {
    let Ok(entries) = fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => count_files(&e.path()),
            _ => 1,
        })
        .sum()
}

/// Starts `ferry mv` of 2,000 files (80 MB) from tmpfs to the work tree and kills it
/// (SIGKILL) once some files arrived; returns the source, the destination folder and the
/// files (relative path -> contents).
fn kill_a_move_midway(
    shm: &TempTree,
    t: &TempTree,
    home: &Path,
) -> (PathBuf, PathBuf, BTreeMap<PathBuf, Vec<u8>>) {
    let src = shm.dir("src");
    let mut files = BTreeMap::new();
    for i in 0..2000 {
        let rel = PathBuf::from(format!("d{}/f{i}", i % 10));
        let data: Vec<u8> = (0..40_000u32).map(|b| (b as usize * 7 + i) as u8).collect();
        shm.file(Path::new("src").join(&rel), &data);
        files.insert(rel, data);
    }
    fs::set_permissions(src.join("d3"), fs::Permissions::from_mode(0o750)).unwrap();
    let dest = t.dir("dest");
    // Folders made in the open, as for trees too large to fill hidden (`fresh.rs`; a killed
    // hidden fill is in `fresh_folders.rs`).
    let mut child = ferry_in(home)
        .env("FERRY_FAULT_OFF", "hidden-folders")
        .arg("mv")
        .arg(&src)
        .arg(&dest)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    while count_files(&dest) < 200 {
        assert!(
            child.try_wait().unwrap().is_none(),
            "the move ended before it could be killed"
        );
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    let moved = assert_each_file_whole_somewhere(&files, &src, &dest.join("src"));
    assert!(moved < files.len(), "the move was interrupted");
    let history = ok(&ferry_in(home).arg("history").output().unwrap());
    assert!(history.contains("INTERRUPTED"), "{history}");
    assert_no_temporaries(&dest);
    (src, dest, files)
}

/// Every file below `root` (relative path -> contents).
pub(crate) fn files_below(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    snapshot(root)
        .into_iter()
        .filter_map(|(rel, node)| match node {
            Node::File { data, .. } => Some((rel, data)),
            _ => None,
        })
        .collect()
}

#[test]
fn a_move_killed_midway_loses_nothing_and_resumes() {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    let (src, dest, files) = kill_a_move_midway(&shm, &t, &home);

    ok(&ferry_in(&home).arg("resume").output().unwrap());
    assert!(!src.exists(), "the resumed move removed its source");
    assert_eq!(files_below(&dest.join("src")), files);
    let mode = fs::metadata(dest.join("src/d3"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o750, "folders get their mode back");
    assert_no_temporaries(&dest);
    let history = ok(&ferry_in(&home).arg("history").output().unwrap());
    assert!(!history.contains("INTERRUPTED"), "{history}");
}

#[test]
fn a_move_killed_midway_rolls_back() {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    let (src, dest, files) = kill_a_move_midway(&shm, &t, &home);
    // Killed while copying (as a rule): every source still whole, the copies mere duplicates.
    let sources_all_there = files_below(&src) == files;

    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_eq!(files_below(&src), files, "everything is back in the source");
    assert!(snapshot(&dest).is_empty(), "{:?}", snapshot(&dest).keys());
    if sources_all_there {
        // The copied folder went to the trash whole, not as hundreds of loose files. (The
        // trash of /dev/shm is the machine's: only this test's items count.)
        let trash = ok(&ferry_in(&home).arg("restore").output().unwrap());
        let ours: Vec<&str> = (trash.lines())
            .filter(|l| l.contains(&*t.path().to_string_lossy()))
            .collect();
        assert_eq!(ours.len(), 1, "{trash}");
        assert!(
            ours[0].ends_with(&*dest.join("src").to_string_lossy()),
            "{trash}"
        );
    }
    let history = ok(&ferry_in(&home).arg("history").output().unwrap());
    assert!(
        history.contains("undone") && !history.contains("INTERRUPTED"),
        "{history}"
    );
}

/// Journals `job` as begun by a process that died (pid 0 never runs), as after a crash.
fn begun_by_a_dead_process(journal: &UndoJournal, job: &Job) {
    journal.begin(job).unwrap().unwrap();
    let text = fs::read_to_string(journal.path()).unwrap();
    let dead = text.replace(&format!("\"pid\":{}", std::process::id()), "\"pid\":0");
    fs::write(journal.path(), dead).unwrap();
}

/// What a cross-file-system move of `src` (d/both, d/moved, d/left) into `dest`, journaled in
/// `journal`, leaves when killed while removing its sources: one file copied and not yet removed, one moved, one
/// not reached, a folder still 0700, and a named temporary of the dead process.
fn a_half_moved_tree(shm: &TempTree, t: &TempTree, journal: &UndoJournal) -> (PathBuf, PathBuf) {
    let src = shm.dir("src");
    for name in ["both", "moved", "left"] {
        shm.file(format!("src/d/{name}"), name);
    }
    let dest = t.dir("dest");
    begun_by_a_dead_process(journal, &moving(vec![src.clone()], &dest));
    fs::create_dir_all(dest.join("src/d")).unwrap();
    for name in ["both", "moved"] {
        let copy = dest.join("src/d").join(name);
        fs::copy(src.join("d").join(name), &copy).unwrap();
        let mtime = fs::metadata(src.join("d").join(name))
            .unwrap()
            .modified()
            .unwrap();
        fs::File::options()
            .write(true)
            .open(&copy)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
    }
    fs::remove_file(src.join("d/moved")).unwrap();
    t.file("dest/src/d/.ferry-tmp-0-1-7", "half a file");
    fs::set_permissions(dest.join("src/d"), fs::Permissions::from_mode(0o700)).unwrap();
    (src, dest)
}

#[test]
fn resume_finishes_a_move_killed_while_removing_its_sources() {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let s = Setup::new(&t);
    let (src, dest) = a_half_moved_tree(&shm, &t, &s.journal);

    let interrupted = s.journal.recover().unwrap();
    assert_eq!(interrupted.len(), 1);
    assert_no_temporaries(&dest);
    let out = run_job(Job::Resume {
        record: Box::new(interrupted[0].clone()),
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    // `both`, found copied whole, counts as done with the rest (src, d, left); `moved` was
    // done before the crash.
    assert_eq!(out.summary.items_done, 4);
    assert!(!src.exists());
    let names: Vec<PathBuf> = files_below(&dest.join("src")).into_keys().collect();
    assert_eq!(names, ["d/both", "d/left", "d/moved"].map(PathBuf::from));
    let mode = fs::metadata(dest.join("src/d"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o755, "the folder got its mode");
}

#[test]
fn undo_rolls_back_a_move_killed_while_removing_its_sources() {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let s = Setup::new(&t);
    let (src, dest) = a_half_moved_tree(&shm, &t, &s.journal);

    s.journal.recover().unwrap();
    let out = s.undo();
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    let back: Vec<(PathBuf, Vec<u8>)> = files_below(&src).into_iter().collect();
    let want = ["both", "left", "moved"].map(|n| (Path::new("d").join(n), n.as_bytes().to_vec()));
    assert_eq!(back, want);
    assert!(snapshot(&dest).is_empty(), "{:?}", snapshot(&dest).keys());
    // The folder of the extra copy, once what went back has left it: one trash entry, as
    // for hundreds of copies.
    assert_eq!(s.trashed(), ["src"], "the extra copy went to the trash");
}

/// Moves `name` (a folder of 43 files, or one file) from the work tree to tmpfs, then
/// kills `ferry undo` of it at the fault point `point` of its put-back; returns the source
/// and what was moved (relative path -> contents).
fn an_undo_killed_at(
    t: &TempTree,
    shm: &TempTree,
    home: &Path,
    name: &str,
    point: &str,
) -> (PathBuf, BTreeMap<PathBuf, Vec<u8>>) {
    // Enough files that a copy killed at its second is a part copy, whatever the workers did.
    let files: BTreeMap<PathBuf, Vec<u8>> = if name.starts_with("folder") {
        let many = (0..40).map(|i| format!("sub/many/f{i}"));
        ["a".to_owned(), "sub/b".to_owned(), "sub/c".to_owned()]
            .into_iter()
            .chain(many)
            .map(|f| (PathBuf::from(&f), f.repeat(3000).into_bytes()))
            .collect()
    } else {
        [(PathBuf::new(), b"one file".to_vec())].into()
    };
    for (rel, data) in &files {
        match rel.as_os_str().is_empty() {
            true => t.file(name, data),
            false => t.file(Path::new(name).join(rel), data),
        };
    }
    let src = t.path().join(name);
    let dest = shm.dir("dest");
    ok(&ferry_in(home)
        .arg("mv")
        .arg(&src)
        .arg(&dest)
        .output()
        .unwrap());
    let killed = ferry_in(home)
        .env("FERRY_FAULT_POINT", point)
        .arg("undo")
        .output()
        .unwrap();
    assert_eq!(killed.status.code(), None, "the undo was killed at {point}");
    (src, files)
}

/// The files of `name` at `src`, as [`an_undo_killed_at`] made them.
fn item_at(src: &Path, name: &str) -> BTreeMap<PathBuf, Vec<u8>> {
    match name {
        "file" => [(PathBuf::new(), fs::read(src).unwrap())].into(),
        _ => files_below(src),
    }
}

/// An undo killed while putting a moved item back finishes when run again: killed while
/// removing what it copied back from (the item back whole, a file perhaps set aside) or while
/// copying it (part of it back): no conflict with its own put-back, nothing left twice or set
/// aside. Until then, history and resume say the undo did not finish.
#[test]
fn an_undo_killed_while_putting_an_item_back_finishes_when_run_again() {
    let cases = [
        ("folder", "source-checked:1", true),
        ("folder-late", "source-checked:3", true),
        ("file", "source-checked:1", true),
        ("folder-copying", "item-done:2", false),
    ];
    for (name, point, back_whole) in cases {
        let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
        let home = t.dir("home");
        let (src, files) = an_undo_killed_at(&t, &shm, &home, name, point);
        assert_eq!(item_at(&src, name) == files, back_whole, "{name}");
        // Said so until an undo finishes (history said "done", resume "no interrupted job").
        let history = ok(&ferry_in(&home).arg("history").output().unwrap());
        assert!(history.contains("UNDO UNFINISHED"), "{name}: {history}");
        let resume = ferry_in(&home).arg("resume").output().unwrap();
        let said = String::from_utf8_lossy(&resume.stderr);
        assert!(said.contains("`ferry undo` finishes it"), "{name}: {said}");

        ok(&ferry_in(&home).arg("undo").output().unwrap());
        assert_eq!(item_at(&src, name), files, "{name}");
        let left = snapshot(shm.path());
        assert_eq!(
            left.keys().collect::<Vec<_>>(),
            [Path::new("dest")],
            "{name}"
        );
        let history = ok(&ferry_in(&home).arg("history").output().unwrap());
        assert!(history.contains("undone"), "{name}: {history}");
    }
}

/// What was changed where an undo was killed is not taken for its put-back: run again, the
/// undo meets the place taken, as for any other item there, and removes nothing.
#[test]
fn a_file_changed_since_a_killed_undo_keeps_its_item_from_being_taken_for_put_back() {
    for (point, changed) in [
        ("source-checked:1", "dest/folder/sub/c"),
        ("item-done:2", ""),
    ] {
        let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
        let home = t.dir("home");
        let (src, _) = an_undo_killed_at(&t, &shm, &home, "folder", point);
        // Killed while copying: a file of the part copy at the old place is edited.
        let edited = match changed {
            "" => files_below(&src)
                .into_keys()
                .next()
                .map(|rel| src.join(rel))
                .unwrap(),
            rel => shm.path().join(rel),
        };
        fs::write(&edited, "edited after the kill").unwrap();
        let before = (snapshot(&src), snapshot(shm.path()));

        let again = ferry_in(&home).arg("undo").output().unwrap();
        let stderr = String::from_utf8_lossy(&again.stderr);
        assert_eq!(again.status.code(), Some(2), "{point}: {stderr}");
        assert!(stderr.contains("is taken"), "{point}: {stderr}");
        assert_eq!((snapshot(&src), snapshot(shm.path())), before, "{point}");
    }
}

/// A copy killed midway into a folder that was there had made folders in it: rolling it back
/// takes them away with the copies, and leaves the folder with what it held before.
#[test]
fn rolling_back_a_killed_copy_removes_the_folders_it_made_in_a_merged_folder() {
    let t = TempTree::new();
    let home = t.dir("home");
    for (d, n) in [("a/b", 3), ("c", 3)] {
        for i in 0..n {
            t.file(format!("src/n7/{d}/f{i}"), format!("{d}{i}"));
        }
    }
    let kept = t.file("dest/n7/only-in-dest", "the user's");
    let killed = ferry_in(&home)
        .env("FERRY_FAULT_POINT", "item-done:2")
        .arg("cp")
        .arg(t.join("src/n7"))
        .arg(t.join("dest"))
        .output()
        .unwrap();
    let signal = std::os::unix::process::ExitStatusExt::signal(&killed.status);
    assert_eq!(signal, Some(9));
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    let left: Vec<PathBuf> = snapshot(&t.join("dest")).into_keys().collect();
    assert_eq!(
        left,
        [PathBuf::from("n7"), PathBuf::from("n7/only-in-dest")]
    );
    assert_eq!(fs::read(kept).unwrap(), b"the user's");
}

/// Gives `file` the modification time of `like`.
fn with_mtime_of(file: &Path, like: &Path) {
    let mtime = fs::metadata(like).unwrap().modified().unwrap();
    let f = fs::File::options().write(true).open(file).unwrap();
    f.set_modified(mtime).unwrap();
}

/// 300 kB, and the same with one byte changed between the head, middle and tail samples a
/// first comparison reads: files alike in everything but a full read (a rebuilt binary with
/// fixed times, a disk image).
fn look_alikes() -> (Vec<u8>, Vec<u8>) {
    let data: Vec<u8> = (0..300_000u32).map(|i| (i % 253) as u8).collect();
    let mut other = data.clone();
    other[100_000] ^= 1;
    (data, other)
}

/// A file like the moved one at its old place (same size and time, other bytes) is a place
/// taken, not what a killed undo had put back: the undo removes nothing and says so, on one
/// file system and across two. It used to delete the moved file, its only copy, exit 0.
#[test]
fn a_look_alike_at_the_old_place_is_not_taken_for_the_undos_own_put_back() {
    let (data, other) = look_alikes();
    for across in [false, true] {
        let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
        let home = t.dir("home");
        let src = t.file("a/X", &data);
        let dest = if across { shm.dir("b") } else { t.dir("b") };
        ok(&ferry_in(&home)
            .arg("mv")
            .arg(&src)
            .arg(&dest)
            .output()
            .unwrap());
        let moved = dest.join("X");
        fs::write(&src, &other).unwrap();
        with_mtime_of(&src, &moved);

        let undo = ferry_in(&home).arg("undo").output().unwrap();
        let stderr = String::from_utf8_lossy(&undo.stderr);
        assert_eq!(undo.status.code(), Some(2), "across {across}: {stderr}");
        assert!(stderr.contains("is taken"), "across {across}: {stderr}");
        assert_eq!(fs::read(&moved).unwrap(), data, "across {across}");
        assert_eq!(fs::read(&src).unwrap(), other, "across {across}");
    }
}

/// A move killed midway, resumed, where a look-alike of one of its files was in the
/// destination before the move: that file was a conflict (skipped), not the interrupted run's
/// copy, so the resume keeps its source.
#[test]
fn a_resumed_move_keeps_the_source_of_a_look_alike_it_did_not_copy() {
    let (data, other) = look_alikes();
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    for i in 0..40 {
        shm.file(format!("src/f{i:02}"), format!("file {i}").repeat(500));
    }
    let source = shm.file("src/zz-look-alike", &data);
    let theirs = t.file("dest/src/zz-look-alike", &other);
    with_mtime_of(&theirs, &source);
    let killed = ferry_in(&home)
        .env("FERRY_FAULT_POINT", "item-done:2")
        .arg("mv")
        .arg(shm.join("src"))
        .arg(t.join("dest"))
        .output()
        .unwrap();
    assert_eq!(killed.status.code(), None, "the move was killed");

    let resumed = ferry_in(&home).arg("resume").output().unwrap();
    let stderr = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(fs::read(&source).unwrap(), data, "{stderr}");
    assert_eq!(fs::read(&theirs).unwrap(), other, "{stderr}");
    for i in 0..40 {
        let moved = t.join(format!("dest/src/f{i:02}"));
        assert_eq!(
            fs::read(moved).unwrap(),
            format!("file {i}").repeat(500).into_bytes()
        );
    }
}

/// A move within one file system into a folder that holds a folder of the same name, killed
/// midway: undo moves back what the killed run renamed into that folder, and leaves there the
/// user's own file, made in the same second just before the job. The roll back used to leave
/// every moved item where it was, record the job undone, exit 0; told only the second the
/// job started, it then took the user's file for one the job had moved.
#[test]
fn undo_of_a_move_killed_while_merging_within_one_file_system_moves_back_only_its_items() {
    let t = TempTree::new();
    let home = t.dir("home");
    for i in 0..200 {
        t.file(format!("src/f{i:03}"), format!("file {i}"));
    }
    let before = snapshot(&t.join("src"));
    at_the_start_of_a_second();
    let mine = t.file("dest/src/mine", "the user's own");
    std::thread::sleep(std::time::Duration::from_millis(20));
    let killed = ferry_in(&home)
        .env("FERRY_FAULT_POINT", "renamed:20")
        .arg("mv")
        .arg(t.join("src"))
        .arg(t.join("dest"))
        .output()
        .unwrap();
    assert_eq!(killed.status.code(), None, "the move was killed");
    assert!(
        snapshot(&t.join("dest/src")).len() > 1,
        "some items were moved"
    );

    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_eq!(snapshot(&t.join("src")), before);
    assert_eq!(
        snapshot(&t.join("dest")).into_keys().collect::<Vec<_>>(),
        [PathBuf::from("src"), PathBuf::from("src/mine")]
    );
    assert_eq!(fs::read(&mine).unwrap(), b"the user's own");
}

/// `ferry mv DIR DEST/new-name` killed once the folder was there: undo puts it back under its
/// own name, within one file system and across two (it came back under the new one).
#[test]
fn undo_of_a_killed_move_to_a_new_name_puts_the_item_back_under_its_own() {
    for across in [false, true] {
        let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
        let home = t.dir("home");
        let src = t.file("work/report/part.txt", "part");
        let src = src.parent().unwrap();
        let dest = if across { shm.dir("dst") } else { t.dir("dst") };
        let killed = ferry_in(&home)
            .env("FERRY_FAULT_POINT", "job-ended")
            .arg("mv")
            .arg(src)
            .arg(dest.join("renamed"))
            .output()
            .unwrap();
        assert_eq!(killed.status.code(), None, "across {across}: killed");
        assert!(!src.exists(), "across {across}: the move was done");

        ok(&ferry_in(&home).arg("undo").output().unwrap());
        assert_eq!(
            snapshot(&t.join("work")).into_keys().collect::<Vec<_>>(),
            [PathBuf::from("report"), PathBuf::from("report/part.txt")],
            "across {across}"
        );
        assert_eq!(fs::read_dir(&dest).unwrap().count(), 0, "across {across}");
    }
}

/// `--on-conflict keep-both` of a folder whose place is taken (`dest/src` the user's, or
/// none), killed once its copy is in place, by copy and by a move across file systems.
fn a_killed_keep_both(
    op: &str,
    taken: bool,
) -> (TempTree, TempTree, PathBuf, BTreeMap<PathBuf, Vec<u8>>) {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    for i in 0..40 {
        shm.file(format!("src/d/f{i:02}"), format!("file {i}").repeat(300));
    }
    let files = files_below(&shm.join("src"));
    if taken {
        t.file("dest/src/mine", "the user's own");
    } else {
        t.dir("dest");
    }
    // A new folder is filled under a hidden name and put in place whole: killed once it is
    // there (the copy's end not recorded; the move removing its sources).
    let point = if op == "mv" {
        "source-checked:3"
    } else {
        "job-ended"
    };
    kill_keep_both(&home, op, point, &shm.join("src"), &t.join("dest"));
    (shm, t, home, files)
}

/// `ferry OP --on-conflict keep-both SRC DEST`, killed at fault point `point`.
fn kill_keep_both(home: &Path, op: &str, point: &str, src: &Path, dest: &Path) {
    let killed = ferry_in(home)
        .env("FERRY_FAULT_POINT", point)
        .args([op, "--on-conflict", "keep-both"])
        .arg(src)
        .arg(dest)
        .output()
        .unwrap();
    assert_eq!(killed.status.code(), None, "{op}: the job was killed");
}

/// Resumed, it goes on into the place it had made (`src (copy)`, or `src` itself when it was
/// free) instead of keeping both with its own part copy (`src (copy 2)`, a second tree).
#[test]
fn a_resumed_keep_both_goes_on_into_the_place_it_made() {
    for (op, taken) in [("cp", true), ("mv", true), ("cp", false), ("mv", false)] {
        let (shm, t, home, files) = a_killed_keep_both(op, taken);
        ok(&ferry_in(&home).arg("resume").output().unwrap());
        let names: Vec<String> = fs::read_dir(t.join("dest"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        let copy = if taken { "src (copy)" } else { "src" };
        let expected: Vec<&str> = if taken { vec!["src", copy] } else { vec![copy] };
        assert_eq!(names, expected, "{op} taken {taken}");
        assert_eq!(
            files_below(&t.join("dest").join(copy)),
            files,
            "{op} taken {taken}"
        );
        assert_eq!(shm.join("src").exists(), op == "cp", "{op} taken {taken}");
    }
}

/// Rolled back, what it kept beside the user's folder goes (to the trash for a copy, back to
/// its place for a move), and the user's folder stays as it was. `src (copy)` was left.
#[test]
fn a_rolled_back_keep_both_takes_back_what_it_kept_beside() {
    for op in ["cp", "mv"] {
        let (shm, t, home, files) = a_killed_keep_both(op, true);
        ok(&ferry_in(&home).arg("undo").output().unwrap());
        assert_eq!(
            snapshot(&t.join("dest")).into_keys().collect::<Vec<_>>(),
            [PathBuf::from("src"), PathBuf::from("src/mine")],
            "{op}"
        );
        assert_eq!(files_below(&shm.join("src")), files, "{op}");
    }
}

/// A copy into a folder that was there, killed while it filled a folder it had made inside it
/// (mode 700 until complete): the resume gives that folder its source's mode, as it does the
/// folders of a copy it created whole. It kept 700.
#[test]
fn a_resumed_copy_gives_the_folders_it_made_in_a_merged_folder_their_modes() {
    use std::os::unix::fs::PermissionsExt;
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    shm.file("src/d/sub/small", "s");
    shm.file("src/d/sub/big", vec![7u8; 800_000]);
    shm.file("src/top", "new");
    for dir in ["src", "src/d", "src/d/sub"] {
        fs::set_permissions(shm.join(dir), fs::Permissions::from_mode(0o750)).unwrap();
    }
    t.file("dest/src/top", "the user's");
    let killed = ferry_in(&home)
        .env("FERRY_FAULT_POINT", "item-done:1")
        .arg("cp")
        .arg(shm.join("src"))
        .arg(t.join("dest"))
        .output()
        .unwrap();
    assert_eq!(killed.status.code(), None, "the copy was killed");
    let resumed = ferry_in(&home).arg("resume").output().unwrap();
    assert!(resumed.status.code() == Some(0) || resumed.status.code() == Some(1));
    for dir in ["dest/src/d", "dest/src/d/sub"] {
        let mode = fs::metadata(t.join(dir)).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o750, "{dir}");
    }
    assert_eq!(fs::read(t.join("dest/src/top")).unwrap(), b"the user's");
}

/// Killed before it had made its place beside the user's folder (its hidden folder not yet
/// renamed there), a Keep both job has nothing of its own anywhere: rolled back, the user's
/// folder stays whole. It was taken for the job's own place: a copy's roll back put the
/// files there that matched the source (as `cp -a` leaves them) in the trash, a move's moved
/// the whole folder into the source's place.
#[test]
fn a_keep_both_killed_before_its_place_was_made_rolls_back_without_touching_the_users_folder() {
    for op in ["cp", "mv"] {
        let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
        let home = t.dir("home");
        for i in 0..40 {
            shm.file(format!("src/d/f{i:02}"), format!("file {i}"));
        }
        let files = files_below(&shm.join("src"));
        t.file("dest/src/mine", "the user's own");
        let like = t.file("dest/src/d/f00", "file 0");
        with_mtime_of(&like, &shm.join("src/d/f00"));
        let users = snapshot(&t.join("dest"));
        kill_keep_both(&home, op, "item-done:2", &shm.join("src"), &t.join("dest"));
        ok(&ferry_in(&home).arg("undo").output().unwrap());
        let now = snapshot(&t.join("dest"));
        assert!(now == users, "{op}: {:?}", now.keys().collect::<Vec<_>>());
        assert_eq!(files_below(&shm.join("src")), files, "{op}");
    }
}

/// The files below `root` (none when it is gone).
fn files_if_any(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    match root.exists() {
        true => files_below(root),
        false => BTreeMap::new(),
    }
}

/// The names below `root` that a job or undo gives its items for a while (set aside to be
/// removed, or a temporary).
fn hidden_names_left(root: &Path) -> Vec<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    let hidden = |rel: &PathBuf| {
        let name = rel.file_name().unwrap().as_bytes();
        name.starts_with(b".ferry-moving-") || name.starts_with(b".ferry-tmp-")
    };
    snapshot(root).into_keys().filter(hidden).collect()
}

/// `ferry mv --on-conflict replace` across file systems killed once done (`job-ended`: the
/// journal says interrupted), then its roll back (itself a move, back) killed once it had set
/// aside the first item it took back, at the destination (`.ferry-moving-<undo pid>-…`). The
/// next undo took that item for one the move had carried over, and moved it into the source
/// folder under its hidden name; a resume left it beside the item. Either now puts it back
/// under its name first: the undo leaves both places as before the move (the replaced file
/// back), the resume as after it, and no hidden name anywhere.
#[test]
fn a_killed_roll_back_of_a_replace_leaves_nothing_set_aside_when_run_again() {
    for (folder, next) in [
        (false, "undo"),
        (true, "undo"),
        (false, "resume"),
        (true, "resume"),
    ] {
        let case = format!("a {}, then {next}", if folder { "folder" } else { "file" });
        let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
        let home = t.dir("home");
        t.file("src/a", "new a");
        let (given, landed) = if folder {
            t.file("src/b", "new b");
            shm.file("dest/src/a", "old a");
            shm.file("dest/src/mine", "the user's own");
            (t.join("src"), shm.join("dest/src"))
        } else {
            shm.file("dest/a", "old a");
            (t.join("src/a"), shm.join("dest"))
        };
        // The user's files a little older than the job, as they are (see `changed_since`).
        std::thread::sleep(std::time::Duration::from_millis(100));
        let (src_before, dest_before) =
            (files_below(&t.join("src")), files_below(&shm.join("dest")));
        let killed = ferry_in(&home)
            .env("FERRY_FAULT_POINT", "job-ended")
            .args(["mv", "--on-conflict", "replace"])
            .arg(&given)
            .arg(shm.join("dest"))
            .output()
            .unwrap();
        assert_eq!(killed.status.code(), None, "{case}: the move was killed");
        let killed = ferry_in(&home)
            .env("FERRY_FAULT_POINT", "source-checked:1")
            .arg("undo")
            .output()
            .unwrap();
        assert_eq!(killed.status.code(), None, "{case}: the undo was killed");
        let aside = hidden_names_left(shm.path());
        assert_eq!(aside.len(), 1, "{case}: one item set aside: {aside:?}");

        ok(&ferry_in(&home).arg(next).output().unwrap());
        for root in [t.path(), shm.path()] {
            let left = hidden_names_left(root);
            assert!(left.is_empty(), "{case}: left {left:?}");
        }
        let history = ok(&ferry_in(&home).arg("history").output().unwrap());
        if next == "undo" {
            assert_eq!(files_if_any(&t.join("src")), src_before, "{case}");
            assert_eq!(files_below(&shm.join("dest")), dest_before, "{case}");
            assert!(history.contains("undone"), "{case}: {history}");
        } else {
            assert!(files_if_any(&t.join("src")).is_empty(), "{case}");
            assert_eq!(fs::read(landed.join("a")).unwrap(), b"new a", "{case}");
            if folder {
                assert_eq!(fs::read(landed.join("b")).unwrap(), b"new b", "{case}");
                assert_eq!(fs::read(landed.join("mine")).unwrap(), b"the user's own");
            }
            assert!(history.contains("done"), "{case}: {history}");
        }
    }
}
