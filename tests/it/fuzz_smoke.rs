//! The fuzz targets' smoke run, on stable, as CI runs it: every body in
//! `hookline::fuzzing` over its committed seeds (`fuzz/seeds/NAME/`), every
//! input that once made it panic (`fuzz/regressions/NAME/`), and a few
//! thousand inputs mutated from those. A panic fails the test and prints
//! the input, to be added under `fuzz/regressions/NAME/`.
//!
//! The long runs are cargo-fuzz's, with coverage guidance: `scripts/fuzz`.
//! `HOOKLINE_FUZZ_SMOKE_RUNS` sets the mutated inputs per target (default
//! 2000).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use base64::Engine as _;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Fragments that parsers treat specially, spliced into mutated inputs.
const TOKENS: &[&[u8]] = &[
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b"\\u0000",
    b"\\ud800",
    b"~",
    b"~1",
    b"/",
    b"/0",
    b"01",
    b"-1",
    b"99999999999999999999",
    b"1e400",
    b"\n",
    b"\n\n",
    b"=",
    b",",
    b":",
    b"\0",
    b"\x1b",
    "é".as_bytes(),
    b"\xff",
    b"%00",
    b"%2e%2e",
    b"..",
    b"{body}",
    b"{header:",
    b"{{",
    b"[[",
    b"]]",
    b" = ",
    b"\"\"\"",
    b"sign ",
    b"t=",
    b"v1=",
    b"sha256=",
    b"Basic ",
];

fn dir(kind: &str, target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz")
        .join(kind)
        .join(target)
}

/// Every file in `fuzz/KIND/TARGET/`, sorted; none if it does not exist.
fn inputs(kind: &str, target: &str) -> Vec<Vec<u8>> {
    let Ok(entries) = std::fs::read_dir(dir(kind, target)) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    paths
        .iter()
        .filter(|p| p.is_file())
        .map(|p| std::fs::read(p).unwrap())
        .collect()
}

/// One random edit of `input`, sometimes spliced with `other`.
fn mutate(rng: &mut StdRng, input: &mut Vec<u8>, other: &[u8]) {
    let at = |rng: &mut StdRng, v: &Vec<u8>| rng.gen_range(0..=v.len());
    match rng.gen_range(0..6) {
        0 if !input.is_empty() => {
            let i = rng.gen_range(0..input.len());
            input[i] ^= 1 << rng.gen_range(0..8);
        }
        1 => {
            let i = at(rng, input);
            input.insert(i, rng.gen());
        }
        2 if !input.is_empty() => {
            let i = rng.gen_range(0..input.len());
            let n = rng.gen_range(1..=(input.len() - i).min(16));
            input.drain(i..i + n);
        }
        3 if !input.is_empty() => {
            let i = rng.gen_range(0..input.len());
            let n = rng.gen_range(1..=(input.len() - i).min(32));
            let copy = input[i..i + n].to_vec();
            let j = at(rng, input);
            input.splice(j..j, copy);
        }
        4 if !other.is_empty() => {
            let i = rng.gen_range(0..other.len());
            let n = rng.gen_range(1..=(other.len() - i).min(64));
            let j = at(rng, input);
            input.splice(j..j, other[i..i + n].iter().copied());
        }
        _ => {
            let token = TOKENS[rng.gen_range(0..TOKENS.len())];
            let j = at(rng, input);
            input.splice(j..j, token.iter().copied());
        }
    }
}

/// Run `body` on `input`; a panic fails the test with the input shown.
fn run(target: &str, body: fn(&[u8]), input: &[u8]) {
    if catch_unwind(AssertUnwindSafe(|| body(input))).is_err() {
        panic!(
            "fuzz target {target} panicked on this input (base64: decode it into a file under fuzz/regressions/{target}/):\n{}\n{:?}",
            base64::engine::general_purpose::STANDARD.encode(input),
            String::from_utf8_lossy(input),
        );
    }
}

fn smoke(target: &str) {
    let body = hookline::fuzzing::TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .map(|(_, body)| *body)
        .unwrap_or_else(|| panic!("hookline::fuzzing::TARGETS has no {target}"));
    let seeds = inputs("seeds", target);
    assert!(!seeds.is_empty(), "fuzz/seeds/{target}/ holds no seed");
    let regressions = inputs("regressions", target);
    for input in seeds.iter().chain(&regressions) {
        run(target, body, input);
    }
    let runs: usize = std::env::var("HOOKLINE_FUZZ_SMOKE_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    // A fixed seed: a failure here is the same failure on every rerun.
    let mut rng = StdRng::seed_from_u64(0x5eed);
    let inputs: Vec<&Vec<u8>> = seeds.iter().chain(&regressions).collect();
    for _ in 0..runs {
        let mut input = inputs[rng.gen_range(0..inputs.len())].clone();
        let other = inputs[rng.gen_range(0..inputs.len())];
        for _ in 0..rng.gen_range(1..=8) {
            mutate(&mut rng, &mut input, other);
        }
        run(target, body, &input);
    }
}

/// One test per target, so a failure names it and they run in parallel.
macro_rules! smoke_tests {
    ($($name:ident),* $(,)?) => {
        $(#[test] fn $name() { smoke(stringify!($name)); })*
        const SMOKED: &[&str] = &[$(stringify!($name)),*];
    };
}

smoke_tests!(
    signature_header,
    template,
    event_id,
    capture,
    definition,
    config,
    operator_input,
    verify,
    fetched,
);

/// Every target in `hookline::fuzzing` has a smoke test above, a cargo-fuzz
/// target calling it, and seeds.
#[test]
fn every_target_is_smoked_and_fuzzed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz");
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    for (name, _) in hookline::fuzzing::TARGETS {
        assert!(SMOKED.contains(name), "no smoke test for {name}");
        let source = std::fs::read_to_string(root.join(format!("fuzz_targets/{name}.rs")))
            .unwrap_or_else(|e| panic!("fuzz/fuzz_targets/{name}.rs: {e}"));
        assert!(
            source.contains(&format!("hookline::fuzzing::{name}(data)")),
            "fuzz/fuzz_targets/{name}.rs does not call hookline::fuzzing::{name}"
        );
        assert!(
            manifest.contains(&format!("name = \"{name}\"")),
            "fuzz/Cargo.toml has no [[bin]] {name}"
        );
    }
    assert_eq!(SMOKED.len(), hookline::fuzzing::TARGETS.len());
}
