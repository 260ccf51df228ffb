//! What the command line says when a job ends: a line for each item not done (named where
//! it would have landed), how much of a folder a cancelled or stopped job began it did (its
//! files copied or moved, and where they are), the folders a move left in place, and the exit
//! status.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ferry_core::decimal::grouped;
use ferry_core::jobs::{Failed, Job, SkipReason, Summary};
use ferry_core::shown::Shown;

use super::{EXIT_OK, EXIT_PARTIAL, EXIT_REFUSED};

/// Each source of a copy or move with the path it lands at ([`Job::landings`]).
type Landings = [(PathBuf, PathBuf)];

/// [`Job::landings`], kept past the job's submission.
pub(crate) fn landings_of(job: &Job) -> Vec<(PathBuf, PathBuf)> {
    (job.landings().into_iter())
        .map(|(source, landing)| (source.to_path_buf(), landing))
        .collect()
}

/// Prints what `summary` tells of the job whose sources were `given`, landing at `landings`,
/// (`moved`: a move) and returns the exit status.
pub(crate) fn report(
    summary: &Summary,
    verb: &str,
    interactive: bool,
    (given, landings, moved): (&[PathBuf], &Landings, bool),
) -> i32 {
    let moved_from = if moved { given } else { &[] };
    for line in report_lines(summary, verb, interactive, (landings, moved_from)) {
        eprintln!("ferry: {line}");
    }
    exit_status(summary, given, moved)
}

/// The sources of a move, `moved_from`, left in place because something in them was skipped
/// or failed: a folder is removed only once all it held has moved.
fn partly_moved<'a>(summary: &Summary, moved_from: &'a [PathBuf]) -> Vec<&'a PathBuf> {
    let left_out = || {
        let skipped = summary.skipped.iter().map(|s| &s.path);
        skipped.chain(summary.failed.iter().map(|f| &f.path))
    };
    // Looked up, not searched: a move of thousands of sources stopped part way.
    let ended: HashSet<&PathBuf> = summary.done.iter().chain(&summary.not_done).collect();
    moved_from
        .iter()
        .filter(|source| !ended.contains(source))
        .filter(|source| left_out().any(|p| p != *source && p.starts_with(source)))
        .collect()
}

/// Where the item at source `path` lands: below the landing of the source it is in.
fn landing_of(path: &Path, landings: &Landings) -> Option<PathBuf> {
    landings.iter().find_map(|(source, landing)| {
        let below = path.strip_prefix(source).ok()?;
        Some(match below.as_os_str().is_empty() {
            true => landing.clone(),
            false => landing.join(below),
        })
    })
}

