//! The window's questions and the Trash view, with real jobs: a permanent delete is asked
//! first and counted, Escape keeps the items, the Trash view restores, quitting asks while
//! jobs run.

use std::fs;

use super::operations::{assert_toast, jobs_done, select};
use super::trash_restore::{second_notes_in_trash, select_in_trash, show_trash};
use super::*;
use crate::gui::modal::conflict;

/// Another program moves notes.md aside and the folder Documents in under its name.
fn folder_in_place_of_notes(home: &Path) {
    fs::rename(home.join("notes.md"), home.join("notes-old.md")).unwrap();
    fs::rename(home.join("Documents"), home.join("notes.md")).unwrap();
}

/// The delete of `notes.md` is asked about again, as replaced by another program.
pub(super) fn assert_asked_again_as_replaced(ferry: &Ferry) {
    let confirm = ferry.confirm.as_ref().expect("asked again");
    let message = confirm.message();
    assert!(
        message.starts_with("“notes.md” was replaced by another program"),
        "{message}"
    );
}

/// Escape on the question asked again: nothing is deleted.
fn escape_and_nothing_deleted(ferry: &mut Ferry, home: &Path) {
    named(ferry, Named::Escape, Modifiers::empty());
    assert_eq!(ferry.jobs.window_jobs().count(), 0, "no delete started");
    assert!(home.join("notes.md/tax").is_dir(), "nothing deleted");
}

#[test]
fn shift_delete_asks_first_and_escape_keeps_the_item() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    select(&mut ferry, "notes.md");
    named(&mut ferry, Named::Delete, Modifiers::SHIFT);
    assert_eq!(
        question(&ferry).as_deref(),
        Some("Permanently delete “notes.md”?")
    );
    assert!(
        shows(&ferry, "Permanently delete “notes.md”?"),
        "the dialog is drawn"
    );
    // Keys go to the dialog only: Ctrl+A selects nothing behind it.
    ctrl(&mut ferry, "a");
    assert_eq!(ferry.tabs.active_pane().selection().count(), 1);
    named(&mut ferry, Named::Escape, Modifiers::empty());
    assert_eq!(question(&ferry), None);
    assert!(home.join("notes.md").exists());

    named(&mut ferry, Named::Delete, Modifiers::SHIFT);
    alt(&mut ferry, "d");
    jobs_done(&mut ferry);
    assert!(!home.join("notes.md").exists());
    let trash = fixture.dir.path().join("data/Trash/files");
    assert!(!trash.join("notes.md").exists(), "deleted, not trashed");
}

/// Another program put a folder of files in place of the file asked about while the question
/// was open: Enter deleted the folder for good. It is asked about again, as it is now.
#[test]
fn an_item_replaced_while_its_delete_was_asked_is_asked_about_again() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    select(&mut ferry, "notes.md");
    named(&mut ferry, Named::Delete, Modifiers::SHIFT);
    assert_eq!(
        question(&ferry).as_deref(),
        Some("Permanently delete “notes.md”?")
    );
    folder_in_place_of_notes(&home);
    alt(&mut ferry, "d");
    let confirm = ferry.confirm.as_ref().expect("asked again");
    assert_eq!(confirm.title(), "Permanently delete “notes.md”?");
    let message = confirm.message();
    assert!(
        message.starts_with("“notes.md” was replaced by another program while you were asked")
            && message.contains("It holds 1 folder and 2 files"),
        "{message}"
    );
    escape_and_nothing_deleted(&mut ferry, &home);
    assert!(home.join("notes-old.md").is_file());
}

/// "Can't be moved to the trash. Delete permanently?": another program put a folder in the
/// item's place while it was asked, and Enter deleted the folder. It is asked about again.
#[test]
fn an_item_the_trash_refused_replaced_while_asked_is_asked_about_again() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    let task = ferry.offer_delete_instead(vec![home.join("notes.md")]);
    run(&mut ferry, task);
    assert!(question(&ferry).is_some_and(|q| q.contains("can't be moved to the trash")));
    // A trash was asked for: Enter alone declines the delete offered instead.
    let focus = ferry.confirm.as_ref().map(|c| c.focus());
    assert_eq!(focus, Some(crate::gui::modal::confirm::Choice::Cancel));
    folder_in_place_of_notes(&home);
    named(&mut ferry, Named::Tab, Modifiers::empty());
    named(&mut ferry, Named::Enter, Modifiers::empty());
    assert_asked_again_as_replaced(&ferry);
    escape_and_nothing_deleted(&mut ferry, &home);
}

