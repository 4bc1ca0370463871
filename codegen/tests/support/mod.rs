//! Helpers shared by the integration tests.

use std::path::{Path, PathBuf};

use toolspec_codegen::Source;

/// The files (in memory, paths '/'-separated) and folders below `dir`, sorted: a corpus folder
/// as `project::analyze` takes it.
#[allow(dead_code)]
pub fn sources(dir: &Path) -> (Vec<Source>, Vec<String>) {
    fn walk(dir: &Path, prefix: &str, sources: &mut Vec<Source>, dirs: &mut Vec<String>) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .expect("a readable folder")
            .map(|e| e.expect("a readable entry").path())
            .collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            let rel = if prefix.is_empty() {
                name.into_owned()
            } else {
                format!("{prefix}/{name}")
            };
            if path.is_dir() {
                dirs.push(rel.clone());
                walk(&path, &rel, sources, dirs);
            } else if !rel.ends_with(".keep") {
                let text = std::fs::read_to_string(&path).expect("a readable file");
                sources.push(Source { path: rel, text });
            }
        }
    }
    let (mut sources, mut dirs) = (Vec::new(), Vec::new());
    walk(dir, "", &mut sources, &mut dirs);
    (sources, dirs)
}

#[allow(dead_code)]
/// Compiles generated code as a user's crate includes it (`toolspec::include_tools!`), every
/// warning denied, with trybuild; `name` names the scratch folder and the test.
pub fn compiles(name: &str, code: &str) {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let generated = dir.join("toolspec_tools.rs");
    write_if_changed(&generated, code);
    let main = dir.join(format!("{name}.rs"));
    let include = format!(
        "#![deny(warnings)]\n\
         #[allow(clippy::all, dead_code, missing_docs, unused_qualifications)]\n\
         pub mod tools {{\n    include!({:?});\n}}\n\
         fn main() {{}}\n",
        generated.display().to_string()
    );
    write_if_changed(&main, &include);
    trybuild::TestCases::new().pass(&main);
}

/// Writes `content` unless the file holds exactly that (so cargo rebuilds only what changed).
fn write_if_changed(path: &std::path::Path, content: &str) {
    if std::fs::read_to_string(path).is_ok_and(|existing| existing == content) {
        return;
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("a folder for the file");
    }
    std::fs::write(path, content).expect("written");
}

/// Copies the folder `from` into `to`.
#[allow(dead_code)]
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a folder");
    for entry in std::fs::read_dir(from).expect("a readable folder") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copied");
        }
    }
}
