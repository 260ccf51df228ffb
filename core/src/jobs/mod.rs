//! The job engine: copy, move, delete, rename, create-folder and link jobs on background
//! threads.
//!
//! ```text
//! Engine::submit(Job) ──> job thread: wait for its devices ──> plan (one walk, dir fds)
//!                                       ──> workers pull batches ──> summary + undo record
//!        <── Event: Planned, Conflicts, Progress (≤ 10/s), ItemError, ItemFailed,
//!                   Finished | Cancelled
//! Engine::resolve / resolve_error ──> answers ──> answered conflicts planned and run
//! ```
//!
//! A job first builds a plan with one walk over its sources using directory file
//! descriptors, reading the mount table and the destination's file system once. It then runs
//! the plan with worker threads fed in batches: no per-file round trip to anyone, progress in
//! shared counters turned into at most ten events a second. One bad item never stops the
//! batch; it is recorded with its reason and the rest goes on, except for no space, quota or
//! I/O errors, which stop the job after cleaning up. Every file is written as an unnamed file
//! (`O_TMPFILE`), or under a hidden temporary name (`.ferry-tmp-…`) where that is not possible,
//! and only then linked or renamed into place, never replacing anything unless asked to: no
//! cancel, error or crash leaves a truncated file under a real name. A new folder of small
//! files in a journaled job is instead filled under a hidden name, its files created under
//! their own, and renamed into place whole (`fresh.rs`: one call a file fewer). A large file of a
//! journaled job ([`Engine::submit_journaled`]) is written as `.ferry-part-…`, which a crash
//! leaves for [`Job::Resume`] to verify and append to.
//!
//! Conflicts are found in the same plan walk and reported together ([`Event::Conflicts`]);
//! with [`ConflictPolicy::Ask`] the rest of the batch runs while they wait for
//! [`Engine::resolve`]. Replace moves the old item into a staging folder on the same file
//! system (see [`StagingRoots`]) before putting the new one in place, so it can be undone.
//! With [`ErrorPolicy::Ask`] a failing item waits for [`Engine::resolve_error`].
//!
//! Each job ends with a [`Summary`] that accounts for every source, and a [`Record`] of what
//! it created or moved, with identities, for undo.
//!
//! Jobs touching the same devices run one after another in submission order; jobs on other
//! devices run in parallel. Rename, create-folder and link jobs are a few calls and never wait.

mod aside;
mod caution;
mod claim;
mod commit;
mod conflict;
mod control;
mod copy;
mod decide;
mod defect;
mod dest;
mod fresh;
mod journal;
mod left_behind;
mod links;
mod measure;
mod moves;
mod names;
mod notes;
mod partial;
mod passes;
mod plan;
mod probe;
mod progress;

pub use progress::ITEM_WORK;
mod put_back;
mod recovery;
mod relink;
mod remove;
mod replacing;
mod single;
mod staging;
mod start;
mod summary;
mod symlinks;
mod trash;
mod undo;
mod undo_again;
mod unlink_ahead;

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender};

use crate::error::Error;
use control::{Control, DeviceQueue, JobCtx};

pub use caution::{Caution, OwnFolders, delete_cautions, in_trash, move_cautions};
pub use conflict::{
    Conflict, ConflictId, ConflictKind, EntryInfo, ErrorAction, ErrorId, ErrorPolicy, Resolution,
    Scope, keep_both_name, name_allowed,
};
pub use journal::{
    Begun, Counts, DEFAULT_LIMIT, Durable, JournalRecord, JournalWriter, MAX_ENTRIES, RecordState,
    UndoJournal, undo_complete,
};
pub use left_behind::LeftBehind;
pub use measure::{Measure, measure};
pub use names::{NameCheck, NameProblem, NameRules, check_name, free_name};
pub use notes::{Note, NoteKind};
pub use partial::PART_MIN_SIZE;
pub use staging::{
    Pruned, STAGING_GRACE, STAGING_MAX_AGE, STAGING_MAX_BYTES, StagingRoots, prune_staging,
    staging_folder_name,
};
pub use summary::{Failed, How, Operation, Record, RecordEntry, SkipReason, Skipped, Summary};
pub use trash::{
    TrashRecord, TrashRoots, TrashedItem, UnsafeEntry, Volumes, is_trashed_item, list_trash,
    list_trash_in,
};
pub use undo_again::put_back_interrupted;

