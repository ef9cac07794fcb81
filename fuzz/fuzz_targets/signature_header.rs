#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| hookline::fuzzing::signature_header(data));
