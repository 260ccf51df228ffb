//! Trash view flows: a trash built in a temporary folder (hand-written info files, and real
//! trash, restore and delete jobs of the core), shown through `iced_test`'s simulator, with
//! the messages it sends fed back to `update`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use ferry_core::jobs::{
    ConflictPolicy, Engine, Event as JobEvent, Job, StagingRoots, TrashRoots, TrashedItem, Volumes,
};
use iced::keyboard::key::Named;
use iced::keyboard::{Key, Modifiers};
use iced_test::simulator;

use super::*;
use crate::gui::modal::confirm::tests::ctx;
use crate::gui::picker;
use crate::gui::shortcut::Step;
use crate::gui::widget::context_menu::Entry;

/// A trash in a temporary folder.
struct Fixture {
    dir: tempfile::TempDir,
    roots: TrashRoots,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("Trash");
        for sub in ["files", "info"] {
            std::fs::create_dir_all(home.join(sub)).unwrap();
        }
        let roots = TrashRoots {
            home,
            volumes: Volumes::Only(vec![]),
        };
        Fixture { dir, roots }
    }

    /// A trashed file (or a folder, with `files` inside), as a trash job would leave it.
    fn put(&self, name: &str, original: &str, date: &str, files: &[(&str, usize)]) {
        let item = self.roots.home.join("files").join(name);
        if files.is_empty() {
            std::fs::write(&item, "x".repeat(100)).unwrap();
        } else {
            for (file, size) in files {
                let path = item.join(file);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, "x".repeat(*size)).unwrap();
            }
        }
        let info = format!("[Trash Info]\nPath={original}\nDeletionDate={date}\n");
        let info_path = self.roots.home.join(format!("info/{name}.trashinfo"));
        std::fs::write(info_path, info).unwrap();
    }

    /// Four items: a file, a folder, a small file and an unsafe entry.
    fn four() -> Fixture {
        let f = Fixture::new();
        f.put(
            "report.pdf",
            "/srv/docs/report.pdf",
            "2024-01-02T10:00:00",
            &[],
        );
        f.put(
            "photos",
            "/srv/pictures/photos",
            "2024-03-01T09:00:00",
            &[("a.jpg", 3000), ("b/c.jpg", 2000)],
        );
        f.put("a.txt", "/home/ann/notes/a.txt", "2024-02-01T08:00:00", &[]);
        f.put("evil", "/srv/../etc/evil", "2023-12-24T18:00:00", &[]);
        f
    }

    /// The view with the trash read (as the worker thread would).
    fn view(&self) -> Trash {
        let (mut trash, _read) = Trash::new(self.roots.clone(), &ctx(Modifiers::empty()));
        self.read(&mut trash);
        trash
    }

    /// Reads the trash for `trash`'s latest reload and hands it over.
    fn read(&self, trash: &mut Trash) -> Option<Event> {
        let loaded = load(&self.roots).map(Arc::new).map_err(Arc::new);
        let message = Message::Loaded(trash.generation, loaded);
        trash.update(message, &ctx(Modifiers::empty())).1
    }
}

/// Clicks each text in turn (with `modifiers` held) and feeds what was sent back.
fn click_with(trash: &mut Trash, targets: &[&str], modifiers: Modifiers) -> Vec<Event> {
    let mut events = Vec::new();
    for target in targets {
        let messages: Vec<Message> = {
            let mut ui = simulator(trash.view());
            ui.click(*target)
                .unwrap_or_else(|e| panic!("{target}: {e:?}"));
            ui.into_messages().collect()
        };
        for message in messages {
            events.extend(trash.update(message, &ctx(modifiers)).1);
        }
    }
    events
}

fn click(trash: &mut Trash, targets: &[&str]) -> Vec<Event> {
    click_with(trash, targets, Modifiers::empty())
}

/// True when the view, or the folder prompt the window puts over it, shows `target`.
fn shows(trash: &Trash, target: &str) -> bool {
    let dismiss = Message::Folder(crate::gui::modal::folder_prompt::Message::Cancelled);
    let view = crate::gui::modal::dialog(trash.view(), trash.restore_prompt(), dismiss);
    let mut ui = simulator(view);
    ui.find(target).is_ok()
}

