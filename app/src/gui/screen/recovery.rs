//! The offer, at start, to finish or roll back the jobs a crash interrupted.
//!
//! A banner above the browser, one interrupted job at a time: Resume runs the record again,
//! skipping what is done ([`Job::Resume`](ferry_core::jobs::Job::Resume)); Roll back undoes
//! what it did ([`Job::Undo`](ferry_core::jobs::Job::Undo)). A place taken since is asked
//! about in the conflict dialog, an item that fails in the item error dialog, as for any job
//! (the window routes those events there). The banner follows the job (progress, Cancel)
//! and shows how it ended.
//!
//! This module holds state and view only. What needs the engine or the journal's file I/O
//! comes back to the window as an [`Event`], so that tests need neither.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Arc;

use ferry_core::Error;
use ferry_core::jobs::{self, JobId, JournalRecord, Progress, Summary};
use iced::widget::{button, column, container, row, space, text};
use iced::{Alignment, Element, Fill, Padding, Task};

use super::Ctx;
use crate::gui::format;
use crate::gui::style;

/// What to do with an interrupted job.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Finish it.
    Resume,
    /// Undo what it did.
    RollBack,
}

/// The banner's messages.
#[derive(Debug, Clone)]
pub enum Message {
    /// The interrupted jobs found in the journal at start (oldest first).
    Found(Vec<JournalRecord>),
    /// The user chose for the job on offer.
    Chose(Choice),
    /// The user put the offer off until the next start.
    Later,
    /// The job was submitted (or could not be, with why).
    Submitted(Result<JobId, Arc<Error>>),
    /// An event of the window's engine about the banner's job (boxed: a finished job's
    /// event carries its whole summary, ten times the size of the other messages).
    Job(Box<jobs::Event>),
    /// The user cancelled the running job.
    Cancel,
    /// The user closed the outcome.
    Dismiss,
}

