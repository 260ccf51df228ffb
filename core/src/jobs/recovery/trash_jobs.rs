//! Resume and roll back of the interrupted jobs that keep no per-item record until they
//! finish: trash, restore and rename.
//!
//! Trash: a trash job writes each item's `.trashinfo` file, durably, before it renames the
//! item next to it, so the trash itself already journals what the job did: the entries whose
//! original path is one of the job's paths and whose `DeletionDate` is not before the job
//! began (both whole seconds of the same clock). A journal line per item would cost one more
//! `fdatasync` per item, doubling the cost of trashing many small files, to say what the info
//! files say. An entry trashed from the same path later, by another job, matches too; the
//! earliest is the job's own.
//!
//! Restore: the journal keeps every item (where it was, its trash entry and identity) from
//! the begin line, as its info file goes when it is restored. A restore is a move out of the
//! trash (`put_back.rs`): one rename on one file system; across file systems a copy into the
//! original place, a flush, then the removal of the trashed copy, so after a crash an item is
//! whole in the trash, or whole at its original place, or whole in the trash and in part
//! (files whole) at its original place: then it is resumed or rolled back as an interrupted
//! move is. An item is restored when its trash entry is gone and the original path holds it:
//! the same inode, or on another file system a copy of the same kind, mtime and, for a file,
//! size.
//!
//! Rename: one `renameat2(RENAME_NOREPLACE)`, done or not.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::super::journal::JournalRecord;
use super::super::summary::fail;
use super::super::undo::absorb;
use super::super::{
    ConflictPolicy, Summary, TrashRecord, TrashRoots, TrashedItem, list_trash_in, single, trash,
};
use super::folders;
use crate::entry::Kind;
use crate::error::Error;
use crate::fs::{self, Meta};
use crate::jobs::control::JobCtx;

/// For each of `paths`, the trash entry the job of `record` made of it, if any.
fn trashed_by(
    record: &JournalRecord,
    paths: &[PathBuf],
    roots: &TrashRoots,
) -> Result<Vec<Option<TrashedItem>>, Error> {
    let since = record.started_secs();
    let listed: Vec<TrashedItem> = list_trash_in(roots)?
        .into_iter()
        .filter(|i| i.deleted_at.is_some_and(|t| t >= since))
        .collect();
    let found = paths.iter().map(|path| {
        let resolved = resolved(path);
        listed
            .iter()
            .filter(|i| i.original == *path || Some(&i.original) == resolved.as_ref())
            .min_by_key(|i| i.deleted_at)
            .cloned()
    });
    Ok(found.collect())
}

/// `path` as an info file holds it: its parent's links resolved (`None` if the parent is
/// gone).
fn resolved(path: &Path) -> Option<PathBuf> {
    let parent = std::fs::canonicalize(path.parent()?).ok()?;
    Some(parent.join(path.file_name()?))
}

/// Removes the info files the trash job of `record` wrote for items it never moved (killed
/// in between): they describe nothing.
fn remove_stray_infos(record: &JournalRecord, paths: &[PathBuf], roots: &TrashRoots) {
    let originals: Vec<PathBuf> = (paths.iter())
        .flat_map(|p| std::iter::once(p.clone()).chain(resolved(p)))
        .collect();
    for info in trash::stray_infos(roots, record.started_secs(), &originals) {
        let _ = std::fs::remove_file(info);
    }
}

/// Resumes an interrupted trash job: what it trashed is done (and recorded for undo), the
/// rest is trashed now.
pub(super) fn resume_trash(
    ctx: &JobCtx,
    record: &JournalRecord,
    paths: &[PathBuf],
    roots: &TrashRoots,
) -> Summary {
    let mut summary = Summary::default();
    remove_stray_infos(record, paths, roots);
    let found = match trashed_by(record, paths, roots) {
        Ok(found) => found,
        Err(e) => {
            fail(ctx, &mut summary, &roots.home, e);
            return summary;
        }
    };
    let mut left = Vec::new();
    for (path, entry) in paths.iter().zip(found) {
        match entry {
            Some(item) => {
                ctx.counters.add_item();
                summary.done.push(path.clone());
                summary.trash.push(item.as_record());
            }
            None => left.push(path.clone()),
        }
    }
    if !left.is_empty() {
        absorb(&mut summary, trash::run_trash(ctx, &left, roots));
    }
    summary
}

