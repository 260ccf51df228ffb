//! A job's `begin` line made durable while the job plans.
//!
//! `begin` must be on disk before the job writes anything, so that a crash mid-job is found
//! at the next start. It need not be on disk before the job *reads*: planning only walks the
//! sources and looks at the destination (where the destination's file system has to be
//! probed by creating a file, `probe.rs`, the probe waits for the line). So a command's job
//! starts planning while another thread `fdatasync`s the line, and waits for it in its
//! preflight, after planning and before its first write (`start::preflight`; jobs without a
//! planning walk wait before they start).
//! A copy into a file system held in memory (tmpfs) does not wait: a power loss takes its
//! copies with it and leaves its sources as they were, so the line would tell of nothing to
//! undo (a crash of the process alone finds the line written, synced or not). On a disk slow
//! to commit, the wait was 15-20 ms of a 5,000-file copy to `/dev/shm` (`ferry bench`).
//! If the sync fails, the job writes nothing and stops with the error. A crash before the
//! sync completes loses at worst a `begin` line for a job that wrote nothing: nothing to
//! recover, as when a crash comes before `begin`.
//!
//! The sync of one line waits for the filesystem's journal commit: 0.2 to 15 ms measured on a
//! shared ext4 disk here, about what planning 5,000 files takes.

use std::fs::File;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use crate::error::Error;

type Outcome = Mutex<Option<Result<(), Arc<Error>>>>;

/// A job's `begin` line on its way to the disk (see [`UndoJournal::begin_and_start_up`]):
/// the job waits for it before it writes anything.
///
/// [`UndoJournal::begin_and_start_up`]: super::UndoJournal::begin_and_start_up
#[derive(Debug, Clone)]
pub struct Durable(Arc<(Outcome, Condvar)>);

impl Durable {
    /// `fdatasync`s `file` (the log, at `path`) on a thread of its own, then, if `created`,
    /// the folder holding it.
    pub(super) fn start(file: File, path: PathBuf, created: bool) -> Durable {
        let durable = Durable(Arc::default());
        let shared = Arc::clone(&durable.0);
        let log = path.clone();
        let sync = move || {
            let result = file
                .sync_data()
                .map_err(|e| Error::io("write", &path, e))
                .and_then(|()| {
                    if created {
                        super::sync_dir(&path)
                    } else {
                        Ok(())
                    }
                });
            let (outcome, done) = &*shared;
            *outcome.lock().unwrap_or_else(PoisonError::into_inner) =
                Some(result.map_err(Arc::new));
            done.notify_all();
        };
        let spawned = std::thread::Builder::new()
            .name("ferry-journal".into())
            .spawn(sync);
        if let Err(e) = spawned {
            // No thread to be had: say so, and the job writes nothing.
            let error = Arc::new(Error::io("start a thread to flush", &log, e));
            *(durable.0).0.lock().unwrap_or_else(PoisonError::into_inner) = Some(Err(error));
        }
        durable
    }

    /// Waits until the line is on disk; the error if it could not be made so.
    pub fn wait(&self) -> Result<(), Arc<Error>> {
        let (outcome, done) = &*self.0;
        let mut outcome = outcome.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(result) = &*outcome {
                return result.clone();
            }
            outcome = done.wait(outcome).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waiting_returns_once_the_line_is_synced_and_every_waiter_sees_it() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("journal.jsonl");
        std::fs::write(&path, b"{}\n").unwrap();
        let file = File::options().append(true).open(&path).unwrap();
        let durable = Durable::start(file, path, true);
        let other = durable.clone();
        assert!(
            std::thread::spawn(move || other.wait())
                .join()
                .unwrap()
                .is_ok()
        );
        assert!(durable.wait().is_ok());
        assert!(durable.wait().is_ok(), "a second wait answers at once");
    }

    #[test]
    fn a_job_whose_record_cannot_be_flushed_writes_nothing() {
        use crate::jobs::{ConflictPolicy, Engine, Event, Job, JobOptions, Summary};
        // procfs files cannot be synced: the flush fails.
        let proc = PathBuf::from("/proc/self/stat");
        let failing = || Durable::start(File::open(&proc).unwrap(), proc.clone(), false);
        assert!(failing().wait().is_err());
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("a.txt");
        std::fs::write(&src, "a").unwrap();
        let dest = tmp.path().join("dest");
        std::fs::create_dir(&dest).unwrap();
        let (engine, events) = Engine::start();
        let finished = |id| -> Summary {
            events
                .iter()
                .find_map(|e| match e {
                    Event::Finished { job, summary } if job == id => Some(summary),
                    _ => None,
                })
                .unwrap()
        };
        let copy = Job::Copy {
            sources: vec![src.clone()],
            dest_dir: dest.clone(),
            dest_name: None,
            on_conflict: ConflictPolicy::Skip,
        };
        let summary =
            finished(engine.submit_journaled_after(copy, JobOptions::default(), 1, failing()));
        assert!(summary.stopped_by.is_some(), "{summary:?}");
        assert_eq!(summary.items_done, 0);
        assert_eq!(std::fs::read_dir(&dest).unwrap().count(), 0);
        // A job without a planning walk does not start either.
        let rename = Job::Rename {
            path: src.clone(),
            new_name: "b.txt".into(),
        };
        let summary =
            finished(engine.submit_journaled_after(rename, JobOptions::default(), 2, failing()));
        assert!(summary.stopped_by.is_some(), "{summary:?}");
        assert!(src.exists());
    }
}
