//! Undo that puts items back where a place was taken since: the undo of a move or of a trash
//! asks (or applies its conflict policy) as a paste does, in the engine and in `ferry undo`.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use ferry_core::jobs::{ConflictKind, Job, Resolution, Scope, SkipReason, list_trash_in};
use ferry_tests::TempTree;

use crate::faults::Pause;
use crate::ferry_in;
use crate::jobs_conflicts::once;
use crate::jobs_requests::Immutable;
use crate::jobs_support::Mounted;
use crate::jobs_support::assert_no_temporaries;
use crate::undo::{Setup, moving, ok};

/// `here/report.txt` moved into `there`, then a new `here/report.txt`.
fn moved_then_re_used(t: &TempTree, s: &Setup) -> (PathBuf, PathBuf) {
    let file = t.file("here/report.txt", "moved away");
    let dest = t.dir("there");
    s.run(moving(vec![file.clone()], &dest));
    fs::write(&file, "a new file in the old place").unwrap();
    (file, dest.join("report.txt"))
}

#[test]
fn undo_of_a_move_after_the_original_place_was_re_used_asks() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let (file, moved) = moved_then_re_used(&t, &s);

    let (out, conflicts) = s.undo_asking(once(Resolution::KeepBoth));
    assert_eq!(conflicts.len(), 1, "{conflicts:#?}");
    let c = &conflicts[0];
    assert_eq!(c.kind, ConflictKind::FileExists);
    assert_eq!((&c.source.path, &c.dest.path), (&moved, &file));
    assert_eq!(c.dest.size, "a new file in the old place".len() as u64);
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(fs::read(&file).unwrap(), b"a new file in the old place");
    assert_eq!(
        fs::read(t.join("here/report (copy).txt")).unwrap(),
        b"moved away",
        "both are kept"
    );
    assert!(!moved.exists());
    assert_no_temporaries(t.path());
}

#[test]
fn undo_of_a_move_answered_skip_or_replace() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let (file, moved) = moved_then_re_used(&t, &s);
    let (out, _) = s.undo_asking(once(Resolution::Skip));
    assert_eq!(out.summary.skipped.len(), 1, "{:#?}", out.summary);
    assert_eq!(out.summary.skipped[0].path, moved);
    assert_eq!(out.summary.skipped[0].reason, SkipReason::Exists);
    assert_eq!(fs::read(&file).unwrap(), b"a new file in the old place");
    assert_eq!(fs::read(&moved).unwrap(), b"moved away");

    let t = TempTree::new();
    let s = Setup::new(&t);
    let (file, moved) = moved_then_re_used(&t, &s);
    let (out, _) = s.undo_asking(once(Resolution::Replace));
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(fs::read(&file).unwrap(), b"moved away");
    assert!(!moved.exists());
    // The file that was in the way goes to the trash, listed as trashed from its place. It
    // was kept in the staging folder, where nothing would bring it back (an undo is not
    // undone), out of sight and pruned after a week.
    let trashed = list_trash_in(&s.trash).unwrap();
    assert_eq!(trashed.len(), 1, "{trashed:#?}");
    assert_eq!(trashed[0].original, file);
    assert_eq!(
        fs::read(&trashed[0].file).unwrap(),
        b"a new file in the old place"
    );
    assert!(fs::read_dir(&s.staging).map_or(true, |mut d| d.next().is_none()));
}

