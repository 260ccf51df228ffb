//! Helpers for the job tests: run a job through the engine, snapshot and compare trees, check
//! that summaries account for every source and that no temporary is left, mount scratch file
//! systems.

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use ferry_core::jobs::{Engine, Event, Job, StagingRoots, Summary};

/// What a job reported.
pub struct Outcome {
    pub summary: Summary,
    pub cancelled: bool,
    pub events: Vec<Event>,
}

/// Where the test engines keep replaced items: in the destination folder, which is in the
/// test's own tree, never in the user's data folder or at a mount's root.
pub fn staging_in_tree() -> StagingRoots {
    StagingRoots {
        home: None,
        volumes: false,
    }
}

/// Runs `job` on a fresh engine and waits for its end.
pub fn run_job(job: Job) -> Outcome {
    let (engine, events) = Engine::start_with(staging_in_tree());
    let id = engine.submit(job);
    collect(&events, id)
}

/// Runs `job` on a fresh engine that keeps replaced items under `staging` (`…/ferry/replaced`
/// in the test's own folder, so that nothing is written outside it).
pub fn run_job_staged(job: Job, staging: &Path) -> Outcome {
    let (engine, events) = Engine::start_with(StagingRoots::home_only(staging));
    let id = engine.submit(job);
    collect(&events, id)
}

/// Collects the events of `id` until it ends.
pub fn collect(
    events: &crossbeam_channel::Receiver<Event>,
    id: ferry_core::jobs::JobId,
) -> Outcome {
    let mut seen = Vec::new();
    for event in events.iter() {
        match &event {
            Event::Finished { job, summary } if *job == id => {
                return Outcome {
                    summary: summary.clone(),
                    cancelled: false,
                    events: seen,
                };
            }
            Event::Cancelled { job, summary } if *job == id => {
                return Outcome {
                    summary: summary.clone(),
                    cancelled: true,
                    events: seen,
                };
            }
            _ => seen.push(event),
        }
    }
    panic!("the engine hung up before the job ended");
}

/// One item of a tree, as far as a copy must preserve it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    File {
        mode: u32,
        mtime: (i64, i64),
        data: Vec<u8>,
    },
    Dir {
        mode: u32,
        mtime: (i64, i64),
    },
    Link(PathBuf),
    Fifo {
        mode: u32,
        mtime: (i64, i64),
    },
    Other,
}

/// Everything below `root` (not `root` itself), keyed by relative path; never follows links.
pub fn snapshot(root: &Path) -> BTreeMap<PathBuf, Node> {
    let mut out = BTreeMap::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        for entry in fs::read_dir(root.join(&rel)).unwrap() {
            let entry = entry.unwrap();
            let rel = rel.join(entry.file_name());
            let path = root.join(&rel);
            let meta = fs::symlink_metadata(&path).unwrap();
            let (mode, mtime) = (meta.mode() & 0o7777, (meta.mtime(), meta.mtime_nsec()));
            let t = meta.file_type();
            let node = if t.is_symlink() {
                Node::Link(fs::read_link(&path).unwrap())
            } else if t.is_dir() {
                stack.push(rel.clone());
                Node::Dir { mode, mtime }
            } else if t.is_file() {
                Node::File {
                    mode,
                    mtime,
                    data: fs::read(&path).unwrap(),
                }
            } else if t.is_fifo() {
                Node::Fifo { mode, mtime }
            } else {
                Node::Other
            };
            out.insert(rel, node);
        }
    }
    out
}

/// Waits for the start of the next second (and 5 ms), so that what a test makes next and the
/// job it then starts fall in one second, as a script's `mkdir` and copy often do: the case
/// where a job's start known only to the second cannot tell the user's items from the job's.
pub fn at_the_start_of_a_second() {
    let into = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .subsec_nanos();
    std::thread::sleep(std::time::Duration::from_nanos(
        u64::from(1_000_000_000 - into) + 5_000_000,
    ));
}

/// Asserts that no `.ferry-tmp-` temporary is left anywhere below `root`.
pub fn assert_no_temporaries(root: &Path) {
    for rel in snapshot(root).keys() {
        let name = rel.file_name().unwrap().as_bytes();
        assert!(
            !name.starts_with(b".ferry-tmp-"),
            "temporary left behind: {}",
            rel.display()
        );
    }
}