/// Identifies one submitted job; ids grow in submission order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JobId(pub u64);

impl fmt::Display for JobId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "job {}", self.0)
    }
}

/// What to do with conflicts (see [`ConflictKind`]), decided for the whole job.
///
/// Except with `Ask` and `KeepBoth`, a folder onto an existing folder merges into it ("write
/// into"); a file and a folder of one name never replace each other (skipped with `Skip` and
/// `Merge`, failed with [`Error::KindConflict`] with `Replace` and `ReplaceIfNewer`); two
/// sources of one name fail the second ([`Error::DuplicateName`]). A name the destination
/// cannot hold fails ([`Error::NameNotAllowed`]) unless asked about. Copying a file into its
/// own folder always makes a duplicate (`name (copy).ext`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ConflictPolicy {
    /// Report every conflict ([`Event::Conflicts`]) and let the rest go on; each conflicting
    /// item waits for [`Engine::resolve`].
    Ask,
    /// Leave the existing file and report the item as skipped.
    #[default]
    Skip,
    /// Replace the existing file once the new one is complete; the old one is kept in a
    /// staging folder for undo.
    Replace,
    /// Replace files older than the source (modification time); skip the others.
    ReplaceIfNewer,
    /// Give the source a free name (`name (copy).ext`); folders too.
    KeepBoth,
    /// Merge folders; skip existing files.
    Merge,
}

/// Options of a submitted job beyond the job itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct JobOptions {
    /// Start paused (see [`Engine::submit_paused`]).
    pub paused: bool,
    /// What to do when an item fails.
    pub on_error: ErrorPolicy,
}

/// A unit of work for the [`Engine`].
#[derive(Debug, Clone)]
pub enum Job {
    /// Copy `sources` into the existing folder `dest_dir`.
    Copy {
        /// Files and folders to copy (symlinks are copied as links).
        sources: Vec<PathBuf>,
        /// The folder they land in.
        dest_dir: PathBuf,
        /// The name the one source gets there (`ferry cp FILE NEWNAME`); `None`: every
        /// source keeps its own. A name already there is a conflict like any other.
        dest_name: Option<OsString>,
        /// What to do with names that already exist.
        on_conflict: ConflictPolicy,
    },
    /// Move `sources` into the existing folder `dest_dir`.
    Move {
        /// Files and folders to move.
        sources: Vec<PathBuf>,
        /// The folder they land in.
        dest_dir: PathBuf,
        /// The name the one source gets there (`ferry mv OLD NEW`); `None`: every source
        /// keeps its own.
        dest_name: Option<OsString>,
        /// What to do with names that already exist.
        on_conflict: ConflictPolicy,
    },
    /// Delete `paths` permanently (folders with their contents).
    Delete {
        /// What to delete; symlinks are deleted, never followed.
        paths: Vec<PathBuf>,
    },
    /// Rename `path` to `new_name` within its folder.
    Rename {
        /// The item to rename.
        path: PathBuf,
        /// Its new name (one path component).
        new_name: OsString,
    },
    /// Create the folder `name` inside `parent`.
    CreateFolder {
        /// Existing parent folder.
        parent: PathBuf,
        /// Name of the new folder (one path component).
        name: OsString,
    },
    /// Create in `dest_dir` a symbolic link to each of `targets`, named like it, whose text
    /// is the target's absolute path as given (not resolved), as Dolphin's "Link Here"
    /// makes it. A target that does not exist fails; one that is a link is linked to as it
    /// is. A taken name follows `on_conflict` as for a copy: Keep both names the link
    /// `name (link).ext`; Replace keeps what it replaces in the staging folder; a folder is
    /// never replaced. Undo moves the links to the trash.
    Link {
        /// What to link to.
        targets: Vec<PathBuf>,
        /// The existing folder the links are made in.
        dest_dir: PathBuf,
        /// What to do with names that already exist.
        on_conflict: ConflictPolicy,
    },
    /// Move `paths` to the trash of their file system; an item that cannot be trashed fails
    /// with [`Error::CannotTrash`] (offer permanent delete). [`Summary::trash`] says where
    /// each item went.
    Trash {
        /// What to trash; symlinks are trashed, never followed.
        paths: Vec<PathBuf>,
        /// The trash folders to use.
        roots: TrashRoots,
    },
    /// Put trashed items back where they were (recreating missing parent folders). An
    /// original place taken since is a conflict, as for a move there.
    Restore {
        /// Items as listed by [`list_trash`].
        items: Vec<TrashedItem>,
        /// What to do where an original place is taken.
        on_conflict: ConflictPolicy,
    },
    /// Delete everything in the trash permanently.
    EmptyTrash {
        /// The trash folders to empty.
        roots: TrashRoots,
    },
    /// Undo a journaled job (see [`UndoJournal`]), never deleting anything permanently:
    /// copies go to `trash`, moved items go back, renames are reversed.
    Undo {
        /// The job to undo.
        record: Box<JournalRecord>,
        /// The trash folders copies go to.
        trash: TrashRoots,
        /// What to do where an item going back (the undo of a move or of a trash) finds its
        /// original place taken; [`ConflictPolicy::Ask`] for a window.
        on_conflict: ConflictPolicy,
    },
    /// Finish a job interrupted by a crash (see [`UndoJournal::recover`]), skipping what it
    /// already did.
    Resume {
        /// The interrupted job.
        record: Box<JournalRecord>,
    },
}

