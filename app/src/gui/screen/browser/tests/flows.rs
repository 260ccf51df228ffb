use std::path::{Path, PathBuf};
use std::sync::Arc;

use ferry_core::dirs::DirEvent;
use ferry_core::sort::{Direction, SortKey, SortSpec};
use iced::keyboard::Modifiers;
use iced_test::simulator;

use super::*;
use crate::gui::shortcut::{PaneAction as Action, Step};
use crate::gui::widget::list::top_of;

#[test]
fn clicking_a_folder_selects_it_and_double_clicking_opens_it() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["docs/", "notes.txt"]);

    let messages = click(&browser, &["docs"]);
    assert!(
        messages
            .iter()
            .any(|m| matches!(m, Message::RowPressed(at) if at.row == 0))
    );
    assert!(
        !messages
            .iter()
            .any(|m| matches!(m, Message::RowDoubleClicked(_)))
    );
    feed(&mut browser, &dirs, messages);
    assert_eq!(selected_names(&browser), ["docs"]);
    assert!(shows(&browser, "“docs” selected"));

    let messages = click(&browser, &["docs", "docs"]);
    assert!(
        messages
            .iter()
            .any(|m| matches!(m, Message::RowDoubleClicked(at) if at.row == 0))
    );
    let events = feed(&mut browser, &dirs, messages);
    assert!(
        events.contains(&Event::Navigated)
            && !events.iter().any(|e| matches!(e, Event::OpenFile(_))),
        "a folder opens in place: {events:?}"
    );
    assert_eq!(browser.path(), Path::new("/x/docs"));
    assert_eq!(
        dirs.last(),
        Some(Call::Open(PathBuf::from("/x/docs"), SortSpec::default()))
    );
    assert!(matches!(browser.listing(), Listing::Loading(_)));
    assert!(shows(&browser, "Loading…"));
    assert!(
        !shows(&browser, "Empty folder"),
        "nothing read yet is not an empty folder"
    );

    // The breadcrumb leads back up; the way back down stays on the bar, as in Dolphin.
    let messages = click(&browser, &["x"]);
    feed(&mut browser, &dirs, messages);
    assert_eq!(browser.path(), Path::new("/x"));
    let messages = click(&browser, &["docs"]);
    assert!(
        messages
            .iter()
            .any(|m| matches!(m, Message::CrumbPressed(p) if p == Path::new("/x/docs"))),
        "{messages:?}"
    );
    feed(&mut browser, &dirs, messages);
    assert_eq!(browser.path(), Path::new("/x/docs"));
    // Somewhere else, the trail goes.
    feed(
        &mut browser,
        &dirs,
        vec![Message::Navigate(PathBuf::from("/y"))],
    );
    feed(
        &mut browser,
        &dirs,
        vec![Message::Navigate(PathBuf::from("/"))],
    );
    assert!(!shows(&browser, "docs"));
    assert!(shows(&browser, "y"), "the trail from /y");
}

/// A browser on `deep` (a folder below `/x`) gone up to `/x` by its crumb, `/x` listed as
/// `names`: the trail leads back down to `deep`.
fn gone_up_to_x(dirs: &Recorder, deep: &str, names: &[&str]) -> Browser {
    let mut browser = browser_with(dirs, deep, &["f"]);
    let messages = click(&browser, &["x"]);
    feed(&mut browser, dirs, messages);
    let event = loaded(&browser, listing("/x", names));
    let _ = browser.update(Message::Dir(event), &ctx(dirs));
    browser
}

#[test]
fn the_way_back_down_goes_when_its_folder_is_deleted_elsewhere() {
    let dirs = Recorder::default();
    let mut browser = gone_up_to_x(&dirs, "/x/docs", &["docs/", "notes.txt"]);
    assert!(shows(&browser, "docs"), "the trail down to docs");

    // A shell renames a file: the trail stays.
    change_to(&mut browser, &dirs, &["docs/", "notes.md"]);
    assert!(shows(&browser, "docs"));
    // A shell deletes docs: its crumb would lead nowhere.
    change_to(&mut browser, &dirs, &["notes.md"]);
    assert!(!shows(&browser, "docs"));
}