/// Asserts the summary accounts for every source: done, not done, or it or something inside
/// it skipped or failed.
pub fn assert_accounts_for(summary: &Summary, sources: &[PathBuf]) {
    for source in sources {
        let listed = summary.done.contains(source)
            || summary.not_done.contains(source)
            || summary.skipped.iter().any(|s| s.path.starts_with(source))
            || summary.failed.iter().any(|f| f.path.starts_with(source));
        assert!(
            listed,
            "the summary does not account for {}: {summary:#?}",
            source.display()
        );
    }
}

/// A file system mounted for one test, unmounted when dropped.
pub struct Mounted {
    pub dir: PathBuf,
}

impl Mounted {
    /// Mounts with `mount ARGS... DIR`; `None` (with a note) where mounting is not possible.
    pub fn new(dir: &Path, args: &[&str]) -> Option<Mounted> {
        fs::create_dir_all(dir).unwrap();
        let ok = Command::new("mount")
            .args(args)
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!(
                "note: cannot mount {args:?} on {} here; test skipped",
                dir.display()
            );
            return None;
        }
        Some(Mounted {
            dir: dir.to_path_buf(),
        })
    }

    /// A fresh btrfs of 300 MB at `tree/mnt`, from an image file `tree/btrfs.img` (so best
    /// made in a tree in `/dev/shm`); `None` (with a note) where `mkfs.btrfs` or loop mounts
    /// are not available.
    pub fn btrfs(tree: &ferry_tests::TempTree) -> Option<Mounted> {
        let img = tree.join("btrfs.img");
        fs::File::create(&img).unwrap().set_len(300 << 20).unwrap();
        let made = Command::new("mkfs.btrfs").arg("-q").arg(&img).output();
        if !made.is_ok_and(|o| o.status.success()) {
            eprintln!("note: mkfs.btrfs unavailable; test skipped");
            return None;
        }
        Mounted::new(&tree.join("mnt"), &["-o", "loop", img.to_str().unwrap()])
    }

    /// Makes a btrfs subvolume at `path` (`btrfs subvolume create`).
    pub fn subvolume(path: &Path) {
        let made = Command::new("btrfs")
            .args(["subvolume", "create"])
            .arg(path)
            .output()
            .unwrap();
        assert!(made.status.success(), "{made:?}");
    }

    /// A fresh ext4 of `size` bytes at `tree/mnt`, made with `mkfs.ext4 -q -F` and `options`
    /// in the image file `tree/ext4.img`; `None` (with a note) where `mkfs.ext4` or loop
    /// mounts are not available.
    pub fn ext4(tree: &ferry_tests::TempTree, size: u64, options: &[&str]) -> Option<Mounted> {
        let img = tree.join("ext4.img");
        fs::File::create(&img).unwrap().set_len(size).unwrap();
        let made = Command::new("mkfs.ext4")
            .args(["-q", "-F"])
            .args(options)
            .arg(&img)
            .output();
        if !made.is_ok_and(|o| o.status.success()) {
            eprintln!("note: mkfs.ext4 unavailable; test skipped");
            return None;
        }
        Mounted::new(&tree.join("mnt"), &["-o", "loop", img.to_str().unwrap()])
    }

    /// A tmpfs of `size` (e.g. "2m").
    pub fn tmpfs(dir: &Path, size: &str) -> Option<Mounted> {
        Mounted::new(
            dir,
            &["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"],
        )
    }

    /// A tmpfs of `size` at `dir` holding at most `inodes` files and folders (its root
    /// among them).
    pub fn tmpfs_inodes(dir: &Path, size: &str, inodes: u32) -> Option<Mounted> {
        let options = format!("size={size},nr_inodes={inodes}");
        Mounted::new(dir, &["-t", "tmpfs", "-o", &options, "tmpfs"])
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.dir).status();
    }
}

/// Creates a chain of `depth` folders named `name` below `root` through directory
/// descriptors (the path is longer than `PATH_MAX`), with a file `leaf` at the bottom.
pub fn deep_chain(root: &Path, name: &str, depth: usize) {
    use rustix::fs::{Mode, OFlags, mkdirat, openat};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let mut fd = openat(rustix::fs::CWD, root, flags, Mode::empty()).unwrap();
    for _ in 0..depth {
        mkdirat(&fd, name, Mode::from_raw_mode(0o755)).unwrap();
        fd = openat(&fd, name, flags, Mode::empty()).unwrap();
    }
    let leaf = openat(
        &fd,
        "leaf",
        OFlags::WRONLY | OFlags::CREATE,
        Mode::from_raw_mode(0o644),
    )
    .unwrap();
    rustix::io::write(&leaf, b"bottom").unwrap();
}

