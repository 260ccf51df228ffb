//! Moving: a rename per item where source and destination share a mount and a device (btrfs
//! subvolumes share a mount, not a device, and rename between them fails with `EXDEV`;
//! `decide.rs`); elsewhere a copy, made durable with one `syncfs`, then removal of exactly
//! the sources that made it and are still as they were copied (`remove.rs`). A rename that
//! fails with `EXDEV` all the same (overlayfs, for a folder of a lower layer) falls back to
//! that copy and removal, as `mv` does (`passes.rs`).
//!
//! A folder moved across file systems is removed from the source only when every child made
//! it. Cancel or a terminal error mid-move: what was copied is flushed and its source removed
//! (it is moved), the file in flight is rolled back (its temporary removed), the rest stays.

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::control::JobCtx;
use super::dest::Dest;
use super::journal::kept_modes;
use super::passes;
use super::plan::{Action, Mode, NO_ITEM, Plan};
use super::progress::Reporter;
use super::put_back::Modes;
use super::remove::{Select, remove_selected};
use super::start::{not_done, not_started, plan_transfer, preflight};
use super::summary::{self, Operation};
use super::{ConflictPolicy, Phase, Summary, Totals};
use crate::entry::Kind;
use crate::error::Error;
use crate::fs;
use rustix::io::Errno;

/// Runs a move job from start to end.
pub(crate) fn run_job(
    ctx: &JobCtx,
    sources: &[PathBuf],
    dest: (&Path, Option<&OsStr>),
    policy: ConflictPolicy,
) -> Summary {
    run_job_with_modes(ctx, sources, dest, policy, &Modes::default())
}

/// [`run_job`] whose copies get the modes `modes` gives their sources (see
/// [`Plan::source_modes`]): a roll back moving items back from a disk that kept none.
pub(crate) fn run_job_with_modes(
    ctx: &JobCtx,
    sources: &[PathBuf],
    dest: (&Path, Option<&OsStr>),
    policy: ConflictPolicy,
    modes: &Modes,
) -> Summary {
    let (dest, mut planned) = match plan_transfer(ctx, Mode::Move, sources, dest, policy) {
        Ok(p) => p,
        Err(e) => return not_started(ctx, sources, e),
    };
    planned.plan.source_modes = Arc::clone(modes);
    let done = not_done(&planned);
    if !preflight(ctx, &planned, &dest, true) {
        return summary::build(ctx, Operation::Move, planned.plan, done, dest.meta.id.dev);
    }
    let (mut plan, done, totals) = passes::run(ctx, Mode::Move, policy, &dest, planned, done);
    remove_sources(ctx, &mut plan, &done, totals, &dest);
    plan.dest_drops_modes = !dest.caps.keeps_modes;

    summary::build(ctx, Operation::Move, plan, done, dest.meta.id.dev)
}

/// Removes the sources that were copied (after making the copies durable), and the folders
/// merged into, when all their children made it (their attributes kept in the plan first).
pub(crate) fn remove_sources(
    ctx: &JobCtx,
    plan: &mut Plan,
    done: &[AtomicU64],
    totals: Totals,
    dest: &Dest,
) {
    keep_merged_xattrs(plan);
    let plan = &*plan;
    std::thread::scope(|s| {
        let _reporter = Reporter::start(s, ctx, plan, totals);
        let copied = |i: u32| {
            let action = plan.item(i).action;
            matches!(action, Action::Create | Action::Replace)
                && done[i as usize].load(Relaxed) != 0
        };
        let all = || 0..plan.items.len() as u32;
        // The destination removed under the job: what was copied there went with it, so no
        // source may go, and nothing is done (each is said not moved).
        let removed = |e: &Arc<Error>| matches!(**e, Error::FolderRemoved { .. });
        if ctx.control.halted_by().is_some_and(removed) {
            forget(ctx, done, |_| true);
            return;
        }
        if all().any(copied) {
            // Nothing leaves the source before its copy is on disk.
            if !dest.flush(ctx) {
                return;
            }
            crate::fault::point("copies-durable");
            if !dest.still_there(ctx) {
                forget(ctx, done, |_| true);
                return;
            }
        } else if !all().any(|i| plan.item(i).action == Action::Merge) {
            return; // only renames: nothing left behind
        }
        ctx.counters.set_phase(Phase::Deleting);
        let lost = lost_folders(ctx, plan, done);
        let in_lost = |i: u32| lost.contains(&i) || lost.contains(&plan.item(i).parent);
        // Their copies went with them: not done.
        forget(ctx, done, in_lost);
        let select = |i: u32| match plan.item(i).action {
            _ if in_lost(i) => Select::Keep,
            Action::Rename | Action::RenameOver if done[i as usize].load(Relaxed) != 0 => {
                Select::Gone
            }
            Action::Merge => Select::Remove,
            _ if copied(i) => Select::Remove,
            _ => Select::Keep,
        };
        if !dest.caps.keeps_modes {
            keep_modes(ctx, plan, &select);
        }
        remove_selected(ctx, plan, &select);
        remove_emptied_merges(plan);
    });
}

