//! Permissions kept by the undo of a move across file systems.
//!
//! A destination that holds no permissions (FAT, exFAT: one mode for every file, such as
//! 0777 or 0755) gave the moved items its own, and the undo, copying them back, gave them
//! that mode again: a private 0600 file came back world-writable, a script lost its execute
//! bit. The job records each copy's source mode (`RecordEntry::source_mode`); each item the
//! undo put back, still the one it made, gets that mode back, children before their folder
//! (a folder made unreadable first would hide them).

use std::collections::HashMap;
use std::path::Path;

use rustix::fs::{Mode, OFlags};

use super::control::JobCtx;
use super::summary::fail;
use super::{How, RecordEntry, Summary};
use crate::entry::Kind;
use crate::error::Error;
use crate::fs::{self, FileId};

/// Gives the items `put` (what the undo did) copied back the modes `entries` (the undone
/// job's record) say their sources had.
pub(crate) fn restore_modes(
    ctx: &JobCtx,
    summary: &mut Summary,
    entries: &[RecordEntry],
    put: &Summary,
) {
    let modes: HashMap<&Path, u16> = (entries.iter())
        .filter_map(|e| Some((e.source.as_path(), e.source_mode?)))
        .collect();
    if modes.is_empty() {
        return;
    }
    let copied: Vec<RecordEntry> = (put.record.entries())
        .filter(|e| e.how == How::Created && e.kind != Kind::Symlink)
        .collect();
    for e in copied.iter().rev() {
        let Some(&mode) = modes.get(e.dest.as_path()) else {
            continue;
        };
        if let Err(err) = set_mode(&e.dest, e.id, u32::from(mode)) {
            fail(
                ctx,
                summary,
                &e.dest,
                Error::io("set the permissions of", &e.dest, err),
            );
        }
    }
}

/// Gives `path`, if it is still `id`, the permission bits `mode`; changed since (a link
/// swapped in, say), it is left alone.
fn set_mode(path: &Path, id: FileId, mode: u32) -> rustix::io::Result<()> {
    let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(rustix::fs::CWD, path, flags, Mode::empty())?;
    let now = fs::stat_fd(&fd)?;
    if now.id != id || now.kind == Kind::Symlink || now.mode & 0o7777 == mode {
        return Ok(());
    }
    // An `O_PATH` descriptor takes no fchmod; its /proc name is the file itself.
    rustix::fs::chmod(fs::proc_path(&fd), Mode::from_raw_mode(mode))
}
