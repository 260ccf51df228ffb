//! Claiming a name in a trash for an item: the checks an item passes on its way there, the
//! trash folder it goes to, and its info file written (`O_EXCL`), which claims the name;
//! then the info files of the items claimed flushed together, and each item moved.

use std::collections::HashMap;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;

use super::folder::{TrashDir, trash_name, volume_trash_name};
use super::put::{AsTrashed, record};
use super::{TrashRecord, TrashRoots, subvolumes};
use crate::error::{Error, Result};
use crate::fs::{self, Meta, MountTable};

/// What every item of a job is checked against on its way to the trash.
#[derive(Clone, Copy)]
pub(super) struct Places<'a> {
    pub(super) roots: &'a TrashRoots,
    pub(super) mounts: &'a MountTable,
    /// Ferry's state folder (the undo journal, where the very job is recorded): neither it
    /// nor a folder holding it is trashed.
    pub(super) state: Option<&'a crate::jobs::caution::Guarded>,
    pub(super) uid: u32,
}

/// Claimed items up to this many are flushed with an `fsync` each, not a `syncfs`: one
/// file trashed does not wait for whatever else the disk has to write.
const FLUSH_EACH_UP_TO: usize = 4;

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
pub(super) struct Trashes {
    /// The home trash, once opened, and its device and mount.
    home: Option<(Rc<TrashDir>, (u64, u64))>,
    /// The other disks' trash folders opened for a batch, by the top they are at.
    volumes: HashMap<PathBuf, Rc<TrashDir>>,
    /// The folders the items of a batch are in, by the path given: resolved and opened once
    /// a batch, not once an item; and whether each is in Ferry's state folder.
    folders: HashMap<PathBuf, (PathBuf, Rc<OwnedFd>, bool)>,
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

impl Trashes {
    /// The folders held open for a batch: those its items are in, and the trash folders of
    /// other disks.
    pub(super) fn held(&self) -> usize {
        self.folders.len() + self.volumes.len()
    }

    /// Lets go of the folders held for a batch.
    pub(super) fn let_go(&mut self) {
        self.folders.clear();
        self.volumes.clear();
    }
}

/// Claims a name in the trash for `path`, leaving alone a mount point or a folder holding
/// one, and Ferry's `state` folder or a folder holding it (the undo journal, where this very
/// job is recorded): writes its info file, not yet flushed (see [`flush`]). `retried`: the
/// name the item had in the trash (`as_trashed`) was found taken; numbered names only.
pub(super) fn claim(
    path: &Path,
    as_trashed: Option<&AsTrashed>,
    places: Places<'_>,
    trashes: &mut Trashes,
    retried: bool,
) -> Result<Claimed> {
    let Places {
        roots,
        mounts,
        state,
        uid,
    } = places;
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
    let (parent, pfd, in_state) = match folders.get(parent) {
        Some((resolved, fd, in_state)) => (resolved.clone(), Rc::clone(fd), *in_state),
        None => {
            let (resolved, fd) = open_folder(parent)?;
            let in_state = state.is_some_and(|state| state.holds_dir(&fd));
            let opened = (resolved, Rc::new(fd), in_state);
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
    let is_state = |state| crate::jobs::caution::is_ferry_state(&original, meta.id, state);
    if in_state || state.is_some_and(is_state) {
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
pub(super) struct Claimed {
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
pub(super) enum Moved {
    Into(TrashRecord),
    /// Its name in `files/` was taken (an entry without an info file): it was not moved, and
    /// its info file is removed.
    NameTaken,
    Failed(Error),
}

impl Claimed {
    /// Where it is, as its info file says.
    pub(super) fn original(&self) -> &Path {
        &self.original
    }

    /// Moves the item into the trash, its info file flushed before (see [`flush`]).
    pub(super) fn commit(self) -> Moved {
        let trash = &self.trash;
        if let Some(e) = self.unflushed {
            self.unclaim();
            let info = trash.path.join("info").join(&self.info_name);
            return Moved::Failed(Error::io("write", info, e));
        }
        crate::fault::point("trash-info-written");
        if let Err(e) = self.rename_in() {
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

    /// Renames the item into `files/` (a read-only folder of one's own too: see
    /// [`fs::rename_own`]).
    fn rename_in(&self) -> Result<(), Errno> {
        let moved = fs::Moved {
            kind: self.meta.kind,
            id: self.meta.id,
            mode: self.meta.mode,
            uid: self.meta.uid,
        };
        fs::rename_own(
            &*self.folder,
            &self.name,
            &self.trash.files,
            &self.in_trash,
            moved,
        )
    }

    /// Gives the claimed name back: the info file goes, the item was not moved.
    pub(super) fn unclaim(&self) {
        let _ = rustix::fs::unlinkat(&self.trash.info, &self.info_name, AtFlags::empty());
    }
}

/// Puts the info files of `items` on disk before any of them moves: a crash in between
/// leaves info files without their items, which listing ignores (and `ferry resume` or
/// `undo` removes), never an item without its info file. A few are flushed each on its own;
/// more with one `syncfs` per trash folder, where an `fsync` each cost 1.3 to 1.9 ms on
/// ext4 (5,000 files took 6.7 to 9.3 s to trash). Where that fails, each is flushed on its
/// own, and one that cannot be is not moved.
pub(super) fn flush<'a>(items: impl Iterator<Item = &'a mut Claimed>) {
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
pub(super) fn now_stamp() -> String {
    chrono::Local::now().format("%Y-%m-%dT%H:%M:%S").to_string()
}

pub(super) fn cannot(path: &Path, reason: impl Into<String>) -> Error {
    Error::CannotTrash {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}
