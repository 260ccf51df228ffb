//! Btrfs subvolumes inside one mount: each has a device of its own, `rename(2)` fails between
//! them (`EXDEV`) while clones do not. Replace keeps the old item in the subvolume's own
//! staging folder, and a clone across subvolumes needs no free space.

use std::fs;

use ferry_tests::TempTree;

use crate::ferry_in;
use crate::jobs_support::Mounted;
use crate::undo::ok;

/// Replace into a subvolume below the mount's top: the old file went to the staging folder
/// at the top, on another device, and the job stopped ("cannot move aside …: Invalid
/// cross-device link"). It is kept at the subvolume's top now, and undo brings it back.
#[test]
fn replace_in_a_subvolume_keeps_the_old_file_and_undoes() {
    let shm = TempTree::new_in("/dev/shm");
    let Some(mnt) = Mounted::btrfs(&shm) else {
        return;
    };
    let home = shm.dir("home");
    let top = mnt.dir.join("home");
    Mounted::subvolume(&top);
    let docs = top.join("docs");
    fs::create_dir(&docs).unwrap();
    fs::write(docs.join("a.txt"), "old").unwrap();
    let new = shm.file("src/a.txt", "new");
    let replace = ferry_in(&home)
        .args(["cp", "--on-conflict", "replace"])
        .arg(&new)
        .arg(&docs)
        .output()
        .unwrap();
    ok(&replace);
    assert_eq!(fs::read(docs.join("a.txt")).unwrap(), b"new");
    let staging = format!(".ferry-replaced-{}", rustix::process::geteuid().as_raw());
    assert!(top.join(&staging).is_dir(), "kept at the subvolume's top");
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_eq!(fs::read(docs.join("a.txt")).unwrap(), b"old");
    // The undone copy is in the subvolume's trash; the emptied staging folder is gone.
    let names: Vec<_> = (fs::read_dir(&top).unwrap())
        .chain(fs::read_dir(&docs).unwrap())
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".ferry"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

/// A file larger than the free space copied to another subvolume of the same file system: a
/// clone, which takes no space. The check before writing refused it ("not enough free
/// space"), as it did not count a clone between two devices.
#[test]
fn a_clone_to_another_subvolume_is_not_refused_for_space() {
    let shm = TempTree::new_in("/dev/shm");
    let Some(mnt) = Mounted::btrfs(&shm) else {
        return;
    };
    let home = shm.dir("home");
    let (a, b) = (mnt.dir.join("a"), mnt.dir.join("b"));
    Mounted::subvolume(&a);
    Mounted::subvolume(&b);
    let free = || {
        std::process::Command::new("sync").status().unwrap();
        let s = rustix::fs::statvfs(&b).unwrap();
        s.f_bavail * s.f_frsize
    };
    // Well over half the free space: a second copy of it does not fit.
    let size = free() * 3 / 4;
    let big: Vec<u8> = (0..size).map(|i| (i >> 12) as u8).collect();
    fs::write(a.join("big"), &big).unwrap();
    assert!(free() < size, "the file does not fit twice");
    let out = ferry_in(&home)
        .arg("cp")
        .arg(a.join("big"))
        .arg(&b)
        .output()
        .unwrap();
    ok(&out);
    assert!(fs::read(b.join("big")).unwrap() == big);
}
