//! Thin wrappers over the Linux calls the job engine is built on (through `rustix`, no `unsafe`).
//!
//! Everything works relative to directory file descriptors: names are single path components
//! passed as bytes, never joined into long paths, so trees deeper than `PATH_MAX` work and a
//! symlink swapped in during a job is never followed (`O_NOFOLLOW`, `AT_SYMLINK_NOFOLLOW`).
//! [`DirStack`] keeps the chain of open folders of a walk bounded in file descriptors;
//! [`MountTable`] is the mount table, read once per job; [`DataCopier`] moves file contents
//! (reflink, `copy_file_range`, hole-preserving, or read/write); `xattrs.rs` copies extended
//! attributes and ACLs.

mod data;
mod deep;
mod mounts;
mod names;
mod own_folder;
mod stack;
mod tree;
mod xattrs;

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use rustix::fd::{AsFd, AsRawFd, OwnedFd};
use rustix::fs::{
    AtFlags, FileType, Mode, OFlags, RawDir, RenameFlags, StatxAttributes, StatxFlags, Timespec,
};
use rustix::io::{Errno, Result};
use rustix::process::{Gid, Uid};

use crate::entry::Kind;

pub use data::{CopyMethod, DataCopier, DataError};
pub use deep::DeepPaths;
pub use mounts::{Mount, MountTable, is_removable};
pub use names::NameList;
pub use own_folder::{Moved, rename_own};
pub use stack::{DirStack, folders_held_at_once, max_open_dirs, prepare_descriptors};
pub use tree::{remove_tree_at, tree_size_at};
pub use xattrs::{
    ACCESS_ACL, DEFAULT_ACL, NotKept, Xattrs, copy_xattrs, copy_xattrs_at, may_have_default_acl,
    read_xattrs, write_xattrs,
};

/// Identity of a file: the device it lives on and its inode number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct FileId {
    /// Device number (`st_dev`).
    pub dev: u64,
    /// Inode number (`st_ino`).
    pub ino: u64,
}

/// A time stamp as the kernel keeps it: seconds since the epoch and nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Timestamp {
    /// Seconds since 1970-01-01 UTC (may be negative).
    pub sec: i64,
    /// Nanoseconds, `0..1_000_000_000`.
    pub nsec: u32,
}

impl Timestamp {
    /// Whether `held`, read back from a file, is this time as the file's file system keeps
    /// it: the same, or this time cut to a coarser step. FAT keeps even seconds, ext4 with
    /// small inodes and many network file systems whole seconds, exFAT 10 ms, NTFS 100 ns.
    /// The step is read off `held` itself (its trailing zero digits), so no file system needs
    /// probing. Without this, a copy to a USB stick never read as the copy Ferry made (undo
    /// kept every file as changed) and "replace if newer" replaced it again on every run.
    pub fn kept_as(self, held: Timestamp) -> bool {
        if self == held {
            return true;
        }
        let fat_seconds = held.nsec == 0 && held.sec % 2 == 0 && self.sec - held.sec == 1;
        fat_seconds
            || (held.sec == self.sec
                && held.nsec < self.nsec
                && self.nsec - held.nsec < step_of(held.nsec))
    }

    /// Whether this time is later than `held` as a file system keeps times (see
    /// [`kept_as`](Self::kept_as)): "replace if newer" of a file against its own copy on a
    /// coarser file system is false.
    pub fn newer_than_held(self, held: Timestamp) -> bool {
        self > held && !self.kept_as(held)
    }

    /// The access time `meta` holds.
    pub fn atime_of(meta: &std::fs::Metadata) -> Timestamp {
        use std::os::unix::fs::MetadataExt;
        Timestamp {
            sec: meta.atime(),
            nsec: meta.atime_nsec().clamp(0, 999_999_999) as u32,
        }
    }

    /// The modification time `meta` holds.
    pub fn mtime_of(meta: &std::fs::Metadata) -> Timestamp {
        use std::os::unix::fs::MetadataExt;
        Timestamp {
            sec: meta.mtime(),
            nsec: meta.mtime_nsec().clamp(0, 999_999_999) as u32,
        }
    }

