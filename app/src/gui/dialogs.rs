//! The window's questions: one confirmation at a time over everything (a permanent delete,
//! a move of the home folder or a trash (`moves.rs`), quitting with jobs running, cancelling
//! a job that has done part of its work, the trash view's delete and empty), and the queue
//! of items a job could not do (the item error dialog). Each confirmation carries what to do
//! once confirmed ([`Ask`]), so the window keeps no other state for it.
//!
//! A permanent delete is asked at once, counted from the selection, and the question is
//! made exact ("3 folders and 1,204 files, 2.1 GB") when a walk of the items off the UI
//! thread has counted them; deleting the home folder, a folder holding it or a mount point
//! is said in the question. The walk notes what each item is (device and inode) first;
//! confirmed, the items are looked at again off the UI thread, and one that another program
//! replaced meanwhile (a folder of 50 files moved in under the name of the file asked about)
//! is asked about again, as it is now, instead of being deleted.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use ferry_core::Error;
use ferry_core::entry::Kind;
use ferry_core::fs::FileId;
use ferry_core::jobs::{
    Caution, ErrorAction, Job, JobId, Measure, delete_cautions, is_trashed_item, measure,
};
use iced::Task;
use iced::keyboard::{Key, Modifiers};

use super::jobs::{FollowUp, lowercase_first};
use super::modal::confirm::{self, Confirm};
use super::modal::{folder_prompt, item_error, name_prompt};
use super::moves::{Move, SeenIn};
use super::screen::trash;
use super::words::quoted;
use super::{Ferry, Message, bridge, format, words};

/// What a confirmation asks about, and what its Confirm does.
#[derive(Debug, Clone, PartialEq)]
pub enum Ask {
    /// Delete these permanently.
    Delete(DeleteAsk),
    /// The trash could not take these: delete them permanently instead.
    DeleteRefused(DeleteAsk),
    /// Submit this move, which was checked (`moves.rs`).
    Move(Move),
    /// These are never moved (Ferry's state folder): said only, nothing to confirm.
    MoveRefused(Vec<PathBuf>),
    /// Quit although jobs are running (they are cancelled, their ends recorded, then Ferry
    /// quits).
    Quit,
    /// Cancel this job, which has done part of its work already. It is paused while asked;
    /// `resume` when the question paused it (Keep Going lets it go on).
    CancelJob { job: JobId, resume: bool },
    /// The trash view's question.
    Trash(trash::Pending),
    /// Open these files, and these folders in new tabs (Enter on many items).
    Open {
        /// The files.
        files: Vec<PathBuf>,
        /// The folders.
        folders: Vec<PathBuf>,
    },
}

/// A permanent delete asked about.
#[derive(Debug, Clone, PartialEq)]
pub struct DeleteAsk {
    /// The items.
    paths: Vec<PathBuf>,
    /// What each was when the question was shown (looked at on a worker at once; `None`
    /// inside: gone then).
    seen: Option<Identities>,
    /// Items asked about before that another program replaced meanwhile: said first.
    changed: Vec<PathBuf>,
}

/// What items are (device, inode and kind: a freed inode number is often given to the next
/// item made, a folder put in a file's place), in their order.
pub type Identities = Arc<[Option<(FileId, Kind)>]>;

/// Items of a confirmed delete that are no longer what was seen.
#[derive(Debug, Clone, Default)]
pub struct Checked {
    /// Something else has the item's path now.
    replaced: Vec<PathBuf>,
    /// Nothing has it.
    gone: Vec<PathBuf>,
}

/// Looks on a worker at whether `paths` are still what was `seen` of them.
pub(super) fn check_still_seen(paths: Vec<PathBuf>, seen: Identities) -> Task<Message> {
    bridge::blocking(move || {
        let now = identities(&paths);
        let mut checked = Checked::default();
        for (path, (seen, now)) in paths.iter().zip(seen.iter().zip(now.iter())) {
            match now {
                None if seen.is_some() => checked.gone.push(path.clone()),
                now if now != seen => checked.replaced.push(path.clone()),
                _ => {}
            }
        }
        Message::DeleteChecked(paths, checked)
    })
}

