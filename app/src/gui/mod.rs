//! The iced window. A newcomer finds the room for a change from the folder names:
//!
//! - [`screen`]: what fills the window — [`tabs`](screen::tabs) of folder
//!   [`browser`](screen::browser) panes (one, or two in a split), the places
//!   [`sidebar`](screen::sidebar), the [`toolbar`](screen::toolbar), the
//!   [`recovery`](screen::recovery) banner; each with `Message`, `Event`, `update`, `view`.
//! - [`modal`]: dialogs over the window.
//! - [`widget`]: widgets generic over the message type (windowed list, icon grid, scrollbar,
//!   icons, context menu, toasts, pointer tracking).
//! - [`menus`]: what each menu holds; [`actions`]: what the window does with screens'
//!   events and commands; [`operations`]: which job a pane's request becomes; [`drag`]:
//!   dragging items inside the window; [`keys`]: where a key press goes.
//! - [`bridge`]: the one place crossbeam channels and blocking work become iced
//!   subscriptions and tasks.
//! - [`jobs`]: the only owner of the window's job `Engine`, and of what each job belongs to.
//! - [`shortcut`]: the keyboard as data; [`settings`]: what is remembered between runs.
//! - `message.rs`: the window's messages; `view.rs`: what it draws; `listen.rs`: what it
//!   listens to.
//!
//! This module owns the services and routes messages between them; it holds no policy and
//! does no I/O itself: file I/O runs through the bridge, on threads of its own.

mod actions;
pub mod bench;
mod bridge;
pub mod clipboard;
mod completion;
mod conflicts;
mod copy_paste;
mod dialogs;
pub mod display;
mod drag;
pub mod fit;
pub mod format;
mod jobs;
mod keys;
mod launch;
mod listen;
pub mod menus;
mod message;
pub mod modal;
mod moves;
mod name_text;
mod operations;
mod picker;
pub mod screen;
pub mod settings;
pub mod shortcut;
mod startup;
pub mod style;
#[cfg(test)]
mod tests;
mod trash_view;
mod type_ahead;
mod view;
pub mod widget;
pub mod words;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;
use ferry_core::Error;
use ferry_core::dirs::{DirEvent, DirService};
use ferry_core::fs::MountTable;
use ferry_core::places::Places;
use iced::keyboard::{Key, Modifiers};
use iced::theme::Mode;
use iced::{Element, Point, Size, Subscription, Task, Theme, event, mouse, system, window};

use copy_paste::Clip;
use drag::Drag;
use jobs::{Jobs, Labels, Origin, Started, Undoing};
use menus::{Command, OpenMenu};
use operations::PickedFor;
use screen::Ctx;
use screen::browser::Browser;
use screen::jobs_panel::{self, JobsPanel};
use screen::recovery::{self, Recovery};
use screen::sidebar::{self, Sidebar};
use screen::tabs::{self, Tabs};
use screen::toolbar;
use settings::{Settings, Store, ThemeChoice};
use widget::context_menu;

pub use message::Message;
pub use startup::Launch;

/// The window's size when no size was remembered.
pub const WINDOW_SIZE: Size = Size::new(1100.0, 720.0);

/// How long a toast stays.
const TOAST_TIME: Duration = Duration::from_secs(6);

/// A toast shown less than this before the next is joined to it, not replaced unread.
const TOAST_JOIN: Duration = Duration::from_secs(2);
/// How often the places (mounts, free space, trash) are read again.
const PLACES_EVERY: Duration = Duration::from_secs(5);
/// How often the Trash view looks whether another program changed the trash (a `stat` of
/// each trash folder's two folders; read again only when they changed).
const TRASH_LOOK_EVERY: Duration = Duration::from_secs(2);

/// The smallest the window is made: the toolbar's buttons, the places and a pane of a few
/// rows still fit (at 300 x 200 the menu button was cut off and the list showed no row).
const MIN_WINDOW: Size = Size::new(560.0, 380.0);

