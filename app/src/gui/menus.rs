//! What each menu holds: the context menu of the selected items, of a folder's empty space,
//! of a place in the sidebar, and the window's menu (the ☰ button, F10). Entries are built
//! from the state when the menu is drawn, so check marks always tell the truth; choosing one
//! sends a [`Command`] to the window. The operations issue adds Cut/Copy/Paste, Rename, Trash
//! and Delete to the same menus.

use std::path::PathBuf;

use ferry_core::places::Bookmark;
use ferry_core::sort::{Direction, SortKey, SortSpec};
use iced::Point;

use crate::gui::screen::browser::Browser;
use crate::gui::screen::sidebar::Place;
use crate::gui::settings::{Settings, ThemeChoice, ViewMode};
use crate::gui::shortcut::{PaneAction, WindowAction};
use crate::gui::widget::context_menu::Entry;

/// Which menu is open.
#[derive(Debug, Clone, PartialEq)]
pub enum MenuKind {
    /// The selected items of the active pane.
    Items,
    /// The active pane's folder (a right click on empty space).
    Folder,
    /// A place of the sidebar.
    Place(Place),
    /// The window's menu.
    Window,
    /// The Trash view's: of its selected items, or of its background.
    Trash {
        /// On the selected items.
        on_items: bool,
    },
}

/// An open menu: what, where (already kept inside the window), and the keyboard's entry.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenMenu {
    /// Which menu.
    pub kind: MenuKind,
    /// Its top-left corner.
    pub at: Point,
    /// The entry Up/Down moved to.
    pub highlighted: Option<usize>,
}

/// What a menu entry (or a toolbar button) asks the window to do.
#[derive(Debug, Clone)]
pub enum Command {
    /// Something for the Trash view (its menu's entries).
    Trash(crate::gui::screen::trash::Message),
    /// Something for the active pane.
    Pane(PaneAction),
    /// Something for the window.
    Window(WindowAction),
    /// Show this view mode in the active pane.
    Mode(ViewMode),
    /// Sort the active pane so.
    Sort(SortSpec),
    /// Open these folders in new tabs.
    OpenInNewTabs(Vec<PathBuf>),
    /// Open this folder in the other pane of the split.
    OpenInSplit(PathBuf),
    /// Open this folder in the active pane.
    Open(PathBuf),
    /// Remove this bookmark from the places.
    RemoveBookmark(Bookmark),
    /// Ask for a new label of this bookmark.
    RenameBookmark(Bookmark),
    /// Light, dark or the system's.
    Theme(ThemeChoice),
    /// Undo the move of this job, then copy instead ("Make it a copy").
    MakeCopy(ferry_core::jobs::JobId),
    /// Undo the job of this journal record, and no other (a toast's or the menu's Undo).
    UndoRecord(u64),
    /// Redo the job of this journal record, and no other (the menu's Redo).
    RedoRecord(u64),
}

/// What the entries are built from.
pub struct State<'a> {
    /// The active pane.
    pub pane: &'a Browser,
    /// The preferences (theme, sidebar).
    pub settings: &'a Settings,
    /// The shown tab is split.
    pub split: bool,
    /// What Undo and Redo would do.
    pub labels: &'a crate::gui::jobs::Labels,
    /// Something can be pasted.
    pub can_paste: bool,
    /// The jobs panel is shown.
    pub jobs_shown: bool,
}

/// The entries of `kind`.
pub fn entries(kind: &MenuKind, state: &State<'_>) -> Vec<Entry<Command>> {
    match kind {
        MenuKind::Items => items(state.pane, state.split),
        MenuKind::Folder => folder(state.pane, state.can_paste),
        MenuKind::Place(place) => place_entries(place),
        MenuKind::Window => window(state),
        // The window asks the view itself (see `trash_view`).
        MenuKind::Trash { .. } => Vec::new(),
    }
}

