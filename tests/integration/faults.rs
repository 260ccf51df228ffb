//! Holding a `ferry` process at a fault point (see `ferry_core::fault`): the test sets
//! `FERRY_FAULT_POINT=<point>@<dir>` on the command, waits for the process to arrive, then
//! releases or kills it. No sleeping in the hope that the other side got there. (A test that
//! only wants the process dead at a step sets `FERRY_FAULT_POINT=<point>` itself.)

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Where processes held at one fault point show up.
pub struct Pause {
    dir: tempfile::TempDir,
    point: &'static str,
}

impl Pause {
    /// Holds at `point` every process given [`hold`](Self::hold).
    pub fn at(point: &'static str) -> Pause {
        let dir = tempfile::Builder::new()
            .prefix("ferry-fault-")
            .tempdir()
            .unwrap();
        // Processes run as another user create their FIFO here too.
        std::fs::set_permissions(
            dir.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o1777),
        )
        .unwrap();
        Pause { dir, point }
    }

    /// Makes `command` stop at the fault point.
    pub fn hold<'c>(&self, command: &'c mut Command) -> &'c mut Command {
        let spec = format!("{}@{}", self.point, self.dir.path().display());
        command.env("FERRY_FAULT_POINT", spec)
    }

    /// Starts `command` (its stderr piped) and waits until it is held at the point.
    pub fn start_held(&self, command: &mut Command) -> std::process::Child {
        let child = self
            .hold(command)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        self.wait_for(child.id());
        child
    }

    /// The processes held now.
    pub fn held(&self) -> Vec<u32> {
        std::fs::read_dir(self.dir.path())
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
            .collect()
    }

    /// Waits until process `pid` is held (panics after a minute: it never got there).
    pub fn wait_for(&self, pid: u32) {
        self.wait_until(
            || self.held().contains(&pid),
            "the process to reach the point",
        );
    }

    /// Waits, polling, until `done` (panics after a minute with `what`).
    pub fn wait_until(&self, done: impl FnMut() -> bool, what: &str) {
        wait_until(done, what);
    }

    /// Lets the held process `pid` go on.
    pub fn release(&self, pid: u32) {
        // Opening the FIFO's writing end meets the process's reading end; closing it is the
        // end of file it waits for.
        drop(
            std::fs::OpenOptions::new()
                .write(true)
                .open(self.fifo(pid))
                .unwrap(),
        );
    }

    fn fifo(&self, pid: u32) -> std::path::PathBuf {
        self.dir.path().join(pid.to_string())
    }
}

/// Waits, polling, until `done` (panics after a minute with `what`).
pub fn wait_until(mut done: impl FnMut() -> bool, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < deadline, "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// True when process `pid` waits for an `flock` (`/proc/locks` lists it with `->`).
pub fn waits_for_a_lock(pid: u32) -> bool {
    let locks = std::fs::read_to_string(Path::new("/proc/locks")).unwrap_or_default();
    locks.lines().any(|l| {
        let mut f = l.split_whitespace().skip(1);
        f.next() == Some("->") && f.nth(3) == Some(pid.to_string().as_str())
    })
}
