//! Selection and keyboard flows: invert, the rubber band, type-ahead, the filter bar, moving
//! in the icon grid, the context menu from the keyboard, completion of typed paths.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

use iced::{Point, Rectangle, Size, Vector};

use super::*;
use crate::gui::settings::ViewMode;
use crate::gui::shortcut::{PaneAction, Step};

fn act(browser: &mut Browser, dirs: &Recorder, action: PaneAction) -> Option<Event> {
    browser.update(Message::Action(action), &ctx(dirs)).1
}

fn names(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i:03}")).collect()
}

#[test]
fn ctrl_a_and_ctrl_shift_i_select_all_and_invert() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["a", "b", "c"]);
    let messages = click(&browser, &["b"]);
    feed(&mut browser, &dirs, messages);
    act(&mut browser, &dirs, PaneAction::InvertSelection);
    assert_eq!(selected_names(&browser), ["a", "c"]);
    act(&mut browser, &dirs, PaneAction::SelectAll);
    assert_eq!(selected_names(&browser), ["a", "b", "c"]);
    act(&mut browser, &dirs, PaneAction::Escape);
    assert!(selected_names(&browser).is_empty());
}

/// The status bar gives the size of the files selected, as Nautilus and Dolphin do; folders
/// add none. It gave the count alone. Counts are Dolphin's ("1 folder, 3 files", no "0
/// folders"), short enough for a narrow pane: "4 items, 1 folder, 1 selected (4 byte" was
/// cut off in a split.
#[test]
fn the_status_bar_says_the_size_of_the_files_selected() {
    let dirs = Recorder::default();
    // Sizes are the positions: 0, 1,000, 2,000 and 3,000 bytes.
    let mut browser = browser_with(&dirs, "/x", &["docs/", "a", "b", "c"]);
    act(&mut browser, &dirs, PaneAction::SelectAll);
    assert!(shows(&browser, "4 of 4 selected (6.0 kB)"));
    act(&mut browser, &dirs, PaneAction::InvertSelection);
    assert!(shows(&browser, "1 folder, 3 files"));
    let messages = click(&browser, &["docs"]);
    feed(&mut browser, &dirs, messages);
    assert!(shows(&browser, "“docs” selected"), "a folder alone");
    let messages = click(&browser, &["c"]);
    feed(&mut browser, &dirs, messages);
    assert!(shows(&browser, "“c” selected (3.0 kB)"));
    // A file changed on disk: the same selection, a new size.
    change_to(&mut browser, &dirs, &["docs/", "a", "b", "x", "c"]);
    assert!(shows(&browser, "“c” selected (4.0 kB)"));
    // Nothing in it, or nothing shown of what is in it.
    change_to(&mut browser, &dirs, &[]);
    assert!(shows(&browser, "Empty folder"));
    change_to(&mut browser, &dirs, &[".hidden"]);
    assert!(shows(&browser, "Nothing shown"));
    assert!(shows(&browser, "Only hidden files here"));
    // A folder being copied here, filled under a hidden name: not "Only hidden files here".
    change_to(&mut browser, &dirs, &[".ferry-tmp-4242-1-7/"]);
    assert!(shows(&browser, "Nothing finished here yet"));
    assert!(shows(&browser, "1 unfinished") && !shows(&browser, "1 hidden"));
    change_to(&mut browser, &dirs, &[".ferry-tmp-4242-1-7/", ".profile"]);
    assert!(shows(&browser, "Only hidden files here"));
}

/// A long name selected in a narrow pane is shortened in the middle, its extension kept, so
/// that the bar's count on the right stays in it (the name was cut mid-character).
#[test]
fn a_long_name_selected_is_shortened_in_the_status_bar() {
    let dirs = Recorder::default();
    let long = format!("{}-end.txt", "a-long-name".repeat(12));
    let mut browser = browser_with(&dirs, "/x", &["docs/", &long, ".hidden"]);
    let messages = click(&browser, &["docs"]);
    feed(&mut browser, &dirs, messages);
    let down = PaneAction::Move {
        step: Step::Down,
        extend: false,
    };
    act(&mut browser, &dirs, down);
    let narrow = Rectangle::new(Point::ORIGIN, Size::new(420.0, 300.0));
    let _ = browser.update(Message::Resized(narrow), &ctx(&dirs));
    let shown = browser
        .listing()
        .contents()
        .map(|c| browser.counts_for_test(c))
        .unwrap();
    assert!(
        shown.contains('…') && shown.ends_with("-end.txt” selected (1.0 kB)"),
        "{shown}"
    );
    let room = 420.0 - 28.0 - crate::gui::fit::width("1 hidden", 13.0);
    assert!(crate::gui::fit::width(&shown, 13.0) < room, "{shown}");
    assert!(shows(&browser, "1 hidden"));
}

