//! Moving a file's bytes: reflink, then `copy_file_range`, then read/write; holes kept.

use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use rustix::fd::{AsFd, OwnedFd};
use rustix::fs::SeekFrom;
use rustix::io::Errno;

use super::{Meta, stat_fd};

/// Bytes moved between two checks of the cancel flag: small enough that cancel lands within
/// ~100 ms on slow media, large enough that the check costs nothing.
const CHUNK: usize = 2 << 20;

/// How a file's contents were copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CopyMethod {
    /// Shared extents (`FICLONE`): no data moved.
    Reflink,
    /// In-kernel copy (`copy_file_range`).
    CopyFileRange,
    /// Through a user-space buffer.
    ReadWrite,
}

/// Why a copy of contents stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataError {
    /// The progress callback asked to stop (cancel or a job-wide error).
    Stopped,
    /// A system call failed.
    Io {
        /// "read", "write" or "copy" (the kernel does not say which side of a
        /// `copy_file_range` failed).
        op: &'static str,
        /// The error.
        errno: Errno,
    },
}

fn io(op: &'static str) -> impl Fn(Errno) -> DataError {
    move |errno| DataError::Io { op, errno }
}

/// Copies file contents, remembering across files of one job which methods the file systems
/// involved support, so a failing method is tried once per job rather than once per file.
pub struct DataCopier<'a> {
    try_reflink: &'a AtomicBool,
    try_copy_range: &'a AtomicBool,
    buf: Vec<u8>,
    /// A test build's failing side of the file being copied: every read (`"read"`) or write
    /// (`"write"`) of it fails with EIO (`fault::data_fails`).
    failing: Option<&'static str>,
}

impl<'a> DataCopier<'a> {
    /// A copier sharing the job-wide method flags (start both `true`, or `try_reflink`
    /// `false` when the destination cannot reflink).
    pub fn new(try_reflink: &'a AtomicBool, try_copy_range: &'a AtomicBool) -> Self {
        DataCopier {
            try_reflink,
            try_copy_range,
            buf: Vec::new(),
            failing: None,
        }
    }

    /// Copies `src` into the empty `dst`, everything up to EOF, as `cp` does: a file that grows
    /// while it is copied (a log, a download) is copied to the end it has when the copy gets
    /// there. One exception: by `copy_file_range`, a file of at most one chunk is copied as the
    /// `meta.size` bytes the caller's `fstat` of `src` saw (fewer if it has shrunk since), so
    /// that a small file costs one call rather than a second one that only finds the end; it
    /// is read microseconds after that `fstat`. A file that claims to be empty (`/proc` files
    /// do) is read to EOF. `tick(bytes)` is called after every chunk and returns false to
    /// stop. Returns the size of the copy, its holes included (more than the bytes copied
    /// for a sparse file), and the method used.
    pub fn copy(
        &mut self,
        src: &OwnedFd,
        dst: &OwnedFd,
        meta: &Meta,
        tick: &mut dyn FnMut(u64) -> bool,
    ) -> Result<(u64, CopyMethod), DataError> {
        self.failing = crate::fault::data_fails(meta.id.ino);
        if meta.size > 0 && self.try_reflink.load(Relaxed) && self.failing.is_none() {
            match rustix::fs::ioctl_ficlone(dst, src) {
                Ok(()) => {
                    let size = stat_fd(dst).map_err(io("stat"))?.size;
                    return if tick(size) {
                        Ok((size, CopyMethod::Reflink))
                    } else {
                        Err(DataError::Stopped)
                    };
                }
                // Another file system (EXDEV) may still clone the next file; these cannot.
                Err(Errno::OPNOTSUPP | Errno::NOTTY | Errno::INVAL | Errno::NOSYS) => {
                    self.try_reflink.store(false, Relaxed);
                }
                Err(_) => {}
            }
        }
        if meta.is_sparse() {
            match self.copy_sparse(src, dst, 0, None, tick) {
                Err(DataError::Io {
                    op: "seek",
                    errno: Errno::INVAL | Errno::NXIO | Errno::OPNOTSUPP,
                }) => {}
                other => return other.map(|(_, size, method)| (size, method)),
            }
        }
        if self.try_copy_range.load(Relaxed) {
            let mut done = 0u64;
            loop {
                // A size of 0 is not trusted (see above): read until the end then.
                let left = meta.size.saturating_sub(done);
                if meta.size > 0 && left == 0 && meta.size <= CHUNK as u64 {
                    return Ok((done, CopyMethod::CopyFileRange));
                }
                let len = match (meta.size, left) {
                    (0, _) | (_, 0) => CHUNK,
                    _ => usize::try_from(left).map_or(CHUNK, |left| left.min(CHUNK)),
                };
                match self.copy_file_range(src, None, dst, None, len) {
                    Ok(0) => return Ok((done, CopyMethod::CopyFileRange)),
                    Ok(n) => {
                        done += n as u64;
                        if !tick(n as u64) {
                            return Err(DataError::Stopped);
                        }
                    }
                    Err(Errno::XDEV | Errno::NOSYS | Errno::OPNOTSUPP | Errno::INVAL)
                        if done == 0 =>
                    {
                        self.try_copy_range.store(false, Relaxed);
                        break;
                    }
                    Err(errno) => return Err(self.side_of(src, done, errno)),
                }
            }
        }
        self.copy_read_write(src, dst, tick)
            .map(|n| (n, CopyMethod::ReadWrite))
    }

