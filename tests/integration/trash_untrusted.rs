//! Trash folders as untrusted input. A removable drive's `.Trash-$uid` can be written by
//! anyone who had the drive: its info files may name places off the volume (`..`, an
//! absolute path elsewhere), the parent chain they name may go through a symlink, their names
//! may map to `files/` itself, and their item may be missing. None of that is restored
//! automatically, nothing is written outside the volume or through a link, and what is
//! refused can still be restored into a folder the user picks.
//!
//! The volume is a folder on `/dev/shm` given to [`TrashRoots`] as a volume top (listing and
//! restore read its `.Trash-$uid` as they would a mount's); where trashing itself must find
//! the volume in the mount table, a tmpfs is mounted for the test (root only).

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};

use ferry_core::Error;
use ferry_core::jobs::{
    ConflictPolicy, Job, Summary, TrashRoots, TrashedItem, UnsafeEntry, Volumes, list_trash_in,
};
use ferry_tests::TempTree;

use super::ferry_in;
use super::jobs_support::{Mounted, run_job};

fn uid() -> u32 {
    rustix::process::getuid().as_raw()
}

/// A volume top on `/dev/shm` with a crafted `.Trash-$uid`, and a folder off the volume.
struct Volume {
    top: TempTree,
    off: TempTree,
    roots: TrashRoots,
}

impl Volume {
    fn new() -> Volume {
        let top = TempTree::new_in("/dev/shm");
        let off = TempTree::new();
        for sub in ["", "files", "info"] {
            let dir = top.join(format!(".Trash-{}", uid())).join(sub);
            fs::create_dir_all(&dir).unwrap();
            fs::set_permissions(&dir, fs::Permissions::from_mode(0o700)).unwrap();
        }
        let roots = TrashRoots {
            home: off.join("home/Trash"),
            volumes: Volumes::Only(vec![top.path().to_path_buf()]),
        };
        Volume { top, off, roots }
    }

    fn trash(&self) -> PathBuf {
        self.top.join(format!(".Trash-{}", uid()))
    }

    /// Writes `info/<name>.trashinfo` saying `Path=<path>`, and `files/<name>` holding
    /// `contents` unless `None`.
    fn entry(&self, name: &[u8], path: &str, contents: Option<&str>) {
        let mut info = name.to_vec();
        info.extend_from_slice(b".trashinfo");
        let body = format!("[Trash Info]\nPath={path}\nDeletionDate=2024-01-02T03:04:05\n");
        fs::write(
            self.trash().join("info").join(OsStr::from_bytes(&info)),
            body,
        )
        .unwrap();
        if let Some(contents) = contents {
            fs::write(
                self.trash().join("files").join(OsStr::from_bytes(name)),
                contents,
            )
            .unwrap();
        }
    }

    fn in_trash(&self, name: &str) -> PathBuf {
        self.trash().join("files").join(name)
    }

    fn listed(&self) -> Vec<TrashedItem> {
        list_trash_in(&self.roots).unwrap()
    }
}

/// A path next to the volume top on `/dev/shm` (outside the volume), unique to this test.
fn beside(v: &Volume, suffix: &str) -> PathBuf {
    let mut name = v.top.path().file_name().unwrap().to_owned();
    name.push(suffix);
    v.top.path().with_file_name(name)
}

fn restore_all(items: Vec<TrashedItem>) -> Summary {
    let out = run_job(Job::Restore {
        items,
        on_conflict: ConflictPolicy::Skip,
    });
    assert!(!out.cancelled);
    out.summary
}

fn failed_with(summary: &Summary, path: &Path) -> String {
    let failed = summary.failed.iter().find(|f| f.path == path);
    let failed = failed.unwrap_or_else(|| panic!("{} did not fail: {summary:#?}", path.display()));
    failed.error.to_string()
}

