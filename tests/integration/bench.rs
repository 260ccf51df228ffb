//! `ferry bench`: the quick run completes and its JSON report has every workload, arm and
//! condition with the fields the issues require. Times are not asserted (they depend on the
//! machine).

use std::ffi::{OsStr, OsString};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::Value;

use crate::{ferry, run_ferry};

/// Workloads raced against a peer tool, each on the work tree's filesystem and on /dev/shm,
/// with the arms of Ferry they have.
const RACES: &[(&str, &[&str])] = &[
    ("list-5k-cold", BOTH),
    ("list-5k-warm", IN_PROCESS),
    ("list-50k-cold", BOTH),
    ("list-50k-warm", IN_PROCESS),
    ("copy-5000x4k", BOTH),
    // The window's job path against `ferry cp` (its "classic" peer here).
    ("copy-5000x4k-window", WINDOW),
    ("copy-200x5m", BOTH),
    ("move-xfs-5000x4k", BOTH),
    ("delete-15000-depth10", BOTH),
    ("delete-15000-depth100", BOTH),
    ("delete-15000-depth800", BOTH),
    ("delete-15000-in-1000-folders", BOTH),
];
/// The races the floor (the bare system calls, `floor.rs`) joins.
const FLOORED: &[&str] = &["copy-5000x4k", "copy-200x5m"];
const BOTH: &[&str] = &["in-process", "process"];
const IN_PROCESS: &[&str] = &["in-process"];
const WINDOW: &[&str] = &["window", "in-process"];

/// Races on the work tree's filesystem only.
const WORK_RACES: &[&str] = &["copy-1-full-journal"];

/// Measurements without a peer, run once.
const METRICS: &[&str] = &[
    "bytes-per-entry",
    "ls-peak-rss",
    "memory-after-12-folders",
    "window-frames-during-copy-100k",
    "window-drag-10k-of-200k",
    "window-scroll-200k",
    "window-conflict-table-2000-open",
    "window-conflict-table-2000-frame",
];

/// Runs `ferry bench --quick --rounds 1 EXTRA...` with `PATH` set to `path` (if given) and
/// returns its JSON report and stderr.
fn quick_report(extra: &[&str], path: Option<&OsStr>) -> (Value, String) {
    let tree = ferry_tests::TempTree::new();
    let json = tree.join("bench.json");
    let mut args = vec!["bench", "--quick", "--rounds", "1"];
    args.extend_from_slice(extra);
    let mut args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    args.extend([
        "--dir".into(),
        tree.path().into(),
        "--json".into(),
        json.clone().into(),
    ]);
    let mut command = ferry();
    command.args(&args);
    if let Some(path) = path {
        command.env("PATH", path);
    }
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "ferry bench failed: {}\n{stderr}",
        out.status
    );
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    // The scratch folder is gone: only the report is left.
    let left: Vec<_> = std::fs::read_dir(tree.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![OsString::from("bench.json")]);
    (report, stderr)
}

fn find<'a>(results: &'a [Value], workload: &str, fs: &str, arm: &str, load: bool) -> &'a Value {
    results
        .iter()
        .find(|r| {
            r["workload"] == workload && r["fs"] == fs && r["arm"] == arm && r["load"] == load
        })
        .unwrap_or_else(|| panic!("no result for {workload} on {fs}, arm {arm}, load {load}"))
}

fn metric<'a>(results: &'a [Value], workload: &str) -> &'a Value {
    results
        .iter()
        .find(|r| r["workload"] == workload)
        .unwrap_or_else(|| panic!("no result for {workload}"))
}

/// Every row of a race holds a positive time for Ferry's arm and the classic peer, one sample
/// each, and the order of the round, in which every tool ran once.
fn check_race(r: &Value, tools: usize) {
    assert!(r["peer"].is_string(), "{r}");
    for key in ["ferry_ms", "peer_ms", "ratio"] {
        assert!(r[key].as_f64().is_some_and(|v| v > 0.0), "{key}: {r}");
    }
    assert_eq!(r["ferry_samples_ms"].as_array().unwrap().len(), 1, "{r}");
    let orders = r["orders"].as_array().unwrap();
    assert_eq!(orders.len(), 1, "{r}");
    let mut order: Vec<&str> = orders[0]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    assert_eq!(order.len(), tools, "{r}");
    order.sort_unstable();
    order.dedup();
    assert_eq!(order.len(), tools, "a tool ran twice: {r}");
}

