//! The real window under Xvfb, driven with the keyboard only through xdotool, as a user would:
//! a typed path (Ctrl+L, Enter), the parent (Alt+Up), tabs (Ctrl+T, Ctrl+W), a screenshot
//! that is not blank, Ctrl+Q, and a start without a folder that restores the tabs.
//!
//! It needs Xvfb, xdotool and xwd (`.ci/run` installs them). Without them the test says so and
//! passes, unless `FERRY_WINDOW_TEST=required` (set by `.ci/run`) makes that a failure.

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ferry_tests::TempTree;

/// How long the window gets to do each thing (Xvfb with software rendering on a busy machine).
const PATIENCE: Duration = Duration::from_secs(30);

/// An X server of our own, stopped when dropped.
struct Xvfb {
    child: Child,
    display: String,
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Starts Xvfb on a display number no other run uses.
fn xvfb() -> Xvfb {
    let base = 40 + std::process::id() % 200;
    for number in base..base + 50 {
        if Path::new(&format!("/tmp/.X11-unix/X{number}")).exists() {
            continue;
        }
        let display = format!(":{number}");
        let child = Command::new("Xvfb")
            .args([&display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("Xvfb starts");
        let socket = PathBuf::from(format!("/tmp/.X11-unix/X{number}"));
        wait_for("the X server's socket", || socket.exists().then_some(()));
        return Xvfb { child, display };
    }
    panic!("no free X display number");
}

/// Polls `check` until it gives a value.
fn wait_for<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let end = Instant::now() + PATIENCE;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// A desktop session's environment in a temporary home.
struct Session<'a> {
    tree: &'a TempTree,
    display: &'a str,
}

impl Session<'_> {
    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command
            .env("DISPLAY", self.display)
            .env("HOME", self.tree.join("home"))
            .env("XDG_CONFIG_HOME", self.tree.join("config"))
            .env("XDG_DATA_HOME", self.tree.join("data"))
            .env("XDG_STATE_HOME", self.tree.join("state"))
            .env("XDG_RUNTIME_DIR", self.tree.join("run"))
            .env_remove("WAYLAND_DISPLAY");
        command
    }

    fn ferry(&self, folder: Option<&Path>) -> Child {
        let mut command = self.command(env!("CARGO_BIN_EXE_ferry-under-test"));
        command
            .args(folder)
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        command.spawn().expect("ferry starts")
    }

    fn xdotool(&self, args: &[&str]) -> String {
        let out = self
            .command("xdotool")
            .args(args)
            .output()
            .expect("xdotool runs");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// Ferry's window, once it has drawn itself (keys sent before are lost). Only a mapped
    /// one: the file clipboard's own window, never shown, is named "Ferry clipboard".
    fn window(&self) -> String {
        let window = wait_for("Ferry's window", || {
            let found = self.xdotool(&["search", "--onlyvisible", "--name", "Ferry"]);
            found.lines().next().map(str::to_owned)
        });
        wait_for("the first frame", || (self.colours() > 20).then_some(()));
        window
    }

    fn title_becomes(&self, window: &str, title: &str) {
        wait_for(&format!("the title {title:?}"), || {
            (self.xdotool(&["getwindowname", window]) == title).then_some(())
        });
    }

    fn keys(&self, window: &str, keys: &[&str]) {
        self.xdotool(&["windowfocus", "--sync", window]);
        for key in keys {
            self.xdotool(&["key", "--clearmodifiers", key]);
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    fn type_text(&self, window: &str, text: &str) {
        self.xdotool(&["windowfocus", "--sync", window]);
        self.xdotool(&["type", "--delay", "30", text]);
    }

    /// Distinct colours of the screen (xwd's dump, 32 bits per pixel).
    fn colours(&self) -> usize {
        let out = self
            .command("xwd")
            .args(["-root", "-silent"])
            .output()
            .expect("xwd runs");
        colours_in_xwd(&out.stdout)
    }
}

/// Distinct pixel values of an XWD dump with 32 bits per pixel.
fn colours_in_xwd(dump: &[u8]) -> usize {
    let word = |i: usize| u32::from_be_bytes(dump[i * 4..i * 4 + 4].try_into().unwrap()) as usize;
    let (header, bits, colours) = (word(0), word(11), word(19));
    assert_eq!(bits, 32, "a 24-bit screen");
    let pixels = &dump[header + colours * 12..];
    let distinct: std::collections::HashSet<&[u8]> = pixels.chunks_exact(4).collect();
    distinct.len()
}

#[test]
fn the_window_is_driven_by_keyboard_alone_and_restores_its_tabs() {
    let required = std::env::var("FERRY_WINDOW_TEST").is_ok_and(|v| v == "required");
    let missing: Vec<&str> = ["Xvfb", "xdotool", "xwd"]
        .into_iter()
        .filter(|t| !have(t))
        .collect();
    if !missing.is_empty() {
        assert!(!required, "missing {missing:?} for the real-window test");
        eprintln!("note: real-window test skipped: {missing:?} not installed");
        return;
    }
    let tree = TempTree::new();
    let start = tree.dir("home/fixture");
    tree.dir("home/fixture/inner/deeper");
    tree.file("home/fixture/readme.txt", "hello");
    tree.dir("home/other");
    let run = tree.dir("run");
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).unwrap();
    let x = xvfb();
    let session = Session {
        tree: &tree,
        display: &x.display,
    };

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
    let colours = session.colours();
    assert!(colours > 20, "the screen shows only {colours} colours");

    // Two tabs, then Ctrl+Q: Ferry quits and keeps the session.
    session.keys(&window, &["ctrl+t", "ctrl+l"]);
    session.type_text(&window, &tree.join("home/other").display().to_string());
    session.keys(&window, &["Return"]);
    session.title_becomes(&window, "other — Ferry");
    session.keys(&window, &["ctrl+q"]);
    let status = wait_for("Ferry to quit", || ferry.try_wait().unwrap());
    let mut errors = String::new();
    ferry
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut errors)
        .unwrap();
    assert!(status.success(), "exit {status}: {errors}");

    // Started without a folder: the two tabs are back, the second one shown.
    let mut restored = session.ferry(None);
    let window = session.window();
    session.title_becomes(&window, "other — Ferry");
    session.keys(&window, &["ctrl+w"]);
    session.title_becomes(&window, "inner — Ferry");
    session.keys(&window, &["ctrl+q"]);
    let status = wait_for("Ferry to quit", || restored.try_wait().unwrap());
    assert!(status.success());
}