/// An item gone while its delete was asked is left out, not said "replaced" and then failed
/// as gone (with a Retry that deleted what came under its name later).
#[test]
fn an_item_gone_while_its_delete_was_asked_is_left_out() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    select(&mut ferry, "notes.md");
    named(&mut ferry, Named::Delete, Modifiers::SHIFT);
    fs::remove_file(home.join("notes.md")).unwrap();
    alt(&mut ferry, "d");
    assert!(ferry.confirm.is_none(), "not asked again");
    assert_eq!(ferry.jobs.window_jobs().count(), 0, "no delete started");
    let said = "“notes.md” is gone already: nothing was deleted.";
    assert!(
        ferry.toasts.iter().any(|t| t.text == said),
        "{:?}",
        ferry.toasts
    );
}

#[test]
fn the_question_about_a_folder_says_what_it_holds() {
    let fixture = Fixture::new();
    let home = fixture.home();
    fs::write(home.join("Documents/tax/2025.pdf"), vec![0u8; 3000]).unwrap();
    let mut ferry = fixture.start(Some(&home));
    select(&mut ferry, "Documents");
    named(&mut ferry, Named::Delete, Modifiers::SHIFT);
    let confirm = ferry.confirm.as_ref().expect("asked");
    assert_eq!(confirm.title(), "Permanently delete “Documents”?");
    assert!(
        confirm
            .message()
            .starts_with("It holds 1 folder and 3 files, 3.0 kB."),
        "{}",
        confirm.message()
    );
    // Cancel by the button (its label is rich text: found by the button's id).
    click(
        &mut ferry,
        iced_test::selector::id(modal::confirm::CANCEL_ID),
    );
    assert_eq!(question(&ferry), None);
    assert!(home.join("Documents/tax/2025.pdf").exists());
}

#[test]
fn the_trash_view_shows_what_was_trashed_and_restores_it() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    // The Trash place opens the Trash view.
    trash_and_show(&fixture, &mut ferry, "notes.md");
    assert!(!home.join("notes.md").exists());
    assert!(shows(&ferry, "notes.md"));
    assert!(shows(&ferry, "Empty Trash"));
    assert_eq!(
        ferry.title(),
        "Trash — Ferry",
        "the title says what is shown"
    );

    select_in_trash(&mut ferry);
    key(&mut ferry, Key::Character("r".into()), Modifiers::ALT);
    super::operations::until(&mut ferry, "the restore", |_| {
        home.join("notes.md").exists()
    });
    jobs_done(&mut ferry);
    super::operations::until(&mut ferry, "the trash read again", |f| {
        f.trash
            .as_ref()
            .and_then(|t| t.loaded())
            .is_some_and(|l| l.is_empty())
    });

    // Back leaves the view for the panes.
    named(&mut ferry, Named::ArrowLeft, Modifiers::ALT);
    assert!(ferry.trash.is_none());
    assert_eq!(active_path(&ferry), home);
}

/// Restored beside a file made since at its place (Keep both), the toast names the name it
/// came back under (it said “notes.md”, the file it was not).
#[test]
fn a_restore_kept_beside_what_took_its_place_names_where_it_went() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    trash_and_show(&fixture, &mut ferry, "notes.md");
    fs::write(home.join("notes.md"), "made since").unwrap();
    select_in_trash(&mut ferry);
    key(&mut ferry, Key::Character("r".into()), Modifiers::ALT);
    super::operations::until(&mut ferry, "the restore's conflict", |f| {
        !f.conflicts.is_empty()
    });
    key(&mut ferry, Key::Character("k".into()), Modifiers::ALT);
    super::operations::until(&mut ferry, "the restore", |f| {
        f.conflicts.is_empty() && f.jobs.running() == 0
    });
    assert_eq!(fs::read(home.join("notes.md")).unwrap(), b"made since");
    assert!(home.join("notes (copy).md").exists());
    let said = "Restored “notes.md” as “notes (copy).md”.";
    assert_toast(&ferry, said);
}

