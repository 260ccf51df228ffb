//! A move across file systems copies each item, then removes its source: an item whose
//! source the kernel would refuse to remove would be left in both places (as `mv` and the
//! file managers' copy-then-delete leave it). The walk asks first, with the kernel's own rules
//! for `unlink` and `rmdir`: the folder holding the item must be writable and searchable by
//! us, and in a sticky folder (`/tmp`) the item or the folder must be ours; neither may be
//! immutable or append-only (`chattr`), which binds root too. A folder's own contents can be
//! removed only if it is writable too: one that is not is refused whole, rather than each of
//! its items. Nothing refused is copied.

use rustix::fd::AsFd;
use rustix::fs::{Access, AtFlags};
use rustix::io::Errno;

use super::Item;
use crate::entry::Kind;
use crate::fs::Meta;

/// The folder holding an item, as far as removing the item from it goes.
pub(super) struct Holder {
    /// Permission bits.
    pub(super) mode: u32,
    /// Owner.
    pub(super) uid: u32,
    /// Its own write access and attributes are still to be checked (a source's parent); for
    /// a folder of the move they were, when it was examined itself.
    pub(super) unchecked: Option<bool>,
}

impl Holder {
    /// A source's parent folder (`meta`): its own access and attributes to be checked.
    pub(super) fn parent(meta: &Meta) -> Holder {
        Holder {
            mode: meta.mode,
            uid: meta.uid,
            unchecked: Some(meta.pinned),
        }
    }

    /// A folder of the move (`item`), checked when it was examined itself.
    pub(super) fn folder(item: &Item) -> Holder {
        Holder {
            mode: u32::from(item.mode),
            uid: item.uid,
            unchecked: None,
        }
    }
}

/// Why the item `name` (`meta`) of the open folder `holder_fd` (`holder`) could not be
/// removed once copied: `None` when it could.
pub(super) fn refused(
    holder_fd: impl AsFd,
    holder: &Holder,
    name: &std::ffi::OsStr,
    meta: &Meta,
) -> Option<Errno> {
    let searchable = Access::WRITE_OK | Access::EXEC_OK;
    if let Some(pinned) = holder.unchecked {
        if pinned {
            return Some(Errno::PERM);
        }
        if let Err(e) = rustix::fs::accessat(&holder_fd, ".", searchable, AtFlags::EACCESS) {
            return Some(e);
        }
    }
    let euid = rustix::process::geteuid().as_raw();
    // Root may remove anything in a sticky folder (CAP_FOWNER).
    let sticky = holder.mode & 0o1000 != 0;
    if meta.pinned || (sticky && euid != 0 && meta.uid != euid && holder.uid != euid) {
        return Some(Errno::PERM);
    }
    if meta.kind == Kind::Dir {
        let own = AtFlags::EACCESS | AtFlags::SYMLINK_NOFOLLOW;
        if let Err(e) = rustix::fs::accessat(&holder_fd, name, searchable, own) {
            return Some(e);
        }
    }
    None
}
