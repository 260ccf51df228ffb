//! Conflicts and per-item errors as data: what a job asks, how it is answered, and the
//! per-job mailbox between [`Engine::resolve`](super::Engine::resolve) and the job's threads.
//!
//! A copy or move finds every conflict of its batch in its one plan walk and reports them
//! together ([`Event::Conflicts`](super::Event::Conflicts)). With
//! [`ConflictPolicy::Ask`](super::ConflictPolicy::Ask) the conflicting items wait while the
//! rest is copied; each answer turns the item into a small follow-up plan (a new root of the
//! same plan) that runs as soon as the current pass ends. An answer "for all of its kind"
//! also answers the conflicts of that kind found later, without asking again.

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use rustix::fd::AsFd;

use super::lock;
use crate::entry::Kind;
use crate::fs::Timestamp;

/// Identifies one conflict of a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ConflictId(pub u64);

/// Identifies one error request of a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ErrorId(pub u64);

/// What stands in the way of an item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ConflictKind {
    /// A file (or link, or other non-folder) of that name exists at the destination.
    FileExists,
    /// A folder of that name exists at the destination: merge ("write into") or not.
    FolderExists,
    /// A file onto a folder, or a folder onto a file.
    FileVsFolder,
    /// Two sources of the batch have one name; `dest` of the conflict is the first of them.
    DuplicateSource,
    /// The name cannot exist on the destination file system (FAT/NTFS characters, or longer
    /// than its name limit).
    NameNotAllowed,
}

/// One side of a conflict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryInfo {
    /// Full path.
    pub path: PathBuf,
    /// Its name (last component), as bytes; the incoming item's, the name it would have
    /// there (a trashed item's in the trash may differ, as a copy's given a new name does).
    pub name: OsString,
    /// Size in bytes (files).
    pub size: u64,
    /// Modification time.
    pub mtime: Timestamp,
    /// File type.
    pub kind: Kind,
    /// Where a link points, as stored (links only; `None` if it could not be read).
    pub link_target: Option<PathBuf>,
}

impl EntryInfo {
    /// The item at `path`, named by its last component; a link's target is read.
    pub fn new(path: PathBuf, size: u64, mtime: Timestamp, kind: Kind) -> EntryInfo {
        let link_target = (kind == Kind::Symlink)
            .then(|| rustix::fs::readlink(&path, Vec::new()).ok())
            .flatten()
            .map(|t| PathBuf::from(OsString::from_vec(t.into_bytes())));
        EntryInfo {
            name: path.file_name().unwrap_or_default().to_owned(),
            path,
            size,
            mtime,
            kind,
            link_target,
        }
    }

    /// [`new`](Self::new) from what a stat found there (`None`: nothing, or unreadable).
    pub(crate) fn of(path: PathBuf, meta: Option<&crate::fs::Meta>) -> EntryInfo {
        let (size, mtime) = meta.map_or((0, Timestamp::default()), |m| (m.size, m.mtime));
        EntryInfo::new(path, size, mtime, meta.map_or(Kind::Unknown, |m| m.kind))
    }
}

/// A conflict waiting for (or decided by) a [`Resolution`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// Its id within the job, for [`Engine::resolve`](super::Engine::resolve).
    pub id: ConflictId,
    /// What kind of conflict.
    pub kind: ConflictKind,
    /// The item being copied or moved.
    pub source: EntryInfo,
    /// What is in its way (for [`ConflictKind::NameNotAllowed`]: the destination it would
    /// have had).
    pub dest: EntryInfo,
    /// Both are files of the same size with the same sampled head, middle and tail bytes,
    /// or links to the same target.
    pub likely_identical: bool,
}

/// An answer to a conflict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// Put the source in place; the old item is kept in a staging folder for undo.
    Replace,
    /// Replace only if the source is newer (modification time); skip otherwise.
    ReplaceIfNewer,
    /// Leave the destination alone; the item is reported skipped.
    Skip,
    /// Give the source a free name in the same folder: `name (copy).ext`,
    /// `name (copy 2).ext`, ... (see [`keep_both_name`]).
    KeepBoth,
    /// Give the source this name (one path component) in the same folder.
    RenameTo(OsString),
    /// Folders: write into the existing folder, never deleting what only it holds.
    Merge,
    /// Cancel the whole job.
    Cancel,
}

