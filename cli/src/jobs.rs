//! `ferry cp|mv|ln|rm`: the same engine and code path as the window, with a progress bar on
//! stderr when it is a terminal and a summary naming every item that was not done.

use std::io::IsTerminal;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use clap::{Args, ValueEnum};
use crossbeam_channel::RecvTimeoutError;
use ferry_core::jobs::{
    Caution, ConflictPolicy, Engine, ErrorPolicy, Event, ITEM_WORK, Job, JobOptions, OwnFolders,
    Phase, Progress, SkipReason, Totals, delete_cautions, move_cautions,
};
use ferry_core::shown::Shown;
use indicatif::{ProgressBar, ProgressStyle};
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};

use super::prompt::{Prompt, describe, policy_of};
use super::report::{landings_of, report};
use super::{EXIT_OK, EXIT_PARTIAL, EXIT_REFUSED};

/// What to do when a name already exists in the destination folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnConflict {
    /// Ask about each conflict (needs a terminal; without one, list them and exit 2 before
    /// writing anything; one that appears after writing began is skipped, and the exit
    /// status is 1).
    Ask,
    /// Keep the existing file; the source is reported as skipped.
    Skip,
    /// Replace the existing file once the new one is complete (the old one is kept aside
    /// for undo).
    Replace,
    /// Replace only files older than the source.
    ReplaceIfNewer,
    /// Give the source a new name: `name (copy).ext`.
    KeepBoth,
    /// Merge folders, skip existing files.
    Merge,
}

/// Arguments of `ferry cp` and `ferry mv`.
#[derive(Debug, Args)]
pub struct TransferArgs {
    /// What to do when a name already exists in DEST_DIR (folders are merged unless
    /// `ask` or `keep-both`). A copy into the source's own folder is no conflict: it makes
    /// a duplicate, `name (copy).ext`, as a paste there does, whatever this says.
    #[arg(long, value_enum, default_value_t = OnConflict::Skip)]
    pub on_conflict: OnConflict,
    /// Sources, then the destination folder (SRC... DEST_DIR), or one source and the new path
    /// it goes to (SRC DEST: `ferry cp a.txt b.txt`, `ferry mv old new`). For `ferry cp`,
    /// `SRC/.` stands for what the folder SRC holds, as with `cp -r SRC/. DEST_DIR`: its items
    /// land in DEST_DIR itself, made first when it is not there (`ferry mv` refuses it, as
    /// `mv` does).
    #[arg(required = true, num_args = 2.., value_name = "PATH", value_parser = crate::any_path())]
    pub paths: Vec<PathBuf>,
    /// `cp -r`, `cp -a` from habit: Ferry always copies folders whole and keeps what `cp -a`
    /// keeps, so these change nothing (refused, they read as a file named `-r`).
    #[arg(short = 'r', short_aliases = ['R', 'a'], hide = true)]
    pub recursive: bool,
}

/// Arguments of `ferry mv`.
#[derive(Debug, Args)]
pub struct MoveArgs {
    /// Sources, destination and what to do on conflicts, as for `ferry cp`.
    #[command(flatten)]
    pub transfer: TransferArgs,
    /// Move even your home folder, a folder holding it, or a trash folder (refused without;
    /// Ferry's state folder, where the undo journal is, is never moved).
    #[arg(long)]
    pub force: bool,
}

/// Arguments of `ferry ln`.
#[derive(Debug, Args)]
pub struct LinkArgs {
    /// What to do when a name already exists in DEST_DIR: `skip` it, `keep-both` (the link is
    /// named `name (link).ext`), `replace` (what is there is kept aside for undo; a folder is
    /// never replaced), `replace-if-newer` (when the target is newer), `ask`; `merge` skips.
    #[arg(long, value_enum, default_value_t = OnConflict::Skip)]
    pub on_conflict: OnConflict,
    /// Targets (each must exist; a link is linked to, not followed), then the destination
    /// folder (TARGET... DEST_DIR). Each link's text is its target's absolute path, not
    /// resolved.
    #[arg(required = true, num_args = 2.., value_name = "PATH", value_parser = crate::any_path())]
    pub paths: Vec<PathBuf>,
}

