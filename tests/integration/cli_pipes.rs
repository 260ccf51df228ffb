//! A reader that goes away (`ferry ls | head`) never makes a command panic (RELIABILITY rule
//! 22): every printing command, its stdout or stderr a pipe whose reading end is closed before
//! it starts (so its first write fails with EPIPE), exits quietly with its usual status.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Output, Stdio};

use ferry_tests::TempTree;

use crate::ferry_in;
use crate::undo::ok;

/// Exit status of a panic in Rust.
const PANICKED: i32 = 101;

/// A pipe nobody reads: its reading end is closed already.
fn closed_pipe() -> Stdio {
    let (reader, writer) = rustix::pipe::pipe().unwrap();
    drop(reader);
    Stdio::from(writer)
}

#[derive(Clone, Copy)]
enum Closed {
    Stdout,
    Stderr,
}

fn run_closed(home: &Path, args: &[&std::ffi::OsStr], closed: Closed) -> Output {
    let mut command = ferry_in(home);
    command.args(args);
    match closed {
        Closed::Stdout => command.stdout(closed_pipe()),
        Closed::Stderr => command.stderr(closed_pipe()),
    };
    command.output().unwrap()
}

fn assert_quiet(out: &Output, code: i32, what: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{what}: {stderr}");
    assert_eq!(out.status.signal(), None, "{what}: killed by a signal");
    assert_ne!(out.status.code(), Some(PANICKED), "{what}: panicked");
    assert_eq!(out.status.code(), Some(code), "{what}: {stderr}");
}

/// A home with a journal of two jobs and an item in the trash.
fn used_home(t: &TempTree) -> std::path::PathBuf {
    let home = t.dir("home");
    let a = t.file("work/a.txt", "a");
    ok(&ferry_in(&home)
        .arg("cp")
        .arg(&a)
        .arg(t.dir("copies"))
        .output()
        .unwrap());
    ok(&ferry_in(&home)
        .arg("trash")
        .arg(t.join("copies/a.txt"))
        .output()
        .unwrap());
    home
}

#[test]
fn listings_exit_quietly_when_their_reader_is_gone() {
    let t = TempTree::new();
    let home = used_home(&t);
    t.many_files("many", "f", 2000, 0);
    let many = t.join("many");
    let listings: [(&str, Vec<&std::ffi::OsStr>); 4] = [
        ("ls", vec!["ls".as_ref(), many.as_os_str()]),
        (
            "ls --json",
            vec!["ls".as_ref(), "--json".as_ref(), many.as_os_str()],
        ),
        ("history", vec!["history".as_ref()]),
        ("restore (the trash listing)", vec!["restore".as_ref()]),
    ];
    for (what, args) in &listings {
        // The listing is not empty.
        let shown = ok(&ferry_in(&home).args(args).output().unwrap());
        assert!(!shown.is_empty(), "{what}");
        assert_quiet(&run_closed(&home, args, Closed::Stdout), 0, what);
    }
    let help = run_closed(&home, &["--help".as_ref()], Closed::Stdout);
    assert_quiet(&help, 0, "--help");
}

/// Output lost for another reason (no space left) is not success.
#[test]
fn a_listing_that_cannot_be_written_fails() {
    let t = TempTree::new();
    let home = used_home(&t);
    let full = std::fs::File::options()
        .write(true)
        .open("/dev/full")
        .unwrap();
    // The help too, which clap writes.
    for args in [&["history"][..], &["--help"], &["help", "cp"]] {
        let full = full.try_clone().unwrap();
        let out = ferry_in(&home).args(args).stdout(full).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("cannot write the output"), "{stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

#[test]
fn messages_on_a_closed_stderr_never_panic() {
    let t = TempTree::new();
    let home = used_home(&t);
    // "ferry: undoing the trash ..." goes to stderr first.
    let undo = run_closed(&home, &["undo".as_ref()], Closed::Stderr);
    assert_quiet(&undo, 0, "undo");
    assert!(t.join("copies/a.txt").exists(), "the undo was done");
    let missing = t.join("no such file");
    let dest = t.dir("dest");
    let cp = run_closed(
        &home,
        &["cp".as_ref(), missing.as_os_str(), dest.as_os_str()],
        Closed::Stderr,
    );
    assert_quiet(&cp, 1, "cp of a missing file");
    // Two sources: the last path must be a folder (one source would be copied to it).
    let not_a_folder = run_closed(
        &home,
        &[
            "cp".as_ref(),
            dest.as_os_str(),
            dest.as_os_str(),
            missing.as_os_str(),
        ],
        Closed::Stderr,
    );
    assert_quiet(&not_a_folder, 2, "cp into a missing folder");
    let usage = run_closed(&home, &["--frobnicate".as_ref()], Closed::Stderr);
    assert_quiet(&usage, 2, "a usage error");
}

#[test]
fn bench_finishes_and_cleans_up_when_its_reader_is_gone() {
    let t = TempTree::new();
    let home = t.dir("home");
    let scratch = t.dir("scratch");
    let args: Vec<&std::ffi::OsStr> = vec![
        "bench".as_ref(),
        "--quick".as_ref(),
        "--rounds".as_ref(),
        "1".as_ref(),
        "--only".as_ref(),
        "list-5k-warm".as_ref(),
        "--dir".as_ref(),
        scratch.as_os_str(),
    ];
    for closed in [Closed::Stdout, Closed::Stderr] {
        let out = run_closed(&home, &args, closed);
        assert_quiet(&out, 0, "bench");
        let left = std::fs::read_dir(&scratch).unwrap().count();
        assert_eq!(left, 0, "the scratch folders are removed");
    }
}

/// A name holding an escape sequence is escaped in messages, also into a pipe or a log: read
/// later with `less -R` or `cat`, the raw bytes would clear the screen or retitle the window.
/// What goes to stdout stays as its bytes, for the programs reading it.
#[test]
fn messages_escape_control_characters_wherever_they_go() {
    let t = TempTree::new();
    let home = used_home(&t);
    let missing = t.join("a\x1b[2Jb");
    let dest = t.dir("dest");
    let out = ferry_in(&home)
        .args(["cp".as_ref(), missing.as_os_str(), dest.as_os_str()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(!out.stderr.contains(&0x1b), "{stderr:?}");
    assert!(stderr.contains("a\\x1b[2Jb"), "{stderr:?}");
    t.file("listed/c\x1b[2Jd", "");
    let out = ferry_in(&home)
        .args(["ls".as_ref(), t.join("listed").as_os_str()])
        .output()
        .unwrap();
    assert!(out.stdout.windows(5).any(|w| w == b"c\x1b[2J"), "{out:?}");
}
