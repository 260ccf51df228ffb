//! `ferry-window`: the window (no subcommand), `ferry bench`, and every other subcommand as
//! `ferry` runs it.

fn main() {
    std::process::exit(ferry_app::main());
}
