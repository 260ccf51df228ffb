//! What Ferry remembers between runs, in `$XDG_CONFIG_HOME/ferry/`: the preferences
//! (`settings.json`: window size, sidebar width, view mode, sort, hidden files, icon size,
//! column widths, theme, per-folder views) and the session (`session.json`: the tabs, their
//! split panes and folders, which one was active).
//!
//! Both are read once, before the window opens (the window's size must be known then), and
//! written atomically (a temporary file beside the real one, flushed, then renamed over it)
//! on a thread of their own through the bridge, never in `update`. A file that cannot be read
//! or parsed is reported once, kept aside as `<name>.corrupt`, and replaced by defaults:
//! never a crash.

use std::collections::BTreeMap;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use ferry_core::Error;
use ferry_core::sort::SortSpec;

use super::screen::trash::Sort as TrashSort;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// Folders with their own view remembered; the least recently changed go first.
const MAX_FOLDER_VIEWS: usize = 1000;

/// How a pane shows its folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ViewMode {
    /// One row per entry with size, date and type columns.
    #[default]
    Details,
    /// A grid of icons with names under them.
    Icons,
}

/// Light, dark, or whatever the system says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThemeChoice {
    /// Follow the system's preference.
    #[default]
    System,
    /// Always light.
    Light,
    /// Always dark.
    Dark,
}

/// Widths of the details view's fixed columns (the name column takes the rest).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Columns {
    /// The size column.
    pub size: f32,
    /// The modification date column.
    pub modified: f32,
    /// The type column.
    pub kind: f32,
}

impl Default for Columns {
    fn default() -> Self {
        Columns {
            size: 96.0,
            modified: 150.0,
            kind: 140.0,
        }
    }
}

/// What one folder shows differently from the default, because the user changed it there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct FolderView {
    /// The view mode chosen in that folder.
    pub mode: Option<ViewMode>,
    /// The sort chosen in that folder.
    pub sort: Option<SortSpec>,
    /// When it was last changed (a counter), to forget the oldest first.
    pub stamp: u64,
}

/// Ferry's preferences.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    /// The window's size when it last closed.
    pub window: (f32, f32),
    /// The places sidebar's width.
    pub sidebar_width: f32,
    /// Whether the places sidebar is shown.
    pub show_sidebar: bool,
    /// The view mode of folders without their own.
    pub view_mode: ViewMode,
    /// The sort of folders without their own.
    pub sort: SortSpec,
    /// Dot files shown.
    pub show_hidden: bool,
    /// The icon view's icon size, in logical pixels.
    pub icon_size: u16,
    /// The details view's icon size (its rows grow with it).
    pub details_icon: u16,
    /// The details view's column widths.
    pub columns: Columns,
    /// Light, dark or the system's choice.
    pub theme: ThemeChoice,
    /// Folders whose view the user changed there, by path.
    pub folders: BTreeMap<String, FolderView>,
    /// The Trash view's sort.
    pub trash_sort: TrashSort,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            window: (1100.0, 720.0),
            sidebar_width: 200.0,
            show_sidebar: true,
            view_mode: ViewMode::Details,
            sort: SortSpec::default(),
            show_hidden: false,
            icon_size: 64,
            details_icon: 22,
            columns: Columns::default(),
            theme: ThemeChoice::System,
            folders: BTreeMap::new(),
            trash_sort: TrashSort::default(),
        }
    }
}

impl Settings {
    /// The view mode and sort for `folder`: its own where the user changed them there, the
    /// defaults otherwise.
    pub fn view_for(&self, folder: &Path) -> (ViewMode, SortSpec) {
        let own = folder.to_str().and_then(|key| self.folders.get(key));
        (
            own.and_then(|f| f.mode).unwrap_or(self.view_mode),
            own.and_then(|f| f.sort).unwrap_or(self.sort),
        )
    }

    /// The user chose `mode` in `folder`: it is that folder's from now on, and the default of
    /// folders that have none of their own.
    pub fn remember_mode(&mut self, folder: &Path, mode: ViewMode) {
        self.view_mode = mode;
        self.remember(folder, |view| view.mode = Some(mode));
    }

    /// The user chose `sort` in `folder`, as [`remember_mode`](Self::remember_mode).
    pub fn remember_sort(&mut self, folder: &Path, sort: SortSpec) {
        self.sort = sort;
        self.remember(folder, |view| view.sort = Some(sort));
    }

