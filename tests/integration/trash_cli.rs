//! The trash from the command line: `ferry trash`, `ferry restore` (listing, by path and by
//! index, asking about a taken name, into a folder picked), and the undo and redo of both,
//! each run with `HOME` and `XDG_DATA_HOME` in a temporary folder and restoring only items it
//! trashed itself. What the trash refuses is in `trash_refused.rs`; many items at once in
//! `trash_many.rs`.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;

use ferry_tests::TempTree;

use super::ferry_in;
use super::trash::{read, trash_contents};
use super::undo::ok;

/// `ferry` with its home (and so its home trash) in `home`.
pub(super) fn ferry_at(home: &Path, args: &[&OsStr]) -> std::process::Output {
    ferry_in(home).args(args).output().unwrap()
}

#[test]
fn cli_trashes_lists_and_restores_by_path_and_index() {
    let tree = TempTree::new();
    let home = tree.join("home");
    fs::create_dir(&home).unwrap();
    let a = tree.file("w/a file", "A");
    let b = tree.file(Path::new("w").join(OsStr::from_bytes(b"b\xff")), "B");
    let out = ferry_at(&home, &[OsStr::new("trash"), a.as_os_str(), b.as_os_str()]);
    ok(&out);
    assert!(!a.exists() && !b.exists());
    assert_eq!(trash_contents(&home.join("data/Trash")).len(), 4);

    let out = ferry_at(&home, &[OsStr::new("restore")]);
    assert_eq!(out.status.code(), Some(0));
    let listing = String::from_utf8_lossy(&out.stdout).into_owned();
    let line_of = |p: &Path| {
        listing
            .lines()
            .find(|l| l.ends_with(&*p.to_string_lossy()))
            .unwrap_or_else(|| panic!("{} not listed:\n{listing}", p.display()))
            .to_owned()
    };
    let b_index = line_of(&b).split_whitespace().next().unwrap().to_owned();
    line_of(&a);

    // Indexes are those of the listing: restore by index before anything else changes it.
    let out = ferry_at(
        &home,
        &[
            OsStr::new("restore"),
            OsStr::new("--index"),
            OsStr::new(&b_index),
        ],
    );
    ok(&out);
    let out = ferry_at(&home, &[OsStr::new("restore"), a.as_os_str()]);
    ok(&out);
    assert_eq!(fs::read_to_string(&a).unwrap(), "A");
    assert_eq!(fs::read_to_string(&b).unwrap(), "B");
    assert!(trash_contents(&home.join("data/Trash")).is_empty());

    let out = ferry_at(&home, &[OsStr::new("restore"), a.as_os_str()]);
    assert_eq!(out.status.code(), Some(2), "not in the trash any more");
    let missing = tree.join("w/missing");
    let out = ferry_at(&home, &[OsStr::new("trash"), missing.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
}

/// A restore restores the safe items and leaves out an entry without an info file
/// (naming it), rather than calling its own place in the trash taken and restoring nothing;
/// an item named twice is restored once, not called taken by itself.
#[test]
fn restore_all_leaves_out_an_entry_without_info_and_one_named_twice_is_restored_once() {
    let tree = TempTree::new();
    let home = tree.join("home");
    fs::create_dir(&home).unwrap();
    let (x, y) = (tree.file("w/x", "X"), tree.file("w/y", "Y"));
    ok(&ferry_at(
        &home,
        &[OsStr::new("trash"), x.as_os_str(), y.as_os_str()],
    ));
    let twice = [y.as_os_str(), x.as_os_str(), y.as_os_str()];
    ok(&ferry_at(
        &home,
        &[&[OsStr::new("restore")], &twice[..]].concat(),
    ));
    assert_eq!(
        (fs::read(&x).unwrap(), fs::read(&y).unwrap()),
        (b"X".to_vec(), b"Y".to_vec())
    );
    let orphan = home.join("data/Trash/files/orph");
    fs::write(&orphan, "no info").unwrap();

    ok(&ferry_at(&home, &[OsStr::new("trash"), x.as_os_str()]));
    // Chosen by the path it is listed with, as `--all` would choose it (`--all` would take
    // in the trash folders of other disks too, which tests running beside this one use).
    let chosen = [OsStr::new("restore"), orphan.as_os_str(), x.as_os_str()];
    let out = ferry_at(&home, &chosen);
    let said = String::from_utf8_lossy(&out.stderr);
    // Partly done: the entry left out is not restored.
    assert_eq!(out.status.code(), Some(1), "{said}");
    assert_eq!(fs::read(&x).unwrap(), b"X", "{said}");
    assert!(!said.contains("is taken"), "{said}");
    let left_out = format!("not restoring the unsafe trash entry {}", orphan.display());
    assert!(said.contains(&left_out), "{said}");
    assert!(said.contains("no info file says where it was"), "{said}");
    assert_eq!(fs::read(&orphan).unwrap(), b"no info");
}

#[test]
fn cli_restore_asks_about_a_taken_name() {
    let tree = TempTree::new();
    let home = tree.join("home");
    fs::create_dir(&home).unwrap();
    let a = tree.file("w/a", "old");
    let out = ferry_at(&home, &[OsStr::new("trash"), a.as_os_str()]);
    assert_eq!(out.status.code(), Some(0));
    fs::write(&a, "new").unwrap();
    let in_trash = trash_contents(&home.join("data/Trash"));

    // Without a terminal, `ask` (the default) lists the conflict and restores nothing.
    let out = ferry_at(&home, &[OsStr::new("restore"), a.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&*a.to_string_lossy()) && stderr.contains("nothing written"),
        "{stderr}"
    );
    assert_eq!(read(&a), "new");
    assert_eq!(trash_contents(&home.join("data/Trash")), in_trash);

    let skip = [
        OsStr::new("restore"),
        OsStr::new("--on-conflict"),
        OsStr::new("skip"),
        a.as_os_str(),
    ];
    let out = ferry_at(&home, &skip);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("skipped"), "{stderr}");
    assert_eq!(read(&a), "new");
    assert_eq!(trash_contents(&home.join("data/Trash")), in_trash);

    // `--keep-both` is `--on-conflict keep-both`.
    let keep_both = [
        OsStr::new("restore"),
        OsStr::new("--keep-both"),
        a.as_os_str(),
    ];
    let out = ferry_at(&home, &keep_both);
    ok(&out);
    assert_eq!(read(&a), "new");
    assert_eq!(read(&tree.join("w/a (copy)")), "old");
    assert!(trash_contents(&home.join("data/Trash")).is_empty());
}

/// A restore that replaced is redone as it was done: it replaces again (the redone restore
/// does not skip the taken name and call that done).
#[test]
fn redo_of_a_restore_that_replaced_replaces_again() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let a = tree.file("w/a", "old");
    ok(&ferry_at(&home, &[OsStr::new("trash"), a.as_os_str()]));
    fs::write(&a, "new").unwrap();
    let replace = [
        OsStr::new("restore"),
        OsStr::new("--on-conflict"),
        OsStr::new("replace"),
        a.as_os_str(),
    ];
    ok(&ferry_at(&home, &replace));
    assert_eq!(read(&a), "old");
    ok(&ferry_at(&home, &[OsStr::new("undo")]));
    assert_eq!(read(&a), "new");
    ok(&ferry_at(&home, &[OsStr::new("redo")]));
    assert_eq!(read(&a), "old", "redone as it was done");
    ok(&ferry_at(&home, &[OsStr::new("undo")]));
    assert_eq!(read(&a), "new", "and undone again");
}