/// The same for a file inside a restored folder merged into one made since: the folder kept
/// its name, and the toast says nothing of another ("Restored “proj” as “c (copy).txt”").
#[test]
fn a_keep_both_inside_a_restored_folder_leaves_its_name_alone() {
    let fixture = Fixture::new();
    let home = fixture.home();
    fs::create_dir(home.join("proj")).unwrap();
    fs::write(home.join("proj/c.txt"), "old").unwrap();
    let mut ferry = fixture.start(Some(&home));
    trash_and_show(&fixture, &mut ferry, "proj");
    fs::create_dir(home.join("proj")).unwrap();
    fs::write(home.join("proj/c.txt"), "made since").unwrap();
    select_in_trash(&mut ferry);
    key(&mut ferry, Key::Character("r".into()), Modifiers::ALT);
    for answer in ["m", "k"] {
        super::operations::until(&mut ferry, "a conflict of the restore", |f| {
            !f.conflicts.is_empty()
        });
        key(&mut ferry, Key::Character(answer.into()), Modifiers::ALT);
    }
    super::operations::until(&mut ferry, "the restore", |f| {
        f.conflicts.is_empty() && f.jobs.running() == 0
    });
    assert!(home.join("proj/c (copy).txt").exists());
    assert_toast(&ferry, "Restored “proj”.");
}

/// A file trashed twice is kept in the trash under another name ("notes.md.2"): restored onto
/// a file made since, the question named that ("Replace “notes.md.2” in “home”?").
#[test]
fn a_restore_question_names_the_item_as_it_was_not_as_the_trash_keeps_it() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    for _ in 0..2 {
        fs::write(home.join("notes.md"), "old").unwrap();
        // The file listed, not the one trashed before under its name (left alone as not the
        // one shown).
        let ino =
            std::os::unix::fs::MetadataExt::ino(&fs::metadata(home.join("notes.md")).unwrap());
        super::operations::until(&mut ferry, "the new notes.md listed", |f| {
            (f.tabs.active_pane().shown_listing())
                .is_some_and(|l| l.iter().any(|e| e.name() == "notes.md" && e.ino() == ino))
        });
        select(&mut ferry, "notes.md");
        named(&mut ferry, Named::Delete, Modifiers::empty());
        jobs_done(&mut ferry);
    }
    let trash = fixture.dir.path().join("data/Trash/files");
    assert_eq!(fs::read_dir(&trash).unwrap().count(), 2);
    fs::write(home.join("notes.md"), "made since").unwrap();
    send(&mut ferry, Message::Command(menus::Command::Open(trash)));
    super::operations::until(&mut ferry, "the trash read", |f| {
        f.trash.as_ref().is_some_and(|t| t.loaded().is_some())
    });
    // Both: the one kept as "notes.md.2" among them.
    ctrl(&mut ferry, "a");
    key(&mut ferry, Key::Character("r".into()), Modifiers::ALT);
    super::operations::until(&mut ferry, "the restore's conflicts", |f| {
        f.conflicts.first().is_some_and(|d| d.waiting() == 2)
    });
    assert!(shows(&ferry, "notes.md"));
    assert!(!shows(&ferry, "notes.md.2"), "named as it was, not as kept");
    key(&mut ferry, Key::Character("s".into()), Modifiers::ALT);
}

/// Trashes `name` of the home folder, then shows the Trash view, read.
pub(super) fn trash_and_show(fixture: &Fixture, ferry: &mut Ferry, name: &str) {
    select(ferry, name);
    named(ferry, Named::Delete, Modifiers::empty());
    jobs_done(ferry);
    let trash = fixture.dir.path().join("data/Trash/files");
    send(ferry, Message::Command(menus::Command::Open(trash)));
    super::operations::until(ferry, "the trash read", |f| {
        f.trash.as_ref().is_some_and(|t| t.loaded().is_some())
    });
}

