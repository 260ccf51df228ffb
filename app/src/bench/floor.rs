//! The floor of the small-file copies: what copying a folder's files costs in bare system calls
//! on this machine, as a reference beside the peers (`floor` in the report, never a rival).
//!
//! Ratios to `cp` depend on the filesystem as much as on the tool: on ext4, creating files in one
//! folder is serialised by the folder's lock, so that two threads gain less there than on tmpfs,
//! whatever the tool. The floor shows how much room the machine leaves: a child process (this
//! executable, `bench --floor-copy`, spawned like every peer) with two threads taking files from
//! a shared counter, each file `openat` + `openat(O_CREAT|O_EXCL)` + `copy_file_range` + two
//! `close`, and nothing a user's copy needs: no mode or times kept, no extended attributes, no
//! temporary name, no walk below the first level, no journal, no progress.

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result};
use rustix::fd::OwnedFd;
use rustix::fs::{Mode, OFlags};

/// Threads of the floor copy: both cores of the machines the issues measure on.
const THREADS: usize = 2;

/// Copies the regular files directly in `src` into the new folder `dest`, with the bare calls
/// the module docs list.
pub(super) fn copy(src: &Path, dest: &Path) -> Result<()> {
    let names: Vec<_> = std::fs::read_dir(src)
        .with_context(|| format!("cannot read {}", src.display()))?
        .map(|e| e.map(|e| e.file_name()))
        .collect::<std::io::Result<_>>()?;
    rustix::fs::mkdir(dest, Mode::from_raw_mode(0o755))
        .with_context(|| format!("cannot create {}", dest.display()))?;
    let open_dir =
        |p: &Path| rustix::fs::open(p, OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty());
    let (src_dir, dest_dir) = (open_dir(src)?, open_dir(dest)?);
    let next = AtomicUsize::new(0);
    super::fixtures::on_threads(THREADS, |_| {
        while let Some(name) = names.get(next.fetch_add(1, Ordering::Relaxed)) {
            copy_one(&src_dir, &dest_dir, name)
                .with_context(|| format!("cannot copy {}", name.display()))?;
        }
        Ok(())
    })
}

fn copy_one(src_dir: &OwnedFd, dest_dir: &OwnedFd, name: &std::ffi::OsStr) -> Result<()> {
    let from = rustix::fs::openat(
        src_dir,
        name,
        OFlags::RDONLY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let to = rustix::fs::openat(
        dest_dir,
        name,
        OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o644),
    )?;
    while rustix::fs::copy_file_range(&from, None, &to, None, 1 << 30)? > 0 {}
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_floor_copies_every_file_with_its_bytes() {
        let tmp = tempfile::tempdir().unwrap();
        let src = tmp.path().join("set");
        std::fs::create_dir(&src).unwrap();
        for i in 0..50 {
            std::fs::write(src.join(format!("f{i}")), vec![i as u8; 5000 + i]).unwrap();
        }
        let dest = tmp.path().join("out");
        copy(&src, &dest).unwrap();
        for i in 0..50 {
            let got = std::fs::read(dest.join(format!("f{i}"))).unwrap();
            assert_eq!(got, vec![i as u8; 5000 + i]);
        }
        assert_eq!(std::fs::read_dir(&dest).unwrap().count(), 50);
        assert!(copy(&src, &dest).is_err(), "the destination must be new");
    }
}
