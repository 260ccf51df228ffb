//! The watcher: keeps cached listings current from inotify events, incrementally.
//!
//! [`DirWatcher`] wraps a non-recursive `notify` inotify watcher. Raw events are only *noted*:
//! each folder collects the set of names that changed ([`Pending`]) for [`COALESCE`], then the
//! owner applies the whole set at once with [`apply_changes`], which stats only those names
//! (relative to the folder's fd) and makes one pass over the listing. A burst of k events on a
//! folder of N entries costs O(N + k), never a rescan per event. Applying is state-based (it
//! compares the disk with the listing), so replaying a name twice, or one the listing already
//! reflects, is harmless; that is what lets events that arrive while a folder is still being
//! listed be applied afterwards.
//!
//! A queue overflow (`IN_Q_OVERFLOW`, notify's rescan flag) marks every watched folder for one
//! rescan. An event on a watched folder itself (deleted, renamed) marks it to be checked: if its
//! path no longer leads to the same folder (device and inode), it is gone.
//!
//! The same folder reached by two paths (a symlink) has one inotify watch (inotify hands out one
//! watch per inode, and notify keys by path), shared by both paths as aliases.
//!
//! Limits, as in every inotify-based file manager: a change *inside* a subfolder (which updates
//! that subfolder's mtime and link count) is not seen, since watches are not recursive.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::io;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode};
use notify::{EventKind, INotifyWatcher, RecursiveMode, Watcher as _};

use crate::error::Error;
use crate::lister;

mod apply;

pub use apply::{ChangeSummary, apply_changes};

/// How long events on one folder are collected before they are applied as one batch.
pub const COALESCE: Duration = Duration::from_millis(75);

/// A raw event from the watcher's backend thread, to be handed back to [`DirWatcher::note`]
/// on the owner's thread.
#[derive(Debug)]
pub struct WatchEvent(notify::Result<notify::Event>);

impl WatchEvent {
    /// An event-queue overflow, as inotify reports it (for tests).
    #[cfg(test)]
    pub(crate) fn overflow() -> Self {
        WatchEvent(Ok(
            notify::Event::new(EventKind::Other).set_flag(notify::event::Flag::Rescan)
        ))
    }
}

/// What the watcher learned about one folder during one coalescing window.
#[derive(Debug)]
pub struct Pending {
    /// Names created, deleted, renamed from or to, or modified.
    pub names: HashSet<OsString>,
    /// Events were lost (queue overflow): read the folder again.
    pub rescan: bool,
    /// The folder itself was deleted or renamed: check that its path still leads to it.
    pub check_self: bool,
    /// When the first event of this window arrived.
    since: Instant,
}

impl Pending {
    fn new(since: Instant) -> Self {
        Pending {
            names: HashSet::new(),
            rescan: false,
            check_self: false,
            since,
        }
    }
}

/// A folder's identity: the same path may later lead to another folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct DirId {
    dev: u64,
    ino: u64,
}

impl DirId {
    /// The identity of the folder `path` leads to (a final symlink is followed, as the listing
    /// and inotify do).
    fn of(path: &Path) -> io::Result<DirId> {
        let st = rustix::fs::stat(path)?;
        Ok(DirId {
            dev: st.st_dev,
            ino: st.st_ino,
        })
    }
}

/// One inotify watch and the paths (cache keys) that lead to its folder.
#[derive(Debug)]
struct Watched {
    /// The path notify watches and reports events under.
    registered: PathBuf,
    /// Every watched path leading to this folder, `registered` included.
    aliases: Vec<PathBuf>,
}

/// Where a watched folder stands when its pending changes are about to be applied.
#[derive(Debug)]
pub enum DirCheck {
    /// The path still leads to the watched folder, opened here for [`apply_changes`].
    Same(OwnedFd),
    /// The path no longer leads to the watched folder: deleted, renamed away or replaced.
    Gone,
    /// The folder cannot be opened right now (e.g. its permissions changed): the listing
    /// service reads it again, for the error its views then show.
    Unreadable,
}

/// Non-recursive inotify watches on the cached folders, with per-folder coalescing.
pub struct DirWatcher {
    inner: INotifyWatcher,
    /// Watched path (cache key) -> folder identity.
    by_path: HashMap<PathBuf, DirId>,
    /// Registered path (as notify reports it) -> folder identity.
    registered: HashMap<PathBuf, DirId>,
    dirs: HashMap<DirId, Watched>,
    /// Collected, not yet applied changes per watched path.
    pending: HashMap<PathBuf, Pending>,
}