/// The Trash view's Delete asked about a file; another program restored it and trashed a
/// folder under its name meanwhile, and Enter deleted the folder. Each item is deleted only
/// if it is still the one listed; else it is asked about again.
#[test]
fn a_trashed_item_replaced_while_its_delete_was_asked_is_asked_about_again() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    trash_and_show(&fixture, &mut ferry, "notes.md");
    select_in_trash(&mut ferry);
    named(&mut ferry, Named::Delete, Modifiers::empty());
    assert!(question(&ferry).is_some_and(|q| q.starts_with("Permanently delete")));
    let trashed = fixture.dir.path().join("data/Trash/files/notes.md");
    fs::remove_file(&trashed).unwrap();
    fs::create_dir_all(trashed.join("inner")).unwrap();
    fs::write(trashed.join("inner/x"), "precious").unwrap();
    alt(&mut ferry, "d");
    assert_asked_again_as_replaced(&ferry);
    let confirm = ferry.confirm.as_ref().expect("asked again");
    // It is in the trash already: asked again, the question must not say it will not go there.
    assert!(
        confirm
            .message()
            .ends_with("what is deleted from the trash can't be restored."),
        "{}",
        confirm.message()
    );
    named(&mut ferry, Named::Escape, Modifiers::empty());
    assert_eq!(fs::read(trashed.join("inner/x")).unwrap(), b"precious");
    // Read again: the folder now there is offered, not drawn as submitted out of reach.
    super::operations::until(&mut ferry, "the trash read again", |f| {
        f.trash
            .as_ref()
            .is_some_and(|t| t.actionable_items().len() == 1)
    });
}

#[test]
fn a_drag_out_of_the_trash_view_onto_a_place_restores_there() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    trash_and_show(&fixture, &mut ferry, "notes.md");
    ferry.mounts = ferry_core::fs::MountTable::read();

    // A press on the row, a move past the threshold: the item is dragged.
    click(&mut ferry, "notes.md");
    assert!(ferry.drag.is_none(), "a press alone drags nothing");
    send(&mut ferry, Message::PointerMoved(Point::new(300.0, 300.0)));
    assert!(ferry.drag.as_ref().is_some_and(|d| d.from_trash));
    // Over the Trash place it is refused; over Music it restores there.
    let hover = |ferry: &mut Ferry, place: PathBuf| {
        let place = sidebar::Place::Folder(place);
        send(ferry, Message::Sidebar(sidebar::Message::Hovered(place)));
        send(ferry, Message::PointerMoved(Point::new(60.0, 200.0)));
    };
    // A place the sidebar still takes for hovered while the pointer is over the view (it
    // left it unseen): no target. A click that moved a little restored into Home so.
    send(
        &mut ferry,
        Message::Sidebar(sidebar::Message::Hovered(sidebar::Place::Folder(
            home.clone(),
        ))),
    );
    send(&mut ferry, Message::PointerMoved(Point::new(600.0, 300.0)));
    assert_eq!(ferry.drop_action(), None);
    hover(&mut ferry, fixture.dir.path().join("data/Trash/files"));
    assert!(matches!(
        ferry.drop_action(),
        Some(drag::Action::Refused(_))
    ));
    hover(&mut ferry, home.join("Music"));
    assert_eq!(
        ferry.drop_action(),
        Some(drag::Action::Restore(home.join("Music")))
    );
    assert!(
        shows(&ferry, "Restore 1 item to “Music”"),
        "the badge says so"
    );
    send(&mut ferry, Message::PointerReleased);
    super::operations::until(&mut ferry, "the restore", |_| {
        home.join("Music/notes.md").exists()
    });
    jobs_done(&mut ferry);
    assert!(
        !home.join("notes.md").exists(),
        "restored where it was dropped"
    );
    super::operations::until(&mut ferry, "the trash read again", |f| {
        f.trash
            .as_ref()
            .and_then(|t| t.loaded())
            .is_some_and(|l| l.is_empty())
    });
}

#[test]
fn escape_ends_a_drag_out_of_the_trash_view_and_nothing_moves() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    trash_and_show(&fixture, &mut ferry, "notes.md");
    click(&mut ferry, "notes.md");
    send(&mut ferry, Message::PointerMoved(Point::new(300.0, 300.0)));
    assert!(ferry.drag.is_some());
    named(&mut ferry, Named::Escape, Modifiers::empty());
    assert!(ferry.drag.is_none());
    send(&mut ferry, Message::PointerReleased);
    assert!(ferry.jobs.window_jobs().all(|j| !j.is_running()));
    assert_eq!(ferry.trash.as_ref().unwrap().selected_items().len(), 1);
    assert!(!home.join("notes.md").exists());
}

