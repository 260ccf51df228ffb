//! What a browser shows for its folder: the [`Listing`] state and the rows derived from it.

use std::path::PathBuf;
use std::sync::Arc;

use ferry_core::Error;
use ferry_core::entry::{self, EntryRef};

use super::selection::index_u32;

/// The state of the shown folder.
#[derive(Debug, Clone)]
pub enum Listing {
    /// Entries are arriving in batches; shown in arrival order until the sorted listing comes.
    Loading(Contents),
    /// Complete and sorted; kept current by the watcher.
    Loaded(Contents),
    /// The folder could not be listed (permission denied, not found, ...).
    Failed(Arc<Error>),
}

impl Listing {
    /// The entries shown, unless listing failed.
    pub fn contents(&self) -> Option<&Contents> {
        match self {
            Listing::Loading(contents) | Listing::Loaded(contents) => Some(contents),
            Listing::Failed(_) => None,
        }
    }
}

/// A folder's entries, their display order and the rows actually shown (the order minus
/// hidden entries unless they are shown, minus what the filter leaves out), with counters
/// kept so `view` never walks them.
#[derive(Debug, Clone)]
pub struct Contents {
    entries: Arc<entry::Listing>,
    /// The sorted order from the core; `None` while loading (arrival order).
    order: Option<Arc<[u32]>>,
    rows: Vec<u32>,
    /// Folders among `rows`.
    folders: usize,
    /// Entries left out of `rows` because they are hidden.
    hidden: usize,
    /// Of those, items a job of Ferry's is making under a temporary name (`.ferry-tmp-…`):
    /// what a copy or move puts here shows once it is complete.
    unfinished: usize,
    /// Entries left out because they do not match the filter.
    filtered_out: usize,
    /// Only names containing this are shown.
    filter: Option<Filter>,
    /// Hidden entries are shown.
    show_hidden: bool,
}

/// A case-insensitive substring a name must contain to be shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    /// The text as typed.
    typed: String,
    /// Lower case, for the comparison.
    lower: String,
}

impl Filter {
    /// A filter for `typed`; `None` when it is empty (everything shows).
    pub fn new(typed: &str) -> Option<Filter> {
        (!typed.is_empty()).then(|| Filter {
            typed: typed.to_owned(),
            lower: typed.to_lowercase(),
        })
    }

    /// The text as typed.
    pub fn text(&self) -> &str {
        &self.typed
    }

    /// True when `name` contains the filter's text, ignoring case.
    pub fn matches(&self, name: &[u8]) -> bool {
        contains_ignoring_case(name, &self.lower)
    }
}

/// True when `name` contains `lower` (already lower case), ignoring case. Bytes are compared
/// directly when the needle is ASCII, the common case, so a 200,000-entry folder is scanned
/// without an allocation per name.
pub fn contains_ignoring_case(name: &[u8], lower: &str) -> bool {
    if lower.is_ascii() {
        let needle = lower.as_bytes();
        return needle.is_empty()
            || name
                .windows(needle.len())
                .any(|w| w.eq_ignore_ascii_case(needle));
    }
    String::from_utf8_lossy(name).to_lowercase().contains(lower)
}

/// True when `name` starts with `lower` (already lower case), ignoring case.
pub fn starts_ignoring_case(name: &[u8], lower: &str) -> bool {
    if lower.is_ascii() {
        let needle = lower.as_bytes();
        return name.len() >= needle.len() && name[..needle.len()].eq_ignore_ascii_case(needle);
    }
    String::from_utf8_lossy(name)
        .to_lowercase()
        .starts_with(lower)
}

impl Contents {
    /// Nothing yet: the start of a load.
    pub fn empty(dir: PathBuf) -> Self {
        Self::unsorted(Arc::new(entry::Listing::new(dir)), true)
    }

    /// A partial listing in arrival order.
    pub fn unsorted(entries: Arc<entry::Listing>, show_hidden: bool) -> Self {
        let mut contents = Self {
            entries,
            order: None,
            rows: Vec::new(),
            folders: 0,
            hidden: 0,
            unfinished: 0,
            filtered_out: 0,
            filter: None,
            show_hidden,
        };
        contents.set_show_hidden(show_hidden);
        contents
    }

    /// A complete listing in the core's sorted `order`, filtered by `filter`.
    pub fn sorted(
        entries: Arc<entry::Listing>,
        order: Arc<[u32]>,
        show_hidden: bool,
        filter: Option<Filter>,
    ) -> Self {
        Self::sorted_into(entries, order, show_hidden, filter, Vec::new())
    }

