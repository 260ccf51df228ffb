//! The undo journal: what every copy, move, rename, new-folder, link, trash and restore job
//! did, kept on disk so that undo, redo and crash recovery work across restarts.
//!
//! Format: an append-only log of JSON lines in `$XDG_STATE_HOME/ferry/journal.jsonl`. A job
//! costs two appends: `begin` before it writes anything (its job, process and which top-level
//! destination names already existed), and `end` after it finished (its counts; its
//! [`RecordEntry`](super::RecordEntry)s, one per created or moved item, go to a details file
//! of their own first, so that the log every job start reads stays small: see `details.rs`).
//! What a record read back says is `record.rs`; which record undo and redo take, and how an
//! undo's end is recorded, `undoing.rs`.
//!
//! Only `begin` is made durable (`fdatasync`) before the job writes anything (a command's job
//! plans while it is flushed: see `durable.rs`): after a power loss it is what tells that a
//! job was under way. Losing a later line costs precision, never data: a
//! record whose `end` (or details) did not reach the disk reads as interrupted (or without
//! identities) and is rolled back by comparing sources and destinations; a lost `undone` lets
//! undo run again, which finds nothing left to undo. Syncing them would make every job wait
//! for the disk twice more (on ext4, a 5,000-file copy took 30% longer). An `undone` line
//! marks a record undone; a later `begin` with the same number (redo, resume) starts it over.
//! A record with a `begin` and no `end` whose process is gone is
//! [`RecordState::Interrupted`]. A torn last line (a crash mid-append) is ignored, and ended
//! before the next append (`tail.rs`). When the log holds more than three times the bound, it
//! is rewritten with only the newest records (temporary file, `fsync`, `rename`, `fsync` of
//! the folder), so it never grows without bound and is never half-written; an interrupted
//! record dropped then takes the parts and temporaries of its job with it (and puts back the
//! sources its move had set aside). All access is under
//! an `flock` on `journal.lock`, so several Ferry processes can share it; an undo, redo or
//! resume also holds the writer lock ([`JournalWriter`], `writer.rs`) from its decision to
//! its end.
//!
//! Paths are stored absolute and exactly: a UTF-8 path as a JSON string, any other as an array
//! of bytes.

use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

mod apply;
mod details;
mod durable;
pub(crate) mod kept_modes;
mod record;
mod start_up;
mod stored;
mod tail;
mod undoing;
mod writer;

pub use durable::Durable;
pub use record::{Counts, JournalRecord, RecordState};
pub use undoing::undo_complete;
pub use writer::JournalWriter;

use super::{Job, Pruned, Summary};
use crate::error::Error;
use apply::apply;
use details::{DoneOut, Part};
#[cfg(test)]
use start_up::is_staging_folder;
use start_up::{prune_staging_of, recover_of, start_up_of, unresolved};
use stored::{Absolute, Line, StoredJob, StoredPath, StoredTrashRecord};

/// The journal's folder, made if missing, readable by its owner only (as the XDG base
/// directories are to be made): the records name every file the user copied, moved or
/// trashed.
fn private_folder(dir: &Path) -> Result<(), Error> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| Error::io("create", dir, e))
}

/// Options that create a journal file readable by its owner only (see [`private_folder`]).
fn private_file() -> OpenOptions {
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = OpenOptions::new();
    options.mode(0o600);
    options
}

/// Puts `text` at `path` whole: written to `temp` (made private, and synced if `sync`), then
/// renamed over it. On failure `temp` is removed: on a full disk the part written would hold
/// the space the next try needs.
fn write_replacing(temp: &Path, path: &Path, text: &[u8], sync: bool) -> Result<(), Error> {
    let mut file = private_file()
        .write(true)
        .create(true)
        .truncate(true)
        .open(temp)
        .map_err(|e| Error::io("create", temp, e))?;
    let written = file
        .write_all(text)
        .and_then(|()| if sync { file.sync_all() } else { Ok(()) })
        .map_err(|e| Error::io("write", temp, e))
        .and_then(|()| {
            drop(file);
            std::fs::rename(temp, path).map_err(|e| Error::io("rename", path, e))
        });
    if written.is_err() {
        let _ = std::fs::remove_file(temp);
    }
    written
}

/// Records kept by default.
pub const DEFAULT_LIMIT: usize = 100;