/// Arguments of `ferry rm`.
#[derive(Debug, Args)]
pub struct RmArgs {
    /// Paths to delete permanently (folders with everything in them; links are not followed).
    #[arg(required = true, value_parser = crate::any_path())]
    pub paths: Vec<PathBuf>,
    /// Delete even your home folder or a folder holding it (refused without). A mount point
    /// is never deleted (unmount it first), nor is Ferry's state folder, where the undo
    /// journal is, a folder holding it or what is in it.
    #[arg(long)]
    pub force: bool,
    /// `rm -r` from habit: folders are always deleted whole; changes nothing.
    #[arg(short = 'r', short_alias = 'R', hide = true)]
    pub recursive: bool,
    /// `rm -f` from habit: a path that is not there is passed over in silence, as `rm -f`
    /// does. Never what `--force` allows.
    #[arg(short = 'f', hide = true)]
    pub missing_ok: bool,
}

/// Runs `ferry cp`.
pub fn run_copy(args: &TransferArgs) -> i32 {
    transfer(args, false)
}

/// Runs `ferry mv`.
pub fn run_move(args: &MoveArgs) -> i32 {
    let sources = args.transfer.paths.split_last().map_or(&[][..], |(_, s)| s);
    let refusals = move_refusals(&move_cautions(sources, &OwnFolders::from_env()), args.force);
    for line in &refusals {
        eprintln!("ferry: {line}");
    }
    if !refusals.is_empty() {
        return EXIT_REFUSED;
    }
    transfer(&args.transfer, true)
}

/// Why `ferry mv` moves nothing, one line for each of `cautions` that `force` does not lift.
fn move_refusals(cautions: &[(PathBuf, Caution)], force: bool) -> Vec<String> {
    let refusal = |(path, why): &(PathBuf, Caution)| {
        let path = Shown(path);
        if !why.can_be_forced() {
            Some(format!(
                "not moving {path}: {why} (never moved by Ferry; a shell's mv can, with Ferry closed)"
            ))
        } else {
            (!force).then(|| format!("not moving {path}: {why} (add --force to move it)"))
        }
    };
    cautions.iter().filter_map(refusal).collect()
}

/// Runs `ferry ln`.
pub fn run_link(args: &LinkArgs) -> i32 {
    let Some((dest_dir, targets)) = args.paths.split_last() else {
        return EXIT_REFUSED;
    };
    if !dest_dir.is_dir() {
        crate::say_no_folder(dest_dir);
        return EXIT_REFUSED;
    }
    with_empty_paths_named(targets, "link to", |targets| {
        let job = Job::Link {
            targets,
            dest_dir: dest_dir.clone(),
            on_conflict: policy_of(args.on_conflict),
        };
        run(job, "linked")
    })
}

/// Runs `ferry rm`.
pub fn run_remove(args: &RmArgs) -> i32 {
    let home = directories::UserDirs::new().map(|d| d.home_dir().to_path_buf());
    let cautions = delete_cautions(&args.paths, home.as_deref());
    let mut refused = false;
    for (path, why) in &cautions {
        // A delete never goes into another file system, forced or not.
        let hint = match why {
            Caution::MountPoint => "unmount it first",
            _ if args.force => continue,
            _ => "add --force to delete it",
        };
        eprintln!("ferry: not deleting {}: {why} ({hint})", Shown(path));
        refused = true;
    }
    if refused {
        return EXIT_REFUSED;
    }
    // `-f` passes over only what is not there, as `rm -f` does: a path it cannot reach
    // (EACCES on a folder above it) goes to the job, which says so and fails.
    let missing = |p: &PathBuf| {
        p.symlink_metadata().err().is_some_and(|e| {
            matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            )
        })
    };
    let there = |p: &&PathBuf| !args.missing_ok || !missing(p);
    let paths: Vec<PathBuf> = args.paths.iter().filter(there).cloned().collect();
    if paths.is_empty() {
        return EXIT_OK;
    }
    with_empty_paths_named(&paths, "delete", |paths| {
        run(Job::Delete { paths }, "deleted")
    })
}

/// Runs `job` on `paths` without the empty ones, each said to be not found, as `rm ''` says
/// it; exit status 1 at least when there was one, as the rest of the batch goes on.
pub(crate) fn with_empty_paths_named(
    paths: &[PathBuf],
    op: &str,
    job: impl FnOnce(Vec<PathBuf>) -> i32,
) -> i32 {
    let (empty, paths): (Vec<&PathBuf>, Vec<&PathBuf>) =
        paths.iter().partition(|p| p.as_os_str().is_empty());
    for _ in &empty {
        eprintln!("ferry: cannot {op} '': No such file or directory");
    }
    let paths: Vec<PathBuf> = paths.into_iter().cloned().collect();
    let code = if paths.is_empty() {
        EXIT_OK
    } else {
        job(paths)
    };
    if empty.is_empty() {
        code
    } else {
        code.max(EXIT_PARTIAL)
    }
}

