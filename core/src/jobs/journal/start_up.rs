//! What every process does with the journal at start: bound the staging folders (those the
//! records name and the user's own) and clean up after interrupted jobs (put back the sources
//! their moves had set aside, remove their temporaries), on records already read (see
//! [`UndoJournal::start_up`]). What an unresolved record staged is never pruned: that record
//! may still need it, and the log keeps the record (`UndoJournal::compact_if_long`).
//!
//! Bounding the staging folders reads the mount table, looks at the root of every file
//! system and sizes every staged tree: work that grows with what was replaced (a replaced
//! folder of 50,000 files is 50,000 `statx`), and was a quarter of the main thread's time in
//! a `ferry cp` of one file with 158 items staged. It runs at most every [`PRUNE_EVERY`],
//! the time of the last one kept as a stamp beside the journal: staged items live a week
//! ([`STAGING_MAX_AGE`]) and pruning for size spares the last hour ([`STAGING_GRACE`]), so
//! a bound applied ten minutes late is the same bound. Recovery runs at every start.
//!
//! [`UndoJournal::start_up`]: super::UndoJournal::start_up
//! [`STAGING_GRACE`]: crate::jobs::STAGING_GRACE

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::{JournalRecord, RawRecord, RecordState};
use crate::error::Error;
use crate::jobs::{Pruned, STAGING_MAX_AGE, STAGING_MAX_BYTES, prune_staging, staging_folder_name};

/// True for `…/ferry/replaced` and `.ferry-replaced-<uid>` (see [`StagingRoots`]).
///
/// [`StagingRoots`]: super::StagingRoots
pub(super) fn is_staging_folder(dir: &Path) -> bool {
    let name = dir.file_name();
    name == Some(staging_folder_name().as_ref())
        || (name == Some("replaced".as_ref())
            && dir.parent().and_then(Path::file_name) == Some("ferry".as_ref()))
}

/// Start-up bounds the staging folders at most this often (see the module documentation).
pub(crate) const PRUNE_EVERY: Duration = Duration::from_secs(600);

/// [`UndoJournal::start_up`] on `records`, read once by the caller: prunes the staging
/// folders they name and the user's own (which records may no longer name) when the last
/// prune, dated by the file `stamp`, was [`PRUNE_EVERY`] ago or more; then recovers.
pub(super) fn start_up_of(
    records: Vec<JournalRecord>,
    stamp: &Path,
) -> (Vec<JournalRecord>, Vec<Error>) {
    let mut problems = Vec::new();
    if prune_due(stamp, SystemTime::now()) {
        let mut folders: Vec<PathBuf> = named(&records)
            .into_iter()
            .cloned()
            .chain(crate::jobs::staging::user_folders())
            .collect();
        folders.sort();
        folders.dedup();
        let spared = spared(&records);
        for dir in folders {
            if let Err(e) = prune_staging(&dir, STAGING_MAX_AGE, STAGING_MAX_BYTES, &spared) {
                problems.push(e);
            }
        }
        // Dated when done: a stamp that cannot be written only means pruning again next time.
        let _ = (super::private_file().write(true).create(true).open(stamp))
            .and_then(|f| f.set_modified(SystemTime::now()));
    }
    let interrupted = recover_of(records, &mut problems).unwrap_or_else(|e| {
        problems.push(e);
        Vec::new()
    });
    (interrupted, problems)
}

/// [`UndoJournal::recover`] on `records`; what stays set aside goes to `kept`.
pub(super) fn recover_of(
    records: Vec<JournalRecord>,
    kept: &mut Vec<Error>,
) -> Result<Vec<JournalRecord>, Error> {
    let interrupted: Vec<JournalRecord> = records
        .into_iter()
        .filter(|r| r.state == RecordState::Interrupted)
        .collect();
    // The user's files first.
    for record in &interrupted {
        kept.extend(crate::jobs::recovery::set_aside::put_back(record));
    }
    // A temporary that cannot be removed (a disk turned read-only) is said, and its job is
    // still interrupted: a resume or undo then says what stops it, where before it and every
    // other interrupted job went unmentioned ("no interrupted job to resume").
    for record in &interrupted {
        if let Err(e) = crate::jobs::recovery::remove_temporaries(record) {
            kept.push(e);
        }
    }
    Ok(interrupted)
}

/// Whether start-up prunes at `now`: no stamp, a stamp [`PRUNE_EVERY`] old or older, or one
/// dated after `now` (the clock was set back).
fn prune_due(stamp: &Path, now: SystemTime) -> bool {
    let pruned_at = std::fs::metadata(stamp).and_then(|m| m.modified());
    pruned_at.map_or(true, |at| {
        now.duration_since(at)
            .map_or(true, |since| since >= PRUNE_EVERY)
    })
}

/// Whether the lines of `raw` leave its job unresolved ([`JournalRecord::unresolved`]): the
/// log keeps it whatever its age.
pub(super) fn unresolved(raw: &RawRecord) -> bool {
    let mut records = Vec::new();
    for line in &raw.lines {
        super::apply::apply(&mut records, line.clone());
    }
    records.iter().any(JournalRecord::unresolved)
}

/// The records whose staged items pruning leaves alone, however old: the unresolved ones.
fn spared(records: &[JournalRecord]) -> HashSet<u64> {
    records
        .iter()
        .filter(|r| r.unresolved())
        .map(|r| r.seq)
        .collect()
}

/// The staging folders `records` name (only folders named like one), each once.
fn named(records: &[JournalRecord]) -> Vec<&PathBuf> {
    let mut folders: Vec<&PathBuf> = records
        .iter()
        .flat_map(|r| &r.staging)
        .filter(|dir| is_staging_folder(dir))
        .collect();
    folders.sort();
    folders.dedup();
    folders
}

/// [`UndoJournal::prune_staging`] on `records`.
pub(super) fn prune_staging_of(
    records: &[JournalRecord],
    max_age: Duration,
    max_bytes: u64,
) -> Result<Pruned, Error> {
    let mut pruned = Pruned::default();
    let spared = spared(records);
    for dir in named(records) {
        let p = prune_staging(dir, max_age, max_bytes, &spared)?;
        pruned.items += p.items;
        pruned.bytes += p.bytes;
    }
    Ok(pruned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pruning_is_due_without_a_stamp_or_once_it_is_old() {
        let dir = tempfile::tempdir().unwrap();
        let stamp = dir.path().join("staging-pruned");
        let now = SystemTime::now();
        assert!(prune_due(&stamp, now), "never pruned");
        std::fs::File::create(&stamp)
            .unwrap()
            .set_modified(now)
            .unwrap();
        assert!(!prune_due(&stamp, now + PRUNE_EVERY / 2));
        assert!(prune_due(&stamp, now + PRUNE_EVERY));
        assert!(
            prune_due(&stamp, now - Duration::from_secs(1)),
            "the clock was set back"
        );
    }
}
