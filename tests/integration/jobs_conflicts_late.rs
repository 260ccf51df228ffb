//! Conflicts found while writing: a name taken between plan and copy is asked about again
//! (or given a new name with `keep-both`), never clobbered, and a folder made meanwhile is
//! merged into as planning would have merged it. And answers meeting what changed since they
//! were given: each holds for the very item it was about.

use std::fs;

use ferry_core::Error;
use ferry_core::jobs::{
    ConflictKind, ConflictPolicy, Engine, ErrorPolicy, Event, Job, JobOptions, Resolution, Scope,
};
use ferry_tests::TempTree;

use crate::jobs_conflicts::{copy, run_asking};
use crate::jobs_support::assert_no_temporaries;

/// A file or folder name taken between plan and copy: with `keep-both` the item gets a new
/// name, as it would have had the name been taken before, and with `ask`, answered "keep
/// both", the same. Either way the job is complete: the folder's contents went with it.
#[test]
fn a_name_taken_after_planning_gets_a_new_one_with_keep_both_or_its_answer() {
    for policy in [ConflictPolicy::KeepBoth, ConflictPolicy::Ask] {
        let t = TempTree::new();
        let late = t.file("src/late", "new");
        t.file("src/tree/inner", "inside");
        let other = t.file("src/other", "other");
        let sources = vec![late, t.join("src/tree"), other];
        let dest = t.dir("dest");
        let (engine, events) = Engine::start_with(crate::jobs_support::staging_in_tree());
        let id = engine.submit_paused(copy(sources.clone(), &dest, policy));
        let mut asked = 0;
        let summary = loop {
            match events.recv().unwrap() {
                Event::Planned { .. } => {
                    t.file("dest/late", "appeared meanwhile");
                    t.file("dest/tree/theirs", "theirs");
                    engine.resume(id);
                }
                Event::Conflicts { conflicts, .. } => {
                    assert_eq!(policy, ConflictPolicy::Ask, "keep-both asked");
                    for c in conflicts {
                        assert!(engine.resolve(id, c.id, Resolution::KeepBoth, Scope::This));
                        asked += 1;
                    }
                }
                Event::Finished { summary, .. } => break summary,
                Event::Cancelled { .. } => panic!("cancelled"),
                _ => {}
            }
        };
        assert_eq!(asked, if policy == ConflictPolicy::Ask { 2 } else { 0 });
        assert!(summary.is_complete(), "{policy:?}: {summary:#?}");
        assert_eq!(summary.done, sources, "{policy:?}");
        assert_eq!(fs::read(dest.join("late")).unwrap(), b"appeared meanwhile");
        assert_eq!(fs::read(dest.join("late (copy)")).unwrap(), b"new");
        assert_eq!(fs::read(dest.join("tree/theirs")).unwrap(), b"theirs");
        assert!(
            !dest.join("tree/inner").exists(),
            "merged into their folder"
        );
        assert_eq!(fs::read(dest.join("tree (copy)/inner")).unwrap(), b"inside");
        assert_eq!(fs::read(dest.join("other")).unwrap(), b"other");
        assert_no_temporaries(&dest);
    }
}

