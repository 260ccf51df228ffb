//! The jobs panel: its lines in words, its keyboard, its ended jobs.

use super::*;

#[test]
fn durations_read_well() {
    assert_eq!(duration(Duration::from_secs(45)), "45 s");
    assert_eq!(duration(Duration::from_secs(61)), "2 min");
    assert_eq!(duration(Duration::from_secs(3900)), "1 h 5 min");
}

fn job(id: u64, state: State, paused: bool) -> WindowJob {
    WindowJob {
        id: JobId(id),
        job: std::sync::Arc::new(ferry_core::jobs::Job::Delete { paths: Vec::new() }),
        named: None,
        title: format!("job {id}"),
        started: std::time::Instant::now(),
        totals: None,
        progress: Some(ferry_core::jobs::Progress {
            phase: Phase::Copying,
            bytes_done: 0,
            bytes_total: 0,
            items_done: 0,
            items_total: 0,
            current: None,
            speed: 0.0,
            eta: None,
            share_done: None,
            paused,
        }),
        state,
        waiting_answers: 0,
        questions: 0,
        pause_wanted: None,
        seq: None,
        undoing: false,
        follow_up: crate::gui::jobs::FollowUp::None,
        asked: crate::gui::jobs::Asked::default(),
        answers: crate::gui::jobs::Answers::default(),
    }
}

/// An ended move kept its running title, "Moving 1 folder and 40,000 files…", above
/// what it did: what it did is its title now, and how long it took is under it.
#[test]
fn an_ended_job_is_titled_by_what_it_did() {
    let ended = State::Ended {
        summary: std::sync::Arc::default(),
        cancelled: false,
        said: "Moved 1 folder and 4 files to “b”.".to_owned(),
        took: Duration::from_secs(3),
    };
    let mut moved = job(1, ended, false);
    moved.title = "Moving 1 folder and 4 files to “b”".to_owned();
    let panel = JobsPanel {
        open: true,
        ..JobsPanel::default()
    };
    let mut ui = iced_test::simulator(panel.view(&[&moved], 800.0).expect("the panel"));
    assert!(ui.find("Moved 1 folder and 4 files to “b”.").is_ok());
    assert!(ui.find("Finished in 3 s").is_ok());
    assert!(
        ui.find(moved.title.as_str()).is_err(),
        "the running title is gone"
    );
}

/// A paused job and one waiting for its disks were counted as "2 jobs running".
#[test]
fn the_compact_line_says_which_jobs_are_paused_or_waiting() {
    let (running, paused) = (job(1, State::Running, false), job(2, State::Running, true));
    let mut queued = job(3, State::Waiting, false);
    queued.progress = None;
    assert_eq!(compact(&[&running]), "job 1 · 0%");
    assert_eq!(compact(&[&paused]), "job 2 (paused) · 0%");
    assert_eq!(compact(&[&queued]), "job 3 (waiting) · 0%");
    assert_eq!(compact(&[&running, &running]), "2 jobs running · 0%");
    assert_eq!(
        compact(&[&running, &paused, &queued]),
        "3 jobs (1 paused, 1 waiting) · 0%"
    );
}

#[test]
fn the_progress_line_counts_one_item_as_one() {
    let mut copying = job(1, State::Running, true);
    let progress = copying.progress.as_mut().unwrap();
    (progress.bytes_total, progress.items_total) = (2_000_000_000, 1);
    let (_, line) = progress_line(&copying);
    assert!(line.ends_with("0 of 1 item"), "{line}");
    copying.progress.as_mut().unwrap().items_total = 3;
    let (_, line) = progress_line(&copying);
    assert!(line.ends_with("0 of 3 items"), "{line}");
}

/// Paused, the line says so first and not what the job would be doing: "… · paused ·
/// Copying" read as a copy going on.
#[test]
fn a_paused_job_says_paused_first_and_not_its_phase() {
    let mut copying = job(1, State::Running, true);
    let p = copying.progress.as_mut().unwrap();
    (p.bytes_done, p.bytes_total, p.items_total) = (1_000, 2_000, 2);
    p.paused = true;
    let (_, line) = progress_line(&copying);
    assert!(line.starts_with("Paused · "), "{line}");
    assert!(
        !line.contains("Copying") && !line.contains("left"),
        "{line}"
    );
}

