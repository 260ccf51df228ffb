//! A folder's children read into the plan, and `statx`'d (on two threads for a large
//! folder): what the walk (`walk.rs`) then examines one by one.

use rustix::fd::OwnedFd;
use rustix::io::Errno;

use super::super::Mode;
use super::super::stat_ahead::StatAhead;
use super::{PARALLEL_STAT_MIN, Planner, STAT_SHARE};
use crate::entry::Kind;
use crate::error::Error;
use crate::fs::{self, Meta};

impl Planner<'_> {
    /// Reads folder `dir` (open as `fd`) whole into the plan as items from `start`, handing
    /// each name to `feed` as it is read.
    pub(super) fn list(
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
    pub(super) fn stat_children(
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
            let second = crate::cpus::spawn_scoped(s, take);
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
}