/// Reads the extended attributes and ACLs of the source folders merged into folders of
/// their names, which go once emptied: their undo makes them anew with these. One
/// `listxattr` a merged folder, nothing for the rest.
fn keep_merged_xattrs(plan: &mut Plan) {
    let merged = (0..plan.items.len() as u32).filter(|&i| plan.item(i).action == Action::Merge);
    let read = |i: u32| {
        let dir = fs::open_dir_at(rustix::fs::CWD, plan.source_path(i)).ok()?;
        let xattrs = fs::read_xattrs(&dir).ok()?;
        (!xattrs.is_empty()).then_some((i, xattrs))
    };
    let kept: HashMap<u32, fs::Xattrs> = merged.filter_map(read).collect();
    plan.merged_xattrs = kept;
}

/// The items `which` selects are not done after all (what was copied went with a folder
/// removed under the job): neither recorded nor counted.
fn forget(ctx: &JobCtx, done: &[AtomicU64], which: impl Fn(u32) -> bool) {
    let forgotten = (0..done.len() as u32)
        .filter(|&i| which(i) && done[i as usize].swap(0, Relaxed) != 0)
        .count();
    ctx.counters.take_back_items(forgotten as u64);
}

/// Before the sources go to a disk that keeps no modes: their modes, for the roll back of the
/// move should it be killed before its record keeps them (`journal/kept_modes.rs`).
fn keep_modes(ctx: &JobCtx, plan: &Plan, select: &impl Fn(u32) -> Select) {
    let (Some(folder), Some(seq)) = (&ctx.details, ctx.journal_seq) else {
        return;
    };
    let modes: Vec<(PathBuf, u16)> = (0..plan.items.len() as u32)
        .filter(|&i| select(i) == Select::Remove && plan.item(i).kind != Kind::Symlink)
        .map(|i| {
            let mode = plan.mode_for(i, plan.item(i).mode.into());
            (plan.dest_path(i), mode as u16)
        })
        .collect();
    // Not kept, the sources go all the same: the move is what was asked, the modes a
    // courtesy to a roll back after a crash.
    let _ = kept_modes::keep(folder, seq, &modes);
}

/// The folders of the move's copy that are gone from the destination since they were made or
/// merged into (removed, or replaced, under the job): what was copied into them went with
/// them, so nothing of theirs leaves the source. Each is said once, as failed. Two `stat`s a
/// folder, by path (it, and the first file copied into it); a path too long to take is
/// trusted.
fn lost_folders(ctx: &JobCtx, plan: &Plan, done: &[AtomicU64]) -> HashSet<u32> {
    let mut lost = HashSet::new();
    // A folder removed and made anew, empty, can get its inode number back (ext4 reuses
    // them): its first copied file must still be there too.
    let mut first_file: HashMap<u32, u32> = HashMap::new();
    for c in 0..plan.items.len() as u32 {
        let item = plan.item(c);
        if item.kind != Kind::Dir && item.parent != NO_ITEM && done[c as usize].load(Relaxed) != 0 {
            first_file.entry(item.parent).or_insert(c);
        }
    }
    let file_there = |c: u32| match std::fs::symlink_metadata(plan.dest_path(c)) {
        Ok(m) => m.ino() == done[c as usize].load(Relaxed),
        Err(e) => e.kind() != std::io::ErrorKind::NotFound,
    };
    for i in 0..plan.items.len() as u32 {
        let item = plan.item(i);
        let made = done[i as usize].load(Relaxed);
        if item.kind != Kind::Dir || made == 0 || lost.contains(&item.parent) {
            if lost.contains(&item.parent) {
                lost.insert(i);
            }
            continue;
        }
        let path = plan.dest_path(i);
        let there = match fs::stat_path(&path) {
            Ok(m) => m.kind == Kind::Dir && m.id.ino == made,
            Err(e) => !matches!(e, Errno::NOENT | Errno::NOTDIR),
        } && first_file.get(&i).is_none_or(|&c| file_there(c));
        if !there && matches!(item.action, Action::Create | Action::Merge) {
            lost.insert(i);
            let error = Error::FolderRemoved {
                path,
                destination: false,
            };
            ctx.fail(i, plan.source_path(i), error);
        }
    }
    lost
}

/// Removes the source folders merged into folders of their name that the answers to their
/// contents' conflicts emptied: each answer was carried out as a root of its own, after the
/// folder's, so the folder's removal had met what it still held. Deepest first; one still
/// holding something (an item skipped) stays.
fn remove_emptied_merges(plan: &Plan) {
    // In plan order: parents before children.
    let merged: Vec<PathBuf> = (0..plan.items.len() as u32)
        .filter(|&i| plan.item(i).action == Action::Merge)
        .map(|i| plan.source_path(i))
        .collect();
    super::left_behind::remove_emptied(&merged);
}
