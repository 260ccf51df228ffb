//! The undo of a move that left part of a folder behind.
//!
//! A move across file systems copies a folder, then removes from its source what was copied.
//! When something in it could not be moved (an immutable file, a read error), the source
//! folder stays where it was, holding what was left out, and the folder's copy holds the
//! rest. Putting the copy back whole would meet that folder as a place taken since; it is the
//! very folder the move came from (its record keeps its identity, [`RecordEntry::source_folder`]),
//! so what was moved goes back into it instead, item by item, each still a conflict if its
//! own place is taken. Copies emptied that way are removed.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::RecordEntry;
use super::journal::JournalRecord;
use crate::entry::Kind;
use crate::fs::FileId;

/// Where the items of a partly moved folder go back.
#[derive(Debug, Default)]
pub(crate) struct Into {
    /// Each item as it is now, and the place it goes back to.
    pub(crate) items: Vec<(PathBuf, PathBuf)>,
    /// The folder copies emptied by that, parents first.
    pub(crate) copies: Vec<PathBuf>,
}

/// The item at `path`, not followed, is the folder `id`.
fn is_folder(path: &Path, id: FileId) -> bool {
    std::fs::symlink_metadata(path)
        .is_ok_and(|m| m.is_dir() && m.dev() == id.dev && m.ino() == id.ino)
}

/// True when `e`'s original place still holds the folder it was copied from, and its copy is
/// still the one the move made: the undo puts back into that folder ([`put_back_into`]).
fn is_left_behind(e: &RecordEntry) -> bool {
    e.kind == Kind::Dir
        && e.source_folder.is_some_and(|id| is_folder(&e.source, id))
        && is_folder(&e.dest, e.id)
}

/// For a folder `e` of `record` that [`is_left_behind`] (else `None`): what goes back into
/// the folder left behind, its sub-folders left behind too gone into the same way. `None`
/// also when a copy cannot be read: the folder is then put back whole, as a taken place.
pub(crate) fn put_back_into(record: &JournalRecord, e: &RecordEntry) -> Option<Into> {
    if !record.left_something() || !is_left_behind(e) {
        return None;
    }
    let folders: HashMap<&Path, &RecordEntry> = (record.entries.iter())
        .filter(|f| f.source_folder.is_some())
        .map(|f| (f.dest.as_path(), f))
        .collect();
    let mut into = Into::default();
    let mut pending = vec![e];
    while let Some(folder) = pending.pop() {
        into.copies.push(folder.dest.clone());
        let mut names: Vec<_> = std::fs::read_dir(&folder.dest)
            .ok()?
            .map(|child| child.map(|c| c.file_name()))
            .collect::<Result<_, _>>()
            .ok()?;
        names.sort();
        for name in names {
            let (now, back) = (folder.dest.join(&name), folder.source.join(&name));
            match folders.get(now.as_path()) {
                Some(sub) if sub.source == back && is_left_behind(sub) => pending.push(sub),
                _ => into.items.push((now, back)),
            }
        }
    }
    Some(into)
}

/// For a folder `e` of `record` that [`is_left_behind`]: its items whose place in the folder
/// left behind is taken (each as it is now, and that place); `None` for any other entry.
pub fn taken_inside(record: &JournalRecord, e: &RecordEntry) -> Option<Vec<(PathBuf, PathBuf)>> {
    let mut items = put_back_into(record, e)?.items;
    items.retain(|(_, back)| back.symlink_metadata().is_ok());
    Some(items)
}

/// Removes the copies [`put_back_into`] emptied, deepest first; one still holding something
/// (an item that could not go back, said already) stays.
pub(crate) fn remove_emptied(copies: &[PathBuf]) {
    for copy in copies.iter().rev() {
        let _ = std::fs::remove_dir(copy);
    }
}
