//! Conflicts as data: every kind found at plan time and reported together, each resolution
//! applied to one conflict or to all of its kind, Replace keeping the old item in staging,
//! and `ferry cp --on-conflict` (conflicts found while writing, and answers meeting what
//! changed since, are in `jobs_conflicts_late.rs`; errors asked about in `jobs_requests.rs`).

use std::fs;
use std::path::{Path, PathBuf};

use ferry_core::Error;
use ferry_core::jobs::{
    Conflict, ConflictKind, ConflictPolicy, Engine, Event, How, Job, Resolution, Scope, SkipReason,
    StagingRoots,
};
use ferry_tests::TempTree;

use crate::jobs_support::{Outcome, assert_accounts_for, assert_no_temporaries, set_mtime};
use crate::run_ferry;

pub(crate) fn copy(sources: Vec<PathBuf>, dest: &Path, on_conflict: ConflictPolicy) -> Job {
    Job::Copy {
        sources,
        dest_dir: dest.to_path_buf(),
        dest_name: None,
        on_conflict,
    }
}

/// Runs `job`, answering each conflict with `answer`; returns what happened and every
/// conflict reported.
pub(crate) fn run_asking(
    job: Job,
    answer: impl FnMut(&Conflict) -> Option<(Resolution, Scope)>,
) -> (Outcome, Vec<Conflict>) {
    run_asking_with(crate::jobs_support::staging_in_tree(), job, answer)
}

/// [`run_asking`] on an engine that keeps replaced items where `staging` says.
pub(crate) fn run_asking_with(
    staging: StagingRoots,
    job: Job,
    mut answer: impl FnMut(&Conflict) -> Option<(Resolution, Scope)>,
) -> (Outcome, Vec<Conflict>) {
    let (engine, events) = Engine::start_with(staging);
    let id = engine.submit(job);
    let mut seen = Vec::new();
    let mut conflicts = Vec::new();
    for event in events.iter() {
        match event {
            Event::Conflicts { job, conflicts: c } if job == id => {
                for conflict in &c {
                    if let Some((r, scope)) = answer(conflict) {
                        // An earlier "all of this kind" may have answered it already.
                        engine.resolve(id, conflict.id, r, scope);
                    }
                }
                conflicts.extend(c.iter().cloned());
                seen.push(Event::Conflicts { job, conflicts: c });
            }
            Event::Finished { job, summary } if job == id => {
                let out = Outcome {
                    summary,
                    cancelled: false,
                    events: seen,
                };
                return (out, conflicts);
            }
            Event::Cancelled { job, summary } if job == id => {
                let out = Outcome {
                    summary,
                    cancelled: true,
                    events: seen,
                };
                return (out, conflicts);
            }
            e => seen.push(e),
        }
    }
    panic!("the engine hung up before the job ended");
}

pub(crate) fn once(r: Resolution) -> impl FnMut(&Conflict) -> Option<(Resolution, Scope)> {
    move |_| Some((r.clone(), Scope::This))
}

/// `src/{a,b}` (new) onto `dest/{a,b}` (old, older).
fn two_files(t: &TempTree) -> (Vec<PathBuf>, PathBuf) {
    let sources = vec![t.file("src/a", "new a"), t.file("src/b", "new b")];
    t.file("dest/a", "old a");
    t.file("dest/b", "old b");
    for s in &sources {
        set_mtime(s, 2_000_000_000);
    }
    (sources, t.join("dest"))
}

