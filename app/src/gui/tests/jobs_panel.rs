//! The jobs panel with real jobs: Pause reaches the engine and holds the copy, Resume runs it
//! to its end, Cancel asks once items are done and ends the job cancelled, a job still
//! planning counts nothing done, and Retry failed runs again only what failed. The panel is
//! opened from the window menu and its buttons are clicked through the window's view.

use std::fs;

use ferry_core::jobs::{ConflictPolicy, Event, Job, Phase, Progress};
use iced_test::selector::Candidate;

use super::operations::{go, jobs_done, select, until};
use super::*;
use crate::gui::jobs::{State, WindowJob};

/// Files in the folder copied: enough that the copy still runs while the test acts on it
/// (a few seconds; with 4,000 a copy on a fast moment ended before the Pause click landed),
/// small enough to make quickly.
const FILES: usize = 12_000;

/// The folder `dir` with `n` small files.
fn many_files(dir: &Path, n: usize) {
    fs::create_dir_all(dir).unwrap();
    for i in 0..n {
        fs::write(dir.join(format!("f{i:04}")), [b'x'; 512]).unwrap();
    }
}

/// How many entries `dir` holds (none when it does not exist yet).
fn count(dir: &Path) -> usize {
    fs::read_dir(dir).map_or(0, Iterator::count)
}

/// The window's newest job.
fn job(ferry: &Ferry) -> &WindowJob {
    ferry.jobs.window_jobs().next_back().expect("a job")
}

fn ended(ferry: &Ferry) -> Option<(&ferry_core::jobs::Summary, bool)> {
    match &job(ferry).state {
        State::Ended {
            summary, cancelled, ..
        } => Some((summary, *cancelled)),
        _ => None,
    }
}

/// Opens the jobs panel from the window menu (it then shows every job as it comes).
/// The engine says the job is paused (the row says so as soon as Pause is pressed).
fn held(job: &WindowJob) -> bool {
    job.progress.as_ref().is_some_and(|p| p.paused)
}

/// A window copy of `sources` into `dest` as the engine would start it, as job `id` (its
/// end is then sent by the test).
fn started_copy(
    ferry: &mut Ferry,
    id: ferry_core::jobs::JobId,
    sources: Vec<PathBuf>,
    dest: &Path,
) {
    let job = Job::Copy {
        sources,
        dest_dir: dest.to_path_buf(),
        dest_name: None,
        on_conflict: ConflictPolicy::Ask,
    };
    started(ferry, id, job);
}

/// `job` as the engine would start it for the window, as job `id` (its progress and end are
/// then sent by the test).
fn started(ferry: &mut Ferry, id: ferry_core::jobs::JobId, job: Job) {
    let started = jobs::Started {
        id,
        job: Arc::new(job),
        seq: None,
        held: None,
        undoing: false,
        follow_up: jobs::FollowUp::Toast,
    };
    send(ferry, Message::JobStarted(Ok(started)));
}

fn open_panel(ferry: &mut Ferry) {
    named(ferry, Named::F10, Modifiers::empty());
    click(ferry, "Jobs");
    assert!(ferry.jobs_panel.is_open());
}

/// True when some text of the window contains `part`.
fn shows_containing(ferry: &Ferry, part: &str) -> bool {
    let mut ui = simulator(ferry.view());
    ui.find(|candidate: Candidate<'_>| match candidate {
        Candidate::Text { content, .. } if content.contains(part) => Some(()),
        _ => None,
    })
    .is_ok()
}

/// Feeds the window its events for `time`.
fn wait(ferry: &mut Ferry, time: Duration) {
    let end = Instant::now() + time;
    until(ferry, "time to pass", |_| Instant::now() >= end);
}

/// Copies the home's `big` into Music with Ctrl+C and Ctrl+V; the job is known once this
/// returns (the engine has it, and has not told the window anything yet).
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
    let _ = ferry.set_clip(crate::gui::copy_paste::Clip {
        paths: vec![home.join("aaa"), home.join("big")],
        cut: false,
    });
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

/// Cancels the one job, and waits for its end.
fn cancel_to_the_end(ferry: &mut Ferry) {
    let id = job(ferry).id;
    ferry.jobs.cancel(id);
    jobs_done(ferry);
}

fn paste_big(ferry: &mut Ferry, home: &Path) {
    select(ferry, "big");
    ctrl(ferry, "c");
    go(ferry, &home.join("Music"));
    ctrl(ferry, "v");
    assert!(job(ferry).is_running());
}

