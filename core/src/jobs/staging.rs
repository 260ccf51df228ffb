//! Where replaced items go: a staging folder on the destination's file system, so that
//! Replace is a rename (never a copy, never a delete) and can be undone.
//!
//! The folder is chosen the way the freedesktop trash chooses its trash folder, so that
//! nothing unexpected shows up among the user's own files:
//!
//! 1. `$XDG_DATA_HOME/ferry/replaced` (`~/.local/share/ferry/replaced`), when the destination
//!    is on the same mount as it: the usual case, files under the home folder;
//! 2. else `.ferry-replaced-<uid>` at the root of the destination's mount (like
//!    `.Trash-<uid>`), when it can be created there: removable drives, other partitions (at
//!    the top of a btrfs subvolume inside the mount, which has a device of its own);
//! 3. else `.ferry-replaced-<uid>` in the job's destination folder: a mount whose root the
//!    user cannot write to.
//!
//! Each is on the destination's mount, so moving an item there is one `rename`. Each is
//! created 0700 and must be a folder owned by us, never a symlink. Each staged item is named
//! `<unix seconds>-<pid>-<job>-<n>`; the journal keeps its original path once the job ends.
//! An item staged by a journaled job (a copy or move, or its resume) is named
//! `<unix seconds>-<pid>-<job>-<n>-r<record>-<hash>`, `hash` being FNV-1a of the path it was
//! at: a job killed before its end is recorded leaves no list of what it staged, so its roll
//! back finds the items of its record this way ([`kept_for`]) and puts each back where a path
//! of the job hashes to it. The rename into the staging folder is itself the record: no
//! extra write, nothing to keep in step after a crash.
//! [`StagingRoots::from_env`] is the user's choice; tests point it at a temporary folder.
//!
//! Staging is bounded: [`UndoJournal::start_up`](super::UndoJournal::start_up), at start
//! (at most every ten minutes: it walks everything staged, see `journal/start_up.rs`), applies [`prune_staging`] with [`STAGING_MAX_AGE`] and [`STAGING_MAX_BYTES`] to the
//! folders its records name and to the user's own (the data folder's and those at the root of
//! each local file system), which an interrupted job, a record fallen out of the journal or
//! an undo that replaced something leaves unnamed (sparing what was staged in the last
//! [`STAGING_GRACE`]). Undoing a
//! Replace whose old item was pruned reports that item as failed (not found) and puts back
//! the rest.

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::Mode;
use rustix::io::Errno;

use super::journal::JournalRecord;
use crate::entry::Kind;
use crate::error::Error;
use crate::fs;

/// Replaced items older than this are removed by pruning (a week: long enough to notice a
/// mistake, short enough not to hoard).
pub const STAGING_MAX_AGE: Duration = Duration::from_secs(7 * 24 * 3600);

/// Pruning removes the oldest replaced items until a staging folder holds at most this
/// (1 GiB).
pub const STAGING_MAX_BYTES: u64 = 1 << 30;

/// Pruning for size spares what was staged less than this ago (an hour).
pub const STAGING_GRACE: Duration = Duration::from_secs(3600);

/// Where Replace may keep the items it replaces (see the module docs for the order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StagingRoots {
    /// The staging folder for destinations on its mount, `$XDG_DATA_HOME/ferry/replaced`
    /// (`None`: the home folder is unknown).
    pub home: Option<PathBuf>,
    /// Whether `.ferry-replaced-<uid>` at the root of other mounts may be used; if not,
    /// items not on the home folder's mount are kept in the destination folder.
    pub volumes: bool,
}

impl StagingRoots {
    /// The user's: `$XDG_DATA_HOME/ferry/replaced` (or `~/.local/share/ferry/replaced`) and
    /// the root of every other mount.
    pub fn from_env() -> Self {
        let home =
            directories::BaseDirs::new().map(|d| d.data_local_dir().join("ferry").join("replaced"));
        StagingRoots {
            home,
            volumes: true,
        }
    }

    /// Only the staging folder `home` (created if needed), else the destination folder:
    /// nothing is written at a mount's root.
    pub fn home_only(home: impl Into<PathBuf>) -> Self {
        StagingRoots {
            home: Some(home.into()),
            volumes: false,
        }
    }
}

/// A job's staging folder, open.
pub(crate) struct Staging {
    fd: Arc<OwnedFd>,
    path: PathBuf,
    prefix: String,
    next: AtomicU64,
    /// The journal record of the job, if it is journaled.
    record: Option<u64>,
}