fn transfer(args: &TransferArgs, is_move: bool) -> i32 {
    let Some((dest, sources)) = args.paths.split_last() else {
        return EXIT_REFUSED;
    };
    let op = if is_move { "move" } else { "copy" };
    if is_move {
        return with_dot_sources_refused(sources, |sources| {
            with_empty_paths_named(&sources, op, |sources| {
                transfer_to(args, is_move, &sources, dest)
            })
        });
    }
    with_empty_paths_named(sources, op, |sources| {
        transfer_to(args, is_move, &sources, dest)
    })
}

/// Runs `job` on `sources` without those named by `.` or `..` (`.`, `SRC/.`, `SRC/..`), each
/// refused as `mv` refuses it: a folder cannot be moved into another while it stays where it is, and moving
/// its contents instead (as `cp -r SRC/.` copies them) is not what `mv` does. The exit
/// status is "refused" when nothing is left, at least "partial" when something was refused.
fn with_dot_sources_refused(sources: &[PathBuf], job: impl FnOnce(Vec<PathBuf>) -> i32) -> i32 {
    let (dots, rest): (Vec<&PathBuf>, Vec<&PathBuf>) =
        sources.iter().partition(|s| ferry_core::fs::ends_in_dot(s));
    for dot in &dots {
        eprintln!(
            "ferry: cannot move {}: a path ending in '.' or '..' is refused; give the folder's own path",
            Shown(dot),
        );
    }
    match (dots.is_empty(), rest.is_empty()) {
        (true, _) => job(rest.into_iter().cloned().collect()),
        (false, true) => EXIT_REFUSED,
        (false, false) => job(rest.into_iter().cloned().collect()).max(EXIT_PARTIAL),
    }
}

fn transfer_to(args: &TransferArgs, is_move: bool, sources: &[PathBuf], dest: &Path) -> i32 {
    if is_move
        && let [source] = sources
        && let Some(new_name) = respelling(source, dest)
    {
        let path = source.clone();
        return run(Job::Rename { path, new_name }, "renamed");
    }
    let whole;
    let sources = if is_move {
        sources
    } else {
        whole = folder_for_contents_copy(sources, dest);
        whole.as_deref().unwrap_or(sources)
    };
    let (dest_dir, dest_name) = match destination(dest, sources) {
        Ok(d) => d,
        Err(folder) => {
            crate::say_no_folder(&folder);
            return EXIT_REFUSED;
        }
    };
    let on_conflict = policy_of(args.on_conflict);
    let (sources, unread) = with_contents_expanded(sources);
    if sources.is_empty() {
        return if unread { EXIT_PARTIAL } else { EXIT_OK };
    }
    let code = if is_move {
        run(
            Job::Move {
                sources,
                dest_dir,
                dest_name,
                on_conflict,
            },
            "moved",
        )
    } else {
        run(
            Job::Copy {
                sources,
                dest_dir,
                dest_name,
                on_conflict,
            },
            "copied",
        )
    };
    if unread { code.max(EXIT_PARTIAL) } else { code }
}

/// Where `sources` go, as `cp` and `mv` read their last argument `dest`: into it when it is a
/// folder (or a link to one); else, for one source, to that path, the source taking the last
/// name of `dest` in the folder before it (`ferry cp a.txt b.txt`, `ferry mv old new`), a
/// name already there being a conflict like any other. The folder that does not exist when
/// neither applies.
fn destination(
    dest: &Path,
    sources: &[PathBuf],
) -> Result<(PathBuf, Option<std::ffi::OsString>), PathBuf> {
    if dest.is_dir() {
        return Ok((dest.to_path_buf(), None));
    }
    let last = ferry_core::fs::last_name(dest);
    // `new/.` names a folder, never a new name; nor does `SRC/.`'s contents. `new/` is a new
    // name only for a folder, as `cp -r dir new/` and `mv dir new/` take it.
    let slash = dest.as_os_str().as_bytes().ends_with(b"/");
    let a_folder = matches!(sources, [s] if s.symlink_metadata().is_ok_and(|m| m.is_dir()));
    let names_a_file = (!slash || a_folder) && last != b"." && last != b"..";
    let one = matches!(sources, [s] if ferry_core::fs::last_name(s) != b".");
    let parent = match dest.parent() {
        Some(p) if p.as_os_str().is_empty() => Path::new("."),
        Some(p) => p,
        None => return Err(dest.to_path_buf()),
    };
    match dest.file_name() {
        Some(name) if one && names_a_file && parent.is_dir() => {
            Ok((parent.to_path_buf(), Some(name.to_owned())))
        }
        _ if one && names_a_file => Err(parent.to_path_buf()),
        _ => Err(dest.to_path_buf()),
    }
}

