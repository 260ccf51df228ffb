//! Trash folders at the top of a btrfs subvolume that is not a mount point.
//!
//! A subvolume made below a mount point (`btrfs subvolume create ~/projects`, a container
//! store) has a device of its own, and `rename(2)` cannot take an item out of it (`EXDEV`):
//! neither the home trash nor the trash at the top of the mount can take its items. GLib
//! (`g_file_trash`) then uses the trash at the top of the part of the file system the item's
//! folder is in, found by walking up while the device stays the same; Ferry does the same.
//!
//! The mount table does not list such a top, so listing and emptying the trash would not
//! find its trash folder: each top used is remembered in a small file beside the home trash
//! (`$XDG_DATA_HOME/ferry/trash-tops`, paths separated by NUL bytes, appended to), and
//! [`trash_dirs`](super::trash_dirs) looks there too. A top whose trash folder is gone
//! (the subvolume deleted) is skipped as any missing trash folder is.

use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::TrashRoots;

/// The highest folder from `dir` (absolute, without links) up to `mount_point` that has
/// device `dev`: `mount_point` unless a subvolume's top lies in between. `None` when `dir`
/// is not below `mount_point` or an ancestor cannot be read (the mount point is used).
pub(super) fn top_of(dir: &Path, dev: u64, mount_point: &Path) -> Option<PathBuf> {
    if !dir.starts_with(mount_point) {
        return None;
    }
    let mut top = dir;
    while top != mount_point {
        let up = top.parent()?;
        if std::fs::symlink_metadata(up).ok()?.dev() != dev {
            break;
        }
        top = up;
    }
    Some(top.to_path_buf())
}

/// The file of remembered tops for `roots`: beside the home trash, in Ferry's own folder.
fn file_of(roots: &TrashRoots) -> Option<PathBuf> {
    Some(roots.home.parent()?.join("ferry").join("trash-tops"))
}

/// The subvolume tops whose trash folders Ferry has used, in the order first used.
pub(super) fn remembered(roots: &TrashRoots) -> Vec<PathBuf> {
    let Some(file) = file_of(roots) else {
        return Vec::new();
    };
    let Ok(bytes) = std::fs::read(file) else {
        return Vec::new();
    };
    let mut tops: Vec<PathBuf> = Vec::new();
    for raw in bytes
        .split(|&b| b == 0)
        .filter(|p| p.first() == Some(&b'/'))
    {
        let top = PathBuf::from(std::ffi::OsStr::from_bytes(raw));
        if !tops.contains(&top) {
            tops.push(top);
        }
    }
    tops
}

/// Remembers `top` for listing and emptying, if it is not yet. Two processes remembering at
/// once may write it twice, which reading folds into one.
pub(super) fn remember(roots: &TrashRoots, top: &Path) -> std::io::Result<()> {
    if remembered(roots).iter().any(|t| t == top) {
        return Ok(());
    }
    let file = file_of(roots).ok_or(std::io::ErrorKind::InvalidInput)?;
    if let Some(folder) = file.parent() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(folder)?;
    }
    let mut entry = top.as_os_str().as_bytes().to_vec();
    entry.push(0);
    // One write in append mode: a reader never sees half of another's path.
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&file)?
        .write_all(&entry)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobs::Volumes;

    #[test]
    fn the_top_is_the_mount_point_on_one_device_and_stops_at_it() {
        let tree = tempfile::tempdir().unwrap();
        let deep = tree.path().join("a/b/c");
        std::fs::create_dir_all(&deep).unwrap();
        let dev = std::fs::metadata(&deep).unwrap().dev();
        let mount_point = tree.path().join("a");
        assert_eq!(top_of(&deep, dev, &mount_point), Some(mount_point.clone()));
        assert_eq!(top_of(&mount_point, dev, &mount_point), Some(mount_point));
        assert_eq!(top_of(tree.path(), dev, &deep), None);
        // A device other than the folders': the walk stops at once.
        assert_eq!(top_of(&deep, dev + 1, tree.path()), Some(deep));
    }

    #[test]
    fn tops_are_remembered_once_each_and_kept_as_bytes() {
        let tree = tempfile::tempdir().unwrap();
        let roots = TrashRoots {
            home: tree.path().join("data/Trash"),
            volumes: Volumes::All,
        };
        assert!(remembered(&roots).is_empty());
        let odd = PathBuf::from(std::ffi::OsStr::from_bytes(b"/srv/caf\xe9\nx"));
        for top in [Path::new("/srv/a"), &odd, Path::new("/srv/a")] {
            remember(&roots, top).unwrap();
        }
        assert_eq!(remembered(&roots), vec![PathBuf::from("/srv/a"), odd]);
        let file = tree.path().join("data/ferry/trash-tops");
        assert_eq!(std::fs::metadata(&file).unwrap().mode() & 0o777, 0o600);
    }
}