impl Resolution {
    /// Whether this answer makes sense for a conflict of `kind`.
    pub fn applies_to(&self, kind: ConflictKind) -> bool {
        match self {
            Resolution::Skip | Resolution::Cancel => true,
            Resolution::RenameTo(name) => is_one_component(name),
            Resolution::KeepBoth => kind != ConflictKind::NameNotAllowed,
            Resolution::Merge => kind == ConflictKind::FolderExists,
            Resolution::Replace | Resolution::ReplaceIfNewer => matches!(
                kind,
                ConflictKind::FileExists | ConflictKind::FileVsFolder | ConflictKind::FolderExists
            ),
        }
    }
}

/// How far an answer reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Only this conflict.
    This,
    /// This one, every waiting conflict of the same kind, and those found later in the job.
    AllOfKind,
}

/// What a job does when an item fails with a non-terminal error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ErrorPolicy {
    /// Record the failure and go on (the CLI without a terminal).
    #[default]
    Skip,
    /// Ask ([`Event::ItemError`](super::Event::ItemError)); the failing worker waits for the
    /// answer while the others go on.
    Ask,
}

/// An answer to an [`Event::ItemError`](super::Event::ItemError).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorAction {
    /// Try the item again.
    Retry,
    /// Leave the item as it is, record it as skipped after that error, and go on.
    Skip,
    /// Like `Skip`, and skip later errors of the same kind (same OS error) without asking.
    SkipAllOfKind,
    /// Cancel the whole job.
    Cancel,
}

fn is_one_component(name: &OsStr) -> bool {
    let b = name.as_bytes();
    !b.is_empty() && b != b"." && b != b".." && !b.contains(&b'/') && !b.contains(&0)
}

/// File systems that refuse the characters Windows refuses.
pub(crate) fn is_windows_fs(fs_type: &str) -> bool {
    matches!(
        fs_type,
        "vfat" | "msdos" | "fat" | "exfat" | "ntfs" | "ntfs3" | "fuseblk"
    )
}

/// Whether `name` can exist on a file system of type `fs_type` whose names are at most
/// `name_max` bytes long (`f_namelen` of `fstatfs`).
pub fn name_allowed(name: &OsStr, fs_type: &str, name_max: usize) -> bool {
    name_fits(name, is_windows_fs(fs_type), name_max)
}

/// Whether `name` can exist where names are at most `name_max` bytes and, if
/// `windows_names`, limited as on Windows.
pub(crate) fn name_fits(name: &OsStr, windows_names: bool, name_max: usize) -> bool {
    let b = name.as_bytes();
    if b.len() > name_max {
        return false;
    }
    if !windows_names {
        return true;
    }
    let bad = |c: &u8| *c < 0x20 || b"\"*:<>?\\|".contains(c);
    !b.iter().any(bad) && !matches!(b.last(), Some(b'.' | b' '))
}

/// Extensions made of two parts, kept whole when a name is changed.
const DOUBLE_EXTENSIONS: [&[u8]; 6] = [
    b".tar.gz",
    b".tar.bz2",
    b".tar.xz",
    b".tar.zst",
    b".tar.lz",
    b".tar.lzma",
];

/// Splits a name into stem and extension (`.tar.gz` counts as one; a leading dot, as in
/// `.bashrc`, is part of the stem).
pub(crate) fn split_extension(name: &[u8]) -> (&[u8], &[u8]) {
    let lower = name.to_ascii_lowercase();
    for ext in DOUBLE_EXTENSIONS {
        if lower.ends_with(ext) && name.len() > ext.len() {
            let at = name.len() - ext.len();
            return name.split_at(at);
        }
    }
    match name.iter().rposition(|&c| c == b'.') {
        Some(0) | None => (name, b""),
        Some(at) => name.split_at(at),
    }
}

/// Cuts `stem` to at most `max` bytes, at a character boundary when it is UTF-8.
pub(crate) fn trim_stem(stem: &[u8], max: usize) -> &[u8] {
    if stem.len() <= max {
        return stem;
    }
    match std::str::from_utf8(stem) {
        Ok(s) => {
            let mut end = max;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            &stem[..end]
        }
        Err(_) => &stem[..max],
    }
}

/// A free name for a second copy of `name`, following the convention of GNOME Files and
/// Ferry's duplicate command: `report (copy).pdf`, then `report (copy 2).pdf`, ...;
/// `archive.tar.gz` becomes `archive (copy).tar.gz`. A `folder` has no extension, as in
/// GNOME Files: `photos.2024 (copy)`. A name already ending in ` (copy)` or ` (copy N)`
/// counts on from there instead of growing. The stem is shortened when needed so that the
/// result fits in `name_max` bytes. `taken` tells whether a name is in use.
pub fn keep_both_name(
    name: &OsStr,
    folder: bool,
    name_max: usize,
    taken: impl FnMut(&OsStr) -> bool,
) -> OsString {
    free_name(name, "copy", folder, name_max, taken)
}