fn names(items: &[TrashedItem]) -> Vec<String> {
    items
        .iter()
        .map(|i| i.name.to_string_lossy().into_owned())
        .collect()
}

#[test]
fn it_lists_every_item_newest_first_with_its_place_date_and_size() {
    let fixture = Fixture::four();
    let trash = fixture.view();
    assert_eq!(trash.names(), ["photos", "a.txt", "report.pdf", "evil"]);
    for shown in [
        "Name",
        "Original Location",
        "Deleted",
        "Size",
        "/srv/pictures",
        "5.0 kB",
        "1 Mar 2024",
        "unsafe",
        "4 items, 5.3 kB",
    ] {
        assert!(shows(&trash, shown), "{shown}");
    }
}

#[test]
fn the_home_folder_is_a_tilde_and_an_empty_trash_says_so() {
    let fixture = Fixture::four();
    let home = PathBuf::from("/home/ann");
    let ctx = Ctx {
        home: Some(&home),
        ..ctx(Modifiers::empty())
    };
    let (mut trash, _) = Trash::new(fixture.roots.clone(), &ctx);
    fixture.read(&mut trash);
    assert!(shows(&trash, "~/notes"));

    let empty = Fixture::new().view();
    assert!(empty.is_empty());
    assert!(shows(&empty, "The trash is empty"));
}

#[test]
fn each_column_sorts_both_ways() {
    let fixture = Fixture::four();
    let mut trash = fixture.view();
    click(&mut trash, &["Name"]);
    assert_eq!(trash.names(), ["a.txt", "evil", "photos", "report.pdf"]);
    click(&mut trash, &["Name"]);
    assert_eq!(trash.names(), ["report.pdf", "photos", "evil", "a.txt"]);
    click(&mut trash, &["Size"]);
    assert_eq!(
        trash.names(),
        ["a.txt", "evil", "report.pdf", "photos"],
        "ties by name"
    );
    click(&mut trash, &["Original Location"]);
    // "/home/ann/notes" < "/srv/.." < "/srv/docs" < "/srv/pictures"
    assert_eq!(trash.names(), ["a.txt", "evil", "report.pdf", "photos"]);
    click(&mut trash, &["Deleted"]);
    assert_eq!(trash.names(), ["evil", "report.pdf", "a.txt", "photos"]);
    click(&mut trash, &["Deleted"]);
    assert_eq!(trash.names(), ["photos", "a.txt", "report.pdf", "evil"]);
}

#[test]
fn restore_submits_a_restore_of_the_selection_that_asks_about_conflicts() {
    let fixture = Fixture::four();
    let mut trash = fixture.view();
    click(&mut trash, &["report.pdf"]);
    click_with(&mut trash, &["a.txt"], Modifiers::CTRL);
    assert!(shows(&trash, "4 items, 5.3 kB — 2 selected, 200 bytes"));
    let events = click(&mut trash, &["Restore"]);
    let [Event::Submit(Job::Restore { items, on_conflict })] = events.as_slice() else {
        panic!("{events:?}");
    };
    assert_eq!(*on_conflict, ConflictPolicy::Ask);
    assert_eq!(names(items), ["a.txt", "report.pdf"]);
    assert_eq!(items[1].original, Path::new("/srv/docs/report.pdf"));
    // Submitted: not offered again until the trash is read again.
    assert!(click(&mut trash, &["Restore"]).is_empty());
}

#[test]
fn shift_click_selects_a_range_and_the_unsafe_entry_is_left_to_restore_to() {
    let fixture = Fixture::four();
    let mut trash = fixture.view();
    click(&mut trash, &["a.txt"]);
    click_with(&mut trash, &["evil"], Modifiers::SHIFT);
    assert_eq!(
        names(&trash.selected_items()),
        ["a.txt", "report.pdf", "evil"]
    );
    let events = click(&mut trash, &["Restore"]);
    let [Event::Submit(Job::Restore { items, .. })] = events.as_slice() else {
        panic!("{events:?}");
    };
    assert_eq!(names(items), ["a.txt", "report.pdf"]);
    let notice = "“evil” names an unsafe place to restore to, so only Restore to… can restore it.";
    assert!(shows(&trash, notice));
    // Read again with the entry still there, the notice stays; once it is gone (restored
    // elsewhere, or the trash emptied), so is the notice.
    fixture.read(&mut trash);
    assert!(shows(&trash, notice));
    let evil = fixture.roots.home.join("files/evil");
    std::fs::remove_file(&evil).unwrap();
    std::fs::remove_file(fixture.roots.home.join("info/evil.trashinfo")).unwrap();
    fixture.read(&mut trash);
    assert!(!shows(&trash, notice));
}

