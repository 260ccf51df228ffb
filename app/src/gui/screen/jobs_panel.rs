//! The jobs panel: every running and recent job of the window, what it is in words, a
//! progress bar, bytes and items done of total, speed, time left, the phase, Pause/Resume
//! and Cancel; a finished job's summary with each failed item's reason and Retry failed.
//! Closed, it leaves one compact line at the bottom of the window (running count, overall
//! percent). It opens by itself when a job runs longer than a second.
//!
//! The panel holds only what it shows open or expanded; the jobs themselves are the
//! window's ([`WindowJob`]), read at view time.
//!
//! From the keyboard (Ctrl+J puts the keyboard in the panel, opening it): Up and Down choose
//! a job, Space pauses or resumes it, Delete cancels it (or forgets an ended one), Enter
//! shows an ended job's failures, R retries them (or the rest of a job an error stopped),
//! Escape or Tab gives the keyboard back.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use ferry_core::jobs::{JobId, Phase, Summary};
use iced::keyboard::key::Named;
use iced::keyboard::{Key, Modifiers};
use iced::widget::operation::{self, RelativeOffset};
use iced::widget::{
    Column, Id, button, column, container, progress_bar, row, rule, scrollable, text,
};
use iced::{Alignment, Element, Fill, Task};

use super::Ctx;
use crate::gui::format;
use crate::gui::jobs::{State, WindowJob};
use crate::gui::{style, words};

/// A job running longer than this opens the panel by itself.
pub const OPEN_AFTER: Duration = Duration::from_secs(1);
/// Failed items listed under a finished job before "and N more".
const FAILURES_SHOWN: usize = 5;

/// How long the jobs line at the bottom stays once every job has ended (the panel closed): it
/// went on saying what the last job did, across folders, until the jobs were cleared.
/// Ctrl+Shift+J or the menu's Show Jobs still shows them all.
pub const LINE_LINGERS: Duration = Duration::from_secs(10);
/// The scrollable list of jobs.
const LIST: &str = "jobs-panel-list";

/// Input of the panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Message {
    /// Open or close the panel (the compact line, the status button).
    Toggle,
    /// Pause a job.
    Pause(JobId),
    /// Resume a paused job.
    Resume(JobId),
    /// Cancel a job.
    Cancel(JobId),
    /// Run the failed items of an ended job again.
    Retry(JobId),
    /// Show or hide an ended job's failed items.
    Details(JobId),
    /// Forget an ended job.
    Dismiss(JobId),
    /// Forget the ended job with the keyboard (Delete), which goes to `next`, the row that
    /// takes its place (none: the panel is left with no job).
    DismissFocused {
        /// The job forgotten.
        job: JobId,
        /// Where the keyboard goes.
        next: Option<JobId>,
    },
    /// Forget the ended jobs.
    Clear,
    /// Put the keyboard on this job (opening the panel).
    Focus(JobId),
    /// Give the keyboard back to the panes.
    LeaveFocus,
}

/// What the window must do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// Pause this job.
    Pause(JobId),
    /// Resume this job.
    Resume(JobId),
    /// Cancel this job.
    Cancel(JobId),
    /// Run this ended job's failed items again.
    Retry(JobId),
    /// Forget this ended job.
    Dismiss(JobId),
    /// Forget the ended jobs.
    Clear,
}

/// The panel's state.
#[derive(Debug, Default)]
pub struct JobsPanel {
    open: bool,
    /// It is open because a long job opened it, and the user has not touched it since: it
    /// closes by itself once every job has ended well.
    by_itself: bool,
    /// Jobs that opened the panel by themselves already (so closing it sticks).
    opened_for: HashSet<JobId>,
    /// Ended jobs whose failed items are listed.
    expanded: HashSet<JobId>,
    /// The job the keyboard is on, while the panel has the keyboard.
    focus: Option<JobId>,
    /// Until when the jobs line stays after the last job's end ([`LINE_LINGERS`]).
    line_until: Option<Instant>,
}

