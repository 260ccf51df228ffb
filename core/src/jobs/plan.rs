//! Expanding a job's sources into a [`Plan`] with one walk over directory descriptors.
//!
//! The plan is compact so that memory grows with the number of items, not their size or path
//! length: fixed-size [`Item`] records (80 bytes) that point to their parent by index, names
//! as bytes in one arena. Each walked folder's children are one contiguous run of items (a
//! [`Block`]); blocks are in depth-first order of their folders, which is the order every
//! executor replays with a [`DirStack`].
//!
//! Conflicts with the destination, same-file and into-itself cases, special files and file
//! system limits are all decided here, before anything is written (the decisions themselves
//! are in `decide.rs`); the executors re-check only what can change (the source's identity at
//! open, the destination name at commit). A conflict answered later becomes a new root of the
//! same plan, planned by [`Planner::extend`] with the answer applied.

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustix::fd::OwnedFd;
use rustix::io::Errno;

use super::conflict::Conflict;
use super::control::JobCtx;
use super::dest::Dest;
use super::progress::PlanningTicker;
use super::{ConflictPolicy, Resolution, SkipReason, Totals};
use crate::error::Error;
use crate::fs::{self, DirStack, FileId, FileKind, Meta, Timestamp};

/// Children of a folder examined between two checks for cancel and progress ticks.
const STAT_CHUNK: u32 = 4096;

/// Children from which a folder is stat'ed by two threads: below, a thread costs more than
/// it saves (about 30 us against 1 to 2 us a `statx`).
const PARALLEL_STAT_MIN: usize = 256;

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
    pub(crate) kind: FileKind,
    pub(crate) action: Action,
    pub(crate) mode: u16,
    pub(crate) uid: u32,
    pub(crate) size: u64,
    pub(crate) id: FileId,
    pub(crate) atime: Timestamp,
    pub(crate) mtime: Timestamp,
}

impl Item {
    /// A folder the walk descended into (and so has a block).
    fn walkable(&self) -> bool {
        self.kind == FileKind::Dir
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
    pub(crate) force: Option<Resolution>,
}

impl Root {
    /// The folder holding the source.
    pub(crate) fn parent(&self) -> &Path {
        self.source.parent().unwrap_or(Path::new(""))
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
    /// Destination paths given to roots, so that two answers never pick one new name.
    pub(crate) claimed: HashSet<PathBuf>,
}

impl Plan {
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

    pub(crate) fn source_path(&self, i: u32) -> PathBuf {
        let mut path = self.roots[self.root_of(i)].source.clone();
        path.extend(self.rel_names(i));
        path
    }

    pub(crate) fn dest_path(&self, i: u32) -> PathBuf {
        let root = &self.roots[self.root_of(i)];
        let mut path = root
            .dest_dir
            .clone()
            .or_else(|| self.dest.clone())
            .unwrap_or_else(|| root.parent().to_path_buf());
        path.push(
            root.dest_name
                .as_deref()
                .unwrap_or_else(|| self.name(root.item)),
        );
        path.extend(self.rel_names(i));
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

    fn push(&mut self, parent: u32, name: &OsStr, kind: FileKind) -> Result<u32, Error> {
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
            size: 0,
            id: FileId::default(),
            atime: Timestamp::default(),
            mtime: Timestamp::default(),
        });
        Ok(idx)
    }

    fn set_meta(&mut self, i: u32, m: &Meta) {
        let item = &mut self.items[i as usize];
        item.kind = m.kind;
        item.mode = m.mode as u16; // permission bits only: fits
        item.uid = m.uid;
        item.size = m.size;
        item.id = m.id;
        item.atime = m.atime;
        item.mtime = m.mtime;
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
        let name = source.file_name().unwrap_or_default().to_owned();
        plan.push(NO_ITEM, &name, meta.kind)?;
        plan.set_meta(0, meta);
        plan.set_action(0, action);
        plan.roots.push(Root {
            item: 0,
            end: 1,
            blocks: (0, 0),
            source,
            dest_name,
            dest_dir: None,
            origin: NO_ITEM,
            force: None,
        });
        Ok(plan)
    }
}

/// What the job does to its sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    Copy,
    Move,
    Delete,
}

/// A finished plan with its totals.
pub(crate) struct Planned {
    pub(crate) plan: Plan,
    pub(crate) totals: Totals,
    /// Bytes the destination must have free (allocated blocks of what is copied).
    pub(crate) needed_bytes: u64,
    /// Conflicts to ask about (policy Ask).
    pub(crate) conflicts: Vec<Conflict>,
}

