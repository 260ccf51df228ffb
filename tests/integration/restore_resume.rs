//! A restore across file systems killed part way: `ferry resume` finishes it with every
//! folder as it was trashed, and `ferry undo` rolls it back and says what it did.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, UNIX_EPOCH};

use ferry_tests::TempTree;

use crate::ferry_in;
use crate::jobs_support::{assert_no_temporaries, snapshot};
use crate::undo::ok;

/// Trashes `t/src/docs` (folders of their own modes and times, 30 files) from the work tree,
/// then kills its restore into tmpfs (`--to`) once a few files are copied. Folders are made
/// in the open, as for trees too large to fill hidden (`fresh.rs`).
fn a_restore_killed_part_way(t: &TempTree, shm: &TempTree, home: &Path) {
    for i in 0..30 {
        let dir = ["docs", "docs/sub", "docs/sub/deep"][i % 3];
        t.file(format!("src/{dir}/f{i:02}"), vec![b'a' + i as u8; 10 << 10]);
    }
    let folders = [
        ("docs", 0o750, 1_600_000_000),
        ("docs/sub", 0o705, 1_600_000_100),
        ("docs/sub/deep", 0o700, 1_600_000_200),
    ];
    for (dir, mode, secs) in folders.into_iter().rev() {
        let dir = t.join("src").join(dir);
        let time = UNIX_EPOCH + Duration::from_secs(secs);
        fs::File::open(&dir).unwrap().set_modified(time).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(mode)).unwrap();
    }
    let mut restore = ferry_in(home);
    restore.env("FERRY_FAULT_OFF", "hidden-folders");
    trash_then_kill_its_restore(
        (home, restore),
        "item-done:5",
        &t.join("src/docs"),
        shm.path(),
    );
    assert!(shm.join("docs/sub").is_dir(), "killed part way");
}

/// Trashes `docs` with the home `home`, then restores it into `to` with `restore` (a `ferry`
/// command in that home), killed at the fault point `at`.
fn trash_then_kill_its_restore(
    (home, mut restore): (&Path, Command),
    at: &str,
    docs: &Path,
    to: &Path,
) {
    ok(&ferry_in(home).arg("trash").arg(docs).output().unwrap());
    let killed = (restore
        .env("FERRY_FAULT_POINT", at)
        .arg("restore")
        .arg(docs))
    .arg("--to")
    .arg(to)
    .output()
    .unwrap();
    assert_eq!(killed.status.code(), None, "the restore was killed");
}

/// Resumed, the restore gives the folders it made their modes and times. They kept 0700
/// and the time of the resume: the resume merged into the folders the killed run had made,
/// and a merge leaves a folder that is there as it is.
#[test]
fn a_resumed_restore_across_file_systems_gives_its_folders_their_modes_and_times() {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    a_restore_killed_part_way(&t, &shm, &home);
    let resumed = ferry_in(&home).arg("resume").output().unwrap();
    let said = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(0), "{said}");
    let restored = snapshot(shm.path());
    assert_eq!(restored.len(), 33, "{said}");
    for (dir, mode, secs) in [
        ("docs", 0o750, 1_600_000_000),
        ("docs/sub", 0o705, 1_600_000_100),
        ("docs/sub/deep", 0o700, 1_600_000_200),
    ] {
        let meta = fs::symlink_metadata(shm.join(dir)).unwrap();
        assert_eq!(meta.permissions().mode() & 0o7777, mode, "{dir}");
        let mtime = meta.modified().unwrap();
        assert_eq!(mtime, UNIX_EPOCH + Duration::from_secs(secs), "{dir}");
    }
    assert_no_temporaries(shm.path());
}

