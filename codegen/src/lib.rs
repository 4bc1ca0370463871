//! # toolspec-codegen — YAML tool specs in, typed Rust out
//!
//! Reads a specs directory (one YAML file per tool, optional `types:` files and a
//! `toolspec.yaml` project config), checks it with rustc-style diagnostics, derives canonical
//! JSON Schemas, and writes one Rust file for `toolspec::include_tools!()`.
//!
//! In `build.rs`:
//!
//! ```no_run
//! toolspec_codegen::compile("specs").unwrap_or_else(|e| e.exit());
//! ```
//!
//! The stages are separate modules: reading the folder (regular files only, and links to them
//! inside it, each at most [`Config::max_file_size`]), [`yaml`] (parsing with spans), [`spec`]
//! (the spec model and its reader), [`project`] (cross-file checks and resolution),
//! [`schema`] (JSON Schema), [`dialect`] (each provider's schema dialect), [`emit`] (Rust),
//! [`diagnostic`] (errors and their rendering).
//!
//! Hostile specs get a diagnostic or a bound, never a panic or a hang: every name a spec
//! writes gets a Rust spelling (keywords raw, `self` as `self_`), every emitted schema nests at
//! most [`dialect::MAX_DEPTH`] levels, every `pattern` must run on the runtime's linear-time
//! regex engine, and checking costs time linear in the size of the specs.

pub mod diagnostic;
pub mod dialect;
pub mod emit;
mod folder;
mod lines;
mod parallel;
mod pattern;
pub mod project;
mod rust_name;
pub mod schema;
pub mod sensitive;
pub mod spec;
pub mod yaml;

use std::fmt;
use std::path::{Path, PathBuf};

use diagnostic::{Diagnostic, Severity, render_all};
use project::Project;

/// The file name `toolspec::include_tools!()` includes from `OUT_DIR`.
pub const DEFAULT_FILE_NAME: &str = "toolspec_tools.rs";

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

/// Reads `dir` (see [`folder`] for what is read, and how) and checks it: the project, and every
/// path read (for `cargo::rerun-if-changed`).
fn read(
    dir: &Path,
    display_root: &str,
    max_file_size: u64,
) -> Result<(Project, Vec<PathBuf>), Error> {
    let scanned = folder::scan(dir, display_root, max_file_size).map_err(|source| Error::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut project = project::analyze(&scanned.sources, &scanned.dirs, display_root);
    project.diagnostics.extend(scanned.diagnostics);
    Ok((project, scanned.watched))
}

fn display_path(path: &Path) -> String {
    path.to_string_lossy()
        .replace('\\', "/")
        .trim_end_matches('/')
        .to_owned()
}

/// Options for [`compile`], builder style (like `prost_build::Config`).
#[derive(Debug, Clone, Default)]
pub struct Config {
    out_dir: Option<PathBuf>,
    file_name: Option<String>,
    display_root: Option<String>,
    rerun_if_changed: Option<bool>,
    max_file_size: Option<u64>,
}

impl Config {
    /// Defaults: write to `$OUT_DIR/toolspec_tools.rs`; print `cargo::rerun-if-changed` when
    /// running inside a build script.
    pub fn new() -> Self {
        Self::default()
    }

    /// Writes into `dir` instead of `$OUT_DIR`.
    pub fn out_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.out_dir = Some(dir.into());
        self
    }

    /// Names the generated file (`toolspec::include_tools!(module, "name.rs")` includes it).
    pub fn file_name(mut self, name: impl Into<String>) -> Self {
        self.file_name = Some(name.into());
        self
    }

    /// Shows spec paths below `root` in diagnostics instead of the directory as given.
    pub fn display_root(mut self, root: impl Into<String>) -> Self {
        self.display_root = Some(root.into());
        self
    }

    /// Whether to print `cargo::rerun-if-changed` for every spec file and folder.
    pub fn emit_rerun_if_changed(mut self, emit: bool) -> Self {
        self.rerun_if_changed = Some(emit);
        self
    }

    /// Refuses spec and JSON files larger than `bytes` (default 1 MiB), each read through a
    /// reader that stops there.
    pub fn max_file_size(mut self, bytes: u64) -> Self {
        self.max_file_size = Some(bytes);
        self
    }

    /// Reads and checks `specs_dir` without writing anything.
    pub fn load(&self, specs_dir: impl AsRef<Path>) -> Result<Project, Error> {
        self.read(specs_dir.as_ref()).map(|(project, _)| project)
    }

    fn read(&self, dir: &Path) -> Result<(Project, Vec<PathBuf>), Error> {
        let display = self
            .display_root
            .clone()
            .unwrap_or_else(|| display_path(dir));
        let max = self.max_file_size.unwrap_or(folder::DEFAULT_MAX_FILE_SIZE);
        read(dir, &display, max)
    }

    /// Reads, checks and generates. The file is written only when its content changed.
    pub fn compile(&self, specs_dir: impl AsRef<Path>) -> Result<Compiled, Error> {
        let dir = specs_dir.as_ref();
        let in_build_script =
            std::env::var_os("OUT_DIR").is_some() && std::env::var_os("CARGO").is_some();
        let rerun = self.rerun_if_changed.unwrap_or(in_build_script);
        if rerun {
            println!("cargo::rerun-if-changed={}", dir.display());
        }
        let (project, watched) = self.read(dir)?;
        if rerun {
            for path in watched {
                println!("cargo::rerun-if-changed={}", path.display());
            }
        }
        let warnings: Vec<Diagnostic> = project
            .diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Warning)
            .cloned()
            .collect();
        if project.has_errors() {
            let rendered = render_all(&project.diagnostics, &project.sources);
            return Err(Error::Specs {
                diagnostics: project.diagnostics,
                rendered,
            });
        }
        if in_build_script {
            print_cargo_lines("warning", &warnings.iter().collect::<Vec<_>>());
        }
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or(Error::NoOutDir)?,
        };
        let output = out_dir.join(self.file_name.as_deref().unwrap_or(DEFAULT_FILE_NAME));
        let code = emit::generate(&project);
        write_if_changed(&output, &code)?;
        Ok(Compiled {
            output,
            tools: project.tools.len(),
            warnings,
        })
    }
}

