//! `ferry cp` and copy jobs: fidelity, same file, into itself, conflicts, special files,
//! non-UTF-8 names, reflinks.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use ferry_core::Error;
use ferry_core::jobs::{ConflictPolicy, How, Job, SkipReason};
use ferry_tests::TempTree;

use crate::jobs_support::{
    Mounted, Node, assert_accounts_for, assert_no_temporaries, chmod, non_utf8, run_job, set_mtime,
    snapshot,
};
use crate::run_ferry;

/// A source tree with every kind of item a copy must keep.
pub fn sample_tree(t: &TempTree, rel: &str) -> PathBuf {
    let root = t.dir(rel);
    t.file(format!("{rel}/a.txt"), "alpha");
    t.file(format!("{rel}/empty"), "");
    let big: Vec<u8> = (0..300_000u32).map(|i| (i % 253) as u8).collect();
    t.file(format!("{rel}/sub/b.bin"), &big);
    t.file_bytes_name(
        format!("{rel}/sub"),
        non_utf8("name").as_encoded_bytes(),
        b"not utf-8",
    );
    t.symlink(format!("{rel}/link"), "a.txt");
    t.symlink(format!("{rel}/sub/broken"), "/nonexistent/target");
    t.fifo(format!("{rel}/pipe"));
    t.file(format!("{rel}/ro/inside"), "read-only folder");
    chmod(&root.join("a.txt"), 0o640);
    chmod(&root.join("sub/b.bin"), 0o755);
    for (i, p) in [
        "a.txt",
        "empty",
        "sub/b.bin",
        "pipe",
        "ro/inside",
        "link",
        "sub",
        "ro",
    ]
    .iter()
    .enumerate()
    {
        set_mtime(&root.join(p), 1_000_000_000 + i as i64 * 1000);
    }
    chmod(&root.join("ro"), 0o555);
    set_mtime(&root.join("ro"), 1_200_000_000);
    chmod(&root, 0o750);
    set_mtime(&root, 1_300_000_000);
    root
}

