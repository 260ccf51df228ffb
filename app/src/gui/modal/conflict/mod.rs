//! The conflict dialog of one job: one conflict asked in words, or every conflict of a batch
//! in one table while the rest of the job goes on.
//!
//! The window keeps one [`ConflictDialog`] per job with waiting conflicts (a queue, each
//! naming its job). The dialog holds the conflicts the core sent (`Event::Conflicts` of
//! `ferry_core::jobs`), lets the user answer them, and hands the answers back as
//! [`Event::Resolve`]; the window passes them to `Engine::resolve`. It never talks to the
//! engine and never reads the disk in `update` or `view`: the destination's name rules, a
//! free name to suggest and whether a typed name is taken are found on a worker thread
//! (through the [`bridge`](crate::gui::bridge)) and come back as messages.
//!
//! - One conflict ([`single`]): both sides, the question, every answer with what it will do,
//!   Rename with a checked name, "apply to all of this kind"; what it reads from the disk, on
//!   a worker thread, is in [`checks`].
//! - Two or more ([`table`]): a windowed table (only the visible rows are built) with an
//!   answer per row, bulk rules that fill the undecided rows, a kind filter and sorting;
//!   Apply sends the decided rows, the others keep waiting. Conflicts that arrive later
//!   join it ([`ConflictDialog::add`]); a lone conflict turns into the table when a second
//!   one comes.
//! - The keyboard ([`keys`]): the window passes key presses to [`ConflictDialog::key`].
//!
//! What the window does with it: on `Event::Conflicts { job, conflicts }`, `add` them to
//! the job's dialog or open one with [`ConflictDialog::new`] (running the task it returns,
//! mapped into the window's message); on the job's progress, [`ConflictDialog::set_done`];
//! in `view`, [`overlay`] the front dialog's [`view`](ConflictDialog::view) on the window;
//! while it is open, pass every key press no widget took to [`ConflictDialog::key`] and feed
//! the message to [`update`](ConflictDialog::update); act on the [`Event`]s; drop the dialog
//! when its job ends.

mod checks;
mod keys;
mod look;
mod rows;
mod single;
mod table;
#[cfg(test)]
mod tests;
mod words;

pub mod bench;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use ferry_core::jobs::{Conflict, ConflictId, JobId, Resolution, Scope};
use iced::widget::{center, container, opaque, stack};
use iced::{Element, Length, Task};

use crate::gui::format;
use crate::gui::screen::Ctx;
use crate::gui::style;
use crate::gui::widget::list::Scroll;
use crate::gui::widget::mnemonic::hold_alt_keys;

pub use checks::Probe;
pub use keys::Control;
pub use rows::{Filter, Rule, SortKey};
pub use single::NameState;

use rows::Rows;
use single::Single;

/// An answer of the one-conflict dialog; also what an access letter answers in a table row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Act {
    /// Put the incoming item in place of the existing one.
    Replace,
    /// Replace when the incoming item is newer ("Overwrite older").
    ReplaceIfNewer,
    /// Leave the existing item alone.
    Skip,
    /// Give the incoming item a free name beside the existing one.
    KeepBoth,
    /// Write a folder into the existing one.
    Merge,
    /// Give the incoming item the name typed.
    Rename,
}

impl Act {
    /// Its access letter (Alt+letter).
    pub fn letter(self) -> char {
        match self {
            Act::Replace => 'r',
            Act::ReplaceIfNewer => 'n',
            Act::Skip => 's',
            Act::KeepBoth => 'k',
            Act::Merge => 'm',
            Act::Rename => 'e',
        }
    }

    /// The answer it sends (Rename's needs the name).
    fn resolution(self) -> Option<Resolution> {
        match self {
            Act::Replace => Some(Resolution::Replace),
            Act::ReplaceIfNewer => Some(Resolution::ReplaceIfNewer),
            Act::Skip => Some(Resolution::Skip),
            Act::KeepBoth => Some(Resolution::KeepBoth),
            Act::Merge => Some(Resolution::Merge),
            Act::Rename => None,
        }
    }
}

