//! The one-conflict dialog: every answer, apply to all, Keep both's name, Rename's checks, the keyboard.

use super::*;
#[test]
fn each_answer_of_one_conflict_sends_its_resolution_then_closes() {
    let cases = [
        ("Replace", Resolution::Replace),
        ("Replace if newer", Resolution::ReplaceIfNewer),
        ("Skip", Resolution::Skip),
        ("Keep both", Resolution::KeepBoth),
    ];
    for (label, resolution) in cases {
        let mut dialog = open(vec![fixture::file(1, "report.pdf", 100, 200)], None);
        assert!(shows(&dialog, "Replace “report.pdf” in “dest”?"));
        let events = click(&mut dialog, label);
        assert_eq!(
            events,
            [resolve(&[(1, resolution, Scope::This)]), Event::Done],
            "{label}"
        );
        assert!(dialog.is_empty());
    }
    let mut dialog = open(vec![fixture::folder(1, "Photos")], None);
    assert!(!shows(&dialog, "Replace if newer"), "not for folders");
    let events = click(&mut dialog, "Merge");
    assert_eq!(events[0], resolve(&[(1, Resolution::Merge, Scope::This)]));
    let mut dialog = open(vec![fixture::file(1, "report.pdf", 100, 200)], None);
    dialog.set_done(0);
    assert_eq!(click(&mut dialog, "Cancel Job"), [Event::CancelJob(JOB)]);
}

#[test]
fn apply_to_all_answers_the_kind_and_names_how_many() {
    let mut dialog = open(vec![fixture::file(1, "a.txt", 100, 200)], None);
    assert!(shows(&dialog, "Apply to later conflicts of this kind too"));
    click(&mut dialog, "Apply to later conflicts of this kind too");
    let events = click(&mut dialog, "Skip");
    assert_eq!(
        events[0],
        resolve(&[(1, Resolution::Skip, Scope::AllOfKind)])
    );

    // One by one from a table: the count names the others of the kind.
    let conflicts = vec![
        fixture::file(1, "a.txt", 100, 200),
        fixture::file(2, "b.txt", 100, 200),
        fixture::file(3, "c.txt", 100, 200),
        fixture::folder(4, "Photos"),
    ];
    let mut dialog = open(conflicts, None);
    assert!(dialog.is_table());
    click(&mut dialog, "One by one…");
    assert!(!dialog.is_table());
    let label = "Apply to all 2 remaining conflicts of this kind (and later ones)";
    assert!(shows(&dialog, label));
    assert_eq!(alt(&mut dialog, "a"), []);
    let events = alt(&mut dialog, "r");
    assert_eq!(
        events,
        [resolve(&[(1, Resolution::Replace, Scope::AllOfKind)])]
    );
    // The engine answers the other files itself: only the folder is left, alone.
    assert_eq!(dialog.waiting(), 1);
    // "into “dest”" read as if the folder would land in “dest” beside the one there.
    assert!(shows(
        &dialog,
        "Merge the folder “Photos” with the one in “dest”?"
    ));
}

#[test]
fn keep_both_shows_the_name_it_will_use() {
    let dialog = open(vec![fixture::file(1, "report.pdf", 100, 200)], None);
    assert!(shows(
        &dialog,
        "The incoming file goes there as “report (copy).pdf”."
    ));
    // Once the destination is read, a name taken there is passed over, as the engine does.
    let tmp = backup(&["report (copy).pdf"]);
    let dialog = open(vec![report_in(tmp.path(), 100, 200)], Some(tmp.path()));
    assert!(shows(
        &dialog,
        "The incoming file goes there as “report (copy 2).pdf”."
    ));
    assert!(
        shows(&dialog, "report (copy 2).pdf"),
        "Rename starts with it too"
    );
    let mut dialog = dialog;
    let events = click(&mut dialog, "Keep both");
    assert_eq!(
        events[0],
        resolve(&[(1, Resolution::KeepBoth, Scope::This)])
    );
}

