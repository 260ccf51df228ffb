//! `ferry undo|redo|history|resume`: the undo journal from the command line, the same
//! journal the window uses (`$XDG_STATE_HOME/ferry/journal.jsonl`).
//!
//! Undo, redo and resume run as jobs of the engine with the same progress bar, Ctrl-C and
//! summary as `ferry cp`. Every start first cleans up after jobs a crash interrupted (their
//! named temporaries) and says how to resume or roll them back. Each holds the journal's
//! writer lock ([`JournalWriter`]) from choosing its record to recording its end: a second
//! one started meanwhile (here or in the window) waits, then decides afresh.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use ferry_core::jobs::{
    Begun, ConflictPolicy, Durable, Engine, How, Job, JobId, JobOptions, JournalRecord,
    JournalWriter, LeftBehind, PartPutBack, RecordState, STAGING_MAX_AGE, STAGING_MAX_BYTES,
    Summary, TrashRoots, UndoJournal, put_back_interrupted, undo_complete,
};
use ferry_core::shown::Shown;

use super::jobs::{OnConflict, run_asking, run_journaled};
use super::prompt::{Prompt, policy_of, refuse_unanswerable};
use super::{EXIT_OK, EXIT_REFUSED};

/// Arguments of `ferry undo`.
#[derive(Debug, Args)]
pub struct UndoArgs {
    /// What to do when an item going back finds its original place taken (`ask` needs a
    /// terminal; without one, the conflicts are listed and nothing is undone, and one that
    /// appears as the undo goes is skipped, left for another `ferry undo`, exit status 1).
    #[arg(long, value_enum, default_value_t = OnConflict::Ask)]
    pub on_conflict: OnConflict,
}

/// Arguments of `ferry history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// Show at most this many records (newest first).
    #[arg(long, short = 'n', default_value_t = 20)]
    pub limit: usize,
}

/// Arguments of `ferry resume`.
#[derive(Debug, Args)]
pub struct ResumeArgs {
    /// The record to resume (see `ferry history`); default: every interrupted job, oldest
    /// first.
    pub record: Option<u64>,
}

/// How a job run from the command line is kept in the journal.
pub struct Journaled {
    journal: Option<UndoJournal>,
    /// Held by an undo, redo or resume until its end is recorded (a resume of several
    /// records shares it: it holds the lock until the last one's end).
    writer: Option<Arc<JournalWriter>>,
    seq: Option<u64>,
    /// The record's `begin` line on its way to the disk (a new job's).
    durable: Option<Durable>,
    end: End,
    /// The undo of an interrupted job none of whose items was in place yet: what it had
    /// begun out of sight is removed at start (a copy's or move's large files' parts by the
    /// undo).
    nothing_landed: Option<NothingLanded>,
}

/// Which interrupted job an undo found with nothing of it in place.
#[derive(Clone, Copy, PartialEq, Eq)]
enum NothingLanded {
    /// A copy or a move: nothing at its destination.
    Written,
    /// A trash: every item still where it was (the info files it had written are removed).
    Trashed,
}

#[derive(PartialEq, Eq)]
enum End {
    /// Record what the job did.
    Record,
    /// Mark the record undone (the job was its undo).
    Undone,
    /// Record what the job did, a redo: it asks nothing, so that an item it skipped for its
    /// place being taken leaves it partial (it exited 0, "0 done, 1 skipped").
    Redone,
}

fn not_undoable(e: &ferry_core::Error) {
    eprintln!("ferry: this job will not be undoable: {e}");
}

fn warn(e: &ferry_core::Error) {
    eprintln!("ferry: undo journal: {e}");
}

fn open_journal() -> Option<UndoJournal> {
    UndoJournal::open_default().map_err(|e| warn(&e)).ok()
}

/// The journal's writer lock, waited for (said so when another holds it); `None`, said on
/// stderr, when it cannot be taken.
fn writer(journal: &UndoJournal) -> Option<JournalWriter> {
    let held = match journal.try_writer() {
        Ok(None) => {
            eprintln!("ferry: waiting for another undo, redo or resume to finish");
            journal.writer().map(Some)
        }
        held => held,
    };
    held.map_err(|e| {
        eprintln!("ferry: the undo journal cannot be written, so nothing is done: {e}");
    })
    .ok()
    .flatten()
}

