fn main() {
    toolspec_codegen::compile("specs").unwrap_or_else(|e| e.exit());
}
