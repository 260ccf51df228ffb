//! The headless command line: `ferry ls|cp|mv|ln|rm|bench`, running the same core the window
//! uses.
//!
//! Exit status convention for every subcommand: 0 = everything done, 1 = some items failed or
//! were skipped for errors, 2 = refused before doing anything (usage, bad path, nothing to do).

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

// The printing macros of the command line, shadowing the standard ones in every module below
// (bench included) so that none can panic on a closed pipe: see `out.rs`.
macro_rules! println {
    () => { $crate::cli::out::stdout(format_args!(""), true) };
    ($($arg:tt)*) => { $crate::cli::out::stdout(format_args!($($arg)*), true) };
}
macro_rules! eprintln {
    () => { $crate::cli::out::stderr(format_args!(""), true) };
    ($($arg:tt)*) => { $crate::cli::out::stderr(format_args!($($arg)*), true) };
}
macro_rules! eprint {
    ($($arg:tt)*) => { $crate::cli::out::stderr(format_args!($($arg)*), false) };
}

mod out;

pub mod bench;
pub mod jobs;
pub mod ls;
pub mod prompt;
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
    /// Copy SRC... into the existing folder DEST_DIR.
    Cp(jobs::TransferArgs),
    /// Move SRC... into the existing folder DEST_DIR.
    Mv(jobs::TransferArgs),
    /// Make in the existing folder DEST_DIR a symbolic link to each TARGET, named like it,
    /// holding its absolute path.
    Ln(jobs::LinkArgs),
    /// Delete PATH... permanently.
    Rm(jobs::RmArgs),
    /// Undo the last job (copies go to the trash; nothing is deleted permanently).
    Undo(undo::UndoArgs),
    /// Redo the job undone last.
    Redo,
    /// List the jobs in the undo journal, newest first.
    History(undo::HistoryArgs),
    /// Finish a job a crash interrupted.
    Resume(undo::ResumeArgs),
    /// Benchmark Ferry against cp, mv, rm and ls in the same run.
    Bench(bench::BenchArgs),
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

/// Parses `args` (including the program name) and runs the chosen subcommand.
/// Returns `None` when no subcommand was given, i.e. the window should open.
pub fn run_args<I, T>(args: I) -> Result<i32, Option<PathBuf>>
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
            let _ = err.print();
            return Ok(code);
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
        Some(Command::Bench(args)) => bench::run(&args),
        Some(Command::Trash(args)) => trash::run_trash(&args),
        Some(Command::Restore(args)) => trash::run_restore(&args),
        Some(Command::EmptyTrash(_)) => trash::run_empty(),
        None => return Err(cli.path),
    };
    // Output that could not be written is a failure (a reader gone away is not).
    match out::failure() {
        Some(e) => {
            eprintln!("ferry: cannot write the output: {e}");
            Ok(code.max(EXIT_PARTIAL))
        }
        None => Ok(code),
    }
}
