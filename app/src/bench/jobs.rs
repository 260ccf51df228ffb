//! Job workloads (issues 3 and 9): copy, cross-filesystem move and delete, against `cp`, `mv`
//! and `rm -rf` (and `xcp`, `cpz`, `rmz` where installed) on the same input, and the cost of
//! a full undo journal to one small copy.
//!
//! Ferry's in-process arm runs through the [`Engine`] the window uses: the time runs from
//! `Engine::start` to the job's `Finished` event (planning, progress counters, conflict checks
//! and the final summary included), and for copies and moves from the undo journal's `begin`
//! to its `end`, as the window records every job. The process arm is `ferry cp|mv|rm`, whose
//! time also holds the process start and what the command does around the job (the journal's
//! start-up checks, the summary). Both write one journal, on the work tree like a user's own.
//! Every run gets its own input and output: trees to delete are built ahead for every round
//! and tool, move sources right before each round, and outputs are moved aside afterwards (see
//! [`Area::discard`]).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use ferry_core::jobs::{
    ConflictPolicy, DEFAULT_LIMIT, Engine, Event, Job, JobOptions, UndoJournal,
};
use serde_json::{Value, json};

use super::area::Area;
use super::fixtures;
use super::harness::{Comparison, FerryCommand, Tool};
use super::peers::{Peer, Peers};
use super::{Goals, Planned, Sizes, compare};

/// Longest wait for one job before the benchmark gives up.
const PATIENCE: Duration = Duration::from_secs(600);

/// Files from this size on make outputs deleted at once rather than at the end (see
/// [`Area::discard_now`]).
const LARGE_FILE: usize = 1 << 20;

/// The peer of the copy workloads.
pub(super) const CP: &str = "cp -r --preserve=mode,timestamps";
/// The peer of the one-file copy.
pub(super) const CP_FILE: &str = "cp --preserve=mode,timestamps";
/// The peer of the move workload.
pub(super) const MV: &str = "mv";
/// The peer of the delete workloads.
pub(super) const RM: &str = "rm -rf";

/// The job workloads in the order they run: copies, the move into the work tree (it deletes
/// only on tmpfs), then those that delete on the work tree's filesystem.
pub(super) fn plan<'a>(
    sizes: Sizes,
    work: &'a Area,
    shm: &'a Area,
    ferry: &FerryCommand,
    peers: &Peers,
) -> Vec<Planned<'a>> {
    let areas = [work, shm];
    let journal = UndoJournal::at(ferry.journal_file());
    let mut plan = Vec::new();
    for (workload, (files, size)) in [
        ("copy-5000x4k", sizes.small_files),
        ("copy-200x5m", sizes.large_files),
    ] {
        for area in areas {
            // Issue 9: small files at most 0.50x cp, 0.60x with one core busy.
            let goals = match (workload, area.fs_type.as_str()) {
                ("copy-5000x4k", _) => Goals::ratio(0.5, 0.6),
                ("copy-200x5m", "tmpfs") => Goals::ratio(0.6, 0.6),
                _ => Goals::ratio(1.0, 1.0),
            };
            let copy = Copy::new(area, files, size, journal.clone(), ferry, peers);
            plan.push(compare(workload, area, CP, copy.params(), goals, copy));
        }
    }
    plan.push(compare(
        "copy-1-full-journal",
        work,
        CP_FILE,
        json!({ "files": 1, "file_bytes": 4096, "journal_lines": FullJournal::LINES }),
        Goals::ms(10.0),
        FullJournal::new(work, ferry),
    ));
    if work.dev == shm.dev {
        eprintln!(
            "ferry bench: the work folder is on /dev/shm's filesystem: no cross-filesystem move"
        );
    } else {
        let (files, size) = sizes.moved_files;
        // Into the work tree first: it deletes only on tmpfs.
        for (from, to) in [(shm, work), (work, shm)] {
            let mv = Move::new(from, to, files, size, journal.clone(), ferry);
            plan.push(compare(
                "move-xfs-5000x4k",
                to,
                MV,
                mv.params(),
                Goals::ratio(1.0, 1.0),
                mv,
            ));
        }
    }
    for (workload, depth) in [
        "delete-15000-depth10",
        "delete-15000-depth100",
        "delete-15000-depth800",
    ]
    .into_iter()
    .zip(sizes.depths)
    {
        for area in areas {
            // Issue 9: depth 10 at most 0.65x rm -rf (0.85x with one core busy); depth 800
            // at most 0.80x (0.85x on a disk, where discards bind every tool).
            let goals = match (depth, area.fs_type.as_str()) {
                (10, _) => Goals::ratio(0.65, 0.85),
                (800, "tmpfs") => Goals::ratio(0.8, 0.9),
                (800, _) => Goals::ratio(0.85, 0.9),
                _ => Goals::ratio(0.9, 0.9),
            };
            let shape = Shape::Chain(depth);
            let delete = Delete::new(area, sizes.delete_files, shape, ferry, peers);
            plan.push(compare(workload, area, RM, delete.params(), goals, delete));
        }
    }
    for area in areas {
        // A tree of many small folders, as most trees users delete are: held to the goals of
        // the shallow chain.
        let shape = Shape::Folders(sizes.delete_folders);
        let delete = Delete::new(area, sizes.delete_files, shape, ferry, peers);
        let goals = Goals::ratio(0.65, 0.85);
        plan.push(compare(
            "delete-15000-in-1000-folders",
            area,
            RM,
            delete.params(),
            goals,
            delete,
        ));
    }
    plan
}

