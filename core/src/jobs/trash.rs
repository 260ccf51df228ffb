//! The freedesktop.org trash (Trash specification 1.0): trashing, listing, restoring and
//! emptying, each a job of the engine.
//!
//! Trashing follows the specification as the `trash` crate does (home trash for items on the
//! home trash's file system; `$topdir/.Trash/$uid` or `$topdir/.Trash-$uid` elsewhere; the
//! `.trashinfo` file written first with `O_EXCL` and put on disk, then the item renamed next
//! to it; names `name`, `name.2`, ...), but is done here on directory descriptors because
//! the crate's `delete` cannot serve a file manager: it does not say where an item went (undo needs the
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
//!
//! Where each part is: this file holds the types every part shares (where the trash
//! folders are, what a job did to an item) and the devices a job takes;
//! - `trash/put.rs`: the trash job, in batches of items;
//! - `trash/claim.rs`: an item's checks on its way to the trash, the trash folder it goes
//!   to, its name there claimed by its info file, then the info files flushed and the item
//!   moved;
//! - `trash/folder.rs`: one trash folder opened (made 0700 where missing), and the names
//!   items get in it;
//! - `trash/find.rs`: every trash folder of the user's, for listing and emptying;
//! - `trash/info.rs`: reading the trash (its info files, and entries without one);
//! - `trash/place.rs`: where an entry may be restored to, and opening that place safely;
//! - `trash/restore.rs`, `trash/empty.rs`: restoring and emptying;
//! - `trash/sizes.rs`: the trash's `directorysizes` cache, kept up by each of them;
//! - `trash/subvolumes.rs`: the btrfs subvolumes' own trash folders.

mod claim;
mod empty;
mod find;
mod folder;
mod info;
mod place;
mod put;
mod restore;
mod sizes;
mod subvolumes;

pub use empty::is_trashed_item;

use std::path::{Path, PathBuf};

use super::Job;
use crate::entry::Kind;
use crate::error::{Error, Result};
use crate::fs::{FileId, Timestamp};

pub(crate) use empty::{run_delete, run_empty};
use find::trash_dirs;
pub(crate) use info::stray_infos;
pub use info::{TrashStamp, TrashedItem, list_trash, list_trash_in, trash_stamp};
pub use place::UnsafeEntry;
use put::record;
pub(crate) use put::{AsTrashed, run_trash, run_trash_as, trash_replaced};
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

    /// The home trash folder to use: `home`, or where it leads when it is a symbolic link of
    /// the user's own to a folder of theirs (a trash kept on another disk: the spec does not
    /// forbid it, and trash-put follows it; refused, nothing could be trashed and the items
    /// in it were not listed). A link someone else made, or to what is not the user's own
    /// folder, is not followed, and the trash refuses it as before.
    pub(crate) fn home_followed(&self) -> PathBuf {
        use std::os::unix::fs::MetadataExt;
        let uid = rustix::process::getuid().as_raw();
        let own_link = std::fs::symlink_metadata(&self.home)
            .is_ok_and(|m| m.file_type().is_symlink() && m.uid() == uid);
        let target = own_link
            .then(|| std::fs::canonicalize(&self.home).ok())
            .flatten()
            .filter(|t| std::fs::metadata(t).is_ok_and(|m| m.is_dir() && m.uid() == uid));
        target.unwrap_or_else(|| self.home.clone())
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
