//! The compact entry table of one folder.
//!
//! A [`Listing`] holds every entry as a fixed-size 48-byte [`Record`] plus its name in one shared
//! byte arena, so a folder of 200,000 files with 12-byte names costs about 60 bytes per entry and
//! two allocations, instead of one heap `OsString` and a fat struct per file. Names are raw bytes
//! (`OsStr`), never converted lossily. Entries are read through the borrowed view [`EntryRef`].

use std::ffi::OsStr;
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustix::io::Errno;

/// What kind of file system object an entry is: the one type for it in Ferry, shared by the
/// listing, the job engine ([`fs::Meta`](crate::fs::Meta)) and what a conflict shows
/// ([`EntryInfo`](crate::jobs::EntryInfo)).
#[repr(u8)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Not known: the stat failed, or (as a symlink target) the link is broken.
    #[default]
    Unknown,
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// A symbolic link (never followed; see [`EntryRef::target_kind`]).
    Symlink,
    /// A named pipe.
    Fifo,
    /// A Unix domain socket.
    Socket,
    /// A block device.
    BlockDevice,
    /// A character device.
    CharDevice,
}

impl Kind {
    /// The kind `getdents` or `statx` reports as a `rustix` file type.
    pub fn from_file_type(file_type: rustix::fs::FileType) -> Kind {
        use rustix::fs::FileType;
        match file_type {
            FileType::RegularFile => Kind::File,
            FileType::Directory => Kind::Dir,
            FileType::Symlink => Kind::Symlink,
            FileType::Fifo => Kind::Fifo,
            FileType::Socket => Kind::Socket,
            FileType::CharacterDevice => Kind::CharDevice,
            FileType::BlockDevice => Kind::BlockDevice,
            FileType::Unknown => Kind::Unknown,
        }
    }

    /// A short noun for messages ("file", "folder", "link", ...).
    pub fn noun(self) -> &'static str {
        match self {
            Kind::File => "file",
            Kind::Dir => "folder",
            Kind::Symlink => "link",
            Kind::Fifo => "named pipe",
            Kind::Socket => "socket",
            Kind::CharDevice => "character device",
            Kind::BlockDevice => "block device",
            Kind::Unknown => "item of unknown type",
        }
    }

    /// The kind encoded in the type bits (`S_IFMT`) of an `st_mode`.
    pub fn from_mode(mode: u32) -> Kind {
        match mode & 0o170_000 {
            0o100_000 => Kind::File,
            0o040_000 => Kind::Dir,
            0o120_000 => Kind::Symlink,
            0o010_000 => Kind::Fifo,
            0o140_000 => Kind::Socket,
            0o060_000 => Kind::BlockDevice,
            0o020_000 => Kind::CharDevice,
            _ => Kind::Unknown,
        }
    }
}

/// Set in [`Record::flags`] when the entry could not be stat'ed (it vanished, or access was
/// refused); its metadata is then zero and only the name (and maybe the kind) is known.
const STAT_FAILED: u8 = 1;

/// One entry's fixed-size record; its name lives in the owning [`Listing`]'s arena.
///
/// Fields are ordered largest first so the record packs into 48 bytes with no interior padding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    size: u64,
    ino: u64,
    mtime_sec: i64,
    name_off: u32,
    mtime_nsec: u32,
    nlink: u32,
    name_len: u16,
    /// `st_mode` including the type bits.
    mode: u16,
    kind: Kind,
    /// For symlinks: the kind of what the link points to, `Unknown` if broken.
    target: Kind,
    flags: u8,
}

/// The size of one [`Record`] in bytes (the per-entry cost before the name).
pub const RECORD_BYTES: usize = 48;
const _: () = assert!(std::mem::size_of::<Record>() == RECORD_BYTES);

/// Plain metadata used to push and update entries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    /// The entry's own kind (a symlink is `Symlink`).
    pub kind: Kind,
    /// For symlinks, the kind of the target (`Unknown` if broken); `Unknown` otherwise.
    pub target: Kind,
    /// Size in bytes; for a symlink to a file, the file's (as its modification time), for
    /// other symlinks the link's own.
    pub size: u64,
    /// Inode number.
    pub ino: u64,
    /// `st_mode`, including the type bits.
    pub mode: u16,
    /// Hard link count.
    pub nlink: u32,
    /// Modification time, seconds since the Unix epoch.
    pub mtime_sec: i64,
    /// Modification time, nanoseconds part.
    pub mtime_nsec: u32,
    /// Why the stat failed, if it did; everything but `kind` is then zero.
    pub stat_error: Option<Errno>,
}

