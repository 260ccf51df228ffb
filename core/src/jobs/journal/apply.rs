//! Replaying the log: each line applied to the records read so far.

use std::time::{Duration, UNIX_EPOCH};

use super::stored::{Line, StoredPath};
use super::{Counts, JournalRecord, RecordState};

/// Applies `line` to `records` (in log order).
pub(super) fn apply(records: &mut Vec<JournalRecord>, line: Line) {
    let seq = line.seq();
    let index = records.iter().rposition(|r| r.seq == seq);
    match (line, index) {
        (
            Line::Begin {
                time,
                nsec,
                pid,
                pid_start,
                job,
                preexisting,
                resumed,
                ..
            },
            index,
        ) => {
            // A resume continues the run it resumes: what that run did counts from its start
            // (recovery looks for the trash entries made since), and what existed before the
            // job is what existed before that run, not what it created.
            let pids = match index {
                Some(i) if resumed => [&records[i].pids[..], &[pid]].concat(),
                _ => vec![pid],
            };
            let (started, preexisting) = match index {
                Some(i) if resumed => (records[i].started, records[i].preexisting.clone()),
                _ => (
                    UNIX_EPOCH + Duration::new(time, nsec.min(999_999_999)),
                    preexisting.into_iter().map(StoredPath::into_path).collect(),
                ),
            };
            let record = JournalRecord {
                seq,
                started,
                job: job.into_job(),
                state: RecordState::Running,
                entries: Vec::new(),
                counts: Counts::default(),
                trash: Vec::new(),
                undo_trash: Vec::new(),
                preexisting,
                resumed,
                entries_dropped: false,
                pid,
                pid_start,
                pids,
                details: false,
                undone_details: false,
                undone_when_newest: None,
                undone_aside: None,
                undone_left: 0,
                undone_nothing: false,
                staging: Vec::new(),
                details_missing: None,
                remade: Vec::new(),
                undo_by: None,
                undo_by_before: None,
                before_redo: None,
            };
            match index {
                // A redo starts the record over: what it was is kept, for a redo refused
                // before it wrote anything (see `Line::RedoRefused`).
                Some(i) if !resumed => {
                    let mut was = std::mem::replace(&mut records[i], record);
                    was.before_redo = None;
                    records[i].before_redo = Some(Box::new(was));
                }
                Some(i) => records[i] = record,
                None => records.push(record),
            }
        }
        (
            Line::End {
                cancelled,
                done,
                skipped,
                failed,
                not_done,
                details,
                staging,
                dropped,
                ..
            },
            Some(i),
        ) => {
            let r = &mut records[i];
            r.entries_dropped = dropped;
            r.details = details;
            r.staging = staging.into_iter().map(StoredPath::into_path).collect();
            r.state = if cancelled {
                RecordState::Cancelled
            } else {
                RecordState::Finished
            };
            r.counts = Counts {
                done,
                skipped,
                failed,
                not_done,
            };
        }
        (
            Line::Undone {
                details,
                newest,
                aside,
                left,
                nothing,
                ..
            },
            Some(i),
        ) => {
            let r = &mut records[i];
            r.state = RecordState::Undone;
            r.undo_by = None;
            r.undone_details = details;
            r.undone_when_newest = newest;
            r.undone_aside =
                aside.map(|kept| kept.into_iter().map(StoredPath::into_path).collect());
            r.undone_left = left;
            r.undone_nothing = nothing;
        }
        (Line::Halted { .. }, Some(i)) => records[i].state = RecordState::Interrupted,
        (Line::UndoStarted { pid, pid_start, .. }, Some(i)) => {
            let r = &mut records[i];
            r.undo_by_before = r.undo_by.replace((pid, pid_start));
        }
        (Line::UndoRefused { .. }, Some(i)) => {
            let r = &mut records[i];
            r.undo_by = r.undo_by_before.take();
        }
        (Line::RedoRefused { .. }, Some(i)) => {
            if let Some(was) = records[i].before_redo.take() {
                records[i] = *was;
            }
        }
        // An end or undo of a record already dropped by compaction.
        (
            Line::End { .. }
            | Line::Undone { .. }
            | Line::Halted { .. }
            | Line::UndoStarted { .. }
            | Line::UndoRefused { .. }
            | Line::RedoRefused { .. },
            None,
        ) => {}
    }
}
