//! Error requests (`ErrorPolicy::Ask`): copying files, planning, deleting, moving and
//! creating folders ask Retry / Skip / Skip all of this kind / Cancel, and the summary stays
//! exact.
//!
//! Root ignores permissions, so the failures here are ones root gets too: an immutable file
//! (`chattr +i`: EPERM on unlink and rename, and on creating inside an immutable folder), and
//! a source that is missing when the plan looks for it. One test runs the command as user
//! 65534 instead, to answer a folder it cannot read.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use std::sync::Arc;

use ferry_core::Error;
use ferry_core::jobs::{
    ConflictPolicy, Engine, ErrorAction, ErrorPolicy, Event, Job, JobOptions, SkipReason, Summary,
};
use ferry_tests::TempTree;

use crate::jobs_conflicts::copy;
use crate::jobs_support::{Outcome, assert_accounts_for, assert_no_temporaries, staging_in_tree};

/// The immutable flag on one path, cleared when dropped (else the tree cannot be removed).
pub(crate) struct Immutable(PathBuf);

impl Immutable {
    /// Sets the flag; `None` (with a note) where the file system has no such flag.
    pub(crate) fn set(path: &Path) -> Option<Immutable> {
        let set = chattr("+i", path);
        if !set {
            eprintln!(
                "note: test skipped, `chattr +i` is not supported for {}",
                path.display()
            );
        }
        set.then(|| Immutable(path.to_path_buf()))
    }

    fn clear(&self) {
        assert!(chattr("-i", &self.0), "chattr -i {}", self.0.display());
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        chattr("-i", &self.0);
    }
}

