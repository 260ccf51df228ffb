//! # ferry-app
//!
//! The glue between `ferry-core` and the user: the iced window ([`gui`]) and the headless
//! command line ([`cli`]). The window talks to the core only through typed events on crossbeam
//! channels, bridged into iced subscriptions in one module.

use std::io::Write;

pub mod cli;
pub mod gui;

/// What the `ferry` binary does: a subcommand runs headless; without one the window opens
/// (on the folder given, or the last session). Returns the exit status.
pub fn main() -> i32 {
    // While this is the only thread: growing the table later waits for the kernel (RCU).
    ferry_core::fs::prepare_descriptors();
    match cli::run_args(std::env::args_os()) {
        Ok(code) => code,
        Err(path) => match gui::run(path) {
            Ok(()) => 0,
            Err(err) => {
                // Not `eprintln!`, which panics when stderr is a closed pipe.
                let _ = writeln!(std::io::stderr(), "ferry: {err}");
                1
            }
        },
    }
}
