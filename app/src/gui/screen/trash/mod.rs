//! The Trash view, what the sidebar's Trash place opens: the trashed items of every trash
//! folder (the home trash and each volume's `.Trash-$uid`), with name, original location,
//! deletion date and size, sortable by each column, in a windowed list (only the visible rows
//! are built, so thousands of items scroll smoothly), with the browser's selection (click,
//! Ctrl/Shift-click, the keyboard).
//!
//! Actions (toolbar, context menu, keys):
//! - **Restore** puts the selected items back where they were, recreating missing folders:
//!   a [`Job::Restore`] with [`ConflictPolicy::Ask`](ferry_core::jobs::ConflictPolicy::Ask), so a place taken since goes through the
//!   conflict dialog. Unsafe entries (an info file naming a place off its volume, or climbing
//!   out with `..`, see [`UnsafeEntry`](ferry_core::jobs::UnsafeEntry)) are listed, marked,
//!   and left out: they can only be restored with Restore to….
//! - **Restore to…** asks for a folder (the system's dialog, or Ferry's own field where there
//!   is none: see [`picker`]) and restores there ([`TrashedItem::restore_to`]).
//! - **Delete Permanently** asks first (an [`Event::Confirm`] the window shows with the
//!   [`confirm`](crate::gui::modal::confirm) dialog and answers with
//!   [`Message::Confirmed`]), then deletes the items in the trash with the engine's remover
//!   ([`Job::Delete`]); their info files go at the next [`reload`](Trash::reload), once the
//!   items are really gone.
//! - **Empty Trash** reads the trash again, then asks with how many items and how much data
//!   it holds now, then submits [`Job::EmptyTrash`].
//!
//! The view never touches the engine, and never reads the disk in `update` or `view`: the
//! listing runs on a worker thread through the bridge, and jobs go to the window as
//! [`Event::Submit`]. The confirmation is held by the window (one dialog at a time over
//! everything), the items it is about travel in its token ([`Pending`]).
//!
//! What the window does with it:
//! - [`Trash::new`] with `TrashRoots::from_env()` when the Trash place is opened, and
//!   [`Trash::reload`] when a job it submitted (or any trash, restore or undo job) ends;
//! - keys go to [`Trash::key`] while the view is shown, its message back to `update`;
//! - [`Event::ContextMenu`]: show [`Trash::menu`] at `at`, its entries' messages mapped back;
//! - [`Event::Confirm`]: `confirm.map(Token::Trash)` into the window's own dialog, and on
//!   `Confirmed(Token::Trash(pending))` send [`Message::Confirmed`]`(pending)`;
//! - [`Event::OpenFolder`]: open the folder in a browser pane;
//! - a drag out of the view carries [`Trash::selected_items`]; dropped on a folder, it is
//!   `Job::Restore` of `item.restore_to(folder)` for each.

mod actions;
mod drag;
mod input;
mod loaded;
#[cfg(test)]
mod tests;
mod view;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ferry_core::Error;
use ferry_core::jobs::{Job, TrashRoots, TrashStamp, TrashedItem, trash_stamp};
use iced::widget::Id;
use iced::{Point, Rectangle, Task};

pub use crate::gui::picker::Picked;
pub use input::KEYS;
pub use loaded::{Column, Loaded, Sort, load};

use super::Ctx;
use super::browser::Selection;
use crate::gui::bridge;
use crate::gui::modal::confirm::Confirm;
use crate::gui::modal::folder_prompt::{self, FolderPrompt};
use crate::gui::shortcut::Step;
use crate::gui::type_ahead::TypeAhead;
use crate::gui::widget::list::Scroll;
use crate::gui::words;

/// The height of a row.
pub const ROW_HEIGHT: f32 = 28.0;

