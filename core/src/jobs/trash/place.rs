//! Where a trashed item goes back to. An info file is untrusted input: a removable drive's
//! `.Trash-$uid` can be written by anyone who had the drive, so its `Path=` may climb out
//! with `..`, name a place off the volume, or lead through a folder that is now a symbolic
//! link.
//!
//! A relative `Path` (what topdir trashes hold, and what Ferry writes there) is read from the
//! volume's top; an absolute one in a topdir trash must lie inside that top; neither may have
//! `..`, `.` or empty components, nor lead into the trash folder itself. Anything else is an
//! [`UnsafeEntry`]: listed as such, never restored to that place (only to a folder the user
//! picks, [`TrashedItem::restore_to`]). The restore then opens the item's destination folder
//! by walking from a trusted folder (the volume's top, the home folder, or `/` for a place
//! of the home trash outside the home folder) one component at a time with `O_NOFOLLOW`,
//! creating what is missing: a symbolic link on the way is a refusal that names it
//! ([`Error::LinkInPath`]), never a write through it.

use std::ffi::OsStr;
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use rustix::fd::OwnedFd;
use rustix::fs::Mode;
use rustix::io::Errno;

use super::TrashedItem;
use crate::entry::Kind;
use crate::error::{Error, Result};
use crate::fs;

/// Why a trash entry is not restored to the place its info file names. It can still be
/// restored into a folder the user picks ([`TrashedItem::restore_to`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UnsafeEntry {
    /// Its `Path` has a `..` component: it climbs out of where it is read from.
    ParentComponent,
    /// Its `Path` has an empty or `.` component (`a//b`, `a/./b`, a final `/`), or names no
    /// item at all.
    EmptyComponent,
    /// Its `Path` holds a NUL byte (`%00`), which no file name can: restored there, it
    /// failed with "Invalid argument", and was listed as any other.
    NulByte,
    /// An absolute `Path` in the trash of a volume that lies outside that volume.
    OffVolume {
        /// The volume's top folder.
        top: PathBuf,
    },
    /// Its `Path` is the trash folder itself or a place inside it.
    InsideTrash,
    /// It has no info file that says where it was: listed where it is in the trash, as
    /// `gio trash --list` lists it, so that it can be restored somewhere or deleted rather
    /// than be emptied unseen.
    NoInfo,
    /// It has an info file, which cannot be read or names no `Path` (listed as
    /// [`NoInfo`](Self::NoInfo) is; said apart, as the file is there to look at).
    BrokenInfo,
}

impl fmt::Display for UnsafeEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnsafeEntry::ParentComponent => f.write_str("its Path climbs out with `..`"),
            UnsafeEntry::EmptyComponent => {
                f.write_str("its Path has an empty or `.` component, or names no item")
            }
            UnsafeEntry::NulByte => f.write_str("its Path holds a NUL byte, which no name can"),
            UnsafeEntry::OffVolume { top } => write!(
                f,
                "its Path lies outside the volume its trash is on ({})",
                top.display()
            ),
            UnsafeEntry::InsideTrash => f.write_str("its Path lies inside the trash folder"),
            UnsafeEntry::NoInfo => f.write_str("no info file says where it was"),
            UnsafeEntry::BrokenInfo => {
                f.write_str("its info file cannot be read, or does not say where it was")
            }
        }
    }
}

/// What a trash folder's info files are read against.
pub(super) struct Origin<'a> {
    /// The trash folder (holding `files/` and `info/`).
    pub(super) trash: &'a Path,
    /// The folder relative `Path`s start from: the volume's top for a topdir trash, the
    /// folder holding the home trash for the home trash.
    pub(super) top: &'a Path,
    /// A topdir trash (`$top/.Trash-$uid` or `$top/.Trash/$uid`): absolute paths must stay
    /// inside `top`.
    pub(super) volume: bool,
}

