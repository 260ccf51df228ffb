//! Listing the trash: `.trashinfo` files read, `Path=` percent-decoded as bytes and checked
//! (see `place.rs`: an info file is untrusted input). A trash folder's `files/` and `info/`
//! are opened without following links, and a volume's trash must belong to the user.

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};

use rustix::fd::OwnedFd;
use rustix::io::Errno;

use super::place::{Origin, UnsafeEntry};
use super::{TrashRecord, TrashRoots, trash_dirs};
use crate::entry::Kind;
use crate::error::{Error, Result};
use crate::fs::{self, FileId, Timestamp};
use crate::uri::percent_decode;

/// One item in the trash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrashedItem {
    /// The item's name (the last component of [`original`](Self::original)), as bytes.
    pub name: OsString,
    /// Where it was, absolute, as its info file says (for an item given by
    /// [`restore_to`](Self::restore_to): where it goes, in the folder chosen).
    pub original: PathBuf,
    /// Where it was, as its info file says, also for an item restored into a chosen folder:
    /// what an undo of the restore writes back (`Path=`).
    pub trashed_from: PathBuf,
    /// Why the item is not restored to [`original`](Self::original), when its info file
    /// names an unsafe place (see [`UnsafeEntry`]): list it as an unsafe entry, which can
    /// only be restored into a folder the user picks.
    pub unsafe_entry: Option<UnsafeEntry>,
    /// The item goes into a folder the user picked ([`restore_to`](Self::restore_to)), not
    /// back where it was.
    pub chosen_folder: bool,
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

/// The most of an info file that is read.
const INFO_MAX: u64 = 64 << 10;

/// A trash folder opened for reading: its `info/` and `files/`, neither a link.
pub(super) struct TrashFolder {
    path: PathBuf,
    /// The trash folder itself (for its `directorysizes`).
    pub(super) root: OwnedFd,
    pub(super) info: OwnedFd,
    pub(super) files: OwnedFd,
}

impl TrashFolder {
    /// Opens the trash folder `path`; it and its `files/` and `info/` must be real folders,
    /// not links, and a volume's (`.Trash-$uid`, `.Trash/$uid`) must be the user's.
    pub(super) fn open(path: &Path) -> rustix::io::Result<TrashFolder> {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(Errno::INVAL);
        };
        let root = fs::open_dir_at(fs::open_dir_path(parent)?, name)?;
        let info = fs::open_dir_at(&root, "info")?;
        let files = fs::open_dir_at(&root, "files")?;
        if Origin::of(path).volume {
            let uid = rustix::process::getuid().as_raw();
            for fd in [&root, &info, &files] {
                if fs::stat_fd(fd)?.uid != uid {
                    return Err(Errno::PERM);
                }
            }
        }
        Ok(TrashFolder {
            path: path.to_path_buf(),
            root,
            info,
            files,
        })
    }

    /// Reads the entry of info file `name`: fails if the name maps to no item (`.trashinfo`,
    /// `..trashinfo`, `...trashinfo`), the file cannot be read or parsed, or the item it
    /// describes is gone. With the item, when its info file was last written, to the
    /// nanosecond: it orders items trashed within one second of `DeletionDate`.
    fn read(&self, name: &OsStr) -> Result<(TrashedItem, Timestamp)> {
        let info = self.path.join("info").join(name);
        let bad = || Error::io("read", &info, Errno::INVAL);
        let stem = stem_of(name).ok_or_else(bad)?;
        let (text, written) = self.read_text(name)?;
        let (raw, date) = parse(&text).ok_or_else(bad)?;
        let (original, unsafe_entry) = Origin::of(&self.path).resolve(&raw);
        // A place naming no item (`a/..`) leaves the name the item has in the trash, for a
        // restore into a chosen folder.
        let name = original.file_name().unwrap_or(stem).to_owned();
        let file = self.path.join("files").join(stem);
        let meta = fs::stat_at(&self.files, stem).map_err(|e| Error::io("stat", &file, e))?;
        let size = item_size(&file, &meta);
        let item = TrashedItem {
            name,
            trashed_from: original.clone(),
            original,
            unsafe_entry,
            chosen_folder: false,
            deleted_at: parse_date(&date),
            deletion_date: date,
            kind: meta.kind,
            size,
            id: meta.id,
            mtime: meta.mtime,
            file,
            info,
        };
        Ok((item, written))
    }
}

