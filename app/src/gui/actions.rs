//! What the window does with its screens' events and with commands (menu entries, toolbar
//! buttons, window shortcuts): the routing that is not a screen's own business. No I/O here
//! either: what touches the disk goes through the bridge.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use ferry_core::places::{self, Bookmark, Places, PlacesEnv};
use iced::{Point, Task};

use super::dialogs::Ask;
use super::format;
use super::menus::{self, Command, MenuKind, OpenMenu};
use super::modal::confirm::Confirm;
use super::modal::name_prompt::NamePrompt;
use super::screen::browser;
use super::screen::recovery;
use super::screen::sidebar;
use super::screen::tabs;
use super::screen::trash;
use super::settings::ViewMode;
use super::shortcut::{PaneAction, WindowAction};
use super::widget::context_menu;
use super::words;
use super::{Ferry, Message, TOAST_JOIN, TOAST_TIME, Toast, bridge, launch};

impl Ferry {
    pub(super) fn on_tabs_event(&mut self, event: tabs::Event) -> Task<Message> {
        match event {
            tabs::Event::Pane(_, event) => self.on_pane_event(event),
            // As Nautilus does, the window goes with its last tab; running jobs are asked
            // about first, as for Ctrl+Q (they were cancelled unasked).
            tabs::Event::LastClosed => self.ask_quit(),
            tabs::Event::SessionChanged => {
                self.session_dirty = true;
                // A pane opened since a cut draws the cut items dimmed too.
                self.share_cut();
                Task::none()
            }
        }
    }

    pub(super) fn on_pane_event(&mut self, event: browser::Event) -> Task<Message> {
        let folder = self.tabs.active_pane().path().to_path_buf();
        let view_chosen = matches!(
            event,
            browser::Event::ModeChosen(_) | browser::Event::SortChosen(_)
        );
        let settings = &mut self.services.settings;
        match event {
            browser::Event::OpenFile(path) => return open_files(vec![path]),
            browser::Event::OpenSelected { files, folders } => {
                return self.open_selected(files, folders);
            }
            browser::Event::OpenInNewTab(path) => {
                let event = self.tabs.open(path, false, &self.services.ctx());
                return event.map_or_else(Task::none, |e| self.on_tabs_event(e));
            }
            // A click in a pane gives it the keyboard, from the places or the jobs panel too
            // (the next Delete, meant for the files clicked, cancelled a job).
            browser::Event::Activated => {
                self.pane_by_tab = false;
                self.sidebar.leave_focus();
                self.jobs_panel.leave_focus();
                return Task::none();
            }
            browser::Event::ContextMenu { at, on_items } => {
                self.sidebar.leave_focus();
                self.jobs_panel.leave_focus();
                if on_items {
                    self.open_menu(MenuKind::Items, at);
                    return Task::none();
                }
                // Paste counts from the start: the last read may be stale.
                let peek = self.peek_clipboard();
                self.open_menu(MenuKind::Folder, at);
                return peek;
            }
            browser::Event::AddBookmark(path) => return self.add_bookmark(path),
            browser::Event::CopyText(text) => return self.copy_text(text),
            browser::Event::Notice(text) => {
                self.toast(text);
                return Task::none();
            }
            browser::Event::ShowHiddenChosen(show) => settings.show_hidden = show,
            browser::Event::ModeChosen(mode) => settings.remember_mode(&folder, mode),
            browser::Event::SortChosen(sort) => settings.remember_sort(&folder, sort),
            browser::Event::Zoomed(ViewMode::Icons, size) => settings.icon_size = size,
            browser::Event::Zoomed(ViewMode::Details, size) => settings.details_icon = size,
            browser::Event::ColumnsResized(columns) => settings.columns = columns,
            browser::Event::Operation(operation) => return self.operation(operation),
            browser::Event::DragStarted { paths, first } => {
                self.drag_started(paths, first);
                return Task::none();
            }
            browser::Event::Navigated => return Task::none(),
            browser::Event::OpenTrash => return self.open_trash(),
        }
        self.settings_dirty = true;
        let follows = match view_chosen {
            true => self.panes_follow_views(),
            false => Task::none(),
        };
        Task::batch([follows, self.apply_settings()])
    }

