//! Copying a plan: the job thread replays the plan's folders in order, creating destination
//! folders itself and handing files to worker threads in batches, each batch carrying the
//! open source and destination folder it belongs to (a plan of a few items starts no
//! workers: the job thread copies them itself, see [`Copier::run`]).
//!
//! A file is written as an unnamed file in its destination folder (`O_TMPFILE`, mode 0600),
//! gets its mode, extended attributes and times, and is then linked in under its name, which
//! fails rather than replace anything. A crash, cancel or error leaves nothing behind, and the
//! unnamed file takes no lock on the folder to create: with two workers this measured about
//! 20% faster than a named temporary plus rename (5,000 x 4 KB on tmpfs). Where the file
//! system has no `O_TMPFILE`, and for Replace (which must rename over the old file), the file
//! is written to `.ferry-tmp-<pid>-<job>-<item>` and renamed into place, with
//! `RENAME_NOREPLACE` unless replacing. A large file of a journaled job is written under a
//! name that survives a crash, so that resume can continue it (`partial.rs`). Finishing and
//! committing a written item is in `commit.rs`; one item's work on a worker (a file's data,
//! a link, a folder finished) in `copy/item.rs`. A file's other names in the job are hard
//! links to its copy, made by the job thread (`links.rs`). A new source folder of small files
//! in a journaled job is filled under a hidden name instead, its files created directly under
//! their names, and renamed into place once its whole tree is done (`fresh.rs`).
//!
//! Replace never overwrites: the old item is first renamed into the job's staging folder
//! (kept for undo, see `staging.rs`), then the new one is put in place as above, without
//! replacing. A name that appeared since planning is a new conflict (asked again with
//! [`ConflictPolicy::Ask`]; a folder merged into a folder, as planning would; else skipped),
//! never clobbered.
//!
//! A folder is created 0700 and gets its final mode and times from whichever thread finishes
//! its last child, so that its contents can be written first and its time stamp is not
//! disturbed after.

mod item;

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock};

use rustix::fd::OwnedFd;
use rustix::fs::{Access, AtFlags, Mode};
use rustix::io::Errno;

use super::claim;
use super::control::JobCtx;
use super::dest::Dest;
use super::fresh::Hidden;
use super::links::Firsts;
use super::lock;
use super::passes;
use super::plan::{Action, Mode as PlanMode, NO_ITEM, Plan};
use super::staging::Staging;
use super::start::{not_done, not_started, plan_transfer, preflight};
use super::summary::{self, Operation};
use super::{ConflictPolicy, SkipReason, Summary};
use crate::entry::Kind;
use crate::error::Error;
use crate::fs::{self, DataCopier, DirStack, FileId};

/// Files per batch: enough to make the channel cost nothing, few enough to share work.
const BATCH_ITEMS: usize = 32;
/// Bytes per batch, so two large files land on two workers.
const BATCH_BYTES: u64 = 16 << 20;
/// Plans of at most this many items are copied without workers (see [`Copier::run`]).
const ALONE_ITEMS: usize = 4;

/// Runs a copy job from start to end.
pub(crate) fn run_job(
    ctx: &JobCtx,
    sources: &[PathBuf],
    dest: (&Path, Option<&OsStr>),
    policy: ConflictPolicy,
) -> Summary {
    let (dest, planned) = match plan_transfer(ctx, PlanMode::Copy, sources, dest, policy) {
        Ok(p) => p,
        Err(e) => return not_started(ctx, sources, e),
    };
    let done = not_done(&planned);
    // Into memory, the record need not be on disk first: a power loss takes the copies with
    // it and leaves the sources as they were, so the record would tell of nothing to undo.
    let record_first = !dest.mount.as_ref().is_some_and(fs::Mount::is_in_memory);
    let (plan, done) = if preflight(ctx, &planned, &dest, record_first) {
        let (plan, done, _) = passes::run(ctx, PlanMode::Copy, policy, &dest, planned, done);
        if fs::is_removable(dest.meta.id.dev) {
            dest.flush(ctx);
        }
        (plan, done)
    } else {
        (planned.plan, done)
    };
    summary::build(ctx, Operation::Copy, plan, done, dest.meta.id.dev)
}