/// A folder further down the way back found gone (looked at off the UI thread): the crumbs
/// from it on go, those above it stay.
#[test]
fn the_way_back_down_ends_above_a_deeper_folder_found_gone() {
    let dirs = Recorder::default();
    let mut browser = gone_up_to_x(&dirs, "/x/a/b/c", &["a/"]);
    assert!(shows(&browser, "a") && shows(&browser, "c"));
    let checked = Message::TrailChecked(PathBuf::from("/x/a/b/c"), Some(PathBuf::from("/x/a")));
    feed(&mut browser, &dirs, vec![checked]);
    assert!(shows(&browser, "a"), "still there");
    assert!(!shows(&browser, "b") && !shows(&browser, "c"));
}

#[test]
fn double_clicking_a_file_asks_the_window_to_open_it() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["docs/", "notes.txt"]);
    let messages = click(&browser, &["notes.txt", "notes.txt"]);
    let events = feed(&mut browser, &dirs, messages);
    assert_eq!(
        events.last(),
        Some(&Event::OpenFile(PathBuf::from("/x/notes.txt")))
    );
    assert_eq!(browser.path(), Path::new("/x"));
}

/// Enter on several selected items opens them all, as in Dolphin: the files with their
/// applications, the folders in new tabs (the window asks first for more than ten).
#[test]
fn enter_on_several_selected_items_opens_them_all() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["docs/", "a.txt", "b.txt"]);
    let _ = browser.update(Message::Action(Action::SelectAll), &ctx(&dirs));
    let (_, event) = browser.update(Message::Action(Action::Open), &ctx(&dirs));
    assert_eq!(
        event,
        Some(Event::OpenSelected {
            files: vec!["/x/a.txt".into(), "/x/b.txt".into()],
            folders: vec!["/x/docs".into()],
        })
    );
    assert_eq!(browser.path(), Path::new("/x"), "nothing opened in place");
}

#[test]
fn clicking_a_column_header_requests_a_resort() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["a", "b"]);
    let messages = click(&browser, &["Size"]);
    feed(&mut browser, &dirs, messages);
    let by_size = SortSpec {
        key: SortKey::Size,
        direction: Direction::Ascending,
        ..SortSpec::default()
    };
    assert_eq!(dirs.last(), Some(Call::Resort(by_size)));

    // The same header again reverses the order.
    let messages = click(&browser, &["Size"]);
    feed(&mut browser, &dirs, messages);
    let reversed = SortSpec {
        direction: Direction::Descending,
        ..by_size
    };
    assert_eq!(dirs.last(), Some(Call::Resort(reversed)));
    assert_eq!(browser.sort(), reversed);
}

