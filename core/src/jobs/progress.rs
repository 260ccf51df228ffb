//! Progress: workers bump shared atomic counters; one reporter thread per job turns them into
//! at most ten [`Event::Progress`] a second, whatever the number of files.

use std::sync::atomic::{AtomicU8, AtomicU32, AtomicU64, Ordering::Relaxed};
use std::thread::Scope;
use std::time::{Duration, Instant};

use crossbeam_channel::{RecvTimeoutError, Sender};

use super::control::JobCtx;
use super::plan::{NO_ITEM, Plan};
use super::{Event, Phase, Progress, Totals};

/// Interval between progress events.
pub(crate) const TICK: Duration = Duration::from_millis(100);

/// Counters written by workers without any locking.
pub(crate) struct Counters {
    pub(crate) bytes: AtomicU64,
    pub(crate) items: AtomicU64,
    /// Bytes a crashed run had written, verified and kept (counted in `bytes` too).
    pub(crate) kept: AtomicU64,
    /// Plan index of an item being worked on, or [`NO_ITEM`].
    pub(crate) current: AtomicU32,
    phase: AtomicU8,
}

impl Default for Counters {
    fn default() -> Self {
        Counters {
            bytes: AtomicU64::new(0),
            items: AtomicU64::new(0),
            kept: AtomicU64::new(0),
            current: AtomicU32::new(NO_ITEM),
            phase: AtomicU8::new(Phase::Planning as u8),
        }
    }
}

impl Counters {
    pub(crate) fn set_phase(&self, phase: Phase) {
        self.phase.store(phase as u8, Relaxed);
    }

    pub(crate) fn phase(&self) -> Phase {
        match self.phase.load(Relaxed) {
            0 => Phase::Planning,
            1 => Phase::Copying,
            2 => Phase::FinishingWrites,
            _ => Phase::Deleting,
        }
    }

    pub(crate) fn add_item(&self) {
        self.items.fetch_add(1, Relaxed);
    }

    pub(crate) fn add_bytes(&self, n: u64) {
        self.bytes.fetch_add(n, Relaxed);
    }
}

/// Turns counters into events while a job executes; stops (with a last event) when dropped.
pub(crate) struct Reporter {
    stop: Option<Sender<()>>,
}

impl Drop for Reporter {
    fn drop(&mut self) {
        self.stop.take();
    }
}

impl Reporter {
    /// Starts the reporter thread inside `scope`.
    pub(crate) fn start<'s, 'e: 's>(
        scope: &'s Scope<'s, 'e>,
        ctx: &'e JobCtx,
        plan: &'e Plan,
        totals: Totals,
    ) -> Self {
        let (stop, stopped) = crossbeam_channel::bounded::<()>(0);
        scope.spawn(move || {
            let mut speed = Speed::default();
            let mut last: Option<Progress> = None;
            loop {
                let finished = match stopped.recv_timeout(TICK) {
                    Err(RecvTimeoutError::Timeout) => false,
                    Ok(()) | Err(RecvTimeoutError::Disconnected) => true,
                };
                let progress = snapshot(ctx, plan, &totals, &mut speed);
                if last.as_ref() != Some(&progress) {
                    ctx.emit(Event::Progress {
                        job: ctx.id,
                        progress: progress.clone(),
                    });
                    last = Some(progress);
                }
                if finished {
                    return;
                }
            }
        });
        Reporter { stop: Some(stop) }
    }
}

fn snapshot(ctx: &JobCtx, plan: &Plan, totals: &Totals, speed: &mut Speed) -> Progress {
    let c = &ctx.counters;
    let (bytes_done, items_done) = (c.bytes.load(Relaxed), c.items.load(Relaxed));
    // Deletes have no bytes to count: measure them in items.
    let (done, total) = if totals.bytes > 0 {
        (bytes_done, totals.bytes)
    } else {
        (items_done, totals.items)
    };
    let rate = speed.update(done);
    let current = c.current.load(Relaxed);
    Progress {
        phase: c.phase(),
        bytes_done,
        bytes_total: totals.bytes,
        items_done,
        items_total: totals.items,
        current: (current != NO_ITEM).then(|| plan.source_path(current)),
        speed: rate,
        eta: (rate > 0.0)
            .then(|| Duration::from_secs_f64(total.saturating_sub(done) as f64 / rate)),
        paused: ctx.control.is_paused(),
    }
}

/// Exponentially smoothed rate, so one slow file does not swing the estimate.
#[derive(Default)]
struct Speed {
    last: Option<(Instant, u64)>,
    rate: f64,
}

impl Speed {
    fn update(&mut self, done: u64) -> f64 {
        let now = Instant::now();
        if let Some((then, before)) = self.last {
            let dt = now.duration_since(then).as_secs_f64();
            if dt > 0.0 {
                let sample = done.saturating_sub(before) as f64 / dt;
                self.rate = if self.rate == 0.0 {
                    sample
                } else {
                    0.7 * self.rate + 0.3 * sample
                };
            }
        }
        self.last = Some((now, done));
        self.rate
    }
}

/// Reports planning progress from the walking thread itself (the plan is being built, so no
/// other thread may read it), at most once per tick.
pub(crate) struct PlanningTicker {
    last: Instant,
}

impl PlanningTicker {
    pub(crate) fn new() -> Self {
        PlanningTicker {
            last: Instant::now(),
        }
    }

    pub(crate) fn tick(&mut self, ctx: &JobCtx, items_found: u64) {
        if self.last.elapsed() < TICK {
            return;
        }
        self.last = Instant::now();
        let progress = Progress {
            phase: Phase::Planning,
            bytes_done: 0,
            bytes_total: 0,
            items_done: items_found,
            items_total: 0,
            current: None,
            speed: 0.0,
            eta: None,
            paused: ctx.control.is_paused(),
        };
        ctx.emit(Event::Progress {
            job: ctx.id,
            progress,
        });
    }
}
