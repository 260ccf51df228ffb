//! Undo and redo of each kind of job and the persistent journal: through the engine with a journal
//! and trash in temporary folders, and through `ferry` processes whose HOME, XDG_STATE_HOME
//! and XDG_DATA_HOME point at temporary folders (never the user's journal or trash).
//! Crash recovery is in `undo_crash`, random sequences of jobs in `undo_random`, the undo of
//! a Replace in `undo_replace`, places taken since in `undo_conflicts`.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use ferry_core::Error;
use ferry_core::jobs::{
    Conflict, ConflictPolicy, Job, RecordState, Resolution, Scope, StagingRoots, TrashRoots,
    UndoJournal,
};
use ferry_tests::TempTree;

use crate::ferry_in;
use crate::jobs_conflicts::run_asking_with;
use crate::jobs_copy::sample_tree;
use crate::jobs_support::{
    Mounted, Outcome, assert_no_temporaries, deep_chain, run_job, run_job_staged, set_mtime,
    snapshot,
};
use rustix::fs::{Mode, OFlags};

/// A journal, a trash and a staging folder of their own, outside the trees the tests work on.
pub(crate) struct Setup {
    pub(crate) journal: UndoJournal,
    pub(crate) trash: TrashRoots,
    pub(crate) staging: PathBuf,
}

impl Setup {
    pub(crate) fn new(t: &TempTree) -> Setup {
        Setup {
            journal: UndoJournal::at(t.join("state/ferry/journal.jsonl")),
            trash: TrashRoots::home_only(t.join("data/Trash")),
            staging: t.join("data/ferry/replaced"),
        }
    }

    /// Runs `job` and journals it, as the window and the command line do.
    pub(crate) fn run(&self, job: Job) -> Outcome {
        let seq = self.journal.begin(&job).unwrap();
        let out = run_job_staged(job, &self.staging);
        if let Some(seq) = seq {
            self.journal
                .finish(seq, &out.summary, out.cancelled)
                .unwrap();
        }
        out
    }

    /// `dest/doc.bin` of `t`, "the old version", replaced by a copy of "the new version".
    pub(crate) fn replaced_doc(&self, t: &TempTree) -> PathBuf {
        let new = t.file("src/doc.bin", "the new version");
        let old = t.file("dest/doc.bin", "the old version");
        let out = self.replace_in_dest(t, new);
        assert!(out.summary.is_complete(), "{:#?}", out.summary);
        old
    }

    /// Copies `new` into the folder `dest` of `t`, replacing what has its name there.
    pub(crate) fn replace_in_dest(&self, t: &TempTree, new: PathBuf) -> Outcome {
        self.run(Job::Copy {
            sources: vec![new],
            dest_dir: t.join("dest"),
            dest_name: None,
            on_conflict: ConflictPolicy::Replace,
        })
    }

    pub(crate) fn undo(&self) -> Outcome {
        let (seq, out) = self.undo_unmarked();
        self.journal.mark_undone(seq, &out.summary).unwrap();
        out
    }

    /// Undoes the newest job without marking its record, as the window and the command line
    /// leave an undo that failed: its record number and outcome.
    pub(crate) fn undo_unmarked(&self) -> (u64, Outcome) {
        let record = self
            .journal
            .undo_candidate()
            .unwrap()
            .expect("nothing to undo");
        let seq = record.seq;
        let undo = Job::Undo {
            record: Box::new(record),
            trash: self.trash.clone(),
            on_conflict: ConflictPolicy::Skip,
        };
        (seq, run_job_staged(undo, &self.staging))
    }

    /// Undoes the newest job with the Ask policy, answering with `answer`.
    pub(crate) fn undo_asking(
        &self,
        answer: impl FnMut(&Conflict) -> Option<(Resolution, Scope)>,
    ) -> (Outcome, Vec<Conflict>) {
        let record = self.journal.undo_candidate().unwrap().unwrap();
        let seq = record.seq;
        let undo = Job::Undo {
            record: Box::new(record),
            trash: self.trash.clone(),
            on_conflict: ConflictPolicy::Ask,
        };
        let staging = StagingRoots::home_only(&self.staging);
        let (out, conflicts) = run_asking_with(staging, undo, answer);
        self.journal.mark_undone(seq, &out.summary).unwrap();
        (out, conflicts)
    }

