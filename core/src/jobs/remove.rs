//! Deleting by directory descriptors (`openat` + `unlinkat`), iteratively, at any depth.
//!
//! One [`DirStack`] replay of the plan's folders: on the way down, the non-folders of each
//! folder go to worker threads in batches; a folder the walk leaves is removed once its
//! children are gone, without the walk waiting there (see [`Left`]): it goes on to the next
//! folder, and removes the folders it left, in order, as their files go, unlinking queued
//! files itself only when too many are waiting. Names are claimed one at a time by whichever
//! thread gets to them (`claim.rs`), so the walker never waits for a batch a descheduled
//! worker holds: with another program busy on one of two cores, that wait was most of a
//! delete's time. Small folders share a batch (a deep chain of folders holding a few files
//! each would otherwise cost a hand-over per level), so a level costs one `openat`, one
//! `statx`, one `rmdir` and, deeper than the stack keeps open, one reopen through `..`.
//!
//! Most files are gone before this replay starts: the planning walk hands each folder's files
//! to a thread that unlinks them as soon as the folder is read, and the folders it has left
//! once their children are gone (`unlink_ahead.rs`); the replay removes what that thread did
//! not reach or could not remove.
//!
//! Folders are reopened with `O_NOFOLLOW` and checked against their planned identity, so a
//! folder swapped for a symlink or another folder since planning is never entered; the plan
//! never entered another mount.
//!
//! A move's sources are removed only while they are still what was copied: an editor saving
//! over a file between its copy and its removal (write `doc.tmp`, rename it over `doc`) must
//! not lose the version it saved. Each is renamed aside (`.ferry-moving-<pid>-<job>-<name>`,
//! in its folder: `aside.rs`), checked there and unlinked (see
//! [`Remover::unlink_as_copied`]); a crash in between leaves it whole under that name, and
//! the next start puts it back under its own (never over another file: `recovery.rs`), so
//! that undo and resume find it as a source not removed yet.
//!
//! An item that cannot be removed is asked about when the job's policy is
//! [`ErrorPolicy::Ask`](super::ErrorPolicy::Ask) (its worker waits, the others go on); the
//! folders holding one that stays are left in place without a report of their own.

use std::collections::{HashSet, VecDeque};
use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::thread::Thread;

use rustix::fd::OwnedFd;
use rustix::fs::AtFlags;
use rustix::io::Errno;

use super::aside;
use super::claim;
use super::control::JobCtx;
use super::plan::{Action, Mode, NO_ITEM, Plan, Planner};
use super::progress::Reporter;
use super::start::{not_done, not_started};
use super::summary::{self, Operation};
use super::unlink_ahead;
use super::{ConflictPolicy, Event, Phase, Summary};
use crate::entry::Kind;
use crate::error::Error;
use crate::fs::{self, DirStack};

/// Names per batch. A folder's files go in one batch up to [`WHOLE_FOLDER`] of them, so that
/// two threads unlink in two folders rather than contend for the lock of one (a chain of ten
/// folders of 1,500 files: 0.77x `rm -rf` cut at 1,024, 0.64x whole); a wider folder is cut
/// at this, so that its last batch is short and no thread is left with a long tail of it
/// alone (one folder of 15,000: 0.72x, 0.87x cut at 4,096).
const BATCH_ITEMS: usize = 1024;
/// The most files of one folder kept in one batch.
const WHOLE_FOLDER: usize = 4096;
/// Most folders one batch covers; with [`QUEUED_BATCHES`] per worker, this bounds the
/// descriptors that queued batches hold open (beyond the walk's own [`fs::max_open_dirs`]).
const BATCH_DIRS: usize = 8;
/// Batches queued per worker.
const QUEUED_BATCHES: usize = 2;

/// What a delete does with a folder of ours it cannot empty as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReadOnly {
    /// Fails on it, as `rm -rf` does: a delete the user asked for.
    Fail,
    /// Makes it writable first: emptying the trash (`plan/writable.rs`).
    MakeWritable,
}

