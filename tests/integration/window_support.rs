//! Helpers for the real-window tests (`window`, `window_ops`): an Xvfb of each test's own, a
//! desktop session in a temporary home, Ferry started in it with its log kept, xdotool and
//! xclip as a user's other programs, and the screen read back to find rows and dialogs.
//!
//! Every wait polls a condition; a check that fails saves the screen as a PNG under the
//! target's `tmp` folder and says where, with the end of Ferry's log.

use std::cell::Cell;
use std::fs::OpenOptions;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ferry_tests::TempTree;
use iced::theme::Mode;

/// How long the window gets to do each thing (Xvfb with software rendering on a busy machine).
pub const PATIENCE: Duration = Duration::from_secs(30);

/// How long type-ahead remembers what was typed (the browser's `TYPE_AHEAD_RESET`), plus a
/// margin: letters typed later start a new search.
const TYPE_AHEAD_FORGETS: Duration = Duration::from_millis(1300);

/// True when `tools` are installed. When one is missing the test should return (it says so),
/// unless `FERRY_WINDOW_TEST=required` (set by `.ci/run`), which makes that a failure.
pub fn tools_present(tools: &[&str]) -> bool {
    let required = std::env::var("FERRY_WINDOW_TEST").is_ok_and(|v| v == "required");
    let missing: Vec<&str> = tools.iter().copied().filter(|t| !have(t)).collect();
    if missing.is_empty() {
        return true;
    }
    assert!(!required, "missing {missing:?} for the real-window tests");
    eprintln!("note: real-window test skipped: {missing:?} not installed");
    false
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A child process killed when dropped (Ferry, an X server, an xclip offering something), so
/// that a failing test leaves nothing running.
pub struct Killed(Child);

impl Killed {
    /// Its exit status, once it has exited.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.0.try_wait().unwrap()
    }
}

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// An X server of the test's own, stopped when dropped.
pub struct Xvfb {
    server: Killed,
    display: String,
}

