//! The folder browser screen: one folder's listing with history, sorting, selection and live
//! updates.
//!
//! The browser never lists, sorts or watches anything itself: it asks the core's `DirService`
//! (through [`Dirs`]) and shows the [`DirEvent`]s that come back, dropping those of a folder or
//! generation it has moved away from. `update` and `view` cost O(visible rows), except for
//! linear passes over the rows when the listing itself changes.

mod contents;
mod details;
mod history;
mod location;
mod selection;
mod status;
#[cfg(test)]
mod tests;
mod view;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ferry_core::dirs::{DirEvent, DirService, ViewId};
use ferry_core::entry;
use ferry_core::sort::{Direction, SortKey, SortSpec};
use iced::widget::Id;
use iced::widget::operation::{self, AbsoluteOffset};
use iced::{Size, Task};

pub use contents::{Contents, Listing};
pub use selection::Selection;

use super::Ctx;
use crate::gui::format;
use crate::gui::shortcut::{Action, Step};
use crate::gui::widget::list::Scroll;
use history::{History, Nav, Place};

/// The listing service as the browser uses it: implemented by [`DirService`]; tests substitute
/// a recorder.
pub trait Dirs {
    /// Starts showing `path` in `view`; returns the generation its events will carry.
    fn open(&self, view: ViewId, path: PathBuf, sort: SortSpec) -> u64;
    /// Asks for `view`'s listing in a new order (sorted off the UI thread).
    fn resort(&self, view: ViewId, sort: SortSpec);
    /// Lists `view`'s folder again.
    fn refresh(&self, view: ViewId);
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
}

/// Input of the browser.
#[derive(Debug, Clone)]
pub enum Message {
    /// Go to this folder (a breadcrumb segment).
    Navigate(PathBuf),
    /// Show hidden entries or not.
    ShowHidden(bool),
    /// Sort by this column (again: reverse the direction).
    SortBy(SortKey),
    /// A row was clicked (with the modifiers held at the time).
    RowPressed(RowRef),
    /// A row was double-clicked.
    RowDoubleClicked(RowRef),
    /// The pointer entered a row.
    RowEntered(RowRef),
    /// The pointer left a row.
    RowLeft(RowRef),
    /// The empty part of the list was clicked.
    BackgroundPressed,
    /// The list was scrolled or resized.
    Scrolled {
        /// Offset of the viewport's top.
        offset_y: f32,
        /// Height of the viewport.
        viewport_h: f32,
    },
    /// The scrollbar asks to scroll the list to this offset.
    ScrollTo(f32),
    /// The window changed size.
    WindowResized(Size),
    /// An action asked for by a keyboard shortcut or a toolbar button.
    Action(Action),
    /// The notice banner was closed.
    NoticeDismissed,
    /// Turn the path bar into a text field.
    EditPath,
    /// The text in the path bar changed.
    PathEdited(String),
    /// Enter was pressed in the path bar: go there.
    PathSubmitted,
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// Open this file with the default application.
    OpenFile(PathBuf),
}

/// The browser screen's state.
#[derive(Debug)]
pub struct Browser {
    view_id: ViewId,
    path: PathBuf,
    home: Option<PathBuf>,
    generation: u64,
    sort: SortSpec,
    show_hidden: bool,
    listing: Listing,
    /// Bumped whenever row positions change meaning.
    revision: u32,
    selection: Selection,
    history: History,
    scroll: Scroll,
    /// The window's width, for shortening long names to the name column.
    window_w: f32,
    hovered: Option<RowRef>,
    notice: Option<String>,
    /// The path being typed, while the path bar is a text field.
    editing_path: Option<String>,
    /// The entry to focus once the listing arrives (the folder we came up from).
    focus_on_load: Option<OsString>,
}

