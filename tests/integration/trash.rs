//! The trash: trash, list, restore (same file system, across file systems, onto a taken
//! name with each answer to the conflict, into a vanished folder), empty, per-volume
//! `.Trash-$uid` (the CLI's in `trash_cli.rs`).
//!
//! Never the user's trash: core tests give the engine a home trash in a temporary folder
//! ([`TrashRoots`]) and allow no volume trash except a tmpfs mounted for the test; CLI tests
//! run `ferry` with `HOME` and `XDG_DATA_HOME` pointing at a temporary folder and only
//! restore items they trashed themselves, found by path.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ferry_core::Error;
use ferry_core::jobs::{
    Conflict, ConflictKind, ConflictPolicy, Job, Resolution, Scope, SkipReason, Summary,
    TrashRoots, TrashedItem, UndoJournal, Volumes, list_trash_in,
};
use ferry_tests::TempTree;

use super::jobs_conflicts::{once, run_asking};
use super::jobs_support::{
    Mounted, Outcome, assert_accounts_for, assert_no_temporaries, run_job, set_mtime, snapshot,
};

fn trash(paths: &[PathBuf], roots: &TrashRoots) -> Summary {
    let out = run_job(Job::Trash {
        paths: paths.to_vec(),
        roots: roots.clone(),
    });
    assert_accounts_for(&out.summary, paths);
    out.summary
}

fn restore(items: Vec<TrashedItem>) -> Summary {
    restore_with(items, ConflictPolicy::Skip)
}

fn restore_with(items: Vec<TrashedItem>, on_conflict: ConflictPolicy) -> Summary {
    let originals: Vec<PathBuf> = items.iter().map(|i| i.original.clone()).collect();
    let out = run_job(Job::Restore { items, on_conflict });
    assert_accounts_for(&out.summary, &originals);
    assert!(!out.cancelled);
    out.summary
}

/// Restores everything in `roots` with policy Ask, answering with `answer`.
fn restore_asking(
    roots: &TrashRoots,
    answer: impl FnMut(&Conflict) -> Option<(Resolution, Scope)>,
) -> (Outcome, Vec<Conflict>) {
    let items = list_trash_in(roots).unwrap();
    let originals: Vec<PathBuf> = items.iter().map(|i| i.original.clone()).collect();
    let job = Job::Restore {
        items,
        on_conflict: ConflictPolicy::Ask,
    };
    let (out, conflicts) = run_asking(job, answer);
    assert_accounts_for(&out.summary, &originals);
    (out, conflicts)
}

/// Trashes `w/<name>` (holding `old <name>`), then puts a new file there (`new <name>`).
fn taken(tree: &TempTree, roots: &TrashRoots, name: &str) -> PathBuf {
    let path = tree.file(format!("w/{name}"), format!("old {name}"));
    trash(std::slice::from_ref(&path), roots);
    fs::write(&path, format!("new {name}")).unwrap();
    path
}

pub(crate) fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap()
}

/// Contents of the items in the trash, sorted.
fn trashed_bodies(roots: &TrashRoots) -> Vec<String> {
    let mut bodies: Vec<String> = list_trash_in(roots)
        .unwrap()
        .iter()
        .map(|i| read(&i.file))
        .collect();
    bodies.sort();
    bodies
}

/// Restores everything in `roots` answering with `answer`, journaled in `journal`.
fn restore_journaled(
    journal: &UndoJournal,
    roots: &TrashRoots,
    answer: impl FnMut(&Conflict) -> Option<(Resolution, Scope)>,
) -> Summary {
    let job = Job::Restore {
        items: list_trash_in(roots).unwrap(),
        on_conflict: ConflictPolicy::Ask,
    };
    let seq = journal
        .begin(&job)
        .unwrap()
        .expect("a restore is journaled");
    let (out, _) = run_asking(job, answer);
    journal.finish(seq, &out.summary, out.cancelled).unwrap();
    out.summary
}

/// Undoes the newest job of `journal` (with the Skip policy).
fn undo_last(journal: &UndoJournal, roots: &TrashRoots) -> Summary {
    let record = journal.undo_candidate().unwrap().unwrap();
    let seq = record.seq;
    let undo = run_job(Job::Undo {
        record: Box::new(record),
        trash: roots.clone(),
        on_conflict: ConflictPolicy::Skip,
    });
    journal.mark_undone(seq, &undo.summary).unwrap();
    undo.summary
}

