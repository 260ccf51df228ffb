//! # ferry-cli
//!
//! The headless command line: `ferry ls|cp|mv|ln|rm|undo|trash|…`, running the same core the
//! window uses. It is its own crate, without the GUI toolkit, so that the `ferry` a shell
//! runs is a small program: a binary that links iced also links `tiny-xlib`, whose
//! constructor loads libX11 before `main`, and carries ten times the relocations; together
//! they cost every command about 1.5 ms before it does anything (measured: `ferry --version`
//! 3.4 ms against 1.1 ms for a binary without them). The window and `ferry bench` (whose
//! window workloads need the window's code) are in the app's `ferry-window`; the `ferry`
//! binary hands them over to it ([`Handoff`]).
//!
//! Exit status convention for every subcommand: 0 = everything done, 1 = some items failed or
//! were skipped for errors, 2 = refused before doing anything (usage, bad path, nothing to do).

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use ferry_core::shown::Shown;

// The printing macros of the command line, shadowing the standard ones in every module below
// (bench included) so that none can panic on a closed pipe: see `out.rs`.
macro_rules! println {
    () => { $crate::out::stdout(format_args!(""), true) };
    ($($arg:tt)*) => { $crate::out::stdout(format_args!($($arg)*), true) };
}
macro_rules! eprintln {
    () => { $crate::out::stderr(format_args!(""), true) };
    ($($arg:tt)*) => { $crate::out::stderr(format_args!($($arg)*), true) };
}
macro_rules! eprint {
    ($($arg:tt)*) => { $crate::out::stderr(format_args!($($arg)*), false) };
}

#[doc(hidden)]
pub mod out;

pub mod jobs;
pub mod ls;
pub mod prompt;
mod quote;
mod report;
pub mod trash;
pub mod undo;

/// Exit status: everything succeeded.
pub const EXIT_OK: i32 = 0;
/// Exit status: some items failed or were skipped because of errors.
pub const EXIT_PARTIAL: i32 = 1;
/// Exit status: refused before doing anything.
pub const EXIT_REFUSED: i32 = 2;

/// Ferry, a fast file manager. Without a subcommand it opens the window.
#[derive(Debug, Parser)]
#[command(name = "ferry", version, about)]
pub struct Cli {
    /// What to do; none opens the window.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Folder to open in the window (default: the home folder).
    pub path: Option<PathBuf>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List a folder through the same lister and sort the window uses.
    Ls(ls::LsArgs),
    /// Copy SRC... into the existing folder DEST_DIR, or SRC to the new path DEST.
    Cp(jobs::TransferArgs),
    /// Move SRC... into the existing folder DEST_DIR, or SRC to the new path DEST (a rename).
    Mv(jobs::MoveArgs),
    /// Make in the existing folder DEST_DIR a symbolic link to each TARGET, named like it,
    /// holding its absolute path.
    Ln(jobs::LinkArgs),
    /// Delete PATH... permanently.
    Rm(jobs::RmArgs),
    /// Undo the last job that can be undone (a permanent delete cannot).
    ///
    /// The job undone is named first. Copies go to the trash; nothing is deleted permanently.
    /// A permanent delete (`ferry rm`) cannot be undone: it is passed over, as in Dolphin.
    Undo(undo::UndoArgs),
    /// Redo the job undone last.
    Redo,
    /// List the jobs in the undo journal, newest first.
    History(undo::HistoryArgs),
    /// Finish a job a crash interrupted.
    Resume(undo::ResumeArgs),
    /// Benchmark Ferry against cp, mv, rm and ls in the same run.
    Bench(BenchArgs),
    /// Move PATH... to the trash.
    Trash(trash::TrashArgs),
    /// List the trash, or restore items from it (by original path, --index N or --all).
    Restore(trash::RestoreArgs),
    /// Delete everything in the trash permanently.
    EmptyTrash(NoArgs),
}

/// Shared by subcommands that take nothing else.
#[derive(Debug, Args)]
pub struct NoArgs {}

/// Arguments of `ferry bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Rounds per workload; each round runs every tool once, in a shuffled order.
    #[arg(long, default_value_t = 9, value_parser = clap::value_parser!(u32).range(1..))]
    pub rounds: u32,
    /// Run every race again with a busy process pinned to one CPU.
    #[arg(long)]
    pub load: bool,
    /// Seed of the order the tools run in (default: from the clock; printed either way).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Small sizes, for CI: finishes well under a minute.
    #[arg(long)]
    pub quick: bool,
    /// Run only the workloads whose name contains SUBSTRING.
    #[arg(long, value_name = "SUBSTRING")]
    pub only: Option<String>,
    /// Where to put the scratch folder on the work tree's filesystem (default: the current
    /// folder).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Also write the results as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Internal: walk the numbered folders under DIR and print a memory report as JSON (the
    /// benchmark runs itself with this in a fresh process).
    #[arg(long, hide = true, value_name = "DIR")]
    pub memory_probe: Option<PathBuf>,
    /// Internal: copy the files of the folder SRC into the new folder DEST with bare system
    /// calls, the floor the small-file copies are shown beside.
    #[arg(long, hide = true, num_args = 2, value_names = ["SRC", "DEST"])]
    pub floor_copy: Option<Vec<PathBuf>>,
    /// Internal: be the busy process of `--load`, pinned to CPU N, until killed.
    #[arg(long, hide = true, value_name = "N")]
    pub spin: Option<usize>,
}

