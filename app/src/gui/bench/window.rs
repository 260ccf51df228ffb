//! The window's work measured without a window: its job path (journal, engine, routing,
//! the end recorded), the cost of its frames while a copy runs into the folder it shows, and
//! the cost of its frames during a drag of a large selection. A frame here is what the
//! window does for one message: `update`, then `view` of the whole window; the renderer's
//! layout and drawing are not in it (they depend on the GPU or the software renderer, not on
//! Ferry).

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::select;
use ferry_core::dirs::DirEvent;
use ferry_core::entry::{self, Kind, Meta};
use ferry_core::jobs::{ConflictPolicy, Job};
use iced::{Point, Rectangle, Size};

use super::super::jobs::{FollowUp, Jobs, Routed, Stores};
use super::super::screen::browser;
use super::super::screen::tabs;
use super::super::settings::Settings;
use super::super::shortcut::{PaneAction, Step};
use super::super::{Ferry, Launch, Message, format};

/// Frame costs: how many, their median, 99th percentile and heaviest.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Frames {
    /// Frames measured.
    pub count: usize,
    /// Their median.
    pub median: Duration,
    /// Their 99th percentile.
    pub p99: Duration,
    /// The heaviest.
    pub worst: Duration,
}

impl Frames {
    fn of(mut times: Vec<Duration>) -> Frames {
        if times.is_empty() {
            return Frames::default();
        }
        times.sort_unstable();
        let at = |q: f64| {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // an index
            let i = ((times.len() - 1) as f64 * q).round() as usize;
            times[i]
        };
        Frames {
            count: times.len(),
            median: at(0.5),
            p99: at(0.99),
            worst: times[times.len() - 1],
        }
    }
}

/// The window's engine and journal, kept across runs as the window keeps them.
pub struct WindowJobs {
    jobs: Jobs,
}

impl WindowJobs {
    /// A window's jobs, journaled in `journal` (the benchmark's, never the user's).
    pub fn start(journal: PathBuf) -> Self {
        WindowJobs {
            jobs: Jobs::start(Stores {
                journal: Some(journal),
                trash: None,
            }),
        }
    }

    /// Copies `sources` into `dest_dir` as a paste in the window does: journaled before it
    /// starts, followed through the window's routing, its end recorded. Returns the sources
    /// done, or why it did not finish.
    pub fn copy(&mut self, sources: Vec<PathBuf>, dest_dir: PathBuf) -> Result<usize, String> {
        let job = Job::Copy {
            sources,
            dest_dir,
            dest_name: None,
            on_conflict: ConflictPolicy::Ask,
        };
        let mut pending: VecDeque<_> = self.jobs.submit_now(job, FollowUp::Toast).into();
        loop {
            let event = match pending.pop_front() {
                Some(event) => event,
                None => self
                    .jobs
                    .events()
                    .recv()
                    .map_err(|_| "the engine stopped".to_owned())?,
            };
            match self.jobs.route(event) {
                Some(Routed::Ended(id)) => {
                    self.jobs.record_end_now(id);
                    let window = self.jobs.window_job(id).ok_or("the job was forgotten")?;
                    let super::super::jobs::State::Ended { summary, .. } = &window.state else {
                        return Err("the job did not end".to_owned());
                    };
                    if !summary.failed.is_empty() {
                        return Err(format!("{} items failed", summary.failed.len()));
                    }
                    let done = summary.done.len();
                    self.jobs.forget(id);
                    return Ok(done);
                }
                Some(Routed::Conflicts(..) | Routed::ItemError { .. }) => {
                    return Err("the copy asked a question".to_owned());
                }
                _ => {}
            }
        }
    }
}

/// A window on `start`, its jobs journaled in `stores`, with nothing else to say.
fn window(start: PathBuf, stores: Stores) -> Ferry {
    let launch = Launch {
        start,
        session: None,
        settings: Settings::default(),
        store: None,
        problems: Vec::new(),
        home: None,
        notice: None,
        gone: Vec::new(),
        stores,
    };
    let (ferry, _) = Ferry::new(launch);
    ferry
}

/// What one frame took: from the clock on the wall, and on the thread's CPU clock (the
/// window's own work, without the time the kernel gave other threads meanwhile), and for
/// what kind of message.
#[derive(Debug, Clone, Copy)]
struct FrameTime {
    wall: Duration,
    cpu: Duration,
    kind: &'static str,
}

