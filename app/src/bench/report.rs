//! The benchmark's output: a table on stdout and, with `--json FILE`, the same results with
//! every sample, the machine and the method.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context as _, Result};
use serde_json::{Map, Value, json};

use super::BenchArgs;
use super::area::Area;
use super::harness::{Measured, Tool};
use super::peers::{Peer, Peers};
use super::settle::{Settler, Spent};

/// How Ferry and the peers are run, for the output (the module docs say why).
const METHOD: &[(&str, &str)] = &[
    (
        "order",
        "rounds: every tool once per round on identical inputs, in an order shuffled every \
         round (seeded); medians over rounds",
    ),
    (
        "ratio",
        "median of the per-round ratios tool / classic peer (below 1: faster than it)",
    ),
    (
        "arms",
        "process: the ferry command spawned as a shell would, timed from spawn to exit; \
         in-process: ferry-core as the window runs it (DirService open until Loaded, Engine \
         start until Finished), no process start; window: the window's own job path without a \
         window (journal begin, the engine it keeps, every event routed, end recorded), \
         against `ferry cp`",
    ),
    (
        "frames",
        "window-*: update of one message plus view of the whole window (no rendering), on the \
         UI thread's CPU clock; wall-clock times in the JSON",
    ),
    (
        "peers",
        "spawned processes, output to /dev/null, timed from spawn to exit",
    ),
    (
        "settle",
        "before every run: sync, then wait (at most 3 s) until the disks under the scratch \
         folders are idle; caches stay warm",
    ),
    (
        "caches",
        "page and inode caches warm for every tool; 'cold' means not in Ferry's cache; \
         'warm' re-opens a folder Ferry's cache holds",
    ),
    (
        "fixtures",
        "built untimed, all ahead except move sources and tmpfs delete trees (built before \
         each round); delete trees hold empty files; outputs moved aside and deleted at the end (except on tmpfs, \
         and for the large files, deleted at once)",
    ),
    (
        "load",
        "load=busy: a process spinning on one CPU it is pinned to, the tools unpinned",
    ),
    (
        "move",
        "fs=work moves /dev/shm -> work tree, fs=shm moves work tree -> /dev/shm",
    ),
];

/// How the run was set up, beyond the arguments.
pub(super) struct Setup<'a> {
    /// Seed of the tools' order.
    pub seed: u64,
    /// The `ferry` the process arm spawns.
    pub ferry: &'a Path,
    /// The extra peers found.
    pub peers: &'a Peers,
    /// The settle step.
    pub settler: &'a Settler,
    /// Whether the races run again under load.
    pub load: bool,
}

/// Creating a small file slower than this (microseconds) means the filesystem is busy with
/// something else (a healthy ext4 here takes about 30, tmpfs about 10).
const SLOW_CREATE_US: f64 = 80.0;

/// Everything about the run that is not a result.
pub(super) struct Context {
    quick: bool,
    rounds: usize,
    spawn_ms: f64,
    seed: u64,
    load: bool,
    peers: Value,
    ferry: PathBuf,
    peer_lines: Vec<String>,
    disks: Vec<String>,
    areas: Vec<Value>,
    area_lines: Vec<String>,
    /// Areas whose file creation probe was far slower than a healthy filesystem's.
    slow_areas: Vec<(&'static str, f64)>,
    machine: Value,
}

impl Context {
    /// Gathers the run's settings and the machine's description.
    pub(super) fn new(
        args: &BenchArgs,
        rounds: usize,
        spawn_ms: f64,
        areas: &[&Area],
        setup: &Setup<'_>,
    ) -> Self {
        let found = setup.peers.found();
        let ferry_line = format!("ferry: {} (the process arm)", setup.ferry.display());
        let mut peer_lines: Vec<String> = std::iter::once(ferry_line)
            .chain(found.iter().map(|(p, exe)| match p {
                Peer::Floor => format!(
                    "floor: {} bench --floor-copy (the small-file copies' bare system \
                             calls: a reference, not a rival)",
                    exe.display()
                ),
                _ => format!("{}: {}", p.name(), exe.display()),
            }))
            .collect();
        peer_lines.extend(setup.peers.missing().iter().map(|p| {
            format!(
                "{}: not installed, skipped (`cargo install {}` adds it)",
                p.name(),
                p.name()
            )
        }));
        let peers: Map<String, Value> = (found.iter())
            .map(|(p, exe)| (p.name().to_owned(), json!(exe)))
            .chain(
                setup
                    .peers
                    .missing()
                    .iter()
                    .map(|p| (p.name().to_owned(), Value::Null)),
            )
            .collect();
        Context {
            quick: args.quick,
            rounds,
            spawn_ms,
            seed: setup.seed,
            load: setup.load,
            peers: Value::Object(peers),
            ferry: setup.ferry.to_path_buf(),
            peer_lines,
            disks: (setup.settler.disks().iter())
                .map(|d| d.display().to_string())
                .collect(),
            areas: areas.iter().map(|a| a.to_json()).collect(),
            area_lines: areas
                .iter()
                .map(|a| {
                    let waited = a.waited_for_deletions.as_secs_f64();
                    let waited = if waited > 0.0 {
                        format!(
                            " (after waiting {waited:.0} s: ext4 without a journal avoids the \
                             inodes freed in the last minute, longer after mass deletion)"
                        )
                    } else {
                        String::new()
                    };
                    format!(
                        "{:<5} {} ({}, {}); creating a 4 KiB file takes {:.0} us{waited}",
                        a.label,
                        a.root.display(),
                        a.fs_type,
                        a.mount_options,
                        a.create_us
                    )
                })
                .collect(),
            slow_areas: areas
                .iter()
                .filter(|a| a.create_us > SLOW_CREATE_US)
                .map(|a| (a.label, a.create_us))
                .collect(),
            machine: machine(spawn_ms),
        }
    }