/// A folder of the same name made between plan and copy (by another job, another program) is
/// merged into, as it would have been had it been there when the job planned: with the
/// policies that merge folders (all but `ask` and `keep-both`), for a copy and a move, and for
/// a journaled copy, whose new folder is filled under a hidden name first (`fresh.rs`). It
/// was skipped whole, "already exists", with nothing of it copied. The hidden copy withdrawn
/// counts for nothing: a copy counts what it did the same either way.
#[test]
fn a_folder_made_after_planning_is_merged_into_as_the_policy_says() {
    for policy in [
        ConflictPolicy::Skip,
        ConflictPolicy::Merge,
        ConflictPolicy::Replace,
    ] {
        let mut copied = Vec::new();
        for (journaled, moving) in [(false, false), (true, false), (false, true)] {
            let case = format!("{policy:?}, journaled {journaled}, move {moving}");
            let t = TempTree::new();
            let tree = t.dir("src/tree");
            t.file("src/tree/inner", "inside");
            t.file("src/tree/both", "mine");
            let dest = t.dir("dest");
            let job = match moving {
                false => copy(vec![tree.clone()], &dest, policy),
                true => Job::Move {
                    sources: vec![tree.clone()],
                    dest_dir: dest.clone(),
                    dest_name: None,
                    on_conflict: policy,
                },
            };
            let (engine, events) = Engine::start_with(crate::jobs_support::staging_in_tree());
            let paused = JobOptions {
                paused: true,
                ..JobOptions::default()
            };
            let id = match journaled {
                true => engine.submit_journaled(job, paused, 1),
                false => engine.submit_with(job, paused),
            };
            let summary = loop {
                match events.recv().unwrap() {
                    Event::Planned { .. } => {
                        t.file("dest/tree/theirs", "theirs");
                        t.file("dest/tree/both", "theirs too");
                        engine.resume(id);
                    }
                    Event::Conflicts { .. } => panic!("{case}: asked"),
                    Event::Finished { summary, .. } => break summary,
                    Event::Cancelled { .. } => panic!("{case}: cancelled"),
                    _ => {}
                }
            };
            assert!(summary.failed.is_empty(), "{case}: {summary:#?}");
            assert_eq!(
                fs::read(dest.join("tree/inner")).unwrap(),
                b"inside",
                "{case}"
            );
            assert_eq!(
                fs::read(dest.join("tree/theirs")).unwrap(),
                b"theirs",
                "{case}"
            );
            let both = fs::read(dest.join("tree/both")).unwrap();
            let expected: &[u8] = match policy {
                ConflictPolicy::Replace => b"mine",
                _ => b"theirs too",
            };
            assert_eq!(both, expected, "{case}");
            assert_eq!(tree.join("inner").exists(), !moving, "{case}");
            assert_no_temporaries(&dest);
            if !moving {
                copied.push((summary.items_done, summary.bytes_done));
            }
        }
        assert_eq!(
            copied[0], copied[1],
            "{policy:?}: counted, plain then journaled"
        );
    }
}

#[test]
fn a_name_taken_after_planning_is_asked_again_never_clobbered() {
    let t = TempTree::new();
    let sources = vec![t.file("src/late", "new"), t.file("src/other", "other")];
    let dest = t.dir("dest");
    let (engine, events) = Engine::start_with(crate::jobs_support::staging_in_tree());
    let id = engine.submit_paused(copy(sources.clone(), &dest, ConflictPolicy::Ask));
    let (mut asked, mut bytes) = (Vec::new(), None);
    let summary = loop {
        match events.recv().unwrap() {
            Event::Planned { .. } => {
                t.file("dest/late", "appeared meanwhile");
                engine.resume(id);
            }
            Event::Progress { progress: p, .. } => bytes = Some((p.bytes_done, p.bytes_total)),
            Event::Conflicts { conflicts, .. } => {
                for c in conflicts {
                    assert!(engine.resolve(id, c.id, Resolution::KeepBoth, Scope::This));
                    asked.push(c);
                }
            }
            Event::Finished { summary, .. } => break summary,
            Event::Cancelled { .. } => panic!("cancelled"),
            _ => {}
        }
    };
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].kind, ConflictKind::FileExists);
    assert_eq!(asked[0].source.path, sources[0]);
    assert_eq!(fs::read(dest.join("late")).unwrap(), b"appeared meanwhile");
    assert_eq!(fs::read(dest.join("late (copy)")).unwrap(), b"new");
    assert!(summary.is_complete(), "{summary:#?}");
    assert_eq!(summary.done, sources);
    assert_no_temporaries(&dest);
    // Written before its name was found taken, then again once answered: counted once.
    assert_eq!(bytes, Some((8, 8)), "bytes done of the total");
}