/// The record `verb` ("undo", "redo") applies to; `None`, said on stderr, when there is none.
fn candidate(
    found: Result<Option<JournalRecord>, ferry_core::Error>,
    verb: &str,
) -> Option<JournalRecord> {
    match found {
        Ok(Some(record)) => Some(record),
        Ok(None) => {
            eprintln!("ferry: nothing to {verb}");
            None
        }
        Err(e) => {
            warn(&e);
            None
        }
    }
}

/// Cleans up after interrupted jobs and returns them; bounds the folders replaced files
/// are kept in.
fn recover(journal: &UndoJournal) -> Vec<JournalRecord> {
    let (interrupted, problems) = journal.start_up();
    problems.iter().for_each(warn);
    interrupted
}

impl Journaled {
    /// Journals a new job before it starts (nothing for jobs that are not journaled). A journal
    /// that cannot be written is reported ("this job will not be undoable") and the job runs
    /// anyway.
    pub fn begin(job: &Job) -> Journaled {
        let journal = UndoJournal::open_default()
            .map_err(|e| not_undoable(&e))
            .ok();
        Self::begin_in(journal, job)
    }

    /// [`begin`](Self::begin) in `journal`.
    pub(crate) fn begin_in(journal: Option<UndoJournal>, job: &Job) -> Journaled {
        let begun = journal.as_ref().map(|j| {
            // One read of the log for the record and the start-up checks.
            let begun = j.begin_and_start_up(job).unwrap_or_else(|e| {
                not_undoable(&e);
                Begun::default()
            });
            begun.problems.iter().for_each(warn);
            if !begun.interrupted.is_empty() {
                eprintln!(
                    "ferry: {} interrupted job(s) found: `ferry resume` finishes, \
                     `ferry undo` rolls back",
                    begun.interrupted.len()
                );
            }
            begun
        });
        let (seq, durable) = begun.map_or((None, None), |b| (b.seq, b.durable));
        Journaled {
            journal,
            writer: None,
            seq,
            durable,
            end: End::Record,
            nothing_landed: None,
        }
    }

    /// Submits `job` to `engine` as this record's job: journaled if it is (its large files
    /// resumable, its writes after its `begin` line is on disk).
    pub fn submit(&self, engine: &Engine, job: Job, options: JobOptions) -> JobId {
        if let Some(journal) = &self.journal {
            engine.keep_details_in(journal);
        }
        match (self.seq, self.durable.clone()) {
            (Some(seq), Some(durable)) => engine.submit_journaled_after(job, options, seq, durable),
            (Some(seq), None) => engine.submit_journaled(job, options, seq),
            (None, _) => engine.submit_with(job, options),
        }
    }

    /// True for a redo, which leaves what it finds in place without asking: see
    /// [`End::Redone`].
    pub(crate) fn skips_taken_places(&self) -> bool {
        self.end == End::Redone
    }

