//! The entries of a record's details file: short keys, paths below the last top-level
//! entry kept relative to it, and the common entry written by hand.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

use super::StoredPath;
use crate::decimal::push_uint;
use crate::entry::Kind;
use crate::fs::{FileId, Timestamp};
use crate::jobs::{How, RecordEntry};

/// A [`RecordEntry`], compactly: short keys, as a job may record millions. An entry below
/// the last top-level one before it, at the same path below its source and its destination
/// (nearly all of them), keeps only that path (`r`): both absolute paths made the details
/// file of a 5,000-file copy 895 KB, and kept records could add up to gigabytes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(in crate::jobs::journal) struct StoredEntry {
    /// Source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    s: Option<StoredPath>,
    /// Destination.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    d: Option<StoredPath>,
    /// Instead of both: the path below the last top-level entry's source and destination.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    r: Option<StoredPath>,
    /// [`Kind`], by its name.
    k: String,
    /// [`How`], by its name.
    h: String,
    dev: u64,
    ino: u64,
    size: u64,
    /// Modification time: seconds, nanoseconds.
    mt: (i64, u32),
    /// Top level.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    top: bool,
    /// Where the item it replaced was staged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    st: Option<StoredPath>,
    /// [`RecordEntry::source_folder`]: device, inode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sf: Option<(u64, u64)>,
    /// [`RecordEntry::source_parent`]: device, inode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sp: Option<(u64, u64)>,
    /// [`RecordEntry::source_parent_real`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sr: Option<StoredPath>,
    /// [`RecordEntry::source_mode`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sm: Option<u16>,
    /// [`RecordEntry::source_xattrs`]: names and values, as bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sx: Option<Vec<(Vec<u8>, Vec<u8>)>>,
}

/// Relative paths made absolute against the current folder, read once: what
/// [`StoredPath::path`] does, for the thousands of paths of one record.
#[derive(Debug, Default)]
pub(in crate::jobs::journal) struct Absolute {
    cwd: std::sync::OnceLock<Option<PathBuf>>,
}

impl Absolute {
    /// `p` as [`std::path::absolute`] makes it (`p` itself if absolute, or if there is no
    /// current folder).
    pub(in crate::jobs::journal) fn of<'p>(&self, p: &'p Path) -> std::borrow::Cow<'p, Path> {
        use std::borrow::Cow;
        if p.is_absolute() {
            return Cow::Borrowed(p);
        }
        let Some(cwd) = self.cwd.get_or_init(|| std::env::current_dir().ok()) else {
            return Cow::Borrowed(p);
        };
        // As the standard library does on Unix: a leading `.` and `.` components dropped,
        // `..` kept, a trailing slash kept.
        let mut out = PathBuf::with_capacity(cwd.as_os_str().len() + p.as_os_str().len() + 2);
        out.push(cwd);
        out.extend(p.strip_prefix(".").unwrap_or(p).components());
        if p.as_os_str().as_bytes().ends_with(b"/") {
            out.push("");
        }
        Cow::Owned(out)
    }
}

/// A path serialized as a [`StoredPath`] is, without copying it into one.
struct PathOut<'a>(&'a Path);

impl Serialize for PathOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0.to_str() {
            Some(text) => s.serialize_str(text),
            None => s.collect_seq(self.0.as_os_str().as_bytes()),
        }
    }
}

/// A [`RecordEntry`] serialized exactly as its [`StoredEntry`] is, without building one (a
/// job of thousands of files spent most of its end building them).
pub(in crate::jobs::journal) struct EntryOut<'a> {
    pub(in crate::jobs::journal) entry: RecordEntry,
    pub(in crate::jobs::journal) absolute: &'a Absolute,
    /// The last top-level entry written before it (see [`Below::rel`]).
    pub(in crate::jobs::journal) below: &'a Below,
}

/// The absolute source and destination of the last top-level entry, which the entries after
/// it are written relative to.
#[derive(Debug, Default)]
pub(in crate::jobs::journal) struct Below {
    top: Option<(OsString, OsString)>,
}