#[test]
fn file_conflicts_are_reported_together_with_both_sides() {
    let t = TempTree::new();
    let (sources, dest) = two_files(&t);
    t.file("src/same", "identical");
    t.file("dest/same", "identical");
    t.file("src/fresh", "no conflict");
    let mut all = sources.clone();
    all.extend([t.join("src/same"), t.join("src/fresh")]);
    let (out, conflicts) = run_asking(copy(all.clone(), &dest, ConflictPolicy::Ask), |_| {
        Some((Resolution::Skip, Scope::This))
    });
    let batches = out
        .events
        .iter()
        .filter(|e| matches!(e, Event::Conflicts { .. }))
        .count();
    assert_eq!(batches, 1, "one event for the whole batch");
    assert_eq!(conflicts.len(), 3);
    let a = &conflicts[0];
    assert_eq!(a.kind, ConflictKind::FileExists);
    assert_eq!(
        (a.source.path.as_path(), a.source.size),
        (sources[0].as_path(), 5)
    );
    assert_eq!(
        (a.dest.path.as_path(), a.dest.size),
        (dest.join("a").as_path(), 5)
    );
    assert_eq!(a.source.mtime.sec, 2_000_000_000);
    assert!(!a.likely_identical, "same size, different bytes");
    assert!(conflicts[2].likely_identical);
    // The item without a conflict went on; the skipped ones kept the old contents.
    assert_eq!(fs::read(dest.join("fresh")).unwrap(), b"no conflict");
    assert_eq!(fs::read(dest.join("a")).unwrap(), b"old a");
    assert_eq!(out.summary.skipped.len(), 3);
    assert!(
        out.summary
            .skipped
            .iter()
            .all(|s| s.reason == SkipReason::Exists)
    );
    assert_accounts_for(&out.summary, &all);
    assert_no_temporaries(t.path());
}

#[test]
fn link_conflicts_tell_where_each_side_points() {
    let t = TempTree::new();
    t.dir("src");
    t.dir("dest");
    let link = |target: &str, at: &str| std::os::unix::fs::symlink(target, t.join(at)).unwrap();
    link("../music/song.mp3", "src/same");
    link("../music/song.mp3", "dest/same");
    link("/etc/hostname", "src/other");
    link("/etc/passwd", "dest/other");
    t.file("dest/file", "a file");
    link("elsewhere", "src/file");
    let sources = vec![t.join("src/same"), t.join("src/other"), t.join("src/file")];
    let (_, conflicts) = run_asking(copy(sources, &t.join("dest"), ConflictPolicy::Ask), |_| {
        Some((Resolution::Skip, Scope::This))
    });
    let find = |name: &str| {
        let found = conflicts.iter().find(|c| c.dest.name == name);
        found.unwrap_or_else(|| panic!("no conflict for {name}: {conflicts:?}"))
    };
    let target = |c: &Conflict| {
        let sides = [&c.source, &c.dest];
        sides.map(|s| {
            s.link_target
                .as_ref()
                .map(|p| p.to_str().unwrap().to_owned())
        })
    };
    let same = find("same");
    assert_eq!(
        target(same),
        [0, 1].map(|_| Some("../music/song.mp3".to_owned()))
    );
    assert!(same.likely_identical, "two links to one place");
    let other = find("other");
    let expected = [
        Some("/etc/hostname".to_owned()),
        Some("/etc/passwd".to_owned()),
    ];
    assert_eq!(target(other), expected);
    assert!(!other.likely_identical);
    let file = find("file");
    assert_eq!(target(file), [Some("elsewhere".to_owned()), None]);
    assert!(!file.likely_identical);
}

#[test]
fn replace_keeps_the_old_file_in_staging_byte_for_byte() {
    let t = TempTree::new();
    let (sources, dest) = two_files(&t);
    let (out, _) = run_asking(
        copy(sources.clone(), &dest, ConflictPolicy::Ask),
        once(Resolution::Replace),
    );
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(out.summary.done, sources);
    assert_eq!(fs::read(dest.join("a")).unwrap(), b"new a");
    let entries: Vec<_> = out.summary.record.entries().collect();
    assert_eq!(entries.len(), 2);
    for (e, old) in entries.iter().zip(["old a", "old b"]) {
        assert_eq!(e.how, How::Replaced);
        let staged = e.staged.as_ref().expect("the old file is kept");
        assert_eq!(fs::read(staged).unwrap(), old.as_bytes());
        let folder = staged.parent().unwrap().file_name().unwrap();
        assert!(folder.to_string_lossy().starts_with(".ferry-replaced-"));
        fs::remove_file(staged).unwrap();
    }
    assert_no_temporaries(&dest);
}

#[test]
fn replace_by_policy_keeps_the_old_file_too() {
    let t = TempTree::new();
    let (sources, dest) = two_files(&t);
    let out = crate::jobs_support::run_job(copy(sources, &dest, ConflictPolicy::Replace));
    let staged: Vec<_> = out
        .summary
        .record
        .entries()
        .filter_map(|e| e.staged)
        .collect();
    assert_eq!(staged.len(), 2);
    assert_eq!(fs::read(&staged[0]).unwrap(), b"old a");
    for s in staged {
        fs::remove_file(s).unwrap();
    }
}

