//! Undo of random sequences of jobs (copy and move under each policy that needs no answer,
//! rename, new folder, trash) on a small tree restores it exactly, and the sequences the
//! property test once failed with.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use ferry_core::jobs::{ConflictPolicy, Job};
use ferry_tests::TempTree;
use proptest::prelude::*;

use crate::jobs_support::{Node, snapshot};
use crate::undo::{Setup, copy, moving};

/// Paths, contents and modes below `root`.
fn manifest(root: &Path) -> BTreeMap<PathBuf, (Option<Vec<u8>>, u32)> {
    snapshot(root)
        .into_iter()
        .map(|(rel, node)| {
            let entry = match node {
                Node::File { data, mode, .. } => (Some(data), mode),
                Node::Dir { mode, .. } => (None, mode),
                other => panic!("unexpected {other:?}"),
            };
            (rel, entry)
        })
        .collect()
}

#[derive(Debug, Clone)]
enum Step {
    Copy(usize, usize),
    Move(usize, usize),
    Rename(usize, String),
    Mkdir(usize, String),
    /// A copy or move with a policy of [`POLICIES`] for what it meets.
    CopyAs(usize, usize, usize),
    MoveAs(usize, usize, usize),
    Trash(usize),
}

/// What a copy or move does with a name taken: every policy that needs no answer.
const POLICIES: [ConflictPolicy; 4] = [
    ConflictPolicy::Replace,
    ConflictPolicy::KeepBoth,
    ConflictPolicy::Merge,
    ConflictPolicy::ReplaceIfNewer,
];

fn step() -> impl Strategy<Value = Step> {
    let name = "[a-e]{1,2}";
    prop_oneof![
        (0usize..64, 0usize..64).prop_map(|(a, b)| Step::Copy(a, b)),
        (0usize..64, 0usize..64).prop_map(|(a, b)| Step::Move(a, b)),
        (0usize..64, name).prop_map(|(a, n)| Step::Rename(a, n)),
        (0usize..64, name).prop_map(|(a, n)| Step::Mkdir(a, n)),
        (0usize..64, 0usize..64, 0..POLICIES.len()).prop_map(|(a, b, p)| Step::CopyAs(a, b, p)),
        (0usize..64, 0usize..64, 0..POLICIES.len()).prop_map(|(a, b, p)| Step::MoveAs(a, b, p)),
        (0usize..64).prop_map(Step::Trash),
    ]
}

/// Everything below `root` (folders, then all), for picking job arguments by index.
fn items(root: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let all: Vec<PathBuf> = snapshot(root).keys().map(|k| root.join(k)).collect();
    let mut dirs: Vec<PathBuf> = all.iter().filter(|p| p.is_dir()).cloned().collect();
    dirs.push(root.to_path_buf());
    (dirs, all)
}

/// Runs `steps` on a small tree, journaled, then undoes them all: the tree must be as it was,
/// and nothing left to undo.
fn undo_restores_the_tree_after(steps: Vec<Step>) -> Result<(), TestCaseError> {
    undo_restores_the_tree_after_paced(steps, Duration::ZERO)
}

/// [`undo_restores_the_tree_after`] with `pause` before each job, as a user's jobs are
/// apart: what is judged by the time a job started must hold however long after it comes.
fn undo_restores_the_tree_after_paced(
    steps: Vec<Step>,
    pause: Duration,
) -> Result<(), TestCaseError> {
    let mut steps = steps.into_iter();
    undo_restores_the_tree_after_jobs(|root, s| {
        std::thread::sleep(pause);
        for step in steps.by_ref() {
            let (dirs, all) = items(root);
            let pick = |list: &[PathBuf], i: usize| list[i % list.len()].clone();
            return Some(match step {
                Step::Copy(a, b) if !all.is_empty() => copy(vec![pick(&all, a)], &pick(&dirs, b)),
                Step::Move(a, b) if !all.is_empty() => moving(vec![pick(&all, a)], &pick(&dirs, b)),
                Step::Rename(a, name) if !all.is_empty() => Job::Rename {
                    path: pick(&all, a),
                    new_name: name.into(),
                },
                Step::Mkdir(a, name) => Job::CreateFolder {
                    parent: pick(&dirs, a),
                    name: name.into(),
                },
                Step::CopyAs(a, b, p) if !all.is_empty() => Job::Copy {
                    sources: vec![pick(&all, a)],
                    dest_dir: pick(&dirs, b),
                    dest_name: None,
                    on_conflict: POLICIES[p],
                },
                Step::MoveAs(a, b, p) if !all.is_empty() => Job::Move {
                    sources: vec![pick(&all, a)],
                    dest_dir: pick(&dirs, b),
                    dest_name: None,
                    on_conflict: POLICIES[p],
                },
                Step::Trash(a) if !all.is_empty() => Job::Trash {
                    paths: vec![pick(&all, a)],
                    roots: s.trash.clone(),
                },
                _ => continue,
            });
        }
        None
    })
}

/// Runs the jobs `next` gives, each made after the one before has run, on a small tree
/// (`a.txt`, `x/b.txt`, `x/y/c.txt`, `z/`), then undoes them all (see above).
fn undo_restores_the_tree_after_jobs(
    mut next: impl FnMut(&Path, &Setup) -> Option<Job>,
) -> Result<(), TestCaseError> {
    let t = TempTree::new();
    let s = Setup::new(&t);
    let root = t.dir("root");
    t.file("root/a.txt", "a");
    t.file("root/x/b.txt", "b");
    t.file("root/x/y/c.txt", "c");
    t.dir("root/z");
    let start = manifest(&root);
    let mut journaled = 0;
    while let Some(job) = next(&root, &s) {
        s.run(job);
        // A job that skipped or failed everything is no undo step.
        let newest = s.journal.records().unwrap().pop().unwrap();
        journaled += usize::from(!newest.did_nothing());
    }
    for _ in 0..journaled {
        s.undo();
    }
    prop_assert_eq!(manifest(&root), start);
    prop_assert!(s.journal.undo_candidate().unwrap().is_none());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn undoing_a_random_sequence_of_jobs_restores_the_tree(steps in proptest::collection::vec(step(), 1..7)) {
        undo_restores_the_tree_after(steps)?;
    }
}