/// The window's application id: the name of the desktop file (`packaging/linux`), as the
/// freedesktop specifications want, and its `StartupWMClass`.
const APP_ID: &str = "io.github.ferry.Ferry";

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
    .window(iced::window::Settings {
        size: Size::new(w.max(MIN_WINDOW.width), h.max(MIN_WINDOW.height)),
        min_size: Some(MIN_WINDOW),
        // WM_CLASS on X11, the app id on Wayland: what docks and taskbars match to the
        // desktop file for its icon and grouping (it was empty).
        platform_specific: iced::window::settings::PlatformSpecific {
            application_id: APP_ID.to_owned(),
            ..Default::default()
        },
        ..iced::window::Settings::default()
    })
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
    /// The mount table as of the last places reading (a drop's default action needs it).
    mounts: MountTable,
    jobs_panel: JobsPanel,
    /// The folder typed for Copy to… and the like, where the desktop has no folder dialog.
    folder_prompt: Option<modal::folder_prompt::FolderPrompt<(Vec<PathBuf>, PickedFor)>>,
    /// The name asked for New Folder.
    name_prompt: Option<modal::name_prompt::NamePrompt>,
    /// A key is being handled: a menu it opens has its first entry highlighted, as Qt's
    /// menus opened from the keyboard have (one opened by a click has none).
    by_keys: bool,
    /// Conflict dialogs of jobs with conflicts waiting, the shown one first.
    conflicts: Vec<modal::conflict::ConflictDialog>,
    /// The confirmation shown, if any (one at a time, over everything).
    confirm: Option<modal::confirm::Confirm<dialogs::Ask>>,
    /// Stops the walk counting what a delete's question is about.
    measuring: Option<Arc<std::sync::atomic::AtomicBool>>,
    /// Items jobs could not do, waiting for an answer.
    item_errors: modal::item_error::ItemError,
    /// Quit was confirmed: Ferry quits once its jobs have ended and been recorded.
    quitting: bool,
    /// When the user chose to quit with jobs running (see [`dialogs::QUIT_PATIENCE`]).
    quit_asked: Option<Instant>,
    /// Ends of jobs on their way to the journal.
    recording: usize,
    /// The Trash view, while it is shown in place of the panes.
    trash: Option<screen::trash::Trash>,
    /// What the window last put on the clipboard.
    clip: Option<Clip>,
    /// The items of `clip` when it is a cut, as the panes draw them dimmed (shared with them).
    cut: Option<screen::browser::CutItems>,
    /// The desktop's clipboard, once connected, and its events.
    clipboard: Option<clipboard::FileClipboard>,
    clipboard_events: Option<Receiver<clipboard::ClipboardEvent>>,
    /// Whether the desktop's clipboard held files when read for the folder's menu open now
    /// (`None` until it answers): its Paste is greyed when not, as in Dolphin.
    clipboard_files: Option<bool>,
    /// The copies to start once the undo under way ends ("Make it a copy"): the move's
    /// sources, by the answers its conflicts got.
    after_undo: Option<Vec<ferry_core::jobs::Job>>,
    /// An undo or redo asked for and not yet started (it waits for the journal off the UI
    /// thread): another Ctrl+Z now is refused, as while one runs.
    undo_asked: bool,
    /// The pane with the keyboard got it by Tab from the other pane of the split: the next
    /// Tab goes on to the places (before, after F3 gave the new pane the keyboard, Tab
    /// went to the places rather than to the other pane its label names).
    pane_by_tab: bool,
    /// A drag of items, while one is under way.
    drag: Option<Drag>,
    /// Where the Trash view's items were pressed, while the button is held (a drag out of
    /// the view may start).
    trash_press: Option<Point>,
    /// The Trash view was left by Back for this pane, at the folder it showed then (its
    /// generation: any folder opened since is another): Forward shows it again, as a
    /// browser's Forward would.
    trash_ahead: Option<(ferry_core::dirs::ViewId, u64)>,
    /// The pointer's last position in the window.
    pointer: Point,
    /// Files dropped from another application, gathered into one job, and when the last came.
    incoming: Vec<PathBuf>,
    incoming_at: Option<Instant>,
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