#[test]
fn quick_run_reports_every_workload_arm_and_field() {
    // No extra peer on this PATH: each is skipped with a note.
    let (report, stderr) = quick_report(&[], Some(OsStr::new("/usr/bin:/bin")));
    assert_eq!(report["rounds"], 1);
    assert_eq!(report["quick"], true);
    assert_eq!(report["load"], false);
    assert!(report["seed"].as_u64().is_some());
    for peer in ["xcp", "cpz", "rmz"] {
        assert!(
            report["extra_peers"][peer].is_null(),
            "{}",
            report["extra_peers"]
        );
        assert!(
            stderr.contains(&format!("{peer}: not installed, skipped")),
            "{stderr}"
        );
    }
    let results = report["results"].as_array().unwrap();
    let rows: usize = RACES.iter().map(|(_, arms)| 2 * arms.len()).sum::<usize>()
        + 2 * WORK_RACES.len()
        + METRICS.len();
    assert_eq!(results.len(), rows);
    for r in results {
        assert!(
            r["error"].is_null(),
            "{} on {} failed: {}",
            r["workload"],
            r["fs"],
            r["error"]
        );
        assert_eq!(r["load"], false, "{r}");
    }
    assert!(report["extra_peers"]["floor"].is_string(), "{report}");
    for (workload, arms) in RACES {
        let floor = FLOORED.contains(workload);
        for fs in ["work", "shm"] {
            for arm in *arms {
                // Both arms (or the one) and the classic peer ran each round, and the floor
                // with the copies.
                let r = find(results, workload, fs, arm, false);
                check_race(r, arms.len() + 1 + usize::from(floor));
                assert_eq!(r["peers"]["floor"]["ratio"].is_f64(), floor, "{r}");
                // The floor is a reference: alone, it leaves nobody to be ahead of.
                assert!(r["beats_peers"].is_null(), "{r}");
            }
        }
    }
    for workload in WORK_RACES {
        for arm in BOTH {
            check_race(find(results, workload, "work", arm, false), 3);
        }
    }
    for workload in METRICS {
        let r = metric(results, workload);
        assert!(
            r["peer"].is_null() && r["ratio"].is_null() && r["arm"].is_null(),
            "{r}"
        );
        assert!(r["value"].as_f64().is_some_and(|v| v >= 0.0), "{r}");
        assert!(r["unit"].is_string(), "{r}");
    }
    let bpe = metric(results, "bytes-per-entry");
    assert!(bpe["listing_heap_bytes"].as_u64().unwrap() > 0);
    let rss = metric(results, "ls-peak-rss");
    assert!(rss["peak_rss_kb"].as_f64().unwrap() >= rss["peak_rss_empty_kb"].as_f64().unwrap());
    let walk = metric(results, "memory-after-12-folders");
    assert_eq!(walk["last_three_from_cache"], true, "{walk}");
    assert_eq!(walk["fourth_last_from_cache"], false, "{walk}");
    assert_eq!(walk["cached_folders"].as_u64().unwrap(), 3, "{walk}");
    // The window's frames: CPU and wall clock kept, every frame of a drag measured.
    let copy_frames = metric(results, "window-frames-during-copy-100k");
    assert_eq!(copy_frames["params"]["files"], 5_000, "{copy_frames}");
    for clock in ["cpu", "wall"] {
        assert!(
            copy_frames[clock]["count"].as_u64().unwrap() >= 2,
            "{copy_frames}"
        );
    }
    let drag = metric(results, "window-drag-10k-of-200k");
    assert_eq!(drag["dragging"]["count"], drag["still"]["count"], "{drag}");
    assert!(metric(results, "window-scroll-200k")["details"]["worst_ms"].is_f64());
    let move_params = &find(results, "move-xfs-5000x4k", "work", "process", false)["params"];
    assert_eq!(
        (&move_params["from"], &move_params["to"]),
        (&"shm".into(), &"work".into())
    );
    assert!(report["machine"]["spawn_ms"].as_f64().is_some());
    assert_eq!(report["filesystems"].as_array().unwrap().len(), 2);
    // One settle step before every timed run: each race's round ran its tools once.
    let mut races: Vec<(&Value, &Value, usize)> = Vec::new();
    for r in results.iter().filter(|r| r["arm"].is_string()) {
        let tools = r["orders"][0].as_array().unwrap().len();
        if !races
            .iter()
            .any(|(w, f, _)| *w == &r["workload"] && *f == &r["fs"])
        {
            races.push((&r["workload"], &r["fs"], tools));
        }
    }
    let runs: usize = races.iter().map(|(_, _, tools)| tools).sum();
    assert_eq!(report["settle"]["steps"].as_u64().unwrap() as usize, runs);
}

