//! The data behind the window's Places sidebar, as Dolphin and Nautilus show it: home and the
//! XDG user folders, the GTK bookmarks, the mounted file systems with their free space, and
//! whether the trash is empty. Everything here blocks (it reads files and asks file systems
//! for their size): the window calls it on a worker thread, never on the UI thread.
//!
//! [`Places::load`] gathers it all in sidebar order; [`Places::best_for`] names the place to
//! highlight for the folder a pane shows; [`add_bookmark`], [`remove_bookmark`] and
//! [`rename_bookmark`] edit the bookmarks file that GTK applications share.
//!
//! What is shown, and why:
//! - **Standard places**: Home, then Desktop, Documents, Downloads, Music, Pictures and
//!   Videos from `$XDG_CONFIG_HOME/user-dirs.dirs`, each only if it exists and is not home.
//!   Desktop is kept, as Dolphin keeps it (Nautilus hides it: GNOME has no desktop); Public
//!   and Templates are left out, as both leave them out. Without a `user-dirs.dirs` the
//!   conventional `~/Documents`, ... are used, as Qt does.
//! - **Bookmarks** in the file's order; a bookmark of a standard place is not listed twice
//!   (GTK's sidebar does the same, and `xdg-user-dirs-gtk-update` writes those bookmarks).
//!   A bookmarked folder that is gone stays listed, marked [`Status::Missing`].
//! - **Volumes**: `/` first (whatever its type: in a container it is an overlay), then the
//!   mounts in mount order, leaving out kernel and memory file systems (`proc`, `sysfs`,
//!   `cgroup*`, `devpts`, `tmpfs` so `/run`, `/dev/shm` and `/tmp` too, ...), read-only
//!   images (snaps' squashfs, container overlays), mounts under system folders (`/boot`,
//!   `/dev`, `/proc`, `/run` but `/run/media`, `/sys`, `/usr`, `/var`, ...) or hidden ones
//!   (`~/.cache/doc`), and a second mount of one device (bind mounts, btrfs subvolumes such
//!   as `/home` on the root's file system).
//! - **Trash**: full when the home trash or a listed volume's trash has an entry in `files/`.
//!
//! A file system that hangs (a dead NFS server, a failing USB stick) must not hang the list:
//! everything that touches a mount (its `statvfs`, its trash folder, the existence of the
//! bookmarks on it) runs on one helper thread per file system, all at once, and what has
//! not answered after [`PlacesEnv::probe_timeout`] is reported as not responding
//! ([`Volume::responding`], [`Status::NotResponding`]). The stuck thread is left to finish on
//! its own, and no other is started on that file system until it has. Home itself (and so
//! the configuration files, and the standard places) is read directly: nothing works when it
//! hangs.

mod bookmarks;
mod user_dirs;
mod volumes;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::fs::{Mount, MountTable, is_removable};
use crate::jobs::{TrashRoots, Volumes};

pub use bookmarks::{Bookmark, Bookmarks, Target};
pub(crate) use volumes::probe_all;
pub use volumes::{Space, Volume};

/// How long [`Places::load`] waits for file systems to answer, by default.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(1);

/// Where the places come from. [`PlacesEnv::from_env`] is the user's; tests point every
/// folder into a temporary one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacesEnv {
    /// The home folder (`$HOME`).
    pub home: PathBuf,
    /// `$XDG_CONFIG_HOME` (`~/.config`): `user-dirs.dirs` and `gtk-3.0/bookmarks` are there.
    pub config_home: PathBuf,
    /// The trash folders whose emptiness is reported.
    pub trash: TrashRoots,
    /// How long to wait for file systems to answer.
    pub probe_timeout: Duration,
}

impl PlacesEnv {
    /// The user's: `HOME`, `XDG_CONFIG_HOME` and the trash the engine uses. Fails only when
    /// the home folder is unknown (no `HOME` and no entry in the user database).
    pub fn from_env() -> Result<PlacesEnv> {
        let dirs = directories::BaseDirs::new().ok_or_else(|| {
            Error::io(
                "find the home folder",
                "~",
                std::io::Error::from(std::io::ErrorKind::NotFound),
            )
        })?;
        Ok(PlacesEnv {
            home: dirs.home_dir().to_path_buf(),
            config_home: dirs.config_dir().to_path_buf(),
            trash: TrashRoots::from_env()?,
            probe_timeout: PROBE_TIMEOUT,
        })
    }