/// The view's input.
#[derive(Debug, Clone)]
pub enum Message {
    /// The trash was read (listing `generation`), or could not be.
    Loaded(u64, Result<Arc<Loaded>, Arc<Error>>),
    /// Read the trash again (F5).
    Reload,
    /// Time to look whether the trash folders changed (another program trashed, restored
    /// or deleted something).
    Tick,
    /// How the trash folders stand now, looked at for read `generation`.
    Stamped(u64, TrashStamp),
    /// A column header was clicked.
    SortBy(Column),
    /// Sort this way (the menu's "Sort by").
    SortSet(Sort),
    /// A row was clicked (with the modifiers held then).
    RowPressed(ItemRef),
    /// A row was right-clicked (the menu follows as [`Message::RightPressed`]).
    RowRightPressed(ItemRef),
    /// The left button was released (after [`Event::Pressed`]).
    Released,
    /// The drag of the items ([`Trash::start_drag`]) ended without a drop.
    DragCancelled,
    /// The dragged items were dropped on this folder: restore them into it.
    DroppedInto(PathBuf),
    /// The pointer entered a row.
    RowEntered(ItemRef),
    /// The pointer left a row.
    RowLeft(ItemRef),
    /// The empty part of the list was pressed.
    BackgroundPressed(Point),
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
    /// The scrollbar asks to scroll to this offset.
    ScrollTo(f32),
    /// Move the keyboard focus; `true`: extend the selection (Shift).
    Step(Step, bool),
    /// Move the keyboard focus alone, the selection kept (Ctrl+arrows).
    StepFocus(Step),
    /// A letter typed: type-ahead to the next name that starts with what was typed.
    TypeAhead(char),
    /// Select the focused item, or deselect it (Ctrl+Space).
    ToggleFocused,
    /// Select every item.
    SelectAll,
    /// Select nothing.
    ClearSelection,
    /// The menu key (or Shift+F10): the context menu at the focused item.
    MenuKey,
    /// Put the selection on the clipboard (Ctrl+C): pasted into a folder, it is copied out.
    Copy,
    /// Put the selection on the clipboard as cut (Ctrl+X): pasted into a folder, it is
    /// restored there.
    Cut,
    /// Restore the selection where it was.
    Restore,
    /// Restore the selection into a folder to be picked.
    RestoreTo,
    /// Delete the selection permanently (after a confirmation).
    DeletePermanently,
    /// Empty the trash (after a confirmation).
    EmptyTrash,
    /// Show the focused item's original folder.
    OpenOriginalFolder,
    /// The window's confirmation of [`Event::Confirm`] was answered yes.
    Confirmed(Pending),
    /// The folder dialog of Restore to… ended.
    Picked(Picked),
    /// Restore to…'s own folder prompt (no dialog available).
    Folder(folder_prompt::Message),
    /// The notice was closed.
    NoticeDismissed,
}

/// An item of one listing (a click on a row of an older listing is dropped).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemRef {
    generation: u64,
    item: u32,
}

/// What the window must act on.
#[derive(Debug, Clone)]
pub enum Event {
    /// Submit this job (a restore with [`ConflictPolicy::Ask`](ferry_core::jobs::ConflictPolicy::Ask), a delete, emptying) and
    /// [`reload`](Trash::reload) the view when it ends.
    Submit(Job),
    /// Delete these items in the trash permanently, each if it is still the item listed (a
    /// restore and a trash by another program put a folder under the name of the file the
    /// question was about, and it was deleted).
    DeleteListed {
        /// Each item's path in the trash, with what was listed there.
        listed: Vec<(PathBuf, (ferry_core::fs::FileId, ferry_core::entry::Kind))>,
        /// Each item's path in the trash, with its name before the trash, for the delete's
        /// words.
        names: Vec<(PathBuf, std::ffi::OsString)>,
    },
    /// Ask this; answer yes with [`Message::Confirmed`] and the dialog's token.
    Confirm(Confirm<Pending>),
    /// Show this folder (an item's original folder) in a browser pane.
    OpenFolder(PathBuf),
    /// Put these items on the clipboard, cut or copied.
    Clip {
        /// The items.
        items: Vec<TrashedItem>,
        /// Cut (Ctrl+X): pasted, they are restored there.
        cut: bool,
    },
    /// An item was pressed without modifiers: moving the pointer far enough with the button
    /// held drags the selection ([`Trash::start_drag`]).
    Pressed,
    /// The user sorted the view so: it opens so next time, as Dolphin keeps a folder's sort.
    SortChosen(Sort),
    /// Open the view's context menu ([`Trash::menu`]) at `at` (window coordinates).
    ContextMenu {
        /// Where, in the window.
        at: Point,
        /// On the selected items (else on the list's background).
        on_items: bool,
    },
}

