//! Window-level flows, driven through `Ferry::update` (keys as the window's key messages,
//! since subscriptions get no simulated input) and checked through its state, the files, and
//! `iced_test`; the tasks an update returns are run to their end and their messages fed back,
//! as the runtime would. Here: the fixture and the helpers, tabs, the split, settings and the
//! session. Beside it: the places (`places.rs`), the menus and the shortcuts dialog
//! (`window_menus.rs`), the location bar (`location.rs`), operations on items with real jobs
//! (`operations.rs`), drags onto rows and across file systems, paste beside, cut dimming and
//! refused renames (`flows.rs`), the jobs panel (`jobs_panel`), the window's questions
//! (`dialogs.rs`) and those before a risky move (`moves.rs`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ferry_core::places::{PROBE_TIMEOUT, Places, PlacesEnv};
use iced::Point;
use iced::keyboard::key::Named;
use iced::keyboard::{Key, Modifiers};
use iced_test::simulator;

use super::menus::MenuKind;
use super::screen::browser;
use super::settings::{Settings, Store, ViewMode};
use super::*;

mod dialogs;
mod drags;
mod flows;
mod jobs_panel;
mod location;
mod moves;
mod operations;
mod places;
mod recovery;
mod trash_restore;
mod window_menus;

/// A home folder with a few folders, and Ferry's settings in a folder beside it.
struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        for folder in ["home/Documents/tax", "home/Music", "home/projects/web"] {
            std::fs::create_dir_all(dir.path().join(folder)).unwrap();
        }
        for file in [
            "home/notes.md",
            "home/Documents/a.txt",
            "home/Documents/b.txt",
        ] {
            std::fs::write(dir.path().join(file), "x").unwrap();
        }
        Fixture { dir }
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// A journal and a trash of the fixture's own.
    fn stores(&self) -> jobs::Stores {
        jobs::Stores {
            journal: Some(self.dir.path().join("state/journal.jsonl")),
            trash: Some(self.dir.path().join("data/Trash")),
        }
    }

    fn store(&self) -> Store {
        Store::at(self.dir.path().join("config/ferry"))
    }

    /// Ferry started with `path`, or without one (restoring the session).
    fn start(&self, path: Option<&Path>) -> Ferry {
        self.start_with(path, self.stores())
    }

    /// Ferry started as [`start`](Self::start) does, its journal and trash in `stores`.
    fn start_with(&self, path: Option<&Path>, stores: jobs::Stores) -> Ferry {
        let loaded = self.store().load();
        let launch = Launch {
            start: path.map_or_else(|| self.home(), Path::to_path_buf),
            session: if path.is_some() { None } else { loaded.session },
            settings: loaded.settings,
            store: Some(self.store()),
            problems: loaded.problems.into_iter().map(Arc::new).collect(),
            home: Some(self.home()),
            notice: None,
            gone: Vec::new(),
            stores,
        };
        let (mut ferry, _) = Ferry::new(launch);
        settle(&mut ferry);
        ferry
    }
}

/// Feeds the listing service's events to the window until every pane shows its folder.
fn settle(ferry: &mut Ferry) {
    let end = Instant::now() + Duration::from_secs(20);
    while ferry.tabs.panes().any(|p| {
        !matches!(
            p.listing(),
            browser::Listing::Loaded(_) | browser::Listing::Failed(_)
        )
    }) {
        let left = end.saturating_duration_since(Instant::now());
        let event = ferry
            .dir_events
            .recv_timeout(left)
            .expect("the listing service answers");
        let _ = ferry.update(Message::Dir(event));
    }
}

/// Feeds `message`, then runs the tasks it returns to their end, feeding back their messages.
/// What else a task asks of the runtime (focus, scrolling, the system clipboard) is dropped.
fn send(ferry: &mut Ferry, message: Message) {
    let task = ferry.update(message);
    run(ferry, task);
}

fn run(ferry: &mut Ferry, task: Task<Message>) {
    let Some(stream) = iced_runtime::task::into_stream(task) else {
        return;
    };
    // Each action is dropped as it comes: a widget operation that can send output (focusing a
    // field) holds the stream open until it is.
    let messages: Vec<Message> = iced::futures::executor::block_on_stream(stream)
        .filter_map(|action| match action {
            iced_runtime::Action::Output(message) => Some(message),
            _ => None,
        })
        .collect();
    for message in messages {
        send(ferry, message);
    }
}

