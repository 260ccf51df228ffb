//! What the window does with a pane's request ([`Operation`]): which job it becomes, how it
//! is followed, and what is said when it ends. Every job goes through [`Jobs`], which
//! journals it before submitting it, off the UI thread.

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ferry_core::Error;
use ferry_core::jobs::{ConflictPolicy, Job, JobId};
use iced::Task;

use super::copy_paste::Clip;
use super::jobs::{FollowUp, Routed, Started, State, Undoing, by_answers, retries};
use super::menus::Command;
use super::modal::folder_prompt::{self, FolderPrompt};
use super::modal::name_prompt::{self, NamePrompt};
use super::picker::Picked;
use super::screen::browser::Operation;
use super::screen::tabs;
use super::{Ferry, Message, format};

/// How a folder picked in a dialog is used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickedFor {
    /// Copy the items there.
    Copy,
    /// Move them there.
    Move,
    /// Make links to them there.
    Link,
}

impl PickedFor {
    /// The dialog's title for `count` items: "Copy 3 items to".
    fn title(self, count: usize) -> String {
        let items = format::counted(count, "item", "items");
        match self {
            PickedFor::Copy => format!("Copy {items} to"),
            PickedFor::Move => format!("Move {items} to"),
            PickedFor::Link => format!("Create links to {items} in"),
        }
    }

    /// The prompt's button.
    fn action(self) -> &'static str {
        match self {
            PickedFor::Copy => "Copy Here",
            PickedFor::Move => "Move Here",
            PickedFor::Link => "Link Here",
        }
    }
}

impl Ferry {
    /// Turns a pane's request into what it asks for.
    pub(super) fn operation(&mut self, operation: Operation) -> Task<Message> {
        match operation {
            Operation::Copy(paths) => self.set_clip(Clip::files(paths, false)),
            Operation::Cut(paths) => self.set_clip(Clip::files(paths, true)),
            Operation::Paste(folder) => self.paste(folder),
            Operation::Trash(paths) => self.start_trash(paths),
            Operation::Delete(paths) => self.ask_delete(paths),
            Operation::Duplicate(paths) => {
                let Some(dest_dir) = paths
                    .first()
                    .and_then(|p| p.parent())
                    .map(Path::to_path_buf)
                else {
                    return Task::none();
                };
                let job = Job::Copy {
                    sources: paths,
                    dest_dir,
                    dest_name: None,
                    on_conflict: ConflictPolicy::KeepBoth,
                };
                self.start_job(job, FollowUp::Toast)
            }
            Operation::CopyTo(paths) => self.pick_folder(paths, PickedFor::Copy),
            Operation::MoveTo(paths) => self.pick_folder(paths, PickedFor::Move),
            Operation::CopyToOtherPane(paths) => self.send_to_other_pane(paths, PickedFor::Copy),
            Operation::MoveToOtherPane(paths) => self.send_to_other_pane(paths, PickedFor::Move),
            Operation::LinkTo(paths) => self.pick_folder(paths, PickedFor::Link),
            Operation::Rename { path, new_name } => {
                self.start_job(Job::Rename { path, new_name }, FollowUp::None)
            }
            Operation::NewFolder { parent, name } => {
                let view = self.tabs.active_pane().view_id();
                let (prompt, task) = NamePrompt::new(view, parent, name);
                self.name_prompt = Some(prompt);
                task.map(Message::NamePrompt)
            }
        }
    }

    /// A message of the name prompt. A bookmark's label is written as given; a new folder's
    /// name is checked against the listing of the pane showing the folder, then the folder
    /// made (and selected once listed) or the name refused in the prompt, with why.
    pub(super) fn name_prompt_message(&mut self, message: name_prompt::Message) -> Task<Message> {
        let Some(prompt) = &mut self.name_prompt else {
            return Task::none();
        };
        let (view, parent, name) = match prompt.update(message) {
            Some(name_prompt::Event::Named { view, parent, name }) => (view, parent, name),
            Some(name_prompt::Event::Labelled { bookmark, label }) => {
                self.name_prompt = None;
                return Self::relabel_bookmark(bookmark, label);
            }
            Some(name_prompt::Event::Cancelled) => {
                self.name_prompt = None;
                return Task::none();
            }
            None => return Task::none(),
        };
        // The pane that asked, or another on the folder if it has gone elsewhere: with both
        // panes of a split on it, the other one's selection changed.
        let asked = (self.tabs.pane_mut(view)).is_some_and(|pane| pane.path() == parent);
        let pane = match asked {
            true => self.tabs.pane_mut(view),
            false => self.tabs.panes_mut().find(|pane| pane.path() == parent),
        };
        if let Some(why) = pane
            .as_ref()
            .and_then(|p| p.name_refused(&name, name.as_bytes()))
        {
            prompt.refuse(why);
            return Task::none();
        }
        self.name_prompt = None;
        let select = pane.map_or_else(Task::none, |pane| {
            let view = pane.view_id();
            (pane.select_when_listed([OsString::from(&name)]))
                .map(move |m| Message::Tabs(tabs::Message::Pane(view, m)))
        });
        let name = OsString::from(name);
        let job = self.start_job(Job::CreateFolder { parent, name }, FollowUp::None);
        Task::batch([job, select])
    }