/// Looks on a worker at what `paths` are now, for the delete question about them. One that is
/// not the item listed under its name in `seen_in` already (another program put another
/// there) counts as seen as nothing: answered Delete, it is found replaced and asked about
/// again, not deleted unseen.
fn look_at(paths: Vec<PathBuf>, seen_in: SeenIn) -> Task<Message> {
    bridge::blocking(move || {
        let listed = seen_in.listed(&paths);
        let seen: Identities = (identities(&paths).iter().zip(listed))
            .map(|(&seen, listed)| seen.filter(|(id, _)| listed.is_none_or(|ino| id.ino == ino)))
            .collect();
        Message::DeleteSeen(paths, seen)
    })
}

fn identities(paths: &[PathBuf]) -> Identities {
    let seen = |p: &PathBuf| ferry_core::fs::stat_at(rustix::fs::CWD, p).ok();
    (paths.iter())
        .map(|p| seen(p).map(|m| (m.id, m.kind)))
        .collect()
}

/// How long quitting waits for the jobs it cancelled to end: one blocked in a file system
/// that stopped answering never does, and Ferry quits without its end recorded, as after a
/// crash (the next start finds it interrupted, to resume or roll back).
pub const QUIT_PATIENCE: std::time::Duration = std::time::Duration::from_secs(5);

/// What the walk of a delete's items found.
pub type Measured = Result<(Measure, Vec<(PathBuf, Caution)>), Arc<Error>>;

impl Ferry {
    /// Shows `confirm`, in place of any question open (there is one at a time).
    pub(super) fn ask(&mut self, confirm: Confirm<Ask>) {
        self.stop_measuring();
        self.confirm = Some(confirm);
    }

    fn stop_measuring(&mut self) {
        if let Some(cancel) = self.measuring.take() {
            cancel.store(true, Ordering::Relaxed);
        }
    }

    /// Shift+Delete: asks at once, then counts what the items hold to ask exactly.
    pub(super) fn ask_delete(&mut self, paths: Vec<PathBuf>) -> Task<Message> {
        self.ask_delete_again(paths, Vec::new())
    }

    /// Asks about deleting `paths`, saying first that `changed` of them were replaced since
    /// the last question.
    fn ask_delete_again(&mut self, paths: Vec<PathBuf>, changed: Vec<PathBuf>) -> Task<Message> {
        let question = delete_question(&paths, None, &[], &changed);
        let ask = DeleteAsk {
            paths: paths.clone(),
            seen: None,
            changed,
        };
        self.ask(question.map(|()| Ask::Delete(ask)));
        let cancel = Arc::new(AtomicBool::new(false));
        self.measuring = Some(Arc::clone(&cancel));
        let home = self.services.home.clone();
        let walked = paths.clone();
        let measured = bridge::blocking(move || {
            let measured = measure(&walked, &cancel).map_err(Arc::new)?;
            Ok((measured, delete_cautions(&walked, home.as_deref())))
        })
        .map({
            let paths = paths.clone();
            move |measured| Message::DeleteMeasured(paths.clone(), measured)
        });
        Task::batch([look_at(paths, self.seen_in()), measured])
    }

    /// The walk of a delete's items ended: the question says what they hold, if still open.
    pub(super) fn delete_measured(&mut self, paths: &[PathBuf], measured: &Measured) {
        let Some(open) = &self.confirm else {
            return;
        };
        let Ask::Delete(ask) = open.token() else {
            return;
        };
        if ask.paths != paths {
            return;
        }
        self.measuring = None;
        let question = match measured {
            Ok((measure, cautions)) => {
                delete_question(paths, Some(measure), cautions, &ask.changed)
            }
            Err(_) => delete_question(paths, None, &[], &ask.changed),
        };
        let ask = ask.clone();
        self.confirm = Some(question.map(|()| Ask::Delete(ask)));
    }

