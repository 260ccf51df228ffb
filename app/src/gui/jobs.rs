//! The window's jobs: the only owner of its [`Engine`], of what each job belongs to, and of
//! the undo journal's bookkeeping around them.
//!
//! Screens never see the engine. They ask for work through the window, which calls here;
//! every engine event is routed back to the screen whose job it is ([`Origin`]). Journal
//! reads and writes are file I/O, so each runs on a thread of its own through the
//! [`bridge`](super::bridge) and comes back as a task's message.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crossbeam_channel::Receiver;
use ferry_core::Error;
use ferry_core::jobs::{
    self, ConflictPolicy, Engine, Event, Job, JobId, JobOptions, JournalRecord, JournalWriter,
    Summary, TrashRoots, UndoJournal,
};
use iced::Task;

use super::bridge;
use super::screen::recovery::Choice;

/// Where a job came from: whose screen follows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A resume or roll back offered by the recovery banner.
    Recovery,
}

/// The journal's writer lock held for a job until its end is recorded (shared so that it can
/// travel in a message from the thread that took it).
#[derive(Debug, Clone)]
pub struct Held(Arc<Mutex<Option<JournalWriter>>>);

impl Held {
    fn take(&self) -> Option<JournalWriter> {
        self.0.lock().ok()?.take()
    }
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
}

impl Jobs {
    /// Starts the window's engine.
    pub fn start() -> Self {
        let (engine, events) = Engine::start();
        Jobs {
            engine: Arc::new(engine),
            events,
            origins: HashMap::new(),
            writers: HashMap::new(),
            early: HashMap::new(),
        }
    }

    /// The engine's events, for the bridge's subscription.
    pub fn events(&self) -> &Receiver<Event> {
        &self.events
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

    /// Whose screen `event` is for; `None` keeps it until its job is owned.
    pub fn route(&mut self, event: Event) -> Option<(Origin, Event)> {
        let job = job_of(&event);
        let Some(&origin) = self.origins.get(&job) else {
            self.early.entry(job).or_default().push(event);
            return None;
        };
        if matches!(event, Event::Finished { .. } | Event::Cancelled { .. }) {
            self.origins.remove(&job);
        }
        Some((origin, event))
    }

    /// Cancels `job`.
    pub fn cancel(&self, job: JobId) {
        self.engine.cancel(job);
    }

    /// The jobs a crash interrupted, after the journal cleaned up their temporaries (and
    /// bounded the folders replaced files are kept in), as `ferry` does at every start.
    pub fn interrupted() -> Task<Vec<JournalRecord>> {
        bridge::blocking(|| {
            let (interrupted, problems) = match UndoJournal::open_default() {
                Ok(journal) => journal.start_up(),
                Err(e) => (Vec::new(), vec![e]),
            };
            for e in problems {
                tracing::warn!(target: "ferry", "{e}");
            }
            interrupted
        })
    }

    /// Takes the journal's writer lock (waiting while a `ferry undo` holds it), records that
    /// `record` is resumed (a roll back is recorded when it ends), then submits it. Places
    /// taken since are skipped, never asked about: the window has no conflict dialog yet.
    pub fn start_recovery(
        &self,
        record: JournalRecord,
        choice: Choice,
    ) -> Task<Result<(JobId, Held), Arc<Error>>> {
        let engine = Arc::clone(&self.engine);
        bridge::blocking(move || start_recovery(&engine, record, choice).map_err(Arc::new))
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
        bridge::blocking(move || {
            let undo = choice == Choice::RollBack;
            let recorded = match &writer {
                Some(writer) => writer.record_end(seq, undo, &summary, cancelled),
                None => UndoJournal::open_default()
                    .and_then(|j| j.record_end(seq, undo, &summary, cancelled)),
            };
            if let Err(e) = recorded {
                tracing::warn!(target: "ferry", "{e}");
            }
        })
    }
}

/// Blocking: the writer lock, the journal's resume record, then the submission.
fn start_recovery(
    engine: &Engine,
    mut record: JournalRecord,
    choice: Choice,
) -> Result<(JobId, Held), Error> {
    let writer = UndoJournal::open_default()?.writer()?;
    let seq = record.seq;
    let job = match choice {
        Choice::Resume => {
            record.job = record.job.clone().unattended();
            writer.resume(seq, &record.job)?;
            Job::Resume {
                record: Box::new(record),
            }
        }
        Choice::RollBack => Job::Undo {
            record: Box::new(record),
            trash: TrashRoots::from_env()?,
            on_conflict: ConflictPolicy::Skip,
        },
    };
    let id = engine.submit_journaled(job, JobOptions::default(), seq);
    Ok((id, Held(Arc::new(Mutex::new(Some(writer))))))
}

/// The job an event is about.
fn job_of(event: &Event) -> JobId {
    match *event {
        jobs::Event::Planned { job, .. }
        | jobs::Event::Progress { job, .. }
        | jobs::Event::Conflicts { job, .. }
        | jobs::Event::ItemError { job, .. }
        | jobs::Event::ItemFailed { job, .. }
        | jobs::Event::Finished { job, .. }
        | jobs::Event::Cancelled { job, .. } => job,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn progress(job: u64) -> Event {
        Event::Cancelled {
            job: JobId(job),
            summary: Summary::default(),
        }
    }

    #[test]
    fn events_before_a_job_is_owned_are_kept_for_its_owner() {
        let mut jobs = Jobs::start();
        assert!(jobs.route(progress(3)).is_none());
        let early = jobs.own(JobId(3), Origin::Recovery, None);
        assert_eq!(early.len(), 1);
        assert!(jobs.own(JobId(3), Origin::Recovery, None).is_empty());
        assert!(matches!(
            jobs.route(progress(3)),
            Some((Origin::Recovery, _))
        ));
        // A job that ended is forgotten.
        assert!(jobs.route(progress(3)).is_none());
    }
}
