//! Undo, redo, the persistent journal and crash recovery: through the engine with a journal
//! and trash in temporary folders, and through `ferry` processes whose HOME, XDG_STATE_HOME
//! and XDG_DATA_HOME point at temporary folders (never the user's journal or trash).

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use ferry_core::Error;
use ferry_core::jobs::{
    Conflict, ConflictPolicy, Job, Pruned, RecordState, Resolution, Scope, StagingRoots,
    TrashRoots, UndoJournal, staging_folder_name,
};
use ferry_tests::TempTree;
use proptest::prelude::*;

use crate::ferry_in;
use crate::jobs_conflicts::run_asking_with;
use crate::jobs_copy::sample_tree;
use crate::jobs_support::{
    Node, Outcome, assert_no_temporaries, run_job, run_job_staged, snapshot,
};

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

    pub(crate) fn undo(&self) -> Outcome {
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
        let out = run_job_staged(undo, &self.staging);
        self.journal.mark_undone(seq, &out.summary).unwrap();
        out
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

fn copy(sources: Vec<PathBuf>, dest_dir: &Path) -> Job {
    Job::Copy {
        sources,
        dest_dir: dest_dir.to_path_buf(),
        on_conflict: ConflictPolicy::Skip,
    }
}

pub(crate) fn moving(sources: Vec<PathBuf>, dest_dir: &Path) -> Job {
    Job::Move {
        sources,
        dest_dir: dest_dir.to_path_buf(),
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
fn undo_of_a_replace_gives_back_the_old_file_byte_for_byte() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let new = t.file("src/doc.bin", "the new version");
    let old_bytes: Vec<u8> = (0..70_000u32).map(|i| (i % 251) as u8).collect();
    let old = t.file("dest/doc.bin", &old_bytes);
    let out = s.run(Job::Copy {
        sources: vec![new],
        dest_dir: t.join("dest"),
        on_conflict: ConflictPolicy::Replace,
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(fs::read(&old).unwrap(), b"the new version");
    // On the data folder's file system, the old file is kept there, in a private folder.
    let staged = out.summary.record.entries().find_map(|e| e.staged).unwrap();
    assert_eq!(staged.parent(), Some(s.staging.as_path()));
    let mode = fs::symlink_metadata(&s.staging)
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);
    let out = s.undo();
    assert!(out.summary.failed.is_empty(), "{:#?}", out.summary);
    assert_eq!(fs::read(&old).unwrap(), old_bytes);
    assert_eq!(
        s.trashed(),
        ["doc.bin"],
        "the replacement went to the trash"
    );
}

#[test]
fn a_replace_on_another_file_system_keeps_the_old_file_on_it() {
    let shm = TempTree::new_in("/dev/shm");
    let t = TempTree::new();
    let s = Setup::new(&t);
    let new = t.file("src/doc.txt", "new");
    let old = shm.file("dest/doc.txt", "old");
    let out = s.run(Job::Copy {
        sources: vec![new],
        dest_dir: shm.join("dest"),
        on_conflict: ConflictPolicy::Replace,
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    // Not in the data folder (a copy, not a rename, would be needed), nor at /dev/shm's root
    // (volumes are off): in the destination folder.
    let staged = out.summary.record.entries().find_map(|e| e.staged).unwrap();
    assert_eq!(
        staged.parent(),
        Some(shm.join("dest").join(staging_folder_name()).as_path())
    );
    assert!(!s.staging.exists());
    assert_eq!(fs::read(&staged).unwrap(), b"old");
    assert_eq!(fs::read(&old).unwrap(), b"new");
}

#[test]
fn pruning_bounds_staging_and_undo_then_reports_the_old_file_gone() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let new = t.file("src/doc.txt", "new");
    let old = t.file("dest/doc.txt", "old");
    let out = s.run(Job::Copy {
        sources: vec![new],
        dest_dir: t.join("dest"),
        on_conflict: ConflictPolicy::Replace,
    });
    let staged = out.summary.record.entries().find_map(|e| e.staged).unwrap();
    // Within the bounds: nothing goes.
    let week = Duration::from_secs(7 * 86_400);
    assert_eq!(
        s.journal.prune_staging(week, 1 << 30).unwrap(),
        Pruned::default()
    );
    assert!(staged.exists());
    // Over the size bound, but just staged: kept (it may be undone right now).
    assert_eq!(s.journal.prune_staging(week, 0).unwrap(), Pruned::default());
    assert!(staged.exists());
    // With no age bound it goes.
    let pruned = s.journal.prune_staging(Duration::ZERO, 0).unwrap();
    assert_eq!(pruned, Pruned { items: 1, bytes: 3 });
    assert!(!staged.exists());
    let out = s.undo();
    assert_eq!(out.summary.failed.len(), 1, "{:#?}", out.summary);
    assert_eq!(out.summary.failed[0].path, old);
    let error = &out.summary.failed[0].error;
    assert!(
        matches!(&**error, Error::ReplacedGone { path, staged: gone }
            if *path == old && *gone == staged),
        "{:#?}",
        out.summary
    );
    assert!(error.to_string().contains("is kept"), "{error}");
    // Trashing the replacement would leave neither: it stays.
    assert_eq!(fs::read(&old).unwrap(), b"new");
    assert!(s.trashed().is_empty(), "{:?}", s.trashed());
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
    // A folder with something in it is kept.
    t.file("made/inside", "put there since");
    let out = s.undo();
    assert!(t.join("made/inside").exists());
    assert_eq!(out.summary.failed.len(), 1, "{:#?}", out.summary);
    fs::remove_file(t.join("made/inside")).unwrap();
    // Redo works on the journal too: the newest undone record comes back.
    let again = s.journal.redo_candidate().unwrap().unwrap();
    assert!(matches!(again.job, Job::CreateFolder { .. }));
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

#[test]
fn the_cli_keeps_replaced_files_in_its_data_folder_and_undo_puts_them_back() {
    let t = TempTree::new();
    let home = t.dir("home");
    let src = t.file("src/a.txt", "new");
    let old = t.file("dest/a.txt", "old");
    ok(&ferry_in(&home)
        .args(["cp", "--on-conflict", "replace"])
        .arg(&src)
        .arg(t.join("dest"))
        .output()
        .unwrap());
    assert_eq!(fs::read(&old).unwrap(), b"new");
    let kept = home.join("data/ferry/replaced");
    assert_eq!(fs::read_dir(&kept).unwrap().count(), 1);
    assert!(!t.join("dest").join(staging_folder_name()).exists());
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_eq!(fs::read(&old).unwrap(), b"old");
    assert_eq!(fs::read_dir(&kept).unwrap().count(), 0);
}

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
    let mut child = ferry_in(home)
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

fn files_below(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
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
        // The copied folder went to the trash whole, not as hundreds of loose files.
        let trash = ok(&ferry_in(&home).arg("restore").output().unwrap());
        assert_eq!(trash.lines().count(), 1, "{trash}");
        assert!(
            trash
                .trim_end()
                .ends_with(&*dest.join("src").to_string_lossy()),
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
    assert_eq!(s.trashed(), ["both"], "the extra copy went to the trash");
}

/// Paths, contents and modes below `root`.
fn manifest(root: &Path) -> BTreeMap<PathBuf, (Option<Vec<u8>>, u32)> {
    snapshot(root)
        .into_iter()
        .map(|(rel, node)| {
            let entry = match node {
                Node::File { data, mode, .. } => (Some(data), mode),
                Node::Dir { mode, .. } => (None, mode),
                other => panic!("unexpected {other:?}"),
            };
            (rel, entry)
        })
        .collect()
}

#[derive(Debug, Clone)]
enum Step {
    Copy(usize, usize),
    Move(usize, usize),
    Rename(usize, String),
    Mkdir(usize, String),
}

fn step() -> impl Strategy<Value = Step> {
    let name = "[a-e]{1,2}";
    prop_oneof![
        (0usize..64, 0usize..64).prop_map(|(a, b)| Step::Copy(a, b)),
        (0usize..64, 0usize..64).prop_map(|(a, b)| Step::Move(a, b)),
        (0usize..64, name).prop_map(|(a, n)| Step::Rename(a, n)),
        (0usize..64, name).prop_map(|(a, n)| Step::Mkdir(a, n)),
    ]
}

/// Everything below `root` (folders, then all), for picking job arguments by index.
fn items(root: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let all: Vec<PathBuf> = snapshot(root).keys().map(|k| root.join(k)).collect();
    let mut dirs: Vec<PathBuf> = all.iter().filter(|p| p.is_dir()).cloned().collect();
    dirs.push(root.to_path_buf());
    (dirs, all)
}

/// Runs `steps` on a small tree, journaled, then undoes them all: the tree must be as it was,
/// and nothing left to undo.
fn undo_restores_the_tree_after(steps: Vec<Step>) -> Result<(), TestCaseError> {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let root = t.dir("root");
    t.file("root/a.txt", "a");
    t.file("root/x/b.txt", "b");
    t.file("root/x/y/c.txt", "c");
    t.dir("root/z");
    let start = manifest(&root);
    let mut journaled = 0;
    for step in steps {
        let (dirs, all) = items(&root);
        let pick = |list: &[PathBuf], i: usize| list[i % list.len()].clone();
        let job = match step {
            Step::Copy(a, b) if !all.is_empty() => copy(vec![pick(&all, a)], &pick(&dirs, b)),
            Step::Move(a, b) if !all.is_empty() => moving(vec![pick(&all, a)], &pick(&dirs, b)),
            Step::Rename(a, name) if !all.is_empty() => Job::Rename {
                path: pick(&all, a),
                new_name: name.into(),
            },
            Step::Mkdir(a, name) => Job::CreateFolder {
                parent: pick(&dirs, a),
                name: name.into(),
            },
            _ => continue,
        };
        s.run(job);
        journaled += 1;
    }
    for _ in 0..journaled {
        s.undo();
    }
    prop_assert_eq!(manifest(&root), start);
    prop_assert!(s.journal.undo_candidate().unwrap().is_none());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]

    #[test]
    fn undoing_a_random_sequence_of_jobs_restores_the_tree(steps in proptest::collection::vec(step(), 1..7)) {
        undo_restores_the_tree_after(steps)?;
    }
}

/// Sequences the random test failed with. Each ends with a move of `.../y` into a folder that
/// has a `y` already: merged into it (its `c.txt` moved there, the emptied folder removed).
/// Undoing that move makes the removed folder anew to put `c.txt` back, with a new inode;
/// the undo of the earlier job that made or moved that folder took it for something else and
/// kept it. Here `x` is copied beside itself as `x (copy)`, `x/y/c.txt` renamed to `a`, then
/// `x (copy)/y` merged into `x/y`: undo left `x (copy)` and `x (copy)/y` behind.
#[test]
fn undoing_a_copy_a_rename_and_a_merging_move_restores_the_tree() {
    let steps = vec![
        Step::Copy(7, 51),
        Step::Rename(14, "a".into()),
        Step::Move(47, 6),
    ];
    undo_restores_the_tree_after(steps).unwrap();
}

/// As above, for a folder an earlier job moved: `x/y` moved to `z/y`, copied to `y`, `y/c.txt`
/// renamed to `a`, then `z/y` merged into `y`. Undo left `z/y` where the first move put it.
#[test]
fn undoing_a_move_of_a_folder_later_merged_away_moves_it_back() {
    let steps = vec![
        Step::Move(45, 58),
        Step::Copy(16, 3),
        Step::Rename(36, "a".into()),
        Step::Move(14, 39),
    ];
    undo_restores_the_tree_after(steps).unwrap();
}

/// As above, for an empty folder: `z` copied into `x` as `x/z`, then `z` moved into `x`,
/// merged into the empty `x/z` and removed. Undo never made `z` again.
#[test]
fn undoing_a_move_that_merged_an_empty_folder_makes_it_again() {
    undo_restores_the_tree_after(vec![Step::Copy(5, 52), Step::Move(6, 15)]).unwrap();
}
