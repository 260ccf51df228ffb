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

    /// `n` items counted as done are not done after all (their copies went with a folder
    /// removed under the job): the summary and the history count what is there.
    pub(crate) fn take_back_items(&self, n: u64) {
        let _ = (self.items).fetch_update(Relaxed, Relaxed, |items| Some(items.saturating_sub(n)));
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
            let mut speeds = Speeds::default();
            let mut last: Option<Progress> = None;
            loop {
                let finished = match stopped.recv_timeout(TICK) {
                    Err(RecvTimeoutError::Timeout) => false,
                    Ok(()) | Err(RecvTimeoutError::Disconnected) => true,
                };
                let progress = snapshot(ctx, plan, &totals, &mut speeds);
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

    /// Reports the progress once, for a job whose work was all done before its reporter
    /// would have started.
    pub(crate) fn report_once(ctx: &JobCtx, plan: &Plan, totals: Totals) {
        let progress = snapshot(ctx, plan, &totals, &mut Speeds::default());
        ctx.emit(Event::Progress {
            job: ctx.id,
            progress,
        });
    }
}

/// What one item costs beside its bytes, in bytes' worth, in the time left and the share
/// done of a job that has bytes: making a file, giving it its mode and times, costs a local
/// disk about what writing 128 KiB does (a USB stick or a synced disk more, a tmpfs less).
/// Counted by bytes alone, a copy of four 500 MB files and 20,000 small ones said "0 s left"
/// and 100% with 18,800 items to go.
pub const ITEM_WORK: u64 = 128 * 1024;

/// The work of a job done and in all: its bytes and its items, each [`ITEM_WORK`] bytes'
/// worth; items alone for a job without bytes (a delete).
pub fn work(p: &Progress) -> (u64, u64) {
    if p.bytes_total == 0 {
        return (p.items_done, p.items_total);
    }
    let of = |bytes: u64, items: u64| bytes.saturating_add(items.saturating_mul(ITEM_WORK));
    (
        of(p.bytes_done, p.items_done),
        of(p.bytes_total, p.items_total),
    )
}

/// The speed shown (bytes, or items for a delete), and what the time left is reckoned from:
/// the cost of a byte and of an item ([`Costs`]).
///
/// Reckoned from the pace of the work ([`work`], items as bytes' worth), a copy of 30,000
/// small files, then a 2 GB one, said "0 s left" for the whole minute of the big file: the
/// small files had gone at gigabytes' worth a second. Reckoned from the longer of the bytes'
/// and the items' time left, each at its own pace, a 200 MB file before 3,000 small ones said
/// "48 h left" for a copy of seconds: no item was done while the big file was copied, and
/// the items' pace decayed towards nothing.
#[derive(Default)]
struct Speeds {
    shown: Speed,
    costs: Costs,
    /// The largest share done said so far: the bar never goes back when the costs change.
    share_said: f64,
}

fn snapshot(ctx: &JobCtx, plan: &Plan, totals: &Totals, speeds: &mut Speeds) -> Progress {
    // Items asked about are still to do: once answered, the plan had them done ("1,501 of
    // 1,501 items · 0 s left") until the job had planned the answers.
    let totals = &ctx.with_earlier_plans(totals);
    let totals = &Totals {
        items: totals.items + totals.asked,
        bytes: totals.bytes + totals.asked_bytes,
        ..*totals
    };
    let c = &ctx.counters;
    let (bytes_done, items_done) = (c.bytes.load(Relaxed), c.items.load(Relaxed));
    let paused = ctx.control.is_paused();
    let current = c.current.load(Relaxed);
    let mut progress = Progress {
        phase: c.phase(),
        bytes_done,
        bytes_total: totals.bytes,
        items_done,
        items_total: totals.items,
        current: (current != NO_ITEM).then(|| plan.source_path(current)),
        speed: 0.0,
        eta: None,
        share_done: None,
        paused,
    };
    // Deletes have no bytes to count: their speed is in items.
    let shown = if totals.bytes > 0 {
        bytes_done
    } else {
        items_done
    };
    if paused {
        progress.speed = speeds.shown.pause();
        speeds.costs.pause();
    } else {
        progress.speed = speeds.shown.update(shown);
        let done = (bytes_done, items_done);
        progress.eta = speeds.time_left_at(Instant::now(), done, totals);
        let left = (
            totals.bytes.saturating_sub(bytes_done),
            totals.items.saturating_sub(items_done),
        );
        progress.share_done = speeds.costs.share_done(done, left).map(|share| {
            speeds.share_said = share.max(speeds.share_said);
            speeds.share_said
        });
    }
    progress
}

impl Speeds {
    /// The time left with `done` (bytes, items) of `totals` at `now`.
    fn time_left_at(
        &mut self,
        now: Instant,
        done: (u64, u64),
        totals: &Totals,
    ) -> Option<Duration> {
        self.costs.update_at(now, done);
        let left = (
            totals.bytes.saturating_sub(done.0),
            totals.items.saturating_sub(done.1),
        );
        self.costs.time_left(left)
    }
}

/// What a byte and an item cost in time, from the job's progress seen over two spans: the
/// time, bytes and items of the last seconds ([`SPEED_SMOOTHING`]) and of a longer while
/// ([`ESTIMATE_SMOOTHING`]), each tick weighing less as it ages. Each span's time is a byte's
/// cost times its bytes plus an item's cost times its items: two equations, two costs. When
/// the work changes (small files, then a large one, or the reverse) the spans hold different
/// mixes and tell the two costs apart; the time left is then each cost times what is left of
/// it. When they hold the same mix (files of one size, or only bytes moving), the costs
/// cannot be told apart: each is taken to cost all the time, and the longer of the two times
/// left is said. Time with nothing done (a stall, a burst's wait) counts as the work's cost.
#[derive(Default)]
struct Costs {
    last: Option<(Instant, u64, u64)>,
    recent: Span,
    longer: Span,
}

/// Time, bytes and items, summed with weights that decay with age.
#[derive(Default, Clone, Copy)]
struct Span {
    time: f64,
    bytes: f64,
    items: f64,
}

impl Span {
    fn add(&mut self, over: Duration, (dt, bytes, items): (f64, f64, f64)) {
        let keep = (-dt / over.as_secs_f64()).exp();
        self.time = self.time * keep + dt;
        self.bytes = self.bytes * keep + bytes;
        self.items = self.items * keep + items;
    }
}

impl Costs {
    #[allow(clippy::cast_precision_loss)] // estimates
    fn update_at(&mut self, now: Instant, (bytes, items): (u64, u64)) {
        if let Some((then, bytes_before, items_before)) = self.last {
            let dt = now.duration_since(then).as_secs_f64();
            let done = (
                dt,
                bytes.saturating_sub(bytes_before) as f64,
                items.saturating_sub(items_before) as f64,
            );
            if dt > 0.0 {
                self.recent.add(SPEED_SMOOTHING, done);
                self.longer.add(ESTIMATE_SMOOTHING, done);
            }
        }
        self.last = Some((now, bytes, items));
    }

    /// While the job is paused: the first sample after the resume starts from the resume.
    fn pause(&mut self) {
        self.last = None;
    }

    /// The time left to do `(bytes, items)` more.
    fn time_left(&self, left: (u64, u64)) -> Option<Duration> {
        if left == (0, 0) {
            return Some(Duration::ZERO);
        }
        Duration::try_from_secs_f64(self.time_for(left)?)
            .ok()
            .filter(|d| *d <= LONGEST_ESTIMATE)
    }

    /// How much of the job is done, by the time `done` took and `left` will take at these
    /// costs; `None` when they are not known.
    fn share_done(&self, done: (u64, u64), left: (u64, u64)) -> Option<f64> {
        let (spent, to_go) = (self.time_for(done)?, self.time_for(left)?);
        (spent + to_go > 0.0).then(|| spent / (spent + to_go))
    }

    /// The time `(bytes, items)` take at these costs, in seconds.
    #[allow(clippy::cast_precision_loss)] // estimates
    fn time_for(&self, (bytes, items): (u64, u64)) -> Option<f64> {
        let (left_bytes, left_items) = (bytes as f64, items as f64);
        let (r, l) = (self.recent, self.longer);
        let alone = |work: f64| (work > 0.0).then(|| l.time / work);
        let det = r.bytes * l.items - l.bytes * r.items;
        let secs = if det.abs() > 0.05 * (r.bytes * l.items).abs().max((l.bytes * r.items).abs()) {
            let byte = (r.time * l.items - l.time * r.items) / det;
            let item = (r.bytes * l.time - l.bytes * r.time) / det;
            match (byte >= 0.0, item >= 0.0) {
                (true, true) => byte * left_bytes + item * left_items,
                (false, _) => alone(l.items)? * left_items,
                (_, false) => alone(l.bytes)? * left_bytes,
            }
        } else {
            let by_bytes = alone(l.bytes).map(|c| c * left_bytes);
            let by_items = alone(l.items).map(|c| c * left_items);
            match (by_bytes, by_items) {
                (Some(b), Some(i)) => b.max(i),
                (one, other) => one.or(other)?,
            }
        };
        secs.is_finite().then_some(secs)
    }
}

/// Estimates beyond this say nothing: a rate decayed by a long stall.
const LONGEST_ESTIMATE: Duration = Duration::from_secs(30 * 24 * 3600);

/// How long a change of pace takes to show in the speed shown (to about two thirds).
const SPEED_SMOOTHING: Duration = Duration::from_secs(2);

/// The same for the longer span the time left is reckoned from ([`Costs`]): slower, so that
/// a source that delivers in bursts (a USB stick, a network share) does not swing it between
/// minutes and an hour from one tick to the next, as a rate smoothed over a few ticks did.
const ESTIMATE_SMOOTHING: Duration = Duration::from_secs(8);

/// Rates smoothed over time (exponentially, by the time between samples, not their count),
/// so one slow file or one burst does not swing them.
#[derive(Default)]
struct Speed {
    /// The first sample: until a rate has been smoothed over its whole time, it is the
    /// average since then (one burst first would have stood for the pace for seconds).
    origin: Option<(Instant, u64)>,
    last: Option<(Instant, u64)>,
    /// The speed shown.
    rate: f64,
}

impl Speed {
    fn update(&mut self, done: u64) -> f64 {
        self.update_at(Instant::now(), done)
    }

    fn update_at(&mut self, now: Instant, done: u64) -> f64 {
        if let Some((then, before)) = self.last {
            let (first, at_first) = *self.origin.get_or_insert((then, before));
            let dt = now.duration_since(then).as_secs_f64();
            let since = now.duration_since(first).as_secs_f64();
            if dt > 0.0 {
                #[allow(clippy::cast_precision_loss)] // rates
                let (sample, average) = (
                    done.saturating_sub(before) as f64 / dt,
                    done.saturating_sub(at_first) as f64 / since,
                );
                let over = SPEED_SMOOTHING.as_secs_f64();
                self.rate = if since < over {
                    average
                } else {
                    let keep = (-dt / over).exp();
                    keep * self.rate + (1.0 - keep) * sample
                };
            }
        }
        self.last = Some((now, done));
        self.rate
    }

    /// While the job is paused: the rate stays what it was, and the first sample after the
    /// resume starts from the resume, not from before the pause.
    fn pause(&mut self) -> f64 {
        self.last = None;
        self.rate
    }
}

/// Reports the progress of a job counted by its items alone (planning, a trash or link job):
/// `items` done of a total, `bytes_done` so far, no speed and no time left.
pub(crate) fn report_counted(
    ctx: &JobCtx,
    phase: Phase,
    (items_done, items_total): (u64, u64),
    bytes_done: u64,
    current: Option<std::path::PathBuf>,
) {
    let progress = Progress {
        phase,
        bytes_done,
        bytes_total: 0,
        items_done,
        items_total,
        current,
        speed: 0.0,
        eta: None,
        share_done: None,
        paused: ctx.control.is_paused(),
    };
    ctx.emit(Event::Progress {
        job: ctx.id,
        progress,
    });
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
        report_counted(ctx, Phase::Planning, (items_found, 0), 0, None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn copying(bytes: (u64, u64), items: (u64, u64)) -> Progress {
        Progress {
            phase: Phase::Copying,
            bytes_done: bytes.0,
            bytes_total: bytes.1,
            items_done: items.0,
            items_total: items.1,
            current: None,
            speed: 0.0,
            eta: None,
            share_done: None,
            paused: false,
        }
    }

    /// Four 500 MB files and 20,000 small ones, the large ones done and 1,203 small ones: by
    /// bytes alone that was 100% (and "0 s left"); by the work, under half.
    #[test]
    fn the_work_counts_items_beside_bytes() {
        let total = 2_000_000_000 + 20_000 * 100;
        let large_done = copying((2_000_000_000 + 1_203 * 100, total), (1_207, 20_004));
        assert!(large_done.fraction() < 0.5, "{}", large_done.fraction());
        assert_eq!(copying((total, total), (20_004, 20_004)).fraction(), 1.0);
        assert!((copying((50, 100), (0, 0)).fraction() - 0.5).abs() < 1e-6);
        // A delete counts items.
        assert!((copying((0, 0), (1, 4)).fraction() - 0.25).abs() < 1e-6);
        assert_eq!(copying((0, 0), (0, 0)).fraction(), 0.0);
    }

    /// A copy stalled (a network share that stopped answering, say) for a minute of ticks: the
    /// smoothed rate decays towards zero and the time left must not overflow a `Duration`
    /// (it did, and the panic ended the job without a word: the window showed it running).
    #[test]
    fn a_stall_leaves_no_estimate_and_no_panic() {
        let start = Instant::now();
        let mut speed = Speed {
            last: Some((start, 0)),
            ..Speed::default()
        };
        speed.update_at(start + Duration::from_secs(61), 900_000_000);
        // Ten minutes of ticks without a byte.
        for tick in 1..=6_000 {
            speed.update_at(start + Duration::from_secs(61) + TICK * tick, 900_000_000);
        }
        assert!(speed.rate > 0.0 && speed.rate < 1e-60, "{}", speed.rate);
        let mut costs = Costs::default();
        costs.update_at(start, (0, 0));
        costs.update_at(start + Duration::from_secs(10), (1_000, 0));
        let left = costs.time_left((1_000, 0)).unwrap().as_secs_f64();
        assert!((left - 10.0).abs() < 1e-6, "{left}");
        for tick in 1..=6_000 {
            let now = start + Duration::from_secs(10) + TICK * tick;
            costs.update_at(now, (1_000, 0));
        }
        assert_eq!(costs.time_left((1_100_000_000, 1)), None);
    }

    #[test]
    fn a_pause_keeps_the_rate_and_restarts_the_sampling() {
        let mut speed = Speed {
            last: Some((Instant::now() - Duration::from_secs(1), 0)),
            ..Speed::default()
        };
        let rate = speed.update(1_000);
        assert!((900.0..1_100.0).contains(&rate), "{rate}");
        for _ in 0..1_000 {
            assert_eq!(speed.pause(), rate);
        }
        // The first tick after the resume only marks where sampling starts again.
        assert_eq!(speed.update(1_000), rate);
    }

    /// 30,000 files of 100 bytes in a second, then one of 2 GB at 100 MB/s: reckoned from
    /// the pace of the work, items as bytes' worth, the time left said about a second for
    /// most of the twenty the big file took. Now it is within a third of the truth from two
    /// seconds into the big file on.
    #[test]
    fn a_big_file_after_many_small_ones_is_not_said_to_take_no_time() {
        let start = Instant::now();
        let totals = Totals {
            items: 30_001,
            bytes: 30_000 * 100 + 2_000_000_000,
            ..Totals::default()
        };
        let mut speeds = Speeds::default();
        for tick in 0..=210u32 {
            let (bytes, items) = match tick {
                0..=10 => (u64::from(tick) * 300_000, u64::from(tick) * 3_000),
                _ => (3_000_000 + u64::from(tick - 10) * 10_000_000, 30_000),
            };
            let left = speeds.time_left_at(start + TICK * tick, (bytes, items), &totals);
            if (30..200).contains(&tick) {
                let truth = (totals.bytes - bytes) as f64 / 100_000_000.0;
                let said = left.expect("an estimate").as_secs_f64();
                assert!(
                    said > truth * 0.67 && said < truth * 1.5,
                    "{said} s for {truth} s"
                );
            }
        }
    }

    /// A source delivering 2 MB a second in bursts (4 MB in one tick, nothing for the next
    /// nineteen, as a USB stick or a throttled share does): the speed shown swung between
    /// 88 kB/s and 6.4 MB/s and the time left between 41 s and 55 min from tick to tick. Now
    /// the time left stays within a third of the truth once the bursts have been seen a while.
    /// A 200 MB file at 100 MB/s, then 3,000 small files at 3,000 a second: while the big
    /// file was copied no item was done, the items' own pace decayed towards nothing, and
    /// the time left said "48 h" for a copy of three seconds. Now, during the big file, it is
    /// the big file's time left (what small files cost cannot be known before one is done),
    /// and once they go, within a factor of two of the truth.
    #[test]
    fn small_files_after_a_big_one_are_not_said_to_take_hours() {
        let start = Instant::now();
        let totals = Totals {
            items: 3_001,
            bytes: 200_000_000 + 3_000 * 1_000,
            ..Totals::default()
        };
        let mut speeds = Speeds::default();
        for tick in 0..=30u32 {
            let (bytes, items) = match tick {
                0..=20 => (u64::from(tick) * 10_000_000, 0),
                _ => (
                    200_000_000 + u64::from(tick - 20) * 300_000,
                    u64::from(tick - 20) * 300,
                ),
            };
            let (bytes, items) = (bytes.min(totals.bytes), items.min(3_000));
            let left = speeds.time_left_at(start + TICK * tick, (bytes, items), &totals);
            let (low, truth) = match tick {
                0..=20 => (f64::from(20 - tick) * 0.1, f64::from(20 - tick) * 0.1 + 1.0),
                _ => (f64::from(30 - tick) * 0.05, f64::from(30 - tick) * 0.1),
            };
            if (5..30).contains(&tick) && tick != 20 {
                let said = left.expect("an estimate").as_secs_f64();
                assert!(
                    said > low * 0.67 && said < truth * 2.0,
                    "tick {tick}: {said} s for {truth} s"
                );
            }
            // The bar keeps step with the time spent, once small files have been seen.
            if tick >= 23 {
                let left = (totals.bytes - bytes, totals.items - items);
                let share = speeds.costs.share_done((bytes, items), left).unwrap();
                let truth = f64::from(tick) / 30.0;
                assert!(
                    (share - truth).abs() < 0.1,
                    "tick {tick}: {share} for {truth}"
                );
            }
        }
    }

    #[test]
    fn bursts_do_not_swing_the_time_left() {
        let start = Instant::now();
        let mut costs = Costs::default();
        let (total, mut done) = (600_000_000u64, 0u64);
        let mut estimates = Vec::new();
        for tick in 0..300u32 {
            if tick % 20 == 0 {
                done += 4_000_000;
            }
            costs.update_at(start + TICK * tick, (done, 0));
            if tick >= 100 {
                let left = costs.time_left((total - done, 1)).unwrap().as_secs_f64();
                let truth = (total - done) as f64 / 2_000_000.0;
                estimates.push(left / truth);
            }
        }
        let (low, high) = estimates
            .iter()
            .fold((f64::MAX, 0f64), |(l, h), &r| (l.min(r), h.max(r)));
        assert!(low > 0.67 && high < 1.5, "{low} .. {high}");
    }
}
