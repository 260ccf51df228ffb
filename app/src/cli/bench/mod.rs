//! `ferry bench`: Ferry against the standard tools, on this machine, in one run.
//!
//! # Method
//! - **Fixtures are built untimed**, in a scratch folder `ferry-bench-<pid>-work` on the work tree's
//!   filesystem (under the current folder, or `--dir`) and another under `/dev/shm`; both are
//!   removed at the end.
//! - **Interleaved rounds**: each round runs Ferry, then the peer tool, on identical inputs
//!   (A B A B ...), so slow drifts of the machine hit both alike. Reported: the median time of
//!   each side and the median of the per-round ratios Ferry / peer.
//! - **Ferry runs in-process**, through the same `ferry-core` API the window uses
//!   ([`DirService`](ferry_core::dirs::DirService) for listings, the job `Engine` for copy,
//!   move and delete): this is the benchmark of the core. **Peers are spawned processes**
//!   (`ls -l`, `cp -r --preserve=mode,timestamps`, `mv`, `rm -rf`) with output to `/dev/null`,
//!   timed from spawn to exit, so their times include a process start. The report measures a
//!   bare spawn (`true`) so the reader can weigh it (0.6 to 4 ms on a loaded 2-core VM: up to
//!   a tenth of `ls -l` on 5,000 files, a percent or less of the job workloads), and the JSON
//!   adds each ratio with that cost taken off the peer (`ratio_less_spawn`). A `ferry cp`
//!   process would instead pay for loading a GUI binary, which says nothing about the engine.
//! - **Caches**: "cold" listings are not in Ferry's cache; the kernel's page and inode caches
//!   are warm for both tools alike (dropping them needs root and measures the disk).
//! - **Deletes are deferred** on every filesystem but tmpfs: outputs are moved into the scratch
//!   folder's trash and deleted at the very end. On ext4 mounted with `discard` and without a
//!   journal, each freed extent is discarded synchronously, and creating thousands of files
//!   within a minute or two of deleting thousands slows down by an order of magnitude: deleting
//!   between runs would measure the kernel, not the tools. For the same reason every fixture
//!   that can be built ahead is built before the first workload runs (trees to delete for
//!   every round included), workloads that delete run last, and delete trees hold empty files
//!   (the tools' walk and unlinks are measured, not the freeing of data blocks). Move sources
//!   are the exception: they are built right before each round, so that on ext4 they are still
//!   unwritten when moved and unlinking them frees no blocks (no synchronous discards in
//!   either tool's time).
//! - Before each timed run of a job, the filesystem it writes to is `syncfs`ed (untimed), so
//!   no run pays for the previous run's writeback.
//! - The cross-filesystem move is measured in both directions: under `fs = work` it moves from
//!   `/dev/shm` into the work tree, under `fs = shm` from the work tree into `/dev/shm` (the
//!   result's `params` say `from` and `to`).
//! - `bytes-per-entry` and `memory-after-12-folders` are measurements, not races: they run once,
//!   on `/dev/shm` (the filesystem does not change them, and tmpfs builds their 440,000 files
//!   fastest), the latter in a fresh child process so that nothing else the benchmark did blurs
//!   its memory numbers.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;

mod fixtures;
mod harness;
mod jobs;
mod listing;
mod report;

use harness::{Area, Comparison, Goal, Measured};

/// Arguments of `ferry bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Rounds per workload; each round runs Ferry, then the peer tool.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: u32,
    /// Small sizes, for CI: finishes well under a minute.
    #[arg(long)]
    pub quick: bool,
    /// Run only the workloads whose name contains SUBSTRING.
    #[arg(long, value_name = "SUBSTRING")]
    pub only: Option<String>,
    /// Where to put the scratch folder on the work tree's filesystem (default: the current
    /// folder).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Also write the results as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Internal: walk the numbered folders under DIR and print a memory report as JSON (the
    /// benchmark runs itself with this in a fresh process).
    #[arg(long, hide = true, value_name = "DIR")]
    pub memory_probe: Option<PathBuf>,
}

