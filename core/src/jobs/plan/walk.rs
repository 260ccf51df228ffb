//! The [`Planner`]: one depth-first walk over the sources by directory descriptors that
//! lists each folder, stats its children (on two threads for a large folder) and decides
//! each one (`decide.rs`), filling the [`Plan`]. The sources given, each a root, are taken
//! in `walk/sources.rs`; a folder's children are read and stat'ed in `walk/children.rs`;
//! here, the planner itself and the walk below each root.
//!
//! A delete or a move never takes a folder another file system is mounted on, given or found
//! below a source ([`Error::OtherFilesystem`]): a move across file systems would copy the
//! mounted one's contents, delete them, then fail on the mount point (`EBUSY`). A source the
//! user wrote with a final slash must be a folder, or a link to one (`ENOTDIR`, as GNU tools
//! say); a link to a folder is still taken as the link, never followed (RELIABILITY.md, rule
//! 5), so `rm link/` removes the link, where GNU `rm -r link/` empties the folder it points to.

mod children;
mod sources;

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustix::fd::OwnedFd;
use rustix::io::Errno;

use super::stat_ahead::{BIG_FOLDER_BYTES, StatAhead};
use super::{Action, Block, Mode, NO_ITEM, Plan, Planned};
use super::{removable, writable};
use crate::entry::Kind;
use crate::error::Error;
use crate::fs::{self, DirStack, FileId, Meta};
use crate::jobs::conflict::Conflict;
use crate::jobs::control::JobCtx;
use crate::jobs::decide::one_rename;
use crate::jobs::dest::Dest;
use crate::jobs::progress::PlanningTicker;
use crate::jobs::remove::ReadOnly;
use crate::jobs::unlink_ahead::UnlinkAhead;
use crate::jobs::{ConflictPolicy, SkipReason, Totals, lock};

/// Children of a folder examined between two checks for cancel and progress ticks.
pub(super) const STAT_CHUNK: u32 = 4096;

/// Children from which a folder is stat'ed by two threads: below, a thread costs more than
/// it saves (about 30 us against 1 to 2 us a `statx`).
const PARALLEL_STAT_MIN: usize = 256;

/// Children two threads stat'ing one folder take at a time.
pub(super) const STAT_SHARE: usize = 64;

struct Frame {
    dir: u32,
    next: u32,
    end: u32,
    /// The destination folder is open on the destination stack (merge).
    merged: bool,
    /// A delete's folder all of whose children were handed over to be removed while the
    /// plan is made (`unlink_ahead.rs`): so it can be, once the walk leaves it.
    handed_over: bool,
}

/// Builds a plan; see the module documentation.
pub(crate) struct Planner<'a> {
    pub(in crate::jobs) ctx: &'a JobCtx,
    pub(in crate::jobs) mode: Mode,
    pub(in crate::jobs) policy: ConflictPolicy,
    pub(in crate::jobs) dest: Option<&'a Dest>,
    pub(in crate::jobs) plan: Plan,
    pub(in crate::jobs) needed_bytes: u64,
    /// Files counted in `needed_bytes`: each takes whole blocks of the destination.
    pub(in crate::jobs) needed_files: u64,
    /// Items the destination gets an inode for (see [`Planned::needed_inodes`]).
    pub(in crate::jobs) needed_inodes: u64,
    /// Hard links to files copied earlier (see [`Planned::needed_links`]).
    pub(in crate::jobs) needed_links: u64,
    /// Whether the destination folder of the items of one parent (by its root and parent
    /// item: a root given by an answer goes where its item was) is immutable or append-only:
    /// asked once per folder, at the first Replace in it.
    pub(in crate::jobs) dest_pinned: Option<((usize, u32), bool)>,
    buf: Vec<u8>,
    /// First source of each name (copy and move).
    pub(in crate::jobs) names_seen: HashMap<OsString, u32>,
    /// The same, by lowercase name, where the destination takes names FAT's way (it does
    /// not tell `Notes.txt` from `notes.txt`).
    folded_seen: HashMap<String, u32>,
    /// The names of the last destination folder met with a name taken, on such a
    /// destination: read once per folder, not once per item (`decide.rs`).
    pub(in crate::jobs) dest_listing: Option<(FileId, HashSet<OsString>)>,
    /// Sources seen, with their name when they are one of several names of a file.
    ids_seen: HashSet<(FileId, Option<OsString>)>,
    /// Sources of a move inside another source folder: they go with it (`nested.rs`).
    inside_others: HashSet<PathBuf>,
    /// Mount of the current root: a delete or a move never leaves it.
    root_mnt: u64,
    /// The last source's folder, open.
    parent: Option<(PathBuf, Arc<OwnedFd>, Meta)>,
    /// The last source folder's real path, if a link leads to it (moves).
    parent_real: Option<(FileId, Option<PathBuf>)>,
    ticker: PlanningTicker,
    /// Where a delete's files go once their folder is read (`unlink_ahead.rs`).
    ahead: Option<UnlinkAhead<'a>>,
    pub(in crate::jobs) conflicts: Vec<Conflict>,
    /// Whether a move may rename what one rename reaches: not when planning again items whose
    /// rename failed with `EXDEV` (see [`replan_crossed`](Self::replan_crossed)).
    renames: bool,
    /// What a delete does with a folder of ours it cannot empty as it is (`writable.rs`).
    read_only: ReadOnly,
    /// Ferry's state folder, which a delete leaves alone, as the trash does (`caution.rs`).
    pub(in crate::jobs) state: Option<crate::jobs::caution::Guarded>,
    /// The last source folder looked at for being in the state folder, and the answer.
    state_parent: Option<(FileId, bool)>,
    /// The identity of Ferry's state folder, which a copy or move neither writes into nor
    /// replaces: a file copied over the journal took every job's undo with it.
    pub(in crate::jobs) state_id: Option<FileId>,
}

