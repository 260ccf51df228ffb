//! Roll back: the undo of an interrupted or resumed copy or move, whose record has no
//! per-item identities, by comparing sources and destinations (see the parent module's doc).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use super::super::control::JobCtx;
use super::super::journal::{CLOCK_SLACK, JournalRecord, kept_modes};
use super::super::put_back::Modes;
use super::super::summary::fail;
use super::super::undo::absorb;
use super::super::{
    ConflictPolicy, How, Job, Summary, TrashRoots, left_behind, moves, staging, trash,
};
use super::{
    changed_since, is_copy_of, keep_both, link_jobs, policy_of, remove_parts, set_aside, trash_jobs,
};
use crate::error::Error;
use crate::fs::{FileId, Timestamp};

/// Rolls back an interrupted (or resumed) job of `record`; copies go to the trash folders
/// `roots`, and an item going back to a place taken since is decided by `policy`. A resumed
/// trash or restore recorded everything it and the interrupted run did, so its plain undo
/// applies.
pub(crate) fn roll_back(
    ctx: &JobCtx,
    record: &JournalRecord,
    roots: &TrashRoots,
    policy: super::ConflictPolicy,
) -> Summary {
    let mut summary = Summary::default();
    let interrupted = record.state == super::super::journal::RecordState::Interrupted;
    let (dest_dir, is_move) = match &record.job {
        Job::Copy { dest_dir, .. } => (dest_dir, false),
        Job::Move { dest_dir, .. } => (dest_dir, true),
        Job::Trash {
            paths,
            roots: trashed_to,
        } if interrupted => {
            return trash_jobs::roll_back_trash(ctx, record, paths, trashed_to, policy);
        }
        Job::Restore { items, on_conflict } if interrupted => {
            let taken = &record.preexisting;
            return trash_jobs::roll_back_restore(ctx, items, *on_conflict, taken, roots);
        }
        Job::Rename { path, new_name } => {
            return trash_jobs::roll_back_rename(ctx, path, new_name);
        }
        Job::Link {
            targets, dest_dir, ..
        } => return link_jobs::roll_back_link(ctx, record, targets, dest_dir, roots),
        _ => return super::super::undo::run_job(ctx, &finished(record), roots, policy),
    };
    // Unfinished parts of large files are our temporaries, never the user's data.
    match remove_parts(record) {
        Ok(removed) => summary.unfinished_removed = removed,
        Err(e) => fail(ctx, &mut summary, dest_dir, e),
    }
    if is_move {
        set_aside::put_back_before(ctx, &mut summary, record);
    }
    let mut plan = Rollback {
        replaced: Replaced::new(staging::kept_for(record, &ctx.staging, dest_dir), dest_dir),
        since: Some(record.started),
        modes: Arc::new(modes_before(ctx, record)),
        after_killed_run: record.undo_unfinished(),
        policy,
        ..Rollback::default()
    };
    let merges = || record.entries.iter().filter(|e| e.how == How::Merged);
    plan.merged = merges().map(|e| e.dest.clone()).collect();
    plan.folder_modes = merges()
        .filter_map(|e| Some((e.source.clone(), e.source_mode?)))
        .collect();
    let landings = keep_both::on_disk(record, policy_of(record));
    for landing in landings.iter().filter(|l| !l.created) {
        plan.replaced.find_places(&landing.dest, &mut plan.merged);
    }
    for landing in landings {
        let (source, dest) = (&landing.source, &landing.dest);
        if !landing.created {
            plan.merged.insert(dest.clone());
        }
        plan.renames = is_move && same_mount(source, dest);
        if let Err(e) = plan.walk(source, dest, is_move, landing.created) {
            fail(ctx, &mut summary, source, e);
        }
    }
    plan.run(ctx, &mut summary, roots);
    summary
}

/// `copies`, where a folder is one whose items going back did not all leave it (see
/// [`Collapsed`]), it is replaced by what it stands for (its copies, unfolded in turn), and
/// the folders it would have removed go back to `emptied`.
fn unfold(
    copies: Vec<PathBuf>,
    collapsed: &mut HashMap<PathBuf, Collapsed>,
    emptied: &mut Vec<PathBuf>,
) -> Vec<PathBuf> {
    let mut unfolded = Vec::with_capacity(copies.len());
    for copy in copies {
        match collapsed.remove(&copy) {
            Some(folder) if folder.leaving.iter().any(|p| p.symlink_metadata().is_ok()) => {
                emptied.extend(folder.emptied);
                unfolded.extend(unfold(folder.copies, collapsed, emptied));
            }
            _ => unfolded.push(copy),
        }
    }
    unfolded
}

