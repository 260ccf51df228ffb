//! The plan's size, and what the planning walk refuses of the sources it is given.

use std::fs;
use std::path::{Path, PathBuf};

use super::*;
use crate::jobs::{ConflictPolicy, Engine, Event, Job, StagingRoots, Summary};

#[test]
fn a_planned_item_stays_compact() {
    // 1,000,000 items: 80 MB of records, plus names and 8 bytes of result each.
    assert!(
        std::mem::size_of::<Item>() <= 80,
        "{}",
        std::mem::size_of::<Item>()
    );
}

fn run(job: Job) -> Summary {
    let (engine, events) = Engine::start_with(StagingRoots {
        home: None,
        volumes: false,
    });
    let id = engine.submit(job);
    for event in events.iter() {
        if let Event::Finished { job, summary } = event
            && job == id
        {
            return summary;
        }
    }
    panic!("the engine stopped without finishing the job");
}

fn failed_with<'a>(summary: &'a Summary, path: &Path) -> &'a crate::Error {
    let failed = summary.failed.iter().find(|f| f.path == path);
    &failed
        .unwrap_or_else(|| panic!("{} did not fail: {summary:#?}", path.display()))
        .error
}

#[test]
fn a_source_written_with_a_final_slash_must_be_a_folder() {
    let tmp = tempfile::tempdir_in("/dev/shm").unwrap();
    let t = tmp.path();
    let file = t.join("file");
    fs::write(&file, "kept").unwrap();
    fs::create_dir_all(t.join("folder/inside")).unwrap();
    fs::write(t.join("folder/inside/f"), "f").unwrap();
    std::os::unix::fs::symlink(t.join("folder"), t.join("link")).unwrap();
    std::os::unix::fs::symlink(&file, t.join("file-link")).unwrap();
    fs::create_dir(t.join("dest")).unwrap();
    fs::write(t.join("gone"), "gone").unwrap();
    let slashed = |name: &str| PathBuf::from(format!("{}/{name}/", t.display()));

    let summary = run(Job::Copy {
        sources: vec![slashed("file"), slashed("folder")],
        dest_dir: t.join("dest"),
        on_conflict: ConflictPolicy::Skip,
    });
    let error = failed_with(&summary, &slashed("file"));
    assert_eq!(
        error.to_string(),
        format!(
            "cannot copy {}: Not a directory (os error 20)",
            slashed("file").display()
        )
    );
    assert!(!t.join("dest/file").exists());
    assert!(t.join("dest/folder/inside/f").exists());

    let summary = run(Job::Delete {
        paths: vec![
            slashed("file"),
            slashed("file-link"),
            slashed("link"),
            t.join("gone"),
        ],
    });
    assert_eq!(summary.failed.len(), 2, "{summary:#?}");
    failed_with(&summary, &slashed("file"));
    failed_with(&summary, &slashed("file-link"));
    assert_eq!(fs::read(&file).unwrap(), b"kept");
    assert!(t.join("file-link").exists());
    // The link to a folder goes, never what it points to.
    assert!(t.join("link").symlink_metadata().is_err());
    assert!(t.join("folder/inside/f").exists());
    assert!(!t.join("gone").exists());
}
