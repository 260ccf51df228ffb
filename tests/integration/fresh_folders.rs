//! A folder copied to where nothing has its name is filled under a hidden name and renamed
//! into place when complete (`ferry_core`'s `jobs/fresh.rs`): a crash leaves nothing under
//! its name and nothing behind once recovered, and a name taken meanwhile is never touched.

use std::ffi::OsString;
use std::fs;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use ferry_tests::TempTree;
use rustix::process::Signal;

use crate::faults::Pause;
use crate::jobs_support::{assert_no_temporaries, snapshot};
use crate::{ferry_in, undo::ok};

/// The hidden names in `dir`.
fn hidden_in(dir: &Path) -> Vec<OsString> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.as_encoded_bytes().starts_with(b".ferry-tmp-"))
        .collect()
}

/// `src/docs`: 30 files, a subfolder of 10, a hard-linked pair and a symlink.
fn docs(t: &TempTree) -> std::path::PathBuf {
    for i in 0..30 {
        t.file(format!("src/docs/f{i}"), format!("file {i}"));
    }
    for i in 0..10 {
        t.file(format!("src/docs/sub/g{i}"), format!("sub {i}"));
    }
    let a = t.file("src/docs/linked", "one file, two names");
    fs::hard_link(&a, t.join("src/docs/sub/linked-too")).unwrap();
    t.symlink("src/docs/link", "f1");
    t.join("src/docs")
}

/// Copies (or moves, `verb`) `docs` into `dest`, killed after its fifth file.
fn killed(verb: &str, home: &Path, docs: &Path, dest: &Path) {
    let out = ferry_in(home)
        .env("FERRY_FAULT_POINT", "item-done:5")
        .arg(verb)
        .arg(docs)
        .arg(dest)
        .output()
        .unwrap();
    assert_eq!(out.status.signal(), Some(9), "killed");
    assert!(
        !dest.join("docs").exists(),
        "nothing under the folder's name"
    );
    assert_eq!(
        hidden_in(dest).len(),
        1,
        "the folder was being filled hidden"
    );
}

#[test]
fn a_copy_is_whole_under_its_name_with_links_kept() {
    let t = TempTree::new();
    let docs = docs(&t);
    let dest = t.dir("dest");
    ok(&ferry_in(&t.join("home"))
        .arg("cp")
        .arg(&docs)
        .arg(&dest)
        .output()
        .unwrap());
    assert_eq!(snapshot(&dest.join("docs")), snapshot(&docs));
    let (a, b) = (dest.join("docs/linked"), dest.join("docs/sub/linked-too"));
    assert_eq!(
        fs::metadata(a).unwrap().ino(),
        fs::metadata(b).unwrap().ino()
    );
    assert!(hidden_in(&dest).is_empty());
}

#[test]
fn a_copy_killed_mid_folder_is_cleaned_up_and_resumed_whole() {
    let shm = TempTree::new_in("/dev/shm");
    let t = TempTree::new();
    let docs = docs(&t);
    let home = t.dir("home");
    for dest in [t.dir("dest"), shm.dir("dest")] {
        killed("cp", &home, &docs, &dest);
        ok(&ferry_in(&home).arg("resume").output().unwrap());
        assert_eq!(snapshot(&dest.join("docs")), snapshot(&docs), "{dest:?}");
        assert!(hidden_in(&dest).is_empty(), "{dest:?}");
        assert_no_temporaries(&dest);
    }
}

#[test]
fn a_move_across_file_systems_killed_mid_folder_keeps_its_source_and_resumes() {
    let shm = TempTree::new_in("/dev/shm");
    let t = TempTree::new();
    let docs = docs(&t);
    let before = snapshot(&docs);
    let (home, dest) = (t.dir("home"), shm.dir("dest"));
    killed("mv", &home, &docs, &dest);
    assert_eq!(
        snapshot(&docs),
        before,
        "every source whole: none is removed before"
    );
    ok(&ferry_in(&home).arg("resume").output().unwrap());
    assert!(!docs.exists(), "the resumed move removed its source");
    assert_eq!(snapshot(&dest.join("docs")), before);
    assert!(hidden_in(&dest).is_empty());
}

