//! Crash recovery: cleaning up after a job whose process died, resuming it, or rolling it
//! back.
//!
//! Why nothing is lost when a job is killed at any instant: a file is written as an unnamed
//! file (`O_TMPFILE`) and linked under its name only once its data, mode and times are
//! complete (or inside a new folder filled under a hidden name, renamed into place only once
//! its whole tree is: `fresh.rs`), so every destination file that exists under a name the job
//! meant is whole and, having its source's size and mtime, recognisable as a finished copy. A move across file systems removes a source only
//! after `syncfs` of the destination, so at any instant each file is whole in the source, or
//! in the destination, or in both. A small file in flight vanishes with the process (unnamed),
//! so resume copies it again; a large one of a journaled job is kept as a part
//! (`.ferry-part-<seq>-…`, see `partial.rs`) that resume verifies and appends to. Other named
//! temporaries (`.ferry-tmp-<pid>-…`, used for Replace and where `O_TMPFILE` is missing) and
//! the new folders a job fills under such a name (`fresh.rs`: files in them are written
//! under their own names, so one may be truncated) are removed by [`remove_temporaries`] at
//! the next start; parts are removed by the resume or
//! roll back of their record ([`remove_parts`]). A move across file systems renames each
//! source aside in its folder to check it before it unlinks it (`remove.rs`): one a crash left
//! there is put back under its name at the next start, never over what was made there since
//! (that stays and is reported), so that resume and roll back find a source not removed yet
//! (`recovery/set_aside.rs`). A roll back is such a move too, back from the destination: what
//! a killed one set aside there is put back the same way before the job is resumed or rolled
//! back again.
//!
//! Resume ("skip identical"): a file present in the destination identical to its source
//! (see below) and made since the job started (its birth time; one there before is the
//! user's, a place taken as for the job itself) is done; for a move its source is removed
//! (after one `syncfs` of the destination), then the job runs again on what is left.
//! Folders the dead job created get their mode and times from their sources at the end (the
//! engine gives them only when a folder is complete); a move's source folder that lost items
//! to the dead job's removals gives them from its copy, which got them before any went.
//!
//! Roll back (undo of an interrupted or resumed job, whose record has no per-item
//! identities): copies identical to their sources go to the trash; items a move carried over
//! completely go back; a file in both places keeps its source and its copy goes to the trash.
//! Folders the job created are removed once empty. Inside a folder the job merged into, a
//! file identical to its source is taken for the job's copy only if it was made since the job
//! started (its birth time; where the file system keeps none, its change time) and is not
//! another name of a file the job replaced, and nothing else is touched: a file that was
//! there before stays, whatever the job did to its other names. "Identical" is the
//! source's size and mtime, as the engine gives them, and every byte the same, so that a
//! different file that happens to match in size and mtime is never taken for a copy (trashed
//! by a roll back, or its source removed by a resume).
//!
//! Replace: the old item is moved to the staging folder under a name that says which record
//! and which path it came from (`staging.rs`), so a job killed between any two steps of a
//! Replace loses nothing. Roll back finds those items, takes back what the job put in their
//! place (a copy goes to the trash, a moved item goes back) and renames each old item back
//! where it was, never over anything. A folder holding such a place was there before the
//! job, so it is one the job merged into, even where its source is gone (a move removes each
//! source folder it emptied). Resume takes a destination file identical to its
//! source for the interrupted run's copy, done, rather than replacing it again, which would
//! stage the job's own copy in place of the user's old file; an old item whose replacement
//! never came (its source gone since) it puts back (`recovery/unreplaced.rs`).
//!
//! Trash, restore, rename and link jobs keep no per-item record until they finish; their
//! resume and roll back find what they did on disk (see `recovery/trash_jobs.rs` and
//! `recovery/link_jobs.rs`).

mod folders;
mod keep_both;
mod link_jobs;
mod roll_back;
pub(crate) mod set_aside;
mod trash_jobs;
mod unreplaced;