/// The undo of a rename whose old name another file took since asks, as the undo of a move
/// does (it failed with "already there" and no way on): Keep both puts it back beside the
/// newcomer; Replace puts it back and the newcomer in the trash; Skip leaves both.
#[test]
fn undo_of_a_rename_whose_old_name_was_taken_asks() {
    let renamed_then_re_used = |t: &TempTree, s: &Setup| {
        let old = t.file("draft.txt", "renamed away");
        s.run(Job::Rename {
            path: old.clone(),
            new_name: "final.txt".into(),
        });
        fs::write(&old, "a new draft").unwrap();
        (old, t.join("final.txt"))
    };
    let t = TempTree::new();
    let s = Setup::new(&t);
    let (old, renamed) = renamed_then_re_used(&t, &s);
    let (out, conflicts) = s.undo_asking(once(Resolution::KeepBoth));
    assert_eq!(conflicts.len(), 1, "{:#?}", out.summary);
    assert_eq!(
        (&conflicts[0].source.path, &conflicts[0].dest.path),
        (&renamed, &old)
    );
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(fs::read(&old).unwrap(), b"a new draft");
    assert_eq!(
        fs::read(t.join("draft (copy).txt")).unwrap(),
        b"renamed away"
    );
    assert!(!renamed.exists());
    assert!(
        matches!(
            s.journal.redo_candidate(),
            Err(ferry_core::Error::RedoAfterAside { .. })
        ),
        "put back beside: no redo"
    );

    let t = TempTree::new();
    let s = Setup::new(&t);
    let (old, renamed) = renamed_then_re_used(&t, &s);
    let (out, _) = s.undo_asking(once(Resolution::Replace));
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(fs::read(&old).unwrap(), b"renamed away");
    assert!(!renamed.exists());
    let trashed = list_trash_in(&s.trash).unwrap();
    assert_eq!(trashed.len(), 1, "{trashed:#?}");
    assert_eq!(fs::read(&trashed[0].file).unwrap(), b"a new draft");

    let t = TempTree::new();
    let s = Setup::new(&t);
    let (old, renamed) = renamed_then_re_used(&t, &s);
    let (out, _) = s.undo_asking(once(Resolution::Skip));
    assert_eq!(out.summary.skipped.len(), 1, "{:#?}", out.summary);
    assert_eq!(fs::read(&old).unwrap(), b"a new draft");
    assert_eq!(fs::read(&renamed).unwrap(), b"renamed away");
    assert_no_temporaries(t.path());
}

/// `work/notes.txt` ("trashed") moved to the trash, then a new one ("written since") made in
/// its place; returns its path.
fn trashed_then_re_used(t: &TempTree, s: &Setup) -> PathBuf {
    let file = t.file("work/notes.txt", "trashed");
    s.run(Job::Trash {
        paths: vec![file.clone()],
        roots: s.trash.clone(),
    });
    fs::write(&file, "written since").unwrap();
    file
}

#[test]
fn undo_of_a_trash_whose_original_place_was_re_used_asks() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let file = trashed_then_re_used(&t, &s);
    let (out, conflicts) = s.undo_asking(once(Resolution::KeepBoth));
    assert_eq!(conflicts.len(), 1, "{conflicts:#?}");
    assert_eq!(conflicts[0].dest.path, file);
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(fs::read(&file).unwrap(), b"written since");
    assert_eq!(
        fs::read(t.join("work/notes (copy).txt")).unwrap(),
        b"trashed"
    );
    assert!(s.trashed().is_empty());
}

/// The undo of a trash answered Replace where a new file took the item's place: the item is
/// back, and the new file is in the trash, as trashed from that place, restorable. It was
/// kept in the staging folder, out of sight, while the dialog said Undo would bring it back.
#[test]
fn undo_of_a_trash_answered_replace_puts_the_new_file_in_the_trash() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let file = trashed_then_re_used(&t, &s);
    let (out, _) = s.undo_asking(once(Resolution::Replace));
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(fs::read(&file).unwrap(), b"trashed");
    let trashed = list_trash_in(&s.trash).unwrap();
    assert_eq!(trashed.len(), 1, "{trashed:#?}");
    assert_eq!(trashed[0].original, file);
    assert_eq!(fs::read(&trashed[0].file).unwrap(), b"written since");
}

/// `ferry mv here/report.txt there`, then a new `here/report.txt` ("new"): the file and the
/// folder it was moved to.
fn moved_by_the_cli_then_re_used(t: &TempTree, home: &Path) -> (PathBuf, PathBuf) {
    let file = t.file("here/report.txt", "moved away");
    let dest = t.dir("there");
    ok(&ferry_in(home)
        .arg("mv")
        .arg(&file)
        .arg(&dest)
        .output()
        .unwrap());
    fs::write(&file, "new").unwrap();
    (file, dest)
}

