//! `ferry bench`: Ferry against the standard tools, on this machine, in one run.
//!
//! # Method
//! - **Fixtures are built untimed**, in a scratch folder `ferry-bench-<pid>-work` on the work tree's
//!   filesystem (under the current folder, or `--dir`) and another under `/dev/shm`; both are
//!   removed at the end.
//! - **Who runs**: Ferry in two arms, and the peers. The **process** arm spawns `ferry cp|mv|rm|ls`
//!   (the `ferry` beside this program) exactly as a user's shell would, timed from spawn to exit
//!   like every peer: the number a user meets. The **in-process** arm runs the same `ferry-core`
//!   API the window uses ([`DirService`](ferry_core::dirs::DirService) for listings, the job
//!   `Engine` for copy, move and delete) in this process, timed from the call to the result: the
//!   number the window meets. Their difference is the process start and what the command does
//!   around the job (see the JSON's `spawn_ms` for a bare spawn). The classic peer (`ls -l`,
//!   `cp -r --preserve=mode,timestamps`, `mv`, `rm -rf`) is what ratios are taken against; `xcp`,
//!   `cpz` and `rmz` join the copies and deletes when found on `PATH` (skipped with a note
//!   otherwise). The **floor** (`floor.rs`) joins the copies as a reference, not a rival: the
//!   bare system calls of the copy in two threads, spawned like a peer, so that a ratio can be
//!   read against what the filesystem allows (on ext4, whose creates in one folder take turns,
//!   the floor is far higher than on tmpfs). The **window** arm (`window.rs`) runs the
//!   small-file copy through the window's own job path, headless, against `ferry cp`; the
//!   window's frames are measured there too.
//!   Output goes to `/dev/null`. Ferry's journal is the benchmark's own (`XDG_STATE_HOME` in the
//!   scratch folder), never the user's.
//! - **Rounds, shuffled**: each round runs every tool once, on identical inputs, in an order
//!   shuffled anew each round from a printed seed (`--seed` repeats it), so that neither the
//!   machine's drift nor what the previous tool left favours anyone. Reported: each tool's
//!   median time and the median of the per-round ratios tool / classic peer.
//! - **Settle step** before every timed run (`settle.rs`): `sync`, then a wait until the disks
//!   under the scratch folders are idle (the deferred writeback and, on a `discard` mount, the
//!   discards of the previous run). Caches stay warm, as a user's are.
//! - **Load** (`--load`): every race runs a second time with a busy process pinned to one CPU
//!   (`load.rs`); rows say `"load": true`.
//! - **Deletes are deferred** on every filesystem but tmpfs: outputs are moved into the scratch
//!   folder's trash and deleted at the very end. On ext4 without a journal, creating
//!   thousands of files within minutes of deleting thousands slows down by an order of
//!   magnitude (`area.rs` says why): deleting between runs would measure the kernel, not the
//!   tools. For the same reason, on such a filesystem the run starts with `sync`, a wait of a
//!   minute and then as long as creating files stays slow (`area.rs`), so that what was
//!   deleted before it (a previous run's clean-up) is forgotten (not under `--quick`), and
//!   every fixture that can be built ahead is built before the first workload runs (trees to
//!   delete for every round and tool included, except on tmpfs, whose inodes are
//!   bounded and which has no such slowdown: there each round's are built before it),
//!   workloads that delete run last, and
//!   delete trees hold empty files (the tools' walk and unlinks are measured, not the freeing
//!   of data blocks). Move sources are the exception: they are built right before each round,
//!   so that on ext4 they are still unwritten when moved and unlinking them frees no blocks.
//!   And the outputs of the large-file copy are deleted right away everywhere (90 GiB kept to
//!   the end would fill the disk); the settle step waits for their discards.
//! - The cross-filesystem move is measured in both directions: under `fs = work` it moves from
//!   `/dev/shm` into the work tree, under `fs = shm` from the work tree into `/dev/shm` (the
//!   result's `params` say `from` and `to`).
//! - `bytes-per-entry`, `ls-peak-rss` and `memory-after-12-folders` are measurements, not
//!   races: they run once, on `/dev/shm` (the filesystem does not change them, and tmpfs builds
//!   their files fastest), in fresh child processes where other workloads could blur them.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use ferry_cli::{BenchArgs, EXIT_OK, EXIT_PARTIAL, EXIT_REFUSED};

