//! The window's jobs: the only owner of its [`Engine`], of what each job belongs to, and of
//! the undo journal's bookkeeping around them.
//!
//! Screens never see the engine. They ask for work through the window, which calls here;
//! every engine event is routed back to whoever follows that job ([`Routed`]): the recovery
//! banner for a resume or roll back, the jobs panel (through [`Jobs::window_jobs`]) and the
//! window's dialogs for everything else. Journal reads and writes are file I/O, so each runs
//! on a thread of its own through the [`bridge`](super::bridge) ([`journaled`]) and comes
//! back as a task's message.
//!
//! Everything the window starts is journaled as `ferry cp` journals it: the record's begin is
//! written before the job is submitted, its end when the job ends, so the window's jobs are
//! undone, redone and recovered exactly like the command line's.

mod answers;
mod describe;
mod journaled;

use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;
use ferry_core::Error;
use ferry_core::jobs::{
    self, Engine, Event, Job, JobId, JournalRecord, JournalWriter, Progress, Summary, Totals,
};
use iced::Task;

pub use answers::{Answers, Asked, by_answers, retries};

use super::screen::recovery::Choice;
pub use describe::{done_message, in_words, lowercase_first, title};
pub use journaled::{Labels, Started, Stores, Undoing};

/// Where a job came from: whose screen follows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A resume or roll back offered by the recovery banner.
    Recovery,
    /// An operation started in the window (drop, paste, trash, rename, undo, ...).
    Window,
}

/// What the window does when a job it started ends, besides showing its summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FollowUp {
    /// Nothing more.
    None,
    /// A toast naming what happened, with Undo (for a journaled job).
    Toast,
    /// A toast with Undo and "Make it a copy" (a move done by a drop).
    ToastWithCopy,
    /// A toast with Undo, for the move a cut's paste made: one that moved nothing (refused
    /// into the items' own folder, say) puts the cut back on the clipboard.
    ToastFromCut,
}

/// The journal's writer lock held for a job until its end is recorded (shared so that it can
/// travel in a message from the thread that took it).
#[derive(Debug, Clone)]
pub struct Held(Arc<Mutex<Option<JournalWriter>>>);

impl Held {
    fn new(writer: JournalWriter) -> Self {
        Held(Arc::new(Mutex::new(Some(writer))))
    }

    fn take(&self) -> Option<JournalWriter> {
        self.0.lock().ok()?.take()
    }
}

/// How a window job stands.
#[derive(Debug, Clone)]
pub enum State {
    /// Submitted; no word from the engine yet (another job may hold its disks).
    Waiting,
    /// Planning or working.
    Running,
    /// Ended, cancelled or not.
    Ended {
        /// What was done; shared with the journal's end record (100,000 paths are not
        /// copied on the UI thread). Once that is written, only what the window still shows
        /// or retries is kept ([`WindowJobs::slim`]).
        summary: Arc<Summary>,
        /// It was cancelled.
        cancelled: bool,
        /// What it did, in words ([`done_message`]), said while the summary was whole.
        said: String,
        /// From its start (not its submission: [`WindowJob::runs`]) to its end.
        took: Duration,
    },
}

/// A job the window started, as the jobs panel shows it.
#[derive(Debug, Clone)]
pub struct WindowJob {
    /// The engine's id.
    pub id: JobId,
    /// The job as submitted (Retry failed builds on it). Shared: a paste of 100,000 files
    /// holds as many paths, and the window reads it at every event of the job.
    pub job: Arc<Job>,
    /// The job as its words name it, where that differs: a delete from the trash names each
    /// item as it was called before the trash (`same.txt`), not as the trash keeps it
    /// (`same.txt.2`).
    pub named: Option<Arc<Job>>,
    /// "Copying 5,000 files to “Backup”".
    pub title: String,
    /// When it was submitted, then when the engine first spoke of it ([`WindowJob::runs`]).
    pub started: Instant,
    /// What planning found.
    pub totals: Option<Totals>,
    /// The last progress report.
    pub progress: Option<Progress>,
    /// Where it stands.
    pub state: State,
    /// Conflicts waiting for an answer (as many as its conflict dialog holds).
    pub waiting_answers: usize,
    /// Pause (true) or Resume (false) pressed and not yet seen in the engine's progress (a job
    /// waiting for the disks reports none until it starts): the row says it at once.
    pub pause_wanted: Option<bool>,
    /// Failed items waiting for an answer (the item error dialog's questions): the job cannot
    /// end before they are answered, so no time left is said.
    pub questions: usize,
    /// Its record in the undo journal.
    pub seq: Option<u64>,
    /// This job is an undo (its end marks the record undone).
    pub undoing: bool,
    /// What to do when it ends.
    pub follow_up: FollowUp,
    /// How long it has waited for answers (conflicts, failed items), and since when it
    /// waits now: not counted in the time it took.
    pub asked: Asked,
    /// What its conflicts were answered (Retry failed keeps the answers).
    pub answers: Answers,
}

