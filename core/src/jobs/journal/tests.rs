//! Unit tests of the journal log.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use super::*;
use crate::jobs::{SkipReason, Skipped};

#[test]
fn only_staging_folders_are_pruned_whatever_the_journal_says() {
    let uid = rustix::process::geteuid().as_raw();
    assert!(is_staging_folder(Path::new(
        "/h/.local/share/ferry/replaced"
    )));
    assert!(is_staging_folder(
        &Path::new("/media/usb").join(format!(".ferry-replaced-{uid}"))
    ));
    assert!(!is_staging_folder(Path::new("/h/Documents")));
    assert!(!is_staging_folder(Path::new("/h/replaced")));
    assert!(!is_staging_folder(Path::new(
        "/media/usb/.ferry-replaced-x"
    )));
}

#[test]
fn exact_names_and_a_torn_last_line_survive_a_reload() {
    let dir = tempfile::tempdir().unwrap();
    let journal = UndoJournal::at(dir.path().join("journal.jsonl"));
    let odd = PathBuf::from(OsString::from_vec(b"/tmp/n\xffme".to_vec()));
    let job = Job::Rename {
        path: odd.clone(),
        new_name: OsString::from_vec(b"\xfe".to_vec()),
    };
    let seq = journal.begin(&job).unwrap().unwrap();
    journal.finish(seq, &Summary::default(), false).unwrap();
    // A crash in the middle of the next append.
    let mut file = OpenOptions::new()
        .append(true)
        .open(journal.path())
        .unwrap();
    file.write_all(br#"{"begin":{"seq":2,"ti"#).unwrap();
    let records = journal.records().unwrap();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].state, RecordState::Finished);
    match &records[0].job {
        Job::Rename { path, new_name } => {
            assert_eq!(path, &odd);
            assert_eq!(new_name.as_bytes(), b"\xfe");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_new_name_is_kept_and_what_it_replaces_is_known_to_have_been_there() {
    let dir = tempfile::tempdir().unwrap();
    let journal = UndoJournal::at(dir.path().join("journal.jsonl"));
    let taken = dir.path().join("b.txt");
    std::fs::write(&taken, "there before").unwrap();
    let job = Job::Move {
        sources: vec![dir.path().join("a.txt")],
        dest_dir: dir.path().to_path_buf(),
        dest_name: Some(OsString::from_vec(b"b.txt".to_vec())),
        on_conflict: crate::jobs::ConflictPolicy::Replace,
    };
    journal.begin(&job).unwrap().unwrap();
    let records = journal.records().unwrap();
    let Job::Move { dest_name, .. } = &records[0].job else {
        panic!("{:?}", records[0].job);
    };
    assert_eq!(dest_name.as_deref(), Some(OsStr::new("b.txt")));
    assert_eq!(records[0].preexisting, std::slice::from_ref(&taken));
    assert!(
        records[0]
            .describe()
            .ends_with(&format!("-> {}", taken.display()))
    );
}

#[test]
fn a_resume_keeps_the_start_and_what_existed_before_the_interrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let journal = UndoJournal::at(dir.path().join("journal.jsonl"));
    let (src, dest) = (dir.path().join("a"), dir.path().join("dest"));
    std::fs::write(&src, "a").unwrap();
    std::fs::create_dir(&dest).unwrap();
    let job = Job::Copy {
        sources: vec![src],
        dest_dir: dest.clone(),
        dest_name: None,
        on_conflict: super::super::ConflictPolicy::Skip,
    };
    journal.begin(&job).unwrap();
    // Begun long ago; the interrupted run then created `dest/a`.
    let text = std::fs::read_to_string(journal.path()).unwrap();
    let at = text.find("\"time\":").unwrap() + "\"time\":".len();
    let end = at + text[at..].find(',').unwrap();
    std::fs::write(
        journal.path(),
        format!("{}1000{}", &text[..at], &text[end..]),
    )
    .unwrap();
    std::fs::write(dest.join("a"), "a").unwrap();
    journal.resume(1, &job).unwrap();
    let record = &journal.records().unwrap()[0];
    assert!(record.resumed);
    let started = record.started.duration_since(UNIX_EPOCH).unwrap();
    assert_eq!(started.as_secs(), 1000, "the interrupted run's start");
    assert!(record.preexisting.is_empty(), "{:?}", record.preexisting);
}

#[test]
fn a_job_begun_by_a_dead_process_is_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let journal = UndoJournal::at(dir.path().join("journal.jsonl"));
    let job = Job::CreateFolder {
        parent: dir.path().to_path_buf(),
        name: "x".into(),
    };
    journal.begin(&job).unwrap();
    assert_eq!(journal.records().unwrap()[0].state, RecordState::Running);
    // The same record as begun by a process that has ended (pid 0 never has a /proc entry).
    let text = std::fs::read_to_string(journal.path()).unwrap();
    let dead = text.replace(&format!("\"pid\":{}", std::process::id()), "\"pid\":0");
    std::fs::write(journal.path(), dead).unwrap();
    let interrupted = journal.recover().unwrap();
    assert_eq!(interrupted.len(), 1);
    assert_eq!(journal.undo_candidate().unwrap().unwrap().seq, 1);
}

