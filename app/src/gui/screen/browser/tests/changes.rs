//! What another program's changes to the folder do to what the user is doing in the pane:
//! the rename editor keeps the keyboard and never lets keys reach the items, and a list that
//! shrank under its scroll position shows its rows.

use iced::{Point, Rectangle, Size};

use super::*;
use crate::gui::shortcut::{PaneAction, Step};

fn act(browser: &mut Browser, dirs: &Recorder, action: PaneAction) -> (usize, Option<Event>) {
    let (task, event) = browser.update(Message::Action(action), &ctx(dirs));
    (task.units(), event)
}

/// A browser 300 px high on `/x` showing `count` files `f000`, `f001`, ...
fn tall_list(dirs: &Recorder, count: usize) -> (Browser, Vec<String>) {
    let names: Vec<String> = (0..count).map(|i| format!("f{i:03}")).collect();
    let shown: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut browser = browser_with(dirs, "/x", &shown);
    let bounds = Rectangle::new(Point::ORIGIN, Size::new(800.0, 300.0));
    let _ = browser.update(Message::Resized(bounds), &ctx(dirs));
    let scrolled = Message::Scrolled {
        offset_y: 0.0,
        viewport_h: 300.0,
    };
    let _ = browser.update(scrolled, &ctx(dirs));
    (browser, names)
}

fn last(step: Step) -> PaneAction {
    PaneAction::Move {
        step,
        extend: false,
    }
}

/// Keys no field took while the editor is open (its field had lost the keyboard): Delete
/// moved the file being renamed to the trash, Backspace left the folder. Now they give the
/// field the keyboard back and do nothing else.
#[test]
fn keys_the_rename_field_did_not_take_never_act_on_the_items() {
    let dirs = Recorder::default();
    let (mut browser, _) = tall_list(&dirs, 3);
    act(&mut browser, &dirs, last(Step::Last));
    act(&mut browser, &dirs, PaneAction::Rename);
    assert!(browser.is_renaming());
    for action in [
        PaneAction::Trash,
        PaneAction::Delete,
        PaneAction::Back,
        PaneAction::Cut,
        PaneAction::SelectAll,
        last(Step::First),
    ] {
        let (tasks, event) = act(&mut browser, &dirs, action);
        assert_eq!(event, None, "{action:?}");
        assert!(tasks > 0, "{action:?} gives the field the keyboard");
        assert!(browser.is_renaming(), "{action:?}");
    }
    assert_eq!(selected_names(&browser), ["f002"]);
    assert_eq!(browser.path(), PathBuf::from("/x"));
}

/// Another program adds an item above the one being renamed: its row moves, and its field
/// (a new widget there) is given the keyboard again; a change below it leaves it be.
#[test]
fn the_rename_field_gets_the_keyboard_back_when_its_row_moves() {
    let dirs = Recorder::default();
    let (mut browser, mut names) = tall_list(&dirs, 5);
    act(&mut browser, &dirs, last(Step::Last));
    act(&mut browser, &dirs, PaneAction::Rename);
    let edited = Message::RenameEdited("abc".into());
    let _ = browser.update(edited, &ctx(&dirs));
    let update = |browser: &mut Browser, names: &[String]| {
        let shown: Vec<&str> = names.iter().map(String::as_str).collect();
        let event = changed(browser, listing("/x", &shown));
        let (task, event) = browser.update(Message::Dir(event), &ctx(&dirs));
        (task.units(), event)
    };
    names.push("g".to_owned()); // below: the field stays where it was
    assert_eq!(update(&mut browser, &names), (0, None));
    names.insert(0, "a".to_owned()); // above: its row moves down one
    let (tasks, event) = update(&mut browser, &names);
    assert!(tasks > 0, "the field gets the keyboard back");
    assert_eq!(event, None);
    assert!(browser.is_renaming());
    // The text typed so far is kept, and Enter renames the item it was opened on.
    assert_eq!(
        act(&mut browser, &dirs, PaneAction::Open).1,
        Some(Event::Operation(super::super::Operation::Rename {
            path: PathBuf::from("/x/f004"),
            new_name: "abc".into(),
        }))
    );
}