fn items(pane: &Browser, split: bool) -> Vec<Entry<Command>> {
    let folders = pane.selected_folders();
    let mut entries = vec![Entry::item("Open", Command::Pane(PaneAction::Open)).key("Enter")];
    if !folders.is_empty() {
        entries.push(
            Entry::item("Open in New Tab", Command::OpenInNewTabs(folders.clone()))
                .key("Ctrl+Enter"),
        );
        entries.push(Entry::item(
            "Open in Split View",
            Command::OpenInSplit(folders[0].clone()),
        ));
    }
    let pane_item = |label: &str, action, key| Entry::item(label, Command::Pane(action)).key(key);
    entries.extend([
        Entry::Separator,
        pane_item("Cut", PaneAction::Cut, "Ctrl+X"),
        pane_item("Copy", PaneAction::Copy, "Ctrl+C"),
        Entry::item("Copy to…", Command::Pane(PaneAction::CopyTo)),
        Entry::item("Move to…", Command::Pane(PaneAction::MoveTo)),
    ]);
    if split {
        entries.extend([
            pane_item(
                "Copy to Other Pane",
                PaneAction::CopyToOtherPane,
                "Shift+F5",
            ),
            pane_item(
                "Move to Other Pane",
                PaneAction::MoveToOtherPane,
                "Shift+F6",
            ),
        ]);
    }
    entries.extend([
        pane_item("Duplicate Here", PaneAction::Duplicate, "Ctrl+D"),
        Entry::item("Create Link…", Command::Pane(PaneAction::LinkTo)),
        Entry::Separator,
        pane_item("Rename…", PaneAction::Rename, "F2"),
        pane_item("Move to Trash", PaneAction::Trash, "Delete"),
        pane_item("Delete Permanently…", PaneAction::Delete, "Shift+Delete"),
        Entry::Separator,
        pane_item("Copy Location", PaneAction::CopyLocation, "Ctrl+Shift+C"),
    ]);
    // As in Dolphin: for one folder selected, alone.
    if folders.len() == 1 && pane.selection().count() == 1 {
        entries.push(pane_item(
            "Add to Places",
            PaneAction::AddBookmark,
            "Ctrl+B",
        ));
    }
    entries
}

fn folder(pane: &Browser, can_paste: bool) -> Vec<Entry<Command>> {
    let sort = pane.sort();
    let by = |label: &str, key: SortKey| {
        Entry::item(label, Command::Sort(SortSpec { key, ..sort })).checked(sort.key == key)
    };
    let reversed = SortSpec {
        direction: match sort.direction {
            Direction::Ascending => Direction::Descending,
            Direction::Descending => Direction::Ascending,
        },
        ..sort
    };
    let folders_first = SortSpec {
        folders_first: !sort.folders_first,
        ..sort
    };
    let mode = pane.mode();
    let paste = Entry::Item {
        label: "Paste".to_owned(),
        shortcut: Some("Ctrl+V"),
        checked: false,
        message: can_paste.then_some(Command::Pane(PaneAction::Paste)),
    };
    vec![
        paste,
        Entry::item("New Folder…", Command::Pane(PaneAction::NewFolder)).key("Ctrl+Shift+N"),
        Entry::Separator,
        Entry::Heading("View"),
        Entry::item("Details", Command::Mode(ViewMode::Details))
            .key("Ctrl+1")
            .checked(mode == ViewMode::Details),
        Entry::item("Icons", Command::Mode(ViewMode::Icons))
            .key("Ctrl+2")
            .checked(mode == ViewMode::Icons),
        Entry::Heading("Sort by"),
        by("Name", SortKey::Name),
        by("Size", SortKey::Size),
        by("Modified", SortKey::Modified),
        by("Type", SortKey::Type),
        Entry::item("Descending", Command::Sort(reversed))
            .checked(sort.direction == Direction::Descending),
        Entry::item("Folders First", Command::Sort(folders_first)).checked(sort.folders_first),
        Entry::Separator,
        Entry::item("Show Hidden Files", Command::Pane(PaneAction::ToggleHidden))
            .key("Ctrl+H")
            .checked(pane.shows_hidden()),
        Entry::item("Select All", Command::Pane(PaneAction::SelectAll)).key("Ctrl+A"),
        Entry::item("Filter…", Command::Pane(PaneAction::Filter)).key("Ctrl+I"),
        Entry::Separator,
        Entry::item("Copy Location", Command::Pane(PaneAction::CopyLocation)).key("Ctrl+Shift+C"),
        Entry::item("Add to Places", Command::Pane(PaneAction::AddBookmark)).key("Ctrl+B"),
        Entry::item("Refresh", Command::Pane(PaneAction::Refresh)).key("F5"),
    ]
}