#[test]
fn restore_to_restores_an_unsafe_entry_into_the_picked_folder() {
    let fixture = Fixture::four();
    let mut trash = fixture.view();
    click(&mut trash, &["evil"]);
    assert!(shows(&trash, "Restore to…"));
    let (_pick, event) = trash.update(Message::RestoreTo, &ctx(Modifiers::empty()));
    assert!(event.is_none());
    let dest = fixture.dir.path().join("rescued");
    let picked = Message::Picked(Picked::Folder(dest.clone()));
    let (_, event) = trash.update(picked, &ctx(Modifiers::empty()));
    let Some(Event::Submit(Job::Restore { items, on_conflict })) = event else {
        panic!("{event:?}");
    };
    assert_eq!(on_conflict, ConflictPolicy::Ask);
    let evil = fixture_item(&fixture, "evil");
    assert!(evil.unsafe_entry.is_some());
    assert_eq!(items, [evil.restore_to(&dest)]);
    assert!(items[0].chosen_folder && items[0].unsafe_entry.is_none());
}

/// Where no folder dialog runs, Restore to… asks in Ferry's own folder prompt, the one Copy
/// to… shows: a folder that is not there is refused in it, Tab completes, Escape closes it.
#[test]
fn without_a_folder_dialog_restore_to_asks_for_a_typed_folder() {
    use crate::gui::modal::folder_prompt::Message as Prompt;
    let fixture = Fixture::four();
    let mut trash = fixture.view();
    click(&mut trash, &["a.txt"]);
    let none = ctx(Modifiers::empty());
    let _ = trash.update(Message::RestoreTo, &none);
    let _ = trash.update(Message::Picked(Picked::Unavailable), &none);
    assert!(shows(&trash, "Restore “a.txt” to"));
    let tab = trash.key(&Key::Named(Named::Tab), Modifiers::empty());
    assert!(
        matches!(tab, Some(Message::Folder(Prompt::Complete))),
        "{tab:?}"
    );
    assert!(
        trash
            .key(&Key::Named(Named::Delete), Modifiers::empty())
            .is_none(),
        "modal"
    );
    let gone = fixture.dir.path().join("nowhere");
    let _ = trash.update(
        Message::Folder(Prompt::Edited(gone.display().to_string())),
        &none,
    );
    let _ = trash.update(Message::Folder(Prompt::Submitted), &none);
    let checked = Prompt::Checked(gone.clone(), picker::check_folder(&gone));
    assert!(trash.update(Message::Folder(checked), &none).1.is_none());
    assert!(shows(
        &trash,
        &format!("There is no folder “{}”.", gone.display())
    ));
    let here = fixture.dir.path().to_path_buf();
    let _ = trash.update(
        Message::Folder(Prompt::Edited(here.display().to_string())),
        &none,
    );
    let _ = trash.update(Message::Folder(Prompt::Submitted), &none);
    let checked = Prompt::Checked(here.clone(), picker::check_folder(&here));
    let Some(Event::Submit(Job::Restore { items, .. })) =
        trash.update(Message::Folder(checked), &none).1
    else {
        panic!("no restore");
    };
    assert_eq!(items[0].original, here.join("a.txt"));
    assert!(!shows(&trash, "Restore “a.txt” to"));
    assert!(!trash.asks_folder());
}