    /// [`sorted`](Self::sorted), its rows built in `rows` (the buffer of the listing it
    /// replaces: a folder of 100,000 changing during a paste allocates no new 400 kB a change).
    pub fn sorted_into(
        entries: Arc<entry::Listing>,
        order: Arc<[u32]>,
        show_hidden: bool,
        filter: Option<Filter>,
        rows: Vec<u32>,
    ) -> Self {
        let mut contents = Self {
            entries,
            order: Some(order),
            rows,
            folders: 0,
            hidden: 0,
            unfinished: 0,
            filtered_out: 0,
            filter,
            show_hidden,
        };
        contents.set_show_hidden(show_hidden);
        contents
    }

    /// Shows only names containing `filter` (all with `None`); one pass over the order.
    pub fn set_filter(&mut self, filter: Option<Filter>, show_hidden: bool) {
        self.filter = filter;
        self.set_show_hidden(show_hidden);
    }

    /// The filter in force.
    pub fn filter(&self) -> Option<&Filter> {
        self.filter.as_ref()
    }

    /// Appends a batch of a streaming listing; existing rows keep their positions.
    pub fn append(&mut self, batch: &entry::Listing, show_hidden: bool) {
        debug_assert!(self.order.is_none(), "only partial listings grow");
        let start = self.entries.len();
        Arc::make_mut(&mut self.entries).append(batch);
        for index in start..self.entries.len() {
            self.admit(index_u32(index), show_hidden);
        }
    }

    /// Rebuilds the rows with or without hidden entries (one pass over the order).
    ///
    /// A folder changing while a paste of 100,000 files goes into it is rebuilt at every
    /// change: with no filter, the counts are taken first in the listing's own order (through
    /// its memory front to back, 4x faster than in the sorted order when the copy's threads
    /// crowd the caches), and when nothing is left out the rows are the sorted order as is.
    pub fn set_show_hidden(&mut self, show_hidden: bool) {
        self.show_hidden = show_hidden;
        self.rows.clear();
        self.folders = 0;
        self.hidden = 0;
        self.unfinished = 0;
        self.filtered_out = 0;
        let order = self.order.clone();
        match order {
            Some(order) if self.filter.is_none() => {
                let (mut hidden, mut folders) = (0, 0);
                for entry in self.entries.iter() {
                    if !show_hidden && entry.is_hidden() {
                        hidden += 1;
                    } else {
                        folders += usize::from(entry.is_dir_like());
                    }
                }
                if hidden == 0 {
                    self.rows.extend_from_slice(&order);
                    self.folders = folders;
                } else {
                    order.iter().for_each(|&e| self.admit(e, show_hidden));
                }
            }
            Some(order) => order.iter().for_each(|&e| self.admit(e, show_hidden)),
            None => (0..self.entries.len()).for_each(|e| self.admit(index_u32(e), show_hidden)),
        }
    }

    fn admit(&mut self, index: u32, show_hidden: bool) {
        let entry = self.entries.entry(index as usize);
        if !show_hidden && entry.is_hidden() {
            self.hidden += 1;
            let prefix = ferry_core::jobs::TEMPORARY_PREFIX.as_bytes();
            self.unfinished += usize::from(entry.name_bytes().starts_with(prefix));
        } else if self
            .filter
            .as_ref()
            .is_some_and(|f| !f.matches(entry.name_bytes()))
        {
            self.filtered_out += 1;
        } else {
            self.folders += usize::from(entry.is_dir_like());
            self.rows.push(index);
        }
    }

    /// Hands over the rows' buffer (emptied), for the listing that replaces this one.
    pub fn take_rows(&mut self) -> Vec<u32> {
        let mut rows = std::mem::take(&mut self.rows);
        rows.clear();
        rows
    }

    /// The entries, shared: kept past the next listing (see `service.rs`).
    pub fn shared_entries(&self) -> Arc<entry::Listing> {
        Arc::clone(&self.entries)
    }

    /// The core's listing behind the rows.
    pub fn entries(&self) -> &entry::Listing {
        &self.entries
    }

    /// Shown entries as indices into [`Contents::entries`], in display order.
    pub fn rows(&self) -> &[u32] {
        &self.rows
    }

    /// The entry shown at `row`, with its index.
    pub fn row(&self, row: usize) -> Option<(u32, EntryRef<'_>)> {
        let index = *self.rows.get(row)?;
        Some((index, self.entries.entry(index as usize)))
    }

    /// True when entry `index` is among the rows (from the entry alone: no search).
    pub fn shows(&self, index: u32) -> bool {
        self.entries.get(index as usize).is_some_and(|entry| {
            (self.show_hidden || !entry.is_hidden())
                && self
                    .filter
                    .as_ref()
                    .is_none_or(|f| f.matches(entry.name_bytes()))
        })
    }