/// What the dialog takes: its widgets' messages, the key function's, and the results of its
/// worker-thread checks.
#[derive(Debug, Clone)]
pub enum Message {
    /// An answer of the one-conflict dialog was chosen.
    Answered(Act),
    /// "Apply to all of this kind" was ticked or unticked.
    ApplyAllToggled(bool),
    /// The name in the Rename field changed.
    RenameEdited(String),
    /// Rename with the name in the field (Enter in the field, or the Rename button).
    RenameSubmitted,
    /// Whether a typed name can be given, found on a worker thread.
    NameChecked(checks::Checked),
    /// The destination's rules and the names to suggest, found on a worker thread.
    Probed(checks::Probed),
    /// Back from one conflict to the table.
    Back,
    /// A row's answer was chosen (or cleared).
    RowAnswered(ConflictId, Option<Resolution>),
    /// A row was clicked: it becomes the keyboard's row.
    RowPicked(ConflictId),
    /// Rename… of a row: that conflict alone, with its name field.
    RowRename(ConflictId),
    /// A bulk rule was applied.
    RuleApplied(Rule),
    /// The kind filter was changed.
    FilterChosen(Filter),
    /// A column header was clicked.
    SortChosen(SortKey),
    /// The table was scrolled.
    Scrolled {
        /// Distance from the top of the rows to the top of the viewport.
        offset_y: f32,
        /// Height of the viewport.
        viewport_h: f32,
    },
    /// The table's scrollbar asks to scroll there.
    ScrollTo(f32),
    /// Send every decided row.
    Apply,
    /// Go through the undecided rows one at a time.
    OneByOne,
    /// Cancel the job (asks first when items are done).
    CancelJob,
    /// The confirmation was answered: go on with the job.
    KeepGoing,
    /// The confirmation was answered: cancel the job.
    ConfirmCancel,
    /// Escape.
    Escape,
    /// Enter (or Space): the control with the keyboard does its thing.
    Activate,
    /// Tab (true) or Shift+Tab (false).
    FocusMoved(bool),
    /// The keyboard goes to this control (Alt+E: the Rename field).
    Focus(Control),
    /// An access letter of an answer (the one-conflict dialog, or the table's row).
    Shortcut(Act),
    /// The keyboard's row moves.
    RowMoved(crate::gui::shortcut::Step),
    /// Nothing waits any more.
    Emptied,
}

/// What the window must act on.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Pass each answer to `Engine::resolve(job, id, resolution, scope)`.
    Resolve {
        /// The job.
        job: JobId,
        /// The answers.
        answers: Vec<(ConflictId, Resolution, Scope)>,
    },
    /// Cancel the job (the user confirmed when items were done); close the dialog.
    CancelJob(JobId),
    /// Nothing is left to answer: close the dialog.
    Done,
}

/// Which view shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// One conflict alone when only one waits, the table otherwise.
    Auto,
    /// One conflict chosen from the table; `stepping` goes on to the next undecided one.
    One { id: ConflictId, stepping: bool },
}

/// The conflict dialog of one job.
#[derive(Debug)]
pub struct ConflictDialog {
    job: JobId,
    title: String,
    dest_dir: Option<PathBuf>,
    done: u64,
    rows: Rows,
    mode: Mode,
    single: Option<Single>,
    /// The last conflict shown alone, while the table shows.
    set_aside: Option<Single>,
    scroll: Scroll,
    /// The table's keyboard row.
    cursor: Option<ConflictId>,
    focus: Option<Control>,
    confirming: bool,
    /// Names given by Rename answers sent, not on disk yet.
    claimed: HashSet<PathBuf>,
    /// The job is an undo: what Replace replaces goes to the trash (see `set_undoing`).
    undoing: bool,
    /// A restore's items in the trash, each with where it was trashed from and where it goes
    /// back (see `set_origins`).
    origins: HashMap<PathBuf, (PathBuf, PathBuf)>,
    /// The rule last applied in the table: once every row is answered, it answers the
    /// conflicts found later inside the folders it merged ([`standing_rule`](Self::standing_rule)).
    rule: Option<Rule>,
}