#[test]
fn empty_trash_asks_with_what_the_trash_holds_now() {
    let fixture = Fixture::four();
    let mut trash = fixture.view();
    // Trashed meanwhile by another program: counted too.
    fixture.put("late.txt", "/srv/late.txt", "2024-04-01T00:00:00", &[]);
    assert!(click(&mut trash, &["Empty Trash"]).is_empty());
    let Some(Event::Confirm(question)) = fixture.read(&mut trash) else {
        panic!("no question");
    };
    assert_eq!(question.title(), "Empty the trash: 5 items, 5.4\u{a0}kB?");
    assert_eq!(question.confirm_label(), "Empty Trash");
    assert!(question.is_danger());
    let (_, event) = trash.update(
        Message::Confirmed(question.token().clone()),
        &ctx(Modifiers::empty()),
    );
    let Some(Event::Submit(Job::EmptyTrash { roots, listed })) = event else {
        panic!("{event:?}");
    };
    assert_eq!(roots, fixture.roots);
    // What the question counted, and nothing trashed after it.
    assert_eq!(listed.map(|l| l.len()), Some(5));
}

#[test]
fn delete_permanently_asks_then_deletes() {
    let fixture = Fixture::four();
    let mut trash = fixture.view();
    click(&mut trash, &["photos"]);
    click_with(&mut trash, &["report.pdf"], Modifiers::CTRL);
    let events = click(&mut trash, &["Delete Permanently"]);
    let [Event::Confirm(question)] = events.as_slice() else {
        panic!("{events:?}");
    };
    assert_eq!(
        question.title(),
        "Permanently delete 1 folder and 1 file, 5.1\u{a0}kB?"
    );
    assert!(question.is_danger());
    let Pending::Delete(asked) = question.token() else {
        panic!("not a delete");
    };
    assert_eq!(names(asked), ["photos", "report.pdf"]);
    let (_, event) = trash.update(
        Message::Confirmed(question.token().clone()),
        &ctx(Modifiers::empty()),
    );
    // Each item as listed: the window deletes it if it still is (else it asks again).
    let Some(Event::DeleteListed { listed, names }) = event else {
        panic!("{event:?}");
    };
    let files = fixture.roots.home.join("files");
    let paths: Vec<PathBuf> = listed.iter().map(|(p, _)| p.clone()).collect();
    assert_eq!(paths, [files.join("photos"), files.join("report.pdf")]);
    let said: Vec<_> = names.iter().map(|(p, n)| (p.clone(), n.clone())).collect();
    let name = |file: &str, was: &str| (files.join(file), was.into());
    assert_eq!(
        said,
        [name("photos", "photos"), name("report.pdf", "report.pdf")]
    );
    for (path, (id, kind)) in &listed {
        let m = ferry_core::fs::stat_at(rustix::fs::CWD, path).unwrap();
        assert_eq!((m.id, m.kind), (*id, *kind), "{}", path.display());
    }

    // The job the window submits, then the reload it asks for when the job ends. (The job
    // removes their info files too, in the user's trash only: see the `trash_cli` tests.)
    run(Job::Delete { paths });
    let _read = trash.reload();
    fixture.read(&mut trash);
    assert_eq!(trash.names(), ["a.txt", "evil"]);
}

#[test]
fn a_file_trashed_then_restored_from_the_view_is_back_in_its_place() {
    let fixture = Fixture::new();
    let folder = fixture.dir.path().join("work");
    std::fs::create_dir_all(&folder).unwrap();
    let file = folder.join("notes.txt");
    std::fs::write(&file, "keep me").unwrap();
    run(Job::Trash {
        paths: vec![file.clone()],
        roots: fixture.roots.clone(),
    });
    assert!(!file.exists());
    // The folder went too: the restore makes it again.
    std::fs::remove_dir(&folder).unwrap();

    let mut trash = fixture.view();
    assert_eq!(trash.names(), ["notes.txt"]);
    click(&mut trash, &["notes.txt"]);
    let events = click(&mut trash, &["Restore"]);
    let [Event::Submit(job)] = events.as_slice() else {
        panic!("{events:?}");
    };
    run(job.clone());
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "keep me");
    let _read = trash.reload();
    fixture.read(&mut trash);
    assert!(trash.is_empty());
}

fn press(trash: &mut Trash, key: &Key, modifiers: Modifiers) -> Option<Event> {
    let message = trash.key(key, modifiers);
    message.and_then(|m| trash.update(m, &ctx(modifiers)).1)
}