/// Like [`keep_both_name`] for a symbolic link beside an item of the same name:
/// `report (link).pdf`, `report (link 2).pdf`, ...
pub(crate) fn keep_both_link_name(
    name: &OsStr,
    name_max: usize,
    taken: impl FnMut(&OsStr) -> bool,
) -> OsString {
    free_name(name, "link", false, name_max, taken)
}

/// `stem (word).ext`, `stem (word 2).ext`, ...: the first that `taken` does not refuse; the
/// whole name is the stem of a `folder`.
fn free_name(
    name: &OsStr,
    word: &str,
    folder: bool,
    name_max: usize,
    mut taken: impl FnMut(&OsStr) -> bool,
) -> OsString {
    let (stem, ext) = match folder {
        true => (name.as_bytes(), &b""[..]),
        false => split_extension(name.as_bytes()),
    };
    let (stem, first) = strip_suffix(stem, word);
    for n in first.. {
        let suffix = match n {
            1 => format!(" ({word})"),
            n => format!(" ({word} {n})"),
        };
        let room = name_max.saturating_sub(suffix.len() + ext.len());
        let mut candidate = trim_stem(stem, room).to_vec();
        candidate.extend_from_slice(suffix.as_bytes());
        candidate.extend_from_slice(ext);
        let candidate = OsString::from_vec(candidate);
        if !taken(&candidate) {
            return candidate;
        }
    }
    unreachable!("an unbounded range always yields a free name")
}

/// With `word` "copy": `a (copy 3)` -> (`a`, 4); `a (copy)` -> (`a`, 2); `a` -> (`a`, 1).
fn strip_suffix<'a>(stem: &'a [u8], word: &str) -> (&'a [u8], u64) {
    let (once, counted) = (format!(" ({word})"), format!(" ({word} "));
    if let Some(s) = stem.strip_suffix(once.as_bytes()) {
        return (s, 2);
    }
    if let Some(inner) = stem.strip_suffix(b")")
        && let Some(at) = inner
            .windows(counted.len())
            .rposition(|w| w == counted.as_bytes())
        && let Ok(n) = std::str::from_utf8(&inner[at + counted.len()..])
            .unwrap_or("x")
            .parse::<u64>()
    {
        return (&stem[..at], n + 1);
    }
    (stem, 1)
}

/// Sample size at the head, middle and tail of a file.
const SAMPLE: usize = 4096;

/// Whether two open files of `size` bytes each have the same head, middle and tail samples.
pub(crate) fn same_samples(a: impl AsFd, b: impl AsFd, size: u64) -> bool {
    let mut offsets = vec![0];
    if size > SAMPLE as u64 {
        offsets.push(size / 2);
        offsets.push(size - SAMPLE as u64);
    }
    let (mut x, mut y) = (vec![0u8; SAMPLE], vec![0u8; SAMPLE]);
    offsets.into_iter().all(|off| {
        let want = (size - off).min(SAMPLE as u64) as usize;
        let read = |fd: &dyn AsFd, buf: &mut [u8]| {
            rustix::io::pread(fd.as_fd(), &mut buf[..want], off).is_ok_and(|n| n == want)
        };
        read(&a, &mut x) && read(&b, &mut y) && x[..want] == y[..want]
    })
}

/// Whether two open files of `size` bytes each hold the same bytes, every one of them: what
/// decides that one is the other's copy, whenever that decision removes an item or counts the
/// user's file as the job's own. Samples tell different files apart at once in most cases; a
/// file that differs only between them (a disk image, a database, a rebuilt binary with fixed
/// times) is read through.
pub(crate) fn same_bytes(a: impl AsFd, b: impl AsFd, size: u64) -> bool {
    const CHUNK: usize = 256 << 10;
    if !same_samples(&a, &b, size) {
        return false;
    }
    let (mut x, mut y) = (vec![0u8; CHUNK], vec![0u8; CHUNK]);
    let mut off = 0u64;
    while off < size {
        let want = (size - off).min(CHUNK as u64) as usize;
        let (x, y) = (&mut x[..want], &mut y[..want]);
        if !(pread_full(&a, x, off) && pread_full(&b, y, off) && x == y) {
            return false;
        }
        off += want as u64;
    }
    // Neither grew since `size` was read.
    let at_end = |fd: &dyn AsFd| {
        let mut past = [0u8; 1];
        rustix::io::pread(fd.as_fd(), &mut past, size).is_ok_and(|n| n == 0)
    };
    at_end(&a) && at_end(&b)
}

