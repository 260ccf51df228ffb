//! The freedesktop.org trash (Trash specification 1.0): trashing, listing, restoring and
//! emptying, each a job of the engine.
//!
//! Trashing follows the specification as the `trash` crate does (home trash for items on the
//! home trash's file system; `$topdir/.Trash/$uid` or `$topdir/.Trash-$uid` elsewhere; the
//! `.trashinfo` file written first with `O_EXCL`, then the item renamed next to it; names
//! `name`, `name.2`, ...), but is done here on directory descriptors because the crate's
//! `delete` cannot serve a file manager: it does not say where an item went (undo needs the
//! exact trash entry), it reads the trash location only from the environment (tests must
//! never touch the user's trash), it creates `.Trash-$uid` with the umask's mode (0755, not
//! the 0700 the specification asks for), and when a volume has no usable trash it copies the
//! item into the home trash with `std::fs::copy`, following a symlink to a folder and
//! flushing nothing. Here an item that cannot be renamed into a trash on its own file system
//! fails with [`Error::CannotTrash`], which the UI answers with "Delete permanently".
//!
//! Which trash an item goes to: the home trash when the item's device (`st_dev`), or that of
//! the folder it is in, is the home trash's; otherwise the trash at the top of the item's
//! mount (from `mountinfo`), or at the top of the btrfs subvolume it is in when that is below
//! the mount point (`trash/subvolumes.rs`, as GLib does). A tmpfs such as `/dev/shm` is its
//! own mount, so items there go to `/dev/shm/.Trash-$uid` (the crate would use it too,
//! created with the umask's mode). Trash folders and their `files/` and `info/` are created
//! 0700 and must belong to the user. A bind mount where the rename into the chosen trash
//! fails with `EXDEV` gets [`Error::CannotTrash`].
//!
//! Restoring is a move of each trashed item to its original path (see `trash/restore.rs`):
//! a rename where the trash and the original place share a mount, elsewhere a copy made
//! durable (`syncfs`) before the trashed copy and its info file go. An original place taken
//! since is a conflict, decided with the job's [`ConflictPolicy`](super::ConflictPolicy) as
//! for a paste. Emptying deletes with the engine's remover (`trash/empty.rs`). Names stay bytes throughout;
//! `Path=` is percent-encoded bytewise.

mod empty;
mod info;

pub use empty::is_trashed_item;
mod place;
mod restore;
mod subvolumes;

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::Instant;

use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, Mode};
use rustix::io::Errno;

use super::control::JobCtx;
use super::progress::TICK;
use super::{Event, Failed, Job, Phase, Progress, Skipped, Summary, Totals};
use crate::entry::Kind;
use crate::error::{Error, Result};
use crate::fs::{self, FileId, Meta, MountTable, Timestamp};

pub(crate) use empty::{read_only_rule, run_empty};
pub(crate) use info::stray_infos;
pub use info::{TrashStamp, TrashedItem, list_trash, list_trash_in, trash_stamp};
pub use place::UnsafeEntry;
pub(crate) use restore::{remove_info_if_gone, run_job as run_restore};

/// Where the trash folders are. [`TrashRoots::from_env`] is the user's trash; tests point
/// [`home`](Self::home) at a temporary folder and restrict [`volumes`](Self::volumes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrashRoots {
    /// The home trash, `$XDG_DATA_HOME/Trash` (`~/.local/share/Trash`).
    pub home: PathBuf,
    /// Which file systems' own trash folders may be used and are listed.
    pub volumes: Volumes,
}

/// File systems whose own trash folder (`$topdir/.Trash/$uid` or `$topdir/.Trash-$uid`) is
/// used for items not on the home trash's file system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Volumes {
    /// Every mounted file system.
    All,
    /// Only the file systems mounted at these folders (none: home trash only).
    Only(Vec<PathBuf>),
}

impl TrashRoots {
    /// The user's trash: `$XDG_DATA_HOME/Trash` (or `~/.local/share/Trash`) and every volume.
    pub fn from_env() -> Result<Self> {
        let dirs = directories::BaseDirs::new().ok_or_else(|| Error::CannotTrash {
            path: PathBuf::from("~"),
            reason: "the home folder is unknown (HOME is not set)".into(),
        })?;
        Ok(TrashRoots {
            home: dirs.data_dir().join("Trash"),
            volumes: Volumes::All,
        })
    }

