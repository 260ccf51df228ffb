//! The trash job: each item moved into the trash of its own file system, its info file
//! written first (see the module docs of `trash.rs`). Items go in batches: their names are
//! claimed (info files written), the info files flushed together, then the items moved.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rustix::io::Errno;

use super::claim::{Claimed, Moved, Places, Trashes, claim, flush, now_stamp};
use super::{TrashRecord, TrashRoots};
use crate::entry::Kind;
use crate::error::{Error, Result};
use crate::fs::{self, Meta, MountTable};
use crate::jobs::control::JobCtx;
use crate::jobs::progress::TICK;
use crate::jobs::{Event, Failed, Phase, Skipped, Summary, Totals};

/// How an item a restore took out of the trash goes back when the restore is undone: as the
/// entry it was (its `Path=`, `DeletionDate` and name in `files/`), not as an item trashed
/// now from where the restore put it (a chosen folder, or a "(copy)" name beside another).
#[derive(Debug, Clone)]
pub(crate) struct AsTrashed {
    pub(crate) original: PathBuf,
    pub(crate) deletion_date: String,
    pub(crate) name: OsString,
    /// False for an entry that had no info file: it goes back without one, as it was (one is
    /// written all the same to claim its name, as for any item, and removed once it is in).
    pub(crate) info_file: bool,
}

/// Items claimed (their info files written) before their info files are flushed and they
/// move.
const BATCH: usize = 256;

/// Folders the items of a batch may be in, and trash folders of other disks they may go to,
/// before it is flushed, at most: each is held open until its items move (see
/// [`fs::folders_held_at_once`]). Should the limit still be reached, the batch is flushed
/// then.
const FOLDERS_PER_BATCH: usize = 32;

/// Runs a trash job: each path is moved into the trash of its own file system.
pub(crate) fn run_trash(ctx: &JobCtx, paths: &[PathBuf], roots: &TrashRoots) -> Summary {
    run_trash_as(ctx, paths, &[], roots)
}

/// [`run_trash`], the item at `paths[i]` written into the trash as `as_trashed[i]` says
/// where it has one.
pub(crate) fn run_trash_as(
    ctx: &JobCtx,
    paths: &[PathBuf],
    as_trashed: &[Option<AsTrashed>],
    roots: &TrashRoots,
) -> Summary {
    ctx.emit(Event::Planned {
        job: ctx.id,
        totals: Totals {
            items: paths.len() as u64,
            ..Totals::default()
        },
    });
    let mut run = Run::new(ctx, paths.len());
    let mounts = MountTable::read();
    let state = crate::jobs::caution::state_folder();
    let job = Batches {
        paths,
        as_trashed,
        places: Places {
            roots,
            mounts: &mounts,
            state: state.as_ref(),
            uid: rustix::process::getuid().as_raw(),
        },
    };
    let mut trashes = Trashes::default();
    let folders_per_batch = fs::folders_held_at_once(FOLDERS_PER_BATCH);
    let mut claimed: Vec<(usize, Claimed)> = Vec::with_capacity(BATCH.min(paths.len()));
    for (i, path) in paths.iter().enumerate() {
        if !run.step(i, path) {
            // What is claimed moves (its info files are written: there was room), the rest
            // waits.
            job.move_claimed(&mut claimed, &mut trashes, &mut run);
            run.summary.not_done.extend_from_slice(&paths[i..]);
            break;
        }
        let mut claim = job.claim(i, &mut trashes, false);
        if claim.as_ref().is_err_and(Error::out_of_descriptors) && !claimed.is_empty() {
            // The folders the batch holds open are let go, and the item tried again.
            job.move_claimed(&mut claimed, &mut trashes, &mut run);
            claim = job.claim(i, &mut trashes, false);
        }
        match claim {
            Ok(item) => claimed.push((i, item)),
            Err(e) => run.fail(path.clone(), e),
        }
        let full = claimed.len() == BATCH || trashes.held() >= folders_per_batch;
        if full || i + 1 == paths.len() {
            job.move_claimed(&mut claimed, &mut trashes, &mut run);
        }
    }
    super::sizes::trashed(&run.summary.trash);
    run.finish()
}

/// A trash job's items, and what they are checked against.
struct Batches<'a> {
    paths: &'a [PathBuf],
    as_trashed: &'a [Option<AsTrashed>],
    places: Places<'a>,
}

