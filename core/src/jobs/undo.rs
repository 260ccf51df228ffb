//! Undo of a journaled job, run as an engine job (progress, cancel) that never deletes
//! anything permanently.
//!
//! (The copy's in `undo/copied.rs`, the move's in `undo/moved.rs`.)
//!
//! - Copy: each copy still the same (device, inode, size, mtime) goes to the trash; a folder
//!   goes as a whole when everything in it is an unchanged copy and nothing was added. Changed
//!   items are kept and reported; a copied folder that still holds them stays, and one left
//!   empty is removed (an empty folder holds nothing to lose).
//! - Move: each top-level item still the same (device, inode) is moved back to its original
//!   path, under its own name (one given a free name by Keep both gets it back), by the
//!   engine's move: an original place taken since is a conflict, handled with the undo's
//!   [`ConflictPolicy`] as for a paste (asked with `Ask`; Replace keeps what it replaces).
//!   A folder merged into one of the same name was removed once emptied: it is made again
//!   (empty ones too), and what went into the other folder goes back into it. A folder made
//!   again is a new inode: the undo records it ([`Summary::remade`]), and the undo of an
//!   earlier job that made or moved that folder knows it by its new identity. An item an
//!   earlier run of the undo, killed while putting it back, left at both places is finished
//!   or put back again rather than met as a taken place (`undo_again.rs`).
//! - Rename: renamed back, never over another item: an old name taken since is a conflict,
//!   put back by the engine's move with the undo's policy, as for a move. Create folder:
//!   removed only while empty.
//! - Link: each link still the very one made (device, inode, time and text) goes to the
//!   trash; one replaced since (by a file, another link) is kept and reported. Then what a
//!   link replaced comes back from the staging folder, as for a copy.
//! - Replace (copy or move over an existing file): once the replacement is gone, the old
//!   file comes back from the staging folder it was kept in. When the old file is no longer
//!   kept there (pruned), a copy that replaced it is kept and reported
//!   ([`Error::ReplacedGone`]) rather than trashed, so that one of the two remains.
//! - Trash: the items still in the trash as the job left them are restored, with the undo's
//!   conflict policy. Restore: the items still as the restore left them go back to the trash,
//!   and what the restore replaced comes back; what it merged into a folder goes back to the
//!   trash item by item, the folder stays.
//! - An interrupted or resumed job, or one too large to list, whose record has no per-item
//!   identities, is rolled back by comparing sources and destinations (see
//!   [`recovery`](super::recovery)).

use std::collections::{HashMap, HashSet};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::control::JobCtx;
use super::journal::{CLOCK_SLACK, JournalRecord};
use super::summary::fail;
use super::{
    ConflictPolicy, Event, How, Job, RecordEntry, Summary, Totals, TrashRecord, TrashRoots,
    TrashedItem,
};
use super::{put_back, recovery, single, staging, symlinks, trash};
use crate::entry::Kind;
use crate::error::Error;
use crate::fs::{self, DeepPaths, FileId, Timestamp};

mod copied;
mod moved;
mod restored;

use copied::undo_copy;
use moved::undo_move;

/// Runs the undo of `record`; copies go to the trash folders `roots`; items going back to a
/// place taken since are handled with `policy`.
pub(crate) fn run_job(
    ctx: &JobCtx,
    record: &JournalRecord,
    roots: &TrashRoots,
    policy: ConflictPolicy,
) -> Summary {
    let mut summary = undo_by_kind(ctx, record, roots, policy);
    // What Replace answers set aside (the undo of a move or a trash putting items back over
    // what took their places) goes to the trash: nothing would bring it back from staging.
    if matches!(
        record.job,
        Job::Move { .. } | Job::Rename { .. } | Job::Trash { .. }
    ) && goes_on(ctx, &summary)
    {
        let replaced: Vec<(PathBuf, PathBuf)> = (summary.record.entries())
            .filter_map(|e| Some((e.staged?, e.dest)))
            .collect();
        for (place, error) in trash::trash_replaced(&replaced, roots) {
            fail(ctx, &mut summary, &place, error);
        }
    }
    summary
}