#[test]
fn paths_that_climb_out_or_lie_off_the_volume_are_never_restored() {
    let v = Volume::new();
    let escaped = beside(&v, "-escaped");
    let escaped_name = escaped.file_name().unwrap().to_string_lossy().into_owned();
    v.entry(b"up", &format!("../{escaped_name}/x"), Some("up"));
    let off = v.off.join("offvol/y");
    v.entry(b"off", &off.display().to_string(), Some("off"));
    let sneaky = format!("{}/sub/../../{escaped_name}/z", v.top.path().display());
    v.entry(b"sneaky", &sneaky, Some("sneaky"));
    v.entry(b"empty", "sub//w", Some("empty part"));
    v.entry(b"ok", "sub/ok", Some("fine"));

    let listed = v.listed();
    assert_eq!(listed.len(), 5, "{listed:#?}");
    let summary = restore_all(listed);

    assert_eq!(fs::read_to_string(v.top.join("sub/ok")).unwrap(), "fine");
    assert!(summary.done.contains(&v.top.join("sub/ok")), "{summary:#?}");
    assert!(
        !escaped.exists(),
        "restored outside the volume: {}",
        escaped.display()
    );
    assert!(!v.off.join("offvol").exists(), "restored off the volume");
    assert!(!v.top.join("sub/w").exists());
    for (name, body) in [("up", "up"), ("off", "off"), ("sneaky", "sneaky")] {
        assert_eq!(fs::read_to_string(v.in_trash(name)).unwrap(), body);
    }
    assert_eq!(
        fs::read_to_string(v.in_trash("empty")).unwrap(),
        "empty part"
    );
    assert_eq!(summary.failed.len(), 4, "{summary:#?}");
    let why = failed_with(&summary, &off);
    assert!(
        why.contains("unsafe") && why.contains("off.trashinfo"),
        "{why}"
    );
    let _ = fs::remove_dir_all(&escaped);
}

#[test]
fn a_symlink_in_the_original_parent_chain_is_refused_never_written_through() {
    let v = Volume::new();
    let elsewhere = v.off.dir("elsewhere");
    std::os::unix::fs::symlink(&elsewhere, v.top.join("link")).unwrap();
    v.top.dir("real");
    std::os::unix::fs::symlink(&elsewhere, v.top.join("real/inner")).unwrap();
    v.entry(b"x", "link/x", Some("x"));
    v.entry(b"y", "real/inner/deeper/y", Some("y"));
    let absolute = format!("{}/link/z", v.top.path().display());
    v.entry(b"z", &absolute, Some("z"));

    let summary = restore_all(v.listed());

    assert!(summary.done.is_empty(), "{summary:#?}");
    assert_eq!(
        fs::read_dir(&elsewhere).unwrap().count(),
        0,
        "written through a link"
    );
    for name in ["x", "y", "z"] {
        assert_eq!(fs::read_to_string(v.in_trash(name)).unwrap(), name);
    }
    let why = failed_with(&summary, &v.top.join("real/inner/deeper/y"));
    assert!(
        why.contains("symbolic link") && why.contains(&*v.top.join("real/inner").to_string_lossy()),
        "{why}"
    );
    assert_eq!(summary.failed.len(), 3, "{summary:#?}");
}

#[test]
fn info_files_named_dot_dot_or_empty_and_entries_without_their_file_are_left_out() {
    let v = Volume::new();
    v.entry(b".", "victim-dot", None);
    v.entry(b"", "victim-empty", None);
    v.entry(b"..", "victim-dotdot", None);
    v.entry(b"missing", "victim-missing", None);
    v.entry(b"kept", "sub/kept", Some("kept"));

    let listed = v.listed();
    let originals: Vec<&Path> = listed.iter().map(|i| i.original.as_path()).collect();
    assert_eq!(originals, [v.top.join("sub/kept")]);
    restore_all(listed);

    assert_eq!(fs::read_to_string(v.top.join("sub/kept")).unwrap(), "kept");
    for victim in [
        "victim-dot",
        "victim-empty",
        "victim-dotdot",
        "victim-missing",
    ] {
        assert!(!v.top.join(victim).exists(), "{victim}");
    }
    assert!(v.trash().join("files").is_dir() && v.trash().join("info").is_dir());
}

