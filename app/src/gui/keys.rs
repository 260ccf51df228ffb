//! Where a key press goes: the open menu first (Up, Down, Enter, Escape), then the dialog,
//! then the table of [`shortcut`](super::shortcut), window actions to the window and pane
//! actions to the active pane. A key a text field took reaches only Escape's handling (the
//! field has let go of the keyboard, so the editor closes).

use iced::event::Status;
use iced::keyboard::key::Named;
use iced::keyboard::{self, Key, Modifiers};
use iced::{Event, Task, mouse, window};

use super::menus::{self, Command};
use super::shortcut::{self, Action, PaneAction, WindowAction};
use super::widget::context_menu;
use super::{Ferry, Message};

/// The window's keyboard and thumb-button events, for `event::listen_with`.
pub fn listen(event: Event, status: Status, _window: window::Id) -> Option<Message> {
    match event {
        Event::Keyboard(keyboard::Event::KeyPressed {
            key,
            text,
            modifiers,
            ..
        }) => Some(Message::Key {
            key,
            text: text.map(|t| t.to_string()),
            modifiers,
            captured: status == Status::Captured,
        }),
        Event::Keyboard(keyboard::Event::ModifiersChanged(modifiers)) => {
            Some(Message::ModifiersChanged(modifiers))
        }
        Event::Mouse(mouse::Event::ButtonPressed(
            button @ (mouse::Button::Back | mouse::Button::Forward),
        )) => Some(Message::MouseButton(button)),
        _ => None,
    }
}

impl Ferry {
    pub(super) fn key(
        &mut self,
        key: &Key,
        text: Option<&str>,
        modifiers: Modifiers,
        captured: bool,
    ) -> Task<Message> {
        let named = match key.as_ref() {
            Key::Named(named) => Some(named),
            _ => None,
        };
        if named != Some(Named::Tab) {
            self.pane_by_tab = false;
        }
        if self.drag.is_some() {
            if named == Some(Named::Escape) {
                return self.drag_cancelled();
            }
            return Task::none();
        }
        if let Some(task) = self.dialog_key(key, modifiers, captured) {
            return task;
        }
        if let Some(menu) = &mut self.menu {
            let kind = menu.kind.clone();
            let entries = self.menu_entries(&kind);
            let menu = self.menu.as_mut().expect("a menu is open");
            match named {
                Some(Named::ArrowDown) => {
                    menu.highlighted = context_menu::step(&entries, menu.highlighted, true);
                }
                Some(Named::ArrowUp) => {
                    menu.highlighted = context_menu::step(&entries, menu.highlighted, false);
                }
                // The first or the last entry that can be chosen, as in Dolphin's menus.
                Some(Named::Home | Named::PageUp) => {
                    menu.highlighted = context_menu::step(&entries, None, true);
                }
                Some(Named::End | Named::PageDown) => {
                    menu.highlighted = context_menu::step(&entries, None, false);
                }
                Some(Named::Enter) => {
                    let chosen = menu
                        .highlighted
                        .and_then(|i| entries.get(i))
                        .and_then(|entry| entry.message().cloned());
                    self.menu = None;
                    if let Some(command) = chosen {
                        return self.update(Message::Command(command));
                    }
                }
                Some(Named::Escape) => self.menu = None,
                _ => {}
            }
            return Task::none();
        }
        if self.shortcuts_shown {
            if named == Some(Named::Escape) {
                self.shortcuts_shown = false;
            }
            return super::modal::shortcuts::key(key).unwrap_or_else(Task::none);
        }
        // The sidebar and the jobs panel, given the keyboard, have it over the Trash view too
        // (there, Ctrl+J then Delete asked to delete a trashed item permanently).
        if !captured && self.sidebar.has_focus() {
            return self.sidebar_key(named, modifiers, key, text);
        }
        if !captured && self.jobs_panel.has_focus() {
            let jobs: Vec<_> = self.jobs.window_jobs().collect();
            if let Some(message) = self.jobs_panel.key(key, modifiers, &jobs) {
                return self.update(Message::JobsPanel(message));
            }
            return self.key_beside_the_panes(key, text, modifiers);
        }
        if !captured && let Some(task) = self.trash_key(key, text, modifiers) {
            return task;
        }
        if captured {
            return match named {
                Some(Named::Escape) => self.pane_action(PaneAction::Escape),
                _ => Task::none(),
            };
        }
        if let Some(message) = self.recovery.access_key(key, modifiers) {
            return self.update(Message::Recovery(message));
        }
        // As in Dolphin, Tab ends a rename and goes on to the next item's (Shift+Tab: the
        // one before); it took the keyboard to the places, the editor left open.
        if named == Some(Named::Tab)
            && !modifiers.command()
            && !modifiers.alt()
            && self.tabs.active_pane().is_renaming()
        {
            let back = modifiers.shift();
            return self.pane_action(PaneAction::RenameNext { back });
        }
        match shortcut::resolve(key, text, modifiers) {
            // Tab completes a typed path; elsewhere it goes to the other pane of a split.
            Some(Action::Window(WindowAction::OtherPane))
                if self.tabs.active_pane().is_editing_location() =>
            {
                self.pane_action(PaneAction::Complete)
            }
            // As in Dolphin, Tab takes the keyboard from the filter bar to the list.
            Some(Action::Window(WindowAction::OtherPane))
                if self.tabs.active_pane().is_filter_typing() =>
            {
                self.pane_action(PaneAction::LeaveFilter)
            }
            // A text field has no undo of its own: Ctrl+Z there must not undo a file job
            // the user is not looking at (Dolphin's fields undo their text).
            Some(Action::Window(WindowAction::Undo | WindowAction::Redo))
                if self.tabs.active_pane().is_typing() =>
            {
                Task::none()
            }
            Some(Action::Window(action)) => self.window_action(action),
            Some(Action::Pane(action)) => self.pane_action(action),
            None => Task::none(),
        }
    }

