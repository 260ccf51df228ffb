//! Undo and redo over the journal: which record each takes, read whole with its details
//! files, and how the end of an undo is recorded. Undo takes the newest record that did
//! something; redo the one undone last, if no job that did something was recorded since.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::details::{self, Details, Part};
use super::record::newest_that_counts;
use super::stored::{Below, Line, StoredPath, StoredRemade, StoredTrashRecord};
use super::{JournalRecord, RecordState, UndoJournal, now};
use crate::error::Error;
use crate::fs::FileId;
use crate::jobs::{How, Job, RecordEntry, SkipReason, Summary};

impl UndoJournal {
    /// Persists that record `seq` was undone by a job that ended with `summary`.
    pub fn mark_undone(&self, seq: u64, summary: &Summary) -> Result<(), Error> {
        let details = Details {
            entries: Vec::new(),
            trash: summary.trash.iter().map(StoredTrashRecord::of).collect(),
            remade: summary.remade.iter().map(StoredRemade::of).collect(),
        };
        let _lock = self.lock()?;
        let newest = newest_that_counts(&self.load()?.0);
        let details = self.store(seq, Part::Undone, &details)?;
        let line = Line::Undone {
            seq,
            time: now(),
            details,
            newest,
            aside: put_aside(summary)
                .map(|kept| kept.iter().map(|p| StoredPath::of(p.as_os_str())).collect()),
            left: not_undone(summary),
            nothing: summary.done.is_empty(),
        };
        self.append(&line, false)
    }

    /// Records how a job run for record `seq` ended: as the record's own end (the job, its
    /// redo or its resume), or, for `undo`, as its undo. A cancelled undo did part of its work
    /// and leaves the record as it was, for another try, unless the cancel came once all
    /// was done ([`undo_complete`]: recorded as not undone, it was then run again and found
    /// its own work "no longer there", and redo was lost); so does one that failed other than
    /// by keeping what changed since (a read-only or unplugged destination): marked undone,
    /// the job could not be undone again, and the next undo would take an older one. Undo is
    /// safe to run again: what it already put back or in the trash is gone from where it looks.
    /// An undo that was refused before writing, or whose every item was skipped as chosen
    /// ([`Summary::skipped_everything`]), changed nothing and leaves the record as it was.
    /// A job a defect stopped ([`Summary::stopped_by_defect`]) records nothing: its summary
    /// does not say what it did, and its record, still running, is found interrupted at the
    /// next start, to be finished or rolled back like a crashed one.
    pub fn record_end(
        &self,
        seq: u64,
        undo: bool,
        summary: &Summary,
        cancelled: bool,
    ) -> Result<(), Error> {
        if summary.stopped_by_defect() {
            return Ok(());
        }
        match (undo, cancelled) {
            (false, false) if summary.resume_again => {
                let _lock = self.lock()?;
                self.append(&Line::Halted { seq, time: now() }, false)
            }
            // A redo that did nothing (refused, or every place taken and skipped) leaves the
            // record undone, to be redone once there is room or the places are free: marked
            // done with nothing done, it could never be redone, and the next redo took a job
            // undone before it was made.
            (false, false)
                if (summary.refused_before_writing() || summary.skipped_everything())
                    && self.is_redo(seq)? =>
            {
                let _lock = self.lock()?;
                self.append(&Line::RedoRefused { seq, time: now() }, false)
            }
            (false, _) => self.finish(seq, summary, cancelled),
            (true, true) if !undo_complete(summary) => Ok(()),
            (true, true) => self.mark_undone(seq, summary),
            (true, false) if summary.refused_before_writing() || summary.skipped_everything() => {
                let _lock = self.lock()?;
                self.append(&Line::UndoRefused { seq, time: now() }, false)
            }
            (true, false) if !undo_complete(summary) => Ok(()),
            (true, false) => self.mark_undone(seq, summary),
        }
    }