/// Name of the staging folder at a mount's root or in a destination folder, for the
/// current user.
pub fn staging_folder_name() -> String {
    format!(".ferry-replaced-{}", rustix::process::geteuid().as_raw())
}

impl Staging {
    /// Opens (creating if needed) the staging folder for job `job` (journaled as `record`, if
    /// it is) writing into `dest`, whose mount is at `mount_point` (if known).
    pub(crate) fn open(
        job: u64,
        record: Option<u64>,
        roots: &StagingRoots,
        mount_point: Option<&Path>,
        dest: &Path,
        dest_fd: &OwnedFd,
    ) -> Result<Staging, Error> {
        let name = staging_folder_name();
        let in_home = roots
            .home
            .as_deref()
            .and_then(|home| Some((open_home(home, dest_fd)?, home.to_path_buf())));
        let at_root = || {
            let m = mount_point.filter(|_| roots.volumes)?;
            let dest_meta = fs::stat_fd(dest_fd).ok()?;
            // A btrfs subvolume has a device of its own inside its mount, and rename fails
            // across it (EXDEV): the top of the subvolume then, the highest folder above the
            // destination on its device.
            let top = match fs::stat_path(m) {
                Ok(root) if root.id.dev == dest_meta.id.dev => m.to_path_buf(),
                _ => top_of_device(dest, dest_meta.id.dev)?,
            };
            let fd = fs::open_dir_path(&top).ok()?;
            let fd = open_or_create(&fd, OsStr::new(&name)).ok()?;
            let meta = fs::stat_fd(&fd).ok()?;
            (meta.id.dev == dest_meta.id.dev && meta.mnt_id == dest_meta.mnt_id)
                .then(|| (fd, top.join(&name)))
        };
        let (fd, path) = match in_home.or_else(at_root) {
            Some(found) => found,
            None => {
                let fd = open_or_create(dest_fd, OsStr::new(&name))
                    .map_err(|e| Error::io("create the staging folder", dest.join(&name), e))?;
                (fd, dest.join(&name))
            }
        };
        let secs = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        Ok(Staging {
            fd: Arc::new(fd),
            path,
            prefix: format!("{secs}-{}-{job}-", std::process::id()),
            next: AtomicU64::new(0),
            record,
        })
    }

    /// Moves `name` out of `dir` (whose path is `original`) into the staging folder; returns
    /// where it went.
    pub(crate) fn stash(
        &self,
        dir: impl AsFd,
        name: &OsStr,
        original: &Path,
    ) -> rustix::io::Result<PathBuf> {
        loop {
            let n = self.next.fetch_add(1, Relaxed);
            let staged = match self.record {
                Some(seq) => format!("{}{n}-r{seq}-{:016x}", self.prefix, path_hash(original)),
                None => format!("{}{n}", self.prefix),
            };
            match fs::rename_noreplace(&dir, name, &*self.fd, OsStr::new(&staged)) {
                Ok(()) => return Ok(self.path.join(staged)),
                Err(Errno::EXIST) => {} // a name from a crashed run with our pid: next one
                Err(e) => return Err(e),
            }
        }
    }

    /// Puts a stashed item back (its replacement could not be put in place).
    pub(crate) fn unstash(
        &self,
        staged: &Path,
        dir: impl AsFd,
        name: &OsStr,
    ) -> rustix::io::Result<()> {
        let file = staged.file_name().unwrap_or_default();
        fs::rename_noreplace(&*self.fd, file, dir, name)
    }
}

/// Puts the item `staged` back beside `place`, which is taken, under a keep-both name (as
/// "doc (copy).txt"): where it can be seen, rather than left in the staging folder. Returns
/// where it went.
pub(crate) fn put_back_beside(staged: &Path, place: &Path) -> Option<PathBuf> {
    let (dir, name) = place.parent().zip(place.file_name())?;
    let folder = std::fs::symlink_metadata(staged).is_ok_and(|m| m.is_dir());
    let rules = super::names::NameRules::of(dir).ok()?;
    let free = super::names::free_name(dir, &rules, name, folder).ok()?;
    let beside = dir.join(free);
    fs::rename_noreplace_path(staged, &beside).ok()?;
    Some(beside)
}

