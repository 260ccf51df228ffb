//! A job in words: what it is doing ("Copying 5,000 files to “Backup”") and what it did ("Moved
//! 12 items to “Photos”").

use std::collections::HashSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use ferry_core::jobs::{How, Job, JournalRecord, Summary, Totals};

use crate::gui::{format, words};

/// What `job` is doing, counted from `totals` once planning found them.
pub fn title(job: &Job, totals: Option<&Totals>) -> String {
    let things = |sources: &[PathBuf]| things(sources, totals);
    match job {
        Job::Copy { .. } | Job::Move { .. } => {
            transfer(job, ["Duplicating", "Copying", "Moving"], things, None)
        }
        Job::Link {
            targets, dest_dir, ..
        } => format!(
            "Making {} to {} in {}",
            links(targets.len()),
            things(targets),
            words::quoted(dest_dir)
        ),
        Job::Delete { paths } => format!("Deleting {}", things(paths)),
        // A trash moves what it is given whole, without looking inside: its totals count
        // items, not files ("Moving 3 files" for two folders and a file).
        Job::Trash { paths, .. } => {
            format!("Moving {} to the trash", self::things(paths, None))
        }
        Job::Rename { path, new_name } => format!(
            "Renaming {} to {}",
            words::quoted(path),
            words::quoted(Path::new(new_name))
        ),
        Job::CreateFolder { name, .. } => {
            format!("Creating the folder {}", words::quoted(Path::new(name)))
        }
        Job::Restore { items, .. } => format!(
            "Restoring {}",
            format::counted(items.len(), "item", "items")
        ),
        Job::EmptyTrash { .. } => "Emptying the trash".to_owned(),
        Job::Undo { record, .. } => format!("Undoing: {}", record_in_words(record)),
        Job::Resume { record } => format!("Finishing: {}", in_words(&record.job)),
    }
}

/// What the job of `record` did, as [`in_words`] says it, with how much of it was done when
/// it was stopped part way: "Move 15,000 items to the trash (1,280 done)". Its undo takes
/// back what was done; "Undid: Move 15,000 items to the trash" after 1,280 had moved read
/// as all of them.
pub fn record_in_words(record: &JournalRecord) -> String {
    let words = in_words(&record.job);
    match record.counts.not_done {
        0 => words,
        _ => {
            let done = usize::try_from(record.counts.done).unwrap_or(usize::MAX);
            format!("{words} ({} done)", format::count(done))
        }
    }
}

/// What `job` does, as an order: "Move “photo.jpg” to “Documents”", "Copy 3 items to “Backup”"
/// (how the Undo and Redo entries and their toasts name a job).
pub fn in_words(job: &Job) -> String {
    let things = |sources: &[PathBuf]| things(sources, None);
    match job {
        Job::Copy { .. } | Job::Move { .. } => {
            transfer(job, ["Duplicate", "Copy", "Move"], things, None)
        }
        Job::Link {
            targets, dest_dir, ..
        } => format!(
            "Make {} to {} in {}",
            links(targets.len()),
            things(targets),
            words::quoted(dest_dir)
        ),
        Job::Delete { paths } => format!("Delete {} permanently", things(paths)),
        Job::Trash { paths, .. } => format!("Move {} to the trash", things(paths)),
        Job::Rename { path, new_name } => format!(
            "Rename {} to {}",
            words::quoted(path),
            words::quoted(Path::new(new_name))
        ),
        Job::CreateFolder { name, .. } => {
            format!("Create the folder {}", words::quoted(Path::new(name)))
        }
        Job::Restore { items, .. } => {
            let originals: Vec<PathBuf> = items.iter().map(|i| i.original.clone()).collect();
            format!("Restore {}", things(&originals))
        }
        Job::EmptyTrash { .. } => "Empty the trash".to_owned(),
        Job::Undo { record, .. } => format!("Undo: {}", record_in_words(record)),
        Job::Resume { record } => format!("Finish: {}", in_words(&record.job)),
    }
}

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

