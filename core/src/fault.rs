//! Fault points for tests: named steps where a process can be held, so that a test can line
//! up two processes at an exact step, or kill one there, without sleeping and hoping.
//!
//! They exist only with the `fault-points` feature, which the integration tests' build turns
//! on; otherwise [`point`] does nothing and costs nothing. With it, a process started with
//! `FERRY_FAULT_PAUSE=<name>:<dir>` that reaches point `<name>` creates the FIFO
//! `<dir>/<pid>` (its arrival, which the test waits for) and blocks until someone opens that
//! FIFO for writing (the test's release); then it removes the FIFO and goes on.

/// Fault point `name`: holds the process here when a test asked for it (see the module
/// documentation), else does nothing.
pub fn point(name: &str) {
    #[cfg(feature = "fault-points")]
    pause(name);
    #[cfg(not(feature = "fault-points"))]
    let _ = name;
}

#[cfg(feature = "fault-points")]
fn pause(name: &str) {
    use std::io::Read;
    let Some(spec) = std::env::var_os("FERRY_FAULT_PAUSE") else {
        return;
    };
    let spec = spec.to_string_lossy().into_owned();
    let Some((wanted, dir)) = spec.split_once(':') else {
        return;
    };
    if wanted != name {
        return;
    }
    let fifo = std::path::Path::new(dir).join(std::process::id().to_string());
    let made = rustix::fs::mknodat(
        rustix::fs::CWD,
        &fifo,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    );
    if made.is_err() {
        return;
    }
    // Opening blocks until the test opens the other end; its close is the end of file.
    if let Ok(mut f) = std::fs::File::open(&fifo) {
        let _ = f.read_to_end(&mut Vec::new());
    }
    let _ = std::fs::remove_file(&fifo);
}
