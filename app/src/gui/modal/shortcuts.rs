//! The Keyboard Shortcuts dialog (Ctrl+F1, or the menu): every binding of the one table in
//! [`shortcut`](crate::gui::shortcut), so the list cannot drift from what the keys do.

use iced::widget::{Column, button, column, row, rule, scrollable, space, text};
use iced::{Alignment, Element, Fill};

use crate::gui::shortcut::{Action, TABLE, key_label};
use crate::gui::style;

/// What the dialog sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Message {
    /// Close it (the button, Escape, the backdrop).
    Close,
}

/// The dialog's content.
pub fn view<'a>() -> Element<'a, Message> {
    let section = |title: &'static str, window: bool| {
        let mut list = Column::new().spacing(2);
        list = list.push(text(title).size(13).font(style::bold()));
        for binding in TABLE.iter().flat_map(|t| t.iter()) {
            if matches!(binding.action, Action::Window(_)) != window {
                continue;
            }
            list = list.push(
                row![
                    text(binding.what).size(13).width(Fill),
                    text(key_label(binding)).size(12).style(style::dim_text)
                ]
                .spacing(12)
                .align_y(Alignment::Center),
            );
        }
        list.width(320)
    };
    let close = button(text("Close").size(13))
        .padding([5, 16])
        .style(style::tool_button)
        .on_press(Message::Close);
    column![
        text("Keyboard Shortcuts").size(18).font(style::bold()),
        rule::horizontal(1).style(style::separator),
        scrollable(
            row![section("Window", true), section("Folder view", false)]
                .spacing(32)
                .padding([0, 8])
        )
        .height(460),
        row![
            text("Letters typed in a folder select the next name starting with them.")
                .size(12)
                .style(style::dim_text),
            space::horizontal(),
            close
        ]
        .align_y(Alignment::Center),
    ]
    .spacing(12)
    .into()
}