#[test]
fn replace_if_newer_replaces_only_older_files() {
    let t = TempTree::new();
    let (sources, dest) = two_files(&t);
    set_mtime(&dest.join("b"), 2_100_000_000); // newer than the source
    for policy in [ConflictPolicy::Ask, ConflictPolicy::ReplaceIfNewer] {
        fs::write(dest.join("a"), "old a").unwrap();
        set_mtime(&dest.join("a"), 1_000_000_000);
        let (out, _) = run_asking(
            copy(sources.clone(), &dest, policy),
            once(Resolution::ReplaceIfNewer),
        );
        assert_eq!(fs::read(dest.join("a")).unwrap(), b"new a");
        assert_eq!(fs::read(dest.join("b")).unwrap(), b"old b");
        assert_eq!(out.summary.skipped.len(), 1, "{policy:?}");
        assert_eq!(out.summary.skipped[0].path, sources[1]);
        for e in out.summary.record.entries() {
            fs::remove_file(e.staged.unwrap()).unwrap();
        }
    }
}

#[test]
fn keep_both_and_rename_to_give_new_names() {
    let t = TempTree::new();
    let (sources, dest) = two_files(&t);
    let (out, _) = run_asking(
        copy(sources.clone(), &dest, ConflictPolicy::Ask),
        once(Resolution::KeepBoth),
    );
    assert_eq!(out.summary.done, sources);
    assert_eq!(fs::read(dest.join("a (copy)")).unwrap(), b"new a");
    assert_eq!(fs::read(dest.join("a")).unwrap(), b"old a");
    let dests: Vec<_> = out.summary.record.entries().map(|e| e.dest).collect();
    assert_eq!(dests, [dest.join("a (copy)"), dest.join("b (copy)")]);
    // Again: the next free name.
    let (_, _) = run_asking(
        copy(sources.clone(), &dest, ConflictPolicy::Ask),
        once(Resolution::KeepBoth),
    );
    assert_eq!(fs::read(dest.join("a (copy 2)")).unwrap(), b"new a");

    let (out, _) = run_asking(
        copy(vec![sources[0].clone()], &dest, ConflictPolicy::Ask),
        |_| Some((Resolution::RenameTo("chosen".into()), Scope::This)),
    );
    assert!(out.summary.is_complete());
    assert_eq!(fs::read(dest.join("chosen")).unwrap(), b"new a");
    // Renaming onto a taken name asks again.
    let mut asked = 0;
    let (out, conflicts) = run_asking(
        copy(vec![sources[0].clone()], &dest, ConflictPolicy::Ask),
        |_| {
            asked += 1;
            Some(match asked {
                1 => (Resolution::RenameTo("chosen".into()), Scope::This),
                _ => (Resolution::Skip, Scope::This),
            })
        },
    );
    assert_eq!(conflicts.len(), 2);
    assert_eq!(conflicts[1].dest.path, dest.join("chosen"));
    assert_eq!(out.summary.skipped.len(), 1);
    assert_eq!(out.summary.skipped[0].path, sources[0]);
    assert_no_temporaries(&dest);
}

#[test]
fn keep_both_keeps_double_extensions_and_fits_the_name_limit() {
    let t = TempTree::new();
    let long = format!("{}.tar.gz", "n".repeat(248)); // 255 bytes
    let sources = vec![
        t.file("src/a.tar.gz", "new"),
        t.file(format!("src/{long}"), "long"),
    ];
    t.file("dest/a.tar.gz", "old");
    t.file(format!("dest/{long}"), "old");
    let dest = t.join("dest");
    let out = crate::jobs_support::run_job(copy(sources, &dest, ConflictPolicy::KeepBoth));
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(fs::read(dest.join("a (copy).tar.gz")).unwrap(), b"new");
    let trimmed = format!("{} (copy).tar.gz", "n".repeat(241));
    assert_eq!(trimmed.len(), 255);
    assert_eq!(fs::read(dest.join(trimmed)).unwrap(), b"long");
}

