//! The chain of open folders of a depth-first walk, bounded in file descriptors.

use std::sync::{Arc, OnceLock};

use rustix::fd::OwnedFd;
use rustix::io::{Errno, Result};

use super::{FileId, open_dir_at, stat_fd};

/// Descriptors one walk's stack may keep open: a sixteenth of the process's limit, from 64
/// to 1,024. Deep enough that a tree like the 800-level benchmark is never reopened through
/// `..` (an `openat` and a `statx` a level, in every walk of a job), small enough that the
/// stacks of all the jobs running at once stay far inside the limit.
pub fn max_open_dirs() -> usize {
    static BUDGET: OnceLock<usize> = OnceLock::new();
    *BUDGET.get_or_init(|| {
        let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile);
        let soft = limit.current.unwrap_or(u64::MAX);
        usize::try_from((soft / 16).clamp(64, 1024)).unwrap_or(64)
    })
}

/// Folders a job may hold open at once for what it puts into them (a trash's batch, a
/// restore's part): `most`, or a quarter of the files the process may have open where that
/// is fewer, since working on each opens a few more. Past it, a job finishes what it holds
/// before opening more (1,100 items put back into as many folders once all failed "Too many
/// open files" under a limit of 1,024).
pub fn folders_held_at_once(most: usize) -> usize {
    let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
    let quarter = limit.map_or(usize::MAX, |n| usize::try_from(n / 4).unwrap_or(usize::MAX));
    quarter.clamp(1, most)
}

/// Raises the soft limit of open descriptors to the hard limit, as programs that need many
/// are expected to (the soft limit stays low only for `select`, which Ferry never uses).
/// Best effort: a limit that cannot be raised stays as it was.
pub fn raise_fd_limit() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let mut limit = getrlimit(Resource::Nofile);
    if limit.current < limit.maximum {
        limit.current = limit.maximum;
        let _ = setrlimit(Resource::Nofile, limit);
    }
}

/// Raises the descriptor limit and grows the table to it ([`raise_fd_limit`],
/// [`reserve_fd_table`]): what a program that runs jobs calls before it starts any thread.
pub fn prepare_descriptors() {
    raise_fd_limit();
    reserve_fd_table();
}

/// Grows the process's descriptor table, once, to what the deepest walk's stack needs, and
/// the folders a delete keeps open to unlink ahead of its walk (`jobs/unlink_ahead.rs`).
///
/// The kernel grows the table by doubling as descriptors are opened, and in a process with
/// more than one thread each growth waits for an RCU grace period (`expand_fdtable`): a few
/// milliseconds each. `ferry rm` of an 800-level tree paid four of them, about 26 ms of a
/// 71 ms delete that took 45 ms in a process whose table had grown before. One descriptor
/// duplicated above the budget grows it in one step, at start. Best effort.
///
/// That one step waits for a grace period too once a second thread exists: `ferry cp`, whose
/// journal thread starts before the engine, measured up to 31 ms for it (one run in three,
/// `perf trace`). A program calls [`prepare_descriptors`] first thing, while it has one
/// thread; the engine's own call is then free.
pub fn reserve_fd_table() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let Ok(root) = rustix::fs::open(
            "/",
            rustix::fs::OFlags::PATH | rustix::fs::OFlags::CLOEXEC,
            rustix::fs::Mode::empty(),
        ) else {
            return;
        };
        // A walk's stack, and as many folders handed to a delete's unlinking thread.
        let top = i32::try_from(2 * max_open_dirs() + 64).unwrap_or(2112);
        // Closed at once: the table keeps its size.
        drop(rustix::io::fcntl_dupfd_cloexec(&root, top));
    });
}

/// A stack of open folders, each a child of the one below it.
///
/// Only the deepest `max_open` levels keep their descriptor; shallower ones are closed and
/// reopened through `..` when the walk climbs back to them, checked against the identity they
/// had. The walk therefore needs a fixed number of descriptors at any depth, and a folder
/// moved away mid-walk is noticed (`ESTALE`) rather than silently followed.
pub struct DirStack {
    levels: Vec<Level>,
    /// Index of the shallowest level that is open; all deeper ones are open too.
    first_open: usize,
    max_open: usize,
}