/// Runs `ferry bench`: 0 when every workload ran, 1 when some failed, 2 on bad usage or when
/// the scratch folders cannot be made.
pub fn run(args: &BenchArgs) -> i32 {
    if let Some(root) = &args.memory_probe {
        return match listing::memory_probe(root) {
            Ok(report) => {
                println!("{report}");
                super::EXIT_OK
            }
            Err(err) => {
                eprintln!("ferry bench: memory probe: {err:#}");
                super::EXIT_PARTIAL
            }
        };
    }
    match bench(args) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("ferry bench: {err:#}");
            super::EXIT_REFUSED
        }
    }
}

/// Sizes of every workload; `--quick` scales them down. Workload names keep the full sizes so
/// results stay comparable by name; each result's `params` records what was actually used.
#[derive(Clone, Copy, Debug)]
struct Sizes {
    list_small: usize,
    list_large: usize,
    bytes_per_entry: usize,
    walk_folders: usize,
    walk_files: usize,
    small_files: (usize, usize),
    large_files: (usize, usize),
    moved_files: (usize, usize),
    delete_files: usize,
    depths: [usize; 3],
}

impl Sizes {
    const FULL: Sizes = Sizes {
        list_small: 5_000,
        list_large: 50_000,
        bytes_per_entry: 200_000,
        walk_folders: 12,
        walk_files: 20_000,
        small_files: (5_000, 4 << 10),
        large_files: (200, 5 << 20),
        moved_files: (5_000, 4 << 10),
        delete_files: 15_000,
        depths: [10, 100, 800],
    };
    const QUICK: Sizes = Sizes {
        list_small: 500,
        list_large: 5_000,
        bytes_per_entry: 20_000,
        walk_folders: 12,
        walk_files: 2_000,
        small_files: (500, 4 << 10),
        large_files: (10, 1 << 20),
        moved_files: (500, 4 << 10),
        delete_files: 1_500,
        depths: [10, 100, 800],
    };
}

/// One workload on one filesystem, ready to run.
struct Planned<'a> {
    workload: &'static str,
    area: &'a Area,
    peer: Option<&'static str>,
    task: Task<'a>,
}

/// How a workload is measured.
enum Task<'a> {
    /// Raced against its peer, round by round.
    Race {
        work: Box<dyn Comparison + 'a>,
        params: serde_json::Value,
        goal: Goal,
    },
    /// Measured once (builds its own fixtures).
    Metric(Box<dyn FnOnce() -> Result<Measured> + 'a>),
}

/// A timed comparison as a plan entry.
fn compare<'a>(
    workload: &'static str,
    area: &'a Area,
    peer: &'static str,
    params: serde_json::Value,
    goal: Goal,
    work: impl Comparison + 'a,
) -> Planned<'a> {
    Planned {
        workload,
        area,
        peer: Some(peer),
        task: Task::Race {
            work: Box::new(work),
            params,
            goal,
        },
    }
}