    /// Only the home trash at `home` (a `…/Trash` folder); items elsewhere cannot be trashed.
    pub fn home_only(home: impl Into<PathBuf>) -> Self {
        TrashRoots {
            home: home.into(),
            volumes: Volumes::Only(Vec::new()),
        }
    }

    fn allows_volume(&self, top: &Path) -> bool {
        match &self.volumes {
            Volumes::All => true,
            Volumes::Only(tops) => tops.iter().any(|t| t == top),
        }
    }
}

/// Where one item went, or came back from, with its identity for undo.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrashRecord {
    /// The item's path outside the trash.
    pub original: PathBuf,
    /// Its entry in a trash `files/` folder (for a restore: where it was).
    pub file: PathBuf,
    /// Its `.trashinfo` file in the trash's `info/` folder (for a restore: removed).
    pub info: PathBuf,
    /// File type.
    pub kind: Kind,
    /// Identity of the item where the job left it: in the trash for a trash job, at the
    /// original path for a restore (a new inode when it was copied across file systems).
    pub id: FileId,
    /// Size in bytes (of the item itself; folders: as `stat` reports).
    pub size: u64,
    /// Modification time.
    pub mtime: Timestamp,
}

/// One trash folder (holding `files/` and `info/`), opened.
struct TrashDir {
    path: PathBuf,
    files: OwnedFd,
    info: OwnedFd,
    /// The volume's top, for a volume's trash: its info files hold paths relative to it.
    top: Option<PathBuf>,
}

/// Creates folder `name` in `dir` as 0700 if missing, then opens it without following a
/// symlink and checks it belongs to `uid` (a folder planted by someone else is refused).
fn private_dir_at(dir: &OwnedFd, name: &OsStr, uid: u32) -> rustix::io::Result<OwnedFd> {
    match rustix::fs::mkdirat(dir, name, Mode::from_raw_mode(0o700)) {
        Ok(()) | Err(Errno::EXIST) => {}
        Err(e) => return Err(e),
    }
    let fd = fs::open_dir_at(dir, name)?;
    if fs::stat_fd(&fd)?.uid != uid {
        return Err(Errno::PERM);
    }
    Ok(fd)
}

impl TrashDir {
    /// Opens (creating as needed) the trash folder `name` inside the open folder `parent`.
    fn open(parent: &OwnedFd, parent_path: &Path, name: &OsStr, uid: u32) -> Result<Self> {
        let path = parent_path.join(name);
        let io = |e| match e {
            // Opened without following links: say so, not "Not a directory".
            Errno::NOTDIR | Errno::LOOP
                if fs::stat_at(parent, name).is_ok_and(|m| m.kind == Kind::Symlink) =>
            {
                Error::LinkInPath {
                    path: path.clone(),
                    dest: path.clone(),
                }
            }
            e => Error::io("use the trash folder", &path, e),
        };
        let root = private_dir_at(parent, name, uid).map_err(io)?;
        let files = private_dir_at(&root, OsStr::new("files"), uid).map_err(io)?;
        let info = private_dir_at(&root, OsStr::new("info"), uid).map_err(io)?;
        Ok(TrashDir {
            path,
            files,
            info,
            top: None,
        })
    }

    /// The home trash, created (0700) with its parents if missing, and its device.
    fn home(roots: &TrashRoots, uid: u32) -> Result<(Self, u64)> {
        let home = &roots.home;
        let (Some(name), Some(parent)) = (home.file_name(), home.parent()) else {
            return Err(Error::Refused {
                op: "use as the trash",
                path: home.clone(),
            });
        };
        std::fs::create_dir_all(parent).map_err(|e| Error::io("create folder", parent, e))?;
        let pfd = fs::open_dir_path(parent).map_err(|e| Error::io("open", parent, e))?;
        let dir = TrashDir::open(&pfd, parent, name, uid)?;
        let dev = fs::stat_fd(&dir.files)
            .map_err(|e| Error::io("stat", &dir.path, e))?
            .id
            .dev;
        Ok((dir, dev))
    }