/// A redo that finds an item's place taken leaves it there, asking nothing, and says so
/// in its exit status: it exited 0 ("0 done, 1 skipped") where restore and undo do not.
#[test]
fn a_redo_that_finds_a_place_taken_is_partial() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let a = tree.file("w/a", "trashed");
    ok(&ferry_at(&home, &[OsStr::new("trash"), a.as_os_str()]));
    ok(&ferry_at(&home, &[OsStr::new("restore"), a.as_os_str()]));
    ok(&ferry_at(&home, &[OsStr::new("undo")]));
    fs::write(&a, "the user's").unwrap();
    let redo = ferry_at(&home, &[OsStr::new("redo")]);
    let said = String::from_utf8_lossy(&redo.stderr);
    assert_eq!(redo.status.code(), Some(1), "{said}");
    assert!(said.contains("already exists"), "{said}");
    assert_eq!(read(&a), "the user's");
}

/// `ferry restore --to FOLDER ORIGINAL`.
fn restore_into(home: &Path, folder: &Path, original: &Path) -> std::process::Output {
    let args = [
        "restore".as_ref(),
        "--to".as_ref(),
        folder.as_os_str(),
        original.as_os_str(),
    ];
    ferry_at(home, &args)
}

/// The undo of a trash of symbolic links (to a folder, a file, nothing) said each "has changed
/// since; kept": the link's target was looked at, not the link.
#[test]
fn the_undo_of_a_trashed_link_puts_it_back() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let (folder, file) = (tree.dir("target"), tree.file("file", "f"));
    let links = [
        ("to-folder", folder.as_path()),
        ("to-file", file.as_path()),
        ("to-nothing", Path::new("nowhere")),
    ];
    let mut args = vec![OsStr::new("trash").to_owned()];
    for (name, target) in links {
        std::os::unix::fs::symlink(target, tree.join(name)).unwrap();
        args.push(tree.join(name).into_os_string());
    }
    let args: Vec<&OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    ok(&ferry_at(&home, &args));
    ok(&ferry_at(&home, &[OsStr::new("undo")]));
    for (name, target) in links {
        assert_eq!(fs::read_link(tree.join(name)).unwrap(), target, "{name}");
    }
}