    /// The row showing entry `index`, if shown (a linear search: call on input, not per frame).
    pub fn row_of(&self, index: u32) -> Option<usize> {
        self.rows.iter().position(|&e| e == index)
    }

    /// The row showing the entry called `name`, if shown.
    pub fn row_named(&self, name: &[u8]) -> Option<usize> {
        self.rows
            .iter()
            .position(|&e| self.entries.entry(e as usize).name_bytes() == name)
    }

    /// Folders among the shown rows.
    pub fn folders(&self) -> usize {
        self.folders
    }

    /// Entries not shown because they are hidden.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// Hidden entries that are items a job of Ferry's is making (or a stopped one left).
    pub fn unfinished(&self) -> usize {
        self.unfinished
    }

    /// Entries the filter leaves out.
    pub fn filtered_out(&self) -> usize {
        self.filtered_out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferry_core::entry::{Kind, Meta};
    use std::ffi::OsStr;

    fn batch(names: &[&str]) -> entry::Listing {
        let mut listing = entry::Listing::new(PathBuf::from("/x"));
        for name in names {
            let kind = if name.ends_with('/') {
                Kind::Dir
            } else {
                Kind::File
            };
            listing.push(
                OsStr::new(name.trim_end_matches('/')),
                Meta {
                    kind,
                    ..Meta::default()
                },
            );
        }
        listing
    }

    #[test]
    fn batches_append_and_hidden_entries_are_counted_not_shown() {
        let mut contents = Contents::empty(PathBuf::from("/x"));
        contents.set_show_hidden(false);
        contents.append(&batch(&["b", ".hidden", "dir/"]), false);
        contents.append(&batch(&["a"]), false);
        assert_eq!(contents.rows(), &[0, 2, 3]);
        assert_eq!((contents.folders(), contents.hidden()), (1, 1));
        contents.set_show_hidden(true);
        assert_eq!(contents.rows(), &[0, 1, 2, 3]);
        assert_eq!(contents.hidden(), 0);
    }

    #[test]
    fn a_sorted_listing_keeps_its_order_and_counts_with_hidden_entries_or_without() {
        let entries = Arc::new(batch(&["b", "dir/", "a", "zdir/"]));
        let order: Arc<[u32]> = Arc::from([2, 0, 1, 3]);
        let contents = Contents::sorted(Arc::clone(&entries), Arc::clone(&order), false, None);
        assert_eq!(
            contents.rows(),
            &[2, 0, 1, 3],
            "nothing hidden: the order as is"
        );
        assert_eq!((contents.folders(), contents.hidden()), (2, 0));
        let with_hidden = Arc::new(batch(&["b", ".dir/", "a", "zdir/"]));
        let mut contents = Contents::sorted(Arc::clone(&with_hidden), order, false, None);
        assert_eq!(contents.rows(), &[2, 0, 3]);
        assert_eq!((contents.folders(), contents.hidden()), (1, 1));
        contents.set_show_hidden(true);
        assert_eq!(contents.rows(), &[2, 0, 1, 3]);
        assert_eq!((contents.folders(), contents.hidden()), (2, 0));
    }

    #[test]
    fn the_filter_narrows_the_rows_ignoring_case() {
        let entries = Arc::new(batch(&[
            "Report.PDF",
            "notes",
            ".hidden-report",
            "Ärger.txt",
        ]));
        let mut contents = Contents::sorted(entries, Arc::from([0, 1, 2, 3]), false, None);
        contents.set_filter(Filter::new("REP"), false);
        assert_eq!(contents.rows(), &[0]);
        assert_eq!((contents.hidden(), contents.filtered_out()), (1, 2));
        contents.set_filter(Filter::new("är"), false);
        assert_eq!(contents.rows(), &[3], "non-ASCII folds too");
        contents.set_filter(None, true);
        assert_eq!(contents.rows().len(), 4);
        assert!(starts_ignoring_case(b"Documents", "doc"));
        assert!(!starts_ignoring_case(b"Do", "doc"));
    }

    #[test]
    fn sorted_rows_follow_the_order() {
        let entries = Arc::new(batch(&["b", ".h", "a/"]));
        let contents = Contents::sorted(entries, Arc::from([2, 1, 0]), false, None);
        assert_eq!(contents.rows(), &[2, 0]);
        assert_eq!(contents.row_of(0), Some(1));
        assert_eq!(contents.row_named(b"a"), Some(0));
        assert_eq!(
            contents.row(1).map(|(i, e)| (i, e.name_bytes())),
            Some((0, &b"b"[..]))
        );
    }
}
