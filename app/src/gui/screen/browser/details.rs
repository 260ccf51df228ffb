//! The details view: column headers (click to sort, drag an edge to resize) and the windowed
//! rows, one line per entry; and the list area both views share (scrollable, scrollbar,
//! rubber band, pointer tracking).

use chrono::{DateTime, Local};
use ferry_core::sort::SortKey;
use iced::alignment::Horizontal;
use iced::widget::scrollable::{Direction as ScrollDirection, Scrollbar};
use iced::widget::text::Wrapping;
use iced::widget::{
    Row, column, container, mouse_area, pin, row, rule, scrollable, space, stack, text,
};
use iced::{Alignment, Element, Fill, Length, Padding, mouse};

use super::view::{SMALL, TEXT, empty_state, small};
use super::{Browser, Contents, Message, RowRef};
use crate::gui::settings::Columns;
use crate::gui::style;
use crate::gui::widget::icon::{LinkMark, item_icon};
use crate::gui::widget::list;
use crate::gui::widget::pointer::pointer_area;
use crate::gui::widget::scrollbar::scrollbar;
use crate::gui::widget::sort_header;
use crate::gui::{fit, format};

/// Icon sizes of the details view that zoom steps through.
pub const ICON_SIZES: [u16; 4] = [16, 22, 32, 48];
/// Horizontal padding inside every cell, headers included, so they line up.
const CELL_PAD: f32 = 8.0;
/// Space around the rows; the right side leaves room for the overlay scrollbar.
pub const LIST_PAD: Padding = Padding {
    top: 0.0,
    right: 16.0,
    bottom: 0.0,
    left: 8.0,
};
/// The grab zone between two column headers.
const HANDLE: f32 = 8.0;
/// The least a name is given however narrow the pane: a dozen characters or so.
const MIN_NAME_PX: f32 = 90.0;

/// A row's height for icons `icon` pixels big.
pub fn row_height(icon: u16) -> f32 {
    (f32::from(icon) + 8.0).max(26.0)
}

/// A column of fixed width (the name column takes what is left).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    /// Size.
    Size,
    /// Modification date.
    Modified,
    /// Type.
    Kind,
}

impl Column {
    /// Its width in `columns`, never less than [`least`](Self::least) (settings kept from
    /// before it was).
    pub fn width(self, columns: &Columns) -> f32 {
        let set = match self {
            Column::Size => columns.size,
            Column::Modified => columns.modified,
            Column::Kind => columns.kind,
        };
        set.max(self.least())
    }

    /// The narrowest it is drawn: its usual widest value whole, and its header. Narrower,
    /// sizes showed as "bytes" or ".2 MB" without their numbers (iced cannot end a cut text
    /// in "…") and the date's header ran into the type's.
    pub fn least(self) -> f32 {
        let widest = match self {
            Column::Size => "999 bytes",
            Column::Modified => "Yesterday 23:59",
            Column::Kind => "Folder",
        };
        (fit::width(widest, SMALL) + 2.0 * CELL_PAD).ceil()
    }

    /// Sets its width in `columns`.
    pub fn set_width(self, columns: &mut Columns, width: f32) {
        match self {
            Column::Size => columns.size = width,
            Column::Modified => columns.modified = width,
            Column::Kind => columns.kind = width,
        }
    }
}

/// The name column keeps at least this much before other columns are left out.
const NAME_MIN: f32 = 220.0;

/// `columns` as a pane `width` wide lays them out: where the name would get less than
/// [`NAME_MIN`], columns widened past their defaults give back what they were widened by (in
/// proportion) before any is left out. A Size column widened in a full-width pane left a
/// split's pane showing the name alone.
pub fn fitted(width: f32, columns: &Columns) -> Columns {
    const ALL: [Column; 3] = [Column::Size, Column::Modified, Column::Kind];
    let fixed: f32 = ALL.iter().map(|c| c.width(columns) + HANDLE).sum();
    let short = NAME_MIN - (width - LIST_PAD.left - LIST_PAD.right - fixed);
    let defaults = Columns::default();
    let extra = |c: Column| (c.width(columns) - c.width(&defaults)).max(0.0);
    let total: f32 = ALL.iter().map(|&c| extra(c)).sum();
    if short <= 0.0 || total <= 0.0 {
        return *columns;
    }
    let given = short.min(total) / total;
    let mut fitted = *columns;
    for column in ALL {
        column.set_width(&mut fitted, column.width(columns) - extra(column) * given);
    }
    fitted
}

