//! Flows of items in one window, with real jobs: a drag onto a folder row of the same pane
//! (and what Ctrl and Shift make of it), a drop on another file system, drops that are
//! refused, a folder held under a drag opening, a paste into the items' own folder, cut items
//! drawn dimmed, a rename cancelled or refused, and files dropped from another program. The drags go through the window's view as
//! the pointer would: a press on a row, a move with the button held (the pane starts the
//! drag, the row under the pointer reports itself), then the window's own pointer messages.

use std::fs;
use std::os::unix::fs::MetadataExt;

use iced::mouse;
use iced_test::selector::Candidate;

use super::operations::{assert_toast, go, jobs_done, lay_out, select, shows_toast, until};
use super::*;

/// Where the row `name` of the pane whose list has the bounds `list` is drawn: the centre of
/// its name (the breadcrumbs and the other pane may show the same name elsewhere).
fn row_at(ferry: &Ferry, list: iced::Rectangle, name: &str) -> Point {
    let mut ui = simulator(ferry.view());
    let found = ui.find(|candidate: Candidate<'_>| match candidate {
        Candidate::Text {
            content,
            visible_bounds: Some(bounds),
            ..
        } if content == name && list.contains(bounds.center()) => Some(bounds),
        _ => None,
    });
    found
        .unwrap_or_else(|e| panic!("the row {name}: {e:?}"))
        .center()
}

/// A press at `from` and a move to `to` with the button held, through the window's view (the
/// pane's press and the drag it starts, the row under the pointer), then the window's pointer
/// move (its subscription's message).
fn drag(ferry: &mut Ferry, from: Point, to: Point) {
    let mut ui = simulator(ferry.view());
    ui.point_at(from);
    let pressed = mouse::Event::ButtonPressed(mouse::Button::Left);
    let _ = ui.simulate([iced::Event::Mouse(pressed)]);
    ui.point_at(to);
    let moved = mouse::Event::CursorMoved { position: to };
    let _ = ui.simulate([iced::Event::Mouse(moved)]);
    let messages: Vec<Message> = ui.into_messages().collect();
    for message in messages {
        send(ferry, message);
    }
    assert!(ferry.drag.is_some(), "the press and the move start a drag");
    send(ferry, Message::PointerMoved(to));
}

fn hold(ferry: &mut Ferry, modifiers: Modifiers) {
    send(ferry, Message::ModifiersChanged(modifiers));
}

/// True when the active pane lists `name`.
fn lists(ferry: &Ferry, name: &str) -> bool {
    ferry
        .tabs
        .active_pane()
        .listing()
        .contents()
        .is_some_and(|c| {
            c.rows()
                .iter()
                .any(|&e| c.entries().entry(e as usize).name() == name)
        })
}

/// Every path under `root`, relative to it, sorted.
fn tree(root: &Path) -> Vec<PathBuf> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            out.push(path.strip_prefix(root).unwrap().to_path_buf());
            if path.is_dir() {
                walk(root, &path, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(root, root, &mut out);
    out.sort();
    out
}

/// Ferry on `path`, laid out, knowing the mounts (as the places' first reading brings them;
/// a drop's default action needs them).
fn start_for_drags(fixture: &Fixture, path: &Path) -> Ferry {
    let mut ferry = fixture.start(Some(path));
    ferry.mounts = ferry_core::fs::MountTable::read();
    lay_out(&mut ferry);
    ferry
}

/// Ctrl held before the press on a selected item, then a drag: the item is copied with the
/// rest, as in Dolphin. The press deselected it at once, so it was left out of the copy (and
/// alone, nothing was dragged). A Ctrl click that does not drag still deselects it.
#[test]
fn a_ctrl_drag_from_a_selected_item_copies_it() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = start_for_drags(&fixture, &home);
    let list = ferry.tabs.active_pane().list_bounds();
    let (notes, music) = (
        row_at(&ferry, list, "notes.md"),
        row_at(&ferry, list, "Music"),
    );
    key(&mut ferry, Key::Character("n".into()), Modifiers::empty());
    assert_eq!(
        ferry.tabs.active_pane().selected_paths(),
        [home.join("notes.md")]
    );
    hold(&mut ferry, Modifiers::CTRL);
    drag(&mut ferry, notes, music);
    assert_eq!(
        ferry.drop_action(),
        Some(drag::Action::Copy(home.join("Music")))
    );
    assert!(shows(&ferry, "Copy 1 item to “Music”"));
    send(&mut ferry, Message::PointerReleased);
    hold(&mut ferry, Modifiers::empty());
    jobs_done(&mut ferry);
    assert_eq!(fs::read(home.join("Music/notes.md")).unwrap(), b"x");
    assert!(home.join("notes.md").exists(), "copied, not moved");
    assert_eq!(
        ferry.tabs.active_pane().selected_paths(),
        [home.join("notes.md")],
        "a drag changes no selection"
    );

    // A Ctrl click, no drag: deselected at the release.
    hold(&mut ferry, Modifiers::CTRL);
    click(&mut ferry, "notes.md");
    send(&mut ferry, Message::PointerReleased);
    hold(&mut ferry, Modifiers::empty());
    assert!(ferry.tabs.active_pane().selected_paths().is_empty());
}

