//! The measuring machinery every workload shares: who runs, in which order, how each run is
//! timed, medians, and the record of one measured workload.
//!
//! A round runs every tool of a workload once, in an order shuffled anew each round (a seeded
//! [`Shuffler`]: the seed is printed, and `--seed` repeats a run's orders), with the settle
//! step (see `settle.rs`) before each run. Ferry takes part in two arms: **in-process**, through
//! `ferry-core` as the window runs it, and **process**, the `ferry` command spawned exactly as
//! a user's shell would (the `ferry` beside this program, from spawn to exit), like every peer.

use std::collections::HashMap;
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::Value;

use super::peers::Peer;
use super::settle::Settler;

/// Who runs in a round.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Tool {
    /// Ferry through `ferry-core`, in this process: what the window does.
    InProcess,
    /// Ferry as a spawned `ferry` command: what a user's shell does.
    Process,
    /// Ferry through the window's own job path (`gui::jobs`: the journal's begin, the engine
    /// the window keeps, the routing of every event, the end recorded), without a window.
    Window,
    /// The classic tool (`cp`, `mv`, `rm -rf`, `ls -l`): ratios are taken against it.
    Classic,
    /// An optional extra peer.
    Peer(Peer),
}

impl Tool {
    /// Lower-case name, for the report and fixture paths.
    pub(super) fn name(self) -> &'static str {
        match self {
            Tool::InProcess => "ferry-in-process",
            Tool::Process => "ferry",
            Tool::Window => "ferry-window",
            Tool::Classic => "classic",
            Tool::Peer(p) => p.name(),
        }
    }

    /// The arm's name in the report (`"in-process"`, `"process"`, `"window"`); `None` for
    /// other tools.
    pub(super) fn arm(self) -> Option<&'static str> {
        match self {
            Tool::InProcess => Some("in-process"),
            Tool::Process => Some("process"),
            Tool::Window => Some("window"),
            Tool::Classic | Tool::Peer(_) => None,
        }
    }
}

/// How to spawn the `ferry` command: the program of that name beside this one, as a shell runs
/// it, with a scratch state folder so that the undo journal the runs write is the
/// benchmark's, never the user's.
#[derive(Debug, Clone)]
pub(super) struct FerryCommand {
    exe: PathBuf,
    state_home: PathBuf,
}

impl FerryCommand {
    /// `ferry` beside this program, or this program (which runs every subcommand too) where
    /// there is none, as in the integration tests' build; its `XDG_STATE_HOME` is `state_home`.
    pub(super) fn new(state_home: PathBuf) -> Result<FerryCommand> {
        let this = std::env::current_exe().context("cannot find this executable")?;
        let beside = this.with_file_name("ferry");
        let exe = if beside.is_file() { beside } else { this };
        Ok(FerryCommand { exe, state_home })
    }

    /// The same command with its state folder in `state_home`.
    pub(super) fn with_state(&self, state_home: PathBuf) -> FerryCommand {
        FerryCommand {
            exe: self.exe.clone(),
            state_home,
        }
    }

    /// `ferry SUBCOMMAND`, to which the caller adds arguments.
    pub(super) fn command(&self, subcommand: &str) -> Command {
        let mut cmd = Command::new(&self.exe);
        cmd.arg(subcommand).env("XDG_STATE_HOME", &self.state_home);
        cmd
    }

    /// The undo journal the spawned commands write.
    pub(super) fn journal_file(&self) -> PathBuf {
        self.state_home.join("ferry").join("journal.jsonl")
    }

    /// The executable.
    pub(super) fn exe(&self) -> &Path {
        &self.exe
    }
}