    /// Prints what is about to be measured, to stderr (the table goes to stdout).
    pub(super) fn print_header(&self) {
        eprintln!(
            "ferry bench: {} rounds{}{}, tools shuffled with seed {} (a bare process spawn costs {:.2} ms here)",
            self.rounds,
            if self.quick { ", quick sizes" } else { "" },
            if self.load {
                ", then again with one CPU busy"
            } else {
                ""
            },
            self.seed,
            self.spawn_ms
        );
        for line in &self.peer_lines {
            eprintln!("  {line}");
        }
        for line in &self.area_lines {
            eprintln!("  {line}");
        }
        for (label, us) in &self.slow_areas {
            eprintln!(
                "  warning: creating files on {label} is slow right now ({us:.0} us per file), as on \
                 ext4 with `discard` shortly after mass deletion: its results will be distorted; \
                 waiting a few minutes helps"
            );
        }
        if cfg!(debug_assertions) {
            eprintln!("  warning: this is a debug build; measure with `cargo build --release`");
        }
    }
}

/// What `/proc` says about this machine, plus the spawn cost.
fn machine(spawn_ms: f64) -> Value {
    let read = |path: &str| fs::read_to_string(path).unwrap_or_default();
    let cpuinfo = read("/proc/cpuinfo");
    let cpu = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .map(|v| v.trim_start_matches([' ', '\t', ':']));
    let meminfo = read("/proc/meminfo");
    let mem_kb = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
    let env = |name: &str| std::env::var(name).ok();
    json!({
        "cpu": cpu,
        "cpus": std::thread::available_parallelism().map(usize::from).ok(),
        "allowed_cpus": super::load::allowed_cpus(),
        "mem_total_bytes": mem_kb.map(|kb| kb * 1024),
        "kernel": read("/proc/sys/kernel/osrelease").trim(),
        "locale": { "LANG": env("LANG"), "LC_ALL": env("LC_ALL"), "LC_COLLATE": env("LC_COLLATE") },
        "spawn_ms": spawn_ms,
        "ferry_version": env!("CARGO_PKG_VERSION"),
        "build": if cfg!(debug_assertions) { "debug" } else { "release" },
    })
}

/// One workload on one filesystem, for one arm of Ferry under one condition: its
/// measurement, or why it failed.
pub(super) struct Row {
    workload: &'static str,
    fs: &'static str,
    fs_type: String,
    peer: Option<&'static str>,
    arm: Option<Tool>,
    /// The CPU a busy process was pinned to, under load.
    load_cpu: Option<usize>,
    measured: Option<Measured>,
    error: Option<String>,
    wall: Duration,
}

/// A measured row: Ferry's arm (none for metrics), the busy CPU if under load, the numbers.
pub(super) type Outcome = Result<(Option<Tool>, Option<usize>, Measured)>;

impl Row {
    /// Wraps a workload's outcome.
    pub(super) fn new(
        workload: &'static str,
        area: &Area,
        peer: Option<&'static str>,
        outcome: Outcome,
        wall: Duration,
    ) -> Self {
        let (arm, load_cpu, measured, error) = match outcome {
            Ok((arm, cpu, m)) => (arm, cpu, Some(m), None),
            Err(err) => (None, None, None, Some(format!("{err:#}"))),
        };
        Row {
            workload,
            fs: area.label,
            fs_type: area.fs_type.clone(),
            peer,
            arm,
            load_cpu,
            measured,
            error,
            wall,
        }
    }

