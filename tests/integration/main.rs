//! Ferry's single integration-test binary: one module per area, sharing `ferry_tests::TempTree`.

mod bench;
mod cli_ls;
mod dirs;
mod jobs_control;
mod jobs_copy;
mod jobs_delete;
mod jobs_errors;
mod jobs_move;
mod jobs_prop;
mod jobs_single;
mod jobs_support;
mod listing;

use std::ffi::OsStr;
use std::process::{Command, Output};

/// The `ferry` command line, built inside this package, ready to run as a process.
#[allow(dead_code)]
fn ferry() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ferry-under-test"))
}

/// Runs `ferry` with `args` and returns its output.
#[allow(dead_code)]
fn run_ferry<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    ferry().args(args).output().unwrap()
}

/// Runs `ferry` as the unprivileged user 65534 (root ignores permissions, so permission tests
/// must drop them).
#[allow(dead_code)]
fn run_ferry_unprivileged<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_ferry-under-test"))
        .args(args)
        .output()
        .unwrap()
}
