//! The item error dialog: an item of a job failed and the job asks what to do
//! ([`ErrorPolicy::Ask`](ferry_core::jobs::ErrorPolicy::Ask), `Event::ItemError`). It says
//! the reason in words (see [`words`]), the path, and which job it is, and offers **Retry**,
//! **Skip**, **Skip All of This Kind** and **Cancel Job**; the answer goes back as
//! [`Event::Answer`] for the window to hand to `Engine::resolve_error`. The rest of the job
//! goes on while the question waits.
//!
//! No space, quota and I/O errors (but for reading one file's data, which fails that file
//! alone) are never asked about: the core stops the job at once
//! (after removing its temporary file) and reports the error as the job's `stopped_by`
//! ([`Error::is_terminal`]). For those the window calls [`ItemError::stopped`]: the dialog
//! says the job stopped, and offers **Retry** (once space is freed: [`Event::Retry`], the
//! window starts what the job did not do again) or **Close**.
//!
//! Questions of several jobs queue: one dialog at a time, oldest first, each naming its job
//! (the window passes its description, see `jobs::describe::title`). Answering Cancel Job
//! drops that job's other questions (the engine answers them itself as it stops); Skip All of
//! This Kind drops the job's waiting questions of the same OS error, which the engine skips
//! without asking. "Of this kind" is the core's: the same OS error number, so the button is
//! offered only for errors that have one.
//!
//! Keys (through [`ItemError::key`]): **Enter** presses the focused button, which starts on
//! Retry (Skip for an item no longer there, or where Retry cannot help and is not offered):
//! Retry is the safe default, as in Nautilus (its last, default button), because it
//! changes nothing while the cause is still there and only asks again, whereas Skip leaves an
//! item out of a job the user wanted whole. **Escape** is Cancel Job, as in Dolphin, whose
//! error dialog takes Escape as its Cancel button (it is not a data loss: what was done stays
//! done and undoable); for a stopped job, Escape is Close. **Alt+R / Alt+S / Alt+A / Alt+C**
//! press Retry / Skip / Skip All / Cancel Job (or Close), their letters underlined. **Tab**,
//! Shift+Tab and the arrows move the focus.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;

use ferry_core::Error;
use ferry_core::jobs::{ErrorAction, ErrorId, JobId};
use iced::keyboard::key::Named;
use iced::keyboard::{Key, Modifiers};
use iced::widget::text::Wrapping;
use iced::widget::{Row, column, row, space, text};
use iced::{Alignment, Element, Fill, Task};

use super::confirm::{Look, button};
use crate::gui::format;
use crate::gui::screen::Ctx;
use crate::gui::style;
use crate::gui::words;

/// The dialog's buttons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Button {
    /// Try the item again; for a stopped job, start what it did not do again.
    Retry,
    /// Leave the item out.
    Skip,
    /// Leave it out, and every later item failing the same way.
    SkipAll,
    /// Cancel the whole job.
    CancelJob,
    /// A stopped job: leave it stopped.
    Close,
}

impl Button {
    /// The id of its container, for tests.
    pub fn id(self) -> &'static str {
        match self {
            Button::Retry => "ferry-item-error-retry",
            Button::Skip => "ferry-item-error-skip",
            Button::SkipAll => "ferry-item-error-skip-all",
            Button::CancelJob => "ferry-item-error-cancel",
            Button::Close => "ferry-item-error-close",
        }
    }

    fn label(self) -> (&'static str, char) {
        match self {
            Button::Retry => ("Retry", 'r'),
            Button::Skip => ("Skip", 's'),
            Button::SkipAll => ("Skip All of This Kind", 'a'),
            Button::CancelJob => ("Cancel Job", 'c'),
            Button::Close => ("Close", 'c'),
        }
    }
}

/// What the dialog sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Message {
    /// A button was pressed (or its key).
    Pressed(Button),
    /// Tab or an arrow: the focus moves to the next button (`true`) or the previous one.
    FocusMoved(bool),
    /// A press on the backdrop: nothing (a stray click must not cancel a job).
    BackdropPressed,
}

/// What the window must act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// Answer `request` of `job` with `action` (`Engine::resolve_error`).
    Answer {
        /// The job.
        job: JobId,
        /// Its question.
        request: ErrorId,
        /// What to do.
        action: ErrorAction,
    },
    /// The stopped `job` is to be tried again: start again what its summary says it did not
    /// do (the user freed space, or the disk is back).
    Retry {
        /// The job that stopped.
        job: JobId,
    },
}

