//! The pane as a whole: toolbar, the notice, the listing (or why there is none) and the
//! status bar. Every string is derived at view time, for the visible rows only.

use std::path::Path;

use iced::widget::text::Wrapping;
use iced::widget::{button, center, column, container, row, rule, space, text, toggler};
use iced::{Alignment, Element, Fill};

use super::{Browser, Contents, Listing, Message};
use crate::gui::format;
use crate::gui::shortcut::Action;
use crate::gui::style;
use crate::gui::widget::tool;

/// Body text size.
pub(super) const TEXT: f32 = 14.0;
/// Secondary text size.
pub(super) const SMALL: f32 = 13.0;

impl Browser {
    /// The whole pane.
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
            self.history
                .can_go_back()
                .then_some(Message::Action(Action::Back)),
        );
        let forward = tool(
            "→",
            "Forward (Alt+Right)",
            self.history
                .can_go_forward()
                .then_some(Message::Action(Action::Forward)),
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

    fn body(&self) -> Element<'_, Message> {
        let content = match &self.listing {
            Listing::Failed(error) => failure(&self.path, error),
            Listing::Loading(contents) | Listing::Loaded(contents) => self.details(contents),
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
    center(content).padding(24).into()
}