/// Ctrl+arrows move the focus alone and Ctrl+Space picks the focused item: items apart are
/// selected from the keyboard, as in Dolphin.
#[test]
fn ctrl_arrows_and_ctrl_space_select_items_apart() {
    let fixture = Fixture::four();
    let mut trash = fixture.view();
    let (down, space) = (Key::Named(Named::ArrowDown), Key::Named(Named::Space));
    press(&mut trash, &down, Modifiers::empty());
    let first = names(&trash.selected_items());
    press(&mut trash, &down, Modifiers::CTRL);
    press(&mut trash, &down, Modifiers::CTRL);
    assert_eq!(
        names(&trash.selected_items()),
        first,
        "the focus moved alone"
    );
    press(&mut trash, &space, Modifiers::CTRL);
    let both = names(&trash.selected_items());
    assert_eq!(both.len(), 2);
    assert!(both.contains(&"report.pdf".to_owned()), "{both:?}");
    press(&mut trash, &space, Modifiers::CTRL);
    assert_eq!(names(&trash.selected_items()), first);
}

/// Every key the Keyboard Shortcuts dialog lists for the Trash view does something there.
#[test]
fn the_keys_listed_in_the_shortcuts_dialog_act() {
    let fixture = Fixture::four();
    let mut trash = fixture.view();
    press(
        &mut trash,
        &Key::Named(Named::ArrowDown),
        Modifiers::empty(),
    );
    for (what, label) in super::KEYS {
        for (key, modifiers) in crate::gui::shortcut::parse_keys(label) {
            let message = trash.key(&key, modifiers);
            assert!(message.is_some(), "{what}: {key:?} {modifiers:?}");
        }
    }
}

#[test]
fn keys_move_select_and_act() {
    let fixture = Fixture::four();
    let mut trash = fixture.view();
    let none = Modifiers::empty();
    press(&mut trash, &Key::Named(Named::ArrowDown), none);
    press(&mut trash, &Key::Named(Named::ArrowDown), none);
    assert_eq!(names(&trash.selected_items()), ["a.txt"]);
    press(&mut trash, &Key::Named(Named::ArrowDown), Modifiers::SHIFT);
    assert_eq!(names(&trash.selected_items()), ["a.txt", "report.pdf"]);
    press(&mut trash, &Key::Named(Named::End), none);
    assert_eq!(names(&trash.selected_items()), ["evil"]);
    press(&mut trash, &Key::Character("a".into()), Modifiers::CTRL);
    assert_eq!(trash.selected_items().len(), 4);
    let event = press(&mut trash, &Key::Named(Named::Delete), none);
    assert!(matches!(event, Some(Event::Confirm(_))), "{event:?}");
    let event = press(&mut trash, &Key::Named(Named::F10), Modifiers::SHIFT);
    assert!(matches!(
        event,
        Some(Event::ContextMenu { on_items: true, .. })
    ));
    let event = press(&mut trash, &Key::Character("r".into()), Modifiers::ALT);
    assert!(matches!(event, Some(Event::Submit(Job::Restore { .. }))));
    press(&mut trash, &Key::Named(Named::Escape), none);
    assert!(trash.selected_items().is_empty());
    let empty = trash.key(&Key::Character("e".into()), Modifiers::ALT);
    assert!(matches!(empty, Some(Message::EmptyTrash)), "{empty:?}");
}

#[test]
fn the_context_menu_acts_on_the_selection() {
    let fixture = Fixture::four();
    let mut trash = fixture.view();
    click(&mut trash, &["evil"]);
    let entries = trash.menu(true);
    let enabled = |label: &str| {
        entries
            .iter()
            .any(|e| matches!(e, Entry::Item { label: l, message: Some(_), .. } if l == label))
    };
    assert!(
        !enabled("Restore"),
        "an unsafe entry is not restored in place"
    );
    assert!(enabled("Restore to…") && enabled("Delete Permanently"));
    assert!(!enabled("Open Original Folder"));
    click(&mut trash, &["report.pdf"]);
    let (_, event) = trash.update(Message::OpenOriginalFolder, &ctx(Modifiers::empty()));
    let Some(Event::OpenFolder(folder)) = event else {
        panic!("{event:?}");
    };
    assert_eq!(folder, Path::new("/srv/docs"));
    assert!(
        trash
            .menu(false)
            .iter()
            .any(|e| matches!(e, Entry::Item { label, .. } if label == "Empty Trash"))
    );
}

