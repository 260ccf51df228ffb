//! Resume and roll back of an interrupted link job, which keeps no per-item record until it
//! ends: the links themselves say what it did.
//!
//! A link is made whole by one `symlinkat` or not at all, so after a crash each target has
//! its link or has none. The job's link to a target is found where the job would have put
//! it: at the target's name, or at the names Keep both gives (`name (link).ext`, ...) in the
//! order the job tries them, up to the first free one. It is a symbolic link whose text is
//! the target's absolute path, changed no earlier than the job began (a link's change time
//! is when it was made, unless it was renamed or its owner changed since), and not at a name
//! that was taken before the job began unless the job replaced what was there. So a link
//! the user had is never taken for the job's, even one with the same text. A link made under
//! a name the user typed in answer to a conflict is not found (it stays, nothing is lost).
//!
//! What a Replace moved aside is in the staging folder under the record's number and the
//! hash of its path (`staging.rs`): roll back puts it back once the link is in the trash.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::super::journal::JournalRecord;
use super::super::summary::fail;
use super::super::symlinks::{self, link_text, names_tried};
use super::super::undo::absorb;
use super::super::{ConflictPolicy, Summary, TrashRoots, staging, trash};
use crate::error::Error;
use crate::jobs::control::JobCtx;

/// Longest name `dir` takes.
fn name_max(dir: &Path) -> usize {
    rustix::fs::statfs(dir).map_or(255, |s| s.f_namelen as usize)
}

/// The link the job of `record` made in `dest_dir` to `target`, if it made one (see the
/// module's documentation); `replaced`: the staged items of the job, by path hash.
fn made_by(
    record: &JournalRecord,
    target: &Path,
    dest_dir: &Path,
    replaced: &HashMap<u64, Vec<PathBuf>>,
) -> Option<PathBuf> {
    let name = target.file_name()?;
    let text = link_text(target).ok()?;
    let since = record.started_secs();
    let mut found = None;
    names_tried(name, name_max(dest_dir), |candidate| {
        let path = dest_dir.join(candidate);
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            return false; // free: the job went no further
        };
        let theirs = candidate == name
            && record.preexisting.contains(&path)
            && !replaced.contains_key(&staging::path_hash(&path));
        let ours = !theirs
            && meta.file_type().is_symlink()
            && meta.ctime() >= since
            && std::fs::read_link(&path).is_ok_and(|t| t == text);
        if ours {
            found = Some(path);
        }
        !ours
    });
    found
}

/// Resumes an interrupted link job: a target whose link it made is done, the others are
/// linked now.
pub(super) fn resume_link(
    ctx: &JobCtx,
    record: &JournalRecord,
    targets: &[PathBuf],
    dest_dir: &Path,
    policy: ConflictPolicy,
) -> Summary {
    let mut summary = Summary::default();
    let replaced = staging::kept_for(record, &ctx.staging, dest_dir);
    let mut left = Vec::new();
    for target in targets {
        match made_by(record, target, dest_dir, &replaced) {
            Some(_) => {
                ctx.counters.add_item();
                summary.done.push(target.clone());
            }
            None => left.push(target.clone()),
        }
    }
    if !left.is_empty() {
        absorb(
            &mut summary,
            symlinks::run_job(ctx, &left, dest_dir, policy),
        );
    }
    summary
}

/// Rolls back an interrupted (or resumed) link job: its links go to the trash folders
/// `roots`, then what it replaced goes back where it was, never over anything.
pub(super) fn roll_back_link(
    ctx: &JobCtx,
    record: &JournalRecord,
    targets: &[PathBuf],
    dest_dir: &Path,
    roots: &TrashRoots,
) -> Summary {
    let mut summary = Summary::default();
    let mut kept = staging::kept_for(record, &ctx.staging, dest_dir);
    let mut links: Vec<PathBuf> = targets
        .iter()
        .filter_map(|t| made_by(record, t, dest_dir, &kept))
        .collect();
    links.sort();
    links.dedup();
    if !links.is_empty() {
        absorb(&mut summary, trash::run_trash(ctx, &links, roots));
    }
    if ctx.control.stopped() {
        return summary;
    }
    // Staged items that cannot go back: a later one for a place (a replace of the job's own
    // link), and those of no place of the job (a name typed in answer to a conflict).
    let mut left = Vec::new();
    for name in targets.iter().filter_map(|t| t.file_name()) {
        let place = dest_dir.join(name);
        let Some(staged) = kept.remove(&staging::path_hash(&place)) else {
            continue;
        };
        // Oldest first: what was there before the job.
        let mut staged = staged.into_iter();
        if let Some(first) = staged.next()
            && let Err(e) = crate::fs::rename_noreplace_path(&first, &place)
        {
            let error = match e {
                rustix::io::Errno::EXIST => Error::ReplacedKept {
                    path: place.clone(),
                    staged: first,
                },
                e => Error::io("put back", &place, e),
            };
            fail(ctx, &mut summary, &place, error);
        }
        left.extend(staged);
    }
    for staged in left.into_iter().chain(kept.into_values().flatten()) {
        let error = Error::ReplacedKept {
            path: dest_dir.to_path_buf(),
            staged,
        };
        fail(ctx, &mut summary, dest_dir, error);
    }
    summary
}
