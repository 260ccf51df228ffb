//! What a pane asks the window to do with its items (copy, cut, paste, trash, delete,
//! duplicate, rename, new folder, "to…" a picked folder), the rename editor over a name, and
//! the start of a drag of the selection. The pane only names paths and checks a new name
//! against what it lists; the window turns the request into a job.

use std::collections::HashSet;
use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;

use iced::{Point, Task};

use super::{Browser, Event, Listing, Message, RowRef};
use crate::gui::format::{self, Category};
use crate::gui::name_text::NameText;
use crate::gui::shortcut::{PaneAction, Step};
use crate::gui::widget::field::{self, Opened};

/// The pointer must move this far (in either direction) with the button held on an item
/// before a drag starts, so that a click stays a click.
pub const DRAG_THRESHOLD: f32 = 5.0;

/// Items cut to the clipboard: their folder and their names, one set shared by every pane.
pub type CutItems = std::sync::Arc<(PathBuf, HashSet<OsString>)>;

/// A request for the window, about items of a pane.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    /// Put these on the clipboard, to copy.
    Copy(Vec<PathBuf>),
    /// Put these on the clipboard, to move.
    Cut(Vec<PathBuf>),
    /// Copy or move what the clipboard holds into this folder.
    Paste(PathBuf),
    /// Move these to the trash.
    Trash(Vec<PathBuf>),
    /// Delete these permanently, after asking.
    Delete(Vec<PathBuf>),
    /// Copy these beside themselves.
    Duplicate(Vec<PathBuf>),
    /// Copy these into a folder picked in a dialog.
    CopyTo(Vec<PathBuf>),
    /// Move these into a folder picked in a dialog.
    MoveTo(Vec<PathBuf>),
    /// Make links to these in a folder picked in a dialog.
    LinkTo(Vec<PathBuf>),
    /// Copy these into the other pane's folder.
    CopyToOtherPane(Vec<PathBuf>),
    /// Move these into the other pane's folder.
    MoveToOtherPane(Vec<PathBuf>),
    /// Give `path` the name `new_name`.
    Rename {
        /// The item.
        path: PathBuf,
        /// Its new name.
        new_name: OsString,
    },
    /// Ask the name of a folder to make in `parent` (`modal::name_prompt`), suggesting
    /// `name`.
    NewFolder {
        /// Where.
        parent: PathBuf,
        /// The first free "New Folder", "New Folder 2"...
        name: String,
    },
}

/// What a name starting with a dot does.
pub const HIDDEN_NAME: &str = "A name starting with “.” is hidden (Ctrl+H shows hidden items).";

/// The rename editor, open over one entry's name.
#[derive(Debug, Clone)]
pub(super) struct Renaming {
    /// The entry (an index into the listing).
    pub entry: u32,
    /// Its name now.
    pub original: OsString,
    /// Its name as the editor shows it, to read the typed text back into a name.
    pub name_text: NameText,
    /// What is typed.
    pub text: String,
    /// Why the name typed cannot be used.
    pub problem: Option<String>,
    /// The text it opened with and its selection (for letters typed before it has the
    /// keyboard).
    pub opened: Opened,
    /// Where its row is among the rows built (and how many a line holds) when its field
    /// last got the keyboard (see [`Browser::keep_rename_focus`]); `None` while not built.
    pub slot: Option<(usize, usize)>,
    /// The item's inode: another item given its name since (moved away, a new one made
    /// under the name) is not the one to rename.
    pub ino: u64,
    /// What was selected as it opened (the name without its extension), while nothing has
    /// been typed: given the keyboard back, the field selects it again.
    pub selected: Option<std::ops::Range<usize>>,
    /// Where the cursor is, as the edits tell (after what was typed last), in characters.
    pub cursor: usize,
}