impl Meta {
    /// True when the stat failed.
    pub fn stat_failed(&self) -> bool {
        self.stat_error.is_some()
    }
}

/// One folder's entries: names in one arena, records in one `Vec`.
///
/// Indices are positions in arrival order; [`Listing::remove`] moves the last entry into the
/// removed slot, so indices are not stable across removals.
#[derive(Clone, Default)]
pub struct Listing {
    dir: PathBuf,
    names: Vec<u8>,
    records: Vec<Record>,
    /// Arena bytes no record refers to any more (left by `remove`/`retain`).
    garbage: usize,
}

impl Listing {
    /// An empty listing of `dir`.
    pub fn new(dir: PathBuf) -> Self {
        Self::with_capacity(dir, 0, 0)
    }

    /// An empty listing of `dir` with room for `entries` entries and `name_bytes` bytes of names.
    pub fn with_capacity(dir: PathBuf, entries: usize, name_bytes: usize) -> Self {
        Listing {
            dir,
            names: Vec::with_capacity(name_bytes),
            records: Vec::with_capacity(entries),
            garbage: 0,
        }
    }

    /// The folder these entries are in.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// True when there are no entries.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The entry at `index`, if in range.
    pub fn get(&self, index: usize) -> Option<EntryRef<'_>> {
        self.records.get(index).map(|rec| self.view(rec))
    }

    /// The entry at `index`.
    ///
    /// # Panics
    /// If `index >= self.len()`.
    pub fn entry(&self, index: usize) -> EntryRef<'_> {
        self.view(&self.records[index])
    }

    /// All entries, in index order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = EntryRef<'_>> {
        self.records.iter().map(|rec| self.view(rec))
    }

    /// Appends an entry and returns its index.
    ///
    /// # Panics
    /// If `name` is longer than 65,535 bytes (no Linux file system allows names over 1,020) or
    /// the arena would exceed 4 GiB.
    pub fn push(&mut self, name: &OsStr, meta: Meta) -> usize {
        let bytes = name.as_bytes();
        let name_len = u16::try_from(bytes.len()).expect("file name longer than 65535 bytes");
        let name_off = u32::try_from(self.names.len()).expect("name arena over 4 GiB");
        self.names.extend_from_slice(bytes);
        self.records.push(Record {
            name_off,
            name_len,
            ..Record::from_meta(meta)
        });
        self.records.len() - 1
    }

    /// Appends all entries of `other` (in its order), e.g. a batch from the lister.
    pub fn append(&mut self, other: &Listing) {
        let base = u32::try_from(self.names.len()).expect("name arena over 4 GiB");
        // Checked once for the whole batch: every offset in `other` is below its arena length.
        u32::try_from(self.names.len() + other.names.len()).expect("name arena over 4 GiB");
        self.names.extend_from_slice(&other.names);
        self.records.extend(other.records.iter().map(|rec| Record {
            name_off: rec.name_off + base,
            ..*rec
        }));
        self.garbage += other.garbage;
    }

    /// Index of the entry called `name` (exact byte comparison, linear scan).
    pub fn position(&self, name: &OsStr) -> Option<usize> {
        let name = name.as_bytes();
        self.records
            .iter()
            .position(|rec| self.name_of(rec) == name)
    }

    /// Replaces the metadata of the entry at `index`, keeping its name.
    ///
    /// # Panics
    /// If `index >= self.len()`.
    pub fn set_meta(&mut self, index: usize, meta: Meta) {
        let rec = &mut self.records[index];
        *rec = Record {
            name_off: rec.name_off,
            name_len: rec.name_len,
            ..Record::from_meta(meta)
        };
    }

    /// Removes the entry at `index` by moving the last entry into its place (O(1)).
    ///
    /// Its name stays in the arena as garbage until garbage exceeds half the arena, when the
    /// arena is compacted, so removals cost amortized O(name length).
    ///
    /// # Panics
    /// If `index >= self.len()`.
    pub fn remove(&mut self, index: usize) {
        let rec = self.records.swap_remove(index);
        self.garbage += usize::from(rec.name_len);
        self.compact_if_wasteful();
    }

    /// Keeps only the entries for which `f` returns true, preserving their order.
    pub fn retain(&mut self, mut f: impl FnMut(EntryRef<'_>) -> bool) {
        let names = &self.names;
        let mut dropped = 0;
        self.records.retain(|rec| {
            let keep = f(EntryRef {
                name: &names[rec.name_range()],
                rec,
            });
            if !keep {
                dropped += usize::from(rec.name_len);
            }
            keep
        });
        self.garbage += dropped;
        self.compact_if_wasteful();
    }

    /// Releases spare capacity (call once a listing is complete and will be kept).
    pub fn shrink_to_fit(&mut self) {
        self.names.shrink_to_fit();
        self.records.shrink_to_fit();
    }

    /// Heap memory held, by capacity (records and name arena; the folder path is not counted).
    pub fn heap_bytes(&self) -> usize {
        self.names.capacity() + self.records.capacity() * RECORD_BYTES
    }

    fn view<'a>(&'a self, rec: &'a Record) -> EntryRef<'a> {
        EntryRef {
            name: self.name_of(rec),
            rec,
        }
    }

    fn name_of(&self, rec: &Record) -> &[u8] {
        &self.names[rec.name_range()]
    }

    fn compact_if_wasteful(&mut self) {
        if self.garbage > 0 && self.garbage * 2 > self.names.len() {
            self.compact();
        }
    }

    /// Rewrites the arena with only the live names, in record order.
    fn compact(&mut self) {
        let mut names = Vec::with_capacity(self.names.len() - self.garbage);
        for rec in &mut self.records {
            let off = names.len();
            names.extend_from_slice(&self.names[rec.name_range()]);
            // Cannot overflow: the new arena is smaller than the old one.
            rec.name_off = off as u32;
        }
        self.names = names;
        self.garbage = 0;
    }
}

