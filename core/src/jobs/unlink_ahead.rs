//! A delete job's files unlinked while its plan is still being made.
//!
//! Planning a delete is mostly reading folders: for 15,000 files in a chain of ten folders,
//! 11 ms of a 56 ms `ferry rm` on tmpfs, on the walk's thread alone, the other core idle
//! until the plan was complete. So once the walk has read a folder whole (never while it is
//! still reading it) and found which of its children are not folders, it hands their names
//! to one thread that unlinks them there and then, in the folder the walk opened and checked
//! against its planned identity.
//!
//! When the thread already has a backlog, the walk unlinks the folder's files itself, there
//! and then, before reading on (see [`BACKLOG`]): two threads then empty folders while their
//! entries are fresh, as `rmz` does, instead of the delete coming back to them later.
//!
//! Unlinking ahead is best effort and silent: a name that cannot be unlinked (permissions, a
//! read-only or busy file) is left for the delete itself, which asks or reports as for any
//! other. Once the plan is complete the thread finishes what it was handed before the delete
//! goes on, when that is little ([`DRAIN_ITEMS`]), so that the delete finds those folders
//! gone rather than opening and checking them again on threads of its own; otherwise it
//! stops there, and the delete's workers share the rest. A plan that fails stops the thread
//! at once. The items unlinked are counted as done when they are, and marked removed in the
//! job's results once the plan is made.
//!
//! Folders go the same way: when the walk leaves a folder whose children were all handed
//! over (its files, and its folders left before it), it hands over the folder itself, and
//! the thread removes it once it has unlinked everything handed before (it works in the
//! order it is handed things, so the children are done or known left behind by then). A
//! tree of 1,000 folders of 15 files was otherwise walked twice, by the plan and by the
//! delete, which opened and checked every folder again to remove it: 25,000 calls where
//! `rmz` makes 20,000, and 0.58-0.61x `rm -rf` against its 0.43x on tmpfs. A folder is
//! removed by name in the folder above it, which the walk opened and checked; `rmdir`
//! removes only an empty folder, so whatever appeared in it since stays, for the delete.

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::thread::{Scope, ScopedJoinHandle};

use crossbeam_channel::{Receiver, Sender};
use rustix::fd::OwnedFd;
use rustix::fs::AtFlags;
use rustix::io::Errno;

use super::control::JobCtx;
use super::lock;
use crate::fs::{self, NameList};

/// Things waiting for the thread beyond which the walk unlinks a folder's files itself. The
/// walk reads folders several times faster than one thread unlinks their files: on a tree of
/// 1,000 folders of 15 files it was done when the thread had reached a fifth of them, and the
/// delete then opened, checked and emptied the other folders again, after their entries had
/// left the CPU's caches (in C on tmpfs, one thread: 94 ms to empty each folder right after
/// reading it, 105 ms to read them all first). With the walk unlinking too, 11 shuffled
/// rounds on tmpfs: 60 -> 50 ms (rmz 51), 107 -> 90 ms of CPU; depth 800: 60 -> 54 ms;
/// depth 10 the same; 1,000 folders with a CPU busy: 0.92 -> 0.77x `rm -rf` (rmz 0.75x).
/// A backlog of 2 left the thread idle while the walk unlinked (65 ms); 8 to 64 measured
/// alike.
const BACKLOG: usize = 16;

/// Files handed over and not yet unlinked when the plan is complete, at most, for the thread
/// to finish them alone (see the module documentation). Replaying a few folders after the
/// plan was 3-7 ms of a 45-50 ms `ferry rm` of 1,000 folders of 15 files (up to 16 folders
/// waited); but a chain of ten folders of 1,500 files was handed whole (the backlog counts
/// folders), and one thread unlinking it all alone took `ferry rm` from 0.54x to 0.93x
/// `rm -rf` on tmpfs. 1,024 unlinks are 2-3 ms on one thread, what the replay costs to start.
pub(crate) const DRAIN_ITEMS: usize = 1024;

/// Folders handed over and not yet done hold their descriptors open: as many as a walk's
/// stack may keep ([`fs::max_open_dirs`], for which the descriptor table is grown at start);
/// a walk further ahead than that leaves the rest to the delete. On a tree of 3,100 folders
/// of 3 files, 64 let the walk outrun this thread, which was left 3,100-5,800 of 12,100 items
/// (65-68 ms in all).
/// What the walk hands over.
enum Handed {
    /// The names of one folder's files to unlink.
    Files(Folder),
    /// A folder the walk has left, all its children handed over before it: remove it.
    Folder {
        /// The open folder holding it.
        parent: Arc<OwnedFd>,
        item: u32,
        name: OsString,
        /// The item of the folder holding it, or [`NO_ITEM`](super::plan::NO_ITEM).
        up: u32,
    },
}

