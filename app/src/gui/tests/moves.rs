//! Moves the window checks before it submits them: Ferry's state folder is never moved (the
//! rest is, once confirmed), the home folder and a trash are asked about with Cancel first,
//! a plain folder moves at once; through a paste of a cut, Move to… and a drop. After a move:
//! a cut that moved nothing is cut still, a tab inside what moved follows it. An item that is not
//! the one listed any more (another program put another in its place) is left alone by Delete
//! and asked about again by Shift+Delete.

use std::fs;

use super::operations::{go, jobs_done, lay_out, select};
use super::*;
use crate::gui::copy_paste::Clip;
use crate::gui::dialogs::Ask;
use crate::gui::modal::confirm::Choice;
use crate::gui::moves::{Move, SeenIn};
use crate::gui::operations::PickedFor;

fn no_job(ferry: &Ferry) -> bool {
    ferry.jobs.window_jobs().next().is_none()
}

fn asked_move(ferry: &Ferry) -> Option<&Move> {
    match ferry.confirm.as_ref()?.token() {
        Ask::Move(asked) => Some(asked),
        _ => None,
    }
}

/// `paths` cut (as another program's cut comes), pasted into `folder`.
fn paste_cut(ferry: &mut Ferry, paths: &[PathBuf], folder: &Path) {
    let _ = ferry.set_clip(Clip::files(paths.to_vec(), true));
    go(ferry, folder);
    ctrl(ferry, "v");
}

#[test]
fn a_cut_holding_ferrys_state_folder_is_refused_and_the_rest_moves_once_confirmed() {
    let fixture = Fixture::new();
    let home = fixture.home();
    // The state folder in the home folder, as it is by default.
    let state = home.join(".local/state/ferry");
    fs::create_dir_all(&state).unwrap();
    let stores = jobs::Stores {
        journal: Some(state.join("journal.jsonl")),
        ..fixture.stores()
    };
    let mut ferry = fixture.start_with(Some(&home), stores);
    let (local, notes, music) = (
        home.join(".local"),
        home.join("notes.md"),
        home.join("Music"),
    );

    paste_cut(&mut ferry, &[local.clone(), notes.clone()], &music);
    assert_eq!(
        question(&ferry).as_deref(),
        Some("“.local” can't be moved. Move “notes.md” to “Music”?")
    );
    let confirm = ferry.confirm.as_ref().unwrap();
    assert!(confirm.message().contains("Ferry's state folder"));
    assert_eq!(confirm.focus(), Choice::Cancel, "Cancel first");
    assert!(shows(
        &ferry,
        "“.local” can't be moved. Move “notes.md” to “Music”?"
    ));
    assert!(no_job(&ferry), "nothing moves before the answer");
    assert_eq!(
        asked_move(&ferry),
        Some(&Move {
            sources: vec![notes.clone()],
            dest_dir: music.clone(),
            on_conflict: ferry_core::jobs::ConflictPolicy::Ask,
            follow_up: jobs::FollowUp::ToastFromCut,
            from_cut: true,
            to_trash: None,
            seen_in: SeenIn::default(),
        }),
        "the question carries the move without the state folder"
    );
    // Enter presses Cancel: nothing moves.
    named(&mut ferry, Named::Enter, Modifiers::empty());
    assert_eq!(question(&ferry), None);
    assert!(no_job(&ferry) && notes.exists());

    // Again, and Tab to the action: the rest moves, the state folder stays.
    paste_cut(&mut ferry, &[local.clone(), notes.clone()], &music);
    named(&mut ferry, Named::Tab, Modifiers::empty());
    named(&mut ferry, Named::Enter, Modifiers::empty());
    jobs_done(&mut ferry);
    assert!(music.join("notes.md").exists() && !notes.exists());
    assert!(state.is_dir() && !music.join(".local").exists());

    // The state folder alone: said, with one button, and nothing to confirm.
    let jobs = ferry.jobs.window_jobs().count();
    paste_cut(&mut ferry, std::slice::from_ref(&local), &music);
    assert_eq!(question(&ferry).as_deref(), Some("“.local” can't be moved"));
    let mut ui = simulator(ferry.view());
    let id = iced_test::selector::id;
    assert!(ui.find(id(modal::confirm::CANCEL_ID)).is_ok());
    assert!(
        ui.find(id(modal::confirm::CONFIRM_ID)).is_err(),
        "one button"
    );
    drop(ui);
    named(&mut ferry, Named::Tab, Modifiers::empty());
    named(&mut ferry, Named::Enter, Modifiers::empty());
    assert_eq!(question(&ferry), None);
    assert_eq!(ferry.jobs.window_jobs().count(), jobs, "no job");
    assert!(state.is_dir());
}