/// Most entries one record keeps (about 150 bytes each). A larger job keeps none and is
/// undone by comparing sources and destinations, as an interrupted one is, so that the log
/// stays small enough to read at every start.
pub const MAX_ENTRIES: usize = 100_000;

/// A `begin` line longer than this is read without its job where the job is not needed
/// (see `UndoJournal::load_for_start`); a job of a few hundred sources is shorter.
const SKIM_LINE: usize = 64 << 10;

/// How the names of the temporaries a job makes begin (`.ferry-tmp-<pid>-<job>-<item>`): an
/// item in the making, renamed into place once complete.
pub const TEMPORARY_PREFIX: &str = ".ferry-tmp-";

/// Prefix of the named temporaries a job of process `pid` may leave after a crash.
pub(crate) fn temp_prefix(pid: u32) -> String {
    format!("{TEMPORARY_PREFIX}{pid}-")
}

/// What [`UndoJournal::begin_and_start_up`] did.
#[derive(Debug, Default)]
pub struct Begun {
    /// The new job's record number (`None` for a job that is not journaled).
    pub seq: Option<u64>,
    /// Its `begin` line on its way to the disk.
    pub durable: Option<Durable>,
    /// The interrupted jobs found (see [`UndoJournal::start_up`]).
    pub interrupted: Vec<JournalRecord>,
    /// Problems met at start-up (neither step stops the other).
    pub problems: Vec<Error>,
}

/// The persistent, bounded journal of finished and running jobs.
#[derive(Debug, Clone)]
pub struct UndoJournal {
    file: PathBuf,
    limit: usize,
    /// Lines the log had when this journal (or a clone) last read it, `usize::MAX` before:
    /// a job's end compares that with the bound rather than reading the log again.
    seen_lines: Arc<AtomicUsize>,
}

impl UndoJournal {
    /// The journal in the user's state folder (`$XDG_STATE_HOME/ferry`, or the local data
    /// folder where there is no state folder).
    pub fn open_default() -> Result<UndoJournal, Error> {
        let dirs = directories::ProjectDirs::from("", "", "ferry").ok_or_else(|| {
            Error::io(
                "find the state folder for",
                "journal",
                std::io::ErrorKind::NotFound,
            )
        })?;
        let dir = dirs.state_dir().unwrap_or(dirs.data_local_dir());
        Ok(UndoJournal::at(dir.join("journal.jsonl")))
    }

    /// A journal in the file `file` (its folder is created on first write).
    pub fn at(file: PathBuf) -> UndoJournal {
        UndoJournal {
            file,
            limit: DEFAULT_LIMIT,
            seen_lines: Arc::new(AtomicUsize::new(usize::MAX)),
        }
    }

    /// Keeps at most `limit` records (at least one).
    pub fn with_limit(mut self, limit: usize) -> UndoJournal {
        self.limit = limit.max(1);
        self
    }

    /// The journal file.
    pub fn path(&self) -> &Path {
        &self.file
    }

    /// Every record, oldest first (at most the bound). A journal the user may read but not
    /// write (its folder or lock file another user's, or read-only) is read all the same.
    pub fn records(&self) -> Result<Vec<JournalRecord>, Error> {
        let _lock = tail::read_lock(self.lock(), &self.file.with_extension("lock"))?;
        Ok(self.load()?.0)
    }

    /// Persists that `job` is about to start and returns its record number, before it writes
    /// anything. `None` for jobs that are not journaled (delete, undo, resume).
    pub fn begin(&self, job: &Job) -> Result<Option<u64>, Error> {
        if StoredJob::of(job).is_none() {
            return Ok(None);
        }
        let _lock = self.lock()?;
        let (records, _) = self.load()?;
        let seq = records.last().map_or(1, |r| r.seq + 1);
        self.append_begin(seq, job, false)?;
        Ok(Some(seq))
    }

    /// [`begin`](Self::begin), with the line made durable on another thread while the job
    /// plans: the job must wait for the [`Durable`] before it writes anything
    /// ([`Engine::submit_journaled_after`](super::Engine::submit_journaled_after) does). What
    /// the window does; `None` for jobs that are not journaled.
    pub fn begin_in_background(&self, job: &Job) -> Result<Option<(u64, Durable)>, Error> {
        Ok(self
            .begin_unsynced(job)?
            .map(|(seq, durable, _)| (seq, durable)))
    }

