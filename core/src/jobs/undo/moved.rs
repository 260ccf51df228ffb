//! The undo of a move: each top-level item still as the job left it goes back to where it
//! came from, by the engine's move; folders merged into others are made anew first, with the
//! modes, extended attributes and ACLs they had (see `undo.rs`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{Now, absorb, born_since, goes_on, is_still, not_as_left, now_at, unstage};
use crate::error::Error;
use crate::fs::{DeepPaths, FileId, Timestamp};
use crate::jobs::control::JobCtx;
use crate::jobs::journal::JournalRecord;
use crate::jobs::left_behind::{self, LeftBehind, PartPutBack};
use crate::jobs::put_back::{self, Target};
use crate::jobs::summary::fail;
use crate::jobs::undo_again::{self, KilledPutBack, killed_put_back};
use crate::jobs::{ConflictPolicy, How, RecordEntry, Summary};

pub(super) fn undo_move(ctx: &JobCtx, record: &JournalRecord, policy: ConflictPolicy) -> Summary {
    let entries = &record.entries[..];
    let mut summary = Summary::default();
    // A folder merged into the one there was removed once emptied: it is made again, before
    // what it held goes back into it (new folders: `remade` says which, for earlier undos).
    // A symbolic link found in its place was put there since (a move never walks through
    // one): nothing goes back through it, which put the user's files where it pointed.
    let mut links = Vec::new();
    for e in entries.iter().filter(|e| e.how == How::Merged) {
        if std::fs::symlink_metadata(&e.source).is_ok_and(|m| m.is_symlink()) {
            links.push(e.source.clone());
            continue;
        }
        if let Err(err) = put_back::make_folders(&e.source, &mut summary.remade) {
            let error = Error::io("create folder", &e.source, err);
            fail(ctx, &mut summary, &e.source, error);
        }
    }
    merged_folders_meta(entries, &summary.remade);
    if let Some((pid, _)) = record.undo_by.filter(|_| record.undo_unfinished()) {
        undo_again::remove_temporaries(entries, pid);
    }
    // Each top-level item goes back, as it is now, to where it came from.
    let (mut targets, mut emptied, mut left_folders) = (Vec::new(), Vec::new(), Vec::new());
    let mut open = put_back::OpenFolders::default();
    let left_behind = LeftBehind::of(record);
    let part_put_back = PartPutBack::of(record);
    for e in entries
        .iter()
        .filter(|e| e.top_level && e.how != How::Merged)
    {
        // An earlier run of this undo, killed while putting the item back.
        let now = match now_at(&mut DeepPaths::default(), e, false) {
            // A file made since under the item's name often gets its freed inode number: one
            // born after the job began is not what the job renamed there, unless a later
            // job's undo made it anew (its identity is then the new item's).
            Now::Same
                if renamed(e)
                    && born_since(&e.dest, record.started)
                    && !record.remade.contains(&e.dest) =>
            {
                Now::Changed
            }
            now => now,
        };
        let left_at = match now {
            Now::Same => Some(e.dest.clone()),
            Now::Gone => undo_again::set_aside_from(&e.dest),
            Now::Changed => None,
        };
        let killed = left_at.and_then(|at| killed_put_back(&at, &e.source, now == Now::Same));
        match killed {
            Some(KilledPutBack::Removing(left)) => {
                undo_again::finish(ctx, &mut summary, &e.dest, &e.source, &left);
                continue;
            }
            // Its part copy goes, and the item goes back whole.
            Some(KilledPutBack::Copying(part)) if !undo_again::remove(ctx, &mut summary, &part) => {
                continue;
            }
            _ => {}
        }
        let target = |(source, dest)| Target {
            source,
            dest,
            dir: None,
        };
        match now {
            // Part of it was not moved, or was put back by an earlier run of this undo: the
            // rest goes back into the folder there.
            Now::Same
                if let Some(into) = (left_behind.as_ref().and_then(|l| l.put_back_into(e)))
                    .or_else(|| part_put_back.as_ref()?.put_back_into(e)) =>
            {
                // What a killed run put back whole and had not removed yet goes first.
                let removed = into.redundant.is_empty()
                    || crate::jobs::recovery::copies_durable(ctx, &mut summary, &e.source)
                        && undo_again::remove(ctx, &mut summary, &into.redundant);
                if !removed {
                    continue;
                }
                targets.extend(into.items.into_iter().map(target));
                emptied.extend(into.copies);
                left_folders.extend(times_to_give_back(&into.left_folders, record.started));
            }
            Now::Same => match put_back::folder_of_source(e, &mut open) {
                Ok(dir) => targets.push(Target {
                    dir,
                    ..target((e.dest.clone(), e.source.clone()))
                }),
                Err(error) => fail(ctx, &mut summary, &e.dest, error),
            },
            // Put back by an earlier run of this undo that could not finish: undone (renamed
            // back, or copied back across file systems). Not a file made at the old place
            // since, which often gets the freed inode number: "undone" was said of a move
            // whose item had been deleted, the new file taken for it.
            Now::Gone
                if (is_still(&e.source, e.id) && !born_since(&e.source, record.started))
                    || part_put_back.as_ref().is_some_and(|p| p.is_back(e)) => {}
            now @ (Now::Changed | Now::Gone) => {
                fail(ctx, &mut summary, &e.dest, not_as_left(now, &e.dest));
            }
        }
    }
    targets.retain(|t| {
        let Some(link) = links.iter().find(|l| t.dest.starts_with(l)) else {
            return true;
        };
        let error = Error::LinkInPath {
            path: link.clone(),
            dest: t.dest.clone(),
        };
        fail(ctx, &mut summary, &t.source, error);
        false
    });
    if !targets.is_empty() {
        // Copied back from a disk that held no modes: each gets its own back.
        let modes = (entries.iter())
            .filter_map(|e| Some((e.dest.clone(), e.source_mode?)))
            .collect();
        let modes = std::sync::Arc::new(modes);
        let put = put_back::run(ctx, &targets, policy, &modes).summary;
        crate::jobs::relink::relink(ctx, &mut summary, entries, &put);
        // Copied back from another disk: new items, which the undo of an earlier job that
        // made them (`cp a d; mv d/a usb/; undo; undo`) must know by their new identities,
        // or it keeps them all as "changed since".
        let copied_back = |e: &RecordEntry| matches!(e.how, How::Created | How::Replaced);
        (summary.remade).extend(
            put.record
                .entries()
                .filter(copied_back)
                .map(|e| (e.dest, e.id)),
        );
        absorb(&mut summary, put);
    }
    left_behind::remove_emptied(&emptied);
    // Deepest first: setting a folder's times changes none above it.
    for (folder, atime, mtime) in left_folders.iter().rev() {
        let _ = crate::fs::set_times_at(rustix::fs::CWD, folder.as_os_str(), *atime, *mtime);
    }
    merged_folders_times(entries, &summary.remade);
    if goes_on(ctx, &summary) {
        unstage(ctx, &mut summary, entries);
    }
    summary
}

