//! The mount table (`/proc/self/mountinfo`), read once per job, never per file.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// One mounted file system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mount {
    /// Mount id, as in `statx`'s `stx_mnt_id`.
    pub id: u64,
    /// Device number (`st_dev` of files on it).
    pub dev: u64,
    /// Where it is mounted.
    pub mount_point: PathBuf,
    /// File system type ("ext4", "btrfs", "vfat", ...).
    pub fs_type: String,
    /// Mounted read-only (the mount's own `ro` option, or its file system's).
    pub read_only: bool,
}

impl Mount {
    /// True for file systems held in memory, whose contents a power loss takes.
    pub fn is_in_memory(&self) -> bool {
        matches!(self.fs_type.as_str(), "tmpfs" | "ramfs")
    }

    /// True where a hard link takes an inode of its own from the file system's count of them
    /// (tmpfs, since Linux 6.x counts links against `nr_inodes`).
    pub fn links_take_inodes(&self) -> bool {
        self.fs_type == "tmpfs"
    }

    /// True for file systems that clone file contents (`FICLONE`) instead of copying them.
    pub fn can_reflink(&self) -> bool {
        matches!(
            self.fs_type.as_str(),
            "btrfs" | "xfs" | "bcachefs" | "ocfs2"
        )
    }

    /// True for the kernel's local file systems, where renaming a folder is one atomic step
    /// that carries its whole tree. Not FUSE, whose server may do it entry by entry (fusefat
    /// leaves the renamed folder empty), nor network file systems.
    pub fn renames_trees(&self) -> bool {
        matches!(
            self.fs_type.as_str(),
            "ext2"
                | "ext3"
                | "ext4"
                | "btrfs"
                | "xfs"
                | "f2fs"
                | "bcachefs"
                | "zfs"
                | "tmpfs"
                | "ramfs"
        )
    }

    /// True for a file system served in user space: how it renames, and what a rename
    /// keeps, is its server's (fusefat stamps a renamed file with the time of the rename).
    pub fn is_fuse(&self) -> bool {
        // `fuseblk`: a FUSE server on a block device, as ntfs-3g and exfat-fuse are.
        let t = self.fs_type.as_str();
        matches!(t, "fuse" | "fuseblk") || t.starts_with("fuse.") || t.starts_with("fuseblk.")
    }

    /// True where looking at a path can wait for a network, a user-space server or an
    /// automount (NFS, SMB, sshfs and other FUSE file systems, autofs): nothing looks there
    /// unasked, as the start-up pruning of staging folders would.
    pub fn may_hang(&self) -> bool {
        let t = self.fs_type.as_str();
        t.starts_with("nfs")
            || t.starts_with("fuse.")
            || matches!(
                t,
                "autofs" | "fuse" | "cifs" | "smb3" | "smbfs" | "9p" | "ceph" | "glusterfs" | "afs"
            )
    }

    /// The largest file the file system can hold, when it is small enough to matter (FAT,
    /// in the kernel or through FUSE such as `fuse.fusefat`; not exFAT). Told by the type
    /// name: a file that large cannot be probed for without writing it.
    pub fn max_file_size(&self) -> Option<u64> {
        let t = self.fs_type.as_str();
        let fuse_fat = t
            .strip_prefix("fuse.")
            .is_some_and(|sub| sub.contains("fat") && !sub.contains("exfat"));
        (matches!(t, "vfat" | "msdos" | "fat") || fuse_fat).then_some(u64::from(u32::MAX))
    }
}

/// A snapshot of the mount table.
#[derive(Debug, Clone, Default)]
pub struct MountTable {
    mounts: Vec<Mount>,
}

impl MountTable {
    /// Reads `/proc/self/mountinfo` (an empty table if it cannot be read: every lookup is
    /// then answered conservatively).
    pub fn read() -> Self {
        std::fs::read("/proc/self/mountinfo")
            .map(|text| Self::parse(&text))
            .unwrap_or_default()
    }

    /// Parses the text of a `mountinfo` file.
    pub fn parse(text: &[u8]) -> Self {
        let mounts = text.split(|&b| b == b'\n').filter_map(parse_line).collect();
        MountTable { mounts }
    }

    /// The mount with id `mnt_id`.
    pub fn by_id(&self, mnt_id: u64) -> Option<&Mount> {
        self.mounts.iter().find(|m| m.id == mnt_id)
    }

    /// Every mount, in the table's order.
    pub fn mounts(&self) -> &[Mount] {
        &self.mounts
    }

    /// The mount `path` (absolute, its links not resolved) is on, told by its mount point
    /// alone: nothing on the path is looked at, so a path on a file system that stopped
    /// answering is told without waiting for it. Of two mounts on one point, the later.
    pub fn covering(&self, path: &Path) -> Option<&Mount> {
        // `max_by_key` keeps the last of equals: the later mount.
        (self.mounts.iter())
            .filter(|m| path.starts_with(&m.mount_point))
            .max_by_key(|m| m.mount_point.as_os_str().len())
    }
}

