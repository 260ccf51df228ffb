//! Restoring trashed items to where they were, as a move there: an original place taken
//! since is a conflict handled with the job's [`ConflictPolicy`] exactly as for a paste (see
//! `put_back.rs`), so Replace keeps the item it replaces for undo, Keep both and Rename to
//! restore under another name, and Merge writes a trashed folder into the folder now there.
//!
//! Each item's destination folder is opened first by walking its original parent chain
//! without following links (see `place.rs`): an unsafe entry, or a link on the way, fails
//! that item with the reason and the rest go on. The move then writes through that very
//! folder descriptor. Same mount: one `renameat2(RENAME_NOREPLACE)`. Across file systems:
//! the engine's copier writes each file under a temporary name and links or renames it into
//! place, `syncfs` makes it durable, and only then is the trashed copy removed. A missing
//! original parent is recreated, as Dolphin does. The info file goes once its item has left
//! the trash entirely; an item restored only in part (some of it skipped or failed) stays
//! listed with the rest.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustix::fd::OwnedFd;
use rustix::io::Errno;

use super::place;
use super::{TrashRecord, TrashedItem, record};
use crate::entry::Kind;
use crate::error::{Error, Result};
use crate::fs::{self, Meta};
use crate::jobs::control::JobCtx;
use crate::jobs::put_back::{self, Landed, OpenFolders, Target};
use crate::jobs::summary::fail;
use crate::jobs::undo::absorb;
use crate::jobs::{ConflictPolicy, Failed, How, Skipped, Summary};

/// Folders a restore holds open at once (those its items go back into), at most: past them,
/// what it has checked is put back and the rest checked after (see
/// [`fs::folders_held_at_once`]).
const FOLDERS_AT_ONCE: usize = 256;

/// Runs a restore job: the items go back in passes, a folder before what goes back inside
/// it, each pass in parts of at most [`FOLDERS_AT_ONCE`] folders.
pub(crate) fn run_job(ctx: &JobCtx, items: &[TrashedItem], policy: ConflictPolicy) -> Summary {
    let mut summary = Summary::default();
    let mut trash_folders = HashMap::new();
    let mut partly = Vec::new();
    let at_once = fs::folders_held_at_once(FOLDERS_AT_ONCE);
    for pass in passes(items) {
        let mut rest = pass.as_slice();
        while !rest.is_empty() {
            if ctx.control.stopped() {
                // Cancelled or stopped: the rest is not looked at (checking makes folders).
                summary
                    .not_done
                    .extend(rest.iter().map(|i| i.original.clone()));
                break;
            }
            let folders = (&mut trash_folders, &mut partly);
            let (part, taken) = restore_part(ctx, rest, (policy, at_once), folders);
            absorb(&mut summary, part);
            rest = &rest[taken..];
        }
    }
    super::sizes::left(&summary.trash, &partly);
    summary
}

/// `items` in passes, in order: an item whose original place is inside another's comes in
/// a pass after it. Checking it opens (and makes) its folder, so, put back first, `dd/x` made
/// `dd` again, and `dd` then found its place taken and stayed in the trash.
fn passes(items: &[TrashedItem]) -> Vec<Vec<&TrashedItem>> {
    let places: HashSet<&Path> = items.iter().map(|i| i.original.as_path()).collect();
    let mut passes: Vec<Vec<&TrashedItem>> = Vec::new();
    for item in items {
        let inside = (item.original.ancestors().skip(1))
            .filter(|a| places.contains(a))
            .count();
        if passes.len() <= inside {
            passes.resize_with(inside + 1, Vec::new);
        }
        passes[inside].push(item);
    }
    passes
}

/// Restores the first of `items` whose folders are no more than `at_once` (or fewer, where
/// the limit of open files comes first); returns what it did and how many items it took.
/// The trashed folders it did not take out whole (merged into the one there) are added to
/// `partly`.
fn restore_part(
    ctx: &JobCtx,
    items: &[&TrashedItem],
    (policy, at_once): (ConflictPolicy, usize),
    (trash_folders, partly): (&mut HashMap<PathBuf, bool>, &mut Vec<PathBuf>),
) -> (Summary, usize) {
    let mut summary = Summary::default();
    let mut chosen: Vec<(&TrashedItem, Meta)> = Vec::new();
    let mut targets: Vec<Target> = Vec::new();
    let mut open = OpenFolders::default();
    let mut taken = 0;
    for &item in items {
        match check(item, trash_folders) {
            Ok((meta, parent)) => {
                chosen.push((item, meta));
                targets.push(Target {
                    source: item.file.clone(),
                    dest: item.original.clone(),
                    dir: Some(open.shared(parent)),
                });
            }
            // The folders held let go, it is checked again in the next part.
            Err(e) if e.out_of_descriptors() && !targets.is_empty() => break,
            Err(e) => fail(ctx, &mut summary, &item.original, e),
        }
        taken += 1;
        if open.len() >= at_once {
            break;
        }
    }
    let placed = put_back::run(ctx, &targets, policy, &put_back::Modes::default());
    let part = placed.summary;
    let mut merged_into = HashSet::new();
    for ((item, meta), landed) in chosen.iter().zip(placed.landed) {
        if let Some(landed) = landed {
            let record = settle(ctx, &mut summary, item, meta, &landed);
            summary.done.push(item.original.clone());
            summary.trash.push(record);
        } else if meta.kind == Kind::Dir {
            merged_into.insert(item.file.clone());
        }
    }
    // A trashed folder still there that something was taken out of.
    for e in part
        .record
        .top_level_entries()
        .filter(|e| e.how != How::Merged)
    {
        if let Some(folder) = e.source.ancestors().find_map(|a| merged_into.take(a)) {
            partly.push(folder);
        }
    }
    // Paths inside the trash are reported where the user knows them: at their original place.
    let originals: HashMap<&Path, &Path> = chosen
        .iter()
        .map(|(item, _)| (item.file.as_path(), item.original.as_path()))
        .collect();
    let original = |path: PathBuf| {
        let mapped = path
            .ancestors()
            .find_map(|a| Some(originals.get(a)?.join(path.strip_prefix(a).ok()?)));
        mapped.map_or(path, |p| normalize(&p))
    };
    summary
        .not_done
        .extend(part.not_done.into_iter().map(original));
    summary
        .skipped
        .extend(part.skipped.into_iter().map(|s| Skipped {
            path: original(s.path),
            reason: s.reason,
        }));
    summary
        .failed
        .extend(part.failed.into_iter().map(|f| Failed {
            error: at_original(f.error, original),
            path: original(f.path),
        }));
    summary.record = part.record;
    summary.stopped_by = part.stopped_by;
    (summary, taken)
}