    /// Records the end of the job; `unasked`: conflicts were skipped without a terminal to
    /// ask on.
    pub fn finish(self, summary: &Summary, cancelled: bool, unasked: bool) {
        ferry_core::fault::point("job-ended");
        let (Some(journal), Some(seq)) = (self.journal, self.seq) else {
            return;
        };
        let undo = self.end == End::Undone;
        let written_nothing = self.nothing_landed == Some(NothingLanded::Written);
        if undo && unasked && !cancelled {
            // Not marked undone: nobody chose to leave those items where they are, and
            // another `ferry undo` (with `--on-conflict`) can still put them back.
            eprintln!(
                "ferry: not all of it could be undone; {}",
                try_again(summary)
            );
            return;
        }
        if self.end == End::Redone && !cancelled && summary.skipped_everything() {
            eprintln!(
                "ferry: nothing was redone: every place it would write is taken; the job stays \
                 the one `ferry redo` redoes"
            );
        }
        let recorded = match &self.writer {
            Some(writer) => writer.record_end(seq, undo, summary, cancelled),
            None => journal.record_end(seq, undo, summary, cancelled),
        };
        match recorded {
            // Ctrl+C part way: run again, it goes on from there.
            Ok(())
                if undo
                    && cancelled
                    && !undo_complete(summary)
                    && summary.record.did_something() =>
            {
                eprintln!("ferry: the undo stopped part way; `ferry undo` goes on from there");
            }
            // The check before writing found no room: the record is as it was (not unfinished).
            Ok(()) if undo && !cancelled && summary.refused_before_writing() => {
                eprintln!("ferry: nothing was undone; make room there, then `ferry undo` again");
            }
            Ok(()) if undo && !cancelled && summary.skipped_everything() => {
                eprintln!(
                    "ferry: nothing was undone: every item was skipped; the job stays the one \
                     `ferry undo` undoes"
                );
            }
            Ok(()) if undo && !cancelled && !undo_complete(summary) => {
                eprintln!(
                    "ferry: not all of it could be undone; {}",
                    try_again(summary)
                );
            }
            Ok(()) if summary.resume_again => {
                eprintln!("ferry: the job is still interrupted; `ferry resume` tries again");
            }
            // Killed before anything of it was in place: what it had begun was all there was.
            Ok(()) if undo && !cancelled && summary.done.is_empty() && written_nothing => {
                eprintln!("ferry: {}", nothing_landed(summary.unfinished_removed));
            }
            // Nothing put back, and no item named why: said, or exit 0 read as done.
            Ok(()) if undo && !cancelled && summary.done.is_empty() && !said_why(summary) => {
                match self.nothing_landed {
                    Some(NothingLanded::Trashed) => eprintln!(
                        "ferry: nothing of it was in the trash yet; every item is where it was"
                    ),
                    _ => eprintln!(
                        "ferry: nothing of it was undone: what the job did is no longer as it \
                         left it, or was not recorded as done"
                    ),
                }
            }
            Ok(()) => {}
            // The record reads as interrupted: its undo compares instead of using identities.
            Err(e) if !undo => eprintln!(
                "ferry: undo journal: the end of this job was not recorded ({e}); undoing it \
                 will compare sources and destinations"
            ),
            Err(e) => warn(&e),
        }
    }
}

/// What the undo of an interrupted job none of whose items was in place yet says, having
/// removed the `removed` files it had begun.
fn nothing_landed(removed: usize) -> String {
    let begun = match removed {
        0 => "what it had begun was removed when it was found interrupted".to_owned(),
        1 => "the file it had begun was removed".to_owned(),
        n => format!("the {n} files it had begun were removed"),
    };
    format!("nothing of it was in place yet; {begun}")
}

/// Whether `summary` names an item it did not do, and why.
fn said_why(summary: &Summary) -> bool {
    !summary.failed.is_empty() || !summary.skipped.is_empty() || !summary.not_done.is_empty()
}

/// How to finish an undo that stopped part way. Run again, it goes on into the folders it
/// put back in part (`PartPutBack`), so a plain `ferry undo` is all it takes.
fn try_again(summary: &Summary) -> &'static str {
    // Tried again as it is, an undo that found its disk full fails alike: its copies go to
    // the trash of their own disk, which takes room there too.
    let full = (summary.stopped_by.iter())
        .chain(summary.failed.iter().map(|f| &f.error))
        .any(|e| e.is_disk_full());
    match (full, summary.record.did_something()) {
        (true, true) => {
            "the disk is full: make room on it, then `ferry undo` goes on from where it \
             stopped"
        }
        (true, false) => {
            "the disk is full: make room on it, then `ferry undo` again (undoing takes room \
             there too: copies go to that disk's trash)"
        }
        (false, true) => "`ferry undo` goes on from where it stopped once the cause is fixed",
        (false, false) => "`ferry undo` tries again",
    }
}

/// How to finish an undo found unfinished (`ferry resume`, `ferry history`).
const FINISH_UNDO: &str = "`ferry undo` finishes it";