    /// The GTK bookmarks file, `$XDG_CONFIG_HOME/gtk-3.0/bookmarks` (GTK 4 uses it too).
    pub fn bookmarks_file(&self) -> PathBuf {
        self.config_home.join("gtk-3.0").join("bookmarks")
    }
}

/// Which standard folder a place is (the window names it and picks its icon).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StandardKind {
    /// The home folder.
    Home,
    /// `XDG_DESKTOP_DIR`.
    Desktop,
    /// `XDG_DOCUMENTS_DIR`.
    Documents,
    /// `XDG_DOWNLOAD_DIR`.
    Downloads,
    /// `XDG_MUSIC_DIR`.
    Music,
    /// `XDG_PICTURES_DIR`.
    Pictures,
    /// `XDG_VIDEOS_DIR`.
    Videos,
}

/// Home or one of the XDG user folders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StandardPlace {
    /// Which one.
    pub kind: StandardKind,
    /// Its folder.
    pub path: PathBuf,
}

/// Whether a bookmark's folder is there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The folder exists.
    Present,
    /// The folder does not exist (any more): listed, as Nautilus lists it, marked.
    Missing,
    /// Its file system did not answer in time.
    NotResponding,
    /// Not a local folder ([`Target::Remote`]): not checked.
    Remote,
}

/// A bookmark as the sidebar lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookmarkPlace {
    /// The bookmark.
    pub bookmark: Bookmark,
    /// Whether its folder is there.
    pub status: Status,
}

/// One place of a [`Places`], by section and position in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PlaceId {
    /// `Places::standard[i]`.
    Standard(usize),
    /// `Places::bookmarks[i]`.
    Bookmark(usize),
    /// `Places::volumes[i]`.
    Volume(usize),
}

/// Everything the sidebar shows, section by section, each in sidebar order.
#[derive(Debug, Clone)]
pub struct Places {
    /// Home, then the XDG user folders that exist.
    pub standard: Vec<StandardPlace>,
    /// The GTK bookmarks, less those of standard places.
    pub bookmarks: Vec<BookmarkPlace>,
    /// The mounted file systems worth showing, `/` first.
    pub volumes: Vec<Volume>,
    /// True when the home trash or a listed volume's trash holds something.
    pub trash_full: bool,
    /// Files that could not be read (`user-dirs.dirs`, the bookmarks file): the rest is
    /// listed without them.
    pub errors: Vec<Arc<Error>>,
}

/// The work of one helper thread: one file system.
struct Probe {
    mount_point: PathBuf,
    /// A listed volume: its space is wanted.
    volume: bool,
    /// Its trash folder is looked into.
    trash: bool,
    /// Bookmarked paths on it, to check.
    paths: Vec<PathBuf>,
    /// Tops of other file systems whose trash folders are looked into too: those not listed
    /// (tmpfs such as `/dev/shm`), whose trash the Trash view shows all the same.
    also_trash: Vec<PathBuf>,
}

struct Answer {
    space: Option<Space>,
    trash_full: bool,
    present: Vec<bool>,
}

impl Probe {
    fn run(self, uid: u32) -> Answer {
        Answer {
            space: self
                .volume
                .then(|| volumes::space(&self.mount_point))
                .flatten(),
            trash_full: (self.trash && volumes::volume_trash_full(&self.mount_point, uid))
                || (self.also_trash.iter()).any(|top| volumes::volume_trash_full(top, uid)),
            present: self.paths.iter().map(|p| p.exists()).collect(),
        }
    }
}

impl Places {
    /// The user's places, with the live mount table.
    pub fn load() -> Result<Places> {
        Ok(Places::load_with(
            &PlacesEnv::from_env()?,
            &MountTable::read(),
        ))
    }

