//! The plan's size, and what the planning walk refuses of the sources it is given.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::*;
use crate::jobs::{ConflictPolicy, Engine, Job, StagingRoots, Summary};

#[test]
fn a_planned_item_stays_compact() {
    // 1,000,000 items: 80 MB of records, plus names and 8 bytes of result each.
    assert!(
        std::mem::size_of::<Item>() <= 80,
        "{}",
        std::mem::size_of::<Item>()
    );
}

fn run(job: Job) -> Summary {
    let (engine, events) = Engine::start_with(StagingRoots {
        home: None,
        volumes: false,
    });
    crate::jobs::finished(&events, engine.submit(job))
}

/// A tmpfs mounted on `dir` for one test (`None` where this process may not mount).
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path) -> Option<Tmpfs> {
        fs::create_dir_all(dir).unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=1m", "tmpfs"])
            .arg(dir)
            .status()
            .is_ok_and(|s| s.success());
        if !mounted {
            eprintln!("note: cannot mount a tmpfs here; test skipped");
        }
        mounted.then(|| Tmpfs(dir.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

fn failed_with<'a>(summary: &'a Summary, path: &Path) -> &'a crate::Error {
    let failed = summary.failed.iter().find(|f| f.path == path);
    &failed
        .unwrap_or_else(|| panic!("{} did not fail: {summary:#?}", path.display()))
        .error
}

/// Across file systems (a tmpfs of its own against `/dev/shm`), as the move that emptied a
/// mounted file system before failing on its mount point with `EBUSY`.
#[test]
fn a_move_takes_no_mount_point_given_or_found_below_a_source() {
    let tmp = tempfile::tempdir_in("/dev/shm").unwrap();
    let dest = tmp.path().join("dest");
    fs::create_dir(&dest).unwrap();
    let src = tempfile::tempdir().unwrap(); // on another file system than the destination
    let Some(mounted) = Tmpfs::mount(&src.path().join("mounted")) else {
        return;
    };
    fs::write(mounted.0.join("data"), "on its own tmpfs").unwrap();
    let holder = src.path().join("holder");
    fs::create_dir(&holder).unwrap();
    fs::write(holder.join("file"), "moved").unwrap();
    let Some(below) = Tmpfs::mount(&holder.join("below")) else {
        return;
    };
    fs::write(below.0.join("data"), "below").unwrap();
    let loose = src.path().join("loose");
    fs::write(&loose, "loose").unwrap();

    let summary = run(Job::Move {
        sources: vec![mounted.0.clone(), holder.clone(), loose.clone()],
        dest_dir: dest.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });

    for path in [&mounted.0, &below.0] {
        let error = failed_with(&summary, path);
        assert!(
            matches!(error, crate::Error::OtherFilesystem { .. }),
            "{error}"
        );
        assert!(error.to_string().contains(&*path.to_string_lossy()));
        assert!(path.join("data").exists(), "{}", path.display());
    }
    assert!(!dest.join("mounted").exists());
    // The folder holding the mount point stays, with it; the rest of it and of the batch moved.
    assert!(holder.is_dir() && !holder.join("file").exists());
    assert_eq!(fs::read(dest.join("holder/file")).unwrap(), b"moved");
    assert_eq!(fs::read(dest.join("loose")).unwrap(), b"loose");
    assert!(!loose.exists());
}

#[test]
fn a_source_written_with_a_final_slash_must_be_a_folder() {
    let tmp = tempfile::tempdir_in("/dev/shm").unwrap();
    let t = tmp.path();
    let file = t.join("file");
    fs::write(&file, "kept").unwrap();
    fs::create_dir_all(t.join("folder/inside")).unwrap();
    fs::write(t.join("folder/inside/f"), "f").unwrap();
    std::os::unix::fs::symlink(t.join("folder"), t.join("link")).unwrap();
    std::os::unix::fs::symlink(&file, t.join("file-link")).unwrap();
    fs::create_dir(t.join("dest")).unwrap();
    fs::write(t.join("gone"), "gone").unwrap();
    let slashed = |name: &str| PathBuf::from(format!("{}/{name}/", t.display()));

    fs::create_dir(t.join("dest2")).unwrap();
    let summary = run(Job::Copy {
        sources: vec![slashed("link")],
        dest_dir: t.join("dest2"),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    assert!(summary.failed.is_empty(), "{summary:#?}");
    // `cp -r link/ dest2` copies the folder behind the link, named as the link: a copy of
    // the link itself (relative, it may point nowhere there) would hold none of the data.
    let copied = t.join("dest2/link");
    assert!(fs::symlink_metadata(&copied).unwrap().is_dir());
    assert_eq!(fs::read(copied.join("inside/f")).unwrap(), b"f");
    let summary = run(Job::Copy {
        sources: vec![slashed("link")],
        dest_dir: t.to_path_buf(),
        dest_name: Some("renamed".into()),
        on_conflict: ConflictPolicy::Skip,
    });
    assert!(summary.failed.is_empty(), "{summary:#?}");
    assert!(fs::symlink_metadata(t.join("renamed")).unwrap().is_dir());
    assert!(t.join("renamed/inside/f").exists());

    let summary = run(Job::Copy {
        sources: vec![slashed("file"), slashed("folder")],
        dest_dir: t.join("dest"),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    let error = failed_with(&summary, &slashed("file"));
    assert_eq!(
        error.to_string(),
        format!(
            "cannot copy {}: Not a directory (os error 20)",
            slashed("file").display()
        )
    );
    assert!(!t.join("dest/file").exists());
    assert!(t.join("dest/folder/inside/f").exists());

    let summary = run(Job::Delete {
        paths: vec![
            slashed("file"),
            slashed("file-link"),
            slashed("link"),
            t.join("gone"),
        ],
    });
    assert_eq!(summary.failed.len(), 2, "{summary:#?}");
    failed_with(&summary, &slashed("file"));
    failed_with(&summary, &slashed("file-link"));
    assert_eq!(fs::read(&file).unwrap(), b"kept");
    assert!(t.join("file-link").exists());
    // The link to a folder goes, never what it points to.
    assert!(t.join("link").symlink_metadata().is_err());
    assert!(t.join("folder/inside/f").exists());
    assert!(!t.join("gone").exists());
}

#[test]
fn a_delete_of_a_path_ending_in_dot_is_refused_as_rm_refuses_it() {
    let tmp = tempfile::tempdir_in("/dev/shm").unwrap();
    let t = tmp.path();
    fs::create_dir_all(t.join("folder/inside")).unwrap();
    fs::write(t.join("folder/inside/f"), "f").unwrap();
    std::os::unix::fs::symlink(t.join("folder"), t.join("link")).unwrap();
    let dotted = ["folder/.", "folder/./", "link/.", "folder/inside/.."]
        .map(|p| PathBuf::from(format!("{}/{p}", t.display())));
    let summary = run(Job::Delete {
        paths: dotted.to_vec(),
    });
    for path in &dotted {
        let said = failed_with(&summary, path).to_string();
        let shown = path.to_string_lossy();
        assert!(said.starts_with("refusing to delete "), "{said}");
        assert!(said.contains(shown.trim_end_matches('/')), "{said}");
    }
    assert!(t.join("folder/inside/f").exists());
    assert!(t.join("link").symlink_metadata().is_ok());
    // A copy takes `folder/.` as the folder, under its name.
    fs::create_dir(t.join("dest")).unwrap();
    let summary = run(Job::Copy {
        sources: vec![dotted[0].clone()],
        dest_dir: t.join("dest"),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    assert!(summary.is_complete(), "{summary:#?}");
    assert!(t.join("dest/folder/inside/f").exists());
}