#[test]
fn twenty_thousand_items_build_only_the_visible_rows() {
    let Fixture { dir: _dir, roots } = Fixture::new();
    let files = roots.home.join("files");
    let items: Vec<TrashedItem> = (0..20_000_u32)
        .map(|i| {
            let name = format!("file-{i:05}.txt");
            TrashedItem {
                name: name.clone().into(),
                original: PathBuf::from(format!("/srv/many/{name}")),
                trashed_from: PathBuf::from(format!("/srv/many/{name}")),
                unsafe_entry: None,
                chosen_folder: false,
                deletion_date: String::new(),
                deleted_at: Some(1_700_000_000 + i64::from(i)),
                kind: ferry_core::entry::Kind::File,
                size: u64::from(i),
                id: ferry_core::fs::FileId {
                    dev: 1,
                    ino: u64::from(i),
                },
                mtime: ferry_core::fs::Timestamp::default(),
                file: files.join(&name),
                info: roots.home.join(format!("info/{name}.trashinfo")),
            }
        })
        .collect();
    let (mut trash, _) = Trash::new(roots, &ctx(Modifiers::empty()));
    let first_two = items[..2].to_vec();
    let loaded = Message::Loaded(trash.generation, Ok(Arc::new(Loaded::new(items))));
    let _ = trash.update(loaded, &ctx(Modifiers::empty()));
    click(&mut trash, &["Name"]);
    assert!(shows(&trash, "file-00000.txt"));
    assert!(!shows(&trash, "file-19999.txt"), "built though far below");
    let started = std::time::Instant::now();
    let _ = trash.view();
    assert!(
        started.elapsed() < Duration::from_millis(200),
        "a frame costs the visible rows: {:?}",
        started.elapsed()
    );
    let none = ctx(Modifiers::empty());
    let _ = trash.update(Message::Step(Step::Last, false), &none);
    assert!(shows(&trash, "file-19999.txt"));
    assert!(shows(
        &trash,
        "20,000 items, 200.0 MB — 1 selected, 20.0 kB"
    ));
    // All but the first two deleted (elsewhere): the list, scrolled to its end, comes back
    // within its rows, where it stayed blank.
    let loaded = Message::Loaded(trash.generation, Ok(Arc::new(Loaded::new(first_two))));
    let _ = trash.update(loaded, &none);
    assert!(shows(&trash, "file-00000.txt"), "a blank list");
    assert!(shows(&trash, "file-00001.txt"));
}

fn fixture_item(fixture: &Fixture, name: &str) -> TrashedItem {
    load(&fixture.roots)
        .unwrap()
        .items()
        .iter()
        .find(|i| i.name == name)
        .cloned()
        .unwrap()
}

/// Runs `job` on an engine of its own, keeping nothing outside the test's folder.
fn run(job: Job) {
    let staging = StagingRoots {
        home: None,
        volumes: false,
    };
    let (engine, events) = Engine::start_with(staging);
    let id = engine.submit(job);
    loop {
        match events.recv_timeout(Duration::from_secs(30)).unwrap() {
            JobEvent::Finished { job, summary } if job == id => {
                assert!(summary.failed.is_empty(), "{:?}", summary.failed);
                return;
            }
            JobEvent::Cancelled { job, .. } if job == id => panic!("cancelled"),
            JobEvent::Conflicts { .. } | JobEvent::ItemError { .. } => panic!("asked"),
            _ => {}
        }
    }
}

