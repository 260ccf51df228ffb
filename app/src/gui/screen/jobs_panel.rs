//! The jobs panel: every running and recent job of the window, what it is in words, a
//! progress bar, bytes and items done of total, speed, time left, the phase, Pause/Resume
//! and Cancel; a finished job's summary with each failed item's reason and Retry failed.
//! Closed, it leaves one compact line at the bottom of the window (running count, overall
//! percent). It opens by itself when a job runs longer than a second.
//!
//! The panel holds only what it shows open or expanded; the jobs themselves are the
//! window's ([`WindowJob`]), read at view time.

use std::collections::HashSet;
use std::time::Duration;

use ferry_core::jobs::{JobId, Phase};
use iced::widget::{Column, button, column, container, progress_bar, row, rule, scrollable, text};
use iced::{Alignment, Element, Fill, Task};

use super::Ctx;
use crate::gui::format;
use crate::gui::jobs::{State, WindowJob, done_message};
use crate::gui::style;

/// A job running longer than this opens the panel by itself.
pub const OPEN_AFTER: Duration = Duration::from_secs(1);
/// Failed items listed under a finished job before "and N more".
const FAILURES_SHOWN: usize = 5;

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
    /// Forget the ended jobs.
    Clear,
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
    /// Jobs that opened the panel by themselves already (so closing it sticks).
    opened_for: HashSet<JobId>,
    /// Ended jobs whose failed items are listed.
    expanded: HashSet<JobId>,
}

impl JobsPanel {
    /// True while the panel is open.
    pub fn is_open(&self) -> bool {
        self.open
    }

    /// A job is still running past [`OPEN_AFTER`]: open, once per job.
    pub fn long_job(&mut self, job: JobId) {
        if self.opened_for.insert(job) {
            self.open = true;
        }
    }

    /// Handles one message.
    pub fn update(&mut self, message: Message, _ctx: &Ctx<'_>) -> (Task<Message>, Option<Event>) {
        let event = match message {
            Message::Toggle => {
                self.open = !self.open;
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
                Some(Event::Dismiss(job))
            }
            Message::Clear => {
                self.expanded.clear();
                Some(Event::Clear)
            }
        };
        (Task::none(), event)
    }

