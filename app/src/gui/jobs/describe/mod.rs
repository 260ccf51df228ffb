//! A job in words: what it is doing ("Copying 5,000 files to “Backup”"), what it is as an order
//! for Undo and Redo ("Copy 3 items to “Backup”"), and, in `done.rs`, what it did ("Moved 12
//! items to “Photos”", with what it did not do). The phrasing they share (a transfer's verb
//! and destination, how items are named or counted) is here.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use ferry_core::jobs::{Job, JournalRecord, Totals};

use crate::gui::{format, words};

mod done;
#[cfg(test)]
mod tests;

pub use done::done_message;

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