impl Below {
    /// The path `source` and `dest` both have below the top-level entry's, byte for byte,
    /// if they do.
    fn rel<'p>(&self, source: &'p Path, dest: &Path) -> Option<&'p OsStr> {
        let (s, d) = self.top.as_ref()?;
        let rel = below(source.as_os_str(), s)?;
        (below(dest.as_os_str(), d)? == rel).then_some(rel)
    }

    /// Entry `source`, `dest` is written (or read): a top-level one is the next reference.
    pub(in crate::jobs::journal) fn saw(&mut self, source: &Path, dest: &Path, top_level: bool) {
        if top_level {
            let (s, d) = (source.as_os_str().to_owned(), dest.as_os_str().to_owned());
            self.top = Some((s, d));
        }
    }

    /// The source and destination of the entry stored as `rel`.
    fn join(&self, rel: &OsStr) -> Option<(PathBuf, PathBuf)> {
        let (s, d) = self.top.as_ref()?;
        let join = |base: &OsStr| {
            let mut p = OsString::with_capacity(base.len() + 1 + rel.len());
            p.push(base);
            p.push("/");
            p.push(rel);
            PathBuf::from(p)
        };
        Some((join(s), join(d)))
    }
}

/// What `path` has after `base` and a slash, if it starts so (and has more).
fn below<'p>(path: &'p OsStr, base: &OsStr) -> Option<&'p OsStr> {
    let rest = path.as_bytes().strip_prefix(base.as_bytes())?;
    let rel = rest.strip_prefix(b"/")?;
    (!rel.is_empty()).then(|| OsStr::from_bytes(rel))
}

impl Serialize for EntryOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = &self.entry;
        let staged = e.staged.as_deref().map(|p| self.absolute.of(p));
        let (source, dest) = (self.absolute.of(&e.source), self.absolute.of(&e.dest));
        let rel = self.below.rel(&source, &dest);
        let fields = 8 + usize::from(rel.is_none()) + usize::from(e.top_level);
        let optional = usize::from(staged.is_some())
            + usize::from(e.source_folder.is_some())
            + usize::from(e.source_parent.is_some())
            + usize::from(e.source_parent_real.is_some())
            + usize::from(e.source_mode.is_some())
            + usize::from(e.source_xattrs.is_some());
        let mut out = s.serialize_struct("StoredEntry", fields + optional)?;
        if let Some(rel) = rel {
            out.serialize_field("r", &PathOut(Path::new(rel)))?;
        } else {
            out.serialize_field("s", &PathOut(&source))?;
            out.serialize_field("d", &PathOut(&dest))?;
        }
        out.serialize_field("k", kind_name(e.kind))?;
        out.serialize_field("h", how_name(e.how))?;
        out.serialize_field("dev", &e.id.dev)?;
        out.serialize_field("ino", &e.id.ino)?;
        out.serialize_field("size", &e.size)?;
        out.serialize_field("mt", &(e.mtime.sec, e.mtime.nsec))?;
        if e.top_level {
            out.serialize_field("top", &true)?;
        }
        if let Some(staged) = &staged {
            out.serialize_field("st", &PathOut(staged))?;
        }
        if let Some(id) = e.source_folder {
            out.serialize_field("sf", &(id.dev, id.ino))?;
        }
        if let Some(id) = e.source_parent {
            out.serialize_field("sp", &(id.dev, id.ino))?;
        }
        if let Some(real) = &e.source_parent_real {
            out.serialize_field("sr", &PathOut(real))?;
        }
        if let Some(mode) = e.source_mode {
            out.serialize_field("sm", &mode)?;
        }
        if let Some(xattrs) = &e.source_xattrs {
            let xattrs: Vec<(&[u8], &[u8])> = (xattrs.iter())
                .map(|(name, value)| (name.as_bytes(), &value[..]))
                .collect();
            out.serialize_field("sx", &xattrs)?;
        }
        out.end()
    }
}

