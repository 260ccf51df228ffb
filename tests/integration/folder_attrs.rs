//! What `cp -a` and `mv` keep, Ferry keeps (RELIABILITY rule 20), for folders: their
//! extended attributes and POSIX ACLs (access and default), on a copy and on a move across
//! file systems; where the destination cannot hold them, the summary says so.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use ferry_core::jobs::{ConflictPolicy, Job, NoteKind};
use ferry_tests::TempTree;

use crate::jobs_support::{Mounted, assert_no_temporaries, run_job};
use crate::{ferry_in, undo::ok};

/// Every extended attribute of `path` (ACLs included), not following a link.
fn xattrs(path: &Path) -> BTreeMap<OsString, Vec<u8>> {
    let mut names = vec![0u8; 64 * 1024];
    let n = rustix::fs::llistxattr(path, &mut names[..]).unwrap();
    names[..n]
        .split(|&b| b == 0)
        .filter(|n| !n.is_empty())
        .map(|name| {
            let name = std::ffi::OsStr::from_bytes(name);
            let mut value = vec![0u8; 64 * 1024];
            let len = rustix::fs::lgetxattr(path, name, &mut value[..]).unwrap();
            value.truncate(len);
            (name.to_owned(), value)
        })
        .collect()
}

/// Runs `tool args... path`; false (with a note) when the tool is missing or the file system
/// refuses.
fn try_tool(tool: &str, args: &[&str], path: &Path) -> bool {
    let done = Command::new(tool)
        .args(args)
        .arg(path)
        .output()
        .is_ok_and(|o| o.status.success());
    if !done {
        eprintln!(
            "note: `{tool} {}` failed on {} (tool missing, or the file system cannot hold it); test skipped",
            args.join(" "),
            path.display()
        );
    }
    done
}

/// A copy of `docs` made by the tool that sets the standard (`cp -a`), in `t`, to compare with.
fn reference_copy(docs: &Path, t: &TempTree) -> PathBuf {
    let reference = t.join("reference");
    let copied = Command::new("cp")
        .arg("-a")
        .arg(docs)
        .arg(&reference)
        .status();
    assert!(copied.unwrap().success());
    reference
}

/// A folder `docs` with a user attribute, an access ACL and a default ACL, holding a file
/// made before the default ACL (so it has no ACL of its own) and a subfolder with an
/// attribute of its own. `None` where the file system cannot hold them.
fn folder_with_attributes(t: &TempTree) -> Option<PathBuf> {
    let docs = t.dir("src/docs");
    t.file("src/docs/plain.txt", "no ACL of its own");
    let sub = t.dir("src/docs/sub");
    let ok = try_tool("setfattr", &["-n", "user.origin", "-v", "camera"], &docs)
        && try_tool("setfattr", &["-n", "user.tag", "-v", "inner"], &sub)
        && try_tool("setfacl", &["-m", "u:65534:rx"], &docs)
        && try_tool("setfacl", &["-d", "-m", "u:65534:rwx"], &docs);
    ok.then_some(docs)
}

fn assert_same_attributes(src: &Path, dest: &Path, what: &str) {
    for rel in ["", "sub", "plain.txt"] {
        let (s, d) = (src.join(rel), dest.join(rel));
        assert_eq!(xattrs(&d), xattrs(&s), "{what}: {}", d.display());
        let mode = |p: &Path| fs::symlink_metadata(p).unwrap().mode();
        assert_eq!(mode(&d), mode(&s), "{what}: mode of {}", d.display());
    }
    let names = xattrs(dest);
    for name in [
        "user.origin",
        "system.posix_acl_access",
        "system.posix_acl_default",
    ] {
        assert!(
            names.contains_key(std::ffi::OsStr::new(name)),
            "{what}: {name}"
        );
    }
    assert!(
        !xattrs(&dest.join("plain.txt"))
            .contains_key(std::ffi::OsStr::new("system.posix_acl_access")),
        "{what}: the folder's default ACL was set after its contents, not inherited by them"
    );
}