/// Rolls back an interrupted trash job: restores what it trashed; a name taken since is
/// decided by `policy` (Skip leaves those in the trash, reported).
pub(super) fn roll_back_trash(
    ctx: &JobCtx,
    record: &JournalRecord,
    paths: &[PathBuf],
    roots: &TrashRoots,
    policy: ConflictPolicy,
) -> Summary {
    let mut summary = Summary::default();
    remove_stray_infos(record, paths, roots);
    match trashed_by(record, paths, roots) {
        Ok(found) => {
            let items: Vec<TrashedItem> = found.into_iter().flatten().collect();
            if !items.is_empty() {
                let restored = trash::run_restore(ctx, &items, policy);
                absorb(&mut summary, restored);
            }
        }
        Err(e) => fail(ctx, &mut summary, &roots.home, e),
    }
    summary
}

/// Where an item of a restore job stands.
enum Restored {
    /// Still in the trash as it was, nothing of it at its original path.
    No,
    /// Still in the trash as it was, and copied in part to its original path on another
    /// file system (a folder, or a file linked whole there but not yet removed from the trash).
    Partly,
    /// Gone from the trash, and at its original path (with this identity).
    Yes(Meta),
    /// Neither in the trash as it was nor recognisably at its original path (changed since,
    /// or restored under another name by Keep both or Rename to).
    Gone,
}

fn restored(item: &TrashedItem) -> Restored {
    let stat = |p: &Path| fs::stat_at(rustix::fs::CWD, p).ok();
    let in_trash = stat(&item.file).is_some_and(|m| m.id == item.id);
    let here = stat(&item.original).filter(|m| m.kind == item.kind);
    match (in_trash, here) {
        (true, None) => Restored::No,
        (true, Some(m)) if m.id.dev != item.id.dev => Restored::Partly,
        // Two links of one file: the trash entry is the item.
        (true, Some(_)) => Restored::No,
        (false, Some(m)) if is_restored_copy(item, &m) => Restored::Yes(m),
        (false, _) => Restored::Gone,
    }
}

/// True when `m`, at the original path of `item`, is the item itself (the same inode) or,
/// on another file system, the finished copy of it (the copier gives a file its size and
/// mtime, a folder its mtime once complete).
fn is_restored_copy(item: &TrashedItem, m: &Meta) -> bool {
    if m.id.dev == item.id.dev {
        m.id.ino == item.id.ino
    } else {
        m.mtime == item.mtime && (m.kind != Kind::File || m.size == item.size)
    }
}

/// Removes the info file of a restored item, as the restore does once the item left the
/// trash.
fn remove_info(item: &TrashedItem) -> Result<(), Error> {
    match std::fs::remove_file(&item.info) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(Error::io("delete", &item.info, e)),
    }
}

fn changed(ctx: &JobCtx, summary: &mut Summary, item: &TrashedItem) {
    let error = Error::ChangedSince {
        path: item.original.clone(),
    };
    fail(ctx, summary, &item.original, error);
}

/// Whether the job wrote into what is at the original place of `item`: a place it found
/// free, or one it found taken (`taken`: the original places that existed when it began)
/// under a `policy` that merges into it. Under another policy the job left a taken place
/// alone (skipped, or put the item elsewhere), so what is there is not its doing.
fn wrote_there(item: &TrashedItem, policy: ConflictPolicy, taken: &[PathBuf]) -> bool {
    !taken.contains(&item.original) || matches!(policy, ConflictPolicy::Merge | ConflictPolicy::Ask)
}