/// Ctrl+C in the Trash view (it copied nothing): pasted into a folder, the item is copied out
/// under the name it had (`notes.md`, not the trash's `notes.md.2`) and stays in the trash;
/// Ctrl+X, then Ctrl+V in a folder, restores it there, as Dolphin does with `trash:/`.
#[test]
fn items_copied_or_cut_in_the_trash_view_paste_out_of_it() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let trash = second_notes_in_trash(&fixture);
    let (copied, cut) = (home.join("copied"), home.join("cut"));
    fs::create_dir_all(&copied).unwrap();
    fs::create_dir_all(&cut).unwrap();
    let mut ferry = fixture.start(Some(&home));

    show_trash(&mut ferry, &trash);
    select_in_trash(&mut ferry);
    ctrl(&mut ferry, "c");
    send(
        &mut ferry,
        Message::Command(menus::Command::Open(copied.clone())),
    );
    ctrl(&mut ferry, "v");
    jobs_done(&mut ferry);
    assert_eq!(fs::read(copied.join("notes.md")).unwrap(), b"old notes");
    assert!(
        trash.join("files/notes.md.2").exists(),
        "still in the trash"
    );
    // Said by its name, not the trash's ("Copied “notes.md.2” to “copied” as “notes.md”").
    let said: Vec<_> = ferry.toasts.iter().map(|t| t.text.as_str()).collect();
    assert!(said.contains(&"Copied “notes.md” to “copied”."), "{said:?}");

    show_trash(&mut ferry, &trash);
    // Into the trash itself, nothing is pasted, and that is said.
    ctrl(&mut ferry, "v");
    let said = "Nothing can be pasted into the trash: Delete moves selected items there.";
    assert!(ferry.toasts.iter().any(|t| t.text == said));
    select_in_trash(&mut ferry);
    ctrl(&mut ferry, "x");
    let file = trash.join("files/notes.md.2");
    assert!(ferry.trash.as_ref().unwrap().is_cut(&file), "drawn dimmed");
    send(
        &mut ferry,
        Message::Command(menus::Command::Open(cut.clone())),
    );
    ctrl(&mut ferry, "v");
    super::operations::until(&mut ferry, "the restore", |_| cut.join("notes.md").exists());
    jobs_done(&mut ferry);
    assert_eq!(fs::read(cut.join("notes.md")).unwrap(), b"old notes");
    assert!(!trash.join("files/notes.md.2").exists());
    assert!(!trash.join("info/notes.md.2.trashinfo").exists());
}

/// An item the trash keeps under another name (`notes.md.2`: a second `notes.md` trashed) is
/// deleted from it as the user knows it: "Deleted “notes.md” permanently", not by the
/// trash's name for it.
#[test]
fn an_item_deleted_from_the_trash_is_named_as_before_the_trash() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let trash = second_notes_in_trash(&fixture);
    let mut ferry = fixture.start(Some(&home));
    show_trash(&mut ferry, &trash);
    select_in_trash(&mut ferry);
    named(&mut ferry, Named::Delete, Modifiers::empty());
    alt(&mut ferry, "d");
    super::operations::until(&mut ferry, "the delete", |_| {
        !trash.join("files/notes.md.2").exists()
    });
    jobs_done(&mut ferry);
    let said: Vec<_> = ferry.toasts.iter().map(|t| t.text.as_str()).collect();
    assert!(
        said.contains(&"Deleted “notes.md” permanently."),
        "{said:?}"
    );
}

