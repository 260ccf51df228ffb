//! Job workloads (issue 3): copy, cross-filesystem move and delete, against `cp`, `mv` and
//! `rm -rf` on the same input.
//!
//! Ferry runs in-process through the [`Engine`] the window uses: the time runs from
//! `Engine::start` to the job's `Finished` event (planning, progress counters, conflict checks
//! and the final summary included), and for copies and moves from the undo journal's `begin`
//! to its `end` (both `fdatasync`ed, in a journal on the work tree like a user's own), as
//! `ferry cp` and the window record every job. Every run gets its own input and output: trees to delete
//! are built ahead for every round, move sources for both tools right before each round, and
//! outputs are moved aside afterwards (see [`Area::discard`]).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use ferry_core::jobs::{ConflictPolicy, Engine, Event, Job, JobOptions, UndoJournal};
use serde_json::{Value, json};

use super::fixtures;
use super::harness::{Area, Comparison, Goal, Side};
use super::{Planned, Sizes, compare};

/// Longest wait for one job before the benchmark gives up.
const PATIENCE: Duration = Duration::from_secs(600);

/// The peer of the copy workloads.
pub(super) const CP: &str = "cp -r --preserve=mode,timestamps";
/// The peer of the move workload.
pub(super) const MV: &str = "mv";
/// The peer of the delete workloads.
pub(super) const RM: &str = "rm -rf";

