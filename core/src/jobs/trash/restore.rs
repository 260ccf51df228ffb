//! Restoring trashed items to where they were; never replacing anything there.
//!
//! Same mount: one `renameat2(RENAME_NOREPLACE)`, then the info file goes. Across file
//! systems: the engine's copier writes the tree into a hidden staging folder (0700) in the
//! original parent, `syncfs` makes it durable, one `RENAME_NOREPLACE` puts it in place, and
//! only then are the trashed copy (by the engine's remover) and its info file removed. A
//! failure or cancel at any point leaves the item whole in the trash (plus, at worst after a
//! crash, a staging folder holding a complete or partial copy); it never leaves a partial
//! file under the original name. A missing original parent is recreated, as Dolphin does.

use std::ffi::OsStr;
use std::path::Path;
use std::sync::atomic::Ordering::Relaxed;

use rustix::fs::{AtFlags, Mode};
use rustix::io::Errno;

use super::{Run, TrashRecord, TrashedItem, record};
use crate::error::{Error, Result};
use crate::fs;
use crate::jobs::control::JobCtx;
use crate::jobs::copy::{Copier, not_done};
use crate::jobs::dest::Dest;
use crate::jobs::plan::{Action, Mode as PlanMode, Planner};
use crate::jobs::remove::{Select, remove_selected};
use crate::jobs::{ConflictPolicy, Event, Phase, Summary, Totals};

/// Runs a restore job.
pub(crate) fn run_job(ctx: &JobCtx, items: &[TrashedItem]) -> Summary {
    ctx.emit(Event::Planned {
        job: ctx.id,
        totals: Totals {
            items: items.len() as u64,
            ..Totals::default()
        },
    });
    let mut run = Run::new(ctx, items.len());
    for (i, item) in items.iter().enumerate() {
        if !run.step(i, &item.original) {
            let rest = items[i..].iter().map(|t| t.original.clone());
            run.summary.not_done.extend(rest);
            break;
        }
        match restore_one(ctx, i, item) {
            Ok(Some(record)) => run.done(item.original.clone(), record),
            // Cancelled mid-copy: the item is still whole in the trash.
            Ok(None) if ctx.control.stopped() => run.summary.not_done.push(item.original.clone()),
            Ok(None) => {} // failures already reported with their exact paths
            Err(e) => run.fail(item.original.clone(), e),
        }
    }
    run.finish()
}

/// Restores one item; `Ok(None)` when it failed in a way already reported.
fn restore_one(ctx: &JobCtx, seq: usize, item: &TrashedItem) -> Result<Option<TrashRecord>> {
    let original = &item.original;
    let (Some(name), Some(parent)) = (original.file_name(), original.parent()) else {
        return Err(Error::Refused {
            op: "restore",
            path: original.clone(),
        });
    };
    let (Some(in_trash), Some(files)) = (item.file.file_name(), item.file.parent()) else {
        return Err(Error::Refused {
            op: "restore",
            path: item.file.clone(),
        });
    };
    let tfd = fs::open_dir_path(files).map_err(|e| Error::io("open", files, e))?;
    let meta = fs::stat_at(&tfd, in_trash).map_err(|e| Error::io("stat", &item.file, e))?;
    if meta.id != item.id {
        return Err(Error::Changed {
            path: item.file.clone(),
        });
    }
    std::fs::create_dir_all(parent).map_err(|e| Error::io("create folder", parent, e))?;
    let pfd = fs::open_dir_path(parent).map_err(|e| Error::io("open", parent, e))?;
    let taken = || Error::io("restore to", original, Errno::EXIST);
    match fs::stat_at(&pfd, name) {
        Ok(_) => return Err(taken()),
        Err(Errno::NOENT) => {}
        Err(e) => return Err(Error::io("stat", original, e)),
    }
    match fs::rename_noreplace(&tfd, in_trash, &pfd, name) {
        Ok(()) => {}
        Err(Errno::XDEV) => {
            if !copy_across(ctx, seq, item, &pfd, parent, name)? {
                return Ok(None);
            }
        }
        Err(Errno::EXIST | Errno::NOTEMPTY) => return Err(taken()),
        Err(e) => return Err(Error::io("restore", original, e)),
    }
    // Only once the item is back (and its copy, if any, gone) does the info file go.
    let here = fs::stat_at(&pfd, name).unwrap_or(meta);
    if fs::stat_at(rustix::fs::CWD, &item.file) == Err(Errno::NOENT) {
        match std::fs::remove_file(&item.info) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => ctx.fail(0, item.info.clone(), Error::io("delete", &item.info, e)),
        }
    }
    Ok(Some(record(
        original.clone(),
        item.file.clone(),
        item.info.clone(),
        &here,
    )))
}