fn key(ferry: &mut Ferry, key: Key, modifiers: Modifiers) {
    let text = match &key {
        Key::Character(c) if !modifiers.command() && !modifiers.alt() => Some(c.to_string()),
        _ => None,
    };
    send(
        ferry,
        Message::Key {
            key,
            text,
            modifiers,
            captured: false,
        },
    );
}

fn named(ferry: &mut Ferry, named: Named, modifiers: Modifiers) {
    key(ferry, Key::Named(named), modifiers);
}

fn ctrl(ferry: &mut Ferry, c: &str) {
    key(ferry, Key::Character(c.into()), Modifiers::CTRL);
}

/// Alt and `c`: a dialog's button by its underlined letter.
fn alt(ferry: &mut Ferry, c: &str) {
    key(ferry, Key::Character(c.into()), Modifiers::ALT);
}

fn active_path(ferry: &Ferry) -> PathBuf {
    ferry.tabs.active_pane().path().to_path_buf()
}

/// Clicks `target` (a text, or a widget's id) in the window's view and feeds what it sends
/// back.
fn click<S>(ferry: &mut Ferry, target: S)
where
    S: iced_test::Selector + Send,
    S::Output: iced_test::selector::Bounded + Clone + Send + Sync + 'static,
{
    let mut ui = simulator(ferry.view());
    let what = target.description();
    ui.click(target).unwrap_or_else(|e| panic!("{what}: {e:?}"));
    let messages: Vec<Message> = ui.into_messages().collect();
    for message in messages {
        send(ferry, message);
    }
}

/// True when some text of the window contains `part`.
fn shows_containing(ferry: &Ferry, part: &str) -> bool {
    let mut ui = simulator(ferry.view());
    ui.find(
        |candidate: iced_test::selector::Candidate<'_>| match candidate {
            iced_test::selector::Candidate::Text { content, .. } if content.contains(part) => {
                Some(())
            }
            _ => None,
        },
    )
    .is_ok()
}

fn shows(ferry: &Ferry, text: &str) -> bool {
    simulator(ferry.view()).find(text).is_ok()
}

/// The title of the question the window asks, if it asks one.
fn question(ferry: &Ferry) -> Option<String> {
    ferry.confirm.as_ref().map(|c| c.title().to_owned())
}

/// The places of the fixture's home, loaded as the window loads them at start.
fn load_places(fixture: &Fixture, ferry: &mut Ferry) {
    let env = PlacesEnv {
        home: fixture.home(),
        config_home: fixture.dir.path().join("config"),
        trash: ferry_core::jobs::TrashRoots {
            home: fixture.dir.path().join("trash"),
            volumes: ferry_core::jobs::Volumes::Only(Vec::new()),
        },
        probe_timeout: PROBE_TIMEOUT,
    };
    let places = Places::load_with(&env, &ferry_core::fs::MountTable::default());
    let _ = ferry.update(Message::PlacesLoaded(Ok(Box::new((
        places,
        MountTable::default(),
    )))));
}

