//! Before the window opens: is there a display to open it on?
//!
//! winit gives up with a panic when it has no display, and when `WAYLAND_DISPLAY` names a
//! compositor it cannot reach it does not fall back to X11 (as under `sudo`, some X11
//! forwarding and CI, where `XDG_RUNTIME_DIR` is unset but `WAYLAND_DISPLAY` was kept).
//! So this module looks first: an unusable Wayland with an X11 display re-executes Ferry
//! without the Wayland variables (a missing runtime folder then only costs Wayland); no
//! display at all, or an X server that does not answer, is one clear line and exit 1.
//!
//! It also picks the renderer. Without a GPU (no DRI render node: virtual machines, remote
//! desktops, CI), wgpu runs on Mesa's software GL, which maps LLVM into the process: measured
//! under Xvfb, the empty window took 159 MB of memory (57 MB of it libLLVM) and 130–280 ms to
//! its first frame, against 25 MB and 50–80 ms with iced's own software renderer
//! (tiny-skia). So without a render node, and unless `ICED_BACKEND` says otherwise, Ferry
//! re-executes itself with `ICED_BACKEND=tiny-skia` (setting a variable in place would need
//! `unsafe`; the exec costs a few milliseconds, once).

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

/// Returns when the window can be opened; re-executes Ferry (once, and before it has talked
/// to any X server) on X11 when Wayland is named but unusable, or with the software renderer
/// when there is no GPU, and does not return then.
///
/// The X server is asked whether it answers, and that connection is kept open for the life
/// of the process: a bare X server (Xvfb, as in CI) resets itself when its last client
/// leaves, and the window's own connection, a moment later, would find it resetting.
pub fn prepare() -> Result<(), NoDisplay> {
    let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    let display = var("DISPLAY");
    let runtime = var("XDG_RUNTIME_DIR").map(PathBuf::from);
    let mut restart = Restart::default();
    if var("WAYLAND_SOCKET").is_none()
        && let Some(wayland) = var("WAYLAND_DISPLAY")
    {
        match wayland_socket(&wayland, runtime.as_deref()) {
            Ok(()) => return software_if_needed(restart),
            Err(why) if display.is_some() => {
                tracing::info!(target: "ferry", "Wayland unusable ({why}); using X11");
                restart.drop_wayland = true;
            }
            Err(why) => return Err(NoDisplay(format!("cannot open a window: {why}"))),
        }
    } else if var("WAYLAND_SOCKET").is_some() {
        return software_if_needed(restart);
    }
    let Some(display) = display else {
        return Err(NoDisplay(
            "cannot open a window: no display (neither DISPLAY nor WAYLAND_DISPLAY is set); \
             the command line works without one, see `ferry --help`"
                .to_owned(),
        ));
    };
    software_if_needed(restart)?;
    match connect_x11(None) {
        Ok(connection) => {
            // Kept open on purpose, see above.
            std::mem::forget(connection);
            Ok(())
        }
        Err(e) => Err(NoDisplay(format!(
            "cannot open a window: the X display {} does not answer ({e})",
            display.to_string_lossy()
        ))),
    }
}

/// Connects to the X server (`display`, or `DISPLAY`'s), trying again for a moment when it
/// cuts the new connection off: a bare X server (Xvfb, with a tool such as `xdotool` coming
/// and going) resets whenever its last client leaves, and whoever connects meanwhile is reset.
pub fn connect_x11(
    display: Option<&str>,
) -> Result<x11rb::rust_connection::RustConnection, x11rb::errors::ConnectError> {
    use std::io::ErrorKind::{BrokenPipe, ConnectionReset, UnexpectedEof};
    use x11rb::errors::ConnectError;
    // A reset takes a few milliseconds; a server that keeps cutting us off is reported.
    let mut tries = 40;
    loop {
        match x11rb::connect(display) {
            Err(ConnectError::IoError(e))
                if tries > 0
                    && matches!(e.kind(), ConnectionReset | UnexpectedEof | BrokenPipe) =>
            {
                tries -= 1;
                std::thread::sleep(std::time::Duration::from_millis(25));
            }
            result => return result.map(|(connection, _)| connection),
        }
    }
}

/// What a re-execution changes in the environment.
#[derive(Debug, Default)]
struct Restart {
    drop_wayland: bool,
    software: bool,
}

/// Re-executes Ferry when `restart` (or the lack of a GPU) asks for it; returns otherwise.
fn software_if_needed(mut restart: Restart) -> Result<(), NoDisplay> {
    restart.software = std::env::var_os("ICED_BACKEND").is_none() && !has_render_node();
    if !restart.drop_wayland && !restart.software {
        return Ok(());
    }
    if restart.software {
        tracing::info!(target: "ferry", "no GPU render node: using the software renderer");
    }
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("/proc/self/exe"));
    let mut args = std::env::args_os();
    let mut command = std::process::Command::new(exe);
    if let Some(name) = args.next() {
        command.arg0(name);
    }
    command.args(args).env(
        super::startup::LAUNCHED,
        super::startup::launched().to_string(),
    );
    if restart.software {
        command.env("ICED_BACKEND", "tiny-skia");
    }
    if restart.drop_wayland {
        command
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("WAYLAND_SOCKET");
    }
    let error = command.exec();
    Err(NoDisplay(format!("cannot restart Ferry: {error}")))
}

/// True when the machine has a GPU the drivers can render with (`/dev/dri/renderD*`).
fn has_render_node() -> bool {
    std::fs::read_dir("/dev/dri").is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().as_encoded_bytes().starts_with(b"renderD"))
    })
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
