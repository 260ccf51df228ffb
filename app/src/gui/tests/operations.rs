//! Operations on items in the window, with the window's own engine, journal and trash (the
//! fixture's): copy and paste, cut, rename, new folder, trash and undo, and the toasts that
//! say them (drags are in `drags.rs`).

use std::fs;

use crossbeam_channel::select;

use super::*;
use crate::gui::modal::{conflict, name_prompt};

/// Feeds the listing service's and the engine's events to the window until `done` holds.
pub(super) fn until(ferry: &mut Ferry, what: &str, done: impl Fn(&Ferry) -> bool) {
    let end = Instant::now() + Duration::from_secs(30);
    while !done(ferry) {
        let left = end.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "timed out waiting for {what}");
        let dirs = ferry.dir_events.clone();
        let jobs = ferry.jobs.events().clone();
        select! {
            recv(dirs) -> event => send(ferry, Message::Dir(event.unwrap())),
            recv(jobs) -> event => send(ferry, Message::Job(event.unwrap())),
            default(left.min(Duration::from_millis(100))) => {}
        }
    }
}

/// Until every job of the window has ended and every pane shows its folder's change.
pub(super) fn jobs_done(ferry: &mut Ferry) {
    until(ferry, "the jobs", |f| {
        f.jobs.window_jobs().next().is_some() && f.jobs.running() == 0
    });
}

/// Selects the entry `name` of the active pane with a click on it.
pub(super) fn select(ferry: &mut Ferry, name: &str) {
    click(ferry, name);
    let selected = ferry.tabs.active_pane().selected_paths();
    assert_eq!(
        selected,
        [active_path(ferry).join(name)],
        "selecting {name}"
    );
}

pub(super) fn go(ferry: &mut Ferry, path: &Path) {
    send(
        ferry,
        Message::Tabs(tabs::Message::Pane(
            ferry.tabs.active_pane().view_id(),
            browser::Message::Navigate(path.to_path_buf()),
        )),
    );
    settle(ferry);
}

pub(super) fn shows_toast(ferry: &Ferry, text: &str) -> bool {
    ferry.toasts.iter().any(|t| t.text.contains(text))
}

/// `Documents/a.txt` copied (Ctrl+C) and pasted into `Music`, then into `projects`: two
/// jobs, each ended.
fn pasted_into_music_then_projects(ferry: &mut Ferry, home: &std::path::Path) {
    select(ferry, "a.txt");
    ctrl(ferry, "c");
    for to in [home.join("Music"), home.join("projects")] {
        go(ferry, &to);
        ctrl(ferry, "v");
        jobs_done(ferry);
        assert!(to.join("a.txt").exists());
    }
}

/// Asserts that a toast says `text` (the toasts there are, if not).
#[track_caller]
pub(super) fn assert_toast(ferry: &Ferry, text: &str) {
    assert!(shows_toast(ferry, text), "{:?}", ferry.toasts);
}

/// The window started in `home/src`, all it holds (`last` among it) copied with Ctrl+A,
/// Ctrl+C, then pasted into `home/dst` with Ctrl+V.
pub(super) fn src_pasted_into_dst(fixture: &Fixture, home: &std::path::Path, last: &str) -> Ferry {
    let mut ferry = fixture.start(Some(&home.join("src")));
    until(&mut ferry, "src listed", |f| super::shows(f, last));
    ctrl(&mut ferry, "a");
    ctrl(&mut ferry, "c");
    go(&mut ferry, &home.join("dst"));
    ctrl(&mut ferry, "v");
    ferry
}

/// The window after `Documents/a.txt` of `home` was copied (Ctrl+C, Ctrl+V) into `Music`.
fn a_txt_copied_to_music(fixture: &Fixture, home: &std::path::Path) -> Ferry {
    let mut ferry = fixture.start(Some(&home.join("Documents")));
    select(&mut ferry, "a.txt");
    ctrl(&mut ferry, "c");
    go(&mut ferry, &home.join("Music"));
    ctrl(&mut ferry, "v");
    jobs_done(&mut ferry);
    ferry
}

