//! What the pointer and the keyboard do to a pane: clicks with modifiers, the rubber band
//! (with auto-scroll at the edges), resizing columns, moving the focus in either view,
//! type-ahead, and where a menu opened from the keyboard goes.

use std::time::Instant;

use iced::{Point, Rectangle, Task, Vector};

use super::details::{self, Column};
use super::operations::{OnRelease, Press};
use super::{Browser, Event, Message, RowRef, Selection};
use crate::gui::screen::Ctx;
use crate::gui::settings::ViewMode;
use crate::gui::shortcut::Step;
use crate::gui::type_ahead;
use crate::gui::widget::grid::Grid;
use crate::gui::widget::list::top_of;

/// Within this many pixels of the list's top or bottom edge (or past it), a held rubber band
/// scrolls the list.
const EDGE: f32 = 24.0;

/// What was typed for type-ahead, and when.
#[derive(Debug, Default)]
pub(super) struct TypeAhead {
    typed: type_ahead::TypeAhead,
    /// Typed while the folder was still loading (only the rows listed so far were searched),
    /// with the name it left focused: searched again once the folder is complete, unless the
    /// user has moved the focus since.
    early: Option<Option<std::ffi::OsString>>,
}

/// A rubber band being dragged.
#[derive(Debug)]
pub(super) struct Band {
    /// Where it started, in content coordinates (scrolling moves the content, not this).
    start: Point,
    /// Where the pointer is, relative to the list's area.
    pointer: Point,
    /// What was selected before (kept with Ctrl), to which the band adds.
    base: Selection,
}

/// A column edge being dragged.
#[derive(Debug, Clone, Copy)]
pub(super) struct ColumnDrag {
    column: Column,
    grab_x: f32,
    start_width: f32,
}

impl Browser {
    /// The height of one line of the current view: a row, or a row of cells.
    pub(super) fn line_height(&self) -> f32 {
        match self.mode {
            ViewMode::Details => details::row_height(self.details_icon),
            ViewMode::Icons => self.grid().cell_h,
        }
    }

    /// The icon grid for the pane's width.
    pub(super) fn grid(&self) -> Grid {
        let width = self.bounds.width - details::LIST_PAD.left - details::LIST_PAD.right;
        Grid::new(f32::from(self.icon_size), width)
    }

    /// Items per line: 1 in the details view.
    pub(super) fn per_line(&self) -> usize {
        match self.mode {
            ViewMode::Details => 1,
            ViewMode::Icons => self.grid().columns,
        }
    }

    /// A point in the list's area, in content coordinates.
    fn to_content(&self, local: Point) -> Point {
        Point::new(
            local.x - details::LIST_PAD.left,
            local.y + self.scroll.offset_y,
        )
    }

    pub(super) fn press(&mut self, at: RowRef, ctx: &Ctx<'_>) {
        self.editing = None;
        self.press = None;
        if at.revision != self.revision {
            return;
        }
        let Some(contents) = self.listing.contents() else {
            return;
        };
        let Some((entry, _)) = contents.row(at.row) else {
            return;
        };
        if ctx.modifiers.shift() {
            let anchor = self.selection.anchor().and_then(|e| contents.row_of(e));
            let add = ctx.modifiers.command();
            self.selection
                .select_range(contents.rows(), anchor, at.row, add);
        } else if ctx.modifiers.command() && self.selection.contains(entry) {
            self.press = Some(Press::on_item(Some(OnRelease::Deselect(entry))));
            return;
        } else if ctx.modifiers.command() {
            self.selection.toggle(entry);
        } else if self.selection.contains(entry) && self.selection.count() > 1 {
            self.press = Some(Press::on_item(Some(OnRelease::SelectOnly(entry))));
            return;
        } else {
            self.selection.select_only(entry);
        }
        self.press = Some(Press::on_item(None));
    }

    /// A right press on an item selects it, unless it is part of the selection already (the
    /// menu then acts on all of it), as Dolphin and Nautilus do.
    pub(super) fn right_press(&mut self, at: RowRef) {
        if at.revision != self.revision {
            return;
        }
        if let Some((entry, _)) = self.listing.contents().and_then(|c| c.row(at.row))
            && !self.selection.contains(entry)
        {
            self.selection.select_only(entry);
        }
    }