    /// A view mode or sort chosen in a folder is that folder's, and the default of folders
    /// without their own: every pane shows its folder as it would open there now, another
    /// pane of the same folder (a second tab, the split's other side) and a pane of a folder
    /// without its own alike (one kept the old default, beside a pane of the new one).
    fn panes_follow_views(&mut self) -> Task<Message> {
        let settings = &self.services.settings;
        let ctx = self.services.ctx();
        let tasks: Vec<Task<Message>> = (self.tabs.panes_mut())
            .map(|pane| {
                let id = pane.view_id();
                let view = settings.view_for(pane.path());
                pane.follow_view(view, &ctx)
                    .map(move |m| Message::Tabs(tabs::Message::Pane(id, m)))
            })
            .collect();
        Task::batch(tasks)
    }

    /// Hands the shared settings (hidden files, icon sizes, columns) to every pane.
    pub(super) fn apply_settings(&mut self) -> Task<Message> {
        let settings = &self.services.settings;
        let tasks: Vec<Task<Message>> = self
            .tabs
            .panes_mut()
            .map(|pane| {
                let view = pane.view_id();
                pane.apply_settings(settings)
                    .map(move |m| Message::Tabs(tabs::Message::Pane(view, m)))
            })
            .collect();
        Task::batch(tasks)
    }

    pub(super) fn on_sidebar_event(&mut self, event: sidebar::Event) -> Task<Message> {
        match event {
            sidebar::Event::Navigate(path) => self.open_in_active(path),
            sidebar::Event::OpenInNewTab(path) => {
                let event = self.tabs.open(path, false, &self.services.ctx());
                event.map_or_else(Task::none, |e| self.on_tabs_event(e))
            }
            sidebar::Event::ContextMenu { place, at } => {
                self.open_menu(MenuKind::Place(place), at);
                Task::none()
            }
            sidebar::Event::Resized(width) => {
                self.services.settings.sidebar_width = width;
                self.settings_dirty = true;
                Task::none()
            }
            sidebar::Event::Problems(problems) => {
                for problem in problems {
                    self.toast(format!("Places: {problem}"));
                }
                Task::none()
            }
        }
    }

    /// Shows `path` in the active pane, as a click on a place does.
    pub(super) fn open_in_active(&mut self, path: PathBuf) -> Task<Message> {
        if self
            .sidebar
            .trash_place()
            .and_then(|p| p.path().map(PathBuf::from))
            == Some(path.clone())
        {
            return self.open_trash();
        }
        self.close_trash();
        let view = self.tabs.active_pane().view_id();
        let message = tabs::Message::Pane(view, browser::Message::Navigate(path));
        self.update(Message::Tabs(message))
    }

    /// Does what the banner asked: journal I/O on a thread of its own, never here.
    pub(super) fn on_recovery(&mut self, event: Option<recovery::Event>) -> Task<Message> {
        match event {
            None => Task::none(),
            Some(recovery::Event::Start { record, choice }) => self
                .jobs
                .start_recovery(*record, choice)
                .map(Message::RecoveryStarted),
            Some(recovery::Event::Cancel(job)) => {
                self.jobs.cancel(job);
                Task::none()
            }
            Some(recovery::Event::Finish {
                job,
                seq,
                choice,
                summary,
                cancelled,
            }) => self
                .jobs
                .record_recovery_end(job, seq, choice, *summary, cancelled)
                .discard(),
        }
    }

    /// Sends `action` to the active pane.
    pub(super) fn pane_action(&mut self, action: PaneAction) -> Task<Message> {
        if self.trash.is_some() {
            // The toolbar's Back and Up leave the Trash view, Refresh reads it again; the
            // rest is the panes'.
            match action {
                PaneAction::Back | PaneAction::Up => {
                    self.close_trash();
                    let pane = self.tabs.active_pane();
                    self.trash_ahead =
                        (action == PaneAction::Back).then(|| (pane.view_id(), pane.generation()));
                }
                PaneAction::Refresh => return self.trash_message(trash::Message::Reload),
                _ => {}
            }
            return Task::none();
        }
        if action == PaneAction::Forward && self.trash_is_ahead() {
            return self.open_trash();
        }
        let view = self.tabs.active_pane().view_id();
        let message = tabs::Message::Pane(view, browser::Message::Action(action));
        self.update(Message::Tabs(message))
    }

