//! Large files written under a name that survives a crash, so that resume can verify what was
//! written and append the rest.
//!
//! In a journaled copy or move, a file of at least [`PART_MIN_SIZE`] is written to
//! `.ferry-part-<seq>-<hash>` in its destination folder: `seq` is the job's journal record and
//! `hash` (FNV-1a) covers the destination name and the source's device, inode, size and mtime.
//! The name thus maps back to one destination file of one state of its source, with no journal
//! line per file. It is created 0600 and flushed (`fdatasync`) every [`SYNC_EVERY`] bytes, so
//! after a crash what was written before the last flush is really on disk. Once complete it
//! gets its mode, extended attributes and times and is renamed into place without replacing
//! anything, like any named temporary (`copy.rs`). Cancel and errors remove it; a crash
//! leaves it for resume.
//!
//! Resuming the record finds the part under the same name, compares it with the source chunk
//! by chunk (reading is cheaper than writing; power loss may have left garbage after the last
//! flush) and appends the rest from where it ends, holes kept as holes
//! ([`DataCopier::copy_span`]); a part that differs starts over. A source
//! changed since (size or mtime) gives another name, so its stale part is never continued:
//! resume and undo remove every part of their record that is left (`recovery.rs`).

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::Ordering::Relaxed;

use rustix::fd::OwnedFd;
use rustix::fs::{Mode, OFlags};
use rustix::io::Errno;

use super::commit::Temp;
use super::copy::{Batch, Copier, Outcome};
use crate::error::Error;
use crate::fs::{self, DataCopier, DataError, Meta};

/// Files at least this large are written under a name that survives a crash, and a resumed
/// job continues them (smaller ones are cheaper to copy again than to verify and track).
pub const PART_MIN_SIZE: u64 = 64 << 20;

/// Bytes written between two flushes of a part: what a crash can cost at most.
const SYNC_EVERY: u64 = 64 << 20;

/// Bytes compared at a time when verifying a part.
const VERIFY_CHUNK: usize = 1 << 20;

/// Prefix of the parts of journal record `seq`.
pub(crate) fn part_prefix(seq: u64) -> String {
    format!(".ferry-part-{seq}-")
}

/// The part of record `seq` for the file `dest_name` copied from a source with `meta`.
fn part_name(seq: u64, dest_name: &OsStr, meta: &Meta) -> OsString {
    let fields = [
        meta.id.dev,
        meta.id.ino,
        meta.size,
        meta.mtime.sec as u64,
        u64::from(meta.mtime.nsec),
    ];
    let bytes =
        (dest_name.as_bytes().iter().copied()).chain(fields.iter().flat_map(|f| f.to_le_bytes()));
    let hash = bytes.fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{}{hash:016x}", part_prefix(seq)).into()
}

/// Bytes already on disk of the part an interrupted run of record `seq` left for the file
/// `dest_name` copied from a source with `meta`, in folder `dir`: space a resume does not
/// need again (continued, or freed when it starts over).
pub(super) fn part_bytes(dir: &OwnedFd, seq: u64, dest_name: &OsStr, meta: &Meta) -> u64 {
    if meta.size < PART_MIN_SIZE {
        return 0;
    }
    fs::stat_at(dir, part_name(seq, dest_name, meta)).map_or(0, |m| m.blocks * 512)
}