/// Items waiting for answers count as not done ("1 of 1 item", 100%, with 20,002 answers
/// awaited, was said): the engine counts them in its total (`Totals::asked`), and they are
/// not counted twice.
#[test]
fn items_waiting_for_answers_count_as_not_done() {
    let mut copying = job(1, State::Running, false);
    let p = copying.progress.as_mut().unwrap();
    (p.items_done, p.items_total, p.bytes_done, p.bytes_total) = (1, 20_003, 0, 0);
    copying.waiting_answers = 20_002;
    let (fraction, line) = progress_line(&copying);
    assert!(fraction < 0.01, "{fraction}");
    assert!(line.contains("1 of 20,003 items"), "{line}");
    assert_eq!(overall_percent(&[&copying]), Some(0));
}

/// A job waiting for the disks reports no progress until it starts: a Pause pressed then
/// left the row saying "Pause" and "Waiting…", inviting a second press that resumed it.
#[test]
fn a_waiting_job_paused_says_so_at_once() {
    let mut waiting = job(1, State::Waiting, false);
    waiting.progress = None;
    waiting.pause_wanted = Some(true);
    assert!(waiting.is_paused());
    let (_, line) = progress_line(&waiting);
    assert!(line.starts_with("Paused; waiting"), "{line}");
    let panel = JobsPanel {
        focus: Some(JobId(1)),
        ..JobsPanel::default()
    };
    let space = panel.key(&Key::Named(Named::Space), Modifiers::empty(), &[&waiting]);
    assert_eq!(space, Some(Message::Resume(JobId(1))));
    assert!(compact(&[&waiting]).contains("(paused)"));
}

/// The phase in the job's words: a trash, a restore and a move said "Copying".
#[test]
fn the_phase_is_said_in_the_jobs_own_words() {
    let mut trash = job(1, State::Running, false);
    trash.job = std::sync::Arc::new(ferry_core::jobs::Job::Trash {
        paths: Vec::new(),
        roots: ferry_core::jobs::TrashRoots::home_only("/t"),
    });
    let (_, line) = progress_line(&trash);
    assert!(line.ends_with("Moving to the trash"), "{line}");
}

/// While conflicts wait, the pace falls and the time left only grew ("53 min", then
/// "1 h 17 min"): it is not said then.
#[test]
fn no_time_left_is_said_while_answers_are_awaited() {
    let mut copying = job(1, State::Running, false);
    copying.progress.as_mut().unwrap().eta = Some(Duration::from_secs(40));
    let (_, line) = progress_line(&copying);
    assert!(line.contains("40 s left"), "{line}");
    copying.waiting_answers = 2;
    let (_, line) = progress_line(&copying);
    assert!(
        !line.contains("left") && line.contains("waiting for 2 answers"),
        "{line}"
    );
    // A failed item's question as well: it said "Copying · 9 s left" behind the dialog.
    copying.waiting_answers = 0;
    copying.questions = 1;
    let (_, line) = progress_line(&copying);
    assert!(
        !line.contains("left") && line.contains("waiting for 1 answer"),
        "{line}"
    );
}

/// A job that ended with one item failed.
fn ended_with_a_failure() -> State {
    let failed = ferry_core::jobs::Summary {
        failed: vec![ferry_core::jobs::Failed {
            path: "/a/x".into(),
            error: std::sync::Arc::new(ferry_core::Error::Cancelled),
        }],
        ..Default::default()
    };
    State::Ended {
        summary: std::sync::Arc::new(failed),
        cancelled: false,
        said: "Copied nothing (1 failed)".to_owned(),
        took: Duration::ZERO,
    }
}

