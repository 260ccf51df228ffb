//! Listing the trash: `.trashinfo` files read, `Path=` percent-decoded as bytes.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use rustix::io::Errno;

use super::{TrashRecord, TrashRoots, trash_dirs};
use crate::entry::Kind;
use crate::error::{Error, Result};
use crate::fs::{self, FileId, Timestamp};

/// One item in the trash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrashedItem {
    /// The item's name (the last component of [`original`](Self::original)), as bytes.
    pub name: OsString,
    /// Where it was, absolute.
    pub original: PathBuf,
    /// `DeletionDate` as written (local time, `YYYY-MM-DDThh:mm:ss`), empty if missing.
    pub deletion_date: String,
    /// The deletion date in seconds since the epoch, when it could be read.
    pub deleted_at: Option<i64>,
    /// File type of the trashed item.
    pub kind: Kind,
    /// Size in bytes: a file's size, or the total size of the files inside a folder.
    pub size: u64,
    /// Identity of the trashed item, to tell later whether it is still the same one.
    pub id: FileId,
    /// Its modification time.
    pub mtime: Timestamp,
    /// The item itself, in a trash `files/` folder.
    pub file: PathBuf,
    /// Its `.trashinfo` file.
    pub info: PathBuf,
}

impl TrashedItem {
    /// Reads one item from its info file (`…/Trash/info/NAME.trashinfo`); fails if the info
    /// file cannot be read or parsed, or the item it describes is gone.
    pub fn read(info: &Path) -> Result<TrashedItem> {
        let bad = || Error::io("read", info, Errno::INVAL);
        let stem = info
            .file_name()
            .and_then(|n| n.as_bytes().strip_suffix(b".trashinfo"))
            .ok_or_else(bad)?;
        let trash = info.parent().and_then(Path::parent).ok_or_else(bad)?;
        let text = std::fs::read(info).map_err(|e| Error::io("read", info, e))?;
        let (path, date) = parse(&text).ok_or_else(bad)?;
        let original = if path.is_absolute() {
            path
        } else {
            top_dir(trash).join(path)
        };
        let name = original.file_name().ok_or_else(bad)?.to_owned();
        let file = trash.join("files").join(OsStr::from_bytes(stem));
        let meta = fs::stat_at(rustix::fs::CWD, &file).map_err(|e| Error::io("stat", &file, e))?;
        let size = if meta.kind == Kind::Dir {
            tree_size(&file)
        } else {
            meta.size
        };
        Ok(TrashedItem {
            name,
            original,
            deleted_at: parse_date(&date),
            deletion_date: date,
            kind: meta.kind,
            size,
            id: meta.id,
            mtime: meta.mtime,
            file,
            info: info.to_path_buf(),
        })
    }
}

impl TrashedItem {
    /// The item as a restore job was given it, from its record and `DeletionDate` (what the
    /// journal keeps: the item may have left the trash since).
    pub(crate) fn recorded(r: TrashRecord, deletion_date: String) -> TrashedItem {
        TrashedItem {
            name: r.original.file_name().unwrap_or_default().to_owned(),
            deleted_at: parse_date(&deletion_date),
            deletion_date,
            kind: r.kind,
            size: r.size,
            id: r.id,
            mtime: r.mtime,
            original: r.original,
            file: r.file,
            info: r.info,
        }
    }

    /// Where the item is in the trash and what it is, as a trash job records it.
    pub fn as_record(&self) -> TrashRecord {
        TrashRecord {
            original: self.original.clone(),
            file: self.file.clone(),
            info: self.info.clone(),
            kind: self.kind,
            id: self.id,
            size: self.size,
            mtime: self.mtime,
        }
    }
}

/// Everything in the user's trash (home trash and every volume's), oldest first.
pub fn list_trash() -> Result<Vec<TrashedItem>> {
    list_trash_in(&TrashRoots::from_env()?)
}

/// Everything in the trash folders of `roots`, oldest first (ties by original path). Info
/// files whose item is gone, or that cannot be parsed, are left out.
pub fn list_trash_in(roots: &TrashRoots) -> Result<Vec<TrashedItem>> {
    let mut items = Vec::new();
    let mut buf = Vec::new();
    for dir in trash_dirs(roots) {
        let info_dir = dir.join("info");
        let fd = match fs::open_dir_path(&info_dir) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => continue,
            Err(e) => return Err(Error::io("open", info_dir, e)),
        };
        let mut names = Vec::new();
        fs::read_dir(&fd, &mut buf, |name, _| {
            if name.as_bytes().ends_with(b".trashinfo") {
                names.push(name.to_owned());
            }
            Ok(())
        })
        .map_err(|e| Error::io("read folder", &info_dir, e))?;
        items.extend(
            names
                .iter()
                .filter_map(|n| TrashedItem::read(&info_dir.join(n)).ok()),
        );
    }
    items.sort_by(|a, b| {
        (&a.deletion_date, a.original.as_os_str().as_bytes())
            .cmp(&(&b.deletion_date, b.original.as_os_str().as_bytes()))
    });
    Ok(items)
}

