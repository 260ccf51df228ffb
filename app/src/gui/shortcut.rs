//! The keyboard as data: one table of bindings, window-level actions and pane-level actions
//! apart, and one pure function from a key press to its action.
//!
//! Subscriptions get no simulated input in `iced_test`, so the mapping lives here where it can
//! be tested directly; the window only forwards key presses through [`resolve`]. The
//! Keyboard Shortcuts dialog is drawn from the same [`TABLE`], so it cannot drift from it.

use iced::keyboard::key::Named;
use iced::keyboard::{Key, Modifiers};
use iced::mouse;

/// Something for the window as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowAction {
    /// Open a tab on the active pane's folder (Ctrl+T).
    NewTab,
    /// Close the active tab (Ctrl+W); the last one quits.
    CloseTab,
    /// Open the tab closed last again (Ctrl+Shift+T).
    ReopenClosedTab,
    /// Show the next tab (Ctrl+Tab, Ctrl+PageDown).
    NextTab,
    /// Show the previous tab (Ctrl+Shift+Tab, Ctrl+PageUp).
    PreviousTab,
    /// Show tab number n, from 1 (Alt+1..9).
    SelectTab(u8),
    /// Split the view in two panes, or close the inactive one (F3).
    ToggleSplit,
    /// Give the keyboard to the other pane of a split (Tab).
    OtherPane,
    /// Show or hide the places sidebar (F9).
    ToggleSidebar,
    /// Open the window's menu (F10).
    OpenMenu,
    /// Open another window on the active folder (Ctrl+N).
    NewWindow,
    /// List every shortcut (F1, Ctrl+F1).
    ShowShortcuts,
    /// Undo the last job (Ctrl+Z).
    Undo,
    /// Redo the job undone last (Ctrl+Shift+Z).
    Redo,
    /// Show or hide the jobs panel.
    ToggleJobs,
    /// Show the Trash (the window menu's "Trash": the places sidebar takes no keyboard).
    OpenTrash,
    /// Put the keyboard in the jobs panel, opening it (Ctrl+J); Escape or Tab gives it back.
    FocusJobs,
    /// Quit, saving the session (Ctrl+Q).
    Quit,
}

/// Something for the active pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaneAction {
    /// Go back in history (Alt+Left, Backspace).
    Back,
    /// Go forward in history (Alt+Right).
    Forward,
    /// Go to the parent folder (Alt+Up).
    Up,
    /// List the folder again (F5, Ctrl+R).
    Refresh,
    /// Show or hide dot files (Ctrl+H).
    ToggleHidden,
    /// Open the focused entry (Enter).
    Open,
    /// Open the focused folder in a new tab (Ctrl+Enter).
    OpenInNewTab,
    /// Move the focus; `extend` (Shift) grows the selection from its anchor instead of
    /// replacing it.
    Move {
        /// Where to move.
        step: Step,
        /// Keep the anchor and select the whole range.
        extend: bool,
    },
    /// Move the focus alone, the selection left as it is (Ctrl+arrows), to pick items one
    /// by one with [`ToggleFocused`](Self::ToggleFocused), as in Dolphin.
    MoveFocus {
        /// Where to move.
        step: Step,
    },
    /// Select the focused entry, or deselect it when selected (Ctrl+Space).
    ToggleFocused,
    /// Select every shown entry (Ctrl+A).
    SelectAll,
    /// Select what is not selected and deselect the rest (Ctrl+Shift+I).
    InvertSelection,
    /// Leave what is being edited, or clear the selection (Escape).
    Escape,
    /// Type a path into the location bar (Ctrl+L).
    EditLocation,
    /// Complete the folder name being typed (Tab in the location bar).
    Complete,
    /// Give the list the keyboard, the filter bar staying open (Tab in the filter bar).
    LeaveFilter,
    /// Rename with what is typed, then open the editor on the next item, or the one before
    /// (Tab and Shift+Tab in the rename editor, as in Dolphin).
    RenameNext {
        /// The one before.
        back: bool,
    },
    /// Show the details view (Ctrl+1).
    DetailsView,
    /// Show the icon view (Ctrl+2).
    IconsView,
    /// Bigger icons (Ctrl+Plus).
    ZoomIn,
    /// Smaller icons (Ctrl+Minus).
    ZoomOut,
    /// The default icon size (Ctrl+0).
    ZoomReset,
    /// Narrow the view to names containing some text (Ctrl+I).
    Filter,
    /// Open the context menu of the selection (Menu, Shift+F10).
    ContextMenu,
    /// Bookmark the focused folder, or the pane's own (Ctrl+B).
    AddBookmark,
    /// Copy the selection's paths, or the folder's, as text (Ctrl+Shift+C).
    CopyLocation,
    /// Put the selection on the clipboard to copy (Ctrl+C).
    Copy,
    /// Put the selection on the clipboard to move (Ctrl+X).
    Cut,
    /// Copy or move what the clipboard holds into the folder (Ctrl+V).
    Paste,
    /// Rename the focused item in place (F2).
    Rename,
    /// Create a folder and name it (Ctrl+Shift+N).
    NewFolder,
    /// Move the selection to the trash (Delete).
    Trash,
    /// Delete the selection permanently, after asking (Shift+Delete).
    Delete,
    /// Copy the selection beside itself as `name (copy).ext` (Ctrl+D).
    Duplicate,
    /// Copy the selection into a folder picked in a dialog.
    CopyTo,
    /// Move the selection into a folder picked in a dialog.
    MoveTo,
    /// Make links to the selection in a folder picked in a dialog.
    LinkTo,
    /// Copy the selection into the other pane's folder (Shift+F5; Copy to… without a split).
    CopyToOtherPane,
    /// Move the selection into the other pane's folder (Shift+F6; Move to… without a split).
    MoveToOtherPane,
    /// Select the next entry whose name starts with what was typed.
    TypeAhead(char),
}