    /// Whether record `seq` runs as a redo (its `begin` started an undone record over).
    fn is_redo(&self, seq: u64) -> Result<bool, Error> {
        let records = self.records()?;
        let record = records.iter().rfind(|r| r.seq == seq);
        Ok(record.is_some_and(|r| r.before_redo.is_some()))
    }

    /// The newest record that undo applies to: finished, cancelled or interrupted, and not
    /// one that did nothing ([`JournalRecord::did_nothing`]); [`Error::StillRunning`] when a
    /// job started after it is still running. The
    /// decision alone: an undo holds a [`JournalWriter`] from it to its end, and asks it.
    ///
    /// Its items that the undo of a later job made anew (see [`Summary::remade`]) are known
    /// by their new identities: a folder removed by a move that merged it elsewhere, and made
    /// again by that move's undo, is still the folder this job made or moved there; so are
    /// the items a move took to another disk and its undo copied back.
    pub fn undo_candidate(&self) -> Result<Option<JournalRecord>, Error> {
        let mut records = self.records()?;
        let found = records.iter().rposition(|r| {
            matches!(
                r.state,
                RecordState::Finished | RecordState::Cancelled | RecordState::Interrupted
            ) && !r.did_nothing()
        });
        // A job started later by a process still running it: not done yet, to be undone first.
        let later = found.map_or(0, |at| at + 1);
        if let Some(running) = records[later..]
            .iter()
            .rfind(|r| r.state == RecordState::Running)
        {
            let what = format!("{} {}", running.kind(), running.describe());
            return Err(Error::StillRunning { what });
        }
        let Some(at) = found else {
            return Ok(None);
        };
        let later = records.split_off(at + 1);
        let record = self.with_details(records.swap_remove(at))?;
        self.with_remade(record, later).map(Some)
    }

    /// `record`, whose entries made anew by the undos of the `later` records (oldest first)
    /// get the identities of the new items.
    ///
    /// The later records were undone newest first, so they are replayed in that order: what
    /// the undos before each made anew is carried along with what its undo moved or renamed
    /// back (a folder made again at `z/e` and then renamed back to `z/a` is known at `z/a`),
    /// then what its undo made anew is added, the last undo's word standing for each path
    /// (`cp f d/; mv d/f usb/; mv usb/f d/; undo; undo`: the second undo's copy of `d/f`,
    /// not the first's of `usb/f` carried over it).
    fn with_remade(
        &self,
        mut record: JournalRecord,
        later: Vec<JournalRecord>,
    ) -> Result<JournalRecord, Error> {
        let mut remade = BTreeMap::new();
        for r in later.into_iter().rev() {
            if r.state != RecordState::Undone {
                continue;
            }
            // Details gone or torn: those items are judged by their old identities.
            let made = match r.undone_details {
                true => details::read(&self.details_folder(), r.seq, Part::Undone)?,
                false => None,
            };
            if !remade.is_empty()
                && matches!(r.job, Job::Move { .. } | Job::Rename { .. })
                // Its items unreadable: nothing carried, and an older undo keeps those.
                && let Ok(r) = self.with_details(r)
            {
                // What its undo moved back whole (a folder merged into stays where it is;
                // its undo takes back only what came in).
                let went_back = |e: &&RecordEntry| e.top_level && e.how != How::Merged;
                for e in r.entries.iter().filter(went_back) {
                    carry(&mut remade, &e.dest, &e.source);
                }
            }
            if let Some(d) = made {
                remade.extend(d.remade.into_iter().map(StoredRemade::into_remade));
            }
        }
        for e in &mut record.entries {
            if let Some(&id) = remade.get(&e.dest) {
                e.id = id;
                record.remade.push(e.dest.clone());
            }
        }
        Ok(record)
    }

