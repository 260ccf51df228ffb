//! What a job did, for the toast at its end and the jobs panel: "Moved 12 items to “Photos”",
//! then what it did not do ("(2 skipped, 1 failed)"), counted as the user sees it on disk.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use ferry_core::jobs::{How, Job, Summary, Totals};

use super::{links, lowercase_first, named, record_in_words, things, transfer};
use crate::gui::{format, words};

/// What `job` did, for the toast at its end: "Moved 12 items to “Photos”", with what was not
/// done after it. A copy or move done whole is counted as its title counted it from the
/// plan's `totals` ("Moved 1 folder and 4 files", after "Moving 1 folder and 4 files").
pub fn done_message(
    job: &Job,
    summary: &Summary,
    cancelled: bool,
    totals: Option<&Totals>,
) -> String {
    // A job that did nothing but fail on one item (a rename refused, a folder that cannot go
    // to the trash): the reason is the message, as Dolphin's error box gives it.
    let only_failed = summary.done.is_empty() && summary.skipped.is_empty() && !cancelled;
    if let ([failed], None, true) = (summary.failed.as_slice(), &summary.stopped_by, only_failed) {
        return words::error_in_words(&failed.error);
    }
    let into_merged = placed_into_merged(job, summary);
    let done = summary.done.len() + into_merged;
    let items = match summary.done.as_slice() {
        // Items put into folders merged into, whose other items were skipped or not reached:
        // not among the items done whole, and left out ("Copied “top”" with two files
        // written into the folder merged beside it).
        _ if into_merged > 0 => format::counted(done, "item", "items"),
        // Cancelled or stopped inside a folder, or some of it skipped: what of it was put
        // there, not the folders merged into ("Copied 3 items" for two files written; a
        // folder restored into the one there, a file skipped, "Restored 1 item").
        [] if matches!(
            job,
            Job::Copy { .. } | Job::Move { .. } | Job::Restore { .. }
        ) && summary.record.did_something() =>
        {
            format::counted(summary.record.placed(), "item", "items")
        }
        [] => "nothing".to_owned(),
        // Named as the job names it: a trashed item by its name before the trash.
        [_] if let Job::Delete { paths } | Job::Copy { sources: paths, .. } = job
            && let [named] = paths.as_slice() =>
        {
            words::quoted(named)
        }
        [one] => words::quoted(one),
        _ => match job.transfer() {
            Some((sources, ..))
                if !cancelled
                    && sources.len() == done
                    && summary.is_complete()
                    && summary.skipped.is_empty() =>
            {
                things(sources, totals)
            }
            _ => format::counted(done, "item", "items"),
        },
    };
    let mut text = match job {
        Job::Copy { .. } | Job::Move { .. } => {
            // The one item done, if it got another name (Keep both, a duplicate): that name.
            // Asked only then: this is the UI thread, and a paste can have 100,000 sources.
            let landed = match summary.done.as_slice() {
                [done] => match summary.record.renamed().as_slice() {
                    [(source, name)] if done == source => Some(name.clone()),
                    _ => None,
                },
                _ => None,
            };
            let verbs = ["Duplicated", "Copied", "Moved"];
            transfer(job, verbs, |_| items.clone(), landed.as_deref())
        }
        Job::Link { dest_dir, .. } => {
            format!(
                "Made {} to {items} in {}",
                links(done),
                words::quoted(dest_dir)
            )
        }
        Job::Delete { .. } => format!("Deleted {items} permanently"),
        Job::Trash { .. } => format!("Moved {items} to the trash"),
        Job::Rename { new_name, .. } => {
            format!("Renamed to {}", words::quoted(Path::new(new_name)))
        }
        Job::CreateFolder { name, .. } => {
            format!("Created the folder {}", words::quoted(Path::new(name)))
        }
        // Into a folder the user chose (Restore to…, a drag out of the trash): named.
        Job::Restore {
            items: restored, ..
        } => {
            let restored = match restored.first() {
                Some(first) if first.chosen_folder => match first.original.parent() {
                    Some(to) => format!("Restored {items} to {}", words::quoted(to)),
                    None => format!("Restored {items}"),
                },
                _ => format!("Restored {items}"),
            };
            match answered_name(summary) {
                Some(name) => format!("{restored} as {}", words::quoted(Path::new(name))),
                None => restored,
            }
        }
        // What it deleted, not "Emptied the trash": the window's empties only the items its
        // question counted, and anything trashed since stays.
        Job::EmptyTrash { .. } => format!(
            "Deleted {} from the trash permanently",
            format::counted(done, "item", "items")
        ),
        // Everything skipped when asked: "Undid:" read as done, and the next Undo as a retry.
        Job::Undo { record, .. } if summary.skipped_everything() => {
            format!("Did not undo: {}", record_in_words(record))
        }
        Job::Undo { record, .. } => {
            let undid = format!("Undid: {}", record_in_words(record));
            match answered_name(summary) {
                Some(name) => format!(
                    "{undid}; it came back as {}",
                    words::quoted(Path::new(name))
                ),
                None => undid,
            }
        }
        Job::Resume { .. } => format!("Finished {items}"),
    };
    if cancelled {
        text = match job {
            // "Cancelled: undid: Copy…" read as an undo that finished; its job can be undone
            // again, which finishes it.
            Job::Undo { record, .. } => format!(
                "Cancelled the undo of: {}; Undo finishes it",
                lowercase_first(&record_in_words(record))
            ),
            _ => format!("Cancelled: {}", lowercase_first(&text)),
        };
    }
    let mut rest = Vec::new();
    // A folder cancelled midway is there in part: said, as undo takes it back too; each of
    // them (two copied at once, only the first was named).
    let begun = summary.record.begun(&summary.not_done);
    if !begun.is_empty() && !summary.done.is_empty() {
        rest.push(format!("and part of {}", named(&begun)));
    }
    let after_errors = summary
        .skipped
        .iter()
        .filter(|s| s.reason.after_error())
        .count();
    let chosen = summary.skipped.len() - after_errors;
    if chosen > 0 {
        rest.push(format!("{} skipped", format::count(chosen)));
    }
    if after_errors > 0 {
        rest.push(match after_errors {
            1 => "1 skipped after an error".to_owned(),
            n => format!("{} skipped after errors", format::count(n)),
        });
    }
    if !summary.failed.is_empty() {
        rest.push(format!("{} failed", format::count(summary.failed.len())));
    }
    if let Some(why) = &summary.stopped_by {
        // In words, as the dialog says it ("3076096 bytes needed" before).
        let said = words::error_in_words(why);
        rest.push(format!(
            "stopped: {}",
            lowercase_first(said.trim_end_matches('.'))
        ));
    }
    if !rest.is_empty() {
        text = format!("{text} ({})", rest.join(", "));
    }
    text.push('.');
    text
}

