//! The window's jobs: the only owner of its [`Engine`], of what each job belongs to, and of
//! the undo journal's bookkeeping around them.
//!
//! Screens never see the engine. They ask for work through the window, which calls here;
//! every engine event is routed back to the screen whose job it is ([`Origin`]). Journal
//! reads and writes are file I/O, so each runs on a thread of its own through the
//! [`bridge`](super::bridge) and comes back as a task's message.

use std::collections::HashMap;
use std::sync::Arc;

use crossbeam_channel::Receiver;
use ferry_core::Error;
use ferry_core::jobs::{
    self, ConflictPolicy, Engine, Event, Job, JobId, JobOptions, JournalRecord, Summary,
    TrashRoots, UndoJournal,
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

/// The window's engine and the owners of its jobs.
pub struct Jobs {
    engine: Arc<Engine>,
    events: Receiver<Event>,
    origins: HashMap<JobId, Origin>,
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
            early: HashMap::new(),
        }
    }

    /// The engine's events, for the bridge's subscription.
    pub fn events(&self) -> &Receiver<Event> {
        &self.events
    }

    /// Records that `job` belongs to `origin`; returns its events that arrived before.
    pub fn own(&mut self, job: JobId, origin: Origin) -> Vec<Event> {
        self.origins.insert(job, origin);
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
                eprintln!("ferry: {e}");
            }
            interrupted
        })
    }

    /// Records in the journal that `record` is resumed (a roll back is recorded when it
    /// ends), then submits it. Places taken since are skipped, never asked about: the window
    /// has no conflict dialog yet.
    pub fn start_recovery(
        &self,
        record: JournalRecord,
        choice: Choice,
    ) -> Task<Result<JobId, Arc<Error>>> {
        let engine = Arc::clone(&self.engine);
        bridge::blocking(move || start_recovery(&engine, record, choice).map_err(Arc::new))
    }

    /// Records in the journal how the resume or roll back of record `seq` ended.
    pub fn record_recovery_end(
        seq: u64,
        choice: Choice,
        summary: Summary,
        cancelled: bool,
    ) -> Task<()> {
        bridge::blocking(move || {
            let undo = choice == Choice::RollBack;
            let recorded = UndoJournal::open_default()
                .and_then(|j| j.record_end(seq, undo, &summary, cancelled));
            if let Err(e) = recorded {
                eprintln!("ferry: {e}");
            }
        })
    }
}

/// Blocking: the journal's resume record, then the submission.
fn start_recovery(
    engine: &Engine,
    mut record: JournalRecord,
    choice: Choice,
) -> Result<JobId, Error> {
    let journal = UndoJournal::open_default()?;
    let seq = record.seq;
    let job = match choice {
        Choice::Resume => {
            record.job = record.job.clone().unattended();
            journal.resume(seq, &record.job)?;
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
    Ok(engine.submit_journaled(job, JobOptions::default(), seq))
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
        let early = jobs.own(JobId(3), Origin::Recovery);
        assert_eq!(early.len(), 1);
        assert!(jobs.own(JobId(3), Origin::Recovery).is_empty());
        assert!(matches!(
            jobs.route(progress(3)),
            Some((Origin::Recovery, _))
        ));
        // A job that ended is forgotten.
        assert!(jobs.route(progress(3)).is_none());
    }
}
