//! The service thread behind [`DirService`](super::DirService): views, loads in progress,
//! cache, watcher and sort orders, all owned by one thread, so none of it needs a lock.

use std::collections::HashMap;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Select, Sender};

use super::{CacheStats, ChangeSummary, DirEvent, Msg, ViewId};
use crate::cache::{Clock, DirCache};
use crate::entry::Listing;
use crate::error::Error;
use crate::fs::{Mount, MountTable};
use crate::lister::{self, ListMsg};
use crate::memory;
use crate::sort::{self, SortSpec};
use crate::watch::{self, DirCheck, DirWatcher, Pending};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ViewState {
    /// Waiting for a listing in progress.
    Loading,
    /// Showing the cached listing of its path (and pinning it).
    Shown,
    /// Holding nothing: the listing failed or the folder is gone.
    Detached,
}

struct View {
    path: PathBuf,
    generation: u64,
    sort: SortSpec,
    state: ViewState,
}

/// A listing in progress.
struct Load {
    path: PathBuf,
    rx: Receiver<ListMsg>,
    cancel: Arc<AtomicBool>,
    /// The batches so far.
    listing: Listing,
    /// Reading a cached folder again (refresh, rescan), rather than a first load for views.
    reload: bool,
}

impl Drop for Load {
    fn drop(&mut self) {
        self.cancel.store(true, Ordering::Relaxed);
    }
}

/// Sort orders computed for one snapshot of a folder's listing.
struct OrderMemo {
    /// The snapshot the orders belong to (a `Weak`, so its address cannot be reused).
    listing: Weak<Listing>,
    orders: Vec<(SortSpec, Arc<[u32]>)>,
}

/// Different sorts remembered per listing (two views on one folder, sorted differently).
const ORDERS_PER_LISTING: usize = 3;

/// How often the paths of the shown folders are checked to still lead to them. A folder
/// above one shown, renamed or moved, sends the shown folder's watch nothing: its view kept
/// the old path, and what was done there (trash, a new folder) went to whatever the path
/// named now, another folder made there since included.
const PATH_CHECK_EVERY: Duration = Duration::from_secs(1);

/// What the service thread owns.
pub(super) struct Service {
    clock: Arc<dyn Clock>,
    cache: DirCache,
    watcher: Option<DirWatcher>,
    views: HashMap<ViewId, View>,
    loads: Vec<Load>,
    orders: HashMap<PathBuf, OrderMemo>,
    events: Sender<DirEvent>,
    mounts: MountsSeen,
    /// When the paths of the shown folders are checked next ([`PATH_CHECK_EVERY`]).
    next_path_check: Instant,
}

/// The mount table as the service last read it, to tell the folders it must not look at
/// itself.
///
/// This thread serves every view: a call on a path on a file system that stopped answering
/// (a network share, a FUSE server stopped) blocked it, and with it every folder of the
/// window, and the window's quit that waits for it. Such folders (NFS, SMB, FUSE:
/// [`Mount::may_hang`]) are looked at by the lister's own threads only, and watched only
/// once listed, when their server has just answered for the path (adding a watch looks it
/// up): a change between the start of the listing and the watch is seen at the next F5.
/// After a mount or unmount they are left as they are. Told by path, from the table, so
/// that telling waits for nothing either.
struct MountsSeen(MountTable);

impl MountsSeen {
    fn read() -> Self {
        MountsSeen(MountTable::read())
    }

    fn may_hang(&self, path: &Path) -> bool {
        self.0.covering(path).is_some_and(Mount::may_hang)
    }
}

enum Received {
    Msg(Msg),
    List(usize, ListMsg),
    Timeout,
}