impl TrashFolder {
    /// The bytes of info file `name`, and when it was last written. Only a regular file, not
    /// followed if a link, and only as much as an info file can hold (a path is at most 4 KiB,
    /// thrice that encoded): a FIFO or a huge file on a stick is no info file.
    fn read_text(&self, name: &OsStr) -> Result<(Vec<u8>, Timestamp)> {
        let info = self.path.join("info").join(name);
        let fd = fs::open_file_at(&self.info, name).map_err(|e| Error::io("open", &info, e))?;
        let meta = fs::stat_fd(&fd).map_err(|e| Error::io("stat", &info, e))?;
        if meta.kind != Kind::File || meta.size > INFO_MAX {
            return Err(Error::io("read", &info, Errno::INVAL));
        }
        let mut text = Vec::new();
        std::io::Read::read_to_end(
            &mut std::io::Read::take(std::fs::File::from(fd), INFO_MAX),
            &mut text,
        )
        .map_err(|e| Error::io("read", &info, e))?;
        Ok((text, meta.mtime))
    }

    /// The item `name` of `files/` that no readable info file describes, listed where it
    /// is (see [`UnsafeEntry::NoInfo`]).
    fn orphan(&self, name: &OsStr) -> Result<(TrashedItem, Timestamp)> {
        let file = self.path.join("files").join(name);
        let meta = fs::stat_at(&self.files, name).map_err(|e| Error::io("stat", &file, e))?;
        let mut info_name = name.to_owned();
        info_name.push(".trashinfo");
        let reason = match fs::stat_at(&self.info, &info_name) {
            Ok(_) => UnsafeEntry::BrokenInfo,
            Err(_) => UnsafeEntry::NoInfo,
        };
        let item = TrashedItem {
            name: name.to_owned(),
            original: file.clone(),
            trashed_from: file.clone(),
            unsafe_entry: Some(reason),
            chosen_folder: false,
            deletion_date: String::new(),
            deleted_at: None,
            kind: meta.kind,
            size: item_size(&file, &meta),
            id: meta.id,
            mtime: meta.mtime,
            info: self.path.join("info").join(info_name),
            file,
        };
        Ok((item, Timestamp::default()))
    }
}

/// A file's size, or the total size of the files in a folder.
fn item_size(path: &Path, meta: &fs::Meta) -> u64 {
    if meta.kind == Kind::Dir {
        tree_size(path)
    } else {
        meta.size
    }
}

impl TrashedItem {
    /// Reads one item from its info file (`…/Trash/info/NAME.trashinfo`); fails if the info
    /// file cannot be read or parsed, its name maps to no item, or the item it describes is
    /// gone. An info file naming an unsafe place is read, with
    /// [`unsafe_entry`](Self::unsafe_entry) saying why.
    pub fn read(info: &Path) -> Result<TrashedItem> {
        let bad = || Error::io("read", info, Errno::INVAL);
        let name = info.file_name().ok_or_else(bad)?;
        let trash = info.parent().and_then(Path::parent).ok_or_else(bad)?;
        TrashFolder::open(trash)
            .map_err(|e| Error::io("open the trash folder", trash, e))?
            .read(name)
            .map(|(item, _)| item)
    }

    /// The same item, to be restored into `folder` (one the user picked: "Restore to…")
    /// under its own name, rather than where it was. Unsafe entries can be restored so.
    pub fn restore_to(&self, folder: &Path) -> TrashedItem {
        TrashedItem {
            original: folder.join(&self.name),
            unsafe_entry: None,
            chosen_folder: true,
            ..self.clone()
        }
    }
}

/// Removes the info files of the entries `names` of the trash folder `trash` whose items
/// have left the trash (a [`Job::Delete`](crate::jobs::Job::Delete) of them, "Delete
/// permanently"), so that no stale info file is left behind: the names whose info file is
/// gone now (or was already). One whose item is still there (its delete failed) keeps its
/// info file and stays listed; one whose info file cannot be removed stays an entry for
/// nothing, which listing skips and Empty Trash removes. The folder is opened once: opened
/// for each entry, 20,000 took seconds.
pub(crate) fn forget_gone<'n>(trash: &Path, names: &[&'n OsStr]) -> Result<Vec<&'n OsStr>> {
    let folder = match TrashFolder::open(trash) {
        Ok(folder) => folder,
        Err(Errno::NOENT) => return Ok(names.to_vec()),
        Err(e) => return Err(Error::io("open the trash folder", trash, e)),
    };
    let mut gone = Vec::with_capacity(names.len());
    let mut info_name = std::ffi::OsString::new();
    for &name in names {
        if fs::stat_at(&folder.files, name) != Err(Errno::NOENT) {
            continue;
        }
        info_name.clear();
        info_name.push(name);
        info_name.push(".trashinfo");
        let flags = rustix::fs::AtFlags::empty();
        if matches!(
            rustix::fs::unlinkat(&folder.info, &info_name, flags),
            Ok(()) | Err(Errno::NOENT)
        ) {
            gone.push(name);
        }
    }
    Ok(gone)
}