impl ConflictDialog {
    /// The dialog of `job` (shown as `title`, e.g. "Copying 12 items to “Backup”") for the
    /// conflicts of its first [`Event::Conflicts`](ferry_core::jobs::Event::Conflicts).
    /// `dest_dir` is the folder the job writes into, if it has one (two sources of one name
    /// are checked there). The task finds the destination's rules for the lone conflict.
    pub fn new(
        job: JobId,
        title: impl Into<String>,
        dest_dir: Option<PathBuf>,
        conflicts: Vec<Conflict>,
    ) -> (Self, Task<Message>) {
        let mut dialog = ConflictDialog {
            job,
            title: title.into(),
            dest_dir,
            done: 0,
            rows: Rows::new(conflicts),
            mode: Mode::Auto,
            single: None,
            set_aside: None,
            scroll: Scroll::default(),
            cursor: None,
            focus: None,
            confirming: false,
            claimed: HashSet::new(),
            undoing: false,
            origins: HashMap::new(),
            rule: None,
        };
        let task = dialog.settle();
        let in_view = dialog.focus_in_view();
        (dialog, Task::batch([task, in_view]))
    }

    /// Conflicts of the same job that arrived later: they join the table (a lone conflict
    /// becomes a table).
    pub fn add(&mut self, conflicts: Vec<Conflict>) -> Task<Message> {
        self.rows.add(conflicts);
        self.settle()
    }

    /// The rule that answers the job's conflicts found from now on: the one applied in the
    /// table, once every conflict is answered. Replace all or Newer wins merges folders, and
    /// each level inside them was asked again, a table or a dialog per folder.
    pub fn standing_rule(&self) -> Option<Rule> {
        self.rule.filter(|_| self.is_empty())
    }

    /// How many items the job has done so far (Cancel asks first when some are).
    pub fn set_done(&mut self, items: u64) {
        self.done = items;
    }

    /// The job is an undo: no undo brings back what it replaces, so the engine puts that in
    /// the trash, and Replace says so.
    pub fn set_undoing(&mut self) {
        self.undoing = true;
    }

    /// The job restores items from the trash: `origins` maps each one's path in the trash
    /// to where it was trashed from and where it goes back (another place for Restore to…),
    /// so that items of one name say which they are ("Trash, from “a”"), not all "Trash",
    /// and where they go.
    pub fn set_origins(&mut self, origins: HashMap<PathBuf, (PathBuf, PathBuf)>) {
        self.origins = origins;
    }

    /// Where `path` is, as a side of a conflict says it: "in “Documents”", or for an item in
    /// the trash that the job restores, "in Trash, from “a”" (the folder it was trashed
    /// from: items of one name said "in Trash" alike).
    fn place_of(&self, path: &Path) -> String {
        match self.origins.get(path).and_then(|(from, _)| from.parent()) {
            Some(from) => format!("in Trash, from “{}”", format::display_name(from)),
            None => format!("in “{}”", words::folder_of(path)),
        }
    }

    /// Where the incoming item at `path` comes from, for a row of items of one name: "from
    /// Documents", or "in Trash, from “a”".
    fn source_place(&self, path: &Path) -> String {
        if self.origins.contains_key(path) {
            self.place_of(path)
        } else {
            format!("from {}", words::folder_of(path))
        }
    }

    /// The job whose conflicts these are.
    pub fn job(&self) -> JobId {
        self.job
    }

    /// How many conflicts wait for an answer here (the jobs panel's "waiting for 37 answers").
    pub fn waiting(&self) -> usize {
        self.rows.len()
    }

    /// Whether nothing is left to answer.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Whether the table shows (two or more conflicts, or one reached from the table).
    pub fn is_table(&self) -> bool {
        self.single.is_none()
    }

    /// Handles one message.
    pub fn update(&mut self, message: Message, _ctx: &Ctx<'_>) -> (Task<Message>, Option<Event>) {
        let before = (self.single.as_ref().map(|s| s.id), self.focused());
        let (task, event) = self.handle(message);
        let settled = self.settle();
        let now = (self.single.as_ref().map(|s| s.id), self.focused());
        let in_view = if now == before {
            Task::none()
        } else {
            self.focus_in_view()
        };
        (Task::batch([task, settled, in_view]), event)
    }