#[test]
fn the_cli_undo_of_a_move_asks_when_the_original_place_is_taken() {
    let t = TempTree::new();
    let home = t.dir("home");
    let (file, dest) = moved_by_the_cli_then_re_used(&t, &home);
    // Without a terminal, `ask` (the default) lists the conflict and moves nothing back.
    let out = ferry_in(&home).arg("undo").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&*file.to_string_lossy()), "{stderr}");
    assert_eq!(fs::read(&file).unwrap(), b"new");
    assert_eq!(fs::read(dest.join("report.txt")).unwrap(), b"moved away");

    ok(&ferry_in(&home)
        .args(["undo", "--on-conflict", "keep-both"])
        .output()
        .unwrap());
    assert_eq!(fs::read(&file).unwrap(), b"new");
    assert_eq!(
        fs::read(t.join("here/report (copy).txt")).unwrap(),
        b"moved away"
    );
    assert!(!dest.join("report.txt").exists());
}

/// An undo whose every item was skipped (its place taken) undid nothing: recorded as undone,
/// its job was out of Undo's reach, and the next `ferry undo` undid an older job. The job
/// stays the one Undo undoes, and says so.
#[test]
fn an_undo_that_skipped_every_item_leaves_its_job_to_undo() {
    let t = TempTree::new();
    let home = t.dir("home");
    let older = t.file("older.txt", "copied first");
    ok(&ferry_in(&home)
        .arg("cp")
        .arg(&older)
        .arg(t.dir("copies"))
        .output()
        .unwrap());
    let (file, dest) = moved_by_the_cli_then_re_used(&t, &home);
    let out = ferry_in(&home)
        .args(["undo", "--on-conflict", "skip"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains("nothing was undone: every item was skipped"),
        "{said}"
    );
    assert_eq!(fs::read(&file).unwrap(), b"new");
    assert_eq!(fs::read(dest.join("report.txt")).unwrap(), b"moved away");
    let history = ok(&ferry_in(&home).arg("history").output().unwrap());
    assert!(!history.contains("undone"), "{history}");
    // Its place free again, the next undo takes the move back, not the older copy.
    fs::remove_file(&file).unwrap();
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_eq!(fs::read(&file).unwrap(), b"moved away");
    assert!(
        t.join("copies/older.txt").exists(),
        "the older job is left alone"
    );
}

/// The undo of a move whose item another program renamed since undid nothing; redo then ran
/// the move again, failed on every item, and wrote the record anew as a cancelled job that
/// did nothing. Redo is refused instead.
#[test]
fn no_redo_after_an_undo_that_undid_nothing() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let (_, moved) = moved_then_re_used(&t, &s);
    fs::rename(&moved, t.join("there/renamed.txt")).unwrap();
    let out = s.undo();
    assert!(out.summary.done.is_empty(), "{:#?}", out.summary);
    assert!(matches!(
        s.journal.redo_candidate(),
        Err(ferry_core::Error::RedoOfNothing { .. })
    ));
}

/// An undo that put an item back beside what had taken its place (keep both) cannot be
/// redone: replaying the move would take the file now at the job's path, someone else's.
/// Redo refuses and moves nothing. One that put it back over it (replace) put what it
/// replaced in the trash: the job's own file is at the job's path, and redo moves it again.
#[test]
fn no_redo_after_an_undo_that_put_items_back_beside_others() {
    for policy in ["keep-both", "replace"] {
        let t = TempTree::new();
        let home = t.dir("home");
        let (file, dest) = moved_by_the_cli_then_re_used(&t, &home);
        ok(&ferry_in(&home)
            .args(["undo", "--on-conflict", policy])
            .output()
            .unwrap());
        let out = ferry_in(&home).arg("redo").output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        if policy == "replace" {
            assert_eq!(out.status.code(), Some(0), "{policy}: {stderr}");
            assert_eq!(fs::read(dest.join("report.txt")).unwrap(), b"moved away");
            let listed = ok(&ferry_in(&home).arg("restore").output().unwrap());
            assert!(listed.contains(file.to_str().unwrap()), "{listed}");
            continue;
        }
        assert_eq!(out.status.code(), Some(2), "{policy}: {stderr}");
        assert!(
            stderr.contains("cannot redo the move"),
            "{policy}: {stderr}"
        );
        assert!(!dest.join("report.txt").exists(), "{policy}: nothing moved");
        assert_eq!(fs::read(&file).unwrap(), b"new");
        let back = t.join("here/report (copy).txt");
        assert_eq!(fs::read(back).unwrap(), b"moved away");
    }
}

