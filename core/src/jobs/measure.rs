//! How much a set of paths holds, before the window asks "Permanently delete 3 folders and
//! 12 files, 1.2 GB?": [`measure`], run on a worker thread.
//!
//! The walk is the delete's: by directory descriptors (`openat(O_NOFOLLOW | O_DIRECTORY)`,
//! getdents, `statx` without following), through a [`DirStack`] so that any depth takes a
//! bounded number of descriptors, never following a symbolic link (a link counts as an item
//! of its own size) and never entering a folder of another mount (a bind mount of the same
//! device too), which a delete refuses to go into ([`Error::OtherFilesystem`]): those are
//! counted apart, not measured. Nothing is planned or kept per item, so memory stays small
//! for any number of files.

use std::collections::HashSet;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use rustix::fd::OwnedFd;
use rustix::io::Errno;

use crate::entry::Kind;
use crate::error::Error;
use crate::fs::{self, DirStack, FileId, Meta};

/// Entries examined between two looks at the cancel flag.
const CANCEL_CHECK: u32 = 4096;

/// What a set of paths holds (see [`measure`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Measure {
    /// Regular files (each name of a file with several names).
    pub files: u64,
    /// Folders, those given included.
    pub folders: u64,
    /// Symbolic links (never followed).
    pub symlinks: u64,
    /// FIFOs, sockets and devices.
    pub others: u64,
    /// Sizes of the files (a file with several names once) and of the links (the length of
    /// their text).
    pub bytes: u64,
    /// Folders whose contents could not be read (no permission, an I/O error) or whose
    /// entries could not be examined: counted among `folders`, their contents not counted.
    pub unreadable: usize,
    /// Folders of another file system (mount points, bind mounts), not entered and not
    /// counted otherwise: a delete leaves them alone.
    pub other_filesystems: usize,
}

impl Measure {
    /// Everything counted: files, folders, links and other items.
    pub fn items(&self) -> u64 {
        self.files + self.folders + self.symlinks + self.others
    }

    fn add(&mut self, other: &Measure) {
        self.files += other.files;
        self.folders += other.folders;
        self.symlinks += other.symlinks;
        self.others += other.others;
        self.bytes += other.bytes;
        self.unreadable += other.unreadable;
        self.other_filesystems += other.other_filesystems;
    }
}

/// Counts the files, folders, links and bytes that `paths` hold (each path a file, a link or
/// a folder with everything in it), as a delete of them would walk them: links are not
/// followed, folders of another mount are not entered (see [`Measure::other_filesystems`]),
/// a folder that cannot be read is counted in [`Measure::unreadable`] rather than failing the
/// whole. A path that does not exist counts for nothing; the same item given twice, once.
/// Fails only with [`Error::Cancelled`], soon after `cancel` is set.
pub fn measure(paths: &[PathBuf], cancel: &AtomicBool) -> Result<Measure, Error> {
    let mut walk = Walk {
        cancel,
        total: Measure::default(),
        linked: HashSet::new(),
        buf: Vec::new(),
        seen: 0,
    };
    let mut given = HashSet::new();
    for path in paths {
        walk.check()?;
        let Some((root, meta, fd)) = walk.root(path) else {
            continue;
        };
        // As a delete: the same item once (a file's other names are items of their own).
        let several = meta.kind == Kind::File && meta.nlink > 1;
        let name = several.then(|| path.file_name().unwrap_or_default().to_owned());
        if !given.insert((meta.id, name)) {
            continue;
        }
        match (root, fd) {
            (Root::Folder, Some(fd)) => walk.folder(fd, meta)?,
            (Root::Folder, None) => {
                walk.total.folders += 1;
                walk.total.unreadable += 1;
            }
            (Root::OtherFilesystem, _) => walk.total.other_filesystems += 1,
            (Root::Other, _) => {
                let mut m = Measure::default();
                walk.count(&mut m, &meta);
                walk.total.add(&m);
            }
        }
    }
    Ok(walk.total)
}