#[test]
fn a_drop_on_a_folder_row_of_the_same_pane_moves_into_it_and_ctrl_copies() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = start_for_drags(&fixture, &home);
    let list = ferry.tabs.active_pane().list_bounds();
    let (notes, music) = (
        row_at(&ferry, list, "notes.md"),
        row_at(&ferry, list, "Music"),
    );
    drag(&mut ferry, notes, music);
    assert_eq!(
        ferry.drop_action(),
        Some(drag::Action::Move(home.join("Music"))),
        "the same file system: a move into the row's folder"
    );
    assert!(shows(&ferry, "Move 1 item to “Music”"), "the badge says so");
    hold(&mut ferry, Modifiers::CTRL);
    assert_eq!(
        ferry.drop_action(),
        Some(drag::Action::Copy(home.join("Music")))
    );
    assert!(shows(&ferry, "Copy 1 item to “Music”"));
    hold(&mut ferry, Modifiers::SHIFT);
    assert_eq!(
        ferry.drop_action(),
        Some(drag::Action::Move(home.join("Music")))
    );
    hold(&mut ferry, Modifiers::empty());
    send(&mut ferry, Message::PointerReleased);
    assert!(ferry.drag.is_none());
    jobs_done(&mut ferry);
    assert_eq!(fs::read(home.join("Music/notes.md")).unwrap(), b"x");
    assert!(!home.join("notes.md").exists(), "moved, not copied");
    until(&mut ferry, "the move listed", |f| !lists(f, "notes.md"));

    // With Ctrl held at the release: a copy, and a folder is copied whole.
    let (projects, documents) = (
        row_at(&ferry, list, "projects"),
        row_at(&ferry, list, "Documents"),
    );
    drag(&mut ferry, projects, documents);
    hold(&mut ferry, Modifiers::CTRL);
    send(&mut ferry, Message::PointerReleased);
    hold(&mut ferry, Modifiers::empty());
    until(&mut ferry, "the copy", |f| {
        f.jobs.window_jobs().count() == 2 && f.jobs.running() == 0
    });
    assert!(home.join("Documents/projects/web").is_dir());
    assert!(
        home.join("projects/web").is_dir(),
        "a copy leaves the original"
    );
}

#[test]
fn a_drop_on_another_file_system_copies_and_shift_moves() {
    let fixture = Fixture::new();
    let home = fixture.home();
    // A folder on another file system: a tmpfs, as /dev/shm is on Linux.
    let Ok(other) = tempfile::tempdir_in("/dev/shm") else {
        eprintln!("skipped: no /dev/shm to drop on");
        return;
    };
    let dev = |p: &Path| fs::metadata(p).unwrap().dev();
    if dev(other.path()) == dev(&home) {
        eprintln!("skipped: /dev/shm is on the fixture's file system");
        return;
    }
    let mut ferry = fixture.start(Some(&home.join("Documents")));
    named(&mut ferry, Named::F3, Modifiers::empty());
    settle(&mut ferry);
    go(&mut ferry, other.path());
    named(&mut ferry, Named::Tab, Modifiers::empty());
    ferry.mounts = ferry_core::fs::MountTable::read();
    lay_out(&mut ferry);
    let list = ferry.tabs.active_pane().list_bounds();
    let target = ferry.tabs.inactive_pane().unwrap().list_bounds().center();
    let there = other.path().to_path_buf();
    let name = format::display_name(&there).into_owned();

    let a = row_at(&ferry, list, "a.txt");
    drag(&mut ferry, a, target);
    assert_eq!(
        ferry.drop_action(),
        Some(drag::Action::Copy(there.clone())),
        "another file system: a copy"
    );
    assert!(shows(&ferry, &format!("Copy 1 item to “{name}”")));
    hold(&mut ferry, Modifiers::SHIFT);
    assert_eq!(
        ferry.drop_action(),
        Some(drag::Action::Move(there.clone())),
        "Shift forces a move"
    );
    hold(&mut ferry, Modifiers::empty());
    send(&mut ferry, Message::PointerReleased);
    jobs_done(&mut ferry);
    assert_eq!(fs::read(there.join("a.txt")).unwrap(), b"x");
    assert!(home.join("Documents/a.txt").is_file(), "the source stays");

    // Shift held at the release: a move across (copied, then the source removed).
    let b = row_at(&ferry, list, "b.txt");
    drag(&mut ferry, b, target);
    hold(&mut ferry, Modifiers::SHIFT);
    send(&mut ferry, Message::PointerReleased);
    hold(&mut ferry, Modifiers::empty());
    until(&mut ferry, "the move across", |f| {
        f.jobs.window_jobs().count() == 2 && f.jobs.running() == 0
    });
    assert_eq!(fs::read(there.join("b.txt")).unwrap(), b"x");
    assert!(!home.join("Documents/b.txt").exists(), "moved");
}