pub(crate) use roll_back::roll_back;

use std::fs::{self, Metadata};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::conflict::{same_bytes, same_samples};
use super::control::JobCtx;
use super::journal::{CLOCK_SLACK, JournalRecord, kept_modes, temp_prefix};
use super::partial::part_prefix;
use super::summary::fail;
use super::undo::absorb;
use super::{ConflictPolicy, Job, Summary, copy, moves, single};
use crate::error::Error;
use crate::fs::Timestamp;

/// Removes the named temporaries the dead process of `record` left in its destination
/// folder and in the destination items of its sources (never following links), and the
/// new folders it was filling under such names. Its parts of
/// large files (`.ferry-part-…`) stay: resume continues them.
pub(crate) fn remove_temporaries(record: &JournalRecord) -> Result<usize, Error> {
    remove_named(record, &temp_prefix(record.pid))
}

/// Removes the parts of large files that `record`'s job left (resume continued those it
/// could; undo discards them all); how many there were.
pub(crate) fn remove_parts(record: &JournalRecord) -> Result<usize, Error> {
    remove_named(record, &part_prefix(record.seq))
}

/// Removes the files named `prefix…` in `record`'s destination folder and in the destination
/// items of its sources; how many (a folder counts once).
fn remove_named(record: &JournalRecord, prefix: &str) -> Result<usize, Error> {
    let Some((_, dest_dir, _)) = record.job.transfer() else {
        return Ok(0);
    };
    let mut removed = sweep(dest_dir, prefix.as_bytes(), false)?;
    for (_, dest) in record.job.landings() {
        if fs::symlink_metadata(&dest).is_ok_and(|m| m.is_dir()) {
            removed += sweep(&dest, prefix.as_bytes(), true)?;
        }
    }
    Ok(removed)
}

fn sweep(top: &Path, prefix: &[u8], recursive: bool) -> Result<usize, Error> {
    let depth = if recursive { Depth::Tree } else { Depth::Flat };
    let mut removed = 0;
    each_named(top, prefix, depth, &mut |path, is_dir| {
        if is_dir {
            // A new folder the dead job was filling out of sight (`fresh.rs`): all copies.
            fs::remove_dir_all(path)
        } else {
            fs::remove_file(path)
        }
        .map_err(|e| Error::io("remove", path, e))?;
        removed += 1;
        Ok(())
    })?;
    Ok(removed)
}

/// How far below a folder a search for what a dead job left goes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Depth {
    /// The folder itself only.
    Flat,
    /// Its folders too, at any depth.
    Tree,
    /// Its folders on its own mount: what a move planned (it never enters another).
    Mount,
}

/// Calls `found(path, is_folder)` for each entry named `prefix…` in `top` and, as `depth`
/// says, in the folders below it, never through a symlink nor into a folder so named.
fn each_named(
    top: &Path,
    prefix: &[u8],
    depth: Depth,
    found: &mut dyn FnMut(&Path, bool) -> Result<(), Error>,
) -> Result<(), Error> {
    let mount = |dir: &Path| {
        let mask = rustix::fs::StatxFlags::MNT_ID;
        crate::fs::statx_at(rustix::fs::CWD, dir, false, mask).map(|st| st.stx_mnt_id)
    };
    let top_mount = match depth {
        Depth::Mount => Some(mount(top).map_err(|e| Error::io("stat", top, e))?),
        _ => None,
    };
    let mut stack = vec![top.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(Error::io("read folder", &dir, e)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| Error::io("read folder", &dir, e))?;
            let path = entry.path();
            let kind = entry.file_type().map_err(|e| Error::io("stat", &path, e))?;
            if entry.file_name().as_bytes().starts_with(prefix) {
                found(&path, kind.is_dir())?;
            } else if kind.is_dir()
                && depth != Depth::Flat
                && (top_mount.is_none() || mount(&path).ok() == top_mount)
            {
                stack.push(path);
            }
        }
    }
    Ok(())
}