/// What a given path is, for the walk.
enum Root {
    Folder,
    OtherFilesystem,
    Other,
}

struct Walk<'a> {
    cancel: &'a AtomicBool,
    total: Measure,
    /// Files with several names counted so far.
    linked: HashSet<FileId>,
    buf: Vec<u8>,
    /// Entries examined, for the cancel checks.
    seen: u32,
}

/// One folder of the walk: the subfolders still to enter, by name and identity.
struct Frame {
    folders: Vec<(OsString, FileId)>,
    next: usize,
}

impl Walk<'_> {
    fn check(&self) -> Result<(), Error> {
        if self.cancel.load(Relaxed) {
            return Err(Error::Cancelled);
        }
        Ok(())
    }

    /// A given path: what it is, its metadata, and for a folder of its parent's mount, the
    /// folder open (`None` if it cannot be opened). `None` when it cannot be examined (gone:
    /// nothing to count; refused: unreadable).
    fn root(&mut self, path: &Path) -> Option<(Root, Meta, Option<OwnedFd>)> {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            // `/`, `..`: a folder with no parent to compare mounts with.
            let found = fs::open_dir_path(path).and_then(|fd| Ok((fs::stat_fd(&fd)?, fd)));
            return match found {
                Ok((meta, fd)) => Some((Root::Folder, meta, Some(fd))),
                Err(e) => self.unexamined(e),
            };
        };
        let opened = fs::open_dir_path(parent).and_then(|p| {
            let meta = fs::stat_at(&p, name)?;
            Ok((fs::stat_fd(&p)?, meta, p))
        });
        let (parent_meta, meta, parent_fd) = match opened {
            Ok(found) => found,
            Err(e) => return self.unexamined(e),
        };
        if meta.kind != Kind::Dir {
            return Some((Root::Other, meta, None));
        }
        if meta.mnt_id != parent_meta.mnt_id {
            return Some((Root::OtherFilesystem, meta, None));
        }
        let fd = fs::open_dir_at(&parent_fd, name)
            .ok()
            .filter(|fd| fs::stat_fd(fd).is_ok_and(|m| m.id == meta.id));
        Some((Root::Folder, meta, fd))
    }

    /// A given path that could not be examined: nothing if it is gone, else unreadable.
    fn unexamined<T>(&mut self, e: Errno) -> Option<T> {
        if e != Errno::NOENT {
            self.total.unreadable += 1;
        }
        None
    }

    /// Counts the item `meta` (not a folder) into `m`.
    fn count(&mut self, m: &mut Measure, meta: &Meta) {
        match meta.kind {
            Kind::File => {
                m.files += 1;
                if meta.nlink < 2 || self.linked.insert(meta.id) {
                    m.bytes += meta.size;
                }
            }
            Kind::Symlink => {
                m.symlinks += 1;
                m.bytes += meta.size;
            }
            Kind::Dir => m.folders += 1,
            _ => m.others += 1,
        }
    }

    /// Measures the folder `fd` (`meta`) with everything below it.
    fn folder(&mut self, fd: OwnedFd, meta: Meta) -> Result<(), Error> {
        self.total.folders += 1;
        let mount = meta.mnt_id;
        let Some(first) = self.list(&fd, mount)? else {
            self.total.unreadable += 1;
            return Ok(());
        };
        let mut stack = DirStack::new(fs::max_open_dirs());
        stack.push(fd, meta.id);
        let mut frames = vec![first];
        while let Some(frame) = frames.last_mut() {
            self.check()?;
            let Some((name, id)) = frame.folders.get(frame.next).cloned() else {
                frames.pop();
                if stack.pop().1.is_err() {
                    // A folder above was moved away meanwhile: the rest cannot be reached.
                    self.total.unreadable += 1;
                    return Ok(());
                }
                continue;
            };
            frame.next += 1;
            let opened = fs::open_dir_at(stack.top(), &name)
                .ok()
                .filter(|fd| fs::stat_fd(fd).is_ok_and(|m| m.id == id));
            let Some(fd) = opened else {
                self.total.unreadable += 1;
                continue;
            };
            match self.list(&fd, mount)? {
                Some(frame) => {
                    stack.push(fd, id);
                    frames.push(frame);
                }
                None => self.total.unreadable += 1,
            }
        }
        Ok(())
    }

    /// Counts what the open folder `fd` holds directly (its subfolders of mount `mount` as
    /// folders) and returns those subfolders, to enter; `None` when it cannot be read whole
    /// (nothing of it counted).
    fn list(&mut self, fd: &OwnedFd, mount: u64) -> Result<Option<Frame>, Error> {
        let mut names = Vec::new();
        let mut buf = std::mem::take(&mut self.buf);
        let listed = fs::read_dir(fd, &mut buf, |name, _| {
            names.push(name.to_owned());
            Ok(())
        });
        self.buf = buf;
        if listed.is_err() {
            return Ok(None);
        }
        let mut m = Measure::default();
        let mut folders = Vec::new();
        for name in names {
            self.seen = self.seen.wrapping_add(1);
            if self.seen.is_multiple_of(CANCEL_CHECK) {
                self.check()?;
            }
            let meta = match fs::stat_at(fd, &name) {
                Ok(meta) => meta,
                Err(Errno::NOENT) => continue, // gone since the listing
                Err(_) => return Ok(None),
            };
            match meta.kind {
                Kind::Dir if meta.mnt_id != mount => m.other_filesystems += 1,
                Kind::Dir => {
                    m.folders += 1;
                    folders.push((name, meta.id));
                }
                _ => self.count(&mut m, &meta),
            }
        }
        self.total.add(&m);
        Ok(Some(Frame { folders, next: 0 }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_folders_links_and_bytes_are_counted_links_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("one"), "12345").unwrap();
        std::fs::write(root.join("a/two"), "123").unwrap();
        std::fs::hard_link(root.join("a/two"), root.join("a/b/three")).unwrap();
        // A link to a big folder outside: counted as a link, never entered.
        let outside = tmp.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("big"), vec![0u8; 100_000]).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("a/link")).unwrap();
        let text = outside.as_os_str().len() as u64;
        let given = [root.clone(), root, tmp.path().join("gone")];
        let m = measure(&given, &AtomicBool::new(false)).unwrap();
        assert_eq!(
            m,
            Measure {
                files: 3,
                folders: 3,
                symlinks: 1,
                others: 0,
                bytes: 5 + 3 + text,
                unreadable: 0,
                other_filesystems: 0,
            }
        );
        assert_eq!(m.items(), 7);
    }

    #[test]
    fn a_cancelled_measure_stops() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("d")).unwrap();
        let cancel = AtomicBool::new(true);
        let measured = measure(&[tmp.path().join("d")], &cancel);
        assert!(matches!(measured, Err(Error::Cancelled)), "{measured:?}");
    }

    #[test]
    fn a_deep_tree_takes_a_bounded_number_of_descriptors() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("deep");
        std::fs::create_dir(&dir).unwrap();
        let fd = fs::open_dir_path(&dir).unwrap();
        let mut fds = vec![fd];
        // Deeper than the stack keeps open and than PATH_MAX allows by path.
        for _ in 0..1200 {
            let last = fds.last().unwrap();
            rustix::fs::mkdirat(last, "d", rustix::fs::Mode::from_raw_mode(0o755)).unwrap();
            let next = fs::open_dir_at(last, "d").unwrap();
            rustix::fs::openat(
                &next,
                "f",
                rustix::fs::OFlags::CREATE | rustix::fs::OFlags::WRONLY,
                rustix::fs::Mode::from_raw_mode(0o644),
            )
            .unwrap();
            fds.push(next);
            if fds.len() > 8 {
                fds.remove(0);
            }
        }
        let m = measure(&[dir], &AtomicBool::new(false)).unwrap();
        assert_eq!((m.folders, m.files, m.unreadable), (1201, 1200, 0));
    }
}
