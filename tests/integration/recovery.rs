//! Crash recovery of the jobs that keep no per-item record until they finish (trash,
//! restore, rename), and of parts whose record falls past the journal's bound. A crash is
//! simulated as in `undo.rs`: the job is journaled as begun by a process that died, part of
//! its work is done by hand (or by an unjournaled run of the same job), then the record is
//! resumed or rolled back.

use std::fs;
use std::path::{Path, PathBuf};

use ferry_core::jobs::{
    ConflictPolicy, Job, RecordState, Summary, TrashRoots, TrashedItem, UndoJournal, list_trash_in,
};
use ferry_tests::TempTree;

use crate::jobs_support::{Outcome, assert_no_temporaries, run_job, snapshot};

/// A journal and a home trash of their own, outside the trees the tests work on.
struct Setup {
    journal: UndoJournal,
    trash: TrashRoots,
}

impl Setup {
    fn new(t: &TempTree) -> Setup {
        Setup {
            journal: UndoJournal::at(t.join("state/ferry/journal.jsonl")),
            trash: TrashRoots::home_only(t.join("data/Trash")),
        }
    }

    /// Journals `job` as begun by a process that died (pid 0 never runs), as after a crash.
    fn begun_by_a_dead_process(&self, job: &Job) {
        self.journal.begin(job).unwrap().unwrap();
        let text = fs::read_to_string(self.journal.path()).unwrap();
        let mine = format!("\"pid\":{}", std::process::id());
        fs::write(self.journal.path(), text.replace(&mine, "\"pid\":0")).unwrap();
    }

    /// The one interrupted record.
    fn interrupted(&self) -> Box<ferry_core::jobs::JournalRecord> {
        let mut found = self.journal.recover().unwrap();
        assert_eq!(found.len(), 1, "{found:#?}");
        Box::new(found.remove(0))
    }

    /// Undoes the newest record (rolls back an interrupted one) and journals it.
    fn undo(&self) -> Outcome {
        let record = self.journal.undo_candidate().unwrap().unwrap();
        let seq = record.seq;
        let out = run_job(Job::Undo {
            record: Box::new(record),
            trash: self.trash.clone(),
            on_conflict: ConflictPolicy::Skip,
        });
        self.journal.mark_undone(seq, &out.summary).unwrap();
        out
    }

    /// Resumes the interrupted record and journals it, as `ferry resume` does.
    fn resume(&self) -> Outcome {
        let record = self.interrupted();
        let seq = record.seq;
        self.journal.resume(seq, &record.job).unwrap();
        let out = run_job(Job::Resume { record });
        self.journal
            .finish(seq, &out.summary, out.cancelled)
            .unwrap();
        out
    }

    fn listed(&self) -> Vec<TrashedItem> {
        list_trash_in(&self.trash).unwrap()
    }

    /// Entries of the trash's `files/` and `info/` folders.
    fn entries(&self) -> usize {
        ["files", "info"]
            .iter()
            .map(|sub| fs::read_dir(self.trash.home.join(sub)).map_or(0, |d| d.count()))
            .sum()
    }
}

fn trash_job(paths: &[PathBuf], roots: &TrashRoots) -> Job {
    Job::Trash {
        paths: paths.to_vec(),
        roots: roots.clone(),
    }
}

fn restore_job(items: Vec<TrashedItem>) -> Job {
    Job::Restore {
        items,
        on_conflict: ConflictPolicy::Skip,
    }
}

/// Writes a trash entry by hand, as trashed at `date` (`YYYY-MM-DDThh:mm:ss`).
fn old_trash_entry(trash: &Path, original: &Path, date: &str) {
    let name = original.file_name().unwrap();
    fs::create_dir_all(trash.join("files")).unwrap();
    fs::create_dir_all(trash.join("info")).unwrap();
    fs::write(trash.join("files").join(name), "trashed long ago").unwrap();
    let mut info = name.to_owned();
    info.push(".trashinfo");
    let body = format!(
        "[Trash Info]\nPath={}\nDeletionDate={date}\n",
        original.display()
    );
    fs::write(trash.join("info").join(info), body).unwrap();
}

