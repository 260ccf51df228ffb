//! A job's [`Plan`]: every item it will touch, and what to do with each.
//!
//! The plan is compact so that memory grows with the number of items, not their size or path
//! length: fixed-size [`Item`] records (80 bytes) that point to their parent by index, names
//! as bytes in one arena. Each walked folder's children are one contiguous run of items (a
//! [`Block`]); blocks are in depth-first order of their folders, which is the order every
//! executor replays with a [`DirStack`](crate::fs::DirStack).
//!
//! The plan is built by a [`Planner`] with one walk over directory descriptors (`walk.rs`).
//! Conflicts with the destination, same-file and into-itself cases, special files and file
//! system limits are all decided here, before anything is written (the decisions themselves
//! are in `decide.rs`); the executors re-check only what can change (the source's identity at
//! open, the destination name at commit). A conflict answered later becomes a new root of the
//! same plan, planned by [`Planner::extend`] with the answer applied.

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::conflict::{Conflict, ConflictKind};
use super::{Resolution, Totals};
use crate::entry::Kind;
use crate::error::Error;
use crate::fs::{FileId, Meta, Timestamp};

mod nested;
mod removable;
mod stat_ahead;
mod walk;
mod writable;

pub(crate) use walk::Planner;

/// "No item": the parent of a source, or no current item.
pub(crate) const NO_ITEM: u32 = u32::MAX;

/// What the executors do with an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Action {
    /// Copy: create it at the destination. Delete: remove it.
    Create,
    /// A folder that exists at the destination: write into it, leave its own metadata alone.
    Merge,
    /// An item exists at the destination: replace it once the copy is complete (the old one
    /// goes to the staging folder).
    Replace,
    /// Move within one mount: a single rename, nothing below it walked.
    Rename,
    /// Like `Rename`, putting what was there in the staging folder first.
    RenameOver,
    /// A conflict waiting for an answer, or answered by a later root of the plan.
    Ask,
    /// Not done; the reason is recorded (or covered by a failure of an ancestor).
    Skip,
}

/// One planned item.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Item {
    pub(crate) parent: u32,
    name_off: u32,
    name_len: u16,
    pub(crate) kind: Kind,
    pub(crate) action: Action,
    pub(crate) mode: u16,
    pub(crate) uid: u32,
    pub(crate) gid: u32,
    pub(crate) size: u64,
    pub(crate) id: FileId,
    pub(crate) atime: Timestamp,
    pub(crate) mtime: Timestamp,
}

impl Item {
    /// A folder the walk descended into (and so has a block).
    fn walkable(&self) -> bool {
        self.kind == Kind::Dir
            && matches!(
                self.action,
                Action::Create | Action::Merge | Action::Replace
            )
    }
}

/// The children of folder `dir`: items `start..end`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Block {
    pub(crate) dir: u32,
    pub(crate) start: u32,
    pub(crate) end: u32,
}

/// One source of the job: its item, the items and blocks of its tree.
#[derive(Debug, Clone)]
pub(crate) struct Root {
    pub(crate) item: u32,
    pub(crate) end: u32,
    pub(crate) blocks: (u32, u32),
    /// The path as the user gave it.
    pub(crate) source: PathBuf,
    /// Name at the destination when it differs (rename, keep both).
    pub(crate) dest_name: Option<OsString>,
    /// Folder it lands in when not the job's destination (an answered conflict below it).
    pub(crate) dest_dir: Option<PathBuf>,
    /// The item of an earlier root this root stands for (an answered conflict), or
    /// [`NO_ITEM`] for a source the job was given.
    pub(crate) origin: u32,
    /// The answer this root carries out (Replace, Replace if newer, Merge).
    pub(crate) force: Option<Forced>,
    /// The folder holding the source, as planning found it (device and inode).
    pub(crate) source_parent: Option<FileId>,
    /// Where that folder really is, when a link on the source's path leads elsewhere.
    pub(crate) source_parent_real: Option<PathBuf>,
}