/// One question: an item error waiting for an answer, or a job that stopped.
#[derive(Debug, Clone)]
struct Question {
    job: JobId,
    /// "Copying 12 files to “Backup”".
    job_name: String,
    error: Arc<Error>,
    /// `None`: the job stopped (a terminal error).
    request: Option<(ErrorId, PathBuf)>,
}

impl Question {
    /// Retry only where it may help (not where only another choice would: a folder into
    /// itself).
    fn buttons(&self) -> Vec<Button> {
        let mut buttons = match self.request {
            None => vec![Button::Close, Button::Retry],
            Some(_) if self.error.raw_os_error().is_some() => {
                vec![
                    Button::CancelJob,
                    Button::SkipAll,
                    Button::Skip,
                    Button::Retry,
                ]
            }
            Some(_) => vec![Button::CancelJob, Button::Skip, Button::Retry],
        };
        if self.error.retry_cannot_help() {
            buttons.retain(|&b| b != Button::Retry);
        }
        buttons
    }

    /// The button Enter presses at first: Retry, but Skip for an item no longer there (it
    /// comes back only if the user brings it) or where Retry is not offered.
    fn first_focus(&self) -> Button {
        let buttons = self.buttons();
        let skip = buttons.contains(&Button::Skip);
        match buttons.contains(&Button::Retry) {
            true if !(skip && self.error.is_not_found()) => Button::Retry,
            _ if skip => Button::Skip,
            _ => buttons[buttons.len() - 1],
        }
    }
}

/// The queue of questions and the one shown.
#[derive(Debug, Default)]
pub struct ItemError {
    queue: VecDeque<Question>,
    /// The button with the keyboard focus (of the first question).
    focus: Option<Button>,
}

impl ItemError {
    /// An empty queue (nothing shown).
    pub fn new() -> Self {
        Self::default()
    }

    /// Queues `Event::ItemError { job, request, path, error }` of the job `job_name`
    /// describes.
    pub fn ask(
        &mut self,
        job: JobId,
        request: ErrorId,
        path: PathBuf,
        error: Arc<Error>,
        job_name: impl Into<String>,
    ) {
        self.queue.push_back(Question {
            job,
            job_name: job_name.into(),
            error,
            request: Some((request, path)),
        });
    }

    /// Queues the news that `job` stopped on the terminal `error` (its summary's
    /// `stopped_by`); its waiting questions are dropped, as the job has ended.
    pub fn stopped(&mut self, job: JobId, error: Arc<Error>, job_name: impl Into<String>) {
        self.job_ended(job);
        self.queue.push_back(Question {
            job,
            job_name: job_name.into(),
            error,
            request: None,
        });
    }

    /// `job` finished or was cancelled: its questions can no longer be answered.
    pub fn job_ended(&mut self, job: JobId) {
        self.drop_where(|q| q.job == job && q.request.is_some());
    }

    /// True while a question is shown.
    pub fn is_open(&self) -> bool {
        !self.queue.is_empty()
    }

    /// Questions waiting, the shown one included.
    pub fn waiting(&self) -> usize {
        self.queue.len()
    }

    /// Questions of `job` waiting for an answer.
    pub fn asking(&self, job: JobId) -> usize {
        self.queue
            .iter()
            .filter(|q| q.job == job && q.request.is_some())
            .count()
    }

    /// The job whose question is shown.
    pub fn current_job(&self) -> Option<JobId> {
        self.queue.front().map(|q| q.job)
    }

    /// Handles a message: an answer (or Close) shows the next question.
    pub fn update(&mut self, message: Message, _ctx: &Ctx<'_>) -> (Task<Message>, Option<Event>) {
        let event = match message {
            Message::Pressed(button) => self.press(button),
            Message::FocusMoved(forward) => {
                self.move_focus(forward);
                None
            }
            Message::BackdropPressed => None,
        };
        (Task::none(), event)
    }

