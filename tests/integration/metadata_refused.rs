//! Destinations that refuse metadata keep the data: a FUSE FAT disk (`fusefat` on a small
//! image: `chmod` and `chown` fail with ENOSYS, extended attributes with ENOTSUP, names with
//! `:` with EPERM), and a `bindfs` view whose `chmod` fails with EPERM but whose names are
//! Unix names. Neither is known by its type name (`fuse.*`): what the destination can do is
//! probed once per job. Root only (mounting); skipped with a note where the tools are
//! missing (`.ci/run` installs them).

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use ferry_core::Error;
use ferry_core::jobs::{ConflictPolicy, Job, Note, NoteKind};
use ferry_tests::TempTree;

use super::ferry_in;
use super::jobs_support::{assert_no_temporaries, run_job, set_mtime};

/// A FUSE file system mounted for one test, unmounted when dropped.
pub(crate) struct Fuse {
    pub(crate) dir: PathBuf,
}

impl Fuse {
    /// Runs `program args... DIR`; `None` (with a note) where that is not possible here.
    fn mount(program: &str, args: &[&str], dir: &Path) -> Option<Fuse> {
        fs::create_dir_all(dir).unwrap();
        let mounted = rustix::process::geteuid().is_root()
            && Command::new(program)
                .args(args)
                .arg(dir)
                .status()
                .is_ok_and(|s| s.success());
        if !mounted {
            eprintln!("note: cannot mount {program} here (root and {program} needed); skipped");
            return None;
        }
        Some(Fuse {
            dir: dir.to_path_buf(),
        })
    }

    /// A 16 MiB FAT image formatted with `mkfs.vfat`, mounted with `fusefat`.
    pub(crate) fn fat(tree: &TempTree) -> Option<Fuse> {
        let image = tree.join("fat.img");
        let made = fs::File::create(&image)
            .and_then(|f| f.set_len(16 << 20))
            .is_ok()
            && Command::new("mkfs.vfat")
                .arg(&image)
                .output()
                .is_ok_and(|o| o.status.success());
        if !made {
            eprintln!("note: mkfs.vfat is missing; skipped");
            return None;
        }
        let image = image.to_string_lossy().into_owned();
        Fuse::mount("fusefat", &["-o", "rw+", &image], &tree.join("fat"))
    }
}

impl Drop for Fuse {
    fn drop(&mut self) {
        let _ = Command::new("fusermount").arg("-u").arg(&self.dir).status();
    }
}

/// A source folder with modes, times, an extended attribute and a subfolder.
fn source(tree: &TempTree) -> PathBuf {
    let src = tree.dir("src");
    tree.file("src/a.txt", "alpha");
    tree.file("src/sub/b.bin", vec![7u8; 100_000]);
    fs::set_permissions(src.join("a.txt"), fs::Permissions::from_mode(0o640)).unwrap();
    set_mtime(&src.join("sub/b.bin"), 1_000_000_000);
    rustix::fs::setxattr(
        src.join("a.txt").as_path(),
        "user.origin",
        b"ferry",
        rustix::fs::XattrFlags::empty(),
    )
    .unwrap();
    src
}

/// The paths of the items that failed.
fn failed_paths(summary: &ferry_core::jobs::Summary) -> Vec<&Path> {
    summary.failed.iter().map(|f| f.path.as_path()).collect()
}

fn notes_of(notes: &[Note]) -> Vec<NoteKind> {
    let mut kinds: Vec<NoteKind> = notes.iter().map(|n| n.kind).collect();
    kinds.sort();
    kinds
}