// Fields: id parent major:minor root mount_point options [optional...] - fstype source super
fn parse_line(line: &[u8]) -> Option<Mount> {
    let mut fields = line.split(|&b| b == b' ');
    let id = std::str::from_utf8(fields.next()?).ok()?.parse().ok()?;
    let _parent = fields.next()?;
    let (major, minor) = std::str::from_utf8(fields.next()?).ok()?.split_once(':')?;
    let dev = rustix::fs::makedev(major.parse().ok()?, minor.parse().ok()?);
    let _root = fields.next()?;
    let mount_point = PathBuf::from(OsStr::from_bytes(&unescape(fields.next()?)));
    let options = fields.next()?;
    let fs_type = fields.by_ref().skip_while(|f| *f != b"-").nth(1)?;
    let super_options = fields.nth(1).unwrap_or_default();
    let has_ro = |opts: &[u8]| opts.split(|&b| b == b',').any(|o| o == b"ro");
    Some(Mount {
        id,
        dev,
        mount_point,
        fs_type: String::from_utf8_lossy(fs_type).into_owned(),
        read_only: has_ro(options) || has_ro(super_options),
    })
}

/// `mountinfo` escapes space, tab, newline and backslash as `\ooo`.
fn unescape(field: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(field.len());
    let mut i = 0;
    while i < field.len() {
        let octal = field
            .get(i + 1..i + 4)
            .filter(|d| field[i] == b'\\' && d.iter().all(|c| (b'0'..=b'7').contains(c)));
        match octal {
            Some(d) => {
                out.push((d[0] - b'0') << 6 | (d[1] - b'0') << 3 | (d[2] - b'0'));
                i += 4;
            }
            None => {
                out.push(field[i]);
                i += 1;
            }
        }
    }
    out
}

/// True when the block device `dev` (or the disk it is a partition of) is removable media,
/// such as a USB stick or an SD card: jobs then flush their writes before reporting done.
pub fn is_removable(dev: u64) -> bool {
    let sys = PathBuf::from(format!(
        "/sys/dev/block/{}:{}",
        rustix::fs::major(dev),
        rustix::fs::minor(dev)
    ));
    let Ok(real) = std::fs::canonicalize(&sys) else {
        return false;
    };
    let flag = |p: &Path| std::fs::read(p.join("removable")).is_ok_and(|v| v.starts_with(b"1"));
    let on_usb = real
        .components()
        .any(|c| c.as_os_str().as_bytes().starts_with(b"usb"));
    on_usb || flag(&real) || real.parent().is_some_and(flag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_mountinfo_with_escapes_and_optional_fields() {
        let text = b"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n\
                     40 22 0:35 / /media/my\\040stick rw - vfat /dev/sdb1 rw\n\
                     41 22 0:36 / /mnt/cd ro,nosuid - iso9660 /dev/sr0 ro\n\
                     42 22 0:37 / /mnt/bad rw - ext4 /dev/sdc1 ro,errors=remount-ro\n";
        let table = MountTable::parse(text);
        let root = table.by_id(22).unwrap();
        assert_eq!(
            (root.fs_type.as_str(), root.mount_point.as_path()),
            ("ext4", Path::new("/"))
        );
        assert_eq!(root.dev, rustix::fs::makedev(8, 1));
        let stick = table.by_id(40).unwrap();
        assert_eq!(stick.mount_point, Path::new("/media/my stick"));
        assert_eq!(stick.max_file_size(), Some(u64::from(u32::MAX)));
        assert!(!stick.can_reflink());
        assert!(!root.read_only && !stick.read_only);
        assert!(table.by_id(41).unwrap().read_only && table.by_id(42).unwrap().read_only);
        let fusefat = Mount {
            fs_type: "fuse.fusefat".into(),
            ..root.clone()
        };
        assert_eq!(fusefat.max_file_size(), Some(u64::from(u32::MAX)));
        let exfat = Mount {
            fs_type: "fuse.exfat".into(),
            ..root.clone()
        };
        assert_eq!(exfat.max_file_size(), None);
        let is_fuse = |fs_type: &str| {
            Mount {
                fs_type: fs_type.into(),
                ..root.clone()
            }
            .is_fuse()
        };
        assert!(["fuse", "fuse.fusefat", "fuseblk", "fuseblk.exfat"].map(is_fuse) == [true; 4]);
        assert!(!is_fuse("ext4") && !is_fuse("fusectl"));
        assert!(!root.may_hang() && !stick.may_hang());
        let remote = MountTable::parse(
            b"50 22 0:40 / /net rw - nfs4 server:/ rw\n\
                                         51 22 0:41 / /ssh rw - fuse.sshfs me@host: rw\n",
        );
        assert!(remote.mounts().iter().all(Mount::may_hang));
        let covering = |p: &str| remote.covering(Path::new(p)).map(|m| m.id);
        assert_eq!(covering("/ssh/a/b"), Some(51));
        assert_eq!(covering("/net"), Some(50));
        assert_eq!(covering("/sshx/a"), None, "by whole components");
        let over = MountTable::parse(
            b"1 0 8:1 / / rw - ext4 /dev/sda1 rw\n\
              2 1 0:40 / /m rw - ext4 /dev/sdb1 rw\n\
              3 1 0:41 / /m rw - fuse.sshfs me@host: rw\n",
        );
        assert_eq!(over.covering(Path::new("/m/x")).map(|m| m.id), Some(3));
        assert_eq!(over.covering(Path::new("/home")).map(|m| m.id), Some(1));
    }

    #[test]
    fn the_live_table_knows_the_root_mount() {
        let table = MountTable::read();
        let meta = crate::fs::stat_path(Path::new("/")).unwrap();
        assert_eq!(
            table.by_id(meta.mnt_id).unwrap().mount_point,
            Path::new("/")
        );
    }
}
