//! Window workloads (issues 11 and 12): the window's job path beside `ferry cp`, and the
//! window's frames while a big copy runs into the folder it shows, during a drag of a large
//! selection, while scrolling a huge folder, and with the conflict table of a big batch open.
//!
//! The window's job path is [`gui::bench::window::WindowJobs`]: the `gui::jobs` the window
//! owns, without a window (the journal's begin written and flushed, the engine kept across
//! jobs as the window keeps it, every event routed, the end recorded). It races `ferry cp`
//! (here the "classic" tool every ratio is taken against) and the in-process arm (the bare
//! engine, started per job). A frame is `update` of one message plus `view` of the whole
//! window; the renderer's layout and drawing are not in it (they depend on the GPU or the
//! software renderer, not on Ferry's work). Frames are timed on the UI thread's CPU clock, the
//! window's own work; their wall-clock times are kept in the JSON too: while a copy keeps
//! both cores busy, a thread that handles messages back to back as the benchmark does is
//! preempted by the copy's workers, where a window that sleeps between frames mostly is not.

use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, ensure};
use ferry_core::jobs::{ConflictPolicy, Job, UndoJournal};
use serde_json::{Value, json};

use super::area::Area;
use super::fixtures;
use super::harness::{Comparison, FerryCommand, Goal, Measured, Tool};
use crate::gui::bench::{self as gui_bench, window};
use crate::gui::modal::conflict;

/// The window's frames and what `ferry cp` is compared with here.
pub(super) const FERRY_CP: &str = "ferry cp";

/// `copy-5000x4k-window`: the copy of `copy-5000x4k` through the window's job path, against
/// `ferry cp` in the same rounds.
pub(super) struct WindowCopy<'a> {
    area: &'a Area,
    journal: UndoJournal,
    ferry: FerryCommand,
    jobs: Option<window::WindowJobs>,
    base: PathBuf,
    files: usize,
    size: usize,
}