/// Fills `buf` from `fd` at `off`; false on an error or an early end.
fn pread_full(fd: impl AsFd, buf: &mut [u8], mut off: u64) -> bool {
    let mut filled = 0;
    while filled < buf.len() {
        match rustix::io::pread(fd.as_fd(), &mut buf[filled..], off) {
            Ok(0) | Err(_) => return false,
            Ok(n) => {
                filled += n;
                off += n as u64;
            }
        }
    }
    true
}

/// An item waiting for an answer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Waiting {
    pub(crate) item: u32,
    pub(crate) kind: ConflictKind,
    /// What was in the way when asked, if known: an answer holds for it alone.
    pub(crate) existing: Option<crate::fs::FileId>,
}

#[derive(Default)]
struct AskState {
    next_conflict: u64,
    pending: HashMap<ConflictId, Waiting>,
    answered: Vec<(Waiting, Resolution)>,
    for_kind: HashMap<ConflictKind, Resolution>,
    next_error: u64,
    /// Error requests: the OS error, and the answer once given.
    errors: HashMap<ErrorId, (Option<i32>, Option<ErrorAction>)>,
    skip_errors: HashSet<i32>,
}

/// A job's questions and their answers (lives in the job's control block).
#[derive(Default)]
pub(crate) struct Asks {
    state: Mutex<AskState>,
    changed: Condvar,
}

/// How often a waiting thread looks at the cancel flag without a wake-up.
const POLL: Duration = Duration::from_millis(50);

impl Asks {
    /// Registers a conflict of `item`: answered at once (None) when an earlier answer covers
    /// its kind, else a new id to ask about.
    pub(crate) fn add(&self, item: u32, kind: ConflictKind) -> Option<ConflictId> {
        self.add_about(item, kind, None)
    }

    /// [`add`](Self::add), knowing what is in the way (`existing`): an answer given is then
    /// carried out only on that very item (another program may put another there before).
    pub(crate) fn add_about(
        &self,
        item: u32,
        kind: ConflictKind,
        existing: Option<crate::fs::FileId>,
    ) -> Option<ConflictId> {
        let mut s = lock(&self.state);
        let w = Waiting {
            item,
            kind,
            existing,
        };
        if let Some(r) = s.for_kind.get(&kind).cloned() {
            s.answered.push((w, r));
            self.changed.notify_all();
            return None;
        }
        s.next_conflict += 1;
        let id = ConflictId(s.next_conflict);
        s.pending.insert(id, w);
        Some(id)
    }

    /// Records a decision taken without asking (a policy, or a duplicate in place).
    pub(crate) fn decided(&self, item: u32, kind: ConflictKind, resolution: Resolution) {
        lock(&self.state).answered.push((
            Waiting {
                item,
                kind,
                existing: None,
            },
            resolution,
        ));
    }

    /// Applies an answer; false if `id` is not waiting or the answer does not fit its kind.
    pub(crate) fn resolve(&self, id: ConflictId, resolution: Resolution, scope: Scope) -> bool {
        let mut s = lock(&self.state);
        let Some(&w) = s.pending.get(&id) else {
            return false;
        };
        if !resolution.applies_to(w.kind)
            || (scope == Scope::AllOfKind && matches!(resolution, Resolution::RenameTo(_)))
        {
            return false;
        }
        s.pending.remove(&id);
        s.answered.push((w, resolution.clone()));
        if scope == Scope::AllOfKind {
            let same: Vec<ConflictId> = s
                .pending
                .iter()
                .filter(|(_, p)| p.kind == w.kind)
                .map(|(id, _)| *id)
                .collect();
            for id in same {
                let p = s.pending.remove(&id).expect("listed above");
                s.answered.push((p, resolution.clone()));
            }
            s.for_kind.insert(w.kind, resolution);
        }
        self.changed.notify_all();
        true
    }

    /// Whether conflict `id` waits for an answer.
    pub(crate) fn is_waiting(&self, id: ConflictId) -> bool {
        lock(&self.state).pending.contains_key(&id)
    }