    /// Scrolls the lone conflict's card (it scrolls in a short window) to what has the
    /// keyboard, at its place among the controls below the card's heading (which is about
    /// [`HEADING_CONTROLS`] of them high): Tab and the suggested answer were below the
    /// window's edge, where Enter acted on an answer out of sight.
    fn focus_in_view(&self) -> Task<Message> {
        let Some(single) = &self.single else {
            return Task::none();
        };
        let controls = self.controls();
        let Some(at) = controls.iter().position(|&c| c == self.focused()) else {
            return Task::none();
        };
        let place =
            (at as f32 + HEADING_CONTROLS) / (controls.len() as f32 - 1.0 + HEADING_CONTROLS);
        iced::widget::operation::snap_to(
            single_scroll_id(single.id),
            iced::widget::operation::RelativeOffset {
                x: None,
                y: Some(place),
            },
        )
    }

    fn handle(&mut self, message: Message) -> (Task<Message>, Option<Event>) {
        let none = (Task::none(), None);
        match message {
            Message::Answered(act) => return self.answer(act),
            Message::Shortcut(act) if self.single.is_some() => return self.answer(act),
            Message::Shortcut(act) => {
                if let (Some(id), Some(answer)) = (self.cursor, act.resolution()) {
                    // As in a spreadsheet, the keyboard goes on to the next row.
                    if self.rows.decide(id, Some(answer)) {
                        return (self.move_cursor(crate::gui::shortcut::Step::Down), None);
                    }
                } else if let (Some(id), Act::Rename) = (self.cursor, act) {
                    return self.handle(Message::RowRename(id));
                }
            }
            Message::ApplyAllToggled(on) => {
                if let Some(single) = &mut self.single {
                    single.apply_all = on;
                }
            }
            Message::RenameEdited(name) => {
                self.focus = Some(Control::RenameField);
                return (self.edit_name(name), None);
            }
            Message::RenameSubmitted => return self.answer(Act::Rename),
            Message::NameChecked(checked) => return self.name_checked(checked),
            Message::Probed(probed) => {
                if let Some(single) = &mut self.single {
                    single.probed(probed);
                }
            }
            Message::Back => {
                self.mode = Mode::Auto;
                self.focus = None;
            }
            Message::RowAnswered(id, answer) => {
                self.rows.decide(id, answer);
                self.cursor = Some(id);
            }
            Message::RowPicked(id) => self.cursor = Some(id),
            Message::RowRename(id) => {
                self.mode = Mode::One {
                    id,
                    stepping: false,
                };
                self.focus = Some(Control::RenameField);
            }
            Message::RuleApplied(rule) => {
                self.rows.apply_rule(rule);
                self.rule = Some(rule);
            }
            Message::FilterChosen(filter) => {
                self.rows.set_filter(filter);
                // The keyboard's row stays if it is still shown, else goes to the first.
                let shown = self.cursor.and_then(|id| self.rows.shown_position(id));
                self.cursor = match shown {
                    Some(_) => self.cursor,
                    None => (self.rows.shown() > 0).then(|| self.rows.shown_row(0).conflict.id),
                };
                self.scroll.offset_y = 0.0;
                let top = self.scroll_to(0.0);
                return (Task::batch([top, self.reveal_cursor()]), None);
            }
            Message::SortChosen(key) => {
                self.rows.sort_by(key);
                return (self.reveal_cursor(), None);
            }
            Message::Scrolled {
                offset_y,
                viewport_h,
            } => {
                self.scroll = Scroll {
                    offset_y,
                    viewport_h,
                };
            }
            Message::ScrollTo(offset_y) => return (self.scroll_to(offset_y), None),
            Message::Apply => return self.apply(),
            Message::OneByOne => {
                if let Some(id) = self.rows.first_undecided() {
                    self.mode = Mode::One { id, stepping: true };
                }
            }
            Message::CancelJob if self.done > 0 && !self.confirming => {
                self.confirming = true;
                self.focus = None;
            }
            Message::CancelJob | Message::ConfirmCancel => {
                return (Task::none(), Some(Event::CancelJob(self.job)));
            }
            Message::KeepGoing => {
                self.confirming = false;
                self.focus = None;
            }
            Message::Escape if self.confirming => return self.handle(Message::KeepGoing),
            Message::Escape => return self.handle(Message::CancelJob),
            Message::Activate => {
                let control = self.focused();
                return self.handle(keys::activate(self, control));
            }
            Message::FocusMoved(forward) => return (self.move_focus(forward), None),
            Message::Focus(control) => {
                let before = self.focused();
                self.focus = Some(control);
                return (keys::focus_task(self, Some(before)), None);
            }
            Message::RowMoved(step) => return (self.move_cursor(step), None),
            Message::Emptied => return (Task::none(), self.is_empty().then_some(Event::Done)),
        }
        none
    }