    /// The places of `env`, with volumes from `mounts`. Waits at most about
    /// `env.probe_timeout` for file systems.
    pub fn load_with(env: &PlacesEnv, mounts: &MountTable) -> Places {
        let (standard, error) = user_dirs::standard_places(env);
        let mut errors: Vec<Arc<Error>> = error.into_iter().map(Arc::new).collect();
        let marks: Vec<Bookmark> = match Bookmarks::load(env) {
            Ok(marks) => marks
                .iter()
                .filter(|b| {
                    let path = b.target.path();
                    path.is_none_or(|p| standard.iter().all(|s| s.path != p))
                })
                .cloned()
                .collect(),
            Err(e) => {
                errors.push(Arc::new(e));
                Vec::new()
            }
        };

        let shown = volumes::shown_mounts(mounts);
        let trash_wanted = |top: &Path| match &env.trash.volumes {
            Volumes::All => true,
            Volumes::Only(tops) => tops.iter().any(|t| t == top),
        };
        let mut probes: Vec<Probe> = shown
            .iter()
            .map(|m| Probe {
                mount_point: m.mount_point.clone(),
                volume: true,
                trash: trash_wanted(&m.mount_point),
                paths: Vec::new(),
                also_trash: Vec::new(),
            })
            .collect();
        // The file systems not listed, whose trash the Trash view shows too: looked into by
        // one probe of their own ("Trash (empty)" while /dev/shm's held 200,000 items), and
        // each that may hang (FUSE, network) by one of its own, so that one that stopped
        // answering leaves only its own trash unknown (the sidebar said "Trash (empty)"
        // while the Trash view showed a FUSE disk's items). Never an automount point
        // (looking would mount it).
        let (others, hanging): (Vec<_>, Vec<_>) = (mounts.mounts().iter())
            .filter(|m| m.fs_type != "autofs")
            .filter(|m| {
                let top = &m.mount_point;
                shown.iter().all(|s| s.mount_point != *top) && trash_wanted(top)
            })
            .partition(|m| !m.may_hang());
        let tops = |mounts: Vec<&Mount>| {
            let mut tops: Vec<PathBuf> = mounts.iter().map(|m| m.mount_point.clone()).collect();
            tops.sort();
            tops.dedup();
            tops
        };
        probes.extend(tops(hanging).into_iter().map(|top| Probe {
            mount_point: top.clone(),
            volume: false,
            trash: false,
            paths: Vec::new(),
            also_trash: vec![top],
        }));
        let others = tops(others);
        if !others.is_empty() {
            probes.push(Probe {
                mount_point: PathBuf::from("(trash folders of the file systems not listed)"),
                volume: false,
                trash: false,
                paths: Vec::new(),
                also_trash: others,
            });
        }
        // Each local bookmark is checked by the probe of the file system it is on.
        let located: Vec<Option<(usize, usize)>> = marks
            .iter()
            .map(|b| {
                let path = b.target.path()?;
                let top = containing_mount(mounts, path);
                let probe = match probes.iter().position(|p| p.mount_point == top) {
                    Some(i) => i,
                    None => {
                        probes.push(Probe {
                            mount_point: top.to_path_buf(),
                            volume: false,
                            trash: false,
                            paths: Vec::new(),
                            also_trash: Vec::new(),
                        });
                        probes.len() - 1
                    }
                };
                probes[probe].paths.push(path.to_path_buf());
                Some((probe, probes[probe].paths.len() - 1))
            })
            .collect();
        let uid = rustix::process::getuid().as_raw();
        let jobs = probes
            .into_iter()
            .map(|probe| (probe.mount_point.clone(), move || probe.run(uid)))
            .collect();
        let answers = volumes::probe_all(jobs, env.probe_timeout);

        let labels = volumes::labels();
        let volumes: Vec<Volume> = shown
            .iter()
            .zip(&answers)
            .map(|(m, answer)| {
                let network = volumes::is_network(&m.fs_type);
                Volume {
                    mount_point: m.mount_point.clone(),
                    fs_type: m.fs_type.clone(),
                    dev: m.dev,
                    label: labels.get(&m.dev).cloned(),
                    read_only: m.read_only,
                    removable: !network && is_removable(m.dev),
                    network,
                    space: answer.as_ref().and_then(|a| a.space),
                    responding: answer.is_some(),
                }
            })
            .collect();
        let bookmarks = marks
            .into_iter()
            .zip(located)
            .map(|(bookmark, at)| {
                let status = match at {
                    None => Status::Remote,
                    Some((probe, i)) => match &answers[probe] {
                        Some(answer) if answer.present[i] => Status::Present,
                        Some(_) => Status::Missing,
                        None => Status::NotResponding,
                    },
                };
                BookmarkPlace { bookmark, status }
            })
            .collect();
        let volume_trash = (answers.iter()).any(|a| a.as_ref().is_some_and(|a| a.trash_full));
        Places {
            standard,
            bookmarks,
            volumes,
            trash_full: volume_trash || volumes::has_entry(&env.trash.home.join("files")),
            errors,
        }
    }

