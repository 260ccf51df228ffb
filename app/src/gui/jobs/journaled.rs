//! The undo journal around the window's jobs: each function runs on a thread of its own
//! (through the bridge) and comes back as a task's value, because the journal is file I/O and
//! its writer lock may have to be waited for.

use std::path::PathBuf;
use std::sync::Arc;

use ferry_core::Error;
use ferry_core::jobs::{
    ConflictPolicy, Engine, ErrorPolicy, Job, JobId, JobOptions, JournalRecord, JournalWriter,
    OwnFolders, RecordState, Summary, TrashRoots, UndoJournal,
};
use iced::Task;

use super::{FollowUp, Held, describe};
use crate::gui::bridge;
use crate::gui::screen::recovery::Choice;

/// Where the window's jobs keep their undo journal and find the trash: the user's own, or a
/// test's folders (tests cannot change the environment of the process they share).
#[derive(Debug, Clone, Default)]
pub struct Stores {
    /// The journal file; `None`: `$XDG_STATE_HOME/ferry/journal.jsonl`.
    pub journal: Option<PathBuf>,
    /// The home trash folder; `None`: `$XDG_DATA_HOME/Trash`, and those of other disks.
    pub trash: Option<PathBuf>,
}

impl Stores {
    /// The undo journal.
    pub fn journal(&self) -> Result<UndoJournal, Error> {
        match &self.journal {
            Some(path) => Ok(UndoJournal::at(path.clone())),
            None => UndoJournal::open_default(),
        }
    }

    /// The trash folders.
    pub fn trash(&self) -> Result<TrashRoots, Error> {
        match &self.trash {
            Some(home) => Ok(TrashRoots::home_only(home.clone())),
            None => TrashRoots::from_env(),
        }
    }

    /// The folders a move must know of to find its cautions: `home`, the journal's folder
    /// and the home trash (these stores', so that tests use theirs).
    pub fn own_folders(&self, home: Option<PathBuf>) -> OwnFolders {
        let journal = self.journal().ok();
        OwnFolders {
            home,
            state: journal.and_then(|j| Some(j.path().parent()?.to_path_buf())),
            trash: self.trash().ok().map(|roots| roots.home),
        }
    }
}

/// A window job, submitted.
#[derive(Debug, Clone)]
pub struct Started {
    /// The engine's id.
    pub id: JobId,
    /// The job.
    pub job: Arc<Job>,
    /// Its journal record, when it is journaled and the journal could be written.
    pub seq: Option<u64>,
    /// The writer lock an undo or redo holds until its end is recorded.
    pub held: Option<Held>,
    /// It undoes record `seq`.
    pub undoing: bool,
    /// What the window does when it ends.
    pub follow_up: FollowUp,
}

/// An undo or redo, submitted; or why there is nothing to do.
#[derive(Debug, Clone)]
pub enum Undoing {
    /// The job doing it (the jobs panel names it "Undoing: Copy 3 items to “Backup”").
    Started(Started),
    /// The journal has nothing to undo (or redo).
    Nothing,
    /// The job asked about (a toast's Undo) is not the one undo applies to now: it did
    /// nothing, or a later job comes first. Nothing is undone.
    NotThatJob,
    /// Another process holds the journal for an undo, a redo or a resume (`ferry undo` in a
    /// terminal): waiting for it unseen, then undoing the job before, was wrong twice over.
    Busy,
}

/// What Undo and Redo would do now, in words ("Copy of report.pdf -> /backup").
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Labels {
    /// What Undo would undo.
    pub undo: Option<String>,
    /// What Redo would redo.
    pub redo: Option<String>,
    /// The journal record Undo would undo: the menu's Undo undoes that one or nothing (the
    /// command line may have recorded or undone a job since the labels were read).
    pub undo_seq: Option<u64>,
    /// The journal record Redo would redo.
    pub redo_seq: Option<u64>,
    /// There is a job to undo (or redo) that cannot be now: Ctrl+Z (Ctrl+Shift+Z) says why.
    /// The menu said "nothing to redo" while the shortcut tried, and gave a reason.
    pub refused: (bool, bool),
}

