//! Copy, cut and paste of items through the desktop's clipboard, so that files copied in
//! Ferry paste in Dolphin or Nautilus and the other way round (see [`clipboard`]).
//!
//! The window keeps what it last put on the clipboard ([`Clip`]) to draw cut items dimmed
//! and to paste when there is no desktop clipboard (no display connection for it); a paste
//! otherwise always reads the clipboard, off the UI thread, since another program may have
//! taken it since. When another program takes it, the dimming ends.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crossbeam_channel::Receiver;
use ferry_core::Error;
use ferry_core::entry::Kind;
use ferry_core::jobs::{ConflictPolicy, Job, Summary, TrashedItem};
use iced::Task;

use super::clipboard::{ClipboardEvent, Contents, FileClipboard};
use super::jobs::FollowUp;
use super::screen::{browser, tabs};
use super::widget::context_menu;
use super::{Ferry, Message, bridge};

/// Whether the clipboard read for a paste (`paths`) is `clip`, copied or cut in the Trash
/// view (the desktop clipboard offers those as a copy of their files).
fn is_trashed_clip(clip: &Clip, paths: &[PathBuf]) -> bool {
    !clip.trashed.is_empty()
        && clip.paths.len() == paths.len()
        && clip.paths.iter().collect::<HashSet<_>>() == paths.iter().collect()
}

/// Pastes and drops of at most this many items select what they brought; a bigger one leaves
/// the selection alone: its names are matched against the listing on the UI thread.
pub(super) const SELECT_LANDED_MAX: usize = if cfg!(test) { 20 } else { 10_000 };

/// What the window last put on the clipboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clip {
    /// The items.
    pub paths: Vec<PathBuf>,
    /// They move when pasted (and the clipboard empties then).
    pub cut: bool,
    /// Copied or cut in the Trash view: the trashed items `paths` are the files of. Pasted in
    /// the window, a copy gets the names they had and a cut restores them there, as Dolphin
    /// does with `trash:/`; other programs are offered a copy of the files.
    pub trashed: Vec<TrashedItem>,
}

impl Clip {
    /// Items of folders, copied or cut.
    pub fn files(paths: Vec<PathBuf>, cut: bool) -> Clip {
        Clip {
            paths,
            cut,
            trashed: Vec::new(),
        }
    }

    /// Trashed items, copied or cut in the Trash view.
    pub fn trashed(items: Vec<TrashedItem>, cut: bool) -> Clip {
        Clip {
            paths: items.iter().map(|item| item.file.clone()).collect(),
            cut,
            trashed: items,
        }
    }

    /// What other programs are offered: never a cut of trashed items, whose move by another
    /// program would leave their info files behind in the trash.
    fn offered_cut(&self) -> bool {
        self.cut && self.trashed.is_empty()
    }
}

/// The desktop clipboard, once connected (at start, off the UI thread).
pub type Started = Result<(FileClipboard, Receiver<ClipboardEvent>), Arc<Error>>;

/// Connects to the desktop's clipboard on a thread of its own (a few round trips).
pub fn start() -> Task<Started> {
    bridge::blocking(|| FileClipboard::start().map_err(Arc::new))
}

impl Ferry {
    /// The clipboard connected, or cannot be: then copy and paste stay within the window.
    pub(super) fn clipboard_started(&mut self, started: Started) {
        match started {
            Ok((clipboard, events)) => {
                // A copy made before it connected is offered now.
                if let Some(clip) = &self.clip {
                    clipboard.offer_files(clip.paths.clone(), clip.offered_cut());
                }
                self.clipboard = Some(clipboard);
                self.clipboard_events = Some(events);
            }
            Err(e) => {
                tracing::info!(target: "ferry", "no desktop clipboard for files: {e}");
            }
        }
    }

    /// Another program took the clipboard: nothing of the window's is on it any more.
    pub(super) fn clipboard_event(&mut self, event: ClipboardEvent) {
        match event {
            ClipboardEvent::Lost => {
                self.clip = None;
                self.show_cut();
            }
        }
    }

