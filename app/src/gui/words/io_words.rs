//! The sentences of the OS errors a job meets, by what was being done: a file that cannot be
//! *created* is a folder that cannot be written in.

use std::io;
use std::path::Path;

use rustix::io::Errno;

use super::names::{lowercase_first, parent_quoted, quoted, quoted_full, upper_first};

/// Opening a job's destination folder (`Dest::open`).
pub(crate) const DESTINATION: &str = "open the destination folder";

/// The sentence for an OS error met while doing `op` on `path`.
pub(super) fn io_in_words(op: &str, path: &Path, source: &io::Error) -> String {
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
            // Typed into Copy to… or Move to…, it may never have been.
            _ if op == DESTINATION => format!("There is no folder {}.", quoted_full(path)),
            _ => format!("{it} is no longer there."),
        },
        // The disk is named by the folder: "the disk holding “big.iso”" read as a file that
        // is a disk.
        Errno::NOSPC => format!("The disk holding {} is full.", parent_quoted(path)),
        Errno::DQUOT => format!(
            "You have used up your disk quota on the disk holding {}.",
            where_written(act, path)
        ),
        Errno::IO => {
            let verb = match act {
                Act::CreateIn
                | Act::Write
                | Act::Delete
                | Act::Move
                | Act::Rename
                | Act::Change => "written",
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
        Errno::INVAL if matches!(act, Act::CreateIn | Act::Move | Act::Rename) => {
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
pub(super) enum Act {
    /// Looking: open, read, stat, list.
    Read,
    /// Making a new item; the path is the item, the folder is what is written.
    CreateIn,
    /// Writing the contents of the item at the path.
    Write,
    /// Deleting the item.
    Delete,
    /// Moving the item.
    Move,
    /// Renaming the item in its folder (a rename refused said "permission to move").
    Rename,
    /// Changing the item's times, permissions, lock.
    Change,
    /// Anything else.
    Other,
}

impl Act {
    /// Takes the item out of its folder (where `EPERM` means a lock, not the mode bits).
    pub(super) fn removes(self) -> bool {
        matches!(self, Act::Delete | Act::Move | Act::Rename)
    }

    pub(super) fn of(op: &str) -> Act {
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
            | "seek"
            | DESTINATION => Act::Read,
            "create"
            | "create folder"
            | "link"
            | "rename into place"
            | "put back"
            | "create the staging folder"
            | "use the trash folder" => Act::CreateIn,
            "write" | "flush" | "copy" => Act::Write,
            "delete" | "remove" => Act::Delete,
            "move" | "move to the trash" | "move aside" | "move to" => Act::Move,
            "rename" | "rename to" => Act::Rename,
            "set the times of" | "set the permissions of" | "lock" => Act::Change,
            _ => Act::Other,
        }
    }
}

/// "You don't have permission to …" for `act` on `path`.
pub(super) fn denied(act: Act, path: &Path) -> String {
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
        Act::Rename => format!("You don't have permission to rename {it}."),
        Act::Change => format!("You don't have permission to change {it}."),
    }
}

/// Why a removal or move was refused with `EPERM`: the kernel's two reasons (`unlink(2)`).
pub(super) fn protected(op: &str, path: &Path) -> String {
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
pub(super) fn where_written(act: Act, path: &Path) -> String {
    match act {
        Act::CreateIn => parent_quoted(path),
        _ => quoted(path),
    }
}

pub(super) fn name_not_allowed(path: &Path) -> String {
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

pub(super) fn errno(source: &io::Error) -> Option<Errno> {
    source.raw_os_error().map(Errno::from_raw_os_error)
}

/// The OS message without Rust's " (os error N)" tail.
pub(in crate::gui) fn strip_os_code(source: &io::Error) -> String {
    let text = source.to_string();
    match text.rfind(" (os error ") {
        Some(at) => text[..at].to_owned(),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use ferry_core::Error;
    use rustix::io::Errno;

    use super::super::{error_in_words, error_title};

    fn io(op: &'static str, path: &str, errno: Errno) -> Error {
        Error::io(
            op,
            path,
            std::io::Error::from_raw_os_error(errno.raw_os_error()),
        )
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
            std::io::Error::from(std::io::ErrorKind::PermissionDenied),
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
        let e = io("rename", "/m/f1", Errno::ACCESS);
        assert_eq!(said(&e), "You don't have permission to rename “f1”.");
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
            "There is not enough space on the disk holding “USB”: 1.2 GB needed, 300.0 MB free."
        );
        assert_eq!(error_title(&e), "Not enough space");
        let e = io("write", "/media/u/USB/big.iso", Errno::NOSPC);
        assert_eq!(said(&e), "The disk holding “USB” is full.");
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
        // A destination typed into Copy to… may never have been there.
        let e = io("open the destination folder", "/m/NOPE", Errno::NOENT);
        assert_eq!(said(&e), "There is no folder “/m/NOPE”.");
        assert_eq!(error_title(&e), "No such folder");
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
            std::io::Error::from(std::io::ErrorKind::UnexpectedEof),
        );
        assert_eq!(said(&e), "“x” ended sooner than its size says.");
    }
}
