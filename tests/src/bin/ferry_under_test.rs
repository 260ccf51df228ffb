//! The `ferry` of the integration tests: the same program, built with the core's test-only
//! fault points.

fn main() {
    std::process::exit(ferry_app::main());
}
