//! Helpers shared by the integration tests.

use std::path::PathBuf;

/// Compiles generated code as a user's crate includes it (`toolspec::include_tools!`), every
/// warning denied, with trybuild; `name` names the scratch folder and the test.
pub fn compiles(name: &str, code: &str) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let generated = dir.join("toolspec_tools.rs");
    toolspec_codegen::write_if_changed(&generated, code).expect("written");
    let main = dir.join(format!("{name}.rs"));
    let include = format!(
        "#![deny(warnings)]\n\
         #[allow(clippy::all, dead_code, missing_docs, unused_qualifications)]\n\
         pub mod tools {{\n    include!({:?});\n}}\n\
         fn main() {{}}\n",
        generated.display().to_string()
    );
    toolspec_codegen::write_if_changed(&main, &include).expect("written");
    trybuild::TestCases::new().pass(&main);
}
