//! Which entries are selected, which one has the keyboard focus and where a Shift range starts.
//!
//! Everything is stored as entry indices of the current listing (not row positions, which
//! change with sorting and the hidden filter). When the listing is replaced by a live update,
//! [`Selection::carry_over`] maps the selection to the new listing by name.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use ferry_core::entry::Listing;

/// The selection state of one folder view.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    selected: HashSet<u32>,
    /// Where a Shift range starts.
    anchor: Option<u32>,
    /// The entry the keyboard acts on (Enter, arrows).
    focus: Option<u32>,
    /// Changes whenever `selected` may have: what is worked out from the selection (its size
    /// in the status bar) is kept until then, not done again at every frame.
    stamp: u64,
}

/// Equal when the same entries are selected, with the same anchor and focus.
impl PartialEq for Selection {
    fn eq(&self, other: &Self) -> bool {
        (&self.selected, self.anchor, self.focus) == (&other.selected, other.anchor, other.focus)
    }
}

impl Eq for Selection {}

/// A stamp no selection had before.
fn new_stamp() -> u64 {
    static STAMPS: AtomicU64 = AtomicU64::new(1);
    STAMPS.fetch_add(1, Relaxed)
}

impl Selection {
    /// Which state of the selected set this is: it differs after any change to it.
    pub fn stamp(&self) -> u64 {
        self.stamp
    }

    /// Number of selected entries.
    pub fn count(&self) -> usize {
        self.selected.len()
    }

    /// True when `entry` is selected.
    pub fn contains(&self, entry: u32) -> bool {
        self.selected.contains(&entry)
    }

    /// The focused entry.
    pub fn focus(&self) -> Option<u32> {
        self.focus
    }

    /// The anchor of a Shift range (falls back to the focus).
    pub fn anchor(&self) -> Option<u32> {
        self.anchor.or(self.focus)
    }

    /// The selected entries, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.selected.iter().copied()
    }

    /// Selects `entry` alone and focuses it (a plain click or arrow key).
    pub fn select_only(&mut self, entry: u32) {
        self.stamp = new_stamp();
        self.selected.clear();
        self.selected.insert(entry);
        self.anchor = Some(entry);
        self.focus = Some(entry);
    }

    /// Focuses `entry`, the selection and the anchor as they were (Ctrl+arrows).
    pub fn focus_on(&mut self, entry: u32) {
        self.focus = Some(entry);
    }

    /// Adds or removes `entry` and focuses it (Ctrl+click, Ctrl+Space).
    pub fn toggle(&mut self, entry: u32) {
        self.stamp = new_stamp();
        if !self.selected.remove(&entry) {
            self.selected.insert(entry);
        }
        self.anchor = Some(entry);
        self.focus = Some(entry);
    }

    /// Adds `entries` to the selection; `focus`, if any, becomes the focus and the anchor.
    pub fn add(&mut self, entries: impl IntoIterator<Item = u32>, focus: Option<u32>) {
        self.stamp = new_stamp();
        self.selected.extend(entries);
        if focus.is_some() {
            self.anchor = focus;
            self.focus = focus;
        }
    }

    /// Selects the rows between the anchor and `to` (both included) of `rows`, focusing `to`.
    /// `add` keeps what was selected before (Ctrl+Shift). Without an anchor in `rows` the range
    /// starts at `to`.
    pub fn select_range(&mut self, rows: &[u32], anchor_row: Option<usize>, to: usize, add: bool) {
        self.stamp = new_stamp();
        let from = anchor_row.unwrap_or(to);
        let (lo, hi) = if from <= to { (from, to) } else { (to, from) };
        if !add {
            self.selected.clear();
        }
        self.selected.extend(rows[lo..=hi].iter().copied());
        if self.anchor.is_none() || anchor_row.is_none() {
            self.anchor = rows.get(from).copied();
        }
        self.focus = rows.get(to).copied();
    }

    /// Selects every row in `rows`, keeping the focus.
    pub fn select_all(&mut self, rows: &[u32]) {
        self.stamp = new_stamp();
        self.selected.clear();
        self.selected.extend(rows.iter().copied());
    }

    /// Selects the rows of `rows` that were not selected and deselects the others, keeping the
    /// focus (Ctrl+Shift+I).
    pub fn invert(&mut self, rows: &[u32]) {
        self.stamp = new_stamp();
        let before = std::mem::take(&mut self.selected);
        self.selected = rows
            .iter()
            .copied()
            .filter(|e| !before.contains(e))
            .collect();
        self.anchor = None;
    }

    /// `base`'s selection and `more` (a rubber band over `base`), focusing `focus`.
    pub fn with_band(
        base: &Selection,
        more: impl IntoIterator<Item = u32>,
        focus: Option<u32>,
    ) -> Selection {
        let mut selected = base.selected.clone();
        selected.extend(more);
        Selection {
            selected,
            anchor: focus.or(base.anchor),
            focus: focus.or(base.focus),
            stamp: new_stamp(),
        }
    }

    /// Forgets the selection but keeps the focus where it was.
    pub fn clear(&mut self) {
        self.stamp = new_stamp();
        self.selected.clear();
        self.anchor = None;
    }

    /// Keeps only the entries for which `keep` holds (e.g. not hidden).
    pub fn retain(&mut self, keep: impl Fn(u32) -> bool) {
        self.stamp = new_stamp();
        self.selected.retain(|&e| keep(e));
        self.anchor = self.anchor.filter(|&e| keep(e));
        self.focus = self.focus.filter(|&e| keep(e));
    }

    /// The same selection expressed in `new`'s indices: entries are matched by name; those
    /// gone from `new` are dropped.
    ///
    /// Most entries keep their index across a live change (the core removes by swapping the
    /// last entry in and appends new ones), so each is first checked at its old index; only
    /// the ones that moved are looked up, in one pass over `new`.
    pub fn carry_over(&self, old: &Listing, new: &Listing) -> Selection {
        if std::ptr::eq(old, new) {
            return self.clone();
        }
        let name = |e: u32| old.get(e as usize).map(|entry| entry.name_bytes());
        let stayed = |e: u32| {
            name(e).is_some_and(|n| new.get(e as usize).is_some_and(|m| m.name_bytes() == n))
        };
        let all = || {
            self.selected
                .iter()
                .chain(&self.anchor)
                .chain(&self.focus)
                .copied()
        };
        let moved: HashSet<&[u8]> = all().filter(|&e| !stayed(e)).filter_map(name).collect();
        let mut found: HashMap<&[u8], u32> = HashMap::with_capacity(moved.len());
        if !moved.is_empty() {
            for (index, entry) in new.iter().enumerate() {
                if moved.contains(entry.name_bytes()) {
                    found.insert(entry.name_bytes(), index_u32(index));
                    if found.len() == moved.len() {
                        break;
                    }
                }
            }
        }
        let map = |e: u32| {
            if stayed(e) {
                Some(e)
            } else {
                name(e).and_then(|n| found.get(n).copied())
            }
        };
        Selection {
            selected: self.selected.iter().filter_map(|&e| map(e)).collect(),
            anchor: self.anchor.and_then(map),
            focus: self.focus.and_then(map),
            stamp: new_stamp(),
        }
    }
}