    fn arm_name(&self) -> &'static str {
        self.arm.and_then(Tool::arm).unwrap_or("-")
    }

    fn load_name(&self) -> &'static str {
        if self.load_cpu.is_some() {
            "busy"
        } else {
            "idle"
        }
    }

    /// One line for the progress log.
    pub(super) fn summary(&self) -> String {
        let Some(m) = &self.measured else {
            return format!("failed: {}", self.error.as_deref().unwrap_or("?"));
        };
        let mut line = match (m.value, m.ferry_ms(), m.peer_ms(), m.ratio()) {
            (Some((v, unit)), ..) => format!("{} {unit}", num(v)),
            (None, Some(f), Some(p), Some(r)) => {
                let mut line = format!(
                    "{} {}: ferry {} ms, {} {} ms, ratio {r:.2}x",
                    self.arm_name(),
                    self.load_name(),
                    num(f),
                    self.peer.unwrap_or("peer"),
                    num(p)
                );
                for (peer, times) in &m.peers {
                    let ratio = super::harness::median(&m.peer_ratios(times));
                    line.push_str(&format!(", {} {ratio:.2}x", peer.name()));
                }
                line
            }
            _ => String::from("no samples"),
        };
        if let Some(goal) = m.goal_text() {
            let verdict = if m.meets_goal() == Some(true) {
                "met"
            } else {
                "missed"
            };
            line.push_str(&format!(" (goal {goal}: {verdict})"));
        }
        line
    }

    fn to_json(&self, spawn_ms: f64) -> Value {
        let mut obj = Map::new();
        obj.insert("workload".into(), json!(self.workload));
        obj.insert("fs".into(), json!(self.fs));
        obj.insert("fs_type".into(), json!(self.fs_type));
        obj.insert("arm".into(), json!(self.arm.and_then(Tool::arm)));
        obj.insert("load".into(), json!(self.load_cpu.is_some()));
        obj.insert("load_cpu".into(), json!(self.load_cpu));
        obj.insert("peer".into(), json!(self.peer));
        let m = self.measured.as_ref();
        obj.insert("ferry_ms".into(), json!(m.and_then(Measured::ferry_ms)));
        obj.insert("peer_ms".into(), json!(m.and_then(Measured::peer_ms)));
        obj.insert("ratio".into(), json!(m.and_then(Measured::ratio)));
        obj.insert("value".into(), json!(m.and_then(|m| m.value).map(|v| v.0)));
        obj.insert("unit".into(), json!(m.and_then(|m| m.value).map(|v| v.1)));
        obj.insert("goal".into(), json!(m.and_then(|m| m.goal_text())));
        obj.insert("meets_goal".into(), json!(m.and_then(Measured::meets_goal)));
        obj.insert(
            "beats_peers".into(),
            json!(m.and_then(Measured::beats_peers)),
        );
        obj.insert("error".into(), json!(self.error));
        // Everything this workload took, fixtures and checks included.
        obj.insert("wall_s".into(), json!(self.wall.as_secs_f64()));
        if let Some(m) = m {
            obj.insert("params".into(), m.params.clone());
            obj.insert("ferry_samples_ms".into(), json!(m.samples.ferry_ms));
            obj.insert("peer_samples_ms".into(), json!(m.samples.peer_ms));
            obj.insert("ratios".into(), json!(m.ratios()));
            let peers: Map<String, Value> = (m.peers.iter())
                .map(|(peer, times)| {
                    let ratios = m.peer_ratios(times);
                    let entry = json!({
                        "ms": super::harness::median(times),
                        "ratio": super::harness::median(&ratios),
                        "samples_ms": times,
                        "ratios": ratios,
                    });
                    (peer.name().to_owned(), entry)
                })
                .collect();
            obj.insert("peers".into(), Value::Object(peers));
            let orders: Vec<Vec<&str>> = (m.orders.iter())
                .map(|o| o.iter().map(|t| t.name()).collect())
                .collect();
            obj.insert("orders".into(), json!(orders));
            if let Some(less) = m.ratio_less(spawn_ms) {
                // What the ratio would be if the peer paid no process start.
                obj.insert("ratio_less_spawn".into(), json!(less));
            }
            for (k, v) in &m.extra {
                obj.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        Value::Object(obj)
    }
}

/// A number with three significant digits or so.
fn num(v: f64) -> String {
    match v.abs() {
        a if a >= 100.0 => format!("{v:.0}"),
        a if a >= 10.0 => format!("{v:.1}"),
        a if a >= 1.0 => format!("{v:.2}"),
        _ => format!("{v:.3}"),
    }
}

/// A cross-workload goal: one value derived from two results.
struct Check {
    name: String,
    value: f64,
    /// The same quotient for the peer tool, where it has one: what the filesystem itself
    /// costs, beyond any tool.
    peer: Option<(&'static str, f64)>,
    goal: &'static str,
    met: bool,
}

/// The whole run.
pub(super) struct Report {
    /// Settings and machine.
    pub context: Context,
    /// One row per workload, filesystem, arm and condition, in the order they ran.
    pub results: Vec<Row>,
    /// What the settle steps cost.
    pub settled: Spent,
}

impl Report {
    /// The in-process arm's result of `workload` on `fs` on the quiet machine: what the
    /// cross-workload checks compare (the core's own scaling).
    fn core(&self, workload: &str, fs: &str) -> Option<&Measured> {
        self.results
            .iter()
            .find(|r| {
                r.workload == workload
                    && r.fs == fs
                    && r.arm == Some(Tool::InProcess)
                    && r.load_cpu.is_none()
            })
            .and_then(|r| r.measured.as_ref())
    }

    fn ferry_ms(&self, workload: &str, fs: &str) -> Option<f64> {
        self.core(workload, fs)?.ferry_ms()
    }

    fn peer_ms(&self, workload: &str, fs: &str) -> Option<f64> {
        self.core(workload, fs)?.peer_ms()
    }

    fn files(&self, workload: &str, fs: &str) -> Option<f64> {
        self.core(workload, fs)?.params["files"].as_f64()
    }

    /// Goals that compare workloads (in-process, quiet): deleting is independent of depth,
    /// listing is linear.
    fn checks(&self) -> Vec<Check> {
        let mut checks = Vec::new();
        for fs in ["work", "shm"] {
            if let (Some(deep), Some(flat)) = (
                self.ferry_ms("delete-15000-depth800", fs),
                self.ferry_ms("delete-15000-depth10", fs),
            ) {
                let value = deep / flat;
                let peer = self
                    .peer_ms("delete-15000-depth800", fs)
                    .zip(self.peer_ms("delete-15000-depth10", fs))
                    .map(|(deep, flat)| (super::jobs::RM, deep / flat));
                checks.push(Check {
                    name: format!("delete time, depth 800 / depth 10 ({fs})"),
                    value,
                    peer,
                    goal: "<= 1.1",
                    met: value <= 1.1,
                });
            }
            let per_entry = |w| Some(self.ferry_ms(w, fs)? / self.files(w, fs)?);
            if let (Some(large), Some(small)) =
                (per_entry("list-50k-cold"), per_entry("list-5k-cold"))
            {
                let value = large / small;
                checks.push(Check {
                    name: format!("cold listing cost per entry, 50k / 5k ({fs})"),
                    value,
                    peer: None,
                    goal: "<= 1.2 (linear)",
                    met: value <= 1.2,
                });
            }
        }
        checks
    }

    /// Prints the results table to stdout: a line per workload, filesystem, arm and load,
    /// and under it one per extra peer (its time and ratio to the classic peer).
    pub(super) fn print_table(&self) {
        println!(
            "\n{:<22} {:<4} {:<4} {:<10} {:>14}   {:<34} {:>9} {:>7}   goal",
            "workload", "fs", "load", "arm", "ferry", "peer", "peer", "ratio"
        );
        for row in &self.results {
            let fs = row.fs;
            let Some(m) = &row.measured else {
                println!(
                    "{:<22} {fs:<4} failed: {}",
                    row.workload,
                    row.error.as_deref().unwrap_or("?")
                );
                continue;
            };
            let ferry = match (m.value, m.ferry_ms()) {
                (Some((v, unit)), _) => format!("{} {unit}", num(v)),
                (None, Some(t)) => format!("{} ms", num(t)),
                (None, None) => String::from("-"),
            };
            let peer_ms = m
                .peer_ms()
                .map_or_else(String::new, |t| format!("{} ms", num(t)));
            let ratio = m.ratio().map_or_else(String::new, |r| format!("{r:.2}x"));
            let mut goal = match (m.goal_text(), m.meets_goal()) {
                (Some(g), Some(true)) => format!("{g}  met"),
                (Some(g), _) => format!("{g}  MISSED"),
                (None, _) => String::new(),
            };
            match m.beats_peers() {
                Some(true) => goal.push_str("; ahead of every peer"),
                Some(false) => goal.push_str("; BEHIND a peer"),
                None => {}
            }
            println!(
                "{:<22} {fs:<4} {:<4} {:<10} {ferry:>14}   {:<34} {peer_ms:>9} {ratio:>7}   {goal}",
                row.workload,
                if m.value.is_some() {
                    "-"
                } else {
                    row.load_name()
                },
                row.arm_name(),
                row.peer.unwrap_or("-"),
            );
            // The extra peers ran in the same rounds as both arms: print them once, under the
            // process arm's line.
            if row.arm == Some(Tool::Process) {
                for (peer, times) in &m.peers {
                    let ratio = super::harness::median(&m.peer_ratios(times));
                    println!(
                        "{:<22} {:<4} {:<4} {:<10} {:>14}   {:<34} {:>9} {:>7}",
                        "",
                        "",
                        "",
                        "",
                        "",
                        peer.name(),
                        format!("{} ms", num(super::harness::median(times))),
                        format!("{ratio:.2}x"),
                    );
                }
            }
        }
        let checks = self.checks();
        if !checks.is_empty() {
            println!();
            for c in &checks {
                let verdict = if c.met { "met" } else { "MISSED" };
                let peer = c
                    .peer
                    .map(|(tool, v)| format!("  ({tool} itself: {v:.2})"))
                    .unwrap_or_default();
                println!(
                    "{:<52} {:>6.2}   goal {}  {verdict}{peer}",
                    c.name, c.value, c.goal
                );
            }
        }
        let quick = if self.context.quick {
            " (quick sizes)"
        } else {
            ""
        };
        println!(
            "\n{} rounds{quick}, medians; fs work = the work tree's filesystem, fs shm = /dev/shm:",
            self.context.rounds
        );
        for line in &self.context.area_lines {
            println!("  {line}");
        }
        for (key, text) in METHOD {
            println!("  {key}: {text}");
        }
        println!(
            "  a bare process spawn costs {:.2} ms here (included in every process time)",
            self.context.spawn_ms
        );
        println!(
            "  tools shuffled with seed {} (repeat with --seed {}); settle: {} steps, sync {:.1} s, \
             waiting for idle disks {:.1} s ({}), {} timed out",
            self.context.seed,
            self.context.seed,
            self.settled.steps,
            self.settled.sync.as_secs_f64(),
            self.settled.idle_wait.as_secs_f64(),
            if self.context.disks.is_empty() {
                String::from("no disk")
            } else {
                self.context.disks.join(", ")
            },
            self.settled.timeouts
        );
        for line in &self.context.peer_lines {
            println!("  {line}");
        }
    }

    /// Writes the JSON report to `path`.
    pub(super) fn write_json(&self, path: &Path) -> Result<()> {
        let checks: Vec<Value> = self
            .checks()
            .into_iter()
            .map(|c| {
                json!({
                    "name": c.name,
                    "value": c.value,
                    "peer_value": c.peer.map(|(_, v)| v),
                    "goal": c.goal,
                    "meets_goal": c.met,
                })
            })
            .collect();
        let method: Map<String, Value> = METHOD
            .iter()
            .map(|(k, v)| ((*k).to_owned(), json!(v)))
            .collect();
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let doc = json!({
            "tool": "ferry bench",
            "finished_unix": started,
            "rounds": self.context.rounds,
            "quick": self.context.quick,
            "seed": self.context.seed,
            "load": self.context.load,
            "extra_peers": self.context.peers,
            "ferry": self.context.ferry,
            "settle": {
                "steps": self.settled.steps,
                "sync_s": self.settled.sync.as_secs_f64(),
                "idle_wait_s": self.settled.idle_wait.as_secs_f64(),
                "timeouts": self.settled.timeouts,
                "disks": self.context.disks,
            },
            "method": method,
            "machine": self.context.machine,
            "filesystems": self.context.areas,
            "results": self.results.iter().map(|r| r.to_json(self.context.spawn_ms)).collect::<Vec<_>>(),
            "checks": checks,
        });
        let text = serde_json::to_string_pretty(&doc)?;
        fs::write(path, text + "\n").with_context(|| format!("cannot write {}", path.display()))
    }
}