impl PaneAction {
    /// It acts on the folder shown, not on its selection: its key reaches the pane while the
    /// places or the jobs panel have the keyboard (Ctrl+L there did nothing), and gives the
    /// pane the keyboard. Keys for the selection stay out: the user is not looking at it.
    pub fn on_the_folder(self) -> bool {
        use PaneAction as P;
        matches!(
            self,
            P::Back
                | P::Forward
                | P::Up
                | P::Refresh
                | P::ToggleHidden
                | P::SelectAll
                | P::EditLocation
                | P::DetailsView
                | P::IconsView
                | P::ZoomIn
                | P::ZoomOut
                | P::ZoomReset
                | P::Filter
                | P::AddBookmark
                | P::CopyLocation
                | P::Paste
                | P::NewFolder
        )
    }
}

/// How far a keyboard move goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// One row up (in the grid: one row of cells).
    Up,
    /// One row down.
    Down,
    /// One item back (the grid's Left).
    Left,
    /// One item on (the grid's Right).
    Right,
    /// One page up.
    PageUp,
    /// One page down.
    PageDown,
    /// The first item.
    First,
    /// The last item.
    Last,
}

/// What a key press asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// For the window.
    Window(WindowAction),
    /// For the active pane.
    Pane(PaneAction),
}

/// A key in the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySpec {
    /// A named key (arrows, F-keys, Enter, ...).
    Named(Named),
    /// A character key, matched case-insensitively.
    Char(&'static str),
    /// The digits 1 to 9 (tab selection).
    Digits,
}

/// Which modifiers a binding wants: `Some(true)` held, `Some(false)` not held, `None` either.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mods {
    ctrl: bool,
    alt: bool,
    shift: Option<bool>,
}

const fn mods(ctrl: bool, alt: bool, shift: bool) -> Mods {
    Mods {
        ctrl,
        alt,
        shift: Some(shift),
    }
}

const NONE: Mods = mods(false, false, false);
const SHIFT: Mods = mods(false, false, true);
const CTRL: Mods = mods(true, false, false);
const CTRL_SHIFT: Mods = mods(true, false, true);
const ALT: Mods = mods(false, true, false);
/// Ctrl, with or without Shift (Ctrl+Plus is Ctrl+Shift+= on many layouts).
const CTRL_ANY: Mods = Mods {
    ctrl: true,
    alt: false,
    shift: None,
};

impl Mods {
    fn matches(self, modifiers: Modifiers) -> bool {
        self.ctrl == modifiers.command()
            && self.alt == modifiers.alt()
            && !modifiers.logo()
            && self.shift.is_none_or(|shift| shift == modifiers.shift())
    }