/// Whether the undo's last steps (putting back what its job replaced, trashing what its
/// Replace answers set aside) are taken: unless it was stopped with items left undone. A
/// Ctrl+C that came once every item was back stopped nothing; skipping them then left the
/// undo unfinished, and run again it found its own work "no longer there".
pub(super) fn goes_on(ctx: &JobCtx, summary: &Summary) -> bool {
    !ctx.control.stopped() || summary.not_done.is_empty()
}

fn undo_by_kind(
    ctx: &JobCtx,
    record: &JournalRecord,
    roots: &TrashRoots,
    policy: ConflictPolicy,
) -> Summary {
    match &record.job {
        _ if record.undo_by_comparison() => recovery::roll_back(ctx, record, roots, policy),
        Job::Copy { .. } => undo_copy(ctx, &record.entries, roots),
        Job::Move { .. } => undo_move(ctx, record, policy),
        Job::Rename { .. } => undo_rename(ctx, &record.entries, policy),
        Job::CreateFolder { .. } => undo_create_folder(ctx, &record.entries),
        Job::Link { .. } => undo_link(ctx, &record.entries, roots),
        Job::Trash { .. } => undo_trash(ctx, record, policy),
        Job::Restore { .. } => undo_restore(ctx, record, roots),
        Job::Delete { .. } | Job::EmptyTrash { .. } | Job::Undo { .. } | Job::Resume { .. } => {
            Summary::default()
        }
    }
}

/// The sources of `record`'s job, for the summary of an undo or resume cancelled before it
/// started.
pub(crate) fn paths_of(record: &JournalRecord) -> Vec<PathBuf> {
    match &record.job {
        Job::Copy { sources, .. } | Job::Move { sources, .. } => sources.clone(),
        Job::Rename { path, .. } => vec![path.clone()],
        Job::CreateFolder { parent, name } => vec![parent.join(name)],
        Job::Link { targets, .. } => targets.clone(),
        _ => Vec::new(),
    }
}

/// Devices an undo or resume of `record` touches: the destination folder and the folders
/// the sources are (or were) in.
pub(crate) fn devices_of(record: &JournalRecord) -> Vec<u64> {
    let folders: Vec<&Path> = match &record.job {
        job @ (Job::Trash { .. } | Job::Restore { .. }) => return trash::devices_of(job),
        Job::Link { dest_dir, .. } => vec![dest_dir.as_path()],
        job => match job.transfer() {
            Some((sources, dest_dir, _)) => sources
                .iter()
                .filter_map(|s| s.parent())
                .chain([dest_dir])
                .collect(),
            None => Vec::new(),
        },
    };
    folders
        .into_iter()
        .filter_map(|f| std::fs::metadata(f).ok())
        .map(|m| m.dev())
        .collect()
}

/// Adds what a part of the undo (an engine move) did to the whole.
pub(crate) fn absorb(total: &mut Summary, part: Summary) {
    // What it put back where: whether it went beside or over something (see `put_aside`).
    total.record.append(part.record);
    total.done.extend(part.done);
    total.skipped.extend(part.skipped);
    total.failed.extend(part.failed);
    total.not_done.extend(part.not_done);
    total.trash.extend(part.trash);
    total.remade.extend(part.remade);
    total.stopped_by = total.stopped_by.take().or(part.stopped_by);
}

fn planned(ctx: &JobCtx, items: u64) {
    ctx.emit(Event::Planned {
        job: ctx.id,
        totals: Totals {
            items,
            ..Totals::default()
        },
    });
}

/// What is at `entry.dest` now, compared with what the job left there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Now {
    /// The very item the job left (for files also the same size and mtime).
    Same,
    /// Something else, or the item changed.
    Changed,
    /// Nothing.
    Gone,
}

/// Why the item the job left at `path` is not undone: it changed since, or it is gone.
fn not_as_left(now: Now, path: &Path) -> Error {
    let path = path.to_path_buf();
    match now {
        Now::Gone => Error::GoneSince { path },
        Now::Same | Now::Changed => Error::ChangedSince { path },
    }
}