fn chattr(flag: &str, path: &Path) -> bool {
    Command::new("chattr")
        .arg(flag)
        .arg(path)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// What a job asking about errors reported: its end, and the paths asked about (with whether
/// the plan was finished when asked).
struct Asked {
    outcome: Outcome,
    requests: Vec<(PathBuf, bool)>,
}

/// Runs `job` with errors asked about. `answer(n, path)` answers the `n`th request; `None`
/// means it must have been answered already (by an earlier Skip all of this kind).
fn run_answering(job: Job, mut answer: impl FnMut(usize, &Path) -> Option<ErrorAction>) -> Asked {
    let (engine, events) = Engine::start_with(staging_in_tree());
    let options = JobOptions {
        on_error: ErrorPolicy::Ask,
        ..JobOptions::default()
    };
    let id = engine.submit_with(job, options);
    let (mut requests, mut planned, mut seen) = (Vec::new(), false, Vec::new());
    for event in events.iter() {
        match &event {
            Event::Planned { .. } => planned = true,
            Event::ItemError { request, path, .. } => {
                match answer(requests.len(), path) {
                    Some(action) => assert!(engine.resolve_error(id, *request, action)),
                    None => assert!(
                        !engine.resolve_error(id, *request, ErrorAction::Retry),
                        "request for {} was not answered already",
                        path.display()
                    ),
                }
                requests.push((path.clone(), planned));
            }
            Event::Finished { summary, .. } | Event::Cancelled { summary, .. } => {
                let cancelled = matches!(event, Event::Cancelled { .. });
                let summary = summary.clone();
                let outcome = Outcome {
                    summary,
                    cancelled,
                    events: seen,
                };
                return Asked { outcome, requests };
            }
            _ => {}
        }
        seen.push(event);
    }
    panic!("the engine hung up before the job ended");
}

fn paths(requests: &[(PathBuf, bool)]) -> Vec<PathBuf> {
    requests.iter().map(|(p, _)| p.clone()).collect()
}

/// The items skipped by an answer to an error request, with their errors; asserts that
/// nothing was skipped for another reason.
fn skipped_after_errors(summary: &Summary) -> Vec<(PathBuf, Arc<Error>)> {
    let skipped = summary.skipped.iter().map(|s| match &s.reason {
        SkipReason::UserSkipped { error } => (s.path.clone(), Arc::clone(error)),
        other => panic!("{} skipped for {other}", s.path.display()),
    });
    skipped.collect()
}

#[test]
fn delete_skip_keeps_an_immutable_file_and_its_folders_and_reports_it_once() {
    let t = TempTree::new();
    let locked = t.file("a/b/locked", "x");
    for rel in ["a/b/other", "a/c/x", "a/top"] {
        t.file(rel, rel);
    }
    let Some(_flag) = Immutable::set(&locked) else {
        return;
    };
    let sources = vec![t.join("a")];
    let asked = run_answering(
        Job::Delete {
            paths: sources.clone(),
        },
        |_, _| Some(ErrorAction::Skip),
    );
    let summary = &asked.outcome.summary;
    assert_eq!(paths(&asked.requests), std::slice::from_ref(&locked));
    assert!(!asked.outcome.cancelled);
    // Skipped with its error, not failed; the file, not its folders that could not be
    // removed because of it.
    let skipped = skipped_after_errors(summary);
    assert_eq!(skipped.len(), 1, "{summary:#?}");
    assert_eq!(skipped[0].0, locked);
    assert!(skipped[0].1.is_permission_denied());
    assert!(
        summary.skipped[0]
            .reason
            .to_string()
            .starts_with("skipped after: ")
    );
    assert!(summary.failed.is_empty() && !summary.is_complete());
    assert!(summary.done.is_empty() && summary.not_done.is_empty());
    assert_accounts_for(summary, &sources);
    // Three files and the folder `c`.
    assert_eq!(summary.items_done, 4);
    assert!(locked.exists());
    assert_eq!(fs::read_dir(t.join("a/b")).unwrap().count(), 1);
    assert_eq!(fs::read_dir(t.join("a")).unwrap().count(), 1);
}

#[test]
fn delete_retry_succeeds_once_the_file_can_go() {
    let t = TempTree::new();
    let locked = t.file("a/b/locked", "x");
    t.file("a/b/other", "y");
    let Some(flag) = Immutable::set(&locked) else {
        return;
    };
    let sources = vec![t.join("a")];
    let asked = run_answering(
        Job::Delete {
            paths: sources.clone(),
        },
        |_, _| {
            flag.clear();
            Some(ErrorAction::Retry)
        },
    );
    assert_eq!(paths(&asked.requests), [locked]);
    assert!(
        asked.outcome.summary.is_complete(),
        "{:#?}",
        asked.outcome.summary
    );
    assert_eq!(asked.outcome.summary.done, sources);
    assert!(!t.join("a").exists());
}

#[test]
fn delete_skip_all_of_kind_answers_the_later_requests() {
    let t = TempTree::new();
    let locked = [t.file("a/b/l1", "1"), t.file("a/c/l2", "2")];
    t.file("a/c/other", "y");
    let Some(_one) = Immutable::set(&locked[0]) else {
        return;
    };
    let Some(_two) = Immutable::set(&locked[1]) else {
        return;
    };
    let sources = vec![t.join("a")];
    let asked = run_answering(
        Job::Delete {
            paths: sources.clone(),
        },
        |n, _| (n == 0).then_some(ErrorAction::SkipAllOfKind),
    );
    // The second was either never asked about or answered along with the first.
    assert!(!asked.requests.is_empty() && asked.requests.len() <= 2);
    let summary = &asked.outcome.summary;
    // Both skipped with their errors, the one never asked about too.
    let mut skipped: Vec<PathBuf> = skipped_after_errors(summary)
        .into_iter()
        .map(|(path, _)| path)
        .collect();
    skipped.sort();
    assert_eq!(skipped, locked);
    assert!(summary.failed.is_empty(), "{summary:#?}");
    assert_accounts_for(summary, &sources);
    assert!(locked.iter().all(|l| l.exists()));
    assert!(!t.join("a/c/other").exists());
}

#[test]
fn cancel_as_an_answer_stops_the_delete_with_a_summary() {
    let t = TempTree::new();
    let locked = t.file("a/locked", "x");
    t.file("z/later", "z");
    let Some(_flag) = Immutable::set(&locked) else {
        return;
    };
    let sources = vec![t.join("a"), t.join("z")];
    let asked = run_answering(
        Job::Delete {
            paths: sources.clone(),
        },
        |_, _| Some(ErrorAction::Cancel),
    );
    assert_eq!(paths(&asked.requests), std::slice::from_ref(&locked));
    assert!(asked.outcome.cancelled);
    let summary = &asked.outcome.summary;
    assert_eq!(summary.failed.len(), 1, "{summary:#?}");
    assert_eq!(summary.failed[0].path, locked);
    assert_accounts_for(summary, &sources);
    assert!(locked.exists());
    // `z` was either deleted before the answer, and said so, or is still there: its files
    // may be gone (unlinked while the delete planned), the folder is not.
    let z_done = summary.done.contains(&sources[1]);
    assert_eq!(z_done, !sources[1].exists(), "{summary:#?}");
}

/// A delete of a big folder then of one gone since it was selected, cancelled at the
/// question about the gone one: the walk had deleted the big one meanwhile, and the job said
/// "deleted nothing". What is gone is said done.
#[test]
fn a_delete_cancelled_while_it_plans_says_what_it_deleted() {
    let t = TempTree::new();
    for i in 0..200 {
        t.file(format!("big/sub{}/f{i}", i % 4), "x");
    }
    t.file("small/f", "x");
    t.file("later/f", "x");
    let sources = vec![
        t.join("big"),
        t.join("small"),
        t.join("gone"),
        t.join("later"),
    ];
    let asked = run_answering(
        Job::Delete {
            paths: sources.clone(),
        },
        |_, _| {
            // Answered once the walk has taken what it read (as a user reads the question).
            let end = std::time::Instant::now() + std::time::Duration::from_secs(10);
            while t.join("small").exists() && std::time::Instant::now() < end {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Some(ErrorAction::Cancel)
        },
    );
    assert!(asked.outcome.cancelled);
    let summary = &asked.outcome.summary;
    assert_eq!(summary.failed.len(), 1, "{summary:#?}");
    assert_eq!(summary.failed[0].path, sources[2]);
    for source in [&sources[0], &sources[1], &sources[3]] {
        let done = summary.done.contains(source);
        assert_eq!(done, !source.exists(), "{}: {summary:#?}", source.display());
    }
    assert!(
        !summary.done.is_empty(),
        "the walk deleted what it read before it met the gone one: {summary:#?}"
    );
}

#[test]
fn a_source_missing_at_plan_time_asks_and_retry_reads_it_again() {
    let t = TempTree::new();
    let (present, missing) = (t.file("src/present", "p"), t.join("src/missing"));
    let dest = t.dir("dest");
    let sources = vec![missing.clone(), present];
    let job = Job::Copy {
        sources: sources.clone(),
        dest_dir: dest.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    };
    let asked = run_answering(job, |_, path| {
        fs::write(path, "now here").unwrap();
        Some(ErrorAction::Retry)
    });
    assert_eq!(asked.requests, [(missing, false)], "asked while planning");
    assert!(
        asked.outcome.summary.is_complete(),
        "{:#?}",
        asked.outcome.summary
    );
    assert_eq!(asked.outcome.summary.done, sources);
    assert_eq!(fs::read(dest.join("missing")).unwrap(), b"now here");
    assert_eq!(fs::read(dest.join("present")).unwrap(), b"p");
}

#[test]
fn a_source_missing_at_plan_time_skipped_leaves_the_rest_done() {
    let t = TempTree::new();
    let (present, missing) = (t.file("src/present", "p"), t.join("src/missing"));
    let dest = t.dir("dest");
    let sources = vec![missing.clone(), present.clone()];
    let job = Job::Copy {
        sources: sources.clone(),
        dest_dir: dest,
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    };
    let asked = run_answering(job, |_, _| Some(ErrorAction::Skip));
    assert_eq!(asked.requests, [(missing.clone(), false)]);
    let summary = &asked.outcome.summary;
    assert_eq!(summary.done, [present]);
    assert!(summary.failed.is_empty(), "{summary:#?}");
    let skipped = skipped_after_errors(summary);
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].0, missing);
    assert!(skipped[0].1.is_not_found());
    assert_accounts_for(summary, &sources);
}

