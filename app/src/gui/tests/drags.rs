//! Drags in the window, with the fixture's engine and journal: a drop on the other pane of a
//! split moves (Shift+F5 copies, Ctrl+Shift links), its toast's "Make it a copy", and a drop
//! on a breadcrumb; the place or tab under the pointer.

use std::fs;

use super::operations::{assert_toast, go, jobs_done, lay_out, select, until};
use super::*;

/// Drags `b.txt` of the active pane (`Documents`) onto the other one (`Music`) and drops it:
/// the same disk, so a move, whose toast offers "Make it a copy".
fn drop_b_txt_on_the_other_pane(ferry: &mut Ferry, home: &std::path::Path) {
    select(ferry, "b.txt");
    let target = ferry.tabs.inactive_pane().unwrap().list_bounds();
    assert!(target.width > 0.0, "the panes were laid out");
    // The mount table, as the places' first reading brings it (a drop's default needs it).
    ferry.mounts = ferry_core::fs::MountTable::read();
    let paths = ferry.tabs.active_pane().selected_paths();
    ferry.drag_started(paths, format::Category::Text);
    send(ferry, Message::PointerMoved(target.center()));
    assert_eq!(
        ferry.drop_action(),
        Some(drag::Action::Move(home.join("Music")))
    );
    send(ferry, Message::PointerReleased);
    until(ferry, "the move", |_| home.join("Music/b.txt").exists());
    jobs_done(ferry);
    assert!(!home.join("Documents/b.txt").exists());
    assert!(
        shows(ferry, "Make it a copy"),
        "a drag's move can become a copy"
    );
}

/// The window split, `Documents` in the pane with the keyboard, `Music` in the other.
fn documents_beside_music(fixture: &Fixture, home: &std::path::Path) -> Ferry {
    let mut ferry = fixture.start(Some(&home.join("Documents")));
    named(&mut ferry, Named::F3, Modifiers::empty());
    settle(&mut ferry);
    go(&mut ferry, &home.join("Music"));
    key(&mut ferry, Key::Named(Named::Tab), Modifiers::empty());
    assert_eq!(active_path(&ferry), home.join("Documents"));
    lay_out(&mut ferry);
    ferry
}

/// "Make it a copy" after another program put a file where the moved one was: the undo of
/// the move asked, and after Skip the copy went on, copying the other program's file over
/// the one the user had dragged. Only a move wholly put back is made a copy.
#[test]
fn make_it_a_copy_stops_when_the_move_was_not_wholly_undone() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = documents_beside_music(&fixture, &home);
    drop_b_txt_on_the_other_pane(&mut ferry, &home);
    fs::write(home.join("Documents/b.txt"), "another program's").unwrap();
    click(&mut ferry, "Make it a copy");
    until(&mut ferry, "the undo's conflict", |f| {
        !f.conflicts.is_empty()
    });
    key(&mut ferry, Key::Character("s".into()), Modifiers::ALT);
    until(&mut ferry, "the undo's end", |f| {
        f.conflicts.is_empty() && f.jobs.running() == 0
    });
    assert!(ferry.after_undo.is_none());
    assert_eq!(fs::read(home.join("Music/b.txt")).unwrap(), b"x");
    assert_eq!(
        fs::read(home.join("Documents/b.txt")).unwrap(),
        b"another program's"
    );
    assert_toast(
        &ferry,
        "Not made a copy: the move was not wholly undone, so what is at its place now is not what was moved.",
    );
}

/// Once the move is undone, its toast no longer offers to make it a copy: clicked, that said
/// "That job can't be undone now".
#[test]
fn a_drag_move_undone_is_no_longer_offered_as_a_copy() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = documents_beside_music(&fixture, &home);
    drop_b_txt_on_the_other_pane(&mut ferry, &home);
    ctrl(&mut ferry, "z");
    until(&mut ferry, "the undo of the move", |_| {
        home.join("Documents/b.txt").exists()
    });
    jobs_done(&mut ferry);
    assert!(!shows(&ferry, "Make it a copy"));
}

#[test]
fn a_drag_into_the_other_pane_moves_and_shift_f5_copies() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = documents_beside_music(&fixture, &home);

    // Shift+F5: a copy into the other pane's folder, no dialog.
    select(&mut ferry, "a.txt");
    named(&mut ferry, Named::F5, Modifiers::SHIFT);
    jobs_done(&mut ferry);
    assert!(home.join("Music/a.txt").exists() && home.join("Documents/a.txt").exists());

    // A drag of b.txt dropped on the other pane: the same disk, so a move.
    drop_b_txt_on_the_other_pane(&mut ferry, &home);

    // Refused while another undo holds the journal: no copy is left waiting to run when
    // some later undo ends (it ran then, unasked).
    let journal = ferry_core::jobs::UndoJournal::at(fixture.stores().journal.unwrap());
    let held = journal.writer().unwrap();
    click(&mut ferry, "Make it a copy");
    assert!(ferry.after_undo.is_none());
    drop(held);
    ctrl(&mut ferry, "z");
    until(&mut ferry, "the undo of the move", |_| {
        home.join("Documents/b.txt").exists()
    });
    jobs_done(&mut ferry);
    assert!(!home.join("Music/b.txt").exists(), "no copy made after it");
}

