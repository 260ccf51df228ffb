//! Per-job control (pause, cancel, stop on a terminal error), the per-device job queue, and
//! the context every part of a running job shares.

use std::collections::{BTreeMap, HashSet};
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Duration;

use crossbeam_channel::Sender;
use rustix::io::Errno;

use super::conflict::{Asks, ErrorAction, ErrorPolicy};
use super::progress::Counters;
use super::staging::StagingRoots;
use super::{Event, Job, JobId, Note, NoteKind, SkipReason, Totals, lock};
use crate::error::Error;
use crate::fs::FileId;

/// How often a waiting thread looks at the cancel flag even without a wake-up.
const POLL: Duration = Duration::from_millis(50);

/// Flags a job's threads check at every checkpoint.
#[derive(Default)]
pub(crate) struct Control {
    cancelled: AtomicBool,
    paused: AtomicBool,
    /// The error that stopped the job (no space, quota, I/O error).
    halted: OnceLock<Arc<Error>>,
    wake: (Mutex<()>, Condvar),
    /// Conflicts and error requests waiting for answers.
    pub(crate) asks: Asks,
    /// Whether failing items ask before being skipped.
    pub(crate) on_error: ErrorPolicy,
    /// Set from outside the engine, it cancels the job as [`cancel`](Self::cancel) does,
    /// seen at the next item or wait poll ([`Engine::cancel_all_when`](super::Engine)).
    cancel_flag: Option<Arc<AtomicBool>>,
}

impl Control {
    /// A control block for a job with error policy `on_error`.
    pub(crate) fn new(on_error: ErrorPolicy) -> Self {
        Control {
            on_error,
            ..Control::default()
        }
    }

    /// This control block, also cancelled once `flag` (if any) is set.
    pub(crate) fn cancelled_by(self, flag: Option<Arc<AtomicBool>>) -> Self {
        Control {
            cancel_flag: flag,
            ..self
        }
    }

    pub(crate) fn cancel(&self) {
        self.mark_cancelled();
        self.wake.1.notify_all();
        self.asks.wake();
    }

    /// Marks the job cancelled without waking anything (see [`cancel`](Self::cancel)).
    pub(crate) fn mark_cancelled(&self) {
        self.cancelled.store(true, SeqCst);
    }

    pub(crate) fn pause(&self) {
        self.paused.store(true, SeqCst);
    }

    pub(crate) fn resume(&self) {
        self.paused.store(false, SeqCst);
        self.wake.1.notify_all();
    }

    pub(crate) fn is_cancelled(&self) -> bool {
        self.cancelled.load(SeqCst) || self.cancel_flag.as_ref().is_some_and(|f| f.load(SeqCst))
    }

    pub(crate) fn is_paused(&self) -> bool {
        self.paused.load(SeqCst)
    }

    /// Stops the job because of `error`; the first such error wins.
    pub(crate) fn halt(&self, error: Arc<Error>) {
        let _ = self.halted.set(error);
        self.wake.1.notify_all();
    }

    pub(crate) fn halted_by(&self) -> Option<&Arc<Error>> {
        self.halted.get()
    }

    /// True once the job must stop (cancelled or halted).
    pub(crate) fn stopped(&self) -> bool {
        self.is_cancelled() || self.halted.get().is_some()
    }

