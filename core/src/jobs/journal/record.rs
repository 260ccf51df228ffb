//! What one record of the journal says: the job, where it stands, its counts, what it did
//! (read from its details file when it is undone or redone), and how to describe it to a
//! person. Reading and writing the log is `journal.rs`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::jobs::{Job, RecordEntry, TrashRecord, TrashedItem};
use crate::shown::Shown;

/// Where a journaled job stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordState {
    /// Started by a process that is still running.
    Running,
    /// Started by a process that ended without finishing it (killed, crashed, power loss).
    Interrupted,
    /// Finished (possibly with failed or skipped items).
    Finished,
    /// Cancelled by the user; what was done before stays done, and undoable.
    Cancelled,
    /// Undone; can be redone.
    Undone,
}

/// Counts of a finished job, for listings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Items done.
    pub done: u64,
    /// Items skipped.
    pub skipped: u64,
    /// Items failed.
    pub failed: u64,
    /// Sources not done (cancelled or stopped).
    pub not_done: u64,
}

/// One journaled job.
#[derive(Debug, Clone)]
pub struct JournalRecord {
    /// Number of the record; grows with every new job.
    pub seq: u64,
    /// When the job (or its latest redo) started; a resume keeps the start of the run it
    /// continues. Whole seconds.
    pub started: SystemTime,
    /// The job as submitted; what redo and resume submit again.
    pub job: Job,
    /// Where it stands.
    pub state: RecordState,
    /// What it created or moved, with identities (empty until it finished). Read from the
    /// record's details file only by
    /// [`UndoJournal::undo_candidate`](super::UndoJournal::undo_candidate) and
    /// [`UndoJournal::redo_candidate`](super::UndoJournal::redo_candidate): empty in
    /// [`UndoJournal::records`](super::UndoJournal::records).
    pub entries: Vec<RecordEntry>,
    /// Counts, once finished.
    pub counts: Counts,
    /// Trash and restore jobs: where each item went, with identities (read like `entries`).
    pub trash: Vec<TrashRecord>,
    /// Once undone: where the undo of a restore put the items back in the trash (for redo;
    /// read like `entries`).
    pub undo_trash: Vec<TrashRecord>,
    /// Top-level destination paths that existed before the job started (copy and move; for
    /// a link, the names of its targets in its folder; for a restore, the original places).
    pub preexisting: Vec<PathBuf>,
    /// It was resumed after an interruption: its entries cover only what the resumed run did,
    /// so undo rolls it back by comparing sources and destinations instead.
    pub resumed: bool,
    /// The job created or moved more than [`MAX_ENTRIES`](super::MAX_ENTRIES) items, so they
    /// were not kept.
    pub entries_dropped: bool,
    /// Process that ran it, and its start time (to tell it from a later one of that number).
    pub(crate) pid: u32,
    pub(crate) pid_start: u64,
    /// Every process that ran it: the first run's, then each resume's. What it staged to
    /// replace is found by these (other journals of the same user share a volume's staging
    /// folder, and number their records alike).
    pub(crate) pids: Vec<u32>,
    /// Its `end` and `undone` lines have details files.
    pub(crate) details: bool,
    pub(crate) undone_details: bool,
    /// Once undone: the newest record's number then (see [`UndoJournal::redo_candidate`](
    /// super::UndoJournal::redo_candidate)); `None` in logs from before it was kept.
    pub(crate) undone_when_newest: Option<u64>,
    /// Once undone: whether its undo put items back beside or over what had taken their
    /// places, and where it kept what it replaced (no redo then).
    pub(crate) undone_aside: Option<Vec<PathBuf>>,
    /// Once undone: how many items its undo did not undo (skipped, changed or gone since),
    /// for listings; 0 in logs from before it was kept.
    pub undone_left: u64,
    /// Once undone: its undo undid nothing at all, so there is nothing to redo.
    pub(crate) undone_nothing: bool,
    /// Staging folders its replaced items went to.
    pub(crate) staging: Vec<PathBuf>,
    /// The details file its `end` (or `undone`) line points to, when it is gone or torn:
    /// the record lost its per-item identities and is undone by comparison (say so). Set
    /// like `entries`.
    pub details_missing: Option<PathBuf>,
    /// Its entries' destinations that the undo of a later job made anew, known by the new
    /// items' identities (set like `entries`): born after the job, as the new items are.
    pub(crate) remade: Vec<PathBuf>,
    /// The process of an undo begun and not recorded as done (its `undo_started` line with
    /// no `undone` after it), and its start time.
    pub(crate) undo_by: Option<(u32, u64)>,
    /// What `undo_by` was before the last undo began: it is again when that undo was refused
    /// before changing anything (an earlier undo stopped part way stays unfinished).
    pub(crate) undo_by_before: Option<(u32, u64)>,
    /// What the record was before a redo started it over, until that redo ends.
    pub(crate) before_redo: Option<Box<JournalRecord>>,
}