#[test]
fn only_visible_rows_are_built() {
    let dirs = Recorder::default();
    let names: Vec<String> = (0..50_000).map(|i| format!("file-{i:05}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut browser = browser_with(&dirs, "/big", &names);
    assert!(shows(&browser, "file-00000"));
    assert!(!shows(&browser, "file-40000"));
    assert!(shows(&browser, "50,000 files"));

    let offset_y = top_of(40_000, 30.0) - 100.0;
    let _ = browser.update(
        Message::Scrolled {
            offset_y,
            viewport_h: 600.0,
        },
        &ctx(&dirs),
    );
    assert!(shows(&browser, "file-40000"));
    assert!(!shows(&browser, "file-00000"));
    assert!(!shows(&browser, "file-39000"));
}

#[test]
fn stale_events_are_dropped() {
    let dirs = Recorder::default();
    let mut browser = browser_on(&dirs, "/x");
    let current = browser.generation();
    let stale = |generation, view| DirEvent::Loaded {
        view,
        generation,
        listing: listing("/old", &["old"]),
        order: Arc::from([0]),
        from_cache: true,
    };
    let _ = browser.update(Message::Dir(stale(current - 1, VIEW)), &ctx(&dirs));
    let _ = browser.update(Message::Dir(stale(current, VIEW + 1)), &ctx(&dirs));
    assert!(matches!(browser.listing(), Listing::Loading(c) if c.rows().is_empty()));

    // Moving on makes the previous folder's events stale too.
    let _ = browser.update(Message::Navigate(PathBuf::from("/y")), &ctx(&dirs));
    let _ = browser.update(Message::Dir(stale(current, VIEW)), &ctx(&dirs));
    assert!(matches!(browser.listing(), Listing::Loading(c) if c.rows().is_empty()));
    let _ = browser.update(Message::Dir(stale(browser.generation(), VIEW)), &ctx(&dirs));
    assert!(matches!(browser.listing(), Listing::Loaded(c) if c.rows().len() == 1));
}

#[test]
fn selection_is_kept_by_name_across_changes() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["a", "b", "c", "d"]);
    let messages = click(&browser, &["b"]);
    feed(&mut browser, &dirs, messages);
    let messages = click(&browser, &["d"]);
    feed_held(&mut browser, &dirs, Modifiers::CTRL, messages);
    assert_eq!(selected_names(&browser), ["b", "d"]);

    // "d" deleted, "a0" created: "b" is now at another index and stays selected alone.
    change_to(&mut browser, &dirs, &["a", "a0", "b", "c"]);
    assert_eq!(selected_names(&browser), ["b"]);
    assert_eq!(browser.selection().iter().collect::<Vec<_>>(), [2]);
}

#[test]
fn shift_click_selects_a_range() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["a", "b", "c", "d", "e"]);
    let messages = click(&browser, &["b"]);
    feed(&mut browser, &dirs, messages);
    let messages = click(&browser, &["d"]);
    feed_held(&mut browser, &dirs, Modifiers::SHIFT, messages);
    assert_eq!(selected_names(&browser), ["b", "c", "d"]);
}

#[test]
fn batches_show_entries_before_the_folder_completes() {
    let dirs = Recorder::default();
    let mut browser = browser_on(&dirs, "/x");
    let generation = browser.generation();
    for names in [&["one", "two"][..], &["three"]] {
        let entries = listing("/x", names);
        let _ = browser.update(
            Message::Dir(DirEvent::Batch {
                view: VIEW,
                generation,
                entries,
            }),
            &ctx(&dirs),
        );
    }
    assert!(shows(&browser, "three"));
    assert!(shows(&browser, "Loading…"));
    assert!(shows(&browser, "3 files"));

    let event = loaded(&browser, listing("/x", &["one", "three", "two"]));
    let _ = browser.update(Message::Dir(event), &ctx(&dirs));
    assert!(!shows(&browser, "Loading…"));
    assert!(shows(&browser, "two"));
}

#[test]
fn failure_is_shown_in_place_of_the_list() {
    let dirs = Recorder::default();
    let mut browser = browser_on(&dirs, "/root/secret");
    let error = ferry_core::Error::io(
        "open folder",
        "/root/secret",
        std::io::Error::from(std::io::ErrorKind::PermissionDenied),
    );
    let event = DirEvent::Failed {
        view: VIEW,
        generation: browser.generation(),
        path: PathBuf::from("/root/secret"),
        error: Arc::new(error),
    };
    let _ = browser.update(Message::Dir(event), &ctx(&dirs));
    assert!(shows(
        &browser,
        "You don't have permission to view “secret”."
    ));
    assert!(!shows(&browser, "Name"), "no column headers over an error");

    // Refreshing a failed folder opens it again.
    let _ = browser.update(Message::Action(Action::Refresh), &ctx(&dirs));
    assert!(matches!(dirs.last(), Some(Call::Open(p, _)) if p == Path::new("/root/secret")));
    assert!(matches!(browser.listing(), Listing::Loading(_)));
}