/// [`not_as_left`] for an item found not to be the one the job left, by a check that does
/// not tell gone from changed.
fn not_as_left_at(path: &Path) -> Error {
    let now = match std::fs::symlink_metadata(path) {
        Ok(_) => Now::Changed,
        Err(_) => Now::Gone,
    };
    not_as_left(now, path)
}

/// The link at `copy` holds the text of the link at `source`, or `source` is gone (a move's
/// source, whose copy is then known by identity, size and time alone).
fn same_link_text(source: &Path, copy: &Path) -> bool {
    match std::fs::read_link(source) {
        Ok(text) => std::fs::read_link(copy).is_ok_and(|t| t == text),
        Err(_) => true,
    }
}

fn now_at(deep: &mut DeepPaths, entry: &RecordEntry, content_too: bool) -> Now {
    let Ok(m) = deep.stat(&entry.dest) else {
        return Now::Gone;
    };
    let same_item = m.id == entry.id;
    // A link removed and made anew often gets the freed inode number back: its text tells.
    let same_content = !content_too
        || !matches!(entry.kind, Kind::File | Kind::Symlink)
        || (m.size == entry.size
            && entry.mtime.kept_as(m.mtime)
            && (entry.kind == Kind::File || same_link_text(&entry.source, &entry.dest)));
    if same_item && same_content {
        Now::Same
    } else {
        Now::Changed
    }
}

/// Puts back the items the job replaced, from the staging folder, where their place is free
/// again (a replacement kept because it changed keeps the old item staged). One no longer
/// kept there is reported where its replacement is.
fn unstage(ctx: &JobCtx, summary: &mut Summary, entries: &[RecordEntry]) {
    for e in entries {
        let Some(staged) = &e.staged else { continue };
        let exists = |p: &Path| std::fs::symlink_metadata(p).is_ok();
        if !exists(staged) {
            let kept = if exists(&e.dest) { &e.dest } else { &e.source };
            let gone = Error::ReplacedGone {
                path: kept.clone(),
                staged: staged.clone(),
            };
            fail(ctx, summary, kept, gone);
            continue;
        }
        if !exists(&e.dest) {
            match fs::rename_noreplace_path(staged, &e.dest) {
                Ok(()) => staging::remove_if_emptied(staged.parent().unwrap_or(staged)),
                Err(err) => fail(ctx, summary, &e.dest, Error::io("put back", &e.dest, err)),
            }
            continue;
        }
        // The job's own item, unchanged, is still there: taking it away failed (and is said);
        // what it replaced waits in staging for the undo to be tried again.
        if now_at(&mut DeepPaths::default(), e, true) == Now::Same {
            continue;
        }
        // Its place holds what the job put there, changed since and kept (said already), or
        // something else: what was replaced comes back beside it, under a keep-both name,
        // rather than stay in the staging folder with the job marked undone.
        let error = match staging::put_back_beside(staged, &e.dest) {
            Some(beside) => Error::PutBackBeside {
                path: beside,
                taken: e.dest.clone(),
            },
            None => Error::ReplacedKept {
                path: e.dest.clone(),
                staged: staged.clone(),
            },
        };
        let path = e.dest.clone();
        fail(ctx, summary, &path, error);
    }
}