    pub(super) fn start_band(&mut self, local: Point, ctx: &Ctx<'_>) {
        let base = if ctx.modifiers.command() || ctx.modifiers.shift() {
            self.selection.clone()
        } else {
            Selection::default()
        };
        self.selection = base.clone();
        self.band = Some(Band {
            start: self.to_content(local),
            pointer: local,
            base,
        });
    }

    pub(super) fn drag_band(&mut self, local: Point) -> Task<Message> {
        let Some(band) = &mut self.band else {
            return Task::none();
        };
        band.pointer = local;
        self.select_band();
        Task::none()
    }

    /// One step of scrolling while the band is held, or something dragged over the pane is,
    /// at or past an edge.
    pub(super) fn auto_scroll(&mut self) -> Task<Message> {
        let Some(pointer) = self.band.as_ref().map(|b| b.pointer).or(self.drag_over) else {
            return Task::none();
        };
        let y = pointer.y;
        let height = self.scroll.viewport_h.min(self.bounds.height);
        let speed = if y < EDGE {
            -(EDGE - y).min(120.0)
        } else if y > height - EDGE {
            (y - height + EDGE).min(120.0)
        } else {
            return Task::none();
        };
        let Some(contents) = self.listing.contents() else {
            return Task::none();
        };
        let lines = contents.rows().len().div_ceil(self.per_line());
        let max = (top_of(lines, self.line_height()) - height).max(0.0);
        let offset = (self.scroll.offset_y + speed).clamp(0.0, max);
        if (offset - self.scroll.offset_y).abs() < f32::EPSILON {
            return Task::none();
        }
        let task = self.scroll_to(offset);
        self.select_band();
        task
    }

    /// Selects what the band covers, over its base.
    fn select_band(&mut self) {
        let Some(band) = &self.band else {
            return;
        };
        let Some(contents) = self.listing.contents() else {
            return;
        };
        let end = self.to_content(band.pointer);
        let rect = Rectangle::new(
            Point::new(band.start.x.min(end.x), band.start.y.min(end.y)),
            iced::Size::new((band.start.x - end.x).abs(), (band.start.y - end.y).abs()),
        );
        let rows = contents.rows();
        let covered: Vec<usize> = match self.mode {
            ViewMode::Details => {
                let row_h = self.line_height();
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // clamped
                let line = |y: f32| (y.max(0.0) / row_h).floor() as usize;
                if rect.y + rect.height < 0.0 || rows.is_empty() {
                    Vec::new()
                } else {
                    let last = line(rect.y + rect.height).min(rows.len() - 1);
                    (line(rect.y)..=last).collect()
                }
            }
            ViewMode::Icons => self.grid().items_in(rect, rows.len()),
        };
        let focus = covered.last().map(|&row| rows[row]);
        self.selection = Selection::with_band(&band.base, covered.iter().map(|&r| rows[r]), focus);
    }

    /// The band's rectangle relative to the list's area, for drawing.
    pub(super) fn band_rect(&self) -> Option<Rectangle> {
        let band = self.band.as_ref()?;
        let origin = Vector::new(details::LIST_PAD.left, -self.scroll.offset_y);
        let start = band.start + origin;
        let end = band.pointer;
        Some(Rectangle::new(
            Point::new(start.x.min(end.x), start.y.min(end.y)),
            iced::Size::new((start.x - end.x).abs(), (start.y - end.y).abs()),
        ))
    }

    /// The column whose left edge is under `x` (relative to the headers), to resize.
    pub(super) fn column_at(&self, x: f32) -> Option<ColumnDrag> {
        let columns = self.laid_out_columns();
        let column = details::edge_at(self.bounds.width, &columns, x)?;
        Some(ColumnDrag {
            column,
            grab_x: x,
            start_width: column.width(&columns),
        })
    }

