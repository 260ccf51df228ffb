//! The places sidebar in the window: its bookmarks (one line, renamed from their menu), the
//! keyboard walking it and the current folder's place marked.

use super::*;

/// A bookmark whose name holds a newline is shown on one line, as the tab shows it.
#[test]
fn a_bookmark_name_is_shown_on_one_line() {
    let fixture = Fixture::new();
    let odd = fixture.home().join("nl\ndir");
    std::fs::create_dir(&odd).unwrap();
    let gtk = fixture.dir.path().join("config/gtk-3.0");
    std::fs::create_dir_all(&gtk).unwrap();
    let uri = format!("file://{}/nl%0Adir\n", fixture.home().display());
    std::fs::write(gtk.join("bookmarks"), uri).unwrap();
    let mut ferry = fixture.start(Some(&fixture.home()));
    load_places(&fixture, &mut ferry);
    assert!(shows(&ferry, "nl↵dir"));
    assert!(
        !shows(&ferry, "nl\ndir"),
        "the sidebar's label broke in two"
    );
}

/// A bookmark's menu renames it from the keyboard, as Dolphin's "Edit…" does: the prompt
/// starts on its label; an empty one goes back to the folder's name.
#[test]
fn a_bookmark_is_renamed_from_its_menu() {
    let fixture = Fixture::new();
    let gtk = fixture.dir.path().join("config/gtk-3.0");
    std::fs::create_dir_all(&gtk).unwrap();
    std::fs::create_dir(fixture.home().join("Projects")).unwrap();
    let uri = format!("file://{}/Projects Tunes\n", fixture.home().display());
    std::fs::write(gtk.join("bookmarks"), uri).unwrap();
    let mut ferry = fixture.start(Some(&fixture.home()));
    load_places(&fixture, &mut ferry);
    assert!(shows(&ferry, "Tunes"));
    // Tab to the places, End to the last of them (the bookmark, with no volumes), its menu.
    named(&mut ferry, Named::Tab, Modifiers::empty());
    let starts = ferry.sidebar.focused().map(|(place, _)| place);
    assert_eq!(
        starts,
        Some(sidebar::Place::Folder(fixture.home())),
        "Home's"
    );
    named(&mut ferry, Named::End, Modifiers::empty());
    named(&mut ferry, Named::Home, Modifiers::empty());
    let first = ferry.sidebar.focused().map(|(place, _)| place);
    assert_eq!(first, Some(sidebar::Place::Folder(fixture.home())));
    named(&mut ferry, Named::End, Modifiers::empty());
    named(&mut ferry, Named::ContextMenu, Modifiers::empty());
    assert!(matches!(
        ferry.menu.as_ref().map(|m| &m.kind),
        Some(MenuKind::Place(sidebar::Place::Bookmark(..)))
    ));
    assert!(shows(&ferry, "Remove from Places"));
    click(&mut ferry, "Rename…");
    let prompt = ferry.name_prompt.as_ref().expect("asked");
    let mut prompt = prompt.clone();
    assert!(shows(&ferry, "Rename Place"));
    assert!(shows(
        &ferry,
        &format!("Show “{}/Projects” in Places as:", fixture.home().display())
    ));
    let edited = |text: &str| modal::name_prompt::Message::Edited(text.into());
    prompt.update(edited("  Songs "));
    let labelled = prompt.update(modal::name_prompt::Message::Submitted);
    let Some(modal::name_prompt::Event::Labelled { bookmark, label }) = labelled else {
        panic!("{labelled:?}");
    };
    assert_eq!(label.as_deref(), Some("Songs"), "spaces around dropped");
    assert_eq!(bookmark.label.as_deref(), Some("Tunes"));
    prompt.update(edited(" "));
    let labelled = prompt.update(modal::name_prompt::Message::Submitted);
    assert!(
        matches!(
            labelled,
            Some(modal::name_prompt::Event::Labelled { label: None, .. })
        ),
        "{labelled:?}"
    );
    // Enter in the window's prompt submits it, and it closes.
    send(&mut ferry, Message::NamePrompt(edited("Songs")));
    send(
        &mut ferry,
        Message::NamePrompt(modal::name_prompt::Message::Submitted),
    );
    assert!(ferry.name_prompt.is_none());
}

#[test]
fn the_sidebar_navigates_and_marks_the_current_place() {
    let fixture = Fixture::new();
    let mut ferry = fixture.start(Some(&fixture.home()));
    load_places(&fixture, &mut ferry);
    assert!(shows(&ferry, "Documents") && shows(&ferry, "Music"));
    click(&mut ferry, "Music");
    settle(&mut ferry);
    assert_eq!(active_path(&ferry), fixture.home().join("Music"));
    let places = ferry.sidebar.places().unwrap();
    assert!(matches!(
        places.best_for(&active_path(&ferry)),
        Some(ferry_core::places::PlaceId::Standard(_))
    ));

    // From the keyboard: Tab goes to the places, on the current one (Music), as in Dolphin;
    // Up to Documents, Enter opens.
    named(&mut ferry, Named::Tab, Modifiers::empty());
    assert!(ferry.sidebar.has_focus());
    let music = fixture.home().join("Music");
    let on = ferry.sidebar.focused().map(|(place, _)| place);
    assert_eq!(on, Some(sidebar::Place::Folder(music)));
    named(&mut ferry, Named::ArrowUp, Modifiers::empty());
    named(&mut ferry, Named::Enter, Modifiers::empty());
    settle(&mut ferry);
    assert_eq!(active_path(&ferry), fixture.home().join("Documents"));
    assert!(
        !ferry.sidebar.has_focus(),
        "the keyboard is back in the pane"
    );
    // The Menu key on a place opens its menu.
    named(&mut ferry, Named::Tab, Modifiers::empty());
    named(&mut ferry, Named::ContextMenu, Modifiers::empty());
    assert!(matches!(
        ferry.menu.as_ref().map(|m| &m.kind),
        Some(MenuKind::Place(_))
    ));
    assert!(shows(&ferry, "Open in Split View"));
    named(&mut ferry, Named::Escape, Modifiers::empty());
    // A click in the pane takes the keyboard back (keys went on walking the places).
    assert!(ferry.sidebar.has_focus());
    let view = ferry.tabs.active_pane().view_id();
    let pressed = browser::Message::BackgroundPressed(Point::new(300.0, 400.0));
    send(
        &mut ferry,
        Message::Tabs(tabs::Message::Pane(view, pressed)),
    );
    assert!(!ferry.sidebar.has_focus(), "the pane has it");
    // Split (F3 gives the new pane the keyboard): Tab goes to the other pane first, as its
    // label says, then on to the places (it went to the places at once).
    named(&mut ferry, Named::F3, Modifiers::empty());
    settle(&mut ferry);
    let right = ferry.tabs.active_pane().view_id();
    named(&mut ferry, Named::Tab, Modifiers::empty());
    assert!(!ferry.sidebar.has_focus());
    assert_ne!(ferry.tabs.active_pane().view_id(), right);
    named(&mut ferry, Named::Tab, Modifiers::empty());
    assert!(ferry.sidebar.has_focus());
    // F9 hides them: the pane has the keyboard again (it was nowhere to be seen).
    named(&mut ferry, Named::F9, Modifiers::empty());
    assert!(!ferry.sidebar.has_focus());
    named(&mut ferry, Named::F9, Modifiers::empty());
}
