//! Deleting by directory descriptors (`openat` + `unlinkat`), iteratively, at any depth.
//!
//! Two passes over the plan's folders, each a [`DirStack`] replay: the first hands every
//! non-folder to worker threads in per-folder batches (unlinks in different folders do not
//! contend for one folder's lock); the second removes folders deepest first, each only if all
//! of its planned children are gone. Folders are reopened with `O_NOFOLLOW` and checked
//! against their planned identity, so a folder swapped for a symlink or another folder since
//! planning is never entered; the plan never entered another mount.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crossbeam_channel::{Receiver, Sender};
use rustix::fd::OwnedFd;
use rustix::fs::AtFlags;
use rustix::io::Errno;

use super::control::JobCtx;
use super::copy::{not_done, not_started};
use super::plan::{Action, MAX_OPEN_DIRS, Mode, NO_ITEM, Plan, Planner};
use super::progress::Reporter;
use super::summary::{self, Operation};
use super::{ConflictPolicy, Event, Phase, Summary};
use crate::error::Error;
use crate::fs::{self, DirStack, FileKind};

/// Names per batch: a whole folder as a rule, so that two workers unlink in two folders
/// rather than contend for the lock of one.
const BATCH_ITEMS: usize = 1024;

/// Runs a delete job from start to end.
pub(crate) fn run_job(ctx: &JobCtx, paths: &[PathBuf]) -> Summary {
    let planned = match Planner::new(ctx, Mode::Delete, ConflictPolicy::Skip, None).run(paths) {
        Ok(p) => p,
        Err(e) => return not_started(ctx, paths, e),
    };
    ctx.emit(Event::Planned {
        job: ctx.id,
        totals: planned.totals,
    });
    let done = not_done(&planned);
    if !ctx.control.stopped() {
        let plan = &planned.plan;
        let select = |i| {
            if plan.item(i).action == Action::Skip {
                Select::Keep
            } else {
                Select::Remove
            }
        };
        std::thread::scope(|s| {
            let _reporter = Reporter::start(s, ctx, plan, planned.totals);
            ctx.counters.set_phase(Phase::Deleting);
            Remover {
                ctx,
                plan,
                removed: &done,
                select: &select,
                is_delete_job: true,
            }
            .run();
        });
    }
    summary::build(ctx, Operation::Delete, planned.plan, done, 0)
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
    /// A delete job counts its items and stops on cancel; the source clean-up of a move does
    /// neither (its items are counted by the copy, and what was moved must not stay twice).
    pub(crate) is_delete_job: bool,
}

struct Batch {
    dir: Arc<OwnedFd>,
    items: Vec<u32>,
}

#[derive(Clone, Copy)]
struct Frame {
    item: u32,
    start: u32,
    end: u32,
}

