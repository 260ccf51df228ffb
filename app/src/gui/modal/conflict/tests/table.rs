//! The table: rules, Apply, conflicts arriving later, the access letters, windowing, the cost.

use super::*;
#[test]
fn table_rules_fill_only_undecided_rows_and_apply_sends_the_decided() {
    let conflicts = vec![
        fixture::file(1, "a.txt", 100, 200), // incoming newer
        fixture::file(2, "b.txt", 300, 200), // existing newer
        fixture::identical(3, "c.txt"),
        fixture::not_allowed(4, "d:e.txt"),
    ];
    let mut dialog = open(conflicts, None);
    assert!(dialog.is_table());
    assert!(shows(&dialog, "0 of 4 decided"));
    // The first row's Keep both, chosen by hand.
    assert!(click(&mut dialog, "Keep both").is_empty());
    assert!(shows(&dialog, "1 of 4 decided"));
    assert!(click(&mut dialog, "Newer wins").is_empty());
    assert!(
        shows(&dialog, "3 of 4 decided"),
        "the bad name has no date to compare"
    );
    let events = click(&mut dialog, "Apply");
    let expected = resolve(&[
        (1, Resolution::KeepBoth, Scope::This),
        (2, Resolution::Skip, Scope::This),
        (3, Resolution::Skip, Scope::This),
    ]);
    assert_eq!(events, [expected]);
    // The undecided one keeps waiting, asked alone now.
    assert_eq!(dialog.waiting(), 1);
    assert!(shows(&dialog, "“d:e.txt” cannot be written to “dest”"));
}

#[test]
fn apply_sends_nothing_undecided_and_the_table_stays() {
    let conflicts = (1..=5)
        .map(|i| fixture::file(i, &format!("f{i}.txt"), 100, 200))
        .collect();
    let mut dialog = open(conflicts, None);
    assert_eq!(feed(&mut dialog, Message::Apply), []);
    feed(
        &mut dialog,
        Message::RowAnswered(ConflictId(2), Some(Resolution::Replace)),
    );
    feed(
        &mut dialog,
        Message::RowAnswered(ConflictId(4), Some(Resolution::Merge)),
    );
    assert!(shows(&dialog, "1 of 5 decided"), "Merge is for folders");
    feed(&mut dialog, Message::RuleApplied(Rule::IdenticalSkip));
    let events = feed(&mut dialog, Message::Apply);
    assert_eq!(events, [resolve(&[(2, Resolution::Replace, Scope::This)])]);
    assert!(dialog.is_table());
    assert!(shows(&dialog, "0 of 4 decided"));
}

#[test]
fn conflicts_that_arrive_later_join_and_a_lone_one_becomes_a_table() {
    let mut dialog = open(vec![fixture::file(1, "a.txt", 100, 200)], None);
    assert!(!dialog.is_table());
    assert!(add(&mut dialog, vec![fixture::file(2, "b.txt", 1, 2)]).is_empty());
    assert!(dialog.is_table());
    assert!(shows(&dialog, "2 conflicts waiting for an answer"));
    feed(
        &mut dialog,
        Message::RowAnswered(ConflictId(1), Some(Resolution::Skip)),
    );
    let later = vec![
        fixture::folder(3, "Photos"),
        fixture::file(2, "b.txt", 1, 2),
    ];
    add(&mut dialog, later);
    assert_eq!(dialog.waiting(), 3, "one already there is not added twice");
    assert!(shows(&dialog, "1 of 3 decided"), "answers given stay");
    assert!(shows(&dialog, "Folders"));
}

#[test]
fn a_name_being_typed_survives_the_table_opening_over_it() {
    let mut dialog = open(vec![fixture::file(1, "a.txt", 100, 200)], None);
    feed(&mut dialog, Message::RenameEdited("half-typ".into()));
    add(&mut dialog, vec![fixture::file(2, "b.txt", 1, 2)]);
    assert!(dialog.is_table());
    feed(&mut dialog, Message::RowRename(ConflictId(1)));
    assert!(shows(&dialog, "half-typ"));
}

/// Conflicts that arrived later, their tasks run.
fn add(dialog: &mut ConflictDialog, conflicts: Vec<Conflict>) -> Vec<Event> {
    let task = dialog.add(conflicts);
    settle(dialog, task)
}

