//! Titles, orders and end messages of jobs, checked against what users read.

use super::*;
use ferry_core::jobs::{ConflictPolicy, Summary};

/// Two folders copied in part at a cancel are both named (the first alone was).
#[test]
fn the_items_a_cancel_left_in_part_are_each_named() {
    let (a, b, c) = (
        Path::new("/h/Big"),
        Path::new("/h/Downloads"),
        Path::new("/h/c"),
    );
    assert_eq!(named(&[a]), "“Big”");
    assert_eq!(named(&[a, b]), "“Big” and “Downloads”");
    assert_eq!(named(&[a, b, c]), "3 items");
}

/// "Cancelled: undid: Copy 3 items…" read as an undo that had finished.
#[test]
fn a_cancelled_undo_says_it_was_cancelled_and_undo_finishes_it() {
    let dir = tempfile::tempdir().unwrap();
    let journal = ferry_core::jobs::UndoJournal::at(dir.path().join("journal.jsonl"));
    let job = copy(&["/h/a", "/h/b", "/h/c"], "/h/Music");
    journal.begin(&job).unwrap().expect("journaled");
    let record = journal.records().unwrap().pop().unwrap();
    let undo = Job::Undo {
        record: Box::new(record),
        trash: ferry_core::jobs::TrashRoots::home_only(PathBuf::from("/h/.Trash")),
        on_conflict: ConflictPolicy::Ask,
    };
    let summary = Summary::default();
    assert_eq!(
        done_message(&undo, &summary, true, None),
        "Cancelled the undo of: copy 3 items to “Music”; Undo finishes it."
    );
    assert_eq!(
        done_message(&undo, &summary, false, None),
        "Undid: Copy 3 items to “Music”."
    );
}

/// An undo whose every item was skipped when asked says it did not undo the job.
#[test]
fn an_undo_that_skipped_everything_says_it_did_not_undo() {
    let dir = tempfile::tempdir().unwrap();
    let journal = ferry_core::jobs::UndoJournal::at(dir.path().join("journal.jsonl"));
    journal.begin(&copy(&["/h/a"], "/h/Music")).unwrap();
    let undo = Job::Undo {
        record: Box::new(journal.records().unwrap().pop().unwrap()),
        trash: ferry_core::jobs::TrashRoots::home_only(PathBuf::from("/h/.Trash")),
        on_conflict: ConflictPolicy::Ask,
    };
    let summary = Summary {
        skipped: vec![ferry_core::jobs::Skipped {
            path: PathBuf::from("/h/a"),
            reason: ferry_core::jobs::SkipReason::Exists,
        }],
        ..Summary::default()
    };
    assert_eq!(
        done_message(&undo, &summary, false, None),
        "Did not undo: Copy “a” to “Music” (1 skipped)."
    );
}

/// A job stopped part way is named with what it did: "Undid: Move 15,000 items to the
/// trash" after 1,280 had moved read as all of them.
#[test]
fn a_job_stopped_part_way_is_named_with_what_it_did() {
    let dir = tempfile::tempdir().unwrap();
    let journal = ferry_core::jobs::UndoJournal::at(dir.path().join("journal.jsonl"));
    journal
        .begin(&copy(&["/h/a", "/h/b", "/h/c"], "/h/Music"))
        .unwrap();
    let mut record = journal.records().unwrap().pop().unwrap();
    record.counts.done = 1;
    record.counts.not_done = 2;
    assert_eq!(record_in_words(&record), "Copy 3 items to “Music” (1 done)");
    let undo = Job::Undo {
        record: Box::new(record),
        trash: ferry_core::jobs::TrashRoots::home_only(PathBuf::from("/h/.Trash")),
        on_conflict: ConflictPolicy::Ask,
    };
    assert_eq!(
        done_message(&undo, &Summary::default(), false, None),
        "Undid: Copy 3 items to “Music” (1 done)."
    );
}

fn copy(sources: &[&str], dest: &str) -> Job {
    Job::Copy {
        sources: sources.iter().map(PathBuf::from).collect(),
        dest_dir: PathBuf::from(dest),
        dest_name: None,
        on_conflict: ConflictPolicy::Ask,
    }
}

