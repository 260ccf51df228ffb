//! Toasts: short messages at the bottom of the window that go away by themselves ("Added
//! “Photos” to Places", "The settings file could not be read; defaults are used").

use iced::widget::{Column, button, container, row, text};
use iced::{Alignment, Element, Fill};

use crate::gui::style;

/// Space under the toasts: they sit above the pane's status bar (about 28 pixels), whose item
/// count they covered at 24.
const BARS_CLEARANCE: f32 = 40.0;
/// Space left of and right of the toasts, and above them.
const MARGIN: f32 = 24.0;
/// The widest a toast gets.
const MAX_WIDTH: f32 = 640.0;
/// Space between a toast's edge and its text.
const PADDING_X: f32 = 14.0;
/// Space between the text and each button.
const SPACING: f32 = 12.0;
/// A generous width of one character of the toast's 13-pixel text, to tell a message that
/// needs the whole width (an overestimate only makes a toast as wide as it may be).
const CHAR_WIDTH: f32 = 8.0;
/// The width of ✕ with its padding.
const CLOSE_WIDTH: f32 = 26.0;

/// A toast to show: its id, its text and its buttons with the message each sends.
pub type Toast<'a, Message> = (u64, &'a str, Vec<(&'a str, Message)>);

/// `base` with `toasts` stacked over its bottom; a button sends its message, ✕ sends
/// `on_close(id)`.
///
/// A toast is as wide as its text up to [`MAX_WIDTH`] (and the space there is). A text too
/// long for one line beside the buttons makes its toast that wide, the text wrapped in what the
/// buttons leave: laid out to fit its text, the text took the whole line and pushed Undo and
/// ✕ past the toast's edge, where they were cut off.
pub fn overlay<'a, Message: Clone + 'a>(
    base: Element<'a, Message>,
    toasts: Vec<Toast<'a, Message>>,
    on_close: impl Fn(u64) -> Message + 'a,
) -> Element<'a, Message> {
    if toasts.is_empty() {
        return super::unlayered(base);
    }
    let layer = iced::widget::responsive(move |size| {
        let widest = MAX_WIDTH.min(size.width - 2.0 * MARGIN).max(0.0);
        let column = toasts.iter().fold(
            Column::new().spacing(6).align_x(Alignment::Center),
            |column, toast| column.push(one(toast, widest, &on_close)),
        );
        container(column)
            .width(Fill)
            .height(Fill)
            .align_bottom(Fill)
            .center_x(Fill)
            .padding(iced::Padding::from(MARGIN).bottom(BARS_CLEARANCE))
            .into()
    });
    iced::widget::stack![base, layer].into()
}

/// One toast, at most `widest` wide.
fn one<'a, Message: Clone + 'a>(
    (id, message, actions): &Toast<'a, Message>,
    widest: f32,
    on_close: &impl Fn(u64) -> Message,
) -> Element<'a, Message> {
    let estimate = |s: &str| s.chars().count() as f32 * CHAR_WIDTH;
    let buttons: f32 = actions
        .iter()
        .map(|(label, _)| SPACING + estimate(label) + 16.0)
        .sum::<f32>()
        + SPACING
        + CLOSE_WIDTH;
    let wraps = estimate(message) + buttons > widest - 2.0 * PADDING_X;
    // A long name is one word: it breaks anywhere rather than run under the buttons.
    let words = text(*message)
        .size(13)
        .wrapping(iced::widget::text::Wrapping::WordOrGlyph);
    let mut line = row![if wraps { words.width(Fill) } else { words }]
        .spacing(SPACING)
        .align_y(Alignment::Center);
    for (label, action) in actions {
        line = line.push(
            button(text(*label).size(13).font(style::bold()))
                .padding([2, 8])
                .style(style::toast_button)
                .on_press(action.clone()),
        );
    }
    let close = button(text("✕").size(12))
        .padding([2, 6])
        .style(style::toast_button)
        .on_press(on_close(*id));
    let toast = container(line.push(close))
        .padding([8.0, PADDING_X])
        .style(style::toast);
    if wraps {
        toast.width(widest).into()
    } else {
        toast.max_width(MAX_WIDTH).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use iced_test::selector::Candidate;

    /// Where the text `label` is in the toasts of a `width` wide window showing `message`
    /// with an Undo button.
    fn bounds_of(message: &str, width: f32, label: &str) -> iced::Rectangle {
        let toasts = vec![(1, message, vec![("Undo", ())])];
        // The panes fill the window, and the toasts' layer takes their size.
        let panes = container(text("pane")).width(Fill).height(Fill);
        let element = overlay(panes.into(), toasts, |_| ());
        let mut ui =
            iced_test::Simulator::with_size(iced::Settings::default(), (width, 500.0), element);
        ui.find(|candidate: Candidate<'_>| match candidate {
            Candidate::Text {
                content, bounds, ..
            } if content == label => Some(bounds),
            _ => None,
        })
        .unwrap_or_else(|_| panic!("no {label}"))
    }

    /// A message longer than its line wraps beside its buttons: laid out to fit its text, it
    /// left Undo and ✕ what space remained, and ✕ got none.
    #[test]
    fn a_long_message_wraps_and_leaves_its_buttons_whole() {
        // A name with no space or hyphen to break at fills every line it wraps to.
        let long = format!("Copied “{}.txt” to “Music”.", "quarterlyreport".repeat(14));
        for width in [600.0, 1100.0] {
            let toast_edge = (width + MAX_WIDTH.min(width - 2.0 * MARGIN)) / 2.0 - PADDING_X;
            for label in ["Undo", "✕"] {
                let whole = bounds_of("Copied.", width, label).width;
                let bounds = bounds_of(&long, width, label);
                assert!(
                    bounds.width >= whole && bounds.x + bounds.width <= toast_edge + 0.5,
                    "{label} at {bounds:?}, {whole} wide alone, the toast ends at {toast_edge}"
                );
            }
        }
    }
}