/// Resumes the interrupted job of `record`.
pub(crate) fn resume(ctx: &JobCtx, record: &JournalRecord) -> Summary {
    match &record.job {
        Job::Copy {
            sources,
            dest_dir,
            dest_name,
            on_conflict,
        } => {
            let folders = folders::folder_times(record);
            let mut summary = Summary::default();
            let landings = keep_both::landings(record, *on_conflict);
            for group in keep_both::by_place(landings.iter().flatten()) {
                let dest = (group.folder.as_path(), group.name.as_deref());
                let copied = copy::run_job(ctx, &group.sources, dest, group.policy);
                absorb(&mut summary, copied);
            }
            // Not a place of its own (`/`): run for the error it gets.
            let placeless: Vec<PathBuf> = (sources.iter())
                .filter(|s| s.file_name().is_none())
                .cloned()
                .collect();
            if !placeless.is_empty() {
                let dest = (dest_dir.as_path(), dest_name.as_deref());
                absorb(
                    &mut summary,
                    copy::run_job(ctx, &placeless, dest, *on_conflict),
                );
            }
            folders::restore_folder_times(ctx, &folders);
            unreplaced::put_back(ctx, &mut summary, record, &landings, dest_dir);
            keep_or_discard_parts(ctx, &mut summary, record, dest_dir);
            summary
        }
        Job::Move {
            dest_dir,
            on_conflict,
            ..
        } => {
            let mut summary = resume_move(ctx, record, *on_conflict);
            keep_or_discard_parts(ctx, &mut summary, record, dest_dir);
            summary
        }
        Job::Rename { path, new_name } => {
            let renamed = path.parent().map(|p| p.join(new_name));
            let exists = |p: &Path| fs::symlink_metadata(p).is_ok();
            if !exists(path) && renamed.is_some_and(|r| exists(&r)) {
                Summary::default() // it happened before the crash
            } else {
                single::rename(ctx, path, new_name)
            }
        }
        Job::CreateFolder { parent, name } => {
            if parent.join(name).is_dir() {
                Summary::default()
            } else {
                single::create_folder(ctx, parent, name)
            }
        }
        Job::Link {
            targets,
            dest_dir,
            on_conflict,
        } => link_jobs::resume_link(ctx, record, targets, dest_dir, *on_conflict),
        Job::Trash { paths, roots } => trash_jobs::resume_trash(ctx, record, paths, roots),
        Job::Restore { items, on_conflict } => {
            trash_jobs::resume_restore(ctx, items, *on_conflict, record)
        }
        Job::Delete { .. } | Job::EmptyTrash { .. } | Job::Undo { .. } | Job::Resume { .. } => {
            Summary::default()
        }
    }
}

/// After a resume: one stopped (no space, an I/O error), or whose destination was read-only
/// (which fails each item rather than stopping the job), is to be resumed again, so it keeps
/// its parts and says so ([`Summary::resume_again`]); one finished or cancelled ends the
/// record, and the parts it did not continue are stale (their sources changed, or they were
/// skipped).
fn keep_or_discard_parts(
    ctx: &JobCtx,
    summary: &mut Summary,
    record: &JournalRecord,
    dest_dir: &Path,
) {
    let read_only_dest = summary.failed.iter().any(|f| {
        f.error.raw_os_error() == Some(rustix::io::Errno::ROFS.raw_os_error())
            && f.error.path().is_some_and(|p| p.starts_with(dest_dir))
    });
    if read_only_dest || (summary.stopped_by.is_some() && !summary.stopped_by_defect()) {
        summary.resume_again = true;
        return;
    }
    if let Err(e) = remove_parts(record) {
        fail(ctx, summary, dest_dir, e);
    }
}