// The command line's printing, shadowing the standard macros in every module below so that
// none can panic on a closed pipe (see `ferry_cli::out`).
macro_rules! println {
    () => { ::ferry_cli::out::stdout(format_args!(""), true) };
    ($($arg:tt)*) => { ::ferry_cli::out::stdout(format_args!($($arg)*), true) };
}
macro_rules! eprintln {
    () => { ::ferry_cli::out::stderr(format_args!(""), true) };
    ($($arg:tt)*) => { ::ferry_cli::out::stderr(format_args!($($arg)*), true) };
}

mod area;
mod fixtures;
mod floor;
mod harness;
mod jobs;
mod listing;
mod load;
mod peers;
mod report;
mod settle;
mod window;

use area::Area;
use harness::{Comparison, FerryCommand, Goal, Measured, Shuffler, Tool};
use peers::Peers;
use settle::Settler;

/// Runs `ferry bench`: 0 when every workload ran, 1 when some failed, 2 on bad usage or when
/// the scratch folders cannot be made.
pub fn run(args: &BenchArgs) -> i32 {
    if let Some(cpu) = args.spin {
        return load::spin(cpu);
    }
    if let Some([src, dest]) = args.floor_copy.as_deref() {
        return match floor::copy(src, dest) {
            Ok(()) => EXIT_OK,
            Err(err) => {
                eprintln!("ferry bench: floor copy: {err:#}");
                EXIT_PARTIAL
            }
        };
    }
    if let Some(root) = &args.memory_probe {
        return match listing::memory_probe(root) {
            Ok(report) => {
                println!("{report}");
                EXIT_OK
            }
            Err(err) => {
                eprintln!("ferry bench: memory probe: {err:#}");
                EXIT_PARTIAL
            }
        };
    }
    match bench(args) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("ferry bench: {err:#}");
            EXIT_REFUSED
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
    /// Folders side by side that `delete_files` are spread over (a tree like `node_modules`).
    delete_folders: usize,
    window_copy_files: usize,
    window_entries: (usize, usize),
    conflicts: usize,
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
        delete_folders: 1_000,
        window_copy_files: 100_000,
        window_entries: (200_000, 10_000),
        conflicts: 2_000,
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
        delete_folders: 100,
        window_copy_files: 5_000,
        window_entries: (20_000, 1_000),
        conflicts: 200,
    };
}

/// One workload on one filesystem, ready to run.
struct Planned<'a> {
    workload: &'static str,
    area: &'a Area,
    peer: Option<&'static str>,
    task: Task<'a>,
}

/// What a race aims for, quiet and with one core busy (issue 9).
#[derive(Clone, Copy, Debug)]
struct Goals {
    quiet: Goal,
    loaded: Goal,
}

impl Goals {
    /// Ratio to the classic peer at most `quiet`, and `loaded` with one core busy.
    fn ratio(quiet: f64, loaded: f64) -> Goals {
        Goals {
            quiet: Goal::RatioAtMost(quiet),
            loaded: Goal::RatioAtMost(loaded),
        }
    }

    /// Ferry's median under `ms` milliseconds, loaded or not.
    fn ms(ms: f64) -> Goals {
        Goals {
            quiet: Goal::FerryMsBelow(ms),
            loaded: Goal::FerryMsBelow(ms),
        }
    }

    /// A goal for the quiet machine only.
    fn quiet(quiet: Goal) -> Goals {
        Goals {
            quiet,
            loaded: Goal::None,
        }
    }

    fn get(self, load: bool) -> Goal {
        if load { self.loaded } else { self.quiet }
    }
}

/// How a workload is measured.
enum Task<'a> {
    /// Raced against its peers, round by round.
    Race {
        work: Box<dyn Comparison + 'a>,
        params: serde_json::Value,
        goals: Goals,
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
    goals: Goals,
    work: impl Comparison + 'a,
) -> Planned<'a> {
    Planned {
        workload,
        area,
        peer: Some(peer),
        task: Task::Race {
            work: Box::new(work),
            params,
            goals,
        },
    }
}

