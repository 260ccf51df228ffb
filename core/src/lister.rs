//! Lists one folder: `getdents` + `statx` relative to the folder's fd, in batches over a channel.
//!
//! The folder is opened once; every entry is stat'ed by name relative to that fd, without
//! following symlinks (a symlink gets one more stat, following it, only to learn the kind of its
//! target). Names are read in chunks; the entries of each chunk are claimed a few at a time by
//! a helper thread and the reading thread (which first reads the next chunk's names), then the
//! chunk is sent as one [`ListMsg::Batch`]. Chunks start small so the first batch arrives within a few
//! milliseconds, and grow to keep the message count low.
//!
//! Entries are never dropped: a failed stat (the file vanished, or access was refused) yields
//! an entry flagged [`EntryRef::stat_failed`](crate::entry::EntryRef::stat_failed) with the kind
//! from `d_type`; broken symlinks get target kind [`Kind::Unknown`]; names are raw bytes.

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::ops::Range;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
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
/// a second stat (following it) fills [`Meta::target`], left `Unknown` if the link is broken,
/// and for a link to a file, its size and modification time are the file's.
///
/// A failed stat (the entry vanished, or access was refused) gives
/// `Meta { stat_error: Some(errno), kind: Kind::Unknown, .. }` with everything else zero.
pub fn stat_at(dir: BorrowedFd<'_>, name: &OsStr) -> Meta {
    stat_entry(dir, name.as_bytes(), Kind::Unknown)
}

/// [`stat_at`], with the kind to report on failure (the lister knows it from `d_type`).
fn stat_entry(dir: BorrowedFd<'_>, name: &[u8], kind_hint: Kind) -> Meta {
    let st = match fs::statx_at(dir, OsStr::from_bytes(name), false, statx_mask()) {
        Ok(st) => st,
        Err(error) => {
            return Meta {
                kind: kind_hint,
                stat_error: Some(error),
                ..Meta::default()
            };
        }
    };
    let kind = Kind::from_mode(u32::from(st.stx_mode));
    let (mut size, mut mtime) = (st.stx_size, st.stx_mtime);
    let target = if kind == Kind::Symlink {
        let wanted = StatxFlags::TYPE | StatxFlags::SIZE | StatxFlags::MTIME;
        match fs::statx_at(dir, OsStr::from_bytes(name), true, wanted) {
            Ok(t) => {
                let target = Kind::from_mode(u32::from(t.stx_mode));
                // A link to a file is shown with what opening it gives, as Dolphin and
                // Nautilus show it: the file's size and time, not the link's own.
                if target == Kind::File {
                    (size, mtime) = (t.stx_size, t.stx_mtime);
                }
                target
            }
            Err(_) => Kind::Unknown,
        }
    } else {
        Kind::Unknown
    };
    Meta {
        kind,
        target,
        size,
        ino: st.stx_ino,
        mode: st.stx_mode,
        nlink: st.stx_nlink,
        mtime_sec: mtime.tv_sec,
        mtime_nsec: mtime.tv_nsec,
        stat_error: None,
    }
}