#[test]
fn answers_for_all_of_a_kind_cover_the_rest() {
    let t = TempTree::new();
    let (sources, dest) = two_files(&t);
    t.dir("src/d");
    t.file("dest/d/x", "x");
    let mut all = sources;
    all.push(t.join("src/d"));
    let mut asked = Vec::new();
    let (out, _) = run_asking(copy(all.clone(), &dest, ConflictPolicy::Ask), |c| {
        asked.push(c.kind);
        match c.kind {
            ConflictKind::FileExists => Some((Resolution::KeepBoth, Scope::AllOfKind)),
            _ => Some((Resolution::Skip, Scope::This)),
        }
    });
    // Asked about all three; the second file's answer came with the first.
    assert_eq!(asked.len(), 3);
    assert!(dest.join("a (copy)").exists() && dest.join("b (copy)").exists());
    assert_eq!(out.summary.skipped.len(), 1, "{:#?}", out.summary);
    assert_accounts_for(&out.summary, &all);
}

#[test]
fn a_merge_keeps_destination_only_files_and_asks_about_what_is_inside() {
    let t = TempTree::new();
    t.file("src/d/inner", "new inner");
    t.file("src/d/added", "added");
    t.file("dest/d/inner", "old inner");
    t.file("dest/d/keep-me", "destination only");
    let dest = t.join("dest");
    let (out, conflicts) = run_asking(
        copy(vec![t.join("src/d")], &dest, ConflictPolicy::Ask),
        |c| {
            Some(match c.kind {
                ConflictKind::FolderExists => (Resolution::Merge, Scope::This),
                _ => (Resolution::Replace, Scope::This),
            })
        },
    );
    let kinds: Vec<_> = conflicts.iter().map(|c| c.kind).collect();
    assert_eq!(
        kinds,
        [ConflictKind::FolderExists, ConflictKind::FileExists]
    );
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(out.summary.done, [t.join("src/d")]);
    assert_eq!(fs::read(dest.join("d/inner")).unwrap(), b"new inner");
    assert_eq!(fs::read(dest.join("d/added")).unwrap(), b"added");
    assert_eq!(
        fs::read(dest.join("d/keep-me")).unwrap(),
        b"destination only"
    );
    let staged: Vec<_> = out
        .summary
        .record
        .entries()
        .filter_map(|e| e.staged)
        .collect();
    assert_eq!(staged.len(), 1);
    assert_eq!(fs::read(&staged[0]).unwrap(), b"old inner");
    fs::remove_file(&staged[0]).unwrap();
}

#[test]
fn folder_resolutions_skip_keep_both_and_replace() {
    let t = TempTree::new();
    t.file("src/d/inner", "new");
    t.file("dest/d/old", "old");
    let (src, dest) = (t.join("src/d"), t.join("dest"));
    let (out, _) = run_asking(
        copy(vec![src.clone()], &dest, ConflictPolicy::Ask),
        once(Resolution::Skip),
    );
    assert_eq!(out.summary.skipped.len(), 1);
    assert!(!dest.join("d/inner").exists());
    let (out, _) = run_asking(
        copy(vec![src.clone()], &dest, ConflictPolicy::Ask),
        once(Resolution::KeepBoth),
    );
    assert!(out.summary.is_complete());
    assert_eq!(fs::read(dest.join("d (copy)/inner")).unwrap(), b"new");
    let (out, _) = run_asking(
        copy(vec![src], &dest, ConflictPolicy::Ask),
        once(Resolution::Replace),
    );
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert!(!dest.join("d/old").exists());
    assert_eq!(fs::read(dest.join("d/inner")).unwrap(), b"new");
    let staged = out.summary.record.entries().find_map(|e| e.staged).unwrap();
    assert_eq!(fs::read(staged.join("old")).unwrap(), b"old");
    fs::remove_dir_all(staged).unwrap();
}