#[test]
fn moving_the_home_folder_is_asked_and_done_only_once_confirmed() {
    let fixture = Fixture::new();
    let (home, top) = (fixture.home(), fixture.dir.path().to_path_buf());
    let elsewhere = top.join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    let mut ferry = fixture.start(Some(&top));
    select(&mut ferry, "home");
    ctrl(&mut ferry, "x");
    go(&mut ferry, &elsewhere);
    ctrl(&mut ferry, "v");
    assert_eq!(
        question(&ferry).as_deref(),
        Some("Move your home folder, “home”, to elsewhere?")
    );
    let confirm = ferry.confirm.as_ref().unwrap();
    assert!(confirm.is_danger() && confirm.confirm_label() == "Move");
    assert_eq!(confirm.focus(), Choice::Cancel);
    assert!(no_job(&ferry));
    named(&mut ferry, Named::Escape, Modifiers::empty());
    assert_eq!(question(&ferry), None);
    assert!(no_job(&ferry) && home.is_dir());
    // Declined, the cut is back on the clipboard: it can be pasted again.
    let cut_back = Clip::files(vec![home.clone()], true);
    assert_eq!(ferry.clip.as_ref(), Some(&cut_back));
    ctrl(&mut ferry, "v");
    assert_eq!(
        question(&ferry).as_deref(),
        Some("Move your home folder, “home”, to elsewhere?")
    );
    named(&mut ferry, Named::Escape, Modifiers::empty());

    // Move to…, the folder picked: the same question; its Move button moves exactly that.
    send(
        &mut ferry,
        Message::FolderPicked(
            vec![home.clone()],
            PickedFor::Move,
            picker::Picked::Folder(elsewhere.clone()),
        ),
    );
    assert_eq!(
        question(&ferry).as_deref(),
        Some("Move your home folder, “home”, to elsewhere?")
    );
    assert!(no_job(&ferry));
    click(
        &mut ferry,
        iced_test::selector::id(modal::confirm::CONFIRM_ID),
    );
    jobs_done(&mut ferry);
    let submitted: Vec<_> = ferry.jobs.window_jobs().map(|j| (*j.job).clone()).collect();
    assert!(
        matches!(submitted.as_slice(), [ferry_core::jobs::Job::Move { sources, dest_dir, .. }]
            if sources == std::slice::from_ref(&home) && dest_dir == &elsewhere),
        "{submitted:?}"
    );
    assert!(elsewhere.join("home/notes.md").exists() && !home.exists());
}