impl Service {
    pub(super) fn new(
        clock: Arc<dyn Clock>,
        watcher: Option<DirWatcher>,
        events: Sender<DirEvent>,
    ) -> Self {
        Service {
            clock: Arc::clone(&clock),
            cache: DirCache::new(clock),
            watcher,
            views: HashMap::new(),
            loads: Vec::new(),
            orders: HashMap::new(),
            events,
            mounts: MountsSeen::read(),
            next_path_check: Instant::now() + PATH_CHECK_EVERY,
        }
    }

    pub(super) fn run(mut self, rx: &Receiver<Msg>) {
        loop {
            let timeout = self.timeout();
            let received = {
                let mut select = Select::new();
                select.recv(rx);
                for load in &self.loads {
                    select.recv(&load.rx);
                }
                let op = match timeout {
                    Some(timeout) => select.select_timeout(timeout).ok(),
                    None => Some(select.select()),
                };
                match op {
                    None => Received::Timeout,
                    Some(op) if op.index() == 0 => match op.recv(rx) {
                        Ok(msg) => Received::Msg(msg),
                        Err(_) => return,
                    },
                    Some(op) => {
                        let i = op.index() - 1;
                        // A lister thread that ended without `Done` panicked.
                        let msg = op.recv(&self.loads[i].rx).unwrap_or_else(|_| {
                            let path = &self.loads[i].path;
                            let stopped = std::io::Error::other("the lister stopped");
                            ListMsg::Done(Err(Error::io("list folder", path, stopped)))
                        });
                        Received::List(i, msg)
                    }
                }
            };
            self.maintain();
            match received {
                Received::Msg(Msg::Shutdown) => return,
                Received::Msg(msg) => self.handle(msg),
                Received::List(i, msg) => self.on_list(i, msg),
                Received::Timeout => {}
            }
            self.drop_evicted();
        }
    }

    /// How long to wait for the next message: until the next watcher batch is due or the next
    /// cached listing expires (so memory is returned on time, not on the next access).
    fn timeout(&self) -> Option<Duration> {
        let loads = &self.loads;
        let due = self
            .watcher
            .as_ref()
            .and_then(|w| w.next_due(|p| is_loading(loads, p)));
        let due = due.map(|at| at.saturating_duration_since(Instant::now()));
        let expiry = self
            .cache
            .next_expiry()
            .map(|at| at.saturating_duration_since(self.clock.now()));
        let shown = self.views.values().any(|v| v.state == ViewState::Shown);
        let path_check = shown.then(|| {
            self.next_path_check
                .saturating_duration_since(Instant::now())
        });
        [due, expiry, path_check].into_iter().flatten().min()
    }

    /// Expires cached listings, checks the shown folders' paths when due, and applies the
    /// watcher batches that are due.
    fn maintain(&mut self) {
        self.cache.expire();
        self.drop_evicted();
        self.check_paths();
        let Some(watcher) = self.watcher.as_mut() else {
            return;
        };
        let loads = &self.loads;
        let due = watcher.take_due(Instant::now(), |p| is_loading(loads, p));
        for (path, pending) in due {
            if let Some(change) = self.apply_pending(&path, &pending)
                && !change.is_empty()
            {
                self.send_changed(&path, &change);
            }
        }
    }

    /// Every [`PATH_CHECK_EVERY`]: a shown folder whose path leads elsewhere now (a folder
    /// above it renamed or moved, another made in its place) is gone from that path, and its
    /// views follow it or leave, as when it is renamed itself. Folders that may hang are
    /// left alone (see [`MountsSeen`]).
    fn check_paths(&mut self) {
        let now = Instant::now();
        if now < self.next_path_check {
            return;
        }
        self.next_path_check = now + PATH_CHECK_EVERY;
        let Some(watcher) = self.watcher.as_ref() else {
            return;
        };
        let mut shown: Vec<&PathBuf> = (self.views.values())
            .filter(|v| v.state == ViewState::Shown && !self.mounts.may_hang(&v.path))
            .map(|v| &v.path)
            .collect();
        shown.sort_unstable();
        shown.dedup();
        let gone: Vec<PathBuf> = shown
            .into_iter()
            .filter(|path| matches!(watcher.check(path), DirCheck::Gone))
            .cloned()
            .collect();
        for path in gone {
            // Through a link whose target changed (`ln -sfn release-2 current`), the path
            // leads to the folder the link names now: shown anew at the same path. Sent to
            // the parent, the view said "moved or deleted". (Without a link, the folder
            // shown is what moved: the view is told, even if a new one is at its path.)
            let through_link = std::fs::canonicalize(&path).is_ok_and(|real| real != path);
            let rewatched = |w: &mut DirWatcher| w.rewatch(&path).is_ok();
            if through_link && path.is_dir() && self.watcher.as_mut().is_some_and(rewatched) {
                self.start_load(path, true);
            } else {
                self.gone(&path);
            }
        }
    }