/// An error about a path in the trash as one about restoring its original place, which is
/// where the user looks (`cannot restore ~/w/a: Permission denied`, not `cannot move
/// ~/.local/share/Trash/files/a`); one about the original place itself (its folder refused
/// the item) as restoring it too.
fn at_original(error: Arc<Error>, original: impl Fn(PathBuf) -> PathBuf) -> Arc<Error> {
    match &*error {
        Error::Io { path, source, op } => {
            let mapped = original(path.clone());
            if mapped == *path && *op != "create" {
                return error;
            }
            let source = match source.raw_os_error() {
                Some(code) => std::io::Error::from_raw_os_error(code),
                None => std::io::Error::new(source.kind(), source.to_string()),
            };
            Arc::new(Error::io("restore", mapped, source))
        }
        _ => error,
    }
}

/// Removes the info file `info` when the item it describes, `file` in the trash, is gone
/// (restored whole): it would be an entry for nothing.
pub(crate) fn remove_info_if_gone(ctx: &JobCtx, summary: &mut Summary, file: &Path, info: &Path) {
    if lstat(file) == Err(Errno::NOENT) {
        match std::fs::remove_file(info) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => fail(ctx, summary, info, Error::io("delete", info, e)),
        }
    }
}

/// `statx` of `path` itself (a link is not followed).
fn lstat(path: &Path) -> rustix::io::Result<Meta> {
    fs::stat_at(rustix::fs::CWD, path)
}

/// `a/b/` (an empty rest joined on) as `a/b`.
fn normalize(path: &Path) -> PathBuf {
    path.components().collect()
}

/// The trashed item, if it is restorable: still the one listed, going to a safe place whose
/// folder is now open (see `place.rs`).
fn check(
    item: &TrashedItem,
    trash_folders: &mut HashMap<PathBuf, bool>,
) -> Result<(Meta, OwnedFd)> {
    // Restored to a folder chosen inside a trash (`--to ~/.local/share/Trash/files`), the
    // item lost its info file and was listed as an unsafe entry, or vanished inside another
    // one. Each folder is looked at once (a restore of 5,000 items is into one or two).
    let folder = item.original.parent().unwrap_or(Path::new("/"));
    let in_trash = item.chosen_folder
        && *trash_folders
            .entry(folder.to_path_buf())
            .or_insert_with(|| {
                std::fs::canonicalize(folder).is_ok_and(|real| in_a_trash_folder(&real))
            });
    if in_trash {
        return Err(Error::Refused {
            op: "restore into a trash folder:",
            path: item.original.clone(),
        });
    }
    let parent = place::open_parent(item)?;
    let meta = lstat(&item.file).map_err(|e| Error::io("stat", &item.file, e))?;
    if meta.id != item.id {
        return Err(Error::Changed {
            path: item.file.clone(),
        });
    }
    Ok((meta, parent))
}

/// Whether the folder `real` (links resolved) is a trash folder's `files` or `info`, or
/// inside one: a home trash (`…/Trash`) or a disk's (`.Trash-<uid>`, `.Trash/<uid>`).
fn in_a_trash_folder(real: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let name = |p: &Path| {
        p.file_name()
            .map(|n| n.as_bytes().to_vec())
            .unwrap_or_default()
    };
    real.ancestors().any(|part| {
        let Some(trash) = part
            .parent()
            .filter(|_| matches!(&name(part)[..], b"files" | b"info"))
        else {
            return false;
        };
        let trash_name = name(trash);
        let named = trash_name == b"Trash"
            || crate::jobs::caution::is_volume_trash_name(&trash_name)
            || trash.parent().is_some_and(|p| name(p) == b".Trash");
        named && trash.join("files").is_dir() && trash.join("info").is_dir()
    })
}

/// Once `item` is restored (to `landed`): removes its info file if nothing of it is left in
/// the trash, and returns its record. A merged folder keeps the trashed folder's identity:
/// the folder there is not the one restored (its undo goes by the job's record entries).
fn settle(
    ctx: &JobCtx,
    summary: &mut Summary,
    item: &TrashedItem,
    trashed: &Meta,
    landed: &Landed,
) -> TrashRecord {
    remove_info_if_gone(ctx, summary, &item.file, &item.info);
    let here = if landed.merged {
        *trashed
    } else {
        lstat(&landed.path).unwrap_or(*trashed)
    };
    record(
        landed.path.clone(),
        item.file.clone(),
        item.info.clone(),
        &here,
    )
}
