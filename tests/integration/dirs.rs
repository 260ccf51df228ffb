//! The listing service end to end: cache hits, bounds and expiry, live updates from the
//! watcher, vanished folders, and clean shutdown.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;
use ferry_core::cache::{EXPIRY, ManualClock};
use ferry_core::dirs::{ChangeSummary, DirEvent, DirService, ViewId};
use ferry_core::entry::{Listing, Meta};
use ferry_core::lister;
use ferry_core::sort::{self, Direction, SortKey, SortSpec};
use ferry_tests::TempTree;

/// Generous: events normally arrive within ~100 ms; this only bounds a failing test.
const DEADLINE: Duration = Duration::from_secs(20);

/// The next event for `view` other than a batch, waiting up to the deadline.
fn next(events: &Receiver<DirEvent>, view: ViewId) -> DirEvent {
    let end = Instant::now() + DEADLINE;
    loop {
        let left = end.saturating_duration_since(Instant::now());
        let event = events
            .recv_timeout(left)
            .expect("no event before the deadline");
        if event.view() == view && !matches!(event, DirEvent::Batch { .. }) {
            return event;
        }
    }
}

/// The next event for `view` other than a batch, which must be a change: its listing, order
/// and summary.
fn next_changed(
    events: &Receiver<DirEvent>,
    view: ViewId,
) -> (Arc<Listing>, Arc<[u32]>, ChangeSummary) {
    match next(events, view) {
        DirEvent::Changed {
            listing,
            order,
            change,
            ..
        } => (listing, order, change),
        other => panic!("expected a change, got {other:?}"),
    }
}

/// Opens `path` in `view` and waits for its listing.
fn open(dirs: &DirService, events: &Receiver<DirEvent>, view: ViewId, path: &Path) -> Loaded {
    let generation = dirs.open(view, path.to_owned(), SortSpec::default());
    match next(events, view) {
        DirEvent::Loaded {
            generation: g,
            listing,
            order,
            from_cache,
            ..
        } => {
            assert_eq!(g, generation);
            assert_eq!(listing.dir(), path);
            Loaded {
                listing,
                order,
                from_cache,
            }
        }
        other => panic!("expected Loaded for {}, got {other:?}", path.display()),
    }
}

struct Loaded {
    listing: Arc<Listing>,
    order: Arc<[u32]>,
    from_cache: bool,
}

fn names(listing: &Listing) -> Vec<OsString> {
    let mut names: Vec<_> = listing.iter().map(|e| e.name().to_owned()).collect();
    names.sort();
    names
}

/// True when `listing` holds exactly the names and metadata of a fresh listing of `dir`.
fn matches_fresh(listing: &Listing, dir: &Path) -> bool {
    let entries = |l: &Listing| -> HashMap<OsString, Meta> {
        l.iter().map(|e| (e.name().to_owned(), e.meta())).collect()
    };
    let fresh = lister::list_all(dir).unwrap();
    listing.len() == fresh.len() && entries(listing) == entries(&fresh)
}

/// Waits for `Changed` events on `view` until `done` holds for the listing; returns the last
/// listing and every change seen.
fn changed_until(
    events: &Receiver<DirEvent>,
    view: ViewId,
    mut done: impl FnMut(&Listing) -> bool,
) -> (Arc<Listing>, Vec<ChangeSummary>) {
    let mut changes = Vec::new();
    loop {
        match next(events, view) {
            DirEvent::Changed {
                listing,
                order,
                change,
                ..
            } => {
                assert_eq!(
                    &order[..],
                    &sort::sorted_order(&listing, SortSpec::default())[..]
                );
                changes.push(change);
                if done(&listing) {
                    return (listing, changes);
                }
            }
            other => panic!("expected Changed, got {other:?}"),
        }
    }
}

fn four_folders(tree: &TempTree) -> Vec<PathBuf> {
    ["a", "b", "c", "d"]
        .iter()
        .map(|d| {
            tree.file(format!("{d}/file"), d);
            tree.join(d)
        })
        .collect()
}