/// In the icon grid, Tab goes on to the next cell, not to the cell below it (nor, on a
/// single line, to the last).
#[test]
fn tab_in_the_grid_renames_the_next_cell() {
    let dirs = Recorder::default();
    let (mut browser, _) = tall_list(&dirs, 20);
    let _ = browser.update(Message::Action(PaneAction::IconsView), &ctx(&dirs));
    assert!(browser.per_line() > 1);
    act(&mut browser, &dirs, last(Step::First));
    act(&mut browser, &dirs, PaneAction::Rename);
    act(&mut browser, &dirs, PaneAction::RenameNext { back: false });
    assert!(browser.is_renaming());
    assert_eq!(selected_names(&browser), ["f001"]);
    act(&mut browser, &dirs, PaneAction::RenameNext { back: true });
    assert_eq!(selected_names(&browser), ["f000"]);
}

/// A name typed with a leading dot says that it hides the item: F2 then Backspace made
/// `a.txt` `.txt`, which left the list without a word.
#[test]
fn a_rename_to_a_hidden_name_says_so() {
    let dirs = Recorder::default();
    let (mut browser, _) = tall_list(&dirs, 5);
    act(&mut browser, &dirs, last(Step::Last));
    act(&mut browser, &dirs, PaneAction::Rename);
    let note = |b: &Browser| b.renaming.as_ref().and_then(|r| r.note());
    assert_eq!(note(&browser), None);
    let _ = browser.update(Message::RenameEdited(".txt".into()), &ctx(&dirs));
    assert_eq!(note(&browser), Some(super::super::HIDDEN_NAME));
    let _ = browser.update(Message::RenameEdited("b.txt".into()), &ctx(&dirs));
    assert_eq!(note(&browser), None);
}

/// Spaces typed at either end of a new name are dropped, as New Folder drops them (the
/// rename kept them: "notes " beside "notes"); a name that had them is kept when Enter is
/// pressed without an edit, and one of spaces only is refused.
#[test]
fn a_rename_drops_spaces_at_the_ends_unless_the_name_is_left_as_it_was() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &[" spaced ", "plain"]);
    let rename_to = |browser: &mut Browser, step: Step, typed: &str| {
        act(browser, &dirs, last(step));
        act(browser, &dirs, PaneAction::Rename);
        let _ = browser.update(Message::RenameEdited(typed.into()), &ctx(&dirs));
        browser.update(Message::RenameSubmitted, &ctx(&dirs)).1
    };
    let renamed = |path: &str, new_name: &str| {
        Some(Event::Operation(super::super::Operation::Rename {
            path: PathBuf::from(path),
            new_name: new_name.into(),
        }))
    };
    assert_eq!(
        rename_to(&mut browser, Step::Last, "  notes  "),
        renamed("/x/plain", "notes")
    );
    assert_eq!(rename_to(&mut browser, Step::First, " spaced "), None);
    assert!(!browser.is_renaming(), "left as it was: nothing to do");
    assert_eq!(
        rename_to(&mut browser, Step::First, " spaced  x "),
        renamed("/x/ spaced ", "spaced  x")
    );
    assert_eq!(rename_to(&mut browser, Step::Last, "   "), None);
    let problem = browser.renaming.as_ref().and_then(|r| r.problem.clone());
    assert_eq!(problem.as_deref(), Some("A name can't be empty."));
}