/// A folder renamed while shown is followed to its new name, as in Nautilus and Dolphin,
/// without a notice (it went to the parent, "moved or deleted").
#[test]
fn a_renamed_folder_is_followed_to_its_new_name() {
    let (old, new) = (
        PathBuf::from("/nowhere/sw"),
        PathBuf::from("/nowhere/sw-renamed"),
    );
    let dirs = Recorder::default();
    let mut browser = Browser::new(VIEW, old.clone(), &ctx(&dirs));
    let event = DirEvent::Gone {
        view: VIEW,
        generation: browser.generation(),
        path: old,
        nearest: Some(PathBuf::from("/nowhere")),
        renamed: Some(new.clone()),
    };
    let _ = browser.update(Message::Dir(event), &ctx(&dirs));
    assert_eq!(browser.path(), new);
    assert_eq!(dirs.last(), Some(Call::Open(new, SortSpec::default())));
    assert_eq!(browser.notice, None);
}

#[test]
fn a_gone_folder_is_replaced_by_the_parent_the_service_names() {
    // Nothing here exists: the browser goes where the event says, without looking at the disk.
    let gone = PathBuf::from("/nowhere/a/b/c");
    let parent = PathBuf::from("/nowhere/a");
    let dirs = Recorder::default();
    let mut browser = Browser::new(VIEW, gone.clone(), &ctx(&dirs));
    let event = DirEvent::Gone {
        view: VIEW,
        generation: browser.generation(),
        path: gone,
        nearest: Some(parent.clone()),
        renamed: None,
    };
    let _ = browser.update(Message::Dir(event), &ctx(&dirs));
    assert_eq!(browser.path(), parent);
    assert_eq!(dirs.last(), Some(Call::Open(parent, SortSpec::default())));
    let notice = browser.notice.clone().unwrap();
    assert!(notice.contains("“c” was moved or deleted"), "{notice}");
    assert!(
        !browser.history.can_go_back(),
        "the gone folder is not kept in history"
    );
    // A "b" listed there is another folder (the old one moved away, one made in its place):
    // not selected, where Delete trashed it unseen.
    let event = loaded(&browser, listing("/nowhere/a", &["b", "d"]));
    let _ = browser.update(Message::Dir(event), &ctx(&dirs));
    assert!(
        selected_names(&browser).is_empty(),
        "{:?}",
        selected_names(&browser)
    );
}

/// A folder deleted while the user types a path to leave it: the pane shows the parent, and
/// the path typed is still opened once checked (it was dropped with the field).
#[test]
fn a_path_typed_as_the_folder_goes_is_still_opened() {
    let gone = PathBuf::from("/nowhere/a/b");
    let dirs = Recorder::default();
    let mut browser = Browser::new(VIEW, gone.clone(), &ctx(&dirs));
    let _ = browser.update(Message::EditPath, &ctx(&dirs));
    let _ = browser.update(Message::PathEdited("/z".into()), &ctx(&dirs));
    let _ = browser.update(Message::PathSubmitted, &ctx(&dirs));
    let event = DirEvent::Gone {
        view: VIEW,
        generation: browser.generation(),
        path: gone,
        nearest: Some(PathBuf::from("/nowhere/a")),
        renamed: None,
    };
    let _ = browser.update(Message::Dir(event), &ctx(&dirs));
    assert_eq!(browser.path(), Path::new("/nowhere/a"));
    assert!(
        browser.is_editing_location(),
        "the field keeps what was typed"
    );
    let z = PathBuf::from("/z");
    let _ = browser.update(Message::PathChecked(z.clone(), Ok(())), &ctx(&dirs));
    assert_eq!(browser.path(), z, "the path typed is opened");
    assert_eq!(dirs.last(), Some(Call::Open(z, SortSpec::default())));
}