#[test]
fn titles_count_what_planning_found() {
    let job = copy(&["/a/x", "/a/y"], "/b/Backup");
    assert_eq!(title(&job, None), "Copying 2 items to “Backup”");
    let totals = Totals {
        items: 15,
        bytes: 0,
        folders: 3,
        cross_device: false,
        ..Totals::default()
    };
    assert_eq!(
        title(&job, Some(&totals)),
        "Copying 3 folders and 12 files to “Backup”"
    );
    // One of the two free, the other waiting for an answer: not "Copying 1 file".
    let one_free = Totals { items: 1, ..totals };
    assert_eq!(title(&job, Some(&one_free)), "Copying 2 items to “Backup”");
    assert_eq!(
        title(&copy(&["/a/report.pdf"], "/b"), None),
        "Copying “report.pdf” to “b”"
    );
    assert_eq!(title(&copy(&["/a/x"], "/a"), None), "Duplicating “x”");
    assert_eq!(
        title(&copy(&["/a/photos"], "/b"), Some(&totals)),
        "Copying “photos” to “b”",
        "one folder is named as it was before planning"
    );
    // Every item waits for a conflict's answer: planning found nothing else to write.
    let nothing = Totals { items: 0, ..totals };
    assert_eq!(
        title(&job, Some(&nothing)),
        "Copying 2 items to “Backup”",
        "not '0 files'"
    );
}

#[test]
fn a_job_giving_its_source_a_new_name_says_the_name() {
    let to = |dest: &str, name: &str| Job::Copy {
        sources: vec![PathBuf::from("/h/a.txt")],
        dest_dir: PathBuf::from(dest),
        dest_name: Some(name.into()),
        on_conflict: ConflictPolicy::Skip,
    };
    assert_eq!(in_words(&to("/h", "b.txt")), "Copy “a.txt” to “b.txt”");
    assert_eq!(
        in_words(&to("/h/Docs", "b.txt")),
        "Copy “a.txt” to “Docs” as “b.txt”"
    );
    let done = Summary {
        done: vec![PathBuf::from("/h/a.txt")],
        ..Summary::default()
    };
    assert_eq!(
        done_message(&to("/h", "b.txt"), &done, false, None),
        "Copied “a.txt” to “b.txt”."
    );
}

/// Merged into a folder holding two of its four files, which were skipped: "Copied 3
/// items to “dst” (2 skipped)" was said for the two files written, the folder merged
/// into counted.
#[test]
fn a_merge_says_only_what_it_put_in_place() {
    let tmp = tempfile::tempdir().unwrap();
    let (src, dst) = (tmp.path().join("src/s"), tmp.path().join("dst"));
    std::fs::create_dir_all(&src).unwrap();
    std::fs::create_dir_all(dst.join("s")).unwrap();
    for n in ["f1", "f2", "f3", "f4"] {
        std::fs::write(src.join(n), "new").unwrap();
    }
    for n in ["f1", "f2"] {
        std::fs::write(dst.join("s").join(n), "old").unwrap();
    }
    // Skip merges a folder into a folder and skips the names taken.
    let job = Job::Copy {
        sources: vec![src],
        dest_dir: dst,
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    };
    let staging = ferry_core::jobs::StagingRoots {
        home: None,
        volumes: false,
    };
    let (engine, events) = ferry_core::jobs::Engine::start_with(staging);
    let id = engine.submit(job.clone());
    let summary = loop {
        match events
            .recv_timeout(std::time::Duration::from_secs(30))
            .unwrap()
        {
            ferry_core::jobs::Event::Finished { job, summary } if job == id => break summary,
            ferry_core::jobs::Event::Cancelled { job, .. } if job == id => panic!("cancelled"),
            _ => {}
        }
    };
    let said = done_message(&job, &summary, false, None);
    assert!(said.starts_with("Copied 2 items"), "{said}");
    assert!(said.contains("2 skipped"), "{said}");
}