/// One workload measured by running Ferry's arms and the other tools round by round.
///
/// The benchmark first calls [`prepare`](Self::prepare) on every workload of the run, so that
/// whatever can be built ahead exists before any workload deletes anything. Then, workload by
/// workload, [`run_rounds`] calls per round [`prepare_round`](Self::prepare_round), and for each
/// tool in the round's shuffled order: the settle step, the timed run, then
/// [`after`](Self::after).
pub(super) trait Comparison {
    /// The tools taking part (default: both arms of Ferry and the classic tool).
    fn tools(&self) -> Vec<Tool> {
        vec![Tool::InProcess, Tool::Process, Tool::Classic]
    }
    /// Builds ahead, untimed, the inputs every round reuses, and those the `rounds` rounds of
    /// `tools` consume where waiting for their round does them no harm.
    fn prepare(&mut self, tools: &[Tool], rounds: usize) -> Result<()>;
    /// Builds what round `round` consumes, for every tool, right before the round (untimed).
    fn prepare_round(&mut self, _tools: &[Tool], _round: usize) -> Result<()> {
        Ok(())
    }
    /// Runs Ferry in-process for round `round` and returns how long the work took.
    fn in_process(&mut self, round: usize) -> Result<Duration>;
    /// Runs Ferry through the window's job path for round `round` (for workloads that list
    /// [`Tool::Window`]).
    fn window(&mut self, _round: usize) -> Result<Duration> {
        bail!("this workload has no window arm")
    }
    /// The command of `tool` (any but [`Tool::InProcess`] and [`Tool::Window`]) for round
    /// `round`; the harness spawns and times it.
    fn command(&mut self, tool: Tool, round: usize) -> Command;
    /// Untimed, after each run: checks the result and moves the output aside.
    fn after(&mut self, _tool: Tool, _round: usize) -> Result<()> {
        Ok(())
    }
}

/// A small seeded random sequence (SplitMix64) for the order of the tools.
#[derive(Debug, Clone)]
pub(super) struct Shuffler {
    state: u64,
}

impl Shuffler {
    /// A sequence from `seed`.
    pub(super) fn new(seed: u64) -> Shuffler {
        Shuffler { state: seed }
    }

    /// A seed from the clock, for a run without `--seed`.
    pub(super) fn clock_seed() -> u64 {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        now.as_secs()
            ^ u64::from(now.subsec_nanos()).rotate_left(32)
            ^ u64::from(std::process::id())
    }

    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Shuffles `items` in place (Fisher-Yates).
    pub(super) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            items.swap(i, j);
        }
    }
}

/// Every run of a workload under one condition: each tool's time per round, and the orders.
#[derive(Debug, Default)]
pub(super) struct Runs {
    /// Milliseconds per round, by tool.
    pub times: HashMap<Tool, Vec<f64>>,
    /// The order the tools ran in, per round.
    pub orders: Vec<Vec<Tool>>,
}

impl Runs {
    /// The times of `tool` (empty if it did not run).
    pub(super) fn of(&self, tool: Tool) -> &[f64] {
        self.times.get(&tool).map_or(&[], Vec::as_slice)
    }
}

/// Runs the prepared `work`, rounds `rounds` (their numbers name the fixtures they use), every
/// tool of `tools` once per round in a shuffled order, each after a settle step.
pub(super) fn run_rounds(
    work: &mut dyn Comparison,
    tools: &[Tool],
    rounds: Range<usize>,
    shuffler: &mut Shuffler,
    settler: &Settler,
) -> Result<Runs> {
    let mut runs = Runs::default();
    for round in rounds {
        work.prepare_round(tools, round)?;
        let mut order = tools.to_vec();
        shuffler.shuffle(&mut order);
        for &tool in &order {
            settler.settle();
            let took = match tool {
                Tool::InProcess => work.in_process(round)?,
                Tool::Window => work.window(round)?,
                _ => time_command(&mut work.command(tool, round))
                    .with_context(|| format!("{} failed", tool.name()))?,
            };
            runs.times.entry(tool).or_default().push(ms(took));
            work.after(tool, round)?;
        }
        runs.orders.push(order);
    }
    Ok(runs)
}

