//! The layering rules of ARCHITECTURE.md, checked on the sources: no two modules of a crate
//! depend on each other (directly or around a circle), nor two of its top-level modules (a
//! folder or a file directly under `src/`), and no source file holds more than [`MAX_LINES`]
//! lines of non-test code.

use std::path::{Path, PathBuf};

use toolspec_test_architecture::{
    cycles, folders, layout, layout_errors, non_test_lines, read_crate,
};

/// The most lines of non-test code a source file may hold.
const MAX_LINES: usize = 800;

/// The crates whose layering is checked, by their source folder below the workspace root.
const CRATES: &[&str] = &[
    "vocab/src",
    "codegen/src",
    "runtime/core/src",
    "runtime/sql/src",
    "runtime/jwt/src",
    "runtime/toolspec/src",
    "cli/src",
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `file` as a path below the workspace root.
fn shown(file: &Path) -> String {
    let root = workspace().canonicalize().expect("the workspace exists");
    let file = file.canonicalize().expect("the file exists");
    file.strip_prefix(&root)
        .unwrap_or(&file)
        .display()
        .to_string()
}

#[test]
fn no_module_depends_on_itself_around_a_circle() {
    let mut report = String::new();
    for krate in CRATES {
        let graph = read_crate(&workspace().join(krate)).expect("the crate's sources parse");
        assert!(graph.modules.len() > 1, "{krate}: modules were found");
        for cycle in cycles(&graph) {
            report.push_str(&format!("{krate}: modules that depend on each other:\n"));
            for (from, to, via) in cycle {
                report.push_str(&format!("  {from} -> {to}   (names {via})\n"));
            }
        }
    }
    assert!(report.is_empty(), "\n{report}");
}

#[test]
fn no_top_level_module_depends_on_itself_around_a_circle() {
    let mut report = String::new();
    for krate in CRATES {
        let graph = read_crate(&workspace().join(krate)).expect("the crate's sources parse");
        for cycle in cycles(&folders(&graph)) {
            report.push_str(&format!(
                "{krate}: top-level modules that depend on each other:\n"
            ));
            for (from, to, via) in cycle {
                report.push_str(&format!("  {from} -> {to}   (names {via})\n"));
            }
        }
    }
    assert!(report.is_empty(), "\n{report}");
}

#[test]
fn a_crate_roots_layout_lists_every_top_level_module_in_layer_order() {
    let mut report = String::new();
    for krate in CRATES {
        let src = workspace().join(krate);
        let root = ["lib.rs", "main.rs"]
            .iter()
            .map(|name| src.join(name))
            .find(|p| p.exists())
            .expect("a crate root");
        let text = std::fs::read_to_string(&root).expect("readable");
        let Some(listed) = layout(&text) else {
            continue;
        };
        let graph = folders(&read_crate(&src).expect("the crate's sources parse"));
        for error in layout_errors(&graph, &root, &listed) {
            report.push_str(&format!("{krate}: {error}\n"));
        }
    }
    assert!(report.is_empty(), "\n{report}");
}

#[test]
fn no_source_file_is_oversized() {
    let mut report = String::new();
    for krate in CRATES {
        let graph = read_crate(&workspace().join(krate)).expect("the crate's sources parse");
        let files: std::collections::BTreeSet<_> = graph.modules.values().collect();
        for file in files {
            let text = std::fs::read_to_string(file).expect("readable");
            let lines = non_test_lines(&text);
            if lines > MAX_LINES {
                report.push_str(&format!(
                    "{}: {lines} lines of non-test code\n",
                    shown(file)
                ));
            }
        }
    }
    assert!(report.is_empty(), "files over {MAX_LINES} lines:\n{report}");
}
