//! Property: copying any tree gives an identical tree (contents, modes, times, links, FIFOs).

use std::collections::BTreeMap;
use std::path::Path;

use ferry_core::jobs::{ConflictPolicy, Job};
use ferry_tests::TempTree;
use proptest::prelude::*;

use crate::jobs_support::{assert_no_temporaries, chmod, run_job, set_mtime, snapshot};

#[derive(Debug, Clone)]
enum Spec {
    File(Vec<u8>, u32, i64),
    Link(String),
    Fifo(u32, i64),
    Dir(BTreeMap<String, Spec>, u32, i64),
}

fn spec() -> impl Strategy<Value = Spec> {
    let time = 0i64..2_000_000_000;
    let leaf = prop_oneof![
        (
            proptest::collection::vec(any::<u8>(), 0..5000),
            0u32..0o777,
            time.clone()
        )
            .prop_map(|(d, m, t)| Spec::File(d, m, t)),
        "[a-z./]{1,12}".prop_map(Spec::Link),
        (0u32..0o777, time.clone()).prop_map(|(m, t)| Spec::Fifo(m, t)),
    ];
    leaf.prop_recursive(3, 40, 6, move |inner| {
        let names = "[a-z0-9_-][a-zA-Z0-9 _.-]{0,7}";
        (
            proptest::collection::btree_map(names, inner, 0..6),
            0u32..0o777,
            time.clone(),
        )
            .prop_map(|(children, m, t)| Spec::Dir(children, m | 0o500, t))
    })
}

fn build(path: &Path, spec: &Spec, t: &TempTree) {
    match spec {
        Spec::File(data, mode, time) => {
            t.file(path, data);
            chmod(path, *mode);
            set_mtime(path, *time);
        }
        Spec::Link(target) => {
            t.symlink(path, target);
        }
        Spec::Fifo(mode, time) => {
            t.fifo(path);
            chmod(path, *mode);
            set_mtime(path, *time);
        }
        Spec::Dir(children, mode, time) => {
            t.dir(path);
            for (name, child) in children {
                build(&path.join(name), child, t);
            }
            chmod(path, *mode);
            set_mtime(path, *time);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn copying_a_random_tree_gives_an_identical_tree(children in proptest::collection::btree_map("[a-z]{1,6}", spec(), 1..6)) {
        let t = TempTree::new();
        let src = t.join("src");
        build(&src, &Spec::Dir(children, 0o755, 1_000_000_000), &t);
        let dest = t.dir("dest");
        let out = run_job(Job::Copy { sources: vec![src.clone()], dest_dir: dest.clone(), dest_name: None, on_conflict: ConflictPolicy::Skip });
        prop_assert!(out.summary.is_complete(), "{:#?}", out.summary);
        prop_assert_eq!(snapshot(&dest.join("src")), snapshot(&src));
        assert_no_temporaries(&dest);
    }
}