/// `mv Photo.JPG photo.jpg` on a file system that takes the two for one name (FAT, exFAT):
/// the new spelling, where `dest` is `source` itself in the same folder. A move would take
/// `dest` for a taken place, or for a folder to move `source` into (itself); it is a rename.
fn respelling(source: &Path, dest: &Path) -> Option<std::ffi::OsString> {
    let (name, new_name) = (source.file_name()?, dest.file_name()?);
    let folder = |p: &Path| match p.parent() {
        Some(p) if !p.as_os_str().is_empty() => std::fs::canonicalize(p).ok(),
        _ => std::fs::canonicalize(".").ok(),
    };
    if name == new_name || dest.as_os_str().as_bytes().ends_with(b"/") {
        return None;
    }
    let parent = folder(source)?;
    if folder(dest)? != parent {
        return None;
    }
    let dir = ferry_core::fs::open_dir_path(&parent).ok()?;
    let listed = ferry_core::fs::folded_name(&dir, new_name).ok()??;
    (listed == name).then(|| new_name.to_owned())
}

/// `cp -r SRC/. NEW`, where NEW does not exist, makes NEW a copy of the folder SRC: its
/// contents with nothing around them. The folder itself, then, as the one source that gets
/// NEW's name; `None` for any other copy (and when SRC cannot be resolved, so that the job
/// names it). `SRC/.` is the folder itself, wherever links in SRC lead.
fn folder_for_contents_copy(sources: &[PathBuf], dest: &Path) -> Option<Vec<PathBuf>> {
    match sources {
        [source] if ferry_core::fs::last_name(source) == b"." && !dest.is_dir() => {
            Some(vec![std::fs::canonicalize(source).ok()?])
        }
        _ => None,
    }
}

/// The sources with each `SRC/.` (or `.`) replaced by what the folder holds, in name order:
/// `cp -r SRC/. DEST` copies SRC's contents into DEST itself, where `Path` would read
/// `SRC/.` as SRC and copy the folder. True with them if a folder could not be read (said
/// on stderr, naming it; the other sources still go).
fn with_contents_expanded(sources: &[PathBuf]) -> (Vec<PathBuf>, bool) {
    let mut expanded = Vec::with_capacity(sources.len());
    let mut unread = false;
    for source in sources {
        // `a/.`, `a/./`, `.`: the folder's contents.
        if ferry_core::fs::last_name(source) != b"." {
            expanded.push(source.clone());
            continue;
        }
        let names = std::fs::read_dir(source).and_then(|items| {
            items
                .map(|item| Ok(item?.file_name()))
                .collect::<std::io::Result<Vec<_>>>()
        });
        match names {
            Ok(mut names) => {
                names.sort();
                expanded.extend(names.iter().map(|name| source.join(name)));
            }
            Err(e) => {
                eprintln!("ferry: {}", ferry_core::Error::io("read folder", source, e));
                unread = true;
            }
        }
    }
    (expanded, unread)
}

/// Submits `job`, shows its progress, prints its summary and returns the exit status.
///
/// A first Ctrl-C (or SIGTERM, or SIGHUP) cancels the job through the engine, so temporaries are removed,
/// what was moved stays moved and the summary is printed; a second one exits at once.
pub(crate) fn run(job: Job, verb: &str) -> i32 {
    let journal = super::undo::Journaled::begin(&job);
    run_journaled(job, verb, journal)
}

/// Like [`run`], telling `journal` how the job ended (the undo journal's record of it).
pub(crate) fn run_journaled(job: Job, verb: &str, journal: super::undo::Journaled) -> i32 {
    run_asking(job, verb, journal, Prompt::on_terminal())
}

