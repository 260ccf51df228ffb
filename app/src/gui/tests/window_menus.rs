//! The window's menus: the folder's and the items' context menus, the window menu and its
//! checked entries, chosen from the keyboard, and the shortcuts dialog.

use super::*;

#[test]
fn the_context_menus_offer_what_applies_and_the_keyboard_chooses() {
    let fixture = Fixture::new();
    let mut ferry = fixture.start(Some(&fixture.home()));
    let view = ferry.tabs.active_pane().view_id();
    let pane = |m| Message::Tabs(tabs::Message::Pane(view, m));
    // A right click on empty space: the folder's menu.
    let _ = ferry.update(pane(browser::Message::RightPressed {
        at: Point::new(400.0, 500.0),
        on_item: false,
    }));
    assert_eq!(
        ferry.menu.as_ref().map(|m| &m.kind),
        Some(&MenuKind::Folder)
    );
    for entry in [
        "Details",
        "Icons",
        "Name",
        "Size",
        "Show Hidden Files",
        "Add to Places",
    ] {
        assert!(shows(&ferry, entry), "{entry}");
    }
    click(&mut ferry, "Folders First");
    assert!(ferry.menu.is_none());
    assert!(!ferry.tabs.active_pane().sort().folders_first);
    // Down past New Folder and Details (the disabled Paste and the heading are skipped)
    // to "Icons", Enter.
    let _ = ferry.update(pane(browser::Message::RightPressed {
        at: Point::new(400.0, 500.0),
        on_item: false,
    }));
    assert_eq!(ferry.menu.as_ref().unwrap().highlighted, None);
    named(&mut ferry, Named::ArrowDown, Modifiers::empty());
    named(&mut ferry, Named::ArrowDown, Modifiers::empty());
    named(&mut ferry, Named::ArrowDown, Modifiers::empty());
    named(&mut ferry, Named::Enter, Modifiers::empty());
    assert_eq!(ferry.tabs.active_pane().mode(), ViewMode::Icons);
    assert_eq!(ferry.services.settings.view_mode, ViewMode::Icons);

    // The Menu key on a selected folder: the items' menu, placed inside the window.
    named(&mut ferry, Named::ArrowDown, Modifiers::empty());
    named(&mut ferry, Named::ContextMenu, Modifiers::empty());
    let menu = ferry.menu.clone().expect("a menu");
    assert_eq!(menu.kind, MenuKind::Items);
    assert!(menu.at.x >= 0.0 && menu.at.y >= 0.0);
    for entry in [
        "Open",
        "Open in New Tab",
        "Open in Split View",
        "Copy Location",
    ] {
        assert!(shows(&ferry, entry), "{entry}");
    }
    // Opened from the keyboard, "Open" is highlighted already (a right click highlights
    // nothing): Enter, the folder opens.
    assert_eq!(menu.highlighted, Some(0));
    named(&mut ferry, Named::Enter, Modifiers::empty());
    assert!(ferry.menu.is_none());
    assert_eq!(active_path(&ferry), fixture.home().join("Documents"));
}

/// The window menu's Jobs entry is checked while the panel shows, as Split View and Show
/// Places are.
#[test]
fn the_jobs_entry_is_checked_while_the_panel_shows() {
    let fixture = Fixture::new();
    let mut ferry = fixture.start(Some(&fixture.home()));
    let jobs_checked = |ferry: &Ferry| {
        ferry
            .menu_entries(&MenuKind::Window)
            .into_iter()
            .find_map(|e| match e {
                widget::context_menu::Entry::Item { label, checked, .. } if label == "Jobs" => {
                    Some(checked)
                }
                _ => None,
            })
    };
    assert_eq!(jobs_checked(&ferry), Some(false));
    key(
        &mut ferry,
        Key::Character("j".into()),
        Modifiers::CTRL | Modifiers::SHIFT,
    );
    assert!(ferry.jobs_panel.is_open());
    assert_eq!(jobs_checked(&ferry), Some(true));
}

#[test]
fn the_window_menu_and_the_shortcuts_dialog() {
    let fixture = Fixture::new();
    let mut ferry = fixture.start(Some(&fixture.home()));
    named(&mut ferry, Named::F10, Modifiers::empty());
    assert_eq!(
        ferry.menu.as_ref().map(|m| &m.kind),
        Some(&MenuKind::Window)
    );
    // Home and End reach the first and the last entries.
    let highlighted = |ferry: &Ferry| ferry.menu.as_ref().and_then(|m| m.highlighted);
    named(&mut ferry, Named::End, Modifiers::empty());
    let last = highlighted(&ferry).expect("the last entry");
    named(&mut ferry, Named::Home, Modifiers::empty());
    let first = highlighted(&ferry).expect("the first entry");
    assert!(first < last);
    named(&mut ferry, Named::ArrowUp, Modifiers::empty());
    assert_eq!(
        highlighted(&ferry),
        Some(last),
        "up from the first wraps to the last"
    );
    for entry in [
        "New Window",
        "New Tab",
        "Split View",
        "Keyboard Shortcuts",
        "Quit",
        "Dark",
    ] {
        assert!(shows(&ferry, entry), "{entry}");
    }
    click(&mut ferry, "Dark");
    assert_eq!(ferry.services.settings.theme, ThemeChoice::Dark);
    assert!(ferry.theme().extended_palette().is_dark);
    key(&mut ferry, Key::Named(Named::F1), Modifiers::CTRL);
    assert!(shows(&ferry, "Keyboard Shortcuts"));
    assert!(shows(&ferry, "Reopen closed tab") && shows(&ferry, "Ctrl+Shift+T"));
    named(&mut ferry, Named::Escape, Modifiers::empty());
    assert!(!ferry.shortcuts_shown);
    // F1, help's key in Dolphin and Nautilus, shows it too.
    named(&mut ferry, Named::F1, Modifiers::empty());
    assert!(ferry.shortcuts_shown);
}

/// A view chosen in a folder without its own becomes the default of every such folder (as
/// the README says): a tab of another folder without its own kept the old default, beside
/// the new one, even after F5, until it was opened again.
#[test]
fn a_new_default_view_reaches_every_pane_of_a_folder_without_its_own() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home.join("Documents")));
    ctrl(&mut ferry, "t");
    super::operations::go(&mut ferry, &home.join("Music"));
    let modes = |ferry: &Ferry| -> Vec<ViewMode> { ferry.tabs.panes().map(|p| p.mode()).collect() };
    assert_eq!(modes(&ferry), [ViewMode::Details, ViewMode::Details]);
    ctrl(&mut ferry, "2");
    assert_eq!(modes(&ferry), [ViewMode::Icons, ViewMode::Icons]);
}
