//! The invoker, fuzzed: arbitrary JSON arguments to the tools of the pipeline test crate (see
//! `toolspec_fuzz::invoker`), through `invoke` and `explain`. Nothing may panic or hang, an
//! answer stays small whatever the arguments, and a `sensitive` value is never quoted back.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| toolspec_fuzz::invoker::run(data));