#[test]
fn reopening_a_cached_folder_is_answered_from_memory() {
    let tree = TempTree::new();
    tree.many_files("big", "f", 500, 0);
    tree.dir("other");
    let (dirs, events) = DirService::start();
    let first = open(&dirs, &events, 1, &tree.join("big"));
    assert!(!first.from_cache);
    assert_eq!(first.listing.len(), 500);
    assert_eq!(
        &first.order[..],
        &sort::sorted_order(&first.listing, SortSpec::default())[..]
    );
    open(&dirs, &events, 1, &tree.join("other"));
    let again = open(&dirs, &events, 1, &tree.join("big"));
    assert!(again.from_cache);
    assert!(
        Arc::ptr_eq(&first.listing, &again.listing),
        "the very same snapshot"
    );
    // A second view on the same folder is answered from the cache too.
    assert!(open(&dirs, &events, 2, &tree.join("big")).from_cache);
}

#[test]
fn the_cache_keeps_the_three_most_recent_folders_and_their_watches() {
    let tree = TempTree::new();
    let folders = four_folders(&tree);
    let (dirs, events) = DirService::start();
    for folder in &folders {
        assert!(!open(&dirs, &events, 1, folder).from_cache);
    }
    let stats = dirs.stats();
    assert_eq!(
        stats.paths,
        [folders[3].clone(), folders[2].clone(), folders[1].clone()]
    );
    assert_eq!(
        stats.watched, 3,
        "the watch ends when the listing leaves the cache"
    );
    assert_eq!(stats.entries, 3);
    assert!(stats.heap_bytes > 0);
    // b is used again, so c is now the least recently used and goes when a comes back.
    assert!(open(&dirs, &events, 1, &folders[1]).from_cache);
    assert!(!open(&dirs, &events, 1, &folders[0]).from_cache);
    let stats = dirs.stats();
    assert_eq!(
        stats.paths,
        [folders[0].clone(), folders[1].clone(), folders[3].clone()]
    );
}

#[test]
fn shown_folders_are_never_evicted_so_four_views_hold_four() {
    let tree = TempTree::new();
    let folders = four_folders(&tree);
    let (dirs, events) = DirService::start();
    for (view, folder) in (1..).zip(&folders) {
        open(&dirs, &events, view, folder);
    }
    assert_eq!(dirs.stats().paths.len(), 4);
    for view in 1..=4 {
        assert!(open(&dirs, &events, 10 + view, &folders[view as usize - 1]).from_cache);
    }
    // Views 4 and 14 show d: once both close, the surplus listing goes.
    dirs.close(4);
    dirs.close(14);
    let stats = dirs.stats();
    assert_eq!(stats.paths.len(), 3);
    assert!(
        !stats.paths.contains(&folders[3]),
        "the surplus goes once released"
    );
}

#[test]
fn a_released_listing_expires_after_three_minutes_but_a_shown_one_never() {
    let tree = TempTree::new();
    let folders = four_folders(&tree);
    let clock = Arc::new(ManualClock::new());
    let (dirs, events) = DirService::start_with_clock(clock.clone());
    open(&dirs, &events, 1, &folders[0]);
    open(&dirs, &events, 2, &folders[1]);
    dirs.close(1);
    // Commands are asynchronous: let the release happen before time moves.
    assert_eq!(dirs.stats().paths.len(), 2);
    clock.advance(EXPIRY - Duration::from_secs(1));
    assert_eq!(dirs.stats().paths.len(), 2);
    clock.advance(Duration::from_secs(1));
    // `stats` only wakes the service; the expiry itself is the service's own doing.
    let stats = dirs.stats();
    assert_eq!(stats.paths, [folders[1].clone()]);
    assert_eq!(stats.watched, 1);
    clock.advance(EXPIRY * 10);
    assert_eq!(
        dirs.stats().paths,
        [folders[1].clone()],
        "still shown by view 2"
    );
    assert!(!open(&dirs, &events, 1, &folders[0]).from_cache);
}

