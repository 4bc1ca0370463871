//! The spec reader, fuzzed: arbitrary bytes as a project of a few in-memory files (see
//! `toolspec_fuzz::spec_reader`), read and checked with `project::analyze`, every diagnostic
//! rendered, and the Rust emitted when the project is valid. Nothing may panic, hang or grow
//! without bound.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolspec_fuzz::spec_reader::run(data));