/// Runs a delete job from start to end.
pub(crate) fn run_job(ctx: &JobCtx, paths: &[PathBuf], read_only: ReadOnly) -> Summary {
    // The files of each folder read are unlinked while the walk goes on (`unlink_ahead.rs`).
    let stop = AtomicBool::new(false);
    let (planned, unlinked) = std::thread::scope(|s| {
        let (ahead, unlinking) = unlink_ahead::start(s, ctx, &stop);
        let (unlinked_here, waiting) = (ahead.unlinked_here(), ahead.waiting());
        let planner = Planner::new(ctx, Mode::Delete, ConflictPolicy::Skip, None);
        let planner = planner.treating_read_only(read_only);
        let planned = planner.unlinking_ahead(ahead).run(paths);
        // Planned whole, the thread finishes what it was handed if that is little; more is
        // left to the delete's workers, which share it.
        if planned.is_err() || waiting.load(Ordering::Relaxed) > unlink_ahead::DRAIN_ITEMS {
            stop.store(true, Ordering::Relaxed);
        }
        let mut unlinked = unlinking
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        unlinked.append(&mut super::lock(&unlinked_here));
        (planned, unlinked)
    });
    let planned = match planned {
        Ok(p) => p,
        Err(e) => {
            let mut summary = not_started(ctx, paths, e);
            if !unlinked.is_empty() {
                gone_while_planning(&mut summary, unlinked.len() as u64, paths.len());
            }
            return summary;
        }
    };
    ctx.emit(Event::Planned {
        job: ctx.id,
        totals: planned.totals,
    });
    let done = not_done(&planned);
    for i in unlinked {
        done[i as usize].store(1, Ordering::Relaxed);
    }
    if !ctx.control.stopped() {
        let plan = &planned.plan;
        let select = |i| {
            if plan.item(i).action == Action::Skip {
                Select::Keep
            } else {
                Select::Remove
            }
        };
        let left = (0..plan.items.len() as u32)
            .any(|i| done[i as usize].load(Ordering::Relaxed) == 0 && select(i) == Select::Remove);
        ctx.counters.set_phase(Phase::Deleting);
        if !left {
            // All gone while planning: no replay, no threads to start for it.
            Reporter::report_once(ctx, plan, planned.totals);
            return summary::build(ctx, Operation::Delete, planned.plan, done, 0);
        }
        std::thread::scope(|s| {
            let _reporter = Reporter::start(s, ctx, plan, planned.totals);
            Remover {
                ctx,
                plan,
                removed: &done,
                select: &select,
                is_delete_job: true,
                fuse_devices: HashSet::new(),
            }
            .run();
        });
    }
    summary::build(ctx, Operation::Delete, planned.plan, done, 0)
}

/// A delete cancelled while it planned had unlinked what it had walked (`unlink_ahead.rs`):
/// its sources that are gone now are done, not "not done" (it said "deleted nothing" after
/// 400,000 files had gone). One that failed stays failed. The `unlinked` items of a job
/// given one path (`given`) were all in it: it is said how many went, out of a total not
/// counted yet.
fn gone_while_planning(summary: &mut Summary, unlinked: u64, given: usize) {
    let failed: HashSet<PathBuf> = summary.failed.iter().map(|f| f.path.clone()).collect();
    let (gone, left): (Vec<PathBuf>, Vec<PathBuf>) = std::mem::take(&mut summary.not_done)
        .into_iter()
        .partition(|p| !failed.contains(p) && std::fs::symlink_metadata(p).is_err());
    if let [source] = left.as_slice()
        && given == 1
    {
        summary.deleted_of.push((source.clone(), unlinked, None));
    }
    (summary.done, summary.not_done) = (gone, left);
}

/// What to do with a planned item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Select {
    /// Remove it (a folder: once all its children are gone).
    Remove,
    /// Already gone from here (moved away by a rename).
    Gone,
    /// Leave it, and so its parent folder too.
    Keep,
}

/// Removes the selected items of a plan; `removed[i]` becomes 1 for each.
pub(crate) struct Remover<'a> {
    pub(crate) ctx: &'a JobCtx,
    pub(crate) plan: &'a Plan,
    pub(crate) removed: &'a [AtomicU64],
    pub(crate) select: &'a (dyn Fn(u32) -> Select + Sync),
    /// A delete job counts its items and stops on cancel, and removes what it finds; the
    /// source clean-up of a move does none of these (its items are counted by the copy, what
    /// was moved must not stay twice, and only what was copied goes).
    pub(crate) is_delete_job: bool,
    /// Devices of the sources served by FUSE, where a rename may stamp the file with the
    /// time of the rename (fusefat does): there a source is checked as copied before it is
    /// renamed aside, and after only by identity and size.
    pub(crate) fuse_devices: HashSet<u64>,
}

