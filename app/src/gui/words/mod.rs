//! Errors and jobs said in words, for dialogs, toasts and the jobs panel: the reason as a person
//! would put it ("You don't have permission to write in “Backup”."), never an errno.
//!
//! [`error_in_words`] has a sentence for every [`Error`] variant and for the OS errors a job
//! meets (EACCES/EPERM, ENOENT, ENOSPC, EDQUOT, EIO, ENAMETOOLONG, EROFS, EXDEV, ENOTEMPTY,
//! ELOOP, EINVAL, EBUSY, …); the sentence depends on what was being done (the error's `op`):
//! a file that cannot be *created* is a folder that cannot be written in. [`error_title`] is
//! a dialog's short headline for the same error. A job is named by `jobs::describe::title`.
//!
//! The OS errors' sentences are in `io_words.rs`; the way names are quoted and counted, which the
//! rest of the window uses too, in `names.rs`.

use std::io;

use ferry_core::Error;
use rustix::io::Errno;

use crate::gui::format;

mod io_words;
mod names;

pub(crate) use io_words::DESTINATION;
pub(super) use io_words::strip_os_code;
use io_words::{Act, errno, io_in_words, name_not_allowed};
pub use names::folders_and_files;
pub(crate) use names::quoted;
use names::{lowercase_first, quoted_full, quoted_stem, upper_first};

