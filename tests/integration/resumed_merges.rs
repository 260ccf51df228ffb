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

/// A move into a folder of its name already holding an identical twin of one of its files
/// (same bytes and time, as `cp -a` leaves), killed, then resumed: the twin is a place taken,
/// as when the move was not killed. The resume took it for the killed run's copy: with Skip
/// it removed the source the job was told to keep, and the undo then carried the user's twin
/// off to the source; with Keep Both across file systems it removed every source whose twin
/// was there, and made no "(copy)".
#[test]
fn a_resumed_move_leaves_the_source_of_a_twin_that_was_there_before() {
    let shm = TempTree::new_in("/dev/shm");
    for (across, policy) in [(false, "skip"), (true, "skip"), (true, "keep-both")] {
        let t = TempTree::new();
        let home = t.dir("home");
        let src = match across {
            true => shm.dir(format!("{policy}/S")),
            false => t.dir("src/S"),
        };
        for k in 0..6 {
            fs::write(src.join(format!("f{k}")), format!("file {k}")).unwrap();
            fs::write(src.join(format!("new{k}")), format!("new {k}")).unwrap();
        }
        let dst = t.dir("dst");
        fs::create_dir(dst.join("S")).unwrap();
        for k in 0..6 {
            let twin = dst.join(format!("S/f{k}"));
            fs::copy(src.join(format!("f{k}")), &twin).unwrap();
            let mtime = fs::metadata(src.join(format!("f{k}")))
                .unwrap()
                .modified()
                .unwrap();
            fs::File::options()
                .write(true)
                .open(&twin)
                .unwrap()
                .set_modified(mtime)
                .unwrap();
        }
        let (before_src, before_dst) = (files(&src), files(&dst.join("S")));
        let twins_sources: BTreeMap<String, String> = (before_src.clone().into_iter())
            .filter(|(name, _)| name.starts_with('f'))
            .collect();
        // File times tick coarsely: the twins are made a tick before the job starts.
        std::thread::sleep(std::time::Duration::from_millis(30));
        let step = if across { "file-written:2" } else { "renamed" };
        let killed = ferry_in(&home)
            .env("FERRY_FAULT_POINT", step)
            .args(["mv", "--on-conflict", policy])
            .arg(&src)
            .arg(&dst)
            .output()
            .unwrap();
        assert_eq!(killed.status.signal(), Some(9), "{policy}: killed");
        ok(&ferry_in(&home).arg("resume").output().unwrap());
        match policy {
            "skip" => assert_eq!(
                files(&src),
                twins_sources,
                "{policy}: the twins' sources stay"
            ),
            _ => assert_eq!(files(&dst.join("S (copy)")), before_src, "{policy}"),
        }
        let twins: BTreeMap<String, String> = (files(&dst.join("S")).into_iter())
            .filter(|(name, _)| name.starts_with('f'))
            .collect();
        assert_eq!(twins, before_dst, "{policy}: the twins stay");
        ok(&ferry_in(&home).arg("undo").output().unwrap());
        assert_eq!(files(&src), before_src, "{policy}: undone");
        assert_eq!(
            files(&dst.join("S")),
            before_dst,
            "{policy}: the twins stay"
        );
        assert!(!dst.join("S (copy)").exists(), "{policy}");
    }
}