/// Tab in the editor renames, and goes on to rename the next item (Shift+Tab: the one
/// before), as in Dolphin: it took the keyboard to the places with the editor left open.
/// The renamed item coming back under its new name does not take the editor or the focus.
#[test]
fn tab_renames_and_goes_on_to_the_next_item() {
    let dirs = Recorder::default();
    let (mut browser, _) = tall_list(&dirs, 3);
    act(&mut browser, &dirs, last(Step::First));
    act(&mut browser, &dirs, PaneAction::Rename);
    let _ = browser.update(Message::RenameEdited("abc".into()), &ctx(&dirs));
    let (_, event) = act(&mut browser, &dirs, PaneAction::RenameNext { back: false });
    assert_eq!(
        event,
        Some(Event::Operation(super::super::Operation::Rename {
            path: PathBuf::from("/x/f000"),
            new_name: "abc".into(),
        }))
    );
    assert!(browser.is_renaming());
    assert_eq!(selected_names(&browser), ["f001"]);
    let event = changed(&browser, listing("/x", &["abc", "f001", "f002"]));
    let _ = browser.update(Message::Dir(event), &ctx(&dirs));
    assert!(browser.is_renaming());
    assert_eq!(
        selected_names(&browser),
        ["f001"],
        "the selection stays with the editor"
    );
    let (_, event) = act(&mut browser, &dirs, PaneAction::RenameNext { back: true });
    assert_eq!(event, None, "nothing typed: nothing renamed");
    assert_eq!(selected_names(&browser), ["abc"]);
    // At the first item, Shift+Tab ends the rename there.
    let (_, event) = act(&mut browser, &dirs, PaneAction::RenameNext { back: true });
    assert_eq!(event, None);
    assert!(!browser.is_renaming());
}

/// The item being renamed is moved away by another program: the editor closes and says so
/// (it vanished silently, and what was typed next went to type-ahead).
#[test]
fn the_rename_editor_says_so_when_its_item_goes() {
    let dirs = Recorder::default();
    let (mut browser, _) = tall_list(&dirs, 3);
    act(&mut browser, &dirs, last(Step::Last));
    act(&mut browser, &dirs, PaneAction::Rename);
    let event = changed(&browser, listing("/x", &["f000", "f001", "moved"]));
    let (_, event) = browser.update(Message::Dir(event), &ctx(&dirs));
    assert!(!browser.is_renaming());
    let Some(Event::Notice(said)) = event else {
        panic!("{event:?}");
    };
    assert!(said.starts_with("“f002” was renamed, moved or deleted elsewhere"));
}

/// Scrolled to the end of 300 rows, another program deletes all but 11: the list built no
/// row (it was scrolled past them) and stayed blank. It scrolls back within its rows.
#[test]
fn a_list_that_shrinks_under_its_scroll_position_scrolls_back() {
    let dirs = Recorder::default();
    let (mut browser, names) = tall_list(&dirs, 300);
    act(&mut browser, &dirs, last(Step::Last));
    assert!(
        browser.scroll.offset_y > 8000.0,
        "{}",
        browser.scroll.offset_y
    );
    let kept: Vec<&str> = names[289..].iter().map(String::as_str).collect();
    change_to(&mut browser, &dirs, &kept);
    assert!(shows(&browser, "f299") && shows(&browser, "f289"));
    // The same through the filter: 12 of 300 shown, scrolled to the end.
    let (mut browser, _) = tall_list(&dirs, 300);
    act(&mut browser, &dirs, last(Step::Last));
    act(&mut browser, &dirs, PaneAction::Filter);
    for c in "f00".chars() {
        act(&mut browser, &dirs, PaneAction::TypeAhead(c));
    }
    assert!(shows(&browser, "f009"));
}

/// Ctrl+Z is the filter field's while the user types in it, and the jobs' again once the
/// list takes a key (it did nothing at all while the bar stayed open). The list keeps the
/// keyboard then: a letter is type-ahead, as in Dolphin, until Ctrl+I goes back to the field.
#[test]
fn the_filter_bar_holds_ctrl_z_only_while_typed_in() {
    let dirs = Recorder::default();
    let (mut browser, _) = tall_list(&dirs, 30);
    act(&mut browser, &dirs, PaneAction::Filter);
    assert!(browser.is_typing());
    act(&mut browser, &dirs, PaneAction::TypeAhead('f'));
    assert!(browser.is_typing());
    act(&mut browser, &dirs, last(Step::Down));
    assert!(!browser.is_typing(), "the list has the keys");
    act(&mut browser, &dirs, PaneAction::TypeAhead('0'));
    assert!(!browser.is_typing(), "a letter is the list's type-ahead");
    act(&mut browser, &dirs, PaneAction::Filter);
    assert!(browser.is_typing(), "Ctrl+I: the field again");
}