/// How the window's jobs ask: conflicts and failed items wait for the window's dialogs.
fn options() -> JobOptions {
    JobOptions {
        paused: false,
        on_error: ErrorPolicy::Ask,
    }
}

/// Journals `job` (when it is a kind the journal keeps) and submits it.
pub fn submit(
    engine: Arc<Engine>,
    stores: Stores,
    job: Job,
    follow_up: FollowUp,
) -> Task<Result<Started, Arc<Error>>> {
    bridge::blocking(move || Ok(submit_now(&engine, &stores, job, follow_up)))
}

/// [`submit`], on the calling thread (blocking: the journal's `begin` is written, and made
/// durable while the job plans). `ferry bench` drives the window's job path through it.
pub fn submit_now(engine: &Engine, stores: &Stores, job: Job, follow_up: FollowUp) -> Started {
    let journal = stores.journal();
    let begun = match journal.and_then(|j| j.begin_in_background(&job)) {
        Ok(begun) => begun,
        Err(e) => {
            // The job runs all the same, as `ferry cp` does.
            tracing::warn!(target: "ferry", "this job will not be undoable: {e}");
            None
        }
    };
    let seq = begun.as_ref().map(|(seq, _)| *seq);
    let id = match begun {
        Some((seq, durable)) => engine.submit_journaled_after(job.clone(), options(), seq, durable),
        None => engine.submit_with(job.clone(), options()),
    };
    Started {
        id,
        job: Arc::new(job),
        seq,
        held: None,
        undoing: false,
        follow_up,
    }
}

/// Takes the writer lock, finds what to undo (or redo), and submits it.
pub fn undo(engine: Arc<Engine>, stores: Stores, redo: bool) -> Task<Result<Undoing, Arc<Error>>> {
    bridge::blocking(move || undo_blocking(&engine, &stores, redo, None).map_err(Arc::new))
}

/// Undoes (`redo`: redoes) the job of record `seq` (a toast's or the menu's Undo), if it is
/// the one undo (redo) applies to now.
pub fn undo_record(
    engine: Arc<Engine>,
    stores: Stores,
    seq: u64,
    redo: bool,
) -> Task<Result<Undoing, Arc<Error>>> {
    bridge::blocking(move || undo_blocking(&engine, &stores, redo, Some(seq)).map_err(Arc::new))
}

/// `only`: the record the user asked to undo; another is never undone in its place (a
/// cancelled copy that did nothing offered Undo, and undid the copy before it).
fn undo_blocking(
    engine: &Engine,
    stores: &Stores,
    redo: bool,
    only: Option<u64>,
) -> Result<Undoing, Error> {
    let Some(writer) = stores.journal()?.try_writer()? else {
        return Ok(Undoing::Busy);
    };
    let found = if redo {
        writer.redo_candidate()?
    } else {
        writer.undo_candidate()?
    };
    let Some(record) = found else {
        return Ok(Undoing::Nothing);
    };
    if only.is_some_and(|seq| seq != record.seq) {
        return Ok(Undoing::NotThatJob);
    }
    let seq = record.seq;
    let job = if redo {
        let job = record.redo_job();
        writer.restart(seq, &job)?;
        job
    } else {
        // Killed or cancelled partway, it is said so until an undo finishes it.
        if let Err(e) = writer.undo_started(seq) {
            tracing::warn!(target: "ferry", "undo journal: {e}");
        }
        Job::Undo {
            record: Box::new(record),
            trash: stores.trash()?,
            on_conflict: ConflictPolicy::Ask,
        }
    };
    let id = engine.submit_journaled(job.clone(), options(), seq);
    let started = Started {
        id,
        job: Arc::new(job),
        seq: Some(seq),
        held: Some(Held::new(writer)),
        undoing: !redo,
        follow_up: FollowUp::Toast,
    };
    Ok(Undoing::Started(started))
}