/// [`run_journaled`] with the questions of `prompt`. Without a terminal, a conflict found
/// after writing began is skipped and said, and the exit status is partial, as for an item
/// skipped after an error (one found when planning refuses the job before it writes).
pub(crate) fn run_asking(
    job: Job,
    verb: &str,
    journal: super::undo::Journaled,
    mut prompt: Prompt,
) -> i32 {
    let terminal = prompt.terminal();
    let asks_conflicts = matches!(
        job,
        Job::Copy {
            on_conflict: ConflictPolicy::Ask,
            ..
        } | Job::Move {
            on_conflict: ConflictPolicy::Ask,
            ..
        } | Job::Link {
            on_conflict: ConflictPolicy::Ask,
            ..
        }
    );
    let interrupt = Interrupt::register();
    prompt.give_up_when(Arc::clone(&interrupt.asked));
    let (engine, events) = Engine::start();
    // The job stops at its next item, not at this loop's next wake-up: a small copy could
    // otherwise finish first.
    engine.cancel_all_when(Arc::clone(&interrupt.asked));
    let options = JobOptions {
        // Without a terminal, `ask` only looks: nothing is written unless there is no conflict.
        paused: asks_conflicts && !terminal,
        on_error: if terminal {
            ErrorPolicy::Ask
        } else {
            ErrorPolicy::Skip
        },
    };
    // A file of a kind no one can make anew named as a source fails; one met inside a copied
    // folder is left out with a note.
    let given = match &job {
        Job::Copy { sources, .. } | Job::Move { sources, .. } => sources.clone(),
        _ => Vec::new(),
    };
    let landings = landings_of(&job);
    let moved = matches!(job, Job::Move { .. });
    // Its large files can then be resumed after a crash.
    let job = journal.submit(&engine, job, options);
    let mut bar = Bar::new(std::io::stderr().is_terminal());
    let (mut next, mut refused, mut stopping) = (None, false, Stopping::default());
    loop {
        // Looked at between events too: progress arrives ten times a second, as often as
        // the timeout, so a first Ctrl+C could otherwise wait for a quiet moment.
        if interrupt.asked() {
            stopping.asked(|| engine.cancel(job), &bar);
        }
        let received = match next.take() {
            Some(event) => Ok(event),
            None => events.recv_timeout(Duration::from_millis(100)),
        };
        let event = match received {
            Ok(event) => event,
            Err(RecvTimeoutError::Timeout) => continue,
            // The engine hung up without a summary: cannot claim success.
            Err(RecvTimeoutError::Disconnected) => return EXIT_PARTIAL,
        };
        let cancelled = matches!(event, Event::Cancelled { .. });
        match event {
            Event::Planned { totals, .. } => {
                bar.planned(totals);
                if options.paused {
                    // Conflicts, if any, are reported right after the plan, before anything
                    // is written: list them and stop, or go on.
                    match events.recv() {
                        Ok(Event::Conflicts { conflicts, .. }) => {
                            engine.cancel(job);
                            refused = true;
                            eprintln!("ferry: conflicts (use --on-conflict); nothing written:");
                            for c in &conflicts {
                                eprintln!("ferry:   {}", describe(c));
                            }
                        }
                        Ok(event) => {
                            engine.resume(job);
                            next = Some(event);
                        }
                        Err(_) => return EXIT_PARTIAL,
                    }
                }
            }
            Event::Conflicts { conflicts, .. } => bar.suspend(|| {
                for c in &conflicts {
                    if let Some((resolution, scope)) = prompt.conflict(c) {
                        engine.resolve(job, c.id, resolution, scope);
                    }
                }
            }),
            Event::ItemError {
                request,
                path,
                error,
                ..
            } => {
                let action = bar.suspend(|| prompt.error(&path, &error));
                engine.resolve_error(job, request, action);
            }
            Event::Progress { progress, .. } => bar.progress(&progress),
            Event::ItemFailed { .. } => {} // all named in the summary, once
            Event::Finished { job: j, summary } | Event::Cancelled { job: j, summary }
                if j == job =>
            {
                bar.finish();
                let unasked = prompt.unasked();
                let taken_left = journal.skips_taken_places()
                    && (summary.skipped.iter()).any(|s| matches!(s.reason, SkipReason::Exists));
                journal.finish(&summary, cancelled, !unasked.is_empty());
                if refused {
                    return EXIT_REFUSED;
                }
                let sources = (&given[..], &landings[..], moved);
                let code = report(&summary, verb, bar.enabled(), sources);
                let code = if taken_left {
                    code.max(EXIT_PARTIAL)
                } else {
                    code
                };
                // The process still ends by the signal (`end_by_signal`): say that it came
                // too late to stop anything, so that nobody looks for what it left undone.
                if interrupt.asked() && summary.not_done.is_empty() {
                    eprintln!("ferry: interrupted as it ended: the job had finished");
                }
                if unasked.is_empty() {
                    return code;
                }
                eprintln!(
                    "ferry: {} conflict(s) found after writing began were skipped, with no \
                     terminal to ask on (use --on-conflict):",
                    unasked.len()
                );
                for conflict in unasked {
                    eprintln!("ferry:   {conflict}");
                }
                return code.max(EXIT_PARTIAL);
            }
            Event::Finished { .. } | Event::Cancelled { .. } => {}
        }
    }
}

