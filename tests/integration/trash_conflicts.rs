//! Restores from the trash onto a name taken since: asked with both sides, each answer
//! (Replace, Replace if newer, Keep both, Rename to, Merge, Skip, for all of a kind, Cancel),
//! the policies that answer without asking, and the undo of what each answer did.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

use ferry_core::jobs::{
    Conflict, ConflictKind, ConflictPolicy, Job, Resolution, Scope, SkipReason, Summary,
    TrashRoots, UndoJournal, list_trash_in,
};
use ferry_tests::TempTree;

use super::jobs_conflicts::{once, run_asking};
use super::jobs_support::{
    Outcome, assert_accounts_for, assert_no_temporaries, run_job, set_mtime, snapshot,
};
use super::trash::{read, repoint, restore_with, trash, trash_contents};

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

/// Items of one name trashed from two folders and restored into one: both sides of the
/// question are named as they would be there, not as the trash keeps them ("n.txt.2").
#[test]
fn items_of_one_name_restored_into_one_folder_are_named_as_they_would_be() {
    let tree = TempTree::new();
    let roots = TrashRoots::home_only(tree.join("Trash"));
    for folder in ["a", "b"] {
        let path = tree.file(format!("{folder}/n.txt"), folder);
        trash(std::slice::from_ref(&path), &roots);
    }
    let into = tree.dir("into");
    // The second trashed first: its name in the trash is "n.txt.2".
    let items = (list_trash_in(&roots).unwrap().iter().rev())
        .map(|i| i.restore_to(&into))
        .collect();
    let job = Job::Restore {
        items,
        on_conflict: ConflictPolicy::Ask,
    };
    let (out, conflicts) = run_asking(job, once(Resolution::KeepBoth));
    assert_eq!(conflicts.len(), 1, "{conflicts:#?}");
    let c = &conflicts[0];
    assert_eq!(c.kind, ConflictKind::DuplicateSource);
    assert_eq!(
        (c.source.name.as_os_str(), c.dest.name.as_os_str()),
        ("n.txt".as_ref(), "n.txt".as_ref())
    );
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(read(&into.join("n.txt")), "b");
    assert_eq!(read(&into.join("n (copy).txt")), "a");
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