impl Browser {
    /// A browser for `view` starting on `path`; `home` names the first breadcrumb.
    pub fn new(view_id: ViewId, path: PathBuf, home: Option<PathBuf>, dirs: &dyn Dirs) -> Self {
        let sort = SortSpec::default();
        let generation = dirs.open(view_id, path.clone(), sort);
        Browser {
            view_id,
            listing: Listing::Loading(Contents::empty(path.clone())),
            path,
            home,
            generation,
            sort,
            show_hidden: false,
            revision: 0,
            selection: Selection::default(),
            history: History::default(),
            scroll: Scroll::default(),
            window_w: crate::gui::WINDOW_SIZE.width,
            hovered: None,
            notice: None,
            editing_path: None,
            focus_on_load: None,
        }
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

    /// The sort order asked for.
    pub fn sort(&self) -> SortSpec {
        self.sort
    }

    /// The generation of the current folder's events.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Shows a one-line notice above the list until dismissed or the folder changes.
    pub fn set_notice(&mut self, notice: String) {
        self.notice = Some(notice);
    }

    /// Handles one message; returns the widget operations to run and what the window must do.
    pub fn update(&mut self, message: Message, ctx: &Ctx<'_>) -> (Task<Message>, Option<Event>) {
        let dirs = ctx.dirs;
        let task = match message {
            Message::Navigate(path) => self.navigate(path, Nav::Push, dirs),
            Message::ShowHidden(show) => self.set_show_hidden(show),
            Message::SortBy(key) => {
                self.sort_by(key, dirs);
                Task::none()
            }
            Message::RowPressed(at) => {
                self.press(at, ctx);
                Task::none()
            }
            Message::RowDoubleClicked(at) => {
                if at.revision != self.revision {
                    return (Task::none(), None);
                }
                return self.open_row(at.row, dirs);
            }
            Message::RowLeft(at) => {
                if self.hovered == Some(at) {
                    self.hovered = None;
                }
                Task::none()
            }
            Message::RowEntered(at) => {
                self.hovered = Some(at);
                Task::none()
            }
            Message::BackgroundPressed => {
                self.editing_path = None;
                if !ctx.modifiers.command() && !ctx.modifiers.shift() {
                    self.selection.clear();
                }
                Task::none()
            }
            Message::Scrolled {
                offset_y,
                viewport_h,
            } => {
                self.scroll = Scroll {
                    offset_y,
                    viewport_h,
                };
                Task::none()
            }
            Message::ScrollTo(offset_y) => {
                self.scroll.offset_y = offset_y;
                operation::scroll_to(
                    self.list_id(),
                    AbsoluteOffset {
                        x: None,
                        y: Some(offset_y),
                    },
                )
            }
            Message::WindowResized(size) => {
                // An upper bound until the scrollable reports its exact height, so a list that
                // fits without scrolling still gets all its rows built.
                self.scroll.viewport_h = size.height;
                self.window_w = size.width;
                Task::none()
            }
            Message::Action(action) => return self.perform(action, dirs),
            Message::NoticeDismissed => {
                self.notice = None;
                Task::none()
            }
            Message::EditPath => self.edit_path(),
            Message::PathEdited(text) => {
                self.editing_path = Some(text);
                Task::none()
            }
            Message::PathSubmitted => match self.editing_path.take() {
                Some(text) => {
                    let target = location::resolve(&text, &self.path, self.home.as_deref());
                    self.navigate(target, Nav::Push, dirs)
                }
                None => Task::none(),
            },
            Message::Dir(event) => self.on_dir_event(event, dirs),
        };
        (task, None)
    }

    fn perform(&mut self, action: Action, dirs: &dyn Dirs) -> (Task<Message>, Option<Event>) {
        let task = match action {
            Action::Back => self.go_back(dirs),
            Action::Forward => self.go_forward(dirs),
            Action::Up => self.go_up(dirs),
            Action::Refresh => self.refresh(dirs),
            Action::ToggleHidden => self.set_show_hidden(!self.show_hidden),
            Action::Open => {
                let row = self.selection.focus().and_then(|entry| {
                    let selected = self.selection.contains(entry);
                    self.listing.contents()?.row_of(entry).filter(|_| selected)
                });
                return match row {
                    Some(row) => self.open_row(row, dirs),
                    None => (Task::none(), None),
                };
            }
            Action::Move { step, extend } => self.move_focus(step, extend),
            Action::SelectAll => {
                if let Some(contents) = self.listing.contents() {
                    self.selection.select_all(contents.rows());
                }
                Task::none()
            }
            Action::ClearSelection => {
                if self.editing_path.take().is_none() {
                    self.selection.clear();
                }
                Task::none()
            }
            Action::EditPath => self.edit_path(),
        };
        (task, None)
    }

    fn navigate(&mut self, path: PathBuf, nav: Nav, dirs: &dyn Dirs) -> Task<Message> {
        self.go_to(Place::new(path), nav, dirs)
    }

    /// Shows `place`, focusing its remembered entry once listed; or, coming up into an
    /// ancestor, the folder we came from.
    fn go_to(&mut self, place: Place, nav: Nav, dirs: &dyn Dirs) -> Task<Message> {
        if place.path == self.path && nav == Nav::Push {
            return Task::none();
        }
        let leaving = Place {
            focus: self.focused_name(),
            path: std::mem::replace(&mut self.path, place.path),
        };
        self.focus_on_load = place.focus.or_else(|| {
            let rest = leaving.path.strip_prefix(&self.path).ok()?;
            Some(rest.components().next()?.as_os_str().to_owned())
        });
        self.history.leave(leaving, nav);
        self.generation = dirs.open(self.view_id, self.path.clone(), self.sort);
        self.listing = Listing::Loading(Contents::empty(self.path.clone()));
        self.revision = self.revision.wrapping_add(1);
        self.selection = Selection::default();
        self.hovered = None;
        self.notice = None;
        self.editing_path = None;
        self.scroll.offset_y = 0.0;
        operation::scroll_to(
            self.list_id(),
            AbsoluteOffset {
                x: None,
                y: Some(0.0),
            },
        )
    }

    fn go_back(&mut self, dirs: &dyn Dirs) -> Task<Message> {
        match self.history.take_back() {
            Some(place) => self.go_to(place, Nav::Back, dirs),
            None => Task::none(),
        }
    }

    fn go_forward(&mut self, dirs: &dyn Dirs) -> Task<Message> {
        match self.history.take_forward() {
            Some(place) => self.go_to(place, Nav::Forward, dirs),
            None => Task::none(),
        }
    }

    fn edit_path(&mut self) -> Task<Message> {
        self.editing_path = Some(self.path.display().to_string());
        let id = self.path_input_id();
        operation::focus(id.clone()).chain(operation::select_all(id))
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

    fn go_up(&mut self, dirs: &dyn Dirs) -> Task<Message> {
        match self.path.parent() {
            Some(parent) => self.navigate(parent.to_path_buf(), Nav::Push, dirs),
            None => Task::none(),
        }
    }

    fn refresh(&mut self, dirs: &dyn Dirs) -> Task<Message> {
        if let Listing::Failed(_) = self.listing {
            // The service dropped the failed folder: open it afresh (maybe it is readable now).
            self.generation = dirs.open(self.view_id, self.path.clone(), self.sort);
            self.listing = Listing::Loading(Contents::empty(self.path.clone()));
            self.revision = self.revision.wrapping_add(1);
        } else {
            dirs.refresh(self.view_id);
        }
        Task::none()
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
        if !show {
            let entries = contents.entries();
            self.selection
                .retain(|e| !entries.entry(e as usize).is_hidden());
        }
        self.revision = self.revision.wrapping_add(1);
        self.hovered = None;
        self.reveal_focus()
    }

    fn sort_by(&mut self, key: SortKey, dirs: &dyn Dirs) {
        let direction = match (key == self.sort.key, self.sort.direction) {
            (true, Direction::Ascending) => Direction::Descending,
            _ => Direction::Ascending,
        };
        self.sort = SortSpec {
            key,
            direction,
            ..self.sort
        };
        dirs.resort(self.view_id, self.sort);
    }

    fn press(&mut self, at: RowRef, ctx: &Ctx<'_>) {
        self.editing_path = None;
        if at.revision != self.revision {
            return;
        }
        let Some(contents) = self.listing.contents() else {
            return;
        };
        let Some((entry, _)) = contents.row(at.row) else {
            return;
        };
        if ctx.modifiers.shift() {
            let anchor = self.selection.anchor().and_then(|e| contents.row_of(e));
            let add = ctx.modifiers.command();
            self.selection
                .select_range(contents.rows(), anchor, at.row, add);
        } else if ctx.modifiers.command() {
            self.selection.toggle(entry);
        } else {
            self.selection.select_only(entry);
        }
    }

    fn open_row(&mut self, row: usize, dirs: &dyn Dirs) -> (Task<Message>, Option<Event>) {
        let Some((_, entry)) = self.listing.contents().and_then(|c| c.row(row)) else {
            return (Task::none(), None);
        };
        let target = self.path.join(entry.name());
        if entry.is_dir_like() {
            (self.navigate(target, Nav::Push, dirs), None)
        } else {
            (Task::none(), Some(Event::OpenFile(target)))
        }
    }

    fn move_focus(&mut self, step: Step, extend: bool) -> Task<Message> {
        let Some(contents) = self.listing.contents() else {
            return Task::none();
        };
        let rows = contents.rows();
        let Some(last) = rows.len().checked_sub(1) else {
            return Task::none();
        };
        let current = self.selection.focus().and_then(|e| contents.row_of(e));
        let page = self.scroll.page();
        let target = match (current, step) {
            (_, Step::First) | (None, Step::Up | Step::Down | Step::PageUp | Step::PageDown) => 0,
            (_, Step::Last) => last,
            (Some(row), Step::Up) => row.saturating_sub(1),
            (Some(row), Step::Down) => (row + 1).min(last),
            (Some(row), Step::PageUp) => row.saturating_sub(page),
            (Some(row), Step::PageDown) => (row + page).min(last),
        };
        if extend {
            let anchor = self.selection.anchor().and_then(|e| contents.row_of(e));
            self.selection.select_range(rows, anchor, target, false);
        } else {
            self.selection.select_only(rows[target]);
        }
        self.reveal(target, false)
    }

    /// Scrolls so `row` is visible (centred when `center`), keeping our offset in step so this
    /// frame already builds the right rows.
    fn reveal(&mut self, row: usize, center: bool) -> Task<Message> {
        let offset = if center {
            self.scroll.center_on(row)
        } else {
            self.scroll.reveal(row)
        };
        match offset {
            Some(y) => {
                self.scroll.offset_y = y;
                operation::scroll_to(
                    self.list_id(),
                    AbsoluteOffset {
                        x: None,
                        y: Some(y),
                    },
                )
            }
            None => Task::none(),
        }
    }

    fn reveal_focus(&mut self) -> Task<Message> {
        let row = self
            .selection
            .focus()
            .and_then(|e| self.listing.contents()?.row_of(e));
        row.map_or_else(Task::none, |row| self.reveal(row, true))
    }

    fn on_dir_event(&mut self, event: DirEvent, dirs: &dyn Dirs) -> Task<Message> {
        let (DirEvent::Batch {
            view, generation, ..
        }
        | DirEvent::Loaded {
            view, generation, ..
        }
        | DirEvent::Changed {
            view, generation, ..
        }
        | DirEvent::Gone {
            view, generation, ..
        }
        | DirEvent::Failed {
            view, generation, ..
        }) = &event;
        if *view != self.view_id || *generation != self.generation {
            return Task::none();
        }
        match event {
            DirEvent::Batch { entries, .. } => {
                // After the first complete listing, a refresh's batches are not shown: the old
                // complete listing stays until the new one is done.
                if let Listing::Loading(contents) = &mut self.listing {
                    contents.append(&entries, self.show_hidden);
                }
                Task::none()
            }
            DirEvent::Loaded { listing, order, .. } | DirEvent::Changed { listing, order, .. } => {
                self.show(listing, order)
            }
            DirEvent::Gone { path, nearest, .. } => {
                let Some(parent) = nearest else {
                    return Task::none();
                };
                let task = self.navigate(parent.clone(), Nav::Replace, dirs);
                self.notice = Some(format!(
                    "“{}” was moved or deleted; showing {} instead.",
                    format::display_name(&path),
                    parent.display()
                ));
                task
            }
            DirEvent::Failed { error, .. } => {
                self.listing = Listing::Failed(error);
                self.selection = Selection::default();
                self.revision = self.revision.wrapping_add(1);
                self.hovered = None;
                Task::none()
            }
        }
    }

    /// Shows a complete listing, keeping the selection by name.
    fn show(&mut self, entries: Arc<entry::Listing>, order: Arc<[u32]>) -> Task<Message> {
        let contents = Contents::sorted(entries, order, self.show_hidden);
        self.selection = match self.listing.contents() {
            Some(old) => self.selection.carry_over(old.entries(), contents.entries()),
            None => Selection::default(),
        };
        if !self.show_hidden {
            let entries = contents.entries();
            self.selection
                .retain(|e| !entries.entry(e as usize).is_hidden());
        }
        let focus = self.focus_on_load.take().and_then(|name| {
            let row = contents.row_named(name.as_encoded_bytes())?;
            Some((row, contents.rows()[row]))
        });
        self.listing = Listing::Loaded(contents);
        self.revision = self.revision.wrapping_add(1);
        self.hovered = None;
        match focus {
            Some((row, entry)) => {
                self.selection.select_only(entry);
                self.reveal(row, true)
            }
            None => Task::none(),
        }
    }
}
