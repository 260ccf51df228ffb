//! Resuming a large file a killed `ferry cp` left half written: the part already written is
//! verified against the source and kept, only the rest is copied (a hole staying a hole); a
//! damaged part is copied again; undo removes the part.

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use ferry_tests::TempTree;

use crate::ferry_in;

const MIB: u64 = 1 << 20;

/// Asserts success; returns stdout and stderr.
fn ok(out: &Output) -> String {
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}");
    text
}

/// Megabyte `k` of the test data: different in every megabyte, so a part compared at the
/// wrong offset would not match.
fn chunk(k: u64) -> Vec<u8> {
    (0..MIB / 8)
        .flat_map(|j| {
            ((k << 20 | j) + 1)
                .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                .to_le_bytes()
        })
        .collect()
}

pub(crate) fn write_data(path: &Path, mib: u64) {
    let mut f = fs::File::create(path).unwrap();
    for k in 0..mib {
        f.write_all(&chunk(k)).unwrap();
    }
}

pub(crate) fn same_contents(a: &Path, b: &Path) -> bool {
    let (mut fa, mut fb) = (fs::File::open(a).unwrap(), fs::File::open(b).unwrap());
    if fa.metadata().unwrap().len() != fb.metadata().unwrap().len() {
        return false;
    }
    let (mut ba, mut bb) = (vec![0u8; MIB as usize], vec![0u8; MIB as usize]);
    loop {
        let n = fa.read(&mut ba).unwrap();
        if n == 0 {
            return true;
        }
        fb.read_exact(&mut bb[..n]).unwrap();
        if ba[..n] != bb[..n] {
            return false;
        }
    }
}

pub(crate) fn parts_in(dir: &Path) -> Vec<PathBuf> {
    fs::read_dir(dir)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".ferry-part-"))
        .map(|e| e.path())
        .collect()
}

/// The killed copy: its source, destination folder and the part it left.
struct Killed {
    src: PathBuf,
    dest: PathBuf,
    part: PathBuf,
    status: std::process::ExitStatus,
}

/// What the large file of [`stop_a_large_copy`] holds.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// Data all through.
    Dense,
    /// Data in its first half, a hole in its second.
    HoleAtTheEnd,
}

/// Starts `ferry cp` of one large file from tmpfs to the work tree and sends it `signal` once
/// its part holds more than 100 MiB; a copy that finishes first is tried again with a larger
/// file. `None` if it never could be caught.
fn stop_a_large_copy(
    shm: &TempTree,
    t: &TempTree,
    home: &Path,
    signal: &str,
    shape: Shape,
) -> Option<Killed> {
    for (attempt, mib) in [300u64, 1024, 2048].into_iter().enumerate() {
        let src = shm.join(format!("big-{attempt}.bin"));
        match shape {
            Shape::Dense => write_data(&src, mib),
            Shape::HoleAtTheEnd => {
                write_data(&src, mib / 2);
                fs::OpenOptions::new()
                    .write(true)
                    .open(&src)
                    .unwrap()
                    .set_len(mib * MIB)
                    .unwrap();
            }
        }
        let dest = t.dir(format!("dest-{attempt}"));
        let mut child = ferry_in(home)
            .arg("cp")
            .arg(&src)
            .arg(&dest)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let part = loop {
            if child.try_wait().unwrap().is_some() {
                break None;
            }
            let big = parts_in(&dest)
                .into_iter()
                .find(|p| fs::metadata(p).is_ok_and(|m| m.len() > 100 * MIB));
            if big.is_some() {
                break big;
            }
        };
        let pid = child.id().to_string();
        let _ = Command::new("kill").args([signal, &pid]).status();
        let status = child.wait().unwrap();
        match part {
            Some(part) if !dest.join(src.file_name().unwrap()).exists() => {
                return Some(Killed {
                    src,
                    dest,
                    part,
                    status,
                });
            }
            // Finished before the signal landed: undo it and try a larger file.
            _ => {
                ok(&ferry_in(home).arg("undo").output().unwrap());
                fs::remove_file(&src).unwrap();
            }
        }
    }
    None
}