struct Level {
    fd: Option<Arc<OwnedFd>>,
    id: FileId,
}

impl DirStack {
    /// An empty stack keeping at most `max_open` (at least 2) descriptors.
    pub fn new(max_open: usize) -> Self {
        DirStack {
            levels: Vec::new(),
            first_open: 0,
            max_open: max_open.max(2),
        }
    }

    /// Pushes an open folder whose identity is `id`.
    pub fn push(&mut self, fd: impl Into<Arc<OwnedFd>>, id: FileId) {
        self.levels.push(Level {
            fd: Some(fd.into()),
            id,
        });
        if self.levels.len() - self.first_open > self.max_open {
            self.levels[self.first_open].fd = None;
            self.first_open += 1;
        }
    }

    /// The deepest folder. Panics on an empty stack.
    pub fn top(&self) -> &Arc<OwnedFd> {
        self.levels
            .last()
            .and_then(|l| l.fd.as_ref())
            .expect("top of an empty DirStack")
    }

    /// Identity of the deepest folder.
    pub fn top_id(&self) -> Option<FileId> {
        self.levels.last().map(|l| l.id)
    }

    /// Number of levels.
    pub fn len(&self) -> usize {
        self.levels.len()
    }

    /// True when nothing is pushed.
    pub fn is_empty(&self) -> bool {
        self.levels.is_empty()
    }

    /// Removes the deepest level and returns its descriptor. If the new deepest level had been
    /// closed, it is reopened through `..` and must still be the same folder; if it cannot be
    /// (`ESTALE` when it is another folder now), the error comes with the descriptor and the
    /// stack is left empty, as nothing below can be reached any more.
    pub fn pop(&mut self) -> (Arc<OwnedFd>, Result<()>) {
        let level = self.levels.pop().expect("pop of an empty DirStack");
        let fd = level.fd.expect("the deepest level is always open");
        if self.first_open == 0 || self.first_open < self.levels.len() {
            return (fd, Ok(()));
        }
        let expected = self.levels[self.first_open - 1].id;
        let parent = open_dir_at(&fd, "..").and_then(|p| match stat_fd(&p)?.id == expected {
            true => Ok(p),
            false => Err(Errno::STALE),
        });
        match parent {
            Ok(p) => {
                self.first_open -= 1;
                self.levels[self.first_open].fd = Some(Arc::new(p));
                (fd, Ok(()))
            }
            Err(e) => {
                self.levels.clear();
                self.first_open = 0;
                (fd, Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::{open_dir_path, stat_path};

    #[test]
    fn reopens_evicted_levels_through_dotdot() {
        let tmp = tempfile::tempdir().unwrap();
        let deep = tmp.path().join("a/b/c/d/e");
        std::fs::create_dir_all(&deep).unwrap();
        let mut stack = DirStack::new(2);
        let root = open_dir_path(tmp.path()).unwrap();
        stack.push(root, stat_path(tmp.path()).unwrap().id);
        let mut path = tmp.path().to_path_buf();
        for name in ["a", "b", "c", "d", "e"] {
            path.push(name);
            let fd = open_dir_at(stack.top(), name).unwrap();
            stack.push(fd, stat_path(&path).unwrap().id);
        }
        while stack.len() > 1 {
            stack.pop().1.unwrap();
            path.pop();
            assert_eq!(
                stat_fd(stack.top().as_ref()).unwrap().id,
                stat_path(&path).unwrap().id
            );
        }
    }

    #[test]
    fn a_moved_folder_is_stale() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(tmp.path().join("a/b/c")).unwrap();
        let mut stack = DirStack::new(2);
        for rel in ["", "a", "a/b", "a/b/c"] {
            let p = tmp.path().join(rel);
            stack.push(open_dir_path(&p).unwrap(), stat_path(&p).unwrap().id);
        }
        std::fs::create_dir(tmp.path().join("x")).unwrap();
        std::fs::rename(tmp.path().join("a/b"), tmp.path().join("x/b")).unwrap();
        stack.pop().1.unwrap(); // back to b: still open
        assert_eq!(stack.pop().1.unwrap_err(), Errno::STALE); // b's `..` is x now, not a
        assert!(stack.is_empty());
    }
}
