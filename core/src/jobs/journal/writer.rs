//! One journal writer at a time. An undo, redo or resume decides what to do from the journal
//! (the newest record, the one undone last, an interrupted one), runs a job, and records its
//! end; two of them at once (two `ferry undo`, or the window and a command) would decide the
//! same record and both carry it out. So each holds the journal's writer lock, an `flock` on
//! `journal.writer.lock` beside the log, from its decision to the line that records its end:
//! the second waits, then decides from what the first left ("nothing to undo", or the record
//! before).
//!
//! The lock is its own file, apart from the short lock every read and append of the log takes
//! (`journal.lock`), so that a holder still reads and appends, and so that a new job's begin
//! and end never wait for a long undo. Locks on two descriptors of one file exclude each
//! other even within one process: two threads of the window are kept apart as two processes
//! are. Nothing in the journal takes this lock by itself; whoever decides takes it.

use std::fs::File;
use std::path::{Path, PathBuf};

use rustix::fs::FlockOperation;
use rustix::io::Errno;

use super::{JournalRecord, UndoJournal};
use crate::error::Error;
use crate::jobs::{Job, Summary};

/// The journal's writer lock, held until dropped: only the holder decides and records an
/// undo, redo or resume (see the module documentation). Get it with [`UndoJournal::writer`]
/// (or [`UndoJournal::try_writer`]) before choosing the record, and keep it until the job's
/// end is recorded through [`record_end`](Self::record_end). It can be sent to another
/// thread (the window holds it across its blocking tasks).
#[derive(Debug)]
pub struct JournalWriter {
    journal: UndoJournal,
    _lock: File,
}

impl UndoJournal {
    fn writer_lock_file(&self) -> Result<(File, PathBuf), Error> {
        let dir = self.file.parent().unwrap_or(Path::new("."));
        super::private_folder(dir)?;
        let path = self.file.with_extension("writer.lock");
        let opened = super::private_file()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path);
        match opened {
            Ok(file) => Ok((file, path)),
            // A folder made read-only after the journal was (`chmod 500`): its log and
            // details can still be written, so jobs are recorded, but no lock file can be
            // made beside them. The log itself is locked instead: compaction, the only
            // thing that replaces it, cannot run in such a folder either.
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
                ) && self.file.exists() =>
            {
                let file = File::open(&self.file).map_err(|e| Error::io("open", &self.file, e))?;
                Ok((file, self.file.clone()))
            }
            Err(e) => Err(Error::io("open", &path, e)),
        }
    }

    /// Waits until no other undo, redo or resume is under way on this journal (in any
    /// process or thread), then holds the writer lock until the returned guard is dropped.
    pub fn writer(&self) -> Result<JournalWriter, Error> {
        let (file, path) = self.writer_lock_file()?;
        rustix::fs::flock(&file, FlockOperation::LockExclusive)
            .map_err(|e| Error::io("lock", &path, e))?;
        Ok(JournalWriter {
            journal: self.clone(),
            _lock: file,
        })
    }

    /// Like [`writer`](Self::writer), without waiting: `None` while another holds it (the
    /// window can then say that another undo is under way, and wait in the background).
    pub fn try_writer(&self) -> Result<Option<JournalWriter>, Error> {
        let (file, path) = self.writer_lock_file()?;
        match rustix::fs::flock(&file, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => Ok(Some(JournalWriter {
                journal: self.clone(),
                _lock: file,
            })),
            Err(Errno::WOULDBLOCK) => Ok(None),
            Err(e) => Err(Error::io("lock", &path, e)),
        }
    }
}

impl JournalWriter {
    /// The journal this lock is for (for what only reads, such as [`UndoJournal::recover`]
    /// before a resume or a roll back chooses among the interrupted records).
    pub fn journal(&self) -> &UndoJournal {
        &self.journal
    }

    /// The record undo applies to now (see [`UndoJournal::undo_candidate`]).
    pub fn undo_candidate(&self) -> Result<Option<JournalRecord>, Error> {
        self.journal.undo_candidate()
    }

    /// The record redo applies to now (see [`UndoJournal::redo_candidate`]).
    pub fn redo_candidate(&self) -> Result<Option<JournalRecord>, Error> {
        self.journal.redo_candidate()
    }

    /// Records that record `seq` starts over with `job` (redo).
    pub fn restart(&self, seq: u64, job: &Job) -> Result<(), Error> {
        self.journal.restart(seq, job)
    }

    /// Records that an undo of record `seq` begins (see
    /// [`JournalRecord::undo_unfinished`](super::JournalRecord::undo_unfinished)).
    pub fn undo_started(&self, seq: u64) -> Result<(), Error> {
        self.journal.undo_started(seq)
    }

    /// Records that the interrupted record `seq` is being resumed with `job`.
    pub fn resume(&self, seq: u64, job: &Job) -> Result<(), Error> {
        self.journal.resume(seq, job)
    }

    /// Records how the job run for record `seq` ended (see [`UndoJournal::record_end`]);
    /// drop the lock after this.
    pub fn record_end(
        &self,
        seq: u64,
        undo: bool,
        summary: &Summary,
        cancelled: bool,
    ) -> Result<(), Error> {
        self.journal.record_end(seq, undo, summary, cancelled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_writer_at_a_time_even_within_a_process() {
        let dir = tempfile::tempdir().unwrap();
        let journal = UndoJournal::at(dir.path().join("state/journal.jsonl"));
        let first = journal.writer().unwrap();
        assert!(journal.try_writer().unwrap().is_none());
        // The holder still reads and appends (another lock file).
        assert!(first.undo_candidate().unwrap().is_none());
        let other = journal.clone();
        let waiter = std::thread::spawn(move || other.writer().map(drop));
        drop(first);
        waiter.join().unwrap().unwrap();
        assert!(journal.try_writer().unwrap().is_some());
    }
}
