//! The iced window. A newcomer finds the room for a change from the folder names:
//!
//! - [`screen`]: what fills the window — [`tabs`](screen::tabs) of folder
//!   [`browser`](screen::browser) panes (one, or two in a split), the places
//!   [`sidebar`](screen::sidebar), the [`toolbar`](screen::toolbar), the
//!   [`recovery`](screen::recovery) banner; each with `Message`, `Event`, `update`, `view`.
//! - [`modal`]: dialogs over the window.
//! - [`widget`]: widgets generic over the message type (windowed list, icon grid, scrollbar,
//!   icons, context menu, toasts, pointer tracking).
//! - [`menus`]: what each menu holds.
//! - [`bridge`]: the one place crossbeam channels and blocking work become iced
//!   subscriptions and tasks.
//! - [`jobs`]: the only owner of the window's job `Engine`, and of what each job belongs to.
//! - [`shortcut`]: the keyboard as data; [`settings`]: what is remembered between runs.
//!
//! This module owns the services and routes messages between them; it holds no policy and
//! does no I/O itself: file I/O runs through the bridge, on threads of its own.

pub mod bench;
mod bridge;
mod display;
pub mod format;
mod jobs;
mod keys;
mod launch;
pub mod menus;
pub mod modal;
pub mod screen;
pub mod settings;
pub mod shortcut;
mod startup;
pub mod style;
#[cfg(test)]
mod tests;
pub mod widget;
pub mod words;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;
use ferry_core::Error;
use ferry_core::dirs::{DirEvent, DirService};
use ferry_core::places::{self, Places, PlacesEnv};
use iced::keyboard::{Key, Modifiers};
use iced::theme::Mode;
use iced::widget::{column, row};
use iced::{Element, Point, Size, Subscription, Task, Theme, event, mouse, system, window};

use jobs::{Jobs, Origin};
use menus::{Command, MenuKind, OpenMenu};
use screen::Ctx;
use screen::browser::{self, Browser};
use screen::recovery::{self, Recovery};
use screen::sidebar::{self, Sidebar};
use screen::tabs::{self, Tabs};
use screen::toolbar;
use settings::{Settings, Store, ThemeChoice, ViewMode};
use shortcut::{PaneAction, WindowAction};
use widget::context_menu;

pub use startup::Launch;

/// The window's size when no size was remembered.
pub const WINDOW_SIZE: Size = Size::new(1100.0, 720.0);

/// How long a toast stays.
const TOAST_TIME: Duration = Duration::from_secs(6);
/// How often the places (mounts, free space, trash) are read again.
const PLACES_EVERY: Duration = Duration::from_secs(5);

/// Opens the window on `path` (default: the last session, or the home folder) and runs until
/// it closes. Without a display it returns at once with why.
pub fn run(path: Option<PathBuf>) -> Result<(), String> {
    let launch = startup::prepare(path).map_err(|e| e.to_string())?;
    let (w, h) = launch.settings.window;
    iced::application(
        move || Ferry::new(launch.clone()),
        Ferry::update,
        Ferry::view,
    )
    .title(Ferry::title)
    .subscription(Ferry::subscription)
    .theme(Ferry::theme)
    .window_size(Size::new(w.max(480.0), h.max(360.0)))
    .exit_on_close_request(false)
    .run()
    .map_err(|e| e.to_string())
}

/// The application state.
pub struct Ferry {
    services: Services,
    dir_events: Receiver<DirEvent>,
    jobs: Jobs,
    store: Option<Store>,
    tabs: Tabs,
    sidebar: Sidebar,
    recovery: Recovery,
    menu: Option<OpenMenu>,
    shortcuts_shown: bool,
    toasts: Vec<Toast>,
    next_toast: u64,
    window: Size,
    system_mode: Mode,
    settings_dirty: bool,
    session_dirty: bool,
    /// Waiting for the first frame, for the `first frame` log line.
    first_frame: bool,
    places_loading: bool,
}

