//! The [`Planner`]: one depth-first walk over the sources by directory descriptors that
//! lists each folder, stats its children (on two threads for a large folder) and decides
//! each one (`decide.rs`), filling the [`Plan`].
//!
//! A delete or a move never takes a folder another file system is mounted on, given or found
//! below a source ([`Error::OtherFilesystem`]): a move across file systems would copy the
//! mounted one's contents, delete them, then fail on the mount point (`EBUSY`). A source the
//! user wrote with a final slash must be a folder, or a link to one (`ENOTDIR`, as GNU tools
//! say); a link to a folder is still taken as the link, never followed (RELIABILITY.md, rule
//! 5), so `rm link/` removes the link, where GNU `rm -r link/` empties the folder it points to.

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustix::fd::OwnedFd;
use rustix::io::Errno;

use super::stat_ahead::{BIG_FOLDER_BYTES, StatAhead};
use super::{Action, Block, Item, Mode, NO_ITEM, Plan, Planned, Root};
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
use crate::jobs::{ConflictPolicy, Resolution, SkipReason, Totals, lock};

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

    /// Plans one more root: `source` into `dest_dir` (the job's destination if `None`) as
    /// `dest_name`, standing for item `origin` of an earlier root, carrying out `force`.
    pub(in crate::jobs) fn add_root(
        &mut self,
        source: &Path,
        dest_dir: Option<PathBuf>,
        dest_name: Option<OsString>,
        origin: u32,
        force: Option<Resolution>,
    ) -> Result<(), Error> {
        // `lnk/` copies the folder behind the link, named as the link (`cp -r lnk/ x`).
        let folder = (self.mode == Mode::Copy)
            .then(|| fs::folder_behind_final_slash(source))
            .flatten();
        let dest_name = match &folder {
            Some(_) => dest_name.or_else(|| source.file_name().map(OsStr::to_owned)),
            None => dest_name,
        };
        let source = folder.as_deref().unwrap_or(source);
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
            source_parent: None,
            source_parent_real: None,
        });
        self.source(source)?;
        let (items, blocks) = (self.plan.items.len() as u32, self.plan.blocks.len() as u32);
        let root = self.plan.roots.last_mut().expect("pushed above");
        (root.end, root.blocks.1) = (items, blocks);
        Ok(())
    }

    pub(in crate::jobs) fn finish(self) -> Planned {
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
        let counted = |(_, i): &(usize, &Item)| !matches!(i.action, Action::Skip | Action::Ask);
        let links = &self.plan.links;
        for (i, item) in self.plan.items.iter().enumerate().filter(counted) {
            t.items += 1;
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

    /// For a move that copies, then removes, item `i` (named `name` in `dir`, stat'ed as
    /// `meta`, given as `source`) whose removal once copied was `refused`: asks like an error
    /// reading the source (Retry looks at the item, and at an unchecked holder, again) until
    /// it could be removed (true) or is skipped (false). See `removable.rs`.
    fn ask_until_removable(
        &mut self,
        (i, source): (u32, &Path),
        dir: &OwnedFd,
        mut holder: removable::Holder,
        (name, mut meta): (&OsStr, Meta),
        refused: Errno,
    ) -> bool {
        let mut refusal = Some(refused);
        while let Some(e) = refusal {
            if !self.retry(i, Error::io("move", source, e)) {
                return false;
            }
            if holder.unchecked.is_some()
                && let Ok(m) = fs::stat_fd(dir)
            {
                holder = removable::Holder::parent(&m);
            }
            meta = fs::stat_at(dir, name).unwrap_or(meta);
            refusal = removable::refused(dir, &holder, name, &meta);
        }
        true
    }

    fn op(&self) -> &'static str {
        match self.mode {
            Mode::Copy => "copy",
            Mode::Move => "move",
            Mode::Delete => "delete",
        }
    }

    fn source(&mut self, source: &Path) -> Result<(), Error> {
        let name =
            (source.file_name()).filter(|_| self.mode != Mode::Delete || !fs::ends_in_dot(source));
        let Some(name) = name else {
            // `/`, `..`, `a/..`: nothing a file manager should copy, move or delete; nor
            // `a/.` to delete, as `rm` refuses it (a copy or move takes it as `a`).
            let i = self.plan.push(NO_ITEM, OsStr::new(""), Kind::Unknown)?;
            self.fail(
                i,
                Error::Refused {
                    op: self.op(),
                    path: source.to_path_buf(),
                },
            );
            return Ok(());
        };
        let i = self.plan.push(NO_ITEM, name, Kind::Unknown)?;
        if self.inside_others.contains(source) {
            self.skip(i, SkipReason::InsideSource);
            return Ok(());
        }
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
        let real = (self.mode == Mode::Move)
            .then(|| self.real_parent(&parent, parent_meta.id, &parent_path))
            .flatten();
        let root = self.plan.roots.last_mut().expect("pushed by run");
        (root.source_parent, root.source_parent_real) = (Some(parent_meta.id), real);
        let derived = root.origin != NO_ITEM;
        // Given twice: the same item, under the same name. Two names of one file are links.
        let linked = meta.kind == Kind::File && meta.nlink > 1;
        let seen = (meta.id, linked.then(|| name.to_owned()));
        if !derived && !self.ids_seen.insert(seen) {
            self.skip(i, SkipReason::Duplicate);
            return Ok(());
        }
        if let Err(e) = fs::check_final_slash(source, &meta, &*parent, name) {
            self.fail(i, Error::io(self.op(), source, e));
            return Ok(());
        }
        self.root_mnt = meta.mnt_id;
        // Moving a mount point across file systems would empty the mounted file system and
        // then fail on the folder (EBUSY); renaming it fails anyway. A delete leaves it too.
        let mount_point = meta.kind == Kind::Dir && meta.mnt_id != parent_meta.mnt_id;
        if mount_point && self.mode != Mode::Copy {
            let path = source.to_path_buf();
            self.fail(i, Error::OtherFilesystem { path });
            return Ok(());
        }
        let mut dest_fd = None;
        if self.mode != Mode::Delete {
            let dest = self.dest.expect("copy and move have a destination");
            if self.holds_dest(&meta) {
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
            let folds = self.dest.is_some_and(|d| d.caps.windows_names);
            if !derived && folds {
                let lower = dest_name.to_string_lossy().to_lowercase();
                if let Some(&first) = self.folded_seen.get(&lower) {
                    let path = self.plan.dest_path(i);
                    let existing = self.plan.dest_path(first);
                    self.fail(i, Error::NameFolded { path, existing });
                    return Ok(());
                }
                self.folded_seen.insert(lower, i);
            }
            self.names_seen.entry(dest_name).or_insert(i);
            let force = self.plan.roots.last().and_then(|r| r.force.clone());
            let renames = self.renames && one_rename(&meta, parent_meta.id.dev, &dmeta);
            let holder = removable::Holder::parent(&parent_meta);
            if self.mode == Mode::Move
                && !renames
                && let Some(e) = removable::refused(&*parent, &holder, name, &meta)
                && !self.ask_until_removable((i, source), &parent, holder, (name, meta), e)
            {
                return Ok(());
            }
            self.decide(i, &meta, &parent, Some(&*fd), renames, force.as_ref());
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
            Some(dir) => dest.open_dir(dir).map_err(|e| Error::io("open", dir, e)),
        }
    }

    /// The folder holding a source, opened once for all the sources it holds (a selection of
    /// thousands of files in one folder costs one open, not thousands).
    /// Where the folder `dir` (of identity `id`, reached by `path`) really is, when a link on
    /// `path` leads elsewhere: a move's record keeps it, so that its undo tells a folder made
    /// again there from a link swapped in for it (`undo.rs`). Once per folder.
    fn real_parent(&mut self, dir: &OwnedFd, id: FileId, path: &Path) -> Option<PathBuf> {
        if let Some((cached, real)) = &self.parent_real
            && *cached == id
        {
            return real.clone();
        }
        let real = fs::real_path(dir).filter(|r| Some(r) != fs::absolute(path).as_ref());
        self.parent_real = Some((id, real.clone()));
        real
    }

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
                Ok((m, fd)) if m.id == self.plan.item(i).id => break Arc::new(fd),
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

    /// Reads folder `dir` (open as `fd`) whole into the plan as items from `start`, handing
    /// each name to `feed` as it is read.
    fn list(
        &mut self,
        dir: u32,
        fd: &OwnedFd,
        start: u32,
        mut feed: Option<&mut StatAhead<'_>>,
    ) -> Result<(), Error> {
        let mut buf = std::mem::take(&mut self.buf);
        let mut overflow = None;
        let listed = fs::read_dir(fd, &mut buf, |name, file_type| {
            if let Err(e) = self.plan.push(dir, name, Kind::from_file_type(file_type)) {
                overflow = Some(e);
                return Err(Errno::NOMEM);
            }
            if let Some(feed) = feed.as_deref_mut() {
                feed.add(name);
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
            if let Some(feed) = feed.as_deref_mut() {
                feed.spoil();
            }
            let error = Error::io("read folder", self.plan.source_path(dir), e);
            if self.retry(dir, error) {
                // From the start again; a failed seek fails the next read, which asks again.
                let _ = rustix::fs::seek(fd, rustix::fs::SeekFrom::Start(0));
                return self.list(dir, fd, start, feed);
            }
        }
        Ok(())
    }

    /// A delete stats only what its folder's listing gave no kind for: a file needs no
    /// `statx` to be unlinked, and a folder is stat'ed once opened (`enter`), which on trees
    /// of small folders (a `node_modules`) saved one call of the six the walk made a folder.
    fn needs_stat(&self, c: u32) -> bool {
        self.mode != Mode::Delete || self.plan.item(c).kind == Kind::Unknown
    }

    /// `statx` of the children `range` of the open folder `fd` that need it (`None` for the
    /// others), by this thread and, for a large range, a second one: while a job plans, its
    /// walk is its only thread, and these calls are most of the walk's time. The two take
    /// chunks of [`STAT_SHARE`] children in turn rather than a half each, so that when the
    /// scheduler puts one aside (another program busy on the other core), the other does the
    /// rest instead of waiting for its half.
    fn stat_children(
        &self,
        fd: &OwnedFd,
        range: std::ops::Range<u32>,
    ) -> Vec<Option<rustix::io::Result<Meta>>> {
        let stat = |c: u32| {
            self.needs_stat(c)
                .then(|| fs::stat_at(fd, self.plan.name(c)))
        };
        // A delete stats only what has no kind: a folder of files needs no second thread.
        let wanted = || range.clone().filter(|&c| self.needs_stat(c)).count();
        if range.len() < PARALLEL_STAT_MIN || wanted() < PARALLEL_STAT_MIN {
            return range.map(stat).collect();
        }
        let chunks = range.len().div_ceil(STAT_SHARE);
        let next = std::sync::atomic::AtomicUsize::new(0);
        let take = || {
            let mut done = Vec::new();
            loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if k >= chunks {
                    return done;
                }
                let start = range.start + (k * STAT_SHARE) as u32;
                let end = (start + STAT_SHARE as u32).min(range.end);
                done.push((k, (start..end).map(stat).collect::<Vec<_>>()));
            }
        };
        let mut parts = std::thread::scope(|s| {
            let second = s.spawn(take);
            let mut parts = take();
            match second.join() {
                Ok(rest) => parts.extend(rest),
                Err(panic) => std::panic::resume_unwind(panic),
            }
            parts
        });
        parts.sort_unstable_by_key(|(k, _)| *k);
        parts.into_iter().flat_map(|(_, stats)| stats).collect()
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