/// A folder being filled: the last of its pending children sets its mode and times.
pub(super) struct DirDone {
    item: u32,
    /// Its children: items `children`.
    pub(super) children: Range<u32>,
    /// Outstanding children in batches, plus one while the job thread is still inside it.
    pending: AtomicUsize,
    /// The hidden tree it is in, which waits for it (`fresh.rs`).
    pub(super) hidden: Option<Arc<Hidden>>,
    /// The group it was created with.
    gid: u32,
    /// Created set-group-id, in a set-group-id folder: the bit stays, as with `mkdir` and
    /// `cp -a`, so that what is later made in it gets the group too.
    inherits_group: bool,
    /// Held while the job thread reads the inodes of its copies ahead (`fresh.rs`).
    pub(super) reading_ahead: Mutex<()>,
}

/// What the items of one batch share: their source and destination folders, open.
pub(super) struct Batch {
    pub(super) src: Arc<OwnedFd>,
    pub(super) dst: Arc<OwnedFd>,
    dir: Option<Arc<DirDone>>,
    /// In a hidden folder: files are created under their own names (`fresh.rs`).
    named: bool,
    /// In a hidden folder where what is created gets its mode from the umask alone.
    modes_known: bool,
    /// The group what is created in `dst` gets (see [`created_group`]).
    pub(super) group: u32,
    /// `dst` has a default ACL, which a file created in it inherits: a copy of a source
    /// without that ACL loses it again (`fs::copy_xattrs`). Asked once per batch.
    pub(super) inherits_acl: bool,
}

/// The group the kernel gives what is created in a folder of mode `mode` and group `gid`:
/// the folder's if it is set-group-id, else the process's (`egid`).
fn created_group(folder: &fs::Meta, egid: u32) -> u32 {
    if folder.mode & 0o2000 != 0 {
        folder.gid
    } else {
        egid
    }
}

/// The job thread's side of the workers (see `claim.rs`).
type Queue<'q> = claim::Queue<'q, Batch>;

struct Frame {
    item: u32,
    done: Option<Arc<DirDone>>,
    /// The hidden tree it is in (`fresh.rs`).
    hidden: Option<Arc<Hidden>>,
    /// The group what is created in it gets.
    group: u32,
}

/// The job thread's position in the plan.
struct Cursor {
    src: DirStack,
    dst: DirStack,
    frames: Vec<Frame>,
    batch: Vec<u32>,
    batch_bytes: u64,
    /// Folders whose subtree is abandoned (could not be created or opened).
    dead: HashSet<u32>,
    /// The source folder created under a hidden name, and that name (`fresh.rs`).
    hidden: Option<(u32, OsString)>,
    /// Folders made and not entered yet, with the source and destination folders they are
    /// in: a job stopped before it got to them finishes them empty (see
    /// [`Copier::finish_unentered`]).
    unentered: HashMap<u32, (Arc<OwnedFd>, Arc<OwnedFd>)>,
    /// The group what is created in the root's destination folder gets.
    root_group: u32,
}

pub(super) enum Outcome {
    Done(u64),
    Skipped(SkipReason),
    /// The name was taken since planning: asked again.
    Asked,
    Stopped,
}