impl Renaming {
    /// A word on the name typed, when it makes a shown item hidden (as Nautilus warns):
    /// F2 then Backspace made `a.txt` `.txt`, and it left the list without a word.
    pub(super) fn note(&self) -> Option<&'static str> {
        (self.text.starts_with('.') && !self.original.as_bytes().starts_with(b"."))
            .then_some(HIDDEN_NAME)
    }

    /// The editor opened on `item` (entry `entry`): its name shown whole, the part before
    /// the extension selected.
    pub(super) fn of(entry: u32, item: ferry_core::entry::EntryRef<'_>) -> Renaming {
        let original = item.name().to_owned();
        let name_text = NameText::of(original.as_bytes());
        let text = name_text.shown.clone();
        // `archive.tar.gz` selects `archive`, as in Dolphin.
        let stem = match item.is_dir_like() {
            true => text.chars().count(),
            false => crate::gui::name_text::stem_chars(&text),
        };
        Renaming {
            entry,
            original,
            name_text,
            text,
            problem: None,
            opened: Opened::range(0..stem),
            slot: None,
            ino: item.ino(),
            selected: Some(0..stem),
            cursor: stem,
        }
    }

    /// The field as the user left it, for a new widget that takes its place: the name's stem
    /// selected if nothing was typed yet, else the cursor where the last edit left it.
    fn as_left(&self) -> Opened {
        match &self.selected {
            Some(selected) => Opened::range(selected.clone()),
            None => Opened::range(self.cursor..self.cursor),
        }
    }
}

/// Where an edit that turned `before` into `after` left the cursor (in characters): after
/// what it inserted, or where it deleted; the text the two share at both ends is what the
/// edit did not touch.
pub(super) fn cursor_after_edit(before: &str, after: &str) -> usize {
    edited_span(before, after).end
}

/// What an edit that turned `before` into `after` put in, as a range of `after`'s characters:
/// the text the two share at both ends is what the edit did not touch.
pub(super) fn edited_span(before: &str, after: &str) -> std::ops::Range<usize> {
    let prefix = (before.chars())
        .zip(after.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let (before_n, after_n) = (before.chars().count(), after.chars().count());
    let suffix = (before.chars().rev())
        .zip(after.chars().rev())
        .take_while(|(a, b)| a == b)
        .count()
        .min(before_n - prefix)
        .min(after_n - prefix);
    prefix..after_n - suffix
}

/// A press on an item, until it is released or becomes a drag.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Press {
    /// Where, in list coordinates: known once the pointer area reports the press (the row
    /// reports it first, and a press the row did not see, as on the scrollbar, is no item's).
    at: Option<Point>,
    dragging: bool,
    /// What a click (a press released without a drag) does to the selection, done at the
    /// release so that a press that becomes a drag drags the whole selection.
    on_release: Option<OnRelease>,
}

/// What a click on an item does once released ([`Press`]).
#[derive(Debug, Clone, Copy)]
pub(super) enum OnRelease {
    /// A plain press on one item of a larger selection: that item alone is selected, as in
    /// Dolphin.
    SelectOnly(u32),
    /// A Ctrl press on a selected item: it is deselected. At the press, it was left out of
    /// the drag that Ctrl makes a copy.
    Deselect(u32),
}

impl Press {
    pub(super) fn on_item(on_release: Option<OnRelease>) -> Self {
        Press {
            on_release,
            ..Press::default()
        }
    }
}

impl Browser {
    /// The id of the rename editor's field.
    pub fn rename_input_id(&self) -> iced::widget::Id {
        iced::widget::Id::from(format!("ferry-rename-{}", self.view_id))
    }

    /// The items cut to the clipboard (none: nothing is cut). They are drawn dimmed whenever
    /// the pane shows their folder, also once it navigates there.
    pub fn set_cut(&mut self, cut: Option<CutItems>) {
        self.cut = cut;
    }

    /// True when the entry called `name` of the folder shown is cut (drawn dimmed).
    pub fn is_cut(&self, name: &std::ffi::OsStr) -> bool {
        self.cut
            .as_ref()
            .is_some_and(|cut| cut.0 == self.path && cut.1.contains(name))
    }

    /// The request for an operation action, if it is one; `None` leaves it to the caller.
    pub(super) fn operation(
        &mut self,
        action: PaneAction,
    ) -> Option<(Task<Message>, Option<Event>)> {
        let selected = self.selected_paths();
        let on_selection = |op: fn(Vec<PathBuf>) -> Operation| {
            (!selected.is_empty()).then(|| Event::Operation(op(selected.clone())))
        };
        let event = match action {
            PaneAction::Copy => on_selection(Operation::Copy),
            PaneAction::Cut => on_selection(Operation::Cut),
            PaneAction::Trash | PaneAction::Delete => {
                self.select_next_when_gone = !selected.is_empty();
                match action {
                    PaneAction::Trash => on_selection(Operation::Trash),
                    _ => on_selection(Operation::Delete),
                }
            }
            PaneAction::Duplicate => on_selection(Operation::Duplicate),
            PaneAction::CopyTo => on_selection(Operation::CopyTo),
            PaneAction::MoveTo => on_selection(Operation::MoveTo),
            PaneAction::LinkTo => on_selection(Operation::LinkTo),
            PaneAction::CopyToOtherPane => on_selection(Operation::CopyToOtherPane),
            PaneAction::MoveToOtherPane => on_selection(Operation::MoveToOtherPane),
            PaneAction::Paste => Some(Event::Operation(Operation::Paste(self.path.clone()))),
            PaneAction::NewFolder => Some(Event::Operation(Operation::NewFolder {
                parent: self.path.clone(),
                name: self.free_name("New Folder"),
            })),
            PaneAction::Rename => return Some((self.start_rename(), None)),
            _ => return None,
        };
        Some((Task::none(), event))
    }