/// Added to what an ended job said once it is undone.
const UNDONE: &str = " Undone since.";
/// Added instead when its undo left some of it (changed since, say).
const PARTLY_UNDONE: &str = " Partly undone since.";

impl WindowJob {
    /// The job its title and end message speak of ([`named`](Self::named)).
    fn as_named(&self) -> &Job {
        self.named.as_deref().unwrap_or(&self.job)
    }

    /// True until it ends.
    pub fn is_running(&self) -> bool {
        !matches!(self.state, State::Ended { .. })
    }

    /// True while paused, or asked to pause.
    pub fn is_paused(&self) -> bool {
        self.pause_wanted
            .unwrap_or_else(|| self.progress.as_ref().is_some_and(|p| p.paused))
    }

    /// A move past its copies, removing the originals: cancelling it then finishes that (each
    /// original left would be both copied and in place), so nothing of it is "not done".
    pub fn is_removing_sources(&self) -> bool {
        matches!(*self.job, Job::Move { .. })
            && self
                .progress
                .as_ref()
                .is_some_and(|p| p.phase == jobs::Phase::Deleting)
    }

    /// Items finished so far: none while planning (the engine's progress counts the items
    /// found then, in the same field).
    pub fn items_done(&self) -> u64 {
        self.progress
            .as_ref()
            .filter(|p| p.phase != jobs::Phase::Planning)
            .map_or(0, |p| p.items_done)
    }
}

/// An engine event, and who it is for.
#[derive(Debug)]
pub enum Routed {
    /// For the recovery banner.
    Recovery(Box<Event>),
    /// A window job changed (progress, totals): the panel redraws from [`Jobs::window_jobs`].
    Changed(JobId),
    /// A window job found conflicts: the window asks about them.
    Conflicts(JobId, Vec<jobs::Conflict>),
    /// An item of a window job failed and waits for an answer.
    ItemError {
        /// The job.
        job: JobId,
        /// The request to answer.
        request: jobs::ErrorId,
        /// The item.
        path: std::path::PathBuf,
        /// Why.
        error: Arc<Error>,
    },
    /// A window job ended: its end must be recorded ([`Jobs::record_end`]) and told.
    Ended(JobId),
}

/// The window's engine and the owners of its jobs.
pub struct Jobs {
    engine: Arc<Engine>,
    events: Receiver<Event>,
    origins: HashMap<JobId, Origin>,
    /// Writer locks of the undo, redo or resume jobs running, until their end is recorded.
    writers: HashMap<JobId, Held>,
    /// Events of jobs submitted on another thread whose id has not come back to the window
    /// yet: a small job may finish before its submitter's message is handled.
    early: HashMap<JobId, Vec<Event>>,
    /// The window's jobs, running and ended, in the order they were started.
    window: BTreeMap<JobId, WindowJob>,
    /// What Undo and Redo would do now, for the menu.
    labels: Labels,
    /// Where the journal and the trash are.
    stores: Stores,
    /// Items in the trash about to be deleted, by their names before the trash, for the
    /// delete's words ([`WindowJob::named`]).
    trashed_names: HashMap<PathBuf, OsString>,
}

impl Jobs {
    /// Starts the window's engine, its jobs journaled in `stores`.
    pub fn start(stores: Stores) -> Self {
        let (engine, events) = Engine::start();
        if let Ok(journal) = stores.journal() {
            engine.keep_details_in(&journal);
        }
        Jobs {
            engine: Arc::new(engine),
            stores,
            events,
            origins: HashMap::new(),
            writers: HashMap::new(),
            early: HashMap::new(),
            window: BTreeMap::new(),
            labels: Labels::default(),
            trashed_names: HashMap::new(),
        }
    }

    /// Items in the trash (by their paths there) the window is about to delete or copy out,
    /// with the names they had before the trash: the job's title and end say those.
    pub fn name_trashed(&mut self, names: impl IntoIterator<Item = (PathBuf, OsString)>) {
        self.trashed_names.extend(names);
    }

