//! The `ferry` binary: a subcommand runs headless, no subcommand opens the window.

fn main() {
    std::process::exit(ferry_app::main());
}