#[test]
fn a_paste_onto_a_name_taken_asks_and_the_answer_reaches_the_job() {
    let fixture = Fixture::new();
    let home = fixture.home();
    fs::write(home.join("Music/a.txt"), "older").unwrap();
    fs::write(home.join("Music/b.txt"), "older").unwrap();
    let mut ferry = fixture.start(Some(&home.join("Documents")));
    ctrl(&mut ferry, "a");
    ctrl(&mut ferry, "c");
    super::operations::go(&mut ferry, &home.join("Music"));
    ctrl(&mut ferry, "v");
    super::operations::until(&mut ferry, "the conflict dialog", |f| {
        f.conflicts.first().is_some_and(|d| d.waiting() == 2)
    });
    assert!(ferry.conflicts[0].is_table(), "two conflicts: one table");
    // Keep both for every row, by the table's rule keys, then apply.
    for _ in 0..2 {
        key(&mut ferry, Key::Character("k".into()), Modifiers::ALT);
    }
    key(&mut ferry, Key::Character("p".into()), Modifiers::ALT);
    super::operations::jobs_done(&mut ferry);
    assert!(
        ferry.conflicts.is_empty(),
        "the dialog went with its conflicts"
    );
    assert_eq!(fs::read(home.join("Music/a.txt")).unwrap(), b"older");
    assert_eq!(fs::read(home.join("Music/a (copy).txt")).unwrap(), b"x");
    assert_eq!(fs::read(home.join("Music/b (copy).txt")).unwrap(), b"x");
}

#[test]
fn keep_both_names_the_new_file_in_the_toast() {
    let fixture = Fixture::new();
    let home = fixture.home();
    fs::write(home.join("Music/a.txt"), "older").unwrap();
    let mut ferry = fixture.start(Some(&home.join("Documents")));
    select(&mut ferry, "a.txt");
    ctrl(&mut ferry, "c");
    super::operations::go(&mut ferry, &home.join("Music"));
    ctrl(&mut ferry, "v");
    super::operations::until(&mut ferry, "the conflict dialog", |f| {
        !f.conflicts.is_empty()
    });
    key(&mut ferry, Key::Character("k".into()), Modifiers::ALT);
    super::operations::until(&mut ferry, "the copy", |f| {
        f.conflicts.is_empty() && f.jobs.running() == 0
    });
    assert_eq!(fs::read(home.join("Music/a (copy).txt")).unwrap(), b"x");
    assert_toast(&ferry, "Copied “a.txt” to “Music” as “a (copy).txt”.");
}

/// Ctrl+Z, its conflict answered Keep both (Alt+K), until the undo ends.
fn undo_answered_keep_both(ferry: &mut Ferry) {
    ctrl(ferry, "z");
    super::operations::until(ferry, "the undo's conflict", |f| !f.conflicts.is_empty());
    key(ferry, Key::Character("k".into()), Modifiers::ALT);
    super::operations::until(ferry, "the undo's end", |f| {
        f.conflicts.is_empty() && f.jobs.running() == 0
    });
}

#[test]
fn undoing_a_move_onto_a_place_taken_since_asks() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home.join("Documents")));
    select(&mut ferry, "a.txt");
    ctrl(&mut ferry, "x");
    super::operations::go(&mut ferry, &home.join("Music"));
    ctrl(&mut ferry, "v");
    jobs_done(&mut ferry);
    assert!(home.join("Music/a.txt").exists());
    // The old place is taken again before the undo.
    fs::write(home.join("Documents/a.txt"), "new").unwrap();
    // Keep both: the file moved back beside the new one.
    undo_answered_keep_both(&mut ferry);
    assert_eq!(fs::read(home.join("Documents/a.txt")).unwrap(), b"new");
    assert_eq!(fs::read(home.join("Documents/a (copy).txt")).unwrap(), b"x");
    assert!(!home.join("Music/a.txt").exists());
    // The toast names what came back, not the name taken (it named “a.txt” alone).
    let said = "Undid: Move “a.txt” to “Music”; it came back as “a (copy).txt”.";
    assert_toast(&ferry, said);
}

/// Ctrl+Z on a rename whose old name another program took since asks, as for a move (it
/// failed with "already there" and offered nothing but Retry).
#[test]
fn undoing_a_rename_onto_a_name_taken_since_asks() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home.join("Documents")));
    select(&mut ferry, "a.txt");
    named(&mut ferry, Named::F2, Modifiers::empty());
    let view = ferry.tabs.active_pane().view_id();
    let pane = |m| Message::Tabs(tabs::Message::Pane(view, m));
    send(
        &mut ferry,
        pane(browser::Message::RenameEdited("c.txt".into())),
    );
    send(&mut ferry, pane(browser::Message::RenameSubmitted));
    let renamed = home.join("Documents/c.txt");
    super::operations::until(&mut ferry, "the rename", |f| {
        renamed.exists() && f.jobs.running() == 0 && !f.tabs.active_pane().is_renaming()
    });
    fs::write(home.join("Documents/a.txt"), "new").unwrap();
    undo_answered_keep_both(&mut ferry);
    assert_eq!(fs::read(home.join("Documents/a.txt")).unwrap(), b"new");
    assert_eq!(fs::read(home.join("Documents/a (copy).txt")).unwrap(), b"x");
    assert!(!home.join("Documents/c.txt").exists());
}

