//! `ferry cp SRC DEST` and `ferry mv SRC DEST` where DEST is not a folder: the one source goes
//! to that path under its last name, as with `cp` and `mv`, and the job is journaled, undone,
//! resumed and rolled back under that name.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;

use ferry_tests::TempTree;

use crate::ferry_in;
use crate::undo::ok;

fn said(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_copy_or_move_to_a_path_that_is_not_a_folder_takes_its_name() {
    let t = TempTree::new();
    let home = t.dir("home");
    let a = t.file("w/a.txt", "alpha");
    t.file("w/tree/sub/f", "inside");
    let w = a.parent().unwrap();
    ok(&ferry_in(&home)
        .arg("cp")
        .arg(&a)
        .arg(w.join("b.txt"))
        .output()
        .unwrap());
    assert_eq!(fs::read(w.join("b.txt")).unwrap(), b"alpha");
    assert_eq!(fs::read(&a).unwrap(), b"alpha", "a copy leaves its source");
    ok(&ferry_in(&home)
        .arg("cp")
        .arg(w.join("tree"))
        .arg(w.join("copy"))
        .output()
        .unwrap());
    assert_eq!(fs::read(w.join("copy/sub/f")).unwrap(), b"inside");
    assert!(
        !w.join("copy/tree").exists(),
        "the folder's copy is named, not put inside"
    );

    // A rename in its own folder, relative paths as a shell gives them.
    let ino = fs::metadata(&a).unwrap().ino();
    let out = ferry_in(&home)
        .current_dir(w)
        .args(["mv", "a.txt", "renamed.txt"])
        .output();
    ok(&out.unwrap());
    assert!(!a.exists());
    assert_eq!(
        fs::metadata(w.join("renamed.txt")).unwrap().ino(),
        ino,
        "one rename"
    );

    // Across file systems where the machine has another: copied, then the source removed.
    let shm = TempTree::new_in("/dev/shm");
    if fs::metadata("/dev/shm").unwrap().dev() == fs::metadata(w).unwrap().dev() {
        eprintln!("note: /dev/shm is on the test tree's file system; no move across them");
        return;
    }
    let out = (ferry_in(&home).arg("mv").arg(w.join("tree")))
        .arg(shm.path().join("moved"))
        .output();
    ok(&out.unwrap());
    assert_eq!(fs::read(shm.path().join("moved/sub/f")).unwrap(), b"inside");
    assert!(!w.join("tree").exists());
}

#[test]
fn a_new_name_already_taken_is_a_conflict_and_undo_gives_it_back() {
    let t = TempTree::new();
    let home = t.dir("home");
    let a = t.file("w/a.txt", "new");
    let c = t.file("w/c.txt", "old");
    let w = a.parent().unwrap();
    let copy = |policy: &str| {
        ferry_in(&home)
            .args(["cp", "--on-conflict", policy])
            .arg(&a)
            .arg(&c)
            .output()
            .unwrap()
    };
    let skipped = copy("skip");
    ok(&skipped);
    let taken = format!("{}: {} already exists", a.display(), c.display());
    assert!(said(&skipped).contains(&taken), "{}", said(&skipped));
    assert_eq!(fs::read(&c).unwrap(), b"old", "skip keeps what is there");

    ok(&copy("replace"));
    assert_eq!(fs::read(&c).unwrap(), b"new");
    let history = ok(&ferry_in(&home)
        .args(["history", "-n", "1"])
        .output()
        .unwrap());
    assert!(
        history.contains(&format!("-> {}", c.display())),
        "{history}"
    );
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_eq!(
        fs::read(&c).unwrap(),
        b"old",
        "undo puts the replaced file back"
    );
    assert_eq!(fs::read(&a).unwrap(), b"new");

    ok(&copy("keep-both"));
    assert_eq!(fs::read(w.join("c (copy).txt")).unwrap(), b"new");
    assert_eq!(fs::read(&c).unwrap(), b"old");

    let moved = ferry_in(&home)
        .arg("mv")
        .arg(&a)
        .arg(w.join("d.txt"))
        .output();
    ok(&moved.unwrap());
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_eq!(
        fs::read(&a).unwrap(),
        b"new",
        "undo of the move brings back the old name"
    );
    assert!(!w.join("d.txt").exists());
    ok(&ferry_in(&home).arg("redo").output().unwrap());
    assert_eq!(
        fs::read(w.join("d.txt")).unwrap(),
        b"new",
        "and redo the new one"
    );
}

#[test]
fn a_path_that_is_neither_a_folder_nor_a_new_name_is_refused() {
    let t = TempTree::new();
    let home = t.dir("home");
    let a = t.file("w/a.txt", "a");
    let b = t.file("w/b.txt", "b");
    let w = a.parent().unwrap();
    let refused = |args: &[&Path], names: &Path| {
        let out = ferry_in(&home).arg("cp").args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", said(&out));
        let expected = format!("{}: not an existing folder", names.display());
        assert!(said(&out).contains(&expected), "{}", said(&out));
    };
    let new = w.join("new");
    refused(&[&a, &b, &new], &new); // two sources need a folder
    let deeper = w.join("missing/new.txt");
    refused(&[&a, &deeper], &w.join("missing"));
    let slash = Path::new("/nonexistent-ferry/").join("x/");
    refused(&[&a, &slash], &slash); // `x/` names a folder
    assert_eq!(fs::read_dir(w).unwrap().count(), 2, "nothing written");
}

/// `cp -r SRC/. NEW`, NEW not there yet, makes NEW a copy of SRC (its contents, nothing
/// around them), from any spelling of SRC, as `cp -r SRC NEW/` does; into an existing folder,
/// SRC's items go into it.
#[test]
fn the_contents_of_a_folder_copied_to_a_new_path_make_that_folder() {
    let t = TempTree::new();
    let home = t.dir("home");
    t.file("w/photos/a.jpg", "a");
    t.file("w/photos/sub/b.jpg", "b");
    let w = t.path().join("w");
    for (from, source, to) in [
        (w.clone(), "photos/.", "backup"),
        (w.clone(), "photos/./", "backup2"),
        (w.join("photos"), ".", "../backup3"),
        // A new folder's path may end in `/` (refused before, as for a file).
        (w.clone(), "photos/.", "backup4/"),
        (w.clone(), "photos", "backup5/"),
    ] {
        let out = ferry_in(&home)
            .current_dir(&from)
            .args(["cp", source, to])
            .output()
            .unwrap();
        ok(&out);
        let made = from.join(to);
        assert_eq!(fs::read(made.join("a.jpg")).unwrap(), b"a", "{source} {to}");
        assert_eq!(fs::read(made.join("sub/b.jpg")).unwrap(), b"b");
        assert!(
            !made.join("photos").exists(),
            "{source} {to}: contents only"
        );
    }
    // Into a folder that exists, the items go in, as before.
    t.dir("w/existing");
    ok(&ferry_in(&home)
        .current_dir(&w)
        .args(["cp", "photos/.", "existing"])
        .output()
        .unwrap());
    assert_eq!(fs::read(w.join("existing/sub/b.jpg")).unwrap(), b"b");
    assert!(!w.join("existing/photos").exists());
    assert_eq!(
        fs::read_dir(w.join("photos")).unwrap().count(),
        2,
        "source kept"
    );
    // Into itself: refused for that item, nothing made.
    let out = ferry_in(&home)
        .current_dir(w.join("photos"))
        .args(["cp", ".", "inner"])
        .output()
        .unwrap();
    assert_ne!(out.status.code(), Some(0), "{}", said(&out));
    assert!(!w.join("photos/inner").exists());
}

/// A path that is the source itself, or another name of it, is refused as `cp` refuses it,
/// where a paste into the file's own folder (`ferry cp a.txt .`) makes a duplicate.
#[test]
fn a_new_name_that_is_the_file_itself_is_refused() {
    let t = TempTree::new();
    let home = t.dir("home");
    let a = t.file("w/a.txt", "a");
    let w = a.parent().unwrap();
    fs::hard_link(&a, w.join("h.txt")).unwrap();
    for (verb, to) in [
        ("cp", "a.txt"),
        ("cp", "./a.txt"),
        ("cp", "h.txt"),
        ("mv", "h.txt"),
    ] {
        let out = ferry_in(&home)
            .current_dir(w)
            .args([verb, "a.txt", to])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(1),
            "{verb} a.txt {to}: {}",
            said(&out)
        );
        assert!(said(&out).contains("are the same file"), "{}", said(&out));
    }
    let names = |w: &Path| fs::read_dir(w).unwrap().count();
    assert_eq!(names(w), 2, "nothing written");
    assert_eq!(fs::read(&a).unwrap(), b"a");
    let out = ferry_in(&home)
        .current_dir(w)
        .args(["cp", "a.txt", "."])
        .output();
    ok(&out.unwrap());
    assert_eq!(
        fs::read(w.join("a (copy).txt")).unwrap(),
        b"a",
        "a paste duplicates"
    );
}

