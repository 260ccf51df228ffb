//! What trash and restore jobs record, and the folders an undo made anew.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::StoredPath;
use super::entry::{KINDS, named};
use crate::fs::{FileId, Timestamp};
use crate::jobs::{TrashRecord, TrashedItem};

/// A [`TrashRecord`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(in crate::jobs::journal) struct StoredTrashRecord {
    original: StoredPath,
    file: StoredPath,
    info: StoredPath,
    k: String,
    dev: u64,
    ino: u64,
    size: u64,
    mt: (i64, u32),
}

impl StoredTrashRecord {
    pub(in crate::jobs::journal) fn of(r: &TrashRecord) -> StoredTrashRecord {
        StoredTrashRecord {
            original: StoredPath::path(&r.original),
            file: StoredPath::path(&r.file),
            info: StoredPath::path(&r.info),
            k: format!("{:?}", r.kind),
            dev: r.id.dev,
            ino: r.id.ino,
            size: r.size,
            mt: (r.mtime.sec, r.mtime.nsec),
        }
    }

    pub(in crate::jobs::journal) fn into_record(self) -> Option<TrashRecord> {
        Some(TrashRecord {
            original: self.original.into_path(),
            file: self.file.into_path(),
            info: self.info.into_path(),
            kind: named(&KINDS, &self.k)?,
            id: FileId {
                dev: self.dev,
                ino: self.ino,
            },
            size: self.size,
            mtime: Timestamp {
                sec: self.mt.0,
                nsec: self.mt.1,
            },
        })
    }
}

/// An item an undo made anew, and its identity (see [`Summary::remade`]).
///
/// [`Summary::remade`]: crate::jobs::Summary::remade
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(in crate::jobs::journal) struct StoredRemade {
    p: StoredPath,
    dev: u64,
    ino: u64,
}

impl StoredRemade {
    pub(in crate::jobs::journal) fn of((path, id): &(PathBuf, FileId)) -> StoredRemade {
        StoredRemade {
            p: StoredPath::path(path),
            dev: id.dev,
            ino: id.ino,
        }
    }

    pub(in crate::jobs::journal) fn into_remade(self) -> (PathBuf, FileId) {
        let id = FileId {
            dev: self.dev,
            ino: self.ino,
        };
        (self.p.into_path(), id)
    }
}

/// A [`TrashedItem`] given to a restore job: its [`TrashRecord`] and deletion date.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(in crate::jobs::journal) struct StoredTrashedItem {
    #[serde(flatten)]
    record: StoredTrashRecord,
    #[serde(default)]
    date: String,
    /// Restored into a folder the user picked ([`TrashedItem::restore_to`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    chosen: bool,
    /// Its `Path=`, when the item goes elsewhere ([`TrashedItem::trashed_from`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    from: Option<StoredPath>,
}

impl StoredTrashedItem {
    pub(super) fn of(item: &TrashedItem) -> StoredTrashedItem {
        StoredTrashedItem {
            record: StoredTrashRecord::of(&item.as_record()),
            date: item.deletion_date.clone(),
            chosen: item.chosen_folder,
            from: (item.trashed_from != item.original)
                .then(|| StoredPath::path(&item.trashed_from)),
        }
    }

    pub(super) fn into_item(self) -> Option<TrashedItem> {
        let record = self.record.into_record()?;
        let from = self.from.map(StoredPath::into_path);
        Some(TrashedItem::recorded(record, self.date, self.chosen, from))
    }
}
