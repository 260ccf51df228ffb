//! Lists one folder: `getdents` + `statx` relative to the folder's fd, in batches over a channel.
//!
//! The folder is opened once; every entry is stat'ed by name relative to that fd, without
//! following symlinks (a symlink gets one more stat, following it, only to learn the kind of its
//! target). Names are read in chunks; each chunk is stat'ed by a helper thread (two thirds)
//! and the reading thread (the rest, then it reads the next chunk's names), then sent as one
//! [`ListMsg::Batch`]. Chunks start small so the first batch arrives within a few
//! milliseconds, and grow to keep the message count low.
//!
//! Entries are never dropped: a failed stat (the file vanished, or access was refused) yields
//! an entry flagged [`EntryRef::stat_failed`](crate::entry::EntryRef::stat_failed) with the kind
//! from `d_type`; broken symlinks get target kind [`Kind::Unknown`]; names are raw bytes.

use std::ffi::OsStr;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use rustix::fs::{RawDir, StatxFlags};
use rustix::io::Errno;

use crate::entry::{Kind, Listing, Meta};
use crate::error::Error;
use crate::fs;

/// Messages of a streaming listing, in order: any number of batches, then exactly one `Done`
/// (unless the receiver was dropped).
#[derive(Debug)]
pub enum ListMsg {
    /// More entries, in directory order: at most ~1000 in the first batch (so a view can draw
    /// early), up to a few thousand in later ones.
    Batch(Listing),
    /// The listing is complete (`Ok`), was cancelled (`Err(Error::Cancelled)`), or failed.
    Done(Result<(), Error>),
}

/// Entries in the first chunk; small so the first batch is quick even on a slow file system.
const FIRST_CHUNK: usize = 128;
/// Largest chunk: few enough messages for a huge folder, small enough to stay responsive.
const MAX_CHUNK: usize = 4096;
/// A chunk that took longer than this halves the next one (slow or network file systems).
const CHUNK_TIME: Duration = Duration::from_millis(16);
/// Smallest chunk after slow ones halve it.
const MIN_CHUNK: usize = 64;
/// Below this many entries in the reading thread's share of a chunk, handing the helper its
/// share costs more than it saves.
const MIN_PARALLEL_HALF: usize = 32;
/// getdents buffer: ~1000 short names per system call.
const DIRENT_BUF: usize = 32 * 1024;

/// What `statx` is asked for: only what a [`Meta`] holds.
fn statx_mask() -> StatxFlags {
    StatxFlags::TYPE
        | StatxFlags::MODE
        | StatxFlags::NLINK
        | StatxFlags::INO
        | StatxFlags::SIZE
        | StatxFlags::MTIME
}

/// Opens `dir` for listing: read-only, must be a folder, final symlink not followed, closed on
/// exec. Cheap (one `openat`), so callers can report a bad path before streaming.
///
/// A missing or unreadable path gives [`Error::Io`] with op `"open folder"`; a file (or a
/// symlink, which is not followed) gives [`Error::NotADirectory`].
pub fn open_dir(dir: &Path) -> Result<OwnedFd, Error> {
    fs::open_dir_at(rustix::fs::CWD, dir).map_err(|e| match e {
        // ELOOP: the last component is a symlink, which O_NOFOLLOW refuses to open.
        Errno::NOTDIR | Errno::LOOP => Error::NotADirectory {
            path: dir.to_owned(),
        },
        e => Error::io("open folder", dir, e),
    })
}

/// Stats `name` relative to the open folder `dir`, without following symlinks; for a symlink,
/// a second stat (following it) fills [`Meta::target`], left `Unknown` if the link is broken.
///
/// A failed stat (the entry vanished, or access was refused) gives
/// `Meta { stat_failed: true, kind: Kind::Unknown, .. }` with everything else zero.
pub fn stat_at(dir: BorrowedFd<'_>, name: &OsStr) -> Meta {
    stat_entry(dir, name.as_bytes(), Kind::Unknown)
}

