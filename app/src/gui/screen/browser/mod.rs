//! One folder pane: a folder's listing with history, sorting, two views (details and icons),
//! selection, type-ahead, a filter bar and live updates.
//!
//! The browser never lists, sorts or watches anything itself: it asks the core's `DirService`
//! (through [`Dirs`]) and shows the [`DirEvent`](ferry_core::dirs::DirEvent)s that come back, dropping those of a folder or
//! generation it has moved away from. Each pane is its own view of the service, so two panes
//! (tabs, a split) on one folder share its cached listing. `update` and `view` cost O(visible
//! rows), except for linear passes over the rows when the listing, the hidden-file setting or
//! the filter changes, and for type-ahead's search.
//!
//! This file holds the pane's state and its `update`; the rest is split by what it handles:
//! [`message`] (what comes in and what the window is asked), [`actions`] (what a shortcut
//! does), [`navigation`] (going to a folder, refresh, opening a row) and [`history`]
//! (Back/Forward), [`service`] (what the listing service says), [`display`] (hidden files,
//! filter, sort, view mode, zoom), [`input`] (pointer and keyboard: clicks, the rubber band,
//! moving the focus, type-ahead), [`operations`] (rename, drag, cut marks, the operation
//! requests), [`location`] (breadcrumbs and the typed path with completion), [`details`] and
//! [`grid`] (the two views), [`status`] and [`view`] (the rest of the pane).

mod actions;
mod completion;
mod contents;
mod crumbs;
mod details;
mod display;
mod grid;
mod history;
mod input;
mod location;
mod message;
mod navigation;
mod operations;
mod selection;
mod service;
pub use service::gone_notice;
pub use view::Look;
mod status;
#[cfg(test)]
mod tests;
mod timing;
mod view;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use ferry_core::dirs::{DirService, ViewId};
use ferry_core::sort::{Direction, SortSpec};
use iced::widget::Id;
use iced::{Point, Rectangle, Task};

pub use contents::{Contents, Filter, Listing, contains_ignoring_case, starts_ignoring_case};
pub use message::{Event, Message};
pub use operations::{CutItems, DRAG_THRESHOLD, HIDDEN_NAME, Operation};
pub use selection::Selection;

use super::Ctx;
use crate::gui::settings::{Columns, Settings, ViewMode};
use crate::gui::widget::field::Opened;
use crate::gui::widget::list::Scroll;
pub use history::History;
use history::{Nav, Place};
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

/// A row as drawn in one frame: its position, and the revision of the rows it was drawn from,
/// so a click that raced with a live update is not applied to a different entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowRef {
    revision: u32,
    row: usize,
}

