//! What the pointer and the keyboard do in the Trash view: clicks with modifiers, moving the
//! focus, the keys of the view, and the context menu's entries.

use ferry_core::sort::Direction;
use iced::keyboard::key::Named;
use iced::keyboard::{Key, Modifiers};
use iced::widget::operation::{self, AbsoluteOffset};
use iced::{Point, Task};

use super::loaded::{Column, Sort};
use super::{Event, ItemRef, Message, ROW_HEIGHT, Trash, list_id};
use crate::gui::modal::folder_prompt;
use crate::gui::shortcut::Step;
use crate::gui::widget::context_menu::Entry;
use crate::gui::widget::list::top_of;

/// The Trash view's own keys, for the Keyboard Shortcuts dialog (each is checked against
/// [`Trash::key`] by a test).
pub const KEYS: &[(&str, &str)] = &[
    ("Restore", "Alt+R"),
    ("Restore to…", "Alt+T"),
    ("Copy (pasted, copied out of the trash)", "Ctrl+C"),
    ("Cut (pasted, restored there)", "Ctrl+X"),
    ("Delete permanently", "Delete"),
    ("Empty the trash", "Alt+E"),
    ("Select all", "Ctrl+A"),
    ("Select or unselect one item", "Ctrl+Space"),
    ("Read the trash again", "F5, Ctrl+R"),
    ("Context menu", "Menu, Shift+F10"),
];

