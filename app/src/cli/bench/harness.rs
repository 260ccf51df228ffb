//! The measuring machinery every workload shares: scratch areas on each filesystem, the
//! interleaved timing loop, medians, and the record of one measured workload.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use serde_json::Value;

/// Which tool a run belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Side {
    /// Ferry, through `ferry-core`.
    Ferry,
    /// The peer tool (`ls`, `cp`, `mv`, `rm`), as a spawned process.
    Peer,
}

impl Side {
    /// Lower-case name, used in fixture paths.
    pub(super) fn name(self) -> &'static str {
        match self {
            Side::Ferry => "ferry",
            Side::Peer => "peer",
        }
    }
}

/// Files created to check the health of a filesystem.
const PROBE_FILES: usize = 256;

/// A scratch folder on one filesystem. Everything the benchmark creates lives under it, and it
/// is removed (with everything moved aside into its trash) when the area is dropped, i.e. at the
/// very end of the run.
pub(super) struct Area {
    /// Stable label used in the report: `work` (the work tree's filesystem) or `shm`.
    pub label: &'static str,
    /// Filesystem type from the mount table (`ext4`, `tmpfs`, ...).
    pub fs_type: String,
    /// Mount options of that filesystem (shows `discard`, for instance).
    pub mount_options: String,
    /// The scratch folder.
    pub root: PathBuf,
    /// Device of the scratch folder, to tell whether two areas are different filesystems.
    pub dev: u64,
    /// Whether outputs are moved aside and deleted only at the end (everything but tmpfs), so
    /// that no timed run creates files shortly after thousands were deleted: on ext4 mounted
    /// with `discard` and no journal, every freed extent is discarded synchronously and file
    /// creation right after mass deletion slows down by an order of magnitude.
    pub defer_deletes: bool,
    /// Microseconds per file to create 256 files of 4 KiB here, measured when the area is
    /// made: a health check of the filesystem. Tens of microseconds normally; ten times more
    /// on ext4 with `discard` for a minute or two after mass deletion (e.g. right after the
    /// clean-up of a previous run), which then distorts every result on it.
    pub create_us: f64,
    trash: PathBuf,
    discarded: std::cell::Cell<u64>,
}

impl Area {
    /// Creates the scratch folder `ferry-bench-<pid>-<label>` inside `parent` (the label keeps
    /// two areas apart when `--dir` is `/dev/shm` itself).
    pub(super) fn create(label: &'static str, parent: &Path) -> Result<Area> {
        let root = parent.join(format!("ferry-bench-{}-{label}", std::process::id()));
        fs::create_dir(&root).with_context(|| format!("cannot create {}", root.display()))?;
        let root = root.canonicalize()?;
        let (fs_type, mount_options) = mount_of(&root).unwrap_or_default();
        // From here on, dropping the area removes the folder, also on an early return.
        let mut area = Area {
            label,
            defer_deletes: fs_type != "tmpfs",
            fs_type,
            mount_options,
            dev: fs::metadata(&root)?.dev(),
            trash: root.join("trash"),
            root,
            create_us: 0.0,
            discarded: std::cell::Cell::new(0),
        };
        fs::create_dir(&area.trash)?;
        let start = Instant::now();
        super::fixtures::flat(&area.path("probe"), PROBE_FILES, 4096)?;
        area.create_us = start.elapsed().as_secs_f64() * 1e6 / PROBE_FILES as f64;
        Ok(area)
    }

    /// `root/rel`.
    pub(super) fn path(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.root.join(rel)
    }

    /// Gets rid of a run's output: moved into the trash folder (deleted at the end) where
    /// deletes are deferred, deleted now on tmpfs. A path that does not exist is fine.
    pub(super) fn discard(&self, path: &Path) -> Result<()> {
        if fs::symlink_metadata(path).is_err() {
            return Ok(());
        }
        if self.defer_deletes {
            let n = self.discarded.get() + 1;
            self.discarded.set(n);
            let aside = self.trash.join(n.to_string());
            fs::rename(path, &aside)
                .with_context(|| format!("cannot move {} aside", path.display()))
        } else if path.is_dir() {
            fs::remove_dir_all(path).with_context(|| format!("cannot remove {}", path.display()))
        } else {
            fs::remove_file(path).with_context(|| format!("cannot remove {}", path.display()))
        }
    }

    /// Writes back this filesystem's dirty data (`syncfs`), so that a timed run does not pay
    /// for the writeback of the run before it.
    pub(super) fn settle(&self) -> Result<()> {
        let dir = fs::File::open(&self.root)?;
        rustix::fs::syncfs(&dir).with_context(|| format!("syncfs {}", self.root.display()))
    }

    /// Describes the area for the JSON report.
    pub(super) fn to_json(&self) -> Value {
        serde_json::json!({
            "label": self.label,
            "path": self.root,
            "type": self.fs_type,
            "mount_options": self.mount_options,
            "deferred_deletes": self.defer_deletes,
            "create_us_per_file": self.create_us,
        })
    }
}

impl Drop for Area {
    fn drop(&mut self) {
        if let Err(err) = fs::remove_dir_all(&self.root) {
            eprintln!("ferry bench: cannot remove {}: {err}", self.root.display());
        }
    }
}