#[test]
fn a_folder_dropped_onto_itself_or_inside_itself_is_refused_and_nothing_starts() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let before = tree(&home);
    let mut ferry = fixture.start(Some(&home));
    named(&mut ferry, Named::F3, Modifiers::empty());
    settle(&mut ferry);
    go(&mut ferry, &home.join("Documents/tax"));
    named(&mut ferry, Named::Tab, Modifiers::empty());
    ferry.mounts = ferry_core::fs::MountTable::read();
    lay_out(&mut ferry);
    let list = ferry.tabs.active_pane().list_bounds();
    let refused = "Can't put “Documents” into itself";

    // Onto its own row: pressed, then moved along it past the drag threshold.
    let documents = row_at(&ferry, list, "Documents");
    drag(
        &mut ferry,
        documents,
        documents + iced::Vector::new(60.0, 0.0),
    );
    assert_eq!(
        ferry.drop_action(),
        Some(drag::Action::Refused(refused.to_owned()))
    );
    assert!(shows(&ferry, refused), "the badge says why");
    send(&mut ferry, Message::PointerReleased);

    // Into a folder inside it (the other pane shows Documents/tax).
    let inside = ferry.tabs.inactive_pane().unwrap().list_bounds().center();
    drag(&mut ferry, documents, inside);
    assert_eq!(
        ferry.drop_action(),
        Some(drag::Action::Refused(refused.to_owned()))
    );
    send(&mut ferry, Message::PointerReleased);

    // A file onto the empty part of its own folder.
    let notes = row_at(&ferry, list, "notes.md");
    let empty = Point::new(list.center_x(), list.y + list.height - 20.0);
    drag(&mut ferry, notes, empty);
    assert_eq!(
        ferry.drop_action(),
        Some(drag::Action::Refused("Already in “home”".to_owned()))
    );
    send(&mut ferry, Message::PointerReleased);

    assert!(ferry.drag.is_none());
    assert!(
        ferry.jobs.window_jobs().next().is_none(),
        "a refused drop starts no job"
    );
    assert_eq!(tree(&home), before, "nothing moved");
}

#[test]
fn a_folder_held_under_a_drag_opens_and_the_drop_lands_in_it() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = start_for_drags(&fixture, &home);
    let list = ferry.tabs.active_pane().list_bounds();
    let music = row_at(&ferry, list, "Music");
    let notes = row_at(&ferry, list, "notes.md");
    drag(&mut ferry, notes, music);
    send(&mut ferry, Message::DragTick);
    assert_eq!(active_path(&ferry), home, "not held long enough yet");

    ferry.drag.as_mut().unwrap().age_hover(drag::SPRING);
    send(&mut ferry, Message::DragTick);
    settle(&mut ferry);
    assert_eq!(active_path(&ferry), home.join("Music"), "it opened");
    assert!(ferry.drag.is_some(), "the drag goes on");

    // The pointer moves on over the folder now shown: the drop goes into it.
    send(
        &mut ferry,
        Message::PointerMoved(music + iced::Vector::new(0.0, 2.0)),
    );
    assert_eq!(
        ferry.drop_action(),
        Some(drag::Action::Move(home.join("Music")))
    );
    send(&mut ferry, Message::PointerReleased);
    jobs_done(&mut ferry);
    assert!(home.join("Music/notes.md").is_file() && !home.join("notes.md").exists());
}