#[test]
fn pause_in_the_panel_holds_the_copy_and_resume_runs_it_to_the_end() {
    let fixture = Fixture::new();
    let home = fixture.home();
    many_files(&home.join("big"), FILES);
    let mut ferry = fixture.start(Some(&home));
    open_panel(&mut ferry);
    paste_big(&mut ferry, &home);
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

/// The window on `home`, its jobs panel open, pasting the folder `big` of [`FILES`] files
/// into `Music`, paused once some items are done.
fn big_paste_paused(fixture: &Fixture, home: &std::path::Path) -> Ferry {
    many_files(&home.join("big"), FILES);
    let mut ferry = fixture.start(Some(home));
    open_panel(&mut ferry);
    paste_big(&mut ferry, home);
    until(&mut ferry, "some items copied", |f| job(f).items_done() > 0);
    click(&mut ferry, "Pause");
    until(&mut ferry, "the pause", |f| held(job(f)));
    ferry
}

/// Ctrl+J puts the keyboard in the panel, and again leaves it there: a second Ctrl+J gave it
/// back to the files, so that the Delete meant for a job trashed the selected folder.
#[test]
fn ctrl_j_twice_keeps_the_keyboard_in_the_panel() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = big_paste_paused(&fixture, &home);
    ctrl(&mut ferry, "j");
    assert!(ferry.jobs_panel.has_focus());
    ctrl(&mut ferry, "j");
    assert!(ferry.jobs_panel.has_focus(), "still in the panel");
    named(&mut ferry, Named::Escape, Modifiers::empty());
    assert!(!ferry.jobs_panel.has_focus(), "Escape gives it back");
    cancel_to_the_end(&mut ferry);
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

/// A running job asked about is held while the question is open (it does not race on
/// behind it), and goes on when the answer is Keep Going.
#[test]
fn a_job_asked_about_cancelling_is_held_until_answered() {
    let fixture = Fixture::new();
    let home = fixture.home();
    many_files(&home.join("big"), FILES);
    let mut ferry = fixture.start(Some(&home));
    open_panel(&mut ferry);
    paste_big(&mut ferry, &home);
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
    assert_eq!(
        ferry.confirm.as_ref().map(|c| c.title().to_owned()),
        Some(question.clone())
    );
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
    many_files(&home.join("big"), FILES);
    let mut ferry = fixture.start(Some(&home));
    open_panel(&mut ferry);
    paste_big(&mut ferry, &home);
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

#[test]
fn retry_failed_runs_again_only_the_items_that_failed() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let tax = home.join("Documents/tax");
    let mut ferry = fixture.start(Some(&home));
    open_panel(&mut ferry);
    // Everything in the home into Documents/tax: Documents cannot go inside itself.
    ctrl(&mut ferry, "a");
    ctrl(&mut ferry, "c");
    go(&mut ferry, &tax);
    ctrl(&mut ferry, "v");
    jobs_done(&mut ferry);
    assert!(tax.join("Music").is_dir() && tax.join("projects/web").is_dir());
    assert!(tax.join("notes.md").is_file() && !tax.join("Documents").exists());
    let first = job(&ferry).id;
    let (summary, _) = ended(&ferry).unwrap();
    let failed: Vec<&Path> = summary.failed.iter().map(|f| f.path.as_path()).collect();
    assert_eq!(failed, [home.join("Documents")]);
    assert!(shows(&ferry, "Copied 3 items to “tax” (1 failed)."));
    // Once the journal holds its end, the window keeps only what it shows and retries.
    until(&mut ferry, "the job's end in the journal", |f| {
        f.recording == 0
    });
    let (summary, _) = ended(&ferry).unwrap();
    assert!(summary.record.is_empty() && summary.done.is_empty());
    assert_eq!(summary.failed.len(), 1);
    assert!(shows(&ferry, "Copied 3 items to “tax” (1 failed)."));
    click(&mut ferry, "Show failures");
    let reason = format!("{}: ", home.join("Documents").display());
    assert!(shows_containing(&ferry, &reason), "the failed item and why");

    fs::write(tax.join("notes.md"), "changed since").unwrap();
    click(&mut ferry, "Retry failed");
    until(&mut ferry, "the retry's end", |f| {
        job(f).id != first && !job(f).is_running()
    });
    assert_eq!(
        ferry.jobs.window_jobs().count(),
        1,
        "the retry takes the failed job's place"
    );
    let Job::Copy {
        sources,
        dest_dir,
        on_conflict,
        ..
    } = &*job(&ferry).job
    else {
        panic!("a copy again: {:?}", job(&ferry).job);
    };
    assert_eq!(sources, &[home.join("Documents")], "only what failed");
    assert_eq!((dest_dir, *on_conflict), (&tax, ConflictPolicy::Merge));
    let (summary, _) = ended(&ferry).unwrap();
    assert_eq!(
        summary.failed.len(),
        1,
        "it cannot go inside itself now either"
    );
    assert_eq!(fs::read(tax.join("notes.md")).unwrap(), b"changed since");
}

#[test]
fn retry_failed_once_the_cause_is_gone_finishes_what_failed() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let music = home.join("Music");
    many_files(&home.join("big"), FILES);
    many_files(&home.join("pack/sub1"), 10);
    many_files(&home.join("pack/sub2"), 3);
    let mut ferry = fixture.start(Some(&home));
    named(&mut ferry, Named::F3, Modifiers::empty());
    settle(&mut ferry);
    go(&mut ferry, &music);
    named(&mut ferry, Named::Tab, Modifiers::empty());
    super::operations::lay_out(&mut ferry);
    open_panel(&mut ferry);

    // A long copy first: the next job on the same disk waits for it, and is paused while it
    // waits, so that it plans and then holds before writing anything.
    select(&mut ferry, "big");
    named(&mut ferry, Named::F5, Modifiers::SHIFT);
    select(&mut ferry, "pack");
    named(&mut ferry, Named::F5, Modifiers::SHIFT);
    let pack = job(&ferry).id;
    assert_eq!(ferry.jobs.window_jobs().count(), 2);
    // The newest job is listed first: its Pause.
    click(&mut ferry, "Pause");
    until(&mut ferry, "the second job planned, and held", |f| {
        let job = f.jobs.window_job(pack).unwrap();
        job.totals.is_some() && held(job)
    });
    assert_eq!(ferry.jobs.running(), 1, "the first job has ended");
    assert_eq!(ferry.jobs.window_job(pack).unwrap().items_done(), 0);
    assert!(!music.join("pack").exists(), "nothing written yet");

    // Meanwhile a folder it planned goes away, as if another program moved it.
    fs::rename(home.join("pack/sub2"), home.join("pack/.sub2")).unwrap();
    click(&mut ferry, "Resume");
    jobs_done(&mut ferry);
    let (summary, cancelled) = ended(&ferry).unwrap();
    assert!(!cancelled);
    let failed: Vec<&Path> = summary.failed.iter().map(|f| f.path.as_path()).collect();
    assert_eq!(failed, [home.join("pack/sub2")]);
    assert_eq!(count(&music.join("pack/sub1")), 10);
    assert!(shows(&ferry, "Retry failed"));

    // It is back: Retry failed copies it, and leaves what the first run copied.
    fs::rename(home.join("pack/.sub2"), home.join("pack/sub2")).unwrap();
    fs::write(music.join("pack/sub1/f0000"), "changed since").unwrap();
    click(&mut ferry, "Retry failed");
    until(&mut ferry, "the retry's end", |f| {
        f.jobs.window_job(pack).is_none() && !job(f).is_running()
    });
    let (summary, _) = ended(&ferry).unwrap();
    assert!(summary.failed.is_empty(), "{:?}", summary.failed);
    assert_eq!(count(&music.join("pack/sub2")), 3);
    assert_eq!(
        fs::read(music.join("pack/sub2/f0002")).unwrap(),
        [b'x'; 512]
    );
    assert_eq!(
        fs::read(music.join("pack/sub1/f0000")).unwrap(),
        b"changed since",
        "what was done is not done again"
    );
}

