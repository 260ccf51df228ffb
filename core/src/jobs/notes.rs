//! What a job says beside its items: things it could not keep that fail no item, said once
//! per job and kind in [`Summary::notes`](super::Summary::notes).
//!
//! A destination that cannot hold some metadata (a FAT or exFAT disk, many FUSE and SMB
//! mounts) still gets the data, as `cp -r` does: `chmod`, `utimensat` and extended
//! attribute calls failing with ENOSYS, ENOTSUP or EPERM on a file the job itself created
//! are such a note, not a failed item. (Ferry does not change owners, so `chown` never
//! fails.) Any other error of those calls still fails the item.

use std::fmt;
use std::path::PathBuf;

use rustix::io::Errno;

/// Metadata a destination did not keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Unkept {
    /// Permission bits (`chmod`).
    Permissions,
    /// Access and modification times (`utimensat`).
    Times,
    /// Extended attributes (ACLs, `user.*`, ...).
    ExtendedAttributes,
}

impl Unkept {
    fn noun(self) -> &'static str {
        match self {
            Unkept::Permissions => "permissions",
            Unkept::Times => "times",
            Unkept::ExtendedAttributes => "extended attributes",
        }
    }
}

/// Something about a job that is not a failed item, said once per job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Note {
    /// The destination did not keep `what` (its file system refuses it): the data was
    /// copied without it.
    NotKept {
        /// What was not kept.
        what: Unkept,
        /// The first item it was not kept for (at the destination).
        path: PathBuf,
        /// The error the file system answered, or `None` when it holds none of it at all
        /// (found when the job started) and was not asked.
        errno: Option<i32>,
    },
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Note::NotKept { what, path, errno } => {
                write!(
                    f,
                    "{} not kept at {} and wherever else this job wrote there: ",
                    what.noun(),
                    path.display()
                )?;
                match errno {
                    Some(e) => write!(f, "{}", std::io::Error::from_raw_os_error(*e)),
                    None => f.write_str("the file system does not hold them"),
                }
            }
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
        let note = Note::NotKept {
            what: Unkept::Times,
            path: "/mnt/a".into(),
            errno: Some(Errno::NOSYS.raw_os_error()),
        };
        assert!(
            note.to_string().starts_with("times not kept at /mnt/a"),
            "{note}"
        );
    }
}
