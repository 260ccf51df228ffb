//! Fault points: named steps of a job at which a test build kills its own process, the way a
//! crash or `kill -9` would, so that tests can prove every step is a kill point (RELIABILITY
//! rule 21) without sleeps or races.
//!
//! They exist only in builds with the `fault-points` feature, which only the `ferry-tests`
//! crate turns on (for its `ferry-under-test` binary); in every other build [`point`] is an
//! empty function the compiler removes. A test sets `FERRY_FAULT_POINT=<step>` (or
//! `<step>:<n>` for the n-th time that step is reached, counted from 1) in the environment of
//! the process it starts.
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
//! and, in any copy, `item-done` (a worker has put an item's copy in place, whole) and
//! `linked` (a hard link to a file's copy has just been made, `links.rs`).

/// Kills the process with `SIGKILL` if this is a test build and `FERRY_FAULT_POINT` names
/// `step` (and, with `:<n>`, this is its n-th time); does nothing otherwise.
#[inline]
pub fn point(step: &str) {
    #[cfg(feature = "fault-points")]
    armed::hit(step);
    #[cfg(not(feature = "fault-points"))]
    let _ = step;
}

#[cfg(feature = "fault-points")]
mod armed {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// The step to stop at and at which of its passes, read once.
    fn target() -> Option<&'static (String, u64)> {
        static TARGET: OnceLock<Option<(String, u64)>> = OnceLock::new();
        TARGET
            .get_or_init(|| {
                let spec = std::env::var("FERRY_FAULT_POINT").ok()?;
                Some(match spec.rsplit_once(':') {
                    Some((step, n)) => (step.to_owned(), n.parse().ok()?),
                    None => (spec, 1),
                })
            })
            .as_ref()
    }

    pub(super) fn hit(step: &str) {
        static PASSES: AtomicU64 = AtomicU64::new(0);
        let Some((wanted, nth)) = target() else {
            return;
        };
        if wanted == step && PASSES.fetch_add(1, Ordering::SeqCst) + 1 == *nth {
            let me = rustix::process::getpid();
            let _ = rustix::process::kill_process(me, rustix::process::Signal::KILL);
            // SIGKILL cannot be caught; it is delivered before the call returns.
            loop {
                std::thread::park();
            }
        }
    }
}