    /// Names in the trash's `files/` folder.
    pub(crate) fn trashed(&self) -> Vec<String> {
        let files = self.trash.home.join("files");
        let mut names: Vec<String> = fs::read_dir(files)
            .map(|d| {
                d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }
}

pub(crate) fn copy(sources: Vec<PathBuf>, dest_dir: &Path) -> Job {
    Job::Copy {
        sources,
        dest_dir: dest_dir.to_path_buf(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    }
}

pub(crate) fn moving(sources: Vec<PathBuf>, dest_dir: &Path) -> Job {
    Job::Move {
        sources,
        dest_dir: dest_dir.to_path_buf(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    }
}

#[test]
fn undo_of_a_copy_trashes_the_copies_but_keeps_one_edited_since() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let src = t.dir("src");
    t.file("src/keep.txt", "original");
    t.file("src/sub/a.txt", "a");
    t.file("src/sub/b.txt", "b");
    let loose = t.file("loose.txt", "loose");
    let dest = t.dir("dest");
    let before = snapshot(&src);
    let out = s.run(copy(vec![src.clone(), loose.clone()], &dest));
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    fs::write(dest.join("src/keep.txt"), "edited after the copy").unwrap();

    let out = s.undo();
    let kept = dest.join("src/keep.txt");
    assert_eq!(fs::read(&kept).unwrap(), b"edited after the copy");
    assert!(
        out.summary
            .failed
            .iter()
            .any(|f| f.path == kept && matches!(*f.error, Error::ChangedSince { .. })),
        "the edited copy is reported: {:#?}",
        out.summary
    );
    // Everything else went to the trash: the unchanged sub folder as a whole.
    assert_eq!(
        snapshot(&dest).keys().collect::<Vec<_>>(),
        [Path::new("src"), Path::new("src/keep.txt")]
    );
    assert_eq!(s.trashed(), ["loose.txt", "sub"]);
    assert_eq!(snapshot(&src), before, "the sources are untouched");
    assert!(loose.exists());
    assert_eq!(s.journal.records().unwrap()[0].state, RecordState::Undone);
}

/// A copied link the user removed and made anew (which often gets the freed inode number
/// back), pointing elsewhere with a text of the same length, is not the copy: kept, and said.
#[test]
fn undo_of_a_copy_keeps_a_link_made_anew_in_its_place() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let link = t.symlink("src/link", "target-A");
    let dest = t.dir("dest");
    let out = s.run(copy(vec![link], &dest));
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    let copied = dest.join("link");
    fs::remove_file(&copied).unwrap();
    std::os::unix::fs::symlink("target-B", &copied).unwrap();

    let out = s.undo();
    assert_eq!(fs::read_link(&copied).unwrap(), Path::new("target-B"));
    assert!(
        out.summary
            .failed
            .iter()
            .any(|f| f.path == copied && matches!(*f.error, Error::ChangedSince { .. })),
        "{:#?}",
        out.summary
    );
}

/// A tree deeper than `PATH_MAX` is undone like any other: its items, reached by folder, are
/// known as the copies; one added deep inside since stays, with the folders holding it.
#[test]
fn undo_of_a_copy_deeper_than_path_max_trashes_it_or_keeps_what_was_added() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let name = "d".repeat(50);
    let src = t.dir("src");
    deep_chain(&src, &name, 100);
    let dest = t.dir("dest");
    let out = s.run(copy(vec![src.clone()], &dest));
    assert!(out.summary.is_complete(), "{:?}", out.summary.failed);
    let out = s.undo();
    assert!(out.summary.failed.is_empty(), "{:?}", out.summary.failed);
    assert_eq!(fs::read_dir(&dest).unwrap().count(), 0, "the copy is gone");
    assert_eq!(s.trashed(), ["src"]);

    // Again, with a file added at depth 90 since: it stays, the rest goes.
    let out = s.run(copy(vec![src], &dest));
    assert!(out.summary.is_complete(), "{:?}", out.summary.failed);
    let mut fd = rustix::fs::open(dest.join("src"), OFlags::RDONLY, Mode::empty()).unwrap();
    for _ in 0..90 {
        fd = rustix::fs::openat(&fd, name.as_str(), OFlags::RDONLY, Mode::empty()).unwrap();
    }
    let added = OFlags::WRONLY | OFlags::CREATE;
    rustix::fs::openat(&fd, "added", added, Mode::from_raw_mode(0o644)).unwrap();
    let out = s.undo();
    assert_eq!(out.summary.failed.len(), 1, "{:?}", out.summary.failed);
    assert!(matches!(
        *out.summary.failed[0].error,
        Error::ChangedSince { .. }
    ));
    assert!(rustix::fs::statat(&fd, "added", rustix::fs::AtFlags::empty()).is_ok());
    assert!(
        rustix::fs::statat(&fd, name.as_str(), rustix::fs::AtFlags::empty()).is_err(),
        "what was below it went"
    );
}

/// `/proc` files claim 0 bytes and sysfs files 4096 in no blocks, and hold something else:
/// the copies hold what could be read (as `cp` makes them, never padded with zeros), and the
/// record keeps that size, so undo knows them as unchanged copies rather than keeping them.
#[test]
fn copies_of_files_that_misstate_their_size_hold_their_contents_and_undo_cleanly() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let dest = t.dir("dest");
    let sources = [
        Path::new("/proc/self/status"),
        Path::new("/sys/kernel/uevent_seqnum"),
    ];
    let sources: Vec<PathBuf> = (sources.iter())
        .filter(|p| p.exists())
        .map(|p| p.to_path_buf())
        .collect();
    if sources.len() < 2 {
        eprintln!("skipped: no /proc or /sys here");
        return;
    }
    let out = s.run(copy(sources, &dest));
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    let seqnum = fs::read(dest.join("uevent_seqnum")).unwrap();
    assert!(
        !seqnum.is_empty() && seqnum.iter().all(|b| b.is_ascii_digit() || *b == b'\n'),
        "{seqnum:?}"
    );
    let status = fs::read_to_string(dest.join("status")).unwrap();
    assert!(status.starts_with("Name:"), "{status:?}");