#[test]
fn the_keyboard_walks_the_jobs_and_acts_on_the_chosen_one() {
    let (old, running, paused) = (
        job(1, ended_with_a_failure(), false),
        job(2, State::Running, false),
        job(3, State::Running, true),
    );
    let jobs = [&old, &running, &paused];
    // What `update` does with the focus messages (it needs no more than this here).
    let focus_by = |panel: &mut JobsPanel, message| {
        if let Message::Focus(id) = message {
            panel.focus = Some(id);
        }
    };
    let key = |panel: &JobsPanel, named| panel.key(&Key::Named(named), Modifiers::empty(), &jobs);
    let mut panel = JobsPanel::default();
    assert!(!panel.has_focus());
    // Ctrl+J focuses the newest: shown first, paused, so Space resumes it.
    focus_by(&mut panel, Message::Focus(JobId(3)));
    assert_eq!(key(&panel, Named::Space), Some(Message::Resume(JobId(3))));
    let down = key(&panel, Named::ArrowDown).unwrap();
    assert_eq!(down, Message::Focus(JobId(2)));
    focus_by(&mut panel, down);
    assert_eq!(key(&panel, Named::Space), Some(Message::Pause(JobId(2))));
    assert_eq!(key(&panel, Named::Delete), Some(Message::Cancel(JobId(2))));
    let down = key(&panel, Named::ArrowDown).unwrap();
    focus_by(&mut panel, down);
    // The ended job with a failure: Enter lists it, R retries, Delete forgets it.
    assert_eq!(key(&panel, Named::Enter), Some(Message::Details(JobId(1))));
    let r = panel.key(&Key::Character("r".into()), Modifiers::empty(), &jobs);
    assert_eq!(r, Some(Message::Retry(JobId(1))));
    // Forgotten, the keyboard goes to the row above (the last one was dismissed).
    let dismiss = Message::DismissFocused {
        job: JobId(1),
        next: Some(JobId(2)),
    };
    assert_eq!(key(&panel, Named::Delete), Some(dismiss));
    assert_eq!(
        key(&panel, Named::ArrowDown),
        Some(Message::Focus(JobId(1))),
        "stays at the end"
    );
    // Home and End (Page Up and Down too) go to the newest and the oldest, as in a list.
    assert_eq!(key(&panel, Named::Home), Some(Message::Focus(JobId(3))));
    assert_eq!(key(&panel, Named::PageUp), Some(Message::Focus(JobId(3))));
    focus_by(&mut panel, Message::Focus(JobId(3)));
    assert_eq!(key(&panel, Named::End), Some(Message::Focus(JobId(1))));
    assert_eq!(key(&panel, Named::PageDown), Some(Message::Focus(JobId(1))));
    // A job with the keyboard that is gone: Delete shows the top one, acting on none.
    panel.focus = Some(JobId(9));
    assert_eq!(key(&panel, Named::Delete), Some(Message::Focus(JobId(3))));
    assert_eq!(key(&panel, Named::Escape), Some(Message::LeaveFocus));
    // Window shortcuts are not the panel's.
    let ctrl_z = panel.key(&Key::Character("z".into()), Modifiers::CTRL, &jobs);
    assert_eq!(ctrl_z, None);
}

/// An undo that kept an item changed since: retried, the undo said the items it had
/// undone had failed ("no longer where it was left"). Its failures are listed, and
/// Retry is offered for none of them, by button or key.
/// Every key the Keyboard Shortcuts dialog lists for the panel acts on a running job or on an
/// ended one that failed.
#[test]
fn the_keys_listed_in_the_shortcuts_dialog_act() {
    let old = job(1, ended_with_a_failure(), false);
    let running = job(2, State::Running, false);
    let jobs = [&old, &running];
    for (what, label) in super::KEYS {
        for (key, modifiers) in crate::gui::shortcut::parse_keys(label) {
            let acts = [1, 2].into_iter().any(|id| {
                let panel = JobsPanel {
                    focus: Some(JobId(id)),
                    ..JobsPanel::default()
                };
                panel.key(&key, modifiers, &jobs).is_some()
            });
            assert!(acts, "{what}: {key:?}");
        }
    }
}

#[test]
fn an_undos_decisions_are_listed_not_retried() {
    let kept = ferry_core::jobs::Summary {
        failed: vec![ferry_core::jobs::Failed {
            path: "/a/e1.txt".into(),
            error: std::sync::Arc::new(ferry_core::Error::ChangedSince {
                path: "/a/e1.txt".into(),
            }),
        }],
        ..Default::default()
    };
    assert!(!kept.retryable());
    // Nor a refusal only another choice changes: "Retry failed" refused it again.
    let into_itself = ferry_core::jobs::Summary {
        failed: vec![ferry_core::jobs::Failed {
            path: "/a/Photos".into(),
            error: std::sync::Arc::new(ferry_core::Error::IntoItself {
                path: "/a/Photos".into(),
                dest: "/a/Photos/2024".into(),
            }),
        }],
        ..Default::default()
    };
    assert!(!into_itself.retryable());
    let ended = State::Ended {
        summary: std::sync::Arc::new(kept),
        cancelled: false,
        said: "Undid: Copy 3 items to “a” (1 failed)".to_owned(),
        took: Duration::ZERO,
    };
    let undo = job(1, ended, false);
    let panel = JobsPanel {
        focus: Some(JobId(1)),
        ..JobsPanel::default()
    };
    let r = panel.key(&Key::Character("r".into()), Modifiers::empty(), &[&undo]);
    assert_eq!(r, None);
    let enter = panel.key(&Key::Named(Named::Enter), Modifiers::empty(), &[&undo]);
    assert_eq!(enter, Some(Message::Details(JobId(1))));
}

/// In a 640 x 480 window the open panel took 215 of its 480 px, leaving the folder one row.
#[test]
fn the_panel_leaves_a_small_window_to_the_folder() {
    assert!(panel_height(480.0) <= 170.0, "{}", panel_height(480.0));
    assert!(panel_height(360.0) >= 110.0, "one job's row");
    assert_eq!(panel_height(1080.0), 320.0);
}

