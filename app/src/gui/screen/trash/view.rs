//! The Trash view drawn: toolbar, column headers, the windowed rows (or the empty trash, or
//! why it cannot be read), the status bar, and Restore to…'s folder prompt when no dialog
//! could be shown (the window puts it over itself). Every string is made here, for the
//! visible rows only.

use std::borrow::Cow;
use std::path::Path;

use chrono::{DateTime, Local};
use ferry_core::jobs::TrashedItem;
use iced::alignment::Horizontal;
use iced::widget::scrollable::{Direction as ScrollDirection, Scrollbar};
use iced::widget::text::Wrapping;
use iced::widget::{
    button, center, column, container, mouse_area, row, rule, scrollable, space, stack, text,
};
use iced::{Alignment, Element, Fill, Length, Padding, Theme};

use super::{Column, Listing, Loaded, Message, ROW_HEIGHT, Trash, list_id};
use crate::gui::style;
use crate::gui::widget::icon::{LinkMark, item_icon, trash as trash_icon};
use crate::gui::widget::list;
use crate::gui::widget::pointer::pointer_area;
use crate::gui::widget::scrollbar::scrollbar;
use crate::gui::widget::sort_header;
use crate::gui::words;
use crate::gui::{fit, format};
use ferry_core::entry::Kind;

/// Body text size.
const TEXT: f32 = 14.0;
/// The toolbar's height inside its padding: a button's.
const TOOLBAR_HEIGHT: f32 = 30.0;
/// Narrower than this, the toolbar shows the fewer words of a narrow window.
const TOOLBAR_FULL_WIDTH: f32 = 560.0;
/// Secondary text size.
const SMALL: f32 = 13.0;
/// Padding inside every cell, headers included, so they line up.
const CELL_PAD: f32 = 8.0;
/// Around the rows; the right side leaves room for the scrollbar.
const LIST_PAD: Padding = Padding {
    top: 0.0,
    right: 16.0,
    bottom: 0.0,
    left: 8.0,
};
/// The deletion date's column.
const DELETED_W: f32 = 150.0;
/// The size column.
const SIZE_W: f32 = 96.0;
/// How the rest is shared: name, then original location.
const NAME_PART: u16 = 5;
const LOCATION_PART: u16 = 4;
/// The least a name or a location is given however narrow the view.
const MIN_PX: f32 = 75.0;
/// The icon's size in a row.
const ICON: f32 = 16.0;

