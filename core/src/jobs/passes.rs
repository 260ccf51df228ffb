//! Running a copy or move plan in passes: everything without a conflict first, then, as
//! answers arrive, the answered conflicts, each planned as a new root of the same plan (where
//! more conflicts may be found and asked about). Items a rename could not move (`EXDEV`) are
//! planned again the same way, to be copied and removed. The job ends when nothing is waiting.

use std::sync::atomic::AtomicU64;

use super::control::JobCtx;
use super::copy::Copier;
use super::dest::Dest;
use super::plan::{Mode, Plan, Planned, Planner};
use super::progress::Reporter;
use super::{ConflictPolicy, Event, Phase, Totals};
use crate::error::Error;

/// Copies (or renames) `planned`, then carries out answers to its conflicts until none is
/// waiting or the job stops. Returns the final plan, the per-item results and totals.
pub(crate) fn run(
    ctx: &JobCtx,
    mode: Mode,
    policy: ConflictPolicy,
    dest: &Dest,
    planned: Planned,
    mut done: Vec<AtomicU64>,
) -> (Plan, Vec<AtomicU64>, Totals) {
    let (mut plan, mut totals) = (planned.plan, planned.totals);
    let mut roots = 0..plan.roots.len();
    loop {
        let (staged, written, crossed) = std::thread::scope(|s| {
            let _reporter = Reporter::start(s, ctx, &plan, totals);
            ctx.counters.set_phase(Phase::Copying);
            let copier = Copier::new(ctx, &plan, dest, &done, policy);
            copier.run(roots.clone());
            (
                inner(copier.staged),
                inner(copier.written),
                inner(copier.crossed),
            )
        });
        plan.staged.extend(staged);
        for (i, size, mtime) in written {
            plan.set_written(i, size, mtime);
        }
        let start = plan.roots.len();
        let (planned, error) = if !crossed.is_empty() && !ctx.control.stopped() {
            Planner::resume(ctx, mode, policy, dest, plan).replan_crossed(crossed)
        } else if let Some(answers) = next_answers(ctx) {
            Planner::resume(ctx, mode, policy, dest, plan).extend(answers)
        } else {
            break;
        };
        (plan, totals) = (planned.plan, planned.totals);
        done.resize_with(plan.items.len(), || AtomicU64::new(0));
        if let Some(e) = error
            && !matches!(e, Error::Cancelled)
        {
            ctx.control.halt(std::sync::Arc::new(e));
        }
        if !planned.conflicts.is_empty() {
            ctx.emit(Event::Conflicts {
                job: ctx.id,
                conflicts: planned.conflicts,
            });
        }
        roots = start..plan.roots.len();
    }
    (plan, done, totals)
}

fn inner<T>(held: std::sync::Mutex<T>) -> T {
    held.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// Waits for the next answers; `None` when nothing is waiting any more or the job stops.
fn next_answers(ctx: &JobCtx) -> Option<Vec<(super::conflict::Waiting, super::Resolution)>> {
    let control = &ctx.control;
    loop {
        if control.stopped() {
            return None;
        }
        let (answers, waiting) = control.asks.take();
        if !answers.is_empty() {
            return Some(answers);
        }
        if !waiting {
            return None;
        }
        control.asks.wait(|| control.stopped());
    }
}