/// A copy or move in words, with the verb of a duplicate, a copy and a move: "Copying
/// “a.txt” to “Backup”", "Duplicated 3 items"; `things` names what it takes, `landed` the name
/// its one item got where known.
fn transfer(
    job: &Job,
    [duplicate, copy, moving]: [&str; 3],
    things: impl Fn(&[PathBuf]) -> String,
    landed: Option<&OsStr>,
) -> String {
    let Some((sources, dest_dir, dest_name)) = job.transfer() else {
        return String::new();
    };
    let is_move = matches!(job, Job::Move { .. });
    if !is_move && dest_name.is_none() && is_duplicate(sources, dest_dir) {
        let what = things(sources);
        return match landed {
            Some(name) => format!("{duplicate} {what} as {}", words::quoted(Path::new(name))),
            None => format!("{duplicate} {what}"),
        };
    }
    let verb = if is_move { moving } else { copy };
    let to = destination(sources, dest_dir, landed.or(dest_name));
    format!("{verb} {} to {to}", things(sources))
}

/// Where a copy or move goes, after "to": the folder ("Backup"); with a new name for its
/// one source, that name ("“b.txt”") in the source's own folder, else "“Backup” as “b.txt”".
fn destination(sources: &[PathBuf], dest_dir: &Path, dest_name: Option<&OsStr>) -> String {
    // Its own name: a trashed item copied out under the name it had ("notes.md.2" named).
    let Some(name) = dest_name.filter(|&n| !matches!(sources, [one] if one.file_name() == Some(n)))
    else {
        return words::quoted(dest_dir);
    };
    let name = words::quoted(Path::new(name));
    if is_duplicate(sources, dest_dir) {
        name
    } else {
        format!("{} as {name}", words::quoted(dest_dir))
    }
}

/// A copy into the sources' own folder: a duplicate (`name (copy).ext`).
fn is_duplicate(sources: &[PathBuf], dest_dir: &Path) -> bool {
    !sources.is_empty() && sources.iter().all(|s| s.parent() == Some(dest_dir))
}