#[test]
fn undo_of_a_copy_killed_mid_folder_leaves_the_destination_as_it_was() {
    let t = TempTree::new();
    let docs = docs(&t);
    let (home, dest) = (t.dir("home"), t.dir("dest"));
    t.file("dest/mine", "the user's");
    killed("cp", &home, &docs, &dest);
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    let left: Vec<OsString> = fs::read_dir(&dest)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["mine"]);
    assert_eq!(fs::read(dest.join("mine")).unwrap(), b"the user's");
}

/// A folder of thousands of files has its copies' inodes read while the last ones are made
/// (`Copier::read_inodes_ahead`): every copy is recorded as itself, so undo removes them all,
/// on ext4 (hashed entries) as on tmpfs.
#[test]
fn undo_removes_every_copy_of_a_large_folder() {
    let shm = TempTree::new_in("/dev/shm");
    let t = TempTree::new();
    let docs = t.dir("src/docs");
    for i in 0..3000 {
        t.file(format!("src/docs/f{i}"), format!("file {i}"));
    }
    let home = t.dir("home");
    for dest in [t.dir("dest"), shm.dir("dest")] {
        ok(&ferry_in(&home)
            .arg("cp")
            .arg(&docs)
            .arg(&dest)
            .output()
            .unwrap());
        assert_eq!(snapshot(&dest.join("docs")), snapshot(&docs), "{dest:?}");
        let said = ok(&ferry_in(&home).arg("undo").output().unwrap());
        assert!(!dest.join("docs").exists(), "{dest:?}: {said}");
    }
}

/// `ferry cp` of a folder of `files` files, held as its third item is done, then sent
/// `signal` (as a terminal's Ctrl+C sends it) and, 0.3 s later, let go: its output, and the
/// folders copied from and into, and the home its journal is in.
fn signalled_copy(files: usize, signal: Signal) -> (Output, TempTree, [PathBuf; 3]) {
    let t = TempTree::new();
    let docs = t.dir("src/docs");
    for i in 0..files {
        t.file(format!("src/docs/f{i}"), format!("file {i}"));
    }
    let (home, dest) = (t.dir("home"), t.dir("dest"));
    let pause = Pause::at("item-done:3");
    let child = pause.start_held(ferry_in(&home).arg("cp").arg(&docs).arg(&dest));
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, signal).unwrap();
    // The command cancels the job as the signal comes; give it time to.
    std::thread::sleep(std::time::Duration::from_millis(300));
    pause.release(child.id());
    let out = child.wait_with_output().unwrap();
    (out, t, [docs, dest, home])
}

#[test]
fn a_cancelled_copy_puts_what_it_copied_in_place() {
    // The held item keeps the folder from completing.
    let (out, _t, [docs, dest, home]) = signalled_copy(3000, Signal::TERM);
    let copied = snapshot(&dest.join("docs"));
    let source = snapshot(&docs);
    for (rel, node) in &copied {
        assert_eq!(Some(node), source.get(rel), "{rel:?} is whole");
    }
    // Cancelled, or, if the others finished first, complete; never hidden. Either way the
    // process ends by the signal.
    assert_eq!(out.status.signal(), Some(15), "{:?}", out.status);
    assert!(copied.len() <= source.len());
    assert!(hidden_in(&dest).is_empty(), "what was copied is in place");
    ok(&ferry_in(&home).arg("undo").output().unwrap());
    assert!(!dest.join("docs").exists(), "and undone");
}