impl Trash {
    /// The whole view.
    pub fn view(&self) -> Element<'_, Message> {
        let mut view = column![self.toolbar(), rule::horizontal(1).style(style::separator)];
        if let Some(notice) = &self.notice {
            view = view.push(notice_banner(notice.text()));
        }
        view = view.push(self.body());
        view.push(rule::horizontal(1).style(style::separator))
            .push(self.status_bar())
            .into()
    }

    /// Restore to…'s own folder prompt, when no system dialog could be shown, for the window
    /// to put over all of itself as its other dialogs are (over the trash view alone, the
    /// places and the toolbar stayed bright and clickable beside it).
    pub fn restore_prompt(&self) -> Option<Element<'_, Message>> {
        (self.restore_to.as_ref())
            .and_then(|r| r.prompt.as_ref())
            .map(|p| p.view().map(Message::Folder))
    }

    fn toolbar(&self) -> Element<'_, Message> {
        let (safe, all) = self.actionable();
        let has_items = self.loaded().is_some_and(|l| !l.is_empty());
        let action = |label: &'static str, enabled: bool, message: Message| {
            button(text(label).size(SMALL).wrapping(Wrapping::None))
                .padding([5, 10])
                .style(style::tool_button)
                .on_press_maybe(enabled.then_some(message))
        };
        // A narrow window (the sidebar beside, or a split) cut Empty Trash in two and off the
        // edge: there the title keeps its icon, Restore to… is left to the menu and Delete
        // Permanently says Delete.
        let bar = iced::widget::responsive(move |size| {
            let narrow = size.width < TOOLBAR_FULL_WIDTH;
            let mut title = row![trash_icon(22.0, has_items)]
                .spacing(8)
                .align_y(Alignment::Center);
            if !narrow {
                title = title.push(text("Trash").size(16).font(style::bold()));
            }
            let mut bar = row![
                title,
                space::horizontal(),
                action("Restore", safe > 0, Message::Restore)
            ]
            .spacing(6)
            .align_y(Alignment::Center);
            if !narrow {
                bar = bar.push(action("Restore to…", all > 0, Message::RestoreTo));
            }
            let delete = if narrow {
                "Delete"
            } else {
                "Delete Permanently"
            };
            bar.push(action(delete, all > 0, Message::DeletePermanently))
                .push(container(rule::vertical(1).style(style::separator)).height(20))
                .push(action("Empty Trash", has_items, Message::EmptyTrash))
                .into()
        });
        container(container(bar).center_y(TOOLBAR_HEIGHT))
            .padding([6, 12])
            .width(Fill)
            .style(style::chrome)
            .into()
    }

    fn body(&self) -> Element<'_, Message> {
        let content: Element<'_, Message> = match &self.listing {
            Listing::Loading => center(
                text("Reading the trash…")
                    .size(SMALL)
                    .style(style::dim_text),
            )
            .into(),
            Listing::Failed(error) => {
                let message = column![
                    text("Can't read the trash").size(18).font(style::bold()),
                    text(words::error_in_words(error)).size(TEXT),
                ]
                .spacing(8)
                .align_x(Alignment::Center);
                center(message).padding(24).into()
            }
            Listing::Loaded(loaded) if loaded.is_empty() => empty_state(),
            Listing::Loaded(loaded) => column![
                container(self.header()).padding(LIST_PAD),
                rule::horizontal(1).style(style::separator),
                self.list(loaded),
            ]
            .into(),
        };
        container(content)
            .width(Fill)
            .height(Fill)
            .style(style::list)
            .into()
    }

    fn header(&self) -> Element<'_, Message> {
        let cell = |label: &'static str, column: Column, width: Length, align: Horizontal| {
            let sorted = (self.sort.column == column).then_some(self.sort.direction);
            sort_header(label, sorted, width, align, Message::SortBy(column))
        };
        row![
            cell(
                "Name",
                Column::Name,
                Length::FillPortion(NAME_PART),
                Horizontal::Left
            ),
            cell(
                "Original Location",
                Column::Location,
                Length::FillPortion(LOCATION_PART),
                Horizontal::Left
            ),
            cell(
                "Deleted",
                Column::Deleted,
                Length::Fixed(DELETED_W),
                Horizontal::Left
            ),
            cell(
                "Size",
                Column::Size,
                Length::Fixed(SIZE_W),
                Horizontal::Right
            ),
        ]
        .align_y(Alignment::Center)
        .into()
    }

    /// The windowed rows in their scrollable, with Ferry's scrollbar, inside the pointer
    /// area that reports presses on empty space, right presses and its bounds.
    fn list<'a>(&'a self, loaded: &'a Loaded) -> Element<'a, Message> {
        let now = format::now();
        let (name_px, location_px) = self.widths();
        let rows = list::windowed(self.order.len(), self.scroll, ROW_HEIGHT, |row| {
            self.row(loaded, row, &now, name_px, location_px)
        });
        let scroll = scrollable(container(rows).padding(LIST_PAD))
            .id(list_id())
            .direction(ScrollDirection::Vertical(Scrollbar::hidden()))
            .on_scroll(|viewport| Message::Scrolled {
                offset_y: viewport.absolute_offset().y,
                viewport_h: viewport.bounds().height,
            })
            .height(Fill);
        let bar = scrollbar(
            list::top_of(self.order.len(), ROW_HEIGHT),
            self.scroll.viewport_h,
            self.scroll.offset_y,
            Message::ScrollTo,
        );
        let layers = stack![scroll, container(bar).align_right(Fill).height(Fill)];
        pointer_area(container(layers).width(Fill).height(Fill))
            .on_press(Message::BackgroundPressed)
            .on_right_press(|at, on_item| Message::RightPressed { at, on_item })
            .on_resize(self.bounds, Message::Resized)
            .into()
    }

    fn row<'a>(
        &self,
        loaded: &'a Loaded,
        row: usize,
        now: &DateTime<Local>,
        name_px: f32,
        location_px: f32,
    ) -> Element<'a, Message> {
        let index = self.order[row];
        let (Some(item), Some(entry)) = (loaded.item(index), loaded.entry(index)) else {
            return space().height(ROW_HEIGHT).into();
        };
        let at = super::ItemRef {
            generation: self.shown,
            item: index,
        };
        let selected = self.selection.contains(index);
        let focused =
            self.selection.focus() == Some(index) && (self.selection.count() > 1 || !selected);
        let hovered = self.hovered == Some(index);
        let busy = self.submitted.contains(&item.info) || self.is_cut(&item.file);
        let unsafe_entry = item.unsafe_entry.is_some();
        let faint = move |theme: &Theme| {
            if busy {
                style::faint_text(theme)
            } else {
                text::Style::default()
            }
        };

        let cell = |content: Element<'a, Message>, width: Length| {
            container(content)
                .width(width)
                .padding([0.0, CELL_PAD])
                .clip(true)
        };
        let name = fit::middle(format::shown_name(&item.name), name_px, TEXT);
        let mut name_cell = row![
            // A link is drawn as one, never as broken: taken out of its folder, a relative
            // link leads nowhere until it is restored.
            item_icon(
                format::category(entry),
                LinkMark::of(item.kind, Kind::File),
                ICON
            ),
            text(name).size(TEXT).wrapping(Wrapping::None).style(faint)
        ]
        .spacing(10)
        .align_y(Alignment::Center);
        if unsafe_entry {
            name_cell = name_cell.push(
                container(text("unsafe").size(11).style(on_danger))
                    .padding([1, 6])
                    .style(danger_badge),
            );
        }
        let location = fit::start(self.location(item), location_px, SMALL);
        let location = small(location);
        let location = if unsafe_entry {
            location.style(style::danger_text)
        } else if busy {
            location.style(style::faint_text)
        } else {
            location
        };
        let deleted = match item.deleted_at {
            Some(secs) => format::modified(secs, now),
            None => item.deletion_date.clone(),
        };
        let cells = row![
            cell(name_cell.into(), Length::FillPortion(NAME_PART)),
            cell(location.into(), Length::FillPortion(LOCATION_PART)),
            cell(small(deleted).into(), Length::Fixed(DELETED_W)),
            cell(
                small(format::size(item.size))
                    .width(Fill)
                    .align_x(Horizontal::Right)
                    .into(),
                Length::Fixed(SIZE_W)
            ),
        ]
        .height(ROW_HEIGHT)
        .align_y(Alignment::Center);
        // Inset by a pixel above and below, so neighbouring selected rows read as separate.
        let highlight = container(cells)
            .width(Fill)
            .height(Fill)
            .style(style::row(selected, hovered, focused));
        mouse_area(container(highlight).padding([1, 0]).height(ROW_HEIGHT))
            .on_press(Message::RowPressed(at))
            .on_right_press(Message::RowRightPressed(at))
            .on_enter(Message::RowEntered(at))
            .on_exit(Message::RowLeft(at))
            .into()
    }

    /// The folder an item was deleted from, `~` for the home folder.
    fn location<'a>(&self, item: &'a TrashedItem) -> Cow<'a, str> {
        let folder = item.original.parent().unwrap_or(Path::new("/"));
        if let Some(home) = &self.home
            && let Ok(rest) = folder.strip_prefix(home)
        {
            return if rest.as_os_str().is_empty() {
                Cow::Borrowed("~")
            } else {
                Cow::Owned(format!("~/{}", format::shown_name(rest.as_os_str())))
            };
        }
        format::shown_name(folder.as_os_str())
    }

    /// How many pixels a name and a location have in their columns.
    fn widths(&self) -> (f32, f32) {
        let rest = self.bounds.width - LIST_PAD.left - LIST_PAD.right - DELETED_W - SIZE_W;
        let parts = f32::from(NAME_PART + LOCATION_PART);
        let name_px = rest * f32::from(NAME_PART) / parts - ICON - 10.0 - 2.0 * CELL_PAD - 50.0;
        let location_px = rest * f32::from(LOCATION_PART) / parts - 2.0 * CELL_PAD;
        (name_px.max(MIN_PX), location_px.max(MIN_PX))
    }

    fn status_bar(&self) -> Element<'_, Message> {
        let status = match &self.listing {
            Listing::Loading => "Reading the trash…".to_owned(),
            Listing::Failed(_) => String::new(),
            Listing::Loaded(loaded) => self.status(loaded),
        };
        container(
            text(status)
                .size(12)
                .style(style::dim_text)
                .wrapping(Wrapping::None),
        )
        .padding([4, 12])
        .width(Fill)
        .clip(true)
        .style(style::chrome)
        .into()
    }

    fn status(&self, loaded: &Loaded) -> String {
        let all = format!(
            "{}, {}",
            format::counted(loaded.len(), "item", "items"),
            format::size(loaded.total_size())
        );
        let selected = self.selection.count();
        if let (1, Some(item)) = (selected, self.focused_item())
            && let Some(why) = &item.unsafe_entry
        {
            return format!(
                "“{}” is an unsafe entry ({why}): only Restore to… restores it.",
                format::shown_name(&item.name)
            );
        }
        if selected == 0 {
            return all;
        }
        let size = self
            .selection
            .iter()
            .filter_map(|i| loaded.item(i))
            .map(|i| i.size)
            .fold(0, u64::saturating_add);
        format!(
            "{all} — {} selected, {}",
            format::count(selected),
            format::size(size)
        )
    }
}