    /// The place to highlight for the folder `path`: the one whose folder contains it most
    /// closely (a folder inside Documents is Documents; `/media/usb/x` is that volume), by
    /// path components, symlinks not resolved; on a tie, the first in sidebar order.
    pub fn best_for(&self, path: &Path) -> Option<PlaceId> {
        let standard = self
            .standard
            .iter()
            .enumerate()
            .map(|(i, p)| (PlaceId::Standard(i), p.path.as_path()));
        let bookmarks = self
            .bookmarks
            .iter()
            .enumerate()
            .filter_map(|(i, b)| Some((PlaceId::Bookmark(i), b.bookmark.target.path()?)));
        let volumes = self
            .volumes
            .iter()
            .enumerate()
            .map(|(i, v)| (PlaceId::Volume(i), v.mount_point.as_path()));
        let mut best: Option<(PlaceId, usize)> = None;
        for (id, folder) in standard.chain(bookmarks).chain(volumes) {
            let depth = folder.components().count();
            if path.starts_with(folder) && best.is_none_or(|(_, d)| depth > d) {
                best = Some((id, depth));
            }
        }
        best.map(|(id, _)| id)
    }
}

/// The mount point of the mount holding `path` (by path, not following links).
fn containing_mount<'a>(mounts: &'a MountTable, path: &Path) -> &'a Path {
    mounts
        .mounts()
        .iter()
        .map(|m| m.mount_point.as_path())
        .filter(|top| path.starts_with(top))
        .max_by_key(|top| top.components().count())
        .unwrap_or(Path::new("/"))
}

/// Bookmarks the folder `path` (absolute) in the user's bookmarks file, at the end. False
/// when it is bookmarked already.
pub fn add_bookmark(env: &PlacesEnv, path: &Path, label: Option<&str>) -> Result<bool> {
    let mut bookmarks = Bookmarks::load(env)?;
    let added = bookmarks.add(path, label)?;
    if added {
        bookmarks.save()?;
    }
    Ok(added)
}

/// Removes `bookmark` (its target under its label). False when there was none.
pub fn remove_bookmark(env: &PlacesEnv, bookmark: &Bookmark) -> Result<bool> {
    let mut bookmarks = Bookmarks::load(env)?;
    let removed = bookmarks.remove(bookmark);
    if removed {
        bookmarks.save()?;
    }
    Ok(removed)
}

/// Gives the bookmark to `target` a new label (`None`: none, the folder's name is shown).
/// False when there is no such bookmark.
pub fn rename_bookmark(env: &PlacesEnv, target: &Target, label: Option<&str>) -> Result<bool> {
    let mut bookmarks = Bookmarks::load(env)?;
    let renamed = bookmarks.relabel(target, label);
    if renamed {
        bookmarks.save()?;
    }
    Ok(renamed)
}