/// The item being renamed moved away and a new one made under its name at once: the editor
/// stayed on the name, and Enter renamed the new item.
#[test]
fn the_rename_editor_follows_its_item_not_its_name() {
    let dirs = Recorder::default();
    let (mut browser, _) = tall_list(&dirs, 3);
    act(&mut browser, &dirs, last(Step::Last));
    act(&mut browser, &dirs, PaneAction::Rename);
    let mut swapped = entry::Listing::new(PathBuf::from("/x"));
    for (name, ino) in [("f000", 0), ("f001", 0), ("f002", 99)] {
        let meta = Meta {
            ino,
            ..Meta::default()
        };
        swapped.push(OsStr::new(name), meta);
    }
    let event = changed(&browser, Arc::new(swapped));
    let (_, event) = browser.update(Message::Dir(event), &ctx(&dirs));
    assert!(!browser.is_renaming());
    assert!(matches!(event, Some(Event::Notice(_))), "{event:?}");
}

/// Another program renames the item being renamed: the editor stays on it, as Dolphin's
/// does (it closed, and the letters typed next went to type-ahead, Enter opening a folder).
/// Untouched, it shows the new name, so that Enter does not rename the item back; what was
/// typed is kept and renames it from its new name.
#[test]
fn the_rename_editor_follows_its_item_renamed_elsewhere() {
    let dirs = Recorder::default();
    let folder = |names: &[(&str, u64)]| {
        let mut listing = entry::Listing::new(PathBuf::from("/x"));
        for &(name, ino) in names {
            let meta = Meta {
                ino,
                ..Meta::default()
            };
            listing.push(OsStr::new(name), meta);
        }
        Arc::new(listing)
    };
    let mut browser = browser_on(&dirs, "/x");
    let loaded = loaded(&browser, folder(&[("a.txt", 1), ("b.txt", 2)]));
    let _ = browser.update(Message::Dir(loaded), &ctx(&dirs));
    act(&mut browser, &dirs, last(Step::Last));
    act(&mut browser, &dirs, PaneAction::Rename);
    let event = changed(&browser, folder(&[("a.txt", 1), ("b-ext.txt", 2)]));
    let (_, event) = browser.update(Message::Dir(event), &ctx(&dirs));
    assert_eq!(event, None);
    assert!(browser.is_renaming());
    assert!(shows(&browser, "b-ext.txt"), "the new name in the editor");
    // Enter with nothing typed renames nothing.
    let (_, event) = act(&mut browser, &dirs, PaneAction::Open);
    assert_eq!(event, None);

    assert_eq!(selected_names(&browser), ["b-ext.txt"], "it stays selected");
    act(&mut browser, &dirs, PaneAction::Rename);
    let _ = browser.update(Message::RenameEdited("mine".into()), &ctx(&dirs));
    let event = changed(&browser, folder(&[("a.txt", 1), ("c.txt", 2)]));
    let _ = browser.update(Message::Dir(event), &ctx(&dirs));
    assert_eq!(
        act(&mut browser, &dirs, PaneAction::Open).1,
        Some(Event::Operation(super::super::Operation::Rename {
            path: PathBuf::from("/x/c.txt"),
            new_name: "mine".into(),
        }))
    );
}

/// Given the keyboard back, the field is as the user left it: the stem selected while
/// nothing was typed, else the cursor after the last edit, wherever that was (typing after
/// a change above landed at the end: "file10.txtnew", "Xfile10.txtY").
#[test]
fn the_rename_field_comes_back_as_it_was_left() {
    use super::super::operations::cursor_after_edit;
    assert_eq!(cursor_after_edit("file10.txt", "Xfile10.txt"), 1);
    assert_eq!(cursor_after_edit("file10.txt", "file10.txtZ"), 11);
    assert_eq!(cursor_after_edit("file10.txt", "file1.txt"), 5);
    assert_eq!(cursor_after_edit("aaa", "aaaa"), 4);
    assert_eq!(cursor_after_edit("file10.txt", "new.txt"), 3);
}

