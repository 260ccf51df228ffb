//! `ferry rm` and delete jobs: never follows links, never leaves its file system, refuses `/`,
//! works at any depth; and copies deeper than `PATH_MAX`.

use std::fs;

use ferry_core::Error;
use ferry_core::jobs::{ConflictPolicy, Job};
use ferry_tests::TempTree;

use crate::jobs_copy::sample_tree;
use crate::jobs_support::{Mounted, assert_accounts_for, chain_depth, deep_chain, run_job};
use crate::run_ferry;
use crate::undo::ok;

#[test]
fn rm_deletes_a_tree_but_never_what_its_links_point_to() {
    let t = TempTree::new();
    let victim = sample_tree(&t, "victim");
    let outside = t.file("outside/keep.txt", "keep");
    t.symlink("victim/to-outside-dir", t.join("outside"));
    t.symlink("victim/to-outside-file", &outside);
    let lone = t.file("lone.txt", "bye");
    let out = run_ferry(["rm".as_ref(), victim.as_os_str(), lone.as_os_str()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!victim.exists() && !lone.exists());
    assert_eq!(fs::read(&outside).unwrap(), b"keep");
}

#[test]
fn rm_of_a_missing_path_fails_alone() {
    let t = TempTree::new();
    let here = t.file("here", "here");
    let missing = t.join("missing");
    let out = run_ferry(["rm".as_ref(), missing.as_os_str(), here.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing"));
    assert!(!here.exists());
}

#[test]
fn rm_refuses_the_root_folder() {
    let out = run_ferry(["rm", "/"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("refusing to delete /"));
    assert!(std::path::Path::new("/proc").exists());
}

/// The home folder is deleted only with `--force`; a mount point never, and the refusal says
/// to unmount it (it said "add --force", and `--force` then refused it all the same).
#[test]
fn rm_wants_force_for_the_home_folder_and_never_deletes_a_mount_point() {
    let t = TempTree::new();
    let home = t.dir("home");
    t.file("home/notes", "mine");
    let out = crate::ferry_in(&home)
        .arg("rm")
        .arg(&home)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("it is your home folder"), "{stderr}");
    assert!(stderr.contains("--force"), "{stderr}");
    assert_eq!(fs::read(home.join("notes")).unwrap(), b"mine");

    if let Some(mounted) = Mounted::tmpfs(&t.join("mnt"), "1m") {
        fs::write(mounted.dir.join("data"), "on tmpfs").unwrap();
        for force in [&[][..], &["--force"][..]] {
            let out = crate::ferry_in(&home)
                .arg("rm")
                .args(force)
                .arg(&mounted.dir)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2));
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stderr.contains("mounted on it (unmount it first)"),
                "{stderr}"
            );
            assert!(mounted.dir.join("data").exists());
        }
    }

    let out = crate::ferry_in(&home)
        .args(["rm", "--force"])
        .arg(&home)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!home.exists());
}

/// The home folder and Ferry's state folder reached through a bind mount of the folder
/// above them (`alias/home` is `r/home`) are still what they are: a delete, a move and the
/// trash refuse them as by their own paths. Compared as paths, `ferry rm alias/state`
/// deleted the undo journal and `ferry rm alias/home` the home folder, exit 0. And `lnk/`, a
/// link to the home folder written with a slash, is only a link to delete.
#[test]
fn the_home_and_state_folders_are_known_through_a_bind_mount() {
    let t = TempTree::new();
    let home = t.dir("r/home");
    t.file("r/home/notes", "mine");
    let ferry = || crate::ferry_in(&home);
    let made = ferry()
        .arg("cp")
        .arg(t.join("r/home/notes"))
        .arg(t.dir("r/elsewhere"))
        .output();
    assert!(made.unwrap().status.success());
    let journal = home.join("state/ferry/journal.jsonl");
    assert!(journal.exists());
    let Some(alias) = Mounted::new(&t.join("alias"), &["--bind", t.join("r").to_str().unwrap()])
    else {
        return;
    };
    let through = |rel: &str| alias.dir.join(rel);
    let refused = [
        (vec!["rm"], through("home"), "it is your home folder"),
        (vec!["rm"], alias.dir.clone(), "it holds your home folder"),
        (
            vec!["rm", "--force"],
            through("home/state"),
            "Ferry's state folder",
        ),
        (
            vec!["rm", "--force"],
            through("home/state/ferry/journal.jsonl"),
            "Ferry's state folder",
        ),
        (vec!["trash"], through("home/state"), "Ferry's state folder"),
        (vec!["mv"], through("home"), "Ferry's state folder"),
        (vec!["mv"], through("home/state"), "Ferry's state folder"),
    ];
    for (command, path, why) in refused {
        let mut run = ferry();
        run.args(&command).arg(&path);
        if command[0] == "mv" {
            run.arg(t.dir("moved"));
        }
        let out = run.output().unwrap();
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(
            !out.status.success(),
            "{command:?} {}: {said}",
            path.display()
        );
        assert!(said.contains(why), "{command:?} {}: {said}", path.display());
        assert!(
            journal.exists() && home.join("notes").exists(),
            "{command:?}"
        );
    }
    drop(alias);

    let link = t.symlink("hlink", &home);
    ok(&ferry()
        .arg("rm")
        .arg(format!("{}/", link.display()))
        .output()
        .unwrap());
    assert!(link.symlink_metadata().is_err() && home.join("notes").exists());
}