/// A Ctrl+C that comes while a copy's last item is being written stops nothing more: the job
/// is recorded as done, not cancelled, and nothing is said to be left (it was, with all done).
/// The process still ends by the signal, so that a shell loop running it stops.
#[test]
fn a_ctrl_c_after_the_last_item_leaves_the_copy_done() {
    let (out, _t, [docs, dest, home]) = signalled_copy(3, Signal::INT);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.signal(), Some(2), "{:?}: {said}", out.status);
    assert_eq!(snapshot(&dest.join("docs")), snapshot(&docs));
    assert!(!said.contains("not copied"), "{said}");
    let history = ok(&ferry_in(&home)
        .args(["history", "-n", "1"])
        .output()
        .unwrap());
    assert!(
        history.contains(" done ") && !history.contains("cancelled"),
        "{history}"
    );
}

/// A folder of the copy's name made by another program while the copy fills its hidden
/// folder: the copy is merged into it, as it would have been had the folder been there when
/// the copy planned (`--on-conflict skip` merges folders and skips taken file names), rather
/// than skipped whole.
#[test]
fn a_folder_made_while_the_folder_is_filled_is_merged_into() {
    let t = TempTree::new();
    let docs = docs(&t);
    let before = snapshot(&docs);
    let dest = t.dir("dest");
    let pause = Pause::at("item-done:3");
    let child = pause
        .hold(ferry_in(&t.join("home")).args(["cp", "--on-conflict", "skip"]))
        .arg(&docs)
        .arg(&dest)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    pause.wait_for(child.id());
    // Another program makes the name while the copy is under way.
    t.file("dest/docs/theirs", "not the copy's");
    t.file("dest/docs/f7", "theirs too");
    pause.release(child.id());
    let out = child.wait_with_output().unwrap();
    let said =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("skipped") && said.contains("f7"), "{said}");
    let mut merged = snapshot(&dest.join("docs"));
    assert_eq!(
        merged.remove(Path::new("theirs")).map(|_| ()),
        Some(()),
        "theirs kept"
    );
    assert_eq!(
        fs::read(dest.join("docs/theirs")).unwrap(),
        b"not the copy's"
    );
    assert_eq!(fs::read(dest.join("docs/f7")).unwrap(), b"theirs too");
    for (rel, node) in &before {
        let dir = matches!(node, crate::jobs_support::Node::Dir { .. });
        if rel != Path::new("f7") && !dir {
            assert_eq!(merged.get(rel), Some(node), "{}", rel.display());
        }
    }
    assert!(hidden_in(&dest).is_empty(), "the hidden copy is removed");
    assert_eq!(snapshot(&docs), before, "the source is intact");
}

/// `ferry` run by a shell that first sets the umask to `umask`.
fn with_umask(ferry: &Command, umask: &str) -> Command {
    let mut sh = Command::new("sh");
    sh.arg("-c")
        .arg(format!("umask {umask} && exec \"$0\" \"$@\""));
    crate::ferry_run_by(sh, ferry)
}

/// The permission bits of every file in `dir`, by name.
fn modes(dir: &Path) -> Vec<(OsString, u32)> {
    let mut modes: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (e.file_name(), e.metadata().unwrap().mode() & 0o7777)
        })
        .collect();
    modes.sort();
    modes
}

/// Inside a hidden folder a copy's mode is known without a `statx` only where the umask alone
/// narrows what is created (`fresh.rs`): copies keep their sources' modes under a umask that
/// takes bits away, and under a destination whose default ACL would take others.
#[test]
fn copies_keep_their_modes_whatever_the_umask_or_default_acl() {
    let t = TempTree::new();
    for (k, mode) in [0o644, 0o664, 0o600, 0o755, 0o777, 0o640, 0o444, 0o4755]
        .into_iter()
        .enumerate()
    {
        let file = t.file(format!("src/docs/f{k}"), "x");
        fs::set_permissions(&file, fs::Permissions::from_mode(mode)).unwrap();
    }
    let (docs, home) = (t.join("src/docs"), t.dir("home"));
    let narrow = t.dir("umask");
    ok(&with_umask(&ferry_in(&home), "077")
        .arg("cp")
        .arg(&docs)
        .arg(&narrow)
        .output()
        .unwrap());
    assert_eq!(modes(&narrow.join("docs")), modes(&docs));
    let acl = t.dir("acl");
    let set = Command::new("setfacl")
        .args(["-d", "-m", "u::rwx,g::---,o::---"])
        .arg(&acl)
        .status()
        .is_ok_and(|s| s.success());
    if !set {
        eprintln!("note: setfacl -d failed (tool missing, or no ACLs here); ACL half skipped");
        return;
    }
    ok(&ferry_in(&home)
        .arg("cp")
        .arg(&docs)
        .arg(&acl)
        .output()
        .unwrap());
    assert_eq!(modes(&acl.join("docs")), modes(&docs));
}