/// The files with several names among `items` and what they hold, by identity, and where
/// each will be once moved into `dest` (a folder, and a new name for a single item).
fn linked_files(
    items: &[PathBuf],
    (parent, name): (&Path, Option<&OsStr>),
) -> HashMap<FileId, PathBuf> {
    fn walk(from: &Path, to: PathBuf, found: &mut HashMap<FileId, PathBuf>) {
        let Ok(meta) = fs::symlink_metadata(from) else {
            return;
        };
        if meta.is_dir() {
            for entry in fs::read_dir(from).into_iter().flatten().flatten() {
                walk(&entry.path(), to.join(entry.file_name()), found);
            }
        } else if meta.is_file() && meta.nlink() > 1 {
            let id = FileId {
                dev: meta.dev(),
                ino: meta.ino(),
            };
            found.entry(id).or_insert(to);
        }
    }
    let mut found = HashMap::new();
    for item in items {
        if let Some(own) = name.or(item.file_name()) {
            walk(item, parent.join(own), &mut found);
        }
    }
    found
}

/// The modes a move's items had before it took them to a disk that kept none, by where it
/// put them: those kept before its sources went (`kept_modes.rs`), and its record's (a
/// resumed run's).
fn modes_before(ctx: &JobCtx, record: &JournalRecord) -> HashMap<PathBuf, u16> {
    let kept =
        (ctx.details.as_deref()).and_then(|folder| kept_modes::read(folder, record.seq).ok());
    let mut modes = kept.unwrap_or_default();
    let recorded = record.entries.iter();
    modes.extend(recorded.filter_map(|e| Some((e.dest.clone(), e.source_mode?))));
    modes
}

/// A finished-looking copy of `record`, for the jobs whose rollback is their plain undo
/// (create folder; trash and restore once resumed).
fn finished(record: &JournalRecord) -> JournalRecord {
    JournalRecord {
        state: super::super::journal::RecordState::Finished,
        resumed: false,
        entries_dropped: false,
        ..record.clone()
    }
}

/// What rolling back an interrupted copy or move (or a restore across file systems) does.
#[derive(Default)]
pub(super) struct Rollback {
    /// Copies identical to their sources: moved to the trash, or removed when `discard`. A
    /// folder the job created that holds only such copies goes to the trash whole: one entry,
    /// not thousands of loose files.
    copies: Vec<PathBuf>,
    /// Folders among `copies` that hold items going back too, by path: what they stand for
    /// (see [`Collapsed`]), should one of those items not leave.
    collapsed: HashMap<PathBuf, Collapsed>,
    /// The sources stay whole where the rest of the job is going back to (the trash, for a
    /// restore), so a copy is a duplicate of the job's own making, not worth a trash entry.
    discard: bool,
    /// Items a move carried over completely, by the folder they go back to and the name
    /// they go back under when it is not the one they have (`mv src dest/new-name`).
    back: BTreeMap<(PathBuf, Option<OsString>), Vec<PathBuf>>,
    /// Destination folders the job created, parents first, removed at the end if empty.
    emptied: Vec<PathBuf>,
    /// What the job moved aside to replace it, put back at the end.
    replaced: Replaced,
    /// The modes of what goes back, by where it is, from a disk that kept none.
    modes: Modes,
    /// The landing being walked is a move within one mount: its items were renamed.
    renames: bool,
    /// Destination folders the job merged into, that the record names: the top-level places
    /// taken before it, and the merges of a resumed run.
    merged: HashSet<PathBuf>,
    /// The modes of the source folders merged, by their paths (a resumed run's record).
    folder_modes: HashMap<PathBuf, u16>,
    /// When the job started (by the clock file times are stamped with, to the nanosecond in
    /// logs that keep it): where it did not create the place, a file changed last before then
    /// is not its copy, however like its source (one the job skipped in a folder it merged
    /// into, say, made earlier by `cp -a`), nor an item it moved there. Every item the job
    /// writes or renames is changed after it starts. `None`: no such test.
    since: Option<SystemTime>,
    /// An earlier run of this roll back was killed (its undo is unfinished): what it had put
    /// back counts below.
    after_killed_run: bool,
    /// Folders at their old places that the killed run was filling (see [`Refill`]).
    refills: Vec<Refill>,
    /// How an item going back meets its place taken: the undo's answer, as when a finished
    /// move is undone.
    policy: ConflictPolicy,
    /// The item noted last to go back.
    last_gone_back: Option<PathBuf>,
    /// Files with several names that the killed run had put back, by the identity of the
    /// copy where the job put them: the names still to go back are linked to them, not
    /// copied apart.
    back_linked: Vec<(FileId, PathBuf)>,
    /// The job's copies changed since (edited after the crash): kept, and said, as a
    /// finished job's undo says it. Kept without a word, the roll back said it undid all.
    changed: Vec<PathBuf>,
}