    pub(super) fn window_action(&mut self, action: WindowAction) -> Task<Message> {
        let ctx = self.services.ctx();
        let event = match action {
            WindowAction::NewTab => {
                let path = self.tabs.active_pane().path().to_path_buf();
                self.tabs.open(path, true, &ctx)
            }
            WindowAction::CloseTab => {
                let current = self.tabs.session().active;
                self.tabs.close(current, &ctx)
            }
            WindowAction::ReopenClosedTab => self.tabs.reopen(&ctx),
            WindowAction::NextTab => self.tabs.cycle(true),
            WindowAction::PreviousTab => self.tabs.cycle(false),
            WindowAction::SelectTab(n) => self.tabs.select(usize::from(n).saturating_sub(1)),
            WindowAction::ToggleSplit => self.tabs.toggle_split(&ctx),
            WindowAction::OtherPane => {
                // Tab goes to the other pane of a split, from there on to the places (when
                // shown), then back to the panes.
                let on_to_places = !self.tabs.is_split() || self.pane_by_tab;
                let current = match (&self.trash, self.sidebar.trash_path()) {
                    (Some(_), Some(trash)) => trash.to_path_buf(),
                    _ => self.tabs.active_pane().path().to_path_buf(),
                };
                if on_to_places
                    && self.services.settings.show_sidebar
                    && self.sidebar.take_focus(&current)
                {
                    self.pane_by_tab = false;
                    return Task::none();
                }
                self.tabs.other_pane();
                self.pane_by_tab = self.tabs.is_split();
                None
            }
            WindowAction::ToggleSidebar => {
                let settings = &mut self.services.settings;
                settings.show_sidebar = !settings.show_sidebar;
                self.settings_dirty = true;
                // Hidden with the keyboard in it, the places give it back to the pane (the
                // arrow keys went nowhere, and no pane showed it had them).
                if !settings.show_sidebar {
                    self.sidebar.leave_focus();
                }
                None
            }
            WindowAction::OpenMenu => {
                let anchor = Point::new(self.window.width - 8.0, 46.0);
                return self.open_window_menu(anchor);
            }
            WindowAction::NewWindow => {
                let path = self.tabs.active_pane().path().to_path_buf();
                return bridge::blocking(move || launch::new_window(&path)).then(|spawned| {
                    match spawned {
                        Ok(()) => Task::none(),
                        Err(e) => Task::done(Message::Problem(format!(
                            "Could not open a new window: {e}"
                        ))),
                    }
                });
            }
            WindowAction::ShowShortcuts => {
                self.shortcuts_shown = true;
                None
            }
            WindowAction::Quit => return self.ask_quit(),
            WindowAction::OpenTrash => return self.open_trash(),
            WindowAction::Undo => return self.undo(false),
            WindowAction::Redo => return self.undo(true),
            WindowAction::ToggleJobs => {
                return self.update(Message::JobsPanel(
                    super::screen::jobs_panel::Message::Toggle,
                ));
            }
            WindowAction::FocusJobs => {
                use super::screen::jobs_panel::Message as Panel;
                let newest = self.jobs.window_jobs().last().map(|j| j.id);
                // Again, it stays: a toggle sent the keys of a second Ctrl+J's Delete to the
                // files behind (trashing the folder a job was copying).
                let message = match newest {
                    _ if self.jobs_panel.has_focus() => return Task::none(),
                    Some(job) => Panel::Focus(job),
                    None => {
                        self.toast("No jobs yet: copies, moves and deletes show here.".to_owned());
                        return Task::none();
                    }
                };
                return self.update(Message::JobsPanel(message));
            }
        };
        event.map_or_else(Task::none, |e| self.on_tabs_event(e))
    }

