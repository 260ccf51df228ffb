//! Threads that start on a CPU of their own rather than behind the thread that made them.
//!
//! A job's helpers (copy and delete workers, the planner's second `statx` thread, a sort's
//! second half) are worth something only if they run beside their creator at once. On KVM
//! guests (the CI machines, and many a desktop in a VM) they often do not: the guest's
//! scheduler takes an idle virtual CPU for a busy one (its host has put it aside, which the
//! guest reads as "preempted"), queues the new thread on its creator's CPU, and starts it only
//! when the creator's time slice ends, after 1 to 3 ms, or when a balancing pass moves it.
//! Measured on this 2-CPU machine, a thread made by a busy one: first ran after 0.8 to 3.0 ms
//! (15 tries), 12 of 15 times on its creator's CPU. A job that plans 5,000 files in 4 ms and
//! copies them in 25 spent most of its planning with its second thread waiting for the first.
//!
//! So a thread made here steps off its creator's CPU as its first act (allowed on every CPU
//! but that one, then on all again, which moves it and wakes the idle CPU), and its creator
//! yields once after making it, so that a thread queued behind it starts at once. Same
//! measure: first on another CPU after 90 to 190 us, every time. Where the kernel already put
//! it elsewhere (bare metal, an idle host), or where the process may run on one CPU only
//! (`taskset`), nothing is done; the scheduler stays free to move the thread afterwards.

use std::thread::{Builder, JoinHandle, Scope, ScopedJoinHandle};

use rustix::thread::{sched_getaffinity, sched_getcpu, sched_setaffinity, sched_yield};

/// Like [`Scope::spawn`], the new thread starting on another CPU than this one.
pub fn spawn_scoped<'scope, 'env, F, T>(
    scope: &'scope Scope<'scope, 'env>,
    f: F,
) -> ScopedJoinHandle<'scope, T>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    let handle = scope.spawn(stepping_aside(f));
    sched_yield();
    handle
}

/// Like [`Builder::spawn`], the new thread starting on another CPU than this one.
pub fn spawn<F, T>(builder: Builder, f: F) -> std::io::Result<JoinHandle<T>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let handle = builder.spawn(stepping_aside(f))?;
    sched_yield();
    Ok(handle)
}

/// `f`, run by a new thread after it has left this thread's CPU.
fn stepping_aside<T>(f: impl FnOnce() -> T) -> impl FnOnce() -> T {
    let from = sched_getcpu();
    move || {
        leave(from);
        f()
    }
}

/// Moves this thread off CPU `from` if it runs there and may run elsewhere.
fn leave(from: usize) {
    if sched_getcpu() != from {
        return;
    }
    let Ok(allowed) = sched_getaffinity(None) else {
        return;
    };
    let mut elsewhere = allowed;
    elsewhere.unset(from);
    if elsewhere.count() == 0 {
        return;
    }
    if sched_setaffinity(None, &elsewhere).is_ok() {
        // Back to every CPU it was allowed: only where it starts is chosen here.
        let _ = sched_setaffinity(None, &allowed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustix::thread::CpuSet;

    fn allowed() -> CpuSet {
        sched_getaffinity(None).expect("sched_getaffinity")
    }

    #[test]
    fn a_thread_made_here_may_still_run_on_every_cpu_it_was_allowed() {
        let before = allowed();
        let theirs = std::thread::scope(|s| spawn_scoped(s, allowed).join().unwrap());
        assert_eq!(theirs, before, "the step aside is undone");
        let theirs = spawn(Builder::new(), allowed).unwrap().join().unwrap();
        assert_eq!(theirs, before);
    }

    /// Where the kernel would queue the helper behind its busy creator (a KVM guest), it
    /// starts elsewhere anyway; on bare metal it did already.
    #[test]
    fn a_thread_made_by_a_busy_one_starts_on_another_cpu() {
        if allowed().count() < 2 {
            eprintln!("one CPU only: nothing to step onto");
            return;
        }
        let tries = 20;
        let elsewhere = (0..tries)
            .filter(|_| {
                // Long enough for an idle virtual CPU to be put aside by its host.
                std::thread::sleep(std::time::Duration::from_millis(20));
                std::thread::scope(|s| {
                    let from = sched_getcpu();
                    let helper = spawn_scoped(s, sched_getcpu);
                    // Busy on its CPU, as a job's walk is after making a helper.
                    let until = std::time::Instant::now() + std::time::Duration::from_millis(1);
                    while std::time::Instant::now() < until {
                        std::hint::spin_loop();
                    }
                    helper.join().unwrap() != from
                })
            })
            .count();
        assert!(
            elsewhere >= 15,
            "{elsewhere} of {tries} helpers started elsewhere"
        );
    }
}