    /// "Ctrl+Shift+", "Alt+", "" for the shortcuts dialog.
    pub fn label(self) -> String {
        let mut out = String::new();
        if self.ctrl {
            out.push_str("Ctrl+");
        }
        if self.alt {
            out.push_str("Alt+");
        }
        if self.shift == Some(true) {
            out.push_str("Shift+");
        }
        out
    }
}

/// One line of the table.
#[derive(Debug, Clone, Copy)]
pub struct Binding {
    /// The key.
    pub key: KeySpec,
    /// With which modifiers.
    pub mods: Mods,
    /// What it does.
    pub action: Action,
    /// What it does, in words, for the shortcuts dialog.
    pub what: &'static str,
}

const fn window(key: KeySpec, mods: Mods, action: WindowAction, what: &'static str) -> Binding {
    Binding {
        key,
        mods,
        action: Action::Window(action),
        what,
    }
}

const fn pane(key: KeySpec, mods: Mods, action: PaneAction, what: &'static str) -> Binding {
    Binding {
        key,
        mods,
        action: Action::Pane(action),
        what,
    }
}

const fn moves(key: Named, step: Step, what: &'static str) -> [Binding; 2] {
    [
        pane(
            KeySpec::Named(key),
            NONE,
            PaneAction::Move {
                step,
                extend: false,
            },
            what,
        ),
        pane(
            KeySpec::Named(key),
            SHIFT,
            PaneAction::Move { step, extend: true },
            "…and extend the selection",
        ),
    ]
}

/// Ctrl with an arrow, Home or End (Ctrl+Page Up/Down change tabs).
const fn focus_only(key: Named, step: Step) -> Binding {
    pane(
        KeySpec::Named(key),
        CTRL,
        PaneAction::MoveFocus { step },
        "…moving only the focus",
    )
}

use KeySpec::{Char, Named as N};
use PaneAction as P;
use WindowAction as W;

const WINDOW_TABLE: [Binding; 22] = [
    window(Char("t"), CTRL, W::NewTab, "New tab"),
    window(Char("w"), CTRL, W::CloseTab, "Close tab"),
    window(
        Char("t"),
        CTRL_SHIFT,
        W::ReopenClosedTab,
        "Reopen closed tab",
    ),
    window(N(Named::Tab), CTRL, W::NextTab, "Next tab"),
    window(N(Named::PageDown), CTRL, W::NextTab, "Next tab"),
    window(N(Named::Tab), CTRL_SHIFT, W::PreviousTab, "Previous tab"),
    window(N(Named::PageUp), CTRL, W::PreviousTab, "Previous tab"),
    window(KeySpec::Digits, ALT, W::SelectTab(0), "Go to tab 1…9"),
    window(N(Named::F3), NONE, W::ToggleSplit, "Split view"),
    window(
        N(Named::Tab),
        NONE,
        W::OtherPane,
        "Other pane of the split, then the places (from the filter bar: the list; renaming: the next item, Shift+Tab the one before)",
    ),
    window(N(Named::F9), NONE, W::ToggleSidebar, "Show or hide places"),
    window(N(Named::F10), NONE, W::OpenMenu, "Menu"),
    window(Char("n"), CTRL, W::NewWindow, "New window"),
    window(N(Named::F1), CTRL, W::ShowShortcuts, "Keyboard shortcuts"),
    // Help's key in Dolphin and Nautilus: the help Ferry has is this list.
    window(N(Named::F1), NONE, W::ShowShortcuts, "Keyboard shortcuts"),
    window(Char("?"), CTRL_ANY, W::ShowShortcuts, "Keyboard shortcuts"),
    window(Char("q"), CTRL, W::Quit, "Quit"),
    window(Char("z"), CTRL, W::Undo, "Undo"),
    window(Char("z"), CTRL_SHIFT, W::Redo, "Redo"),
    window(Char("y"), CTRL, W::Redo, "Redo"),
    window(Char("j"), CTRL, W::FocusJobs, "Jobs panel (keyboard in it)"),
    window(
        Char("j"),
        CTRL_SHIFT,
        W::ToggleJobs,
        "Show or hide the jobs panel",
    ),
];

