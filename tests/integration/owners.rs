//! Owners and groups kept as `cp -a` and `mv` keep them: as root, a copy and a move across file
//! systems leave every item its owner and group, and set-id bits with them; anyone else gets
//! copies of their own, without a word.

use std::fs;
use std::os::unix::fs::{MetadataExt, lchown};
use std::path::Path;

use ferry_tests::TempTree;

use crate::jobs_support::chmod;
use crate::undo::ok;
use crate::{ferry_in, run_ferry_unprivileged};

const NOBODY: u32 = 65534;

/// Owner, group and mode bits of `path` itself.
fn whose(path: &Path) -> (u32, u32, u32) {
    let m = fs::symlink_metadata(path).unwrap();
    (m.uid(), m.gid(), m.mode() & 0o7777)
}

/// `ferry cp src dest` run as user 65534 in group 100 (`users`); asserts it succeeded.
fn copy_as_member_of_users(src: &Path, dest: &Path) {
    let out = crate::isolate(&mut std::process::Command::new("setpriv"))
        .args(["--reuid=65534", "--regid=65534", "--groups=100"])
        .arg(env!("CARGO_BIN_EXE_ferry-under-test"))
        .arg("cp")
        .arg(src)
        .arg(dest)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{said}");
}

fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// A folder of items of other owners, with set-id bits: name and expected `whose`.
fn others_tree(t: &TempTree) -> Vec<(&'static str, (u32, u32, u32))> {
    let src = t.dir("src");
    t.file("src/setuid", "x");
    t.file("src/group-only", "y");
    t.symlink("src/link", "setuid");
    rustix::fs::mknodat(
        rustix::fs::CWD,
        src.join("pipe"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let items = [
        ("", (NOBODY, NOBODY, 0o2775)),
        ("setuid", (NOBODY, NOBODY, 0o4755)),
        ("group-only", (0, NOBODY, 0o2640)),
        ("pipe", (NOBODY, 0, 0o640)),
    ];
    for (name, (uid, gid, mode)) in items {
        let path = src.join(name);
        lchown(&path, Some(uid), Some(gid)).unwrap();
        chmod(&path, mode);
    }
    lchown(src.join("link"), Some(NOBODY), Some(NOBODY)).unwrap();
    let link_mode = whose(&src.join("link")).2;
    let mut all = items.to_vec();
    all.push(("link", (NOBODY, NOBODY, link_mode)));
    all
}

#[test]
fn root_keeps_owners_and_set_id_bits_on_a_copy_and_a_move_across_file_systems() {
    if !is_root() {
        eprintln!("note: not root; only root can give a copy another owner");
        return;
    }
    let t = TempTree::new();
    let home = t.dir("home");
    let items = others_tree(&t);
    let dest = t.dir("dest");
    ok(&ferry_in(&home)
        .arg("cp")
        .arg(t.join("src"))
        .arg(&dest)
        .output()
        .unwrap());
    for (name, expected) in &items {
        assert_eq!(
            whose(&dest.join("src").join(name)),
            *expected,
            "copy of {name:?}"
        );
    }
    let shm = TempTree::new_in("/dev/shm");
    if fs::metadata(shm.path()).unwrap().dev() == fs::metadata(t.path()).unwrap().dev() {
        eprintln!("note: /dev/shm is on the test tree's file system; no move across them");
        return;
    }
    let out = ferry_in(&home)
        .arg("mv")
        .arg(t.join("src"))
        .arg(shm.path())
        .output();
    ok(&out.unwrap());
    assert!(!t.join("src").exists(), "moved");
    for (name, expected) in &items {
        assert_eq!(
            whose(&shm.path().join("src").join(name)),
            *expected,
            "move of {name:?}"
        );
    }
}

#[test]
fn anyone_else_gets_copies_of_their_own_without_a_word() {
    if !is_root() {
        eprintln!("note: not root; cannot run a copy as another user here");
        return;
    }
    let t = TempTree::new();
    let file = t.file("open/setuid", "x");
    chmod(&file, 0o4755);
    chmod(&t.join("open"), 0o755);
    let dest = t.dir("dest");
    lchown(&dest, Some(NOBODY), Some(NOBODY)).unwrap();
    chmod(t.path(), 0o755);
    let out = run_ferry_unprivileged(["cp".as_ref(), file.as_os_str(), dest.as_os_str()]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        !said.contains("note"),
        "a copy of one's own is no news: {said}"
    );
    assert_eq!(
        whose(&dest.join("setuid")),
        (NOBODY, NOBODY, 0o755),
        "root's set-user-id does not pass to a copy of another user"
    );

    // A group the user is in passes to the copy, set-group-id bit and all.
    const USERS: u32 = 100;
    let shared = t.file("open/shared", "s");
    lchown(&shared, None, Some(USERS)).unwrap();
    chmod(&shared, 0o2644);
    copy_as_member_of_users(&shared, &dest);
    assert_eq!(whose(&dest.join("shared")), (NOBODY, USERS, 0o2644));
}

/// A set-group-id folder gives what is created in it its group; `cp -a` then gives each copy
/// its source's group where it may, and a folder made there keeps the bit. So does Ferry, as
/// root and as a user (of the folder's group) copying their own files.
#[test]
fn a_set_group_id_folder_gives_its_group_only_where_cp_a_would() {
    if !is_root() {
        eprintln!("note: not root; cannot make a folder of another group here");
        return;
    }
    const USERS: u32 = 100;
    let t = TempTree::new();
    let home = t.dir("home");
    chmod(t.path(), 0o755);
    let src = t.dir("src");
    t.file("src/f", "x");
    t.file("src/sub/g", "y");
    t.symlink("src/l", "f");
    t.fifo("src/p");
    chmod(&src, 0o755);
    chmod(&src.join("sub"), 0o755);
    let shared = t.dir("shared");
    lchown(&shared, None, Some(USERS)).unwrap();
    chmod(&shared, 0o2777);
    let names = ["", "f", "sub", "sub/g", "l", "p"];
    let groups = |root: &Path| -> Vec<(u32, bool)> {
        let group_of = |name| {
            let m = fs::symlink_metadata(root.join(name)).unwrap();
            (m.gid(), m.is_dir() && m.mode() & 0o2000 != 0)
        };
        names.iter().map(group_of).collect()
    };
    // As root: root's files stay root's, in folders that keep the bit.
    ok(&ferry_in(&home)
        .arg("cp")
        .arg(&src)
        .arg(&shared)
        .output()
        .unwrap());
    let expected = [
        (0, true),
        (0, false),
        (0, true),
        (0, false),
        (0, false),
        (0, false),
    ];
    assert_eq!(groups(&shared.join("src")), expected);

    // As a user of the folder's group: the user's own group, given back.
    for name in names {
        lchown(src.join(name), Some(NOBODY), Some(NOBODY)).unwrap();
    }
    let mine = t.dir("shared/mine");
    chmod(&mine, 0o2777);
    copy_as_member_of_users(&src, &mine);
    let theirs = expected.map(|(_, bit)| (NOBODY, bit));
    assert_eq!(groups(&mine.join("src")), theirs);
}
