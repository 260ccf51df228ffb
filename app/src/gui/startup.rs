//! Everything before the first frame: the log, the display check, the settings and the
//! session (read here, before the event loop, because the window's size must be known when it
//! opens), and the folders to show.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ferry_core::Error;
use tracing_subscriber::EnvFilter;

use super::display::{self, NoDisplay};
use super::settings::{Session, Settings, Store};

/// When Ferry was launched (monotonic clock, nanoseconds), carried across the re-exec of
/// [`display`] so that the `first frame` time is the one the user waited.
pub const LAUNCHED: &str = "FERRY_LAUNCHED_NS";

static STARTED: OnceLock<u64> = OnceLock::new();

fn monotonic_ns() -> u64 {
    let now = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    u64::try_from(now.tv_sec).unwrap_or(0) * 1_000_000_000 + u64::try_from(now.tv_nsec).unwrap_or(0)
}

/// When Ferry was launched, in nanoseconds of the monotonic clock.
pub fn launched() -> u64 {
    *STARTED.get_or_init(|| {
        std::env::var(LAUNCHED)
            .ok()
            .and_then(|ns| ns.parse().ok())
            .unwrap_or_else(monotonic_ns)
    })
}

/// Time since Ferry was launched.
pub fn since_start() -> std::time::Duration {
    std::time::Duration::from_nanos(monotonic_ns().saturating_sub(launched()))
}

/// What the window starts with.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The folder asked for on the command line, or home.
    pub start: PathBuf,
    /// The session to restore (no folder was asked for, and there is one).
    pub session: Option<Session>,
    /// The preferences.
    pub settings: Settings,
    /// Where they are kept.
    pub store: Option<Store>,
    /// Files that could not be read, to say once.
    pub problems: Vec<std::sync::Arc<Error>>,
    /// The home folder.
    pub home: Option<PathBuf>,
    /// Why the folder asked for is not shown (it is not one), to say in the pane.
    pub notice: Option<String>,
    /// The session's panes whose folder is gone (tab, pane), with what to say in each: it
    /// shows the nearest folder left.
    pub gone: Vec<(usize, usize, String)>,
    /// Where the jobs' journal and the trash are.
    pub stores: crate::gui::jobs::Stores,
}

/// Starts the log (`RUST_LOG`, e.g. `ferry=info`; warnings otherwise), checks the display,
/// and reads what the window needs. Blocking, before the event loop.
pub fn prepare(path: Option<PathBuf>) -> Result<Launch, NoDisplay> {
    let _ = launched();
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("error,ferry=warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
    display::prepare()?;
    let home = directories::UserDirs::new().map(|dirs| dirs.home_dir().to_path_buf());
    let store = Store::from_env();
    let loaded = store.as_ref().map(Store::load).unwrap_or_default();
    let asked = path.map(|path| std::path::absolute(&path).unwrap_or(path));
    let (start, notice) = start_folder(asked.as_deref(), home.as_deref());
    // Started with a folder, Ferry opens it; without one it restores the last session, each
    // folder that is gone replaced by its nearest existing parent, which says so.
    let (session, gone) = match (asked, loaded.session) {
        (None, Some(session)) => {
            let (session, gone) = restored(session);
            (Some(session), gone)
        }
        _ => (None, Vec::new()),
    };
    Ok(Launch {
        start,
        session,
        settings: loaded.settings,
        store,
        problems: loaded
            .problems
            .into_iter()
            .map(std::sync::Arc::new)
            .collect(),
        home,
        notice,
        gone,
        stores: crate::gui::jobs::Stores::default(),
    })
}

/// How long the saved folders are checked before the window opens. A folder on a mount that
/// no longer answers (a dead sshfs or NFS server) held the check, and the window, for good;
/// past this the session opens as saved, and such a pane waits for its listing.
const RESTORE_CHECK: std::time::Duration = std::time::Duration::from_secs(2);

/// Panes restored and what some of them say.
type Restored = (Session, Vec<(usize, usize, String)>);

/// [`restored_now`], on a thread of its own, given [`RESTORE_CHECK`] to finish.
fn restored(session: Session) -> Restored {
    restored_within(session, RESTORE_CHECK, restored_now)
}

fn restored_within(
    session: Session,
    limit: std::time::Duration,
    check: fn(Session) -> Restored,
) -> Restored {
    let (sent, got) = std::sync::mpsc::channel();
    let checked = session.clone();
    let spawned = std::thread::Builder::new()
        .name("ferry-restore".into())
        .spawn(move || {
            let _ = sent.send(check(checked));
        });
    match spawned.ok().and_then(|_| got.recv_timeout(limit).ok()) {
        Some(done) => done,
        None => (session, Vec::new()),
    }
}

/// `session` with each folder that is gone replaced by its nearest existing parent, and
/// what each such pane says (see [`Launch::gone`]). Blocking (a stat per pane).
fn restored_now(mut session: Session) -> Restored {
    let mut gone = Vec::new();
    for (t, tab) in session.tabs.iter_mut().enumerate() {
        for (p, pane) in tab.panes.iter_mut().enumerate() {
            let nearest = nearest_folder(&pane.path);
            if nearest != pane.path {
                gone.push((
                    t,
                    p,
                    super::screen::browser::gone_notice(&pane.path, &nearest),
                ));
                pane.path = nearest;
            }
        }
    }
    (session, gone)
}

/// The folder to open for `asked` (the command line's, if any): a file opens its folder; a
/// path that is neither opens home, with why to say in the pane. Blocking (a stat).
fn start_folder(asked: Option<&Path>, home: Option<&Path>) -> (PathBuf, Option<String>) {
    let home = home.unwrap_or(Path::new("/")).to_path_buf();
    let Some(path) = asked else {
        return (home, None);
    };
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => (path.to_path_buf(), None),
        Ok(_) => (path.parent().map_or(home, Path::to_path_buf), None),
        Err(e) => (
            home,
            Some(format!(
                "Can't open {}: {e}. Showing your home folder instead.",
                path.display()
            )),
        ),
    }
}