/// What screens read while they update, apart from the screens themselves so that one can be
/// borrowed mutably while the [`Ctx`] borrows these.
struct Services {
    dirs: DirService,
    home: Option<PathBuf>,
    modifiers: Modifiers,
    settings: Settings,
}

impl Services {
    fn ctx(&self) -> Ctx<'_> {
        Ctx {
            dirs: &self.dirs,
            modifiers: self.modifiers,
            home: self.home.as_deref(),
            settings: &self.settings,
        }
    }
}

/// A short message at the bottom of the window.
#[derive(Debug)]
struct Toast {
    id: u64,
    text: String,
    until: Instant,
}

/// The window's messages.
#[derive(Debug, Clone)]
pub enum Message {
    /// Something for the tabs and their panes.
    Tabs(tabs::Message),
    /// Something for the places sidebar.
    Sidebar(sidebar::Message),
    /// Something for the interrupted-jobs banner.
    Recovery(recovery::Message),
    /// A toolbar button.
    Toolbar(toolbar::Message),
    /// A menu entry (or another request for the window).
    Command(Command),
    /// The open menu was dismissed.
    MenuDismissed,
    /// Something for the Keyboard Shortcuts dialog.
    Shortcuts(modal::shortcuts::Message),
    /// A toast was closed.
    ToastClosed(u64),
    /// An event of the listing service.
    Dir(DirEvent),
    /// An event of the window's job engine.
    Job(ferry_core::jobs::Event),
    /// A resume or roll back was submitted, holding the journal's writer lock, or not.
    RecoveryStarted(Result<(ferry_core::jobs::JobId, jobs::Held), Arc<Error>>),
    /// A key was pressed; `captured` when a widget (a text field) took it.
    Key {
        /// The key.
        key: Key,
        /// The text it types.
        text: Option<String>,
        /// The modifiers held.
        modifiers: Modifiers,
        /// A widget handled it already.
        captured: bool,
    },
    /// The keyboard modifiers changed (for Ctrl/Shift-click).
    ModifiersChanged(Modifiers),
    /// The mouse's back or forward button.
    MouseButton(mouse::Button),
    /// A frame was drawn (only listened to while a timing log line waits for one).
    Frame,
    /// Time for the rubber band to scroll on.
    AutoScroll,
    /// Time to expire toasts and save what changed.
    Tick,
    /// Time to read the places again.
    PlacesTick,
    /// The window changed size.
    WindowResized(Size),
    /// The window's close button was pressed.
    CloseRequested(window::Id),
    /// The system switched between light and dark.
    ModeChanged(Mode),
    /// A file could not be opened with its default application.
    OpenFailed(PathBuf, Arc<std::io::Error>),
    /// A bookmark was added, or was there already, or could not be.
    BookmarkAdded(PathBuf, Result<bool, Arc<Error>>),
    /// A bookmark was removed, or could not be.
    BookmarkRemoved(Result<bool, Arc<Error>>),
    /// Settings and session were written, or could not be.
    Saved(Option<Arc<Error>>),
    /// The places were read (on a worker thread).
    PlacesLoaded(Result<Box<Places>, Arc<Error>>),
    /// Something went wrong that the user should hear of.
    Problem(String),
}