    /// Puts `clip` on the clipboard; cut items are drawn dimmed where they are shown.
    pub(super) fn set_clip(&mut self, clip: Clip) -> Task<Message> {
        if let Some(clipboard) = &self.clipboard {
            clipboard.offer_files(clip.paths.clone(), clip.offered_cut());
        }
        self.clip = Some(clip);
        self.show_cut();
        Task::none()
    }

    /// Puts text on the clipboard (Copy Location).
    pub(super) fn copy_text(&mut self, text: String) -> Task<Message> {
        self.toast("Copied the location.".to_owned());
        self.clip = None;
        self.show_cut();
        match &self.clipboard {
            Some(clipboard) => {
                clipboard.offer_text(text);
                Task::none()
            }
            None => iced::clipboard::write(text),
        }
    }

    /// True when a paste may find something: the desktop's clipboard counts until read and
    /// found without files (see [`Self::peek_clipboard`]).
    pub(super) fn can_paste(&self) -> bool {
        self.clip.is_some() || (self.clipboard.is_some() && self.clipboard_files != Some(false))
    }

    /// Reads the desktop's clipboard on a thread of its own for a menu opening now, so that
    /// its Paste is greyed when there are no files to paste. Another program may have put
    /// some there since the last read (no event says so): Paste counts until this answers.
    pub(super) fn peek_clipboard(&mut self) -> Task<Message> {
        self.clipboard_files = None;
        match (&self.clipboard, &self.clip) {
            (Some(clipboard), None) => {
                let clipboard = clipboard.clone();
                bridge::blocking(move || clipboard.read()).map(|read| {
                    let files =
                        matches!(read, Ok(Contents::Files { paths, .. }) if !paths.is_empty());
                    Message::ClipboardPeeked(files)
                })
            }
            _ => Task::none(),
        }
    }

    /// The clipboard read for a menu answered: a Paste greyed now gives up the keyboard's
    /// highlight to the next entry (Enter would have done nothing).
    pub(super) fn clipboard_peeked(&mut self, files: bool) {
        self.clipboard_files = Some(files);
        let Some(kind) = self.menu.as_ref().map(|m| m.kind.clone()) else {
            return;
        };
        let entries = self.menu_entries(&kind);
        if let Some(menu) = &mut self.menu
            && let Some(at) = menu.highlighted
            && !entries.get(at).is_some_and(|e| e.is_actionable())
        {
            menu.highlighted = context_menu::step(&entries, Some(at), true);
        }
    }

    /// The clip changed: tells every pane which items are cut (each draws them dimmed where
    /// it shows their folder).
    pub(super) fn show_cut(&mut self) {
        self.cut = match &self.clip {
            Some(Clip {
                paths,
                cut: true,
                trashed,
            }) if trashed.is_empty() => paths.first().and_then(|p| p.parent()).map(|folder| {
                let names: HashSet<OsString> = paths
                    .iter()
                    .filter_map(|p| p.file_name().map(OsString::from))
                    .collect();
                Arc::new((folder.to_path_buf(), names))
            }),
            _ => None,
        };
        self.share_cut();
        if let Some(view) = &mut self.trash {
            let cut = match &self.clip {
                Some(clip) if clip.cut => clip.trashed.iter().map(|i| i.file.clone()).collect(),
                _ => HashSet::new(),
            };
            view.set_cut(cut);
        }
    }

    /// Hands the cut items to every pane, as to panes opened since the cut (one shared set).
    pub(super) fn share_cut(&mut self) {
        for pane in self.tabs.panes_mut() {
            pane.set_cut(self.cut.clone());
        }
    }

    /// Pastes into `folder` what the clipboard holds: reads the desktop's on a thread of its
    /// own, or takes the window's own without one.
    pub(super) fn paste(&mut self, folder: PathBuf) -> Task<Message> {
        match self.clipboard.clone() {
            Some(clipboard) => bridge::blocking(move || clipboard.read().map_err(Arc::new))
                .map(move |read| Message::ClipboardRead(folder.clone(), read)),
            None => match self.clip.clone() {
                Some(clip) => self.paste_files(clip.paths, clip.cut, folder),
                None => self.nothing_to_paste("There is nothing to paste."),
            },
        }
    }