/// The jobs panel's keys (Ctrl+J gives it the keyboard), for the Keyboard Shortcuts dialog
/// (each is checked against [`JobsPanel::key`] by a test).
pub const KEYS: &[(&str, &str)] = &[
    ("Next or previous job", "↓, ↑"),
    ("Newest or oldest job", "Home, End"),
    ("Pause or resume the job", "Space"),
    ("Cancel the job, or clear an ended one", "Delete"),
    ("What failed, of an ended job", "Enter"),
    ("Retry what failed or was not reached", "R"),
    ("Back to the folder", "Escape, Tab"),
];

impl JobsPanel {
    /// True while the panel is open.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// A job ended at `now`: the jobs line says so for [`LINE_LINGERS`].
    pub fn job_ended(&mut self, now: Instant) {
        self.line_until = Some(now + LINE_LINGERS);
    }

    /// True while the jobs line waits to go: the window ticks until it has.
    pub fn line_lingers(&self) -> bool {
        self.line_until.is_some_and(|until| Instant::now() < until)
    }

    /// Gives the keyboard back to the panes.
    pub fn leave_focus(&mut self) {
        self.focus = None;
    }

    /// True while the keyboard is in the panel.
    pub fn has_focus(&self) -> bool {
        self.focus.is_some()
    }

    /// What a key does while the panel has the keyboard (see the module's docs); `jobs` in
    /// the window's order, as [`view`](Self::view) takes them. `None`: not the panel's key.
    pub fn key(&self, key: &Key, modifiers: Modifiers, jobs: &[&WindowJob]) -> Option<Message> {
        if modifiers.command() || modifiers.alt() {
            return None;
        }
        // Shown newest first.
        let shown: Vec<&WindowJob> = jobs.iter().rev().copied().collect();
        // The job with the keyboard is gone (dismissed, cleared): the first key shows where
        // it is now, acting on nothing. Delete acted on the top job, never highlighted.
        let Some(at) = shown.iter().position(|j| Some(j.id) == self.focus) else {
            return match key.as_ref() {
                Key::Named(Named::Escape | Named::Tab) => Some(Message::LeaveFocus),
                _ => shown.first().map(|j| Message::Focus(j.id)),
            };
        };
        let job = &shown[at];
        let ended = match &job.state {
            State::Ended { summary, .. } => Some(&**summary),
            _ => None,
        };
        let failed = ended.is_some_and(|s| s.errors().next().is_some());
        match key.as_ref() {
            Key::Named(Named::ArrowDown) => {
                Some(Message::Focus(shown.get(at + 1).unwrap_or(job).id))
            }
            Key::Named(Named::ArrowUp) => Some(Message::Focus(shown[at.saturating_sub(1)].id)),
            Key::Named(Named::Home | Named::PageUp) => Some(Message::Focus(shown[0].id)),
            Key::Named(Named::End | Named::PageDown) => {
                Some(Message::Focus(shown[shown.len() - 1].id))
            }
            Key::Named(Named::Space) if job.is_running() && job.is_paused() => {
                Some(Message::Resume(job.id))
            }
            Key::Named(Named::Space) if job.is_running() => Some(Message::Pause(job.id)),
            Key::Named(Named::Delete) if job.is_running() => Some(Message::Cancel(job.id)),
            Key::Named(Named::Delete) => {
                let next = shown
                    .get(at + 1)
                    .or(at.checked_sub(1).and_then(|a| shown.get(a)));
                Some(Message::DismissFocused {
                    job: job.id,
                    next: next.map(|j| j.id),
                })
            }
            Key::Named(Named::Enter) if failed => Some(Message::Details(job.id)),
            // R is the Retry button's key: a stopped job's too, which has no failures.
            Key::Character(c) if c.eq_ignore_ascii_case("r") => ended
                .is_some_and(offers_retry)
                .then_some(Message::Retry(job.id)),
            Key::Named(Named::Escape | Named::Tab) => Some(Message::LeaveFocus),
            _ => None,
        }
    }