    /// What a key does while a question is shown (see the module's doc); every other key
    /// does nothing (the dialog is modal).
    pub fn key(&mut self, key: &Key, modifiers: Modifiers) -> Option<Message> {
        let question = self.queue.front()?;
        let buttons = question.buttons();
        let stopped = question.request.is_none();
        match key.as_ref() {
            Key::Named(Named::Enter | Named::Space) => Some(Message::Pressed(self.focused()?)),
            Key::Named(Named::Escape) if stopped => Some(Message::Pressed(Button::Close)),
            Key::Named(Named::Escape) => Some(Message::Pressed(Button::CancelJob)),
            Key::Named(Named::Tab) => Some(Message::FocusMoved(!modifiers.shift())),
            Key::Named(Named::ArrowRight | Named::ArrowDown) => Some(Message::FocusMoved(true)),
            Key::Named(Named::ArrowLeft | Named::ArrowUp) => Some(Message::FocusMoved(false)),
            Key::Character(c) if modifiers.alt() && !modifiers.control() => {
                let letter = c.chars().next()?.to_ascii_lowercase();
                buttons
                    .into_iter()
                    .find(|b| b.label().1 == letter)
                    .map(Message::Pressed)
            }
            _ => None,
        }
    }

    /// The dialog's content for the first question, for [`modal::dialog`](super::dialog)
    /// (whose backdrop should send [`Message::BackdropPressed`]); `None` when nothing waits.
    pub fn view(&self) -> Option<Element<'_, Message>> {
        let question = self.queue.front()?;
        let focused = self.focused();
        let mut head = row![
            text(&question.job_name)
                .size(13)
                .style(style::dim_text)
                .width(Fill)
        ]
        .spacing(12);
        if self.queue.len() > 1 {
            let more = format::counted(self.queue.len() - 1, "more question", "more questions");
            head = head.push(text(more).size(12).style(style::dim_text));
        }
        let title = match question.request {
            Some(_) => words::error_title(&question.error).to_owned(),
            None => format!(
                "The job stopped: {}",
                lower(words::error_title(&question.error))
            ),
        };
        let mut body = column![
            head,
            text(title).size(17).font(style::bold()),
            text(words::error_in_words(&question.error)).size(14),
        ]
        .spacing(8);
        match &question.request {
            Some((_, item)) => {
                // The path the reason speaks of: writing fails at the destination ("no
                // permission to write in “ro”"), not at the item copied there.
                let path = question.error.path().unwrap_or(item);
                body = body.push(
                    text(format::shown_name(path.as_os_str()).into_owned())
                        .size(12)
                        .style(style::dim_text)
                        .wrapping(Wrapping::WordOrGlyph),
                );
            }
            None => body = body.push(text(stopped_advice(&question.error)).size(14)),
        }
        let mut buttons = Row::new().spacing(8).align_y(Alignment::Center);
        for (i, b) in question.buttons().into_iter().enumerate() {
            // Cancel Job and Close stand apart, on the left.
            if i == 1 {
                buttons = buttons.push(space::horizontal());
            }
            let (label, letter) = b.label();
            let look = if b == question.first_focus() {
                Look::Suggested
            } else {
                Look::Plain
            };
            buttons = buttons.push(button(
                label,
                Some(letter),
                look,
                focused == Some(b),
                b.id(),
                Message::Pressed(b),
            ));
        }
        Some(column![body, buttons].spacing(18).width(520).into())
    }

    fn focused(&self) -> Option<Button> {
        let question = self.queue.front()?;
        let buttons = question.buttons();
        self.focus
            .filter(|f| buttons.contains(f))
            .or(Some(question.first_focus()))
    }

    fn move_focus(&mut self, forward: bool) {
        let Some(question) = self.queue.front() else {
            return;
        };
        let buttons = question.buttons();
        let at = self
            .focused()
            .and_then(|f| buttons.iter().position(|&b| b == f))
            .unwrap_or(0);
        let n = buttons.len();
        let next = if forward {
            (at + 1) % n
        } else {
            (at + n - 1) % n
        };
        self.focus = Some(buttons[next]);
    }

    fn press(&mut self, pressed: Button) -> Option<Event> {
        let question = self.queue.front()?;
        if !question.buttons().contains(&pressed) {
            return None;
        }
        let question = self.queue.pop_front()?;
        self.focus = None;
        let job = question.job;
        let Some((request, _)) = question.request else {
            return (pressed == Button::Retry).then_some(Event::Retry { job });
        };
        let action = match pressed {
            Button::Retry => ErrorAction::Retry,
            Button::Skip => ErrorAction::Skip,
            Button::SkipAll => {
                // The engine skips the job's waiting items of this kind itself.
                let errno = question.error.raw_os_error();
                self.drop_where(|q| {
                    q.job == job && q.request.is_some() && q.error.raw_os_error() == errno
                });
                ErrorAction::SkipAllOfKind
            }
            Button::CancelJob => {
                self.job_ended(job);
                ErrorAction::Cancel
            }
            Button::Close => return None,
        };
        Some(Event::Answer {
            job,
            request,
            action,
        })
    }

    fn drop_where(&mut self, gone: impl Fn(&Question) -> bool) {
        let before = self.queue.front().map(|q| (q.job, q.request.clone()));
        self.queue.retain(|q| !gone(q));
        if self.queue.front().map(|q| (q.job, q.request.clone())) != before {
            self.focus = None;
        }
    }
}