impl EntryOut<'_> {
    /// Appends the entry's JSON, exactly what serializing it gives, to `out`: by hand for the
    /// common entry (UTF-8 paths with nothing to escape, nothing staged), which serde_json
    /// took most of a large job's end to escape byte by byte; through serde otherwise.
    pub(in crate::jobs::journal) fn write(
        &self,
        out: &mut Vec<u8>,
    ) -> Result<(), serde_json::Error> {
        let e = &self.entry;
        let (source, dest) = (self.absolute.of(&e.source), self.absolute.of(&e.dest));
        let rel = self.below.rel(&source, &dest).map(Path::new);
        let paths = match rel {
            Some(rel) => plain(rel).map(|r| (r, None)),
            None => plain(&source).zip(plain(&dest)).map(|(s, d)| (s, Some(d))),
        };
        let (Some(paths), None, None, None) =
            (paths, &e.staged, &e.source_parent_real, &e.source_xattrs)
        else {
            return serde_json::to_writer(out, self);
        };
        match paths {
            (r, None) => push_text(out, b"{\"r\":\"", r),
            (s, Some(d)) => {
                push_text(out, b"{\"s\":\"", s);
                push_text(out, b"\",\"d\":\"", d);
            }
        }
        push_fields(out, e);
        Ok(())
    }

    /// Appends the entry `e` (its paths ignored) as one below the last top-level entry at
    /// `rel`, exactly as [`write`](Self::write) would: false, and nothing written, when `rel`
    /// is not plain text (the caller then writes it whole).
    pub(in crate::jobs::journal) fn write_below(
        e: &RecordEntry,
        rel: &OsStr,
        out: &mut Vec<u8>,
    ) -> bool {
        let (Some(rel), None) = (plain(Path::new(rel)), &e.source_xattrs) else {
            return false;
        };
        push_text(out, b"{\"r\":\"", rel);
        push_fields(out, e);
        true
    }
}

/// Appends what follows an entry's paths, to its end.
fn push_fields(out: &mut Vec<u8>, e: &RecordEntry) {
    out.extend_from_slice(b"\",");
    out.extend_from_slice(b"\"k\":\"");
    out.extend_from_slice(kind_name(e.kind).as_bytes());
    out.extend_from_slice(b"\",\"h\":\"");
    out.extend_from_slice(how_name(e.how).as_bytes());
    out.extend_from_slice(b"\",\"dev\":");
    push_uint(out, e.id.dev);
    out.extend_from_slice(b",\"ino\":");
    push_uint(out, e.id.ino);
    out.extend_from_slice(b",\"size\":");
    push_uint(out, e.size);
    out.extend_from_slice(b",\"mt\":[");
    push_int(out, e.mtime.sec);
    out.push(b',');
    push_uint(out, e.mtime.nsec.into());
    out.push(b']');
    if e.top_level {
        out.extend_from_slice(b",\"top\":true");
    }
    for (key, id) in [
        (&b",\"sf\":["[..], e.source_folder),
        (b",\"sp\":[", e.source_parent),
    ] {
        if let Some(id) = id {
            out.extend_from_slice(key);
            push_uint(out, id.dev);
            out.push(b',');
            push_uint(out, id.ino);
            out.push(b']');
        }
    }
    if let Some(mode) = e.source_mode {
        out.extend_from_slice(b",\"sm\":");
        push_uint(out, mode.into());
    }
    out.push(b'}');
}

/// Appends `key` (up to the opening quote) and `text`.
fn push_text(out: &mut Vec<u8>, key: &[u8], text: &str) {
    out.extend_from_slice(key);
    out.extend_from_slice(text.as_bytes());
}

/// Appends `n` in decimal, as JSON writes it (`fmt` machinery cost more than the rest of an
/// entry).
fn push_int(out: &mut Vec<u8>, n: i64) {
    if n < 0 {
        out.push(b'-');
    }
    push_uint(out, n.unsigned_abs());
}

/// `p` as text if JSON holds it as it is: UTF-8 without a quote, a backslash or a control
/// character (the bytes serde_json escapes).
fn plain(p: &Path) -> Option<&str> {
    let text = p.to_str()?;
    let escaped = |b: u8| b < 0x20 || b == b'"' || b == b'\\';
    (!text.bytes().any(escaped)).then_some(text)
}

/// The stored name of `kind`: its `Debug` form.
fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::File => "File",
        Kind::Dir => "Dir",
        Kind::Symlink => "Symlink",
        Kind::Fifo => "Fifo",
        Kind::Socket => "Socket",
        Kind::CharDevice => "CharDevice",
        Kind::BlockDevice => "BlockDevice",
        Kind::Unknown => "Unknown",
    }
}

