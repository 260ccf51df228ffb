//! Before the window opens: is there a display to open it on?
//!
//! winit gives up with a panic when it has no display, and when `WAYLAND_DISPLAY` names a
//! compositor it cannot reach it does not fall back to X11 (as under `sudo`, some X11
//! forwarding and CI, where `XDG_RUNTIME_DIR` is unset but `WAYLAND_DISPLAY` was kept).
//! So this module looks first: an unusable Wayland with an X11 display re-executes Ferry
//! without the Wayland variables (a missing runtime folder then only costs Wayland); no
//! display at all, or an X server that does not answer, is one clear line and exit 1.

use std::ffi::OsString;
use std::os::unix::fs::FileTypeExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};

/// Why the window cannot open.
#[derive(Debug)]
pub struct NoDisplay(pub String);

impl std::fmt::Display for NoDisplay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Returns when the window can be opened; re-executes Ferry on X11 when Wayland is named but
/// unusable (and does not return then).
pub fn prepare() -> Result<(), NoDisplay> {
    let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    let display = var("DISPLAY");
    let wayland = var("WAYLAND_DISPLAY");
    let runtime = var("XDG_RUNTIME_DIR").map(PathBuf::from);
    if var("WAYLAND_SOCKET").is_some() {
        return Ok(());
    }
    if let Some(wayland) = &wayland {
        match wayland_socket(wayland, runtime.as_deref()) {
            Ok(()) => return Ok(()),
            Err(why) if display.is_some() => {
                tracing::info!(target: "ferry", "Wayland unusable ({why}); using X11");
                let error = std::process::Command::new("/proc/self/exe")
                    .args(std::env::args_os().skip(1))
                    .env_remove("WAYLAND_DISPLAY")
                    .env_remove("WAYLAND_SOCKET")
                    .exec();
                return Err(NoDisplay(format!("cannot restart on X11: {error}")));
            }
            Err(why) => return Err(NoDisplay(format!("cannot open a window: {why}"))),
        }
    }
    let Some(display) = display else {
        return Err(NoDisplay(
            "cannot open a window: no display (neither DISPLAY nor WAYLAND_DISPLAY is set); \
             the command line works without one, see `ferry --help`"
                .to_owned(),
        ));
    };
    match x11rb::connect(None) {
        Ok(_) => Ok(()),
        Err(e) => Err(NoDisplay(format!(
            "cannot open a window: the X display {} does not answer ({e})",
            display.to_string_lossy()
        ))),
    }
}

/// The Wayland socket `WAYLAND_DISPLAY` names is there, or why not.
fn wayland_socket(name: &OsString, runtime: Option<&Path>) -> Result<(), String> {
    let path = Path::new(name);
    let socket = if path.is_absolute() {
        path.to_path_buf()
    } else {
        match runtime {
            Some(runtime) => runtime.join(path),
            None => return Err("XDG_RUNTIME_DIR is not set".to_owned()),
        }
    };
    match std::fs::metadata(&socket) {
        Ok(meta) if meta.file_type().is_socket() => Ok(()),
        Ok(_) => Err(format!("{} is not a socket", socket.display())),
        Err(e) => Err(format!("{}: {e}", socket.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wayland_name_needs_its_socket() {
        let dir = tempfile::tempdir().unwrap();
        let name = OsString::from("wayland-9");
        assert!(
            wayland_socket(&name, None)
                .unwrap_err()
                .contains("XDG_RUNTIME_DIR")
        );
        assert!(wayland_socket(&name, Some(dir.path())).is_err());
        let _listener =
            std::os::unix::net::UnixListener::bind(dir.path().join("wayland-9")).unwrap();
        assert!(wayland_socket(&name, Some(dir.path())).is_ok());
        let absolute = dir.path().join("wayland-9").into_os_string();
        assert!(wayland_socket(&absolute, None).is_ok());
    }
}