#[test]
fn alt_letters_answer_in_the_dialog_and_in_the_table() {
    let key = |d: &mut ConflictDialog, letter: &str, modifiers| {
        d.key(&Key::Character(letter.into()), modifiers)
    };
    let mut file = open(vec![fixture::file(1, "a.txt", 100, 200)], None);
    let answered = |m: Option<Message>| match m {
        Some(Message::Answered(act)) => Some(act),
        _ => None,
    };
    for (letter, act) in [
        ("r", Act::Replace),
        ("n", Act::ReplaceIfNewer),
        ("s", Act::Skip),
        ("k", Act::KeepBoth),
        ("R", Act::Replace),
    ] {
        assert_eq!(
            answered(key(&mut file, letter, Modifiers::ALT)),
            Some(act),
            "{letter}"
        );
    }
    assert!(
        key(&mut file, "m", Modifiers::ALT).is_none(),
        "no Merge for a file"
    );
    assert!(key(&mut file, "r", Modifiers::empty()).is_none());
    assert!(key(&mut file, "r", Modifiers::CTRL | Modifiers::ALT).is_none());
    assert!(matches!(
        key(&mut file, "a", Modifiers::ALT),
        Some(Message::ApplyAllToggled(true))
    ));
    assert!(matches!(
        key(&mut file, "e", Modifiers::ALT),
        Some(Message::Focus(Control::RenameField))
    ));
    assert!(matches!(
        key(&mut file, "c", Modifiers::ALT),
        Some(Message::CancelJob)
    ));
    let mut folder = open(vec![fixture::folder(1, "Photos")], None);
    assert_eq!(
        answered(key(&mut folder, "m", Modifiers::ALT)),
        Some(Act::Merge)
    );
    assert!(shows(&folder, "Merge"));

    // The table: the letters answer the keyboard's row and move it on; P applies.
    let conflicts = (1..=3)
        .map(|i| fixture::file(i, &format!("f{i}.txt"), 100, 200))
        .collect();
    let mut table = open(conflicts, None);
    assert!(alt(&mut table, "s").is_empty());
    assert!(alt(&mut table, "r").is_empty());
    assert!(alt(&mut table, "m").is_empty(), "no Merge for a file");
    named(&mut table, Named::ArrowUp);
    named(&mut table, Named::Delete);
    let events = alt(&mut table, "p");
    assert_eq!(events, [resolve(&[(1, Resolution::Skip, Scope::This)])]);
}

#[test]
fn the_table_builds_only_the_rows_in_view() {
    let mut dialog = open(crate::gui::modal::conflict::bench::batch(10_000), None);
    let name = |d: &ConflictDialog, i: usize| {
        let c = &d.rows.shown_row(i).conflict;
        c.source.name.to_string_lossy().into_owned()
    };
    let (first, far) = (name(&dialog, 0), name(&dialog, 5_000));
    assert!(shows(&dialog, &first));
    assert!(!shows(&dialog, &far), "far below: not built");
    #[allow(clippy::cast_precision_loss)]
    let offset_y = 5_000.0 * crate::gui::modal::conflict::table::ROW_H;
    let viewport_h = 400.0;
    feed(
        &mut dialog,
        Message::Scrolled {
            offset_y,
            viewport_h,
        },
    );
    assert!(shows(&dialog, &far));
    assert!(!shows(&dialog, &first));
    // The keyboard's row follows End and Home.
    named(&mut dialog, Named::End);
    assert_eq!(
        dialog.cursor,
        Some(dialog.rows.shown_row(9_999).conflict.id)
    );
    named(&mut dialog, Named::Home);
    assert_eq!(dialog.cursor, Some(dialog.rows.shown_row(0).conflict.id));
}

/// Renamed from the table, a row is asked about alone; then the table returns, its keyboard
/// on the row after the one renamed.
#[test]
fn a_row_renamed_from_the_table_is_asked_alone_then_the_table_returns() {
    let tmp = tempfile::tempdir().unwrap();
    let files = (Kind::File, Kind::File);
    let conflicts = (1..=3)
        .map(|i| {
            let name = format!("f{i}.txt");
            fixture::in_dir(
                tmp.path(),
                i,
                ConflictKind::FileExists,
                &name,
                files,
                (1, 2),
            )
        })
        .collect();
    let mut dialog = open(conflicts, Some(tmp.path()));
    // The keyboard's row is the second: Alt+E renames it.
    named(&mut dialog, Named::ArrowDown);
    assert_eq!(dialog.cursor, Some(ConflictId(2)));
    alt(&mut dialog, "e");
    assert!(!dialog.is_table());
    assert_eq!(dialog.focused(), Control::RenameField);
    assert!(shows(&dialog, "Back to the table"));
    feed(&mut dialog, Message::RenameEdited("g.txt".into()));
    let events = feed(&mut dialog, Message::RenameSubmitted);
    let answer = Resolution::RenameTo("g.txt".into());
    assert_eq!(events, [resolve(&[(2, answer, Scope::This)])]);
    assert!(dialog.is_table());
    assert_eq!(dialog.waiting(), 2);
    // It goes on to the next row, as any answer in the table does (it went to the first).
    assert_eq!(dialog.cursor, Some(ConflictId(3)));
    assert!(matches!(
        dialog.single.as_ref().map(|s| &s.name),
        None | Some(NameState::Unchecked)
    ));
}

