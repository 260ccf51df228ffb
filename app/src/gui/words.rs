//! Errors and jobs said in words, for dialogs, toasts and the jobs panel: the reason as a person
//! would put it ("You don't have permission to write in “Backup”."), never an errno.
//!
//! [`error_in_words`] has a sentence for every [`Error`] variant and for the OS errors a job
//! meets (EACCES/EPERM, ENOENT, ENOSPC, EDQUOT, EIO, ENAMETOOLONG, EROFS, EXDEV, ENOTEMPTY,
//! ELOOP, EINVAL, EBUSY, …); the sentence depends on what was being done (the error's `op`):
//! a file that cannot be *created* is a folder that cannot be written in. [`error_title`] is
//! a dialog's short headline for the same error. A job is named by `jobs::describe::title`.

use std::io;
use std::path::Path;

use ferry_core::Error;
use rustix::io::Errno;

use crate::gui::format;

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
            "{} is where another disk is mounted; it was left alone.",
            quoted(path)
        ),
        Error::HoldsMount { path, mount } => format!(
            "{} holds {}, where another disk is mounted; it was left alone.",
            quoted(path),
            quoted_full(mount)
        ),
        Error::HoldsFerryState { path } => format!(
            "{} holds Ferry's undo history; it was left alone.",
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
            "The disk holding {} is full: {} needed, {} free.",
            quoted(path),
            format::size(*needed),
            format::size(*available)
        ),
        Error::FolderRemoved { path, .. } => format!(
            "The folder {} was removed while the job was writing into it.",
            quoted_full(path)
        ),
        Error::ChangedSince { path } => {
            format!("{} has changed since, so it was kept.", quoted(path))
        }
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
        Error::NoSpace { .. } => "The disk is full",
        Error::FolderRemoved { .. } => "Folder removed",
        Error::NameNotAllowed { .. } => "Not a valid name",
        Error::TooLarge { .. } => "File too large",
        Error::NotADirectory { .. } => "Not a folder",
        Error::IntoItself { .. } => "Into itself",
        Error::SameFile { .. } => "Same file",
        Error::Cancelled => "Cancelled",
        Error::Defect { .. } => "Internal error",
        Error::GoneSince { .. } => "No longer there",
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
        Error::OtherFilesystem { .. } | Error::HoldsMount { .. } => "Another disk",
        Error::Refused { .. } | Error::HoldsFerryState { .. } => "Refused",
        Error::CannotTrash { .. } => "Can't move to the trash",
        Error::UnsafeTrashEntry { .. } => "Unsafe trash entry",
        Error::LinkInPath { .. } => "Symbolic link on the way",
        Error::PlanTooLarge { .. } => "Too many items",
        Error::StillRunning { .. } => "Still running",
        Error::RedoAfterAside { .. } => "Cannot redo",
        _ => "Something went wrong",
    }
}

/// "3 folders and 12 files", "1 file", "2 folders": what a selection holds.
pub fn folders_and_files(folders: usize, files: usize) -> String {
    let folders_part = format::counted(folders, "folder", "folders");
    let files_part = format::counted(files, "file", "files");
    match (folders, files) {
        (0, _) => files_part,
        (_, 0) => folders_part,
        _ => format!("{folders_part} and {files_part}"),
    }
}