impl JournalRecord {
    /// An undo of it began and did not finish: killed, cancelled, or stopped before it had
    /// put everything back (the process that ran it has ended). `ferry undo` finishes it.
    pub fn undo_unfinished(&self) -> bool {
        self.state != RecordState::Undone
            && self
                .undo_by
                .is_some_and(|(pid, start)| !super::is_alive(pid, start))
    }

    /// When the job (or its latest redo) started, in unix seconds: what a roll back counts
    /// as the job's own (trash entries, staged items, files changed) is from then on.
    pub(crate) fn started_secs(&self) -> i64 {
        let secs = (self.started.duration_since(std::time::UNIX_EPOCH)).map_or(0, |d| d.as_secs());
        i64::try_from(secs).unwrap_or(i64::MAX)
    }

    /// It ended having changed nothing: every item skipped or failed, or cancelled before
    /// any was done. Undo passes over it to the job before, as a file manager's undo has no
    /// entry for a copy that skipped everything (KIO adds none), and it is no later job
    /// that ends redo's reach. `ferry history` still lists it.
    pub fn did_nothing(&self) -> bool {
        let c = &self.counts;
        matches!(self.state, RecordState::Finished | RecordState::Cancelled)
            && c.done == 0
            && c.skipped + c.failed + c.not_done > 0
            && !self.details
            && !self.entries_dropped
            && !self.resumed
            && self.staging.is_empty()
    }

    /// True when the job may have left part of what it was given where it was (something
    /// skipped, failed or not done): a moved folder's source may then still be there, holding
    /// it, and its undo puts back into that folder (see `left_behind.rs`). A folder at that
    /// place after a job that left nothing is one made since, whatever its inode number.
    pub fn left_something(&self) -> bool {
        let c = &self.counts;
        self.state == RecordState::Cancelled || c.skipped + c.failed + c.not_done > 0
    }

    /// Its job, or an undo or redo of it, is running or was interrupted and not yet resumed
    /// or rolled back: what it left (a replaced file staged, a source set aside, a half-made
    /// copy) is known only from this record, which the log therefore never drops, however
    /// many records come after it.
    pub(crate) fn unresolved(&self) -> bool {
        matches!(self.state, RecordState::Running | RecordState::Interrupted)
            || self.undo_by.is_some()
            || self.before_redo.is_some()
    }

    /// True when undo must compare sources and destinations, for want of per-item
    /// identities: the job was interrupted, resumed, or too large to list.
    pub fn undo_by_comparison(&self) -> bool {
        self.state == RecordState::Interrupted || self.resumed || self.entries_dropped
    }