    /// What the items of an open delete question were when it was shown.
    pub(super) fn delete_seen(&mut self, paths: &[PathBuf], seen: Identities) {
        let Some(open) = &mut self.confirm else {
            return;
        };
        if let Ask::Delete(ask) | Ask::DeleteRefused(ask) = open.token_mut()
            && ask.paths == paths
            && ask.seen.is_none()
        {
            ask.seen = Some(seen);
        }
    }

    /// A confirmed delete's items, looked at again: those another program replaced since
    /// they were seen are asked about again, as they are now; those gone are left out (they
    /// were said "replaced", then failed as no longer there, with a Retry that deleted what
    /// came under the name later); if none changed, the delete runs.
    pub(super) fn delete_checked(
        &mut self,
        mut paths: Vec<PathBuf>,
        checked: Checked,
    ) -> Task<Message> {
        if checked.gone.is_empty() && checked.replaced.is_empty() {
            return self.start_job(Job::Delete { paths }, FollowUp::Toast);
        }
        // The Trash view drew the items it asked about as submitted: read again, it shows
        // what is there now, and offers it (they stayed dimmed and out of reach).
        let reread =
            (self.trash.as_mut()).map_or_else(Task::none, |t| t.reload().map(Message::Trash));
        paths.retain(|p| !checked.gone.contains(p));
        if paths.is_empty() {
            let what = match checked.gone.as_slice() {
                [one] => format!("{} is", words::quoted(one)),
                _ => "They are".to_owned(),
            };
            self.toast(format!("{what} gone already: nothing was deleted."));
            return reread;
        }
        if checked.replaced.is_empty() {
            return Task::batch([
                reread,
                self.start_job(Job::Delete { paths }, FollowUp::Toast),
            ]);
        }
        Task::batch([reread, self.ask_delete_again(paths, checked.replaced)])
    }

    /// A message of the open confirmation.
    pub(super) fn confirm_message(&mut self, message: confirm::Message) -> Task<Message> {
        let Some(open) = &mut self.confirm else {
            return Task::none();
        };
        let (task, event) = open.update(message, &self.services.ctx());
        let task = task.map(Message::Confirm);
        let Some(event) = event else {
            return task;
        };
        self.confirm = None;
        self.stop_measuring();
        match event {
            confirm::Event::Confirmed(ask) => Task::batch([task, self.confirmed(ask)]),
            confirm::Event::Cancelled(Ask::Move(declined)) => {
                Task::batch([task, self.move_declined(declined)])
            }
            confirm::Event::Cancelled(Ask::CancelJob { job, resume: true }) => {
                self.jobs.resume(job);
                task
            }
            confirm::Event::Cancelled(_) => task,
        }
    }

    fn confirmed(&mut self, ask: Ask) -> Task<Message> {
        match ask {
            Ask::Delete(DeleteAsk {
                paths,
                seen: Some(seen),
                ..
            })
            | Ask::DeleteRefused(DeleteAsk {
                paths,
                seen: Some(seen),
                ..
            }) => check_still_seen(paths, seen),
            // Confirmed before the worker looked at them (within a millisecond of the
            // question): nothing to compare with.
            Ask::Delete(DeleteAsk { paths, .. }) | Ask::DeleteRefused(DeleteAsk { paths, .. }) => {
                self.start_job(Job::Delete { paths }, FollowUp::Toast)
            }
            Ask::Move(checked) => self.submit_move(&checked),
            Ask::MoveRefused(_) => Task::none(),
            Ask::Quit => {
                self.quitting = true;
                self.quit_asked = Some(std::time::Instant::now());
                self.jobs.cancel_all();
                self.quit_when_idle()
            }
            Ask::CancelJob { job, .. } => {
                self.jobs.cancel(job);
                Task::none()
            }
            Ask::Trash(pending) => self.trash_message(trash::Message::Confirmed(pending)),
            Ask::Open { files, folders } => self.open_all(files, folders),
        }
    }