    fn handle(&mut self, msg: Msg) {
        match msg {
            Msg::Open {
                view,
                path,
                sort,
                generation,
            } => {
                self.release(view);
                let path = match std::path::absolute(&path) {
                    Ok(path) => path,
                    Err(e) => {
                        self.views.remove(&view);
                        let error = Arc::new(Error::io("open folder", &path, e));
                        self.emit(DirEvent::Failed {
                            view,
                            generation,
                            path,
                            error,
                        });
                        return;
                    }
                };
                self.views.insert(
                    view,
                    View {
                        path,
                        generation,
                        sort,
                        state: ViewState::Loading,
                    },
                );
                self.show(view);
            }
            Msg::Resort { view, sort } => {
                let Some(v) = self.views.get_mut(&view) else {
                    return;
                };
                v.sort = sort;
                if v.state == ViewState::Shown {
                    let path = v.path.clone();
                    if let Some(listing) = self.cache.get(&path) {
                        self.send_changed_to(view, &path, &listing, ChangeSummary::default());
                    }
                }
            }
            Msg::Refresh { view } => {
                let Some(v) = self.views.get_mut(&view) else {
                    return;
                };
                match v.state {
                    ViewState::Shown => {
                        let path = v.path.clone();
                        self.start_load(path, true);
                    }
                    ViewState::Detached => {
                        v.state = ViewState::Loading;
                        self.show(view);
                    }
                    ViewState::Loading => {}
                }
            }
            Msg::Close { view } => {
                self.release(view);
                self.views.remove(&view);
            }
            Msg::Stats(reply) => {
                let stats = CacheStats {
                    paths: self.cache.paths(),
                    entries: self.cache.listings().map(|(_, l)| l.len()).sum(),
                    heap_bytes: self.cache.listings().map(|(_, l)| l.heap_bytes()).sum(),
                    watched: self.watcher.as_ref().map_or(0, DirWatcher::len),
                };
                let _ = reply.send(stats);
            }
            Msg::Watch(event) => {
                if let Some(watcher) = self.watcher.as_mut() {
                    watcher.note(event, Instant::now());
                }
            }
            Msg::MountsChanged => self.mounts_changed(),
            Msg::Shutdown => {}
        }
    }

    /// After a mount or unmount: a cached folder whose path now leads to another folder (the
    /// disk mounted on it, or the one it covered) is watched and listed again; one whose path
    /// leads nowhere now (inside an unmounted disk) is gone.
    fn mounts_changed(&mut self) {
        self.mounts = MountsSeen::read();
        for path in self.cache.paths() {
            if self.mounts.may_hang(&path) {
                continue; // not watched; looking could wait for a server
            }
            let Some(watcher) = self.watcher.as_mut() else {
                return;
            };
            if !matches!(watcher.check(&path), DirCheck::Gone) {
                continue;
            }
            if path.is_dir() && watcher.rewatch(&path).is_ok() {
                self.start_load(path, true);
            } else {
                self.gone(&path);
            }
        }
    }