    /// The menu of the place the keyboard is on.
    fn place_menu(&mut self) {
        if let Some((place, at)) = self.sidebar.focused() {
            self.open_menu(menus::MenuKind::Place(place), at);
        }
    }

    /// Keys while the sidebar has the keyboard: Up and Down walk the places (Home and End, Page
    /// Up and Page Down go to the first and the last: the list is short), Enter opens one
    /// (Ctrl+Enter in a new tab), the Menu key opens its menu, Tab and Escape go back to the
    /// panes; window shortcuts still work.
    fn sidebar_key(
        &mut self,
        named: Option<Named>,
        modifiers: Modifiers,
        key: &Key,
        text: Option<&str>,
    ) -> Task<Message> {
        let plain = !modifiers.command() && !modifiers.alt();
        match named {
            Some(Named::ArrowDown) if plain => self.sidebar.step_focus(true),
            Some(Named::ArrowUp) if plain => self.sidebar.step_focus(false),
            Some(Named::Home | Named::PageUp) if plain => self.sidebar.focus_end(false),
            Some(Named::End | Named::PageDown) if plain => self.sidebar.focus_end(true),
            Some(Named::Tab) if plain => {
                self.sidebar.leave_focus();
                self.tabs.activate_first();
            }
            Some(Named::Escape) if plain => self.sidebar.leave_focus(),
            Some(Named::Enter) => {
                if let Some((place, _)) = self.sidebar.focused()
                    && let Some(path) = place.path()
                {
                    let path = path.to_path_buf();
                    if modifiers.command() {
                        return self.command(Command::OpenInNewTabs(vec![path]));
                    }
                    self.sidebar.leave_focus();
                    return self.command(Command::Open(path));
                }
            }
            Some(Named::ContextMenu) => self.place_menu(),
            Some(Named::F10) if modifiers.shift() => self.place_menu(),
            _ => return self.key_beside_the_panes(key, text, modifiers),
        }
        Task::none()
    }

    /// A key the places or the jobs panel, having the keyboard, do not take: window
    /// shortcuts work, and a pane's key for its folder gives it the keyboard and acts; keys
    /// for its selection do not reach it meanwhile.
    fn key_beside_the_panes(
        &mut self,
        key: &Key,
        text: Option<&str>,
        modifiers: Modifiers,
    ) -> Task<Message> {
        match shortcut::resolve(key, text, modifiers) {
            Some(Action::Window(action)) => self.window_action(action),
            Some(Action::Pane(action)) if action.on_the_folder() => {
                self.sidebar.leave_focus();
                self.jobs_panel.leave_focus();
                self.pane_action(action)
            }
            _ => Task::none(),
        }
    }
}