#[test]
fn retry_after_a_job_stopped_runs_again_what_it_did_not_do() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let (documents, music) = (home.join("Documents"), home.join("Music"));
    let mut ferry = fixture.start(Some(&home));
    // A copy that ran out of space at b.txt, as the engine ends one: a.txt was copied, b.txt
    // failed, the folder tax was not started (no disk here fills up on demand).
    let sources = vec![
        documents.join("a.txt"),
        documents.join("b.txt"),
        documents.join("tax"),
    ];
    let id = ferry_core::jobs::JobId(1_000_000);
    started_copy(&mut ferry, id, sources, &music);
    let full = std::io::Error::from_raw_os_error(rustix::io::Errno::NOSPC.raw_os_error());
    let no_space = Arc::new(ferry_core::Error::io("write", music.join("b.txt"), full));
    let summary = ferry_core::jobs::Summary {
        done: vec![documents.join("a.txt")],
        failed: vec![ferry_core::jobs::Failed {
            path: documents.join("b.txt"),
            error: Arc::clone(&no_space),
        }],
        not_done: vec![documents.join("tax")],
        stopped_by: Some(no_space),
        ..ferry_core::jobs::Summary::default()
    };
    send(
        &mut ferry,
        Message::Job(Event::Finished { job: id, summary }),
    );
    assert!(
        ferry.item_errors.is_open(),
        "the window says the job stopped"
    );
    assert!(shows_containing(&ferry, "The job stopped"));

    // Retry (Alt+R): what it did not do, the failed file and the folder not started.
    key(&mut ferry, Key::Character("r".into()), Modifiers::ALT);
    until(&mut ferry, "the retry's end", |f| {
        f.jobs.window_job(id).is_none() && !job(f).is_running()
    });
    let Job::Copy { sources, .. } = &*job(&ferry).job else {
        panic!("a copy again: {:?}", job(&ferry).job);
    };
    assert_eq!(sources, &[documents.join("b.txt"), documents.join("tax")]);
    assert!(music.join("b.txt").is_file() && music.join("tax").is_dir());
    assert!(
        !music.join("a.txt").exists(),
        "what was done is not done again"
    );
}

