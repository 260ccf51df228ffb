//! The [`Record`] a job keeps for undo: what it created, merged into, replaced or moved,
//! read off its plans without a copy of every path.

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::super::plan::{Action, NO_ITEM, Plan};
use super::files_done;
use crate::entry::Kind;
use crate::fs::{FileId, Timestamp};

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
    /// The record of a job of `operation` that carried out `plan`, `inodes` being each item's
    /// inode at the destination (0: not done) on device `dest_dev`. A delete keeps nothing.
    pub(super) fn of_plan(
        operation: Operation,
        plan: Plan,
        inodes: Vec<u64>,
        dest_dev: u64,
    ) -> Record {
        let parts = match operation {
            Operation::Delete => Vec::new(),
            _ => vec![Arc::new(RecordData {
                plan,
                inodes,
                dest_dev,
            })],
        };
        Record { operation, parts }
    }

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

    /// How many of the entries are folders merged into, without building them.
    pub fn merged(&self) -> usize {
        self.count(|how| how == How::Merged)
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