/// The reason for `error`, in one or two sentences ending with a full stop.
pub fn error_in_words(error: &Error) -> String {
    match error {
        Error::Io { op, path, source } => io_in_words(op, path, source),
        Error::NotADirectory { path } => format!("{} is not a folder.", quoted(path)),
        Error::IntoItself { path, dest } if path == dest => {
            format!("{} can't go into itself.", quoted(path))
        }
        Error::IntoItself { path, dest } => format!(
            "{} can't go into {}, which is inside it.",
            quoted(path),
            quoted(dest)
        ),
        Error::ReplacesItsFolder { path, dest } => format!(
            "{} can't take the place of {}: it is inside it, and would go with it.",
            quoted(path),
            quoted(dest)
        ),
        Error::SameFile { path, dest } if path.file_name() == dest.file_name() => format!(
            "{} would replace itself: the one in “{}” is the same file.",
            quoted(path),
            format::display_name(dest.parent().unwrap_or(dest))
        ),
        Error::SameFile { path, dest } => {
            format!("{} and {} are the same file.", quoted(path), quoted(dest))
        }
        Error::Cancelled => "The job was cancelled.".to_owned(),
        Error::Defect { message } => format!(
            "Ferry stopped this job on an internal error ({message}). What it did stays as it \
             is: start Ferry again to finish the job or roll it back."
        ),
        Error::Changed { path } => format!(
            "{} changed while the job was working on it, so it was left alone.",
            quoted(path)
        ),
        Error::KindConflict { path, existing } => format!(
            "A {existing} named {} is already there; it was not replaced.",
            quoted(path)
        ),
        Error::DuplicateName { path } => format!(
            "Another item of this job is also named {}; only the first one goes there.",
            quoted(path)
        ),
        Error::NameFolded { path, existing } => format!(
            "{} was not written: this disk takes its name for {}, which is there already \
             (it does not tell upper and lower case apart).",
            quoted(path),
            quoted(existing)
        ),
        Error::NameNotAllowed { path } => name_not_allowed(path),
        Error::Staging { path, error } => format!(
            "{} was not replaced, because the old one could not be kept aside for undo: {}",
            quoted(path),
            lowercase_first(&error_in_words(error))
        ),
        Error::OtherFilesystem { path } => format!(
            "{} is where a disk or a folder is mounted; it was left alone.",
            quoted(path)
        ),
        Error::HoldsMount { path, mount } => format!(
            "{} holds {}, where a disk or a folder is mounted; it was left alone.",
            quoted(path),
            quoted_full(mount)
        ),
        Error::HoldsFerryState { path } => format!(
            "{} is or holds Ferry's undo history; it was left alone.",
            quoted(path)
        ),
        Error::IntoFerryState { path } => format!(
            "{} was not written: Ferry keeps its undo history in that folder, and writes \
             nothing else there.",
            quoted(path)
        ),
        Error::Refused { op, path } => format!("Ferry won't {op} {}.", quoted_full(path)),
        Error::TooLarge { path, size, limit } => format!(
            "{} is too large for this disk: it is {}, and the disk holds files of at most {}.",
            quoted(path),
            format::size(*size),
            format::size(*limit)
        ),
        Error::NoSpace {
            path,
            needed,
            available,
        } => format!(
            "There is not enough space on the disk holding {}: {} needed, {} free.",
            quoted(path),
            format::size(*needed),
            format::size(*available)
        ),
        Error::TooManyFiles {
            path,
            needed,
            available,
        } => format!(
            "The disk holding {} has space left, but room for only {} more files and folders \
             (free inodes): {} are to be made.",
            quoted(path),
            format::count(usize::try_from(*available).unwrap_or(usize::MAX)),
            format::count(usize::try_from(*needed).unwrap_or(usize::MAX))
        ),
        // Named by the folder it goes into: "the disk holding “t119”", of a file that could
        // not be made, read as if the file were the disk.
        Error::NoRoomForFiles { path } => match path.parent() {
            Some(folder) if folder.file_name().is_some() => format!(
                "{} could not be made in {}: that disk has space left, but no room for another \
                 file (no free inodes).",
                quoted(path),
                quoted(folder)
            ),
            _ => format!(
                "{} could not be made: its disk has space left, but no room for another file \
                 (no free inodes).",
                quoted(path)
            ),
        },
        Error::FolderRemoved { path, .. } => format!(
            "The folder {} was removed while the job was writing into it.",
            quoted_full(path)
        ),
        Error::ChangedSince { path } => {
            format!("{} has changed since, so it was kept.", quoted(path))
        }
        Error::GoneFromTrash { path } => format!(
            "{} is no longer in the trash (deleted for good, or restored), so it was not put \
             back.",
            quoted(path)
        ),
        Error::GoneSince { path } => format!(
            "{} is no longer where it was left, so nothing was undone for it.",
            quoted_full(path)
        ),
        Error::ChangedSinceCopied { path } => format!(
            "{} changed after it was copied, so it was kept; the copy has the version before.",
            quoted(path)
        ),
        Error::ReplacedGone { path, .. } => format!(
            "{} was kept: the item it replaced is no longer kept for undo.",
            quoted(path)
        ),
        Error::ReplacedKept { path, staged } => format!(
            "The item replaced at {} could not go back there; it is kept in {}.",
            quoted_full(path),
            quoted_full(staged)
        ),
        Error::PutBackBeside { path, taken } => format!(
            "What this job replaced at {} is back beside it, as {}.",
            quoted(taken),
            quoted(path)
        ),
        Error::CannotTrash { path, reason } => format!(
            "{} can't be moved to the trash: {reason}. It can be deleted permanently instead.",
            quoted(path)
        ),
        Error::UnsafeTrashEntry { path, reason } => format!(
            "The trash entry {} is not put back where its record says, because {reason}. \
             Use Restore to… to choose a folder for it.",
            quoted_stem(path)
        ),
        Error::LinkInPath { path, dest } => format!(
            "Nothing was written to {}: {} on the way there is a symbolic link.",
            quoted(dest),
            quoted_full(path)
        ),
        Error::PlanTooLarge { items } => format!(
            "The job has too many items ({}) to be done at once.",
            format::count(usize::try_from(*items).unwrap_or(usize::MAX))
        ),
        // A variant added to the core later: its own message is still a sentence.
        other => format!("{}.", upper_first(&other.to_string())),
    }
}