impl std::fmt::Debug for DirWatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirWatcher")
            .field("watched", &self.by_path.keys().collect::<Vec<_>>())
            .field("pending", &self.pending)
            .finish_non_exhaustive()
    }
}

impl DirWatcher {
    /// Starts the inotify backend; `sink` is called on its thread with every event that can
    /// matter (opens and reads are filtered out there) and should forward it to the owner.
    pub fn new(mut sink: impl FnMut(WatchEvent) + Send + 'static) -> Result<Self, Error> {
        let handler = move |event: notify::Result<notify::Event>| {
            if is_relevant(&event) {
                sink(WatchEvent(event));
            }
        };
        let inner = INotifyWatcher::new(handler, notify::Config::default())
            .map_err(|e| Error::io("start watching", PathBuf::new(), to_io(e)))?;
        Ok(DirWatcher {
            inner,
            by_path: HashMap::new(),
            registered: HashMap::new(),
            dirs: HashMap::new(),
            pending: HashMap::new(),
        })
    }

    /// Number of watched paths.
    pub fn len(&self) -> usize {
        self.by_path.len()
    }

    /// True when nothing is watched.
    pub fn is_empty(&self) -> bool {
        self.by_path.is_empty()
    }

    /// True when `path` is watched.
    pub fn is_watched(&self, path: &Path) -> bool {
        self.by_path.contains_key(path)
    }

    /// Starts watching the folder `path` (absolute). Watching a watched path again is a no-op
    /// unless the path now leads to another folder.
    pub fn watch(&mut self, path: &Path) -> Result<(), Error> {
        let id = DirId::of(path).map_err(|e| Error::io("watch", path, e))?;
        match self.by_path.get(path) {
            Some(&old) if old == id => return Ok(()),
            Some(_) => self.unwatch(path),
            None => {}
        }
        if let Some(watched) = self.dirs.get_mut(&id) {
            watched.aliases.push(path.to_owned());
        } else {
            self.inner
                .watch(path, RecursiveMode::NonRecursive)
                .map_err(|e| Error::io("watch", path, to_io(e)))?;
            self.registered.insert(path.to_owned(), id);
            let watched = Watched {
                registered: path.to_owned(),
                aliases: vec![path.to_owned()],
            };
            self.dirs.insert(id, watched);
        }
        self.by_path.insert(path.to_owned(), id);
        Ok(())
    }

    /// Stops watching `path` and forgets its pending changes. Unknown paths are ignored.
    pub fn unwatch(&mut self, path: &Path) {
        self.pending.remove(path);
        let Some(id) = self.by_path.remove(path) else {
            return;
        };
        let Some(watched) = self.dirs.get_mut(&id) else {
            return;
        };
        watched.aliases.retain(|p| p != path);
        if watched.registered != path {
            return;
        }
        // The watch is reported under this path: end it, and re-register under an alias if any.
        // An error means inotify already dropped it (folder deleted); nothing left to end.
        let _ = self.inner.unwatch(path);
        self.registered.remove(path);
        let Some(next) = watched.aliases.first().cloned() else {
            self.dirs.remove(&id);
            return;
        };
        watched.registered.clone_from(&next);
        let moved = self.inner.watch(&next, RecursiveMode::NonRecursive).is_ok();
        if moved {
            self.registered.insert(next, id);
        }
        // Events between the two watches are lost: read the aliases again; if the watch could
        // not be moved, the folder probably went away meanwhile: check it.
        let now = Instant::now();
        mark(&self.dirs, &mut self.pending, id, now, |pending| {
            if moved {
                pending.rescan = true;
            } else {
                pending.check_self = true;
            }
        });
    }

    /// Re-creates the watch of `path` (notify drops a watch when its folder is renamed, even if
    /// it is renamed back) and marks it for a rescan, since events may have been missed.
    pub fn rewatch(&mut self, path: &Path) -> Result<(), Error> {
        self.unwatch(path);
        self.watch(path)?;
        self.pending
            .entry(path.to_owned())
            .or_insert_with(|| Pending::new(Instant::now()))
            .rescan = true;
        Ok(())
    }