/// The sentence for an OS error met while doing `op` on `path`.
fn io_in_words(op: &str, path: &Path, source: &io::Error) -> String {
    let it = quoted(path);
    let act = Act::of(op);
    let Some(errno) = errno(source) else {
        return match source.kind() {
            io::ErrorKind::NotFound => format!("{it} is no longer there."),
            io::ErrorKind::PermissionDenied => denied(act, path),
            io::ErrorKind::UnexpectedEof => format!("{it} ended sooner than its size says."),
            io::ErrorKind::InvalidData => format!("{it} holds data that could not be read."),
            _ => format!("Could not {op} {it}: {source}."),
        };
    };
    match errno {
        // Not the permission bits (EACCES) but a lock on the item or its folder, which root
        // meets too.
        Errno::PERM if act.removes() => protected(op, path),
        Errno::ACCESS | Errno::PERM => denied(act, path),
        Errno::NOENT => match act {
            // The folder it was to go into has gone.
            Act::CreateIn => format!("The folder {} is no longer there.", parent_quoted(path)),
            _ => format!("{it} is no longer there."),
        },
        Errno::NOSPC => format!("The disk holding {} is full.", where_written(act, path)),
        Errno::DQUOT => format!(
            "You have used up your disk quota on the disk holding {}.",
            where_written(act, path)
        ),
        Errno::IO => {
            let verb = match act {
                Act::CreateIn | Act::Write | Act::Delete | Act::Move | Act::Change => "written",
                Act::Read | Act::Other => "read",
            };
            format!(
                "The disk could not be {verb} (input/output error) at {}.",
                quoted_full(path)
            )
        }
        Errno::NAMETOOLONG => format!("The name {it} is too long for this disk."),
        Errno::ROFS => format!(
            "{} is on a read-only disk.",
            upper_first(&where_written(act, path))
        ),
        Errno::XDEV => format!("{it} is on another disk and can't be moved there directly."),
        Errno::NOTEMPTY => format!("The folder {it} is not empty."),
        Errno::EXIST => format!("An item named {it} is already there."),
        Errno::LOOP => format!("{it} is a symbolic link, which is not followed."),
        Errno::NOTDIR => format!("{it}, or a folder on its way, is not a folder."),
        Errno::ISDIR => format!("{it} is a folder."),
        Errno::INVAL if act == Act::CreateIn || act == Act::Move => {
            format!("{it} is not a valid name on this disk.")
        }
        Errno::BUSY | Errno::TXTBSY => format!("{it} is in use by the system or a program."),
        Errno::AGAIN => format!("{it} is locked by another program."),
        Errno::FBIG => format!("{it} is too large for this disk."),
        Errno::MLINK => format!("The folder {} holds too many items.", parent_quoted(path)),
        Errno::MFILE | Errno::NFILE => {
            "Too many files are open at once. Close some programs and try again.".to_owned()
        }
        Errno::NOMEM => "The computer ran out of memory.".to_owned(),
        Errno::TIMEDOUT | Errno::HOSTDOWN | Errno::HOSTUNREACH | Errno::NOTCONN => {
            format!("The network share holding {it} is not answering.")
        }
        Errno::STALE => format!("{it} is on a network share that changed under it."),
        Errno::NODEV | Errno::NXIO => format!("The disk holding {it} is gone."),
        Errno::OPNOTSUPP => format!("The disk holding {it} can't do this."),
        _ => format!(
            "Could not {op} {it}: {}.",
            lowercase_first(&strip_os_code(source))
        ),
    }
}

/// What was being done, as far as the words go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Act {
    /// Looking: open, read, stat, list.
    Read,
    /// Making a new item; the path is the item, the folder is what is written.
    CreateIn,
    /// Writing the contents of the item at the path.
    Write,
    /// Deleting the item.
    Delete,
    /// Moving or renaming the item.
    Move,
    /// Changing the item's times, permissions, lock.
    Change,
    /// Anything else.
    Other,
}

impl Act {
    /// Takes the item out of its folder (where `EPERM` means a lock, not the mode bits).
    fn removes(self) -> bool {
        matches!(self, Act::Delete | Act::Move)
    }

    fn of(op: &str) -> Act {
        match op {
            "open"
            | "read"
            | "read folder"
            | "stat"
            | "open folder"
            | "list folder"
            | "walk"
            | "read the link"
            | "read the parents of"
            | "go back up from"
            | "open the trash folder"
            | "watch"
            | "start watching"
            | "seek" => Act::Read,
            "create"
            | "create folder"
            | "link"
            | "rename into place"
            | "put back"
            | "create the staging folder"
            | "use the trash folder" => Act::CreateIn,
            "write" | "flush" | "copy" => Act::Write,
            "delete" | "remove" => Act::Delete,
            "move" | "move to the trash" | "rename" | "rename to" | "move aside" | "move to" => {
                Act::Move
            }
            "set the times of" | "set the permissions of" | "lock" => Act::Change,
            _ => Act::Other,
        }
    }
}

