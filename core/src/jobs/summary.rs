//! What a job did: the exact [`Summary`] and the [`Record`] kept for undo.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::Event;
use super::control::JobCtx;
use super::plan::{Action, NO_ITEM, Plan, Root};
use crate::entry::Kind;
use crate::error::Error;
use crate::fs::{FileId, Timestamp};

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
        self.errors().any(|(_, e)| !e.is_decided())
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

/// The kind of job a [`Record`] describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Operation {
    /// A copy.
    #[default]
    Copy,
    /// A move.
    Move,
    /// A permanent delete (nothing to undo).
    Delete,
    /// A rename.
    Rename,
    /// A new folder.
    CreateFolder,
    /// Symbolic links made.
    Link,
}

/// How a recorded item came to be at its destination.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// Newly created (copied, or copied then its source removed by a move).
    Created,
    /// An existing folder that items were written into; not created by the job.
    Merged,
    /// Created, replacing an existing file.
    Replaced,
    /// Renamed: the same inode, now at the destination.
    Moved,
    /// Renamed over an existing file.
    MovedOver,
}

/// One created or moved item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordEntry {
    /// Where it came from.
    pub source: PathBuf,
    /// Where it is now.
    pub dest: PathBuf,
    /// File type.
    pub kind: Kind,
    /// How it got there.
    pub how: How,
    /// Identity of the item at `dest`, to tell later whether it is still the same one.
    pub id: FileId,
    /// Size at the time (files).
    pub size: u64,
    /// Modification time given to it.
    pub mtime: Timestamp,
    /// Its parent was not created by the job: undoing this entry undoes everything below it.
    pub top_level: bool,
    /// Where the item it replaced was put (`Replaced`, `MovedOver`): moving it back from
    /// there undoes the replace. Under the staging folder of the destination's file system.
    pub staged: Option<PathBuf>,
    /// A folder a move made at `dest` (across file systems): the identity of the folder it
    /// came from, which stays at `source` when something in it was not moved, so that an
    /// undo can tell it from one made there since and put back into it what was moved.
    pub source_folder: Option<FileId>,
    /// A moved source the job was given: the folder it came from (device and inode), so that
    /// an undo puts it back into that folder, not through a link swapped in for it.
    pub source_parent: Option<FileId>,
    /// Where that folder really was, when a link on the source's path led elsewhere.
    pub source_parent_real: Option<PathBuf>,
    /// A move's copy across file systems (not a link) onto one that did not keep them (FAT
    /// gives every file one mode of its own): the permission bits its source had, which the
    /// undo gives the item back. Where the modes were kept, what the item has then is kept:
    /// a change the user made since is theirs. And a folder a move merged into one of its
    /// name (its source folder then removed): the mode the undo makes it anew with.
    pub source_mode: Option<u16>,
    /// A folder a move merged into one of its name (its source folder then removed): the
    /// extended attributes and ACLs the undo makes it anew with, if it had any.
    pub source_xattrs: Option<crate::fs::Xattrs>,
}

/// Everything a job created or moved, with identities, kept compactly (the job's plan plus
/// one inode number per item; several plans for a job run as several, such as a restore to
/// two file systems) and expanded into [`RecordEntry`]s on demand.
#[derive(Debug, Clone, Default)]
pub struct Record {
    operation: Operation,
    parts: Vec<Arc<RecordData>>,
}

#[derive(Debug)]
struct RecordData {
    plan: Plan,
    /// Inode at the destination per plan item; 0 = not done.
    inodes: Vec<u64>,
    dest_dev: u64,
}

impl Record {
    /// What kind of job this was.
    pub fn operation(&self) -> Operation {
        self.operation
    }

    /// True when the job created or moved nothing.
    pub fn is_empty(&self) -> bool {
        self.entries().next().is_none()
    }

    /// Adds what another plan of the same job did.
    pub(crate) fn append(&mut self, other: Record) {
        if self.parts.is_empty() {
            self.operation = other.operation;
        }
        self.parts.extend(other.parts);
    }

