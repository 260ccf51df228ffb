//! Pause and Cancel in the jobs panel: Pause reaches the engine and holds the copy, Resume
//! runs it to its end, Cancel asks once items are done (holding the job meanwhile) and ends
//! it cancelled, a job still planning counts nothing done, and a queued job's time starts
//! when it runs.

use super::*;

#[test]
fn pause_in_the_panel_holds_the_copy_and_resume_runs_it_to_the_end() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = big_paste(&fixture, &home);
    assert!(shows(&ferry, "Cancel"), "the panel shows the job");
    click(&mut ferry, "Pause");
    until(&mut ferry, "the engine's word that it paused", |f| {
        held(job(f))
    });
    assert!(shows(&ferry, "Resume") && !shows(&ferry, "Pause"));
    assert!(
        shows_containing(&ferry, "paused"),
        "the progress line says so"
    );

    // Held: nothing more is done (an item a worker had begun may still land first).
    let copied = home.join("Music/big");
    wait(&mut ferry, Duration::from_millis(200));
    let (done, on_disk) = (job(&ferry).items_done(), count(&copied));
    wait(&mut ferry, Duration::from_millis(500));
    assert_eq!(job(&ferry).items_done(), done, "no progress while paused");
    assert_eq!(count(&copied), on_disk, "nothing written while paused");
    assert!(on_disk < FILES, "paused before the end");
    assert!(job(&ferry).is_running());
    // The title says how far it is, for the task bar.
    let title = ferry.title();
    assert!(
        title.ends_with("% · Music — Ferry") && title.len() > "% · Music — Ferry".len(),
        "{title}"
    );

    click(&mut ferry, "Resume");
    jobs_done(&mut ferry);
    assert_eq!(ferry.title(), "Music — Ferry", "no percent once it ended");
    let (summary, cancelled) = ended(&ferry).expect("ended");
    assert!(!cancelled && summary.failed.is_empty());
    assert_eq!(count(&copied), FILES, "every file copied");
    assert!(shows(&ferry, "Copied “big” to “Music”."));
}

/// A copy of two folders cancelled in the second: the toast says the first was copied, and
/// that part of the second is there too (it named the first alone).
#[test]
fn a_cancel_in_the_second_folder_says_part_of_it_is_there() {
    let fixture = Fixture::new();
    let home = fixture.home();
    many_files(&home.join("aaa"), 2);
    many_files(&home.join("big"), FILES);
    let mut ferry = fixture.start(Some(&home));
    open_panel(&mut ferry);
    let _ = ferry.set_clip(crate::gui::copy_paste::Clip::files(
        vec![home.join("aaa"), home.join("big")],
        false,
    ));
    go(&mut ferry, &home.join("Music"));
    ctrl(&mut ferry, "v");
    until(&mut ferry, "some of big copied", |f| {
        job(f).items_done() > 10
    });
    click(&mut ferry, "Pause");
    until(&mut ferry, "the pause", |f| held(job(f)));
    click(&mut ferry, "Cancel");
    click(
        &mut ferry,
        iced_test::selector::id(modal::confirm::CONFIRM_ID),
    );
    jobs_done(&mut ferry);
    assert!(count(&home.join("Music/big")) < FILES);
    let said = "Cancelled: copied “aaa” to “Music” (and part of “big”).";
    assert!(shows(&ferry, said), "{said}: {:?}", ferry.toasts);
}

/// Asked whether to cancel a job that then ends on its own, the question goes: there is
/// nothing left to cancel, and its Cancel would do nothing.
#[test]
fn the_cancel_question_goes_when_its_job_ends_first() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = big_paste_paused(&fixture, &home);
    click(&mut ferry, "Cancel");
    assert!(ferry.confirm.is_some(), "asked");
    let id = job(&ferry).id;
    ferry.jobs.resume(id);
    jobs_done(&mut ferry);
    let (_, cancelled) = ended(&ferry).expect("ended");
    assert!(!cancelled);
    assert!(ferry.confirm.is_none(), "the question went with the job");
}

/// Ctrl+Z while the newest job runs says so in the window's words: the core's named the job
/// by a path "and 4999 more", in a sentence that did not parse.
#[test]
fn undo_while_the_newest_job_runs_says_to_wait_for_it() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = big_paste_paused(&fixture, &home);
    ctrl(&mut ferry, "z");
    let said = "Can't undo yet: the newest job is still running";
    until(&mut ferry, "the answer", |f| {
        crate::gui::tests::operations::shows_toast(f, said)
    });
    cancel_to_the_end(&mut ferry);
}

/// A running job asked about is held while the question is open (it does not race on
/// behind it), and goes on when the answer is Keep Going.
#[test]
fn a_job_asked_about_cancelling_is_held_until_answered() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = big_paste(&fixture, &home);
    until(&mut ferry, "some items copied", |f| job(f).items_done() > 0);
    click(&mut ferry, "Cancel");
    assert!(ferry.confirm.is_some(), "asked");
    until(&mut ferry, "held while asked", |f| held(job(f)));
    let done = job(&ferry).items_done();
    wait(&mut ferry, Duration::from_millis(300));
    assert_eq!(
        job(&ferry).items_done(),
        done,
        "nothing more done while asked"
    );
    named(&mut ferry, Named::Escape, Modifiers::empty());
    until(&mut ferry, "going on", |f| !held(job(f)));
    jobs_done(&mut ferry);
    let (_, cancelled) = ended(&ferry).expect("ended");
    assert!(!cancelled, "Keep Going let it finish");
}