    /// Copies bytes `from..meta.size` of `src` to the same offsets of `dst` and gives `dst`
    /// that size, for appending to a partly written copy: of a sparse file only the data
    /// regions, as [`copy`](Self::copy) does, so holes stay holes; otherwise by
    /// `copy_file_range`, else read/write. `tick` as for [`copy`](Self::copy). Returns the
    /// bytes copied (fewer if `src` has shrunk).
    pub fn copy_span(
        &mut self,
        src: &OwnedFd,
        dst: &OwnedFd,
        from: u64,
        meta: &Meta,
        tick: &mut dyn FnMut(u64) -> bool,
    ) -> Result<u64, DataError> {
        self.failing = crate::fault::data_fails(meta.id.ino);
        if meta.is_sparse() {
            match self.copy_sparse(src, dst, from, Some(meta.size), tick) {
                Err(DataError::Io {
                    op: "seek",
                    errno: Errno::INVAL | Errno::NXIO | Errno::OPNOTSUPP,
                }) => {}
                other => return other.map(|(n, _, _)| n),
            }
        }
        self.copy_range(src, dst, from, meta.size, tick)
            .map(|(n, _)| n)
    }

    fn copy_read_write(
        &mut self,
        src: &OwnedFd,
        dst: &OwnedFd,
        tick: &mut dyn FnMut(u64) -> bool,
    ) -> Result<u64, DataError> {
        if self.buf.is_empty() {
            self.buf = vec![0; CHUNK / 2];
        }
        let mut done = 0u64;
        loop {
            self.fails("read").map_err(io("read"))?;
            let n = retry_intr(|| rustix::io::read(src, &mut self.buf[..])).map_err(io("read"))?;
            if n == 0 {
                return Ok(done);
            }
            self.fails("write").map_err(io("write"))?;
            write_all(dst, &self.buf[..n], None)?;
            done += n as u64;
            if !tick(n as u64) {
                return Err(DataError::Stopped);
            }
        }
    }