fn state_word(state: RecordState) -> &'static str {
    match state {
        RecordState::Running => "running",
        RecordState::Interrupted => "INTERRUPTED",
        RecordState::Finished => "done",
        RecordState::Cancelled => "cancelled",
        RecordState::Undone => "undone",
    }
}

/// Runs `ferry history`: records newest first, with kind, time, state and counts.
pub fn run_history(args: &HistoryArgs) -> i32 {
    let Some(journal) = open_journal() else {
        return EXIT_REFUSED;
    };
    recover(&journal);
    let records = match journal.records() {
        Ok(r) => r,
        Err(e) => {
            warn(&e);
            return EXIT_REFUSED;
        }
    };
    for r in records.iter().rev().take(args.limit) {
        let time = chrono::DateTime::<chrono::Local>::from(r.started).format("%Y-%m-%d %H:%M:%S");
        let c = r.counts;
        let counts = match r.state {
            RecordState::Running | RecordState::Interrupted => String::new(),
            // Items at any depth, but of what was given, how many were left unfinished
            // ("607 done … 1 not done" read as one file left after a cancel at 607 of 2,016).
            _ => match c.not_done {
                0 => format!(
                    "{} done, {} skipped, {} failed",
                    c.done, c.skipped, c.failed
                ),
                n => format!(
                    "{} done, {} skipped, {} failed; {n} of the items given unfinished",
                    c.done, c.skipped, c.failed
                ),
            },
        };
        // A resumed record keeps what the run that finished it did: the killed run's part
        // is not counted (`147 done` of a move of 2,003 read as if the rest had failed).
        let counts = match r.resumed && !counts.is_empty() {
            true => format!("{counts} by the resume that finished it"),
            false => counts,
        };
        let counts = match r.undone_left {
            0 => counts,
            1 if r.state == RecordState::Undone => format!("{counts}; 1 item was not undone"),
            left if r.state == RecordState::Undone => {
                format!("{counts}; {left} items were not undone")
            }
            _ => counts,
        };
        let state = match r.state {
            _ if r.undo_unfinished() => "UNDO UNFINISHED",
            // Refused or failed on every item ("cannot copy d into itself"): not "done".
            RecordState::Finished if c.done == 0 && c.failed > 0 => "failed",
            // Stopped before anything (not enough free space) or with items failed: not "done".
            RecordState::Finished if c.done == 0 && c.not_done > 0 => "stopped",
            RecordState::Finished if c.failed > 0 || c.not_done > 0 => "partial",
            state => state_word(state),
        };
        println!(
            "{:>4}  {time}  {:<13}  {:<11}  {}  {counts}",
            r.seq,
            r.kind(),
            state,
            r.describe()
        );
    }
    EXIT_OK
}

/// Runs `ferry undo`: undoes the newest job not undone yet (rolls back an interrupted one).
pub fn run_undo(args: &UndoArgs) -> i32 {
    let Some(journal) = open_journal() else {
        return EXIT_REFUSED;
    };
    let trash = || {
        TrashRoots::from_env().map_err(|e| {
            eprintln!("ferry: {e}");
        })
    };
    undo_in(
        journal,
        trash,
        policy_of(args.on_conflict),
        Prompt::on_terminal(),
    )
}

