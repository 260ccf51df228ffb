//! The engine: runs each submitted job on a thread of its own, one at a time per device, with
//! its control (pause, cancel, answers) and its events; a job's panic ends it, not the engine.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};

use super::control::{self, Control, DeviceQueue, JobCtx};
use super::{
    ConflictId, Durable, ErrorAction, ErrorId, Event, Job, JobId, JobOptions, Resolution, Scope,
    StagingRoots, Summary, UndoJournal, copy, defect, lock, moves, recovery, single, symlinks,
    trash, undo,
};
use crate::error::Error;

struct Shared {
    events: Sender<Event>,
    controls: Mutex<HashMap<JobId, Arc<Control>>>,
    devices: DeviceQueue,
    staging: Arc<StagingRoots>,
    /// See [`Engine::cancel_all_when`].
    cancel_flag: OnceLock<Arc<AtomicBool>>,
    /// See [`Engine::keep_details_in`].
    details: OnceLock<PathBuf>,
}

/// Runs jobs on background threads. Dropping it cancels every job and waits for them to
/// finish cleaning up.
pub struct Engine {
    shared: Arc<Shared>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    next_id: AtomicU64,
}

impl Engine {
    /// Starts an engine; every job's events arrive on the returned receiver. Replace keeps
    /// what it replaces where [`StagingRoots::from_env`] says.
    pub fn start() -> (Engine, Receiver<Event>) {
        Self::start_with(StagingRoots::from_env())
    }

    /// Starts an engine whose Replace keeps what it replaces under `staging`.
    pub fn start_with(staging: StagingRoots) -> (Engine, Receiver<Event>) {
        // Before any walk sizes its stacks from the limit (cheap once `main` did it).
        crate::fs::prepare_descriptors();
        defect::remember_panics();
        let (events, rx) = crossbeam_channel::unbounded();
        let shared = Arc::new(Shared {
            events,
            controls: Mutex::new(HashMap::new()),
            devices: DeviceQueue::default(),
            staging: Arc::new(staging),
            cancel_flag: OnceLock::new(),
            details: OnceLock::new(),
        });
        let engine = Engine {
            shared,
            threads: Mutex::new(Vec::new()),
            next_id: AtomicU64::new(1),
        };
        (engine, rx)
    }

    /// Cancels every job of this engine once `flag` is set, as [`cancel`](Self::cancel)
    /// would, at its next item: for a signal handler, which may do no more than store to an
    /// atomic (the command line's Ctrl-C), without a thread to carry the signal over. The
    /// first flag given stays.
    pub fn cancel_all_when(&self, flag: Arc<AtomicBool>) {
        let _ = self.shared.cancel_flag.set(flag);
    }

    /// Lets the jobs keep what their records need before they finish in `journal`'s details
    /// folder: the modes of the sources a move removes from a disk that keeps none, for the
    /// roll back of the move if it is killed. The first journal given stays.
    pub fn keep_details_in(&self, journal: &UndoJournal) {
        let _ = self.shared.details.set(journal.details_folder());
    }

    /// Queues `job`; it starts as soon as no earlier job uses its devices.
    pub fn submit(&self, job: Job) -> JobId {
        self.submit_with(job, JobOptions::default())
    }

    /// Queues `job` with `options`.
    pub fn submit_with(&self, job: Job, options: JobOptions) -> JobId {
        self.spawn(job, options)
    }

    /// Queues `job`, a copy, move or link journaled as record `seq` of the [`UndoJournal`]:
    /// its large files (at least [`PART_MIN_SIZE`](super::PART_MIN_SIZE)) are written under hidden names derived
    /// from `seq`, which survive a crash so that resuming the record appends to them rather
    /// than starting over (see [`Job::Resume`]), and what it replaces is staged under names
    /// that its roll back finds.
    pub fn submit_journaled(&self, job: Job, options: JobOptions, seq: u64) -> JobId {
        self.spawn_with(job, options, Some(seq), None)
    }

    /// [`submit_journaled`](Self::submit_journaled) for a record whose `begin` line is still
    /// on its way to the disk ([`UndoJournal::begin_and_start_up`]): the job plans meanwhile,
    /// and waits for `durable` before it writes anything. If the line cannot be made durable,
    /// the job stops with that error, having written nothing.
    pub fn submit_journaled_after(
        &self,
        job: Job,
        options: JobOptions,
        seq: u64,
        durable: Durable,
    ) -> JobId {
        self.spawn_with(job, options, Some(seq), Some(durable))
    }

    /// Queues `job` paused: it plans (and reports [`Event::Planned`]) but writes nothing
    /// until [`resume`](Self::resume)d. For jobs the user is asked about first, such as one
    /// interrupted by a crash. While paused it keeps its devices.
    pub fn submit_paused(&self, job: Job) -> JobId {
        let options = JobOptions {
            paused: true,
            ..JobOptions::default()
        };
        self.spawn(job, options)
    }

