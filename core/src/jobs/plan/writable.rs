//! Emptying the trash removes folders the user made read-only, as KDE's and GNOME's trash do:
//! a copied CD, a Go module cache or an unpacked archive often holds folders without write
//! permission, which `rm -rf` (and so a delete) cannot empty. Such a folder of the user's own
//! is given read, write and search permission for its owner when the walk enters it, before
//! anything in it is unlinked; a folder of someone else's is left to fail as before. Only
//! emptying the trash does this: a delete the user asked for does what `rm -rf` does.

use std::ffi::OsStr;

use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;

use crate::entry::Kind;
use crate::fs::{self, Meta};
use crate::jobs::remove::ReadOnly;

/// What the owner needs to list a folder and remove what is in it.
const OWNER_ALL: u32 = 0o700;

/// Opens folder `name` of the open folder `parent` with its `statx`; when `read_only` says
/// so, a folder of ours gets [`OWNER_ALL`] first if it lacks any of it.
pub(super) fn open(
    parent: impl AsFd,
    name: &OsStr,
    read_only: ReadOnly,
) -> rustix::io::Result<(Meta, OwnedFd)> {
    let opened = fs::open_dir_at(&parent, name).and_then(|fd| Ok((fs::stat_fd(&fd)?, fd)));
    if read_only == ReadOnly::Fail {
        return opened;
    }
    match opened {
        Ok((meta, fd)) if lacks_owner_access(&meta) => {
            fs::set_mode_fd(&fd, meta.mode | OWNER_ALL)?;
            Ok((fs::stat_fd(&fd)?, fd))
        }
        // Not even readable: made so through a descriptor that cannot follow a link, then
        // opened again.
        Err(Errno::ACCESS) => {
            let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::DIRECTORY | OFlags::CLOEXEC;
            let handle = rustix::fs::openat(&parent, name, flags, Mode::empty())?;
            let meta = fs::stat_fd(&handle)?;
            if !lacks_owner_access(&meta) {
                return Err(Errno::ACCESS);
            }
            // `fchmod` refuses an `O_PATH` descriptor; its /proc link reaches the folder itself.
            let mode = Mode::from_raw_mode(meta.mode | OWNER_ALL);
            rustix::fs::chmod(fs::proc_path(&handle), mode)?;
            fs::open_dir_at(&parent, name).and_then(|fd| Ok((fs::stat_fd(&fd)?, fd)))
        }
        other => other,
    }
}

/// A folder of ours without all of [`OWNER_ALL`].
fn lacks_owner_access(meta: &Meta) -> bool {
    meta.kind == Kind::Dir
        && meta.uid == rustix::process::geteuid().as_raw()
        && meta.mode & OWNER_ALL != OWNER_ALL
}
