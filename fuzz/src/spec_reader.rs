//! The spec reader's harness: arbitrary bytes as a project of a few in-memory files, read and
//! checked, every diagnostic rendered, and the Rust emitted when the project is valid.

use toolspec_codegen::Source;

/// The paths of a fuzzed project's files, in the order `\0`-separated parts of the input
/// fill them: a tool, a types file, the project config, a JSON Schema for `shape: { file: … }`
/// and a tool in a folder.
pub const PATHS: [&str; 5] = [
    "tool.yaml",
    "types.yaml",
    "toolspec.yaml",
    "sub/shape.json",
    "sub/other.yaml",
];

/// The folders of a fuzzed project.
pub const DIRS: [&str; 1] = ["sub"];

/// The project `data` stands for: its `\0`-separated parts as the files of [`PATHS`] (parts
/// beyond the last path are dropped), bytes that are not UTF-8 replaced.
pub fn project(data: &[u8]) -> Vec<Source> {
    data.split(|&b| b == 0)
        .zip(PATHS)
        .map(|(part, path)| Source {
            path: path.to_owned(),
            text: String::from_utf8_lossy(part).into_owned(),
        })
        .collect()
}

/// Reads and checks the project `data` stands for, renders its diagnostics (in full and on one
/// line each) and, when it is valid, emits its Rust.
pub fn run(data: &[u8]) {
    let sources = project(data);
    let dirs: Vec<String> = DIRS.iter().map(|d| (*d).to_owned()).collect();
    let project = toolspec_codegen::analyze(&sources, &dirs, "specs");
    let rendered = project.render_diagnostics();
    std::hint::black_box(rendered);
    for d in project.diagnostics() {
        std::hint::black_box(d.one_line());
    }
    if !project.has_errors() {
        std::hint::black_box(toolspec_codegen::generate(&project));
    }
}