impl fmt::Debug for Listing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Listing")
            .field("dir", &self.dir)
            .field("len", &self.len())
            .field("entries", &DebugEntries(self))
            .finish()
    }
}

struct DebugEntries<'a>(&'a Listing);

impl fmt::Debug for DebugEntries<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter()).finish()
    }
}

impl Record {
    /// A record with `meta` and an empty name.
    fn from_meta(meta: Meta) -> Record {
        Record {
            size: meta.size,
            ino: meta.ino,
            mtime_sec: meta.mtime_sec,
            name_off: 0,
            mtime_nsec: meta.mtime_nsec,
            // A failed stat has no link count: the field keeps its error instead.
            nlink: meta
                .stat_error
                .map_or(meta.nlink, |e| e.raw_os_error().cast_unsigned()),
            name_len: 0,
            mode: meta.mode,
            kind: meta.kind,
            target: meta.target,
            flags: if meta.stat_failed() { STAT_FAILED } else { 0 },
        }
    }

    fn name_range(&self) -> std::ops::Range<usize> {
        let start = self.name_off as usize;
        start..start + usize::from(self.name_len)
    }
}

/// A borrowed view of one entry of a [`Listing`].
#[derive(Clone, Copy)]
pub struct EntryRef<'a> {
    name: &'a [u8],
    rec: &'a Record,
}

