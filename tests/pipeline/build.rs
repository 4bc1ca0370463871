fn main() {
    toolspec_codegen::compile("specs").unwrap_or_else(|e| e.exit());
    toolspec_codegen::Config::new()
        .file_name("drop_tools.rs")
        .compile("specs_drop")
        .unwrap_or_else(|e| e.exit());
}