#[test]
fn a_copy_pastes_into_another_folder_and_undo_takes_it_back() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = a_txt_copied_to_music(&fixture, &home);
    assert_eq!(fs::read(home.join("Music/a.txt")).unwrap(), b"x");
    assert!(
        home.join("Documents/a.txt").exists(),
        "a copy leaves the original"
    );
    assert_toast(&ferry, "Copied “a.txt” to “Music”.");
    until(&mut ferry, "the new file listed", |f| shows(f, "a.txt"));

    // The toast's Undo, as Ctrl+Z: the copy goes, the original stays.
    ctrl(&mut ferry, "z");
    until(&mut ferry, "the undo", |_| {
        !home.join("Music/a.txt").exists()
    });
    jobs_done(&mut ferry);
    assert!(home.join("Documents/a.txt").exists());
}

/// The window menu's Undo and Redo are read again when it opens: after an undo by the command
/// line (which shares the journal) it still offered to undo that job, and undid the one before
/// it. Each entry now undoes or redoes the record it names, and no other.
#[test]
fn the_window_menu_reads_undo_and_redo_again_and_acts_on_what_it_names() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = a_txt_copied_to_music(&fixture, &home);
    until(&mut ferry, "the labels", |f| f.jobs.labels().undo.is_some());
    let seq = ferry.jobs.labels().undo_seq.expect("the copy's record");
    let undo_label = |f: &Ferry| {
        (f.menu_entries(&menus::MenuKind::Window).iter()).find_map(|e| match e {
            context_menu::Entry::Item { label, .. } if label.starts_with("Undo") => {
                Some(label.clone())
            }
            _ => None,
        })
    };
    named(&mut ferry, Named::F10, Modifiers::empty());
    let label = undo_label(&ferry).unwrap();
    assert!(label.starts_with("Undo: Copy “a."), "{label}");
    assert!(shows(&ferry, &label), "the menu is open");
    named(&mut ferry, Named::Escape, Modifiers::empty());

    // `ferry undo` in a terminal, as far as the journal can tell.
    let journal = ferry_core::jobs::UndoJournal::at(fixture.stores().journal.unwrap());
    let undid = ferry_core::jobs::Summary {
        done: vec![home.join("Music/a.txt")],
        ..ferry_core::jobs::Summary::default()
    };
    journal.mark_undone(seq, &undid).unwrap();
    named(&mut ferry, Named::F10, Modifiers::empty());
    until(&mut ferry, "the labels read again", |f| {
        f.jobs.labels().undo.is_none()
    });
    assert!(shows(&ferry, "Undo (nothing to undo)"));
    let entries = ferry.menu_entries(&menus::MenuKind::Window);
    let redo = entries.iter().find_map(|e| match e {
        context_menu::Entry::Item { label, message, .. } if label.starts_with("Redo") => {
            Some(message.clone())
        }
        _ => None,
    });
    assert!(
        matches!(redo, Some(Some(menus::Command::RedoRecord(s))) if s == seq),
        "{redo:?}"
    );
}

/// A redo right after an undo says what it did, alone: its toast read "Undid: Copy “a.txt” to
/// “Music”. Copied “a.txt” to “Music”.", the undo's word joined before it.
#[test]
fn a_redo_says_what_it_did_without_the_undos_word() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = a_txt_copied_to_music(&fixture, &home);
    ctrl(&mut ferry, "z");
    jobs_done(&mut ferry);
    until(&mut ferry, "the undo's end recorded", |f| f.recording == 0);
    assert!(!home.join("Music/a.txt").exists());
    let keys = Modifiers::CTRL | Modifiers::SHIFT;
    key(&mut ferry, Key::Character("z".into()), keys);
    jobs_done(&mut ferry);
    until(&mut ferry, "the redo", |_| {
        home.join("Music/a.txt").exists()
    });
    let texts: Vec<&str> = ferry.toasts.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(texts, ["Copied “a.txt” to “Music”."]);
}

