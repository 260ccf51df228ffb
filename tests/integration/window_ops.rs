//! File operations in the real window under Xvfb, as a new user would do them with the
//! keyboard and the mouse through xdotool, each checked on the filesystem: type-ahead, copy
//! and paste and undo, cut and paste, rename, the trash and its undo, a permanent delete after
//! its question, the clipboard with another program (xclip) both ways (and Paste greyed when
//! it holds no files), and a mouse drag onto a folder.
//!
//! It needs Xvfb, xdotool, xwd and xclip (`.ci/run` installs them). Without them the tests say
//! so and pass, unless `FERRY_WINDOW_TEST=required` (set by `.ci/run`) makes that a failure.
//! A failed check names what it expected and the screenshot it saved.

use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::Duration;

use ferry_tests::TempTree;

use crate::window_support::{Session, tools_present, xvfb};

const TOOLS: [&str; 4] = ["Xvfb", "xdotool", "xwd", "xclip"];

/// `file://` and the path: the fixtures' paths have no character a URI must escape.
fn uri(path: &Path) -> String {
    let text = path.to_str().unwrap();
    assert!(
        text.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/-_.".contains(&b)),
        "{text} needs no escaping in a URI"
    );
    format!("file://{text}")
}

/// True when the session's trash holds `name` (`files/`) and says where it was (`info/`).
fn trash_holds(session: &Session<'_>, name: &str) -> bool {
    let trash = session.trash();
    trash.join("files").join(name).exists()
        && trash
            .join("info")
            .join(format!("{name}.trashinfo"))
            .exists()
}

#[test]
fn type_ahead_copy_paste_undo_and_cut_paste_with_the_keyboard() {
    if !tools_present(&TOOLS) {
        return;
    }
    let tree = TempTree::new();
    let from = tree.dir("home/from");
    tree.file("home/from/notebook.md", "not this one");
    let notes = tree.file("home/from/notes.txt", "the notes");
    tree.file("home/from/plan.txt", "a plan");
    let to = tree.dir("home/to");
    let elsewhere = tree.dir("home/elsewhere");
    let x = xvfb();
    let session = Session::new(&tree, &x, "window-copy-cut-paste");
    let (_ferry, window) = session.open(&from);

    // Type-ahead: "notes" passes "notebook.md" (which "note" would pick).
    session.select_by_typing(&window, "notes");
    session.keys(&window, &["ctrl+c"]);
    let copied = format!("copy\n{}", uri(&notes));
    session.wait(
        &format!("xclip to read GNOME's format as {copied:?}"),
        || (session.clipboard("x-special/gnome-copied-files")? == copied.as_bytes()).then_some(()),
    );
    let uris = session.clipboard("text/uri-list");
    session.check(
        uris.as_deref() == Some(format!("{}\r\n", uri(&notes)).as_bytes()),
        &format!(
            "text/uri-list to be the file's URI and CRLF, not {:?}",
            uris.as_deref().map(String::from_utf8_lossy)
        ),
    );
    let cut = session.clipboard("application/x-kde-cutselection");
    session.check(
        cut.as_deref() == Some(b"0"),
        &format!("KDE's cut flag \"0\" after Ctrl+C, not {cut:?}"),
    );

    // Ctrl+L, the other folder's path, Enter; Ctrl+V: a copy there.
    session.go_to(&window, &to);
    session.keys(&window, &["ctrl+v"]);
    let copy = to.join("notes.txt");
    session.wait("Ctrl+V to copy notes.txt into to/", || {
        (std::fs::read(&copy).ok()? == b"the notes").then_some(())
    });
    session.check(notes.exists(), "the original notes.txt kept by a copy");

    // Ctrl+Z: the copy goes to the session's trash.
    session.keys(&window, &["ctrl+z"]);
    session.wait(
        "Ctrl+Z to take the copy away into $XDG_DATA_HOME/Trash",
        || (!copy.exists() && trash_holds(&session, "notes.txt")).then_some(()),
    );
    session.check(notes.exists(), "the original notes.txt kept by the undo");

    // Ctrl+X in from/, Ctrl+V elsewhere: a move.
    session.go_to(&window, &from);
    session.select_by_typing(&window, "notes");
    session.keys(&window, &["ctrl+x"]);
    session.wait("KDE's cut flag \"1\" after Ctrl+X", || {
        (session.clipboard("application/x-kde-cutselection")? == b"1").then_some(())
    });
    let gnome = session.clipboard("x-special/gnome-copied-files");
    let expected = format!("cut\n{}", uri(&notes));
    session.check(
        gnome.as_deref() == Some(expected.as_bytes()),
        &format!(
            "GNOME's format to be {expected:?} after Ctrl+X, not {:?}",
            gnome.as_deref().map(String::from_utf8_lossy)
        ),
    );
    session.go_to(&window, &elsewhere);
    session.keys(&window, &["ctrl+v"]);
    let moved = elsewhere.join("notes.txt");
    session.wait("Ctrl+V after Ctrl+X to move notes.txt", || {
        (!notes.exists() && std::fs::read(&moved).ok()? == b"the notes").then_some(())
    });
}

