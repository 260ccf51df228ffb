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
use std::path::{Path, PathBuf};

use super::RecordEntry;
use super::journal::JournalRecord;
use super::undo::is_still;

/// Where the items of a partly moved folder go back.
#[derive(Debug, Default)]
pub(crate) struct PutBackInto {
    /// Each item as it is now, and the place it goes back to.
    pub(crate) items: Vec<(PathBuf, PathBuf)>,
    /// The folder copies emptied by that, parents first.
    pub(crate) copies: Vec<PathBuf>,
}

/// The folders of a move's record that came with their source's identity, by where they
/// are now: read once per undo, for every top-level folder it looks at.
pub struct LeftBehind<'r> {
    folders: HashMap<&'r Path, &'r RecordEntry>,
}

impl<'r> LeftBehind<'r> {
    /// `None` when the job left nothing behind: a folder at a source's place is then one made
    /// since, whatever its inode number.
    pub fn of(record: &'r JournalRecord) -> Option<Self> {
        let folders = (record.entries.iter())
            .filter(|f| f.source_folder.is_some())
            .map(|f| (f.dest.as_path(), f))
            .collect();
        record.left_something().then_some(LeftBehind { folders })
    }

    /// For a folder `e` that [`is_left_behind`] (else `None`): what goes back into the folder
    /// left behind, its sub-folders left behind too gone into the same way. `None` also when
    /// a copy cannot be read: the folder is then put back whole, as a taken place.
    pub(crate) fn put_back_into(&self, e: &RecordEntry) -> Option<PutBackInto> {
        if !is_left_behind(e) {
            return None;
        }
        let mut into = PutBackInto::default();
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
                match self.folders.get(now.as_path()) {
                    Some(sub) if sub.source == back && is_left_behind(sub) => pending.push(sub),
                    _ => into.items.push((now, back)),
                }
            }
        }
        Some(into)
    }

    /// For a folder `e` that [`is_left_behind`]: its items whose place in the folder left
    /// behind is taken (each as it is now, and that place); `None` for any other entry.
    pub fn taken_inside(&self, e: &RecordEntry) -> Option<Vec<(PathBuf, PathBuf)>> {
        let mut items = self.put_back_into(e)?.items;
        items.retain(|(_, back)| back.symlink_metadata().is_ok());
        Some(items)
    }
}

/// True when `e`'s original place still holds the folder it was copied from, and its copy is
/// still the one the move made: the undo puts back into that folder.
fn is_left_behind(e: &RecordEntry) -> bool {
    e.source_folder.is_some_and(|id| is_still(&e.source, id)) && is_still(&e.dest, e.id)
}

/// Removes the folders of `folders` (given parents before children) that are empty, deepest
/// first: the copies [`LeftBehind::put_back_into`] emptied, say; one still holding something
/// (an item that could not go back, said already) stays.
pub(crate) fn remove_emptied(folders: &[PathBuf]) {
    for folder in folders.iter().rev() {
        let _ = std::fs::remove_dir(folder);
    }
}