/// Removes `folder` when it is a `.ferry-replaced-<uid>` folder (at a mount's root or in a
/// destination folder, among the user's own files) left empty: an undo that put back the
/// last item kept there left it behind on a USB stick's root. The data folder's own staging
/// folder stays. Only ever an empty folder: `rmdir` refuses any other.
pub(crate) fn remove_if_emptied(folder: &Path) {
    if folder.file_name() == Some(OsStr::new(&staging_folder_name())) {
        let _ = std::fs::remove_dir(folder);
    }
}

/// The user's staging folders that exist: the data folder's ([`StagingRoots::from_env`]) and
/// `.ferry-replaced-<uid>` at the root of each mounted file system, except where looking may
/// hang ([`fs::Mount::may_hang`]). Pruned at start (see `journal/start_up.rs`), so that what
/// was kept there is bounded even when no journal record names the folder any more.
pub(crate) fn user_folders() -> Vec<PathBuf> {
    let name = staging_folder_name();
    let roots = fs::MountTable::read();
    let at_roots = roots
        .mounts()
        .iter()
        .filter(|m| !m.may_hang())
        .map(|m| m.mount_point.join(&name));
    let mut folders: Vec<PathBuf> = StagingRoots::from_env()
        .home
        .into_iter()
        .chain(at_roots)
        .collect();
    folders.retain(|dir| std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir()));
    folders.sort();
    folders.dedup();
    folders
}