/// Removes the items `select` picks as part of another job (the sources of a move, a restore
/// or an undo), each only if it is still what was copied: not counted and not stopped by
/// cancel. Returns which items are gone.
pub(crate) fn remove_selected(
    ctx: &JobCtx,
    plan: &Plan,
    select: &(dyn Fn(u32) -> Select + Sync),
) -> Vec<AtomicU64> {
    let removed: Vec<AtomicU64> = std::iter::repeat_with(|| AtomicU64::new(0))
        .take(plan.items.len())
        .collect();
    let fuse_devices = (crate::fs::MountTable::read().mounts().iter())
        .filter(|m| m.is_fuse())
        .map(|m| m.dev)
        .collect();
    Remover {
        ctx,
        plan,
        removed: &removed,
        select,
        is_delete_job: false,
        fuse_devices,
    }
    .run();
    removed
}

/// Files to unlink, in one or more folders: `parts[k]` covers the batch's items
/// `parts[k-1].end..parts[k].end`.
#[derive(Default)]
struct Parts {
    parts: Vec<Part>,
}

impl Parts {
    /// The part holding the batch's item at position `k`.
    fn of(&self, k: usize) -> &Part {
        let p = self.parts.partition_point(|p| p.end <= k);
        &self.parts[p]
    }
}

struct Part {
    dir: Arc<OwnedFd>,
    end: usize,
    /// The files of the part's folder still to unlink: its [`Frame`] waits for zero.
    pending: Arc<AtomicUsize>,
}

type Batch = claim::Batch<Parts>;

struct Frame {
    item: u32,
    start: u32,
    end: u32,
    pending: Arc<AtomicUsize>,
}

/// A folder the walk has left, with the folder holding it. The walk does not wait there for
/// the folder's files: a tree of many small folders (1,000 of 15 files) was deleted by the
/// walk alone, which unlinked each folder's files itself before it could leave it (0.91x
/// `rm -rf`, where `rmz` took 0.48x). Left folders are removed in the order they were left,
/// children before their parents, once their files are gone.
struct Left {
    frame: Frame,
    parent: Arc<OwnedFd>,
}

/// Most folders left and not yet removed: each may hold its parent folder open.
const MAX_LEFT: usize = 256;

/// The walk's side of the workers: where batches go, the batch being filled, and how a
/// worker wakes the walker up.
struct Queue<'q> {
    out: claim::Queue<'q, Parts>,
    walker: Thread,
    /// The batch being filled.
    items: Vec<u32>,
    parts: Parts,
}