    /// Records one raw event in the pending changes of the folders it concerns.
    pub fn note(&mut self, event: WatchEvent, now: Instant) {
        let event = match event.0 {
            Ok(event) if !event.need_rescan() => event,
            // Lost events (overflow), or the backend failed to read them: rescan everything.
            _ => {
                for path in self.by_path.keys() {
                    self.pending
                        .entry(path.clone())
                        .or_insert_with(|| Pending::new(now))
                        .rescan = true;
                }
                return;
            }
        };
        let about_self = matches!(
            event.kind,
            EventKind::Remove(_) | EventKind::Modify(notify::event::ModifyKind::Name(_))
        );
        // The folder's own permissions changed: a batch of no names looks at it again, and
        // one made unreadable is read again, its views told (they showed what it held).
        let own_attributes = matches!(
            event.kind,
            EventKind::Modify(notify::event::ModifyKind::Metadata(_))
        );
        for path in &event.paths {
            if own_attributes && let Some(&id) = self.registered.get(path.as_path()) {
                mark(&self.dirs, &mut self.pending, id, now, |_| {});
            }
            // The path may be a watched folder itself (notify reports self events with the bare
            // folder path) as well as an entry of its watched parent: both are noted.
            if about_self && let Some(&id) = self.registered.get(path.as_path()) {
                mark(&self.dirs, &mut self.pending, id, now, |p| {
                    p.check_self = true;
                });
            }
            let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
                continue;
            };
            if let Some(&id) = self.registered.get(parent) {
                mark(&self.dirs, &mut self.pending, id, now, |p| {
                    // Checked first: a burst repeats names (create, modify, close) many times.
                    if !p.names.contains(name) {
                        p.names.insert(name.to_owned());
                    }
                });
            }
        }
    }

    /// When the oldest pending batch is due, if any (the owner's timer deadline), leaving out
    /// paths held as in [`DirWatcher::take_due`].
    pub fn next_due(&self, hold: impl Fn(&Path) -> bool) -> Option<Instant> {
        self.pending
            .iter()
            .filter(|(path, _)| !hold(path))
            .map(|(_, p)| p.since + COALESCE)
            .min()
    }

    /// Takes every batch due at `now`, except for paths where `hold` is true (a folder being
    /// listed again keeps collecting until that listing is complete).
    pub fn take_due(
        &mut self,
        now: Instant,
        hold: impl Fn(&Path) -> bool,
    ) -> Vec<(PathBuf, Pending)> {
        let due: Vec<PathBuf> = self
            .pending
            .iter()
            .filter(|(path, p)| now >= p.since + COALESCE && !hold(path))
            .map(|(path, _)| path.clone())
            .collect();
        due.into_iter()
            .filter_map(|path| self.pending.remove_entry(&path))
            .collect()
    }

    /// Takes the pending batch of `path` whether due or not.
    pub fn take(&mut self, path: &Path) -> Option<Pending> {
        self.pending.remove(path)
    }

    /// Where the watched folder `path` is now, when it was renamed within its parent folder
    /// (found by its inode number among the parent's entries), or when a folder above it was
    /// renamed within its own parent (the rest of the path is looked for below each folder
    /// there). One moved elsewhere is not looked for.
    pub fn renamed_to(&self, path: &Path) -> Option<PathBuf> {
        use std::os::unix::fs::{DirEntryExt, MetadataExt};
        let &id = self.by_path.get(path)?;
        let is_it = |candidate: &Path| {
            candidate != path
                && std::fs::symlink_metadata(candidate)
                    .is_ok_and(|m| m.is_dir() && m.dev() == id.dev && m.ino() == id.ino)
        };
        let parent = path.parent()?;
        if let Ok(entries) = std::fs::read_dir(parent) {
            return (entries.flatten())
                .filter(|entry| entry.ino() == id.ino)
                .map(|entry| entry.path())
                .find(|candidate| is_it(candidate));
        }
        // The parent is gone too: a folder above was renamed ("g4" of g4/sub/deep to "g5").
        // Below the nearest folder that is still there, each folder in place of the one gone.
        let above = path.ancestors().skip(2).find(|p| p.is_dir())?;
        let gone = path.strip_prefix(above).ok()?;
        let mut parts = gone.components();
        parts.next()?;
        let rest = parts.as_path();
        std::fs::read_dir(above)
            .ok()?
            .flatten()
            .filter(|entry| entry.file_type().is_ok_and(|t| t.is_dir()))
            .map(|entry| entry.path().join(rest))
            .find(|candidate| is_it(candidate))
    }

    /// Opens the watched folder `path` and checks that it is still the folder being watched.
    pub fn check(&self, path: &Path) -> DirCheck {
        let Some(&id) = self.by_path.get(path) else {
            return DirCheck::Gone;
        };
        let fd = match lister::open_dir(&followed(path)) {
            Ok(fd) => fd,
            Err(e) if e.is_not_found() || matches!(e, Error::NotADirectory { .. }) => {
                return DirCheck::Gone;
            }
            Err(_) => return DirCheck::Unreadable,
        };
        match rustix::fs::fstat(&fd) {
            Ok(st)
                if (DirId {
                    dev: st.st_dev,
                    ino: st.st_ino,
                }) == id =>
            {
                DirCheck::Same(fd)
            }
            Ok(_) => DirCheck::Gone,
            Err(_) => DirCheck::Unreadable,
        }
    }
}

