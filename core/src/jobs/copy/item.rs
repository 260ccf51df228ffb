//! One item of a copy, on a worker or the job thread: a file written unnamed (or under a
//! temporary or resumable name) and committed, a link or special file made, and a folder
//! given its attributes, mode and times once its last child is written (see `copy.rs`).

use std::sync::atomic::Ordering::Relaxed;

use rustix::fd::{AsFd, BorrowedFd, OwnedFd};
use rustix::io::Errno;

use super::{Batch, Copier, DirDone, Outcome};
use crate::entry::Kind;
use crate::error::Error;
use crate::fs::{self, DataCopier, DataError};
use crate::jobs::fresh;
use crate::jobs::partial::PART_MIN_SIZE;
use crate::jobs::plan::Action;
use crate::jobs::{NoteKind, SkipReason};

impl Copier<'_> {
    /// Copies item `i` of `batch` (on a worker, or on the job thread), and finishes its folder
    /// if it was the last item the folder waited for.
    pub(super) fn work(&self, copier: &mut DataCopier<'_>, batch: &Batch, i: u32) {
        // Once the job is stopping, items are only drained.
        if self.ctx.control.checkpoint() {
            self.ctx.counters.current.store(i, Relaxed);
            loop {
                match self.copy_item(copier, batch, i) {
                    Ok(Outcome::Done(ino)) => {
                        self.done[i as usize].store(ino, Relaxed);
                        self.ctx.counters.add_item();
                        crate::fault::point("item-done");
                    }
                    Ok(Outcome::Skipped(reason)) => {
                        self.ctx.skip(i, self.plan.source_path(i), reason);
                    }
                    Ok(Outcome::Asked | Outcome::Stopped) => {}
                    Err(e) => {
                        let e = self.or_folder_removed(&batch.dst, i, e);
                        if self.ctx.fail_or_retry(i, self.plan.source_path(i), e) {
                            continue;
                        }
                    }
                }
                break;
            }
        }
        // Drained or not, a link waiting for this copy may go on (`links.rs`).
        self.settled(i);
        if let Some(d) = &batch.dir
            && d.pending.fetch_sub(1, Relaxed) == 1
        {
            self.finish_dir(d, &batch.src, &batch.dst);
        }
    }

    /// Gives a created folder (`fd`) the extended attributes and ACLs of its source (`src`),
    /// and its final mode and times, once everything inside is written: a default ACL set
    /// before would have passed to what was copied into it. Attributes the destination
    /// cannot hold are a note of the job, not a failure. A folder filled under a hidden
    /// name is then renamed to its own.
    pub(super) fn finish_dir(&self, done: &DirDone, src: &OwnedFd, fd: &OwnedFd) {
        let i = done.item;
        if done.hidden.is_some() {
            // Before anything it holds can be replaced: its mode is still 0700, its tree hidden.
            self.read_inodes(done, fd);
        }
        // Made with its parent's default ACL, if it has one: then its own two are inherited.
        let inherited: &[&str] = if fs::may_have_default_acl(fd) {
            &[fs::ACCESS_ACL, fs::DEFAULT_ACL]
        } else {
            &[]
        };
        if let Err(e) = fs::copy_xattrs(src, fd, inherited) {
            self.ctx.note_xattrs(self.plan.dest_path(i), e);
        }
        let item = self.plan.item(i);
        let owned = (item.uid, item.gid);
        let owner = self.give_owner(i, owned, done.gid, |uid, gid| {
            fs::set_owner_fd(fd, uid, gid)
        });
        let owner = owner.unwrap_or_else(|e| {
            self.ctx.fail(i, self.plan.source_path(i), e);
            self.as_created(owned, done.gid)
        });
        let inherited = if done.inherits_group { 0o2000 } else { 0 };
        let mode = self.mode_of(i, u32::from(item.mode), owner) | inherited;
        let set = self.set_mode(fd, mode, i).and_then(|()| {
            let set = fs::set_times_fd(fd, item.atime, item.mtime);
            self.metadata(i, NoteKind::Times, set)
        });
        if let Err(e) = set {
            let error = Error::io(
                "set the permissions and times of",
                self.plan.dest_path(i),
                e,
            );
            self.ctx.fail(i, self.plan.source_path(i), error);
        }
        if let Some(hidden) = &done.hidden {
            self.finished_in(hidden);
        }
    }

    fn copy_item(
        &self,
        copier: &mut DataCopier<'_>,
        batch: &Batch,
        i: u32,
    ) -> Result<Outcome, Error> {
        match self.plan.item(i).kind {
            Kind::File => self.copy_file(copier, batch, i),
            Kind::Symlink => self.copy_symlink(batch, i),
            Kind::Fifo | Kind::Socket | Kind::CharDevice | Kind::BlockDevice => {
                self.copy_node(batch, i)
            }
            kind => Ok(Outcome::Skipped(SkipReason::Special(kind))),
        }
    }

    fn copy_file(
        &self,
        copier: &mut DataCopier<'_>,
        batch: &Batch,
        i: u32,
    ) -> Result<Outcome, Error> {
        let item = self.plan.item(i);
        let src = fs::open_file_at(&*batch.src, self.plan.name(i)).map_err(|e| match e {
            // Not followed: a link put in the file's place since it was planned.
            Errno::LOOP => Error::Changed {
                path: self.plan.source_path(i),
            },
            e => Error::io("open", self.plan.source_path(i), e),
        })?;
        let meta = fs::stat_fd(&src).map_err(|e| Error::io("stat", self.plan.source_path(i), e))?;
        if meta.kind != Kind::File || meta.id != item.id {
            return Err(Error::Changed {
                path: self.plan.source_path(i),
            });
        }
        if let Some(seq) = self.ctx.journal_seq.filter(|_| meta.size >= PART_MIN_SIZE) {
            return self.copy_large(copier, batch, i, (&src, &meta), seq);
        }
        // Replace needs a name to rename over the old file; everything else is linked in.
        let unnamed = item.action != Action::Replace && self.try_unnamed.load(Relaxed);
        let mode = self.mode_of(
            i,
            meta.mode,
            self.as_created((meta.uid, meta.gid), batch.group),
        );
        let (temp, dst) = if batch.named {
            match self.create_named(batch, i, mode) {
                Ok((temp, fd)) => (Some(temp), fd),
                Err(Errno::EXIST) => return self.taken(&batch.dst, i),
                Err(e) => return Err(Error::io("create", self.plan.dest_path(i), e)),
            }
        } else {
            match unnamed.then(|| fs::create_unnamed_in(&*batch.dst, mode)) {
                Some(Ok(fd)) => (None, fd),
                Some(Err(Errno::OPNOTSUPP | Errno::ISDIR | Errno::INVAL)) | None => {
                    self.try_unnamed.store(false, Relaxed);
                    let (temp, fd) =
                        self.temp(batch, i, |dir, name| fs::create_private_at(dir, name))?;
                    (Some(temp), fd)
                }
                Some(Err(e)) => return Err(Error::io("create", self.plan.dest_path(i), e)),
            }
        };
        let mut copied = 0u64;
        let result = copier.copy(&src, &dst, &meta, &mut |n| {
            copied += n;
            self.ctx.counters.add_bytes(n);
            self.ctx.control.checkpoint()
        });
        let size = match result {
            Ok((size, _)) => size,
            Err(e) => {
                self.ctx.counters.bytes.fetch_sub(copied, Relaxed);
                return match e {
                    DataError::Stopped => Ok(Outcome::Stopped),
                    DataError::Io { op, errno } => Err(self.data_error(i, op, errno)),
                };
            }
        };
        // A link's target needs its inode now (`links.rs`); other copies in a hidden folder
        // are known without asking (`fresh.rs`).
        let created = (batch.modes_known && !self.plan.links.is_first(i, item.id))
            .then(|| fresh::created_hidden(mode, size, batch.group))
            .flatten();
        let ino = self.finish_file(&src, &dst, &meta, i, (created, batch.inherits_acl))?;
        let Some(temp) = temp else {
            return match fs::link_unnamed(&dst, &*batch.dst, self.plan.dest_name(i)) {
                Ok(()) => Ok(Outcome::Done(ino)),
                Err(Errno::EXIST) => self.taken_after_writing(&batch.dst, i, copied),
                // No /proc on a kernel that wants it, or no hard links on this file system:
                // name files the classic way from now on, this one included.
                Err(Errno::NOENT | Errno::PERM | Errno::OPNOTSUPP | Errno::MLINK) => {
                    self.try_unnamed.store(false, Relaxed);
                    self.ctx.counters.bytes.fetch_sub(copied, Relaxed);
                    drop(dst);
                    self.copy_file(copier, batch, i)
                }
                Err(e) => Err(Error::io("create", self.plan.dest_path(i), e)),
            };
        };
        drop(dst);
        if batch.named {
            let mut temp = temp;
            temp.armed = false;
            return Ok(Outcome::Done(ino));
        }
        self.commit(batch, temp, i, (ino, copied))
    }

    /// `error` from writing item `i` into the folder `dir`, or [`Error::FolderRemoved`] when
    /// that folder is gone (creating in a removed folder fails with ENOENT, or EPERM).
    pub(in crate::jobs) fn or_folder_removed(&self, dir: impl AsFd, i: u32, error: Error) -> Error {
        match error.raw_os_error() {
            Some(_) => self.folder_removed(dir, i).unwrap_or(error),
            None => error,
        }
    }

    /// [`Error::FolderRemoved`] if `dir`, the folder item `i` is written into, has been
    /// removed (it has no links left): the job's destination, if that went with it (named so,
    /// not by a folder of the job's own below it), or that folder.
    pub(in crate::jobs) fn folder_removed(&self, dir: impl AsFd, i: u32) -> Option<Error> {
        let removed = |fd: BorrowedFd<'_>| fs::stat_fd(fd).is_ok_and(|m| m.nlink == 0);
        if !removed(dir.as_fd()) {
            return None;
        }
        if removed(self.dest.fd.as_fd()) {
            return Some(Error::FolderRemoved {
                path: self.dest.path.clone(),
                destination: true,
            });
        }
        Some(Error::FolderRemoved {
            path: self.plan.dest_path(i).parent()?.to_owned(),
            destination: false,
        })
    }

    pub(in crate::jobs) fn data_error(&self, i: u32, op: &'static str, errno: Errno) -> Error {
        let at_dest = op == "write" || matches!(errno, Errno::NOSPC | Errno::DQUOT | Errno::FBIG);
        match (op, at_dest) {
            (_, true) => Error::io("write", self.plan.dest_path(i), errno),
            ("copy", false) => Error::io("copy", self.plan.source_path(i), errno),
            _ => Error::io("read", self.plan.source_path(i), errno),
        }
    }
}
