//! The browser's widgets: toolbar with breadcrumbs, column headers, the windowed rows, and the
//! status bar. Every string is derived here, for the visible rows only.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Local};
use ferry_core::entry::{EntryRef, Kind};
use ferry_core::sort::{Direction, SortKey};
use iced::alignment::Horizontal;
use iced::font::Weight;
use iced::widget::scrollable::{Direction as ScrollDirection, Scrollbar};
use iced::widget::text::Wrapping;
use iced::widget::tooltip::Position;
use iced::widget::{
    Row, button, center, column, container, mouse_area, row, rule, scrollable, space, stack, text,
    text_input, toggler, tooltip,
};
use iced::{Alignment, Element, Fill, Font, Length, Padding, Theme, mouse};

use super::{Browser, LIST, Listing, Message, PATH_INPUT, RowRef};
use crate::gui::browser::Contents;
use crate::gui::format::{self, Category};
use crate::gui::list::{self, ROW_HEIGHT};
use crate::gui::scrollbar::scrollbar;
use crate::gui::shortcut::Action;
use crate::gui::style;

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
const TEXT: f32 = 14.0;
const SMALL: f32 = 13.0;
/// Average advance of a character at [`TEXT`] size, for shortening long names.
const CHAR_W: f32 = 7.6;
/// At most this many breadcrumb segments; the middle collapses into "…".
const MAX_CRUMBS: usize = 6;

impl Browser {
    /// The whole screen.
    pub fn view(&self) -> Element<'_, Message> {
        column![
            self.toolbar(),
            rule::horizontal(1).style(style::separator),
            self.body(),
            rule::horizontal(1).style(style::separator),
            self.status_bar(),
        ]
        .into()
    }

    fn toolbar(&self) -> Element<'_, Message> {
        let back = tool(
            "←",
            "Back (Alt+Left)",
            (!self.back.is_empty()).then_some(Message::Action(Action::Back)),
        );
        let forward = tool(
            "→",
            "Forward (Alt+Right)",
            (!self.forward.is_empty()).then_some(Message::Action(Action::Forward)),
        );
        let up = tool(
            "↑",
            "Parent folder (Alt+Up)",
            self.path.parent().map(|_| Message::Action(Action::Up)),
        );
        let refresh = tool("⟳", "Refresh (F5)", Some(Message::Action(Action::Refresh)));
        let hidden = toggler(self.show_hidden)
            .label("Hidden files")
            .on_toggle(Message::ShowHidden)
            .size(18)
            .text_size(SMALL);
        let bar = row![back, forward, up, self.path_bar(), refresh, hidden]
            .spacing(6)
            .align_y(Alignment::Center);
        container(bar)
            .padding([8, 10])
            .width(Fill)
            .style(style::chrome)
            .into()
    }

    fn path_bar(&self) -> Element<'_, Message> {
        if let Some(typed) = &self.editing_path {
            return text_input("Type a folder path", typed)
                .id(PATH_INPUT)
                .on_input(Message::PathEdited)
                .on_submit(Message::PathSubmitted)
                .size(TEXT)
                .padding([7, 12])
                .style(style::path_input)
                .width(Fill)
                .into();
        }
        let crumbs = crumbs(&self.path, self.home.as_deref());
        let last = crumbs.len().saturating_sub(1);
        let mut bar = Row::new().spacing(0).align_y(Alignment::Center);
        for (i, crumb) in crumbs.into_iter().enumerate() {
            if i > 0 {
                bar = bar.push(text("›").size(16).style(dim));
            }
            bar = bar.push(match crumb {
                Crumb::Folder { label, path } => {
                    let current = i == last;
                    let font = if current { bold() } else { Font::DEFAULT };
                    button(text(label).size(TEXT).font(font).wrapping(Wrapping::None))
                        .padding([3, 8])
                        .style(style::crumb(current))
                        .on_press(Message::Navigate(path))
                        .into()
                }
                Crumb::Elided => Element::from(text("…").size(TEXT).style(dim)),
            });
        }
        // The empty rest of the bar turns it into a text field, as in most file managers.
        let rest = mouse_area(container(space()).width(Fill).height(Fill))
            .interaction(mouse::Interaction::Text)
            .on_press(Message::EditPath);
        container(bar.push(rest))
            .padding([0, 4])
            .height(34)
            .width(Fill)
            .align_y(Alignment::Center)
            .clip(true)
            .style(style::path_bar)
            .into()
    }

    fn body(&self) -> Element<'_, Message> {
        let content = match &self.listing {
            Listing::Failed(error) => failure(&self.path, error),
            Listing::Loading(contents) | Listing::Loaded(contents) => self.list(contents),
        };
        let mut body = column![];
        if let Some(notice) = &self.notice {
            let close = button(text("✕").size(SMALL))
                .padding([2, 8])
                .style(style::tool_button)
                .on_press(Message::NoticeDismissed);
            let banner = row![text(notice.as_str()).size(SMALL).width(Fill), close]
                .align_y(Alignment::Center);
            body = body.push(
                container(container(banner).padding([6, 12]).style(style::notice)).padding([8, 12]),
            );
        }
        container(body.push(content))
            .width(Fill)
            .height(Fill)
            .style(style::list)
            .into()
    }

    fn list<'a>(&'a self, contents: &'a Contents) -> Element<'a, Message> {
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
                .id(LIST)
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
        let name = text(ellipsize(name, name_chars)).size(TEXT);
        // Dot files, when shown, are drawn fainter, as most file managers do.
        let name = if entry.is_hidden() {
            name.style(faint)
        } else {
            name
        };
        let name_cell = row![icon(entry), name]
            .spacing(10)
            .align_y(Alignment::Center);
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

    fn status_bar(&self) -> Element<'_, Message> {
        let (left, right) = match &self.listing {
            Listing::Failed(_) => (String::new(), String::new()),
            Listing::Loading(contents) => (
                counts(contents, self.selection.count()),
                "Loading…".to_owned(),
            ),
            Listing::Loaded(contents) => {
                let hidden = match contents.hidden() {
                    0 => String::new(),
                    n => format!("{} hidden", format::count(n)),
                };
                (counts(contents, self.selection.count()), hidden)
            }
        };
        let bar = row![small(left), space::horizontal(), small(right)].align_y(Alignment::Center);
        container(bar)
            .padding([5, 14])
            .width(Fill)
            .style(style::chrome)
            .into()
    }
}