/// The Trash view from the keyboard alone: the window menu (F10), its "Trash" entry chosen
/// with the arrows and Enter (the places sidebar takes no keyboard).
#[test]
fn the_window_menu_opens_the_trash_from_the_keyboard() {
    let fixture = Fixture::new();
    let mut ferry = fixture.start(Some(&fixture.home()));
    named(&mut ferry, Named::F10, Modifiers::empty());
    // Opened from the keyboard, its first entry is highlighted, as in Qt's menus: past Undo
    // and Redo (both disabled: nothing done yet), Jobs. Then Trash.
    named(&mut ferry, Named::ArrowDown, Modifiers::empty());
    named(&mut ferry, Named::Enter, Modifiers::empty());
    super::operations::until(&mut ferry, "the trash read", |f| {
        f.trash.as_ref().is_some_and(|t| t.loaded().is_some())
    });
    assert!(shows(&ferry, "Empty Trash"));
    // Ctrl+L leaves it for a path typed (it did nothing).
    ctrl(&mut ferry, "l");
    assert!(ferry.trash.is_none());
    assert!(ferry.tabs.active_pane().is_editing_location());
}

#[test]
fn enter_on_more_than_ten_items_asks_then_opens_each_folder_in_a_tab() {
    let fixture = Fixture::new();
    let many = fixture.home().join("many");
    for i in 0..12 {
        fs::create_dir_all(many.join(format!("f{i:02}"))).unwrap();
    }
    let mut ferry = fixture.start(Some(&many));
    ctrl(&mut ferry, "a");
    named(&mut ferry, Named::Enter, Modifiers::empty());
    assert_eq!(question(&ferry).as_deref(), Some("Open 12 items?"));
    named(&mut ferry, Named::Escape, Modifiers::empty());
    assert_eq!(ferry.tabs.count(), 1, "declined: nothing opened");
    // An Enter too many declines too.
    named(&mut ferry, Named::Enter, Modifiers::empty());
    named(&mut ferry, Named::Enter, Modifiers::empty());
    assert_eq!(question(&ferry), None);
    assert_eq!(ferry.tabs.count(), 1, "declined: nothing opened");

    named(&mut ferry, Named::Enter, Modifiers::empty());
    named(&mut ferry, Named::Tab, Modifiers::empty());
    named(&mut ferry, Named::Enter, Modifiers::empty());
    assert_eq!(question(&ferry), None);
    assert_eq!(ferry.tabs.count(), 13, "a tab for each folder");
    let tabs: Vec<PathBuf> = ferry
        .tabs
        .panes()
        .skip(1)
        .map(|p| p.path().to_owned())
        .collect();
    let folders: Vec<PathBuf> = (0..12).map(|i| many.join(format!("f{i:02}"))).collect();
    assert_eq!(tabs, folders, "in their order");
    assert_eq!(ferry.title(), "many — Ferry", "the tabs open behind");
}