    /// `base`, or `base 2`, `base 3`, ...: the first name the folder does not hold.
    fn free_name(&self, base: &str) -> String {
        let taken = |name: &str| self.has_name(name.as_bytes());
        let mut name = base.to_owned();
        let mut n = 2;
        while taken(&name) {
            name = format!("{base} {n}");
            n += 1;
        }
        name
    }

    fn has_name(&self, name: &[u8]) -> bool {
        self.listing
            .contents()
            .is_some_and(|c| c.entries().iter().any(|e| e.name_bytes() == name))
    }

    /// F2: the editor over the focused item's name, its name selected without the extension.
    fn start_rename(&mut self) -> Task<Message> {
        let Some(contents) = self.listing.contents() else {
            return Task::none();
        };
        let Some(entry) = self
            .selection
            .focus()
            .filter(|&e| self.selection.contains(e))
        else {
            return Task::none();
        };
        let Some(item) = contents.entries().get(entry as usize) else {
            return Task::none();
        };
        let renaming = Renaming::of(entry, item);
        let opened = renaming.opened.clone();
        self.renaming = Some(renaming);
        let reveal = self.reveal_focus();
        let slot = self.built_slot(entry);
        if let Some(renaming) = &mut self.renaming {
            renaming.slot = slot;
        }
        Task::batch([reveal, field::focus(self.rename_input_id(), opened)])
    }

    /// Where entry `entry`'s row is among the rows the list builds now (the icon grid's
    /// cells counted in order), if it is built.
    fn built_slot(&self, entry: u32) -> Option<(usize, usize)> {
        let contents = self.listing.contents()?;
        let row = contents.row_of(entry)?;
        let per_line = self.per_line();
        let lines = contents.rows().len().div_ceil(per_line);
        let built = self.scroll.window(lines, self.line_height());
        built
            .contains(&(row / per_line))
            .then(|| (row - built.start * per_line, per_line))
    }

    /// The list builds only the rows on screen, and iced keeps a widget's state by its place
    /// among them: when the rename editor's row moves to another place (an item added or
    /// removed above it by another program, a scroll, a resize), its field is a new one,
    /// without the keyboard. Keys then went to the pane: typed letters replaced the whole
    /// name, and Delete moved the file being renamed to the trash. The field gets the
    /// keyboard back, its cursor after the text.
    pub(super) fn keep_rename_focus(&mut self) -> Task<Message> {
        let Some(entry) = self.renaming.as_ref().map(|r| r.entry) else {
            return Task::none();
        };
        let slot = self.built_slot(entry);
        let Some(renaming) = self.renaming.as_mut().filter(|r| r.slot != slot) else {
            return Task::none();
        };
        renaming.slot = slot;
        if slot.is_none() {
            return Task::none(); // focused again once it is built
        }
        self.refocus_rename()
    }

    /// A press elsewhere than on the item being renamed ends the rename, as a click away does
    /// in Dolphin: the name typed is given (refused, the editor stays and says why). The
    /// editor stayed open, its menu's entries and keys acting on nothing.
    pub(super) fn rename_ended_by_press(&mut self, on: Option<RowRef>) -> Option<Event> {
        let renaming = self.renaming.as_ref()?;
        let its_row = self.listing.contents()?.row_of(renaming.entry);
        if on.is_some_and(|at| at.revision == self.revision && Some(at.row) == its_row) {
            return None;
        }
        let renamed = self.rename_submitted();
        // The press picks what is selected next (the row clicked, or nothing on the
        // background), not the item once it is listed under its new name.
        if renamed.is_some() {
            self.select_when_listed = SelectWhenListed::default();
        }
        renamed
    }

    /// A key the rename editor did not take, and not one for it (Enter, Escape, a letter):
    /// its field had lost the keyboard. Nothing acts on the items meanwhile; the field gets
    /// the keyboard back.
    pub(super) fn refocus_rename(&mut self) -> Task<Message> {
        let id = self.rename_input_id();
        let Some(renaming) = &mut self.renaming else {
            return Task::none();
        };
        renaming.opened = renaming.as_left();
        field::focus(id, renaming.opened.clone())
    }