    /// Scrolls the list to the job with the keyboard, at its place among `jobs` (in the
    /// window's order, shown newest first): rows are about one height, so that the row at
    /// place `k` of `n` is in view at `k / (n - 1)` of the scrolling range.
    pub fn keep_focus_in_view<T>(&self, jobs: &[&WindowJob]) -> Task<T> {
        let Some(focus) = self.focus else {
            return Task::none();
        };
        let Some(at) = jobs.iter().rev().position(|j| j.id == focus) else {
            return Task::none();
        };
        let place = at as f32 / (jobs.len().max(2) - 1) as f32;
        operation::snap_to(
            Id::new(LIST),
            RelativeOffset {
                x: None,
                y: Some(place),
            },
        )
    }

    /// A job is still running past [`OPEN_AFTER`]: open, once per job.
    pub fn long_job(&mut self, job: JobId) {
        if self.opened_for.insert(job) && !self.open {
            self.open = true;
            self.by_itself = true;
        }
    }

    /// Every job has ended; `well`: none failed, stopped or was cancelled. A panel that
    /// opened by itself closes then (it stayed, taking 40% of the window, after every job
    /// was done); the jobs line at the bottom still says what they did for a while.
    pub fn all_ended(&mut self, well: bool) {
        if self.by_itself && well {
            self.open = false;
            self.focus = None;
        }
        self.by_itself = false;
    }

    /// Handles one message.
    pub fn update(&mut self, message: Message, _ctx: &Ctx<'_>) -> (Task<Message>, Option<Event>) {
        let event = match message {
            Message::Toggle => {
                self.open = !self.open;
                self.by_itself = false;
                if !self.open {
                    self.focus = None;
                }
                None
            }
            Message::Focus(job) => {
                self.open = true;
                self.by_itself = false;
                self.focus = Some(job);
                None
            }
            Message::LeaveFocus => {
                self.focus = None;
                None
            }
            Message::Pause(job) => Some(Event::Pause(job)),
            Message::Resume(job) => Some(Event::Resume(job)),
            Message::Cancel(job) => Some(Event::Cancel(job)),
            Message::Retry(job) => Some(Event::Retry(job)),
            Message::Details(job) => {
                if !self.expanded.remove(&job) {
                    self.expanded.insert(job);
                }
                None
            }
            Message::Dismiss(job) => {
                self.expanded.remove(&job);
                // The job with the keyboard gone (by its ✕), the panes have it again.
                if self.focus == Some(job) {
                    self.focus = None;
                }
                Some(Event::Dismiss(job))
            }
            Message::DismissFocused { job, next } => {
                self.expanded.remove(&job);
                self.focus = next;
                Some(Event::Dismiss(job))
            }
            Message::Clear => {
                self.expanded.clear();
                self.focus = None;
                Some(Event::Clear)
            }
        };
        (Task::none(), event)
    }