/// `restore --to` a trash's own `files` folder, or a trashed folder in it, removed the
/// item's info file (exit 0): it was then an unsafe entry with no place to go back to, or
/// vanished inside the other item. Refused, the item stays in the trash as it was.
#[test]
fn a_restore_into_a_trash_folder_is_refused() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let (a, folder) = (tree.file("w/a", "A"), tree.dir("w/d"));
    let out = ferry_at(
        &home,
        &[OsStr::new("trash"), a.as_os_str(), folder.as_os_str()],
    );
    ok(&out);
    let trash = home.join("data/Trash");
    for into in [trash.join("files"), trash.join("files/d")] {
        let args = ["restore", "--on-conflict", "keep-both", "--to"].map(OsStr::new);
        let out = ferry_at(
            &home,
            &[&args[..], &[into.as_os_str(), a.as_os_str()]].concat(),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{into:?}: {stderr}");
        assert!(stderr.contains("into a trash folder"), "{stderr}");
        assert!(trash.join("info/a.trashinfo").is_file() && trash.join("files/a").is_file());
    }
    ok(&restore_into(&home, &tree.dir("chosen"), &a));
    assert_eq!(read(&tree.join("chosen/a")), "A");
}

/// The info file of the one item in the home trash of `home`: its name and text.
fn only_info(home: &Path) -> (std::ffi::OsString, String) {
    let infos: Vec<_> = fs::read_dir(home.join("data/Trash/info"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(infos.len(), 1, "{infos:?}");
    let name = infos[0].file_name().unwrap().to_owned();
    (name, fs::read_to_string(&infos[0]).unwrap())
}

/// Undoing a restore into a chosen folder (`--to`) or beside a taken name (`--keep-both`)
/// puts the item back in the trash as it was there: its own `Path=`, `DeletionDate` and
/// name, not where the restore had put it. Redo restores it where the restore did.
#[test]
fn the_undo_of_a_restore_elsewhere_gives_the_item_back_its_own_place() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let chosen = tree.dir("chosen");
    let a = tree.file("w/a", "old");
    ok(&ferry_at(&home, &[OsStr::new("trash"), a.as_os_str()]));
    let trashed = only_info(&home);
    assert!(
        trashed.1.contains(&format!("Path={}\n", a.display())),
        "{}",
        trashed.1
    );

    ok(&restore_into(&home, &chosen, &a));
    assert_eq!(read(&chosen.join("a")), "old");
    ok(&ferry_at(&home, &[OsStr::new("undo")]));
    assert!(!chosen.join("a").exists());
    assert_eq!(
        only_info(&home),
        trashed,
        "the same entry as before the restore"
    );
    ok(&ferry_at(&home, &[OsStr::new("redo")]));
    assert_eq!(
        read(&chosen.join("a")),
        "old",
        "redone into the folder chosen"
    );
    ok(&ferry_at(&home, &[OsStr::new("undo")]));
    assert_eq!(only_info(&home), trashed);

    fs::write(&a, "new").unwrap();
    let keep_both = [
        OsStr::new("restore"),
        OsStr::new("--keep-both"),
        a.as_os_str(),
    ];
    ok(&ferry_at(&home, &keep_both));
    assert_eq!(read(&tree.join("w/a (copy)")), "old");
    ok(&ferry_at(&home, &[OsStr::new("undo")]));
    assert_eq!(read(&a), "new");
    assert!(!tree.join("w/a (copy)").exists());
    assert_eq!(only_info(&home), trashed);
    // Restored by its original path, as before the first restore.
    ok(&ferry_at(&home, &keep_both));
    assert_eq!(read(&tree.join("w/a (copy)")), "old");
}

/// Restored `--to` a folder on another file system, an item's undo puts it in the trash of
/// the disk it is on, as trashed from there: its own `Path=` would not be valid in that
/// trash (an unsafe entry, restorable nowhere but into a folder picked).
#[test]
fn the_undo_of_a_restore_to_another_disk_trashes_it_there_restorably() {
    let (tree, shm) = (TempTree::new(), TempTree::new_in("/dev/shm"));
    let home = tree.dir("home");
    let a = tree.file("w/a", "old");
    ok(&ferry_at(&home, &[OsStr::new("trash"), a.as_os_str()]));
    let chosen = shm.dir("chosen");
    ok(&restore_into(&home, &chosen, &a));
    ok(&ferry_at(&home, &[OsStr::new("undo")]));
    let listing = ferry_at(&home, &[OsStr::new("restore")]);
    let listing = String::from_utf8_lossy(&listing.stdout);
    let line = listing
        .lines()
        .find(|l| l.contains("chosen/a"))
        .unwrap_or_else(|| panic!("{listing}"));
    assert!(!line.contains("unsafe"), "{line}");
    let back = chosen.join("a");
    ok(&ferry_at(&home, &[OsStr::new("restore"), back.as_os_str()]));
    assert_eq!(read(&back), "old");
}

/// An item of the home trash whose `Path=` leads through a link of the user's own
/// (`~/Docs -> real`, as `gio trash` writes it, links unresolved) is restored through it, as
/// GNOME and KDE restore it; through another user's link it is refused.
#[test]
fn the_home_trash_restores_through_the_users_own_links_only() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let trash = home.join("data/Trash");
    for (name, owner) in [("Docs", 0), ("Theirs", 1234)] {
        let real = tree.dir(format!("home/real-{name}"));
        let link = home.join(name);
        std::os::unix::fs::symlink(&real, &link).unwrap();
        std::os::unix::fs::lchown(&link, Some(owner), Some(owner)).unwrap();
        fs::create_dir_all(trash.join("files")).unwrap();
        fs::create_dir_all(trash.join("info")).unwrap();
        let item = format!("{name}.txt");
        fs::write(trash.join("files").join(&item), name).unwrap();
        let info = format!(
            "[Trash Info]\nPath={}\nDeletionDate=2026-01-01T00:00:00\n",
            link.join(&item).display()
        );
        fs::write(trash.join("info").join(format!("{item}.trashinfo")), info).unwrap();
    }
    let docs = home.join("Docs/Docs.txt");
    ok(&ferry_at(&home, &[OsStr::new("restore"), docs.as_os_str()]));
    assert_eq!(read(&home.join("real-Docs/Docs.txt")), "Docs");
    let theirs = home.join("Theirs/Theirs.txt");
    let out = ferry_at(&home, &[OsStr::new("restore"), theirs.as_os_str()]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("is a symbolic link"), "{stderr}");
    assert_eq!(fs::read_dir(home.join("real-Theirs")).unwrap().count(), 0);
}