    /// Gives the Loading `view` its listing: from the cache, from a load in progress, or from a
    /// new load.
    fn show(&mut self, view: ViewId) {
        let Some(v) = self.views.get(&view) else {
            return;
        };
        let (path, generation) = (v.path.clone(), v.generation);
        let cached = self.cache.get(&path);
        // `get` may have just expired this very listing: end its reload before looking for one.
        self.drop_evicted();
        if let Some(listing) = cached {
            self.cache.pin(&path);
            self.show_loaded(view, generation, &path, listing, true);
            return;
        }
        if let Some(load) = self.loads.iter().find(|l| l.path == path && !l.reload) {
            // Joining a listing in progress: what was streamed so far, as one batch.
            if !load.listing.is_empty() {
                let entries = Arc::new(load.listing.clone());
                self.emit(DirEvent::Batch {
                    view,
                    generation,
                    entries,
                });
            }
            return;
        }
        if let Some(watcher) = self
            .watcher
            .as_mut()
            .filter(|_| !self.mounts.may_hang(&path))
        {
            // Watching starts before listing, so no change falls between the two. A failure
            // (no such folder) is reported by the lister, with the error it finds.
            let _ = watcher.watch(&path);
        }
        self.start_load(path, false);
    }

    /// Starts listing `path` unless it is already being listed.
    fn start_load(&mut self, path: PathBuf, reload: bool) {
        if is_loading(&self.loads, &path) {
            return;
        }
        let cancel = Arc::new(AtomicBool::new(false));
        let rx = lister::list_streaming(path.clone(), Arc::clone(&cancel));
        let listing = Listing::new(path.clone());
        self.loads.push(Load {
            path,
            rx,
            cancel,
            listing,
            reload,
        });
    }

    fn on_list(&mut self, i: usize, msg: ListMsg) {
        match msg {
            ListMsg::Batch(batch) => {
                let load = &mut self.loads[i];
                load.listing.append(&batch);
                if load.reload {
                    return;
                }
                let path = load.path.clone();
                let entries = Arc::new(batch);
                for (view, generation) in self.views_in(&path, ViewState::Loading) {
                    let entries = Arc::clone(&entries);
                    self.emit(DirEvent::Batch {
                        view,
                        generation,
                        entries,
                    });
                }
            }
            ListMsg::Done(result) => {
                let load = self.loads.swap_remove(i);
                self.finish(load, result);
            }
        }
    }

    fn finish(&mut self, mut load: Load, result: Result<(), Error>) {
        let path = std::mem::take(&mut load.path);
        let mut listing = std::mem::take(&mut load.listing);
        listing.shrink_to_fit();
        match result {
            Ok(()) if load.reload => {
                if !self.cache.contains(&path) {
                    return;
                }
                self.cache.insert(path.clone(), Arc::new(listing), 0);
                // Changes seen while reading are applied now, quietly: one event says it all.
                if let Some(pending) = self.watcher.as_mut().and_then(|w| w.take(&path))
                    && self.apply_pending(&path, &pending).is_none()
                    && !self.cache.contains(&path)
                {
                    return;
                }
                self.send_changed(
                    &path,
                    &ChangeSummary {
                        rescanned: true,
                        ..ChangeSummary::default()
                    },
                );
            }
            Ok(()) => {
                if let Some(watcher) = self
                    .watcher
                    .as_mut()
                    .filter(|_| self.mounts.may_hang(&path))
                {
                    // Its server has just answered the lister: the path is looked up now.
                    let _ = watcher.watch(&path);
                }
                let waiting = self.views_in(&path, ViewState::Loading);
                self.cache
                    .insert(path.clone(), Arc::new(listing), waiting.len());
                if let Some(pending) = self.watcher.as_mut().and_then(|w| w.take(&path)) {
                    // Views are still Loading, so they get no Changed: Loaded includes it all.
                    self.apply_pending(&path, &pending);
                }
                let Some(listing) = self.cache.get(&path) else {
                    return;
                };
                for (view, generation) in self.views_in(&path, ViewState::Loading) {
                    self.show_loaded(view, generation, &path, Arc::clone(&listing), false);
                }
            }
            Err(Error::Cancelled) => {}
            Err(error) if load.reload => {
                if error.is_not_found() || matches!(error, Error::NotADirectory { .. }) {
                    self.gone(&path);
                } else {
                    self.fail(&path, ViewState::Shown, error);
                    self.cache.remove(&path);
                }
            }
            Err(error) => {
                self.fail(&path, ViewState::Loading, error);
                if let Some(watcher) = self.watcher.as_mut() {
                    watcher.unwatch(&path);
                }
            }
        }
    }

