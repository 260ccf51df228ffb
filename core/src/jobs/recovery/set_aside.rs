//! Putting back the sources an interrupted move had renamed aside to remove them
//! (`.ferry-moving-<pid>-…`, see `remove.rs` and `aside.rs`). A move does that only once the
//! copies are on disk, so such a source is whole at its destination too: put back under its
//! name, it is a source not removed yet, which resume removes and roll back keeps.
//!
//! A file given as a source was set aside in its own folder; a file inside a folder given, in
//! its folder there, which is still in place (a folder goes only once its files have). So the
//! search is the sources' folders, and the source folders still there, on their own mount.
//! Only the dead process's names are touched: another process's may be in use.
//!
//! The roll back of a move (an undo of it once interrupted or resumed) is itself a move, from
//! the destination back, and sets aside in the same way what it takes back. Killed, it leaves
//! such an item at the destination, under its process's name (the journal's `undo_started`):
//! the undo run again took it for an item the move had carried over and moved it into the
//! source folder under that hidden name, and a resume left it beside the item. So the folders
//! where the move put its items, and the trees it made or merged into there, are searched
//! too, for the names of the killed undo's process, and what it set aside is put back under
//! its name first: a copy of a source that is whole where it came from, which the roll back
//! then takes for the move's copy and a resume for a file already moved.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use rustix::io::Errno;

use super::{Depth, each_named, keep_both, policy_of};
use crate::error::Error;
use crate::jobs::aside::{self, Original};
use crate::jobs::control::JobCtx;
use crate::jobs::journal::{JournalRecord, RecordState};
use crate::jobs::summary::fail;
use crate::jobs::{Job, Summary};

/// Puts each source that the dead process of `record`'s move set aside back under its name,
/// where that is free, and each item that a killed undo of it set aside at the destination
/// ([`put_back_undone`]). Returns what stays set aside ([`Error::SetAsideKept`],
/// [`Error::SetAsideUnnamed`]) and the folders that could not be searched.
pub(crate) fn put_back(record: &JournalRecord) -> Vec<Error> {
    let sources: Vec<PathBuf> = match &record.job {
        Job::Move { sources, .. } => sources.clone(),
        // Across file systems a restore is a move out of the trash, which sets aside there
        // what it removes (`trash/restore.rs`).
        Job::Restore { items, .. } => items.iter().map(|i| i.file.clone()).collect(),
        _ => return Vec::new(),
    };
    let folders: BTreeSet<&Path> = sources.iter().filter_map(|s| s.parent()).collect();
    let mut problems = put_back_in(folders, &sources, record.pid);
    problems.extend(put_back_undone(record));
    problems
}

/// Puts back what a killed undo of `record`'s move (a roll back, moving items from where the
/// move put them) set aside there: in the folders of the move's places, and in the trees at
/// them. Nothing while that undo's process is alive, or none was killed.
fn put_back_undone(record: &JournalRecord) -> Vec<Error> {
    let Some((pid, _)) = record.undo_by.filter(|_| record.undo_unfinished()) else {
        return Vec::new();
    };
    if !matches!(record.job, Job::Move { .. }) {
        return Vec::new(); // a copy's roll back trashes, never sets aside
    }
    let places: Vec<PathBuf> = keep_both::on_disk(record, policy_of(record))
        .into_iter()
        .map(|landing| landing.dest)
        .collect();
    let folders: BTreeSet<&Path> = places.iter().filter_map(|p| p.parent()).collect();
    put_back_in(folders, &places, pid)
}

/// Puts back the files that process `pid` set aside in `folders`, and in the folders at
/// `tops` and below them on their own mount.
fn put_back_in(folders: BTreeSet<&Path>, tops: &[PathBuf], pid: u32) -> Vec<Error> {
    let prefix = aside::prefix(pid);
    let trees = tops
        .iter()
        .filter(|s| fs::symlink_metadata(s).is_ok_and(|m| m.is_dir()));
    let searches = (folders.into_iter().map(|f| (f, Depth::Flat)))
        .chain(trees.map(|s| (s.as_path(), Depth::Mount)));
    let (mut found, mut problems) = (Vec::new(), Vec::new());
    for (top, depth) in searches {
        // Collected, and renamed once the folders are read.
        let mut note = |path: &Path, is_folder: bool| {
            if !is_folder {
                found.push(path.to_path_buf());
            }
            Ok(())
        };
        if let Err(e) = each_named(top, &prefix, depth, &mut note) {
            problems.push(e);
        }
    }
    for hidden in found {
        if let Err(e) = put_back_one(hidden, pid) {
            problems.push(e);
        }
    }
    problems
}

