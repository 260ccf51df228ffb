//! The file clipboard against another X11 client, under an Xvfb of each test's own: what Ferry
//! offers read by `xclip -o` in every format (10,000 paths by INCR too), what `xclip -i`
//! offers read back as files with their cut flag or as text, the loss of the clipboard to
//! xclip, an owner that never answers, and clearing.
//!
//! It needs Xvfb and xclip (`.ci/run` installs them). Without them the tests say so and pass,
//! unless `FERRY_WINDOW_TEST=required` (set by `.ci/run`) makes that a failure.

use std::ffi::OsStr;
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use ferry_app::gui::clipboard::{ClipboardEvent, Contents, FileClipboard, formats};
use ferry_core::Error;

use crate::window_support::Xvfb;

/// How long anything may take on a busy machine.
const PATIENCE: Duration = Duration::from_secs(30);

/// A child process killed when dropped.
struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// An X server, or `None` (with a note) when Xvfb or xclip is missing.
fn xvfb() -> Option<Xvfb> {
    let required = std::env::var("FERRY_WINDOW_TEST").is_ok_and(|v| v == "required");
    let missing: Vec<&str> = ["Xvfb", "xclip"].into_iter().filter(|t| !have(t)).collect();
    if !missing.is_empty() {
        assert!(!required, "missing {missing:?} for the clipboard tests");
        eprintln!("note: clipboard test skipped: {missing:?} not installed");
        return None;
    }
    Some(crate::window_support::xvfb())
}