/// What the banner above the list says.
#[derive(Debug)]
enum Notice {
    /// This.
    Said(String),
    /// The unsafe entries a Restore left out (their info files and names): said, counted,
    /// while any of them is still in the trash.
    Unsafe(Vec<(PathBuf, std::ffi::OsString)>),
}

impl Notice {
    fn text(&self) -> String {
        match self {
            Notice::Said(text) => text.clone(),
            Notice::Unsafe(about) => actions::unsafe_notice(about),
        }
    }
}

/// The listing a question was asked about: shared, not copied (a trash of 100,000 items
/// was copied whole on the UI thread to ask about emptying it), and told apart by identity.
#[derive(Clone)]
pub struct Asked(Arc<Loaded>);

impl PartialEq for Asked {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Asked {}

impl std::fmt::Debug for Asked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Asked({} items)", self.0.len())
    }
}

/// What a confirmation of the view is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pending {
    /// Delete these trashed items permanently.
    Delete(Vec<TrashedItem>),
    /// Empty the trash: everything it held when asked (this listing); what is trashed since
    /// stays.
    Empty(Asked),
}

/// The listing's state.
#[derive(Debug)]
enum Listing {
    /// Being read for the first time.
    Loading,
    /// Read (while it is read again, it stays shown).
    Loaded(Arc<Loaded>),
    /// Could not be read.
    Failed(Arc<Error>),
}

/// Restore to… under way: the items, taken when it was asked, what it asks ("Restore
/// “a.txt” to"), and Ferry's own folder prompt where no dialog could be shown (the one Copy
/// to… shows, with its Tab completion).
#[derive(Debug)]
struct RestoreTo {
    items: Vec<TrashedItem>,
    title: String,
    prompt: Option<FolderPrompt<()>>,
}

/// The Trash view.
#[derive(Debug)]
pub struct Trash {
    roots: TrashRoots,
    home: Option<PathBuf>,
    listing: Listing,
    /// Of the latest read asked for; results of older ones are dropped.
    generation: u64,
    /// Of the read shown.
    shown: u64,
    sort: Sort,
    /// Row → item.
    order: Vec<u32>,
    /// Item → row.
    rows_of: Vec<u32>,
    selection: Selection,
    scroll: Scroll,
    bounds: Rectangle,
    hovered: Option<u32>,
    notice: Option<Notice>,
    /// Info files of items a job was submitted for since the last read: drawn dimmed, not
    /// offered again.
    submitted: HashSet<PathBuf>,
    /// Files of items cut (Ctrl+X) and not pasted yet: drawn dimmed, as cut items are in a
    /// folder.
    cut: HashSet<PathBuf>,
    /// Empty Trash was pressed: ask once the trash is read again.
    empty_asked: bool,
    restore_to: Option<RestoreTo>,
    dragging: drag::Dragging,
    /// A look at the trash folders is under way (one at a time: a disk that stopped
    /// answering holds it, and the ticks must not pile up threads behind it).
    stamping: bool,
    typed: TypeAhead,
}

impl Trash {
    /// The view of the trash folders of `roots` (`TrashRoots::from_env()` for the user's),
    /// and the task that reads them.
    pub fn new(roots: TrashRoots, ctx: &Ctx<'_>) -> (Trash, Task<Message>) {
        let mut trash = Trash {
            roots,
            home: ctx.home.map(Path::to_path_buf),
            listing: Listing::Loading,
            generation: 0,
            shown: 0,
            sort: Sort::default(),
            order: Vec::new(),
            rows_of: Vec::new(),
            selection: Selection::default(),
            scroll: Scroll::default(),
            bounds: Rectangle::new(Point::ORIGIN, iced::Size::new(900.0, 600.0)),
            hovered: None,
            notice: None,
            submitted: HashSet::new(),
            cut: HashSet::new(),
            empty_asked: false,
            restore_to: None,
            dragging: drag::Dragging::default(),
            stamping: false,
            typed: TypeAhead::default(),
        };
        let task = trash.reload();
        (trash, task)
    }