fn originals(items: &[TrashedItem]) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = items.iter().map(|i| i.original.clone()).collect();
    paths.sort();
    paths
}

fn failed_paths(summary: &Summary) -> Vec<PathBuf> {
    summary.failed.iter().map(|f| f.path.clone()).collect()
}

#[test]
fn an_interrupted_trash_rolls_back_what_it_trashed_and_nothing_older() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let paths = [t.file("w/a", "a"), t.file("w/b", "b"), t.join("w/c")];
    t.file("w/d/inside", "d");
    let paths = [
        paths[0].clone(),
        paths[1].clone(),
        t.join("w/d"),
        paths[2].clone(),
    ];
    // Trashed before the job began: not the job's to give back.
    old_trash_entry(&s.trash.home, &paths[3], "2020-01-02T03:04:05");
    s.begun_by_a_dead_process(&trash_job(&paths, &s.trash));
    // The dead job trashed a, b and d; b's name was taken again since.
    let part = run_job(trash_job(&paths[..3], &s.trash));
    assert!(part.summary.is_complete(), "{:#?}", part.summary);
    t.file("w/b", "a new b");

    let out = s.undo();
    assert_eq!(fs::read(&paths[0]).unwrap(), b"a");
    assert_eq!(fs::read(paths[2].join("inside")).unwrap(), b"d");
    // Never over a taken name: the new b stays, the trashed b stays in the trash, reported.
    assert_eq!(fs::read(&paths[1]).unwrap(), b"a new b");
    let reported = out.summary.skipped.iter().map(|s| &s.path);
    let reported: Vec<&PathBuf> = reported
        .chain(out.summary.failed.iter().map(|f| &f.path))
        .collect();
    assert!(
        reported.iter().any(|p| p.ends_with("b")),
        "{:#?}",
        out.summary
    );
    assert_eq!(originals(&s.listed()), [paths[1].clone(), paths[3].clone()]);
    assert!(
        !paths[3].exists(),
        "an older trash entry stays in the trash"
    );
}

#[test]
fn an_interrupted_trash_resumes_and_its_undo_then_restores_everything() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let paths = [t.file("w/a", "a"), t.file("w/b", "b"), t.file("w/c", "c")];
    let before = snapshot(&t.join("w"));
    s.begun_by_a_dead_process(&trash_job(&paths, &s.trash));
    assert!(
        run_job(trash_job(&paths[..2], &s.trash))
            .summary
            .is_complete()
    );

    let out = s.resume();
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(out.summary.done.len(), 3);
    assert_eq!(
        out.summary.items_done, 3,
        "the two trashed before count too"
    );
    assert_eq!(out.summary.trash.len(), 3, "the record covers both runs");
    assert!(paths.iter().all(|p| !p.exists()));
    assert_eq!(s.listed().len(), 3);

    let undone = s.undo();
    assert!(undone.summary.is_complete(), "{:#?}", undone.summary);
    assert_eq!(snapshot(&t.join("w")), before);
    assert_eq!(s.entries(), 0, "nothing left in the trash");
}