/// Entry indices are `u32` in the core's order vectors; a listing never holds 2^32 entries.
pub fn index_u32(index: usize) -> u32 {
    u32::try_from(index).expect("a listing holds fewer than 2^32 entries")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferry_core::entry::Meta;
    use std::ffi::OsStr;
    use std::path::PathBuf;

    fn listing(names: &[&str]) -> Listing {
        let mut listing = Listing::new(PathBuf::from("/x"));
        for name in names {
            listing.push(OsStr::new(name), Meta::default());
        }
        listing
    }

    #[test]
    fn click_ctrl_click_shift_click() {
        let rows = [4, 2, 0, 1, 3];
        let mut s = Selection::default();
        s.select_only(2); // row 1
        s.toggle(1); // row 3
        assert_eq!(s.count(), 2);
        s.toggle(1);
        assert!(!s.contains(1));
        // Shift from the anchor (entry 1, row 3) down to row 4.
        s.select_only(2);
        s.select_range(&rows, Some(1), 4, false);
        let mut got: Vec<u32> = s.iter().collect();
        got.sort_unstable();
        assert_eq!(got, vec![0, 1, 2, 3]);
        assert_eq!(s.focus(), Some(3));
        assert_eq!(
            s.anchor(),
            Some(2),
            "the anchor stays where the range started"
        );
        // Shift back above the anchor: the range flips, and the old part is dropped.
        s.select_range(&rows, Some(1), 0, false);
        let mut got: Vec<u32> = s.iter().collect();
        got.sort_unstable();
        assert_eq!(got, vec![2, 4]);
    }

    #[test]
    fn carry_over_matches_by_name() {
        let old = listing(&["a", "b", "c", "d"]);
        let mut s = Selection::default();
        s.select_only(1); // b
        s.toggle(3); // d, focused
        // "b" removed, "e" added, order shuffled.
        let new = listing(&["d", "e", "a", "c"]);
        let carried = s.carry_over(&old, &new);
        assert_eq!(carried.iter().collect::<Vec<_>>(), vec![0]);
        assert_eq!(carried.focus(), Some(0));
    }

    #[test]
    fn carry_over_keeps_entries_that_stayed_in_place() {
        let old = listing(&["a", "b", "c", "d"]);
        let mut s = Selection::default();
        s.select_only(1); // b
        s.toggle(3); // d
        assert_eq!(s.carry_over(&old, &old), s);
        assert_eq!(s.carry_over(&old, &old.clone()), s);
        // What the core does on a delete: "d" moves into "a"'s slot, "b" stays.
        let mut new = old.clone();
        new.remove(0);
        let carried = s.carry_over(&old, &new);
        let mut got: Vec<u32> = carried.iter().collect();
        got.sort_unstable();
        assert_eq!(got, vec![0, 1]);
        assert_eq!(carried.focus(), Some(0));
    }

    #[test]
    fn invert_and_rubber_band() {
        let rows = [0, 1, 2, 3];
        let mut s = Selection::default();
        s.select_only(1);
        s.toggle(2);
        s.invert(&rows);
        let mut got: Vec<u32> = s.iter().collect();
        got.sort_unstable();
        assert_eq!(got, vec![0, 3]);
        let band = Selection::with_band(&s, [1, 2], Some(2));
        assert_eq!(band.count(), 4);
        assert_eq!(band.focus(), Some(2));
        assert_eq!(s.count(), 2, "the base is kept for the next move");
    }

    #[test]
    fn retain_drops_filtered_entries() {
        let mut s = Selection::default();
        s.select_only(5);
        s.toggle(6);
        s.retain(|e| e != 6);
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![5]);
        assert_eq!(s.focus(), None);
    }
}