/// "N items, M folders, X selected" for the shown rows.
fn counts(contents: &Contents, selected: usize) -> String {
    let mut out = format!(
        "{}, {}",
        format::counted(contents.rows().len(), "item", "items"),
        format::counted(contents.folders(), "folder", "folders")
    );
    if selected > 0 {
        out.push_str(&format!(", {} selected", format::count(selected)));
    }
    out
}

/// A toolbar button with a glyph and a tooltip; disabled without a message.
fn tool<'a>(glyph: &'a str, tip: &'a str, on_press: Option<Message>) -> Element<'a, Message> {
    let button = button(text(glyph).size(18).center().width(Fill).height(Fill))
        .width(34)
        .height(32)
        .padding(0)
        .style(style::tool_button)
        .on_press_maybe(on_press);
    let tip = container(text(tip).size(12))
        .padding([4, 8])
        .style(container::rounded_box);
    tooltip(button, tip, Position::Bottom).gap(4).into()
}

/// Secondary text in a cell.
fn small<'a>(content: impl text::IntoFragment<'a>) -> text::Text<'a> {
    text(content)
        .size(SMALL)
        .style(dim)
        .wrapping(Wrapping::None)
}

fn dim(theme: &Theme) -> text::Style {
    text::Style {
        color: Some(style::colors(theme).dim),
    }
}

fn faint(theme: &Theme) -> text::Style {
    text::Style {
        color: Some(style::colors(theme).text.scale_alpha(0.6)),
    }
}

fn bold() -> Font {
    Font {
        weight: Weight::Bold,
        ..Font::DEFAULT
    }
}

/// A small drawn icon: a folder (tab and body) or a page with a coloured band, in the
/// category's colour.
fn icon<'a>(entry: EntryRef<'_>) -> Element<'a, Message> {
    let category = format::category(entry);
    let link = entry.kind() == Kind::Symlink;
    let shape: Element<'a, Message> = if category == Category::Folder {
        let body = move |theme: &Theme| {
            let fill = style::icon_color(theme, Category::Folder);
            style::icon_shape(if link { fill.scale_alpha(0.6) } else { fill }, 2.5)(theme)
        };
        let tab = move |theme: &Theme| {
            style::icon_shape(
                style::icon_color(theme, Category::Folder).scale_alpha(0.75),
                1.5,
            )(theme)
        };
        column![
            container(space()).width(9).height(4).style(tab),
            container(space()).width(20).height(13).style(body),
        ]
        .spacing(-1.5)
        .into()
    } else {
        let band =
            move |theme: &Theme| style::icon_shape(style::icon_color(theme, category), 1.0)(theme);
        let page = move |theme: &Theme| style::icon_page(style::icon_color(theme, category))(theme);
        container(
            column![
                space().height(Fill),
                container(space()).width(Fill).height(5).style(band)
            ]
            .padding(3),
        )
        .width(15)
        .height(19)
        .style(page)
        .into()
    };
    container(shape)
        .width(ICON_W)
        .height(ROW_HEIGHT)
        .center_x(ICON_W)
        .center_y(ROW_HEIGHT)
        .into()
}

