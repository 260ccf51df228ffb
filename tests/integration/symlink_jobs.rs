//! Link jobs (`Job::Link`, `ferry ln`): symbolic links to the targets' absolute paths, a
//! taken name decided like a copy's, undo to the trash, redo, and a killed job rolled back
//! or resumed.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};

use ferry_core::Error;
use ferry_core::entry::Kind;
use ferry_core::jobs::{
    ConflictKind, ConflictPolicy, Event, How, Job, Operation, Resolution, Scope, SkipReason,
};
use ferry_tests::TempTree;

use crate::jobs_conflicts::run_asking_with;
use crate::jobs_support::{assert_accounts_for, run_job, staging_in_tree};
use crate::undo::{Setup, ok};
use crate::{ferry_in, run_ferry_unprivileged};

fn link(targets: Vec<PathBuf>, dest_dir: &Path, on_conflict: ConflictPolicy) -> Job {
    Job::Link {
        targets,
        dest_dir: dest_dir.to_path_buf(),
        on_conflict,
    }
}

/// The text of the link at `path` (panics if it is not a link).
fn text(path: &Path) -> PathBuf {
    assert!(
        fs::symlink_metadata(path).unwrap().file_type().is_symlink(),
        "{} is a link",
        path.display()
    );
    fs::read_link(path).unwrap()
}

#[test]
fn links_hold_the_absolute_path_of_what_exists_and_refuse_what_does_not() {
    let t = TempTree::new();
    let file = t.file("src/doc.txt", "doc");
    let folder = t.dir("src/Photos");
    let dangling = t.symlink("src/dangling", "/nowhere/at/all");
    let missing = t.join("src/missing");
    let dest = t.dir("dest");
    // Given with `..` in it: kept as given, not resolved.
    let roundabout = t.join("src/Photos/../doc.txt");
    let targets = vec![
        file.clone(),
        folder.clone(),
        dangling.clone(),
        missing.clone(),
    ];
    let out = run_job(link(targets.clone(), &dest, ConflictPolicy::Skip));
    assert_accounts_for(&out.summary, &targets);
    assert_eq!(text(&dest.join("doc.txt")), file);
    assert_eq!(text(&dest.join("Photos")), folder);
    // A link to a link, never to what it points at.
    assert_eq!(text(&dest.join("dangling")), dangling);
    assert!(fs::symlink_metadata(dest.join("missing")).is_err());
    assert_eq!(out.summary.done, [file.clone(), folder, dangling]);
    assert_eq!(out.summary.failed.len(), 1, "{:#?}", out.summary);
    assert_eq!(out.summary.failed[0].path, missing);
    assert!(out.summary.failed[0].error.is_not_found());
    assert_eq!(out.summary.items_done, 3);
    // Each link is one item of the plan and of the record, with its identity.
    let planned = out.events.iter().find_map(|e| match e {
        Event::Planned { totals, .. } => Some(totals.items),
        _ => None,
    });
    assert_eq!(planned, Some(3));
    assert_eq!(out.summary.record.operation(), Operation::Link);
    let entries: Vec<_> = out.summary.record.entries().collect();
    assert_eq!(entries.len(), 3);
    for e in &entries {
        let m = fs::symlink_metadata(&e.dest).unwrap();
        assert_eq!(
            (e.kind, e.how, e.id.ino),
            (Kind::Symlink, How::Created, m.ino())
        );
    }
    // The target stays what it was.
    assert_eq!(fs::read(&file).unwrap(), b"doc");

    let again = t.dir("again");
    let out = run_job(link(vec![roundabout.clone()], &again, ConflictPolicy::Skip));
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(text(&again.join("doc.txt")), roundabout);
}