/// Killed between writing an item's info file and moving the item, a trash job left an
/// info file describing nothing, which resume and undo kept (other tools list it as an item
/// that cannot be restored). Both remove it.
#[test]
fn an_info_file_a_killed_trash_wrote_for_an_item_it_never_moved_goes() {
    for roll_back in [false, true] {
        let t = TempTree::new();
        let s = Setup::new(&t);
        let paths = [t.file("w/a", "a"), t.file("w/b", "b"), t.file("w/c", "c")];
        s.begun_by_a_dead_process(&trash_job(&paths, &s.trash));
        assert!(
            run_job(trash_job(&paths[..1], &s.trash))
                .summary
                .is_complete()
        );
        // Its info file written, `b` was not moved yet (dated as `a`, trashed a moment
        // before by the same job).
        let a_info = fs::read_to_string(s.trash.home.join("info/a.trashinfo")).unwrap();
        let when = a_info
            .lines()
            .find_map(|l| l.strip_prefix("DeletionDate="))
            .unwrap();
        let body = format!(
            "[Trash Info]\nPath={}\nDeletionDate={when}\n",
            paths[1].display()
        );
        fs::write(s.trash.home.join("info/b.trashinfo"), body).unwrap();
        // And `c`'s made, killed before a byte of it was written.
        fs::write(s.trash.home.join("info/c.trashinfo"), "").unwrap();
        let out = if roll_back { s.undo() } else { s.resume() };
        assert!(out.summary.is_complete(), "{:#?}", out.summary);
        let infos: Vec<_> = fs::read_dir(s.trash.home.join("info")).unwrap().collect();
        let files: Vec<_> = fs::read_dir(s.trash.home.join("files")).unwrap().collect();
        assert_eq!(infos.len(), files.len(), "{infos:?} for {files:?}");
        assert_eq!(paths[1].exists(), roll_back);
        assert_eq!(paths[2].exists(), roll_back);
    }
}

/// Trashes `paths` (not journaled) and returns the trash listing.
fn trashed(s: &Setup, paths: &[PathBuf]) -> Vec<TrashedItem> {
    assert!(run_job(trash_job(paths, &s.trash)).summary.is_complete());
    s.listed()
}

/// The trashed `item` as if it had been at `original` (its info file rewritten: a folder on
/// another file system whose items went to this trash).
fn moved_to(s: &Setup, item: &TrashedItem, original: &Path) -> Vec<TrashedItem> {
    let body = format!("[Trash Info]\nPath={}\n", original.display());
    fs::write(&item.info, body).unwrap();
    s.listed()
}

#[test]
fn an_interrupted_restore_puts_back_in_the_trash_what_it_restored() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let paths = [
        t.file("w/x", "x"),
        t.file("w/y/inner", "y"),
        t.file("w/z", "z"),
    ];
    let paths = [paths[0].clone(), t.join("w/y"), paths[2].clone()];
    let items = trashed(&s, &paths);
    s.begun_by_a_dead_process(&restore_job(items.clone()));
    // The dead job restored x and y (and removed their info files).
    let by_hand: Vec<TrashedItem> = items
        .iter()
        .filter(|i| !i.original.ends_with("z"))
        .cloned()
        .collect();
    assert!(run_job(restore_job(by_hand)).summary.is_complete());
    assert!(paths[0].exists() && paths[1].exists());
    assert_eq!(s.interrupted().state, RecordState::Interrupted);

    let out = s.undo();
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert!(
        paths.iter().all(|p| !p.exists()),
        "all three are in the trash"
    );
    assert_eq!(originals(&s.listed()), {
        let mut p = paths.to_vec();
        p.sort();
        p
    });
    assert_eq!(
        s.entries(),
        6,
        "three items with one info file each, none stale"
    );
}

#[test]
fn an_interrupted_restore_resumes_and_its_undo_trashes_everything_again() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let paths = [t.file("w/x", "x"), t.file("w/y", "y")];
    let before = snapshot(&t.join("w"));
    let items = trashed(&s, &paths);
    s.begun_by_a_dead_process(&restore_job(items.clone()));
    assert!(
        run_job(restore_job(items[..1].to_vec()))
            .summary
            .is_complete()
    );

    let out = s.resume();
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(out.summary.trash.len(), 2, "the record covers both runs");
    assert_eq!(snapshot(&t.join("w")), before);
    assert_eq!(s.entries(), 0);

    let undone = s.undo();
    assert!(undone.summary.is_complete(), "{:#?}", undone.summary);
    assert!(paths.iter().all(|p| !p.exists()));
    assert_eq!(s.listed().len(), 2);
}