/// FNV-1a of a path made absolute as the journal stores it (the job may have been given a
/// relative one), component by component: names a staged item after the path it was at.
pub(crate) fn path_hash(path: &Path) -> u64 {
    let absolute = std::path::absolute(path);
    let path = absolute.as_deref().unwrap_or(path);
    let bytes = path
        .components()
        .flat_map(|c| c.as_os_str().as_bytes().iter().chain(b"/"));
    bytes.fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The items staged by the job of `record` (by its processes: the first run and each
/// resume), since it started, in the staging folders `roots` give a job writing into
/// `dest_dir`: by the [`path_hash`] of the path each was at, oldest first. The process
/// matters: another journal of the same user (another `XDG_STATE_HOME`) stages into the same
/// folder of a volume with record numbers of its own.
pub(crate) fn kept_for(
    record: &JournalRecord,
    roots: &StagingRoots,
    dest_dir: &Path,
) -> HashMap<u64, Vec<PathBuf>> {
    let since = u64::try_from(record.started_secs()).unwrap_or(0);
    kept_by((record.seq, &record.pids), since, roots, dest_dir)
}

/// [`kept_for`] the record `seq` run by `pids`, from `since` (unix seconds).
fn kept_by(
    (seq, pids): (u64, &[u32]),
    since: u64,
    roots: &StagingRoots,
    dest_dir: &Path,
) -> HashMap<u64, Vec<PathBuf>> {
    let name = staging_folder_name();
    let mut folders: Vec<PathBuf> = roots.home.iter().cloned().collect();
    if roots.volumes
        && let Ok(meta) = fs::stat_path(dest_dir)
        && let Some(mount) = fs::MountTable::read().by_id(meta.mnt_id)
    {
        folders.push(mount.mount_point.join(&name));
    }
    folders.push(dest_dir.join(&name));
    folders.dedup();
    let mut found = Vec::new();
    for folder in folders {
        let Ok(Some(fd)) = open_ours(&folder) else {
            continue;
        };
        let _ = fs::read_dir(&fd, &mut Vec::new(), |name, _| {
            if let Some((order, Some((record, hash)))) = name.to_str().and_then(staged_fields)
                && record == seq
                && order[0] >= since
                && u32::try_from(order[1]).is_ok_and(|pid| pids.contains(&pid))
            {
                found.push((order, hash, folder.join(name)));
            }
            Ok(())
        });
    }
    found.sort();
    let mut kept: HashMap<u64, Vec<PathBuf>> = HashMap::new();
    for (_, hash, path) in found {
        kept.entry(hash).or_default().push(path);
    }
    kept
}

/// No item was staged before this (unix seconds, 2001): a name of Ferry's form dated before is
/// someone else's.
const STAGED_SINCE: u64 = 1_000_000_000;

/// The record of a journaled job's staged item, and the hash of the path it was at.
type RecordAndHash = (u64, u64);

/// The fields of a name Ferry gives a staged item ([`Staging::stash`]), `<secs>-<pid>-<job>-<n>`
/// and, for a journaled job's, `-r<record>-<hash>`: the first four (the order items were
/// staged in), and the record and hash.
fn staged_fields(name: &str) -> Option<([u64; 4], Option<RecordAndHash>)> {
    let fields: Vec<&str> = name.split('-').collect();
    let (first, journaled) = match fields[..] {
        [secs, pid, job, n] => ([secs, pid, job, n], None),
        [secs, pid, job, n, record, hash] => ([secs, pid, job, n], Some((record, hash))),
        _ => return None,
    };
    let mut order = [0; 4];
    for (slot, field) in order.iter_mut().zip(first) {
        *slot = field.parse().ok()?;
    }
    let journaled = match journaled {
        None => None,
        Some((record, hash)) => Some((
            record.strip_prefix('r')?.parse().ok()?,
            u64::from_str_radix(hash, 16).ok()?,
        )),
    };
    Some((order, journaled))
}

/// The staging folder at `dir`, opened, if it is ours (never through a symbolic link);
/// `None` if there is none, or another user's (one may make `.ferry-replaced-<uid>` where
/// anyone may write, `/dev/shm`, and put in it what they like).
fn open_ours(dir: &Path) -> Result<Option<OwnedFd>, Error> {
    let folder = match fs::open_dir_at(rustix::fs::CWD, dir) {
        Ok(fd) => fd,
        Err(Errno::NOENT) => return Ok(None),
        Err(e) => return Err(Error::io("open", dir, e)),
    };
    let meta = fs::stat_fd(&folder).map_err(|e| Error::io("stat", dir, e))?;
    // Ferry makes it 0700: a folder of the user's own that others may enter (one swapped in
    // for it, where another user may rename what is in a folder of theirs) is not it.
    let ours = meta.uid == rustix::process::geteuid().as_raw() && meta.mode & 0o077 == 0;
    Ok(ours.then_some(folder))
}

/// The home staging folder `home`, if it is (or would be) on the mount of `dest_fd`.
fn open_home(home: &Path, dest_fd: &OwnedFd) -> Option<OwnedFd> {
    let dest = fs::stat_fd(dest_fd).ok()?;
    // Nothing is created unless the nearest existing ancestor is on the right device.
    let existing = home.ancestors().find(|a| a.symlink_metadata().is_ok())?;
    if fs::stat_path(existing).ok()?.id.dev != dest.id.dev {
        return None;
    }
    let (parent, name) = (home.parent()?, home.file_name()?);
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(parent)
        .ok()?;
    let fd = open_or_create(fs::open_dir_path(parent).ok()?, name).ok()?;
    // One device may be mounted twice (bind mounts): rename needs the same mount.
    let meta = fs::stat_fd(&fd).ok()?;
    (meta.id.dev == dest.id.dev && meta.mnt_id == dest.mnt_id).then_some(fd)
}

/// The highest folder of `dest` and the folders above it that is on device `dev`: the top
/// of a btrfs subvolume inside its mount.
fn top_of_device(dest: &Path, dev: u64) -> Option<PathBuf> {
    dest.ancestors()
        .take_while(|a| fs::stat_path(a).is_ok_and(|m| m.id.dev == dev))
        .last()
        .map(Path::to_path_buf)
}

fn open_or_create(parent: impl AsFd, name: &OsStr) -> rustix::io::Result<OwnedFd> {
    match rustix::fs::mkdirat(&parent, name, Mode::from_raw_mode(0o700)) {
        Ok(()) | Err(Errno::EXIST) => {}
        Err(e) => return Err(e),
    }
    let fd = fs::open_dir_at(&parent, name)?; // never through a symlink
    let meta = fs::stat_fd(&fd)?;
    if meta.kind != Kind::Dir || meta.uid != rustix::process::geteuid().as_raw() {
        return Err(Errno::PERM);
    }
    // Writable by us? A read-only mount root is refused here, not at the first stash.
    rustix::fs::accessat(
        &fd,
        ".",
        rustix::fs::Access::WRITE_OK,
        rustix::fs::AtFlags::empty(),
    )?;
    Ok(fd)
}

/// What [`prune_staging`] removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Staged items removed.
    pub items: u64,
    /// Their apparent size in bytes.
    pub bytes: u64,
}

/// Bounds the staging folder `dir`: removes staged items as old as `max_age` or older, then
/// the oldest ones until the rest takes at most `max_bytes`, but never for size one staged
/// less than [`STAGING_GRACE`] (or `max_age`, if shorter) ago: a large file replaced a
/// moment ago, perhaps by another Ferry process, can still be put back. Items are dated by
/// their name (the time they were staged). A missing folder is nothing to do. Items staged
/// by the records `spared` (jobs still running or interrupted) are left whatever their age.
///
/// Only a folder of ours is pruned, and in it only the names Ferry gives, through its
/// descriptor: a `.ferry-replaced-<uid>` at the root of a disk anyone may write to (`/dev/shm`)
/// can be made by another user, who could fill it with anything, or swap a link to the
/// user's own files in for it while it is pruned.
pub fn prune_staging(
    dir: &Path,
    max_age: Duration,
    max_bytes: u64,
    spared: &HashSet<u64>,
) -> Result<Pruned, Error> {
    let Some(folder) = open_ours(dir)? else {
        return Ok(Pruned::default());
    };
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let mut names = Vec::new();
    fs::read_dir(&folder, &mut Vec::new(), |name, _| {
        // Staged since 2001, by a process: `2025-06-30-1` is a dated name, not one of ours.
        if let Some((order, record)) = name.to_str().and_then(staged_fields)
            && order[0] >= STAGED_SINCE
            && order[1] > 0
            && record.is_none_or(|(seq, _)| !spared.contains(&seq))
        {
            names.push((order[0], name.to_os_string()));
        }
        Ok(())
    })
    .map_err(|e| Error::io("read folder", dir, e))?;
    let mut items = Vec::new();
    for (staged_at, name) in names {
        let size = fs::tree_size_at(&folder, &name).unwrap_or(0);
        items.push((staged_at, name, size));
    }
    items.sort();
    let grace = max_age.min(STAGING_GRACE).as_secs();
    let mut total: u64 = items.iter().map(|i| i.2).sum();
    let mut pruned = Pruned::default();
    for (staged_at, name, size) in items {
        let age = now.saturating_sub(staged_at);
        let expired = age >= max_age.as_secs();
        // Oldest first: once one is spared, every later one is too.
        if !expired && (total <= max_bytes || age < grace) {
            break;
        }
        match fs::remove_tree_at(&folder, &name) {
            Ok(()) | Err(Errno::NOENT) => {}
            Err(e) => return Err(Error::io("remove", dir.join(&name), e)),
        }
        total -= size;
        pruned.items += 1;
        pruned.bytes += size;
    }
    Ok(pruned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_hashes_alike_however_it_was_given() {
        let cwd = std::env::current_dir().unwrap();
        let h = path_hash(&cwd.join("dest/doc.txt"));
        assert_eq!(path_hash(Path::new("dest/doc.txt")), h);
        assert_eq!(path_hash(Path::new("./dest//doc.txt")), h);
        assert_ne!(path_hash(Path::new("dest/doc.txt2")), h);
        assert_ne!(
            path_hash(Path::new("dest/doc/txt")),
            path_hash(Path::new("dest/doctxt"))
        );
    }

    /// Only the items of the record asked for, staged since its run began, oldest first.
    #[test]
    fn the_items_of_a_record_are_found_by_record_and_time() {
        let dir = tempfile::tempdir().unwrap();
        let dest = dir.path().join("dest");
        let folder = dest.join(staging_folder_name());
        std::fs::create_dir_all(&folder).unwrap();
        let private = std::os::unix::fs::PermissionsExt::from_mode(0o700);
        std::fs::set_permissions(&folder, private).unwrap();
        let h = path_hash(&dest.join("a"));
        for name in [
            format!("200-9-1-1-r7-{h:016x}"),
            format!("100-9-1-0-r7-{h:016x}"),
            format!("150-9-1-0-r8-{h:016x}"),
            format!("50-9-1-0-r7-{h:016x}"),
            "120-9-1-3".to_owned(),
        ] {
            std::fs::write(folder.join(name), "x").unwrap();
        }
        let roots = StagingRoots {
            home: None,
            volumes: false,
        };
        let kept = kept_by((7, &[9]), 100, &roots, &dest);
        assert!(
            kept_by((7, &[10]), 100, &roots, &dest).is_empty(),
            "another process's"
        );
        assert_eq!(kept.len(), 1);
        assert_eq!(
            kept[&h],
            [
                folder.join(format!("100-9-1-0-r7-{h:016x}")),
                folder.join(format!("200-9-1-1-r7-{h:016x}"))
            ]
        );
    }

    /// Another user may make `.ferry-replaced-<uid>` where anyone may write (`/dev/shm`), and
    /// put in it what they like: the user's own `ferry history` removed it all, a folder named
    /// like the user's `Documents` first (swapped meanwhile for a link to the real one, it
    /// went through the link). Only the user's folder is pruned, private as Ferry makes it
    /// (a folder of theirs that others may enter, swapped in for it, was pruned too), and in
    /// it only the names Ferry gives (`2025-06-30-1`, dated, read as staged in 1970).
    #[test]
    fn pruning_leaves_another_users_folder_and_names_ferry_did_not_give() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join(staging_folder_name());
        for name in [
            "Documents",
            "1-1-1-0-x",
            "2025-06-30-1",
            "1000000010-1-1-0",
            "1000000010-1-1-1-r3-00000000000000ff",
        ] {
            std::fs::create_dir_all(folder.join(name)).unwrap();
            std::fs::write(folder.join(name).join("f"), "x").unwrap();
        }
        let private = |mode| std::fs::Permissions::from_mode(mode);
        std::fs::set_permissions(&folder, private(0o755)).unwrap();
        let p = prune_staging(&folder, Duration::ZERO, 0, &HashSet::new()).unwrap();
        assert_eq!(p, Pruned::default(), "a folder others may enter");
        std::fs::set_permissions(&folder, private(0o700)).unwrap();
        let names = |folder: &Path| {
            let mut n: Vec<String> = std::fs::read_dir(folder)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            n.sort();
            n
        };
        if rustix::process::geteuid().is_root() {
            let nobody = Some(rustix::fs::Uid::from_raw(65534));
            rustix::fs::chown(&folder, nobody, None).unwrap();
            let p = prune_staging(&folder, Duration::ZERO, 0, &HashSet::new()).unwrap();
            assert_eq!(p, Pruned::default(), "another user's folder");
            assert_eq!(names(&folder).len(), 5);
            rustix::fs::chown(&folder, Some(rustix::process::geteuid()), None).unwrap();
        }
        let p = prune_staging(&folder, Duration::ZERO, 0, &HashSet::new()).unwrap();
        assert_eq!(p.items, 2);
        assert_eq!(names(&folder), ["1-1-1-0-x", "2025-06-30-1", "Documents"]);
    }

    /// A Replace killed after staging the old file leaves it only in the staging folder:
    /// pruning it, however old, lost the user's file before its job was resumed or rolled
    /// back.
    #[test]
    fn pruning_spares_what_an_unresolved_record_staged() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join(staging_folder_name());
        std::fs::create_dir(&folder).unwrap();
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700)).unwrap();
        let names = [
            "1000000010-1-3-0-r3-00000000000000ff",
            "1000000010-1-4-0-r4-00000000000000ff",
        ];
        for name in names {
            std::fs::write(folder.join(name), "x").unwrap();
        }
        let p = prune_staging(&folder, Duration::ZERO, 0, &HashSet::from([3])).unwrap();
        assert_eq!(p.items, 1);
        assert!(folder.join(names[0]).exists() && !folder.join(names[1]).exists());
    }

    #[test]
    fn pruning_drops_old_items_then_the_oldest_over_the_size_bound() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("ferry-prune-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("1000000200-1-1-0")).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700)).unwrap();
        std::fs::write(dir.join("1000000200-1-1-0/inner"), [0u8; 100]).unwrap();
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs();
        let hours_ago = |h: u64| format!("{}-1-{h}-0", now - h * 3600);
        std::fs::write(dir.join(hours_ago(3)), [0u8; 300]).unwrap();
        std::fs::write(dir.join(hours_ago(2)), [0u8; 300]).unwrap();
        std::fs::write(dir.join(format!("{now}-1-0-0")), [0u8; 300]).unwrap();
        let day = Duration::from_secs(86_400);
        let p = prune_staging(&dir, day, 1 << 20, &HashSet::new()).unwrap();
        assert_eq!(
            p,
            Pruned {
                items: 1,
                bytes: 100
            }
        );
        // Down to 400 bytes: both older items go; the one just staged stays, over the bound.
        let p = prune_staging(&dir, day, 400, &HashSet::new()).unwrap();
        assert_eq!(
            p,
            Pruned {
                items: 2,
                bytes: 600
            }
        );
        assert!(dir.join(format!("{now}-1-0-0")).exists());
        // A zero age bound takes everything.
        let p = prune_staging(&dir, Duration::ZERO, 1 << 20, &HashSet::new()).unwrap();
        assert_eq!(p.items, 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