#[test]
fn a_plain_folder_moves_at_once_and_a_dropped_trash_is_asked_about() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home.join("Documents")));
    select(&mut ferry, "tax");
    ctrl(&mut ferry, "x");
    go(&mut ferry, &home.join("Music"));
    ctrl(&mut ferry, "v");
    assert_eq!(question(&ferry), None, "nothing to ask");
    jobs_done(&mut ferry);
    assert!(home.join("Music/tax").is_dir() && !home.join("Documents/tax").exists());

    // A drag of the trash folder into the other pane: a move, asked about first.
    let trash = fixture.dir.path().join("data/Trash");
    fs::create_dir_all(trash.join("files")).unwrap();
    named(&mut ferry, Named::F3, Modifiers::empty());
    settle(&mut ferry);
    go(&mut ferry, &home.join("projects"));
    key(&mut ferry, Key::Named(Named::Tab), Modifiers::empty());
    lay_out(&mut ferry);
    ferry.mounts = ferry_core::fs::MountTable::read();
    ferry.drag_started(vec![trash.clone()], format::Category::Folder);
    let target = ferry.tabs.inactive_pane().unwrap().list_bounds();
    send(&mut ferry, Message::PointerMoved(target.center()));
    assert_eq!(
        ferry.drop_action(),
        Some(drag::Action::Move(home.join("projects")))
    );
    let jobs = ferry.jobs.window_jobs().count();
    send(&mut ferry, Message::PointerReleased);
    assert_eq!(
        question(&ferry).as_deref(),
        Some("Move “Trash” to “projects”?")
    );
    let confirm = ferry.confirm.as_ref().unwrap();
    assert!(
        confirm.message().contains("trash folder"),
        "{}",
        confirm.message()
    );
    assert_eq!(
        asked_move(&ferry).map(|m| &m.follow_up),
        Some(&jobs::FollowUp::ToastWithCopy),
        "a drop's move, as the drop would have followed it"
    );
    named(&mut ferry, Named::Escape, Modifiers::empty());
    assert_eq!(ferry.jobs.window_jobs().count(), jobs, "no job");
    assert!(trash.join("files").is_dir());
}

/// A cut pasted into the items' own folder moves nothing (each would replace itself): the cut
/// stays on the clipboard to be pasted elsewhere, as it was before the paste.
#[test]
fn a_cut_pasted_where_it_cannot_move_stays_cut() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home.join("Documents")));
    select(&mut ferry, "a.txt");
    ctrl(&mut ferry, "x");
    ctrl(&mut ferry, "v");
    jobs_done(&mut ferry);
    let a = home.join("Documents/a.txt");
    assert_eq!(fs::read(&a).unwrap(), b"x");
    let clip = ferry.clip.as_ref().expect("the cut is back");
    assert!(clip.cut);
    assert_eq!(clip.paths, [a]);
    super::operations::go(&mut ferry, &home.join("Music"));
    ctrl(&mut ferry, "v");
    jobs_done(&mut ferry);
    assert!(home.join("Music/a.txt").exists(), "pasted elsewhere");
}

/// A tab showing a folder inside one a paste moved elsewhere follows it there, as in
/// Nautilus, rather than falling back to the nearest folder left.
#[test]
fn a_tab_inside_a_moved_folder_follows_it() {
    let fixture = Fixture::new();
    let (home, mut ferry) = with_a_tab_in(&fixture, "Documents/deep");
    select(&mut ferry, "Documents");
    ctrl(&mut ferry, "x");
    super::operations::go(&mut ferry, &home.join("Music"));
    ctrl(&mut ferry, "v");
    jobs_done(&mut ferry);
    settle(&mut ferry);
    assert!(home.join("Music/Documents/deep").is_dir());
    let paths: Vec<PathBuf> = ferry.tabs.panes().map(|p| p.path().to_owned()).collect();
    assert_eq!(
        paths,
        [home.join("Music"), home.join("Music/Documents/deep")]
    );
}

/// The same when the folder shown was merged into one of its name and answered Keep both: the
/// tab follows it to the name the answer gave, not into the other folder of its old name.
#[test]
fn a_tab_follows_a_folder_kept_beside_another_under_a_new_name() {
    let fixture = Fixture::new();
    let home = fixture.home();
    fs::create_dir_all(home.join("Documents/deep")).unwrap();
    fs::write(home.join("Documents/deep/mine"), "m").unwrap();
    fs::create_dir_all(home.join("Music/Documents/deep")).unwrap();
    fs::write(home.join("Music/Documents/deep/theirs"), "t").unwrap();
    let mut ferry = fixture.start(Some(&home));
    let ctx = ferry.services.ctx();
    let _ = ferry.tabs.open(home.join("Documents/deep"), false, &ctx);
    settle(&mut ferry);
    select(&mut ferry, "Documents");
    ctrl(&mut ferry, "x");
    go(&mut ferry, &home.join("Music"));
    ctrl(&mut ferry, "v");
    for answer in ["m", "k"] {
        super::operations::until(&mut ferry, "a conflict", |f| !f.conflicts.is_empty());
        key(&mut ferry, Key::Character(answer.into()), Modifiers::ALT);
    }
    jobs_done(&mut ferry);
    settle(&mut ferry);
    let kept = home.join("Music/Documents/deep (copy)");
    assert!(kept.join("mine").exists(), "kept beside under a new name");
    let paths: Vec<PathBuf> = ferry.tabs.panes().map(|p| p.path().to_owned()).collect();
    assert_eq!(paths, [home.join("Music"), kept]);
}