/// Depth of the chain of `name` folders below `root`, and the contents of its `leaf`.
pub fn chain_depth(root: &Path, name: &str) -> (usize, Vec<u8>) {
    use rustix::fs::{Mode, OFlags, openat};
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut fd = openat(rustix::fs::CWD, root, flags, Mode::empty()).unwrap();
    let mut depth = 0;
    while let Ok(next) = openat(&fd, name, flags, Mode::empty()) {
        fd = next;
        depth += 1;
    }
    let leaf = openat(&fd, "leaf", OFlags::RDONLY, Mode::empty()).unwrap();
    let mut buf = vec![0; 64];
    let n = rustix::io::read(&leaf, &mut buf[..]).unwrap();
    buf.truncate(n);
    (depth, buf)
}

/// A name that is not UTF-8.
pub fn non_utf8(prefix: &str) -> &'static OsStr {
    let mut bytes = prefix.as_bytes().to_vec();
    bytes.extend_from_slice(b"-\xff\xfe");
    OsStr::from_bytes(Box::leak(bytes.into_boxed_slice()))
}

/// Sets the modification time of `path` (not following links).
pub fn set_mtime(path: &Path, sec: i64) {
    let times = rustix::fs::Timestamps {
        last_access: rustix::fs::Timespec {
            tv_sec: sec,
            tv_nsec: 0,
        },
        last_modification: rustix::fs::Timespec {
            tv_sec: sec,
            tv_nsec: 123_456_789,
        },
    };
    rustix::fs::utimensat(
        rustix::fs::CWD,
        path,
        &times,
        rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
    )
    .unwrap();
}

/// Sets the permission bits of `path`.
pub fn chmod(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode)).unwrap();
}

/// Whether this runs as root; if not, says the test that needs it (`what`) is skipped.
pub fn root_or_skip(what: &str) -> bool {
    let root = rustix::process::geteuid().is_root();
    if !root {
        eprintln!("note: {what} needs root; skipped");
    }
    root
}

/// A `bindfs` view run in the foreground as a child, so that the test can stop it (as a
/// network share or FUSE server stops answering) and always lets it go and unmounts it.
pub(crate) struct StoppableFuse {
    child: std::process::Child,
    pub(crate) dir: PathBuf,
}

impl StoppableFuse {
    /// `None` (with a note) where bindfs cannot mount here.
    pub(crate) fn mount(backing: &Path, dir: &Path) -> Option<StoppableFuse> {
        fs::create_dir_all(dir).unwrap();
        let child = std::process::Command::new("bindfs")
            .arg("-f")
            .arg(backing)
            .arg(dir)
            .spawn();
        let Ok(child) = child else {
            eprintln!("note: no bindfs; skipped");
            return None;
        };
        let fuse = StoppableFuse {
            child,
            dir: dir.to_owned(),
        };
        let end = Instant::now() + Duration::from_secs(20);
        let mounted = || {
            let table = ferry_core::fs::MountTable::read();
            table
                .covering(dir)
                .is_some_and(|m| m.mount_point == dir && m.is_fuse())
        };
        while !mounted() {
            if Instant::now() > end {
                eprintln!("note: bindfs did not mount; skipped");
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        Some(fuse)
    }

    /// A view at `tree/view` (of `tree/backing`, holding a file), and a file `tree/src.txt`
    /// to copy there; `None` (with a note) where bindfs cannot mount here.
    pub(crate) fn with_a_source(tree: &ferry_tests::TempTree) -> Option<(StoppableFuse, PathBuf)> {
        tree.file("backing/seen", "x");
        let fuse = StoppableFuse::mount(&tree.join("backing"), &tree.join("view"))?;
        Some((fuse, tree.file("src.txt", "s")))
    }

    pub(crate) fn signal(&self, signal: &str) {
        let pid = self.child.id().to_string();
        let sent = std::process::Command::new("kill")
            .args([signal, &pid])
            .status();
        assert!(sent.unwrap().success());
    }
}

impl Drop for StoppableFuse {
    fn drop(&mut self) {
        self.signal("-CONT");
        // A lister let go by the server may still hold a folder there a moment: busy until
        // it ends; past a while, detached lazily.
        let unmount = |flags: &str| {
            std::process::Command::new("fusermount")
                .arg(flags)
                .arg(&self.dir)
                .status()
                .is_ok_and(|s| s.success())
        };
        let end = Instant::now() + Duration::from_secs(5);
        while !unmount("-u") {
            if Instant::now() > end {
                unmount("-uz");
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