/// Renames each item back; one whose old name another item took since is put back by the
/// engine's move, that name a conflict handled with `policy` as for the undo of a move
/// (asked in the window, not failed).
fn undo_rename(ctx: &JobCtx, entries: &[RecordEntry], policy: ConflictPolicy) -> Summary {
    let mut summary = Summary::default();
    let mut taken = Vec::new();
    let mut open = put_back::OpenFolders::default();
    for e in entries {
        let Some(old_name) = e.source.file_name() else {
            continue;
        };
        let now = now_at(&mut DeepPaths::default(), e, false);
        if now != Now::Same {
            fail(ctx, &mut summary, &e.dest, not_as_left(now, &e.dest));
            continue;
        }
        // The item itself under another spelling (`Photo.JPG` renamed `photo.jpg` on FAT,
        // where a lookup by the other spelling may even give another inode number) is no
        // conflict: the rename handles it. Never over another item either way.
        let other_there = std::fs::symlink_metadata(&e.source).is_ok()
            && !(e.dest.parent().zip(e.dest.file_name()))
                .and_then(|(parent, now)| Some((fs::open_dir_path(parent).ok()?, now)))
                .is_some_and(|(dir, now)| single::names_the_item(&dir, old_name, now));
        if !other_there {
            absorb(&mut summary, single::rename(ctx, &e.dest, old_name));
            continue;
        }
        match put_back::folder_of_source(e, &mut open) {
            Ok(dir) => taken.push(put_back::Target {
                source: e.dest.clone(),
                dest: e.source.clone(),
                dir,
            }),
            Err(error) => fail(ctx, &mut summary, &e.dest, error),
        }
    }
    if !taken.is_empty() {
        let modes = std::sync::Arc::default();
        absorb(
            &mut summary,
            put_back::run(ctx, &taken, policy, &modes).summary,
        );
    }
    summary
}

fn undo_create_folder(ctx: &JobCtx, entries: &[RecordEntry]) -> Summary {
    let mut summary = Summary::default();
    planned(ctx, entries.len() as u64);
    for e in entries {
        match now_at(&mut DeepPaths::default(), e, false) {
            now @ (Now::Changed | Now::Gone) => {
                fail(ctx, &mut summary, &e.dest, not_as_left(now, &e.dest));
            }
            // Only an empty folder is removed: anything put in it since stays.
            Now::Same => match std::fs::remove_dir(&e.dest) {
                Ok(()) => {
                    ctx.counters.add_item();
                    summary.done.push(e.dest.clone());
                }
                Err(err) => fail(
                    ctx,
                    &mut summary,
                    &e.dest,
                    Error::io("remove", &e.dest, err),
                ),
            },
        }
    }
    summary
}

/// Trashes the links a link job made that are still the very ones it made, then puts back
/// what they replaced.
fn undo_link(ctx: &JobCtx, entries: &[RecordEntry], roots: &TrashRoots) -> Summary {
    let mut summary = Summary::default();
    let mut links = Vec::new();
    for e in entries {
        match link_now_at(e) {
            Now::Same => links.push(e.dest.clone()),
            // What it replaced comes back in its place (`unstage`).
            Now::Gone if e.staged.is_some() => {}
            now @ (Now::Changed | Now::Gone) => {
                fail(ctx, &mut summary, &e.dest, not_as_left(now, &e.dest));
            }
        }
    }
    if !links.is_empty() {
        absorb(&mut summary, trash::run_trash(ctx, &links, roots));
    }
    if goes_on(ctx, &summary) {
        unstage(ctx, &mut summary, entries);
    }
    summary
}

/// Whether the link a link job made is still at `entry.dest`: the same inode (numbers are
/// reused at once, on ext4 and tmpfs alike), still a link, with the time it was made and
/// its text.
fn link_now_at(entry: &RecordEntry) -> Now {
    let Ok(m) = std::fs::symlink_metadata(&entry.dest) else {
        return Now::Gone;
    };
    let same = m.dev() == entry.id.dev
        && m.ino() == entry.id.ino
        && m.file_type().is_symlink()
        && entry.mtime.kept_as(Timestamp::mtime_of(&m))
        && std::fs::read_link(&entry.dest).ok() == symlinks::link_text(&entry.source).ok();
    if same { Now::Same } else { Now::Changed }
}

/// True when `path` is still the item `id`.
pub(super) fn is_still(path: &Path, id: FileId) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.dev() == id.dev && m.ino() == id.ino)
}

/// Whether the item at `path` was made after `started` (give or take [`CLOCK_SLACK`]), as far
/// as its file system says.
fn born_since(path: &Path, started: std::time::SystemTime) -> bool {
    crate::fs::born_at(path).is_some_and(|born| born > started + CLOCK_SLACK)
}

