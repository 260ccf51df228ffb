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

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::control::JobCtx;
use super::dest::Dest;
use super::passes;
use super::plan::{Action, Mode, Plan};
use super::progress::Reporter;
use super::remove::{Select, remove_selected};
use super::start::{not_done, not_started, plan_transfer, preflight};
use super::summary::{self, Operation};
use super::{ConflictPolicy, Phase, Summary, Totals};

/// Runs a move job from start to end.
pub(crate) fn run_job(
    ctx: &JobCtx,
    sources: &[PathBuf],
    dest: (&Path, Option<&OsStr>),
    policy: ConflictPolicy,
) -> Summary {
    let (dest, planned) = match plan_transfer(ctx, Mode::Move, sources, dest, policy) {
        Ok(p) => p,
        Err(e) => return not_started(ctx, sources, e),
    };
    let done = not_done(&planned);
    if !preflight(ctx, &planned, &dest, true) {
        return summary::build(ctx, Operation::Move, planned.plan, done, dest.meta.id.dev);
    }
    let (plan, done, totals) = passes::run(ctx, Mode::Move, policy, &dest, planned, done);
    remove_sources(ctx, &plan, &done, totals, &dest);

    summary::build(ctx, Operation::Move, plan, done, dest.meta.id.dev)
}

/// Removes the sources that were copied (after making the copies durable), and the folders
/// merged into, when all their children made it.
pub(crate) fn remove_sources(
    ctx: &JobCtx,
    plan: &Plan,
    done: &[AtomicU64],
    totals: Totals,
    dest: &Dest,
) {
    std::thread::scope(|s| {
        let _reporter = Reporter::start(s, ctx, plan, totals);
        let copied = |i: u32| {
            let action = plan.item(i).action;
            matches!(action, Action::Create | Action::Replace)
                && done[i as usize].load(Relaxed) != 0
        };
        let all = || 0..plan.items.len() as u32;
        if all().any(copied) {
            // Nothing leaves the source before its copy is on disk.
            if !dest.flush(ctx) {
                return;
            }
            crate::fault::point("copies-durable");
        } else if !all().any(|i| plan.item(i).action == Action::Merge) {
            return; // only renames: nothing left behind
        }
        ctx.counters.set_phase(Phase::Deleting);
        let select = |i: u32| match plan.item(i).action {
            Action::Rename | Action::RenameOver if done[i as usize].load(Relaxed) != 0 => {
                Select::Gone
            }
            Action::Merge => Select::Remove,
            _ if copied(i) => Select::Remove,
            _ => Select::Keep,
        };
        remove_selected(ctx, plan, &select);
        remove_emptied_merges(plan);
    });
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