/// Every entry of a trash folder's `files/` and `info/`.
pub(crate) fn trash_contents(trash: &Path) -> Vec<PathBuf> {
    let mut all = Vec::new();
    for sub in ["files", "info"] {
        if let Ok(entries) = fs::read_dir(trash.join(sub)) {
            all.extend(entries.map(|e| e.unwrap().path()));
        }
    }
    all
}

/// Rewrites the info file `info` to say its item was at `original`.
fn repoint(info: &Path, original: &Path) {
    let body = format!("[Trash Info]\nPath={}\n", original.display());
    fs::write(info, body).unwrap();
}

fn mode(path: &Path) -> u32 {
    fs::symlink_metadata(path).unwrap().permissions().mode() & 0o7777
}

#[test]
fn trash_list_and_restore_on_one_file_system() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("data/Trash"));
    let odd = OsStr::from_bytes(b"caf\xe9 50%.txt");
    tree.file("work/a.txt", "alpha");
    tree.file("work/folder/inner/b", "beta");
    std::os::unix::fs::symlink("../a.txt", tree.join("work/folder/link")).unwrap();
    tree.file(Path::new("work").join(odd), "latin-1 name");
    let before = snapshot(&tree.join("work"));
    let paths = vec![
        tree.join("work/a.txt"),
        tree.join("work/folder"),
        tree.join("work").join(odd),
    ];

    let summary = trash(&paths, &roots);
    assert!(summary.is_complete(), "{summary:#?}");
    assert_eq!(summary.done, paths);
    assert!(fs::read_dir(tree.join("work")).unwrap().next().is_none());
    assert_eq!(mode(&roots.home), 0o700);
    for (record, path) in summary.trash.iter().zip(&paths) {
        assert_eq!(&record.original, path);
        assert!(record.file.starts_with(roots.home.join("files")));
        assert!(record.info.starts_with(roots.home.join("info")));
        let meta = fs::symlink_metadata(&record.file).unwrap();
        assert_eq!((meta.dev(), meta.ino()), (record.id.dev, record.id.ino));
    }
    let info = fs::read_to_string(&summary.trash[2].info).unwrap();
    assert!(info.contains("/caf%E9%2050%25.txt\n"), "{info}");

    let listed = list_trash_in(&roots).unwrap();
    let mut originals: Vec<&Path> = listed.iter().map(|i| i.original.as_path()).collect();
    originals.sort();
    let mut expected: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    expected.sort();
    assert_eq!(originals, expected);
    let odd_item = listed.iter().find(|i| i.name == odd).unwrap();
    assert_eq!(odd_item.size, "latin-1 name".len() as u64);
    let folder = listed.iter().find(|i| i.name == "folder").unwrap();
    assert_eq!(folder.size, "beta".len() as u64 + "../a.txt".len() as u64);
    assert!(folder.deleted_at.is_some());

    let summary = restore(listed);
    assert!(summary.is_complete(), "{summary:#?}");
    assert_eq!(snapshot(&tree.join("work")), before);
    assert_eq!(trash_contents(&roots.home), Vec::<PathBuf>::new());
    assert!(list_trash_in(&roots).unwrap().is_empty());
}

#[test]
fn one_name_trashed_twice_keeps_both() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("Trash"));
    let path = tree.file("w/same", "first");
    trash(std::slice::from_ref(&path), &roots);
    tree.file("w/same", "second");
    let summary = trash(std::slice::from_ref(&path), &roots);
    assert_eq!(summary.trash[0].file, roots.home.join("files/same.2"));
    let mut bodies: Vec<String> = list_trash_in(&roots)
        .unwrap()
        .iter()
        .map(|i| fs::read_to_string(&i.file).unwrap())
        .collect();
    bodies.sort();
    assert_eq!(bodies, ["first", "second"]);
}

#[test]
fn restore_onto_a_taken_name_asks_with_both_sides_while_the_rest_is_restored() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("Trash"));
    let note = taken(&tree, &roots, "note");
    let free = tree.file("w/free", "free");
    trash(std::slice::from_ref(&free), &roots);

    let (out, conflicts) = restore_asking(&roots, once(Resolution::Skip));
    assert_eq!(conflicts.len(), 1, "{conflicts:#?}");
    let c = &conflicts[0];
    assert_eq!(c.kind, ConflictKind::FileExists);
    assert_eq!(c.source.path, roots.home.join("files/note"));
    assert_eq!(c.source.size, "old note".len() as u64);
    assert_eq!(c.dest.path, note);
    assert_eq!(c.dest.size, "new note".len() as u64);
    assert!(!c.likely_identical);
    let summary = &out.summary;
    assert_eq!(summary.done, std::slice::from_ref(&free));
    assert_eq!(summary.skipped.len(), 1, "{summary:#?}");
    assert_eq!(
        summary.skipped[0].path, note,
        "reported at its original place"
    );
    assert_eq!(summary.skipped[0].reason, SkipReason::Exists);
    assert!(summary.failed.is_empty(), "{summary:#?}");
    assert_eq!(read(&note), "new note");
    assert_eq!(read(&free), "free");
    assert_eq!(trashed_bodies(&roots), ["old note"]);
    assert_no_temporaries(&tree.join("w"));
}