    /// Quit (Ctrl+Q, the window's close button): asks first while jobs are running.
    pub(super) fn ask_quit(&mut self) -> Task<Message> {
        match self.quit_question() {
            Some(question) => {
                self.ask(question);
                Task::none()
            }
            None => self.quit(),
        }
    }

    /// The quit question, said again as the jobs go on while it is open: one ended, a move
    /// began removing its originals. Once none runs, it asks only whether to quit.
    pub(super) fn reword_quit_question(&mut self) {
        if !(self.confirm.as_ref()).is_some_and(|c| matches!(c.token(), Ask::Quit)) {
            return;
        }
        let asked = self.quit_question().unwrap_or_else(|| {
            Confirm::new(Ask::Quit, "Quit Ferry?", "Every job has ended.", "Quit")
                .cancel_label("Keep Open")
        });
        if let Some(open) = self.confirm.as_mut() {
            open.reword(asked);
        }
    }

    /// What quitting now would be asked, or `None` when no job runs (nothing to ask).
    fn quit_question(&self) -> Option<Confirm<Ask>> {
        let running = self.jobs.running();
        if running == 0 {
            return None;
        }
        let jobs = format::counted(running, "job is", "jobs are");
        let they = if running == 1 { "it has" } else { "they have" };
        // A move removing its originals finishes that when cancelled: "the rest is
        // cancelled" would be false of it. Its phase is known from its last progress report,
        // up to a tenth of a second old, and the question stays while the job goes on: of
        // a move not seen removing yet, that it would finish the removal is said too (and
        // the question is said again as the jobs go on: `reword_quit_question`).
        let running_jobs = || self.jobs.window_jobs().filter(|j| j.is_running());
        let removing = running_jobs().filter(|j| j.is_removing_sources()).count();
        let moving = running_jobs().any(|j| matches!(*j.job, Job::Move { .. }));
        let rest = match (removing, running) {
            (0, _) if moving => {
                "the rest is cancelled, except that a move already removing its originals \
                 finishes removing them."
            }
            (0, _) => "the rest is cancelled.",
            (1, 1) => "it has copied everything and finishes removing the originals first.",
            (1, _) => {
                "the rest is cancelled, except the move removing its originals: it finishes that \
                 first."
            }
            _ => {
                "the rest is cancelled, except the moves removing their originals: they finish \
                  that first."
            }
        };
        let question = Confirm::new(
            Ask::Quit,
            format!("Quit while {jobs} running?"),
            format!("What {they} done so far stays done, and can be undone; {rest}"),
            "Cancel Jobs and Quit",
        );
        // Enter keeps the jobs: quitting cancels them, a single Enter away otherwise.
        Some(question.cancel_label("Keep Running").cancel_by_default())
    }

    /// After Quit was confirmed: quits once every job has ended and its end is recorded.
    pub(super) fn quit_when_idle(&mut self) -> Task<Message> {
        if self.quitting && self.jobs.running() == 0 && self.recording == 0 {
            self.quit()
        } else {
            Task::none()
        }
    }