/// Ctrl+Z again while an undo runs: it waited unseen for the journal, then undid the job
/// before too (40,000 more files to the trash). It is refused, and said so.
#[test]
fn ctrl_z_while_an_undo_runs_is_refused() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home.join("Documents")));
    pasted_into_music_then_projects(&mut ferry, &home);
    ctrl(&mut ferry, "z");
    ctrl(&mut ferry, "z");
    assert_toast(&ferry, "An undo or redo is under way: wait for it to end.");
    jobs_done(&mut ferry);
    until(&mut ferry, "the undo's end recorded", |f| f.recording == 0);
    assert!(!home.join("projects/a.txt").exists(), "the newest undone");
    assert!(home.join("Music/a.txt").exists(), "and only it");

    // `ferry undo` in a terminal holds the journal: Ctrl+Z waited for it unseen, then undid
    // the job before. Refused, and said so.
    let journal = ferry_core::jobs::UndoJournal::at(fixture.stores().journal.unwrap());
    let held = journal.writer().unwrap();
    ctrl(&mut ferry, "z");
    assert_toast(
        &ferry,
        "Another undo, redo or resume is under way, perhaps in a terminal: wait for it to end.",
    );
    drop(held);
    assert!(home.join("Music/a.txt").exists(), "nothing more undone");
    ctrl(&mut ferry, "z");
    until(&mut ferry, "the next undo", |_| {
        !home.join("Music/a.txt").exists()
    });
    jobs_done(&mut ferry);
}

/// One toast at a time, over the list's foot: the newest replaces the one before, whose
/// message goes first in it when it was shown a moment before (else unread), without its
/// buttons. Three stacked covered the middle of the file list.
#[test]
fn one_toast_at_a_time_with_the_message_just_before() {
    let fixture = Fixture::new();
    let mut ferry = fixture.start(Some(&fixture.home()));
    ferry.toast("First.".to_owned());
    ferry.toast("Second.".to_owned());
    ferry.toast("Third.".to_owned());
    let texts: Vec<&str> = ferry.toasts.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(texts, ["Second. Third."]);
    ferry.toasts[0].shown -= std::time::Duration::from_secs(3);
    ferry.toast("Fourth.".to_owned());
    let texts: Vec<&str> = ferry.toasts.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(texts, ["Fourth."], "read by now: replaced");
    // One with Undo is never joined: its Undo would have seemed to undo both.
    let undo = (String::from("Undo"), Command::UndoRecord(1));
    ferry.toast_with("Moved “a” to the trash.".to_owned(), vec![undo]);
    ferry.toast("Moved “b” to the trash.".to_owned());
    let texts: Vec<&str> = ferry.toasts.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(texts, ["Moved “b” to the trash."]);
}

/// A toast's Undo undoes the newest job: once another job or an undo has come, older toasts
/// no longer offer it (clicked, it would have undone something other than what they name).
/// One toast is shown at a time, the newest.
#[test]
fn only_the_newest_jobs_toast_offers_undo() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home.join("Documents")));
    let offers = |f: &Ferry| {
        (f.toasts.iter())
            .filter(|t| t.actions.iter().any(|(label, _)| label == "Undo"))
            .count()
    };
    pasted_into_music_then_projects(&mut ferry, &home);
    assert_eq!(ferry.toasts.len(), 1, "{:?}", ferry.toasts);
    assert_eq!(offers(&ferry), 1, "{:?}", ferry.toasts);
    assert!(shows_toast(&ferry, "Copied “a.txt” to “projects”."));

    ctrl(&mut ferry, "z");
    until(&mut ferry, "the undo", |_| {
        !home.join("projects/a.txt").exists()
    });
    jobs_done(&mut ferry);
    assert!(home.join("Music/a.txt").exists(), "only the newest undone");
    assert_eq!(offers(&ferry), 0, "{:?}", ferry.toasts);
    // The panel's row of the job undone says so; the other's does not.
    assert_eq!(
        ended_jobs_said(&ferry),
        [
            "Copied “a.txt” to “Music”.",
            "Copied “a.txt” to “projects”. Undone since."
        ]
    );
}

#[test]
fn a_cut_pasted_moves_once_and_empties_the_clipboard() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home.join("Documents")));
    select(&mut ferry, "b.txt");
    ctrl(&mut ferry, "x");
    assert!(ferry.clip.as_ref().is_some_and(|c| c.cut));
    go(&mut ferry, &home);
    ctrl(&mut ferry, "v");
    jobs_done(&mut ferry);
    assert!(home.join("b.txt").exists() && !home.join("Documents/b.txt").exists());
    assert!(ferry.clip.is_none(), "a cut pastes once");
    ctrl(&mut ferry, "v");
    assert!(shows_toast(&ferry, "There is nothing to paste."));
}