#[test]
fn restore_answered_replace_keeps_the_occupant_and_undo_gives_it_back() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("Trash"));
    let journal = UndoJournal::at(tree.join("state/journal.jsonl"));
    let note = taken(&tree, &roots, "note");

    let done = restore_journaled(&journal, &roots, once(Resolution::Replace));
    assert!(done.is_complete(), "{done:#?}");
    assert_eq!(done.done, std::slice::from_ref(&note));
    assert_eq!(read(&note), "old note");
    let staged = done.record.entries().find_map(|e| e.staged).unwrap();
    assert_eq!(read(&staged), "new note", "the replaced file is kept");
    assert!(trash_contents(&roots.home).is_empty());
    let undone = undo_last(&journal, &roots);
    assert!(undone.is_complete(), "{undone:#?}");
    assert_eq!(read(&note), "new note", "undo put the replaced file back");
    assert!(!staged.exists());
    assert_eq!(
        trashed_bodies(&roots),
        ["old note"],
        "and the restored one in the trash"
    );
}

#[test]
fn restore_answered_keep_both_or_rename_to_uses_new_names_and_undo_trashes_them() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("Trash"));
    let journal = UndoJournal::at(tree.join("state/journal.jsonl"));
    let a = taken(&tree, &roots, "a.txt");
    let b = taken(&tree, &roots, "b");

    let answer = |c: &Conflict| {
        let answer = match c.dest.path.file_name().unwrap().to_str().unwrap() {
            "a.txt" => Resolution::KeepBoth,
            _ => Resolution::RenameTo("b renamed".into()),
        };
        Some((answer, Scope::This))
    };
    let done = restore_journaled(&journal, &roots, answer);
    assert!(done.is_complete(), "{done:#?}");
    let mut restored = done.done.clone();
    restored.sort();
    assert_eq!(restored, [a.clone(), b.clone()]);
    let mut landed: Vec<PathBuf> = done.trash.iter().map(|r| r.original.clone()).collect();
    landed.sort();
    assert_eq!(
        landed,
        [tree.join("w/a (copy).txt"), tree.join("w/b renamed")]
    );
    let undone = undo_last(&journal, &roots);
    assert!(undone.is_complete(), "{undone:#?}");
    assert_eq!(read(&a), "new a.txt");
    assert_eq!(read(&b), "new b");
    assert!(!tree.join("w/a (copy).txt").exists() && !tree.join("w/b renamed").exists());
    assert_eq!(trashed_bodies(&roots), ["old a.txt", "old b"]);

    // Restoring without undoing: both names stay, the trash is empty.
    let (out, _) = restore_asking(&roots, answer);
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(read(&tree.join("w/a (copy).txt")), "old a.txt");
    assert_eq!(read(&tree.join("w/b renamed")), "old b");
    assert!(trash_contents(&roots.home).is_empty());
}

/// Two names from two folders are restored by two plans, the second from the trash's
/// `notes.2`: each goes back under its own name, and undo gives back what each replaced.
#[test]
fn undo_of_a_restore_in_two_plans_gives_back_both_replaced_files() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("Trash"));
    let journal = UndoJournal::at(tree.join("state/journal.jsonl"));
    let notes = [
        taken(&tree, &roots, "a/notes"),
        taken(&tree, &roots, "b/notes"),
    ];

    let done = restore_journaled(&journal, &roots, |_| {
        Some((Resolution::Replace, Scope::AllOfKind))
    });
    assert!(done.is_complete(), "{done:#?}");
    assert_eq!(read(&notes[0]), "old a/notes");
    assert_eq!(read(&notes[1]), "old b/notes");
    assert_eq!(
        done.record.entries().filter(|e| e.staged.is_some()).count(),
        2
    );
    let undone = undo_last(&journal, &roots);
    assert!(undone.is_complete(), "{undone:#?}");
    assert_eq!(read(&notes[0]), "new a/notes");
    assert_eq!(read(&notes[1]), "new b/notes");
    assert_eq!(trashed_bodies(&roots), ["old a/notes", "old b/notes"]);
}

