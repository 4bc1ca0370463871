//! What each fuzz target runs, one module per target, so that the corpus of each is replayed
//! by the ordinary test suite (`tests/corpus.rs`) through the same code libFuzzer drives.

pub mod fast_check;
pub mod invoker;
pub mod spec_reader;