/// A move of an immutable file asks, and Retry once the flag is cleared moves it: within a
/// file system (its rename refused), and across file systems, where what could not be removed
/// once copied is asked about before it is copied.
#[test]
fn a_move_refused_for_an_immutable_file_asks_and_retries() {
    for across in [false, true] {
        let t = TempTree::new();
        let locked = t.file("src/d/locked", "x");
        let shm = TempTree::new_in("/dev/shm");
        let dest = if across {
            shm.dir("dest")
        } else {
            t.dir("dest")
        };
        let Some(flag) = Immutable::set(&locked) else {
            return;
        };
        // Within a file system the folder's rename would carry the file: move the file.
        let (source, moved) = match across {
            true => (t.join("src/d"), dest.join("d/locked")),
            false => (locked.clone(), dest.join("locked")),
        };
        let job = Job::Move {
            sources: vec![source],
            dest_dir: dest.clone(),
            dest_name: None,
            on_conflict: ConflictPolicy::Skip,
        };
        let asked = run_answering(job, |_, _| {
            flag.clear();
            Some(ErrorAction::Retry)
        });
        assert_eq!(paths(&asked.requests), std::slice::from_ref(&locked));
        let summary = &asked.outcome.summary;
        assert!(summary.is_complete(), "across {across}: {summary:#?}");
        assert!(!locked.exists());
        assert_eq!(fs::read(moved).unwrap(), b"x");
    }
}