#[cfg(test)]
impl PlacesEnv {
    /// Everything inside `root`: home is `root/home`, its trash checks no volume.
    pub(crate) fn in_root(root: &Path) -> PlacesEnv {
        let home = root.join("home");
        PlacesEnv {
            config_home: home.join(".config"),
            trash: TrashRoots::home_only(home.join(".local/share/Trash")),
            home,
            probe_timeout: Duration::from_secs(30),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn volume(mount_point: &str) -> Volume {
        Volume {
            mount_point: mount_point.into(),
            fs_type: "ext4".into(),
            dev: 0,
            label: None,
            read_only: false,
            removable: false,
            network: false,
            space: None,
            responding: true,
        }
    }

    #[test]
    fn the_closest_place_is_highlighted() {
        let places = Places {
            standard: vec![
                StandardPlace {
                    kind: StandardKind::Home,
                    path: "/home/u".into(),
                },
                StandardPlace {
                    kind: StandardKind::Documents,
                    path: "/home/u/Documents".into(),
                },
            ],
            bookmarks: vec![
                BookmarkPlace {
                    bookmark: Bookmark {
                        target: Target::Local("/home/u/Documents/work/".into()),
                        label: None,
                    },
                    status: Status::Present,
                },
                BookmarkPlace {
                    bookmark: Bookmark {
                        target: Target::Remote("sftp://host/".into()),
                        label: None,
                    },
                    status: Status::Remote,
                },
                BookmarkPlace {
                    bookmark: Bookmark {
                        target: Target::Local("/media/usb".into()),
                        label: None,
                    },
                    status: Status::Present,
                },
            ],
            volumes: vec![volume("/"), volume("/media/usb"), volume("/home")],
            trash_full: false,
            errors: Vec::new(),
        };
        let best = |p: &str| places.best_for(Path::new(p));
        assert_eq!(best("/home/u/Documents/a/b"), Some(PlaceId::Standard(1)));
        assert_eq!(best("/home/u/Documents"), Some(PlaceId::Standard(1)));
        assert_eq!(best("/home/u/Documentsx"), Some(PlaceId::Standard(0)));
        assert_eq!(best("/home/u/Documents/work/x"), Some(PlaceId::Bookmark(0)));
        assert_eq!(best("/home/u"), Some(PlaceId::Standard(0)));
        assert_eq!(best("/home/other"), Some(PlaceId::Volume(2)));
        assert_eq!(
            best("/media/usb/x"),
            Some(PlaceId::Bookmark(2)),
            "a tie: sidebar order"
        );
        assert_eq!(best("/media/usb2"), Some(PlaceId::Volume(0)));
        assert_eq!(best("/"), Some(PlaceId::Volume(0)));
        assert_eq!(best("relative"), None);
    }

    #[test]
    fn a_load_gathers_every_section() {
        let tmp = tempfile::tempdir().unwrap();
        let env = PlacesEnv::in_root(tmp.path());
        for dir in ["Documents", "Music", "Projects"] {
            std::fs::create_dir_all(env.home.join(dir)).unwrap();
        }
        let projects = env.home.join("Projects");
        assert!(add_bookmark(&env, &projects, None).unwrap());
        assert!(add_bookmark(&env, &env.home.join("Documents"), Some("Docs")).unwrap());
        assert!(add_bookmark(&env, &env.home.join("Gone"), None).unwrap());
        std::fs::write(
            env.bookmarks_file(),
            [
                std::fs::read(env.bookmarks_file()).unwrap(),
                b"smb://nas/share NAS\n".to_vec(),
            ]
            .concat(),
        )
        .unwrap();
        let mounts = MountTable::parse(
            b"1 0 254:0 / / rw - ext4 /dev/vda rw\n\
              2 1 0:5 / /proc rw - proc proc rw\n\
              3 1 8:17 / /media/ferry-test-no-such-stick ro - vfat /dev/sdb1 ro\n",
        );

        let places = Places::load_with(&env, &mounts);
        assert!(places.errors.is_empty(), "{:?}", places.errors);
        let kinds: Vec<_> = places.standard.iter().map(|p| p.kind).collect();
        assert_eq!(
            kinds,
            [
                StandardKind::Home,
                StandardKind::Documents,
                StandardKind::Music
            ]
        );
        let marks: Vec<_> = places
            .bookmarks
            .iter()
            .map(|b| (b.bookmark.name().into_owned(), b.status))
            .collect();
        assert_eq!(
            marks,
            [
                ("Projects".to_owned(), Status::Present),
                ("Gone".to_owned(), Status::Missing),
                ("NAS".to_owned(), Status::Remote),
            ],
            "the bookmark of Documents is that standard place"
        );
        let volumes: Vec<_> = places
            .volumes
            .iter()
            .map(|v| (v.mount_point.to_str().unwrap(), v.read_only, v.responding))
            .collect();
        assert_eq!(
            volumes,
            [
                ("/", false, true),
                ("/media/ferry-test-no-such-stick", true, true)
            ]
        );
        assert!(places.volumes[0].space.is_some() && places.volumes[1].space.is_none());
        assert_eq!(
            places.best_for(&projects.join("src")),
            Some(PlaceId::Bookmark(0))
        );

        assert!(!places.trash_full);
        std::fs::create_dir_all(env.trash.home.join("files/old")).unwrap();
        assert!(Places::load_with(&env, &mounts).trash_full);
    }

    /// Loads the places with one disk not listed, at `top`, of type `fs` (`type source`), and
    /// checks that the Trash is empty, then full once that disk's trash holds an item.
    fn a_trash_on_a_disk_not_listed_counts(top: &Path, fs: &str) {
        let tmp = tempfile::tempdir().unwrap();
        let mut env = PlacesEnv::in_root(tmp.path());
        env.trash.volumes = Volumes::Only(vec![top.to_path_buf()]);
        let table = format!(
            "1 0 254:0 / / rw - ext4 /dev/vda rw\n2 1 0:30 / {} rw - {fs} rw\n",
            top.display()
        );
        let mounts = MountTable::parse(table.as_bytes());
        let places = Places::load_with(&env, &mounts);
        assert_eq!(places.volumes.len(), 1, "the {fs} is not listed");
        assert!(!places.trash_full);
        let uid = rustix::process::getuid().as_raw();
        let files = top.join(format!(".Trash-{uid}/files"));
        std::fs::create_dir_all(files.join("a.txt")).unwrap();
        assert!(Places::load_with(&env, &mounts).trash_full);
    }

    /// Items in the trash of a file system not listed (a tmpfs such as `/dev/shm`) make the
    /// Trash full: the Trash view shows them, and the sidebar said "Trash (empty)".
    #[test]
    fn a_trash_on_a_file_system_not_listed_counts() {
        let shm = tempfile::tempdir_in("/dev/shm").unwrap();
        a_trash_on_a_disk_not_listed_counts(shm.path(), "tmpfs tmpfs");
    }

    /// Items in the trash of a FUSE disk not listed make the Trash full: the Trash view shows
    /// them, and the sidebar, which left every disk that may hang out, said "Trash (empty)".
    #[test]
    fn a_trash_on_a_fuse_disk_not_listed_counts() {
        let fuse = tempfile::tempdir().unwrap();
        a_trash_on_a_disk_not_listed_counts(fuse.path(), "fuse.sshfs host:");
    }

    #[test]
    fn bookmarks_are_edited_in_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let env = PlacesEnv::in_root(tmp.path());
        let dir = Path::new("/srv/data");
        assert!(add_bookmark(&env, dir, Some("Data")).unwrap());
        assert!(!add_bookmark(&env, dir, None).unwrap());
        let target = Target::Local(dir.into());
        assert!(rename_bookmark(&env, &target, Some("Shared")).unwrap());
        assert_eq!(
            std::fs::read(env.bookmarks_file()).unwrap(),
            b"file:///srv/data Shared\n"
        );
        let shared = Bookmark {
            target: target.clone(),
            label: Some("Shared".to_owned()),
        };
        assert!(remove_bookmark(&env, &shared).unwrap());
        assert!(!remove_bookmark(&env, &shared).unwrap());
        assert!(!rename_bookmark(&env, &target, None).unwrap());
        assert_eq!(std::fs::read(env.bookmarks_file()).unwrap(), b"");
    }

    #[test]
    fn the_live_places_list_the_root_and_no_pseudo_file_system() {
        let tmp = tempfile::tempdir().unwrap();
        let env = PlacesEnv::in_root(tmp.path());
        let places = Places::load_with(&env, &MountTable::read());
        assert!(places.volumes[0].is_root() && places.volumes[0].space.is_some());
        assert!(places.volumes.iter().all(|v| v.fs_type != "proc"
            && v.fs_type != "tmpfs"
            && !v.mount_point.starts_with("/sys")));
    }
}