/// A button of the banner: its label, its access key (with Alt), and what it sends.
type BannerButton = (&'static str, char, Message);

/// What the window must do for the banner.
#[derive(Debug)]
pub enum Event {
    /// Record in the journal that `record` is being resumed or rolled back, then submit it.
    Start {
        /// The interrupted job.
        record: Box<JournalRecord>,
        /// What to do with it.
        choice: Choice,
    },
    /// Cancel the job.
    Cancel(JobId),
    /// Record in the journal how the resume or roll back of record `seq` ended.
    Finish {
        /// The job that ran it.
        job: JobId,
        /// The record.
        seq: u64,
        /// What was done with it.
        choice: Choice,
        /// How the job ended.
        summary: Box<Summary>,
        /// It was cancelled.
        cancelled: bool,
    },
}

/// The banner's state.
#[derive(Debug, Default)]
pub struct Recovery {
    /// Interrupted jobs not offered yet.
    waiting: VecDeque<JournalRecord>,
    state: State,
}

#[derive(Debug, Default)]
enum State {
    #[default]
    Hidden,
    Offer(Box<JournalRecord>),
    Starting(Run),
    Running(Run, JobId, Option<Progress>),
    Ended(String),
}

/// A resume or roll back under way.
#[derive(Debug)]
struct Run {
    seq: u64,
    choice: Choice,
    /// "the move of a and 3 more -> /b".
    job: String,
    /// "Resuming the move of a and 3 more -> /b".
    what: String,
}

impl Run {
    fn new(record: &JournalRecord, choice: Choice) -> Run {
        let job = format!("the {} of {}", record.kind(), record.describe());
        let verb = match choice {
            Choice::Resume => "Resuming",
            Choice::RollBack => "Rolling back",
        };
        Run {
            seq: record.seq,
            choice,
            what: format!("{verb} {job}"),
            job,
        }
    }
}

impl Recovery {
    /// What the resume or roll back under way is ("Resuming the move of a -> /b"), for the
    /// dialogs that ask about its items.
    pub fn running_title(&self) -> Option<&str> {
        match &self.state {
            State::Starting(run) | State::Running(run, ..) => Some(&run.what),
            _ => None,
        }
    }

    /// True when the banner shows something.
    pub fn is_shown(&self) -> bool {
        !matches!(self.state, State::Hidden)
    }

    /// Handles a message; returns what the window must do, if anything.
    pub fn update(&mut self, message: Message, _ctx: &Ctx<'_>) -> (Task<Message>, Option<Event>) {
        (Task::none(), self.react(message))
    }

    fn react(&mut self, message: Message) -> Option<Event> {
        match message {
            Message::Found(records) => {
                self.waiting.extend(records);
                if !self.is_shown() {
                    self.offer_next();
                }
                None
            }
            Message::Chose(choice) => {
                let State::Offer(record) = std::mem::take(&mut self.state) else {
                    return None;
                };
                self.state = State::Starting(Run::new(&record, choice));
                Some(Event::Start { record, choice })
            }
            Message::Later if matches!(self.state, State::Offer(_)) => {
                self.offer_next();
                None
            }
            Message::Submitted(submitted) => {
                if let State::Starting(run) = std::mem::take(&mut self.state) {
                    self.state = match submitted {
                        Ok(job) => State::Running(run, job, None),
                        Err(why) => State::Ended(format!("{} failed: {why}", run.what)),
                    };
                }
                None
            }
            Message::Job(event) => self.on_event(*event),
            Message::Cancel => match self.state {
                State::Running(_, job, _) => Some(Event::Cancel(job)),
                _ => None,
            },
            Message::Dismiss if matches!(self.state, State::Ended(_)) => {
                self.offer_next();
                None
            }
            Message::Later | Message::Dismiss => None,
        }
    }

    /// Follows the running job; events of other jobs are not the banner's.
    fn on_event(&mut self, event: jobs::Event) -> Option<Event> {
        let State::Running(_, id, progress) = &mut self.state else {
            return None;
        };
        match event {
            jobs::Event::Progress { job, progress: p } if job == *id => {
                *progress = Some(p);
                None
            }
            jobs::Event::Finished { job, summary } if job == *id => Some(self.end(summary, false)),
            jobs::Event::Cancelled { job, summary } if job == *id => Some(self.end(summary, true)),
            _ => None,
        }
    }

    fn offer_next(&mut self) {
        self.state = match self.waiting.pop_front() {
            Some(record) => State::Offer(Box::new(record)),
            None => State::Hidden,
        };
    }

    fn end(&mut self, summary: Summary, cancelled: bool) -> Event {
        let State::Running(run, job, _) = std::mem::take(&mut self.state) else {
            unreachable!("only a running job ends");
        };
        self.state = State::Ended(outcome(&run, &summary, cancelled));
        Event::Finish {
            job,
            seq: run.seq,
            choice: run.choice,
            summary: Box::new(summary),
            cancelled,
        }
    }

    /// The banner's buttons from the keyboard: Alt and the letter each shows beside its label
    /// ("Resume Alt+R"), as a KDE message bar's accelerators; the keys go nowhere else
    /// meanwhile.
    pub fn access_key(
        &self,
        key: &iced::keyboard::Key,
        modifiers: iced::keyboard::Modifiers,
    ) -> Option<Message> {
        if !modifiers.alt() || modifiers.command() || modifiers.shift() {
            return None;
        }
        let iced::keyboard::Key::Character(c) = key else {
            return None;
        };
        let (_, buttons) = self.line_and_buttons()?;
        buttons
            .into_iter()
            .find(|(_, access, _)| c.eq_ignore_ascii_case(&access.to_string()))
            .map(|(_, _, message)| message)
    }

    /// The banner, or nothing.
    pub fn view(&self) -> Option<Element<'_, Message>> {
        let (line, buttons) = self.line_and_buttons()?;
        let has_buttons = !buttons.is_empty();
        // The buttons go below the words, right-aligned, as KDE's message widget sets them
        // when words wrap: beside them, a narrow window left the words a column one word
        // wide, the banner taller than the window.
        let mut bar = row![space::horizontal()]
            .spacing(8)
            .align_y(Alignment::Center);
        for (label, access, message) in buttons {
            let hint = text(format!("Alt+{access}"))
                .size(11)
                .style(style::dim_text);
            bar = bar.push(
                button(
                    row![text(label).size(13), hint]
                        .spacing(6)
                        .align_y(Alignment::Center),
                )
                .padding([4, 12])
                .style(style::tool_button)
                .on_press(message),
            );
        }
        let mut banner = column![text(line).size(13).width(Fill)].spacing(4);
        if has_buttons {
            banner = banner.push(bar);
        }
        Some(
            container(container(banner).padding([6, 12]).style(style::notice))
                .padding(Padding::from([8, 12]).bottom(0))
                .into(),
        )
    }

    /// What the banner says, and its buttons with their access keys; `None` when hidden.
    fn line_and_buttons(&self) -> Option<(String, Vec<BannerButton>)> {
        Some(match &self.state {
            State::Hidden => return None,
            State::Offer(record) => {
                let more = match self.waiting.len() {
                    0 => String::new(),
                    n => format!(" ({n} more after this one)"),
                };
                let line = format!(
                    "Ferry stopped in the middle of a {}: {}. Nothing was lost: each file is \
                     whole where it was or where it was going.{more}",
                    record.kind(),
                    record.describe()
                );
                let buttons = vec![
                    ("Resume", 'R', Message::Chose(Choice::Resume)),
                    ("Roll back", 'B', Message::Chose(Choice::RollBack)),
                    ("Not now", 'N', Message::Later),
                ];
                (line, buttons)
            }
            State::Starting(run) => (format!("{}…", run.what), Vec::new()),
            State::Running(run, _, progress) => {
                let done = progress.as_ref().map_or(String::new(), |p| {
                    format!(
                        ": {} of {}",
                        format::count(p.items_done as usize),
                        format::counted(p.items_total as usize, "item", "items")
                    )
                });
                (
                    format!("{}{done}", run.what),
                    vec![("Cancel", 'C', Message::Cancel)],
                )
            }
            State::Ended(text) => (text.clone(), vec![("Close", 'C', Message::Dismiss)]),
        })
    }
}

