//! Crash recovery: cleaning up after a job whose process died, resuming it, or rolling it
//! back.
//!
//! Why nothing is lost when a job is killed at any instant: a file is written as an unnamed
//! file (`O_TMPFILE`) and linked under its name only once its data, mode and times are
//! complete, so every destination file that exists is whole and, having its source's size and
//! mtime, recognisable as a finished copy. A move across file systems removes a source only
//! after `syncfs` of the destination, so at any instant each file is whole in the source, or
//! in the destination, or in both. A small file in flight vanishes with the process (unnamed),
//! so resume copies it again; a large one of a journaled job is kept as a part
//! (`.ferry-part-<seq>-…`, see `partial.rs`) that resume verifies and appends to. Other named
//! temporaries (`.ferry-tmp-<pid>-…`, used for Replace and where `O_TMPFILE` is missing) are
//! removed by [`remove_temporaries`] at the next start; parts are removed by the resume or
//! roll back of their record ([`remove_parts`]).
//!
//! Resume ("skip identical"): a file present in the destination with its source's size and
//! mtime is done; for a move its source is removed (after `fsync` of the copy), then the job
//! runs again on what is left. Folders the dead job created get their mode and times from
//! their sources at the end (the engine gives them only when a folder is complete).
//!
//! Roll back (undo of an interrupted or resumed job, whose record has no per-item
//! identities): copies identical to their sources go to the trash; items a move carried over
//! completely go back; a file in both places keeps its source and its copy goes to the trash.
//! Folders the job created are removed once empty. Inside a folder the job merged into, a
//! file identical to its source is taken for the job's copy (it may have been there before:
//! then it goes to the trash, not away), and nothing else is touched.

use std::collections::BTreeMap;
use std::fs::{self, FileTimes, Metadata};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, UNIX_EPOCH};

use super::control::JobCtx;
use super::journal::{JournalRecord, temp_prefix};
use super::partial::part_prefix;
use super::undo::{absorb, fail};
use super::{ConflictPolicy, Job, Summary, TrashRoots, copy, moves, single, trash};
use crate::error::Error;

/// Removes the named temporaries the dead process of `record` left in its destination
/// folder and in the destination items of its sources (never following links). Its parts of
/// large files (`.ferry-part-…`) stay: resume continues them.
pub(crate) fn remove_temporaries(record: &JournalRecord) -> Result<(), Error> {
    remove_named(record, &temp_prefix(record.pid))
}

/// Removes the parts of large files that `record`'s job left (resume continued those it
/// could; undo discards them all).
pub(crate) fn remove_parts(record: &JournalRecord) -> Result<(), Error> {
    remove_named(record, &part_prefix(record.seq))
}

/// Removes the files named `prefix…` in `record`'s destination folder and in the destination
/// items of its sources.
fn remove_named(record: &JournalRecord, prefix: &str) -> Result<(), Error> {
    let Some((sources, dest_dir)) = record.job.sources_and_dest() else {
        return Ok(());
    };
    sweep(dest_dir, prefix.as_bytes(), false)?;
    for name in sources.iter().filter_map(|s| s.file_name()) {
        let dest = dest_dir.join(name);
        if fs::symlink_metadata(&dest).is_ok_and(|m| m.is_dir()) {
            sweep(&dest, prefix.as_bytes(), true)?;
        }
    }
    Ok(())
}

fn sweep(top: &Path, prefix: &[u8], recursive: bool) -> Result<(), Error> {
    let mut stack = vec![top.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io("read folder", &dir, e)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| Error::io("read folder", &dir, e))?;
            let path = entry.path();
            let kind = entry.file_type().map_err(|e| Error::io("stat", &path, e))?;
            if kind.is_dir() {
                if recursive {
                    stack.push(path);
                }
            } else if entry.file_name().as_bytes().starts_with(prefix) {
                fs::remove_file(&path).map_err(|e| Error::io("remove", &path, e))?;
            }
        }
    }
    Ok(())
}