    let out = s.undo();
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert!(snapshot(&dest).is_empty(), "both copies went to the trash");
    assert_eq!(s.trashed(), ["status", "uevent_seqnum"]);
}

#[test]
fn undo_of_a_move_restores_the_tree_on_one_and_across_file_systems() {
    let shm = TempTree::new_in("/dev/shm");
    let t = TempTree::new();
    let s = Setup::new(&t);
    for (tree, label) in [(&t, "same fs"), (&shm, "across fs")] {
        let src = sample_tree(tree, &format!("src-{}", label.len()));
        let file = tree.file(format!("file-{}", label.len()), "a file");
        let dest = t.dir(format!("dest-{}", label.len()));
        let (before, file_before) = (snapshot(&src), fs::read(&file).unwrap());
        let out = s.run(moving(vec![src.clone(), file.clone()], &dest));
        assert!(out.summary.is_complete(), "{label}: {:#?}", out.summary);
        assert!(!src.exists(), "{label}");
        let out = s.undo();
        assert!(out.summary.is_complete(), "{label}: {:#?}", out.summary);
        assert_eq!(snapshot(&src), before, "{label}");
        assert_eq!(fs::read(&file).unwrap(), file_before, "{label}");
        assert!(snapshot(&dest).is_empty(), "{label}: {:?}", snapshot(&dest));
        assert_no_temporaries(tree.path());
    }
}

/// `cp a d; mv d/a usb/; undo; undo`: the first undo copies the items back from the other
/// disk, new inodes all; the second kept every one of them as "changed since" and marked the
/// copy undone. The undo of the move records what it made anew, and the copy's undo knows
/// its items by their new identities.
#[test]
fn undo_of_a_copy_whose_items_a_move_took_to_another_disk_and_its_undo_brought_back() {
    let shm = TempTree::new_in("/dev/shm");
    let t = TempTree::new();
    let s = Setup::new(&t);
    let src = sample_tree(&t, "src");
    let file = t.file("file.txt", "a file");
    let dest = t.dir("dest");
    let out = s.run(copy(vec![src.clone(), file], &dest));
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    let copies = vec![dest.join("src"), dest.join("file.txt")];
    let out = s.run(moving(copies, &shm.dir("usb")));
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    let out = s.undo();
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(
        snapshot(&dest.join("src")),
        snapshot(&src),
        "the move undone"
    );
    let out = s.undo();
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert!(snapshot(&dest).is_empty(), "{:?}", snapshot(&dest));
    assert_eq!(s.trashed(), ["file.txt", "src"]);
}