impl Copier<'_> {
    /// Copies the large file `i` of a journaled job through its part, continuing a part left
    /// by an interrupted run of the same record when it matches the source.
    pub(super) fn copy_large(
        &self,
        copier: &mut DataCopier<'_>,
        batch: &Batch,
        i: u32,
        (src, meta): (&OwnedFd, &Meta),
        seq: u64,
    ) -> Result<Outcome, Error> {
        let dest_err = |op| move |e| Error::io(op, self.plan.dest_path(i), e);
        let name = part_name(seq, self.plan.dest_name(i), meta);
        let flags = OFlags::RDWR | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let dst = rustix::fs::openat(&*batch.dst, &name, flags, Mode::from_raw_mode(0o600))
            .map_err(dest_err("create"))?;
        let temp = Temp {
            dir: &batch.dst,
            name,
            armed: true,
        };
        let found = fs::stat_fd(&dst).map_err(dest_err("stat"))?.size;
        let Some(kept) = self.verify(i, src, &dst, found.min(meta.size))? else {
            return Ok(Outcome::Stopped);
        };
        if kept < found {
            rustix::fs::ftruncate(&dst, kept).map_err(dest_err("write"))?;
        }
        let (mut copied, mut unsynced, mut sync_error) = (0u64, 0u64, None);
        let mut tick = |n: u64| {
            copied += n;
            unsynced += n;
            self.ctx.counters.add_bytes(n);
            if unsynced >= SYNC_EVERY {
                unsynced = 0;
                if let Err(e) = rustix::fs::fdatasync(&dst) {
                    sync_error = Some(e);
                    return false;
                }
            }
            self.ctx.control.checkpoint()
        };
        let result = match kept {
            0 => copier.copy(src, &dst, meta, &mut tick).map(|_| ()),
            _ => copier
                .copy_span(src, &dst, kept, meta, &mut tick)
                .map(|_| ()),
        };
        if let Err(e) = result {
            self.ctx.counters.bytes.fetch_sub(copied + kept, Relaxed);
            return match (sync_error, e) {
                (Some(errno), _) => Err(dest_err("write")(errno)),
                (None, DataError::Stopped) => Ok(Outcome::Stopped),
                (None, DataError::Io { op, errno }) => Err(self.data_error(i, op, errno)),
            };
        }
        let ino = self
            .finish_file(src, &dst, meta, i, (None, batch.inherits_acl))
            .inspect_err(|_| {
                self.ctx.counters.bytes.fetch_sub(copied + kept, Relaxed);
            })?;
        self.ctx.counters.kept.fetch_add(kept, Relaxed);
        drop(dst);
        self.commit(batch, temp, i, (ino, copied + kept))
    }

    /// Compares the first `len` bytes of `part` with `src`: how many can be kept (`len` or 0;
    /// counted as done in the progress), or `None` when the job stopped meanwhile.
    fn verify(
        &self,
        i: u32,
        src: &OwnedFd,
        part: &OwnedFd,
        len: u64,
    ) -> Result<Option<u64>, Error> {
        let (mut a, mut b) = (vec![0u8; VERIFY_CHUNK], vec![0u8; VERIFY_CHUNK]);
        let mut pos = 0u64;
        let counters = &self.ctx.counters;
        while pos < len {
            let want = usize::try_from(len - pos).map_or(VERIFY_CHUNK, |l| l.min(VERIFY_CHUNK));
            let n =
                read_full(src, &mut a[..want], pos).map_err(|e| self.data_error(i, "read", e))?;
            let m = read_full(part, &mut b[..want], pos)
                .map_err(|e| Error::io("read", self.plan.dest_path(i), e))?;
            if n != want || m != want || a[..n] != b[..m] {
                counters.bytes.fetch_sub(pos, Relaxed);
                return Ok(Some(0));
            }
            pos += want as u64;
            counters.add_bytes(want as u64);
            if !self.ctx.control.checkpoint() {
                counters.bytes.fetch_sub(pos, Relaxed);
                return Ok(None);
            }
        }
        Ok(Some(len))
    }
}

/// Reads into all of `buf` from `offset`, short only at the end of the file.
fn read_full(fd: &OwnedFd, buf: &mut [u8], offset: u64) -> Result<usize, Errno> {
    let mut done = 0;
    while done < buf.len() {
        match rustix::io::pread(fd, &mut buf[done..], offset + done as u64) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(Errno::INTR) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::Kind;
    use crate::fs::{FileId, Timestamp};

    fn meta(ino: u64, size: u64, sec: i64) -> Meta {
        let time = Timestamp { sec, nsec: 0 };
        Meta {
            kind: Kind::File,
            id: FileId { dev: 1, ino },
            mnt_id: 1,
            mode: 0o644,
            uid: 0,
            gid: 0,
            size,
            blocks: size / 512,
            nlink: 1,
            atime: time,
            mtime: time,
            pinned: false,
        }
    }

    /// A part is found again only for the same destination name and the same source state.
    #[test]
    fn part_names_follow_the_destination_name_and_the_source_state() {
        let base = part_name(7, OsStr::new("big.iso"), &meta(5, 100, 10));
        assert_eq!(base, part_name(7, OsStr::new("big.iso"), &meta(5, 100, 10)));
        assert!(base.as_bytes().starts_with(b".ferry-part-7-"));
        for other in [
            part_name(8, OsStr::new("big.iso"), &meta(5, 100, 10)),
            part_name(7, OsStr::new("big (copy).iso"), &meta(5, 100, 10)),
            part_name(7, OsStr::new("big.iso"), &meta(6, 100, 10)),
            part_name(7, OsStr::new("big.iso"), &meta(5, 101, 10)),
            part_name(7, OsStr::new("big.iso"), &meta(5, 100, 11)),
        ] {
            assert_ne!(base, other);
        }
    }
}