/// Executes the copy (and same-mount rename) part of a copy or move plan.
pub(crate) struct Copier<'a> {
    pub(super) ctx: &'a JobCtx,
    pub(super) plan: &'a Plan,
    pub(super) dest: &'a Dest,
    pub(super) done: &'a [AtomicU64],
    try_reflink: AtomicBool,
    try_copy_range: AtomicBool,
    /// Whether the destination supports `O_TMPFILE`.
    try_unnamed: AtomicBool,
    pub(super) temp_prefix: String,
    pub(super) euid: u32,
    pub(super) egid: u32,
    /// The process's other groups: a copy may be given one of them (or `egid`) only.
    pub(super) groups: Vec<u32>,
    /// The destination stores permission bits (not FAT; probed, see `probe.rs`).
    pub(super) keeps_modes: bool,
    /// The job's policy: a conflict found while writing is asked about (Ask), gets a new
    /// name as planning gives one (KeepBoth: a name taken since planning is no reason to
    /// leave the item out), or is skipped.
    pub(super) policy: ConflictPolicy,
    /// Where replaced items go, opened at the first Replace.
    pub(super) staging: OnceLock<Result<Staging, Arc<Error>>>,
    /// Items replaced, and where the old ones went.
    pub(crate) staged: Mutex<Vec<(u32, PathBuf)>>,
    /// Files written with another size or time than planning saw: item, size, mtime.
    pub(crate) written: Mutex<Vec<(u32, u64, fs::Timestamp)>>,
    /// Folders being filled under a hidden name, and where (`fresh.rs`).
    pub(super) hidden: Mutex<Vec<(u32, PathBuf)>>,
    /// The copies hard links are made to (`links.rs`).
    pub(super) firsts: Firsts,
    /// Items a rename could not move (`EXDEV`), to be copied and removed instead.
    pub(crate) crossed: Mutex<Vec<u32>>,
    /// The destination stamps a renamed file with the time of the rename (`commit.rs`).
    pub(super) dest_resets_times_on_rename: bool,
    /// The last large hidden folder the job thread left with copies still to make, whose
    /// inodes it reads ahead once it has handed out everything (`fresh.rs`).
    pub(super) unread: Mutex<Option<(Arc<DirDone>, Arc<OwnedFd>)>>,
}

impl<'a> Copier<'a> {
    pub(crate) fn new(
        ctx: &'a JobCtx,
        plan: &'a Plan,
        dest: &'a Dest,
        done: &'a [AtomicU64],
        policy: ConflictPolicy,
    ) -> Self {
        Copier {
            ctx,
            plan,
            dest,
            done,
            try_reflink: AtomicBool::new(dest.mount.as_ref().is_none_or(fs::Mount::can_reflink)),
            try_copy_range: AtomicBool::new(true),
            try_unnamed: AtomicBool::new(true),
            temp_prefix: format!(
                "{}{}-",
                super::journal::temp_prefix(std::process::id()),
                ctx.id.0
            ),
            euid: rustix::process::geteuid().as_raw(),
            egid: rustix::process::getegid().as_raw(),
            groups: (rustix::process::getgroups().unwrap_or_default().into_iter())
                .map(|g| g.as_raw())
                .collect(),
            keeps_modes: dest.caps.keeps_modes,
            policy,
            staging: OnceLock::new(),
            staged: Mutex::new(Vec::new()),
            written: Mutex::new(Vec::new()),
            hidden: Mutex::new(Vec::new()),
            firsts: Firsts::default(),
            crossed: Mutex::new(Vec::new()),
            dest_resets_times_on_rename: dest.mount.as_ref().is_some_and(fs::Mount::is_fuse),
            unread: Mutex::new(None),
        }
    }

    /// Copies the plan's `roots`; returns when every worker has finished (or drained after a
    /// stop).
    pub(crate) fn run(&self, roots: Range<usize>) {
        // A few items cost less than starting a thread (tens of microseconds each, and more
        // on a busy machine): the job thread copies them alone, every batch handed to no one.
        let workers = if self.plan.items.len() <= ALONE_ITEMS {
            0
        } else {
            claim::workers()
        };
        let (tx, rx) = crossbeam_channel::bounded::<Arc<claim::Batch<Batch>>>(workers * 4);
        std::thread::scope(|s| {
            for _ in 0..workers {
                let rx = rx.clone();
                crate::cpus::spawn_scoped(s, move || {
                    let mut copier = DataCopier::new(&self.try_reflink, &self.try_copy_range);
                    for batch in &rx {
                        batch.drain(&mut |b, _, i| self.work(&mut copier, &b.with, i));
                    }
                });
            }
            drop(rx);
            let mut queue = Queue::new(&tx);
            let mut copier = DataCopier::new(&self.try_reflink, &self.try_copy_range);
            self.dispatch(&mut queue, &mut copier, roots);
            self.read_inodes_ahead();
            // What no worker has started yet, this thread does rather than wait.
            queue.help(&mut |b, _, i| self.work(&mut copier, &b.with, i));
            drop(tx);
        });
    }