/// A folder the job made, trashed whole once the items going back have left it: its copies
/// (files, and folders of copies), the folders below it that it would remove once emptied,
/// and the items in it, at any depth, that go back. One that does not leave (skipped, its
/// place taken; failed) keeps the folder from going whole: it went to the trash with the
/// copies, said to be left for another undo.
#[derive(Default)]
struct Collapsed {
    copies: Vec<PathBuf>,
    emptied: Vec<PathBuf>,
    leaving: Vec<PathBuf>,
}

/// A folder at its old place that a killed run of the roll back made and was filling (it
/// gives a folder its mode, attributes and times only once full): the rest goes back into
/// it, then it gets those of the folder it is filled from, read before anything moved out
/// (that folder may go to the trash whole first, everything in it being back).
struct Refill {
    folder: PathBuf,
    xattrs: Option<crate::fs::Xattrs>,
    mode: Option<u32>,
    atime: Timestamp,
    mtime: Timestamp,
}

/// A destination, its metadata, and whether the job created it.
type To<'a> = (&'a Path, &'a fs::Metadata, bool);

impl Refill {
    /// Best effort, as the move it finishes would have: a folder left 0700 loses no data.
    fn finish(&self) {
        let Ok(folder) = crate::fs::open_dir_path(&self.folder) else {
            return;
        };
        if let Some(xattrs) = &self.xattrs {
            let _ = crate::fs::write_xattrs(&folder, xattrs);
        }
        if let Some(mode) = self.mode {
            let _ = rustix::fs::fchmod(&folder, rustix::fs::Mode::from_raw_mode(mode));
        }
        let _ = crate::fs::set_times_fd(&folder, self.atime, self.mtime);
    }
}

/// The items an interrupted job moved into the staging folder to replace them: found by the
/// hash of the path they were at (see `staging.rs`), matched to paths as the roll back walks.
#[derive(Default)]
struct Replaced {
    /// Not matched yet, by path hash, oldest first.
    kept: HashMap<u64, Vec<PathBuf>>,
    /// Matched: where each is kept, and the path it goes back to.
    found: Vec<(PathBuf, PathBuf)>,
    /// The paths found in the destination that hash as a kept item's place, to name it by
    /// should it stay unmatched.
    places: HashMap<u64, PathBuf>,
    /// The files kept, by (device, inode): another name of one is the user's file, never
    /// the job's copy.
    inodes: HashSet<(u64, u64)>,
    /// The job's destination folder.
    dest_dir: PathBuf,
}

impl Replaced {
    /// The items `kept` for a job writing into `dest_dir`.
    fn new(kept: HashMap<u64, Vec<PathBuf>>, dest_dir: &Path) -> Self {
        let inodes = (kept.values().flatten())
            .filter_map(|staged| fs::symlink_metadata(staged).ok())
            .filter(|m| m.is_file())
            .map(|m| (m.dev(), m.ino()))
            .collect();
        Replaced {
            kept,
            inodes,
            dest_dir: dest_dir.to_path_buf(),
            ..Replaced::default()
        }
    }

    /// True when the job replaced what was at `dest` (and kept it to put back).
    fn at(&mut self, dest: &Path) -> bool {
        if self.kept.is_empty() {
            return false;
        }
        let hash = staging::path_hash(dest);
        let Some(staged) = self.kept.get_mut(&hash) else {
            return false;
        };
        // Oldest first: the item that was there before the job; a later one could only have
        // been staged from what the job itself put there.
        let first = staged.remove(0);
        if staged.is_empty() {
            self.kept.remove(&hash);
        }
        self.found.push((first, dest.to_path_buf()));
        true
    }

