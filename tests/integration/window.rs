//! The real window under Xvfb, driven with the keyboard only through xdotool, as a user would:
//! a typed path (Ctrl+L, Enter), the parent (Alt+Up), tabs (Ctrl+T, Ctrl+W), a screenshot
//! that is not blank, Ctrl+Q, and a start without a folder that restores the tabs.
//!
//! It needs Xvfb, xdotool and xwd (`.ci/run` installs them). Without them the test says so and
//! passes, unless `FERRY_WINDOW_TEST=required` (set by `.ci/run`) makes that a failure. The
//! file operations in a real window are in `window_ops`; the helpers in `window_support`.

use ferry_tests::TempTree;

use crate::window_support::{Session, tools_present, xvfb};

#[test]
fn the_window_is_driven_by_keyboard_alone_and_restores_its_tabs() {
    if !tools_present(&["Xvfb", "xdotool", "xwd"]) {
        return;
    }
    let tree = TempTree::new();
    let start = tree.dir("home/fixture");
    tree.dir("home/fixture/inner/deeper");
    tree.file("home/fixture/readme.txt", "hello");
    tree.dir("home/other");
    let x = xvfb();
    let session = Session::new(&tree, &x, "window-keyboard-and-tabs");

    let mut ferry = session.ferry(Some(&start));
    let window = session.window();
    session.title_becomes(&window, "fixture — Ferry");

    // Ctrl+L, a typed path, Enter: the folder opens.
    session.keys(&window, &["ctrl+l"]);
    session.type_text(
        &window,
        &tree.join("home/fixture/inner/deeper").display().to_string(),
    );
    session.keys(&window, &["Return"]);
    session.title_becomes(&window, "deeper — Ferry");
    // Alt+Up: the parent.
    session.keys(&window, &["alt+Up"]);
    session.title_becomes(&window, "inner — Ferry");
    // Ctrl+T opens a tab on the same folder; in it, go elsewhere; Ctrl+W closes it.
    session.keys(&window, &["ctrl+t", "ctrl+l"]);
    session.type_text(&window, &tree.join("home/other").display().to_string());
    session.keys(&window, &["Return"]);
    session.title_becomes(&window, "other — Ferry");
    session.keys(&window, &["ctrl+w"]);
    session.title_becomes(&window, "inner — Ferry");

    // Something is drawn: far more than a blank screen's colours.
    let colours = session.screen().colours();
    session.check(
        colours > 20,
        &format!("more than 20 colours on the screen, not {colours}"),
    );

    // Two tabs, then Ctrl+Q: Ferry quits and keeps the session.
    session.keys(&window, &["ctrl+t", "ctrl+l"]);
    session.type_text(&window, &tree.join("home/other").display().to_string());
    session.keys(&window, &["Return"]);
    session.title_becomes(&window, "other — Ferry");
    session.keys(&window, &["ctrl+q"]);
    let status = session.wait("Ferry to quit", || ferry.exited());
    session.check(
        status.success(),
        &format!("Ferry to quit with success, not {status}"),
    );

    // Started without a folder: the two tabs are back, the second one shown.
    let mut restored = session.ferry(None);
    let window = session.window();
    session.title_becomes(&window, "other — Ferry");
    session.keys(&window, &["ctrl+w"]);
    session.title_becomes(&window, "inner — Ferry");
    session.keys(&window, &["ctrl+q"]);
    let status = session.wait("Ferry to quit", || restored.exited());
    session.check(
        status.success(),
        &format!("Ferry to quit with success, not {status}"),
    );
}