#[test]
fn keyboard_moves_keep_the_focus_visible() {
    let dirs = Recorder::default();
    let names: Vec<String> = (0..100).map(|i| format!("f{i:03}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut browser = browser_with(&dirs, "/x", &names);
    let _ = browser.update(
        Message::Scrolled {
            offset_y: 0.0,
            viewport_h: 300.0,
        },
        &ctx(&dirs),
    );
    let down = |extend| {
        Message::Action(Action::Move {
            step: Step::Down,
            extend,
        })
    };

    let _ = browser.update(down(false), &ctx(&dirs));
    assert_eq!(selected_names(&browser), ["f000"]);
    for _ in 0..12 {
        let _ = browser.update(down(false), &ctx(&dirs));
    }
    assert_eq!(selected_names(&browser), ["f012"]);
    // Row 12 ends at 390 px; a 300 px viewport must have scrolled to show it.
    assert!(
        (browser.scroll.offset_y - 90.0).abs() < f32::EPSILON,
        "{}",
        browser.scroll.offset_y
    );

    let _ = browser.update(down(true), &ctx(&dirs));
    let _ = browser.update(down(true), &ctx(&dirs));
    assert_eq!(selected_names(&browser), ["f012", "f013", "f014"]);
    let _ = browser.update(
        Message::Action(Action::Move {
            step: Step::Last,
            extend: false,
        }),
        &ctx(&dirs),
    );
    assert_eq!(selected_names(&browser), ["f099"]);
    assert!(browser.scroll.offset_y >= top_of(100, 30.0) - 300.0);
}

#[test]
fn enter_opens_and_up_focuses_the_folder_we_came_from() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["a/", "b/", "c"]);
    let _ = browser.update(
        Message::Action(Action::Move {
            step: Step::Down,
            extend: false,
        }),
        &ctx(&dirs),
    );
    let _ = browser.update(
        Message::Action(Action::Move {
            step: Step::Down,
            extend: false,
        }),
        &ctx(&dirs),
    );
    let _ = browser.update(Message::Action(Action::Open), &ctx(&dirs));
    assert_eq!(browser.path(), Path::new("/x/b"));

    let _ = browser.update(Message::Action(Action::Up), &ctx(&dirs));
    assert_eq!(browser.path(), Path::new("/x"));
    let event = loaded(&browser, listing("/x", &["a/", "b/", "c"]));
    let _ = browser.update(Message::Dir(event), &ctx(&dirs));
    assert_eq!(selected_names(&browser), ["b"]);

    let _ = browser.update(Message::Action(Action::Back), &ctx(&dirs));
    assert_eq!(browser.path(), Path::new("/x/b"));
    let _ = browser.update(Message::Action(Action::Forward), &ctx(&dirs));
    assert_eq!(browser.path(), Path::new("/x"));
}

#[test]
fn going_back_focuses_the_entry_we_left_from() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["a/", "b", "c"]);
    let messages = click(&browser, &["c"]);
    feed(&mut browser, &dirs, messages);
    let _ = browser.update(Message::Navigate(PathBuf::from("/elsewhere")), &ctx(&dirs));
    let _ = browser.update(Message::Action(Action::Back), &ctx(&dirs));
    assert_eq!(browser.path(), Path::new("/x"));
    let event = loaded(&browser, listing("/x", &["a/", "b", "c"]));
    let _ = browser.update(Message::Dir(event), &ctx(&dirs));
    assert_eq!(selected_names(&browser), ["c"]);
}

#[test]
fn hidden_files_are_filtered_and_counted() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &[".cache/", ".profile", "docs/", "a.txt"]);
    assert!(shows(&browser, "1 folder, 1 file"));
    assert!(shows(&browser, "2 hidden"));
    assert!(!shows(&browser, ".profile"));

    // Ctrl+H asks the window, which hands the setting to every pane.
    let (_, event) = browser.update(Message::Action(Action::ToggleHidden), &ctx(&dirs));
    assert_eq!(event, Some(Event::ShowHiddenChosen(true)));
    let shown = Settings {
        show_hidden: true,
        ..Settings::default()
    };
    let _ = browser.apply_settings(&shown);
    assert!(shows(&browser, ".profile"));
    assert!(shows(&browser, "2 folders, 2 files"));

    // A selected hidden file is deselected when hidden files are hidden again.
    let messages = click(&browser, &[".profile"]);
    feed(&mut browser, &dirs, messages);
    assert_eq!(selected_names(&browser), [".profile"]);
    let (_, event) = browser.update(Message::ShowHidden(false), &ctx(&dirs));
    assert_eq!(event, Some(Event::ShowHiddenChosen(false)));
    let _ = browser.apply_settings(&Settings::default());
    assert!(selected_names(&browser).is_empty());
}