/// Resumes the interrupted job of `record`.
pub(crate) fn resume(ctx: &JobCtx, record: &JournalRecord) -> Summary {
    match &record.job {
        Job::Copy {
            sources,
            dest_dir,
            on_conflict,
        } => {
            let folders = folder_times(sources, dest_dir, &record.preexisting);
            let mut summary = copy::run_job(ctx, sources, dest_dir, *on_conflict);
            restore_folder_times(&folders);
            discard_parts(ctx, &mut summary, record, dest_dir);
            summary
        }
        Job::Move {
            sources,
            dest_dir,
            on_conflict,
        } => {
            let mut summary = resume_move(ctx, record, sources, dest_dir, *on_conflict);
            summary.bytes_kept = ctx.counters.kept.load(Relaxed);
            discard_parts(ctx, &mut summary, record, dest_dir);
            summary
        }
        Job::Rename { path, new_name } => {
            let renamed = path.parent().map(|p| p.join(new_name));
            if fs::symlink_metadata(path).is_err() && renamed.is_some_and(|r| r.exists()) {
                Summary::default() // it happened before the crash
            } else {
                single::rename(ctx, path, new_name)
            }
        }
        Job::CreateFolder { parent, name } => {
            if parent.join(name).is_dir() {
                Summary::default()
            } else {
                single::create_folder(ctx, parent, name)
            }
        }
        Job::Delete { .. }
        | Job::Trash { .. }
        | Job::Restore { .. }
        | Job::EmptyTrash { .. }
        | Job::Undo { .. }
        | Job::Resume { .. } => Summary::default(),
    }
}

/// After a resume (finished or cancelled, which ends the record either way), the parts it did
/// not continue are stale: their sources changed, or they were skipped.
fn discard_parts(ctx: &JobCtx, summary: &mut Summary, record: &JournalRecord, dest_dir: &Path) {
    if let Err(e) = remove_parts(record) {
        fail(ctx, summary, dest_dir, e);
    }
}

fn resume_move(
    ctx: &JobCtx,
    record: &JournalRecord,
    sources: &[PathBuf],
    dest_dir: &Path,
    policy: ConflictPolicy,
) -> Summary {
    let mut summary = Summary::default();
    // Read before the move removes the source folders.
    let folders = folder_times(sources, dest_dir, &record.preexisting);
    let mut left = Vec::new();
    for source in sources {
        let Some(name) = source.file_name() else {
            left.push(source.clone());
            continue;
        };
        if let Err(e) = settle(source, &dest_dir.join(name)) {
            fail(ctx, &mut summary, source, e);
        } else if fs::symlink_metadata(source).is_ok() {
            left.push(source.clone());
        } else {
            summary.done.push(source.clone());
        }
    }
    if !left.is_empty() {
        absorb(&mut summary, moves::run_job(ctx, &left, dest_dir, policy));
    }
    restore_folder_times(&folders);
    summary
}

/// True when `dest` is a finished copy of `source`: the engine links a file in only with its
/// source's size and mtime, and a link only with its target.
fn is_copy_of(source: &Path, s: &Metadata, dest: &Path, d: &Metadata) -> bool {
    if s.file_type().is_symlink() && d.file_type().is_symlink() {
        return fs::read_link(source).ok() == fs::read_link(dest).ok();
    }
    s.is_file()
        && d.is_file()
        && s.size() == d.size()
        && s.mtime() == d.mtime()
        && s.mtime_nsec() == d.mtime_nsec()
}

/// Removes from the source of a move every file already copied whole to `dest`, after making
/// that copy durable; folders are left to the move, which merges and then removes them.
fn settle(source: &Path, dest: &Path) -> Result<(), Error> {
    let Ok(s) = fs::symlink_metadata(source) else {
        return Ok(()); // moved completely before the crash
    };
    let Ok(d) = fs::symlink_metadata(dest) else {
        return Ok(());
    };
    if s.is_dir() && d.is_dir() {
        for entry in fs::read_dir(source).map_err(|e| Error::io("read folder", source, e))? {
            let entry = entry.map_err(|e| Error::io("read folder", source, e))?;
            settle(&entry.path(), &dest.join(entry.file_name()))?;
        }
    } else if is_copy_of(source, &s, dest, &d) {
        if d.is_file() {
            fs::File::open(dest)
                .and_then(|f| f.sync_all())
                .map_err(|e| Error::io("flush", dest, e))?;
        }
        fs::remove_file(source).map_err(|e| Error::io("remove", source, e))?;
    }
    Ok(())
}

/// Mode and times of the source folders whose copies the job created (not those merged into).
fn folder_times(
    sources: &[PathBuf],
    dest_dir: &Path,
    preexisting: &[PathBuf],
) -> Vec<(PathBuf, Metadata)> {
    let mut out = Vec::new();
    for source in sources {
        let Some(name) = source.file_name() else {
            continue;
        };
        let dest = dest_dir.join(name);
        if preexisting.contains(&dest) {
            continue;
        }
        let mut stack = vec![(source.clone(), dest)];
        while let Some((s, d)) = stack.pop() {
            let Ok(meta) = fs::symlink_metadata(&s) else {
                continue;
            };
            if !meta.is_dir() {
                continue;
            }
            if let Ok(entries) = fs::read_dir(&s) {
                for entry in entries.flatten() {
                    stack.push((entry.path(), d.join(entry.file_name())));
                }
            }
            out.push((d, meta));
        }
    }
    out
}

