//! One folder pane: a folder's listing with history, sorting, two views (details and icons),
//! selection, type-ahead, a filter bar and live updates.
//!
//! The browser never lists, sorts or watches anything itself: it asks the core's `DirService`
//! (through [`Dirs`]) and shows the [`DirEvent`]s that come back, dropping those of a folder or
//! generation it has moved away from. Each pane is its own view of the service, so two panes
//! (tabs, a split) on one folder share its cached listing. `update` and `view` cost O(visible
//! rows), except for linear passes over the rows when the listing, the hidden-file setting or
//! the filter changes, and for type-ahead's search.
//!
//! The rest of the module is split by what it handles: [`history`] (Back/Forward), [`input`]
//! (pointer and keyboard: clicks, the rubber band, moving the focus, type-ahead),
//! [`location`] (breadcrumbs and the typed path with completion), [`details`] and [`grid`]
//! (the two views), [`status`] and [`view`] (the rest of the pane).

mod contents;
mod details;
mod grid;
mod history;
mod input;
mod location;
mod operations;
mod selection;
mod service;
mod status;
#[cfg(test)]
mod tests;
mod timing;
mod view;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ferry_core::Error;
use ferry_core::dirs::{DirEvent, DirService, ViewId};
use ferry_core::sort::{Direction, SortKey, SortSpec};
use iced::widget::Id;
use iced::widget::operation::{self, AbsoluteOffset};
use iced::{Point, Rectangle, Task};

pub use contents::{Contents, Filter, Listing};
pub use operations::{CutItems, DRAG_THRESHOLD, Operation};
pub use selection::Selection;

use super::Ctx;
use crate::gui::settings::{Columns, Settings, ViewMode};
use crate::gui::shortcut::PaneAction;
use crate::gui::widget::field::Opened;
use crate::gui::widget::list::Scroll;
use history::{History, Nav, Place};
use input::{Band, ColumnDrag, TypeAhead};
use location::Editing;
use operations::{Press, Renaming};
use timing::NavTiming;

/// Icon sizes of the icon view that zoom steps through.
pub const ICON_SIZES: [u16; 7] = [32, 48, 64, 96, 128, 192, 256];

/// The listing service as the browser uses it: implemented by [`DirService`]; tests substitute
/// a recorder.
pub trait Dirs {
    /// Starts showing `path` in `view`; returns the generation its events will carry.
    fn open(&self, view: ViewId, path: PathBuf, sort: SortSpec) -> u64;
    /// Asks for `view`'s listing in a new order (sorted off the UI thread).
    fn resort(&self, view: ViewId, sort: SortSpec);
    /// Lists `view`'s folder again.
    fn refresh(&self, view: ViewId);
    /// `view` is gone (its tab or pane was closed).
    fn close(&self, view: ViewId);
}

impl Dirs for DirService {
    fn open(&self, view: ViewId, path: PathBuf, sort: SortSpec) -> u64 {
        DirService::open(self, view, path, sort)
    }
    fn resort(&self, view: ViewId, sort: SortSpec) {
        DirService::resort(self, view, sort);
    }
    fn refresh(&self, view: ViewId) {
        DirService::refresh(self, view);
    }
    fn close(&self, view: ViewId) {
        DirService::close(self, view);
    }
}

/// Input of the browser.
#[derive(Debug, Clone)]
pub enum Message {
    /// Go to this folder (a breadcrumb segment).
    Navigate(PathBuf),
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
    /// The empty part of the list was pressed, here (relative to the list's area).
    BackgroundPressed(Point),
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
    /// Turn the path bar into a text field.
    EditPath,
    /// The text in the path bar changed.
    PathEdited(String),
    /// Enter was pressed in the path bar: check the path, then go there.
    PathSubmitted,
    /// The typed path was checked: a folder, or why not.
    PathChecked(PathBuf, Result<(), Arc<Error>>),
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

/// A row as drawn in one frame: its position, and the revision of the rows it was drawn from,
/// so a click that raced with a live update is not applied to a different entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowRef {
    revision: u32,
    row: usize,
}

/// What the window must act on.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Open this file with the default application.
    OpenFile(PathBuf),
    /// Open this folder in a new tab, behind the current one.
    OpenInNewTab(PathBuf),
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
    /// Do this with items of the pane.
    Operation(Operation),
    /// The selection is being dragged (the window follows the pointer from now on).
    DragStarted {
        /// What is dragged.
        paths: Vec<PathBuf>,
        /// The first item's kind, for the badge's icon.
        first: crate::gui::format::Category,
    },
}