/// An answer to a conflict that a root carries out (Replace, Replace if newer, Merge), and
/// the kind of conflict it answered.
#[derive(Debug, Clone)]
pub(crate) struct Forced {
    /// The answer.
    pub(crate) resolution: Resolution,
    /// What was in the way when it was given: met with another kind of item there now (a file
    /// asked about, replaced by a folder since), the answer does not hold, and the item is
    /// asked about again, as it is now.
    pub(crate) answered: ConflictKind,
    /// The very item that was in the way, when known: another one there now (a file of the
    /// same kind swapped in while the question was open) is asked about again too.
    pub(crate) about: Option<FileId>,
}

impl Root {
    /// The folder holding the source.
    pub(crate) fn parent(&self) -> &Path {
        self.source.parent().unwrap_or(Path::new(""))
    }
}

/// Files of the plan that are one file under several names (a link count above one, one
/// source identity): the first of each to be written is copied, the others are linked to it,
/// as `cp -a` does. Only files with more than one name are looked up, so a plan without
/// links costs nothing more.
#[derive(Debug, Default)]
pub(crate) struct HardLinks {
    /// The item written for each linked source file.
    first: HashMap<FileId, u32>,
    /// Copies made before, by source identity: by the interrupted run a resume continues.
    present: HashMap<FileId, PathBuf>,
    /// Items linked rather than copied, and what to.
    of: HashMap<u32, LinkTo>,
}

/// What an item is linked to.
#[derive(Debug, Clone)]
pub(crate) enum LinkTo {
    /// The copy of an earlier item of the plan.
    Item(u32),
    /// A copy an interrupted run made, at this path.
    Path(PathBuf),
}

impl HardLinks {
    /// Notes that item `i`, whose source is `meta`, is to be written: true when it is to be
    /// linked to an earlier copy rather than copied.
    pub(crate) fn add(&mut self, i: u32, meta: &Meta) -> bool {
        if meta.kind != Kind::File || (meta.nlink < 2 && self.present.is_empty()) {
            return false;
        }
        // A name removed since by a resumed move may have left this one the only one.
        if let Some(path) = self.present.get(&meta.id) {
            self.of.insert(i, LinkTo::Path(path.clone()));
            return true;
        }
        if meta.nlink < 2 {
            return false;
        }
        match self.first.entry(meta.id) {
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(i);
                false
            }
            std::collections::hash_map::Entry::Occupied(e) => {
                self.of.insert(i, LinkTo::Item(*e.get()));
                true
            }
        }
    }

    /// Notes that a copy of the source file `id` is at `path` already (made by the run a
    /// resume continues): the other names of that file are linked to it.
    pub(crate) fn present(&mut self, id: FileId, path: PathBuf) {
        self.present.entry(id).or_insert(path);
    }

    /// True when no item is linked.
    pub(crate) fn is_empty(&self) -> bool {
        self.of.is_empty()
    }

    /// What item `i` is linked to, if it is.
    pub(crate) fn of(&self, i: u32) -> Option<&LinkTo> {
        self.of.get(&i)
    }

    /// True when item `i`, a copy of source file `id`, is what others are linked to.
    pub(crate) fn is_first(&self, i: u32, id: FileId) -> bool {
        self.first.get(&id) == Some(&i)
    }
}

/// The expanded job.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    names: Vec<u8>,
    pub(crate) items: Vec<Item>,
    pub(crate) blocks: Vec<Block>,
    pub(crate) roots: Vec<Root>,
    /// Destination folder of a copy or move.
    pub(crate) dest: Option<PathBuf>,
    /// Where replaced items were put, per item.
    pub(crate) staged: HashMap<u32, PathBuf>,
    /// What each item to replace replaces, as the decision to replace it found it (its
    /// identity and kind: a freed inode number is often given to the next item made): another
    /// item put there since (a folder swapped in for the file) is not set aside for it.
    pub(crate) replacing: HashMap<u32, (FileId, Kind)>,
    /// Destination paths given to roots, so that two answers never pick one new name.
    pub(crate) claimed: HashSet<PathBuf>,
    /// Files linked to one another.
    pub(crate) links: HardLinks,
    /// Modes the copies get instead of their sources', by source path (an undo copying items
    /// back from a disk that holds none: the modes they had before the move). By path, not
    /// by item: an answer to a conflict plans its item anew.
    pub(crate) source_modes: std::sync::Arc<HashMap<PathBuf, u16>>,
    /// A move's destination did not keep the modes of what it copied there: its record keeps
    /// each source's mode for the undo (`RecordEntry::source_mode`).
    pub(crate) dest_drops_modes: bool,
    /// A move's source folders merged into folders of their names, which it then removed:
    /// their extended attributes and ACLs, for the undo that makes them anew
    /// (`RecordEntry::source_xattrs`). Only those that had any.
    pub(crate) merged_xattrs: HashMap<u32, crate::fs::Xattrs>,
    /// Large files written whole whose names were then found taken, kept for the answers.
    pub(crate) asked_parts: super::partial::AskedParts,
}