/// One `cargo::{kind}=` line for each of the first [`diagnostic::MAX_SHOWN`] diagnostics, and
/// one that counts the others.
fn print_cargo_lines(kind: &str, diagnostics: &[&Diagnostic]) {
    for d in diagnostics.iter().take(diagnostic::MAX_SHOWN) {
        println!("cargo::{kind}={}", d.located_message());
    }
    if let Some(hidden) = diagnostics.len().checked_sub(diagnostic::MAX_SHOWN)
        && hidden > 0
    {
        println!(
            "cargo::{kind}=… and {}",
            diagnostic::plural(hidden, &format!("more {kind}"))
        );
    }
}

/// Writes `content` unless the file already holds exactly that (no mtime churn).
pub fn write_if_changed(path: &Path, content: &str) -> Result<bool, Error> {
    if std::fs::read_to_string(path).is_ok_and(|existing| existing == content) {
        return Ok(false);
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|source| Error::Io {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    std::fs::write(path, content).map_err(|source| Error::Io {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(true)
}

/// What a successful compile produced.
#[derive(Debug, Clone)]
pub struct Compiled {
    /// The generated file.
    pub output: PathBuf,
    /// How many tools it holds.
    pub tools: usize,
    /// Warnings (printed as `cargo::warning` in build scripts).
    pub warnings: Vec<Diagnostic>,
}

/// Why a compile failed.
#[derive(Debug)]
pub enum Error {
    /// The specs are invalid.
    Specs {
        /// Every problem found.
        diagnostics: Vec<Diagnostic>,
        /// The diagnostics rendered rustc-style.
        rendered: String,
    },
    /// A file or folder could not be read or written.
    Io {
        /// Which.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// No output directory: not in a build script and none was set with `Config::out_dir`.
    NoOutDir,
}

impl Error {
    /// Prints the error for a build script (the diagnostics on stderr, one `cargo::error` line
    /// for each of the first [`diagnostic::MAX_SHOWN`] errors) and exits with status 1.
    pub fn exit(self) -> ! {
        eprintln!("{self}");
        if let Self::Specs { diagnostics, .. } = &self {
            let errors: Vec<&Diagnostic> = diagnostics
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .collect();
            print_cargo_lines("error", &errors);
        } else {
            println!(
                "cargo::error={}",
                self.to_string().lines().next().unwrap_or("toolspec failed")
            );
        }
        std::process::exit(1)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Specs { rendered, .. } => f.write_str(rendered.trim_end()),
            Self::Io { path, source } => write!(f, "error: cannot access {}: {source}", path.display()),
            Self::NoOutDir => f.write_str(
                "error: OUT_DIR is not set: call compile() from a build script or set Config::out_dir",
            ),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