#[test]
fn tabs_open_close_reopen_and_cycle() {
    let fixture = Fixture::new();
    let mut ferry = fixture.start(Some(&fixture.home()));
    assert!(ferry.tabs.tab_bar().is_none(), "no tab bar for one tab");
    ctrl(&mut ferry, "t");
    assert_eq!(ferry.tabs.count(), 2);
    let _ = ferry.update(Message::Command(Command::Open(
        fixture.home().join("Music"),
    )));
    settle(&mut ferry);
    assert_eq!(ferry.title(), "Music — Ferry");
    assert!(shows(&ferry, "Home"), "the tab bar names both tabs");
    key(&mut ferry, Key::Character("1".into()), Modifiers::ALT);
    assert_eq!(ferry.title(), "Home — Ferry");
    named(&mut ferry, Named::Tab, Modifiers::CTRL);
    assert_eq!(ferry.title(), "Music — Ferry");
    ctrl(&mut ferry, "w");
    assert_eq!(
        (ferry.tabs.count(), ferry.title().as_str()),
        (1, "Home — Ferry")
    );
    key(
        &mut ferry,
        Key::Character("T".into()),
        Modifiers::CTRL | Modifiers::SHIFT,
    );
    settle(&mut ferry);
    assert_eq!(ferry.tabs.count(), 2);
    assert_eq!(
        ferry.title(),
        "Music — Ferry",
        "reopened where it was, and shown"
    );
    // With its Back: it came back with no history.
    assert!(ferry.tabs.active_pane().can_go_back());
    named(&mut ferry, Named::ArrowLeft, Modifiers::ALT);
    settle(&mut ferry);
    assert_eq!(ferry.title(), "Home — Ferry");
    // A middle tab closed comes back in the middle (it came back after the active one).
    ctrl(&mut ferry, "t");
    key(&mut ferry, Key::Character("2".into()), Modifiers::ALT);
    ctrl(&mut ferry, "w");
    assert_eq!(ferry.tabs.count(), 2);
    key(
        &mut ferry,
        Key::Character("T".into()),
        Modifiers::CTRL | Modifiers::SHIFT,
    );
    assert_eq!(ferry.tabs.session().active, 1);
}

#[test]
fn a_middle_click_or_ctrl_enter_opens_a_folder_in_a_tab_behind() {
    let fixture = Fixture::new();
    let mut ferry = fixture.start(Some(&fixture.home()));
    // Documents is the first row.
    named(&mut ferry, Named::ArrowDown, Modifiers::empty());
    named(&mut ferry, Named::Enter, Modifiers::CTRL);
    assert_eq!(ferry.tabs.count(), 2);
    assert_eq!(ferry.title(), "Home — Ferry", "the new tab opens behind");
    settle(&mut ferry);
    named(&mut ferry, Named::Tab, Modifiers::CTRL);
    assert_eq!(ferry.title(), "Documents — Ferry");
}

/// A view chosen in a folder is that folder's: Ctrl+2 in one pane left the other pane on the
/// same folder in Details (a folder that has its own view shows it wherever it is open). It
/// is the default of folders without their own too: Music, open in another tab, shows it.
#[test]
fn a_view_chosen_in_a_folder_shows_in_every_pane_on_it() {
    let fixture = Fixture::new();
    let mut ferry = fixture.start(Some(&fixture.home()));
    named(&mut ferry, Named::F3, Modifiers::empty());
    ctrl(&mut ferry, "t");
    let _ = ferry.update(Message::Command(Command::Open(
        fixture.home().join("Music"),
    )));
    settle(&mut ferry);
    key(&mut ferry, Key::Character("1".into()), Modifiers::ALT);
    ctrl(&mut ferry, "2");
    let modes: Vec<(PathBuf, ViewMode)> = (ferry.tabs.panes())
        .map(|p| (p.path().to_path_buf(), p.mode()))
        .collect();
    let home = fixture.home();
    assert_eq!(
        modes,
        [
            (home.clone(), ViewMode::Icons),
            (home.clone(), ViewMode::Icons),
            (home.join("Music"), ViewMode::Icons),
        ]
    );
    // A sort too, the other pane's rows sorted again.
    let sort = ferry.tabs.active_pane().sort();
    let reversed = ferry_core::sort::SortSpec {
        direction: ferry_core::sort::Direction::Descending,
        ..sort
    };
    let _ = ferry.update(Message::Command(Command::Sort(reversed)));
    let first_row = |p: &browser::Browser| {
        let contents = p.listing().contents()?;
        let entry = *contents.rows().first()?;
        Some(contents.entries().entry(entry as usize).name().to_owned())
    };
    let end = Instant::now() + Duration::from_secs(20);
    let both_sorted = |ferry: &Ferry| {
        let firsts: Vec<_> = ferry.tabs.panes().take(2).map(first_row).collect();
        firsts[0].is_some() && firsts[0] != Some("Documents".into()) && firsts[0] == firsts[1]
    };
    while !both_sorted(&ferry) {
        let left = end.saturating_duration_since(Instant::now());
        let event = ferry.dir_events.recv_timeout(left).expect("sorted again");
        let _ = ferry.update(Message::Dir(event));
    }
}