#[test]
fn a_taken_name_is_skipped_or_the_link_is_named_link() {
    let t = TempTree::new();
    let doc = t.file("src/doc.txt", "mine");
    let photos = t.dir("src/Photos");
    let dest = t.dir("dest");
    fs::write(dest.join("doc.txt"), "theirs").unwrap();
    fs::create_dir(dest.join("Photos")).unwrap();
    let targets = vec![doc.clone(), photos.clone()];

    let out = run_job(link(targets.clone(), &dest, ConflictPolicy::Skip));
    assert_eq!(out.summary.skipped.len(), 2, "{:#?}", out.summary);
    assert!(
        out.summary
            .skipped
            .iter()
            .all(|s| s.reason == SkipReason::Exists)
    );
    assert!(out.summary.record.is_empty());
    assert_eq!(fs::read(dest.join("doc.txt")).unwrap(), b"theirs");

    for round in ["", " 2"] {
        let out = run_job(link(targets.clone(), &dest, ConflictPolicy::KeepBoth));
        assert!(out.summary.is_complete(), "{:#?}", out.summary);
        assert_eq!(text(&dest.join(format!("doc (link{round}).txt"))), doc);
        assert_eq!(text(&dest.join(format!("Photos (link{round})"))), photos);
    }
    assert_eq!(fs::read(dest.join("doc.txt")).unwrap(), b"theirs");
    assert!(fs::symlink_metadata(dest.join("Photos")).unwrap().is_dir());

    // Two targets of one name: the second gets a name of its own only with Keep both.
    let other = t.file("elsewhere/doc.txt", "other");
    let fresh = t.dir("fresh");
    let two = vec![doc.clone(), other.clone()];
    let out = run_job(link(two.clone(), &fresh, ConflictPolicy::Skip));
    assert_eq!(text(&fresh.join("doc.txt")), doc);
    assert!(
        matches!(*out.summary.failed[0].error, Error::DuplicateName { .. }),
        "{:#?}",
        out.summary
    );
    let both = t.dir("both");
    let out = run_job(link(two, &both, ConflictPolicy::KeepBoth));
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(text(&both.join("doc.txt")), doc);
    assert_eq!(text(&both.join("doc (link).txt")), other);

    // The same target twice: one link.
    let twice = t.dir("twice");
    let out = run_job(link(
        vec![doc.clone(), doc],
        &twice,
        ConflictPolicy::KeepBoth,
    ));
    assert_eq!(out.summary.skipped[0].reason, SkipReason::Duplicate);
    assert_eq!(fs::read_dir(&twice).unwrap().count(), 1);
}

#[test]
fn ask_reports_the_conflicts_and_carries_out_each_answer() {
    let t = TempTree::new();
    let a = t.file("src/a.txt", "a");
    let b = t.file("src/b.txt", "b");
    let c = t.file("src/c.txt", "c");
    let free = t.file("src/free.txt", "free");
    let dest = t.dir("dest");
    for name in ["a.txt", "b.txt", "c.txt"] {
        fs::write(dest.join(name), "there").unwrap();
    }
    let job = link(
        vec![a.clone(), b.clone(), c.clone(), free.clone()],
        &dest,
        ConflictPolicy::Ask,
    );
    let (out, conflicts) = run_asking_with(staging_in_tree(), job, |conflict| {
        assert_eq!(conflict.kind, ConflictKind::FileExists);
        let answer = match conflict.source.name.to_str().unwrap() {
            "a.txt" => Resolution::KeepBoth,
            "b.txt" => Resolution::RenameTo("bee".into()),
            _ => Resolution::Skip,
        };
        Some((answer, Scope::This))
    });
    assert_eq!(conflicts.len(), 3, "{conflicts:#?}");
    assert_eq!(conflicts[0].dest.path, dest.join("a.txt"));
    assert_eq!(text(&dest.join("a (link).txt")), a);
    assert_eq!(text(&dest.join("bee")), b);
    assert_eq!(text(&dest.join("free.txt")), free);
    assert_eq!(out.summary.skipped.len(), 1, "{:#?}", out.summary);
    assert_eq!(out.summary.skipped[0].path, c);
    for name in ["a.txt", "b.txt", "c.txt"] {
        assert_eq!(fs::read(dest.join(name)).unwrap(), b"there");
    }
    assert_eq!(out.summary.items_done, 3);
}

#[test]
fn undo_trashes_only_the_links_still_made_by_the_job_and_redo_makes_them_again() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let a = t.file("src/a.txt", "a");
    let b = t.file("src/b.txt", "b");
    let dest = t.dir("dest");
    s.run(link(
        vec![a.clone(), b.clone()],
        &dest,
        ConflictPolicy::Skip,
    ));
    assert_eq!(text(&dest.join("a.txt")), a);
    // The link to b is replaced by a file of the user's since.
    fs::remove_file(dest.join("b.txt")).unwrap();
    fs::write(dest.join("b.txt"), "written since").unwrap();
    let out = s.undo();
    assert!(fs::symlink_metadata(dest.join("a.txt")).is_err());
    assert_eq!(fs::read(dest.join("b.txt")).unwrap(), b"written since");
    assert_eq!(out.summary.failed.len(), 1, "{:#?}", out.summary);
    assert!(matches!(
        *out.summary.failed[0].error,
        Error::ChangedSince { .. }
    ));
    // In the trash, never deleted; the targets untouched.
    assert_eq!(s.trashed(), ["a.txt"]);
    let trashed = s.trash.home.join("files/a.txt");
    assert_eq!(text(&trashed), a);
    assert_eq!(fs::read(&a).unwrap(), b"a");
    assert_eq!(fs::read(&b).unwrap(), b"b");

    // Redo makes them again (the name taken by the user's file is skipped).
    let record = s.journal.redo_candidate().unwrap().unwrap();
    let redo = record.redo_job().unattended();
    s.journal.restart(record.seq, &redo).unwrap();
    let out = run_job(redo);
    s.journal.finish(record.seq, &out.summary, false).unwrap();
    assert_eq!(text(&dest.join("a.txt")), a);
    assert_eq!(fs::read(dest.join("b.txt")).unwrap(), b"written since");
    assert_eq!(out.summary.skipped[0].reason, SkipReason::Exists);
}