/// "You don't have permission to …" for `act` on `path`.
fn denied(act: Act, path: &Path) -> String {
    let it = quoted(path);
    match act {
        Act::Read | Act::Other => format!("You don't have permission to open {it}."),
        Act::CreateIn => format!(
            "You don't have permission to write in {}.",
            parent_quoted(path)
        ),
        Act::Write => format!("You don't have permission to write to {it}."),
        Act::Delete => format!("You don't have permission to delete {it}."),
        Act::Move => format!("You don't have permission to move {it}."),
        Act::Change => format!("You don't have permission to change {it}."),
    }
}

/// Why a removal or move was refused with `EPERM`: the kernel's two reasons (`unlink(2)`).
fn protected(op: &str, path: &Path) -> String {
    let (verb, done) = match op {
        "delete" | "remove" => ("deleted", "delete"),
        "rename" | "rename to" => ("renamed", "rename"),
        "move to the trash" => ("moved to the trash", "remove"),
        _ => ("moved", "move"),
    };
    format!(
        "{} can't be {verb}: it or its folder is locked (immutable or append-only), or the \
         folder lets only an item's owner {done} it.",
        quoted(path)
    )
}

/// What ran out of space: the folder written in for a new item, else the item.
fn where_written(act: Act, path: &Path) -> String {
    match act {
        Act::CreateIn => parent_quoted(path),
        _ => quoted(path),
    }
}

fn name_not_allowed(path: &Path) -> String {
    let name = path.file_name().unwrap_or(path.as_os_str());
    // Too long anywhere, or one of the characters FAT and NTFS refuse.
    if name.len() > 255 || ferry_core::jobs::name_allowed(name, "vfat", 255) {
        format!("The name {} is too long for this disk.", quoted(path))
    } else {
        format!(
            "{} is not a valid name on this FAT or NTFS disk, which takes none of \
             \" * : < > ? \\ | and no dot or space at the end.",
            quoted(path)
        )
    }
}

fn errno(source: &io::Error) -> Option<Errno> {
    source.raw_os_error().map(Errno::from_raw_os_error)
}