/// A move across file systems that could not move one file of a folder (immutable) leaves the
/// folder where it was, holding that file: the undo puts what was moved back into it, down
/// the sub-folder left behind too, with no question, and removes the emptied copies. A folder
/// made at the place (and filled) after a move that left nothing is still a taken place.
#[test]
fn the_undo_of_a_partly_moved_folder_puts_back_into_what_it_left() {
    let t = TempTree::new();
    let home = t.dir("home");
    let tree = t.dir("here/tree");
    t.file("here/tree/a", "a");
    t.file("here/tree/sub/b", "b");
    let frozen = [
        t.file("here/tree/frozen", "frozen"),
        t.file("here/tree/sub/frozen", "frozen too"),
    ];
    let Some(pins) = frozen
        .iter()
        .map(|f| Immutable::set(f))
        .collect::<Option<Vec<_>>>()
    else {
        return;
    };
    let shm = TempTree::new_in("/dev/shm");
    let dest = shm.dir("dest");
    let moved = ferry_in(&home)
        .arg("mv")
        .arg(&tree)
        .arg(&dest)
        .output()
        .unwrap();
    assert_eq!(moved.status.code(), Some(1), "{moved:?}");
    assert!(!tree.join("a").exists() && dest.join("tree/sub/b").exists());

    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_eq!(fs::read(tree.join("a")).unwrap(), b"a");
    assert_eq!(fs::read(tree.join("sub/b")).unwrap(), b"b");
    for f in &frozen {
        assert!(f.exists(), "{}", f.display());
    }
    assert!(
        !dest.join("tree").exists(),
        "the emptied copies are removed"
    );
    drop(pins);

    let whole = t.file("there/whole/c", "c");
    let whole = whole.parent().unwrap();
    ok(&ferry_in(&home)
        .arg("mv")
        .arg(whole)
        .arg(&dest)
        .output()
        .unwrap());
    fs::create_dir(whole).unwrap();
    fs::write(whole.join("new"), "made since").unwrap();
    let out = ferry_in(&home).arg("undo").output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(dest.join("whole/c").exists());
    assert_no_temporaries(t.path());
}

/// An undo the free-space check stops before it puts anything back leaves its job to be
/// undone: once space is freed, `ferry undo` puts the item back.
#[test]
fn an_undo_stopped_for_want_of_space_can_be_tried_again() {
    let t = TempTree::new();
    let home = t.dir("home");
    let Some(small) = Mounted::new(&t.join("small"), &["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
    else {
        return;
    };
    let big = small.dir.join("s/big");
    fs::create_dir(big.parent().unwrap()).unwrap();
    fs::write(&big, vec![7u8; 600_000]).unwrap();
    let dest = t.dir("dest");
    ok(&ferry_in(&home)
        .arg("mv")
        .arg(big.parent().unwrap())
        .arg(&dest)
        .output()
        .unwrap());
    let filler = small.dir.join("filler");
    fs::write(&filler, vec![0u8; 700_000]).unwrap();
    let out = ferry_in(&home).arg("undo").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("not enough free space"), "{stderr}");

    fs::remove_file(&filler).unwrap();
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_eq!(fs::read(&big).unwrap().len(), 600_000);
    assert!(!dest.join("s").exists());
}

/// `mv old new`, then a new `old` with the user's files, then `undo --on-conflict replace`:
/// the folder is merged into (what is in the way inside goes to the trash), and a redo then
/// moved the user's later file away with the job's. An undo that put items into a folder
/// someone else made is no redo step.
#[test]
fn no_redo_after_an_undo_that_merged_into_a_folder_made_since() {
    let t = TempTree::new();
    let home = t.dir("home");
    let old = t.file("old/a", "A");
    let old = old.parent().unwrap().to_path_buf();
    let new = t.join("new");
    ok(&ferry_in(&home)
        .arg("mv")
        .arg(&old)
        .arg(&new)
        .output()
        .unwrap());
    t.file("old/a", "B");
    t.file("old/b", "later");
    ok(&ferry_in(&home)
        .args(["undo", "--on-conflict", "replace"])
        .output()
        .unwrap());
    assert_eq!(fs::read(old.join("a")).unwrap(), b"A");
    let redo = ferry_in(&home).arg("redo").output().unwrap();
    assert_ne!(redo.status.code(), Some(0), "{redo:?}");
    assert_eq!(
        fs::read(old.join("b")).unwrap(),
        b"later",
        "the user's file stays"
    );
}

/// An undo that ran out of inodes part way through putting a folder back: run again, it met
/// the folder it had begun as a place taken, and refused, though it had said "`ferry undo`
/// tries again". Run again once there is room, it goes on into that folder.
#[test]
fn an_undo_stopped_part_way_says_how_to_go_on() {
    let t = TempTree::new();
    let home = t.dir("home");
    let Some(small) = Mounted::tmpfs_inodes(&t.join("small"), "4m", 40) else {
        return;
    };
    let folder = small.dir.join("um");
    fs::create_dir(&folder).unwrap();
    for i in 0..30 {
        fs::write(folder.join(format!("f{i:02}")), format!("{i}")).unwrap();
    }
    let dest = t.dir("dest");
    ok(&ferry_in(&home)
        .arg("mv")
        .arg(&folder)
        .arg(&dest)
        .output()
        .unwrap());
    // Another program takes most of the inodes back.
    let fillers: Vec<PathBuf> = (0..24).map(|i| small.dir.join(format!("x{i}"))).collect();
    for f in &fillers {
        fs::write(f, "").unwrap();
    }
    // Past the check of free inodes before writing, as when they are taken meanwhile.
    let out = (ferry_in(&home).env("FERRY_FAULT_OFF", "inode-check"))
        .arg("undo")
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains("make room on it, then `ferry undo` goes on from where it stopped"),
        "{said}"
    );
    for f in &fillers {
        fs::remove_file(f).unwrap();
    }
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    for i in 0..30 {
        let back = fs::read_to_string(folder.join(format!("f{i:02}"))).unwrap();
        assert_eq!(back, format!("{i}"));
    }
    assert!(!dest.join("um").exists());
}