/// The stored name of `how`: its `Debug` form.
fn how_name(how: How) -> &'static str {
    match how {
        How::Created => "Created",
        How::Merged => "Merged",
        How::Replaced => "Replaced",
        How::Moved => "Moved",
        How::MovedOver => "MovedOver",
    }
}

pub(super) const KINDS: [Kind; 8] = [
    Kind::File,
    Kind::Dir,
    Kind::Symlink,
    Kind::Fifo,
    Kind::Socket,
    Kind::CharDevice,
    Kind::BlockDevice,
    Kind::Unknown,
];

const HOWS: [How; 5] = [
    How::Created,
    How::Merged,
    How::Replaced,
    How::Moved,
    How::MovedOver,
];

/// The value among `all` stored as `name` (its `Debug` form); None for one this version
/// does not know.
pub(super) fn named<T: Copy + std::fmt::Debug>(all: &[T], name: &str) -> Option<T> {
    all.iter().copied().find(|v| format!("{v:?}") == name)
}

impl StoredEntry {
    /// The entry, read after those before it (`below` follows their top-level ones); None
    /// for one this version cannot read (it is left alone by undo).
    pub(in crate::jobs::journal) fn into_entry(self, below: &mut Below) -> Option<RecordEntry> {
        let (source, dest) = match (self.r, self.s, self.d) {
            (Some(rel), ..) => below.join(&rel.into_os())?,
            (None, Some(s), Some(d)) => (s.into_path(), d.into_path()),
            _ => return None,
        };
        below.saw(&source, &dest, self.top);
        let kind = named(&KINDS, &self.k)?;
        let how = named(&HOWS, &self.h)?;
        Some(RecordEntry {
            source,
            dest,
            kind,
            how,
            id: FileId {
                dev: self.dev,
                ino: self.ino,
            },
            size: self.size,
            mtime: Timestamp {
                sec: self.mt.0,
                nsec: self.mt.1,
            },
            top_level: self.top,
            staged: self.st.map(StoredPath::into_path),
            source_folder: self.sf.map(|(dev, ino)| FileId { dev, ino }),
            source_parent: self.sp.map(|(dev, ino)| FileId { dev, ino }),
            source_parent_real: self.sr.map(StoredPath::into_path),
            source_mode: self.sm,
            source_xattrs: self.sx.map(|xattrs| {
                let name = |(name, value): (Vec<u8>, Vec<u8>)| (OsString::from_vec(name), value);
                xattrs.into_iter().map(name).collect()
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::{FileId, Timestamp};

    #[test]
    fn stored_names_are_the_debug_names_readers_look_for() {
        for kind in KINDS {
            assert_eq!(kind_name(kind), format!("{kind:?}"));
            assert_eq!(named(&KINDS, kind_name(kind)), Some(kind));
        }
        for how in HOWS {
            assert_eq!(how_name(how), format!("{how:?}"));
            assert_eq!(named(&HOWS, how_name(how)), Some(how));
        }
    }

    fn entry(source: &str, dest: &str, top_level: bool, staged: Option<&str>) -> RecordEntry {
        RecordEntry {
            source: PathBuf::from(source),
            dest: PathBuf::from(dest),
            kind: Kind::Symlink,
            how: How::MovedOver,
            id: FileId {
                dev: 2049,
                ino: u64::MAX,
            },
            size: 4096,
            mtime: Timestamp {
                sec: -3,
                nsec: 999_999_999,
            },
            top_level,
            staged: staged.map(PathBuf::from),
            source_folder: None,
            source_parent: None,
            source_parent_real: None,
            source_mode: None,
            source_xattrs: None,
        }
    }

    /// A moved folder's source identity, as the undo of a partly moved folder reads it.
    const SOURCE_FOLDER: Option<FileId> = Some(FileId { dev: 64768, ino: 7 });

    #[test]
    fn entries_written_by_hand_are_what_serde_writes() {
        let absolute = Absolute::default();
        let mut below = Below::default();
        below.saw(Path::new("/plain"), Path::new("/d"), true);
        for (source, dest, top, staged) in [
            ("/plain/é path", "/d/x", true, None),
            ("rel/a", "/d/x", false, None),
            ("/q\"uote", "/d/x", false, None),
            ("/back\\slash", "/d/x", true, None),
            ("/tab\there", "/d/x", false, None),
            ("/s", "/d/x", true, Some("/staged")),
            // Written relative to the top-level entry.
            ("/plain/x", "/d/x", false, None),
            ("/plain/sub/q\"uote", "/d/sub/q\"uote", false, None),
            ("/plain/s", "/d/s", false, Some("/staged")),
        ] {
            let optional = [
                (None, None, None),
                (SOURCE_FOLDER, SOURCE_FOLDER, Some(0o600)),
            ];
            for (source_folder, source_parent, source_mode) in optional {
                let out = EntryOut {
                    entry: RecordEntry {
                        source_folder,
                        source_parent,
                        source_mode,
                        ..entry(source, dest, top, staged)
                    },
                    absolute: &absolute,
                    below: &below,
                };
                let mut by_hand = Vec::new();
                out.write(&mut by_hand).unwrap();
                assert_eq!(
                    String::from_utf8(by_hand).unwrap(),
                    serde_json::to_string(&out).unwrap()
                );
            }
        }
    }

    #[test]
    fn entries_below_the_top_level_keep_one_path_and_read_back_whole() {
        let absolute = Absolute::default();
        let entries = [
            entry("/src/docs", "/dest/docs", true, None),
            RecordEntry {
                source_folder: SOURCE_FOLDER,
                source_mode: Some(0o750),
                ..entry("/src/docs/sub", "/dest/docs/sub", false, None)
            },
            entry("/src/docs/a.txt", "/dest/docs/a.txt", false, None),
            // Below the source but not at the same path below the destination.
            entry("/src/docs/b", "/dest/other/b", false, None),
            entry("/src/docsx/c", "/dest/docsx/c", false, None),
            entry("/elsewhere", "/dest/elsewhere", true, None),
            entry("/elsewhere/d", "/dest/elsewhere/d", false, None),
        ];
        let mut below = Below::default();
        let mut json = Vec::new();
        for e in &entries {
            EntryOut {
                entry: e.clone(),
                absolute: &absolute,
                below: &below,
            }
            .write(&mut json)
            .unwrap();
            json.push(b'\n');
            below.saw(&e.source, &e.dest, e.top_level);
        }
        let text = String::from_utf8(json).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[1].ends_with(r#""sf":[64768,7],"sm":488}"#),
            "{}",
            lines[1]
        );
        assert!(lines[2].starts_with(r#"{"r":"a.txt","#), "{}", lines[2]);
        assert!(
            lines[3].starts_with(r#"{"s":"/src/docs/b","#),
            "{}",
            lines[3]
        );
        assert!(
            lines[4].starts_with(r#"{"s":"/src/docsx/c","#),
            "{}",
            lines[4]
        );
        assert!(lines[6].starts_with(r#"{"r":"d","#), "{}", lines[6]);
        let mut below = Below::default();
        let read: Vec<RecordEntry> = lines
            .iter()
            .map(|l| serde_json::from_str::<StoredEntry>(l).unwrap())
            .filter_map(|e| e.into_entry(&mut below))
            .collect();
        assert_eq!(read, entries);
    }

    #[test]
    fn entries_of_the_older_form_with_both_paths_still_read() {
        let old = r#"{"s":"/src/a","d":"/dest/a","k":"File","h":"Created","dev":27,"ino":5,"size":3,"mt":[1,2],"top":false}"#;
        let e = serde_json::from_str::<StoredEntry>(old).unwrap();
        let e = e.into_entry(&mut Below::default()).unwrap();
        assert_eq!((e.source, e.dest), ("/src/a".into(), "/dest/a".into()));
        assert!(!e.top_level);
    }

    #[test]
    fn paths_are_made_absolute_as_the_standard_library_does() {
        let absolute = Absolute::default();
        for p in ["a", "./a/./b", "a//b/", "../x/y", ".", "a/../b", "/abs/./p"] {
            let p = Path::new(p);
            assert_eq!(absolute.of(p), std::path::absolute(p).unwrap(), "{p:?}");
        }
    }
}