    pub(super) fn drag_column(&mut self, x: f32) -> Option<Event> {
        let drag = self.column_drag?;
        // A column grows into the name's room only: grown past it, the type column was
        // left out, with no way back from the header.
        let most = details::widest(self.bounds.width, &self.laid_out_columns(), drag.column)
            .max(drag.start_width)
            .min(480.0);
        let least = drag.column.least();
        let width = (drag.start_width + drag.grab_x - x).clamp(least, most.max(least));
        drag.column.set_width(&mut self.columns, width);
        Some(Event::ColumnsResized(self.columns))
    }

    /// The row of the focused entry, if it is shown.
    pub(super) fn focused_row(&self) -> Option<usize> {
        let focus = self.selection.focus()?;
        self.listing.contents()?.row_of(focus)
    }

    pub(super) fn move_focus(&mut self, step: Step, extend: bool) -> Task<Message> {
        let Some(target) = self.row_after(step) else {
            return Task::none();
        };
        let Some(contents) = self.listing.contents() else {
            return Task::none();
        };
        let rows = contents.rows();
        if extend {
            let anchor = self.selection.anchor().and_then(|e| contents.row_of(e));
            self.selection.select_range(rows, anchor, target, false);
        } else {
            self.selection.select_only(rows[target]);
        }
        self.reveal(target, false)
    }

    /// Ctrl+arrows: the focus moves, what is selected stays selected.
    pub(super) fn move_focus_only(&mut self, step: Step) -> Task<Message> {
        let Some(target) = self.row_after(step) else {
            return Task::none();
        };
        if let Some(&entry) = self.listing.contents().and_then(|c| c.rows().get(target)) {
            self.selection.focus_on(entry);
        }
        self.reveal(target, false)
    }

    /// The row a focus move by `step` lands on, if there is one.
    fn row_after(&self, step: Step) -> Option<usize> {
        let per_line = self.per_line();
        let page = self.scroll.page(self.line_height()) * per_line;
        let current = self.focused_row();
        let last = self.listing.contents()?.rows().len().checked_sub(1)?;
        Some(match (current, step) {
            (_, Step::First) => 0,
            (_, Step::Last) => last,
            (None, _) => 0,
            (Some(_), Step::Left | Step::Right) if per_line == 1 => return None,
            (Some(row), Step::Left) => row.saturating_sub(1),
            (Some(row), Step::Right) => (row + 1).min(last),
            (Some(row), Step::Up) => row.checked_sub(per_line).unwrap_or(row),
            (Some(row), Step::Down) => (row + per_line).min(last),
            (Some(row), Step::PageUp) => row.saturating_sub(page),
            (Some(row), Step::PageDown) => (row + page).min(last),
        })
    }

    /// Scrolls so `row` is visible (centred when `center`), keeping our offset in step so this
    /// frame already builds the right rows.
    pub(super) fn reveal(&mut self, row: usize, center: bool) -> Task<Message> {
        let line = row / self.per_line();
        let line_h = self.line_height();
        let offset = if center {
            self.scroll.center_on(line, line_h)
        } else {
            self.scroll.reveal(line, line_h)
        };
        match offset {
            Some(y) => self.scroll_to(y),
            None => Task::none(),
        }
    }

    /// The focused row, in view with the list scrolled as `before`, brought back into view
    /// when the list got shorter: the tab bar or a notice appearing above it hid the last
    /// row, selected.
    pub(super) fn keep_focus_in_view(&mut self, before: super::Scroll) -> Task<Message> {
        let Some(row) = self.focused_row() else {
            return Task::none();
        };
        let line = row / self.per_line();
        let line_h = self.line_height();
        let was_shown = before.reveal(line, line_h).is_none();
        match self.scroll.reveal(line, line_h) {
            Some(offset) if was_shown => self.scroll_to(offset),
            _ => Task::none(),
        }
    }

    pub(super) fn reveal_focus(&mut self) -> Task<Message> {
        match self.focused_row() {
            Some(row) => self.reveal(row, true),
            None => Task::none(),
        }
    }

