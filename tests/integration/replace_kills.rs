//! A Replace killed at each of its steps (RELIABILITY rule 21): the process is killed with
//! SIGKILL at a fault point (`ferry_core::fault`, compiled into `ferry-under-test` only),
//! then the job is undone or resumed. Whatever the step, the destination holds the whole old
//! file or the whole new one, the old contents are never lost, undo puts the old file back and
//! resume keeps it staged exactly once.

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};

use ferry_tests::TempTree;

use crate::ferry_in;
use crate::jobs_support::{assert_no_temporaries, at_the_start_of_a_second};
use crate::undo::ok;

/// The steps of a Replace, in order (see `ferry_core::fault`); a move within one file system
/// has no temporary file, so it never reaches the first.
const STEPS: &[&str] = &[
    "replace-written",
    "replace-staged",
    "replace-placed",
    "job-ended",
];

const OLD: &[u8] = b"the old contents, which must never be lost";
const NEW: &[u8] = b"the new contents";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// `ferry cp --on-conflict replace` within the work tree.
    Copy,
    /// `ferry mv --on-conflict replace` within the work tree: a rename over the old file.
    MoveHere,
    /// `ferry mv --on-conflict replace` from /dev/shm: a copy, then the source removed.
    MoveAcross,
}

/// One Replace killed at `step`.
struct Killed {
    _trees: (TempTree, TempTree),
    home: PathBuf,
    /// The file given to the job.
    src: PathBuf,
    /// The file it replaces.
    dest: PathBuf,
}

impl Killed {
    fn new(kind: Kind, step: &str) -> Option<Killed> {
        let t = TempTree::new();
        let shm = TempTree::new_in("/dev/shm");
        let home = t.dir("home");
        let src = match kind {
            Kind::MoveAcross => shm.file("src/doc.txt", NEW),
            Kind::Copy | Kind::MoveHere => t.file("src/doc.txt", NEW),
        };
        let dest = t.file("dest/doc.txt", OLD);
        let verb = if kind == Kind::Copy { "cp" } else { "mv" };
        let out = ferry_in(&home)
            .env("FERRY_FAULT_POINT", step)
            .args([verb, "--on-conflict", "replace"])
            .arg(&src)
            .arg(t.join("dest"))
            .output()
            .unwrap();
        if out.status.signal().is_none() {
            // A rename over the old file writes no temporary: that step does not exist.
            assert!(
                kind == Kind::MoveHere && step == "replace-written",
                "{kind:?} {step}"
            );
            ok(&out);
            return None;
        }
        assert_eq!(out.status.signal(), Some(9), "{kind:?} {step}: killed");
        let history = ok(&ferry_in(&home).arg("history").output().unwrap());
        assert!(
            history.contains("INTERRUPTED"),
            "{kind:?} {step}: {history}"
        );
        let k = Killed {
            _trees: (t, shm),
            home,
            src,
            dest,
        };
        k.assert_whole(step);
        Some(k)
    }

    /// The files kept in the staging folder (the CLI's is in its data folder).
    fn staged(&self) -> Vec<Vec<u8>> {
        let dir = self.home.join("data/ferry/replaced");
        fs::read_dir(dir).map_or(Vec::new(), |d| {
            d.map(|e| fs::read(e.unwrap().path()).unwrap()).collect()
        })
    }

    /// The destination is whole old or whole new, the old contents are somewhere and the new
    /// ones too (in the source or at the destination).
    fn assert_whole(&self, when: &str) {
        let at_dest = fs::read(&self.dest).ok();
        assert!(
            matches!(at_dest.as_deref(), None | Some(OLD) | Some(NEW)),
            "{when}: {at_dest:?}"
        );
        let staged = self.staged();
        let old_kept = at_dest.as_deref() == Some(OLD) || staged.iter().any(|s| s == OLD);
        assert!(old_kept, "{when}: the old contents are lost ({staged:?})");
        let new_kept = at_dest.as_deref() == Some(NEW) || fs::read(&self.src).is_ok();
        assert!(new_kept, "{when}: the new contents are lost");
        assert_no_temporaries(self.dest.parent().unwrap());
    }

    fn run(&self, verb: &str) -> String {
        ok(&ferry_in(&self.home).arg(verb).output().unwrap())
    }
}

fn undo_puts_the_old_file_back(kind: Kind) {
    for step in STEPS {
        let Some(k) = Killed::new(kind, step) else {
            continue;
        };
        k.run("undo");
        let when = format!("{kind:?} killed at {step}, undone");
        assert_eq!(fs::read(&k.dest).unwrap(), OLD, "{when}");
        assert_eq!(fs::read(&k.src).unwrap(), NEW, "{when}: the source is back");
        assert!(k.staged().is_empty(), "{when}: {:?}", k.staged());
        k.assert_whole(&when);
    }
}