#[test]
fn rename_refuses_a_taken_name_and_sends_a_free_one() {
    let tmp = backup(&["taken.pdf"]);
    let mut dialog = open(vec![report_in(tmp.path(), 100, 200)], Some(tmp.path()));
    assert!(feed(&mut dialog, Message::RenameEdited("taken.pdf".into())).is_empty());
    let refusal = format!(
        "“taken.pdf” is already taken in “{}”.",
        tmp.path().file_name().unwrap().to_string_lossy()
    );
    assert!(shows(&dialog, &refusal), "checked while typing");
    assert!(click(&mut dialog, "Rename").is_empty(), "refused again");
    assert!(shows(&dialog, &refusal));
    // A check's result for a name since changed is dropped.
    feed(&mut dialog, Message::RenameEdited("fresh.pdf".into()));
    let stale = Checked {
        id: ConflictId(1),
        name: OsString::from("taken.pdf"),
        submit: true,
        result: Ok(NameCheck::Free),
    };
    assert!(feed(&mut dialog, Message::NameChecked(stale)).is_empty());
    assert!(shows(&dialog, "That name is free."));
    // The check's answer, as the worker thread sends it: taken, so Rename sends nothing.
    let taken = Checked {
        id: ConflictId(1),
        name: OsString::from("fresh.pdf"),
        submit: true,
        result: Ok(NameCheck::Taken),
    };
    assert!(feed(&mut dialog, Message::NameChecked(taken)).is_empty());
    assert!(shows(&dialog, &refusal.replace("taken.pdf", "fresh.pdf")));
    // Taken since it was checked: the check at Rename says so.
    std::fs::write(tmp.path().join("fresh.pdf"), "x").unwrap();
    assert!(named(&mut dialog, Named::Tab).is_empty());
    assert!(feed(&mut dialog, Message::RenameSubmitted).is_empty());
    assert!(shows(&dialog, &refusal.replace("taken.pdf", "fresh.pdf")));
    feed(&mut dialog, Message::RenameEdited("fresher.pdf".into()));
    let events = feed(&mut dialog, Message::RenameSubmitted);
    let answer = Resolution::RenameTo("fresher.pdf".into());
    assert_eq!(events, [resolve(&[(1, answer, Scope::This)]), Event::Done]);
}

#[test]
fn rename_refuses_a_name_not_allowed_and_suggests_a_valid_one() {
    let mut dialog = open(vec![fixture::file(1, "report.pdf", 100, 200)], None);
    feed(&mut dialog, Message::RenameEdited("a/b.pdf".into()));
    assert!(shows(&dialog, "A name cannot contain “/”."));
    assert!(click(&mut dialog, "Rename").is_empty());

    // A name FAT refuses: its own question, Rename first and suggested, with a valid name.
    let tmp = tempfile::tempdir().unwrap();
    let kinds = (Kind::Unknown, Kind::File);
    let bad = fixture::in_dir(
        tmp.path(),
        1,
        ConflictKind::NameNotAllowed,
        "a:b?.txt",
        kinds,
        (0, 9),
    );
    let (mut dialog, _probe) = ConflictDialog::new(JOB, "Copying", None, vec![bad]);
    assert!(shows(
        &dialog,
        &format!(
            "“a:b?.txt” cannot be written to “{}”",
            tmp.path().file_name().unwrap().to_string_lossy()
        )
    ));
    assert!(!shows(&dialog, "Keep both"));
    assert_eq!(dialog.focused(), Control::RenameField);
    assert!(shows(&dialog, "a_b_.txt"), "valid before the disk is read");
    // What the probe of a FAT disk finds.
    let fat = NameRules {
        name_max: 255,
        windows_names: true,
    };
    let probe = Probe {
        rules: fat,
        kept: OsString::from("a:b? (copy).txt"),
        suggestion: OsString::from("a_b_ (copy).txt"),
        incoming: None,
        existing: None,
    };
    let probed = Probed {
        id: ConflictId(1),
        result: Ok(Arc::new(probe)),
    };
    feed(&mut dialog, Message::Probed(probed));
    assert!(
        shows(&dialog, "a_b_ (copy).txt"),
        "a free name from the disk"
    );
    let why = "Names on this disk cannot contain “:”. Give it another name, or leave it out.";
    assert!(shows(&dialog, why));
    feed(&mut dialog, Message::RenameEdited("x*y.txt".into()));
    assert!(shows(&dialog, "Names on this disk cannot contain “*”."));
    feed(&mut dialog, Message::RenameEdited("notes.".into()));
    assert!(shows(
        &dialog,
        "Names on this disk cannot end with a dot or a space."
    ));
    feed(&mut dialog, Message::RenameEdited("x_y.txt".into()));
    let events = named(&mut dialog, Named::Enter);
    let answer = Resolution::RenameTo("x_y.txt".into());
    assert_eq!(events, [resolve(&[(1, answer, Scope::This)]), Event::Done]);
}

