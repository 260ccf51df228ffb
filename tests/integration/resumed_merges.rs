//! The undo of a move into a folder of the same name, killed, then resumed: the resumed
//! run's record lists only what it did, so the undo compares places, and the source folder,
//! emptied and removed by the move, is gone. It took the merged folder for one the move had
//! carried there whole: the user's own files in it went to the source, and with Replace the
//! items replaced could not be put back (kept in the staging folder under hashed names,
//! pruned after a week).

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;

use ferry_tests::TempTree;

use crate::ferry_in;
use crate::undo::ok;

/// Each file below `dir` and its content.
fn files(dir: &Path) -> BTreeMap<String, String> {
    let mut found = BTreeMap::new();
    for entry in fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        found.insert(name, fs::read_to_string(entry.path()).unwrap());
    }
    found
}

#[test]
fn the_undo_of_a_resumed_move_into_a_folder_of_its_name_takes_back_only_what_it_moved() {
    let shm = TempTree::new_in("/dev/shm");
    for (across, replace) in [(false, false), (false, true), (true, false), (true, true)] {
        let t = TempTree::new();
        let home = t.dir("home");
        let src_root = if across {
            shm.dir(format!("{replace}"))
        } else {
            t.dir("src")
        };
        let (src, dst) = (src_root.join("S"), t.dir("dst"));
        let mut moved = BTreeMap::new();
        for k in 0..12 {
            let name = format!("f{k:02}");
            fs::create_dir_all(&src).unwrap();
            fs::write(src.join(&name), format!("new {k}")).unwrap();
            moved.insert(name, format!("new {k}"));
        }
        // A folder only the source has: made by the move, it goes with the undo.
        fs::create_dir_all(src.join("only")).unwrap();
        fs::write(src.join("only/x"), "x").unwrap();
        let mut theirs = BTreeMap::new();
        for k in 0..3 {
            theirs.insert(format!("keep{k}"), format!("mine {k}"));
        }
        if replace {
            for k in 0..12 {
                theirs.insert(format!("f{k:02}"), format!("old {k}"));
            }
        }
        fs::create_dir_all(dst.join("S")).unwrap();
        for (name, content) in &theirs {
            fs::write(dst.join("S").join(name), content).unwrap();
        }
        // Written just before the job, the user's files could pass for changed by it (the
        // clock file times are stamped by lags the precise one by a tick).
        std::thread::sleep(std::time::Duration::from_millis(100));
        let fault = if across {
            "source-checked:4"
        } else {
            "renamed:5"
        };
        let policy = if replace { "replace" } else { "skip" };
        let out = ferry_in(&home)
            .env("FERRY_FAULT_POINT", fault)
            .args(["mv", "--on-conflict", policy])
            .arg(&src)
            .arg(&dst)
            .output()
            .unwrap();
        let case = format!("across: {across}, replace: {replace}");
        assert_eq!(out.status.signal(), Some(9), "{case}: {out:?}");
        ok(&ferry_in(&home).arg("resume").output().unwrap());
        assert!(!src.exists(), "{case}: the move finished");
        ok(&ferry_in(&home).arg("undo").output().unwrap());
        assert_eq!(fs::read(src.join("only/x")).unwrap(), b"x", "{case}");
        fs::remove_dir_all(src.join("only")).unwrap();
        assert_eq!(files(&src), moved, "{case}");
        assert_eq!(files(&dst.join("S")), theirs, "{case}");
    }
}

/// The source folders a move merged into folders of their names come back with their own
/// modes when it is undone (whole, or killed, resumed, then undone): they came back 0755, a
/// private folder open to others.
#[test]
fn the_undo_of_a_merge_gives_the_source_folders_their_modes() {
    use std::os::unix::fs::PermissionsExt;
    let shm = TempTree::new_in("/dev/shm");
    for (across, killed) in [(false, false), (true, false), (true, true)] {
        let t = TempTree::new();
        let home = t.dir("home");
        let root = if across {
            shm.dir(format!("{killed}"))
        } else {
            t.dir("src")
        };
        let src = root.join("N");
        for k in 0..6 {
            t.file(src.join(format!("sub/f{k}")), "f");
        }
        let dst = t.dir("dst");
        fs::create_dir_all(dst.join("N/sub")).unwrap();
        let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        fs::set_permissions(&src, fs::Permissions::from_mode(0o750)).unwrap();
        fs::set_permissions(src.join("sub"), fs::Permissions::from_mode(0o711)).unwrap();
        let mut mv = ferry_in(&home);
        if killed {
            mv.env("FERRY_FAULT_POINT", "source-checked:3");
        }
        let out = mv.arg("mv").arg(&src).arg(&dst).output().unwrap();
        if killed {
            assert_eq!(out.status.signal(), Some(9), "{out:?}");
            ok(&ferry_in(&home).arg("resume").output().unwrap());
        } else {
            ok(&out);
        }
        assert!(!src.exists());
        ok(&ferry_in(&home).arg("undo").output().unwrap());
        let case = format!("across: {across}, killed: {killed}");
        assert_eq!(mode(&src), 0o750, "{case}");
        assert_eq!(mode(&src.join("sub")), 0o711, "{case}");
        assert_eq!(fs::read_dir(src.join("sub")).unwrap().count(), 6, "{case}");
    }
}