/// Kills a large copy, checks what it left, and returns it (`None`: skip the test).
fn killed(shm: &TempTree, t: &TempTree, home: &Path, shape: Shape) -> Option<Killed> {
    let Some(k) = stop_a_large_copy(shm, t, home, "-KILL", shape) else {
        eprintln!("note: every copy finished before it could be killed; test skipped");
        return None;
    };
    let name = k.src.file_name().unwrap();
    assert!(!k.dest.join(name).exists(), "nothing under the final name");
    // The next start removes temporaries but keeps the part: it is the resume state.
    let history = ok(&ferry_in(home).arg("history").output().unwrap());
    assert!(history.contains("INTERRUPTED"), "{history}");
    assert!(k.part.exists(), "the part survives the next start");
    Some(k)
}

/// The number in "kept N bytes" of a resume's output, or 0.
fn kept_bytes(stderr: &str) -> u64 {
    stderr
        .lines()
        .find_map(|l| {
            l.strip_prefix("ferry: kept ")?
                .split(' ')
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

#[test]
fn a_large_file_killed_midway_is_verified_and_appended_on_resume() {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    let Some(k) = killed(&shm, &t, &home, Shape::Dense) else {
        return;
    };
    let written = fs::metadata(&k.part).unwrap().len();
    let total = fs::metadata(&k.src).unwrap().len();

    let out = ok(&ferry_in(&home).arg("resume").output().unwrap());
    let kept = kept_bytes(&out);
    assert_eq!(kept, written, "the whole part was kept: {out}");
    assert!(kept > 0 && kept < total, "resume copied only the rest");
    let copy = k.dest.join(k.src.file_name().unwrap());
    assert!(
        same_contents(&k.src, &copy),
        "the result is the source byte for byte"
    );
    assert!(parts_in(&k.dest).is_empty(), "no part left");
    let history = ok(&ferry_in(&home).arg("history").output().unwrap());
    assert!(!history.contains("INTERRUPTED"), "{history}");
    // Its counts are the resume's: said so, or they read as the whole job's.
    assert!(
        history.contains("by the resume that finished it"),
        "{history}"
    );
}

#[test]
fn a_damaged_part_is_copied_again_on_resume() {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    let Some(k) = killed(&shm, &t, &home, Shape::Dense) else {
        return;
    };
    // Flip one byte in the middle of what was written.
    let mut data = vec![0u8; 1];
    let f = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&k.part)
        .unwrap();
    let at = 50 * MIB + 12_345;
    std::os::unix::fs::FileExt::read_exact_at(&f, &mut data, at).unwrap();
    std::os::unix::fs::FileExt::write_all_at(&f, &[data[0] ^ 0x5a], at).unwrap();
    drop(f);

    let out = ok(&ferry_in(&home).arg("resume").output().unwrap());
    assert_eq!(
        kept_bytes(&out),
        0,
        "nothing of a damaged part is kept: {out}"
    );
    let copy = k.dest.join(k.src.file_name().unwrap());
    assert!(
        same_contents(&k.src, &copy),
        "the file was copied again, correctly"
    );
    assert!(parts_in(&k.dest).is_empty(), "no part left");
}

#[test]
fn undo_of_an_interrupted_large_copy_removes_its_part() {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    let Some(k) = killed(&shm, &t, &home, Shape::Dense) else {
        return;
    };
    let said = ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert!(parts_in(&k.dest).is_empty(), "the part was removed");
    assert!(!k.dest.join(k.src.file_name().unwrap()).exists());
    assert!(k.src.exists(), "the source is untouched");
    // It said "nothing of it was undone" after removing the part.
    assert!(
        said.contains("nothing of it was in place yet; the file it had begun was removed")
            && !said.contains("nothing of it was undone"),
        "{said}"
    );
}

#[test]
fn a_cancelled_large_copy_leaves_no_part() {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    // Ctrl-C cancels through the engine, which removes the file in flight.
    let Some(k) = stop_a_large_copy(&shm, &t, &home, "-INT", Shape::Dense) else {
        eprintln!("note: every copy finished before it could be cancelled; test skipped");
        return;
    };
    assert!(!k.part.exists(), "the part was removed");
    assert!(parts_in(&k.dest).is_empty());
    assert!(!k.dest.join(k.src.file_name().unwrap()).exists());
    // Then it ends by the signal, as cp does, so that a shell stops its loop (status 130).
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(k.status.signal(), Some(2), "{:?}", k.status);
}

#[test]
fn a_resumed_sparse_file_keeps_its_holes() {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    let Some(k) = killed(&shm, &t, &home, Shape::HoleAtTheEnd) else {
        return;
    };
    let size = fs::metadata(&k.src).unwrap().len();
    let written = fs::metadata(&k.part).unwrap().len();
    assert!(written < size / 2, "killed while writing the data half");

    let out = ok(&ferry_in(&home).arg("resume").output().unwrap());
    assert_eq!(kept_bytes(&out), written, "the part was continued: {out}");
    let copy = k.dest.join(k.src.file_name().unwrap());
    assert!(same_contents(&k.src, &copy));
    // The data half takes its blocks; the hole after it takes none.
    let allocated = fs::metadata(&copy).unwrap().blocks() * 512;
    assert!(
        allocated < size / 2 + size / 8,
        "{allocated} bytes allocated for {size} bytes, half of them a hole"
    );
}

/// A copy of a folder killed while it filled it out of sight (`fresh.rs`): nothing of it was
/// in place, and its undo says so. It said "nothing of it was undone: what the job did is no
/// longer as it left it", as if something had been changed since.
#[test]
fn undo_of_a_copy_killed_before_its_folder_was_in_place_says_so() {
    let t = TempTree::new();
    let home = t.dir("home");
    for i in 0..40 {
        t.file(format!("src/f{i}"), "some bytes");
    }
    let dest = t.dir("dest");
    let killed = ferry_in(&home)
        .env("FERRY_FAULT_POINT", "item-done")
        .arg("cp")
        .arg(t.join("src"))
        .arg(&dest)
        .output()
        .unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&killed.status),
        Some(9)
    );
    let said = ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert!(
        said.contains(
            "nothing of it was in place yet; what it had begun was removed when it was found \
             interrupted"
        ),
        "{said}"
    );
    assert_eq!(fs::read_dir(&dest).unwrap().count(), 0, "nothing left");
    assert_eq!(fs::read_dir(t.join("src")).unwrap().count(), 40);
}