    /// The sources that landed under another name than their own (Keep both, a duplicate,
    /// a new name given), with that name. Looks at the plans' roots only: the window asks
    /// on its UI thread when a job ends, and walking every item of a 100,000-file copy took
    /// 20 ms there.
    pub fn renamed(&self) -> Vec<(PathBuf, OsString)> {
        let mut renamed = Vec::new();
        for d in &self.parts {
            let plan = &d.plan;
            // A root whose source could not be read has no item.
            for root in plan.roots.iter().filter(|r| r.item < r.end) {
                let (i, name) = (root.item, plan.dest_name(root.item));
                if Self::how_of(d, i).is_some() && name != plan.name(i) {
                    renamed.push((plan.source_path(i), name.to_owned()));
                }
            }
        }
        renamed
    }

    /// Of the sources `not_done`, those the job began: a folder made at the destination,
    /// part of what it holds copied or moved there when the job was cancelled or stopped.
    /// Looks at the plans' roots only, as [`renamed`](Self::renamed) does.
    pub fn begun<'a>(&self, not_done: &'a [PathBuf]) -> Vec<&'a Path> {
        let mut begun = Vec::new();
        for d in &self.parts {
            let plan = &d.plan;
            for root in plan.roots.iter().filter(|r| r.item < r.end) {
                let made = matches!(Self::how_of(d, root.item), Some(How::Created));
                if made && plan.item(root.item).kind == Kind::Dir {
                    let source = plan.source_path(root.item);
                    begun.extend(
                        not_done
                            .iter()
                            .filter(|p| **p == source)
                            .map(PathBuf::as_path),
                    );
                }
            }
        }
        begun
    }

    /// Of each source the job was given that a plan has, how many files (everything but
    /// folders) it copied or moved, and how many it was to: what a job cancelled or stopped
    /// part way says of a folder it began, so that what is already at the destination is not
    /// left unsaid. One pass over the plans: asked source by source, a restore of 20,000
    /// items stopped part way took 6 s to say so.
    pub fn files_by_source(&self) -> HashMap<&Path, (u64, u64)> {
        let mut counts: HashMap<&Path, (u64, u64)> = HashMap::new();
        for d in &self.parts {
            let plan = &d.plan;
            for root in &plan.roots {
                let (done, total) = counts.entry(root.source.as_path()).or_default();
                let (of_root, in_root) = files_done(plan, root, |i| Self::how_of(d, i).is_some());
                (*done, *total) = (*done + of_root, *total + in_root);
            }
        }
        counts
    }

    /// Whether an answer to a conflict (Keep both, Rename to) gave an item another name than
    /// the one it was to get: what an undo's put-back did beside what had taken a place. A
    /// put-back to a name other than the item's own (the undo of a rename) is not that.
    pub fn renamed_by_answers(&self) -> bool {
        !self.names_from_answers(false).is_empty()
    }

    /// The names answers to conflicts (Keep both, Rename to) gave items instead of the ones
    /// they were to get (what `renamed_by_answers` asks); `top`: only
    /// the job's own items', not those of items inside them (a file in a folder merged).
    pub fn names_from_answers(&self, top: bool) -> Vec<&OsStr> {
        let mut names = Vec::new();
        for d in &self.parts {
            let plan = &d.plan;
            for r in (plan.roots.iter()).filter(|r| r.item < r.end && r.origin != NO_ITEM) {
                let name = plan.dest_name(r.item);
                let at_top = plan.item(r.origin).parent == NO_ITEM;
                if Self::how_of(d, r.item).is_some()
                    && name != plan.dest_name(r.origin)
                    && (at_top || !top)
                {
                    names.push(name);
                }
            }
        }
        names
    }

    /// Every created, merged or moved item, parents before children.
    pub fn entries(&self) -> impl Iterator<Item = RecordEntry> + '_ {
        self.entries_at().map(|e| e.entry())
    }

    /// The entries of the items the job was given or that stand for them (answers carried
    /// out), without building the others: a window selecting what an undo of 100,000 files
    /// put back builds a handful.
    pub fn top_level_entries(&self) -> impl Iterator<Item = RecordEntry> + '_ {
        self.entries_at()
            .filter(EntryAt::top_level)
            .map(|e| e.entry())
    }

    /// The same entries, their paths not built yet (see [`PathsBelow`]).
    pub(crate) fn entries_at(&self) -> impl Iterator<Item = EntryAt<'_>> + '_ {
        let moved = self.operation == Operation::Move;
        self.parts.iter().flat_map(move |d| {
            let d: &RecordData = d;
            (0..d.inodes.len() as u32).filter_map(move |item| {
                let how = Self::how_of(d, item)?;
                Some(EntryAt {
                    data: d,
                    item,
                    how,
                    moved,
                })
            })
        })
    }

    /// How item `i` of `d` is recorded; `None` when it is not (not done, skipped, asked).
    fn how_of(d: &RecordData, i: u32) -> Option<How> {
        let item = d.plan.item(i);
        match item.action {
            _ if d.inodes[i as usize] == 0 => None,
            Action::Create => Some(How::Created),
            Action::Merge => Some(How::Merged),
            Action::Replace => Some(How::Replaced),
            Action::Rename => Some(How::Moved),
            Action::RenameOver => Some(How::MovedOver),
            Action::Skip | Action::Ask => None,
        }
    }

    /// Whether the job created, moved or replaced something: not only merged into folders
    /// that were there (a copy that did only that did nothing to undo).
    pub fn did_something(&self) -> bool {
        !self.is_empty() && self.merges_only().is_none()
    }

    /// For a copy: the folders merged into, if any, and nothing else. A copy that only met
    /// folders that were there and skipped what they held did nothing to undo (a move that
    /// merged a folder removed its source, which its undo makes again).
    pub(crate) fn merges_only(&self) -> Option<u64> {
        if self.operation != Operation::Copy {
            return None;
        }
        let mut merged = 0;
        for e in self.entries_at() {
            if e.how != How::Merged {
                return None;
            }
            merged += 1;
        }
        (merged > 0).then_some(merged)
    }

    /// How many entries [`entries`](Self::entries) yields, without building them.
    pub fn len(&self) -> usize {
        self.count(|_| true)
    }

    /// How many of the entries are items put in place (not folders merged into, which were
    /// there already), without building them.
    pub fn placed(&self) -> usize {
        self.count(|how| how != How::Merged)
    }

    fn count(&self, counted: impl Fn(How) -> bool) -> usize {
        (self.parts.iter())
            .map(|d| {
                (0..d.inodes.len() as u32)
                    .filter(|&i| Self::how_of(d, i).is_some_and(&counted))
                    .count()
            })
            .sum()
    }

    /// Where the entries' replaced items were staged, without building the entries.
    pub(crate) fn staged(&self) -> impl Iterator<Item = &Path> + '_ {
        self.parts.iter().flat_map(|d| {
            (d.plan.staged.iter())
                .filter(|(i, _)| Self::how_of(d, **i).is_some())
                .map(|(_, p)| p.as_path())
        })
    }
}