/// Ctrl+arrows move the focus alone and Ctrl+Space picks the focused entry: entries apart
/// are selected from the keyboard, as in Dolphin.
#[test]
fn ctrl_arrows_and_ctrl_space_select_entries_apart() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["a", "b", "c", "d"]);
    let down = |extend| PaneAction::Move {
        step: Step::Down,
        extend,
    };
    act(&mut browser, &dirs, down(false));
    act(
        &mut browser,
        &dirs,
        PaneAction::MoveFocus { step: Step::Down },
    );
    act(
        &mut browser,
        &dirs,
        PaneAction::MoveFocus { step: Step::Down },
    );
    assert_eq!(selected_names(&browser), ["a"], "the focus moved alone");
    act(&mut browser, &dirs, PaneAction::ToggleFocused);
    assert_eq!(selected_names(&browser), ["a", "c"]);
    act(
        &mut browser,
        &dirs,
        PaneAction::MoveFocus { step: Step::Up },
    );
    act(&mut browser, &dirs, PaneAction::ToggleFocused);
    assert_eq!(selected_names(&browser), ["a", "b", "c"]);
    act(&mut browser, &dirs, PaneAction::ToggleFocused);
    assert_eq!(selected_names(&browser), ["a", "c"]);
    // A plain arrow selects only where it lands, as before.
    act(&mut browser, &dirs, down(false));
    assert_eq!(selected_names(&browser), ["c"]);
}

/// Enter with nothing selected opens the focused entry, as Dolphin's Return does: reached by
/// Ctrl+arrows (or left focused once Ctrl+Space took it out of the selection), it did
/// nothing.
#[test]
fn enter_opens_the_focused_entry_when_none_is_selected() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["a", "b"]);
    let down = PaneAction::Move {
        step: Step::Down,
        extend: false,
    };
    act(&mut browser, &dirs, down);
    let selected = act(&mut browser, &dirs, PaneAction::Open);
    assert!(selected.is_some());
    act(&mut browser, &dirs, PaneAction::ToggleFocused);
    assert!(selected_names(&browser).is_empty());
    assert_eq!(act(&mut browser, &dirs, PaneAction::Open), selected);
}

#[test]
fn a_rubber_band_in_empty_space_selects_the_rows_it_crosses_and_scrolls_at_the_edge() {
    let dirs = Recorder::default();
    let names = names("f", 100);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut browser = browser_with(&dirs, "/x", &names);
    let _ = browser.update(
        Message::Resized(Rectangle::new(Point::ORIGIN, Size::new(800.0, 300.0))),
        &ctx(&dirs),
    );
    let _ = browser.update(
        Message::Scrolled {
            offset_y: 0.0,
            viewport_h: 300.0,
        },
        &ctx(&dirs),
    );
    // From the left margin of row 1 down to row 4 (rows are 30 px).
    let _ = browser.update(
        Message::BackgroundPressed(Point::new(2.0, 40.0)),
        &ctx(&dirs),
    );
    assert!(browser.is_banding());
    let _ = browser.update(Message::Dragged(Point::new(300.0, 130.0)), &ctx(&dirs));
    assert_eq!(selected_names(&browser), ["f001", "f002", "f003", "f004"]);
    // Past the bottom edge the list scrolls on each tick and the band grows with it.
    let _ = browser.update(Message::Dragged(Point::new(300.0, 320.0)), &ctx(&dirs));
    for _ in 0..5 {
        let _ = browser.update(Message::AutoScroll, &ctx(&dirs));
    }
    assert!(browser.scroll.offset_y > 0.0);
    assert!(selected_names(&browser).len() > 10);
    let _ = browser.update(Message::Released, &ctx(&dirs));
    assert!(!browser.is_banding());

    // With Ctrl the band adds to what was selected.
    let messages = click(&browser, &["f009"]);
    feed(&mut browser, &dirs, messages);
    let _ = browser.update(
        Message::Scrolled {
            offset_y: 0.0,
            viewport_h: 300.0,
        },
        &ctx(&dirs),
    );
    let _ = browser.update(
        Message::BackgroundPressed(Point::new(2.0, 5.0)),
        &held(&dirs, Modifiers::CTRL),
    );
    let _ = browser.update(Message::Dragged(Point::new(2.0, 35.0)), &ctx(&dirs));
    assert_eq!(selected_names(&browser), ["f000", "f001", "f009"]);
}

