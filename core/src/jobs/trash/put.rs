//! The trash job: each item moved into the trash of its own file system, its info file
//! written first (see the module docs of `trash.rs`). Items go in batches: their names are
//! claimed (info files written), the info files flushed together, then the items moved.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Instant;

use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;

use super::folder::{TrashDir, trash_name, volume_trash_name};
use super::{TrashRecord, TrashRoots, subvolumes};
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
/// before it is flushed: each is held open until its items move, and a session's limit of
/// open files can be low (256). Where it is lower still, a batch is flushed when the limit is
/// reached.
const FOLDERS_PER_BATCH: usize = 32;

/// Claimed items up to this many are flushed with an `fsync` each, not a `syncfs`: one
/// file trashed does not wait for whatever else the disk has to write.
const FLUSH_EACH_UP_TO: usize = 4;

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
        roots,
        places: (&mounts, state.as_deref()),
        uid: rustix::process::getuid().as_raw(),
    };
    let mut trashes = Trashes::default();
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
        let held = trashes.folders.len() + trashes.volumes.len();
        if claimed.len() == BATCH || held >= FOLDERS_PER_BATCH || i + 1 == paths.len() {
            job.move_claimed(&mut claimed, &mut trashes, &mut run);
        }
    }
    super::sizes::trashed(&run.summary.trash);
    run.finish()
}

/// A trash job's items, and what it takes them with.
struct Batches<'a> {
    paths: &'a [PathBuf],
    as_trashed: &'a [Option<AsTrashed>],
    roots: &'a TrashRoots,
    places: (&'a MountTable, Option<&'a Path>),
    uid: u32,
}

