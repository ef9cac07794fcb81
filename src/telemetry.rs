//! Logging: `tracing` to stderr, filtered by `RUST_LOG` (default `info`),
//! JSON when `HOOKLINE_LOG_FORMAT=json`.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

pub fn init() {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        // Colour codes only for a person at a terminal: in a file, a pipe or
        // a log collector they are noise around every field.
        .with_ansi(std::io::stderr().is_terminal());
    let json = std::env::var("HOOKLINE_LOG_FORMAT").is_ok_and(|v| v == "json");
    // A second init (tests) is not an error worth failing for.
    let _ = if json {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}
