//! The window's banner for a job a crash interrupted, with a real journal.

use std::fs;

use ferry_core::jobs::{ConflictPolicy, Job, Summary, UndoJournal};

use super::*;
use crate::gui::screen::recovery::{self, Choice};

/// A move of `home/src/k1` into `home/dst`, begun in `journal` by a process that is gone.
fn move_begun_by_a_dead_process(journal: &UndoJournal, home: &Path) -> u64 {
    fs::create_dir_all(home.join("dst")).unwrap();
    fs::create_dir_all(home.join("src")).unwrap();
    fs::write(home.join("src/k1"), "k1").unwrap();
    let job = Job::Move {
        sources: vec![home.join("src/k1")],
        dest_dir: home.join("dst"),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    };
    let seq = journal.begin(&job).unwrap().unwrap();
    let text = fs::read_to_string(journal.path()).unwrap();
    let mine = format!("\"pid\":{}", std::process::id());
    fs::write(journal.path(), text.replace(&mine, "\"pid\":0")).unwrap();
    seq
}

/// The banner's choice acts on the job as the journal has it then, not as it was found:
/// rolled back from the command line while the banner was up, Resume moved everything
/// again, and Roll back undid a job `ferry resume` had finished.
#[test]
fn the_banner_does_nothing_to_a_job_rolled_back_elsewhere_since() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let journal = UndoJournal::at(fixture.dir.path().join("state/journal.jsonl"));
    let seq = move_begun_by_a_dead_process(&journal, &home);
    let (found, _) = journal.start_up();
    assert_eq!(found.len(), 1);
    let mut ferry = fixture.start(Some(&home));
    send(
        &mut ferry,
        Message::Recovery(recovery::Message::Found(found)),
    );
    // `ferry undo` in a terminal, meanwhile.
    journal.mark_undone(seq, &Summary::default()).unwrap();
    send(
        &mut ferry,
        Message::Recovery(recovery::Message::Chose(Choice::Resume)),
    );
    super::operations::until(&mut ferry, "the banner's outcome", |f| {
        shows_containing(f, "no longer interrupted") || shows_containing(f, "Resumed")
    });
    assert!(
        home.join("src/k1").exists(),
        "moved by a resume of an undone job"
    );
    assert!(!home.join("dst/k1").exists());
    assert!(
        shows_containing(&ferry, "no longer interrupted"),
        "the banner says why nothing was done"
    );
}