/// How long a job may take to stop after a Ctrl+C before the user is told what a second
/// one does: a move's removals and an item in flight finish first.
const STOP_WORD_AFTER: Duration = Duration::from_secs(1);

/// Said when a job takes a while to stop: a second Ctrl+C ends the process at once, in the
/// signal handler, where nothing can be printed.
const STOPPING: &str = "ferry: stopping once the items in progress are whole; Ctrl+C again \
    quits at once (then `ferry resume` finishes the job, or `ferry undo` undoes it)";

/// A job asked to stop by a Ctrl+C, SIGTERM or SIGHUP.
#[derive(Default)]
struct Stopping {
    since: Option<std::time::Instant>,
    said: bool,
}

impl Stopping {
    /// Cancels the job the first time; says [`STOPPING`] once it takes long.
    fn asked(&mut self, cancel: impl FnOnce(), bar: &Bar) {
        let since = *self.since.get_or_insert_with(|| {
            cancel();
            std::time::Instant::now()
        });
        if !self.said && since.elapsed() >= STOP_WORD_AFTER {
            self.said = true;
            bar.suspend(|| eprintln!("{STOPPING}"));
        }
    }
}

/// The signal that asked this process to stop (0: none), for [`end_by_signal`].
static SIGNALLED: std::sync::OnceLock<Arc<AtomicUsize>> = std::sync::OnceLock::new();

/// A Ctrl-C, SIGTERM or SIGHUP (its terminal closed) asks the running job to stop: it is
/// cancelled through the engine, which removes the item in flight and records the job as
/// cancelled, where the default SIGHUP left part files and a job that seemed interrupted; a
/// second one ends the process at once (status 130).
pub(crate) struct Interrupt {
    /// Set by the signal handler itself, so that an engine sees it without a thread to
    /// forward the signal: a thread blocked waiting for signals has to be woken to die at
    /// exit, and with another program busy on one of two CPUs that wait cost every
    /// `ferry cp` of 5,000 small files 8-10 ms (measured: 49.0 against 40.1 ms).
    asked: Arc<AtomicBool>,
}

impl Interrupt {
    pub(crate) fn register() -> Self {
        let asked = Arc::new(AtomicBool::new(false));
        let signalled = SIGNALLED.get_or_init(|| Arc::new(AtomicUsize::new(0)));
        for sig in [SIGHUP, SIGINT, SIGTERM] {
            // Registration order matters: the shutdown check must see the flag before it is set.
            let _ = signal_hook::flag::register_conditional_shutdown(sig, 130, Arc::clone(&asked));
            let _ = signal_hook::flag::register(sig, Arc::clone(&asked));
            let _ = signal_hook::flag::register_usize(sig, Arc::clone(signalled), sig as usize);
        }
        Interrupt { asked }
    }

    pub(crate) fn asked(&self) -> bool {
        self.asked.load(Ordering::Relaxed)
    }
}

/// Once a command has cleaned up and said everything after a Ctrl-C, SIGTERM or SIGHUP, ends
/// the process by that signal, as `cp` and `rm` end: a shell then sees status 130 (143, 129) and
/// stops the loop or script running it, which an exit status of our own would not tell
/// apart from a failed item. Returns if no signal came.
pub fn end_by_signal() {
    let signal = SIGNALLED.get().map_or(0, |s| s.load(Ordering::Relaxed));
    if let Ok(signal @ 1..) = i32::try_from(signal) {
        let _ = std::io::Write::flush(&mut std::io::stdout());
        let _ = signal_hook::low_level::emulate_default_handler(signal);
    }
}