/// The browser screen's state.
#[derive(Debug)]
pub struct Browser {
    view_id: ViewId,
    path: PathBuf,
    home: Option<PathBuf>,
    generation: u64,
    sort: SortSpec,
    mode: ViewMode,
    show_hidden: bool,
    /// The icon view's icon size.
    icon_size: u16,
    /// The details view's icon size (its row height follows).
    details_icon: u16,
    columns: Columns,
    listing: Listing,
    /// Bumped whenever row positions change meaning.
    revision: u32,
    selection: Selection,
    history: History,
    scroll: Scroll,
    /// The list area's bounds in the window (the grid's width, a keyboard menu's place).
    bounds: Rectangle,
    hovered: Option<RowRef>,
    notice: Option<String>,
    /// The path being typed, while the path bar is a text field.
    editing: Option<Editing>,
    /// The filter bar's text, while it is open.
    filter: Option<String>,
    /// The filter's text when it was opened, all selected.
    filter_opened: Opened,
    typeahead: TypeAhead,
    band: Option<Band>,
    column_drag: Option<ColumnDrag>,
    /// A press on an item that may become a drag.
    press: Option<Press>,
    /// The rename editor, while it is open.
    renaming: Option<Renaming>,
    /// A name to open the rename editor on once the folder lists it (New Folder).
    pending_rename: Option<OsString>,
    /// A name to select once the folder lists it (a renamed item).
    select_when_listed: Option<OsString>,
    /// The items cut to the clipboard, drawn dimmed while the pane shows their folder.
    cut: Option<CutItems>,
    /// Where something dragged over the pane is, for scrolling at the edges.
    drag_over: Option<Point>,
    /// The entry to focus once the listing arrives (the folder we came up from).
    focus_on_load: Option<OsString>,
    timing: Option<NavTiming>,
}

impl Browser {
    /// A browser for `view` starting on `path`; `home` names the first breadcrumb.
    pub fn new(view_id: ViewId, path: PathBuf, ctx: &Ctx<'_>) -> Self {
        let settings = ctx.settings;
        let (mode, sort) = settings.view_for(&path);
        let generation = ctx.dirs.open(view_id, path.clone(), sort);
        Browser {
            view_id,
            listing: Listing::Loading(Contents::empty(path.clone())),
            path,
            home: ctx.home.map(Path::to_path_buf),
            generation,
            sort,
            mode,
            show_hidden: settings.show_hidden,
            icon_size: settings.icon_size,
            details_icon: settings.details_icon,
            columns: settings.columns,
            revision: 0,
            selection: Selection::default(),
            history: History::default(),
            scroll: Scroll::default(),
            bounds: Rectangle::new(Point::ORIGIN, crate::gui::WINDOW_SIZE),
            hovered: None,
            notice: None,
            editing: None,
            filter: None,
            filter_opened: Opened::default(),
            typeahead: TypeAhead::default(),
            band: None,
            column_drag: None,
            press: None,
            renaming: None,
            pending_rename: None,
            select_when_listed: None,
            cut: None,
            drag_over: None,
            focus_on_load: None,
            timing: Some(NavTiming::start()),
        }
    }

    /// The pane's view of the listing service.
    pub fn view_id(&self) -> ViewId {
        self.view_id
    }

    /// The pane is closed (its tab, or its half of a split): the service lets its listing go.
    pub fn close(&self, ctx: &Ctx<'_>) {
        ctx.dirs.close(self.view_id);
    }

    /// The id of this pane's scrollable list, for `scroll_to`: derived from the pane's view,
    /// so two panes never clash.
    pub fn list_id(&self) -> Id {
        Id::from(format!("ferry-list-{}", self.view_id))
    }

    /// The id of this pane's path field, to focus it.
    pub fn path_input_id(&self) -> Id {
        Id::from(format!("ferry-path-{}", self.view_id))
    }

    /// The id of this pane's filter field, to focus it.
    pub fn filter_input_id(&self) -> Id {
        Id::from(format!("ferry-filter-{}", self.view_id))
    }

    /// The folder shown.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The listing state.
    pub fn listing(&self) -> &Listing {
        &self.listing
    }

    /// The selection.
    pub fn selection(&self) -> &Selection {
        &self.selection
    }