/// `ferry cp SOURCES... DEST`, killed when its first file's data is written.
fn copy_killed_when_a_file_is_written(home: &Path, sources: &[&Path], dest: &Path) {
    let killed = ferry_in(home)
        .env("FERRY_FAULT_POINT", "file-written")
        .arg("cp")
        .args(sources)
        .arg(dest)
        .output()
        .unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&killed.status),
        Some(9)
    );
}

/// A resume refused for want of space keeps its parts and leaves the job interrupted, to be
/// tried again once there is room; then it continues them.
#[test]
fn a_resume_stopped_for_want_of_space_can_be_tried_again() {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    let args = ["-t", "tmpfs", "-o", "size=400m", "tmpfs"];
    let Some(small) = crate::jobs_support::Mounted::new(&t.join("small"), &args) else {
        return;
    };
    let (a, b) = (shm.join("a.bin"), shm.join("b.bin"));
    write_data(&a, 150);
    write_data(&b, 100);
    // Killed when the first file is whole: both are written as parts, one whole.
    copy_killed_when_a_file_is_written(&home, &[&a, &b], &small.dir);
    let parts = parts_in(&small.dir);
    let written: u64 = parts.iter().map(|p| fs::metadata(p).unwrap().len()).sum();
    let still_needed = 250 * MIB - written;
    if still_needed < 4 * MIB {
        eprintln!("note: both parts were whole when killed; the refusal is not tested");
        return;
    }
    // Less room than the rest of the copy needs (the parts' bytes are written already).
    let filler = fs::File::create(small.dir.join("filler")).unwrap();
    let free = rustix::fs::statvfs(&small.dir).unwrap();
    let free = free.f_bavail * free.f_frsize;
    let fill = free - (still_needed - 2 * MIB);
    rustix::fs::fallocate(&filler, rustix::fs::FallocateFlags::empty(), 0, fill).unwrap();
    drop(filler);

    let out = ferry_in(&home).arg("resume").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("not enough free space"), "{stderr}");
    assert!(stderr.contains("`ferry resume` tries again"), "{stderr}");
    assert_eq!(parts_in(&small.dir), parts, "the parts are kept");
    let history = ok(&ferry_in(&home).arg("history").output().unwrap());
    assert!(history.contains("INTERRUPTED"), "{history}");

    fs::remove_file(small.dir.join("filler")).unwrap();
    let out = ok(&ferry_in(&home).arg("resume").output().unwrap());
    assert_eq!(kept_bytes(&out), written, "{out}");
    assert!(same_contents(&a, &small.dir.join("a.bin")));
    assert!(same_contents(&b, &small.dir.join("b.bin")));
    assert!(parts_in(&small.dir).is_empty());
}