#[test]
fn a_copy_to_a_new_name_killed_midway_is_resumed_and_rolled_back_under_that_name() {
    let t = TempTree::new();
    let home = t.dir("home");
    for i in 0..20 {
        t.file(format!("w/tree/f{i:02}"), format!("file {i}"));
    }
    let w = t.path().join("w");
    let run = |point: &str| {
        ferry_in(&home)
            .env("FERRY_FAULT_POINT", point)
            .arg("cp")
            .arg(w.join("tree"))
            .arg(w.join("copy"))
            .output()
            .unwrap()
    };
    assert_eq!(run("item-done:5").status.signal(), Some(9), "killed");
    ok(&ferry_in(&home).arg("resume").output().unwrap());
    for i in 0..20 {
        let f = w.join(format!("copy/f{i:02}"));
        assert_eq!(fs::read(&f).unwrap(), format!("file {i}").as_bytes());
    }
    assert!(!w.join("tree (copy)").exists() && !w.join("copy/tree").exists());

    fs::remove_dir_all(w.join("copy")).unwrap();
    assert_eq!(run("item-done:5").status.signal(), Some(9), "killed");
    let out = ferry_in(&home).arg("undo").output().unwrap();
    ok(&out);
    let left: Vec<_> = fs::read_dir(&w)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["tree"], "rolled back: {}", said(&out));
    for i in 0..20 {
        let f = w.join(format!("tree/f{i:02}"));
        assert_eq!(
            fs::read(&f).unwrap(),
            format!("file {i}").as_bytes(),
            "the source is whole"
        );
    }
}