const PANE_TABLE: [Binding; 62] = {
    let [down, down_x] = moves(Named::ArrowDown, Step::Down, "Next item");
    let [up, up_x] = moves(Named::ArrowUp, Step::Up, "Previous item");
    let [left, left_x] = moves(Named::ArrowLeft, Step::Left, "Item to the left (icons)");
    let [right, right_x] = moves(Named::ArrowRight, Step::Right, "Item to the right (icons)");
    let [page_up, page_up_x] = moves(Named::PageUp, Step::PageUp, "One page up");
    let [page_down, page_down_x] = moves(Named::PageDown, Step::PageDown, "One page down");
    let [home, home_x] = moves(Named::Home, Step::First, "First item");
    let [end, end_x] = moves(Named::End, Step::Last, "Last item");
    [
        pane(N(Named::ArrowLeft), ALT, P::Back, "Back"),
        pane(N(Named::Backspace), NONE, P::Back, "Back"),
        pane(N(Named::BrowserBack), NONE, P::Back, "Back"),
        pane(N(Named::ArrowRight), ALT, P::Forward, "Forward"),
        pane(N(Named::BrowserForward), NONE, P::Forward, "Forward"),
        pane(N(Named::ArrowUp), ALT, P::Up, "Parent folder"),
        pane(N(Named::F5), NONE, P::Refresh, "Refresh"),
        pane(Char("r"), CTRL, P::Refresh, "Refresh"),
        pane(N(Named::BrowserRefresh), NONE, P::Refresh, "Refresh"),
        pane(Char("h"), CTRL, P::ToggleHidden, "Show hidden files"),
        pane(N(Named::Enter), NONE, P::Open, "Open"),
        pane(N(Named::Enter), CTRL, P::OpenInNewTab, "Open in new tab"),
        down,
        down_x,
        focus_only(Named::ArrowDown, Step::Down),
        up,
        up_x,
        focus_only(Named::ArrowUp, Step::Up),
        left,
        left_x,
        focus_only(Named::ArrowLeft, Step::Left),
        right,
        right_x,
        focus_only(Named::ArrowRight, Step::Right),
        page_up,
        page_up_x,
        page_down,
        page_down_x,
        home,
        home_x,
        focus_only(Named::Home, Step::First),
        end,
        end_x,
        focus_only(Named::End, Step::Last),
        pane(
            N(Named::Space),
            CTRL,
            P::ToggleFocused,
            "Select or deselect the focused item",
        ),
        pane(Char("a"), CTRL, P::SelectAll, "Select all"),
        pane(
            Char("i"),
            CTRL_SHIFT,
            P::InvertSelection,
            "Invert selection",
        ),
        pane(
            N(Named::Escape),
            NONE,
            P::Escape,
            "Stop editing, clear selection",
        ),
        pane(Char("l"), CTRL, P::EditLocation, "Edit location"),
        pane(Char("1"), CTRL, P::DetailsView, "Details view"),
        pane(Char("2"), CTRL, P::IconsView, "Icons view"),
        pane(Char("+"), CTRL_ANY, P::ZoomIn, "Zoom in"),
        pane(Char("="), CTRL_ANY, P::ZoomIn, "Zoom in"),
        pane(Char("-"), CTRL, P::ZoomOut, "Zoom out"),
        pane(Char("0"), CTRL, P::ZoomReset, "Default zoom"),
        pane(Char("i"), CTRL, P::Filter, "Filter"),
        pane(N(Named::ContextMenu), NONE, P::ContextMenu, "Context menu"),
        pane(N(Named::F10), SHIFT, P::ContextMenu, "Context menu"),
        pane(Char("b"), CTRL, P::AddBookmark, "Add to places"),
        pane(Char("c"), CTRL_SHIFT, P::CopyLocation, "Copy location"),
        pane(Char("c"), CTRL, P::Copy, "Copy"),
        pane(N(Named::Insert), CTRL, P::Copy, "Copy"),
        pane(Char("x"), CTRL, P::Cut, "Cut"),
        pane(Char("v"), CTRL, P::Paste, "Paste"),
        pane(N(Named::Insert), SHIFT, P::Paste, "Paste"),
        pane(N(Named::F2), NONE, P::Rename, "Rename"),
        pane(Char("n"), CTRL_SHIFT, P::NewFolder, "New folder"),
        pane(N(Named::Delete), NONE, P::Trash, "Move to the trash"),
        pane(N(Named::Delete), SHIFT, P::Delete, "Delete permanently"),
        pane(Char("d"), CTRL, P::Duplicate, "Duplicate here"),
        pane(
            N(Named::F5),
            SHIFT,
            P::CopyToOtherPane,
            "Copy to the other pane",
        ),
        pane(
            N(Named::F6),
            SHIFT,
            P::MoveToOtherPane,
            "Move to the other pane",
        ),
    ]
};