    /// The paths of the selected entries, in display order.
    pub fn selected_paths(&self) -> Vec<PathBuf> {
        let Some(contents) = self.listing.contents() else {
            return Vec::new();
        };
        contents
            .rows()
            .iter()
            .filter(|&&e| self.selection.contains(e))
            .map(|&e| self.path.join(contents.entries().entry(e as usize).name()))
            .collect()
    }

    /// The selected folders (and links to folders), in display order.
    pub fn selected_folders(&self) -> Vec<PathBuf> {
        let Some(contents) = self.listing.contents() else {
            return Vec::new();
        };
        contents
            .rows()
            .iter()
            .filter(|&&e| self.selection.contains(e))
            .map(|&e| contents.entries().entry(e as usize))
            .filter(|entry| entry.is_dir_like())
            .map(|entry| self.path.join(entry.name()))
            .collect()
    }

    /// The focused entry when it is a selected folder (what "Open in New Tab" acts on).
    pub fn focused_folder(&self) -> Option<PathBuf> {
        let contents = self.listing.contents()?;
        let focus = self.selection.focus()?;
        let entry = contents.entries().get(focus as usize)?;
        (self.selection.contains(focus) && entry.is_dir_like())
            .then(|| self.path.join(entry.name()))
    }

    /// The sort order asked for.
    pub fn sort(&self) -> SortSpec {
        self.sort
    }

    /// The view mode shown.
    pub fn mode(&self) -> ViewMode {
        self.mode
    }

    /// Whether dot files are shown.
    pub fn shows_hidden(&self) -> bool {
        self.show_hidden
    }

    /// The generation of the current folder's events.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// True when Back has somewhere to go.
    pub fn can_go_back(&self) -> bool {
        self.history.can_go_back()
    }

    /// True when Forward has somewhere to go.
    pub fn can_go_forward(&self) -> bool {
        self.history.can_go_forward()
    }

    /// True while a path is typed into the location bar.
    pub fn is_editing_location(&self) -> bool {
        self.editing.is_some()
    }

    /// True while the rename editor is open.
    pub fn is_renaming(&self) -> bool {
        self.renaming.is_some()
    }

    /// True while the pointer holds a rubber band, or drags something over the pane (the
    /// window then sends [`Message::AutoScroll`] ticks).
    pub fn is_banding(&self) -> bool {
        self.band.is_some() || self.drag_over.is_some()
    }

    /// Shows a one-line notice above the list until dismissed or the folder changes.
    pub fn set_notice(&mut self, notice: String) {
        self.notice = Some(notice);
    }

    /// Takes the settings every pane shares (hidden files, icon sizes, column widths).
    pub fn apply_settings(&mut self, settings: &Settings) -> Task<Message> {
        self.icon_size = settings.icon_size;
        self.details_icon = settings.details_icon;
        self.columns = settings.columns;
        self.set_show_hidden(settings.show_hidden)
    }