/// Best effort: a folder that is gone or refuses keeps what it has.
fn restore_folder_times(folders: &[(PathBuf, Metadata)]) {
    // Children first, so setting a child's times does not disturb its parent's afterwards.
    for (dest, meta) in folders.iter().rev() {
        if !fs::symlink_metadata(dest).is_ok_and(|m| m.is_dir()) {
            continue;
        }
        let _ = fs::set_permissions(dest, fs::Permissions::from_mode(meta.mode() & 0o7777));
        let mtime = UNIX_EPOCH
            + Duration::new(
                meta.mtime().max(0).unsigned_abs(),
                meta.mtime_nsec().clamp(0, 999_999_999) as u32,
            );
        let _ =
            fs::File::open(dest).and_then(|f| f.set_times(FileTimes::new().set_modified(mtime)));
    }
}

/// Rolls back an interrupted (or resumed) copy or move of `record`.
pub(crate) fn roll_back(ctx: &JobCtx, record: &JournalRecord, roots: &TrashRoots) -> Summary {
    let mut summary = Summary::default();
    let (sources, dest_dir, is_move) = match &record.job {
        Job::Copy {
            sources, dest_dir, ..
        } => (sources, dest_dir, false),
        Job::Move {
            sources, dest_dir, ..
        } => (sources, dest_dir, true),
        _ => return super::undo::run_job(ctx, &finished(record), roots),
    };
    // Unfinished parts of large files are our temporaries, never the user's data.
    if let Err(e) = remove_parts(record) {
        fail(ctx, &mut summary, dest_dir, e);
    }
    let mut plan = Rollback::default();
    for source in sources {
        let Some(name) = source.file_name() else {
            continue;
        };
        let dest = dest_dir.join(name);
        let created = !record.preexisting.contains(&dest);
        if let Err(e) = plan.walk(source, &dest, is_move, created) {
            fail(ctx, &mut summary, source, e);
        }
    }
    if !plan.trash.is_empty() {
        absorb(&mut summary, trash::run_trash(ctx, &plan.trash, roots));
    }
    for (parent, items) in plan.back {
        if ctx.control.stopped() {
            summary.not_done.extend(items);
        } else {
            absorb(
                &mut summary,
                moves::run_job(ctx, &items, &parent, ConflictPolicy::Skip),
            );
        }
    }
    for dir in plan.emptied.iter().rev() {
        // Only emptied folders the job created go; one still holding anything stays.
        let _ = fs::remove_dir(dir);
    }
    summary
}

/// A finished-looking copy of `record`, for the one-call jobs (rename, create folder) whose
/// rollback is their plain undo.
fn finished(record: &JournalRecord) -> JournalRecord {
    JournalRecord {
        state: super::journal::RecordState::Finished,
        resumed: false,
        entries_dropped: false,
        ..record.clone()
    }
}

#[derive(Default)]
struct Rollback {
    /// Copies to move to the trash.
    trash: Vec<PathBuf>,
    /// Items a move carried over completely, by the folder they go back to.
    back: BTreeMap<PathBuf, Vec<PathBuf>>,
    /// Destination folders the job created, parents first, removed at the end if empty.
    emptied: Vec<PathBuf>,
}

impl Rollback {
    fn walk(
        &mut self,
        source: &Path,
        dest: &Path,
        is_move: bool,
        created: bool,
    ) -> Result<(), Error> {
        let Ok(d) = fs::symlink_metadata(dest) else {
            return Ok(()); // not reached by the job
        };
        let Ok(s) = fs::symlink_metadata(source) else {
            if is_move && created {
                let parent = source.parent().unwrap_or(Path::new("/")).to_path_buf();
                self.back
                    .entry(parent)
                    .or_default()
                    .push(dest.to_path_buf());
            }
            return Ok(());
        };
        if s.is_dir() && d.is_dir() {
            if created {
                self.emptied.push(dest.to_path_buf());
            }
            for entry in fs::read_dir(dest).map_err(|e| Error::io("read folder", dest, e))? {
                let entry = entry.map_err(|e| Error::io("read folder", dest, e))?;
                // Inside a folder the job created, everything is the job's; inside one it
                // merged into, only what is identical to a source counts as its copy.
                self.walk(
                    &source.join(entry.file_name()),
                    &entry.path(),
                    is_move,
                    created,
                )?;
            }
        } else if is_copy_of(source, &s, dest, &d) {
            self.trash.push(dest.to_path_buf());
        }
        Ok(())
    }
}
