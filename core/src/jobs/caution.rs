//! Deletes and moves that deserve a second question, and moves never to make.
//!
//! Deleting the home folder, a folder holding it or a mount point: a delete job refuses only
//! `/`; these are legitimate requests that are far more often a slip (a variable that
//! expanded to nothing, a selection that grew), so the window asks before it submits the job
//! and `ferry rm` wants `--force` (RELIABILITY.md, rule 16).
//!
//! Moving them is the same slip, with the same question (`ferry mv --force`), and so is
//! moving a trash folder (the home trash, or `.Trash`/`.Trash-$uid` at a volume's top) or a
//! folder holding one: what is in it leaves the trash, which no longer lists or restores it,
//! but nothing is lost, so the user may insist. A mount point is not asked about: the move
//! job refuses it itself (`plan/walk.rs`). Ferry's state folder, where the undo journal is,
//! or a folder holding it, is never moved, even when insisted on: the move's own journal
//! record is in it, so the job would end by writing into a folder that has gone, the journal
//! would be recreated empty but for a job that seems interrupted, and resuming that job would
//! move the folder again. A shell's `mv` can move it with Ferry not running.
//!
//! A symlink given as a path is never a caution: deleting or moving it takes the link only.

use std::ffi::OsStr;
use std::fmt;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::entry::Kind;
use crate::fs::{self, FileId, Meta};

/// Why deleting or moving a path deserves confirmation (or, for a move, is never done: see
/// [`Caution::can_be_forced`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caution {
    /// It is the user's home folder.
    HomeFolder,
    /// It holds the user's home folder.
    HoldsHomeFolder,
    /// Another filesystem is mounted on it: deleting it deletes that filesystem's contents.
    MountPoint,
    /// It is a trash folder, or holds one: moved, its items leave the trash.
    Trash,
    /// It is Ferry's state folder, holds it or is in it: the undo journal is there
    /// ([`is_ferry_state`]).
    FerryState,
    /// It is in a trash folder already (a trashed item, the trash's `files` or `info`): never
    /// moved to the trash (see [`in_trash`]).
    InTrash,
}

impl Caution {
    /// Whether the user may go ahead once asked; false: never done (see the module's doc).
    pub fn can_be_forced(self) -> bool {
        !matches!(self, Caution::FerryState | Caution::InTrash)
    }
}

impl fmt::Display for Caution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Caution::HomeFolder => "it is your home folder",
            Caution::HoldsHomeFolder => "it holds your home folder",
            Caution::MountPoint => "another filesystem is mounted on it",
            Caution::Trash => "it is or holds a trash folder, whose items would leave the trash",
            Caution::FerryState => {
                "it is, holds or is in Ferry's state folder, where the undo journal of this very \
                 move is kept"
            }
            Caution::InTrash => "it is in the trash already",
        })
    }
}

/// The folders a move must know of to find its cautions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OwnFolders {
    /// The user's home folder.
    pub home: Option<PathBuf>,
    /// Ferry's state folder: the one holding the undo journal's file
    /// ([`UndoJournal::path`](super::UndoJournal::path)).
    pub state: Option<PathBuf>,
    /// The home trash folder (see [`TrashRoots::home`](super::TrashRoots::home)).
    pub trash: Option<PathBuf>,
}

impl OwnFolders {
    /// The user's: the home folder, the default undo journal's folder and the home trash.
    pub fn from_env() -> OwnFolders {
        let journal = super::UndoJournal::open_default().ok();
        OwnFolders {
            home: directories::UserDirs::new().map(|d| d.home_dir().to_path_buf()),
            state: journal.and_then(|j| Some(j.path().parent()?.to_path_buf())),
            trash: super::TrashRoots::from_env().ok().map(|roots| roots.home),
        }
    }
}

/// A folder Ferry guards (the home folder, its own state folder), known by its path (links
/// resolved) and by identity: its own and that of each folder above it. Compared as paths
/// alone, the same folder reached another way, through a bind mount (`mount --bind r
/// alias`: `alias/home` is `r/home`), was a stranger: `ferry rm alias/state` deleted the
/// undo journal, and `ferry rm alias/home` the home folder, without a question.
#[derive(Debug, Clone)]
pub(crate) struct Guarded {
    pub(crate) path: PathBuf,
    /// Its identity, then those of the folders above it, up to `/`.
    chain: Vec<FileId>,
}

