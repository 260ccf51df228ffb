//! The iced window. A newcomer finds the room for a change from the folder names:
//!
//! - [`screen`]: what fills the window — the folder [`browser`](screen::browser) pane and
//!   the [`recovery`](screen::recovery) banner; each with `Message`, `Event`, `update`,
//!   `view`.
//! - [`widget`]: widgets generic over the message type (windowed list, scrollbar, icons).
//! - [`bridge`]: the one place crossbeam channels and blocking work become iced
//!   subscriptions and tasks.
//! - [`jobs`]: the only owner of the window's job `Engine`, and of what each job belongs to.
//! - [`shortcut`]: the keyboard as data.
//!
//! This module owns the services and routes messages between them; it holds no policy and
//! does no I/O itself (opening a file with its default app happens through [`launch`]).

mod bridge;
pub mod format;
mod jobs;
mod launch;
pub mod screen;
pub mod shortcut;
pub mod style;
pub mod widget;

use std::path::PathBuf;

use crossbeam_channel::Receiver;
use ferry_core::dirs::{DirEvent, DirService, ViewId};
use iced::keyboard::Modifiers;
use iced::theme::Mode;
use iced::widget::column;
use iced::{Element, Size, Subscription, Task, Theme, system, window};
use iced::{event, keyboard, mouse};

use jobs::{Jobs, Origin};
use screen::Ctx;
use screen::browser::{self, Browser};
use screen::recovery::{self, Recovery};

/// The window's size when it opens.
pub const WINDOW_SIZE: Size = Size::new(1100.0, 720.0);

/// The single view this window shows (tabs will add more).
const MAIN_VIEW: ViewId = 1;

/// Opens the window on `path` (default: the home folder) and runs until it closes.
pub fn run(path: Option<PathBuf>) -> iced::Result {
    iced::application(move || Ferry::new(path.clone()), Ferry::update, Ferry::view)
        .title(Ferry::title)
        .subscription(Ferry::subscription)
        .theme(Ferry::theme)
        .window_size(WINDOW_SIZE)
        .run()
}

/// The application state.
pub struct Ferry {
    services: Services,
    dir_events: Receiver<DirEvent>,
    jobs: Jobs,
    browser: Browser,
    recovery: Recovery,
    mode: Mode,
}

/// What screens read while they update, apart from the screens themselves so that one can be
/// borrowed mutably while the [`Ctx`] borrows these.
struct Services {
    dirs: DirService,
    home: Option<PathBuf>,
    modifiers: Modifiers,
}

impl Services {
    fn ctx(&self) -> Ctx<'_> {
        Ctx {
            dirs: &self.dirs,
            modifiers: self.modifiers,
            home: self.home.as_deref(),
        }
    }
}

/// The window's messages.
#[derive(Debug, Clone)]
pub enum Message {
    /// Something for the browser screen.
    Browser(browser::Message),
    /// Something for the interrupted-jobs banner.
    Recovery(recovery::Message),
    /// An event of the window's job engine.
    Job(ferry_core::jobs::Event),
    /// The keyboard modifiers changed (for Ctrl/Shift-click).
    ModifiersChanged(Modifiers),
    /// The system switched between light and dark.
    ModeChanged(Mode),
}

impl Ferry {
    /// Starts the listing service and opens `path`, or the home folder.
    pub fn new(path: Option<PathBuf>) -> (Self, Task<Message>) {
        let home = directories::UserDirs::new().map(|dirs| dirs.home_dir().to_path_buf());
        let start = path
            .map(|path| std::path::absolute(&path).unwrap_or(path))
            .or_else(|| home.clone())
            .unwrap_or_else(|| PathBuf::from("/"));
        let (dirs, dir_events) = DirService::start();
        let browser = Browser::new(MAIN_VIEW, start, home.clone(), &dirs);
        let ferry = Ferry {
            services: Services {
                dirs,
                home,
                modifiers: Modifiers::empty(),
            },
            dir_events,
            jobs: Jobs::start(),
            browser,
            recovery: Recovery::default(),
            mode: Mode::Light,
        };
        let interrupted =
            Jobs::interrupted().map(|found| Message::Recovery(recovery::Message::Found(found)));
        let theme = system::theme().map(Message::ModeChanged);
        (ferry, Task::batch([theme, interrupted]))
    }