/// Applies `f` to the pending batch of every path leading to the folder `id`, starting batches
/// as needed (without allocating for batches that already exist: bursts come here per event).
fn mark(
    dirs: &HashMap<DirId, Watched>,
    pending: &mut HashMap<PathBuf, Pending>,
    id: DirId,
    now: Instant,
    mut f: impl FnMut(&mut Pending),
) {
    let Some(watched) = dirs.get(&id) else { return };
    for alias in &watched.aliases {
        match pending.get_mut(alias) {
            Some(batch) => f(batch),
            None => f(pending
                .entry(alias.clone())
                .or_insert_with(|| Pending::new(now))),
        }
    }
}

/// `path` with a trailing slash, so opening it follows a final symlink: a folder the user
/// navigated to through a symlink is listed (entries inside are still never followed).
pub fn followed(path: &Path) -> PathBuf {
    let mut bytes = path.as_os_str().as_bytes().to_vec();
    if bytes.last() != Some(&b'/') {
        bytes.push(b'/');
    }
    PathBuf::from(OsString::from_vec(bytes))
}

/// Opens, reads and closes do not change a listing; dropping them on the backend's thread keeps
/// the owner's channel quiet while files are read. A close after writing does (final size).
fn is_relevant(event: &notify::Result<notify::Event>) -> bool {
    match event {
        Ok(event) => match event.kind {
            EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
            EventKind::Access(_) => false,
            _ => true,
        },
        Err(_) => true,
    }
}