fn resume_move(ctx: &JobCtx, record: &JournalRecord, policy: ConflictPolicy) -> Summary {
    let Some((sources, dest_dir, dest_name)) = record.job.transfer() else {
        return Summary::default();
    };
    let mut summary = Summary::default();
    set_aside::put_back_before(ctx, &mut summary, record);
    // Read before the move removes the source folders.
    let folders = folders::folder_times(record);
    let landings = keep_both::landings(record, policy);
    let mut settled = Vec::new();
    for landing in landings.iter().flatten() {
        let place = (landing.source.as_path(), landing.dest.as_path());
        if let Err(e) = settle(ctx, place, record.started, &mut settled) {
            fail(ctx, &mut summary, &landing.source, e);
        }
    }
    remove_settled(ctx, &mut summary, dest_dir, &settled);
    let still_there = |l: &&keep_both::Landing| fs::symlink_metadata(&l.source).is_ok();
    for group in keep_both::by_place(landings.iter().flatten().filter(still_there)) {
        let dest = (group.folder.as_path(), group.name.as_deref());
        let moved = moves::run_job(ctx, &group.sources, dest, group.policy);
        absorb(&mut summary, moved);
    }
    for source in sources {
        if source.file_name().is_none() {
            // Not a place of its own (`/`): run for the error it gets.
            let dest = (dest_dir, dest_name);
            absorb(
                &mut summary,
                moves::run_job(ctx, std::slice::from_ref(source), dest, policy),
            );
        } else if fs::symlink_metadata(source).is_err() {
            summary.done.push(source.clone());
        }
    }
    folders::restore_folder_times(ctx, &folders);
    unreplaced::put_back(ctx, &mut summary, record, &landings, dest_dir);
    summary
}

/// The conflict policy of a copy or move job (Skip for others).
fn policy_of(record: &JournalRecord) -> ConflictPolicy {
    match &record.job {
        Job::Copy { on_conflict, .. } | Job::Move { on_conflict, .. } => *on_conflict,
        _ => ConflictPolicy::Skip,
    }
}

/// Whether the item of `meta` changed (its ctime) at or after `since`.
pub(super) fn changed_since(meta: &fs::Metadata, since: SystemTime) -> bool {
    changed_at(meta).is_some_and(|changed| changed >= since)
}

/// Whether the item of `meta` changed surely after `since`, a job's start by the coarse clock:
/// file systems may stamp a change with the precise clock, up to a tick (4 ms at 250 Hz)
/// ahead of the coarse one, so a file the user changed just before the job can look changed
/// after its start ([`CLOCK_SLACK`]); a file the job wrote within it is compared in full,
/// which costs time, not data.
pub(super) fn surely_after(meta: &fs::Metadata, since: SystemTime) -> bool {
    changed_at(meta).is_some_and(|changed| changed > since + CLOCK_SLACK)
}

/// Whether the item of `meta` may be one a job started at `since` made: born (by its change
/// time where the file system keeps no birth time) at or after it: the journal takes a job's
/// start from the clock file times come from. One there before the job, identical to its
/// source (the user's twin, as `cp -a` leaves one), is not the job's copy: taken for one, a
/// resume removed its source, which the job, told to skip it, would have kept.
fn maybe_made_since(meta: &fs::Metadata, since: SystemTime) -> bool {
    if let Ok(born) = meta.created() {
        return born >= since;
    }
    // Where the change time is the modification time, nothing tells: FAT keeps no change
    // time of its own, and a copy there has its source's. Taken for the job's, as before.
    match (changed_at(meta), meta.modified()) {
        (Some(changed), Ok(modified)) => changed >= since || changed == modified,
        _ => true,
    }
}

/// The item's ctime; `None` before 1970, long before any job.
fn changed_at(meta: &fs::Metadata) -> Option<SystemTime> {
    let nsec = u32::try_from(meta.ctime_nsec()).unwrap_or(0);
    let secs = u64::try_from(meta.ctime()).ok()?;
    Some(UNIX_EPOCH + Duration::new(secs, nsec))
}