    /// `job` with the paths of trashed items named as they were before the trash, if it
    /// deletes or copies any (they are forgotten: one job each).
    fn named(&mut self, job: &Job) -> Option<Arc<Job>> {
        // A paste of 100,000 files is not cloned for nothing.
        if self.trashed_names.is_empty() || !matches!(job, Job::Delete { .. } | Job::Copy { .. }) {
            return None;
        }
        let mut named = job.clone();
        let (Job::Delete { paths } | Job::Copy { sources: paths, .. }) = &mut named else {
            return None;
        };
        let mut renamed = false;
        for path in paths.iter_mut() {
            if let Some(name) = self.trashed_names.remove(path) {
                renamed = true;
                path.set_file_name(name);
            }
        }
        renamed.then(|| Arc::new(named))
    }

    /// Where the journal and the trash are.
    pub fn stores(&self) -> &Stores {
        &self.stores
    }

    /// The engine's events, for the bridge's subscription.
    pub fn events(&self) -> &Receiver<Event> {
        &self.events
    }

    /// The window's jobs, oldest first.
    pub fn window_jobs(&self) -> impl DoubleEndedIterator<Item = &WindowJob> {
        self.window.values()
    }

    /// One of the window's jobs.
    pub fn window_job(&self, job: JobId) -> Option<&WindowJob> {
        self.window.get(&job)
    }

    /// How many of the window's jobs are running.
    pub fn running(&self) -> usize {
        self.window.values().filter(|j| j.is_running()).count()
    }

    /// Forgets `job` once it has ended (the panel's ✕).
    pub fn forget(&mut self, job: JobId) {
        if self.window.get(&job).is_some_and(|j| !j.is_running()) {
            self.window.remove(&job);
        }
    }

    /// Drops what the window no longer needs of ended job `job`'s summary once the journal
    /// holds its end: its record (an entry per item), what it did and skipped, item by item.
    /// Kept: what failed or was skipped after an error and what was not done (shown, and
    /// retried), why it stopped, and the counts. Three pastes of 200,000 files held 800 MB until the panel was cleared.
    pub fn slim(&mut self, job: JobId) {
        let Some(WindowJob {
            state: State::Ended { summary, .. },
            ..
        }) = self.window.get_mut(&job)
        else {
            return;
        };
        *summary = Arc::new(Summary {
            failed: summary.failed.clone(),
            skipped: (summary.skipped.iter())
                .filter(|s| s.reason.after_error())
                .cloned()
                .collect(),
            not_done: summary.not_done.clone(),
            stopped_by: summary.stopped_by.clone(),
            items_done: summary.items_done,
            bytes_done: summary.bytes_done,
            bytes_kept: summary.bytes_kept,
            notes: summary.notes.clone(),
            resume_again: summary.resume_again,
            ..Summary::default()
        });
    }

    /// Forgets the ended jobs (the panel's Clear).
    pub fn clear_ended(&mut self) {
        self.window.retain(|_, j| j.is_running());
    }

    /// What Undo and Redo would do now.
    pub fn labels(&self) -> &Labels {
        &self.labels
    }

    /// The journal's answer to "what would Undo and Redo do now".
    pub fn set_labels(&mut self, labels: Labels) {
        self.labels = labels;
    }

    /// Records that `job` belongs to `origin` (holding the journal's writer lock `held`, if
    /// it decided from the journal); returns its events that arrived before.
    pub fn own(&mut self, job: JobId, origin: Origin, held: Option<Held>) -> Vec<Event> {
        self.origins.insert(job, origin);
        if let Some(held) = held {
            self.writers.insert(job, held);
        }
        self.early.remove(&job).unwrap_or_default()
    }

    /// A window job was submitted: it is followed from now on; returns its events that
    /// arrived before.
    pub fn started(&mut self, started: Started) -> Vec<Event> {
        let Started {
            id,
            job,
            seq,
            held,
            undoing,
            follow_up,
        } = started;
        let named = self.named(&job);
        self.window.insert(
            id,
            WindowJob {
                id,
                title: title(named.as_deref().unwrap_or(&job), None),
                named,
                job,
                started: Instant::now(),
                totals: None,
                progress: None,
                state: State::Waiting,
                waiting_answers: 0,
                questions: 0,
                pause_wanted: None,
                seq,
                undoing,
                follow_up,
                asked: Asked::default(),
                answers: Answers::default(),
            },
        );
        self.own(id, Origin::Window, held)
    }