/// The kind of `message`, for the report of the heaviest frame.
fn kind_of(message: &Message) -> &'static str {
    match message {
        Message::Dir(DirEvent::Changed { .. }) => "listing change",
        Message::Dir(_) => "listing",
        Message::JobStarted(_) => "job started",
        Message::Job(ferry_core::jobs::Event::Progress { .. }) => "job progress",
        Message::Job(ferry_core::jobs::Event::Finished { .. }) => "job finished",
        Message::Job(_) => "job event",
        _ => "other",
    }
}

/// The CPU time this thread has used.
fn thread_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

/// One frame: `message` updated, then the whole window's view built.
fn frame(ferry: &mut Ferry, message: Message) -> FrameTime {
    let kind = kind_of(&message);
    let (started, cpu) = (Instant::now(), thread_cpu());
    let task = ferry.update(message);
    let view = ferry.view();
    std::hint::black_box(&view);
    drop(view);
    let took = FrameTime {
        wall: started.elapsed(),
        cpu: thread_cpu().saturating_sub(cpu),
        kind,
    };
    drop(task);
    took
}

/// Wall-clock and CPU-clock statistics of `frames`.
fn both(frames: &[FrameTime]) -> CopyFrames {
    CopyFrames {
        wall: Frames::of(frames.iter().map(|f| f.wall).collect()),
        cpu: Frames::of(frames.iter().map(|f| f.cpu).collect()),
        heaviest: frames.iter().max_by_key(|f| f.cpu).map_or("", |f| f.kind),
    }
}

/// The frames of a window while a copy runs into the folder it shows.
#[derive(Debug, Clone, Copy, Default)]
pub struct CopyFrames {
    /// On the wall clock: what the user waits, including the time the copy's own threads
    /// held both cores.
    pub wall: Frames,
    /// On the UI thread's CPU clock: the window's own work.
    pub cpu: Frames,
    /// What the heaviest frame (CPU) handled: "listing change", "job finished"…
    pub heaviest: &'static str,
}

/// The frames of a window showing `dest_dir` while the window copies `sources` into it: every
/// listing change and job event is one frame, as the window's subscriptions deliver them.
/// Returns the frames and the copy's time. The jobs are journaled in `journal`, the
/// benchmark's own.
pub fn frames_during_copy(
    sources: Vec<PathBuf>,
    dest_dir: PathBuf,
    journal: PathBuf,
) -> Result<(CopyFrames, Duration), String> {
    let stores = Stores {
        journal: Some(journal),
        trash: None,
    };
    let mut ferry = window(dest_dir.clone(), stores);
    // The folder listed first.
    while !matches!(
        ferry.tabs.active_pane().listing(),
        browser::Listing::Loaded(_)
    ) {
        let event = ferry
            .dir_events
            .recv_timeout(Duration::from_secs(30))
            .map_err(|_| "the folder was not listed")?;
        frame(&mut ferry, Message::Dir(event));
    }
    let job = Job::Copy {
        sources,
        dest_dir,
        dest_name: None,
        on_conflict: ConflictPolicy::Ask,
    };
    let started = Instant::now();
    let submitted = ferry.jobs.submit_blocking(job, FollowUp::Toast);
    let mut times = vec![frame(&mut ferry, Message::JobStarted(Ok(submitted)))];
    let jobs = ferry.jobs.events().clone();
    let dirs = ferry.dir_events.clone();
    let mut copied = None;
    // Until the copy ended and its folder shows what it made (or a second without news).
    loop {
        let message = select! {
            recv(jobs) -> event => Message::Job(event.map_err(|_| "the engine stopped")?),
            recv(dirs) -> event => Message::Dir(event.map_err(|_| "the lister stopped")?),
            default(Duration::from_secs(1)) => {
                if copied.is_some() {
                    break;
                }
                continue;
            }
        };
        times.push(frame(&mut ferry, message));
        if copied.is_none() && ferry.jobs.running() == 0 {
            copied = Some(started.elapsed());
        }
    }
    let window = ferry.jobs.window_jobs().next().ok_or("no job")?;
    if let super::super::jobs::State::Ended { summary, .. } = &window.state
        && !summary.failed.is_empty()
    {
        return Err(format!("{} items failed", summary.failed.len()));
    }
    Ok((both(&times), copied.unwrap_or_default()))
}

