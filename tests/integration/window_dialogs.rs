//! The conflict dialog in the real window under Xvfb, answered with the keyboard as a new
//! user would, each answer checked on the filesystem: a paste onto a name taken opens it;
//! Alt+K keeps both (`name (copy).ext`), Alt+R replaces, and Ctrl+Z brings the old file back
//! byte for byte.
//!
//! It needs Xvfb, xdotool and xwd (`.ci/run` installs them); without them it says so and
//! passes, unless `FERRY_WINDOW_TEST=required` makes that a failure.

use ferry_tests::TempTree;

use crate::window_support::{Session, tools_present, xvfb};

const TOOLS: [&str; 3] = ["Xvfb", "xdotool", "xwd"];

#[test]
fn a_paste_onto_a_taken_name_asks_and_keep_both_replace_and_undo_do_what_they_say() {
    if !tools_present(&TOOLS) {
        return;
    }
    let tree = TempTree::new();
    let from = tree.dir("home/from");
    tree.file("home/from/report.txt", "the new report");
    let to = tree.dir("home/to");
    let old = tree.file("home/to/report.txt", "the old report, kept");
    let x = xvfb();
    let session = Session::new(&tree, &x, "window-conflict-dialog");
    let (_ferry, window) = session.open(&from);

    session.select_by_typing(&window, "rep");
    session.keys(&window, &["ctrl+c"]);
    session.go_to(&window, &to);

    // Ctrl+V onto report.txt: the dialog asks; nothing is written meanwhile.
    session.keys(&window, &["ctrl+v"]);
    session.wait("the conflict dialog to dim the window", || {
        session.dialog_shown(&window).then_some(())
    });
    session.check(
        std::fs::read(&old).unwrap() == b"the old report, kept",
        "the old report untouched while the dialog asks",
    );
    // Alt+K: both kept, the new one as "report (copy).txt".
    session.keys(&window, &["alt+k"]);
    let copy = to.join("report (copy).txt");
    session.wait("Alt+K to keep both as report (copy).txt", || {
        (std::fs::read(&copy).ok()? == b"the new report").then_some(())
    });
    session.check(
        std::fs::read(&old).unwrap() == b"the old report, kept",
        "Keep both to leave the old report as it was",
    );
    session.wait("the dialog to close", || {
        (!session.dialog_shown(&window)).then_some(())
    });

    // Ctrl+V again, Alt+R: replaced.
    session.keys(&window, &["ctrl+v"]);
    session.wait("the conflict dialog again", || {
        session.dialog_shown(&window).then_some(())
    });
    session.keys(&window, &["alt+r"]);
    session.wait("Alt+R to replace report.txt with the new one", || {
        (std::fs::read(&old).ok()? == b"the new report").then_some(())
    });
    session.wait("the dialog to close after Alt+R", || {
        (!session.dialog_shown(&window)).then_some(())
    });

    // Ctrl+Z: the old report comes back, byte for byte; the copy of the earlier paste stays.
    session.keys(&window, &["ctrl+z"]);
    session.wait("Ctrl+Z to bring the old report back", || {
        (std::fs::read(&old).ok()? == b"the old report, kept").then_some(())
    });
    session.check(
        copy.exists(),
        "the undo of the replace to leave the kept copy",
    );
}