    /// The trash of the file system mounted at `top`: `.Trash/$uid` when an administrator
    /// prepared a valid `.Trash` (a sticky folder, not a link), else `.Trash-$uid`.
    fn volume(top: &Path, uid: u32) -> Result<Self> {
        let tfd = fs::open_dir_path(top).map_err(|e| Error::io("open", top, e))?;
        let shared = fs::open_dir_at(&tfd, ".Trash")
            .ok()
            .filter(|d| fs::stat_fd(d).is_ok_and(|m| m.mode & 0o1000 != 0))
            .and_then(|shared| {
                let uid_name = OsString::from(uid.to_string());
                TrashDir::open(&shared, &top.join(".Trash"), &uid_name, uid).ok()
            });
        let dir = match shared {
            Some(dir) => dir,
            None => TrashDir::open(&tfd, top, &volume_trash_name(uid), uid)?,
        };
        Ok(TrashDir {
            top: Some(top.to_path_buf()),
            ..dir
        })
    }
}

fn volume_trash_name(uid: u32) -> OsString {
    OsString::from(format!(".Trash-{uid}"))
}

/// The name in the trash for attempt `n` (1, 2, ...): `name`, `name.2`, ..., shortened so
/// that the info file's name (`.trashinfo` added) fits the usual 255-byte limit.
fn trash_name(name: &OsStr, n: u32) -> OsString {
    let suffix = if n == 1 {
        String::new()
    } else {
        format!(".{n}")
    };
    let mut keep = (255 - ".trashinfo".len() - suffix.len()).min(name.len());
    // A name in UTF-8 is cut between characters (half a character is a name no program
    // shows right).
    if let Ok(text) = std::str::from_utf8(name.as_bytes()) {
        while !text.is_char_boundary(keep) {
            keep -= 1;
        }
    }
    let mut out = OsStr::from_bytes(&name.as_bytes()[..keep]).to_owned();
    out.push(suffix);
    out
}

/// How an item a restore took out of the trash goes back when the restore is undone: as the
/// entry it was (its `Path=`, `DeletionDate` and name in `files/`), not as an item trashed
/// now from where the restore put it (a chosen folder, or a "(copy)" name beside another).
#[derive(Debug, Clone)]
pub(crate) struct AsTrashed {
    pub(crate) original: PathBuf,
    pub(crate) deletion_date: String,
    pub(crate) name: OsString,
}

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
    let uid = rustix::process::getuid().as_raw();
    let mounts = MountTable::read();
    let state = super::UndoJournal::open_default()
        .ok()
        .and_then(|journal| std::fs::canonicalize(journal.path().parent()?).ok());
    let mut home: Option<(TrashDir, u64)> = None;
    for (i, path) in paths.iter().enumerate() {
        if !run.step(i, path) {
            run.summary.not_done.extend_from_slice(&paths[i..]);
            break;
        }
        let as_trashed = as_trashed.get(i).and_then(Option::as_ref);
        let places = (&mounts, state.as_deref());
        match trash_one(path, as_trashed, roots, &mut home, places, uid) {
            Ok(record) => run.done(path.clone(), record),
            Err(e) => run.fail(path.clone(), e),
        }
    }
    run.finish()
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
    let mut home = None;
    let mut failed = Vec::new();
    for (staged, place) in replaced {
        let as_trashed = AsTrashed {
            original: place.clone(),
            deletion_date: now_stamp(),
            name: place.file_name().unwrap_or(place.as_os_str()).to_owned(),
        };
        let places = (&mounts, None);
        if let Err(e) = trash_one(staged, Some(&as_trashed), roots, &mut home, places, uid) {
            failed.push((place.clone(), e));
        }
    }
    failed
}

