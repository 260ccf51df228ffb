//! `ferry trash|restore|empty-trash`: the freedesktop.org trash (home trash and each volume's
//! `.Trash-$uid`), through the same engine jobs as the window.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use clap::Args;
use ferry_core::jobs::{Job, TrashRoots, TrashedItem, list_trash};
use ferry_core::shown::Shown;

use super::jobs::{self, OnConflict};
use super::prompt::{can_ask, policy_of, refuse_unanswerable};
use super::{EXIT_OK, EXIT_REFUSED};

/// Arguments of `ferry trash`.
#[derive(Debug, Args)]
pub struct TrashArgs {
    /// Paths to move to the trash (links are trashed, not followed).
    #[arg(required = true, value_parser = crate::any_path())]
    pub paths: Vec<PathBuf>,
}

/// Arguments of `ferry restore`; without any, the trash is listed.
#[derive(Debug, Args)]
pub struct RestoreArgs {
    /// Restore everything in the trash.
    #[arg(long, conflicts_with_all = ["index", "paths"])]
    pub all: bool,
    /// Restore the item listed under number N (repeatable).
    #[arg(long, value_name = "N")]
    pub index: Vec<usize>,
    /// What to do when an original place is taken (`ask` needs a terminal; without one, the
    /// conflicts are listed and nothing is restored, and one that appears as the restore goes
    /// is skipped, exit status 1). Folders are merged unless `ask` or `keep-both`.
    #[arg(long, value_enum, default_value_t = OnConflict::Ask)]
    pub on_conflict: OnConflict,
    /// Same as `--on-conflict keep-both`: restore under a free name (`name (copy).ext`).
    #[arg(long, conflicts_with = "on_conflict")]
    pub keep_both: bool,
    /// Restore into the existing folder DIR (under each item's own name) instead of where the
    /// items were; the only way to restore an entry listed as unsafe.
    #[arg(long, value_name = "DIR")]
    pub to: Option<PathBuf>,
    /// Restore the item that was at ORIGINAL_PATH (the most recently trashed of that path).
    #[arg(value_name = "ORIGINAL_PATH")]
    pub paths: Vec<PathBuf>,
}

/// Runs `ferry trash`.
pub fn run_trash(args: &TrashArgs) -> i32 {
    let roots = match TrashRoots::from_env() {
        Ok(roots) => roots,
        Err(e) => {
            eprintln!("ferry: {e}");
            return EXIT_REFUSED;
        }
    };
    jobs::with_empty_paths_named(&args.paths, "trash", |paths| {
        jobs::run(Job::Trash { paths, roots }, "moved to the trash")
    })
}

/// Runs `ferry empty-trash`.
pub fn run_empty() -> i32 {
    match TrashRoots::from_env() {
        Ok(roots) => jobs::run(
            Job::EmptyTrash {
                roots,
                listed: None,
            },
            "deleted from the trash",
        ),
        Err(e) => {
            eprintln!("ferry: {e}");
            EXIT_REFUSED
        }
    }
}