    /// Applies a watcher batch to the cached listing of `path`. Returns what changed, or `None`
    /// when nothing was applied (gone, unreadable, or a rescan was started instead).
    fn apply_pending(&mut self, path: &Path, pending: &Pending) -> Option<ChangeSummary> {
        if !self.cache.contains(path) {
            return None;
        }
        let watcher = self.watcher.as_mut()?;
        let dir = match watcher.check(path) {
            DirCheck::Same(fd) => fd,
            DirCheck::Gone => {
                self.gone(path);
                return None;
            }
            // Made unreadable while shown (its permissions changed): read again, the views
            // get the error, where they went on showing what it held before, removed files
            // and all, with nothing said.
            DirCheck::Unreadable => {
                self.start_load(path.to_owned(), true);
                return None;
            }
        };
        if pending.check_self {
            // A false alarm (renamed and back): notify dropped the watch; renew it, then rescan.
            if watcher.rewatch(path).is_err() {
                self.gone(path);
                return None;
            }
        }
        if pending.rescan {
            self.start_load(path.to_owned(), true);
            return None;
        }
        let listing = self.cache.get_mut(path)?;
        Some(watch::apply_changes(
            Arc::make_mut(listing),
            dir.as_fd(),
            &pending.names,
        ))
    }

    /// Sends `change` to every view showing `path`, each with its own order.
    fn send_changed(&mut self, path: &Path, change: &ChangeSummary) {
        let Some(listing) = self.cache.get(path) else {
            return;
        };
        for (view, _) in self.views_in(path, ViewState::Shown) {
            self.send_changed_to(view, path, &listing, change.clone());
        }
    }

    fn send_changed_to(
        &mut self,
        view: ViewId,
        path: &Path,
        listing: &Arc<Listing>,
        change: ChangeSummary,
    ) {
        let (sort, generation) = (self.views[&view].sort, self.views[&view].generation);
        let order = self.order(path, listing, sort);
        let listing = Arc::clone(listing);
        self.emit(DirEvent::Changed {
            view,
            generation,
            listing,
            order,
            change,
        });
    }

    /// The folder `path` was deleted or renamed away: tell its views, forget it.
    fn gone(&mut self, path: &Path) {
        // Found here, once, so that no view has to look at the disk to know where to go.
        let nearest = path
            .ancestors()
            .skip(1)
            .find(|p| p.is_dir())
            .map(Path::to_path_buf);
        let renamed = self.watcher.as_ref().and_then(|w| w.renamed_to(path));
        for state in [ViewState::Loading, ViewState::Shown] {
            for (view, generation) in self.views_in(path, state) {
                self.set_state(view, ViewState::Detached);
                self.emit(DirEvent::Gone {
                    view,
                    generation,
                    path: path.to_owned(),
                    nearest: nearest.clone(),
                    renamed: renamed.clone(),
                });
            }
        }
        self.loads.retain(|l| l.path != path);
        self.cache.remove(path);
        self.drop_evicted();
        if let Some(watcher) = self.watcher.as_mut() {
            watcher.unwatch(path);
        }
    }

