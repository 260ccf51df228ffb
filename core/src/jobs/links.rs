//! Hard links among the items of a copy or move (see `HardLinks` in `plan.rs`): the first
//! name of a file is copied by a worker like any file; each other name is linked to that copy
//! by the job thread, when it reaches it, once the copy is done.
//!
//! The job thread reaches a link after the copy it links to was handed out (the plan lists a
//! file's names in the order it dispatches them), so it waits only for a copy in flight:
//! it first sends the batch being filled if that is where the copy is, then claims the copy
//! itself if no worker has yet (`claim.rs`: it does the items of that batch up to it). So the
//! copy is done or under way on a worker, the workers never wait for the job thread, and the
//! wait always ends. What is linked to is opened without following a
//! link and checked (the inode the copy was given, or for a copy made by an interrupted run,
//! the source's size and mtime), then linked by descriptor: the link is to exactly the file
//! checked.
//!
//! A copy that was not made (failed, skipped, its name taken since planning) leaves the next
//! name of its file to be copied instead, and the rest linked to that one; so does a link the
//! destination refuses (no hard links on FAT, another file system below a merged folder, too
//! many links). A link replacing something moves it to the staging folder first, as any
//! Replace. Each name is an item of its own: done, skipped or failed, recorded for undo with
//! the inode it shares, and counted once in the items done but never in the bytes copied.

use std::collections::HashMap;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use rustix::fd::OwnedFd;
use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;

use super::copy::{Copier, Outcome};
use super::plan::{Action, LinkTo};
use super::{NoteKind, lock};
use crate::entry::Kind;
use crate::error::Error;
use crate::fs;

/// How often a job thread waiting for a copy looks at the cancel flag without a wake-up.
const POLL: Duration = Duration::from_millis(50);

/// The copies other names are linked to, while the workers make them.
#[derive(Default)]
pub(super) struct Firsts {
    /// Copies handed to the workers: false until done with (made or not).
    settled: Mutex<HashMap<u32, bool>>,
    changed: Condvar,
    /// A copy that was not made, and the name copied in its place.
    instead: Mutex<HashMap<u32, u32>>,
}

/// The copy a link is made to, as checked before linking.
enum Target {
    /// An item's copy, with the inode it was given.
    Item(u32, u64),
    /// A copy an interrupted run made, which must still have the source's size and mtime.
    Path(std::path::PathBuf),
}

impl Copier<'_> {
    /// The copy item `c` waits for before being linked to it, if it is a link to one.
    pub(super) fn waits_for(&self, c: u32) -> Option<u32> {
        match self.plan.links.of(c) {
            Some(LinkTo::Item(first)) => Some(self.in_place_of(*first)),
            _ => None,
        }
    }

    /// Links file `c` into `dir` (the job thread, when it reaches it); false when it is to be
    /// copied instead, like any file (it is then what the rest of its file's names link to).
    pub(super) fn link(&self, dir: &OwnedFd, c: u32) -> bool {
        if self.plan.links.is_empty() {
            return false;
        }
        let target = match self.plan.links.of(c) {
            None => {
                if self.plan.links.is_first(c, self.plan.item(c).id) {
                    self.handed_out(c);
                }
                return false;
            }
            Some(LinkTo::Path(path)) => Target::Path(path.clone()),
            Some(&LinkTo::Item(first)) => {
                let first = self.in_place_of(first);
                self.wait(first);
                match self.done[first as usize].load(Relaxed) {
                    0 => return self.copy_instead(first, c),
                    ino => Target::Item(first, ino),
                }
            }
        };
        loop {
            let outcome = match self.link_to(dir, c, &target) {
                Ok(Some(outcome)) => outcome,
                // The other names of a file an interrupted run copied each try that copy.
                Ok(None) => match target {
                    Target::Item(first, _) => return self.copy_instead(first, c),
                    Target::Path(_) => return false,
                },
                Err(e) => {
                    if self.ctx.fail_or_retry(c, self.plan.source_path(c), e) {
                        continue;
                    }
                    return true;
                }
            };
            match outcome {
                Outcome::Done(ino) => {
                    self.done[c as usize].store(ino, Relaxed);
                    self.ctx.counters.add_item();
                }
                Outcome::Skipped(reason) => self.ctx.skip(c, self.plan.source_path(c), reason),
                Outcome::Asked | Outcome::Stopped => {}
            }
            return true;
        }
    }

    /// Makes `c` a link to `target`; `None` when the destination cannot (it is copied).
    fn link_to(&self, dir: &OwnedFd, c: u32, target: &Target) -> Result<Option<Outcome>, Error> {
        let item = self.plan.item(c);
        let opened = match target {
            Target::Item(first, _) => self.open_copy(*first),
            Target::Path(path) => {
                let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
                rustix::fs::openat(rustix::fs::CWD, path, flags, Mode::empty()).ok()
            }
        };
        let Some(fd) = opened else {
            return Ok(None); // gone since: copy it
        };
        let Ok(meta) = fs::stat_fd(&fd) else {
            return Ok(None);
        };
        let same = meta.kind == Kind::File
            && match target {
                Target::Item(_, ino) => meta.id.ino == *ino,
                Target::Path(_) => meta.size == item.size && meta.mtime == item.mtime,
            };
        if !same {
            return Ok(None); // not the copy any more
        }
        let staged = match item.action {
            Action::Replace => self.stash(dir, c)?,
            _ => None,
        };
        let linked = fs::link_unnamed(&fd, dir, self.plan.dest_name(c));
        self.settle(staged, linked, dir, c)?;
        match linked {
            Ok(()) => {
                crate::fault::point("linked");
                Ok(Some(Outcome::Done(meta.id.ino)))
            }
            Err(Errno::EXIST) => self.taken(dir, c).map(Some),
            // No hard links here (FAT): a copy instead, and said (`cp -a` says it too).
            Err(e @ (Errno::PERM | Errno::OPNOTSUPP)) => {
                self.ctx
                    .note(NoteKind::HardLinks, self.plan.dest_path(c), Some(e));
                Ok(None)
            }
            // Another file system (a mount below a merged folder), too many links: a copy.
            Err(Errno::XDEV | Errno::MLINK | Errno::NOENT) => Ok(None),
            Err(e) => Err(Error::io("link", self.plan.dest_path(c), e)),
        }
    }

    /// The copy was not made (or cannot be linked to): `c` is copied in its place.
    fn copy_instead(&self, first: u32, c: u32) -> bool {
        lock(&self.firsts.instead).insert(first, c);
        self.handed_out(c);
        false
    }

    /// What stands for copy `first` now (a name copied in the place of one not made).
    fn in_place_of(&self, mut first: u32) -> u32 {
        let instead = lock(&self.firsts.instead);
        while let Some(&next) = instead.get(&first) {
            first = next;
        }
        first
    }

    fn handed_out(&self, c: u32) {
        lock(&self.firsts.settled).insert(c, false);
    }

    /// A worker is done with item `i`: a link waiting for it may go on.
    pub(super) fn settled(&self, i: u32) {
        if self.plan.links.is_empty() {
            return;
        }
        let mut settled = lock(&self.firsts.settled);
        if let Some(s) = settled.get_mut(&i) {
            *s = true;
            self.firsts.changed.notify_all();
        }
    }

    /// Waits until the copy `first` is done with, if it was handed out and the job goes on.
    fn wait(&self, first: u32) {
        let mut settled = lock(&self.firsts.settled);
        while settled.get(&first) == Some(&false) && !self.ctx.control.stopped() {
            settled = self
                .firsts
                .changed
                .wait_timeout(settled, POLL)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}