impl<'a> WindowCopy<'a> {
    /// A copy of `files` files of `size` bytes within `area`, journaled where `ferry` journals.
    pub(super) fn new(area: &'a Area, files: usize, size: usize, ferry: &FerryCommand) -> Self {
        WindowCopy {
            area,
            journal: UndoJournal::at(ferry.journal_file()),
            ferry: ferry.clone(),
            jobs: None,
            base: area.path(format!("window-copy-{files}x{size}")),
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

    fn dest(&self, tool: Tool, round: usize) -> PathBuf {
        self.base.join(format!("{}-{round}", tool.name()))
    }
}

impl Comparison for WindowCopy<'_> {
    fn tools(&self) -> Vec<Tool> {
        vec![Tool::Window, Tool::InProcess, Tool::Classic]
    }

    fn prepare(&mut self, _tools: &[Tool], _rounds: usize) -> Result<()> {
        fixtures::flat(&self.source(), self.files, self.size)?;
        // The window's engine is started once, as the window starts it.
        self.jobs = Some(window::WindowJobs::start(self.ferry.journal_file()));
        Ok(())
    }

    fn prepare_round(&mut self, tools: &[Tool], round: usize) -> Result<()> {
        for &tool in tools {
            fs::create_dir(self.dest(tool, round))?;
        }
        Ok(())
    }

    fn in_process(&mut self, round: usize) -> Result<Duration> {
        super::jobs::run_job(
            Job::Copy {
                sources: vec![self.source()],
                dest_dir: self.dest(Tool::InProcess, round),
                dest_name: None,
                on_conflict: ConflictPolicy::Skip,
            },
            Some(&self.journal),
        )
    }

    fn window(&mut self, round: usize) -> Result<Duration> {
        let (source, dest) = (self.source(), self.dest(Tool::Window, round));
        let jobs = self
            .jobs
            .as_mut()
            .context("the window's jobs did not start")?;
        let started = Instant::now();
        let done = jobs.copy(vec![source], dest).map_err(|e| anyhow!(e))?;
        let took = started.elapsed();
        ensure!(done == 1, "the window's copy did {done} of 1 sources");
        Ok(took)
    }

    fn command(&mut self, tool: Tool, round: usize) -> Command {
        let mut cmd = self.ferry.command("cp");
        cmd.arg(self.source()).arg(self.dest(tool, round));
        cmd
    }

    fn after(&mut self, tool: Tool, round: usize) -> Result<()> {
        let out = self.dest(tool, round);
        let copied = fs::read_dir(out.join("set"))
            .with_context(|| format!("cannot read {}", out.display()))?
            .count();
        ensure!(
            copied == self.files,
            "{} copied {copied} of {} files",
            tool.name(),
            self.files
        );
        self.area.discard(&out)
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn frames_json(frames: &window::Frames) -> Value {
    json!({
        "count": frames.count,
        "median_ms": ms(frames.median),
        "p99_ms": ms(frames.p99),
        "worst_ms": ms(frames.worst),
    })
}

/// `window-frames-during-copy`: a window shows an empty folder of `area` while it pastes
/// `files` small files into it; every job event and listing change is a frame. The value is
/// the heaviest frame's CPU time (issue 11: under 4 ms).
pub(super) fn frames_during_copy(
    area: &Area,
    files: usize,
    ferry: &FerryCommand,
) -> Result<Measured> {
    let base = area.path(format!("window-frames-{files}"));
    let source = base.join("src");
    fixtures::flat(&source, files, 64)?;
    let dest = base.join("dest");
    fs::create_dir_all(&dest)?;
    let mut sources: Vec<PathBuf> = fs::read_dir(&source)?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    sources.sort();
    let (frames, copy) = window::frames_during_copy(sources, dest.clone(), ferry.journal_file())
        .map_err(|e| anyhow!(e))?;
    let copied = fs::read_dir(&dest)?.count();
    ensure!(
        copied == files,
        "the window's copy made {copied} of {files} files"
    );
    area.discard(&base)?;
    let params = json!({ "files": files, "file_bytes": 64 });
    let mut measured =
        Measured::metric(params, (ms(frames.cpu.worst), "ms"), Goal::ValueAtMost(4.0));
    measured
        .extra
        .insert("cpu".into(), frames_json(&frames.cpu));
    measured
        .extra
        .insert("wall".into(), frames_json(&frames.wall));
    measured
        .extra
        .insert("copy_s".into(), json!(copy.as_secs_f64()));
    measured
        .extra
        .insert("heaviest_frame".into(), json!(frames.heaviest));
    Ok(measured)
}

/// `window-drag`: a window shows `entries` files with `selected` of them selected; the
/// pointer moves over the list, frames alternating between dragging the selection and not.
/// The value is the ratio of their medians (issue 11: a drag costs no more than no drag).
pub(super) fn drag(entries: usize, selected: usize) -> Measured {
    let (still, dragging) = window::drag_frames(entries, selected, 400);
    let ratio = dragging.median.as_secs_f64() / still.median.as_secs_f64().max(1e-9);
    let params = json!({ "entries": entries, "selected": selected });
    let mut measured = Measured::metric(
        params,
        ((ratio * 100.0).round() / 100.0, "x"),
        Goal::ValueAtMost(1.05),
    );
    measured.extra.insert("still".into(), frames_json(&still));
    measured
        .extra
        .insert("dragging".into(), frames_json(&dragging));
    measured
}

/// `window-scroll`: scrolling a pane of `entries` files with `selected` selected, in both
/// views; the value is the heaviest frame of either.
pub(super) fn scroll(entries: usize, selected: usize) -> Measured {
    let costs = gui_bench::frame_cost(entries, selected, 300);
    let worst = costs.iter().map(|c| c.worst).max().unwrap_or_default();
    let params = json!({ "entries": entries, "selected": selected });
    let mut measured = Measured::metric(params, (ms(worst), "ms"), Goal::ValueAtMost(4.0));
    for cost in costs {
        measured.extra.insert(
            format!("{:?}", cost.mode).to_lowercase(),
            json!({ "median_ms": ms(cost.median), "worst_ms": ms(cost.worst) }),
        );
    }
    measured
}

/// `window-conflict-table-2000-open`: the conflict dialog of a batch of `conflicts`
/// conflicts built from the engine's event (rows sorted, choices set up), in memory; the
/// value is that time (issue 12: within 100 ms).
pub(super) fn conflict_table_open(conflicts: usize) -> Measured {
    let cost = conflict::bench::table_cost(conflicts, 200);
    let mut measured = Measured::metric(
        json!({ "conflicts": conflicts }),
        (ms(cost.build), "ms"),
        Goal::ValueAtMost(100.0),
    );
    measured
        .extra
        .insert("frame_median_ms".into(), json!(ms(cost.frame_median)));
    measured
}

/// `window-conflict-table-2000-frame`: frames with that table open (a scroll's update, then
/// the view); the value is the heaviest (issue 12: under 4 ms).
pub(super) fn conflict_table_frames(conflicts: usize) -> Measured {
    let cost = conflict::bench::table_cost(conflicts, 200);
    let mut measured = Measured::metric(
        json!({ "conflicts": conflicts }),
        (ms(cost.frame_worst), "ms"),
        Goal::ValueAtMost(4.0),
    );
    measured
        .extra
        .insert("median_ms".into(), json!(ms(cost.frame_median)));
    measured
        .extra
        .insert("answer_by_key_median_ms".into(), json!(ms(cost.key_median)));
    measured
}