/// A folder trashed from the work tree whose original place is now on tmpfs, so that its
/// restore crosses file systems, and what a restore killed midway leaves there: `keep` copied
/// whole (with its mtime, as the copier leaves it), `late` not yet, and the folder still
/// without its times.
fn a_half_restored_folder(s: &Setup, t: &TempTree, shm: &TempTree) -> (Vec<TrashedItem>, PathBuf) {
    t.file("w/place/dir/keep", "kept");
    t.file("w/place/dir/late", "late");
    let items = trashed(s, &[t.join("w/place/dir")]);
    let items = moved_to(s, &items[0], &shm.join("place/dir"));
    fs::create_dir(shm.join("place")).unwrap();
    s.begun_by_a_dead_process(&restore_job(items.clone()));
    let copy = shm.join("place/dir");
    fs::create_dir(&copy).unwrap();
    let keep = items[0].file.join("keep");
    fs::copy(&keep, copy.join("keep")).unwrap();
    let mtime = fs::metadata(&keep).unwrap().modified().unwrap();
    let f = fs::File::options()
        .write(true)
        .open(copy.join("keep"))
        .unwrap();
    f.set_modified(mtime).unwrap();
    (items, copy)
}

#[test]
fn a_restore_across_file_systems_killed_midway_resumes_by_merging() {
    let (t, shm) = (TempTree::new(), TempTree::new_in("/dev/shm"));
    let s = Setup::new(&t);
    let (_, copy) = a_half_restored_folder(&s, &t, &shm);

    let out = s.resume();
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(fs::read(copy.join("keep")).unwrap(), b"kept");
    assert_eq!(fs::read(copy.join("late")).unwrap(), b"late");
    assert_eq!(
        s.entries(),
        0,
        "the trashed copy and its info file are gone"
    );
    assert_no_temporaries(shm.path());
}

#[test]
fn a_restore_across_file_systems_killed_midway_rolls_back_keeping_the_trashed_item() {
    let (t, shm) = (TempTree::new(), TempTree::new_in("/dev/shm"));
    let s = Setup::new(&t);
    let (items, copy) = a_half_restored_folder(&s, &t, &shm);

    let out = s.undo();
    assert!(out.summary.failed.is_empty(), "{:#?}", out.summary);
    // The trashed folder is whole where it was; the partial copy left its place.
    assert_eq!(fs::read(items[0].file.join("keep")).unwrap(), b"kept");
    assert_eq!(fs::read(items[0].file.join("late")).unwrap(), b"late");
    assert!(items[0].info.exists());
    assert!(!copy.exists(), "{:?}", snapshot(&shm.join("place")));
}

#[test]
fn a_restore_killed_when_its_place_was_taken_leaves_that_place_alone() {
    let (t, shm) = (TempTree::new(), TempTree::new_in("/dev/shm"));
    let s = Setup::new(&t);
    t.file("w/place/dir/keep", "kept");
    let items = trashed(&s, &[t.join("w/place/dir")]);
    let items = moved_to(&s, &items[0], &shm.join("dir"));
    // The user's own folder of that name, holding a file like the trashed one.
    shm.file("dir/mine", "mine");
    let keep = items[0].file.join("keep");
    fs::copy(&keep, shm.join("dir/keep")).unwrap();
    let mtime = fs::metadata(&keep).unwrap().modified().unwrap();
    let f = fs::File::options()
        .write(true)
        .open(shm.join("dir/keep"))
        .unwrap();
    f.set_modified(mtime).unwrap();
    let before = (snapshot(shm.path()), snapshot(&s.trash.home));

    // Under Skip the job never wrote there: neither a roll back nor a resume touches it.
    s.begun_by_a_dead_process(&restore_job(items.clone()));
    let out = s.undo();
    assert!(out.summary.failed.is_empty(), "{:#?}", out.summary);
    assert_eq!((snapshot(shm.path()), snapshot(&s.trash.home)), before);
    s.begun_by_a_dead_process(&restore_job(items));
    let out = s.resume();
    assert!(out.summary.failed.is_empty(), "{:#?}", out.summary);
    assert_eq!(out.summary.skipped.len(), 1, "{:#?}", out.summary);
    assert_eq!((snapshot(shm.path()), snapshot(&s.trash.home)), before);
}