#[test]
fn type_ahead_selects_by_prefix_first_then_by_contents_and_cycles_on_one_letter() {
    let dirs = Recorder::default();
    let mut browser = browser_with(
        &dirs,
        "/x",
        &["alpha", "Beta", "bravo", "gamma-beta", "delta"],
    );
    act(&mut browser, &dirs, PaneAction::TypeAhead('b'));
    assert_eq!(selected_names(&browser), ["Beta"], "case-insensitive");
    act(&mut browser, &dirs, PaneAction::TypeAhead('b'));
    assert_eq!(
        selected_names(&browser),
        ["bravo"],
        "the same letter goes on"
    );
    act(&mut browser, &dirs, PaneAction::Escape);
    // Typed on within a second, the text grows: "mm" is no name's start, but is inside one.
    let mut browser = browser_with(&dirs, "/x", &["alpha", "Beta", "gamma-beta"]);
    act(&mut browser, &dirs, PaneAction::TypeAhead('m'));
    act(&mut browser, &dirs, PaneAction::TypeAhead('m'));
    assert_eq!(selected_names(&browser), ["gamma-beta"]);
}

/// A browser on "/x" still loading, the rows `names` listed so far.
fn loading(dirs: &Recorder, names: &[&str]) -> Browser {
    let mut browser = browser_on(dirs, "/x");
    let batch = DirEvent::Batch {
        view: VIEW,
        generation: browser.generation(),
        entries: listing("/x", names),
    };
    let _ = browser.update(Message::Dir(batch), &ctx(dirs));
    browser
}

/// Type-ahead while the folder is still loading searches again once it is complete: typed as
/// rows streamed in, "g19" stopped at "g17", the first match of "g1" listed so far, and a
/// Delete then trashed it.
#[test]
fn type_ahead_typed_while_loading_is_searched_again_in_the_whole_folder() {
    let dirs = Recorder::default();
    let mut browser = loading(&dirs, &["a", "g17", "z"]);
    for c in "g19".chars() {
        act(&mut browser, &dirs, PaneAction::TypeAhead(c));
    }
    assert_eq!(
        selected_names(&browser),
        ["g17"],
        "the best match listed so far"
    );
    let event = loaded(&browser, listing("/x", &["a", "g17", "g19", "z"]));
    let _ = browser.update(Message::Dir(event), &ctx(&dirs));
    assert_eq!(selected_names(&browser), ["g19"]);
}

/// An arrow key (or a click) after type-ahead while the folder loads is the user's choice:
/// the search again once it is complete took the selection back, and Delete trashed the
/// item typed, not the one chosen.
#[test]
fn a_choice_made_after_type_ahead_while_loading_stays() {
    let dirs = Recorder::default();
    let mut browser = loading(&dirs, &["a", "g17", "z"]);
    for c in "g19".chars() {
        act(&mut browser, &dirs, PaneAction::TypeAhead(c));
    }
    let down = PaneAction::Move {
        step: Step::Down,
        extend: false,
    };
    act(&mut browser, &dirs, down);
    assert_eq!(selected_names(&browser), ["z"]);
    let event = loaded(&browser, listing("/x", &["a", "g17", "g19", "z"]));
    let _ = browser.update(Message::Dir(event), &ctx(&dirs));
    assert_eq!(selected_names(&browser), ["z"], "chosen after typing");
}

