//! Hard links kept by the undo of a move across file systems.
//!
//! A move keeps the names of one file linked at its destination, as `mv` does. Its undo puts
//! the items back in one plan per folder they came from (`put_back.rs` plans a folder opened
//! by the undo on its own, so that nothing goes through a link swapped in for it), and a plan
//! links only the names it holds: `mv a/f a/x/g /other-disk` then `ferry undo` left `f` and
//! `g` two files, and a redo moved two files. Here the names the job had linked (one
//! identity at its destination) that came back as separate copies are linked again: each copy
//! that is still the one the undo made is replaced by a link to the first, made under a
//! temporary name and renamed over it, so that its name never goes missing.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;

use super::control::JobCtx;
use super::summary::fail;
use super::undo::is_still;
use super::{RecordEntry, Summary};
use crate::entry::Kind;
use crate::error::Error;
use crate::fs::{self, FileId, Timestamp};

/// A file the undo put back, as it left it.
#[derive(Clone, Copy, PartialEq, Eq)]
struct PutBack {
    id: FileId,
    size: u64,
    mtime: Timestamp,
}

/// Links again the names of `entries` (the undone job's record) that were one file at the
/// job's destination and that `put` (what the undo did) made separate copies of.
pub(crate) fn relink(ctx: &JobCtx, summary: &mut Summary, entries: &[RecordEntry], put: &Summary) {
    let mut names: HashMap<FileId, Vec<&Path>> = HashMap::new();
    for e in entries.iter().filter(|e| e.kind == Kind::File) {
        names.entry(e.id).or_default().push(&e.source);
    }
    names.retain(|_, paths| paths.len() > 1);
    if names.is_empty() {
        return;
    }
    let made: HashMap<PathBuf, PutBack> = (put.record.entries())
        .filter(|e| e.kind == Kind::File)
        .map(|e| {
            let at = PutBack {
                id: e.id,
                size: e.size,
                mtime: e.mtime,
            };
            (e.dest, at)
        })
        .collect();
    for paths in names.values() {
        // The names whose file is still the copy the undo made there.
        let copies: Vec<(&Path, PutBack)> = (paths.iter())
            .filter_map(|&p| made.get(p).map(|&at| (p, at)))
            .filter(|(p, at)| is_still(p, at.id))
            .collect();
        let Some(&(first, kept)) = copies.first() else {
            continue;
        };
        for &(path, at) in &copies[1..] {
            let alike = at.id.dev == kept.id.dev && (at.size, at.mtime) == (kept.size, kept.mtime);
            if at.id == kept.id || !alike {
                continue;
            }
            match link_over(first, kept.id, path, at.id) {
                // No hard links there (FAT), too many, or either name changed since: left
                // as the copies they are.
                Ok(()) | Err(Errno::PERM | Errno::OPNOTSUPP | Errno::MLINK | Errno::AGAIN) => {}
                Err(e) => fail(ctx, summary, path, Error::io("link", path, e)),
            }
        }
    }
}

/// Replaces the file `path` (still `was`) by a link to the file at `first` (still `to`).
fn link_over(first: &Path, to: FileId, path: &Path, was: FileId) -> Result<(), Errno> {
    let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let target = rustix::fs::openat(rustix::fs::CWD, first, flags, Mode::empty())?;
    if fs::stat_fd(&target)?.id != to {
        return Err(Errno::AGAIN);
    }
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(Errno::INVAL);
    };
    let dir = fs::open_dir_path(parent)?;
    let mut temp = OsString::from(format!(".ferry-link-{}-", std::process::id()));
    temp.push(name);
    fs::link_unnamed(&target, &dir, &temp)?;
    let renamed = match fs::stat_at(&dir, name) {
        Ok(m) if m.id == was => rustix::fs::renameat(&dir, &temp, &dir, name),
        Ok(_) => Err(Errno::AGAIN),
        Err(e) => Err(e),
    };
    if renamed.is_err() {
        let _ = rustix::fs::unlinkat(&dir, &temp, AtFlags::empty());
    }
    renamed
}