/// The names of one folder's files to unlink, and their plan items.
struct Folder {
    /// The folder's item.
    item: u32,
    dir: Arc<OwnedFd>,
    names: NameList,
    /// The item of each name, in order.
    items: Vec<u32>,
}

/// The walk's side: where the folders it has read go.
pub(crate) struct UnlinkAhead<'env> {
    ctx: &'env JobCtx,
    stop: &'env AtomicBool,
    handed: Sender<Handed>,
    /// The files the walk unlinked itself (see [`UnlinkAhead::unlink`]).
    unlinked_here: Arc<Mutex<Vec<u32>>>,
    /// Files handed over that the thread has not finished yet.
    waiting: Arc<AtomicUsize>,
}

/// Starts the thread (in `scope`) that unlinks the names handed to the returned
/// [`UnlinkAhead`], until the job stops or `stop` is set; joined, it gives the items it
/// removed.
pub(crate) fn start<'scope, 'env>(
    scope: &'scope Scope<'scope, 'env>,
    ctx: &'env JobCtx,
    stop: &'env AtomicBool,
) -> (UnlinkAhead<'env>, ScopedJoinHandle<'scope, Vec<u32>>) {
    let (ahead, received) = UnlinkAhead::new(ctx, stop);
    let waiting = Arc::clone(&ahead.waiting);
    let worker =
        crate::cpus::spawn_scoped(scope, move || remove_handed(ctx, stop, &received, &waiting));
    (ahead, worker)
}

impl<'env> UnlinkAhead<'env> {
    /// The walk's side, and where what it hands over arrives.
    fn new(ctx: &'env JobCtx, stop: &'env AtomicBool) -> (Self, Receiver<Handed>) {
        let (handed, received) = crossbeam_channel::bounded(fs::max_open_dirs());
        let ahead = UnlinkAhead {
            ctx,
            stop,
            handed,
            unlinked_here: Arc::default(),
            waiting: Arc::default(),
        };
        (ahead, received)
    }

    /// Where the files the walk unlinked itself are listed, for the job's results.
    pub(crate) fn unlinked_here(&self) -> Arc<Mutex<Vec<u32>>> {
        Arc::clone(&self.unlinked_here)
    }

    /// How many files handed over the thread has not finished yet.
    pub(crate) fn waiting(&self) -> Arc<AtomicUsize> {
        Arc::clone(&self.waiting)
    }

    /// Hands over the files `items` (item, name) of folder `item`, open as `dir`, which the
    /// walk has read whole; when the thread already has [`BACKLOG`] things waiting, unlinks
    /// them here instead. False if they were not all taken or unlinked (too much is waiting
    /// already, or a name could not be unlinked: the delete does them).
    pub(crate) fn unlink<'n>(
        &self,
        item: u32,
        dir: &Arc<OwnedFd>,
        items: impl Iterator<Item = (u32, &'n OsStr)>,
    ) -> bool {
        if self.handed.len() >= BACKLOG {
            let unlinked = &mut lock(&self.unlinked_here);
            return unlink_files(self.ctx, self.stop, dir, items, unlinked);
        }
        let mut folder = Folder {
            item,
            dir: Arc::clone(dir),
            names: NameList::default(),
            items: Vec::new(),
        };
        for (item, name) in items {
            folder.names.push(name);
            folder.items.push(item);
        }
        let count = folder.items.len();
        if count == 0 {
            return true;
        }
        self.waiting.fetch_add(count, Relaxed);
        let taken = self.handed.try_send(Handed::Files(folder)).is_ok();
        if !taken {
            self.waiting.fetch_sub(count, Relaxed);
        }
        taken
    }

    /// Hands over folder `item`, named `name` in the open folder `parent` (whose item is
    /// `up`, or [`NO_ITEM`](super::plan::NO_ITEM)), every child of which was handed over before: it is removed once
    /// they are gone. False if it was not taken.
    pub(crate) fn remove_folder(
        &self,
        parent: &Arc<OwnedFd>,
        item: u32,
        name: &OsStr,
        up: u32,
    ) -> bool {
        let folder = Handed::Folder {
            parent: Arc::clone(parent),
            item,
            name: name.to_owned(),
            up,
        };
        self.handed.try_send(folder).is_ok()
    }
}

