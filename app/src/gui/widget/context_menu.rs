//! A popup menu of our own (iced 0.14 has none): entries drawn as flat buttons in a framed
//! column, placed at a point and kept inside the window, with one entry highlighted for the
//! keyboard (Up/Down move it, Enter takes it). The owner keeps which menu is open and where;
//! this module only lays it out and draws it.

use iced::widget::{Column, button, container, opaque, pin, row, rule, space, stack, text};
use iced::{Alignment, Element, Fill, Point, Size};

use crate::gui::style;

/// The menu's width.
pub const WIDTH: f32 = 330.0;
/// The widest a menu gets, for a long entry ("Undo: Rename “notes.txt” to “notes2.txt”" was
/// cut to "Undo: Rename “notes.…notes2.txt”" in 330 pixels).
const MAX_WIDTH: f32 = 560.0;
/// An entry's width beside its label and shortcut: the frame's and the entry's padding, the
/// check mark's column and the spaces between.
const ENTRY_CHROME: f32 = 2.0 * PAD + 2.0 * 8.0 + 18.0 + 2.0 * 4.0 + 6.0;
/// The height of one clickable entry.
const ITEM_H: f32 = 28.0;
/// The height of a separator.
const SEPARATOR_H: f32 = 9.0;
/// The height of a section heading.
const HEADING_H: f32 = 24.0;
/// Space between the frame and the entries.
const PAD: f32 = 4.0;

/// One line of a menu.
#[derive(Debug, Clone)]
pub enum Entry<Message> {
    /// Something to do; without a message it is shown disabled.
    Item {
        /// What it says.
        label: String,
        /// Its keyboard shortcut, shown on the right.
        shortcut: Option<&'static str>,
        /// A check mark in front (radio groups such as "Sort by").
        checked: bool,
        /// What choosing it sends.
        message: Option<Message>,
    },
    /// A thin line between groups.
    Separator,
    /// A group's title, not clickable.
    Heading(&'static str),
}

impl<Message> Entry<Message> {
    /// An enabled entry.
    pub fn item(label: impl Into<String>, message: Message) -> Self {
        Entry::Item {
            label: label.into(),
            shortcut: None,
            checked: false,
            message: Some(message),
        }
    }

    /// This entry with its shortcut shown.
    #[must_use]
    pub fn key(self, shortcut: &'static str) -> Self {
        match self {
            Entry::Item {
                label,
                checked,
                message,
                ..
            } => Entry::Item {
                label,
                shortcut: Some(shortcut),
                checked,
                message,
            },
            other => other,
        }
    }

    /// This entry with a check mark when `checked`.
    #[must_use]
    pub fn checked(self, checked: bool) -> Self {
        match self {
            Entry::Item {
                label,
                shortcut,
                message,
                ..
            } => Entry::Item {
                label,
                shortcut,
                checked,
                message,
            },
            other => other,
        }
    }

    /// The same entry sending `f(message)`.
    pub fn map<N>(self, f: impl Fn(Message) -> N) -> Entry<N> {
        match self {
            Entry::Item {
                label,
                shortcut,
                checked,
                message,
            } => Entry::Item {
                label,
                shortcut,
                checked,
                message: message.map(f),
            },
            Entry::Separator => Entry::Separator,
            Entry::Heading(title) => Entry::Heading(title),
        }
    }

    /// What choosing it sends, if it can be chosen.
    pub fn message(&self) -> Option<&Message> {
        match self {
            Entry::Item { message, .. } => message.as_ref(),
            _ => None,
        }
    }

    /// True for an entry the keyboard can land on.
    pub fn is_actionable(&self) -> bool {
        matches!(
            self,
            Entry::Item {
                message: Some(_),
                ..
            }
        )
    }