    /// Copies only the data regions (`SEEK_DATA`/`SEEK_HOLE`) from offset `from` (up to `to`,
    /// or the end), then sets the size, so holes stay holes even where `copy_file_range` would
    /// fill them with zeros (ext4, tmpfs). A region that ends early (the file shrank, or it
    /// claims more than it holds, as sysfs files do: 4096 bytes, no blocks, 23 bytes to read)
    /// ends the copy there: the copy is as long as what could be read, never padded to the
    /// claimed size with zeros. Returns the bytes copied, the size of the copy and the method.
    fn copy_sparse(
        &mut self,
        src: &OwnedFd,
        dst: &OwnedFd,
        from: u64,
        to: Option<u64>,
        tick: &mut dyn FnMut(u64) -> bool,
    ) -> Result<(u64, u64, CopyMethod), DataError> {
        let limit = to.unwrap_or(u64::MAX);
        let mut pos = from;
        let mut done = 0u64;
        let mut method = CopyMethod::CopyFileRange;
        while pos < limit {
            let data = match rustix::fs::seek(src, SeekFrom::Data(pos)) {
                Ok(d) if d < limit => d,
                Ok(_) => break,
                Err(Errno::NXIO) => break, // only a hole (or nothing) is left
                Err(errno) => return Err(DataError::Io { op: "seek", errno }),
            };
            // A hole is done as it is skipped: the job's total counts the file's size, and
            // its progress stopped short of it (a 2 GiB sparse file ended a copy at 39%).
            if data > pos && !tick(data - pos) {
                return Err(DataError::Stopped);
            }
            let hole = rustix::fs::seek(src, SeekFrom::Hole(data)).map_err(io("seek"))?;
            let region_end = hole.min(limit);
            let (n, m) = self.copy_range(src, dst, data, region_end, tick)?;
            done += n;
            method = m;
            if data + n < region_end {
                rustix::fs::ftruncate(dst, data + n).map_err(io("write"))?;
                return Ok((done, data + n, method));
            }
            pos = hole;
        }
        let end = rustix::fs::seek(src, SeekFrom::End(0))
            .map_err(io("seek"))?
            .min(limit);
        if end > pos && !tick(end - pos) {
            return Err(DataError::Stopped);
        }
        rustix::fs::ftruncate(dst, end).map_err(io("write"))?;
        Ok((done, end, method))
    }

    fn copy_range(
        &mut self,
        src: &OwnedFd,
        dst: &OwnedFd,
        start: u64,
        end: u64,
        tick: &mut dyn FnMut(u64) -> bool,
    ) -> Result<(u64, CopyMethod), DataError> {
        let (mut off_in, mut off_out) = (start, start);
        while off_in < end && self.try_copy_range.load(Relaxed) {
            let len = usize::try_from(end - off_in).unwrap_or(CHUNK).min(CHUNK);
            match self.copy_file_range(src, Some(&mut off_in), dst, Some(&mut off_out), len) {
                Ok(0) => return Ok((off_in - start, CopyMethod::CopyFileRange)), // shrank
                Ok(n) => {
                    if !tick(n as u64) {
                        return Err(DataError::Stopped);
                    }
                }
                Err(Errno::XDEV | Errno::NOSYS | Errno::OPNOTSUPP | Errno::INVAL) => {
                    self.try_copy_range.store(false, Relaxed);
                }
                Err(errno) => return Err(self.side_of(src, off_in, errno)),
            }
        }
        if off_in >= end {
            return Ok((end - start, CopyMethod::CopyFileRange));
        }
        if self.buf.is_empty() {
            self.buf = vec![0; CHUNK / 2];
        }
        while off_in < end {
            let len = usize::try_from(end - off_in)
                .unwrap_or(usize::MAX)
                .min(self.buf.len());
            self.fails("read").map_err(io("read"))?;
            let n = retry_intr(|| rustix::io::pread(src, &mut self.buf[..len], off_in))
                .map_err(io("read"))?;
            if n == 0 {
                break;
            }
            self.fails("write").map_err(io("write"))?;
            write_all(dst, &self.buf[..n], Some(off_in))?;
            off_in += n as u64;
            if !tick(n as u64) {
                return Err(DataError::Stopped);
            }
        }
        Ok((off_in - start, CopyMethod::ReadWrite))
    }
}

