//! The pane as a whole: location bar, the notice, the listing (or why there is none), the
//! filter bar and the status bar. Every string is derived at view time, for the visible rows
//! only.

use std::path::Path;

use iced::widget::text::Wrapping;
use iced::widget::{
    button, center, column, container, mouse_area, row, rule, space, text, text_input,
};
use iced::{Alignment, Element, Fill};

use super::{Browser, Contents, Listing, Message};
use crate::gui::format;
use crate::gui::settings::ViewMode;
use crate::gui::style;
use crate::gui::widget::field::{self, Opened};

/// Body text size.
pub(super) const TEXT: f32 = 14.0;
/// Secondary text size.
pub(super) const SMALL: f32 = 13.0;

/// How a pane is drawn beside the other pane of a split, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Look {
    /// The only pane.
    Alone,
    /// The pane of a split that has the keyboard: a line of the accent over it.
    Active,
    /// The other pane of a split: its selection drawn in grey, with no focus ring, as
    /// Dolphin draws its inactive view (both panes showed the same strong selection, and only
    /// a 2-pixel line told which one keys went to).
    Inactive,
}

impl Browser {
    /// The whole pane, drawn as `look` says.
    pub fn view(&self, look: Look) -> Element<'_, Message> {
        let active = look == Look::Active;
        let location = container(self.path_bar())
            .padding([6, 8])
            .width(Fill)
            .style(style::chrome);
        let mut pane = column![
            location,
            rule::horizontal(1).style(style::separator),
            self.body(look == Look::Inactive),
        ];
        if let Some(filter) = self.filter_bar() {
            pane = pane.push(rule::horizontal(1).style(style::separator));
            pane = pane.push(filter);
        }
        let pane = pane
            .push(rule::horizontal(1).style(style::separator))
            .push(self.status_bar());
        // In a split, a line of the accent over the pane that has the keyboard.
        let mark = container(space())
            .width(Fill)
            .height(3)
            .style(style::active_mark(active));
        column![mark, pane].into()
    }

    fn body(&self, inactive: bool) -> Element<'_, Message> {
        let content = match &self.listing {
            Listing::Failed(error) => failure(&self.path, error),
            Listing::Loading(contents) | Listing::Loaded(contents) => match self.mode {
                ViewMode::Details => self.details(contents, inactive),
                ViewMode::Icons => self.icons(contents, inactive),
            },
        };
        let notice = self.notice.as_ref().map(|notice| {
            let close = button(text("✕").size(SMALL))
                .padding([2, 8])
                .style(style::tool_button)
                .on_press(Message::NoticeDismissed);
            let banner = row![text(notice.as_str()).size(SMALL).width(Fill), close]
                .align_y(Alignment::Center);
            container(container(banner).padding([6, 12]).style(style::notice))
                .padding([8, 12])
                .into()
        });
        // The notice in its place whether shown or not: its coming rebuilt the list under
        // it, back at the top (see `widget::slot`).
        container(column![crate::gui::widget::slot(notice), content])
            .width(Fill)
            .height(Fill)
            .style(style::list)
            .into()
    }

    /// The filter bar (Ctrl+I), while it is open.
    fn filter_bar(&self) -> Option<Element<'_, Message>> {
        let typed = self.filter.as_deref()?;
        let field = text_input("Filter by name", typed)
            .id(self.filter_input_id())
            .on_input(Message::FilterEdited)
            .size(SMALL)
            .padding([5, 10])
            .style(style::path_input)
            // At most 260 px, less in a narrow pane, where the count beside it needs about
            // 300 px: fixed at 260, it left "111 of 3,000 shown" cut to "…showr" in a split.
            .width((self.bounds.width - 300.0).clamp(100.0, 260.0));
        let shown = self.listing.contents().map_or(String::new(), |c| {
            let total = c.rows().len() + c.filtered_out();
            format!(
                "{} of {} shown",
                format::count(c.rows().len()),
                format::count(total)
            )
        });
        let close = button(text("✕").size(SMALL))
            .padding([2, 8])
            .style(style::tool_button)
            .on_press(Message::FilterClosed);
        let bar = row![
            text("Filter:").size(SMALL),
            field,
            small(shown).wrapping(iced::widget::text::Wrapping::None),
            space::horizontal(),
            close
        ]
        .spacing(8)
        .align_y(Alignment::Center);
        Some(
            container(bar)
                .padding([4, 12])
                .width(Fill)
                .style(style::chrome)
                .into(),
        )
    }

    /// Opens the filter bar and puts the keyboard in it.
    pub(super) fn open_filter(&mut self) -> iced::Task<Message> {
        let typed = self.filter.get_or_insert_with(String::new);
        self.filter_opened = Opened::all(typed);
        self.filter_typing = true;
        field::focus(self.filter_input_id(), self.filter_opened.clone())
    }
}

/// Secondary text in a cell.
pub(super) fn small<'a>(content: impl text::IntoFragment<'a>) -> text::Text<'a> {
    text(content)
        .size(SMALL)
        .style(style::dim_text)
        .wrapping(Wrapping::None)
}

/// The message in place of the rows when nothing is shown. Nothing while loading: most folders
/// arrive within a frame or two, and a flashing message would only distract (the status bar
/// says "Loading…").
pub(super) fn empty_state<'a>(listing: &Listing, contents: &Contents) -> Element<'a, Message> {
    let (title, hint) = match listing {
        Listing::Loading(_) => return space().into(),
        _ if contents.filtered_out() > 0 => ("No name matches the filter", None),
        // A folder being copied here is filled under a hidden name, then renamed: "Only
        // hidden files here. Press Ctrl+H" read as if the copy had gone missing.
        _ if contents.hidden() > 0 && contents.unfinished() == contents.hidden() => (
            "Nothing finished here yet",
            Some("What is being copied or moved here shows once it is complete."),
        ),
        _ if contents.hidden() > 0 => {
            ("Only hidden files here", Some("Press Ctrl+H to show them."))
        }
        _ => ("This folder is empty", None),
    };
    let mut message = column![text(title).size(16).style(style::dim_text)]
        .spacing(6)
        .align_x(Alignment::Center);
    if let Some(hint) = hint {
        message = message.push(text(hint).size(SMALL).style(style::dim_text));
    }
    center(message).into()
}

/// The error shown instead of the rows.
fn failure<'a>(path: &Path, error: &ferry_core::Error) -> Element<'a, Message> {
    let name = format::display_name(path);
    let headline = if error.is_permission_denied() {
        format!("You don't have permission to view “{name}”.")
    } else if error.is_not_found() {
        format!("“{name}” doesn't exist.")
    } else {
        format!("“{name}” can't be opened.")
    };
    let content = column![
        text("Can't show this folder").size(18).font(style::bold()),
        text(headline).size(TEXT),
        text(error.to_string()).size(SMALL).style(style::dim_text),
    ]
    .spacing(8)
    .align_x(Alignment::Center);
    mouse_area(center(content).padding(24))
        .on_press(Message::FailurePressed)
        .into()
}
