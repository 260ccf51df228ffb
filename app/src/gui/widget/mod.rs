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

use ferry_core::sort::Direction;
use iced::alignment::Horizontal;
use iced::widget::tooltip::Position;
use iced::widget::{Row, button, container, space, text, tooltip};
use iced::{Alignment, Element, Fill, Length};

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

/// A column header of a sortable list (the details view, the Trash view): `label`, with an
/// arrow when the list is sorted by it (`sorted`), aligned as the column's cells; a press
/// sends `on_press`.
pub fn sort_header<'a, Message: Clone + 'a>(
    label: &'a str,
    sorted: Option<Direction>,
    width: Length,
    align: Horizontal,
    on_press: Message,
) -> button::Button<'a, Message> {
    /// The headers' text size and the cells' side padding, shared by both lists.
    const SIZE: f32 = 13.0;
    const PAD: f32 = 8.0;
    let mut content = Row::new().spacing(4).align_y(Alignment::Center);
    if align == Horizontal::Right {
        content = content.push(space::horizontal());
    }
    content = content.push(text(label).size(SIZE));
    let arrow = match sorted {
        None => None,
        Some(Direction::Ascending) => Some("▴"),
        Some(Direction::Descending) => Some("▾"),
    };
    if let Some(arrow) = arrow {
        content = content.push(text(arrow).size(SIZE));
    }
    button(content)
        .width(width)
        .padding([7.0, PAD])
        .style(style::header_button)
        .on_press(on_press)
}