#[test]
fn live_changes_are_applied_incrementally_and_match_a_fresh_listing() {
    let tree = TempTree::new();
    let dir = tree.dir("live");
    for name in ["keep", "delete-me", "rename-me", "grow"] {
        tree.file(format!("live/{name}"), "x");
    }
    let (dirs, events) = DirService::start();
    let shown = open(&dirs, &events, 1, &dir);
    fs::remove_file(dir.join("delete-me")).unwrap();
    fs::rename(dir.join("rename-me"), dir.join("renamed")).unwrap();
    fs::write(dir.join("grow"), "longer").unwrap();
    tree.file("live/new-file", "");
    tree.dir("live/new-folder");
    std::os::unix::fs::symlink("nowhere", dir.join("new-link")).unwrap();
    let (listing, changes) = changed_until(&events, 1, |l| matches_fresh(l, &dir));
    assert_eq!(
        names(&listing),
        [
            "grow",
            "keep",
            "new-file",
            "new-folder",
            "new-link",
            "renamed"
        ]
    );
    let all = |pick: fn(&ChangeSummary) -> &Vec<OsString>| {
        let mut v: Vec<_> = changes
            .iter()
            .flat_map(|c| pick(c).iter().cloned())
            .collect();
        v.sort();
        v.dedup();
        v
    };
    assert_eq!(
        all(|c| &c.added),
        ["new-file", "new-folder", "new-link", "renamed"]
    );
    assert_eq!(all(|c| &c.removed), ["delete-me", "rename-me"]);
    assert!(all(|c| &c.modified).contains(&OsString::from("grow")));
    assert!(
        changes.iter().all(|c| !c.rescanned),
        "applied incrementally"
    );
    // The snapshot the view was first given did not change under it.
    assert_eq!(
        names(&shown.listing),
        ["delete-me", "grow", "keep", "rename-me"]
    );
    // And re-opening gets the updated listing from the cache.
    let again = open(&dirs, &events, 2, &dir);
    assert!(again.from_cache && matches_fresh(&again.listing, &dir));
}

#[test]
fn a_burst_of_creations_is_coalesced() {
    let tree = TempTree::new();
    let dir = tree.dir("burst");
    let (dirs, events) = DirService::start();
    open(&dirs, &events, 1, &dir);
    tree.many_files("burst", "n", 3000, 1);
    let (listing, changes) = changed_until(&events, 1, |l| l.len() == 3000);
    assert!(matches_fresh(&listing, &dir));
    // One event per coalescing window, not per file; the bound allows a very slow machine.
    assert!(
        changes.len() < 300,
        "{} change events for 3000 files",
        changes.len()
    );
}

#[test]
fn changes_while_loading_are_not_lost() {
    let tree = TempTree::new();
    let dir = tree.many_files("busy", "f", 5000, 0);
    let (dirs, events) = DirService::start();
    dirs.open(1, dir.clone(), SortSpec::default());
    // Race the listing: some of these land before it reads them, some after.
    for i in 0..200 {
        fs::remove_file(dir.join(format!("f{i}"))).unwrap();
        fs::write(dir.join(format!("g{i}")), "").unwrap();
    }
    let DirEvent::Loaded { listing, .. } = next(&events, 1) else {
        panic!()
    };
    if !matches_fresh(&listing, &dir) {
        changed_until(&events, 1, |l| matches_fresh(l, &dir));
    }
}

#[test]
fn resort_and_refresh_answer_with_changed() {
    let tree = TempTree::new();
    tree.file("s/small", "1");
    tree.file("s/large", "12345");
    tree.file("s/medium", "123");
    let dir = tree.join("s");
    let (dirs, events) = DirService::start();
    let shown = open(&dirs, &events, 1, &dir);
    let by_size = SortSpec {
        key: SortKey::Size,
        direction: Direction::Descending,
        folders_first: true,
    };
    dirs.resort(1, by_size);
    let (listing, order, change) = next_changed(&events, 1);
    assert!(change.is_empty());
    assert!(Arc::ptr_eq(&listing, &shown.listing));
    let sorted: Vec<_> = order
        .iter()
        .map(|&i| listing.entry(i as usize).name().to_owned())
        .collect();
    assert_eq!(sorted, ["large", "medium", "small"]);
    dirs.refresh(1);
    let (listing, order, change) = next_changed(&events, 1);
    assert!(change.rescanned);
    assert!(matches_fresh(&listing, &dir));
    assert_eq!(
        &order[..],
        &sort::sorted_order(&listing, by_size)[..],
        "keeps the view's sort"
    );
}

