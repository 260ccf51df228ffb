//! The two views, zoom, column widths, and the view and sort a folder keeps.

use std::path::PathBuf;

use ferry_core::sort::{SortKey, SortSpec};
use iced::{Point, Rectangle, Size};

use super::*;
use crate::gui::settings::{Settings, ViewMode};
use crate::gui::shortcut::PaneAction;

#[test]
fn ctrl_2_shows_the_icon_grid_windowed_and_zoom_steps_its_size() {
    let dirs = Recorder::default();
    let names: Vec<String> = (0..50_000).map(|i| format!("p-{i:05}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut browser = browser_with(&dirs, "/pics", &names);
    let _ = browser.update(
        Message::Resized(Rectangle::new(Point::ORIGIN, Size::new(800.0, 600.0))),
        &ctx(&dirs),
    );
    let (_, event) = browser.update(Message::Action(PaneAction::IconsView), &ctx(&dirs));
    assert_eq!(event, Some(Event::ModeChosen(ViewMode::Icons)));
    assert!(shows(&browser, "p-00000"));
    assert!(
        !shows(&browser, "p-40000"),
        "only the cells in view are built"
    );
    assert!(
        !shows(&browser, "Modified"),
        "no column headers in the grid"
    );

    let (_, event) = browser.update(Message::Action(PaneAction::ZoomIn), &ctx(&dirs));
    assert_eq!(event, Some(Event::Zoomed(ViewMode::Icons, 96)));
    let (_, event) = browser.update(Message::Action(PaneAction::ZoomOut), &ctx(&dirs));
    assert_eq!(event, Some(Event::Zoomed(ViewMode::Icons, 48)));
    let bigger = Settings {
        icon_size: 256,
        ..Settings::default()
    };
    let _ = browser.apply_settings(&bigger);
    let (_, event) = browser.update(Message::Action(PaneAction::ZoomIn), &ctx(&dirs));
    assert_eq!(event, None, "the largest size is the last");
    let (_, event) = browser.update(Message::Action(PaneAction::ZoomReset), &ctx(&dirs));
    assert_eq!(event, Some(Event::Zoomed(ViewMode::Icons, 64)));

    let (_, event) = browser.update(Message::Action(PaneAction::DetailsView), &ctx(&dirs));
    assert_eq!(event, Some(Event::ModeChosen(ViewMode::Details)));
    assert!(shows(&browser, "Modified"));
}

#[test]
fn long_names_in_the_grid_keep_their_extension() {
    let dirs = Recorder::default();
    let name = "a-very-long-holiday-photo-name-from-2019.jpeg";
    let mut browser = browser_with(&dirs, "/x", &[name]);
    let _ = browser.update(Message::Action(PaneAction::IconsView), &ctx(&dirs));
    assert!(!shows(&browser, name), "shortened");
    // Two lines: the first ends where a word does, the second keeps the end.
    let mut ui = simulator(browser.view(Look::Alone));
    let shown = ui.find(
        |candidate: iced_test::selector::Candidate<'_>| match candidate {
            iced_test::selector::Candidate::Text { content, .. }
                if content.starts_with("a-very") =>
            {
                Some(content.to_owned())
            }
            _ => None,
        },
    );
    let shown = shown.expect("the name is shown");
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines.len(), 2, "{shown}");
    assert!(lines[0].ends_with('-'), "broken where a word ends: {shown}");
    assert!(
        lines[1].contains('…') && lines[1].ends_with("2019.jpeg"),
        "{shown}"
    );
}

#[test]
fn a_folder_opens_in_the_view_and_sort_chosen_there() {
    let dirs = Recorder::default();
    let by_size = SortSpec {
        key: SortKey::Size,
        ..SortSpec::default()
    };
    let mut settings = Settings::default();
    settings.remember_mode(std::path::Path::new("/pics"), ViewMode::Icons);
    settings.remember_sort(std::path::Path::new("/dl"), by_size);
    settings.view_mode = ViewMode::Details;
    let ctx = Ctx {
        settings: &settings,
        ..ctx(&dirs)
    };
    let mut browser = Browser::new(VIEW, PathBuf::from("/pics"), &ctx);
    assert_eq!(browser.mode(), ViewMode::Icons);
    let _ = browser.update(Message::Navigate(PathBuf::from("/dl")), &ctx);
    assert_eq!(browser.mode(), ViewMode::Details);
    assert_eq!(dirs.last(), Some(Call::Open(PathBuf::from("/dl"), by_size)));
}

