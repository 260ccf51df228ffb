//! Keyboard shortcuts as data: one pure function from a key press to an [`Action`].
//!
//! Subscriptions get no simulated input in `iced_test`, so the mapping lives here where it can
//! be tested directly; the window only forwards `keyboard::listen()` presses through it.

use iced::keyboard::key::Named;
use iced::keyboard::{Key, Modifiers};
use iced::mouse;

/// Something the browser can be asked to do, from the keyboard or the toolbar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Go back in history (Alt+Left).
    Back,
    /// Go forward in history (Alt+Right).
    Forward,
    /// Go to the parent folder (Backspace, Alt+Up).
    Up,
    /// List the folder again (F5, Ctrl+R).
    Refresh,
    /// Show or hide dot files (Ctrl+H).
    ToggleHidden,
    /// Open the focused entry (Enter).
    Open,
    /// Move the focus; `extend` (Shift) grows the selection from its anchor instead of
    /// replacing it.
    Move {
        /// Where to move.
        step: Step,
        /// Keep the anchor and select the whole range.
        extend: bool,
    },
    /// Select every shown entry (Ctrl+A).
    SelectAll,
    /// Clear the selection, or stop editing the path (Escape).
    ClearSelection,
    /// Type a path into the path bar (Ctrl+L).
    EditPath,
}

/// How far a keyboard move goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// One row up.
    Up,
    /// One row down.
    Down,
    /// One page up.
    PageUp,
    /// One page down.
    PageDown,
    /// The first row.
    First,
    /// The last row.
    Last,
}

/// Maps a key press to its action, if it has one.
pub fn shortcut(key: &Key, modifiers: Modifiers) -> Option<Action> {
    let alt = modifiers.alt();
    let ctrl = modifiers.command();
    let plain = !alt && !ctrl && !modifiers.logo();
    let extend = modifiers.shift();
    let step = |step| Some(Action::Move { step, extend });

    match key.as_ref() {
        Key::Named(Named::ArrowLeft) if alt && !ctrl => Some(Action::Back),
        Key::Named(Named::ArrowRight) if alt && !ctrl => Some(Action::Forward),
        Key::Named(Named::ArrowUp) if alt && !ctrl => Some(Action::Up),
        Key::Named(Named::BrowserBack) => Some(Action::Back),
        Key::Named(Named::BrowserForward) => Some(Action::Forward),
        Key::Named(Named::Backspace) if plain && !extend => Some(Action::Up),
        Key::Named(Named::F5) if !alt => Some(Action::Refresh),
        Key::Named(Named::BrowserRefresh) => Some(Action::Refresh),
        Key::Named(Named::Enter) if plain => Some(Action::Open),
        Key::Named(Named::Escape) if plain && !extend => Some(Action::ClearSelection),
        Key::Named(Named::ArrowUp) if plain => step(Step::Up),
        Key::Named(Named::ArrowDown) if plain => step(Step::Down),
        Key::Named(Named::PageUp) if plain => step(Step::PageUp),
        Key::Named(Named::PageDown) if plain => step(Step::PageDown),
        Key::Named(Named::Home) if plain => step(Step::First),
        Key::Named(Named::End) if plain => step(Step::Last),
        Key::Character(c) if ctrl && !alt => match c.to_ascii_lowercase().as_str() {
            "h" if !extend => Some(Action::ToggleHidden),
            "r" if !extend => Some(Action::Refresh),
            "a" if !extend => Some(Action::SelectAll),
            "l" if !extend => Some(Action::EditPath),
            _ => None,
        },
        _ => None,
    }
}