    /// A letter no widget took while a text field is open: it was typed before the field had
    /// the keyboard (see [`field`](crate::gui::widget::field)), so it goes into the field's
    /// text (the rename editor's, else the location bar's, else the filter's), not to
    /// type-ahead. `None` when no field is open, or the list has the keyboard beside an open
    /// filter bar (type-ahead then, as in Dolphin).
    pub(super) fn type_into_open_field(&mut self, c: char) -> Option<Task<Message>> {
        let id = self.rename_input_id();
        if let Some(renaming) = &mut self.renaming {
            renaming.problem = None;
            let before = renaming.text.clone();
            let task = renaming.opened.type_early(id, &mut renaming.text, c);
            renaming.cursor = super::operations::cursor_after_edit(&before, &renaming.text);
            renaming.selected = None;
            return Some(task);
        }
        if let Some(task) = self.path_typed_early(c) {
            return Some(task);
        }
        if !self.filter_typing {
            return None;
        }
        let mut text = self.filter.clone()?;
        let cursor = self
            .filter_opened
            .type_early(self.filter_input_id(), &mut text, c);
        Some(Task::batch([self.set_filter(Some(text)), cursor]))
    }

    /// Selects the next entry whose name starts with what was typed in the last second (then
    /// one that contains it); the same letter again goes to the next such entry.
    pub(super) fn type_ahead(&mut self, c: char) -> Task<Message> {
        let Some(search) = self.typeahead.typed.push(c, Instant::now()) else {
            return Task::none();
        };
        let loading = matches!(self.listing, super::Listing::Loading(_));
        let current = self.focused_row();
        let found = self.find_typed(&search, current);
        self.typeahead.early = loading.then(|| self.focused_name());
        found.unwrap_or_else(Task::none)
    }

    /// Type-ahead typed while the folder was loading, once it is complete: searched again in
    /// every row. Typed as rows streamed in, "g149999" had stopped at "g149992", the first
    /// match of "g14999" listed so far, out of sight, and Delete trashed it. A click or an
    /// arrow key since (the focus elsewhere) is the user's choice, and stays.
    pub(super) fn type_ahead_after_loading(&mut self) -> Task<Message> {
        let Some(left_on) = self.typeahead.early.take() else {
            return Task::none();
        };
        let typed = self.typeahead.typed.typed();
        if typed.is_empty() || self.focused_name() != left_on {
            return Task::none();
        }
        let search = self.typeahead.typed.search();
        // "aaa" cycled through the rows listed then: where it stopped stays.
        if typed.chars().count() > 1 && search.skip_current {
            return self.reveal_focus();
        }
        let search = type_ahead::Search {
            skip_current: false,
            ..search
        };
        match self.find_typed(&search, None) {
            Some(found) => found,
            // Nothing has that name: the match so far stays, shown.
            None => self.reveal_focus(),
        }
    }

    /// Selects the row [`type_ahead::find`] finds from `current` and brings it into view;
    /// `None` when there is none.
    fn find_typed(
        &mut self,
        search: &type_ahead::Search,
        current: Option<usize>,
    ) -> Option<Task<Message>> {
        let contents = self.listing.contents()?;
        let rows = contents.rows();
        let name = |row: usize| contents.entries().entry(rows[row] as usize).name_bytes();
        let row = type_ahead::find(rows.len(), name, current, search)?;
        self.selection.select_only(rows[row]);
        Some(self.reveal(row, false))
    }

    /// The context menu asked for from the keyboard: beside the focused item, or in the
    /// middle of the pane.
    pub(super) fn keyboard_menu(&self) -> Event {
        let b = self.bounds;
        let on_items = self.selection.count() > 0;
        let at = match self.focused_row().filter(|_| on_items) {
            Some(row) => {
                let per_line = self.per_line();
                let line_h = self.line_height();
                let y = top_of(row / per_line, line_h) - self.scroll.offset_y + line_h;
                #[allow(clippy::cast_precision_loss)] // a column index
                let x = match self.mode {
                    ViewMode::Details => 48.0,
                    ViewMode::Icons => (row % per_line) as f32 * self.grid().cell_w + 24.0,
                };
                Point::new(b.x + x, b.y + y.clamp(0.0, b.height))
            }
            None => Point::new(b.x + b.width / 3.0, b.y + b.height / 3.0),
        };
        Event::ContextMenu { at, on_items }
    }
}
