//! Retry failed in the jobs panel: it runs again only what failed, skipped after an error
//! or was not done, and asks first where the job was a permanent delete.

use super::*;

/// A folder that cannot go into itself fails, and is listed with why; Retry failed is not
/// offered, since it only refused it again (what Retry failed runs is below).
#[test]
fn retry_failed_is_not_offered_for_a_folder_into_itself() {
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

    // Only another choice changes it: "Retry failed" refused it again.
    assert!(!shows(&ferry, "Retry failed"));
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

/// A copy the check before writing stopped (no space), its dialog closed: the panel said
/// "Finished in less than a second" and offered no Retry, the job having no failures.
#[test]
fn a_job_stopped_before_writing_is_said_stopped_and_retried_from_the_panel() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let (documents, music) = (home.join("Documents"), home.join("Music"));
    let mut ferry = fixture.start(Some(&home));
    open_panel(&mut ferry);
    let sources = vec![documents.join("a.txt"), documents.join("b.txt")];
    let id = ferry_core::jobs::JobId(1_000_012);
    started_copy(&mut ferry, id, sources.clone(), &music);
    let no_space = Arc::new(ferry_core::Error::NoSpace {
        path: music.clone(),
        needed: 3_000_000,
        available: 2_000_000,
    });
    let summary = ferry_core::jobs::Summary {
        not_done: sources,
        stopped_by: Some(no_space),
        ..ferry_core::jobs::Summary::default()
    };
    send(
        &mut ferry,
        Message::Job(Event::Finished { job: id, summary }),
    );
    named(&mut ferry, Named::Escape, Modifiers::empty());
    assert!(!ferry.item_errors.is_open());
    assert!(shows_containing(&ferry, "Stopped after"));
    click(&mut ferry, "Retry");
    until(&mut ferry, "the retry's end", |f| {
        f.jobs.window_job(id).is_none() && !job(f).is_running()
    });
    assert!(music.join("a.txt").is_file() && music.join("b.txt").is_file());
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
    assert_eq!(
        question(&ferry).as_deref(),
        Some("Permanently delete “gone”?")
    );
    named(&mut ferry, Named::Escape, Modifiers::empty());
    assert!(!ferry.jobs.window_jobs().any(|j| j.is_running()));
    assert_eq!(fs::read(gone.join("sub/data")).unwrap(), b"the user's");
}
