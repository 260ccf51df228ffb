//! [`DirService`]: the one place folder listings come from, for the window and for `ferry ls`.
//!
//! One background thread owns the [lister](crate::lister), the
//! [`DirCache`](crate::cache::DirCache) and the [`DirWatcher`]. Callers send commands
//! ([`DirService::open`], [`resort`](DirService::resort), [`refresh`](DirService::refresh),
//! [`close`](DirService::close)) that return at once, and receive [`DirEvent`]s on a crossbeam
//! channel. Every event carries the view it is for and the generation of the `open` it
//! answers, so a view that has moved on drops stale ones.
//!
//! What a view sees after `open`:
//! - a cached folder: one [`DirEvent::Loaded`] with `from_cache: true`, straight from memory;
//! - otherwise: [`DirEvent::Batch`]es as the lister streams entries (for first paint), then
//!   [`DirEvent::Loaded`] with the complete listing and its sorted order;
//! - or [`DirEvent::Failed`] naming the path and the reason.
//!
//! Then, while shown: [`DirEvent::Changed`] for live changes (coalesced by the watcher), after a
//! `resort` (empty summary, new order) and after a `refresh` or an event-queue overflow
//! (`rescanned: true`); [`DirEvent::Gone`] when the folder is deleted or renamed away.
//!
//! Listings are shared as `Arc<Listing>` snapshots: changes are applied copy-on-write
//! (`Arc::make_mut`), so a snapshot a view holds never changes under it. Sort orders are
//! computed on the service thread and remembered per listing and sort, so re-opening a cached
//! folder costs no sorting.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::{self, JoinHandle};

use crossbeam_channel::{Receiver, Sender};

use crate::cache::{Clock, SystemClock};
use crate::entry::Listing;
use crate::error::Error;
use crate::memory;
use crate::sort::SortSpec;
use crate::watch::{DirWatcher, WatchEvent};

use service::Service;

pub use crate::watch::ChangeSummary;

mod service;

/// Identifies one view (a tab, a pane, a `ferry ls` run); chosen by the caller.
pub type ViewId = u64;

/// What the service tells its caller. Every event names its view and generation.
#[derive(Debug, Clone)]
pub enum DirEvent {
    /// Part of a folder being listed, in arrival order, for the first paint of huge folders.
    Batch {
        /// The view.
        view: ViewId,
        /// The generation of the `open` this answers.
        generation: u64,
        /// Only the entries of this batch.
        entries: Arc<Listing>,
    },
    /// The complete listing of the folder and its display order.
    Loaded {
        /// The view.
        view: ViewId,
        /// The generation of the `open` this answers.
        generation: u64,
        /// Every entry.
        listing: Arc<Listing>,
        /// Indices into `listing`, in display order.
        order: Arc<[u32]>,
        /// Answered from the cache, without reading the folder.
        from_cache: bool,
    },
    /// The shown listing changed (live change, re-sort, refresh or rescan).
    Changed {
        /// The view.
        view: ViewId,
        /// The generation of the `open` this answers.
        generation: u64,
        /// The new snapshot; entry indices of older snapshots do not apply to it.
        listing: Arc<Listing>,
        /// Indices into `listing`, in display order.
        order: Arc<[u32]>,
        /// What changed, by name.
        change: ChangeSummary,
    },
    /// The shown folder was deleted or renamed away; the view no longer holds it.
    Gone {
        /// The view.
        view: ViewId,
        /// The generation of the `open` this answers.
        generation: u64,
        /// The folder's path.
        path: PathBuf,
        /// Its nearest ancestor that is still a folder, where a view may go instead.
        nearest: Option<PathBuf>,
        /// Where the folder is now, when it was renamed in its parent folder: a view follows
        /// it there, as Nautilus and Dolphin do.
        renamed: Option<PathBuf>,
    },
    /// The folder could not be listed; the view holds nothing (a `refresh` tries again).
    Failed {
        /// The view.
        view: ViewId,
        /// The generation of the `open` this answers.
        generation: u64,
        /// The folder's path.
        path: PathBuf,
        /// Why.
        error: Arc<Error>,
    },
}

impl DirEvent {
    /// The view the event is for.
    pub fn view(&self) -> ViewId {
        match *self {
            DirEvent::Batch { view, .. }
            | DirEvent::Loaded { view, .. }
            | DirEvent::Changed { view, .. }
            | DirEvent::Gone { view, .. }
            | DirEvent::Failed { view, .. } => view,
        }
    }

    /// The generation of the `open` the event answers.
    pub fn generation(&self) -> u64 {
        match *self {
            DirEvent::Batch { generation, .. }
            | DirEvent::Loaded { generation, .. }
            | DirEvent::Changed { generation, .. }
            | DirEvent::Gone { generation, .. }
            | DirEvent::Failed { generation, .. } => generation,
        }
    }
}

