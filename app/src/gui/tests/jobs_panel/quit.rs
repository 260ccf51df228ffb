//! Quitting while jobs run: the question, what it says of a move removing its originals,
//! the jobs cancelled, and a quit that does not wait for ever.

use super::*;

#[test]
fn quit_while_a_copy_runs_cancels_it_and_quits_after_a_permanent_delete() {
    let fixture = Fixture::new();
    let home = fixture.home();
    many_files(&home.join("big"), FILES);
    let mut ferry = fixture.start(Some(&home));
    // First a permanent delete: a job the undo journal keeps no record of.
    select(&mut ferry, "notes.md");
    named(&mut ferry, Named::Delete, Modifiers::SHIFT);
    alt(&mut ferry, "d");
    jobs_done(&mut ferry);
    assert!(!home.join("notes.md").exists());

    paste_big(&mut ferry, &home);
    ctrl(&mut ferry, "q");
    assert_eq!(
        question(&ferry).as_deref(),
        Some("Quit while 1 job is running?")
    );
    // Cancel Jobs and Quit: once the copy has ended and its end is recorded, Ferry quits
    // (saving its session on the way out).
    alt(&mut ferry, "c");
    until(&mut ferry, "the quit", |_| {
        fixture.store().load().session.is_some()
    });
    assert!(ended(&ferry).is_some_and(|(_, cancelled)| cancelled));
}

/// Quit and Cancel while a move removes its originals: cancelled there, it finishes that (each
/// original left would be both copied and in place), so neither may say the rest is cancelled.
#[test]
fn quit_and_cancel_while_a_move_removes_its_originals_say_it_finishes_that() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    open_panel(&mut ferry);
    let id = ferry_core::jobs::JobId(1_000_002);
    let job = Job::Move {
        sources: vec![home.join("Documents"), home.join("notes.md")],
        dest_dir: home.join("Music"),
        dest_name: None,
        on_conflict: ConflictPolicy::Ask,
    };
    started(&mut ferry, id, job);
    // Not seen removing yet (its phase is known a tenth of a second late): said as may be.
    ctrl(&mut ferry, "q");
    let message = ferry.confirm.as_ref().map(|c| c.message().to_owned());
    assert!(
        message.as_deref().is_some_and(|m| m.ends_with(
            "the rest is cancelled, except that a move already removing its originals finishes \
             removing them."
        )),
        "{message:?}"
    );
    named(&mut ferry, Named::Escape, Modifiers::empty());
    removing_originals(&mut ferry, id, 2);
    ctrl(&mut ferry, "q");
    let message = ferry.confirm.as_ref().map(|c| c.message().to_owned());
    assert_eq!(
        message.as_deref(),
        Some(
            "What it has done so far stays done, and can be undone; it has copied everything \
             and finishes removing the originals first."
        )
    );
    named(&mut ferry, Named::Escape, Modifiers::empty());
    click(&mut ferry, "Cancel");
    assert!(
        ferry.confirm.is_none(),
        "no question: it cannot be cancelled"
    );
    assert!(
        shows_containing(&ferry, "it can be paused, not cancelled"),
        "{:?}",
        ferry.toasts
    );
    let summary = ferry_core::jobs::Summary::default();
    send(
        &mut ferry,
        Message::Job(Event::Finished { job: id, summary }),
    );
}

/// The quit question left open while its jobs go on said what was true when asked: "Quit
/// while 1 job is running?" after the move had ended. It is said again as they go on, the
/// keyboard's button kept, and once none runs it asks only whether to quit.
#[test]
fn the_quit_question_follows_the_jobs_while_open() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    let id = ferry_core::jobs::JobId(1_000_003);
    let job = Job::Move {
        sources: vec![home.join("Documents")],
        dest_dir: home.join("Music"),
        dest_name: None,
        on_conflict: ConflictPolicy::Ask,
    };
    started(&mut ferry, id, job);
    ctrl(&mut ferry, "q");
    removing_originals(&mut ferry, id, 1);
    let message = ferry.confirm.as_ref().map(|c| c.message().to_owned());
    assert!(
        message.is_some_and(|m| m.ends_with("finishes removing the originals first.")),
        "said again once the move removes its originals"
    );
    let summary = ferry_core::jobs::Summary::default();
    send(
        &mut ferry,
        Message::Job(Event::Finished { job: id, summary }),
    );
    let confirm = ferry.confirm.as_ref().expect("still asked");
    assert_eq!(
        (confirm.title(), confirm.message(), confirm.confirm_label()),
        ("Quit Ferry?", "Every job has ended.", "Quit")
    );
    assert_eq!(confirm.focus(), crate::gui::modal::confirm::Choice::Cancel);
    named(&mut ferry, Named::Enter, Modifiers::empty());
    assert!(ferry.confirm.is_none() && !ferry.quitting, "kept open");
}

/// Job `id`, a move, reports that it is removing its originals, `items` in all.
fn removing_originals(ferry: &mut Ferry, id: ferry_core::jobs::JobId, items: u64) {
    deleting(ferry, id, (1, items), 10);
}

/// Quitting with jobs running waits for them a few seconds at most: one blocked in a file
/// system that stopped answering never ends, and the window quit only when it did.
#[test]
fn quitting_gives_up_on_jobs_that_do_not_end() {
    let fixture = Fixture::new();
    let mut ferry = fixture.start(Some(&fixture.home()));
    ferry.quitting = true;
    ferry.quit_asked = Some(Instant::now());
    send(&mut ferry, Message::QuitTick);
    assert!(fixture.store().load().session.is_none(), "waits a while");
    ferry.quit_asked = Some(Instant::now() - crate::gui::dialogs::QUIT_PATIENCE);
    send(&mut ferry, Message::QuitTick);
    assert!(fixture.store().load().session.is_some(), "then quits");
}

/// Ctrl+W on the last tab closes the window, as Nautilus's does, but asks first while a job
/// runs, as Ctrl+Q does: the running copy was cancelled unasked.
#[test]
fn closing_the_last_tab_while_a_job_runs_asks() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = big_paste_paused(&fixture, &home);
    ctrl(&mut ferry, "w");
    assert_eq!(
        question(&ferry).as_deref(),
        Some("Quit while 1 job is running?")
    );
    named(&mut ferry, Named::Escape, Modifiers::empty());
    assert!(job(&ferry).is_running(), "not cancelled");
    cancel_to_the_end(&mut ferry);
}