    fn remember(&mut self, folder: &Path, change: impl FnOnce(&mut FolderView)) {
        // A name that is not UTF-8 cannot be a JSON key: such a folder follows the default.
        let Some(key) = folder.to_str() else {
            return;
        };
        let stamp = self.folders.values().map(|f| f.stamp).max().unwrap_or(0) + 1;
        let view = self.folders.entry(key.to_owned()).or_default();
        change(view);
        view.stamp = stamp;
        while self.folders.len() > MAX_FOLDER_VIEWS {
            let oldest = self
                .folders
                .iter()
                .min_by_key(|(_, f)| f.stamp)
                .map(|(k, _)| k.clone());
            match oldest {
                Some(key) => self.folders.remove(&key),
                None => break,
            };
        }
    }
}

/// One pane of a tab as the session keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaneSession {
    /// Its folder (exactly: its names need not be UTF-8).
    #[serde(with = "ferry_core::exact_path")]
    pub path: PathBuf,
}

/// One tab: one pane, or two side by side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TabSession {
    /// The panes, left first (one or two).
    pub panes: Vec<PaneSession>,
    /// Which pane had the keyboard.
    pub active: usize,
}

/// The tabs open when Ferry last quit.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Session {
    /// The tabs, in order.
    pub tabs: Vec<TabSession>,
    /// The tab shown.
    pub active: usize,
}

/// What [`Store::load`] found.
#[derive(Debug, Default)]
pub struct Loaded {
    /// The preferences (defaults where the file was missing or unreadable).
    pub settings: Settings,
    /// The last session, if there is one to restore.
    pub session: Option<Session>,
    /// Files that could not be read or parsed, each once.
    pub problems: Vec<Error>,
}

/// Where settings and session live.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    /// Saves run on threads of their own, and two could meet (a resize right after a sort):
    /// they take turns here, and one older than what was written last is dropped.
    turns: Arc<Turns>,
}

/// The order of saves ([`Store::ticket`]), and the newest written of each file.
#[derive(Debug, Default)]
struct Turns {
    issued: AtomicU64,
    /// The newest ticket written of settings and of the session.
    written: Mutex<[u64; 2]>,
}

impl Store {
    /// `$XDG_CONFIG_HOME/ferry` (usually `~/.config/ferry`); `None` without a home folder.
    pub fn from_env() -> Option<Store> {
        let config = directories::BaseDirs::new()?.config_dir().to_path_buf();
        Some(Store::at(config.join("ferry")))
    }

    /// A store in `dir` (tests).
    pub fn at(dir: PathBuf) -> Store {
        Store {
            dir,
            turns: Arc::default(),
        }
    }

    /// A save's place in line: taken when what it writes is read (on the UI thread), so
    /// that a later save's values are never overwritten by an earlier one's.
    pub fn ticket(&self) -> u64 {
        self.turns.issued.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Writes `settings` and `session` (those given), taken as of `ticket`, unless a later
    /// save wrote that file already. Blocking; one save at a time.
    pub fn save(
        &self,
        ticket: u64,
        settings: Option<&Settings>,
        session: Option<&Session>,
    ) -> Result<(), Error> {
        let mut written = self.turns.written.lock().unwrap_or_else(|e| e.into_inner());
        // Each file on its own: settings that fail to save do not keep the session back.
        let mut saved = Ok(());
        if let Some(settings) = settings.filter(|_| ticket > written[0]) {
            saved = self.save_settings(settings).map(|()| written[0] = ticket);
        }
        if let Some(session) = session.filter(|_| ticket > written[1]) {
            let session = self.save_session(session).map(|()| written[1] = ticket);
            saved = saved.and(session);
        }
        saved
    }

    fn settings_file(&self) -> PathBuf {
        self.dir.join("settings.json")
    }

    fn session_file(&self) -> PathBuf {
        self.dir.join("session.json")
    }

    /// Reads both files. Blocking: called before the window opens.
    pub fn load(&self) -> Loaded {
        let mut problems = Vec::new();
        let settings = read(&self.settings_file(), "read settings from", &mut problems);
        let session = read(&self.session_file(), "read the session from", &mut problems);
        let settings = settings.unwrap_or_default();
        Loaded {
            settings,
            session,
            problems,
        }
    }

    /// Writes the preferences atomically. Blocking.
    pub fn save_settings(&self, settings: &Settings) -> Result<(), Error> {
        write_atomically(&self.settings_file(), settings)
    }

    /// Writes the session atomically. Blocking.
    pub fn save_session(&self, session: &Session) -> Result<(), Error> {
        write_atomically(&self.session_file(), session)
    }
}

/// The value stored in `path` (`op`: reading it, as a message names it), or `None` when it
/// is missing; an unreadable or corrupt file is reported in `problems` and moved aside so the
/// next save does not destroy what it held, never over one kept aside before.
fn read<T: DeserializeOwned>(
    path: &Path,
    op: &'static str,
    problems: &mut Vec<Error>,
) -> Option<T> {
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return None,
        Err(e) => {
            problems.push(Error::io(op, path, e));
            return None;
        }
    };
    match serde_json::from_slice(&bytes) {
        Ok(value) => Some(value),
        Err(e) => {
            let why = match put_aside(path) {
                Some(aside) => format!("{e}; kept as {}", aside.display()),
                None => e.to_string(),
            };
            let why = io::Error::new(io::ErrorKind::InvalidData, why);
            problems.push(Error::io(op, path, why));
            None
        }
    }
}