    /// A folder was picked for Copy to… or Move to… (or the dialog was closed).
    pub(super) fn picked(
        &mut self,
        paths: Vec<PathBuf>,
        how: PickedFor,
        folder: Option<PathBuf>,
    ) -> Task<Message> {
        let Some(dest_dir) = folder else {
            return Task::none();
        };
        let job = match how {
            PickedFor::Copy => Job::Copy {
                sources: paths,
                dest_dir,
                dest_name: None,
                on_conflict: ConflictPolicy::Ask,
            },
            PickedFor::Move => return self.start_move(paths, dest_dir, FollowUp::Toast, false),
            PickedFor::Link => Job::Link {
                targets: paths,
                dest_dir,
                on_conflict: ConflictPolicy::Ask,
            },
        };
        self.start_job(job, FollowUp::Toast)
    }

    /// Copies or moves `paths` into the other pane's folder, as Dolphin's Shift+F5 and
    /// Shift+F6 do; without a split, the folder is asked for.
    fn send_to_other_pane(&mut self, paths: Vec<PathBuf>, how: PickedFor) -> Task<Message> {
        match self.tabs.inactive_pane().map(|p| p.path().to_path_buf()) {
            Some(folder) => self.picked(paths, how, Some(folder)),
            None => self.pick_folder(paths, how),
        }
    }

    /// Asks for a folder with the desktop's dialog (the XDG portal, or zenity without one;
    /// where neither can be shown, Ferry's own prompt), opened on the other pane's folder
    /// when split (the likely destination), else on the pane's own.
    fn pick_folder(&self, paths: Vec<PathBuf>, how: PickedFor) -> Task<Message> {
        let start = self.pick_start();
        super::picker::pick(how.title(paths.len()), Some(start))
            .map(move |picked| Message::FolderPicked(paths.clone(), how, picked))
    }

    fn pick_start(&self) -> PathBuf {
        self.tabs
            .inactive_pane()
            .unwrap_or_else(|| self.tabs.active_pane())
            .path()
            .to_path_buf()
    }

    /// The desktop's folder dialog ended, or could not be shown.
    pub(super) fn folder_picked(
        &mut self,
        paths: Vec<PathBuf>,
        how: PickedFor,
        picked: Picked,
    ) -> Task<Message> {
        match picked {
            Picked::Folder(folder) => self.picked(paths, how, Some(folder)),
            Picked::Cancelled => Task::none(),
            Picked::Unavailable => {
                let start = self.pick_start();
                let (prompt, task) = FolderPrompt::new(
                    (paths.clone(), how),
                    how.title(paths.len()),
                    how.action(),
                    &start,
                    self.services.home.clone(),
                );
                self.folder_prompt = Some(prompt);
                task.map(Message::FolderPrompt)
            }
        }
    }

    /// A message of the folder prompt.
    pub(super) fn folder_prompt_message(
        &mut self,
        message: folder_prompt::Message,
    ) -> Task<Message> {
        let Some(prompt) = &mut self.folder_prompt else {
            return Task::none();
        };
        let (task, event) = prompt.update(message);
        let task = task.map(Message::FolderPrompt);
        match event {
            Some(folder_prompt::Event::Chosen((paths, how), folder)) => {
                self.folder_prompt = None;
                Task::batch([task, self.picked(paths, how, Some(folder))])
            }
            Some(folder_prompt::Event::Cancelled) => {
                self.folder_prompt = None;
                task
            }
            None => task,
        }
    }

    /// Journals and submits `job`, followed as `follow_up` says.
    pub(super) fn start_job(&self, job: Job, follow_up: FollowUp) -> Task<Message> {
        self.jobs.submit(job, follow_up).map(Message::JobStarted)
    }