impl Drop for Xvfb {
    /// Asks the server to end (SIGTERM), so that it removes its lock file and socket: one
    /// killed outright leaves them, and two servers starting at once can both take the stale
    /// display, the second cutting the first one's clients off ("Connection reset by peer").
    fn drop(&mut self) {
        let child = &mut self.server.0;
        if let Some(pid) = rustix::process::Pid::from_raw(child.id() as i32) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
        }
        let end = Instant::now() + Duration::from_secs(5);
        while child.try_wait().is_ok_and(|s| s.is_none()) && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Xvfb {
    /// The display's name, as `DISPLAY` takes it.
    pub fn display(&self) -> &str {
        &self.display
    }
}

/// Starts Xvfb on a display it picks itself (`-displayfd`), so tests running at once never
/// share one. `-noreset`: a bare X server otherwise resets whenever its last client leaves,
/// and one connecting meanwhile is cut off ("Connection reset by peer"); a test polling with
/// `xdotool` before Ferry has connected was that last client, one time in about twelve.
pub fn xvfb() -> Xvfb {
    start_xvfb(&["-noreset"])
}

/// An Xvfb that resets whenever its last client leaves, as a bare X server does.
pub fn resetting_xvfb() -> Xvfb {
    start_xvfb(&[])
}

fn start_xvfb(extra: &[&str]) -> Xvfb {
    let mut child = Command::new("Xvfb")
        .args(["-displayfd", "1", "-screen", "0", "1280x800x24"])
        .args(extra)
        .args(["-nolisten", "tcp"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("Xvfb starts");
    let mut number = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut number)
        .unwrap();
    let server = Killed(child);
    assert!(!number.trim().is_empty(), "Xvfb gave no display number");
    Xvfb {
        server,
        display: format!(":{}", number.trim()),
    }
}

/// Polls `check` for at most `patience`.
fn poll<T>(patience: Duration, mut check: impl FnMut() -> Option<T>) -> Option<T> {
    let end = Instant::now() + patience;
    loop {
        if let Some(value) = check() {
            return Some(value);
        }
        if Instant::now() >= end {
            return None;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Ferry's top-level window and where it is on the screen.
#[derive(Debug, Clone)]
pub struct Window {
    /// The X window id, for xdotool.
    pub id: String,
    pub x: u32,
    pub y: u32,
    pub width: u32,
}

impl Window {
    /// A column of the screen inside the list's name column, right of the icons and of the
    /// fixtures' short names: half-way across the window (the sidebar takes its left 200 px
    /// of 1100, the name column runs to about 680).
    pub fn name_column_x(&self) -> u32 {
        self.x + self.width / 2
    }

    /// A point of the toolbar's background between its buttons, which a dialog's backdrop
    /// dims (the sidebar's bottom can be under the jobs panel).
    fn chrome_spot(&self) -> (u32, u32) {
        (self.x + 400, self.y + 6)
    }
}

/// A desktop session's environment in a temporary home: `home/`, `config/`, `data/` (the
/// trash is `data/Trash`), `state/` and `run/` of `tree`.
pub struct Session<'a> {
    tree: &'a TempTree,
    display: String,
    /// Names the screenshot a failure saves.
    name: &'static str,
    log: PathBuf,
    /// How many times Ferry was started.
    started: Cell<usize>,
    /// When the last type-ahead was seen to select something.
    typed_at: Cell<Option<Instant>>,
}

impl<'a> Session<'a> {
    /// A session on `x` in `tree`; `name` (the test's) names the screenshot of a failure.
    pub fn new(tree: &'a TempTree, x: &Xvfb, name: &'static str) -> Self {
        for dir in ["home", "config", "data", "state"] {
            tree.dir(dir);
        }
        let run = tree.dir("run");
        std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).unwrap();
        Session {
            tree,
            display: x.display.clone(),
            name,
            log: tree.join("ferry.log"),
            started: Cell::new(0),
            typed_at: Cell::new(None),
        }
    }

    /// The session's trash, `$XDG_DATA_HOME/Trash`.
    pub fn trash(&self) -> PathBuf {
        self.tree.join("data/Trash")
    }

    pub fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command
            .env("DISPLAY", &self.display)
            .env("HOME", self.tree.join("home"))
            .env("XDG_CONFIG_HOME", self.tree.join("config"))
            .env("XDG_DATA_HOME", self.tree.join("data"))
            .env("XDG_STATE_HOME", self.tree.join("state"))
            .env("XDG_RUNTIME_DIR", self.tree.join("run"))
            .env_remove("WAYLAND_DISPLAY");
        command
    }

    /// Starts Ferry (on `folder`, or restoring the session), its log appended to the
    /// session's `ferry.log`.
    pub fn ferry(&self, folder: Option<&Path>) -> Killed {
        self.started.set(self.started.get() + 1);
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log)
            .unwrap();
        self.command(env!("CARGO_BIN_EXE_ferry-under-test"))
            .args(folder)
            .env("RUST_LOG", "ferry=info")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map(Killed)
            .expect("ferry starts")
    }

    /// Ferry started on `folder`, with its window once it has drawn the folder's rows.
    pub fn open(&self, folder: &Path) -> (Killed, Window) {
        let ferry = self.ferry(Some(folder));
        let window = self.window();
        self.title_becomes(&window, &title_of(folder));
        self.wait_listed(folder, 1);
        (ferry, window)
    }

    pub fn xdotool(&self, args: &[&str]) -> String {
        let out = self
            .command("xdotool")
            .args(args)
            .output()
            .expect("xdotool runs");
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    }

    /// Ferry's window, once it has drawn itself (keys sent before are lost). Only a visible
    /// one: the clipboard's own window is named "Ferry clipboard" too.
    pub fn window(&self) -> Window {
        let id = self.wait("Ferry's window to be shown", || {
            let found = self.xdotool(&["search", "--onlyvisible", "--name", "Ferry"]);
            found.lines().next().map(str::to_owned)
        });
        self.wait("Ferry's first frame in its log", || {
            (self.log_text().matches("first frame").count() >= self.started.get()).then_some(())
        });
        let geometry = self.xdotool(&["getwindowgeometry", "--shell", &id]);
        let field = |name: &str| -> u32 {
            geometry
                .lines()
                .find_map(|l| l.strip_prefix(&format!("{name}=")))
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("no {name} in xdotool's geometry: {geometry}"))
        };
        Window {
            x: field("X"),
            y: field("Y"),
            width: field("WIDTH"),
            id,
        }
    }

    pub fn title_becomes(&self, window: &Window, title: &str) {
        self.wait(&format!("the window's title to become {title:?}"), || {
            (self.xdotool(&["getwindowname", &window.id]) == title).then_some(())
        });
    }