/// The filesystem type and mount options of the mount holding `path` (longest mount point that
/// is a prefix of it), from `/proc/self/mountinfo`.
fn mount_of(path: &Path) -> Option<(String, String)> {
    let info = fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mut best: Option<(usize, String, String)> = None;
    for line in info.lines() {
        // id parent major:minor root mount_point options [optional...] - type source super_options
        let (left, right) = line.split_once(" - ")?;
        let left: Vec<&str> = left.split(' ').collect();
        let right: Vec<&str> = right.split(' ').collect();
        let (Some(mount_point), Some(options), Some(fs_type)) =
            (left.get(4), left.get(5), right.first())
        else {
            continue;
        };
        let mount_point = unescape_mount(mount_point);
        if path.starts_with(&mount_point) && best.as_ref().is_none_or(|b| mount_point.len() >= b.0)
        {
            // Per-mount options, then the filesystem's own (where `discard` shows).
            let mut all: Vec<&str> = options.split(',').collect();
            for opt in right.get(2).map_or("", |o| *o).split(',') {
                if !all.contains(&opt) {
                    all.push(opt);
                }
            }
            best = Some((mount_point.len(), (*fs_type).to_owned(), all.join(",")));
        }
    }
    best.map(|(_, t, o)| (t, o))
}

/// Undoes the octal escapes (`\040` for a space) of a mountinfo path.
fn unescape_mount(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && let Some(code) = field
                .get(i + 1..i + 4)
                .and_then(|o| u8::from_str_radix(o, 8).ok())
        {
            out.push(code);
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One workload measured by alternating Ferry and a peer tool.
///
/// The benchmark first calls [`prepare`](Self::prepare) on every workload of the run, so that
/// whatever can be built ahead exists before any workload deletes anything. Then, workload by
/// workload, [`interleave`] calls per round: [`prepare_round`](Self::prepare_round), then
/// `settle`, Ferry's run, `after`, `settle`, the peer's run, `after`.
pub(super) trait Comparison {
    /// Builds ahead, untimed, the inputs every round reuses, and those the rounds consume where
    /// waiting for their round does them no harm.
    fn prepare(&mut self) -> Result<()>;
    /// Builds what round `round` consumes, for both sides, right before the round (untimed).
    fn prepare_round(&mut self, _round: usize) -> Result<()> {
        Ok(())
    }
    /// Untimed, right before each timed run.
    fn settle(&mut self) -> Result<()> {
        Ok(())
    }
    /// Runs Ferry's side of round `round` and returns how long the work took.
    fn ferry(&mut self, round: usize) -> Result<Duration>;
    /// The peer's command for round `round`; the harness spawns and times it.
    fn peer(&mut self, round: usize) -> Command;
    /// Untimed, after each run: checks the result and moves the output aside.
    fn after(&mut self, _side: Side, _round: usize) -> Result<()> {
        Ok(())
    }
}

/// Per-round timings of both sides, in milliseconds.
#[derive(Debug, Default)]
pub(super) struct Samples {
    /// Ferry's time in each round.
    pub ferry_ms: Vec<f64>,
    /// The peer's time in each round.
    pub peer_ms: Vec<f64>,
}

/// Runs the prepared `work` for `rounds` rounds, Ferry then the peer in each (A B A B ...).
pub(super) fn interleave(work: &mut dyn Comparison, rounds: usize) -> Result<Samples> {
    let mut samples = Samples::default();
    for round in 0..rounds {
        work.prepare_round(round)?;
        work.settle()?;
        samples.ferry_ms.push(ms(work.ferry(round)?));
        work.after(Side::Ferry, round)?;
        work.settle()?;
        samples
            .peer_ms
            .push(ms(time_command(&mut work.peer(round))?));
        work.after(Side::Peer, round)?;
    }
    Ok(samples)
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

/// The record of one workload on one filesystem.
#[derive(Debug)]
pub(super) struct Measured {
    /// The sizes actually used (they differ under `--quick`).
    pub params: Value,
    /// Timings per round, empty for metrics.
    pub samples: Samples,
    /// A measured quantity other than time (bytes per entry, memory held), with its unit.
    pub value: Option<(f64, &'static str)>,
    /// What the issues ask for.
    pub goal: Goal,
    /// Anything else worth keeping (folded into the JSON result).
    pub extra: serde_json::Map<String, Value>,
}

impl Measured {
    /// A timed comparison result.
    pub(super) fn timed(params: Value, samples: Samples, goal: Goal) -> Measured {
        Measured {
            params,
            samples,
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

/// Resident set size of this process in bytes (`VmRSS` of `/proc/self/status`).
pub(super) fn rss_bytes() -> Result<u64> {
    status_bytes("VmRSS")
}

/// The part of [`rss_bytes`] that is anonymous memory (heap, stacks), in bytes: what a
/// program's data costs, without the pages of its executable it happened to read.
pub(super) fn rss_anon_bytes() -> Result<u64> {
    status_bytes("RssAnon")
}

/// A `kB` field of `/proc/self/status`, in bytes.
fn status_bytes(field: &str) -> Result<u64> {
    let status = fs::read_to_string("/proc/self/status")?;
    let kb = status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .with_context(|| format!("no {field} in /proc/self/status"))?;
    Ok(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn mount_paths_are_unescaped() {
        assert_eq!(unescape_mount(r"/mnt/with\040space"), "/mnt/with space");
        assert_eq!(unescape_mount("/plain"), "/plain");
    }

    #[test]
    fn ratio_is_the_median_of_per_round_ratios() {
        let samples = Samples {
            ferry_ms: vec![1.0, 10.0, 3.0],
            peer_ms: vec![2.0, 10.0, 12.0],
        };
        let m = Measured::timed(Value::Null, samples, Goal::RatioAtMost(0.6));
        // Ratios 0.5, 1.0, 0.25: the median is 0.5, while the ratio of medians would be 0.3.
        assert_eq!(m.ratio(), Some(0.5));
        assert_eq!(m.meets_goal(), Some(true));
        // Less the 1 ms a spawn costs, the peer took 1, 9 and 11 ms: ratios 1, 1.11, 0.27.
        assert_eq!(m.ratio_less(1.0), Some(1.0));
        assert_eq!(m.ratio_less(2.0), None);
    }
}