#[test]
fn a_deleted_folder_is_reported_gone_and_forgotten() {
    let tree = TempTree::new();
    tree.file("kept/doomed/inner", "");
    let dir = tree.join("kept/doomed");
    let (dirs, events) = DirService::start();
    let generation = dirs.open(1, dir.clone(), SortSpec::default());
    assert!(matches!(next(&events, 1), DirEvent::Loaded { .. }));
    fs::remove_dir_all(&dir).unwrap();
    loop {
        match next(&events, 1) {
            // The entry's removal may be seen first.
            DirEvent::Changed { .. } => {}
            DirEvent::Gone {
                path,
                generation: g,
                nearest,
                ..
            } => {
                assert_eq!((&path, g), (&dir, generation));
                assert_eq!(
                    nearest,
                    Some(tree.join("kept")),
                    "the nearest existing parent"
                );
                break;
            }
            other => panic!("expected Gone, got {other:?}"),
        }
    }
    let stats = dirs.stats();
    assert!(stats.paths.is_empty() && stats.watched == 0);
}

/// A folder renamed in its parent while shown: gone from its path, with its new place for the
/// view to follow (it went to the parent, with a notice that it was moved or deleted).
#[test]
fn a_folder_renamed_in_its_folder_is_reported_gone_with_its_new_place() {
    let tree = TempTree::new();
    tree.file("parent/moving/inner", "");
    let (parent, dir) = (tree.join("parent"), tree.join("parent/moving"));
    let (dirs, events) = DirService::start();
    // The parent is watched too: the rename shows there as an entry change.
    open(&dirs, &events, 1, &parent);
    open(&dirs, &events, 2, &dir);
    fs::rename(&dir, tree.join("parent/moved")).unwrap();
    // Both views hear of it, in either order.
    let (mut gone, mut parent_listing) = (false, None);
    let end = Instant::now() + DEADLINE;
    while !gone || parent_listing.is_none() {
        let left = end.saturating_duration_since(Instant::now());
        match events
            .recv_timeout(left)
            .expect("no event before the deadline")
        {
            DirEvent::Gone {
                view: 2,
                path,
                renamed,
                ..
            } if path == dir => {
                // Renamed in its folder: where it is now, for the view to follow.
                assert_eq!(renamed, Some(tree.join("parent/moved")));
                gone = true;
            }
            DirEvent::Changed {
                view: 1, listing, ..
            } if matches_fresh(&listing, &parent) => {
                parent_listing = Some(listing);
            }
            DirEvent::Changed { view: 1, .. } => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(names(&parent_listing.unwrap()), ["moved"]);
    // A refresh of the gone view tries again and fails cleanly.
    dirs.refresh(2);
    assert!(matches!(next(&events, 2), DirEvent::Failed { error, .. } if error.is_not_found()));
}

#[test]
fn a_folder_reached_through_a_symlink_is_listed_and_watched() {
    let tree = TempTree::new();
    tree.file("real/one", "");
    let link = tree.symlink("link", "real");
    let (dirs, events) = DirService::start();
    let shown = open(&dirs, &events, 1, &link);
    assert_eq!(names(&shown.listing), ["one"]);
    tree.file("real/two", "");
    changed_until(&events, 1, |l| names(l) == ["one", "two"]);
}

/// A shown folder reached through a link whose target is changed (`ln -sfn release-2
/// current`): shown anew at the same path, where the view was sent to the parent, told the
/// folder was moved or deleted. Without a link, a folder renamed away with another made at
/// its path is still gone from it (what was shown moved).
#[test]
fn a_shown_folder_whose_path_leads_to_another_is_shown_anew() {
    let tree = TempTree::new();
    tree.file("release-1/a", "");
    tree.file("release-2/b", "");
    let link = tree.symlink("current", "release-1");
    let (dirs, events) = DirService::start();
    assert_eq!(names(&open(&dirs, &events, 1, &link).listing), ["a"]);
    fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink("release-2", &link).unwrap();
    changed_until(&events, 1, |l| names(l) == ["b"]);

    let again = tree.dir("again");
    tree.file("again/old", "");
    open(&dirs, &events, 2, &again);
    let aside = tree.dir("aside");
    // Renamed away first, so that the new folder cannot get the old one's inode number.
    fs::rename(&again, aside.join("again")).unwrap();
    tree.file("again/new", "");
    let moved = next(&events, 2);
    assert!(
        matches!(moved, DirEvent::Gone { .. }),
        "followed: {moved:?}"
    );
}

#[test]
fn failures_name_the_path() {
    let tree = TempTree::new();
    let file = tree.file("file", "");
    let missing = tree.join("missing");
    let (dirs, events) = DirService::start();
    for (path, not_found) in [(&missing, true), (&file, false)] {
        let generation = dirs.open(1, path.clone(), SortSpec::default());
        match next(&events, 1) {
            DirEvent::Failed {
                path: p,
                generation: g,
                error,
                ..
            } => {
                assert_eq!((&p, g), (path, generation));
                assert_eq!(error.path(), Some(path.as_path()));
                assert_eq!(error.is_not_found(), not_found);
            }
            other => panic!("expected Failed, got {other:?}"),
        }
    }
    assert_eq!(dirs.stats().watched, 0, "no watch is left behind");
}

#[test]
fn a_view_that_moves_on_gets_only_its_new_generation() {
    let tree = TempTree::new();
    tree.many_files("slow", "f", 5000, 0);
    tree.file("fast/x", "");
    let (dirs, events) = DirService::start();
    let old = dirs.open(1, tree.join("slow"), SortSpec::default());
    let new = dirs.open(1, tree.join("fast"), SortSpec::default());
    assert_ne!(old, new);
    // Batches of the old generation may already be on their way; the completed listing is the
    // new folder's, with the new generation.
    let DirEvent::Loaded {
        generation,
        listing,
        ..
    } = next(&events, 1)
    else {
        panic!()
    };
    assert_eq!(
        (generation, names(&listing)),
        (new, vec![OsString::from("x")])
    );
}

#[test]
fn dropping_the_service_stops_its_thread() {
    let tree = TempTree::new();
    tree.file("d/f", "");
    let (dirs, events) = DirService::start();
    open(&dirs, &events, 1, &tree.join("d"));
    drop(dirs);
    // Every sender is gone once the thread has ended: the channel disconnects.
    let end = Instant::now() + DEADLINE;
    loop {
        match events.recv_timeout(end.saturating_duration_since(Instant::now())) {
            Ok(_) => {}
            Err(e) => {
                assert!(e.is_disconnected(), "the service thread did not stop");
                break;
            }
        }
    }
}

/// A disk mounted on the folder shown, then unmounted: the view follows each time and stays
/// current (inotify says nothing of mounts: the view kept the covered folder's names and
/// watched it, and a file made on the mounted disk never appeared); a folder shown inside the
/// mounted disk is gone once it is unmounted.
#[test]
fn a_mount_on_the_shown_folder_is_followed_and_watched() {
    let tree = TempTree::new();
    tree.file("mnt/under", "covered");
    let mnt = tree.join("mnt");
    let (dirs, events) = DirService::start();
    open(&dirs, &events, 1, &mnt);
    let Some(mounted) = crate::jobs_support::Mounted::tmpfs(&mnt, "1m") else {
        return;
    };
    fs::create_dir(mnt.join("inner")).unwrap();
    let (listing, _) = changed_until(&events, 1, |l| names(l) == ["inner"]);
    assert!(matches_fresh(&listing, &mnt));
    fs::write(mnt.join("new"), "on the disk").unwrap();
    changed_until(&events, 1, |l| names(l) == ["inner", "new"]);
    open(&dirs, &events, 2, &mnt.join("inner"));
    drop(mounted);
    // The two views hear of it in either order.
    let (mut covered, mut gone) = (false, false);
    let end = Instant::now() + DEADLINE;
    while !(covered && gone) {
        let left = end.saturating_duration_since(Instant::now());
        match events
            .recv_timeout(left)
            .expect("no event before the deadline")
        {
            DirEvent::Changed {
                view: 1, listing, ..
            } => covered = names(&listing) == ["under"],
            DirEvent::Gone {
                view: 2, nearest, ..
            } => {
                assert_eq!(nearest.as_deref(), Some(mnt.as_path()));
                gone = true;
            }
            _ => {}
        }
    }
}

/// A FUSE file system that stops answering holds only its own folders: other folders still
/// open, and the service still shuts down at once. (Its one thread looked the path up to
/// watch it, and every folder of the window waited with it, quitting too.) Its folders are
/// still watched once listed.
#[test]
fn a_file_system_that_stops_answering_holds_no_other_folder() {
    let t = TempTree::new();
    t.file("backing/seen/a", "a");
    t.file("backing/fresh/b", "b");
    t.file("local/c", "c");
    let Some(fuse) = crate::jobs_support::StoppableFuse::mount(&t.join("backing"), &t.join("view"))
    else {
        return;
    };
    let (dirs, events) = DirService::start();
    open(&dirs, &events, 1, &fuse.dir.join("seen"));
    // Watched once listed: a change made here shows.
    fs::write(fuse.dir.join("seen/new"), "n").unwrap();
    let (listing, _, _) = next_changed(&events, 1);
    assert_eq!(listing.len(), 2);
    fuse.signal("-STOP");
    // Never looked up: only its server could answer.
    dirs.open(2, fuse.dir.join("fresh"), SortSpec::default());
    dirs.refresh(1);
    let local = open(&dirs, &events, 3, &t.join("local"));
    assert_eq!(names(&local.listing), ["c"]);
    let started = Instant::now();
    drop(dirs);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the quit waited"
    );
}

/// Run as user 65534 by [`a_folder_made_unreadable_while_shown_says_so`]: shows the folder
/// `shown` in `FERRY_UNREADABLE_DIR`, makes the file `ready` there, and prints what the
/// service sends next.
#[test]
#[ignore = "run by a_folder_made_unreadable_while_shown_says_so, as another user"]
fn a_folder_shown_as_another_user() {
    let Some(dir) = std::env::var_os("FERRY_UNREADABLE_DIR").map(PathBuf::from) else {
        return;
    };
    let (dirs, events) = DirService::start();
    let shown = open(&dirs, &events, 1, &dir.join("shown"));
    assert_eq!(names(&shown.listing), ["s1", "s2"]);
    fs::write(dir.join("ready"), "").unwrap();
    let said = match next(&events, 1) {
        DirEvent::Failed { error, .. } => format!("failed: {error}"),
        other => format!("{other:?}"),
    };
    println!("NEXT EVENT {said}");
}

/// A folder made unreadable while shown (`chmod 000` by its owner or root): the view gets the
/// error, where it went on showing the files as they were until something in it changed.
#[test]
fn a_folder_made_unreadable_while_shown_says_so() {
    use std::os::unix::fs::PermissionsExt;
    let tree = TempTree::new();
    fs::set_permissions(tree.path(), fs::Permissions::from_mode(0o777)).unwrap();
    let shown = tree.dir("shown");
    tree.file("shown/s1", "");
    tree.file("shown/s2", "");
    for path in [&shown, &tree.join("shown/s1"), &tree.join("shown/s2")] {
        std::os::unix::fs::chown(path, Some(65534), Some(65534)).unwrap();
    }
    let child = std::process::Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "dirs::a_folder_shown_as_another_user",
            "--ignored",
        ])
        .args(["--nocapture", "--test-threads=1"])
        .env("FERRY_UNREADABLE_DIR", tree.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let end = Instant::now() + DEADLINE;
    while !tree.join("ready").exists() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
    }
    fs::set_permissions(&shown, fs::Permissions::from_mode(0o000)).unwrap();
    let out = child.wait_with_output().unwrap();
    fs::set_permissions(&shown, fs::Permissions::from_mode(0o755)).unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("NEXT EVENT failed:") && said.contains("Permission denied"),
        "{said}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