/// A click on another item while the editor is open gives the name typed, as in Dolphin:
/// the editor stayed open and took every key and menu entry after.
#[test]
fn a_click_elsewhere_gives_the_name_typed() {
    let dirs = Recorder::default();
    let (mut browser, _) = tall_list(&dirs, 3);
    act(&mut browser, &dirs, last(Step::Last));
    act(&mut browser, &dirs, PaneAction::Rename);
    let _ = browser.update(Message::RenameEdited("abc".into()), &ctx(&dirs));
    let messages = click(&browser, &["f000"]);
    let events = feed(&mut browser, &dirs, messages);
    assert!(!browser.is_renaming());
    assert!(
        events.contains(&Event::Operation(super::super::Operation::Rename {
            path: PathBuf::from("/x/f002"),
            new_name: "abc".into(),
        })),
        "{events:?}"
    );
}

/// Ctrl+Plus, Ctrl+Minus and Ctrl+1 typed their characters into the rename editor ("+-1.txt")
/// and the filter; a paste (Ctrl+V) still goes in.
#[test]
fn shortcut_keys_type_nothing_into_the_fields() {
    let dirs = Recorder::default();
    let (mut browser, _) = tall_list(&dirs, 3);
    act(&mut browser, &dirs, last(Step::Last));
    act(&mut browser, &dirs, PaneAction::Rename);
    let ctrl = held(&dirs, Modifiers::CTRL);
    let _ = browser.update(Message::RenameEdited("+".into()), &ctrl);
    let _ = browser.update(Message::RenameEdited("1".into()), &ctrl);
    let _ = browser.update(Message::RenameEdited("f0+02".into()), &ctrl);
    assert!(shows(&browser, "f002"), "the name is as it was");
    let _ = browser.update(Message::RenameEdited("pasted name".into()), &ctrl);
    assert!(shows(&browser, "pasted name"));
    act(&mut browser, &dirs, PaneAction::Escape);
    act(&mut browser, &dirs, PaneAction::Filter);
    let _ = browser.update(Message::FilterEdited("f".into()), &ctx(&dirs));
    let _ = browser.update(Message::FilterEdited("f+".into()), &ctrl);
    assert_eq!(browser.filter.as_deref(), Some("f"));
}

/// A click on another row while renaming gives the name typed and selects the row clicked,
/// as in Dolphin: once listed under its new name, the renamed item took the selection back.
#[test]
fn a_click_away_from_a_rename_selects_the_row_clicked() {
    let dirs = Recorder::default();
    let (mut browser, _) = tall_list(&dirs, 3);
    act(&mut browser, &dirs, last(Step::Last));
    act(&mut browser, &dirs, PaneAction::Rename);
    let edited = Message::RenameEdited("renamed".to_owned());
    let _ = browser.update(edited, &ctx(&dirs));
    let first = super::super::RowRef {
        revision: browser.revision,
        row: 0,
    };
    let (_, event) = browser.update(Message::RowPressed(first), &ctx(&dirs));
    assert!(
        matches!(
            event,
            Some(Event::Operation(super::super::Operation::Rename { .. }))
        ),
        "{event:?}"
    );
    assert_eq!(selected_names(&browser), ["f000"]);
    change_to(&mut browser, &dirs, &["f000", "f001", "renamed"]);
    assert_eq!(selected_names(&browser), ["f000"]);
}