/// "report.pdf" (one item, always); "3 items" before planning, "5,000 files" or "3 folders
/// and 12 files" after.
fn things(sources: &[PathBuf], totals: Option<&Totals>) -> String {
    // One item is named, before planning and after: two copies of one folder each, one
    // queued and one planned, read "Copying “a”" and "Copying 1 folder and 300 files".
    if let [one] = sources {
        return words::quoted(one);
    }
    match totals {
        // Planning found less to write than was given (the rest waits for conflicts'
        // answers, say): the items given are what the job is about.
        None => format::counted(sources.len(), "item", "items"),
        Some(totals) if totals.items < sources.len() as u64 => {
            format::counted(sources.len(), "item", "items")
        }
        Some(totals) => {
            let folders = usize::try_from(totals.folders).unwrap_or(usize::MAX);
            let files =
                usize::try_from(totals.items.saturating_sub(totals.folders)).unwrap_or(usize::MAX);
            format::folders_and_files(folders, files, " and ")
        }
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

/// "a link" to one item, "links" to more.
fn links(items: usize) -> &'static str {
    if items == 1 { "a link" } else { "links" }
}

/// "“a”", "“a” and “b”", "3 items".
fn named(paths: &[&Path]) -> String {
    match paths {
        [one] => words::quoted(one),
        [one, two] => format!("{} and {}", words::quoted(one), words::quoted(two)),
        more => format::counted(more.len(), "item", "items"),
    }
}

/// `text` with its first letter in lower case ("Copying…" inside a sentence).
pub fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_lowercase().chain(chars).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferry_core::jobs::ConflictPolicy;

    /// Two folders copied in part at a cancel are both named (the first alone was).
    #[test]
    fn the_items_a_cancel_left_in_part_are_each_named() {
        let (a, b, c) = (
            Path::new("/h/Big"),
            Path::new("/h/Downloads"),
            Path::new("/h/c"),
        );
        assert_eq!(named(&[a]), "“Big”");
        assert_eq!(named(&[a, b]), "“Big” and “Downloads”");
        assert_eq!(named(&[a, b, c]), "3 items");
    }

    /// "Cancelled: undid: Copy 3 items…" read as an undo that had finished.
    #[test]
    fn a_cancelled_undo_says_it_was_cancelled_and_undo_finishes_it() {
        let dir = tempfile::tempdir().unwrap();
        let journal = ferry_core::jobs::UndoJournal::at(dir.path().join("journal.jsonl"));
        let job = copy(&["/h/a", "/h/b", "/h/c"], "/h/Music");
        journal.begin(&job).unwrap().expect("journaled");
        let record = journal.records().unwrap().pop().unwrap();
        let undo = Job::Undo {
            record: Box::new(record),
            trash: ferry_core::jobs::TrashRoots::home_only(PathBuf::from("/h/.Trash")),
            on_conflict: ConflictPolicy::Ask,
        };
        let summary = Summary::default();
        assert_eq!(
            done_message(&undo, &summary, true, None),
            "Cancelled the undo of: copy 3 items to “Music”; Undo finishes it."
        );
        assert_eq!(
            done_message(&undo, &summary, false, None),
            "Undid: Copy 3 items to “Music”."
        );
    }

    /// An undo whose every item was skipped when asked says it did not undo the job.
    #[test]
    fn an_undo_that_skipped_everything_says_it_did_not_undo() {
        let dir = tempfile::tempdir().unwrap();
        let journal = ferry_core::jobs::UndoJournal::at(dir.path().join("journal.jsonl"));
        journal.begin(&copy(&["/h/a"], "/h/Music")).unwrap();
        let undo = Job::Undo {
            record: Box::new(journal.records().unwrap().pop().unwrap()),
            trash: ferry_core::jobs::TrashRoots::home_only(PathBuf::from("/h/.Trash")),
            on_conflict: ConflictPolicy::Ask,
        };
        let summary = Summary {
            skipped: vec![ferry_core::jobs::Skipped {
                path: PathBuf::from("/h/a"),
                reason: ferry_core::jobs::SkipReason::Exists,
            }],
            ..Summary::default()
        };
        assert_eq!(
            done_message(&undo, &summary, false, None),
            "Did not undo: Copy “a” to “Music” (1 skipped)."
        );
    }

    /// A job stopped part way is named with what it did: "Undid: Move 15,000 items to the
    /// trash" after 1,280 had moved read as all of them.
    #[test]
    fn a_job_stopped_part_way_is_named_with_what_it_did() {
        let dir = tempfile::tempdir().unwrap();
        let journal = ferry_core::jobs::UndoJournal::at(dir.path().join("journal.jsonl"));
        journal
            .begin(&copy(&["/h/a", "/h/b", "/h/c"], "/h/Music"))
            .unwrap();
        let mut record = journal.records().unwrap().pop().unwrap();
        record.counts.done = 1;
        record.counts.not_done = 2;
        assert_eq!(record_in_words(&record), "Copy 3 items to “Music” (1 done)");
        let undo = Job::Undo {
            record: Box::new(record),
            trash: ferry_core::jobs::TrashRoots::home_only(PathBuf::from("/h/.Trash")),
            on_conflict: ConflictPolicy::Ask,
        };
        assert_eq!(
            done_message(&undo, &Summary::default(), false, None),
            "Undid: Copy 3 items to “Music” (1 done)."
        );
    }

    fn copy(sources: &[&str], dest: &str) -> Job {
        Job::Copy {
            sources: sources.iter().map(PathBuf::from).collect(),
            dest_dir: PathBuf::from(dest),
            dest_name: None,
            on_conflict: ConflictPolicy::Ask,
        }
    }

    #[test]
    fn titles_count_what_planning_found() {
        let job = copy(&["/a/x", "/a/y"], "/b/Backup");
        assert_eq!(title(&job, None), "Copying 2 items to “Backup”");
        let totals = Totals {
            items: 15,
            bytes: 0,
            folders: 3,
            cross_device: false,
            ..Totals::default()
        };
        assert_eq!(
            title(&job, Some(&totals)),
            "Copying 3 folders and 12 files to “Backup”"
        );
        // One of the two free, the other waiting for an answer: not "Copying 1 file".
        let one_free = Totals { items: 1, ..totals };
        assert_eq!(title(&job, Some(&one_free)), "Copying 2 items to “Backup”");
        assert_eq!(
            title(&copy(&["/a/report.pdf"], "/b"), None),
            "Copying “report.pdf” to “b”"
        );
        assert_eq!(title(&copy(&["/a/x"], "/a"), None), "Duplicating “x”");
        assert_eq!(
            title(&copy(&["/a/photos"], "/b"), Some(&totals)),
            "Copying “photos” to “b”",
            "one folder is named as it was before planning"
        );
        // Every item waits for a conflict's answer: planning found nothing else to write.
        let nothing = Totals { items: 0, ..totals };
        assert_eq!(
            title(&job, Some(&nothing)),
            "Copying 2 items to “Backup”",
            "not '0 files'"
        );
    }

    #[test]
    fn a_job_giving_its_source_a_new_name_says_the_name() {
        let to = |dest: &str, name: &str| Job::Copy {
            sources: vec![PathBuf::from("/h/a.txt")],
            dest_dir: PathBuf::from(dest),
            dest_name: Some(name.into()),
            on_conflict: ConflictPolicy::Skip,
        };
        assert_eq!(in_words(&to("/h", "b.txt")), "Copy “a.txt” to “b.txt”");
        assert_eq!(
            in_words(&to("/h/Docs", "b.txt")),
            "Copy “a.txt” to “Docs” as “b.txt”"
        );
        let done = Summary {
            done: vec![PathBuf::from("/h/a.txt")],
            ..Summary::default()
        };
        assert_eq!(
            done_message(&to("/h", "b.txt"), &done, false, None),
            "Copied “a.txt” to “b.txt”."
        );
    }

    /// Merged into a folder holding two of its four files, which were skipped: "Copied 3
    /// items to “dst” (2 skipped)" was said for the two files written, the folder merged
    /// into counted.
    #[test]
    fn a_merge_says_only_what_it_put_in_place() {
        let tmp = tempfile::tempdir().unwrap();
        let (src, dst) = (tmp.path().join("src/s"), tmp.path().join("dst"));
        std::fs::create_dir_all(&src).unwrap();
        std::fs::create_dir_all(dst.join("s")).unwrap();
        for n in ["f1", "f2", "f3", "f4"] {
            std::fs::write(src.join(n), "new").unwrap();
        }
        for n in ["f1", "f2"] {
            std::fs::write(dst.join("s").join(n), "old").unwrap();
        }
        // Skip merges a folder into a folder and skips the names taken.
        let job = Job::Copy {
            sources: vec![src],
            dest_dir: dst,
            dest_name: None,
            on_conflict: ConflictPolicy::Skip,
        };
        let staging = ferry_core::jobs::StagingRoots {
            home: None,
            volumes: false,
        };
        let (engine, events) = ferry_core::jobs::Engine::start_with(staging);
        let id = engine.submit(job.clone());
        let summary = loop {
            match events
                .recv_timeout(std::time::Duration::from_secs(30))
                .unwrap()
            {
                ferry_core::jobs::Event::Finished { job, summary } if job == id => break summary,
                ferry_core::jobs::Event::Cancelled { job, .. } if job == id => panic!("cancelled"),
                _ => {}
            }
        };
        let said = done_message(&job, &summary, false, None);
        assert!(said.starts_with("Copied 2 items"), "{said}");
        assert!(said.contains("2 skipped"), "{said}");
    }

    #[test]
    fn emptying_the_trash_says_what_it_deleted_not_that_the_trash_is_empty() {
        let job = Job::EmptyTrash {
            roots: ferry_core::jobs::TrashRoots::home_only(PathBuf::from("/h/.local/share/Trash")),
            listed: Some(Vec::new()),
        };
        let summary = Summary {
            done: vec![PathBuf::from("/h/.local/share/Trash/files/a"); 3],
            ..Summary::default()
        };
        assert_eq!(
            done_message(&job, &summary, false, None),
            "Deleted 3 items from the trash permanently."
        );
    }

    #[test]
    fn what_was_done_and_what_was_not() {
        let job = Job::Move {
            sources: vec![PathBuf::from("/a/x")],
            dest_dir: PathBuf::from("/p/Photos"),
            dest_name: None,
            on_conflict: ConflictPolicy::Ask,
        };
        let summary = Summary {
            done: vec![PathBuf::from("/a/x"); 12],
            ..Summary::default()
        };
        assert_eq!(
            done_message(&job, &summary, false, None),
            "Moved 12 items to “Photos”."
        );
        let failed = Summary {
            failed: vec![ferry_core::jobs::Failed {
                path: PathBuf::from("/a/y"),
                error: std::sync::Arc::new(ferry_core::Error::Cancelled),
            }],
            ..summary
        };
        assert_eq!(
            done_message(&job, &failed, true, None),
            "Cancelled: moved 12 items to “Photos” (1 failed)."
        );
        // Why it stopped, in words (it said "3076096 bytes needed, 2097152 available").
        let stopped = Summary {
            stopped_by: Some(std::sync::Arc::new(ferry_core::Error::NoSpace {
                path: PathBuf::from("/p"),
                needed: 3_076_096,
                available: 2_097_152,
            })),
            ..Summary::default()
        };
        assert_eq!(
            done_message(&job, &stopped, false, None),
            "Moved nothing to “Photos” (stopped: there is not enough space on the disk \
             holding “p”: 3.1 MB needed, 2.1 MB free)."
        );
    }

    /// One link is "a link": "Made links to “f4.txt”" (round 125).
    #[test]
    fn one_link_is_a_link() {
        let job = Job::Link {
            targets: vec![PathBuf::from("/a/f4.txt")],
            dest_dir: PathBuf::from("/b/dst"),
            on_conflict: ConflictPolicy::Ask,
        };
        assert_eq!(title(&job, None), "Making a link to “f4.txt” in “dst”");
        let summary = Summary {
            done: vec![PathBuf::from("/a/f4.txt")],
            ..Summary::default()
        };
        assert_eq!(
            done_message(&job, &summary, false, None),
            "Made a link to “f4.txt” in “dst”."
        );
    }

    /// The end counts as the title did ("Moving 1 folder and 4 files", then "Moved 2
    /// items" before); what was not done whole is counted by the items given.
    #[test]
    fn a_transfer_done_whole_is_counted_as_its_title_counted_it() {
        let sources = vec![PathBuf::from("/a/docs"), PathBuf::from("/a/x.txt")];
        let job = Job::Move {
            sources: sources.clone(),
            dest_dir: PathBuf::from("/p/Photos"),
            dest_name: None,
            on_conflict: ConflictPolicy::Ask,
        };
        let totals = Totals {
            items: 5,
            folders: 1,
            ..Totals::default()
        };
        assert_eq!(
            title(&job, Some(&totals)),
            "Moving 1 folder and 4 files to “Photos”"
        );
        let summary = Summary {
            done: sources,
            ..Summary::default()
        };
        assert_eq!(
            done_message(&job, &summary, false, Some(&totals)),
            "Moved 1 folder and 4 files to “Photos”."
        );
        assert_eq!(
            done_message(&job, &summary, true, Some(&totals)),
            "Cancelled: moved 2 items to “Photos”."
        );
    }

    /// Not "Moved nothing to the trash (1 failed)." with the reason a click away.
    #[test]
    fn a_job_that_only_failed_on_one_item_says_why() {
        let outer = PathBuf::from("/h/outer");
        let summary = Summary {
            failed: vec![ferry_core::jobs::Failed {
                path: outer.clone(),
                error: std::sync::Arc::new(ferry_core::Error::HoldsMount {
                    path: outer.clone(),
                    mount: PathBuf::from("/h/outer/usb"),
                }),
            }],
            ..Summary::default()
        };
        let trash = Job::Trash {
            paths: vec![outer],
            roots: ferry_core::jobs::TrashRoots::home_only(PathBuf::from("/h/.Trash")),
        };
        assert_eq!(
            done_message(&trash, &summary, false, None),
            "“outer” holds “/h/outer/usb”, where a disk or a folder is mounted; it was left alone."
        );
        // Cancelled, it says so and counts.
        let said = done_message(&trash, &summary, true, None);
        assert_eq!(said, "Cancelled: moved nothing to the trash (1 failed).");
    }

    /// Not "Renamed to “b.txt” (1 failed)." when nothing was renamed.
    #[test]
    fn a_rename_or_new_folder_that_failed_says_why() {
        let refused = |path: &str| Summary {
            failed: vec![ferry_core::jobs::Failed {
                path: PathBuf::from(path),
                error: std::sync::Arc::new(ferry_core::Error::io(
                    "rename",
                    path,
                    std::io::Error::from_raw_os_error(rustix::io::Errno::PERM.raw_os_error()),
                )),
            }],
            ..Summary::default()
        };
        let rename = Job::Rename {
            path: PathBuf::from("/h/locked.txt"),
            new_name: "b.txt".into(),
        };
        let said = done_message(&rename, &refused("/h/locked.txt"), false, None);
        assert!(
            said.starts_with("“locked.txt” can't be renamed: "),
            "{said}"
        );
        let made = Job::CreateFolder {
            parent: PathBuf::from("/h"),
            name: "new".into(),
        };
        let said = done_message(&made, &refused("/h/new"), false, None);
        assert!(!said.starts_with("Created"), "{said}");
    }

    #[test]
    fn a_trash_of_folders_and_files_counts_items() {
        let job = Job::Trash {
            paths: vec![
                PathBuf::from("/h/a"),
                PathBuf::from("/h/b"),
                PathBuf::from("/h/c.txt"),
            ],
            roots: ferry_core::jobs::TrashRoots::home_only("/h/.Trash"),
        };
        let planned = Totals {
            items: 3,
            ..Totals::default()
        };
        assert_eq!(title(&job, Some(&planned)), "Moving 3 items to the trash");
    }

    /// A name with a newline broke the toast, the status bar and the jobs panel's title in
    /// two, and a 250-character one pushed the toast's buttons off the window.
    #[test]
    fn a_renamed_name_is_said_on_one_line_and_shortened() {
        let rename = |new_name: &str| Job::Rename {
            path: PathBuf::from("/h/two\nlines"),
            new_name: new_name.into(),
        };
        let job = rename("two\nlines.md");
        assert_eq!(title(&job, None), "Renaming “two↵lines” to “two↵lines.md”");
        assert_eq!(in_words(&job), "Rename “two↵lines” to “two↵lines.md”");
        let said = done_message(&job, &Summary::default(), false, None);
        assert_eq!(said, "Renamed to “two↵lines.md”.");
        let said = done_message(&rename(&"W".repeat(250)), &Summary::default(), false, None);
        assert!(said.chars().count() <= 80 && said.contains('…'), "{said}");
        // Undone, its undo's toast says the job in words: it ran off the window.
        let said = in_words(&rename(&"Q".repeat(200)));
        assert!(said.chars().count() <= 90 && said.contains('…'), "{said}");
    }

    #[test]
    fn undo_and_redo_name_a_job_as_an_order() {
        assert_eq!(
            in_words(&copy(&["/a/x.txt", "/a/y", "/a/z"], "/b/Backup")),
            "Copy 3 items to “Backup”"
        );
        let one = Job::Move {
            sources: vec![PathBuf::from("/h/photo.jpg")],
            dest_dir: PathBuf::from("/h/Documents"),
            dest_name: None,
            on_conflict: ConflictPolicy::Ask,
        };
        assert_eq!(in_words(&one), "Move “photo.jpg” to “Documents”");
        assert_eq!(in_words(&copy(&["/a/x.txt"], "/a")), "Duplicate “x.txt”");
    }
}