/// Skip on an error leaves its cause as it was: the item is listed with the job's failures,
/// and Retry failed copies it once the cause is gone (it said "1 skipped", and offered
/// nothing but a new paste).
#[test]
fn items_skipped_after_an_error_are_retried_with_the_failures() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let (documents, music) = (home.join("Documents"), home.join("Music"));
    let mut ferry = fixture.start(Some(&home));
    open_panel(&mut ferry);
    let id = ferry_core::jobs::JobId(1_000_001);
    let sources = vec![documents.join("a.txt"), documents.join("b.txt")];
    started_copy(&mut ferry, id, sources, &music);
    let denied = std::io::Error::from_raw_os_error(rustix::io::Errno::ACCESS.raw_os_error());
    let error = Arc::new(ferry_core::Error::io("create", music.join("b.txt"), denied));
    let summary = ferry_core::jobs::Summary {
        done: vec![documents.join("a.txt")],
        skipped: vec![ferry_core::jobs::Skipped {
            path: documents.join("b.txt"),
            reason: ferry_core::jobs::SkipReason::UserSkipped { error },
        }],
        ..ferry_core::jobs::Summary::default()
    };
    send(
        &mut ferry,
        Message::Job(Event::Finished { job: id, summary }),
    );
    assert!(shows_containing(&ferry, "(1 skipped after an error)"));
    click(&mut ferry, "Show failures");
    let reason = format!("{}: ", documents.join("b.txt").display());
    assert!(shows_containing(&ferry, &reason), "the item and why");
    click(&mut ferry, "Retry failed");
    until(&mut ferry, "the retry's end", |f| {
        f.jobs.window_job(id).is_none() && !job(f).is_running()
    });
    let Job::Copy { sources, .. } = &*job(&ferry).job else {
        panic!("a copy again: {:?}", job(&ferry).job);
    };
    assert_eq!(sources, &[documents.join("b.txt")], "only what was skipped");
    assert!(music.join("b.txt").is_file() && !music.join("a.txt").exists());
}

/// Retry failed on a permanent delete whose item had gone: another program then made a new
/// folder under that name, and Retry deleted it unasked. A delete's Retry asks first.
#[test]
fn retry_failed_of_a_permanent_delete_asks_first() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    open_panel(&mut ferry);
    let gone = home.join("gone");
    let id = ferry_core::jobs::JobId(1_000_002);
    let started = jobs::Started {
        id,
        job: Arc::new(Job::Delete {
            paths: vec![gone.clone()],
        }),
        seq: None,
        held: None,
        undoing: false,
        follow_up: jobs::FollowUp::Toast,
    };
    send(&mut ferry, Message::JobStarted(Ok(started)));
    let missing = std::io::Error::from(std::io::ErrorKind::NotFound);
    let summary = ferry_core::jobs::Summary {
        failed: vec![ferry_core::jobs::Failed {
            path: gone.clone(),
            error: Arc::new(ferry_core::Error::io("stat", &gone, missing)),
        }],
        ..ferry_core::jobs::Summary::default()
    };
    send(
        &mut ferry,
        Message::Job(Event::Finished { job: id, summary }),
    );
    fs::create_dir_all(gone.join("sub")).unwrap();
    fs::write(gone.join("sub/data"), "the user's").unwrap();
    click(&mut ferry, "Retry failed");
    let question = ferry.confirm.as_ref().map(|c| c.title().to_owned());
    assert_eq!(question.as_deref(), Some("Permanently delete “gone”?"));
    named(&mut ferry, Named::Escape, Modifiers::empty());
    assert!(!ferry.jobs.window_jobs().any(|j| j.is_running()));
    assert_eq!(fs::read(gone.join("sub/data")).unwrap(), b"the user's");
}

