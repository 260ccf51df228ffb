//! The Keyboard Shortcuts dialog (Ctrl+F1, or the menu): every binding of the one table in
//! [`shortcut`](crate::gui::shortcut), so the list cannot drift from what the keys do, each
//! action once with all its keys; then the Trash view's and the jobs panel's own keys (their
//! `KEYS`, each checked against its key handler by a test).

use iced::keyboard::Key;
use iced::keyboard::key::Named;
use iced::widget::operation::{self, AbsoluteOffset, RelativeOffset};
use iced::widget::{Column, Id, button, column, row, rule, scrollable, text};
use iced::{Alignment, Element, Fill, Padding, Task};

use crate::gui::screen::{jobs_panel, trash};
use crate::gui::shortcut::{Action, TABLE, key_label};
use crate::gui::style;

/// What the dialog sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Message {
    /// Close it (the button, Escape, the backdrop).
    Close,
}

/// Height of the scrolled list.
const LIST_HEIGHT: f32 = 460.0;
/// Of the window's height, what the dialog's title, footer and margins take.
const WINDOW_SPARE: f32 = 200.0;
/// One line of the list, about (13 px text and its spacing).
const LINE: f32 = 19.0;

fn list_id() -> Id {
    Id::new("ferry-shortcuts-list")
}

/// Scrolls the list for `key`, so that all of it can be read from the keyboard: the arrows
/// by a line, Page Up/Down by a page, Home and End to either end. `None` for other keys.
pub fn key<T>(key: &Key) -> Option<Task<T>> {
    let by = |y: f32| operation::scroll_by(list_id(), AbsoluteOffset { x: 0.0, y });
    let Key::Named(named) = key.as_ref() else {
        return None;
    };
    Some(match named {
        Named::ArrowDown => by(LINE),
        Named::ArrowUp => by(-LINE),
        Named::PageDown | Named::Space => by(LIST_HEIGHT - LINE),
        Named::PageUp => by(LINE - LIST_HEIGHT),
        Named::Home => operation::snap_to(list_id(), RelativeOffset::START),
        Named::End => operation::snap_to(list_id(), RelativeOffset::END),
        _ => return None,
    })
}

/// Bindings of one action in a row told once, with all their keys ("Back: Alt+←,
/// Backspace"); apart, they stay apart ("…and extend the selection" under each move).
fn merged<'a>(rows: impl Iterator<Item = (&'a str, String)>) -> Vec<(&'a str, String)> {
    let mut merged: Vec<(&str, String)> = Vec::new();
    for (what, key) in rows {
        match merged.last_mut() {
            Some((last, keys)) if *last == what => {
                keys.push_str(", ");
                keys.push_str(&key);
            }
            _ => merged.push((what, key)),
        }
    }
    merged
}

/// The bindings of the window (`window`) or of the folder view, merged.
fn table_rows(window: bool) -> Vec<(&'static str, String)> {
    let bindings = TABLE.iter().flat_map(|t| t.iter());
    let chosen = bindings.filter(|b| matches!(b.action, Action::Window(_)) == window);
    merged(chosen.map(|b| (b.what, key_label(b))))
}

fn section<'a>(title: &'static str, rows: Vec<(&'static str, String)>) -> Column<'a, Message> {
    let mut list = Column::new().spacing(2);
    list = list.push(text(title).size(13).font(style::bold()));
    for (what, keys) in rows {
        list = list.push(
            row![
                text(what).size(13).width(Fill),
                text(keys).size(12).style(style::dim_text)
            ]
            .spacing(12)
            .align_y(Alignment::Center),
        );
    }
    list
}

/// The dialog's content.
/// `window`: the window's size. In a small window the list is shorter, and the folder view's
/// column goes under the others (at the smallest window the footer and Close were cut off).
pub fn view<'a>(window: iced::Size) -> Element<'a, Message> {
    let fixed = |keys: &[(&'static str, &'static str)]| {
        keys.iter()
            .map(|&(what, key)| (what, key.to_owned()))
            .collect()
    };
    // The long folder view on the right; the window's, the trash's and the jobs panel's
    // shorter lists under one another on the left.
    let left = column![
        section("Window", table_rows(true)),
        section("Trash", fixed(trash::KEYS)),
        section("Jobs panel", fixed(jobs_panel::KEYS)),
    ]
    .spacing(16)
    .width(310);
    let right = section("Folder view", table_rows(false)).width(310);
    let close = button(text("Close").size(13))
        .padding([5, 16])
        .style(style::tool_button)
        .on_press(Message::Close);
    column![
        text("Keyboard Shortcuts").size(18).font(style::bold()),
        rule::horizontal(1).style(style::separator),
        scrollable(
            // Room on the right for the scrollbar, which is drawn over the content.
            row![left, right]
                .spacing(32)
                .padding(Padding {
                    right: 20.0,
                    ..Padding::from([0, 8])
                })
                .wrap()
                .vertical_spacing(16),
        )
        .id(list_id())
        .height(
            LIST_HEIGHT
                .min(window.height - WINDOW_SPARE)
                .max(LINE * 3.0)
        ),
        // The words wrap, so that Close stays in a narrow window (it was pushed off its edge).
        row![
            text("Letters typed in a folder or the trash select the next name starting with them (else one containing them).")
                .size(12)
                .style(style::dim_text)
                .width(Fill),
            close
        ]
        .spacing(12)
        .align_y(Alignment::Center),
    ]
    .spacing(12)
    .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The list is taller than the dialog: the keys that move through a list scroll it.
    #[test]
    fn the_list_scrolls_from_the_keyboard() {
        for named in [
            Named::ArrowDown,
            Named::PageDown,
            Named::PageUp,
            Named::Home,
            Named::End,
        ] {
            assert!(key::<()>(&Key::Named(named)).is_some(), "{named:?}");
        }
        assert!(key::<()>(&Key::Named(Named::Enter)).is_none());
        assert!(key::<()>(&Key::Character("a".into())).is_none());
    }

    /// An action's keys side by side in the table are one row, and no binding is lost.
    #[test]
    fn each_action_is_one_row_with_all_its_keys() {
        let rows: Vec<_> = table_rows(false)
            .into_iter()
            .chain(table_rows(true))
            .collect();
        let back: Vec<_> = rows.iter().filter(|(what, _)| *what == "Back").collect();
        assert_eq!(back.len(), 1, "{back:?}");
        assert_eq!(back[0].1, "Alt+←, Backspace, BrowserBack");
        for binding in TABLE.iter().flat_map(|t| t.iter()) {
            let label = key_label(binding);
            let listed = (rows.iter())
                .any(|(what, keys)| *what == binding.what && keys.split(", ").any(|k| k == label));
            assert!(listed, "{} {label}", binding.what);
        }
    }
}
