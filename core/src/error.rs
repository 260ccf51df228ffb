//! The one error type of `ferry-core`: every variant names the path it is about.

use std::io;
use std::path::{Path, PathBuf};

use crate::shown::Shown;

/// Result alias used across the core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the core, always with the path concerned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A system call failed on `path`; `op` is a short verb such as "open" or "stat".
    #[error("cannot {op} {}: {source}", Shown(path))]
    Io {
        /// What was being attempted ("open", "read directory", "stat", "copy", ...).
        op: &'static str,
        /// The path the operation was about.
        path: PathBuf,
        /// The underlying OS error.
        #[source]
        source: io::Error,
    },
    /// A directory was expected but `path` is something else.
    #[error("{} is not a folder", Shown(path))]
    NotADirectory {
        /// The offending path.
        path: PathBuf,
    },
    /// Copying or moving a folder into itself or one of its descendants.
    #[error("cannot copy or move {} into itself ({})", Shown(path), Shown(dest))]
    IntoItself {
        /// The folder being copied or moved.
        path: PathBuf,
        /// The destination that lies inside it.
        dest: PathBuf,
    },
    /// A move answered Replace where what is in the way is the folder the item is in, or
    /// one above it: set aside with it, the item would go too, and the undo could not bring
    /// the folder back (the item would be in its place).
    #[error(
        "cannot put {} in place of {}, the folder it is in",
        Shown(path),
        Shown(dest)
    )]
    ReplacesItsFolder {
        /// The item moved.
        path: PathBuf,
        /// The folder in the way that holds it.
        dest: PathBuf,
    },
    /// Source and destination are the same file (same device and inode).
    #[error("{} and {} are the same file", Shown(path), Shown(dest))]
    SameFile {
        /// The source path.
        path: PathBuf,
        /// The destination path.
        dest: PathBuf,
    },
    /// The operation was cancelled by the user.
    #[error("cancelled")]
    Cancelled,
    /// A job stopped by a defect in Ferry (a panic), not by anything about the files: what it
    /// did is not recorded as ended, so that the next start offers to finish it or roll it
    /// back, as after a crash ([`Summary::stopped_by_defect`](crate::jobs::Summary::stopped_by_defect)).
    #[error("stopped by an internal error ({message})")]
    Defect {
        /// The panic's message.
        message: String,
    },
    /// The item changed (replaced, moved, different type) between planning and doing.
    #[error("{} changed during the operation", Shown(path))]
    Changed {
        /// The item that changed.
        path: PathBuf,
    },
    /// A file and a folder of one name: neither replaces the other without an explicit choice.
    #[error("{} already exists as a {existing}; not replaced", Shown(path))]
    KindConflict {
        /// The destination path.
        path: PathBuf,
        /// What is there ("folder", "file", ...).
        existing: &'static str,
    },
    /// Two sources of one job have the same name and would land on each other.
    #[error("{} has the same name as another item of this operation", Shown(path))]
    DuplicateName {
        /// The second source of that name.
        path: PathBuf,
    },
    /// The destination file system takes the name for another one already there (FAT and
    /// exFAT do not tell `Notes.txt` from `notes.txt`): two sources of one folder that only
    /// such a file system confuses.
    #[error(
        "{} is taken by {} on this file system, which does not tell the two names apart; not overwritten",
        Shown(path),
        Shown(existing)
    )]
    NameFolded {
        /// The destination path.
        path: PathBuf,
        /// The item there whose name the file system takes for it.
        existing: PathBuf,
    },
    /// The name cannot exist on the destination file system (characters FAT or NTFS refuse,
    /// or longer than its name limit).
    #[error("{} is not a valid name on the destination file system", Shown(path))]
    NameNotAllowed {
        /// The destination path it would have had.
        path: PathBuf,
    },
    /// The item to be replaced could not be kept aside (no staging folder): not replaced.
    #[error("cannot keep {} aside to replace it: {error}", Shown(path))]
    Staging {
        /// The item that would have been replaced.
        path: PathBuf,
        /// Why the staging folder could not be used.
        error: std::sync::Arc<Error>,
    },
    /// A folder is a mount point (of another file system, or a folder bind-mounted there); a
    /// delete does not go into it, a move does not take it. Said as a mount point: "of
    /// another file system" was false of a bind mount of the same one.
    #[error("{} is a mount point; left alone", Shown(path))]
    OtherFilesystem {
        /// The mount point.
        path: PathBuf,
    },
    /// A folder holds a mount point of another file system: not trashed, which would take the
    /// mounted file system with it.
    #[error("{} holds the mount point {}; left alone", Shown(path), Shown(mount))]
    HoldsMount {
        /// The folder.
        path: PathBuf,
        /// The mount point inside it.
        mount: PathBuf,
    },
    /// An item is, holds or is in Ferry's state folder: neither trashed nor deleted, which
    /// would take the undo journal with it (that very job's record included), as a move
    /// never does.
    #[error(
        "{} is, holds or is in Ferry's state folder, where the undo journal is kept; left alone",
        Shown(path)
    )]
    HoldsFerryState {
        /// The item.
        path: PathBuf,
    },
    /// A copy or move would write into Ferry's state folder, or merge into or replace it:
    /// the undo journal would be overwritten or set aside.
    #[error(
        "{} was not written: it is, or is in, Ferry's state folder, where the undo journal is \
         kept",
        Shown(path)
    )]
    IntoFerryState {
        /// Where the item would have gone.
        path: PathBuf,
    },
    /// The operation is refused on this path (`/`, `..`).
    #[error("refusing to {op} {}", Shown(path))]
    Refused {
        /// "copy", "move" or "delete".
        op: &'static str,
        /// The path.
        path: PathBuf,
    },
    /// Undo was asked for while the newest job is still running: undoing an older one
    /// instead would leave the journal out of order and surprise whoever asked.
    #[error("the {what} is still running; undo it once it has finished")]
    StillRunning {
        /// The job, in words ("copy /a -> /b").
        what: String,
    },
    /// A resume or roll back chosen for an interrupted job that another process (a second
    /// window, `ferry resume`, `ferry undo`) has finished or rolled back since it was found:
    /// done again, it would undo what was finished, or redo what was rolled back.
    #[error(
        "the {what} is no longer interrupted: it was finished or rolled back elsewhere \
         (another Ferry window, or `ferry resume` or `ferry undo`); nothing was done"
    )]
    NoLongerInterrupted {
        /// The job, in words ("move /a -> /b").
        what: String,
    },
    /// Redo was asked for a job whose undo met places taken since and put items back beside
    /// them (keep both) or over them (replace): replaying the job would take whatever now
    /// has the job's paths, someone else's file, not what the undo put back.
    #[error(
        "cannot redo the {what}: its undo met places taken since, and put items back beside \
         or over what had taken them or left them where the job had put them{}; redo it by \
         hand",
        kept_words(kept)
    )]
    RedoAfterAside {
        /// The job, in words ("move /a -> /b").
        what: String,
        /// Where the undo kept what it replaced.
        kept: Vec<PathBuf>,
    },
    /// Redo of a trash whose item put back by its undo was replaced since (another file by
    /// its name): redone, the trash would take that one.
    #[error(
        "cannot redo the {what}: {} is not the item its undo put back (changed or replaced \
         since); move it to the trash yourself if you mean to",
        Shown(path)
    )]
    RedoOfReplaced {
        /// The job, in words ("move to the trash /a").
        what: String,
        /// The path that holds another item now.
        path: PathBuf,
    },
    /// Redo of a job whose undo undid nothing (all it had done was changed or gone since):
    /// run again, it would fail on every item.
    #[error("cannot redo the {what}: its undo undid nothing (skipped, or changed or gone since)")]
    RedoOfNothing {
        /// The job, in words ("move /a -> /b").
        what: String,
    },
    /// Redo of a job cancelled or stopped part way: run again, it would do all it was given,
    /// not the part it did (what the undo undid).
    #[error(
        "cannot redo the {what}: it was stopped part way, and redone it would do all it was \
         given, not the part it did; run it again instead"
    )]
    RedoOfPart {
        /// The job, in words ("copy /a -> /b").
        what: String,
    },
    /// The file is larger than the destination file system allows (FAT: 4 GiB).
    #[error(
        "{} is too large for the destination ({size} bytes, at most {limit})",
        Shown(path)
    )]
    TooLarge {
        /// The source file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The largest size the destination takes.
        limit: u64,
    },
    /// Not enough free space for the job, found before writing anything.
    #[error(
        "not enough free space in {}: {needed} bytes needed, {available} available",
        Shown(path)
    )]
    NoSpace {
        /// The destination folder.
        path: PathBuf,
        /// Bytes the job would allocate.
        needed: u64,
        /// Bytes free.
        available: u64,
    },
    /// Not enough free inodes for the files and folders the job makes, found before writing
    /// anything: the disk has space, yet could hold only `available` more of them.
    #[error(
        "not enough room for files in {}: {needed} files and folders to make, room for \
         {available} (the disk has space left, but few free inodes)",
        Shown(path)
    )]
    TooManyFiles {
        /// The destination folder.
        path: PathBuf,
        /// Files, folders and links the job would make.
        needed: u64,
        /// How many more the disk can hold.
        available: u64,
    },
    /// The disk ran out of inodes (ENOSPC while it has space left): it can hold no more
    /// files, however small. Said apart from a disk full of data, which it is not.
    #[error(
        "no room for more files on the disk holding {}: it has space left, but no free inodes",
        Shown(path)
    )]
    NoRoomForFiles {
        /// What could not be made.
        path: PathBuf,
    },
    /// A folder the job was writing into was removed meanwhile: nothing can be written there
    /// again, so it is never asked about. The job's destination itself stops the job rather
    /// than fail each item left; a folder inside it fails what was to go there.
    #[error("{} was removed while the job was writing into it", Shown(path))]
    FolderRemoved {
        /// The folder.
        path: PathBuf,
        /// It is the job's destination folder.
        destination: bool,
    },
    /// Undo found the item changed since the job (edited, replaced, moved): it is kept.
    #[error("{} has changed since; kept", Shown(path))]
    ChangedSince {
        /// The item.
        path: PathBuf,
    },
    /// Undo found nothing where the job left the item (deleted, moved or renamed away, its
    /// folder perhaps, or put in the trash by an undo that did not finish): nothing was
    /// undone for it.
    #[error("{} is no longer there; nothing was undone for it", Shown(path))]
    GoneSince {
        /// Where the job left the item.
        path: PathBuf,
    },
    /// Undoing a trash job: the item is no longer in the trash (deleted for good, or restored
    /// since), so there is nothing to put back.
    #[error("{} is no longer in the trash; it was not put back", Shown(path))]
    GoneFromTrash {
        /// Where the item was before it was trashed, where undo would have put it back.
        path: PathBuf,
    },
    /// A move across file systems found its source changed after it was copied (edited, or
    /// replaced by another item of that name): the source is kept, and the copy is of the
    /// version before.
    #[error("{} changed since it was copied; kept", Shown(path))]
    ChangedSinceCopied {
        /// The source.
        path: PathBuf,
    },
    /// Undo of a Replace: the item it replaced is no longer kept (staged items are pruned
    /// after a while), so it cannot come back; the replacement is kept.
    #[error(
        "{} is kept: the item it replaced ({}) is no longer kept for undo",
        Shown(path),
        Shown(staged)
    )]
    ReplacedGone {
        /// The replacement, kept.
        path: PathBuf,
        /// Where the replaced item had been kept.
        staged: PathBuf,
    },
    /// Roll back of an interrupted Replace: the item it replaced cannot go back to its place
    /// (taken since, or not known), so it stays in the staging folder.
    #[error(
        "{} is kept: this job replaced it at {} and could not put it back",
        Shown(staged),
        Shown(path)
    )]
    ReplacedKept {
        /// Where it was (or the job's destination folder, when that is all that is known).
        path: PathBuf,
        /// Where it is kept.
        staged: PathBuf,
    },
    /// Undo of a Replace whose place is taken (by the replacement, changed since and kept):
    /// the item it replaced is put back beside it, under a keep-both name.
    #[error(
        "what the job replaced at {} is back beside it, as {}",
        Shown(taken),
        Shown(path)
    )]
    PutBackBeside {
        /// Where it is now.
        path: PathBuf,
        /// Its place, taken.
        taken: PathBuf,
    },
    /// Recovery of an interrupted move: a source it had renamed aside to remove it cannot go
    /// back to its name, taken since; it stays under the hidden name.
    #[error(
        "{} is kept: an interrupted move set {} aside there, and that name is taken now",
        Shown(aside),
        Shown(path)
    )]
    SetAsideKept {
        /// Where it was, and goes back once that place is free.
        path: PathBuf,
        /// Where it is kept.
        aside: PathBuf,
    },
    /// Recovery of an interrupted move: a source it had renamed aside to remove it, under a
    /// name that does not say its own (too long to fit in it); it stays there.
    #[error(
        "{} is kept: an interrupted move set a source aside there, whose name it cannot tell",
        Shown(path)
    )]
    SetAsideUnnamed {
        /// Where it is kept.
        path: PathBuf,
    },
    /// An item cannot be moved to the trash (no usable trash on its file system, ...); it can
    /// still be deleted permanently, which the UI offers.
    #[error(
        "cannot move {} to the trash: {reason}; it can be deleted permanently instead",
        Shown(path)
    )]
    CannotTrash {
        /// The item.
        path: PathBuf,
        /// Why, in words.
        reason: String,
    },
    /// A trash entry whose info file names an unsafe place (off its volume, climbing out
    /// with `..`, ...): not restored there; it can be restored into a folder the user picks.
    #[error(
        "not restoring the unsafe trash entry {}: {reason}; it can be restored to a folder you choose",
        Shown(path)
    )]
    UnsafeTrashEntry {
        /// Its info file.
        path: PathBuf,
        /// What is wrong with the place it names.
        reason: crate::jobs::UnsafeEntry,
    },
    /// A folder on the way to a place is a symbolic link: nothing is written through it.
    #[error("not writing to {}: {} is a symbolic link", Shown(dest), Shown(path))]
    LinkInPath {
        /// The link.
        path: PathBuf,
        /// The place that was to be written.
        dest: PathBuf,
    },
    /// The desktop's clipboard cannot be used: no display reaches it, the program holding
    /// it did not answer in time, or what it holds names no local files. `source` says which
    /// (its kind: `Unsupported`, `TimedOut`, `InvalidData`, `ConnectionAborted`, ...).
    #[error("cannot {op}: {source}")]
    Clipboard {
        /// What was being attempted ("use the clipboard", "read the clipboard").
        op: &'static str,
        /// Why, in words.
        #[source]
        source: io::Error,
    },
    /// A job has more items than a plan can index (about four billion).
    #[error("too many items ({items}) for one operation")]
    PlanTooLarge {
        /// Items planned when the limit was hit.
        items: u64,
    },
}