#[test]
fn unsafe_entries_are_listed_as_such_and_can_be_restored_to_a_chosen_folder() {
    let v = Volume::new();
    v.entry(b"up", "../../etc/x", Some("up"));
    v.entry(b"ok", "sub/ok", Some("fine"));
    let listed = v.listed();
    let up = listed.iter().find(|i| i.file == v.in_trash("up")).unwrap();
    let reason = up.unsafe_entry.as_ref().expect("listed as unsafe");
    assert!(reason.to_string().contains(".."), "{reason}");
    let ok = listed.iter().find(|i| i.file == v.in_trash("ok")).unwrap();
    assert!(ok.unsafe_entry.is_none());

    let chosen = v.off.dir("chosen");
    let summary = restore_all(vec![up.restore_to(&chosen), ok.restore_to(&chosen)]);
    assert!(summary.is_complete(), "{summary:#?}");
    assert_eq!(fs::read_to_string(chosen.join("x")).unwrap(), "up");
    assert_eq!(fs::read_to_string(chosen.join("ok")).unwrap(), "fine");
    assert!(v.listed().is_empty());
    let again = restore_all(vec![up.restore_to(&chosen)]);
    assert!(again.failed[0].error.is_not_found(), "{again:#?}");
    let again = restore_all(vec![up.clone()]);
    assert!(
        matches!(*again.failed[0].error, Error::UnsafeTrashEntry { .. }),
        "{again:#?}"
    );
}

#[test]
fn a_volume_trash_keeps_paths_relative_to_the_top_and_reads_absolute_ones_too() {
    let tree = TempTree::new_in("/dev/shm");
    let Some((mount, roots, path)) = super::trash::a_volume_with_a_file(&tree, "on the volume")
    else {
        return;
    };
    let out = run_job(Job::Trash {
        paths: vec![path.clone()],
        roots: roots.clone(),
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    let info = fs::read_to_string(&out.summary.trash[0].info).unwrap();
    assert!(info.contains("\nPath=d/file\n"), "{info}");
    let trash = mount.dir.join(format!(".Trash-{}", uid()));
    fs::write(trash.join("files/abs"), "absolute").unwrap();
    let body = format!("[Trash Info]\nPath={}/e/abs\n", mount.dir.display());
    fs::write(trash.join("info/abs.trashinfo"), body).unwrap();

    let listed = list_trash_in(&roots).unwrap();
    let mut originals: Vec<PathBuf> = listed.iter().map(|i| i.original.clone()).collect();
    originals.sort();
    assert_eq!(originals, [path.clone(), mount.dir.join("e/abs")]);
    assert!(restore_all(listed).is_complete());
    assert_eq!(fs::read_to_string(&path).unwrap(), "on the volume");
    assert_eq!(
        fs::read_to_string(mount.dir.join("e/abs")).unwrap(),
        "absolute"
    );
}

#[test]
fn the_cli_lists_unsafe_entries_refuses_them_and_restores_them_to_a_chosen_folder() {
    let tree = TempTree::new_in("/dev/shm");
    let Some(mount) = Mounted::tmpfs(&tree.join("vol"), "4m") else {
        return;
    };
    let home = tree.dir("home");
    let trash = mount.dir.join(format!(".Trash-{}", uid()));
    for sub in ["files", "info"] {
        fs::create_dir_all(trash.join(sub)).unwrap();
    }
    fs::write(trash.join("files/up"), "up").unwrap();
    fs::write(
        trash.join("info/up.trashinfo"),
        "[Trash Info]\nPath=../up\n",
    )
    .unwrap();
    let out = ferry_in(&home).arg("restore").output().unwrap();
    let listing = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = listing
        .lines()
        .find(|l| {
            l.contains("unsafe entry") && l.contains(&*mount.dir.join("../up").to_string_lossy())
        })
        .unwrap_or_else(|| panic!("not listed as unsafe:\n{listing}"));
    let index = line.split_whitespace().next().unwrap().to_owned();

    let out = ferry_in(&home)
        .args(["restore", "--index", &index])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("unsafe") && stderr.contains("--to"),
        "{stderr}"
    );
    assert!(!tree.join("up").exists());

    let chosen = tree.dir("chosen");
    let out = ferry_in(&home)
        .args(["restore", "--index", &index, "--to"])
        .arg(&chosen)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(fs::read_to_string(chosen.join("up")).unwrap(), "up");
    assert!(!trash.join("info/up.trashinfo").exists());
}

/// Issue 9: a `ferry trash` killed between writing an item's info file and moving the item
/// leaves an info file without its item: never listed, never "restored".
#[test]
fn a_trash_killed_after_its_info_file_leaves_no_phantom_item() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let victim = tree.file("w/victim", "still here");
    // SIGKILL, with the info file written and the item not moved.
    let out = ferry_in(&home)
        .env("FERRY_FAULT_POINT", "trash-info-written")
        .arg("trash")
        .arg(&victim)
        .output()
        .unwrap();
    assert_eq!(out.status.signal(), Some(9), "killed at the fault point");
    let info_dir = home.join("data/Trash/info");
    assert_eq!(
        fs::read_dir(&info_dir).unwrap().count(),
        1,
        "the info file is there"
    );

    let roots = TrashRoots::home_only(home.join("data/Trash"));
    assert!(list_trash_in(&roots).unwrap().is_empty());
    // (The command line lists every volume's trash too: look for this item only.)
    let out = ferry_in(&home).arg("restore").output().unwrap();
    let listing = String::from_utf8_lossy(&out.stdout);
    assert!(!listing.contains(&*victim.to_string_lossy()), "{listing}");
    let out = ferry_in(&home)
        .arg("restore")
        .arg(&victim)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "not in the trash");
    assert_eq!(fs::read_to_string(&victim).unwrap(), "still here");
}