    /// Walks `top`, a destination the job merged into, for the places it replaced items at:
    /// notes each (`places`), and takes each folder above one, up to `top`, for one the job
    /// merged into (`merged`), since a Replace happens only in a folder that was there. The
    /// roll back follows the sources, and a move removes each source folder it emptied: a
    /// folder whose every file was replaced, and each above it holding only such folders,
    /// looked moved there whole, so none of their files went back and no old file either.
    fn find_places(&mut self, top: &Path, merged: &mut HashSet<PathBuf>) {
        if self.kept.is_empty() {
            return;
        }
        let Ok(top_dev) = fs::symlink_metadata(top).map(|m| m.dev()) else {
            return;
        };
        let mut stack = vec![top.to_path_buf()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                let hash = staging::path_hash(&path);
                if self.kept.contains_key(&hash) {
                    let above = path.ancestors().skip(1);
                    merged.extend(above.take_while(|a| a.starts_with(top)).map(Path::to_owned));
                    self.places.insert(hash, path.clone());
                }
                // Never into another file system: a move never went there.
                if entry.file_type().is_ok_and(|t| t.is_dir())
                    && entry.metadata().is_ok_and(|m| m.dev() == top_dev)
                {
                    stack.push(path);
                }
            }
        }
    }

    /// Puts every matched item back where it was, if that place is free now; reports the
    /// others, and those never matched, as kept.
    fn put_back(self, ctx: &JobCtx, summary: &mut Summary) {
        for (staged, dest) in self.found {
            match crate::fs::rename_noreplace_path(&staged, &dest) {
                Ok(()) => {}
                Err(rustix::io::Errno::EXIST | rustix::io::Errno::NOTEMPTY) => {
                    let kept = Error::ReplacedKept {
                        path: dest.clone(),
                        staged,
                    };
                    fail(ctx, summary, &dest, kept);
                }
                Err(e) => fail(ctx, summary, &dest, Error::io("put back", &dest, e)),
            }
        }
        for (hash, staged) in self.kept {
            // Its own path where the destination still has it, not just the job's folder.
            let path = self.places.get(&hash).unwrap_or(&self.dest_dir);
            for staged in staged {
                let kept = Error::ReplacedKept {
                    path: path.clone(),
                    staged,
                };
                fail(ctx, summary, path, kept);
            }
        }
    }
}

impl Rollback {
    /// A roll back whose copies are removed rather than trashed (see [`Rollback::discard`]).
    pub(super) fn discarding() -> Self {
        Rollback {
            discard: true,
            ..Rollback::default()
        }
    }