    /// Listing `path` failed: its views in `state` get the error and hold nothing.
    fn fail(&mut self, path: &Path, state: ViewState, error: Error) {
        let error = Arc::new(error);
        for (view, generation) in self.views_in(path, state) {
            self.set_state(view, ViewState::Detached);
            let (path, error) = (path.to_owned(), Arc::clone(&error));
            self.emit(DirEvent::Failed {
                view,
                generation,
                path,
                error,
            });
        }
    }

    /// The view stops holding what it held: unpins its listing, or stops a load nobody else
    /// waits for.
    fn release(&mut self, view: ViewId) {
        let Some(v) = self.views.get_mut(&view) else {
            return;
        };
        let (state, path) = (v.state, v.path.clone());
        v.state = ViewState::Detached;
        match state {
            ViewState::Shown => self.cache.unpin(&path),
            ViewState::Loading if self.views_in(&path, ViewState::Loading).is_empty() => {
                self.loads.retain(|l| l.reload || l.path != path);
                if let Some(watcher) = self.watcher.as_mut() {
                    watcher.unwatch(&path);
                }
            }
            ViewState::Loading | ViewState::Detached => {}
        }
    }

    /// Ends the watches, orders and reloads of listings that left the cache, then hands the
    /// memory they held back to the system (the allocator would keep it otherwise).
    fn drop_evicted(&mut self) {
        let evicted = self.cache.take_evicted();
        if evicted.is_empty() {
            return;
        }
        for path in evicted {
            if let Some(watcher) = self.watcher.as_mut() {
                watcher.unwatch(&path);
            }
            self.orders.remove(&path);
            self.loads.retain(|l| !(l.reload && l.path == path));
        }
        memory::release_free_memory();
    }

    /// The order of `listing` under `sort`, computed once per snapshot and sort.
    /// Shows `view` the whole `listing` of `path`, sorted as the view asks.
    fn show_loaded(
        &mut self,
        view: ViewId,
        generation: u64,
        path: &Path,
        listing: Arc<Listing>,
        from_cache: bool,
    ) {
        self.set_state(view, ViewState::Shown);
        let order = self.order(path, &listing, self.views[&view].sort);
        self.emit(DirEvent::Loaded {
            view,
            generation,
            listing,
            order,
            from_cache,
        });
    }

    fn order(&mut self, path: &Path, listing: &Arc<Listing>, sort: SortSpec) -> Arc<[u32]> {
        let memo = self
            .orders
            .entry(path.to_owned())
            .or_insert_with(|| OrderMemo {
                listing: Weak::new(),
                orders: Vec::new(),
            });
        if !std::ptr::eq(memo.listing.as_ptr(), Arc::as_ptr(listing)) {
            memo.listing = Arc::downgrade(listing);
            memo.orders.clear();
        }
        if let Some((_, order)) = memo.orders.iter().find(|(s, _)| *s == sort) {
            return Arc::clone(order);
        }
        let order: Arc<[u32]> = sort::sorted_order(listing, sort).into();
        if memo.orders.len() == ORDERS_PER_LISTING {
            memo.orders.remove(0);
        }
        memo.orders.push((sort, Arc::clone(&order)));
        order
    }

    /// The views of `path` in `state`, with their generations.
    fn views_in(&self, path: &Path, state: ViewState) -> Vec<(ViewId, u64)> {
        self.views
            .iter()
            .filter(|(_, v)| v.state == state && v.path == path)
            .map(|(&id, v)| (id, v.generation))
            .collect()
    }

    fn set_state(&mut self, view: ViewId, state: ViewState) {
        if let Some(v) = self.views.get_mut(&view) {
            v.state = state;
        }
    }

    fn emit(&self, event: DirEvent) {
        // The receiver is gone only when the caller is shutting down.
        let _ = self.events.send(event);
    }
}

fn is_loading(loads: &[Load], path: &Path) -> bool {
    loads.iter().any(|l| l.path == path)
}