/// Copies the trashed tree next to its original place, then renames it there. False when it
/// failed with the failures already reported (the trashed item stays whole).
fn copy_across(
    ctx: &JobCtx,
    seq: usize,
    item: &TrashedItem,
    pfd: &rustix::fd::OwnedFd,
    parent: &Path,
    name: &OsStr,
) -> Result<bool> {
    let staging_name = format!(".ferry-restore-{}-{}-{seq}", std::process::id(), ctx.id.0);
    let staging = parent.join(&staging_name);
    rustix::fs::mkdirat(pfd, staging_name.as_str(), Mode::from_raw_mode(0o700))
        .map_err(|e| Error::io("create folder", &staging, e))?;
    let placed = copy_into(ctx, item, &staging, pfd, name);
    // Empty after a successful rename; otherwise it holds a partial copy to delete.
    let cleaned = match rustix::fs::unlinkat(pfd, staging_name.as_str(), AtFlags::REMOVEDIR) {
        Ok(()) => true,
        Err(_) => remove_tree(ctx, &staging),
    };
    let placed = placed?;
    if !placed || !cleaned {
        return Ok(placed);
    }
    ctx.counters.set_phase(Phase::Deleting);
    remove_tree(ctx, &item.file);
    ctx.counters.set_phase(Phase::Copying);
    Ok(true)
}

/// The copy, flush and rename of [`copy_across`]; false when the copy failed (reported).
fn copy_into(
    ctx: &JobCtx,
    item: &TrashedItem,
    staging: &Path,
    pfd: &rustix::fd::OwnedFd,
    name: &OsStr,
) -> Result<bool> {
    let dest = Dest::open(staging)?;
    let sources = std::slice::from_ref(&item.file);
    let planned =
        Planner::new(ctx, PlanMode::Copy, ConflictPolicy::Skip, Some(&dest)).run(sources)?;
    let root = planned.plan.roots[0].item;
    if planned.plan.item(root).action == Action::Skip {
        return Ok(false);
    }
    let available = fs::available_bytes(&*dest.fd).unwrap_or(u64::MAX);
    if planned.needed_bytes > available {
        return Err(Error::NoSpace {
            path: staging.to_path_buf(),
            needed: planned.needed_bytes,
            available,
        });
    }
    let done = not_done(&planned);
    let roots = 0..planned.plan.roots.len();
    Copier::new(ctx, &planned.plan, &dest, &done, ConflictPolicy::Skip).run(roots);
    let complete = (0..planned.plan.items.len())
        .all(|i| planned.plan.items[i].action == Action::Skip || done[i].load(Relaxed) != 0);
    if !complete || ctx.control.stopped() {
        return Ok(false);
    }
    ctx.counters.set_phase(Phase::FinishingWrites);
    rustix::fs::syncfs(&*dest.fd).map_err(|e| Error::io("flush", staging, e))?;
    ctx.counters.set_phase(Phase::Copying);
    let in_trash = item.file.file_name().unwrap_or_default();
    match fs::rename_noreplace(&*dest.fd, in_trash, pfd, name) {
        Ok(()) => Ok(true),
        Err(Errno::EXIST | Errno::NOTEMPTY) => {
            Err(Error::io("restore to", &item.original, Errno::EXIST))
        }
        Err(e) => Err(Error::io("restore", &item.original, e)),
    }
}

/// Deletes `path` (a tree) with the engine's remover; true when it is gone.
fn remove_tree(ctx: &JobCtx, path: &Path) -> bool {
    let sources = [path.to_path_buf()];
    let Ok(planned) = Planner::new(ctx, PlanMode::Delete, ConflictPolicy::Skip, None).run(&sources)
    else {
        return false;
    };
    let plan = &planned.plan;
    let select = |i: u32| {
        if plan.item(i).action == Action::Skip {
            Select::Keep
        } else {
            Select::Remove
        }
    };
    let removed = remove_selected(ctx, plan, &select);
    removed[plan.roots[0].item as usize].load(Relaxed) != 0
}