/// A tab inside a folder renamed with F2, or whose move is undone, follows it too.
#[test]
fn a_tab_follows_a_rename_of_a_folder_above_and_an_undone_move() {
    let fixture = Fixture::new();
    let (home, mut ferry) = with_a_tab_in(&fixture, "Documents/deep");
    let shown = |ferry: &Ferry| -> Vec<PathBuf> {
        ferry.tabs.panes().map(|p| p.path().to_owned()).collect()
    };
    select(&mut ferry, "Documents");
    named(&mut ferry, Named::F2, Modifiers::empty());
    let view = ferry.tabs.active_pane().view_id();
    let pane = |m| Message::Tabs(tabs::Message::Pane(view, m));
    send(
        &mut ferry,
        pane(browser::Message::RenameEdited("Docs".into())),
    );
    send(&mut ferry, pane(browser::Message::RenameSubmitted));
    jobs_done(&mut ferry);
    settle(&mut ferry);
    assert_eq!(shown(&ferry), [home.clone(), home.join("Docs/deep")]);

    super::operations::until(&mut ferry, "the new name listed", |f| shows(f, "Docs"));
    select(&mut ferry, "Docs");
    ctrl(&mut ferry, "x");
    go(&mut ferry, &home.join("Music"));
    ctrl(&mut ferry, "v");
    jobs_done(&mut ferry);
    settle(&mut ferry);
    assert_eq!(shown(&ferry)[1], home.join("Music/Docs/deep"));
    ctrl(&mut ferry, "z");
    super::operations::until(&mut ferry, "the undo", |_| home.join("Docs/deep").is_dir());
    jobs_done(&mut ferry);
    settle(&mut ferry);
    assert_eq!(shown(&ferry)[1], home.join("Docs/deep"), "followed back");
}

/// After following a move, Back goes where what it left went too; a tab inside a folder
/// trashed in another goes to the folder that held it at once; a tab that reached a folder
/// through a link stays when the link is moved (the folder did not move).
#[test]
fn tabs_after_a_move_a_trash_and_a_moved_link() {
    let fixture = Fixture::new();
    let home = fixture.home();
    fs::create_dir_all(home.join("Work/deep")).unwrap();
    fs::create_dir_all(home.join("Pictures/inner")).unwrap();
    std::os::unix::fs::symlink("Pictures", home.join("pics")).unwrap();
    let mut ferry = fixture.start(Some(&home));
    let ctx = ferry.services.ctx();
    let _ = ferry.tabs.open(home.join("Work"), false, &ctx);
    let _ = ferry.tabs.open(home.join("pics/inner"), false, &ctx);
    settle(&mut ferry);
    let view = |ferry: &Ferry, i: usize| ferry.tabs.panes().nth(i).unwrap().view_id();
    let to_pane = |view, m| Message::Tabs(tabs::Message::Pane(view, m));
    let deep = home.join("Work/deep");
    // Tabs open right after the current one: the later, the nearer.
    let second = view(&ferry, 2);
    send(
        &mut ferry,
        to_pane(second, browser::Message::Navigate(deep)),
    );
    settle(&mut ferry);
    let shown = |ferry: &Ferry| -> Vec<PathBuf> {
        ferry.tabs.panes().map(|p| p.path().to_owned()).collect()
    };
    assert_eq!(shown(&ferry)[2], home.join("Work/deep"));

    select(&mut ferry, "Work");
    ctrl(&mut ferry, "x");
    go(&mut ferry, &home.join("Music"));
    ctrl(&mut ferry, "v");
    jobs_done(&mut ferry);
    settle(&mut ferry);
    assert_eq!(shown(&ferry)[2], home.join("Music/Work/deep"));
    let back = browser::Message::Action(crate::gui::shortcut::PaneAction::Back);
    send(&mut ferry, to_pane(second, back));
    settle(&mut ferry);
    assert_eq!(
        shown(&ferry)[2],
        home.join("Music/Work"),
        "Back followed too"
    );

    go(&mut ferry, &home);
    super::operations::until(&mut ferry, "pics listed", |f| shows(f, "pics"));
    select(&mut ferry, "pics");
    ctrl(&mut ferry, "x");
    go(&mut ferry, &home.join("Videos"));
    ctrl(&mut ferry, "v");
    jobs_done(&mut ferry);
    settle(&mut ferry);
    assert_eq!(
        shown(&ferry)[1],
        home.join("pics/inner"),
        "a moved link is not followed"
    );

    send(&mut ferry, Message::Tabs(tabs::Message::Select(0)));
    go(&mut ferry, &home.join("Music"));
    // By type-ahead: a click on "Work" could meet the other tab's title.
    super::operations::until(&mut ferry, "Work listed", |f| shows(f, "Work"));
    key(&mut ferry, Key::Character("w".into()), Modifiers::empty());
    let work = home.join("Music/Work");
    assert_eq!(ferry.tabs.active_pane().selected_paths(), [work]);
    named(&mut ferry, Named::Delete, Modifiers::empty());
    jobs_done(&mut ferry);
    settle(&mut ferry);
    assert_eq!(
        shown(&ferry)[2],
        home.join("Music"),
        "at once, to the folder that held it"
    );
}