    /// Cancel on a job (the panel's ✕, Escape): asks first when some of it is done, since
    /// what is done stays (Dolphin and Nautilus cancel at once; a half-done move is worth a
    /// word).
    pub(super) fn ask_cancel(&mut self, job: JobId) {
        let Some(window) = self.jobs.window_job(job) else {
            return;
        };
        if !window.is_running() {
            return;
        }
        // Its copies written, a move removes their sources whatever happens: saying "the
        // rest is not done" there, then finishing, was false.
        if window.is_removing_sources() {
            self.toast(
                "The move has copied everything and is removing the originals: it can be \
                 paused, not cancelled, and Undo takes it back once it ends."
                    .to_owned(),
            );
            return;
        }
        let done = window.items_done();
        if done == 0 {
            self.jobs.cancel(job);
            return;
        }
        let title = window.title.clone();
        // A permanent delete has no undo: what it deleted is gone, as its own question said.
        let done_stays = match *window.job {
            Job::Delete { .. } | Job::EmptyTrash { .. } => {
                "It is paused. What it has deleted is gone for good (the jobs panel counts \
                 it); the rest is not deleted."
            }
            _ => {
                "It is paused. What it has done stays done (the jobs panel counts it; Undo \
                 takes it back); the rest is not done."
            }
        };
        // Held while asked, as a question about cancelling it should not race it.
        let resume = !window.is_paused();
        if resume {
            self.jobs.pause(job);
        }
        self.ask(
            Confirm::new(
                Ask::CancelJob { job, resume },
                format!("Cancel {}?", lowercase_first(&title)),
                // No count: asked before the pause took hold, it was already behind the
                // panel's, which goes on counting what the job finished meanwhile.
                done_stays.to_owned(),
                "Cancel Job",
            )
            .cancel_label("Keep Going"),
        );
    }

    /// Items the trash refused (no trash on their disk, or it cannot be written): offers to
    /// delete them permanently, as Nautilus does, never without asking.
    pub(super) fn offer_delete_instead(&mut self, refused: Vec<PathBuf>) -> Task<Message> {
        let (what, why) = match refused.as_slice() {
            [one] => (
                format!("“{}”", format::display_name(one)),
                "Its disk has no trash Ferry can use. Deleted, it is gone for good.",
            ),
            many => (
                format::counted(many.len(), "item", "items"),
                "Their disk has no trash Ferry can use. Deleted, they are gone for good.",
            ),
        };
        let ask = DeleteAsk {
            paths: refused.clone(),
            seen: None,
            changed: Vec::new(),
        };
        self.ask(
            Confirm::new(
                Ask::DeleteRefused(ask),
                format!("{what} can't be moved to the trash. Delete permanently?"),
                why,
                "Delete Permanently",
            )
            .danger()
            // The user asked for the trash: Enter must not turn that into a delete.
            .cancel_by_default()
            .detail("This can't be undone."),
        );
        look_at(refused, self.seen_in())
    }

    /// An item of a window job failed and the job waits: the item error dialog asks.
    pub(super) fn item_failed(
        &mut self,
        job: JobId,
        request: ferry_core::jobs::ErrorId,
        path: PathBuf,
        error: Arc<Error>,
    ) {
        let name = self
            .jobs
            .window_job(job)
            .map_or_else(String::new, |w| w.title.clone());
        self.item_errors.ask(job, request, path, error, name);
        self.jobs.set_questions(job, self.item_errors.asking(job));
    }

    /// A message of the item error dialog.
    pub(super) fn item_error_message(&mut self, message: item_error::Message) -> Task<Message> {
        let (task, event) = self.item_errors.update(message, &self.services.ctx());
        let task = task.map(Message::ItemError);
        match event {
            Some(item_error::Event::Answer {
                job,
                request,
                action,
            }) => {
                self.jobs.resolve_error(job, request, action);
                if action == ErrorAction::Cancel {
                    self.item_errors.job_ended(job);
                }
                self.jobs.set_questions(job, self.item_errors.asking(job));
                task
            }
            Some(item_error::Event::Retry { job }) => Task::batch([task, self.retry(job)]),
            None => task,
        }
    }

