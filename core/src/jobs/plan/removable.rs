//! A move across file systems copies each item, then removes its source: an item whose
//! source the kernel would refuse to remove would be left in both places (as `mv` and the
//! file managers' copy-then-delete leave it). The walk asks first, with the kernel's own rules
//! for `unlink` and `rmdir`: the folder holding the item must be writable and searchable by
//! us, and in a sticky folder (`/tmp`) the item or the folder must be ours. A folder's own
//! contents can be removed only if it is writable too: one that is not is refused whole,
//! rather than each of its items. Nothing refused is copied.

use rustix::fd::AsFd;
use rustix::fs::{Access, AtFlags};
use rustix::io::Errno;

use crate::entry::Kind;

/// Why the item `name` (`kind`, owned by `uid`) of the open folder `holder` (permission bits
/// `holder_mode`, owned by `holder_uid`) could not be removed once copied: `None` when it
/// could. `holder_checked`: the holder's own write access is known good (it was checked as a
/// folder of the move, or it is the parent of a source, checked here).
pub(super) fn refused(
    holder: impl AsFd,
    (holder_mode, holder_uid): (u32, u32),
    holder_checked: bool,
    name: &std::ffi::OsStr,
    (kind, uid): (Kind, u32),
) -> Option<Errno> {
    let searchable = Access::WRITE_OK | Access::EXEC_OK;
    if !holder_checked
        && let Err(e) = rustix::fs::accessat(&holder, ".", searchable, AtFlags::EACCESS)
    {
        return Some(e);
    }
    let euid = rustix::process::geteuid().as_raw();
    // Root may remove anything in a sticky folder (CAP_FOWNER).
    if holder_mode & 0o1000 != 0 && euid != 0 && uid != euid && holder_uid != euid {
        return Some(Errno::PERM);
    }
    if kind == Kind::Dir {
        let own = AtFlags::EACCESS | AtFlags::SYMLINK_NOFOLLOW;
        if let Err(e) = rustix::fs::accessat(&holder, name, searchable, own) {
            return Some(e);
        }
    }
    None
}