    /// The clipboard was read for a paste into `folder`.
    pub(super) fn clipboard_read(
        &mut self,
        folder: PathBuf,
        read: Result<Contents, Arc<Error>>,
    ) -> Task<Message> {
        match read {
            Ok(Contents::Files {
                paths,
                cut,
                left_out,
            }) => {
                let pasted = self.paste_files(paths, cut, folder);
                if !left_out.is_empty() {
                    self.toast(left_out_words(&left_out));
                }
                pasted
            }
            Ok(Contents::Empty) => self.nothing_to_paste("There is nothing to paste."),
            Ok(Contents::Text(_)) => {
                self.nothing_to_paste("The clipboard holds text, not files or folders.")
            }
            Ok(Contents::Other(formats)) => {
                let what = formats.first().map_or("something", String::as_str);
                self.nothing_to_paste(&format!(
                    "The clipboard holds {what}, not files or folders."
                ))
            }
            // What it holds names no local file: said as that, not as a failure to read it.
            Err(e) => match &*e {
                Error::Clipboard {
                    op: "paste",
                    source,
                } => self.nothing_to_paste(&format!("Nothing was pasted: {source}.")),
                Error::Clipboard { source, .. } => {
                    self.nothing_to_paste(&format!("The clipboard cannot be read: {source}."))
                }
                other => self.nothing_to_paste(&format!("The clipboard cannot be read: {other}.")),
            },
        }
    }

    fn nothing_to_paste(&mut self, why: &str) -> Task<Message> {
        self.toast(why.to_owned());
        Task::none()
    }

    /// Copies (or, for a cut, moves) `paths` into `folder`. A cut pasted once empties the
    /// clipboard, as Nautilus does (at once, so a second Ctrl+V cannot move it twice; a move
    /// the user then declines puts it back, `moves.rs`); a copy into the items' own folder
    /// duplicates them.
    fn paste_files(&mut self, paths: Vec<PathBuf>, cut: bool, folder: PathBuf) -> Task<Message> {
        let paths = distinct(paths);
        if let Some(clip) = self
            .clip
            .as_ref()
            .filter(|clip| is_trashed_clip(clip, &paths))
        {
            let (items, cut) = (clip.trashed.clone(), clip.cut);
            return self.paste_trashed(items, cut, &folder);
        }
        if cut {
            self.clip = None;
            self.show_cut();
            if let Some(clipboard) = &self.clipboard {
                clipboard.clear();
            }
            return self.start_move(paths, folder, FollowUp::ToastFromCut, true);
        }
        let job = Job::Copy {
            sources: paths,
            dest_dir: folder,
            dest_name: None,
            on_conflict: ConflictPolicy::Ask,
        };
        self.start_job(job, FollowUp::Toast)
    }

    /// Pastes into `folder` items copied or cut in the Trash view: a cut restores them there
    /// (and empties the clipboard, as any cut), a copy copies their files, one item under the
    /// name it had before the trash (`notes.txt`, not `notes.txt.2`).
    fn paste_trashed(
        &mut self,
        items: Vec<TrashedItem>,
        cut: bool,
        folder: &Path,
    ) -> Task<Message> {
        if cut {
            self.clip = None;
            self.show_cut();
            if let Some(clipboard) = &self.clipboard {
                clipboard.clear();
            }
            let job = Job::Restore {
                items: items.iter().map(|item| item.restore_to(folder)).collect(),
                on_conflict: ConflictPolicy::Ask,
            };
            return self.start_job(job, FollowUp::Toast);
        }
        // Said by the names they had; one job, so that one answer and one undo cover it all.
        let names = items.iter().map(|i| (i.file.clone(), i.name.clone()));
        self.jobs.name_trashed(names);
        let dest_name = match items.as_slice() {
            [one] if one.file.file_name() != Some(one.name.as_os_str()) => Some(one.name.clone()),
            // Several: as the trash keeps them, where two of one name are told apart.
            _ => None,
        };
        let job = Job::Copy {
            sources: items.into_iter().map(|item| item.file).collect(),
            dest_dir: folder.to_path_buf(),
            dest_name,
            on_conflict: ConflictPolicy::Ask,
        };
        self.start_job(job, FollowUp::Toast)
    }

