//! The undo of a move run again after it was killed while putting an item back across file
//! systems. That put-back is an engine move: it copies the item to its old place, then
//! removes what it copied from, each file renamed aside first (`remove.rs`). Nothing in the
//! journal says an undo was under way (it records only its end), and run again it would
//! meet its own put-back at the old place as a place taken: the user would get a conflict,
//! or, merging, every file twice. So before an item goes back, the two places are compared
//! ("identical" as for a resume: size, mtime and every byte, `recovery.rs`):
//!
//! - Killed while removing: every file and link left at the destination (one set aside by a
//!   process that is gone counting under its own name) has an identical copy at the same
//!   place in the old one, every folder a folder. The put-back was complete: once the old
//!   place's file system is synced, what is left is removed, files before their folders.
//! - Killed while copying: everything at the old place is such a copy of what is at the
//!   destination, or a temporary the killed copy was making (`.ferry-tmp-<pid>-…` of a
//!   process no longer running: a link, FIFO or device before its rename into place). That
//!   part copy is removed (all of it is still at the destination) and the item goes back as
//!   usual.
//!
//! Anything else (a file changed or added since, on either side) and the item goes back as
//! usual, taken place and all, with nothing removed.
//!
//! A link moved on its own was being made under a temporary name beside its old place: where
//! the journal names the killed run's process (`undo_started`), its temporaries are removed
//! from the folders the items go back to, first.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::aside::{self, Original};
use super::control::JobCtx;
use super::recovery::{self, is_copy_of};
use super::summary::fail;
use super::{RecordEntry, Summary};
use crate::error::Error;

/// What an undo of a move, killed while putting an item back, left of it.
pub(super) enum KilledPutBack {
    /// The item is back whole; these paths are what is left where the move had put it.
    Removing(Vec<PathBuf>),
    /// These paths, at the item's old place, are a part copy of what is still where the
    /// move had put it.
    Copying(Vec<PathBuf>),
}

/// What a killed undo left of the item whose old place is `source`, when what is left of it
/// where the move put it is at `at` (its destination, or a name set aside beside it: a
/// part copy is looked for only when `at` is the destination itself); `None`: no such undo.
pub(super) fn killed_put_back(at: &Path, source: &Path, at_is_dest: bool) -> Option<KilledPutBack> {
    if let Some(left) = left_behind(at, source) {
        return Some(KilledPutBack::Removing(left));
    }
    at_is_dest
        .then(|| left_behind(source, at))
        .flatten()
        .map(KilledPutBack::Copying)
}

/// Whether the places of `entry` (a move's) hold what an undo of it killed while putting it
/// back left: the undo run again finishes or redoes that put-back, and the source is not a
/// place taken.
pub fn put_back_interrupted(entry: &RecordEntry) -> bool {
    killed_put_back(&entry.dest, &entry.source, true).is_some()
}

/// What is at `at` of an item that is whole at `back` (every file an identical copy of the
/// one at its place there): the paths to remove, children before their folders; `None` when
/// `back` is missing or anything at `at` differs from it.
fn left_behind(at: &Path, back: &Path) -> Option<Vec<PathBuf>> {
    let (a, b) = (
        fs::symlink_metadata(at).ok()?,
        fs::symlink_metadata(back).ok()?,
    );
    let mut left = Vec::new();
    if a.is_dir() && b.is_dir() {
        // Read whole before going down, so that a deep tree does not hold a descriptor a level.
        let entries: Vec<fs::DirEntry> = fs::read_dir(at).ok()?.collect::<Result<_, _>>().ok()?;
        for entry in entries {
            let name = entry.file_name();
            // Met as a name of its own, it made the whole part copy a place taken.
            if dead_temporary(&name) && !entry.file_type().is_ok_and(|t| t.is_dir()) {
                left.push(entry.path());
                continue;
            }
            let own = own_name(&name)?;
            left.extend(left_behind(&entry.path(), &back.join(own))?);
        }
    } else if !is_copy_of(at, &a, back, &b, None) {
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

/// Whether `name` is a named temporary (`.ferry-tmp-<pid>-…`) of a process no longer
/// running: what a killed copy was making, never the user's.
pub(super) fn dead_temporary(name: &OsStr) -> bool {
    let prefix = super::journal::TEMPORARY_PREFIX.as_bytes();
    let Some(rest) = name.as_bytes().strip_prefix(prefix) else {
        return false;
    };
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let pid = std::str::from_utf8(&rest[..digits])
        .ok()
        .and_then(|p| p.parse().ok());
    // Start time 0: any process of that number counts as running.
    rest.get(digits) == Some(&b'-') && pid.is_some_and(|pid| !super::journal::is_alive(pid, 0))
}

/// Removes the links, FIFOs and devices that a killed run of an undo, by process `pid`, was
/// making under temporary names in the folders the top-level items of `entries` go back
/// to (those inside an item's own tree are part of its part copy: [`killed_put_back`]).
/// Nothing is touched while any process has that number.
pub(super) fn remove_temporaries(entries: &[RecordEntry], pid: u32) {
    if super::journal::is_alive(pid, 0) {
        return;
    }
    let prefix = super::journal::temp_prefix(pid);
    let folders: std::collections::BTreeSet<&Path> = (entries.iter())
        .filter(|e| e.top_level)
        .filter_map(|e| e.source.parent())
        .collect();
    for folder in folders {
        let Ok(read) = fs::read_dir(folder) else {
            continue;
        };
        for entry in read.flatten() {
            let temporary = entry.file_name().as_bytes().starts_with(prefix.as_bytes());
            if temporary && !entry.file_type().is_ok_and(|t| t.is_dir()) {
                // Best effort: one left is a stray hidden name, never the user's data.
                let _ = fs::remove_file(entry.path());
            }
        }
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
    if recovery::copies_durable(ctx, summary, back) && remove(ctx, summary, left) {
        ctx.counters.add_item();
        summary.done.push(item.to_path_buf());
    }
}

/// Removes `paths`, files and empty folders in that order; false, said in `summary`, at the
/// first that cannot be removed.
pub(super) fn remove(ctx: &JobCtx, summary: &mut Summary, paths: &[PathBuf]) -> bool {
    for path in paths {
        let removed = match fs::symlink_metadata(path) {
            Ok(m) if m.is_dir() => fs::remove_dir(path),
            _ => fs::remove_file(path),
        };
        if let Err(e) = removed {
            fail(ctx, summary, path, Error::io("remove", path, e));
            return false;
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_temporaries_of_a_process_that_is_gone_are_left_over() {
        // Above the kernel's highest process number (2^22): never running.
        assert!(dead_temporary(".ferry-tmp-4194305-1-7".as_ref()));
        let running = format!(".ferry-tmp-{}-1-7", std::process::id());
        assert!(!dead_temporary(running.as_ref()), "this process is running");
        for other in [".ferry-tmp-", ".ferry-tmp-x-1", ".ferry-tmp-4194305", "doc"] {
            assert!(!dead_temporary(other.as_ref()), "{other}");
        }
    }
}