#[test]
fn restore_of_one_name_from_two_folders_is_no_conflict() {
    let tree = TempTree::new();
    let shm = TempTree::new_in("/dev/shm");
    let roots = TrashRoots::home_only(tree.join("Trash"));
    let paths = [tree.file("w/a/notes", "a"), tree.file("w/b/notes", "b")];
    trash(&paths, &roots);
    // A third one goes back to another file system (its entry says it was on tmpfs).
    let c = tree.file("w/c/notes", "c");
    let trashed = trash(std::slice::from_ref(&c), &roots);
    repoint(&trashed.trash[0].info, &shm.join("c/notes"));

    let (out, conflicts) = restore_asking(&roots, |c| panic!("asked about {c:?}"));
    assert!(conflicts.is_empty());
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(read(&paths[0]), "a");
    assert_eq!(read(&paths[1]), "b");
    assert_eq!(read(&shm.join("c/notes")), "c");
    assert!(trash_contents(&roots.home).is_empty());
}

#[test]
fn restore_policies_apply_without_asking() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("Trash"));
    let note = taken(&tree, &roots, "note");
    // The trashed file is older than the one now there: Replace if newer leaves it.
    set_mtime(&list_trash_in(&roots).unwrap()[0].file, 1_000_000_000);
    let summary = restore_with(
        list_trash_in(&roots).unwrap(),
        ConflictPolicy::ReplaceIfNewer,
    );
    assert_eq!(summary.skipped.len(), 1, "{summary:#?}");
    assert_eq!(read(&note), "new note");
    // Newer: replaced.
    set_mtime(&list_trash_in(&roots).unwrap()[0].file, 4_000_000_000);
    let summary = restore_with(
        list_trash_in(&roots).unwrap(),
        ConflictPolicy::ReplaceIfNewer,
    );
    assert!(
        summary.is_complete() && summary.skipped.is_empty(),
        "{summary:#?}"
    );
    assert_eq!(read(&note), "old note");
    assert!(trash_contents(&roots.home).is_empty());

    let other = taken(&tree, &roots, "other");
    let summary = restore_with(list_trash_in(&roots).unwrap(), ConflictPolicy::Skip);
    assert_eq!(summary.skipped[0].path, other);
    let summary = restore_with(list_trash_in(&roots).unwrap(), ConflictPolicy::KeepBoth);
    assert!(summary.is_complete(), "{summary:#?}");
    assert_eq!(read(&tree.join("w/other (copy)")), "old other");
    assert_eq!(read(&other), "new other");

    // Two items of one original path: the second keeps both as well.
    let twice = tree.file("w/twice", "first");
    trash(std::slice::from_ref(&twice), &roots);
    tree.file("w/twice", "second");
    trash(std::slice::from_ref(&twice), &roots);
    let summary = restore_with(list_trash_in(&roots).unwrap(), ConflictPolicy::KeepBoth);
    assert!(summary.is_complete(), "{summary:#?}");
    let mut bodies = [read(&twice), read(&tree.join("w/twice (copy)"))];
    bodies.sort();
    assert_eq!(bodies, ["first", "second"]);
    assert!(trash_contents(&roots.home).is_empty());
}

#[test]
fn restore_answered_replace_if_newer_replaces_only_an_older_file() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("Trash"));
    let older = taken(&tree, &roots, "older");
    let newer = taken(&tree, &roots, "newer");
    for item in list_trash_in(&roots).unwrap() {
        let trashed_at = if item.name == "older" {
            1_000_000_000
        } else {
            4_000_000_000
        };
        set_mtime(&item.file, trashed_at);
    }
    let (out, _) = restore_asking(&roots, |_| {
        Some((Resolution::ReplaceIfNewer, Scope::AllOfKind))
    });
    assert_eq!(out.summary.done, std::slice::from_ref(&newer));
    assert_eq!(out.summary.skipped[0].path, older);
    assert_eq!(
        (read(&older), read(&newer)),
        ("new older".into(), "old newer".into())
    );
    assert_eq!(trashed_bodies(&roots), ["old older"]);
}