impl<'a> Origin<'a> {
    /// The origin of the trash folder `trash`, told by its name.
    pub(super) fn of(trash: &'a Path) -> Origin<'a> {
        let parent = trash.parent().unwrap_or(Path::new("/"));
        let shared = parent.file_name() == Some(OsStr::new(".Trash"));
        let own = trash
            .file_name()
            .is_some_and(|n| n.as_bytes().starts_with(b".Trash-"));
        let top = if shared {
            parent.parent().unwrap_or(Path::new("/"))
        } else {
            parent
        };
        Origin {
            trash,
            top,
            volume: shared || own,
        }
    }

    /// Where `Path=` value `raw` points, and why it must not be restored there, if so.
    pub(super) fn resolve(&self, raw: &Path) -> (PathBuf, Option<UnsafeEntry>) {
        let original = if raw.is_absolute() {
            raw.to_path_buf()
        } else {
            self.top.join(raw)
        };
        let verdict = plain(raw).and_then(|()| self.check(&original));
        (original, verdict.err())
    }

    /// Checks an absolute place (`original` of a listed or recorded item) against this trash.
    pub(super) fn check(&self, original: &Path) -> Result<(), UnsafeEntry> {
        plain(original)?;
        if original.file_name().is_none() {
            return Err(UnsafeEntry::EmptyComponent);
        }
        if self.volume && (!original.starts_with(self.top) || original == self.top) {
            return Err(UnsafeEntry::OffVolume {
                top: self.top.to_path_buf(),
            });
        }
        if original.starts_with(self.trash) {
            return Err(UnsafeEntry::InsideTrash);
        }
        Ok(())
    }
}

/// `path` has only plain components: no `..`, no `.`, nothing empty (a leading `/` aside).
fn plain(path: &Path) -> Result<(), UnsafeEntry> {
    let bytes = path.as_os_str().as_bytes();
    let bytes = bytes.strip_prefix(b"/").unwrap_or(bytes);
    if bytes.contains(&0) {
        return Err(UnsafeEntry::NulByte);
    }
    let mut verdict = Ok(());
    for part in bytes.split(|&b| b == b'/') {
        match part {
            b".." => return Err(UnsafeEntry::ParentComponent),
            b"" | b"." => verdict = Err(UnsafeEntry::EmptyComponent),
            _ => {}
        }
    }
    verdict
}

/// Opens (creating what is missing) the folder `item` is restored into, refusing an unsafe
/// entry and any symbolic link between the trusted folder the walk starts from and it.
pub(super) fn open_parent(item: &TrashedItem) -> Result<OwnedFd> {
    let unsafe_entry = |reason| Error::UnsafeTrashEntry {
        // An entry without an info file is named by itself.
        path: match reason {
            UnsafeEntry::NoInfo => item.file.clone(),
            _ => item.info.clone(),
        },
        reason,
    };
    if let Some(reason) = item.unsafe_entry.clone().filter(|_| !item.chosen_folder) {
        return Err(unsafe_entry(reason));
    }
    let trash = item
        .file
        .parent()
        .and_then(Path::parent)
        .ok_or_else(|| unsafe_entry(UnsafeEntry::InsideTrash))?;
    let origin = Origin::of(trash);
    let parent = item
        .original
        .parent()
        .filter(|p| p.is_absolute() && item.original.file_name().is_some())
        .ok_or_else(|| unsafe_entry(UnsafeEntry::EmptyComponent))?;
    if item.chosen_folder {
        // A folder the user picked: opened as they named it, links and all.
        if item.original.starts_with(trash) {
            return Err(unsafe_entry(UnsafeEntry::InsideTrash));
        }
        return fs::open_dir_path(parent).map_err(|e| open_error(parent, e));
    }
    origin.check(&item.original).map_err(unsafe_entry)?;
    let anchor = if origin.volume {
        origin.top.to_path_buf()
    } else {
        home_anchor(parent)
    };
    let rest = parent.strip_prefix(&anchor).unwrap_or(Path::new(""));
    let mut fd = fs::open_dir_path(&anchor).map_err(|e| open_error(&anchor, e))?;
    let mut path = anchor;
    for part in rest.components() {
        let Component::Normal(name) = part else {
            return Err(unsafe_entry(UnsafeEntry::EmptyComponent));
        };
        let next = path.join(name);
        fd = step(&fd, name, &next, &item.original, !origin.volume)?;
        path = next;
    }
    Ok(fd)
}

/// Where the walk to a place of the home trash starts: the home folder when the place is in
/// it, else `/`.
fn home_anchor(parent: &Path) -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .filter(|home| home.is_absolute() && parent.starts_with(home))
        .unwrap_or_else(|| PathBuf::from("/"))
}

