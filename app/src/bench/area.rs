//! Scratch areas: one folder on each filesystem the benchmark measures, holding every fixture
//! and output, removed at the end.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde_json::Value;

/// Files created to check the health of a filesystem.
const PROBE_FILES: usize = 256;
/// How long ext4 without a journal avoids an inode after freeing it once its inode-table block
/// is written (`RECENTCY_MIN` in `fs/ext4/ialloc.c`), and a second more.
const RECENTLY_DELETED: Duration = Duration::from_secs(61);
/// Microseconds per file under which creating files counts as recovered from earlier
/// deletions (a healthy ext4 here takes 20 to 30). After deleting about 200,000 files, one
/// minute was not enough: the probe read 155 us a file, and a full benchmark then measured
/// every ext4 copy against that; creating 2,000 files went from 1.4 s to 84 ms between 80
/// and 120 s after the deletion.
const SETTLED_CREATE_US: f64 = 60.0;
/// How long the area waits at most, in all, for creating files to recover.
const MAX_SETTLE: Duration = Duration::from_secs(6 * 60);
/// Between two probes while waiting.
const PROBE_PAUSE: Duration = Duration::from_secs(15);

/// A scratch folder on one filesystem. Everything the benchmark creates lives under it, and it
/// is removed (with everything moved aside into its trash) when the area is dropped, i.e. at the
/// very end of the run.
pub(super) struct Area {
    /// Stable label used in the report: `work` (the work tree's filesystem) or `shm`.
    pub label: &'static str,
    /// Filesystem type from the mount table (`ext4`, `tmpfs`, ...).
    pub fs_type: String,
    /// Mount options of that filesystem (shows `discard`, for instance).
    pub mount_options: String,
    /// The scratch folder.
    pub root: PathBuf,
    /// Device of the scratch folder, to tell whether two areas are different filesystems.
    pub dev: u64,
    /// Whether outputs are moved aside and deleted only at the end (everything but tmpfs), so
    /// that no timed run creates files shortly after thousands were deleted: ext4 without a
    /// journal passes over every inode freed in the last minute (six while its inode-table
    /// block is unwritten) on each inode it allocates (`recently_deleted` in
    /// `fs/ext4/ialloc.c`, the top of `perf` profiles then), and file creation right after mass
    /// deletion slows down by an order of magnitude (5,000 files: 3.5 s instead of 0.2 s).
    pub defer_deletes: bool,
    /// How long the area waited, before its first timed file, for inodes freed before the
    /// benchmark started to stop being avoided (ext4 without a journal: [`RECENTLY_DELETED`],
    /// then longer while creating files stays slow).
    pub waited_for_deletions: Duration,
    /// Microseconds per file to create 256 files of 4 KiB here, measured when the area is
    /// made: a health check of the filesystem. Tens of microseconds normally; ten times more
    /// on ext4 without a journal for a minute after mass deletion had it not waited.
    pub create_us: f64,
    trash: PathBuf,
    discarded: std::cell::Cell<u64>,
}

impl Area {
    /// Creates the scratch folder `ferry-bench-<pid>-<label>` inside `parent` (the label keeps
    /// two areas apart when `--dir` is `/dev/shm` itself); [`make_ready`](Self::make_ready)
    /// before use.
    pub(super) fn create(label: &'static str, parent: &Path) -> Result<Area> {
        let root = parent.join(format!("ferry-bench-{}-{label}", std::process::id()));
        fs::create_dir(&root).with_context(|| format!("cannot create {}", root.display()))?;
        let root = root.canonicalize()?;
        let (fs_type, mount_options) = mount_of(&root).unwrap_or_default();
        // From here on, dropping the area removes the folder, also on an early return.
        Ok(Area {
            label,
            defer_deletes: fs_type != "tmpfs",
            fs_type,
            mount_options,
            dev: fs::metadata(&root)?.dev(),
            trash: root.join("trash"),
            root,
            create_us: 0.0,
            waited_for_deletions: Duration::ZERO,
            discarded: std::cell::Cell::new(0),
        })
    }

    /// Makes its trash and measures how fast files are created in it. With `settle`, on ext4
    /// without a journal, first waits out the inodes that earlier deletions (a previous
    /// benchmark's clean-up, say) left to be avoided: `sync`, [`RECENTLY_DELETED`], then as
    /// long as creating files is slower than [`SETTLED_CREATE_US`] (at most [`MAX_SETTLE`] in
    /// all). The files of those probes stay until the end: deleting them would start it again.
    pub(super) fn make_ready(&mut self, settle: bool) -> Result<()> {
        if settle && self.fs_type == "ext4" && ext4_without_journal(self.dev) {
            let start = Instant::now();
            rustix::fs::sync();
            std::thread::sleep(RECENTLY_DELETED);
            for waited in 1.. {
                let us = self.probe(&format!("settling-{waited}"))?;
                if us <= SETTLED_CREATE_US || start.elapsed() >= MAX_SETTLE {
                    break;
                }
                std::thread::sleep(PROBE_PAUSE);
            }
            self.waited_for_deletions = start.elapsed();
        }
        fs::create_dir(&self.trash)?;
        self.create_us = self.probe("probe")?;
        Ok(())
    }

