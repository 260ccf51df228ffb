//! `ferry bench`: the quick run completes and its JSON report has every workload with the
//! fields the issues require. Times are not asserted (they depend on the machine).

use std::ffi::{OsStr, OsString};

use serde_json::Value;

use crate::run_ferry;

/// Workloads raced against a peer tool, each on the work tree's filesystem and on /dev/shm.
const RACES: &[&str] = &[
    "list-5k-cold",
    "list-5k-warm",
    "list-50k-cold",
    "list-50k-warm",
    "copy-5000x4k",
    "copy-200x5m",
    "move-xfs-5000x4k",
    "delete-15000-depth10",
    "delete-15000-depth100",
    "delete-15000-depth800",
];

/// Measurements without a peer, run once, on /dev/shm.
const METRICS: &[&str] = &["bytes-per-entry", "memory-after-12-folders"];

fn quick_report(extra: &[&str]) -> Value {
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
    let out = run_ferry(&args);
    assert!(
        out.status.success(),
        "ferry bench failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    // The scratch folder is gone: only the report is left.
    let left: Vec<_> = std::fs::read_dir(tree.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![OsString::from("bench.json")]);
    report
}

fn find<'a>(results: &'a [Value], workload: &str, fs: &str) -> &'a Value {
    results
        .iter()
        .find(|r| r["workload"] == workload && r["fs"] == fs)
        .unwrap_or_else(|| panic!("no result for {workload} on {fs}"))
}

#[test]
fn quick_run_reports_every_workload_with_the_required_fields() {
    let report = quick_report(&[]);
    assert_eq!(report["rounds"], 1);
    assert_eq!(report["quick"], true);
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), RACES.len() * 2 + METRICS.len());
    for r in results {
        for key in ["workload", "fs", "ferry_ms", "peer", "peer_ms", "ratio"] {
            assert!(r.get(key).is_some(), "{key} missing in {r}");
        }
        assert!(
            r["error"].is_null(),
            "{} on {} failed: {}",
            r["workload"],
            r["fs"],
            r["error"]
        );
    }
    for workload in RACES {
        for fs in ["work", "shm"] {
            let r = find(results, workload, fs);
            assert!(r["peer"].is_string(), "{r}");
            for key in ["ferry_ms", "peer_ms", "ratio"] {
                assert!(
                    r[key].as_f64().is_some_and(|v| v > 0.0),
                    "{key} of {workload} on {fs}: {r}"
                );
            }
            assert_eq!(r["ferry_samples_ms"].as_array().unwrap().len(), 1);
        }
    }
    for workload in METRICS {
        let r = find(results, workload, "shm");
        assert!(r["peer"].is_null() && r["ratio"].is_null(), "{r}");
        assert!(r["value"].as_f64().is_some_and(|v| v >= 0.0), "{r}");
        assert!(r["unit"].is_string(), "{r}");
    }
    let bpe = find(results, "bytes-per-entry", "shm");
    assert!(bpe["listing_heap_bytes"].as_u64().unwrap() > 0);
    let walk = find(results, "memory-after-12-folders", "shm");
    assert_eq!(walk["last_three_from_cache"], true, "{walk}");
    assert_eq!(walk["fourth_last_from_cache"], false, "{walk}");
    assert_eq!(walk["cached_folders"].as_u64().unwrap(), 3, "{walk}");
    let move_params = &find(results, "move-xfs-5000x4k", "work")["params"];
    assert_eq!(
        (&move_params["from"], &move_params["to"]),
        (&"shm".into(), &"work".into())
    );
    assert!(report["machine"]["spawn_ms"].as_f64().is_some());
    assert_eq!(report["filesystems"].as_array().unwrap().len(), 2);
}

#[test]
fn only_filters_workloads_and_a_miss_is_refused() {
    let report = quick_report(&["--only", "list-5k-warm"]);
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
