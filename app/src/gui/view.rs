//! What the window draws: its title, the screens with the banner, menus, dialogs and toasts
//! over them, and the theme. Reads state only; nothing here changes it or does I/O.

use iced::widget::{column, row};

use super::*;

impl Ferry {
    /// The window title: the active pane's folder.
    pub fn title(&self) -> String {
        // The Trash view covers the panes: it is what the window shows (as Dolphin's trash:/).
        let folder = match &self.trash {
            Some(_) => "Trash".into(),
            None => self.tabs.active_pane().folder_name(),
        };
        let jobs: Vec<&jobs::WindowJob> = self.jobs.window_jobs().collect();
        match jobs_panel::overall_percent(&jobs) {
            Some(percent) => format!("{percent}% · {folder} — Ferry"),
            None => format!("{folder} — Ferry"),
        }
    }

    /// The window's content: toolbar, tabs, sidebar and panes, with the banner, the menu, the
    /// dialog and the toasts over them.
    pub fn view(&self) -> Element<'_, Message> {
        let pane = self.tabs.active_pane();
        let toolbar = toolbar::view(
            pane,
            self.tabs.is_split(),
            (self.trash.is_some(), self.trash_is_ahead()),
            self.window.width,
        )
        .map(Message::Toolbar);
        // Every part in its place whether shown or not (see `widget::slot`).
        let banner = self.recovery.view().map(|b| b.map(Message::Recovery));
        let tab_bar = (self.tabs.tab_bar().filter(|_| self.trash.is_none()))
            .map(|bar| bar.map(Message::Tabs));
        let mut main = column![widget::slot(banner), widget::slot(tab_bar)];
        let mut current = pane.path();
        match self.trash_shown() {
            Some(trash) => {
                main = main.push(trash);
                current = self.sidebar.trash_path().unwrap_or(current);
            }
            None => {
                let elsewhere = self.sidebar.has_focus() || self.jobs_panel.has_focus();
                main = main.push(self.tabs.view(elsewhere).map(Message::Tabs));
            }
        }
        // Toasts over the panes alone: they then never cover the jobs panel or the window's
        // bottom line, and centre on the folder they speak of.
        let main = self.with_toasts(main.into());
        let sidebar = (self.services.settings.show_sidebar)
            .then(|| self.sidebar.view(current).map(Message::Sidebar));
        let body = row![widget::slot(sidebar), main];
        let window_jobs: Vec<&jobs::WindowJob> = self.jobs.window_jobs().collect();
        let mut layout = column![toolbar, body];
        if let Some(panel) = self.jobs_panel.view(&window_jobs, self.window.height) {
            layout = layout.push(panel.map(Message::JobsPanel));
        }
        let mut content: Element<'_, Message> = layout.into();
        content = self.drag_badge(content);
        // Each overlay below keeps the shape it has when shown (see `widget::unlayered`).
        if let Some(menu) = &self.menu {
            let entries = self
                .menu_entries(&menu.kind)
                .into_iter()
                .map(|e| e.map(Message::Command))
                .collect();
            content = context_menu::overlay(
                content,
                entries,
                menu.highlighted,
                menu.at,
                Message::MenuDismissed,
            );
        } else {
            content = widget::unlayered(content);
        }
        let shortcuts = (self.shortcuts_shown)
            .then(|| modal::shortcuts::view(self.window).map(Message::Shortcuts));
        content = modal::dialog(
            content,
            shortcuts,
            Message::Shortcuts(modal::shortcuts::Message::Close),
        );
        content = self.conflict_overlay(content);
        content = modal::dialog(
            content,
            self.item_errors.view().map(|q| q.map(Message::ItemError)),
            Message::ItemError(modal::item_error::Message::BackdropPressed),
        );
        content = self.with_restore_prompt(content);
        content = modal::dialog(
            content,
            (self.folder_prompt.as_ref()).map(|p| p.view().map(Message::FolderPrompt)),
            Message::FolderPrompt(modal::folder_prompt::Message::Cancelled),
        );
        content = modal::dialog(
            content,
            (self.name_prompt.as_ref()).map(|p| p.view().map(Message::NamePrompt)),
            Message::NamePrompt(modal::name_prompt::Message::Cancelled),
        );
        modal::dialog(
            content,
            (self.confirm.as_ref()).map(|c| c.view().map(Message::Confirm)),
            Message::Confirm(modal::confirm::Message::Chose(
                modal::confirm::Choice::Cancel,
            )),
        )
    }

    /// The toasts over `content` (the panes): under menus and dialogs, which they would
    /// otherwise cover (a toast at the bottom lay over a conflict dialog's edge, and could over
    /// its buttons in a small window).
    fn with_toasts<'a>(&'a self, content: Element<'a, Message>) -> Element<'a, Message> {
        widget::toast::overlay(
            content,
            self.toasts
                .iter()
                .map(|t| {
                    let actions = t
                        .actions
                        .iter()
                        .map(|(label, command)| {
                            (label.as_str(), Message::ToastAction(t.id, command.clone()))
                        })
                        .collect();
                    (t.id, t.text.as_str(), actions)
                })
                .collect(),
            Message::ToastClosed,
        )
    }

    /// Ferry's theme: the user's choice, or the system's.
    pub fn theme(&self) -> Theme {
        let mode = match self.services.settings.theme {
            ThemeChoice::System => self.system_mode,
            ThemeChoice::Light => Mode::Light,
            ThemeChoice::Dark => Mode::Dark,
        };
        style::theme(mode)
    }
}
