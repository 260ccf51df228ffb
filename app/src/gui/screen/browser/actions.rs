//! What a key or menu action does in the pane (the shortcut table's [`PaneAction`]s), and
//! Escape's order of what it drops first.

use super::history::{Nav, Place};
use super::{Browser, Event, Message};
use crate::gui::screen::Ctx;
use crate::gui::settings::ViewMode;
use crate::gui::shortcut::PaneAction;
use iced::Task;

impl Browser {
    pub(super) fn perform(
        &mut self,
        action: PaneAction,
        ctx: &Ctx<'_>,
    ) -> (Task<Message>, Option<Event>) {
        let none = (Task::none(), None);
        if self.renaming.is_some()
            && !matches!(
                action,
                PaneAction::Open
                    | PaneAction::Escape
                    | PaneAction::TypeAhead(_)
                    | PaneAction::RenameNext { .. }
            )
        {
            return (self.refocus_rename(), None);
        }
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
            PaneAction::Open if self.editing.is_some() => self.submit_location(),
            PaneAction::Open if self.selection.count() > 1 => {
                let folders = self.selected_folders();
                let mut files = self.selected_paths();
                files.retain(|p| !folders.contains(p));
                (Task::none(), Some(Event::OpenSelected { files, folders }))
            }
            // The one selected, or with none selected the focused one, as Dolphin's Return
            // does: Ctrl+arrows to an entry, then Enter, did nothing.
            PaneAction::Open => match self.focused_row() {
                Some(row) => self.open_row(row, ctx),
                None => none,
            },
            PaneAction::OpenInNewTab => {
                (Task::none(), self.focused_folder().map(Event::OpenInNewTab))
            }
            // Up and Down reach the window while a path is typed: they are not for the list.
            PaneAction::Move { .. } | PaneAction::MoveFocus { .. } if self.editing.is_some() => {
                none
            }
            PaneAction::Move { step, extend } => {
                let left = self.leave_filter();
                (Task::batch([left, self.move_focus(step, extend)]), None)
            }
            PaneAction::MoveFocus { step } => {
                let left = self.leave_filter();
                (Task::batch([left, self.move_focus_only(step)]), None)
            }
            PaneAction::LeaveFilter => (self.leave_filter(), None),
            PaneAction::RenameNext { back } => self.rename_next(back),
            PaneAction::ToggleFocused => {
                if let Some(focus) = self.selection.focus() {
                    self.selection.toggle(focus);
                }
                (self.leave_filter(), None)
            }
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
            PaneAction::Escape => self.escape(),
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

    /// Escape: drop the rubber band, stop naming an item, stop typing a path, close the
    /// filter, or clear the selection — the first that applies.
    pub(super) fn escape(&mut self) -> (Task<Message>, Option<Event>) {
        if self.renaming.take().is_some() || self.band.take().is_some() {
            return (Task::none(), None);
        }
        if let Some(editing) = self.editing.take() {
            // Opened over the Trash view: back to it.
            return (Task::none(), editing.over_trash.then_some(Event::OpenTrash));
        }
        if self.filter.is_some() {
            return (self.set_filter(None), None);
        }
        self.selection.clear();
        (Task::none(), None)
    }
}