    /// The compact line ("2 jobs running · 45%"), and the panel above it when open, in a
    /// window `window_height` high; nothing when the window has no jobs.
    pub fn view<'a>(
        &'a self,
        jobs: &[&'a WindowJob],
        window_height: f32,
    ) -> Option<Element<'a, Message>> {
        let line_gone = self.line_until.is_some_and(|until| Instant::now() >= until);
        if jobs.is_empty() || (!self.open && line_gone && !jobs.iter().any(|j| j.is_running())) {
            return None;
        }
        let line = container(
            row![
                text(compact(jobs)).size(13).width(Fill),
                button(text(if self.open { "Hide jobs" } else { "Show jobs" }).size(13))
                    .padding([3, 10])
                    .style(style::tool_button)
                    .on_press(Message::Toggle),
            ]
            .align_y(Alignment::Center),
        )
        .padding([4, 12])
        .width(Fill)
        .style(style::chrome);
        if !self.open {
            return Some(column![rule::horizontal(1).style(style::separator), line].into());
        }
        let mut list = Column::new().spacing(10).padding([10, 14]);
        for job in jobs.iter().rev() {
            let focused = self.focus == Some(job.id);
            list = list.push(
                container(self.job(job))
                    .padding([4, 6])
                    .style(style::row(false, false, focused)),
            );
        }
        let ended = jobs.iter().any(|j| !j.is_running());
        let clear = button(text("Clear finished").size(12))
            .padding([3, 10])
            .style(style::tool_button)
            .on_press_maybe(ended.then_some(Message::Clear));
        let panel = column![
            row![text("Jobs").size(14).font(style::bold()).width(Fill), clear]
                .align_y(Alignment::Center)
                .padding([6, 14]),
            scrollable(list)
                .id(Id::new(LIST))
                .height(iced::Length::Shrink),
        ];
        Some(
            column![
                rule::horizontal(1).style(style::separator),
                container(panel)
                    .max_height(panel_height(window_height))
                    .width(Fill)
                    .style(style::list),
                rule::horizontal(1).style(style::separator),
                line
            ]
            .into(),
        )
    }

    fn job<'a>(&'a self, job: &'a WindowJob) -> Element<'a, Message> {
        let title = |words: &'a str| text(words).size(13).font(style::bold());
        match &job.state {
            State::Ended {
                summary,
                said,
                cancelled,
                took,
            } => {
                // What it did is the title now: "Moving 40,000 files…" was no longer true.
                let mut lines = column![
                    row![
                        title(said).width(Fill),
                        small_button("✕", Some(Message::Dismiss(job.id)))
                            .width(iced::Length::Shrink)
                    ]
                    .align_y(Alignment::Center),
                    text(ended_after(*cancelled, summary.stopped_by.is_some(), *took))
                        .size(12)
                        .style(style::dim_text),
                ]
                .spacing(4);
                // Items skipped after an error are among them: the cause is still there, and
                // Retry failed is the way back once it is fixed. An undo's decisions about
                // items changed or gone since are listed, not retried: retried, the undo
                // said the items it had undone had failed.
                // Nor are refusals only another choice changes (a folder into itself): the
                // button is not there, rather than there and greyed.
                // A job stopped before it got to all it was given (no space, a disk gone) is
                // retried for the rest once the cause is fixed, failures or not: it read
                // "Finished", with no way to go on.
                let errors = summary.errors().count();
                if errors > 0 || stopped_part_way(summary) {
                    let shown = self.expanded.contains(&job.id);
                    let label = if shown {
                        "Hide failures"
                    } else {
                        "Show failures"
                    };
                    let mut buttons = row![];
                    if errors > 0 {
                        buttons = buttons.push(small_button(label, Some(Message::Details(job.id))));
                    }
                    if offers_retry(summary) {
                        let retry = if errors > 0 { "Retry failed" } else { "Retry" };
                        buttons = buttons.push(small_button(retry, Some(Message::Retry(job.id))));
                    }
                    lines = lines.push(buttons.spacing(6));
                    if shown {
                        for (path, error) in summary.errors().take(FAILURES_SHOWN) {
                            lines = lines.push(
                                text(format!(
                                    "{}: {}",
                                    format::shown_name(path.as_os_str()),
                                    words::error_in_words(error)
                                ))
                                .size(12)
                                .style(style::danger_text),
                            );
                        }
                        let more = errors.saturating_sub(FAILURES_SHOWN);
                        if more > 0 {
                            lines = lines.push(
                                text(format!("… and {} more", format::count(more)))
                                    .size(12)
                                    .style(style::dim_text),
                            );
                        }
                    }
                }
                lines.into()
            }
            State::Waiting | State::Running => {
                let (fraction, line) = progress_line(job);
                let pause = if job.is_paused() {
                    small_button("Resume", Some(Message::Resume(job.id)))
                } else {
                    small_button("Pause", Some(Message::Pause(job.id)))
                };
                column![
                    row![
                        title(&job.title).width(Fill),
                        pause,
                        small_button("Cancel", Some(Message::Cancel(job.id)))
                    ]
                    .spacing(6)
                    .align_y(Alignment::Center),
                    progress_bar(0.0..=1.0, fraction).girth(6),
                    text(line).size(12).style(style::dim_text),
                ]
                .spacing(4)
                .into()
            }
        }
    }
}