#[test]
fn a_trash_folder_leading_elsewhere_is_neither_listed_nor_emptied() {
    let v = Volume::new();
    let victim = v.off.dir("victim");
    fs::write(victim.join("precious"), "keep me").unwrap();
    let files = v.trash().join("files");
    fs::remove_dir(&files).unwrap();
    std::os::unix::fs::symlink(&victim, &files).unwrap();
    v.entry(b"precious", "precious", None);

    assert!(v.listed().is_empty());
    let out = run_job(Job::EmptyTrash {
        roots: v.roots,
        listed: None,
    });
    assert!(!out.cancelled);
    assert_eq!(
        fs::read_to_string(victim.join("precious")).unwrap(),
        "keep me"
    );
}

#[test]
fn info_files_that_are_not_files_or_too_large_are_not_read() {
    let v = Volume::new();
    let info = v.trash().join("info");
    fs::write(v.in_trash("fifo"), "f").unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        info.join("fifo.trashinfo"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    fs::write(v.in_trash("huge"), "h").unwrap();
    let mut body = b"[Trash Info]\nPath=sub/huge\n".to_vec();
    body.resize(1 << 20, b'#');
    fs::write(info.join("huge.trashinfo"), body).unwrap();
    fs::write(v.in_trash("linked"), "l").unwrap();
    fs::write(
        v.off.join("elsewhere.trashinfo"),
        "[Trash Info]\nPath=sub/linked\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(
        v.off.join("elsewhere.trashinfo"),
        info.join("linked.trashinfo"),
    )
    .unwrap();
    v.entry(b"fine", "sub/fine", Some("fine"));

    // Their items are listed where they are, as items no readable info file describes:
    // nothing is read from those info files.
    let listed = v.listed();
    let (fine, unread): (Vec<_>, Vec<_>) = listed.iter().partition(|i| i.name == "fine");
    assert_eq!(fine.len(), 1);
    assert_eq!(fine[0].unsafe_entry, None);
    let mut names: Vec<&OsStr> = unread.iter().map(|i| i.name.as_os_str()).collect();
    names.sort();
    assert_eq!(names, ["fifo", "huge", "linked"]);
    for item in unread {
        assert_eq!(item.unsafe_entry, Some(UnsafeEntry::BrokenInfo));
        assert_eq!(item.original, item.file);
    }
}