#[test]
fn f2_renames_in_place_and_the_item_stays_selected() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home.join("Documents")));
    select(&mut ferry, "a.txt");
    named(&mut ferry, Named::F2, Modifiers::empty());
    assert!(ferry.tabs.active_pane().is_renaming());
    let view = ferry.tabs.active_pane().view_id();
    let pane = |m| Message::Tabs(tabs::Message::Pane(view, m));
    send(
        &mut ferry,
        pane(browser::Message::RenameEdited("alpha.txt".into())),
    );
    send(&mut ferry, pane(browser::Message::RenameSubmitted));
    jobs_done(&mut ferry);
    assert!(home.join("Documents/alpha.txt").exists() && !home.join("Documents/a.txt").exists());
    let renamed = home.join("Documents/alpha.txt");
    until(&mut ferry, "the new name selected", |f| {
        f.tabs.active_pane().selected_paths() == [renamed.clone()]
    });
}

/// Ctrl+Z typed in a text field (the rename editor here) does not undo a file job the user
/// is not looking at; once the field is closed it does. A rename undone can be redone.
#[test]
fn ctrl_z_in_a_text_field_leaves_the_jobs_alone() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = a_txt_copied_to_music(&fixture, &home);
    let copy = home.join("Music/a.txt");
    assert!(copy.exists());
    until(&mut ferry, "the copy listed", |f| shows(f, "a.txt"));
    select(&mut ferry, "a.txt");
    named(&mut ferry, Named::F2, Modifiers::empty());
    assert!(ferry.tabs.active_pane().is_renaming());
    ctrl(&mut ferry, "z");
    jobs_done(&mut ferry);
    assert!(copy.exists(), "the copy stays while the name is edited");

    let view = ferry.tabs.active_pane().view_id();
    let pane = |m| Message::Tabs(tabs::Message::Pane(view, m));
    send(
        &mut ferry,
        pane(browser::Message::RenameEdited("b.txt".into())),
    );
    send(&mut ferry, pane(browser::Message::RenameSubmitted));
    jobs_done(&mut ferry);
    let renamed = home.join("Music/b.txt");
    assert!(renamed.exists() && !ferry.tabs.active_pane().is_renaming());
    ctrl(&mut ferry, "z");
    until(&mut ferry, "the rename undone", |_| {
        copy.exists() && !renamed.exists()
    });
    jobs_done(&mut ferry);
    // What the undo and the redo put back is selected, as Nautilus selects it: left focused
    // alone, a Ctrl+X after it cut nothing.
    until(&mut ferry, "the old name selected", |f| {
        f.tabs.active_pane().selected_paths() == [copy.clone()]
    });
    key(
        &mut ferry,
        Key::Character("z".into()),
        Modifiers::CTRL | Modifiers::SHIFT,
    );
    until(&mut ferry, "the rename redone", |_| {
        renamed.exists() && !copy.exists()
    });
    jobs_done(&mut ferry);
    until(&mut ferry, "the new name selected", |f| {
        f.tabs.active_pane().selected_paths() == [renamed.clone()]
    });
}

/// Types `name` in the New Folder prompt and presses Enter.
fn give_new_folder_name(ferry: &mut Ferry, name: &str) {
    let edited = name_prompt::Message::Edited(name.to_owned());
    send(ferry, Message::NamePrompt(edited));
    send(ferry, Message::NamePrompt(name_prompt::Message::Submitted));
}