    /// The record redo applies to: the last one undone, if no job was recorded since. The
    /// decision alone: a redo holds a [`JournalWriter`] from it to its end, and asks it.
    ///
    /// Undo always takes the newest record not undone, so of those undone since the newest
    /// job was recorded, the oldest was undone last. A record undone before a later job was
    /// recorded is not redone: `cp a; undo; cp b; undo; redo` redoes `cp b` only.
    pub fn redo_candidate(&self) -> Result<Option<JournalRecord>, Error> {
        let mut records = self.records()?;
        let newest = newest_that_counts(&records);
        let undone_since = records
            .iter()
            .filter(|r| r.state == RecordState::Undone && r.undone_when_newest == newest)
            .min_by_key(|r| r.seq)
            .map(|r| r.seq);
        // A log written before undos kept the newest number: the first record undone after
        // the last one not undone, as then.
        let legacy = || {
            let at = records
                .iter()
                .rposition(|r| r.state != RecordState::Undone)
                .map_or(0, |i| i + 1);
            records
                .get(at)
                .filter(|r| r.undone_when_newest.is_none())
                .map(|r| r.seq)
        };
        let Some(seq) = undone_since.or_else(legacy) else {
            return Ok(None);
        };
        let at = records.iter().position(|r| r.seq == seq);
        if let Some(r) = at.map(|i| &records[i]) {
            let what = || format!("{} {}", r.kind(), r.describe());
            // Redone, it failed on every item and was recorded anew as a cancelled job that
            // did nothing: the record of what the job did was lost.
            if r.undone_nothing {
                return Err(Error::RedoOfNothing { what: what() });
            }
            // Cancelled or stopped with sources not done: the undo took back the part done.
            if r.counts.not_done > 0 {
                return Err(Error::RedoOfPart { what: what() });
            }
            if let Some(kept) = &r.undone_aside {
                let kept = kept.clone();
                return Err(Error::RedoAfterAside { what: what(), kept });
            }
        }
        let Some(record) = at.map(|i| self.with_details(records.swap_remove(i))) else {
            return Ok(None);
        };
        let record = record?;
        if let Some(path) = replaced_since_undo(&record) {
            let what = format!("{} {}", record.kind(), record.describe());
            return Err(Error::RedoOfReplaced { what, path });
        }
        Ok(Some(record))
    }

    /// Writes `details` of record `seq` unless there are none; true when written.
    fn store(&self, seq: u64, part: Part, details: &Details) -> Result<bool, Error> {
        if details.is_empty() {
            return Ok(false);
        }
        let text = serde_json::to_vec(details).map_err(|e| Error::io("encode", &self.file, e))?;
        details::write(&self.details_folder(), seq, part, &text)?;
        Ok(true)
    }

    /// `record` with what its details files hold. A details file removed by hand leaves the
    /// record without per-item identities: undone by comparison, as an interrupted one.
    fn with_details(&self, mut record: JournalRecord) -> Result<JournalRecord, Error> {
        let folder = self.details_folder();
        let ended = matches!(
            record.state,
            RecordState::Finished | RecordState::Cancelled | RecordState::Undone
        );
        if ended && record.details {
            match details::read(&folder, record.seq, Part::Done)? {
                Some(d) => {
                    let mut below = Below::default();
                    record.entries = d
                        .entries
                        .into_iter()
                        .filter_map(|e| e.into_entry(&mut below))
                        .collect();
                    record.trash = d
                        .trash
                        .into_iter()
                        .filter_map(StoredTrashRecord::into_record)
                        .collect();
                }
                None => {
                    record.entries_dropped = true;
                    record.details_missing = Some(details::file(&folder, record.seq, Part::Done));
                }
            }
        }
        if record.state == RecordState::Undone && record.undone_details {
            let read = details::read(&folder, record.seq, Part::Undone)?;
            if read.is_none() {
                record.details_missing = Some(details::file(&folder, record.seq, Part::Undone));
            }
            let trash = read.unwrap_or_default().trash;
            record.undo_trash = trash
                .into_iter()
                .filter_map(StoredTrashRecord::into_record)
                .collect();
        }
        Ok(record)
    }
}