/// [`run_undo`] with `journal`, the trash folders `trash` gives and the questions of `prompt`.
fn undo_in(
    journal: UndoJournal,
    trash: impl FnOnce() -> Result<TrashRoots, ()>,
    on_conflict: ConflictPolicy,
    prompt: Prompt,
) -> i32 {
    let Some(writer) = writer(&journal) else {
        return EXIT_REFUSED;
    };
    recover(&journal);
    let Some(record) = candidate(writer.undo_candidate(), "undo") else {
        return EXIT_REFUSED;
    };
    ferry_core::fault::point("undo-decided");
    let Ok(trash) = trash() else {
        return EXIT_REFUSED;
    };
    // A newer job that changed nothing (it failed or skipped everything) is no undo step:
    // said, or "undo the last job" seemed to undo an older one at random.
    let newer = journal.records().unwrap_or_default();
    for r in newer.iter().filter(|r| {
        r.seq > record.seq
            && matches!(r.state, RecordState::Finished | RecordState::Cancelled)
            && r.did_nothing()
    }) {
        eprintln!(
            "ferry: passing over {} {}, newer: it changed nothing",
            r_kind(r),
            r.describe()
        );
    }
    eprintln!("ferry: undoing {} {}", r_kind(&record), record.describe());
    details_missing(&record);
    let pruned = record
        .entries
        .iter()
        .filter_map(|e| e.staged.as_deref())
        .filter(|staged| staged.symlink_metadata().is_err())
        .count();
    if pruned > 0 {
        eprintln!(
            "ferry: {pruned} replaced item(s) can no longer be put back: replaced items are kept \
             for {} days and up to {} MiB",
            STAGING_MAX_AGE.as_secs() / 86_400,
            STAGING_MAX_BYTES >> 20
        );
    }
    if let Some(code) = refuse_unanswerable(on_conflict, &taken(&record), prompt.terminal()) {
        return code;
    }
    let seq = record.seq;
    let interrupted = record.state == RecordState::Interrupted;
    let nothing_landed = match &record.job {
        _ if !interrupted => None,
        Job::Copy { .. } | Job::Move { .. } => (record.job.landings().iter())
            .all(|(_, dest)| dest.symlink_metadata().is_err())
            .then_some(NothingLanded::Written),
        Job::Trash { paths, .. } => (paths.iter())
            .all(|path| path.symlink_metadata().is_ok())
            .then_some(NothingLanded::Trashed),
        _ => None,
    };
    // Killed or cancelled partway, it is said so (history, resume) until an undo finishes.
    if let Err(e) = writer.undo_started(seq) {
        warn(&e);
    }
    let job = Job::Undo {
        record: Box::new(record),
        trash,
        on_conflict,
    };
    let journaled = Journaled {
        journal: Some(journal),
        writer: Some(Arc::new(writer)),
        seq: Some(seq),
        durable: None,
        end: End::Undone,
        nothing_landed,
    };
    run_asking(job, "undone", journaled, prompt)
}

/// Says so when `record` lost a details file (its per-item identities, or what its undo put
/// in the trash).
fn details_missing(record: &JournalRecord) {
    if let Some(file) = &record.details_missing {
        let what = match record.state {
            RecordState::Undone => "the redo may do less than the job did",
            _ => "undoing it by comparing sources and destinations instead",
        };
        eprintln!(
            "ferry: warning: this job's details file {} is missing or damaged; {what}",
            Shown(file)
        );
    }
}

fn r_kind(r: &JournalRecord) -> String {
    match r.state {
        RecordState::Interrupted => format!("(roll back) the interrupted {}", r.kind()),
        _ => format!("the {}", r.kind()),
    }
}

/// The items undoing `record` would put back in places taken since (item, place): moved
/// items still where the move left them, trashed items still in the trash.
fn taken(record: &JournalRecord) -> Vec<(PathBuf, PathBuf)> {
    let exists = |p: &std::path::Path| p.symlink_metadata().is_ok();
    if record.undo_by_comparison() {
        return Vec::new(); // rolled back by comparison, never over anything
    }
    match &record.job {
        Job::Move { .. } => {
            let (left_behind, part_put_back) = (LeftBehind::of(record), PartPutBack::of(record));
            (record.entries.iter())
                .filter(|e| e.top_level && e.how != How::Merged)
                .filter(|e| exists(&e.dest) && exists(&e.source) && !put_back_interrupted(e))
                .flat_map(|e| {
                    // A folder partly moved, or partly put back by a stopped undo, goes back
                    // into the folder there, item by item.
                    (left_behind.as_ref().and_then(|l| l.taken_inside(e)))
                        .or_else(|| part_put_back.as_ref()?.taken_inside(e))
                        .unwrap_or_else(|| vec![(e.dest.clone(), e.source.clone())])
                })
                .collect()
        }
        Job::Trash { .. } => record
            .trash
            .iter()
            .filter(|t| exists(&t.file) && exists(&t.original))
            .map(|t| (t.file.clone(), t.original.clone()))
            .collect(),
        _ => Vec::new(),
    }
}

