//! What a job did: the exact [`Summary`] and the [`Record`] kept for undo.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::Event;
use super::control::JobCtx;
use super::plan::{Action, NO_ITEM, Plan, Root};
use crate::entry::Kind;
use crate::error::Error;
use crate::fs::FileId;

/// Why an item was skipped.
#[derive(Debug, Clone)]
pub enum SkipReason {
    /// The destination name exists and the policy is [`Skip`](super::ConflictPolicy::Skip).
    Exists,
    /// A file of a kind Ferry cannot make anew (neither file, folder, link, FIFO, socket nor
    /// device). A FIFO, socket or device the destination refuses to make fails instead,
    /// with the reason.
    Special(Kind),
    /// The same item was given twice.
    Duplicate,
    /// A move's source inside another of its source folders: it goes with that folder.
    InsideSource,
    /// Its name cannot exist on the destination, and the answer was to skip it.
    NameNotAllowed,
    /// It failed, and the answer to the error request was Skip (or Skip all of this kind).
    UserSkipped {
        /// The error it was skipped after (it names the exact path concerned).
        error: Arc<Error>,
    },
}

impl SkipReason {
    /// True when the item was skipped after an error (the job did not do it although asked
    /// to), rather than by a choice made about a conflict.
    pub fn after_error(&self) -> bool {
        matches!(self, SkipReason::UserSkipped { .. })
    }
}

/// Two skips after an error are equal only for the very same error.
impl PartialEq for SkipReason {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (SkipReason::Special(a), SkipReason::Special(b)) => a == b,
            (SkipReason::UserSkipped { error: a }, SkipReason::UserSkipped { error: b }) => {
                Arc::ptr_eq(a, b)
            }
            (a, b) => std::mem::discriminant(a) == std::mem::discriminant(b),
        }
    }
}

impl Eq for SkipReason {}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::Exists => f.write_str("already exists at the destination"),
            SkipReason::Special(kind) => write!(f, "a {} cannot be copied", kind.noun()),
            SkipReason::Duplicate => f.write_str("given twice"),
            SkipReason::InsideSource => f.write_str("moved with the folder holding it"),
            SkipReason::NameNotAllowed => f.write_str("name not allowed at the destination"),
            SkipReason::UserSkipped { error } => write!(f, "skipped after: {error}"),
        }
    }
}

/// A skipped item.
#[derive(Debug, Clone)]
pub struct Skipped {
    /// Source path.
    pub path: PathBuf,
    /// Why.
    pub reason: SkipReason,
}

/// A failed item.
#[derive(Debug, Clone)]
pub struct Failed {
    /// Source path.
    pub path: PathBuf,
    /// Why (the error names the exact path concerned, source or destination).
    pub error: Arc<Error>,
}

/// Exactly what a job did. Every source given to the job is in `done` or `not_done`, or it or
/// something inside it is in `skipped` or `failed` (and, when the job was stopped or
/// cancelled before finishing it, in `not_done` as well).
#[derive(Debug, Clone, Default)]
pub struct Summary {
    /// Sources done completely (a folder with everything in it).
    pub done: Vec<PathBuf>,
    /// Items skipped, at any depth.
    pub skipped: Vec<Skipped>,
    /// Items that failed, at any depth.
    pub failed: Vec<Failed>,
    /// Sources left untouched or unfinished because the job was cancelled or stopped (those
    /// holding a failure included).
    pub not_done: Vec<PathBuf>,
    /// Items (files, folders, links...) done.
    pub items_done: u64,
    /// Bytes copied.
    pub bytes_done: u64,
    /// Of `bytes_done`, bytes that an interrupted run had already written, found identical
    /// to the source and kept rather than copied again (a resumed large file).
    pub bytes_kept: u64,
    /// The terminal error (no space, quota, I/O error) that stopped the job early.
    pub stopped_by: Option<Arc<Error>>,
    /// What was created or moved, for undo.
    pub record: Record,
    /// Trash and restore jobs: where each item done went, for undo (empty for other jobs).
    pub trash: Vec<super::TrashRecord>,
    /// What the job could not keep of items it did (metadata the destination refuses), once
    /// per kind; no item failed for it.
    pub notes: Vec<super::Note>,
    /// Items an undo had to make anew, with their identities: the folders to put items back
    /// in (the undo of a move that merged a folder into another, which removed it), and what
    /// the undo of a move copied back from another disk. Recorded with the undo, so that the
    /// undo of an earlier job that made or moved them takes the new ones for them (their
    /// inodes could not survive).
    pub remade: Vec<(PathBuf, FileId)>,
    /// A resume stopped before it finished by what stops a job (no space, an I/O error): its
    /// record is left interrupted and its large files' parts kept, so that `ferry resume`
    /// can be tried again once the cause is gone, as an undo stopped so can.
    pub resume_again: bool,
    /// A delete: of each source in `not_done` it had begun, how many files (everything but
    /// folders) it deleted, and how many the source held (`None`: cancelled while still
    /// counting them). What is gone is said, not only what is left.
    pub deleted_of: Vec<(PathBuf, u64, Option<u64>)>,
    /// The undo of an interrupted copy or move: the unfinished files it had left (the parts
    /// of large files), removed.
    pub unfinished_removed: usize,
}