#[test]
fn a_copy_keeps_folder_attributes_and_acls_on_one_and_across_file_systems() {
    let t = TempTree::new();
    let Some(docs) = folder_with_attributes(&t) else {
        return;
    };
    let shm = TempTree::new_in("/dev/shm");
    for (dest, what) in [(t.dir("dest"), "same fs"), (shm.dir("dest"), "to tmpfs")] {
        let out = run_job(Job::Copy {
            sources: vec![docs.clone()],
            dest_dir: dest.clone(),
            dest_name: None,
            on_conflict: ConflictPolicy::Skip,
        });
        assert!(out.summary.is_complete(), "{what}: {:#?}", out.summary);
        assert!(
            out.summary.notes.is_empty(),
            "{what}: {:#?}",
            out.summary.notes
        );
        assert_same_attributes(&docs, &dest.join("docs"), what);
    }
}

#[test]
fn a_move_across_file_systems_keeps_folder_attributes_and_acls() {
    let t = TempTree::new();
    let Some(docs) = folder_with_attributes(&t) else {
        return;
    };
    let reference = reference_copy(&docs, &t);
    let shm = TempTree::new_in("/dev/shm");
    let dest = shm.dir("dest");
    let out = ferry_in(&t.dir("home"))
        .arg("mv")
        .arg(&docs)
        .arg(&dest)
        .output()
        .unwrap();
    ok(&out);
    assert!(!docs.exists());
    assert_same_attributes(&reference, &dest.join("docs"), "moved to tmpfs");
}

/// `mv src/docs dest` with a `dest/docs` there merges into it and removes `src/docs`; its undo
/// makes `src/docs` anew with the attributes and ACLs it had, not bare ones (on one file
/// system, and across: what comes back from tmpfs is copied into it).
#[test]
fn the_undo_of_a_merged_move_gives_the_folder_its_attributes_back() {
    let shm = TempTree::new_in("/dev/shm");
    for (i, what) in ["same fs", "from tmpfs"].into_iter().enumerate() {
        let t = TempTree::new();
        let Some(docs) = folder_with_attributes(&t) else {
            return;
        };
        let reference = reference_copy(&docs, &t);
        let dest = [t.dir("dest"), shm.dir("dest")][i].clone();
        fs::create_dir(dest.join("docs")).unwrap();
        let home = t.dir("home");
        let moved = ferry_in(&home)
            .args(["mv", "--on-conflict", "skip"])
            .args([&docs, &dest])
            .output();
        ok(&moved.unwrap());
        assert!(
            !docs.exists() && dest.join("docs/plain.txt").exists(),
            "{what}"
        );
        ok(&ferry_in(&home).arg("undo").output().unwrap());
        assert_same_attributes(&reference, &docs, what);
    }
}