    /// Whose `event` is, with what the window job it belongs to learnt from it; `None` keeps
    /// it until its job is owned.
    pub fn route(&mut self, event: Event) -> Option<Routed> {
        let job = job_of(&event);
        let Some(&origin) = self.origins.get(&job) else {
            self.early.entry(job).or_default().push(event);
            return None;
        };
        let ended = matches!(event, Event::Finished { .. } | Event::Cancelled { .. });
        if ended {
            self.origins.remove(&job);
        }
        if origin == Origin::Recovery {
            return Some(Routed::Recovery(Box::new(event)));
        }
        let window = self.window.get_mut(&job)?;
        Some(match event {
            Event::Planned { totals, .. } => {
                window.title = title(window.as_named(), Some(&totals));
                window.totals = Some(totals);
                window.runs(Instant::now());
                Routed::Changed(job)
            }
            Event::Progress { progress, .. } => {
                if window.pause_wanted == Some(progress.paused) {
                    window.pause_wanted = None;
                }
                window.progress = Some(progress);
                window.runs(Instant::now());
                Routed::Changed(job)
            }
            Event::Conflicts { conflicts, .. } => {
                window.runs(Instant::now());
                Routed::Conflicts(job, conflicts)
            }
            // A job asking has started, planning perhaps: not "waiting for the jobs before
            // it", as a question during planning left it saying.
            Event::ItemError {
                request,
                path,
                error,
                ..
            } => {
                window.runs(Instant::now());
                Routed::ItemError {
                    job,
                    request,
                    path,
                    error,
                }
            }
            Event::ItemFailed { .. } => Routed::Changed(job),
            Event::Finished { summary, .. } => {
                // An undo that put nothing back (everything changed since, or skipped when
                // asked) undid nothing.
                let undone = match (summary.is_complete(), summary.items_done) {
                    _ if summary.skipped_everything() => None,
                    (true, _) => Some(UNDONE),
                    (false, 0) => None,
                    (false, _) => Some(PARTLY_UNDONE),
                };
                window.state = State::Ended {
                    said: done_message(window.as_named(), &summary, false, window.totals.as_ref()),
                    summary: Arc::new(summary),
                    cancelled: false,
                    took: window.working_time(Instant::now()),
                };
                if let (true, Some(seq), Some(words)) = (window.undoing, window.seq, undone) {
                    self.said_undone(seq, words);
                }
                Routed::Ended(job)
            }
            Event::Cancelled { summary, .. } => {
                window.state = State::Ended {
                    said: done_message(window.as_named(), &summary, true, window.totals.as_ref()),
                    summary: Arc::new(summary),
                    cancelled: true,
                    took: window.working_time(Instant::now()),
                };
                Routed::Ended(job)
            }
        })
    }

    /// The undo of record `seq` finished: the panel's rows of the job it undid say so with
    /// `words` (they went on saying "Moved 5 items to “Music”.").
    fn said_undone(&mut self, seq: u64, words: &str) {
        for window in self.window.values_mut() {
            if let (false, Some(s), State::Ended { said, .. }) =
                (window.undoing, window.seq, &mut window.state)
                && s == seq
            {
                for old in [UNDONE, PARTLY_UNDONE] {
                    if let Some(kept) = said.strip_suffix(old) {
                        *said = kept.to_owned();
                    }
                }
                said.push_str(words);
            }
        }
    }

    /// `job` asked about `conflicts` (kept for the answers' sake).
    pub fn conflicts_asked(&mut self, job: JobId, conflicts: &[jobs::Conflict]) {
        if let Some(window) = self.window.get_mut(&job) {
            window.answers.asked(conflicts);
        }
    }

    /// Answers `conflicts` of `job` (the conflict dialog's choices).
    pub fn resolve(
        &mut self,
        job: JobId,
        answers: &[(jobs::ConflictId, jobs::Resolution, jobs::Scope)],
    ) {
        if let Some(window) = self.window.get_mut(&job) {
            window.answers.answered(answers);
        }
        for (id, resolution, scope) in answers {
            self.engine.resolve(job, *id, resolution.clone(), *scope);
        }
    }

    /// Sets how many of `job`'s conflicts wait for an answer: as many as its dialog holds.
    /// Counted from the answers sent, one answer for the rest of a kind settled 9,997 and
    /// took one off ("waiting for 9,997 answers" with none waiting).
    pub fn set_waiting_answers(&mut self, job: JobId, waiting: usize) {
        if let Some(window) = self.window.get_mut(&job) {
            window.waiting_answers = waiting;
            window.asking_changed(Instant::now());
        }
    }