/// A resume's free-space check counts what its parts already hold: a 150 MiB file whose
/// part is whole resumes on a disk with 80 MiB free.
#[test]
fn a_resume_needs_no_room_for_what_its_parts_hold() {
    let (shm, t) = (TempTree::new_in("/dev/shm"), TempTree::new());
    let home = t.dir("home");
    let args = ["-t", "tmpfs", "-o", "size=230m", "tmpfs"];
    let Some(small) = crate::jobs_support::Mounted::new(&t.join("small"), &args) else {
        return;
    };
    let src = shm.join("big.bin");
    write_data(&src, 150);
    copy_killed_when_a_file_is_written(&home, &[&src], &small.dir);
    assert_eq!(parts_in(&small.dir).len(), 1);
    let out = ok(&ferry_in(&home).arg("resume").output().unwrap());
    assert_eq!(kept_bytes(&out), 150 * MIB, "{out}");
    assert!(same_contents(&src, &small.dir.join("big.bin")));
    assert!(parts_in(&small.dir).is_empty());
}

/// A resume whose destination has turned read-only (remounted so after an error) fails
/// every item, as no space would stop it: the record is left interrupted, to be resumed once
/// the disk is writable, not ended with the copy half done.
#[test]
fn a_resume_onto_a_read_only_disk_can_be_tried_again() {
    let t = TempTree::new();
    let home = t.dir("home");
    let args = ["-t", "tmpfs", "-o", "size=8m", "tmpfs"];
    let Some(disk) = crate::jobs_support::Mounted::new(&t.join("disk"), &args) else {
        return;
    };
    let names: Vec<String> = (0..40).map(|i| format!("src/f{i:02}")).collect();
    for name in &names {
        t.file(name, name);
    }
    let killed = ferry_in(&home)
        .env("FERRY_FAULT_POINT", "item-done:3")
        .arg("cp")
        .arg(t.join("src"))
        .arg(&disk.dir)
        .output()
        .unwrap();
    assert_eq!(killed.status.code(), None, "{killed:?}");
    let remount = |how: &str| {
        let out = std::process::Command::new("mount")
            .args(["-o", &format!("remount,{how}")])
            .arg(&disk.dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    };
    remount("ro");
    let out = ferry_in(&home).arg("resume").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("Read-only"), "{stderr}");
    // Before: the killed copy's hidden folder could not be removed, and that hid the job
    // ("no interrupted job to resume"); with it said and the job resumed, each item failed
    // and the record was ended.
    assert!(stderr.contains("`ferry resume` tries again"), "{stderr}");
    let history = ok(&ferry_in(&home).arg("history").output().unwrap());
    assert!(history.contains("INTERRUPTED"), "{history}");

    remount("rw");
    ok(&ferry_in(&home).arg("resume").output().unwrap());
    for name in &names {
        assert_eq!(fs::read_to_string(disk.dir.join(name)).unwrap(), *name);
    }
}