/// A folder dragged and held over its own row opened: the pane went into the folder being
/// dragged, which a drop cannot go into, and stayed there. It is not opened.
#[test]
fn a_folder_held_over_itself_does_not_open() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = start_for_drags(&fixture, &home);
    let list = ferry.tabs.active_pane().list_bounds();
    let music = row_at(&ferry, list, "Music");
    drag(&mut ferry, music, music + iced::Vector::new(40.0, 0.0));
    ferry.drag.as_mut().unwrap().age_hover(drag::SPRING);
    send(&mut ferry, Message::DragTick);
    settle(&mut ferry);
    assert_eq!(active_path(&ferry), home, "it stayed");
    assert!(matches!(
        ferry.drop_action(),
        Some(drag::Action::Refused(_))
    ));
    send(&mut ferry, Message::PointerReleased);
    assert!(home.join("Music").is_dir());
}

#[test]
fn a_paste_into_the_folder_it_came_from_makes_a_copy_beside_it() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let documents = home.join("Documents");
    fs::write(documents.join("a.txt"), "original").unwrap();
    let mut ferry = fixture.start(Some(&documents));
    select(&mut ferry, "a.txt");
    ctrl(&mut ferry, "c");
    ctrl(&mut ferry, "v");
    jobs_done(&mut ferry);
    assert!(ferry.conflicts.is_empty(), "nothing is asked");
    assert_eq!(
        fs::read(documents.join("a (copy).txt")).unwrap(),
        b"original"
    );
    assert_eq!(fs::read(documents.join("a.txt")).unwrap(), b"original");
    assert!(
        shows_toast(&ferry, "Duplicated “a.txt” as “a (copy).txt”."),
        "the toast names the new file: {:?}",
        ferry.toasts
    );
    until(&mut ferry, "the copy selected", |f| {
        f.tabs.active_pane().selected_paths() == [documents.join("a (copy).txt")]
    });

    // Again: the next free name.
    ctrl(&mut ferry, "v");
    until(&mut ferry, "the second copy", |f| {
        f.jobs.window_jobs().count() == 2 && f.jobs.running() == 0
    });
    assert_eq!(
        fs::read(documents.join("a (copy 2).txt")).unwrap(),
        b"original"
    );
    assert_toast(&ferry, "Duplicated “a.txt” as “a (copy 2).txt”.");
    assert_eq!(
        fs::read(documents.join("a (copy).txt")).unwrap(),
        b"original"
    );
}

#[test]
fn what_a_paste_brings_is_selected_in_place_of_what_was() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let (from, to) = (home.join("from"), home.join("to"));
    fs::create_dir(&from).unwrap();
    fs::create_dir(&to).unwrap();
    for name in ["a.txt", "b.txt", "sub"] {
        fs::write(from.join(name), name).unwrap();
    }
    fs::write(to.join("old.txt"), "old").unwrap();
    let mut ferry = fixture.start(Some(&from));
    until(&mut ferry, "the sources listed", |f| lists(f, "sub"));
    ctrl(&mut ferry, "a");
    ctrl(&mut ferry, "c");
    go(&mut ferry, &to);
    until(&mut ferry, "the destination listed", |f| {
        lists(f, "old.txt")
    });
    select(&mut ferry, "old.txt");
    ctrl(&mut ferry, "v");
    jobs_done(&mut ferry);
    let pasted = |f: &Ferry| {
        let mut selected = f.tabs.active_pane().selected_paths();
        selected.sort();
        selected == [to.join("a.txt"), to.join("b.txt"), to.join("sub")]
    };
    until(
        &mut ferry,
        "the pasted items selected, and only them",
        pasted,
    );
    let pane = ferry.tabs.active_pane();
    let contents = pane.listing().contents().expect("listed");
    let focused = (pane.selection().focus()).map(|e| contents.entries().entry(e as usize).name());
    assert_eq!(
        focused,
        Some("a.txt".as_ref()),
        "the first pasted has the focus"
    );
}

fn dimmed(pane: &browser::Browser, name: &str) -> bool {
    pane.is_cut(std::ffi::OsStr::new(name))
}