#[test]
fn a_fuse_fat_disk_gets_the_data_with_a_note_for_what_it_cannot_hold() {
    let tree = TempTree::new();
    let Some(fat) = Fuse::fat(&tree) else {
        return;
    };
    let src = source(&tree);
    tree.file("src/a:b", "a name FAT refuses");
    let out = run_job(Job::Copy {
        sources: vec![src.clone()],
        dest_dir: fat.dir.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    let copy = fat.dir.join("src");
    assert_eq!(fs::read(copy.join("a.txt")).unwrap(), b"alpha");
    assert_eq!(
        fs::read(copy.join("sub/b.bin")).unwrap(),
        vec![7u8; 100_000]
    );
    // Only the name FAT cannot hold failed, and it was known before writing.
    let failed = failed_paths(&out.summary);
    assert_eq!(failed, [src.join("a:b")], "{:#?}", out.summary);
    assert!(matches!(
        *out.summary.failed[0].error,
        Error::NameNotAllowed { .. }
    ));
    assert_eq!(
        notes_of(&out.summary.notes),
        [NoteKind::Permissions, NoteKind::ExtendedAttributes],
        "{:#?}",
        out.summary.notes
    );
    assert_no_temporaries(&fat.dir);
}

#[test]
fn the_command_line_copies_onto_a_fuse_fat_disk_and_notes_it_once() {
    let tree = TempTree::new();
    let Some(fat) = Fuse::fat(&tree) else {
        return;
    };
    let src = source(&tree);
    let home = tree.dir("home");
    let out = ferry_in(&home)
        .arg("cp")
        .arg(&src)
        .arg(&fat.dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        stderr.matches("permissions not kept").count(),
        1,
        "{stderr}"
    );
    assert_eq!(fs::read(fat.dir.join("src/a.txt")).unwrap(), b"alpha");
}

#[test]
fn a_destination_refusing_chmod_is_found_by_probing_not_by_its_type_name() {
    let tree = TempTree::new();
    let backing = tree.dir("backing");
    let backing_arg = backing.to_string_lossy().into_owned();
    let Some(view) = Fuse::mount(
        "bindfs",
        &["--chmod-deny", "--xattr-none", &backing_arg],
        &tree.join("view"),
    ) else {
        return;
    };
    let src = source(&tree);
    tree.file("src/a:b", "a Unix name");
    let out = run_job(Job::Copy {
        sources: vec![src],
        dest_dir: view.dir.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    let copy = view.dir.join("src");
    assert_eq!(fs::read(copy.join("a:b")).unwrap(), b"a Unix name");
    assert_eq!(fs::read(copy.join("a.txt")).unwrap(), b"alpha");
    let mtime = fs::metadata(copy.join("sub/b.bin"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(
        mtime
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs(),
        1_000_000_000,
        "times are kept where they can be"
    );
    assert_eq!(
        notes_of(&out.summary.notes),
        [NoteKind::Permissions, NoteKind::ExtendedAttributes],
        "{:#?}",
        out.summary.notes
    );
    assert_no_temporaries(&view.dir);
}

/// Undo of a Replace on a FUSE FAT disk, which answers `RENAME_NOREPLACE` with EINVAL: the
/// old file comes back (it stayed in the disk's `.ferry-replaced-*` folder, the new one in
/// the trash, and the file's place empty).
#[test]
fn the_undo_of_a_replace_on_a_fuse_fat_disk_puts_the_old_file_back() {
    let tree = TempTree::new();
    let Some(fat) = Fuse::fat(&tree) else {
        return;
    };
    let old = fat.dir.join("x.txt");
    fs::write(&old, "old").unwrap();
    let new = tree.file("src/x.txt", "new");
    let home = tree.dir("home");
    let ferry = |args: &[&std::ffi::OsStr]| {
        let out = ferry_in(&home).args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    };
    let replace = ["cp", "--on-conflict", "replace"].map(std::ffi::OsStr::new);
    ferry(&[&replace[..], &[new.as_os_str(), fat.dir.as_os_str()]].concat());
    assert_eq!(fs::read(&old).unwrap(), b"new");
    ferry(&["undo".as_ref()]);
    assert_eq!(fs::read(&old).unwrap(), b"old");
}

/// fusefat stamps a renamed file with the time of the rename, and each file is written under
/// a temporary name then renamed into place: every copy had the time of the copy, with no
/// note (`cp -a` keeps the source's). Times are given again once a file is in place.
#[test]
fn a_fuse_fat_disk_keeps_the_times_of_the_files_copied_there() {
    let tree = TempTree::new();
    let Some(fat) = Fuse::fat(&tree) else {
        return;
    };
    let src = source(&tree);
    set_mtime(&src.join("a.txt"), 1_000_000_000);
    let out = run_job(Job::Copy {
        sources: vec![src.join("a.txt"), src.join("sub")],
        dest_dir: fat.dir.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    assert!(out.summary.failed.is_empty(), "{:#?}", out.summary);
    for copy in [fat.dir.join("a.txt"), fat.dir.join("sub/b.bin")] {
        let mtime = fs::metadata(&copy).unwrap().modified().unwrap();
        let secs = mtime
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        // FAT keeps times to two seconds.
        assert!(
            secs.abs_diff(1_000_000_000) <= 2,
            "{}: {secs}",
            copy.display()
        );
    }
}

/// fusefat makes no FIFO and fails `mknod` with EIO, which stopped the whole job as a
/// failing disk would ("stopped: cannot create …/fifo: Input/output error"), the other files
/// not copied; then it was "skipped", which hid why and ended the copy as complete. The FIFO
/// fails alone, said as a node this disk cannot hold, the rest is copied, and no temporary
/// entry is left (the disk keeps an entry under the name it refused).
#[test]
fn a_fifo_a_fuse_disk_cannot_make_fails_alone_and_the_rest_is_copied() {
    let tree = TempTree::new();
    let Some(fat) = Fuse::fat(&tree) else {
        return;
    };
    let src = tree.dir("src");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        src.join("a-fifo"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    for name in ["b.txt", "c.txt", "d.txt"] {
        tree.file(format!("src/{name}"), name);
    }
    let out = run_job(Job::Copy {
        sources: vec![src.clone()],
        dest_dir: fat.dir.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    assert!(out.summary.stopped_by.is_none(), "{:#?}", out.summary);
    assert!(out.summary.skipped.is_empty(), "{:#?}", out.summary);
    let failed: Vec<_> = out.summary.failed.iter().map(|f| &f.path).collect();
    assert_eq!(failed, [&src.join("a-fifo")], "{:#?}", out.summary);
    let said = out.summary.failed[0].error.to_string();
    let fifo = fat.dir.join("src/a-fifo");
    assert!(
        said.starts_with(&format!("cannot create {}: ", fifo.display()))
            && said.contains("cannot hold a"),
        "{said}"
    );
    for name in ["b.txt", "c.txt", "d.txt"] {
        assert_eq!(
            fs::read_to_string(fat.dir.join("src").join(name)).unwrap(),
            name
        );
    }
    assert_no_temporaries(&fat.dir);
}

/// The undo of a move to a disk that holds no permissions gives the items back the modes they
/// had, not the disk's: a private file came back 0700 from fusefat (world-writable 0777 from
/// exfat-fuse), a folder's 0755 and a file's 0640 came back 0700. From the start: held after
/// its first item, whatever it put back already has its own mode (it was 0700 until the end,
/// and stayed so if the undo was killed); and under the name a Keep both answer gives it.
#[test]
fn the_undo_of_a_move_to_a_fat_disk_gives_back_the_modes_the_items_had() {
    for keep_both in [false, true] {
        let tree = TempTree::new();
        let Some(fat) = Fuse::fat(&tree) else {
            return;
        };
        let modes = [
            ("id_key", 0o600),
            ("d/sub/b", 0o644),
            ("d/sub", 0o755),
            ("d/a", 0o640),
            ("d", 0o700),
        ];
        for (path, _) in &modes {
            if !path.ends_with("sub") && *path != "d" {
                tree.file(format!("src/{path}"), *path);
            }
        }
        let mode = |p: &Path| fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777;
        for (path, m) in modes {
            fs::set_permissions(tree.join("src").join(path), fs::Permissions::from_mode(m))
                .unwrap();
        }
        let home = tree.dir("home");
        let (key, d) = (tree.join("src/id_key"), tree.join("src/d"));
        let mut mv = ferry_in(&home);
        mv.arg("mv").arg(&key).arg(&d).arg(&fat.dir);
        crate::undo::ok(&mv.output().unwrap());
        assert_ne!(
            mode(&fat.dir.join("id_key")),
            0o600,
            "the disk gave its own"
        );
        let back = |path: &str| match keep_both && path == "id_key" {
            true => tree.join("src/id_key (copy)"),
            false => tree.join("src").join(path),
        };
        if keep_both {
            tree.file("src/id_key", "taken since");
        }
        let pause = crate::faults::Pause::at("item-done");
        let mut undo = ferry_in(&home);
        undo.args(["undo", "--on-conflict", "keep-both"]);
        let child = pause.start_held(&mut undo);
        for (path, m) in modes {
            let at = back(path);
            if fs::symlink_metadata(&at).is_ok_and(|meta| meta.is_file()) {
                assert_eq!(
                    mode(&at),
                    m,
                    "{path} while the undo runs (keep both: {keep_both})"
                );
            }
        }
        pause.release(child.id());
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{out:?}");
        for (path, m) in modes {
            assert_eq!(mode(&back(path)), m, "{path} (keep both: {keep_both})");
        }
        assert_eq!(fs::read(back("id_key")).unwrap(), b"id_key");
    }
}

/// Where the disk kept the modes, the undo keeps what the items have then: a mode the user
/// changed since is theirs, as a plain `mv` back would keep it.
#[test]
fn the_undo_of_a_move_keeps_a_mode_changed_since_where_the_disk_kept_modes() {
    let tree = TempTree::new();
    let shm = TempTree::new_in("/dev/shm");
    let notes = tree.file("src/notes", "n");
    fs::set_permissions(&notes, fs::Permissions::from_mode(0o644)).unwrap();
    let home = tree.dir("home");
    let mut mv = ferry_in(&home);
    mv.arg("mv").arg(&notes).arg(shm.path());
    crate::undo::ok(&mv.output().unwrap());
    let moved = shm.join("notes");
    fs::set_permissions(&moved, fs::Permissions::from_mode(0o600)).unwrap();
    crate::undo::ok(&ferry_in(&home).arg("undo").output().unwrap());
    let mode = fs::metadata(&notes).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o600, "the user's own change");
}

/// Files linked to one another, copied to a disk that has no hard links: each name gets a
/// copy of its own, and the job says the links were not kept (it said nothing), as `cp -a`
/// does.
#[test]
fn hard_links_a_fat_disk_cannot_hold_are_a_note() {
    let tree = TempTree::new();
    let Some(fat) = Fuse::fat(&tree) else {
        return;
    };
    let a = tree.file("src/a", "linked");
    fs::hard_link(&a, tree.join("src/b")).unwrap();
    let out = run_job(Job::Copy {
        sources: vec![tree.join("src")],
        dest_dir: fat.dir.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    assert!(out.summary.failed.is_empty(), "{:#?}", out.summary);
    for name in ["a", "b"] {
        assert_eq!(fs::read(fat.dir.join("src").join(name)).unwrap(), b"linked");
    }
    let links: Vec<&Note> = (out.summary.notes.iter())
        .filter(|n| n.kind == NoteKind::HardLinks)
        .collect();
    assert_eq!(links.len(), 1, "{:#?}", out.summary.notes);
    assert!(
        links[0].to_string().starts_with("hard links not kept at "),
        "{}",
        links[0]
    );
}

/// A move off fusefat, which stamps a renamed file with the time of the rename: the source,
/// renamed aside before it is removed, read as changed since its copy, and every move off it
/// (the undo of a move onto it too) failed "changed since it was copied; kept", the file left
/// in both places.
#[test]
fn a_move_off_a_fat_disk_removes_its_sources() {
    let tree = TempTree::new();
    let Some(fat) = Fuse::fat(&tree) else {
        return;
    };
    let old = fat.dir.join("old.txt");
    fs::write(&old, "from long ago").unwrap();
    set_mtime(&old, 1_000_000_000);
    let (home, out) = (tree.dir("home"), tree.dir("out"));
    let mut mv = ferry_in(&home);
    mv.arg("mv").arg(&old).arg(&out);
    crate::undo::ok(&mv.output().unwrap());
    assert!(!old.exists(), "moved off");
    assert_eq!(fs::read(out.join("old.txt")).unwrap(), b"from long ago");
}

/// A move to a disk without permissions, killed once some sources are gone, is rolled back
/// whole, the items with their own modes, or resumed and then undone so: only a finished
/// move's record kept the modes, so a private file came back with the disk's (0700 from
/// fusefat, 0777 from exfat-fuse). And the roll back did nothing at all on a FUSE disk, and
/// said it was done: the job's folder there was taken for one that was there before.
#[test]
fn a_killed_move_to_a_fat_disk_rolled_back_gives_back_the_modes() {
    for resumed_first in [false, true] {
        let tree = TempTree::new();
        let Some(fat) = Fuse::fat(&tree) else {
            return;
        };
        let modes: Vec<(String, u32)> = (0..8)
            .map(|k| (format!("d/key{k}"), [0o600, 0o640, 0o604, 0o444][k % 4]))
            .chain([("d".to_owned(), 0o750)])
            .collect();
        for (path, _) in &modes[..8] {
            tree.file(format!("src/{path}"), path);
        }
        for (path, m) in &modes {
            let at = tree.join("src").join(path);
            fs::set_permissions(at, fs::Permissions::from_mode(*m)).unwrap();
        }
        let home = tree.dir("home");
        killed_while_removing(&home, &tree.join("src/d"), &fat.dir);
        let gone = (modes.iter()).filter(|(p, _)| !tree.join("src").join(p).exists());
        assert!(gone.count() >= 3, "some sources went before the kill");
        if resumed_first {
            crate::undo::ok(&ferry_in(&home).arg("resume").output().unwrap());
            assert!(!tree.join("src/d").exists(), "the move finished");
        }
        crate::undo::ok(&ferry_in(&home).arg("undo").output().unwrap());
        assert!(!fat.dir.join("d").exists(), "the copies went to the trash");
        for (path, m) in &modes {
            let at = tree.join("src").join(path);
            let mode = fs::symlink_metadata(&at).unwrap().permissions().mode() & 0o7777;
            assert_eq!(mode, *m, "{path} (resumed first: {resumed_first})");
            if !path.ends_with('d') {
                assert_eq!(fs::read_to_string(&at).unwrap(), *path);
            }
        }
    }
}

/// The same move into a folder of its name already on the disk (a merge), killed, then rolled
/// back: what it had carried there came back. FAT keeps no change time of its own, so the
/// roll back took every item there for the user's, and said it was done.
#[test]
fn a_killed_merge_onto_a_fat_disk_is_rolled_back() {
    let tree = TempTree::new();
    let Some(fat) = Fuse::fat(&tree) else {
        return;
    };
    for k in 0..8 {
        let key = tree.file(format!("src/d/key{k}"), format!("key {k}"));
        fs::set_permissions(key, fs::Permissions::from_mode(0o600)).unwrap();
    }
    fs::create_dir(fat.dir.join("d")).unwrap();
    fs::write(fat.dir.join("d/user.txt"), "mine").unwrap();
    let home = tree.dir("home");
    killed_while_removing(&home, &tree.join("src/d"), &fat.dir);
    crate::undo::ok(&ferry_in(&home).arg("undo").output().unwrap());
    for k in 0..8 {
        let key = tree.join(format!("src/d/key{k}"));
        assert_eq!(fs::read_to_string(&key).unwrap(), format!("key {k}"));
        let mode = fs::symlink_metadata(&key).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o600, "key{k}");
    }
    assert_eq!(fs::read(fat.dir.join("d/user.txt")).unwrap(), b"mine");
}

/// `ferry mv SOURCE DEST` killed (SIGKILL) at its fourth source checked for removal: three
/// sources gone, the rest in both places.
fn killed_while_removing(home: &Path, source: &Path, dest: &Path) {
    use std::os::unix::process::ExitStatusExt;
    let out = ferry_in(home)
        .env("FERRY_FAULT_POINT", "source-checked:4")
        .arg("mv")
        .arg(source)
        .arg(dest)
        .output()
        .unwrap();
    assert_eq!(out.status.signal(), Some(9), "{out:?}");
}