    /// The files (in the trash) of the items cut now, drawn dimmed.
    pub fn set_cut(&mut self, files: HashSet<PathBuf>) {
        self.cut = files;
    }

    /// Whether the item whose file in the trash is `file` is cut (drawn dimmed).
    pub fn is_cut(&self, file: &Path) -> bool {
        self.cut.contains(file)
    }

    /// Reads the trash again on a worker thread (after a job that changed it); what is shown
    /// stays until the new listing arrives.
    pub fn reload(&mut self) -> Task<Message> {
        self.generation += 1;
        let generation = self.generation;
        let roots = self.roots.clone();
        bridge::blocking(move || {
            let loaded = load(&roots).map(Arc::new).map_err(Arc::new);
            Message::Loaded(generation, loaded)
        })
    }

    /// Looks, off the UI thread, whether the trash folders changed since they were read, as
    /// Dolphin's and Nautilus's trash views follow what other programs do.
    fn look_again(&mut self) -> Task<Message> {
        if self.stamping || self.loaded().is_none() {
            return Task::none();
        }
        self.stamping = true;
        let (generation, roots) = (self.generation, self.roots.clone());
        bridge::blocking(move || Message::Stamped(generation, trash_stamp(&roots)))
    }

    /// The trash folders shown.
    pub fn roots(&self) -> &TrashRoots {
        &self.roots
    }

    /// The listing, once read.
    pub fn loaded(&self) -> Option<&Loaded> {
        match &self.listing {
            Listing::Loaded(loaded) => Some(loaded),
            _ => None,
        }
    }

    /// True when the trash was read and holds nothing.
    pub fn is_empty(&self) -> bool {
        self.loaded().is_some_and(Loaded::is_empty)
    }

    /// The selected items in display order: what a drag out of the trash carries (dropped on
    /// a folder, it is a Restore to that folder).
    pub fn selected_items(&self) -> Vec<TrashedItem> {
        let Some(loaded) = self.loaded() else {
            return Vec::new();
        };
        self.order
            .iter()
            .filter(|&&i| self.selection.contains(i))
            .filter_map(|&i| loaded.item(i))
            .cloned()
            .collect()
    }

    /// How the view is sorted.
    pub fn sort(&self) -> Sort {
        self.sort
    }

    /// The names in display order (for tests and the window's own checks).
    pub fn names(&self) -> Vec<String> {
        let Some(loaded) = self.loaded() else {
            return Vec::new();
        };
        self.order
            .iter()
            .filter_map(|&i| loaded.item(i))
            .map(|item| item.name.to_string_lossy().into_owned())
            .collect()
    }