    /// A job was submitted: follow it, and hear what it said before.
    pub(super) fn job_started(&mut self, started: Result<Started, Arc<Error>>) -> Task<Message> {
        match started {
            Ok(started) => {
                let early = self.jobs.started(started);
                Task::batch(early.into_iter().map(|e| self.update(Message::Job(e))))
            }
            Err(e) => {
                self.toast(format!("Could not start the job: {e}"));
                Task::none()
            }
        }
    }

    /// Ctrl+Z / Ctrl+Shift+Z.
    pub(super) fn undo(&mut self, redo: bool) -> Task<Message> {
        if self.refuse_undo_while_one_runs() {
            return Task::none();
        }
        self.jobs
            .undo(redo)
            .map(move |undoing| Message::Undid(redo, undoing))
    }

    /// Undoes (`redo`: redoes) the job of journal record `seq`, and no other.
    pub(super) fn undo_record(&mut self, seq: u64, redo: bool) -> Task<Message> {
        if self.refuse_undo_while_one_runs() {
            return Task::none();
        }
        self.submit_undo_record(seq, redo)
    }

    fn submit_undo_record(&self, seq: u64, redo: bool) -> Task<Message> {
        self.jobs
            .undo_record(seq, redo)
            .map(move |undoing| Message::Undid(redo, undoing))
    }

    /// An undo, a redo or a resume of the window's holds the journal until it ends: an undo
    /// asked now waited for it unseen, then undid the job before (a second Ctrl+Z sent
    /// 40,000 more files to the trash). Refused, as Dolphin greys Undo out meanwhile; true
    /// if so. Otherwise the undo is noted as asked.
    fn refuse_undo_while_one_runs(&mut self) -> bool {
        if self.undo_asked || self.jobs.holds_journal() {
            self.toast("An undo or redo is under way: wait for it to end.".to_owned());
            return true;
        }
        self.undo_asked = true;
        false
    }

    /// An undo (or a redo, `redo`) was submitted, or there was nothing to do.
    pub(super) fn undid(
        &mut self,
        redo: bool,
        undoing: Result<Undoing, Arc<Error>>,
    ) -> Task<Message> {
        self.undo_asked = false;
        let what = if redo { "redo" } else { "undo" };
        match undoing {
            // Its end says what it did ("Undid: Move “a.txt” to “Music”."); the jobs panel
            // shows a long one meanwhile.
            Ok(Undoing::Started(started)) => {
                self.end_toasts();
                self.job_started(Ok(started))
            }
            Ok(Undoing::Nothing) => {
                self.after_undo = None;
                self.toast(format!("There is nothing to {what}."));
                Task::none()
            }
            Ok(Undoing::Busy) => {
                self.after_undo = None;
                self.toast(
                    "Another undo, redo or resume is under way, perhaps in a terminal: wait \
                     for it to end."
                        .to_owned(),
                );
                Task::none()
            }
            Ok(Undoing::NotThatJob) => {
                self.after_undo = None;
                let done = if redo { "redone" } else { "undone" };
                self.toast(format!(
                    "That job can't be {done} now: it did nothing, or another job comes first."
                ));
                Task::none()
            }
            // The core names the job by its paths ("the trash /a/g5000 and 4999 more is
            // still running"): the jobs panel shows which it is.
            Err(e) if matches!(*e, Error::StillRunning { .. }) => {
                self.after_undo = None;
                self.toast(format!(
                    "Can't {what} yet: the newest job is still running. Once it has finished \
                     (or is cancelled in the jobs panel), {what} it."
                ));
                Task::none()
            }
            Err(e) => {
                self.after_undo = None;
                self.toast(format!("Could not {what}: {e}"));
                Task::none()
            }
        }
    }