/// The user sorts the folder the other way: the focused item, now at the other end, is
/// brought into view (the view stayed where it was, the selection off screen); a change
/// made by another program afterwards moves nothing.
#[test]
fn a_new_sort_keeps_the_focused_item_in_view() {
    let dirs = Recorder::default();
    let (mut browser, names) = tall_list(&dirs, 300);
    act(&mut browser, &dirs, last(Step::First));
    assert!(browser.scroll.offset_y < 1.0);
    let reversed = ferry_core::sort::SortSpec {
        direction: ferry_core::sort::Direction::Descending,
        ..ferry_core::sort::SortSpec::default()
    };
    let _ = browser.update(Message::SetSort(reversed), &ctx(&dirs));
    let mut shown: Vec<&str> = names.iter().rev().map(String::as_str).collect();
    change_to(&mut browser, &dirs, &shown);
    assert_eq!(selected_names(&browser), ["f000"]);
    assert!(shows(&browser, "f000"), "at {}", browser.scroll.offset_y);
    let _ = browser.update(
        Message::Scrolled {
            offset_y: 0.0,
            viewport_h: 300.0,
        },
        &ctx(&dirs),
    );
    shown.insert(0, "new");
    change_to(&mut browser, &dirs, &shown);
    assert!(browser.scroll.offset_y < 1.0, "{}", browser.scroll.offset_y);
}

/// Where the row named `name` is drawn: how far below the viewport's top.
fn on_screen(browser: &Browser, name: &str) -> f32 {
    let contents = browser.listing.contents().unwrap();
    let row = contents.row_named(name.as_bytes()).unwrap();
    crate::gui::widget::list::top_of(row, browser.line_height()) - browser.scroll.offset_y
}

/// Files another program adds or deletes above what is shown do not slide the view under
/// a still viewport: the focused item stays where it was on screen; with the focus out of
/// view, the rows at the top of the view do.
#[test]
fn rows_changing_above_the_view_leave_what_is_shown_in_place() {
    let dirs = Recorder::default();
    let (mut browser, names) = tall_list(&dirs, 300);
    act(&mut browser, &dirs, last(Step::Last));
    act(&mut browser, &dirs, last(Step::PageUp));
    act(&mut browser, &dirs, last(Step::PageUp));
    let focused = selected_names(&browser)[0].clone();
    let was = on_screen(&browser, &focused);
    assert!((0.0..300.0).contains(&was), "{focused} at {was}");
    let mut shown: Vec<&str> = names[100..].iter().map(String::as_str).collect();
    change_to(&mut browser, &dirs, &shown);
    assert_eq!(selected_names(&browser), std::slice::from_ref(&focused));
    assert_eq!(
        on_screen(&browser, &focused),
        was,
        "after 100 deleted above"
    );
    let added: Vec<String> = (0..50).map(|i| format!("a{i:03}")).collect();
    shown.splice(0..0, added.iter().map(String::as_str));
    change_to(&mut browser, &dirs, &shown);
    assert_eq!(on_screen(&browser, &focused), was, "after 50 added above");

    // The focus at the top, out of view: the first row in view stays.
    act(&mut browser, &dirs, last(Step::First));
    let scrolled = Message::Scrolled {
        offset_y: 3000.0,
        viewport_h: 300.0,
    };
    let _ = browser.update(scrolled, &ctx(&dirs));
    let contents = browser.listing.contents().unwrap();
    let top_row = browser.scroll.row_under(0.0, browser.line_height());
    let top_entry = contents.rows()[top_row] as usize;
    let top = (contents.entries().entry(top_entry).name().to_str().unwrap()).to_owned();
    let was = on_screen(&browser, &top);
    shown.drain(10..30);
    change_to(&mut browser, &dirs, &shown);
    assert_eq!(
        on_screen(&browser, &top),
        was,
        "{top} after 20 deleted above"
    );
    // The top row itself deleted: the next row in view keeps its place.
    let next = shown[shown.iter().position(|&n| n == top).unwrap() + 1].to_owned();
    let next_was = on_screen(&browser, &next);
    shown.retain(|&n| n != top);
    change_to(&mut browser, &dirs, &shown);
    assert_eq!(on_screen(&browser, &next), next_was);
}