/// An item a move across file systems could not remove once copied (immutable) is asked about
/// before anything is copied; skipped, it stays where it was and only there.
#[test]
fn a_source_that_cannot_be_removed_after_a_cross_fs_move_asks_and_stays() {
    let t = TempTree::new();
    let locked = t.file("src/d/locked", "x");
    let other = t.file("src/d/other", "y");
    let shm = TempTree::new_in("/dev/shm");
    let dest = shm.dir("dest");
    let Some(_flag) = Immutable::set(&locked) else {
        return;
    };
    let sources = vec![t.join("src/d")];
    let job = Job::Move {
        sources: sources.clone(),
        dest_dir: dest.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    };
    let asked = run_answering(job, |_, _| Some(ErrorAction::Skip));
    assert_eq!(paths(&asked.requests), std::slice::from_ref(&locked));
    let summary = &asked.outcome.summary;
    assert!(summary.failed.is_empty(), "{summary:#?}");
    let skipped = skipped_after_errors(summary);
    assert_eq!(skipped.len(), 1, "{summary:#?}");
    assert_eq!(skipped[0].0, locked);
    assert_accounts_for(summary, &sources);
    // Asked before it was copied: skipped, it is not copied; the rest moved.
    assert!(!dest.join("d/locked").exists(), "copied all the same");
    assert_eq!(fs::read(dest.join("d/other")).unwrap(), b"y");
    assert!(locked.exists() && !other.exists());
    assert_no_temporaries(&dest);
}

#[test]
fn a_folder_that_cannot_be_created_asks_and_retry_creates_it() {
    let t = TempTree::new();
    t.file("src/d/f", "f");
    let dest = t.dir("dest");
    let Some(flag) = Immutable::set(&dest) else {
        return;
    };
    let sources = vec![t.join("src/d")];
    let job = Job::Copy {
        sources: sources.clone(),
        dest_dir: dest.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    };
    let asked = run_answering(job, |_, _| {
        flag.clear();
        Some(ErrorAction::Retry)
    });
    assert_eq!(asked.requests, [(sources[0].clone(), true)]);
    assert!(
        asked.outcome.summary.is_complete(),
        "{:#?}",
        asked.outcome.summary
    );
    assert_eq!(fs::read(dest.join("d/f")).unwrap(), b"f");
    assert_no_temporaries(&dest);
}

/// A folder unreadable when the copy reaches it is asked about; Retry once the user has made
/// it readable copies it with the mode it has then, not the 000 that made it fail. Root reads
/// any folder, so the copy runs as user 65534 on a terminal (`script`'s) that answers.
#[test]
fn retry_after_a_folder_is_made_readable_copies_it_with_its_new_mode() {
    use std::io::{Read, Write};
    use std::os::unix::fs::{PermissionsExt, chown};
    let t = TempTree::new();
    fs::set_permissions(t.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let locked = t.dir("src/locked");
    t.file("src/locked/f", "data");
    let dest = t.dir("dest");
    for path in [
        t.join("src"),
        locked.clone(),
        t.join("src/locked/f"),
        dest.clone(),
    ] {
        chown(&path, Some(65534), Some(65534)).unwrap();
    }
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let shell = format!(
        "setpriv --reuid=65534 --regid=65534 --clear-groups '{}' cp '{}' '{}'",
        env!("CARGO_BIN_EXE_ferry-under-test"),
        t.join("src").display(),
        dest.display()
    );
    let mut script = Command::new("script");
    script.args(["-qec", &shell, "/dev/null"]);
    let spawned = crate::isolate(&mut script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn();
    let Ok(mut child) = spawned else {
        eprintln!("note: no `script` (util-linux) to give ferry a terminal; test skipped");
        return;
    };
    let (mut shown, mut buf) = (String::new(), [0u8; 4096]);
    let mut out = child.stdout.take().unwrap();
    while !shown.contains("[r]etry") {
        let n = out.read(&mut buf).unwrap();
        assert!(n > 0, "never asked: {shown}");
        shown.push_str(&String::from_utf8_lossy(&buf[..n]));
    }
    assert!(shown.contains("Permission denied"), "{shown}");
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o750)).unwrap();
    child.stdin.as_mut().unwrap().write_all(b"r\n").unwrap();
    out.read_to_string(&mut shown).unwrap();
    assert!(child.wait().unwrap().success(), "{shown}");
    let copied = dest.join("src/locked");
    assert_eq!(fs::read(copied.join("f")).unwrap(), b"data", "{shown}");
    let mode = fs::metadata(&copied).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, 0o750, "{shown}");
}