/// A FIFO holds no bytes: its kind and mtime make it a finished copy, as size, mtime and
/// bytes make a file one. It was never one: a killed copy, resumed, then undone, left the
/// FIFO's copy and its folders (exit 0, said nowhere); a killed move to another file system,
/// resumed, left the source FIFO ("already exists at the destination").
#[test]
fn a_fifo_is_rolled_back_and_settled_like_a_file() {
    let t = TempTree::new();
    let home = t.dir("home");
    for i in 0..30 {
        t.file(format!("src/a/f{i:02}"), "x");
    }
    t.fifo("src/a/pipe");
    let dest = t.dir("dest");
    killed_at_the_tenth_item(&home, "cp", &t.join("src"), &dest);
    ok(&ferry_in(&home).arg("resume").output().unwrap());
    assert!(dest.join("src/a/pipe").symlink_metadata().is_ok());
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert_eq!(fs::read_dir(&dest).unwrap().count(), 0, "nothing left");

    let shm = TempTree::new_in("/dev/shm");
    let moved_to = shm.dir("dest");
    killed_at_the_tenth_item(&home, "mv", &t.join("src"), &moved_to);
    let said = ok(&ferry_in(&home).arg("resume").output().unwrap());
    assert!(!said.contains("skipped"), "{said}");
    assert!(!t.join("src").exists(), "the move is whole: {said}");
    let pipe = moved_to.join("src/a/pipe").symlink_metadata().unwrap();
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(&pipe.file_type()));
}

/// A copy that replaced a FIFO, killed before its end was recorded, then resumed and undone:
/// the user's FIFO is back and the undo finishes. The resume replaced the run's own FIFO
/// copy again, keeping it as if it were the user's, and the undo then failed ("… is kept:
/// this job replaced it … and could not put it back", exit 1).
#[test]
fn a_resumed_replace_of_a_fifo_is_undone() {
    use std::os::unix::fs::MetadataExt;
    let t = TempTree::new();
    let home = t.dir("home");
    t.file("src/d/f", "new");
    t.fifo("src/d/pipe");
    t.file("dest/d/f", "old");
    t.fifo("dest/d/pipe");
    let users = fs::symlink_metadata(t.join("dest/d/pipe")).unwrap().ino();
    let killed = ferry_in(&home)
        .env("FERRY_FAULT_POINT", "job-ended")
        .args(["cp", "--on-conflict", "replace"])
        .arg(t.join("src/d"))
        .arg(t.join("dest"))
        .output()
        .unwrap();
    assert_eq!(killed.status.code(), None, "killed");
    let said = ok(&ferry_in(&home).arg("resume").output().unwrap());
    assert!(!said.contains("skipped"), "{said}");
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    let pipe = fs::symlink_metadata(t.join("dest/d/pipe")).unwrap();
    assert_eq!(pipe.ino(), users, "the user's FIFO is back");
    assert_eq!(fs::read_to_string(t.join("dest/d/f")).unwrap(), "old");
}

/// `ferry VERB SOURCE DEST`, killed once its tenth item is done.
fn killed_at_the_tenth_item(home: &Path, verb: &str, source: &Path, dest: &Path) {
    let killed = ferry_in(home)
        .env("FERRY_FAULT_POINT", "item-done:10")
        .arg(verb)
        .arg(source)
        .arg(dest)
        .output()
        .unwrap();
    assert_eq!(killed.status.code(), None, "{killed:?}");
}