    fn timespec(self) -> Timespec {
        Timespec {
            tv_sec: self.sec,
            tv_nsec: i64::from(self.nsec),
        }
    }
}

/// The step a file system with sub-second time stamps keeps `nsec` to: 10 to the power of
/// its trailing zero digits (a whole second for 0).
fn step_of(nsec: u32) -> u32 {
    let mut step = 1;
    while step < 1_000_000_000 && (nsec / step).is_multiple_of(10) {
        step *= 10;
    }
    step
}

/// What `statx` reports about one file, reduced to what jobs use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    /// File type.
    pub kind: Kind,
    /// Device and inode.
    pub id: FileId,
    /// Mount id (`stx_mnt_id`): differs across mounts even of one device (bind mounts).
    pub mnt_id: u64,
    /// Permission bits, `0o7777`.
    pub mode: u32,
    /// Owner.
    pub uid: u32,
    /// Group.
    pub gid: u32,
    /// Size in bytes.
    pub size: u64,
    /// Allocated 512-byte blocks (less than `size / 512` for sparse files).
    pub blocks: u64,
    /// Names the file has (hard links).
    pub nlink: u32,
    /// Last access.
    pub atime: Timestamp,
    /// Last modification.
    pub mtime: Timestamp,
    /// Last change of content or metadata (`stx_ctime`): moves whenever `mtime` is set back
    /// by hand after a write, which size and `mtime` alone do not show.
    pub ctime: Timestamp,
    /// Immutable or append-only (`chattr +i`, `+a`): not to be removed or renamed, by root
    /// either (nor, for a folder, what it holds, if append-only).
    pub pinned: bool,
}

impl Meta {
    /// True when the file has holes worth preserving.
    pub fn is_sparse(&self) -> bool {
        self.kind == Kind::File && self.blocks.saturating_mul(512) < self.size
    }
}

fn meta_of(st: &rustix::fs::Statx) -> Meta {
    let ts = |t: rustix::fs::StatxTimestamp| Timestamp {
        sec: t.tv_sec,
        nsec: t.tv_nsec,
    };
    Meta {
        kind: Kind::from_file_type(FileType::from_raw_mode(u32::from(st.stx_mode))),
        id: FileId {
            dev: rustix::fs::makedev(st.stx_dev_major, st.stx_dev_minor),
            ino: st.stx_ino,
        },
        mnt_id: st.stx_mnt_id,
        mode: u32::from(st.stx_mode) & 0o7777,
        uid: st.stx_uid,
        gid: st.stx_gid,
        size: st.stx_size,
        blocks: st.stx_blocks,
        nlink: st.stx_nlink,
        atime: ts(st.stx_atime),
        mtime: ts(st.stx_mtime),
        ctime: ts(st.stx_ctime),
        pinned: st
            .stx_attributes
            .intersects(StatxAttributes::IMMUTABLE | StatxAttributes::APPEND),
    }
}

const STATX_WANT: StatxFlags = StatxFlags::BASIC_STATS.union(StatxFlags::MNT_ID);

/// `statx` of `name` inside `dir` asking for `mask`, following a final symlink only when
/// `follow` is set: the call under [`stat_at`], for callers that want other fields (the lister
/// wants the link count and no mount id).
pub fn statx_at(
    dir: impl AsFd,
    name: impl AsRef<OsStr>,
    follow: bool,
    mask: StatxFlags,
) -> Result<rustix::fs::Statx> {
    let flags = if follow {
        AtFlags::empty()
    } else {
        AtFlags::SYMLINK_NOFOLLOW
    };
    rustix::fs::statx(dir, name.as_ref(), flags, mask)
}