#[test]
fn item_errors_ask_and_retry() {
    let t = TempTree::new();
    let src = t.file("src/f", "data");
    let dest = t.dir("dest");
    // A source that vanishes after planning: asked about, retried (still gone), then skipped.
    let (engine, events) = Engine::start_with(crate::jobs_support::staging_in_tree());
    let options = JobOptions {
        paused: true,
        on_error: ErrorPolicy::Ask,
    };
    let id = engine.submit_with(
        copy(vec![src.clone()], &dest, ConflictPolicy::Skip),
        options,
    );
    let mut requests = 0;
    let summary = loop {
        match events.recv().unwrap() {
            Event::Planned { .. } => {
                fs::remove_file(&src).unwrap();
                engine.resume(id);
            }
            Event::ItemError { request, path, .. } => {
                requests += 1;
                assert_eq!(path, src);
                let action = if requests == 1 {
                    ErrorAction::Retry
                } else {
                    ErrorAction::Skip
                };
                assert!(engine.resolve_error(id, request, action));
            }
            Event::Finished { summary, .. } => break summary,
            _ => {}
        }
    };
    assert_eq!(requests, 2);
    assert!(summary.failed.is_empty(), "{summary:#?}");
    assert_eq!(
        summary.skipped.len(),
        1,
        "skipped by the answer: {summary:#?}"
    );
    assert!(
        matches!(&summary.skipped[0].reason, SkipReason::UserSkipped { error } if error.is_not_found()),
        "{summary:#?}"
    );
}

#[test]
fn skip_all_of_kind_answers_later_errors_of_that_kind() {
    let t = TempTree::new();
    // One folder: its files may be copied by two threads at once (the job thread helps its
    // workers, see core's `claim.rs`), so both vanished files can be asked about before the
    // answer: then the one Skip all answers the other request too.
    let files = [
        t.file("src/f", "f"),
        t.file("src/g", "g"),
        t.file("src/h", "h"),
    ];
    let sources = vec![t.join("src")];
    let dest = t.dir("dest");
    let (engine, events) = Engine::start_with(crate::jobs_support::staging_in_tree());
    let options = JobOptions {
        paused: true,
        on_error: ErrorPolicy::Ask,
    };
    let id = engine.submit_with(copy(sources.clone(), &dest, ConflictPolicy::Skip), options);
    let mut requests = 0;
    let summary = loop {
        match events.recv().unwrap() {
            Event::Planned { .. } => {
                fs::remove_file(&files[0]).unwrap();
                fs::remove_file(&files[2]).unwrap();
                engine.resume(id);
            }
            Event::ItemError { request, .. }
                if engine.resolve_error(id, request, ErrorAction::SkipAllOfKind) =>
            {
                requests += 1;
            }
            Event::Finished { summary, .. } => break summary,
            _ => {}
        }
    };
    assert_eq!(requests, 1, "one answer covered the second vanished file");
    assert!(summary.failed.is_empty(), "{summary:#?}");
    let after_error = summary.skipped.iter().filter(|s| s.reason.after_error());
    assert_eq!(after_error.count(), 2, "{summary:#?}");
    assert_accounts_for(&summary, &sources);
    assert_eq!(fs::read(dest.join("src/g")).unwrap(), b"g");
}
