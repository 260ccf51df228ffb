//! Ferry's single integration-test binary: one module per area, sharing `ferry_tests::TempTree`.

mod bench;
mod cli_ls;
mod cli_new_name;
mod cli_pipes;
mod cli_recover;
mod clipboard;
mod conflict_progress;
mod dirs;
mod fat_names;
mod faults;
mod folder_attrs;
mod fresh_folders;
mod hard_links;
mod interrupts;
mod jobs_conflicts;
mod jobs_conflicts_late;
mod jobs_control;
mod jobs_copy;
mod jobs_delete;
mod jobs_errors;
mod jobs_move;
mod jobs_prop;
mod jobs_requests;
mod jobs_single;
mod jobs_support;
mod journal_safety;
mod listing;
mod measure;
mod metadata_refused;
mod move_asides;
mod owners;
mod places;
mod read_errors;
mod recovery;
mod replace_kills;
mod restore_resume;
mod resume;
mod resumed_merges;
mod subvolumes;
mod symlink_jobs;
mod trash;
mod trash_cli;
mod trash_conflicts;
mod trash_many;
mod trash_refused;
mod trash_untrusted;
mod trash_volumes;
mod undo;
mod undo_conflicts;
mod undo_crash;
mod undo_identity;
mod undo_links;
mod undo_no_room;
mod undo_random;
mod undo_replace;
mod window;
mod window_dialogs;
mod window_display;
mod window_ops;
mod window_support;

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::OnceLock;

/// A private home for every `ferry` process the tests start, so that no test reads or writes
/// the real user's undo journal or trash. Tests that need their own set these again.
fn test_home() -> &'static Path {
    static HOME: OnceLock<tempfile::TempDir> = OnceLock::new();
    HOME.get_or_init(|| {
        // A static is never dropped, so each run's home outlives it: the homes of runs whose
        // process is gone are removed here instead.
        remove_homes_of_ended_runs();
        let home = tempfile::Builder::new()
            .prefix(&format!("{HOME_PREFIX}{}-", std::process::id()))
            .tempdir()
            .unwrap();
        // World-writable (sticky), so processes run as the unprivileged user can keep their
        // journal there too.
        std::fs::set_permissions(
            home.path(),
            std::os::unix::fs::PermissionsExt::from_mode(0o1777),
        )
        .unwrap();
        home
    })
    .path()
}

/// How the name of a test run's home starts; the process id of the run follows.
const HOME_PREFIX: &str = "ferry-test-home-";

/// Removes the homes that earlier test runs left in the temporary folder, once their process
/// has ended.
fn remove_homes_of_ended_runs() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let pid = (name.to_str())
            .and_then(|n| n.strip_prefix(HOME_PREFIX))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok());
        if pid.is_some_and(|pid| !Path::new("/proc").join(pid.to_string()).exists()) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Points a `ferry` process at the private test home.
fn isolate(command: &mut Command) -> &mut Command {
    let home = test_home();
    command
        .env("HOME", home)
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
}

/// The `ferry` command line, built inside this package, ready to run as a process.
fn ferry() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ferry-under-test"));
    isolate(&mut command);
    command
}

/// A `ferry` process with its own home (and so its own undo journal and trash) in `home`.
fn ferry_in(home: &Path) -> Command {
    let mut command = ferry();
    command
        .env("HOME", home)
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_DATA_HOME", home.join("data"));
    command
}

/// `ferry` (its program, arguments and environment) run by `wrapper`: `prlimit …`,
/// `strace …`, a shell that sets the umask first.
fn ferry_run_by(mut wrapper: Command, ferry: &Command) -> Command {
    wrapper.arg(ferry.get_program()).args(ferry.get_args());
    for (key, value) in ferry.get_envs() {
        match value {
            Some(value) => wrapper.env(key, value),
            None => wrapper.env_remove(key),
        };
    }
    wrapper
}

/// Runs `ferry` with `args` and returns its output.
fn run_ferry<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    ferry().args(args).output().unwrap()
}

/// Runs `ferry ARGS` without its check of free inodes before writing: the disk runs out of
/// them part way through the job, as when another program takes them meanwhile.
fn run_ferry_past_the_inode_check<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    ferry()
        .env("FERRY_FAULT_OFF", "inode-check")
        .args(args)
        .output()
        .unwrap()
}

/// Runs `ferry` as the unprivileged user 65534 (root ignores permissions, so permission tests
/// must drop them).
fn run_ferry_unprivileged<I, S>(args: I) -> Output
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let mut command = Command::new("setpriv");
    isolate(&mut command)
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_ferry-under-test"))
        .args(args)
        .output()
        .unwrap()
}
