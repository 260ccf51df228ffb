//! `ferry_core::jobs::measure`: what the window's "Permanently delete 3 folders and 12 files,
//! 1.2 GB?" counts, walked as a delete walks: links not followed, other file systems not
//! entered, unreadable folders counted rather than failing the whole.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::AtomicBool;

use ferry_core::jobs::{Measure, measure};
use ferry_tests::TempTree;

use crate::jobs_support::Mounted;

fn measured(paths: &[&Path]) -> Measure {
    let paths: Vec<_> = paths.iter().map(|p| p.to_path_buf()).collect();
    measure(&paths, &AtomicBool::new(false)).unwrap()
}

#[test]
fn files_folders_links_and_bytes_of_a_selection() {
    let t = TempTree::new();
    t.file("sel/docs/a.txt", vec![b'a'; 1000]);
    t.file("sel/docs/deep/b.txt", vec![b'b'; 24]);
    t.dir("sel/empty");
    t.fifo("sel/docs/pipe");
    let outside = t.many_files("outside", "f", 50, 1000);
    let link = t.symlink("sel/docs/to-outside", &outside);
    let single = t.file("sel/single.bin", vec![0u8; 4096]);
    let m = measured(&[&t.join("sel/docs"), &t.join("sel/empty"), &single]);
    let text = fs::symlink_metadata(&link).unwrap().len();
    assert_eq!(
        m,
        Measure {
            files: 3,
            folders: 3,
            symlinks: 1,
            others: 1,
            bytes: 1000 + 24 + 4096 + text,
            unreadable: 0,
            other_filesystems: 0,
        }
    );
    // A link given itself is a link, not what it points to.
    let m = measured(&[&link]);
    assert_eq!((m.symlinks, m.files, m.bytes), (1, 0, text));
}

#[test]
fn other_file_systems_are_not_entered() {
    let t = TempTree::new();
    t.file("sel/mine.txt", "12345");
    let Some(tmpfs) = Mounted::tmpfs(&t.join("sel/tmpfs"), "1m") else {
        return;
    };
    fs::write(tmpfs.dir.join("on-tmpfs"), vec![0u8; 10_000]).unwrap();
    // A bind mount of the same file system is another mount too: a delete stays out of it.
    let elsewhere = t.many_files("elsewhere", "f", 20, 100);
    let bind = t.join("sel/bind");
    fs::create_dir(&bind).unwrap();
    let Some(_bind) = Mounted::new(&bind, &["--bind", elsewhere.to_str().unwrap()]) else {
        return;
    };
    let m = measured(&[&t.join("sel")]);
    assert_eq!((m.files, m.folders, m.bytes), (1, 1, 5), "{m:?}");
    assert_eq!(m.other_filesystems, 2, "{m:?}");
    // Given itself, a mount point is left alone too, as a delete leaves it.
    let m = measured(&[&tmpfs.dir]);
    assert_eq!((m.items(), m.other_filesystems), (0, 1), "{m:?}");
    // /dev/shm is not entered through a link to it.
    let shm = t.symlink("sel2/shm", "/dev/shm");
    let m = measured(&[&t.join("sel2")]);
    assert_eq!(
        (m.folders, m.symlinks, m.files),
        (1, 1, 0),
        "{m:?} ({})",
        shm.display()
    );
}

/// The tree of [`an_unreadable_folder_is_counted_not_fatal`], measured by whoever runs this:
/// the test itself, or a copy of this test binary run as an unprivileged user.
const TREE: &str = "FERRY_TEST_MEASURE_TREE";

#[test]
fn an_unreadable_folder_is_counted_not_fatal() {
    let t = TempTree::new();
    fs::set_permissions(t.path(), fs::Permissions::from_mode(0o755)).unwrap();
    t.file("sel/readable/a", "abc");
    t.file("sel/locked/hidden", vec![0u8; 1000]);
    t.file("sel/b", "de");
    let locked = t.join("sel/locked");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    if !rustix::process::geteuid().is_root() {
        return measure_the_tree(&t.join("sel"));
    }
    // Root reads any folder: measure as the unprivileged user 65534, by this very test
    // binary running only the test below.
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(std::env::current_exe().unwrap())
        .args([
            "measure::unreadable_as_someone_else",
            "--exact",
            "--ignored",
        ])
        .args(["--nocapture", "--test-threads=1"])
        .env(TREE, t.join("sel"))
        .output()
        .unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{said}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(said.contains("1 passed"), "{said}");
}

/// Run only by [`an_unreadable_folder_is_counted_not_fatal`], as another user.
#[test]
#[ignore = "run by an_unreadable_folder_is_counted_not_fatal as an unprivileged user"]
fn unreadable_as_someone_else() {
    if let Some(tree) = std::env::var_os(TREE) {
        measure_the_tree(Path::new(&tree));
    }
}

fn measure_the_tree(sel: &Path) {
    let m = measured(&[sel]);
    assert_eq!(
        (m.folders, m.files, m.bytes, m.unreadable),
        (3, 2, 5, 1),
        "{m:?}"
    );
}
