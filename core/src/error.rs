//! The one error type of `ferry-core`: every variant names the path it is about.

use std::io;
use std::path::{Path, PathBuf};

/// Result alias used across the core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the core, always with the path concerned.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A system call failed on `path`; `op` is a short verb such as "open" or "stat".
    #[error("cannot {op} {}: {source}", path.display())]
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
    #[error("{} is not a folder", path.display())]
    NotADirectory {
        /// The offending path.
        path: PathBuf,
    },
    /// Copying or moving a folder into itself or one of its descendants.
    #[error("cannot copy or move {} into itself ({})", path.display(), dest.display())]
    IntoItself {
        /// The folder being copied or moved.
        path: PathBuf,
        /// The destination that lies inside it.
        dest: PathBuf,
    },
    /// Source and destination are the same file (same device and inode).
    #[error("{} and {} are the same file", path.display(), dest.display())]
    SameFile {
        /// The source path.
        path: PathBuf,
        /// The destination path.
        dest: PathBuf,
    },
    /// The operation was cancelled by the user.
    #[error("cancelled")]
    Cancelled,
}

impl Error {
    /// Builds an [`Error::Io`] from a verb, a path and an OS error.
    pub fn io(op: &'static str, path: impl Into<PathBuf>, source: impl Into<io::Error>) -> Self {
        Error::Io { op, path: path.into(), source: source.into() }
    }

    /// The path this error is about, if any.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Error::Io { path, .. } | Error::NotADirectory { path } => Some(path),
            Error::IntoItself { path, .. } | Error::SameFile { path, .. } => Some(path),
            Error::Cancelled => None,
        }
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

    /// True for errors that should stop a whole job rather than one item:
    /// no space (ENOSPC), quota exceeded (EDQUOT) or an I/O error (EIO).
    pub fn is_terminal(&self) -> bool {
        matches!(
            self.raw_os_error(),
            Some(e) if e == rustix::io::Errno::NOSPC.raw_os_error()
                || e == rustix::io::Errno::DQUOT.raw_os_error()
                || e == rustix::io::Errno::IO.raw_os_error()
        )
    }
}
