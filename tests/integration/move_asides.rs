//! A move across file systems killed while it removes a source (renamed aside to
//! `.ferry-moving-<pid>-…` in its folder, checked, not unlinked yet): the next Ferry start
//! puts the source back under its name, so that `ferry undo` and `ferry resume` find it as
//! they find a source not removed yet; where its name is taken since, both are kept and the
//! start says so.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Output;

use ferry_tests::TempTree;

use crate::ferry_in;
use crate::jobs_support::assert_no_temporaries;
use crate::undo::ok;

/// `ferry mv SOURCES DEST` killed (SIGKILL) once a source is renamed aside and found as it
/// was copied, before it is unlinked.
fn kill_at_source_checked(home: &Path, sources: &[PathBuf], dest: &Path) {
    let out = ferry_in(home)
        .env("FERRY_FAULT_POINT", "source-checked")
        .arg("mv")
        .args(sources)
        .arg(dest)
        .output()
        .unwrap();
    assert_eq!(out.status.signal(), Some(9), "{out:?}");
}

/// The entries named `.ferry-moving-…` below `root`.
fn set_aside(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            if entry.file_name().as_bytes().starts_with(b".ferry-moving-") {
                found.push(entry.path());
            } else if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            }
        }
    }
    found
}

/// Any Ferry start recovers interrupted jobs: `ferry history` does, and says what it could
/// not put back on stderr.
fn start(home: &Path) -> Output {
    let out = ferry_in(home).arg("history").output().unwrap();
    let history = ok(&out);
    assert!(history.contains("INTERRUPTED"), "{history}");
    out
}

/// What `ferry undo` or `ferry resume` does after the start put the source back.
#[derive(Clone, Copy, Debug)]
enum Then {
    Undo,
    Resume,
}

/// Moves `files` (path below `root` -> contents) of the sources `sources` from tmpfs into a
/// folder of the work tree, kills the move at `source-checked`, starts Ferry again and then
/// undoes or resumes it: nothing is lost and nothing is left under a hidden name.
fn killed_then(sources: &[&[u8]], files: &[(&[u8], &[u8])], then: Then) {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    for (rel, data) in files {
        shm.file(OsStr::from_bytes(rel), data);
    }
    let sources: Vec<PathBuf> = sources
        .iter()
        .map(|s| shm.join(OsStr::from_bytes(s)))
        .collect();
    let dest = t.dir("dest");
    kill_at_source_checked(&home, &sources, &dest);
    assert!(
        !set_aside(shm.path()).is_empty(),
        "{then:?}: nothing set aside"
    );

    start(&home);
    assert_eq!(set_aside(shm.path()), Vec::<PathBuf>::new(), "{then:?}");
    for (rel, data) in files {
        let back = fs::read(shm.join(OsStr::from_bytes(rel)));
        assert_eq!(
            back.unwrap(),
            *data,
            "{then:?}: {rel:?} is back in the source"
        );
    }

    let verb = match then {
        Then::Undo => "undo",
        Then::Resume => "resume",
    };
    ok(&ferry_in(&home).arg(verb).output().unwrap());
    for (rel, data) in files {
        let rel = Path::new(OsStr::from_bytes(rel));
        let (source, copy) = (fs::read(shm.join(rel)).ok(), fs::read(dest.join(rel)).ok());
        match then {
            Then::Undo => {
                assert_eq!(
                    source.as_deref(),
                    Some(*data),
                    "{rel:?} stays in the source"
                );
                assert_eq!(copy, None, "{rel:?}: its copy is taken back");
            }
            Then::Resume => {
                assert_eq!(source, None, "{rel:?}: its source is removed");
                assert_eq!(
                    copy.as_deref(),
                    Some(*data),
                    "{rel:?} is at the destination"
                );
            }
        }
    }
    assert_eq!(set_aside(shm.path()), Vec::<PathBuf>::new(), "{then:?}");
    assert_no_temporaries(&dest);
}