impl DataCopier<'_> {
    /// EIO where a test build asked for it on `side` ("read" or "write") of this file.
    fn fails(&self, side: &str) -> rustix::io::Result<()> {
        match self.failing == Some(side) {
            true => Err(Errno::IO),
            false => Ok(()),
        }
    }

    /// `copy_file_range`, failing as the kernel's does where a test build asked for it.
    fn copy_file_range(
        &self,
        src: &OwnedFd,
        off_in: Option<&mut u64>,
        dst: &OwnedFd,
        off_out: Option<&mut u64>,
        len: usize,
    ) -> rustix::io::Result<usize> {
        match self.failing {
            Some(_) => Err(Errno::IO),
            None => rustix::fs::copy_file_range(src, off_in, dst, off_out, len),
        }
    }

    /// Which side of a `copy_file_range` failed with `errno` at source offset `at`: the
    /// kernel does not say, and an EIO reading one file (a bad sector) fails that file, where
    /// one writing stops the job (`Error::is_terminal`). A source that still reads there
    /// leaves it to the destination.
    fn side_of(&self, src: &OwnedFd, at: u64, errno: Errno) -> DataError {
        if errno != Errno::IO {
            return DataError::Io { op: "copy", errno };
        }
        let mut byte = [0u8; 1];
        let read = self.fails("read");
        match read.and_then(|()| retry_intr(|| rustix::io::pread(src, &mut byte, at))) {
            Err(errno) => DataError::Io { op: "read", errno },
            Ok(_) => DataError::Io { op: "write", errno },
        }
    }
}

fn retry_intr<T>(mut f: impl FnMut() -> rustix::io::Result<T>) -> rustix::io::Result<T> {
    loop {
        match f() {
            Err(Errno::INTR) => {}
            other => return other,
        }
    }
}

