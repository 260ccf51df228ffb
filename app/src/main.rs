//! The `ferry` binary: a subcommand runs headless, no subcommand opens the window.

use std::io::Write;

fn main() {
    match ferry_app::cli::run_args(std::env::args_os()) {
        Ok(code) => std::process::exit(code),
        Err(path) => {
            if let Err(err) = ferry_app::gui::run(path) {
                // Not `eprintln!`, which panics when stderr is a closed pipe.
                let _ = writeln!(std::io::stderr(), "ferry: {err}");
                std::process::exit(1);
            }
        }
    }
}