#[test]
fn a_file_and_a_folder_of_one_name_need_a_choice() {
    let t = TempTree::new();
    let file = t.file("src/x", "file");
    t.file("dest/x/inside", "folder");
    let dest = t.join("dest");
    // Without Ask, never replaced.
    let out =
        crate::jobs_support::run_job(copy(vec![file.clone()], &dest, ConflictPolicy::Replace));
    assert!(matches!(
        *out.summary.failed[0].error,
        Error::KindConflict { .. }
    ));
    let (out, conflicts) = run_asking(
        copy(vec![file.clone()], &dest, ConflictPolicy::Ask),
        once(Resolution::KeepBoth),
    );
    assert_eq!(conflicts[0].kind, ConflictKind::FileVsFolder);
    assert!(out.summary.is_complete());
    assert_eq!(fs::read(dest.join("x (copy)")).unwrap(), b"file");
    let (out, _) = run_asking(
        copy(vec![file], &dest, ConflictPolicy::Ask),
        once(Resolution::Replace),
    );
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(fs::read(dest.join("x")).unwrap(), b"file");
    let staged = out.summary.record.entries().find_map(|e| e.staged).unwrap();
    assert_eq!(fs::read(staged.join("inside")).unwrap(), b"folder");
    fs::remove_dir_all(staged).unwrap();
    // A folder onto a file.
    let folder = t.file("src2/y/z", "z");
    t.file("dest/y", "a file");
    let (out, conflicts) = run_asking(
        copy(
            vec![folder.parent().unwrap().to_path_buf()],
            &dest,
            ConflictPolicy::Ask,
        ),
        once(Resolution::Skip),
    );
    assert_eq!(conflicts[0].kind, ConflictKind::FileVsFolder);
    assert_eq!(out.summary.skipped.len(), 1);
    assert_eq!(fs::read(dest.join("y")).unwrap(), b"a file");
}

#[test]
fn two_sources_with_one_name_are_asked_once() {
    let t = TempTree::new();
    let (a, b) = (t.file("a/x", "first"), t.file("b/x", "second"));
    let dest = t.dir("dest");
    let (out, conflicts) = run_asking(
        copy(vec![a.clone(), b.clone()], &dest, ConflictPolicy::Ask),
        once(Resolution::KeepBoth),
    );
    assert_eq!(conflicts.len(), 1);
    assert_eq!(conflicts[0].kind, ConflictKind::DuplicateSource);
    assert_eq!(
        (
            conflicts[0].source.path.as_path(),
            conflicts[0].dest.path.as_path()
        ),
        (b.as_path(), a.as_path())
    );
    assert!(out.summary.is_complete());
    assert_eq!(fs::read(dest.join("x")).unwrap(), b"first");
    assert_eq!(fs::read(dest.join("x (copy)")).unwrap(), b"second");
    let (out, _) = run_asking(
        copy(
            vec![a.clone(), b.clone()],
            &t.dir("dest2"),
            ConflictPolicy::Ask,
        ),
        once(Resolution::Skip),
    );
    assert_eq!(fs::read(t.join("dest2/x")).unwrap(), b"first");
    assert_eq!(out.summary.skipped[0].path, b);
    assert_accounts_for(&out.summary, &[a, b]);
}

#[test]
fn cancel_as_an_answer_stops_the_job() {
    let t = TempTree::new();
    let (sources, dest) = two_files(&t);
    let (out, _) = run_asking(
        copy(sources.clone(), &dest, ConflictPolicy::Ask),
        once(Resolution::Cancel),
    );
    assert!(out.cancelled);
    assert_eq!(fs::read(dest.join("a")).unwrap(), b"old a");
    assert_eq!(out.summary.not_done, sources);
}

#[test]
fn pasting_a_file_into_its_own_folder_duplicates_it() {
    let t = TempTree::new();
    let a = t.file("dir/report.pdf", "precious");
    let out = crate::jobs_support::run_job(copy(
        vec![a.clone()],
        &t.join("dir"),
        ConflictPolicy::Replace,
    ));
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(fs::read(&a).unwrap(), b"precious");
    assert_eq!(
        fs::read(t.join("dir/report (copy).pdf")).unwrap(),
        b"precious"
    );
}

#[test]
fn moves_ask_too_and_keep_both_moves_the_item() {
    let t = TempTree::new();
    let (sources, dest) = two_files(&t);
    let job = Job::Move {
        sources: sources.clone(),
        dest_dir: dest.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Ask,
    };
    let (out, _) = run_asking(job, |c| {
        Some(if c.source.path.ends_with("a") {
            (Resolution::KeepBoth, Scope::This)
        } else {
            (Resolution::Skip, Scope::This)
        })
    });
    assert!(!sources[0].exists(), "moved");
    assert_eq!(
        fs::read(&sources[1]).unwrap(),
        b"new b",
        "skip never deletes"
    );
    assert_eq!(fs::read(dest.join("a (copy)")).unwrap(), b"new a");
    assert_accounts_for(&out.summary, &sources);
}