/// What Undo and Redo would do now.
pub fn labels(stores: Stores) -> Task<Labels> {
    bridge::blocking(move || {
        let Ok(journal) = stores.journal() else {
            return Labels::default();
        };
        let (undo, redo) = (journal.undo_candidate(), journal.redo_candidate());
        let refused = (undo.is_err(), redo.is_err());
        let (undo, redo) = (undo.ok().flatten(), redo.ok().flatten());
        let label = |record: &Option<JournalRecord>| record.as_ref().map(describe::record_in_words);
        Labels {
            undo: label(&undo),
            redo: label(&redo),
            undo_seq: undo.map(|r| r.seq),
            redo_seq: redo.map(|r| r.seq),
            refused,
        }
    })
}

/// Records how the job of record `seq` ended (`undo`: it undid the record), with `writer`
/// when it held the lock, then lets it go.
pub fn record_end(
    stores: Stores,
    seq: u64,
    undo: bool,
    summary: Arc<Summary>,
    cancelled: bool,
    writer: Option<JournalWriter>,
) -> Task<()> {
    bridge::blocking(move || {
        record_end_now(&stores, seq, undo, &summary, cancelled, writer.as_ref());
    })
}

/// [`record_end`], on the calling thread (blocking).
pub fn record_end_now(
    stores: &Stores,
    seq: u64,
    undo: bool,
    summary: &Summary,
    cancelled: bool,
    writer: Option<&JournalWriter>,
) {
    let recorded = match writer {
        Some(writer) => writer.record_end(seq, undo, summary, cancelled),
        None => stores
            .journal()
            .and_then(|j| j.record_end(seq, undo, summary, cancelled)),
    };
    if let Err(e) = recorded {
        tracing::warn!(
            target: "ferry",
            "the end of a job was not recorded ({e}); undoing it will compare sources and \
             destinations"
        );
    }
}

/// The jobs a crash interrupted, after the journal cleaned up their temporaries.
pub fn interrupted(stores: Stores) -> Task<Vec<JournalRecord>> {
    bridge::blocking(move || {
        let (interrupted, problems) = match stores.journal() {
            Ok(journal) => journal.start_up(),
            Err(e) => (Vec::new(), vec![e]),
        };
        for e in problems {
            tracing::warn!(target: "ferry", "{e}");
        }
        interrupted
    })
}

/// The writer lock, the journal's resume record, then the submission of a recovery.
pub fn start_recovery(
    engine: Arc<Engine>,
    stores: Stores,
    record: JournalRecord,
    choice: Choice,
) -> Task<Result<(JobId, Held), Arc<Error>>> {
    bridge::blocking(move || {
        start_recovery_blocking(&engine, &stores, &record, choice).map_err(Arc::new)
    })
}

fn start_recovery_blocking(
    engine: &Engine,
    stores: &Stores,
    found: &JournalRecord,
    choice: Choice,
) -> Result<(JobId, Held), Error> {
    let writer = stores.journal()?.writer()?;
    let seq = found.seq;
    // Read again under the lock: the banner may have been up for an hour while another
    // window or the command line resumed or rolled the job back.
    let record = (writer.journal().records()?.into_iter())
        .find(|r| r.seq == seq && r.state == RecordState::Interrupted)
        .ok_or_else(|| Error::NoLongerInterrupted {
            what: format!("{} {}", found.kind(), found.describe()),
        })?;
    let job = match choice {
        Choice::Resume => {
            writer.resume(seq, &record.job)?;
            Job::Resume {
                record: Box::new(record),
            }
        }
        // A place taken since is asked about, as for any undo.
        Choice::RollBack => Job::Undo {
            record: Box::new(record),
            trash: stores.trash()?,
            on_conflict: ConflictPolicy::Ask,
        },
    };
    let id = engine.submit_journaled(job, options(), seq);
    Ok((id, Held::new(writer)))
}