/// True when `dest` is a finished copy of `source`: the engine links a file in only with its
/// source's size and mtime, and a link only with its target. What this decides may remove one
/// of the two (a settled source, what a killed undo left), so a file of the same size and
/// mtime that was there before the job (`made_since`, its start: a file not changed since is
/// not the job's copy) is someone else's unless every byte is the same, since a rebuilt file
/// with fixed times passes a comparison of samples. One the job wrote is compared by samples:
/// reading every byte of a resumed 400 GB copy twice would cost hours. `None`: no start to
/// compare with, every byte is read.
pub(super) fn is_copy_of(
    source: &Path,
    s: &Metadata,
    dest: &Path,
    d: &Metadata,
    made_since: Option<SystemTime>,
) -> bool {
    if s.file_type().is_symlink() && d.file_type().is_symlink() {
        return fs::read_link(source).ok() == fs::read_link(dest).ok();
    }
    // A FIFO, socket or device holds no bytes: its kind, device number and mtime are all
    // there is to compare. Never taken for copies, they stayed behind a roll back (and a
    // resumed move left its source FIFO, "already exists at the destination").
    if is_node(s) || is_node(d) {
        return s.file_type() == d.file_type()
            && s.rdev() == d.rdev()
            && Timestamp::mtime_of(s).kept_as(Timestamp::mtime_of(d));
    }
    let open = |p: &Path| {
        fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NOFOLLOW)
            .open(p)
    };
    s.is_file()
        && d.is_file()
        && s.size() == d.size()
        && Timestamp::mtime_of(s).kept_as(Timestamp::mtime_of(d))
        && match (open(source), open(dest)) {
            (Ok(a), Ok(b)) if made_since.is_some_and(|t| surely_after(d, t)) => {
                same_samples(&a, &b, s.size())
            }
            (Ok(a), Ok(b)) => same_bytes(&a, &b, s.size()),
            _ => false,
        }
}

/// A FIFO, socket or device file.
fn is_node(m: &Metadata) -> bool {
    let t = m.file_type();
    t.is_fifo() || t.is_socket() || t.is_char_device() || t.is_block_device()
}

/// A source found copied whole by the interrupted run, to be removed.
struct Settled {
    source: PathBuf,
    /// Where its copy is and the mode it had, if the copy's disk did not keep it.
    dropped: Option<(PathBuf, u16)>,
}

/// Collects in `settled` every file below `source` already copied whole to `dest` (see
/// [`remove_settled`]); folders are left to the move, which merges and then removes them.
/// The copy of a file with other names is noted in `ctx`, for those names to be linked to it
/// once this one is gone from the source.
fn settle(
    ctx: &JobCtx,
    (source, dest): (&Path, &Path),
    since: SystemTime,
    settled: &mut Vec<Settled>,
) -> Result<(), Error> {
    let Ok(s) = fs::symlink_metadata(source) else {
        return Ok(()); // moved completely before the crash
    };
    let Ok(d) = fs::symlink_metadata(dest) else {
        return Ok(());
    };
    if s.is_dir() && d.is_dir() {
        for entry in fs::read_dir(source).map_err(|e| Error::io("read folder", source, e))? {
            let entry = entry.map_err(|e| Error::io("read folder", source, e))?;
            let child = (&*entry.path(), &*dest.join(entry.file_name()));
            settle(ctx, child, since, settled)?;
        }
    } else if maybe_made_since(&d, since) && is_copy_of(source, &s, dest, &d, Some(since)) {
        if s.is_file() && s.nlink() > 1 {
            let id = crate::fs::FileId {
                dev: s.dev(),
                ino: s.ino(),
            };
            super::lock(&ctx.linked_copies).push((id, dest.to_path_buf()));
        }
        // The copy's disk did not keep the mode: kept for a roll back (`kept_modes.rs`).
        let mode = s.mode() & 0o7777;
        let dropped = (d.mode() & 0o7777 != mode).then(|| (dest.to_path_buf(), mode as u16));
        settled.push(Settled {
            source: source.to_path_buf(),
            dropped,
        });
    }
    Ok(())
}