/// `ferry undo` while the newest job still runs refuses and names it, rather than undoing an
/// older job; once that job has finished, it is the one undone.
#[test]
fn undo_while_the_newest_job_runs_refuses_and_says_so() {
    let t = TempTree::new();
    let home = t.dir("home");
    let older = t.file("older.txt", "done before");
    let (dest, more) = (t.dir("dest"), t.dir("more"));
    ok(&ferry_in(&home)
        .arg("cp")
        .arg(&older)
        .arg(&dest)
        .output()
        .unwrap());
    let src = t.many_files("src", "f", 5, 10);
    let pause = Pause::at("item-done:2");
    let stderr = undo_while_copying(&pause, &home, &src, &more);
    assert!(stderr.contains(&*src.to_string_lossy()), "{stderr}");
    assert!(
        dest.join("older.txt").exists(),
        "the older job is not undone"
    );

    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert!(!more.join("src").exists() && dest.join("older.txt").exists());

    // With no job before it, the same, rather than "nothing to undo".
    undo_while_copying(&pause, &t.dir("alone"), &src, &more);
}

/// `ferry undo` while `ferry cp SRC DEST` is held at `pause`: refused as still running (its
/// stderr returned), the copy then let go and finished.
fn undo_while_copying(pause: &Pause, home: &Path, src: &Path, dest: &Path) -> String {
    let child = pause.start_held(ferry_in(home).arg("cp").arg(src).arg(dest));
    let out = ferry_in(home).arg("undo").output().unwrap();
    // Let the copy go on before anything can fail, so that no held process outlives the test.
    pause.release(child.id());
    assert!(child.wait_with_output().unwrap().status.success());
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("still running"), "{stderr}");
    stderr
}

/// A copy that only met a folder that was there and skipped everything in it did nothing: it
/// is no undo step, and `ferry undo` undoes the job before it.
#[test]
fn a_copy_that_only_merged_a_folder_is_no_undo_step() {
    let t = TempTree::new();
    let home = t.dir("home");
    let dest = t.dir("dest");
    let first = t.file("first.txt", "first");
    ok(&ferry_in(&home)
        .arg("cp")
        .arg(&first)
        .arg(&dest)
        .output()
        .unwrap());
    let dir = t.file("src/dir/f", "f");
    let dir = dir.parent().unwrap();
    t.file("dest/dir/f", "f, there before");
    ok(&ferry_in(&home)
        .arg("cp")
        .arg(dir)
        .arg(&dest)
        .output()
        .unwrap());
    let history = ok(&ferry_in(&home).arg("history").output().unwrap());
    assert!(history.contains("0 done, 1 skipped"), "{history}");
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert!(!dest.join("first.txt").exists(), "the job before is undone");
    assert_eq!(fs::read(dest.join("dir/f")).unwrap(), b"f, there before");
}