impl Batches<'_> {
    fn as_trashed(&self, i: usize) -> Option<&AsTrashed> {
        self.as_trashed.get(i).and_then(Option::as_ref)
    }

    /// Claims item `i` (see [`claim`]).
    fn claim(&self, i: usize, trashes: &mut Trashes, retried: bool) -> Result<Claimed> {
        let (path, as_trashed) = (&self.paths[i], self.as_trashed(i));
        claim(path, as_trashed, self.places, trashes, retried)
    }

    /// Flushes the info files of the `claimed` items, then moves each into the trash, and
    /// lets go of the folders they were in.
    fn move_claimed(
        &self,
        claimed: &mut Vec<(usize, Claimed)>,
        trashes: &mut Trashes,
        run: &mut Run<'_>,
    ) {
        flush(claimed.iter_mut().map(|(_, item)| item));
        let mut folders_moved: Vec<PathBuf> = Vec::new();
        for (at, item) in claimed.drain(..) {
            let path = &self.paths[at];
            let moved = if folders_moved.iter().any(|f| item.original().starts_with(f)) {
                // Its folder, given too, went to the trash just before: it went with it, as
                // when trashed one by one (moved through its folder's descriptor, it was
                // taken back out of the trashed folder).
                item.unclaim();
                Err(Error::io("stat", item.original(), Errno::NOENT))
            } else {
                match item.commit() {
                    Moved::Into(record) => Ok(record),
                    // A name in `files/` taken since it was claimed: the item tries the next
                    // one on its own.
                    Moved::NameTaken => {
                        trash_one(path, self.as_trashed(at), self.places, trashes, true)
                    }
                    Moved::Failed(e) => Err(e),
                }
            };
            match moved {
                Ok(record) => {
                    if record.kind == Kind::Dir {
                        folders_moved.push(record.original.clone());
                    }
                    run.done(path.clone(), record);
                }
                Err(e) => run.fail(path.clone(), e),
            }
        }
        trashes.let_go();
    }
}

/// Moves to the trash what an undo's Replace answers set aside, each `(staged, place)`
/// listed as trashed from the place it was replaced at. An undo is not undone in turn, so
/// kept in the staging folder such an item was out of the user's sight, pruned after a week,
/// while the dialog had said Undo would bring it back. Returns each place whose item could
/// not be trashed (it stays in the staging folder), with why.
pub(crate) fn trash_replaced(
    replaced: &[(PathBuf, PathBuf)],
    roots: &TrashRoots,
) -> Vec<(PathBuf, Error)> {
    let mounts = MountTable::read();
    let places = Places {
        roots,
        mounts: &mounts,
        state: None,
        uid: rustix::process::getuid().as_raw(),
    };
    let mut trashes = Trashes::default();
    let mut failed = Vec::new();
    for (staged, place) in replaced {
        let as_trashed = AsTrashed {
            original: place.clone(),
            deletion_date: now_stamp(),
            name: place.file_name().unwrap_or(place.as_os_str()).to_owned(),
            info_file: true,
        };
        if let Err(e) = trash_one(staged, Some(&as_trashed), places, &mut trashes, false) {
            failed.push((place.clone(), e));
        }
    }
    failed
}

/// Trashes `path` on its own: its info file flushed, then the item moved, trying the next
/// name while the one claimed turns out taken in `files/` (`retried`: see [`claim`]).
fn trash_one(
    path: &Path,
    as_trashed: Option<&AsTrashed>,
    places: Places<'_>,
    trashes: &mut Trashes,
    mut retried: bool,
) -> Result<TrashRecord> {
    let moved = loop {
        let mut item = match claim(path, as_trashed, places, trashes, retried) {
            Ok(item) => item,
            Err(e) => break Err(e),
        };
        flush(std::iter::once(&mut item));
        match item.commit() {
            Moved::Into(record) => break Ok(record),
            Moved::NameTaken => retried = true,
            Moved::Failed(e) => break Err(e),
        }
    };
    // Its folders are not held open past it (an undo's items can be in thousands of them).
    trashes.let_go();
    moved
}