    /// A move pasted from a cut moved nothing: the cut goes back on the clipboard, so that the
    /// user can paste it elsewhere, unless another program has put something there since.
    pub(super) fn cut_back(&mut self, job: &Job) {
        if let Some((sources, _, _)) = job.transfer() {
            self.restore_cut(sources.to_vec());
        }
    }

    /// Puts `paths` back on the clipboard as cut, which a paste had emptied, unless another
    /// program has put something there since (then the items are not drawn cut either).
    pub(super) fn restore_cut(&mut self, paths: Vec<PathBuf>) {
        let clip = Clip::files(paths, true);
        if let Some(clipboard) = &self.clipboard {
            clipboard.restore_files(clip.paths.clone(), true);
        }
        self.clip = Some(clip);
        self.show_cut();
    }

    /// Selects what a copy or move put into a folder, under the names it got there, in every
    /// pane showing that folder, as Dolphin selects what was pasted or dropped.
    pub(super) fn select_landed(&mut self, job: &Job, summary: &Summary) -> Task<Message> {
        let Some((_, dest_dir, _)) = job.transfer() else {
            return Task::none();
        };
        if summary.done.is_empty() || summary.done.len() > SELECT_LANDED_MAX {
            return Task::none();
        }
        let names: Vec<OsString> = (landed(job, summary).into_iter())
            .filter_map(|(_, at)| Some(at.file_name()?.to_owned()))
            .collect();
        self.select_in_panes(&HashMap::from([(dest_dir.to_path_buf(), names)]))
    }

    /// Selects what an undo or a redo put in place (an item renamed back, what a trash's undo
    /// restored, a folder made again), in every pane showing where it is, as Nautilus does.
    /// Left focused and unselected, a Ctrl+X after it cut nothing, and the Ctrl+V after that
    /// pasted what the clipboard held before. More than [`SELECT_LANDED_MAX`] leave the
    /// selection alone, as a paste does: the first 10,000 of 20,000 were selected, and a
    /// Delete after it acted on half of what came back.
    pub(super) fn select_put_back(&mut self, summary: &Summary) -> Task<Message> {
        if summary
            .record
            .top_level_entries()
            .nth(SELECT_LANDED_MAX)
            .is_some()
        {
            return Task::none();
        }
        let mut put: HashMap<PathBuf, Vec<OsString>> = HashMap::new();
        for entry in summary.record.top_level_entries() {
            if let (Some(dir), Some(name)) = (entry.dest.parent(), entry.dest.file_name()) {
                put.entry(dir.to_path_buf())
                    .or_default()
                    .push(name.to_owned());
            }
        }
        self.select_in_panes(&put)
    }

    /// Selects `names` by folder, once listed, in every pane showing one of the folders.
    fn select_in_panes(&mut self, names: &HashMap<PathBuf, Vec<OsString>>) -> Task<Message> {
        let tasks: Vec<Task<Message>> = (self.tabs.panes_mut())
            .filter_map(|pane| {
                let names = names.get(pane.path())?;
                let view = pane.view_id();
                let select = pane.select_when_listed(names.iter().cloned());
                Some(select.map(move |m| Message::Tabs(tabs::Message::Pane(view, m))))
            })
            .collect();
        Task::batch(tasks)
    }

    /// A pane showing a folder a trash or a delete took away (or a folder inside it) goes to
    /// the folder that held it at once, as Dolphin does, rather than when the watcher tells.
    fn leave_removed(&mut self, summary: &Summary) -> Task<Message> {
        let tasks: Vec<Task<Message>> = (self.tabs.panes_mut())
            .filter_map(|pane| {
                let gone = summary.done.iter().find(|p| pane.path().starts_with(p))?;
                let message = browser::Message::Removed(gone.clone());
                Some(Task::done(Message::Tabs(tabs::Message::Pane(
                    pane.view_id(),
                    message,
                ))))
            })
            .collect();
        Task::batch(tasks)
    }