/// The thread: removes what it is handed, in order, until told to stop; returns the items it
/// removed (or found gone).
fn remove_handed(
    ctx: &JobCtx,
    stop: &AtomicBool,
    handed: &Receiver<Handed>,
    waiting: &AtomicUsize,
) -> Vec<u32> {
    let mut removed = Vec::new();
    // Folders with a child left in them: not worth an `rmdir`.
    let mut kept = HashSet::new();
    let go_on = || going_on(ctx, stop);
    for next in handed {
        match next {
            Handed::Files(folder) => {
                let items = folder.items.iter().copied().zip(folder.names.iter());
                let all = unlink_files(ctx, stop, &folder.dir, items, &mut removed);
                // Counted until done: a folder of 15,000 files is still most of the work.
                waiting.fetch_sub(folder.items.len(), Relaxed);
                if !all {
                    if !go_on() {
                        return removed;
                    }
                    kept.insert(folder.item);
                }
            }
            Handed::Folder {
                parent,
                item,
                name,
                up,
            } => {
                if !go_on() {
                    return removed;
                }
                if kept.remove(&item) {
                    kept.insert(up);
                    continue;
                }
                match rustix::fs::unlinkat(&*parent, &name, AtFlags::REMOVEDIR) {
                    Ok(()) | Err(Errno::NOENT) => {
                        removed.push(item);
                        ctx.counters.add_item();
                    }
                    Err(_) => {
                        kept.insert(up);
                    }
                }
            }
        }
    }
    removed
}

/// Whether unlinking ahead goes on: neither stopped nor the job cancelled (waits while paused).
fn going_on(ctx: &JobCtx, stop: &AtomicBool) -> bool {
    !stop.load(Relaxed) && ctx.control.checkpoint()
}

