//! Whole trees by descriptor, for the housekeeping that measures and removes what Ferry kept
//! (staged items): never through a symbolic link, whatever is swapped in under a path while
//! it runs, and at any depth (one descriptor a level, no path ever built).

use std::ffi::{OsStr, OsString};

use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::{AtFlags, FileType};

use super::{Result, open_dir_at, read_dir, stat_at};
use crate::entry::Kind;

/// The apparent size of `name` in `dir` and all below it.
pub fn tree_size_at(dir: impl AsFd, name: &OsStr) -> Result<u64> {
    let mut size = 0;
    walk_at(
        dir,
        name,
        &mut |folder, name, is_dir| {
            if !is_dir {
                size += stat_at(folder, name)?.size;
            }
            Ok(())
        },
        &mut |_, _| Ok(()),
    )?;
    Ok(size)
}

/// Removes `name` in `dir` and all below it.
pub fn remove_tree_at(dir: impl AsFd, name: &OsStr) -> Result<()> {
    walk_at(
        dir,
        name,
        &mut |folder, name, is_dir| match is_dir {
            true => Ok(()),
            false => rustix::fs::unlinkat(folder, name, AtFlags::empty()),
        },
        &mut |parent, name| rustix::fs::unlinkat(parent, name, AtFlags::REMOVEDIR),
    )
}

/// One folder being walked: open, with the subfolders still to walk.
struct Frame {
    fd: OwnedFd,
    name: OsString,
    subfolders: Vec<OsString>,
}

/// Walks `name` in `dir` depth first: `item(folder, name, is_dir)` for each item in a folder
/// as the folder is read (and for `name` itself if it is no folder), then `left(parent,
/// name)` for each folder once everything below it was walked.
fn walk_at(
    dir: impl AsFd,
    name: &OsStr,
    item: &mut dyn FnMut(&OwnedFd, &OsStr, bool) -> Result<()>,
    left: &mut dyn FnMut(&OwnedFd, &OsStr) -> Result<()>,
) -> Result<()> {
    let dir = dir.as_fd();
    if stat_at(dir, name)?.kind != Kind::Dir {
        let parent = rustix::io::fcntl_dupfd_cloexec(dir, 0)?;
        return item(&parent, name, false);
    }
    let mut buf = Vec::new();
    let mut open = |parent: &OwnedFd, name: OsString, buf: &mut Vec<u8>| -> Result<Frame> {
        let fd = open_dir_at(parent, &name)?;
        let mut entries = Vec::new();
        read_dir(&fd, buf, |n, t| {
            let is_dir = match t {
                FileType::Unknown => stat_at(&fd, n)?.kind == Kind::Dir,
                t => t == FileType::Directory,
            };
            entries.push((n.to_os_string(), is_dir));
            Ok(())
        })?;
        let mut subfolders = Vec::new();
        for (n, is_dir) in entries {
            item(&fd, &n, is_dir)?;
            if is_dir {
                subfolders.push(n);
            }
        }
        Ok(Frame {
            fd,
            name,
            subfolders,
        })
    };
    let top = rustix::io::fcntl_dupfd_cloexec(dir, 0)?;
    let mut stack = vec![open(&top, name.to_os_string(), &mut buf)?];
    while let Some(frame) = stack.last_mut() {
        match frame.subfolders.pop() {
            Some(sub) => {
                let next = open(&frame.fd, sub, &mut buf)?;
                stack.push(next);
            }
            None => {
                let done = stack.pop().expect("a frame was there");
                let parent = stack.last().map_or(&top, |f| &f.fd);
                left(parent, &done.name)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_is_measured_and_removed_without_following_its_links() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("kept"), [0u8; 1000]).unwrap();
        let mut deep = dir.path().join("item");
        for _ in 0..300 {
            deep.push("d");
        }
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::write(deep.join("f"), [0u8; 10]).unwrap();
        std::fs::write(dir.path().join("item/g"), [0u8; 5]).unwrap();
        std::os::unix::fs::symlink(&outside, dir.path().join("item/link")).unwrap();
        let at = super::super::open_dir_path(dir.path()).unwrap();
        let size = tree_size_at(&at, OsStr::new("item")).unwrap();
        let link_size = std::fs::symlink_metadata(dir.path().join("item/link"))
            .unwrap()
            .len();
        assert_eq!(size, 15 + link_size);
        remove_tree_at(&at, OsStr::new("item")).unwrap();
        assert!(!dir.path().join("item").exists());
        assert!(outside.join("kept").exists(), "not through the link");
        std::fs::write(dir.path().join("file"), "x").unwrap();
        remove_tree_at(&at, OsStr::new("file")).unwrap();
        assert!(!dir.path().join("file").exists());
    }
}