/// What is renamed into place is the folder the job filled: one put under its hidden name
/// meanwhile (someone who may rename in the destination folder) fails the item, and is
/// neither renamed to the folder's name nor removed.
#[test]
fn a_hidden_folder_swapped_before_it_is_put_in_place_is_left_alone() {
    let t = TempTree::new();
    let docs = docs(&t);
    let dest = t.dir("dest");
    let victim = t.file("victim/keep", "not the copy's");
    let pause = Pause::at("hidden-filled");
    let child = pause.start_held(ferry_in(&t.join("home")).arg("cp").arg(&docs).arg(&dest));
    let hidden = hidden_in(&dest);
    assert_eq!(hidden.len(), 1, "{hidden:?}");
    let filled = dest.join(&hidden[0]);
    fs::rename(&filled, dest.join("the copy")).unwrap();
    std::os::unix::fs::symlink(victim.parent().unwrap(), &filled).unwrap();
    pause.release(child.id());
    let out = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert!(said.contains("changed"), "{said}");
    // Named by the place the copy was going to, not by Ferry's hidden name for it.
    let place = dest.join("docs");
    assert!(said.contains(place.to_str().unwrap()), "{said}");
    assert!(!said.contains(".ferry-tmp"), "{said}");
    assert!(
        !dest.join("docs").exists(),
        "nothing put in place under its name"
    );
    assert!(filled.is_symlink(), "what was put there is left alone");
    assert_eq!(fs::read(&victim).unwrap(), b"not the copy's");
    assert_eq!(fs::read(dest.join("the copy/f3")).unwrap(), b"file 3");
}

/// A sparse file in a folder moved across file systems: its copy, filled in the hidden
/// folder, was recorded with the bytes copied for its size (none, for a file all hole), so
/// the source no longer looked as copied and stayed, "changed since it was copied", in both
/// places. It moves, and keeps its holes.
#[test]
fn a_folder_holding_sparse_files_moves_across_file_systems_whole() {
    let (t, shm) = (TempTree::new(), TempTree::new_in("/dev/shm"));
    let home = t.dir("home");
    t.file("src/sp/dense", "dense");
    let hole = fs::File::create(t.join("src/sp/hole")).unwrap();
    hole.set_len(1 << 20).unwrap();
    let mut tail = fs::File::create(t.join("src/sp/tail")).unwrap();
    std::io::Seek::seek(&mut tail, std::io::SeekFrom::Start(512 << 10)).unwrap();
    std::io::Write::write_all(&mut tail, b"data after a hole").unwrap();
    let before = snapshot(&t.join("src/sp"));
    let out = ferry_in(&home)
        .arg("mv")
        .arg(t.join("src/sp"))
        .arg(shm.path())
        .output()
        .unwrap();
    ok(&out);
    assert!(!t.join("src/sp").exists(), "the source is moved");
    assert_eq!(snapshot(&shm.join("sp")), before);
    let moved = fs::metadata(shm.join("sp/hole")).unwrap();
    assert_eq!(moved.len(), 1 << 20);
    assert!(moved.blocks() * 512 < 1 << 20, "holes kept");
}
