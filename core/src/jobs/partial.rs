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
//!
//! A part written whole whose name is found taken as it is put in place (another program made
//! that name meanwhile) is kept while the user is asked ([`AskedParts`]): the answer puts it
//! in place, under a new name for Keep both, without writing it again. One no answer used is
//! removed when the job ends.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex};

use rustix::fd::OwnedFd;
use rustix::fs::{AtFlags, Mode, OFlags};
use rustix::io::Errno;

use super::commit::Temp;
use super::copy::{Batch, Copier, Outcome};
use crate::error::Error;
use crate::fs::{self, DataCopier, DataError, FileId, Meta, Timestamp};

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

/// FNV-1a of `bytes`.
fn fnv1a(bytes: impl Iterator<Item = u8>) -> u64 {
    bytes.fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The start of the names of record `seq`'s parts for the file `dest_name`, whatever the
/// state of its source.
fn part_stem(seq: u64, dest_name: &OsStr) -> String {
    let name = fnv1a(dest_name.as_bytes().iter().copied());
    format!("{}{name:016x}-", part_prefix(seq))
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
    let state = fnv1a(fields.iter().flat_map(|f| f.to_le_bytes()));
    format!("{}{state:016x}", part_stem(seq, dest_name)).into()
}

/// Bytes already on disk of the part an interrupted run of record `seq` left for the file
/// `dest_name` copied from a source with `meta`, in folder `dir`: space a resume does not
/// need again (continued, or freed when it starts over). A part of that file for a state of
/// its source that is gone (touched, saved again) can never be continued: it is removed now,
/// its space counted free. Left to the end of the resume, it filled the disk the resume then
/// stopped on, for good.
pub(super) fn part_bytes(dir: &OwnedFd, seq: u64, dest_name: &OsStr, meta: &Meta) -> u64 {
    if meta.size < PART_MIN_SIZE {
        return 0;
    }
    let name = part_name(seq, dest_name, meta);
    if let Ok(m) = fs::stat_at(dir, &name) {
        return m.blocks * 512;
    }
    remove_stale_parts(dir, &part_stem(seq, dest_name))
}

/// Removes the files of `dir` whose names start with `stem`; the bytes they held.
fn remove_stale_parts(dir: &OwnedFd, stem: &str) -> u64 {
    let Ok(entries) = fs::open_dir_at(dir, ".").and_then(rustix::fs::Dir::new) else {
        return 0;
    };
    let stale: Vec<OsString> = (entries.flatten())
        .map(|e| OsStr::from_bytes(e.file_name().to_bytes()).to_owned())
        .filter(|n| n.as_bytes().starts_with(stem.as_bytes()))
        .collect();
    let mut freed = 0;
    for name in stale {
        let Ok(m) = fs::stat_at(dir, &name) else {
            continue;
        };
        if m.kind == crate::entry::Kind::File
            && rustix::fs::unlinkat(dir, &name, AtFlags::empty()).is_ok()
        {
            freed += m.blocks * 512;
        }
    }
    freed
}

/// The source a part copies, as it was when copied: identity, size and modification time.
pub(super) type PartSource = (FileId, u64, Timestamp);

fn source_of(meta: &Meta) -> PartSource {
    (meta.id, meta.size, meta.mtime)
}

/// Parts written whole whose names were found taken, kept until their conflicts are
/// answered; those no answer used (skipped, or the job stopped) are removed with the plan.
#[derive(Debug, Default)]
pub(crate) struct AskedParts(Mutex<Vec<AskedPart>>);

#[derive(Debug)]
struct AskedPart {
    source: PartSource,
    dir: Arc<OwnedFd>,
    name: OsString,
    ino: u64,
}

impl AskedParts {
    /// Keeps the part `name` in `dir`, inode `ino`, a whole copy of `source`.
    pub(super) fn keep(&self, source: PartSource, dir: Arc<OwnedFd>, name: OsString, ino: u64) {
        let part = AskedPart {
            source,
            dir,
            name,
            ino,
        };
        super::lock(&self.0).push(part);
    }

    /// Moves the part kept for the source `meta` describes to `name` in `dir`; returns its
    /// inode, or `None` if none is kept (or it could not be moved: then it is removed).
    fn put(&self, meta: &Meta, dir: &OwnedFd, name: &OsStr) -> Option<u64> {
        let part = {
            let mut parts = super::lock(&self.0);
            let k = parts.iter().position(|p| p.source == source_of(meta))?;
            parts.swap_remove(k)
        };
        if part.name != name && fs::rename_noreplace(&*part.dir, &part.name, dir, name).is_err() {
            let _ = rustix::fs::unlinkat(&*part.dir, &part.name, AtFlags::empty());
            return None;
        }
        Some(part.ino)
    }
}

impl Drop for AskedParts {
    fn drop(&mut self) {
        let parts = self.0.get_mut().unwrap_or_else(|e| e.into_inner());
        for part in parts.drain(..) {
            let _ = rustix::fs::unlinkat(&*part.dir, &part.name, AtFlags::empty());
        }
    }
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
        let asked = self.plan.asked_parts.put(meta, &batch.dst, &name);
        let flags = OFlags::RDWR | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let dst = rustix::fs::openat(&*batch.dst, &name, flags, Mode::from_raw_mode(0o600))
            .map_err(dest_err("create"))?;
        let temp = Temp {
            dir: &batch.dst,
            name,
            armed: true,
            part_of: Some(source_of(meta)),
        };
        let found = fs::stat_fd(&dst).map_err(dest_err("stat"))?;
        // Written whole by this job before its name was found taken: the copy, as it is.
        let whole = asked == Some(found.id.ino) && found.size == meta.size;
        let kept = if whole {
            self.ctx.counters.add_bytes(found.size);
            found.size
        } else {
            match self.verify(i, src, &dst, found.size.min(meta.size))? {
                Some(kept) => kept,
                None => return Ok(Outcome::Stopped),
            }
        };
        let found = found.size;
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
            _ if whole => Ok(()),
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
        if !whole {
            self.ctx.counters.kept.fetch_add(kept, Relaxed); // what a resumed job did not redo
        }
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
            ctime: time,
            pinned: false,
        }
    }

    /// A resume counts the part it continues; the part of the same file for a state of its
    /// source that is gone is removed and its space counted free; another file's part stays.
    #[test]
    fn a_part_of_a_source_changed_since_is_removed_when_its_file_is_planned() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = fs::open_dir_path(tmp.path()).unwrap();
        let name = OsStr::new("big.iso");
        let (old, new) = (meta(5, PART_MIN_SIZE, 10), meta(5, PART_MIN_SIZE, 11));
        let stale = tmp.path().join(part_name(7, name, &old));
        let other = tmp.path().join(part_name(7, OsStr::new("other.iso"), &old));
        for part in [&stale, &other] {
            std::fs::write(part, vec![1u8; 8192]).unwrap();
        }
        assert!(part_bytes(&dir, 7, name, &old) >= 8192, "continued");
        assert!(stale.exists(), "the current part stays");
        assert!(part_bytes(&dir, 7, name, &new) >= 8192, "freed");
        assert!(!stale.exists());
        assert!(other.exists());
        assert_eq!(part_bytes(&dir, 7, name, &new), 0);
    }

    /// A part is found again only for the same destination name and the same source state.
    #[test]
    fn part_names_follow_the_destination_name_and_the_source_state() {
        let base = part_name(7, OsStr::new("big.iso"), &meta(5, 100, 10));
        assert_eq!(base, part_name(7, OsStr::new("big.iso"), &meta(5, 100, 10)));
        assert!(base.as_bytes().starts_with(b".ferry-part-7-"));
        let stem = part_stem(7, OsStr::new("big.iso"));
        assert!(base.as_bytes().starts_with(stem.as_bytes()));
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

    /// A kept part goes to the name asked for only for its own source's state; one no answer
    /// took is removed with the plan.
    #[test]
    fn kept_parts_are_taken_for_their_source_and_the_rest_removed() {
        let dir = tempfile::tempdir().unwrap();
        let fd = Arc::new(fs::open_dir_path(dir.path()).unwrap());
        std::fs::write(dir.path().join("p1"), "one").unwrap();
        std::fs::write(dir.path().join("p2"), "two").unwrap();
        let parts = AskedParts::default();
        parts.keep(
            source_of(&meta(5, 100, 10)),
            Arc::clone(&fd),
            "p1".into(),
            51,
        );
        parts.keep(
            source_of(&meta(6, 100, 10)),
            Arc::clone(&fd),
            "p2".into(),
            61,
        );
        assert_eq!(parts.put(&meta(5, 100, 11), &fd, OsStr::new("x")), None);
        assert_eq!(
            parts.put(&meta(5, 100, 10), &fd, OsStr::new("new")),
            Some(51)
        );
        assert_eq!(std::fs::read(dir.path().join("new")).unwrap(), b"one");
        assert_eq!(parts.put(&meta(5, 100, 10), &fd, OsStr::new("again")), None);
        drop(parts);
        let mut left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(left.len(), 1, "p2 removed");
        assert_eq!(left.pop().unwrap().file_name(), "new");
    }
}