/// Every workload in the order it runs: those that only create files first, those that delete
/// (moves out of the work tree, deletes) last, so no timed creation follows mass deletion.
fn plan<'a>(sizes: Sizes, rounds: usize, work: &'a Area, shm: &'a Area) -> Vec<Planned<'a>> {
    use serde_json::json;
    let areas = [work, shm];
    let mut plan = Vec::new();
    for (files, cold, warm) in [
        (sizes.list_small, "list-5k-cold", "list-5k-warm"),
        (sizes.list_large, "list-50k-cold", "list-50k-warm"),
    ] {
        let warm_goal = if files == sizes.list_small {
            Goal::FerryMsBelow(1.0)
        } else {
            Goal::None
        };
        for area in areas {
            let params = json!({ "files": files });
            let ratio = Goal::RatioAtMost(0.4);
            plan.push(compare(
                cold,
                area,
                listing::LS,
                params.clone(),
                ratio,
                listing::ListCold::new(area, files),
            ));
            plan.push(compare(
                warm,
                area,
                listing::LS,
                params,
                warm_goal,
                listing::ListWarm::new(area, files),
            ));
        }
    }
    // Measurements of memory, not races: the filesystem does not matter, and tmpfs builds
    // their 440,000 files fastest.
    plan.push(Planned {
        workload: "bytes-per-entry",
        area: shm,
        peer: None,
        task: Task::Metric(Box::new(move || {
            listing::bytes_per_entry(shm, sizes.bytes_per_entry)
        })),
    });
    plan.push(Planned {
        workload: "memory-after-12-folders",
        area: shm,
        peer: None,
        task: Task::Metric(Box::new(move || {
            listing::memory_after_walk(shm, sizes.walk_folders, sizes.walk_files)
        })),
    });
    // Job workloads come last: some of them delete.
    plan.extend(jobs::plan(sizes, rounds, work, shm));
    plan
}

fn bench(args: &BenchArgs) -> Result<i32> {
    let sizes = if args.quick {
        Sizes::QUICK
    } else {
        Sizes::FULL
    };
    let rounds = args.rounds as usize;
    let parent = match &args.dir {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().context("no current folder")?,
    };
    let work = Area::create("work", &parent)?;
    let shm = Area::create("shm", Path::new("/dev/shm"))?;
    let spawn_ms = harness::spawn_cost_ms(21)?;
    let mut plan = plan(sizes, rounds, &work, &shm);
    if let Some(only) = &args.only {
        plan.retain(|p| p.workload.contains(only.as_str()));
    }
    if plan.is_empty() {
        eprintln!(
            "ferry bench: no workload matches {:?}",
            args.only.as_deref().unwrap_or("")
        );
        return Ok(super::EXIT_REFUSED);
    }
    let context = report::Context::new(args, rounds, spawn_ms, &[&work, &shm]);
    context.print_header();
    // Every fixture that can be built ahead is, before any workload deletes anything.
    let mut ready = Vec::with_capacity(plan.len());
    for planned in &mut plan {
        let started = Instant::now();
        let built = match &mut planned.task {
            Task::Race { work, .. } => {
                eprintln!(
                    "building fixtures: {} on {}",
                    planned.workload, planned.area.label
                );
                work.prepare()
            }
            Task::Metric(_) => Ok(()),
        };
        ready.push((built, started.elapsed()));
    }
    let total = plan.len();
    let mut results = Vec::with_capacity(total);
    let mut failed = false;
    for (i, (planned, (built, build_time))) in plan.into_iter().zip(ready).enumerate() {
        let area = planned.area;
        eprintln!(
            "[{}/{total}] {} on {} ({}) ...",
            i + 1,
            planned.workload,
            area.label,
            area.fs_type
        );
        let started = Instant::now();
        let outcome = built.and_then(|()| match planned.task {
            Task::Race {
                mut work,
                params,
                goal,
            } => harness::interleave(&mut *work, rounds)
                .map(|samples| Measured::timed(params, samples, goal)),
            Task::Metric(run) => run(),
        });
        let wall = build_time + started.elapsed();
        if let Err(err) = &outcome {
            eprintln!(
                "ferry bench: {} on {}: {err:#}",
                planned.workload, area.label
            );
            failed = true;
        }
        let result = report::Row::new(planned.workload, area, planned.peer, outcome, wall);
        eprintln!(
            "      {}  [{:.1} s with fixtures]",
            result.summary(),
            wall.as_secs_f64()
        );
        results.push(result);
    }
    let report = report::Report { context, results };
    report.print_table();
    if let Some(path) = &args.json {
        report.write_json(path)?;
    }
    eprintln!("ferry bench: removing the scratch folders ...");
    drop((work, shm));
    Ok(if failed {
        super::EXIT_PARTIAL
    } else {
        super::EXIT_OK
    })
}
