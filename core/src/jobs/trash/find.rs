//! Finding the user's trash folders: the home trash, and each disk's (and each btrfs
//! subvolume's where Ferry trashed something), for listing and emptying.

use std::path::{Path, PathBuf};

use super::folder::volume_trash_name;
use super::{TrashRoots, Volumes, subvolumes};
use crate::fs::MountTable;

/// Every existing trash folder of `roots` (the home trash first).
pub(super) fn trash_dirs(roots: &TrashRoots) -> Vec<PathBuf> {
    let uid = rustix::process::getuid().as_raw();
    let home = roots.home_followed();
    let mut seen = std::collections::HashSet::new();
    if let Ok(m) = std::fs::symlink_metadata(&home) {
        use std::os::unix::fs::MetadataExt;
        seen.insert((m.dev(), m.ino()));
    }
    let mut dirs = vec![home];
    // Tops of disks that may stop answering (network, FUSE), and the others.
    let tops: Vec<(PathBuf, bool)> = match &roots.volumes {
        Volumes::All => MountTable::read()
            .mounts()
            .iter()
            // Looking into an automount point would mount it.
            .filter(|m| m.fs_type != "autofs")
            .map(|m| (m.mount_point.clone(), m.may_hang()))
            .collect(),
        Volumes::Only(tops) => tops.iter().map(|t| (t.clone(), false)).collect(),
    };
    let subvolume_tops = subvolumes::remembered(roots)
        .into_iter()
        .filter(|top| tops.iter().any(|(mount, _)| top.starts_with(mount)))
        .map(|top| (top, false));
    let tops: Vec<(PathBuf, bool)> = tops.iter().cloned().chain(subvolume_tops).collect();
    // A disk that may hang is looked at on a thread of its own, for at most TOPS_TIMEOUT: a
    // FUSE or network mount that stopped answering kept the Trash view "reading" for good
    // (the thread is left to finish on its own; that disk's trash is left out meanwhile).
    let (slow, local): (Vec<_>, Vec<_>) = tops.into_iter().partition(|(_, may_hang)| *may_hang);
    let jobs = (slow.into_iter())
        .map(|(top, _)| (top.clone(), move || trash_folders_at(&top, uid)))
        .collect();
    let answers = (local.iter())
        .map(|(top, _)| Some(trash_folders_at(top, uid)))
        .chain(crate::places::probe_all(jobs, TOPS_TIMEOUT));
    for (dir, id) in answers.flatten().flatten() {
        // One folder reached through two mounts (a bind mount, a btrfs subvolume mounted
        // on its own as well) is listed once: twice, its items were listed twice, and
        // restoring or emptying the second copies failed.
        if seen.insert(id) {
            dirs.push(dir);
        }
    }
    dirs
}

/// How long the trash folders of each disk are looked for (see [`trash_dirs`]).
const TOPS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(2);

/// The trash folders of user `uid` at the top of a disk, `top`, with their identities.
pub(super) fn trash_folders_at(top: &Path, uid: u32) -> Vec<(PathBuf, (u64, u64))> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let shared = top.join(".Trash");
    let valid = std::fs::symlink_metadata(&shared)
        .is_ok_and(|m| m.is_dir() && m.permissions().mode() & 0o1000 != 0);
    let mut candidates = vec![top.join(volume_trash_name(uid))];
    if valid {
        candidates.push(shared.join(uid.to_string()));
    }
    (candidates.into_iter())
        .filter_map(|dir| {
            // Another user's (made there to lock this user out) is not this user's trash.
            let m = std::fs::symlink_metadata(&dir).ok()?;
            (m.is_dir() && m.uid() == uid).then(|| (dir, (m.dev(), m.ino())))
        })
        .collect()
}