/// A copy, or a move across file systems, cancelled midway (Ctrl-C) had made folders it had
/// not filled yet: its undo takes them away too, rather than keep the whole copy as changed
/// since (the copy) or meet them as taken places (the move). The copy's destination is as it
/// was, and the move's source whole again.
#[test]
fn the_undo_of_a_job_cancelled_midway_takes_the_folders_it_made() {
    let t = TempTree::new();
    let shm = TempTree::new_in("/dev/shm");
    let home = t.dir("home");
    // Enough that the job thread, which hands files to the workers a batch at a time, has
    // not entered the later folders when the third file is done.
    for d in 0..8 {
        for i in 0..200 {
            t.file(format!("src/d{d}/f{i}"), format!("{d}{i}"));
        }
    }
    let src = t.join("src");
    let files = |root: &Path| -> Vec<(PathBuf, Vec<u8>)> {
        let mut all: Vec<_> = crate::jobs_support::snapshot(root)
            .into_iter()
            .map(|(rel, node)| match node {
                crate::jobs_support::Node::File { data, .. } => (rel, data),
                _ => (rel, Vec::new()),
            })
            .collect();
        all.sort();
        all
    };
    let before = files(&src);
    for (op, dest) in [("cp", t.dir("dest")), ("mv", shm.dir("dest"))] {
        let pause = Pause::at("item-done:3");
        let child = pause.start_held(ferry_in(&home).arg(op).arg(&src).arg(&dest));
        let pid = child.id().to_string();
        assert!(
            Command::new("kill")
                .args(["-INT", &pid])
                .status()
                .unwrap()
                .success()
        );
        pause.release(child.id());
        let out = child.wait_with_output().unwrap();
        // Ended by the signal, as `cp` ends: a shell sees 130.
        let signal = std::os::unix::process::ExitStatusExt::signal(&out.status);
        assert_eq!(signal, Some(2), "{op}: {out:?}");
        ok(&ferry_in(&home).arg("undo").output().unwrap());
        assert_eq!(fs::read_dir(&dest).unwrap().count(), 0, "{op}");
        assert_eq!(files(&src), before, "{op}");
    }
}

