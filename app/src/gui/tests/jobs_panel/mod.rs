//! The jobs panel with real jobs, opened from the window menu, its buttons clicked through
//! the window's view: Pause and Cancel (`pause_cancel.rs`), Retry failed (`retry.rs`),
//! quitting while jobs run (`quit.rs`) and the keyboard in the panel (`keyboard.rs`). Here:
//! what they share, a big copy to act on and the job's state as the window sees it.

use std::fs;

use ferry_core::jobs::{ConflictPolicy, Event, Job, Phase, Progress};

use super::operations::{go, jobs_done, select, until};
use super::*;
use crate::gui::jobs::{State, WindowJob};

mod keyboard;
mod pause_cancel;
mod quit;
mod retry;

/// Files in the folder copied: enough that the copy still runs while the test acts on it
/// (a few seconds; with 4,000 a copy on a fast moment ended before the Pause click landed),
/// small enough to make quickly.
pub(super) const FILES: usize = 12_000;

/// The folder `dir` with `n` small files.
pub(super) fn many_files(dir: &Path, n: usize) {
    fs::create_dir_all(dir).unwrap();
    for i in 0..n {
        fs::write(dir.join(format!("f{i:04}")), [b'x'; 512]).unwrap();
    }
}

/// How many entries `dir` holds (none when it does not exist yet).
pub(super) fn count(dir: &Path) -> usize {
    fs::read_dir(dir).map_or(0, Iterator::count)
}

/// The window's newest job.
pub(super) fn job(ferry: &Ferry) -> &WindowJob {
    ferry.jobs.window_jobs().next_back().expect("a job")
}

pub(super) fn ended(ferry: &Ferry) -> Option<(&ferry_core::jobs::Summary, bool)> {
    match &job(ferry).state {
        State::Ended {
            summary, cancelled, ..
        } => Some((summary, *cancelled)),
        _ => None,
    }
}

/// The engine says the job is paused (the row says so as soon as Pause is pressed).
pub(super) fn held(job: &WindowJob) -> bool {
    job.progress.as_ref().is_some_and(|p| p.paused)
}

/// A window copy of `sources` into `dest` as the engine would start it, as job `id` (its
/// end is then sent by the test).
pub(super) fn started_copy(
    ferry: &mut Ferry,
    id: ferry_core::jobs::JobId,
    sources: Vec<PathBuf>,
    dest: &Path,
) {
    let job = Job::Copy {
        sources,
        dest_dir: dest.to_path_buf(),
        dest_name: None,
        on_conflict: ConflictPolicy::Ask,
    };
    started(ferry, id, job);
}

/// `job` as the engine would start it for the window, as job `id` (its progress and end are
/// then sent by the test).
pub(super) fn started(ferry: &mut Ferry, id: ferry_core::jobs::JobId, job: Job) {
    let started = jobs::Started {
        id,
        job: Arc::new(job),
        seq: None,
        held: None,
        undoing: false,
        follow_up: jobs::FollowUp::Toast,
    };
    send(ferry, Message::JobStarted(Ok(started)));
}

/// Opens the jobs panel from the window menu (it then shows every job as it comes).
pub(super) fn open_panel(ferry: &mut Ferry) {
    named(ferry, Named::F10, Modifiers::empty());
    click(ferry, "Jobs");
    assert!(ferry.jobs_panel.is_open());
}

/// The engine's word that job `id` is deleting (a delete, or a move removing its originals):
/// `(done, total)` items, `bytes` of the job done of as many.
pub(super) fn deleting(
    ferry: &mut Ferry,
    id: ferry_core::jobs::JobId,
    (done, total): (u64, u64),
    bytes: u64,
) {
    let progress = Progress {
        phase: Phase::Deleting,
        bytes_done: bytes,
        bytes_total: bytes,
        items_done: done,
        items_total: total,
        current: None,
        speed: 0.0,
        eta: None,
        share_done: None,
        paused: false,
    };
    send(ferry, Message::Job(Event::Progress { job: id, progress }));
}

/// Feeds the window its events for `time`.
pub(super) fn wait(ferry: &mut Ferry, time: Duration) {
    let end = Instant::now() + time;
    until(ferry, "time to pass", |_| Instant::now() >= end);
}

/// Copies the home's `big` into Music with Ctrl+C and Ctrl+V; the job is known once this
/// returns (the engine has it, and has not told the window anything yet).
pub(super) fn paste_big(ferry: &mut Ferry, home: &Path) {
    select(ferry, "big");
    ctrl(ferry, "c");
    go(ferry, &home.join("Music"));
    ctrl(ferry, "v");
    assert!(job(ferry).is_running());
}

/// A window on `home` with the jobs panel open, pasting the home's big folder into Music.
pub(super) fn big_paste(fixture: &Fixture, home: &Path) -> Ferry {
    many_files(&home.join("big"), FILES);
    let mut ferry = fixture.start(Some(home));
    open_panel(&mut ferry);
    paste_big(&mut ferry, home);
    ferry
}

/// The window on `home`, its jobs panel open, pasting the folder `big` of [`FILES`] files
/// into `Music`, paused once some items are done.
pub(super) fn big_paste_paused(fixture: &Fixture, home: &std::path::Path) -> Ferry {
    let mut ferry = big_paste(fixture, home);
    until(&mut ferry, "some items copied", |f| job(f).items_done() > 0);
    click(&mut ferry, "Pause");
    until(&mut ferry, "the pause", |f| held(job(f)));
    ferry
}

/// Cancels the one job, and waits for its end.
pub(super) fn cancel_to_the_end(ferry: &mut Ferry) {
    let id = job(ferry).id;
    ferry.jobs.cancel(id);
    jobs_done(ferry);
}