#[test]
fn a_job_of_many_sources_is_skimmed_at_start_up_unless_it_was_interrupted() {
    let dir = tempfile::tempdir().unwrap();
    let journal = UndoJournal::at(dir.path().join("journal.jsonl"));
    let many = |n: usize| Job::Copy {
        sources: (0..n)
            .map(|i| dir.path().join(format!("s/{i:06}")))
            .collect(),
        dest_dir: dir.path().join("dest"),
        dest_name: None,
        on_conflict: crate::jobs::ConflictPolicy::Skip,
    };
    // Sources as the record reads them back, and its number.
    let sources = |r: &JournalRecord| {
        let (sources, _, _) = r.job.transfer().expect("a copy");
        (r.seq, sources.to_vec())
    };
    let kill = || {
        let text = std::fs::read_to_string(journal.path()).unwrap();
        let dead = text.replace(&format!("\"pid\":{}", std::process::id()), "\"pid\":0");
        std::fs::write(journal.path(), dead).unwrap();
    };
    let (
        Job::Copy { sources: three, .. },
        Job::Copy {
            sources: five_k, ..
        },
    ) = (many(3), many(5_000))
    else {
        unreachable!()
    };
    let finished = journal.begin(&many(5_000)).unwrap().unwrap();
    journal
        .finish(finished, &Summary::default(), false)
        .unwrap();
    let log = std::fs::read(journal.path()).unwrap();
    assert!(log.split(|&b| b == b'\n').next().unwrap().len() > SKIM_LINE);
    let interrupted = journal.begin(&many(3)).unwrap().unwrap();
    kill();
    // Ended: start-up skims its line; the records read for anything else have it whole.
    let skimmed = journal.load_for_start().unwrap();
    assert_eq!(skimmed.len(), 2);
    assert_eq!(sources(&skimmed[0]), (finished, Vec::new()));
    let (found, problems) = journal.start_up();
    assert!(problems.is_empty(), "{problems:?}");
    let found: Vec<_> = found.iter().map(sources).collect();
    assert_eq!(found, [(interrupted, three.clone())]);
    assert_eq!(
        sources(&journal.records().unwrap()[0]),
        (finished, five_k.clone())
    );
    // Not ended: read whole, for recovery works from its job.
    let big = journal.begin(&many(5_000)).unwrap().unwrap();
    kill();
    let (found, _) = journal.start_up();
    let found: Vec<_> = found.iter().map(sources).collect();
    assert_eq!(found, [(interrupted, three), (big, five_k)]);
}

#[test]
fn lines_are_counted_across_the_pieces_the_log_is_read_in() {
    let dir = tempfile::tempdir().unwrap();
    let journal = UndoJournal::at(dir.path().join("journal.jsonl"));
    assert_eq!(journal.line_count().unwrap(), 0);
    let long = "x".repeat(200_000);
    std::fs::write(journal.path(), format!("a\n{long}\n\nb\n{long}")).unwrap();
    assert_eq!(
        journal.line_count().unwrap(),
        5,
        "the last one unterminated"
    );
    std::fs::write(journal.path(), format!("{long}\n")).unwrap();
    assert_eq!(journal.line_count().unwrap(), 1);
}

/// A journal in a temporary folder, recording jobs that make folders there.
struct FolderJobs {
    dir: tempfile::TempDir,
    journal: UndoJournal,
}

impl FolderJobs {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let journal = UndoJournal::at(dir.path().join("journal.jsonl"));
        FolderJobs { dir, journal }
    }

    fn job(&self, name: &str) -> Job {
        Job::CreateFolder {
            parent: self.dir.path().to_path_buf(),
            name: name.into(),
        }
    }

    /// Records the job making `name`, ended with `summary`; its number.
    fn ended(&self, name: &str, summary: &Summary) -> u64 {
        let seq = self.journal.begin(&self.job(name)).unwrap().unwrap();
        self.journal.finish(seq, summary, false).unwrap();
        seq
    }

    fn undo(&self) -> Option<u64> {
        self.journal.undo_candidate().unwrap().map(|r| r.seq)
    }

    fn redo(&self) -> Option<u64> {
        self.journal.redo_candidate().unwrap().map(|r| r.seq)
    }

    /// Marks record `seq` undone by an undo that undid its folder.
    fn mark_undone(&self, seq: u64) {
        let undid = Summary {
            done: vec![self.dir.path().join(format!("undone {seq}"))],
            ..Summary::default()
        };
        self.journal.mark_undone(seq, &undid).unwrap();
    }

    fn redone(&self, seq: u64, name: &str) {
        self.journal.restart(seq, &self.job(name)).unwrap();
        self.journal
            .finish(seq, &Summary::default(), false)
            .unwrap();
    }
}