    /// Retry failed: the job's kind again, on the sources holding what failed (and, for a job
    /// an error stopped, those it did not get to), merging into what the first run made (so
    /// what was done is not done twice).
    pub(super) fn retry(&mut self, job: JobId) -> Task<Message> {
        let Some(window) = self.jobs.window_job(job) else {
            return Task::none();
        };
        let State::Ended { summary, .. } = &window.state else {
            return Task::none();
        };
        let failed: Vec<&Path> = summary.errors().map(|(path, _)| path).collect();
        let not_done: HashSet<&Path> = match summary.stopped_by {
            Some(_) => summary.not_done.iter().map(PathBuf::as_path).collect(),
            None => HashSet::new(),
        };
        let holding = |sources: &[PathBuf]| -> Vec<PathBuf> {
            sources
                .iter()
                .filter(|s| {
                    not_done.contains(s.as_path()) || failed.iter().any(|f| f.starts_with(s))
                })
                .cloned()
                .collect()
        };
        let retry = match &*window.job {
            Job::Copy {
                sources,
                dest_dir,
                dest_name,
                ..
            }
            | Job::Move {
                sources,
                dest_dir,
                dest_name,
                ..
            } => {
                let moving = matches!(&*window.job, Job::Move { .. });
                let jobs = retries(
                    &holding(sources),
                    &window.answers,
                    |sources, policy, name| {
                        let (dest_dir, dest_name) = (dest_dir.clone(), name.or(dest_name.clone()));
                        match moving {
                            true => Job::Move {
                                sources,
                                dest_dir,
                                dest_name,
                                on_conflict: policy,
                            },
                            false => Job::Copy {
                                sources,
                                dest_dir,
                                dest_name,
                                on_conflict: policy,
                            },
                        }
                    },
                );
                self.jobs.forget(job);
                let started: Vec<_> = (jobs.into_iter())
                    .map(|job| self.start_job(job, FollowUp::Toast))
                    .collect();
                return Task::batch(started);
            }
            Job::Trash { paths, roots } => Job::Trash {
                paths: holding(paths),
                roots: roots.clone(),
            },
            // A permanent delete is asked again: what has those names now may not be what
            // the user confirmed (a new folder under a name that failed as gone was deleted
            // unasked).
            Job::Delete { paths } => {
                let paths = holding(paths);
                self.jobs.forget(job);
                return self.ask_delete(paths);
            }
            other => other.clone(),
        };
        self.jobs.forget(job);
        self.start_job(retry, FollowUp::Toast)
    }

    /// "Make it a copy" of a drop's move: undo the move, then copy instead.
    pub(super) fn make_copy(&mut self, job: JobId) -> Task<Message> {
        let Some((
            Job::Move {
                sources,
                dest_dir,
                dest_name,
                ..
            },
            Some(seq),
            answers,
        )) = (self.jobs.window_job(job)).map(|j| ((*j.job).clone(), j.seq, j.answers.clone()))
        else {
            return Task::none();
        };
        // Refused while another undo runs: nothing to copy after either (the copy ran when
        // that other undo ended, unasked).
        if self.refuse_undo_while_one_runs() {
            return Task::none();
        }
        // The move's answers to its conflicts are the copy's: asked again, Keep both and
        // Skip were given twice.
        let rest = ConflictPolicy::Ask;
        let copies = by_answers(&sources, &answers, rest, |sources, policy, name| {
            Job::Copy {
                sources,
                dest_dir: dest_dir.clone(),
                dest_name: name.or(dest_name.clone()),
                on_conflict: policy,
            }
        });
        self.after_undo = Some(copies);
        // That move's undo, never another job's.
        self.submit_undo_record(seq, false)
    }

    /// What the engine said about a job of the window.
    pub(super) fn on_routed(&mut self, routed: Routed) -> Task<Message> {
        match routed {
            Routed::Recovery(event) => self.recovery_event(*event),
            Routed::Changed(job) => {
                let long = self
                    .jobs
                    .window_job(job)
                    .is_some_and(|j| j.started.elapsed() > super::screen::jobs_panel::OPEN_AFTER);
                if long {
                    self.jobs_panel.long_job(job);
                }
                self.conflicts_progress(job);
                self.reword_quit_question();
                Task::none()
            }
            Routed::Conflicts(job, conflicts) => self.conflicts_arrived(job, conflicts),
            Routed::ItemError {
                job,
                request,
                path,
                error,
            } => {
                self.item_failed(job, request, path, error);
                Task::none()
            }
            Routed::Ended(job) => self.job_ended(job),
        }
    }

    /// An event of the banner's resume or roll back: its conflicts and failed items are
    /// asked about in the same dialogs as any job's (the title says which job).
    fn recovery_event(&mut self, event: ferry_core::jobs::Event) -> Task<Message> {
        use ferry_core::jobs::Event;
        let title = self
            .recovery
            .running_title()
            .unwrap_or("Recovering a job")
            .to_owned();
        match event {
            Event::Conflicts { job, conflicts } => self.conflicts_titled(job, title, conflicts),
            Event::ItemError {
                job,
                request,
                path,
                error,
            } => {
                self.item_errors.ask(job, request, path, error, title);
                Task::none()
            }
            event => {
                if let Event::Finished { job, .. } | Event::Cancelled { job, .. } = &event {
                    self.close_conflicts(*job);
                    self.item_errors.job_ended(*job);
                }
                self.update(Message::Recovery(super::screen::recovery::Message::Job(
                    Box::new(event),
                )))
            }
        }
    }