    /// Waits until the log says `folder` was opened and shown `times` times in all (the
    /// `navigate <path>: first rows …` line of each navigation).
    pub fn wait_listed(&self, folder: &Path, times: usize) {
        let line = format!("navigate {}: ", folder.display());
        self.wait(
            &format!(
                "{} to be listed ({times} times in the log)",
                folder.display()
            ),
            || (self.log_text().matches(&line).count() >= times).then_some(()),
        );
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn keys(&self, window: &Window, keys: &[&str]) {
        self.xdotool(&["windowfocus", "--sync", &window.id]);
        for key in keys {
            self.xdotool(&["key", "--clearmodifiers", key]);
            std::thread::sleep(Duration::from_millis(150));
        }
    }

    pub fn type_text(&self, window: &Window, text: &str) {
        self.xdotool(&["windowfocus", "--sync", &window.id]);
        self.xdotool(&["type", "--delay", "30", text]);
    }

    /// Ctrl+L, `folder` typed, Enter: waits for the title and the rows.
    pub fn go_to(&self, window: &Window, folder: &Path) {
        let line = format!("navigate {}: ", folder.display());
        let before = self.log_text().matches(&line).count();
        self.keys(window, &["ctrl+l"]);
        self.type_text(window, &folder.display().to_string());
        self.keys(window, &["Return"]);
        self.title_becomes(window, &title_of(folder));
        self.wait_listed(folder, before + 1);
    }

    /// Type-ahead as a user does it: Escape clears the selection, then `prefix` is typed until
    /// a row is selected (again, once type-ahead has forgotten the last try, while the folder's
    /// listing has not caught up with a change yet). Returns the selected row's middle, in
    /// screen coordinates.
    pub fn select_by_typing(&self, window: &Window, prefix: &str) -> (u32, u32) {
        let x = window.name_column_x();
        let end = Instant::now() + PATIENCE;
        loop {
            if let Some(at) = self.typed_at.get() {
                let since = at.elapsed();
                if since < TYPE_AHEAD_FORGETS {
                    std::thread::sleep(TYPE_AHEAD_FORGETS - since);
                }
            }
            self.keys(window, &["Escape"]);
            self.wait("Escape to clear the selection", || {
                self.screen().selected_rows(x).is_empty().then_some(())
            });
            self.type_text(window, prefix);
            let selected = poll(Duration::from_secs(3), || {
                self.screen().selected_rows(x).first().copied()
            });
            self.typed_at.set(Some(Instant::now()));
            if let Some((top, bottom)) = selected {
                return (x, (top + bottom) / 2);
            }
            if Instant::now() >= end {
                self.fail(&format!(
                    "typing {prefix:?} selected no row (no run of the selected colour at x={x})"
                ));
            }
        }
    }

    /// True while a dialog's backdrop dims the window.
    pub fn dialog_shown(&self, window: &Window) -> bool {
        let (x, y) = window.chrome_spot();
        self.screen().pixel(x, y) != rgb(light().chrome)
    }

    /// The whole screen now.
    pub fn screen(&self) -> Screen {
        let out = self
            .command("xwd")
            .args(["-root", "-silent"])
            .output()
            .expect("xwd runs");
        Screen::from_xwd(&out.stdout)
    }

    /// Polls `check`; after [`PATIENCE`] fails the test with `what` it waited for.
    pub fn wait<T>(&self, what: &str, check: impl FnMut() -> Option<T>) -> T {
        poll(PATIENCE, check).unwrap_or_else(|| self.fail(&format!("timed out waiting for {what}")))
    }

    /// Fails the test unless `ok`, saying `expected`.
    pub fn check(&self, ok: bool, expected: &str) {
        if !ok {
            self.fail(&format!("expected {expected}"));
        }
    }

    /// Fails the test with `why`, the path of a screenshot taken now and the end of Ferry's log.
    pub fn fail(&self, why: &str) -> ! {
        let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{}.png", self.name));
        let saved = match self.screen().save_png(&shot) {
            Ok(()) => format!("screenshot: {}", shot.display()),
            Err(e) => format!("no screenshot ({e})"),
        };
        let log = self.log_text();
        let tail: Vec<&str> = log.lines().rev().take(15).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        panic!(
            "{why}\n{saved}\nthe end of Ferry's log:\n{}",
            tail.join("\n")
        );
    }

    /// xclip on the clipboard selection.
    fn xclip(&self) -> Command {
        let mut command = self.command("xclip");
        command.args(["-selection", "clipboard"]);
        command
    }

    /// `xclip -o -t target`: what the clipboard's owner gives, or `None` while it offers no
    /// such format.
    pub fn clipboard(&self, target: &str) -> Option<Vec<u8>> {
        let out = self
            .xclip()
            .args(["-t", target, "-o"])
            .stderr(Stdio::null())
            .output()
            .expect("xclip runs");
        out.status.success().then_some(out.stdout)
    }

    /// `xclip -i -t target` offering `data` (in the foreground until it loses the clipboard
    /// or is dropped); returns once it owns the clipboard.
    pub fn offer(&self, target: &str, data: &[u8]) -> Killed {
        let mut child = self
            .xclip()
            .args(["-t", target, "-i", "-quiet"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("xclip runs");
        child.stdin.take().unwrap().write_all(data).unwrap();
        let owner = Killed(child);
        // xclip's TARGETS are exactly these two (Ferry's are more).
        let own = format!("TARGETS\n{target}\n");
        self.wait("xclip to own the clipboard", || {
            (self.clipboard("TARGETS")? == own.as_bytes()).then_some(())
        });
        owner
    }
}

/// The window's title for a folder: "<name> — Ferry".
pub fn title_of(folder: &Path) -> String {
    format!("{} — Ferry", folder.file_name().unwrap().to_string_lossy())
}

/// Ferry's light palette: a session without a desktop portal gets it.
fn light() -> &'static ferry_app::gui::style::Colors {
    ferry_app::gui::style::colors(&ferry_app::gui::style::theme(Mode::Light))
}

fn rgb(color: iced::Color) -> [u8; 3] {
    let [r, g, b, _] = color.into_rgba8();
    [r, g, b]
}

/// A screenshot: 8-bit RGB, row by row.
pub struct Screen {
    width: u32,
    height: u32,
    pixels: Vec<[u8; 3]>,
}

impl Screen {
    /// Decodes an XWD dump (`xwd -root`) of a TrueColor screen with 32 bits per pixel.
    fn from_xwd(dump: &[u8]) -> Screen {
        let word =
            |i: usize| u32::from_be_bytes(dump[i * 4..i * 4 + 4].try_into().unwrap()) as usize;
        let (header, byte_order, bits, line) = (word(0), word(7), word(11), word(12));
        let (width, height, colours) = (word(4), word(5), word(19));
        let masks = [word(14), word(15), word(16)];
        assert_eq!(bits, 32, "a 24-bit screen (32 bits per pixel)");
        let data = &dump[header + colours * 12..];
        let mut pixels = Vec::with_capacity(width * height);
        for y in 0..height {
            for x in 0..width {
                let at = y * line + x * 4;
                let bytes: [u8; 4] = data[at..at + 4].try_into().unwrap();
                let value = if byte_order == 0 {
                    u32::from_le_bytes(bytes)
                } else {
                    u32::from_be_bytes(bytes)
                } as usize;
                pixels.push(masks.map(|mask| ((value & mask) >> mask.trailing_zeros()) as u8));
            }
        }
        Screen {
            width: width as u32,
            height: height as u32,
            pixels,
        }
    }

    pub fn pixel(&self, x: u32, y: u32) -> [u8; 3] {
        self.pixels[(y * self.width + x) as usize]
    }

    /// How many distinct colours the screen shows.
    pub fn colours(&self) -> usize {
        self.pixels
            .iter()
            .collect::<std::collections::HashSet<_>>()
            .len()
    }

    /// The runs (first and last y) of a selected row's colour down the column `x`, at least
    /// 10 px tall, top to bottom.
    pub fn selected_rows(&self, x: u32) -> Vec<(u32, u32)> {
        let selected = rgb(light().selected);
        let mut runs = Vec::new();
        let mut start = None;
        for y in 0..=self.height {
            let hit = y < self.height && self.pixel(x, y) == selected;
            match (hit, start) {
                (true, None) => start = Some(y),
                (false, Some(top)) => {
                    if y - top >= 10 {
                        runs.push((top, y - 1));
                    }
                    start = None;
                }
                _ => {}
            }
        }
        runs
    }

    fn save_png(&self, path: &Path) -> Result<(), String> {
        let bytes: Vec<u8> = self.pixels.iter().flatten().copied().collect();
        let image = image::RgbImage::from_raw(self.width, self.height, bytes)
            .ok_or("the pixels do not fill the image")?;
        image.save(path).map_err(|e| e.to_string())
    }
}