impl<'a> EntryRef<'a> {
    /// The file name (not a path).
    pub fn name(&self) -> &'a OsStr {
        OsStr::from_bytes(self.name)
    }

    /// The file name as raw bytes.
    pub fn name_bytes(&self) -> &'a [u8] {
        self.name
    }

    /// The entry's own kind; symlinks are [`Kind::Symlink`].
    pub fn kind(&self) -> Kind {
        self.rec.kind
    }

    /// For symlinks, the kind of the target ([`Kind::Unknown`] if broken); otherwise `Unknown`.
    pub fn target_kind(&self) -> Kind {
        self.rec.target
    }

    /// A folder, or a symlink to one: sorted with the folders and opened by navigating into it.
    pub fn is_dir_like(&self) -> bool {
        match self.rec.kind {
            Kind::Dir => true,
            Kind::Symlink => self.rec.target == Kind::Dir,
            _ => false,
        }
    }

    /// Size in bytes; for a symlink to a file, the file's, for other symlinks the link's own.
    pub fn size(&self) -> u64 {
        self.rec.size
    }

    /// Inode number.
    pub fn ino(&self) -> u64 {
        self.rec.ino
    }

    /// `st_mode`, including the type bits.
    pub fn mode(&self) -> u16 {
        self.rec.mode
    }

    /// Hard link count (0 when the stat failed).
    pub fn nlink(&self) -> u32 {
        if self.stat_failed() {
            0
        } else {
            self.rec.nlink
        }
    }

    /// Modification time as (seconds since the epoch, nanoseconds).
    pub fn mtime(&self) -> (i64, u32) {
        (self.rec.mtime_sec, self.rec.mtime_nsec)
    }

    /// Modification time, or `None` when the stat failed.
    pub fn modified(&self) -> Option<SystemTime> {
        if self.stat_failed() {
            return None;
        }
        let (sec, nsec) = self.mtime();
        if sec >= 0 {
            UNIX_EPOCH.checked_add(Duration::new(sec.unsigned_abs(), nsec))
        } else {
            // Before 1970: go back whole seconds, then forward the nanoseconds.
            UNIX_EPOCH
                .checked_sub(Duration::from_secs(sec.unsigned_abs()))?
                .checked_add(Duration::from_nanos(u64::from(nsec)))
        }
    }

    /// True for dot files, which the view hides unless asked.
    pub fn is_hidden(&self) -> bool {
        self.name.first() == Some(&b'.')
    }

    /// True when the entry could not be stat'ed; its metadata is then unknown (zero).
    pub fn stat_failed(&self) -> bool {
        self.rec.flags & STAT_FAILED != 0
    }

    /// Why the entry could not be stat'ed, if it could not.
    pub fn stat_error(&self) -> Option<Errno> {
        self.stat_failed()
            .then(|| Errno::from_raw_os_error(self.rec.nlink.cast_signed()))
    }

    /// The entry's metadata as plain data.
    pub fn meta(&self) -> Meta {
        let rec = self.rec;
        Meta {
            kind: rec.kind,
            target: rec.target,
            size: rec.size,
            ino: rec.ino,
            mode: rec.mode,
            nlink: self.nlink(),
            mtime_sec: rec.mtime_sec,
            mtime_nsec: rec.mtime_nsec,
            stat_error: self.stat_error(),
        }
    }
}