impl Summary {
    /// True when nothing failed, nothing was skipped after an error and nothing was left
    /// undone (skips chosen for conflicts do not count).
    pub fn is_complete(&self) -> bool {
        self.failed.is_empty()
            && self.not_done.is_empty()
            && self.stopped_by.is_none()
            && !self.skipped.iter().any(|s| s.reason.after_error())
    }

    /// What the user calls the job's failures, each with its error: the items that failed and
    /// those skipped after an error (a Skip leaves the cause as it was), failed first. A
    /// window's Show failures and Retry failed go by these.
    pub fn errors(&self) -> impl Iterator<Item = (&Path, &Arc<Error>)> {
        let failed = self.failed.iter().map(|f| (f.path.as_path(), &f.error));
        let skipped = self.skipped.iter().filter_map(|s| match &s.reason {
            SkipReason::UserSkipped { error } => Some((s.path.as_path(), error)),
            _ => None,
        });
        failed.chain(skipped)
    }

    /// True when retrying may go otherwise for some of [`errors`](Self::errors): not all are
    /// an undo's decisions about items changed or gone since ([`Error::is_decided`]).
    pub fn retryable(&self) -> bool {
        self.errors().any(|(_, e)| !e.retry_cannot_help())
    }

    /// True when the check made before writing stopped the job (too little space or too few
    /// free inodes where it writes) and nothing of it was done.
    pub fn refused_before_writing(&self) -> bool {
        let refused = (self.stopped_by.as_deref())
            .is_some_and(|e| matches!(e, Error::NoSpace { .. } | Error::TooManyFiles { .. }));
        refused && self.did_nothing()
    }

    /// True when every item was skipped as the conflict policy or the user chose (none after
    /// an error, none failed), and so nothing was done: an undo so ended leaves its job to be
    /// undone, as one refused before writing does (marked undone, the next Undo took an
    /// older job, in another folder).
    pub fn skipped_everything(&self) -> bool {
        !self.skipped.is_empty()
            && self.skipped.iter().all(|s| !s.reason.after_error())
            && self.failed.is_empty()
            && self.not_done.is_empty()
            && self.stopped_by.is_none()
            && self.did_nothing()
    }

    fn did_nothing(&self) -> bool {
        self.done.is_empty()
            && self.trash.is_empty()
            && self.remade.is_empty()
            && !self.record.did_something()
    }

    /// True when a defect in Ferry (a panic) stopped the job: its record does not say what
    /// it did, so its end must not be journaled; left running in the journal, it is found
    /// interrupted at the next start, to be finished or rolled back ([`Error::Defect`]).
    pub fn stopped_by_defect(&self) -> bool {
        self.stopped_by
            .as_deref()
            .is_some_and(|e| matches!(e, Error::Defect { .. }))
    }
}

mod record;

pub(crate) use record::PathsBelow;
pub use record::{How, Operation, Record, RecordEntry};

