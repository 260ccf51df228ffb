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

/// `base` alone in a stack: the shape it has under an overlay (a menu, a dialog, toasts, the
/// drag badge), which is a stack of `base` and the overlay's layers. iced keeps a widget's
/// state (a list's scroll position, a field's cursor) only while the tree around it keeps its
/// shape, so an overlay that wrapped `base` only while shown rebuilt everything under it:
/// opening a menu scrolled the list back to the top.
pub fn unlayered<'a, Message: 'a>(base: Element<'a, Message>) -> Element<'a, Message> {
    iced::widget::stack![base].into()
}

/// `element`, or where there is none an empty one, holding its place among its siblings: a
/// column or row that gains or loses a child before another rebuilds that other's state (the
/// tab bar appearing above the panes left the list blank, its rows built for the old scroll
/// position, the scrollable's own back at the top).
pub fn slot<'a, Message: 'a>(element: Option<Element<'a, Message>>) -> Element<'a, Message> {
    element.unwrap_or_else(|| space().into())
}

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