#[test]
fn dragging_a_column_edge_resizes_it() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["a"]);
    let _ = browser.update(
        Message::Resized(Rectangle::new(Point::ORIGIN, Size::new(1000.0, 500.0))),
        &ctx(&dirs),
    );
    // The type column starts at 1000 - 16 - 140 = 844: grab just left of it, drag 60 px left.
    let _ = browser.update(Message::HeaderPressed(Point::new(840.0, 10.0)), &ctx(&dirs));
    let (_, event) = browser.update(Message::HeaderDragged(Point::new(780.0, 10.0)), &ctx(&dirs));
    let Some(Event::ColumnsResized(columns)) = event else {
        panic!("a resize");
    };
    assert_eq!(columns.kind, 200.0);
    let _ = browser.update(Message::HeaderReleased, &ctx(&dirs));
    let (_, event) = browser.update(Message::HeaderDragged(Point::new(700.0, 10.0)), &ctx(&dirs));
    assert_eq!(event, None, "released");
}

/// A column dragged wider stops where the name would get less than its least: dragged on,
/// it left the type column out, with no way back from the header.
#[test]
fn a_column_grows_only_into_the_names_room() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["a"]);
    let _ = browser.update(
        Message::Resized(Rectangle::new(Point::ORIGIN, Size::new(800.0, 500.0))),
        &ctx(&dirs),
    );
    let shown = |b: &Browser| crate::gui::screen::browser::details::shown(800.0, &b.columns);
    assert_eq!(shown(&browser).len(), 3);
    // Modified's edge: 800 - 16 - 140 - 8 - 150 = 486. Dragged 300 px left.
    let _ = browser.update(Message::HeaderPressed(Point::new(483.0, 10.0)), &ctx(&dirs));
    let (_, event) = browser.update(Message::HeaderDragged(Point::new(183.0, 10.0)), &ctx(&dirs));
    let Some(Event::ColumnsResized(columns)) = event else {
        panic!("a resize");
    };
    // 800 - 24 of padding - 96 - 140 - 3 * 8 - 220 for the name = 296.
    assert_eq!(columns.modified, 296.0);
    assert_eq!(shown(&browser).len(), 3, "the type column stays");
}

/// A column dragged narrow stops where its values still show whole: at 48 px, sizes read
/// "bytes" without their numbers. A width kept from before is drawn as wide.
#[test]
fn a_column_narrows_only_to_its_values_width() {
    use crate::gui::screen::browser::details::Column;
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["a"]);
    let _ = browser.update(
        Message::Resized(Rectangle::new(Point::ORIGIN, Size::new(800.0, 500.0))),
        &ctx(&dirs),
    );
    // Size's edge: 800 - 16 - 140 - 8 - 150 - 8 - 96 = 382. Dragged 300 px right.
    let _ = browser.update(Message::HeaderPressed(Point::new(379.0, 10.0)), &ctx(&dirs));
    let (_, event) = browser.update(Message::HeaderDragged(Point::new(679.0, 10.0)), &ctx(&dirs));
    let Some(Event::ColumnsResized(columns)) = event else {
        panic!("a resize");
    };
    let least = Column::Size.least();
    assert_eq!(columns.size, least);
    let words = crate::gui::fit::width("999 bytes", 13.0);
    assert!(least > words && least < 100.0, "{least} for {words}");
    let mut narrow = columns;
    narrow.modified = 48.0;
    assert_eq!(Column::Modified.width(&narrow), Column::Modified.least());
}

/// A type cut to its narrow column ends in "…": "XLSX do" read as a whole label.
#[test]
fn a_type_cut_to_its_column_says_so() {
    let dirs = Recorder::default();
    let mut browser = browser_with(&dirs, "/x", &["sheet.xlsx"]);
    let mut narrow = Settings::default();
    narrow.columns.kind = 48.0;
    let _ = browser.apply_settings(&narrow);
    let _ = browser.update(
        Message::Resized(Rectangle::new(Point::ORIGIN, Size::new(800.0, 500.0))),
        &ctx(&dirs),
    );
    let label = "XLSX document";
    assert!(shows(&browser, "sheet.xlsx"));
    assert!(!shows(&browser, label), "cut");
    let kind = crate::gui::screen::browser::details::Column::Kind;
    let room = kind.width(&browser.columns) - 16.0;
    let cut = crate::gui::fit::end(label.into(), room, 13.0);
    assert!(cut.ends_with('…'), "{cut}");
    assert!(shows(&browser, &cut), "{cut}");
}