/// A stand-in for an extra peer: a script that does the same job with the classic tool and
/// leaves a mark, so the test knows it ran.
fn fake_peer(dir: &Path, name: &str, body: &str) {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\ntouch \"{}\"\n{body}\n",
            dir.join(format!("{name}.ran")).display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn load_reruns_every_race_with_a_busy_cpu_and_extra_peers_join_their_workloads() {
    let bin = tempfile::tempdir().unwrap();
    // xcp -r SRC DEST_DIR; cpz SRC DEST; rmz PATH.
    fake_peer(bin.path(), "xcp", r#"cp -r "$2" "$3""#);
    fake_peer(bin.path(), "cpz", r#"cp -r "$1" "$2""#);
    fake_peer(bin.path(), "rmz", r#"rm -rf "$1""#);
    let path =
        std::env::join_paths([bin.path(), Path::new("/usr/bin"), Path::new("/bin")]).unwrap();
    let (report, _) = quick_report(&["--load", "--only", "5000", "--seed", "42"], Some(&path));
    assert_eq!(report["load"], true);
    assert_eq!(report["seed"], 42);
    let results = report["results"].as_array().unwrap();
    for load in [false, true] {
        for arm in BOTH {
            let copy = find(results, "copy-5000x4k", "shm", arm, load);
            // Two arms, cp, xcp, cpz and the floor each round.
            check_race(copy, 6);
            for peer in ["xcp", "cpz", "floor"] {
                assert!(
                    copy["peers"][peer]["ratio"]
                        .as_f64()
                        .is_some_and(|r| r > 0.0),
                    "{copy}"
                );
            }
            assert!(copy["beats_peers"].is_boolean(), "{copy}");
            let delete = find(results, "delete-15000-depth10", "work", arm, load);
            check_race(delete, 4);
            assert!(delete["peers"]["rmz"]["ms"].as_f64().is_some(), "{delete}");
            // No extra peer moves.
            let mv = find(results, "move-xfs-5000x4k", "shm", arm, load);
            check_race(mv, 3);
            assert_eq!(mv["peers"], serde_json::json!({}));
            // Under load, the busy process's CPU is named.
            assert_eq!(copy["load_cpu"].is_u64(), load, "{copy}");
        }
    }
    for name in ["xcp", "cpz", "rmz"] {
        assert!(
            bin.path().join(format!("{name}.ran")).exists(),
            "{name} never ran"
        );
    }
}

#[test]
fn only_filters_workloads_and_a_miss_is_refused() {
    let (report, _) = quick_report(&["--only", "list-5k-warm"], None);
    let names: Vec<(&str, &str)> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["workload"].as_str().unwrap(), r["fs"].as_str().unwrap()))
        .collect();
    assert_eq!(names, [("list-5k-warm", "work"), ("list-5k-warm", "shm")]);

    let tree = ferry_tests::TempTree::new();
    let args = ["bench", "--only", "no-such-workload", "--dir"].map(OsStr::new);
    let out = run_ferry(args.into_iter().chain([tree.path().as_os_str()]));
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-workload"));
}