/// When the item at `path` (not following a final symlink) was made, where the file system
/// keeps that (`statx` birth time); `None` where it does not, or on error.
pub fn born_at(path: &Path) -> Option<std::time::SystemTime> {
    let st = statx_at(rustix::fs::CWD, path, false, StatxFlags::BTIME).ok()?;
    if !StatxFlags::from_bits_retain(st.stx_mask).contains(StatxFlags::BTIME) {
        return None;
    }
    let since_epoch = std::time::Duration::new(
        u64::try_from(st.stx_btime.tv_sec).ok()?,
        st.stx_btime.tv_nsec,
    );
    Some(std::time::UNIX_EPOCH + since_epoch)
}

/// `statx` of `name` inside `dir`, not following a final symlink.
pub fn stat_at(dir: impl AsFd, name: impl AsRef<OsStr>) -> Result<Meta> {
    Ok(meta_of(&statx_at(dir, name, false, STATX_WANT)?))
}

/// `statx` of what `name` inside `dir` leads to, following a final symlink.
pub fn stat_following_at(dir: impl AsFd, name: impl AsRef<OsStr>) -> Result<Meta> {
    Ok(meta_of(&statx_at(dir, name, true, STATX_WANT)?))
}

/// `statx` of `name` inside `dir` (not following a final symlink), with the device number a
/// device file stands for (`st_rdev`; 0 for anything else).
pub fn stat_node_at(dir: impl AsFd, name: impl AsRef<OsStr>) -> Result<(Meta, u64)> {
    let st = statx_at(dir, name, false, STATX_WANT)?;
    let rdev = rustix::fs::makedev(st.stx_rdev_major, st.stx_rdev_minor);
    Ok((meta_of(&st), rdev))
}

/// `statx` of an open file.
pub fn stat_fd(fd: impl AsFd) -> Result<Meta> {
    let st = rustix::fs::statx(fd, c"", AtFlags::EMPTY_PATH, STATX_WANT)?;
    Ok(meta_of(&st))
}

/// `statx` of a path given by the user, following symlinks (as a shell would).
pub fn stat_path(path: &Path) -> Result<Meta> {
    let st = rustix::fs::statx(rustix::fs::CWD, path, AtFlags::empty(), STATX_WANT)?;
    Ok(meta_of(&st))
}

/// `ENOTDIR` when the path a user gave ends in `/` (or `/.`), which names a folder, but what
/// it names (`meta`, not followed, found in `dir` as `name`) is neither a folder nor a link to
/// one (the kernel's own error for a link it cannot follow: `ELOOP`, `ENOENT`, as GNU tools
/// say): `file/` is not `file`, for the kernel and GNU tools alike. `Path` drops a final slash
/// from its components, so whoever splits such a path into folder and name must ask this.
/// A link to a folder passes: a shell completes its name with a `/`, and a move, delete or
/// trash then takes the link, never the folder behind it (`rm -r lnk/` empties that folder);
/// a copy takes the folder ([`folder_behind_final_slash`]).
pub fn check_final_slash(path: &Path, meta: &Meta, dir: impl AsFd, name: &OsStr) -> Result<()> {
    if !names_a_folder(path) || meta.kind == Kind::Dir {
        return Ok(());
    }
    if meta.kind != Kind::Symlink {
        return Err(Errno::NOTDIR);
    }
    // What the link leads to, as the kernel says: a loop is `ELOOP`, a dangling link `ENOENT`.
    let behind = statx_at(dir, name, true, StatxFlags::TYPE)?;
    if FileType::from_raw_mode(behind.stx_mode.into()) == FileType::Directory {
        Ok(())
    } else {
        Err(Errno::NOTDIR)
    }
}

/// The folder a path the user gave names through a symbolic link by a final `/` (`lnk/`), as
/// the kernel resolves it: copied as that folder, under the link's name, as `cp -r lnk/ x`
/// does. `None` for any other path.
pub fn folder_behind_final_slash(path: &Path) -> Option<PathBuf> {
    // Asked of every source of a copy (a paste may have 100,000): no system call for most.
    if !names_a_folder(path) {
        return None;
    }
    let bytes = path.as_os_str().as_bytes();
    let mut end = bytes.len();
    while end > 1 && (bytes[end - 1] == b'/' || bytes[..end].ends_with(b"/.")) {
        end -= 1;
    }
    let link = std::fs::symlink_metadata(OsStr::from_bytes(&bytes[..end]));
    if !link.is_ok_and(|m| m.file_type().is_symlink()) {
        return None;
    }
    std::fs::canonicalize(path).ok().filter(|p| p.is_dir())
}