impl Error {
    /// Builds an [`Error::Io`] from a verb, a path and an OS error.
    pub fn io(op: &'static str, path: impl Into<PathBuf>, source: impl Into<io::Error>) -> Self {
        Error::Io {
            op,
            path: path.into(),
            source: source.into(),
        }
    }

    /// The path this error is about, if any.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Error::Io { path, .. } | Error::NotADirectory { path } => Some(path),
            Error::IntoItself { path, .. }
            | Error::ReplacesItsFolder { path, .. }
            | Error::SameFile { path, .. } => Some(path),
            Error::Changed { path }
            | Error::KindConflict { path, .. }
            | Error::DuplicateName { path }
            | Error::NameFolded { path, .. }
            | Error::NameNotAllowed { path }
            | Error::Staging { path, .. }
            | Error::OtherFilesystem { path }
            | Error::HoldsMount { path, .. }
            | Error::HoldsFerryState { path }
            | Error::IntoFerryState { path }
            | Error::Refused { path, .. }
            | Error::TooLarge { path, .. }
            | Error::NoSpace { path, .. }
            | Error::TooManyFiles { path, .. }
            | Error::NoRoomForFiles { path }
            | Error::FolderRemoved { path, .. }
            | Error::ChangedSince { path }
            | Error::GoneSince { path }
            | Error::GoneFromTrash { path }
            | Error::ChangedSinceCopied { path }
            | Error::ReplacedGone { path, .. }
            | Error::ReplacedKept { path, .. }
            | Error::PutBackBeside { path, .. }
            | Error::SetAsideKept { path, .. }
            | Error::SetAsideUnnamed { path }
            | Error::CannotTrash { path, .. }
            | Error::UnsafeTrashEntry { path, .. }
            | Error::LinkInPath { path, .. } => Some(path),
            Error::Cancelled
            | Error::Defect { .. }
            | Error::PlanTooLarge { .. }
            | Error::StillRunning { .. }
            | Error::NoLongerInterrupted { .. }
            | Error::RedoAfterAside { .. }
            | Error::RedoOfNothing { .. }
            | Error::RedoOfReplaced { .. }
            | Error::RedoOfPart { .. }
            | Error::Clipboard { .. } => None,
        }
    }

    /// Whether this is the process's (or the system's) limit of open files reached.
    pub fn out_of_descriptors(&self) -> bool {
        matches!(self.raw_os_error(), Some(libc::EMFILE | libc::ENFILE))
    }

    /// The raw OS error number, for I/O errors.
    pub fn raw_os_error(&self) -> Option<i32> {
        match self {
            Error::Io { source, .. } => source.raw_os_error(),
            _ => None,
        }
    }

    /// True when the path does not exist (ENOENT).
    pub fn is_not_found(&self) -> bool {
        matches!(self, Error::Io { source, .. } if source.kind() == io::ErrorKind::NotFound)
    }

    /// True when access was refused (EACCES or EPERM).
    pub fn is_permission_denied(&self) -> bool {
        matches!(self, Error::Io { source, .. } if source.kind() == io::ErrorKind::PermissionDenied)
    }

    /// True when a disk had no room left: no space, no free inodes, or the quota used up.
    pub fn is_disk_full(&self) -> bool {
        let errno = match self {
            Error::Io { source, .. } => source.raw_os_error(),
            _ => None,
        };
        matches!(
            self,
            Error::NoSpace { .. } | Error::TooManyFiles { .. } | Error::NoRoomForFiles { .. }
        ) || matches!(errno, Some(libc::ENOSPC | libc::EDQUOT))
    }

    /// True for failures that are the job's own decision about an item found changed or gone
    /// since (an undo keeps what was changed, and finds gone what is gone): trying again finds
    /// the same, and retrying the undo reported the items it had undone as failed.
    pub fn is_decided(&self) -> bool {
        matches!(
            self,
            Error::ChangedSince { .. }
                | Error::GoneSince { .. }
                | Error::GoneFromTrash { .. }
                | Error::ChangedSinceCopied { .. }
        )
    }

    /// True when trying again cannot do anything: a decision ([`is_decided`](Self::is_decided)),
    /// or a refusal only another choice of the user's changes (a folder into itself, a file
    /// onto itself, an item in place of its own folder). "Retry" offered for them only
    /// refused again.
    pub fn retry_cannot_help(&self) -> bool {
        self.is_decided()
            || matches!(
                self,
                Error::IntoItself { .. } | Error::SameFile { .. } | Error::ReplacesItsFolder { .. }
            )
    }

    /// This error, or, for ENOSPC on a disk that has space left but no free inodes,
    /// [`Error::NoRoomForFiles`] (a `statvfs` of the nearest folder above the path that is
    /// there, on failure only).
    pub fn as_found(self) -> Error {
        let Error::Io { path, source, .. } = &self else {
            return self;
        };
        if source.raw_os_error() != Some(libc::ENOSPC) {
            return self;
        }
        // The nearest folder that is there: one the job was filling may be under a hidden
        // name still (`fresh.rs`).
        let found = path
            .ancestors()
            .skip(1)
            .find_map(|a| rustix::fs::statvfs(a).ok());
        match found {
            Some(fs) if fs.f_files > 0 && fs.f_favail == 0 && fs.f_bavail > 0 => {
                Error::NoRoomForFiles { path: path.clone() }
            }
            _ => self,
        }
    }

    /// True for errors that should stop a whole job rather than one item: no space
    /// (ENOSPC), quota exceeded (EDQUOT), a device gone (ENODEV, ENXIO), an I/O error (EIO)
    /// anywhere but in reading one file's data, or the job's destination folder removed.
    ///
    /// EIO reading a file's data (a bad sector, a btrfs checksum error) is that file's
    /// failure, as `cp` has it: the other files read fine. EIO writing, creating, or reading a
    /// folder says the device itself is failing or unplugged, and stops the job.
    pub fn is_terminal(&self) -> bool {
        use rustix::io::Errno;
        let data_read = matches!(self, Error::Io { op: "read", .. });
        matches!(
            self,
            Error::NoSpace { .. }
                | Error::TooManyFiles { .. }
                | Error::NoRoomForFiles { .. }
                | Error::FolderRemoved {
                    destination: true,
                    ..
                }
        ) || matches!(
            self.raw_os_error(),
            Some(e) if e == Errno::NOSPC.raw_os_error()
                || e == Errno::DQUOT.raw_os_error()
                || e == Errno::NODEV.raw_os_error()
                || e == Errno::NXIO.raw_os_error()
                || (e == Errno::IO.raw_os_error() && !data_read)
        )
    }
}

/// ` (what it replaced is kept at A, B)`, for [`Error::RedoAfterAside`].
fn kept_words(kept: &[PathBuf]) -> String {
    if kept.is_empty() {
        return String::new();
    }
    let list: Vec<String> = kept.iter().map(|p| Shown(p).to_string()).collect();
    format!(" (what it replaced is kept at {})", list.join(", "))
}
