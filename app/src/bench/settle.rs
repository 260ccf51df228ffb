//! The settle step before every timed run: no run pays for the deferred kernel work of the
//! run before it.
//!
//! What a finished run leaves behind is dirty pages to write back (a copy, a move) and, on a
//! disk, requests still queued: on ext4 mounted with `discard`, the freed blocks of a delete
//! are discarded when the journal commits, after `rm` has exited. So the step is `sync(2)`
//! (every filesystem's writeback and journal commit, as the `sync` command does), then a wait
//! until each disk under the scratch folders is idle: no request in flight and its counters
//! of completed writes, discards and flushes unchanged over one poll interval
//! (`/sys/dev/block/MAJ:MIN/stat`), at most [`MAX_WAIT`]. tmpfs has no device: `sync` only.
//!
//! Caches are **not** dropped: users copy, list and delete with warm page, inode and dentry
//! caches (they just listed the folder, or wrote it), and dropping them would measure the
//! disk's reads, which no tool can change, and needs root. Fixtures are built ahead, so every
//! tool meets the same warm caches.

use std::fs;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Poll interval of the idle check.
const POLL: Duration = Duration::from_millis(5);
/// Longest wait for a disk to go idle.
const MAX_WAIT: Duration = Duration::from_secs(3);

/// The counters of one block device that tell whether it is still busy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct DiskStat {
    writes: u64,
    in_flight: u64,
    discards: u64,
    flushes: u64,
}

/// Parses `/sys/block/*/stat` (the fields of Documentation/block/stat.rst; kernels before 4.18
/// have no discard fields, before 5.5 no flush fields).
fn parse_stat(text: &str) -> Option<DiskStat> {
    let f: Vec<u64> = text
        .split_ascii_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    Some(DiskStat {
        writes: *f.get(4)?,
        in_flight: *f.get(8)?,
        discards: f.get(11).copied().unwrap_or(0),
        flushes: f.get(15).copied().unwrap_or(0),
    })
}

/// Idle: nothing in flight now, and nothing completed since the previous look.
fn is_idle(before: DiskStat, now: DiskStat) -> bool {
    now.in_flight == 0 && before == now
}

/// What the settle steps of a run cost, for the report.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Spent {
    /// Settle steps taken.
    pub steps: u64,
    /// Time spent in `sync`.
    pub sync: Duration,
    /// Time spent waiting for disks to go idle.
    pub idle_wait: Duration,
    /// Steps whose disks were still busy at [`MAX_WAIT`].
    pub timeouts: u64,
}

/// Settles the machine before each timed run.
#[derive(Debug)]
pub(super) struct Settler {
    /// `stat` files of the disks under the scratch folders.
    disks: Vec<PathBuf>,
    spent: std::cell::Cell<Spent>,
}

impl Settler {
    /// A settler for filesystems on the devices `devs` (`st_dev` of the scratch folders).
    pub(super) fn new(devs: &[u64]) -> Settler {
        let mut disks: Vec<PathBuf> = devs
            .iter()
            .filter(|&&dev| rustix::fs::major(dev) != 0) // tmpfs, proc...: no block device
            .map(|&dev| {
                let (major, minor) = (rustix::fs::major(dev), rustix::fs::minor(dev));
                PathBuf::from(format!("/sys/dev/block/{major}:{minor}/stat"))
            })
            .filter(|p| p.exists())
            .collect();
        disks.sort();
        disks.dedup();
        Settler {
            disks,
            spent: std::cell::Cell::new(Spent::default()),
        }
    }

    /// The disks it waits for.
    pub(super) fn disks(&self) -> &[PathBuf] {
        &self.disks
    }

    /// `sync`, then waits until every disk is idle (at most [`MAX_WAIT`]).
    pub(super) fn settle(&self) {
        let mut spent = self.spent.get();
        let start = Instant::now();
        rustix::fs::sync();
        spent.sync += start.elapsed();
        if !self.disks.is_empty() {
            let start = Instant::now();
            if !self.wait_idle() {
                spent.timeouts += 1;
            }
            spent.idle_wait += start.elapsed();
        }
        spent.steps += 1;
        self.spent.set(spent);
    }

    /// Polls the disks until all are idle; false if still busy after [`MAX_WAIT`].
    fn wait_idle(&self) -> bool {
        let read = || -> Vec<Option<DiskStat>> {
            (self.disks.iter())
                .map(|p| parse_stat(&fs::read_to_string(p).ok()?))
                .collect()
        };
        let start = Instant::now();
        let mut before = read();
        while start.elapsed() < MAX_WAIT {
            std::thread::sleep(POLL);
            let now = read();
            let idle = before.iter().zip(&now).all(|pair| match pair {
                (Some(b), Some(n)) => is_idle(*b, *n),
                _ => true, // unreadable: nothing to wait for
            });
            if idle {
                return true;
            }
            before = now;
        }
        false
    }

    /// What settling has cost so far.
    pub(super) fn spent(&self) -> Spent {
        self.spent.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disk_stats_parse_with_and_without_the_newer_fields() {
        let line = "  219330  9822 23523186 458921 41636 118005 93152184 387573 3 33248 851685 \
                    25030 64 12347368 5086 1957 104\n";
        let s = parse_stat(line).unwrap();
        assert_eq!(
            s,
            DiskStat {
                writes: 41636,
                in_flight: 3,
                discards: 25030,
                flushes: 1957,
            }
        );
        let old = parse_stat("1 2 3 4 5 6 7 8 0 10 11").unwrap();
        assert_eq!((old.writes, old.discards, old.flushes), (5, 0, 0));
        assert!(parse_stat("1 2 3").is_none());
        assert!(parse_stat("1 2 x 4 5 6 7 8 9 10 11").is_none());
    }

    #[test]
    fn a_disk_is_idle_only_with_nothing_in_flight_and_nothing_completed() {
        let base = DiskStat {
            writes: 10,
            in_flight: 0,
            discards: 5,
            flushes: 1,
        };
        assert!(is_idle(base, base));
        let busy = DiskStat {
            in_flight: 1,
            ..base
        };
        assert!(!is_idle(busy, busy));
        let discarded = DiskStat {
            discards: 6,
            ..base
        };
        assert!(!is_idle(base, discarded));
        let written = DiskStat { writes: 11, ..base };
        assert!(!is_idle(base, written));
    }

    #[test]
    fn settling_counts_its_steps_and_skips_devices_without_a_disk() {
        // Device 0:N is never a disk (tmpfs and the like).
        let settler = Settler::new(&[rustix::fs::makedev(0, 42)]);
        assert!(settler.disks().is_empty());
        settler.settle();
        settler.settle();
        let spent = settler.spent();
        assert_eq!((spent.steps, spent.timeouts), (2, 0));
        assert_eq!(spent.idle_wait, Duration::ZERO);
    }
}
