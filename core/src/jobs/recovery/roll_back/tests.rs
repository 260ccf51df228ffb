use super::*;
use crate::jobs::staging::StagingRoots;
use crate::jobs::{ErrorPolicy, JobId, control::Control};

/// Runs `rollback` as a job of a user whose home is `home`; nothing may fail.
fn run_without_failures(rollback: Rollback, home: &Path) {
    let (events, _) = crossbeam_channel::unbounded();
    let control = Arc::new(Control::new(ErrorPolicy::Skip));
    let staging = Arc::new(StagingRoots::home_only(home));
    let ctx = JobCtx::new(JobId(1), control, events, staging);
    let mut summary = Summary::default();
    let roots = TrashRoots::home_only(home.join("Trash"));
    rollback.run(&ctx, &mut summary, &roots);
    assert!(summary.failed.is_empty(), "{summary:?}");
}

/// Items going back to three folders, from another file system, by three moves: the
/// names of one file came back as separate files (a killed move, resumed, then undone).
#[test]
fn names_of_one_file_going_back_by_several_moves_stay_linked() {
    let home = tempfile::tempdir().unwrap();
    let shm = tempfile::tempdir_in("/dev/shm").unwrap();
    let there = shm.path();
    fs::create_dir_all(there.join("a/b")).unwrap();
    fs::write(there.join("a/b/mid"), "linked").unwrap();
    fs::hard_link(there.join("a/b/mid"), there.join("a/hl1")).unwrap();
    fs::hard_link(there.join("a/b/mid"), there.join("c_hl2")).unwrap();
    let back = home.path().join("src");
    let mut rollback = Rollback::default();
    for (to, item) in [("a/b", "a/b/mid"), ("a", "a/hl1"), ("", "c_hl2")] {
        let group = (back.join(to), None);
        rollback.back.insert(group, vec![there.join(item)]);
    }
    run_without_failures(rollback, home.path());
    let inode = |rel: &str| {
        let m = fs::symlink_metadata(back.join(rel)).unwrap();
        (m.ino(), m.nlink())
    };
    let (ino, links) = inode("a/b/mid");
    assert_eq!(links, 3);
    assert_eq!(inode("a/hl1"), (ino, 3));
    assert_eq!(inode("c_hl2"), (ino, 3));
}

/// A roll back of a move run again after a run of it was killed putting a tree back
/// from another file system: that run had made the tree's folders (0700 while being
/// filled) and put back one name of a file with two. The rest goes into those folders,
/// which then get the modes and times of the folders they were filled from, and the
/// other name is linked to the one back. They stayed 0700, and the names came back two
/// files.
#[test]
fn a_killed_runs_put_back_is_finished_with_modes_times_and_links() {
    use std::os::unix::fs::PermissionsExt;
    let start = SystemTime::now() - std::time::Duration::from_secs(1);
    let home = tempfile::tempdir().unwrap();
    let shm = tempfile::tempdir_in("/dev/shm").unwrap();
    let there = shm.path().join("top");
    fs::create_dir_all(there.join("a")).unwrap();
    fs::create_dir_all(there.join("b")).unwrap();
    fs::create_dir_all(there.join("c")).unwrap();
    fs::write(there.join("c/g"), "g").unwrap();
    fs::write(there.join("a/f"), "two names").unwrap();
    fs::hard_link(there.join("a/f"), there.join("b/other")).unwrap();
    let old = crate::fs::Timestamp {
        sec: 1_600_000_000,
        nsec: 0,
    };
    crate::fs::set_times_at(rustix::fs::CWD, there.join("a/f").as_os_str(), old, old).unwrap();
    for (dir, mode) in [("", 0o751), ("a", 0o750), ("b", 0o705), ("c", 0o711)] {
        let dir = there.join(dir);
        fs::set_permissions(&dir, fs::Permissions::from_mode(mode)).unwrap();
        crate::fs::set_times_at(rustix::fs::CWD, dir.as_os_str(), old, old).unwrap();
    }
    // What the killed run left: the folders made, one name put back.
    let back = home.path().join("top");
    for dir in ["", "a", "b"] {
        fs::create_dir_all(back.join(dir)).unwrap();
        fs::set_permissions(back.join(dir), fs::Permissions::from_mode(0o700)).unwrap();
    }
    fs::write(back.join("a/f"), "two names").unwrap();
    // One the user made there since, of its own mode, stays as the user made it.
    fs::create_dir(back.join("c")).unwrap();
    fs::set_permissions(back.join("c"), fs::Permissions::from_mode(0o755)).unwrap();
    crate::fs::set_times_at(rustix::fs::CWD, back.join("a/f").as_os_str(), old, old).unwrap();

    let mut rollback = Rollback {
        since: Some(start),
        after_killed_run: true,
        discard: true, // as a restore's: tmpfs has no trash here
        ..Rollback::default()
    };
    // All the job's: copies, and what is still to go back.
    assert!(rollback.walk(&back, &there, true, true).unwrap());
    run_without_failures(rollback, home.path());
    let meta = |rel: &str| fs::symlink_metadata(back.join(rel)).unwrap();
    assert_eq!(meta("a/f").ino(), meta("b/other").ino());
    for (dir, mode) in [("", 0o751), ("a", 0o750), ("b", 0o705)] {
        let m = meta(dir);
        assert_eq!((m.mode() & 0o7777, m.mtime()), (mode, old.sec), "{dir:?}");
    }
    assert_eq!(meta("c").mode() & 0o7777, 0o755);
    assert!(meta("c/g").is_file());
}

/// The same when the killed run had put everything back but for removing it where the
/// job put it: that tree goes to the trash whole, before the folders back are finished,
/// so their modes and times are read first. They stayed 0700.
#[test]
fn a_killed_runs_put_back_is_finished_when_the_tree_there_goes_whole() {
    use std::os::unix::fs::PermissionsExt;
    let start = SystemTime::now() - std::time::Duration::from_secs(1);
    let (home, elsewhere) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let there = elsewhere.path().join("top");
    fs::create_dir_all(there.join("a")).unwrap();
    fs::write(there.join("a/f"), "f").unwrap();
    let old = crate::fs::Timestamp {
        sec: 1_600_000_000,
        nsec: 0,
    };
    let back = home.path().join("top");
    fs::create_dir_all(back.join("a")).unwrap();
    fs::copy(there.join("a/f"), back.join("a/f")).unwrap();
    for file in [there.join("a/f"), back.join("a/f")] {
        crate::fs::set_times_at(rustix::fs::CWD, file.as_os_str(), old, old).unwrap();
    }
    for (dir, mode) in [("", 0o751), ("a", 0o750)] {
        let dir = there.join(dir);
        fs::set_permissions(&dir, fs::Permissions::from_mode(mode)).unwrap();
        crate::fs::set_times_at(rustix::fs::CWD, dir.as_os_str(), old, old).unwrap();
        let back = back.join(dir.strip_prefix(&there).unwrap());
        fs::set_permissions(&back, fs::Permissions::from_mode(0o700)).unwrap();
    }
    let mut rollback = Rollback {
        since: Some(start),
        after_killed_run: true,
        ..Rollback::default()
    };
    assert!(
        rollback.walk(&back, &there, true, true).unwrap(),
        "all copies"
    );
    run_without_failures(rollback, home.path());
    assert!(!there.exists(), "went to the trash whole");
    for (dir, mode) in [("", 0o751), ("a", 0o750)] {
        let m = fs::symlink_metadata(back.join(dir)).unwrap();
        assert_eq!((m.mode() & 0o7777, m.mtime()), (mode, old.sec), "{dir:?}");
    }
}