    fn spawn(&self, job: Job, options: JobOptions) -> JobId {
        self.spawn_with(job, options, None, None)
    }

    fn spawn_with(
        &self,
        job: Job,
        options: JobOptions,
        seq: Option<u64>,
        durable: Option<Durable>,
    ) -> JobId {
        let id = JobId(self.next_id.fetch_add(1, Ordering::Relaxed));
        let flag = self.shared.cancel_flag.get().cloned();
        let control = Arc::new(Control::new(options.on_error).cancelled_by(flag));
        if options.paused {
            control.pause();
        }
        lock(&self.shared.controls).insert(id, Arc::clone(&control));
        let shared = Arc::clone(&self.shared);
        let handle = std::thread::Builder::new()
            .name(format!("ferry-{id}"))
            .spawn(move || run_job(&shared, id, job, control, (seq, durable)))
            .expect("cannot spawn a job thread");
        let mut threads = lock(&self.threads);
        threads.retain(|t| !t.is_finished());
        threads.push(handle);
        id
    }

    /// Pauses a job at its next checkpoint (between files, or between chunks of a large one).
    pub fn pause(&self, job: JobId) {
        if let Some(c) = lock(&self.shared.controls).get(&job) {
            c.pause();
        }
    }

    /// Resumes a paused job.
    pub fn resume(&self, job: JobId) {
        if let Some(c) = lock(&self.shared.controls).get(&job) {
            c.resume();
        }
    }

    /// Answers conflict `conflict` of `job` (and, with [`Scope::AllOfKind`], every other
    /// conflict of its kind in the job, now and later). False when the job has ended, the
    /// conflict is not waiting, or the answer does not fit it (see
    /// [`Resolution::applies_to`]; a [`Resolution::RenameTo`] is for one conflict only).
    pub fn resolve(
        &self,
        job: JobId,
        conflict: ConflictId,
        resolution: Resolution,
        scope: Scope,
    ) -> bool {
        let Some(c) = lock(&self.shared.controls).get(&job).cloned() else {
            return false;
        };
        if resolution == Resolution::Cancel {
            // Cancel first, so that the job stops rather than carry out the answer.
            if !c.asks.is_waiting(conflict) {
                return false;
            }
            c.cancel();
        }
        c.asks.resolve(conflict, resolution, scope)
    }

    /// Answers error request `request` of `job`. False when the job has ended or the request
    /// is not waiting.
    pub fn resolve_error(&self, job: JobId, request: ErrorId, action: ErrorAction) -> bool {
        let Some(c) = lock(&self.shared.controls).get(&job).cloned() else {
            return false;
        };
        let cancel = action == ErrorAction::Cancel;
        // Cancelled before the worker can take the answer: woken at once, it could otherwise
        // finish the job first, which then ended as finished (seen once in CI).
        let accepted = c.asks.resolve_error(request, action, || {
            if cancel {
                c.mark_cancelled();
            }
        });
        if accepted && cancel {
            c.cancel();
        }
        accepted
    }

    /// Cancels a job: it stops within about 100 ms, removes its temporary file and reports
    /// [`Event::Cancelled`] with what was done.
    pub fn cancel(&self, job: JobId) {
        if let Some(c) = lock(&self.shared.controls).get(&job) {
            c.cancel();
        }
    }
}

impl Drop for Engine {
    /// Cancels every job and waits for their threads a few seconds at most: one blocked in a
    /// file system that stopped answering never ends, and must not hold the process (its
    /// record stays begun, found interrupted at the next start, as after a crash).
    fn drop(&mut self) {
        for c in lock(&self.shared.controls).values() {
            c.cancel();
        }
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3);
        for t in lock(&self.threads).drain(..) {
            while !t.is_finished() && std::time::Instant::now() < deadline {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            if t.is_finished() {
                let _ = t.join();
            }
        }
    }
}