    /// Handles a message; returns what the window must do, if anything.
    pub fn update(&mut self, message: Message, ctx: &Ctx<'_>) -> (Task<Message>, Option<Event>) {
        match message {
            Message::Loaded(generation, loaded) => {
                let focused = |t: &Self| {
                    let e = t.selection.focus()?;
                    Some(t.loaded()?.item(e)?.info.clone())
                };
                let before = focused(self);
                let event = self.loaded_in(generation, loaded);
                let moved = focused(self) != before;
                (self.keep_in_view(moved), event)
            }
            Message::Reload => (self.reload(), None),
            Message::Tick => (self.look_again(), None),
            Message::Stamped(generation, stamp) => {
                self.stamping = false;
                let changed = generation == self.generation
                    && self.loaded().is_some_and(|l| l.stamp != stamp);
                (if changed { self.reload() } else { Task::none() }, None)
            }
            Message::SortBy(column) => {
                self.set_sort(self.sort.clicked(column));
                (Task::none(), Some(Event::SortChosen(self.sort)))
            }
            Message::SortSet(sort) => {
                self.set_sort(sort);
                (Task::none(), Some(Event::SortChosen(self.sort)))
            }
            Message::RowPressed(at) => (Task::none(), self.row_pressed(at, ctx.modifiers)),
            Message::Released => {
                self.released();
                (Task::none(), None)
            }
            Message::DragCancelled => {
                self.drag_cancelled();
                (Task::none(), None)
            }
            Message::DroppedInto(folder) => (Task::none(), self.dropped_into(&folder)),
            Message::RowRightPressed(at) => {
                if self.is_current(at) && !self.selection.contains(at.item) {
                    self.selection.select_only(at.item);
                }
                (Task::none(), None)
            }
            Message::RowEntered(at) => {
                self.hovered = self.is_current(at).then_some(at.item);
                (Task::none(), None)
            }
            Message::RowLeft(at) => {
                if self.hovered == Some(at.item) {
                    self.hovered = None;
                }
                (Task::none(), None)
            }
            Message::BackgroundPressed(_) => {
                if !ctx.modifiers.command() && !ctx.modifiers.shift() {
                    self.selection.clear();
                }
                (Task::none(), None)
            }
            Message::RightPressed { at, on_item } => {
                if !on_item {
                    self.selection.clear();
                }
                let on_items = on_item && self.selection.count() > 0;
                (Task::none(), Some(Event::ContextMenu { at, on_items }))
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
            Message::Step(step, extend) => (self.step(step, extend), None),
            Message::StepFocus(step) => (self.step_focus(step), None),
            Message::TypeAhead(c) => (self.type_ahead(c), None),
            Message::ToggleFocused => {
                if let Some(focus) = self.selection.focus() {
                    self.selection.toggle(focus);
                }
                (Task::none(), None)
            }
            Message::SelectAll => {
                self.selection.select_all(&self.order);
                (Task::none(), None)
            }
            Message::ClearSelection => {
                self.selection.clear();
                (Task::none(), None)
            }
            Message::MenuKey => (Task::none(), self.menu_at_focus()),
            Message::Copy => (Task::none(), self.clip(false)),
            Message::Cut => (Task::none(), self.clip(true)),
            Message::Restore => (Task::none(), self.restore()),
            Message::RestoreTo => (self.restore_to(), None),
            Message::Picked(picked) => self.picked(picked),
            Message::Folder(message) => self.folder_prompt(message),
            Message::DeletePermanently => (Task::none(), self.ask_delete()),
            Message::EmptyTrash => {
                if self.loaded().is_none_or(Loaded::is_empty) {
                    return (Task::none(), None);
                }
                // Asked with what the trash holds now, not with what was read earlier.
                self.empty_asked = true;
                (self.reload(), None)
            }
            Message::Confirmed(pending) => (Task::none(), Some(self.confirmed(pending))),
            Message::OpenOriginalFolder => {
                let folder = self
                    .focused_item()
                    .filter(|item| item.unsafe_entry.is_none())
                    .and_then(|item| item.original.parent().map(Path::to_path_buf));
                (Task::none(), folder.map(Event::OpenFolder))
            }
            Message::NoticeDismissed => {
                self.notice = None;
                (Task::none(), None)
            }
        }
    }
    // ---- listing ----------------------------------------------------------------------

    fn loaded_in(
        &mut self,
        generation: u64,
        loaded: Result<Arc<Loaded>, Arc<Error>>,
    ) -> Option<Event> {
        if generation != self.generation {
            return None;
        }
        let loaded = match loaded {
            Ok(loaded) => loaded,
            Err(error) => {
                self.empty_asked = false;
                match self.listing {
                    Listing::Loaded(_) => {
                        self.notice = Some(Notice::Said(format!(
                            "Could not read the trash again: {}",
                            words::error_in_words(&error)
                        )));
                    }
                    _ => self.listing = Listing::Failed(error),
                }
                return None;
            }
        };
        // The selection and the focus follow their items, known by their info files.
        let by_info: HashMap<&Path, u32> = loaded
            .items()
            .iter()
            .enumerate()
            .map(|(i, item)| (item.info.as_path(), index_u32(i)))
            .collect();
        // Where the focus was: its item gone (restored, deleted), the keyboard goes on from
        // there, as in a folder; it was left on nothing.
        let focused_row = (self.selection.focus())
            .and_then(|e| self.rows_of.get(e as usize))
            .map(|&row| row as usize);
        // The first item after it still there, else the last before it: after restoring
        // c2 and c1 (Shift+Down), the row c1 had went on to the item two rows below.
        let next = focused_row.and_then(|row| {
            let old = self.loaded()?;
            let stays =
                |e: &&u32| (old.item(**e)).is_some_and(|i| by_info.contains_key(i.info.as_path()));
            let after = self
                .order
                .get(row + 1..)
                .unwrap_or_default()
                .iter()
                .find(stays);
            let found = after.or_else(|| self.order[..row].iter().rev().find(stays))?;
            by_info.get(old.item(*found)?.info.as_path()).copied()
        });
        // The user restored or deleted it (a job was submitted for it), selected: the next is
        // selected, as in a folder after Delete, so that Alt+R again goes on.
        let acted_on = (self.selection.focus())
            .filter(|&e| self.selection.contains(e))
            .and_then(|e| self.loaded()?.item(e))
            .is_some_and(|item| self.submitted.contains(&item.info));
        if let Listing::Loaded(old) = &self.listing {
            let map = |e: u32| {
                old.item(e)
                    .and_then(|i| by_info.get(i.info.as_path()).copied())
            };
            let selected: Vec<u32> = self.selection.iter().filter_map(map).collect();
            let focus = self.selection.focus().and_then(map);
            self.selection = Selection::with_band(&Selection::default(), selected, focus);
        }
        // Counted again: "2 entries" stayed when one of them had gone, and the notice
        // stayed when all had.
        if let Some(Notice::Unsafe(about)) = &mut self.notice {
            about.retain(|(info, _)| by_info.contains_key(info.as_path()));
            if about.is_empty() {
                self.notice = None;
            }
        }
        self.submitted.clear();
        self.hovered = None;
        self.shown = generation;
        self.listing = Listing::Loaded(Arc::clone(&loaded));
        self.resort();
        if self.selection.focus().is_none()
            && let Some(item) = next
        {
            match acted_on && self.selection.count() == 0 {
                true => self.selection.select_only(item),
                false => self.selection.focus_on(item),
            }
        }
        if !std::mem::take(&mut self.empty_asked) {
            return None;
        }
        if loaded.is_empty() {
            self.notice = Some(Notice::Said("The trash is empty already.".to_owned()));
            return None;
        }
        Some(Event::Confirm(actions::empty_question(&loaded)))
    }

    /// Sorts the view by `sort` (the one chosen when it was last shown, at the start).
    pub fn set_sort(&mut self, sort: Sort) {
        self.sort = sort;
        self.resort();
    }

    fn resort(&mut self) {
        let Some(loaded) = self.loaded() else {
            return;
        };
        let order = loaded.order(self.sort);
        let mut rows_of = vec![0; order.len()];
        for (row, &item) in order.iter().enumerate() {
            rows_of[item as usize] = index_u32(row);
        }
        self.order = order;
        self.rows_of = rows_of;
    }

    /// Whether `at` is an item of the listing shown (the rows carry its generation, which
    /// stays while a reload is in flight).
    fn is_current(&self, at: ItemRef) -> bool {
        at.generation == self.shown && (at.item as usize) < self.rows_of.len()
    }
}

/// The id of the list's scrollable, for `scroll_to`.
pub fn list_id() -> Id {
    Id::new("ferry-trash-list")
}

impl Trash {
    /// Restore to… asks for a folder in Ferry's own prompt.
    pub fn asks_folder(&self) -> bool {
        self.restore_to.as_ref().is_some_and(|r| r.prompt.is_some())
    }
}

fn index_u32(index: usize) -> u32 {
    u32::try_from(index).expect("fewer than 2^32 trashed items")
}