/// Resumes an interrupted restore: what it restored is done (recorded for undo), an item
/// it copied in part across file systems is finished by a merge into what is there (after
/// removing from the trash what was already copied whole, as the resume of a move does, and
/// giving the folders the job made their modes and times once full), and the rest is
/// restored now with the job's `policy`. The record's `preexisting`: see [`wrote_there`].
pub(super) fn resume_restore(
    ctx: &JobCtx,
    items: &[TrashedItem],
    policy: ConflictPolicy,
    record: &JournalRecord,
) -> Summary {
    let taken = &record.preexisting;
    let mut summary = Summary::default();
    let (mut fresh, mut partly) = (Vec::new(), Vec::new());
    let mut folders = Vec::new();
    for item in items {
        let mut state = restored(item);
        if matches!(state, Restored::Partly) {
            if !wrote_there(item, policy, taken) {
                state = Restored::No;
            } else {
                // Read before the restore removes the trashed folders: the merge that
                // finishes the item leaves those the killed run made at 0700.
                let merged_since = taken.contains(&item.original).then_some(record.started);
                let since = (merged_since, None);
                folders::folders_below(&item.file, &item.original, since, &mut folders);
                let place = (item.file.as_path(), item.original.as_path());
                if let Err(e) = super::settle_one(ctx, &mut summary, place, record.started) {
                    fail(ctx, &mut summary, &item.original, e);
                    continue;
                }
                state = restored(item);
            }
        }
        match state {
            Restored::No => fresh.push(item.clone()),
            Restored::Partly => partly.push(item.clone()),
            Restored::Yes(here) => match remove_info(item) {
                Ok(()) => {
                    summary.done.push(item.original.clone());
                    summary.trash.push(TrashRecord {
                        id: here.id,
                        size: here.size,
                        mtime: here.mtime,
                        ..item.as_record()
                    });
                }
                Err(e) => fail(ctx, &mut summary, &item.original, e),
            },
            Restored::Gone => changed(ctx, &mut summary, item),
        }
    }
    for (left, policy) in [(&fresh, policy), (&partly, ConflictPolicy::Merge)] {
        if !left.is_empty() && !ctx.control.stopped() {
            absorb(&mut summary, trash::run_restore(ctx, left, policy));
        }
    }
    folders::restore_folder_times(ctx, &folders);
    // Finished by a merge into what the killed run had made, an item is recorded as the
    // trashed one merged in; its undo then took the folder for one that was there before and
    // put nothing back. Where the place was free at the start, what is there once the
    // trashed copy is gone is the restored copy (its time may not be the trashed one's: the
    // killed run removed files from the trashed folder, which moved its time).
    let stat = |p: &Path| fs::stat_at(rustix::fs::CWD, p).ok();
    for item in partly.iter().filter(|i| !taken.contains(&i.original)) {
        let left_trash = stat(&item.file).is_none_or(|m| m.id != item.id);
        if let (true, Some(here)) = (left_trash, stat(&item.original))
            && here.kind == item.kind
            && let Some(r) = summary.trash.iter_mut().find(|r| r.file == item.file)
        {
            (r.id, r.size, r.mtime) = (here.id, here.size, here.mtime);
        }
    }
    summary
}

/// Rolls back an interrupted restore: what it restored goes back to the trash (of its file
/// system, under `roots`), never deleted. An item it copied in part across file systems is
/// rolled back as an interrupted move is (see [`Rollback`](super::roll_back::Rollback)): what it carried
/// over completely goes back into the trashed folder, the folders it created go once empty,
/// and the copies identical to the trashed item, which stays whole, are removed where the
/// job created the place, or trashed where it merged into a folder that was there (they may
/// be the user's). `taken`: see [`wrote_there`].
pub(super) fn roll_back_restore(
    ctx: &JobCtx,
    items: &[TrashedItem],
    policy: ConflictPolicy,
    taken: &[PathBuf],
    roots: &TrashRoots,
) -> Summary {
    let mut summary = Summary::default();
    let mut created = super::roll_back::Rollback::discarding();
    let mut merged = super::roll_back::Rollback::default();
    let (mut back, mut partly) = (Vec::new(), Vec::new());
    for item in items {
        match restored(item) {
            Restored::No => {}
            Restored::Partly if wrote_there(item, policy, taken) => {
                let new = !taken.contains(&item.original);
                let plan = if new { &mut created } else { &mut merged };
                match plan.walk(&item.file, &item.original, true, new) {
                    Ok(_) => partly.push(&item.original),
                    Err(e) => fail(ctx, &mut summary, &item.original, e),
                }
            }
            Restored::Partly => {}
            Restored::Yes(_) => back.push(item),
            Restored::Gone => changed(ctx, &mut summary, item),
        }
    }
    if !back.is_empty() {
        // An info file left by a crash between the rename and its removal is stale; it goes
        // first, as the item going back to the trash may get its name.
        for item in &back {
            if let Err(e) = remove_info(item) {
                fail(ctx, &mut summary, &item.info, e);
            }
        }
        let paths: Vec<PathBuf> = back.iter().map(|i| i.original.clone()).collect();
        absorb(&mut summary, trash::run_trash(ctx, &paths, roots));
    }
    created.run(ctx, &mut summary, roots);
    merged.run(ctx, &mut summary, roots);
    // Its part copy taken back, an item is whole in the trash as before: undone, and said
    // so (counted as nothing, the undo said "nothing of it was undone").
    for original in partly {
        if !summary.failed.iter().any(|f| f.path.starts_with(original)) {
            ctx.counters.add_item();
            summary.done.push(original.clone());
        }
    }
    summary
}

/// Rolls back an interrupted or resumed rename: renames back when the new name exists and
/// the old one does not (never over anything).
pub(super) fn roll_back_rename(ctx: &JobCtx, path: &Path, new_name: &OsStr) -> Summary {
    let (Some(parent), Some(old_name)) = (path.parent(), path.file_name()) else {
        return Summary::default();
    };
    let renamed = parent.join(new_name);
    let exists = |p: &Path| std::fs::symlink_metadata(p).is_ok();
    if exists(&renamed) && !exists(path) {
        single::rename(ctx, &renamed, old_name)
    } else {
        Summary::default()
    }
}
