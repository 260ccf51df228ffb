//! The undo of a move that left part of a folder behind.
//!
//! A move across file systems copies a folder, then removes from its source what was copied.
//! When something in it could not be moved (an immutable file, a read error), the source
//! folder stays where it was, holding what was left out, and the folder's copy holds the
//! rest. Putting the copy back whole would meet that folder as a place taken since; it is the
//! very folder the move came from (its record keeps its identity, [`RecordEntry::source_folder`]),
//! so what was moved goes back into it instead, item by item, each still a conflict if its
//! own place is taken. Copies emptied that way are removed.
//!
//! An undo's own put-back splits a folder the same way: it is an engine move, and a move
//! cancelled (or stopped by an error) across file systems counts what it copied as moved. Run
//! again, the undo finds at the old place folders it made itself, holding part of the item;
//! they are its own ([`PartPutBack`]) when everything in them is what the job had moved,
//! gone since from where the job put it, and the rest goes back into them the same way.

use std::collections::HashMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::RecordEntry;
use super::journal::JournalRecord;
use super::undo::is_still;
use crate::entry::Kind;
use crate::fs::Timestamp;

/// Where the items of a partly moved folder go back.
#[derive(Debug, Default)]
pub(crate) struct PutBackInto {
    /// Each item as it is now, and the place it goes back to.
    pub(crate) items: Vec<(PathBuf, PathBuf)>,
    /// The folder copies emptied by that, parents first.
    pub(crate) copies: Vec<PathBuf>,
    /// What a killed run of the undo left to remove: files it had put back whole whose
    /// copy where the job put them it had not removed yet, and its temporaries at the old
    /// place. Removed before the rest goes back, once the old place's disk holds them.
    pub(crate) redundant: Vec<PathBuf>,
    /// The folders left behind and their copies, parents first: a copy has the times its
    /// folder had before the job took items out of it.
    pub(crate) left_folders: Vec<(PathBuf, PathBuf)>,
}

impl PutBackInto {
    /// Its items whose place is taken (each as it is now, and that place).
    fn taken(self) -> Vec<(PathBuf, PathBuf)> {
        let mut items = self.items;
        items.retain(|(_, back)| back.symlink_metadata().is_ok());
        items
    }
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
            (into.left_folders).push((folder.source.clone(), folder.dest.clone()));
            let mut names = read_names(&folder.dest)?;
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
        self.put_back_into(e).map(PutBackInto::taken)
    }
}

/// Whether the source folder of `meta`, of a move started at `since`, lost items to it (its
/// mtime is later): its copy then holds the times it had, which the move gave the copy
/// before it took anything out. Resume, roll back and undo give them back from there.
pub(crate) fn moved_out_since(meta: &fs::Metadata, since: std::time::SystemTime) -> bool {
    meta.modified().is_ok_and(|m| m > since)
}

/// True when `e`'s original place still holds the folder it was copied from, and its copy is
/// still the one the move made: the undo puts back into that folder.
fn is_left_behind(e: &RecordEntry) -> bool {
    e.source_folder.is_some_and(|id| is_still(&e.source, id)) && is_still(&e.dest, e.id)
}

/// The items of a move's record by where they came from, when an earlier run of its undo
/// began and did not finish: read once per undo, like [`LeftBehind`].
pub struct PartPutBack<'r> {
    by_source: HashMap<&'r Path, &'r RecordEntry>,
}

impl<'r> PartPutBack<'r> {
    /// `None` when no earlier undo of `record` stopped part way, or its items were too many to
    /// keep (the undo then compares, and a folder there is a place taken).
    pub fn of(record: &'r JournalRecord) -> Option<Self> {
        if !record.undo_unfinished() || record.entries_dropped {
            return None;
        }
        let by_source = (record.entries.iter())
            .map(|e| (e.source.as_path(), e))
            .collect();
        Some(PartPutBack { by_source })
    }