    /// Sets how many of `job`'s failed items wait for an answer.
    pub fn set_questions(&mut self, job: JobId, questions: usize) {
        if let Some(window) = self.window.get_mut(&job) {
            window.questions = questions;
            window.asking_changed(Instant::now());
        }
    }

    /// Answers a failed item's question (Retry, Skip, Skip all, Cancel).
    pub fn resolve_error(&self, job: JobId, request: jobs::ErrorId, action: jobs::ErrorAction) {
        self.engine.resolve_error(job, request, action);
    }

    /// Pauses `job`.
    pub fn pause(&mut self, job: JobId) {
        self.engine.pause(job);
        self.pause_wanted(job, true);
    }

    /// Resumes `job` after a pause.
    pub fn resume(&mut self, job: JobId) {
        self.engine.resume(job);
        self.pause_wanted(job, false);
    }

    fn pause_wanted(&mut self, job: JobId, paused: bool) {
        if let Some(window) = self.window.get_mut(&job) {
            window.pause_wanted = Some(paused);
        }
    }

    /// Cancels `job`.
    pub fn cancel(&self, job: JobId) {
        self.engine.cancel(job);
    }

    /// Cancels every job of the window (quitting).
    pub fn cancel_all(&self) {
        for job in self.window.values().filter(|j| j.is_running()) {
            self.engine.cancel(job.id);
        }
    }

    /// Journals and submits `job` started in the window, off the UI thread.
    pub fn submit(&self, job: Job, follow_up: FollowUp) -> Task<Result<Started, Arc<Error>>> {
        journaled::submit(
            Arc::clone(&self.engine),
            self.stores.clone(),
            job,
            follow_up,
        )
    }

    /// [`submit`](Self::submit) on the calling thread, then followed as a window job: the
    /// window's job path without the window, for `ferry bench`.
    pub fn submit_now(&mut self, job: Job, follow_up: FollowUp) -> Vec<Event> {
        let started = self.submit_blocking(job, follow_up);
        self.started(started)
    }

    /// Journals and submits `job` on the calling thread, as [`submit`](Self::submit) does
    /// on a thread of its own: what comes back is the window's `JobStarted`.
    pub fn submit_blocking(&self, job: Job, follow_up: FollowUp) -> Started {
        journaled::submit_now(&self.engine, &self.stores, job, follow_up)
    }

    /// [`record_end`](Self::record_end) on the calling thread.
    pub fn record_end_now(&mut self, job: JobId) {
        let Some(window) = self.window.get(&job) else {
            return;
        };
        let (
            State::Ended {
                summary, cancelled, ..
            },
            Some(seq),
        ) = (&window.state, window.seq)
        else {
            return;
        };
        let writer = self.writers.remove(&job).and_then(|held| held.take());
        journaled::record_end_now(
            &self.stores,
            seq,
            window.undoing,
            summary,
            *cancelled,
            writer.as_ref(),
        );
    }

    /// True while a window job holds the journal's writer lock (an undo, a redo, a resume).
    pub fn holds_journal(&self) -> bool {
        !self.writers.is_empty()
    }

    /// Takes the journal's writer lock, then undoes (or, `redo`, redoes) the job the journal
    /// names, off the UI thread.
    pub fn undo(&self, redo: bool) -> Task<Result<Undoing, Arc<Error>>> {
        journaled::undo(Arc::clone(&self.engine), self.stores.clone(), redo)
    }

    /// Undoes (`redo`: redoes) the job of record `seq`, and only it (see
    /// [`journaled::undo_record`]).
    pub fn undo_record(&self, seq: u64, redo: bool) -> Task<Result<Undoing, Arc<Error>>> {
        journaled::undo_record(Arc::clone(&self.engine), self.stores.clone(), seq, redo)
    }

    /// Reads what Undo and Redo would do now, off the UI thread.
    pub fn read_labels(&self) -> Task<Labels> {
        journaled::labels(self.stores.clone())
    }

    /// Records the end of window job `job` in the journal (then lets its writer lock go);
    /// `None` when there is nothing to record (a permanent delete, emptying the trash, a job
    /// whose beginning could not be journaled), so no end is waited for.
    pub fn record_end(&mut self, job: JobId) -> Option<Task<()>> {
        let window = self.window.get(&job)?;
        let State::Ended {
            summary, cancelled, ..
        } = &window.state
        else {
            return None;
        };
        let seq = window.seq?;
        let writer = self.writers.remove(&job).and_then(|held| held.take());
        let summary = Arc::clone(summary);
        Some(journaled::record_end(
            self.stores.clone(),
            seq,
            window.undoing,
            summary,
            *cancelled,
            writer,
        ))
    }