/// The window on the home folder, with a tab behind showing its folder `rel` (made).
fn with_a_tab_in(fixture: &Fixture, rel: &str) -> (PathBuf, Ferry) {
    let home = fixture.home();
    fs::create_dir_all(home.join(rel)).unwrap();
    let mut ferry = fixture.start(Some(&home));
    let ctx = ferry.services.ctx();
    let _ = ferry.tabs.open(home.join(rel), false, &ctx);
    settle(&mut ferry);
    (home, ferry)
}

/// Delete on the home folder (seen from the folder holding it) moved it to the trash unasked,
/// and Shift+Delete asked with Delete Permanently first, a single Enter away from losing it.
/// Each now asks with Cancel first.
#[test]
fn trashing_or_deleting_the_home_folder_asks_with_cancel_first() {
    let fixture = Fixture::new();
    let (home, top) = (fixture.home(), fixture.dir.path().to_path_buf());
    let mut ferry = fixture.start(Some(&top));
    select(&mut ferry, "home");
    named(&mut ferry, Named::Delete, Modifiers::empty());
    assert_eq!(
        question(&ferry).as_deref(),
        Some("Move your home folder, “home”, to the trash?")
    );
    let confirm = ferry.confirm.as_ref().unwrap();
    assert!(confirm.is_danger() && confirm.confirm_label() == "Move to Trash");
    assert_eq!(confirm.focus(), Choice::Cancel);
    named(&mut ferry, Named::Enter, Modifiers::empty());
    assert_eq!(question(&ferry), None);
    assert!(no_job(&ferry) && home.join("notes.md").exists());

    named(&mut ferry, Named::Delete, Modifiers::SHIFT);
    let confirm = ferry.confirm.as_ref().expect("asked");
    assert!(confirm.message().contains("it is your home folder"));
    assert_eq!(confirm.focus(), Choice::Cancel);
    named(&mut ferry, Named::Enter, Modifiers::empty());
    assert_eq!(question(&ferry), None);
    assert!(no_job(&ferry) && home.join("notes.md").exists());

    // Confirmed, it goes to the trash.
    named(&mut ferry, Named::Delete, Modifiers::empty());
    click(
        &mut ferry,
        iced_test::selector::id(modal::confirm::CONFIRM_ID),
    );
    jobs_done(&mut ferry);
    assert!(!home.exists());
}