/// Whether `item`, read from the info file of `r`, is the one the trash job put there, made
/// before `started`: the same inode is not enough, ext4 gives a freed inode number back at
/// once (the item deleted from the trash, another trashed under its name by another tool,
/// and undo brought that one out, saying it had undone the job). Its info file names where
/// the job took it from, and a file has the size and time it had.
fn still_as_trashed(r: &TrashRecord, item: &TrashedItem, started: std::time::SystemTime) -> bool {
    item.original == r.original && holds_as_trashed(&r.file, r, started) == Some(true)
}

/// Whether `path` holds the item `r` records, made before `started` (see
/// [`still_as_trashed`]): its identity, and for a file its size and time; `None` when it
/// holds nothing. A link is not followed (its target failed as "changed").
pub(crate) fn holds_as_trashed(
    path: &Path,
    r: &TrashRecord,
    started: std::time::SystemTime,
) -> Option<bool> {
    Some(holds_as_left(path, r)? && !born_since(path, started))
}

/// Whether `path` holds the item `r` records as the job left it: its identity, and for a
/// file its size and time (a file made since under the name often gets the freed inode
/// number back: the undo of a restore took such a new file to the trash, saying it had
/// undone the job); `None` when it holds nothing.
fn holds_as_left(path: &Path, r: &TrashRecord) -> Option<bool> {
    let now = fs::stat_at(rustix::fs::CWD, path).ok()?;
    Some(
        now.id == r.id
            && (r.kind != Kind::File || (now.size == r.size && r.mtime.kept_as(now.mtime))),
    )
}

/// Restores the items a trash job trashed, those still in the trash as it left them.
fn undo_trash(ctx: &JobCtx, record: &JournalRecord, policy: ConflictPolicy) -> Summary {
    let mut summary = Summary::default();
    let mut items = Vec::new();
    for r in &record.trash {
        match TrashedItem::read(&r.info) {
            Ok(item) if still_as_trashed(r, &item, record.started) => items.push(item),
            // Put back by an earlier run of this undo, stopped (Ctrl-C) before it could say
            // so, or restored by another tool: already undone, and counted so (said undone
            // with nothing undone, its redo was refused). Stopped before it removed the info
            // file, that file is an entry for nothing in the trash.
            _ if is_still(&r.original, r.id) => {
                trash::remove_info_if_gone(ctx, &mut summary, &r.file, &r.info);
                summary.done.push(r.original.clone());
            }
            // Deleted from the trash for good, or restored: said by where it would go back.
            _ if std::fs::symlink_metadata(&r.file).is_err() => {
                let path = r.original.clone();
                fail(
                    ctx,
                    &mut summary,
                    &r.original,
                    Error::GoneFromTrash { path },
                );
            }
            Ok(_) | Err(_) => fail(ctx, &mut summary, &r.file, not_as_left_at(&r.file)),
        }
    }
    if !items.is_empty() {
        absorb(&mut summary, trash::run_restore(ctx, &items, policy));
    }
    summary
}