/// The lines [`report`] prints, without their `ferry: `; `moved_from`: the sources of a move.
fn report_lines(
    summary: &Summary,
    verb: &str,
    interactive: bool,
    (landings, moved_from): (&Landings, &[PathBuf]),
) -> Vec<String> {
    let mut lines = Vec::new();
    // The error that stopped the job is said once, as what stopped it, even when items under
    // way met it too (a folder removed fails each of them alike).
    let stopped_the_job = |failed: &&Failed| {
        summary.stopped_by.as_ref().is_some_and(|e| {
            Arc::ptr_eq(e, &failed.error) || e.to_string() == failed.error.to_string()
        })
    };
    // Items that failed alike (each in a folder removed under the job) are said once.
    let mut said = HashSet::new();
    for failed in summary.failed.iter().filter(|f| !stopped_the_job(f)) {
        let error = failed.error.to_string();
        // An error about a folder above the item (a restore's parent now a file, say) does
        // not say which item it stopped.
        let above =
            (failed.error.path()).is_some_and(|p| p != failed.path && failed.path.starts_with(p));
        let line = match above {
            true => format!("{}: {error}", Shown(&failed.path)),
            false => error,
        };
        if said.insert(line.clone()) {
            lines.push(line);
        }
    }
    for skipped in &summary.skipped {
        if skipped.reason.after_error() {
            // "skipped after: <error>", and the error names the path.
            lines.push(skipped.reason.to_string());
        } else {
            let path = Shown(&skipped.path);
            match landing_of(&skipped.path, landings) {
                // Which name was taken: the source's own, or a new one it was to get.
                Some(taken) if skipped.reason == SkipReason::Exists => {
                    lines.push(format!("skipped {path}: {} already exists", Shown(&taken)));
                }
                _ => lines.push(format!("skipped {path}: {}", skipped.reason)),
            }
        }
    }
    for note in &summary.notes {
        lines.push(format!("note: {note}"));
    }
    if let Some(error) = &summary.stopped_by {
        if summary.stopped_by_defect() {
            // What it did is not known here; the journal's record is, as after a crash.
            lines.push(format!(
                "{error}: `ferry resume` finishes the job, `ferry undo` rolls it back"
            ));
            return lines;
        }
        lines.push(format!("stopped: {error}"));
    }
    // Not done and no error said why: the user cancelled it (Ctrl+C).
    let interrupted = match summary.stopped_by.is_none() {
        true => "interrupted: ",
        false => "",
    };
    for (source, gone, held) in &summary.deleted_of {
        lines.push(match held {
            Some(held) => format!(
                "{interrupted}{} of {} files deleted; the rest are still in {}",
                grouped(*gone),
                grouped(*held),
                Shown(source)
            ),
            None => format!(
                "{interrupted}{} items deleted before all were counted; the rest are still in {}",
                grouped(*gone),
                Shown(source)
            ),
        });
    }
    let deleted: HashSet<&PathBuf> = summary.deleted_of.iter().map(|(s, ..)| s).collect();
    let files = summary.record.files_by_source();
    let moved: HashSet<&PathBuf> = moved_from.iter().collect();
    let (begun, untouched): (Vec<_>, Vec<_>) = (summary.not_done.iter())
        .filter(|source| !deleted.contains(source))
        .map(|source| (source, begun(&files, source, landings)))
        .partition(|(_, begun)| begun.is_some());
    for (source, begun) in begun {
        let Some((done, total, landing)) = begun else {
            continue;
        };
        let (done, total) = (grouped(done), grouped(total));
        lines.push(match moved.contains(source) {
            true => format!(
                "{interrupted}{done} of {total} files moved; the rest are still in {} \
                 (`ferry undo` puts back what was moved)",
                Shown(source)
            ),
            false => format!(
                "{interrupted}{done} of {total} files copied into {}, which holds part of {} \
                 (`ferry undo` moves the copies to the trash)",
                Shown(&landing),
                Shown(source)
            ),
        });
    }
    if !untouched.is_empty() {
        let untouched: Vec<PathBuf> = untouched.into_iter().map(|(p, _)| p.clone()).collect();
        lines.push(format!(
            "{interrupted}{} item(s) not {verb}: {}",
            untouched.len(),
            list(&untouched)
        ));
    }
    let partly = partly_moved(summary, moved_from);
    if !partly.is_empty() {
        let partly: Vec<PathBuf> = partly.into_iter().cloned().collect();
        lines.push(format!(
            "{} folder(s) not fully moved, what was left out still in them: {}",
            partly.len(),
            list(&partly)
        ));
    }
    if summary.bytes_kept > 0 {
        lines.push(format!(
            "kept {} bytes an interrupted run had written (verified against the source)",
            summary.bytes_kept
        ));
    }
    if interactive {
        let items = summary.items_done;
        lines.push(match summary.bytes_done {
            0 => format!("{items} item(s) {verb}"),
            b => format!("{items} item(s) {verb} ({b} bytes)"),
        });
    }
    lines
}

/// The exit status of a job given the sources `given` (`moved`: a move) that ended with
/// `summary`.
fn exit_status(summary: &Summary, given: &[PathBuf], moved: bool) -> i32 {
    let refused_up_front = summary.stopped_by.is_some()
        && !summary.stopped_by_defect()
        && summary.items_done == 0
        && summary.failed.is_empty();
    // A file of a kind no one can make anew (`SkipReason::Special`) given as a source is not
    // done (one inside a copied folder is a note; but a move that leaves it behind leaves
    // its folder too, which was asked to be gone); a source given twice is done once, as
    // `cp` and `mv` do it, with a warning. (A device one cannot make fails, as in `cp -a`.)
    let skipped_for_errors = summary.skipped.iter().any(|s| {
        s.reason.after_error()
            || matches!(s.reason, SkipReason::Special(_)) && (moved || given.contains(&s.path))
    });
    if refused_up_front {
        EXIT_REFUSED
    } else if !summary.is_complete() || skipped_for_errors {
        EXIT_PARTIAL
    } else {
        EXIT_OK
    }
}