/// The divider between the panes of a split is dragged to give one more room, as in Dolphin:
/// the press went to what was beneath it (a scrollbar, a row).
#[test]
fn the_split_divider_drags() {
    let fixture = Fixture::new();
    let mut ferry = fixture.start(Some(&fixture.home()));
    named(&mut ferry, Named::F3, Modifiers::empty());
    settle(&mut ferry);
    let widths = |ferry: &mut Ferry| {
        operations::lay_out(ferry);
        let panes: Vec<f32> = ferry.tabs.panes().map(|p| p.list_bounds().width).collect();
        panes
    };
    let before = widths(&mut ferry);
    assert!((before[0] - before[1]).abs() < 2.0, "{before:?}");
    // The divider is just left of the right pane (the new one, with the keyboard), 5 px wide.
    let right = ferry.tabs.active_pane().list_bounds();
    let at = Point::new(right.x - 4.0, right.center_y());
    let mut ui = simulator(ferry.view());
    ui.point_at(at);
    let pressed = iced::mouse::Event::ButtonPressed(iced::mouse::Button::Left);
    let _ = ui.simulate([iced::Event::Mouse(pressed)]);
    let to = at + iced::Vector::new(150.0, 0.0);
    ui.point_at(to);
    let moved = iced::mouse::Event::CursorMoved { position: to };
    let released = iced::mouse::Event::ButtonReleased(iced::mouse::Button::Left);
    let _ = ui.simulate([iced::Event::Mouse(moved), iced::Event::Mouse(released)]);
    let messages: Vec<Message> = ui.into_messages().collect();
    for message in messages {
        send(&mut ferry, message);
    }
    let after = widths(&mut ferry);
    assert!(
        (after[0] - before[0] - 150.0).abs() < 3.0 && (before[1] - after[1] - 150.0).abs() < 3.0,
        "{before:?} -> {after:?}"
    );
}

#[test]
fn keys_reach_the_active_pane_of_a_split_only() {
    let fixture = Fixture::new();
    let mut ferry = fixture.start(Some(&fixture.home()));
    named(&mut ferry, Named::F3, Modifiers::empty());
    settle(&mut ferry);
    assert!(ferry.tabs.is_split());
    // The new pane (right) has the keyboard: Down selects there only.
    named(&mut ferry, Named::ArrowDown, Modifiers::empty());
    let counts: Vec<usize> = ferry.tabs.panes().map(|p| p.selection().count()).collect();
    assert_eq!(counts, [0, 1]);
    // Tab gives the keyboard to the other pane; Enter opens there.
    named(&mut ferry, Named::Tab, Modifiers::empty());
    named(&mut ferry, Named::ArrowDown, Modifiers::empty());
    named(&mut ferry, Named::Enter, Modifiers::empty());
    settle(&mut ferry);
    let paths: Vec<PathBuf> = ferry.tabs.panes().map(|p| p.path().to_path_buf()).collect();
    assert_eq!(paths, [fixture.home().join("Documents"), fixture.home()]);
    // F3 again closes the pane with the keyboard, as Dolphin does by default.
    named(&mut ferry, Named::F3, Modifiers::empty());
    assert!(!ferry.tabs.is_split());
    assert_eq!(active_path(&ferry), fixture.home());
}

/// F3 twice gives back the pane as it was, its history too: the second F3 kept the new
/// pane, which has none, and Back was greyed.
#[test]
fn splitting_and_unsplitting_keeps_the_panes_history() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    let _ = ferry.update(Message::Command(Command::Open(home.join("Documents"))));
    settle(&mut ferry);
    named(&mut ferry, Named::F3, Modifiers::empty());
    named(&mut ferry, Named::F3, Modifiers::empty());
    assert_eq!(active_path(&ferry), home.join("Documents"));
    key(&mut ferry, Key::Named(Named::ArrowLeft), Modifiers::ALT);
    settle(&mut ferry);
    assert_eq!(active_path(&ferry), home);
}