#[test]
fn rename_trash_undo_and_delete_permanently_with_the_keyboard() {
    if !tools_present(&TOOLS) {
        return;
    }
    let tree = TempTree::new();
    let work = tree.dir("home/work");
    let draft = tree.file("home/work/draft.txt", "words");
    tree.file("home/work/keep.txt", "kept");
    let x = xvfb();
    let session = Session::new(&tree, &x, "window-rename-trash-delete");
    let (_ferry, window) = session.open(&work);

    // F2 selects the name without its extension; what is typed replaces it.
    session.select_by_typing(&window, "dra");
    session.keys(&window, &["F2"]);
    session.type_text(&window, "final");
    session.keys(&window, &["Return"]);
    let last = work.join("final.txt");
    session.wait(
        "F2, \"final\", Enter to rename draft.txt to final.txt",
        || (!draft.exists() && std::fs::read(&last).ok()? == b"words").then_some(()),
    );

    // Delete: into the freedesktop trash under $XDG_DATA_HOME, with its .trashinfo.
    session.select_by_typing(&window, "fin");
    session.keys(&window, &["Delete"]);
    session.wait("Delete to move final.txt into $XDG_DATA_HOME/Trash", || {
        (!last.exists() && trash_holds(&session, "final.txt")).then_some(())
    });
    let info = std::fs::read_to_string(session.trash().join("info/final.txt.trashinfo")).unwrap();
    session.check(
        info.starts_with("[Trash Info]\n")
            && info.contains(&format!("\nPath={}\n", last.display()))
            && info.contains("\nDeletionDate="),
        &format!("a .trashinfo with the original path, not {info:?}"),
    );

    // Ctrl+Z: back where it was, and out of the trash.
    session.keys(&window, &["ctrl+z"]);
    session.wait("Ctrl+Z to restore final.txt from the trash", || {
        (std::fs::read(&last).ok()? == b"words"
            && !session.trash().join("files/final.txt").exists()
            && !session.trash().join("info/final.txt.trashinfo").exists())
        .then_some(())
    });

    // Shift+Delete asks first, Cancel first; Alt+D (Delete Permanently) deletes, not into
    // the trash.
    session.select_by_typing(&window, "fin");
    session.keys(&window, &["shift+Delete"]);
    session.wait("Shift+Delete's question to dim the window", || {
        session.dialog_shown(&window).then_some(())
    });
    session.check(
        last.exists(),
        "final.txt still there while the question waits",
    );
    session.keys(&window, &["alt+d"]);
    session.wait("Alt+D to delete final.txt permanently", || {
        (!last.exists()).then_some(())
    });
    session.check(
        !session.trash().join("files/final.txt").exists(),
        "a permanent delete to leave nothing in the trash",
    );
    session.check(
        work.join("keep.txt").exists(),
        "keep.txt untouched by all of it",
    );
}