impl Guarded {
    /// The folder at `path`; `None` when it is not there (nothing to take away).
    pub(crate) fn of(path: &Path) -> Option<Guarded> {
        let path = std::fs::canonicalize(path).ok()?;
        let chain = fs::ancestors(fs::open_dir_path(&path).ok()?).ok()?;
        Some(Guarded { path, chain })
    }

    pub(crate) fn id(&self) -> FileId {
        self.chain[0]
    }

    /// Whether the item of identity `id` at `real` (its parents' links resolved) is this
    /// folder.
    fn is(&self, real: &Path, id: FileId) -> bool {
        real == self.path || self.id() == id
    }

    /// Whether the open folder `dir` is this one or inside it, by identity (through a bind
    /// mount too): asked once per folder of items, not once per item.
    pub(crate) fn holds_dir(&self, dir: impl std::os::fd::AsFd) -> bool {
        fs::ancestors(dir).is_ok_and(|chain| chain.contains(&self.id()))
    }

    /// Whether the item of identity `id` at `real` holds this folder.
    fn held_by(&self, real: &Path, id: FileId) -> bool {
        (real != self.path && self.path.starts_with(real)) || self.chain[1..].contains(&id)
    }
}

/// Ferry's state folder, where the undo journal is; `None` when it is not there (yet):
/// there is nothing to take away.
pub(crate) fn state_folder() -> Option<Guarded> {
    let journal = super::UndoJournal::open_default().ok()?;
    Guarded::of(journal.path().parent()?)
}

/// Whether the item of identity `id` at `real` (its parents' links resolved) is Ferry's
/// `state` folder, holds it or is in it by its path: the one check of the trash, a delete
/// and a move, none of which takes it away (each also asks whether the item's folder is in
/// it by identity, once per folder: [`Guarded::holds_dir`]). Gone, the undo journal
/// would be recreated holding only the job that took it, and that job's own record would be
/// written into a folder that had gone.
pub(crate) fn is_ferry_state(real: &Path, id: FileId, state: &Guarded) -> bool {
    state.is(real, id) || state.held_by(real, id) || real.starts_with(&state.path)
}

/// Of `paths`, those inside a trash folder (the home trash of `own`, or a disk's at its root):
/// what a move to the trash refuses, as the trash job would.
pub fn in_trash(paths: &[PathBuf], own: &OwnFolders) -> Vec<(PathBuf, Caution)> {
    let trash = own
        .trash
        .as_ref()
        .and_then(|t| std::fs::canonicalize(t).ok());
    paths
        .iter()
        .filter(|path| {
            real_path(path).is_some_and(|real| {
                let inside = |t: &Path| real.starts_with(t) && real != t;
                trash.as_deref().is_some_and(inside)
                    || real.ancestors().skip(1).any(is_volume_trash)
            })
        })
        .map(|path| (path.clone(), Caution::InTrash))
        .collect()
}

/// The paths among `paths` whose deletion deserves confirmation, and why; `home` is the
/// user's home folder. Paths that cannot be examined are left to the job, which reports them.
pub fn delete_cautions(paths: &[PathBuf], home: Option<&Path>) -> Vec<(PathBuf, Caution)> {
    let home = home.and_then(Guarded::of);
    paths
        .iter()
        .filter_map(|path| {
            let (real, meta) = real_folder(path)?;
            let caution = home_caution(&real, meta.id, home.as_ref())
                .or_else(|| is_mount_point(&real, &meta).then_some(Caution::MountPoint))?;
            Some((path.clone(), caution))
        })
        .collect()
}