/// Builds the summary of a job from its plan and the per-item results (`done[i]`: destination
/// inode, or 1 for a removed item; 0 = not done).
pub(crate) fn build(
    ctx: &JobCtx,
    operation: Operation,
    plan: Plan,
    done: Vec<AtomicU64>,
    dest_dev: u64,
) -> Summary {
    let done: Vec<u64> = done.into_iter().map(AtomicU64::into_inner).collect();
    let problems = ctx.take_problems();
    let mut troubled = vec![false; plan.roots.len()];
    for &(item, ..) in &problems.skipped {
        troubled[plan.root_of(item)] = true;
    }
    for &(item, ..) in &problems.failed {
        if item == NO_ITEM {
            // A job-wide failure (the final flush): nothing can be called done.
            troubled.fill(true);
        } else {
            troubled[plan.root_of(item)] = true;
        }
    }
    let mut summary = Summary {
        items_done: ctx.counters.items.load(Relaxed),
        bytes_done: ctx.counters.bytes.load(Relaxed),
        bytes_kept: ctx.counters.kept.load(Relaxed),
        stopped_by: ctx.control.halted_by().cloned(),
        ..Summary::default()
    };
    // An answered conflict is carried out by a later root standing for it: fold its outcome
    // into the root the user gave.
    let covered: std::collections::HashSet<u32> = plan.roots.iter().map(|r| r.origin).collect();
    let mut complete: Vec<bool> = plan
        .roots
        .iter()
        .map(|root| {
            // What a folder held when a conflict found while copying it was answered is
            // carried out by the answer's root too (parents come before their children).
            let mut carried = std::collections::HashSet::new();
            (root.item..root.end).all(|i| {
                let item = plan.item(i);
                if !carried.is_empty() && carried.contains(&item.parent) {
                    carried.insert(i);
                    return true;
                }
                match item.action {
                    Action::Skip => true,
                    Action::Ask if item.kind == Kind::Dir && covered.contains(&i) => {
                        carried.insert(i);
                        true
                    }
                    Action::Ask => covered.contains(&i),
                    _ => done[i as usize] != 0,
                }
            })
        })
        .collect();
    for r in (0..plan.roots.len()).rev() {
        let origin = plan.roots[r].origin;
        if origin != NO_ITEM {
            let o = plan.root_of(origin);
            troubled[o] |= troubled[r];
            complete[o] &= complete[r];
        }
    }
    // A job that stopped early left the rest of a source holding a failure undone too: it is
    // named as not done, not only by what failed in it.
    let halted = summary.stopped_by.is_some() || ctx.control.is_cancelled();
    for (r, root) in plan.roots.iter().enumerate() {
        if (troubled[r] && (complete[r] || !halted)) || root.origin != NO_ITEM {
            continue;
        }
        if complete[r] {
            summary.done.push(root.source.clone());
            continue;
        }
        summary.not_done.push(root.source.clone());
        if operation == Operation::Delete {
            let (gone, total) = files_done(&plan, root, |i| done[i as usize] != 0);
            if gone > 0 {
                (summary.deleted_of).push((root.source.clone(), gone, Some(total)));
            }
        }
    }
    let mut skipped = problems.skipped;
    skipped.sort_by_key(|s| s.0);
    summary.skipped = skipped
        .into_iter()
        .map(|(_, path, reason)| Skipped { path, reason })
        .collect();
    let mut failed = problems.failed;
    failed.sort_by_key(|f| f.0);
    summary.failed = failed
        .into_iter()
        .map(|(_, path, error)| Failed { path, error })
        .collect();
    summary.record = Record::of_plan(operation, plan, done, dest_dev);
    summary
}

/// Of the files (everything but folders) of `root` in `plan`, how many are `done`, and how
/// many there are: what a job stopped part way says of a source it began.
fn files_done(plan: &Plan, root: &Root, done: impl Fn(u32) -> bool) -> (u64, u64) {
    let files = (root.item..root.end).filter(|&i| plan.item(i).kind != Kind::Dir);
    files.fold((0, 0), |(n, total), i| (n + u64::from(done(i)), total + 1))
}

/// Records in `summary` that `path` failed with `error`, and tells the listeners.
pub(crate) fn fail(ctx: &JobCtx, summary: &mut Summary, path: &Path, error: impl Into<Arc<Error>>) {
    let error = error.into();
    ctx.emit(Event::ItemFailed {
        job: ctx.id,
        path: path.to_path_buf(),
        error: Arc::clone(&error),
    });
    summary.failed.push(Failed {
        path: path.to_path_buf(),
        error,
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skip_after_an_error_names_the_error_and_leaves_the_job_incomplete() {
        let error = Arc::new(Error::io(
            "open",
            "/x/y",
            std::io::ErrorKind::PermissionDenied,
        ));
        let reason = SkipReason::UserSkipped {
            error: Arc::clone(&error),
        };
        assert_eq!(reason.to_string(), format!("skipped after: {error}"));
        assert!(reason.after_error() && !SkipReason::Exists.after_error());
        assert_eq!(reason, reason.clone());
        let other = Arc::new(Error::io(
            "open",
            "/x/y",
            std::io::ErrorKind::PermissionDenied,
        ));
        assert_ne!(reason, SkipReason::UserSkipped { error: other });
        let skipped = |reason| Summary {
            skipped: vec![Skipped {
                path: "/x/y".into(),
                reason,
            }],
            ..Summary::default()
        };
        assert!(skipped(SkipReason::Exists).is_complete());
        assert!(!skipped(reason).is_complete());
    }
}