impl Remover<'_> {
    pub(crate) fn run(&self) {
        // One per CPU: unlinks in one folder take its lock in turn, so threads beyond the
        // CPUs only contend (measured: 3 or 4 on two CPUs deleted slower than 2).
        let workers = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4));
        let (tx, rx) = crossbeam_channel::bounded::<Arc<Batch>>(workers * QUEUED_BATCHES);
        let walker = std::thread::current();
        std::thread::scope(|s| {
            for _ in 0..workers {
                let rx = rx.clone();
                let walker = walker.clone();
                crate::cpus::spawn_scoped(s, move || {
                    for batch in &rx {
                        batch.drain(&mut |b, k, i| self.unlink(b, k, i, &walker));
                    }
                });
            }
            drop(rx);
            let mut queue = Queue {
                out: claim::Queue::new(&tx),
                walker: walker.clone(),
                items: Vec::new(),
                parts: Parts::default(),
            };
            self.walk(&mut queue);
            let rest = queue.take();
            rest.drain(&mut |b, k, i| self.unlink(b, k, i, &walker));
            drop(tx);
        });
    }

    /// Waits while the job is paused; false once a delete job is cancelled. A move's sources
    /// whose copies are on disk all go even then: stopped part way, the move would leave
    /// each item both copied and in place, half done with no word of it.
    fn go_on(&self) -> bool {
        self.ctx.control.checkpoint() || !self.is_delete_job
    }

    fn gone(&self, i: u32) -> bool {
        self.removed[i as usize].load(Ordering::Relaxed) != 0 || (self.select)(i) == Select::Gone
    }

    fn mark_removed(&self, i: u32) {
        self.removed[i as usize].store(1, Ordering::Relaxed);
        if self.is_delete_job {
            self.ctx.counters.add_item();
            crate::fault::point("deleted");
        }
    }

    /// The replay of the plan: files to the workers on the way down, folders removed on the
    /// way back up.
    fn walk(&self, queue: &mut Queue<'_>) {
        // Sources given one by one often share a folder: open it once.
        let mut cache: Option<(&std::path::Path, Arc<OwnedFd>, crate::fs::FileId)> = None;
        // Files given as sources: counted, though no folder waits for them.
        let loose = Arc::new(AtomicUsize::new(0));
        let mut files = Vec::new();
        for root in &self.plan.roots {
            if !self.go_on() {
                return;
            }
            if (self.select)(root.item) != Select::Remove || self.gone(root.item) {
                continue;
            }
            let parent = root.parent();
            let (pid, pfd) = match &cache {
                Some((p, fd, id)) if *p == parent => (*id, Arc::clone(fd)),
                _ => {
                    let open = || {
                        fs::open_dir_path(parent)
                            .and_then(|fd| Ok((fs::stat_fd(&fd)?.id, Arc::new(fd))))
                            .map_err(|e| Error::io("open", parent, e))
                    };
                    let Some((id, fd)) = self.ctx.retrying(root.item, || root.source.clone(), open)
                    else {
                        continue;
                    };
                    cache = Some((parent, Arc::clone(&fd), id));
                    (id, fd)
                }
            };
            if self.plan.item(root.item).kind != Kind::Dir {
                queue.add(self, &pfd, &loose, &[root.item]);
                continue;
            }
            let mut stack = DirStack::new(fs::max_open_dirs());
            stack.push(pfd, pid);
            let mut frames: Vec<Frame> = Vec::new();
            let mut left = VecDeque::new();
            let mut dead = HashSet::new();
            for b in root.blocks.0..root.blocks.1 {
                if !self.go_on() {
                    return;
                }
                let block = self.plan.blocks[b as usize];
                let p = block.dir;
                let parent = self.plan.item(p).parent;
                // Gone: removed whole while the plan was made (`unlink_ahead.rs`).
                if dead.contains(&parent) || (self.select)(p) != Select::Remove || self.gone(p) {
                    dead.insert(p);
                    continue;
                }
                let parent = (parent != NO_ITEM).then_some(parent);
                while frames.last().map(|f| f.item) != parent {
                    if frames.is_empty() || !self.pop(&mut stack, &mut frames, &mut left, queue) {
                        break;
                    }
                }
                if frames.last().map(|f| f.item) != parent {
                    break; // the way back up is lost (reported by `pop`): next source
                }
                let path = || self.plan.source_path(p);
                match self.ctx.retrying(p, path, || self.open(&stack, p)) {
                    Some(fd) => stack.push(fd, self.plan.item(p).id),
                    None => {
                        dead.insert(p);
                        continue;
                    }
                }
                let pending = Arc::new(AtomicUsize::new(0));
                files.clear();
                files.extend((block.start..block.end).filter(|&c| {
                    self.plan.item(c).kind != Kind::Dir
                        && (self.select)(c) == Select::Remove
                        && !self.gone(c)
                }));
                queue.add(self, stack.top(), &pending, &files);
                frames.push(Frame {
                    item: p,
                    start: block.start,
                    end: block.end,
                    pending,
                });
                self.settle(&mut left, queue, MAX_LEFT);
            }
            while !frames.is_empty() && self.pop(&mut stack, &mut frames, &mut left, queue) {}
            self.settle(&mut left, queue, 0);
        }
    }

    fn open(&self, stack: &DirStack, p: u32) -> Result<OwnedFd, Error> {
        let path = || self.plan.source_path(p);
        let fd = fs::open_dir_at(&**stack.top(), self.plan.name(p))
            .map_err(|e| Error::io("open", path(), e))?;
        match fs::stat_fd(&fd) {
            Ok(m) if m.id == self.plan.item(p).id => Ok(fd),
            Ok(_) => Err(Error::Changed { path: path() }),
            Err(e) => Err(Error::io("stat", path(), e)),
        }
    }

    /// Leaves the deepest folder: it is removed once its files are unlinked (see [`Left`]).
    /// False if the way back up is lost.
    fn pop(
        &self,
        stack: &mut DirStack,
        frames: &mut Vec<Frame>,
        left: &mut VecDeque<Left>,
        queue: &mut Queue<'_>,
    ) -> bool {
        let frame = frames.pop().expect("pop with a frame");
        let (_, up) = stack.pop();
        if let Err(e) = up {
            let path = self.plan.source_path(frame.item);
            self.ctx.fail(
                frame.item,
                path.clone(),
                Error::io("go back up from", path, e),
            );
            frames.clear();
            return false;
        }
        left.push_back(Left {
            frame,
            parent: Arc::clone(stack.top()),
        });
        self.settle(left, queue, MAX_LEFT);
        true
    }

    /// Removes the folders the walk has left, oldest first, as long as their files are gone;
    /// while more than `keep` are waiting, waits for the oldest (doing queued work meanwhile).
    fn settle(&self, left: &mut VecDeque<Left>, queue: &mut Queue<'_>, keep: usize) {
        while let Some(oldest) = left.front() {
            if oldest.frame.pending.load(Ordering::Acquire) != 0 {
                if left.len() <= keep {
                    return;
                }
                self.wait(&oldest.frame.pending, queue);
            }
            let Left { frame, parent } = left.pop_front().expect("looked at above");
            self.remove_folder(&frame, &parent);
        }
    }

    /// Removes (`rmdir`) the folder of `frame`, in the open folder `parent`, if all its
    /// children are gone; a folder with a child left (skipped or failed, and so reported)
    /// stays, unreported.
    fn remove_folder(&self, frame: &Frame, parent: &OwnedFd) {
        if !(frame.start..frame.end).all(|c| self.gone(c)) {
            return;
        }
        let path = || self.plan.source_path(frame.item);
        let rmdir =
            || match rustix::fs::unlinkat(parent, self.plan.name(frame.item), AtFlags::REMOVEDIR) {
                Ok(()) | Err(Errno::NOENT) => Ok(()),
                Err(e) => Err(Error::io("delete", path(), e)),
            };
        if self.ctx.retrying(frame.item, path, rmdir).is_some() {
            self.mark_removed(frame.item);
        }
    }

    /// Returns once no file counted in `pending` is left to unlink: unlinks the batch being
    /// filled and every name not yet claimed itself, then sleeps until the workers finish the
    /// ones they are doing.
    fn wait(&self, pending: &AtomicUsize, queue: &mut Queue<'_>) {
        if pending.load(Ordering::Acquire) == 0 {
            return;
        }
        let walker = queue.walker.clone();
        let mut work = |b: &Batch, k: usize, i: u32| self.unlink(b, k, i, &walker);
        queue.take().drain(&mut work);
        queue.out.help(&mut work);
        while pending.load(Ordering::Acquire) != 0 {
            // A worker has the rest; it unparks this thread when done (a wake-up that comes
            // before the park is not lost: `park` then returns at once).
            std::thread::park();
        }
    }

    /// Unlinks the item `i` at position `k` of `batch` (on a worker, or on the walker), and
    /// wakes the walker if it was the last its folder waits for.
    fn unlink(&self, batch: &Batch, k: usize, i: u32, walker: &Thread) {
        let part = batch.with.of(k);
        if self.go_on() {
            self.unlink_one(&part.dir, i);
        }
        // AcqRel: the waiter that sees zero also sees the `removed` marks.
        if part.pending.fetch_sub(1, Ordering::AcqRel) == 1 {
            walker.unpark();
        }
    }

    fn unlink_one(&self, dir: &OwnedFd, i: u32) {
        self.ctx.counters.current.store(i, Ordering::Relaxed);
        let path = || self.plan.source_path(i);
        let unlink = || {
            if self.is_delete_job {
                self.unlink_name(dir, self.plan.name(i), i)
            } else {
                self.unlink_as_copied(dir, i)
            }
        };
        if self.ctx.retrying(i, path, unlink).is_some() {
            self.mark_removed(i);
        }
    }

    fn unlink_name(&self, dir: &OwnedFd, name: &OsStr, i: u32) -> Result<(), Error> {
        match rustix::fs::unlinkat(dir, name, AtFlags::empty()) {
            Ok(()) | Err(Errno::NOENT) => Ok(()),
            Err(Errno::ISDIR) => Err(Error::Changed {
                path: self.plan.source_path(i),
            }),
            Err(e) => Err(Error::io("delete", self.plan.source_path(i), e)),
        }
    }

    /// Unlinks the source of item `i` of a move only if it is still the item that was
    /// copied. It is renamed aside to a name of this job (`aside.rs`), checked there, then
    /// unlinked under that name: checked under its own name, a save landing between the
    /// check and the unlink would be deleted (an editor renaming its new file over it), while
    /// a save after the rename only makes the name anew. What is not as copied, or cannot be
    /// unlinked, goes back to its name.
    fn unlink_as_copied(&self, dir: &OwnedFd, i: u32) -> Result<(), Error> {
        let (name, path) = (self.plan.name(i), self.plan.source_path(i));
        // Where a rename may change the time, the time is checked before it.
        let renames_keep_times = !self.fuse_devices.contains(&self.plan.item(i).id.dev);
        if !renames_keep_times && !fs::stat_at(dir, name).is_ok_and(|m| self.as_copied(i, &m, true))
        {
            return Err(Error::ChangedSinceCopied { path });
        }
        let mut hidden = aside::name(self.ctx.id.0, name, i);
        let mut renamed = fs::rename_noreplace(dir, name, dir, &hidden);
        if renamed == Err(Errno::NAMETOOLONG) {
            // A file system whose names are shorter than Linux's longest.
            hidden = aside::numbered(self.ctx.id.0, i);
            renamed = fs::rename_noreplace(dir, name, dir, &hidden);
        }
        match renamed {
            Ok(()) => {}
            // Removed by someone else since its copy (another move of it, say): said, as
            // `mv` says it, rather than counted as this move's.
            Err(e) => return Err(Error::io("delete", path, e)),
        }
        let error = match fs::stat_at(dir, &hidden) {
            Ok(now) if self.as_copied(i, &now, renames_keep_times) => {
                crate::fault::point("source-checked");
                match self.unlink_name(dir, &hidden, i) {
                    Ok(()) => return Ok(()),
                    Err(e) => e,
                }
            }
            Ok(_) => Error::ChangedSinceCopied { path },
            Err(e) => Error::io("stat", path, e),
        };
        match fs::rename_noreplace(dir, &hidden, dir, name) {
            Ok(()) => Err(error),
            // Its name was made anew meanwhile: what was there stays under the other name.
            Err(_) => Err(Error::ChangedSinceCopied {
                path: self.plan.source_path(i).with_file_name(&hidden),
            }),
        }
    }

    /// True when `now` is still item `i` as it was copied: the same device and inode and,
    /// for a file, the size and (`with_time`) the modification time of its copy (the plan
    /// holds those).
    fn as_copied(&self, i: u32, now: &fs::Meta, with_time: bool) -> bool {
        let item = self.plan.item(i);
        let same_time = !with_time || now.mtime == item.mtime;
        let same_data = now.kind != Kind::File || (now.size == item.size && same_time);
        now.id == item.id && now.kind == item.kind && same_data
    }
}