impl Trash {
    /// What a key does in the view (the window routes keys here while it is shown): the
    /// arrows, Page Up/Down, Home and End move the focus (Shift extends the selection; Ctrl
    /// with an arrow, Home or End keeps it as it is), Ctrl+Space selects or deselects the
    /// focused item, Ctrl+A selects all, Escape selects nothing,
    /// Delete or Shift+Delete deletes permanently, Alt+R restores, Alt+T restores to…, Alt+E
    /// empties the trash, the menu key or Shift+F10 opens the context menu, F5 or Ctrl+R reads
    /// the trash again.
    pub fn key(&mut self, key: &Key, modifiers: Modifiers) -> Option<Message> {
        // Restore to…'s folder prompt is modal: its field has the keys, but for Escape and
        // Tab (which completes the folder name).
        if self.asks_folder() {
            return folder_prompt::key(key, modifiers).map(Message::Folder);
        }
        let shift = modifiers.shift();
        // As in folders, where Ctrl+Page Up/Down are the tab keys: no focus-only page move.
        let paging = |step| matches!(step, Step::PageUp | Step::PageDown);
        let step = |step| match modifiers.command() && !shift && !paging(step) {
            true => Some(Message::StepFocus(step)),
            false => Some(Message::Step(step, shift)),
        };
        match key.as_ref() {
            Key::Named(Named::Escape) => Some(Message::ClearSelection),
            Key::Named(Named::ArrowUp) => step(Step::Up),
            Key::Named(Named::ArrowDown) => step(Step::Down),
            Key::Named(Named::PageUp) => step(Step::PageUp),
            Key::Named(Named::PageDown) => step(Step::PageDown),
            Key::Named(Named::Home) => step(Step::First),
            Key::Named(Named::End) => step(Step::Last),
            Key::Named(Named::Space) if modifiers.command() => Some(Message::ToggleFocused),
            Key::Named(Named::Delete) => Some(Message::DeletePermanently),
            Key::Named(Named::ContextMenu) => Some(Message::MenuKey),
            Key::Named(Named::F10) if shift => Some(Message::MenuKey),
            Key::Named(Named::F5) => Some(Message::Reload),
            Key::Character(c) if modifiers.command() && !modifiers.alt() => {
                match c.to_ascii_lowercase().as_str() {
                    "a" => Some(Message::SelectAll),
                    "r" => Some(Message::Reload),
                    "c" if !shift => Some(Message::Copy),
                    "x" => Some(Message::Cut),
                    _ => None,
                }
            }
            Key::Character(c) if modifiers.alt() && !modifiers.command() => {
                match c.to_ascii_lowercase().as_str() {
                    "r" => Some(Message::Restore),
                    "t" => Some(Message::RestoreTo),
                    "e" => Some(Message::EmptyTrash),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The context menu's entries, after [`Event::ContextMenu`]: for the selected items, or
    /// for the view.
    pub fn menu(&self, on_items: bool) -> Vec<Entry<Message>> {
        let when = |yes: bool, message: Message| yes.then_some(message);
        let item = |label: &str, shortcut: &'static str, message: Option<Message>| Entry::Item {
            label: label.to_owned(),
            shortcut: Some(shortcut),
            checked: false,
            message,
        };
        if on_items {
            let (safe, all) = self.actionable();
            let one_place = self
                .focused_item()
                .is_some_and(|i| i.unsafe_entry.is_none());
            let open = Entry::Item {
                label: "Open Original Folder".to_owned(),
                shortcut: None,
                checked: false,
                message: when(one_place, Message::OpenOriginalFolder),
            };
            vec![
                item("Restore", "Alt+R", when(safe > 0, Message::Restore)),
                item("Restore to…", "Alt+T", when(all > 0, Message::RestoreTo)),
                open,
                Entry::Separator,
                item("Cut", "Ctrl+X", when(all > 0, Message::Cut)),
                item("Copy", "Ctrl+C", when(all > 0, Message::Copy)),
                Entry::Separator,
                item(
                    "Delete Permanently",
                    "Delete",
                    when(all > 0, Message::DeletePermanently),
                ),
            ]
        } else {
            let any = !self.is_empty() && self.loaded().is_some();
            // The headers' sorts, for the keyboard, which cannot reach the headers.
            let sort = self.sort;
            let by = |label: &str, column: Column| Entry::Item {
                label: label.to_owned(),
                shortcut: None,
                checked: sort.column == column,
                message: Some(Message::SortSet(Sort { column, ..sort })),
            };
            let descending = sort.direction == Direction::Descending;
            let reversed = Sort {
                direction: if descending {
                    Direction::Ascending
                } else {
                    Direction::Descending
                },
                ..sort
            };
            vec![
                item("Select All", "Ctrl+A", when(any, Message::SelectAll)),
                item("Reload", "F5", Some(Message::Reload)),
                Entry::Separator,
                Entry::Heading("Sort by"),
                by("Name", Column::Name),
                by("Original Location", Column::Location),
                by("Deleted", Column::Deleted),
                by("Size", Column::Size),
                Entry::Item {
                    label: "Descending".to_owned(),
                    shortcut: None,
                    checked: descending,
                    message: Some(Message::SortSet(reversed)),
                },
                Entry::Separator,
                item("Empty Trash", "Alt+E", when(any, Message::EmptyTrash)),
            ]
        }
    }

    pub(super) fn press(&mut self, at: ItemRef, modifiers: Modifiers) {
        if !self.is_current(at) {
            return;
        }
        if modifiers.shift() {
            let anchor = self
                .selection
                .anchor()
                .map(|e| self.rows_of[e as usize] as usize);
            let to = self.rows_of[at.item as usize] as usize;
            self.selection
                .select_range(&self.order, anchor, to, modifiers.command());
        } else if modifiers.command() {
            self.selection.toggle(at.item);
        } else {
            self.selection.select_only(at.item);
        }
    }

    pub(super) fn step(&mut self, step: Step, extend: bool) -> Task<Message> {
        let Some(row) = self.row_after(step) else {
            return Task::none();
        };
        if extend {
            let anchor = self
                .selection
                .anchor()
                .map(|e| self.rows_of[e as usize] as usize);
            self.selection.select_range(&self.order, anchor, row, false);
        } else {
            self.selection.select_only(self.order[row]);
        }
        self.reveal(row)
    }

    /// A letter typed: the next item whose name starts with what was typed (as in a folder,
    /// and as in Dolphin's `trash:/`; letters did nothing here).
    pub(super) fn type_ahead(&mut self, c: char) -> Task<Message> {
        let Some(search) = self.typed.push(c, std::time::Instant::now()) else {
            return Task::none();
        };
        let Some(loaded) = self.loaded() else {
            return Task::none();
        };
        let current = (self.selection.focus()).map(|e| self.rows_of[e as usize] as usize);
        let name = |row: usize| {
            (loaded.item(self.order[row])).map_or(&b""[..], |item| item.name.as_encoded_bytes())
        };
        let Some(row) = crate::gui::type_ahead::find(self.order.len(), name, current, &search)
        else {
            return Task::none();
        };
        self.selection.select_only(self.order[row]);
        self.reveal(row)
    }

    /// Ctrl+arrows: the focus moves, what is selected stays selected.
    pub(super) fn step_focus(&mut self, step: Step) -> Task<Message> {
        let Some(row) = self.row_after(step) else {
            return Task::none();
        };
        self.selection.focus_on(self.order[row]);
        self.reveal(row)
    }

    /// The row a focus move by `step` lands on, if there is one.
    fn row_after(&self, step: Step) -> Option<usize> {
        let last = self.order.len().checked_sub(1)?;
        let page = self.scroll.page(ROW_HEIGHT);
        let current = self
            .selection
            .focus()
            .map(|e| self.rows_of[e as usize] as usize);
        Some(match (current, step) {
            (_, Step::First) => 0,
            (_, Step::Last) => last,
            (None, _) => 0,
            (Some(row), Step::Up | Step::Left) => row.saturating_sub(1),
            (Some(row), Step::Down | Step::Right) => (row + 1).min(last),
            (Some(row), Step::PageUp) => row.saturating_sub(page),
            (Some(row), Step::PageDown) => (row + page).min(last),
        })
    }

    fn reveal(&mut self, row: usize) -> Task<Message> {
        match self.scroll.reveal(row, ROW_HEIGHT) {
            Some(offset_y) => self.scroll_to(offset_y),
            None => Task::none(),
        }
    }

    /// The listing was read again: the list back within its rows if it shrank (12,000 items
    /// deleted from the bottom of the list left it blank, an unseen item selected), and the
    /// focused item in view if the focus `moved` (its item gone); a list scrolled away from
    /// it stays put.
    pub(super) fn keep_in_view(&mut self, moved: bool) -> Task<Message> {
        let within = self
            .scroll
            .back_within(self.order.len(), ROW_HEIGHT, self.scroll.viewport_h);
        if let Some(offset) = within {
            self.scroll.offset_y = offset;
        }
        let focused = (self.selection.focus())
            .filter(|_| moved)
            .and_then(|e| self.rows_of.get(e as usize));
        match focused.and_then(|&row| self.scroll.reveal(row as usize, ROW_HEIGHT)) {
            Some(offset) => self.scroll_to(offset),
            None => within.map_or_else(Task::none, |offset| self.scroll_to(offset)),
        }
    }

    pub(super) fn scroll_to(&mut self, offset_y: f32) -> Task<Message> {
        self.scroll.offset_y = offset_y;
        operation::scroll_to(
            list_id(),
            AbsoluteOffset {
                x: None,
                y: Some(offset_y),
            },
        )
    }

    pub(super) fn menu_at_focus(&self) -> Option<Event> {
        let focus = self
            .selection
            .focus()
            .filter(|&e| self.selection.contains(e));
        let on_items = self.selection.count() > 0;
        let y = match focus {
            Some(e) => {
                top_of(self.rows_of[e as usize] as usize + 1, ROW_HEIGHT) - self.scroll.offset_y
            }
            None => 0.0,
        };
        let y = y.clamp(0.0, self.scroll.viewport_h);
        let at = Point::new(self.bounds.x + 48.0, self.bounds.y + y);
        Some(Event::ContextMenu { at, on_items })
    }
}
