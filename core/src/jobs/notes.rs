//! What a job says beside its items: metadata it could not keep of items it did, which fails
//! no item, said once per job and kind in [`Summary::notes`](super::Summary::notes), with the
//! first item concerned, the reason, and how many items it concerns.
//!
//! A destination that cannot hold some metadata (a FAT or exFAT disk, many FUSE and SMB
//! mounts, ramfs for extended attributes) still gets the data, as `cp -r` does: `chmod` and
//! `utimensat` failing with ENOSYS, ENOTSUP or EPERM on what the job itself created are such
//! a note, not a failed item (any other error of theirs still fails the item), and extended
//! attributes and ACLs, of files and folders alike, are best effort: whatever could not be
//! set is a note. (Ferry does not change owners, so `chown` never fails.)

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use rustix::io::Errno;

use crate::error::Error;
use crate::shown::Shown;

/// What a [`Note`] says was not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NoteKind {
    /// Permission bits (`chmod`).
    Permissions,
    /// Access and modification times (`utimensat`).
    Times,
    /// Extended attributes (`user.*` and the rest) and POSIX ACLs (access and default), of
    /// files and folders.
    ExtendedAttributes,
    /// POSIX ACLs alone, where the other attributes were kept (a `noacl` mount).
    Acls,
    /// Hard links between files of the job (FAT has none): each name got a copy of its own.
    HardLinks,
}

impl NoteKind {
    /// The kind of note for extended attributes `not_kept`.
    pub(crate) fn of_xattrs(not_kept: &crate::fs::NotKept) -> NoteKind {
        if not_kept.acls_only {
            NoteKind::Acls
        } else {
            NoteKind::ExtendedAttributes
        }
    }

    fn noun(self) -> &'static str {
        match self {
            NoteKind::Permissions => "permissions",
            NoteKind::Times => "times",
            NoteKind::ExtendedAttributes => "extended attributes and ACLs",
            NoteKind::Acls => "ACLs",
            NoteKind::HardLinks => "hard links",
        }
    }

    /// The operation that failed, for the note's error.
    fn op(self) -> &'static str {
        match self {
            NoteKind::Permissions => "set the permissions of",
            NoteKind::Times => "set the times of",
            NoteKind::ExtendedAttributes => "keep the extended attributes and ACLs of",
            NoteKind::Acls => "keep the ACLs of",
            NoteKind::HardLinks => "link",
        }
    }
}

/// Something a job could not keep of items it did: not a failure (the items are done, their
/// data whole), said once per job and kind.
#[derive(Debug, Clone)]
pub struct Note {
    /// What was not kept.
    pub kind: NoteKind,
    /// The first item it was not kept for (at the destination).
    pub path: PathBuf,
    /// Items concerned, the first included.
    pub count: u64,
    /// What the file system answered for the first item, or `None` when it holds none of it
    /// at all (found when the job started) and was not asked.
    pub error: Option<Arc<Error>>,
}

impl Note {
    /// The first note of `kind`, for `path`, with the file system's answer `errno`.
    pub(crate) fn new(kind: NoteKind, path: PathBuf, errno: Option<Errno>) -> Note {
        let error = errno.map(|e| Arc::new(Error::io(kind.op(), &path, e)));
        Note {
            kind,
            path,
            count: 1,
            error,
        }
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} not kept at {}", self.kind.noun(), Shown(&self.path))?;
        match self.count {
            0 | 1 => {}
            2 => f.write_str(" and 1 other item")?,
            n => write!(f, " and {} other items", n - 1)?,
        }
        // The error names the first item too: only its reason is worth repeating.
        match self.error.as_deref() {
            Some(Error::Io { source, .. }) => write!(f, ": {source}"),
            Some(error) => write!(f, ": {error}"),
            None => f.write_str(": the file system does not hold them"),
        }
    }
}

/// True for the answers of a file system that cannot hold a piece of metadata.
pub(crate) fn refused(e: Errno) -> bool {
    matches!(e, Errno::NOSYS | Errno::OPNOTSUPP | Errno::PERM)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_cannot_do_answers_are_notes() {
        assert!(refused(Errno::NOSYS) && refused(Errno::OPNOTSUPP) && refused(Errno::PERM));
        assert!(!refused(Errno::IO) && !refused(Errno::NOSPC) && !refused(Errno::ACCESS));
        let note = Note::new(NoteKind::Times, "/mnt/a".into(), Some(Errno::NOSYS));
        assert!(
            note.to_string().starts_with("times not kept at /mnt/a: "),
            "{note}"
        );
        let note = Note::new(NoteKind::Permissions, "/mnt/a".into(), None);
        assert_eq!(
            note.to_string(),
            "permissions not kept at /mnt/a: the file system does not hold them"
        );
    }

    #[test]
    fn a_note_names_the_first_item_and_counts_the_others() {
        let mut note = Note::new(
            NoteKind::ExtendedAttributes,
            "/d/a".into(),
            Some(Errno::OPNOTSUPP),
        );
        let unsupported = std::io::Error::from(Errno::OPNOTSUPP).to_string();
        assert_eq!(
            note.to_string(),
            format!("extended attributes and ACLs not kept at /d/a: {unsupported}")
        );
        assert!(matches!(
            note.error.as_deref(),
            Some(Error::Io { op: "keep the extended attributes and ACLs of", path, .. })
                if path.as_os_str() == "/d/a"
        ));
        note.count = 2;
        assert!(
            note.to_string().contains("/d/a and 1 other item: "),
            "{note}"
        );
        note.count = 3;
        assert!(
            note.to_string().contains("/d/a and 2 other items: "),
            "{note}"
        );
    }
}