/// The paths among `paths` whose move deserves confirmation or is never done, and why.
/// Paths that cannot be examined are left to the job, which reports them.
pub fn move_cautions(paths: &[PathBuf], own: &OwnFolders) -> Vec<(PathBuf, Caution)> {
    let guarded = |p: &Option<PathBuf>| p.as_deref().and_then(Guarded::of);
    let (home, state) = (guarded(&own.home), guarded(&own.state));
    let trash = (own.trash.as_ref()).and_then(|p| std::fs::canonicalize(p).ok());
    // A home trash that is a link (followed by the trash): the link moved, the trash was
    // gone from where it is looked for, without the question a trash folder gets.
    let trash_link = (own.trash.as_deref())
        .filter(|t| t.is_symlink())
        .and_then(real_path);
    let holds = |real: &Path, folder: &Option<PathBuf>| {
        folder.as_ref().is_some_and(|f| f.starts_with(real))
    };
    // What is in the state folder goes as little as the folder: a file too (the journal
    // moved alone took the history with it). Its folder resolved once for the paths in it.
    let mut in_state: Option<(PathBuf, bool)> = None;
    let mut in_state_folder = |path: &Path| {
        let (Some(state), Some(parent)) = (state.as_ref(), path.parent()) else {
            return false;
        };
        let parent = if parent.as_os_str().is_empty() {
            Path::new(".")
        } else {
            parent
        };
        match &in_state {
            Some((seen, inside)) if seen == parent => *inside,
            _ => {
                let inside = real_path(parent).is_some_and(|p| p.starts_with(&state.path))
                    || fs::open_dir_path(parent).is_ok_and(|fd| state.holds_dir(fd));
                in_state = Some((parent.to_owned(), inside));
                inside
            }
        }
    };
    paths
        .iter()
        .filter_map(|path| {
            if in_state_folder(path) {
                return Some((path.clone(), Caution::FerryState));
            }
            if trash_link.is_some() && real_path(path) == trash_link {
                return Some((path.clone(), Caution::Trash));
            }
            let (real, meta) = real_folder(path)?;
            // Its parent, in the state folder or not, was looked at above.
            let caution = if state
                .as_ref()
                .is_some_and(|s| is_ferry_state(&real, meta.id, s))
            {
                Some(Caution::FerryState)
            } else {
                home_caution(&real, meta.id, home.as_ref())
            };
            let in_trash =
                || holds(&real, &trash) || holds(&real, &trash_link) || is_volume_trash(&real);
            Some((
                path.clone(),
                caution.or_else(|| in_trash().then_some(Caution::Trash))?,
            ))
        })
        .collect()
}

/// The folder `path` names, its parents' links resolved, and its metadata; `None` for
/// anything but a folder (a link is not followed: only itself goes), for `/` (the jobs
/// refuse it themselves) and for what cannot be examined.
fn real_folder(path: &Path) -> Option<(PathBuf, Meta)> {
    // `lnk/` too: the jobs take the link, not the folder the slash leads to.
    let as_named: PathBuf = path.components().collect();
    let meta = fs::stat_at(rustix::fs::CWD, &as_named).ok()?;
    if meta.kind != Kind::Dir {
        return None;
    }
    let real = real_path(path)?;
    real.parent()?;
    Some((real, meta))
}

/// `path` with its parents' links resolved, the last name as it is (a link there is not
/// followed); `None` if the parent cannot be resolved.
pub(crate) fn real_path(path: &Path) -> Option<PathBuf> {
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) if !parent.as_os_str().is_empty() => {
            Some(std::fs::canonicalize(parent).ok()?.join(name))
        }
        (None, _) => Some(PathBuf::from("/")),
        _ => std::fs::canonicalize(path).ok(),
    }
}

fn home_caution(real: &Path, id: FileId, home: Option<&Guarded>) -> Option<Caution> {
    let home = home?;
    if home.is(real, id) {
        Some(Caution::HomeFolder)
    } else {
        home.held_by(real, id).then_some(Caution::HoldsHomeFolder)
    }
}

fn is_mount_point(real: &Path, meta: &Meta) -> bool {
    let parent = real.parent().unwrap_or(Path::new("/"));
    fs::stat_path(parent).is_ok_and(|p| p.mnt_id != meta.mnt_id)
}

/// `.Trash` or `.Trash-$uid` at the top of a volume (the freedesktop trash specification).
/// Whether `name` is that of a disk's trash folder: `.Trash` (shared, holding `<uid>`) or
/// `.Trash-<uid>`.
pub(crate) fn is_volume_trash_name(name: &[u8]) -> bool {
    name == b".Trash"
        || name
            .strip_prefix(b".Trash-")
            .is_some_and(|uid| !uid.is_empty() && uid.iter().all(u8::is_ascii_digit))
}