    /// Selects the items pending in [`SelectWhenListed`] that the folder lists now: the
    /// first found replaces the selection, the rest join it (they may be listed over several
    /// live changes), and the first in the view's order gets the focus and is scrolled to.
    pub(super) fn select_if_pending(&mut self) -> Task<Message> {
        let pending = &mut self.select_when_listed;
        if pending.names.is_empty() {
            return Task::none();
        }
        let Some(contents) = self.listing.contents() else {
            return Task::none();
        };
        // The first found, in the view's order, and every one found.
        let (mut first, mut found) = (None, Vec::new());
        for (row, &entry) in contents.rows().iter().enumerate() {
            let listed = contents.entries().get(entry as usize);
            if listed.is_some_and(|e| pending.names.remove(e.name())) {
                first.get_or_insert((row, entry));
                found.push(entry);
                if pending.names.is_empty() {
                    break;
                }
            }
        }
        // Listed but not shown (hidden, or left out by the filter): not selected, and not
        // waited for either, or showing hidden files later would select them.
        if !pending.names.is_empty() {
            for entry in contents.entries().iter() {
                pending.names.remove(entry.name());
            }
        }
        let Some((row, entry)) = first else {
            return Task::none();
        };
        if pending.begun {
            self.selection.add(found, None);
            return Task::none();
        }
        pending.begun = true;
        self.selection.clear();
        self.selection.add(found, Some(entry));
        self.reveal(row, false)
    }

    /// Selects `names` in place of the selection once the folder lists them (what a paste or
    /// a drop brought here, as Dolphin selects it), now for those it lists already.
    pub fn select_when_listed(
        &mut self,
        names: impl IntoIterator<Item = OsString>,
    ) -> Task<Message> {
        self.select_when_listed = SelectWhenListed::new(names);
        self.select_if_pending()
    }

    pub(super) fn rename_edited(&mut self, text: String) {
        if let Some(renaming) = &mut self.renaming {
            renaming.cursor = cursor_after_edit(&renaming.text, &text);
            renaming.selected = None;
            renaming.text = text;
            renaming.problem = None;
        }
    }

    /// Why this folder cannot take `name` (`typed` as the user wrote it) for a new or renamed
    /// item: `None` when it can, as far as its listing tells.
    pub fn name_refused(&self, typed: &str, name: &[u8]) -> Option<String> {
        Some(match name {
            _ if typed.trim().is_empty() => "A name can't be empty.".to_owned(),
            _ if name.contains(&b'/') => "A name can't contain “/”.".to_owned(),
            b"." | b".." => "“.” and “..” can't be used as names.".to_owned(),
            _ if name.len() > 255 => {
                format!("This name is too long: {} bytes, at most 255.", name.len())
            }
            _ if self.has_name(name) => format!("“{typed}” already exists here."),
            _ => return None,
        })
    }

    /// Enter in the editor: a name the folder cannot take is refused in place, with why.
    pub(super) fn rename_submitted(&mut self) -> Option<Event> {
        let renaming = self.renaming.as_ref()?;
        let as_typed = renaming.text.trim_end_matches(['\n', '\r']);
        let unchanged = |name: &[u8]| name == renaming.original.as_bytes();
        if (renaming.name_text.name_for(as_typed)).is_ok_and(|name| unchanged(&name)) {
            self.renaming = None;
            return None;
        }
        // Spaces at either end are dropped, as New Folder and Nautilus do: a name ending in
        // one looks like another and is rarely meant. One the item had is kept if not edited.
        let typed = as_typed.trim().to_owned();
        let name = renaming.name_text.name_for(&typed);
        let problem = match &name {
            Err(why) => Some((*why).to_owned()),
            Ok(name) if unchanged(name) => {
                self.renaming = None;
                return None;
            }
            Ok(name) => self.name_refused(&typed, name),
        };
        if let Some(problem) = problem {
            if let Some(renaming) = &mut self.renaming {
                renaming.problem = Some(problem);
            }
            return None;
        }
        let new_name = OsString::from_vec(name.ok()?);
        let renaming = self.renaming.take()?;
        let path = self.path.join(&renaming.original);
        // The item stays selected under its new name, as in Dolphin.
        self.select_when_listed = SelectWhenListed::new([new_name.clone()]);
        Some(Event::Operation(Operation::Rename { path, new_name }))
    }

