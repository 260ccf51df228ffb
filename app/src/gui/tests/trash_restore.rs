//! The Trash view's restores with real jobs: Restore to…'s folder prompt, and what a restore
//! merged into a folder there says and undoes; the trash helpers the dialogs' tests share.

use std::fs;

use super::operations::jobs_done;
use super::*;
use crate::gui::modal::conflict;
use crate::gui::screen::trash;

/// The trash of `fixture`, holding a `notes.md` of the home folder as `notes.md.2` (as a
/// second one of that name is kept), its content "old notes".
pub(super) fn second_notes_in_trash(fixture: &Fixture) -> PathBuf {
    let trash = fixture.dir.path().join("data/Trash");
    fs::create_dir_all(trash.join("files")).unwrap();
    fs::create_dir_all(trash.join("info")).unwrap();
    fs::write(trash.join("files/notes.md.2"), "old notes").unwrap();
    let info = format!(
        "[Trash Info]\nPath={}\nDeletionDate=2026-01-02T03:04:05\n",
        fixture.home().join("notes.md").display()
    );
    fs::write(trash.join("info/notes.md.2.trashinfo"), info).unwrap();
    trash
}

/// Shows the trash folder `trash` (its `files` folder opened) and waits for its listing.
pub(super) fn show_trash(ferry: &mut Ferry, trash: &Path) {
    send(
        ferry,
        Message::Command(menus::Command::Open(trash.join("files"))),
    );
    super::operations::until(ferry, "the trash read", |f| {
        f.trash.as_ref().is_some_and(|t| t.loaded().is_some())
    });
}

/// Selects the first item of the Trash view.
pub(super) fn select_in_trash(ferry: &mut Ferry) {
    named(ferry, Named::ArrowDown, Modifiers::empty());
    let selected = ferry.trash.as_ref().unwrap().selected_items();
    assert_eq!(selected.len(), 1);
}

/// Escape in Restore to…'s folder prompt closes it at once, though its field takes Escape (to
/// give up the keyboard) before the window hears it: the prompt stayed, its field unfocused.
#[test]
fn escape_in_the_trash_restore_prompt_closes_it() {
    let fixture = Fixture::new();
    let trash = second_notes_in_trash(&fixture);
    let mut ferry = fixture.start(Some(&fixture.home()));
    show_trash(&mut ferry, &trash);
    select_in_trash(&mut ferry);
    send(&mut ferry, Message::Trash(trash::Message::RestoreTo));
    let unavailable = trash::Message::Picked(trash::Picked::Unavailable);
    send(&mut ferry, Message::Trash(unavailable));
    assert!(ferry.trash.as_ref().is_some_and(|t| t.asks_folder()));
    let escape = Message::Key {
        key: Key::Named(Named::Escape),
        text: None,
        modifiers: Modifiers::empty(),
        captured: true,
    };
    send(&mut ferry, escape);
    assert!(ferry.trash.as_ref().is_some_and(|t| !t.asks_folder()));
}

/// Restore to…'s folder prompt is over the whole window, as every dialog is: over the trash
/// view alone, the places beside it stayed bright, and a click on one left the trash.
#[test]
fn the_trash_restore_prompt_covers_the_places() {
    let fixture = Fixture::new();
    let trash = second_notes_in_trash(&fixture);
    let mut ferry = fixture.start(Some(&fixture.home()));
    load_places(&fixture, &mut ferry);
    show_trash(&mut ferry, &trash);
    select_in_trash(&mut ferry);
    send(&mut ferry, Message::Trash(trash::Message::RestoreTo));
    let unavailable = trash::Message::Picked(trash::Picked::Unavailable);
    send(&mut ferry, Message::Trash(unavailable));
    click(&mut ferry, "Music");
    assert!(
        ferry.trash.is_some(),
        "the click went to the place under the prompt"
    );
}

/// The trash of `fixture` holding the folder `M` of the home folder, with `a` and `b` in it,
/// and the home folder a new `M` holding its own `b`.
fn folder_m_trashed_and_made_again(fixture: &Fixture) -> PathBuf {
    let (home, trash) = (fixture.home(), fixture.dir.path().join("data/Trash"));
    fs::create_dir_all(trash.join("files/M")).unwrap();
    fs::create_dir_all(trash.join("info")).unwrap();
    fs::write(trash.join("files/M/a"), "A").unwrap();
    fs::write(trash.join("files/M/b"), "B-old").unwrap();
    let info = format!(
        "[Trash Info]\nPath={}\nDeletionDate=2026-01-02T03:04:05\n",
        home.join("M").display()
    );
    fs::write(trash.join("info/M.trashinfo"), info).unwrap();
    fs::create_dir_all(home.join("M")).unwrap();
    fs::write(home.join("M/b"), "B-new").unwrap();
    trash
}

/// Answers the next conflict of the window with `act`.
fn answer(ferry: &mut Ferry, act: conflict::Act) {
    super::operations::until(ferry, "a conflict", |f| {
        f.conflicts.iter().any(|d| d.waiting() > 0)
    });
    let job = ferry.conflicts[0].job();
    send(
        ferry,
        Message::Conflict(job, conflict::Message::Answered(act)),
    );
}

/// A folder restored into the one of its name there (merged, one file skipped as there) says
/// what it restored: "Restored nothing (1 skipped)" was said with `a` back in place. Its undo
/// puts `a` back in the folder in the trash, which stays one entry (with its size line
/// dropped, its size having changed); `a` came back as an entry of its own.
#[test]
fn a_restore_merged_into_a_folder_says_what_it_did_and_undoes_into_the_trash() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let trash = folder_m_trashed_and_made_again(&fixture);
    fs::write(trash.join("directorysizes"), "11 1 M\n").unwrap();
    let mut ferry = fixture.start(Some(&home));
    show_trash(&mut ferry, &trash);
    select_in_trash(&mut ferry);
    alt(&mut ferry, "r");
    answer(&mut ferry, conflict::Act::Merge);
    answer(&mut ferry, conflict::Act::Skip);
    jobs_done(&mut ferry);
    assert_eq!(fs::read(home.join("M/a")).unwrap(), b"A");
    assert_eq!(fs::read(home.join("M/b")).unwrap(), b"B-new");
    assert!(
        ferry
            .toasts
            .iter()
            .any(|t| t.text.contains("Restored 1 item (1 skipped)")),
        "{:?}",
        ferry.toasts.iter().map(|t| &t.text).collect::<Vec<_>>()
    );
    let sizes = fs::read_to_string(trash.join("directorysizes")).unwrap_or_default();
    assert!(!sizes.contains(" M\n"), "a stale size: {sizes}");

    ctrl(&mut ferry, "z");
    jobs_done(&mut ferry);
    assert!(!home.join("M/a").exists());
    assert_eq!(fs::read(home.join("M/b")).unwrap(), b"B-new");
    assert_eq!(fs::read(trash.join("files/M/a")).unwrap(), b"A");
    let entries: Vec<_> = fs::read_dir(trash.join("info")).unwrap().collect();
    assert_eq!(entries.len(), 1, "one entry in the trash, as before");

    // Redone: the folder is restored again, merged and asked as the first time.
    key(
        &mut ferry,
        Key::Character("z".into()),
        Modifiers::CTRL | Modifiers::SHIFT,
    );
    answer(&mut ferry, conflict::Act::Merge);
    answer(&mut ferry, conflict::Act::Skip);
    jobs_done(&mut ferry);
    assert_eq!(fs::read(home.join("M/a")).unwrap(), b"A");
    assert_eq!(fs::read(trash.join("files/M/b")).unwrap(), b"B-old");
}