/// [`stat_at`], with the kind to report on failure (the lister knows it from `d_type`).
fn stat_entry(dir: BorrowedFd<'_>, name: &[u8], kind_hint: Kind) -> Meta {
    let Ok(st) = fs::statx_at(dir, OsStr::from_bytes(name), false, statx_mask()) else {
        return Meta {
            kind: kind_hint,
            stat_failed: true,
            ..Meta::default()
        };
    };
    let kind = Kind::from_mode(u32::from(st.stx_mode));
    let target = if kind == Kind::Symlink {
        fs::statx_at(dir, OsStr::from_bytes(name), true, StatxFlags::TYPE)
            .map_or(Kind::Unknown, |t| Kind::from_mode(u32::from(t.stx_mode)))
    } else {
        Kind::Unknown
    };
    Meta {
        kind,
        target,
        size: st.stx_size,
        ino: st.stx_ino,
        mode: st.stx_mode,
        nlink: st.stx_nlink,
        mtime_sec: st.stx_mtime.tv_sec,
        mtime_nsec: st.stx_mtime.tv_nsec,
        stat_failed: false,
    }
}

/// Lists `dir` on a background thread; batches come over the returned receiver, the first one
/// quickly. Setting `cancel` or dropping the receiver stops the work early. Errors, including
/// failing to open `dir`, arrive as [`ListMsg::Done`].
pub fn list_streaming(dir: PathBuf, cancel: Arc<AtomicBool>) -> Receiver<ListMsg> {
    let (tx, rx) = crossbeam_channel::unbounded();
    spawn_named(move || {
        let result = open_dir(&dir).and_then(|fd| stream(fd, &dir, &cancel, &tx));
        // The receiver may be gone (it stops us); then nobody wants the result either.
        let _ = tx.send(ListMsg::Done(result));
    });
    rx
}

/// Like [`list_streaming`], for a folder already opened with [`open_dir`].
pub fn list_streaming_fd(fd: OwnedFd, dir: PathBuf, cancel: Arc<AtomicBool>) -> Receiver<ListMsg> {
    let (tx, rx) = crossbeam_channel::unbounded();
    spawn_named(move || {
        let result = stream(fd, &dir, &cancel, &tx);
        let _ = tx.send(ListMsg::Done(result));
    });
    rx
}

/// The path to hand the lister for the folder `path`: one reached through a symlink is listed
/// by following that last link (the lister never follows one itself); its entries are still
/// not followed.
pub fn list_path(path: &Path) -> PathBuf {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => crate::watch::followed(path),
        _ => path.to_owned(),
    }
}

/// The whole listing of `dir`, blocking the calling thread (the helper thread still stats half).
/// Spare capacity is released, so the result is as small as it gets.
pub fn list_all(dir: &Path) -> Result<Listing, Error> {
    let fd = open_dir(dir)?;
    let mut all = Listing::new(dir.to_owned());
    let never = AtomicBool::new(false);
    list_fd(fd, dir, &never, |batch| {
        if all.is_empty() {
            all = batch;
        } else {
            all.append(&batch);
        }
        true
    })?;
    all.shrink_to_fit();
    Ok(all)
}

/// The names of the folders in `dir` (symlinks to folders included), unsorted: what the
/// location bar completes a typed path from. Reads names and `d_type` only; a symlink or an
/// entry of unknown type costs one stat. Blocking.
pub fn folder_names(dir: &Path) -> Result<Vec<std::ffi::OsString>, Error> {
    let fd = fs::open_dir_path(dir).map_err(|e| match e {
        Errno::NOTDIR => Error::NotADirectory {
            path: dir.to_owned(),
        },
        e => Error::io("open folder", dir, e),
    })?;
    let mut names = Vec::new();
    fs::read_dir(&fd, &mut Vec::new(), |name, file_type| {
        let is_dir = match Kind::from_file_type(file_type) {
            Kind::Dir => true,
            Kind::Symlink | Kind::Unknown => fs::statx_at(&fd, name, true, StatxFlags::TYPE)
                .is_ok_and(|st| Kind::from_mode(u32::from(st.stx_mode)) == Kind::Dir),
            _ => false,
        };
        if is_dir {
            names.push(name.to_owned());
        }
        Ok(())
    })
    .map_err(|e| Error::io("read folder", dir, e))?;
    Ok(names)
}