    /// Tab in the rename editor: renames as Enter does, then opens the editor on the next
    /// item (the one before when `back`), unless the name is refused or there is none.
    pub(super) fn rename_next(&mut self, back: bool) -> (Task<Message>, Option<Event>) {
        if self.renaming.is_none() {
            return (Task::none(), None);
        }
        let event = self.rename_submitted();
        if self.renaming.is_some() {
            return (Task::none(), None); // refused: the reason is shown
        }
        // The selection goes on with the editor, not back to the renamed item once listed.
        self.select_when_listed = SelectWhenListed::default();
        let was = self.selection.focus();
        // The next item in order: the next row of a list, the next cell of a grid.
        let step = match (back, self.per_line() == 1) {
            (false, true) => Step::Down,
            (true, true) => Step::Up,
            (false, false) => Step::Right,
            (true, false) => Step::Left,
        };
        let moved = self.move_focus(step, false);
        if self.selection.focus() == was {
            return (moved, event);
        }
        (Task::batch([moved, self.start_rename()]), event)
    }

    /// The pointer area saw the press a row reported, at `at` (list coordinates): a drag
    /// may follow.
    pub(super) fn item_pressed(&mut self, at: Point) {
        if let Some(press) = self.press.as_mut().filter(|p| p.at.is_none()) {
            press.at = Some(at);
        }
    }

    /// The pointer moved with the button held on an item: past the threshold, the selection
    /// is dragged.
    pub(super) fn item_dragged(&mut self, at: Point) -> Option<Event> {
        let press = self.press.as_mut()?;
        let from = press.at?;
        if press.dragging {
            return None;
        }
        let moved = (at.x - from.x).abs().max((at.y - from.y).abs());
        if moved < DRAG_THRESHOLD {
            return None;
        }
        press.dragging = true;
        let paths = self.selected_paths();
        if paths.is_empty() {
            return None;
        }
        let first = self.first_selected_category();
        Some(Event::DragStarted { paths, first })
    }

    /// The button was released: a click on one item of a selection selects it alone, a Ctrl
    /// click on a selected item deselects it.
    pub(super) fn released(&mut self) {
        if let Some(Press {
            dragging: false,
            on_release: Some(on_release),
            ..
        }) = self.press.take()
        {
            match on_release {
                OnRelease::SelectOnly(entry) => self.selection.select_only(entry),
                OnRelease::Deselect(entry) => self.selection.toggle(entry),
            }
        }
    }

    fn first_selected_category(&self) -> Category {
        self.listing
            .contents()
            .and_then(|c| {
                c.rows()
                    .iter()
                    .find(|&&e| self.selection.contains(e))
                    .map(|&e| format::category(c.entries().entry(e as usize)))
            })
            .unwrap_or(Category::Other)
    }

    /// The folder under the pointer while something is dragged over this pane: the hovered
    /// folder item, or the pane's own folder.
    pub fn drop_folder(&self) -> PathBuf {
        let hovered = self.hovered.and_then(|at: RowRef| {
            let (Listing::Loaded(contents) | Listing::Loading(contents)) = &self.listing else {
                return None;
            };
            let (_, entry) = contents.row(at.row)?;
            entry.is_dir_like().then(|| self.path.join(entry.name()))
        });
        hovered.unwrap_or_else(|| self.path.clone())
    }

    /// The hovered folder item, if one is hovered (a drop on it goes into it; held there, it
    /// opens).
    pub fn hovered_folder(&self) -> Option<PathBuf> {
        let folder = self.drop_folder();
        (folder != self.path).then_some(folder)
    }

    /// The list area's bounds in the window (where a drop lands in this pane).
    pub fn list_bounds(&self) -> iced::Rectangle {
        self.bounds
    }

    /// The listing the pane shows, once it has one.
    pub fn shown_listing(&self) -> Option<std::sync::Arc<ferry_core::entry::Listing>> {
        self.listing.contents().map(|c| c.shared_entries())
    }
}

/// Names to select once the folder lists them: a renamed item under its new name, or what a
/// paste or a drop brought into the folder.
#[derive(Debug, Default)]
pub(super) struct SelectWhenListed {
    /// The names not listed yet.
    names: HashSet<OsString>,
    /// One of them was selected already: the others join it rather than replace it.
    begun: bool,
}

impl SelectWhenListed {
    fn new(names: impl IntoIterator<Item = OsString>) -> Self {
        SelectWhenListed {
            names: names.into_iter().collect(),
            begun: false,
        }
    }
}