#[test]
fn quit_while_a_copy_runs_cancels_it_and_quits_after_a_permanent_delete() {
    let fixture = Fixture::new();
    let home = fixture.home();
    many_files(&home.join("big"), FILES);
    let mut ferry = fixture.start(Some(&home));
    // First a permanent delete: a job the undo journal keeps no record of.
    select(&mut ferry, "notes.md");
    named(&mut ferry, Named::Delete, Modifiers::SHIFT);
    named(&mut ferry, Named::Enter, Modifiers::empty());
    jobs_done(&mut ferry);
    assert!(!home.join("notes.md").exists());

    paste_big(&mut ferry, &home);
    ctrl(&mut ferry, "q");
    assert_eq!(
        ferry
            .confirm
            .as_ref()
            .map(|c| c.title().to_owned())
            .as_deref(),
        Some("Quit while 1 job is running?")
    );
    // Cancel Jobs and Quit: once the copy has ended and its end is recorded, Ferry quits
    // (saving its session on the way out).
    named(&mut ferry, Named::Enter, Modifiers::empty());
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
    let progress = Progress {
        phase: Phase::Deleting,
        bytes_done: 10,
        bytes_total: 10,
        items_done: 1,
        items_total: 2,
        current: None,
        speed: 0.0,
        eta: None,
        paused: false,
    };
    send(
        &mut ferry,
        Message::Job(Event::Progress { job: id, progress }),
    );
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

/// A click in a pane takes the keyboard from the jobs panel: after Ctrl+J, the Delete meant
/// for the file clicked cancelled the running copy.
#[test]
fn a_click_in_a_pane_takes_the_keyboard_back() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = big_paste_paused(&fixture, &home);
    go(&mut ferry, &home);
    ctrl(&mut ferry, "j");
    assert!(ferry.jobs_panel.has_focus());
    click(&mut ferry, "notes.md");
    assert!(!ferry.jobs_panel.has_focus(), "the pane has it");
    cancel_to_the_end(&mut ferry);
}

/// Over the Trash view too, Ctrl+J puts the keyboard in the panel: its Delete went to the
/// trash list, asking to delete a trashed item permanently, Delete Permanently first.
#[test]
fn ctrl_j_over_the_trash_view_gives_the_panel_the_keys() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    super::dialogs::trash_and_show(&fixture, &mut ferry, "notes.md");
    named(&mut ferry, Named::ArrowDown, Modifiers::empty());
    ctrl(&mut ferry, "j");
    assert!(ferry.jobs_panel.has_focus());
    named(&mut ferry, Named::Delete, Modifiers::empty());
    assert!(
        ferry.confirm.is_none(),
        "no question about the trashed item"
    );
    assert_eq!(
        ferry
            .trash
            .as_ref()
            .and_then(|t| t.loaded())
            .map(|l| l.len()),
        Some(1),
        "still in the trash"
    );
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
        ferry
            .confirm
            .as_ref()
            .map(|c| c.title().to_owned())
            .as_deref(),
        Some("Quit while 1 job is running?")
    );
    named(&mut ferry, Named::Escape, Modifiers::empty());
    assert!(job(&ferry).is_running(), "not cancelled");
    cancel_to_the_end(&mut ferry);
}

/// The last job dismissed from the panel (Ctrl+J, Delete): the panel went, but kept the
/// keyboard, and arrows, Ctrl+A and Escape did nothing until a click in a pane.
#[test]
fn dismissing_the_last_job_gives_the_keyboard_back_to_the_pane() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    select(&mut ferry, "notes.md");
    ctrl(&mut ferry, "d");
    jobs_done(&mut ferry);
    ctrl(&mut ferry, "j");
    assert!(ferry.jobs_panel.has_focus());
    named(&mut ferry, Named::Delete, Modifiers::empty());
    assert_eq!(ferry.jobs.window_jobs().count(), 0, "dismissed");
    ctrl(&mut ferry, "a");
    let pane = ferry.tabs.active_pane();
    assert!(pane.selection().count() > 1, "Ctrl+A reached the pane");
    assert!(!ferry.jobs_panel.has_focus());
}
