//! Each file system's own trash folder (`.Trash-$uid`, private to its user): a tmpfs of its
//! own, a btrfs subvolume below its mount point, one folder seen through two mounts, a disk
//! with no trash in use, and mount points left alone.

use std::fs;
use std::path::Path;
use std::sync::Arc;

use ferry_core::Error;
use ferry_core::jobs::{Job, TrashRoots, Volumes, list_trash_in};
use ferry_tests::TempTree;

use super::jobs_support::{Mounted, run_job};
use super::trash::{mode, read, restore, trash, trash_contents};

#[test]
fn an_item_without_a_trash_on_its_file_system_fails_offering_permanent_delete() {
    let tree = TempTree::new();
    let shm = TempTree::new_in("/dev/shm");
    let roots = TrashRoots::home_only(tree.join("Trash"));
    let path = shm.file("stays", "here");
    let summary = trash(std::slice::from_ref(&path), &roots);
    assert!(summary.done.is_empty());
    let error = &summary.failed[0].error;
    assert!(matches!(**error, Error::CannotTrash { .. }), "{error:?}");
    assert!(error.to_string().contains("deleted permanently"), "{error}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "here");
    assert!(!shm.path().join(".Trash-0").exists());
}

#[test]
fn a_volume_gets_its_own_private_trash_folder() {
    let tree = TempTree::new();
    let Some((mount, roots, path)) = super::trash::a_volume_with_a_file(&tree, "on tmpfs") else {
        return;
    };
    let summary = trash(std::slice::from_ref(&path), &roots);
    assert!(summary.is_complete(), "{summary:#?}");
    let uid = rustix::process::getuid().as_raw();
    let vol_trash = mount.dir.join(format!(".Trash-{uid}"));
    for dir in [
        &vol_trash,
        &vol_trash.join("files"),
        &vol_trash.join("info"),
    ] {
        assert_eq!(mode(dir), 0o700, "{}", dir.display());
    }
    assert_eq!(summary.trash[0].file, vol_trash.join("files/file"));
    let listed = list_trash_in(&roots).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].original, path);
    assert!(restore(listed).is_complete());
    assert_eq!(fs::read_to_string(&path).unwrap(), "on tmpfs");
    assert!(trash_contents(&vol_trash).is_empty());
}

/// The home trash is needed only for what is on its disk: with it unusable (here a file in
/// its place; for a user, a home they cannot write), an item on another disk still goes to
/// that disk's trash.
#[test]
fn an_item_on_a_volume_is_trashed_there_when_the_home_trash_cannot_be_had() {
    let tree = TempTree::new();
    let Some((mount, roots, path)) = super::trash::a_volume_with_a_file(&tree, "on tmpfs") else {
        return;
    };
    tree.file("home/Trash", "not a folder");
    let summary = trash(std::slice::from_ref(&path), &roots);
    assert!(summary.is_complete(), "{summary:#?}");
    let uid = rustix::process::getuid().as_raw();
    let vol_trash = mount.dir.join(format!(".Trash-{uid}"));
    assert_eq!(summary.trash[0].file, vol_trash.join("files/file"));
    // What is on the home disk cannot go anywhere, and says why.
    let home_file = tree.file("w/f", "f");
    let summary = trash(std::slice::from_ref(&home_file), &roots);
    assert!(!summary.failed.is_empty(), "{summary:#?}");
    assert_eq!(read(&home_file), "f");
}

/// A disk with no inode left for its trash folder: said as such, never as a disk "with no
/// trash Ferry can use", which offered to delete the item for good instead.
#[test]
fn a_disk_with_no_room_for_its_trash_folder_says_so() {
    let tree = TempTree::new();
    let Some(mount) = Mounted::tmpfs_inodes(&tree.join("vol"), "4m", 3) else {
        return;
    };
    let path = mount.dir.join("file");
    fs::write(&path, "kept").unwrap();
    fs::write(mount.dir.join("fills"), "the last inode").unwrap();
    let roots = TrashRoots {
        home: tree.join("home/Trash"),
        volumes: Volumes::Only(vec![mount.dir.clone()]),
    };
    let summary = trash(std::slice::from_ref(&path), &roots);
    let error = &summary.failed[0].error;
    assert!(!matches!(**error, Error::CannotTrash { .. }), "{error:?}");
    assert!(
        error.to_string().contains("no room for more files"),
        "{error}"
    );
    assert_eq!(read(&path), "kept");
}