impl<'a> Planner<'a> {
    pub(crate) fn new(
        ctx: &'a JobCtx,
        mode: Mode,
        policy: ConflictPolicy,
        dest: Option<&'a Dest>,
    ) -> Self {
        let mut plan = Plan {
            dest: dest.map(|d| d.path.clone()),
            ..Plan::default()
        };
        for (id, path) in lock(&ctx.linked_copies).iter() {
            plan.links.present(*id, path.clone());
        }
        Planner {
            ctx,
            mode,
            policy,
            dest,
            plan,
            needed_bytes: 0,
            needed_files: 0,
            needed_inodes: 0,
            needed_links: 0,
            dest_pinned: None,
            buf: Vec::new(),
            names_seen: HashMap::new(),
            folded_seen: HashMap::new(),
            dest_listing: None,
            ids_seen: HashSet::new(),
            inside_others: HashSet::new(),
            root_mnt: 0,
            parent: None,
            parent_real: None,
            ticker: PlanningTicker::new(),
            conflicts: Vec::new(),
            ahead: None,
            renames: true,
            read_only: ReadOnly::Fail,
            state: (mode == Mode::Delete)
                .then(crate::jobs::caution::state_folder)
                .flatten(),
            state_parent: None,
            state_id: (mode != Mode::Delete)
                .then(crate::jobs::caution::state_folder)
                .flatten()
                .map(|state| state.id()),
        }
    }

    /// A delete's planner that hands the files of each folder it has read to `ahead`, to be
    /// unlinked while it plans on (see `unlink_ahead.rs`).
    pub(crate) fn unlinking_ahead(self, ahead: UnlinkAhead<'a>) -> Self {
        debug_assert_eq!(self.mode, Mode::Delete);
        Planner {
            ahead: Some(ahead),
            ..self
        }
    }

    /// A delete's planner that treats read-only folders of ours as `read_only` says: made
    /// writable as it enters them when emptying the trash (see `writable.rs`).
    pub(crate) fn treating_read_only(self, read_only: ReadOnly) -> Self {
        debug_assert_eq!(self.mode, Mode::Delete);
        Planner { read_only, ..self }
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
        if self.mode == Mode::Move && sources.len() > 1 {
            self.inside_others = super::nested::inside_others(sources);
        }
        for source in sources {
            self.add_root(source, None, None, NO_ITEM, None)?;
        }
        Ok(self.finish())
    }

    /// Plans the one source of a job that gives it a new name (`ferry cp FILE NEWNAME`):
    /// walked like any source, its item named `name` at the destination.
    pub(crate) fn run_renamed(mut self, source: &Path, name: &OsStr) -> Result<Planned, Error> {
        self.add_root(source, None, Some(name.to_owned()), NO_ITEM, None)?;
        Ok(self.finish())
    }

