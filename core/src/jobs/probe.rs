//! What a destination file system can hold, found once per job. Its type name says it for
//! the usual ones (ext4, btrfs, tmpfs...: Unix names and permissions; vfat and exfat:
//! neither), but not for FUSE (`fuse.*`, `fuseblk`), NTFS, SMB and NFS mounts, whose
//! answers depend on the driver, the server and the mount options. For those the
//! destination folder is asked: a file whose name has a `:` is created there (FAT and
//! NTFS-style names refuse it), and `fchmod` is tried on it (or on a plainly named one) and
//! checked (some accept it and change nothing). The probe files are named like the job's
//! temporaries (`.ferry-tmp-<pid>-…`, swept after a crash) and removed at once. Where the
//! probe cannot create anything (a folder the user cannot write, a full disk), the type
//! name decides.

use std::ffi::OsString;

use rustix::fd::OwnedFd;
use rustix::fs::AtFlags;
use rustix::io::Errno;

use super::conflict::is_windows_fs;
use super::notes::refused;
use crate::fs;

/// What a destination holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Caps {
    /// Permission bits stay as set.
    pub(crate) keeps_modes: bool,
    /// Names are limited as on Windows (no `"*:<>?\|`, no final dot or space).
    pub(crate) windows_names: bool,
}

/// File systems whose type name says they keep Unix names and permissions.
fn is_unix_fs(fs_type: &str) -> bool {
    matches!(
        fs_type,
        "ext2"
            | "ext3"
            | "ext4"
            | "xfs"
            | "btrfs"
            | "bcachefs"
            | "f2fs"
            | "zfs"
            | "jfs"
            | "reiserfs"
            | "nilfs2"
            | "tmpfs"
            | "ramfs"
            | "overlay"
    )
}

/// By type name alone.
fn by_name(fs_type: &str) -> Caps {
    Caps {
        keeps_modes: !matches!(fs_type, "vfat" | "msdos" | "fat" | "exfat"),
        windows_names: is_windows_fs(fs_type),
    }
}

/// What the folder `dir` (on a file system of type `fs_type`) holds. `may_write` is asked
/// before probing, which writes: false (the job's journal record could not be made durable,
/// and the job is stopping) leaves the type name to decide.
pub(crate) fn caps(dir: &OwnedFd, fs_type: &str, may_write: impl FnOnce() -> bool) -> Caps {
    if is_unix_fs(fs_type) || matches!(fs_type, "vfat" | "msdos" | "fat" | "exfat") || !may_write()
    {
        return by_name(fs_type);
    }
    probe(dir).unwrap_or_else(|| by_name(fs_type))
}

/// Asks the folder; `None` when it cannot tell (nothing could be created there).
fn probe(dir: &OwnedFd) -> Option<Caps> {
    let base = format!("{}probe", super::journal::temp_prefix(std::process::id()));
    let odd = OsString::from(format!("{base}:"));
    let (windows_names, file, name) = match create(dir, &odd) {
        Ok(fd) => (false, fd, odd),
        Err(e) if inconclusive(e) => return None,
        Err(_) => {
            let plain = OsString::from(base);
            (true, create(dir, &plain).ok()?, plain)
        }
    };
    let wanted = 0o640;
    let keeps_modes = match fs::set_mode_fd(&file, wanted) {
        Ok(()) => fs::stat_fd(&file).is_ok_and(|m| m.mode & 0o777 == wanted),
        Err(e) => !refused(e),
    };
    drop(file);
    let _ = rustix::fs::unlinkat(dir, &name, AtFlags::empty());
    Some(Caps {
        keeps_modes,
        windows_names,
    })
}

/// Creates probe file `name`, replacing one a crashed run of this pid left.
fn create(dir: &OwnedFd, name: &OsString) -> rustix::io::Result<OwnedFd> {
    match fs::create_private_at(dir, name) {
        Err(Errno::EXIST) => {
            rustix::fs::unlinkat(dir, name, AtFlags::empty())?;
            fs::create_private_at(dir, name)
        }
        other => other,
    }
}

/// Errors that say nothing about names: the folder cannot be written at all.
fn inconclusive(e: Errno) -> bool {
    matches!(
        e,
        Errno::ACCESS | Errno::ROFS | Errno::NOSPC | Errno::DQUOT | Errno::IO
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_unix_folder_probes_as_one_and_keeps_nothing_behind() {
        let tmp = tempfile::tempdir().unwrap();
        let fd = fs::open_dir_path(tmp.path()).unwrap();
        let caps = probe(&fd).unwrap();
        assert!(caps.keeps_modes && !caps.windows_names);
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
        assert!(!by_name("vfat").keeps_modes && by_name("vfat").windows_names);
        assert!(!by_name("exfat").keeps_modes && by_name("ntfs3").windows_names);
    }
}