/// Runs `job` on a fresh engine, recorded in `journal` if given, and returns the time from
/// start to its `Finished` event (and recorded end). Any failed or skipped item is an error:
/// the run did not do the work it is timed for.
pub(super) fn run_job(job: Job, journal: Option<&UndoJournal>) -> Result<Duration> {
    let start = Instant::now();
    // As the window begins a record: made durable while the job plans.
    let begun = match journal {
        Some(j) => j.begin_in_background(&job)?,
        None => None,
    };
    let seq = begun.as_ref().map(|(seq, _)| *seq);
    let (engine, events) = Engine::start();
    if let Some(journal) = journal {
        engine.keep_details_in(journal);
    }
    let id = match begun {
        Some((seq, durable)) => {
            engine.submit_journaled_after(job, JobOptions::default(), seq, durable)
        }
        None => engine.submit(job),
    };
    loop {
        match events
            .recv_timeout(PATIENCE)
            .context("the job engine did not answer")?
        {
            Event::Finished { job, summary, .. } if job == id => {
                if let (Some(journal), Some(seq)) = (journal, seq) {
                    journal.finish(seq, &summary, false)?;
                }
                let elapsed = start.elapsed();
                ensure!(
                    summary.is_complete() && summary.skipped.is_empty(),
                    "the job did not do every item: {summary:?}"
                );
                return Ok(elapsed);
            }
            Event::Cancelled { job, .. } if job == id => bail!("the job was cancelled"),
            _ => {}
        }
    }
}

/// Number of entries in `dir`.
fn count(dir: &Path) -> Result<usize> {
    Ok(fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .count())
}

/// Where run `round` of `tool` writes, under `base`.
fn run_dir(base: &Path, tool: Tool, round: usize) -> PathBuf {
    base.join(format!("{}-{round}", tool.name()))
}

/// Makes the empty destination folder of every tool's run in `round`.
fn make_run_dirs(base: &Path, tools: &[Tool], round: usize) -> Result<()> {
    for &tool in tools {
        fs::create_dir(run_dir(base, tool, round))?;
    }
    Ok(())
}

/// The in-process arm of a copy of `source` into its folder of `round` under `base`.
fn copy_in_process(
    source: PathBuf,
    base: &Path,
    round: usize,
    journal: &UndoJournal,
) -> Result<Duration> {
    run_job(
        Job::Copy {
            sources: vec![source],
            dest_dir: run_dir(base, Tool::InProcess, round),
            dest_name: None,
            on_conflict: ConflictPolicy::Skip,
        },
        Some(journal),
    )
}

/// `copy-NxS`: copy one folder of `files` files of `size` bytes into an empty folder.
pub(super) struct Copy<'a> {
    area: &'a Area,
    journal: UndoJournal,
    ferry: FerryCommand,
    peers: Peers,
    base: PathBuf,
    files: usize,
    size: usize,
}

impl<'a> Copy<'a> {
    /// A copy of `files` files of `size` bytes, within `area`, recorded in `journal`.
    pub(super) fn new(
        area: &'a Area,
        files: usize,
        size: usize,
        journal: UndoJournal,
        ferry: &FerryCommand,
        peers: &Peers,
    ) -> Self {
        Copy {
            area,
            journal,
            ferry: ferry.clone(),
            peers: peers.clone(),
            base: area.path(format!("copy-{files}x{size}")),
            files,
            size,
        }
    }