#[test]
fn emptying_the_trash_says_what_it_deleted_not_that_the_trash_is_empty() {
    let job = Job::EmptyTrash {
        roots: ferry_core::jobs::TrashRoots::home_only(PathBuf::from("/h/.local/share/Trash")),
        listed: Some(Vec::new()),
    };
    let summary = Summary {
        done: vec![PathBuf::from("/h/.local/share/Trash/files/a"); 3],
        ..Summary::default()
    };
    assert_eq!(
        done_message(&job, &summary, false, None),
        "Deleted 3 items from the trash permanently."
    );
}

#[test]
fn what_was_done_and_what_was_not() {
    let job = Job::Move {
        sources: vec![PathBuf::from("/a/x")],
        dest_dir: PathBuf::from("/p/Photos"),
        dest_name: None,
        on_conflict: ConflictPolicy::Ask,
    };
    let summary = Summary {
        done: vec![PathBuf::from("/a/x"); 12],
        ..Summary::default()
    };
    assert_eq!(
        done_message(&job, &summary, false, None),
        "Moved 12 items to “Photos”."
    );
    let failed = Summary {
        failed: vec![ferry_core::jobs::Failed {
            path: PathBuf::from("/a/y"),
            error: std::sync::Arc::new(ferry_core::Error::Cancelled),
        }],
        ..summary
    };
    assert_eq!(
        done_message(&job, &failed, true, None),
        "Cancelled: moved 12 items to “Photos” (1 failed)."
    );
    // Why it stopped, in words (it said "3076096 bytes needed, 2097152 available").
    let stopped = Summary {
        stopped_by: Some(std::sync::Arc::new(ferry_core::Error::NoSpace {
            path: PathBuf::from("/p"),
            needed: 3_076_096,
            available: 2_097_152,
        })),
        ..Summary::default()
    };
    assert_eq!(
        done_message(&job, &stopped, false, None),
        "Moved nothing to “Photos” (stopped: there is not enough space on the disk \
         holding “p”: 3.1 MB needed, 2.1 MB free)."
    );
}

/// One link is "a link": "Made links to “f4.txt”" (round 125).
#[test]
fn one_link_is_a_link() {
    let job = Job::Link {
        targets: vec![PathBuf::from("/a/f4.txt")],
        dest_dir: PathBuf::from("/b/dst"),
        on_conflict: ConflictPolicy::Ask,
    };
    assert_eq!(title(&job, None), "Making a link to “f4.txt” in “dst”");
    let summary = Summary {
        done: vec![PathBuf::from("/a/f4.txt")],
        ..Summary::default()
    };
    assert_eq!(
        done_message(&job, &summary, false, None),
        "Made a link to “f4.txt” in “dst”."
    );
}

/// The end counts as the title did ("Moving 1 folder and 4 files", then "Moved 2
/// items" before); what was not done whole is counted by the items given.
#[test]
fn a_transfer_done_whole_is_counted_as_its_title_counted_it() {
    let sources = vec![PathBuf::from("/a/docs"), PathBuf::from("/a/x.txt")];
    let job = Job::Move {
        sources: sources.clone(),
        dest_dir: PathBuf::from("/p/Photos"),
        dest_name: None,
        on_conflict: ConflictPolicy::Ask,
    };
    let totals = Totals {
        items: 5,
        folders: 1,
        ..Totals::default()
    };
    assert_eq!(
        title(&job, Some(&totals)),
        "Moving 1 folder and 4 files to “Photos”"
    );
    let summary = Summary {
        done: sources,
        ..Summary::default()
    };
    assert_eq!(
        done_message(&job, &summary, false, Some(&totals)),
        "Moved 1 folder and 4 files to “Photos”."
    );
    assert_eq!(
        done_message(&job, &summary, true, Some(&totals)),
        "Cancelled: moved 2 items to “Photos”."
    );
}