fn spawn_named(f: impl FnOnce() + Send + 'static) {
    thread::Builder::new()
        .name("ferry-lister".into())
        .spawn(f)
        .expect("cannot spawn the lister thread");
}

fn stream(fd: OwnedFd, dir: &Path, cancel: &AtomicBool, tx: &Sender<ListMsg>) -> Result<(), Error> {
    list_fd(fd, dir, cancel, |batch| {
        tx.send(ListMsg::Batch(batch)).is_ok()
    })
}

/// Reads `fd` chunk by chunk, stats each chunk (in parallel when worth it) and hands it to
/// `sink`, which returns false to stop (its receiver is gone).
///
/// Reading is pipelined with stat'ing: while the helper thread stats the larger share of a
/// chunk ([`HELPER_SHARE`]), this thread stats the rest and then reads the next chunk's names,
/// so that neither core idles while `getdents` runs (a third of a `statx`'s cost on tmpfs:
/// with the whole chunk read first, 50,000 entries kept 1.5 of two CPUs busy).
fn list_fd(
    fd: OwnedFd,
    dir: &Path,
    cancel: &AtomicBool,
    mut sink: impl FnMut(Listing) -> bool,
) -> Result<(), Error> {
    let fd = Arc::new(fd);
    let mut helper: Option<Helper> = None;
    let mut buf = Vec::with_capacity(DIRENT_BUF);
    let mut entries = RawDir::new(fd.as_fd(), buf.spare_capacity_mut());
    let mut chunk_len = FIRST_CHUNK;
    let mut started = Instant::now();
    let (mut next, mut at_end) = read_chunk(&mut entries, dir, chunk_len)?;
    while next.0.len() + next.1.len() > 0 {
        if cancel.load(Ordering::Relaxed) {
            return Err(Error::Cancelled);
        }
        let (theirs, mut mine) = next;
        let handed = if mine.len() >= MIN_PARALLEL_HALF {
            let helper = helper.get_or_insert_with(|| Helper::spawn(Arc::clone(&fd)));
            helper.start(theirs);
            Some(&*helper)
        } else {
            let mut all = theirs;
            all.append(&mine);
            mine = all;
            None
        };
        stat_all(fd.as_fd(), &mut mine, cancel);
        let next_len = if started.elapsed() > CHUNK_TIME {
            (chunk_len / 2).max(MIN_CHUNK)
        } else {
            (chunk_len * 2).min(MAX_CHUNK)
        };
        started = Instant::now();
        (next, at_end) = if at_end {
            let none = || Listing::new(dir.to_owned());
            ((none(), none()), true)
        } else {
            read_chunk(&mut entries, dir, next_len)?
        };
        chunk_len = next_len;
        let batch = match handed {
            Some(helper) => {
                let mut first = helper.finish();
                first.append(&mine);
                first
            }
            None => mine,
        };
        if cancel.load(Ordering::Relaxed) {
            return Err(Error::Cancelled);
        }
        if !batch.is_empty() && !sink(batch) {
            return Ok(());
        }
    }
    Ok(())
}

/// The helper's share of a chunk, as a fraction: the reading thread's smaller share leaves it
/// the time to read the next chunk (`getdents` costs about a third of a `statx` an entry on
/// tmpfs; 3/5 left the reader the busier of the two).
const HELPER_SHARE: (usize, usize) = (2, 3);

/// The names (and `d_type` kinds, stat pending) of the next at most `len` entries, as the
/// helper's share and the rest, and whether the folder is read to its end.
fn read_chunk(
    entries: &mut RawDir<'_, BorrowedFd<'_>>,
    dir: &Path,
    len: usize,
) -> Result<((Listing, Listing), bool), Error> {
    let theirs_len = len * HELPER_SHARE.0 / HELPER_SHARE.1;
    let mut theirs = Listing::with_capacity(dir.to_owned(), theirs_len, theirs_len * 16);
    let mut mine =
        Listing::with_capacity(dir.to_owned(), len - theirs_len, (len - theirs_len) * 16);
    while theirs.len() + mine.len() < len {
        let Some(entry) = entries.next() else {
            return Ok(((theirs, mine), true));
        };
        let entry = entry.map_err(|e| Error::io("read folder", dir, e))?;
        let name = entry.file_name().to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        let part = if theirs.len() < theirs_len {
            &mut theirs
        } else {
            &mut mine
        };
        // Stat pending: the d_type kind is what a failed stat will report.
        let pending = Meta {
            kind: Kind::from_file_type(entry.file_type()),
            ..Meta::default()
        };
        part.push(OsStr::from_bytes(name), pending);
    }
    Ok(((theirs, mine), false))
}