/// What the service holds in memory, from [`DirService::stats`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Cached folder paths, most recently used first.
    pub paths: Vec<PathBuf>,
    /// Entries over all cached listings.
    pub entries: usize,
    /// Heap bytes of all cached listings.
    pub heap_bytes: usize,
    /// Folders being watched.
    pub watched: usize,
}

/// The listing service: a background thread owning lister, cache and watcher.
///
/// Dropping it stops the thread, its listings in progress and its watches.
#[derive(Debug)]
pub struct DirService {
    tx: Sender<Msg>,
    next_generation: AtomicU64,
    thread: Option<JoinHandle<()>>,
}

impl DirService {
    /// Starts the service with the real clock. Events arrive on the returned receiver.
    pub fn start() -> (DirService, Receiver<DirEvent>) {
        Self::start_with_clock(Arc::new(SystemClock))
    }

    /// Starts the service with `clock` driving cache expiry (a [`ManualClock`] in tests).
    ///
    /// Without inotify (e.g. the per-user instance limit is reached) listings still work, but
    /// are not kept current.
    ///
    /// Also tells the allocator to return freed memory promptly
    /// ([`memory::return_memory_promptly`]): a listing the cache drops must leave the process.
    ///
    /// [`ManualClock`]: crate::cache::ManualClock
    pub fn start_with_clock(clock: Arc<dyn Clock>) -> (DirService, Receiver<DirEvent>) {
        memory::return_memory_promptly();
        let (tx, rx) = crossbeam_channel::unbounded();
        let (events, events_rx) = crossbeam_channel::unbounded();
        let sink = tx.clone();
        let watcher = DirWatcher::new(move |event| {
            // Fails only once the service has stopped; then nobody wants the event.
            let _ = sink.send(Msg::Watch(event));
        })
        .ok();
        watch_mounts(tx.clone());
        let thread = thread::Builder::new()
            .name("ferry-dirs".into())
            .spawn(move || Service::new(clock, watcher, events).run(&rx))
            .expect("cannot spawn the listing service thread");
        let service = DirService {
            tx,
            next_generation: AtomicU64::new(1),
            thread: Some(thread),
        };
        (service, events_rx)
    }

    /// Shows the folder `path` in `view` (replacing what it showed), sorted by `sort`. Returns
    /// the generation every event answering this call carries.
    pub fn open(&self, view: ViewId, path: PathBuf, sort: SortSpec) -> u64 {
        let generation = self.next_generation.fetch_add(1, Ordering::Relaxed);
        self.send(Msg::Open {
            view,
            path,
            sort,
            generation,
        });
        generation
    }

    /// Sorts `view` by `sort`; a shown view gets a [`DirEvent::Changed`] with the new order.
    pub fn resort(&self, view: ViewId, sort: SortSpec) {
        self.send(Msg::Resort { view, sort });
    }

    /// Reads the view's folder again; the result comes as [`DirEvent::Changed`] with
    /// `rescanned: true` (or, after a failure, as a fresh load).
    pub fn refresh(&self, view: ViewId) {
        self.send(Msg::Refresh { view });
    }

    /// The view is closed: its listing is released (and expires from the cache in due time).
    pub fn close(&self, view: ViewId) {
        self.send(Msg::Close { view });
    }

    /// What the cache holds, once every command sent before has been handled. Blocks briefly;
    /// meant for tests and benchmarks.
    pub fn stats(&self) -> CacheStats {
        let (reply, answer) = crossbeam_channel::bounded(1);
        self.send(Msg::Stats(reply));
        answer.recv().unwrap_or_default()
    }

    fn send(&self, msg: Msg) {
        // Fails only if the service thread died (a bug); the caller then gets no events.
        let _ = self.tx.send(msg);
    }
}

impl Drop for DirService {
    /// Stops the service thread, waiting for it a moment at most: one blocked by a file system
    /// that stopped answering must not hold the window's quit (the process ends it).
    fn drop(&mut self) {
        self.send(Msg::Shutdown);
        let Some(thread) = self.thread.take() else {
            return;
        };
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(1);
        while !thread.is_finished() && std::time::Instant::now() < deadline {
            thread::sleep(std::time::Duration::from_millis(2));
        }
        if thread.is_finished() {
            let _ = thread.join();
        }
    }
}

/// Commands and watcher events, in one queue to the service thread.
enum Msg {
    Open {
        view: ViewId,
        path: PathBuf,
        sort: SortSpec,
        generation: u64,
    },
    Resort {
        view: ViewId,
        sort: SortSpec,
    },
    Refresh {
        view: ViewId,
    },
    Close {
        view: ViewId,
    },
    Stats(Sender<CacheStats>),
    Watch(WatchEvent),
    /// A file system was mounted or unmounted somewhere.
    MountsChanged,
    Shutdown,
}