impl Queue<'_> {
    /// Adds the files `items` of the open folder `dir` to the batch being filled, counting
    /// them in `pending`, and hands full batches to the workers (doing queued work while
    /// they are all busy): a folder of at most [`WHOLE_FOLDER`] files in one batch.
    fn add(
        &mut self,
        remover: &Remover<'_>,
        dir: &Arc<OwnedFd>,
        pending: &Arc<AtomicUsize>,
        items: &[u32],
    ) {
        let whole = items.len() <= WHOLE_FOLDER;
        if whole && self.items.len() + items.len() > WHOLE_FOLDER {
            self.flush(remover);
        }
        let limit = if whole { WHOLE_FOLDER } else { BATCH_ITEMS };
        for &i in items {
            let same_part = self
                .parts
                .parts
                .last()
                .is_some_and(|p| Arc::ptr_eq(&p.dir, dir) && Arc::ptr_eq(&p.pending, pending));
            if !same_part {
                if self.parts.parts.len() == BATCH_DIRS {
                    self.flush(remover);
                }
                self.parts.parts.push(Part {
                    dir: Arc::clone(dir),
                    end: self.items.len(),
                    pending: Arc::clone(pending),
                });
            }
            self.items.push(i);
            pending.fetch_add(1, Ordering::Relaxed);
            self.parts.parts.last_mut().expect("a part was pushed").end += 1;
            if self.items.len() >= limit {
                self.flush(remover);
            }
        }
    }

    /// The batch being filled, as it is; a new one is started.
    fn take(&mut self) -> Arc<Batch> {
        let items = std::mem::take(&mut self.items);
        claim::Batch::new(items, std::mem::take(&mut self.parts))
    }

    /// Hands the batch being filled to the workers.
    fn flush(&mut self, remover: &Remover<'_>) {
        let batch = self.take();
        let walker = self.walker.clone();
        self.out
            .push(batch, &mut |b, k, i| remover.unlink(b, k, i, &walker));
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::path::Path;

    use super::{BATCH_DIRS, BATCH_ITEMS, MAX_LEFT, WHOLE_FOLDER};
    use crate::fs::max_open_dirs;
    use crate::jobs::{Engine, Job, Summary};

    fn delete(paths: Vec<std::path::PathBuf>) -> Summary {
        let (engine, events) = Engine::start();
        crate::jobs::finished(&events, engine.submit(Job::Delete { paths }))
    }

    fn files(dir: &Path, count: usize) {
        for i in 0..count {
            fs::write(dir.join(format!("f{i}")), b"").unwrap();
        }
    }

    /// Small folders share batches (more of them than a batch covers, deeper than the open
    /// descriptors reach, and more side by side than the walk leaves waiting), a folder
    /// wider than a batch goes whole, a wider one fills several, and loose files from two
    /// folders must each be unlinked in their own.
    #[test]
    fn deletes_chains_of_small_folders_wide_folders_and_loose_files() {
        let tmp = tempfile::tempdir().unwrap();
        let tree = tmp.path().join("tree");
        let mut dir = tree.clone();
        for _ in 0..(max_open_dirs() + 3 * BATCH_DIRS) {
            dir.push("d");
            fs::create_dir_all(&dir).unwrap();
            files(&dir, 3);
        }
        let wide = tree.join("wide");
        fs::create_dir(&wide).unwrap();
        files(&wide, WHOLE_FOLDER + BATCH_ITEMS + 7);
        let whole = tree.join("whole");
        fs::create_dir(&whole).unwrap();
        files(&whole, BATCH_ITEMS + 5);
        // More small folders side by side than the walk leaves waiting for their files.
        let many = tree.join("many");
        for k in 0..MAX_LEFT + 9 {
            fs::create_dir_all(many.join(k.to_string())).unwrap();
            files(&many.join(k.to_string()), 2);
        }
        let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
        fs::create_dir(&a).unwrap();
        fs::create_dir(&b).unwrap();
        files(&a, 2);
        files(&b, 2);
        let loose = [a.join("f0"), b.join("f0"), a.join("f1"), b.join("f1")];
        let mut paths = vec![tree.clone()];
        paths.extend(loose.iter().cloned());

        let summary = delete(paths);
        assert!(summary.is_complete(), "{:#?}", summary.failed.first());
        let folders = max_open_dirs() + 3 * BATCH_DIRS + 3;
        let wide_files = WHOLE_FOLDER + BATCH_ITEMS + 7 + BATCH_ITEMS + 5;
        let many = 1 + 3 * (MAX_LEFT + 9);
        let expected = folders + 3 * (folders - 3) + wide_files + many + loose.len();
        assert_eq!(summary.items_done, expected as u64);
        assert!(!tree.exists());
        assert!(loose.iter().all(|p| !p.exists()));
        assert_eq!(fs::read_dir(&a).unwrap().count(), 0);
        assert_eq!(fs::read_dir(&b).unwrap().count(), 0);
    }
}