/// A row chosen while the folder loads is brought into view once the folder is sorted whole:
/// a click left the list at the top, the chosen row 34,000 rows below.
#[test]
fn a_row_chosen_while_loading_is_in_view_once_loaded() {
    let dirs = Recorder::default();
    let mut browser = loading(&dirs, &["zz-chosen", "a"]);
    let messages = click(&browser, &["zz-chosen"]);
    feed(&mut browser, &dirs, messages);
    assert_eq!(selected_names(&browser), ["zz-chosen"]);
    assert!(browser.scroll.offset_y < 1.0);
    let names: Vec<String> = (0..2000).map(|i| format!("f{i:05}")).collect();
    let mut all: Vec<&str> = names.iter().map(String::as_str).collect();
    all.extend(["zz-chosen", "a"]);
    let event = loaded(&browser, listing("/x", &all));
    let _ = browser.update(Message::Dir(event), &ctx(&dirs));
    assert_eq!(selected_names(&browser), ["zz-chosen"]);
    let row = browser.focused_row().expect("focused");
    assert!(
        browser.scroll.reveal(row, browser.line_height()).is_none(),
        "row {row} in view at {}",
        browser.scroll.offset_y
    );
}

/// The focused item deleted or renamed by another program: the keyboard goes on from its
/// place, as in Dolphin; Down went to the first row.
#[test]
fn the_focus_stays_in_place_when_its_item_goes() {
    let dirs = Recorder::default();
    let down = PaneAction::Move {
        step: Step::Down,
        extend: false,
    };
    let mut browser = browser_with(&dirs, "/x", &["a", "b", "c", "d", "e"]);
    act(&mut browser, &dirs, PaneAction::TypeAhead('c'));
    change_to(&mut browser, &dirs, &["a", "b", "d", "e"]);
    assert!(
        selected_names(&browser).is_empty(),
        "nothing selected in its place"
    );
    act(&mut browser, &dirs, down);
    assert_eq!(
        selected_names(&browser),
        ["e"],
        "Down from where c was, at d"
    );
    // The last row gone: the focus is on the new last one.
    change_to(&mut browser, &dirs, &["a", "b", "d"]);
    act(&mut browser, &dirs, down);
    assert_eq!(selected_names(&browser), ["d"]);
    // Several gone at once, some above it: on the next that stays, not on the row where it
    // was (two rows further on, f9 and f10 skipped).
    let names: Vec<String> = (1..=12).map(|i| format!("f{i:02}")).collect();
    let all: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut browser = browser_with(&dirs, "/x", &all);
    for c in "f05".chars() {
        act(&mut browser, &dirs, PaneAction::TypeAhead(c));
    }
    assert_eq!(selected_names(&browser), ["f05"]);
    change_to(
        &mut browser,
        &dirs,
        &["f01", "f02", "f06", "f09", "f10", "f11", "f12"],
    );
    act(&mut browser, &dirs, down);
    assert_eq!(selected_names(&browser), ["f09"], "Down from f06");
}

#[test]
fn the_filter_bar_narrows_the_view_and_says_how_many_are_shown() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["report.pdf", "Report-2.pdf", "notes.txt"]);
    act(&mut browser, &dirs, PaneAction::Filter);
    assert!(shows(&browser, "Filter:"));
    let _ = browser.update(Message::FilterEdited("REPORT".into()), &ctx(&dirs));
    assert!(shows(&browser, "2 of 3 shown"));
    assert!(!shows(&browser, "notes.txt"));
    // A live change keeps the filter.
    let event = changed(
        &browser,
        listing(
            "/x",
            &["report.pdf", "Report-2.pdf", "notes.txt", "report-3"],
        ),
    );
    let _ = browser.update(Message::Dir(event), &ctx(&dirs));
    assert!(shows(&browser, "3 of 4 shown"));
    let _ = browser.update(Message::FilterEdited("zzz".into()), &ctx(&dirs));
    assert!(shows(&browser, "No name matches the filter"));
    act(&mut browser, &dirs, PaneAction::Escape);
    assert!(!shows(&browser, "Filter:"));
    assert!(shows(&browser, "notes.txt"));
}

