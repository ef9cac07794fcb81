//! Logging: `tracing` to stderr, filtered by `RUST_LOG` (default `info`),
//! JSON when `HOOKLINE_LOG_FORMAT=json`. In both formats every value is
//! escaped and bounded ([`bounded`]): a request cannot forge a line, drive
//! a terminal or write a line of any length.
//!
//! Lines are written to stderr by a thread of their own, not by the thread
//! that logs. stderr is unbuffered: every line was a `write` on a request's
//! or a delivery's runtime thread, under one lock, and a write to a log
//! file can wait on the disk while a store syncs it. At 850 critical
//! events/s this took the answer's p99 from 14.1-15.7 ms to 12.2-12.8 ms
//! (`bench/NOTES.md`, "Logging"). Nothing is dropped: once `QUEUED_LINES`
//! wait, loggers wait too. Lines still queued when the process is killed
//! (`kill -9`) are lost; a clean exit writes them.

mod bounded;
mod format;

use std::io::IsTerminal;

use tracing_appender::non_blocking::{NonBlockingBuilder, WorkerGuard};
use tracing_subscriber::EnvFilter;

pub use self::bounded::MAX_VALUE_BYTES;
use self::format::{BoundedJson, EscapedFields};

/// Lines the writer thread may have waiting before loggers wait for it.
const QUEUED_LINES: usize = 128_000;

/// Start logging. Keep the guard for the life of the process: dropping it
/// writes out what is queued and stops the writer thread.
#[must_use = "dropping the guard stops the log writer"]
pub fn init() -> WorkerGuard {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    let ansi = std::io::stderr().is_terminal();
    let (writer, guard) = NonBlockingBuilder::default()
        .lossy(false)
        .buffered_lines_limit(QUEUED_LINES)
        .thread_name("hookline-log")
        .finish(std::io::stderr());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer)
        // Colour codes only for a person at a terminal: in a file, a pipe or
        // a log collector they are noise around every field.
        .with_ansi(ansi);
    let json = std::env::var("HOOKLINE_LOG_FORMAT").is_ok_and(|v| v == "json");
    // A second init (tests) is not an error worth failing for.
    let _ = if json {
        builder.json().map_event_format(BoundedJson).try_init()
    } else {
        builder.fmt_fields(EscapedFields).try_init()
    };
    guard
}
