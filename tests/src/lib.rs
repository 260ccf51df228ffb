//! Shared helpers for Ferry's integration tests: a temporary-tree fixture builder and a way to
//! run the real `ferry` command line as a process.

use std::ffi::OsStr;
use std::fs;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// A temporary folder that builds fixture trees and is removed when dropped.
pub struct TempTree {
    dir: tempfile::TempDir,
}

impl Default for TempTree {
    fn default() -> Self {
        Self::new()
    }
}

/// What a test undid or trashed on `/dev/shm` went to the machine's `/dev/shm/.Trash-$uid`
/// (the command line uses every volume's trash): take out the entries that came from this
/// tree, so tests leave nothing in a trash a person lists.
impl Drop for TempTree {
    fn drop(&mut self) {
        let Ok(rel) = self.dir.path().strip_prefix("/dev/shm") else {
            return;
        };
        let uid = rustix::process::getuid().as_raw();
        let trash = Path::new("/dev/shm").join(format!(".Trash-{uid}"));
        let Ok(infos) = fs::read_dir(trash.join("info")) else {
            return;
        };
        let prefix = format!("Path={}", rel.display());
        for info in infos.flatten() {
            let text = fs::read_to_string(info.path()).unwrap_or_default();
            let ours = text.lines().any(|l| {
                l.strip_prefix(&prefix)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
            });
            let name = info.file_name();
            let stem = name.as_bytes().strip_suffix(b".trashinfo");
            if let (true, Some(stem)) = (ours, stem) {
                let item = trash.join("files").join(OsStr::from_bytes(stem));
                let _ = fs::remove_dir_all(&item).or_else(|_| fs::remove_file(&item));
                let _ = fs::remove_file(info.path());
            }
        }
    }
}

impl TempTree {
    /// A fresh tree under the system temp folder (the work tree's filesystem on CI, not tmpfs).
    pub fn new() -> Self {
        let base =
            std::env::var_os("FERRY_TEST_TMP").map_or_else(std::env::temp_dir, PathBuf::from);
        Self::new_in(base)
    }

    /// A fresh tree under `base` (e.g. `/dev/shm` for cross-filesystem tests).
    pub fn new_in(base: impl AsRef<Path>) -> Self {
        let dir = tempfile::Builder::new()
            .prefix("ferry-test-")
            .tempdir_in(base)
            .unwrap();
        TempTree { dir }
    }

    /// The tree's root.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// `root/rel`.
    pub fn join(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.path().join(rel)
    }

    /// Creates a file (and its parents) with `contents`.
    pub fn file(&self, rel: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::File::create(&path)
            .unwrap()
            .write_all(contents.as_ref())
            .unwrap();
        path
    }

    /// Creates a file whose name is arbitrary bytes (e.g. not UTF-8) inside `dir_rel`.
    pub fn file_bytes_name(
        &self,
        dir_rel: impl AsRef<Path>,
        name: &[u8],
        contents: &[u8],
    ) -> PathBuf {
        let path = self.join(dir_rel).join(OsStr::from_bytes(name));
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, contents).unwrap();
        path
    }

    /// Creates a folder (and its parents).
    pub fn dir(&self, rel: impl AsRef<Path>) -> PathBuf {
        let path = self.join(rel);
        fs::create_dir_all(&path).unwrap();
        path
    }

    /// Creates a symlink at `rel` pointing at `target` (taken literally, may dangle).
    pub fn symlink(&self, rel: impl AsRef<Path>, target: impl AsRef<Path>) -> PathBuf {
        let path = self.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        std::os::unix::fs::symlink(target, &path).unwrap();
        path
    }

    /// Creates a FIFO at `rel`.
    pub fn fifo(&self, rel: impl AsRef<Path>) -> PathBuf {
        let path = self.join(rel);
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &path,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o644),
            0,
        )
        .unwrap();
        path
    }

    /// Creates `count` files named `{prefix}{i}` of `size` bytes each inside `dir_rel`.
    pub fn many_files(
        &self,
        dir_rel: impl AsRef<Path>,
        prefix: &str,
        count: usize,
        size: usize,
    ) -> PathBuf {
        let dir = self.dir(dir_rel);
        let body = vec![b'x'; size];
        for i in 0..count {
            fs::write(dir.join(format!("{prefix}{i}")), &body).unwrap();
        }
        dir
    }
}