/// [`settle`] and [`remove_settled`] for one item going to `dest`, by a job started at
/// `since`.
pub(super) fn settle_one(
    ctx: &JobCtx,
    summary: &mut Summary,
    (source, dest): (&Path, &Path),
    since: SystemTime,
) -> Result<(), Error> {
    let mut settled = Vec::new();
    settle(ctx, (source, dest), since, &mut settled)?;
    remove_settled(
        ctx,
        summary,
        dest.parent().unwrap_or(Path::new("/")),
        &settled,
    );
    Ok(())
}

/// Removes the sources whose copies were found finished, once those copies are on disk (one
/// `syncfs` of the destination, as a move does, rather than an `fsync` per file), counting
/// each as done.
fn remove_settled(ctx: &JobCtx, summary: &mut Summary, dest_dir: &Path, settled: &[Settled]) {
    if settled.is_empty() {
        return;
    }
    if !copies_durable(ctx, summary, dest_dir) {
        return;
    }
    if let (Some(folder), Some(seq)) = (&ctx.details, ctx.journal_seq) {
        let dropped: Vec<_> = settled.iter().filter_map(|s| s.dropped.clone()).collect();
        // Not kept, the sources go all the same (see `moves::keep_modes`).
        let _ = kept_modes::keep(folder, seq, &dropped);
    }
    for Settled { source, .. } in settled {
        match fs::remove_file(source) {
            Ok(()) => ctx.counters.add_item(),
            Err(e) => fail(ctx, summary, source, Error::io("remove", source, e)),
        }
    }
}

/// Syncs the file system holding `path` (one `syncfs`), so that the copies there are on
/// disk before what they were copied from goes; false, said in `summary`, if it cannot be.
/// Only a folder is opened: `path` itself when it is one, else the folder holding it.
pub(super) fn copies_durable(ctx: &JobCtx, summary: &mut Summary, path: &Path) -> bool {
    // Opening a link opens its target (nowhere, for a dangling one: the flush failed on
    // every try); opening a FIFO waits for a writer.
    let (folder, flags) = match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => (path, libc::O_DIRECTORY | libc::O_NOFOLLOW),
        _ => match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => (parent, libc::O_DIRECTORY),
            _ => (Path::new("."), libc::O_DIRECTORY),
        },
    };
    let open = fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(folder);
    match open.and_then(|d| Ok(rustix::fs::syncfs(&d)?)) {
        Ok(()) => true,
        Err(e) => {
            fail(ctx, summary, path, Error::io("flush", path, e));
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Same size and mtime, as after a copy, but other bytes: not the job's copy.
    #[test]
    fn a_copy_is_told_from_a_same_size_same_mtime_file_by_its_content() {
        let dir = tempfile::tempdir().unwrap();
        let (source, copy, other) = (
            dir.path().join("source"),
            dir.path().join("copy"),
            dir.path().join("other"),
        );
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        let mut changed = data.clone();
        changed[150_000] ^= 1;
        fs::write(&source, &data).unwrap();
        fs::write(&copy, &data).unwrap();
        fs::write(&other, &changed).unwrap();
        let mtime = fs::metadata(&source).unwrap().modified().unwrap();
        for path in [&copy, &other] {
            let f = fs::File::options().write(true).open(path).unwrap();
            f.set_modified(mtime).unwrap();
        }
        let meta = |p: &Path| fs::symlink_metadata(p).unwrap();
        assert!(is_copy_of(
            &source,
            &meta(&source),
            &copy,
            &meta(&copy),
            None
        ));
        assert!(!is_copy_of(
            &source,
            &meta(&source),
            &other,
            &meta(&other),
            None
        ));
    }
}