/// Whether a text field's edit from `before` to `after` is a shortcut's character: iced's
/// fields insert the one Ctrl+Plus, Ctrl+Minus or Ctrl+1 carries ("+-1.txt" for a name), over
/// the selection if there is one, where GTK's and Qt's insert nothing. A paste (Ctrl+V)
/// inserts more, or other characters.
fn typed_by_shortcut(before: &str, after: &str, modifiers: iced::keyboard::Modifiers) -> bool {
    if !modifiers.command() {
        return false;
    }
    let span = operations::edited_span(before, after);
    let inserted: Vec<char> = after.chars().skip(span.start).take(span.len()).collect();
    matches!(inserted[..], ['+' | '-' | '=' | '0'..='9'])
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
    /// The files' bytes of the selection, for the status bar: by the selection's stamp and
    /// the listing it was summed in, so that a frame does not go through 200,000 entries.
    selected_bytes: std::cell::Cell<Option<(u64, usize, Option<u64>)>>,
    history: History,
    scroll: Scroll,
    /// The list area's bounds in the window (the grid's width, a keyboard menu's place).
    bounds: Rectangle,
    hovered: Option<RowRef>,
    /// The breadcrumb under the pointer: its folder (a drag dropped there goes into it; it
    /// lit up under a drag and took nothing).
    hovered_crumb: Option<PathBuf>,
    /// A folder below this one that the pane came up from: the path bar keeps the way back
    /// down to it, dimmed, as Dolphin does.
    trail: Option<PathBuf>,
    notice: Option<String>,
    /// The path being typed, while the path bar is a text field.
    editing: Option<Editing>,
    /// The filter bar's text, while it is open.
    filter: Option<String>,
    /// The filter's text when it was opened, all selected.
    filter_opened: Opened,
    /// The user is typing in the filter bar (it opened, or took a letter, since the list
    /// last took a key or a click): Ctrl+Z is the field's, not the jobs'.
    filter_typing: bool,
    typeahead: TypeAhead,
    band: Option<Band>,
    column_drag: Option<ColumnDrag>,
    /// A press on an item that may become a drag.
    press: Option<Press>,
    /// The rename editor, while it is open.
    renaming: Option<Renaming>,
    /// Names to select once the folder lists them (a renamed item, what a paste brought).
    select_when_listed: operations::SelectWhenListed,
    /// The items cut to the clipboard, drawn dimmed while the pane shows their folder.
    cut: Option<CutItems>,
    /// Where something dragged over the pane is, for scrolling at the edges.
    drag_over: Option<Point>,
    /// The entry to focus once the listing arrives (the folder we came up from).
    focus_on_load: Option<OsString>,
    /// The user chose another sort: the focused item is brought into view once the folder
    /// comes back in its new order, as Dolphin and Nautilus keep it.
    reveal_when_sorted: bool,
    /// The user asked to trash or delete the selection: once its focused item is gone, the
    /// next is selected (as in Dolphin, so that Delete again goes on), where a removal by
    /// another program leaves it only focused.
    select_next_when_gone: bool,
    /// A hidden file typed in the location bar while hidden files are not shown: selected
    /// once they are (Ctrl+H), and its notice goes.
    typed_hidden: Option<OsString>,
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
            selected_bytes: std::cell::Cell::new(None),
            history: History::default(),
            scroll: Scroll::default(),
            bounds: Rectangle::new(Point::ORIGIN, crate::gui::WINDOW_SIZE),
            hovered: None,
            hovered_crumb: None,
            trail: None,
            notice: None,
            editing: None,
            filter: None,
            filter_opened: Opened::default(),
            filter_typing: false,
            typeahead: TypeAhead::default(),
            band: None,
            column_drag: None,
            press: None,
            renaming: None,
            select_when_listed: operations::SelectWhenListed::default(),
            cut: None,
            drag_over: None,
            focus_on_load: None,
            reveal_when_sorted: false,
            select_next_when_gone: false,
            typed_hidden: None,
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

    /// The folder's name for a tab and the window's title: "Home" for the home folder, as
    /// the path bar and the places call it (the tab said "ann", the breadcrumb "Home").
    pub fn folder_name(&self) -> std::borrow::Cow<'_, str> {
        match &self.home {
            Some(home) if *home == self.path => "Home".into(),
            _ => crate::gui::format::display_name(&self.path),
        }
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

    /// The folder of the breadcrumb under the pointer, if one is.
    pub fn hovered_crumb(&self) -> Option<&Path> {
        self.hovered_crumb.as_deref()
    }

    /// Where Back and Forward go.
    pub fn history(&self) -> &History {
        &self.history
    }

    /// Gives the pane the Back and Forward of the pane it stands for (a tab reopened).
    pub fn set_history(&mut self, history: History) {
        self.history = history;
    }

    /// True while the rename editor is open.
    pub fn is_renaming(&self) -> bool {
        self.renaming.is_some()
    }

    /// True while the user types in a text field of the pane: the rename editor, a path in
    /// the location bar, the filter bar (until the list takes a key: then, as in Dolphin,
    /// Ctrl+Z undoes the last job again).
    pub fn is_typing(&self) -> bool {
        self.is_renaming() || self.is_editing_location() || self.is_filter_typing()
    }

    /// True while the keyboard is in the filter bar.
    pub fn is_filter_typing(&self) -> bool {
        self.filter.is_some() && self.filter_typing
    }

    /// Gives the list the keyboard from the filter bar, which stays open: the field lets go,
    /// so that Ctrl+A, Ctrl+C and Ctrl+V reach the list, as in Dolphin.
    fn leave_filter(&mut self) -> Task<Message> {
        if !std::mem::take(&mut self.filter_typing) {
            return Task::none();
        }
        iced::advanced::widget::operate(iced::advanced::widget::operation::focusable::unfocus())
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
        let (task, event) = self.handle(message, ctx);
        (Task::batch([task, self.keep_rename_focus()]), event)
    }

    fn handle(&mut self, message: Message, ctx: &Ctx<'_>) -> (Task<Message>, Option<Event>) {
        if let Message::RenameEdited(after)
        | Message::PathEdited(after)
        | Message::FilterEdited(after) = &message
        {
            let before = match &message {
                Message::RenameEdited(_) => self.renaming.as_ref().map(|r| r.text.as_str()),
                Message::PathEdited(_) => self.editing.as_ref().map(|e| e.text.as_str()),
                _ => self.filter.as_deref(),
            };
            if typed_by_shortcut(before.unwrap_or(""), after, ctx.modifiers) {
                // The field moved its cursor past the character it took: the rename editor's
                // is put back as the user left it.
                let back = match message {
                    Message::RenameEdited(_) => self.refocus_rename(),
                    _ => Task::none(),
                };
                return (back, None);
            }
        }
        match message {
            Message::Navigate(path) => self.navigated(Place::new(path), Nav::Push, ctx),
            Message::Removed(gone) => match gone.parent() {
                Some(parent) if self.path.starts_with(&gone) => {
                    self.navigated(Place::new(parent.to_path_buf()), Nav::Replace, ctx)
                }
                _ => (Task::none(), None),
            },
            Message::Followed { from, to } => {
                self.history.moved(&from, &to);
                let Ok(below) = self.path.strip_prefix(&from) else {
                    return (Task::none(), None);
                };
                let place = match below.as_os_str().is_empty() {
                    true => Place::new(to),
                    false => Place::new(to.join(below)),
                };
                self.navigated(place, Nav::Replace, ctx)
            }
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
                self.filter_typing = false;
                let renamed = self.rename_ended_by_press(Some(at));
                self.press(at, ctx);
                (Task::none(), renamed.or(Some(Event::Activated)))
            }
            Message::RowDoubleClicked(at) if at.revision == self.revision => {
                self.open_row(at.row, ctx)
            }
            Message::RowMiddleClicked(at) if at.revision == self.revision => {
                let folder = self.row_folder(at.row);
                (Task::none(), folder.map(Event::OpenInNewTab))
            }
            Message::RowRightPressed(at) => {
                let renamed = self.rename_ended_by_press(Some(at));
                self.right_press(at);
                (Task::none(), renamed)
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
            Message::CrumbEntered(folder) => {
                self.hovered_crumb = Some(folder);
                (Task::none(), None)
            }
            Message::CrumbLeft(folder) => {
                if self.hovered_crumb.as_ref() == Some(&folder) {
                    self.hovered_crumb = None;
                }
                (Task::none(), None)
            }
            Message::BackgroundPressed(at) => {
                self.editing = None;
                self.filter_typing = false;
                if let Some(renamed) = self.rename_ended_by_press(None) {
                    return (Task::none(), Some(renamed));
                }
                self.start_band(at, ctx);
                (Task::none(), Some(Event::Activated))
            }
            Message::FailurePressed => (Task::none(), Some(Event::Activated)),
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
                // The area is the list's viewport. The scrollable says its height only when it
                // scrolls or changes size, and a tab shown again after a resize, its offset
                // unchanged, was told nothing: its rows were built for the old height.
                let before = Scroll {
                    viewport_h: self.bounds.height,
                    ..self.scroll
                };
                self.bounds = bounds;
                self.scroll.viewport_h = bounds.height;
                (self.keep_focus_in_view(before), None)
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
            Message::EditTrashAddress => (self.edit_trash_address(), None),
            Message::NoticeDismissed => {
                self.notice = None;
                (Task::none(), None)
            }
            Message::EditPath => (self.edit_path(), None),
            Message::CrumbPressed(path) => self.navigated(Place::new(path), Nav::Push, ctx),
            Message::PathEdited(text) => {
                self.path_edited(text);
                (Task::none(), None)
            }
            Message::PathSubmitted => self.submit_location(),
            Message::TrailChecked(trail, there) => {
                self.trail_checked(&trail, there);
                (Task::none(), None)
            }
            Message::PathChecked(path, Ok(())) => {
                if self.editing.is_none() {
                    return (Task::none(), None);
                }
                self.navigated(Place::new(path), Nav::Push, ctx)
            }
            Message::FileTyped(dir, name) => {
                if self.editing.is_none() {
                    return (Task::none(), None);
                }
                let (task, event) = self.navigated(Place::new(dir), Nav::Push, ctx);
                // Not shown, it cannot be selected: said, rather than a folder with nothing
                // selected and no word.
                if !self.show_hidden && name.as_encoded_bytes().starts_with(b".") {
                    self.notice = Some(format!(
                        "“{}” is hidden: Ctrl+H shows hidden files.",
                        crate::gui::format::shown_name(&name)
                    ));
                    self.typed_hidden = Some(name.clone());
                }
                (Task::batch([task, self.select_when_listed([name])]), event)
            }
            Message::PathChecked(_, Err(error)) => {
                self.path_refused(&error);
                (Task::none(), None)
            }
            Message::Completed { typed, dir, names } => {
                self.completed(&typed, &dir, names);
                (self.show_completion(), None)
            }
            Message::FilterEdited(text) => {
                self.filter_typing = true;
                (self.set_filter(Some(text)), None)
            }
            Message::FilterClosed => (self.set_filter(None), None),
            Message::Dir(event) => self.on_dir_event(event, ctx),
        }
    }
}