    /// Answers available now, and whether others are still waiting.
    pub(crate) fn take(&self) -> (Vec<(Waiting, Resolution)>, bool) {
        let mut s = lock(&self.state);
        (std::mem::take(&mut s.answered), !s.pending.is_empty())
    }

    /// Waits until an answer arrives or `stop()` says to give up.
    pub(crate) fn wait(&self, stop: impl Fn() -> bool) {
        let mut s = lock(&self.state);
        while s.answered.is_empty() && !s.pending.is_empty() && !stop() {
            s = self
                .changed
                .wait_timeout(s, POLL)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Wakes every waiting thread (the job was cancelled).
    pub(crate) fn wake(&self) {
        self.changed.notify_all();
    }

    /// Registers an error request, unless errors with this OS error are skipped without
    /// asking (then `None`).
    pub(crate) fn add_error(&self, errno: Option<i32>) -> Option<ErrorId> {
        let mut s = lock(&self.state);
        if errno.is_some_and(|e| s.skip_errors.contains(&e)) {
            return None;
        }
        s.next_error += 1;
        let id = ErrorId(s.next_error);
        s.errors.insert(id, (errno, None));
        Some(id)
    }

    /// Answers an error request; false if it is not waiting. `SkipAllOfKind` also answers
    /// the waiting requests with the same OS error. `accepted` runs first when it is waiting,
    /// under the lock its worker reads the answer with: what it records (a Cancel's cancel)
    /// is in effect by the time the worker goes on.
    pub(crate) fn resolve_error(
        &self,
        id: ErrorId,
        action: ErrorAction,
        accepted: impl FnOnce(),
    ) -> bool {
        let mut s = lock(&self.state);
        let errno = match s.errors.get_mut(&id) {
            Some((errno, slot @ None)) => {
                accepted();
                *slot = Some(action);
                *errno
            }
            _ => return false,
        };
        if let (ErrorAction::SkipAllOfKind, Some(e)) = (action, errno) {
            s.skip_errors.insert(e);
            for (other, slot) in s.errors.values_mut() {
                if *other == Some(e) && slot.is_none() {
                    *slot = Some(ErrorAction::Skip);
                }
            }
        }
        self.changed.notify_all();
        true
    }

    /// Waits for the answer to error request `id` (`Cancel` when `stop()` says the job is
    /// stopping first).
    pub(crate) fn wait_error(&self, id: ErrorId, stop: impl Fn() -> bool) -> ErrorAction {
        let mut s = lock(&self.state);
        loop {
            if let Some((_, Some(action))) = s.errors.get(&id).copied() {
                s.errors.remove(&id);
                return action;
            }
            if stop() {
                s.errors.remove(&id);
                return ErrorAction::Cancel;
            }
            s = self
                .changed
                .wait_timeout(s, POLL)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kb(name: &str, max: usize, taken: &[&str]) -> String {
        let n = keep_both_name(OsStr::new(name), false, max, |c| {
            taken.iter().any(|t| OsStr::new(t) == c)
        });
        n.into_string().unwrap()
    }

    #[test]
    fn keep_both_keeps_the_extension() {
        assert_eq!(kb("report.pdf", 255, &[]), "report (copy).pdf");
        assert_eq!(
            kb("report.pdf", 255, &["report (copy).pdf"]),
            "report (copy 2).pdf"
        );
        assert_eq!(kb("a.tar.gz", 255, &[]), "a (copy).tar.gz");
        assert_eq!(kb("A.TAR.GZ", 255, &[]), "A (copy).TAR.GZ");
        assert_eq!(kb(".bashrc", 255, &[]), ".bashrc (copy)");
        assert_eq!(kb("folder", 255, &[]), "folder (copy)");
        assert_eq!(kb("x (copy).txt", 255, &[]), "x (copy 2).txt");
        assert_eq!(kb("x (copy 7).txt", 255, &[]), "x (copy 8).txt");
    }

    #[test]
    fn a_folder_kept_beside_one_has_no_extension() {
        let folder = |name: &str, taken: &[&str]| {
            keep_both_name(OsStr::new(name), true, 255, |c| {
                taken.iter().any(|t| OsStr::new(t) == c)
            })
            .into_string()
            .unwrap()
        };
        assert_eq!(folder("photos.2024", &[]), "photos.2024 (copy)");
        assert_eq!(folder("backup.tar.gz", &[]), "backup.tar.gz (copy)");
        assert_eq!(folder("dir.v2", &["dir.v2 (copy)"]), "dir.v2 (copy 2)");
        assert_eq!(folder("dir.v2 (copy 2)", &[]), "dir.v2 (copy 3)");
    }

    #[test]
    fn a_link_kept_beside_an_item_is_named_link() {
        let link = |name: &str, taken: &[&str]| {
            keep_both_link_name(OsStr::new(name), 255, |c| {
                taken.iter().any(|t| OsStr::new(t) == c)
            })
            .into_string()
            .unwrap()
        };
        assert_eq!(link("report.pdf", &[]), "report (link).pdf");
        assert_eq!(
            link("report.pdf", &["report (link).pdf"]),
            "report (link 2).pdf"
        );
        assert_eq!(link("Photos", &[]), "Photos (link)");
        assert_eq!(link("x (link 2).txt", &[]), "x (link 3).txt");
        assert_eq!(link("x (copy).txt", &[]), "x (copy) (link).txt");
    }

    #[test]
    fn keep_both_fits_the_name_limit() {
        let long = format!("{}.txt", "é".repeat(125)); // 254 bytes
        let n = kb(&long, 255, &[]);
        assert!(n.len() <= 255 && n.ends_with(" (copy).txt"), "{n}");
        let n = kb(&long, 255, &[&n]);
        assert!(n.len() <= 255 && n.ends_with(" (copy 2).txt"), "{n}");
    }

    #[test]
    fn fat_names_are_checked() {
        assert!(name_allowed(OsStr::new("a:b"), "ext4", 255));
        assert!(!name_allowed(OsStr::new("a:b"), "vfat", 255));
        assert!(!name_allowed(OsStr::new("a."), "exfat", 255));
        assert!(!name_allowed(OsStr::new("abc"), "ext4", 2));
        assert!(name_allowed(OsStr::new("ok name.txt"), "ntfs3", 255));
    }

    #[test]
    fn answers_for_all_of_a_kind_cover_later_conflicts() {
        let asks = Asks::default();
        let a = asks.add(1, ConflictKind::FileExists).unwrap();
        let b = asks.add(2, ConflictKind::FileExists).unwrap();
        let c = asks.add(3, ConflictKind::FolderExists).unwrap();
        assert!(asks.resolve(c, Resolution::KeepBoth, Scope::This));
        assert!(
            !asks.resolve(a, Resolution::Merge, Scope::This),
            "merge is for folders"
        );
        assert!(asks.resolve(a, Resolution::Skip, Scope::AllOfKind));
        assert!(
            !asks.resolve(b, Resolution::Skip, Scope::This),
            "already answered"
        );
        assert_eq!(asks.add(4, ConflictKind::FileExists), None);
        let (answers, waiting) = asks.take();
        let items: Vec<u32> = answers.iter().map(|(w, _)| w.item).collect();
        assert_eq!(items, [3, 1, 2, 4]);
        assert!(!waiting);
    }

    #[test]
    fn identical_files_are_found_by_samples_then_in_full() {
        let dir = std::env::temp_dir().join(format!("ferry-samples-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let data: Vec<u8> = (0..20_000u32).map(|i| i as u8).collect();
        std::fs::write(dir.join("a"), &data).unwrap();
        std::fs::write(dir.join("b"), &data).unwrap();
        let mut other = data;
        other[10_000] ^= 1;
        std::fs::write(dir.join("c"), &other).unwrap();
        let open = |n: &str| std::fs::File::open(dir.join(n)).unwrap();
        assert!(same_samples(open("a"), open("b"), 20_000));
        assert!(!same_samples(open("a"), open("c"), 20_000));
        assert!(same_bytes(open("a"), open("b"), 20_000));
        assert!(!same_bytes(open("a"), open("c"), 20_000));
        // Files that differ only between the samples: alike by samples, told apart in full,
        // also past the first chunk read.
        let big: Vec<u8> = (0..1_000_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(dir.join("d"), &big).unwrap();
        std::fs::write(dir.join("e"), &big).unwrap();
        let mut between = big;
        between[700_001] ^= 1;
        std::fs::write(dir.join("f"), &between).unwrap();
        assert!(same_samples(open("d"), open("f"), 1_000_000));
        assert!(!same_bytes(open("d"), open("f"), 1_000_000));
        assert!(same_bytes(open("d"), open("e"), 1_000_000));
        // One grown past the size read is not the same.
        std::fs::write(dir.join("g"), [&between[..], b"+"].concat()).unwrap();
        assert!(!same_bytes(open("f"), open("g"), 1_000_000));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
