//! Toasts: short messages at the bottom of the window that go away by themselves ("Added
//! “Photos” to Places", "The settings file could not be read; defaults are used").

use iced::widget::{Column, button, container, row, text};
use iced::{Alignment, Element, Fill};

use crate::gui::style;

/// Space under the toasts: they sit above the pane's status bar (about 28 pixels), whose item
/// count they covered at 24.
const BARS_CLEARANCE: f32 = 40.0;

/// `base` with `toasts` (each `(id, text, buttons)`) stacked over its bottom; a button
/// sends its message, ✕ sends `on_close(id)`.
pub fn overlay<'a, Message: Clone + 'a>(
    base: Element<'a, Message>,
    toasts: impl Iterator<Item = (u64, &'a str, Vec<(&'a str, Message)>)>,
    on_close: impl Fn(u64) -> Message,
) -> Element<'a, Message> {
    let mut column = Column::new().spacing(6).align_x(Alignment::Center);
    let mut any = false;
    for (id, message, actions) in toasts {
        any = true;
        let close = button(text("✕").size(12))
            .padding([2, 6])
            .style(style::toast_button)
            .on_press(on_close(id));
        let mut line = row![text(message).size(13)]
            .spacing(12)
            .align_y(Alignment::Center);
        for (label, action) in actions {
            line = line.push(
                button(text(label).size(13).font(style::bold()))
                    .padding([2, 8])
                    .style(style::toast_button)
                    .on_press(action),
            );
        }
        column = column.push(
            container(line.push(close))
                .padding([8, 14])
                .max_width(640)
                .style(style::toast),
        );
    }
    if !any {
        return base;
    }
    let layer = container(column)
        .width(Fill)
        .height(Fill)
        .align_bottom(Fill)
        .center_x(Fill)
        .padding(iced::Padding::from(24).bottom(BARS_CLEARANCE));
    iced::widget::stack![base, layer].into()
}
