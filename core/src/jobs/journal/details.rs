//! The bulky part of a record, kept in a file of its own next to the log.
//!
//! A finished job's entries (one per item it created or moved, with identities) and trash
//! records can run to a hundred thousand items; kept inline, they made the log tens of
//! megabytes that every job start, `ferry cp` included, parsed whole (130 ms of CPU for six
//! records of 5,000 files). So the log keeps only short lines and each record's details go to
//! `records/<seq>.json` (what the job did) and `records/<seq>.undone.json` (what its undo put
//! in the trash, and the folders it made anew), read only when that record (or, for the
//! folders, one before it) is undone or redone.
//!
//! Written as a temporary file renamed over the old one (a redo's), before the log line that
//! points to it, and not synced, like that line (see the journal's doc): a crash leaves at
//! worst a details file no line refers to (swept at the next compaction), or after a power
//! loss a line whose details are missing or torn, which reads as a record without per-item
//! identities, undone by comparison.

use std::collections::HashSet;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::stored::{Absolute, Below, EntryOut, StoredEntry, StoredRemade, StoredTrashRecord};
use crate::error::Error;
use crate::jobs::Record;
use crate::jobs::summary::PathsBelow;

/// What a record's details file holds.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(super) struct Details {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) entries: Vec<StoredEntry>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) trash: Vec<StoredTrashRecord>,
    /// An undo's: the items it made anew (see [`Summary::remade`]).
    ///
    /// [`Summary::remade`]: crate::jobs::Summary::remade
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(super) remade: Vec<StoredRemade>,
}

impl Details {
    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.trash.is_empty() && self.remade.is_empty()
    }
}

/// Which of a record's details files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    /// What the job did (written with its `end` line).
    Done,
    /// What its undo put in the trash (written with its `undone` line).
    Undone,
}

/// The folder of the details files of the log `journal_file`.
pub(super) fn folder(journal_file: &Path) -> PathBuf {
    journal_file
        .parent()
        .unwrap_or(Path::new("."))
        .join("records")
}

/// The details file `part` of record `seq` in `folder`.
pub(super) fn file(folder: &Path, seq: u64, part: Part) -> PathBuf {
    folder.join(match part {
        Part::Done => format!("{seq}.json"),
        Part::Undone => format!("{seq}.undone.json"),
    })
}

/// What a finished job's details file is written from: its record's entries and its trash
/// records. Reads back as [`Details`].
pub(super) struct DoneOut<'a> {
    /// The entries; `None` when there are too many to keep.
    pub(super) record: Option<&'a Record>,
    pub(super) trash: Vec<StoredTrashRecord>,
    pub(super) absolute: &'a Absolute,
}

impl DoneOut<'_> {
    pub(super) fn is_empty(&self) -> bool {
        self.record.is_none_or(Record::is_empty) && self.trash.is_empty()
    }

    /// The JSON of the details file, as `Details` would serialize: the entries written as
    /// they are built (see [`EntryOut::write`]).
    pub(super) fn encode(&self) -> Result<Vec<u8>, serde_json::Error> {
        let record = self.record.filter(|r| !r.is_empty());
        let mut out = Vec::with_capacity(record.map_or(0, Record::len) * 192 + 64);
        out.push(b'{');
        if let Some(record) = record {
            out.extend_from_slice(b"\"entries\":[");
            let mut below = Below::default();
            let mut paths_below = PathsBelow::default();
            for (k, at) in record.entries_at().enumerate() {
                if k > 0 {
                    out.push(b',');
                }
                // Nearly every entry: below the top-level one before it, nothing staged.
                if !at.top_level()
                    && !at.staged()
                    && let Some(rel) = paths_below.of(&at)
                    && EntryOut::write_below(&at.without_paths(), rel, &mut out)
                {
                    continue;
                }
                let absolute = self.absolute;
                let written = EntryOut {
                    entry: at.entry(),
                    absolute,
                    below: &below,
                };
                written.write(&mut out)?;
                // The entries after a top-level one are written relative to it.
                let entry = written.entry;
                if entry.top_level {
                    let (source, dest) = (absolute.of(&entry.source), absolute.of(&entry.dest));
                    paths_below.set_top(at, &source, &dest);
                    below.saw(&source, &dest, true);
                }
            }
            out.push(b']');
        }
        if !self.trash.is_empty() {
            if record.is_some() {
                out.push(b',');
            }
            out.extend_from_slice(b"\"trash\":");
            serde_json::to_writer(&mut out, &self.trash)?;
        }
        out.push(b'}');
        Ok(out)
    }
}

/// Writes `text`, the details of record `seq`, replacing any earlier ones (a redo's).
pub(super) fn write(folder: &Path, seq: u64, part: Part, text: &[u8]) -> Result<(), Error> {
    super::private_folder(folder)?;
    let path = file(folder, seq, part);
    let temp = path.with_extension("json.tmp");
    super::write_replacing(&temp, &path, text, false)
}