    /// Microseconds per file to create [`PROBE_FILES`] files of 4 KiB in the new folder `name`.
    fn probe(&self, name: &str) -> Result<f64> {
        let start = Instant::now();
        super::fixtures::flat(&self.path(name), PROBE_FILES, 4096)?;
        Ok(start.elapsed().as_secs_f64() * 1e6 / PROBE_FILES as f64)
    }

    /// `root/rel`.
    pub(super) fn path(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.root.join(rel)
    }

    /// Gets rid of a run's output: moved into the trash folder (deleted at the end) where
    /// deletes are deferred, deleted now on tmpfs. A path that does not exist is fine.
    pub(super) fn discard(&self, path: &Path) -> Result<()> {
        self.discard_as(path, self.defer_deletes)
    }

    /// Deletes a run's output now, on any filesystem: for outputs of few, large files, which
    /// would fill the disk if kept to the end (the large copy writes 1 GiB a run, 90 runs
    /// with `--load`), and whose deletion frees few inodes. The settle step before the next
    /// run waits for the discards it causes.
    pub(super) fn discard_now(&self, path: &Path) -> Result<()> {
        self.discard_as(path, false)
    }

    fn discard_as(&self, path: &Path, defer: bool) -> Result<()> {
        if fs::symlink_metadata(path).is_err() {
            return Ok(());
        }
        if defer {
            let n = self.discarded.get() + 1;
            self.discarded.set(n);
            let aside = self.trash.join(n.to_string());
            fs::rename(path, &aside)
                .with_context(|| format!("cannot move {} aside", path.display()))
        } else if path.is_dir() {
            fs::remove_dir_all(path).with_context(|| format!("cannot remove {}", path.display()))
        } else {
            fs::remove_file(path).with_context(|| format!("cannot remove {}", path.display()))
        }
    }

    /// Describes the area for the JSON report.
    pub(super) fn to_json(&self) -> Value {
        serde_json::json!({
            "label": self.label,
            "path": self.root,
            "type": self.fs_type,
            "mount_options": self.mount_options,
            "deferred_deletes": self.defer_deletes,
            "create_us_per_file": self.create_us,
            "waited_for_deletions_s": self.waited_for_deletions.as_secs_f64(),
        })
    }
}

impl Drop for Area {
    fn drop(&mut self) {
        if let Err(err) = fs::remove_dir_all(&self.root) {
            eprintln!("ferry bench: cannot remove {}: {err}", self.root.display());
        }
    }
}

/// Whether the ext4 filesystem on device `dev` has no journal: its `journal_task` in sysfs says
/// `<none>` (the kernel's own word; a journaled one names its jbd2 thread).
fn ext4_without_journal(dev: u64) -> bool {
    let (major, minor) = (rustix::fs::major(dev), rustix::fs::minor(dev));
    let Ok(device) = fs::read_link(format!("/sys/dev/block/{major}:{minor}")) else {
        return false;
    };
    let Some(name) = device.file_name() else {
        return false;
    };
    let task = Path::new("/sys/fs/ext4").join(name).join("journal_task");
    fs::read_to_string(task).is_ok_and(|t| t.trim() == "<none>")
}

/// The filesystem type and mount options of the mount holding `path` (longest mount point that
/// is a prefix of it), from `/proc/self/mountinfo`.
fn mount_of(path: &Path) -> Option<(String, String)> {
    let info = fs::read_to_string("/proc/self/mountinfo").ok()?;
    let mut best: Option<(usize, String, String)> = None;
    for line in info.lines() {
        // id parent major:minor root mount_point options [optional...] - type source super_options
        let (left, right) = line.split_once(" - ")?;
        let left: Vec<&str> = left.split(' ').collect();
        let right: Vec<&str> = right.split(' ').collect();
        let (Some(mount_point), Some(options), Some(fs_type)) =
            (left.get(4), left.get(5), right.first())
        else {
            continue;
        };
        let mount_point = unescape_mount(mount_point);
        if path.starts_with(&mount_point) && best.as_ref().is_none_or(|b| mount_point.len() >= b.0)
        {
            // Per-mount options, then the filesystem's own (where `discard` shows).
            let mut all: Vec<&str> = options.split(',').collect();
            for opt in right.get(2).map_or("", |o| *o).split(',') {
                if !all.contains(&opt) {
                    all.push(opt);
                }
            }
            best = Some((mount_point.len(), (*fs_type).to_owned(), all.join(",")));
        }
    }
    best.map(|(_, t, o)| (t, o))
}

/// Undoes the octal escapes (`\040` for a space) of a mountinfo path.
fn unescape_mount(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\'
            && let Some(code) = field
                .get(i + 1..i + 4)
                .and_then(|o| u8::from_str_radix(o, 8).ok())
        {
            out.push(code);
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_ext4_device_can_lack_a_journal() {
        // tmpfs has no block device, let alone a journal to lack.
        let shm = fs::metadata("/dev/shm").unwrap().dev();
        assert!(!ext4_without_journal(shm));
        assert!(!ext4_without_journal(0));
    }

    #[test]
    fn mount_paths_are_unescaped() {
        assert_eq!(unescape_mount(r"/mnt/with\040space"), "/mnt/with space");
        assert_eq!(unescape_mount("/plain"), "/plain");
    }
}