/// Runs `ferry redo`: replays the job undone last, if nothing was done since.
pub fn run_redo() -> i32 {
    let Some(journal) = open_journal() else {
        return EXIT_REFUSED;
    };
    let Some(writer) = writer(&journal) else {
        return EXIT_REFUSED;
    };
    let Some(record) = candidate(writer.redo_candidate(), "redo") else {
        return EXIT_REFUSED;
    };
    eprintln!("ferry: redoing the {} {}", record.kind(), record.describe());
    details_missing(&record);
    let job = record.redo_job().unattended();
    if let Err(e) = writer.restart(record.seq, &job) {
        warn(&e);
    }
    let journaled = Journaled {
        journal: Some(journal),
        writer: Some(Arc::new(writer)),
        seq: Some(record.seq),
        durable: None,
        end: End::Redone,
        nothing_landed: None,
    };
    run_journaled(job, "redone", journaled)
}

/// Says why job `seq`, asked for by number, is not resumed: there is no such job, or it was
/// not interrupted (it said another job's unfinished undo, or nothing).
fn not_resumable(records: &[JournalRecord], seq: u64) {
    let Some(r) = records.iter().find(|r| r.seq == seq) else {
        eprintln!("ferry: no job {seq} in the journal (`ferry history` lists them)");
        return;
    };
    let (kind, what) = (r.kind(), r.describe());
    match r.state {
        RecordState::Running => {
            eprintln!("ferry: job {seq}, the {kind} {what}, is still running");
        }
        _ if r.undo_unfinished() => {
            eprintln!("ferry: job {seq}, the {kind} {what}, was being undone: {FINISH_UNDO}");
        }
        state => {
            let was = match state {
                RecordState::Cancelled => "cancelled",
                RecordState::Undone => "undone",
                _ => "finished",
            };
            eprintln!(
                "ferry: job {seq}, the {kind} {what}, was {was}, not interrupted: nothing to resume"
            );
        }
    }
}

/// Runs `ferry resume`: finishes every job a crash interrupted, oldest first (or only the
/// record asked for), skipping what each already did, and names those left unfinished.
pub fn run_resume(args: &ResumeArgs) -> i32 {
    let Some(journal) = open_journal() else {
        return EXIT_REFUSED;
    };
    let Some(writer) = writer(&journal).map(Arc::new) else {
        return EXIT_REFUSED;
    };
    let interrupted = recover(&journal);
    let chosen: Vec<&JournalRecord> = interrupted
        .iter()
        .filter(|r| args.record.is_none_or(|seq| r.seq == seq))
        .collect();
    if chosen.is_empty() {
        let records = journal.records().unwrap_or_default();
        if let Some(seq) = args.record {
            not_resumable(&records, seq);
            return EXIT_REFUSED;
        }
        // A job stopped (SIGSTOP, a suspended terminal) is not interrupted: say so.
        let running = records.iter().rev().find(|r| {
            r.state == RecordState::Running && args.record.is_none_or(|seq| r.seq == seq)
        });
        match running {
            Some(r) => eprintln!(
                "ferry: no interrupted job to resume: the {} {} is still running",
                r.kind(),
                r.describe()
            ),
            None => match records.iter().rev().find(|r| r.undo_unfinished()) {
                // Its undo is what is unfinished: another undo finishes it.
                Some(r) => eprintln!(
                    "ferry: no interrupted job to resume; the undo of the {} {} did not \
                     finish: {FINISH_UNDO}",
                    r.kind(),
                    r.describe()
                ),
                None => eprintln!("ferry: no interrupted job to resume"),
            },
        }
        return EXIT_REFUSED;
    }
    // A Ctrl-C cancels the job running (see `run_journaled`); those after it do not start.
    let interrupt = super::jobs::Interrupt::register();
    let mut code = EXIT_OK;
    let mut resumed = Vec::new();
    for record in chosen {
        if interrupt.asked() {
            break;
        }
        resumed.push(record.seq);
        code = code.max(resume_one(&journal, &writer, record.clone()));
    }
    let left: Vec<String> = interrupted
        .iter()
        .filter(|r| !resumed.contains(&r.seq))
        .map(|r| format!("{} ({} {})", r.seq, r.kind(), r.describe()))
        .collect();
    if !left.is_empty() {
        let s = if left.len() == 1 { "" } else { "s" };
        eprintln!(
            "ferry: {} interrupted job{s} left (`ferry resume RECORD` finishes one): {}",
            left.len(),
            left.join(", ")
        );
    }
    code
}