/// ramfs holds no extended attributes at all: the copy is done, and says what it could not
/// keep, once, naming a folder.
#[test]
fn a_destination_without_attributes_gets_a_note_not_a_failure() {
    let t = TempTree::new();
    let Some(docs) = folder_with_attributes(&t) else {
        return;
    };
    let Some(ramfs) = Mounted::new(&t.join("ramfs"), &["-t", "ramfs", "ramfs"]) else {
        return; // not root: noted by Mounted
    };
    let out = run_job(Job::Copy {
        sources: vec![docs.clone()],
        dest_dir: ramfs.dir.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(out.summary.done, std::slice::from_ref(&docs));
    assert_no_temporaries(&ramfs.dir);
    assert_eq!(out.summary.notes.len(), 1, "{:#?}", out.summary.notes);
    let note = &out.summary.notes[0];
    assert_eq!(note.kind, NoteKind::ExtendedAttributes);
    assert_eq!(note.count, 2, "docs and docs/sub");
    assert!(note.path.starts_with(&ramfs.dir), "{note:?}");
    assert_eq!(
        fs::read(ramfs.dir.join("docs/plain.txt")).unwrap(),
        b"no ACL of its own"
    );
    // The command line says so and still succeeds.
    fs::remove_dir_all(ramfs.dir.join("docs")).unwrap();
    let out = ferry_in(&t.dir("home"))
        .arg("cp")
        .arg(&docs)
        .arg(&ramfs.dir)
        .output()
        .unwrap();
    ok(&out);
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("not kept"), "{said}");
    assert!(
        said.contains(&*ramfs.dir.join("docs").to_string_lossy()),
        "{said}"
    );
}

/// A destination that keeps `user.*` attributes but no ACLs (btrfs mounted `noacl`): the
/// note says the ACLs were not kept, not the attributes, which were.
#[test]
fn a_destination_without_acls_keeps_the_attributes_and_says_only_acls_were_not_kept() {
    let t = TempTree::new();
    let Some(docs) = folder_with_attributes(&t) else {
        return;
    };
    let shm = TempTree::new_in("/dev/shm");
    let img = shm.join("btrfs.img");
    fs::File::create(&img).unwrap().set_len(300 << 20).unwrap();
    let made = Command::new("mkfs.btrfs").arg("-q").arg(&img).output();
    if !made.is_ok_and(|o| o.status.success()) {
        eprintln!("note: mkfs.btrfs unavailable; test skipped");
        return;
    }
    let mount = ["-o", "loop,noacl", img.to_str().unwrap()];
    let Some(noacl) = Mounted::new(&shm.join("mnt"), &mount) else {
        return;
    };
    let out = run_job(Job::Copy {
        sources: vec![docs],
        dest_dir: noacl.dir.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(out.summary.notes.len(), 1, "{:#?}", out.summary.notes);
    assert_eq!(out.summary.notes[0].kind, NoteKind::Acls);
    assert!(
        out.summary.notes[0]
            .to_string()
            .starts_with("ACLs not kept at ")
    );
    let kept = xattrs(&noacl.dir.join("docs"));
    assert_eq!(
        kept.get(&OsString::from("user.origin")).map(Vec::as_slice),
        Some(&b"camera"[..])
    );
}

/// A copy, and a move across file systems, killed once two files are done (a folder made, its
/// attributes not given yet: they come after its contents): the resumed job gives them, and
/// the folder's mode, as the job would have.
#[test]
fn a_resumed_job_gives_the_folders_the_killed_run_made_their_attributes() {
    use std::os::unix::process::ExitStatusExt;
    let shm = TempTree::new_in("/dev/shm");
    for verb in ["cp", "mv"] {
        let t = TempTree::new();
        let Some(docs) = folder_with_attributes(&t) else {
            return;
        };
        for i in 0..20 {
            t.file(format!("src/docs/sub/f{i}"), "x");
        }
        let reference = reference_copy(&docs, &t);
        let home = t.dir("home");
        let dest = shm.dir(format!("dest-{verb}"));
        // Folders made in the open, as for trees too large to fill hidden (`fresh.rs`).
        let out = ferry_in(&home)
            .env("FERRY_FAULT_OFF", "hidden-folders")
            .env("FERRY_FAULT_POINT", "item-done:2")
            .arg(verb)
            .arg(&docs)
            .arg(&dest)
            .output()
            .unwrap();
        assert_eq!(out.status.signal(), Some(9), "{verb}: killed");
        // `sub` and its 20 files cannot be finished after two items.
        assert!(
            !xattrs(&dest.join("docs/sub")).contains_key(std::ffi::OsStr::new("user.tag")),
            "{verb}: killed before the folder got its attributes"
        );
        ok(&ferry_in(&home).arg("resume").output().unwrap());
        assert_eq!(docs.exists(), verb == "cp");
        assert_same_attributes(&reference, &dest.join("docs"), verb);
    }
}

/// A symbolic link's own attributes (`trusted.*`, which root may set on a link, as SELinux
/// sets `security.*`) are kept on a copy and a move across file systems, as `cp -a` keeps them.
#[test]
fn a_links_own_attributes_are_kept() {
    if !crate::jobs_support::root_or_skip("setting trusted.* attributes") {
        return;
    }
    let t = TempTree::new();
    let shm = TempTree::new_in("/dev/shm");
    for op in ["cp", "mv"] {
        let src = t.dir(format!("{op}/links"));
        let link = t.symlink(format!("{op}/links/link"), "nowhere");
        if !try_tool(
            "setfattr",
            &["-h", "-n", "trusted.origin", "-v", "camera"],
            &link,
        ) {
            return;
        }
        let (home, dest) = (t.dir(format!("{op}/home")), shm.dir(op));
        let out = ferry_in(&home)
            .args([op.as_ref(), src.as_os_str(), dest.as_os_str()])
            .output()
            .unwrap();
        ok(&out);
        let copied = dest.join("links/link");
        assert_eq!(
            xattrs(&copied).get(std::ffi::OsStr::new("trusted.origin")),
            Some(&b"camera".to_vec()),
            "{op}"
        );
    }
}

/// What the default-ACL test's `private` folder holds (but `shared`, with an ACL of its own).
const PRIVATE: &[&str] = &[
    "private",
    "private/sub",
    "private/sub/notes.txt",
    "private/sub/pipe",
    "private/sub/sock",
];

/// Asserts that none of `rels` below `root` has an ACL.
fn assert_no_acls(root: &Path, rels: &[&str], what: &str) {
    for rel in rels {
        let names: Vec<_> = xattrs(&root.join(rel))
            .into_keys()
            .filter(|name| name.to_string_lossy().starts_with("system.posix_acl"))
            .collect();
        assert!(names.is_empty(), "{what}: {rel} has {names:?}");
    }
}

/// A destination folder with a default ACL (here giving another user everything) passes it
/// to what is created in it; a copy of a source without ACLs loses them again, as with
/// `cp -a` and `mv`, so that it is never open to more users than its source: its files,
/// its folders, its FIFOs and sockets, on a copy and on a move across file systems. An ACL
/// of the source's own is kept.
#[test]
fn a_copy_into_a_folder_with_a_default_acl_keeps_its_sources_acls_not_the_folders() {
    let t = TempTree::new();
    let shm = TempTree::new_in("/dev/shm");
    let src = t.dir("src/private");
    t.file("src/private/sub/notes.txt", "mine");
    let file = t.file("src/private.txt", "mine too");
    let (pipe, shared) = (src.join("sub/pipe"), src.join("sub/shared"));
    for fifo in [&pipe, &shared] {
        let mode = rustix::fs::Mode::from_raw_mode(0o640);
        rustix::fs::mknodat(rustix::fs::CWD, fifo, rustix::fs::FileType::Fifo, mode, 0).unwrap();
    }
    let _socket = std::os::unix::net::UnixListener::bind(src.join("sub/sock")).unwrap();
    for path in [
        &file,
        &src.join("sub/notes.txt"),
        &pipe,
        &src.join("sub/sock"),
    ] {
        fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o640)).unwrap();
    }
    if !try_tool("setfacl", &["-m", "u:65534:r"], &shared) {
        return;
    }
    let own_acl = xattrs(&shared);
    for (dest, what) in [(t.dir("open"), "same fs"), (shm.dir("open"), "to tmpfs")] {
        if !try_tool("setfacl", &["-d", "-m", "u:65534:rwx"], &dest) {
            return;
        }
        let out = run_job(Job::Copy {
            sources: vec![src.clone(), file.clone()],
            dest_dir: dest.clone(),
            dest_name: None,
            on_conflict: ConflictPolicy::Skip,
        });
        assert!(out.summary.is_complete(), "{what}: {:#?}", out.summary);
        assert_no_acls(&dest, &[PRIVATE, &["private.txt"]].concat(), what);
        assert_eq!(xattrs(&dest.join("private/sub/shared")), own_acl, "{what}");
        assert_eq!(
            fs::metadata(dest.join("private.txt")).unwrap().mode() & 0o7777,
            0o640,
            "{what}"
        );
    }
    let moved = shm.dir("moved");
    assert!(try_tool("setfacl", &["-d", "-m", "u:65534:rwx"], &moved));
    ok(&ferry_in(&t.dir("home"))
        .arg("mv")
        .arg(&src)
        .arg(&moved)
        .output()
        .unwrap());
    assert_no_acls(&moved, PRIVATE, "moved");
    assert_eq!(xattrs(&moved.join("private/sub/shared")), own_acl);
}
