//! Many items at once in the trash: more than the process may hold files open, many of one
//! name, which must not each try every name the ones before them took, and the batches the
//! trash moves items in (their info files flushed together first).

use std::ffi::OsStr;
use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};

use ferry_tests::TempTree;

use super::ferry_in;
use super::trash::read;
use super::undo::ok;

/// `ferry` with its home in `home`, allowed `n` open files (soft and hard limit, which it
/// cannot raise), as in a session with a low limit.
fn with_open_files(home: &Path, n: u32) -> std::process::Command {
    let mut limited = std::process::Command::new("prlimit");
    limited.arg(format!("--nofile={n}:{n}")).arg("--");
    crate::ferry_run_by(limited, &ferry_in(home))
}

/// `ferry trash paths` under `strace -f` with `filters`, which must succeed: the trace, or
/// `None` (said) without strace.
fn trash_traced(
    tree: &TempTree,
    home: &Path,
    paths: &[PathBuf],
    filters: &[&str],
) -> Option<String> {
    let log = tree.join("strace.log");
    let mut strace = std::process::Command::new("strace");
    strace.args(["-f", "-qq"]).args(filters).arg("-o").arg(&log);
    let mut trash = crate::ferry_run_by(strace, &ferry_in(home));
    let Ok(out) = trash.arg("trash").args(paths).output() else {
        eprintln!("note: strace is missing; skipped");
        return None;
    };
    ok(&out);
    Some(fs::read_to_string(&log).unwrap())
}

/// Many files of one name (`.DS_Store` from every folder) each tried every name the ones
/// before had taken in the trash (`same`, `same.2`, …): 3,000 took 11.6 s against 3 s for as
/// many names. Each is now tried from the number after the last one given: counted in
/// creates refused, not time.
#[test]
fn many_items_of_one_name_do_not_each_try_every_name_taken() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let count = 200;
    let paths: Vec<PathBuf> = (0..count)
        .map(|i| tree.file(format!("w/d{i}/same"), "x"))
        .collect();
    let trace = ["-e", "trace=openat", "-e", "status=failed"];
    let Some(log) = trash_traced(&tree, &home, &paths, &trace) else {
        return;
    };
    let taken = log
        .lines()
        .filter(|l| l.contains(".trashinfo") && l.contains("EEXIST"))
        .count();
    assert!(taken < count, "{taken} names tried and found taken");
    assert!(paths.iter().all(|p| !p.exists()), "all trashed");
}

/// Putting back more items than the process may hold files open: the undo of a trash, a
/// restore and the undo of a move held a descriptor of the folder per item, and failed every
/// item past the limit ("Too many open files"): 25,000 trashed files from one folder never
/// came back, from the window or the command line.
#[test]
fn more_items_than_open_files_are_put_back_from_one_folder() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let count = 600;
    let names: Vec<String> = (0..count).map(|i| format!("w/f{i:03}")).collect();
    for name in &names {
        tree.file(name, name);
    }
    let paths: Vec<_> = names.iter().map(|n| tree.join(n)).collect();
    let run = |args: &[&OsStr]| {
        let out = with_open_files(&home, 256).args(args).output().unwrap();
        ok(&out);
    };
    let mut trash = vec![OsStr::new("trash")];
    trash.extend(paths.iter().map(|p| p.as_os_str()));
    run(&trash);
    run(&[OsStr::new("undo")]); // a restore of each item
    let dest = tree.dir("dest");
    let mut mv = vec![OsStr::new("mv")];
    mv.extend(paths.iter().map(|p| p.as_os_str()));
    mv.push(dest.as_os_str());
    run(&mv);
    run(&[OsStr::new("undo")]); // each moved item back into its folder
    run(&trash);
    let mut restore = vec![OsStr::new("restore")];
    restore.extend(paths.iter().map(|p| p.as_os_str()));
    run(&restore);
    for (name, path) in names.iter().zip(&paths) {
        assert_eq!(read(path), *name);
    }
}

/// Files from many folders at once: the trash claims a batch of items (their info files
/// written), flushes the info files together, then moves them, holding each folder open
/// until then. Folders past what a low limit of open files allows go in the next batch (once,
/// every item after the first failure failed "Too many open files").
#[test]
fn items_from_many_folders_are_trashed_with_few_files_open() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let paths: Vec<PathBuf> = (0..300)
        .map(|i| tree.file(format!("w/d{i:03}/f"), format!("{i}")))
        .collect();
    // Below what a batch holds open (its folders, each trash folder's two): the batch is
    // flushed at the limit and the item tried again.
    let mut trash = with_open_files(&home, 24);
    ok(&trash.arg("trash").args(&paths).output().unwrap());
    assert!(paths.iter().all(|p| !p.exists()), "all trashed");
    let info = fs::read_dir(home.join("data/Trash/info")).unwrap().count();
    assert_eq!(info, 300, "an info file for each");
    // The undo (a restore) too: it held every folder open at once, and put back none.
    ok(&with_open_files(&home, 24).arg("undo").output().unwrap());
    for (i, path) in paths.iter().enumerate() {
        assert_eq!(read(path), i.to_string());
    }
}

