//! Giving the keyboard to a text field that a shortcut has just opened (the location bar, the
//! rename editor, the filter), without losing what is typed meanwhile.
//!
//! The window handles the key presses that arrive while it is busy as one batch, all against
//! the widgets of the last frame: the letters typed after Ctrl+L in the same batch find no
//! field to take them. The screen gives those to the field's text with [`Opened::type_early`];
//! [`focus`] focuses the field and selects the part that typing replaces in one step, so no key
//! can come in between, or, when text was typed early, puts the cursor after it. Early letters
//! can still be on their way when the field is focused (their fate was decided against the
//! last frame), so each one also moves the cursor after itself once the field shows it.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use iced::Rectangle;
use iced::Task;
use iced::advanced::widget::operation::{Focusable, Operation, Outcome, TextInput};
use iced::widget::Id;

/// No text was typed early.
const UNTOUCHED: usize = usize::MAX;

/// A field as it opened: the part of its text (in characters) that typing replaces, and the
/// cursor after the text typed before it had the keyboard. Clones share that cursor, so the
/// operation of [`focus`] sees what the screen typed early, whenever it runs.
#[derive(Debug, Clone)]
pub struct Opened {
    selected: Range<usize>,
    early: Arc<AtomicUsize>,
}

impl Default for Opened {
    fn default() -> Self {
        Opened::range(0..0)
    }
}

impl Opened {
    /// A field opened on `text` with all of it selected.
    pub fn all(text: &str) -> Opened {
        Opened::range(0..text.chars().count())
    }

    /// A field opened with the characters `selected` of its text selected.
    pub fn range(selected: Range<usize>) -> Opened {
        Opened {
            selected,
            early: Arc::new(AtomicUsize::new(UNTOUCHED)),
        }
    }

    /// `c`, typed before the field `id` had the keyboard, into `text` (the field's text): the
    /// first character replaces the selection, as it would have in the field; the next ones
    /// follow it. The task puts the field's cursor after it.
    pub fn type_early<T: Send + 'static>(&self, id: Id, text: &mut String, c: char) -> Task<T> {
        self.insert_early(text, c);
        iced::advanced::widget::operate(Select {
            id,
            opened: self.clone(),
        })
    }

    fn insert_early(&self, text: &mut String, c: char) {
        let byte = |text: &str, chars: usize| {
            text.char_indices()
                .nth(chars)
                .map_or(text.len(), |(at, _)| at)
        };
        let at = match self.early.load(Ordering::Acquire) {
            UNTOUCHED => {
                let (start, end) = (self.selected.start, self.selected.end);
                text.replace_range(byte(text, start)..byte(text, end), "");
                start
            }
            at => at,
        };
        text.insert(byte(text, at), c);
        self.early.store(at + 1, Ordering::Release);
    }
}

/// Focuses the field `id` and selects what [`Opened`] says, or, if text was typed early, puts
/// the cursor after it: one widget operation, so no key press is handled between the focus
/// and the selection.
pub fn focus<T: Send + 'static>(id: Id, opened: Opened) -> Task<T> {
    iced::advanced::widget::operate(Focus { id, opened })
}

/// The first pass: focus the field, unfocus every other.
struct Focus {
    id: Id,
    opened: Opened,
}

impl<T: Send + 'static> Operation<T> for Focus {
    fn traverse(&mut self, operate: &mut dyn FnMut(&mut dyn Operation<T>)) {
        operate(self);
    }

    fn focusable(&mut self, id: Option<&Id>, _bounds: Rectangle, state: &mut dyn Focusable) {
        if id == Some(&self.id) {
            state.focus();
        } else {
            state.unfocus();
        }
    }

    fn finish(&self) -> Outcome<T> {
        // Focusing a text input moves its cursor to the end, so the selection is made after,
        // in a second pass of the same operation.
        Outcome::Chain(Box::new(Select {
            id: self.id.clone(),
            opened: self.opened.clone(),
        }))
    }
}

/// The second pass: the selection, or the cursor after early typing (also what each early
/// letter asks for; it reads the cursor when it runs, so the latest letter's counts).
struct Select {
    id: Id,
    opened: Opened,
}

impl<T: Send + 'static> Operation<T> for Select {
    fn traverse(&mut self, operate: &mut dyn FnMut(&mut dyn Operation<T>)) {
        operate(self);
    }

    fn text_input(&mut self, id: Option<&Id>, _bounds: Rectangle, state: &mut dyn TextInput) {
        if id != Some(&self.id) {
            return;
        }
        match self.opened.early.load(Ordering::Acquire) {
            UNTOUCHED => {
                let Range { start, end } = self.opened.selected;
                state.select_range(start, end);
            }
            at => state.move_cursor_to(at),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(opened: &Opened, text: &str, keys: &str) -> String {
        let mut text = text.to_owned();
        for c in keys.chars() {
            opened.insert_early(&mut text, c);
        }
        text
    }

    fn early(opened: &Opened) -> Option<usize> {
        Some(opened.early.load(Ordering::Acquire)).filter(|&at| at != UNTOUCHED)
    }

    #[test]
    fn early_typing_replaces_the_selection_then_follows_it() {
        let path = Opened::all("/home/u");
        assert_eq!(early(&path), None);
        assert_eq!(typed(&path, "/home/u", "/tmp"), "/tmp");
        assert_eq!(early(&path), Some(4));

        // Rename: the name without its extension is selected.
        let name = Opened::range(0..5);
        assert_eq!(typed(&name, "draft.txt", "final"), "final.txt");
        assert_eq!(early(&name), Some(5));

        // Characters, not bytes.
        let name = Opened::range(0..4);
        assert_eq!(typed(&name, "café.tar", "thé"), "thé.tar");
        assert_eq!(early(&name), Some(3));

        // An empty filter takes what is typed.
        let filter = Opened::all("");
        assert_eq!(typed(&filter, "", "ab"), "ab");
        assert_eq!(early(&filter), Some(2));
    }

    #[test]
    fn typing_the_text_it_opened_with_and_more_keeps_all_of_it() {
        // The folder's own path typed on into a deeper one: the second "/" must not replace
        // everything as the first letter did.
        let path = Opened::all("/home/u");
        assert_eq!(typed(&path, "/home/u", "/home/u/docs"), "/home/u/docs");
        // Clones (the focus operation's) see the same cursor, typed into before or after.
        let operation = path.clone();
        assert_eq!(early(&operation), Some(12));
        typed(&path, "/home/u/docs", "/");
        assert_eq!(early(&operation), Some(13));
    }
}