fn place_entries(place: &Place) -> Vec<Entry<Command>> {
    let mut entries = Vec::new();
    if let Some(path) = place.path() {
        entries.push(Entry::item("Open", Command::Open(path.to_path_buf())));
        entries.push(Entry::item(
            "Open in New Tab",
            Command::OpenInNewTabs(vec![path.to_path_buf()]),
        ));
        entries.push(Entry::item(
            "Open in Split View",
            Command::OpenInSplit(path.to_path_buf()),
        ));
    }
    if let Place::Bookmark(_, bookmark) = place {
        if !entries.is_empty() {
            entries.push(Entry::Separator);
        }
        entries.push(Entry::item(
            "Rename…",
            Command::RenameBookmark(bookmark.clone()),
        ));
        entries.push(Entry::item(
            "Remove from Places",
            Command::RemoveBookmark(bookmark.clone()),
        ));
    }
    entries
}

fn window(state: &State<'_>) -> Vec<Entry<Command>> {
    let theme = state.settings.theme;
    let window = |label: &str, action: WindowAction| Entry::item(label, Command::Window(action));
    let labelled =
        |verb: &str, label: &Option<String>, refused: bool, command, key: &'static str| {
            Entry::Item {
                label: match label {
                    // The menu shortens what does not fit beside the shortcut.
                    Some(what) => format!("{verb}: {what}"),
                    // The shortcut says why.
                    None if refused => format!("{verb} (not possible now)"),
                    None => format!("{verb} (nothing to {})", verb.to_lowercase()),
                },
                shortcut: Some(key),
                checked: false,
                message: label.as_ref().and(command),
            }
        };
    // The record each names, and no other: what the labels were read from may be out of date
    // (a job of the command line since), and an undo of another job would be false to them.
    let (undo, redo) = (state.labels.undo_seq, state.labels.redo_seq);
    vec![
        labelled(
            "Undo",
            &state.labels.undo,
            state.labels.refused.0,
            undo.map(Command::UndoRecord),
            "Ctrl+Z",
        ),
        labelled(
            "Redo",
            &state.labels.redo,
            state.labels.refused.1,
            redo.map(Command::RedoRecord),
            "Ctrl+Shift+Z",
        ),
        window("Jobs", WindowAction::ToggleJobs)
            .key("Ctrl+Shift+J")
            .checked(state.jobs_shown),
        window("Trash", WindowAction::OpenTrash),
        Entry::Separator,
        window("New Window", WindowAction::NewWindow).key("Ctrl+N"),
        window("New Tab", WindowAction::NewTab).key("Ctrl+T"),
        window("Split View", WindowAction::ToggleSplit)
            .key("F3")
            .checked(state.split),
        window("Show Places", WindowAction::ToggleSidebar)
            .key("F9")
            .checked(state.settings.show_sidebar),
        Entry::item("Show Hidden Files", Command::Pane(PaneAction::ToggleHidden))
            .key("Ctrl+H")
            .checked(state.pane.shows_hidden()),
        Entry::Heading("Theme"),
        Entry::item("Follow System", Command::Theme(ThemeChoice::System))
            .checked(theme == ThemeChoice::System),
        Entry::item("Light", Command::Theme(ThemeChoice::Light))
            .checked(theme == ThemeChoice::Light),
        Entry::item("Dark", Command::Theme(ThemeChoice::Dark)).checked(theme == ThemeChoice::Dark),
        Entry::Separator,
        window("Keyboard Shortcuts", WindowAction::ShowShortcuts).key("F1"),
        window("Quit", WindowAction::Quit).key("Ctrl+Q"),
    ]
}