impl TrashedItem {
    /// The item as a restore job was given it, from its record and `DeletionDate` (what the
    /// journal keeps: the item may have left the trash since).
    /// `trashed_from` is the `Path=` it had, when not [`TrashRecord::original`].
    pub(crate) fn recorded(
        r: TrashRecord,
        deletion_date: String,
        chosen: bool,
        trashed_from: Option<PathBuf>,
    ) -> TrashedItem {
        TrashedItem {
            trashed_from: trashed_from.unwrap_or_else(|| r.original.clone()),
            name: r.original.file_name().unwrap_or_default().to_owned(),
            unsafe_entry: None,
            chosen_folder: chosen,
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

/// How the trash folders of `roots` stand: each one's path and the modification times of
/// its `info/` and `files/` folders, which change whenever an item is trashed, restored or
/// deleted. Cheap beside [`list_trash_in`], which reads every info file: a view of the trash
/// reads it again only when the stamp changes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TrashStamp(Vec<(PathBuf, Option<Timestamp>, Option<Timestamp>)>);

/// The [`TrashStamp`] of `roots` now.
pub fn trash_stamp(roots: &TrashRoots) -> TrashStamp {
    let changed = |dir: &Path| fs::stat_at(rustix::fs::CWD, dir).ok().map(|m| m.mtime);
    TrashStamp(
        (trash_dirs(roots).into_iter())
            .map(|dir| {
                let (info, files) = (changed(&dir.join("info")), changed(&dir.join("files")));
                (dir, info, files)
            })
            .collect(),
    )
}

/// Everything in the user's trash (home trash and every volume's), oldest first.
pub fn list_trash() -> Result<Vec<TrashedItem>> {
    list_trash_in(&TrashRoots::from_env()?)
}

/// Everything in the trash folders of `roots`, oldest first: by `DeletionDate`, which has
/// one-second steps, then by when the info file was written (two items trashed from one path
/// within a second are listed in the order they were trashed), then by original path. Info
/// files whose item is gone, whose name maps to no item, or that cannot be parsed are left
/// out; so are trash folders that are links or, on a volume, not the user's. Entries naming
/// an unsafe place are listed with [`TrashedItem::unsafe_entry`] set.
pub fn list_trash_in(roots: &TrashRoots) -> Result<Vec<TrashedItem>> {
    let mut items = Vec::new();
    let mut buf = Vec::new();
    for dir in trash_dirs(roots) {
        let folder = match TrashFolder::open(&dir) {
            Ok(folder) => folder,
            Err(Errno::NOENT | Errno::LOOP | Errno::NOTDIR | Errno::PERM) => continue,
            Err(e) => return Err(Error::io("open the trash folder", dir, e)),
        };
        let mut names = Vec::new();
        fs::read_dir(&folder.info, &mut buf, |name, _| {
            if name.as_bytes().ends_with(b".trashinfo") {
                names.push(name.to_owned());
            }
            Ok(())
        })
        .map_err(|e| Error::io("read folder", dir.join("info"), e))?;
        let start = items.len();
        items.extend(names.iter().filter_map(|n| folder.read(n).ok()));
        let described: HashSet<&OsStr> = items[start..]
            .iter()
            .filter_map(|(item, _)| item.file.file_name())
            .collect();
        let mut orphans = Vec::new();
        fs::read_dir(&folder.files, &mut buf, |name, _| {
            if !described.contains(name) {
                orphans.push(name.to_owned());
            }
            Ok(())
        })
        .map_err(|e| Error::io("read folder", dir.join("files"), e))?;
        items.extend(orphans.iter().filter_map(|n| folder.orphan(n).ok()));
    }
    let key = |(item, written): &(TrashedItem, Timestamp)| {
        let original = item.original.as_os_str().as_bytes();
        (item.deletion_date.clone(), *written, original.to_vec())
    };
    items.sort_by_cached_key(key);
    Ok(items.into_iter().map(|(item, _)| item).collect())
}

/// The info files of `roots` that describe an item gone from `files/`, trashed from one of
/// `originals` at `since` (unix seconds) or later, or empty, made since then and named after
/// one of them: what a trash job killed between making an item's info file and moving the
/// item leaves (listing leaves them out; other tools list them as items that cannot be
/// restored).
pub(crate) fn stray_infos(roots: &TrashRoots, since: i64, originals: &[PathBuf]) -> Vec<PathBuf> {
    let mut stray = Vec::new();
    let mut buf = Vec::new();
    for dir in trash_dirs(roots) {
        let Ok(folder) = TrashFolder::open(&dir) else {
            continue;
        };
        let mut names = Vec::new();
        let _ = fs::read_dir(&folder.info, &mut buf, |name, _| {
            if let Some(stem) = stem_of(name) {
                names.push((name.to_owned(), stem.to_owned()));
            }
            Ok(())
        });
        for (name, stem) in names {
            if fs::stat_at(&folder.files, &stem) != Err(Errno::NOENT) {
                continue;
            }
            let Ok((text, written)) = folder.read_text(&name) else {
                continue;
            };
            let info = dir.join("info").join(&name);
            // Killed before it wrote a byte: empty, made since the job began, named after
            // one of its items (`a`, or `a.2` beside another `a`).
            if text.is_empty() {
                let since_job = written.sec >= since;
                let named = originals.iter().filter_map(|o| o.file_name()).any(|n| {
                    let n = n.as_bytes();
                    let stem = stem.as_bytes();
                    stem == n || stem.strip_prefix(n).is_some_and(|r| r.starts_with(b"."))
                });
                if since_job && named {
                    stray.push(info);
                }
                continue;
            }
            let Some((raw, date)) = parse(&text) else {
                continue;
            };
            let (original, _) = Origin::of(&dir).resolve(&raw);
            let ours = parse_date(&date).is_some_and(|t| t >= since);
            if ours && originals.contains(&original) {
                stray.push(info);
            }
        }
    }
    stray
}

/// The name in `files/` of the item info file `name` describes, if it maps to one (not
/// `.trashinfo`, `..trashinfo`, `...trashinfo`).
fn stem_of(name: &OsStr) -> Option<&OsStr> {
    name.as_bytes()
        .strip_suffix(b".trashinfo")
        .filter(|s| !matches!(*s, b"" | b"." | b"..") && !s.contains(&b'/'))
        .map(OsStr::from_bytes)
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
        } else if let Some(at) = line.iter().position(|&b| b == b'=') {
            // Desktop Entry syntax: spaces around `=` are ignored.
            let value = line[at + 1..].trim_ascii();
            match line[..at].trim_ascii() {
                b"Path" => path = Some(PathBuf::from(OsString::from_vec(percent_decode(value)))),
                b"DeletionDate" => date = String::from_utf8_lossy(value).into_owned(),
                _ => {}
            }
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
    use crate::uri::percent_encode_path;

    #[test]
    fn paths_round_trip_through_percent_encoding() {
        let path = Path::new(OsStr::from_bytes(b"/tmp/a b%/caf\xc3\xa9/x\xff\n#?"));
        let encoded = percent_encode_path(path);
        assert_eq!(encoded, "/tmp/a%20b%25/caf%C3%A9/x%FF%0A%23%3F");
        assert_eq!(
            percent_decode(encoded.as_bytes()),
            path.as_os_str().as_bytes()
        );
        assert_eq!(percent_decode(b"100%"), b"100%");
    }

    #[test]
    fn an_info_file_is_forgotten_only_once_its_item_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let trash = dir.path().join("Trash");
        std::fs::create_dir_all(trash.join("files")).unwrap();
        std::fs::create_dir_all(trash.join("info")).unwrap();
        let body = "[Trash Info]\nPath=/x/a.txt\nDeletionDate=2024-01-02T03:04:05\n";
        for name in ["a.txt", "b.txt"] {
            std::fs::write(trash.join("files").join(name), "a").unwrap();
            std::fs::write(trash.join(format!("info/{name}.trashinfo")), body).unwrap();
        }
        let names = [OsStr::new("a.txt"), OsStr::new("b.txt")];
        assert!(
            forget_gone(&trash, &names).unwrap().is_empty(),
            "the items are still there"
        );
        std::fs::remove_file(trash.join("files/a.txt")).unwrap();
        assert_eq!(forget_gone(&trash, &names).unwrap(), [names[0]]);
        assert!(!trash.join("info/a.txt.trashinfo").exists());
        assert!(trash.join("info/b.txt.trashinfo").exists());
        assert_eq!(
            forget_gone(&trash, &names[..1]).unwrap(),
            [names[0]],
            "gone already"
        );
    }

    /// A trash folder in `dir`, with `files/` and `info/`.
    fn trash_in(dir: &Path) -> PathBuf {
        let trash = dir.join("Trash");
        std::fs::create_dir_all(trash.join("files")).unwrap();
        std::fs::create_dir_all(trash.join("info")).unwrap();
        trash
    }

    /// Info files are Desktop Entry files: spaces around `=` are ignored, as GLib's and
    /// KDE's readers ignore them. What no info file describes (none, or one without a
    /// `Path`) is listed where it is, as an unsafe entry, as `gio trash --list` lists it:
    /// never emptied unseen.
    #[test]
    fn items_without_a_readable_path_are_listed_where_they_are() {
        let dir = tempfile::tempdir().unwrap();
        let trash = trash_in(dir.path());
        for name in ["spaced", "pathless", "orphan"] {
            std::fs::write(trash.join("files").join(name), name).unwrap();
        }
        let spaced = "[Trash Info]\nPath = /x/spaced\nDeletionDate = 2024-01-02T03:04:05\n";
        std::fs::write(trash.join("info/spaced.trashinfo"), spaced).unwrap();
        let pathless = "[Trash Info]\nDeletionDate=2024-01-02T03:04:05\n";
        std::fs::write(trash.join("info/pathless.trashinfo"), pathless).unwrap();

        let listed = list_trash_in(&TrashRoots::home_only(&trash)).unwrap();
        let found = |name: &str| {
            let file = trash.join("files").join(name);
            listed.iter().find(|i| i.file == file).unwrap().clone()
        };
        let spaced = found("spaced");
        assert_eq!(spaced.original, Path::new("/x/spaced"));
        assert_eq!(spaced.deletion_date, "2024-01-02T03:04:05");
        assert_eq!(spaced.unsafe_entry, None);
        for (name, reason) in [
            ("pathless", UnsafeEntry::BrokenInfo),
            ("orphan", UnsafeEntry::NoInfo),
        ] {
            let item = found(name);
            assert_eq!(item.unsafe_entry, Some(reason), "{name}");
            assert_eq!(item.original, item.file, "listed where it is");
            assert_eq!(item.size, name.len() as u64);
        }
        assert_eq!(listed.len(), 3);
    }

    /// The freedesktop `DeletionDate` has one-second steps; items trashed from one path
    /// within one second are told apart by when their info files were written, whatever the
    /// order the folder lists them in.
    #[test]
    fn items_trashed_within_one_second_are_listed_in_the_order_they_were_trashed() {
        let dir = tempfile::tempdir_in("/dev/shm").unwrap();
        let body = "[Trash Info]\nPath=/x/n\nDeletionDate=2024-01-02T03:04:05\n";
        let second = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_704_164_645);
        for first_trashed in ["n", "n.2"] {
            let trash = dir.path().join(first_trashed).join("Trash");
            std::fs::create_dir_all(trash.join("files")).unwrap();
            std::fs::create_dir_all(trash.join("info")).unwrap();
            for name in ["n", "n.2"] {
                std::fs::write(trash.join("files").join(name), name).unwrap();
                let info = trash.join(format!("info/{name}.trashinfo"));
                std::fs::write(&info, body).unwrap();
                let later = u64::from(name != first_trashed);
                let written = second + std::time::Duration::from_nanos(1_000 + later);
                let file = std::fs::File::options().write(true).open(&info).unwrap();
                file.set_modified(written).unwrap();
            }
            let listed = list_trash_in(&TrashRoots::home_only(&trash)).unwrap();
            let names: Vec<_> = listed.iter().map(|i| i.file.file_name().unwrap()).collect();
            assert_eq!(
                names.first().unwrap(),
                &OsStr::new(first_trashed),
                "{names:?}"
            );
        }
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
}