/// Every binding: the window's, then the pane's.
pub const TABLE: [&[Binding]; 2] = [&WINDOW_TABLE, &PANE_TABLE];

/// The action for a key press, if it has one. Printable characters without Ctrl or Alt that
/// the table does not bind go to the pane's type-ahead.
pub fn resolve(key: &Key, text: Option<&str>, modifiers: Modifiers) -> Option<Action> {
    for binding in TABLE.iter().flat_map(|t| t.iter()) {
        if !binding.mods.matches(modifiers) {
            continue;
        }
        let hit = match (binding.key, key.as_ref()) {
            (KeySpec::Named(want), Key::Named(got)) => want == got,
            (KeySpec::Char(want), Key::Character(got)) => want.eq_ignore_ascii_case(got),
            (KeySpec::Digits, Key::Character(got)) => digit(got).is_some(),
            _ => false,
        };
        if hit {
            return Some(match (binding.action, key.as_ref()) {
                (Action::Window(W::SelectTab(_)), Key::Character(got)) => {
                    Action::Window(W::SelectTab(digit(got).unwrap_or(1)))
                }
                (action, _) => action,
            });
        }
    }
    let typed = text?.chars().next()?;
    let plain = !modifiers.command() && !modifiers.alt() && !modifiers.logo();
    (plain && !typed.is_control()).then_some(Action::Pane(P::TypeAhead(typed)))
}

fn digit(text: &str) -> Option<u8> {
    match text.as_bytes() {
        [d @ b'1'..=b'9'] => Some(d - b'0'),
        _ => None,
    }
}

/// Maps a mouse's extra buttons (thumb buttons) to history moves.
pub fn mouse_button(button: mouse::Button) -> Option<PaneAction> {
    match button {
        mouse::Button::Back => Some(P::Back),
        mouse::Button::Forward => Some(P::Forward),
        _ => None,
    }
}

/// A binding's key in words: "Ctrl+Shift+T", "Alt+1…9", "F3".
pub fn key_label(binding: &Binding) -> String {
    let key = match binding.key {
        KeySpec::Char(c) => c.to_uppercase(),
        KeySpec::Digits => "1…9".to_owned(),
        KeySpec::Named(named) => match named {
            Named::ArrowUp => "↑".to_owned(),
            Named::ArrowDown => "↓".to_owned(),
            Named::ArrowLeft => "←".to_owned(),
            Named::ArrowRight => "→".to_owned(),
            Named::ContextMenu => "Menu".to_owned(),
            other => format!("{other:?}"),
        },
    };
    format!("{}{key}", binding.mods.label())
}

