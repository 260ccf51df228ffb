fn main() {
    std::process::exit(ferry_app::cli::main())
}