/// The name an answer to a conflict (Keep both) gave the one item a job put back, when it
/// did: the toast names what is there, not what was asked for. An answer about a file inside
/// it (a folder merged) is not about it ("Restored “sub” as “c (copy).txt”" before).
fn answered_name(summary: &Summary) -> Option<&OsStr> {
    match (
        summary.done.len(),
        summary.record.names_from_answers(true).as_slice(),
    ) {
        (1, [name]) => Some(name),
        _ => None,
    }
}

/// How many items a copy or move put into folders it merged into but did not finish (so not
/// among `summary.done`), at their top: a file, or a folder with all it holds.
fn placed_into_merged(job: &Job, summary: &Summary) -> usize {
    let finished = summary.is_complete() && summary.skipped.is_empty();
    let transfer = matches!(job, Job::Copy { .. } | Job::Move { .. });
    // Paths are built only where a merged folder was left part done.
    if finished || !transfer || summary.record.merged() == 0 {
        return 0;
    }
    let entries: Vec<_> = summary.record.entries().collect();
    let merged: HashSet<&Path> = (entries.iter())
        .filter(|e| e.how == How::Merged)
        .map(|e| e.dest.as_path())
        .collect();
    let done: HashSet<&Path> = summary.done.iter().map(PathBuf::as_path).collect();
    (entries.iter())
        .filter(|e| e.how != How::Merged && e.dest.parent().is_some_and(|p| merged.contains(p)))
        .filter(|e| !e.source.ancestors().any(|a| done.contains(a)))
        .count()
}
