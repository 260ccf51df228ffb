//! One trash folder: the home trash or a disk's (`.Trash/$uid`, `.Trash-$uid`), opened on
//! directory descriptors and made 0700 where missing, and the names items get in it.

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use rustix::fd::OwnedFd;
use rustix::fs::Mode;
use rustix::io::Errno;

use super::TrashRoots;
use crate::entry::Kind;
use crate::error::{Error, Result};
use crate::fs;

/// One trash folder (holding `files/` and `info/`), opened.
pub(super) struct TrashDir {
    pub(super) path: PathBuf,
    pub(super) files: OwnedFd,
    pub(super) info: OwnedFd,
    /// The volume's top, for a volume's trash: its info files hold paths relative to it.
    pub(super) top: Option<PathBuf>,
}

/// Creates folder `name` in `dir` as 0700 if missing, then opens it without following a
/// symlink and checks it belongs to `uid` (a folder planted by someone else is refused).
fn private_dir_at(dir: &OwnedFd, name: &OsStr, uid: u32) -> rustix::io::Result<OwnedFd> {
    match rustix::fs::mkdirat(dir, name, Mode::from_raw_mode(0o700)) {
        Ok(()) | Err(Errno::EXIST) => {}
        Err(e) => return Err(e),
    }
    let fd = fs::open_dir_at(dir, name)?;
    if fs::stat_fd(&fd)?.uid != uid {
        return Err(Errno::PERM);
    }
    Ok(fd)
}

impl TrashDir {
    /// Opens (creating as needed) the trash folder `name` inside the open folder `parent`.
    fn open(parent: &OwnedFd, parent_path: &Path, name: &OsStr, uid: u32) -> Result<Self> {
        let path = parent_path.join(name);
        let io = |e| match e {
            // Opened without following links: say so, not "Not a directory".
            Errno::NOTDIR | Errno::LOOP
                if fs::stat_at(parent, name).is_ok_and(|m| m.kind == Kind::Symlink) =>
            {
                Error::LinkInPath {
                    path: path.clone(),
                    dest: path.clone(),
                }
            }
            e => Error::io("use the trash folder", &path, e),
        };
        let root = private_dir_at(parent, name, uid).map_err(io)?;
        let files = private_dir_at(&root, OsStr::new("files"), uid).map_err(io)?;
        let info = private_dir_at(&root, OsStr::new("info"), uid).map_err(io)?;
        Ok(TrashDir {
            path,
            files,
            info,
            top: None,
        })
    }

    /// The home trash, created (0700) with its parents if missing, and its device and mount.
    pub(super) fn home(roots: &TrashRoots, uid: u32) -> Result<(Self, (u64, u64))> {
        let home = &roots.home_followed();
        let (Some(name), Some(parent)) = (home.file_name(), home.parent()) else {
            return Err(Error::Refused {
                op: "use as the trash",
                path: home.clone(),
            });
        };
        std::fs::create_dir_all(parent).map_err(|e| Error::io("create folder", parent, e))?;
        let pfd = fs::open_dir_path(parent).map_err(|e| Error::io("open", parent, e))?;
        let dir = TrashDir::open(&pfd, parent, name, uid)?;
        let meta = fs::stat_fd(&dir.files).map_err(|e| Error::io("stat", &dir.path, e))?;
        Ok((dir, (meta.id.dev, meta.mnt_id)))
    }

    /// The trash of the file system mounted at `top`: `.Trash/$uid` when an administrator
    /// prepared a valid `.Trash` (a sticky folder, not a link), else `.Trash-$uid`.
    pub(super) fn volume(top: &Path, uid: u32) -> Result<Self> {
        let tfd = fs::open_dir_path(top).map_err(|e| Error::io("open", top, e))?;
        let shared = fs::open_dir_at(&tfd, ".Trash")
            .ok()
            .filter(|d| fs::stat_fd(d).is_ok_and(|m| m.mode & 0o1000 != 0))
            .and_then(|shared| {
                let uid_name = OsString::from(uid.to_string());
                TrashDir::open(&shared, &top.join(".Trash"), &uid_name, uid).ok()
            });
        let dir = match shared {
            Some(dir) => dir,
            None => TrashDir::open(&tfd, top, &volume_trash_name(uid), uid)?,
        };
        Ok(TrashDir {
            top: Some(top.to_path_buf()),
            ..dir
        })
    }
}

pub(super) fn volume_trash_name(uid: u32) -> OsString {
    OsString::from(format!(".Trash-{uid}"))
}

/// The name in the trash for attempt `n` (1, 2, ...): `name`, `name.2`, ..., shortened so
/// that the info file's name (`.trashinfo` added) fits the usual 255-byte limit.
pub(super) fn trash_name(name: &OsStr, n: u32) -> OsString {
    let suffix = if n == 1 {
        String::new()
    } else {
        format!(".{n}")
    };
    let mut keep = (255 - ".trashinfo".len() - suffix.len()).min(name.len());
    // A name in UTF-8 is cut between characters (half a character is a name no program
    // shows right).
    if let Ok(text) = std::str::from_utf8(name.as_bytes()) {
        while !text.is_char_boundary(keep) {
            keep -= 1;
        }
    }
    let mut out = OsStr::from_bytes(&name.as_bytes()[..keep]).to_owned();
    out.push(suffix);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trash_names_count_up_and_fit_the_name_limit() {
        assert_eq!(trash_name(OsStr::new("a.txt"), 1), "a.txt");
        assert_eq!(trash_name(OsStr::new("a.txt"), 3), "a.txt.3");
        let long = OsString::from("x".repeat(255));
        let name = trash_name(&long, 12);
        assert_eq!(name.len() + ".trashinfo".len(), 255);
        assert!(name.as_bytes().ends_with(b"x.12"));
        // Cut between characters: 127 two-byte letters keep 122 whole ones, not 122 and a half.
        let accented = OsString::from("é".repeat(127));
        let name = trash_name(&accented, 1);
        assert_eq!(name.to_str(), Some("é".repeat(122).as_str()));
        let name = trash_name(&accented, 2);
        assert_eq!(
            name.to_str(),
            Some(format!("{}.2", "é".repeat(121)).as_str())
        );
        // A name that is not UTF-8 is cut by bytes.
        let bytes = std::os::unix::ffi::OsStringExt::from_vec(vec![0xff; 255]);
        let bytes: OsString = bytes;
        assert_eq!(trash_name(&bytes, 1).len(), 245);
    }
}