/// A trash killed part way through a batch: the items moved before are in the trash; the
/// rest of the batch had their info files written and flushed, and are still in place. Those
/// info files describe nothing: never listed, and removed by the undo, which puts back the
/// items moved.
#[test]
fn a_trash_killed_within_a_batch_is_undone_whole() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let paths: Vec<PathBuf> = (0..10)
        .map(|i| tree.file(format!("w/f{i}"), format!("{i}")))
        .collect();
    let killed = ferry_in(&home)
        .env("FERRY_FAULT_POINT", "trash-info-written:4")
        .arg("trash")
        .args(&paths)
        .output()
        .unwrap();
    assert_eq!(killed.status.signal(), Some(9), "{killed:?}");
    let in_place = paths.iter().filter(|p| p.exists()).count();
    assert_eq!(in_place, 7, "three moved before the kill");
    let info = home.join("data/Trash/info");
    assert_eq!(fs::read_dir(&info).unwrap().count(), 10, "all ten claimed");
    let listed = ok(&ferry_in(&home).arg("restore").output().unwrap());
    let listed_here = paths
        .iter()
        .filter(|p| listed.contains(&*p.to_string_lossy()));
    assert_eq!(
        listed_here.count(),
        3,
        "only what is in the trash is listed: {listed}"
    );

    ok(&ferry_in(&home).arg("undo").output().unwrap());
    for (i, path) in paths.iter().enumerate() {
        assert_eq!(read(path), i.to_string());
    }
    assert_eq!(fs::read_dir(&info).unwrap().count(), 0, "no info file left");
}

/// Many items' info files are flushed together (`syncfs`), not each with its own `fsync`
/// (1.3 to 1.9 ms each on ext4: 5,000 files took 6.7 to 9.3 s to trash), and always before
/// any of them moves.
#[test]
fn many_items_have_their_info_files_flushed_together_before_they_move() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let paths: Vec<PathBuf> = (0..300)
        .map(|i| tree.file(format!("w/f{i:03}"), "x"))
        .collect();
    let trace = ["-e", "trace=fsync,fdatasync,syncfs,renameat2"];
    let Some(log) = trash_traced(&tree, &home, &paths, &trace) else {
        return;
    };
    assert!(paths.iter().all(|p| !p.exists()), "all trashed");
    let calls: Vec<&str> = log
        .lines()
        .filter_map(|l| l.split_whitespace().nth(1)?.split('(').next())
        .collect();
    let flushes = calls.iter().filter(|c| c.contains("sync")).count();
    // The journal's begin line, and one flush a batch of 256 items.
    assert!(flushes <= 4, "{flushes} flushes: {calls:?}");
    let first_move = calls.iter().position(|c| *c == "renameat2").unwrap();
    assert!(calls[..first_move].contains(&"syncfs"), "{calls:?}");
}

/// A folder given with items inside it: the folder goes to the trash whole, and its items,
/// gone with it, fail as when trashed one by one (in one batch, each was moved through its
/// folder's descriptor, out of the trashed folder into entries of their own, and the undo
/// then found the folder's place taken).
#[test]
fn a_folder_given_with_items_inside_it_goes_to_the_trash_whole() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let x = tree.file("w/dd/x", "x");
    let z = tree.file("w/dd/sub/z", "z");
    tree.file("w/dd/y", "y");
    let dd = tree.join("w/dd");
    let out = ferry_in(&home)
        .arg("trash")
        .args([&dd, &x, &z])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("No such file"), "{said}");
    let files = home.join("data/Trash/files");
    let entries: Vec<_> = fs::read_dir(&files)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(entries, ["dd"], "one entry");
    assert_eq!(read(&files.join("dd/x")), "x");
    assert_eq!(read(&files.join("dd/sub/z")), "z");
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_eq!(read(&x), "x");
    assert_eq!(read(&z), "z");
    assert_eq!(read(&dd.join("y")), "y");
}

/// Names in `files/` without an info file (another program's entries) are not claimed:
/// killed before its items moved, a trash once left info files that listed those strangers
/// as its items, and `ferry resume` counted the items trashed while they stayed in place.
#[test]
fn a_name_in_the_trash_without_an_info_file_is_not_claimed() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let files = home.join("data/Trash/files");
    fs::create_dir_all(&files).unwrap();
    let paths: Vec<PathBuf> = (0..5)
        .map(|i| {
            fs::write(files.join(format!("f{i}")), "stranger").unwrap();
            tree.file(format!("w/f{i}"), format!("{i}"))
        })
        .collect();
    let killed = ferry_in(&home)
        .env("FERRY_FAULT_POINT", "trash-info-written:1")
        .arg("trash")
        .args(&paths)
        .output()
        .unwrap();
    assert_eq!(killed.status.signal(), Some(9), "{killed:?}");
    let info = home.join("data/Trash/info");
    for i in 0..5 {
        let claimed = info.join(format!("f{i}.trashinfo"));
        assert!(!claimed.exists(), "{} claimed", claimed.display());
    }
    let listed = ok(&ferry_in(&home).arg("restore").output().unwrap());
    assert!(!listed.contains("/w/f"), "{listed}");
    let undone = ferry_in(&home).arg("undo").output().unwrap();
    let said = ok(&undone) + &String::from_utf8_lossy(&undone.stderr);
    assert!(
        said.contains("nothing of it was in the trash yet"),
        "{said}"
    );
    for (i, path) in paths.iter().enumerate() {
        assert_eq!(read(path), i.to_string());
        assert_eq!(read(&files.join(format!("f{i}"))), "stranger");
    }
    assert_eq!(fs::read_dir(&info).unwrap().count(), 0, "no info file left");
}
