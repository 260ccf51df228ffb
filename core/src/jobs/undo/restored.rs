//! The undo of a restore merged into a folder there: what it moved into that folder goes
//! back into the trashed folder it came from, still in the trash (the rest of it stayed,
//! skipped or asked about), so that the trash holds one entry again, as before the restore.
//! Trashed anew, each item became an entry of its own, with a new date, and a later restore
//! of the folder brought back only what had stayed in it.

use std::collections::HashMap;
use std::path::Path;

use rustix::fs::{CWD, RenameFlags};
use rustix::io::Errno;

use super::is_still;
use crate::entry::Kind;
use crate::error::Error;
use crate::fs;
use crate::jobs::{RecordEntry, TrashRecord, TrashedItem};

/// What became of an item the restore merged into a folder there.
pub(super) enum Back {
    /// Back inside its trashed folder, whose record (for a redo to restore it) this is.
    Inside(TrashRecord),
    /// It could not go back inside: moving it failed.
    Failed(Error),
    /// Its trashed folder is gone or changed, or on another disk: trashed as an item.
    Trashed,
}

/// Puts `entry`'s item (unchanged at its destination) back where the restore took it from,
/// inside the trashed folder of `items` (by their place in the trash) it came out of, when
/// that folder is still the one the restore left and one rename takes it there.
pub(super) fn back_inside(entry: &RecordEntry, items: &HashMap<&Path, &TrashedItem>) -> Back {
    let Some(item) = (entry.source.ancestors().skip(1)).find_map(|a| items.get(a)) else {
        return Back::Trashed;
    };
    let folder_there = entry
        .source
        .parent()
        .is_some_and(|p| fs::stat_at(CWD, p).is_ok_and(|m| m.kind == Kind::Dir));
    if !folder_there || !is_still(&item.file, item.id) {
        return Back::Trashed;
    }
    let moved =
        rustix::fs::renameat_with(CWD, &entry.dest, CWD, &entry.source, RenameFlags::NOREPLACE);
    match moved {
        Ok(()) => Back::Inside(item.as_record()),
        // Another disk, or its name there taken since: an item of its own in the trash.
        Err(Errno::XDEV | Errno::EXIST) => Back::Trashed,
        Err(e) => Back::Failed(Error::io("move back to the trash", &entry.dest, e)),
    }
}