impl Job {
    /// The job with [`ConflictPolicy::Ask`] turned into Skip: for a job replayed where no one
    /// can be asked (a redo or resume without a terminal, or one the window cannot ask
    /// about yet). Nothing is overwritten; what is skipped is reported.
    pub fn unattended(self) -> Job {
        let quiet = |p| match p {
            ConflictPolicy::Ask => ConflictPolicy::Skip,
            p => p,
        };
        match self {
            Job::Copy {
                sources,
                dest_dir,
                dest_name,
                on_conflict,
            } => Job::Copy {
                sources,
                dest_dir,
                dest_name,
                on_conflict: quiet(on_conflict),
            },
            Job::Move {
                sources,
                dest_dir,
                dest_name,
                on_conflict,
            } => Job::Move {
                sources,
                dest_dir,
                dest_name,
                on_conflict: quiet(on_conflict),
            },
            Job::Restore { items, on_conflict } => Job::Restore {
                items,
                on_conflict: quiet(on_conflict),
            },
            Job::Link {
                targets,
                dest_dir,
                on_conflict,
            } => Job::Link {
                targets,
                dest_dir,
                on_conflict: quiet(on_conflict),
            },
            job => job,
        }
    }

    /// The sources, destination folder and new name of a copy or move; `None` for other jobs.
    pub fn transfer(&self) -> Option<(&[PathBuf], &Path, Option<&OsStr>)> {
        match self {
            Job::Copy {
                sources,
                dest_dir,
                dest_name,
                ..
            }
            | Job::Move {
                sources,
                dest_dir,
                dest_name,
                ..
            } => Some((sources, dest_dir, dest_name.as_deref())),
            _ => None,
        }
    }

    /// Each source of a copy or move with the path it lands at: in the destination folder
    /// under its own name, or under the job's new name. Sources without a name (`/`, `..`)
    /// land nowhere and are left out; empty for other jobs.
    pub fn landings(&self) -> Vec<(&Path, PathBuf)> {
        let Some((sources, dest_dir, dest_name)) = self.transfer() else {
            return Vec::new();
        };
        (sources.iter())
            .filter_map(|s| {
                let name = dest_name.or_else(|| s.file_name())?;
                Some((s.as_path(), dest_dir.join(name)))
            })
            .collect()
    }
}

/// What a job found when planning.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    /// Items to process (files, folders, links...).
    pub items: u64,
    /// Bytes of file contents to copy (0 for deletes and same-file-system moves of folders).
    pub bytes: u64,
    /// Folders among the items.
    pub folders: u64,
    /// Whether data crosses from one file system to another.
    pub cross_device: bool,
}

/// What a job is doing right now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Walking the sources.
    Planning,
    /// Copying or moving.
    Copying,
    /// Flushing written data to the device.
    FinishingWrites,
    /// Deleting (a delete job, or the sources of a move across file systems).
    Deleting,
}