/// A disk that runs out of inodes part way through a batch: the items whose info files were
/// written move (there was room for them), the job stops there, and no info file is left
/// without its item. (Once, the items claimed in the batch were all given back.)
#[test]
fn a_disk_out_of_inodes_part_way_trashes_what_had_room() {
    let tree = TempTree::new();
    let Some(mount) = Mounted::tmpfs_inodes(&tree.join("vol"), "4m", 24) else {
        return;
    };
    let paths: Vec<_> = (0..12)
        .map(|i| {
            let path = mount.dir.join(format!("f{i:02}"));
            fs::write(&path, format!("{i}")).unwrap();
            path
        })
        .collect();
    let roots = TrashRoots {
        home: tree.join("home/Trash"),
        volumes: Volumes::Only(vec![mount.dir.clone()]),
    };
    let summary = trash(&paths, &roots);
    assert!(!summary.done.is_empty(), "{summary:#?}");
    assert!(
        !summary.failed.is_empty(),
        "it ran out of inodes: {summary:#?}"
    );
    let trash_dir = mount.dir.join(".Trash-0");
    let count = |dir: &str| fs::read_dir(trash_dir.join(dir)).unwrap().count();
    assert_eq!(count("files"), summary.done.len());
    assert_eq!(
        count("info"),
        summary.done.len(),
        "an info file for each, no more"
    );
    for (i, path) in paths.iter().enumerate() {
        if !summary.done.contains(path) {
            assert_eq!(read(path), i.to_string());
        }
    }
}