impl Plan {
    /// The permission bits item `i`'s copy is to have: `found` (its source's), unless the
    /// plan says otherwise ([`source_modes`](Self::source_modes)).
    pub(crate) fn mode_for(&self, i: u32, found: u32) -> u32 {
        match self.source_modes.is_empty() {
            true => found,
            false => (self.source_modes.get(&self.source_path(i))).map_or(found, |&m| m.into()),
        }
    }

    pub(crate) fn name(&self, i: u32) -> &OsStr {
        let item = &self.items[i as usize];
        let start = item.name_off as usize;
        OsStr::from_bytes(&self.names[start..start + usize::from(item.name_len)])
    }

    pub(crate) fn item(&self, i: u32) -> &Item {
        &self.items[i as usize]
    }

    pub(crate) fn root_of(&self, i: u32) -> usize {
        self.roots.partition_point(|r| r.item <= i) - 1
    }

    /// Names from below the root down to `i`.
    fn rel_names(&self, mut i: u32) -> Vec<&OsStr> {
        let mut names = Vec::new();
        while self.item(i).parent != NO_ITEM {
            names.push(self.name(i));
            i = self.item(i).parent;
        }
        names.reverse();
        names
    }

    /// `base` joined with the names from below the root down to `i`, allocated once (a job's
    /// record expands thousands of these).
    fn under(&self, base: &Path, i: u32) -> PathBuf {
        let names = self.rel_names(i);
        let len = base.as_os_str().len() + names.iter().map(|n| n.len() + 1).sum::<usize>();
        let mut path = PathBuf::with_capacity(len);
        path.push(base);
        path.extend(names);
        path
    }

    pub(crate) fn source_path(&self, i: u32) -> PathBuf {
        self.under(&self.roots[self.root_of(i)].source, i)
    }

    pub(crate) fn dest_path(&self, i: u32) -> PathBuf {
        let root = &self.roots[self.root_of(i)];
        let dir = (root.dest_dir.as_deref())
            .or(self.dest.as_deref())
            .unwrap_or_else(|| root.parent());
        let name = root
            .dest_name
            .as_deref()
            .unwrap_or_else(|| self.name(root.item));
        let names = self.rel_names(i);
        let len = dir.as_os_str().len()
            + name.len()
            + 1
            + names.iter().map(|n| n.len() + 1).sum::<usize>();
        let mut path = PathBuf::with_capacity(len);
        path.push(dir);
        path.push(name);
        path.extend(names);
        path
    }

    /// The name of item `i` at its destination.
    pub(crate) fn dest_name(&self, i: u32) -> &OsStr {
        if self.item(i).parent == NO_ITEM
            && let Some(name) = &self.roots[self.root_of(i)].dest_name
        {
            return name;
        }
        self.name(i)
    }

    fn push(&mut self, parent: u32, name: &OsStr, kind: Kind) -> Result<u32, Error> {
        let (idx, off) = (
            u32::try_from(self.items.len()),
            u32::try_from(self.names.len()),
        );
        let (Ok(idx), Ok(off), Ok(name_len)) = (idx, off, u16::try_from(name.len())) else {
            return Err(Error::PlanTooLarge {
                items: self.items.len() as u64,
            });
        };
        if idx == NO_ITEM {
            return Err(Error::PlanTooLarge {
                items: self.items.len() as u64,
            });
        };
        self.names.extend_from_slice(name.as_bytes());
        self.items.push(Item {
            parent,
            name_off: off,
            name_len,
            kind,
            action: Action::Create,
            mode: 0,
            uid: 0,
            gid: 0,
            size: 0,
            id: FileId::default(),
            atime: Timestamp::default(),
            mtime: Timestamp::default(),
        });
        Ok(idx)
    }