    fn dispatch(&self, queue: &mut Queue<'_>, copier: &mut DataCopier<'_>, roots: Range<usize>) {
        let mut parent_cache: Option<(&Path, Arc<OwnedFd>, FileId)> = None;
        for root in &self.plan.roots[roots] {
            if !self.ctx.control.checkpoint() {
                return;
            }
            if self.plan.item(root.item).action == Action::Skip {
                continue;
            }
            let parent = root.parent();
            let (pfd, pid) = match &parent_cache {
                Some((p, fd, id)) if *p == parent => (Arc::clone(fd), *id),
                _ => {
                    match fs::open_dir_path(parent).and_then(|fd| Ok((fs::stat_fd(&fd)?.id, fd))) {
                        Ok((id, fd)) => {
                            let fd = Arc::new(fd);
                            parent_cache = Some((parent, Arc::clone(&fd), id));
                            (fd, id)
                        }
                        Err(e) => {
                            self.ctx.fail(
                                root.item,
                                root.source.clone(),
                                Error::io("open", parent, e),
                            );
                            continue;
                        }
                    }
                }
            };
            let mut cur = Cursor {
                src: DirStack::new(fs::max_open_dirs()),
                dst: DirStack::new(fs::max_open_dirs()),
                frames: Vec::new(),
                batch: Vec::new(),
                batch_bytes: 0,
                dead: HashSet::new(),
                hidden: None,
                unentered: HashMap::new(),
                root_group: created_group(&self.dest.meta, self.egid),
            };
            cur.src.push(pfd, pid);
            match &root.dest_dir {
                None => cur.dst.push(Arc::clone(&self.dest.fd), self.dest.meta.id),
                Some(dir) => match self.dest.open_dir(dir) {
                    Ok((fd, meta)) => {
                        cur.root_group = created_group(&meta, self.egid);
                        cur.dst.push(fd, meta.id);
                    }
                    Err(e) => {
                        let error = Error::io("open", dir, e);
                        self.ctx.fail(root.item, root.source.clone(), error);
                        continue;
                    }
                },
            }
            self.child(&mut cur, queue, copier, root.item);
            for b in root.blocks.0..root.blocks.1 {
                if !self.ctx.control.checkpoint() || !self.enter(&mut cur, queue, copier, b) {
                    break;
                }
            }
            self.flush(&mut cur, queue, copier);
            while !cur.frames.is_empty() && self.pop(&mut cur) {}
            self.finish_unentered(&cur.unentered);
            // Made hidden but never entered: the job stopped first.
            if let Some((c, name)) = cur.hidden.take() {
                self.abandon_hidden(cur.dst.top(), c, &name);
            }
        }
    }