/// Another program trashes an item while the view is open: the view reads the trash again
/// (it stayed as it was until F5), and only when the trash folders changed.
#[test]
fn the_view_follows_what_other_programs_trash() {
    let fixture = Fixture::four();
    let mut trash = fixture.view();
    let stamped = |trash: &mut Trash| {
        let _ = trash.update(Message::Tick, &ctx(Modifiers::empty()));
        let stamp = ferry_core::jobs::trash_stamp(&fixture.roots);
        let message = Message::Stamped(trash.generation, stamp);
        let _ = trash.update(message, &ctx(Modifiers::empty()));
    };
    let generation = trash.generation;
    stamped(&mut trash);
    assert_eq!(
        trash.generation, generation,
        "nothing changed: not read again"
    );
    // The directory times have a coarse clock: a change must land after it ticks.
    std::thread::sleep(Duration::from_millis(20));
    fixture.put("new.txt", "/srv/docs/new.txt", "2024-05-01T10:00:00", &[]);
    stamped(&mut trash);
    assert_eq!(trash.generation, generation + 1, "read again");
    fixture.read(&mut trash);
    assert_eq!(trash.names()[0], "new.txt");
}

/// The notice about unsafe entries counts those still in the trash: "2 entries" stayed when
/// one of them had gone.
#[test]
fn the_unsafe_entries_notice_counts_those_left() {
    let fixture = Fixture::four();
    fixture.put("worse", "/srv/../etc/worse", "2023-12-25T18:00:00", &[]);
    let mut trash = fixture.view();
    click(&mut trash, &["a.txt"]);
    click_with(&mut trash, &["evil"], Modifiers::CTRL);
    click_with(&mut trash, &["worse"], Modifiers::CTRL);
    click(&mut trash, &["Restore"]);
    let two = "2 entries name an unsafe place to restore to, so only Restore to… can restore them.";
    assert!(shows(&trash, two));
    std::fs::remove_file(fixture.roots.home.join("files/worse")).unwrap();
    std::fs::remove_file(fixture.roots.home.join("info/worse.trashinfo")).unwrap();
    fixture.read(&mut trash);
    assert!(!shows(&trash, two));
    let one = "“evil” names an unsafe place to restore to, so only Restore to… can restore it.";
    assert!(shows(&trash, one));
}

fn focused_name(trash: &Trash) -> Option<String> {
    let focus = trash.selection.focus()?;
    let item = trash.loaded()?.item(focus)?;
    Some(item.name.to_string_lossy().into_owned())
}

/// Letters go to a name, as in a folder and in Dolphin's `trash:/` (they did nothing); an
/// item gone from the trash (restored, deleted) leaves the keyboard on the next, where it
/// was left on nothing.
#[test]
fn letters_find_an_item_and_the_focus_goes_on_when_it_leaves() {
    let f = Fixture::four();
    let mut trash = f.view();
    click(&mut trash, &["Name"]);
    let none = ctx(Modifiers::empty());
    for c in ['p', 'h'] {
        let _ = trash.update(Message::TypeAhead(c), &none);
    }
    assert_eq!(focused_name(&trash).as_deref(), Some("photos"));
    assert_eq!(trash.selection.count(), 1);
    // Name order: a.txt, evil, photos, report.pdf. photos goes: report.pdf has the keyboard.
    std::fs::remove_dir_all(f.roots.home.join("files/photos")).unwrap();
    std::fs::remove_file(f.roots.home.join("info/photos.trashinfo")).unwrap();
    let _ = trash.update(Message::Reload, &none);
    f.read(&mut trash);
    assert_eq!(focused_name(&trash).as_deref(), Some("report.pdf"));
}

/// A trash of `names` trashed from a home folder, sorted by name, the keyboard on "a2".
fn trashed_from_home(names: &[&str]) -> (Fixture, PathBuf, Trash) {
    let f = Fixture::new();
    let home = f.dir.path().join("home");
    for name in names {
        let original = home.join(name);
        f.put(name, original.to_str().unwrap(), "2024-01-02T10:00:00", &[]);
    }
    let mut trash = f.view();
    click(&mut trash, &["Name"]);
    let none = ctx(Modifiers::empty());
    for c in "a2".chars() {
        let _ = trash.update(Message::TypeAhead(c), &none);
    }
    (f, home, trash)
}