#[test]
fn restore_across_file_systems_answered_replace_keeps_the_occupant() {
    let tree = TempTree::new();
    let shm = TempTree::new_in("/dev/shm");
    let roots = TrashRoots::home_only(tree.join("Trash"));
    tree.file("w/place/dir/inner", "trashed");
    let item = tree.join("w/place/dir");
    let trashed = trash(std::slice::from_ref(&item), &roots);
    // Its entry says it was on tmpfs, where a file of that name is now.
    repoint(&trashed.trash[0].info, &shm.join("place/dir"));
    shm.file("place/dir", "in the way");

    let (out, conflicts) = restore_asking(&roots, once(Resolution::Replace));
    assert_eq!(conflicts[0].kind, ConflictKind::FileVsFolder);
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(read(&shm.join("place/dir/inner")), "trashed");
    let staged = out.summary.record.entries().find_map(|e| e.staged).unwrap();
    assert_eq!(
        fs::symlink_metadata(&staged).unwrap().dev(),
        fs::metadata("/dev/shm").unwrap().dev(),
        "kept on its own file system"
    );
    assert_eq!(read(&staged), "in the way");
    assert_eq!(trash_contents(&roots.home), Vec::<PathBuf>::new());
    assert_no_temporaries(shm.path());
}

#[test]
fn restore_answered_merge_writes_a_trashed_folder_into_the_one_now_there() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("Trash"));
    tree.file("w/dir/one", "1");
    tree.file("w/dir/sub/two", "2");
    let dir = tree.join("w/dir");
    trash(std::slice::from_ref(&dir), &roots);
    tree.file("w/dir/mine", "made since");

    let journal = UndoJournal::at(tree.join("state/journal.jsonl"));
    let done = restore_journaled(&journal, &roots, |c| {
        assert_eq!(c.kind, ConflictKind::FolderExists);
        Some((Resolution::Merge, Scope::This))
    });
    assert!(done.is_complete(), "{done:#?}");
    assert_eq!(done.done, std::slice::from_ref(&dir));
    let names: Vec<PathBuf> = snapshot(&dir).into_keys().collect();
    assert_eq!(
        names,
        ["mine", "one", "sub", "sub/two"].map(PathBuf::from),
        "the folder's own file is kept"
    );
    assert_eq!(read(&dir.join("sub/two")), "2");
    assert!(trash_contents(&roots.home).is_empty());

    // Undo: what was merged in goes back to the trash; the folder and its own file stay.
    let undone = undo_last(&journal, &roots);
    assert!(undone.is_complete(), "{undone:#?}");
    let names: Vec<PathBuf> = snapshot(&dir).into_keys().collect();
    assert_eq!(names, [PathBuf::from("mine")]);
    let mut trashed: Vec<String> = list_trash_in(&roots)
        .unwrap()
        .iter()
        .map(|i| i.name.to_string_lossy().into_owned())
        .collect();
    trashed.sort();
    assert_eq!(trashed, ["one", "sub"]);
}

#[test]
fn restore_answers_for_all_of_a_kind_and_cancel() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("Trash"));
    let a = taken(&tree, &roots, "a");
    let b = taken(&tree, &roots, "b");
    let (out, conflicts) = restore_asking(&roots, once(Resolution::Cancel));
    assert!(out.cancelled);
    assert_eq!(conflicts.len(), 2, "both asked at once: {conflicts:#?}");
    assert_eq!((read(&a), read(&b)), ("new a".into(), "new b".into()));
    assert_eq!(trashed_bodies(&roots), ["old a", "old b"]);

    let mut asked = 0;
    let (out, _) = restore_asking(&roots, |_| {
        asked += 1;
        (asked == 1).then_some((Resolution::KeepBoth, Scope::AllOfKind))
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(read(&tree.join("w/a (copy)")), "old a");
    assert_eq!(read(&tree.join("w/b (copy)")), "old b");
    assert!(trash_contents(&roots.home).is_empty());
}

#[test]
fn restore_recreates_a_vanished_parent() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("Trash"));
    let path = tree.file("w/gone/deeper/file", "kept");
    trash(std::slice::from_ref(&path), &roots);
    fs::remove_dir_all(tree.join("w/gone")).unwrap();

    let summary = restore(list_trash_in(&roots).unwrap());
    assert!(summary.is_complete(), "{summary:#?}");
    assert_eq!(fs::read_to_string(&path).unwrap(), "kept");
    assert!(trash_contents(&roots.home).is_empty());
}