    /// What a process whose first act is a new job does (a command such as `ferry cp`):
    /// [`begin_in_background`](Self::begin_in_background), then [`start_up`](Self::start_up),
    /// with the log read once for both (it is most of what the journal costs a job). The
    /// records start-up works on are those read before this job's: its own is running, so it
    /// is neither pruned nor recovered.
    pub fn begin_and_start_up(&self, job: &Job) -> Result<Begun, Error> {
        let Some((seq, durable, records)) = self.begin_unsynced(job)? else {
            return Ok(Begun::default());
        };
        let (interrupted, problems) = start_up_of(records, &self.prune_stamp());
        Ok(Begun {
            seq: Some(seq),
            durable: Some(durable),
            interrupted,
            problems,
        })
    }

    /// Appends `job`'s `begin` line and starts making it durable on another thread: its
    /// record number, the sync under way, and the records read before it. `None` (nothing
    /// read or written) for jobs that are not journaled.
    fn begin_unsynced(
        &self,
        job: &Job,
    ) -> Result<Option<(u64, Durable, Vec<JournalRecord>)>, Error> {
        if StoredJob::of(job).is_none() {
            return Ok(None);
        }
        let _lock = self.lock()?;
        let records = self.load_for_start()?;
        let seq = records.last().map_or(1, |r| r.seq + 1);
        match self.begin_line(seq, job, false) {
            Some(line) => Ok(Some((seq, self.append_in_background(&line)?, records))),
            None => Ok(None),
        }
    }

    /// Persists that record `seq` starts over with `job` (redo).
    pub fn restart(&self, seq: u64, job: &Job) -> Result<(), Error> {
        let _lock = self.lock()?;
        self.append_begin(seq, job, false)
    }

    /// Records that an undo of record `seq` begins, in this process (see
    /// [`JournalRecord::undo_unfinished`]).
    pub fn undo_started(&self, seq: u64) -> Result<(), Error> {
        let _lock = self.lock()?;
        let pid = std::process::id();
        let line = Line::UndoStarted {
            seq,
            time: now(),
            pid,
            pid_start: process_start(pid).unwrap_or(0),
        };
        self.append(&line, false)
    }

    /// Persists that the interrupted record `seq` is being resumed.
    pub fn resume(&self, seq: u64, job: &Job) -> Result<(), Error> {
        let _lock = self.lock()?;
        self.append_begin(seq, job, true)
    }

    /// Persists the end of record `seq` with what the job did.
    pub fn finish(&self, seq: u64, summary: &Summary, cancelled: bool) -> Result<(), Error> {
        let record = &summary.record;
        // Only folders merged into: recorded as nothing done, which undo passes over.
        let merged = record.merges_only().filter(|_| summary.trash.is_empty());
        let empty = crate::jobs::Record::default();
        let record = if merged.is_some() { &empty } else { record };
        let dropped = record.len() > MAX_ENTRIES;
        let absolute = Absolute::default();
        let mut staging: Vec<PathBuf> = record
            .staged()
            .filter_map(Path::parent)
            .map(|p| absolute.of(p).into_owned())
            .collect();
        staging.sort();
        staging.dedup();
        let details = DoneOut {
            record: (!dropped).then_some(record),
            trash: summary.trash.iter().map(StoredTrashRecord::of).collect(),
            absolute: &absolute,
        };
        let _lock = self.lock()?;
        let details = !details.is_empty() && {
            let text = details
                .encode()
                .map_err(|e| Error::io("encode", &self.file, e))?;
            details::write(&self.details_folder(), seq, Part::Done, &text)?;
            true
        };
        let line = Line::End {
            seq,
            time: now(),
            cancelled,
            done: summary.items_done.saturating_sub(merged.unwrap_or(0)),
            skipped: summary.skipped.len() as u64,
            failed: summary.failed.len() as u64,
            not_done: summary.not_done.len() as u64,
            details,
            staging: staging.iter().map(|p| StoredPath::path(p)).collect(),
            dropped,
        };
        self.append(&line, false)?;
        self.compact_if_long()
    }

    /// Dated by the last start-up that pruned the staging folders (`start_up.rs`).
    fn prune_stamp(&self) -> PathBuf {
        self.file.with_file_name("staging-pruned")
    }

    /// The folder of its records' details files.
    pub(crate) fn details_folder(&self) -> PathBuf {
        details::folder(&self.file)
    }