#[test]
fn cp_copies_every_kind_of_item_identically() {
    let t = TempTree::new();
    let src = sample_tree(&t, "src");
    let dest = t.dir("dest");
    let before = snapshot(&src);
    let out = run_ferry(["cp".as_ref(), src.as_os_str(), dest.as_os_str()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        snapshot(&dest.join("src")),
        before,
        "the copy differs from the source"
    );
    assert_eq!(snapshot(&src), before, "the source changed");
    let (a, b) = (
        fs::metadata(&src).unwrap(),
        fs::metadata(dest.join("src")).unwrap(),
    );
    assert_eq!(
        (a.mode(), a.mtime(), a.mtime_nsec()),
        (b.mode(), b.mtime(), b.mtime_nsec())
    );
    assert_no_temporaries(&dest);
}

#[test]
fn cp_of_a_folder_ending_in_a_dot_copies_what_it_holds() {
    let t = TempTree::new();
    let src = sample_tree(&t, "src");
    let before = snapshot(&src);
    let (dest, file) = (t.dir("dest"), t.file("file", "f"));
    let had = t.file("dest/had", "had");
    let dot = src.join(".");
    let out = run_ferry(["cp".as_ref(), dot.as_os_str(), dest.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    // As `cp -r src/. dest`: src's items in dest itself, beside what it had.
    let mut copied = snapshot(&dest);
    copied.retain(|path, _| path != Path::new("had"));
    assert_eq!(copied, before, "dest holds exactly src's items");
    assert!(!dest.join("src").exists() && fs::read(&had).unwrap() == b"had");

    // `file/.` is no folder: said, naming it; the other sources still go.
    let empty = t.dir("empty");
    let (file_dot, empty_dot) = (file.join("."), empty.join("."));
    let other = t.dir("other");
    let out = run_ferry([
        "cp".as_ref(),
        file_dot.as_os_str(),
        empty_dot.as_os_str(),
        had.as_os_str(),
        other.as_os_str(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("{}", file_dot.display())),
        "{stderr}"
    );
    assert_eq!(fs::read(other.join("had")).unwrap(), b"had");
    assert_eq!(fs::read_dir(&other).unwrap().count(), 1);
}

#[test]
fn copy_job_records_what_it_created() {
    let t = TempTree::new();
    let src = sample_tree(&t, "src");
    let dest = t.dir("dest");
    let out = run_job(Job::Copy {
        sources: vec![src.clone()],
        dest_dir: dest.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(out.summary.done, vec![src.clone()]);
    let entries: Vec<_> = out.summary.record.entries().collect();
    assert_eq!(entries.len(), snapshot(&src).len() + 1);
    for e in &entries {
        let meta = fs::symlink_metadata(&e.dest).unwrap();
        assert_eq!(
            (e.id.dev, e.id.ino),
            (meta.dev(), meta.ino()),
            "{}",
            e.dest.display()
        );
        assert_eq!(e.how, How::Created);
        assert_eq!(e.top_level, e.dest == dest.join("src"));
    }
    assert_eq!(out.summary.items_done, entries.len() as u64);
}

#[test]
fn a_file_onto_itself_is_refused_and_kept_whole() {
    let t = TempTree::new();
    let a = t.file("dir/a", "precious");
    // A hard link of the same file under the same name elsewhere (the same path is a
    // duplicate: see jobs_conflicts).
    t.dir("other");
    fs::hard_link(&a, t.join("other/a")).unwrap();
    let out = run_job(Job::Copy {
        sources: vec![a.clone()],
        dest_dir: t.join("other"),
        dest_name: None,
        on_conflict: ConflictPolicy::Replace,
    });
    assert!(
        matches!(*out.summary.failed[0].error, Error::SameFile { .. }),
        "{:#?}",
        out.summary
    );
    assert_accounts_for(&out.summary, std::slice::from_ref(&a));
    assert_eq!(fs::read(&a).unwrap(), b"precious");
    let out = run_ferry(["cp".as_ref(), a.as_os_str(), t.join("other").as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("are the same file"));
    assert_no_temporaries(t.path());
}

/// A link put in the place of what it points to would point at itself: the file or folder
/// gone but for the replaced copy kept a while. It was done, by copy and move alike.
#[test]
fn a_link_onto_what_it_points_to_is_refused() {
    let t = TempTree::new();
    let file = t.file("mv1/a.txt", "precious");
    t.file("p/d/inside", "kept");
    t.dir("mv2");
    t.dir("q");
    t.symlink("mv2/a.txt", "../mv1/a.txt");
    t.symlink("q/d", "../p/d");
    for (link, into) in [("mv2/a.txt", "mv1"), ("q/d", "p")] {
        let job = |sources: Vec<PathBuf>, dest_dir: PathBuf, mv: bool| match mv {
            false => Job::Copy {
                sources,
                dest_dir,
                dest_name: None,
                on_conflict: ConflictPolicy::Replace,
            },
            true => Job::Move {
                sources,
                dest_dir,
                dest_name: None,
                on_conflict: ConflictPolicy::Replace,
            },
        };
        for mv in [false, true] {
            let out = run_job(job(vec![t.join(link)], t.join(into), mv));
            assert!(
                matches!(*out.summary.failed[0].error, Error::SameFile { .. }),
                "{link} into {into}: {:#?}",
                out.summary
            );
            assert!(t.join(link).is_symlink(), "the link stays");
        }
    }
    assert_eq!(fs::read(&file).unwrap(), b"precious");
    assert_eq!(fs::read(t.join("p/d/inside")).unwrap(), b"kept");
    assert!(!t.join("mv1/a.txt").is_symlink() && !t.join("p/d").is_symlink());
    let args = ["mv", "--on-conflict", "replace"].map(std::ffi::OsStr::new);
    let link = t.join("mv2/a.txt");
    let into = t.join("mv1");
    let out = run_ferry(
        args.iter()
            .copied()
            .chain([link.as_os_str(), into.as_os_str()]),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("are the same file"));
    assert_eq!(fs::read(&file).unwrap(), b"precious");
}

#[test]
fn a_folder_into_itself_is_refused_and_the_rest_still_copies() {
    let t = TempTree::new();
    let src = t
        .file("src/sub/f", "f")
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let other = t.file("other.txt", "other");
    let into = src.join("sub");
    let out = run_ferry([
        "cp".as_ref(),
        src.as_os_str(),
        other.as_os_str(),
        into.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("into itself"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(fs::read(into.join("other.txt")).unwrap(), b"other");
    assert!(!into.join("src").exists());
    let out = run_job(Job::Copy {
        sources: vec![src.clone(), other.clone()],
        dest_dir: src.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    assert!(matches!(
        *out.summary.failed[0].error,
        Error::IntoItself { .. }
    ));
    assert_eq!(out.summary.done, vec![other.clone()]);
    assert_accounts_for(&out.summary, &[src.clone(), other]);
    assert_eq!(fs::read(src.join("sub/f")).unwrap(), b"f");
}

/// The destination reached inside the source through a bind mount is found by device and
/// inode, as `cp` finds it: never walked into (which copied the source into itself), and
/// the move leaves what it could not move in place.
#[test]
fn a_folder_into_itself_through_a_bind_mount_is_refused() {
    let t = TempTree::new();
    for op in ["cp", "mv"] {
        let src = t.dir(format!("{op}/d"));
        t.file(format!("{op}/d/f"), "f");
        let sub = t
            .file(format!("{op}/d/sub/s"), "s")
            .parent()
            .unwrap()
            .to_path_buf();
        let bind = t.dir(format!("{op}/bind"));
        let Some(_bind) = Mounted::new(&bind, &["--bind", sub.to_str().unwrap()]) else {
            return;
        };
        let out = run_ferry([op.as_ref(), src.as_os_str(), bind.as_os_str()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{op}: {stderr}");
        assert!(stderr.contains("into itself"), "{op}: {stderr}");
        assert!(
            !sub.join("d/sub").exists(),
            "{op}: never copied into itself"
        );
        assert_eq!(fs::read(sub.join("s")).unwrap(), b"s", "{op}");
        assert_eq!(fs::read(sub.join("d/f")).unwrap(), b"f", "{op}");
    }
}

#[test]
fn conflicts_skip_replace_merge_and_never_swap_files_for_folders() {
    let t = TempTree::new();
    let src = t.dir("src");
    t.file("src/same", "new");
    t.file("src/folder/inner", "new inner");
    t.file("src/was-dir", "a file");
    t.dir("src/was-file");
    let dest = t.dir("dest");
    t.file("dest/same", "old");
    t.file("dest/src/same", "old");
    t.file("dest/src/folder/keep-me", "destination only");
    t.dir("dest/src/was-dir");
    t.file("dest/src/was-file", "a file");
    let sources = vec![src];

    let skip = run_job(Job::Copy {
        sources: sources.clone(),
        dest_dir: dest.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    assert!(skip.summary.failed.is_empty(), "{:#?}", skip.summary);
    let skipped: Vec<_> = skip
        .summary
        .skipped
        .iter()
        .map(|s| (s.path.clone(), s.reason.clone()))
        .collect();
    assert_eq!(skipped.len(), 3, "{skipped:?}");
    assert!(skipped.iter().all(|(_, r)| *r == SkipReason::Exists));
    assert_eq!(fs::read(dest.join("src/same")).unwrap(), b"old");
    assert_eq!(
        fs::read(dest.join("src/folder/inner")).unwrap(),
        b"new inner"
    );
    assert_eq!(
        fs::read(dest.join("src/folder/keep-me")).unwrap(),
        b"destination only"
    );

    let replace = run_job(Job::Copy {
        sources: sources.clone(),
        dest_dir: dest.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Replace,
    });
    assert_eq!(fs::read(dest.join("src/same")).unwrap(), b"new");
    assert_eq!(
        fs::read(dest.join("src/folder/keep-me")).unwrap(),
        b"destination only"
    );
    assert!(
        dest.join("src/was-dir").is_dir() && dest.join("src/was-file").is_file(),
        "a file and a folder swapped"
    );
    let kinds = replace
        .summary
        .failed
        .iter()
        .filter(|f| matches!(*f.error, Error::KindConflict { .. }))
        .count();
    assert_eq!(kinds, 2, "{:#?}", replace.summary);
    let reported = replace
        .events
        .iter()
        .filter(|e| matches!(e, ferry_core::jobs::Event::ItemFailed { .. }))
        .count();
    assert_eq!(reported, replace.summary.failed.len());
    assert_accounts_for(&replace.summary, &sources);
    assert_no_temporaries(&dest);
}

#[test]
fn two_sources_with_one_name_never_overwrite_each_other() {
    let t = TempTree::new();
    let a = t.file("a/x", "first");
    let b = t.file("b/x", "second");
    let dest = t.dir("dest");
    let out = run_job(Job::Copy {
        sources: vec![a.clone(), b.clone()],
        dest_dir: dest.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Replace,
    });
    assert_eq!(fs::read(dest.join("x")).unwrap(), b"first");
    assert!(matches!(
        *out.summary.failed[0].error,
        Error::DuplicateName { .. }
    ));
    assert_eq!(out.summary.failed[0].path, b);
    assert_accounts_for(&out.summary, &[a, b]);
}

/// A socket in a copied or moved folder is made anew, as `cp -a` and `mv` across file systems
/// make it (a socket given is too, as `cp -a` makes it): a move is not left half done by one.
#[test]
fn sockets_are_made_anew_and_names_stay_bytes() {
    use std::os::unix::fs::{FileTypeExt, PermissionsExt};
    let is_socket = |p: &Path| fs::symlink_metadata(p).is_ok_and(|m| m.file_type().is_socket());
    let t = TempTree::new();
    let src = t.dir("src");
    let _listener = std::os::unix::net::UnixListener::bind(src.join("sock")).unwrap();
    chmod(&src.join("sock"), 0o640);
    t.file_bytes_name("src", non_utf8("odd").as_encoded_bytes(), b"bytes");
    let dest = t.dir("dest");
    let out = run_job(Job::Copy {
        sources: vec![src.clone()],
        dest_dir: dest.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    assert!(out.summary.is_complete(), "{:?}", out.summary);
    assert!(out.summary.skipped.is_empty(), "{:?}", out.summary.skipped);
    assert_eq!(
        fs::read(dest.join("src").join(non_utf8("odd"))).unwrap(),
        b"bytes"
    );
    let copy = dest.join("src/sock");
    assert!(is_socket(&copy));
    let mode = fs::symlink_metadata(&copy).unwrap().permissions().mode();
    assert_eq!(mode & 0o7777, 0o640);

    let given = t.join("given");
    let _given = std::os::unix::net::UnixListener::bind(&given).unwrap();
    let out = run_ferry(["cp".as_ref(), given.as_os_str(), dest.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(is_socket(&dest.join("given")));

    let shm = TempTree::new_in("/dev/shm");
    let out = run_ferry(["mv".as_ref(), src.as_os_str(), shm.path().as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!src.exists(), "the folder moved whole");
    assert!(is_socket(&shm.join("src/sock")));
}

#[test]
fn reflink_on_btrfs_shares_extents() {
    let t = TempTree::new();
    let Some(mnt) = Mounted::btrfs(&t) else {
        return;
    };
    let big: Vec<u8> = (0..(8u32 << 20)).map(|i| (i >> 12) as u8).collect();
    fs::create_dir(mnt.dir.join("src")).unwrap();
    fs::write(mnt.dir.join("src/big"), &big).unwrap();
    fs::create_dir(mnt.dir.join("dest")).unwrap();
    std::process::Command::new("sync").status().unwrap();
    let used = |p: &std::path::Path| {
        rustix::fs::statvfs(p)
            .map(|s| (s.f_blocks - s.f_bfree) * s.f_frsize)
            .unwrap()
    };
    let before = used(&mnt.dir);
    let src = mnt.dir.join("src");
    let out = run_job(Job::Copy {
        sources: vec![src],
        dest_dir: mnt.dir.join("dest"),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    std::process::Command::new("sync").status().unwrap();
    assert_eq!(fs::read(mnt.dir.join("dest/src/big")).unwrap(), big);
    assert!(
        used(&mnt.dir) < before + (4 << 20),
        "8 MiB were copied, not cloned"
    );
    let snap = snapshot(&mnt.dir.join("dest/src"));
    assert!(matches!(snap.values().next(), Some(Node::File { .. })));
}

#[test]
fn holes_and_extended_attributes_survive_a_copy() {
    let shm = TempTree::new_in("/dev/shm");
    let t = TempTree::new();
    let sparse = shm.join("sparse");
    let f = fs::File::create(&sparse).unwrap();
    f.set_len(64 << 20).unwrap();
    rustix::io::pwrite(&f, b"middle", 32 << 20).unwrap();
    rustix::fs::fsetxattr(&f, "user.ferry", b"kept", rustix::fs::XattrFlags::empty()).unwrap();
    drop(f);
    for dest in [t.dir("ext4"), shm.dir("tmpfs")] {
        let out = run_job(Job::Copy {
            sources: vec![sparse.clone()],
            dest_dir: dest.clone(),
            dest_name: None,
            on_conflict: ConflictPolicy::Skip,
        });
        assert!(out.summary.is_complete(), "{:#?}", out.summary);
        let copy = dest.join("sparse");
        let meta = fs::metadata(&copy).unwrap();
        assert_eq!(meta.len(), 64 << 20);
        assert!(
            meta.blocks() * 512 < 1 << 20,
            "holes filled in {}",
            dest.display()
        );
        assert!(fs::read(&copy).unwrap() == fs::read(&sparse).unwrap());
        let mut value = [0u8; 16];
        let n = rustix::fs::getxattr(&copy, "user.ferry", &mut value[..]).unwrap();
        assert_eq!(&value[..n], b"kept");
    }
}

/// A file replaced between planning and its copy, by a new file (as editors save) or by a
/// symbolic link (which is never followed, and was said as "Too many levels of symbolic
/// links"): it fails as changed, and the rest is copied.
#[test]
fn a_source_replaced_after_planning_is_reported_not_copied() {
    for by_link in [false, true] {
        let t = TempTree::new();
        let src = t.dir("src");
        t.file("src/steady", "steady");
        let swapped = t.file("src/swapped", "planned version");
        let canary = t.file("canary", "not to be copied");
        let dest = t.dir("dest");
        let (engine, events) =
            ferry_core::jobs::Engine::start_with(crate::jobs_support::staging_in_tree());
        let id = engine.submit_paused(Job::Copy {
            sources: vec![src],
            dest_dir: dest.clone(),
            dest_name: None,
            on_conflict: ConflictPolicy::Skip,
        });
        while !matches!(
            events.recv().unwrap(),
            ferry_core::jobs::Event::Planned { .. }
        ) {}
        let new = t.join("src/.new");
        match by_link {
            true => std::os::unix::fs::symlink(&canary, &new).unwrap(),
            false => fs::write(&new, "another file now").unwrap(),
        }
        fs::rename(&new, &swapped).unwrap();
        engine.resume(id);
        let out = crate::jobs_support::collect(&events, id);
        assert_eq!(out.summary.failed.len(), 1, "{:#?}", out.summary);
        assert!(
            matches!(*out.summary.failed[0].error, Error::Changed { .. }),
            "{:#?}",
            out.summary
        );
        assert_eq!(out.summary.failed[0].path, swapped);
        assert_eq!(fs::read(dest.join("src/steady")).unwrap(), b"steady");
        assert!(fs::symlink_metadata(dest.join("src/swapped")).is_err());
        assert_no_temporaries(&dest);
    }
}

#[test]
fn a_new_name_is_for_one_source_and_must_be_a_name() {
    let t = TempTree::new();
    let a = t.file("src/a", "a");
    let b = t.file("src/b", "b");
    let dest = t.dir("dest");
    let copy = |sources: Vec<PathBuf>, name: &str| {
        run_job(Job::Copy {
            sources,
            dest_dir: dest.clone(),
            dest_name: Some(name.into()),
            on_conflict: ConflictPolicy::Skip,
        })
    };
    for (sources, name) in [
        (vec![a.clone(), b], "both"),
        (vec![a.clone()], "x/y"),
        (vec![a.clone()], ".."),
        (vec![a.clone()], ""),
    ] {
        let out = copy(sources.clone(), name);
        assert_eq!(out.summary.failed.len(), sources.len(), "{name:?}");
        let said = out.summary.failed[0].error.to_string();
        assert!(said.contains("Invalid argument"), "{said}");
    }
    assert_eq!(fs::read_dir(&dest).unwrap().count(), 0, "nothing written");
    let out = copy(vec![a.clone()], "renamed");
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(out.summary.done, [a]);
    assert_eq!(fs::read(dest.join("renamed")).unwrap(), b"a");
}

/// Root copies and moves device files as `cp -a` and `mv` run by root do: made anew with
/// their type, device number and mode (a chroot or a container's root holds some).
#[test]
fn root_copies_and_moves_devices_with_their_numbers() {
    use std::os::unix::fs::FileTypeExt;
    if !crate::jobs_support::root_or_skip("making devices") {
        return;
    }
    let t = TempTree::new();
    let shm = TempTree::new_in("/dev/shm");
    for (op, name) in [("cp", "copied"), ("mv", "moved")] {
        let root = t.dir(name);
        let make = |rel: &str, kind, dev| {
            let path = root.join(rel);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            let mode = rustix::fs::Mode::from_raw_mode(0o640);
            rustix::fs::mknodat(rustix::fs::CWD, &path, kind, mode, dev).unwrap();
        };
        make(
            "null",
            rustix::fs::FileType::CharacterDevice,
            rustix::fs::makedev(1, 3),
        );
        make(
            "sub/loop",
            rustix::fs::FileType::BlockDevice,
            rustix::fs::makedev(7, 200),
        );
        let out = run_ferry([op.as_ref(), root.as_os_str(), shm.path().as_os_str()]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{op}: {stderr}");
        let null = fs::symlink_metadata(shm.join(format!("{name}/null"))).unwrap();
        let block = fs::symlink_metadata(shm.join(format!("{name}/sub/loop"))).unwrap();
        assert!(null.file_type().is_char_device() && block.file_type().is_block_device());
        assert_eq!(
            (null.rdev(), block.rdev()),
            (rustix::fs::makedev(1, 3), rustix::fs::makedev(7, 200))
        );
        assert_eq!(null.mode() & 0o777, 0o640, "{op}");
        assert_eq!(root.exists(), op == "cp", "{op}");
    }
}