/// Polls `check` until it gives a value.
fn until<T>(what: &str, mut check: impl FnMut() -> Option<T>) -> T {
    let end = Instant::now() + PATIENCE;
    loop {
        if let Some(value) = check() {
            return value;
        }
        assert!(Instant::now() < end, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

impl Xvfb {
    fn xclip(&self) -> Command {
        let mut command = Command::new("xclip");
        command
            .env("DISPLAY", self.display())
            .args(["-selection", "clipboard"]);
        command
    }

    /// `xclip -o -t target`: the bytes, or `None` while the clipboard does not offer it.
    fn read(&self, target: &str) -> Option<Vec<u8>> {
        let out = self
            .xclip()
            .args(["-t", target, "-o"])
            .stderr(Stdio::null())
            .output()
            .unwrap();
        out.status.success().then_some(out.stdout)
    }

    /// `xclip -i -t target` offering `data`, in the foreground until it loses the clipboard;
    /// returns once it owns it.
    fn offer(&self, target: &str, data: &[u8]) -> Killed {
        let mut child = self
            .xclip()
            .args(["-t", target, "-i", "-quiet"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(data).unwrap();
        let owner = Killed(child);
        // xclip's TARGETS are exactly these two (Ferry's are more).
        let own = format!("TARGETS\n{target}\n");
        until("xclip to own the clipboard", || {
            (self.read("TARGETS")? == own.as_bytes()).then_some(())
        });
        owner
    }

    fn clipboard(&self) -> (FileClipboard, crossbeam_channel::Receiver<ClipboardEvent>) {
        FileClipboard::start_x11(Some(self.display())).expect("the X11 clipboard starts")
    }
}

fn paths() -> Vec<PathBuf> {
    vec![
        PathBuf::from("/home/u/My Music/100% live.ogg"),
        PathBuf::from(OsStr::from_bytes(b"/tmp/caf\xc3\xa9/raw\xff")),
    ]
}

#[test]
fn what_ferry_offers_is_read_by_xclip_in_every_format() {
    let Some(x) = xvfb() else { return };
    let (clipboard, _events) = x.clipboard();
    clipboard.offer_files(paths(), true);
    let gnome = until("Ferry's offer", || x.read(formats::GNOME_COPIED_FILES));
    assert_eq!(
        gnome,
        b"cut\nfile:///home/u/My%20Music/100%25%20live.ogg\nfile:///tmp/caf%C3%A9/raw%FF"
    );
    assert_eq!(
        x.read(formats::URI_LIST).unwrap(),
        b"file:///home/u/My%20Music/100%25%20live.ogg\r\nfile:///tmp/caf%C3%A9/raw%FF\r\n"
    );
    assert_eq!(x.read(formats::KDE_CUT).unwrap(), b"1");
    let text = "/home/u/My Music/100% live.ogg\n/tmp/café/raw\u{FFFD}";
    assert_eq!(x.read(formats::UTF8_STRING).unwrap(), text.as_bytes());
    assert_eq!(x.read(formats::TEXT_UTF8).unwrap(), text.as_bytes());
    let targets = String::from_utf8(x.read("TARGETS").unwrap()).unwrap();
    for target in [
        "TARGETS",
        "TIMESTAMP",
        formats::GNOME_COPIED_FILES,
        formats::URI_LIST,
        formats::KDE_CUT,
        formats::UTF8_STRING,
        formats::TEXT_UTF8,
        formats::TEXT_PLAIN,
        formats::STRING,
    ] {
        assert!(
            targets.lines().any(|t| t == target),
            "{target} in {targets}"
        );
    }
    assert!(
        x.read("image/png").is_none(),
        "a format not offered is refused"
    );

    // A copy replaces the cut; Ferry reads its own offer back as it is.
    clipboard.offer_files(paths(), false);
    until("the copy", || {
        (x.read(formats::KDE_CUT)? == b"0").then_some(())
    });
    assert!(
        x.read(formats::GNOME_COPIED_FILES)
            .unwrap()
            .starts_with(b"copy\n")
    );
    assert_eq!(clipboard.read().unwrap(), Contents::files(paths(), false));

    // Copy Location: text, as text.
    clipboard.offer_text("some words".into());
    until("the text", || {
        (x.read(formats::UTF8_STRING)? == b"some words").then_some(())
    });
    assert!(x.read(formats::URI_LIST).is_none());
    assert_eq!(
        clipboard.read().unwrap(),
        Contents::Text("some words".into())
    );
}

#[test]
fn files_offered_by_xclip_are_read_with_their_cut_flag() {
    let Some(x) = xvfb() else { return };
    let (clipboard, _events) = x.clipboard();
    assert_eq!(clipboard.read().unwrap(), Contents::Empty);

    let list = b"# a comment\r\nfile:///srv/a%20b\r\nfile://localhost/srv/%FF\r\n";
    let owner = x.offer(formats::URI_LIST, list);
    let want = vec![
        PathBuf::from("/srv/a b"),
        PathBuf::from(OsStr::from_bytes(b"/srv/\xff")),
    ];
    assert_eq!(
        clipboard.read().unwrap(),
        Contents::files(want.clone(), false)
    );
    drop(owner);

    let _owner = x.offer(
        formats::GNOME_COPIED_FILES,
        b"cut\nfile:///srv/a%20b\nfile:///srv/%FF\n",
    );
    assert_eq!(clipboard.read().unwrap(), Contents::files(want, true));

    // Nautilus empties the clipboard once a cut is pasted; so does `clear` here.
    clipboard.clear();
    until("the clipboard to empty", || {
        (clipboard.read().unwrap() == Contents::Empty).then_some(())
    });
}

#[test]
fn text_offered_by_xclip_is_text_unless_it_names_files() {
    let Some(x) = xvfb() else { return };
    let (clipboard, _events) = x.clipboard();
    let owner = x.offer(formats::UTF8_STRING, "hello, wörld".as_bytes());
    assert_eq!(
        clipboard.read().unwrap(),
        Contents::Text("hello, wörld".into())
    );
    drop(owner);

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a file.txt");
    std::fs::write(&file, "x").unwrap();
    let text = format!("{}\n{}\n", file.display(), dir.path().display());
    let _owner = x.offer(formats::UTF8_STRING, text.as_bytes());
    assert_eq!(
        clipboard.read().unwrap(),
        Contents::files(vec![file, dir.path().to_path_buf()], false)
    );
}

#[test]
fn ferry_hears_when_xclip_takes_the_clipboard() {
    let Some(x) = xvfb() else { return };
    let (clipboard, events) = x.clipboard();
    clipboard.offer_files(paths(), true);
    until("Ferry's offer", || x.read(formats::GNOME_COPIED_FILES));
    assert!(events.try_recv().is_err(), "no event while Ferry owns it");

    let _owner = x.offer(formats::UTF8_STRING, b"taken");
    assert_eq!(events.recv_timeout(PATIENCE), Ok(ClipboardEvent::Lost));
    assert_eq!(clipboard.read().unwrap(), Contents::Text("taken".into()));

    // Offered again: Ferry answers again, and clearing gives it up without an event.
    clipboard.offer_files(paths(), false);
    until("the new offer", || {
        x.read(formats::GNOME_COPIED_FILES)
            .filter(|g| g.starts_with(b"copy"))
    });
    clipboard.clear();
    until("the clipboard to empty", || {
        x.read(formats::UTF8_STRING).is_none().then_some(())
    });
    assert_eq!(clipboard.read().unwrap(), Contents::Empty);
    assert!(events.try_recv().is_err(), "clearing is not a loss");
}

/// A cut whose paste moved nothing goes back on the clipboard Ferry emptied, but never over
/// what another program put there meanwhile (that program's files would be the next paste's).
#[test]
fn a_cut_goes_back_only_on_a_clipboard_left_empty() {
    let Some(x) = xvfb() else { return };
    let (clipboard, events) = x.clipboard();
    clipboard.offer_files(paths(), true);
    until("Ferry's offer", || x.read(formats::GNOME_COPIED_FILES));
    clipboard.clear();
    until("the clipboard to empty", || {
        x.read(formats::UTF8_STRING).is_none().then_some(())
    });
    clipboard.restore_files(paths(), true);
    let back = until("the cut back", || x.read(formats::GNOME_COPIED_FILES));
    assert_eq!(back, formats::gnome_copied_files(&paths(), true));
    assert!(events.try_recv().is_err());

    clipboard.clear();
    until("the clipboard to empty", || {
        x.read(formats::UTF8_STRING).is_none().then_some(())
    });
    let _owner = x.offer(formats::UTF8_STRING, b"the user's");
    clipboard.restore_files(paths(), true);
    assert_eq!(events.recv_timeout(PATIENCE), Ok(ClipboardEvent::Lost));
    assert_eq!(
        clipboard.read().unwrap(),
        Contents::Text("the user's".into())
    );
}

#[test]
fn ten_thousand_paths_go_both_ways_by_incr() {
    let Some(x) = xvfb() else { return };
    let (clipboard, _events) = x.clipboard();
    // About 730 kB of URIs: past Ferry's 256 KiB pieces.
    let many: Vec<PathBuf> = (0..10_000)
        .map(|i| {
            PathBuf::from(format!(
                "/home/someone/Pictures/Holidays 2026/IMG_{i:05}.jpg"
            ))
        })
        .collect();
    clipboard.offer_files(many.clone(), false);
    let list = until("Ferry's offer", || x.read(formats::URI_LIST));
    assert_eq!(list.len(), formats::uri_list(&many).len());
    assert_eq!(list, formats::uri_list(&many));
    let gnome = x.read(formats::GNOME_COPIED_FILES).unwrap();
    assert_eq!(gnome, formats::gnome_copied_files(&many, false));

    // xclip offers by INCR past about 1 MB: 30,000 longer paths, about 2.7 MB.
    let more: Vec<PathBuf> = (0..30_000)
        .map(|i| {
            PathBuf::from(format!(
                "/home/someone/Music/A rather long folder name/Track number {i:05}.flac"
            ))
        })
        .collect();
    let _owner = x.offer(formats::URI_LIST, &formats::uri_list(&more));
    assert_eq!(clipboard.read().unwrap(), Contents::files(more, false));
}

#[test]
fn an_owner_that_never_answers_times_out() {
    let Some(x) = xvfb() else { return };
    let (clipboard, _events) = x.clipboard();
    let owner = x.offer(formats::URI_LIST, b"file:///srv/a\r\n");
    let signal = |sig: &str| {
        let status = Command::new("kill")
            .args([sig, &owner.0.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
    };
    signal("-STOP");
    let err = clipboard.read().unwrap_err();
    signal("-CONT");
    let Error::Clipboard { source, .. } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(source.kind(), std::io::ErrorKind::TimedOut, "{err}");
    // Answering again, it is read (a late answer to the first question is not taken for it).
    assert_eq!(
        clipboard.read().unwrap(),
        Contents::files(vec!["/srv/a".into()], false)
    );
}

/// A headless Sway (wlroots: it has data-control) of the test's own, run as an unprivileged
/// user (Sway refuses root), stopped when dropped.
struct Sway {
    child: Killed,
    runtime: tempfile::TempDir,
    socket: String,
}

/// A Sway, or `None` (with a note) when Sway, wl-clipboard or setpriv is missing. Never
/// required: `.ci/run` installs none of them.
fn sway() -> Option<Sway> {
    let missing: Vec<&str> = ["sway", "wl-copy", "wl-paste", "setpriv"]
        .into_iter()
        .filter(|t| !have(t))
        .collect();
    if !missing.is_empty() {
        eprintln!("note: Wayland clipboard test skipped: {missing:?} not installed");
        return None;
    }
    let runtime = tempfile::tempdir().unwrap();
    std::os::unix::fs::chown(runtime.path(), Some(65534), Some(65534)).unwrap();
    let child = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .args(["sway", "-c", "/dev/null"])
        .env("HOME", runtime.path())
        .env("XDG_RUNTIME_DIR", runtime.path())
        .env("WLR_BACKENDS", "headless")
        .env("WLR_RENDERER", "pixman")
        .env("WLR_LIBINPUT_NO_DEVICES", "1")
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let child = Killed(child);
    let socket = until("Sway's socket", || {
        std::fs::read_dir(runtime.path())
            .ok()?
            .flatten()
            .find_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                (name.starts_with("wayland-") && !name.ends_with(".lock")).then_some(name)
            })
    });
    Some(Sway {
        child,
        runtime,
        socket,
    })
}

impl Sway {
    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command
            .env("XDG_RUNTIME_DIR", self.runtime.path())
            .env("WAYLAND_DISPLAY", &self.socket)
            .env_remove("DISPLAY");
        command
    }
}

/// The environment variable that makes [`wayland_in_a_process_of_its_own`] run a case: the
/// clipboard is found through the environment, which a test cannot set for itself.
const WAYLAND_CHILD: &str = "FERRY_CLIPBOARD_WAYLAND_CHILD";

/// Runs `case` of [`wayland_in_a_process_of_its_own`] in a process with `command`'s
/// environment.
fn run_case(mut command: Command, case: &str) {
    let out = command
        .args([
            "--exact",
            "clipboard::wayland_in_a_process_of_its_own",
            "--nocapture",
        ])
        .env(WAYLAND_CHILD, case)
        .output()
        .unwrap();
    let printed =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{case}: {printed}");
    assert!(printed.contains("1 passed"), "{case}: {printed}");
}

fn this_test_binary() -> String {
    std::env::current_exe()
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned()
}

#[test]
fn wayland_data_control_works_with_wl_clipboard() {
    let Some(sway) = sway() else { return };
    assert!(sway.child.0.id() > 0);
    run_case(sway.command(&this_test_binary()), "data-control");
}

/// Weston has no data-control (as GNOME's Mutter): the clipboard is unsupported, unless an
/// X display is there too (XWayland), which is then used.
#[test]
fn without_data_control_the_x11_clipboard_is_used_or_none() {
    let Some(x) = xvfb() else { return };
    if !have("weston") {
        eprintln!("note: Wayland fallback test skipped: weston not installed");
        return;
    }
    let runtime = tempfile::tempdir().unwrap();
    std::fs::set_permissions(
        runtime.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o700),
    )
    .unwrap();
    let _weston = Killed(
        Command::new("weston")
            .args(["--backend=headless-backend.so", "--socket=wayland-ferry"])
            .env("XDG_RUNTIME_DIR", runtime.path())
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let socket = runtime.path().join("wayland-ferry");
    until("Weston's socket", || socket.exists().then_some(()));
    let command = |display: Option<&str>| {
        let mut command = Command::new(this_test_binary());
        command
            .env("XDG_RUNTIME_DIR", runtime.path())
            .env("WAYLAND_DISPLAY", "wayland-ferry")
            .env_remove("DISPLAY");
        if let Some(display) = display {
            command.env("DISPLAY", display);
        }
        command
    };
    run_case(command(None), "unsupported");
    run_case(command(Some(x.display())), "xwayland");
}

/// Run by the tests above with a compositor's environment; does nothing otherwise.
#[test]
fn wayland_in_a_process_of_its_own() {
    let Some(case) = std::env::var_os(WAYLAND_CHILD) else {
        return;
    };
    use ferry_app::gui::clipboard::Backend;
    match case.to_str() {
        Some("unsupported") => {
            let Err(err) = FileClipboard::start() else {
                panic!("a clipboard without data-control or X11");
            };
            let Error::Clipboard { source, .. } = &err else {
                panic!("{err:?}");
            };
            assert_eq!(source.kind(), std::io::ErrorKind::Unsupported, "{err}");
            return;
        }
        Some("xwayland") => {
            let (clipboard, _events) = FileClipboard::start().unwrap();
            assert_eq!(clipboard.backend(), Backend::X11);
            clipboard.offer_text("over XWayland".into());
            assert_eq!(
                clipboard.read().unwrap(),
                Contents::Text("over XWayland".into())
            );
            return;
        }
        Some("data-control") => {}
        other => panic!("unknown case {other:?}"),
    }
    let wl = |program: &str, args: &[&str]| -> Option<Vec<u8>> {
        let out = Command::new(program)
            .args(args)
            .stderr(Stdio::null())
            .output()
            .unwrap();
        out.status.success().then_some(out.stdout)
    };
    let paste = |mime: &str| wl("wl-paste", &["--no-newline", "--type", mime]);
    let (clipboard, events) = FileClipboard::start().expect("the Wayland clipboard starts");
    assert_eq!(clipboard.backend(), Backend::WaylandDataControl);

    clipboard.offer_files(paths(), true);
    let gnome = until("Ferry's offer", || paste(formats::GNOME_COPIED_FILES));
    assert_eq!(gnome, formats::gnome_copied_files(&paths(), true));
    assert_eq!(
        paste(formats::URI_LIST).unwrap(),
        formats::uri_list(&paths())
    );
    assert_eq!(paste(formats::KDE_CUT).unwrap(), b"1");
    assert_eq!(
        paste(formats::TEXT_UTF8).unwrap(),
        formats::text_of(&paths()).as_bytes()
    );
    assert_eq!(clipboard.read().unwrap(), Contents::files(paths(), true));

    // wl-copy takes the clipboard: Lost, and its list is read as files.
    let mut copy = Command::new("wl-copy")
        .args(["--foreground", "--type", formats::URI_LIST])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    copy.stdin
        .take()
        .unwrap()
        .write_all(b"file:///srv/a%20b\r\n")
        .unwrap();
    let copy = Killed(copy);
    assert_eq!(events.recv_timeout(PATIENCE), Ok(ClipboardEvent::Lost));
    assert_eq!(
        clipboard.read().unwrap(),
        Contents::files(vec!["/srv/a b".into()], false)
    );
    drop(copy);

    // 10,000 paths, then clear.
    let many: Vec<PathBuf> = (0..10_000)
        .map(|i| PathBuf::from(format!("/home/someone/Pictures/IMG_{i:05}.jpg")))
        .collect();
    clipboard.offer_files(many.clone(), false);
    let list = until("the large offer", || {
        paste(formats::URI_LIST).filter(|l| l.starts_with(b"file:///home/someone/Pictures"))
    });
    assert_eq!(list, formats::uri_list(&many));
    clipboard.clear();
    until("the clipboard to empty", || {
        wl("wl-paste", &["--list-types"]).is_none().then_some(())
    });
    assert_eq!(clipboard.read().unwrap(), Contents::Empty);
    assert!(
        events.try_recv().is_err(),
        "replacing or clearing is not a loss"
    );
}