    /// The sizes, for the report.
    pub(super) fn params(&self) -> Value {
        json!({ "files": self.files, "file_bytes": self.size })
    }

    fn source(&self) -> PathBuf {
        self.base.join("src").join("set")
    }
}

impl Comparison for Copy<'_> {
    fn tools(&self) -> Vec<Tool> {
        let mut tools = vec![Tool::InProcess, Tool::Process, Tool::Classic];
        for peer in [Peer::Xcp, Peer::Cpz, Peer::Floor] {
            if self.peers.exe(peer).is_some() {
                tools.push(Tool::Peer(peer));
            }
        }
        tools
    }

    fn prepare(&mut self, _tools: &[Tool], _rounds: usize) -> Result<()> {
        fixtures::flat(&self.source(), self.files, self.size)
    }

    fn prepare_round(&mut self, tools: &[Tool], round: usize) -> Result<()> {
        make_run_dirs(&self.base, tools, round)
    }

    fn in_process(&mut self, round: usize) -> Result<Duration> {
        copy_in_process(self.source(), &self.base, round, &self.journal)
    }

    fn command(&mut self, tool: Tool, round: usize) -> Command {
        let dest = run_dir(&self.base, tool, round);
        match tool {
            Tool::Peer(peer) => {
                let exe = self.peers.exe(peer).expect("only installed peers run");
                peer.copy(exe, &self.source(), &dest)
                    .expect("only copying peers run")
            }
            Tool::Process => {
                let mut cmd = self.ferry.command("cp");
                cmd.arg(self.source()).arg(dest);
                cmd
            }
            Tool::Classic | Tool::InProcess | Tool::Window => {
                let mut cmd = Command::new("cp");
                cmd.args(["-r", "--preserve=mode,timestamps"])
                    .arg(self.source())
                    .arg(dest);
                cmd
            }
        }
    }

    fn after(&mut self, tool: Tool, round: usize) -> Result<()> {
        let out = run_dir(&self.base, tool, round);
        let copied = count(&out.join("set"))?;
        ensure!(
            copied == self.files,
            "{} copied {copied} of {} files",
            tool.name(),
            self.files
        );
        if self.size >= LARGE_FILE {
            self.area.discard_now(&out)
        } else {
            self.area.discard(&out)
        }
    }
}

/// `copy-1-full-journal`: `ferry cp` of one small file while the undo journal holds as many
/// lines as it ever does (just short of its compaction), so that what a job pays for the
/// journal is seen at its worst.
pub(super) struct FullJournal<'a> {
    area: &'a Area,
    ferry: FerryCommand,
    journal: UndoJournal,
    base: PathBuf,
}

impl<'a> FullJournal<'a> {
    /// Lines the journal holds before each round: two short of the rewrite that bounds it
    /// (past three lines per record kept), for the two runs of Ferry in the round.
    const LINES: usize = 3 * DEFAULT_LIMIT - 4;

    /// The workload, in its own journal on `area` (the work tree).
    pub(super) fn new(area: &'a Area, ferry: &FerryCommand) -> Self {
        let base = area.path("copy-1-full-journal");
        let ferry = ferry.with_state(base.join("state"));
        FullJournal {
            area,
            journal: UndoJournal::at(ferry.journal_file()),
            ferry,
            base,
        }
    }

    fn source(&self) -> PathBuf {
        self.base.join("src").join(fixtures::name(0))
    }

    /// Fills the journal with jobs like the measured one up to [`Self::LINES`] lines, starting
    /// over when the last round's runs took it past them (the next run would compact it).
    fn fill(&self) -> Result<()> {
        let lines = |path: &Path| -> Result<usize> {
            match fs::read(path) {
                Ok(text) => Ok(text.iter().filter(|&&b| b == b'\n').count()),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
                Err(e) => Err(e.into()),
            }
        };
        let fill = self.base.join("fill");
        if lines(self.journal.path())? > Self::LINES {
            let state = self.base.join("state");
            fs::remove_dir_all(&state)
                .with_context(|| format!("cannot remove {}", state.display()))?;
        }
        while lines(self.journal.path())? < Self::LINES {
            let _ = fs::remove_dir_all(&fill);
            fs::create_dir_all(&fill)?;
            let job = Job::Copy {
                sources: vec![self.source()],
                dest_dir: fill.clone(),
                dest_name: None,
                on_conflict: ConflictPolicy::Skip,
            };
            run_job(job, Some(&self.journal))?;
        }
        Ok(())
    }
}

