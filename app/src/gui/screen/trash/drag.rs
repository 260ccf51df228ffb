//! Dragging trashed items out of the view: a drop on a place or a tab restores them into
//! that folder (as "Restore to…" does), the way Dolphin restores what is dragged out of
//! `trash:/`. The window runs the drag (see `gui/drag.rs`); the view says which items go and
//! makes the restore job when they are dropped.

use std::path::{Path, PathBuf};

use ferry_core::jobs::{ConflictPolicy, Job, TrashedItem};
use iced::keyboard::Modifiers;

use super::{Event, ItemRef, Trash};
use crate::gui::format::{self, Category};

/// The items of a drag out of the view, from its start to its drop.
#[derive(Debug, Default)]
pub(super) struct Dragging {
    /// A press on an item already selected (with others) without modifiers: it is selected
    /// alone on release, unless the press became a drag of the whole selection.
    pub select_on_release: Option<u32>,
    /// What is being dragged.
    pub items: Option<Vec<TrashedItem>>,
}

impl Trash {
    /// A press on row `at`: as a click, except that a press on the selection keeps it (it may
    /// be dragged). The window arms a drag ([`Event::Pressed`]) for a press without
    /// modifiers.
    pub(super) fn row_pressed(&mut self, at: ItemRef, modifiers: Modifiers) -> Option<Event> {
        let plain = !modifiers.shift() && !modifiers.command();
        if plain && self.is_current(at) && self.selection.contains(at.item) {
            self.dragging.select_on_release = Some(at.item);
        } else {
            self.press(at, modifiers);
        }
        plain.then_some(Event::Pressed)
    }

    /// The pointer moved far enough with the button held: the selection's items that can be
    /// acted on are dragged. Their files in the trash and the first one's kind, for the
    /// badge; `None` when nothing can go.
    pub fn start_drag(&mut self) -> Option<(Vec<PathBuf>, Category)> {
        self.dragging.select_on_release = None;
        let items = self.actionable_items();
        if items.is_empty() {
            return None;
        }
        let loaded = self.loaded()?;
        let category = (self.order.iter())
            .find(|&&i| self.selection.contains(i))
            .and_then(|&i| loaded.entry(i))
            .map_or(Category::Other, format::category);
        let files = items.iter().map(|item| item.file.clone()).collect();
        self.dragging.items = Some(items);
        Some((files, category))
    }

    /// The button was released: a press that did not become a drag selects its item alone.
    pub(super) fn released(&mut self) {
        if let Some(item) = self.dragging.select_on_release.take() {
            self.selection.select_only(item);
        }
    }

    /// The drag ended without a drop.
    pub(super) fn drag_cancelled(&mut self) {
        self.dragging = Dragging::default();
    }

    /// The dragged items were dropped on `folder`: they are restored into it.
    pub(super) fn dropped_into(&mut self, folder: &Path) -> Option<Event> {
        let items = self.dragging.items.take()?;
        let job = Job::Restore {
            items: items.iter().map(|item| item.restore_to(folder)).collect(),
            on_conflict: ConflictPolicy::Ask,
        };
        self.submit(&items, job)
    }
}