/// A btrfs subvolume below its mount point has a device of its own and a rename cannot leave
/// it: its items go to the trash at its own top (as GLib puts them), which listing, restoring
/// and emptying find although no mount lists it. Before, they were refused as "on another
/// file system" and offered for a permanent delete. A subvolume itself renames within the
/// folder it is in, so one in the home folder goes to the home trash.
#[test]
fn an_item_in_a_btrfs_subvolume_goes_to_the_trash_at_the_subvolumes_top() {
    let shm = TempTree::new_in("/dev/shm");
    let Some(mnt) = Mounted::btrfs(&shm) else {
        return;
    };
    let subvolume = Mounted::subvolume;
    fs::create_dir(mnt.dir.join("home")).unwrap();
    let sv = mnt.dir.join("home/projects");
    subvolume(&sv);
    subvolume(&mnt.dir.join("home/scratch"));
    let file = sv.join("src/main.rs");
    fs::create_dir(sv.join("src")).unwrap();
    fs::write(&file, "fn main() {}").unwrap();
    let roots = TrashRoots {
        home: mnt.dir.join("home/.local/share/Trash"),
        volumes: Volumes::Only(vec![mnt.dir.clone()]),
    };
    let scratch = mnt.dir.join("home/scratch");
    let summary = trash(&[file.clone(), scratch.clone()], &roots);
    assert!(summary.is_complete(), "{summary:#?}");
    let uid = rustix::process::getuid().as_raw();
    let sv_trash = sv.join(format!(".Trash-{uid}"));
    assert_eq!(summary.trash[0].file, sv_trash.join("files/main.rs"));
    assert_eq!(summary.trash[1].file, roots.home.join("files/scratch"));
    assert_eq!(mode(&sv_trash), 0o700);
    // The info file holds the path from the subvolume's top, as a volume's trash does.
    let info = fs::read_to_string(sv_trash.join("info/main.rs.trashinfo")).unwrap();
    assert!(info.contains("\nPath=src/main.rs\n"), "{info}");

    let listed = list_trash_in(&roots).unwrap();
    let originals: Vec<&Path> = listed.iter().map(|i| i.original.as_path()).collect();
    assert_eq!(originals.len(), 2, "{listed:#?}");
    assert!(originals.contains(&file.as_path()) && originals.contains(&scratch.as_path()));
    let (back, rest): (Vec<_>, Vec<_>) = listed.into_iter().partition(|i| i.original == file);
    assert!(restore(back).is_complete());
    assert_eq!(fs::read_to_string(&file).unwrap(), "fn main() {}");
    assert!(trash_contents(&sv_trash).is_empty());

    fs::write(sv.join("old.log"), "old").unwrap();
    assert!(trash(&[sv.join("old.log")], &roots).is_complete());
    assert_eq!(rest.len(), 1);
    let out = run_job(Job::EmptyTrash {
        roots: roots.clone(),
        listed: None,
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert!(list_trash_in(&roots).unwrap().is_empty());
    assert!(trash_contents(&sv_trash).is_empty() && trash_contents(&roots.home).is_empty());
    assert!(!scratch.exists());
}

/// One trash folder reached through two mounts (here a bind mount; a btrfs subvolume
/// mounted on its own as well is another) is listed once. It was listed under both, each
/// item twice, and a restore of everything failed for the second copies.
#[test]
fn a_trash_folder_seen_through_two_mounts_is_listed_once() {
    let tree = TempTree::new();
    let Some(mount) = Mounted::tmpfs(&tree.join("vol"), "4m") else {
        return;
    };
    let vol = mount.dir.to_str().unwrap().to_owned();
    let Some(bound) = Mounted::new(&tree.join("again"), &["--bind", &vol]) else {
        return;
    };
    let roots = TrashRoots {
        home: tree.join("home/Trash"),
        volumes: Volumes::Only(vec![mount.dir.clone(), bound.dir.clone()]),
    };
    let path = tree.file("vol/f", "once");
    assert!(trash(std::slice::from_ref(&path), &roots).is_complete());
    let listed = list_trash_in(&roots).unwrap();
    assert_eq!(listed.len(), 1, "{listed:#?}");
    assert!(restore(listed).is_complete());
    assert_eq!(read(&path), "once");
}

/// A folder of the home disk bind-mounted elsewhere: no rename leaves a mount, so the home
/// trash refused what is under it "on another file system" (trash-put and GIO take it).
/// It gets a trash at the mount's top, as another disk does.
#[test]
fn an_item_under_a_bind_mount_of_the_home_disk_goes_to_its_trash() {
    let tree = TempTree::new();
    let source = tree.dir("source");
    let Some(bound) = Mounted::new(&tree.join("bound"), &["--bind", source.to_str().unwrap()])
    else {
        return;
    };
    let roots = TrashRoots {
        home: tree.join("home/Trash"),
        volumes: Volumes::Only(vec![bound.dir.clone()]),
    };
    let path = tree.file("bound/f", "bound");
    let summary = trash(std::slice::from_ref(&path), &roots);
    assert!(summary.is_complete(), "{summary:#?}");
    let uid = rustix::process::getuid().as_raw();
    let bound_trash = bound.dir.join(format!(".Trash-{uid}"));
    assert_eq!(summary.trash[0].file, bound_trash.join("files/f"));
    let listed = list_trash_in(&roots).unwrap();
    assert_eq!(listed.len(), 1, "{listed:#?}");
    assert_eq!(listed[0].original, path);
    assert!(restore(listed).is_complete());
    assert_eq!(read(&path), "bound");
    // What is on the home disk itself still goes to the home trash.
    let home_file = tree.file("w/f", "home");
    let summary = trash(std::slice::from_ref(&home_file), &roots);
    assert!(summary.is_complete(), "{summary:#?}");
    assert!(summary.trash[0].file.starts_with(tree.join("home/Trash")));
}

/// A home trash that is a link of the user's own to a folder of theirs (kept on another
/// disk): nothing could be trashed ("… is a symbolic link"), and what trash-put had put in
/// it was not listed. It is followed, as trash-put follows it.
#[test]
fn a_home_trash_linked_elsewhere_by_its_user_is_used() {
    let tree = TempTree::new();
    let kept = tree.dir("kept/Trash");
    tree.dir("home");
    std::os::unix::fs::symlink(&kept, tree.join("home/Trash")).unwrap();
    let roots = TrashRoots::home_only(tree.join("home/Trash"));
    let path = tree.file("w/f", "linked");
    let summary = trash(std::slice::from_ref(&path), &roots);
    assert!(summary.is_complete(), "{summary:#?}");
    assert_eq!(summary.trash[0].file, kept.join("files/f"));
    let listed = list_trash_in(&roots).unwrap();
    assert_eq!(listed.len(), 1, "{listed:#?}");
    assert!(restore(listed).is_complete());
    assert_eq!(read(&path), "linked");
    assert!(tree.join("home/Trash").is_symlink(), "the link stays");
    // Neither the link nor a folder holding it goes into the trash it leads to.
    for item in [tree.join("home/Trash"), tree.join("home")] {
        let summary = trash(std::slice::from_ref(&item), &roots);
        assert!(!summary.failed.is_empty(), "{item:?}: {summary:#?}");
        assert!(tree.join("home/Trash").is_symlink());
    }
}

/// Renamed into the trash, a folder holding a mount point took the mounted file system with
/// it, out of sight and beyond what emptying the trash removes; a mount point itself got a
/// trash folder made on the mounted file system before it was refused.
#[test]
fn a_mount_point_and_a_folder_holding_one_are_left_alone() {
    let tree = TempTree::new();
    let Some(mount) = Mounted::tmpfs(&tree.join("outer/mnt"), "1m") else {
        return;
    };
    fs::write(mount.dir.join("data"), "on the mount").unwrap();
    let roots = TrashRoots {
        home: tree.join("home/Trash"),
        volumes: Volumes::Only(vec![mount.dir.clone()]),
    };
    let outer = tree.join("outer");
    let summary = trash(&[outer.clone(), mount.dir.clone()], &roots);
    assert!(summary.done.is_empty(), "{summary:#?}");
    let error = |path: &Path| {
        let failed = summary.failed.iter().find(|f| f.path == path);
        Arc::clone(
            &failed
                .unwrap_or_else(|| panic!("{}: {summary:#?}", path.display()))
                .error,
        )
    };
    let holds = error(&outer);
    assert!(
        matches!(&*holds, Error::HoldsMount { mount: m, .. } if *m == mount.dir),
        "{holds:?}"
    );
    assert!(matches!(*error(&mount.dir), Error::OtherFilesystem { .. }));
    assert_eq!(read(&mount.dir.join("data")), "on the mount");
    let uid = rustix::process::getuid().as_raw();
    assert!(!mount.dir.join(format!(".Trash-{uid}")).exists());
    assert!(trash_contents(&tree.join("home/Trash")).is_empty());
}

/// A volume may hold both of its user's trash folders, `.Trash-$uid` and, once a shared
/// sticky `.Trash` is made, `.Trash/$uid` (both listed): neither is trashed into the other,
/// nor anything in it, whichever the trash now uses.
#[test]
fn a_volumes_other_trash_folder_is_never_trashed() {
    let tree = TempTree::new();
    let Some((mount, roots, path)) = super::trash::a_volume_with_a_file(&tree, "p") else {
        return;
    };
    assert!(trash(std::slice::from_ref(&path), &roots).is_complete());
    let uid = rustix::process::getuid().as_raw();
    let private = mount.dir.join(format!(".Trash-{uid}"));
    let shared = mount.dir.join(".Trash");
    fs::create_dir(&shared).unwrap();
    super::jobs_support::chmod(&shared, 0o1777);
    let q = tree.file("vol/q", "q");
    let summary = trash(std::slice::from_ref(&q), &roots);
    assert_eq!(summary.trash[0].file, shared.join(format!("{uid}/files/q")));
    for inside in [private.join("files/file"), private.clone(), shared] {
        let summary = trash(std::slice::from_ref(&inside), &roots);
        assert!(
            summary.done.is_empty(),
            "{}: {summary:#?}",
            inside.display()
        );
        let error = &summary.failed[0].error;
        assert!(matches!(**error, Error::Refused { .. }), "{error:?}");
        assert!(inside.exists());
    }
    assert_eq!(list_trash_in(&roots).unwrap().len(), 2);
}