fn run_job(
    shared: &Shared,
    id: JobId,
    job: Job,
    control: Arc<Control>,
    (seq, durable): (Option<u64>, Option<Durable>),
) {
    let staging = Arc::clone(&shared.staging);
    let mut ctx = JobCtx::new(id, control, shared.events.clone(), staging);
    ctx.durable = durable;
    ctx.details = shared.details.get().cloned();
    // Only copies and moves write large files worth resuming, and they and links stage what
    // they replace under names of their record; a resume continues its record.
    ctx.journal_seq = match &job {
        Job::Copy { .. } | Job::Move { .. } | Job::Link { .. } => seq,
        Job::Resume { record } => Some(record.seq),
        _ => None,
    };
    ctx.resuming = matches!(&job, Job::Resume { record }
        if matches!(record.job, Job::Copy { .. } | Job::Move { .. }));
    let control = &ctx.control;
    let devices = control::devices_of(&job);
    // A copy or move waits for its journal record after planning (`start::preflight`); the
    // other jobs have no planning walk to do meanwhile.
    let plans_first = matches!(job, Job::Copy { .. } | Job::Move { .. });
    // Their summaries name every source left unfinished by a cancel (`Summary::not_done`).
    let names_unfinished = plans_first || matches!(job, Job::Delete { .. } | Job::Trash { .. });
    let recorded = plans_first || ctx.wait_durable();
    let mut summary = if recorded && shared.devices.acquire(id, &devices, control) {
        // A defect (a panic) ends the job, not the engine: its devices are released and the
        // window hears of its end, which a panic on this thread would have left unsaid.
        let ran = std::panic::catch_unwind(AssertUnwindSafe(|| execute(&ctx, &job)));
        shared.devices.release(&devices);
        ran.unwrap_or_else(|panic| Summary {
            not_done: paths_of(job),
            stopped_by: Some(Arc::new(Error::Defect {
                message: defect::message(panic.as_ref()),
            })),
            ..Summary::default()
        })
    } else {
        // Cancelled while waiting for its devices, or its record could not be made durable:
        // nothing was touched.
        Summary {
            not_done: paths_of(job),
            stopped_by: control.halted_by().cloned(),
            ..Summary::default()
        }
    };
    // A job's passes (a resume's settle and move, a restore's plans, an undo's steps) count
    // into its one set of counters: they, not the passes' summaries, say what it did.
    summary.items_done = ctx.counters.items.load(Ordering::Relaxed);
    summary.bytes_done = ctx.counters.bytes.load(Ordering::Relaxed);
    summary.bytes_kept = ctx.counters.kept.load(Ordering::Relaxed);
    summary.notes = ctx.take_notes();
    lock(&shared.controls).remove(&id);
    // A cancel that came once every item was done, during the job's last steps, stopped
    // nothing: the job finished (a Ctrl+C while a small copy ends, say).
    let moot = names_unfinished && summary.is_complete();
    let event = if control.is_cancelled() && !moot && !summary.stopped_by_defect() {
        Event::Cancelled { job: id, summary }
    } else {
        Event::Finished { job: id, summary }
    };
    let _ = shared.events.send(event);
}

/// Carries out `job` (see [`run_job`]).
fn execute(ctx: &JobCtx, job: &Job) -> Summary {
    match job {
        Job::Copy {
            sources,
            dest_dir,
            dest_name,
            on_conflict,
        } => copy::run_job(ctx, sources, (dest_dir, dest_name.as_deref()), *on_conflict),
        Job::Move {
            sources,
            dest_dir,
            dest_name,
            on_conflict,
        } => moves::run_job(ctx, sources, (dest_dir, dest_name.as_deref()), *on_conflict),
        Job::Delete { paths } => trash::run_delete(ctx, paths),
        Job::Rename { path, new_name } => single::rename(ctx, path, new_name),
        Job::CreateFolder { parent, name } => single::create_folder(ctx, parent, name),
        Job::Link {
            targets,
            dest_dir,
            on_conflict,
        } => symlinks::run_job(ctx, targets, dest_dir, *on_conflict),
        Job::Trash { paths, roots } => trash::run_trash(ctx, paths, roots),
        Job::Restore { items, on_conflict } => trash::run_restore(ctx, items, *on_conflict),
        Job::EmptyTrash { roots, listed } => trash::run_empty(ctx, roots, listed.as_deref()),
        Job::Undo {
            record,
            trash: roots,
            on_conflict,
        } => undo::run_job(ctx, record, roots, *on_conflict),
        Job::Resume { record } => recovery::resume(ctx, record),
    }
}

/// What a job that did not run, or did not finish, leaves undone: everything it was given.
fn paths_of(job: Job) -> Vec<PathBuf> {
    match job {
        Job::Copy { sources, .. } | Job::Move { sources, .. } => sources,
        Job::Delete { paths } => paths,
        Job::Rename { path, .. } => vec![path],
        Job::CreateFolder { parent, name } => vec![parent.join(name)],
        Job::Link { targets, .. } => targets,
        Job::Trash { paths, .. } => paths,
        Job::Restore { items, .. } => items.into_iter().map(|i| i.original).collect(),
        Job::EmptyTrash { roots, .. } => vec![roots.home],
        Job::Undo { record, .. } | Job::Resume { record } => undo::paths_of(&record),
    }
}

/// For tests: the summary of job `id`, once `events` tell of its end.
#[cfg(test)]
pub(crate) fn finished(events: &Receiver<Event>, id: JobId) -> Summary {
    let end = events.iter().find_map(|event| match event {
        Event::Finished { job, summary } if job == id => Some(summary),
        _ => None,
    });
    end.expect("the engine stopped without finishing the job")
}