/// Restored with Alt+R, the item goes and the next is selected, so that Alt+R again restores
/// it, as Delete twice does in a folder (the next was only focused, the buttons greyed).
#[test]
fn a_restore_selects_the_next_item() {
    let (f, home, mut trash) = trashed_from_home(&["a1", "a2", "a3"]);
    let none = ctx(Modifiers::empty());
    let (_, event) = trash.update(Message::Restore, &none);
    let Some(Event::Submit(job)) = event else {
        panic!("{event:?}");
    };
    run(job);
    assert!(home.join("a2").exists(), "restored where it came from");
    let _ = trash.update(Message::Reload, &none);
    f.read(&mut trash);
    assert_eq!(focused_name(&trash).as_deref(), Some("a3"));
    assert_eq!(trash.selection.count(), 1, "selected, not only focused");
}

/// Two restored at once (a2, then Shift+Down to a3): the item after them is selected. The
/// row a3 had was kept, which went on to a5, two rows below: a Delete next acted on an item
/// the user never picked.
#[test]
fn a_restore_of_several_selects_the_item_after_them() {
    let (f, _, mut trash) = trashed_from_home(&["a1", "a2", "a3", "a4", "a5"]);
    let none = ctx(Modifiers::empty());
    let _ = trash.update(Message::Step(Step::Down, true), &none);
    assert_eq!(trash.selection.count(), 2);
    let (_, event) = trash.update(Message::Restore, &none);
    let Some(Event::Submit(job)) = event else {
        panic!("{event:?}");
    };
    run(job);
    let _ = trash.update(Message::Reload, &none);
    f.read(&mut trash);
    assert_eq!(focused_name(&trash).as_deref(), Some("a4"));
    assert_eq!(trash.selection.count(), 1);
}

/// Items alike in every column (one name, deleted in the same second from two folders) keep
/// their order whatever order the trash lists them in: it came from the listing, and the
/// focused row swapped places on every refresh (Delete there deletes for good).
#[test]
fn ties_keep_their_order_whatever_the_listing() {
    let fixture = Fixture::new();
    let date = "2024-05-01T10:00:00";
    fixture.put("f50", "/srv/b/f50", date, &[]);
    fixture.put("f50.2", "/srv/a/f50", date, &[]);
    fixture.put("f50.3", "/srv/a/f50", date, &[]);
    let listed = ferry_core::jobs::list_trash_in(&fixture.roots).unwrap();
    let shown = |items: Vec<TrashedItem>| {
        let loaded = Loaded::new(items);
        (loaded.order(Sort::default()).into_iter())
            .map(|i| loaded.item(i).unwrap().file.clone())
            .collect::<Vec<_>>()
    };
    let forward = shown(listed.clone());
    assert_eq!(forward, shown(listed.into_iter().rev().collect()));
    let files: Vec<_> = forward.iter().map(|f| f.file_name().unwrap()).collect();
    assert_eq!(
        files,
        ["f50.2", "f50.3", "f50"],
        "by folder, then name in the trash"
    );
}

/// The headers cannot be reached from the keyboard: the view's menu (Shift+F10) sorts by
/// each column, either way, the current one checked.
#[test]
fn the_view_menu_sorts_by_each_column() {
    let fixture = Fixture::four();
    let mut trash = fixture.view();
    let choose = |trash: &mut Trash, label: &str| {
        let message = trash.menu(false).into_iter().find_map(|e| match e {
            Entry::Item {
                label: l, message, ..
            } if l == label => message,
            _ => None,
        });
        let _ = trash.update(message.expect(label), &ctx(Modifiers::empty()));
    };
    let checked = |trash: &Trash| {
        (trash.menu(false).into_iter())
            .filter_map(|e| match e {
                Entry::Item {
                    label,
                    checked: true,
                    ..
                } => Some(label),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(checked(&trash), ["Deleted", "Descending"]);
    choose(&mut trash, "Name");
    assert_eq!(trash.names(), ["report.pdf", "photos", "evil", "a.txt"]);
    choose(&mut trash, "Descending");
    assert_eq!(trash.names(), ["a.txt", "evil", "photos", "report.pdf"]);
    assert_eq!(checked(&trash), ["Name"]);
    choose(&mut trash, "Size");
    assert_eq!(trash.names(), ["a.txt", "evil", "report.pdf", "photos"]);
}
