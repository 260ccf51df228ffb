//! Fault points: named steps at which a test build kills its own process, the way a crash or
//! `kill -9` would, or holds it, so that tests prove every step is a kill point (RELIABILITY
//! rule 21) and line two processes up at an exact step, without sleeps or races.
//!
//! They exist only in builds with the `fault-points` feature, which only the `ferry-tests`
//! crate turns on (for its `ferry-under-test` binary); in every other build [`point`] is an
//! empty function the compiler removes, and nothing reads the environment. A test sets
//! `FERRY_FAULT_POINT` in the environment of the process it starts:
//!
//! - `<step>` or `<step>:<n>`: the process kills itself with `SIGKILL` the first (or n-th,
//!   counted from 1) time it reaches that step;
//! - `<step>@<dir>` or `<step>:<n>@<dir>`: there it holds instead: it creates the FIFO
//!   `<dir>/<pid>` (its arrival, which the test waits for) and blocks until someone opens that
//!   FIFO for writing and closes it (the test's release), then removes it and goes on. The
//!   test may kill it meanwhile;
//! - `<step>!` or `<step>:<n>!`: there the thread panics, as a defect in Ferry would.
//!
//! The steps, in the order a Replace goes through them:
//!
//! | step | where |
//! | --- | --- |
//! | `replace-written` | the new file is complete under its temporary name; the old one is untouched |
//! | `replace-staged` | the old item is in the staging folder; nothing is at its name |
//! | `replace-placed` | the new item is at its name; the job has not recorded it yet |
//! | `job-ended` | the command's job has ended; its end is not in the undo journal yet |
//!
//! in any copy, `file-written` (a file's data is copied; its mode, times and name are not
//! set yet), `special-made` (a link, FIFO or device is made under its temporary name
//! `.ferry-tmp-…`, not renamed into place yet), `item-done` (a worker has put an item's copy in place, whole), `hidden-filled` (a folder
//! filled under a hidden name is complete, not renamed into place yet, `fresh.rs`) and `linked` (a
//! hard link to a file's copy has just been made, `links.rs`); in a move within one file system,
//! `renamed` (an item has just been renamed into place); in a move across file systems,
//! `copies-durable` (every copy is on disk, no source removed yet) and `source-checked` (a
//! source is renamed aside and found as it was copied, not unlinked yet); in a link job, `symlinked` (a
//! symbolic link has just been made, not recorded yet; its Replace goes through
//! `replace-staged` too); in a trash job,
//! `trash-info-written` (an item's info file is written and on disk, the item not moved yet);
//! and in `ferry undo`, `undo-decided` (it holds the journal's writer lock and has chosen its
//! record, its job not started).

/// Kills or holds the process at `step` if this is a test build and `FERRY_FAULT_POINT` asks
/// for it (see the module documentation); does nothing otherwise.
#[inline]
pub fn point(step: &str) {
    #[cfg(feature = "fault-points")]
    armed::hit(step);
    #[cfg(not(feature = "fault-points"))]
    let _ = step;
}

/// Whether a test build was asked to leave the step `name` out (`FERRY_FAULT_OFF`, a
/// comma-separated list), so that a test can reach the path it stands in front of; false in
/// every other build. `hidden-folders` (the speed-up of `jobs/fresh.rs`) and `inode-check`
/// (the check of free inodes before writing, `jobs/start.rs`: the disk then runs out of
/// them part way, as when another program takes them meanwhile) exist.
#[inline]
pub fn off(name: &str) -> bool {
    #[cfg(feature = "fault-points")]
    return std::env::var("FERRY_FAULT_OFF").is_ok_and(|v| v.split(',').any(|n| n == name));
    #[cfg(not(feature = "fault-points"))]
    {
        let _ = name;
        false
    }
}

/// Which side of copying the data of the file with inode `ino` a test build was asked to
/// fail with EIO: `"read"` (`FERRY_FAULT_EIO=<ino>`: its source, as a bad sector or a btrfs
/// checksum error does) or `"write"` (`FERRY_FAULT_EIO=write:<ino>`: its copy, as a failing
/// destination disk does); `None` in every other build.
#[inline]
pub fn data_fails(ino: u64) -> Option<&'static str> {
    #[cfg(feature = "fault-points")]
    {
        let spec = std::env::var("FERRY_FAULT_EIO").ok()?;
        let (side, at) = match spec.strip_prefix("write:") {
            Some(at) => ("write", at),
            None => ("read", spec.as_str()),
        };
        (at.parse() == Ok(ino)).then_some(side)
    }
    #[cfg(not(feature = "fault-points"))]
    {
        let _ = ino;
        None
    }
}

#[cfg(feature = "fault-points")]
mod armed {
    use std::path::PathBuf;
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// What the test asked for.
    struct Target {
        step: String,
        /// At which pass of the step, from 1.
        nth: u64,
        /// Hold there, with the FIFO in this folder, rather than die.
        hold: Option<PathBuf>,
        /// Panic there rather than die.
        panic: bool,
    }

    /// `FERRY_FAULT_POINT`, read once; `None` when unset or not understood.
    fn target() -> Option<&'static Target> {
        static TARGET: OnceLock<Option<Target>> = OnceLock::new();
        TARGET
            .get_or_init(|| {
                let spec = std::env::var("FERRY_FAULT_POINT").ok()?;
                let (spec, panic) = match spec.strip_suffix('!') {
                    Some(at) => (at.to_owned(), true),
                    None => (spec, false),
                };
                let (at, hold) = match spec.split_once('@') {
                    Some((at, dir)) => (at, Some(PathBuf::from(dir))),
                    None => (spec.as_str(), None),
                };
                let (step, nth) = match at.rsplit_once(':') {
                    Some((step, n)) => (step, n.parse().ok()?),
                    None => (at, 1),
                };
                Some(Target {
                    step: step.to_owned(),
                    nth,
                    hold,
                    panic,
                })
            })
            .as_ref()
    }

    pub(super) fn hit(step: &str) {
        static PASSES: AtomicU64 = AtomicU64::new(0);
        let Some(target) = target() else {
            return;
        };
        if target.step != step || PASSES.fetch_add(1, Ordering::SeqCst) + 1 != target.nth {
            return;
        }
        if target.panic {
            panic!("fault point {step}");
        }
        match &target.hold {
            Some(dir) => hold(dir),
            None => {
                let me = rustix::process::getpid();
                let _ = rustix::process::kill_process(me, rustix::process::Signal::KILL);
                // SIGKILL cannot be caught; it is delivered before the call returns.
                loop {
                    std::thread::park();
                }
            }
        }
    }

    /// Shows up as the FIFO `dir/<pid>` and waits for the test to open and close it.
    fn hold(dir: &std::path::Path) {
        use std::io::Read;
        let fifo = dir.join(std::process::id().to_string());
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
}