/// The open panel's height at most: 320 px, less in a small window, so that the folder keeps
/// most of it (at 640 x 480 the panel left the list one row); always one job's row.
fn panel_height(window_height: f32) -> f32 {
    (window_height * 0.35).clamp(110.0, 320.0)
}

fn small_button(label: &str, message: Option<Message>) -> button::Button<'_, Message> {
    button(text(label).size(12))
        .padding([2, 8])
        .style(style::tool_button)
        .on_press_maybe(message)
}

/// Below this average size a job's speed is given in items a second.
const SMALL_FILE: u64 = 64 << 10;

/// How far `job` is (0..=1) and the line under its bar: "1.2 GB of 3.4 GB · 2,345 of 5,000
/// items · 45.0 MB/s · 2 min left · Copying".
fn progress_line(job: &WindowJob) -> (f32, String) {
    let Some(p) = &job.progress else {
        let line = match job.state {
            State::Waiting if job.is_paused() => {
                "Paused; waiting for the jobs before it on the same disks".to_owned()
            }
            State::Waiting => "Waiting for the jobs before it on the same disks".to_owned(),
            _ => "Planning…".to_owned(),
        };
        return (0.0, line);
    };
    // Conflicts and failed items alike.
    let waiting = job.waiting_answers + job.questions;
    let mut parts = Vec::new();
    if p.bytes_total > 0 {
        parts.push(format!(
            "{} of {}",
            format::size(p.bytes_done),
            format::size(p.bytes_total)
        ));
    }
    if p.items_total > 0 {
        let total = usize::try_from(p.items_total).unwrap_or(usize::MAX);
        parts.push(format!(
            "{} of {}",
            format::count(usize::try_from(p.items_done).unwrap_or(usize::MAX)),
            format::counted(total, "item", "items")
        ));
    }
    if !p.paused {
        // Small files go by the thousand a second while the bytes crawl: count those.
        let small_files = p.items_total > 0 && p.bytes_total / p.items_total < SMALL_FILE;
        let secs = job.started.elapsed().as_secs_f64();
        if small_files && secs >= 1.0 {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // a rate
            let rate = (p.items_done as f64 / secs) as usize;
            parts.push(format::counted(rate, "item/s", "items/s"));
        } else if p.speed > 0.0 && p.bytes_total > 0 {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // a speed
            parts.push(format!("{}/s", format::size(p.speed as u64)));
        }
        // While a question waits, the pace falls and the time left only grows: not said.
        if let Some(eta) = p.eta.filter(|_| waiting == 0) {
            parts.extend(time_left(eta));
        }
    }
    if waiting > 0 {
        parts.push(format!(
            "waiting for {}",
            format::counted(waiting, "answer", "answers")
        ));
    }
    // Paused, it says so first, and not what it would be doing ("paused · Copying").
    if p.paused {
        parts.insert(0, "Paused".to_owned());
        #[allow(clippy::cast_possible_truncation)] // a fraction for a bar
        return (p.fraction() as f32, parts.join(" · "));
    }
    // The engine's phase, in the job's own words: a trash or a move "Copying" was false.
    use ferry_core::jobs::Job;
    let kind = match &*job.job {
        Job::Resume { record } => &record.job,
        kind => kind,
    };
    parts.push(
        match (p.phase, kind) {
            (Phase::Planning, _) => "Planning",
            (Phase::Copying, Job::Copy { .. } | Job::Link { .. }) => "Copying",
            (Phase::Copying, Job::Trash { .. }) => "Moving to the trash",
            (Phase::Copying, Job::Restore { .. }) => "Restoring",
            (Phase::Copying, Job::Undo { .. }) => "Undoing",
            (Phase::Copying, Job::Move { .. }) => "Moving",
            (Phase::Copying, _) => "Working",
            (Phase::FinishingWrites, _) => "Finishing writes",
            (Phase::Deleting, Job::Move { .. }) => "Removing the sources",
            (Phase::Deleting, _) => "Deleting",
        }
        .to_owned(),
    );
    #[allow(clippy::cast_possible_truncation)] // a fraction for a bar
    (p.fraction() as f32, parts.join(" · "))
}

