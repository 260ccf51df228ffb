//! `--load`: another program keeping one core busy, as a desktop rarely is idle.
//!
//! The load is a child process (this executable, `bench --spin CPU`) that pins itself to one
//! CPU with `sched_setaffinity` and spins there at normal priority until it is killed (or its
//! parent dies: it asks for `SIGKILL` then). The tools under test are not pinned: they get
//! what the scheduler leaves them, as a user's `cp` would next to a busy browser tab.

use std::io::Read;
use std::process::{Child, Command, Stdio};

use anyhow::{Context, Result, bail};
use rustix::thread::CpuSet;

/// The CPUs this process may run on (`sched_getaffinity`), in order.
pub(super) fn allowed_cpus() -> Vec<usize> {
    rustix::thread::sched_getaffinity(None)
        .map(|set| (0..CpuSet::MAX_CPU).filter(|&c| set.is_set(c)).collect())
        .unwrap_or_default()
}

/// A running busy process, killed when dropped.
pub(super) struct Load {
    child: Child,
    /// The CPU it is pinned to.
    pub cpu: usize,
}

impl Load {
    /// Starts the busy process on the first CPU this process may use, and returns once it
    /// runs there.
    pub(super) fn start() -> Result<Load> {
        let cpu = *allowed_cpus()
            .first()
            .context("no CPU in this process's affinity")?;
        let exe = std::env::current_exe().context("cannot find this executable")?;
        let mut child = Command::new(exe)
            .args(["bench", "--spin", &cpu.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .context("cannot start the busy process")?;
        // It writes one byte once pinned; nothing (end of file) if it could not pin itself.
        let mut ready = [0u8; 1];
        let pinned = child
            .stdout
            .take()
            .context("no pipe to the busy process")?
            .read(&mut ready)?;
        let load = Load { child, cpu };
        if pinned != 1 {
            bail!("the busy process could not pin itself to CPU {cpu}");
        }
        Ok(load)
    }

    /// Whether it is still running (it never ends by itself).
    pub(super) fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The busy process itself: pins to `cpu`, says so on stdout, and spins until killed.
pub(super) fn spin(cpu: usize) -> i32 {
    use std::io::Write;
    // Never outlive the benchmark, even if it is killed.
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
    let mut set = CpuSet::new();
    set.set(cpu);
    if let Err(e) = rustix::thread::sched_setaffinity(None, &set) {
        eprintln!("ferry bench: cannot pin the busy process to CPU {cpu}: {e}");
        return ferry_cli::EXIT_PARTIAL;
    }
    let mut out = std::io::stdout();
    if out.write_all(b"1").and_then(|()| out.flush()).is_err() {
        return ferry_cli::EXIT_PARTIAL;
    }
    let mut x = 0u64;
    loop {
        x = std::hint::black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_may_run_somewhere() {
        let cpus = allowed_cpus();
        assert!(!cpus.is_empty());
        assert!(cpus.windows(2).all(|w| w[0] < w[1]), "{cpus:?}");
    }
}
