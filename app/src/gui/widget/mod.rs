//! Widgets generic over the message type, with no knowledge of screens: the windowed
//! [`list`] and the icon [`grid`]'s geometry, their [`scrollbar`], drawn file [`icon`]s, the
//! [`context_menu`], [`toast`]s, the [`pointer`] area, giving a text [`field`] the keyboard, and
//! small helpers shared by screens.

pub mod context_menu;
pub mod field;
pub mod grid;
pub mod icon;
pub mod list;
pub mod mnemonic;
pub mod pointer;
pub mod scrollbar;
pub mod toast;

use iced::widget::tooltip::Position;
use iced::widget::{button, container, text, tooltip};
use iced::{Element, Fill};

use crate::gui::style;

/// A flat toolbar button showing `glyph`, with `tip` as its tooltip; disabled without a
/// message.
pub fn tool<'a, Message: Clone + 'a>(
    glyph: &'a str,
    tip: &'a str,
    on_press: Option<Message>,
) -> Element<'a, Message> {
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