/// What to do about a stopped job, by why it stopped.
fn stopped_advice(error: &Error) -> &'static str {
    use rustix::io::Errno;
    let errno = error.raw_os_error().map(Errno::from_raw_os_error);
    // Found before writing: nothing was.
    if matches!(error, Error::TooManyFiles { .. }) {
        "Nothing was written. Delete some files on the disk (it can hold only so many, however \
         small), then Retry."
    } else if matches!(error, Error::NoSpace { .. }) {
        "Nothing was written. Free some space on the disk, then Retry."
    } else if matches!(error, Error::NoRoomForFiles { .. }) {
        "Nothing more was written; what was done is kept. Delete some files on the disk (it \
         can hold no more, however small), then Retry to do the rest."
    } else if errno == Some(Errno::NOSPC) {
        "Nothing more was written; what was done is kept. Free some space on the disk, then \
         Retry to do the rest."
    } else if errno == Some(Errno::DQUOT) {
        "Nothing more was written; what was done is kept. Delete some of your files on that \
         disk, then Retry to do the rest."
    } else if errno == Some(Errno::IO) {
        "Nothing more was written; what was done is kept. Check the disk (is it still plugged \
         in?), then Retry to do the rest."
    } else {
        "What was done is kept. Retry to do the rest."
    }
}

