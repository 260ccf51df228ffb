//! The `ferry` command: every subcommand but `bench` runs here; without a subcommand (the
//! window) and for `bench` it becomes `ferry-window`. It must not use `ferry_app`, whose GUI
//! toolkit would come with it (see `ferry_cli`'s documentation).

fn main() {
    // While this is the only thread: growing the table later waits for the kernel (RCU).
    ferry_core::fs::prepare_descriptors();
    let code = match ferry_cli::run_args(std::env::args_os()) {
        Ok(code) => code,
        Err(_) => ferry_cli::hand_over(),
    };
    std::process::exit(code);
}