    /// Waits while paused; returns false when the job must stop.
    pub(crate) fn checkpoint(&self) -> bool {
        if self.paused.load(SeqCst) {
            let mut guard = lock(&self.wake.0);
            while self.paused.load(SeqCst) && !self.stopped() {
                guard = self
                    .wake
                    .1
                    .wait_timeout(guard, POLL)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
        }
        !self.stopped()
    }
}

/// Devices a job reads or writes, for the queue; paths that cannot be read are left to the
/// job to report.
pub(crate) fn devices_of(job: &Job) -> Vec<u64> {
    let dev = |p: &PathBuf, follow: bool| {
        let m = if follow {
            std::fs::metadata(p)
        } else {
            std::fs::symlink_metadata(p)
        };
        m.map(|m| m.dev()).ok()
    };
    let mut devs: Vec<u64> = match job {
        Job::Copy {
            sources, dest_dir, ..
        }
        | Job::Move {
            sources, dest_dir, ..
        } => sources
            .iter()
            .filter_map(|s| dev(s, false))
            .chain(dev(dest_dir, true))
            .collect(),
        Job::Delete { paths } => paths.iter().filter_map(|p| dev(p, false)).collect(),
        // A single rename, mkdir or a few links never wait behind a long copy.
        Job::Rename { .. } | Job::CreateFolder { .. } | Job::Link { .. } => Vec::new(),
        Job::Undo { record, .. } | Job::Resume { record } => super::undo::devices_of(record),
        Job::Trash { .. } | Job::Restore { .. } | Job::EmptyTrash { .. } => {
            super::trash::devices_of(job)
        }
    };
    devs.sort_unstable();
    devs.dedup();
    devs
}

/// Lets a job run only when no running job uses one of its devices and no earlier waiting job
/// wants one of them (first come, first served per device; no deadlock, as the earliest
/// waiting job can always start once its devices are free).
#[derive(Default)]
pub(crate) struct DeviceQueue {
    state: Mutex<QueueState>,
    changed: Condvar,
}

#[derive(Default)]
struct QueueState {
    busy: HashSet<u64>,
    waiting: BTreeMap<JobId, Vec<u64>>,
}

impl DeviceQueue {
    /// Blocks until `job` may use `devices`; false if it was cancelled while waiting.
    pub(crate) fn acquire(&self, job: JobId, devices: &[u64], control: &Control) -> bool {
        if devices.is_empty() {
            return !control.is_cancelled();
        }
        let mut state = lock(&self.state);
        state.waiting.insert(job, devices.to_vec());
        loop {
            if control.is_cancelled() {
                state.waiting.remove(&job);
                self.changed.notify_all();
                return false;
            }
            let free = devices.iter().all(|d| !state.busy.contains(d));
            let first = state
                .waiting
                .range(..job)
                .all(|(_, theirs)| theirs.iter().all(|d| !devices.contains(d)));
            if free && first {
                state.waiting.remove(&job);
                state.busy.extend(devices.iter().copied());
                return true;
            }
            state = self
                .changed
                .wait_timeout(state, POLL)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Frees `devices` for the next jobs.
    pub(crate) fn release(&self, devices: &[u64]) {
        let mut state = lock(&self.state);
        for d in devices {
            state.busy.remove(d);
        }
        self.changed.notify_all();
    }
}

/// Items that did not get done, with why; `item` indexes the job's plan.
#[derive(Default)]
pub(crate) struct Problems {
    pub(crate) skipped: Vec<(u32, PathBuf, SkipReason)>,
    pub(crate) failed: Vec<(u32, PathBuf, Arc<Error>)>,
}

/// What every thread of a running job shares.
pub(crate) struct JobCtx {
    pub(crate) id: JobId,
    pub(crate) control: Arc<Control>,
    pub(crate) events: Sender<Event>,
    pub(crate) counters: Counters,
    /// Where Replace keeps what it replaces.
    pub(crate) staging: Arc<StagingRoots>,
    /// The undo journal's record of this copy or move (or of the job it resumes): its large
    /// files are written under names derived from it, kept after a crash for resume.
    pub(crate) journal_seq: Option<u64>,
    /// The job resumes an interrupted copy or move: a destination file identical to its
    /// source is the interrupted run's copy, done (never replaced again, which would stage
    /// that copy as if it were the file it replaced).
    pub(crate) resuming: bool,
    /// Copies an interrupted move made of files with several names, whose sources its resume
    /// removed before planning the rest: the names left are linked to them.
    pub(crate) linked_copies: Mutex<Vec<(FileId, PathBuf)>>,
    /// That record's `begin` line, if still on its way to the disk: waited for before the
    /// job writes anything.
    pub(crate) durable: Option<super::Durable>,
    /// The journal's details folder, if the engine was given one
    /// ([`Engine::keep_details_in`](super::Engine::keep_details_in)).
    pub(crate) details: Option<std::path::PathBuf>,
    problems: Mutex<Problems>,
    notes: Mutex<Vec<Note>>,
    /// What the job's plans so far came to, and what those before the latest did: a job of
    /// several runs (an undo putting back from several folders, a resume, a restore to two
    /// disks) counts its items and bytes done across them, so its totals must add up too.
    planned: Mutex<(Totals, Totals)>,
}

impl JobCtx {
    pub(crate) fn new(
        id: JobId,
        control: Arc<Control>,
        events: Sender<Event>,
        staging: Arc<StagingRoots>,
    ) -> Self {
        JobCtx {
            id,
            control,
            events,
            staging,
            journal_seq: None,
            resuming: false,
            linked_copies: Mutex::default(),
            durable: None,
            details: None,
            counters: Counters::default(),
            problems: Mutex::default(),
            notes: Mutex::default(),
            planned: Mutex::default(),
        }
    }

    pub(crate) fn emit(&self, event: Event) {
        // A plan of a job that planned before adds to what it planned: said as one total
        // ("34,133 of 19,978 items" in an undo that moved back from two folders).
        let event = match event {
            Event::Planned { job, totals } => {
                let mut planned = lock(&self.planned);
                *planned = (planned.0.plus(&totals), planned.0);
                let totals = planned.0;
                Event::Planned { job, totals }
            }
            event => event,
        };
        // Nobody listening is not an error: the job still runs to its end.
        let _ = self.events.send(event);
    }

    /// `totals` of the job's latest plan, with what its earlier plans came to.
    pub(crate) fn with_earlier_plans(&self, totals: &Totals) -> Totals {
        lock(&self.planned).1.plus(totals)
    }

    /// Records that `item` (source path `path`) failed; a terminal error also stops the job.
    pub(crate) fn fail(&self, item: u32, path: PathBuf, error: Error) {
        self.record_failure(item, path, Arc::new(error.as_found()));
    }

    fn record_failure(&self, item: u32, path: PathBuf, error: Arc<Error>) {
        if error.is_terminal() {
            self.control.halt(Arc::clone(&error));
        }
        self.emit(Event::ItemFailed {
            job: self.id,
            path: path.clone(),
            error: Arc::clone(&error),
        });
        lock(&self.problems).failed.push((item, path, error));
    }

    /// Like [`fail`](Self::fail), but when the job asks about errors, first offers the item
    /// to the user ([`Event::ItemError`]) and waits for the answer; true when the item should
    /// be tried again (nothing recorded). An item the user skips (Skip, or Skip all of this
    /// kind, answered now or before) is recorded as skipped with its error
    /// ([`SkipReason::UserSkipped`]), not as failed. Terminal errors stop the job and are never
    /// offered.
    pub(crate) fn fail_or_retry(&self, item: u32, path: PathBuf, error: Error) -> bool {
        let error = Arc::new(error.as_found());
        let ask = self.control.on_error == ErrorPolicy::Ask
            && !error.is_terminal()
            // Nothing can be written there again: Retry could never succeed.
            && !matches!(*error, Error::FolderRemoved { .. })
            && !matches!(*error, Error::Cancelled)
            && !self.control.stopped();
        if !ask {
            self.record_failure(item, path, error);
            return false;
        }
        // `None`: an earlier Skip all of this kind answers it.
        let action = match self.control.asks.add_error(error.raw_os_error()) {
            Some(request) => {
                self.emit(Event::ItemError {
                    job: self.id,
                    request,
                    path: path.clone(),
                    error: Arc::clone(&error),
                });
                let stop = || self.control.stopped();
                self.control.asks.wait_error(request, stop)
            }
            None => ErrorAction::SkipAllOfKind,
        };
        match action {
            ErrorAction::Retry => return true,
            ErrorAction::Skip | ErrorAction::SkipAllOfKind => {
                self.skip(item, path, SkipReason::UserSkipped { error });
            }
            // Cancel was carried out by `Engine::resolve_error` itself (or the job stopped
            // while waiting): the item failed.
            ErrorAction::Cancel => self.record_failure(item, path, error),
        }
        false
    }

    /// Runs `attempt` for `item` (source path `path()`) until it succeeds or its failure is
    /// not to be tried again (see [`fail_or_retry`](Self::fail_or_retry)); `None` once the
    /// failure is recorded. Costs nothing beyond the call when `attempt` succeeds.
    pub(crate) fn retrying<T>(
        &self,
        item: u32,
        path: impl Fn() -> PathBuf,
        mut attempt: impl FnMut() -> Result<T, Error>,
    ) -> Option<T> {
        loop {
            match attempt() {
                Ok(value) => return Some(value),
                Err(e) => {
                    if !self.fail_or_retry(item, path(), e) {
                        return None;
                    }
                }
            }
        }
    }

    /// Waits until the job's journal record is on disk (at once if there is none to wait
    /// for); false, with the job halted by the error, if it cannot be.
    pub(crate) fn wait_durable(&self) -> bool {
        match self.durable.as_ref().map(super::Durable::wait) {
            None | Some(Ok(())) => true,
            Some(Err(error)) => {
                self.control.halt(error);
                false
            }
        }
    }

    /// Records that `item` was skipped.
    pub(crate) fn skip(&self, item: u32, path: PathBuf, reason: SkipReason) {
        lock(&self.problems).skipped.push((item, path, reason));
    }

    /// Notes that the destination did not keep `kind` for `path` (see `notes.rs`), the file
    /// system answering `errno` (`None`: it holds none of it at all, and was not asked): the
    /// first time for `kind` with its path and error; after, only counted.
    pub(crate) fn note(&self, kind: NoteKind, path: PathBuf, errno: Option<Errno>) {
        let mut notes = lock(&self.notes);
        match notes.iter_mut().find(|n| n.kind == kind) {
            Some(n) => n.count += 1,
            None => notes.push(Note::new(kind, path, errno)),
        }
    }

    /// Notes the extended attributes (or only the ACLs) `not_kept` of `path`.
    pub(crate) fn note_xattrs(&self, path: PathBuf, not_kept: crate::fs::NotKept) {
        self.note(NoteKind::of_xattrs(&not_kept), path, Some(not_kept.errno));
    }

    pub(crate) fn take_notes(&self) -> Vec<Note> {
        std::mem::take(&mut *lock(&self.notes))
    }

    pub(crate) fn take_problems(&self) -> Problems {
        std::mem::take(&mut *lock(&self.problems))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_sharing_a_device_wait_in_submission_order() {
        let queue = Arc::new(DeviceQueue::default());
        let c = Control::default();
        assert!(queue.acquire(JobId(1), &[7], &c));
        assert!(
            queue.acquire(JobId(3), &[8], &c),
            "another device runs in parallel"
        );
        let (q, done) = (Arc::clone(&queue), Arc::new(AtomicBool::new(false)));
        let d = Arc::clone(&done);
        let waiter = std::thread::spawn(move || {
            assert!(q.acquire(JobId(2), &[7, 8], &Control::default()));
            d.store(true, SeqCst);
        });
        std::thread::sleep(Duration::from_millis(120));
        assert!(!done.load(SeqCst));
        queue.release(&[7]);
        queue.release(&[8]);
        waiter.join().unwrap();
        assert!(done.load(SeqCst));
    }

    #[test]
    fn a_cancelled_waiting_job_gives_up() {
        let queue = DeviceQueue::default();
        let c = Control::default();
        assert!(queue.acquire(JobId(1), &[7], &c));
        let cancelled = Control::default();
        cancelled.cancel();
        assert!(!queue.acquire(JobId(2), &[7], &cancelled));
    }

    #[test]
    fn checkpoint_blocks_while_paused_and_releases_on_cancel() {
        let c = Arc::new(Control::default());
        c.pause();
        let c2 = Arc::clone(&c);
        let t = std::thread::spawn(move || c2.checkpoint());
        std::thread::sleep(Duration::from_millis(60));
        assert!(!t.is_finished());
        c.cancel();
        assert!(!t.join().unwrap());
    }
}