/// The frames (CPU time) of a window showing `entries` files with `selected` of them
/// selected, while the pointer moves over the list: without a drag, and dragging the
/// selection, alternately. Built in memory.
pub fn drag_frames(entries: usize, selected: usize, frames: usize) -> (Frames, Frames) {
    let folder = PathBuf::from("/ferry-bench-drag");
    let mut ferry = window(folder.clone(), Stores::default());
    let pane = ferry.tabs.active_pane();
    let (view, generation) = (pane.view_id(), pane.generation());
    let mut listing = entry::Listing::new(folder);
    for i in 0..entries {
        let meta = Meta {
            kind: Kind::File,
            size: (i as u64) * 37,
            mtime_sec: 1_700_000_000 + i as i64,
            mode: 0o100_644,
            ..Meta::default()
        };
        listing.push(OsStr::new(&format!("photo-{i:06}.jpg")), meta);
    }
    let order: Arc<[u32]> = (0..u32::try_from(entries).unwrap_or(u32::MAX)).collect();
    let pane = |message| Message::Tabs(tabs::Message::Pane(view, message));
    let _ = ferry.update(Message::Dir(DirEvent::Loaded {
        view,
        generation,
        listing: Arc::new(listing),
        order,
        from_cache: true,
    }));
    let bounds = Rectangle::new(Point::new(200.0, 90.0), Size::new(880.0, 600.0));
    let _ = ferry.update(pane(browser::Message::Resized(bounds)));
    // A page as tall as the selection, so one Shift+PageDown selects it.
    #[allow(clippy::cast_precision_loss)] // a pixel height
    let page = selected as f32 * 30.0;
    let _ = ferry.update(pane(browser::Message::Scrolled {
        offset_y: 0.0,
        viewport_h: page,
    }));
    for (step, extend) in [(Step::First, false), (Step::PageDown, true)] {
        let _ = ferry.update(pane(browser::Message::Action(PaneAction::Move {
            step,
            extend,
        })));
    }
    // Then a window's height of it shown, from the middle of the folder.
    #[allow(clippy::cast_precision_loss)] // a pixel offset
    let middle = entries as f32 / 2.0 * 30.0;
    let _ = ferry.update(pane(browser::Message::Scrolled {
        offset_y: middle,
        viewport_h: 600.0,
    }));
    // The drag starts once; then frames alternate with and without it, so that both see the
    // same machine (a drag's frames measured after the still ones would meet other noise).
    let paths = ferry.tabs.active_pane().selected_paths();
    ferry.drag_started(paths, format::Category::Image);
    let mut drag = ferry.drag.take();
    let (mut still, mut dragging) = (Vec::new(), Vec::new());
    for i in 0..frames * 2 {
        #[allow(clippy::cast_precision_loss)] // a few pixels
        let at = Point::new(
            400.0 + (i % 50) as f32 * 9.0,
            150.0 + (i % 40) as f32 * 11.0,
        );
        let with_drag = i % 2 == 1;
        if with_drag {
            ferry.drag = drag.take();
        }
        let took = frame(&mut ferry, Message::PointerMoved(at)).cpu;
        if with_drag {
            drag = ferry.drag.take();
            dragging.push(took);
        } else {
            still.push(took);
        }
    }
    (Frames::of(still), Frames::of(dragging))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_benches_run_and_measure_what_they_say() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        let dest = dir.path().join("dest");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::create_dir_all(&dest).unwrap();
        for i in 0..50 {
            std::fs::write(src.join(format!("f{i}")), b"data").unwrap();
        }
        let journal = dir.path().join("journal.jsonl");
        let mut jobs = WindowJobs::start(journal.clone());
        assert_eq!(jobs.copy(vec![src.clone()], dest.clone()), Ok(1));
        assert_eq!(std::fs::read_dir(dest.join("src")).unwrap().count(), 50);
        assert!(
            std::fs::read_to_string(&journal)
                .unwrap()
                .contains("\"end\"")
        );

        let again = dir.path().join("again");
        std::fs::create_dir_all(&again).unwrap();
        let (frames, _) = frames_during_copy(vec![src], again.clone(), journal).unwrap();
        assert!(frames.wall.count >= 2, "{frames:?}");
        assert_eq!(frames.cpu.count, frames.wall.count);
        assert_eq!(std::fs::read_dir(again.join("src")).unwrap().count(), 50);

        let (still, dragging) = drag_frames(2_000, 500, 20);
        assert_eq!((still.count, dragging.count), (20, 20));
    }
}