struct Frame {
    dir: u32,
    next: u32,
    end: u32,
    /// The destination folder is open on the destination stack (merge).
    merged: bool,
}

/// Builds a plan; see the module documentation.
pub(crate) struct Planner<'a> {
    pub(super) ctx: &'a JobCtx,
    pub(super) mode: Mode,
    pub(super) policy: ConflictPolicy,
    pub(super) dest: Option<&'a Dest>,
    pub(super) plan: Plan,
    pub(super) needed_bytes: u64,
    buf: Vec<u8>,
    /// First source of each name (copy and move).
    pub(super) names_seen: HashMap<OsString, u32>,
    ids_seen: HashSet<FileId>,
    /// Mount of the current delete root: a delete never leaves it.
    root_mnt: u64,
    /// The last source's folder, open.
    parent: Option<(PathBuf, Arc<OwnedFd>, Meta)>,
    ticker: PlanningTicker,
    pub(super) conflicts: Vec<Conflict>,
}

impl<'a> Planner<'a> {
    pub(crate) fn new(
        ctx: &'a JobCtx,
        mode: Mode,
        policy: ConflictPolicy,
        dest: Option<&'a Dest>,
    ) -> Self {
        let plan = Plan {
            dest: dest.map(|d| d.path.clone()),
            ..Plan::default()
        };
        Planner {
            ctx,
            mode,
            policy,
            dest,
            plan,
            needed_bytes: 0,
            buf: Vec::new(),
            names_seen: HashMap::new(),
            ids_seen: HashSet::new(),
            root_mnt: 0,
            parent: None,
            ticker: PlanningTicker::new(),
            conflicts: Vec::new(),
        }
    }

    /// A planner that goes on with `plan` (see [`extend`](Self::extend)).
    pub(crate) fn resume(
        ctx: &'a JobCtx,
        mode: Mode,
        policy: ConflictPolicy,
        dest: &'a Dest,
        plan: Plan,
    ) -> Self {
        Planner {
            plan,
            ..Planner::new(ctx, mode, policy, Some(dest))
        }
    }

    /// Walks every source. Fails only when cancelled or when the plan outgrows its indexes;
    /// problems with single items are recorded in the job context.
    pub(crate) fn run(mut self, sources: &[PathBuf]) -> Result<Planned, Error> {
        for source in sources {
            self.add_root(source, None, None, NO_ITEM, None)?;
        }
        Ok(self.finish())
    }

    /// Plans one more root: `source` into `dest_dir` (the job's destination if `None`) as
    /// `dest_name`, standing for item `origin` of an earlier root, carrying out `force`.
    pub(super) fn add_root(
        &mut self,
        source: &Path,
        dest_dir: Option<PathBuf>,
        dest_name: Option<OsString>,
        origin: u32,
        force: Option<Resolution>,
    ) -> Result<(), Error> {
        let (item, blocks) = (self.plan.items.len() as u32, self.plan.blocks.len() as u32);
        self.plan.roots.push(Root {
            item,
            end: item,
            blocks: (blocks, blocks),
            source: source.to_path_buf(),
            dest_name,
            dest_dir,
            origin,
            force,
        });
        self.source(source)?;
        let (items, blocks) = (self.plan.items.len() as u32, self.plan.blocks.len() as u32);
        let root = self.plan.roots.last_mut().expect("pushed above");
        (root.end, root.blocks.1) = (items, blocks);
        Ok(())
    }

    pub(super) fn finish(self) -> Planned {
        let totals = self.totals();
        Planned {
            plan: self.plan,
            totals,
            needed_bytes: self.needed_bytes,
            conflicts: self.conflicts,
        }
    }

    fn totals(&self) -> Totals {
        let mut t = Totals::default();
        let counted = |i: &&Item| !matches!(i.action, Action::Skip | Action::Ask);
        for item in self.plan.items.iter().filter(counted) {
            t.items += 1;
            t.folders += u64::from(item.kind == FileKind::Dir);
            if item.kind == FileKind::File && self.mode != Mode::Delete {
                t.bytes += item.size;
            }
        }
        if let Some(dest) = self.dest {
            t.cross_device = self.plan.roots.iter().any(|r| {
                let item = self.plan.item(r.item);
                item.action != Action::Skip && item.id.dev != dest.meta.id.dev
            });
        }
        t
    }

    pub(super) fn fail(&mut self, i: u32, error: Error) {
        self.plan.set_action(i, Action::Skip);
        self.ctx.fail(i, self.plan.source_path(i), error);
    }