    /// Moves back what was carried over completely, trashes the copies (a folder the job
    /// made goes whole once what goes back has left it), puts back what the job replaced,
    /// then removes the folders the job created that are left empty.
    pub(super) fn run(self, ctx: &JobCtx, summary: &mut Summary, roots: &TrashRoots) {
        super::super::lock(&ctx.linked_copies).extend(self.back_linked);
        for path in self.changed {
            fail(
                ctx,
                summary,
                &path,
                Error::ChangedSince { path: path.clone() },
            );
        }
        // Each folder's items go back by a move of their own: files with other names going
        // back by another move are linked to their first copy, as in one move.
        let several_moves = self.back.len() > 1;
        for ((parent, name), items) in self.back {
            if ctx.control.stopped() {
                summary.not_done.extend(items);
            } else {
                // A source folder the move emptied and removed (merged into one of its name),
                // made anew with the mode it had where the record says it.
                let missing: Vec<PathBuf> = (parent.ancestors())
                    .take_while(|a| !a.exists())
                    .map(Path::to_path_buf)
                    .collect();
                if let Err(e) = fs::create_dir_all(&parent) {
                    for item in &items {
                        fail(
                            ctx,
                            summary,
                            item,
                            Error::io("create folder", &parent, e.kind()),
                        );
                    }
                    continue;
                }
                for dir in &missing {
                    if let Some(&mode) = self.folder_modes.get(dir) {
                        use std::os::unix::fs::PermissionsExt;
                        let mode = fs::Permissions::from_mode(u32::from(mode) & 0o7777);
                        let _ = fs::set_permissions(dir, mode);
                    }
                }
                let dest = (parent.as_path(), name.as_deref());
                let linked = match several_moves {
                    true => linked_files(&items, dest),
                    false => HashMap::new(),
                };
                let moved = moves::run_job_with_modes(ctx, &items, dest, self.policy, &self.modes);
                absorb(summary, moved);
                let arrived = linked
                    .into_iter()
                    .filter(|(_, at)| at.symlink_metadata().is_ok());
                super::super::lock(&ctx.linked_copies).extend(arrived);
            }
        }
        // Deepest first, each before the folder it is filled from goes.
        for refill in self.refills.iter().rev() {
            refill.finish();
        }
        let (mut emptied, mut collapsed) = (self.emptied, self.collapsed);
        let copies = unfold(self.copies, &mut collapsed, &mut emptied);
        if self.discard {
            for copy in &copies {
                if let Err(e) = fs::remove_file(copy) {
                    fail(ctx, summary, copy, Error::io("remove", copy, e));
                }
            }
        } else if !copies.is_empty() {
            absorb(summary, trash::run_trash(ctx, &copies, roots));
        }
        // Before the emptied folders go: a folder taken for the job's (made in the second the
        // job started) may be where a replaced item goes back, and holding it, it stays.
        self.replaced.put_back(ctx, summary);
        for dir in emptied.iter().rev() {
            // Only emptied folders the job created go; one still holding anything stays.
            let _ = fs::remove_dir(dir);
        }
    }

    /// Adds what the job did from `source` to `dest` (`created`: a destination folder the
    /// job made, rather than one it merged into). True when everything at `dest` is the job's
    /// copy of `source`.
    pub(super) fn walk(
        &mut self,
        source: &Path,
        dest: &Path,
        is_move: bool,
        created: bool,
    ) -> Result<bool, Error> {
        // What is at a place the job replaced is the job's, whatever was there before.
        let created = self.replaced.at(dest) || created;
        let Ok(d) = fs::symlink_metadata(dest) else {
            return Ok(false); // not reached by the job, or moved aside to replace it
        };
        let Ok(s) = fs::symlink_metadata(source) else {
            // A folder the job merged into, its source folder gone once emptied (a resumed
            // move), stays: what the job moved into it goes back item by item. Taken whole,
            // the user's own items in it went to the source too.
            if is_move && !created && d.is_dir() && self.merged_into(dest) {
                // Made by the run a resume continued, merged into by the resume: it goes once
                // emptied.
                if self.born_since(&d) {
                    self.emptied.push(dest.to_path_buf());
                }
                for entry in fs::read_dir(dest).map_err(|e| Error::io("read folder", dest, e))? {
                    let entry = entry.map_err(|e| Error::io("read folder", dest, e))?;
                    let child = source.join(entry.file_name());
                    self.walk(&child, &entry.path(), is_move, false)?;
                }
                return Ok(false);
            }
            if is_move && self.moved_here(dest, &d, created) {
                self.goes_back(source, dest);
            }
            return Ok(false);
        };
        if s.is_dir() && d.is_dir() {
            if is_move {
                self.note_refill((source, &s), (dest, &d, created));
            }
            let (copies, emptied) = (self.copies.len(), self.emptied.len());
            // One made in a folder the job merged into is its own too, born since it started;
            // it goes only if emptied, and what is in it counts as in a merged folder.
            if created || self.born_since(&d) {
                self.emptied.push(dest.to_path_buf());
            }
            let mut all_copies = true;
            let mut leaving = Vec::new();
            for entry in fs::read_dir(dest).map_err(|e| Error::io("read folder", dest, e))? {
                let entry = entry.map_err(|e| Error::io("read folder", dest, e))?;
                // Inside a folder the job created, everything is the job's; inside one it
                // merged into, only what is identical to a source counts as its copy.
                let copy = self.walk(
                    &source.join(entry.file_name()),
                    &entry.path(),
                    is_move,
                    created,
                )?;
                // One going back leaves the folder: a move across disks killed while removing
                // its sources left a folder of copies and of items whose sources were gone,
                // and each copy went to the trash by itself, hundreds of entries.
                let path = entry.path();
                if self.last_gone_back.as_ref() == Some(&path) {
                    leaving.push(path);
                } else if let Some(below) = self.collapsed.get(&path) {
                    leaving.extend(below.leaving.iter().cloned());
                } else {
                    all_copies &= copy;
                }
            }
            if !self.replaced.kept.is_empty() {
                // Moved aside to be replaced, and not replaced yet when the job stopped.
                for entry in
                    fs::read_dir(source).map_err(|e| Error::io("read folder", source, e))?
                {
                    let entry = entry.map_err(|e| Error::io("read folder", source, e))?;
                    let missing = dest.join(entry.file_name());
                    if fs::symlink_metadata(&missing).is_err() {
                        self.replaced.at(&missing);
                    }
                }
            }
            let whole = created && all_copies;
            if whole && !self.discard {
                let mut folder = Collapsed {
                    leaving,
                    ..Collapsed::default()
                };
                if self.copies.len() > copies {
                    folder.copies = self.copies.split_off(copies);
                    folder.emptied = self.emptied.split_off(emptied);
                    self.copies.push(dest.to_path_buf());
                }
                // Known by the folder above too, which may go whole with it.
                if !folder.leaving.is_empty() {
                    self.collapsed.insert(dest.to_path_buf(), folder);
                }
            }
            Ok(whole)
        } else if is_copy_of(source, &s, dest, &d, self.since) && (created || self.made_since(&d)) {
            if is_move && d.is_file() && d.nlink() > 1 {
                let id = FileId {
                    dev: d.dev(),
                    ino: d.ino(),
                };
                self.back_linked.push((id, source.to_path_buf()));
            }
            self.copies.push(dest.to_path_buf());
            Ok(true)
        } else {
            // The item moved here, its source made anew since (after the crash): it goes back
            // as a finished move's undo puts back an item whose place is taken, by the undo's
            // answer to the conflict (asked, skipped and said, or kept both). Left where it
            // was, the roll back said nothing and called the job undone.
            if is_move && self.made_anew(&s) && self.moved_here(dest, &d, created) {
                self.goes_back(source, dest);
            } else if !d.is_dir() && self.made_since(&d) {
                // Made since the job began under a name it copies to, and not a copy of its
                // source: the job's copy, changed since.
                self.changed.push(dest.to_path_buf());
            }
            Ok(false)
        }
    }

