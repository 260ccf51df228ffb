//! Opening a file with the user's default application, and another window.

use std::ffi::OsStr;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::gui::{format, words};

/// Why a file did not open.
#[derive(Debug)]
pub enum OpenFailure {
    /// `xdg-open` is not installed.
    NoOpener,
    /// `xdg-open` found no application for the file (its exit status 3 or 4).
    NoApplication,
    /// `xdg-open` found no file there (its exit status 2).
    Gone,
    /// `xdg-open` could not be started for another reason.
    NotStarted(io::Error),
    /// `xdg-open` failed with this exit status.
    Failed(i32),
    /// A symbolic link whose target is not there: handed to `xdg-open`, it said no program
    /// opens it, as if the link were the trouble of the desktop.
    BrokenLink,
    /// A symbolic link that leads back to itself.
    LinkLoop,
    /// What it is, or leads to, cannot be reached for want of permission: handed to
    /// `xdg-open`, that failed in turn, and was said to be the trouble.
    NoAccess,
}

impl OpenFailure {
    /// What the folder's notice says about opening `path`.
    pub fn in_words(&self, path: &Path) -> String {
        let name = format::display_name(path);
        match self {
            OpenFailure::NoOpener => format!(
                "Could not open “{name}”: no program that opens files is installed \
                 (xdg-open, from the package xdg-utils)."
            ),
            OpenFailure::NoApplication => format!("No application is set up to open “{name}”."),
            OpenFailure::Gone => format!("“{name}” is no longer there."),
            OpenFailure::NotStarted(e) => format!(
                "Could not open “{name}”: xdg-open could not be started: {}.",
                words::strip_os_code(e)
            ),
            OpenFailure::Failed(code) => {
                format!("Could not open “{name}”: xdg-open failed (exit status {code}).")
            }
            OpenFailure::BrokenLink => {
                format!("Could not open “{name}”: it is a link to something that is not there.")
            }
            OpenFailure::NoAccess => {
                format!("Could not open “{name}”: you don't have permission to open it.")
            }
            OpenFailure::LinkLoop => format!(
                "Could not open “{name}”: it is a link that leads back to itself (a loop of \
                 links)."
            ),
        }
    }
}

/// What the folder's notice says about the files of `failed` that could not be opened: the
/// first one's reason, and the others named after it.
pub fn failures_in_words(failed: &[(PathBuf, Arc<OpenFailure>)]) -> String {
    let Some(((first, why), rest)) = failed.split_first() else {
        return String::new();
    };
    let said = why.in_words(first);
    let quoted =
        |(path, _): &(PathBuf, Arc<OpenFailure>)| format!("“{}”", format::display_name(path));
    match rest {
        [] => said,
        [other] => format!("{said} Nor could {} be opened.", quoted(other)),
        more => {
            let named: Vec<String> = more.iter().take(3).map(quoted).collect();
            let unnamed = more.len() - named.len();
            let tail = match unnamed {
                0 => String::new(),
                n => format!(" and {} more", format::count(n)),
            };
            format!(
                "{said} Nor could {} other files be opened: {}{tail}.",
                format::count(more.len()),
                named.join(", ")
            )
        }
    }
}

/// An `xdg-open` that fails does so at once; one still running after this has handed the
/// file to an application that runs in the foreground, whose exit is not ours to report.
pub const OWN_FAILURE_WITHIN: Duration = Duration::from_secs(5);

/// Hands `path` to `xdg-open` and waits for it (call it off the UI thread): fails when it
/// cannot be started or says, soon enough to be its own answer, that it could not open the
/// file. The wait also reaps the process, so it does not linger as a zombie.
pub fn open(path: &Path) -> Result<(), OpenFailure> {
    open_by(OsStr::new("xdg-open"), path)
}

fn open_by(opener: &OsStr, path: &Path) -> Result<(), OpenFailure> {
    match std::fs::metadata(path) {
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            return Err(OpenFailure::LinkLoop);
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound && path.is_symlink() => {
            return Err(OpenFailure::BrokenLink);
        }
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => {
            return Err(OpenFailure::NoAccess);
        }
        _ => {}
    }
    let started = Instant::now();
    let mut child = Command::new(opener)
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => OpenFailure::NoOpener,
            _ => OpenFailure::NotStarted(e),
        })?;
    let status = child.wait().map_err(OpenFailure::NotStarted)?;
    if status.success() || started.elapsed() > OWN_FAILURE_WITHIN {
        return Ok(());
    }
    // xdg-open(1): 1 bad arguments, 2 no such file, 3 a tool it needs is missing, 4 failed.
    Err(match status.code() {
        Some(2) => OpenFailure::Gone,
        Some(3 | 4) => OpenFailure::NoApplication,
        code => OpenFailure::Failed(code.unwrap_or(-1)),
    })
}