/// Moves the corrupt file `path` to `<path>.corrupt`, or `<path>.corrupt.N` with the first
/// `N` free: a file kept aside before is not replaced. Where it went, if it could be moved.
fn put_aside(path: &Path) -> Option<PathBuf> {
    let first = path.with_extension("json.corrupt");
    for n in 0..100 {
        let aside = match n {
            0 => first.clone(),
            n => first.with_extension(format!("corrupt.{n}")),
        };
        // A hard link never replaces what has the name; then the old name goes.
        match fs::hard_link(path, &aside) {
            Ok(()) => return fs::remove_file(path).ok().map(|()| aside),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            // No hard links here: a rename, to a name looked at first.
            Err(_) if fs::symlink_metadata(&aside).is_err() => {
                return fs::rename(path, &aside).ok().map(|()| aside);
            }
            Err(_) => continue,
        }
    }
    None
}

fn write_atomically<T: Serialize>(path: &Path, value: &T) -> Result<(), Error> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| Error::io("create the settings folder", dir, e))?;
    let json = serde_json::to_vec_pretty(value)
        .map_err(|e| Error::io("write settings to", path, io::Error::other(e)))?;
    let temp = path.with_extension(format!("json.{}.tmp", std::process::id()));
    let written = fs::File::create(&temp).and_then(|mut file| {
        file.write_all(&json)?;
        file.sync_all()
    });
    if let Err(e) = written.and_then(|()| fs::rename(&temp, path)) {
        let _ = fs::remove_file(&temp);
        return Err(Error::io("write settings to", path, e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferry_core::sort::{Direction, SortKey};

    /// Saves that meet (each on a thread of its own) take turns: none fails on the other's
    /// temporary file, and the newest values stay, whichever thread ends last.
    #[test]
    fn saves_that_meet_take_turns_and_the_newest_stays() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path().join("ferry"));
        let saves: Vec<(u64, Settings)> = (0..16)
            .map(|i| {
                let settings = Settings {
                    icon_size: 32 + i,
                    ..Settings::default()
                };
                (store.ticket(), settings)
            })
            .collect();
        std::thread::scope(|scope| {
            for (ticket, settings) in saves.iter().rev() {
                let store = store.clone();
                scope.spawn(move || store.save(*ticket, Some(settings), None).unwrap());
            }
        });
        assert_eq!(store.load().settings.icon_size, 32 + 15);
    }

    #[test]
    fn a_session_in_a_folder_whose_name_is_not_utf8_is_saved_exactly() {
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path().join("ferry"));
        let odd = PathBuf::from(std::ffi::OsStr::from_bytes(b"/work/caf\xe9-odd/inside"));
        let session = Session {
            tabs: vec![TabSession {
                panes: vec![PaneSession { path: odd }, PaneSession { path: "/b".into() }],
                active: 0,
            }],
            active: 0,
        };
        store.save_session(&session).unwrap();
        let loaded = store.load();
        assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
        assert_eq!(loaded.session, Some(session));
    }

    #[test]
    fn settings_and_session_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path().join("ferry"));
        let loaded = store.load();
        assert_eq!(loaded.settings, Settings::default());
        assert!(loaded.session.is_none() && loaded.problems.is_empty());

        let mut settings = Settings {
            window: (800.0, 600.0),
            sidebar_width: 250.0,
            show_hidden: true,
            icon_size: 96,
            theme: ThemeChoice::Dark,
            ..Settings::default()
        };
        let by_size = SortSpec {
            key: SortKey::Size,
            direction: Direction::Descending,
            folders_first: true,
        };
        settings.remember_sort(Path::new("/data/downloads"), by_size);
        settings.remember_mode(Path::new("/data/photos"), ViewMode::Icons);
        let session = Session {
            tabs: vec![TabSession {
                panes: vec![
                    PaneSession {
                        path: PathBuf::from("/a"),
                    },
                    PaneSession {
                        path: PathBuf::from("/b"),
                    },
                ],
                active: 1,
            }],
            active: 0,
        };
        store.save_settings(&settings).unwrap();
        store.save_session(&session).unwrap();
        let loaded = store.load();
        assert_eq!(loaded.settings, settings);
        assert_eq!(loaded.session, Some(session));
        let leftovers: Vec<_> = fs::read_dir(dir.path().join("ferry"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers.len(), 2, "no temporary left: {leftovers:?}");
    }

    #[test]
    fn a_folder_keeps_what_was_changed_there_and_others_follow_the_last_choice() {
        let mut settings = Settings::default();
        let by_date = SortSpec {
            key: SortKey::Modified,
            ..SortSpec::default()
        };
        settings.remember_sort(Path::new("/dl"), by_date);
        settings.remember_mode(Path::new("/pics"), ViewMode::Icons);
        assert_eq!(
            settings.view_for(Path::new("/dl")),
            (ViewMode::Icons, by_date)
        );
        assert_eq!(
            settings.view_for(Path::new("/pics")),
            (ViewMode::Icons, by_date)
        );
        settings.remember_mode(Path::new("/dl"), ViewMode::Details);
        assert_eq!(settings.view_for(Path::new("/pics")).0, ViewMode::Icons);
        assert_eq!(settings.view_for(Path::new("/new")).0, ViewMode::Details);
    }

    #[test]
    fn only_so_many_folders_are_remembered() {
        let mut settings = Settings::default();
        for i in 0..MAX_FOLDER_VIEWS + 5 {
            settings.remember_mode(Path::new(&format!("/f{i}")), ViewMode::Icons);
        }
        assert_eq!(settings.folders.len(), MAX_FOLDER_VIEWS);
        assert!(!settings.folders.contains_key("/f0"), "the oldest go first");
        assert!(
            settings
                .folders
                .contains_key(&format!("/f{MAX_FOLDER_VIEWS}"))
        );
    }

    #[test]
    fn a_corrupt_file_is_reported_once_kept_aside_and_replaced_by_defaults() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("settings.json"), b"{ not json").unwrap();
        fs::write(dir.path().join("session.json"), br#"{"tabs": 3}"#).unwrap();
        let store = Store::at(dir.path().to_path_buf());
        let loaded = store.load();
        assert_eq!(loaded.settings, Settings::default());
        assert!(loaded.session.is_none());
        assert_eq!(loaded.problems.len(), 2);
        assert!(
            loaded.problems[0].to_string().contains("settings.json"),
            "{}",
            loaded.problems[0]
        );
        assert!(dir.path().join("settings.json.corrupt").exists());
        // Reported once: the next start finds no file and no problem.
        assert!(store.load().problems.is_empty());
    }

    #[test]
    fn a_corrupt_session_is_called_the_session_and_kept_beside_one_kept_before() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::at(dir.path().to_path_buf());
        for (n, text) in [b"{ first".as_slice(), b"{ second"].into_iter().enumerate() {
            fs::write(dir.path().join("session.json"), text).unwrap();
            let problems = store.load().problems;
            let said = problems[0].to_string();
            assert!(said.contains("read the session from"), "{said}");
            let kept = ["session.json.corrupt", "session.json.corrupt.1"][n];
            assert!(said.contains(kept), "{said}");
        }
        let kept = |name| fs::read(dir.path().join(name)).unwrap();
        assert_eq!(kept("session.json.corrupt"), b"{ first");
        assert_eq!(kept("session.json.corrupt.1"), b"{ second");
    }

    #[test]
    fn unknown_and_missing_fields_take_defaults() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join("settings.json"),
            br#"{"sidebar_width": 300, "from_a_newer_ferry": true}"#,
        )
        .unwrap();
        let loaded = Store::at(dir.path().to_path_buf()).load();
        assert!(loaded.problems.is_empty());
        assert_eq!(loaded.settings.sidebar_width, 300.0);
        assert_eq!(loaded.settings.icon_size, Settings::default().icon_size);
    }
}