    fn height(&self) -> f32 {
        match self {
            Entry::Item { .. } => ITEM_H,
            Entry::Separator => SEPARATOR_H,
            Entry::Heading(_) => HEADING_H,
        }
    }
}

/// The menu's size for `entries`.
pub fn size<Message>(entries: &[Entry<Message>]) -> Size {
    let height: f32 = entries.iter().map(Entry::height).sum();
    Size::new(width(entries), height + 2.0 * PAD)
}

/// As wide as its widest entry needs, from [`WIDTH`] to [`MAX_WIDTH`].
fn width<Message>(entries: &[Entry<Message>]) -> f32 {
    let needed = |entry: &Entry<Message>| match entry {
        Entry::Item {
            label, shortcut, ..
        } => {
            crate::gui::fit::width(label, 13.0)
                + crate::gui::fit::width(shortcut.unwrap_or(""), 12.0)
                + ENTRY_CHROME
        }
        _ => 0.0,
    };
    entries
        .iter()
        .map(needed)
        .fold(WIDTH, f32::max)
        .min(MAX_WIDTH)
}

/// Where a menu of `size` opened at `anchor` goes in a window of `window`: below and to the
/// right of the anchor when it fits, flipped up or left when it does not, and never outside.
pub fn place(anchor: Point, size: Size, window: Size) -> Point {
    let x = if anchor.x + size.width <= window.width {
        anchor.x
    } else {
        anchor.x - size.width
    };
    // Below the anchor, else above it, else as low as it fits: flipped above a point in the
    // middle of the window, a tall menu was pushed to its top edge, over the tool bar.
    let y = if anchor.y + size.height <= window.height {
        anchor.y
    } else if anchor.y >= size.height {
        anchor.y - size.height
    } else {
        window.height - size.height
    };
    let max_x = (window.width - size.width).max(0.0);
    let max_y = (window.height - size.height).max(0.0);
    Point::new(x.clamp(0.0, max_x), y.clamp(0.0, max_y))
}

/// The next actionable entry after `from` going `down` (or up), wrapping around.
pub fn step<Message>(entries: &[Entry<Message>], from: Option<usize>, down: bool) -> Option<usize> {
    let n = entries.len();
    if n == 0 {
        return None;
    }
    let start = from.unwrap_or(if down { n - 1 } else { 0 });
    (1..=n)
        .map(|i| {
            if down {
                (start + i) % n
            } else {
                (start + n - i % n) % n
            }
        })
        .find(|&i| entries[i].is_actionable())
}

/// `base` with the menu of `entries` over it at `at` (window coordinates, already placed);
/// a press anywhere else sends `on_dismiss`.
pub fn overlay<'a, Message: Clone + 'a>(
    base: Element<'a, Message>,
    entries: Vec<Entry<Message>>,
    highlighted: Option<usize>,
    at: Point,
    on_dismiss: Message,
) -> Element<'a, Message> {
    let catcher = iced::widget::mouse_area(container(space()).width(Fill).height(Fill))
        .on_press(on_dismiss.clone())
        .on_right_press(on_dismiss.clone())
        .on_middle_press(on_dismiss);
    let menu = pin(opaque(view(entries, highlighted))).x(at.x).y(at.y);
    stack![base, opaque(catcher), menu].into()
}