/// Starts another Ferry window on `folder` (a process of its own, as a new window of most file
/// managers is), without waiting for it.
pub fn new_window(folder: &Path) -> io::Result<()> {
    let mut child = Command::new(std::env::current_exe()?)
        .arg(folder)
        .stdin(Stdio::null())
        .spawn()?;
    std::thread::Builder::new()
        .name("ferry-window".into())
        .spawn(move || child.wait())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use rustix::io::Errno;

    use super::*;

    /// Files that failed together are said together: each said alone, the last replaced the
    /// others, and five files no program opened named one.
    #[test]
    fn failures_are_said_together() {
        let failed = |names: &[&str]| -> Vec<(PathBuf, Arc<OpenFailure>)> {
            (names.iter())
                .map(|n| {
                    (
                        PathBuf::from("/d").join(n),
                        Arc::new(OpenFailure::NoApplication),
                    )
                })
                .collect()
        };
        assert_eq!(
            failures_in_words(&failed(&["a.pdf"])),
            "No application is set up to open “a.pdf”."
        );
        assert_eq!(
            failures_in_words(&failed(&["a.pdf", "b.pdf"])),
            "No application is set up to open “a.pdf”. Nor could “b.pdf” be opened."
        );
        assert_eq!(
            failures_in_words(&failed(&["a", "b", "c", "d", "e"])),
            "No application is set up to open “a”. Nor could 4 other files be opened: “b”, \
             “c”, “d” and 1 more."
        );
    }

    /// An opener in `dir` that exits with `status`.
    fn opener(dir: &Path, status: i32) -> std::path::PathBuf {
        let path = dir.join(format!("opener-{status}"));
        std::fs::write(&path, format!("#!/bin/sh\nexit {status}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn a_link_to_nothing_is_not_handed_to_the_opener() {
        let dir = tempfile::tempdir().unwrap();
        let (broken, looped) = (dir.path().join("broken"), dir.path().join("loop"));
        std::os::unix::fs::symlink("not-there", &broken).unwrap();
        std::os::unix::fs::symlink("loop", &looped).unwrap();
        let opener = opener(dir.path(), 0);
        let said = |link: &Path| loop {
            match open_by(opener.as_os_str(), link) {
                Err(OpenFailure::NotStarted(e))
                    if e.raw_os_error() == Some(Errno::TXTBSY.raw_os_error()) => {}
                result => return result.err().map(|failure| failure.in_words(link)),
            }
        };
        let broken_said = said(&broken).unwrap();
        assert!(
            broken_said.ends_with("a link to something that is not there."),
            "{broken_said}"
        );
        assert!(said(&looped).unwrap().contains("leads back to itself"));
    }

    #[test]
    fn a_file_that_did_not_open_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("big.bin");
        let said = |opener: &Path| loop {
            match open_by(opener.as_os_str(), &file) {
                // The script is still open for writing in a process another test forked.
                Err(OpenFailure::NotStarted(e))
                    if e.raw_os_error() == Some(Errno::TXTBSY.raw_os_error()) => {}
                result => return result.err().map(|failure| failure.in_words(&file)),
            }
        };
        assert_eq!(said(&opener(dir.path(), 0)), None);
        assert_eq!(
            said(&dir.path().join("no-such-opener")).unwrap(),
            "Could not open “big.bin”: no program that opens files is installed \
             (xdg-open, from the package xdg-utils)."
        );
        for (status, words) in [
            (3, "No application is set up to open “big.bin”."),
            (4, "No application is set up to open “big.bin”."),
            (2, "“big.bin” is no longer there."),
            (
                1,
                "Could not open “big.bin”: xdg-open failed (exit status 1).",
            ),
        ] {
            assert_eq!(said(&opener(dir.path(), status)).unwrap(), words);
        }
    }
}