#[test]
fn the_icon_view_moves_by_rows_of_cells() {
    let dirs = Recorder::default();
    let names = names("p", 20);
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut browser = browser_with(&dirs, "/x", &names);
    // 64 px icons make 112 px cells: 5 across in a 584 px list (+ 24 px padding).
    let _ = browser.update(
        Message::Resized(Rectangle::new(Point::ORIGIN, Size::new(584.0, 400.0))),
        &ctx(&dirs),
    );
    assert_eq!(
        act(&mut browser, &dirs, PaneAction::IconsView),
        Some(Event::ModeChosen(ViewMode::Icons))
    );
    let mv = |step| PaneAction::Move {
        step,
        extend: false,
    };
    act(&mut browser, &dirs, mv(Step::Down));
    assert_eq!(selected_names(&browser), ["p000"]);
    act(&mut browser, &dirs, mv(Step::Down));
    assert_eq!(selected_names(&browser), ["p005"]);
    act(&mut browser, &dirs, mv(Step::Right));
    assert_eq!(selected_names(&browser), ["p006"]);
    act(&mut browser, &dirs, mv(Step::Up));
    assert_eq!(selected_names(&browser), ["p001"]);
    act(&mut browser, &dirs, mv(Step::Up));
    assert_eq!(selected_names(&browser), ["p001"], "no row above");
    assert!(shows(&browser, "p019"), "the cells are built");
}

#[test]
fn the_menu_key_opens_the_context_menu_beside_the_focused_item() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["a", "b", "c"]);
    let _ = browser.update(
        Message::Resized(Rectangle::new(
            Point::new(200.0, 100.0),
            Size::new(600.0, 400.0),
        )),
        &ctx(&dirs),
    );
    let event = act(&mut browser, &dirs, PaneAction::ContextMenu);
    assert!(matches!(
        event,
        Some(Event::ContextMenu {
            on_items: false,
            ..
        })
    ));
    act(
        &mut browser,
        &dirs,
        PaneAction::Move {
            step: Step::Last,
            extend: false,
        },
    );
    let Some(Event::ContextMenu { at, on_items: true }) =
        act(&mut browser, &dirs, PaneAction::ContextMenu)
    else {
        panic!("an item menu");
    };
    // Under row 2 of the list, which starts at y = 100.
    assert_eq!(at.y, 100.0 + 3.0 * 30.0);
    assert!(at.x > 200.0);
}

#[test]
fn tab_completes_folder_names_and_cycles_through_candidates() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &[]);
    let _ = browser.update(Message::EditPath, &ctx(&dirs));
    let _ = browser.update(Message::PathEdited("/home/ann/Do".into()), &ctx(&dirs));
    let folders: Arc<[OsString]> = ["Documents", "Downloads", "Music", ".dots"]
        .iter()
        .map(OsString::from)
        .collect();
    let arrived = |typed: &str| Message::Completed {
        typed: typed.into(),
        dir: PathBuf::from("/home/ann"),
        names: Ok(folders.clone()),
    };
    let _ = browser.update(arrived("/home/ann/Do"), &ctx(&dirs));
    assert!(shows(&browser, "/home/ann/Do"));
    assert!(shows(&browser, "Documents") && shows(&browser, "Downloads"));
    act(&mut browser, &dirs, PaneAction::Complete);
    assert!(shows(&browser, "/home/ann/Documents/"));
    act(&mut browser, &dirs, PaneAction::Complete);
    assert!(shows(&browser, "/home/ann/Downloads/"));
    // One candidate completes at once; an answer for text typed before is dropped.
    let _ = browser.update(Message::PathEdited("/home/ann/Mu".into()), &ctx(&dirs));
    let _ = browser.update(arrived("/home/ann/D"), &ctx(&dirs));
    assert!(shows(&browser, "/home/ann/Mu"));
    let _ = browser.update(arrived("/home/ann/Mu"), &ctx(&dirs));
    assert!(shows(&browser, "/home/ann/Music/"));
    let _ = browser.update(Message::PathEdited("/home/ann/Zz".into()), &ctx(&dirs));
    let _ = browser.update(arrived("/home/ann/Zz"), &ctx(&dirs));
    assert!(shows(&browser, "No folder here starts with “Zz”."));
    // Another program makes one, and Tab again completes to it: the reason goes.
    let made = Message::Completed {
        typed: "/home/ann/Zz".into(),
        dir: PathBuf::from("/home/ann"),
        names: Ok(["Zzz"].iter().map(OsString::from).collect()),
    };
    let _ = browser.update(made, &ctx(&dirs));
    assert!(shows(&browser, "/home/ann/Zzz/"));
    assert!(!shows(&browser, "No folder here starts with “Zz”."));
}

