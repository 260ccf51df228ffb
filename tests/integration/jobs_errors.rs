//! Errors a job must survive: permissions (as another user: root ignores them), no space left
//! before and during a copy.

use std::fs;
use std::io::Write;

use ferry_core::jobs::{ConflictPolicy, Engine, Event, Job};
use ferry_tests::TempTree;

use crate::faults::Pause;
use crate::jobs_support::{Mounted, assert_accounts_for, assert_no_temporaries, chmod, collect};
use crate::{ferry_in, run_ferry, run_ferry_past_the_inode_check, run_ferry_unprivileged};

/// A tree the unprivileged user 65534 can enter and write into.
fn open_tree() -> TempTree {
    let t = TempTree::new();
    chmod(t.path(), 0o777);
    t
}

#[test]
fn an_unreadable_file_fails_alone_and_is_named() {
    let t = open_tree();
    let src = t.dir("src");
    t.file("src/readable", "yes");
    chmod(&t.file("src/secret", "no"), 0o000);
    let dest = t.dir("dest");
    chmod(&dest, 0o777);
    let out = run_ferry_unprivileged(["cp".as_ref(), src.as_os_str(), dest.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("src/secret") && stderr.contains("ermission denied"),
        "{stderr}"
    );
    assert_eq!(fs::read(dest.join("src/readable")).unwrap(), b"yes");
    assert!(!dest.join("src/secret").exists());
    assert_eq!(fs::read(src.join("secret")).unwrap(), b"no");
    assert_no_temporaries(&dest);
}

#[test]
fn an_unreadable_folder_is_an_error_not_an_empty_folder() {
    let t = open_tree();
    let victim = t.dir("victim");
    chmod(&victim, 0o777);
    t.file("victim/gone", "gone");
    let locked = t.dir("victim/locked");
    t.file("victim/locked/kept", "kept");
    chmod(&locked, 0o000);
    let out = run_ferry_unprivileged(["rm".as_ref(), victim.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("victim/locked"), "{stderr}");
    assert!(!victim.join("gone").exists());
    assert_eq!(fs::read(locked.join("kept")).unwrap(), b"kept");
}

#[test]
fn not_enough_space_is_refused_before_writing() {
    let t = TempTree::new();
    let Some(small) = Mounted::tmpfs(&t.join("small"), "2m") else {
        return;
    };
    let big = t.file("big", vec![7u8; 3 << 20]);
    let out = run_ferry(["cp".as_ref(), big.as_os_str(), small.dir.as_os_str()]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("not enough free space"));
    assert_eq!(fs::read_dir(&small.dir).unwrap().count(), 0);
}

/// A folder of 10 files moved onto a disk with space but 6 free inodes: the check counted
/// bytes only, the move stopped at the 4th file, and the folder was left split between the
/// two disks (`mv` leaves its source whole). Refused before writing, as a lack of space is;
/// as many files as fit go.
#[test]
fn too_few_free_inodes_are_refused_before_writing() {
    let t = TempTree::new();
    let Some(small) = Mounted::tmpfs_inodes(&t.join("small"), "2m", 6) else {
        return;
    };
    let folder = t.dir("d");
    for i in 0..10 {
        t.file(format!("d/f{i}"), i.to_string());
    }
    for verb in ["mv", "cp"] {
        let out = run_ferry([verb.as_ref(), folder.as_os_str(), small.dir.as_os_str()]);
        let said = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{verb}: {said}");
        assert!(said.contains("not enough room for files"), "{verb}: {said}");
        assert!(
            said.contains("11 files and folders to make"),
            "{verb}: {said}"
        );
        assert_eq!(fs::read_dir(&folder).unwrap().count(), 10, "{verb}");
        assert_eq!(fs::read_dir(&small.dir).unwrap().count(), 0, "{verb}");
    }
    // The disk's own root takes one of the 6: room for the folder and 4 files.
    for i in 4..10 {
        fs::remove_file(folder.join(format!("f{i}"))).unwrap();
    }
    let out = run_ferry(["mv".as_ref(), folder.as_os_str(), small.dir.as_os_str()]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(fs::read_dir(small.dir.join("d")).unwrap().count(), 4);
}

/// On tmpfs a hard link takes an inode of its own: a folder of 3 files and 2 links to them
/// passed the check (4 inodes of 5 free) and stopped at its last link, split between two
/// disks. Counted there, it is refused before writing.
#[test]
fn hard_links_count_as_inodes_on_tmpfs() {
    let t = TempTree::new();
    let Some(small) = Mounted::tmpfs_inodes(&t.join("small"), "2m", 6) else {
        return;
    };
    let folder = t.dir("d");
    for i in 0..3 {
        t.file(format!("d/f{i}"), i.to_string());
    }
    for i in 0..2 {
        fs::hard_link(folder.join(format!("f{i}")), folder.join(format!("l{i}"))).unwrap();
    }
    let out = run_ferry(["mv".as_ref(), folder.as_os_str(), small.dir.as_os_str()]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("6 files and folders to make, room for 5"),
        "{said}"
    );
    assert_eq!(fs::read_dir(&folder).unwrap().count(), 5);
    assert_eq!(fs::read_dir(&small.dir).unwrap().count(), 0);
}

/// Many tiny files onto a disk of 1 KiB blocks with room for them: the check counted the
/// source's own 4 KiB blocks ("7782400 bytes needed, 7194624 available" for 1,900 files of
/// a few bytes, which take 1.9 MB there) and refused a copy that fits.
#[test]
fn tiny_files_are_counted_in_the_destinations_blocks() {
    let t = TempTree::new();
    let Some(disk) = Mounted::ext4(&t, 8 << 20, &["-b", "1024", "-O", "^has_journal"]) else {
        return;
    };
    let tiny = t.dir("tiny");
    for i in 0..1900 {
        fs::write(tiny.join(format!("f{i}")), i.to_string()).unwrap();
    }
    let out = run_ferry(["cp".as_ref(), tiny.as_os_str(), disk.dir.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(fs::read_dir(disk.dir.join("tiny")).unwrap().count(), 1900);
}

/// Out of inodes part way (taken meanwhile, past the check before writing), with space
/// left: said as such, not as a full disk ("Free some space" while `df` showed it 90% free).
#[test]
fn a_disk_out_of_inodes_is_said_to_hold_no_more_files() {
    let t = TempTree::new();
    let small = t.join("small");
    let Some(small) = Mounted::tmpfs_inodes(&small, "20m", 6) else {
        return;
    };
    let src = t.dir("src");
    for i in 0..10 {
        t.file(format!("src/f{i}"), "x");
    }
    // Files given one by one, and a folder of them (filled under a hidden name first).
    let mut files = vec![std::ffi::OsString::from("cp")];
    files.extend((0..10).map(|i| src.join(format!("f{i}")).into_os_string()));
    files.push(small.dir.clone().into_os_string());
    let folder = vec![
        "cp".into(),
        src.into_os_string(),
        small.dir.join("in").into(),
    ];
    for args in [files, folder] {
        for entry in fs::read_dir(&small.dir).unwrap() {
            let path = entry.unwrap().path();
            let _ = fs::remove_dir_all(&path).or_else(|_| fs::remove_file(&path));
        }
        let out = run_ferry_past_the_inode_check(&args);
        let said = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{said}");
        assert!(
            said.contains("no room for more files on the disk holding"),
            "{said}"
        );
        assert!(!said.contains("No space left"), "{said}");
    }
}

/// Onto a full disk mounted read-only (a squashfs has no free space at all), a copy says
/// the file system is read-only, as `cp` does, not that it lacks space.
#[test]
fn a_copy_onto_a_full_read_only_disk_says_it_is_read_only() {
    let t = TempTree::new();
    let Some(small) = Mounted::tmpfs(&t.join("small"), "1m") else {
        return;
    };
    let _ = fs::write(small.dir.join("filler"), vec![0u8; 2 << 20]);
    let remounted = std::process::Command::new("mount")
        .args(["-o", "remount,ro"])
        .arg(&small.dir)
        .status()
        .is_ok_and(|s| s.success());
    assert!(remounted);
    let src = t.file("src/ok.txt", "ok");
    let out = crate::jobs_support::run_job(Job::Copy {
        sources: vec![src.clone()],
        dest_dir: small.dir.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    assert!(out.summary.stopped_by.is_none(), "{:#?}", out.summary);
    let [failed] = out.summary.failed.as_slice() else {
        panic!("{:#?}", out.summary);
    };
    assert_eq!(failed.path, src);
    assert_eq!(
        failed.error.raw_os_error(),
        Some(rustix::io::Errno::ROFS.raw_os_error())
    );
}

#[test]
fn running_out_of_space_mid_copy_stops_cleanly() {
    let t = TempTree::new();
    let Some(small) = Mounted::tmpfs(&t.join("small"), "2m") else {
        return;
    };
    let src = t.many_files("src", "f", 3, 600 << 10);
    let (engine, events) = Engine::start();
    let id = engine.submit_paused(Job::Copy {
        sources: vec![src.clone()],
        dest_dir: small.dir.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    // The plan fits; then something else takes the space before the copy starts.
    loop {
        if let Event::Planned { .. } = events.recv().unwrap() {
            break;
        }
    }
    fs::write(small.dir.join("filler"), vec![0u8; 1 << 20]).unwrap();
    engine.resume(id);
    let out = collect(&events, id);
    assert!(!out.cancelled);
    let stopped = out
        .summary
        .stopped_by
        .as_ref()
        .expect("the job must stop on ENOSPC");
    assert!(stopped.is_terminal(), "{stopped}");
    // The free-space check runs as `Planned` is sent: it may see the filler already, and
    // stop the job before anything is written (a race this test loses under load).
    if !matches!(**stopped, ferry_core::Error::NoSpace { .. }) {
        assert!(out.summary.failed.iter().any(|f| f.error.is_terminal()));
    }
    assert_accounts_for(&out.summary, std::slice::from_ref(&src));
    // Stopped before writing, it made no folder either.
    for entry in fs::read_dir(small.dir.join("src")).into_iter().flatten() {
        let len = entry.unwrap().metadata().unwrap().len();
        assert_eq!(len, 600 << 10, "a partial file is left under a real name");
    }
    assert_no_temporaries(&small.dir);
    for i in 0..3 {
        assert_eq!(
            fs::metadata(src.join(format!("f{i}"))).unwrap().len(),
            600 << 10
        );
    }
}

/// A move across file systems of what it could copy but not remove after (as another user,
/// since root may remove anything): a file in a folder it may not write to, a folder it may
/// not empty, another user's file in a sticky folder. Each is refused before anything is
/// copied, named, and left where it was, not copied and left in both places as `mv` leaves
/// it; the rest moves.
#[test]
fn a_move_refuses_up_front_what_it_could_not_remove_once_copied() {
    let t = open_tree();
    let tree = t.dir("tree");
    chmod(&tree, 0o777);
    let locked = t.dir("tree/locked");
    t.file("tree/locked/kept", "kept");
    chmod(&locked, 0o755); // root's: not writable by 65534
    let movable = t.dir("tree/movable");
    chmod(&movable, 0o777);
    chmod(&t.file("tree/movable/goes", "goes"), 0o666);
    let closed = t.dir("closed");
    t.file("closed/stays", "stays");
    let sticky = t.dir("sticky");
    chmod(&sticky, 0o1777);
    chmod(&t.file("sticky/roots", "root's"), 0o666);
    let shm = TempTree::new_in("/dev/shm");
    let dest = shm.dir("dest");
    chmod(&dest, 0o777);
    let out = run_ferry_unprivileged([
        "mv".as_ref(),
        tree.as_os_str(),
        closed.join("stays").as_os_str(),
        sticky.join("roots").as_os_str(),
        dest.as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    for refused in ["tree/locked", "closed/stays", "sticky/roots"] {
        let said = format!("cannot move {}", t.join(refused).display());
        assert!(stderr.contains(&said), "{said}: {stderr}");
    }
    assert_eq!(fs::read(locked.join("kept")).unwrap(), b"kept");
    assert_eq!(fs::read(closed.join("stays")).unwrap(), b"stays");
    assert_eq!(fs::read(sticky.join("roots")).unwrap(), b"root's");
    assert!(!dest.join("tree/locked").exists(), "copied all the same");
    assert!(!dest.join("stays").exists() && !dest.join("roots").exists());
    assert_eq!(fs::read(dest.join("tree/movable/goes")).unwrap(), b"goes");
    assert!(!movable.exists(), "what could move, moved");
    assert_no_temporaries(&dest);
}

/// Items given `chattr` attributes, cleared again when dropped so that the tree can be removed.
struct Pinned(Vec<std::path::PathBuf>);

impl Pinned {
    /// `chattr flag path`; false, with a note, where it cannot be set (the test is skipped).
    fn pin(&mut self, flag: &str, path: &std::path::Path) -> bool {
        let set = std::process::Command::new("chattr")
            .arg(flag)
            .arg(path)
            .status()
            .is_ok_and(|s| s.success());
        if !set {
            eprintln!("note: chattr {flag} is not possible here; test skipped");
            return false;
        }
        self.0.push(path.to_path_buf());
        true
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        for path in &self.0 {
            let _ = std::process::Command::new("chattr")
                .args(["-i", "-a"])
                .arg(path)
                .status();
        }
    }
}

/// Replace into an append-only folder (`chattr +a`): what is there cannot be set aside, so
/// nothing is written. The copy was written, then failed to go in, and its temporary could
/// not be removed from that folder either: one `.ferry-tmp-…` more at every try.
#[test]
fn replace_in_an_append_only_folder_is_refused_before_writing() {
    let t = TempTree::new();
    let new = t.file("src/f", "new");
    let log = t.dir("log");
    t.file("log/f", "old");
    let mut pinned = Pinned(Vec::new());
    if !pinned.pin("+a", &log) {
        return;
    }
    let out = run_ferry([
        "cp".as_ref(),
        "--on-conflict".as_ref(),
        "replace".as_ref(),
        new.as_os_str(),
        log.as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot move aside"), "{stderr}");
    assert_eq!(fs::read(log.join("f")).unwrap(), b"old");
    let names: Vec<_> = fs::read_dir(&log)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(names, ["f"], "nothing left beside it");
    drop(pinned);
}

/// `chattr +i` on a file and `+a` on a folder: the kernel refuses to remove them, root too.
/// A move across file systems refuses each before copying it (the rest moves), rather than
/// leaving it in both places. Skipped, with a note, where `chattr` cannot set them.
#[test]
fn an_immutable_file_or_append_only_folder_is_not_moved_across_file_systems() {
    let t = TempTree::new();
    let tree = t.dir("tree");
    let frozen = t.file("tree/frozen", "frozen");
    let log = t.dir("tree/log");
    t.file("tree/log/entry", "entry");
    t.file("tree/free", "free");
    let mut pinned = Pinned(Vec::new());
    for (flag, path) in [("+i", &frozen), ("+a", &log)] {
        if !pinned.pin(flag, path) {
            return;
        }
    }
    let shm = TempTree::new_in("/dev/shm");
    let dest = shm.dir("dest");
    let out = run_ferry(["mv".as_ref(), tree.as_os_str(), dest.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    for refused in [&frozen, &log] {
        let said = format!("cannot move {}", refused.display());
        assert!(stderr.contains(&said), "{said}: {stderr}");
    }
    assert_eq!(fs::read(&frozen).unwrap(), b"frozen");
    assert_eq!(fs::read(log.join("entry")).unwrap(), b"entry");
    assert!(!dest.join("tree/frozen").exists() && !dest.join("tree/log").exists());
    assert_eq!(fs::read(dest.join("tree/free")).unwrap(), b"free");
    assert!(!tree.join("free").exists(), "what could move, moved");
    drop(pinned);
}

/// A move across file systems that a full disk stops part-way (here the destination runs out
/// of inodes, taken meanwhile past the check before writing) says what it did not move: the
/// folder given, whose unmoved files stay in it; each file is in exactly one place.
#[test]
fn a_move_a_full_disk_stops_says_what_it_did_not_move() {
    let t = TempTree::new();
    let Some(small) = Mounted::tmpfs_inodes(&t.join("small"), "10m", 6) else {
        return;
    };
    let src = t.many_files("src", "f", 8, 10);
    let out =
        run_ferry_past_the_inode_check(["mv".as_ref(), src.as_os_str(), small.dir.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("stopped: "), "{stderr}");
    let moved = small.dir.join("src");
    let (mut here, mut there) = (0, 0);
    for i in 0..8 {
        let name = format!("f{i}");
        let (a, b) = (src.join(&name).exists(), moved.join(&name).exists());
        assert!(a != b, "{name}: in the source {a}, moved {b}");
        (here, there) = (here + usize::from(a), there + usize::from(b));
    }
    assert!(here > 0 && there > 0, "{here} left, {there} moved");
    let said = format!(
        "{there} of 8 files moved; the rest are still in {}",
        src.display()
    );
    assert!(stderr.contains(&said), "{stderr}");
    assert_no_temporaries(&small.dir);
}

/// A source given twice is copied once and is no failure (status 0 and a word, as `cp`
/// warns).
#[test]
fn a_source_given_twice_is_copied_once() {
    let t = TempTree::new();
    let dest = t.dir("dest");
    let file = t.file("a", "a");
    let out = run_ferry([
        "cp".as_ref(),
        file.as_os_str(),
        file.as_os_str(),
        dest.as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("given twice"), "{stderr}");
    assert_eq!(fs::read(dest.join("a")).unwrap(), b"a");
}

/// `ferry rm a '' b` (an unset variable, say) removes `a` and `b` and names the empty path as
/// not found, exit status 1, as `rm` does; so do `cp`, `mv`, `ln` and `trash` with theirs.
#[test]
fn an_empty_path_is_named_and_the_rest_of_the_batch_goes_on() {
    let t = TempTree::new();
    let (a, b) = (t.file("a", "a"), t.file("b", "b"));
    let out = run_ferry(["rm".as_ref(), a.as_os_str(), "".as_ref(), b.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot delete '': No such file"),
        "{stderr}"
    );
    assert!(!a.exists() && !b.exists());

    let c = t.file("c", "c");
    let dest = t.dir("dest");
    let out = run_ferry(["cp".as_ref(), "".as_ref(), c.as_os_str(), dest.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot copy ''"), "{stderr}");
    assert_eq!(fs::read(dest.join("c")).unwrap(), b"c");

    let links = t.dir("links");
    let out = run_ferry(["ln".as_ref(), "".as_ref(), c.as_os_str(), links.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot link to ''"), "{stderr}");
    assert!(fs::symlink_metadata(links.join("c")).unwrap().is_symlink());
}

/// A large file written to while it is copied (a download, a log, or an edit in place whose
/// tool set the modification time back, as `rsync --inplace -t` does): its copy would be
/// neither version, so the item fails as changed and nothing is put in its place (RELIABILITY
/// rule 10), where `cp` reports success; a move across disks keeps the source. Copied again
/// once it is still, it is whole.
#[test]
fn a_large_file_written_to_during_its_copy_fails_as_changed() {
    let t = TempTree::new();
    let big = t.file("big", vec![7u8; 3 << 20]);
    let (home, dest) = (t.dir("home"), t.dir("dest"));
    let other_disk = Mounted::tmpfs(&t.join("other"), "8m");
    let mut runs = vec![("cp", dest.clone())];
    runs.extend(other_disk.as_ref().map(|m| ("mv", m.dir.clone())));
    for (verb, dest) in runs {
        for how in ["append", "edit"] {
            let pause = Pause::at("file-written");
            let child = pause.start_held(ferry_in(&home).arg(verb).arg(&big).arg(&dest));
            let mut file = fs::OpenOptions::new()
                .append(how == "append")
                .write(true)
                .open(&big)
                .unwrap();
            let was = file.metadata().unwrap().modified().unwrap();
            if how == "append" {
                file.write_all(b"more").unwrap();
            } else {
                std::os::unix::fs::FileExt::write_all_at(&file, b"edit", 10).unwrap();
                file.set_modified(was).unwrap();
            }
            let written = fs::read(&big).unwrap();
            pause.release(child.id());
            let out = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{verb} {how}: {stderr}");
            let said = format!("{} changed during the operation", big.display());
            assert!(stderr.contains(&said), "{verb} {how}: {stderr}");
            assert!(!dest.join("big").exists(), "{verb} {how}");
            assert_eq!(
                fs::read(&big).unwrap(),
                written,
                "{verb} {how}: the source kept"
            );
            assert_no_temporaries(&dest);
        }
    }

    // Still, it copies whole; a link made to it meanwhile (its change time moves) is no
    // change of its own.
    let pause = Pause::at("file-written");
    let child = pause.start_held(ferry_in(&home).arg("cp").arg(&big).arg(&dest));
    fs::hard_link(&big, t.join("big.link")).unwrap();
    pause.release(child.id());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(fs::read(dest.join("big")).unwrap(), fs::read(&big).unwrap());
}

/// A message names a path so that it can be told from any other: a newline in a name does
/// not break the message in two, a byte that is not UTF-8 is not made U+FFFD.
#[test]
fn a_message_shows_an_odd_name_escaped_on_one_line() {
    use std::os::unix::ffi::OsStrExt;
    let t = TempTree::new();
    let missing = t.join(std::ffi::OsStr::from_bytes(b"no\nsuch\xfe"));
    let dest = t.dir("dest");
    let out = run_ferry(["cp".as_ref(), missing.as_os_str(), dest.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("no\\x0asuch\\xfe"), "{stderr}");
}

/// The folder a copy writes into removed meanwhile: the job stops, saying so once, rather than
/// failing (or, in the window, asking about) each item left for it, none of which could be
/// written. Both ways a copy writes: a file renamed into place, a folder filled under a hidden
/// name.
#[test]
fn the_destination_removed_mid_copy_stops_the_job_and_says_so_once() {
    for (point, folder) in [("file-written", false), ("hidden-filled", true)] {
        let t = TempTree::new();
        let src = match folder {
            true => {
                t.file("src/a", "a");
                t.file("src/b", "b");
                t.join("src")
            }
            false => t.file("src", "a"),
        };
        let (home, dest) = (t.dir("home"), t.dir("dest"));
        let pause = Pause::at(point);
        let child = pause.start_held(ferry_in(&home).arg("cp").arg(&src).arg(&dest));
        fs::remove_dir_all(&dest).unwrap();
        pause.release(child.id());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{point}: {stderr}");
        let said = format!(
            "{} was removed while the job was writing into it",
            dest.display()
        );
        assert_eq!(stderr.matches(&said).count(), 1, "{point}: {stderr}");
        assert!(
            stderr.contains(&format!("stopped: {said}")),
            "{point}: {stderr}"
        );
        assert!(!stderr.contains("No such file"), "{point}: {stderr}");
        assert!(!dest.exists(), "{point}: nothing made again");
    }
}

/// A move across file systems whose destination, or a folder of it, is removed under it:
/// what was copied there went with it, so no source of it may go. Removed before the sources
/// are (held where every copy is on disk), and while copying (held at the second file). The
/// rest moves as usual.
#[test]
fn a_move_whose_destination_is_removed_under_it_keeps_every_source_whose_copy_went() {
    for (point, removed, fuse, anew) in [
        ("copies-durable", "dest", false, false),
        ("copies-durable", "dest/B", false, false),
        ("file-written:2", "dest", false, false),
        // FUSE reports no link count of its own for a removed folder: its path says.
        ("copies-durable", "dest", true, false),
        // Made anew, empty: ext4 may give it its old inode number back.
        ("copies-durable", "dest/B", false, true),
    ] {
        let shm = TempTree::new_in("/dev/shm");
        let t = TempTree::new();
        for name in ["A/a1", "A/a2", "B/b1", "B/b2", "c"] {
            shm.file(name, name);
        }
        let view = match fuse {
            true => {
                let backing = t.dir("backing");
                match crate::jobs_support::StoppableFuse::mount(&backing, &t.join("view")) {
                    Some(view) => Some(view),
                    None => continue,
                }
            }
            false => None,
        };
        let base = view
            .as_ref()
            .map_or(t.path().to_path_buf(), |v| v.dir.clone());
        let home = t.dir("home");
        let dest = base.join("dest");
        fs::create_dir_all(dest.join("A")).unwrap();
        fs::create_dir_all(dest.join("B")).unwrap();
        let pause = Pause::at(point);
        let mut mv = ferry_in(&home);
        mv.arg("mv")
            .arg(shm.join("A"))
            .arg(shm.join("B"))
            .arg(shm.join("c"))
            .arg(&dest);
        let child = pause.start_held(&mut mv);
        // Only the thread at the point is held: another may still be writing there.
        pause.wait_until(
            || fs::remove_dir_all(base.join(removed)).is_ok(),
            "the folder removed",
        );
        if anew {
            fs::create_dir(base.join(removed)).unwrap();
        }
        pause.release(child.id());
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let case =
            format!("{point}, {removed} removed (FUSE: {fuse}, made anew: {anew}): {stderr}");
        assert_eq!(out.status.code(), Some(1), "{case}");
        let said = format!("{} was removed while the job", base.join(removed).display());
        assert_eq!(stderr.matches(&said).count(), 1, "{case}");
        for name in ["B/b1", "B/b2"] {
            assert_eq!(fs::read_to_string(shm.join(name)).unwrap(), name, "{case}");
        }
        let a_moved = removed == "dest/B";
        for name in ["A/a1", "A/a2", "c"] {
            assert_eq!(shm.join(name).exists(), !a_moved, "{case}");
            assert_eq!(dest.join(name).exists(), a_moved, "{case}");
        }
        // What the history counts as done is what was moved: A's folder, its two files and
        // c, or nothing.
        let history = ferry_in(&home)
            .args(["history", "-n", "1"])
            .output()
            .unwrap();
        let history = String::from_utf8_lossy(&history.stdout);
        let done = format!(" {} done,", if a_moved { 4 } else { 0 });
        assert!(history.contains(&done), "{case}: {history}");
    }
}

/// A move within one file system refused by the folder it was to go into names that folder's
/// place, as `mv` does; refused by the folder it was in, the item (it blamed the item both
/// ways).
#[test]
fn a_refused_rename_names_the_side_that_refused_it() {
    let t = open_tree();
    let (open, closed) = (t.dir("open"), t.dir("closed"));
    chmod(&open, 0o777);
    chmod(&closed, 0o755);
    let mine = t.file("open/mine", "m");
    chmod(&mine, 0o666);
    let out = run_ferry_unprivileged(["mv".as_ref(), mine.as_os_str(), closed.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let into = closed.join("mine");
    assert!(
        stderr.contains(&format!(
            "cannot create {}: Permission denied",
            into.display()
        )),
        "{stderr}"
    );
    let theirs = t.file("closed/theirs", "t");
    let out = run_ferry_unprivileged(["mv".as_ref(), theirs.as_os_str(), open.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "cannot move {}: Permission denied",
            theirs.display()
        )),
        "{stderr}"
    );
    assert!(mine.exists() && theirs.exists());
}

/// A device copied by one who cannot make it (not root: `mknod` fails with EPERM) fails with
/// that reason, as in `cp -a`, alike inside a folder and given alone; it is not "skipped" as
/// if nothing were wrong, with status 0. The rest of the folder is copied.
#[test]
fn a_device_one_cannot_make_fails_with_the_reason_in_a_folder_and_alone() {
    if !crate::jobs_support::root_or_skip("making a device to copy") {
        return;
    }
    let t = open_tree();
    let src = t.dir("sx");
    t.file("sx/a", "a");
    let device = src.join("dev");
    let mode = rustix::fs::Mode::from_raw_mode(0o666);
    let (kind, number) = (
        rustix::fs::FileType::CharacterDevice,
        rustix::fs::makedev(1, 3),
    );
    rustix::fs::mknodat(rustix::fs::CWD, &device, kind, mode, number).unwrap();
    chmod(&src, 0o777);
    let dest = t.dir("dest");
    chmod(&dest, 0o777);
    // Across file systems, so that the move makes the device anew rather than renaming it.
    let shm = TempTree::new_in("/dev/shm");
    let moved_to = shm.dir("dest");
    chmod(&moved_to, 0o777);
    for (verb, given) in [("cp", &src), ("cp", &device), ("mv", &src)] {
        let dest = if verb == "mv" { &moved_to } else { &dest };
        let out = run_ferry_unprivileged([verb.as_ref(), given.as_os_str(), dest.as_os_str()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let case = format!("{verb} {}: {stderr}", given.display());
        assert_eq!(out.status.code(), Some(1), "{case}");
        let landed = match given == &device {
            true => dest.join("dev"),
            false => dest.join("sx/dev"),
        };
        let said = format!(
            "cannot create {}: Operation not permitted",
            landed.display()
        );
        assert!(stderr.contains(&said), "{case}");
        assert!(!stderr.contains("skipped"), "{case}");
        assert!(!landed.exists(), "{case}");
        assert!(device.exists(), "{case}");
        if given == &src {
            assert_eq!(fs::read(dest.join("sx/a")).unwrap(), b"a", "{case}");
        }
        assert_no_temporaries(dest);
    }
    // The move moved the rest, and left the folder with the device in it.
    assert!(!src.join("a").exists());
}