    pub(super) fn command(&mut self, command: Command) -> Task<Message> {
        let view = self.tabs.active_pane().view_id();
        let pane = |message| Message::Tabs(tabs::Message::Pane(view, message));
        match command {
            Command::Pane(action) => self.pane_action(action),
            Command::Window(action) => self.window_action(action),
            Command::Mode(mode) => self.update(pane(browser::Message::SetMode(mode))),
            Command::Sort(sort) => self.update(pane(browser::Message::SetSort(sort))),
            Command::Open(path) => self.open_in_active(path),
            Command::OpenInNewTabs(paths) => {
                for path in paths {
                    let _ = self.tabs.open(path, false, &self.services.ctx());
                }
                self.session_dirty = true;
                self.share_cut();
                Task::none()
            }
            Command::OpenInSplit(path) => {
                let event = self.tabs.open_in_split(path, &self.services.ctx());
                event.map_or_else(Task::none, |e| self.on_tabs_event(e))
            }
            Command::RemoveBookmark(bookmark) => bridge::blocking(move || {
                let removed = PlacesEnv::from_env()
                    .and_then(|env| places::remove_bookmark(&env, &bookmark))
                    .map_err(Arc::new);
                Message::BookmarkEdited("remove", removed)
            }),
            Command::RenameBookmark(bookmark) => {
                let (prompt, task) = NamePrompt::relabel(bookmark);
                self.name_prompt = Some(prompt);
                task.map(Message::NamePrompt)
            }
            Command::MakeCopy(job) => self.make_copy(job),
            Command::UndoRecord(seq) => self.undo_record(seq, false),
            Command::RedoRecord(seq) => self.undo_record(seq, true),
            Command::Trash(message) => self.trash_message(message),
            Command::Theme(choice) => {
                self.services.settings.theme = choice;
                self.settings_dirty = true;
                Task::none()
            }
        }
    }

    /// Shows `bookmark` in the places under `label` (`None`: its folder's name).
    pub(super) fn relabel_bookmark(bookmark: Bookmark, label: Option<String>) -> Task<Message> {
        bridge::blocking(move || {
            let renamed = PlacesEnv::from_env()
                .and_then(|env| places::rename_bookmark(&env, &bookmark.target, label.as_deref()))
                .map_err(Arc::new);
            Message::BookmarkEdited("rename", renamed)
        })
    }

    pub(super) fn add_bookmark(&self, path: PathBuf) -> Task<Message> {
        bridge::blocking(move || {
            let added = PlacesEnv::from_env()
                .and_then(|env| places::add_bookmark(&env, &path, None))
                .map_err(Arc::new);
            Message::BookmarkAdded(path, added)
        })
    }

    pub(super) fn load_places(&mut self) -> Task<Message> {
        if self.places_loading {
            return Task::none();
        }
        self.places_loading = true;
        bridge::blocking(|| {
            let places = Places::load().map_err(Arc::new)?;
            Ok(Box::new((places, ferry_core::fs::MountTable::read())))
        })
        .map(Message::PlacesLoaded)
    }

    /// ☰ or F10: the window's menu, its Undo and Redo read again from the journal (the
    /// command line shares it, and said nothing when it recorded or undid a job).
    pub(super) fn open_window_menu(&mut self, anchor: Point) -> Task<Message> {
        self.open_menu(MenuKind::Window, anchor);
        self.jobs.read_labels().map(Message::LabelsRead)
    }

    pub(super) fn open_menu(&mut self, kind: MenuKind, anchor: Point) {
        let entries = self.menu_entries(&kind);
        if entries.is_empty() {
            return;
        }
        let size = context_menu::size(&entries);
        let at = context_menu::place(anchor, size, self.window);
        let highlighted = self
            .by_keys
            .then(|| context_menu::step(&entries, None, true))
            .flatten();
        self.menu = Some(OpenMenu {
            kind,
            at,
            highlighted,
        });
    }

    pub(super) fn menu_entries(&self, kind: &MenuKind) -> Vec<context_menu::Entry<Command>> {
        if let MenuKind::Trash { on_items } = kind {
            return self.trash_menu(*on_items);
        }
        let state = menus::State {
            pane: self.tabs.active_pane(),
            settings: &self.services.settings,
            split: self.tabs.is_split(),
            labels: self.jobs.labels(),
            can_paste: self.can_paste(),
            jobs_shown: self.jobs_panel.is_open(),
        };
        menus::entries(kind, &state)
    }