fn write_all(dst: impl AsFd, mut data: &[u8], mut offset: Option<u64>) -> Result<(), DataError> {
    while !data.is_empty() {
        let n = match offset {
            Some(off) => retry_intr(|| rustix::io::pwrite(&dst, data, off)),
            None => retry_intr(|| rustix::io::write(&dst, data)),
        }
        .map_err(io("write"))?;
        if n == 0 {
            return Err(DataError::Io {
                op: "write",
                errno: Errno::NOSPC,
            });
        }
        data = &data[n..];
        offset = offset.map(|o| o + n as u64);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::{create_private_at, open_dir_path, open_file_at, stat_path};
    use std::io::{Seek, Write};

    fn copy_with(
        src_path: &std::path::Path,
        reflink: bool,
        range: bool,
    ) -> (Vec<u8>, Meta, CopyMethod) {
        let dir = src_path.parent().unwrap();
        let fd = open_dir_path(dir).unwrap();
        let src = open_file_at(&fd, src_path.file_name().unwrap()).unwrap();
        let meta = stat_fd(&src).unwrap();
        let _ = std::fs::remove_file(dir.join("out"));
        let dst = create_private_at(&fd, "out").unwrap();
        let (r, c) = (AtomicBool::new(reflink), AtomicBool::new(range));
        let mut ticks = 0u64;
        let (size, method) = DataCopier::new(&r, &c)
            .copy(&src, &dst, &meta, &mut |b| {
                ticks += b;
                true
            })
            .unwrap();
        let out = stat_path(&dir.join("out")).unwrap();
        // The size returned is the copy's, holes included, and the ticks count all of it: a
        // hole is done as it is skipped (the job's total counts it).
        assert_eq!(size, out.size);
        assert_eq!(ticks, size);
        (std::fs::read(dir.join("out")).unwrap(), out, method)
    }

    #[test]
    fn sparse_files_keep_their_holes_with_every_method() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("sparse");
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(&[7u8; 4096]).unwrap();
        f.seek(std::io::SeekFrom::Start(64 << 20)).unwrap();
        f.write_all(&[9u8; 4096]).unwrap();
        f.set_len(80 << 20).unwrap();
        drop(f);
        let original = std::fs::read(&path).unwrap();
        for range in [true, false] {
            let (data, meta, _) = copy_with(&path, false, range);
            assert!(
                data == original,
                "contents differ (copy_file_range: {range})"
            );
            assert!(
                meta.blocks * 512 < 1 << 20,
                "holes were filled: {} blocks",
                meta.blocks
            );
        }
    }

    /// A sysfs file claims 4096 bytes in no blocks (so it looks sparse) and holds a few: the
    /// copy holds those few, as `cp` makes it, not them padded with zeros to 4096.
    #[test]
    fn a_file_that_claims_more_than_it_holds_copies_what_it_holds() {
        let sys = std::path::Path::new("/sys/kernel");
        let Ok(sys_fd) = open_dir_path(sys) else {
            eprintln!("skipped: no /sys/kernel here");
            return;
        };
        let src = open_file_at(&sys_fd, "uevent_seqnum").unwrap();
        let meta = stat_fd(&src).unwrap();
        let held = std::fs::read(sys.join("uevent_seqnum")).unwrap();
        assert!(
            meta.is_sparse() && (held.len() as u64) < meta.size,
            "{meta:?}"
        );
        let tmp = tempfile::tempdir().unwrap();
        let fd = open_dir_path(tmp.path()).unwrap();
        for range in [true, false] {
            let _ = std::fs::remove_file(tmp.path().join("out"));
            let dst = create_private_at(&fd, "out").unwrap();
            let (r, c) = (AtomicBool::new(false), AtomicBool::new(range));
            let src = open_file_at(&sys_fd, "uevent_seqnum").unwrap();
            DataCopier::new(&r, &c)
                .copy(&src, &dst, &meta, &mut |_| true)
                .unwrap();
            let copied = std::fs::read(tmp.path().join("out")).unwrap();
            // The counter may move between the reads (a device event): a length it had.
            let now = std::fs::read(sys.join("uevent_seqnum")).unwrap();
            assert!(
                copied.len() == held.len() || copied.len() == now.len(),
                "copied {} bytes of {} (copy_file_range: {range})",
                copied.len(),
                held.len()
            );
            assert!(copied.iter().all(|b| b.is_ascii_digit() || *b == b'\n'));
        }
    }

    /// `copy_file_range` copies a one-chunk file as the size the caller's stat saw, with no
    /// call to find the end; a larger file, and the read/write fallback, to the end.
    #[test]
    fn a_file_that_grew_is_copied_to_its_end_unless_one_call_copied_it() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("growing");
        let fd = open_dir_path(tmp.path()).unwrap();
        let large = CHUNK + 1000;
        for (size, range, want) in [
            (10_000, true, 10_000),
            (10_000, false, 15_000),
            (large, true, large + 5_000),
        ] {
            std::fs::write(&path, vec![1u8; size]).unwrap();
            let src = open_file_at(&fd, "growing").unwrap();
            let meta = stat_fd(&src).unwrap();
            let mut f = std::fs::OpenOptions::new()
                .append(true)
                .open(&path)
                .unwrap();
            f.write_all(&[2u8; 5_000]).unwrap();
            let _ = std::fs::remove_file(tmp.path().join("out"));
            let dst = create_private_at(&fd, "out").unwrap();
            let (r, c) = (AtomicBool::new(false), AtomicBool::new(range));
            let (n, _) = DataCopier::new(&r, &c)
                .copy(&src, &dst, &meta, &mut |_| true)
                .unwrap();
            assert_eq!(n, want as u64, "{size} bytes, copy_file_range: {range}");
            assert_eq!(std::fs::read(tmp.path().join("out")).unwrap().len(), want);
        }
    }

    #[test]
    fn plain_files_copy_to_eof_with_every_method() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("plain");
        let body: Vec<u8> = (0..3_000_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &body).unwrap();
        let (data, _, method) = copy_with(&path, false, true);
        assert!(data == body);
        assert_eq!(method, CopyMethod::CopyFileRange);
        let (data, _, method) = copy_with(&path, false, false);
        assert!(data == body);
        assert_eq!(method, CopyMethod::ReadWrite);
    }
}
