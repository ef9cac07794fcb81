fn main() {
    let code = {
        // Crash points for tests (a no-op in a normal build).
        let _failpoints = hookline::failpoints();
        hookline::cli::main()
    };
    std::process::exit(code);
}