#[test]
fn an_interrupted_rename_rolls_back_or_resumes() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let old = t.file("old.txt", "x");
    let new = t.join("new.txt");
    let rename = Job::Rename {
        path: old.clone(),
        new_name: "new.txt".into(),
    };
    // Killed after the rename: roll back renames back.
    s.begun_by_a_dead_process(&rename);
    fs::rename(&old, &new).unwrap();
    let out = s.undo();
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert!(old.exists() && !new.exists());
    // Killed before it: resume renames.
    s.begun_by_a_dead_process(&rename);
    let out = s.resume();
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert!(!old.exists() && new.exists());
    // Rolling back never renames over anything.
    s.begun_by_a_dead_process(&rename);
    t.file("old.txt", "taken again");
    let out = s.undo();
    assert!(failed_paths(&out.summary).is_empty(), "{:#?}", out.summary);
    assert_eq!(fs::read(&old).unwrap(), b"taken again");
    assert_eq!(fs::read(&new).unwrap(), b"x");
}

/// A job still running, or interrupted and not yet resumed or rolled back, is known only from
/// its record: the log dropped them once 3 x its bound of records came after them, and with
/// them the only trace of a Replace's staged old file (a user's file lost a week later) or
/// of a running job (finished, it could never be undone).
#[test]
fn an_interrupted_record_and_a_running_one_outlive_compaction() {
    let t = TempTree::new();
    let journal = UndoJournal::at(t.join("state/journal.jsonl")).with_limit(2);
    let s = Setup {
        journal: journal.clone(),
        trash: TrashRoots::home_only(t.join("data/Trash")),
    };
    let src = t.file("src/big", "a large file, supposedly");
    let dest = t.dir("dest");
    let copy = Job::Copy {
        sources: vec![src],
        dest_dir: dest,
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    };
    s.begun_by_a_dead_process(&copy);
    let part = t.file("dest/.ferry-part-1-0123456789abcdef", "half");
    let running = journal.begin(&copy).unwrap().unwrap();
    let finished_job = |i| {
        let job = Job::CreateFolder {
            parent: t.path().to_path_buf(),
            name: format!("d{i}").into(),
        };
        let seq = journal.begin(&job).unwrap().unwrap();
        journal.finish(seq, &run_job(job).summary, false).unwrap();
    };
    for i in 0..8 {
        finished_job(i);
    }
    let states = |journal: &UndoJournal| -> Vec<(u64, RecordState)> {
        journal
            .records()
            .unwrap()
            .iter()
            .map(|r| (r.seq, r.state))
            .collect()
    };
    assert_eq!(
        states(&journal),
        [
            (1, RecordState::Interrupted),
            (2, RecordState::Running),
            (9, RecordState::Finished),
            (10, RecordState::Finished)
        ]
    );
    let text = fs::read_to_string(journal.path()).unwrap();
    assert!(
        !text.contains("\"seq\":3,"),
        "a finished record past the bound goes"
    );
    assert!(part.exists(), "kept for the resume");
    // The running job ends and is undone like any other; the interrupted one resumes.
    let out = run_job(copy);
    journal.finish(running, &out.summary, false).unwrap();
    assert_eq!(journal.undo_candidate().unwrap().unwrap().seq, 10);
    assert!(
        journal
            .records()
            .unwrap()
            .iter()
            .any(|r| r.seq == 2 && r.state == RecordState::Finished)
    );
    let out = s.resume();
    assert!(out.summary.failed.is_empty(), "{:#?}", out.summary);
    // Once resolved, they go at the next compaction.
    for i in 8..16 {
        finished_job(i);
    }
    let seqs: Vec<u64> = states(&journal).iter().map(|r| r.0).collect();
    assert_eq!(seqs, [17, 18]);
}