impl Ferry {
    /// Starts the services and shows what `launch` says.
    pub fn new(launch: Launch) -> (Self, Task<Message>) {
        let (dirs, dir_events) = DirService::start();
        let services = Services {
            dirs,
            home: launch.home,
            modifiers: Modifiers::empty(),
            settings: launch.settings,
        };
        let tabs = Tabs::new(launch.session.as_ref(), &launch.start, &services.ctx());
        let sidebar = Sidebar::new(services.settings.sidebar_width);
        let window = Size::new(services.settings.window.0, services.settings.window.1);
        let mut ferry = Ferry {
            services,
            dir_events,
            jobs: Jobs::start(),
            store: launch.store,
            tabs,
            sidebar,
            recovery: Recovery::default(),
            menu: None,
            shortcuts_shown: false,
            toasts: Vec::new(),
            next_toast: 0,
            window,
            system_mode: Mode::Light,
            settings_dirty: false,
            session_dirty: false,
            first_frame: true,
            places_loading: false,
        };
        if let Some(notice) = launch.notice {
            ferry.tabs.active_pane_mut().set_notice(notice);
        }
        for problem in &launch.problems {
            ferry.toast(format!(
                "{problem}. The defaults are used; the unreadable file was kept aside."
            ));
        }
        let interrupted =
            Jobs::interrupted().map(|found| Message::Recovery(recovery::Message::Found(found)));
        let theme = system::theme().map(Message::ModeChanged);
        let places = ferry.load_places();
        (ferry, Task::batch([theme, interrupted, places]))
    }

    /// The window title: the active pane's folder.
    pub fn title(&self) -> String {
        format!(
            "{} — Ferry",
            format::display_name(self.tabs.active_pane().path())
        )
    }

    /// Handles one message.
    pub fn update(&mut self, message: Message) -> Task<Message> {
        match message {
            Message::Tabs(message) => {
                let (task, event) = self.tabs.update(message, &self.services.ctx());
                let task = task.map(Message::Tabs);
                match event {
                    Some(event) => Task::batch([task, self.on_tabs_event(event)]),
                    None => task,
                }
            }
            Message::Sidebar(message) => {
                let (task, event) = self.sidebar.update(message, &self.services.ctx());
                let task = task.map(Message::Sidebar);
                match event {
                    Some(event) => Task::batch([task, self.on_sidebar_event(event)]),
                    None => task,
                }
            }
            Message::Recovery(message) => {
                let (task, event) = self.recovery.update(message, &self.services.ctx());
                Task::batch([task.map(Message::Recovery), self.on_recovery(event)])
            }
            Message::RecoveryStarted(Ok((job, held))) => {
                let early = self.jobs.own(job, Origin::Recovery, Some(held));
                let mut tasks =
                    vec![self.update(Message::Recovery(recovery::Message::Submitted(Ok(job))))];
                tasks.extend(early.into_iter().map(|e| self.update(Message::Job(e))));
                Task::batch(tasks)
            }
            Message::RecoveryStarted(Err(error)) => {
                self.update(Message::Recovery(recovery::Message::Submitted(Err(error))))
            }
            Message::Toolbar(toolbar::Message::Pane(action)) => self.pane_action(action),
            Message::Toolbar(toolbar::Message::Window(action)) => self.window_action(action),
            Message::Toolbar(toolbar::Message::Menu(anchor)) => {
                self.open_menu(MenuKind::Window, anchor);
                Task::none()
            }
            Message::Command(command) => {
                self.menu = None;
                self.command(command)
            }
            Message::MenuDismissed => {
                self.menu = None;
                Task::none()
            }
            Message::Shortcuts(modal::shortcuts::Message::Close) => {
                self.shortcuts_shown = false;
                Task::none()
            }
            Message::ToastClosed(id) => {
                self.toasts.retain(|t| t.id != id);
                Task::none()
            }
            Message::Dir(event) => {
                let view = event.view();
                let message = tabs::Message::Pane(view, browser::Message::Dir(event));
                self.update(Message::Tabs(message))
            }
            Message::Job(event) => match self.jobs.route(event) {
                Some((Origin::Recovery, event)) => {
                    self.update(Message::Recovery(recovery::Message::Job(event)))
                }
                None => Task::none(),
            },
            Message::Key {
                key,
                text,
                modifiers,
                captured,
            } => self.key(&key, text.as_deref(), modifiers, captured),
            Message::ModifiersChanged(modifiers) => {
                self.services.modifiers = modifiers;
                Task::none()
            }
            Message::MouseButton(button) => match shortcut::mouse_button(button) {
                Some(action) => self.pane_action(action),
                None => Task::none(),
            },
            Message::Frame => {
                if self.first_frame {
                    self.first_frame = false;
                    tracing::info!(
                        target: "ferry",
                        "first frame {:.1} ms",
                        startup::since_start().as_secs_f64() * 1000.0
                    );
                }
                for pane in self.tabs.panes_mut() {
                    pane.frame_drawn();
                }
                Task::none()
            }
            Message::AutoScroll => {
                let view = self.tabs.active_pane().view_id();
                let message = tabs::Message::Pane(view, browser::Message::AutoScroll);
                self.update(Message::Tabs(message))
            }
            Message::Tick => {
                let now = Instant::now();
                self.toasts.retain(|t| t.until > now);
                self.save()
            }
            Message::PlacesTick => self.load_places(),
            Message::WindowResized(size) => {
                self.window = size;
                self.services.settings.window = (size.width, size.height);
                self.settings_dirty = true;
                Task::none()
            }
            Message::CloseRequested(_) => self.quit(),
            Message::ModeChanged(mode) => {
                self.system_mode = mode;
                Task::none()
            }
            Message::OpenFailed(path, error) => {
                let notice = format!("Could not open “{}”: {error}", format::display_name(&path));
                self.tabs.active_pane_mut().set_notice(notice);
                Task::none()
            }
            Message::BookmarkAdded(path, result) => {
                let name = format::display_name(&path).into_owned();
                self.toast(match result {
                    Ok(true) => format!("Added “{name}” to Places."),
                    Ok(false) => format!("“{name}” is in Places already."),
                    Err(e) => format!("Could not add “{name}” to Places: {e}"),
                });
                self.load_places()
            }
            Message::BookmarkRemoved(result) => {
                if let Err(e) = result {
                    self.toast(format!("Could not remove the bookmark: {e}"));
                }
                self.load_places()
            }
            Message::Saved(problem) => {
                if let Some(e) = problem {
                    self.toast(format!("Could not save the settings: {e}"));
                }
                Task::none()
            }
            Message::PlacesLoaded(loaded) => {
                self.places_loading = false;
                self.update(Message::Sidebar(sidebar::Message::Loaded(loaded)))
            }
            Message::Problem(text) => {
                self.toast(text);
                Task::none()
            }
        }
    }

