//! Pause, resume and cancel of running jobs, and dropping the engine.

use std::fs;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use ferry_core::jobs::{ConflictPolicy, Engine, Event, Job, Phase};
use ferry_tests::TempTree;

use crate::jobs_copy::sample_tree;
use crate::jobs_support::{assert_no_temporaries, collect, snapshot};

#[test]
fn a_paused_job_writes_nothing_until_resumed() {
    let t = TempTree::new();
    let src = sample_tree(&t, "src");
    let dest = t.dir("dest");
    let (engine, events) = Engine::start();
    let id = engine.submit_paused(Job::Copy {
        sources: vec![src.clone()],
        dest_dir: dest.clone(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    let mut planned = false;
    loop {
        match events.recv().unwrap() {
            Event::Planned { totals, .. } => {
                assert_eq!(totals.items, snapshot(&src).len() as u64 + 1);
                planned = true;
            }
            Event::Progress { progress, .. } if progress.paused && planned => break,
            Event::Finished { .. } | Event::Cancelled { .. } => panic!("a paused job ended"),
            _ => {}
        }
    }
    assert_eq!(
        fs::read_dir(&dest).unwrap().count(),
        0,
        "a paused job wrote something"
    );
    engine.resume(id);
    let out = collect(&events, id);
    assert!(out.summary.is_complete(), "{:#?}", out.summary);
    assert_eq!(snapshot(&dest.join("src")), snapshot(&src));
}

/// Starts copying one large file and returns the engine, its events, the job and paths;
/// the engine's jobs are also cancelled by `flag`, if given.
fn large_copy(
    t: &TempTree,
    shm: &TempTree,
    flag: Option<Arc<AtomicBool>>,
) -> (
    Engine,
    crossbeam_channel::Receiver<Event>,
    ferry_core::jobs::JobId,
) {
    let big = shm.file("big", vec![1u8; 512 << 20]);
    let dest = t.dir("dest");
    let (engine, events) = Engine::start();
    if let Some(flag) = flag {
        engine.cancel_all_when(flag);
    }
    let id = engine.submit(Job::Copy {
        sources: vec![big],
        dest_dir: dest,
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    loop {
        match events.recv().unwrap() {
            Event::Progress { progress, .. } if progress.bytes_done > 0 => break,
            Event::Finished { .. } | Event::Cancelled { .. } => {
                panic!("512 MiB copied within one progress tick")
            }
            _ => {}
        }
    }
    (engine, events, id)
}

#[test]
fn cancel_inside_a_large_file_removes_its_temporary() {
    let (t, shm) = (TempTree::new(), TempTree::new_in("/dev/shm"));
    let (engine, events, id) = large_copy(&t, &shm, None);
    engine.cancel(id);
    let out = collect(&events, id);
    assert!(out.cancelled);
    assert_eq!(out.summary.not_done, vec![shm.join("big")]);
    assert!(out.summary.bytes_done < 512 << 20);
    assert_eq!(fs::read_dir(t.join("dest")).unwrap().count(), 0);
    assert_eq!(fs::metadata(shm.join("big")).unwrap().len(), 512 << 20);
}

/// The command line's Ctrl-C: a flag its signal handler sets, seen by the job itself.
#[test]
fn a_flag_given_to_the_engine_cancels_its_job_as_cancel_does() {
    let (t, shm) = (TempTree::new(), TempTree::new_in("/dev/shm"));
    let flag = Arc::new(AtomicBool::new(false));
    let (_engine, events, id) = large_copy(&t, &shm, Some(Arc::clone(&flag)));
    flag.store(true, Ordering::SeqCst);
    let out = collect(&events, id);
    assert!(out.cancelled);
    assert_eq!(out.summary.not_done, vec![shm.join("big")]);
    assert_eq!(fs::read_dir(t.join("dest")).unwrap().count(), 0);
    assert_no_temporaries(t.path());
}

#[test]
fn dropping_the_engine_cancels_and_cleans_up() {
    let (t, shm) = (TempTree::new(), TempTree::new_in("/dev/shm"));
    let (engine, events, id) = large_copy(&t, &shm, None);
    drop(engine);
    let cancelled = events
        .iter()
        .any(|e| matches!(e, Event::Cancelled { job, .. } if job == id));
    assert!(cancelled);
    assert_eq!(fs::read_dir(t.join("dest")).unwrap().count(), 0);
    assert_no_temporaries(t.path());
}

#[test]
fn jobs_on_one_device_queue_and_other_devices_run_in_parallel() {
    let (t, shm) = (TempTree::new(), TempTree::new_in("/dev/shm"));
    let (src_a, src_b, src_c) = (t.file("a/f", "a"), t.file("b/f", "b"), shm.file("c/f", "c"));
    let copy = |src: &std::path::Path, dest: std::path::PathBuf| Job::Copy {
        sources: vec![src.parent().unwrap().to_path_buf()],
        dest_dir: dest,
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    };
    let (engine, events) = Engine::start();
    let a = engine.submit_paused(copy(&src_a, t.dir("dest-a")));
    while !matches!(events.recv().unwrap(), Event::Planned { job, .. } if job == a) {}
    // `a` now holds the work tree's device; `b` waits behind it, `c` (tmpfs) does not.
    let b = engine.submit(copy(&src_b, t.dir("dest-b")));
    let c = engine.submit(copy(&src_c, shm.dir("dest-c")));
    loop {
        match events.recv().unwrap() {
            Event::Finished { job, .. } if job == c => break,
            Event::Planned { job, .. } if job == b => panic!("b started while a held its device"),
            Event::Finished { job, .. } | Event::Cancelled { job, .. } => {
                panic!("{job} ended early")
            }
            _ => {}
        }
    }
    assert_eq!(fs::read(shm.join("dest-c/c/f")).unwrap(), b"c");
    engine.cancel(b);
    let out = collect(&events, b);
    assert!(out.cancelled);
    assert_eq!(
        out.summary.not_done,
        vec![src_b.parent().unwrap().to_path_buf()]
    );
    assert!(!t.join("dest-b/b").exists());
    engine.resume(a);
    assert!(collect(&events, a).summary.is_complete());
    assert_eq!(fs::read(t.join("dest-a/a/f")).unwrap(), b"a");
}

/// A job blocked in a file system that stopped answering (a FUSE server stopped) never ends;
/// dropping the engine (the window quitting) gives up on it after a few seconds rather than
/// wait for the server forever. Its record stays begun, found interrupted at the next start.
#[test]
fn dropping_the_engine_does_not_wait_for_a_job_blocked_in_a_stopped_file_system() {
    let t = TempTree::new();
    let Some((fuse, src)) = crate::jobs_support::StoppableFuse::with_a_source(&t) else {
        return;
    };
    let (engine, events) = Engine::start_with(crate::jobs_support::staging_in_tree());
    fuse.signal("-STOP");
    let id = engine.submit(Job::Copy {
        sources: vec![src],
        dest_dir: fuse.dir.join("seen-not"),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert!(
        !events
            .try_iter()
            .any(|e| matches!(e, Event::Finished { job, .. } if job == id)),
        "still blocked"
    );
    let started = std::time::Instant::now();
    drop(engine);
    let waited = started.elapsed();
    assert!(
        waited < std::time::Duration::from_secs(8),
        "waited {waited:?}"
    );
}

/// A move across disks, paused while it removes its sources, holds there (it went on to the
/// end, "paused" on screen); cancelled there, it still removes them all: stopped part way,
/// each item left would be both copied and in place.
#[test]
fn a_move_removing_its_sources_holds_when_paused_and_finishes_when_cancelled() {
    let t = TempTree::new();
    let shm = TempTree::new_in("/dev/shm");
    let src = t.dir("src");
    for d in 0..10 {
        let dir = src.join(format!("d{d}"));
        fs::create_dir(&dir).unwrap();
        for f in 0..3000 {
            fs::write(dir.join(format!("f{f}")), "x").unwrap();
        }
    }
    let files = |dir: &std::path::Path| {
        (fs::read_dir(dir).into_iter().flatten())
            .map(|d| fs::read_dir(d.unwrap().path()).map_or(0, |f| f.count()))
            .sum::<usize>()
    };
    let (engine, events) = Engine::start();
    let id = engine.submit(Job::Move {
        sources: vec![src.clone()],
        dest_dir: shm.path().to_path_buf(),
        dest_name: None,
        on_conflict: ConflictPolicy::Skip,
    });
    let mut pause_asked = false;
    loop {
        match events.recv().unwrap() {
            Event::Progress { progress, .. } if progress.phase == Phase::Deleting => {
                if progress.paused {
                    break;
                }
                if !pause_asked {
                    engine.pause(id);
                    pause_asked = true;
                }
            }
            Event::Finished { .. } | Event::Cancelled { .. } => {
                panic!("ended before it could be paused removing the sources")
            }
            _ => {}
        }
    }
    let left = files(&src);
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert_eq!(files(&src), left, "sources removed while paused");
    assert!(left > 0, "nothing left to remove");
    engine.cancel(id);
    let out = collect(&events, id);
    assert_eq!(files(&src), 0, "{:#?}", out.summary);
    assert_eq!(files(&shm.path().join("src")), 30_000);
}
