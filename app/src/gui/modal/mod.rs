//! Dialogs over the window. Each has what a screen has (a view, and messages the window
//! routes); [`dialog`] puts one over the window with a dimmed backdrop that blocks the rest.

pub mod confirm;
pub mod conflict;
pub mod folder_prompt;
pub mod item_error;
pub mod name_prompt;
mod prompt;
pub mod shortcuts;

use iced::widget::{center, container, mouse_area, opaque, stack};
use iced::{Element, Length};

use crate::gui::style;

/// `base` with `content` centred over it in a card; a press on the backdrop sends
/// `on_dismiss`.
pub fn dialog<'a, Message: Clone + 'a>(
    base: Element<'a, Message>,
    content: Option<Element<'a, Message>>,
    on_dismiss: Message,
) -> Element<'a, Message> {
    let Some(content) = content else {
        return crate::gui::widget::unlayered(base);
    };
    let card = container(content)
        .padding(20)
        .max_width(720)
        .style(style::dialog);
    let backdrop = mouse_area(
        center(opaque(card))
            .width(Length::Fill)
            .height(Length::Fill)
            .style(style::backdrop),
    )
    .on_press(on_dismiss);
    stack![base, opaque(backdrop)].into()
}