/// New Folder asks the name first, as Dolphin's and Nautilus's dialogs do: Escape makes
/// nothing, a name taken is refused in the dialog, and the folder made under the name given
/// is one undo step (made as "New Folder", then renamed, it took two).
#[test]
fn a_new_folder_is_named_before_it_is_made_and_undone_in_one_step() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let music = home.join("Music");
    let folders = || {
        let made = fs::read_dir(&music).unwrap().flatten();
        let mut made: Vec<_> = made
            .filter(|e| e.path().is_dir())
            .map(|e| e.file_name())
            .collect();
        made.sort();
        made
    };
    let before = folders();
    let mut ferry = fixture.start(Some(&music));
    let new_folder = |ferry: &mut Ferry| {
        key(
            ferry,
            Key::Character("n".into()),
            Modifiers::CTRL | Modifiers::SHIFT,
        );
        assert!(ferry.name_prompt.is_some(), "asked");
    };
    new_folder(&mut ferry);
    named(&mut ferry, Named::Escape, Modifiers::empty());
    assert!(ferry.name_prompt.is_none());
    assert_eq!(ferry.jobs.window_jobs().count(), 0, "Escape made nothing");
    fs::create_dir(music.join("Taken")).unwrap();
    until(&mut ferry, "Taken listed", |f| shows(f, "Taken"));
    new_folder(&mut ferry);
    give_new_folder_name(&mut ferry, "Taken");
    assert!(
        ferry.name_prompt.is_some(),
        "a name taken is refused in the dialog"
    );
    give_new_folder_name(&mut ferry, "Live");
    assert!(ferry.name_prompt.is_none());
    jobs_done(&mut ferry);
    assert!(music.join("Live").is_dir());
    assert!(!music.join("New Folder").exists(), "nothing else made");
    until(&mut ferry, "the new folder selected", |f| {
        f.tabs.active_pane().selected_paths() == [music.join("Live")]
    });
    ctrl(&mut ferry, "z");
    jobs_done(&mut ferry);
    until(&mut ferry, "undone", |_| !music.join("Live").exists());
    let mut left = before;
    left.push("Taken".into());
    left.sort();
    assert_eq!(
        folders(),
        left,
        "one undo took the folder made, and only it"
    );
    // Made again by a redo, it is selected in place of what was, as Nautilus selects it:
    // left focused alone, a Ctrl+X after it cut what was selected before.
    select(&mut ferry, "Taken");
    key(
        &mut ferry,
        Key::Character("z".into()),
        Modifiers::CTRL | Modifiers::SHIFT,
    );
    jobs_done(&mut ferry);
    until(&mut ferry, "the folder made again and selected", |f| {
        f.tabs.active_pane().selected_paths() == [music.join("Live")]
    });
}

/// With both panes of a split on one folder, the folder New Folder made was selected in the
/// pane the user was not in: F2 or Delete then acted on another item.
#[test]
fn a_new_folder_is_selected_in_the_pane_that_asked() {
    let fixture = Fixture::new();
    let music = fixture.home().join("Music");
    let mut ferry = fixture.start(Some(&music));
    named(&mut ferry, Named::F3, Modifiers::empty());
    settle(&mut ferry);
    let right = ferry.tabs.active_pane().view_id();
    key(
        &mut ferry,
        Key::Character("n".into()),
        Modifiers::CTRL | Modifiers::SHIFT,
    );
    give_new_folder_name(&mut ferry, "Both");
    jobs_done(&mut ferry);
    until(&mut ferry, "the new folder selected", |f| {
        f.tabs.active_pane().selected_paths() == [music.join("Both")]
    });
    assert_eq!(
        ferry.tabs.active_pane().view_id(),
        right,
        "in the pane that asked"
    );
}

#[test]
fn delete_moves_to_the_trash_and_the_toast_undoes_it() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    select(&mut ferry, "notes.md");
    named(&mut ferry, Named::Delete, Modifiers::empty());
    jobs_done(&mut ferry);
    assert!(!home.join("notes.md").exists());
    let trash = fixture.dir.path().join("data/Trash");
    assert!(
        trash.join("files/notes.md").exists(),
        "in the fixture's trash"
    );
    assert!(trash.join("info/notes.md.trashinfo").exists());
    assert!(shows(&ferry, "Undo"), "the toast offers undo");
    click(&mut ferry, "Undo");
    until(&mut ferry, "the restore", |_| {
        home.join("notes.md").exists()
    });
    jobs_done(&mut ferry);
    assert!(!trash.join("files/notes.md").exists());
}