    /// What every Ferry process does at start, the window and each command alike: bounds the
    /// staging folders the records name and the user's own (the data folder's and those at
    /// the root of each local file system), whether or not a record still names them, when
    /// the last start that did was ten minutes ago or more (see `start_up.rs`), with
    /// [`prune_staging`](super::prune_staging), [`STAGING_MAX_AGE`](super::STAGING_MAX_AGE)
    /// and [`STAGING_MAX_BYTES`](super::STAGING_MAX_BYTES); and cleans up after interrupted
    /// jobs ([`recover`](Self::recover)). Returns those jobs, and the problems met on the way
    /// (neither step stops the other).
    pub fn start_up(&self) -> (Vec<JournalRecord>, Vec<Error>) {
        let records = tail::read_lock(self.lock(), &self.file.with_extension("lock"))
            .and_then(|_lock| self.load_for_start());
        match records {
            Ok(records) => start_up_of(records, &self.prune_stamp()),
            Err(e) => {
                // The user's own staging folders are bounded all the same.
                let (_, mut problems) = start_up_of(Vec::new(), &self.prune_stamp());
                problems.insert(0, e);
                (Vec::new(), problems)
            }
        }
    }

    /// Interrupted records, after putting back the sources their moves had set aside to
    /// remove them and removing the named temporaries their processes left in their
    /// destination folders. Their parts of large files (`.ferry-part-<seq>-…`) stay:
    /// resuming the record continues them, undoing it removes them. Cheap when nothing was
    /// interrupted; call it at start. A source whose name is taken stays set aside:
    /// [`start_up`](Self::start_up) reports it.
    pub fn recover(&self) -> Result<Vec<JournalRecord>, Error> {
        recover_of(self.records()?, &mut Vec::new())
    }

    /// Bounds the staging folders that the records' replaced items are kept in (see
    /// [`prune_staging`](super::prune_staging)): in each, removes what is older than
    /// `max_age`, then the oldest until it holds at most `max_bytes`. At start, with
    /// [`STAGING_MAX_AGE`](super::STAGING_MAX_AGE) and
    /// [`STAGING_MAX_BYTES`](super::STAGING_MAX_BYTES). Only folders named like a staging
    /// folder are touched, whatever the journal says.
    pub fn prune_staging(&self, max_age: Duration, max_bytes: u64) -> Result<Pruned, Error> {
        prune_staging_of(&self.records()?, max_age, max_bytes)
    }

    fn append_begin(&self, seq: u64, job: &Job, resumed: bool) -> Result<(), Error> {
        match self.begin_line(seq, job, resumed) {
            Some(line) => self.append(&line, true),
            None => Ok(()),
        }
    }

    /// The `begin` line of `job` as record `seq`; `None` for a job that is not journaled.
    fn begin_line(&self, seq: u64, job: &Job, resumed: bool) -> Option<Line> {
        let stored = StoredJob::of(job)?;
        let pid = std::process::id();
        let targets: Vec<PathBuf> = match (job, job.transfer()) {
            (_, Some(_)) => job.landings().into_iter().map(|(_, d)| d).collect(),
            (Job::Restore { items, .. }, None) => {
                items.iter().map(|i| i.original.clone()).collect()
            }
            (
                Job::Link {
                    targets, dest_dir, ..
                },
                None,
            ) => targets
                .iter()
                .filter_map(|t| t.file_name().map(|n| dest_dir.join(n)))
                .collect(),
            _ => Vec::new(),
        };
        let preexisting = taken(&targets)
            .into_iter()
            .map(|d| StoredPath::path(d))
            .collect();
        let (time, nsec) = now_as_file_times();
        Some(Line::Begin {
            seq,
            time,
            nsec,
            pid,
            pid_start: process_start(pid).unwrap_or(0),
            job: stored,
            preexisting,
            resumed,
        })
    }