/// The folder relative `Path=` values start from: the one holding `.Trash-$uid`, or the one
/// holding `.Trash` for `.Trash/$uid`.
fn top_dir(trash: &Path) -> &Path {
    let parent = trash.parent().unwrap_or(Path::new("/"));
    if parent.file_name() == Some(OsStr::new(".Trash")) {
        parent.parent().unwrap_or(Path::new("/"))
    } else {
        parent
    }
}

/// `Path` and `DeletionDate` of the `[Trash Info]` group.
fn parse(text: &[u8]) -> Option<(PathBuf, String)> {
    let mut in_group = false;
    let (mut path, mut date) = (None, String::new());
    for line in text.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.starts_with(b"[") {
            in_group = line == b"[Trash Info]";
        } else if !in_group {
        } else if let Some(value) = line.strip_prefix(b"Path=") {
            path = Some(PathBuf::from(OsString::from_vec(decode(
                value.trim_ascii(),
            ))));
        } else if let Some(value) = line.strip_prefix(b"DeletionDate=") {
            date = String::from_utf8_lossy(value.trim_ascii()).into_owned();
        }
    }
    path.filter(|p| !p.as_os_str().is_empty())
        .map(|p| (p, date))
}

fn parse_date(date: &str) -> Option<i64> {
    let naive = chrono::NaiveDateTime::parse_from_str(date, "%Y-%m-%dT%H:%M:%S").ok()?;
    Some(
        naive
            .and_local_timezone(chrono::Local)
            .earliest()?
            .timestamp(),
    )
}

/// Percent-encodes every byte of `path` except unreserved characters and `/`
/// (RFC 3986, as the specification asks), so any byte string survives.
pub(super) fn encode_path(path: &Path) -> String {
    let mut out = String::with_capacity(path.as_os_str().len());
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes `%XX` escapes to bytes; anything malformed is kept as it is.
fn decode(text: &[u8]) -> Vec<u8> {
    let hex = |b: u8| char::from(b).to_digit(16);
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'%'
            && let (Some(h), Some(l)) = (
                text.get(i + 1).and_then(|&b| hex(b)),
                text.get(i + 2).and_then(|&b| hex(b)),
            )
        {
            out.push((h * 16 + l) as u8);
            i += 3;
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

/// Total size of the files under `dir`, for display: links not followed, unreadable parts
/// not counted.
fn tree_size(dir: &Path) -> u64 {
    let mut total = 0;
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            match entry.metadata() {
                Ok(m) if m.is_dir() => pending.push(entry.path()),
                Ok(m) => total += m.len(),
                Err(_) => {}
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_round_trip_through_percent_encoding() {
        let path = Path::new(OsStr::from_bytes(b"/tmp/a b%/caf\xc3\xa9/x\xff\n#?"));
        let encoded = encode_path(path);
        assert_eq!(encoded, "/tmp/a%20b%25/caf%C3%A9/x%FF%0A%23%3F");
        assert_eq!(decode(encoded.as_bytes()), path.as_os_str().as_bytes());
        assert_eq!(decode(b"100%"), b"100%");
    }

    #[test]
    fn info_files_parse_only_their_group() {
        let text = b"[Other]\nPath=/nope\n[Trash Info]\r\nPath=/home/u/a%2Fb\r\nDeletionDate=2024-01-02T03:04:05\r\n";
        let (path, date) = parse(text).unwrap();
        assert_eq!(path, Path::new("/home/u/a/b"));
        assert_eq!(date, "2024-01-02T03:04:05");
        assert!(parse(b"[Trash Info]\nDeletionDate=x\n").is_none());
        assert!(parse_date(&date).is_some());
        assert!(parse_date("yesterday").is_none());
    }

    #[test]
    fn relative_paths_start_at_the_volume_top() {
        assert_eq!(top_dir(Path::new("/mnt/.Trash-1000")), Path::new("/mnt"));
        assert_eq!(top_dir(Path::new("/mnt/.Trash/1000")), Path::new("/mnt"));
    }
}