/// Maps a mouse's extra buttons (thumb buttons) to history moves.
pub fn mouse_button(button: mouse::Button) -> Option<Action> {
    match button {
        mouse::Button::Back => Some(Action::Back),
        mouse::Button::Forward => Some(Action::Forward),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(named: Named) -> Key {
        Key::Named(named)
    }

    fn character(c: &str) -> Key {
        Key::Character(c.into())
    }

    const NONE: Modifiers = Modifiers::empty();
    const ALT: Modifiers = Modifiers::ALT;
    const CTRL: Modifiers = Modifiers::CTRL;
    const SHIFT: Modifiers = Modifiers::SHIFT;

    #[test]
    fn navigation_keys() {
        assert_eq!(shortcut(&named(Named::ArrowLeft), ALT), Some(Action::Back));
        assert_eq!(
            shortcut(&named(Named::ArrowRight), ALT),
            Some(Action::Forward)
        );
        assert_eq!(shortcut(&named(Named::ArrowUp), ALT), Some(Action::Up));
        assert_eq!(shortcut(&named(Named::Backspace), NONE), Some(Action::Up));
        assert_eq!(
            shortcut(&named(Named::BrowserBack), NONE),
            Some(Action::Back)
        );
        assert_eq!(shortcut(&named(Named::Enter), NONE), Some(Action::Open));
    }

    #[test]
    fn refresh_and_hidden() {
        assert_eq!(shortcut(&named(Named::F5), NONE), Some(Action::Refresh));
        assert_eq!(shortcut(&character("r"), CTRL), Some(Action::Refresh));
        assert_eq!(shortcut(&character("h"), CTRL), Some(Action::ToggleHidden));
        // Caps Lock or a layout reporting upper case must not break the shortcut.
        assert_eq!(shortcut(&character("H"), CTRL), Some(Action::ToggleHidden));
        assert_eq!(shortcut(&character("a"), CTRL), Some(Action::SelectAll));
        assert_eq!(shortcut(&character("l"), CTRL), Some(Action::EditPath));
    }

    #[test]
    fn plain_letters_and_wrong_modifiers_do_nothing() {
        assert_eq!(shortcut(&character("h"), NONE), None);
        assert_eq!(shortcut(&character("h"), ALT), None);
        assert_eq!(shortcut(&character("h"), CTRL | SHIFT), None);
        assert_eq!(shortcut(&named(Named::ArrowLeft), NONE), None);
        assert_eq!(shortcut(&named(Named::ArrowLeft), CTRL | ALT), None);
        assert_eq!(shortcut(&named(Named::Backspace), CTRL), None);
        assert_eq!(shortcut(&named(Named::Enter), ALT), None);
        assert_eq!(shortcut(&named(Named::Escape), SHIFT), None);
    }

    #[test]
    fn arrows_move_and_shift_extends() {
        let down = Action::Move {
            step: Step::Down,
            extend: false,
        };
        let up_extend = Action::Move {
            step: Step::Up,
            extend: true,
        };
        assert_eq!(shortcut(&named(Named::ArrowDown), NONE), Some(down));
        assert_eq!(shortcut(&named(Named::ArrowUp), SHIFT), Some(up_extend));
        assert_eq!(
            shortcut(&named(Named::End), SHIFT),
            Some(Action::Move {
                step: Step::Last,
                extend: true
            })
        );
        assert_eq!(
            shortcut(&named(Named::PageDown), NONE),
            Some(Action::Move {
                step: Step::PageDown,
                extend: false
            })
        );
        // Alt+Up is "parent folder", not "move up".
        assert_eq!(shortcut(&named(Named::ArrowUp), ALT), Some(Action::Up));
    }

    #[test]
    fn thumb_buttons_move_in_history() {
        assert_eq!(mouse_button(mouse::Button::Back), Some(Action::Back));
        assert_eq!(mouse_button(mouse::Button::Forward), Some(Action::Forward));
        assert_eq!(mouse_button(mouse::Button::Left), None);
    }

    #[test]
    fn escape_clears_selection() {
        assert_eq!(
            shortcut(&named(Named::Escape), NONE),
            Some(Action::ClearSelection)
        );
    }
}