impl Remover<'_> {
    pub(crate) fn run(&self) {
        let workers = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4));
        let (tx, rx) = crossbeam_channel::bounded::<Batch>(workers * 4);
        std::thread::scope(|s| {
            for _ in 0..workers {
                let rx = rx.clone();
                s.spawn(move || self.worker(&rx));
            }
            drop(rx);
            self.pass(Some(&tx));
            drop(tx);
        });
        self.pass(None);
    }

    fn go_on(&self) -> bool {
        !self.is_delete_job || self.ctx.control.checkpoint()
    }

    fn gone(&self, i: u32) -> bool {
        self.removed[i as usize].load(Relaxed) != 0 || (self.select)(i) == Select::Gone
    }

    fn mark_removed(&self, i: u32) {
        self.removed[i as usize].store(1, Relaxed);
        if self.is_delete_job {
            self.ctx.counters.add_item();
        }
    }

    /// One replay of the plan: with `tx`, sends non-folders to the workers; without, removes
    /// folders on the way back up.
    fn pass(&self, tx: Option<&Sender<Batch>>) {
        // Sources given one by one often share a folder: open it once.
        let mut cache: Option<(&std::path::Path, Arc<OwnedFd>, crate::fs::FileId)> = None;
        for root in &self.plan.roots {
            if !self.go_on() {
                return;
            }
            if (self.select)(root.item) != Select::Remove {
                continue;
            }
            let is_dir = self.plan.item(root.item).kind == FileKind::Dir;
            if tx.is_none() && !is_dir {
                continue; // the second pass only removes folders
            }
            let parent = root.parent();
            let opened = match &cache {
                Some((p, fd, id)) if *p == parent => Ok((*id, Arc::clone(fd))),
                _ => fs::open_dir_path(parent)
                    .and_then(|fd| Ok((fs::stat_fd(&fd)?.id, Arc::new(fd)))),
            };
            let (pid, pfd) = match opened {
                Ok((id, fd)) => {
                    cache = Some((parent, Arc::clone(&fd), id));
                    (id, fd)
                }
                Err(e) => {
                    if tx.is_some() {
                        self.ctx
                            .fail(root.item, root.source.clone(), Error::io("open", parent, e));
                    }
                    continue;
                }
            };
            let mut stack = DirStack::new(MAX_OPEN_DIRS);
            stack.push(pfd, pid);
            if !is_dir {
                if let Some(tx) = tx {
                    let _ = tx.send(Batch {
                        dir: Arc::clone(stack.top()),
                        items: vec![root.item],
                    });
                }
                continue;
            }
            let mut frames: Vec<Frame> = Vec::new();
            let mut dead = HashSet::new();
            for b in root.blocks.0..root.blocks.1 {
                if !self.go_on() {
                    return;
                }
                let block = self.plan.blocks[b as usize];
                let p = block.dir;
                let parent = self.plan.item(p).parent;
                if dead.contains(&parent) || (self.select)(p) != Select::Remove {
                    dead.insert(p);
                    continue;
                }
                let parent = (parent != NO_ITEM).then_some(parent);
                while frames.last().map(|f| f.item) != parent {
                    if frames.is_empty() || !self.pop(&mut stack, &mut frames, tx.is_none()) {
                        break;
                    }
                }
                if frames.last().map(|f| f.item) != parent {
                    break; // the way back up is lost (reported by `pop`): next source
                }
                match self.open(&stack, p) {
                    Ok(fd) => stack.push(fd, self.plan.item(p).id),
                    Err(e) => {
                        if tx.is_some() {
                            self.ctx.fail(p, self.plan.source_path(p), e);
                        }
                        dead.insert(p);
                        continue;
                    }
                }
                frames.push(Frame {
                    item: p,
                    start: block.start,
                    end: block.end,
                });
                if let Some(tx) = tx {
                    let files = (block.start..block.end).filter(|&c| {
                        self.plan.item(c).kind != FileKind::Dir
                            && (self.select)(c) == Select::Remove
                    });
                    let mut items = Vec::new();
                    for c in files {
                        items.push(c);
                        if items.len() == BATCH_ITEMS {
                            let _ = tx.send(Batch {
                                dir: Arc::clone(stack.top()),
                                items: std::mem::take(&mut items),
                            });
                        }
                    }
                    if !items.is_empty() {
                        let _ = tx.send(Batch {
                            dir: Arc::clone(stack.top()),
                            items,
                        });
                    }
                }
            }
            while !frames.is_empty() && self.pop(&mut stack, &mut frames, tx.is_none()) {}
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

    /// Leaves the deepest folder, removing it if asked (`rmdir`) and all its children are
    /// gone. False if the way back up is lost.
    fn pop(&self, stack: &mut DirStack, frames: &mut Vec<Frame>, rmdir: bool) -> bool {
        let frame = frames.pop().expect("pop with a frame");
        let (_, up) = stack.pop();
        if let Err(e) = up {
            if rmdir {
                let path = self.plan.source_path(frame.item);
                self.ctx.fail(
                    frame.item,
                    path.clone(),
                    Error::io("go back up from", path, e),
                );
            }
            frames.clear();
            return false;
        }
        if rmdir && (frame.start..frame.end).all(|c| self.gone(c)) {
            match rustix::fs::unlinkat(
                &**stack.top(),
                self.plan.name(frame.item),
                AtFlags::REMOVEDIR,
            ) {
                Ok(()) | Err(Errno::NOENT) => self.mark_removed(frame.item),
                Err(e) => {
                    let path = self.plan.source_path(frame.item);
                    self.ctx
                        .fail(frame.item, path.clone(), Error::io("delete", path, e));
                }
            }
        }
        true
    }

    fn worker(&self, rx: &Receiver<Batch>) {
        for batch in rx {
            for &i in &batch.items {
                if !self.go_on() {
                    continue;
                }
                self.ctx.counters.current.store(i, Relaxed);
                match rustix::fs::unlinkat(&*batch.dir, self.plan.name(i), AtFlags::empty()) {
                    Ok(()) | Err(Errno::NOENT) => self.mark_removed(i),
                    Err(Errno::ISDIR) => self.ctx.fail(
                        i,
                        self.plan.source_path(i),
                        Error::Changed {
                            path: self.plan.source_path(i),
                        },
                    ),
                    Err(e) => {
                        let path = self.plan.source_path(i);
                        self.ctx.fail(i, path.clone(), Error::io("delete", path, e));
                    }
                }
            }
        }
    }
}
