//! Names on a file system that takes two spellings for one (FAT through `fusefat`, as on a
//! USB stick): `Notes.txt` and `notes.txt` of one copied folder, and a rename that changes
//! only the case. Root only (mounting); skipped with a note where the tools are missing.

use std::ffi::OsStr;
use std::fs;

use ferry_tests::TempTree;

use super::ferry_in;
use super::metadata_refused::Fuse;
use super::symlink_jobs::names as names_in;

/// Two files of one folder whose names FAT takes for one: the second fails, naming the
/// first, with exit status 1, whatever the policy (a skip "as it exists" would lose it
/// without a word: its name seems free in every listing). Keep both gives it a free name.
#[test]
fn names_a_fat_disk_takes_for_one_fail_naming_both() {
    let tree = TempTree::new();
    let Some(fat) = Fuse::fat(&tree) else {
        return;
    };
    let home = tree.dir("home");
    tree.file("src/d/Notes.txt", "upper");
    tree.file("src/d/notes.txt", "lower");
    let src = tree.join("src/d");
    // Each policy onto a new folder, and again onto the copy there: the pair meets its own
    // copy, and replacing that with the other spelling would lose one of the two.
    let runs = [
        ("skip", true),
        ("skip", false),
        ("replace", false),
        ("replace", true),
        ("keep-both", true),
    ];
    for (policy, fresh) in runs {
        if fresh {
            let _ = fs::remove_dir_all(fat.dir.join("d"));
        }
        let out = ferry_in(&home)
            .args(["cp", "--on-conflict", policy])
            .arg(&src)
            .arg(&fat.dir)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let names = names_in(&fat.dir.join("d"));
        if policy == "keep-both" {
            assert_eq!(out.status.code(), Some(0), "{stderr}");
            assert_eq!(names.len(), 2, "{names:?}");
            let bodies: Vec<_> = names
                .iter()
                .map(|n| fs::read_to_string(fat.dir.join("d").join(n)).unwrap())
                .collect();
            assert!(bodies.contains(&"upper".into()) && bodies.contains(&"lower".into()));
            continue;
        }
        assert_eq!(out.status.code(), Some(1), "{policy} {fresh}: {stderr}");
        assert!(
            stderr.contains("does not tell the two names apart"),
            "{stderr}"
        );
        assert_eq!(names.len(), 1, "{names:?}");
        let kept = fat.dir.join("d").join(&names[0]);
        let other = if names[0] == "Notes.txt" {
            "notes.txt"
        } else {
            "Notes.txt"
        };
        let expected = format!(
            "{} is taken by {}",
            fat.dir.join("d").join(other).display(),
            kept.display()
        );
        assert!(stderr.contains(&expected), "{policy}: {stderr}");
    }
    // The pair given as two sources: the second fails, whether the name is there or not.
    for policy in ["replace", "skip"] {
        let out = ferry_in(&home)
            .args(["cp", "--on-conflict", policy])
            .args([src.join("Notes.txt"), src.join("notes.txt")])
            .arg(fat.dir.join("d"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{policy}: {stderr}");
        assert!(
            stderr.contains("does not tell the two names apart"),
            "{stderr}"
        );
    }
}

/// `mv Photo.JPG photo.jpg` on FAT renames (through a temporary name: the disk takes the
/// two for one), and undo gives the old spelling back.
#[test]
fn a_rename_that_changes_only_the_case_renames_on_a_fat_disk() {
    let tree = TempTree::new();
    let Some(fat) = Fuse::fat(&tree) else {
        return;
    };
    let home = tree.dir("home");
    fs::write(fat.dir.join("Photo.JPG"), "pixels").unwrap();
    let listed = || names_in(&fat.dir);
    let ferry = |args: &[&OsStr]| {
        let out = ferry_in(&home).args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    };
    let (from, to) = (fat.dir.join("Photo.JPG"), fat.dir.join("photo.jpg"));
    ferry(&[OsStr::new("mv"), from.as_os_str(), to.as_os_str()]);
    assert_eq!(listed(), ["photo.jpg"]);
    assert_eq!(fs::read(&to).unwrap(), b"pixels");
    ferry(&[OsStr::new("undo")]);
    assert_eq!(listed(), ["Photo.JPG"]);
    assert_eq!(fs::read(&from).unwrap(), b"pixels");
}

/// A folder's view kept current by its watcher drops the old spelling of a renamed item:
/// on FAT the old name still opens the file, and only the listing says it is gone.
#[test]
fn the_view_of_a_fat_folder_drops_the_old_spelling_of_a_renamed_item() {
    use std::os::fd::AsFd;
    let tree = TempTree::new();
    let Some(fat) = Fuse::fat(&tree) else {
        return;
    };
    fs::write(fat.dir.join("Photo.JPG"), "pixels").unwrap();
    let mut listing = ferry_core::lister::list_all(&fat.dir).unwrap();
    fs::rename(fat.dir.join("Photo.JPG"), fat.dir.join("photo.jpg")).unwrap();
    let names = ["Photo.JPG", "photo.jpg"]
        .map(std::ffi::OsString::from)
        .into();
    let fd = ferry_core::lister::open_dir(&fat.dir).unwrap();
    ferry_core::watch::apply_changes(&mut listing, fd.as_fd(), &names);
    let shown: Vec<_> = listing.iter().map(|e| e.name().to_owned()).collect();
    assert_eq!(shown, ["photo.jpg"]);
}

/// A FUSE disk that stops answering (its server stopped, as a busy or dead `fusefat` is):
/// the Trash view's reading waited on it for good, showing "Reading the trash…". Such a disk
/// is looked at for two seconds, then left out.
#[test]
fn a_fuse_disk_that_stops_answering_leaves_the_trash_readable() {
    let tree = TempTree::new();
    let Some(fat) = Fuse::fat(&tree) else {
        return;
    };
    let image = tree.join("fat.img");
    let found = std::process::Command::new("pgrep")
        .arg("-f")
        .arg(format!("fusefat.*{}", image.display()))
        .output()
        .unwrap();
    let Some(pid) = String::from_utf8_lossy(&found.stdout)
        .lines()
        .next()
        .and_then(|p| p.trim().parse::<i32>().ok())
    else {
        eprintln!("note: the fusefat process was not found; skipped");
        return;
    };
    let server = rustix::process::Pid::from_raw(pid).unwrap();
    rustix::process::kill_process(server, rustix::process::Signal::STOP).unwrap();
    let roots = ferry_core::jobs::TrashRoots {
        home: tree.join("home-trash"),
        volumes: ferry_core::jobs::Volumes::All,
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(ferry_core::jobs::list_trash_in(&roots).is_ok());
    });
    let answered = rx.recv_timeout(std::time::Duration::from_secs(10));
    rustix::process::kill_process(server, rustix::process::Signal::CONT).unwrap();
    // The look left waiting on the disk ends now; until it has, the disk is busy and would
    // stay mounted when the test ends (Fuse's drop tries once).
    for _ in 0..50 {
        let unmounted = std::process::Command::new("fusermount")
            .arg("-u")
            .arg(&fat.dir)
            .status()
            .is_ok_and(|s| s.success());
        if unmounted {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(
        answered,
        Ok(true),
        "the trash was read without the stopped disk"
    );
}
