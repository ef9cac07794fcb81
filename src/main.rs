fn main() {
    std::process::exit(hookline::cli::main());
}