    /// The job that redoes this one: the job itself, except for a restore, which restores
    /// the items from where its undo put them in the trash, with the restore's own conflict
    /// policy (a restore that replaced replaces again, as a redone copy does).
    pub fn redo_job(&self) -> Job {
        match &self.job {
            Job::Restore { on_conflict, items } => {
                // Restored into a chosen folder: into the same folder again (the undo gave
                // it back its own `Path=`). By where the restore put it: its folder.
                let chosen: HashMap<&Path, &Path> = items
                    .iter()
                    .filter(|i| i.chosen_folder)
                    .filter_map(|i| Some((i.file.as_path(), i.original.parent()?)))
                    .collect();
                let chosen: HashMap<&Path, &Path> = (self.trash.iter())
                    .filter_map(|t| Some((t.original.as_path(), *chosen.get(t.file.as_path())?)))
                    .collect();
                let item = |r: &TrashRecord| {
                    let item = TrashedItem::read(&r.info).ok()?;
                    Some(match chosen.get(r.original.as_path()) {
                        Some(folder) => item.restore_to(folder),
                        None => item,
                    })
                };
                Job::Restore {
                    items: self.undo_trash.iter().filter_map(item).collect(),
                    on_conflict: *on_conflict,
                }
            }
            job => job.clone(),
        }
    }

    /// What the job worked on, for a person: `a and 3 more -> /dest` for a copy, move or link
    /// (`a -> /dest/new` for one given a new name),
    /// `path -> new name` for a rename, the paths for a trash or restore.
    pub fn describe(&self) -> String {
        let list = |paths: &mut dyn Iterator<Item = &Path>| {
            let first = paths.next().map(|p| Shown(p).to_string());
            let more = paths.count();
            match (first, more) {
                (None, _) => String::new(),
                (Some(first), 0) => first,
                (Some(first), n) => format!("{first} and {n} more"),
            }
        };
        match &self.job {
            // A new name: the path the one source went to.
            job @ (Job::Copy {
                sources,
                dest_name: Some(_),
                ..
            }
            | Job::Move {
                sources,
                dest_name: Some(_),
                ..
            }) => {
                let to = job.landings().into_iter().next().map(|(_, to)| to);
                format!(
                    "{} -> {}",
                    list(&mut sources.iter().map(PathBuf::as_path)),
                    Shown(&to.unwrap_or_default())
                )
            }
            Job::Copy {
                sources, dest_dir, ..
            }
            | Job::Move {
                sources, dest_dir, ..
            }
            | Job::Link {
                targets: sources,
                dest_dir,
                ..
            } => format!(
                "{} -> {}",
                list(&mut sources.iter().map(PathBuf::as_path)),
                Shown(dest_dir)
            ),
            Job::Rename { path, new_name } => {
                format!("{} -> {}", Shown(path), Shown(Path::new(new_name)))
            }
            Job::CreateFolder { parent, name } => Shown(&parent.join(name)).to_string(),
            Job::Trash { paths, .. } => list(&mut paths.iter().map(PathBuf::as_path)),
            Job::Restore { items, .. } => list(&mut items.iter().map(|i| i.original.as_path())),
            _ => String::new(),
        }
    }

    /// A short name of the job kind ("copy", "move", "rename", "create folder", "link").
    pub fn kind(&self) -> &'static str {
        match &self.job {
            Job::Copy { .. } => "copy",
            Job::Move { .. } => "move",
            Job::Rename { .. } => "rename",
            Job::CreateFolder { .. } => "create folder",
            Job::Link { .. } => "link",
            Job::Delete { .. } => "delete",
            Job::Trash { .. } => "trash",
            Job::Restore { .. } => "restore",
            Job::EmptyTrash { .. } => "empty trash",
            Job::Undo { .. } => "undo",
            Job::Resume { .. } => "resume",
        }
    }
}

/// The number of the newest of `records` that did something (see
/// [`JournalRecord::did_nothing`]): what decides which undone records redo may take.
pub(super) fn newest_that_counts(records: &[JournalRecord]) -> Option<u64> {
    records
        .iter()
        .filter(|r| !r.did_nothing())
        .map(|r| r.seq)
        .max()
}