/// Runs `ferry restore`: lists the trash, or restores the chosen items.
pub fn run_restore(args: &RestoreArgs) -> i32 {
    let items = match list_trash() {
        Ok(items) => items,
        Err(e) => {
            eprintln!("ferry: {e}");
            return EXIT_REFUSED;
        }
    };
    if !args.all && args.index.is_empty() && args.paths.is_empty() {
        for (i, item) in items.iter().enumerate() {
            let warning = match &item.unsafe_entry {
                Some(reason) => format!("  [unsafe entry: {reason}; restore it with --to DIR]"),
                None => String::new(),
            };
            // A name is shown escaped on a terminal (a newline in it would split its line),
            // and given as its bytes into a pipe, for the programs reading it.
            let head = format!("{:>4}  {:<19}  ", i + 1, item.deletion_date);
            if super::out::stdout_is_terminal() {
                println!("{head}{}{warning}", Shown(&item.original));
            } else {
                let path = item.original.as_os_str().as_encoded_bytes();
                super::out::stdout_bytes(
                    &[head.as_bytes(), path, warning.as_bytes(), b"\n"].concat(),
                );
            }
        }
        return EXIT_OK;
    }
    let mut chosen = match choose(args, &items) {
        Ok(chosen) => chosen,
        Err(message) => {
            eprintln!("ferry: {message}");
            return EXIT_REFUSED;
        }
    };
    if let Some(dir) = &args.to {
        if !dir.is_dir() {
            crate::say_no_folder(dir);
            return EXIT_REFUSED;
        }
        let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.clone());
        chosen = chosen.iter().map(|i| i.restore_to(&dir)).collect();
    }
    let unsafe_entries = chosen.iter().filter(|i| i.unsafe_entry.is_some()).count();
    if unsafe_entries > 0 {
        eprintln!(
            "ferry: {unsafe_entries} unsafe trash entr{} will not be restored where their info \
             files say: restore them into a folder of your choice with --to DIR",
            if unsafe_entries == 1 { "y" } else { "ies" }
        );
    }
    let on_conflict = policy_of(if args.keep_both {
        OnConflict::KeepBoth
    } else {
        args.on_conflict
    });
    if let Some(code) = refuse_unanswerable(on_conflict, &taken(&chosen), can_ask()) {
        return code;
    }
    let job = Job::Restore {
        items: chosen,
        on_conflict,
    };
    jobs::run(job, "restored")
}

/// The chosen items whose original place is taken, or wanted by an item before them; not
/// unsafe entries, which are not restored there.
fn taken(chosen: &[TrashedItem]) -> Vec<(PathBuf, PathBuf)> {
    let mut wanted = HashSet::new();
    chosen
        .iter()
        .filter(|i| i.unsafe_entry.is_none())
        .filter(|i| !wanted.insert(&i.original) || i.original.symlink_metadata().is_ok())
        .map(|i| (i.file.clone(), i.original.clone()))
        .collect()
}

/// The items `args` names; a message when one of them is not in the trash.
fn choose(args: &RestoreArgs, items: &[TrashedItem]) -> Result<Vec<TrashedItem>, String> {
    if args.all {
        return Ok(items.to_vec());
    }
    let mut chosen: Vec<TrashedItem> = Vec::new();
    for &n in &args.index {
        let item = n
            .checked_sub(1)
            .and_then(|i| items.get(i))
            .ok_or_else(|| format!("no item {n} in the trash ({} items)", items.len()))?;
        chosen.push(item.clone());
    }
    // Listed oldest first: the last item of a path is the most recent. Looked up by path,
    // not searched for each one: a restore of 20,000 paths took 20 s of scanning.
    let newest: HashMap<&Path, usize> = (items.iter().enumerate())
        .map(|(k, i)| (i.original.as_path(), k))
        .collect();
    for path in &args.paths {
        let (lexical, resolved) = absolute(path);
        let at = |p: &PathBuf| newest.get(p.as_path()).copied();
        let k = at(&lexical)
            .max(at(&resolved))
            .ok_or_else(|| format!("{}: not in the trash", Shown(path)))?;
        chosen.push(items[k].clone());
    }
    // An item named twice (by index and by path, say) is restored once.
    let mut seen = HashSet::new();
    chosen.retain(|i| seen.insert(i.file.clone()));
    Ok(chosen)
}

/// `path` made absolute as given, and with its parent's links resolved (as trashing
/// recorded it) when the parent still exists.
fn absolute(path: &Path) -> (PathBuf, PathBuf) {
    let lexical = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let resolved = match (lexical.parent(), lexical.file_name()) {
        (Some(parent), Some(name)) => std::fs::canonicalize(parent).map(|p| p.join(name)).ok(),
        _ => None,
    };
    let resolved = resolved.unwrap_or_else(|| lexical.clone());
    (lexical, resolved)
}