    /// Keys while a question is open: all of them go to it (the dialogs are modal). False
    /// when none is open.
    pub(super) fn dialog_key(
        &mut self,
        key: &Key,
        modifiers: Modifiers,
        captured: bool,
    ) -> Option<Task<Message>> {
        if let Some(open) = &mut self.confirm {
            let message = open.key(key, modifiers);
            return Some(message.map_or_else(Task::none, |m| self.confirm_message(m)));
        }
        if self.folder_prompt.is_some() {
            // The field has the other keys.
            return Some(match folder_prompt::key(key, modifiers) {
                Some(message) => self.folder_prompt_message(message),
                None => Task::none(),
            });
        }
        // The Trash view's Restore to… prompt, modal over the view: Escape, which its field
        // takes to give up the keyboard, must still close it (it took two).
        if let Some(view) = self.trash.as_mut().filter(|view| view.asks_folder()) {
            let message = view.key(key, modifiers);
            return Some(message.map_or_else(Task::none, |m| self.trash_message(m)));
        }
        if self.name_prompt.is_some() {
            if key == &Key::Named(iced::keyboard::key::Named::Escape) {
                return Some(self.name_prompt_message(name_prompt::Message::Cancelled));
            }
            return Some(Task::none());
        }
        if let Some(task) = self.conflict_key(key, modifiers, captured) {
            return Some(task);
        }
        if self.item_errors.is_open() {
            let message = self.item_errors.key(key, modifiers);
            return Some(message.map_or_else(Task::none, |m| self.item_error_message(m)));
        }
        None
    }
}

/// "Permanently delete “notes.txt”?", "Permanently delete 3 folders and 1,204 files,
/// 2.1 GB?" once `measured` (a single folder: what it holds is said below); what
/// `cautions` found is said first.
fn delete_question(
    paths: &[PathBuf],
    measured: Option<&Measure>,
    cautions: &[(PathBuf, Caution)],
    changed: &[PathBuf],
) -> Confirm<()> {
    let counted = |m: &Measure, less_folders: u64| {
        let files = usize::try_from(m.items() - m.folders).unwrap_or(usize::MAX);
        let folders = usize::try_from(m.folders - less_folders).unwrap_or(usize::MAX);
        format!(
            "{}, {}",
            words::folders_and_files(folders, files),
            format::size(m.bytes)
        )
    };
    let (what, holds, them) = match (paths, measured) {
        ([one], Some(m)) if m.folders > 0 && m.items() > 1 => (
            quoted(one),
            Some(format!("It holds {}. ", counted(m, 1))),
            ("It", "it"),
        ),
        ([one], _) => (quoted(one), None, ("It", "it")),
        (_, Some(m)) => (counted(m, 0), None, ("They", "they")),
        (many, None) => (
            format::counted(many.len(), "item", "items"),
            None,
            ("They", "they"),
        ),
    };
    // The Trash view's items asked about again are in the trash already.
    let gone = if paths.iter().all(|p| is_trashed_item(p)) {
        format!(
            "{} will be gone for good: what is deleted from the trash can't be restored.",
            them.0
        )
    } else {
        format!(
            "{} will not go to the trash: {} will be gone for good.",
            them.0, them.1
        )
    };
    let mut message = format!("{}{gone}", holds.unwrap_or_default());
    if let Some((path, why)) = cautions.first() {
        message = format!("{}: {why}. {message}", quoted(path));
    }
    if let Some(path) = changed.first() {
        message = format!(
            "{} was replaced by another program while you were asked; this is what is there now. {message}",
            quoted(path)
        );
    }
    let detail = match measured.filter(|m| m.unreadable > 0) {
        Some(m) => format!(
            "{} could not be read, and may hold more.",
            format::counted(m.unreadable, "folder", "folders")
        ),
        None => "This can't be undone.".to_owned(),
    };
    let question = Confirm::new(
        (),
        format!("Permanently delete {what}?"),
        message,
        "Delete Permanently",
    )
    .danger()
    .detail(detail);
    // The home folder, a folder holding it, a mount point: never a single Enter away.
    match cautions.is_empty() {
        true => question,
        false => question.cancel_by_default(),
    }
}