/// Trashes `path`, leaving alone a mount point or a folder holding one, and Ferry's `state`
/// folder or a folder holding it (the undo journal, where this very job is recorded).
/// The device the home trash is (or, made, would be) on: that of the trash folder, or of
/// the nearest folder above it that exists.
fn home_trash_dev(roots: &TrashRoots) -> std::io::Result<u64> {
    use std::os::unix::fs::MetadataExt;
    for folder in roots.home.ancestors() {
        match std::fs::symlink_metadata(folder) {
            Ok(meta) => return Ok(meta.dev()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Err(std::io::ErrorKind::NotFound.into())
}

fn trash_one(
    path: &Path,
    as_trashed: Option<&AsTrashed>,
    roots: &TrashRoots,
    home: &mut Option<(TrashDir, u64)>,
    (mounts, state): (&MountTable, Option<&Path>),
    uid: u32,
) -> Result<TrashRecord> {
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
    // The info file needs the absolute path; the parent's links are resolved as a shell
    // would, the item itself is never followed. An absolute path longer than the kernel takes
    // (an undo of a tree copied that deep) is reached by folder, links not followed.
    let (parent, pfd) = match std::fs::canonicalize(parent) {
        Ok(parent) => {
            let pfd = fs::open_dir_path(&parent).map_err(|e| Error::io("open", &parent, e))?;
            (parent, pfd)
        }
        Err(e) if e.raw_os_error() == Some(Errno::NAMETOOLONG.raw_os_error()) => {
            let pfd = if parent.is_absolute() {
                fs::DeepPaths::default().open_dir(parent)
            } else {
                Err(Errno::NAMETOOLONG)
            };
            (
                parent.to_owned(),
                pfd.map_err(|e| Error::io("open", parent, e))?,
            )
        }
        Err(e) => return Err(Error::io("open", parent, e)),
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
    if state.is_some_and(|state| state.starts_with(&original)) {
        return Err(Error::HoldsFerryState { path: original });
    }
    // The home trash is opened (and made) only for what is on its disk: an item on another
    // disk goes to that disk's trash even when the home trash cannot be had.
    let home_dev = match home {
        Some((_, dev)) => *dev,
        None => home_trash_dev(roots).map_err(|e| cannot(&original, e.to_string()))?,
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
    let volume;
    let trash = if folder_dev == home_dev {
        if home.is_none() {
            let opened = TrashDir::home(roots, uid).map_err(|e| cannot(&original, e.to_string()));
            *home = Some(opened?);
        }
        &home.as_ref().expect("set above").0
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
        if top != mount_point {
            subvolumes::remember(roots, &top).map_err(|e| {
                let reason = format!("the trash folder of its subvolume cannot be recorded: {e}");
                cannot(&original, reason)
            })?;
        }
        volume = TrashDir::volume(&top, uid).map_err(|e| {
            // Nothing on a read-only disk can be deleted either: said as it is, never
            // offered as a permanent delete.
            // Nor on a full disk, nor one out of inodes: its trash could be had, once there
            // is room ("no trash Ferry can use", offering a permanent delete, was false).
            if let Some(errno @ (libc::EROFS | libc::ENOSPC | libc::EDQUOT)) = e.raw_os_error() {
                let error = std::io::Error::from_raw_os_error(errno);
                Error::io("trash", &original, error)
            } else {
                cannot(&original, e.to_string())
            }
        })?;
        &volume
    };
    // The trash itself, what is in it, or a folder holding it.
    let trash_itself = || Error::Refused {
        op: "move the trash or what it holds to the trash:",
        path: original.clone(),
    };
    if original.starts_with(&trash.path) || trash.path.starts_with(&original) {
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
    let earlier = as_trashed.map(|a| a.name.clone());
    for in_trash in earlier
        .into_iter()
        .chain((1..=10_000).map(|n| trash_name(base, n)))
    {
        let mut info_name = in_trash.clone();
        info_name.push(".trashinfo");
        let info_path = trash.path.join("info").join(&info_name);
        let info_fd = match fs::create_private_at(&trash.info, &info_name) {
            Ok(fd) => fd,
            Err(Errno::EXIST) => continue,
            Err(e) => return Err(Error::io("create", info_path, e)),
        };
        // The info file is complete and on disk before the item moves: a crash in between
        // leaves an info file without an item, which listing ignores, never the reverse.
        let mut file = std::fs::File::from(info_fd);
        if let Err(e) = file
            .write_all(body.as_bytes())
            .and_then(|()| file.sync_all())
        {
            let _ = rustix::fs::unlinkat(&trash.info, &info_name, AtFlags::empty());
            return Err(Error::io("write", info_path, e));
        }
        crate::fault::point("trash-info-written");
        match fs::rename_noreplace(&pfd, name, &trash.files, &in_trash) {
            Ok(()) => {}
            Err(e) => {
                let _ = rustix::fs::unlinkat(&trash.info, &info_name, AtFlags::empty());
                match e {
                    Errno::EXIST | Errno::NOTEMPTY => continue,
                    Errno::XDEV => {
                        return Err(cannot(&original, "the trash is on another file system"));
                    }
                    Errno::INVAL => return Err(trash_itself()),
                    e => return Err(Error::io("move to the trash", original, e)),
                }
            }
        }
        let file = trash.path.join("files").join(&in_trash);
        let m = fs::stat_at(&trash.files, &in_trash).unwrap_or(meta);
        return Ok(record(original, file, info_path, &m));
    }
    Err(cannot(
        &original,
        "too many items of this name in the trash",
    ))
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

fn record(original: PathBuf, file: PathBuf, info: PathBuf, m: &Meta) -> TrashRecord {
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

/// Every existing trash folder of `roots` (the home trash first).
fn trash_dirs(roots: &TrashRoots) -> Vec<PathBuf> {
    let uid = rustix::process::getuid().as_raw();
    let mut dirs = vec![roots.home.clone()];
    let mut seen = std::collections::HashSet::new();
    if let Ok(m) = std::fs::symlink_metadata(&roots.home) {
        use std::os::unix::fs::MetadataExt;
        seen.insert((m.dev(), m.ino()));
    }
    // Tops of disks that may stop answering (network, FUSE), and the others.
    let tops: Vec<(PathBuf, bool)> = match &roots.volumes {
        Volumes::All => MountTable::read()
            .mounts()
            .iter()
            // Looking into an automount point would mount it.
            .filter(|m| m.fs_type != "autofs")
            .map(|m| (m.mount_point.clone(), m.may_hang()))
            .collect(),
        Volumes::Only(tops) => tops.iter().map(|t| (t.clone(), false)).collect(),
    };
    let subvolume_tops = subvolumes::remembered(roots)
        .into_iter()
        .filter(|top| tops.iter().any(|(mount, _)| top.starts_with(mount)))
        .map(|top| (top, false));
    let tops: Vec<(PathBuf, bool)> = tops.iter().cloned().chain(subvolume_tops).collect();
    // A disk that may hang is looked at on a thread of its own, for at most TOPS_TIMEOUT: a
    // FUSE or network mount that stopped answering kept the Trash view "reading" for good
    // (the thread is left to finish on its own; that disk's trash is left out meanwhile).
    let (slow, local): (Vec<_>, Vec<_>) = tops.into_iter().partition(|(_, may_hang)| *may_hang);
    let jobs = (slow.into_iter())
        .map(|(top, _)| (top.clone(), move || trash_folders_at(&top, uid)))
        .collect();
    let answers = (local.iter())
        .map(|(top, _)| Some(trash_folders_at(top, uid)))
        .chain(crate::places::probe_all(jobs, TOPS_TIMEOUT));
    for (dir, id) in answers.flatten().flatten() {
        // One folder reached through two mounts (a bind mount, a btrfs subvolume mounted
        // on its own as well) is listed once: twice, its items were listed twice, and
        // restoring or emptying the second copies failed.
        if seen.insert(id) {
            dirs.push(dir);
        }
    }
    dirs
}

/// How long the trash folders of each disk are looked for (see [`trash_dirs`]).
const TOPS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// The trash folders of user `uid` at the top of a disk, `top`, with their identities.
fn trash_folders_at(top: &Path, uid: u32) -> Vec<(PathBuf, (u64, u64))> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let shared = top.join(".Trash");
    let valid = std::fs::symlink_metadata(&shared)
        .is_ok_and(|m| m.is_dir() && m.permissions().mode() & 0o1000 != 0);
    let mut candidates = vec![top.join(volume_trash_name(uid))];
    if valid {
        candidates.push(shared.join(uid.to_string()));
    }
    (candidates.into_iter())
        .filter_map(|dir| {
            // Another user's (made there to lock this user out) is not this user's trash.
            let m = std::fs::symlink_metadata(&dir).ok()?;
            (m.is_dir() && m.uid() == uid).then(|| (dir, (m.dev(), m.ino())))
        })
        .collect()
}

/// Devices a trash job reads or writes, for the engine's queue.
pub(crate) fn devices_of(job: &Job) -> Vec<u64> {
    let dev = |p: &Path| {
        std::fs::symlink_metadata(p).ok().map(|m| {
            use std::os::unix::fs::MetadataExt;
            m.dev()
        })
    };
    match job {
        Job::Trash { paths, .. } => paths.iter().filter_map(|p| dev(p)).collect(),
        Job::Restore { items, .. } => items
            .iter()
            .flat_map(|i| [Some(i.id.dev), i.original.parent().and_then(dev)])
            .flatten()
            .collect(),
        Job::EmptyTrash { roots, .. } => dev(&roots.home).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// Per-item bookkeeping shared by the trash and restore jobs: progress events at most once
/// a tick, the summary, and failures reported as they happen.
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
        let progress = Progress {
            phase: self.ctx.counters.phase(),
            bytes_done: self
                .ctx
                .counters
                .bytes
                .load(std::sync::atomic::Ordering::Relaxed),
            bytes_total: 0,
            items_done,
            items_total: self.total,
            current,
            speed: 0.0,
            eta: None,
            paused: self.ctx.control.is_paused(),
        };
        self.ctx.emit(Event::Progress {
            job: self.ctx.id,
            progress,
        });
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

    #[test]
    fn trash_names_count_up_and_fit_the_name_limit() {
        assert_eq!(trash_name(OsStr::new("a.txt"), 1), "a.txt");
        assert_eq!(trash_name(OsStr::new("a.txt"), 3), "a.txt.3");
        let long = OsString::from("x".repeat(255));
        let name = trash_name(&long, 12);
        assert_eq!(name.len() + ".trashinfo".len(), 255);
        assert!(name.as_bytes().ends_with(b"x.12"));
        // Cut between characters: 127 two-byte letters keep 122 whole ones, not 122 and a half.
        let accented = OsString::from("é".repeat(127));
        let name = trash_name(&accented, 1);
        assert_eq!(name.to_str(), Some("é".repeat(122).as_str()));
        let name = trash_name(&accented, 2);
        assert_eq!(
            name.to_str(),
            Some(format!("{}.2", "é".repeat(121)).as_str())
        );
        // A name that is not UTF-8 is cut by bytes.
        let bytes = std::os::unix::ffi::OsStringExt::from_vec(vec![0xff; 255]);
        let bytes: OsString = bytes;
        assert_eq!(trash_name(&bytes, 1).len(), 245);
    }

    #[test]
    fn a_path_written_with_a_final_slash_is_trashed_only_if_it_is_a_folder() {
        let tmp = tempfile::tempdir_in("/dev/shm").unwrap();
        let file = tmp.path().join("file");
        std::fs::write(&file, "kept").unwrap();
        std::fs::create_dir(tmp.path().join("folder")).unwrap();
        let roots = TrashRoots::home_only(tmp.path().join("Trash"));
        let (mounts, uid) = (MountTable::read(), rustix::process::getuid().as_raw());
        let mut home = None;
        let kept = (&mounts, None);
        let mut trash =
            |path: String| trash_one(Path::new(&path), None, &roots, &mut home, kept, uid);
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
        let roots = TrashRoots::home_only(tmp.path().join("Trash"));
        let (mounts, uid) = (MountTable::read(), rustix::process::getuid().as_raw());
        let mut home = None;
        let kept = (&mounts, None);
        let mut trash =
            |path: String| trash_one(Path::new(&path), None, &roots, &mut home, kept, uid);
        for path in ["folder/.", "folder/./", "folder/inside/.."] {
            let error = trash(format!("{}/{path}", tmp.path().display())).unwrap_err();
            assert!(matches!(error, Error::Refused { .. }), "{path}: {error}");
        }
        assert!(tmp.path().join("folder/inside").is_dir());
    }
}