    /// For a folder `e` still where the job put it whose old place holds a folder that an
    /// earlier run of the undo made ([`Self::own_tree`]): what is left goes back into it, into
    /// its sub-folders the same way. `None` for any other entry, or when a folder cannot be
    /// read: the item then meets its old place as taken, as before.
    pub(crate) fn put_back_into(&self, e: &RecordEntry) -> Option<PutBackInto> {
        if e.kind != Kind::Dir || !is_still(&e.dest, e.id) {
            return None;
        }
        let mut into = PutBackInto {
            redundant: self.own_tree(&e.source)?,
            ..PutBackInto::default()
        };
        let mut pending = vec![(e.dest.clone(), e.source.clone())];
        while let Some((now, back)) = pending.pop() {
            let mut names = read_names(&now)?;
            names.sort();
            for name in names {
                let (now, back) = (now.join(&name), back.join(&name));
                match (fs::symlink_metadata(&now), fs::symlink_metadata(&back)) {
                    (Ok(n), Ok(b)) if n.is_dir() && b.is_dir() => pending.push((now, back)),
                    // Put back whole, and found identical (`own_tree`): its copy goes.
                    (Ok(_), Ok(_)) => into.redundant.push(now),
                    _ => into.items.push((now, back)),
                }
            }
            // Parents before their folders, as `remove_emptied` wants them.
            into.copies.push(now);
        }
        Some(into)
    }

    /// For a folder `e` whose old place holds a folder an earlier run of the undo made: its
    /// items whose place in it is taken (as [`LeftBehind::taken_inside`]).
    pub fn taken_inside(&self, e: &RecordEntry) -> Option<Vec<(PathBuf, PathBuf)>> {
        self.put_back_into(e).map(PutBackInto::taken)
    }

    /// Whether the item `e`, gone from where the job put it, is back at its old place, put
    /// back whole across file systems by a stopped run of the undo: as that run left it (a
    /// folder [`Self::own_tree`], a file of its size and time). It counted as "no longer there;
    /// nothing was undone for it".
    pub(crate) fn is_back(&self, e: &RecordEntry) -> bool {
        match e.kind {
            Kind::Dir => self.own_tree(&e.source).is_some(),
            _ => fs::symlink_metadata(&e.source).is_ok_and(|m| as_made(e, &m)),
        }
    }

    /// Whether the folder `folder` (at an item's old place) holds nothing but items of the
    /// record at their old places, each file of the size and time the job gave it and gone
    /// from where the job put it (or, left there by a killed run, identical to it): what a
    /// stopped run of the undo put back. Its sub-folders the same, all the way down; the
    /// temporaries of a killed run are left out, and returned. `None`: not its own.
    fn own_tree(&self, folder: &Path) -> Option<Vec<PathBuf>> {
        if !fs::symlink_metadata(folder).ok()?.is_dir() {
            return None;
        }
        let mut temporaries = Vec::new();
        // Read whole before going down, so that a deep tree does not hold a descriptor a level.
        for name in read_names(folder)? {
            let path = folder.join(&name);
            let m = fs::symlink_metadata(&path).ok()?;
            if super::undo_again::dead_temporary(&name) && !m.is_dir() {
                temporaries.push(path);
                continue;
            }
            let e = self.by_source.get(path.as_path())?;
            if !as_made(e, &m) {
                return None;
            }
            if e.kind == Kind::Dir {
                temporaries.extend(self.own_tree(&path)?);
                continue;
            }
            let differs_there = fs::symlink_metadata(&e.dest)
                .is_ok_and(|d| !super::recovery::is_copy_of(&e.dest, &d, &path, &m, None));
            if differs_there {
                return None;
            }
        }
        Some(temporaries)
    }
}

/// Whether `m` is of the kind of the record's item `e` and, for a file, of the size and time
/// the job gave it: as a put-back of it leaves it.
fn as_made(e: &RecordEntry, m: &fs::Metadata) -> bool {
    let kind = Kind::from_file_type(rustix::fs::FileType::from_raw_mode(m.mode()));
    kind == e.kind
        && (kind != Kind::File || m.size() == e.size && e.mtime.kept_as(Timestamp::mtime_of(m)))
}

/// The names in the folder `dir`; `None` when it cannot be read.
fn read_names(dir: &Path) -> Option<Vec<std::ffi::OsString>> {
    fs::read_dir(dir)
        .ok()?
        .map(|child| child.map(|c| c.file_name()))
        .collect::<Result<_, _>>()
        .ok()
}

/// Removes the folders of `folders` (given parents before children) that are empty, deepest
/// first: the copies [`LeftBehind::put_back_into`] emptied, say; one still holding something
/// (an item that could not go back, said already) stays.
pub(crate) fn remove_emptied(folders: &[PathBuf]) {
    for folder in folders.iter().rev() {
        let _ = std::fs::remove_dir(folder);
    }
}