#[test]
fn ctrl_q_saves_the_session_and_a_start_without_a_folder_restores_it() {
    let fixture = Fixture::new();
    let mut ferry = fixture.start(Some(&fixture.home()));
    ctrl(&mut ferry, "t");
    let _ = ferry.update(Message::Command(Command::Open(
        fixture.home().join("Music"),
    )));
    named(&mut ferry, Named::F3, Modifiers::empty());
    settle(&mut ferry);
    let _ = ferry.update(Message::Command(Command::Open(
        fixture.home().join("projects"),
    )));
    settle(&mut ferry);
    // Quit's save runs on a thread; here it is run directly.
    let session = ferry.tabs.session();
    fixture.store().save_session(&session).unwrap();
    drop(ferry);

    let restored = fixture.start(None);
    let paths: Vec<Vec<PathBuf>> = restored
        .tabs
        .session()
        .tabs
        .iter()
        .map(|t| t.panes.iter().map(|p| p.path.clone()).collect())
        .collect();
    assert_eq!(
        paths,
        [
            vec![fixture.home()],
            vec![
                fixture.home().join("Music"),
                fixture.home().join("projects")
            ]
        ]
    );
    assert_eq!(
        restored.title(),
        "projects — Ferry",
        "the active tab and pane too"
    );
    // Started with a folder, Ferry opens that instead.
    let asked = fixture.start(Some(&fixture.home().join("Documents")));
    assert_eq!(asked.tabs.count(), 1);
    assert_eq!(asked.title(), "Documents — Ferry");
}

#[test]
fn a_corrupt_settings_file_is_said_once_and_defaults_are_used() {
    let fixture = Fixture::new();
    let config = fixture.dir.path().join("config/ferry");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(config.join("settings.json"), "{ broken").unwrap();
    let ferry = fixture.start(Some(&fixture.home()));
    assert_eq!(ferry.services.settings, Settings::default());
    assert_eq!(ferry.toasts.len(), 1);
    assert!(
        ferry.toasts[0].text.contains("settings.json"),
        "{}",
        ferry.toasts[0].text
    );
    drop(ferry);
    let again = fixture.start(Some(&fixture.home()));
    assert!(again.toasts.is_empty(), "said once");
}

#[test]
fn hidden_files_and_zoom_apply_to_every_pane() {
    let fixture = Fixture::new();
    std::fs::write(fixture.home().join(".profile"), "").unwrap();
    let mut ferry = fixture.start(Some(&fixture.home()));
    named(&mut ferry, Named::F3, Modifiers::empty());
    settle(&mut ferry);
    ctrl(&mut ferry, "h");
    assert!(ferry.tabs.panes().all(browser::Browser::shows_hidden));
    assert!(ferry.settings_dirty);
}

#[test]
fn a_live_change_reaches_both_panes_on_the_folder() {
    let fixture = Fixture::new();
    let mut ferry = fixture.start(Some(&fixture.home()));
    named(&mut ferry, Named::F3, Modifiers::empty());
    settle(&mut ferry);
    std::fs::write(fixture.home().join("new-file.txt"), "").unwrap();
    let end = Instant::now() + Duration::from_secs(20);
    let has_it = |ferry: &Ferry| {
        ferry.tabs.panes().all(|p| {
            p.listing().contents().is_some_and(|c| {
                c.rows()
                    .iter()
                    .any(|&e| c.entries().entry(e as usize).name() == "new-file.txt")
            })
        })
    };
    while !has_it(&ferry) {
        let left = end.saturating_duration_since(Instant::now());
        let event = ferry.dir_events.recv_timeout(left).expect("a live change");
        let _ = ferry.update(Message::Dir(event));
    }
}

/// The window's application id (WM_CLASS on X11, empty before) is the desktop file's name and
/// its `StartupWMClass`, so that docks show the window with the file's icon.
#[test]
fn the_application_id_names_the_desktop_file() {
    let desktop = include_str!("../../../../packaging/linux/io.github.ferry.Ferry.desktop");
    assert_eq!(APP_ID, "io.github.ferry.Ferry");
    assert!(
        desktop
            .lines()
            .any(|l| l == format!("StartupWMClass={APP_ID}")),
        "{desktop}"
    );
}