/// "Resumed the move of …." or what stopped it or was left, first ones named.
fn outcome(run: &Run, summary: &Summary, cancelled: bool) -> String {
    let verb = match run.choice {
        Choice::Resume => "Resumed",
        Choice::RollBack => "Rolled back",
    };
    if cancelled {
        return format!("{} cancelled: what was done stays done.", run.what);
    }
    let mut text = format!("{verb} {}", run.job);
    let first = |count: usize, what: &str, path: Option<(&Path, String)>| {
        path.map(|(path, why)| {
            format!(
                "{} {what} ({}: {why})",
                format::count(count),
                path.display()
            )
        })
    };
    let skipped = summary
        .skipped
        .first()
        .map(|s| (s.path.as_path(), s.reason.to_string()));
    let failed = summary
        .failed
        .first()
        .map(|f| (f.path.as_path(), f.error.to_string()));
    let left: Vec<String> = [
        first(summary.skipped.len(), "skipped", skipped),
        first(summary.failed.len(), "failed", failed),
    ]
    .into_iter()
    .flatten()
    .collect();
    if !left.is_empty() {
        text += &format!(", except: {}", left.join(", "));
    }
    text.push('.');
    text
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use ferry_core::jobs::{ConflictPolicy, Event as JobEvent, Job, Phase, UndoJournal};
    use iced_test::simulator;

    use super::*;
    use crate::gui::screen::browser::Dirs;

    /// The banner never lists folders.
    struct NoDirs;

    impl Dirs for NoDirs {
        fn open(&self, _: u64, _: PathBuf, _: ferry_core::sort::SortSpec) -> u64 {
            unreachable!()
        }
        fn resort(&self, _: u64, _: ferry_core::sort::SortSpec) {
            unreachable!()
        }
        fn refresh(&self, _: u64) {
            unreachable!()
        }
        fn close(&self, _: u64) {
            unreachable!()
        }
    }

    fn update(recovery: &mut Recovery, message: Message) -> Option<Event> {
        let settings = crate::gui::settings::Settings::default();
        let ctx = Ctx {
            dirs: &NoDirs,
            modifiers: iced::keyboard::Modifiers::empty(),
            home: None,
            settings: &settings,
        };
        recovery.update(message, &ctx).1
    }

    /// Journal records of moves of `count` items from `/src` into `dest`.
    fn moves(dest: &[&str]) -> Vec<JournalRecord> {
        let dir = tempfile::tempdir().unwrap();
        let journal = UndoJournal::at(dir.path().join("journal.jsonl"));
        for d in dest {
            let job = Job::Move {
                sources: vec![PathBuf::from("/src/a"), PathBuf::from("/src/b")],
                dest_dir: PathBuf::from(d),
                dest_name: None,
                on_conflict: ConflictPolicy::Skip,
            };
            journal.begin(&job).unwrap();
        }
        journal.records().unwrap()
    }

    fn clicked(recovery: &mut Recovery, label: &str) -> Option<Event> {
        let mut ui = simulator(recovery.view().expect("a banner"));
        ui.click(label).unwrap();
        let messages: Vec<Message> = ui.into_messages().collect();
        let mut effect = None;
        for m in messages {
            effect = update(recovery, m).or(effect);
        }
        effect
    }

    fn shows(recovery: &Recovery, line: &str) -> bool {
        simulator(recovery.view().expect("a banner"))
            .find(line)
            .is_ok()
    }

    fn progress(done: u64, total: u64) -> Progress {
        Progress {
            phase: Phase::Copying,
            bytes_done: 0,
            bytes_total: 0,
            items_done: done,
            items_total: total,
            current: None,
            speed: 0.0,
            eta: None,
            share_done: None,
            paused: false,
        }
    }

    #[test]
    fn resume_follows_the_job_and_records_how_it_ended() {
        let mut recovery = Recovery::default();
        assert!(recovery.view().is_none());
        let _ = update(&mut recovery, Message::Found(moves(&["/dest"])));
        assert!(shows(
            &recovery,
            "Ferry stopped in the middle of a move: /src/a and 1 more -> /dest. Nothing was \
             lost: each file is whole where it was or where it was going."
        ));

        let Some(Event::Start { record, choice }) = clicked(&mut recovery, "Resume") else {
            panic!("no start");
        };
        assert_eq!((record.seq, choice), (1, Choice::Resume));
        assert!(shows(
            &recovery,
            "Resuming the move of /src/a and 1 more -> /dest…"
        ));
        let _ = update(&mut recovery, Message::Submitted(Ok(JobId(9))));
        let _ = update(
            &mut recovery,
            Message::Job(Box::new(JobEvent::Progress {
                job: JobId(9),
                progress: progress(1, 2),
            })),
        );
        // Another job's events are not the banner's.
        let _ = update(
            &mut recovery,
            Message::Job(Box::new(JobEvent::Progress {
                job: JobId(4),
                progress: progress(7, 8),
            })),
        );
        assert!(shows(
            &recovery,
            "Resuming the move of /src/a and 1 more -> /dest: 1 of 2 items"
        ));
        assert!(matches!(
            clicked(&mut recovery, "Cancel"),
            Some(Event::Cancel(JobId(9)))
        ));

        let summary = Summary::default();
        let ended = update(
            &mut recovery,
            Message::Job(Box::new(JobEvent::Finished {
                job: JobId(9),
                summary,
            })),
        );
        assert!(matches!(
            ended,
            Some(Event::Finish {
                seq: 1,
                choice: Choice::Resume,
                cancelled: false,
                ..
            })
        ));
        assert!(shows(
            &recovery,
            "Resumed the move of /src/a and 1 more -> /dest."
        ));
        assert!(clicked(&mut recovery, "Close").is_none());
        assert!(recovery.view().is_none());
    }

    #[test]
    fn jobs_are_offered_one_at_a_time_and_a_failed_start_says_why() {
        let mut recovery = Recovery::default();
        let _ = update(&mut recovery, Message::Found(moves(&["/one", "/two"])));
        assert!(shows(
            &recovery,
            "Ferry stopped in the middle of a move: /src/a and 1 more -> /one. Nothing was \
             lost: each file is whole where it was or where it was going. (1 more after this one)"
        ));
        assert!(clicked(&mut recovery, "Not now").is_none());
        let Some(Event::Start { record, choice }) = clicked(&mut recovery, "Roll back") else {
            panic!("no start");
        };
        assert_eq!((record.seq, choice), (2, Choice::RollBack));
        let _ = update(
            &mut recovery,
            Message::Submitted(Err(Arc::new(Error::NotADirectory {
                path: PathBuf::from("/trash"),
            }))),
        );
        assert!(shows(
            &recovery,
            "Rolling back the move of /src/a and 1 more -> /two failed: /trash is not a folder"
        ));
        let _ = clicked(&mut recovery, "Close");
        assert!(recovery.view().is_none());
    }

    #[test]
    fn a_roll_back_names_what_it_left_and_a_cancel_says_so() {
        let mut recovery = Recovery::default();
        let _ = update(&mut recovery, Message::Found(moves(&["/dest", "/dest2"])));
        let _ = clicked(&mut recovery, "Roll back");
        let _ = update(&mut recovery, Message::Submitted(Ok(JobId(2))));
        let summary = Summary {
            skipped: vec![ferry_core::jobs::Skipped {
                path: PathBuf::from("/src/a"),
                reason: ferry_core::jobs::SkipReason::Exists,
            }],
            ..Summary::default()
        };
        let _ = update(
            &mut recovery,
            Message::Job(Box::new(JobEvent::Finished {
                job: JobId(2),
                summary,
            })),
        );
        assert!(shows(
            &recovery,
            "Rolled back the move of /src/a and 1 more -> /dest, except: 1 skipped (/src/a: \
             already exists at the destination)."
        ));
        // Closing the outcome offers the next job.
        let _ = clicked(&mut recovery, "Close");
        let _ = clicked(&mut recovery, "Resume");
        let _ = update(&mut recovery, Message::Submitted(Ok(JobId(3))));
        let ended = update(
            &mut recovery,
            Message::Job(Box::new(JobEvent::Cancelled {
                job: JobId(3),
                summary: Summary::default(),
            })),
        );
        assert!(matches!(
            ended,
            Some(Event::Finish {
                seq: 2,
                cancelled: true,
                ..
            })
        ));
        assert!(shows(
            &recovery,
            "Resuming the move of /src/a and 1 more -> /dest2 cancelled: what was done stays done."
        ));
    }

    /// Every button of the banner is reached with Alt and its letter, the keyboard's way to
    /// the offer; other keys, and Alt with Ctrl, are left to the window.
    #[test]
    fn the_banners_buttons_answer_their_access_keys() {
        use iced::keyboard::{Key, Modifiers};
        let key = |c: &str| Key::Character(c.into());
        let mut recovery = Recovery::default();
        assert!(
            recovery.access_key(&key("r"), Modifiers::ALT).is_none(),
            "hidden"
        );
        let _ = update(&mut recovery, Message::Found(moves(&["/dest"])));
        assert!(matches!(
            recovery.access_key(&key("r"), Modifiers::ALT),
            Some(Message::Chose(Choice::Resume))
        ));
        assert!(matches!(
            recovery.access_key(&key("b"), Modifiers::ALT),
            Some(Message::Chose(Choice::RollBack))
        ));
        assert!(matches!(
            recovery.access_key(&key("n"), Modifiers::ALT),
            Some(Message::Later)
        ));
        assert!(recovery.access_key(&key("r"), Modifiers::empty()).is_none());
        assert!(
            recovery
                .access_key(&key("r"), Modifiers::ALT | Modifiers::CTRL)
                .is_none()
        );
        assert!(recovery.access_key(&key("x"), Modifiers::ALT).is_none());
    }
}