/// The fixed columns a pane `width` wide shows, left to right: when the name column would get
/// less than [`NAME_MIN`], the type goes first, then the date, then the size.
pub fn shown(width: f32, columns: &Columns) -> Vec<Column> {
    let mut shown = vec![Column::Size, Column::Modified, Column::Kind];
    while let Some(&last) = shown.last() {
        let fixed: f32 = shown.iter().map(|c| c.width(columns) + HANDLE).sum();
        if width - LIST_PAD.left - LIST_PAD.right - fixed >= NAME_MIN {
            break;
        }
        shown.retain(|&c| c != last);
    }
    shown
}

/// The widest `column` can be in a pane `width` wide, the others as in `columns`, with the
/// name keeping [`NAME_MIN`] and every column shown now staying shown.
pub fn widest(width: f32, columns: &Columns, column: Column) -> f32 {
    let fixed: f32 = shown(width, columns)
        .iter()
        .map(|&c| {
            if c == column {
                HANDLE
            } else {
                c.width(columns) + HANDLE
            }
        })
        .sum();
    width - LIST_PAD.left - LIST_PAD.right - fixed - NAME_MIN
}

/// The column whose left edge (the grab zone before it) is under `x`, in a header `width`
/// wide. Columns are laid out from the right: name | size | modified | type.
pub fn edge_at(width: f32, columns: &Columns, x: f32) -> Option<Column> {
    let mut left = width - LIST_PAD.right;
    for column in shown(width, columns).into_iter().rev() {
        left -= column.width(columns);
        let zone = (left - HANDLE - 2.0)..(left + 2.0);
        if zone.contains(&x) {
            return Some(column);
        }
        left -= HANDLE;
    }
    None
}