/// The messages of a click on `name`, without its release: the button stays held.
fn hold(browser: &mut Browser, dirs: &Recorder, name: &str) -> Point {
    let messages = click(browser, &[name]);
    let at = messages.iter().find_map(|m| match m {
        Message::ItemPressed(at) => Some(*at),
        _ => None,
    });
    let at = at.expect("the pointer area reports a press on an item");
    let held = messages
        .into_iter()
        .filter(|m| !matches!(m, Message::Released));
    feed(browser, dirs, held.collect());
    at
}

#[test]
fn a_press_on_an_item_that_moves_a_few_pixels_starts_a_drag_of_the_selection() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["a", "b", "c"]);
    let at = hold(&mut browser, &dirs, "b");
    let (_, event) = browser.update(Message::Dragged(at + Vector::new(2.0, 2.0)), &ctx(&dirs));
    assert_eq!(event, None, "a click stays a click");
    let (_, event) = browser.update(Message::Dragged(at + Vector::new(0.0, 15.0)), &ctx(&dirs));
    assert!(
        matches!(&event, Some(Event::DragStarted { paths, .. }) if paths == &[PathBuf::from("/x/b")]),
        "{event:?}"
    );
    let (_, event) = browser.update(Message::Dragged(at + Vector::new(0.0, 45.0)), &ctx(&dirs));
    assert_eq!(event, None, "started once");
}

#[test]
fn a_press_on_one_item_of_a_selection_drags_all_of_it_and_a_click_selects_it_alone() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["a", "b", "c"]);
    act(&mut browser, &dirs, PaneAction::SelectAll);
    let at = hold(&mut browser, &dirs, "b");
    assert_eq!(
        selected_names(&browser),
        ["a", "b", "c"],
        "the press keeps the selection"
    );
    let (_, event) = browser.update(Message::Dragged(at + Vector::new(0.0, 30.0)), &ctx(&dirs));
    assert!(
        matches!(&event, Some(Event::DragStarted { paths, .. }) if paths.len() == 3),
        "{event:?}"
    );
    let _ = browser.update(Message::Released, &ctx(&dirs));
    assert_eq!(
        selected_names(&browser),
        ["a", "b", "c"],
        "a drag keeps it too"
    );

    let messages = click(&browser, &["b"]);
    feed(&mut browser, &dirs, messages);
    assert_eq!(
        selected_names(&browser),
        ["b"],
        "a click without a drag selects one"
    );
}

#[test]
fn a_press_the_list_did_not_see_on_an_item_drags_nothing() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["a", "b"]);
    act(&mut browser, &dirs, PaneAction::SelectAll);
    // As on the scrollbar: the pointer area reports a taken press that no row did.
    let _ = browser.update(Message::ItemPressed(Point::new(5.0, 5.0)), &ctx(&dirs));
    let (_, event) = browser.update(Message::Dragged(Point::new(5.0, 80.0)), &ctx(&dirs));
    assert_eq!(event, None);
}