#[test]
fn a_delete_never_enters_another_mount_even_of_the_same_device() {
    let t = TempTree::new();
    let keep = t.file("elsewhere/precious", "precious");
    let victim = t.dir("victim");
    t.file("victim/a", "a");
    let bind_args = ["--bind", keep.parent().unwrap().to_str().unwrap()];
    let Some(_bind) = Mounted::new(&victim.join("bound"), &bind_args) else {
        return;
    };
    let out = run_job(Job::Delete {
        paths: vec![victim.clone()],
    });
    assert_eq!(fs::read(&keep).unwrap(), b"precious");
    assert!(!victim.join("a").exists());
    assert!(
        matches!(*out.summary.failed[0].error, Error::OtherFilesystem { .. }),
        "{:#?}",
        out.summary
    );
    assert_eq!(out.summary.failed[0].path, victim.join("bound"));
    assert_accounts_for(&out.summary, std::slice::from_ref(&victim));
}

#[test]
fn copy_and_delete_trees_deeper_than_path_max() {
    let t = TempTree::new();
    let src = t.dir("src");
    let depth = 2100; // "d/" * 2100 is longer than PATH_MAX (4096)
    deep_chain(&src, "d", depth);
    let dest = t.dir("dest");
    let out = run_job(Job::Copy {
        sources: vec![src.clone()],
        dest_dir: dest.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    assert!(
        out.summary.is_complete(),
        "{:#?}",
        out.summary.failed.first()
    );
    assert_eq!(
        chain_depth(&dest.join("src"), "d"),
        (depth, b"bottom".to_vec())
    );
    for tree in [src, dest] {
        let out = run_job(Job::Delete {
            paths: vec![tree.clone()],
        });
        assert!(
            out.summary.is_complete(),
            "{:#?}",
            out.summary.failed.first()
        );
        assert_eq!(
            out.summary.items_done,
            depth as u64 + 2 + u64::from(tree.ends_with("dest"))
        );
        assert!(!tree.exists());
    }
}

/// `cp -r`, `cp -a`, `rm -rf` typed from habit: accepted, changing nothing but that `rm -f`
/// passes over a path that is not there, as `rm -f` does (they were refused as unknown, with
/// a hint to pass `-r` as a file name). `-f` never lifts what `--force` does.
#[test]
fn habitual_short_flags_of_cp_and_rm_are_accepted() {
    let t = TempTree::new();
    let home = t.dir("home");
    t.file("d/e/f", "f");
    for flag in ["-r", "-R", "-a"] {
        let copy = t.join(format!("copy{flag}"));
        let out = crate::ferry_in(&home)
            .args(["cp", flag])
            .arg(t.join("d"))
            .arg(&copy)
            .output();
        let out = out.unwrap();
        assert!(
            out.status.success(),
            "{flag}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(fs::read(copy.join("e/f")).unwrap(), b"f");
    }
    let rm = crate::ferry_in(&home)
        .args(["rm", "-rf"])
        .arg(t.join("copy-r"))
        .arg(t.join("missing"))
        .output();
    ok(&rm.unwrap());
    assert!(!t.join("copy-r").exists());
    let out = crate::ferry_in(&home)
        .arg("rm")
        .arg(t.join("missing"))
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "without -f, a missing path is said"
    );
    let out = crate::ferry_in(&home)
        .args(["rm", "-rf"])
        .arg(&home)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "-f is not --force");
    assert!(home.exists());
}

/// As user 65534, where a folder above the paths is closed to it: `rm -f` fails on the file
/// it cannot reach, as `rm -f` does (it took EACCES for "not there": exit 0, nothing said,
/// the file kept), and `cp` into that folder says why, not "not an existing folder".
#[test]
fn what_cannot_be_reached_is_said_so_even_with_rm_f() {
    use std::os::unix::fs::PermissionsExt;
    let t = TempTree::new();
    fs::set_permissions(t.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let home = t.dir("home");
    fs::set_permissions(&home, fs::Permissions::from_mode(0o777)).unwrap();
    let hidden = t.file("closed/sub/x", "x");
    fs::set_permissions(t.join("closed"), fs::Permissions::from_mode(0o700)).unwrap();
    let mine = t.file("mine", "mine");
    fs::set_permissions(&mine, fs::Permissions::from_mode(0o644)).unwrap();
    let as_nobody = |args: &[&std::ffi::OsStr]| {
        let mut command = std::process::Command::new("setpriv");
        command
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_ferry-under-test"))
            .args(args)
            .env("HOME", &home)
            .env("XDG_STATE_HOME", home.join("state"))
            .env("XDG_DATA_HOME", home.join("data"));
        command.output().expect("setpriv runs")
    };
    let out = as_nobody(&["rm".as_ref(), "-f".as_ref(), hidden.as_os_str()]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("Permission denied"), "{said}");
    assert!(hidden.exists());

    let into = t.join("closed/sub/");
    let out = as_nobody(&["cp".as_ref(), mine.as_os_str(), into.as_os_str()]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("cannot open") && said.contains("Permission denied"),
        "{said}"
    );
}