/// Undone, the killed restore's part copy goes and the folder stays whole in the trash;
/// the undo says it undid it. It said "nothing of it was undone" after removing the copy.
#[test]
fn the_undo_of_a_killed_restore_across_file_systems_says_what_it_did() {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    a_restore_killed_part_way(&t, &shm, &home);
    let undo = ferry_in(&home).arg("undo").output().unwrap();
    let said = String::from_utf8_lossy(&undo.stderr);
    assert_eq!(undo.status.code(), Some(0), "{said}");
    assert!(!said.contains("nothing of it was undone"), "{said}");
    assert!(snapshot(shm.path()).is_empty(), "{said}");
    let listed = ok(&ferry_in(&home).arg("restore").output().unwrap());
    assert!(
        listed.contains(&*t.join("src/docs").to_string_lossy()),
        "{listed}"
    );
    let history = ok(&ferry_in(&home).arg("history").output().unwrap());
    assert!(history.contains("undone"), "{history}");
}

/// The entries below `root` named `.ferry-moving-…` (set aside by a move to be removed).
fn set_aside_below(root: &Path) -> Vec<String> {
    (snapshot(root).into_keys())
        .map(|rel| rel.to_string_lossy().into_owned())
        .filter(|rel| rel.contains(".ferry-moving-"))
        .collect()
}

/// Killed while it removed the trashed copies of what it had restored (each renamed aside in
/// the trash, checked, then unlinked), then resumed: nothing set aside is restored under its
/// hidden name. The resume carried such files over beside their own, the start having put
/// back only what a move set aside; the undo then trashed them as items of their own.
#[test]
fn a_restore_killed_while_removing_its_trashed_copies_resumes_and_undoes_whole() {
    killed_removing_then_resumed_and_undone("source-checked:4", false);
}

/// The same, killed once a file right in the folder had left the trash: that moved the
/// trashed folder's time, which the resume gave the restored one, and the record of the
/// restore kept the trashed folder's identity; its undo then said it "has changed since;
/// kept", and called it undone.
#[test]
fn a_restore_killed_once_a_file_of_its_top_folder_left_the_trash_undoes_whole() {
    killed_removing_then_resumed_and_undone("source-checked:20", true);
}

/// Restores `docs` (30 files in three folders, and with `big` a 2 MB file beside them) from
/// the trash to tmpfs, killed at the fault point `at`; resumes it, then undoes it.
fn killed_removing_then_resumed_and_undone(at: &str, big: bool) {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    for i in 0..30 {
        t.file(
            format!("src/docs/d{}/f{i:02}", i % 3),
            vec![b'a' + i as u8; 1000],
        );
    }
    if big {
        t.file("src/docs/big", vec![7; 2 << 20]);
    }
    let docs = t.join("src/docs");
    let restore = (home.as_path(), ferry_in(&home));
    trash_then_kill_its_restore(restore, at, &docs, shm.path());
    let resumed = ferry_in(&home).arg("resume").output().unwrap();
    let said = String::from_utf8_lossy(&resumed.stderr);
    assert_eq!(resumed.status.code(), Some(0), "{said}");
    assert_eq!(set_aside_below(shm.path()), Vec::<String>::new(), "{said}");
    assert_eq!(set_aside_below(&home.join("data")), Vec::<String>::new());
    let restored = snapshot(shm.path());
    assert_eq!(restored.len(), 34 + usize::from(big), "{restored:?}");
    assert_eq!(
        fs::read(shm.join("docs/d1/f04")).unwrap(),
        vec![b'a' + 4; 1000]
    );

    // Undone, it goes to the trash whole, as an undone restore across file systems does:
    // into the trash of the disk it is on (as Nautilus trashes it again), restored from there.
    let undo = ferry_in(&home).arg("undo").output().unwrap();
    let said = String::from_utf8_lossy(&undo.stderr);
    assert_eq!(undo.status.code(), Some(0), "{said}");
    assert!(!said.contains("nothing of it"), "{said}");
    assert!(snapshot(shm.path()).is_empty(), "{said}");
    let history = ok(&ferry_in(&home).arg("history").output().unwrap());
    assert!(history.contains("undone"), "{history}");
    ok(&ferry_in(&home)
        .arg("restore")
        .arg(shm.join("docs"))
        .output()
        .unwrap());
    assert_eq!(snapshot(shm.path()), restored);
}