/// `cp f d/; mv d/f usb/; mv usb/f d/; undo; undo; undo`: each undo of a move copied the
/// file across again; the copy's undo took the first undo's identity (carried back over the
/// second's) and kept the file as "changed since".
#[test]
fn undo_of_a_copy_whose_file_crossed_to_another_disk_and_back() {
    let shm = TempTree::new_in("/dev/shm");
    let t = TempTree::new();
    let s = Setup::new(&t);
    let file = t.file("f.txt", "a file");
    let dest = t.dir("dest");
    let usb = shm.dir("usb");
    for job in [
        copy(vec![file], &dest),
        moving(vec![dest.join("f.txt")], &usb),
        moving(vec![usb.join("f.txt")], &dest),
    ] {
        let out = s.run(job);
        assert!(out.summary.is_complete(), "{:#?}", out.summary);
    }
    for _ in 0..3 {
        let out = s.undo();
        assert!(out.summary.is_complete(), "{:#?}", out.summary);
    }
    assert!(snapshot(&dest).is_empty() && snapshot(&usb).is_empty());
    assert_eq!(s.trashed(), ["f.txt"]);
}

/// `mv a dest/`, a new `a` made, undo answered Skip (the place is taken), then redo: the
/// redo moved the user's new `a`. An undo that left an item where the job put it is no
/// redo step, as one that put an item beside what took its place is not.
#[test]
fn a_move_whose_undo_skipped_a_taken_place_is_not_redone() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let a = t.file("a", "the job's");
    let dest = t.dir("dest");
    assert!(s.run(moving(vec![a.clone()], &dest)).summary.is_complete());
    t.file("a/u", "the user's");
    let out = s.undo();
    assert_eq!(out.summary.skipped.len(), 1, "{:#?}", out.summary);
    let redo = s.journal.redo_candidate();
    assert!(
        matches!(
            redo,
            Err(Error::RedoAfterAside { .. } | Error::RedoOfNothing { .. })
        ),
        "{redo:?}"
    );
    assert_eq!(fs::read(a.join("u")).unwrap(), b"the user's");
}

#[test]
fn undo_of_a_move_never_clobbers_an_original_place_taken_since() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let file = t.file("here/report.txt", "moved away");
    let other = t.file("here/other.txt", "other");
    let dest = t.dir("there");
    s.run(moving(vec![file.clone(), other.clone()], &dest));
    fs::write(&file, "a new file in the old place").unwrap();

    let out = s.undo();
    assert_eq!(fs::read(&file).unwrap(), b"a new file in the old place");
    assert_eq!(fs::read(dest.join("report.txt")).unwrap(), b"moved away");
    assert!(
        out.summary
            .skipped
            .iter()
            .any(|k| k.path == dest.join("report.txt")),
        "the taken place is reported: {:#?}",
        out.summary
    );
    assert_eq!(fs::read(&other).unwrap(), b"other", "the rest went back");
}