    /// Moves to the folder of block `b` and dispatches its children; false when the rest of
    /// this source cannot be reached any more.
    fn enter(
        &self,
        cur: &mut Cursor,
        queue: &mut Queue<'_>,
        copier: &mut DataCopier<'_>,
        b: u32,
    ) -> bool {
        let block = self.plan.blocks[b as usize];
        let p = block.dir;
        let parent = self.plan.item(p).parent;
        if cur.dead.contains(&p) || cur.dead.contains(&parent) {
            cur.dead.insert(p);
            return true;
        }
        self.flush(cur, queue, copier);
        let parent = (parent != NO_ITEM).then_some(parent);
        while cur.frames.last().map(|f| f.item) != parent {
            if cur.frames.is_empty() || !self.pop(cur) {
                return false;
            }
        }
        let name = self.plan.name(p);
        let hidden_name = cur.hidden.as_ref().filter(|(h, _)| *h == p).map(|(_, n)| n);
        let dest_name = hidden_name.map_or(self.plan.dest_name(p), OsString::as_os_str);
        let opened = fs::open_dir_at(cur.src.top(), name)
            .map_err(|e| Error::io("open", self.plan.source_path(p), e));
        let src = opened.and_then(|fd| match fs::stat_fd(&fd) {
            Ok(m) if m.id == self.plan.item(p).id => Ok(fd),
            Ok(_) => Err(Error::Changed {
                path: self.plan.source_path(p),
            }),
            Err(e) => Err(Error::io("stat", self.plan.source_path(p), e)),
        });
        let dst = src.and_then(|s| {
            let d =
                fs::open_dir_at(cur.dst.top(), dest_name).and_then(|d| Ok((fs::stat_fd(&d)?, d)));
            d.map(|d| (s, d))
                .map_err(|e| Error::io("open", self.plan.dest_path(p), e))
        });
        let (src, (dst_meta, dst)) = match dst {
            Ok(pair) => pair,
            Err(e) => {
                self.ctx.fail(p, self.plan.source_path(p), e);
                cur.dead.insert(p);
                if let Some((c, name)) = cur.hidden.take_if(|(h, _)| *h == p) {
                    self.abandon_hidden(cur.dst.top(), c, &name);
                }
                return true;
            }
        };
        self.done[p as usize].store(dst_meta.id.ino, Relaxed);
        self.ctx.counters.add_item();
        cur.unentered.remove(&p);
        let hidden = match cur.hidden.take_if(|(h, _)| *h == p) {
            Some((_, name)) => {
                let parent = Arc::clone(cur.dst.top());
                Some(Arc::new(Hidden::new(p, parent, name, dst_meta.id)))
            }
            None => cur.frames.last().and_then(|f| f.hidden.clone()),
        };
        cur.src.push(src, self.plan.item(p).id);
        cur.dst.push(dst, dst_meta.id);
        let created = matches!(self.plan.item(p).action, Action::Create | Action::Replace);
        let done = created.then(|| {
            Arc::new(DirDone {
                item: p,
                children: block.start..block.end,
                pending: AtomicUsize::new(1),
                hidden: hidden.as_ref().map(|h| h.waits_for_one()),
                gid: dst_meta.gid,
                inherits_group: dst_meta.mode & 0o2000 != 0,
                reading_ahead: Mutex::new(()),
            })
        });
        cur.frames.push(Frame {
            item: p,
            done,
            hidden,
            group: created_group(&dst_meta, self.egid),
        });
        for c in block.start..block.end {
            self.child(cur, queue, copier, c);
        }
        true
    }

    /// Gives the folders made and never entered (the job stopped first) their source's
    /// mode, times and attributes, as a folder filled gets them: they stayed 0700, stamped
    /// with the time of the cancel. Left empty, recorded as made, their undo removes them.
    fn finish_unentered(&self, unentered: &HashMap<u32, (Arc<OwnedFd>, Arc<OwnedFd>)>) {
        for (&c, (src_parent, dst_parent)) in unentered {
            let src = fs::open_dir_at(&**src_parent, self.plan.name(c));
            let dst = fs::open_dir_at(&**dst_parent, self.plan.dest_name(c)).and_then(|fd| {
                let meta = fs::stat_fd(&fd)?;
                Ok((fd, meta))
            });
            let (Ok(src), Ok((dst, meta))) = (src, dst) else {
                continue;
            };
            // Not the folder made (replaced since), or the source another one now.
            let made = self.done[c as usize].load(Relaxed);
            if meta.id.ino != made
                || fs::stat_fd(&src).map(|m| m.id).ok() != Some(self.plan.item(c).id)
            {
                continue;
            }
            let done = DirDone {
                item: c,
                children: 0..0,
                pending: AtomicUsize::new(0),
                hidden: None,
                gid: meta.gid,
                inherits_group: meta.mode & 0o2000 != 0,
                reading_ahead: Mutex::new(()),
            };
            self.finish_dir(&done, &src, &dst);
        }
    }

    /// Leaves the deepest folder; false if its parent cannot be reached any more.
    fn pop(&self, cur: &mut Cursor) -> bool {
        let frame = cur.frames.pop().expect("pop with a frame");
        let (src_fd, src) = cur.src.pop();
        let (dst_fd, dst) = cur.dst.pop();
        if let Some(d) = frame.done {
            if d.pending.fetch_sub(1, Relaxed) == 1 {
                self.finish_dir(&d, &src_fd, &dst_fd);
            } else {
                self.left_unfinished(d, dst_fd);
            }
        }
        if let Err(e) = src.and(dst) {
            let path = self.plan.source_path(frame.item);
            self.ctx.fail(
                frame.item,
                path.clone(),
                Error::io("go back up from", path, e),
            );
            cur.frames.clear();
            return false;
        }
        true
    }