    /// The jobs a crash interrupted, after the journal cleaned up their temporaries (and
    /// bounded the folders replaced files are kept in), as `ferry` does at every start.
    pub fn interrupted(&self) -> Task<Vec<JournalRecord>> {
        journaled::interrupted(self.stores.clone())
    }

    /// Takes the journal's writer lock (waiting while a `ferry undo` holds it), records that
    /// `record` is resumed (a roll back is recorded when it ends), then submits it. A place
    /// taken since, or an item that fails, is asked about in the window's dialogs.
    pub fn start_recovery(
        &self,
        record: JournalRecord,
        choice: Choice,
    ) -> Task<Result<(JobId, Held), Arc<Error>>> {
        journaled::start_recovery(
            Arc::clone(&self.engine),
            self.stores.clone(),
            record,
            choice,
        )
    }

    /// Records in the journal how the resume or roll back of record `seq` by `job` ended,
    /// then lets the writer lock go.
    pub fn record_recovery_end(
        &mut self,
        job: JobId,
        seq: u64,
        choice: Choice,
        summary: Summary,
        cancelled: bool,
    ) -> Task<()> {
        let writer = self.writers.remove(&job).and_then(|held| held.take());
        let undo = choice == Choice::RollBack;
        journaled::record_end(
            self.stores.clone(),
            seq,
            undo,
            Arc::new(summary),
            cancelled,
            writer,
        )
    }
}

/// The job an event is about.
fn job_of(event: &Event) -> JobId {
    match *event {
        Event::Planned { job, .. }
        | Event::Progress { job, .. }
        | Event::Conflicts { job, .. }
        | Event::ItemError { job, .. }
        | Event::ItemFailed { job, .. }
        | Event::Finished { job, .. }
        | Event::Cancelled { job, .. } => job,
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn ended(job: u64) -> Event {
        Event::Cancelled {
            job: JobId(job),
            summary: Summary::default(),
        }
    }

    #[test]
    fn events_before_a_job_is_owned_are_kept_for_its_owner() {
        let mut jobs = Jobs::start(Stores::default());
        assert!(jobs.route(ended(3)).is_none());
        let early = jobs.own(JobId(3), Origin::Recovery, None);
        assert_eq!(early.len(), 1);
        assert!(jobs.own(JobId(3), Origin::Recovery, None).is_empty());
        assert!(matches!(jobs.route(ended(3)), Some(Routed::Recovery(_))));
        // A job that ended is forgotten.
        assert!(jobs.route(ended(3)).is_none());
    }

    #[test]
    fn a_window_job_learns_its_title_progress_and_end() {
        let mut jobs = Jobs::start(Stores::default());
        let job = Job::Copy {
            sources: vec![PathBuf::from("/a/x"), PathBuf::from("/a/y")],
            dest_dir: PathBuf::from("/b/Backup"),
            dest_name: None,
            on_conflict: jobs::ConflictPolicy::Ask,
        };
        let early = jobs.started(Started {
            id: JobId(5),
            job: Arc::new(job),
            seq: Some(9),
            held: None,
            undoing: false,
            follow_up: FollowUp::Toast,
        });
        assert!(early.is_empty());
        assert_eq!(
            jobs.window_job(JobId(5)).unwrap().title,
            "Copying 2 items to “Backup”"
        );
        let totals = Totals {
            items: 5000,
            bytes: 1,
            folders: 0,
            cross_device: false,
            ..Totals::default()
        };
        let routed = jobs.route(Event::Planned {
            job: JobId(5),
            totals,
        });
        assert!(matches!(routed, Some(Routed::Changed(JobId(5)))));
        assert_eq!(
            jobs.window_job(JobId(5)).unwrap().title,
            "Copying 5,000 files to “Backup”"
        );
        assert_eq!(jobs.running(), 1);
        let routed = jobs.route(Event::Finished {
            job: JobId(5),
            summary: Summary::default(),
        });
        assert!(matches!(routed, Some(Routed::Ended(JobId(5)))));
        assert_eq!(jobs.running(), 0);
        jobs.clear_ended();
        assert!(jobs.window_job(JobId(5)).is_none());
    }
}