/// Sequences the random test failed with. Each ends with a move of `.../y` into a folder that
/// has a `y` already: merged into it (its `c.txt` moved there, the emptied folder removed).
/// Undoing that move makes the removed folder anew to put `c.txt` back, with a new inode;
/// the undo of the earlier job that made or moved that folder took it for something else and
/// kept it. Here `x` is copied beside itself as `x (copy)`, `x/y/c.txt` renamed to `a`, then
/// `x (copy)/y` merged into `x/y`: undo left `x (copy)` and `x (copy)/y` behind.
#[test]
fn undoing_a_copy_a_rename_and_a_merging_move_restores_the_tree() {
    let steps = vec![
        Step::Copy(7, 51),
        Step::Rename(14, "a".into()),
        Step::Move(47, 6),
    ];
    undo_restores_the_tree_after(steps).unwrap();
}

/// As above, for a folder an earlier job moved: `x/y` moved to `z/y`, copied to `y`, `y/c.txt`
/// renamed to `a`, then `z/y` merged into `y`. Undo left `z/y` where the first move put it.
/// With the jobs apart (by more than the clock's slack), the undo of the first move took the
/// folder made anew, born after that move, for a folder made since under its name.
#[test]
fn undoing_a_move_of_a_folder_later_merged_away_moves_it_back() {
    let steps = vec![
        Step::Move(45, 58),
        Step::Copy(16, 3),
        Step::Rename(36, "a".into()),
        Step::Move(14, 39),
    ];
    undo_restores_the_tree_after(steps.clone()).unwrap();
    undo_restores_the_tree_after_paced(steps, Duration::ZERO).unwrap();
}

/// As above, for an empty folder: `z` copied into `x` as `x/z`, then `z` moved into `x`,
/// merged into the empty `x/z` and removed. Undo never made `z` again.
#[test]
fn undoing_a_move_that_merged_an_empty_folder_makes_it_again() {
    undo_restores_the_tree_after(vec![Step::Copy(5, 52), Step::Move(6, 15)]).unwrap();
}

/// As above, with a rename between: `z/a` made, renamed to `z/e`, then merged into `x/e`
/// (`x/y` renamed so). Undoing the move makes `z/e` anew, undoing the rename moves it back to
/// `z/a`: the undo of the new folder must know it there by its new identity, not keep it.
#[test]
fn undoing_a_rename_of_a_folder_a_move_later_remade_restores_the_tree() {
    let steps = vec![
        Step::Mkdir(30, "a".into()),
        Step::Rename(10, "e".into()),
        Step::Rename(6, "e".into()),
        Step::Move(6, 5),
    ];
    undo_restores_the_tree_after(steps).unwrap();
}

/// As above, for a folder made anew below the renamed one: `z/a/b` made, copied to `b`,
/// `z/a` renamed to `z/e`, then `z/e/b` merged into `b`. Undoing the rename carries the
/// remade `z/e/b` to `z/a/b`, which the undo of its making then removes.
#[test]
fn undoing_a_rename_carries_a_folder_made_anew_below_it() {
    let mut jobs = vec![
        |r: &Path| Job::CreateFolder {
            parent: r.join("z"),
            name: "a".into(),
        },
        |r: &Path| Job::CreateFolder {
            parent: r.join("z/a"),
            name: "b".into(),
        },
        |r: &Path| copy(vec![r.join("z/a/b")], r),
        |r: &Path| Job::Rename {
            path: r.join("z/a"),
            new_name: "e".into(),
        },
        |r: &Path| moving(vec![r.join("z/e/b")], r),
    ]
    .into_iter();
    undo_restores_the_tree_after_jobs(|root, _| jobs.next().map(|job| job(root))).unwrap();
}

/// A folder merged into is not carried: `x/y/k` made, `z/y` (holding `w`) merged into `x/y`,
/// then `x/y/k` merged into a new `k` and removed. Undoing that remakes `x/y/k`; undoing the
/// merge of `z/y` takes back only `w` and leaves `x/y` (and the remade `x/y/k`) where they
/// are, so the undo of the making of `x/y/k` must know it there.
#[test]
fn undoing_a_merge_into_a_folder_leaves_a_folder_made_anew_inside_it() {
    let mut jobs = vec![
        |r: &Path| Job::CreateFolder {
            parent: r.join("x/y"),
            name: "k".into(),
        },
        |r: &Path| Job::CreateFolder {
            parent: r.join("z"),
            name: "y".into(),
        },
        |r: &Path| Job::CreateFolder {
            parent: r.join("z/y"),
            name: "w".into(),
        },
        |r: &Path| moving(vec![r.join("z/y")], &r.join("x")),
        |r: &Path| Job::CreateFolder {
            parent: r.to_path_buf(),
            name: "k".into(),
        },
        |r: &Path| moving(vec![r.join("x/y/k")], r),
    ]
    .into_iter();
    undo_restores_the_tree_after_jobs(|root, _| jobs.next().map(|job| job(root))).unwrap();
}