    fn lock(&self) -> Result<File, Error> {
        let dir = self.file.parent().unwrap_or(Path::new("."));
        private_folder(dir)?;
        let path = self.file.with_extension("lock");
        let file = private_file()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|e| Error::io("open", &path, e))?;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
            .map_err(|e| Error::io("lock", &path, e))?;
        Ok(file) // unlocked when closed
    }

    /// Appends `line`; `durable`: on disk before returning (see the module's doc for which).
    fn append(&self, line: &Line, durable: bool) -> Result<(), Error> {
        let (file, created) = self.write_line(line)?;
        if durable {
            file.sync_data()
                .map_err(|e| Error::io("write", &self.file, e))?;
            if created {
                sync_dir(&self.file)?;
            }
        }
        Ok(())
    }

    /// Appends `line` and starts making it durable on another thread (see `durable.rs`).
    fn append_in_background(&self, line: &Line) -> Result<Durable, Error> {
        let (file, created) = self.write_line(line)?;
        Ok(Durable::start(file, self.file.clone(), created))
    }

    /// Appends `line`, not synced: the log, and whether this created it.
    fn write_line(&self, line: &Line) -> Result<(File, bool), Error> {
        let mut text = serde_json::to_vec(line).map_err(|e| Error::io("encode", &self.file, e))?;
        text.push(b'\n');
        let created = !self.file.exists();
        let mut file = private_file()
            .create(true)
            .read(true)
            .append(true)
            .open(&self.file)
            .map_err(|e| Error::io("open", &self.file, e))?;
        if tail::is_torn(&file, &self.file)? {
            text.insert(0, b'\n');
        }
        file.write_all(&text)
            .map_err(|e| Error::io("write", &self.file, e))?;
        Ok((file, created))
    }

    /// Reads the log: the newest records (at most the bound) and the number of lines read.
    fn load(&self) -> Result<(Vec<JournalRecord>, usize), Error> {
        self.load_skimming(None)
    }

    /// The records for what a job's or a process's start does with them, which is to take
    /// the next record number, the staging folders the records name and the interrupted
    /// records. A `begin` line longer than [`SKIM_LINE`] (a job given tens of thousands of
    /// sources, as a paste of a selection in the window) is read without its job. The
    /// records it begins stand for an empty copy, so this is only for that use. If such a
    /// record has not ended, the log is read again in full: an interrupted record's job is
    /// what recovery works from.
    fn load_for_start(&self) -> Result<Vec<JournalRecord>, Error> {
        let mut skimmed = Vec::new();
        let (records, _) = self.load_skimming(Some(&mut skimmed))?;
        let ended = |seq: &u64| {
            (records.iter().rev().find(|r| r.seq == *seq))
                .is_none_or(|r| !matches!(r.state, RecordState::Running | RecordState::Interrupted))
        };
        if skimmed.iter().all(ended) {
            return Ok(records);
        }
        Ok(self.load()?.0)
    }

    /// Reads the log; with `skimmed`, reads long `begin` lines without their jobs (see
    /// [`load_for_start`](Self::load_for_start)) and lists their records there.
    fn load_skimming(
        &self,
        mut skimmed: Option<&mut Vec<u64>>,
    ) -> Result<(Vec<JournalRecord>, usize), Error> {
        let file = match File::open(&self.file) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
            Err(e) => return Err(Error::io("open", &self.file, e)),
        };
        let mut records: Vec<JournalRecord> = Vec::new();
        let mut lines = 0;
        // Each record's last line: what it did last is how recent it is.
        let mut last_lines = HashMap::new();
        let (mut reader, mut line) = (BufReader::new(file), Vec::new());
        loop {
            // One buffer for every line: a line of megabytes is not grown again per line.
            line.clear();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => return Err(Error::io("read", &self.file, e)),
            }
            if line.last() == Some(&b'\n') {
                line.pop();
            }
            lines += 1;
            let skim = skimmed.as_deref_mut().filter(|_| line.len() > SKIM_LINE);
            let parsed = match skim.and_then(|list| Some((list, Line::skimmed(&line)?))) {
                Some((list, line)) => {
                    list.push(line.seq());
                    Ok(line)
                }
                None => serde_json::from_slice::<Line>(&line),
            };
            // A torn line from a crash mid-append carries nothing that was promised.
            let Ok(line) = parsed else {
                continue;
            };
            last_lines.insert(line.seq(), lines);
            apply(&mut records, line);
        }
        self.seen_lines.store(lines, Relaxed);
        let recent = recent_enough(&last_lines, self.limit);
        records.retain(|r| recent(r.seq) || r.unresolved());
        for r in &mut records {
            if r.state == RecordState::Running && !is_alive(r.pid, r.pid_start) {
                r.state = RecordState::Interrupted;
            }
        }
        Ok((records, lines))
    }

    /// Rewrites the log with only the newest records once it is three times the bound, and
    /// the older ones still unresolved ([`JournalRecord::unresolved`]): a job still running
    /// or interrupted, however many jobs ran since, can still be finished, resumed or rolled
    /// back, and what it staged or set aside put back. Dropping them lost a user's file: a
    /// Replace killed after staging the old file, then 160 jobs, left the old file only in
    /// the staging folder, named by no record.
    fn compact_if_long(&self) -> Result<(), Error> {
        // The log as this job's begin read it, plus its begin and end lines (lines other
        // processes added meanwhile only delay the rewrite to a later job, which reads them).
        let seen = self.seen_lines.load(Relaxed);
        if seen.saturating_add(2) <= 3 * self.limit {
            return Ok(());
        }
        // Counting lines costs a read; parsing them, most of what a job pays the journal.
        if self.line_count()? <= 3 * self.limit {
            return Ok(());
        }
        let (records, lines) = self.load_raw()?;
        if lines <= 3 * self.limit {
            return Ok(());
        }
        let last_lines = records.iter().map(|r| (r.seq, r.last_line)).collect();
        let recent = recent_enough(&last_lines, self.limit);
        let keep: Vec<RawRecord> = (records.into_iter())
            .filter(|r| recent(r.seq) || unresolved(r))
            .collect();
        let temp = self.file.with_extension("jsonl.tmp");
        let mut text = Vec::new();
        for r in &keep {
            for line in &r.lines {
                serde_json::to_writer(&mut text, line)
                    .map_err(|e| Error::io("encode", &temp, e))?;
                text.push(b'\n');
            }
        }
        write_replacing(&temp, &self.file, &text, true)?;
        sync_dir(&self.file)?;
        let kept = keep.iter().map(|r| r.seq).collect();
        details::sweep(&self.details_folder(), &kept)
    }

    /// Lines in the log, as [`load`](Self::load) counts them (a torn last line counts).
    fn line_count(&self) -> Result<usize, Error> {
        let mut file = match File::open(&self.file) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(Error::io("open", &self.file, e)),
        };
        // In pieces: reading a log with a line of megabytes whole cost a job's end more in
        // page faults than in counting.
        let (mut buf, mut newlines, mut last) = (vec![0u8; 64 << 10], 0, b'\n');
        loop {
            let n = match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::io("read", &self.file, e)),
            };
            newlines += buf[..n].iter().filter(|&&b| b == b'\n').count();
            last = buf[n - 1];
        }
        Ok(newlines + usize::from(last != b'\n'))
    }

    /// The log as raw lines grouped by record, for compaction.
    fn load_raw(&self) -> Result<(Vec<RawRecord>, usize), Error> {
        let file = File::open(&self.file).map_err(|e| Error::io("open", &self.file, e))?;
        let mut records: Vec<RawRecord> = Vec::new();
        let mut count = 0;
        for line in BufReader::new(file).split(b'\n') {
            let line = line.map_err(|e| Error::io("read", &self.file, e))?;
            count += 1;
            let Ok(line) = serde_json::from_slice::<Line>(&line) else {
                continue;
            };
            let seq = line.seq();
            match records.iter_mut().rev().find(|r| r.seq == seq) {
                Some(r) => {
                    r.lines.push(line);
                    r.last_line = count;
                }
                None => records.push(RawRecord {
                    seq,
                    lines: vec![line],
                    last_line: count,
                }),
            }
        }
        Ok((records, count))
    }
}