/// A source of a copy or move left unfinished that the job began: how many of its files it
/// copied or moved, how many it holds, and where it lands; `None` when nothing of it is at
/// its landing (a single file is all or nothing).
fn begun(
    files: &HashMap<&Path, (u64, u64)>,
    source: &Path,
    landings: &Landings,
) -> Option<(u64, u64, PathBuf)> {
    let &(done, total) = files.get(source)?;
    let landing = landing_of(source, landings)?;
    (done > 0).then_some((done, total, landing))
}

/// The paths, comma-separated; past the first [`LISTED`], how many more (a job stopped
/// early leaves thousands, which one line cannot usefully hold).
fn list(paths: &[PathBuf]) -> String {
    let mut text = (paths.iter().take(LISTED))
        .map(|p| Shown(p).to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if paths.len() > LISTED {
        text.push_str(&format!(" and {} more", paths.len() - LISTED));
    }
    text
}

/// How many paths one summary line names.
const LISTED: usize = 10;

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use ferry_core::jobs::{ConflictPolicy, Skipped};

    use super::*;

    #[test]
    fn a_name_taken_at_the_destination_is_named() {
        let job = Job::Copy {
            sources: vec!["a.txt".into(), "src".into()],
            dest_dir: "/dst".into(),
            dest_name: None,
            on_conflict: ConflictPolicy::Skip,
        };
        let landings = landings_of(&job);
        let skipped = |path: &str| Skipped {
            path: path.into(),
            reason: SkipReason::Exists,
        };
        let summary = Summary {
            skipped: vec![skipped("a.txt"), skipped("src/sub/x"), skipped("elsewhere")],
            ..Summary::default()
        };
        let lines = report_lines(&summary, "copied", false, (&landings, &[]));
        assert_eq!(
            lines[..3],
            [
                "skipped a.txt: /dst/a.txt already exists",
                "skipped src/sub/x: /dst/src/sub/x already exists",
                "skipped elsewhere: already exists at the destination",
            ],
        );
        let renamed = Job::Copy {
            dest_name: Some("b.txt".into()),
            sources: vec!["a.txt".into()],
            dest_dir: ".".into(),
            on_conflict: ConflictPolicy::Skip,
        };
        let lines = report_lines(&summary, "copied", false, (&landings_of(&renamed), &[]));
        assert_eq!(lines[0], "skipped a.txt: ./b.txt already exists");
    }

    #[test]
    fn items_skipped_after_errors_make_the_exit_status_partial() {
        let skipped = |reason| Summary {
            skipped: vec![Skipped {
                path: "/a".into(),
                reason,
            }],
            items_done: 1,
            ..Summary::default()
        };
        let error = ferry_core::Error::io("open", "/a", std::io::ErrorKind::PermissionDenied);
        let after_error = skipped(SkipReason::UserSkipped {
            error: Arc::new(error),
        });
        assert_eq!(exit_status(&after_error, &[], false), EXIT_PARTIAL);
        assert_eq!(
            exit_status(&skipped(SkipReason::Exists), &[], false),
            EXIT_OK
        );
        // A device (not root) named as a source fails; one found inside a copied folder is a
        // note.
        let device = skipped(SkipReason::Special(ferry_core::entry::Kind::CharDevice));
        assert_eq!(exit_status(&device, &["/a".into()], false), EXIT_PARTIAL);
        assert_eq!(exit_status(&device, &["/".into()], false), EXIT_OK);
    }

    #[test]
    fn a_folder_a_move_left_in_place_is_named_and_a_copy_only_notes_it() {
        let summary = Summary {
            skipped: vec![Skipped {
                path: "/src/m/tty".into(),
                reason: SkipReason::Special(ferry_core::entry::Kind::CharDevice),
            }],
            done: vec!["/src/done".into()],
            items_done: 2,
            ..Summary::default()
        };
        let given = [PathBuf::from("/src/m"), PathBuf::from("/src/done")];
        let moved = report_lines(&summary, "moved", false, (&[], &given));
        let partly = "1 folder(s) not fully moved, what was left out still in them: /src/m";
        assert!(moved.contains(&partly.to_owned()), "{moved:?}");
        assert_eq!(exit_status(&summary, &given, true), EXIT_PARTIAL);
        let copied = report_lines(&summary, "copied", false, (&[], &[]));
        assert!(
            !copied.iter().any(|l| l.contains("not fully")),
            "{copied:?}"
        );
        assert_eq!(exit_status(&summary, &given, false), EXIT_OK);
    }

    #[test]
    fn the_error_that_stopped_the_job_is_said_once() {
        let io = |path: &str, kind| Arc::new(ferry_core::Error::io("create", path, kind));
        let full = io("/dst/b", std::io::ErrorKind::StorageFull);
        let failed = |path: &str, error: &Arc<ferry_core::Error>| Failed {
            path: path.into(),
            error: Arc::clone(error),
        };
        let summary = Summary {
            failed: vec![
                failed(
                    "/src/a",
                    &io("/dst/a", std::io::ErrorKind::PermissionDenied),
                ),
                failed("/src/b", &full),
            ],
            stopped_by: Some(Arc::clone(&full)),
            not_done: vec!["/src/c".into()],
            ..Summary::default()
        };
        let lines = report_lines(&summary, "copied", false, (&[], &[]));
        let says = |what: &str| lines.iter().filter(|l| l.contains(what)).count();
        assert_eq!(says("/dst/b"), 1, "{lines:?}");
        assert_eq!(says("/dst/a"), 1, "{lines:?}");
        assert!(lines.contains(&format!("stopped: {full}")), "{lines:?}");
        assert!(lines.contains(&"1 item(s) not copied: /src/c".to_owned()));
        let many: Vec<PathBuf> = (0..12).map(|i| PathBuf::from(format!("/s/{i}"))).collect();
        assert_eq!(
            list(&many),
            "/s/0, /s/1, /s/2, /s/3, /s/4, /s/5, /s/6, /s/7, /s/8, /s/9 and 2 more"
        );
        assert_eq!(exit_status(&summary, &[], false), EXIT_PARTIAL);
    }

    /// Items under way when the folder they went to was removed all fail alike: said once, as
    /// what stopped the job.
    #[test]
    fn an_error_items_under_way_met_alike_is_said_once_as_the_stop() {
        let removed = || {
            Arc::new(ferry_core::Error::FolderRemoved {
                path: "/d".into(),
                destination: true,
            })
        };
        let failed = |path: &str| Failed {
            path: path.into(),
            error: removed(),
        };
        let summary = Summary {
            failed: vec![failed("/s/a"), failed("/s/b")],
            stopped_by: Some(removed()),
            ..Summary::default()
        };
        let lines = report_lines(&summary, "copied", false, (&[], &[]));
        assert_eq!(lines, [format!("stopped: {}", removed())]);
        // A folder inside the destination: the job went on; its items are said once too.
        let summary = Summary {
            stopped_by: None,
            ..summary
        };
        let lines = report_lines(&summary, "copied", false, (&[], &[]));
        assert_eq!(lines, [removed().to_string()]);
    }

    /// Two items whose folder is now a file fail with one error each about that folder: each
    /// line names its item too.
    #[test]
    fn an_error_about_a_folder_above_names_the_item_it_stopped() {
        let not_a_folder = Arc::new(ferry_core::Error::NotADirectory { path: "/p".into() });
        let failed = |path: &str| Failed {
            path: path.into(),
            error: Arc::clone(&not_a_folder),
        };
        let summary = Summary {
            failed: vec![failed("/p/g"), failed("/p/q/f")],
            ..Summary::default()
        };
        let lines = report_lines(&summary, "restored", false, (&[], &[]));
        assert_eq!(
            lines[..2],
            ["/p/g: /p is not a folder", "/p/q/f: /p is not a folder"]
        );
    }
}