/// The terminal progress bar (absent when stderr is not a terminal).
struct Bar {
    bar: Option<ProgressBar>,
    by_items: bool,
}

impl Bar {
    fn new(enabled: bool) -> Self {
        Bar {
            bar: enabled.then(ProgressBar::hidden),
            by_items: false,
        }
    }

    fn enabled(&self) -> bool {
        self.bar.is_some()
    }

    fn planned(&mut self, totals: Totals) {
        let Some(bar) = &self.bar else { return };
        self.by_items = totals.bytes == 0;
        // With bytes, the bar and its estimate go by the job's work, bytes and items together
        // (`Progress::work`): by bytes alone, a few large files among many small ones filled
        // it and said "eta 0s" for most of the job. The bytes and items are in the message.
        let template = if self.by_items {
            "{spinner} [{bar:30}] {pos}/{len} items  {wide_msg}"
        } else {
            "{spinner} [{bar:30}] {percent:>3}% eta {eta}  {wide_msg}"
        };
        let style =
            ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style.progress_chars("=> "));
        bar.set_length(if self.by_items {
            totals.items
        } else {
            (totals.bytes).saturating_add(totals.items.saturating_mul(ITEM_WORK))
        });
        bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    }

    fn progress(&self, p: &Progress) {
        let Some(bar) = &self.bar else { return };
        // Answered conflicts add to the plan as the job goes.
        let (done, total) = match self.by_items {
            true => (p.items_done, p.items_total),
            false => p.work(),
        };
        bar.set_length(total);
        bar.set_position(done);
        bar.set_message(message(p, self.by_items));
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    /// Runs `f` with the bar hidden (for a question).
    fn suspend<T>(&self, f: impl FnOnce() -> T) -> T {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }
}

/// The progress line's text: amounts, phase and the current item's name.
fn message(p: &Progress, by_items: bool) -> String {
    let phase = match p.phase {
        _ if p.paused => "paused",
        Phase::Planning => "planning",
        Phase::Copying => "",
        Phase::FinishingWrites => "finishing writes",
        Phase::Deleting => "deleting",
    };
    let name = p
        .current
        .as_deref()
        .and_then(Path::file_name)
        // A name can hold escape sequences that the terminal would obey.
        .map(|n| crate::out::escaped(&n.to_string_lossy()));
    let amounts = match by_items {
        true => String::new(),
        false => format!(
            "{}/{} {}/{} items",
            indicatif::BinaryBytes(p.bytes_done),
            indicatif::BinaryBytes(p.bytes_total),
            p.items_done,
            p.items_total
        ),
    };
    let message = [&amounts, phase, name.as_deref().unwrap_or_default()].join(" ");
    message.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_line_shows_a_names_escape_sequences_escaped() {
        let p = Progress {
            phase: Phase::Deleting,
            bytes_done: 0,
            bytes_total: 0,
            items_done: 1,
            items_total: 2,
            current: Some(PathBuf::from("/t/A\x1b]0;PWNED\x07\x1b[2JB\nfake")),
            speed: 0.0,
            eta: None,
            share_done: None,
            paused: false,
        };
        assert_eq!(
            message(&p, true),
            "deleting A\\x1b]0;PWNED\\x07\\x1b[2JB\\x0afake"
        );
    }

    #[test]
    fn force_lifts_every_caution_of_a_move_but_ferrys_own_state_folder() {
        let cautions = [
            (PathBuf::from("/home/me"), Caution::HomeFolder),
            (PathBuf::from("/home/me/.local/share/Trash"), Caution::Trash),
            (PathBuf::from("/home/me/.local/state"), Caution::FerryState),
        ];
        let asked = move_refusals(&cautions, false);
        assert_eq!(asked.len(), 3, "{asked:?}");
        assert!(asked[0].starts_with("not moving /home/me: it is your home folder"));
        assert!(asked[1].ends_with("(add --force to move it)"), "{asked:?}");
        let forced = move_refusals(&cautions, true);
        assert_eq!(forced.len(), 1, "{forced:?}");
        assert!(
            forced[0]
                .starts_with("not moving /home/me/.local/state: it is, holds or is in Ferry's")
        );
    }
}