/// What the `ferry` binary leaves to `ferry-window`, the program with the window's code.
#[derive(Debug)]
pub enum Handoff {
    /// No subcommand: open the window on this folder (the last session if none).
    Window(Option<PathBuf>),
    /// `ferry bench`, whose window workloads run the window's own code.
    Bench(Box<BenchArgs>),
}

/// Says that `folder`, given as where items go, is not a folder there is: `not an existing
/// folder`, or, where it could not be looked at, why (`cannot open d/: Permission denied`,
/// as `cp` says `cannot stat`): "not an existing folder" sent the user to check a folder that
/// was there.
pub(crate) fn say_no_folder(folder: &std::path::Path) {
    use std::io::ErrorKind;
    match std::fs::metadata(folder) {
        Err(e) if !matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            eprintln!("ferry: cannot open {}: {e}", Shown(folder));
        }
        _ => eprintln!("ferry: {}: not an existing folder", Shown(folder)),
    }
}

/// Paths as the shell gave them, an empty one included: `ferry rm a '' b` removes `a` and `b`
/// and names the empty path as not found, as `rm` does, where clap's own path parser refused
/// the whole command (`"$UNSET" other` is a common slip).
pub(crate) fn any_path() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser as _;
    clap::builder::OsStringValueParser::new().map(PathBuf::from)
}

/// Parses `args` (including the program name) and runs the chosen subcommand, returning its
/// exit status; or returns what only `ferry-window` can do.
pub fn run_args<I, T>(args: I) -> Result<i32, Handoff>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(err) => {
            let code = if err.use_stderr() {
                EXIT_REFUSED
            } else {
                EXIT_OK
            };
            // Help that could not be written is a failure, as for every command's output.
            return Ok(match err.print() {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    eprintln!("ferry: cannot write the output: {e}");
                    code.max(EXIT_PARTIAL)
                }
                _ => code,
            });
        }
    };
    let code = match cli.command {
        Some(Command::Ls(args)) => ls::run(&args),
        Some(Command::Cp(args)) => jobs::run_copy(&args),
        Some(Command::Mv(args)) => jobs::run_move(&args),
        Some(Command::Ln(args)) => jobs::run_link(&args),
        Some(Command::Rm(args)) => jobs::run_remove(&args),
        Some(Command::Undo(args)) => undo::run_undo(&args),
        Some(Command::Redo) => undo::run_redo(),
        Some(Command::History(args)) => undo::run_history(&args),
        Some(Command::Resume(args)) => undo::run_resume(&args),
        Some(Command::Bench(args)) => return Err(Handoff::Bench(Box::new(args))),
        Some(Command::Trash(args)) => trash::run_trash(&args),
        Some(Command::Restore(args)) => trash::run_restore(&args),
        Some(Command::EmptyTrash(_)) => trash::run_empty(),
        None => return window(cli.path),
    };
    Ok(finish(code))
}

/// Hands the window over, unless `path` names nothing: `ferry lss` is a mistyped command far
/// more often than a folder to open, and a window that cannot open it (or no display) would
/// say something beside the point.
fn window(path: Option<PathBuf>) -> Result<i32, Handoff> {
    match &path {
        Some(p) if std::fs::symlink_metadata(p).is_err() => {
            eprintln!(
                "ferry: '{}' is neither a command nor a folder (see `ferry --help`)",
                Shown(p)
            );
            Ok(finish(EXIT_REFUSED))
        }
        _ => Err(Handoff::Window(path)),
    }
}

/// The exit status of a command that returned `code`: output that could not be written is a
/// failure (a reader gone away is not). After a Ctrl-C, the process ends by that signal
/// instead ([`jobs::end_by_signal`]).
pub fn finish(code: i32) -> i32 {
    let code = match out::failure() {
        Some(e) => {
            eprintln!("ferry: cannot write the output: {e}");
            code.max(EXIT_PARTIAL)
        }
        None => code,
    };
    jobs::end_by_signal();
    code
}

/// The program beside this one that has the window's code.
pub const WINDOW_PROGRAM: &str = "ferry-window";

/// Runs [`WINDOW_PROGRAM`] in place of this process with this process's arguments (for a
/// [`Handoff`]); returns only if it cannot, with the exit status to give.
pub fn hand_over() -> i32 {
    use std::os::unix::process::CommandExt;
    let mut args = std::env::args_os();
    let name = args.next().unwrap_or_else(|| OsString::from("ferry"));
    let program = match std::env::current_exe() {
        Ok(exe) => exe.with_file_name(WINDOW_PROGRAM),
        Err(e) => {
            eprintln!("ferry: cannot find this program, to start {WINDOW_PROGRAM} beside it: {e}");
            return EXIT_REFUSED;
        }
    };
    let err = std::process::Command::new(&program)
        .arg0(name)
        .args(args)
        .exec();
    eprintln!(
        "ferry: cannot start {}: {err} (the window and `ferry bench` are in {WINDOW_PROGRAM}, \
         built and installed beside ferry)",
        Shown(&program)
    );
    EXIT_REFUSED
}