#[test]
fn cancel_asks_once_items_are_done_and_the_job_ends_cancelled() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = big_paste_paused(&fixture, &home);

    click(&mut ferry, "Cancel");
    let question = format!("Cancel {}?", jobs::lowercase_first(&job(&ferry).title));
    assert!(question.starts_with("Cancel copying"), "{question}");
    assert_eq!(super::question(&ferry), Some(question.clone()));
    assert!(shows(&ferry, &question), "the question is drawn");
    // Keep Going (Escape): the job is left as it was.
    named(&mut ferry, Named::Escape, Modifiers::empty());
    assert!(ferry.confirm.is_none());
    assert!(job(&ferry).is_running() && job(&ferry).is_paused());

    click(&mut ferry, "Cancel");
    // The Cancel Job button.
    click(
        &mut ferry,
        iced_test::selector::id(modal::confirm::CONFIRM_ID),
    );
    jobs_done(&mut ferry);
    let (summary, cancelled) = ended(&ferry).expect("ended");
    assert!(cancelled, "ended as cancelled");
    assert_eq!(
        summary.not_done,
        [home.join("big")],
        "the folder was not finished"
    );
    assert!(count(&home.join("Music/big")) < FILES);
    // What was copied is said (not "nothing"), and can be undone: the folder and its files
    // (the window no longer holds the record once the journal does).
    let copied = count(&home.join("Music/big")) + 1;
    assert!(copied > 1, "the folder and some files");
    let said = format!(
        "Cancelled: copied {} items to “Music”.",
        crate::gui::format::count(copied)
    );
    assert!(shows(&ferry, &said), "{said}: {:?}", ferry.toasts);
    let undo = |t: &&crate::gui::Toast| t.actions.iter().any(|(label, _)| label == "Undo");
    assert!(ferry.toasts.iter().any(|t| undo(&t)), "{:?}", ferry.toasts);
}

#[test]
fn a_job_still_planning_counts_nothing_done_and_cancel_does_not_ask() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = big_paste(&fixture, &home);
    // What the engine reports while it plans a large tree: the items found so far.
    let progress = Progress {
        phase: Phase::Planning,
        bytes_done: 0,
        bytes_total: 0,
        items_done: 2500,
        items_total: 0,
        current: None,
        speed: 0.0,
        eta: None,
        share_done: None,
        paused: false,
    };
    let id = job(&ferry).id;
    send(
        &mut ferry,
        Message::Job(Event::Progress { job: id, progress }),
    );
    assert_eq!(job(&ferry).items_done(), 0);
    assert!(
        shows(&ferry, "Copying “big” to “Music” · 0%"),
        "the compact line counts nothing done yet"
    );
    click(&mut ferry, "Cancel");
    assert!(
        ferry.confirm.is_none(),
        "nothing is done: cancelled without a question"
    );
    jobs_done(&mut ferry);
    assert!(ended(&ferry).is_some_and(|(_, cancelled)| cancelled));
}

/// Cancel on a permanent delete says that what it deleted is gone: the question promised
/// that Undo takes it back, and a delete has no undo.
#[test]
fn cancel_of_a_permanent_delete_says_what_is_deleted_is_gone() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    open_panel(&mut ferry);
    // A delete as the engine reports it, part done: a real one of thousands of files could
    // end before a Pause held it (it did once in CI).
    let id = ferry_core::jobs::JobId(1_000_007);
    let paths = vec![home.join("Documents")];
    started(&mut ferry, id, Job::Delete { paths });
    deleting(&mut ferry, id, (1, 10), 0);
    click(&mut ferry, "Cancel");
    let said = "It is paused. What it has deleted is gone for good (the jobs panel counts it); \
                the rest is not deleted.";
    assert!(shows(&ferry, said), "{:?}", ferry.confirm);
}

/// A job queued behind another on its disks counts its time from its start: a copy of a
/// moment that waited said "Finished in" the wait, and its pace counted it.
#[test]
fn a_queued_jobs_time_starts_when_it_runs() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    let id = ferry_core::jobs::JobId(1_000_011);
    let paths = vec![home.join("Documents")];
    started(&mut ferry, id, Job::Delete { paths });
    wait(&mut ferry, Duration::from_millis(1200));
    deleting(&mut ferry, id, (0, 10), 0);
    let summary = ferry_core::jobs::Summary::default();
    send(
        &mut ferry,
        Message::Job(Event::Finished { job: id, summary }),
    );
    let State::Ended { took, .. } = job(&ferry).state else {
        panic!("ended: {:?}", job(&ferry).state);
    };
    assert!(took < Duration::from_millis(1000), "took {took:?}");
}
