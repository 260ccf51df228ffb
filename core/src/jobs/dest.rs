//! The destination folder of a copy or move, opened and examined once per job: its identity
//! and ancestors (for the into-itself check), its mount and the longest name it takes.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustix::fd::OwnedFd;
use rustix::io::Errno;

use super::Phase;
use super::control::JobCtx;
use super::plan::NO_ITEM;
use super::probe::{self, Caps};
use crate::error::Error;
use crate::fs::{self, FileId, Meta};

/// The destination folder of a copy or move, opened and examined once.
pub(crate) struct Dest {
    pub(crate) fd: Arc<OwnedFd>,
    pub(crate) path: PathBuf,
    pub(crate) meta: Meta,
    /// The folder and its ancestors, for the into-itself check.
    pub(crate) ancestors: Vec<FileId>,
    pub(crate) mount: Option<fs::Mount>,
    /// Longest name the destination takes, in bytes (`f_namelen`).
    pub(crate) name_max: usize,
    /// What its file system holds (probed where its type does not say, see `probe.rs`).
    pub(crate) caps: Caps,
}

impl Dest {
    /// Opens the destination of `ctx`'s job; reads the mount table (once per job). Where its
    /// file system must be probed, the probe (a file created and removed) waits for the job's
    /// journal record to be on disk first, as every write does (`journal/durable.rs`).
    pub(crate) fn open(ctx: &JobCtx, path: &Path) -> Result<Dest, Error> {
        Dest::open_with(path, || ctx.wait_durable())
    }

    /// Opens folder `path` outside of any job (to learn its name rules): a probe is free to
    /// write at once.
    pub(crate) fn open_unjournaled(path: &Path) -> Result<Dest, Error> {
        Dest::open_with(path, || true)
    }

    fn open_with(path: &Path, may_write: impl FnOnce() -> bool) -> Result<Dest, Error> {
        let fd = fs::open_dir_path(path).map_err(|e| match e {
            Errno::NOTDIR => Error::NotADirectory {
                path: path.to_path_buf(),
            },
            e => Error::io("open the destination folder", path, e),
        })?;
        Dest::from_fd_with(Arc::new(fd), path, may_write)
    }

    /// The destination folder `path` of `ctx`'s job, already open as `fd` (walked to without
    /// following links): everything the job writes there goes through `fd`, never through
    /// `path`. A probe waits as for [`open`](Self::open).
    pub(crate) fn from_fd(ctx: &JobCtx, fd: Arc<OwnedFd>, path: &Path) -> Result<Dest, Error> {
        Dest::from_fd_with(fd, path, || ctx.wait_durable())
    }

    /// `may_write` is asked before a probe writes (see `probe::caps`).
    fn from_fd_with(
        fd: Arc<OwnedFd>,
        path: &Path,
        may_write: impl FnOnce() -> bool,
    ) -> Result<Dest, Error> {
        let meta = fs::stat_fd(&*fd).map_err(|e| Error::io("stat", path, e))?;
        let ancestors =
            fs::ancestors(&*fd).map_err(|e| Error::io("read the parents of", path, e))?;
        let mount = fs::MountTable::read().by_id(meta.mnt_id).cloned();
        let name_max = rustix::fs::fstatfs(&*fd).map_or(255, |s| s.f_namelen as usize);
        let fs_type = mount.as_ref().map_or("", |m| m.fs_type.as_str());
        let caps = probe::caps(&fd, fs_type, may_write);
        Ok(Dest {
            caps,
            fd,
            path: path.to_path_buf(),
            meta,
            ancestors,
            mount,
            name_max,
        })
    }

    /// Makes everything the job wrote on the destination's file system durable (`syncfs`),
    /// in the finishing-writes phase. False, with a job-wide failure recorded, if it could not.
    pub(crate) fn flush(&self, ctx: &JobCtx) -> bool {
        ctx.counters.set_phase(Phase::FinishingWrites);
        match rustix::fs::syncfs(&*self.fd) {
            Ok(()) => true,
            Err(e) => {
                let error = Error::io("flush", &self.path, e);
                ctx.fail(NO_ITEM, self.path.clone(), error);
                false
            }
        }
    }

    /// True unless the destination folder was removed during the job (it has no links left,
    /// or its path leads elsewhere), which stops the job (a move then removes no source: their
    /// copies went with it).
    pub(crate) fn still_there(&self, ctx: &JobCtx) -> bool {
        let unlinked = fs::stat_fd(&*self.fd).is_ok_and(|m| m.nlink == 0);
        // FUSE reports no link count of its own for a removed folder: its path must still
        // lead to it (one taken away by a rename counts as gone too, which keeps the sources).
        let moved_off = || match fs::stat_path(&self.path) {
            Ok(m) => m.id != self.meta.id,
            Err(e) => matches!(e, rustix::io::Errno::NOENT | rustix::io::Errno::NOTDIR),
        };
        if !unlinked && !moved_off() {
            return true;
        }
        let error = Error::FolderRemoved {
            path: self.path.clone(),
            destination: true,
        };
        ctx.fail(NO_ITEM, self.path.clone(), error);
        false
    }

    /// Opens folder `dir` of the job, a root's destination folder: the destination itself
    /// when `dir` is its path (through the descriptor examined at the start), another by
    /// its path.
    pub(crate) fn open_dir(&self, dir: &Path) -> rustix::io::Result<(Arc<OwnedFd>, Meta)> {
        if dir == self.path {
            return Ok((Arc::clone(&self.fd), self.meta));
        }
        let fd = fs::open_dir_path(dir)?;
        let meta = fs::stat_fd(&fd)?;
        Ok((Arc::new(fd), meta))
    }
}