/// A coalesced progress report (at most about ten a second per job).
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Current phase.
    pub phase: Phase,
    /// Bytes copied so far.
    pub bytes_done: u64,
    /// Bytes to copy in all.
    pub bytes_total: u64,
    /// Items finished so far (while planning: items found so far).
    pub items_done: u64,
    /// Items in all (while planning: 0).
    pub items_total: u64,
    /// An item being worked on (source path).
    pub current: Option<PathBuf>,
    /// Smoothed speed in bytes per second (items per second for deletes).
    pub speed: f64,
    /// Estimated time left, once the speed is known.
    pub eta: Option<Duration>,
    /// Whether the job is paused.
    pub paused: bool,
}

impl Progress {
    /// The job's work done and in all: its bytes and its items, each [`ITEM_WORK`] bytes'
    /// worth; items alone for a job without bytes (a delete).
    pub fn work(&self) -> (u64, u64) {
        progress::work(self)
    }

    /// How much of the job is done, from 0 to 1, by its work: bytes and items together (an
    /// item counting as 128 KiB), so that a job of a few large files and many small ones is not "100%"
    /// with half its items to go.
    pub fn fraction(&self) -> f64 {
        let (done, total) = self.work();
        #[allow(clippy::cast_precision_loss)] // a fraction
        match total {
            0 => 0.0,
            total => (done as f64 / total as f64).min(1.0),
        }
    }
}

/// What the engine reports, in order, for each job.
#[derive(Debug, Clone)]
pub enum Event {
    /// Planning finished.
    Planned {
        /// The job.
        job: JobId,
        /// What it will do.
        totals: Totals,
    },
    /// Coalesced progress.
    Progress {
        /// The job.
        job: JobId,
        /// Where it is.
        progress: Progress,
    },
    /// Conflicts found, all of them at once when planning (and one at a time when a name is
    /// taken between planning and writing). With [`ConflictPolicy::Ask`] each waits for
    /// [`Engine::resolve`]; the rest of the job goes on.
    Conflicts {
        /// The job.
        job: JobId,
        /// What is in the way.
        conflicts: Vec<Conflict>,
    },
    /// An item failed and the job's error policy is [`ErrorPolicy::Ask`]: the item waits for
    /// [`Engine::resolve_error`] (the rest of the job goes on). An
    /// [`ItemFailed`](Event::ItemFailed) follows if it is skipped.
    ItemError {
        /// The job.
        job: JobId,
        /// The request to answer.
        request: ErrorId,
        /// Source path of the item.
        path: PathBuf,
        /// Why.
        error: Arc<Error>,
    },
    /// One item failed; the job goes on (unless the error is terminal, see
    /// [`Error::is_terminal`]).
    ItemFailed {
        /// The job.
        job: JobId,
        /// Source path of the item.
        path: PathBuf,
        /// Why.
        error: Arc<Error>,
    },
    /// The job ended (possibly with failures, or stopped by a terminal error, or by a defect
    /// in Ferry: see [`Summary::stopped_by_defect`]).
    Finished {
        /// The job.
        job: JobId,
        /// Exactly what was done.
        summary: Summary,
    },
    /// The job was cancelled; what was done before stays done.
    Cancelled {
        /// The job.
        job: JobId,
        /// Exactly what was done before the cancel.
        summary: Summary,
    },
}

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
    /// its large files (at least [`PART_MIN_SIZE`]) are written under hidden names derived
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
        let accepted = c.asks.resolve_error(request, action);
        if accepted && action == ErrorAction::Cancel {
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

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
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
        Job::Delete { paths } => remove::run_job(ctx, paths, trash::read_only_rule(paths)),
        Job::Rename { path, new_name } => single::rename(ctx, path, new_name),
        Job::CreateFolder { parent, name } => single::create_folder(ctx, parent, name),
        Job::Link {
            targets,
            dest_dir,
            on_conflict,
        } => symlinks::run_job(ctx, targets, dest_dir, *on_conflict),
        Job::Trash { paths, roots } => trash::run_trash(ctx, paths, roots),
        Job::Restore { items, on_conflict } => trash::run_restore(ctx, items, *on_conflict),
        Job::EmptyTrash { roots } => trash::run_empty(ctx, roots),
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
        Job::EmptyTrash { roots } => vec![roots.home],
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