    /// The compact line ("2 jobs running · 45%"), and the panel above it when open; nothing
    /// when the window has no jobs.
    pub fn view<'a>(&'a self, jobs: &[&'a WindowJob]) -> Option<Element<'a, Message>> {
        if jobs.is_empty() {
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
            list = list.push(self.job(job));
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
            scrollable(list).height(iced::Length::Shrink),
        ];
        Some(
            column![
                rule::horizontal(1).style(style::separator),
                container(panel)
                    .max_height(320)
                    .width(Fill)
                    .style(style::list),
                rule::horizontal(1).style(style::separator),
                line
            ]
            .into(),
        )
    }

    fn job<'a>(&'a self, job: &'a WindowJob) -> Element<'a, Message> {
        let title = text(job.title.as_str()).size(13).font(style::bold());
        match &job.state {
            State::Ended { summary, cancelled } => {
                let mut lines = column![
                    row![
                        title.width(Fill),
                        small_button("✕", Some(Message::Dismiss(job.id)))
                            .width(iced::Length::Shrink)
                    ]
                    .align_y(Alignment::Center),
                    text(done_message(&job.job, summary, *cancelled))
                        .size(12)
                        .style(style::dim_text),
                ]
                .spacing(4);
                if !summary.failed.is_empty() {
                    let shown = self.expanded.contains(&job.id);
                    lines = lines.push(
                        row![
                            small_button(
                                if shown {
                                    "Hide failures"
                                } else {
                                    "Show failures"
                                },
                                Some(Message::Details(job.id))
                            ),
                            small_button("Retry failed", Some(Message::Retry(job.id))),
                        ]
                        .spacing(6),
                    );
                    if shown {
                        for failed in summary.failed.iter().take(FAILURES_SHOWN) {
                            lines = lines.push(
                                text(format!("{}: {}", failed.path.display(), failed.error))
                                    .size(12)
                                    .style(style::danger_text),
                            );
                        }
                        let more = summary.failed.len().saturating_sub(FAILURES_SHOWN);
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
                        title.width(Fill),
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

fn small_button(label: &str, message: Option<Message>) -> button::Button<'_, Message> {
    button(text(label).size(12))
        .padding([2, 8])
        .style(style::tool_button)
        .on_press_maybe(message)
}

/// How far `job` is (0..=1) and the line under its bar: "1.2 GB of 3.4 GB · 2,345 of 5,000
/// items · 45.0 MB/s · 2 min left · Copying".
fn progress_line(job: &WindowJob) -> (f32, String) {
    let Some(p) = &job.progress else {
        let line = match job.state {
            State::Waiting => "Waiting for the jobs before it on the same disks".to_owned(),
            _ => "Planning…".to_owned(),
        };
        return (0.0, line);
    };
    let mut parts = Vec::new();
    if p.bytes_total > 0 {
        parts.push(format!(
            "{} of {}",
            format::size(p.bytes_done),
            format::size(p.bytes_total)
        ));
    }
    if p.items_total > 0 {
        parts.push(format!(
            "{} of {} items",
            format::count(usize::try_from(p.items_done).unwrap_or(usize::MAX)),
            format::count(usize::try_from(p.items_total).unwrap_or(usize::MAX))
        ));
    }
    if p.paused {
        parts.push("paused".to_owned());
    } else {
        if p.speed > 0.0 && p.bytes_total > 0 {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // a speed
            parts.push(format!("{}/s", format::size(p.speed as u64)));
        }
        if let Some(eta) = p.eta {
            parts.push(format!("{} left", duration(eta)));
        }
    }
    if job.waiting_answers > 0 {
        parts.push(format!(
            "waiting for {}",
            format::counted(job.waiting_answers, "answer", "answers")
        ));
    }
    parts.push(
        match p.phase {
            Phase::Planning => "Planning",
            Phase::Copying => "Copying",
            Phase::FinishingWrites => "Finishing writes",
            Phase::Deleting => "Deleting",
        }
        .to_owned(),
    );
    (
        fraction(p.bytes_done, p.bytes_total, p.items_done, p.items_total),
        parts.join(" · "),
    )
}

/// Done over total, by bytes when there are any, else by items.
#[allow(clippy::cast_precision_loss)] // a fraction for a bar
fn fraction(bytes: u64, bytes_total: u64, items: u64, items_total: u64) -> f32 {
    if bytes_total > 0 {
        (bytes as f64 / bytes_total as f64) as f32
    } else if items_total > 0 {
        (items as f64 / items_total as f64) as f32
    } else {
        0.0
    }
}

/// "2 jobs running · 45%", or what the last one did.
fn compact(jobs: &[&WindowJob]) -> String {
    let running: Vec<&&WindowJob> = jobs.iter().filter(|j| j.is_running()).collect();
    if running.is_empty() {
        return jobs
            .last()
            .map_or_else(String::new, |job| match &job.state {
                State::Ended { summary, cancelled } => done_message(&job.job, summary, *cancelled),
                _ => String::new(),
            });
    }
    let (mut done, mut total) = (0.0_f64, 0.0_f64);
    for job in &running {
        // While planning, the items counted are those found, not done.
        if let Some(p) = job.progress.as_ref().filter(|p| p.phase != Phase::Planning) {
            #[allow(clippy::cast_precision_loss)] // a percentage
            let (d, t) = if p.bytes_total > 0 {
                (p.bytes_done as f64, p.bytes_total as f64)
            } else {
                (p.items_done as f64, p.items_total.max(1) as f64)
            };
            done += d / t;
        }
        total += 1.0;
    }
    let percent = (100.0 * done / total).round();
    match running.as_slice() {
        [one] => format!("{} · {percent}%", one.title),
        many => format!("{} jobs running · {percent}%", format::count(many.len())),
    }
}

/// "2 min", "45 s", "1 h 5 min".
fn duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min", s.div_ceil(60)),
        _ => format!("{} h {} min", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_fractions_read_well() {
        assert_eq!(duration(Duration::from_secs(45)), "45 s");
        assert_eq!(duration(Duration::from_secs(61)), "2 min");
        assert_eq!(duration(Duration::from_secs(3900)), "1 h 5 min");
        assert!((fraction(50, 100, 0, 0) - 0.5).abs() < 1e-6);
        assert!((fraction(0, 0, 1, 4) - 0.25).abs() < 1e-6);
        assert_eq!(fraction(0, 0, 0, 0), 0.0);
    }
}