/// The job workloads in the order they run: copies, the move into the work tree (it deletes
/// only on tmpfs), then those that delete on the work tree's filesystem.
pub(super) fn plan<'a>(
    sizes: Sizes,
    rounds: usize,
    work: &'a Area,
    shm: &'a Area,
) -> Vec<Planned<'a>> {
    let areas = [work, shm];
    let journal = UndoJournal::at(work.path("state").join("journal.jsonl"));
    let mut plan = Vec::new();
    for (workload, (files, size)) in [
        ("copy-5000x4k", sizes.small_files),
        ("copy-200x5m", sizes.large_files),
    ] {
        for area in areas {
            let goal = match (workload, area.fs_type.as_str()) {
                ("copy-200x5m", "tmpfs") | ("copy-5000x4k", _) => 0.6,
                _ => 1.0,
            };
            let copy = Copy::new(area, files, size, journal.clone());
            plan.push(compare(
                workload,
                area,
                CP,
                copy.params(),
                Goal::RatioAtMost(goal),
                copy,
            ));
        }
    }
    if work.dev == shm.dev {
        eprintln!(
            "ferry bench: the work folder is on /dev/shm's filesystem: no cross-filesystem move"
        );
    } else {
        let (files, size) = sizes.moved_files;
        // Into the work tree first: it deletes only on tmpfs.
        for (from, to) in [(shm, work), (work, shm)] {
            let mv = Move::new(from, to, files, size, journal.clone());
            plan.push(compare(
                "move-xfs-5000x4k",
                to,
                MV,
                mv.params(),
                Goal::RatioAtMost(1.0),
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
            let delete = Delete::new(area, sizes.delete_files, depth, rounds);
            plan.push(compare(
                workload,
                area,
                RM,
                delete.params(),
                Goal::RatioAtMost(0.9),
                delete,
            ));
        }
    }
    plan
}

/// Runs `job` on a fresh engine, recorded in `journal` if given, and returns the time from
/// start to its `Finished` event (and recorded end). Any failed or skipped item is an error:
/// the run did not do the work it is timed for.
fn run_job(job: Job, journal: Option<&UndoJournal>) -> Result<Duration> {
    let start = Instant::now();
    let seq = match journal {
        Some(j) => j.begin(&job)?,
        None => None,
    };
    let (engine, events) = Engine::start();
    let id = match seq {
        Some(seq) => engine.submit_journaled(job, JobOptions::default(), seq),
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

/// Where run `round` of `side` writes, under `base`.
fn run_dir(base: &Path, side: Side, round: usize) -> PathBuf {
    base.join(format!("{}-{round}", side.name()))
}

/// `copy-NxS`: copy one folder of `files` files of `size` bytes into an empty folder.
pub(super) struct Copy<'a> {
    area: &'a Area,
    journal: UndoJournal,
    base: PathBuf,
    files: usize,
    size: usize,
}

impl<'a> Copy<'a> {
    /// A copy of `files` files of `size` bytes, within `area`, recorded in `journal`.
    pub(super) fn new(area: &'a Area, files: usize, size: usize, journal: UndoJournal) -> Self {
        Copy {
            area,
            journal,
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
    fn prepare(&mut self) -> Result<()> {
        fixtures::flat(&self.source(), self.files, self.size)
    }

    fn prepare_round(&mut self, round: usize) -> Result<()> {
        for side in [Side::Ferry, Side::Peer] {
            fs::create_dir(run_dir(&self.base, side, round))?;
        }
        Ok(())
    }

    fn settle(&mut self) -> Result<()> {
        self.area.settle()
    }

    fn ferry(&mut self, round: usize) -> Result<Duration> {
        run_job(
            Job::Copy {
                sources: vec![self.source()],
                dest_dir: run_dir(&self.base, Side::Ferry, round),
                on_conflict: ConflictPolicy::Skip,
            },
            Some(&self.journal),
        )
    }

    fn peer(&mut self, round: usize) -> Command {
        let mut cmd = Command::new("cp");
        cmd.args(["-r", "--preserve=mode,timestamps"])
            .arg(self.source())
            .arg(run_dir(&self.base, Side::Peer, round));
        cmd
    }

    fn after(&mut self, side: Side, round: usize) -> Result<()> {
        let out = run_dir(&self.base, side, round);
        let copied = count(&out.join("set"))?;
        ensure!(
            copied == self.files,
            "{} copied {copied} of {} files",
            side.name(),
            self.files
        );
        self.area.discard(&out)
    }
}

/// `move-xfs-NxS`: move one folder of `files` files from one filesystem to the other.
pub(super) struct Move<'a> {
    from: &'a Area,
    journal: UndoJournal,
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
    ) -> Self {
        let name = format!("move-{files}x{size}-to-{}", to.label);
        Move {
            from,
            journal,
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

    fn source(&self, side: Side, round: usize) -> PathBuf {
        run_dir(&self.src_base, side, round).join("set")
    }
}

impl Comparison for Move<'_> {
    fn prepare(&mut self) -> Result<()> {
        fs::create_dir_all(&self.src_base)?;
        Ok(fs::create_dir_all(&self.dest_base)?)
    }

    /// Sources are built right before their round, so on ext4 they are still in the page cache
    /// and not yet written back: unlinking them frees no blocks, and the kernel's synchronous
    /// discards (a `discard` mount) stay out of both tools' times.
    fn prepare_round(&mut self, round: usize) -> Result<()> {
        for side in [Side::Ferry, Side::Peer] {
            fixtures::flat(&self.source(side, round), self.files, self.size)?;
            fs::create_dir(run_dir(&self.dest_base, side, round))?;
        }
        Ok(())
    }

    /// Writes back the previous run's output on the destination (not the source: see
    /// `prepare_round`).
    fn settle(&mut self) -> Result<()> {
        self.to.settle()
    }

    fn ferry(&mut self, round: usize) -> Result<Duration> {
        run_job(
            Job::Move {
                sources: vec![self.source(Side::Ferry, round)],
                dest_dir: run_dir(&self.dest_base, Side::Ferry, round),
                on_conflict: ConflictPolicy::Skip,
            },
            Some(&self.journal),
        )
    }

    fn peer(&mut self, round: usize) -> Command {
        let mut cmd = Command::new("mv");
        cmd.arg(self.source(Side::Peer, round))
            .arg(run_dir(&self.dest_base, Side::Peer, round));
        cmd
    }

    fn after(&mut self, side: Side, round: usize) -> Result<()> {
        let out = run_dir(&self.dest_base, side, round);
        let moved = count(&out.join("set"))?;
        ensure!(
            moved == self.files,
            "{} moved {moved} of {} files",
            side.name(),
            self.files
        );
        ensure!(
            !self.source(side, round).exists(),
            "{} left the source in place",
            side.name()
        );
        fs::remove_dir(run_dir(&self.src_base, side, round))?;
        self.to.discard(&out)
    }
}

/// `delete-N-depthD`: delete a tree of `files` empty files spread over `depth` nested folders.
pub(super) struct Delete<'a> {
    area: &'a Area,
    base: PathBuf,
    files: usize,
    depth: usize,
    rounds: usize,
}

impl<'a> Delete<'a> {
    /// A delete of `files` files at `depth` levels, within `area`, for `rounds` rounds.
    pub(super) fn new(area: &'a Area, files: usize, depth: usize, rounds: usize) -> Self {
        Delete {
            area,
            base: area.path(format!("delete-{files}-depth{depth}")),
            files,
            depth,
            rounds,
        }
    }

    /// The sizes, for the report.
    pub(super) fn params(&self) -> Value {
        json!({ "files": self.files, "depth": self.depth, "file_bytes": 0 })
    }
}

impl Comparison for Delete<'_> {
    /// Every round's trees, for both tools, are built ahead, before anything is deleted: on
    /// ext4 with `discard`, building them between deleting runs takes minutes.
    fn prepare(&mut self) -> Result<()> {
        for round in 0..self.rounds {
            for side in [Side::Ferry, Side::Peer] {
                let tree = run_dir(&self.base, side, round);
                fixtures::deep_tree(&tree, self.depth, self.files)?;
            }
        }
        Ok(())
    }

    fn settle(&mut self) -> Result<()> {
        self.area.settle()
    }

    fn ferry(&mut self, round: usize) -> Result<Duration> {
        run_job(
            Job::Delete {
                paths: vec![run_dir(&self.base, Side::Ferry, round)],
            },
            None,
        )
    }

    fn peer(&mut self, round: usize) -> Command {
        let mut cmd = Command::new("rm");
        cmd.arg("-rf").arg(run_dir(&self.base, Side::Peer, round));
        cmd
    }

    fn after(&mut self, side: Side, round: usize) -> Result<()> {
        let tree = run_dir(&self.base, side, round);
        ensure!(
            fs::symlink_metadata(&tree).is_err(),
            "{} left {} behind",
            side.name(),
            tree.display()
        );
        Ok(())
    }
}
