//! What the pane takes in ([`Message`]) and what it asks the window to do ([`Event`]).

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

use ferry_core::Error;
use ferry_core::dirs::DirEvent;
use ferry_core::sort::{SortKey, SortSpec};
use iced::{Point, Rectangle};

use super::{Operation, RowRef};
use crate::gui::settings::{Columns, ViewMode};
use crate::gui::shortcut::PaneAction;

/// Input of the browser.
#[derive(Debug, Clone)]
pub enum Message {
    /// Edit the location with the trash's address in it (Ctrl+L in the Trash view, which
    /// then shows again on Escape).
    EditTrashAddress,
    /// Go to this folder (a breadcrumb segment).
    Navigate(PathBuf),
    /// What the pane shows (or a folder holding it) was put in the trash or deleted by a job:
    /// the pane goes to the folder that held it, in place of where it was.
    Removed(PathBuf),
    /// What the pane shows (or a folder holding it) was moved or renamed from `from` to `to`
    /// by a job: the pane goes there in place of where it was, and its history follows too.
    Followed {
        /// The moved folder's old path.
        from: PathBuf,
        /// Its path now.
        to: PathBuf,
    },
    /// Show hidden entries or not (the toolbar's switch).
    ShowHidden(bool),
    /// Sort by this column (again: reverse the direction).
    SortBy(SortKey),
    /// Sort exactly so (the context menu).
    SetSort(SortSpec),
    /// Show the folder in this view.
    SetMode(ViewMode),
    /// A row or cell was clicked (with the modifiers held at the time).
    RowPressed(RowRef),
    /// A row or cell was double-clicked.
    RowDoubleClicked(RowRef),
    /// A row or cell was clicked with the middle button.
    RowMiddleClicked(RowRef),
    /// A row or cell was right-clicked (the menu follows as [`Message::RightPressed`]).
    RowRightPressed(RowRef),
    /// The pointer entered a row.
    RowEntered(RowRef),
    /// The pointer left a row.
    RowLeft(RowRef),
    /// The breadcrumb of this folder was clicked: the pane opens it, and takes the keyboard.
    CrumbPressed(PathBuf),
    /// The pointer is over the breadcrumb of this folder (a drop there goes into it).
    CrumbEntered(PathBuf),
    /// The pointer left the breadcrumb of this folder.
    CrumbLeft(PathBuf),
    /// The empty part of the list was pressed, here (relative to the list's area).
    BackgroundPressed(Point),
    /// The error shown instead of the list was pressed: the pane takes the keyboard.
    FailurePressed,
    /// An item was pressed, here (relative to the list's area): a drag may follow.
    ItemPressed(Point),
    /// The pointer moved with the button held after that press (relative to the list's area).
    Dragged(Point),
    /// The button was released.
    Released,
    /// A right press in the list at this window position; on an item when `on_item`.
    RightPressed {
        /// Where, in the window.
        at: Point,
        /// An item took the press first.
        on_item: bool,
    },
    /// The list's area has these bounds in the window.
    Resized(Rectangle),
    /// The list was scrolled or resized.
    Scrolled {
        /// Offset of the viewport's top.
        offset_y: f32,
        /// Height of the viewport.
        viewport_h: f32,
    },
    /// The scrollbar asks to scroll the list to this offset.
    ScrollTo(f32),
    /// Time passed while the rubber band is held past an edge: scroll on.
    AutoScroll,
    /// The column headers were pressed here (a column edge starts a resize).
    HeaderPressed(Point),
    /// The pointer moved with the button held after that press.
    HeaderDragged(Point),
    /// The button was released after a press on the headers.
    HeaderReleased,
    /// An action asked for by a keyboard shortcut, a menu or a toolbar button.
    Action(PaneAction),
    /// The notice banner was closed.
    NoticeDismissed,
    /// Turn the path bar into a text field (the pane takes the keyboard).
    EditPath,
    /// The text in the path bar changed.
    PathEdited(String),
    /// Enter was pressed in the path bar: check the path, then go there.
    PathSubmitted,
    /// The typed path was checked: a folder, or why not.
    PathChecked(PathBuf, Result<(), Arc<Error>>),
    /// The breadcrumbs' way back down (the first path) was looked at off the UI thread: the
    /// deepest folder of it still there, if any.
    TrailChecked(PathBuf, Option<PathBuf>),
    /// The typed path is the file `name` in the folder: that is opened with the file selected,
    /// as Dolphin does.
    FileTyped(PathBuf, std::ffi::OsString),
    /// The folders of `dir`, for completing what was typed as `typed`.
    Completed {
        /// The text completion was asked for.
        typed: String,
        /// The folder listed.
        dir: PathBuf,
        /// Its folders' names, or why they could not be read.
        names: Result<Arc<[OsString]>, Arc<Error>>,
    },
    /// The rename editor's text changed.
    RenameEdited(String),
    /// Enter in the rename editor.
    RenameSubmitted,
    /// Something is dragged over this pane at this point (relative to the list's area): the
    /// list scrolls near its edges.
    DragOver(Point),
    /// The filter bar's text changed.
    FilterEdited(String),
    /// The filter bar was closed.
    FilterClosed,
    /// The listing service reported something.
    Dir(DirEvent),
}

/// What the window must act on.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Open this file with the default application.
    OpenFile(PathBuf),
    /// Open this folder in a new tab, behind the current one.
    OpenInNewTab(PathBuf),
    /// Enter on several selected items, as Dolphin does: open each file with its application
    /// and each folder in a new tab.
    OpenSelected {
        /// The files, in display order.
        files: Vec<PathBuf>,
        /// The folders (and links to folders).
        folders: Vec<PathBuf>,
    },
    /// The pane was clicked: it gets the keyboard.
    Activated,
    /// Open the context menu at this window position: for the selection, or for the folder
    /// itself (empty space).
    ContextMenu {
        /// Where, in the window.
        at: Point,
        /// For the selected items rather than the folder.
        on_items: bool,
    },
    /// The pane moved to another folder.
    Navigated,
    /// The user switched hidden files on or off (for every pane).
    ShowHiddenChosen(bool),
    /// The user chose a view mode in this folder.
    ModeChosen(ViewMode),
    /// The user chose a sort in this folder.
    SortChosen(SortSpec),
    /// The user zoomed: the icon size of `mode`'s view.
    Zoomed(ViewMode, u16),
    /// The user resized the details view's columns.
    ColumnsResized(Columns),
    /// Bookmark this folder in the places sidebar.
    AddBookmark(PathBuf),
    /// Put these paths on the clipboard as text.
    CopyText(String),
    /// Tell the user this (a toast): something another program did undid what they were
    /// doing in the pane.
    Notice(String),
    /// Do this with items of the pane.
    Operation(Operation),
    /// Show the trash (`trash:/` typed in the location bar, as Dolphin and Nautilus take it).
    OpenTrash,
    /// The selection is being dragged (the window follows the pointer from now on).
    DragStarted {
        /// What is dragged.
        paths: Vec<PathBuf>,
        /// The first item's kind, for the badge's icon.
        first: crate::gui::format::Category,
    },
}