fn resume_stages_the_old_file_once(kind: Kind) {
    for step in STEPS {
        let Some(k) = Killed::new(kind, step) else {
            continue;
        };
        k.run("resume");
        let when = format!("{kind:?} killed at {step}, resumed");
        assert_eq!(fs::read(&k.dest).unwrap(), NEW, "{when}");
        assert_eq!(k.staged(), [OLD], "{when}: the old file, once");
        if kind != Kind::Copy {
            assert!(!k.src.exists(), "{when}: the source is moved");
        }
        // The resumed job is undone by comparison; the old file comes back all the same.
        k.run("undo");
        let when = format!("{when} and undone");
        assert_eq!(fs::read(&k.dest).unwrap(), OLD, "{when}");
        assert_eq!(fs::read(&k.src).unwrap(), NEW, "{when}");
        assert!(k.staged().is_empty(), "{when}");
    }
}

/// Killed, then the source taken away (a USB stick unplugged, the file moved by the user),
/// then resumed: the destination holds the old file, or the new one where it was in place
/// already. The resume exited 0 with the destination empty and the old file left staged.
fn resume_without_the_source_leaves_the_destination_whole(kind: Kind) {
    for step in STEPS {
        let Some(k) = Killed::new(kind, step) else {
            continue;
        };
        let placed = fs::read(&k.dest).ok();
        let _ = fs::remove_file(&k.src);
        let out = ferry_in(&k.home).arg("resume").output().unwrap();
        let when = format!("{kind:?} killed at {step}, its source removed, resumed");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let at_dest = fs::read(&k.dest).ok();
        match placed.as_deref() {
            Some(NEW) => assert_eq!(at_dest.as_deref(), Some(NEW), "{when}: {stderr}"),
            _ => {
                assert_eq!(at_dest.as_deref(), Some(OLD), "{when}: {stderr}");
                assert!(k.staged().is_empty(), "{when}: {:?}", k.staged());
            }
        }
        assert_no_temporaries(k.dest.parent().unwrap());
    }
}

#[test]
fn resume_after_a_killed_replace_whose_source_went_keeps_the_destination_whole() {
    resume_without_the_source_leaves_the_destination_whole(Kind::Copy);
    resume_without_the_source_leaves_the_destination_whole(Kind::MoveHere);
    resume_without_the_source_leaves_the_destination_whole(Kind::MoveAcross);
}

#[test]
fn undo_after_a_killed_replace_by_copy_puts_the_old_file_back() {
    undo_puts_the_old_file_back(Kind::Copy);
}

#[test]
fn undo_after_a_killed_replace_by_move_puts_the_old_file_back() {
    undo_puts_the_old_file_back(Kind::MoveHere);
    undo_puts_the_old_file_back(Kind::MoveAcross);
}

#[test]
fn resume_after_a_killed_replace_by_copy_stages_the_old_file_once() {
    resume_stages_the_old_file_once(Kind::Copy);
}

#[test]
fn resume_after_a_killed_replace_by_move_stages_the_old_file_once() {
    resume_stages_the_old_file_once(Kind::MoveHere);
    resume_stages_the_old_file_once(Kind::MoveAcross);
}

/// A killed Replace inside a folder merged into, with a sibling copied beside it: undo takes
/// back the copy and puts the old file back in the folder, which stays.
#[test]
fn undo_after_a_replace_killed_inside_a_merged_folder() {
    let t = TempTree::new();
    let home = t.dir("home");
    t.file("src/docs/a.txt", NEW);
    t.file("src/docs/b.txt", "b");
    let old = t.file("dest/docs/a.txt", OLD);
    t.file("dest/docs/mine.txt", "the user's own");
    replace_docs_killed_then_undone(&t, &home, "replace-staged");
    assert_eq!(fs::read(&old).unwrap(), OLD);
    assert_eq!(
        fs::read(t.join("dest/docs/mine.txt")).unwrap(),
        b"the user's own"
    );
    assert!(!t.join("dest/docs/b.txt").exists(), "the copy is undone");
    assert_no_temporaries(Path::new(&t.join("dest")));
}

