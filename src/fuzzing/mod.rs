//! Fuzz target bodies: one function per parser family that takes untrusted
//! (a provider's request) or operator (configuration, definitions, admin
//! input, capture files) text.
//!
//! This module exists for fuzzing. Each function takes arbitrary bytes and
//! must never panic, whatever they are: a panic is a bug in the parser it
//! drives, to be fixed there so that the input is an error instead. Where a
//! parser has a property that can be checked without a second
//! implementation (a name it accepts is a plain name; the JSON walker agrees
//! with `serde_json`'s), the body asserts it too.
//!
//! The same bodies run in two places: the cargo-fuzz targets in `fuzz/`
//! (nightly, `scripts/fuzz`), and `tests/it/fuzz_smoke.rs` on stable, over the
//! committed seeds and regressions and generated inputs. [`TARGETS`]
//! names them for both.

mod parsers;
mod request;

pub use parsers::{capture, config, definition, event_id, fetched, operator_input, template};
pub use request::{signature_header, verify};

/// A target's body: arbitrary bytes in, a panic only for a bug.
pub type Body = fn(&[u8]);

/// Every target: its name (the file `fuzz/fuzz_targets/NAME.rs`, the
/// directories `fuzz/seeds/NAME/` and `fuzz/regressions/NAME/`) and body.
pub const TARGETS: &[(&str, Body)] = &[
    ("signature_header", signature_header),
    ("template", template),
    ("event_id", event_id),
    ("capture", capture),
    ("definition", definition),
    ("config", config),
    ("operator_input", operator_input),
    ("verify", verify),
    ("fetched", fetched),
];

/// `data` split at its first `\n`: the first line (lossy UTF-8) and the
/// rest. Most targets read a short parameter from the first line.
fn first_line(data: &[u8]) -> (String, &[u8]) {
    let (line, rest) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &data[data.len()..]),
    };
    (String::from_utf8_lossy(line).into_owned(), rest)
}
