//! Mounted file systems worth a place in the sidebar, and the helper threads that ask them
//! for their free space without letting one that hangs (a dead NFS server) hang the list.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::fs::{Mount, MountTable};

/// A mounted file system, as the sidebar shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Volume {
    /// Where it is mounted.
    pub mount_point: PathBuf,
    /// File system type ("ext4", "vfat", "nfs4", "fuse.sshfs", ...).
    pub fs_type: String,
    /// Device number, as `st_dev` of the files on it.
    pub dev: u64,
    /// The volume's label, from `/dev/disk/by-label` (block devices only).
    pub label: Option<String>,
    /// Mounted read-only.
    pub read_only: bool,
    /// On removable media (USB, SD card): the sidebar can offer to eject it.
    pub removable: bool,
    /// A network file system (NFS, SMB, SSHFS, ...).
    pub network: bool,
    /// Size and free space; `None` when `statvfs` failed or did not answer in time.
    pub space: Option<Space>,
    /// False when the file system did not answer within the probe timeout (or still had not
    /// answered an earlier one): its space, its trash and the bookmarks on it are unknown.
    pub responding: bool,
}

impl Volume {
    /// True for the root file system, which the sidebar names itself ("File System").
    pub fn is_root(&self) -> bool {
        self.mount_point == Path::new("/")
    }

    /// The name to show: the label, else the mount point's last component; `None` for the
    /// root file system, whose name is the window's to choose.
    pub fn name(&self) -> Option<Cow<'_, str>> {
        if self.is_root() {
            return None;
        }
        match &self.label {
            Some(label) => Some(Cow::Borrowed(label)),
            None => self.mount_point.file_name().map(|n| n.to_string_lossy()),
        }
    }
}

/// Size and free space of a file system, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Space {
    /// Total size.
    pub total: u64,
    /// Free, including what is reserved for root.
    pub free: u64,
    /// Free for an unprivileged user: what the sidebar shows as free.
    pub available: u64,
}

impl Space {
    /// Bytes in use (`total - free`), for a usage bar.
    pub fn used(&self) -> u64 {
        self.total.saturating_sub(self.free)
    }
}

/// Kernel and system file systems no file manager shows, and read-only images (snaps'
/// squashfs loops, container layers). `tmpfs` is memory: `/run`, `/dev/shm`, `/tmp` are
/// scratch space for programs, not storage a user manages.
const PSEUDO: &[&str] = &[
    "autofs",
    "binfmt_misc",
    "bpf",
    "cgroup",
    "cgroup2",
    "configfs",
    "debugfs",
    "devpts",
    "devtmpfs",
    "efivarfs",
    "fuse.gvfsd-fuse",
    "fuse.portal",
    "fuse.snapfuse",
    "fusectl",
    "hugetlbfs",
    "mqueue",
    "nfsd",
    "nsfs",
    "overlay",
    "proc",
    "pstore",
    "ramfs",
    "rpc_pipefs",
    "securityfs",
    "selinuxfs",
    "squashfs",
    "sysfs",
    "tmpfs",
    "tracefs",
];

/// Folders whose mounts belong to the system (GIO hides them too), except `/run/media`.
const SYSTEM: &[&str] = &[
    "/boot", "/dev", "/efi", "/etc", "/proc", "/run", "/snap", "/sys", "/tmp", "/usr", "/var",
];

/// File systems reached over the network.
const NETWORK: &[&str] = &[
    "afs",
    "ceph",
    "cifs",
    "fuse.davfs2",
    "fuse.rclone",
    "fuse.sshfs",
    "glusterfs",
    "ncpfs",
    "nfs",
    "nfs4",
    "smb3",
    "smbfs",
    "sshfs",
];

/// True for network file systems.
pub(super) fn is_network(fs_type: &str) -> bool {
    NETWORK.contains(&fs_type)
}