#[test]
fn a_name_twice_without_a_known_destination_is_renamed_unchecked() {
    let files = (Kind::File, Kind::File);
    let twice = fixture::in_dir(
        Path::new("/a"),
        1,
        ConflictKind::DuplicateSource,
        "x",
        files,
        (1, 2),
    );
    let mut dialog = open(vec![twice], None);
    assert!(shows(&dialog, "The second one goes there as “x (copy)”."));
    assert_eq!(dialog.focused(), Control::Act(Act::KeepBoth));
    feed(&mut dialog, Message::RenameEdited("y".into()));
    // Nowhere to look: the engine asks again if the name is taken when it writes.
    let events = click(&mut dialog, "Rename");
    let answer = Resolution::RenameTo("y".into());
    assert_eq!(events, [resolve(&[(1, answer, Scope::This)]), Event::Done]);
}

#[test]
fn escape_cancels_the_job_after_asking_when_items_are_done() {
    let mut dialog = open(vec![fixture::file(1, "a.txt", 100, 200)], None);
    assert_eq!(named(&mut dialog, Named::Escape), [Event::CancelJob(JOB)]);

    let mut dialog = open(vec![fixture::file(1, "a.txt", 100, 200)], None);
    dialog.set_done(1_204);
    assert!(named(&mut dialog, Named::Escape).is_empty());
    assert!(shows(
        &dialog,
        "Cancel the job? The 1,204 items done so far stay; nothing else is copied or moved."
    ));
    assert_eq!(alt(&mut dialog, "r"), [], "the letters wait for the answer");
    assert!(
        named(&mut dialog, Named::Escape).is_empty(),
        "Escape again goes back"
    );
    assert!(!shows(&dialog, "Keep Going"));
    assert!(click(&mut dialog, "Cancel Job").is_empty());
    assert!(click(&mut dialog, "Keep Going").is_empty());
    named(&mut dialog, Named::Escape);
    assert_eq!(named(&mut dialog, Named::Enter), [Event::CancelJob(JOB)]);
}

#[test]
fn tab_walks_the_controls_and_enter_takes_the_one_with_the_keyboard() {
    // Enter takes the suggested answer: an older existing file is replaced.
    let mut dialog = open(vec![fixture::file(1, "a.txt", 100, 200)], None);
    assert_eq!(dialog.focused(), Control::Act(Act::Replace));
    assert_eq!(
        named(&mut dialog, Named::Enter),
        [
            resolve(&[(1, Resolution::Replace, Scope::This)]),
            Event::Done
        ]
    );
    // A newer existing file is kept; Tab, Shift+Tab and the arrows move the keyboard.
    let mut dialog = open(vec![fixture::file(1, "a.txt", 300, 200)], None);
    assert_eq!(dialog.focused(), Control::Act(Act::Skip));
    named(&mut dialog, Named::Tab);
    assert_eq!(dialog.focused(), Control::Act(Act::KeepBoth));
    press(&mut dialog, &Key::Named(Named::Tab), Modifiers::SHIFT);
    press(&mut dialog, &Key::Named(Named::Tab), Modifiers::SHIFT);
    assert_eq!(dialog.focused(), Control::Act(Act::ReplaceIfNewer));
    named(&mut dialog, Named::ArrowUp);
    assert_eq!(dialog.focused(), Control::Act(Act::Replace));
    press(&mut dialog, &Key::Named(Named::Tab), Modifiers::SHIFT);
    assert_eq!(dialog.focused(), Control::CancelJob, "round the ring");
    named(&mut dialog, Named::Tab);
    named(&mut dialog, Named::Tab);
    assert_eq!(
        named(&mut dialog, Named::Space),
        [
            resolve(&[(1, Resolution::ReplaceIfNewer, Scope::This)]),
            Event::Done
        ]
    );
    // The table starts on One by one while nothing is answered (it started on Apply, greyed,
    // where Enter did nothing); Tab passes Apply by until it can act, and reaches the rules.
    let conflicts = (1..=2)
        .map(|i| fixture::file(i, &format!("f{i}.txt"), 100, 200))
        .collect();
    let mut table = open(conflicts, None);
    assert_eq!(table.focused(), Control::OneByOne);
    named(&mut table, Named::Tab);
    assert_eq!(table.focused(), Control::CancelJob);
    named(&mut table, Named::Tab);
    assert_eq!(table.focused(), Control::Rule(Rule::NewerWins));
    assert!(named(&mut table, Named::Enter).is_empty());
    assert!(shows(&table, "2 of 2 decided"));
    // None waits for an answer now (the heading said "2 conflicts waiting for an answer").
    assert!(shows(&table, "2 conflicts answered: Apply to go on"));
    // Nothing is left to go through one by one: Shift+Tab from the rules goes to Apply.
    assert!(!table.controls().contains(&Control::OneByOne));
    press(&mut table, &Key::Named(Named::Tab), Modifiers::SHIFT);
    assert_eq!(table.focused(), Control::Apply);
}

