//! The iced window: one [`browser`] screen fed by the core's `DirService`.
//!
//! The window owns the service and routes its events, keyboard shortcuts and window changes to
//! the browser; side effects the browser asks for (opening a file with its default app) happen
//! here, at the edge.

mod bridge;
pub mod browser;
pub mod format;
mod launch;
pub mod list;
pub mod shortcut;
pub mod style;

use std::path::PathBuf;

use crossbeam_channel::Receiver;
use ferry_core::dirs::{DirEvent, DirService, ViewId};
use iced::theme::Mode;
use iced::{Element, Size, Subscription, Task, Theme, system, window};
use iced::{event, keyboard, mouse};

use browser::Browser;

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
    dirs: DirService,
    events: Receiver<DirEvent>,
    browser: Browser,
    mode: Mode,
}

/// The window's messages.
#[derive(Debug, Clone)]
pub enum Message {
    /// Something for the browser screen.
    Browser(browser::Message),
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
        let (dirs, events) = DirService::start();
        let browser = Browser::new(MAIN_VIEW, start, home, &dirs);
        let ferry = Ferry {
            dirs,
            events,
            browser,
            mode: Mode::Light,
        };
        (ferry, system::theme().map(Message::ModeChanged))
    }

    /// The window title: the folder's name.
    pub fn title(&self) -> String {
        let path = self.browser.path();
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |name| name.to_string_lossy().into_owned(),
        );
        format!("{name} — Ferry")
    }

    /// Handles one message.
    pub fn update(&mut self, message: Message) -> Task<Message> {
        match message {
            Message::Browser(message) => {
                let (task, event) = self.browser.update(message, &self.dirs);
                if let Some(browser::Event::OpenFile(path)) = event
                    && let Err(error) = launch::open(&path)
                {
                    self.browser.set_notice(format!(
                        "Could not open {}: {error}",
                        path.file_name()
                            .unwrap_or(path.as_os_str())
                            .to_string_lossy()
                    ));
                }
                task.map(Message::Browser)
            }
            Message::ModeChanged(mode) => {
                self.mode = mode;
                Task::none()
            }
        }
    }

    /// The window's content.
    pub fn view(&self) -> Element<'_, Message> {
        self.browser.view().map(Message::Browser)
    }

    /// Listing events, keyboard shortcuts, the mouse's thumb buttons, window size and the
    /// system colour scheme.
    pub fn subscription(&self) -> Subscription<Message> {
        let keys = keyboard::listen().filter_map(|event| match event {
            keyboard::Event::KeyPressed { key, modifiers, .. } => {
                shortcut::shortcut(&key, modifiers).map(browser::Message::Action)
            }
            keyboard::Event::ModifiersChanged(modifiers) => {
                Some(browser::Message::ModifiersChanged(modifiers))
            }
            keyboard::Event::KeyReleased { .. } => None,
        });
        Subscription::batch([
            bridge::dir_events(&self.events)
                .map(browser::Message::Dir)
                .map(Message::Browser),
            keys.map(Message::Browser),
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
