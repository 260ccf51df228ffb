//! What every process does with the journal at start: bound the staging folders (those the
//! records name and the user's own) and clean up after interrupted jobs (put back the sources
//! their moves had set aside, remove their temporaries), on records already read (see
//! [`UndoJournal::start_up`]); and the same for an interrupted record the log drops.
//!
//! [`UndoJournal::start_up`]: super::UndoJournal::start_up

use std::path::{Path, PathBuf};
use std::time::Duration;

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

/// [`UndoJournal::start_up`] on `records`, read once by the caller: prunes the staging
/// folders they name and the user's own (which records may no longer name), then recovers.
pub(super) fn start_up_of(records: Vec<JournalRecord>) -> (Vec<JournalRecord>, Vec<Error>) {
    let mut problems = Vec::new();
    let mut folders: Vec<PathBuf> = named(&records)
        .into_iter()
        .cloned()
        .chain(crate::jobs::staging::user_folders())
        .collect();
    folders.sort();
    folders.dedup();
    for dir in folders {
        if let Err(e) = prune_staging(&dir, STAGING_MAX_AGE, STAGING_MAX_BYTES) {
            problems.push(e);
        }
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
    // The user's files first: a temporary that cannot be removed stops the rest.
    for record in &interrupted {
        kept.extend(crate::jobs::recovery::set_aside::put_back(record));
    }
    for record in &interrupted {
        crate::jobs::recovery::remove_temporaries(record)?;
    }
    Ok(interrupted)
}

/// For a record being dropped from the log: false when it is an interrupted job whose
/// set-aside sources could not be put back or whose parts and temporaries could not be
/// removed (it is kept, to try again and say so at start).
pub(super) fn cleaned_up(raw: &RawRecord) -> bool {
    let mut records = Vec::new();
    for line in &raw.lines {
        super::apply::apply(&mut records, line.clone());
    }
    records.into_iter().all(|r| {
        r.state != RecordState::Running
            || super::is_alive(r.pid, r.pid_start)
            || (crate::jobs::recovery::set_aside::put_back(&r).is_empty()
                && crate::jobs::recovery::remove_parts(&r).is_ok()
                && crate::jobs::recovery::remove_temporaries(&r).is_ok())
    })
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
    for dir in named(records) {
        let p = prune_staging(dir, max_age, max_bytes)?;
        pruned.items += p.items;
        pruned.bytes += p.bytes;
    }
    Ok(pruned)
}