/// Opens folder `name` (at `path`) in `dir` without following a link, creating it if missing.
/// For a place of the home trash (`own_links`), a link of the user's own (or root's) is
/// followed, as GNOME and KDE restore through `~/Documents -> elsewhere`: the home trash is
/// written by the user's programs, and such a link is the user's choice. Another user's
/// link is refused there too.
fn step(dir: &OwnedFd, name: &OsStr, path: &Path, dest: &Path, own_links: bool) -> Result<OwnedFd> {
    // Looked at only when the careful open failed: a folder on the way costs one call.
    let open_or_refuse = |e: Errno| match fs::stat_at(dir, name) {
        Ok(m) if m.kind == Kind::Symlink && own_links && is_own(m.uid) => {
            let flags = rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::CLOEXEC;
            rustix::fs::openat(dir, name, flags, Mode::empty()).map_err(|e| open_error(path, e))
        }
        Ok(m) if m.kind == Kind::Symlink => Err(Error::LinkInPath {
            path: path.to_path_buf(),
            dest: dest.to_path_buf(),
        }),
        Ok(m) if m.kind != Kind::Dir => Err(Error::NotADirectory {
            path: path.to_path_buf(),
        }),
        _ => Err(open_error(path, e)),
    };
    match fs::open_dir_at(dir, name) {
        Ok(fd) => return Ok(fd),
        Err(Errno::NOENT) => {}
        Err(e) => return open_or_refuse(e),
    }
    // Missing: recreated (as Dolphin does), then opened the same careful way.
    match rustix::fs::mkdirat(dir, name, Mode::from_raw_mode(0o777)) {
        Ok(()) | Err(Errno::EXIST) => {}
        Err(e) => return Err(Error::io("create folder", path, e)),
    }
    fs::open_dir_at(dir, name).or_else(open_or_refuse)
}

/// A link's owner whose links a restore from the home trash follows: the user, or root.
fn is_own(uid: u32) -> bool {
    uid == 0 || uid == rustix::process::getuid().as_raw()
}

fn open_error(path: &Path, e: Errno) -> Error {
    match e {
        Errno::NOTDIR => Error::NotADirectory {
            path: path.to_path_buf(),
        },
        e => Error::io("open", path, e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topdir_paths_stay_on_their_volume() {
        let trash = Path::new("/media/stick/.Trash-1000");
        let o = Origin::of(trash);
        assert!(o.volume && o.top == Path::new("/media/stick"));
        let ok = o.resolve(Path::new("docs/a.txt"));
        assert_eq!(ok, (PathBuf::from("/media/stick/docs/a.txt"), None));
        let verdict = |raw: &str| o.resolve(Path::new(raw)).1;
        assert_eq!(verdict("../x"), Some(UnsafeEntry::ParentComponent));
        assert_eq!(
            verdict("/media/stick/a/../../x"),
            Some(UnsafeEntry::ParentComponent)
        );
        assert_eq!(verdict("a//b"), Some(UnsafeEntry::EmptyComponent));
        assert_eq!(verdict("a/./b"), Some(UnsafeEntry::EmptyComponent));
        assert_eq!(verdict("a/"), Some(UnsafeEntry::EmptyComponent));
        assert_eq!(verdict("nul\0x"), Some(UnsafeEntry::NulByte));
        assert!(matches!(
            verdict("/media/stick"),
            Some(UnsafeEntry::OffVolume { .. })
        ));
        assert!(matches!(
            verdict("/home/u/x"),
            Some(UnsafeEntry::OffVolume { .. })
        ));
        assert!(matches!(
            verdict("/media/stick2/x"),
            Some(UnsafeEntry::OffVolume { .. })
        ));
        assert_eq!(verdict("/media/stick/x"), None);
        assert_eq!(
            verdict(".Trash-1000/files/y"),
            Some(UnsafeEntry::InsideTrash)
        );
        let shared = Origin::of(Path::new("/mnt/.Trash/1000"));
        assert!(shared.volume && shared.top == Path::new("/mnt"));
    }

    #[test]
    fn the_home_trash_takes_absolute_paths_anywhere_but_never_dot_dot() {
        let o = Origin::of(Path::new("/home/u/.local/share/Trash"));
        assert!(!o.volume);
        assert_eq!(o.resolve(Path::new("/srv/x")).1, None);
        assert_eq!(
            o.resolve(Path::new("/srv/../etc/x")).1,
            Some(UnsafeEntry::ParentComponent)
        );
        assert_eq!(
            o.resolve(Path::new("/home/u/.local/share/Trash/info/x")).1,
            Some(UnsafeEntry::InsideTrash)
        );
    }
}
