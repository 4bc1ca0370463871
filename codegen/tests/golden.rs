//! Golden tests: for each fixture under `tests/golden/*/specs` (and the example store's own
//! `specs/`), the generated Rust and the canonical schemas are compared with the checked-in
//! `expected/` files. Regenerate them with `EXPECTORATE=overwrite cargo test -p
//! toolspec-codegen --test golden` and review the change (`git diff`). The expected Rust is compiled with `#![deny(warnings)]` by the
//! `toolspec-test-golden` crate.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use toolspec_codegen::Config;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// (fixture name, specs directory)
fn fixtures() -> Vec<(String, PathBuf)> {
    let root = manifest_dir().join("tests/golden");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&root).expect("tests/golden exists") {
        let entry = entry.expect("readable entry");
        let name = entry.file_name().to_string_lossy().into_owned();
        let specs = if name == "store" {
            manifest_dir().join("../specs")
        } else {
            entry.path().join("specs")
        };
        out.push((name, specs));
    }
    out.sort();
    out
}

fn schemas_json(specs: &Path) -> String {
    let project = toolspec_codegen::load(specs).expect("fixture loads");
    assert!(
        !project.has_errors(),
        "fixture has errors: {:?}",
        project.diagnostics()
    );
    let mut tools: Vec<_> = project.tools().iter().collect();
    tools.sort_by(|a, b| a.name().cmp(b.name()));
    let out: Vec<Value> = tools
        .iter()
        .map(|t| {
            let adapters: serde_json::Map<String, Value> = t
                .bindings()
                .iter()
                .map(|b| (b.adapter.clone(), json!(b.name)))
                .collect();
            json!({
                "name": t.name(),
                "description": t.description(),
                "adapters": adapters,
                "input_schema": t.input_schema(),
                "output_schema": t.output_schema(),
            })
        })
        .collect();
    serde_json::to_string_pretty(&out).expect("serializable") + "\n"
}

#[test]
fn generated_code_and_schemas_match_golden_files() {
    let tmp = tempfile::tempdir().expect("temp dir");
    for (name, specs) in fixtures() {
        let expected = manifest_dir()
            .join("tests/golden")
            .join(&name)
            .join("expected");
        let out = tmp.path().join(&name);
        let compiled = Config::new()
            .out_dir(&out)
            .display_root("specs")
            .emit_rerun_if_changed(false)
            .compile(&specs)
            .unwrap_or_else(|e| panic!("fixture {name} failed:\n{e}"));
        let code = std::fs::read_to_string(&compiled.output).expect("generated file");
        std::fs::create_dir_all(&expected).expect("create expected/");
        expectorate::assert_contents(expected.join("toolspec_tools.rs"), &code);
        expectorate::assert_contents(expected.join("schemas.json"), &schemas_json(&specs));
    }
}

#[test]
fn generation_is_deterministic_and_writes_only_on_change() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let specs = manifest_dir().join("tests/golden/fields/specs");
    let config = Config::new()
        .out_dir(tmp.path())
        .emit_rerun_if_changed(false);
    let first = config.compile(&specs).expect("compiles");
    let before = std::fs::metadata(&first.output)
        .and_then(|m| m.modified())
        .expect("mtime");
    std::thread::sleep(std::time::Duration::from_millis(20));
    let second = config.compile(&specs).expect("compiles again");
    let after = std::fs::metadata(&second.output)
        .and_then(|m| m.modified())
        .expect("mtime");
    assert_eq!(before, after, "an unchanged output must not be rewritten");
    let a = toolspec_codegen::generate(&toolspec_codegen::load(&specs).expect("loads"));
    let b = toolspec_codegen::generate(&toolspec_codegen::load(&specs).expect("loads"));
    assert_eq!(a, b);
}
