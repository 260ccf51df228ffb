//! Conflicts of the window's jobs: a dialog per job with conflicts waiting, the first job's
//! shown over the window (its title names the job), the others queued. Answers go to the
//! engine as they are given, so the rest of a job goes on meanwhile; a job that ends takes
//! its dialog with it.

use ferry_core::jobs::{Conflict, Job, JobId, Scope};
use iced::Task;
use iced::keyboard::{Key, Modifiers};

use super::modal::conflict::{self, ConflictDialog};
use super::{Ferry, Message};

impl Ferry {
    /// The engine sent conflicts of `job`: they join its dialog, or open one.
    pub(super) fn conflicts_arrived(
        &mut self,
        job: JobId,
        conflicts: Vec<Conflict>,
    ) -> Task<Message> {
        let title = self
            .jobs
            .window_job(job)
            .map_or_else(String::new, |w| w.title.clone());
        self.conflicts_titled(job, title, conflicts)
    }

    /// Conflicts of `job`, which `title` names.
    pub(super) fn conflicts_titled(
        &mut self,
        job: JobId,
        title: String,
        conflicts: Vec<Conflict>,
    ) -> Task<Message> {
        self.jobs.conflicts_asked(job, &conflicts);
        let conflicts = self.answered_by_rule(job, conflicts);
        if conflicts.is_empty() {
            return Task::none();
        }
        if let Some(dialog) = self.conflicts.iter_mut().find(|d| d.job() == job) {
            let task = dialog.add(conflicts);
            self.jobs.set_waiting_answers(job, dialog.waiting());
            return task.map(move |m| Message::Conflict(job, m));
        }
        let dest_dir = self.jobs.window_job(job).and_then(|w| dest_dir(&w.job));
        let (mut dialog, task) = ConflictDialog::new(job, title, dest_dir, conflicts);
        if let Some(window) = self.jobs.window_job(job) {
            dialog.set_done(window.items_done());
            match &*window.job {
                Job::Undo { .. } => dialog.set_undoing(),
                Job::Restore { items, .. } => dialog.set_origins(
                    (items.iter())
                        .map(|i| (i.file.clone(), (i.trashed_from.clone(), i.original.clone())))
                        .collect(),
                ),
                _ => {}
            }
        }
        self.jobs.set_waiting_answers(job, dialog.waiting());
        self.conflicts.push(dialog);
        task.map(move |m| Message::Conflict(job, m))
    }

    /// Answers the `conflicts` of `job` that the rule its table applied to all answers (those
    /// inside the folders it merged); returns the others, to ask.
    fn answered_by_rule(&mut self, job: JobId, conflicts: Vec<Conflict>) -> Vec<Conflict> {
        let Some(rule) = self.jobs.window_job(job).and_then(|w| w.answers.rule) else {
            return conflicts;
        };
        let mut answers = Vec::new();
        let mut asked = Vec::new();
        for c in conflicts {
            match rule.answer_to(&c) {
                Some(answer) => answers.push((c.id, answer, Scope::This)),
                None => asked.push(c),
            }
        }
        if !answers.is_empty() {
            self.jobs.resolve(job, &answers);
        }
        asked
    }

    /// A message of `job`'s conflict dialog.
    pub(super) fn conflict_message(
        &mut self,
        job: JobId,
        message: conflict::Message,
    ) -> Task<Message> {
        let ctx = self.services.ctx();
        let Some(dialog) = self.conflicts.iter_mut().find(|d| d.job() == job) else {
            return Task::none();
        };
        let (task, event) = dialog.update(message, &ctx);
        let task = task.map(move |m| Message::Conflict(job, m));
        let waiting = dialog.waiting();
        let rule = dialog.standing_rule();
        match event {
            Some(conflict::Event::Resolve { job, answers }) => {
                self.jobs.resolve(job, &answers);
                self.jobs.set_waiting_answers(job, waiting);
                self.jobs.keep_rule(job, rule);
            }
            Some(conflict::Event::CancelJob(job)) => {
                self.jobs.cancel(job);
                self.close_conflicts(job);
            }
            Some(conflict::Event::Done) => self.close_conflicts(job),
            None => {}
        }
        task
    }

    /// `job` made progress: its dialog knows how much is done (cancelling then asks).
    pub(super) fn conflicts_progress(&mut self, job: JobId) {
        let done = self
            .jobs
            .window_job(job)
            .map(super::jobs::WindowJob::items_done);
        if let (Some(done), Some(dialog)) =
            (done, self.conflicts.iter_mut().find(|d| d.job() == job))
        {
            dialog.set_done(done);
        }
    }

    /// `job` ended, or its conflicts are all answered: its dialog goes.
    pub(super) fn close_conflicts(&mut self, job: JobId) {
        self.conflicts.retain(|d| d.job() != job);
        self.jobs.set_waiting_answers(job, 0);
    }

    /// Keys while a conflict dialog is shown: every key no widget took goes to it (its
    /// rename field takes its own).
    pub(super) fn conflict_key(
        &mut self,
        key: &Key,
        modifiers: Modifiers,
        captured: bool,
    ) -> Option<Task<Message>> {
        let dialog = self.conflicts.first_mut()?;
        if captured {
            return Some(Task::none());
        }
        let job = dialog.job();
        Some(match dialog.key(key, modifiers) {
            Some(message) => self.conflict_message(job, message),
            None => Task::none(),
        })
    }

    /// The first job's dialog over `base`.
    pub(super) fn conflict_overlay<'a>(
        &'a self,
        base: iced::Element<'a, Message>,
    ) -> iced::Element<'a, Message> {
        match self.conflicts.first() {
            Some(dialog) => {
                let job = dialog.job();
                let card = dialog.view().map(move |m| Message::Conflict(job, m));
                conflict::overlay(base, card)
            }
            None => crate::gui::widget::unlayered(base),
        }
    }
}

/// Where a job puts its items (names are checked against that folder's rules).
fn dest_dir(job: &Job) -> Option<std::path::PathBuf> {
    match job {
        Job::Copy { dest_dir, .. } | Job::Move { dest_dir, .. } | Job::Link { dest_dir, .. } => {
            Some(dest_dir.clone())
        }
        // Restore to…, or items trashed from one folder: they all go into it.
        Job::Restore { items, .. } => {
            let mut parents = items.iter().map(|i| i.original.parent());
            let first = parents.next()??;
            parents
                .all(|p| p == Some(first))
                .then(|| first.to_path_buf())
        }
        _ => None,
    }
}
