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
mod engine;
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

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::error::Error;

pub use caution::{Caution, OwnFolders, delete_cautions, in_trash, move_cautions};
pub use conflict::{
    Conflict, ConflictId, ConflictKind, EntryInfo, ErrorAction, ErrorId, ErrorPolicy, Resolution,
    Scope, keep_both_name, name_allowed,
};
pub use engine::Engine;
#[cfg(test)]
pub(crate) use engine::finished;
pub use journal::{
    Begun, Counts, DEFAULT_LIMIT, Durable, JournalRecord, JournalWriter, MAX_ENTRIES, RecordState,
    TEMPORARY_PREFIX, UndoJournal, undo_complete,
};
pub use left_behind::{LeftBehind, PartPutBack};
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
    TrashRecord, TrashRoots, TrashStamp, TrashedItem, UnsafeEntry, Volumes, is_trashed_item,
    list_trash, list_trash_in, trash_stamp,
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
        /// The entries the user was asked about (each item's path in a `files` folder and
        /// identity): only those go, and only while they are still what was listed; an item
        /// trashed since stays. `None`: everything the trash holds when the job runs.
        listed: Option<Vec<(PathBuf, crate::fs::FileId)>>,
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
    /// Items whose conflicts wait for an answer, not among `items`: each counted once (a
    /// folder's contents are planned when it is answered). Progress counts them as to do.
    pub asked: u64,
    /// The bytes of the files among them, not in `bytes`.
    pub asked_bytes: u64,
    /// Whether data crosses from one file system to another.
    pub cross_device: bool,
}

impl Totals {
    /// Both together: the totals of a job of two plans.
    pub(crate) fn plus(&self, other: &Totals) -> Totals {
        Totals {
            items: self.items + other.items,
            bytes: self.bytes + other.bytes,
            folders: self.folders + other.folders,
            asked: self.asked + other.asked,
            asked_bytes: self.asked_bytes + other.asked_bytes,
            cross_device: self.cross_device || other.cross_device,
        }
    }
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
    /// How much of the job is done (0 to 1) by the time its work took and will take, once
    /// that is known (see [`fraction`](Self::fraction)).
    pub share_done: Option<f64>,
    /// Whether the job is paused.
    pub paused: bool,
}

impl Progress {
    /// The job's work done and in all: its bytes and its items, each [`ITEM_WORK`] bytes'
    /// worth; items alone for a job without bytes (a delete).
    pub fn work(&self) -> (u64, u64) {
        progress::work(self)
    }

    /// How much of the job is done, from 0 to 1: by the time its work took and will take
    /// when that is known, the bar then keeping step with the time left; else by its work,
    /// bytes and items together (an item counting as 128 KiB), so that a job of a few large
    /// files and many small ones is not "100%" with half its items to go.
    pub fn fraction(&self) -> f64 {
        if let Some(share) = self.share_done {
            return share.clamp(0.0, 1.0);
        }
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

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}