    /// Plans again, as new roots, the items of a move whose rename failed with `EXDEV` although
    /// the kernel's device and mount numbers said one rename would do (an overlayfs folder of
    /// a lower layer): each is copied, then its source removed, as `mv` falls back to. Returns
    /// the extended plan, and the error that stopped planning early, if any.
    pub(crate) fn replan_crossed(mut self, crossed: Vec<u32>) -> (Planned, Option<Error>) {
        self.renames = false;
        for i in crossed {
            let force = (self.plan.roots.iter())
                .find(|r| r.item == i)
                .and_then(|r| r.force.clone());
            if let Err(e) = self.reroot(i, self.own_dest_name(i), force) {
                return (self.finish(), Some(e));
            }
        }
        (self.finish(), None)
    }

    pub(in crate::jobs) fn finish(self) -> Planned {
        let totals = self.totals();
        Planned {
            plan: self.plan,
            totals,
            needed_bytes: self.needed_bytes,
            needed_files: self.needed_files,
            needed_inodes: self.needed_inodes,
            needed_links: self.needed_links,
            conflicts: self.conflicts,
        }
    }

    fn totals(&self) -> Totals {
        let mut t = Totals::default();
        let links = &self.plan.links;
        // An item answered is handed to a root of its own, and stays `Ask` (see `reroot`).
        let answered: std::collections::HashSet<u32> = (self.plan.roots.iter())
            .map(|r| r.origin)
            .filter(|&origin| origin != NO_ITEM)
            .collect();
        for (i, item) in self.plan.items.iter().enumerate() {
            match item.action {
                Action::Skip => continue,
                Action::Ask if answered.contains(&(i as u32)) => continue,
                Action::Ask => {
                    t.asked += 1;
                    if item.kind == Kind::File && self.mode != Mode::Delete {
                        t.asked_bytes += item.size;
                    }
                    continue;
                }
                _ => t.items += 1,
            }
            t.folders += u64::from(item.kind == Kind::Dir);
            // A hard link copies no data.
            let linked = !links.is_empty() && links.of(i as u32).is_some();
            if item.kind == Kind::File && self.mode != Mode::Delete && !linked {
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

    /// `meta` is a folder that is the destination or holds it, by device and inode, whatever
    /// the path it was reached by.
    fn holds_dest(&self, meta: &Meta) -> bool {
        meta.kind == Kind::Dir && self.dest.is_some_and(|d| d.ancestors.contains(&meta.id))
    }

    pub(in crate::jobs) fn fail(&mut self, i: u32, error: Error) {
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

    pub(in crate::jobs) fn skip(&mut self, i: u32, reason: SkipReason) {
        self.plan.set_action(i, Action::Skip);
        self.ctx.skip(i, self.plan.source_path(i), reason);
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
                let depth = frames.len();
                self.enter(child, &mut src, &mut dst, &mut frames)?;
                if frames.len() == depth {
                    // Not entered (failed, or skipped): it stays, and so does its parent.
                    frames[depth - 1].handed_over = false;
                }
                continue;
            }
            let frame = frames.pop().expect("checked above");
            let popped = src
                .pop()
                .1
                .and_then(|()| if frame.merged { dst.pop().1 } else { Ok(()) });
            if popped.is_ok()
                && let Some(ahead) = &self.ahead
            {
                let up = frames.last().map_or(NO_ITEM, |f| f.dir);
                let name = self.plan.name(frame.dir);
                if !(frame.handed_over && ahead.remove_folder(src.top(), frame.dir, name, up))
                    && let Some(parent) = frames.last_mut()
                {
                    parent.handed_over = false;
                }
            }
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
        // A delete's folder not stat'ed before it is opened (see `needs_stat`): what is opened,
        // with `O_NOFOLLOW`, is it.
        let unstated = self.mode == Mode::Delete && self.plan.item(i).id == FileId::default();
        let mut retried = false;
        let fd = loop {
            match writable::open(src.top(), &name, self.read_only) {
                Ok((m, _)) if unstated && m.mnt_id != self.root_mnt => {
                    let path = self.plan.source_path(i);
                    self.fail(i, Error::OtherFilesystem { path });
                    return Ok(());
                }
                Ok((m, fd)) if unstated => {
                    self.plan.set_meta(i, &m);
                    break Arc::new(fd);
                }
                Err(Errno::NOENT) if unstated => {
                    self.plan.set_action(i, Action::Skip); // already gone
                    return Ok(());
                }
                Ok((m, fd)) if m.id == self.plan.item(i).id => {
                    // Answered Retry: the user may have fixed its mode meanwhile, which its
                    // copy is to keep, not the one that made it fail.
                    if retried {
                        self.plan.set_meta(i, &m);
                    }
                    break Arc::new(fd);
                }
                Ok(_) => {
                    let path = self.plan.source_path(i);
                    self.fail(i, Error::Changed { path });
                    return Ok(());
                }
                Err(e) if self.retry(i, Error::io("open", self.plan.source_path(i), e)) => {
                    retried = true;
                }
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
        let mut ahead = if self.mode != Mode::Delete && self.plan.item(i).size >= BIG_FOLDER_BYTES {
            std::thread::scope(|s| {
                let mut feed = StatAhead::start(s, &fd);
                self.list(i, &fd, start, Some(&mut feed))?;
                Ok::<_, Error>(feed.finish())
            })?
        } else {
            self.list(i, &fd, start, None)?;
            None
        };
        let end = self.plan.items.len() as u32;
        let mut chunk = start;
        while chunk < end {
            // A folder of a million files takes seconds to examine: stay responsive inside it.
            if self.ctx.control.is_cancelled() {
                return Err(Error::Cancelled);
            }
            let chunk_end = end.min(chunk + STAT_CHUNK);
            let stats = match ahead.take() {
                Some(stats) if stats.len() == (chunk_end - chunk) as usize => {
                    stats.into_iter().map(Some).collect()
                }
                _ => self.stat_children(&fd, chunk..chunk_end),
            };
            for (c, stat) in (chunk..chunk_end).zip(stats) {
                self.examine(c, &fd, dest_fd.as_ref(), stat)?;
            }
            self.ticker.tick(self.ctx, u64::from(chunk_end));
            chunk = chunk_end;
        }
        self.plan.blocks.push(Block { dir: i, start, end });
        self.ticker.tick(self.ctx, u64::from(end));
        let mut handed_over = false;
        if let Some(ahead) = &self.ahead {
            let plan = &self.plan;
            let is_file = |c: u32| {
                let child = plan.item(c);
                child.kind != Kind::Dir && child.action == Action::Create
            };
            let files = (start..end).filter(|&c| is_file(c));
            handed_over = ahead.unlink(i, &fd, files.map(|c| (c, plan.name(c))))
                && (start..end).all(|c| is_file(c) || plan.item(c).walkable());
        }
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
            handed_over,
        });
        Ok(())
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
        // A move across file systems removes what it copied: not another file system's
        // contents, which a copy of them does not make moved.
        if meta.kind == Kind::Dir && meta.mnt_id != self.root_mnt && self.mode != Mode::Copy {
            let path = self.plan.source_path(c);
            self.fail(c, Error::OtherFilesystem { path });
        } else if self.mode != Mode::Delete && self.holds_dest(&meta) {
            // The destination reached inside a source by another path (a bind mount): not
            // walked into, which would copy the tree into itself without end.
            let dest = self.dest.map(|d| d.path.clone()).unwrap_or_default();
            let path = self.plan.source_path(c);
            self.fail(c, Error::IntoItself { path, dest });
        } else if self.mode != Mode::Delete {
            let src_dev = self.plan.item(self.plan.item(c).parent).id.dev;
            let renames = self.renames && dest.is_some_and(|(m, _)| one_rename(&meta, src_dev, m));
            if self.mode == Mode::Move && !renames {
                let holder = removable::Holder::folder(self.plan.item(self.plan.item(c).parent));
                // The path and name are made only for a refusal: most children pass.
                if let Some(e) = removable::refused(fd, &holder, self.plan.name(c), &meta) {
                    let (source, name) = (self.plan.source_path(c), self.plan.name(c).to_owned());
                    if !self.ask_until_removable((c, &source), fd, holder, (&name, meta), e) {
                        return Ok(());
                    }
                }
            }
            self.decide(c, &meta, fd, dest.map(|(_, fd)| fd), renames, None);
        }
        Ok(())
    }
}