    /// Sends the lone conflict's answer `act` (Rename checks the name first).
    fn answer(&mut self, act: Act) -> (Task<Message>, Option<Event>) {
        let Some(single) = &self.single else {
            return (Task::none(), None);
        };
        let Some(row) = self.rows.get(single.id) else {
            return (Task::none(), None);
        };
        let kind = row.conflict.kind;
        if !single::offered(kind).contains(&act) {
            return (Task::none(), None);
        }
        let Some(resolution) = act.resolution() else {
            return self.submit_name();
        };
        let id = single.id;
        let scope = if single.apply_all {
            Scope::AllOfKind
        } else {
            Scope::This
        };
        let mut answers = Vec::new();
        match scope {
            // The rows answered in the table keep their answers: sent first, they are no
            // longer waiting when the engine gives this answer to the rest of the kind. They
            // were dropped, and the engine gave them this one.
            Scope::AllOfKind => {
                let decided = self.rows.take_decided().into_iter();
                answers.extend(
                    decided
                        .filter(|(decided, _)| *decided != id)
                        .map(|(id, answer)| (id, answer, Scope::This)),
                );
                self.rows.remove_kind(kind);
            }
            Scope::This => self.remove_row(id),
        }
        answers.push((id, resolution, scope));
        (self.after_answer(), Some(self.resolve(answers)))
    }

    fn resolve(&self, answers: Vec<(ConflictId, Resolution, Scope)>) -> Event {
        Event::Resolve {
            job: self.job,
            answers,
        }
    }

    /// Takes the answered row `id` out of the table; the keyboard's row, if it was that one,
    /// goes on to the row after it, as a table answer does (it went back to the first row).
    fn remove_row(&mut self, id: ConflictId) {
        let at = (self.cursor == Some(id))
            .then(|| self.rows.shown_position(id))
            .flatten();
        self.rows.remove(id);
        if let Some(at) = at
            && let Some(last) = self.rows.shown().checked_sub(1)
        {
            self.cursor = Some(self.rows.shown_row(at.min(last)).conflict.id);
        }
    }

    /// After the lone conflict was answered: the next undecided one when going one by one,
    /// else the table (or the last conflict alone); nothing left closes the dialog.
    fn after_answer(&mut self) -> Task<Message> {
        if let Mode::One { stepping: true, .. } = self.mode
            && let Some(id) = self.rows.first_undecided()
        {
            self.mode = Mode::One { id, stepping: true };
        } else {
            self.mode = Mode::Auto;
        }
        self.focus = None;
        self.confirming = false;
        self.emptied()
    }

    fn emptied(&self) -> Task<Message> {
        if self.is_empty() {
            Task::done(Message::Emptied)
        } else {
            Task::none()
        }
    }

    /// Sends every decided row; the undecided ones stay.
    fn apply(&mut self) -> (Task<Message>, Option<Event>) {
        let answers: Vec<_> = self
            .rows
            .take_decided()
            .into_iter()
            .map(|(id, answer)| (id, answer, Scope::This))
            .collect();
        if answers.is_empty() {
            return (Task::none(), None);
        }
        let event = self.resolve(answers);
        (self.emptied(), Some(event))
    }