/// Enter on a table nobody has answered yet goes through the conflicts one by one.
#[test]
fn enter_on_an_unanswered_table_asks_one_by_one() {
    let conflicts = (1..=2)
        .map(|i| fixture::file(i, &format!("f{i}.txt"), 100, 200))
        .collect();
    let mut table = open(conflicts, None);
    assert!(named(&mut table, Named::Enter).is_empty());
    assert!(
        shows(&table, "Back to the table"),
        "the first conflict is asked alone"
    );
}

/// Rename's field showed a name that is not UTF-8 decoded lossily and read it back as typed:
/// accepting the suggestion for `caf\xe9` gave `caf\u{fffd} (copy)`, another name than Keep
/// both's. What is left as shown keeps the name's bytes.
#[test]
fn rename_keeps_the_bytes_of_a_name_that_is_not_utf8() {
    use std::os::unix::ffi::OsStringExt;
    let odd = |bytes: &[u8]| OsString::from_vec(bytes.to_vec());
    // What the worker thread answers for the name the field stands for.
    let free = |name: &[u8]| {
        Message::NameChecked(Checked {
            id: ConflictId(1),
            name: odd(name),
            submit: true,
            result: Ok(NameCheck::Free),
        })
    };
    for (typed, name) in [
        (None, &b"caf\xe9 (copy)"[..]),
        (Some("new caf\u{fffd} (copy)"), &b"new caf\xe9 (copy)"[..]),
    ] {
        let mut conflict = fixture::file(1, "x", 100, 200);
        conflict.source.name = odd(b"caf\xe9");
        conflict.dest.name = odd(b"caf\xe9");
        let mut dialog = open(vec![conflict], None);
        assert!(shows(&dialog, "caf\u{fffd} (copy)"));
        if let Some(typed) = typed {
            feed(&mut dialog, Message::RenameEdited(typed.into()));
        }
        assert!(feed(&mut dialog, Message::RenameSubmitted).is_empty());
        let events = feed(&mut dialog, free(name));
        let answer = Resolution::RenameTo(odd(name));
        assert_eq!(events[0], resolve(&[(1, answer, Scope::This)]), "{typed:?}");
    }
}

/// Rows answered in the table, then one opened alone and answered for all of its kind: the
/// answered rows were dropped and the engine gave them that answer too (a Replace chosen for
/// `f1` became Skip). They keep their answers, sent first, and the count of "remaining"
/// ones leaves them out.
#[test]
fn apply_to_all_from_one_keeps_the_answers_given_in_the_table() {
    let conflicts = vec![
        fixture::file(1, "f1.txt", 100, 200),
        fixture::file(2, "f2.txt", 100, 200),
        fixture::file(3, "f3.txt", 100, 200),
    ];
    let mut dialog = open(conflicts, None);
    assert!(dialog.is_table());
    assert_eq!(
        alt(&mut dialog, "r"),
        [],
        "f1 answered Replace in the table"
    );
    alt(&mut dialog, "e");
    assert!(!dialog.is_table(), "f2 opened alone");
    assert!(shows(
        &dialog,
        "Apply to the 1 remaining conflict of this kind (and later ones)"
    ));
    alt(&mut dialog, "a");
    let events = alt(&mut dialog, "s");
    let answers = [
        (1, Resolution::Replace, Scope::This),
        (2, Resolution::Skip, Scope::AllOfKind),
    ];
    assert_eq!(events[0], resolve(&answers));
}

/// Replace said "kept aside: Undo brings it back" in an undo's dialog too, where no undo
/// brings anything back; the engine now puts what an undo replaces in the trash, and the
/// dialog says so.
#[test]
fn an_undos_replace_says_the_replaced_file_goes_to_the_trash() {
    let mut dialog = open(vec![fixture::file(1, "notes.txt", 100, 200)], None);
    assert!(shows(
        &dialog,
        "Put the incoming file in place of the existing file, which is kept aside: Undo \
         brings it back."
    ));
    dialog.set_undoing();
    assert!(shows(
        &dialog,
        "Put the incoming file in place of the existing file, which goes to the trash."
    ));
}