    /// Handles one message; returns the widget operations to run and what the window must do.
    pub fn update(&mut self, message: Message, ctx: &Ctx<'_>) -> (Task<Message>, Option<Event>) {
        match message {
            Message::Navigate(path) => self.navigated(Place::new(path), Nav::Push, ctx),
            Message::ShowHidden(show) => (Task::none(), Some(Event::ShowHiddenChosen(show))),
            Message::SortBy(key) => {
                let direction = match (key == self.sort.key, self.sort.direction) {
                    (true, Direction::Ascending) => Direction::Descending,
                    _ => Direction::Ascending,
                };
                let sort = SortSpec {
                    key,
                    direction,
                    ..self.sort
                };
                self.set_sort(sort, ctx)
            }
            Message::SetSort(sort) => self.set_sort(sort, ctx),
            Message::SetMode(mode) => self.set_mode(mode),
            Message::RowPressed(at) => {
                self.press(at, ctx);
                (Task::none(), Some(Event::Activated))
            }
            Message::RowDoubleClicked(at) if at.revision == self.revision => {
                self.open_row(at.row, ctx)
            }
            Message::RowMiddleClicked(at) if at.revision == self.revision => {
                let folder = self.row_folder(at.row);
                (Task::none(), folder.map(Event::OpenInNewTab))
            }
            Message::RowRightPressed(at) => {
                self.right_press(at);
                (Task::none(), None)
            }
            Message::RowDoubleClicked(_) | Message::RowMiddleClicked(_) => (Task::none(), None),
            Message::RowLeft(at) => {
                if self.hovered == Some(at) {
                    self.hovered = None;
                }
                (Task::none(), None)
            }
            Message::RowEntered(at) => {
                self.hovered = Some(at);
                (Task::none(), None)
            }
            Message::BackgroundPressed(at) => {
                self.editing = None;
                self.start_band(at, ctx);
                (Task::none(), Some(Event::Activated))
            }
            Message::ItemPressed(at) => {
                self.item_pressed(at);
                (Task::none(), None)
            }
            Message::Dragged(at) if self.band.is_some() => (self.drag_band(at), None),
            Message::Dragged(at) => (Task::none(), self.item_dragged(at)),
            Message::Released => {
                self.band = None;
                self.drag_over = None;
                self.released();
                (Task::none(), None)
            }
            Message::DragOver(at) => {
                self.drag_over = Some(at);
                (Task::none(), None)
            }
            Message::RenameEdited(text) => {
                self.rename_edited(text);
                (Task::none(), None)
            }
            Message::RenameSubmitted => (Task::none(), self.rename_submitted()),
            Message::AutoScroll => (self.auto_scroll(), None),
            Message::RightPressed { at, on_item } => {
                if !on_item {
                    self.selection.clear();
                }
                (
                    Task::none(),
                    Some(Event::ContextMenu {
                        at,
                        on_items: on_item,
                    }),
                )
            }
            Message::Resized(bounds) => {
                self.bounds = bounds;
                (Task::none(), None)
            }
            Message::Scrolled {
                offset_y,
                viewport_h,
            } => {
                self.scroll = Scroll {
                    offset_y,
                    viewport_h,
                };
                (Task::none(), None)
            }
            Message::ScrollTo(offset_y) => (self.scroll_to(offset_y), None),
            Message::HeaderPressed(at) => {
                self.column_drag = self.column_at(at.x);
                (Task::none(), None)
            }
            Message::HeaderDragged(at) => (Task::none(), self.drag_column(at.x)),
            Message::HeaderReleased => {
                self.column_drag = None;
                (Task::none(), None)
            }
            Message::Action(action) => self.perform(action, ctx),
            Message::NoticeDismissed => {
                self.notice = None;
                (Task::none(), None)
            }
            Message::EditPath => (self.edit_path(), None),
            Message::PathEdited(text) => {
                self.path_edited(text);
                (Task::none(), None)
            }
            Message::PathSubmitted => (self.submit_path(), None),
            Message::PathChecked(path, Ok(())) => {
                if self.editing.is_none() {
                    return (Task::none(), None);
                }
                self.navigated(Place::new(path), Nav::Push, ctx)
            }
            Message::PathChecked(_, Err(error)) => {
                self.path_refused(&error);
                (Task::none(), None)
            }
            Message::Completed { typed, dir, names } => {
                self.completed(&typed, &dir, names);
                (self.show_completion(), None)
            }
            Message::FilterEdited(text) => (self.set_filter(Some(text)), None),
            Message::FilterClosed => (self.set_filter(None), None),
            Message::Dir(event) => self.on_dir_event(event, ctx),
        }
    }

