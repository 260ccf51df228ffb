//! A big folder's children stat'ed while the walk is still reading it.
//!
//! The walk reads a folder whole, then stats its children on two threads. Reading 5,000
//! names took 2.3 ms of a 10 ms plan (a 5,000-file copy on tmpfs) with the second thread not
//! yet started; now a thread stats the names in batches as the walk reads them, and the walk
//! joins in once it has read the last one. Only copies and moves (a delete stats only
//! folders), only folders whose size says they hold hundreds of entries (tmpfs counts 20
//! bytes an entry, ext4 a block per few hundred), and only the first [`STAT_CHUNK`] names:
//! the rest are stat'ed as before, a chunk at a time, so the memory held stays bounded.
//! Measured on that copy, 40 interleaved runs: planning 9.2 -> 8.3 ms (median).

use std::ffi::OsStr;
use std::thread::{Scope, ScopedJoinHandle};

use crossbeam_channel::{Receiver, Sender};
use rustix::fd::OwnedFd;

use super::walk::{STAT_CHUNK, STAT_SHARE};
use crate::fs::{self, Meta, NameList};

/// Folders at least this large (`st_size`) are stat'ed ahead.
pub(super) const BIG_FOLDER_BYTES: u64 = 8192;

type Stats = Vec<rustix::io::Result<Meta>>;

/// Names handed to the stat thread: the first's position among the folder's children.
struct Names {
    first: u32,
    list: NameList,
}

impl Names {
    fn new(first: u32) -> Self {
        Names {
            first,
            list: NameList::default(),
        }
    }

    fn stat(&self, dir: &OwnedFd) -> (u32, Stats) {
        let stats = self
            .list
            .iter()
            .map(|name| fs::stat_at(dir, name))
            .collect();
        (self.first, stats)
    }
}

/// The walk's side while it reads a folder.
pub(super) struct StatAhead<'scope> {
    dir: &'scope OwnedFd,
    batch: Names,
    /// Names handed over so far.
    fed: u32,
    /// The listing failed and is read again: what was stat'ed is not used.
    spoiled: bool,
    to_stat: Option<Sender<Names>>,
    queued: Receiver<Names>,
    helper: ScopedJoinHandle<'scope, Vec<(u32, Stats)>>,
}

impl<'scope> StatAhead<'scope> {
    /// Starts the stat thread in `scope` for the children of `dir`.
    pub(super) fn start<'env>(scope: &'scope Scope<'scope, 'env>, dir: &'scope OwnedFd) -> Self {
        let (to_stat, queued) = crossbeam_channel::unbounded::<Names>();
        let received = queued.clone();
        let helper = crate::cpus::spawn_scoped(scope, move || {
            received.iter().map(|n| n.stat(dir)).collect()
        });
        StatAhead {
            dir,
            batch: Names::new(0),
            fed: 0,
            spoiled: false,
            to_stat: Some(to_stat),
            queued,
            helper,
        }
    }

    /// The walk read `name`, the next child.
    pub(super) fn add(&mut self, name: &OsStr) {
        if self.spoiled || self.fed >= STAT_CHUNK {
            return;
        }
        self.batch.list.push(name);
        self.fed += 1;
        if self.batch.list.len() >= STAT_SHARE || self.fed == STAT_CHUNK {
            self.send();
        }
    }

    fn send(&mut self) {
        let batch = std::mem::replace(&mut self.batch, Names::new(self.fed));
        if let Some(to_stat) = &self.to_stat {
            // The thread outlives the sender: a send cannot fail.
            let _ = to_stat.send(batch);
        }
    }

    /// The listing failed: it is read again, and stat'ed as usual.
    pub(super) fn spoil(&mut self) {
        self.spoiled = true;
    }

    /// Stats what is still queued alongside the thread, then returns the `statx` of the
    /// first children in order (at most [`STAT_CHUNK`] of them); `None` if the listing had
    /// to be read again.
    pub(super) fn finish(mut self) -> Option<Stats> {
        if !self.batch.list.is_empty() {
            self.send();
        }
        self.to_stat = None;
        let mut parts: Vec<(u32, Stats)> = self.queued.iter().map(|n| n.stat(self.dir)).collect();
        match self.helper.join() {
            Ok(theirs) => parts.extend(theirs),
            Err(panic) => std::panic::resume_unwind(panic),
        }
        if self.spoiled {
            return None;
        }
        parts.sort_unstable_by_key(|(first, _)| *first);
        Some(parts.into_iter().flat_map(|(_, stats)| stats).collect())
    }
}