/// A copy that asks about conflicts (the window's), resumed after a crash, goes on into the
/// folder it made itself: it asked about it as an existing folder, and answered Skip left it
/// half copied and recorded as done.
#[test]
fn a_resumed_copy_that_asks_goes_on_into_the_folder_it_made() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let src = t.dir("src/docs");
    for i in 0..20 {
        t.file(format!("src/docs/sub/f{i}"), format!("file {i}"));
    }
    let dest = t.dir("dest");
    let job = Job::Copy {
        sources: vec![src.clone()],
        dest_dir: dest.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Ask,
    };
    s.begun_by_a_dead_process(&job);
    // What it did before it died: its folder, and part of what it holds.
    fs::create_dir_all(dest.join("docs/sub")).unwrap();
    for i in 0..5 {
        let (from, to) = (
            src.join(format!("sub/f{i}")),
            dest.join(format!("docs/sub/f{i}")),
        );
        fs::copy(&from, &to).unwrap();
        let modified = fs::metadata(&from).unwrap().modified().unwrap();
        fs::File::options()
            .write(true)
            .open(&to)
            .unwrap()
            .set_modified(modified)
            .unwrap();
    }
    let record = s.interrupted();
    s.journal.resume(record.seq, &record.job).unwrap();
    let (engine, events) = ferry_core::jobs::Engine::start();
    let id = engine.submit(Job::Resume { record });
    for event in events.iter() {
        match event {
            ferry_core::jobs::Event::Conflicts { conflicts, .. } => {
                panic!("asked about its own folder: {conflicts:#?}")
            }
            ferry_core::jobs::Event::Finished { job, summary } if job == id => {
                assert!(summary.failed.is_empty(), "{summary:#?}");
                break;
            }
            _ => {}
        }
    }
    assert_eq!(snapshot(&dest.join("docs")), snapshot(&src));
}

