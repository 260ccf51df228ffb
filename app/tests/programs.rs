//! The two programs: `ferry`, the command line without the window's code, and `ferry-window`,
//! which it becomes for the window and for `bench`.

use std::path::Path;
use std::process::Command;

const FERRY: &str = env!("CARGO_BIN_EXE_ferry");

/// `ferry` does not link the GUI toolkit, whose `tiny-xlib` loads libX11 before `main` (about
/// 1.5 ms of every command's start, with the relocations of a binary seven times larger).
#[test]
fn ferry_has_no_gui_toolkit() {
    let binary = std::fs::read(FERRY).unwrap();
    for needle in [&b"libX11.so"[..], b"iced_winit", b"tiny_xlib"] {
        assert!(
            !binary.windows(needle.len()).any(|w| w == needle),
            "{FERRY} contains {:?}: it links the window's code",
            String::from_utf8_lossy(needle)
        );
    }
}

#[test]
fn ferry_runs_commands_itself() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a-file"), b"x").unwrap();
    let out = Command::new(FERRY)
        .arg("ls")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("a-file"));
}

/// `bench` is `ferry-window`'s: `ferry` hands it over with its arguments.
#[test]
fn ferry_hands_bench_to_ferry_window() {
    let window = Path::new(FERRY).with_file_name("ferry-window");
    assert!(window.is_file(), "{} is built with ferry", window.display());
    let out = Command::new(FERRY)
        .args(["bench", "--help"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("--rounds"));
}

/// Without `ferry-window` beside it, `ferry` says so and exits 2 instead of opening nothing.
#[test]
fn ferry_without_ferry_window_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let lone = dir.path().join("ferry");
    std::fs::copy(FERRY, &lone).unwrap();
    for args in [&[][..], &["bench", "--quick"][..]] {
        let out = Command::new(&lone).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&*dir.path().join("ferry-window").to_string_lossy()),
            "{args:?}: {stderr}"
        );
    }
}