/// A short headline for `error`: "No permission", "The disk is full", "Not a valid name", …
pub fn error_title(error: &Error) -> &'static str {
    match error {
        Error::Io { op, source, .. } => match errno(source) {
            Some(Errno::PERM) if Act::of(op).removes() => "Not allowed",
            Some(Errno::ACCESS | Errno::PERM) => "No permission",
            Some(Errno::NOSPC) => "The disk is full",
            Some(Errno::DQUOT) => "Disk quota used up",
            Some(Errno::IO) => "Disk error",
            Some(Errno::NOENT) if *op == io_words::DESTINATION => "No such folder",
            Some(Errno::NOENT) => "No longer there",
            Some(Errno::NAMETOOLONG) => "Name too long",
            Some(Errno::ROFS) => "Read-only disk",
            Some(Errno::LOOP) => "Symbolic link",
            Some(Errno::NOTEMPTY) => "Folder not empty",
            Some(Errno::EXIST) => "Already there",
            Some(Errno::BUSY | Errno::TXTBSY | Errno::AGAIN) => "In use",
            Some(Errno::FBIG) => "File too large",
            Some(Errno::XDEV) => "On another disk",
            Some(Errno::TIMEDOUT | Errno::HOSTDOWN | Errno::HOSTUNREACH | Errno::NOTCONN) => {
                "Network share not answering"
            }
            Some(Errno::NODEV | Errno::NXIO) => "Disk gone",
            _ => match source.kind() {
                io::ErrorKind::NotFound => "No longer there",
                io::ErrorKind::PermissionDenied => "No permission",
                _ => "Something went wrong",
            },
        },
        // Found before writing: the disk may be empty, and too small.
        Error::NoSpace { .. } => "Not enough space",
        Error::NoRoomForFiles { .. } | Error::TooManyFiles { .. } => "No room for more files",
        Error::FolderRemoved { .. } => "Folder removed",
        Error::NameNotAllowed { .. } => "Not a valid name",
        Error::TooLarge { .. } => "File too large",
        Error::NotADirectory { .. } => "Not a folder",
        Error::IntoItself { .. } | Error::ReplacesItsFolder { .. } => "Into itself",
        Error::SameFile { .. } => "Same file",
        Error::Cancelled => "Cancelled",
        Error::Defect { .. } => "Internal error",
        Error::GoneSince { .. } => "No longer there",
        Error::GoneFromTrash { .. } => "No longer in the trash",
        Error::Changed { .. } | Error::ChangedSince { .. } | Error::ChangedSinceCopied { .. } => {
            "Changed meanwhile"
        }
        Error::KindConflict { .. } | Error::DuplicateName { .. } | Error::NameFolded { .. } => {
            "Name taken"
        }
        Error::Staging { .. } | Error::ReplacedGone { .. } | Error::ReplacedKept { .. } => {
            "Not replaced"
        }
        Error::PutBackBeside { .. } => "Put back beside",
        Error::OtherFilesystem { .. } | Error::HoldsMount { .. } => "A mount point",
        Error::Refused { .. } | Error::HoldsFerryState { .. } | Error::IntoFerryState { .. } => {
            "Refused"
        }
        Error::CannotTrash { .. } => "Can't move to the trash",
        Error::UnsafeTrashEntry { .. } => "Unsafe trash entry",
        Error::LinkInPath { .. } => "Symbolic link on the way",
        Error::PlanTooLarge { .. } => "Too many items",
        Error::StillRunning { .. } => "Still running",
        Error::NoLongerInterrupted { .. } => "Already done elsewhere",
        Error::RedoAfterAside { .. } | Error::RedoOfNothing { .. } | Error::RedoOfPart { .. } => {
            "Cannot redo"
        }
        _ => "Something went wrong",
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::Arc;

    use ferry_core::jobs::UnsafeEntry;

    use super::*;

    fn said(error: &Error) -> String {
        error_in_words(error)
    }

    #[test]
    fn every_other_variant_has_its_sentence() {
        let p = |s: &str| PathBuf::from(s);
        let cases = [
            (
                Error::NotADirectory { path: p("/m/a") },
                "“a” is not a folder.",
            ),
            (
                Error::IntoItself {
                    path: p("/m/Photos"),
                    dest: p("/m/Photos/2024"),
                },
                "“Photos” can't go into “2024”, which is inside it.",
            ),
            (
                Error::FolderRemoved {
                    path: p("/m/dest"),
                    destination: true,
                },
                "The folder “/m/dest” was removed while the job was writing into it.",
            ),
            (
                Error::IntoItself {
                    path: p("/m/d2"),
                    dest: p("/m/d2"),
                },
                "“d2” can't go into itself.",
            ),
            // It named the file as if it were the disk: "The disk holding “t119” …".
            (
                Error::NoRoomForFiles {
                    path: p("/mnt/small/E/t119"),
                },
                "“t119” could not be made in “E”: that disk has space left, but no room for \
                 another file (no free inodes).",
            ),
            (
                Error::SameFile {
                    path: p("/m/a.txt"),
                    dest: p("/n/a.txt"),
                },
                "“a.txt” would replace itself: the one in “n” is the same file.",
            ),
            (
                Error::SameFile {
                    path: p("/m/a"),
                    dest: p("/m/b"),
                },
                "“a” and “b” are the same file.",
            ),
            (Error::Cancelled, "The job was cancelled."),
            (
                Error::Defect {
                    message: "index out of bounds".into(),
                },
                "Ferry stopped this job on an internal error (index out of bounds). What it did \
                 stays as it is: start Ferry again to finish the job or roll it back.",
            ),
            (
                Error::Changed { path: p("/m/a") },
                "“a” changed while the job was working on it, so it was left alone.",
            ),
            (
                Error::KindConflict {
                    path: p("/m/a"),
                    existing: "folder",
                },
                "A folder named “a” is already there; it was not replaced.",
            ),
            (
                Error::DuplicateName { path: p("/m/a") },
                "Another item of this job is also named “a”; only the first one goes there.",
            ),
            (
                Error::Staging {
                    path: p("/m/a"),
                    error: Arc::new(Error::io(
                        "create folder",
                        "/m/.staging",
                        io::Error::from_raw_os_error(Errno::ROFS.raw_os_error()),
                    )),
                },
                "“a” was not replaced, because the old one could not be kept aside for undo: \
                 “m” is on a read-only disk.",
            ),
            (
                Error::OtherFilesystem { path: p("/m/usb") },
                "“usb” is where a disk or a folder is mounted; it was left alone.",
            ),
            (
                Error::Refused {
                    op: "delete",
                    path: p("/"),
                },
                "Ferry won't delete “/”.",
            ),
            (
                Error::TooLarge {
                    path: p("/m/big.iso"),
                    size: 5_000_000_000,
                    limit: 4_294_967_295,
                },
                "“big.iso” is too large for this disk: it is 5.0 GB, and the disk holds files \
                 of at most 4.3 GB.",
            ),
            (
                Error::ChangedSince { path: p("/m/a") },
                "“a” has changed since, so it was kept.",
            ),
            (
                Error::GoneSince { path: p("/m/a") },
                "“/m/a” is no longer where it was left, so nothing was undone for it.",
            ),
            (
                Error::ReplacedGone {
                    path: p("/m/a"),
                    staged: p("/m/.s/a"),
                },
                "“a” was kept: the item it replaced is no longer kept for undo.",
            ),
            (
                Error::ReplacedKept {
                    path: p("/m/a"),
                    staged: p("/m/.s/a"),
                },
                "The item replaced at “/m/a” could not go back there; it is kept in “/m/.s/a”.",
            ),
            (
                Error::CannotTrash {
                    path: p("/mnt/a"),
                    reason: "its file system has no trash folder in use".into(),
                },
                "“a” can't be moved to the trash: its file system has no trash folder in use. \
                 It can be deleted permanently instead.",
            ),
            (
                Error::LinkInPath {
                    path: p("/m/link"),
                    dest: p("/m/link/a"),
                },
                "Nothing was written to “a”: “/m/link” on the way there is a symbolic link.",
            ),
            (
                Error::PlanTooLarge {
                    items: 5_000_000_000,
                },
                "The job has too many items (5,000,000,000) to be done at once.",
            ),
        ];
        for (error, words) in cases {
            assert_eq!(said(&error), words);
            assert_ne!(error_title(&error), "Something went wrong", "{error:?}");
        }
        let e = Error::UnsafeTrashEntry {
            path: p("/media/u/USB/.Trash-1000/info/x.trashinfo"),
            reason: UnsafeEntry::ParentComponent,
        };
        assert!(said(&e).starts_with("The trash entry “x” is not put back where its record"));
        assert!(said(&e).ends_with("Use Restore to… to choose a folder for it."));
    }
}