/// A move into a folder of the same name, killed, then rolled back: a file saved into that
/// folder since (after the crash) is the user's and stays, as the files there before do.
/// Taken for one the job had moved there, it went to the source folder.
#[test]
fn rolling_back_a_merge_leaves_a_file_saved_there_since() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    t.file("src/top/a.jpg", "moved");
    t.file("src/top/b.jpg", "not reached");
    let old = t.file("Pictures/top/old.jpg", "there before");
    // Before the job by more than a tick of the coarse clock its start is read from.
    std::thread::sleep(std::time::Duration::from_millis(100));
    s.begun_by_a_dead_process(&Job::Move {
        sources: vec![t.join("src/top")],
        dest_dir: t.join("Pictures"),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    // What the killed run did: one file renamed in.
    fs::rename(t.join("src/top/a.jpg"), t.join("Pictures/top/a.jpg")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(100));
    let later = t.file("Pictures/top/later.jpg", "saved after the crash");
    if fs::metadata(&later).and_then(|m| m.created()).is_err() {
        eprintln!("skipped: this file system keeps no birth times");
        return;
    }
    let out = s.undo();
    assert!(out.summary.failed.is_empty(), "{:#?}", out.summary);
    assert_eq!(fs::read(t.join("src/top/a.jpg")).unwrap(), b"moved");
    assert!(later.exists(), "the user's new file stays");
    assert!(!t.join("src/top/later.jpg").exists());
    assert!(old.exists());
}

/// A move killed as it ended, then the user made one source anew (an empty document saved
/// under the old name, say), then `ferry undo`: the moved item's place is taken. It is a
/// conflict, as in the undo of a finished move: without a terminal to ask on, skipped and
/// named (exit 1), and the next `ferry undo --on-conflict keep-both` puts it back beside the
/// new one. The roll back left it in the destination, said nothing and exited 0.
#[test]
fn rolling_back_a_move_whose_source_was_made_anew_says_so_and_can_keep_both() {
    for across in [false, true] {
        let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
        let home = t.dir("home");
        let (f1, f2) = (t.file("src/f1", "moved one"), t.file("src/f2", "moved two"));
        let dest = if across { shm.dir("dst") } else { t.dir("dst") };
        let killed = crate::ferry_in(&home)
            .env("FERRY_FAULT_POINT", "job-ended")
            .arg("mv")
            .args([&f1, &f2])
            .arg(&dest)
            .output()
            .unwrap();
        assert_eq!(killed.status.code(), None, "across {across}: killed");
        // Surely after the job started, by more than a tick of the coarse clock.
        std::thread::sleep(std::time::Duration::from_millis(100));
        fs::write(&f1, "made anew").unwrap();

        let said = undo_without_a_terminal(&home, Some(1));
        assert!(
            said.contains(&dest.join("f1").display().to_string()),
            "{said}"
        );
        assert_eq!(fs::read(&f1).unwrap(), b"made anew");
        assert_eq!(fs::read(&f2).unwrap(), b"moved two");
        assert_eq!(fs::read(dest.join("f1")).unwrap(), b"moved one");

        let out = crate::ferry_in(&home)
            .args(["undo", "--on-conflict", "keep-both"])
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "across {across}: {said}");
        assert_eq!(fs::read(t.join("src/f1 (copy)")).unwrap(), b"moved one");
        assert_eq!(fs::read(&f1).unwrap(), b"made anew");
        assert_eq!(fs::read_dir(&dest).unwrap().count(), 0, "across {across}");
    }
}

/// A move of a folder across disks killed while removing its sources, then a moved file's
/// name taken anew at the source, then `ferry undo`: the copies go to the trash and the rest
/// comes back, but the folder there is not trashed whole, since the file that could not go
/// back is still in it. Whole, it went to the trash with the copies while the undo said the
/// file was left for another undo.
#[test]
fn a_file_that_cannot_go_back_keeps_its_folder_from_the_trash() {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    for i in 0..10 {
        t.file(format!("big/f{i}"), format!("moved {i}"));
    }
    let dest = shm.dir("dst");
    let killed = crate::ferry_in(&home)
        .env("FERRY_FAULT_POINT", "source-checked:5")
        .arg("mv")
        .arg(t.join("big"))
        .arg(&dest)
        .output()
        .unwrap();
    assert_eq!(killed.status.code(), None, "killed");
    let gone = (0..10)
        .map(|i| format!("f{i}"))
        .find(|name| !t.join("big").join(name).exists())
        .expect("a source removed");
    std::thread::sleep(std::time::Duration::from_millis(100));
    t.file(format!("big/{gone}"), "made anew");

    let said = undo_without_a_terminal(&home, Some(1));
    let left = dest.join("big").join(&gone);
    assert_eq!(
        fs::read(&left).unwrap(),
        format!("moved {}", &gone[1..]).as_bytes(),
        "{said}"
    );
    assert_eq!(fs::read(t.join("big").join(&gone)).unwrap(), b"made anew");
    for i in 0..10 {
        let name = format!("f{i}");
        if name != gone {
            assert_eq!(
                fs::read(t.join("big").join(&name)).unwrap(),
                format!("moved {i}").as_bytes()
            );
        }
    }
}

/// `ferry undo` of the user whose home is `home`, with no terminal to ask on: what it said,
/// once its exit status is checked to be `code`.
fn undo_without_a_terminal(home: &Path, code: Option<i32>) -> String {
    let out = crate::ferry_in(home)
        .arg("undo")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), code, "{said}");
    said
}