fn is_volume_trash(real: &Path) -> bool {
    let Some(name) = real.file_name().map(OsStr::as_bytes) else {
        return false;
    };
    let trash_name = is_volume_trash_name(name);
    let top = real
        .parent()
        .and_then(|p| Some((p, fs::stat_path(p).ok()?)));
    trash_name
        && top.is_some_and(|(top, meta)| top.parent().is_none() || is_mount_point(top, &meta))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn home_its_parents_and_mount_points_are_cautions_links_and_files_are_not() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("users/me");
        std::fs::create_dir_all(home.join("docs")).unwrap();
        std::fs::write(home.join("note"), "x").unwrap();
        std::os::unix::fs::symlink(&home, tmp.path().join("link")).unwrap();
        let paths = [
            home.clone(),
            tmp.path().join("users"),
            home.join("docs"),
            home.join("note"),
            tmp.path().join("link"),
            home.join("docs/../../me"),
            PathBuf::from("/proc"),
        ];
        let found = delete_cautions(&paths, Some(&home));
        assert_eq!(
            found,
            [
                (paths[0].clone(), Caution::HomeFolder),
                (paths[1].clone(), Caution::HoldsHomeFolder),
                (paths[5].clone(), Caution::HomeFolder),
                (paths[6].clone(), Caution::MountPoint),
            ]
        );
    }

    #[test]
    fn moving_home_ferrys_state_or_a_trash_is_a_caution_and_the_state_is_never_forced() {
        let tmp = tempfile::tempdir_in("/dev/shm").unwrap();
        let home = tmp.path().join("me");
        let own = OwnFolders {
            home: Some(home.clone()),
            state: Some(home.join(".local/state/ferry")),
            trash: Some(home.join(".local/share/Trash")),
        };
        for folder in [&own.state, &own.trash] {
            std::fs::create_dir_all(folder.as_ref().unwrap()).unwrap();
        }
        std::fs::create_dir_all(home.join("docs")).unwrap();
        std::os::unix::fs::symlink(&home, tmp.path().join("link")).unwrap();
        let paths = [
            home.clone(),
            home.join(".local"),
            home.join(".local/state/ferry"),
            home.join(".local/share"),
            home.join(".local/share/Trash"),
            home.join("docs"),
            tmp.path().join("link"),
            tmp.path().to_path_buf(),
            // A volume's trash: `/dev/shm` is a mount's top.
            PathBuf::from(format!(
                "/dev/shm/.Trash-{}",
                rustix::process::getuid().as_raw()
            )),
        ];
        // Made for the test only if it was not there.
        let made = std::fs::create_dir(&paths[8]).is_ok();
        let found = move_cautions(&paths, &own);
        if made {
            std::fs::remove_dir(&paths[8]).unwrap();
        }
        let cautions: Vec<_> = found.iter().map(|(_, c)| *c).collect();
        assert_eq!(
            found.iter().map(|(p, _)| p).collect::<Vec<_>>(),
            [0, 1, 2, 3, 4, 7, 8].map(|k| &paths[k])
        );
        assert_eq!(
            cautions,
            [
                Caution::FerryState,
                Caution::FerryState,
                Caution::FerryState,
                Caution::Trash,
                Caution::Trash,
                Caution::FerryState,
                Caution::Trash,
            ]
        );
        assert!(!Caution::FerryState.can_be_forced() && Caution::Trash.can_be_forced());

        // With the state folder elsewhere, the home folder is asked about, as for a delete.
        let own = OwnFolders { state: None, ..own };
        let found = move_cautions(&paths[..2], &own);
        assert_eq!(found[0].1, Caution::HomeFolder);
        assert_eq!(found[1].1, Caution::Trash);
    }

    /// A home trash that is a link (which the trash follows): the link and the folders
    /// holding it are asked about as the trash folder is (the link moved without a word).
    #[test]
    fn moving_a_home_trash_that_is_a_link_is_a_caution() {
        let tmp = tempfile::tempdir().unwrap();
        let (share, kept) = (tmp.path().join("me/share"), tmp.path().join("kept"));
        std::fs::create_dir_all(&share).unwrap();
        std::fs::create_dir_all(&kept).unwrap();
        std::os::unix::fs::symlink(&kept, share.join("Trash")).unwrap();
        let own = OwnFolders {
            home: None,
            state: None,
            trash: Some(share.join("Trash")),
        };
        let paths = [share.join("Trash"), share.clone(), kept];
        let found = move_cautions(&paths, &own);
        let cautions: Vec<_> = found.iter().map(|(_, c)| *c).collect();
        assert_eq!(cautions, [Caution::Trash; 3], "{found:?}");
    }
}