/// Resumes one interrupted record and records how it ended.
fn resume_one(
    journal: &UndoJournal,
    writer: &Arc<JournalWriter>,
    mut record: JournalRecord,
) -> i32 {
    eprintln!(
        "ferry: resuming the {} {}",
        record.kind(),
        record.describe()
    );
    let seq = record.seq;
    record.job = record.job.clone().unattended();
    if let Err(e) = writer.resume(seq, &record.job) {
        warn(&e);
    }
    let journaled = Journaled {
        journal: Some(journal.clone()),
        writer: Some(Arc::clone(writer)),
        seq: Some(seq),
        durable: None,
        end: End::Record,
        nothing_landed: None,
    };
    let job = Job::Resume {
        record: Box::new(record),
    };
    run_journaled(job, "resumed", journaled)
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::EXIT_PARTIAL;

    /// No terminal, and stdin holding "replace", as in `printf 'r\n' | ferry undo`.
    fn no_terminal() -> Prompt {
        Prompt::new(false, Box::new(&b"r\n"[..]))
    }

    /// Runs `job` journaled in `journal`, without a terminal.
    fn run_in(journal: &UndoJournal, job: Job) -> i32 {
        let journaled = Journaled::begin_in(Some(journal.clone()), &job);
        run_asking(job, "moved", journaled, no_terminal())
    }

    /// The undo of `ferry trash d2/sub d2` puts `d2` back, then `sub` into it; a `sub` put
    /// into the trashed `d2` since takes its place, a conflict no check before the job could
    /// see (`d2` was not there). Without a terminal it is skipped, never asked (stdin is not
    /// read, whatever it holds), the status is partial and the record stays to be undone
    /// again.
    #[test]
    fn without_a_terminal_a_conflict_met_by_an_undo_is_skipped_not_asked() {
        let tmp = tempfile::tempdir().unwrap();
        let journal = UndoJournal::at(tmp.path().join("state/journal.jsonl"));
        let trash = TrashRoots::home_only(tmp.path().join("home/Trash"));
        let orig = tmp.path().join("orig");
        fs::create_dir_all(orig.join("d2/sub")).unwrap();
        fs::write(orig.join("d2/own"), "own").unwrap();
        fs::write(orig.join("d2/sub/f"), "f").unwrap();
        let job = Job::Trash {
            paths: vec![orig.join("d2/sub"), orig.join("d2")],
            roots: trash.clone(),
        };
        run_in(&journal, job);
        assert!(!orig.join("d2").exists());
        let files = tmp.path().join("home/Trash/files");
        fs::create_dir(files.join("d2/sub")).unwrap();
        let code = undo_in(
            journal.clone(),
            || Ok(trash),
            ConflictPolicy::Ask,
            no_terminal(),
        );
        assert_eq!(code, EXIT_PARTIAL);
        assert_eq!(
            fs::read(orig.join("d2/own")).unwrap(),
            b"own",
            "d2 went back"
        );
        // Neither merged nor replaced: `sub` stays in the trash.
        assert!(!orig.join("d2/sub/f").exists());
        assert_eq!(fs::read(files.join("sub/f")).unwrap(), b"f");
        assert_eq!(fs::read_dir(&files).unwrap().count(), 1);
        let records = journal.records().unwrap();
        assert_ne!(records[0].state, RecordState::Undone, "to be undone again");
    }
}
