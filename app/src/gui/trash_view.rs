//! The Trash view in the window: the sidebar's Trash place shows it in place of the panes
//! (as Dolphin shows `trash:/`), until another place is chosen or Back (Alt+Left,
//! Backspace) leaves it. Its keys go to it first; the window's own shortcuts (tabs, Quit,
//! the menu) still work. It is read again when a job that touches the trash ends.

use ferry_core::jobs::Job;
use iced::keyboard::{Key, Modifiers};
use iced::{Element, Point, Task};

use super::copy_paste::Clip;
use super::dialogs::Ask;
use super::drag::Drag;
use super::jobs::FollowUp;
use super::menus::{Command, MenuKind};
use super::modal;
use super::screen::browser::DRAG_THRESHOLD;
use super::screen::trash::{self, Trash};
use super::screen::{browser, tabs};
use super::shortcut::{self, Action, PaneAction};
use super::widget::context_menu::Entry;
use super::{Ferry, Message};

impl Ferry {
    /// Shows the Trash view (read afresh).
    pub(super) fn open_trash(&mut self) -> Task<Message> {
        let roots = match self.jobs.stores().trash() {
            Ok(roots) => roots,
            Err(e) => {
                self.toast(format!("There is no trash to show: {e}"));
                return Task::none();
            }
        };
        let (mut view, task) = Trash::new(roots, &self.services.ctx());
        view.set_sort(self.services.settings.trash_sort);
        self.trash = Some(view);
        self.show_cut();
        self.trash_ahead = None;
        self.menu = None;
        task.map(Message::Trash)
    }

    /// Whether Forward shows the Trash view again: it was left by Back, and the active pane
    /// is where that left it.
    pub(super) fn trash_is_ahead(&self) -> bool {
        let pane = self.tabs.active_pane();
        self.trash.is_none()
            && self
                .trash_ahead
                .as_ref()
                .is_some_and(|&(view, generation)| {
                    view == pane.view_id() && generation == pane.generation()
                })
    }

    /// Back to the panes.
    pub(super) fn close_trash(&mut self) {
        self.trash = None;
        self.trash_press = None;
    }

    /// The pointer moved with the button held on the view's items: past the threshold, they
    /// are dragged (a drop restores them there).
    pub(super) fn trash_drag_moved(&mut self, at: Point) {
        let Some(from) = self.trash_press else {
            return;
        };
        if self.drag.is_some() || (at.x - from.x).abs().max((at.y - from.y).abs()) < DRAG_THRESHOLD
        {
            return;
        }
        self.trash_press = None;
        if let Some((files, first)) = self.trash.as_mut().and_then(Trash::start_drag) {
            self.drag = Some(Drag::from_trash(files, first, at));
            self.menu = None;
            self.refresh_drop();
        }
    }

    /// The button was released: a press in the view that did not become a drag is a click.
    pub(super) fn trash_released(&mut self) -> Task<Message> {
        if self.trash_press.take().is_none() {
            return Task::none();
        }
        self.trash_message(trash::Message::Released)
    }

    /// A message of the Trash view.
    pub(super) fn trash_message(&mut self, message: trash::Message) -> Task<Message> {
        let Some(view) = &mut self.trash else {
            return Task::none();
        };
        let (task, event) = view.update(message, &self.services.ctx());
        let task = task.map(Message::Trash);
        let Some(event) = event else {
            return task;
        };
        let then = match event {
            trash::Event::Submit(job) => self.start_job(job, FollowUp::Toast),
            trash::Event::DeleteListed { listed, names } => {
                self.jobs.name_trashed(names);
                let (paths, seen): (Vec<_>, Vec<_>) =
                    listed.into_iter().map(|(p, id)| (p, Some(id))).unzip();
                super::dialogs::check_still_seen(paths, seen.into())
            }
            trash::Event::Confirm(confirm) => {
                self.ask(confirm.map(Ask::Trash));
                Task::none()
            }
            trash::Event::OpenFolder(path) => {
                self.close_trash();
                self.open_in_active(path)
            }
            trash::Event::Clip { items, cut } => self.set_clip(Clip::trashed(items, cut)),
            trash::Event::Pressed => {
                self.trash_press = Some(self.pointer);
                Task::none()
            }
            trash::Event::SortChosen(sort) => {
                self.services.settings.trash_sort = sort;
                self.settings_dirty = true;
                Task::none()
            }
            trash::Event::ContextMenu { at, on_items } => {
                self.open_menu(MenuKind::Trash { on_items }, at);
                Task::none()
            }
        };
        Task::batch([task, then])
    }

