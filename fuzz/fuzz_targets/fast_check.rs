//! The fast check, fuzzed against the validator (see `toolspec_fuzz::fast_check`): arbitrary
//! schemas and values; a value the fast check proves valid must be valid to the validator.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolspec_fuzz::fast_check::run(data));
