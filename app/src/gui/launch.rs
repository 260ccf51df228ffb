//! Opening a file with the user's default application, and another window.

use std::io;
use std::path::Path;
use std::process::{Command, Stdio};

/// Hands `path` to `xdg-open` without waiting for it; a helper thread reaps the process so it
/// does not linger as a zombie. Fails only if `xdg-open` cannot be started.
pub fn open(path: &Path) -> io::Result<()> {
    let mut child = Command::new("xdg-open")
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    std::thread::Builder::new()
        .name("ferry-xdg-open".into())
        .spawn(move || child.wait())?;
    Ok(())
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