/// The times to give back to the folders a move left behind (`left_folders`: each with its
/// copy, parents first) once what it took out of them is back: those the job changed (since
/// `started`) get their copy's, which it gave the copy before it took anything out. They
/// kept the time of the undo.
fn times_to_give_back(
    left_folders: &[(PathBuf, PathBuf)],
    started: std::time::SystemTime,
) -> Vec<(PathBuf, Timestamp, Timestamp)> {
    let changed =
        |p: &Path| std::fs::metadata(p).is_ok_and(|m| left_behind::moved_out_since(&m, started));
    (left_folders.iter())
        .filter(|(folder, _)| changed(folder))
        .filter_map(|(folder, copy)| {
            let m = std::fs::symlink_metadata(copy).ok()?;
            Some((
                folder.clone(),
                Timestamp::atime_of(&m),
                Timestamp::mtime_of(&m),
            ))
        })
        .collect()
}

/// The job moved `e` by renaming it: the same inode, made before the job.
fn renamed(e: &RecordEntry) -> bool {
    matches!(e.how, How::Moved | How::MovedOver)
}

/// Gives the source folders made anew (`remade`) the modification time they had, once
/// everything went back into them (which stamped them with the time of the undo).
fn merged_folders_times(entries: &[RecordEntry], remade: &[(PathBuf, FileId)]) {
    let remade: std::collections::HashSet<&Path> =
        remade.iter().map(|(p, _)| p.as_path()).collect();
    for e in entries.iter().filter(|e| e.how == How::Merged) {
        if remade.contains(e.source.as_path()) {
            // Not given, the folder keeps the time of the undo: said by nothing else.
            let path = e.source.as_os_str();
            let _ = crate::fs::set_times_at(rustix::fs::CWD, path, e.mtime, e.mtime);
        }
    }
}

/// Gives the source folders a move merged into folders of their names, made anew by its undo
/// (`remade`), before anything goes back into them, the modes they had (they came back 0755
/// whatever they were: a 0700 folder open to others), then their extended attributes and
/// ACLs (after the mode, whose group bits an access ACL sets; before the contents, which a
/// default ACL gives its permissions to).
fn merged_folders_meta(entries: &[RecordEntry], remade: &[(PathBuf, FileId)]) {
    if remade.is_empty() {
        return;
    }
    let merged: HashMap<&Path, &RecordEntry> = (entries.iter())
        .filter(|e| e.how == How::Merged)
        .map(|e| (e.source.as_path(), e))
        .collect();
    for (path, _) in remade {
        let Some(e) = merged.get(path.as_path()) else {
            continue;
        };
        // Not given, the folder keeps the default mode and no attributes: said by nothing
        // else (the records of older versions hold no attributes).
        if let Some(mode) = e.source_mode {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::Permissions::from_mode(u32::from(mode) & 0o7777);
            let _ = std::fs::set_permissions(path, mode);
        }
        if let Some(xattrs) = &e.source_xattrs
            && let Ok(dir) = crate::fs::open_dir_at(rustix::fs::CWD, path)
        {
            let _ = crate::fs::write_xattrs(&dir, xattrs);
        }
    }
}