/// An entry of a [`Record`] whose paths are built only when asked for: a job's record is
/// written as thousands of entries nearly all of which need neither (see [`PathsBelow`]).
#[derive(Clone, Copy)]
pub(crate) struct EntryAt<'r> {
    data: &'r RecordData,
    item: u32,
    how: How,
    /// Of a move's record.
    moved: bool,
}

impl EntryAt<'_> {
    /// The whole entry, paths included.
    pub(crate) fn entry(&self) -> RecordEntry {
        let (d, i) = (self.data, self.item);
        RecordEntry {
            source: d.plan.source_path(i),
            dest: d.plan.dest_path(i),
            staged: d.plan.staged.get(&i).cloned(),
            ..self.without_paths()
        }
    }

    /// The entry with empty paths and nothing staged: what it holds besides them.
    pub(crate) fn without_paths(&self) -> RecordEntry {
        let (d, i) = (self.data, self.item);
        let item = d.plan.item(i);
        // A moved source the job was given: its root says where it came from.
        let given =
            (self.moved && item.parent == NO_ITEM).then(|| &d.plan.roots[d.plan.root_of(i)]);
        RecordEntry {
            source: PathBuf::new(),
            dest: PathBuf::new(),
            kind: item.kind,
            how: self.how,
            id: FileId {
                dev: if self.how == How::Moved {
                    item.id.dev
                } else {
                    d.dest_dev
                },
                ino: d.inodes[i as usize],
            },
            size: item.size,
            mtime: item.mtime,
            top_level: self.top_level(),
            staged: None,
            source_folder: (self.moved && item.kind == Kind::Dir && self.how == How::Created)
                .then_some(item.id),
            source_parent: given.and_then(|r| r.source_parent),
            source_parent_real: given.and_then(|r| r.source_parent_real.clone()),
            source_mode: ((d.plan.dest_drops_modes
                && self.moved
                && self.how == How::Created
                && item.kind != Kind::Symlink)
                || (self.moved && self.how == How::Merged))
                .then_some(item.mode),
            source_xattrs: (self.moved && self.how == How::Merged)
                .then(|| d.plan.merged_xattrs.get(&i).cloned())
                .flatten(),
        }
    }

    /// See [`RecordEntry::top_level`].
    pub(crate) fn top_level(&self) -> bool {
        let parent = self.data.plan.item(self.item).parent;
        parent == NO_ITEM || self.data.plan.item(parent).action == Action::Merge
    }

    /// Whether the item it replaced was staged ([`RecordEntry::staged`]).
    pub(crate) fn staged(&self) -> bool {
        self.data.plan.staged.contains_key(&self.item)
    }
}