/// Every workload in the order it runs: those that only create files first, those that delete
/// (moves out of the work tree, deletes) last, so no timed creation follows mass deletion.
fn plan<'a>(
    sizes: Sizes,
    work: &'a Area,
    shm: &'a Area,
    ferry: &'a FerryCommand,
    peers: &Peers,
) -> Vec<Planned<'a>> {
    use serde_json::json;
    let areas = [work, shm];
    let mut plan = Vec::new();
    for (files, cold, warm) in [
        (sizes.list_small, "list-5k-cold", "list-5k-warm"),
        (sizes.list_large, "list-50k-cold", "list-50k-warm"),
    ] {
        let (cold_goal, warm_goal) = if files == sizes.list_small {
            (Goal::RatioAtMost(0.4), Goal::FerryMsBelow(1.0))
        } else {
            // Issue 9: at most 0.30x `ls -l`.
            (Goal::RatioAtMost(0.3), Goal::None)
        };
        for area in areas {
            let params = json!({ "files": files });
            plan.push(compare(
                cold,
                area,
                listing::LS,
                params.clone(),
                Goals::quiet(cold_goal),
                listing::ListCold::new(area, files, ferry),
            ));
            plan.push(compare(
                warm,
                area,
                listing::LS,
                params,
                Goals::quiet(warm_goal),
                listing::ListWarm::new(area, files, ferry),
            ));
        }
    }
    // Measurements of memory, not races: the filesystem does not matter, and tmpfs builds
    // their files fastest.
    plan.push(Planned {
        workload: "bytes-per-entry",
        area: shm,
        peer: None,
        task: Task::Metric(Box::new(move || {
            listing::bytes_per_entry(shm, sizes.bytes_per_entry)
        })),
    });
    plan.push(Planned {
        workload: "ls-peak-rss",
        area: shm,
        peer: None,
        task: Task::Metric(Box::new(move || {
            listing::ls_peak_rss(shm, sizes.bytes_per_entry, ferry)
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
    plan.extend(window_plan(sizes, work, shm, ferry));
    // Job workloads come last: some of them delete.
    plan.extend(jobs::plan(sizes, work, shm, ferry, peers));
    plan
}

/// The window's workloads: its job path against `ferry cp`, and its frames.
fn window_plan<'a>(
    sizes: Sizes,
    work: &'a Area,
    shm: &'a Area,
    ferry: &'a FerryCommand,
) -> Vec<Planned<'a>> {
    let mut plan = Vec::new();
    let (files, size) = sizes.small_files;
    for area in [work, shm] {
        // Issue 11: a copy started from the window costs no more than `ferry cp` (1.05x).
        let copy = window::WindowCopy::new(area, files, size, ferry);
        let params = copy.params();
        plan.push(compare(
            "copy-5000x4k-window",
            area,
            window::FERRY_CP,
            params,
            Goals::ratio(1.05, 1.05),
            copy,
        ));
    }
    let metric = |workload, area, run: Box<dyn FnOnce() -> Result<Measured> + 'a>| Planned {
        workload,
        area,
        peer: None,
        task: Task::Metric(run),
    };
    // On tmpfs: the window's work per frame does not depend on the disk, tmpfs sends it the
    // most events a second, and 200,000 new files on the work tree would slow the disk races
    // that follow (ext4 with discard).
    let files = sizes.window_copy_files;
    plan.push(metric(
        "window-frames-during-copy-100k",
        shm,
        Box::new(move || window::frames_during_copy(shm, files, ferry)),
    ));
    // Built in memory: the filesystem plays no part.
    let (entries, selected) = sizes.window_entries;
    plan.push(metric(
        "window-drag-10k-of-200k",
        shm,
        Box::new(move || Ok(window::drag(entries, selected))),
    ));
    plan.push(metric(
        "window-scroll-200k",
        shm,
        Box::new(move || Ok(window::scroll(entries, selected))),
    ));
    // Issue 12: a batch of 10,000 files of which 2,000 conflict.
    let conflicts = sizes.conflicts;
    plan.push(metric(
        "window-conflict-table-2000-open",
        shm,
        Box::new(move || Ok(window::conflict_table_open(conflicts))),
    ));
    plan.push(metric(
        "window-conflict-table-2000-frame",
        shm,
        Box::new(move || Ok(window::conflict_table_frames(conflicts))),
    ));
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
    let mut work = Area::create("work", &parent)?;
    let mut shm = Area::create("shm", Path::new("/dev/shm"))?;
    let ferry = FerryCommand::new(work.path("state"))?;
    let this = std::env::current_exe().context("cannot find this executable")?;
    let peers = Peers::find(std::env::var_os("PATH").as_deref(), this);
    // A name that matches nothing is said at once, not after the work tree settles (minutes
    // after mass deletion).
    let matches = |p: &Planned<'_>| args.only.as_ref().is_none_or(|o| p.workload.contains(o));
    if !plan(sizes, &work, &shm, &ferry, &peers).iter().any(matches) {
        eprintln!(
            "ferry bench: no workload matches {:?}",
            args.only.as_deref().unwrap_or("")
        );
        return Ok(EXIT_REFUSED);
    }
    // A quick run checks that everything works, not the numbers: it does not wait.
    work.make_ready(!args.quick)?;
    shm.make_ready(!args.quick)?;
    let seed = args.seed.unwrap_or_else(Shuffler::clock_seed);
    let mut shuffler = Shuffler::new(seed);
    let settler = Settler::new(&[work.dev, shm.dev]);
    let conditions: &[bool] = if args.load { &[false, true] } else { &[false] };
    let spawn_ms = harness::spawn_cost_ms(21)?;
    let mut plan = plan(sizes, &work, &shm, &ferry, &peers);
    plan.retain(matches);
    let setup = report::Setup {
        seed,
        ferry: ferry.exe(),
        peers: &peers,
        settler: &settler,
        load: args.load,
    };
    let context = report::Context::new(args, rounds, spawn_ms, &[&work, &shm], &setup);
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
                let tools = work.tools();
                work.prepare(&tools, rounds * conditions.len())
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
        let rows = match (built, planned.task) {
            (Err(err), _) => vec![Err(err)],
            (Ok(()), Task::Metric(run)) => vec![run().map(|m| (None, None, m))],
            (
                Ok(()),
                Task::Race {
                    mut work,
                    params,
                    goals,
                },
            ) => {
                let tools = work.tools();
                let mut rows = Vec::new();
                for (k, &load) in conditions.iter().enumerate() {
                    let measured = race(
                        &mut *work,
                        &tools,
                        k * rounds..(k + 1) * rounds,
                        load,
                        &mut shuffler,
                        &settler,
                    );
                    match measured {
                        Ok((cpu, runs)) => {
                            for &arm in tools.iter().filter(|t| t.arm().is_some()) {
                                let goal = goals.get(load);
                                let m = Measured::timed(params.clone(), &runs, arm, goal);
                                rows.push(Ok((Some(arm), cpu, m)));
                            }
                        }
                        Err(err) => rows.push(Err(err)),
                    }
                }
                rows
            }
        };
        let wall = build_time + started.elapsed();
        for outcome in rows {
            if let Err(err) = &outcome {
                eprintln!(
                    "ferry bench: {} on {}: {err:#}",
                    planned.workload, area.label
                );
                failed = true;
            }
            let result = report::Row::new(planned.workload, area, planned.peer, outcome, wall);
            eprintln!("      {}", result.summary());
            results.push(result);
        }
        eprintln!("      [{:.1} s with fixtures]", wall.as_secs_f64());
    }
    let report = report::Report {
        context,
        results,
        settled: settler.spent(),
    };
    report.print_table();
    if let Some(path) = &args.json {
        report.write_json(path)?;
    }
    eprintln!("ferry bench: removing the scratch folders ...");
    drop((work, shm));
    Ok(if failed { EXIT_PARTIAL } else { EXIT_OK })
}

/// The rounds `rounds` of one race, with a busy process on one CPU if `load`: the CPU it was
/// pinned to, and every run.
fn race(
    work: &mut dyn Comparison,
    tools: &[Tool],
    rounds: std::ops::Range<usize>,
    load: bool,
    shuffler: &mut Shuffler,
    settler: &Settler,
) -> Result<(Option<usize>, harness::Runs)> {
    let mut busy = load.then(load::Load::start).transpose()?;
    let runs = harness::run_rounds(work, tools, rounds, shuffler, settler)?;
    if let Some(busy) = &mut busy {
        anyhow::ensure!(busy.running(), "the busy process died during the rounds");
    }
    Ok((busy.as_ref().map(|b| b.cpu), runs))
}