pub(super) fn record(original: PathBuf, file: PathBuf, info: PathBuf, m: &Meta) -> TrashRecord {
    TrashRecord {
        original,
        file,
        info,
        kind: m.kind,
        id: m.id,
        size: m.size,
        mtime: m.mtime,
    }
}

/// Per-item bookkeeping of a trash job: progress events at most once a tick, the summary,
/// and failures reported as they happen.
struct Run<'a> {
    ctx: &'a JobCtx,
    total: u64,
    last: Option<Instant>,
    summary: Summary,
}

impl<'a> Run<'a> {
    fn new(ctx: &'a JobCtx, total: usize) -> Self {
        ctx.counters.set_phase(Phase::Copying);
        Run {
            ctx,
            total: total as u64,
            last: None,
            summary: Summary::default(),
        }
    }

    /// Before item `i`: reports progress; false when the job must stop.
    fn step(&mut self, i: usize, current: &Path) -> bool {
        if self.last.is_none_or(|t| t.elapsed() >= TICK) {
            self.last = Some(Instant::now());
            self.progress(i as u64, Some(current.to_path_buf()));
        }
        self.ctx.control.checkpoint()
    }

    fn progress(&self, items_done: u64, current: Option<PathBuf>) {
        let counters = &self.ctx.counters;
        let bytes = counters.bytes.load(std::sync::atomic::Ordering::Relaxed);
        let items = (items_done, self.total);
        crate::jobs::progress::report_counted(self.ctx, counters.phase(), items, bytes, current);
    }

    fn done(&mut self, path: PathBuf, record: TrashRecord) {
        self.ctx.counters.add_item();
        self.summary.done.push(path);
        self.summary.trash.push(record);
    }

    /// Reports a failure (a terminal one stops the job).
    fn fail(&mut self, path: PathBuf, error: Error) {
        self.ctx.fail(0, path, error);
    }

    fn finish(mut self) -> Summary {
        self.progress(
            self.ctx
                .counters
                .items
                .load(std::sync::atomic::Ordering::Relaxed),
            None,
        );
        let problems = self.ctx.take_problems();
        self.summary.failed = problems
            .failed
            .into_iter()
            .map(|(_, path, error)| Failed { path, error })
            .collect();
        self.summary.skipped = problems
            .skipped
            .into_iter()
            .map(|(_, path, reason)| Skipped { path, reason })
            .collect();
        self.summary.stopped_by = self.ctx.control.halted_by().cloned();
        self.summary
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Trashes `path` as the trash job does, into a home trash in `dir`.
    fn trash_into_home(dir: &Path, path: &str) -> Result<TrashRecord> {
        let roots = TrashRoots::home_only(dir.join("Trash"));
        let mounts = MountTable::read();
        let places = Places {
            roots: &roots,
            mounts: &mounts,
            state: None,
            uid: rustix::process::getuid().as_raw(),
        };
        trash_one(
            Path::new(path),
            None,
            places,
            &mut Trashes::default(),
            false,
        )
    }

    #[test]
    fn a_path_written_with_a_final_slash_is_trashed_only_if_it_is_a_folder() {
        let tmp = tempfile::tempdir_in("/dev/shm").unwrap();
        let file = tmp.path().join("file");
        std::fs::write(&file, "kept").unwrap();
        std::fs::create_dir(tmp.path().join("folder")).unwrap();
        let trash = |path: String| trash_into_home(tmp.path(), &path);
        let error = trash(format!("{}/", file.display())).unwrap_err();
        assert!(error.to_string().contains("Not a directory"), "{error}");
        assert!(file.exists());
        trash(format!("{}/folder/", tmp.path().display())).unwrap();
        assert!(!tmp.path().join("folder").exists());
    }

    #[test]
    fn a_path_ending_in_dot_is_not_trashed() {
        let tmp = tempfile::tempdir_in("/dev/shm").unwrap();
        std::fs::create_dir_all(tmp.path().join("folder/inside")).unwrap();
        let trash = |path: String| trash_into_home(tmp.path(), &path);
        for path in ["folder/.", "folder/./", "folder/inside/.."] {
            let error = trash(format!("{}/{path}", tmp.path().display())).unwrap_err();
            assert!(matches!(error, Error::Refused { .. }), "{path}: {error}");
        }
        assert!(tmp.path().join("folder/inside").is_dir());
    }
}