impl Batches<'_> {
    fn as_trashed(&self, i: usize) -> Option<&AsTrashed> {
        self.as_trashed.get(i).and_then(Option::as_ref)
    }

    /// Claims item `i` (see [`claim`]).
    fn claim(&self, i: usize, trashes: &mut Trashes, retried: bool) -> Result<Claimed> {
        let (path, as_trashed) = (&self.paths[i], self.as_trashed(i));
        claim(
            path,
            as_trashed,
            self.roots,
            trashes,
            self.places,
            self.uid,
            retried,
        )
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
            let moved = if folders_moved.iter().any(|f| item.original.starts_with(f)) {
                // Its folder, given too, went to the trash just before: it went with it, as
                // when trashed one by one (moved through its folder's descriptor, it was
                // taken back out of the trashed folder).
                item.unclaim();
                Err(Error::io("stat", item.original, Errno::NOENT))
            } else {
                match item.commit() {
                    Moved::Into(record) => Ok(record),
                    // A name in `files/` taken since it was claimed: the item tries the next
                    // one on its own.
                    Moved::NameTaken => {
                        let (roots, places, uid) = (self.roots, self.places, self.uid);
                        let as_trashed = self.as_trashed(at);
                        trash_one(path, as_trashed, roots, trashes, places, uid, true)
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
        trashes.folders.clear();
        trashes.volumes.clear();
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
    let uid = rustix::process::getuid().as_raw();
    let mounts = MountTable::read();
    let mut trashes = Trashes::default();
    let mut failed = Vec::new();
    for (staged, place) in replaced {
        let as_trashed = AsTrashed {
            original: place.clone(),
            deletion_date: now_stamp(),
            name: place.file_name().unwrap_or(place.as_os_str()).to_owned(),
            info_file: true,
        };
        let places = (&mounts, None);
        let trashed = trash_one(
            staged,
            Some(&as_trashed),
            roots,
            &mut trashes,
            places,
            uid,
            false,
        );
        if let Err(e) = trashed {
            failed.push((place.clone(), e));
        }
    }
    failed
}

/// Trashes `path`, leaving alone a mount point or a folder holding one, and Ferry's `state`
/// folder or a folder holding it (the undo journal, where this very job is recorded).
/// The device and mount the home trash is (or, made, would be) on: those of the trash
/// folder, or of the nearest folder above it that exists.
fn home_trash_place(roots: &TrashRoots) -> std::io::Result<(u64, u64)> {
    for folder in roots.home_followed().ancestors() {
        match fs::stat_path(folder) {
            Ok(meta) => return Ok((meta.id.dev, meta.mnt_id)),
            Err(Errno::NOENT) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Err(std::io::ErrorKind::NotFound.into())
}

/// What a job's items share on their way to the trash.
#[derive(Default)]
struct Trashes {
    /// The home trash, once opened, and its device and mount.
    home: Option<(Rc<TrashDir>, (u64, u64))>,
    /// The other disks' trash folders opened for a batch, by the top they are at.
    volumes: HashMap<PathBuf, Rc<TrashDir>>,
    /// The folders the items of a batch are in, by the path given: resolved and opened once
    /// a batch, not once an item.
    folders: HashMap<PathBuf, (PathBuf, Rc<OwnedFd>)>,
    /// The device and mount the home trash is (or would be) on, looked up once a job while
    /// it is not opened (items of other disks only).
    home_place: Option<(u64, u64)>,
    /// The home trash's path, its folder's links resolved (that of the link, when it is
    /// one), looked up once a job.
    home_link: Option<Option<PathBuf>>,
    /// The number the last item of a name got in a trash folder (`a.txt.7`): the next item
    /// of that name is tried from the one after, not from the plain name up again. 3,000
    /// files of one name (`.DS_Store`, `index.html`) each tried every name taken before
    /// theirs: 11.6 s, against 3 s for as many names.
    numbered: HashMap<(PathBuf, OsString), u32>,
}

/// Trashes `path` on its own: its info file flushed, then the item moved, trying the next
/// name while the one claimed turns out taken in `files/` (`retried`: see [`claim`]).
fn trash_one(
    path: &Path,
    as_trashed: Option<&AsTrashed>,
    roots: &TrashRoots,
    trashes: &mut Trashes,
    places: (&MountTable, Option<&Path>),
    uid: u32,
    mut retried: bool,
) -> Result<TrashRecord> {
    let moved = loop {
        let mut item = match claim(path, as_trashed, roots, trashes, places, uid, retried) {
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
    trashes.folders.clear();
    trashes.volumes.clear();
    moved
}

/// Claims a name in the trash for `path`, leaving alone a mount point or a folder holding
/// one, and Ferry's `state` folder or a folder holding it (the undo journal, where this very
/// job is recorded): writes its info file, not yet flushed (see [`flush`]). `retried`: the
/// name the item had in the trash (`as_trashed`) was found taken; numbered names only.
fn claim(
    path: &Path,
    as_trashed: Option<&AsTrashed>,
    roots: &TrashRoots,
    trashes: &mut Trashes,
    (mounts, state): (&MountTable, Option<&Path>),
    uid: u32,
    retried: bool,
) -> Result<Claimed> {
    let Trashes {
        home,
        volumes,
        folders,
        home_place,
        home_link,
        numbered,
    } = trashes;
    let refused = || Error::Refused {
        op: "trash",
        path: path.to_path_buf(),
    };
    let name = (path.file_name())
        .filter(|_| !fs::ends_in_dot(path))
        .ok_or_else(refused)?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let (parent, pfd) = match folders.get(parent) {
        Some((resolved, fd)) => (resolved.clone(), Rc::clone(fd)),
        None => {
            let (resolved, fd) = open_folder(parent)?;
            let opened = (resolved, Rc::new(fd));
            folders.insert(parent.to_owned(), opened.clone());
            opened
        }
    };
    let original = parent.join(name);
    let meta = fs::stat_at(&pfd, name).map_err(|e| Error::io("stat", &original, e))?;
    fs::check_final_slash(path, &meta, &pfd, name).map_err(|e| Error::io("trash", path, e))?;
    refuse_mounts(&original, mounts)?;
    // Nothing on a read-only mount can be moved, nor deleted: said as it is, never offered
    // as a permanent delete (a read-only bind mount of the home disk failed as "on another
    // file system").
    if mounts.by_id(meta.mnt_id).is_some_and(|m| m.read_only) {
        let read_only = std::io::Error::from_raw_os_error(libc::EROFS);
        return Err(Error::io("trash", &original, read_only));
    }
    if state.is_some_and(|state| crate::jobs::caution::is_ferry_state(&original, state)) {
        return Err(Error::HoldsFerryState { path: original });
    }
    // The home trash is opened (and made) only for what is on its disk: an item on another
    // disk goes to that disk's trash even when the home trash cannot be had.
    let (home_dev, home_mount) = match (home.as_ref(), *home_place) {
        (Some((_, place)), _) => *place,
        (None, Some(place)) => place,
        (None, None) => {
            let place = home_trash_place(roots).map_err(|e| cannot(&original, e.to_string()))?;
            *home_place.insert(place)
        }
    };
    // A rename leaves neither a btrfs subvolume nor a mount: what counts is the device of the
    // folder the item is in (a subvolume itself moves within its parent's).
    let folder_dev = match meta.id.dev == home_dev {
        true => meta.id.dev,
        false => {
            fs::stat_fd(&pfd)
                .map_err(|e| Error::io("stat", &parent, e))?
                .id
                .dev
        }
    };
    // Another mount of the home disk (a bind mount) is as another disk: no rename leaves it
    // (the trash refused it as "on another file system"), so it has a trash of its own.
    let trash = if folder_dev == home_dev && meta.mnt_id == home_mount {
        if home.is_none() {
            let opened = TrashDir::home(roots, uid).map_err(|e| cannot(&original, e.to_string()));
            let (dir, place) = opened?;
            *home = Some((Rc::new(dir), place));
        }
        Rc::clone(&home.as_ref().expect("set above").0)
    } else {
        let mount_point = mounts
            .by_id(meta.mnt_id)
            .map(|m| m.mount_point.clone())
            .ok_or_else(|| cannot(&original, "its file system is not in the mount table"))?;
        if !roots.allows_volume(&mount_point) {
            return Err(cannot(
                &original,
                "its file system has no trash folder in use",
            ));
        }
        let top = subvolumes::top_of(&parent, folder_dev, &mount_point)
            .unwrap_or_else(|| mount_point.clone());
        match volumes.get(&top) {
            Some(dir) => Rc::clone(dir),
            None => {
                let dir = Rc::new(open_volume_trash(
                    roots,
                    &top,
                    &mount_point,
                    uid,
                    &original,
                )?);
                volumes.insert(top, Rc::clone(&dir));
                dir
            }
        }
    };
    // The trash itself, what is in it, or a folder holding it; on a volume, either of its
    // trash folders (`.Trash/<uid>` and `.Trash-<uid>`, both listed): the one not chosen went
    // into the other, its items listed as the trash's own.
    let trash_itself = || Error::Refused {
        op: "move the trash or what it holds to the trash:",
        path: original.clone(),
    };
    let volume_trashes = (trash.top.as_deref()).map(|top| {
        [
            top.join(volume_trash_name(uid)),
            top.join(".Trash").join(uid.to_string()),
        ]
    });
    let in_or_holding = |dir: &Path| original.starts_with(dir) || dir.starts_with(&original);
    // A home trash that is a link: the link too, and the folders holding it (trashed, the
    // trash was gone from where it is looked for, and its items unlisted).
    let home_link = home_link.get_or_insert_with(|| crate::jobs::caution::real_path(&roots.home));
    if in_or_holding(&trash.path)
        || home_link
            .as_deref()
            .is_some_and(|link| link.starts_with(&original))
        || volume_trashes.iter().flatten().any(|d| in_or_holding(d))
    {
        return Err(trash_itself());
    }
    let (listed, deleted) = match as_trashed {
        Some(a) if !a.deletion_date.is_empty() => (&a.original, a.deletion_date.clone()),
        _ => (&original, now_stamp()),
    };
    // A volume's trash holds paths relative to its top, as the specification asks (the
    // volume may be mounted elsewhere next time).
    let stored = trash
        .top
        .as_deref()
        .and_then(|top| listed.strip_prefix(top).ok())
        .filter(|rel| !rel.as_os_str().is_empty())
        .unwrap_or(listed);
    let body = format!(
        "[Trash Info]\nPath={}\nDeletionDate={deleted}\n",
        crate::uri::percent_encode_path(stored)
    );
    let base = listed.file_name().unwrap_or(name);
    let earlier = as_trashed
        .filter(|_| !retried)
        .map(|a| (None, a.name.clone()));
    let key = (trash.path.clone(), base.to_owned());
    let first = numbered.get(&key).map_or(1, |n| n + 1);
    let numbers = (first..first.saturating_add(10_000)).map(|n| (Some(n), trash_name(base, n)));
    for (number, in_trash) in earlier.into_iter().chain(numbers) {
        let mut info_name = in_trash.clone();
        info_name.push(".trashinfo");
        let info_path = trash.path.join("info").join(&info_name);
        let info_fd = match fs::create_private_at(&trash.info, &info_name) {
            Ok(fd) => fd,
            Err(Errno::EXIST) => continue,
            Err(e) => return Err(Error::io("create", info_path, e)),
        };
        // A name in `files/` without an info file (another program's, or one killed
        // between its rename and writing the info file) is not claimed: killed before the
        // item moved, this info file would have listed that stranger as the item.
        if fs::stat_at(&trash.files, &in_trash).is_ok() {
            let _ = rustix::fs::unlinkat(&trash.info, &info_name, AtFlags::empty());
            continue;
        }
        if let Err(e) = std::fs::File::from(info_fd).write_all(body.as_bytes()) {
            let _ = rustix::fs::unlinkat(&trash.info, &info_name, AtFlags::empty());
            return Err(Error::io("write", info_path, e));
        }
        // The next item of this name (or this one, should the name be taken in `files/`)
        // starts after it.
        if let Some(number) = number {
            numbered.insert(key, number);
        }
        return Ok(Claimed {
            folder: pfd,
            name: name.to_owned(),
            original,
            meta,
            trash,
            info_name,
            in_trash,
            keeps_info: as_trashed.is_none_or(|a| a.info_file),
            unflushed: None,
        });
    }
    Err(cannot(
        &original,
        "too many items of this name in the trash",
    ))
}

/// An item on its way to the trash: its info file written, which claims its name there.
struct Claimed {
    /// The folder it is in.
    folder: Rc<OwnedFd>,
    name: OsString,
    /// Where it is, as its info file says.
    original: PathBuf,
    meta: Meta,
    trash: Rc<TrashDir>,
    info_name: OsString,
    /// Its name in `files/`.
    in_trash: OsString,
    /// False for an entry going back as it was without an info file: the one written to
    /// claim its name goes once it is in.
    keeps_info: bool,
    /// Why its info file could not be put on disk, if it could not: it is not moved.
    unflushed: Option<Errno>,
}

/// What became of a claimed item.
enum Moved {
    Into(TrashRecord),
    /// Its name in `files/` was taken (an entry without an info file): it was not moved, and
    /// its info file is removed.
    NameTaken,
    Failed(Error),
}

impl Claimed {
    /// Moves the item into the trash, its info file flushed before (see [`flush`]).
    fn commit(self) -> Moved {
        let trash = &self.trash;
        if let Some(e) = self.unflushed {
            self.unclaim();
            let info = trash.path.join("info").join(&self.info_name);
            return Moved::Failed(Error::io("write", info, e));
        }
        crate::fault::point("trash-info-written");
        if let Err(e) =
            fs::rename_noreplace(&*self.folder, &self.name, &trash.files, &self.in_trash)
        {
            self.unclaim();
            let original = self.original;
            return match e {
                Errno::EXIST | Errno::NOTEMPTY => Moved::NameTaken,
                Errno::XDEV => {
                    Moved::Failed(cannot(&original, "the trash is on another file system"))
                }
                Errno::INVAL => Moved::Failed(Error::Refused {
                    op: "move the trash or what it holds to the trash:",
                    path: original,
                }),
                e => Moved::Failed(Error::io("move to the trash", original, e)),
            };
        }
        if !self.keeps_info {
            // Killed before this, the entry keeps an info file saying where it was: whole.
            let _ = rustix::fs::unlinkat(&trash.info, &self.info_name, AtFlags::empty());
        }
        let file = trash.path.join("files").join(&self.in_trash);
        let info = trash.path.join("info").join(&self.info_name);
        let m = fs::stat_at(&trash.files, &self.in_trash).unwrap_or(self.meta);
        Moved::Into(record(self.original, file, info, &m))
    }

    /// Gives the claimed name back: the info file goes, the item was not moved.
    fn unclaim(&self) {
        let _ = rustix::fs::unlinkat(&self.trash.info, &self.info_name, AtFlags::empty());
    }
}

/// Puts the info files of `items` on disk before any of them moves: a crash in between
/// leaves info files without their items, which listing ignores (and `ferry resume` or
/// `undo` removes), never an item without its info file. A few are flushed each on its own;
/// more with one `syncfs` per trash folder, where an `fsync` each cost 1.3 to 1.9 ms on
/// ext4 (5,000 files took 6.7 to 9.3 s to trash). Where that fails, each is flushed on its
/// own, and one that cannot be is not moved.
fn flush<'a>(items: impl Iterator<Item = &'a mut Claimed>) {
    let mut items: Vec<&mut Claimed> = items.collect();
    if items.len() > FLUSH_EACH_UP_TO {
        let mut trashes: Vec<&Rc<TrashDir>> = Vec::new();
        for item in &items {
            if !trashes.iter().any(|t| Rc::ptr_eq(t, &item.trash)) {
                trashes.push(&item.trash);
            }
        }
        if trashes.iter().all(|t| rustix::fs::syncfs(&t.info).is_ok()) {
            return;
        }
    }
    for item in &mut items {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let opened = rustix::fs::openat(&item.trash.info, &item.info_name, flags, Mode::empty());
        item.unflushed = opened.and_then(rustix::fs::fsync).err();
    }
}

/// The folder `parent` an item is in, opened: the info file needs its absolute path, so its
/// links are resolved as a shell would (the item itself is never followed). An absolute path
/// longer than the kernel takes (an undo of a tree copied that deep) is reached by folder,
/// links not followed.
fn open_folder(parent: &Path) -> Result<(PathBuf, OwnedFd)> {
    match std::fs::canonicalize(parent) {
        Ok(parent) => {
            let pfd = fs::open_dir_path(&parent).map_err(|e| Error::io("open", &parent, e))?;
            Ok((parent, pfd))
        }
        Err(e) if e.raw_os_error() == Some(Errno::NAMETOOLONG.raw_os_error()) => {
            let pfd = if parent.is_absolute() {
                fs::DeepPaths::default().open_dir(parent)
            } else {
                Err(Errno::NAMETOOLONG)
            };
            Ok((
                parent.to_owned(),
                pfd.map_err(|e| Error::io("open", parent, e))?,
            ))
        }
        Err(e) => Err(Error::io("open", parent, e)),
    }
}

/// The trash of the file system (or btrfs subvolume) whose top is `top`, opened for an item
/// at `original`.
fn open_volume_trash(
    roots: &TrashRoots,
    top: &Path,
    mount_point: &Path,
    uid: u32,
    original: &Path,
) -> Result<TrashDir> {
    if top != mount_point {
        subvolumes::remember(roots, top).map_err(|e| {
            let reason = format!("the trash folder of its subvolume cannot be recorded: {e}");
            cannot(original, reason)
        })?;
    }
    TrashDir::volume(top, uid).map_err(|e| {
        // Nothing on a read-only disk can be deleted either: said as it is, never offered
        // as a permanent delete. Nor on a full disk, nor one out of inodes, nor with too many
        // files open: its trash could be had, once there is room ("no trash Ferry can use",
        // offering a permanent delete, was false).
        let passing = [
            libc::EROFS,
            libc::ENOSPC,
            libc::EDQUOT,
            libc::EMFILE,
            libc::ENFILE,
        ];
        if let Some(errno) = e.raw_os_error().filter(|e| passing.contains(e)) {
            let error = std::io::Error::from_raw_os_error(errno);
            Error::io("trash", original, error)
        } else {
            cannot(original, e.to_string())
        }
    })
}

/// Refuses an item that is a mount point or holds one: renamed into the trash, the mounted
/// file system would go with it, out of sight, and emptying the trash could not remove it
/// (`rm` and `mv` leave mount points alone too). Checked before a volume's trash folder is
/// made, which for a mount point would be made on the mounted file system itself.
fn refuse_mounts(original: &Path, mounts: &MountTable) -> Result<()> {
    let mut inside = mounts.mounts().iter().map(|m| &m.mount_point);
    match inside.find(|point| point.starts_with(original)) {
        None => Ok(()),
        Some(point) if point == original => Err(Error::OtherFilesystem {
            path: original.to_path_buf(),
        }),
        Some(point) => Err(Error::HoldsMount {
            path: original.to_path_buf(),
            mount: point.clone(),
        }),
    }
}

/// `DeletionDate` for an item trashed now: local time, whole seconds.
fn now_stamp() -> String {
    chrono::Local::now().format("%Y-%m-%dT%H:%M:%S").to_string()
}

fn cannot(path: &Path, reason: impl Into<String>) -> Error {
    Error::CannotTrash {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
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
        let (mounts, uid) = (MountTable::read(), rustix::process::getuid().as_raw());
        trash_one(
            Path::new(path),
            None,
            &roots,
            &mut Trashes::default(),
            (&mounts, None),
            uid,
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