    /// Like [`fail`](Self::fail) for an error reading the source, which the user may ask to
    /// read again (see [`JobCtx::fail_or_retry`]): true to try again.
    fn retry(&mut self, i: u32, error: Error) -> bool {
        let again = self.ctx.fail_or_retry(i, self.plan.source_path(i), error);
        if !again {
            self.plan.set_action(i, Action::Skip);
        }
        again
    }

    pub(super) fn skip(&mut self, i: u32, reason: SkipReason) {
        self.plan.set_action(i, Action::Skip);
        self.ctx.skip(i, self.plan.source_path(i), reason);
    }

    fn op(&self) -> &'static str {
        match self.mode {
            Mode::Copy => "copy",
            Mode::Move => "move",
            Mode::Delete => "delete",
        }
    }

    fn source(&mut self, source: &Path) -> Result<(), Error> {
        let Some(name) = source.file_name() else {
            // `/`, `..`, `a/..`: nothing a file manager should copy, move or delete.
            let i = self.plan.push(NO_ITEM, OsStr::new(""), FileKind::Unknown)?;
            self.fail(
                i,
                Error::Refused {
                    op: self.op(),
                    path: source.to_path_buf(),
                },
            );
            return Ok(());
        };
        let i = self.plan.push(NO_ITEM, name, FileKind::Unknown)?;
        let parent_path = self
            .plan
            .roots
            .last()
            .expect("pushed by run")
            .parent()
            .to_path_buf();
        let (parent, parent_meta, meta) = loop {
            let opened = self.open_parent(&parent_path).map_err(|e| ("open", e));
            let stat = |(p, m): (Arc<OwnedFd>, Meta)| {
                let meta = fs::stat_at(&*p, name).map_err(|e| ("stat", e))?;
                Ok((p, m, meta))
            };
            match opened.and_then(stat) {
                Ok(found) => break found,
                Err((op, e)) if self.retry(i, Error::io(op, source, e)) => {}
                Err(_) => return Ok(()),
            }
        };
        self.plan.set_meta(i, &meta);
        let derived = self.plan.roots.last().expect("pushed by run").origin != NO_ITEM;
        if !derived && !self.ids_seen.insert(meta.id) {
            self.skip(i, SkipReason::Duplicate);
            return Ok(());
        }
        let mut dest_fd = None;
        if self.mode == Mode::Delete {
            self.root_mnt = meta.mnt_id;
            if meta.kind == FileKind::Dir && meta.mnt_id != parent_meta.mnt_id {
                self.fail(
                    i,
                    Error::OtherFilesystem {
                        path: source.to_path_buf(),
                    },
                );
            }
        } else {
            let dest = self.dest.expect("copy and move have a destination");
            if meta.kind == FileKind::Dir && dest.ancestors.contains(&meta.id) {
                self.fail(
                    i,
                    Error::IntoItself {
                        path: source.to_path_buf(),
                        dest: dest.path.clone(),
                    },
                );
                return Ok(());
            }
            let (fd, dmeta) = match self.root_dest() {
                Ok(pair) => pair,
                Err(e) => {
                    self.fail(i, e);
                    return Ok(());
                }
            };
            let dest_name = self.plan.dest_name(i).to_owned();
            if !derived && let Some(&first) = self.names_seen.get(&dest_name) {
                self.duplicate(i, first, &meta, &parent, &fd);
                return Ok(());
            }
            self.names_seen.entry(dest_name).or_insert(i);
            let force = self.plan.roots.last().and_then(|r| r.force.clone());
            self.decide(i, &meta, &parent, Some(&*fd), dmeta.mnt_id, force.as_ref());
            dest_fd = Some((fd, dmeta));
        }
        if self.plan.item(i).walkable() {
            let merged = self.plan.item(i).action == Action::Merge;
            let dest = dest_fd.filter(|_| merged);
            self.walk(i, parent, parent_meta.id, dest)?;
        }
        Ok(())
    }

    /// The open destination folder of the current root.
    fn root_dest(&self) -> Result<(Arc<OwnedFd>, Meta), Error> {
        let dest = self.dest.expect("copy and move have a destination");
        match &self.plan.roots.last().expect("a root").dest_dir {
            None => Ok((Arc::clone(&dest.fd), dest.meta)),
            Some(dir) => {
                let fd = fs::open_dir_path(dir).map_err(|e| Error::io("open", dir, e))?;
                let meta = fs::stat_fd(&fd).map_err(|e| Error::io("stat", dir, e))?;
                Ok((Arc::new(fd), meta))
            }
        }
    }

    /// The folder holding a source, opened once for all the sources it holds (a selection of
    /// thousands of files in one folder costs one open, not thousands).
    fn open_parent(&mut self, path: &Path) -> rustix::io::Result<(Arc<OwnedFd>, Meta)> {
        if let Some((cached, fd, meta)) = &self.parent
            && cached == path
        {
            return Ok((Arc::clone(fd), *meta));
        }
        let fd = Arc::new(fs::open_dir_path(path)?);
        let meta = fs::stat_fd(&*fd)?;
        self.parent = Some((path.to_path_buf(), Arc::clone(&fd), meta));
        Ok((fd, meta))
    }

    /// Depth-first walk below the folder `root` (whose parent folder is `parent`).
    fn walk(
        &mut self,
        root: u32,
        parent: Arc<OwnedFd>,
        parent_id: FileId,
        merged_into: Option<(Arc<OwnedFd>, Meta)>,
    ) -> Result<(), Error> {
        let mut src = DirStack::new(fs::max_open_dirs());
        src.push(parent, parent_id);
        let mut dst = DirStack::new(fs::max_open_dirs());
        if let Some((fd, meta)) = merged_into {
            dst.push(fd, meta.id);
        }
        let mut frames = Vec::new();
        self.enter(root, &mut src, &mut dst, &mut frames)?;
        while let Some(frame) = frames.last_mut() {
            let next = (frame.next..frame.end).find(|&c| self.plan.item(c).walkable());
            if let Some(child) = next {
                frame.next = child + 1;
                self.enter(child, &mut src, &mut dst, &mut frames)?;
                continue;
            }
            let frame = frames.pop().expect("checked above");
            let popped = src
                .pop()
                .1
                .and_then(|()| if frame.merged { dst.pop().1 } else { Ok(()) });
            if let Err(e) = popped {
                // A folder above was moved away mid-walk: give up on the rest of this source.
                let path = self.plan.source_path(frame.dir);
                self.fail(frame.dir, Error::io("walk", path, e));
                for f in frames.drain(..) {
                    for c in f.next..f.end {
                        if self.plan.item(c).walkable() {
                            self.plan.set_action(c, Action::Skip);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Opens folder `i`, lists and examines its children, and pushes it as a frame.
    fn enter(
        &mut self,
        i: u32,
        src: &mut DirStack,
        dst: &mut DirStack,
        frames: &mut Vec<Frame>,
    ) -> Result<(), Error> {
        if self.ctx.control.is_cancelled() {
            return Err(Error::Cancelled);
        }
        let name = self.plan.name(i).to_owned();
        let fd = loop {
            match fs::open_dir_at(src.top(), &name).and_then(|fd| Ok((fs::stat_fd(&fd)?, fd))) {
                Ok((m, fd)) if m.id == self.plan.item(i).id => break fd,
                Ok(_) => {
                    let path = self.plan.source_path(i);
                    self.fail(i, Error::Changed { path });
                    return Ok(());
                }
                Err(e) if self.retry(i, Error::io("open", self.plan.source_path(i), e)) => {}
                Err(_) => return Ok(()),
            }
        };
        let merged = self.plan.item(i).action == Action::Merge;
        let dest_fd = if merged {
            let dest_name = self.plan.dest_name(i).to_owned();
            match fs::open_dir_at(dst.top(), &dest_name).and_then(|d| Ok((fs::stat_fd(&d)?, d))) {
                Ok(pair) => Some(pair),
                Err(e) => {
                    self.fail(i, Error::io("open", self.plan.dest_path(i), e));
                    return Ok(());
                }
            }
        } else {
            None
        };
        let start = self.plan.items.len() as u32;
        self.list(i, &fd, start)?;
        let end = self.plan.items.len() as u32;
        let mut chunk = start;
        while chunk < end {
            // A folder of a million files takes seconds to examine: stay responsive inside it.
            if self.ctx.control.is_cancelled() {
                return Err(Error::Cancelled);
            }
            let chunk_end = end.min(chunk + STAT_CHUNK);
            let stats = self.stat_children(&fd, chunk..chunk_end);
            for (c, stat) in (chunk..chunk_end).zip(stats) {
                self.examine(c, &fd, dest_fd.as_ref(), stat)?;
            }
            self.ticker.tick(self.ctx, u64::from(chunk_end));
            chunk = chunk_end;
        }
        self.plan.blocks.push(Block { dir: i, start, end });
        self.ticker.tick(self.ctx, u64::from(end));
        let id = self.plan.item(i).id;
        src.push(fd, id);
        if let Some((meta, d)) = dest_fd {
            dst.push(d, meta.id);
        }
        frames.push(Frame {
            dir: i,
            next: start,
            end,
            merged,
        });
        Ok(())
    }

    fn list(&mut self, dir: u32, fd: &OwnedFd, start: u32) -> Result<(), Error> {
        let mut buf = std::mem::take(&mut self.buf);
        let mut overflow = None;
        let listed = fs::read_dir(fd, &mut buf, |name, file_type| {
            if let Err(e) = self
                .plan
                .push(dir, name, FileKind::from_file_type(file_type))
            {
                overflow = Some(e);
                return Err(Errno::NOMEM);
            }
            Ok(())
        });
        self.buf = buf;
        if let Some(e) = overflow {
            return Err(e);
        }
        if let Err(e) = listed {
            // A folder we cannot list entirely is not copied or deleted as if it were empty.
            if let Some(first) = self.plan.items.get(start as usize) {
                self.plan.names.truncate(first.name_off as usize);
            }
            self.plan.items.truncate(start as usize);
            let error = Error::io("read folder", self.plan.source_path(dir), e);
            if self.retry(dir, error) {
                // From the start again; a failed seek fails the next read, which asks again.
                let _ = rustix::fs::seek(fd, rustix::fs::SeekFrom::Start(0));
                return self.list(dir, fd, start);
            }
        }
        Ok(())
    }

    /// Deleting needs no metadata for what is not a folder: the type from getdents is enough.
    fn needs_stat(&self, c: u32) -> bool {
        self.mode != Mode::Delete
            || matches!(self.plan.item(c).kind, FileKind::Dir | FileKind::Unknown)
    }

    /// `statx` of the children `range` of the open folder `fd` that need it (`None` for the
    /// others), by this thread and, for a large range, a second one: while a job plans, its
    /// walk is its only thread, and these calls are most of the walk's time.
    fn stat_children(
        &self,
        fd: &OwnedFd,
        range: std::ops::Range<u32>,
    ) -> Vec<Option<rustix::io::Result<Meta>>> {
        let stat = |c: u32| {
            self.needs_stat(c)
                .then(|| fs::stat_at(fd, self.plan.name(c)))
        };
        if range.len() < PARALLEL_STAT_MIN {
            return range.map(stat).collect();
        }
        let mid = range.start + (range.end - range.start) / 2;
        std::thread::scope(|s| {
            let second = s.spawn(|| (mid..range.end).map(stat).collect::<Vec<_>>());
            let mut stats: Vec<_> = (range.start..mid).map(stat).collect();
            match second.join() {
                Ok(rest) => stats.extend(rest),
                Err(panic) => std::panic::resume_unwind(panic),
            }
            stats
        })
    }

    /// Examines child `c` of the open folder `fd`, given its `statx` (`None`: not needed).
    fn examine(
        &mut self,
        c: u32,
        fd: &OwnedFd,
        dest: Option<&(Meta, OwnedFd)>,
        stat: Option<rustix::io::Result<Meta>>,
    ) -> Result<(), Error> {
        let Some(mut stat) = stat else {
            return Ok(());
        };
        let meta = loop {
            match stat {
                Ok(m) => break m,
                Err(Errno::NOENT) if self.mode == Mode::Delete => {
                    self.plan.set_action(c, Action::Skip); // already gone
                    return Ok(());
                }
                Err(e) if self.retry(c, Error::io("stat", self.plan.source_path(c), e)) => {
                    stat = fs::stat_at(fd, self.plan.name(c));
                }
                Err(_) => return Ok(()),
            }
        };
        self.plan.set_meta(c, &meta);
        if self.mode == Mode::Delete {
            if meta.kind == FileKind::Dir && meta.mnt_id != self.root_mnt {
                self.fail(
                    c,
                    Error::OtherFilesystem {
                        path: self.plan.source_path(c),
                    },
                );
            }
        } else {
            let dest_mnt = dest.map_or(0, |(m, _)| m.mnt_id);
            self.decide(c, &meta, fd, dest.map(|(_, fd)| fd), dest_mnt, None);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_planned_item_stays_compact() {
        // 1,000,000 items: 80 MB of records, plus names and 8 bytes of result each.
        assert!(
            std::mem::size_of::<Item>() <= 80,
            "{}",
            std::mem::size_of::<Item>()
        );
    }
}