/// An undo of a restore killed midway, then run again, leaves a record a redo restores
/// whole: what the first run put back counts as the second run's.
#[test]
fn a_redo_after_an_undo_run_twice_restores_every_item() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let dst = tree.dir("dst");
    let files: Vec<_> = (0..5).map(|i| tree.file(format!("w/f{i}"), "x")).collect();
    let mut trash = vec![OsStr::new("trash")];
    trash.extend(files.iter().map(|f| f.as_os_str()));
    ok(&ferry_at(&home, &trash));
    // By path, not `--all`: that would take other tests' items from `/dev/shm`'s trash too.
    let mut restore = vec![OsStr::new("restore"), OsStr::new("--to"), dst.as_os_str()];
    restore.extend(files.iter().map(|f| f.as_os_str()));
    ok(&ferry_at(&home, &restore));
    let killed = ferry_in(&home)
        .env("FERRY_FAULT_POINT", "trash-info-written:3")
        .arg("undo")
        .output()
        .unwrap();
    assert_eq!(killed.status.signal(), Some(9), "{killed:?}");
    assert_eq!(
        fs::read_dir(&dst).unwrap().count(),
        3,
        "two put back when killed"
    );
    ok(&ferry_at(&home, &[OsStr::new("undo")]));
    assert_eq!(fs::read_dir(&dst).unwrap().count(), 0);
    ok(&ferry_at(&home, &[OsStr::new("redo")]));
    assert_eq!(
        fs::read_dir(&dst).unwrap().count(),
        5,
        "all five restored again"
    );
}

