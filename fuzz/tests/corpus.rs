//! Every committed corpus input, replayed through the harness its target runs: what the
//! fuzzer found interesting once keeps passing, in the ordinary test suite.

use std::path::{Path, PathBuf};

fn inputs(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a corpus entry").path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} is empty", dir.display());
    files
}

fn replay(target: &str, run: fn(&[u8])) {
    for file in inputs(target) {
        let data = std::fs::read(&file).expect("a corpus file");
        let outcome = std::panic::catch_unwind(|| run(&data));
        assert!(outcome.is_ok(), "{} fails", file.display());
    }
}

#[test]
fn the_spec_reader_corpus_passes() {
    replay("spec_reader", toolspec_fuzz::spec_reader::run);
}

#[test]
fn the_fast_check_corpus_passes() {
    replay("fast_check", toolspec_fuzz::fast_check::run);
}

#[test]
fn the_invoker_corpus_passes() {
    replay("invoker", toolspec_fuzz::invoker::run);
}