/// An undo that puts back more items than are selected at once selects none of them: the
/// first 10,000 of 20,000 were, and a Delete after it acted on half of what came back.
#[test]
fn an_undo_that_puts_back_too_many_to_select_selects_none() {
    let fixture = Fixture::new();
    let many = fixture.home().join("many");
    fs::create_dir_all(&many).unwrap();
    let count = crate::gui::copy_paste::SELECT_LANDED_MAX + 1;
    for i in 0..count {
        fs::write(many.join(format!("f{i:03}")), "x").unwrap();
    }
    let mut ferry = fixture.start(Some(&many));
    until(&mut ferry, "listed", |f| shows(f, "f000"));
    ctrl(&mut ferry, "a");
    named(&mut ferry, Named::Delete, Modifiers::empty());
    jobs_done(&mut ferry);
    assert_eq!(fs::read_dir(&many).unwrap().count(), 0);
    until(&mut ferry, "the folder shown empty", |f| !shows(f, "f000"));
    ctrl(&mut ferry, "z");
    jobs_done(&mut ferry);
    let last = format!("f{:03}", count - 1);
    until(&mut ferry, "all listed again", |f| {
        shows(f, "f000") && shows(f, &last)
    });
    assert_eq!(fs::read_dir(&many).unwrap().count(), count);
    let selected = ferry.tabs.active_pane().selected_paths();
    assert!(
        selected.is_empty(),
        "{} selected: {:?}",
        selected.len(),
        selected.first()
    );
}

/// Lays the window out (a first event through its view), so the panes know their bounds.
pub(super) fn lay_out(ferry: &mut Ferry) {
    let mut ui = simulator(ferry.view());
    let moved = iced::mouse::Event::CursorMoved {
        position: Point::new(1.0, 1.0),
    };
    let _ = ui.simulate([iced::Event::Mouse(moved)]);
    let messages: Vec<Message> = ui.into_messages().collect();
    for message in messages {
        if let Message::Tabs(
            tabs::Message::Pane(_, browser::Message::Resized(_)) | tabs::Message::SplitResized(_),
        ) = message
        {
            send(ferry, message);
        }
    }
}

/// A toast's Undo undoes its own job or nothing. A copy cancelled while it merged into a folder
/// of its name did nothing (the journal skips it), yet its toast said "copied 1 item" and
/// offered Undo, which undid the copy before it; an older toast's Undo, sent, undoes nothing.
#[test]
fn a_toasts_undo_undoes_its_own_job_or_nothing() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let (src, music) = (home.join("Documents/sub"), home.join("Music"));
    fs::create_dir_all(&src).unwrap();
    fs::write(src.join("a.txt"), "new").unwrap();
    fs::create_dir_all(music.join("sub")).unwrap();
    fs::write(music.join("sub/a.txt"), "old").unwrap();
    let mut ferry = fixture.start(Some(&home.join("Documents")));
    select(&mut ferry, "a.txt");
    ctrl(&mut ferry, "c");
    go(&mut ferry, &home.join("projects"));
    ctrl(&mut ferry, "v");
    jobs_done(&mut ferry);
    assert!(home.join("projects/a.txt").exists());

    go(&mut ferry, &home.join("Documents"));
    select(&mut ferry, "sub");
    ctrl(&mut ferry, "c");
    go(&mut ferry, &music);
    ctrl(&mut ferry, "v");
    until(&mut ferry, "the conflict", |f| !f.conflicts.is_empty());
    let id = ferry.jobs.window_jobs().last().unwrap().id;
    ferry.jobs.cancel(id);
    until(&mut ferry, "the cancel", |f| f.jobs.running() == 0);
    let last = ferry.toasts.last().unwrap();
    assert_eq!(last.latest, "Cancelled: copied nothing to “Music”.");
    assert!(last.actions.is_empty(), "{:?}", last.actions);

    // Record 1 (the first copy) is the one undo applies to; the cancelled copy's, 2, is not.
    send(&mut ferry, Message::Command(menus::Command::UndoRecord(2)));
    until(&mut ferry, "the refusal", |f| {
        shows_toast(
            f,
            "That job can't be undone now: it did nothing, or another job comes first.",
        )
    });
    assert!(home.join("projects/a.txt").exists(), "the other job stays");
}