/// A short message at the bottom of the window, with what can be done about it.
#[derive(Debug)]
struct Toast {
    id: u64,
    text: String,
    /// When it was shown, and until when.
    shown: Instant,
    until: Instant,
    actions: Vec<(String, Command)>,
    /// Its own message, the end of `text` (see `toast_with`).
    latest: String,
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
        let trash = launch.stores.trash().ok().map(|roots| roots.home);
        let sidebar = Sidebar::new(services.settings.sidebar_width, trash.as_deref());
        let window = Size::new(services.settings.window.0, services.settings.window.1);
        let mut ferry = Ferry {
            services,
            dir_events,
            jobs: Jobs::start(launch.stores.clone()),
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
            mounts: MountTable::default(),
            jobs_panel: JobsPanel::default(),
            trash: None,
            folder_prompt: None,
            name_prompt: None,
            by_keys: false,
            conflicts: Vec::new(),
            confirm: None,
            measuring: None,
            item_errors: modal::item_error::ItemError::new(),
            quitting: false,
            quit_asked: None,
            recording: 0,
            clip: None,
            cut: None,
            clipboard: None,
            clipboard_events: None,
            clipboard_files: None,
            after_undo: None,
            undo_asked: false,
            pane_by_tab: false,
            drag: None,
            trash_press: None,
            trash_ahead: None,
            pointer: Point::ORIGIN,
            incoming: Vec::new(),
            incoming_at: None,
        };
        if let Some(notice) = launch.notice {
            ferry.tabs.active_pane_mut().set_notice(notice);
        }
        for (tab, pane, notice) in launch.gone {
            if let Some(pane) = ferry.tabs.pane_at_mut(tab, pane) {
                pane.set_notice(notice);
            }
        }
        for problem in &launch.problems {
            ferry.toast(format!(
                "{problem}. The defaults are used; the unreadable file was kept aside."
            ));
        }
        let interrupted = ferry
            .jobs
            .interrupted()
            .map(|found| Message::Recovery(recovery::Message::Found(found)));
        let theme = system::theme().map(Message::ModeChanged);
        let places = ferry.load_places();
        let labels = ferry.jobs.read_labels().map(Message::LabelsRead);
        let clipboard = copy_paste::start().map(Message::ClipboardStarted);
        (
            ferry,
            Task::batch([theme, interrupted, places, labels, clipboard]),
        )
    }

    /// Handles one message.
    pub fn update(&mut self, message: Message) -> Task<Message> {
        let shown = self.lists_shown();
        let task = self.handle(message);
        if self.lists_shown() == shown {
            return task;
        }
        // Another tab, the panes back from the Trash view, a pane split off: each list shown
        // now takes its own offset again (see `Browser::scroll_as_before`).
        let lists = self
            .tabs
            .current()
            .panes()
            .iter()
            .map(|p| p.scroll_as_before());
        Task::batch(std::iter::once(task).chain(lists))
    }

    /// The panes whose lists the window shows: those of the shown tab, none under the Trash
    /// view.
    fn lists_shown(&self) -> [Option<ferry_core::dirs::ViewId>; 2] {
        let mut shown = [None; 2];
        if self.trash.is_none() {
            for (slot, pane) in shown.iter_mut().zip(self.tabs.current().panes()) {
                *slot = Some(pane.view_id());
            }
        }
        shown
    }

    fn handle(&mut self, message: Message) -> Task<Message> {
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
            Message::Toolbar(toolbar::Message::Menu(anchor)) => self.open_window_menu(anchor),
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
                let message = tabs::Message::Pane(view, screen::browser::Message::Dir(event));
                self.update(Message::Tabs(message))
            }
            Message::Job(event) => match self.jobs.route(event) {
                Some(routed) => self.on_routed(routed),
                None => Task::none(),
            },
            Message::JobsPanel(message) => {
                let (task, event) = self.jobs_panel.update(message, &self.services.ctx());
                let task = task.map(Message::JobsPanel);
                let task = match event {
                    Some(event) => Task::batch([task, self.on_jobs_panel_event(event)]),
                    None => task,
                };
                // Once a job forgotten (Delete) is gone: the row taking its place was placed
                // among the rows with it, and cut off at the panel's edge.
                let jobs: Vec<_> = self.jobs.window_jobs().collect();
                Task::batch([task, self.jobs_panel.keep_focus_in_view(&jobs)])
            }
            Message::JobStarted(started) => self.job_started(started),
            Message::Undid(redo, undoing) => self.undid(redo, undoing),
            Message::JobRecorded(job) => {
                self.recording = self.recording.saturating_sub(1);
                self.jobs.slim(job);
                let labels = self.jobs.read_labels().map(Message::LabelsRead);
                Task::batch([labels, self.quit_when_idle()])
            }
            Message::Confirm(message) => self.confirm_message(message),
            Message::Conflict(job, message) => self.conflict_message(job, message),
            Message::Trash(message) => self.trash_message(message),
            Message::ItemError(message) => self.item_error_message(message),
            Message::DeleteMeasured(paths, measured) => {
                self.delete_measured(&paths, &measured);
                Task::none()
            }
            Message::DeleteChecked(paths, checked) => self.delete_checked(paths, checked),
            Message::DeleteSeen(paths, seen) => {
                self.delete_seen(&paths, seen);
                Task::none()
            }
            Message::MoveChecked(checked, cautions, changed) => {
                self.move_checked(checked, cautions, &changed)
            }
            Message::LabelsRead(labels) => {
                self.jobs.set_labels(labels);
                Task::none()
            }
            Message::ClipboardStarted(started) => {
                self.clipboard_started(started);
                Task::none()
            }
            Message::Clipboard(event) => {
                self.clipboard_event(event);
                Task::none()
            }
            Message::ClipboardRead(folder, read) => self.clipboard_read(folder, read),
            Message::ClipboardPeeked(files) => {
                self.clipboard_peeked(files);
                Task::none()
            }
            Message::FolderPicked(paths, how, picked) => self.folder_picked(paths, how, picked),
            Message::FolderPrompt(message) => self.folder_prompt_message(message),
            Message::NamePrompt(message) => self.name_prompt_message(message),
            Message::ToastAction(id, command) => {
                self.toasts.retain(|t| t.id != id);
                self.command(command)
            }
            Message::PointerMoved(at) => {
                self.pointer = at;
                self.trash_drag_moved(at);
                self.drag_moved(at)
            }
            Message::PointerReleased => {
                let dropped = self.dropped();
                Task::batch([dropped, self.trash_released()])
            }
            Message::DragTick => self.drag_tick(),
            Message::FileDropped(path) => {
                self.incoming.push(path);
                self.incoming_at = Some(Instant::now());
                Task::none()
            }
            Message::DropTick => self.incoming_dropped(),
            Message::QuitTick => match self.quit_asked {
                Some(at) if at.elapsed() >= dialogs::QUIT_PATIENCE => self.quit(),
                _ => Task::none(),
            },
            Message::Key {
                key,
                text,
                modifiers,
                captured,
            } => {
                self.by_keys = true;
                let task = self.key(&key, text.as_deref(), modifiers, captured);
                self.by_keys = false;
                task
            }
            Message::ModifiersChanged(modifiers) => {
                self.services.modifiers = modifiers;
                // The badge changes live with Ctrl and Shift.
                self.refresh_drop();
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
                let banding: Vec<_> = self
                    .tabs
                    .panes()
                    .filter(|p| p.is_banding())
                    .map(Browser::view_id)
                    .collect();
                Task::batch(banding.into_iter().map(|view| {
                    let message = tabs::Message::Pane(view, screen::browser::Message::AutoScroll);
                    self.update(Message::Tabs(message))
                }))
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
            Message::CloseRequested(_) => self.ask_quit(),
            Message::ModeChanged(mode) => {
                self.system_mode = mode;
                Task::none()
            }
            Message::OpenFailed(failed) => {
                let notice = launch::failures_in_words(&failed);
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
            Message::BookmarkEdited(verb, result) => {
                match result {
                    Err(e) => self.toast(format!("Could not {verb} the place: {e}")),
                    Ok(false) => self.toast(format!(
                        "Could not {verb} the place: it is no longer in the bookmarks."
                    )),
                    Ok(true) => {}
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
                let loaded = loaded.map(|both| {
                    let (places, mounts) = *both;
                    self.mounts = mounts;
                    if let Some(drag) = &mut self.drag {
                        drag.forget_decision(); // a disk came or went
                    }
                    self.refresh_drop();
                    Box::new(places)
                });
                self.update(Message::Sidebar(sidebar::Message::Loaded(loaded)))
            }
            Message::Problem(text) => {
                self.toast(text);
                Task::none()
            }
        }
    }
}