/// The keys a label of a `KEYS` list names ("F5, Ctrl+R"), for the tests that check each
/// against its key handler.
#[cfg(test)]
pub(crate) fn parse_keys(label: &str) -> Vec<(Key, Modifiers)> {
    label
        .split(", ")
        .map(|combo| {
            let mut parts: Vec<&str> = combo.split('+').collect();
            let key = parts.pop().expect("a key");
            let mods = parts.iter().fold(Modifiers::empty(), |m, part| {
                m | match *part {
                    "Ctrl" => Modifiers::CTRL,
                    "Alt" => Modifiers::ALT,
                    "Shift" => Modifiers::SHIFT,
                    other => panic!("modifier {other}"),
                }
            });
            let key = match key {
                "↑" => Key::Named(Named::ArrowUp),
                "↓" => Key::Named(Named::ArrowDown),
                "Menu" => Key::Named(Named::ContextMenu),
                "Delete" => Key::Named(Named::Delete),
                "Space" => Key::Named(Named::Space),
                "Enter" => Key::Named(Named::Enter),
                "Escape" => Key::Named(Named::Escape),
                "Tab" => Key::Named(Named::Tab),
                "Home" => Key::Named(Named::Home),
                "End" => Key::Named(Named::End),
                "F5" => Key::Named(Named::F5),
                "F10" => Key::Named(Named::F10),
                c if c.chars().count() == 1 => Key::Character(c.to_lowercase().into()),
                other => panic!("key {other}"),
            };
            (key, mods)
        })
        .collect()
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

    fn key(key: &Key, modifiers: Modifiers) -> Option<Action> {
        resolve(key, None, modifiers)
    }

    fn pane_key(k: &Key, modifiers: Modifiers) -> Option<PaneAction> {
        match key(k, modifiers) {
            Some(Action::Pane(action)) => Some(action),
            _ => None,
        }
    }

    fn window_key(k: &Key, modifiers: Modifiers) -> Option<WindowAction> {
        match key(k, modifiers) {
            Some(Action::Window(action)) => Some(action),
            _ => None,
        }
    }

    const NO: Modifiers = Modifiers::empty();
    const A: Modifiers = Modifiers::ALT;
    const C: Modifiers = Modifiers::CTRL;
    const S: Modifiers = Modifiers::SHIFT;

    #[test]
    fn navigation_keys() {
        assert_eq!(pane_key(&named(Named::ArrowLeft), A), Some(P::Back));
        assert_eq!(pane_key(&named(Named::ArrowRight), A), Some(P::Forward));
        assert_eq!(pane_key(&named(Named::ArrowUp), A), Some(P::Up));
        assert_eq!(pane_key(&named(Named::Backspace), NO), Some(P::Back));
        assert_eq!(pane_key(&named(Named::BrowserBack), NO), Some(P::Back));
        assert_eq!(pane_key(&named(Named::Enter), NO), Some(P::Open));
        assert_eq!(pane_key(&named(Named::Enter), C), Some(P::OpenInNewTab));
        assert_eq!(pane_key(&character("l"), C), Some(P::EditLocation));
    }

    #[test]
    fn tabs_split_and_quit_are_the_window_s() {
        assert_eq!(window_key(&character("t"), C), Some(W::NewTab));
        assert_eq!(window_key(&character("T"), C | S), Some(W::ReopenClosedTab));
        assert_eq!(window_key(&character("w"), C), Some(W::CloseTab));
        assert_eq!(window_key(&named(Named::Tab), C), Some(W::NextTab));
        assert_eq!(window_key(&named(Named::Tab), C | S), Some(W::PreviousTab));
        assert_eq!(window_key(&character("3"), A), Some(W::SelectTab(3)));
        assert_eq!(window_key(&character("0"), A), None, "tabs count from 1");
        assert_eq!(window_key(&named(Named::F3), NO), Some(W::ToggleSplit));
        assert_eq!(window_key(&character("q"), C), Some(W::Quit));
        assert_eq!(window_key(&named(Named::F10), NO), Some(W::OpenMenu));
        assert_eq!(pane_key(&named(Named::F10), S), Some(P::ContextMenu));
    }

    #[test]
    fn views_zoom_and_selection() {
        assert_eq!(pane_key(&character("1"), C), Some(P::DetailsView));
        assert_eq!(pane_key(&character("2"), C), Some(P::IconsView));
        // Ctrl+Plus is Ctrl+Shift+= on a US layout, Ctrl++ on a keypad.
        assert_eq!(pane_key(&character("+"), C | S), Some(P::ZoomIn));
        assert_eq!(pane_key(&character("+"), C), Some(P::ZoomIn));
        assert_eq!(pane_key(&character("="), C), Some(P::ZoomIn));
        assert_eq!(pane_key(&character("-"), C), Some(P::ZoomOut));
        assert_eq!(pane_key(&character("0"), C), Some(P::ZoomReset));
        assert_eq!(pane_key(&character("a"), C), Some(P::SelectAll));
        assert_eq!(pane_key(&character("I"), C | S), Some(P::InvertSelection));
        assert_eq!(pane_key(&character("i"), C), Some(P::Filter));
        assert_eq!(
            pane_key(&character("H"), C),
            Some(P::ToggleHidden),
            "Caps Lock"
        );
    }

    #[test]
    fn arrows_move_and_shift_extends() {
        let mv = |step, extend| Some(P::Move { step, extend });
        assert_eq!(
            pane_key(&named(Named::ArrowDown), NO),
            mv(Step::Down, false)
        );
        assert_eq!(pane_key(&named(Named::ArrowUp), S), mv(Step::Up, true));
        assert_eq!(pane_key(&named(Named::End), S), mv(Step::Last, true));
        assert_eq!(
            pane_key(&named(Named::PageDown), NO),
            mv(Step::PageDown, false)
        );
        assert_eq!(
            pane_key(&named(Named::ArrowLeft), NO),
            mv(Step::Left, false)
        );
        assert_eq!(
            pane_key(&named(Named::ArrowDown), C),
            Some(P::MoveFocus { step: Step::Down })
        );
        assert_eq!(pane_key(&named(Named::Space), C), Some(P::ToggleFocused));
        // Alt+Up is "parent folder", not "move up".
        assert_eq!(pane_key(&named(Named::ArrowUp), A), Some(P::Up));
    }

    #[test]
    fn plain_characters_are_type_ahead_and_wrong_modifiers_do_nothing() {
        assert_eq!(
            resolve(&character("d"), Some("d"), NO),
            Some(Action::Pane(P::TypeAhead('d')))
        );
        assert_eq!(
            resolve(&character("D"), Some("D"), S),
            Some(Action::Pane(P::TypeAhead('D')))
        );
        assert_eq!(resolve(&character("d"), Some("d"), A), None);
        assert_eq!(key(&character("h"), A), None);
        assert_eq!(key(&character("h"), C | S), None);
        assert_eq!(key(&named(Named::ArrowLeft), C | A), None);
        assert_eq!(key(&named(Named::Backspace), C), None);
        assert_eq!(key(&named(Named::Enter), A), None);
        assert_eq!(key(&named(Named::Escape), S), None);
        assert_eq!(resolve(&named(Named::Pause), None, NO), None);
    }

    #[test]
    fn operations_have_their_keys() {
        assert_eq!(pane_key(&character("c"), C), Some(P::Copy));
        assert_eq!(pane_key(&character("x"), C), Some(P::Cut));
        assert_eq!(pane_key(&character("v"), C), Some(P::Paste));
        assert_eq!(pane_key(&named(Named::Insert), C), Some(P::Copy));
        assert_eq!(pane_key(&named(Named::Insert), S), Some(P::Paste));
        assert_eq!(pane_key(&named(Named::F2), NO), Some(P::Rename));
        assert_eq!(pane_key(&character("N"), C | S), Some(P::NewFolder));
        assert_eq!(pane_key(&named(Named::Delete), NO), Some(P::Trash));
        assert_eq!(pane_key(&named(Named::Delete), S), Some(P::Delete));
        assert_eq!(pane_key(&character("d"), C), Some(P::Duplicate));
        assert_eq!(window_key(&character("z"), C), Some(W::Undo));
        assert_eq!(window_key(&character("Z"), C | S), Some(W::Redo));
        assert_eq!(pane_key(&character("c"), C | S), Some(P::CopyLocation));
    }

    #[test]
    fn thumb_buttons_move_in_history() {
        assert_eq!(mouse_button(mouse::Button::Back), Some(P::Back));
        assert_eq!(mouse_button(mouse::Button::Forward), Some(P::Forward));
        assert_eq!(mouse_button(mouse::Button::Left), None);
    }

    #[test]
    fn no_key_is_bound_twice() {
        let all: Vec<&Binding> = TABLE.iter().flat_map(|t| t.iter()).collect();
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                let overlap = a.key == b.key
                    && a.mods.ctrl == b.mods.ctrl
                    && a.mods.alt == b.mods.alt
                    && (a.mods.shift.is_none()
                        || b.mods.shift.is_none()
                        || a.mods.shift == b.mods.shift);
                assert!(!overlap, "{} and {} share {:?}", a.what, b.what, a.key);
            }
        }
    }

    #[test]
    fn labels_read_as_people_write_them() {
        assert_eq!(key_label(&WINDOW_TABLE[2]), "Ctrl+Shift+T");
        assert_eq!(key_label(&WINDOW_TABLE[7]), "Alt+1…9");
        assert_eq!(key_label(&WINDOW_TABLE[8]), "F3");
        assert_eq!(key_label(&PANE_TABLE[0]), "Alt+←");
    }
}