struct RawRecord {
    seq: u64,
    lines: Vec<Line>,
    /// The number of its last line in the log.
    last_line: usize,
}

/// Whether a record is among the `limit` most recent, `last_lines` giving each record's last
/// line: a job that ran long is as recent as its end, not its begin (a copy begun before 160
/// short ones and ended after them, bounded by begin, was gone from the history as it ended).
fn recent_enough(last_lines: &HashMap<u64, usize>, limit: usize) -> impl Fn(u64) -> bool + '_ {
    let mut lasts: Vec<usize> = last_lines.values().copied().collect();
    let cut = lasts.len().saturating_sub(limit);
    let oldest_kept = match cut {
        0 => 0,
        _ => *lasts.select_nth_unstable(cut).1,
    };
    move |seq| last_lines.get(&seq).is_some_and(|&l| l >= oldest_kept)
}

/// How far past a record's start a time must be to be surely after it: the start is read from
/// the kernel's coarse clock ([`now_as_file_times`]), a tick (4-10 ms) behind the precise
/// one some file systems stamp a birth or a change with, so an item made or changed just
/// before the job may seem so just after its start. A margin of a few ticks tells them apart.
pub(crate) const CLOCK_SLACK: Duration = Duration::from_millis(50);

/// Now, by the clock the kernel stamps file times with (the coarse real-time clock, a tick
/// behind the precise one): everything a job changes after its start is stamped at or after
/// it, which the precise clock, read later than the tick, would not promise.
fn now_as_file_times() -> (u64, u32) {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::RealtimeCoarse);
    let secs = u64::try_from(t.tv_sec).unwrap_or(0);
    let nsec = u32::try_from(t.tv_nsec).unwrap_or(0);
    (secs, nsec)
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// How long the places of a `begin` line on file systems that may hang (a network share, a
/// FUSE server) are waited for.
const HANGING_PATIENCE: Duration = Duration::from_secs(2);

