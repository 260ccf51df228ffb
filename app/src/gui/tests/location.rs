//! The location bar in the window: odd names, a file's path, a hidden file typed, and
//! `trash:/`; and the filter bar giving the list the keyboard.

use super::*;

/// Ctrl+L, Enter on a folder whose name ends with a space: the path as typed, spaces and all,
/// is tried before the trimmed one (which named no folder: "No such folder.").
#[test]
fn the_location_bar_reaches_a_folder_whose_name_ends_with_a_space() {
    let fixture = Fixture::new();
    let spaced = fixture.home().join("trailing ");
    std::fs::create_dir(&spaced).unwrap();
    let mut ferry = fixture.start(Some(&spaced));
    ctrl(&mut ferry, "l");
    assert!(ferry.tabs.active_pane().is_editing_location());
    named(&mut ferry, Named::Enter, Modifiers::empty());
    assert!(!shows(&ferry, "No such folder."));
    assert!(!ferry.tabs.active_pane().is_editing_location(), "opened");
    assert_eq!(active_path(&ferry), spaced);
}

/// Ctrl+L, `typed` in the location bar, Enter.
fn type_in_location_bar(ferry: &mut Ferry, typed: &str) {
    ctrl(ferry, "l");
    let view = ferry.tabs.active_pane().view_id();
    let edited = browser::Message::PathEdited(typed.to_owned());
    send(ferry, Message::Tabs(tabs::Message::Pane(view, edited)));
    named(ferry, Named::Enter, Modifiers::empty());
}

/// A file's path typed in the location bar opens its folder with it selected, as Dolphin
/// does: it said "This is not a folder."
#[test]
fn the_location_bar_opens_a_files_folder_with_the_file_selected() {
    let fixture = Fixture::new();
    let file = fixture.home().join("Documents/a.txt");
    assert!(file.is_file());
    let mut ferry = fixture.start(Some(&fixture.home()));
    type_in_location_bar(&mut ferry, &file.display().to_string());
    operations::until(&mut ferry, "the file selected", |f| {
        f.tabs.active_pane().selected_paths() == [file.clone()]
    });
    assert_eq!(active_path(&ferry), fixture.home().join("Documents"));
    assert!(!ferry.tabs.active_pane().is_editing_location());
}

/// A hidden file typed while hidden files are not shown: its folder opens and says why it is
/// not selected; a file's path with a slash after it is no folder, as a shell says.
#[test]
fn the_location_bar_says_a_typed_file_is_hidden_and_refuses_a_file_as_a_folder() {
    let fixture = Fixture::new();
    let hidden = fixture.home().join("Documents/.secret.txt");
    std::fs::write(&hidden, "x").unwrap();
    let mut ferry = fixture.start(Some(&fixture.home()));
    type_in_location_bar(&mut ferry, &hidden.display().to_string());
    operations::until(&mut ferry, "its folder", |f| {
        active_path(f) == fixture.home().join("Documents")
    });
    let said = "“.secret.txt” is hidden: Ctrl+H shows hidden files.";
    assert!(shows(&ferry, said));
    // Shown, it is selected, and the notice has said its part.
    ctrl(&mut ferry, "h");
    operations::until(&mut ferry, "the hidden file selected", |f| {
        f.tabs.active_pane().selected_paths() == [hidden.clone()]
    });
    assert!(!shows(&ferry, said));
    ctrl(&mut ferry, "h");
    let file = fixture.home().join("Documents/a.txt");
    type_in_location_bar(&mut ferry, &format!("{}/", file.display()));
    operations::until(&mut ferry, "the refusal", |f| {
        shows(f, "This is not a folder.")
    });
    assert!(ferry.tabs.active_pane().is_editing_location());
    assert!(ferry.tabs.active_pane().selected_paths().is_empty());
}

#[test]
fn the_location_bar_opens_the_trash_at_its_address() {
    for typed in ["trash:/", "trash:///", "Trash:"] {
        let fixture = Fixture::new();
        let mut ferry = fixture.start(Some(&fixture.home()));
        type_in_location_bar(&mut ferry, typed);
        let toasts: Vec<_> = ferry.toasts.iter().map(|t| t.text.clone()).collect();
        assert!(ferry.trash.is_some(), "{typed}: the trash shown {toasts:?}");
        assert!(!ferry.tabs.active_pane().is_editing_location());
    }
}

/// Ctrl+L in the Trash view edits the location with `trash:/` in it, as Dolphin does, and
/// Escape shows the Trash again: it left the Trash for the last folder, its path in the field,
/// and Escape stayed there.
#[test]
fn ctrl_l_in_the_trash_shows_its_address_and_escape_comes_back() {
    let fixture = Fixture::new();
    let mut ferry = fixture.start(Some(&fixture.home()));
    type_in_location_bar(&mut ferry, "trash:/");
    assert!(ferry.trash.is_some());
    ctrl(&mut ferry, "l");
    assert!(ferry.tabs.active_pane().is_editing_location());
    assert!(shows(&ferry, "trash:/"), "the trash's address is edited");
    named(&mut ferry, Named::Escape, Modifiers::empty());
    assert!(ferry.trash.is_some(), "back in the Trash");
    assert!(!ferry.tabs.active_pane().is_editing_location());
    // A folder typed there leaves it.
    type_in_location_bar(
        &mut ferry,
        &fixture.home().join("Documents").to_string_lossy(),
    );
    assert!(ferry.trash.is_none());
    assert_eq!(active_path(&ferry), fixture.home().join("Documents"));
}