/// Spawns `cmd` with no input and its output thrown away, waits for it, and returns the wall
/// time from spawn to exit. A failing command is an error (the measurement would be a lie).
pub(super) fn time_command(cmd: &mut Command) -> Result<Duration> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let start = Instant::now();
    let child = cmd.spawn().with_context(|| format!("cannot run {cmd:?}"))?;
    let output = child.wait_with_output()?;
    let elapsed = start.elapsed();
    if !output.status.success() {
        bail!(
            "{cmd:?} failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(elapsed)
}

/// Median wall time of spawning `/bin/true`: the process start cost every peer run includes.
pub(super) fn spawn_cost_ms(runs: usize) -> Result<f64> {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        times.push(ms(time_command(&mut Command::new("true"))?));
    }
    Ok(median(&times))
}

/// Milliseconds as a float.
pub(super) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The median (mean of the middle two for an even count); NaN for no samples.
pub(super) fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// What a workload aims for, from the issues.
#[derive(Clone, Copy, Debug)]
pub(super) enum Goal {
    /// Median per-round ratio Ferry / peer at most this.
    RatioAtMost(f64),
    /// Ferry's median time below this many milliseconds.
    FerryMsBelow(f64),
    /// The measured value at most this.
    ValueAtMost(f64),
    /// No goal stated.
    None,
}

impl Goal {
    /// Human-readable form for the table and the JSON.
    pub(super) fn describe(self) -> Option<String> {
        match self {
            Goal::RatioAtMost(r) => Some(format!("<= {r}x")),
            Goal::FerryMsBelow(t) => Some(format!("< {t} ms")),
            Goal::ValueAtMost(v) => Some(format!("<= {v}")),
            Goal::None => None,
        }
    }
}

/// Per-round timings of one arm of Ferry and the classic tool, in milliseconds.
#[derive(Debug, Default, Clone)]
pub(super) struct Samples {
    /// Ferry's time in each round.
    pub ferry_ms: Vec<f64>,
    /// The classic tool's time in each round.
    pub peer_ms: Vec<f64>,
}

/// The record of one workload on one filesystem, for one arm of Ferry under one condition.
#[derive(Debug)]
pub(super) struct Measured {
    /// The sizes actually used (they differ under `--quick`).
    pub params: Value,
    /// Timings per round, empty for metrics.
    pub samples: Samples,
    /// The extra peers' times in the same rounds.
    pub peers: Vec<(Peer, Vec<f64>)>,
    /// The order the tools ran in, per round.
    pub orders: Vec<Vec<Tool>>,
    /// A measured quantity other than time (bytes per entry, memory held), with its unit.
    pub value: Option<(f64, &'static str)>,
    /// What the issues ask for.
    pub goal: Goal,
    /// Anything else worth keeping (folded into the JSON result).
    pub extra: serde_json::Map<String, Value>,
}

impl Measured {
    /// A timed comparison result: Ferry's `arm` against the classic tool in `runs`.
    pub(super) fn timed(params: Value, runs: &Runs, arm: Tool, goal: Goal) -> Measured {
        let mut peers: Vec<(Peer, Vec<f64>)> = (runs.times.iter())
            .filter_map(|(tool, times)| match tool {
                Tool::Peer(p) => Some((*p, times.clone())),
                _ => None,
            })
            .collect();
        peers.sort_by_key(|(p, _)| *p);
        Measured {
            params,
            samples: Samples {
                ferry_ms: runs.of(arm).to_vec(),
                peer_ms: runs.of(Tool::Classic).to_vec(),
            },
            peers,
            orders: runs.orders.clone(),
            value: None,
            goal,
            extra: serde_json::Map::new(),
        }
    }