    pub(super) fn toast(&mut self, text: String) {
        self.toast_with(text, Vec::new());
    }

    /// A toast with buttons (Undo, Make it a copy); it stays longer, so they can be reached.
    ///
    /// One at a time, the newest in place of the one before, as Nautilus shows them: three
    /// stacked, each as wide as its text, covered the middle of the file list (the jobs panel
    /// keeps what jobs said). The message of one shown a moment before, without buttons, goes
    /// first in it, unread otherwise (a paste's "… was left out" and the copy's end come
    /// together).
    pub(super) fn toast_with(&mut self, latest: String, actions: Vec<(String, Command)>) {
        let now = Instant::now();
        // Never one with a button: "Moved “a” to the trash. Moved “b” to the trash." with one
        // Undo, which undid the second alone.
        let text = match self.toasts.last() {
            Some(last)
                if now.duration_since(last.shown) < TOAST_JOIN && last.actions.is_empty() =>
            {
                format!("{} {latest}", last.latest)
            }
            _ => latest.clone(),
        };
        self.next_toast += 1;
        let time = if actions.is_empty() {
            TOAST_TIME
        } else {
            TOAST_TIME + TOAST_TIME / 3
        };
        self.toasts.clear();
        self.toasts.push(Toast {
            id: self.next_toast,
            text,
            shown: now,
            until: now + time,
            actions,
            latest,
        });
    }

    /// Takes Undo off the toasts shown: it undoes the newest job, which after another job or
    /// an undo is no longer the one a toast names (clicked, it would undo something else).
    /// Takes away what toasts say once an undo or redo starts: their Undo offers are for
    /// the job it undoes, and the undo's own end must not be read as joined to them ("Undid:
    /// Rename “a” to “b”. Renamed to “b”." after a redo).
    pub(super) fn end_toasts(&mut self) {
        self.toasts.clear();
    }

    /// What the jobs panel asked.
    pub(super) fn on_jobs_panel_event(
        &mut self,
        event: super::screen::jobs_panel::Event,
    ) -> Task<Message> {
        use super::screen::jobs_panel::Event;
        match event {
            Event::Pause(job) => self.jobs.pause(job),
            Event::Resume(job) => self.jobs.resume(job),
            Event::Cancel(job) => self.ask_cancel(job),
            Event::Dismiss(job) => self.jobs.forget(job),
            Event::Clear => self.jobs.clear_ended(),
            Event::Retry(job) => return self.retry(job),
        }
        Task::none()
    }

    /// Files dropped from another application, once a moment passed without another: one
    /// copy into the folder of the pane under the pointer (or the active one), leaving out
    /// those already there; on the Trash view, into the trash. (The pointer is the last one
    /// the window saw: on X11 the dragging program holds it, and winit gives no drop
    /// position, so rows and places cannot be told apart as targets.)
    pub(super) fn incoming_dropped(&mut self) -> Task<Message> {
        let settled = self
            .incoming_at
            .is_some_and(|at| at.elapsed() >= std::time::Duration::from_millis(150));
        if !settled {
            return Task::none();
        }
        self.incoming_at = None;
        let mut sources = super::copy_paste::distinct(std::mem::take(&mut self.incoming));
        // Dropped on the Trash view: into the trash, as onto Dolphin's trash:/ (the panes
        // are hidden behind it; their folders are not where the user dropped).
        if self.trash.is_some() {
            return self.start_trash(sources);
        }
        let pointer = self.pointer;
        let dest_dir = self
            .tabs
            .current()
            .panes()
            .iter()
            .find(|p| p.list_bounds().contains(pointer))
            .unwrap_or_else(|| self.tabs.active_pane())
            .path()
            .to_path_buf();
        // Dropped into the folder they are in: nothing to do, as in Nautilus (a copy beside
        // them is Ctrl+C, Ctrl+V).
        let count = sources.len();
        sources.retain(|p| p.parent() != Some(dest_dir.as_path()));
        if sources.is_empty() {
            let items = if count == 1 { "It is" } else { "They are" };
            self.toast(format!("{items} in {} already.", words::quoted(&dest_dir)));
            return Task::none();
        }
        let job = ferry_core::jobs::Job::Copy {
            sources,
            dest_dir,
            dest_name: None,
            on_conflict: ferry_core::jobs::ConflictPolicy::Ask,
        };
        self.start_job(job, super::jobs::FollowUp::Toast)
    }