/// "2 jobs running · 45%", or what the last one did.
fn compact(jobs: &[&WindowJob]) -> String {
    let running: Vec<&&WindowJob> = jobs.iter().filter(|j| j.is_running()).collect();
    if running.is_empty() {
        return jobs
            .last()
            .map_or_else(String::new, |job| match &job.state {
                State::Ended { said, .. } => said.clone(),
                _ => String::new(),
            });
    }
    let percent = overall_percent(jobs).unwrap_or(0);
    // Not all "running": a paused job, or one waiting for the disks, said as such.
    let paused = running.iter().filter(|j| j.is_paused()).count();
    let queued = (running.iter())
        .filter(|j| matches!(j.state, State::Waiting) && !j.is_paused())
        .count();
    let aside: Vec<String> = [(paused, "paused"), (queued, "waiting")]
        .into_iter()
        .filter(|&(n, _)| n > 0)
        .map(|(n, what)| format!("{} {what}", format::count(n)))
        .collect();
    match (running.as_slice(), aside.is_empty()) {
        ([one], true) => format!("{} · {percent}%", one.title),
        ([one], false) => {
            let how = if paused > 0 { "paused" } else { "waiting" };
            format!("{} ({how}) · {percent}%", one.title)
        }
        (many, true) => format!("{} jobs running · {percent}%", format::count(many.len())),
        (many, false) => format!(
            "{} jobs ({}) · {percent}%",
            format::count(many.len()),
            aside.join(", ")
        ),
    }
}

/// How far the running `jobs` are together, in percent (each job counting as much as each
/// other); `None` when none runs. The window's title shows it too, so a copy's progress is
/// seen in the task bar, not only in the window that started it.
pub fn overall_percent(jobs: &[&WindowJob]) -> Option<u32> {
    let (mut done, mut running) = (0.0_f64, 0_u32);
    for job in jobs.iter().filter(|j| j.is_running()) {
        // While planning, the items counted are those found, not done.
        if let Some(p) = job.progress.as_ref().filter(|p| p.phase != Phase::Planning) {
            done += p.fraction();
        }
        running += 1;
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // 0..=100
    (running > 0).then(|| (100.0 * done / f64::from(running)).round() as u32)
}

/// Whether an ended job was stopped by an error (no space, a disk gone) before it got to all
/// it was given: the rest is retried once the cause is fixed, failures or not.
fn stopped_part_way(summary: &Summary) -> bool {
    summary.stopped_by.is_some() && !summary.not_done.is_empty()
}

/// Whether an ended job offers Retry (its button, and R): failures a retry may mend, or what
/// an error stopped it before.
fn offers_retry(summary: &Summary) -> bool {
    summary.retryable() || stopped_part_way(summary)
}

/// "2 min", "45 s", "1 h 5 min".
/// The line under an ended job's title: "Finished in 12 s", "Cancelled after 2 min",
/// "Stopped after 3 s" (by an error that ended it: no space, a disk gone).
fn ended_after(cancelled: bool, stopped: bool, took: Duration) -> String {
    let took = match took.as_secs() {
        0 => "less than a second".to_owned(),
        _ => duration(took),
    };
    match (cancelled, stopped) {
        (true, _) => format!("Cancelled after {took}"),
        (false, true) => format!("Stopped after {took}"),
        (false, false) => format!("Finished in {took}"),
    }
}

/// "2 s left": the time left rounded up, so that work left never reads "0 s left" (it did,
/// with 5,000 small files to go at a pace that had them done in 0.2 s, and for the last
/// fraction of any job); nothing once nothing is left.
fn time_left(eta: Duration) -> Option<String> {
    let secs = eta.as_secs() + u64::from(eta.subsec_nanos() > 0);
    (secs > 0).then(|| format!("{} left", duration(Duration::from_secs(secs))))
}

fn duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min", s.div_ceil(60)),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests;