    /// Whether `dest` (of `d`), whose source is gone or made anew, is an item the move put
    /// there (`created`: in a folder the job made).
    ///
    /// In a folder the job merged into, an item is the job's when it changed since the job
    /// started (a rename, or a copy made, changes it): the user's own items there were never
    /// moved, and one of the same name as a source would have been a conflict, its source
    /// left. On FAT and exFAT a moved item keeps its source's times, with no change time of
    /// its own: the modes kept before its source went name it (nothing went back). A move
    /// within one mount renames, which keeps an item's birth time: one born surely after the
    /// job started was saved there since (after the crash), not moved. (Surely: the start is
    /// read from the coarse clock, a birth stamped by the precise one, a tick ahead: a source
    /// made just before the job looked born since.)
    fn moved_here(&self, dest: &Path, d: &fs::Metadata, created: bool) -> bool {
        let saved_since = self.renames && self.born_surely_since(d);
        created || (self.changed_since(d) && !saved_since) || self.modes.contains_key(dest)
    }

    /// Whether the source item of `s` was made after the job started, surely (by its birth
    /// time, or its change time where the file system keeps no birth time): not the source
    /// the job left (skipped, or not reached), but one made in its place since.
    fn made_anew(&self, s: &fs::Metadata) -> bool {
        let Some(since) = self.since else {
            return false;
        };
        match s.created() {
            Ok(_) => self.born_surely_since(s),
            Err(_) => super::surely_after(s, since),
        }
    }

    /// Notes `dest` to be moved back to `source`'s place.
    fn goes_back(&mut self, source: &Path, dest: &Path) {
        let parent = source.parent().unwrap_or(Path::new("/")).to_path_buf();
        let renamed = (source.file_name() != dest.file_name())
            .then(|| source.file_name().map(OsStr::to_os_string))
            .flatten();
        let group = self.back.entry((parent, renamed)).or_default();
        group.push(dest.to_path_buf());
        self.last_gone_back = Some(dest.to_path_buf());
    }