/// "The trash is empty", in place of the rows.
fn empty_state<'a>() -> Element<'a, Message> {
    let message = column![
        trash_icon(64.0, false),
        text("The trash is empty").size(17).style(style::dim_text),
        text("What you move to the trash waits here until you empty it.")
            .size(SMALL)
            .style(style::dim_text),
    ]
    .spacing(10)
    .align_x(Alignment::Center);
    center(message).into()
}

fn notice_banner<'a>(notice: String) -> Element<'a, Message> {
    let close = button(text("✕").size(SMALL))
        .padding([2, 8])
        .style(style::tool_button)
        .on_press(Message::NoticeDismissed);
    let banner = row![text(notice).size(SMALL).width(Fill), close].align_y(Alignment::Center);
    container(container(banner).padding([6, 12]).style(style::notice))
        .padding([8, 12])
        .width(Fill)
        .style(style::list)
        .into()
}

/// Secondary text in a cell.
fn small<'a>(content: impl text::IntoFragment<'a>) -> text::Text<'a> {
    text(content)
        .size(SMALL)
        .style(style::dim_text)
        .wrapping(Wrapping::None)
}

/// The "unsafe" badge.
fn danger_badge(theme: &Theme) -> container::Style {
    let c = style::colors(theme);
    container::Style {
        background: Some(c.danger.scale_alpha(0.9).into()),
        border: iced::Border::default().rounded(4),
        ..container::Style::default()
    }
}

fn on_danger(theme: &Theme) -> text::Style {
    text::Style {
        color: Some(style::colors(theme).base),
    }
}