/// Back from the Trash view, then Forward, shows it again, as a browser's Forward would: the
/// Trash was in no history, and Forward stayed grey. Gone elsewhere since, Forward is the
/// pane's own.
#[test]
fn forward_after_back_from_the_trash_shows_it_again() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    trash_and_show(&fixture, &mut ferry, "notes.md");
    named(&mut ferry, Named::ArrowLeft, Modifiers::ALT);
    assert!(ferry.trash.is_none(), "Back leaves it");
    named(&mut ferry, Named::ArrowRight, Modifiers::ALT);
    assert!(ferry.trash.is_some(), "Forward shows it again");
    named(&mut ferry, Named::ArrowLeft, Modifiers::ALT);
    super::operations::go(&mut ferry, &home.join("Music"));
    named(&mut ferry, Named::ArrowRight, Modifiers::ALT);
    assert!(ferry.trash.is_none(), "not from another folder");
    // Gone elsewhere and back to the same folder: Forward is the pane's own again.
    named(&mut ferry, Named::ArrowLeft, Modifiers::ALT);
    send(
        &mut ferry,
        Message::Command(menus::Command::Open(
            fixture.dir.path().join("data/Trash/files"),
        )),
    );
    named(&mut ferry, Named::ArrowLeft, Modifiers::ALT);
    assert!(ferry.trash.is_none());
    let folder = ferry.tabs.active_pane().path().to_path_buf();
    named(&mut ferry, Named::ArrowUp, Modifiers::ALT);
    named(&mut ferry, Named::ArrowLeft, Modifiers::ALT);
    assert_eq!(ferry.tabs.active_pane().path(), folder);
    named(&mut ferry, Named::ArrowRight, Modifiers::ALT);
    assert!(
        ferry.trash.is_none(),
        "Forward after Up and Back is the parent"
    );
}

/// One answer for the rest of a kind, given one by one, settles every conflict of it: the
/// jobs panel took off one and read "waiting for 9,997 answers" with none of them waiting.
#[test]
fn an_answer_for_all_of_a_kind_leaves_only_the_others_awaited() {
    let fixture = Fixture::new();
    let home = fixture.home();
    for side in ["src", "dst"] {
        fs::create_dir_all(home.join(side).join("d")).unwrap();
        for name in ["a", "b", "c"] {
            fs::write(home.join(side).join(name), side).unwrap();
        }
    }
    let mut ferry = super::operations::src_pasted_into_dst(&fixture, &home, "c");
    super::operations::until(&mut ferry, "the conflicts", |f| {
        f.conflicts.first().is_some_and(|d| d.waiting() == 4)
    });
    let job = ferry.conflicts[0].job();
    assert_eq!(ferry.jobs.window_job(job).unwrap().waiting_answers, 4);
    for message in [
        conflict::Message::OneByOne,
        conflict::Message::ApplyAllToggled(true),
        conflict::Message::Answered(conflict::Act::Skip),
    ] {
        send(&mut ferry, Message::Conflict(job, message));
    }
    assert_eq!(
        ferry.conflicts[0].waiting(),
        1,
        "the folder's question is left"
    );
    assert_eq!(ferry.jobs.window_job(job).unwrap().waiting_answers, 1);
    send(
        &mut ferry,
        Message::Conflict(job, conflict::Message::Answered(conflict::Act::Skip)),
    );
    jobs_done(&mut ferry);
    assert_eq!(fs::read(home.join("dst/b")).unwrap(), b"dst");
}

/// Replace all in the table merges the folders, and answers what is found inside them too:
/// each level was asked again, a table, then a dialog per folder (round 127).
#[test]
fn a_rule_applied_to_all_answers_the_conflicts_inside_the_folders_it_merged() {
    let fixture = Fixture::new();
    let home = fixture.home();
    for (side, text) in [("src", "new"), ("dst", "old")] {
        fs::create_dir_all(home.join(side).join("dir/sub")).unwrap();
        for name in ["x", "dir/a", "dir/b", "dir/sub/c"] {
            fs::write(home.join(side).join(name), text).unwrap();
        }
    }
    let mut ferry = super::operations::src_pasted_into_dst(&fixture, &home, "x");
    super::operations::until(&mut ferry, "the table", |f| {
        f.conflicts.first().is_some_and(|d| d.waiting() == 2)
    });
    let job = ferry.conflicts[0].job();
    for message in [
        conflict::Message::RuleApplied(conflict::Rule::ReplaceAll),
        conflict::Message::Apply,
    ] {
        send(&mut ferry, Message::Conflict(job, message));
    }
    jobs_done(&mut ferry);
    assert!(
        ferry.conflicts.is_empty(),
        "asked again inside the merged folder"
    );
    for name in ["x", "dir/a", "dir/b", "dir/sub/c"] {
        assert_eq!(
            fs::read(home.join("dst").join(name)).unwrap(),
            b"new",
            "{name}"
        );
    }
}