/// Reads the details of record `seq`; `None` when the file is gone (removed by hand) or torn
/// (a power loss before it reached the disk), so the caller falls back to what needs none.
pub(super) fn read(folder: &Path, seq: u64, part: Part) -> Result<Option<Details>, Error> {
    let path = file(folder, seq, part);
    let file = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::io("open", &path, e)),
    };
    match serde_json::from_reader(BufReader::new(file)) {
        Ok(details) => Ok(Some(details)),
        Err(e) if e.is_io() => Err(Error::io("read", &path, e)),
        Err(_) => Ok(None),
    }
}

/// Removes every details file (and temporary) whose record is not in `kept`: records dropped
/// from the log, and files a crash left before their line was written.
pub(super) fn sweep(folder: &Path, kept: &HashSet<u64>) -> Result<(), Error> {
    let entries = match std::fs::read_dir(folder) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io("read folder", folder, e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| Error::io("read folder", folder, e))?;
        let name = entry.file_name();
        let seq = name
            .to_str()
            .and_then(|n| n.split('.').next())
            .and_then(|n| n.parse::<u64>().ok());
        let temporary = name.to_str().is_some_and(|n| n.ends_with(".tmp"));
        if temporary || seq.is_none_or(|s| !kept.contains(&s)) {
            let path = entry.path();
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io("delete", &path, e)),
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::super::{RecordState, UndoJournal};
    use crate::jobs::{ConflictPolicy, Engine, Job, JobOptions, Summary};

    fn copy_journaled(journal: &UndoJournal, sources: Vec<PathBuf>, dest_dir: PathBuf) -> u64 {
        let job = Job::Copy {
            sources,
            dest_dir,
            dest_name: None,
            on_conflict: ConflictPolicy::Skip,
        };
        let seq = journal.begin(&job).unwrap().unwrap();
        let summary = run(job, Some(seq));
        journal.finish(seq, &summary, false).unwrap();
        seq
    }

    /// Runs `job` to its end, as record `seq` of a journal if given: its summary.
    fn run(job: Job, seq: Option<u64>) -> Summary {
        let (engine, events) = Engine::start();
        let id = match seq {
            Some(seq) => engine.submit_journaled(job, JobOptions::default(), seq),
            None => engine.submit(job),
        };
        crate::jobs::finished(&events, id)
    }

    /// A details file that cannot be put in place (on a full disk, its write fails the same
    /// way) leaves no temporary behind to hold the space.
    #[test]
    fn a_failed_write_removes_its_temporary() {
        let tmp = tempfile::tempdir().unwrap();
        let folder = tmp.path().join("records");
        let path = super::file(&folder, 7, super::Part::Done);
        std::fs::create_dir_all(path.join("in the way")).unwrap();
        assert!(super::write(&folder, 7, super::Part::Done, b"{}").is_err());
        let left: Vec<_> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, [path.file_name().unwrap()]);
    }

    #[test]
    fn details_read_back_exactly_what_the_job_recorded() {
        use std::os::unix::ffi::OsStrExt;
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src");
        std::fs::create_dir_all(src.join("sub")).unwrap();
        std::fs::write(src.join("plain.txt"), "a").unwrap();
        std::fs::write(src.join(std::ffi::OsStr::from_bytes(b"not-\xff-utf8")), "b").unwrap();
        std::fs::write(src.join("sub").join("\"quoted\" \\ name"), "c").unwrap();
        std::os::unix::fs::symlink("plain.txt", src.join("link")).unwrap();
        let dest = tmp.path().join("dest");
        std::fs::create_dir(&dest).unwrap();
        let journal = UndoJournal::at(tmp.path().join("state/journal.jsonl"));
        let job = Job::Copy {
            sources: vec![src],
            dest_dir: dest,
            dest_name: None,
            on_conflict: ConflictPolicy::Skip,
        };
        let seq = journal.begin(&job).unwrap().unwrap();
        let summary = run(job, Some(seq));
        journal.finish(seq, &summary, false).unwrap();
        let written: Vec<_> = summary.record.entries().collect();
        assert_eq!(written.len(), 6);
        let record = journal.undo_candidate().unwrap().unwrap();
        assert_eq!(record.entries, written);
    }

    #[test]
    fn entries_live_beside_the_log_and_go_with_their_records() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src");
        std::fs::create_dir(&src).unwrap();
        for i in 0..50 {
            std::fs::write(src.join(format!("file-{i}")), "x").unwrap();
        }
        let journal = UndoJournal::at(tmp.path().join("state/journal.jsonl")).with_limit(1);
        let folder = super::folder(journal.path());

        let dest = tmp.path().join("dest-1");
        std::fs::create_dir(&dest).unwrap();
        let first = copy_journaled(&journal, vec![src.clone()], dest);
        // The log holds two short lines; the 51 entries are in the details file.
        let log = std::fs::read_to_string(journal.path()).unwrap();
        assert_eq!(log.lines().count(), 2, "{log}");
        assert!(!log.contains("file-7"), "{log}");
        assert!(folder.join(format!("{first}.json")).exists());
        assert!(journal.records().unwrap()[0].entries.is_empty());
        let record = journal.undo_candidate().unwrap().unwrap();
        assert_eq!(record.entries.len(), 51);
        assert!(!record.undo_by_comparison());

        // A details file torn by a power loss, or removed by hand: undo compares instead.
        let file = folder.join(format!("{first}.json"));
        std::fs::write(&file, br#"{"entries":[{"s":"#).unwrap();
        for _ in 0..2 {
            let record = journal.undo_candidate().unwrap().unwrap();
            assert_eq!(record.state, RecordState::Finished);
            assert!(record.entries.is_empty() && record.undo_by_comparison());
            let _ = std::fs::remove_file(&file);
        }

        // Compaction (past 3 lines a record here) sweeps the details of dropped records.
        let mut last = first;
        for n in 2..=4 {
            let dest = tmp.path().join(format!("dest-{n}"));
            std::fs::create_dir(&dest).unwrap();
            last = copy_journaled(&journal, vec![src.clone()], dest);
        }
        let names: Vec<String> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, [format!("{last}.json")]);
    }

    /// What the details were before entries below a top-level one had their paths built
    /// from the plan's names: every entry's two whole paths, cut below the last top-level
    /// entry's.
    fn from_whole_paths(record: &crate::jobs::Record) -> Vec<u8> {
        use super::super::stored::{Absolute, Below, EntryOut};
        let (absolute, mut below) = (Absolute::default(), Below::default());
        let mut out = b"{\"entries\":[".to_vec();
        for (k, entry) in record.entries().enumerate() {
            if k > 0 {
                out.push(b',');
            }
            let (source, dest) = (absolute.of(&entry.source), absolute.of(&entry.dest));
            let (source, dest) = (source.into_owned(), dest.into_owned());
            let top_level = entry.top_level;
            let written = EntryOut {
                entry,
                absolute: &absolute,
                below: &below,
            };
            written.write(&mut out).unwrap();
            below.saw(&source, &dest, top_level);
        }
        out.extend_from_slice(b"]}");
        out
    }

    #[test]
    fn paths_from_the_plan_read_as_the_whole_paths_would() {
        use std::os::unix::ffi::OsStrExt;
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src");
        std::fs::create_dir_all(src.join("sub/deeper/deepest")).unwrap();
        std::fs::create_dir_all(src.join("other")).unwrap();
        for name in [
            "a.txt",
            "sub/b",
            "sub/deeper/c",
            "sub/deeper/deepest/d",
            "other/e",
        ] {
            std::fs::write(src.join(name), name).unwrap();
        }
        std::fs::write(src.join("sub").join("\"quoted\" \\ name"), "q").unwrap();
        std::fs::write(src.join(std::ffi::OsStr::from_bytes(b"not-\xff-utf8")), "n").unwrap();
        std::fs::write(src.join("sub\ttab"), "t").unwrap();
        // Relative to the current folder, through `..`: made absolute by components.
        let up = std::env::current_dir().unwrap().components().count();
        let relative = std::iter::repeat_n("..", up - 1)
            .collect::<PathBuf>()
            .join(src.strip_prefix("/").unwrap());
        let as_given = [
            src.clone(),
            PathBuf::from(format!("{}/", src.display())),
            src.join("."),
            tmp.path().join("./src"),
            relative,
        ];
        for (n, source) in as_given.into_iter().enumerate() {
            for merge in [false, true] {
                let dest = tmp.path().join(format!("dest-{n}-{merge}"));
                std::fs::create_dir(&dest).unwrap();
                if merge {
                    // An existing folder merged into, a file replaced (staged) in it.
                    std::fs::create_dir_all(dest.join("src/sub/deeper")).unwrap();
                    std::fs::write(dest.join("src/sub/b"), "old").unwrap();
                }
                let job = Job::Copy {
                    sources: vec![source.clone(), src.join("other")],
                    dest_dir: dest,
                    dest_name: None,
                    on_conflict: ConflictPolicy::Replace,
                };
                let summary = run(job, None);
                assert!(summary.failed.is_empty(), "{:?}", summary.failed);
                let absolute = super::super::stored::Absolute::default();
                let details = super::DoneOut {
                    record: Some(&summary.record),
                    trash: Vec::new(),
                    absolute: &absolute,
                };
                let encoded = details.encode().unwrap();
                let expected = from_whole_paths(&summary.record);
                assert_eq!(
                    String::from_utf8_lossy(&encoded),
                    String::from_utf8_lossy(&expected),
                    "{source:?}, merge: {merge}"
                );
                // And not only through the fallback: a new tree's entries are written relative
                // (all but below a source given with a trailing slash, as before).
                let relative = String::from_utf8_lossy(&encoded).matches("{\"r\":").count();
                let trailing_slash = n == 1;
                assert!(merge || trailing_slash || relative >= 9, "{n}: {relative}");
            }
        }
    }
}
