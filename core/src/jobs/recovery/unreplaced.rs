//! After a resume of a job that replaced items: an old item its killed run had moved to the
//! staging folder, whose replacement never came (its source gone since, a disk unplugged, or
//! failing), goes back to its place. The resume exited 0 with the place empty and the user's
//! file left in the staging folder, named by a record now finished, so pruned a week later.
//!
//! A staged item is named by the hash of its place (`staging.rs`), so its place is found
//! among the places the job could have written: each destination, and below it what the
//! source holds and what the destination holds. A place that holds something now holds the
//! replacement (the item stays staged, for undo). One that cannot be found (the source gone
//! with the folder that named it) is said, with where the item is kept.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::keep_both::Landing;
use crate::error::Error;
use crate::jobs::control::JobCtx;
use crate::jobs::journal::JournalRecord;
use crate::jobs::summary::fail;
use crate::jobs::{Summary, staging};

/// Puts back what the job of `record` (writing into `dest_dir`, its places `landings`) staged
/// and did not replace; reports in `summary` what cannot be.
pub(super) fn put_back(
    ctx: &JobCtx,
    summary: &mut Summary,
    record: &JournalRecord,
    landings: &[Option<Landing>],
    dest_dir: &Path,
) {
    let kept = staging::kept_for(record, &ctx.staging, dest_dir);
    if kept.is_empty() {
        return;
    }
    let mut places = HashMap::new();
    for landing in landings.iter().flatten() {
        note_places(&mut places, &kept, &landing.dest, &landing.source);
    }
    for (hash, staged) in kept {
        let Some(place) = places.get(&hash) else {
            for staged in staged {
                let path = dest_dir.to_path_buf();
                fail(ctx, summary, dest_dir, Error::ReplacedKept { path, staged });
            }
            continue;
        };
        // Its replacement is there: kept for undo.
        if std::fs::symlink_metadata(place).is_ok() {
            continue;
        }
        // Oldest first: the item that was there before the job.
        let Some(first) = staged.into_iter().next() else {
            continue;
        };
        match crate::fs::rename_noreplace_path(&first, place) {
            Ok(()) => staging::remove_if_emptied(first.parent().unwrap_or(&first)),
            Err(_) => {
                let error = Error::ReplacedKept {
                    path: place.clone(),
                    staged: first,
                };
                fail(ctx, summary, place, error);
            }
        }
    }
}

/// Notes in `places`, by hash, each place that is `dest` or below it, in the destination or
/// mapped from the source tree `source`, that hashes as an item of `kept`. Links are never
/// followed.
fn note_places(
    places: &mut HashMap<u64, PathBuf>,
    kept: &HashMap<u64, Vec<PathBuf>>,
    dest: &Path,
    source: &Path,
) {
    let mut note = |place: &Path| {
        let hash = staging::path_hash(place);
        if kept.contains_key(&hash) {
            places.entry(hash).or_insert_with(|| place.to_path_buf());
        }
    };
    note(dest);
    for (root, onto) in [(dest, dest), (source, dest)] {
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let Ok(below) = path.strip_prefix(root) else {
                    continue;
                };
                note(&onto.join(below));
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    stack.push(path);
                }
            }
        }
    }
}