    /// Writes what changed, on a thread of its own.
    pub(super) fn save(&mut self) -> Task<Message> {
        let Some(store) = self.store.clone() else {
            return Task::none();
        };
        if !self.settings_dirty && !self.session_dirty {
            return Task::none();
        }
        let settings = self.settings_dirty.then(|| self.services.settings.clone());
        let session = self.session_dirty.then(|| self.tabs.session());
        let ticket = store.ticket();
        self.settings_dirty = false;
        self.session_dirty = false;
        bridge::blocking(move || {
            let saved = store.save(ticket, settings.as_ref(), session.as_ref());
            Message::Saved(saved.err().map(Arc::new))
        })
    }

    /// Saves the session and the settings, then ends.
    pub(super) fn quit(&mut self) -> Task<Message> {
        self.settings_dirty = true;
        self.session_dirty = true;
        self.save().chain(iced::exit())
    }

    /// Enter on several items: each file opened with its application, each folder in a new
    /// tab; more than [`OPEN_WITHOUT_ASKING`] asks first, as Nautilus does (Ctrl+A, Enter).
    fn open_selected(&mut self, files: Vec<PathBuf>, folders: Vec<PathBuf>) -> Task<Message> {
        let count = files.len() + folders.len();
        if count <= OPEN_WITHOUT_ASKING {
            return self.open_all(files, folders);
        }
        let items = format::counted(count, "item", "items");
        self.ask(
            Confirm::new(
                Ask::Open { files, folders },
                format!("Open {items}?"),
                "Each file opens in its application, and each folder in a new tab.",
                "Open All",
            )
            // The question guards against an Enter after Ctrl+A: a second Enter declines.
            .cancel_by_default(),
        );
        Task::none()
    }

    /// Opens each file with its application and each folder in a new tab.
    pub(super) fn open_all(&mut self, files: Vec<PathBuf>, folders: Vec<PathBuf>) -> Task<Message> {
        let mut tasks = vec![open_files(files)];
        // Each tab opens right after the current one: the last first keeps their order.
        for folder in folders.into_iter().rev() {
            if let Some(event) = self.tabs.open(folder, false, &self.services.ctx()) {
                tasks.push(self.on_tabs_event(event));
            }
        }
        Task::batch(tasks)
    }
}

/// How many items Enter opens at once before asking.
const OPEN_WITHOUT_ASKING: usize = 10;

/// Hands each of `paths` to its application, all at once, off the UI thread; the failures are
/// said together (each said alone, the last replaced the others: five files that no program
/// opened named one). An opener still running once its own failure would have shown is not
/// waited for (see [`launch::OWN_FAILURE_WITHIN`]).
fn open_files(paths: Vec<PathBuf>) -> Task<Message> {
    if paths.is_empty() {
        return Task::none();
    }
    bridge::blocking(move || {
        let (sent, failures) = crossbeam_channel::unbounded();
        let count = paths.len();
        for path in paths {
            let sent = sent.clone();
            std::thread::spawn(move || {
                let failed = launch::open(&path).err().map(|e| (path, Arc::new(e)));
                let _ = sent.send(failed);
            });
        }
        let until = std::time::Instant::now()
            + launch::OWN_FAILURE_WITHIN
            + std::time::Duration::from_secs(1);
        let mut failed = Vec::new();
        for _ in 0..count {
            match failures.recv_deadline(until) {
                Ok(Some(failure)) => failed.push(failure),
                Ok(None) => {}
                Err(_) => break,
            }
        }
        failed
    })
    .then(|failed| match failed.is_empty() {
        true => Task::none(),
        false => Task::done(Message::OpenFailed(failed)),
    })
}