    /// Brings the shown state in line with the rows: which conflict shows alone (with the
    /// checks it needs started), where the table's keyboard row is.
    fn settle(&mut self) -> Task<Message> {
        let alone = match self.mode {
            Mode::One { id, .. } if self.rows.get(id).is_some() => Some(id),
            Mode::One { .. } | Mode::Auto => {
                self.mode = Mode::Auto;
                match self.rows.len() {
                    1 => self.rows.first().map(|r| r.conflict.id),
                    _ => None,
                }
            }
        };
        let mut task = Task::none();
        if self.single.as_ref().map(|s| s.id) != alone {
            // Kept aside: a name being typed survives the table opening over it.
            if let Some(old) = self.single.take()
                && self.rows.get(old.id).is_some()
            {
                self.set_aside = Some(old);
            }
            let kept = self.set_aside.take_if(|s| Some(s.id) == alone);
            if let Some(row) = alone.and_then(|id| self.rows.get(id)) {
                let probe = match kept {
                    Some(single) => {
                        self.single = Some(single);
                        Task::none()
                    }
                    None => {
                        let (single, probe) = Single::new(row, self.folder_of(&row.conflict));
                        self.single = Some(single);
                        probe
                    }
                };
                task = Task::batch([probe, keys::focus_task(self, None)]);
            }
        }
        if self.single.is_none() && self.cursor.is_none_or(|id| self.rows.get(id).is_none()) {
            self.cursor = (self.rows.shown() > 0).then(|| self.rows.shown_row(0).conflict.id);
        }
        task
    }

    /// The folder the item of `conflict` goes into, if known: for two items of one name
    /// restored from the trash, where they go back, not the trash they are in.
    fn folder_of(&self, conflict: &Conflict) -> Option<PathBuf> {
        match conflict.kind {
            ferry_core::jobs::ConflictKind::DuplicateSource => {
                self.dest_dir.clone().or_else(|| {
                    let (_, to) = self.origins.get(&conflict.source.path)?;
                    to.parent().map(Path::to_path_buf)
                })
            }
            _ => conflict.dest.path.parent().map(Path::to_path_buf),
        }
    }

    /// The dialog's card, for [`overlay`].
    pub fn view(&self) -> Element<'_, Message> {
        let (content, width, height) = match (&self.single, self.single_row()) {
            // Until the window closes it on Done.
            _ if self.is_empty() => (
                iced::widget::text("Every conflict of this job is answered.")
                    .size(14)
                    .into(),
                480.0,
                Length::Shrink,
            ),
            // Scrolls in a short window (800 x 500): its last answers and Cancel job were out
            // of reach of the mouse.
            (Some(single), Some(row)) => (
                iced::widget::scrollable(single::view(self, single, row))
                    .id(single_scroll_id(single.id))
                    .direction(iced::widget::scrollable::Direction::Vertical(
                        iced::widget::scrollable::Scrollbar::new().spacing(8),
                    ))
                    .into(),
                680.0,
                Length::Shrink,
            ),
            _ => (table::view(self), 1040.0, Length::Fill),
        };
        let card = container(content)
            .padding(20)
            .max_width(width)
            .height(height)
            .max_height(760)
            .style(look::card);
        hold_alt_keys(card)
    }

    fn single_row(&self) -> Option<&rows::Row> {
        self.rows.get(self.single.as_ref()?.id)
    }
}

/// The height of a lone conflict's heading and the two items compared, in answers.
const HEADING_CONTROLS: f32 = 1.5;

/// The id of the lone conflict's scrolling card.
fn single_scroll_id(conflict: ConflictId) -> iced::widget::Id {
    iced::widget::Id::from(format!("ferry-conflict-single-{}", conflict.0))
}

/// `base` with the dialog's `card` over it: the backdrop dims the window and takes every
/// press (a conflict is never dismissed by a stray click; Cancel job is a choice).
pub fn overlay<'a, Message: 'a>(
    base: Element<'a, Message>,
    card: Element<'a, Message>,
) -> Element<'a, Message> {
    let backdrop = center(opaque(card))
        .padding(24)
        .width(Length::Fill)
        .height(Length::Fill)
        .style(style::backdrop);
    stack![base, opaque(backdrop)].into()
}