    fn on_tabs_event(&mut self, event: tabs::Event) -> Task<Message> {
        match event {
            tabs::Event::Pane(_, event) => self.on_pane_event(event),
            tabs::Event::LastClosed => self.quit(),
            tabs::Event::SessionChanged => {
                self.session_dirty = true;
                Task::none()
            }
        }
    }

    fn on_pane_event(&mut self, event: browser::Event) -> Task<Message> {
        let folder = self.tabs.active_pane().path().to_path_buf();
        let settings = &mut self.services.settings;
        match event {
            browser::Event::OpenFile(path) => {
                return bridge::blocking(move || launch::open(&path).map_err(|e| (path, e))).then(
                    |opened| match opened {
                        Ok(()) => Task::none(),
                        Err((path, e)) => Task::done(Message::OpenFailed(path, Arc::new(e))),
                    },
                );
            }
            browser::Event::OpenInNewTab(path) => {
                let event = self.tabs.open(path, false, &self.services.ctx());
                return event.map_or_else(Task::none, |e| self.on_tabs_event(e));
            }
            browser::Event::ContextMenu { at, on_items } => {
                let kind = if on_items {
                    MenuKind::Items
                } else {
                    MenuKind::Folder
                };
                self.open_menu(kind, at);
                return Task::none();
            }
            browser::Event::AddBookmark(path) => return self.add_bookmark(path),
            browser::Event::CopyText(text) => {
                self.toast("Copied the location.".to_owned());
                return iced::clipboard::write(text);
            }
            browser::Event::ShowHiddenChosen(show) => settings.show_hidden = show,
            browser::Event::ModeChosen(mode) => settings.remember_mode(&folder, mode),
            browser::Event::SortChosen(sort) => settings.remember_sort(&folder, sort),
            browser::Event::Zoomed(ViewMode::Icons, size) => settings.icon_size = size,
            browser::Event::Zoomed(ViewMode::Details, size) => settings.details_icon = size,
            browser::Event::ColumnsResized(columns) => settings.columns = columns,
            browser::Event::Activated | browser::Event::Navigated => return Task::none(),
        }
        self.settings_dirty = true;
        self.apply_settings()
    }

