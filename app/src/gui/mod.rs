//! The iced window: one [`browser`] screen fed by the core's `DirService`, and the offer to
//! finish or roll back jobs a crash interrupted ([`recovery`]), run by the window's job
//! `Engine`.
//!
//! The window owns the service and the engine and routes their events, keyboard shortcuts and
//! window changes to the screens; side effects they ask for (opening a file with its default
//! app, the undo journal's file I/O, submitting a job) happen here, at the edge.

mod bridge;
pub mod browser;
pub mod format;
mod launch;
pub mod list;
pub mod recovery;
pub mod scrollbar;
pub mod shortcut;
pub mod style;

use std::path::PathBuf;
use std::sync::Arc;

use crossbeam_channel::Receiver;
use ferry_core::dirs::{DirEvent, DirService, ViewId};
use ferry_core::jobs::{
    self, ConflictPolicy, Engine, Job, JobId, JobOptions, JournalRecord, TrashRoots, UndoJournal,
};
use iced::theme::Mode;
use iced::widget::column;
use iced::{Element, Size, Subscription, Task, Theme, system, window};
use iced::{event, keyboard, mouse};

use browser::Browser;
use recovery::{Choice, Effect, Recovery};

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
    engine: Arc<Engine>,
    job_events: Receiver<jobs::Event>,
    browser: Browser,
    recovery: Recovery,
    mode: Mode,
}

/// The window's messages.
#[derive(Debug, Clone)]
pub enum Message {
    /// Something for the browser screen.
    Browser(browser::Message),
    /// Something for the interrupted-jobs banner.
    Recovery(recovery::Message),
    /// An event of the window's job engine.
    Job(jobs::Event),
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
        let (engine, job_events) = Engine::start();
        let browser = Browser::new(MAIN_VIEW, start, home, &dirs);
        let ferry = Ferry {
            dirs,
            events,
            engine: Arc::new(engine),
            job_events,
            browser,
            recovery: Recovery::default(),
            mode: Mode::Light,
        };
        let interrupted = bridge::blocking(interrupted_jobs)
            .map(|found| Message::Recovery(recovery::Message::Found(found)));
        let theme = system::theme().map(Message::ModeChanged);
        (ferry, Task::batch([theme, interrupted]))
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
            Message::Recovery(message) => match self.recovery.update(message) {
                Some(effect) => self.carry_out(effect),
                None => Task::none(),
            },
            Message::Job(event) => self.update(Message::Recovery(recovery::Message::Job(event))),
            Message::ModeChanged(mode) => {
                self.mode = mode;
                Task::none()
            }
        }
    }

    /// Does what the banner asked: journal I/O on a thread of its own, never here.
    fn carry_out(&self, effect: Effect) -> Task<Message> {
        match effect {
            Effect::Start { record, choice } => {
                let engine = Arc::clone(&self.engine);
                bridge::blocking(move || start_recovery(&engine, *record, choice))
                    .map(|submitted| Message::Recovery(recovery::Message::Submitted(submitted)))
            }
            Effect::Cancel(job) => {
                self.engine.cancel(job);
                Task::none()
            }
            Effect::Finish {
                seq,
                choice,
                summary,
                cancelled,
            } => bridge::blocking(move || {
                let undo = choice == Choice::RollBack;
                let recorded = UndoJournal::open_default()
                    .and_then(|j| j.record_end(seq, undo, &summary, cancelled));
                if let Err(e) = recorded {
                    eprintln!("ferry: {e}");
                }
            })
            .discard(),
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
            bridge::job_events(&self.job_events).map(Message::Job),
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

/// The jobs a crash interrupted, after the journal cleaned up their temporaries (and bounded
/// the folders replaced files are kept in), as `ferry` does at every start. Blocking.
fn interrupted_jobs() -> Vec<JournalRecord> {
    let (interrupted, problems) = match UndoJournal::open_default() {
        Ok(journal) => journal.start_up(),
        Err(e) => (Vec::new(), vec![e]),
    };
    for e in problems {
        eprintln!("ferry: {e}");
    }
    interrupted
}

/// Records in the journal that `record` is resumed (a roll back is recorded when it ends),
/// then submits it. Blocking. Places taken since are skipped, never asked about: the window
/// has no conflict dialog yet.
fn start_recovery(
    engine: &Engine,
    mut record: JournalRecord,
    choice: Choice,
) -> Result<JobId, String> {
    let journal = UndoJournal::open_default().map_err(|e| e.to_string())?;
    let seq = record.seq;
    let job = match choice {
        Choice::Resume => {
            record.job = record.job.clone().unattended();
            journal
                .resume(seq, &record.job)
                .map_err(|e| e.to_string())?;
            Job::Resume {
                record: Box::new(record),
            }
        }
        Choice::RollBack => Job::Undo {
            record: Box::new(record),
            trash: TrashRoots::from_env().map_err(|e| e.to_string())?,
            on_conflict: ConflictPolicy::Skip,
        },
    };
    Ok(engine.submit_journaled(job, JobOptions::default(), seq))
}