/// Stats every entry of `part` in place; stops early (leaving entries pending) on cancel.
fn stat_all(dir: BorrowedFd<'_>, part: &mut Listing, cancel: &AtomicBool) {
    for i in 0..part.len() {
        if cancel.load(Ordering::Relaxed) {
            return;
        }
        let entry = part.entry(i);
        let meta = stat_entry(dir, entry.name_bytes(), entry.kind());
        part.set_meta(i, meta);
    }
}

/// The second core's share: a thread that stats the halves it is sent, for one listing.
struct Helper {
    jobs: Sender<Listing>,
    done: Receiver<Listing>,
}

impl Helper {
    fn spawn(fd: Arc<OwnedFd>) -> Helper {
        let (jobs, job_rx) = crossbeam_channel::bounded::<Listing>(1);
        let (done_tx, done) = crossbeam_channel::bounded(1);
        // The helper never sees the cancel flag: a half is at most MAX_CHUNK / 2 entries, and
        // the thread ends when `jobs` is dropped with the lister's stack.
        let never = AtomicBool::new(false);
        spawn_named(move || {
            for mut part in job_rx {
                stat_all(fd.as_fd(), &mut part, &never);
                if done_tx.send(part).is_err() {
                    return;
                }
            }
        });
        Helper { jobs, done }
    }

    /// Hands `part` to the helper thread; collect it with [`Helper::finish`].
    fn start(&self, part: Listing) {
        self.jobs
            .send(part)
            .expect("lister helper thread ended early");
    }