#[test]
fn a_cut_item_is_dimmed_where_its_folder_is_shown_until_pasted_or_the_clipboard_is_taken() {
    let fixture = Fixture::new();
    let home = fixture.home();
    // Another folder with an item of the same name, which is not cut.
    fs::write(home.join("Music/b.txt"), "other").unwrap();
    let mut ferry = fixture.start(Some(&home.join("Documents")));
    select(&mut ferry, "b.txt");
    ctrl(&mut ferry, "x");
    let pane = ferry.tabs.active_pane();
    assert!(dimmed(pane, "b.txt") && !dimmed(pane, "a.txt"));

    // Elsewhere nothing is dimmed; back on the folder, it is again.
    go(&mut ferry, &home.join("Music"));
    assert!(
        !dimmed(ferry.tabs.active_pane(), "b.txt"),
        "Music's b.txt is not the one cut"
    );
    go(&mut ferry, &home.join("Documents"));
    assert!(
        dimmed(ferry.tabs.active_pane(), "b.txt"),
        "back on its folder"
    );

    // A pane opened on the folder since the cut shows it dimmed too.
    named(&mut ferry, Named::F3, Modifiers::empty());
    settle(&mut ferry);
    lay_out(&mut ferry);
    assert_eq!(active_path(&ferry), home.join("Documents"));
    assert!(
        dimmed(ferry.tabs.active_pane(), "b.txt"),
        "the new pane on the folder"
    );

    // Pasted elsewhere: it is gone from its folder, and nothing is dimmed.
    go(&mut ferry, &home);
    ctrl(&mut ferry, "v");
    jobs_done(&mut ferry);
    assert!(home.join("b.txt").is_file() && !home.join("Documents/b.txt").exists());
    assert!(ferry.tabs.panes().all(|p| !dimmed(p, "b.txt")));
    until(&mut ferry, "the moved item listed", |f| lists(f, "b.txt"));
    assert!(!dimmed(ferry.tabs.active_pane(), "b.txt"));

    // Another program takes the clipboard: the cut item is no longer dimmed.
    select(&mut ferry, "notes.md");
    ctrl(&mut ferry, "x");
    assert!(dimmed(ferry.tabs.active_pane(), "notes.md"));
    send(
        &mut ferry,
        Message::Clipboard(clipboard::ClipboardEvent::Lost),
    );
    assert!(ferry.clip.is_none());
    assert!(ferry.tabs.panes().all(|p| !dimmed(p, "notes.md")));
}

/// Escape as the window hears it while the rename field has the keyboard: the field took it.
fn escape_in_field(ferry: &mut Ferry) {
    send(
        ferry,
        Message::Key {
            key: Key::Named(Named::Escape),
            text: None,
            modifiers: Modifiers::empty(),
            captured: true,
        },
    );
}

#[test]
fn a_rename_cancelled_or_refused_leaves_the_name_and_says_why() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let documents = home.join("Documents");
    let mut ferry = fixture.start(Some(&documents));
    let view = ferry.tabs.active_pane().view_id();
    let pane = |m| Message::Tabs(tabs::Message::Pane(view, m));
    select(&mut ferry, "a.txt");

    // Escape: the editor closes, the name stays.
    named(&mut ferry, Named::F2, Modifiers::empty());
    assert!(ferry.tabs.active_pane().is_renaming());
    send(
        &mut ferry,
        pane(browser::Message::RenameEdited("zzz.txt".into())),
    );
    escape_in_field(&mut ferry);
    assert!(!ferry.tabs.active_pane().is_renaming());
    assert!(shows(&ferry, "a.txt"), "the name is shown again");
    assert!(!documents.join("zzz.txt").exists());

    // A name the folder holds: refused in place, with why.
    named(&mut ferry, Named::F2, Modifiers::empty());
    send(
        &mut ferry,
        pane(browser::Message::RenameEdited("b.txt".into())),
    );
    send(&mut ferry, pane(browser::Message::RenameSubmitted));
    assert!(
        ferry.tabs.active_pane().is_renaming(),
        "the editor stays open"
    );
    assert!(shows(&ferry, "“b.txt” already exists here."));

    // A name with a slash: the same, with its own reason (the old one goes as it is edited).
    send(
        &mut ferry,
        pane(browser::Message::RenameEdited("x/y".into())),
    );
    assert!(!shows(&ferry, "“b.txt” already exists here."));
    named(&mut ferry, Named::Enter, Modifiers::empty());
    assert!(ferry.tabs.active_pane().is_renaming());
    assert!(shows(&ferry, "A name can't contain “/”."));

    assert!(
        ferry.jobs.window_jobs().next().is_none(),
        "a refused name starts no job"
    );
    assert_eq!(fs::read(documents.join("a.txt")).unwrap(), b"x");
    assert_eq!(fs::read(documents.join("b.txt")).unwrap(), b"x");

    // A name that hides the item says so; Tab renames, and the editor goes on to the next
    // item (it took the keyboard to the places, the editor left open).
    send(
        &mut ferry,
        pane(browser::Message::RenameEdited(".a.txt".into())),
    );
    assert!(shows(&ferry, browser::HIDDEN_NAME));
    named(&mut ferry, Named::Tab, Modifiers::empty());
    assert!(ferry.tabs.active_pane().is_renaming());
    assert!(!ferry.sidebar.has_focus());
    assert_eq!(
        ferry.tabs.active_pane().selected_paths(),
        [documents.join("b.txt")]
    );
    super::operations::until(&mut ferry, "the rename", |_| {
        documents.join(".a.txt").exists()
    });
    escape_in_field(&mut ferry);
    assert!(!ferry.tabs.active_pane().is_renaming());
}

