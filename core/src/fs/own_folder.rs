//! Moving a read-only folder of one's own into another folder.
//!
//! Linux wants write permission on a folder to move it into another one (its `..` entry
//! changes), which its owner may lack: a copy of a read-only folder (a CD, a Go module
//! cache) could then not be trashed, so its undo failed on every try, nor be put back from
//! the trash. Its owner may give it that permission, so the move does, for the rename only,
//! and gives the folder its own mode back wherever it is then.

use rustix::fd::AsFd;
use rustix::io::{Errno, Result};

use super::{FileId, open_dir_at, rename_noreplace, set_mode_fd, stat_fd};
use crate::entry::Kind;

/// An item to move, as planned: what it is, its permission bits and owner.
#[derive(Debug, Clone, Copy)]
pub struct Moved {
    /// Its kind: only a folder needs write permission of its own to move.
    pub kind: Kind,
    /// Its device and inode, checked before its mode is touched.
    pub id: FileId,
    /// Its permission bits.
    pub mode: u32,
    /// Its owner.
    pub uid: u32,
}

/// [`rename_noreplace`] of the item `from` (in `from_dir`) to `to` (in `to_dir`); a folder is
/// made writable for the move when it is the caller's own and that is why it was refused.
pub fn rename_own(
    from_dir: impl AsFd,
    from: &std::ffi::OsStr,
    to_dir: impl AsFd,
    to: &std::ffi::OsStr,
    item: Moved,
) -> Result<()> {
    let refused = match rename_noreplace(&from_dir, from, &to_dir, to) {
        Err(Errno::ACCESS) if item.kind == Kind::Dir => Errno::ACCESS,
        other => return other,
    };
    let own = item.uid == rustix::process::geteuid().as_raw();
    if !own || item.mode & 0o200 != 0 {
        return Err(refused);
    }
    let fd = open_dir_at(&from_dir, from)?;
    if stat_fd(&fd)?.id != item.id {
        return Err(refused); // another folder in its place: left alone
    }
    set_mode_fd(&fd, item.mode | 0o200)?;
    let renamed = rename_noreplace(&from_dir, from, &to_dir, to);
    set_mode_fd(&fd, item.mode)?;
    renamed
}
