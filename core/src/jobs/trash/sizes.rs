//! `$trash/directorysizes` (Trash specification 1.0): a cache of the sizes of the folders in
//! a trash, which Dolphin (KIO) reads to sum up a trash without walking every folder in it.
//! One line per trashed folder, `size mtime name`: the apparent size of the files below it
//! in bytes (what KIO writes and reads), the modification time of its `.trashinfo` in
//! milliseconds (a reader trusts a line only while that time matches), and its name in
//! `files/` percent-encoded.
//!
//! Milliseconds, where the specification says seconds: KIO, the one reader and writer of
//! this file there is, writes and compares milliseconds. A line in seconds would never match
//! there, and since KIO adds no line for a name already listed, it would walk that folder at
//! every look for as long as it stays in the trash.
//!
//! Written once per job and trash folder, and only for folders: a trash job adds a line for
//! each folder it trashed (walking it once, in the trash), and a job that took a folder out
//! (restore, empty) drops the lines of folders no longer there. The new file is written
//! beside the old under a name of this process's and renamed over it, as the specification
//! asks, so that a reader or another writer never sees half of it. A cache: what cannot be
//! written is left for the next job, or to the reader, which measures a folder it has no
//! line for.

use std::collections::{BTreeMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::io::{Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use rustix::fs::AtFlags;

use super::TrashRecord;
use super::info::TrashFolder;
use crate::entry::Kind;
use crate::fs;

const FILE: &str = "directorysizes";
/// The most of an existing cache that is read: a trash folder may come on a stick.
const MAX: u64 = 16 << 20;

/// After a trash job: lines for the folders it put in each trash, `trashed`.
pub(super) fn trashed(trashed: &[TrashRecord]) {
    for (dir, added) in folders_by_trash(folders(trashed)) {
        update(dir, &added, &[]);
    }
}

/// After a restore (`records`, where each item restored whole was in the trash): the lines
/// of its folders dropped, and of any other folder no longer there. One restored in part,
/// still there (`partly`, its path in `files/`), has no line either: its size changed, its
/// info file did not, and a reader trusting the line showed the old size.
pub(super) fn left(records: &[TrashRecord], partly: &[PathBuf]) {
    let stale = folders(records).chain(partly.iter().map(PathBuf::as_path));
    for (dir, stale) in folders_by_trash(stale) {
        update(dir, &[], &stale);
    }
}

/// Where in the trash the folders of `records` are (or were).
fn folders(records: &[TrashRecord]) -> impl Iterator<Item = &Path> {
    (records.iter())
        .filter(|r| r.kind == Kind::Dir)
        .map(|r| r.file.as_path())
}

/// The names in `files/` of the folders at `files`, by the trash folder they are in.
fn folders_by_trash<'a>(
    files: impl Iterator<Item = &'a Path>,
) -> BTreeMap<&'a Path, Vec<&'a OsStr>> {
    let mut by_trash: BTreeMap<&Path, Vec<&OsStr>> = BTreeMap::new();
    for file in files {
        if let (Some(name), Some(dir)) = (file.file_name(), file.parent().and_then(Path::parent)) {
            by_trash.entry(dir).or_default().push(name);
        }
    }
    by_trash
}

/// Rewrites the cache of trash folder `dir`: its lines for folders no longer in `files/`,
/// or named in `added` or `stale`, dropped, and a line for each folder of `added`. Written
/// only when that changes anything.
pub(super) fn update(dir: &Path, added: &[&OsStr], stale: &[&OsStr]) {
    let Ok(folder) = TrashFolder::open(dir) else {
        return;
    };
    let old = read(&folder);
    if old.is_empty() && added.is_empty() {
        return;
    }
    // By name: an emptied trash may name a hundred thousand entries.
    let dropped: HashSet<&OsStr> = added.iter().chain(stale).copied().collect();
    let mut text = Vec::with_capacity(old.len() + added.len() * 64);
    let mut changed = false;
    for line in old.split_inclusive(|&b| b == b'\n') {
        let name = line_name(line);
        let keep = name.is_some_and(|name| {
            let name = OsStr::from_bytes(&name);
            !dropped.contains(name)
                && fs::stat_at(&folder.files, name).is_ok_and(|m| m.kind == Kind::Dir)
        });
        match keep && line.ends_with(b"\n") {
            true => text.extend_from_slice(line),
            false => changed = true,
        }
    }
    for &name in added {
        let mut info_name = name.to_owned();
        info_name.push(".trashinfo");
        let (Ok(size), Ok(info)) = (
            fs::tree_size_at(&folder.files, name),
            fs::stat_at(&folder.info, &info_name),
        ) else {
            continue;
        };
        let encoded = crate::uri::percent_encode_path(Path::new(name));
        let millis = info.mtime.sec * 1000 + i64::from(info.mtime.nsec / 1_000_000);
        text.extend_from_slice(format!("{size} {millis} {encoded}\n").as_bytes());
        changed = true;
    }
    match (changed, text.is_empty()) {
        (false, _) => {}
        // No folder left in the trash (emptied): no cache.
        (true, true) => {
            let _ = rustix::fs::unlinkat(&folder.root, FILE, AtFlags::empty());
        }
        (true, false) => {
            let _ = write(&folder, &text);
        }
    }
}

/// The cache as it is; empty when there is none, or it cannot be read.
fn read(folder: &TrashFolder) -> Vec<u8> {
    let mut text = Vec::new();
    if let Ok(fd) = fs::open_file_at(&folder.root, FILE) {
        let mut file = std::fs::File::from(fd).take(MAX);
        if file.read_to_end(&mut text).is_err() {
            text.clear();
        }
    }
    text
}

/// The folder name of a cache line (`size mtime name`), decoded; `None` for a line that is
/// not one.
fn line_name(line: &[u8]) -> Option<Vec<u8>> {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let mut fields = line.splitn(3, |&b| b == b' ');
    let (size, mtime, name) = (fields.next()?, fields.next()?, fields.next()?);
    let number = |f: &[u8]| !f.is_empty() && f.iter().all(u8::is_ascii_digit);
    (number(size) && number(mtime) && !name.is_empty())
        .then(|| crate::uri::percent_decode(name))
        .filter(|name| !name.contains(&b'/') && name != b"." && name != b"..")
}

/// Puts `text` in place of the cache: written under a name of this process's in the trash
/// folder, then renamed over it. Neither name is followed if it is a link.
fn write(folder: &TrashFolder, text: &[u8]) -> std::io::Result<()> {
    let temp = OsString::from(format!("{FILE}.ferry-{}", std::process::id()));
    let root = &folder.root;
    let fd = match fs::create_private_at(root, &temp) {
        // Left by a process of the same id that was killed here.
        Err(rustix::io::Errno::EXIST) => {
            rustix::fs::unlinkat(root, &temp, AtFlags::empty())?;
            fs::create_private_at(root, &temp)?
        }
        opened => opened?,
    };
    let written = std::fs::File::from(fd)
        .write_all(text)
        .and_then(|()| Ok(rustix::fs::renameat(root, &temp, root, FILE)?));
    if written.is_err() {
        let _ = rustix::fs::unlinkat(root, &temp, AtFlags::empty());
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_lines_name_their_folder() {
        assert_eq!(line_name(b"4096 1700000000 a%20b\n"), Some(b"a b".to_vec()));
        assert_eq!(line_name(b"1 2 x"), Some(b"x".to_vec()));
        for bad in [
            &b"x 2 a\n"[..],
            b"1 a\n",
            b"1 2 \n",
            b"1 2 %2F\n",
            b"1 2 ..\n",
        ] {
            assert_eq!(line_name(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }
}