impl Comparison for FullJournal<'_> {
    fn prepare(&mut self, _tools: &[Tool], _rounds: usize) -> Result<()> {
        fixtures::flat(&self.base.join("src"), 1, 4096)
    }

    fn prepare_round(&mut self, tools: &[Tool], round: usize) -> Result<()> {
        self.fill()?;
        make_run_dirs(&self.base, tools, round)
    }

    fn in_process(&mut self, round: usize) -> Result<Duration> {
        copy_in_process(self.source(), &self.base, round, &self.journal)
    }

    fn command(&mut self, tool: Tool, round: usize) -> Command {
        let dest = run_dir(&self.base, tool, round);
        let mut cmd = match tool {
            Tool::Process => self.ferry.command("cp"),
            _ => {
                let mut cmd = Command::new("cp");
                cmd.arg("--preserve=mode,timestamps");
                cmd
            }
        };
        cmd.arg(self.source()).arg(dest);
        cmd
    }

    fn after(&mut self, tool: Tool, round: usize) -> Result<()> {
        let out = run_dir(&self.base, tool, round);
        ensure!(
            count(&out)? == 1,
            "{} did not copy the file into {}",
            tool.name(),
            out.display()
        );
        self.area.discard(&out)
    }
}

/// `move-xfs-NxS`: move one folder of `files` files from one filesystem to the other.
pub(super) struct Move<'a> {
    from: &'a Area,
    journal: UndoJournal,
    ferry: FerryCommand,
    to: &'a Area,
    src_base: PathBuf,
    dest_base: PathBuf,
    files: usize,
    size: usize,
}

impl<'a> Move<'a> {
    /// A move of `files` files of `size` bytes from `from` into `to`, recorded in `journal`.
    pub(super) fn new(
        from: &'a Area,
        to: &'a Area,
        files: usize,
        size: usize,
        journal: UndoJournal,
        ferry: &FerryCommand,
    ) -> Self {
        let name = format!("move-{files}x{size}-to-{}", to.label);
        Move {
            from,
            journal,
            ferry: ferry.clone(),
            to,
            src_base: from.path(&name),
            dest_base: to.path(&name),
            files,
            size,
        }
    }

    /// The sizes and direction, for the report.
    pub(super) fn params(&self) -> Value {
        json!({
            "files": self.files,
            "file_bytes": self.size,
            "from": self.from.label,
            "to": self.to.label,
        })
    }

    fn source(&self, tool: Tool, round: usize) -> PathBuf {
        run_dir(&self.src_base, tool, round).join("set")
    }
}

impl Comparison for Move<'_> {
    fn prepare(&mut self, _tools: &[Tool], _rounds: usize) -> Result<()> {
        fs::create_dir_all(&self.src_base)?;
        Ok(fs::create_dir_all(&self.dest_base)?)
    }

    /// Sources are built right before their round, so on ext4 they are still in the page cache
    /// and not yet written back: unlinking them frees no blocks, and the kernel's synchronous
    /// discards (a `discard` mount) stay out of every tool's time.
    fn prepare_round(&mut self, tools: &[Tool], round: usize) -> Result<()> {
        for &tool in tools {
            fixtures::flat(&self.source(tool, round), self.files, self.size)?;
            fs::create_dir(run_dir(&self.dest_base, tool, round))?;
        }
        Ok(())
    }

    fn in_process(&mut self, round: usize) -> Result<Duration> {
        run_job(
            Job::Move {
                sources: vec![self.source(Tool::InProcess, round)],
                dest_dir: run_dir(&self.dest_base, Tool::InProcess, round),
                dest_name: None,
                on_conflict: ConflictPolicy::Skip,
            },
            Some(&self.journal),
        )
    }

    fn command(&mut self, tool: Tool, round: usize) -> Command {
        let mut cmd = match tool {
            Tool::Process => self.ferry.command("mv"),
            _ => Command::new("mv"),
        };
        cmd.arg(self.source(tool, round))
            .arg(run_dir(&self.dest_base, tool, round));
        cmd
    }

    fn after(&mut self, tool: Tool, round: usize) -> Result<()> {
        let out = run_dir(&self.dest_base, tool, round);
        let moved = count(&out.join("set"))?;
        ensure!(
            moved == self.files,
            "{} moved {moved} of {} files",
            tool.name(),
            self.files
        );
        ensure!(
            !self.source(tool, round).exists(),
            "{} left the source in place",
            tool.name()
        );
        fs::remove_dir(run_dir(&self.src_base, tool, round))?;
        self.to.discard(&out)
    }
}