#[test]
fn undo_of_a_keep_both_move_gives_the_item_its_name_back() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let file = t.file("here/notes.txt", "mine");
    t.file("there/notes.txt", "theirs");
    let out = s.run(Job::Move {
        sources: vec![file.clone()],
        dest_dir: t.join("there"),
        dest_name: None,
        on_conflict: ConflictPolicy::KeepBoth,
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert!(!file.exists());
    let out = s.undo();
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(fs::read(&file).unwrap(), b"mine");
    let there: Vec<PathBuf> = snapshot(&t.join("there")).into_keys().collect();
    assert_eq!(there, [PathBuf::from("notes.txt")]);
}

#[test]
fn undo_of_a_trash_restores_and_redo_trashes_again() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let file = t.file("work/notes.txt", "notes");
    t.file("work/dir/inside.txt", "inside");
    let paths = vec![file.clone(), t.join("work/dir")];
    let before = snapshot(&t.join("work"));
    let out = s.run(Job::Trash {
        paths: paths.clone(),
        roots: s.trash.clone(),
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert!(!file.exists());
    let out = s.undo();
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(snapshot(&t.join("work")), before);
    assert!(s.trashed().is_empty());
    let again = s.journal.redo_candidate().unwrap().unwrap().redo_job();
    assert!(matches!(&again, Job::Trash { paths: p, .. } if *p == paths));
}

/// The undo of a trash job whose items were since deleted from the trash for good names each
/// by where it would have gone back, as no longer in the trash, and the record is done with:
/// it said the trash's own name of the item ("files/notes.txt.2 is no longer where it was
/// left"), which the user never saw.
#[test]
fn undo_of_a_trash_emptied_since_says_the_items_are_no_longer_in_the_trash() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let kept = t.file("work/kept.txt", "kept");
    let gone = t.file("work/gone.txt", "gone");
    let out = s.run(Job::Trash {
        paths: vec![kept.clone(), gone.clone()],
        roots: s.trash.clone(),
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    fs::remove_file(s.trash.home.join("files/gone.txt")).unwrap();
    let out = s.undo();
    assert!(kept.exists(), "what is still in the trash is put back");
    let failed = &out.summary.failed;
    assert_eq!(failed.len(), 1, "{:#?}", out.summary);
    assert_eq!(failed[0].path, gone);
    assert!(
        matches!(&*failed[0].error, Error::GoneFromTrash { path } if *path == gone),
        "{:?}",
        failed[0].error
    );
    assert!(s.journal.undo_candidate().unwrap().is_none(), "done with");
}

#[test]
fn undo_of_rename_and_create_folder() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let file = t.file("old.txt", "x");
    s.run(Job::CreateFolder {
        parent: t.path().to_path_buf(),
        name: "made".into(),
    });
    s.run(Job::Rename {
        path: file.clone(),
        new_name: "new.txt".into(),
    });
    assert!(t.join("made").is_dir() && t.join("new.txt").exists());
    s.undo();
    assert!(file.exists() && !t.join("new.txt").exists());
    // The rename can be redone: its undo put nothing beside anything.
    let redo = s.journal.redo_candidate().unwrap().unwrap();
    assert!(matches!(redo.job, Job::Rename { .. }), "{:?}", redo.job);
    // A folder with something in it is kept.
    t.file("made/inside", "put there since");
    let out = s.undo();
    assert!(t.join("made/inside").exists());
    assert_eq!(out.summary.failed.len(), 1, "{:#?}", out.summary);
    // Its undo undid nothing: there is nothing to redo (the folder is still there).
    assert!(matches!(
        s.journal.redo_candidate(),
        Err(Error::RedoOfNothing { .. })
    ));
}

#[test]
fn the_journal_is_bounded() {
    let t = TempTree::new();
    let journal = UndoJournal::at(t.join("j/journal.jsonl")).with_limit(3);
    for i in 0..20 {
        let name = format!("d{i}");
        let job = Job::CreateFolder {
            parent: t.path().to_path_buf(),
            name: name.into(),
        };
        let seq = journal.begin(&job).unwrap().unwrap();
        journal.finish(seq, &run_job(job).summary, false).unwrap();
    }
    let records = journal.records().unwrap();
    let seqs: Vec<u64> = records.iter().map(|r| r.seq).collect();
    assert_eq!(seqs, [18, 19, 20]);
    let lines = fs::read_to_string(journal.path()).unwrap().lines().count();
    assert!(lines <= 3 * 3 + 2, "the log was compacted: {lines} lines");
}

pub(crate) fn ok(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_cli_journal_survives_restarts_and_redo_replays() {
    let t = TempTree::new();
    let home = t.dir("home");
    let src = t.file("src/a.txt", "alpha");
    let dest = t.dir("dest");
    // Relative paths: the journal keeps them absolute, for commands run elsewhere.
    let mut cp = ferry_in(&home);
    cp.current_dir(t.path()).args(["cp", "src/a.txt", "dest"]);
    ok(&cp.output().unwrap());
    ok(&ferry_in(&home)
        .arg("mv")
        .arg(t.join("src"))
        .arg(&dest)
        .output()
        .unwrap());
    // Each command is a new process: the journal is on disk.
    let history = ok(&ferry_in(&home).arg("history").output().unwrap());
    let lines: Vec<&str> = history.lines().collect();
    assert_eq!(lines.len(), 2, "{history}");
    assert!(
        lines[0].contains("move") && lines[1].contains("copy"),
        "{history}"
    );

    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_eq!(fs::read(&src).unwrap(), b"alpha", "the move was undone");
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert!(!dest.join("a.txt").exists(), "the copy went to the trash");
    let trash = home.join("data/Trash/files/a.txt");
    assert_eq!(fs::read(&trash).unwrap(), b"alpha");
    assert_eq!(
        ferry_in(&home).arg("undo").output().unwrap().status.code(),
        Some(2)
    );

    ok(&ferry_in(&home).arg("redo").output().unwrap());
    assert_eq!(
        fs::read(dest.join("a.txt")).unwrap(),
        b"alpha",
        "the copy replayed"
    );
    ok(&ferry_in(&home).arg("redo").output().unwrap());
    assert!(
        dest.join("src/a.txt").exists() && !src.exists(),
        "the move replayed"
    );
    assert_eq!(
        ferry_in(&home).arg("redo").output().unwrap().status.code(),
        Some(2)
    );
    let history = ok(&ferry_in(&home).arg("history").output().unwrap());
    assert!(!history.contains("undone"), "{history}");
}

/// `cp a d; undo; cp b e; undo; redo` redoes the second copy, not the first: a job undone
/// before a later one was recorded is not redone.
#[test]
fn the_cli_redoes_the_job_undone_last_not_a_stale_one() {
    let t = TempTree::new();
    let home = t.dir("home");
    let (a, b) = (t.file("src/a", "a"), t.file("src/b", "b"));
    let (d, e) = (t.dir("d"), t.dir("e"));
    for (file, dest) in [(&a, &d), (&b, &e)] {
        ok(&ferry_in(&home)
            .arg("cp")
            .arg(file)
            .arg(dest)
            .output()
            .unwrap());
        ok(&ferry_in(&home).arg("undo").output().unwrap());
    }
    ok(&ferry_in(&home).arg("redo").output().unwrap());
    assert!(e.join("b").exists(), "the copy undone last is redone");
    assert!(!d.join("a").exists(), "the stale copy is not");
    let again = ferry_in(&home).arg("redo").output().unwrap();
    assert_eq!(again.status.code(), Some(2), "nothing more to redo");
    assert!(!d.join("a").exists());
}

/// A copy that skipped everything (the name was taken) did nothing to undo: `ferry undo`
/// undoes the copy before it, as Dolphin's Undo would.
#[test]
fn the_cli_undo_passes_over_a_copy_that_did_nothing() {
    let t = TempTree::new();
    let home = t.dir("home");
    let a = t.file("src/a", "a");
    let d = t.dir("d");
    for _ in 0..2 {
        ok(&ferry_in(&home).arg("cp").arg(&a).arg(&d).output().unwrap());
    }
    let failed = ferry_in(&home)
        .arg("cp")
        .arg(t.join("src/gone"))
        .arg(&d)
        .output()
        .unwrap();
    assert_eq!(failed.status.code(), Some(1));
    let undo = ferry_in(&home).arg("undo").output().unwrap();
    ok(&undo);
    assert!(
        !d.join("a").exists(),
        "the copy that did something is undone"
    );
    // Said, or "undo the last job" seems to undo an older one at random.
    let said = String::from_utf8_lossy(&undo.stderr);
    assert!(said.contains("passing over the copy"), "{said}");
    assert!(said.contains("it changed nothing"), "{said}");
    let again = ferry_in(&home).arg("undo").output().unwrap();
    assert_eq!(again.status.code(), Some(2), "nothing more to undo");
}

/// ext4 with 128-byte inodes keeps whole seconds (FAT even seconds, exFAT 10 ms): the copies
/// hold the source's time cut to that step. Undo still knows them as the copies it made, and
/// "replace if newer" does not replace them with the same files on every run.
#[test]
fn copies_on_a_file_system_with_coarse_times_are_known_as_the_copies() {
    let t = TempTree::new();
    let Some(mnt) = Mounted::ext4(&t, 64 << 20, &["-I", "128"]) else {
        return;
    };
    let src = t.dir("src");
    for name in ["a", "b"] {
        t.file(format!("src/{name}"), name);
        set_mtime(&src.join(name), 1_715_000_011);
    }
    let home = t.dir("home");
    let ferry = |args: &[&std::ffi::OsStr]| ferry_in(&home).args(args).output().unwrap();
    let copy = || ferry(&["cp".as_ref(), src.as_os_str(), mnt.dir.as_os_str()]);
    assert_eq!(copy().status.code(), Some(0));
    let held = fs::metadata(mnt.dir.join("src/a")).unwrap();
    assert_eq!(
        (held.mtime(), held.mtime_nsec()),
        (1_715_000_011, 0),
        "the file system keeps whole seconds"
    );
    let undo = ferry(&["undo".as_ref()]);
    assert_eq!(undo.status.code(), Some(0), "{undo:?}");
    assert!(
        !mnt.dir.join("src").exists(),
        "the copies went to the trash"
    );

    assert_eq!(copy().status.code(), Some(0));
    let copied = fs::metadata(mnt.dir.join("src/a")).unwrap().ino();
    let again = ferry(&[
        "cp".as_ref(),
        "--on-conflict".as_ref(),
        "replace-if-newer".as_ref(),
        src.join("a").as_os_str(),
        mnt.dir.join("src").as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("skipped"), "{stderr}");
    assert_eq!(
        fs::metadata(mnt.dir.join("src/a")).unwrap().ino(),
        copied,
        "not replaced by the same file"
    );
}

/// An undo that could not do its work (the destination read-only) leaves the job to be
/// undone again, rather than marking it undone with the copies still there.
#[test]
fn an_undo_that_failed_can_be_run_again() {
    let t = TempTree::new();
    let Some(mnt) = Mounted::tmpfs(&t.join("mnt"), "4m") else {
        return;
    };
    t.file("src/a", "alpha");
    let home = t.dir("home");
    let ferry = |args: &[&std::ffi::OsStr]| ferry_in(&home).args(args).output().unwrap();
    let remount = |how: &str| {
        let status = std::process::Command::new("mount")
            .args(["-o", &format!("remount,{how}")])
            .arg(&mnt.dir)
            .status();
        assert!(status.is_ok_and(|s| s.success()), "remount {how}");
    };
    let copied = ferry(&[
        "cp".as_ref(),
        t.join("src").as_os_str(),
        mnt.dir.as_os_str(),
    ]);
    assert_eq!(copied.status.code(), Some(0), "{copied:?}");
    remount("ro");
    let failed = ferry(&["undo".as_ref()]);
    remount("rw");
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert_ne!(failed.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("tries again"), "{stderr}");
    let journal = UndoJournal::at(home.join("state/ferry/journal.jsonl"));
    let records = journal.records().unwrap();
    assert_eq!(records.last().unwrap().state, RecordState::Finished);
    let again = ferry(&["undo".as_ref()]);
    assert_eq!(again.status.code(), Some(0), "{again:?}");
    assert!(!mnt.dir.join("src").exists(), "undone the second time");
    let records = journal.records().unwrap();
    assert_eq!(records.last().unwrap().state, RecordState::Undone);
}

/// `mv a/d b` with a `b/d` there merges `a/d` into it and removes it; its undo makes it
/// again with its mode, and with its modification time (it came back stamped with the
/// undo's).
#[test]
fn the_undo_of_a_merged_move_gives_the_folder_its_time_back() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    t.file("a/d/f", "f");
    t.file("b/d/g", "g");
    set_mtime(&t.join("a/d"), 978_307_200);
    let out = s.run(moving(vec![t.join("a/d")], &t.join("b")));
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert!(!t.join("a/d").exists() && t.join("b/d/f").exists());
    let undone = s.undo();
    assert!(undone.summary.is_complete(), "{:#?}", undone.summary);
    assert_eq!(fs::read(t.join("a/d/f")).unwrap(), b"f");
    assert_eq!(fs::metadata(t.join("a/d")).unwrap().mtime(), 978_307_200);
}