/// The mounts to list, root first, then in the table's (mount) order: not pseudo, not under
/// a system folder or a hidden one, one per mount point (the last, which hides the others)
/// and one per device (bind mounts and btrfs subvolumes show the same disk once).
pub(super) fn shown_mounts(table: &MountTable) -> Vec<&Mount> {
    let root = table.mounts().iter().rev().find(|m| is_root(m));
    let others = table.mounts().iter().filter(|m| !is_root(m) && is_shown(m));
    let mut visible: Vec<&Mount> = Vec::new();
    for mount in root.into_iter().chain(others) {
        match visible
            .iter_mut()
            .find(|v| v.mount_point == mount.mount_point)
        {
            Some(hidden) => *hidden = mount,
            None => visible.push(mount),
        }
    }
    let mut shown: Vec<&Mount> = Vec::new();
    for mount in visible {
        if shown.iter().all(|s| s.dev != mount.dev) {
            shown.push(mount);
        }
    }
    shown
}

fn is_root(mount: &Mount) -> bool {
    mount.mount_point == Path::new("/")
}

fn is_shown(mount: &Mount) -> bool {
    let path = &mount.mount_point;
    let system = !path.starts_with("/run/media") && SYSTEM.iter().any(|s| path.starts_with(s));
    let hidden = path
        .components()
        .any(|c| matches!(c, Component::Normal(n) if n.as_bytes().starts_with(b".")));
    !PSEUDO.contains(&mount.fs_type.as_str()) && !system && !hidden
}

/// Volume labels by device number, from the `/dev/disk/by-label` links udev keeps (empty
/// where there is no udev, as in containers).
pub(super) fn labels() -> HashMap<u64, String> {
    let Ok(entries) = std::fs::read_dir("/dev/disk/by-label") else {
        return HashMap::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let dev = std::fs::metadata(entry.path()).ok()?.rdev();
            let name = unescape_udev(entry.file_name().as_bytes());
            Some((dev, String::from_utf8_lossy(&name).into_owned()))
        })
        .collect()
}

/// Undoes udev's `\xHH` escapes in link names (a space is `\x20`).
fn unescape_udev(name: &[u8]) -> Vec<u8> {
    let hex = |i: usize| name.get(i).and_then(|&b| char::from(b).to_digit(16));
    let mut out = Vec::with_capacity(name.len());
    let mut i = 0;
    while i < name.len() {
        match (&name[i..], hex(i + 2), hex(i + 3)) {
            ([b'\\', b'x', ..], Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 4;
            }
            _ => {
                out.push(name[i]);
                i += 1;
            }
        }
    }
    out
}

/// `statvfs` of a mount point.
pub(super) fn space(mount_point: &Path) -> Option<Space> {
    let st = rustix::fs::statvfs(mount_point).ok()?;
    Some(Space {
        total: st.f_blocks.saturating_mul(st.f_frsize),
        free: st.f_bfree.saturating_mul(st.f_frsize),
        available: st.f_bavail.saturating_mul(st.f_frsize),
    })
}

/// True when a trash folder of the file system mounted at `top` holds something:
/// `.Trash-$uid`, or `.Trash/$uid` when `.Trash` is the sticky folder the trash
/// specification asks for.
pub(super) fn volume_trash_full(top: &Path, uid: u32) -> bool {
    let shared = top.join(".Trash");
    let valid = std::fs::symlink_metadata(&shared)
        .is_ok_and(|m| m.is_dir() && m.permissions().mode() & 0o1000 != 0);
    let own = top.join(OsString::from_vec(format!(".Trash-{uid}").into_bytes()));
    has_entry(&own.join("files"))
        || (valid && has_entry(&shared.join(uid.to_string()).join("files")))
}

/// True when the folder has at least one entry: one `getdents`, not a listing.
pub(super) fn has_entry(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|mut entries| entries.next().is_some())
}

/// Probes whose thread is still running after its load gave up on it, by key (the mount
/// point): a later load does not start another on a file system that is still stuck, so a
/// dead server costs one blocked thread, not one per refresh.
static STUCK: Mutex<Vec<(PathBuf, Arc<AtomicBool>)>> = Mutex::new(Vec::new());

/// Marks a probe's thread finished when it ends, even by a panic (or its file system would
/// be taken for stuck for good).
struct Finished(Arc<AtomicBool>);