    /// Hands the shared settings (hidden files, icon sizes, columns) to every pane.
    fn apply_settings(&mut self) -> Task<Message> {
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

    fn on_sidebar_event(&mut self, event: sidebar::Event) -> Task<Message> {
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
    fn open_in_active(&mut self, path: PathBuf) -> Task<Message> {
        let view = self.tabs.active_pane().view_id();
        let message = tabs::Message::Pane(view, browser::Message::Navigate(path));
        self.update(Message::Tabs(message))
    }

    /// Does what the banner asked: journal I/O on a thread of its own, never here.
    fn on_recovery(&mut self, event: Option<recovery::Event>) -> Task<Message> {
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
    fn pane_action(&mut self, action: PaneAction) -> Task<Message> {
        let view = self.tabs.active_pane().view_id();
        let message = tabs::Message::Pane(view, browser::Message::Action(action));
        self.update(Message::Tabs(message))
    }

    fn window_action(&mut self, action: WindowAction) -> Task<Message> {
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
                // Tab walks the panes, then the places (when shown), then back.
                let last_pane = !self.tabs.is_split() || self.tabs.active_is_last();
                if last_pane && self.services.settings.show_sidebar && self.sidebar.take_focus() {
                    return Task::none();
                }
                self.tabs.other_pane();
                None
            }
            WindowAction::ToggleSidebar => {
                let settings = &mut self.services.settings;
                settings.show_sidebar = !settings.show_sidebar;
                self.settings_dirty = true;
                None
            }
            WindowAction::OpenMenu => {
                let anchor = Point::new(self.window.width - 8.0, 46.0);
                self.open_menu(MenuKind::Window, anchor);
                None
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
            WindowAction::Quit => return self.quit(),
        };
        event.map_or_else(Task::none, |e| self.on_tabs_event(e))
    }

    fn command(&mut self, command: Command) -> Task<Message> {
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
                Task::none()
            }
            Command::OpenInSplit(path) => {
                let event = self.tabs.open_in_split(path, &self.services.ctx());
                event.map_or_else(Task::none, |e| self.on_tabs_event(e))
            }
            Command::RemoveBookmark(target) => bridge::blocking(move || {
                let removed = PlacesEnv::from_env()
                    .and_then(|env| places::remove_bookmark(&env, &target))
                    .map_err(Arc::new);
                Message::BookmarkRemoved(removed)
            }),
            Command::Theme(choice) => {
                self.services.settings.theme = choice;
                self.settings_dirty = true;
                Task::none()
            }
        }
    }

    fn add_bookmark(&self, path: PathBuf) -> Task<Message> {
        bridge::blocking(move || {
            let added = PlacesEnv::from_env()
                .and_then(|env| places::add_bookmark(&env, &path, None))
                .map_err(Arc::new);
            Message::BookmarkAdded(path, added)
        })
    }

    fn load_places(&mut self) -> Task<Message> {
        if self.places_loading {
            return Task::none();
        }
        self.places_loading = true;
        bridge::blocking(|| Places::load().map(Box::new).map_err(Arc::new))
            .map(Message::PlacesLoaded)
    }

    fn open_menu(&mut self, kind: MenuKind, anchor: Point) {
        let entries = self.menu_entries(&kind);
        if entries.is_empty() {
            return;
        }
        let size = context_menu::size(&entries);
        let at = context_menu::place(anchor, size, self.window);
        self.menu = Some(OpenMenu {
            kind,
            at,
            highlighted: None,
        });
    }