/// `mv n/Photos/Photos n/` answered Replace: what is in the way is the folder the file is in.
/// Set aside with it, the file went too, and its undo could not bring the folder back (it
/// stayed in the staging folder, out of reach). The item fails, naming why; nothing moves.
#[test]
fn a_move_never_replaces_the_folder_its_item_is_in() {
    let t = TempTree::new();
    let file = t.file("n/Photos/Photos", "cover");
    t.file("n/Photos/holiday.jpg", "IMPORTANT");
    let job = Job::Move {
        sources: vec![file.clone()],
        dest_dir: t.join("n"),
        dest_name: None,
        on_conflict: ConflictPolicy::Ask,
    };
    let (out, conflicts) =
        crate::jobs_conflicts::run_asking(job, |_| Some((Resolution::Replace, Scope::This)));
    assert_eq!(conflicts.len(), 1);
    assert_eq!(conflicts[0].kind, ConflictKind::FileVsFolder);
    assert_eq!(out.summary.failed.len(), 1, "{:#?}", out.summary);
    let said = out.summary.failed[0].error.to_string();
    assert!(said.contains("the folder it is in"), "{said}");
    assert_eq!(
        fs::read(t.join("n/Photos/holiday.jpg")).unwrap(),
        b"IMPORTANT"
    );
    assert_eq!(fs::read(&file).unwrap(), b"cover");
    assert_no_temporaries(t.path());
}

/// A large file, written through its part (`partial.rs`), whose name another program takes
/// once it is written is put in place under the name the answer gives without being written
/// again: the copy is the part written the first time. The test keeps that part open, so
/// that its inode number cannot go to another file meanwhile. It was written twice: the part
/// removed when the name was found taken, then copied anew once answered.
#[test]
fn a_large_file_whose_name_is_taken_once_written_is_not_written_again() {
    use std::os::unix::fs::MetadataExt;

    use crate::resume::{parts_in, same_contents, write_data};
    let t = TempTree::new();
    let home = t.dir("home");
    let src = t.join("big.bin");
    write_data(&src, 65); // over `PART_MIN_SIZE`
    let dest = t.dir("dest");
    let pause = crate::faults::Pause::at("file-written");
    let mut copy = crate::ferry_in(&home);
    copy.args(["cp", "--on-conflict", "keep-both"])
        .arg(&src)
        .arg(&dest);
    let held = pause.start_held(&mut copy);
    let parts = parts_in(&dest);
    assert_eq!(parts.len(), 1, "{parts:?}");
    let part = fs::File::open(&parts[0]).unwrap();
    fs::write(dest.join("big.bin"), "made meanwhile").unwrap();
    pause.release(held.id());
    let out = held.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(fs::read(dest.join("big.bin")).unwrap(), b"made meanwhile");
    let copied = dest.join("big (copy).bin");
    assert!(same_contents(&src, &copied));
    let ino = |m: fs::Metadata| (m.dev(), m.ino());
    let first = ino(part.metadata().unwrap());
    assert_eq!(ino(fs::metadata(&copied).unwrap()), first, "written again");
    assert!(parts_in(&dest).is_empty());
    assert_no_temporaries(&dest);
}

/// A file name taken between plan and copy (another job copying there too) is answered as
/// the policy answers at planning: `replace` replaces it (kept aside for undo), `replace-if-
/// newer` only when the source is newer. `--on-conflict replace` skipped every such file.
#[test]
fn a_name_taken_after_planning_is_answered_as_the_policy_says() {
    for (policy, replaced) in [
        (ConflictPolicy::Replace, true),
        (ConflictPolicy::ReplaceIfNewer, false),
    ] {
        let t = TempTree::new();
        let late = t.file("src/late", "new");
        crate::jobs_support::set_mtime(&late, 1_000_000_000);
        let dest = t.dir("dest");
        let (engine, events) = Engine::start_with(crate::jobs_support::staging_in_tree());
        let id = engine.submit_paused(copy(vec![late.clone()], &dest, policy));
        let summary = loop {
            match events.recv().unwrap() {
                Event::Planned { .. } => {
                    t.file("dest/late", "appeared meanwhile");
                    engine.resume(id);
                }
                Event::Conflicts { .. } => panic!("{policy:?} asked"),
                Event::Finished { summary, .. } => break summary,
                Event::Cancelled { .. } => panic!("cancelled"),
                _ => {}
            }
        };
        let now = fs::read(dest.join("late")).unwrap();
        if replaced {
            assert!(summary.is_complete(), "{policy:?}: {summary:#?}");
            assert_eq!(summary.done, std::slice::from_ref(&late));
            assert_eq!(now, b"new");
        } else {
            assert_eq!(summary.skipped.len(), 1, "{policy:?}: {summary:#?}");
            assert_eq!(now, b"appeared meanwhile");
        }
        assert_no_temporaries(&dest);
    }
}