/// `delete-N-depthD`: delete a tree of `files` empty files spread over `depth` nested folders.
/// How a delete workload's files are laid out.
#[derive(Clone, Copy)]
pub(super) enum Shape {
    /// A chain of this many nested folders, the files spread over its levels.
    Chain(usize),
    /// This many folders side by side in one, the files spread over them.
    Folders(usize),
}

pub(super) struct Delete {
    ferry: FerryCommand,
    peers: Peers,
    base: PathBuf,
    files: usize,
    shape: Shape,
    /// Trees built before any round (on disks), or before each round (tmpfs).
    ahead: bool,
}

impl Delete {
    /// A delete of `files` files laid out as `shape`, within `area`.
    pub(super) fn new(
        area: &Area,
        files: usize,
        shape: Shape,
        ferry: &FerryCommand,
        peers: &Peers,
    ) -> Self {
        let base = match shape {
            Shape::Chain(depth) => area.path(format!("delete-{files}-depth{depth}")),
            Shape::Folders(count) => area.path(format!("delete-{files}-in-{count}-folders")),
        };
        Delete {
            ferry: ferry.clone(),
            peers: peers.clone(),
            base,
            files,
            shape,
            ahead: area.fs_type != "tmpfs",
        }
    }

    /// The sizes, for the report.
    pub(super) fn params(&self) -> Value {
        match self.shape {
            Shape::Chain(depth) => json!({ "files": self.files, "depth": depth, "file_bytes": 0 }),
            Shape::Folders(count) => {
                json!({ "files": self.files, "folders": count, "file_bytes": 0 })
            }
        }
    }

    fn build_round(&self, tools: &[Tool], round: usize) -> Result<()> {
        for &tool in tools {
            let tree = run_dir(&self.base, tool, round);
            match self.shape {
                Shape::Chain(depth) => fixtures::deep_tree(&tree, depth, self.files)?,
                Shape::Folders(count) => fixtures::flat_many(&tree, count, self.files / count, 0)?,
            }
        }
        Ok(())
    }
}

impl Comparison for Delete {
    fn tools(&self) -> Vec<Tool> {
        let mut tools = vec![Tool::InProcess, Tool::Process, Tool::Classic];
        if self.peers.exe(Peer::Rmz).is_some() {
            tools.push(Tool::Peer(Peer::Rmz));
        }
        tools
    }

    /// On a disk every round's trees, for every tool, are built ahead, before anything is
    /// deleted: on ext4 with `discard`, building them between deleting runs takes minutes.
    /// tmpfs has no such cost but a bound on inodes (3 million on a 24 GiB /dev/shm, fewer
    /// than 18 rounds of four tools on three depths need), so its trees are built per round.
    fn prepare(&mut self, tools: &[Tool], rounds: usize) -> Result<()> {
        if self.ahead {
            for round in 0..rounds {
                self.build_round(tools, round)?;
            }
        }
        Ok(())
    }

    fn prepare_round(&mut self, tools: &[Tool], round: usize) -> Result<()> {
        if self.ahead {
            return Ok(());
        }
        self.build_round(tools, round)
    }

    fn in_process(&mut self, round: usize) -> Result<Duration> {
        run_job(
            Job::Delete {
                paths: vec![run_dir(&self.base, Tool::InProcess, round)],
            },
            None,
        )
    }

    fn command(&mut self, tool: Tool, round: usize) -> Command {
        let tree = run_dir(&self.base, tool, round);
        match tool {
            Tool::Peer(peer) => {
                let exe = self.peers.exe(peer).expect("only installed peers run");
                peer.delete(exe, &tree).expect("only deleting peers run")
            }
            Tool::Process => {
                let mut cmd = self.ferry.command("rm");
                cmd.arg(tree);
                cmd
            }
            Tool::Classic | Tool::InProcess | Tool::Window => {
                let mut cmd = Command::new("rm");
                cmd.arg("-rf").arg(tree);
                cmd
            }
        }
    }

    fn after(&mut self, tool: Tool, round: usize) -> Result<()> {
        let tree = run_dir(&self.base, tool, round);
        ensure!(
            fs::symlink_metadata(&tree).is_err(),
            "{} left {} behind",
            tool.name(),
            tree.display()
        );
        Ok(())
    }
}
