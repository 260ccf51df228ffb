//! Rename and create-folder jobs: one call each, never replacing anything, recorded for undo.

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::MetadataExt;

use ferry_core::jobs::{How, Job, Operation};
use ferry_tests::TempTree;

use crate::jobs_support::{non_utf8, run_job};

#[test]
fn rename_renames_and_records_the_same_inode() {
    let t = TempTree::new();
    let a = t.file("a", "a");
    let ino = fs::metadata(&a).unwrap().ino();
    let out = run_job(Job::Rename {
        path: a.clone(),
        new_name: non_utf8("b").to_owned(),
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    let renamed = t.join(non_utf8("b"));
    assert_eq!(fs::read(&renamed).unwrap(), b"a");
    assert!(!a.exists());
    let entries: Vec<_> = out.summary.record.entries().collect();
    assert_eq!(out.summary.record.operation(), Operation::Rename);
    assert_eq!((entries[0].how, entries[0].id.ino), (How::Moved, ino));
    assert_eq!(
        (entries[0].source.clone(), entries[0].dest.clone()),
        (a, renamed)
    );
}

#[test]
fn rename_never_replaces_and_refuses_bad_names() {
    let t = TempTree::new();
    let a = t.file("a", "a");
    t.file("b", "b");
    // A hard link of the same file: plain rename(2) would "succeed" and do nothing.
    fs::hard_link(&a, t.join("c")).unwrap();
    for name in ["b", "c", "", "x/y", ".."] {
        let out = run_job(Job::Rename {
            path: a.clone(),
            new_name: OsString::from(name),
        });
        assert_eq!(out.summary.failed.len(), 1, "{name:?}: {:#?}", out.summary);
        assert!(out.summary.record.is_empty());
        // A name taken is said of that name ("An item named “a” is already there" before).
        if name == "b" || name == "c" {
            let error = &out.summary.failed[0].error;
            assert_eq!(error.path(), Some(t.join(name).as_path()), "{error}");
        }
    }
    assert_eq!(fs::read(&a).unwrap(), b"a");
    assert_eq!(fs::read(t.join("b")).unwrap(), b"b");
}

#[test]
fn create_folder_creates_once() {
    let t = TempTree::new();
    let out = run_job(Job::CreateFolder {
        parent: t.path().to_path_buf(),
        name: "new".into(),
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    let made = t.join("new");
    assert!(made.is_dir());
    let entry = out.summary.record.entries().next().unwrap();
    assert_eq!(
        (entry.dest, entry.how, entry.id.ino),
        (
            made.clone(),
            How::Created,
            fs::metadata(&made).unwrap().ino()
        )
    );
    let again = run_job(Job::CreateFolder {
        parent: t.path().to_path_buf(),
        name: "new".into(),
    });
    assert!(
        again.summary.failed[0]
            .error
            .to_string()
            .contains("File exists")
    );
}
