//! Compiles the example store's tool specs into typed Rust (pulled in by `toolspec::include_tools!()` in `src/main.rs`).

fn main() {
    toolspec_codegen::compile("specs").unwrap_or_else(|e| e.exit());
}
