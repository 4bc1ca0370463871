//! # toolspec-codegen — YAML tool specs in, typed Rust out
//!
//! Reads a specs directory (one YAML file per tool, optional `types:` files and a
//! `toolspec.yaml` project config), checks it with rustc-style diagnostics, derives canonical
//! JSON Schemas and every provider's dialect of them, and writes one Rust file for
//! `toolspec::include_tools!()`.
//!
//! In `build.rs`:
//!
//! ```no_run
//! toolspec_codegen::compile("specs").unwrap_or_else(|e| e.exit());
//! ```
//!
//! A compile keeps a record beside the generated file, so that building again is cheap: when
//! nothing it reads changed, no stage runs and the file is left untouched (see [`Reuse`]).
//!
//! Inside, the compiler is a pipeline of stages, each a private module that only looks back at
//! the ones before it: `read` (the folder, YAML with spans, the spec model), `shapes` (JSON
//! Schema `shape`s through typify), `analyze` (names, modules, membership and the other checks
//! that need the whole project), `derive` (canonical schemas, sensitivity, provider dialects)
//! and `emit` (Rust, through quote and prettyplease). `ARCHITECTURE.md` at the repository's
//! root draws the picture.
//!
//! Hostile specs get a diagnostic or a bound, never a panic or a hang: every name a spec
//! writes gets a Rust spelling (keywords raw, `self` as `self_`), every emitted schema nests at
//! most [`MAX_DEPTH`] levels, every `pattern` must run on the runtime's linear-time regex
//! engine, and checking costs time linear in the size of the specs.

mod analyze;
mod cache;
mod config;
mod derive;
mod describe;
mod diagnostic;
mod emit;
mod error;
pub mod lock;
mod openapi;
mod parallel;
mod pattern;
mod preview;
mod project;
mod read;
mod rust_name;
mod schema_tree;
mod shapes;
mod source;
mod spec;

use std::path::Path;

pub use crate::analyze::membership::Binding;
pub use crate::analyze::membership::View;
pub use crate::cache::Reuse;
pub use crate::config::{Compiled, Config, DEFAULT_FILE_NAME, VERBOSE_ENV};
pub use crate::diagnostic::{
    Diagnostic, Kind, MAX_SHOWN, Related, Severity, render_all, render_summary,
};
pub use crate::error::Error;
pub use crate::project::{Project, Tool};
pub use crate::schema_tree::MAX_DEPTH;
pub use crate::source::{Pos, Source, Sources, Span};
pub use crate::spec::{AuditConfig, AuditPolicy, Durability};
pub use toolspec_vocab::descriptor::Descriptor;

/// Compiles `specs_dir` into `$OUT_DIR/toolspec_tools.rs` with default options.
pub fn compile(specs_dir: impl AsRef<Path>) -> Result<Compiled, Error> {
    Config::new().compile(specs_dir)
}

/// Reads and checks a specs directory without writing anything, with default options.
///
/// Paths in diagnostics are shown as `specs_dir` joined with each file's relative path.
pub fn load(specs_dir: impl AsRef<Path>) -> Result<Project, Error> {
    Config::new().load(specs_dir)
}

/// Reads and checks a project from in-memory sources: `dirs` are the folders below the specs
/// directory (for `tool_roots`), `display_root` prefixes file paths in diagnostics.
pub fn analyze(sources: &[Source], dirs: &[String], display_root: &str) -> Project {
    project::build(sources, dirs, display_root)
}

/// The Rust source generated for a checked project (what [`compile`] writes).
pub fn generate(project: &Project) -> String {
    emit::generate(project)
}

pub use crate::emit::stubs::{Stubs, StubsError, handler_stubs};

/// Internals the crate's benchmark measures on their own. Not part of the API.
#[cfg(feature = "unstable-internals")]
#[doc(hidden)]
pub mod __internals {
    /// Parses one YAML document into the spanned tree; whether it parsed.
    pub fn parse_yaml(text: &str) -> bool {
        crate::read::yaml::parse(text).is_ok()
    }
}
