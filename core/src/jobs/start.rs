//! How a job that plans starts: its plan made and announced, its record on disk, the space
//! it needs checked; and the summary of one that could not start. Shared by copies, moves,
//! deletes, links and restores.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::control::JobCtx;
use super::dest::Dest;
use super::plan::{Mode as PlanMode, Planned, Planner};
use super::single;
use super::{ConflictPolicy, Event, Failed, Skipped, Summary};
use crate::error::Error;
use crate::fs;
use rustix::io::Errno;

/// Opens the destination folder and plans copying or moving `sources` into it, the one
/// source as `dest_name` if given.
pub(crate) fn plan_transfer(
    ctx: &JobCtx,
    mode: PlanMode,
    sources: &[PathBuf],
    (dest_dir, dest_name): (&Path, Option<&OsStr>),
    policy: ConflictPolicy,
) -> Result<(Dest, Planned), Error> {
    let renamed = match (dest_name, sources) {
        (None, _) => None,
        (Some(name), [source]) if single::is_valid_name(name) => Some((source, name)),
        // One name for several sources, or not a name (empty, `.`, `..`, with a `/`).
        (Some(name), _) => {
            return Err(Error::io(
                "copy or move to",
                dest_dir.join(name),
                Errno::INVAL,
            ));
        }
    };
    let dest = Dest::open(ctx, dest_dir)?;
    let planner = Planner::new(ctx, mode, policy, Some(&dest));
    let planned = match renamed {
        Some((source, name)) => planner.run_renamed(source, name)?,
        None => planner.run(sources)?,
    };
    Ok((dest, planned))
}

/// Per-item results, all "not done".
pub(crate) fn not_done(planned: &Planned) -> Vec<AtomicU64> {
    std::iter::repeat_with(|| AtomicU64::new(0))
        .take(planned.plan.items.len())
        .collect()
}

/// A job that could not start: every source failed with `error` (or is simply not done, if
/// the job was cancelled while planning).
pub(crate) fn not_started(ctx: &JobCtx, sources: &[PathBuf], error: Error) -> Summary {
    // What planning found before it stopped was reported as it went: keep it in the summary.
    let problems = ctx.take_problems();
    let mut summary = Summary {
        // A delete unlinks files while it plans (`unlink_ahead.rs`).
        items_done: ctx.counters.items.load(Relaxed),
        skipped: problems
            .skipped
            .into_iter()
            .map(|(_, path, reason)| Skipped { path, reason })
            .collect(),
        failed: problems
            .failed
            .into_iter()
            .map(|(_, path, error)| Failed { path, error })
            .collect(),
        ..Summary::default()
    };
    if matches!(error, Error::Cancelled) {
        summary.not_done = sources.to_vec();
        return summary;
    }
    let error = Arc::new(error);
    for s in sources {
        super::summary::fail(ctx, &mut summary, s, Arc::clone(&error));
    }
    summary
}

/// Announces the plan and its conflicts, waits for the job's record to be on disk (if
/// `record_first`), and checks free space; false (job halted) when it cannot fit.
pub(crate) fn preflight(ctx: &JobCtx, planned: &Planned, dest: &Dest, record_first: bool) -> bool {
    ctx.emit(Event::Planned {
        job: ctx.id,
        totals: planned.totals,
    });
    if !planned.conflicts.is_empty() {
        ctx.emit(Event::Conflicts {
            job: ctx.id,
            conflicts: planned.conflicts.clone(),
        });
    }
    // Nothing is written before the job's journal record is on disk (`journal/durable.rs`).
    if ctx.control.stopped() || (record_first && !ctx.wait_durable()) {
        return false;
    }
    // Clones take no space: do not refuse a reflink copy of a large file. A btrfs subvolume
    // has a device of its own, but clones to another one of the same mount.
    let on_dest_fs = |r: &super::plan::Root| {
        planned.plan.item(r.item).id.dev == dest.meta.id.dev
            || fs::stat_at(rustix::fs::CWD, &r.source).is_ok_and(|m| m.mnt_id == dest.meta.mnt_id)
    };
    let reflinks = dest.mount.as_ref().is_some_and(fs::Mount::can_reflink)
        && planned.plan.roots.iter().all(on_dest_fs);
    let free = fs::free_of(&*dest.fd).unwrap_or(fs::Free {
        bytes: u64::MAX,
        block: 0,
        inodes: None,
    });
    let needed = planned.needed_on(free.block);
    let links = match dest
        .mount
        .as_ref()
        .is_some_and(fs::Mount::links_take_inodes)
    {
        true => planned.needed_links,
        false => 0,
    };
    let inodes = planned.needed_inodes + links;
    let error = if needed > free.bytes && !reflinks {
        Error::NoSpace {
            path: dest.path.clone(),
            needed,
            available: free.bytes,
        }
    // A disk of many small files runs out of inodes first: a move stopped there is left
    // split between two disks.
    } else if let Some(available) =
        (free.inodes).filter(|&free| inodes > free && !crate::fault::off("inode-check"))
    {
        Error::TooManyFiles {
            path: dest.path.clone(),
            needed: inodes,
            available,
        }
    } else {
        return true;
    };
    ctx.control.halt(Arc::new(error));
    false
}