fn view<'a, Message: Clone + 'a>(
    entries: Vec<Entry<Message>>,
    highlighted: Option<usize>,
) -> Element<'a, Message> {
    let menu_width = width(&entries);
    let mut column = Column::new().width(menu_width - 2.0 * PAD);
    for (i, entry) in entries.into_iter().enumerate() {
        let line: Element<'a, Message> = match entry {
            Entry::Item {
                label,
                shortcut,
                checked,
                message,
            } => {
                let mark = text(if checked { "✓" } else { "" }).size(13).width(18);
                let shortcut = shortcut.unwrap_or("");
                let key = text(shortcut).size(12).style(style::dim_text);
                // One line: an entry has one line's height, a second overlapped the next; and
                // what does not fit beside the shortcut is shortened in the middle, as drawn
                // ("Undo: Move “n.…to the trash" ran into "Ctrl+Z", or lost its name).
                let room = menu_width - ENTRY_CHROME - crate::gui::fit::width(shortcut, 12.0);
                let label = crate::gui::fit::middle(label.into(), room, 13.0).into_owned();
                let label = text(label)
                    .size(13)
                    .width(Fill)
                    .wrapping(iced::widget::text::Wrapping::None);
                let line = row![mark, label, key].align_y(Alignment::Center).spacing(4);
                button(line)
                    .width(Fill)
                    .height(ITEM_H)
                    .padding([0, 8])
                    .style(style::menu_item(highlighted == Some(i)))
                    .on_press_maybe(message)
                    .into()
            }
            Entry::Separator => container(rule::horizontal(1).style(style::separator))
                .height(SEPARATOR_H)
                .center_y(SEPARATOR_H)
                .into(),
            Entry::Heading(title) => container(text(title).size(11).style(style::dim_text))
                .height(HEADING_H)
                .padding([0, 10])
                .center_y(HEADING_H)
                .into(),
        };
        column = column.push(line);
    }
    container(column).padding(PAD).style(style::menu).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_menu_stays_inside_the_window() {
        let window = Size::new(800.0, 600.0);
        let size = Size::new(WIDTH, 200.0);
        assert_eq!(
            place(Point::new(10.0, 10.0), size, window),
            Point::new(10.0, 10.0)
        );
        // Near the right and bottom edges it opens to the left and upwards.
        assert_eq!(
            place(Point::new(700.0, 550.0), size, window),
            Point::new(700.0 - WIDTH, 350.0)
        );
        // Fitting neither below nor above a point in the middle: as low as it fits, not
        // pinned to the top over the tool bar.
        let long = Size::new(WIDTH, 530.0);
        assert_eq!(place(Point::new(5.0, 300.0), long, window).y, 70.0);
        // Taller than the window: pinned to the top.
        let tall = Size::new(WIDTH, 900.0);
        assert_eq!(place(Point::new(5.0, 300.0), tall, window).y, 0.0);
    }

    /// A long entry widens the menu, so far: "Undo: Rename “notes.txt” to “notes2.txt”" was
    /// cut to "Undo: Rename “notes.…notes2.txt”" in 330 pixels.
    #[test]
    fn a_long_entry_widens_its_menu() {
        let short = vec![Entry::item("Open", 1)];
        assert_eq!(size(&short).width, WIDTH);
        let label = "Undo: Rename “notes.txt” to “a somewhat longer name.txt”";
        let long = vec![Entry::item(label, 1)];
        let wide = size(&long).width;
        assert!(wide > WIDTH && wide < MAX_WIDTH, "{wide}");
        let room = wide - ENTRY_CHROME;
        assert!(crate::gui::fit::width(label, 13.0) <= room);
        let huge = vec![Entry::item("x".repeat(400).as_str(), 1)];
        assert_eq!(size(&huge).width, MAX_WIDTH);
    }

    #[test]
    fn the_keyboard_skips_what_cannot_be_chosen() {
        let entries = vec![
            Entry::Heading("View"),
            Entry::item("A", 1),
            Entry::Separator,
            Entry::Item {
                label: "disabled".into(),
                shortcut: None,
                checked: false,
                message: None,
            },
            Entry::item("B", 2),
        ];
        assert_eq!(step(&entries, None, true), Some(1));
        assert_eq!(step(&entries, Some(1), true), Some(4));
        assert_eq!(step(&entries, Some(4), true), Some(1), "wraps around");
        assert_eq!(step(&entries, Some(1), false), Some(4));
        assert_eq!(step(&entries, None, false), Some(4));
        let height = size(&entries).height;
        assert_eq!(height, HEADING_H + 3.0 * ITEM_H + SEPARATOR_H + 2.0 * PAD);
    }
}