/// The same where the merged folder held only the replaced file and was made in the second the
/// job started (a script's `mkdir` and copy): the roll back took the folder for one the job
/// had made, removed it once emptied of the copy, and then could not put the old file back
/// ("No such file or directory", the file left in the staging folder).
#[test]
fn undo_after_a_replace_killed_in_a_folder_made_the_second_the_job_started() {
    let t = TempTree::new();
    let home = t.dir("home");
    t.file("src/docs/a.txt", NEW);
    at_the_start_of_a_second();
    let old = t.file("dest/docs/a.txt", OLD);
    replace_docs_killed_then_undone(&t, &home, "replace-placed");
    assert_eq!(fs::read(&old).unwrap(), OLD);
    assert_no_temporaries(Path::new(&t.join("dest")));
}

/// `ferry cp --on-conflict replace src/docs dest`, killed at `point`, then `ferry undo`.
fn replace_docs_killed_then_undone(t: &TempTree, home: &Path, point: &str) {
    let out = ferry_in(home)
        .env("FERRY_FAULT_POINT", point)
        .args(["cp", "--on-conflict", "replace"])
        .arg(t.join("src/docs"))
        .arg(t.join("dest"))
        .output()
        .unwrap();
    assert_eq!(out.status.signal(), Some(9), "killed at {point}");
    ok(&ferry_in(home).arg("undo").output().unwrap());
}

/// Two journals of one user (two `XDG_STATE_HOME`s: a container, a second session) number
/// their records alike and keep what they replace on a volume in one folder: rolling back
/// one's killed Replace takes only what its own process kept there, and leaves the other's
/// to its own undo (it was reported as this job's, kept and not put back, at every try).
#[test]
fn the_roll_back_of_a_killed_replace_leaves_another_journals_kept_items_alone() {
    let t = TempTree::new();
    let shm = TempTree::new_in("/dev/shm");
    let (home, other) = (t.dir("home"), t.dir("other"));
    let theirs = shm.file("two/x.txt", OLD);
    let replace = |home: &Path, src: &Path, dest: &Path| {
        ferry_in(home)
            .args(["mv", "--on-conflict", "replace"])
            .arg(src)
            .arg(dest)
            .output()
            .unwrap()
    };
    ok(&replace(&other, &t.file("x.txt", NEW), &shm.join("two")));
    let ours = shm.file("one/y.txt", OLD);
    let src = t.file("y.txt", NEW);
    let killed = ferry_in(&home)
        .env("FERRY_FAULT_POINT", "replace-placed")
        .args(["mv", "--on-conflict", "replace"])
        .arg(&src)
        .arg(shm.join("one"))
        .output()
        .unwrap();
    assert_eq!(killed.status.signal(), Some(9));
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_eq!(fs::read(&ours).unwrap(), OLD);
    assert_eq!(fs::read(&src).unwrap(), NEW);
    ok(&ferry_in(&other).arg("undo").output().unwrap());
    assert_eq!(fs::read(&theirs).unwrap(), OLD);
}

/// `ferry mv --on-conflict replace src dest` onto an older copy of `src` (every file a
/// Replace), killed once the move had emptied and removed source subfolders: undo found no
/// source to walk for them, so took back none of their files and put back none of the old
/// ones, each reported kept "at" the destination folder, left to be pruned from the staging
/// folder within a week.
#[test]
fn undo_after_a_killed_replace_by_move_takes_back_the_subfolders_it_emptied() {
    const FILES: &[&str] = &[
        "sub/deep/a.txt",
        "sub/deep/b.txt",
        "sub/more/c.txt",
        "z.txt",
    ];
    for point in ["renamed:2", "renamed:3", "job-ended"] {
        let t = TempTree::new();
        let home = t.dir("home");
        for name in FILES {
            t.file(format!("src/{name}"), NEW);
            t.file(format!("dest/src/{name}"), OLD);
        }
        let out = ferry_in(&home)
            .env("FERRY_FAULT_POINT", point)
            .args(["mv", "--on-conflict", "replace"])
            .arg(t.join("src"))
            .arg(t.join("dest"))
            .output()
            .unwrap();
        assert_eq!(out.status.signal(), Some(9), "killed at {point}");
        ok(&ferry_in(&home).arg("undo").output().unwrap());
        for name in FILES {
            let when = format!("killed at {point}, undone: {name}");
            assert_eq!(fs::read(t.join("src").join(name)).unwrap(), NEW, "{when}");
            assert_eq!(
                fs::read(t.join("dest/src").join(name)).unwrap(),
                OLD,
                "{when}"
            );
        }
        let staged = home.join("data/ferry/replaced");
        let left = fs::read_dir(&staged).map_or(0, |d| d.count());
        assert_eq!(left, 0, "killed at {point}: kept in the staging folder");
        assert_no_temporaries(&t.join("dest"));
    }
}