    /// Notes the folder `source` (of metadata `s`) as one a killed run of this roll back was
    /// filling from `dest` (of `d`): made since the job started, and still 0700, the mode a
    /// folder is filled with.
    ///
    /// Or, for its times only, a source folder of a move that lost items to the move's
    /// removals (changed since the job started) where the job made the copy (`created`): a
    /// move removes sources only once every copy is on disk, each folder's with its source's
    /// times, so the copy holds the time the folder had. It kept the time of the removals.
    fn note_refill(&mut self, (source, s): (&Path, &fs::Metadata), (dest, d, created): To<'_>) {
        let killed_runs = self.after_killed_run && s.mode() & 0o7777 == 0o700 && self.made_since(s);
        let emptied_some =
            created && (self.since).is_some_and(|t| left_behind::moved_out_since(s, t));
        if !killed_runs && !emptied_some {
            return;
        }
        let atime = Timestamp::atime_of(d);
        let mode = self.modes.get(dest).map_or(d.mode(), |&m| u32::from(m));
        let xattrs = crate::fs::open_dir_path(dest).ok();
        self.refills.push(Refill {
            folder: source.to_path_buf(),
            xattrs: xattrs
                .filter(|_| killed_runs)
                .and_then(|fd| crate::fs::read_xattrs(&fd).ok()),
            mode: killed_runs.then_some(mode & 0o7777),
            atime,
            mtime: Timestamp::mtime_of(d),
        });
    }

    /// Whether the folder `dest`, whose source is gone, is one the job merged into rather than
    /// one it moved there: the record says so (a top-level place taken before the job, a
    /// resumed run's merge), or it holds both items changed since the job started (moved in)
    /// and items not (the user's own; a folder moved there whole holds none changed).
    fn merged_into(&self, dest: &Path) -> bool {
        if self.merged.contains(dest) {
            return true;
        }
        let Ok(entries) = fs::read_dir(dest) else {
            return false;
        };
        let (mut changed, mut unchanged) = (false, false);
        for meta in entries.flatten().filter_map(|e| e.metadata().ok()) {
            match self.changed_since(&meta) {
                true => changed = true,
                false => unchanged = true,
            }
            if changed && unchanged {
                return true;
            }
        }
        false
    }

    /// Whether the item of `meta` was made at or after the job's start (its birth time, where
    /// the file system keeps one).
    fn born_since(&self, meta: &fs::Metadata) -> bool {
        let (Some(since), Ok(born)) = (self.since, meta.created()) else {
            return false;
        };
        born >= since
    }

    /// [`born_since`](Self::born_since) by more than the coarse clock's lag
    /// ([`CLOCK_SLACK`]).
    fn born_surely_since(&self, meta: &fs::Metadata) -> bool {
        let (Some(since), Ok(born)) = (self.since, meta.created()) else {
            return false;
        };
        born > since + CLOCK_SLACK
    }

    /// Whether the file of `meta`, identical to its source where the job did not create the
    /// place, is the job's copy rather than one that was there before: not another name of a
    /// file the job replaced, and made since the job started, by its birth time where the
    /// file system keeps one, else by its ctime. The ctime alone is no proof: staging one name
    /// of a file, or linking or unlinking one, changes it for every name, and a name the job
    /// never reached went to the trash.
    fn made_since(&self, meta: &fs::Metadata) -> bool {
        if self.replaced.inodes.contains(&(meta.dev(), meta.ino())) {
            return false;
        }
        match (self.since, meta.created()) {
            (Some(since), Ok(born)) => born >= since,
            _ => self.changed_since(meta),
        }
    }

    /// Whether the item of `meta` changed (its inode's ctime) at or after the job's start;
    /// true without a start to compare with.
    fn changed_since(&self, meta: &fs::Metadata) -> bool {
        self.since.is_none_or(|since| changed_since(meta, since))
    }
}

/// Whether `dest` is on the mount of `source`, or of the nearest folder above it still there
/// (a move removes each source folder it empties).
fn same_mount(source: &Path, dest: &Path) -> bool {
    let mount = |p: &Path| crate::fs::stat_path(p).ok().map(|m| m.mnt_id);
    let source_mount = source.ancestors().find_map(mount);
    source_mount.is_some() && source_mount == mount(dest)
}

#[cfg(test)]
mod tests;