    /// The Trash view's menu, its entries sent back to it.
    pub(super) fn trash_menu(&self, on_items: bool) -> Vec<Entry<Command>> {
        self.trash.as_ref().map_or_else(Vec::new, |view| {
            view.menu(on_items)
                .into_iter()
                .map(|entry| entry.map(Command::Trash))
                .collect()
        })
    }

    /// Keys while the Trash view is shown: its own first, then the window's; Back leaves it.
    /// `None` when it is not shown.
    pub(super) fn trash_key(
        &mut self,
        key: &Key,
        text: Option<&str>,
        modifiers: Modifiers,
    ) -> Option<Task<Message>> {
        let view = self.trash.as_mut()?;
        if let Some(message) = view.key(key, modifiers) {
            return Some(self.trash_message(message));
        }
        Some(match shortcut::resolve(key, text, modifiers) {
            Some(Action::Window(action)) => self.window_action(action),
            Some(Action::Pane(action @ (PaneAction::Back | PaneAction::Up))) => {
                self.pane_action(action)
            }
            Some(Action::Pane(PaneAction::TypeAhead(c))) => {
                self.trash_message(trash::Message::TypeAhead(c))
            }
            // As in Dolphin, Ctrl+L edits the location, `trash:/` in it (it did nothing, then
            // left for the last folder's path); Escape comes back, Enter on a path leaves.
            Some(Action::Pane(PaneAction::EditLocation)) => {
                self.close_trash();
                let view = self.tabs.active_pane().view_id();
                let edit = browser::Message::EditTrashAddress;
                self.update(Message::Tabs(tabs::Message::Pane(view, edit)))
            }
            // It did nothing and said nothing.
            Some(Action::Pane(PaneAction::Paste)) => {
                self.toast(
                    "Nothing can be pasted into the trash: Delete moves selected items there."
                        .to_owned(),
                );
                Task::none()
            }
            _ => Task::none(),
        })
    }

    /// The Trash view, when shown, in place of the panes.
    pub(super) fn trash_shown(&self) -> Option<Element<'_, Message>> {
        self.trash
            .as_ref()
            .map(|view| view.view().map(Message::Trash))
    }

    /// Restore to…'s folder prompt over the whole window, when the trash view asks it.
    pub(super) fn with_restore_prompt<'a>(
        &'a self,
        content: Element<'a, Message>,
    ) -> Element<'a, Message> {
        let prompt = (self.trash.as_ref())
            .and_then(Trash::restore_prompt)
            .map(|p| p.map(Message::Trash));
        let dismiss = Message::Trash(trash::Message::Folder(
            modal::folder_prompt::Message::Cancelled,
        ));
        modal::dialog(content, prompt, dismiss)
    }

    /// A job ended that may have changed the trash: the view and the sidebar's Trash place
    /// (empty or not) are read again.
    pub(super) fn trash_changed(&mut self, job: &Job) -> Task<Message> {
        let touches = matches!(
            job,
            Job::Trash { .. }
                | Job::Restore { .. }
                | Job::EmptyTrash { .. }
                | Job::Delete { .. }
                | Job::Undo { .. }
        );
        if !touches {
            return Task::none();
        }
        let view = self
            .trash
            .as_mut()
            .map_or_else(Task::none, |view| view.reload().map(Message::Trash));
        Task::batch([view, self.load_places()])
    }
}