    fn perform(&mut self, action: PaneAction, ctx: &Ctx<'_>) -> (Task<Message>, Option<Event>) {
        let none = (Task::none(), None);
        if let Some(done) = self.operation(action) {
            return done;
        }
        match action {
            PaneAction::Back => match self.history.take_back() {
                Some(place) => self.navigated(place, Nav::Back, ctx),
                None => none,
            },
            PaneAction::Forward => match self.history.take_forward() {
                Some(place) => self.navigated(place, Nav::Forward, ctx),
                None => none,
            },
            PaneAction::Up => match self.path.parent() {
                Some(parent) => self.navigated(Place::new(parent.to_path_buf()), Nav::Push, ctx),
                None => none,
            },
            PaneAction::Refresh => {
                self.refresh(ctx.dirs);
                none
            }
            PaneAction::ToggleHidden => (
                Task::none(),
                Some(Event::ShowHiddenChosen(!self.show_hidden)),
            ),
            // Enter no field took while one is open was pressed before it had the keyboard.
            PaneAction::Open if self.renaming.is_some() => (Task::none(), self.rename_submitted()),
            PaneAction::Open if self.editing.is_some() => (self.submit_path(), None),
            PaneAction::Open => match self.focused_row() {
                Some(row) if self.selection.count() > 0 => self.open_row(row, ctx),
                _ => none,
            },
            PaneAction::OpenInNewTab => {
                (Task::none(), self.focused_folder().map(Event::OpenInNewTab))
            }
            // Up and Down reach the window while a path is typed: they are not for the list.
            PaneAction::Move { .. } if self.editing.is_some() => none,
            PaneAction::Move { step, extend } => (self.move_focus(step, extend), None),
            PaneAction::Complete => (self.complete(ctx), None),
            PaneAction::SelectAll => {
                if let Some(contents) = self.listing.contents() {
                    self.selection.select_all(contents.rows());
                }
                none
            }
            PaneAction::InvertSelection => {
                if let Some(contents) = self.listing.contents() {
                    self.selection.invert(contents.rows());
                }
                none
            }
            PaneAction::Escape => (self.escape(), None),
            PaneAction::EditLocation => (self.edit_path(), None),
            PaneAction::DetailsView => self.set_mode(ViewMode::Details),
            PaneAction::IconsView => self.set_mode(ViewMode::Icons),
            PaneAction::ZoomIn => (Task::none(), self.zoom(1)),
            PaneAction::ZoomOut => (Task::none(), self.zoom(-1)),
            PaneAction::ZoomReset => (Task::none(), self.zoom(0)),
            PaneAction::Filter => (self.open_filter(), None),
            PaneAction::ContextMenu => (Task::none(), Some(self.keyboard_menu())),
            PaneAction::AddBookmark => {
                let folder = self.focused_folder().unwrap_or_else(|| self.path.clone());
                (Task::none(), Some(Event::AddBookmark(folder)))
            }
            PaneAction::CopyLocation => {
                let mut paths = self.selected_paths();
                if paths.is_empty() {
                    paths.push(self.path.clone());
                }
                let text = paths
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join("\n");
                (Task::none(), Some(Event::CopyText(text)))
            }
            PaneAction::TypeAhead(c) => match self.type_into_open_field(c) {
                Some(task) => (task, None),
                None => (self.type_ahead(c), None),
            },
            // Handled by `operation` above.
            PaneAction::Copy
            | PaneAction::Cut
            | PaneAction::Paste
            | PaneAction::Rename
            | PaneAction::NewFolder
            | PaneAction::Trash
            | PaneAction::Delete
            | PaneAction::Duplicate
            | PaneAction::CopyTo
            | PaneAction::MoveTo
            | PaneAction::LinkTo
            | PaneAction::CopyToOtherPane
            | PaneAction::MoveToOtherPane => none,
        }
    }

    /// Escape: drop the rubber band, stop typing a path, close the filter, or clear the
    /// selection — the first that applies.
    fn escape(&mut self) -> Task<Message> {
        if self.band.take().is_some()
            || self.renaming.take().is_some()
            || self.editing.take().is_some()
        {
            return Task::none();
        }
        if self.filter.is_some() {
            return self.set_filter(None);
        }
        self.selection.clear();
        Task::none()
    }

    fn navigated(
        &mut self,
        place: Place,
        nav: Nav,
        ctx: &Ctx<'_>,
    ) -> (Task<Message>, Option<Event>) {
        if place.path == self.path && nav == Nav::Push {
            self.editing = None;
            return (Task::none(), None);
        }
        (self.go_to(place, nav, ctx), Some(Event::Navigated))
    }

    /// Shows `place`, focusing its remembered entry once listed; or, coming up into an
    /// ancestor, the folder we came from.
    fn go_to(&mut self, place: Place, nav: Nav, ctx: &Ctx<'_>) -> Task<Message> {
        let leaving = Place {
            focus: self.focused_name(),
            path: std::mem::replace(&mut self.path, place.path),
        };
        self.focus_on_load = place.focus.or_else(|| {
            let rest = leaving.path.strip_prefix(&self.path).ok()?;
            Some(rest.components().next()?.as_os_str().to_owned())
        });
        self.history.leave(leaving, nav);
        (self.mode, self.sort) = ctx.settings.view_for(&self.path);
        self.generation = ctx.dirs.open(self.view_id, self.path.clone(), self.sort);
        self.listing = Listing::Loading(Contents::empty(self.path.clone()));
        self.revision = self.revision.wrapping_add(1);
        self.selection = Selection::default();
        self.hovered = None;
        self.notice = None;
        self.editing = None;
        self.filter = None;
        self.band = None;
        self.renaming = None;
        self.pending_rename = None;
        self.select_when_listed = None;
        self.timing = Some(NavTiming::start());
        self.scroll_to(0.0)
    }

