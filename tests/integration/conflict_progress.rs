//! Progress that adds up: while conflicts wait for answers, what is asked about counts as
//! still to do, in items and bytes, until it is answered and done (or skipped); a job of
//! several runs (an undo putting back into several folders) says one total for them all.

use ferry_core::jobs::{ConflictKind, ConflictPolicy, Event, Phase, Resolution, Scope};
use ferry_tests::TempTree;

use crate::jobs_conflicts::{copy, run_asking};

/// Items asked about count as still to do: merged into a folder holding half its files,
/// once the other half was copied the job read "1,501 of 1,501 items · 0 s left" until the
/// answer about the rest had been planned (the jobs panel showed it as soon as the dialog
/// was answered).
#[test]
fn progress_counts_the_items_asked_about_as_to_do() {
    let t = TempTree::new();
    for i in 0..3000 {
        t.file(format!("src/x/f{i}"), "new");
        if i % 2 == 0 {
            t.file(format!("dest/x/f{i}"), "old");
        }
    }
    let (out, _) = run_asking(
        copy(vec![t.join("src/x")], &t.join("dest"), ConflictPolicy::Ask),
        |c| match c.kind {
            ConflictKind::FolderExists => Some((Resolution::Merge, Scope::This)),
            _ => Some((Resolution::KeepBoth, Scope::AllOfKind)),
        },
    );
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    let progress: Vec<_> = (out.events.iter())
        .filter_map(|e| match e {
            Event::Progress { progress: p, .. } if p.phase != Phase::Planning => {
                Some((p.items_done, p.items_total, p.bytes_done, p.bytes_total))
            }
            _ => None,
        })
        .collect();
    let (last, before) = progress.split_last().expect("progress reported");
    assert_eq!(*last, (3001, 3001, 9000, 9000), "{progress:?}");
    // The bytes of the files asked about count too: "4.5 kB of 4.5 kB" was said.
    assert!(
        (before.iter()).all(|&(done, total, bytes, of)| done < total && (of == 0 || bytes < of)),
        "all done before the end: {progress:?}"
    );
}

/// An undo that puts back into two folders plans twice: its second plan's total replaced the
/// first's while the items done went on counting ("34,133 of 19,978 items").
#[test]
fn an_undo_putting_back_into_two_folders_says_one_total() {
    let t = TempTree::new();
    let s = crate::undo::Setup::new(&t);
    for i in 0..20 {
        t.file(format!("a/x/f{i}"), "x");
        t.file(format!("b/y/f{i}"), "y");
    }
    let dest = t.dir("dest");
    let out = s.run(crate::undo::moving(
        vec![t.join("a/x"), t.join("b/y")],
        &dest,
    ));
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    let out = s.undo();
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    let planned: Vec<u64> = (out.events.iter())
        .filter_map(|e| match e {
            Event::Planned { totals, .. } => Some(totals.items),
            _ => None,
        })
        .collect();
    assert!(planned.len() >= 2, "{planned:?}");
    assert!(planned.windows(2).all(|w| w[0] < w[1]), "{planned:?}");
    for e in &out.events {
        if let Event::Progress { progress: p, .. } = e {
            assert!(p.items_done <= p.items_total, "{p:?}");
        }
    }
}