/// An undo of a trash stopped midway (Ctrl-C) had put some items back and said nothing of
/// them: run again, it puts back the rest and counts those as done, where it once failed
/// each as "no longer there" and left the job to be undone for ever; and it removes the info
/// file of one put back just before the stop (it stayed, an entry for nothing).
#[test]
fn an_undo_of_a_trash_stopped_midway_finishes_when_run_again() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let files: Vec<_> = (0..5)
        .map(|i| tree.file(format!("w/f{i}"), format!("{i}")))
        .collect();
    let mut args = vec![OsStr::new("trash")];
    args.extend(files.iter().map(|f| f.as_os_str()));
    ok(&ferry_at(&home, &args));
    // What the stopped undo did: three items back in place, the info files of two gone (it
    // was stopped before it removed the third's).
    let trash = home.join("data/Trash");
    for (i, f) in files[..3].iter().enumerate() {
        let name = f.file_name().unwrap();
        fs::rename(trash.join("files").join(name), f).unwrap();
        let mut info = name.to_owned();
        info.push(".trashinfo");
        if i < 2 {
            fs::remove_file(trash.join("info").join(info)).unwrap();
        }
    }
    ok(&ferry_at(&home, &[OsStr::new("undo")]));
    for (i, f) in files.iter().enumerate() {
        assert_eq!(fs::read_to_string(f).unwrap(), i.to_string());
    }
    let left = fs::read_dir(trash.join("info")).unwrap().count();
    assert_eq!(left, 0, "no info file for an item no longer in the trash");
    let history = ok(&ferry_at(&home, &[OsStr::new("history")]));
    assert!(history.contains("undone"), "{history}");
}