    fn scroll_to(&mut self, offset_y: f32) -> Task<Message> {
        self.scroll.offset_y = offset_y;
        operation::scroll_to(
            self.list_id(),
            AbsoluteOffset {
                x: None,
                y: Some(offset_y),
            },
        )
    }

    /// The name of the focused entry, if it is shown.
    fn focused_name(&self) -> Option<OsString> {
        let entries = self.listing.contents()?.entries();
        Some(
            entries
                .get(self.selection.focus()? as usize)?
                .name()
                .to_owned(),
        )
    }

    fn refresh(&mut self, dirs: &dyn Dirs) {
        if let Listing::Failed(_) = self.listing {
            // The service dropped the failed folder: open it afresh (maybe it is readable now).
            self.generation = dirs.open(self.view_id, self.path.clone(), self.sort);
            self.listing = Listing::Loading(Contents::empty(self.path.clone()));
            self.revision = self.revision.wrapping_add(1);
        } else {
            dirs.refresh(self.view_id);
        }
    }

    fn set_show_hidden(&mut self, show: bool) -> Task<Message> {
        if show == self.show_hidden {
            return Task::none();
        }
        self.show_hidden = show;
        let (Listing::Loading(contents) | Listing::Loaded(contents)) = &mut self.listing else {
            return Task::none();
        };
        contents.set_show_hidden(show);
        self.rows_changed();
        self.reveal_focus()
    }

    fn set_filter(&mut self, text: Option<String>) -> Task<Message> {
        let filter = text.as_deref().and_then(Filter::new);
        self.filter = text;
        let show_hidden = self.show_hidden;
        if let Listing::Loading(contents) | Listing::Loaded(contents) = &mut self.listing
            && contents.filter() != filter.as_ref()
        {
            contents.set_filter(filter, show_hidden);
            self.rows_changed();
            return self.reveal_focus();
        }
        Task::none()
    }

    /// The rows were rebuilt: only shown entries stay selected, and row positions drawn
    /// before mean nothing now.
    fn rows_changed(&mut self) {
        if let Some(contents) = self.listing.contents() {
            // Each selected entry is checked by itself: no set of every row at every change.
            self.selection.retain(|e| contents.shows(e));
        }
        self.revision = self.revision.wrapping_add(1);
        self.hovered = None;
    }

    fn set_sort(&mut self, sort: SortSpec, ctx: &Ctx<'_>) -> (Task<Message>, Option<Event>) {
        self.sort = sort;
        ctx.dirs.resort(self.view_id, sort);
        (Task::none(), Some(Event::SortChosen(sort)))
    }

    fn set_mode(&mut self, mode: ViewMode) -> (Task<Message>, Option<Event>) {
        self.mode = mode;
        self.revision = self.revision.wrapping_add(1);
        self.hovered = None;
        (self.reveal_focus(), Some(Event::ModeChosen(mode)))
    }

    /// Steps the current view's icon size `by` (0: back to the default).
    fn zoom(&self, by: i32) -> Option<Event> {
        let (sizes, current, default): (&[u16], u16, u16) = match self.mode {
            ViewMode::Icons => (&ICON_SIZES, self.icon_size, 64),
            ViewMode::Details => (&details::ICON_SIZES, self.details_icon, 22),
        };
        let at = sizes.iter().position(|&s| s >= current).unwrap_or(0);
        let size = match by {
            0 => default,
            1 => sizes[(at + 1).min(sizes.len() - 1)],
            _ => sizes[at.saturating_sub(1)],
        };
        (size != current).then_some(Event::Zoomed(self.mode, size))
    }

    fn open_row(&mut self, row: usize, ctx: &Ctx<'_>) -> (Task<Message>, Option<Event>) {
        let Some((_, entry)) = self.listing.contents().and_then(|c| c.row(row)) else {
            return (Task::none(), None);
        };
        let target = self.path.join(entry.name());
        if entry.is_dir_like() {
            self.navigated(Place::new(target), Nav::Push, ctx)
        } else {
            (Task::none(), Some(Event::OpenFile(target)))
        }
    }

    fn row_folder(&self, row: usize) -> Option<PathBuf> {
        let (_, entry) = self.listing.contents()?.row(row)?;
        entry.is_dir_like().then(|| self.path.join(entry.name()))
    }
}