impl fmt::Debug for EntryRef<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Entry")
            .field("name", &self.name())
            .field("meta", &self.meta())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    fn file(size: u64) -> Meta {
        Meta {
            kind: Kind::File,
            size,
            mode: 0o100_644,
            nlink: 1,
            ..Meta::default()
        }
    }

    fn names(listing: &Listing) -> Vec<OsString> {
        listing.iter().map(|e| e.name().to_owned()).collect()
    }

    fn os(s: &str) -> &OsStr {
        OsStr::new(s)
    }

    #[test]
    fn record_is_48_bytes() {
        assert_eq!(std::mem::size_of::<Record>(), 48);
        assert_eq!(std::mem::size_of::<Option<Kind>>(), 1);
    }

    #[test]
    fn push_get_and_meta_round_trip() {
        let mut l = Listing::new(PathBuf::from("/x"));
        let meta = Meta {
            kind: Kind::Symlink,
            target: Kind::Dir,
            size: u64::MAX,
            ino: 42,
            mode: 0o120_777,
            nlink: 3,
            mtime_sec: -5,
            mtime_nsec: 999_999_999,
            stat_error: None,
        };
        assert_eq!(l.push(os("a"), file(1)), 0);
        assert_eq!(l.push(os("link"), meta), 1);
        let bad = OsStr::from_bytes(b"caf\xe9");
        assert_eq!(
            l.push(
                bad,
                Meta {
                    stat_error: Some(Errno::ACCESS),
                    ..Meta::default()
                }
            ),
            2
        );

        assert_eq!(l.len(), 3);
        assert_eq!(l.dir(), Path::new("/x"));
        let e = l.entry(1);
        assert_eq!(e.name(), "link");
        assert_eq!(e.meta(), meta);
        assert!(e.is_dir_like());
        assert_eq!(e.mtime(), (-5, 999_999_999));
        assert_eq!(
            e.modified(),
            Some(UNIX_EPOCH - Duration::from_secs(5) + Duration::from_nanos(999_999_999))
        );
        assert_eq!(l.entry(2).name_bytes(), b"caf\xe9");
        assert!(l.entry(2).stat_failed());
        // The error is kept where the link count would be, which it reads as 0.
        assert_eq!(l.entry(2).stat_error(), Some(Errno::ACCESS));
        assert_eq!(l.entry(2).meta().stat_error, Some(Errno::ACCESS));
        assert_eq!(l.entry(2).nlink(), 0);
        assert_eq!(l.entry(1).stat_error(), None);
        assert_eq!(l.entry(2).modified(), None);
        assert!(l.get(3).is_none());
        assert_eq!(l.iter().len(), 3);
    }

    #[test]
    fn dir_like_hidden_and_kinds() {
        let mut l = Listing::default();
        l.push(
            os(".hidden"),
            Meta {
                kind: Kind::Dir,
                ..Meta::default()
            },
        );
        l.push(
            os("broken"),
            Meta {
                kind: Kind::Symlink,
                target: Kind::Unknown,
                ..Meta::default()
            },
        );
        l.push(os("f"), file(0));
        assert!(l.entry(0).is_hidden() && l.entry(0).is_dir_like());
        assert!(!l.entry(1).is_hidden() && !l.entry(1).is_dir_like());
        assert!(!l.entry(2).is_dir_like());
        assert_eq!(Kind::from_mode(0o040_755), Kind::Dir);
        assert_eq!(Kind::from_mode(0o100_644), Kind::File);
        assert_eq!(Kind::from_mode(0o120_777), Kind::Symlink);
        assert_eq!(Kind::from_mode(0o010_644), Kind::Fifo);
        assert_eq!(Kind::from_mode(0o140_755), Kind::Socket);
        assert_eq!(Kind::from_mode(0o060_660), Kind::BlockDevice);
        assert_eq!(Kind::from_mode(0o020_666), Kind::CharDevice);
        assert_eq!(Kind::from_mode(0), Kind::Unknown);
    }

    #[test]
    fn position_set_meta_and_append() {
        let mut a = Listing::new(PathBuf::from("/d"));
        a.push(os("one"), file(1));
        a.push(os("two"), file(2));
        let mut b = Listing::new(PathBuf::from("/d"));
        b.push(os("three"), file(3));
        b.push(os("tw"), file(4));
        a.append(&b);
        assert_eq!(names(&a), ["one", "two", "three", "tw"]);
        assert_eq!(a.position(os("tw")), Some(3));
        assert_eq!(a.position(os("t")), None);
        a.set_meta(1, file(20));
        assert_eq!(a.entry(1).name(), "two");
        assert_eq!(a.entry(1).size(), 20);
        assert_eq!(a.entry(3).size(), 4);
    }

    #[test]
    fn remove_swaps_in_the_last_entry_and_compacts() {
        let mut l = Listing::default();
        for i in 0..10 {
            l.push(OsString::from(format!("name{i}")).as_os_str(), file(i));
        }
        l.remove(2);
        assert_eq!(l.len(), 9);
        assert_eq!(l.entry(2).name(), "name9");
        assert_eq!(l.entry(2).size(), 9);
        assert_eq!(l.garbage, 5);
        // Removing more than half of the arena compacts it, leaving names intact.
        for _ in 0..5 {
            l.remove(0);
        }
        assert_eq!(l.garbage, 0);
        assert_eq!(l.names.len(), 4 * 5);
        let mut left: Vec<_> = names(&l);
        left.sort();
        assert_eq!(left, ["name1", "name3", "name4", "name9"]);
        for e in l.iter() {
            assert_eq!(e.name(), format!("name{}", e.size()).as_str());
        }
        l.remove(3);
        l.remove(2);
        l.remove(1);
        l.remove(0);
        assert!(l.is_empty());
        assert_eq!(l.garbage, 0);
        assert!(l.names.is_empty());
    }

    #[test]
    fn retain_keeps_order_and_compacts() {
        let mut l = Listing::default();
        for i in 0..100u64 {
            l.push(OsString::from(format!("n{i:03}")).as_os_str(), file(i));
        }
        l.retain(|e| e.size() % 10 != 0);
        assert_eq!(l.len(), 90);
        assert_eq!(l.garbage, 40);
        l.retain(|e| e.size() < 30);
        assert_eq!(l.garbage, 0, "more than half garbage compacts");
        let kept: Vec<u64> = l.iter().map(|e| e.size()).collect();
        let want: Vec<u64> = (0..30).filter(|i| i % 10 != 0).collect();
        assert_eq!(kept, want);
        for e in l.iter() {
            assert_eq!(e.name(), format!("n{:03}", e.size()).as_str());
        }
        // Appending a listing that carries garbage keeps the accounting right.
        let mut m = Listing::default();
        m.push(os("x"), file(0));
        m.append(&l);
        assert_eq!(m.len(), 28);
        assert_eq!(m.entry(1).name(), "n001");
    }

    #[test]
    fn heap_bytes_counts_capacity() {
        let mut l = Listing::with_capacity(PathBuf::new(), 10, 100);
        assert_eq!(l.heap_bytes(), 10 * 48 + 100);
        l.push(os("abc"), file(0));
        l.shrink_to_fit();
        assert_eq!(l.heap_bytes(), 48 + 3);
    }
}