/// The `targets` that exist: the places a job is to fill that are taken before it starts.
///
/// Looking at a place on a file system that stopped answering held the `begin` line, and
/// with it the window's job, and every job after it waiting for the journal. So places on
/// file systems that may hang are looked at on a thread of their own, and if it does not
/// answer in [`HANGING_PATIENCE`] they count as taken, which a roll back takes only as "not
/// the job's to remove" (counting them taken unasked, a roll back left all a killed move had
/// carried onto a FUSE disk there, and said it was done).
fn taken(targets: &[PathBuf]) -> Vec<&PathBuf> {
    let mounts = (!targets.is_empty()).then(crate::fs::MountTable::read);
    let may_hang = |d: &Path| {
        let table = mounts.as_ref().expect("read when there are targets");
        std::path::absolute(d).is_ok_and(|d| table.covering(&d).is_some_and(|m| m.may_hang()))
    };
    let hanging: Vec<PathBuf> = targets.iter().filter(|d| may_hang(d)).cloned().collect();
    let hanging_taken: Option<HashSet<PathBuf>> = (!hanging.is_empty())
        .then(|| {
            let (tx, rx) = crossbeam_channel::bounded(1);
            let looked = std::thread::Builder::new()
                .name("ferry-look".into())
                .spawn(move || {
                    let taken = hanging.into_iter().filter(|d| d.symlink_metadata().is_ok());
                    let _ = tx.send(taken.collect::<HashSet<_>>());
                });
            looked
                .ok()
                .and_then(|_| rx.recv_timeout(HANGING_PATIENCE).ok())
        })
        .flatten();
    let is_taken = |d: &&PathBuf| match &hanging_taken {
        Some(taken) if may_hang(d) => taken.contains(*d),
        None if may_hang(d) => true,
        _ => d.symlink_metadata().is_ok(),
    };
    targets.iter().filter(is_taken).collect()
}

fn sync_dir(file: &Path) -> Result<(), Error> {
    let dir = file.parent().unwrap_or(Path::new("."));
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| Error::io("flush", dir, e))
}

/// Start time of process `pid` in clock ticks since boot (field 22 of `/proc/PID/stat`), which
/// tells a live process from a later one that reused its number.
fn process_start(pid: u32) -> Option<u64> {
    process_stat(pid).map(|(_, start)| start)
}

/// The state letter (field 3 of `/proc/PID/stat`) and start time of process `pid`.
fn process_stat(pid: u32) -> Option<(u8, u64)> {
    let stat = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.iter().rposition(|&b| b == b')')? + 1..];
    let mut fields = std::str::from_utf8(after_name)
        .ok()?
        .split_ascii_whitespace();
    let state = *fields.next()?.as_bytes().first()?;
    let start = fields.nth(18)?.parse().ok()?;
    Some((state, start))
}

/// Whether process `pid` runs, and is the one started at `start` (0: any of that number). A
/// zombie does not: killed, it is dead whether or not its parent has reaped it yet (`timeout
/// -s KILL` leaves its child to init, and every `ferry resume` straight after the kill said
/// the job was still running).
pub(crate) fn is_alive(pid: u32, start: u64) -> bool {
    process_stat(pid)
        .is_some_and(|(state, s)| !matches!(state, b'Z' | b'X') && (start == 0 || s == start))
}

#[cfg(test)]
mod tests;