    /// Waits for the part given to [`Helper::start`], stat'ed.
    fn finish(&self) -> Listing {
        self.done.recv().expect("lister helper thread ended early")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use std::ffi::OsString;
    use std::fs;
    use std::os::unix::fs::symlink;

    fn names(listing: &Listing) -> BTreeSet<OsString> {
        listing.iter().map(|e| e.name().to_owned()).collect()
    }

    #[test]
    fn folder_names_keep_folders_and_links_to_them() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("docs")).unwrap();
        std::fs::write(tmp.path().join("file"), "").unwrap();
        symlink("docs", tmp.path().join("to-docs")).unwrap();
        symlink("file", tmp.path().join("to-file")).unwrap();
        let mut names = folder_names(tmp.path()).unwrap();
        names.sort();
        assert_eq!(names, ["docs", "to-docs"]);
        assert!(matches!(
            folder_names(&tmp.path().join("file")),
            Err(Error::NotADirectory { .. })
        ));
    }

    #[test]
    fn stat_at_reports_kinds_and_failures() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("f"), b"12345").unwrap();
        fs::create_dir(tmp.path().join("d")).unwrap();
        symlink("d", tmp.path().join("to-dir")).unwrap();
        symlink("nowhere", tmp.path().join("broken")).unwrap();
        let fd = open_dir(tmp.path()).unwrap();
        let fd = fd.as_fd();

        let f = stat_at(fd, OsStr::new("f"));
        assert_eq!(
            (f.kind, f.size, f.nlink, f.stat_failed),
            (Kind::File, 5, 1, false)
        );
        assert_eq!(u32::from(f.mode) & 0o170_000, 0o100_000);
        assert_ne!(f.ino, 0);
        assert!(f.mtime_sec > 0);
        assert_eq!(stat_at(fd, OsStr::new("d")).kind, Kind::Dir);
        let to_dir = stat_at(fd, OsStr::new("to-dir"));
        assert_eq!((to_dir.kind, to_dir.target), (Kind::Symlink, Kind::Dir));
        let broken = stat_at(fd, OsStr::new("broken"));
        assert_eq!(
            (broken.kind, broken.target, broken.stat_failed),
            (Kind::Symlink, Kind::Unknown, false)
        );
        let missing = stat_at(fd, OsStr::new("missing"));
        assert_eq!(
            missing,
            Meta {
                stat_failed: true,
                ..Meta::default()
            }
        );
    }

    #[test]
    fn open_dir_errors_name_the_path() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("file");
        fs::write(&file, b"").unwrap();
        let link = tmp.path().join("link");
        symlink(tmp.path(), &link).unwrap();
        let missing = tmp.path().join("missing");

        assert!(matches!(open_dir(&file), Err(Error::NotADirectory { path }) if path == file));
        assert!(matches!(open_dir(&link), Err(Error::NotADirectory { path }) if path == link));
        let err = open_dir(&missing).unwrap_err();
        assert!(err.is_not_found());
        assert!(matches!(&err, Error::Io { op: "open folder", path, .. } if *path == missing));
        assert!(err.to_string().contains("missing"));
    }

    #[test]
    fn lists_everything_in_batches_across_chunk_sizes() {
        let tmp = tempfile::tempdir().unwrap();
        // Enough entries for several chunks, including parallel ones.
        let count = FIRST_CHUNK + 2 * FIRST_CHUNK + 4 * FIRST_CHUNK + 17;
        let mut want = BTreeSet::new();
        for i in 0..count {
            let name = format!("f{i}");
            fs::write(tmp.path().join(&name), vec![b'x'; i % 3]).unwrap();
            want.insert(OsString::from(name));
        }
        fs::create_dir(tmp.path().join("sub")).unwrap();
        want.insert("sub".into());

        let rx = list_streaming(tmp.path().to_owned(), Arc::default());
        let mut all = Listing::default();
        let mut batches = Vec::new();
        let mut done = None;
        for msg in rx {
            match msg {
                ListMsg::Batch(b) => {
                    assert!(done.is_none(), "batch after Done");
                    batches.push(b.len());
                    all.append(&b);
                }
                ListMsg::Done(r) => done = Some(r),
            }
        }
        assert!(matches!(done, Some(Ok(()))));
        assert_eq!(batches[0], FIRST_CHUNK);
        assert!(batches.len() > 2);
        assert_eq!(all.len(), count + 1, "no duplicates");
        assert_eq!(names(&all), want);
        for e in all.iter() {
            assert!(!e.stat_failed());
            if e.name() == "sub" {
                assert_eq!(e.kind(), Kind::Dir);
            } else {
                let i: u64 = e.name().to_str().unwrap()[1..].parse().unwrap();
                assert_eq!((e.kind(), e.size()), (Kind::File, i % 3));
            }
        }
        let blocking = list_all(tmp.path()).unwrap();
        assert_eq!(names(&blocking), want);
        assert_eq!(
            blocking.heap_bytes(),
            blocking
                .iter()
                .map(|e| 48 + e.name_bytes().len())
                .sum::<usize>()
        );
    }

    #[test]
    fn empty_folder_sends_only_done() {
        let tmp = tempfile::tempdir().unwrap();
        let msgs: Vec<_> = list_streaming(tmp.path().to_owned(), Arc::default())
            .iter()
            .collect();
        assert!(matches!(msgs.as_slice(), [ListMsg::Done(Ok(()))]));
        assert!(list_all(tmp.path()).unwrap().is_empty());
    }

    #[test]
    fn errors_and_cancellation_arrive_as_done() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("missing");
        let msgs: Vec<_> = list_streaming(missing.clone(), Arc::default())
            .iter()
            .collect();
        assert!(matches!(msgs.as_slice(), [ListMsg::Done(Err(e))] if e.path() == Some(&*missing)));

        fs::write(tmp.path().join("f"), b"").unwrap();
        let cancel = Arc::new(AtomicBool::new(true));
        let msgs: Vec<_> = list_streaming(tmp.path().to_owned(), cancel)
            .iter()
            .collect();
        assert!(matches!(
            msgs.as_slice(),
            [ListMsg::Done(Err(Error::Cancelled))]
        ));
    }
}
