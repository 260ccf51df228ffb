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

/// The speed shown (bytes, or items for a delete), and the paces of the bytes and of the
/// items, which the time left is reckoned from.
///
/// Each by itself: the time left is that of whichever of the two has the longer to go at
/// its own pace. Reckoned from the pace of the work ([`work`], items as bytes' worth), a
/// copy of 30,000 small files, then a 2 GB one, said "0 s left" for the whole minute of the
/// big file: the small files had gone at gigabytes' worth a second, and that pace held the
/// estimate for seconds after the big file began.
#[derive(Default)]
struct Speeds {
    shown: Speed,
    bytes: Speed,
    items: Speed,
}

fn snapshot(ctx: &JobCtx, plan: &Plan, totals: &Totals, speeds: &mut Speeds) -> Progress {
    // Items asked about are still to do: once answered, the plan had them done ("1,501 of
    // 1,501 items · 0 s left") until the job had planned the answers.
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
        speeds.bytes.pause();
        speeds.items.pause();
    } else {
        progress.speed = speeds.shown.update(shown);
        progress.eta = speeds.time_left_at(Instant::now(), (bytes_done, items_done), totals);
    }
    progress
}

impl Speeds {
    /// The time left with `done` (bytes, items) of `totals` at `now`, sampling both paces.
    fn time_left_at(
        &mut self,
        now: Instant,
        done: (u64, u64),
        totals: &Totals,
    ) -> Option<Duration> {
        self.bytes.update_at(now, done.0);
        self.items.update_at(now, done.1);
        let bytes = time_left(totals.bytes.saturating_sub(done.0), self.bytes.steady);
        let items = time_left(totals.items.saturating_sub(done.1), self.items.steady);
        items.zip(bytes).map(|(items, bytes)| items.max(bytes))
    }
}

/// Estimates beyond this say nothing: a rate decayed by a long stall.
const LONGEST_ESTIMATE: Duration = Duration::from_secs(30 * 24 * 3600);

/// Time to do `left` more at `rate` a second; none when the rate cannot tell (zero, or so
/// low after a stall that the quotient would be years, or beyond what a `Duration` holds).
fn time_left(left: u64, rate: f64) -> Option<Duration> {
    if left == 0 {
        return Some(Duration::ZERO);
    }
    if rate <= 0.0 {
        return None;
    }
    #[allow(clippy::cast_precision_loss)] // an estimate
    let secs = left as f64 / rate;
    Duration::try_from_secs_f64(secs)
        .ok()
        .filter(|d| *d <= LONGEST_ESTIMATE)
}

/// How long a change of pace takes to show in the speed shown (to about two thirds).
const SPEED_SMOOTHING: Duration = Duration::from_secs(2);

/// The same for the rate the time left is reckoned from: slower, so that a source that
/// delivers in bursts (a USB stick, a network share) does not swing it between minutes and
/// an hour from one tick to the next, as a rate smoothed over a few ticks did.
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
    /// The rate the time left is reckoned from.
    steady: f64,
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
                let smooth = |old: f64, over: Duration| {
                    if since < over.as_secs_f64() {
                        return average;
                    }
                    let keep = (-dt / over.as_secs_f64()).exp();
                    keep * old + (1.0 - keep) * sample
                };
                self.rate = smooth(self.rate, SPEED_SMOOTHING);
                self.steady = smooth(self.steady, ESTIMATE_SMOOTHING);
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
        assert_eq!(time_left(1_100_000_000, speed.steady), None);
        assert_eq!(time_left(1_000, 0.0), None);
        assert_eq!(time_left(1_000, 1e-300), None);
        assert_eq!(time_left(1_000, 100.0), Some(Duration::from_secs(10)));
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
    #[test]
    fn bursts_do_not_swing_the_time_left() {
        let start = Instant::now();
        let mut speed = Speed::default();
        let (total, mut done) = (600_000_000u64, 0u64);
        let mut estimates = Vec::new();
        for tick in 0..300u32 {
            if tick % 20 == 0 {
                done += 4_000_000;
            }
            speed.update_at(start + TICK * tick, done);
            if tick >= 100 {
                let left = time_left(total - done, speed.steady).unwrap().as_secs_f64();
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