#[test]
fn clicks_drawn_before_a_change_are_ignored_after_it() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["a", "b"]);
    let messages = click(&browser, &["b"]);
    // A live update lands between the frame and the click: row 1 is now another file.
    change_to(&mut browser, &dirs, &["a", "aa", "b"]);
    feed(&mut browser, &dirs, messages);
    assert!(selected_names(&browser).is_empty());
}

/// Pumps the service's events into `browser` until `done` holds.
fn pump(
    browser: &mut Browser,
    dirs: &ferry_core::dirs::DirService,
    events: &crossbeam_channel::Receiver<DirEvent>,
    done: impl Fn(&Browser) -> bool,
) {
    while !done(browser) {
        // A generous bound so a broken service fails the test instead of hanging it.
        let event = events
            .recv_timeout(std::time::Duration::from_secs(20))
            .expect("the listing service answers");
        let _ = browser.update(Message::Dir(event), &ctx(dirs));
    }
}

fn row_names(browser: &Browser) -> Vec<String> {
    let Some(contents) = browser.listing().contents() else {
        return Vec::new();
    };
    (0..contents.rows().len())
        .map(|row| {
            contents
                .row(row)
                .unwrap()
                .1
                .name()
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

fn is_loaded(browser: &Browser) -> bool {
    matches!(browser.listing(), Listing::Loaded(_))
}

#[test]
fn a_real_folder_resorts_follows_changes_and_survives_deletion() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("folder");
    std::fs::create_dir(&dir).unwrap();
    for (name, size) in [("big", 3000), ("mid", 200), ("small", 1)] {
        std::fs::write(dir.join(name), vec![b'x'; size]).unwrap();
    }
    let (dirs, events) = ferry_core::dirs::DirService::start();
    let mut browser = Browser::new(VIEW, dir.clone(), &ctx(&dirs));
    pump(&mut browser, &dirs, &events, is_loaded);
    assert_eq!(row_names(&browser), ["big", "mid", "small"]);

    let messages = click(&browser, &["Size"]);
    feed_real(&mut browser, &dirs, messages);
    pump(&mut browser, &dirs, &events, |b| {
        row_names(b).first().is_some_and(|n| n == "small")
    });
    assert_eq!(row_names(&browser), ["small", "mid", "big"]);

    let messages = click(&browser, &["mid"]);
    feed_real(&mut browser, &dirs, messages);
    std::fs::write(dir.join("new"), b"").unwrap();
    pump(&mut browser, &dirs, &events, |b| row_names(b).len() == 4);
    assert_eq!(row_names(&browser), ["new", "small", "mid", "big"]);
    assert_eq!(selected_names(&browser), ["mid"]);

    std::fs::remove_dir_all(&dir).unwrap();
    pump(&mut browser, &dirs, &events, |b| {
        b.path() == tmp.path() && is_loaded(b)
    });
    assert!(
        browser
            .notice
            .as_deref()
            .is_some_and(|n| n.contains("“folder” was moved or deleted"))
    );
}

fn feed_real(browser: &mut Browser, dirs: &ferry_core::dirs::DirService, messages: Vec<Message>) {
    for message in messages {
        let _ = browser.update(message, &ctx(dirs));
    }
}

#[test]
fn typing_a_path_opens_it() {
    let dirs = Recorder::default();
    let home = PathBuf::from("/home/ann");
    let with_home = |dirs| Ctx {
        home: Some(&home),
        ..ctx(dirs)
    };
    let mut browser = Browser::new(VIEW, PathBuf::from("/x/y"), &with_home(&dirs));
    let _ = browser.update(Message::Action(Action::EditLocation), &ctx(&dirs));
    assert!(
        shows(&browser, "/x/y"),
        "the field starts with the current path"
    );
    let mut ui = simulator(browser.view(Look::Alone));
    ui.click(iced_test::selector::id(browser.path_input_id()))
        .unwrap();
    ui.typewrite("/z");
    ui.tap_key(iced::keyboard::key::Named::Enter);
    let messages: Vec<Message> = ui.into_messages().collect();
    assert!(
        messages
            .iter()
            .any(|m| matches!(m, Message::PathEdited(text) if text.ends_with("/z")))
    );
    assert!(matches!(messages.last(), Some(Message::PathSubmitted)));

    // Enter checks the path off the UI thread; the answer opens it, or says why not.
    let _ = browser.update(Message::PathSubmitted, &with_home(&dirs));
    assert_eq!(
        browser.path(),
        Path::new("/x/y"),
        "nothing opens before the check"
    );
    let z = PathBuf::from("/z");
    let _ = browser.update(Message::PathChecked(z.clone(), Ok(())), &ctx(&dirs));
    assert_eq!(browser.path(), z);
    assert_eq!(dirs.last(), Some(Call::Open(z, SortSpec::default())));
    assert!(!browser.is_editing_location());

    let _ = browser.update(Message::EditPath, &ctx(&dirs));
    let missing = ferry_core::Error::io(
        "open folder",
        "/nope",
        std::io::Error::from(std::io::ErrorKind::NotFound),
    );
    let refused = Message::PathChecked(PathBuf::from("/nope"), Err(Arc::new(missing)));
    let _ = browser.update(refused, &ctx(&dirs));
    assert!(
        browser.is_editing_location(),
        "the field stays for a correction"
    );
    assert!(shows(&browser, "No such folder."));
}

#[test]
fn escape_leaves_the_path_field_before_clearing_the_selection() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["a", "b"]);
    let messages = click(&browser, &["a"]);
    feed(&mut browser, &dirs, messages);
    let _ = browser.update(Message::Action(Action::EditLocation), &ctx(&dirs));
    assert!(!shows(&browser, "x"), "no breadcrumbs while typing");
    let _ = browser.update(Message::Action(Action::Escape), &ctx(&dirs));
    assert!(shows(&browser, "x"));
    assert_eq!(selected_names(&browser), ["a"]);
    let _ = browser.update(Message::Action(Action::Escape), &ctx(&dirs));
    assert!(selected_names(&browser).is_empty());
}

#[test]
fn names_to_select_replace_the_selection_as_changes_list_them_but_never_hidden_ones() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["a", "b"]);
    let messages = click(&browser, &["b"]);
    feed(&mut browser, &dirs, messages);
    let names = ["c", "d", ".e"].map(std::ffi::OsString::from);
    let _ = browser.select_when_listed(names);
    assert_eq!(selected_names(&browser), ["b"], "nothing listed yet");

    // A paste's items arrive over two live changes: the first replaces the selection, the
    // second joins it.
    change_to(&mut browser, &dirs, &[".e", "a", "b", "c"]);
    assert_eq!(selected_names(&browser), ["c"]);
    change_to(&mut browser, &dirs, &[".e", "a", "b", "c", "d"]);
    assert_eq!(selected_names(&browser), ["c", "d"]);

    // The hidden one was listed, not shown: showing hidden files later does not select it.
    let shown = Settings {
        show_hidden: true,
        ..Settings::default()
    };
    let _ = browser.apply_settings(&shown);
    change_to(&mut browser, &dirs, &[".e", "a", "b", "c", "d"]);
    assert!(shows(&browser, ".e"));
    assert_eq!(selected_names(&browser), ["c", "d"]);
}
