//! The Places sidebar's data through the public API, as the window uses it: a home with user
//! folders and bookmarks, a mount table with a volume whose trash holds something, the
//! bookmark edits, and the place highlighted for a folder.
//!
//! Never the user's home: the environment is a [`PlacesEnv`] inside a temporary folder, and
//! the volume is a folder under the target directory given its own line in a mount table.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::time::Duration;

use ferry_core::fs::MountTable;
use ferry_core::jobs::{TrashRoots, Volumes};
use ferry_core::places::{
    PlaceId, Places, PlacesEnv, StandardKind, Status, Target, add_bookmark, remove_bookmark,
};

fn env_in(root: &Path, volume: &Path) -> PlacesEnv {
    let home = root.join("home");
    PlacesEnv {
        config_home: home.join(".config"),
        trash: TrashRoots {
            home: home.join(".local/share/Trash"),
            volumes: Volumes::Only(vec![volume.to_path_buf()]),
        },
        home,
        probe_timeout: Duration::from_secs(30),
    }
}

/// Where the fake volume goes: the target directory's scratch folder, unless the checkout
/// itself is under a system folder such as /tmp (the sidebar shows no mount there), then the
/// home folder.
fn volume_base() -> std::path::PathBuf {
    const SYSTEM: &[&str] = &[
        "/boot", "/dev", "/efi", "/etc", "/proc", "/run", "/snap", "/sys", "/tmp", "/usr", "/var",
    ];
    let target = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    if SYSTEM.iter().any(|s| target.starts_with(s)) {
        std::env::home_dir().expect("a home folder")
    } else {
        target
    }
}

#[test]
fn the_sidebar_lists_folders_bookmarks_volumes_and_the_trash() {
    let root = tempfile::tempdir().unwrap();
    // Not under /tmp, a system folder, nor hidden (`.tmpXXXX`): mounts there are not shown.
    let volume = tempfile::Builder::new()
        .prefix("places-volume-")
        .tempdir_in(volume_base())
        .unwrap();
    let env = env_in(root.path(), volume.path());
    fs::create_dir_all(&env.config_home).unwrap();
    fs::write(
        env.config_home.join("user-dirs.dirs"),
        "XDG_DOWNLOAD_DIR=\"$HOME/Downloads\"\nXDG_DESKTOP_DIR=\"$HOME/\"\n",
    )
    .unwrap();
    fs::create_dir_all(env.home.join("Downloads")).unwrap();
    fs::create_dir_all(env.home.join("Desktop")).unwrap();
    assert!(add_bookmark(&env, volume.path(), Some("Stick")).unwrap());

    let uid = rustix::process::getuid().as_raw();
    let mountinfo = [
        b"1 0 254:0 / / rw - ext4 /dev/vda rw\n9 1 0:77 / ".as_slice(),
        volume.path().as_os_str().as_bytes(),
        b" ro - vfat /dev/sdz1 rw\n",
    ]
    .concat();
    let mounts = MountTable::parse(&mountinfo);

    let places = Places::load_with(&env, &mounts);
    let kinds: Vec<_> = places.standard.iter().map(|p| p.kind).collect();
    assert_eq!(kinds, [StandardKind::Home, StandardKind::Downloads]);
    assert_eq!(places.bookmarks.len(), 1);
    assert_eq!(places.bookmarks[0].bookmark.name(), "Stick");
    assert_eq!(places.bookmarks[0].status, Status::Present);
    assert_eq!(places.volumes.len(), 2);
    let stick = &places.volumes[1];
    assert!(stick.read_only && stick.responding && !stick.network);
    assert_eq!(
        stick.name().unwrap(),
        volume.path().file_name().unwrap().to_string_lossy()
    );
    assert!(stick.space.is_some_and(|s| s.total > 0));
    assert!(!places.trash_full);
    assert_eq!(
        places.best_for(&env.home.join("Downloads/film.mkv")),
        Some(PlaceId::Standard(1))
    );
    // The bookmark and the volume have one folder: the bookmark comes first.
    assert_eq!(
        places.best_for(&volume.path().join("photos")),
        Some(PlaceId::Bookmark(0))
    );

    fs::create_dir_all(volume.path().join(format!(".Trash-{uid}/files/old.txt"))).unwrap();
    let bookmark = places.bookmarks[0].bookmark.clone();
    assert_eq!(bookmark.target, Target::Local(volume.path().to_path_buf()));
    assert!(remove_bookmark(&env, &bookmark).unwrap());
    let places = Places::load_with(&env, &mounts);
    assert!(places.trash_full, "the volume's trash holds something");
    assert!(places.bookmarks.is_empty());
    assert_eq!(
        places.best_for(&volume.path().join("photos")),
        Some(PlaceId::Volume(1))
    );
    assert_eq!(fs::read(env.bookmarks_file()).unwrap(), b"");
}
