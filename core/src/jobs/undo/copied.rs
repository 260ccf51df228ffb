//! The undo of a copy: each copy still as the job left it goes to the trash, a folder whole
//! when all it holds is unchanged copies; what changed is kept and said (see `undo.rs`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{Now, absorb, goes_on, not_as_left, now_at, unstage};
use crate::entry::Kind;
use crate::error::Error;
use crate::fs::{DeepPaths, FileId};
use crate::jobs::control::JobCtx;
use crate::jobs::summary::fail;
use crate::jobs::{How, RecordEntry, Summary, TrashRecord, TrashRoots, trash};

pub(super) fn undo_copy(ctx: &JobCtx, entries: &[RecordEntry], roots: &TrashRoots) -> Summary {
    let mut summary = Summary::default();
    let n = entries.len();
    let index: HashMap<&Path, usize> = entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.dest.as_path(), i))
        .collect();
    let parent_of = |i: usize| {
        let e = &entries[i];
        (!e.top_level)
            .then(|| e.dest.parent().and_then(|p| index.get(p).copied()))
            .flatten()
    };
    // A replacement whose old item is gone from staging is kept whole (parents come before
    // their children): trashing it would leave neither.
    let mut kept = vec![false; n];
    for (i, e) in entries.iter().enumerate() {
        let orphaned = e
            .staged
            .as_deref()
            .is_some_and(|s| s.symlink_metadata().is_err());
        kept[i] = orphaned || parent_of(i).is_some_and(|p| kept[p]);
    }
    // Children before parents: a folder is clean when it is the same folder, all its recorded
    // children still there are clean, and it holds nothing else.
    // Trees deeper than PATH_MAX were copied: their items are reached by folder.
    let mut deep = DeepPaths::default();
    // Below a folder that is not the one the job made (another folder, or a link to one, put
    // in its place), nothing is the job's: not looked at, where a path would lead through a
    // link to a folder elsewhere (and a hard link of a copy there went to the trash).
    let not_the_jobs = |now: &[Now], i: usize| {
        let folder = entries[i].dest.parent().and_then(|p| index.get(p));
        folder
            .and_then(|&p| now.get(p))
            .is_some_and(|folder| *folder != Now::Same)
    };
    let mut now: Vec<Now> = Vec::with_capacity(n);
    for (i, e) in entries.iter().enumerate() {
        let found = match not_the_jobs(&now, i) {
            true => Now::Gone,
            false => now_at(&mut deep, e, true),
        };
        now.push(found);
    }
    // What each folder holds, read in the same order (parents first: one step each when deep).
    let holding: Vec<Option<usize>> = (entries.iter().zip(&now))
        .map(|(e, now)| {
            (e.kind == Kind::Dir && *now == Now::Same)
                .then(|| holds(&mut deep, &e.dest))
                .flatten()
        })
        .collect();
    let mut clean = vec![false; n];
    let mut present = vec![0usize; n];
    let mut children_clean = vec![true; n];
    for i in (0..n).rev() {
        let e = &entries[i];
        clean[i] = match (e.how, e.kind) {
            (How::Merged, _) => false,
            (_, Kind::Dir) => {
                now[i] == Now::Same && children_clean[i] && holding[i] == Some(present[i])
            }
            _ => now[i] == Now::Same,
        } && !kept[i];
        if let Some(p) = parent_of(i)
            && now[i] != Now::Gone
        {
            present[p] += 1;
            children_clean[p] &= clean[i];
        }
    }
    let to_trash: Vec<PathBuf> = (0..n)
        .filter(|&i| clean[i] && !parent_of(i).is_some_and(|p| clean[p]))
        .map(|i| entries[i].dest.clone())
        .collect();
    if !to_trash.is_empty() {
        absorb(&mut summary, trash::run_trash(ctx, &to_trash, roots));
    }
    if !goes_on(ctx, &summary) {
        return summary;
    }
    unstage(ctx, &mut summary, entries);
    let gone_untold =
        |i: usize| now[i] == Now::Gone && !not_the_jobs(&now, i) && entries[i].staged.is_none();
    let gone: Vec<usize> = (0..n).filter(|&i| gone_untold(i)).collect();
    let trashed_before = trashed_by_an_earlier_run(entries, &gone, roots);
    // What stays: changed items, and copied folders still holding something. A copy gone
    // since (deleted, or moved away with its folder) is said, once for all it held: it may
    // well still exist elsewhere, and nothing was trashed for it. One that replaced an item
    // is `unstage`'s: what it replaced comes back in its place.
    for i in (0..n).rev() {
        let e = &entries[i];
        // Said once for a folder, merged into or made, and all it held (gone, or another in
        // its place).
        if gone_untold(i) {
            match trashed_before.get(&i) {
                Some(record) => {
                    summary.done.push(e.dest.clone());
                    summary.trash.push(record.clone());
                }
                None => fail(ctx, &mut summary, &e.dest, not_as_left(Now::Gone, &e.dest)),
            }
            continue;
        }
        if clean[i] || e.how == How::Merged || now[i] == Now::Gone {
            continue;
        }
        if kept[i] {
            continue; // reported by `unstage`
        }
        if e.kind == Kind::Dir && now[i] == Now::Same {
            match deep.remove_dir(&e.dest) {
                Ok(()) => continue,
                Err(err) if err != rustix::io::Errno::NOTEMPTY => {
                    fail(
                        ctx,
                        &mut summary,
                        &e.dest,
                        Error::io("remove", &e.dest, err),
                    );
                    continue;
                }
                Err(_) => {}
            }
            // Kept because of something inside that is reported on its own, or added since.
            if !children_clean[i] {
                continue;
            }
        }
        let changed = Error::ChangedSince {
            path: e.dest.clone(),
        };
        fail(ctx, &mut summary, &e.dest, changed);
    }
    summary
}

/// Of the copies `gone` (indices into `entries`), those an earlier run of this undo put in
/// the trash, cancelled before it was recorded (a cancelled undo leaves its job to be undone
/// again): in the trash from their path, the very items the job made (on their own file
/// system, trashing is a rename). They are undone: this run records them as trashed, so that
/// a redo brings back all the undo took, and does not say them gone (a tester's second Undo
/// of a 20,000-file copy said "9,342 failed", each "no longer where it was left").
fn trashed_by_an_earlier_run(
    entries: &[RecordEntry],
    gone: &[usize],
    roots: &TrashRoots,
) -> HashMap<usize, TrashRecord> {
    if gone.is_empty() {
        return HashMap::new();
    }
    // Read only when something is gone: every info file of every trash.
    let Ok(items) = trash::list_trash_in(roots) else {
        return HashMap::new();
    };
    let wanted: HashMap<(&Path, FileId), usize> = (gone.iter())
        .map(|&i| ((entries[i].dest.as_path(), entries[i].id), i))
        .collect();
    (items.iter())
        .filter_map(|item| {
            let &i = wanted.get(&(item.original.as_path(), item.id))?;
            Some((i, item.as_record()))
        })
        .collect()
}

/// How many items the folder `path` holds; `None` if it cannot be read.
fn holds(deep: &mut DeepPaths, path: &Path) -> Option<usize> {
    let dir = deep.open_dir(path).ok()?;
    let mut count = 0;
    crate::fs::read_dir(&dir, &mut Vec::new(), |_, _| {
        count += 1;
        Ok(())
    })
    .ok()?;
    Some(count)
}