/// Tells the service whenever a file system is mounted or unmounted: inotify says nothing of
/// it, and a folder shown when a disk is mounted on it (or unmounted from it) would go on
/// showing, and watching, the folder it no longer leads to. The kernel marks
/// `/proc/self/mountinfo` with a priority event at each change, until it is read again. A
/// thread of its own, blocked in `poll`; it ends at the first change after the service has.
fn watch_mounts(service: Sender<Msg>) {
    use rustix::event::{PollFd, PollFlags, poll};
    use std::io::{Read, Seek};
    let Ok(mut table) = std::fs::File::open("/proc/self/mountinfo") else {
        return; // no /proc: mounts are not followed
    };
    // Read through a buffer on its small stack: an allocation on this thread would give it a
    // heap arena of its own, 0.4 MB of the window's memory for a thread that only waits.
    let read_through = |table: &mut std::fs::File| -> std::io::Result<()> {
        let mut buffer = [0u8; 4096];
        table.rewind()?;
        while table.read(&mut buffer)? > 0 {}
        Ok(())
    };
    if read_through(&mut table).is_err() {
        return;
    }
    let spawned = thread::Builder::new()
        .name("ferry-mounts".into())
        .stack_size(64 << 10)
        .spawn(move || {
            loop {
                let mut fds = [PollFd::new(&table, PollFlags::PRI)];
                if poll(&mut fds, None).is_err()
                    || read_through(&mut table).is_err()
                    || service.send(Msg::MountsChanged).is_err()
                {
                    return;
                }
            }
        });
    drop(spawned);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::time::{Duration, Instant};

    const DEADLINE: Duration = Duration::from_secs(10);

    /// Waits for the next event of `view` that is not a batch.
    fn next(events: &Receiver<DirEvent>, view: ViewId) -> DirEvent {
        let end = Instant::now() + DEADLINE;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            let event = events
                .recv_timeout(left)
                .expect("no event before the deadline");
            if event.view() == view && !matches!(event, DirEvent::Batch { .. }) {
                return event;
            }
        }
    }

    /// A folder above the shown one moved away, and the same path made again: the view is
    /// told its folder is gone from the path (it kept the old path and listing, and what was
    /// done there went to the new folder).
    #[test]
    fn a_shown_folder_whose_folder_above_moves_is_gone_from_its_path() {
        let tmp = tempfile::tempdir().unwrap();
        let shown = tmp.path().join("g/x/y");
        fs::create_dir_all(&shown).unwrap();
        fs::write(shown.join("seen"), b"").unwrap();
        let (dirs, events) = DirService::start();
        dirs.open(1, shown.clone(), SortSpec::default());
        assert!(matches!(next(&events, 1), DirEvent::Loaded { .. }));
        fs::rename(tmp.path().join("g"), tmp.path().join("moved")).unwrap();
        fs::create_dir_all(&shown).unwrap();
        fs::write(shown.join("another"), b"").unwrap();
        let DirEvent::Gone {
            path,
            nearest,
            renamed,
            ..
        } = next(&events, 1)
        else {
            panic!("not gone")
        };
        assert_eq!(path, shown);
        assert_eq!(nearest.as_deref(), Some(tmp.path().join("g/x").as_path()));
        assert_eq!(renamed, None, "moved elsewhere is not looked for");
    }

    /// A folder above the shown one renamed: the view follows it to its new path.
    #[test]
    fn a_shown_folder_whose_folder_above_is_renamed_is_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let shown = tmp.path().join("g/x/y");
        fs::create_dir_all(&shown).unwrap();
        let (dirs, events) = DirService::start();
        dirs.open(1, shown, SortSpec::default());
        assert!(matches!(next(&events, 1), DirEvent::Loaded { .. }));
        fs::rename(tmp.path().join("g"), tmp.path().join("h")).unwrap();
        let DirEvent::Gone { renamed, .. } = next(&events, 1) else {
            panic!("not gone")
        };
        assert_eq!(renamed, Some(tmp.path().join("h/x/y")));
    }

    #[test]
    fn an_overflow_triggers_a_rescan() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("a"), b"").unwrap();
        let (dirs, events) = DirService::start();
        dirs.open(1, tmp.path().to_owned(), SortSpec::default());
        assert!(matches!(next(&events, 1), DirEvent::Loaded { .. }));
        dirs.tx.send(Msg::Watch(WatchEvent::overflow())).unwrap();
        let DirEvent::Changed {
            listing, change, ..
        } = next(&events, 1)
        else {
            panic!()
        };
        assert!(change.rescanned);
        assert_eq!(listing.len(), 1);
        assert_eq!(listing.dir(), tmp.path());
    }
}