#[test]
fn cli_ask_without_a_terminal_refuses_and_writes_nothing() {
    let t = TempTree::new();
    let (sources, dest) = two_files(&t);
    t.file("src/fresh", "fresh");
    let before = crate::jobs_support::snapshot(&dest);
    let mut args = vec!["cp".into(), "--on-conflict".into(), "ask".into()];
    args.extend(sources.iter().map(|s| s.clone().into_os_string()));
    args.push(t.join("src/fresh").into_os_string());
    args.push(dest.clone().into_os_string());
    let out = run_ferry(&args);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&*dest.join("a").to_string_lossy()),
        "{stderr}"
    );
    assert_eq!(crate::jobs_support::snapshot(&dest), before);
    let out = run_ferry([
        "cp".as_ref(),
        "--on-conflict".as_ref(),
        "keep-both".as_ref(),
        sources[0].as_os_str(),
        dest.as_os_str(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(fs::read(dest.join("a (copy)")).unwrap(), b"new a");
}

#[test]
fn names_fat_refuses_are_asked_about_before_writing() {
    let t = TempTree::new();
    let image = t.join("fat.img");
    let made = std::process::Command::new("truncate")
        .args(["-s", "16M"])
        .arg(&image)
        .status()
        .is_ok_and(|s| s.success())
        && std::process::Command::new("mkfs.vfat")
            .arg(&image)
            .output()
            .is_ok_and(|o| o.status.success());
    let image = image.to_string_lossy().into_owned();
    let Some(fat) = made
        .then(|| crate::jobs_support::Mounted::new(&t.join("fat"), &["-o", "loop", &image]))
        .flatten()
    else {
        eprintln!("note: no vfat here; test skipped");
        return;
    };
    let sources = vec![t.file("src/a:b", "colon"), t.file("src/ok", "fine")];
    let out = crate::jobs_support::run_job(copy(sources.clone(), &fat.dir, ConflictPolicy::Skip));
    assert!(matches!(
        *out.summary.failed[0].error,
        Error::NameNotAllowed { .. }
    ));
    assert_eq!(fs::read(fat.dir.join("ok")).unwrap(), b"fine");
    fs::remove_file(fat.dir.join("ok")).unwrap();
    let (out, conflicts) = run_asking(copy(sources, &fat.dir, ConflictPolicy::Ask), |_| {
        Some((Resolution::RenameTo("a_b".into()), Scope::This))
    });
    assert_eq!(conflicts.len(), 1);
    assert_eq!(conflicts[0].kind, ConflictKind::NameNotAllowed);
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(fs::read(fat.dir.join("a_b")).unwrap(), b"colon");
    assert!(
        !Resolution::KeepBoth.applies_to(ConflictKind::NameNotAllowed),
        "keep both would keep the bad name"
    );
}

#[test]
fn a_move_across_file_systems_carries_out_answers_and_removes_only_moved_sources() {
    let shm = TempTree::new_in("/dev/shm");
    let t = TempTree::new();
    let sources = vec![shm.file("a", "new a"), shm.file("b", "new b")];
    t.file("dest/a", "old a");
    t.file("dest/b", "old b");
    let dest = t.join("dest");
    let job = Job::Move {
        sources: sources.clone(),
        dest_dir: dest.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Ask,
    };
    let (out, _) = run_asking(job, |c| {
        Some(if c.source.path == sources[0] {
            (Resolution::Replace, Scope::This)
        } else {
            (Resolution::Skip, Scope::This)
        })
    });
    assert!(!sources[0].exists(), "moved");
    assert_eq!(
        fs::read(&sources[1]).unwrap(),
        b"new b",
        "skip never deletes"
    );
    assert_eq!(fs::read(dest.join("a")).unwrap(), b"new a");
    assert_eq!(fs::read(dest.join("b")).unwrap(), b"old b");
    let staged = out.summary.record.entries().find_map(|e| e.staged).unwrap();
    assert_eq!(fs::read(&staged).unwrap(), b"old a");
    fs::remove_file(staged).unwrap();
    assert_accounts_for(&out.summary, &sources);
    assert_no_temporaries(&dest);
}