impl Browser {
    /// Headers above the rows, or the empty-folder message.
    pub(super) fn details<'a>(
        &'a self,
        contents: &'a Contents,
        inactive: bool,
    ) -> Element<'a, Message> {
        let header = pointer_area(container(self.header()).padding(LIST_PAD))
            .on_press(Message::HeaderPressed)
            .on_drag(Message::HeaderDragged)
            .on_release(Message::HeaderReleased);
        let rows = contents.rows();
        let row_h = self.line_height();
        let content: Element<'_, Message> = if rows.is_empty() {
            self.pointer_over(empty_state(&self.listing, contents))
        } else {
            let now = format::now();
            let name_px = self.name_px();
            let rows = list::windowed(rows.len(), self.scroll, row_h, |row| {
                self.row(contents, row, &now, (name_px, row_h), inactive)
            });
            self.list_area(rows, list::top_of(contents.rows().len(), row_h))
        };
        column![header, rule::horizontal(1).style(style::separator), content].into()
    }

    /// The scrollable list of either view, with our scrollbar and the rubber band over it,
    /// inside the pointer area that reports presses on empty space, drags and its bounds.
    pub(super) fn list_area<'a>(
        &'a self,
        rows: Element<'a, Message>,
        content_h: f32,
    ) -> Element<'a, Message> {
        // iced's own scroller shrinks to a dot on a huge folder: ours keeps a thumb to grab,
        // over the rows' right padding, and the scrollable keeps the wheel.
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
        let mut layers = stack![scroll, container(bar).align_right(Fill).height(Fill)];
        if let Some(rect) = self.band_rect() {
            let band = container(space())
                .width(rect.width)
                .height(rect.height)
                .style(style::band);
            layers = layers.push(pin(band).x(rect.x).y(rect.y));
        }
        self.pointer_over(layers.into())
    }

    /// `content` inside the pointer area that reports presses on empty space, drags, right
    /// presses and the list's bounds: an empty folder's message too, so that it takes drops
    /// and offers its menu like the empty part of a list.
    pub(super) fn pointer_over<'a>(
        &'a self,
        content: Element<'a, Message>,
    ) -> Element<'a, Message> {
        pointer_area(container(content).width(Fill).height(Fill))
            .on_press(Message::BackgroundPressed)
            .on_drag(Message::Dragged)
            .on_release(Message::Released)
            .on_right_press(|at, on_item| Message::RightPressed { at, on_item })
            .on_item_press(Message::ItemPressed)
            .on_resize(self.bounds, Message::Resized)
            .into()
    }

    fn header(&self) -> Element<'_, Message> {
        let cell = |label: &'static str, key: SortKey, width: Length, align: Horizontal| {
            let sorted = (self.sort.key == key).then_some(self.sort.direction);
            sort_header(label, sorted, width, align, Message::SortBy(key))
        };
        // Grab zones between the headers; the press itself goes to the headers' pointer area.
        let handle = || {
            mouse_area(
                container(rule::vertical(1).style(style::separator))
                    .width(HANDLE)
                    .height(30)
                    .center_x(HANDLE),
            )
            .interaction(mouse::Interaction::ResizingHorizontally)
        };
        let mut header = Row::new().push(cell("Name", SortKey::Name, Fill, Horizontal::Left));
        let columns = self.laid_out_columns();
        for column in shown(self.bounds.width, &columns) {
            let width = Length::Fixed(column.width(&columns));
            header = header.push(handle()).push(match column {
                Column::Size => cell("Size", SortKey::Size, width, Horizontal::Right),
                Column::Modified => cell("Modified", SortKey::Modified, width, Horizontal::Left),
                Column::Kind => cell("Type", SortKey::Type, width, Horizontal::Left),
            });
        }
        header.align_y(Alignment::Center).into()
    }

    /// Row `row`; `inactive`: of the other pane of a split (see [`Look::Inactive`]).
    fn row<'a>(
        &self,
        contents: &'a Contents,
        row: usize,
        now: &DateTime<Local>,
        (name_px, row_h): (f32, f32),
        inactive: bool,
    ) -> Element<'a, Message> {
        let Some((index, entry)) = contents.row(row) else {
            return space().height(row_h).into();
        };
        let at = RowRef {
            revision: self.revision,
            row,
        };
        let selected = self.selection.contains(index);
        let focused =
            self.selection.focus() == Some(index) && (self.selection.count() > 1 || !selected);
        let hovered = self.hovered == Some(at);

        let name = format::shown_name(entry.name());
        let cell = |content: Element<'a, Message>, width: Length| {
            container(content)
                .width(width)
                .padding([0.0, CELL_PAD])
                .clip(true)
        };
        let name: Element<'a, Message> = match self.rename_field(index) {
            Some(field) => field,
            None => {
                let name = text(fit::middle(name, name_px, TEXT))
                    .size(TEXT)
                    .wrapping(Wrapping::None);
                // Dot files, when shown, and cut items are drawn fainter, as most file
                // managers do.
                if entry.is_hidden() || self.is_cut(entry.name()) {
                    name.style(style::faint_text).into()
                } else {
                    name.into()
                }
            }
        };
        let link = LinkMark::of(entry.kind(), entry.target_kind());
        let icon_size = f32::from(self.details_icon);
        let icon = container(item_icon(format::icon_category(entry), link, icon_size))
            .height(row_h)
            .center_y(row_h);
        let name_cell = row![icon, name].spacing(10).align_y(Alignment::Center);
        let mut cells = Row::new().push(cell(name_cell.into(), Fill));
        let columns = self.laid_out_columns();
        for column in shown(self.bounds.width, &columns) {
            let width = Length::Fixed(column.width(&columns));
            let content: Element<'a, Message> = match column {
                Column::Size if entry.is_dir_like() || entry.stat_failed() => space().into(),
                Column::Size => small(format::size(entry.size()))
                    .width(Fill)
                    .align_x(Horizontal::Right)
                    .into(),
                Column::Modified if entry.stat_failed() => space().into(),
                Column::Modified => small(format::modified(entry.mtime().0, now)).into(),
                Column::Kind => {
                    let room = column.width(&columns) - 2.0 * CELL_PAD;
                    small(fit::end(format::type_label(entry), room, SMALL)).into()
                }
            };
            cells = cells.push(space().width(HANDLE)).push(cell(content, width));
        }
        let cells = cells.height(row_h).align_y(Alignment::Center);
        // The highlight is inset by a pixel above and below so neighbouring selected rows
        // read as separate items.
        let highlight = container(cells)
            .width(Fill)
            .height(Fill)
            .style(style::row_in(selected, hovered, focused, inactive));
        mouse_area(container(highlight).padding([1, 0]).height(row_h))
            .on_press(Message::RowPressed(at))
            .on_double_click(Message::RowDoubleClicked(at))
            .on_middle_press(Message::RowMiddleClicked(at))
            .on_right_press(Message::RowRightPressed(at))
            .on_enter(Message::RowEntered(at))
            .on_exit(Message::RowLeft(at))
            .into()
    }

    /// The rename editor, when it is open over entry `index`.
    pub(super) fn rename_field<'a>(&self, index: u32) -> Option<Element<'a, Message>> {
        let renaming = self.renaming.as_ref().filter(|r| r.entry == index)?;
        let refused = renaming.problem.is_some();
        Some(
            iced::widget::text_input("New name", &renaming.text)
                .id(self.rename_input_id())
                .on_input(Message::RenameEdited)
                .on_submit(Message::RenameSubmitted)
                .size(TEXT)
                .padding([3, 6])
                .style(move |theme, status| {
                    let mut s = style::path_input(theme, status);
                    if refused {
                        s.border.color = style::colors(theme).danger;
                    }
                    s
                })
                .into(),
        )
    }

    /// The column widths as this pane lays them out ([`fitted`]).
    pub(super) fn laid_out_columns(&self) -> Columns {
        fitted(self.bounds.width, &self.columns)
    }

    /// How many pixels a name has in the name column at the pane's width.
    fn name_px(&self) -> f32 {
        let columns = self.laid_out_columns();
        let shown = shown(self.bounds.width, &columns);
        let fixed = shown
            .iter()
            .map(|c| c.width(&columns) + HANDLE)
            .sum::<f32>()
            + LIST_PAD.left
            + LIST_PAD.right;
        (self.bounds.width - fixed - f32::from(self.details_icon) - 10.0 - 2.0 * CELL_PAD)
            .max(MIN_NAME_PX)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_edges_are_found_from_the_right() {
        let columns = Columns::default(); // 96, 150, 140
        let width = 1000.0;
        // Type starts at 1000 - 16 - 140 = 844; its grab zone is just left of it.
        assert_eq!(edge_at(width, &columns, 840.0), Some(Column::Kind));
        // Modified starts at 844 - 8 - 150 = 686.
        assert_eq!(edge_at(width, &columns, 683.0), Some(Column::Modified));
        // Size starts at 686 - 8 - 96 = 582.
        assert_eq!(edge_at(width, &columns, 580.0), Some(Column::Size));
        assert_eq!(
            edge_at(width, &columns, 300.0),
            None,
            "inside the name column"
        );
        assert_eq!(edge_at(width, &columns, 760.0), None, "inside a column");
    }

    #[test]
    fn a_narrow_pane_leaves_out_type_then_date_then_size() {
        let columns = Columns::default(); // 96 + 150 + 140, 8 px grab zones, 24 px padding
        assert_eq!(shown(1000.0, &columns).len(), 3);
        assert_eq!(shown(600.0, &columns), [Column::Size, Column::Modified]);
        assert_eq!(shown(400.0, &columns), [Column::Size]);
        assert!(shown(250.0, &columns).is_empty());
        // Size widened to 325 px in a wide pane: in a narrower one it gives its extra back
        // before anything is left out.
        let widened = Columns {
            size: 325.0,
            ..columns
        };
        assert_eq!(fitted(1400.0, &widened), widened);
        let split = fitted(600.0, &widened);
        assert!(split.size < 325.0 && split.size >= 96.0, "{split:?}");
        assert_eq!(shown(600.0, &split), [Column::Size, Column::Modified]);
        assert_eq!(fitted(600.0, &columns), columns, "defaults stay");
    }
}