/// `path` if it is a folder, else its nearest ancestor that is (at worst `/`).
fn nearest_folder(path: &Path) -> PathBuf {
    path.ancestors()
        .find(|p| p.is_dir())
        .unwrap_or(Path::new("/"))
        .to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_opens_its_folder_and_a_bad_path_opens_home_saying_why() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        std::fs::create_dir(&home).unwrap();
        std::fs::write(dir.path().join("f.txt"), "").unwrap();
        assert_eq!(start_folder(None, Some(&home)), (home.clone(), None));
        assert_eq!(start_folder(Some(dir.path()), Some(&home)).0, dir.path());
        assert_eq!(
            start_folder(Some(&dir.path().join("f.txt")), Some(&home)).0,
            dir.path()
        );
        let (start, notice) = start_folder(Some(&dir.path().join("nope")), Some(&home));
        assert_eq!(start, home);
        assert!(notice.unwrap().contains("No such file"));
    }

    #[test]
    fn a_gone_folder_falls_back_to_its_nearest_existing_parent() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("a")).unwrap();
        assert_eq!(nearest_folder(&dir.path().join("a")), dir.path().join("a"));
        assert_eq!(
            nearest_folder(&dir.path().join("a/gone/deeper")),
            dir.path().join("a")
        );
        assert_eq!(nearest_folder(Path::new("/no/such/place")), Path::new("/"));
    }

    /// A restored tab whose folder is gone shows the nearest folder left and says why; the
    /// others say nothing.
    #[test]
    fn a_restored_pane_whose_folder_is_gone_says_so() {
        use crate::gui::settings::{PaneSession, TabSession};
        let dir = tempfile::tempdir().unwrap();
        let tab = |path: PathBuf| TabSession {
            panes: vec![PaneSession { path }],
            active: 0,
        };
        let session = Session {
            tabs: vec![
                tab(dir.path().to_path_buf()),
                tab(dir.path().join("f/deeper")),
            ],
            active: 1,
        };
        let (session, gone) = restored(session);
        assert_eq!(session.tabs[1].panes[0].path, dir.path());
        let said = format!(
            "“deeper” was moved or deleted; showing {} instead.",
            dir.path().display()
        );
        assert_eq!(gone, [(1, 0, said)]);
    }

    /// A check that does not end (a folder on a mount that no longer answers) does not hold
    /// the window: the session opens as saved.
    #[test]
    fn a_saved_folder_that_does_not_answer_does_not_hold_the_window() {
        let session = Session::default();
        let hung: fn(Session) -> Restored = |s| {
            std::thread::sleep(std::time::Duration::from_secs(5));
            (s, vec![(0, 0, "checked".to_owned())])
        };
        let started = std::time::Instant::now();
        let (restored, gone) =
            restored_within(session.clone(), std::time::Duration::from_millis(100), hung);
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        assert_eq!((restored, gone.len()), (session, 0));
    }
}
