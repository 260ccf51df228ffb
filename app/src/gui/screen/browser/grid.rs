//! The icon view: a grid of cells (icon, name under it on up to two lines), windowed by rows
//! of cells so only the cells in view are built. Longer names are broken where a word ends
//! and shortened in the middle of their second line, keeping the extension.

use iced::widget::text::Wrapping;
use iced::widget::{Row, column, container, mouse_area, space, text};
use iced::{Alignment, Element, Fill};

use super::view::empty_state;
use super::{Browser, Contents, Message, RowRef};
use crate::gui::style;
use crate::gui::widget::icon::{LinkMark, item_icon};
use crate::gui::widget::list;
use crate::gui::{fit, format};

/// The size of a cell's name.
const NAME_SIZE: f32 = 13.0;
/// The room left and right of a cell's content.
const CELL_PAD_X: f32 = 4.0;
/// Two lines of a cell's name.
const NAME_H: f32 = 34.0;

impl Browser {
    /// The cells, or the empty-folder message.
    pub(super) fn icons<'a>(
        &'a self,
        contents: &'a Contents,
        inactive: bool,
    ) -> Element<'a, Message> {
        let len = contents.rows().len();
        if len == 0 {
            return self.pointer_over(empty_state(&self.listing, contents));
        }
        let grid = self.grid();
        let lines = grid.rows(len);
        let rows = list::windowed(lines, self.scroll, grid.cell_h, |line| {
            let first = line * grid.columns;
            let cells = (first..(first + grid.columns).min(len))
                .map(|row| self.cell(contents, row, (grid.cell_w, grid.cell_h), inactive));
            Row::with_children(cells).height(grid.cell_h).into()
        });
        self.list_area(rows, list::top_of(lines, grid.cell_h))
    }

    /// Cell `row`; `inactive`: of the other pane of a split (see [`Look::Inactive`]).
    fn cell<'a>(
        &self,
        contents: &'a Contents,
        row: usize,
        (width, height): (f32, f32),
        inactive: bool,
    ) -> Element<'a, Message> {
        let Some((index, entry)) = contents.row(row) else {
            return space().width(width).into();
        };
        let at = RowRef {
            revision: self.revision,
            row,
        };
        let selected = self.selection.contains(index);
        let focused =
            self.selection.focus() == Some(index) && (self.selection.count() > 1 || !selected);
        let hovered = self.hovered == Some(at);
        let link = LinkMark::of(entry.kind(), entry.target_kind());
        let size = f32::from(self.icon_size);
        let name: Element<'a, Message> = match self.rename_field(index) {
            Some(field) => field,
            None => {
                // Two lines at most, laid out here (see `fit::two_lines`), drawn as they are.
                let line_px = width - 2.0 * (CELL_PAD_X + 3.0);
                let name = fit::two_lines(format::shown_name(entry.name()), line_px, NAME_SIZE);
                // As wide as its widest line and centred by its container: laid out as wide as
                // the cell and centred within, a right-to-left name was drawn from the right
                // and stood right of centre.
                let name_width = (fit::widest_line(&name, NAME_SIZE).ceil() + 1.0).min(line_px);
                let name = text(name)
                    .size(NAME_SIZE)
                    .align_x(Alignment::Center)
                    .wrapping(Wrapping::None)
                    .width(name_width);
                let name = if entry.is_hidden() || self.is_cut(entry.name()) {
                    name.style(style::faint_text)
                } else {
                    name
                };
                container(name)
                    .center_x(Fill)
                    .height(NAME_H)
                    .clip(true)
                    .into()
            }
        };
        let content = column![item_icon(format::icon_category(entry), link, size), name]
            .spacing(6)
            .align_x(Alignment::Center)
            .width(Fill);
        let highlight = container(content)
            .padding([6.0, CELL_PAD_X])
            .width(Fill)
            .height(Fill)
            .style(style::row_in(selected, hovered, focused, inactive));
        mouse_area(container(highlight).padding(3).width(width).height(height))
            .on_press(Message::RowPressed(at))
            .on_double_click(Message::RowDoubleClicked(at))
            .on_middle_press(Message::RowMiddleClicked(at))
            .on_right_press(Message::RowRightPressed(at))
            .on_enter(Message::RowEntered(at))
            .on_exit(Message::RowLeft(at))
            .into()
    }
}
