//! The folders an interrupted copy, move or restore made: a killed run never gave them their
//! sources' mode, times and attributes (the engine does when a folder is complete), so a
//! resume does.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::super::journal::JournalRecord;
use super::super::left_behind;
use super::super::notes::{self, NoteKind};
use super::{Job, keep_both, policy_of};
use crate::fs::Timestamp;
use crate::jobs::control::JobCtx;

/// A source folder whose copy the job created, as it was before the resume (a move removes
/// it): what its copy must get once its contents are written.
pub(super) struct Folder {
    dest: PathBuf,
    mode: u32,
    atime: Timestamp,
    mtime: Timestamp,
    xattrs: crate::fs::Xattrs,
}

/// Mode, times and extended attributes of the source folders whose copies the job created,
/// not those merged into: in a folder that was there before the job (`preexisting`), only the
/// folders made since the job started (by their birth time: where the file system keeps none,
/// a folder that is there is left alone, since the user's own might be taken for the job's).
pub(super) fn folder_times(record: &JournalRecord) -> Vec<Folder> {
    let mut out = Vec::new();
    for landing in keep_both::on_disk(record, policy_of(record)) {
        let merged_since = (!landing.created).then_some(record.started);
        let moved_since = matches!(record.job, Job::Move { .. }).then_some(record.started);
        let since = (merged_since, moved_since);
        folders_below(&landing.source, &landing.dest, since, &mut out);
    }
    out
}

/// Adds to `out` the source folders at and below `source` whose copies at the same places
/// below `dest` the job created: all of them, or where it merged into a folder that was
/// there (`merged_since`: when the job started), those made since. `moved_since`: when the
/// job started, if it removes its sources (a move).
pub(super) fn folders_below(
    source: &Path,
    dest: &Path,
    (merged_since, moved_since): (Option<SystemTime>, Option<SystemTime>),
    out: &mut Vec<Folder>,
) {
    let mut stack = vec![(source.to_path_buf(), dest.to_path_buf())];
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
        let the_jobs = merged_since.is_none_or(|started| {
            fs::symlink_metadata(&d).map_or(true, |m| m.created().is_ok_and(|born| born >= started))
        });
        if !the_jobs {
            continue;
        }
        let xattrs = crate::fs::open_dir_at(rustix::fs::CWD, &s)
            .and_then(crate::fs::read_xattrs)
            .unwrap_or_default();
        // A move removes sources only once every copy is on disk, each folder's with its
        // source's times: a source folder changed since the job started lost items to the
        // killed run's removals (the time of the kill, which the resume passed on), and its
        // copy holds the time it had.
        let changed = moved_since.is_some_and(|t| left_behind::moved_out_since(&meta, t));
        let times_of = match fs::symlink_metadata(&d) {
            Ok(copy) if changed && copy.is_dir() => copy,
            _ => meta.clone(),
        };
        out.push(Folder {
            dest: d,
            mode: meta.mode() & 0o7777,
            atime: Timestamp::atime_of(&times_of),
            mtime: Timestamp::mtime_of(&times_of),
            xattrs,
        });
    }
}

/// Gives the folders the job created their sources' attributes, mode and times, as the
/// engine does when a folder is complete (a killed run never got there). Best effort: a
/// folder that is gone or refuses keeps what it has; what the destination cannot hold is a
/// note of the job.
pub(super) fn restore_folder_times(ctx: &JobCtx, folders: &[Folder]) {
    // Children first, so setting a child's times does not disturb its parent's afterwards.
    for Folder {
        dest,
        mode,
        atime,
        mtime,
        xattrs,
    } in folders.iter().rev()
    {
        let Ok(fd) = crate::fs::open_dir_at(rustix::fs::CWD, dest) else {
            continue; // gone, or not a folder
        };
        // What the destination refuses to hold is a note, as in the engine; other errors
        // leave the folder as it is.
        let noted = |kind, set: rustix::io::Result<()>| match set {
            Err(e) if notes::refused(e) => {
                ctx.note(kind, dest.clone(), Some(e));
            }
            _ => {}
        };
        if let Err(not_kept) = crate::fs::write_xattrs(&fd, xattrs) {
            ctx.note_xattrs(dest.clone(), not_kept);
        }
        noted(NoteKind::Permissions, crate::fs::set_mode_fd(&fd, *mode));
        noted(
            NoteKind::Times,
            crate::fs::set_times_fd(&fd, *atime, *mtime),
        );
    }
}