/// What an undo that ended with `summary` replaced, where it put an item back over what had
/// taken its place (Replace), or nothing when it put one back beside it under another name
/// (Keep both) or left it where the job had put it (Skip); `None` when it put every item
/// back at its own place. Redo replays the job, which would then take what has the job's
/// paths now instead of what the undo put back (after a Skip: the user's new item).
fn put_aside(summary: &Summary) -> Option<Vec<PathBuf>> {
    let record = &summary.record;
    // What went on to the trash is not kept aside any more.
    let kept: Vec<PathBuf> = (record.staged())
        .filter(|p| p.symlink_metadata().is_ok())
        .map(Path::to_path_buf)
        .collect();
    let left = (summary.skipped.iter()).any(|s| s.reason == SkipReason::Exists);
    // Put back into a folder made since by someone else (Replace on a folder merges): a
    // redo would move that folder, and what they had put in it, with the job's items.
    let remade: std::collections::HashSet<&Path> =
        summary.remade.iter().map(|(p, _)| p.as_path()).collect();
    let merged_into_theirs = (record.entries())
        .any(|e| e.how == How::Merged && e.top_level && !remade.contains(e.dest.as_path()));
    (!kept.is_empty() || record.renamed_by_answers() || left || merged_into_theirs).then_some(kept)
}

/// Items an undo that ended with `summary` did not undo: skipped, or found changed or gone
/// since the job.
fn not_undone(summary: &Summary) -> u64 {
    // A replacement whose replaced item is no longer kept stays: not undone either.
    let since = (summary.failed.iter())
        .filter(|f| f.error.is_decided() || matches!(*f.error, Error::ReplacedGone { .. }));
    u64::try_from(summary.skipped.len() + since.count()).unwrap_or(u64::MAX)
}

/// Whether an undo that ended with `summary` did all it will ever do: what it left, it kept
/// on purpose (changed since the job, or its replaced item no longer kept), or found gone.
/// One halted before it put something back (not enough free space) can be tried again.
pub fn undo_complete(summary: &Summary) -> bool {
    summary.not_done.is_empty()
        && summary.failed.iter().all(|f| {
            matches!(
                *f.error,
                Error::ChangedSince { .. }
                    | Error::GoneSince { .. }
                    | Error::GoneFromTrash { .. }
                    | Error::ChangedSinceCopied { .. }
                    | Error::ReplacedGone { .. }
                    | Error::PutBackBeside { .. }
            )
        })
}

/// Moves the items made anew at or below `from` to the same places below `to`, as the
/// undo that moved `from` back to `to` did. Paths order by their components, so those below
/// `from` follow it together: a look at them alone (a scan of every key for each item moved
/// took 22 s for 20,000 files).
fn carry(remade: &mut BTreeMap<PathBuf, FileId>, from: &Path, to: &Path) {
    let below: Vec<PathBuf> = remade
        .range(from.to_path_buf()..)
        .map(|(p, _)| p)
        .take_while(|p| p.starts_with(from))
        .cloned()
        .collect();
    for path in below {
        let Some(id) = remade.remove(&path) else {
            continue;
        };
        match path.strip_prefix(from) {
            Ok(rel) if !rel.as_os_str().is_empty() => remade.insert(to.join(rel), id),
            _ => remade.insert(to.to_path_buf(), id),
        };
    }
}

/// For a trash undone: a place its undo put an item back at that holds another item now
/// (compared as its undo compares: a freed inode number is given back at once). A redo
/// moves what the paths hold; the trash would take a file made there since. A place left
/// empty is not one: the redo says that item is gone.
fn replaced_since_undo(record: &JournalRecord) -> Option<PathBuf> {
    if !matches!(record.job, Job::Trash { .. }) {
        return None;
    }
    let started = record.started;
    (record.trash.iter())
        .find(|t| crate::jobs::undo::holds_as_trashed(&t.original, t, started) == Some(false))
        .map(|t| t.original.clone())
}