#[test]
fn replace_keeps_the_old_item_aside_and_undo_puts_it_back() {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let doc = t.file("src/doc.txt", "new");
    let dest = t.dir("dest");
    fs::write(dest.join("doc.txt"), "old").unwrap();
    fs::create_dir(dest.join("folder.txt")).unwrap();
    let folderish = t.file("src/folder.txt", "x");
    let out = s.run(link(
        vec![doc.clone(), folderish],
        &dest,
        ConflictPolicy::Replace,
    ));
    assert_eq!(text(&dest.join("doc.txt")), doc);
    // A folder is never replaced by a link.
    assert!(matches!(
        *out.summary.failed[0].error,
        Error::KindConflict { .. }
    ));
    assert!(
        fs::symlink_metadata(dest.join("folder.txt"))
            .unwrap()
            .is_dir()
    );
    let entry = out.summary.record.entries().next().unwrap();
    assert_eq!(entry.how, How::Replaced);
    let staged = entry.staged.unwrap();
    assert_eq!(fs::read(&staged).unwrap(), b"old");
    s.undo();
    assert_eq!(fs::read(dest.join("doc.txt")).unwrap(), b"old");
    assert_eq!(s.trashed(), ["doc.txt"]);
    // A target is never replaced by a link to itself (it would point at nothing).
    let own = dest.join("doc.txt");
    let out = run_job(link(vec![own.clone()], &dest, ConflictPolicy::Replace));
    assert!(
        matches!(*out.summary.failed[0].error, Error::SameFile { .. }),
        "{:#?}",
        out.summary
    );
    assert_eq!(fs::read(&own).unwrap(), b"old");
}

/// `ferry ln` killed after its `n`-th link is made (its end not recorded).
fn kill_a_link_job(home: &Path, targets: &[PathBuf], dest: &Path, n: usize) {
    let out = ferry_in(home)
        .env("FERRY_FAULT_POINT", format!("symlinked:{n}"))
        .args(["ln", "--on-conflict", "keep-both"])
        .args(targets)
        .arg(dest)
        .output()
        .unwrap();
    assert_eq!(out.status.signal(), Some(9), "killed: {out:?}");
}

/// The names in `dir`, sorted.
pub(crate) fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn a_killed_link_job_rolls_back_its_links_only() {
    let t = TempTree::new();
    let home = t.dir("home");
    let targets: Vec<PathBuf> = ["a", "b", "c"]
        .iter()
        .map(|n| t.file(format!("src/{n}"), n))
        .collect();
    let dest = t.dir("dest");
    // The user's own link with the very text the job writes, at the name it was to take:
    // the job makes `a (link)` beside it, and the roll back leaves the user's alone.
    std::os::unix::fs::symlink(&targets[0], dest.join("a")).unwrap();
    kill_a_link_job(&home, &targets, &dest, 2);
    assert_eq!(names(&dest), ["a", "a (link)", "b"]);
    let history = ok(&ferry_in(&home).arg("history").output().unwrap());
    assert!(history.contains("INTERRUPTED"), "{history}");
    let out = ferry_in(&home).arg("undo").output().unwrap();
    ok(&out);
    assert_eq!(names(&dest), ["a"]);
    assert_eq!(text(&dest.join("a")), targets[0]);
    let trash = home.join("data/Trash/files");
    assert_eq!(names(&trash), ["a (link)", "b"]);
    for (target, n) in targets.iter().zip(["a", "b", "c"]) {
        assert_eq!(fs::read(target).unwrap(), n.as_bytes());
    }
}

