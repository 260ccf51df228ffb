//! Undo of a Replace: the old item kept in the staging folder (the data folder's, or one on
//! the destination's own file system), put back byte for byte; beside a replacement edited
//! since; left for the next try when the undo fails; and reported gone once pruned.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use ferry_core::Error;
use ferry_core::jobs::{ConflictPolicy, Job, Pruned, staging_folder_name};
use ferry_tests::TempTree;

use crate::ferry_in;
use crate::undo::{Setup, ok};

#[test]
fn undo_of_a_replace_gives_back_the_old_file_byte_for_byte() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let new = t.file("src/doc.bin", "the new version");
    let old_bytes: Vec<u8> = (0..70_000u32).map(|i| (i % 251) as u8).collect();
    let old = t.file("dest/doc.bin", &old_bytes);
    let out = s.replace_in_dest(&t, new);
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(fs::read(&old).unwrap(), b"the new version");
    // On the data folder's file system, the old file is kept there, in a private folder.
    let staged = out.summary.record.entries().find_map(|e| e.staged).unwrap();
    assert_eq!(staged.parent(), Some(s.staging.as_path()));
    let mode = fs::symlink_metadata(&s.staging)
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o700);
    let out = s.undo();
    assert!(out.summary.failed.is_empty(), "{:#?}", out.summary);
    assert_eq!(fs::read(&old).unwrap(), old_bytes);
    assert_eq!(
        s.trashed(),
        ["doc.bin"],
        "the replacement went to the trash"
    );
}

/// The replacement was edited since: undo keeps it, and what it replaced comes back beside it
/// instead of staying out of reach in the staging folder with the job marked undone.
#[test]
fn undo_of_a_replace_edited_since_puts_the_old_file_back_beside_it() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let old = s.replaced_doc(&t);
    fs::write(&old, "the new version, edited").unwrap();
    let out = s.undo();
    assert_eq!(fs::read(&old).unwrap(), b"the new version, edited");
    let beside = t.join("dest/doc (copy).bin");
    assert_eq!(fs::read(&beside).unwrap(), b"the old version");
    let errors: Vec<String> = out
        .summary
        .failed
        .iter()
        .map(|f| f.error.to_string())
        .collect();
    let said =
        |wanted: &dyn Fn(&Error) -> bool| out.summary.failed.iter().any(|f| wanted(&f.error));
    assert!(
        said(&|e| matches!(e, Error::ChangedSince { path } if *path == old)),
        "{errors:?}"
    );
    assert!(
        said(&|e| matches!(e, Error::PutBackBeside { path, .. } if *path == beside)),
        "{errors:?}"
    );
    assert_eq!(out.summary.failed.len(), 2, "{errors:?}");
    assert!(ferry_core::jobs::undo_complete(&out.summary), "{errors:?}");
    assert_eq!(
        fs::read_dir(&s.staging).unwrap().count(),
        0,
        "nothing left staged"
    );
}

/// An undo that could not take the replacement away (no trash to put it in) leaves what it
/// replaced in staging, and the undo tried again puts it back in its own place.
#[test]
fn undo_of_a_replace_that_failed_leaves_the_old_file_for_the_next_try() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let old = s.replaced_doc(&t);
    // The trash cannot be made where a file has its name.
    fs::create_dir_all(t.join("data")).unwrap();
    fs::write(t.join("data/Trash"), "in the way").unwrap();
    let (_, out) = s.undo_unmarked();
    assert!(
        !ferry_core::jobs::undo_complete(&out.summary),
        "the trash failed"
    );
    assert_eq!(fs::read(&old).unwrap(), b"the new version");
    assert!(
        !t.join("dest/doc (copy).bin").exists(),
        "nothing put beside"
    );
    fs::remove_file(t.join("data/Trash")).unwrap();
    let out = s.undo();
    assert!(out.summary.failed.is_empty(), "{:#?}", out.summary);
    assert_eq!(fs::read(&old).unwrap(), b"the old version");
}