/// `mv SRC/. DEST` and `mv . DEST` are refused, as `mv` refuses them, where a copy takes
/// the folder's contents: nothing moves, the other sources still go.
#[test]
fn a_move_of_a_path_ending_in_dot_is_refused() {
    let t = TempTree::new();
    let home = t.dir("home");
    t.file("w/photos/a.jpg", "a");
    let lone = t.file("w/lone.txt", "l");
    let dest = t.dir("dest");
    let w = t.path().join("w");
    for (from, source) in [
        (w.clone(), "photos/."),
        (w.clone(), "photos/./"),
        (w.join("photos"), "."),
        (w.join("photos"), "sub/.."),
    ] {
        let out = ferry_in(&home)
            .current_dir(&from)
            .args(["mv", source])
            .arg(&dest)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{source}: {}", said(&out));
        assert!(said(&out).contains("ending in '.'"), "{}", said(&out));
    }
    let out = ferry_in(&home)
        .current_dir(&w)
        .args(["mv", "photos/.", "lone.txt"])
        .arg(&dest)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", said(&out));
    assert!(!lone.exists() && dest.join("lone.txt").exists());
    assert!(w.join("photos/a.jpg").exists(), "nothing of photos moved");
    assert!(!dest.join("a.jpg").exists() && !dest.join("photos").exists());
}