#[test]
fn a_killed_link_job_resumes_and_its_undo_then_takes_every_link() {
    let t = TempTree::new();
    let home = t.dir("home");
    let targets: Vec<PathBuf> = ["a", "b", "c"]
        .iter()
        .map(|n| t.file(format!("src/{n}"), n))
        .collect();
    let dest = t.dir("dest");
    kill_a_link_job(&home, &targets, &dest, 2);
    assert_eq!(names(&dest), ["a", "b"]);
    let out = ferry_in(&home).arg("resume").output().unwrap();
    ok(&out);
    // Resumed, not made twice ("a (link)").
    assert_eq!(names(&dest), ["a", "b", "c"]);
    for (target, n) in targets.iter().zip(["a", "b", "c"]) {
        assert_eq!(text(&dest.join(n)), *target);
    }
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert!(names(&dest).is_empty());
    assert_eq!(names(&home.join("data/Trash/files")), ["a", "b", "c"]);
}

#[test]
fn a_replace_killed_with_the_old_item_aside_rolls_back_with_it_in_place() {
    let t = TempTree::new();
    let home = t.dir("home");
    let target = t.file("src/doc.txt", "new");
    let dest = t.dir("dest");
    fs::write(dest.join("doc.txt"), "old").unwrap();
    let out = ferry_in(&home)
        .env("FERRY_FAULT_POINT", "replace-staged")
        .args(["ln", "--on-conflict", "replace"])
        .arg(&target)
        .arg(&dest)
        .output()
        .unwrap();
    assert_eq!(out.status.signal(), Some(9), "killed: {out:?}");
    assert!(fs::symlink_metadata(dest.join("doc.txt")).is_err());
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_eq!(fs::read(dest.join("doc.txt")).unwrap(), b"old");
}

#[test]
fn ferry_ln_exit_codes() {
    let t = TempTree::new();
    let home = t.dir("home");
    let a = t.file("src/a", "a");
    let dest = t.dir("dest");
    let run = |args: &[&std::ffi::OsStr]| ferry_in(&home).arg("ln").args(args).output().unwrap();
    let code = |out: &std::process::Output| out.status.code();
    // Everything linked.
    assert_eq!(code(&run(&[a.as_os_str(), dest.as_os_str()])), Some(0));
    assert_eq!(text(&dest.join("a")), a);
    // A taken name skipped by choice is still a success.
    assert_eq!(code(&run(&[a.as_os_str(), dest.as_os_str()])), Some(0));
    // A target that does not exist: the others are linked, exit 1.
    let b = t.file("src/b", "b");
    let missing = t.join("src/missing");
    let out = run(&[b.as_os_str(), missing.as_os_str(), dest.as_os_str()]);
    assert_eq!(code(&out), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing"));
    assert_eq!(text(&dest.join("b")), b);
    // Ask without a terminal: the conflicts listed, nothing written, exit 2.
    let c = t.file("src/c", "c");
    let ask = [
        "--on-conflict".as_ref(),
        "ask".as_ref(),
        a.as_os_str(),
        c.as_os_str(),
        dest.as_os_str(),
    ];
    let out = run(&ask);
    assert_eq!(code(&out), Some(2), "{out:?}");
    assert!(fs::symlink_metadata(dest.join("c")).is_err());
    // Not a folder, or only one path: refused.
    assert_eq!(code(&run(&[a.as_os_str(), b.as_os_str()])), Some(2));
    assert_eq!(code(&run(&[a.as_os_str()])), Some(2));
    // A relative target is made absolute against the current folder.
    let out = ferry_in(&home)
        .current_dir(t.path())
        .args(["ln", "src/c", "dest"])
        .output()
        .unwrap();
    assert_eq!(code(&out), Some(0), "{out:?}");
    assert_eq!(text(&dest.join("c")), c);
}

#[test]
fn a_folder_that_refuses_the_link_fails_the_target_and_says_why() {
    let t = TempTree::new();
    fs::set_permissions(t.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let a = t.file("src/a", "a");
    let dest = t.dir("dest");
    fs::set_permissions(&dest, fs::Permissions::from_mode(0o555)).unwrap();
    let args = [OsStr::new("ln"), a.as_os_str(), dest.as_os_str()];
    // Root writes anywhere: run as an unprivileged user then.
    let out = if rustix::process::geteuid().is_root() {
        run_ferry_unprivileged(args)
    } else {
        crate::run_ferry(args)
    };
    fs::set_permissions(&dest, fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("cannot create the link"), "{said}");
    assert!(said.contains(&*dest.join("a").to_string_lossy()), "{said}");
    assert!(fs::symlink_metadata(dest.join("a")).is_err());
}