/// [`put_back`] again before the resume or roll back of `record`, if it is interrupted (the
/// process of another record may be alive, its names in use), and what a killed undo set
/// aside before the roll back of a resumed move: a name taken at start may be free now.
/// What stays set aside fails in `summary`, so that an undo is not taken for complete and
/// is run again.
pub(super) fn put_back_before(ctx: &JobCtx, summary: &mut Summary, record: &JournalRecord) {
    let problems = match record.state {
        RecordState::Interrupted => put_back(record),
        // A resumed move, rolled back: only a killed undo's names (the move's process may
        // have a number another process has now).
        _ => put_back_undone(record),
    };
    for e in problems {
        let path = e.path().map(Path::to_path_buf).unwrap_or_default();
        fail(ctx, summary, &path, e);
    }
}

/// Renames `hidden`, set aside by process `pid`, back to its name, never over anything.
fn put_back_one(hidden: PathBuf, pid: u32) -> Result<(), Error> {
    let original = match hidden.file_name().and_then(|n| aside::original(n, pid)) {
        Some(Original::Named(name)) => hidden.with_file_name(name),
        Some(Original::Unknown) => return Err(Error::SetAsideUnnamed { path: hidden }),
        None => return Ok(()), // only named like one
    };
    let cwd = rustix::fs::CWD;
    match crate::fs::rename_noreplace(cwd, hidden.as_os_str(), cwd, original.as_os_str()) {
        // Gone: put back by another process starting at the same time.
        Ok(()) | Err(Errno::NOENT) => Ok(()),
        Err(Errno::EXIST | Errno::NOTEMPTY | Errno::ISDIR) => Err(Error::SetAsideKept {
            path: original,
            aside: hidden,
        }),
        Err(e) => Err(Error::io("put back", hidden, e)),
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use crate::error::Error;
    use crate::jobs::{ConflictPolicy, Job, UndoJournal};

    /// A move of `src/loose` and `src/tree` by a process that died (pid 0 never runs): what
    /// it set aside goes back, where it can; nothing else is touched.
    #[test]
    fn start_up_puts_back_what_a_dead_move_set_aside_and_nothing_else() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("src");
        fs::create_dir_all(src.join("tree/d")).unwrap();
        let journal = UndoJournal::at(tmp.path().join("state/journal.jsonl"));
        let job = Job::Move {
            sources: vec![src.join("loose"), src.join("tree")],
            dest_dir: tmp.path().join("dest"),
            dest_name: None,
            on_conflict: ConflictPolicy::Skip,
        };
        journal.begin(&job).unwrap();
        let text = fs::read_to_string(journal.path()).unwrap();
        let dead = text.replace(&format!("\"pid\":{}", std::process::id()), "\"pid\":0");
        fs::write(journal.path(), dead).unwrap();
        let write = |rel: &str, data: &str| fs::write(src.join(rel), data).unwrap();
        write(".ferry-moving-0-1-loose", "loose");
        write("tree/d/.ferry-moving-0-1-deep", "deep");
        write("tree/d/.ferry-moving-0-1#4", "unnamed");
        write("tree/.ferry-moving-0-1-taken", "set aside");
        write("tree/taken", "made since");
        write(".ferry-moving-12345-1-other", "another process's");
        // Only files are set aside: a folder so named is someone else's.
        fs::create_dir(src.join("tree/.ferry-moving-0-1-folder")).unwrap();

        let (found, problems) = journal.start_up();
        assert_eq!(found.len(), 1);
        let read = |rel: &str| fs::read_to_string(src.join(rel)).unwrap();
        assert_eq!(read("loose"), "loose");
        assert_eq!(read("tree/d/deep"), "deep");
        assert_eq!(read("tree/d/.ferry-moving-0-1#4"), "unnamed");
        assert_eq!(read("tree/taken"), "made since");
        assert_eq!(read("tree/.ferry-moving-0-1-taken"), "set aside");
        assert_eq!(read(".ferry-moving-12345-1-other"), "another process's");
        assert!(src.join("tree/.ferry-moving-0-1-folder").is_dir());
        assert_eq!(problems.len(), 2, "{problems:?}");
        let unnamed = src.join("tree/d/.ferry-moving-0-1#4");
        assert!(problems.iter().any(|e| matches!(
            e,
            Error::SetAsideUnnamed { path } if *path == unnamed
        )));
        let (taken, aside) = (
            src.join("tree/taken"),
            src.join("tree/.ferry-moving-0-1-taken"),
        );
        assert!(problems.iter().any(|e| matches!(
            e,
            Error::SetAsideKept { path, aside: kept } if *path == taken && *kept == aside
        )));
    }
}
