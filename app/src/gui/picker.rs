//! Picking a folder (Copy to…, Move to…, Create Link…, Restore to…), with or without an XDG
//! desktop portal.
//!
//! The workspace builds `rfd` 0.17 with its default features: the `xdg-portal` backend (it
//! loads `libdbus-1` at run time and calls `org.freedesktop.portal.FileChooser`), plus Wayland
//! support; no GTK. Where no portal answers (no session bus, no portal service, or a portal
//! without a file chooser backend, as on a bare X server), rfd runs `zenity` instead; and
//! where zenity is missing too, its `pick_folder` logs an error and returns `None` at once,
//! which looks exactly like the user cancelling. So before opening anything, [`pick`] asks a
//! worker thread whether either can work ([`available`]: a session bus socket, or `zenity` on
//! `PATH`); when neither can, or when a portal-only attempt comes back empty sooner than a
//! person can cancel a dialog ([`TOO_FAST`]), the answer is [`Picked::Unavailable`] and the
//! window asks with its own folder field instead (a path typed, checked on a worker thread:
//! the Trash view's, or the folder prompt over the window). Picking a folder thus works
//! everywhere: the system's dialog where there is one, Ferry's own field where there is none.
//!
//! The dialog is made the window's child (`set_parent` through `window::run`), so a portal
//! puts it over Ferry's window.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ferry_core::Error;
use iced::{Task, window};

use crate::gui::bridge;

/// A portal-only pick that ends sooner than this without a folder did not show a dialog.
pub const TOO_FAST: Duration = Duration::from_millis(400);

/// How a folder can be picked here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Available {
    /// A D-Bus session bus to reach a portal on.
    pub session_bus: bool,
    /// `zenity`, rfd's fallback, is on `PATH`.
    pub zenity: bool,
}

impl Available {
    /// Whether rfd can show a dialog at all.
    pub fn any(self) -> bool {
        self.session_bus || self.zenity
    }
}

/// What came of a pick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Picked {
    /// This folder was chosen.
    Folder(PathBuf),
    /// The dialog was closed without a choice.
    Cancelled,
    /// No dialog could be shown: ask in the window instead.
    Unavailable,
}

/// Looks for a session bus and for zenity (reads the environment and a few folders: run it on
/// a worker thread).
pub fn available() -> Available {
    let runtime_bus = std::env::var_os("XDG_RUNTIME_DIR")
        .map(|dir| Path::new(&dir).join("bus"))
        .is_some_and(|socket| socket.exists());
    let session_bus =
        std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|a| !a.is_empty()) || runtime_bus;
    let zenity = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join("zenity").is_file()));
    Available {
        session_bus,
        zenity,
    }
}

/// Opens the system's folder dialog, titled `title`, starting in `start`; see the module's
/// doc for where there is none.
pub fn pick(title: String, start: Option<PathBuf>) -> Task<Picked> {
    bridge::blocking(available).then(move |how| {
        if !how.any() {
            return Task::done(Picked::Unavailable);
        }
        let (title, start) = (title.clone(), start.clone());
        window::oldest().then(move |id| {
            let (title, start) = (title.clone(), start.clone());
            let dialog = move |parent: Option<&dyn window::Window>| {
                let mut dialog = rfd::AsyncFileDialog::new().set_title(title);
                if let Some(start) = start {
                    // zenity takes the starting folder only as a file name ending in '/'.
                    dialog = dialog
                        .set_file_name(format!("{}/", start.display()))
                        .set_directory(start);
                }
                if let Some(parent) = parent {
                    dialog = dialog.set_parent(parent);
                }
                dialog.pick_folder()
            };
            let opened = match id {
                Some(id) => window::run(id, move |w| dialog(Some(w))),
                None => Task::done(dialog(None)),
            };
            opened.then(move |picking| {
                Task::future(async move {
                    let started = Instant::now();
                    let folder = picking.await.map(|handle| handle.path().to_path_buf());
                    outcome(folder, started.elapsed(), how)
                })
            })
        })
    })
}

/// What a pick that returned `folder` after `took` means.
pub fn outcome(folder: Option<PathBuf>, took: Duration, how: Available) -> Picked {
    match folder {
        Some(folder) => Picked::Folder(folder),
        // Without zenity, an empty answer at once is a portal that did not answer.
        None if !how.zenity && took < TOO_FAST => Picked::Unavailable,
        None => Picked::Cancelled,
    }
}

/// A typed folder (`~` is the home folder), made absolute.
pub fn typed_folder(typed: &str, home: Option<&Path>) -> PathBuf {
    let typed = typed.trim();
    match (typed.strip_prefix('~'), home) {
        (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
            home.join(rest.trim_start_matches('/'))
        }
        _ => PathBuf::from(typed),
    }
}

/// Checks that `folder` is a folder one can put items into (blocking).
pub fn check_folder(folder: &Path) -> Result<(), Arc<Error>> {
    match std::fs::metadata(folder) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(Arc::new(Error::NotADirectory {
            path: folder.to_path_buf(),
        })),
        Err(e) => Err(Arc::new(Error::io(
            crate::gui::words::DESTINATION,
            folder,
            e,
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instant_empty_answer_without_zenity_is_no_dialog() {
        let portal_only = Available {
            session_bus: true,
            zenity: false,
        };
        let fast = Duration::from_millis(20);
        let slow = Duration::from_secs(3);
        assert_eq!(outcome(None, fast, portal_only), Picked::Unavailable);
        assert_eq!(outcome(None, slow, portal_only), Picked::Cancelled);
        let with_zenity = Available {
            session_bus: false,
            zenity: true,
        };
        assert_eq!(outcome(None, fast, with_zenity), Picked::Cancelled);
        assert_eq!(
            outcome(Some("/x".into()), fast, portal_only),
            Picked::Folder("/x".into())
        );
        assert!(
            !Available {
                session_bus: false,
                zenity: false
            }
            .any()
        );
    }

    #[test]
    fn typed_folders_expand_the_home_folder() {
        let home = Path::new("/home/ann");
        assert_eq!(typed_folder("~", Some(home)), home);
        assert_eq!(
            typed_folder(" ~/Documents ", Some(home)),
            home.join("Documents")
        );
        assert_eq!(typed_folder("~bob/x", Some(home)), Path::new("~bob/x"));
        assert_eq!(typed_folder("/srv", None), Path::new("/srv"));
    }

    #[test]
    fn only_a_folder_passes_the_check() {
        let dir = tempfile::tempdir().unwrap();
        assert!(check_folder(dir.path()).is_ok());
        let file = dir.path().join("f");
        std::fs::write(&file, "x").unwrap();
        let error = check_folder(&file).unwrap_err();
        assert!(matches!(*error, Error::NotADirectory { .. }));
        assert!(
            check_folder(&dir.path().join("gone"))
                .unwrap_err()
                .is_not_found()
        );
    }
}