/// Unlinks the files `items` (item, name) of the open folder `dir`, adding to `removed` the
/// items gone; false if one is left (the delete tries it again, and reports) or the job
/// stopped first.
fn unlink_files<'n>(
    ctx: &JobCtx,
    stop: &AtomicBool,
    dir: &OwnedFd,
    items: impl Iterator<Item = (u32, &'n OsStr)>,
    removed: &mut Vec<u32>,
) -> bool {
    let mut all = true;
    for (item, name) in items {
        if !going_on(ctx, stop) {
            return false;
        }
        match rustix::fs::unlinkat(dir, name, AtFlags::empty()) {
            Ok(()) | Err(Errno::NOENT) => {
                removed.push(item);
                ctx.counters.add_item();
                crate::fault::point("deleted");
            }
            Err(_) => all = false,
        }
    }
    all
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::jobs::plan::NO_ITEM;
    use crate::jobs::staging::StagingRoots;
    use crate::jobs::{ErrorPolicy, JobId, control::Control};

    fn ctx(home: &Path) -> JobCtx {
        let (events, _) = crossbeam_channel::unbounded();
        let control = Arc::new(Control::new(ErrorPolicy::Skip));
        JobCtx::new(
            JobId(1),
            control,
            events,
            Arc::new(StagingRoots::home_only(home)),
        )
    }

    /// Runs the thread over the names `items` of `dir`, `stop` set first or not.
    fn unlink_ahead(ctx: &JobCtx, dir: &Path, items: &[(u32, &str)], stop: bool) -> Vec<u32> {
        let dir = Arc::new(crate::fs::open_dir_path(dir).unwrap());
        let stopped = AtomicBool::new(stop);
        std::thread::scope(|s| {
            let (ahead, worker) = start(s, ctx, &stopped);
            assert!(ahead.unlink(0, &dir, items.iter().map(|&(i, n)| (i, OsStr::new(n)))));
            drop(ahead);
            worker.join().unwrap()
        })
    }

    #[test]
    fn unlinks_what_it_is_handed_and_leaves_what_it_cannot_to_the_delete() {
        let tmp = tempfile::tempdir().unwrap();
        for name in ["a", "b"] {
            std::fs::write(tmp.path().join(name), "").unwrap();
        }
        std::fs::create_dir(tmp.path().join("folder")).unwrap();
        let ctx = ctx(tmp.path());
        let items = [(7, "a"), (8, "folder"), (9, "b"), (10, "gone already")];
        let removed = unlink_ahead(&ctx, tmp.path(), &items, false);
        assert_eq!(removed, [7, 9, 10]);
        assert_eq!(ctx.counters.items.load(Relaxed), 3);
        let left: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["folder"]);
    }

    #[test]
    fn with_a_backlog_the_walk_unlinks_the_files_itself() {
        let tmp = tempfile::tempdir().unwrap();
        let ctx = ctx(tmp.path());
        let stop = AtomicBool::new(false);
        // No thread takes what is handed over: the backlog stays.
        let (ahead, _waiting) = UnlinkAhead::new(&ctx, &stop);
        let dir = Arc::new(crate::fs::open_dir_path(tmp.path()).unwrap());
        let queued: Vec<String> = (0..BACKLOG).map(|i| format!("queued {i}")).collect();
        for (i, name) in (100..).zip(&queued) {
            std::fs::write(tmp.path().join(name), "").unwrap();
            assert!(ahead.unlink(i, &dir, [(i, OsStr::new(name))].into_iter()));
        }
        for name in ["a", "b"] {
            std::fs::write(tmp.path().join(name), "").unwrap();
        }
        std::fs::create_dir(tmp.path().join("folder")).unwrap();
        let names = |n: &'static [(u32, &'static str)]| n.iter().map(|&(i, n)| (i, OsStr::new(n)));
        assert!(ahead.unlink(1, &dir, names(&[(1, "a"), (2, "b"), (3, "gone already")])));
        assert_eq!(*lock(&ahead.unlinked_here()), [1, 2, 3]);
        assert_eq!(ctx.counters.items.load(Relaxed), 3);
        // A name it cannot unlink: left, and the folder not counted as emptied.
        assert!(!ahead.unlink(4, &dir, names(&[(4, "folder")])));
        let mut left: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        left.sort();
        let mut expected = queued;
        expected.push("folder".to_owned());
        expected.sort();
        assert_eq!(left, expected, "what was queued waits for the thread");
    }

    /// What the delete reads when the plan is complete, to let the thread finish alone or
    /// stop it and share the rest (`DRAIN_ITEMS`).
    #[test]
    fn files_handed_over_count_as_waiting_until_the_thread_has_done_them() {
        let tmp = tempfile::tempdir().unwrap();
        for name in ["a", "b", "c"] {
            std::fs::write(tmp.path().join(name), "").unwrap();
        }
        let ctx = ctx(tmp.path());
        let stop = AtomicBool::new(false);
        let dir = Arc::new(crate::fs::open_dir_path(tmp.path()).unwrap());
        let names = [
            (1, OsStr::new("a")),
            (2, OsStr::new("b")),
            (3, OsStr::new("c")),
        ];
        let (ahead, received) = UnlinkAhead::new(&ctx, &stop);
        let waiting = ahead.waiting();
        assert!(ahead.unlink(0, &dir, names.into_iter()));
        assert_eq!(waiting.load(Relaxed), 3, "handed, not yet taken up");
        drop(ahead);
        assert_eq!(remove_handed(&ctx, &stop, &received, &waiting), [1, 2, 3]);
        assert_eq!(waiting.load(Relaxed), 0);
    }

    #[test]
    fn once_stopped_it_unlinks_nothing_more() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("kept"), "").unwrap();
        let ctx = ctx(tmp.path());
        assert!(unlink_ahead(&ctx, tmp.path(), &[(1, "kept")], true).is_empty());
        assert!(tmp.path().join("kept").exists());
        assert_eq!(ctx.counters.items.load(Relaxed), 0);
    }

    /// Hands over `top/inner/{a,b}`, `inner`, `top/c` and `top` as the walk would, `stray`
    /// files created in `inner` first; returns what was removed.
    fn remove_tree(ctx: &JobCtx, tmp: &Path, stray: &[&str]) -> Vec<u32> {
        let (top, inner) = (tmp.join("top"), tmp.join("top/inner"));
        std::fs::create_dir_all(&inner).unwrap();
        for file in ["a", "b"].iter().chain(stray) {
            std::fs::write(inner.join(file), "").unwrap();
        }
        std::fs::write(top.join("c"), "").unwrap();
        let open = |p: &Path| Arc::new(crate::fs::open_dir_path(p).unwrap());
        let (root, top_fd, inner_fd) = (open(tmp), open(&top), open(&inner));
        let stopped = AtomicBool::new(false);
        std::thread::scope(|s| {
            let (ahead, worker) = start(s, ctx, &stopped);
            let names =
                |n: &'static [(u32, &'static str)]| n.iter().map(|&(i, n)| (i, OsStr::new(n)));
            assert!(ahead.unlink(2, &inner_fd, names(&[(3, "a"), (4, "b")])));
            assert!(ahead.remove_folder(&top_fd, 2, OsStr::new("inner"), 1));
            assert!(ahead.unlink(1, &top_fd, names(&[(5, "c")])));
            assert!(ahead.remove_folder(&root, 1, OsStr::new("top"), NO_ITEM));
            drop(ahead);
            worker.join().unwrap()
        })
    }

    #[test]
    fn removes_a_folder_handed_over_after_its_children() {
        let tmp = tempfile::tempdir().unwrap();
        let ctx = ctx(tmp.path());
        assert_eq!(remove_tree(&ctx, tmp.path(), &[]), [3, 4, 2, 5, 1]);
        assert!(!tmp.path().join("top").exists());
        assert_eq!(ctx.counters.items.load(Relaxed), 5);
    }

    #[test]
    fn a_folder_holding_something_not_handed_over_stays_with_the_folders_above() {
        let tmp = tempfile::tempdir().unwrap();
        let ctx = ctx(tmp.path());
        assert_eq!(remove_tree(&ctx, tmp.path(), &["appeared"]), [3, 4, 5]);
        let left: Vec<_> = std::fs::read_dir(tmp.path().join("top/inner"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["appeared"]);
        assert!(!tmp.path().join("top/c").exists());
    }
}