/// Replace, answered about a file that another program replaced by a folder while the
/// question was open: it replaced the folder. The item is asked about again, as it is now.
#[test]
fn an_answer_given_about_a_file_does_not_replace_the_folder_put_there_since() {
    let t = TempTree::new();
    let src = t.file("src/report.txt", "new");
    t.file("dest/report.txt", "old");
    let dest = t.join("dest");
    let (out, conflicts) = run_asking(copy(vec![src], &dest, ConflictPolicy::Ask), |c| {
        match c.kind {
            ConflictKind::FileExists => {
                fs::remove_file(dest.join("report.txt")).unwrap();
                fs::create_dir(dest.join("report.txt")).unwrap();
                fs::write(dest.join("report.txt/inside"), "the user's").unwrap();
                Some((Resolution::Replace, Scope::This))
            }
            _ => Some((Resolution::Skip, Scope::This)),
        }
    });
    let kinds: Vec<ConflictKind> = conflicts.iter().map(|c| c.kind).collect();
    assert_eq!(
        kinds,
        [ConflictKind::FileExists, ConflictKind::FileVsFolder],
        "asked again"
    );
    assert_eq!(
        fs::read(dest.join("report.txt/inside")).unwrap(),
        b"the user's"
    );
    assert_eq!(out.summary.skipped.len(), 1, "{:#?}", out.summary);
}

/// Replace decided about a file; another program put a folder there before the job wrote
/// (a race a shell loop won for 114 of 300 items): the folder was set aside for the file.
/// What is set aside must be what the decision was about; the folder goes back.
/// Replace, answered about one file, while another program swapped another file in under
/// its name: the other file was set aside. An answer holds for the item it was about.
#[test]
fn an_answer_given_about_a_file_is_not_carried_out_on_another_file_swapped_in() {
    let t = TempTree::new();
    let src = t.file("src/a.txt", "source");
    t.file("dest/a.txt", "old");
    t.file("dest/other", "the other file");
    let dest = t.join("dest");
    let mut asked = 0;
    let (out, conflicts) = run_asking(copy(vec![src], &dest, ConflictPolicy::Ask), |_| {
        asked += 1;
        if asked > 1 {
            return Some((Resolution::Skip, Scope::This));
        }
        fs::rename(dest.join("a.txt"), dest.join("held")).unwrap();
        fs::rename(dest.join("other"), dest.join("a.txt")).unwrap();
        fs::rename(dest.join("held"), dest.join("other")).unwrap();
        Some((Resolution::Replace, Scope::This))
    });
    assert_eq!(conflicts.len(), 2, "asked again: {conflicts:#?}");
    assert_eq!(fs::read(dest.join("a.txt")).unwrap(), b"the other file");
    assert_eq!(fs::read(dest.join("other")).unwrap(), b"old");
    assert_eq!(out.summary.skipped.len(), 1, "{:#?}", out.summary);
}

#[test]
fn replace_never_sets_aside_an_item_put_there_since_the_decision() {
    let t = TempTree::new();
    let src = t.file("src/n", "new");
    t.file("dest/n", "old");
    let dest = t.join("dest");
    let (engine, events) = Engine::start_with(crate::jobs_support::staging_in_tree());
    let options = JobOptions {
        paused: true,
        on_error: ErrorPolicy::Skip,
    };
    let id = engine.submit_with(copy(vec![src], &dest, ConflictPolicy::Replace), options);
    let summary = loop {
        match events.recv().unwrap() {
            Event::Planned { .. } => {
                fs::remove_file(dest.join("n")).unwrap();
                fs::create_dir(dest.join("n")).unwrap();
                fs::write(dest.join("n/inner"), "the user's").unwrap();
                engine.resume(id);
            }
            Event::Finished { summary, .. } => break summary,
            _ => {}
        }
    };
    assert_eq!(fs::read(dest.join("n/inner")).unwrap(), b"the user's");
    assert_eq!(summary.failed.len(), 1, "{summary:#?}");
    assert!(
        matches!(*summary.failed[0].error, Error::Changed { .. }),
        "{summary:#?}"
    );
    assert_no_temporaries(&dest);
}
