//! Many items at once in the trash: more than the process may hold files open, and many of
//! one name, which must not each try every name the ones before them took.

use std::ffi::OsStr;
use std::fs;
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
    let log = tree.join("strace.log");
    let mut strace = std::process::Command::new("strace");
    strace.args([
        "-f",
        "-qq",
        "-e",
        "trace=openat",
        "-e",
        "status=failed",
        "-o",
    ]);
    strace.arg(&log);
    let mut trash = crate::ferry_run_by(strace, &ferry_in(&home));
    trash.arg("trash").args(&paths);
    let Ok(out) = trash.output() else {
        eprintln!("note: strace is missing; skipped");
        return;
    };
    ok(&out);
    let log = fs::read_to_string(&log).unwrap();
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