    fn child(&self, cur: &mut Cursor, queue: &mut Queue<'_>, copier: &mut DataCopier<'_>, c: u32) {
        let item = self.plan.item(c);
        match (item.action, item.kind) {
            (Action::Skip | Action::Merge | Action::Ask, _) => {}
            (Action::Rename | Action::RenameOver, _) => self.rename(cur, c),
            (action, Kind::Dir) => {
                let dir = &**cur.dst.top();
                let name = self.plan.dest_name(c);
                let staged = match action {
                    Action::Replace => self.stash(dir, c),
                    _ => Ok(None),
                };
                let staged = match staged {
                    Ok(staged) => staged,
                    Err(e) => {
                        self.ctx.fail(c, self.plan.source_path(c), e);
                        cur.dead.insert(c);
                        return;
                    }
                };
                if action == Action::Create && cur.frames.is_empty() && self.fills_hidden(c) {
                    match self.make_hidden(dir, c) {
                        Ok(hidden) => cur.hidden = Some((c, hidden)),
                        Err(e) => {
                            self.ctx.fail(c, self.plan.source_path(c), e);
                            cur.dead.insert(c);
                        }
                    }
                    return;
                }
                let made = rustix::fs::mkdirat(dir, name, Mode::from_raw_mode(0o700));
                if let Err(e) = self.settle(staged, made, dir, c) {
                    self.ctx.fail(c, self.plan.source_path(c), e);
                    cur.dead.insert(c);
                    return;
                }
                match made {
                    // Recorded as made now, not once entered: a job cancelled or stopped
                    // before it filled the folder leaves it empty, and its undo takes it
                    // away (unrecorded, it was a change since that kept the whole copy).
                    Ok(()) => {
                        if let Ok(made) = fs::stat_at(dir, name) {
                            self.done[c as usize].store(made.id.ino, Relaxed);
                        }
                        let parents = (Arc::clone(cur.src.top()), Arc::clone(cur.dst.top()));
                        cur.unentered.insert(c, parents);
                    }
                    Err(Errno::EXIST) => {
                        if !self.ask_again(dir, c) {
                            self.ctx
                                .skip(c, self.plan.source_path(c), SkipReason::Exists);
                        }
                        cur.dead.insert(c);
                    }
                    Err(e) => {
                        let error = Error::io("create folder", self.plan.dest_path(c), e);
                        let error = self.or_folder_removed(dir, c, error);
                        if self.ctx.fail_or_retry(c, self.plan.source_path(c), error) {
                            return self.child(cur, queue, copier, c);
                        }
                        cur.dead.insert(c);
                    }
                }
            }
            _ => {
                if let Some(first) = self.waits_for(c) {
                    if cur.batch.contains(&first) {
                        self.flush(cur, queue, copier); // what it is linked to goes first
                    }
                    // `link` waits for that copy: claim it rather than wait for a worker to
                    // get to it, so that it is done here or under way elsewhere.
                    queue.help_to(first, &mut |b, _, i| self.work(copier, &b.with, i));
                }
                if self.link(cur.dst.top(), c) {
                    return;
                }
                cur.batch.push(c);
                cur.batch_bytes += item.size;
                if cur.batch.len() >= BATCH_ITEMS || cur.batch_bytes >= BATCH_BYTES {
                    self.flush(cur, queue, copier);
                }
            }
        }
    }