    /// A pane showing a folder a move took elsewhere (or a folder inside it) follows it there,
    /// as Nautilus does: the listing service alone would say it is gone, and show the nearest
    /// folder left.
    pub(super) fn follow_moved(&mut self, job: &Job, summary: &Summary) -> Task<Message> {
        if matches!(job, Job::Trash { .. } | Job::Delete { .. }) {
            return self.leave_removed(summary);
        }
        // A rename (F2) and an undo (a move put back) are followed by their records alone.
        let by_record = matches!(job, Job::Rename { .. } | Job::Undo { .. });
        if !(by_record || matches!(job, Job::Move { .. })) || summary.record.is_empty() {
            return Task::none();
        }
        let moved = landed(job, summary);
        let recorded = std::cell::OnceCell::new();
        let tasks: Vec<Task<Message>> = (self.tabs.panes_mut())
            .filter_map(|pane| {
                let shown = pane.path();
                let root = moved.iter().find(|(from, _)| shown.starts_with(from));
                if root.is_none() && !by_record {
                    return None;
                }
                // The record of the folder nearest the one shown says where it is: inside
                // what moved, a folder may have gone under another name (Keep both, Rename
                // to, answered for what was merged into).
                let recorded = recorded.get_or_init(|| folders_recorded(summary));
                let (from, to) = match deepest_recorded(recorded, shown) {
                    // A link moved, not the folder the pane reached through it.
                    Some((.., Kind::Symlink)) => return None,
                    Some((from, to, _)) => (from, to),
                    None => root.map(|(from, to)| (from.to_path_buf(), to.clone()))?,
                };
                if from == to {
                    return None;
                }
                shown.strip_prefix(&from).ok()?;
                let message = browser::Message::Followed { from, to };
                Some(Task::done(Message::Tabs(tabs::Message::Pane(
                    pane.view_id(),
                    message,
                ))))
            })
            .collect();
        Task::batch(tasks)
    }
}

/// The recorded item nearest `shown` (itself, or a folder or a link on the way): its source,
/// where it is now, and its kind.
fn deepest_recorded(recorded: &[Recorded], shown: &Path) -> Option<(PathBuf, PathBuf, Kind)> {
    (recorded.iter())
        .filter(|(source, ..)| shown.starts_with(source))
        .max_by_key(|(source, ..)| source.as_os_str().len())
        .cloned()
}

/// A recorded item a pane may be at or below: its source, where it is now, its kind.
type Recorded = (PathBuf, PathBuf, Kind);

/// The folders and links of `summary`'s record (files hold no pane), read once for all the
/// panes that ask.
fn folders_recorded(summary: &Summary) -> Vec<Recorded> {
    (summary.record.entries())
        .filter(|e| matches!(e.kind, Kind::Dir | Kind::Symlink))
        .map(|e| (e.source, e.dest, e.kind))
        .collect()
}

/// `paths` with each path once, in their order: another program's list may name one twice,
/// which the job would count twice and then say skipped.
pub(super) fn distinct(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut seen = HashSet::new();
    paths
        .into_iter()
        .filter(|p| seen.insert(p.clone()))
        .collect()
}

/// Where each source `summary` says was done landed: its planned place, or the name an answer
/// (Keep both, Rename to) gave it there.
fn landed<'j>(job: &'j Job, summary: &Summary) -> Vec<(&'j Path, PathBuf)> {
    let renamed: HashMap<PathBuf, OsString> = summary.record.renamed().into_iter().collect();
    let done: std::collections::HashSet<&Path> =
        summary.done.iter().map(PathBuf::as_path).collect();
    (job.landings().into_iter())
        .filter(|(source, _)| done.contains(source))
        .map(|(source, at)| match renamed.get(source) {
            Some(name) => (source, at.with_file_name(name)),
            None => (source, at),
        })
        .collect()
}

/// What a paste says of the addresses it left out, naming the first: Ferry copies local files
/// only (a web page's address is no file to copy).
fn left_out_words(left_out: &[String]) -> String {
    match left_out {
        [one] => format!("{one} is not a local file, so it was left out."),
        [first, rest @ ..] => format!(
            "{} are not local files, so they were left out ({first}, …).",
            crate::gui::format::counted(rest.len() + 1, "address", "addresses"),
        ),
        [] => String::new(),
    }
}