    pub(crate) fn set_meta(&mut self, i: u32, m: &Meta) {
        let item = &mut self.items[i as usize];
        item.kind = m.kind;
        item.mode = m.mode as u16; // permission bits only: fits
        item.uid = m.uid;
        item.gid = m.gid;
        item.size = m.size;
        item.id = m.id;
        item.atime = m.atime;
        item.mtime = m.mtime;
    }

    /// Item `i` was written with `size` bytes and modification time `mtime`, not what planning
    /// saw (it changed since, or claimed a size it does not hold, as `/proc` and sysfs files
    /// do): the record of the job keeps what its copy is, so that undo knows it unchanged.
    pub(crate) fn set_written(&mut self, i: u32, size: u64, mtime: Timestamp) {
        let item = &mut self.items[i as usize];
        item.size = size;
        item.mtime = mtime;
    }

    pub(crate) fn set_action(&mut self, i: u32, action: Action) {
        self.items[i as usize].action = action;
    }

    /// A plan of one item, not walked (rename and create-folder jobs): `source` ends up in
    /// `dest` under `dest_name` (or its own name).
    pub(crate) fn single(
        source: PathBuf,
        dest: PathBuf,
        dest_name: Option<OsString>,
        action: Action,
        meta: &Meta,
    ) -> Result<Self, Error> {
        let mut plan = Plan {
            dest: Some(dest),
            ..Plan::default()
        };
        plan.push_single(source, dest_name, action, Some(meta))?;
        Ok(plan)
    }

    /// Adds a root of one item, not walked: `source`, ending up in the plan's destination
    /// under `dest_name` (or its own name); without `meta`, of unknown kind until
    /// [`set_meta`](Self::set_meta) (a link job's targets, then the links it made).
    pub(crate) fn push_single(
        &mut self,
        source: PathBuf,
        dest_name: Option<OsString>,
        action: Action,
        meta: Option<&Meta>,
    ) -> Result<u32, Error> {
        let name = source.file_name().unwrap_or_default().to_owned();
        let i = self.push(NO_ITEM, &name, meta.map_or(Kind::Unknown, |m| m.kind))?;
        if let Some(meta) = meta {
            self.set_meta(i, meta);
        }
        self.set_action(i, action);
        self.roots.push(Root {
            item: i,
            end: i + 1,
            blocks: (0, 0),
            source,
            dest_name,
            dest_dir: None,
            origin: NO_ITEM,
            force: None,
            source_parent: None,
            source_parent_real: None,
        });
        Ok(i)
    }
}

/// What the job does to its sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Copy,
    Move,
    Delete,
}

impl Planned {
    /// What the plan needs free on a destination of `block`-byte blocks: its data, each
    /// file rounded up to whole blocks (at most a block less one each). The source's own
    /// blocks were counted: 1,900 files of a few bytes "needed" 7.8 MB (4 KiB each on ext4)
    /// on a disk of 1 KiB blocks, where they take 1.9 MB, and a copy that fit was refused.
    pub(crate) fn needed_on(&self, block: u64) -> u64 {
        let rounding = self.needed_files.saturating_mul(block.saturating_sub(1));
        self.needed_bytes.saturating_add(rounding)
    }
}

/// A finished plan with its totals.
pub(crate) struct Planned {
    pub(crate) plan: Plan,
    pub(crate) totals: Totals,
    /// Bytes of data the destination must hold: each file's size, or what its source has
    /// allocated if less (holes stay holes).
    pub(crate) needed_bytes: u64,
    /// Files in `needed_bytes`, each rounded up to whole blocks of the destination
    /// ([`Planned::needed_on`]).
    pub(crate) needed_files: u64,
    /// Files, folders and links made at the destination (hard links and renames make none).
    pub(crate) needed_inodes: u64,
    /// Hard links made to files copied earlier in the job (tmpfs counts them as inodes).
    pub(crate) needed_links: u64,
    /// Conflicts to ask about (policy Ask).
    pub(crate) conflicts: Vec<Conflict>,
}

#[cfg(test)]
mod tests;