/// Shortens `name` in the middle ("holiday-ph…2019.jpg") so its end stays visible.
fn ellipsize(name: Cow<'_, str>, max_chars: usize) -> Cow<'_, str> {
    let count = name.chars().count();
    if count <= max_chars {
        return name;
    }
    let keep = max_chars.saturating_sub(1);
    let tail = keep / 3;
    let head = keep - tail;
    let start: String = name.chars().take(head).collect();
    let end: String = name.chars().skip(count - tail).collect();
    Cow::Owned(format!("{start}…{end}"))
}

/// The message in place of the rows when nothing is shown. Nothing while loading: most folders
/// arrive within a frame or two, and a flashing message would only distract (the status bar
/// says "Loading…").
fn empty_state<'a>(listing: &Listing, contents: &Contents) -> Element<'a, Message> {
    let (title, hint) = match listing {
        Listing::Loading(_) => return space().into(),
        _ if contents.hidden() > 0 => {
            ("Only hidden files here", Some("Press Ctrl+H to show them."))
        }
        _ => ("This folder is empty", None),
    };
    let mut message = column![text(title).size(16).style(dim)]
        .spacing(6)
        .align_x(Alignment::Center);
    if let Some(hint) = hint {
        message = message.push(text(hint).size(SMALL).style(dim));
    }
    center(message).into()
}

/// The error shown instead of the rows.
fn failure<'a>(path: &Path, error: &ferry_core::Error) -> Element<'a, Message> {
    let name = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let headline = if error.is_permission_denied() {
        format!("You don't have permission to view “{name}”.")
    } else if error.is_not_found() {
        format!("“{name}” doesn't exist.")
    } else {
        format!("“{name}” can't be opened.")
    };
    let content = column![
        text("Can't show this folder").size(18).font(bold()),
        text(headline).size(TEXT),
        text(error.to_string()).size(SMALL).style(dim),
    ]
    .spacing(8)
    .align_x(Alignment::Center);
    center(content).padding(24).into()
}

/// One segment of the path bar.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Crumb {
    Folder { label: String, path: PathBuf },
    Elided,
}

/// The path bar's segments: "Home" for the home folder, "/" for the root, then one per folder;
/// deep paths keep the first and the last few.
fn crumbs(path: &Path, home: Option<&Path>) -> Vec<Crumb> {
    let (mut crumbs, rest) = match home.and_then(|home| Some((home, path.strip_prefix(home).ok()?)))
    {
        Some((home, rest)) => (
            vec![Crumb::Folder {
                label: "Home".into(),
                path: home.to_path_buf(),
            }],
            rest,
        ),
        None => (
            vec![Crumb::Folder {
                label: "/".into(),
                path: PathBuf::from("/"),
            }],
            path.strip_prefix("/").unwrap_or(path),
        ),
    };
    let mut at = match &crumbs[0] {
        Crumb::Folder { path, .. } => path.clone(),
        Crumb::Elided => unreachable!("the first crumb is a folder"),
    };
    for part in rest.components() {
        at.push(part);
        let label = part.as_os_str().to_string_lossy().into_owned();
        crumbs.push(Crumb::Folder {
            label,
            path: at.clone(),
        });
    }
    if crumbs.len() > MAX_CRUMBS {
        let tail = crumbs.split_off(crumbs.len() - (MAX_CRUMBS - 2));
        crumbs.truncate(1);
        crumbs.push(Crumb::Elided);
        crumbs.extend(tail);
    }
    crumbs
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(crumbs: &[Crumb]) -> Vec<&str> {
        crumbs
            .iter()
            .map(|c| match c {
                Crumb::Folder { label, .. } => label.as_str(),
                Crumb::Elided => "…",
            })
            .collect()
    }

    #[test]
    fn crumbs_start_at_home_or_root() {
        let home = Path::new("/home/ann");
        let c = crumbs(Path::new("/home/ann/Documents/tax"), Some(home));
        assert_eq!(labels(&c), ["Home", "Documents", "tax"]);
        assert_eq!(
            c[2],
            Crumb::Folder {
                label: "tax".into(),
                path: PathBuf::from("/home/ann/Documents/tax")
            }
        );
        assert_eq!(
            labels(&crumbs(Path::new("/usr/share"), Some(home))),
            ["/", "usr", "share"]
        );
        assert_eq!(labels(&crumbs(Path::new("/"), Some(home))), ["/"]);
        assert_eq!(labels(&crumbs(home, Some(home))), ["Home"]);
    }

    #[test]
    fn deep_paths_collapse_in_the_middle() {
        let c = crumbs(Path::new("/a/b/c/d/e/f/g"), None);
        assert_eq!(labels(&c), ["/", "…", "d", "e", "f", "g"]);
    }

    #[test]
    fn long_names_keep_their_end() {
        assert_eq!(ellipsize("short.txt".into(), 20), "short.txt");
        let long = ellipsize("a-very-long-holiday-photo-name-2019.jpg".into(), 16);
        assert_eq!(long, "a-very-lon…9.jpg");
        assert_eq!(long.chars().count(), 16);
    }
}