/// Keep both is named from the name the incoming item would have there, as the engine names
/// it: not from the existing item's, which a disk that folds case may spell otherwise.
#[test]
fn keep_both_is_named_from_the_incoming_items_name_at_the_place() {
    let mut conflict = fixture::file(1, "u1.txt", 100, 200);
    conflict.dest.name = "U1.TXT".into();
    let dialog = open(vec![conflict], None);
    assert!(shows(
        &dialog,
        "The incoming file goes there as “u1 (copy).txt”."
    ));
}

/// Two trashed `n.txt` restored into one folder: the first is `n.txt.3` in the trash, and
/// Keep both and Rename offered "n.txt (copy).3" for the second. The name offered is made
/// from the name the item would have there.
#[test]
fn keep_both_of_two_restored_items_of_one_name_is_made_from_that_name() {
    let rt = tempfile::tempdir().unwrap();
    let trash = Path::new("/home/u/.local/share/Trash/files");
    let mut twice = fixture::in_dir(
        trash,
        1,
        ConflictKind::DuplicateSource,
        "n.txt",
        (Kind::File, Kind::File),
        (1, 2),
    );
    twice.dest.path = trash.join("n.txt.3");
    twice.dest.name = "n.txt.3".into();
    twice.source.path = trash.join("n.txt.2");
    let mut dialog = open(vec![twice], Some(rt.path()));
    assert!(
        shows(&dialog, "The second one goes there as “n (copy).txt”."),
        "not “n.txt (copy).3”"
    );
    let events = named(&mut dialog, Named::Enter);
    assert_eq!(
        events,
        [
            resolve(&[(1, Resolution::KeepBoth, Scope::This)]),
            Event::Done
        ]
    );
}

#[test]
fn a_links_side_says_where_it_points_and_two_alike_are_told_so() {
    let links = (Kind::Symlink, Kind::Symlink);
    let dest = Path::new("/dest");
    let conflict = |target: &str, alike| {
        let mut c = fixture::in_dir(dest, 1, ConflictKind::FileExists, "song", links, (1, 2));
        c.source.link_target = Some("../music/song.mp3".into());
        c.dest.link_target = Some(target.into());
        c.likely_identical = alike;
        c
    };
    let dialog = open(vec![conflict("../music/song.mp3", true)], None);
    assert!(shows(&dialog, "Link to ../music/song.mp3"));
    assert!(shows(&dialog, "These links point to the same place"));
    let dialog = open(vec![conflict("/srv/old.mp3", false)], None);
    assert!(shows(&dialog, "Link to /srv/old.mp3"));
    assert!(!shows(&dialog, "These links point to the same place"));
}

/// Two items of one name restored from the trash to the folders they came from: the
/// question says where they go back, not "Trash", where they are now.
#[test]
fn two_restored_items_of_one_name_are_said_to_go_where_they_came_from() {
    let trash = Path::new("/home/u/.local/share/Trash/files");
    let mut twice = fixture::in_dir(
        trash,
        1,
        ConflictKind::DuplicateSource,
        "same.txt",
        (Kind::File, Kind::File),
        (1, 2),
    );
    twice.dest.path = trash.join("same.txt.3");
    twice.source.path = trash.join("same.txt.2");
    let mut dialog = open(vec![twice], None);
    let back = |file: &str| {
        let from = PathBuf::from("/home/u/c/same.txt");
        (trash.join(file), (from.clone(), from))
    };
    dialog.set_origins([back("same.txt.2"), back("same.txt.3")].into());
    assert!(shows(&dialog, "Two items named “same.txt” go to “c”"));
}

/// Inside a merge, both sides' folders can have one name: each said "in “dirX”". They say as
/// many folders up as tell them apart.
#[test]
fn sides_in_folders_of_one_name_say_the_folders_above() {
    let mut conflict = fixture::file(1, "f.txt", 100, 200);
    conflict.source.path = PathBuf::from("/t/A/dirX/f.txt");
    conflict.dest.path = PathBuf::from("/t/B/dirX/f.txt");
    let dialog = open(vec![conflict], None);
    assert!(shows(&dialog, "Incoming · in “A/dirX”"));
    assert!(shows(&dialog, "Existing · in “B/dirX”"));
}