/// Redo takes the job undone last, and none undone before a later job was recorded, as an
/// editor's redo does.
#[test]
fn redo_takes_the_job_undone_last_and_none_undone_before_a_later_job() {
    let f = FolderJobs::new();
    let done = |name: &str| f.ended(name, &Summary::default());

    // cp a; undo; cp b; undo: only b can be redone, once.
    let a = done("a");
    f.mark_undone(a);
    assert_eq!(f.redo(), Some(a));
    let b = done("b");
    assert_eq!(f.redo(), None, "a job recorded since ends redo");
    f.mark_undone(b);
    assert_eq!(f.redo(), Some(b));
    f.redone(b, "b");
    assert_eq!(f.redo(), None, "a was undone before b was recorded");

    // c; d; undo; undo: redo c, then d, in that order.
    let (c, d) = (done("c"), done("d"));
    f.mark_undone(d);
    f.mark_undone(c);
    assert_eq!(f.redo(), Some(c));
    f.redone(c, "c");
    assert_eq!(f.redo(), Some(d));
}

/// A job that skipped or failed every item is no undo step: undo takes the job before it,
/// and redo still reaches a job undone before it was recorded.
#[test]
fn a_job_that_did_nothing_is_passed_over_by_undo_and_redo() {
    let f = FolderJobs::new();
    let did = Summary {
        items_done: 1,
        ..Summary::default()
    };
    let skipped_all = Summary {
        skipped: vec![Skipped {
            path: f.dir.path().join("a"),
            reason: SkipReason::Exists,
        }],
        ..Summary::default()
    };

    let a = f.ended("a", &did);
    let nothing = f.ended("a", &skipped_all);
    let records = f.journal.records().unwrap();
    let record = |seq| records.iter().find(|r| r.seq == seq).unwrap();
    assert!(record(nothing).did_nothing());
    assert!(!record(a).did_nothing());
    assert_eq!(f.undo(), Some(a));
    f.mark_undone(a);
    assert_eq!(f.undo(), None);
    f.ended("a", &skipped_all);
    assert_eq!(
        f.redo(),
        Some(a),
        "a job that did nothing does not end redo"
    );
    f.ended("b", &did);
    assert_eq!(f.redo(), None);
}

/// A log written before `undone` lines kept the newest record's number redoes as then.
#[test]
fn redo_of_a_log_from_before_undone_lines_kept_the_newest_number() {
    let f = FolderJobs::new();
    let seq = f.ended("a", &Summary::default());
    let mut file = OpenOptions::new()
        .append(true)
        .open(f.journal.path())
        .unwrap();
    writeln!(file, r#"{{"undone":{{"seq":{seq},"time":1}}}}"#).unwrap();
    assert_eq!(f.redo(), Some(seq));
}

/// The records name every file the user copied, moved or trashed: only the owner reads them.
#[test]
fn the_journal_is_readable_by_its_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state/ferry");
    let journal = UndoJournal::at(state.join("journal.jsonl"));
    let job = Job::CreateFolder {
        parent: dir.path().to_path_buf(),
        name: "a".into(),
    };
    let seq = journal.begin(&job).unwrap().unwrap();
    journal.finish(seq, &Summary::default(), false).unwrap();
    journal.writer().unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&state), 0o700);
    assert_eq!(mode(&dir.path().join("state")), 0o700);
    let mut files = 0;
    for entry in walk(&state) {
        assert_eq!(
            mode(&entry),
            if entry.is_dir() { 0o700 } else { 0o600 },
            "{entry:?}"
        );
        files += usize::from(entry.is_file());
    }
    assert!(files >= 3, "the log and its two locks: {files}");
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(walk(&path));
        }
        found.push(path);
    }
    found
}

/// A killed job's process that its parent has not reaped yet is a zombie: dead, so its job
/// is interrupted (`ferry resume` straight after `timeout -s KILL ferry mv …` said the move
/// was still running).
#[test]
fn a_zombie_process_is_not_alive() {
    let mut child = std::process::Command::new("cat")
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let start = process_start(pid).unwrap();
    assert!(is_alive(pid, start) && is_alive(pid, 0));
    drop(child.stdin.take());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while process_stat(pid).is_some_and(|(state, _)| state != b'Z') {
        assert!(std::time::Instant::now() < deadline, "cat did not end");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    assert!(!is_alive(pid, start), "a zombie is dead");
    assert!(!is_alive(pid, 0));
    child.wait().unwrap();
}

/// An undo cancelled once every item was back (Ctrl+C as it ended) undid the job: it is
/// recorded so, and redo can take it. Recorded as not undone, it was run again and found
/// its own work "no longer there", and redo was lost. One cancelled with items left stays
/// to be undone again.
#[test]
fn an_undo_cancelled_once_all_was_back_is_recorded_undone() {
    let f = FolderJobs::new();
    let a = f.ended("a", &Summary::default());
    let left = Summary {
        not_done: vec![f.dir.path().join("a")],
        ..Summary::default()
    };
    f.journal.record_end(a, true, &left, true).unwrap();
    assert_eq!(f.undo(), Some(a), "items left: undo tries again");
    assert_eq!(f.redo(), None);
    let all_back = Summary {
        done: vec![f.dir.path().join("a")],
        ..Summary::default()
    };
    f.journal.record_end(a, true, &all_back, true).unwrap();
    assert_eq!(f.undo(), None);
    assert_eq!(f.redo(), Some(a));
}
