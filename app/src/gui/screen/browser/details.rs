//! The details view: column headers and the windowed rows, one line per entry.

use chrono::{DateTime, Local};
use ferry_core::entry::Kind;
use ferry_core::sort::{Direction, SortKey};
use iced::alignment::Horizontal;
use iced::widget::scrollable::{Direction as ScrollDirection, Scrollbar};
use iced::widget::{
    Row, button, column, container, mouse_area, row, rule, scrollable, space, stack, text,
};
use iced::{Alignment, Element, Fill, Length, Padding};

use super::view::{SMALL, TEXT, empty_state, small};
use super::{Browser, Contents, Message, RowRef};
use crate::gui::format;
use crate::gui::style;
use crate::gui::widget::icon::icon;
use crate::gui::widget::list::{self, ROW_HEIGHT};
use crate::gui::widget::scrollbar::scrollbar;

const SIZE_W: f32 = 96.0;
const MODIFIED_W: f32 = 150.0;
const TYPE_W: f32 = 140.0;
const ICON_W: f32 = 22.0;
/// Horizontal padding inside every cell, headers included, so they line up.
const CELL_PAD: f32 = 8.0;
/// Space around the rows; the right side leaves room for the overlay scrollbar.
const LIST_PAD: Padding = Padding {
    top: 0.0,
    right: 16.0,
    bottom: 0.0,
    left: 8.0,
};
/// Average advance of a character at [`TEXT`] size, for shortening long names.
const CHAR_W: f32 = 7.6;

impl Browser {
    /// Headers above the rows, or the empty-folder message.
    pub(super) fn details<'a>(&'a self, contents: &'a Contents) -> Element<'a, Message> {
        let header = container(self.header()).padding(LIST_PAD);
        let rows = contents.rows();
        let content: Element<'_, Message> = if rows.is_empty() {
            empty_state(&self.listing, contents)
        } else {
            let now = format::now();
            let name_chars = self.name_chars();
            let content_h = list::top_of(rows.len());
            let rows = list::windowed(rows.len(), self.scroll, |row| {
                self.row(contents, row, &now, name_chars)
            });
            // iced's own scroller shrinks to a dot on a huge folder: ours keeps a thumb to
            // grab, over the rows' right padding, and the scrollable keeps the wheel.
            let scroll = scrollable(container(rows).padding(LIST_PAD))
                .id(self.list_id())
                .direction(ScrollDirection::Vertical(Scrollbar::hidden()))
                .on_scroll(|viewport| Message::Scrolled {
                    offset_y: viewport.absolute_offset().y,
                    viewport_h: viewport.bounds().height,
                })
                .height(Fill);
            let bar = scrollbar(
                content_h,
                self.scroll.viewport_h,
                self.scroll.offset_y,
                Message::ScrollTo,
            );
            stack![scroll, container(bar).align_right(Fill).height(Fill)].into()
        };
        let area = mouse_area(container(content).width(Fill).height(Fill))
            .on_press(Message::BackgroundPressed);
        column![header, rule::horizontal(1).style(style::separator), area].into()
    }

    fn header(&self) -> Element<'_, Message> {
        let cell = |label: &'static str, key: SortKey, width: Length, align: Horizontal| {
            let arrow = match (self.sort.key == key, self.sort.direction) {
                (false, _) => "",
                (true, Direction::Ascending) => "▴",
                (true, Direction::Descending) => "▾",
            };
            let mut content = Row::new().spacing(4).align_y(Alignment::Center);
            if align == Horizontal::Right {
                content = content.push(space::horizontal());
            }
            content = content.push(text(label).size(SMALL));
            if !arrow.is_empty() {
                content = content.push(text(arrow).size(SMALL));
            }
            button(content)
                .width(width)
                .padding([7.0, CELL_PAD])
                .style(style::header_button)
                .on_press(Message::SortBy(key))
        };
        row![
            cell("Name", SortKey::Name, Fill, Horizontal::Left),
            cell(
                "Size",
                SortKey::Size,
                Length::Fixed(SIZE_W),
                Horizontal::Right
            ),
            cell(
                "Modified",
                SortKey::Modified,
                Length::Fixed(MODIFIED_W),
                Horizontal::Left
            ),
            cell(
                "Type",
                SortKey::Type,
                Length::Fixed(TYPE_W),
                Horizontal::Left
            ),
        ]
        .into()
    }

    fn row<'a>(
        &self,
        contents: &'a Contents,
        row: usize,
        now: &DateTime<Local>,
        name_chars: usize,
    ) -> Element<'a, Message> {
        let Some((index, entry)) = contents.row(row) else {
            return space().height(ROW_HEIGHT).into();
        };
        let at = RowRef {
            revision: self.revision,
            row,
        };
        let selected = self.selection.contains(index);
        let focused =
            self.selection.focus() == Some(index) && (self.selection.count() > 1 || !selected);
        let hovered = self.hovered == Some(at);

        let name = entry.name().to_string_lossy();
        let size = if entry.is_dir_like() || entry.stat_failed() {
            String::new()
        } else {
            format::size(entry.size())
        };
        let modified = if entry.stat_failed() {
            String::new()
        } else {
            format::modified(entry.mtime().0, now)
        };
        let cell = |content: Element<'a, Message>, width: Length| {
            container(content)
                .width(width)
                .padding([0.0, CELL_PAD])
                .clip(true)
        };
        let name = text(format::ellipsize_middle(name, name_chars)).size(TEXT);
        // Dot files, when shown, are drawn fainter, as most file managers do.
        let name = if entry.is_hidden() {
            name.style(style::faint_text)
        } else {
            name
        };
        let link = entry.kind() == Kind::Symlink;
        let icon = container(icon(format::category(entry), link, ICON_W))
            .height(ROW_HEIGHT)
            .center_y(ROW_HEIGHT);
        let name_cell = row![icon, name].spacing(10).align_y(Alignment::Center);
        let cells = row![
            cell(name_cell.into(), Fill),
            cell(
                small(size).width(Fill).align_x(Horizontal::Right).into(),
                SIZE_W.into()
            ),
            cell(small(modified).into(), MODIFIED_W.into()),
            cell(small(format::type_label(entry)).into(), TYPE_W.into()),
        ]
        .height(ROW_HEIGHT)
        .align_y(Alignment::Center);
        // The highlight is inset by a pixel above and below so neighbouring selected rows
        // read as separate items.
        let highlight = container(cells)
            .width(Fill)
            .height(Fill)
            .style(style::row(selected, hovered, focused));
        mouse_area(container(highlight).padding([1, 0]).height(ROW_HEIGHT))
            .on_press(Message::RowPressed(at))
            .on_double_click(Message::RowDoubleClicked(at))
            .on_enter(Message::RowEntered(at))
            .on_exit(Message::RowLeft(at))
            .into()
    }

    /// How many characters of a name fit the name column at the current window width.
    fn name_chars(&self) -> usize {
        let fixed = SIZE_W + MODIFIED_W + TYPE_W + LIST_PAD.left + LIST_PAD.right;
        let name_px = self.window_w - fixed - ICON_W - 10.0 - 2.0 * CELL_PAD;
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // clamped, floored
        let chars = (name_px.max(0.0) / CHAR_W).floor() as usize;
        chars.max(12)
    }
}