/// Lists `dir` on a background thread; batches come over the returned receiver, the first one
/// quickly. Setting `cancel` or dropping the receiver stops the work early. Errors, including
/// failing to open `dir`, arrive as [`ListMsg::Done`]. A `dir` that is a symlink is followed
/// ([`list_path`]), on that thread too: the caller never waits on the folder's file system,
/// which may have stopped answering.
pub fn list_streaming(dir: PathBuf, cancel: Arc<AtomicBool>) -> Receiver<ListMsg> {
    let (tx, rx) = crossbeam_channel::unbounded();
    spawn_named(move || {
        let dir = list_path(&dir);
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

/// Reads `fd` chunk by chunk, stats each chunk (on two threads when worth it) and hands it to
/// `sink`, which returns false to stop (its receiver is gone).
///
/// Reading is pipelined with stat'ing: the next chunk's names are read while the helper thread
/// stats the current one, and it is handed over at once, so the helper goes on to it without
/// waiting. Both threads then claim entries of a chunk a [`BLOCK`] at a time, so neither waits
/// for a fixed share: a fixed split (two thirds to the helper) left one thread or the other
/// idle for a third of a 50,000-entry listing, since `getdents` costs more on ext4 than on
/// tmpfs; and with another program busy on one core, a fixed share waits on a descheduled
/// thread, where claiming lets the reader take the whole chunk.
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
    let mut at_end = false;
    // The chunk being stat'ed and the one read ahead.
    let mut ahead: VecDeque<Pending> = VecDeque::with_capacity(2);
    let mut started = Instant::now();
    loop {
        while ahead.len() < 2 && !at_end {
            let chunk;
            (chunk, at_end) = read_chunk(&mut entries, dir, chunk_len)?;
            if chunk.len() >= MIN_SHARED {
                let helper = helper.get_or_insert_with(|| Helper::spawn(Arc::clone(&fd)));
                ahead.push_back(Pending::Shared(helper.share(chunk)));
            } else if !chunk.is_empty() {
                ahead.push_back(Pending::Alone(chunk));
            }
        }
        let Some(pending) = ahead.pop_front() else {
            return Ok(());
        };
        let batch = match pending {
            Pending::Alone(mut chunk) => {
                stat_all(fd.as_fd(), &mut chunk, cancel);
                chunk
            }
            Pending::Shared(chunk) => match Shared::finish(chunk, fd.as_fd(), cancel) {
                Some(chunk) => chunk,
                None => return Err(Error::Cancelled),
            },
        };
        if cancel.load(Ordering::Relaxed) {
            return Err(Error::Cancelled);
        }
        chunk_len = if started.elapsed() > CHUNK_TIME {
            (chunk_len / 2).max(MIN_CHUNK)
        } else {
            (chunk_len * 2).min(MAX_CHUNK)
        };
        started = Instant::now();
        if !sink(batch) {
            return Ok(());
        }
    }
}

/// Below this many entries, a chunk is stat'ed by the reading thread alone: waking the helper
/// costs more than it saves.
const MIN_SHARED: usize = 96;
/// Entries a thread claims at once from a shared chunk: few, so that the last block in flight
/// keeps the other thread waiting only a few stats' time.
const BLOCK: usize = 16;

/// A chunk read and waiting to be stat'ed.
enum Pending {
    /// Stat'ed by the reading thread alone.
    Alone(Listing),
    /// Handed to the helper too; both claim its entries.
    Shared(Arc<Shared>),
}

/// A chunk both threads stat: the names, read only, and the next entry to claim.
struct Shared {
    chunk: Listing,
    next: AtomicUsize,
    /// What the helper stat'ed, and how many entries either thread has finished.
    stated: Mutex<Stated>,
    /// Signalled when the finished count reaches the chunk's length.
    complete: Condvar,
}

#[derive(Default)]
struct Stated {
    finished: usize,
    /// The reader has taken what is here: a block the helper brings later is dropped (the
    /// reader stat'ed it itself).
    taken: bool,
    /// The helper's blocks: where each starts, and their metadata in order.
    starts: Vec<usize>,
    metas: Vec<Meta>,
}

impl Shared {
    fn new(chunk: Listing) -> Shared {
        // Allocated here, by the reading thread: memory the helper allocated would come from
        // its own arena, which the allocator keeps after the listing is gone.
        let stated = Stated {
            finished: 0,
            taken: false,
            starts: Vec::with_capacity(chunk.len().div_ceil(BLOCK)),
            metas: Vec::with_capacity(chunk.len()),
        };
        Shared {
            chunk,
            next: AtomicUsize::new(0),
            stated: Mutex::new(stated),
            complete: Condvar::new(),
        }
    }

    /// The next block of entries no thread has taken, if any is left.
    fn claim(&self) -> Option<Range<usize>> {
        let len = self.chunk.len();
        let start = self.next.fetch_add(BLOCK, Ordering::Relaxed);
        (start < len).then(|| start..(start + BLOCK).min(len))
    }

    /// Stats `block` into `metas` (appended).
    fn stat_block(&self, dir: BorrowedFd<'_>, block: Range<usize>, metas: &mut Vec<Meta>) {
        for i in block {
            let entry = self.chunk.entry(i);
            metas.push(stat_entry(dir, entry.name_bytes(), entry.kind()));
        }
    }

    /// The helper's part of one block it claimed: stats it (into `metas`, a buffer) and hands
    /// the result to the reader.
    fn help(&self, dir: BorrowedFd<'_>, block: Range<usize>, metas: &mut Vec<Meta>) {
        let start = block.start;
        metas.clear();
        self.stat_block(dir, block, metas);
        let mut stated = lock(&self.stated);
        if stated.taken {
            return;
        }
        stated.starts.push(start);
        stated.metas.extend_from_slice(metas);
        self.count(&mut stated, metas.len());
    }

    /// Counts `done` more entries finished; wakes the reader when that completes the chunk.
    fn count(&self, stated: &mut Stated, done: usize) {
        stated.finished += done;
        if stated.finished == self.chunk.len() {
            self.complete.notify_one();
        }
    }

    /// The reading thread's part: claims blocks until none is left, waits a little for the
    /// helper's blocks in flight (then stats them itself), and returns the chunk stat'ed. On cancel, returns at once with the
    /// chunk's entries pending (the caller reports the cancel).
    fn finish(shared: Arc<Shared>, dir: BorrowedFd<'_>, cancel: &AtomicBool) -> Option<Listing> {
        let mut starts = Vec::new();
        let mut metas = Vec::with_capacity(shared.chunk.len());
        while let Some(block) = shared.claim() {
            if cancel.load(Ordering::Relaxed) {
                // The helper stops at its next claim.
                shared.next.store(usize::MAX / 2, Ordering::Relaxed);
                return None;
            }
            starts.push(block.start);
            shared.stat_block(dir, block, &mut metas);
        }
        let len = shared.chunk.len();
        let theirs = {
            let mut stated = lock(&shared.stated);
            let mine = metas.len();
            shared.count(&mut stated, mine);
            // The helper's last block takes a few stats' time, unless the scheduler put it
            // aside (another program busy on its core): then its blocks are done here.
            (stated, _) = (shared.complete)
                .wait_timeout_while(stated, HELPER_PATIENCE, |s| s.finished < len)
                .unwrap_or_else(PoisonError::into_inner);
            let theirs = std::mem::take(&mut *stated);
            stated.taken = true;
            theirs
        };
        if theirs.finished < len {
            let mut handed_in = vec![false; len.div_ceil(BLOCK)];
            for start in starts.iter().chain(&theirs.starts) {
                handed_in[start / BLOCK] = true;
            }
            for block in (0..handed_in.len()).filter(|&b| !handed_in[b]) {
                let start = block * BLOCK;
                starts.push(start);
                shared.stat_block(dir, start..(start + BLOCK).min(len), &mut metas);
            }
        }
        // The helper lets go of the chunk right after its last block: wait that long, and no
        // longer for a descheduled thread (a copy of the chunk costs less than a time slice).
        for _ in 0..UNWRAP_SPINS {
            if Arc::strong_count(&shared) == 1 {
                break;
            }
            std::hint::spin_loop();
        }
        let mut chunk =
            Arc::try_unwrap(shared).map_or_else(|still| still.chunk.clone(), |owned| owned.chunk);
        for (starts, metas) in [(starts, metas), (theirs.starts, theirs.metas)] {
            let mut metas = metas.into_iter();
            for start in starts {
                let end = (start + BLOCK).min(chunk.len());
                for (i, meta) in (start..end).zip(metas.by_ref()) {
                    chunk.set_meta(i, meta);
                }
            }
        }
        Some(chunk)
    }
}

/// How long the reader waits for the helper's blocks in flight before it stats them itself: a
/// block takes tens of microseconds; a descheduled thread waits for a time slice, milliseconds.
const HELPER_PATIENCE: Duration = Duration::from_micros(300);

/// How long the reader waits for the helper to drop a finished chunk, in spins of a few
/// nanoseconds each.
const UNWRAP_SPINS: usize = 4096;

/// The names (and `d_type` kinds, stat pending) of the next at most `len` entries, and whether
/// the folder is read to its end.
fn read_chunk(
    entries: &mut RawDir<'_, BorrowedFd<'_>>,
    dir: &Path,
    len: usize,
) -> Result<(Listing, bool), Error> {
    let mut chunk = Listing::with_capacity(dir.to_owned(), len, len * 16);
    while chunk.len() < len {
        let Some(entry) = entries.next() else {
            return Ok((chunk, true));
        };
        let entry = entry.map_err(|e| Error::io("read folder", dir, e))?;
        let name = entry.file_name().to_bytes();
        if name == b"." || name == b".." {
            continue;
        }
        // Stat pending: the d_type kind is what a failed stat will report.
        let pending = Meta {
            kind: Kind::from_file_type(entry.file_type()),
            ..Meta::default()
        };
        chunk.push(OsStr::from_bytes(name), pending);
    }
    Ok((chunk, false))
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

/// The second core's share: a thread that claims blocks of the chunks it is handed, for one
/// listing; it ends when the lister drops it.
struct Helper {
    jobs: Sender<Arc<Shared>>,
}

impl Helper {
    fn spawn(fd: Arc<OwnedFd>) -> Helper {
        // Unbounded: a helper that is not running must never hold the reader up. At most the
        // two chunks in flight wait in it.
        let (jobs, job_rx) = crossbeam_channel::unbounded::<Arc<Shared>>();
        // Beside the reader, which goes on reading the next chunk meanwhile.
        let helper = thread::Builder::new().name("ferry-lister".into());
        crate::cpus::spawn(helper, move || {
            let mut metas = Vec::with_capacity(BLOCK);
            for shared in job_rx {
                while let Some(block) = shared.claim() {
                    shared.help(fd.as_fd(), block, &mut metas);
                }
            }
        })
        .expect("cannot spawn the lister thread");
        Helper { jobs }
    }

    /// Hands `chunk` to the helper thread; the caller claims its share with [`Shared::finish`].
    fn share(&self, chunk: Listing) -> Arc<Shared> {
        let shared = Arc::new(Shared::new(chunk));
        self.jobs
            .send(Arc::clone(&shared))
            .expect("lister helper thread ended early");
        shared
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;
    use std::ffi::OsString;
    use std::fs;
    use std::os::unix::fs::symlink;
    use std::time::Duration;

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
            (f.kind, f.size, f.nlink, f.stat_failed()),
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
            (broken.kind, broken.target, broken.stat_failed()),
            (Kind::Symlink, Kind::Unknown, false)
        );
        let missing = stat_at(fd, OsStr::new("missing"));
        assert_eq!(
            missing,
            Meta {
                stat_error: Some(Errno::NOENT),
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
    fn a_chunk_both_threads_stat_gets_each_entry_its_own_details() {
        let tmp = tempfile::tempdir().unwrap();
        let count = 10 * BLOCK + 3;
        for i in 0..count {
            fs::write(tmp.path().join(format!("f{i}")), vec![b'x'; i]).unwrap();
        }
        let fd = open_dir(tmp.path()).unwrap();
        let mut buf = Vec::with_capacity(DIRENT_BUF);
        let mut entries = RawDir::new(fd.as_fd(), buf.spare_capacity_mut());
        let (chunk, at_end) = read_chunk(&mut entries, tmp.path(), count + 1).unwrap();
        assert!(at_end);
        // A helper that stats its first block before the reader starts (merged), or claims it
        // and is put aside for far longer than the reader waits (done again by the reader, the
        // helper's late result dropped); either way it keeps the chunk a while after.
        for late in [false, true] {
            let shared = Arc::new(Shared::new(chunk.clone()));
            let (ready_tx, ready) = crossbeam_channel::bounded(0);
            let helper = {
                let (shared, fd) = (Arc::clone(&shared), fd.try_clone().unwrap());
                thread::spawn(move || {
                    let block = shared.claim().unwrap();
                    if late {
                        ready_tx.send(()).unwrap();
                        thread::sleep(Duration::from_millis(50));
                        shared.help(fd.as_fd(), block, &mut Vec::new());
                    } else {
                        shared.help(fd.as_fd(), block, &mut Vec::new());
                        ready_tx.send(()).unwrap();
                    }
                    thread::sleep(Duration::from_millis(50));
                })
            };
            ready.recv().unwrap();
            let never = AtomicBool::new(false);
            let listing = Shared::finish(shared, fd.as_fd(), &never).unwrap();
            helper.join().unwrap();
            assert_eq!(listing.len(), count);
            for e in listing.iter() {
                let i: u64 = e.name().to_str().unwrap()[1..].parse().unwrap();
                let got = (e.kind(), e.size(), e.stat_failed());
                assert_eq!(got, (Kind::File, i, false), "late: {late}");
            }
        }
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