/// A folder holding the trash, dropped on the Trash view or sent there with Delete: refused at
/// once, as the job would refuse it (it was asked about, "Move to Trash", then failed).
#[test]
fn a_folder_holding_the_trash_is_refused_the_trash_at_once() {
    let fixture = Fixture::new();
    let top = fixture.dir.path().to_path_buf();
    fs::create_dir_all(top.join("data/Trash/files")).unwrap();
    let mut ferry = fixture.start(Some(&top));
    select(&mut ferry, "data");
    named(&mut ferry, Named::Delete, Modifiers::empty());
    assert_eq!(
        question(&ferry).as_deref(),
        Some("“data” can't be moved to the trash")
    );
    let confirm = ferry.confirm.as_ref().unwrap();
    assert!(
        confirm
            .message()
            .contains("A trash cannot go into the trash."),
        "{}",
        confirm.message()
    );
    named(&mut ferry, Named::Enter, Modifiers::empty());
    assert!(no_job(&ferry) && top.join("data/Trash/files").is_dir());
}

/// What is in the trash (its `files` and `info`, a trashed item) sent to the trash with Delete:
/// refused at once; a job started, and failed with a Retry that could never succeed.
#[test]
fn what_is_in_the_trash_is_refused_the_trash_at_once() {
    let fixture = Fixture::new();
    let trash = fixture.dir.path().join("data/Trash");
    fs::create_dir_all(trash.join("files")).unwrap();
    fs::create_dir_all(trash.join("info")).unwrap();
    let mut ferry = fixture.start(Some(&trash));
    select(&mut ferry, "info");
    named(&mut ferry, Named::Delete, Modifiers::empty());
    assert_eq!(
        question(&ferry).as_deref(),
        Some("“info” can't be moved to the trash")
    );
    let confirm = ferry.confirm.as_ref().unwrap();
    assert!(confirm.message().contains("it is in the trash already"));
    named(&mut ferry, Named::Enter, Modifiers::empty());
    assert!(no_job(&ferry) && trash.join("info").is_dir());
}

/// Delete on an item that another program has swapped for another of its name since it was
/// listed (its folder moved away and one made in its place) leaves that item alone and says
/// so: Delete trashed a file the user had never seen. The rest of the selection goes.
#[test]
fn delete_leaves_an_item_that_is_not_the_one_listed() {
    let fixture = Fixture::new();
    let documents = fixture.home().join("Documents");
    let mut ferry = fixture.start(Some(&documents));
    settle(&mut ferry);
    ctrl(&mut ferry, "a");
    // Before the window hears of it: a.txt is another file now.
    fs::rename(documents.join("a.txt"), fixture.home().join("a-moved.txt")).unwrap();
    fs::write(documents.join("a.txt"), "someone else's").unwrap();
    named(&mut ferry, Named::Delete, Modifiers::empty());
    jobs_done(&mut ferry);
    assert_eq!(
        fs::read(documents.join("a.txt")).unwrap(),
        b"someone else's",
        "left alone"
    );
    assert!(
        !documents.join("b.txt").exists(),
        "the rest went to the trash"
    );
    let said: Vec<_> = ferry.toasts.iter().map(|t| t.text.clone()).collect();
    assert!(
        said.iter()
            .any(|t| t.contains("“a.txt” is not what was shown there")),
        "{said:?}"
    );
}

/// Another program put another file in place of the one listed before Shift+Delete (the window
/// had not heard of it yet): Enter asks again instead of deleting the file never seen.
#[test]
fn an_item_replaced_before_its_delete_was_asked_is_asked_about_again() {
    let fixture = Fixture::new();
    let home = fixture.home();
    let mut ferry = fixture.start(Some(&home));
    select(&mut ferry, "notes.md");
    fs::rename(home.join("notes.md"), home.join("notes-old.md")).unwrap();
    fs::write(home.join("notes.md"), "someone else's").unwrap();
    named(&mut ferry, Named::Delete, Modifiers::SHIFT);
    alt(&mut ferry, "d");
    super::dialogs::assert_asked_again_as_replaced(&ferry);
    named(&mut ferry, Named::Escape, Modifiers::empty());
    assert_eq!(fs::read(home.join("notes.md")).unwrap(), b"someone else's");
}