    /// Refuses to replace, by moving item `c`, the folder it is in or one above it
    /// (`mv n/Photos/Photos n/` answered Replace): see [`Error::ReplacesItsFolder`].
    fn refuse_own_folder(&self, c: u32) -> Result<(), Error> {
        let (source, dest) = (self.plan.source_path(c), self.plan.dest_path(c));
        let Ok(in_way) = fs::stat_at(rustix::fs::CWD, &dest) else {
            return Ok(()); // gone: nothing is set aside
        };
        let holds = source
            .ancestors()
            .skip(1)
            .any(|folder| fs::stat_at(rustix::fs::CWD, folder).is_ok_and(|m| m.id == in_way.id));
        match holds {
            true => Err(Error::ReplacesItsFolder { path: source, dest }),
            false => Ok(()),
        }
    }

    /// A move within one mount: one rename, done by the job thread (it is a single call).
    fn rename(&self, cur: &Cursor, c: u32) {
        let item = self.plan.item(c);
        let (name, dest_name) = (self.plan.name(c), self.plan.dest_name(c));
        let (from, to) = (&**cur.src.top(), &**cur.dst.top());
        let staged = match item.action {
            Action::RenameOver => self.refuse_own_folder(c).and_then(|()| self.stash(to, c)),
            _ => Ok(None),
        };
        let staged = match staged {
            Ok(staged) => staged,
            Err(e) => return self.ctx.fail(c, self.plan.source_path(c), e),
        };
        let moved = fs::Moved {
            kind: item.kind,
            id: item.id,
            mode: u32::from(item.mode),
            uid: item.uid,
        };
        let renamed = fs::rename_own(from, name, to, dest_name, moved);
        if let Err(e) = self.settle(staged, renamed, to, c) {
            return self.ctx.fail(c, self.plan.source_path(c), e);
        }
        match renamed {
            Ok(()) => {
                crate::fault::point("renamed");
                self.done[c as usize].store(item.id.ino, Relaxed);
                self.ctx.counters.add_item();
                self.ctx.counters.add_bytes(if item.kind == Kind::File {
                    item.size
                } else {
                    0
                });
            }
            Err(Errno::EXIST | Errno::NOTEMPTY) => {
                if !self.ask_again(to, c) {
                    self.ctx
                        .skip(c, self.plan.source_path(c), SkipReason::Exists);
                }
            }
            // One mount and one device, yet no rename (overlayfs: a folder of a lower layer):
            // copied and removed instead, as `mv` does (`passes.rs`).
            Err(Errno::XDEV) => lock(&self.crossed).push(c),
            Err(e) => {
                let path = self.plan.source_path(c);
                // The folder it was to go into refused it: that one is named, as `mv` names
                // both (the source alone was blamed).
                let refused_by_dest = matches!(e, Errno::ACCESS | Errno::PERM | Errno::ROFS)
                    && rustix::fs::accessat(to, ".", Access::WRITE_OK, AtFlags::EACCESS).is_err();
                let error = match refused_by_dest {
                    true => Error::io("create", self.plan.dest_path(c), e),
                    false => Error::io("move", path.clone(), e),
                };
                if self.ctx.fail_or_retry(c, path, error) {
                    self.rename(cur, c);
                }
            }
        }
    }

    /// Hands the files gathered in `cur` to the workers (doing queued ones while they are all
    /// busy).
    fn flush(&self, cur: &mut Cursor, queue: &mut Queue<'_>, copier: &mut DataCopier<'_>) {
        if cur.batch.is_empty() {
            return;
        }
        let items = std::mem::take(&mut cur.batch);
        cur.batch_bytes = 0;
        let dir = cur.frames.last().and_then(|f| f.done.clone());
        let hidden = cur.frames.last().and_then(|f| f.hidden.as_ref());
        let (named, modes_known) = (hidden.is_some(), hidden.is_some_and(|h| h.modes_known));
        if let Some(d) = &dir {
            d.pending.fetch_add(items.len(), Relaxed);
        }
        let batch = Batch {
            src: Arc::clone(cur.src.top()),
            dst: Arc::clone(cur.dst.top()),
            dir,
            named,
            modes_known,
            group: cur.frames.last().map_or(cur.root_group, |f| f.group),
            inherits_acl: fs::may_have_default_acl(&**cur.dst.top()),
        };
        queue.push(claim::Batch::new(items, batch), &mut |b, _, i| {
            self.work(copier, &b.with, i);
        });
    }
}
