//! What the Trash view shows, read on a worker thread: every trashed item, and what sorting
//! needs precomputed (the natural, locale-aware rank of each name and each original folder,
//! from the core's collation), so that a click on a column header sorts with integer
//! comparisons only, in `update`, however long the trash.

use std::cmp::Ordering;
use std::ffi::OsStr;
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use ferry_core::entry::{self, Meta};
use ferry_core::jobs::{TrashRoots, TrashStamp, TrashedItem, list_trash_in, trash_stamp};
use ferry_core::sort::{self, Direction, SortKey, SortSpec};

/// The longest name or folder (in bytes) that takes part in sorting; the rest of a longer one
/// (only a forged info file has one) does not change its place.
const SORT_BYTES: usize = 4096;

/// A column of the Trash view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Column {
    /// The item's name.
    Name,
    /// The folder it was deleted from.
    Location,
    /// When it was deleted.
    Deleted,
    /// Its size (a folder's: of everything in it).
    Size,
}

/// How the view is sorted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Sort {
    /// By what.
    pub column: Column,
    /// Which way.
    pub direction: Direction,
}

impl Default for Sort {
    /// The most recently deleted first, as a trash is mostly looked into for what just went.
    fn default() -> Self {
        Sort {
            column: Column::Deleted,
            direction: Direction::Descending,
        }
    }
}

impl Sort {
    /// The sort after a click on `column`'s header: the other way round if it is the sorted
    /// column, else by it, ascending.
    pub fn clicked(self, column: Column) -> Sort {
        if self.column == column {
            let direction = match self.direction {
                Direction::Ascending => Direction::Descending,
                Direction::Descending => Direction::Ascending,
            };
            Sort { column, direction }
        } else {
            Sort {
                column,
                direction: Direction::Ascending,
            }
        }
    }
}

/// The trash as listed, with its sort ranks.
pub struct Loaded {
    items: Vec<TrashedItem>,
    /// The names as a listing, for the icons (kind and extension).
    names: entry::Listing,
    name_rank: Vec<u32>,
    location_rank: Vec<u32>,
    total_size: u64,
    /// How the trash folders stood just before they were read: the view reads them again
    /// when they stand otherwise (another program trashed or restored something).
    pub stamp: TrashStamp,
}

impl fmt::Debug for Loaded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Loaded")
            .field("items", &self.items.len())
            .field("total_size", &self.total_size)
            .finish_non_exhaustive()
    }
}

/// Reads the trash of `roots` (blocking: run it on a worker thread).
pub fn load(roots: &TrashRoots) -> ferry_core::Result<Loaded> {
    let stamp = trash_stamp(roots);
    let mut loaded = list_trash_in(roots).map(Loaded::new)?;
    loaded.stamp = stamp;
    Ok(loaded)
}

impl Loaded {
    /// Computes the sort ranks of `items` (the collation of every name and folder).
    pub fn new(items: Vec<TrashedItem>) -> Loaded {
        let mut names = entry::Listing::with_capacity(PathBuf::new(), items.len(), 0);
        let mut locations = entry::Listing::with_capacity(PathBuf::new(), items.len(), 0);
        for item in &items {
            let meta = Meta {
                kind: item.kind,
                size: item.size,
                mtime_sec: item.mtime.sec,
                ..Meta::default()
            };
            names.push(clipped(&item.name), meta);
            let folder = item.original.parent().unwrap_or(Path::new(""));
            locations.push(clipped(folder.as_os_str()), Meta::default());
        }
        let total_size = items.iter().map(|i| i.size).fold(0, u64::saturating_add);
        Loaded {
            name_rank: ranks(&names),
            location_rank: ranks(&locations),
            names,
            items,
            total_size,
            stamp: TrashStamp::default(),
        }
    }

    /// The items, in the order they were listed.
    pub fn items(&self) -> &[TrashedItem] {
        &self.items
    }

    /// Item `index`.
    pub fn item(&self, index: u32) -> Option<&TrashedItem> {
        self.items.get(index as usize)
    }

    /// Item `index` as an entry, for its icon.
    pub fn entry(&self, index: u32) -> Option<entry::EntryRef<'_>> {
        self.names.get(index as usize)
    }

    /// How many items there are.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// True when the trash is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The size of everything in the trash.
    pub fn total_size(&self) -> u64 {
        self.total_size
    }

    /// The display order under `sort`: item indices, ties broken by name, then by folder and
    /// by name in the trash, which is unique: the order is total, and the same however the
    /// trash folders list their entries.
    pub fn order(&self, sort: Sort) -> Vec<u32> {
        let mut order: Vec<u32> = (0..self.items.len())
            .map(|i| u32::try_from(i).expect("fewer than 2^32 trashed items"))
            .collect();
        let by = |a: &u32, b: &u32| -> Ordering {
            let (x, y) = (*a as usize, *b as usize);
            let first = match sort.column {
                Column::Name => Ordering::Equal,
                Column::Location => self.location_rank[x].cmp(&self.location_rank[y]),
                Column::Deleted => self.deleted(x).cmp(&self.deleted(y)),
                Column::Size => self.items[x].size.cmp(&self.items[y].size),
            };
            let ordering = first.then(self.name_rank[x].cmp(&self.name_rank[y]));
            match sort.direction {
                Direction::Ascending => ordering,
                Direction::Descending => ordering.reverse(),
            }
            .then(self.location_rank[x].cmp(&self.location_rank[y]))
            .then_with(|| self.items[x].file.cmp(&self.items[y].file))
        };
        order.sort_unstable_by(by);
        order
    }

    /// The deletion time for sorting: the date as written when it cannot be read (it is
    /// ISO 8601, so it sorts as text), before every readable one.
    fn deleted(&self, index: usize) -> (Option<i64>, &str) {
        let item = &self.items[index];
        (item.deleted_at, &item.deletion_date)
    }
}

/// At most [`SORT_BYTES`] of `name`.
fn clipped(name: &OsStr) -> &OsStr {
    let bytes = name.as_bytes();
    OsStr::from_bytes(&bytes[..bytes.len().min(SORT_BYTES)])
}

/// Each entry's place in the natural order of `listing`'s names, one name one rank: which
/// of two alike comes first is for [`Loaded::order`] to say, not the order they were listed.
fn ranks(listing: &entry::Listing) -> Vec<u32> {
    let spec = SortSpec {
        key: SortKey::Name,
        direction: Direction::Ascending,
        folders_first: false,
    };
    let name = |index: u32| listing.get(index as usize).map(|e| e.name_bytes());
    let mut rank = vec![0; listing.len()];
    let mut previous = None;
    let mut place = 0;
    for (position, &index) in sort::sorted_order(listing, spec).iter().enumerate() {
        if previous.is_some_and(|p| name(p) != name(index)) {
            place = u32::try_from(position).expect("fewer than 2^32 trashed items");
        }
        rank[index as usize] = place;
        previous = Some(index);
    }
    rank
}