/// The trash listing gives names as their bytes into a pipe (a name that is not UTF-8 was
/// shown as U+FFFD, like a name holding that very character) and escaped on a terminal,
/// where a newline in a name split its line.
#[test]
fn the_trash_listing_tells_odd_names_apart() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let odd = tree.file(Path::new("w").join(OsStr::from_bytes(b"a\xffb")), "1");
    let replacement = tree.file("w/a\u{fffd}b", "2");
    let newline = tree.file("w/new\nline", "3");
    let args = [
        OsStr::new("trash"),
        odd.as_os_str(),
        replacement.as_os_str(),
        newline.as_os_str(),
    ];
    ok(&ferry_at(&home, &args));

    let piped = ferry_at(&home, &[OsStr::new("restore")]).stdout;
    let has = |bytes: &[u8]| piped.windows(bytes.len()).any(|w| w == bytes);
    assert!(
        has(b"/a\xffb\n") && has("/a\u{fffd}b\n".as_bytes()),
        "{}",
        String::from_utf8_lossy(&piped)
    );

    // On a terminal: `script` runs the command under one.
    let mut listing = ferry_in(&home);
    let command = format!("{} restore", env!("CARGO_BIN_EXE_ferry-under-test"));
    let envs: Vec<_> = listing
        .arg("restore")
        .get_envs()
        .filter_map(|(k, v)| Some((k.to_owned(), v?.to_owned())))
        .collect();
    let Ok(out) = std::process::Command::new("script")
        .args(["-qc", &command, "/dev/null"])
        .envs(envs)
        .output()
    else {
        eprintln!("note: script(1) is missing; the terminal half skipped");
        return;
    };
    let shown = String::from_utf8_lossy(&out.stdout);
    // Other tests' items may be in /dev/shm's trash too: only this tree's are looked at.
    let ours = tree.path().to_string_lossy().into_owned();
    let lines: Vec<&str> = shown.lines().filter(|l| l.contains(&ours)).collect();
    assert_eq!(lines.len(), 3, "{shown}");
    assert!(
        lines.iter().any(|l| l.trim_end().ends_with(r"/a\xffb")),
        "{shown}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.trim_end().ends_with(r"/new\x0aline")),
        "{shown}"
    );
}

/// An item in the trash with no info file, restored into a chosen folder: the undo puts it
/// back in `files/` as it was, without an info file it never had (which would say it came
/// from the folder it was restored to).
#[test]
fn undoing_the_restore_of_an_entry_without_info_writes_none() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let seed = tree.file("w/seed", "S");
    ok(&ferry_at(&home, &[OsStr::new("trash"), seed.as_os_str()]));
    let trash = home.join("data/Trash");
    let orphan = trash.join("files/orph");
    fs::write(&orphan, "no info").unwrap();
    let to = tree.dir("to");
    let args = ["restore", "--to"].map(OsStr::new);
    ok(&ferry_at(
        &home,
        &[&args[..], &[to.as_os_str(), orphan.as_os_str()]].concat(),
    ));
    assert_eq!(read(&to.join("orph")), "no info");

    ok(&ferry_at(&home, &[OsStr::new("undo")]));
    assert_eq!(read(&orphan), "no info");
    assert!(!to.join("orph").exists());
    let info = trash.join("info/orph.trashinfo");
    assert!(!info.exists(), "{}", read(&info));
    let listing = ok(&ferry_at(&home, &[OsStr::new("restore")]));
    let line = listing
        .lines()
        .find(|l| l.contains(&*orphan.to_string_lossy()));
    assert!(
        line.is_some_and(|l| l.contains("no info file")),
        "{listing}"
    );
}