    /// The window title: the folder's name.
    pub fn title(&self) -> String {
        format!("{} — Ferry", format::display_name(self.browser.path()))
    }

    /// Handles one message.
    pub fn update(&mut self, message: Message) -> Task<Message> {
        match message {
            Message::Browser(message) => {
                let (task, event) = self.browser.update(message, &self.services.ctx());
                if let Some(browser::Event::OpenFile(path)) = event
                    && let Err(error) = launch::open(&path)
                {
                    self.browser.set_notice(format!(
                        "Could not open {}: {error}",
                        format::display_name(&path)
                    ));
                }
                task.map(Message::Browser)
            }
            Message::Recovery(message) => {
                if let recovery::Message::Submitted(Ok(job)) = &message {
                    let early = self.jobs.own(*job, Origin::Recovery);
                    let (task, event) = self.recovery.update(message, &self.services.ctx());
                    let mut tasks = vec![task.map(Message::Recovery), self.on_recovery(event)];
                    tasks.extend(early.into_iter().map(|e| self.update(Message::Job(e))));
                    return Task::batch(tasks);
                }
                let (task, event) = self.recovery.update(message, &self.services.ctx());
                Task::batch([task.map(Message::Recovery), self.on_recovery(event)])
            }
            Message::Job(event) => match self.jobs.route(event) {
                Some((Origin::Recovery, event)) => {
                    self.update(Message::Recovery(recovery::Message::Job(event)))
                }
                None => Task::none(),
            },
            Message::ModifiersChanged(modifiers) => {
                self.services.modifiers = modifiers;
                Task::none()
            }
            Message::ModeChanged(mode) => {
                self.mode = mode;
                Task::none()
            }
        }
    }

    /// Does what the banner asked: journal I/O on a thread of its own, never here.
    fn on_recovery(&self, event: Option<recovery::Event>) -> Task<Message> {
        match event {
            None => Task::none(),
            Some(recovery::Event::Start { record, choice }) => self
                .jobs
                .start_recovery(*record, choice)
                .map(|submitted| Message::Recovery(recovery::Message::Submitted(submitted))),
            Some(recovery::Event::Cancel(job)) => {
                self.jobs.cancel(job);
                Task::none()
            }
            Some(recovery::Event::Finish {
                seq,
                choice,
                summary,
                cancelled,
            }) => Jobs::record_recovery_end(seq, choice, *summary, cancelled).discard(),
        }
    }

    /// The window's content: the banner, if any, above the browser.
    pub fn view(&self) -> Element<'_, Message> {
        let browser = self.browser.view().map(Message::Browser);
        match self.recovery.view() {
            Some(banner) => column![banner.map(Message::Recovery), browser].into(),
            None => browser,
        }
    }

    /// Listing and job events, keyboard shortcuts, the mouse's thumb buttons, window size and
    /// the system colour scheme.
    pub fn subscription(&self) -> Subscription<Message> {
        let keys = keyboard::listen().filter_map(|event| match event {
            keyboard::Event::KeyPressed { key, modifiers, .. } => {
                shortcut::shortcut(&key, modifiers)
                    .map(|action| Message::Browser(browser::Message::Action(action)))
            }
            keyboard::Event::ModifiersChanged(modifiers) => {
                Some(Message::ModifiersChanged(modifiers))
            }
            keyboard::Event::KeyReleased { .. } => None,
        });
        Subscription::batch([
            bridge::dir_events(&self.dir_events)
                .map(browser::Message::Dir)
                .map(Message::Browser),
            bridge::job_events(self.jobs.events()).map(Message::Job),
            keys,
            event::listen_with(|event, _, _| match event {
                iced::Event::Mouse(mouse::Event::ButtonPressed(button)) => {
                    shortcut::mouse_button(button).map(browser::Message::Action)
                }
                _ => None,
            })
            .map(Message::Browser),
            window::resize_events()
                .map(|(_, size)| Message::Browser(browser::Message::WindowResized(size))),
            system::theme_changes().map(Message::ModeChanged),
        ])
    }

    /// Ferry's theme for the system colour scheme.
    pub fn theme(&self) -> Theme {
        style::theme(self.mode)
    }
}