    /// A measured quantity: no race, no samples.
    pub(super) fn metric(params: Value, value: (f64, &'static str), goal: Goal) -> Measured {
        Measured {
            params,
            samples: Samples::default(),
            peers: Vec::new(),
            orders: Vec::new(),
            value: Some(value),
            goal,
            extra: serde_json::Map::new(),
        }
    }

    /// Median of Ferry's times, if timed.
    pub(super) fn ferry_ms(&self) -> Option<f64> {
        (!self.samples.ferry_ms.is_empty()).then(|| median(&self.samples.ferry_ms))
    }

    /// Median of the peer's times, if timed.
    pub(super) fn peer_ms(&self) -> Option<f64> {
        (!self.samples.peer_ms.is_empty()).then(|| median(&self.samples.peer_ms))
    }

    /// Ferry / peer in each round.
    pub(super) fn ratios(&self) -> Vec<f64> {
        self.samples
            .ferry_ms
            .iter()
            .zip(&self.samples.peer_ms)
            .map(|(f, p)| f / p)
            .collect()
    }

    /// Median of the per-round ratios (not the ratio of the medians: a round's two runs see
    /// the same machine state, so their ratio is the steadier number).
    pub(super) fn ratio(&self) -> Option<f64> {
        let ratios = self.ratios();
        (!ratios.is_empty()).then(|| median(&ratios))
    }

    /// `peer`'s per-round ratios to the classic tool.
    pub(super) fn peer_ratios(&self, times: &[f64]) -> Vec<f64> {
        (times.iter().zip(&self.samples.peer_ms))
            .map(|(t, c)| t / c)
            .collect()
    }

    /// Whether Ferry's ratio is below every extra peer's (the floor is no rival); `None`
    /// without extra peers.
    pub(super) fn beats_peers(&self) -> Option<bool> {
        let ours = self.ratio()?;
        let mut rivals = self.peers.iter().filter(|(p, _)| p.is_rival()).peekable();
        rivals.peek()?;
        Some(rivals.all(|(_, times)| ours < median(&self.peer_ratios(times))))
    }

    /// The goal as text, with the value's unit where it has one.
    pub(super) fn goal_text(&self) -> Option<String> {
        let text = self.goal.describe()?;
        Some(match (self.goal, self.value) {
            (Goal::ValueAtMost(_), Some((_, unit))) => format!("{text} {unit}"),
            _ => text,
        })
    }

    /// Median of the per-round ratios Ferry / (peer - `spawn_ms`): the ratio had the peer not
    /// paid for starting a process. `None` if not timed or a peer run was shorter than a spawn.
    pub(super) fn ratio_less(&self, spawn_ms: f64) -> Option<f64> {
        let ratios: Option<Vec<f64>> = (self.samples.ferry_ms.iter().zip(&self.samples.peer_ms))
            .map(|(f, p)| (p > &spawn_ms).then(|| f / (p - spawn_ms)))
            .collect();
        ratios.filter(|r| !r.is_empty()).map(|r| median(&r))
    }

    /// Whether the goal is met; `None` when there is no goal or nothing to judge.
    pub(super) fn meets_goal(&self) -> Option<bool> {
        match self.goal {
            Goal::RatioAtMost(max) => self.ratio().map(|r| r <= max),
            Goal::FerryMsBelow(max) => self.ferry_ms().map(|t| t < max),
            Goal::ValueAtMost(max) => self.value.map(|(v, _)| v <= max),
            Goal::None => None,
        }
    }
}

/// What this process holds in memory now, in bytes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Resident {
    /// Every page it has resident: its data and the pages of its executable it happened to read.
    pub(super) total: u64,
    /// The anonymous part of `total` (heap, stacks): what its data costs.
    pub(super) anon: u64,
}

impl Resident {
    /// Both counts from one read of `/proc/self/smaps_rollup`, which walks the page tables.
    /// `VmRSS` and `RssAnon` of `/proc/self/status` would be cheaper, but since Linux 6.2 they
    /// come from per-CPU counters read without their per-CPU parts: each CPU may hold up to 32
    /// pages back, and the memory probe saw readings taken a moment apart differ by exactly
    /// 128 KiB, as much as the goal's margin. Falls back to them where there is no rollup
    /// (Linux before 4.14).
    pub(super) fn now() -> Result<Resident> {
        let (file, total, anon) = match fs::read_to_string("/proc/self/smaps_rollup") {
            Ok(rollup) => (rollup, "Rss", "Anonymous"),
            Err(_) => (fs::read_to_string("/proc/self/status")?, "VmRSS", "RssAnon"),
        };
        Ok(Resident {
            total: kb_field(&file, total)?,
            anon: kb_field(&file, anon)?,
        })
    }
}

/// A `kB` field of a `/proc` file in `Name: value kB` lines, in bytes.
fn kb_field(file: &str, field: &str) -> Result<u64> {
    let kb = file
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .with_context(|| format!("no {field} in /proc/self"))?;
    Ok(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resident_memory_counts_what_is_touched() {
        // Other tests run beside this one in the process: only what it holds is certain.
        let held = std::hint::black_box(vec![1u8; 8 << 20]);
        let now = Resident::now().unwrap();
        assert!(now.anon >= 8 << 20 && now.anon <= now.total, "{now:?}");
        drop(held);
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    fn runs(ferry: &[f64], classic: &[f64], xcp: &[f64]) -> Runs {
        let mut runs = Runs::default();
        runs.times.insert(Tool::Process, ferry.to_vec());
        runs.times.insert(Tool::Classic, classic.to_vec());
        if !xcp.is_empty() {
            runs.times.insert(Tool::Peer(Peer::Xcp), xcp.to_vec());
        }
        runs
    }

    #[test]
    fn ratio_is_the_median_of_per_round_ratios() {
        let m = Measured::timed(
            Value::Null,
            &runs(&[1.0, 10.0, 3.0], &[2.0, 10.0, 12.0], &[]),
            Tool::Process,
            Goal::RatioAtMost(0.6),
        );
        // Ratios 0.5, 1.0, 0.25: the median is 0.5, while the ratio of medians would be 0.3.
        assert_eq!(m.ratio(), Some(0.5));
        assert_eq!(m.meets_goal(), Some(true));
        // Less the 1 ms a spawn costs, the peer took 1, 9 and 11 ms: ratios 1, 1.11, 0.27.
        assert_eq!(m.ratio_less(1.0), Some(1.0));
        assert_eq!(m.ratio_less(2.0), None);
        assert_eq!(m.beats_peers(), None);
        // The arm that did not run has no samples.
        let none = Measured::timed(Value::Null, &m_runs(), Tool::InProcess, Goal::None);
        assert_eq!(none.ratio(), None);
    }

    fn m_runs() -> Runs {
        runs(&[1.0], &[2.0], &[])
    }

    #[test]
    fn ferry_beats_a_peer_only_with_a_lower_median_ratio() {
        // Ferry's ratios 0.5, 0.5, 0.5; xcp's 0.4, 0.6, 0.45: median 0.45 < 0.5.
        let classic = [10.0, 10.0, 20.0];
        let behind = Measured::timed(
            Value::Null,
            &runs(&[5.0, 5.0, 10.0], &classic, &[4.0, 6.0, 9.0]),
            Tool::Process,
            Goal::None,
        );
        assert_eq!(behind.peers.len(), 1);
        assert_eq!(behind.beats_peers(), Some(false));
        let ahead = Measured::timed(
            Value::Null,
            &runs(&[4.0, 4.0, 8.0], &classic, &[4.0, 6.0, 9.0]),
            Tool::Process,
            Goal::None,
        );
        assert_eq!(ahead.beats_peers(), Some(true));
        // The floor is faster than Ferry and no rival: it neither counts nor stands alone.
        let mut with_floor = runs(&[4.0, 4.0, 8.0], &classic, &[4.0, 6.0, 9.0]);
        (with_floor.times).insert(Tool::Peer(Peer::Floor), vec![1.0, 1.0, 1.0]);
        let m = Measured::timed(Value::Null, &with_floor, Tool::Process, Goal::None);
        assert_eq!(m.beats_peers(), Some(true));
        with_floor.times.remove(&Tool::Peer(Peer::Xcp));
        let m = Measured::timed(Value::Null, &with_floor, Tool::Process, Goal::None);
        assert_eq!(m.beats_peers(), None);
    }

    #[test]
    fn shuffles_are_permutations_that_vary_and_repeat_with_the_seed() {
        let tools = [
            Tool::InProcess,
            Tool::Process,
            Tool::Classic,
            Tool::Peer(Peer::Xcp),
        ];
        let orders = |seed| {
            let mut s = Shuffler::new(seed);
            (0..40)
                .map(|_| {
                    let mut order = tools;
                    s.shuffle(&mut order);
                    order
                })
                .collect::<Vec<_>>()
        };
        let a = orders(7);
        assert_eq!(a, orders(7), "the same seed gives the same orders");
        assert_ne!(a, orders(8));
        for order in &a {
            let mut sorted = *order;
            sorted.sort();
            assert_eq!(sorted, tools, "not a permutation: {order:?}");
        }
        // Every tool runs first, and last, in some round: no tool keeps a place.
        for tool in tools {
            assert!(a.iter().any(|o| o[0] == tool), "{tool:?} never first");
            assert!(a.iter().any(|o| o[3] == tool), "{tool:?} never last");
        }
    }

    /// A workload whose tools record the order they ran in, to check the round loop.
    struct Recorder {
        ran: Vec<(usize, &'static str)>,
    }

    impl Comparison for Recorder {
        fn prepare(&mut self, _tools: &[Tool], _rounds: usize) -> Result<()> {
            Ok(())
        }
        fn in_process(&mut self, round: usize) -> Result<Duration> {
            self.ran.push((round, "in-process"));
            Ok(Duration::from_millis(1))
        }
        fn command(&mut self, tool: Tool, round: usize) -> Command {
            self.ran.push((round, tool.name()));
            Command::new("true")
        }
        fn after(&mut self, tool: Tool, round: usize) -> Result<()> {
            self.ran.push((
                round,
                if tool == Tool::Classic {
                    "after classic"
                } else {
                    "after"
                },
            ));
            Ok(())
        }
    }

    #[test]
    fn every_tool_runs_once_a_round_in_the_recorded_order() {
        let mut work = Recorder { ran: Vec::new() };
        let tools = work.tools();
        let settler = Settler::new(&[]);
        let mut shuffler = Shuffler::new(3);
        let runs = run_rounds(&mut work, &tools, 4..7, &mut shuffler, &settler).unwrap();
        assert_eq!(runs.orders.len(), 3);
        for tool in &tools {
            assert_eq!(runs.of(*tool).len(), 3, "{tool:?}");
        }
        assert_eq!(settler.spent().steps, 9, "one settle step before each run");
        // Each run is followed by its `after`, rounds keep their numbers, and the runs of
        // each round follow its recorded order.
        let names: Vec<Vec<&str>> = runs
            .orders
            .iter()
            .map(|o| {
                o.iter()
                    .map(|t| {
                        if *t == Tool::InProcess {
                            "in-process"
                        } else {
                            t.name()
                        }
                    })
                    .collect()
            })
            .collect();
        for (k, round) in (4..7).enumerate() {
            let ran: Vec<&str> = (work.ran.iter())
                .filter(|(r, n)| *r == round && !n.starts_with("after"))
                .map(|(_, n)| *n)
                .collect();
            assert_eq!(ran, names[k]);
        }
        assert_eq!(
            work.ran
                .iter()
                .filter(|(_, n)| *n == "after classic")
                .count(),
            3
        );
    }
}