    /// A window job ended: record it, say what it did, and do what follows it.
    fn job_ended(&mut self, job: JobId) -> Task<Message> {
        // Quitting waits for the ends on their way to the journal: only those that are.
        // Undo and Redo are read again once the end is in the journal (read beside its
        // writing, they could miss it and offer nothing to undo).
        let record = match self.jobs.record_end(job) {
            Some(record) => {
                self.recording += 1;
                record.map(move |()| Message::JobRecorded(job))
            }
            None => self.jobs.read_labels().map(Message::LabelsRead),
        };
        self.item_errors.job_ended(job);
        self.close_conflicts(job);
        self.jobs_panel.job_ended(std::time::Instant::now());
        if self.jobs.running() == 0 {
            let well = self.jobs.window_jobs().all(|j| match &j.state {
                State::Ended {
                    summary, cancelled, ..
                } => !cancelled && summary.failed.is_empty() && summary.stopped_by.is_none(),
                _ => true,
            });
            self.jobs_panel.all_ended(well);
        }
        // Asked whether to cancel it, and it ended meanwhile: nothing is left to cancel.
        if self.confirm.as_ref().is_some_and(
            |c| matches!(c.token(), super::dialogs::Ask::CancelJob { job: id, .. } if *id == job),
        ) {
            self.confirm = None;
        }
        self.reword_quit_question();
        let Some(window) = self.jobs.window_job(job).cloned() else {
            return record;
        };
        let State::Ended {
            summary,
            cancelled,
            said,
            ..
        } = &window.state
        else {
            return record;
        };
        let mut tasks = vec![record];
        if self.quitting {
            return Task::batch(tasks);
        }
        if let Some(error) = &summary.stopped_by {
            self.item_errors
                .stopped(job, Arc::clone(error), window.title.clone());
        }
        let refused: Vec<PathBuf> = summary
            .failed
            .iter()
            .filter(|f| matches!(*f.error, Error::CannotTrash { .. }))
            .map(|f| f.path.clone())
            .collect();
        if !refused.is_empty() {
            tasks.push(self.offer_delete_instead(refused));
        }
        tasks.push(self.trash_changed(&window.job));
        if window.undoing
            && let Some(copies) = self.after_undo.take()
            && !*cancelled
        {
            // Only what went back to its own place is copied: after a Skip or Keep both,
            // another program's file is there (it was copied over the one dragged).
            let whole = summary.failed.is_empty()
                && summary.skipped.is_empty()
                && summary.not_done.is_empty()
                && !summary.record.renamed_by_answers();
            if whole {
                for copy in copies {
                    tasks.push(self.start_job(copy, FollowUp::Toast));
                }
            } else {
                self.toast(
                    "Not made a copy: the move was not wholly undone, so what is at its place \
                     now is not what was moved."
                        .to_owned(),
                );
            }
        }
        let text = said.clone();
        // A job cancelled inside a folder did part of it: an undo step too; a copy that only
        // merged into folders that were there did nothing (the journal skips it for undo).
        let did = !summary.done.is_empty() || summary.record.did_something();
        let undoable = window.seq.filter(|_| !window.undoing && did);
        tasks.push(self.follow_moved(&window.job, summary));
        match window.follow_up {
            FollowUp::None => {
                if !summary.failed.is_empty() || *cancelled {
                    self.toast(text);
                }
            }
            FollowUp::Toast | FollowUp::ToastWithCopy | FollowUp::ToastFromCut => {
                if window.follow_up == FollowUp::ToastFromCut && !did && self.clip.is_none() {
                    self.cut_back(&window.job);
                }
                // An undo, or a job that is no copy or move (a rename or a New Folder redone).
                if window.undoing || window.job.transfer().is_none() {
                    tasks.push(self.select_put_back(summary));
                } else {
                    tasks.push(self.select_landed(&window.job, summary));
                }
                let mut actions = Vec::new();
                if let Some(seq) = undoable {
                    actions.push(("Undo".to_owned(), Command::UndoRecord(seq)));
                }
                if window.follow_up == FollowUp::ToastWithCopy
                    && undoable.is_some()
                    && !summary.done.is_empty()
                {
                    actions.push(("Make it a copy".to_owned(), Command::MakeCopy(job)));
                }
                self.toast_with(text, actions);
            }
        }
        Task::batch(tasks)
    }
}
