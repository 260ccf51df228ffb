//! Deletes that deserve a second question: the home folder, a folder holding it, a mount
//! point. A delete job refuses only `/`; these are legitimate requests that are far more
//! often a slip (a variable that expanded to nothing, a selection that grew), so the window
//! asks before it submits the job and `ferry rm` wants `--force` (RELIABILITY.md, rule 16).
//!
//! A symlink given as a path is never a caution: deleting it removes the link only.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::fs;

/// Why deleting a path deserves confirmation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caution {
    /// It is the user's home folder.
    HomeFolder,
    /// It holds the user's home folder.
    HoldsHomeFolder,
    /// Another filesystem is mounted on it: deleting it deletes that filesystem's contents.
    MountPoint,
}

impl fmt::Display for Caution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Caution::HomeFolder => "it is your home folder",
            Caution::HoldsHomeFolder => "it holds your home folder",
            Caution::MountPoint => "another filesystem is mounted on it",
        })
    }
}

/// The paths among `paths` whose deletion deserves confirmation, and why; `home` is the
/// user's home folder. Paths that cannot be examined are left to the job, which reports them.
pub fn delete_cautions(paths: &[PathBuf], home: Option<&Path>) -> Vec<(PathBuf, Caution)> {
    let home = home.and_then(|h| std::fs::canonicalize(h).ok());
    paths
        .iter()
        .filter_map(|path| Some((path.clone(), caution_of(path, home.as_deref())?)))
        .collect()
}

fn caution_of(path: &Path, home: Option<&Path>) -> Option<Caution> {
    let meta = fs::stat_at(rustix::fs::CWD, path).ok()?;
    if meta.kind != crate::entry::Kind::Dir {
        return None; // a file, or a link: only itself goes
    }
    // The folder itself is not followed if it is a link (checked above), its parents are.
    let real = match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) if !parent.as_os_str().is_empty() => {
            std::fs::canonicalize(parent).ok()?.join(name)
        }
        (None, _) => PathBuf::from("/"),
        _ => std::fs::canonicalize(path).ok()?,
    };
    real.parent()?; // `/`: the job itself refuses it
    if let Some(home) = home {
        if real == home {
            return Some(Caution::HomeFolder);
        }
        if home.starts_with(&real) {
            return Some(Caution::HoldsHomeFolder);
        }
    }
    let parent = real.parent().unwrap_or(Path::new("/"));
    let parent_meta = fs::stat_path(parent).ok()?;
    (parent_meta.mnt_id != meta.mnt_id).then_some(Caution::MountPoint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_its_parents_and_mount_points_are_cautions_links_and_files_are_not() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("users/me");
        std::fs::create_dir_all(home.join("docs")).unwrap();
        std::fs::write(home.join("note"), "x").unwrap();
        std::os::unix::fs::symlink(&home, tmp.path().join("link")).unwrap();
        let paths = [
            home.clone(),
            tmp.path().join("users"),
            home.join("docs"),
            home.join("note"),
            tmp.path().join("link"),
            home.join("docs/../../me"),
            PathBuf::from("/proc"),
        ];
        let found = delete_cautions(&paths, Some(&home));
        assert_eq!(
            found,
            [
                (paths[0].clone(), Caution::HomeFolder),
                (paths[1].clone(), Caution::HoldsHomeFolder),
                (paths[5].clone(), Caution::HomeFolder),
                (paths[6].clone(), Caution::MountPoint),
            ]
        );
    }
}