impl Drop for Finished {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// Runs each job on its own thread and waits for all of them until `timeout` has passed;
/// a job that did not answer in time (its thread is left to finish on its own) or whose key
/// is still stuck from an earlier call answers `None`.
pub(crate) fn probe_all<T, F>(jobs: Vec<(PathBuf, F)>, timeout: Duration) -> Vec<Option<T>>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let deadline = Instant::now() + timeout;
    let mut answers: Vec<Option<T>> = std::iter::repeat_with(|| None).take(jobs.len()).collect();
    let (tx, rx) = crossbeam_channel::unbounded();
    let mut waiting = Vec::new();
    for (i, (key, job)) in jobs.into_iter().enumerate() {
        {
            let mut stuck = STUCK.lock().unwrap_or_else(PoisonError::into_inner);
            stuck.retain(|(_, done)| !done.load(Ordering::Acquire));
            if stuck.iter().any(|(k, _)| *k == key) {
                continue;
            }
        }
        let done = Arc::new(AtomicBool::new(false));
        let (tx, flag) = (tx.clone(), Arc::clone(&done));
        let spawned = std::thread::Builder::new()
            .name("ferry-places".into())
            .spawn(move || {
                let _finished = Finished(flag);
                let _ = tx.send((i, job()));
            });
        if spawned.is_ok() {
            waiting.push((i, key, done));
        }
    }
    drop(tx);
    let mut left = waiting.len();
    while left > 0 {
        let Ok((i, answer)) = rx.recv_deadline(deadline) else {
            break;
        };
        answers[i] = Some(answer);
        left -= 1;
    }
    let mut stuck = STUCK.lock().unwrap_or_else(PoisonError::into_inner);
    for (i, key, done) in waiting {
        if answers[i].is_none() {
            stuck.push((key, done));
        }
    }
    answers
}

#[cfg(test)]
mod tests {
    use super::*;

    // Sample lines from a desktop with a USB stick, an NFS share, snaps and a container.
    const MOUNTINFO: &[u8] = b"1 0 0:2 / / rw - rootfs rootfs rw\n\
        22 1 0:21 / /proc rw,relatime - proc proc rw\n\
        23 1 0:22 / /sys rw,relatime - sysfs sysfs rw\n\
        24 1 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw\n\
        25 24 0:23 / /dev/shm rw - tmpfs tmpfs rw\n\
        26 24 0:24 / /dev/pts rw - devpts devpts rw\n\
        27 1 259:2 / / rw,relatime shared:1 - btrfs /dev/nvme0n1p2 rw,subvol=/root\n\
        28 27 259:2 /home /home rw,relatime shared:2 - btrfs /dev/nvme0n1p2 rw,subvol=/home\n\
        29 27 259:1 / /boot/efi rw - vfat /dev/nvme0n1p1 rw\n\
        30 27 0:25 / /run rw - tmpfs tmpfs rw\n\
        31 30 0:26 / /run/user/1000 rw - tmpfs tmpfs rw\n\
        32 31 0:27 / /run/user/1000/doc rw - fuse.portal portal rw\n\
        33 23 0:28 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n\
        34 27 7:3 / /snap/core22/1380 ro - squashfs /dev/loop3 ro\n\
        35 27 0:29 / /tmp rw - tmpfs tmpfs rw\n\
        36 27 8:17 / /run/media/u/MY\\040STICK rw,nosuid - vfat /dev/sdb1 rw\n\
        37 27 0:30 / /mnt/nas rw - nfs4 nas:/export rw\n\
        38 27 8:33 / /mnt/data ro - ext4 /dev/sdc1 ro\n\
        39 27 8:33 /sub /media/data-again rw - ext4 /dev/sdc1 rw\n\
        40 27 0:31 / /var/lib/docker/overlay2/x/merged rw - overlay overlay rw\n\
        41 27 0:32 / /home/u/.cache/doc rw - fuse.portal portal rw\n\
        42 27 0:33 / /home/u/remote rw - fuse.sshfs me@host: rw\n\
        43 27 8:49 / /mnt/data rw - xfs /dev/sdd1 rw\n\
        44 27 0:34 / /proc/sys/fs/binfmt_misc rw - autofs systemd-1 rw\n";

    #[test]
    fn pseudo_system_and_duplicate_mounts_are_left_out() {
        let table = MountTable::parse(MOUNTINFO);
        let shown: Vec<_> = shown_mounts(&table)
            .iter()
            .map(|m| (m.mount_point.to_str().unwrap(), m.fs_type.as_str()))
            .collect();
        assert_eq!(
            shown,
            [
                ("/", "btrfs"),
                ("/run/media/u/MY STICK", "vfat"),
                ("/mnt/nas", "nfs4"),
                ("/mnt/data", "xfs"), // mounted over the ext4 one
                ("/media/data-again", "ext4"),
                ("/home/u/remote", "fuse.sshfs"),
            ]
        );
        assert!(is_network("nfs4") && is_network("fuse.sshfs") && !is_network("vfat"));
    }

