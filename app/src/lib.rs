//! # ferry-app
//!
//! The window ([`gui`]) and `ferry bench` ([`bench`]), on top of `ferry-core` and the
//! headless command line (`ferry-cli`). The window talks to the core only through typed
//! events on crossbeam channels, bridged into iced subscriptions in one module.
//!
//! Two programs: `ferry` (`src/bin/ferry.rs`), the command line alone, and `ferry-window`
//! (`src/main.rs`, [`main`]), which the former becomes for the window and for `bench`.

use std::io::Write;

use ferry_cli::Handoff;

pub mod bench;
pub mod gui;

/// What `ferry-window` does: a subcommand runs headless, as `ferry` runs it; without one the
/// window opens (on the folder given, or the last session). Returns the exit status.
pub fn main() -> i32 {
    // While this is the only thread: growing the table later waits for the kernel (RCU).
    ferry_core::fs::prepare_descriptors();
    match ferry_cli::run_args(std::env::args_os()) {
        Ok(code) => code,
        Err(Handoff::Bench(args)) => ferry_cli::finish(bench::run(&args)),
        Err(Handoff::Window(path)) => match gui::run(path) {
            Ok(()) => 0,
            Err(err) => {
                // Not `eprintln!`, which panics when stderr is a closed pipe.
                let _ = writeln!(std::io::stderr(), "ferry: {err}");
                1
            }
        },
    }
}