/// The OS message without Rust's " (os error N)" tail.
pub(super) fn strip_os_code(source: &io::Error) -> String {
    let text = source.to_string();
    match text.rfind(" (os error ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

/// “name”.
pub(crate) fn quoted(path: &Path) -> String {
    // A name of 255 bytes would push a toast's buttons, or the status bar's, off the window.
    let name = format::ellipsize_middle(format::display_name(path), QUOTED_CHARS);
    format!("“{name}”")
}

/// The most characters of a name [`quoted`] shows.
const QUOTED_CHARS: usize = 60;

/// “/the/whole/path”.
fn quoted_full(path: &Path) -> String {
    format!("“{}”", format::shown_name(path.as_os_str()))
}

/// “name of the folder holding path”.
fn parent_quoted(path: &Path) -> String {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => quoted(parent),
        _ => quoted(path),
    }
}

/// An info file's item name: “a.txt” for `…/info/a.txt.trashinfo`.
fn quoted_stem(info: &Path) -> String {
    let name = format::display_name(info);
    format!("“{}”", name.strip_suffix(".trashinfo").unwrap_or(&name))
}

fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The first letter in lower case, unless the word is a quoted name or an acronym.
fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(first), Some(second)) if first.is_uppercase() && !second.is_uppercase() => {
            first.to_lowercase().chain(text.chars().skip(1)).collect()
        }
        _ => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {

    /// A name of 255 bytes is shortened in the middle, its extension kept, so that a toast's
    /// buttons stay on the window.
    #[test]
    fn long_names_are_quoted_shortened() {
        let name = format!("{}.txt", "L".repeat(251));
        let shown = quoted(Path::new(&name));
        assert!(shown.chars().count() <= QUOTED_CHARS + 2, "{shown}");
        assert!(shown.ends_with(".txt”") && shown.contains('…'), "{shown}");
        assert_eq!(quoted(Path::new("/a/b.txt")), "“b.txt”");
    }
    use std::path::PathBuf;
    use std::sync::Arc;

    use ferry_core::jobs::UnsafeEntry;

    use super::*;

    fn io(op: &'static str, path: &str, errno: Errno) -> Error {
        Error::io(op, path, io::Error::from_raw_os_error(errno.raw_os_error()))
    }

    fn said(error: &Error) -> String {
        error_in_words(error)
    }

    #[test]
    fn permission_is_about_what_was_being_done() {
        let e = io("create", "/m/Backup/a.txt", Errno::ACCESS);
        assert_eq!(said(&e), "You don't have permission to write in “Backup”.");
        assert_eq!(error_title(&e), "No permission");
        let e = io("open", "/m/secret", Errno::ACCESS);
        assert_eq!(said(&e), "You don't have permission to open “secret”.");
        let e = io("delete", "/m/a.txt", Errno::ACCESS);
        assert_eq!(said(&e), "You don't have permission to delete “a.txt”.");
        let e = io("move", "/m/a.txt", Errno::ACCESS);
        assert_eq!(said(&e), "You don't have permission to move “a.txt”.");
        let e = io("write", "/m/a.txt", Errno::ACCESS);
        assert_eq!(said(&e), "You don't have permission to write to “a.txt”.");
        let e = io("set the times of", "/m/a.txt", Errno::PERM);
        assert_eq!(said(&e), "You don't have permission to change “a.txt”.");
        let e = Error::io(
            "read",
            "/m/a",
            io::Error::from(io::ErrorKind::PermissionDenied),
        );
        assert_eq!(said(&e), "You don't have permission to open “a”.");
    }

    /// `EPERM` from a removal is a lock (`chattr +i`, `+a`) or a sticky folder, which root
    /// meets too: not the permission bits.
    #[test]
    fn a_refused_removal_says_why_not_that_permission_is_missing() {
        let e = io("move", "/m/locked.txt", Errno::PERM);
        assert_eq!(
            said(&e),
            "“locked.txt” can't be moved: it or its folder is locked (immutable or \
             append-only), or the folder lets only an item's owner move it."
        );
        assert_eq!(error_title(&e), "Not allowed");
        let e = io("delete", "/m/locked.txt", Errno::PERM);
        assert!(
            said(&e).starts_with("“locked.txt” can't be deleted: "),
            "{}",
            said(&e)
        );
        let e = io("rename", "/m/locked.txt", Errno::PERM);
        assert!(
            said(&e).ends_with("lets only an item's owner rename it."),
            "{}",
            said(&e)
        );
        assert_eq!(
            error_title(&io("delete", "/m/a", Errno::ACCESS)),
            "No permission"
        );
    }

    #[test]
    fn space_quota_and_disk_errors() {
        let e = Error::NoSpace {
            path: PathBuf::from("/media/u/USB"),
            needed: 1_200_000_000,
            available: 300_000_000,
        };
        assert_eq!(
            said(&e),
            "The disk holding “USB” is full: 1.2 GB needed, 300.0 MB free."
        );
        assert_eq!(error_title(&e), "The disk is full");
        let e = io("write", "/media/u/USB/big.iso", Errno::NOSPC);
        assert_eq!(said(&e), "The disk holding “big.iso” is full.");
        assert_eq!(error_title(&e), "The disk is full");
        let e = io("create", "/media/u/USB/big.iso", Errno::NOSPC);
        assert_eq!(said(&e), "The disk holding “USB” is full.");
        let e = io("write", "/home/u/big.iso", Errno::DQUOT);
        assert_eq!(
            said(&e),
            "You have used up your disk quota on the disk holding “big.iso”."
        );
        assert_eq!(error_title(&e), "Disk quota used up");
        let e = io("read", "/media/u/USB/photo.jpg", Errno::IO);
        assert_eq!(
            said(&e),
            "The disk could not be read (input/output error) at “/media/u/USB/photo.jpg”."
        );
        let e = io("write", "/media/u/USB/photo.jpg", Errno::IO);
        assert!(said(&e).starts_with("The disk could not be written (input/output error)"));
        assert_eq!(error_title(&e), "Disk error");
        let e = io("create", "/media/cd/a", Errno::ROFS);
        assert_eq!(said(&e), "“cd” is on a read-only disk.");
        let e = io("open", "/media/u/USB/a", Errno::NODEV);
        assert_eq!(said(&e), "The disk holding “a” is gone.");
    }

    #[test]
    fn names_links_and_folders() {
        let e = Error::NameNotAllowed {
            path: PathBuf::from("/media/u/USB/a:b.txt"),
        };
        assert!(
            said(&e).starts_with("“a:b.txt” is not a valid name on this FAT or NTFS disk"),
            "{}",
            said(&e)
        );
        assert_eq!(error_title(&e), "Not a valid name");
        let long = format!("/m/{}", "x".repeat(300));
        let e = Error::NameNotAllowed {
            path: PathBuf::from(&long),
        };
        assert!(said(&e).ends_with("is too long for this disk."));
        let e = io("create", "/m/n", Errno::NAMETOOLONG);
        assert_eq!(said(&e), "The name “n” is too long for this disk.");
        let e = io("create", "/media/u/USB/a?b", Errno::INVAL);
        assert_eq!(said(&e), "“a?b” is not a valid name on this disk.");
        let e = io("open", "/m/link", Errno::LOOP);
        assert_eq!(
            said(&e),
            "“link” is a symbolic link, which is not followed."
        );
        let e = io("delete", "/m/full", Errno::NOTEMPTY);
        assert_eq!(said(&e), "The folder “full” is not empty.");
        let e = io("move", "/m/a", Errno::XDEV);
        assert_eq!(
            said(&e),
            "“a” is on another disk and can't be moved there directly."
        );
        let e = io("create", "/m/a", Errno::EXIST);
        assert_eq!(said(&e), "An item named “a” is already there.");
        let e = io("open", "/m/a/b", Errno::NOTDIR);
        assert_eq!(said(&e), "“b”, or a folder on its way, is not a folder.");
        let e = io("open", "/m/x", Errno::BUSY);
        assert_eq!(said(&e), "“x” is in use by the system or a program.");
        let e = io("open", "/net/x", Errno::TIMEDOUT);
        assert_eq!(said(&e), "The network share holding “x” is not answering.");
        let e = io("open", "/m/x", Errno::MFILE);
        assert!(said(&e).starts_with("Too many files are open"));
    }

    #[test]
    fn a_vanished_item_is_no_longer_there() {
        let e = io("open", "/m/x", Errno::NOENT);
        assert_eq!(said(&e), "“x” is no longer there.");
        assert_eq!(error_title(&e), "No longer there");
        let e = io("create", "/m/gone/x", Errno::NOENT);
        assert_eq!(said(&e), "The folder “gone” is no longer there.");
    }

    #[test]
    fn an_unknown_os_error_keeps_its_own_words_without_the_code() {
        let e = io("open", "/m/x", Errno::PROTO);
        let text = said(&e);
        assert!(text.starts_with("Could not open “x”: "), "{text}");
        assert!(!text.contains("os error"), "{text}");
        let e = Error::io(
            "read",
            "/m/x",
            io::Error::from(io::ErrorKind::UnexpectedEof),
        );
        assert_eq!(said(&e), "“x” ended sooner than its size says.");
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
                    error: Arc::new(io("create folder", "/m/.staging", Errno::ROFS)),
                },
                "“a” was not replaced, because the old one could not be kept aside for undo: \
                 “m” is on a read-only disk.",
            ),
            (
                Error::OtherFilesystem { path: p("/m/usb") },
                "“usb” is where another disk is mounted; it was left alone.",
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

    #[test]
    fn selections_are_counted_in_folders_and_files() {
        assert_eq!(folders_and_files(3, 12), "3 folders and 12 files");
        assert_eq!(folders_and_files(0, 1), "1 file");
        assert_eq!(folders_and_files(2, 0), "2 folders");
    }
}
