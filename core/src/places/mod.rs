//! The data behind the window's Places sidebar, as Dolphin and Nautilus show it. Everything
//! here blocks (it reads and writes files): the window calls it on a worker thread, never on
//! the UI thread.
//!
//! [`add_bookmark`], [`remove_bookmark`] and [`rename_bookmark`] edit the bookmarks file that
//! GTK applications share.

mod bookmarks;

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

pub use bookmarks::{Bookmark, Bookmarks, Target};

/// Where the places come from. [`PlacesEnv::from_env`] is the user's; tests point every
/// folder into a temporary one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacesEnv {
    /// The home folder (`$HOME`).
    pub home: PathBuf,
    /// `$XDG_CONFIG_HOME` (`~/.config`): `user-dirs.dirs` and `gtk-3.0/bookmarks` are there.
    pub config_home: PathBuf,
}

impl PlacesEnv {
    /// The user's: `HOME` and `XDG_CONFIG_HOME`. Fails only when the home folder is unknown
    /// (no `HOME` and no entry in the user database).
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
        })
    }

    /// The GTK bookmarks file, `$XDG_CONFIG_HOME/gtk-3.0/bookmarks` (GTK 4 uses it too).
    pub fn bookmarks_file(&self) -> PathBuf {
        self.config_home.join("gtk-3.0").join("bookmarks")
    }
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

/// Removes the bookmarks to `target`. False when there was none.
pub fn remove_bookmark(env: &PlacesEnv, target: &Target) -> Result<bool> {
    let mut bookmarks = Bookmarks::load(env)?;
    let removed = bookmarks.remove(target);
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
    /// Everything inside `root`: home is `root/home`.
    pub(crate) fn in_root(root: &Path) -> PlacesEnv {
        let home = root.join("home");
        PlacesEnv {
            config_home: home.join(".config"),
            home,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(remove_bookmark(&env, &target).unwrap());
        assert!(!remove_bookmark(&env, &target).unwrap());
        assert!(!rename_bookmark(&env, &target, None).unwrap());
        assert_eq!(std::fs::read(env.bookmarks_file()).unwrap(), b"");
    }
}
