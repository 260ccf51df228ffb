//! Paths longer than the kernel takes (`PATH_MAX`, 4,096 bytes), as a job's record names the
//! items of a tree copied deeper than that: such a path is reached by opening its folders one
//! name at a time (never following a symlink) from the longest prefix the kernel still takes.
//! The folder opened last is kept, since callers go through a tree parents first: the next
//! item's folder is then one `openat` away, not a walk from the top.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::AtFlags;
use rustix::io::{Errno, Result};

use super::{Meta, open_dir_at, open_dir_path, stat_at};

/// Paths at least this long are walked to (the kernel's `PATH_MAX` counts the final NUL).
const PATH_MAX: usize = 4096;

/// Stats, opens and removes by path at any depth (see the module's doc).
#[derive(Debug, Default)]
pub struct DeepPaths {
    /// The folder opened last by walking, and its path.
    last: Option<(PathBuf, OwnedFd)>,
}

impl DeepPaths {
    /// `statx` of `path`, not following a final symlink (`lstat`).
    pub fn stat(&mut self, path: &Path) -> Result<Meta> {
        match self.parent(path)? {
            Some((dir, name)) => stat_at(dir, name),
            None => stat_at(rustix::fs::CWD, path),
        }
    }

    /// Opens the folder `path` (a final symlink is not followed).
    pub fn open_dir(&mut self, path: &Path) -> Result<OwnedFd> {
        match self.parent(path)? {
            Some((dir, name)) => open_dir_at(dir, name),
            None => open_dir_at(rustix::fs::CWD, path),
        }
    }

    /// Removes the empty folder `path`.
    pub fn remove_dir(&mut self, path: &Path) -> Result<()> {
        match self.parent(path)? {
            Some((dir, name)) => rustix::fs::unlinkat(dir, name, AtFlags::REMOVEDIR),
            None => rustix::fs::unlinkat(rustix::fs::CWD, path, AtFlags::REMOVEDIR),
        }
    }

    /// For a path too long to be used as it is: its folder, open, and its last name.
    fn parent<'p>(&mut self, path: &'p Path) -> Result<Option<(&OwnedFd, &'p OsStr)>> {
        if path.as_os_str().len() < PATH_MAX {
            return Ok(None);
        }
        let (Some(folder), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(Errno::INVAL);
        };
        let reuse = matches!(&self.last, Some((at, _)) if folder.starts_with(at));
        let (mut at, mut fd) = match self.last.take() {
            Some(last) if reuse => last,
            _ => {
                let start = prefix_within_limit(folder);
                (start.to_owned(), open_dir_path(start)?)
            }
        };
        let rest = folder
            .strip_prefix(&at)
            .map_err(|_| Errno::INVAL)?
            .to_owned();
        for component in rest.components() {
            let Component::Normal(next) = component else {
                return Err(Errno::INVAL);
            };
            fd = open_dir_at(fd.as_fd(), next)?;
            at.push(next);
        }
        let (_, fd) = self.last.insert((at, fd));
        Ok(Some((fd, name)))
    }
}

/// The longest ancestor of `folder` the kernel takes by path.
fn prefix_within_limit(folder: &Path) -> &Path {
    folder
        .ancestors()
        .find(|a| a.as_os_str().as_bytes().len() < PATH_MAX)
        .unwrap_or(Path::new("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_deeper_than_path_max_are_stated_opened_and_removed() {
        let tmp = tempfile::tempdir().unwrap();
        let name = "d".repeat(100);
        let mut path = tmp.path().to_owned();
        let mut fd = open_dir_path(&path).unwrap();
        for _ in 0..60 {
            rustix::fs::mkdirat(&fd, name.as_str(), rustix::fs::Mode::from_raw_mode(0o755))
                .unwrap();
            fd = open_dir_at(&fd, name.as_str()).unwrap();
            path.push(&name);
        }
        assert!(path.as_os_str().len() > PATH_MAX);
        assert_eq!(
            std::fs::symlink_metadata(&path).unwrap_err().raw_os_error(),
            Some(36)
        );
        let mut deep = DeepPaths::default();
        let leaf = stat_at(&fd, ".").unwrap();
        assert_eq!(deep.stat(&path).unwrap().id, leaf.id);
        // Children first, as a removal goes: each walked to again.
        let mut up = path.clone();
        let mut removed = 0;
        while up.as_os_str().len() >= PATH_MAX {
            assert!(deep.open_dir(&up).is_ok());
            deep.remove_dir(&up).unwrap();
            removed += 1;
            up.pop();
        }
        assert!(removed > 10);
        assert_eq!(deep.stat(&path), Err(Errno::NOENT));
        // A short path is used as it is.
        assert!(deep.stat(tmp.path()).is_ok());
    }
}