    #[test]
    fn a_container_root_is_shown_once_whatever_its_type() {
        let table = MountTable::parse(
            b"5 1 0:40 / / rw - overlay overlay rw\n\
              6 5 254:0 /work /work rw - ext4 /dev/vda rw\n\
              7 5 254:0 /etc/hosts /etc/hosts rw - ext4 /dev/vda rw\n",
        );
        let shown: Vec<_> = shown_mounts(&table)
            .iter()
            .map(|m| m.mount_point.to_str().unwrap())
            .collect();
        assert_eq!(shown, ["/", "/work"]);
    }

    #[test]
    fn names_come_from_the_label_or_the_mount_point() {
        let mut volume = Volume {
            mount_point: "/run/media/u/STICK".into(),
            fs_type: "vfat".into(),
            dev: 0,
            label: None,
            read_only: false,
            removable: true,
            network: false,
            space: None,
            responding: true,
        };
        assert_eq!(volume.name().as_deref(), Some("STICK"));
        volume.label = Some("My Stick".into());
        assert_eq!(volume.name().as_deref(), Some("My Stick"));
        volume.mount_point = "/".into();
        assert_eq!(volume.name(), None);
        assert_eq!(unescape_udev(br"My\x20Stick\x2"), b"My Stick\\x2");
    }

    #[test]
    fn the_root_file_system_reports_its_space() {
        let space = space(Path::new("/")).unwrap();
        assert!(space.total > 0 && space.available <= space.free && space.free <= space.total);
        assert_eq!(space.used(), space.total - space.free);
        assert_eq!(super::space(Path::new("/no/such/mount")), None);
    }

    #[test]
    fn volume_trashes_are_full_when_files_holds_something() {
        let tmp = tempfile::tempdir().unwrap();
        let top = tmp.path();
        assert!(!volume_trash_full(top, 1000));
        std::fs::create_dir_all(top.join(".Trash-1000/files")).unwrap();
        assert!(!volume_trash_full(top, 1000));
        std::fs::write(top.join(".Trash-1000/files/x"), "").unwrap();
        assert!(volume_trash_full(top, 1000));
        // `.Trash/$uid` counts only in a sticky `.Trash`.
        std::fs::create_dir_all(top.join(".Trash/1001/files/y")).unwrap();
        assert!(!volume_trash_full(top, 1001));
        std::fs::set_permissions(top.join(".Trash"), std::fs::Permissions::from_mode(0o1777))
            .unwrap();
        assert!(volume_trash_full(top, 1001));
    }

    #[test]
    fn a_probe_that_hangs_answers_none_and_is_not_started_again_while_stuck() {
        let tmp = tempfile::tempdir().unwrap();
        let key = tmp.path().to_path_buf();
        let (release, hang) = crossbeam_channel::bounded::<()>(0);
        let jobs: Vec<(PathBuf, Box<dyn FnOnce() -> u32 + Send>)> =
            vec![(key.clone(), Box::new(move || hang.recv().map_or(0, |()| 1)))];
        assert_eq!(probe_all(jobs, Duration::from_millis(50)), [None]);

        let started = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&started);
        let again: Vec<(PathBuf, Box<dyn FnOnce() -> u32 + Send>)> = vec![
            (key.join("other"), Box::new(|| 2)),
            (
                key.clone(),
                Box::new(move || u32::from(flag.swap(true, Ordering::SeqCst))),
            ),
        ];
        assert_eq!(probe_all(again, Duration::from_secs(10)), [Some(2), None]);
        assert!(
            !started.load(Ordering::SeqCst),
            "no second thread on a stuck mount"
        );

        drop(release); // the stuck probe finishes: the next call probes again
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let jobs: Vec<(PathBuf, Box<dyn FnOnce() -> u32 + Send>)> =
                vec![(key.clone(), Box::new(|| 3))];
            match probe_all(jobs, Duration::from_secs(10)).as_slice() {
                [Some(3)] => break,
                _ if Instant::now() < deadline => std::thread::yield_now(),
                other => panic!("still stuck: {other:?}"),
            }
        }
    }
}