/// The undo of a move puts an item back into the folder it came from, not through a
/// symbolic link put in that folder's place since (someone who may write on the way would
/// steer it anywhere): refused, naming the link, and the item stays. A folder made again in
/// its place, or a path that led through a link at the time of the move, takes it back.
#[test]
fn the_undo_of_a_move_does_not_put_back_through_a_link_swapped_in() {
    let t = TempTree::new();
    let home = t.dir("home");
    let report = t.file("proj/report.txt", "secret");
    let (archive, elsewhere) = (t.dir("archive"), t.dir("elsewhere"));
    let ferry = |args: &[&std::ffi::OsStr]| ferry_in(&home).args(args).output().unwrap();
    ok(&ferry(&[
        "mv".as_ref(),
        report.as_os_str(),
        archive.as_os_str(),
    ]));
    fs::remove_dir(t.join("proj")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, t.join("proj")).unwrap();
    let out = ferry(&["undo".as_ref()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("is a symbolic link"), "{stderr}");
    assert_eq!(
        fs::read_dir(&elsewhere).unwrap().count(),
        0,
        "nothing through the link"
    );
    assert!(archive.join("report.txt").exists());

    fs::remove_file(t.join("proj")).unwrap();
    fs::create_dir(t.join("proj")).unwrap();
    ok(&ferry(&["undo".as_ref()]));
    assert_eq!(
        fs::read(&report).unwrap(),
        b"secret",
        "into the folder made again"
    );

    let real = t.dir("real");
    std::os::unix::fs::symlink(&real, t.join("lnk")).unwrap();
    let via_link = t.file("lnk/f", "f");
    ok(&ferry(&[
        "mv".as_ref(),
        via_link.as_os_str(),
        archive.as_os_str(),
    ]));
    ok(&ferry(&["undo".as_ref()]));
    assert_eq!(
        fs::read(real.join("f")).unwrap(),
        b"f",
        "the link was there at the move"
    );

    // Through that link: one item refused while a link stands for its folder, the other
    // put back; run again once the folder is made again, the first goes back too, and the
    // second, back already, is no failure.
    let (x, y) = (t.file("real/d/x", "x"), t.file("real/y", "y"));
    let (via_x, via_y) = (t.join("lnk/d/x"), t.join("lnk/y"));
    ok(&ferry(&[
        "mv".as_ref(),
        via_x.as_os_str(),
        via_y.as_os_str(),
        archive.as_os_str(),
    ]));
    // (Kept aside, so that the folder made again has another inode.)
    fs::rename(real.join("d"), real.join("d.old")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, real.join("d")).unwrap();
    assert_eq!(ferry(&["undo".as_ref()]).status.code(), Some(1));
    assert!(y.exists() && !x.exists());
    fs::remove_file(real.join("d")).unwrap();
    fs::create_dir(real.join("d")).unwrap();
    let again = ferry(&["undo".as_ref()]);
    ok(&again);
    assert!(
        !String::from_utf8_lossy(&again.stderr).contains("no longer there"),
        "{again:?}"
    );
    assert_eq!(fs::read(&x).unwrap(), b"x");
}

/// A folder moved onto one of its name, answered Merge and then Replace for a file inside,
/// is gone from where it was once everything in it went (it stayed, empty); its undo makes
/// it again and puts back both files.
#[test]
fn a_moved_folder_merged_by_answers_leaves_no_empty_source_and_undoes() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    t.file("w/A/inA.txt", "a");
    t.file("w/B/A/other.txt", "o");
    t.file("w/B/A/inA.txt", "old");
    let job = Job::Move {
        sources: vec![t.join("w/A")],
        dest_dir: t.join("w/B"),
        dest_name: None,
        on_conflict: ferry_core::jobs::ConflictPolicy::Ask,
    };
    let seq = s.journal.begin(&job).unwrap().unwrap();
    let staging = ferry_core::jobs::StagingRoots {
        home: Some(s.staging.clone()),
        volumes: false,
    };
    let (out, _) = crate::jobs_conflicts::run_asking_with(staging, job, |c| {
        Some(match c.kind {
            ConflictKind::FolderExists => (Resolution::Merge, Scope::This),
            _ => (Resolution::Replace, Scope::This),
        })
    });
    s.journal.finish(seq, &out.summary, out.cancelled).unwrap();
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(fs::read(t.join("w/B/A/inA.txt")).unwrap(), b"a");
    assert!(
        !t.join("w/A").exists(),
        "the emptied source folder is removed"
    );

    let undone = s.undo();
    assert!(undone.summary.is_complete(), "{:#?}", undone.summary);
    assert_eq!(fs::read(t.join("w/A/inA.txt")).unwrap(), b"a");
    assert_eq!(fs::read(t.join("w/B/A/inA.txt")).unwrap(), b"old");
    assert!(t.join("w/B/A/other.txt").exists());
}

/// The undo of a copy whose disk filled up since cannot trash the copies there (the trash
/// takes room too): it said "`ferry undo` tries again", which fails alike every time.
#[test]
fn an_undo_on_a_full_disk_says_to_make_room() {
    let t = TempTree::new();
    let home = t.dir("home");
    let Some(disk) = Mounted::tmpfs(&t.join("disk"), "4m") else {
        return;
    };
    let file = t.file("big", vec![7u8; 1 << 20]);
    ok(&ferry_in(&home)
        .arg("cp")
        .arg(&file)
        .arg(&disk.dir)
        .output()
        .unwrap());
    // Another program fills the disk.
    let mut hog = 0;
    while fs::write(disk.dir.join(format!("hog{hog}")), vec![0u8; 64 << 10]).is_ok() {
        hog += 1;
    }
    let out = ferry_in(&home).arg("undo").output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("the disk is full: make room on it"), "{said}");
    assert!(!said.contains("`ferry undo` tries again"), "{said}");
    assert!(disk.dir.join("big").exists());
}