/// Work left never reads "0 s left": 5,000 small files to go at a pace that would have them
/// done in 0.2 s did.
#[test]
fn the_time_left_is_rounded_up_and_not_said_when_none() {
    let mut copying = job(1, State::Running, false);
    copying.progress.as_mut().unwrap().eta = Some(Duration::from_millis(200));
    let (_, line) = progress_line(&copying);
    assert!(line.contains("1 s left"), "{line}");
    copying.progress.as_mut().unwrap().eta = Some(Duration::from_millis(40_100));
    let (_, line) = progress_line(&copying);
    assert!(line.contains("41 s left"), "{line}");
    copying.progress.as_mut().unwrap().eta = Some(Duration::ZERO);
    let (_, line) = progress_line(&copying);
    assert!(!line.contains("left"), "{line}");
}

/// The time a job took leaves out the time it waited for answers: "Finished in 29 s" was
/// said of a copy of one second whose conflict the user took half a minute over.
#[test]
fn a_jobs_time_leaves_out_its_wait_for_answers() {
    let mut copy = job(1, State::Running, false);
    let start = copy.started;
    let at = |secs| start + Duration::from_secs(secs);
    copy.waiting_answers = 2;
    copy.asking_changed(at(1));
    assert_eq!(
        copy.working_time(at(20)),
        Duration::from_secs(1),
        "still asking"
    );
    copy.waiting_answers = 0;
    copy.asking_changed(at(29));
    assert_eq!(copy.working_time(at(30)), Duration::from_secs(2));
}

/// The jobs line goes a while after the last job's end, the panel closed: it said what the last
/// job did until the jobs were cleared. A running job, or the open panel, keeps it.
#[test]
fn the_jobs_line_goes_a_while_after_the_last_end() {
    let ended = job(1, ended_with_a_failure(), false);
    let running = job(2, State::Running, false);
    let mut panel = JobsPanel::default();
    assert!(panel.view(&[&ended], 600.0).is_some(), "no end seen yet");
    panel.job_ended(Instant::now());
    assert!(panel.line_lingers());
    assert!(panel.view(&[&ended], 600.0).is_some(), "just ended");
    panel.job_ended(Instant::now() - LINE_LINGERS - Duration::from_secs(1));
    assert!(!panel.line_lingers());
    assert!(panel.view(&[&ended], 600.0).is_none(), "gone");
    assert!(
        panel.view(&[&ended, &running], 600.0).is_some(),
        "a job runs"
    );
    panel.open = true;
    assert!(panel.view(&[&ended], 600.0).is_some(), "the panel is open");
}

/// The panel a long job opened closes once every job has ended well; one the user opened, or
/// one with something failed to show, stays.
#[test]
fn a_panel_opened_by_a_long_job_closes_when_the_jobs_end_well() {
    let mut panel = JobsPanel::default();
    panel.long_job(JobId(1));
    assert!(panel.is_open());
    panel.all_ended(true);
    assert!(!panel.is_open(), "closed by itself");

    panel.long_job(JobId(2));
    panel.all_ended(false);
    assert!(panel.is_open(), "a failure to show keeps it");
    panel.all_ended(true);
    assert!(
        panel.is_open(),
        "once seen failing, it is the user's to close"
    );

    let mut panel = JobsPanel::default();
    panel.long_job(JobId(3));
    let ctx = crate::gui::modal::confirm::tests::ctx(iced::keyboard::Modifiers::empty());
    let _ = panel.update(Message::Focus(JobId(3)), &ctx);
    panel.all_ended(true);
    assert!(panel.is_open(), "the user went into it: it stays");
}

/// R retries a job an error stopped before its end, as its Retry button does: the job has no
/// failures, and R asked for some, so the button was out of the keyboard's reach.
#[test]
fn r_retries_a_job_stopped_part_way() {
    let stopped = ferry_core::jobs::Summary {
        not_done: vec!["/a/x".into()],
        stopped_by: Some(std::sync::Arc::new(ferry_core::Error::Cancelled)),
        ..Default::default()
    };
    let state = State::Ended {
        summary: std::sync::Arc::new(stopped),
        cancelled: false,
        said: "Copied nothing (stopped)".to_owned(),
        took: Duration::ZERO,
    };
    let jobs = [job(1, state, false)];
    let jobs: Vec<&WindowJob> = jobs.iter().collect();
    let panel = JobsPanel {
        focus: Some(JobId(1)),
        ..JobsPanel::default()
    };
    let r = panel.key(&Key::Character("r".into()), Modifiers::empty(), &jobs);
    assert_eq!(r, Some(Message::Retry(JobId(1))));
}