/// Files dropped from another program, once the drop has settled.
fn drop_from_outside(ferry: &mut Ferry, paths: &[PathBuf]) {
    for path in paths {
        send(ferry, Message::FileDropped(path.clone()));
    }
    ferry.incoming_at = ferry
        .incoming_at
        .map(|at| at - std::time::Duration::from_secs(1));
    send(ferry, Message::DropTick);
}

#[test]
fn files_dropped_into_their_own_folder_stay_as_they_are() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    drop_from_outside(&mut ferry, &[home.join("notes.md")]);
    assert!(ferry.jobs.window_jobs().next().is_none(), "no job");
    assert!(
        ferry
            .toasts
            .iter()
            .any(|t| t.text == "It is in “home” already."),
        "said"
    );
    assert!(!home.join("notes (copy).md").exists());
}

#[test]
fn files_dropped_on_the_trash_view_go_to_the_trash() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    super::dialogs::trash_and_show(&fixture, &mut ferry, "notes.md");
    let elsewhere = fixture.dir.path().join("elsewhere.txt");
    fs::write(&elsewhere, "x").unwrap();
    drop_from_outside(&mut ferry, std::slice::from_ref(&elsewhere));
    jobs_done(&mut ferry);
    super::operations::until(&mut ferry, "the trash", |_| !elsewhere.exists());
    let trash = fixture.dir.path().join("data/Trash/files");
    assert!(trash.join("elsewhere.txt").exists());
}

/// Another program's list naming a file twice copies it once ("Copying 2 items", then one
/// "skipped", before); one naming no local file is said as that, not as a clipboard that
/// cannot be read.
#[test]
fn a_pasted_list_naming_a_file_twice_copies_it_once_and_a_web_address_is_said_plainly() {
    use crate::gui::clipboard::Contents;
    let fixture = Fixture::new();
    let home = fixture.home();
    let music = home.join("Music");
    let mut ferry = fixture.start(Some(&music));
    let a = home.join("Documents/a.txt");
    let files = Contents::files(vec![a.clone(), a.clone()], false);
    let task = ferry.clipboard_read(music.clone(), Ok(files));
    run(&mut ferry, task);
    super::operations::jobs_done(&mut ferry);
    let job = ferry.jobs.window_jobs().next().unwrap();
    assert_eq!(job.job.transfer().unwrap().0, [a]);
    assert!(music.join("a.txt").exists());

    // A web address beside a file: the file is pasted, the address said to be left out.
    let b = home.join("Documents/b.txt");
    let mixed = Contents::Files {
        paths: vec![b],
        cut: false,
        left_out: vec!["https://example.org/y.txt".into()],
    };
    let task = ferry.clipboard_read(music.clone(), Ok(mixed));
    run(&mut ferry, task);
    super::operations::jobs_done(&mut ferry);
    assert!(music.join("b.txt").exists());
    let said = "https://example.org/y.txt is not a local file, so it was left out.";
    assert!(super::operations::shows_toast(&ferry, said), "said");

    let web = ferry_core::Error::Clipboard {
        op: "paste",
        source: std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "the clipboard holds https://example.org/x: not a local file",
        ),
    };
    let task = ferry.clipboard_read(music, Err(Arc::new(web)));
    run(&mut ferry, task);
    let said = "Nothing was pasted: the clipboard holds https://example.org/x: not a local file.";
    assert!(super::operations::shows_toast(&ferry, said), "said plainly");
}