#[test]
fn restore_across_file_systems_copies_whole_then_removes_the_trashed_copy() {
    let tree = TempTree::new();
    let shm = TempTree::new_in("/dev/shm");
    let roots = TrashRoots::home_only(tree.join("Trash"));
    let big: Vec<u8> = (0..3_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
    tree.file("w/place/dir/big.bin", &big);
    tree.file("w/place/dir/sub/empty", "");
    tree.file("w/place/dir/sub/small", "small");
    fs::set_permissions(
        tree.join("w/place/dir/sub/small"),
        fs::Permissions::from_mode(0o640),
    )
    .unwrap();
    std::os::unix::fs::symlink("big.bin", tree.join("w/place/dir/link")).unwrap();
    std::os::unix::fs::symlink("/nowhere", tree.join("w/place/dir/broken")).unwrap();
    let before = snapshot(&tree.join("w/place"));
    let item = tree.join("w/place/dir");
    let trashed = trash(std::slice::from_ref(&item), &roots);

    // Its entry says it was on tmpfs (as the `trash` crate's fallback to the home trash
    // writes): restoring crosses file systems.
    repoint(&trashed.trash[0].info, &shm.join("place/dir"));
    fs::create_dir(shm.join("place")).unwrap();

    let summary = restore(list_trash_in(&roots).unwrap());
    assert!(summary.is_complete(), "{summary:#?}");
    assert_eq!(snapshot(&shm.join("place")), before);
    assert_eq!(fs::read(shm.join("place/dir/big.bin")).unwrap(), big);
    assert_eq!(
        fs::symlink_metadata(shm.join("place/dir")).unwrap().dev(),
        fs::metadata("/dev/shm").unwrap().dev()
    );
    assert_eq!(trash_contents(&roots.home), Vec::<PathBuf>::new());
    assert_no_temporaries(shm.path());
    let names: Vec<_> = fs::read_dir(shm.join("place"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["dir"], "no staging folder is left");
    let record = &summary.trash[0];
    let meta = fs::symlink_metadata(shm.join("place/dir")).unwrap();
    assert_eq!((record.id.dev, record.id.ino), (meta.dev(), meta.ino()));
}

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
    let Some(mount) = Mounted::tmpfs(&tree.join("vol"), "4m") else {
        return;
    };
    let roots = TrashRoots {
        home: tree.join("home/Trash"),
        volumes: Volumes::Only(vec![mount.dir.clone()]),
    };
    let path = mount.dir.join("d/file");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, "on tmpfs").unwrap();
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
    let subvolume = |path: &Path| {
        let made = std::process::Command::new("btrfs")
            .args(["subvolume", "create"])
            .arg(path)
            .output()
            .unwrap();
        assert!(made.status.success(), "{made:?}");
    };
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

#[test]
fn empty_trash_deletes_everything_with_progress() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("Trash"));
    let mut paths = Vec::new();
    for i in 0..5 {
        paths.push(tree.file(format!("w/f{i}"), "x"));
    }
    super::jobs_support::deep_chain(&tree.join("w"), "d", 300);
    paths.push(tree.join("w/d"));
    assert!(trash(&paths, &roots).is_complete());
    // An info file whose item is gone is removed as well.
    fs::write(
        roots.home.join("info/orphan.trashinfo"),
        "[Trash Info]\nPath=/x\n",
    )
    .unwrap();

    let out = run_job(Job::EmptyTrash {
        roots: roots.clone(),
    });
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert!(out.events.iter().any(
        |e| matches!(e, ferry_core::jobs::Event::Planned { totals, .. } if totals.items >= 306)
    ));
    assert_eq!(trash_contents(&roots.home), Vec::<PathBuf>::new());
    assert!(list_trash_in(&roots).unwrap().is_empty());
}

#[test]
fn a_link_to_a_folder_is_trashed_as_the_link() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("Trash"));
    tree.file("target/keep", "kept");
    let link = tree.join("w/link");
    fs::create_dir(tree.join("w")).unwrap();
    std::os::unix::fs::symlink(tree.join("target"), &link).unwrap();
    let summary = trash(std::slice::from_ref(&link), &roots);
    assert!(summary.is_complete(), "{summary:#?}");
    assert!(
        fs::symlink_metadata(&summary.trash[0].file)
            .unwrap()
            .is_symlink()
    );
    assert_eq!(
        fs::read_to_string(tree.join("target/keep")).unwrap(),
        "kept"
    );
    assert!(restore(list_trash_in(&roots).unwrap()).is_complete());
    assert_eq!(fs::read_link(&link).unwrap(), tree.join("target"));
}