#[test]
fn files_offered_by_xclip_are_pasted_and_a_cut_offer_moves() {
    if !tools_present(&TOOLS) {
        return;
    }
    let tree = TempTree::new();
    let inbox = tree.dir("home/inbox");
    let one = tree.file("home/outbox/one.txt", "one");
    let two = tree.file("home/outbox/two.txt", "two");
    let x = xvfb();
    let session = Session::new(&tree, &x, "window-paste-from-xclip");
    let (_ferry, window) = session.open(&inbox);

    // A text/uri-list (no cut flag): a copy.
    let offer = session.offer("text/uri-list", format!("{}\r\n", uri(&one)).as_bytes());
    session.keys(&window, &["ctrl+v"]);
    session.wait("Ctrl+V of xclip's text/uri-list to copy one.txt", || {
        (std::fs::read(inbox.join("one.txt")).ok()? == b"one").then_some(())
    });
    session.check(one.exists(), "one.txt left where it was by a copy");
    drop(offer);

    // GNOME's format saying "cut": a move.
    let offer = session.offer(
        "x-special/gnome-copied-files",
        format!("cut\n{}", uri(&two)).as_bytes(),
    );
    session.keys(&window, &["ctrl+v"]);
    session.wait("Ctrl+V of xclip's \"cut\" offer to move two.txt", || {
        (!two.exists() && std::fs::read(inbox.join("two.txt")).ok()? == b"two").then_some(())
    });
    drop(offer);
}

/// With only text on the clipboard, the folder's menu greys Paste, as Dolphin does: opened
/// from the keyboard, its highlight is on New Folder once the clipboard has answered, and
/// Enter asks for the new folder's name (it pasted nothing, before).
#[test]
fn the_folder_menu_greys_paste_while_the_clipboard_holds_no_files() {
    if !tools_present(&TOOLS) {
        return;
    }
    let tree = TempTree::new();
    let inbox = tree.dir("home/inbox");
    let x = xvfb();
    let session = Session::new(&tree, &x, "window-paste-greyed");
    let (_ferry, window) = session.open(&inbox);
    let _offer = session.offer("UTF8_STRING", b"some words, no files");
    session.keys(&window, &["shift+F10"]);
    // The clipboard is read off the window's thread: a few milliseconds.
    std::thread::sleep(Duration::from_millis(500));
    session.keys(&window, &["Return"]);
    session.wait(
        "Enter in the folder's menu to ask for a new folder's name",
        || session.dialog_shown(&window).then_some(()),
    );
}

#[test]
fn a_mouse_drag_onto_a_folder_row_moves_the_file_into_it() {
    if !tools_present(&TOOLS) {
        return;
    }
    let tree = TempTree::new();
    let desk = tree.dir("home/desk");
    let bin = tree.dir("home/desk/bin");
    tree.dir("home/desk/crate");
    let letter = tree.file("home/desk/letter.txt", "dear");
    tree.file("home/desk/memo.txt", "memo");
    let inode = std::fs::metadata(&letter).unwrap().ino();
    let x = xvfb();
    let session = Session::new(&tree, &x, "window-drag-onto-folder");
    let (_ferry, window) = session.open(&desk);

    // Where the rows are, from the screen: each selected in turn by type-ahead.
    let (x_at, to_y) = session.select_by_typing(&window, "bin");
    let (_, from_y) = session.select_by_typing(&window, "let");
    session.check(
        from_y > to_y + 40,
        &format!("letter.txt's row (y={from_y}) two rows below bin's (y={to_y})"),
    );

    // Press on letter.txt, move up over crate/ in steps, release on bin/.
    let pointer_to = |y: u32| session.xdotool(&["mousemove", &x_at.to_string(), &y.to_string()]);
    pointer_to(from_y);
    session.xdotool(&["mousedown", "1"]);
    for step in 1..=8 {
        std::thread::sleep(Duration::from_millis(60));
        pointer_to(from_y - (from_y - to_y) * step / 8);
    }
    std::thread::sleep(Duration::from_millis(60));
    session.xdotool(&["mouseup", "1"]);

    let moved = bin.join("letter.txt");
    session.wait("the drag to move letter.txt into bin/", || {
        (!letter.exists() && moved.exists()).then_some(())
    });
    let after = std::fs::metadata(&moved).unwrap().ino();
    session.check(
        after == inode,
        "a move within one filesystem to rename the file (same inode), not copy it",
    );
    session.check(
        desk.join("memo.txt").exists() && desk.join("crate").read_dir().unwrap().next().is_none(),
        "memo.txt and crate/ untouched by the drag",
    );
}