fn lower(title: &str) -> String {
    let mut chars = title.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::path::Path;

    use iced_test::{selector, simulator};
    use rustix::io::Errno;

    use super::*;
    use crate::gui::modal::confirm::tests::ctx;

    fn denied(path: &str) -> Arc<Error> {
        let source = io::Error::from_raw_os_error(Errno::ACCESS.raw_os_error());
        Arc::new(Error::io("create", path, source))
    }

    fn asking(job: u64, request: u64, path: &str) -> ItemError {
        let mut dialog = ItemError::new();
        dialog.ask(
            JobId(job),
            ErrorId(request),
            PathBuf::from(path),
            denied(path),
            "Copying 12 files to “Backup”",
        );
        dialog
    }

    /// Whether the dialog's view shows `target`.
    fn shows(dialog: &ItemError, target: &str) -> bool {
        let mut ui = simulator(dialog.view().expect("a question is shown"));
        ui.find(target).is_ok()
    }

    /// Clicks `button` in the dialog's view and feeds the messages back.
    fn click(dialog: &mut ItemError, button: Button) -> Vec<Event> {
        let mut ui = simulator(dialog.view().expect("a question is shown"));
        ui.click(selector::id(button.id()))
            .expect("the button is shown");
        let messages: Vec<Message> = ui.into_messages().collect();
        messages
            .into_iter()
            .filter_map(|m| dialog.update(m, &ctx(Modifiers::empty())).1)
            .collect()
    }

    #[test]
    fn the_four_answers_reach_the_engine_as_their_actions() {
        for (button, action) in [
            (Button::Retry, ErrorAction::Retry),
            (Button::Skip, ErrorAction::Skip),
            (Button::SkipAll, ErrorAction::SkipAllOfKind),
            (Button::CancelJob, ErrorAction::Cancel),
        ] {
            let mut dialog = asking(3, 9, "/m/Backup/a.txt");
            let events = click(&mut dialog, button);
            assert_eq!(
                events,
                [Event::Answer {
                    job: JobId(3),
                    request: ErrorId(9),
                    action
                }],
                "{button:?}"
            );
            assert!(!dialog.is_open());
        }
    }

    #[test]
    fn it_says_the_reason_the_path_and_the_job() {
        let dialog = asking(3, 9, "/m/Backup/a.txt");
        for shown in [
            "No permission",
            "You don't have permission to write in “Backup”.",
            "/m/Backup/a.txt",
            "Copying 12 files to “Backup”",
        ] {
            assert!(shows(&dialog, shown), "{shown}");
        }
    }

    /// A copy's item is its source; refused at the destination, the path shown is the one
    /// the reason names, not the source's.
    #[test]
    fn the_path_shown_is_the_one_the_reason_speaks_of() {
        let mut dialog = ItemError::new();
        let item = PathBuf::from("/home/u/src/a.txt");
        dialog.ask(JobId(3), ErrorId(9), item, denied("/m/ro/a.txt"), "Copying");
        assert!(shows(
            &dialog,
            "You don't have permission to write in “ro”."
        ));
        assert!(shows(&dialog, "/m/ro/a.txt"));
        assert!(!shows(&dialog, "/home/u/src/a.txt"));
    }

    #[test]
    fn keys_enter_retries_escape_cancels_alt_letters_press() {
        let mut dialog = asking(3, 9, "/m/Backup/a.txt");
        let none = Modifiers::empty();
        let key = |c: &str| Key::Character(c.into());
        let named = Key::Named;
        assert_eq!(
            dialog.key(&named(Named::Enter), none),
            Some(Message::Pressed(Button::Retry))
        );
        assert_eq!(
            dialog.key(&named(Named::Escape), none),
            Some(Message::Pressed(Button::CancelJob))
        );
        for (letter, button) in [
            ("r", Button::Retry),
            ("s", Button::Skip),
            ("a", Button::SkipAll),
            ("C", Button::CancelJob),
        ] {
            assert_eq!(
                dialog.key(&key(letter), Modifiers::ALT),
                Some(Message::Pressed(button)),
                "Alt+{letter}"
            );
        }
        assert_eq!(
            dialog.key(&key("s"), none),
            None,
            "a letter alone types nothing"
        );
        assert_eq!(
            dialog.key(&key("s"), Modifiers::CTRL | Modifiers::ALT),
            None
        );
        // Tab moves the focus from Retry round to Cancel Job, Shift+Tab back; Enter presses
        // what has the focus.
        let tab = dialog.key(&named(Named::Tab), none).unwrap();
        let _ = dialog.update(tab, &ctx(none));
        assert_eq!(
            dialog.key(&named(Named::Enter), none),
            Some(Message::Pressed(Button::CancelJob))
        );
        let back = dialog.key(&named(Named::Tab), Modifiers::SHIFT).unwrap();
        let _ = dialog.update(back, &ctx(none));
        let _ = dialog.update(back, &ctx(none));
        assert_eq!(
            dialog.key(&named(Named::Enter), none),
            Some(Message::Pressed(Button::Skip))
        );
    }

    #[test]
    fn questions_of_several_jobs_come_one_at_a_time_each_naming_its_job() {
        let mut dialog = asking(1, 1, "/m/Backup/a");
        dialog.ask(
            JobId(2),
            ErrorId(1),
            PathBuf::from("/n/b"),
            denied("/n/b"),
            "Moving “b” to “Old”",
        );
        dialog.ask(
            JobId(1),
            ErrorId(2),
            PathBuf::from("/m/Backup/c"),
            denied("/m/Backup/c"),
            "Copying 12 files to “Backup”",
        );
        assert_eq!(dialog.waiting(), 3);
        assert!(shows(&dialog, "2 more questions"));
        // Skip all of this kind: job 1's other EACCES question is answered by the engine.
        let events = click(&mut dialog, Button::SkipAll);
        assert_eq!(events.len(), 1);
        assert_eq!(dialog.waiting(), 1);
        assert_eq!(dialog.current_job(), Some(JobId(2)));
        assert!(shows(&dialog, "Moving “b” to “Old”"));
        assert!(shows(&dialog, "/n/b"));
    }

    #[test]
    fn cancel_job_drops_the_jobs_other_questions_and_an_ended_job_its_own() {
        let mut dialog = asking(1, 1, "/m/a");
        dialog.ask(
            JobId(2),
            ErrorId(5),
            "/n/b".into(),
            denied("/n/b"),
            "Job two",
        );
        dialog.ask(
            JobId(1),
            ErrorId(2),
            "/m/c".into(),
            denied("/m/c"),
            "Job one",
        );
        assert_eq!((dialog.asking(JobId(1)), dialog.asking(JobId(2))), (2, 1));
        let events = click(&mut dialog, Button::CancelJob);
        assert_eq!(
            events[0],
            Event::Answer {
                job: JobId(1),
                request: ErrorId(1),
                action: ErrorAction::Cancel
            }
        );
        assert_eq!(dialog.waiting(), 1);
        assert_eq!((dialog.asking(JobId(1)), dialog.asking(JobId(2))), (0, 1));
        dialog.job_ended(JobId(2));
        assert!(!dialog.is_open());
        assert!(dialog.view().is_none());
    }

    #[test]
    fn an_error_without_an_os_error_offers_no_skip_all() {
        let mut dialog = ItemError::new();
        let error = Arc::new(Error::Changed {
            path: PathBuf::from("/m/a"),
        });
        dialog.ask(JobId(1), ErrorId(1), "/m/a".into(), error, "Copying “a”");
        {
            let mut ui = simulator(dialog.view().unwrap());
            assert!(ui.find(selector::id(Button::SkipAll.id())).is_err());
        }
        assert_eq!(
            dialog.key(&Key::Character("a".into()), Modifiers::ALT),
            None
        );
    }

    #[test]
    fn a_stopped_job_says_so_and_offers_retry_once_space_is_freed() {
        let mut dialog = asking(1, 1, "/m/a");
        let full = Arc::new(Error::NoSpace {
            path: Path::new("/media/u/USB").to_path_buf(),
            needed: 1_200_000_000,
            available: 300_000_000,
        });
        dialog.stopped(JobId(1), full, "Copying 12 files to “USB”");
        assert_eq!(dialog.waiting(), 1, "the stopped job's question is gone");
        for shown in [
            "The job stopped: not enough space",
            "There is not enough space on the disk holding “USB”: 1.2 GB needed, 300.0 MB free.",
        ] {
            assert!(shows(&dialog, shown), "{shown}");
        }
        let none = Modifiers::empty();
        assert_eq!(
            dialog.key(&Key::Named(Named::Escape), none),
            Some(Message::Pressed(Button::Close))
        );
        assert_eq!(
            dialog.key(&Key::Named(Named::Enter), none),
            Some(Message::Pressed(Button::Retry))
        );
        assert_eq!(
            click(&mut dialog, Button::Retry),
            [Event::Retry { job: JobId(1) }]
        );
        let mut dialog = ItemError::new();
        let eio = Arc::new(Error::io("read", "/m/a", io::Error::from_raw_os_error(5)));
        dialog.stopped(JobId(4), eio, "Copying “a”");
        assert!(click(&mut dialog, Button::Close).is_empty());
        assert!(!dialog.is_open());
    }

    /// Enter on an item no longer there skips it (Retry finds it gone again), and a refusal
    /// that only another choice changes offers no Retry at all ("Retry" refused again).
    #[test]
    fn retry_is_offered_and_first_only_where_it_may_help() {
        let none = Modifiers::empty();
        let enter = Key::Named(Named::Enter);
        let mut dialog = ItemError::new();
        let gone = io::Error::from_raw_os_error(Errno::NOENT.raw_os_error());
        let gone = Arc::new(Error::io("open", "/m/a.txt", gone));
        dialog.ask(
            JobId(1),
            ErrorId(1),
            "/m/a.txt".into(),
            gone,
            "Moving 1 file",
        );
        assert_eq!(
            dialog.key(&enter, none),
            Some(Message::Pressed(Button::Skip))
        );
        let into_itself = Arc::new(Error::IntoItself {
            path: "/m/Photos".into(),
            dest: "/m/Photos/2024".into(),
        });
        let mut dialog = ItemError::new();
        dialog.ask(
            JobId(2),
            ErrorId(2),
            "/m/Photos".into(),
            into_itself,
            "Moving 1 folder",
        );
        assert!(!dialog.queue[0].buttons().contains(&Button::Retry));
        assert_eq!(
            dialog.key(&enter, none),
            Some(Message::Pressed(Button::Skip))
        );
        assert_eq!(dialog.press(Button::Retry), None, "not offered");
        let mut dialog = asking(3, 9, "/m/Backup/a.txt");
        assert_eq!(
            dialog.key(&enter, none),
            Some(Message::Pressed(Button::Retry))
        );
        assert!(dialog.press(Button::Retry).is_some());
    }
}