/// Trashes again the items a restore put back, those still as it left them, then puts back
/// what it replaced.
fn undo_restore(ctx: &JobCtx, record: &JournalRecord, roots: &TrashRoots) -> Summary {
    let mut summary = Summary::default();
    let mut paths = Vec::new();
    // A folder merged into the one there: what went into it goes back, the folder stays. Not
    // one inside an item whose place was free when the job began: merged into by a resume,
    // into what the killed run had made, that item is the job's own and goes back whole.
    // Looked up, not searched: a restore of thousands of folders merged would have compared
    // each with each.
    let taken: HashSet<&Path> = record.preexisting.iter().map(PathBuf::as_path).collect();
    let made: HashSet<&Path> = (record.trash.iter())
        .map(|r| r.original.as_path())
        .filter(|p| !taken.contains(p))
        .collect();
    let merged: HashSet<&Path> = record
        .entries
        .iter()
        .filter(|e| e.how == How::Merged && !e.dest.ancestors().any(|a| made.contains(a)))
        .map(|e| e.dest.as_path())
        .collect();
    let merged_in = record.entries.iter().filter(|e| {
        e.top_level && e.how != How::Merged && e.dest.parent().is_some_and(|p| merged.contains(p))
    });
    let items: HashMap<&Path, &TrashedItem> = match &record.job {
        Job::Restore { items, .. } => items.iter().map(|i| (i.file.as_path(), i)).collect(),
        _ => HashMap::new(),
    };
    let mut folders_back = HashSet::new();
    for e in merged_in {
        match now_at(&mut DeepPaths::default(), e, false) {
            Now::Same => match restored::back_inside(e, &items) {
                restored::Back::Inside(folder) => {
                    summary.done.push(e.dest.clone());
                    if folders_back.insert(folder.file.clone()) {
                        summary.trash.push(folder);
                    }
                }
                restored::Back::Failed(error) => fail(ctx, &mut summary, &e.dest, error),
                restored::Back::Trashed => paths.push(e.dest.clone()),
            },
            now => fail(ctx, &mut summary, &e.dest, not_as_left(now, &e.dest)),
        }
    }
    let mut as_trashed = vec![None; paths.len()];
    // The device of each trash's `files/`, read once per trash, not once per item.
    let mut files_devs: HashMap<&Path, Option<u64>> = HashMap::new();
    for r in record
        .trash
        .iter()
        .filter(|r| !merged.contains(r.original.as_path()))
    {
        if holds_as_left(&r.original, r) == Some(true) {
            paths.push(r.original.clone());
            // One that the restore took to another file system goes back as an item trashed
            // now, into the trash of the disk it is on: its own `Path=` may not be valid
            // there (a volume's trash holds that volume's paths). One that had no info file
            // goes back without one (listed where it is in the trash, as before).
            let files_dev = r.file.parent().and_then(|files| {
                *(files_devs.entry(files))
                    .or_insert_with(|| std::fs::metadata(files).ok().map(|m| m.dev()))
            });
            let same_disk = files_dev == Some(r.id.dev);
            let item = items.get(r.file.as_path()).filter(|_| same_disk);
            as_trashed.push(item.map(|i| trash::AsTrashed {
                original: i.trashed_from.clone(),
                deletion_date: i.deletion_date.clone(),
                name: r.file.file_name().unwrap_or_default().to_owned(),
                info_file: i.trashed_from != i.file,
            }));
        } else if is_still(&r.file, r.id) {
            // Back in the trash as it was: put there by an earlier run of this undo, stopped
            // before it could say so. Recorded as this run's, for a redo to restore it too.
            summary.trash.push(r.clone());
        } else {
            fail(ctx, &mut summary, &r.original, not_as_left_at(&r.original));
        }
    }
    if !paths.is_empty() {
        let part = trash::run_trash_as(ctx, &paths, &as_trashed, roots);
        absorb(&mut summary, part);
    }
    if goes_on(ctx, &summary) {
        unstage(ctx, &mut summary, &record.entries);
    }
    summary
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::jobs::{Engine, StagingRoots, UndoJournal, undo_complete};

    fn run(job: Job, staging: &Path) -> Summary {
        let (engine, events) = Engine::start_with(StagingRoots {
            home: Some(staging.to_path_buf()),
            volumes: false,
        });
        crate::jobs::finished(&events, engine.submit(job))
    }

    /// A journal, trash and staging folder in `dir`, and jobs run and undone through them.
    struct Setup {
        dir: PathBuf,
        journal: UndoJournal,
    }

    impl Setup {
        fn new(dir: &Path) -> Setup {
            let journal = UndoJournal::at(dir.join("state/journal.jsonl"));
            let dir = dir.to_path_buf();
            Setup { dir, journal }
        }

        fn run(&self, job: Job) {
            let seq = self.journal.begin(&job).unwrap().unwrap();
            let summary = run(job, &self.dir.join("staging"));
            self.journal.finish(seq, &summary, false).unwrap();
        }

        fn undo(&self) -> Summary {
            let record = self.journal.undo_candidate().unwrap().unwrap();
            let job = Job::Undo {
                record: Box::new(record),
                trash: TrashRoots::home_only(self.dir.join("trash")),
                on_conflict: ConflictPolicy::Skip,
            };
            run(job, &self.dir.join("staging"))
        }

        fn trashed(&self) -> usize {
            fs::read_dir(self.dir.join("trash/files")).map_or(0, Iterator::count)
        }
    }

    fn failures(summary: &Summary) -> Vec<String> {
        summary.failed.iter().map(|f| f.error.to_string()).collect()
    }

    /// `mv y r; rm r/y; ferry undo`: the item is gone, not changed; nothing more can be done.
    #[test]
    fn undo_of_a_move_says_an_item_deleted_since_is_gone() {
        let tmp = tempfile::tempdir().unwrap();
        let s = Setup::new(tmp.path());
        let y = tmp.path().join("y");
        let r = tmp.path().join("r");
        fs::write(&y, "y").unwrap();
        fs::create_dir(&r).unwrap();
        s.run(Job::Move {
            sources: vec![y.clone()],
            dest_dir: r.clone(),
            dest_name: None,
            on_conflict: ConflictPolicy::Skip,
        });
        fs::remove_file(r.join("y")).unwrap();
        let summary = s.undo();
        let gone = r.join("y");
        assert!(
            matches!(&*summary.failed[0].error, Error::GoneSince { path } if *path == gone),
            "{summary:#?}"
        );
        assert_eq!(
            failures(&summary),
            [format!(
                "{} is no longer there; nothing was undone for it",
                gone.display()
            )]
        );
        assert!(undo_complete(&summary), "nothing a later undo could do");
        assert!(!y.exists());
    }

    /// `ferry cp z q; mv q q2; ferry undo`: the copy is not where it was made, so nothing is
    /// trashed for it, and the undo says so rather than finishing silently.
    #[test]
    fn undo_of_a_copy_says_a_copy_moved_away_since_is_gone_and_trashes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let s = Setup::new(tmp.path());
        let z = tmp.path().join("z");
        let q = tmp.path().join("q");
        fs::write(&z, "z").unwrap();
        fs::create_dir_all(q.join("tree/inner")).unwrap();
        let tree = tmp.path().join("tree");
        fs::create_dir_all(tree.join("inner")).unwrap();
        fs::write(tree.join("inner/f"), "f").unwrap();
        s.run(Job::Copy {
            sources: vec![z, tree],
            dest_dir: q.clone(),
            dest_name: None,
            on_conflict: ConflictPolicy::Merge,
        });
        assert!(q.join("z").exists() && q.join("tree/inner/f").exists());
        let q2 = tmp.path().join("q2");
        fs::rename(&q, &q2).unwrap();
        let summary = s.undo();
        // Once for the copy of z, once for the folder merged into, not for what it held.
        let gone: Vec<&Path> = summary
            .failed
            .iter()
            .filter_map(|f| match &*f.error {
                Error::GoneSince { path } => Some(path.as_path()),
                _ => None,
            })
            .collect();
        assert_eq!(gone.len(), 2, "{summary:#?}");
        assert!(gone.contains(&q.join("z").as_path()) && gone.contains(&q.join("tree").as_path()));
        assert_eq!(summary.failed.len(), 2, "{summary:#?}");
        assert!(undo_complete(&summary));
        assert_eq!(s.trashed(), 0);
        assert!(q2.join("z").exists() && q2.join("tree/inner/f").exists());
    }

    /// A copy that replaced a file and was deleted since: the old file comes back, which is
    /// all its undo is for; nothing to report.
    #[test]
    fn undo_of_a_replace_deleted_since_puts_the_old_file_back_and_says_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let s = Setup::new(tmp.path());
        let z = tmp.path().join("z");
        let q = tmp.path().join("q");
        fs::write(&z, "new").unwrap();
        fs::create_dir(&q).unwrap();
        fs::write(q.join("z"), "old").unwrap();
        s.run(Job::Copy {
            sources: vec![z],
            dest_dir: q.clone(),
            dest_name: None,
            on_conflict: ConflictPolicy::Replace,
        });
        assert_eq!(fs::read(q.join("z")).unwrap(), b"new");
        fs::remove_file(q.join("z")).unwrap();
        let summary = s.undo();
        assert!(summary.failed.is_empty(), "{summary:#?}");
        assert_eq!(fs::read(q.join("z")).unwrap(), b"old");
    }
}