/// An undo that put nothing back (the copy was changed since, and is kept) does not mark
/// the job undone: its row said "Copied “a.txt” to “Music”. Undone since." with the copy
/// still there.
#[test]
fn a_refused_undo_leaves_the_job_not_undone() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = a_txt_copied_to_music(&fixture, &home);
    std::fs::write(home.join("Music/a.txt"), "edited since it was copied").unwrap();
    ctrl(&mut ferry, "z");
    jobs_done(&mut ferry);
    assert!(home.join("Music/a.txt").exists(), "the edited copy is kept");
    assert_eq!(ended_jobs_said(&ferry), ["Copied “a.txt” to “Music”."]);
    // Its redo cannot be (its undo undid nothing): the menu says so, where it said "nothing
    // to redo" while Ctrl+Shift+Z tried and gave the reason.
    named(&mut ferry, Named::F10, Modifiers::empty());
    until(&mut ferry, "the labels read again", |f| {
        f.jobs.labels().refused.1
    });
    assert!(shows(&ferry, "Redo (not possible now)"));
}

/// An undo whose only item was skipped when asked (its old name taken since) undid nothing:
/// it said "Undid: …" and marked the move "Undone since", so the next Ctrl+Z read as a retry.
#[test]
fn an_undo_skipped_when_asked_says_it_did_not_undo() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home.join("Documents")));
    select(&mut ferry, "a.txt");
    ctrl(&mut ferry, "x");
    go(&mut ferry, &home.join("Music"));
    ctrl(&mut ferry, "v");
    jobs_done(&mut ferry);
    fs::write(home.join("Documents/a.txt"), "new").unwrap();
    ctrl(&mut ferry, "z");
    until(&mut ferry, "the conflict", |f| !f.conflicts.is_empty());
    let job = ferry.conflicts[0].job();
    let skip = conflict::Message::Answered(conflict::Act::Skip);
    send(&mut ferry, Message::Conflict(job, skip));
    jobs_done(&mut ferry);
    assert!(home.join("Music/a.txt").exists(), "not moved back");
    assert!(shows_toast(
        &ferry,
        "Did not undo: Move “a.txt” to “Music” (1 skipped)."
    ));
    assert_eq!(ended_jobs_said(&ferry), ["Moved “a.txt” to “Music”."]);
    // The move stays the job Undo undoes: once its place is free, Ctrl+Z takes it back.
    fs::remove_file(home.join("Documents/a.txt")).unwrap();
    ctrl(&mut ferry, "z");
    jobs_done(&mut ferry);
    assert!(home.join("Documents/a.txt").exists(), "moved back");
    assert!(!home.join("Music/a.txt").exists());
}

/// What the jobs panel's rows of ended jobs (not undos) say.
fn ended_jobs_said(ferry: &Ferry) -> Vec<String> {
    (ferry.jobs.window_jobs())
        .filter(|j| !j.undoing)
        .filter_map(|j| match &j.state {
            crate::gui::jobs::State::Ended { said, .. } => Some(said.clone()),
            _ => None,
        })
        .collect()
}

/// A folder merged into the one of its name there, one file in it skipped: what was written
/// into it is counted ("Copied “top”" was said with two more files written into `dir`).
#[test]
fn items_put_into_a_folder_merged_part_way_are_counted() {
    let fixture = Fixture::new();
    let home = fixture.home();
    for (file, text) in [
        ("src/dir/k", "a"),
        ("src/dir/n1", "n1"),
        ("src/dir/n2", "n2"),
        ("src/top", "top"),
        ("dst/dir/k", "b"),
    ] {
        fs::create_dir_all(home.join(file).parent().unwrap()).unwrap();
        fs::write(home.join(file), text).unwrap();
    }
    let mut ferry = src_pasted_into_dst(&fixture, &home, "top");
    for act in [conflict::Act::Merge, conflict::Act::Skip] {
        until(&mut ferry, "a conflict", |f| {
            f.conflicts.iter().any(|d| d.waiting() > 0)
        });
        let job = ferry.conflicts[0].job();
        send(
            &mut ferry,
            Message::Conflict(job, conflict::Message::Answered(act)),
        );
    }
    jobs_done(&mut ferry);
    assert_eq!(fs::read(home.join("dst/dir/n2")).unwrap(), b"n2");
    assert_toast(&ferry, "Copied 3 items to “dst” (1 skipped).");
}