/// Whether a path ends in `/` or `/.`, which name a folder whatever the last name is.
fn names_a_folder(path: &Path) -> bool {
    let bytes = path.as_os_str().as_bytes();
    bytes.ends_with(b"/") || bytes.ends_with(b"/.")
}

/// Whether the last name of a path the user gave is `.` or `..` (`a/.`, `a/./`, `..`),
/// which `Path` hides from its components (`a/.` has the file name `a`). POSIX has `rm`
/// refuse such an operand, whatever the folder it names: a script's `rm -rf "$dir/."` is
/// the slip the rule is for.
pub fn ends_in_dot(path: &Path) -> bool {
    matches!(last_name(path), b"." | b"..")
}

/// The last name of a path as the user wrote it, final slashes dropped (`.` for `a/./`),
/// where `Path::file_name` hides `.` and `..`.
pub fn last_name(path: &Path) -> &[u8] {
    let bytes = path.as_os_str().as_bytes();
    let end = bytes.iter().rposition(|&b| b != b'/').map_or(0, |p| p + 1);
    bytes[..end]
        .rsplit(|&b| b == b'/')
        .next()
        .unwrap_or_default()
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

/// Opens the folder `name` inside `dir`; fails (`ELOOP`/`ENOTDIR`) on a symlink or non-folder.
pub fn open_dir_at(dir: impl AsFd, name: impl AsRef<OsStr>) -> Result<OwnedFd> {
    rustix::fs::openat(dir, name.as_ref(), DIR_FLAGS, Mode::empty())
}

/// Opens a folder by a path the user gave; symlinks in it are followed like a shell would.
pub fn open_dir_path(path: &Path) -> Result<OwnedFd> {
    let path: &Path = if path.as_os_str().is_empty() {
        Path::new(".")
    } else {
        path
    };
    rustix::fs::openat(
        rustix::fs::CWD,
        path,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )
}

/// Opens `name` in `dir` for reading: never follows a symlink, never blocks on a FIFO that
/// replaced a file since planning (`O_NONBLOCK`), never becomes a controlling terminal.
pub fn open_file_at(dir: impl AsFd, name: impl AsRef<OsStr>) -> Result<OwnedFd> {
    let flags =
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    rustix::fs::openat(dir, name.as_ref(), flags, Mode::empty())
}

/// Creates `name` in `dir` exclusively, private (0600), for writing.
pub fn create_private_at(dir: impl AsFd, name: impl AsRef<OsStr>) -> Result<OwnedFd> {
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    rustix::fs::openat(dir, name.as_ref(), flags, Mode::from_raw_mode(0o600))
}

/// Creates an unnamed file in `dir` (`O_TMPFILE`) with the permission bits `mode & 0o777`
/// less the umask (or as the folder's default ACL says). No one else can open it, whatever
/// its mode, until [`link_unnamed`] gives it a name; so a copy can be created with its final
/// mode and spared a `chmod` when that mode survives creation. It takes no lock on `dir` to
/// create, and vanishes with its descriptor on error, cancel or crash: nothing is ever left
/// to clean up.
pub fn create_unnamed_in(dir: impl AsFd, mode: u32) -> Result<OwnedFd> {
    let flags = OFlags::WRONLY | OFlags::TMPFILE | OFlags::CLOEXEC;
    rustix::fs::openat(dir, c".", flags, Mode::from_raw_mode(mode & 0o777))
}

/// The path through which `/proc` reaches what `fd` is open on: the only way to name a file
/// opened with `O_PATH` (or a link's folder) to the calls that take a path.
pub fn proc_path(fd: impl AsFd) -> PathBuf {
    PathBuf::from(format!("/proc/self/fd/{}", fd.as_fd().as_raw_fd()))
}

/// Where the folder `dir` is, every link resolved (what the kernel says of its descriptor).
pub fn real_path(dir: impl AsFd) -> Option<PathBuf> {
    std::fs::read_link(proc_path(dir)).ok()
}

/// `path` made absolute against the current folder, `.` parts dropped (`..` kept).
pub fn absolute(path: &Path) -> Option<PathBuf> {
    Some(std::path::absolute(path).ok()?.components().collect())
}

/// Gives the unnamed file `fd` (from [`create_unnamed_in`]) the name `name` in `dir`, or
/// another name to a file opened with `O_PATH` (a hard link to exactly that file); fails
/// with `EEXIST` rather than replace anything, like `RENAME_NOREPLACE`.
pub fn link_unnamed(fd: impl AsFd, dir: impl AsFd, name: &OsStr) -> Result<()> {
    match rustix::fs::linkat(&fd, c"", &dir, name, AtFlags::EMPTY_PATH) {
        // Kernels before 6.10 want CAP_DAC_READ_SEARCH for this; /proc does it for anyone.
        Err(Errno::NOENT | Errno::PERM) => {}
        other => return other,
    }
    rustix::fs::linkat(
        rustix::fs::CWD,
        proc_path(fd),
        &dir,
        name,
        AtFlags::SYMLINK_FOLLOW,
    )
}

/// Reads every entry of the open folder `dir` (except `.` and `..`), calling `f(name, type)`.
/// `buf` is reused between calls. A read error is returned, never taken for the end.
pub fn read_dir(
    dir: impl AsFd,
    buf: &mut Vec<u8>,
    mut f: impl FnMut(&OsStr, FileType) -> Result<()>,
) -> Result<()> {
    each_entry(dir, buf, |name, entry| f(name, entry.file_type()))
}

/// Reads every entry of the open folder `dir` from its start (except `.` and `..`), calling
/// `f(name, inode)` with the inode number the folder lists for it: on the kernel's local file
/// systems the file's own, got without a `statx` per file.
pub fn read_dir_inodes(
    dir: impl AsFd,
    buf: &mut Vec<u8>,
    mut f: impl FnMut(&OsStr, u64),
) -> Result<()> {
    rustix::fs::seek(&dir, rustix::fs::SeekFrom::Start(0))?;
    each_entry(dir, buf, |name, entry| {
        f(name, entry.ino());
        Ok(())
    })
}

fn each_entry(
    dir: impl AsFd,
    buf: &mut Vec<u8>,
    mut f: impl FnMut(&OsStr, &rustix::fs::RawDirEntry<'_>) -> Result<()>,
) -> Result<()> {
    if buf.capacity() < 32 * 1024 {
        buf.reserve(32 * 1024);
    }
    let mut raw = RawDir::new(dir, buf.spare_capacity_mut());
    while let Some(entry) = raw.next() {
        let entry = entry?;
        let name = entry.file_name().to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        f(OsStr::from_bytes(name), &entry)?;
    }
    Ok(())
}

/// The process's file mode creation mask, as `/proc/self/status` says (read once: Ferry never
/// changes it); `None` where that cannot be read.
pub fn umask() -> Option<u32> {
    static UMASK: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    *UMASK.get_or_init(|| {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let line = status.lines().find_map(|l| l.strip_prefix("Umask:"))?;
        u32::from_str_radix(line.trim(), 8).ok()
    })
}

/// Identities of `dir` and each of its ancestors up to `/`, found through `..`.
/// Used for the "into itself" check; bounded by the folder depth, read once per job.
pub fn ancestors(dir: impl AsFd) -> Result<Vec<FileId>> {
    let mut ids = Vec::new();
    let mut cur = rustix::fs::openat(dir, c".", DIR_FLAGS, Mode::empty())?;
    loop {
        let id = stat_fd(&cur)?.id;
        if ids.last() == Some(&id) {
            return Ok(ids); // `..` of `/` is `/`
        }
        ids.push(id);
        cur = open_dir_at(&cur, "..")?;
    }
}

/// Renames without ever replacing an existing entry (`RENAME_NOREPLACE`). On file systems
/// without it, falls back to link + unlink (which also fails on an existing name), and last
/// to check-then-rename (the only racy path, for file systems that have neither).
pub fn rename_noreplace(
    from_dir: impl AsFd,
    from: &OsStr,
    to_dir: impl AsFd,
    to: &OsStr,
) -> Result<()> {
    match rustix::fs::renameat_with(&from_dir, from, &to_dir, to, RenameFlags::NOREPLACE) {
        Err(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP) => {}
        other => return other,
    }
    match rustix::fs::linkat(&from_dir, from, &to_dir, to, AtFlags::empty()) {
        Ok(()) => return rustix::fs::unlinkat(&from_dir, from, AtFlags::empty()),
        Err(Errno::PERM | Errno::OPNOTSUPP | Errno::NOSYS | Errno::MLINK) => {}
        Err(e) => return Err(e),
    }
    match rustix::fs::statx(&to_dir, to, AtFlags::SYMLINK_NOFOLLOW, StatxFlags::TYPE) {
        Ok(_) => Err(Errno::EXIST),
        Err(Errno::NOENT) => rustix::fs::renameat(&from_dir, from, &to_dir, to),
        Err(e) => Err(e),
    }
}

/// Every name the folder `dir` lists (read through a descriptor of its own, from the start).
pub fn names_in(dir: impl AsFd) -> Result<std::collections::HashSet<std::ffi::OsString>> {
    let listing = open_dir_at(&dir, ".")?;
    let mut names = std::collections::HashSet::new();
    read_dir(&listing, &mut Vec::new(), |name, _| {
        names.insert(name.to_owned());
        Ok(())
    })?;
    Ok(names)
}

/// The name another entry of `dir` is listed under when `name` opens it: on a file system
/// that folds names (FAT, exFAT, a casefolded ext4: `notes.txt` opens `Notes.txt`). `None`
/// when `name` is listed as it is, or opens nothing.
pub fn folded_name(dir: impl AsFd, name: &OsStr) -> Result<Option<std::ffi::OsString>> {
    let found = match stat_at(&dir, name) {
        Ok(m) => m,
        Err(Errno::NOENT) => return Ok(None),
        Err(e) => return Err(e),
    };
    let listing = open_dir_at(&dir, ".")?;
    let (mut exact, mut by_inode, mut by_case) = (false, None, None);
    let lower = |n: &OsStr| n.to_string_lossy().to_lowercase();
    let wanted = lower(name);
    read_dir_inodes(&listing, &mut Vec::new(), |n, ino| {
        if n == name {
            exact = true;
        } else if ino == found.id.ino {
            by_inode.get_or_insert_with(|| n.to_owned());
        } else if lower(n) == wanted {
            // (FUSE may list inode numbers of its own.)
            by_case.get_or_insert_with(|| n.to_owned());
        }
    })?;
    Ok(if exact { None } else { by_inode.or(by_case) })
}

/// [`rename_noreplace`] from path to path: what undo and recovery put back from a staging
/// folder, which may be on a FUSE mount (exFAT, FAT) that answers `RENAME_NOREPLACE` with
/// `EINVAL`.
pub fn rename_noreplace_path(from: &Path, to: &Path) -> Result<()> {
    let cwd = rustix::fs::CWD;
    rename_noreplace(cwd, from.as_os_str(), cwd, to.as_os_str())
}

/// Plain rename, replacing a non-folder at the destination atomically.
pub fn rename_replace(
    from_dir: impl AsFd,
    from: &OsStr,
    to_dir: impl AsFd,
    to: &OsStr,
) -> Result<()> {
    rustix::fs::renameat(from_dir, from, to_dir, to)
}

/// Sets access and modification times of an open file.
pub fn set_times_fd(fd: impl AsFd, atime: Timestamp, mtime: Timestamp) -> Result<()> {
    let times = rustix::fs::Timestamps {
        last_access: atime.timespec(),
        last_modification: mtime.timespec(),
    };
    rustix::fs::futimens(fd, &times)
}

/// Sets access and modification times of `name` in `dir` without following a symlink.
pub fn set_times_at(
    dir: impl AsFd,
    name: &OsStr,
    atime: Timestamp,
    mtime: Timestamp,
) -> Result<()> {
    let times = rustix::fs::Timestamps {
        last_access: atime.timespec(),
        last_modification: mtime.timespec(),
    };
    rustix::fs::utimensat(dir, name, &times, AtFlags::SYMLINK_NOFOLLOW)
}

/// Gives an open file or folder the owner `uid` and the group `gid` (`None`: left as is).
pub fn set_owner_fd(fd: impl AsFd, uid: Option<u32>, gid: Option<u32>) -> Result<()> {
    rustix::fs::fchown(fd, uid.map(Uid::from_raw), gid.map(Gid::from_raw))
}

/// Like [`set_owner_fd`] for `name` in `dir`, a link itself rather than what it points to.
pub fn set_owner_at(
    dir: impl AsFd,
    name: &OsStr,
    uid: Option<u32>,
    gid: Option<u32>,
) -> Result<()> {
    let (uid, gid) = (uid.map(Uid::from_raw), gid.map(Gid::from_raw));
    rustix::fs::chownat(dir, name, uid, gid, AtFlags::SYMLINK_NOFOLLOW)
}

/// Sets permission bits of an open file or folder.
pub fn set_mode_fd(fd: impl AsFd, mode: u32) -> Result<()> {
    rustix::fs::fchmod(fd, Mode::from_raw_mode(mode))
}

/// What the file system of `fd` has free.
pub struct Free {
    /// Bytes free: `u64::MAX` for one that reports no size at all (ramfs, some FUSE file
    /// systems), whose free space is not known, and for one mounted read-only, where nothing
    /// is written whatever the space (a squashfs has none free: a copy onto it was refused
    /// for space, not for the read-only file system the writes then say it is).
    pub bytes: u64,
    /// Its block size.
    pub block: u64,
    /// Files, folders and links it can still make; `None` where it sets no bound (btrfs
    /// reports no inode counts) or is read-only.
    pub inodes: Option<u64>,
}

/// What the file system of `fd` has free, for the user the job runs as: root may write into
/// the blocks and inodes kept for it (ext4's reserved 5%), as `cp` run by root does.
pub fn free_of(fd: impl AsFd) -> Result<Free> {
    let st = rustix::fs::fstatvfs(fd)?;
    let read_only = st.f_flag.contains(rustix::fs::StatVfsMountFlags::RDONLY);
    let root = rustix::process::geteuid().is_root();
    let inodes = (st.f_files > 0 && !read_only).then_some(match root {
        true => st.f_ffree,
        false => st.f_favail,
    });
    if st.f_blocks == 0 || read_only {
        return Ok(Free {
            bytes: u64::MAX,
            block: st.f_frsize,
            inodes,
        });
    }
    let free = match root {
        true => st.f_bfree,
        false => st.f_bavail,
    };
    Ok(Free {
        bytes: free.saturating_mul(st.f_frsize),
        block: st.f_frsize,
        inodes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_is_kept_as_itself_or_cut_to_a_coarser_step_and_nothing_else() {
        let t = |sec, nsec| Timestamp { sec, nsec };
        let source = t(1_715_000_011, 123_456_789);
        for (held, why) in [
            (source, "a file system with nanoseconds"),
            (t(1_715_000_011, 123_456_700), "NTFS: 100 ns"),
            (t(1_715_000_011, 120_000_000), "exFAT: 10 ms"),
            (t(1_715_000_011, 0), "whole seconds"),
            (t(1_715_000_010, 0), "FAT: even seconds"),
        ] {
            assert!(source.kept_as(held), "{why}");
            assert!(!source.newer_than_held(held), "{why}");
        }
        for (held, why) in [
            (t(1_715_000_012, 0), "a later second"),
            (t(1_715_000_009, 0), "two seconds before"),
            (t(1_715_000_011, 123_456_790), "a later nanosecond"),
            (t(1_715_000_011, 130_000_000), "a later 10 ms"),
            (
                t(1_715_000_011, 23_456_789),
                "100 ms before, to the nanosecond",
            ),
            (t(1_715_000_010, 500_000_000), "not a whole second"),
        ] {
            assert!(!source.kept_as(held), "{why}");
        }
        assert!(t(1_715_000_014, 1).newer_than_held(t(1_715_000_012, 0)));
        // An odd second is not FAT's.
        assert!(!t(1_715_000_012, 5).kept_as(t(1_715_000_011, 0)));
    }

    #[test]
    fn a_final_slash_after_a_link_says_why_it_leads_to_no_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = open_dir_path(tmp.path()).unwrap();
        std::fs::create_dir(tmp.path().join("folder")).unwrap();
        std::fs::write(tmp.path().join("file"), "f").unwrap();
        for (name, target) in [
            ("to-folder", "folder"),
            ("to-file", "file"),
            ("loop", "loop"),
            ("dangling", "nowhere"),
        ] {
            std::os::unix::fs::symlink(target, tmp.path().join(name)).unwrap();
        }
        let check = |name: &str| {
            let path = tmp.path().join(format!("{name}/"));
            let meta = stat_at(&dir, OsStr::new(name)).unwrap();
            check_final_slash(&path, &meta, &dir, OsStr::new(name))
        };
        assert_eq!(check("folder"), Ok(()));
        assert_eq!(check("to-folder"), Ok(()));
        assert_eq!(check("file"), Err(Errno::NOTDIR));
        assert_eq!(check("to-file"), Err(Errno::NOTDIR));
        assert_eq!(check("loop"), Err(Errno::LOOP));
        assert_eq!(check("dangling"), Err(Errno::NOENT));
    }

    #[test]
    fn ancestors_end_at_root_and_include_self() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("a/b")).unwrap();
        let fd = open_dir_path(&tmp.path().join("a/b")).unwrap();
        let ids = ancestors(&fd).unwrap();
        assert_eq!(ids[0], stat_path(&tmp.path().join("a/b")).unwrap().id);
        assert_eq!(ids[1], stat_path(&tmp.path().join("a")).unwrap().id);
        assert_eq!(*ids.last().unwrap(), stat_path(Path::new("/")).unwrap().id);
    }

    #[test]
    fn rename_noreplace_never_clobbers() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("a"), "a").unwrap();
        std::fs::write(tmp.path().join("b"), "b").unwrap();
        let fd = open_dir_path(tmp.path()).unwrap();
        let err = rename_noreplace(&fd, OsStr::new("a"), &fd, OsStr::new("b")).unwrap_err();
        assert_eq!(err, Errno::EXIST);
        assert_eq!(std::fs::read(tmp.path().join("b")).unwrap(), b"b");
        rename_noreplace(&fd, OsStr::new("a"), &fd, OsStr::new("c")).unwrap();
        assert_eq!(std::fs::read(tmp.path().join("c")).unwrap(), b"a");
    }

    #[test]
    fn read_dir_lists_names_as_bytes() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join(OsStr::from_bytes(b"x\xff")), "").unwrap();
        std::fs::create_dir(tmp.path().join("d")).unwrap();
        let fd = open_dir_path(tmp.path()).unwrap();
        let mut seen = Vec::new();
        read_dir(&fd, &mut Vec::new(), |name, t| {
            seen.push((name.as_bytes().to_vec(), Kind::from_file_type(t)));
            Ok(())
        })
        .unwrap();
        seen.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(
            seen,
            vec![(b"d".to_vec(), Kind::Dir), (b"x\xff".to_vec(), Kind::File)]
        );
    }
}