#[test]
fn a_replace_on_another_file_system_keeps_the_old_file_on_it() {
    let shm = TempTree::new_in("/dev/shm");
    let t = TempTree::new();
    let s = Setup::new(&t);
    let new = t.file("src/doc.txt", "new");
    let old = shm.file("dest/doc.txt", "old");
    let out = s.run(Job::Copy {
        sources: vec![new],
        dest_dir: shm.join("dest"),
        dest_name: None,
        on_conflict: ConflictPolicy::Replace,
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    // Not in the data folder (a copy, not a rename, would be needed), nor at /dev/shm's root
    // (volumes are off): in the destination folder.
    let staged = out.summary.record.entries().find_map(|e| e.staged).unwrap();
    assert_eq!(
        staged.parent(),
        Some(shm.join("dest").join(staging_folder_name()).as_path())
    );
    assert!(!s.staging.exists());
    assert_eq!(fs::read(&staged).unwrap(), b"old");
    assert_eq!(fs::read(&old).unwrap(), b"new");
}

#[test]
fn pruning_bounds_staging_and_undo_then_reports_the_old_file_gone() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let new = t.file("src/doc.txt", "new");
    let old = t.file("dest/doc.txt", "old");
    let out = s.replace_in_dest(&t, new);
    let staged = out.summary.record.entries().find_map(|e| e.staged).unwrap();
    // Within the bounds: nothing goes.
    let week = Duration::from_secs(7 * 86_400);
    assert_eq!(
        s.journal.prune_staging(week, 1 << 30).unwrap(),
        Pruned::default()
    );
    assert!(staged.exists());
    // Over the size bound, but just staged: kept (it may be undone right now).
    assert_eq!(s.journal.prune_staging(week, 0).unwrap(), Pruned::default());
    assert!(staged.exists());
    // With no age bound it goes.
    let pruned = s.journal.prune_staging(Duration::ZERO, 0).unwrap();
    assert_eq!(pruned, Pruned { items: 1, bytes: 3 });
    assert!(!staged.exists());
    let out = s.undo();
    assert_eq!(out.summary.failed.len(), 1, "{:#?}", out.summary);
    assert_eq!(out.summary.failed[0].path, old);
    let error = &out.summary.failed[0].error;
    assert!(
        matches!(&**error, Error::ReplacedGone { path, staged: gone }
            if *path == old && *gone == staged),
        "{:#?}",
        out.summary
    );
    assert!(error.to_string().contains("is kept"), "{error}");
    // Trashing the replacement would leave neither: it stays.
    assert_eq!(fs::read(&old).unwrap(), b"new");
    assert!(s.trashed().is_empty(), "{:?}", s.trashed());
    // Listed as undone with that item not undone (history said plain "undone").
    let records = s.journal.records().unwrap();
    assert_eq!(records.last().unwrap().undone_left, 1);
}

#[test]
fn the_cli_keeps_replaced_files_in_its_data_folder_and_undo_puts_them_back() {
    let t = TempTree::new();
    let home = t.dir("home");
    let src = t.file("src/a.txt", "new");
    let old = t.file("dest/a.txt", "old");
    ok(&ferry_in(&home)
        .args(["cp", "--on-conflict", "replace"])
        .arg(&src)
        .arg(t.join("dest"))
        .output()
        .unwrap());
    assert_eq!(fs::read(&old).unwrap(), b"new");
    let kept = home.join("data/ferry/replaced");
    assert_eq!(fs::read_dir(&kept).unwrap().count(), 1);
    assert!(!t.join("dest").join(staging_folder_name()).exists());
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_eq!(fs::read(&old).unwrap(), b"old");
    assert_eq!(fs::read_dir(&kept).unwrap().count(), 0);
}

/// Replaced on a disk of its own (a USB stick), the old file is kept in `.ferry-replaced-<uid>`
/// at its root; once the undo has put it back, that folder, empty, goes too: it was left
/// among the user's files.
#[test]
fn undo_of_a_replace_on_another_disk_leaves_no_empty_staging_folder() {
    let t = TempTree::new();
    let mut s = Setup::new(&t);
    let Some(stick) = crate::jobs_support::Mounted::new(
        &t.join("stick"),
        &["-t", "tmpfs", "-o", "size=4m", "tmpfs"],
    ) else {
        return;
    };
    s.trash.volumes = ferry_core::jobs::Volumes::Only(vec![stick.dir.clone()]);
    let old = stick.dir.join("doc.txt");
    fs::write(&old, "old").unwrap();
    let new = t.file("src/doc.txt", "new");
    let out = s.run(Job::Copy {
        sources: vec![new],
        dest_dir: stick.dir.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Replace,
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    let staging = stick.dir.join(ferry_core::jobs::staging_folder_name());
    assert!(staging.is_dir(), "kept at the disk's root");
    let out = s.undo();
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(fs::read(&old).unwrap(), b"old");
    assert!(!staging.exists(), "the empty staging folder stayed");
}

/// Another program takes the name while a Replace has the old file staged and the new one not
/// yet in place: the old file comes back beside it, under a keep-both name, and the job says
/// so. It was left in the staging folder, named by no record (no undo could bring it back),
/// and pruned a week later.
#[test]
fn a_name_taken_while_the_old_file_is_staged_gets_the_old_file_back_beside_it() {
    let t = TempTree::new();
    let home = t.dir("home");
    t.file("src/doc.txt", "new");
    t.file("dest/doc.txt", "the user's old file");
    let pause = crate::faults::Pause::at("replace-staged");
    let mut copy = crate::ferry_in(&home);
    copy.args(["cp", "--on-conflict", "replace"])
        .arg(t.join("src/doc.txt"))
        .arg(t.join("dest"));
    let held = pause.start_held(&mut copy);
    fs::write(t.join("dest/doc.txt"), "another program's").unwrap();
    pause.release(held.id());
    let out = held.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("is back beside it"), "{stderr}");
    assert_eq!(
        fs::read(t.join("dest/doc.txt")).unwrap(),
        b"another program's"
    );
    let back = t.join("dest/doc (copy).txt");
    assert_eq!(fs::read(back).unwrap(), b"the user's old file");
}