/// Prints the figures for the goals; no timing is asserted (run it with `--release
/// --nocapture` for numbers worth reading).
#[test]
fn the_cost_of_a_batch_is_measured() {
    for n in [2_000, 10_000] {
        let cost = crate::gui::modal::conflict::bench::table_cost(n, 40);
        println!(
            "conflict table, {} conflicts: state built in {:.2} ms; update + view of a \
             scrolled frame: median {:.3} ms, worst {:.3} ms; of a frame answering a row by \
             key: median {:.3} ms",
            cost.conflicts,
            cost.build.as_secs_f64() * 1000.0,
            cost.frame_median.as_secs_f64() * 1000.0,
            cost.frame_worst.as_secs_f64() * 1000.0,
            cost.key_median.as_secs_f64() * 1000.0,
        );
        assert_eq!(cost.conflicts, n);
        // What the window adds: layout (building the simulator lays the view out) and a
        // software draw, in a window of the default size, scrolled to the middle.
        let (mut dialog, _) = ConflictDialog::new(
            JOB,
            "Copying",
            None,
            crate::gui::modal::conflict::bench::batch(n),
        );
        #[allow(clippy::cast_precision_loss)]
        let offset_y = n as f32 / 2.0 * crate::gui::modal::conflict::table::ROW_H;
        let viewport_h = 420.0;
        feed(
            &mut dialog,
            Message::Scrolled {
                offset_y,
                viewport_h,
            },
        );
        let theme = crate::gui::style::theme(iced::theme::Mode::Dark);
        let (mut layouts, mut draws) = (Vec::new(), Vec::new());
        // A software draw of a debug build takes seconds: measured in release only.
        let release = !cfg!(debug_assertions);
        for _ in 0..if release { 15 } else { 2 } {
            let started = std::time::Instant::now();
            let mut ui = iced_test::Simulator::with_size(
                iced::Settings::default(),
                (1100.0, 720.0),
                dialog.view(),
            );
            layouts.push(started.elapsed());
            if release {
                let started = std::time::Instant::now();
                let _ = ui.snapshot(&theme);
                draws.push(started.elapsed());
            }
        }
        layouts.sort();
        draws.sort();
        let median = |times: &[std::time::Duration]| {
            times
                .get(times.len() / 2)
                .map_or(0.0, |t| t.as_secs_f64() * 1000.0)
        };
        println!(
            "conflict table, {n} conflicts: view + layout in a new simulator {:.3} ms, \
             software draw {:.3} ms (medians, 1100x720)",
            median(&layouts),
            median(&draws),
        );
    }
}

/// A restore of three items of one name trashed from three folders: each row said "n.txt ·
/// in Trash" alike; each says where it was trashed from now.
#[test]
fn items_of_one_name_restored_say_where_each_was_trashed_from() {
    let trash = Path::new("/home/u/.local/share/Trash/files");
    let (first, second, third) = (
        trash.join("n.txt"),
        trash.join("n.txt.2"),
        trash.join("n.txt.3"),
    );
    let twice = |id: u64, source: &Path| {
        let mut c = fixture::in_dir(
            trash,
            id,
            ConflictKind::DuplicateSource,
            "n.txt",
            (Kind::File, Kind::File),
            (1, 2),
        );
        c.source.path = source.to_path_buf();
        c
    };
    let (mut dialog, task) = ConflictDialog::new(
        JOB,
        "Restoring 3 items",
        Some(PathBuf::from("/home/u/rt")),
        vec![twice(1, &second), twice(2, &third)],
    );
    dialog.set_origins(
        [
            (first, "/home/u/a/n.txt"),
            (second, "/home/u/b/n.txt"),
            (third, "/home/u/c/n.txt"),
        ]
        .into_iter()
        .map(|(file, from)| (file, (PathBuf::from(from), PathBuf::from(from))))
        .collect(),
    );
    assert!(settle(&mut dialog, task).is_empty());
    assert!(dialog.is_table());
    assert!(shows(&dialog, "in Trash, from “b”"));
    assert!(shows(&dialog, "in Trash, from “c”"));
    assert!(!shows(&dialog, "in Trash"), "no row says only that");
}

/// The newer side's date says "· newer" only where it fits its column: "Yesterday 23:52 ·
/// newer" wrapped onto a third line, over the next row.
#[test]
fn a_newer_date_too_long_for_its_column_is_marked_by_its_colour_alone() {
    use chrono::TimeZone;
    let yesterday = chrono::Local::now().date_naive() - chrono::Days::new(1);
    let at = yesterday.and_hms_opt(23, 52, 0).unwrap();
    let at = chrono::Local.from_local_datetime(&at).earliest().unwrap();
    let conflicts = vec![
        fixture::file(1, "a.txt", 100, at.timestamp()),
        fixture::file(2, "b.txt", 100, 200),
    ];
    let dialog = open(conflicts, None);
    assert!(dialog.is_table());
    assert!(shows(&dialog, "Yesterday 23:52"));
    assert!(!shows(&dialog, "Yesterday 23:52 · newer"));
}