/// The Trash view opens sorted as it was last sorted, as Dolphin keeps a folder's sort: it
/// went back to the newest first every time it was shown.
#[test]
fn the_trash_keeps_its_sort() {
    use crate::gui::screen::trash::{self, Column, Sort};
    let fixture = Fixture::new();
    let mut ferry = fixture.start(Some(&fixture.home()));
    type_in_location_bar(&mut ferry, "trash:/");
    let by_name = Sort {
        column: Column::Name,
        direction: ferry_core::sort::Direction::Ascending,
    };
    assert_ne!(ferry.trash.as_ref().unwrap().sort(), by_name);
    send(&mut ferry, Message::Trash(trash::Message::SortSet(by_name)));
    let documents = fixture.home().join("Documents");
    type_in_location_bar(&mut ferry, &documents.to_string_lossy());
    assert!(ferry.trash.is_none());
    type_in_location_bar(&mut ferry, "trash:/");
    assert_eq!(ferry.trash.as_ref().unwrap().sort(), by_name);
    assert_eq!(ferry.services.settings.trash_sort, by_name, "saved");
}

/// In a split, a folder typed into the other pane's path bar opened there while the keyboard
/// (and Back) stayed with the pane it was in; a click on a breadcrumb the same. The pane
/// clicked into takes the keyboard, as a click in its list does.
#[test]
fn the_pane_whose_path_bar_is_used_takes_the_keyboard() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    named(&mut ferry, Named::F3, Modifiers::empty());
    let left = ferry.tabs.current().panes()[0].view_id();
    assert_ne!(
        ferry.tabs.active_pane().view_id(),
        left,
        "the new pane has it"
    );
    let documents = home.join("Documents");
    for message in [
        browser::Message::EditPath,
        browser::Message::PathEdited(documents.display().to_string()),
        browser::Message::PathSubmitted,
    ] {
        send(
            &mut ferry,
            Message::Tabs(tabs::Message::Pane(left, message)),
        );
    }
    operations::until(&mut ferry, "the typed folder", |f| {
        f.tabs.current().panes()[0].path() == documents
    });
    assert_eq!(ferry.tabs.active_pane().view_id(), left);

    let right = ferry.tabs.current().panes()[1].view_id();
    let crumb = browser::Message::CrumbPressed(home);
    send(&mut ferry, Message::Tabs(tabs::Message::Pane(right, crumb)));
    assert_eq!(ferry.tabs.active_pane().view_id(), right);
}

/// Tab in the filter bar gives the list the keyboard, the filter staying open, as in Dolphin:
/// then letters go to type-ahead and Ctrl+A selects what is shown. Tab did nothing, and a letter
/// typed after Down from the filter went into the filter's text, at its start.
#[test]
fn tab_takes_the_keyboard_from_the_filter_bar_to_the_list() {
    let fixture = Fixture::new();
    let mut ferry = fixture.start(Some(&fixture.home().join("Documents")));
    settle(&mut ferry);
    ctrl(&mut ferry, "i");
    assert!(ferry.tabs.active_pane().is_filter_typing());
    let view = ferry.tabs.active_pane().view_id();
    let edited = browser::Message::FilterEdited(".txt".to_owned());
    send(&mut ferry, Message::Tabs(tabs::Message::Pane(view, edited)));
    assert!(shows(&ferry, "2 of 3 shown"));
    named(&mut ferry, Named::Tab, Modifiers::empty());
    assert!(!ferry.tabs.active_pane().is_filter_typing());
    assert!(!ferry.tabs.active_pane().is_typing());
    assert!(shows(&ferry, "Filter:"), "the filter bar stays open");
    key(&mut ferry, Key::Character("b".into()), Modifiers::empty());
    assert!(
        shows(&ferry, "2 of 3 shown"),
        "the letter is not the filter's"
    );
    let selected = |f: &Ferry| f.tabs.active_pane().selected_paths();
    assert_eq!(selected(&ferry), [fixture.home().join("Documents/b.txt")]);
    ctrl(&mut ferry, "a");
    assert_eq!(selected(&ferry).len(), 2, "only what the filter shows");

    // Down from the field does the same.
    ctrl(&mut ferry, "i");
    assert!(ferry.tabs.active_pane().is_filter_typing());
    named(&mut ferry, Named::ArrowDown, Modifiers::empty());
    assert!(!ferry.tabs.active_pane().is_filter_typing());
    key(&mut ferry, Key::Character("a".into()), Modifiers::empty());
    assert!(
        shows(&ferry, "2 of 3 shown"),
        "the letter is not the filter's"
    );
}