#[test]
fn a_file_set_aside_by_a_killed_move_is_put_back_then_undone_or_resumed() {
    for then in [Then::Undo, Then::Resume] {
        killed_then(&[b"doc"], &[(b"doc", b"the document")], then);
    }
}

#[test]
fn a_file_of_a_tree_set_aside_by_a_killed_move_is_put_back_then_undone_or_resumed() {
    // Below the source's top folder only: found by a walk of the source, not of its parent.
    let files: [(&[u8], &[u8]); 3] = [
        (b"src/d/one", b"one"),
        (b"src/d/two", b"two"),
        (b"src/d/e/three", b"three"),
    ];
    for then in [Then::Undo, Then::Resume] {
        killed_then(&[b"src"], &files, then);
    }
}

/// Names are bytes: one that is not UTF-8 comes back exactly, a file given as a source as
/// one inside a moved folder.
#[test]
fn a_source_whose_name_is_not_utf8_is_put_back_under_that_very_name() {
    let name: &[u8] = b"caf\xe9 \xff.txt";
    let inside = [b"src/".as_slice(), name].concat();
    killed_then(&[name], &[(name, b"loose")], Then::Undo);
    killed_then(&[b"src"], &[(&inside, b"inside")], Then::Resume);
}

/// The user made a new file at the source's name before Ferry started again: neither is
/// touched, the start names both, and so does an undo, which stays to be done again. Once the
/// name is free, the next start puts the source back and the undo completes.
#[test]
fn a_source_whose_name_was_taken_since_stays_set_aside_and_is_reported() {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    let doc = shm.file("doc", "moved");
    let dest = t.dir("dest");
    kill_at_source_checked(&home, std::slice::from_ref(&doc), &dest);
    let aside = set_aside(shm.path());
    assert_eq!(aside.len(), 1, "{aside:?}");
    fs::write(&doc, "made since").unwrap();

    let out = start(&home);
    let said = String::from_utf8_lossy(&out.stderr);
    for path in [&doc, &aside[0]] {
        assert!(said.contains(&*path.to_string_lossy()), "{said}");
    }
    assert_eq!(fs::read(&doc).unwrap(), b"made since");
    assert_eq!(fs::read(&aside[0]).unwrap(), b"moved");
    assert_eq!(fs::read(dest.join("doc")).unwrap(), b"moved");

    let undo = ferry_in(&home).arg("undo").output().unwrap();
    let said = String::from_utf8_lossy(&undo.stderr);
    assert_eq!(undo.status.code(), Some(1), "{said}");
    assert!(said.contains(&*aside[0].to_string_lossy()), "{said}");
    assert_eq!(fs::read(&doc).unwrap(), b"made since");
    assert_eq!(fs::read(&aside[0]).unwrap(), b"moved");

    fs::rename(&doc, shm.join("doc.new")).unwrap();
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_eq!(fs::read(&doc).unwrap(), b"moved");
    assert_eq!(fs::read(shm.join("doc.new")).unwrap(), b"made since");
    assert!(!dest.join("doc").exists(), "the copy is taken back");
    assert_eq!(set_aside(shm.path()), Vec::<PathBuf>::new());
}

/// A name too long to be part of the hidden one is set aside by number: the start cannot
/// tell it back, so it leaves it and says so, rather than guess.
#[test]
fn a_source_whose_name_is_too_long_to_tell_back_stays_set_aside_and_is_reported() {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    let long = shm.file("x".repeat(250), "long");
    let dest = t.dir("dest");
    kill_at_source_checked(&home, std::slice::from_ref(&long), &dest);
    let aside = set_aside(shm.path());
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert!(aside[0].to_string_lossy().ends_with("-1#0"), "{aside:?}");

    let said = String::from_utf8_lossy(&start(&home).stderr).into_owned();
    assert!(said.contains(&*aside[0].to_string_lossy()), "{said}");
    assert_eq!(fs::read(&aside[0]).unwrap(), b"long");
    assert_eq!(
        fs::read(dest.join(long.file_name().unwrap())).unwrap(),
        b"long"
    );
}
