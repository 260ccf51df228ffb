//! Fixture builders (never timed): flat folders of many files, and deep trees for deletes.
//!
//! File contents are pseudo-random bytes (incompressible, no zero runs that could become holes),
//! the same for every file of a set; names are about 12 bytes, deterministic but not created in
//! sorted order, so a listing has real sorting to do.

use std::fs;
use std::os::fd::OwnedFd;
use std::path::Path;
use std::thread;

use anyhow::{Context, Result};
use rustix::fs::{Mode, OFlags};

/// `len` pseudo-random bytes (xorshift64*; quality is irrelevant, only incompressibility).
pub(super) fn noise(len: usize) -> Vec<u8> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        out.extend_from_slice(&state.wrapping_mul(0x2545_F491_4F6C_DD1D).to_le_bytes());
    }
    out.truncate(len);
    out
}

/// The `i`-th fixture name: three letters that scatter the sort order, a number, `.txt`
/// (12 bytes below 100,000 files).
pub(super) fn name(i: usize) -> String {
    let h = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
    let letter = |shift: u32| char::from(b'a' + ((h >> shift) % 26) as u8);
    format!("{}{}{}{i:05}.txt", letter(0), letter(5), letter(10))
}

/// Creates `dir` (and its parents) holding `count` files of `size` bytes each, written by
/// both cores.
pub(super) fn flat(dir: &Path, count: usize, size: usize) -> Result<()> {
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let body = noise(size);
    on_threads(2, |w| {
        for i in (w..count).step_by(2) {
            let path = dir.join(name(i));
            fs::write(&path, &body).with_context(|| format!("cannot write {}", path.display()))?;
        }
        Ok(())
    })
}

/// Runs `work(0)` .. `work(threads - 1)` on as many threads at once; the first error, once all
/// are done.
pub(super) fn on_threads(threads: usize, work: impl Fn(usize) -> Result<()> + Sync) -> Result<()> {
    thread::scope(|s| {
        let work = &work;
        let workers: Vec<_> = (0..threads).map(|w| s.spawn(move || work(w))).collect();
        workers
            .into_iter()
            .try_for_each(|w| w.join().expect("bench thread panicked"))
    })
}

/// Creates `count` folders `dir/0 .. dir/{count-1}`, each as [`flat`] with `files` files.
pub(super) fn flat_many(dir: &Path, count: usize, files: usize, size: usize) -> Result<()> {
    (0..count).try_for_each(|i| flat(&dir.join(i.to_string()), files, size))
}

/// Creates the folder `root` holding a chain of `depth` nested folders (`root/d/d/...`) with
/// `files` empty files spread evenly over its levels (`root` itself is level 1).
///
/// The files are empty: a delete benchmark then measures the walk and the unlinks, not the
/// freeing of data blocks (on a `discard` mount that is a synchronous discard per file, the
/// same kernel cost for every tool). Built through directory fds, so depth is no limit.
pub(super) fn deep_tree(root: &Path, depth: usize, files: usize) -> Result<()> {
    fs::create_dir_all(root).with_context(|| format!("cannot create {}", root.display()))?;
    let ctx = || format!("cannot build the tree in {}", root.display());
    let create = OFlags::CREATE | OFlags::EXCL | OFlags::WRONLY | OFlags::CLOEXEC;
    let dir_flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut dir: OwnedFd =
        rustix::fs::openat(rustix::fs::CWD, root, dir_flags, Mode::empty()).with_context(ctx)?;
    let mut made = 0;
    for level in 0..depth {
        // Levels take files in turn so the count is exact and spread evenly.
        let here = files * (level + 1) / depth - made;
        for _ in 0..here {
            rustix::fs::openat(
                &dir,
                name(made).as_str(),
                create,
                Mode::from_raw_mode(0o644),
            )
            .with_context(ctx)?;
            made += 1;
        }
        if level + 1 < depth {
            rustix::fs::mkdirat(&dir, "d", Mode::from_raw_mode(0o755)).with_context(ctx)?;
            dir = rustix::fs::openat(&dir, "d", dir_flags, Mode::empty()).with_context(ctx)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_about_twelve_bytes() {
        let names: std::collections::HashSet<String> = (0..50_000).map(name).collect();
        assert_eq!(names.len(), 50_000);
        assert_eq!(name(42).len(), 12);
    }

    #[test]
    fn deep_tree_has_the_depth_and_count_asked_for() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("t");
        deep_tree(&root, 7, 50).unwrap();
        let (mut depth, mut files, mut dir) = (0, 0, root);
        loop {
            depth += 1;
            files += fs::read_dir(&dir)
                .unwrap()
                .filter(|e| e.as_ref().unwrap().file_type().unwrap().is_file())
                .count();
            if !dir.join("d").exists() {
                break;
            }
            dir = dir.join("d");
        }
        assert_eq!((depth, files), (7, 50));
    }

    #[test]
    fn flat_writes_every_file_with_the_size_asked_for() {
        let tmp = tempfile::tempdir().unwrap();
        flat(tmp.path(), 11, 100).unwrap();
        let sizes: Vec<u64> = fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().len())
            .collect();
        assert_eq!(sizes, vec![100; 11]);
    }
}