/// A redo of a trash whose item, put back by the undo, was replaced since (deleted for good,
/// another file made by its name) is refused: it moved that other file to the trash.
#[test]
fn a_redo_of_a_trash_leaves_a_file_made_since_in_its_place() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let a = tree.file("w/a.txt", "old");
    let b = tree.file("w/b.txt", "b");
    let args = [OsStr::new("trash"), a.as_os_str(), b.as_os_str()];
    ok(&ferry_at(&home, &args));
    ok(&ferry_at(&home, &[OsStr::new("undo")]));
    fs::remove_file(&a).unwrap();
    fs::write(&a, "NEW important").unwrap();
    let out = ferry_at(&home, &[OsStr::new("redo")]);
    let said = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{said}");
    assert!(said.contains("is not the item its undo put back"), "{said}");
    assert_eq!(read(&a), "NEW important");
    assert_eq!(read(&b), "b", "nothing of it redone");
    // Gone rather than replaced: the redo goes on, and says that item is gone.
    fs::remove_file(&a).unwrap();
    let out = ferry_at(&home, &[OsStr::new("redo")]);
    assert!(!b.exists(), "{out:?}");
}

/// A permanent delete of items in the trash (the Trash view's, or `ferry rm` of them)
/// removes their info files in the job. The window once removed them when it next listed the
/// trash: quit before, 11,000 stayed for good, entries for nothing. Elsewhere, a folder
/// called `Trash` is not a trash: its `info/` is left alone.
#[test]
fn a_permanent_delete_of_trashed_items_removes_their_info_files() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let files: Vec<_> = (0..3).map(|i| tree.file(format!("w/f{i}"), "x")).collect();
    let mut args = vec![OsStr::new("trash")];
    args.extend(files.iter().map(|f| f.as_os_str()));
    ok(&ferry_at(&home, &args));
    let trash = home.join("data/Trash");
    let gone = [trash.join("files/f0"), trash.join("files/f1")];
    let mut rm = vec![OsStr::new("rm")];
    rm.extend(gone.iter().map(|f| f.as_os_str()));
    ok(&ferry_at(&home, &rm));
    let info: Vec<_> = fs::read_dir(trash.join("info"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(info, ["f2.trashinfo"]);

    let alike = tree.file("w/Trash/files/notes", "n");
    let kept = tree.file("w/Trash/info/notes.trashinfo", "mine");
    ok(&ferry_at(&home, &[OsStr::new("rm"), alike.as_os_str()]));
    assert_eq!(read(&kept), "mine");
}

/// The same through a home trash that is a link of the user's own to a folder of theirs.
#[test]
fn a_permanent_delete_through_a_linked_home_trash_removes_the_info_file() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let real = tree.dir("elsewhere/Trash");
    fs::create_dir_all(home.join("data")).unwrap();
    std::os::unix::fs::symlink(&real, home.join("data/Trash")).unwrap();
    let file = tree.file("w/f", "x");
    ok(&ferry_at(&home, &[OsStr::new("trash"), file.as_os_str()]));
    assert!(real.join("info/f.trashinfo").exists());
    let trashed = home.join("data/Trash/files/f");
    ok(&ferry_at(&home, &[OsStr::new("rm"), trashed.as_os_str()]));
    assert!(!real.join("files/f").exists());
    assert!(
        !real.join("info/f.trashinfo").exists(),
        "no entry for nothing"
    );
}

/// Items inside a folder trashed before it, each its own entry: the undo puts the folder
/// back first. Put back first, they made the folder again, which then found its place taken
/// and stayed in the trash.
#[test]
fn the_undo_of_items_trashed_before_their_folder_puts_the_folder_back_first() {
    let tree = TempTree::new();
    let home = tree.dir("home");
    let z = tree.file("w/dd/sub/z", "z");
    let x = tree.file("w/dd/x", "x");
    let y = tree.file("w/dd/y", "y");
    let dd = tree.join("w/dd");
    let args = [
        OsStr::new("trash"),
        z.as_os_str(),
        x.as_os_str(),
        dd.as_os_str(),
    ];
    ok(&ferry_at(&home, &args));
    assert!(!dd.exists());
    ok(&ferry_at(&home, &[OsStr::new("undo")]));
    assert_eq!(
        (read(&x), read(&y), read(&z)),
        ("x".into(), "y".into(), "z".into())
    );
    assert_eq!(
        fs::read_dir(home.join("data/Trash/files")).unwrap().count(),
        0
    );
}
