//! The keyboard and the jobs panel: Ctrl+J puts it there, from the Trash view too; a click
//! in a pane or the last job dismissed gives it back.

use super::*;

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

/// A pane's keys for its folder work with the keyboard in the jobs panel or the places, and
/// give the pane the keyboard: Ctrl+L there did nothing, as did Ctrl+2. Keys for the selection
/// still do not reach the pane (Delete there is the panel's, or nothing).
#[test]
fn keys_for_the_folder_work_from_the_panel_and_the_places() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = big_paste_paused(&fixture, &home);
    load_places(&fixture, &mut ferry);
    go(&mut ferry, &home);
    ctrl(&mut ferry, "j");
    ctrl(&mut ferry, "l");
    assert!(!ferry.jobs_panel.has_focus(), "the pane has the keyboard");
    assert!(ferry.tabs.active_pane().is_editing_location());
    named(&mut ferry, Named::Escape, Modifiers::empty());
    // Ctrl+A from the places selects in the pane; Delete back in the places trashes nothing.
    named(&mut ferry, Named::Tab, Modifiers::empty());
    assert!(
        ferry.sidebar.has_focus(),
        "Tab gives the places the keyboard"
    );
    ctrl(&mut ferry, "a");
    assert!(ferry.tabs.active_pane().selection().count() > 0);
    named(&mut ferry, Named::Tab, Modifiers::empty());
    assert!(ferry.sidebar.has_focus());
    let jobs = ferry.jobs.window_jobs().count();
    named(&mut ferry, Named::Delete, Modifiers::empty());
    assert_eq!(ferry.jobs.window_jobs().count(), jobs, "no trash job");
    ctrl(&mut ferry, "2");
    assert!(!ferry.sidebar.has_focus());
    assert_eq!(ferry.tabs.active_pane().mode(), ViewMode::Icons);
    cancel_to_the_end(&mut ferry);
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