#[test]
fn a_drag_with_ctrl_and_shift_held_makes_links() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home.join("Documents")));
    named(&mut ferry, Named::F3, Modifiers::empty());
    settle(&mut ferry);
    go(&mut ferry, &home.join("Music"));
    key(&mut ferry, Key::Named(Named::Tab), Modifiers::empty());
    lay_out(&mut ferry);
    select(&mut ferry, "a.txt");
    ferry.mounts = ferry_core::fs::MountTable::read();
    let paths = ferry.tabs.active_pane().selected_paths();
    ferry.drag_started(paths, format::Category::Text);
    send(
        &mut ferry,
        Message::ModifiersChanged(Modifiers::CTRL | Modifiers::SHIFT),
    );
    let target = ferry.tabs.inactive_pane().unwrap().list_bounds();
    send(&mut ferry, Message::PointerMoved(target.center()));
    send(&mut ferry, Message::PointerReleased);
    let link = home.join("Music/a.txt");
    until(&mut ferry, "the link", |_| link.symlink_metadata().is_ok());
    jobs_done(&mut ferry);
    assert_eq!(fs::read_link(&link).unwrap(), home.join("Documents/a.txt"));
    assert!(home.join("Documents/a.txt").is_file(), "the target stays");
}

/// A drag over a breadcrumb lit it up, and a drop there did nothing: it goes into that
/// folder, as on Dolphin's and Nautilus' path bars.
#[test]
fn a_drop_on_a_breadcrumb_goes_into_its_folder() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home.join("Documents")));
    lay_out(&mut ferry);
    select(&mut ferry, "a.txt");
    ferry.mounts = ferry_core::fs::MountTable::read();
    let paths = ferry.tabs.active_pane().selected_paths();
    ferry.drag_started(paths, format::Category::Text);
    let view = ferry.tabs.active_pane().view_id();
    let crumb = browser::Message::CrumbEntered(home.clone());
    send(&mut ferry, Message::Tabs(tabs::Message::Pane(view, crumb)));
    // Over the location bar, above the list.
    let list = ferry.tabs.active_pane().list_bounds();
    send(
        &mut ferry,
        Message::PointerMoved(Point::new(list.x + 40.0, list.y - 30.0)),
    );
    assert_eq!(ferry.drop_action(), Some(drag::Action::Move(home.clone())));
    send(&mut ferry, Message::PointerReleased);
    until(&mut ferry, "the move", |_| home.join("a.txt").exists());
    jobs_done(&mut ferry);
    assert!(!home.join("Documents/a.txt").exists());
}

/// Moving up the places (or left along the tabs), the next one's enter comes before the last
/// one's exit: that exit forgot the place under the pointer, and a drop there did nothing.
#[test]
fn the_place_or_tab_entered_last_stays_hovered_when_the_one_before_is_left() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home.join("Documents")));
    let (music, home_place) = (
        sidebar::Place::Folder(home.join("Music")),
        sidebar::Place::Folder(home.clone()),
    );
    for message in [
        sidebar::Message::Hovered(music.clone()),
        sidebar::Message::Hovered(home_place.clone()),
        sidebar::Message::Left(music),
    ] {
        send(&mut ferry, Message::Sidebar(message));
    }
    assert_eq!(ferry.sidebar.hovered(), Some(&home_place));
    send(
        &mut ferry,
        Message::Sidebar(sidebar::Message::Left(home_place)),
    );
    assert_eq!(ferry.sidebar.hovered(), None);

    ctrl(&mut ferry, "t");
    for message in [
        tabs::Message::Hovered(1),
        tabs::Message::Hovered(0),
        tabs::Message::Left(1),
    ] {
        send(&mut ferry, Message::Tabs(message));
    }
    assert_eq!(ferry.tabs.hovered_tab(), Some(0));
    send(&mut ferry, Message::Tabs(tabs::Message::Left(0)));
    assert_eq!(ferry.tabs.hovered_tab(), None);
}

/// "Make it a copy" gives the move's answers again: the move's Keep both was asked a second
/// time, by the copy (round 125).
#[test]
fn make_it_a_copy_gives_the_moves_answers_again() {
    use crate::gui::modal::conflict;
    let fixture = Fixture::new();
    let home = fixture.home();
    fs::write(home.join("Music/b.txt"), "theirs").unwrap();
    let mut ferry = documents_beside_music(&fixture, &home);
    select(&mut ferry, "b.txt");
    ferry.mounts = ferry_core::fs::MountTable::read();
    let paths = ferry.tabs.active_pane().selected_paths();
    ferry.drag_started(paths, format::Category::Text);
    let target = ferry.tabs.inactive_pane().unwrap().list_bounds();
    send(&mut ferry, Message::PointerMoved(target.center()));
    send(&mut ferry, Message::PointerReleased);
    until(&mut ferry, "the conflict", |f| !f.conflicts.is_empty());
    let job = ferry.conflicts[0].job();
    let keep_both = conflict::Message::Answered(conflict::Act::KeepBoth);
    send(&mut ferry, Message::Conflict(job, keep_both));
    jobs_done(&mut ferry);
    let kept = home.join("Music/b (copy).txt");
    assert!(kept.exists() && !home.join("Documents/b.txt").exists());

    click(&mut ferry, "Make it a copy");
    until(&mut ferry, "the copy", |f| {
        (home.join("Documents/b.txt").exists() && kept.exists() && f.jobs.running() == 0)
            || !f.conflicts.is_empty()
    });
    assert!(
        ferry.conflicts.is_empty(),
        "the move's Keep both asked again"
    );
    assert_eq!(fs::read(home.join("Music/b.txt")).unwrap(), b"theirs");
    assert_eq!(
        fs::read(&kept).unwrap(),
        fs::read(home.join("Documents/b.txt")).unwrap()
    );
}