fn to_io(err: notify::Error) -> io::Error {
    match err.kind {
        notify::ErrorKind::Io(e) => e,
        notify::ErrorKind::PathNotFound => io::ErrorKind::NotFound.into(),
        notify::ErrorKind::MaxFilesWatch => {
            io::Error::other("too many watches (raise fs.inotify.max_user_watches)")
        }
        kind => io::Error::other(format!("{kind:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use apply::tests::set;
    use std::fs;

    fn watcher() -> DirWatcher {
        DirWatcher::new(|_| {}).unwrap()
    }

    /// A watcher of two new folders `a` and `b` in `dir`.
    fn watching_two(dir: &Path) -> (DirWatcher, PathBuf, PathBuf) {
        let (a, b) = (dir.join("a"), dir.join("b"));
        fs::create_dir(&a).unwrap();
        fs::create_dir(&b).unwrap();
        let mut w = watcher();
        w.watch(&a).unwrap();
        w.watch(&b).unwrap();
        (w, a, b)
    }

    fn event(kind: EventKind, paths: &[&Path]) -> WatchEvent {
        let mut event = notify::Event::new(kind);
        event.paths = paths.iter().map(|p| p.to_path_buf()).collect();
        WatchEvent(Ok(event))
    }

    #[test]
    fn notes_coalesce_per_folder_and_come_due_together() {
        let tmp = tempfile::tempdir().unwrap();
        let (mut w, a, b) = watching_two(tmp.path());
        let t0 = Instant::now();
        let create = EventKind::Create(notify::event::CreateKind::File);
        for i in 0..1000 {
            w.note(event(create, &[&a.join(format!("f{i}"))]), t0);
        }
        w.note(event(create, &[&b.join("x")]), t0 + COALESCE / 2);
        w.note(event(create, &[&tmp.path().join("unwatched/y")]), t0);
        assert_eq!(w.next_due(|_| false), Some(t0 + COALESCE));
        assert_eq!(w.next_due(|p| p == a), Some(t0 + COALESCE / 2 + COALESCE));
        assert!(w.take_due(t0, |_| false).is_empty());
        let due = w.take_due(t0 + COALESCE, |_| false);
        assert_eq!(due.len(), 1);
        assert_eq!(due[0].0, a);
        assert_eq!(due[0].1.names.len(), 1000);
        // A folder being listed again keeps collecting.
        assert!(w.take_due(t0 + COALESCE * 2, |p| p == b).is_empty());
        assert_eq!(w.take(&b).unwrap().names, set(&["x"]));
        assert_eq!(w.next_due(|_| false), None);
    }

    #[test]
    fn overflow_marks_every_folder_for_a_rescan() {
        let tmp = tempfile::tempdir().unwrap();
        let (mut w, a, b) = watching_two(tmp.path());
        let now = Instant::now();
        w.note(WatchEvent::overflow(), now);
        let mut due = w.take_due(now + COALESCE, |_| false);
        due.sort_by(|x, y| x.0.cmp(&y.0));
        assert_eq!(
            due.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>(),
            [a, b]
        );
        assert!(due.iter().all(|(_, p)| p.rescan && !p.check_self));
    }

    #[test]
    fn self_events_and_aliases() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real");
        let link = tmp.path().join("link");
        fs::create_dir(&real).unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let mut w = watcher();
        w.watch(&real).unwrap();
        w.watch(&link).unwrap();
        assert_eq!(w.dirs.len(), 1, "one inotify watch for one folder");
        let now = Instant::now();
        // Reported under the registered path, noted for both.
        w.note(
            event(
                EventKind::Create(notify::event::CreateKind::File),
                &[&real.join("n")],
            ),
            now,
        );
        w.note(
            event(
                EventKind::Remove(notify::event::RemoveKind::Folder),
                &[&real],
            ),
            now,
        );
        let due = w.take_due(now + COALESCE, |_| false);
        assert_eq!(due.len(), 2);
        assert!(
            due.iter()
                .all(|(_, p)| p.check_self && p.names == set(&["n"]))
        );
        assert!(matches!(w.check(&real), DirCheck::Same(_)));
        assert!(matches!(w.check(&link), DirCheck::Same(_)));

        // Ending the registered path's watch moves it to the alias, which is rescanned.
        w.unwatch(&real);
        assert!(w.is_watched(&link) && !w.is_watched(&real));
        assert!(w.take(&link).unwrap().rescan);
        w.note(
            event(
                EventKind::Create(notify::event::CreateKind::File),
                &[&link.join("m")],
            ),
            now,
        );
        assert_eq!(w.take(&link).unwrap().names, set(&["m"]));

        // Replaced by another folder at the same path: gone.
        fs::remove_file(&link).unwrap();
        fs::create_dir(&link).unwrap();
        assert!(matches!(w.check(&link), DirCheck::Gone));
        fs::remove_dir(&link).unwrap();
        assert!(matches!(w.check(&link), DirCheck::Gone));
        w.unwatch(&link);
        assert!(w.is_empty() && w.dirs.is_empty() && w.registered.is_empty());
    }

    #[test]
    fn watching_a_missing_folder_fails_with_its_path() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("missing");
        let err = watcher().watch(&missing).unwrap_err();
        assert!(err.is_not_found());
        assert_eq!(err.path(), Some(missing.as_path()));
    }

    /// A watched folder renamed in place is found under its new name, and so is one whose
    /// folder above was renamed; one moved elsewhere is not.
    #[test]
    fn a_watched_folder_is_found_after_it_or_a_folder_above_is_renamed() {
        let tmp = tempfile::tempdir().unwrap();
        let deep = tmp.path().join("g4/sub/deep");
        fs::create_dir_all(&deep).unwrap();
        fs::create_dir(tmp.path().join("other")).unwrap();
        let mut w = watcher();
        w.watch(&deep).unwrap();
        fs::rename(tmp.path().join("g4"), tmp.path().join("g5")).unwrap();
        assert_eq!(w.renamed_to(&deep), Some(tmp.path().join("g5/sub/deep")));
        let shown = tmp.path().join("g5/sub/deep");
        let mut w = watcher();
        w.watch(&shown).unwrap();
        fs::rename(&shown, tmp.path().join("g5/sub/deeper")).unwrap();
        assert_eq!(w.renamed_to(&shown), Some(tmp.path().join("g5/sub/deeper")));
        fs::rename(tmp.path().join("g5/sub/deeper"), tmp.path().join("other/x")).unwrap();
        assert_eq!(w.renamed_to(&shown), None);
    }

    #[test]
    fn followed_appends_one_slash() {
        assert_eq!(followed(Path::new("/a/b")).as_os_str(), "/a/b/");
        assert_eq!(followed(Path::new("/a/b/")).as_os_str(), "/a/b/");
    }
}
