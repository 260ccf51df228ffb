//! The undo of a move run again after it was killed while putting an item back across file
//! systems. That put-back is an engine move: it copies the item whole to its old place, then
//! removes what it copied from, each file renamed aside first (`remove.rs`). Killed in
//! between, it leaves the item whole at its old place and partly still where the job had
//! moved it, a file perhaps under a `.ferry-moving-…` name; nothing in the journal says so
//! (an undo records only its end). Run again, the undo would find the old place taken and
//! the user would get a conflict, or, merging, every file twice.
//!
//! So before an item goes back, what is left of it is compared with what is at its old
//! place: when every file and link left (one set aside by a process that is gone counting
//! under its own name) has an identical copy at the same place there ("identical" as for a
//! resume: size, mtime and sampled bytes, `recovery.rs`), and every folder a folder, the
//! put-back was complete and only its removal is finished: once the old place's file system
//! is synced, what is left is removed, files before their folders. Anything else left there
//! (a file changed or added since) and the item goes back as usual, taken place and all.

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};

use super::aside::{self, Original};
use super::control::JobCtx;
use super::recovery::is_copy_of;
use super::summary::fail;
use super::{RecordEntry, Summary};
use crate::error::Error;

/// Whether the item of `entry` (a move's) is back whole at its source, after an undo killed
/// while removing what is left of it at its destination: that undo, run again, finishes the
/// removal, and the source is not a place taken.
pub fn went_back_whole(entry: &RecordEntry) -> bool {
    left_behind(&entry.dest, &entry.source).is_some()
}

/// What is left at `at` of an item put back whole at `back`: the paths to remove, children
/// before their folders; `None` when `back` is missing or anything left differs from it.
pub(super) fn left_behind(at: &Path, back: &Path) -> Option<Vec<PathBuf>> {
    let (a, b) = (
        fs::symlink_metadata(at).ok()?,
        fs::symlink_metadata(back).ok()?,
    );
    let mut left = Vec::new();
    if a.is_dir() && b.is_dir() {
        for entry in fs::read_dir(at).ok()? {
            let entry = entry.ok()?;
            let name = entry.file_name();
            let own = own_name(&name)?;
            left.extend(left_behind(&entry.path(), &back.join(own))?);
        }
    } else if !is_copy_of(at, &a, back, &b) {
        return None;
    }
    left.push(at.to_path_buf());
    Some(left)
}

/// The name `name` stands for: its own, or the one a dead process set it aside from.
fn own_name(name: &OsStr) -> Option<&OsStr> {
    match aside::original_of_dead(name) {
        Some(Original::Named(own)) => Some(own),
        Some(Original::Unknown) => None, // cannot be compared with anything
        None => Some(name),
    }
}

/// The file a dead process set aside in the folder of `at` while putting it back, if any.
pub(super) fn set_aside_from(at: &Path) -> Option<PathBuf> {
    let (folder, own) = (at.parent()?, at.file_name()?);
    fs::read_dir(folder).ok()?.flatten().find_map(|entry| {
        let name = entry.file_name();
        let from = aside::original_of_dead(&name)?;
        (from == Original::Named(own)).then(|| entry.path())
    })
}

/// Removes `left` (from [`left_behind`]), once `back`'s file system holds the copies on
/// disk, and counts `item` as done; stops at the first that cannot be removed.
pub(super) fn finish(
    ctx: &JobCtx,
    summary: &mut Summary,
    item: &Path,
    back: &Path,
    left: &[PathBuf],
) {
    let synced = fs::File::open(back).and_then(|f| Ok(rustix::fs::syncfs(&f)?));
    if let Err(e) = synced {
        return fail(ctx, summary, back, Error::io("flush", back, e));
    }
    for path in left {
        let removed = match fs::symlink_metadata(path) {
            Ok(m) if m.is_dir() => fs::remove_dir(path),
            _ => fs::remove_file(path),
        };
        if let Err(e) = removed {
            return fail(ctx, summary, path, Error::io("remove", path, e));
        }
    }
    ctx.counters.add_item();
    summary.done.push(item.to_path_buf());
}