    fn menu_entries(&self, kind: &MenuKind) -> Vec<context_menu::Entry<Command>> {
        let state = menus::State {
            pane: self.tabs.active_pane(),
            settings: &self.services.settings,
            split: self.tabs.is_split(),
        };
        menus::entries(kind, &state)
    }

    fn toast(&mut self, text: String) {
        self.next_toast += 1;
        self.toasts.push(Toast {
            id: self.next_toast,
            text,
            until: Instant::now() + TOAST_TIME,
        });
    }

    /// Writes what changed, on a thread of its own.
    fn save(&mut self) -> Task<Message> {
        let Some(store) = self.store.clone() else {
            return Task::none();
        };
        if !self.settings_dirty && !self.session_dirty {
            return Task::none();
        }
        let settings = self.settings_dirty.then(|| self.services.settings.clone());
        let session = self.session_dirty.then(|| self.tabs.session());
        self.settings_dirty = false;
        self.session_dirty = false;
        bridge::blocking(move || {
            let settings = settings.map(|s| store.save_settings(&s)).transpose();
            let session = session.map(|s| store.save_session(&s)).transpose();
            Message::Saved(settings.and(session).err().map(Arc::new))
        })
    }

    /// Saves the session and the settings, then ends.
    fn quit(&mut self) -> Task<Message> {
        self.settings_dirty = true;
        self.session_dirty = true;
        self.save().chain(iced::exit())
    }

    /// The window's content: toolbar, tabs, sidebar and panes, with the banner, the menu, the
    /// dialog and the toasts over them.
    pub fn view(&self) -> Element<'_, Message> {
        let pane = self.tabs.active_pane();
        let toolbar =
            toolbar::view(pane, self.tabs.is_split(), self.window.width).map(Message::Toolbar);
        let mut main = column![];
        if let Some(banner) = self.recovery.view() {
            main = main.push(banner.map(Message::Recovery));
        }
        if let Some(bar) = self.tabs.tab_bar() {
            main = main.push(bar.map(Message::Tabs));
        }
        main = main.push(self.tabs.view().map(Message::Tabs));
        let body: Element<'_, Message> = if self.services.settings.show_sidebar {
            row![self.sidebar.view(pane.path()).map(Message::Sidebar), main].into()
        } else {
            main.into()
        };
        let mut content: Element<'_, Message> = column![toolbar, body].into();
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
        }
        if self.shortcuts_shown {
            content = modal::dialog(
                content,
                modal::shortcuts::view().map(Message::Shortcuts),
                Message::Shortcuts(modal::shortcuts::Message::Close),
            );
        }
        widget::toast::overlay(
            content,
            self.toasts.iter().map(|t| (t.id, t.text.as_str())),
            Message::ToastClosed,
        )
    }

    /// Listing and job events, keys, the mouse's thumb buttons, frames while a timing log line
    /// waits, ticks while something is due, window size and the system colour scheme.
    pub fn subscription(&self) -> Subscription<Message> {
        let mut subscriptions = vec![
            bridge::dir_events(&self.dir_events).map(Message::Dir),
            bridge::job_events(self.jobs.events()).map(Message::Job),
            event::listen_with(keys::listen),
            window::resize_events().map(|(_, size)| Message::WindowResized(size)),
            window::close_requests().map(Message::CloseRequested),
            system::theme_changes().map(Message::ModeChanged),
            iced::time::every(PLACES_EVERY).map(|_| Message::PlacesTick),
        ];
        if self.first_frame || self.tabs.panes().any(Browser::awaits_frame) {
            subscriptions.push(window::frames().map(|_| Message::Frame));
        }
        if self.tabs.active_pane().is_banding() {
            subscriptions
                .push(iced::time::every(Duration::from_millis(30)).map(|_| Message::AutoScroll));
        }
        if !self.toasts.is_empty() || self.settings_dirty || self.session_dirty {
            subscriptions
                .push(iced::time::every(Duration::from_millis(500)).map(|_| Message::Tick));
        }
        Subscription::batch(subscriptions)
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