/// Not "Moved nothing to the trash (1 failed)." with the reason a click away.
#[test]
fn a_job_that_only_failed_on_one_item_says_why() {
    let outer = PathBuf::from("/h/outer");
    let summary = Summary {
        failed: vec![ferry_core::jobs::Failed {
            path: outer.clone(),
            error: std::sync::Arc::new(ferry_core::Error::HoldsMount {
                path: outer.clone(),
                mount: PathBuf::from("/h/outer/usb"),
            }),
        }],
        ..Summary::default()
    };
    let trash = Job::Trash {
        paths: vec![outer],
        roots: ferry_core::jobs::TrashRoots::home_only(PathBuf::from("/h/.Trash")),
    };
    assert_eq!(
        done_message(&trash, &summary, false, None),
        "“outer” holds “/h/outer/usb”, where a disk or a folder is mounted; it was left alone."
    );
    // Cancelled, it says so and counts.
    let said = done_message(&trash, &summary, true, None);
    assert_eq!(said, "Cancelled: moved nothing to the trash (1 failed).");
}

/// Not "Renamed to “b.txt” (1 failed)." when nothing was renamed.
#[test]
fn a_rename_or_new_folder_that_failed_says_why() {
    let refused = |path: &str| Summary {
        failed: vec![ferry_core::jobs::Failed {
            path: PathBuf::from(path),
            error: std::sync::Arc::new(ferry_core::Error::io(
                "rename",
                path,
                std::io::Error::from_raw_os_error(rustix::io::Errno::PERM.raw_os_error()),
            )),
        }],
        ..Summary::default()
    };
    let rename = Job::Rename {
        path: PathBuf::from("/h/locked.txt"),
        new_name: "b.txt".into(),
    };
    let said = done_message(&rename, &refused("/h/locked.txt"), false, None);
    assert!(
        said.starts_with("“locked.txt” can't be renamed: "),
        "{said}"
    );
    let made = Job::CreateFolder {
        parent: PathBuf::from("/h"),
        name: "new".into(),
    };
    let said = done_message(&made, &refused("/h/new"), false, None);
    assert!(!said.starts_with("Created"), "{said}");
}

#[test]
fn a_trash_of_folders_and_files_counts_items() {
    let job = Job::Trash {
        paths: vec![
            PathBuf::from("/h/a"),
            PathBuf::from("/h/b"),
            PathBuf::from("/h/c.txt"),
        ],
        roots: ferry_core::jobs::TrashRoots::home_only("/h/.Trash"),
    };
    let planned = Totals {
        items: 3,
        ..Totals::default()
    };
    assert_eq!(title(&job, Some(&planned)), "Moving 3 items to the trash");
}

/// A name with a newline broke the toast, the status bar and the jobs panel's title in
/// two, and a 250-character one pushed the toast's buttons off the window.
#[test]
fn a_renamed_name_is_said_on_one_line_and_shortened() {
    let rename = |new_name: &str| Job::Rename {
        path: PathBuf::from("/h/two\nlines"),
        new_name: new_name.into(),
    };
    let job = rename("two\nlines.md");
    assert_eq!(title(&job, None), "Renaming “two↵lines” to “two↵lines.md”");
    assert_eq!(in_words(&job), "Rename “two↵lines” to “two↵lines.md”");
    let said = done_message(&job, &Summary::default(), false, None);
    assert_eq!(said, "Renamed to “two↵lines.md”.");
    let said = done_message(&rename(&"W".repeat(250)), &Summary::default(), false, None);
    assert!(said.chars().count() <= 80 && said.contains('…'), "{said}");
    // Undone, its undo's toast says the job in words: it ran off the window.
    let said = in_words(&rename(&"Q".repeat(200)));
    assert!(said.chars().count() <= 90 && said.contains('…'), "{said}");
}

#[test]
fn undo_and_redo_name_a_job_as_an_order() {
    assert_eq!(
        in_words(&copy(&["/a/x.txt", "/a/y", "/a/z"], "/b/Backup")),
        "Copy 3 items to “Backup”"
    );
    let one = Job::Move {
        sources: vec![PathBuf::from("/h/photo.jpg")],
        dest_dir: PathBuf::from("/h/Documents"),
        dest_name: None,
        on_conflict: ConflictPolicy::Ask,
    };
    assert_eq!(in_words(&one), "Move “photo.jpg” to “Documents”");
    assert_eq!(in_words(&copy(&["/a/x.txt"], "/a")), "Duplicate “x.txt”");
}