/// Keys that reach the pane in the same batch as the shortcut that opened a field (a busy
/// window), before the field has the keyboard: letters and Enter are the field's, not
/// type-ahead's or Open's.
#[test]
fn keys_typed_before_a_new_field_has_the_keyboard_go_into_it() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["draft.txt", "sub/", "tmp/"]);
    act(&mut browser, &dirs, PaneAction::EditLocation);
    // The field's own path typed on into a deeper one: the first letter replaces it all, the
    // rest follow (the second "/" does not start over, though the text equals the start).
    for c in "/x/sub".chars() {
        act(&mut browser, &dirs, PaneAction::TypeAhead(c));
    }
    assert!(shows(&browser, "/x/sub"));
    assert!(
        selected_names(&browser).is_empty(),
        "no letter went to type-ahead"
    );
    assert_eq!(act(&mut browser, &dirs, PaneAction::Open), None);
    assert!(
        browser.is_editing_location(),
        "Enter checks the typed path, it does not open the focused row"
    );
    act(&mut browser, &dirs, PaneAction::Escape);

    // F2 then letters: they replace the name's stem, the extension stays; Enter renames.
    act(&mut browser, &dirs, PaneAction::TypeAhead('d'));
    assert_eq!(selected_names(&browser), ["draft.txt"]);
    act(&mut browser, &dirs, PaneAction::Rename);
    for c in "final".chars() {
        act(&mut browser, &dirs, PaneAction::TypeAhead(c));
    }
    assert_eq!(selected_names(&browser), ["draft.txt"]);
    assert_eq!(
        act(&mut browser, &dirs, PaneAction::Open),
        Some(Event::Operation(super::super::Operation::Rename {
            path: PathBuf::from("/x/draft.txt"),
            new_name: OsString::from("final.txt"),
        }))
    );

    // Ctrl+I then letters: the filter gets them.
    act(&mut browser, &dirs, PaneAction::Filter);
    act(&mut browser, &dirs, PaneAction::TypeAhead('s'));
    act(&mut browser, &dirs, PaneAction::TypeAhead('u'));
    assert!(shows(&browser, "1 of 3 shown"));
}

/// F2 on `archive.tar.gz` selects `archive`, as Dolphin does: typing kept `.gz` only, and
/// made `new.tar.gz` of `archive.tar` selected.
#[test]
fn rename_selects_the_name_before_a_double_extension() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["archive.tar.gz"]);
    act(&mut browser, &dirs, PaneAction::TypeAhead('a'));
    act(&mut browser, &dirs, PaneAction::Rename);
    for c in "new".chars() {
        act(&mut browser, &dirs, PaneAction::TypeAhead(c));
    }
    assert_eq!(
        act(&mut browser, &dirs, PaneAction::Open),
        Some(Event::Operation(super::super::Operation::Rename {
            path: PathBuf::from("/x/archive.tar.gz"),
            new_name: OsString::from("new.tar.gz"),
        }))
    );
}

/// A name with a newline: the editor showed only its first line, and renaming it changed
/// what could not be seen. Now the newline is shown as `↵` and kept where it was not edited.
#[test]
fn the_rename_editor_shows_a_newline_in_a_name_and_keeps_it() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["two\nlines.txt"]);
    act(&mut browser, &dirs, PaneAction::TypeAhead('t'));
    act(&mut browser, &dirs, PaneAction::Rename);
    assert!(shows(&browser, "two↵lines.txt"));
    let edited = Message::RenameEdited("two↵lines.md".into());
    let _ = browser.update(edited, &ctx(&dirs));
    assert_eq!(
        act(&mut browser, &dirs, PaneAction::Open),
        Some(Event::Operation(super::super::Operation::Rename {
            path: PathBuf::from("/x/two\nlines.txt"),
            new_name: OsString::from("two\nlines.md"),
        }))
    );
}

/// Delete, then Delete again, trashes two files, as in Dolphin: once the trashed item is
/// gone, the next is selected (the second Delete did nothing, the next row only focused).
/// Gone by another program's doing, it stays only focused (above).
#[test]
fn delete_twice_trashes_the_next_item_too() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["a", "b", "c", "d", "e"]);
    act(&mut browser, &dirs, PaneAction::TypeAhead('c'));
    let trashed = act(&mut browser, &dirs, PaneAction::Trash);
    assert!(
        matches!(&trashed, Some(Event::Operation(crate::gui::screen::browser::Operation::Trash(paths))) if paths == &[PathBuf::from("/x/c")]),
        "{trashed:?}"
    );
    change_to(&mut browser, &dirs, &["a", "b", "d", "e"]);
    assert_eq!(selected_names(&browser), ["d"]);
    let again = act(&mut browser, &dirs, PaneAction::Trash);
    assert!(
        matches!(&again, Some(Event::Operation(crate::gui::screen::browser::Operation::Trash(paths))) if paths == &[PathBuf::from("/x/d")]),
        "{again:?}"
    );
}