/// The path of an entry below a top-level entry above it, the same below its source and
/// its destination: the names from the top-level item's child down to it, joined by `/`,
/// from the plan's names rather than from its two whole paths.
///
/// That is exactly what is left of each path after the top-level entry's and a slash,
/// provided neither of the top-level entry's paths ends with a slash (checked in
/// [`set_top`](Self::set_top)): an entry's paths are its top-level entry's with the same
/// names pushed on.
#[derive(Default)]
pub(crate) struct PathsBelow<'r> {
    top: Option<EntryAt<'r>>,
    /// The last folder a path was built in, and its own path below `top` (empty for `top`).
    dir: Option<(u32, Vec<u8>)>,
    path: Vec<u8>,
}

impl<'r> PathsBelow<'r> {
    /// Paths are asked below `top`, written with its `source` and `dest` paths, from now on;
    /// below nothing if either ends with a slash.
    pub(crate) fn set_top(&mut self, top: EntryAt<'r>, source: &Path, dest: &Path) {
        use std::os::unix::ffi::OsStrExt;
        let ends_in_slash = |p: &Path| p.as_os_str().as_bytes().ends_with(b"/");
        self.top = (!ends_in_slash(source) && !ends_in_slash(dest)).then_some(top);
        self.dir = None;
    }

    /// The path of `e` below the top-level entry, if that is above `e`.
    pub(crate) fn of(&mut self, e: &EntryAt<'r>) -> Option<&std::ffi::OsStr> {
        use std::os::unix::ffi::OsStrExt;
        let top = self.top.filter(|t| std::ptr::eq(t.data, e.data))?;
        let plan = &e.data.plan;
        let parent = plan.item(e.item).parent;
        if self.dir.as_ref().is_none_or(|(dir, _)| *dir != parent) {
            // Climb to the top-level item; entries come folder by folder, so rarely.
            let mut names = Vec::new();
            let mut at = parent;
            while at != top.item {
                if at == NO_ITEM {
                    return None;
                }
                names.push(plan.name(at).as_bytes());
                at = plan.item(at).parent;
            }
            let mut dir = Vec::new();
            for name in names.iter().rev() {
                dir.extend_from_slice(name);
                dir.push(b'/');
            }
            self.dir = Some((parent, dir));
        }
        let (_, dir) = self.dir.as_ref()?;
        self.path.clear();
        self.path.extend_from_slice(dir);
        self.path.extend_from_slice(plan.name(e.item).as_bytes());
        Some(std::ffi::OsStr::from_bytes(&self.path))
    }
}

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
    summary.record = match operation {
        Operation::Delete => Record {
            operation,
            parts: Vec::new(),
        },
        _ => Record {
            operation,
            parts: vec![Arc::new(RecordData {
                plan,
                inodes: done,
                dest_dev,
            })],
        },
    };
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
