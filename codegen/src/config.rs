//! The compiler's driver: [`Config`] reads a specs folder, runs the stages and writes the
//! generated file, printing what a build script should print.

use std::path::{Path, PathBuf};

use crate::diagnostic::{Diagnostic, Severity, fallback_summary, print_cargo_lines, render_all};
use crate::error::Error;
use crate::project::{self, Project};
use crate::read::folder;

/// The file name `toolspec::include_tools!()` includes from `OUT_DIR`.
pub const DEFAULT_FILE_NAME: &str = "toolspec_tools.rs";

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
    let mut project = project::build(&scanned.sources, &scanned.dirs, display_root);
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
    verbose: Option<bool>,
}

/// Set (to anything) in a build's environment, every fallback warning is printed rather than
/// one line summing them up.
pub const VERBOSE_ENV: &str = "TOOLSPEC_VERBOSE";

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

    /// Whether a build prints every fallback warning (what a dialect cannot express, stated in
    /// the description) or one line summing them up (the default, unless [`VERBOSE_ENV`] is
    /// set). Other warnings are always printed in full.
    pub fn verbose(mut self, verbose: bool) -> Self {
        self.verbose = Some(verbose);
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
            println!("cargo::rerun-if-env-changed={VERBOSE_ENV}");
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
            // Fallbacks in one line unless asked for each (`TOOLSPEC_VERBOSE=1`).
            let verbose = self
                .verbose
                .unwrap_or_else(|| std::env::var_os(VERBOSE_ENV).is_some());
            let shown: Vec<&Diagnostic> = warnings
                .iter()
                .filter(|d| verbose || !d.is_fallback())
                .collect();
            print_cargo_lines("warning", &shown);
            if !verbose && let Some(line) = fallback_summary(&warnings) {
                println!("cargo::warning={line} (or set {VERBOSE_ENV}=1 for the build)");
            }
        }
        let out_dir = match &self.out_dir {
            Some(dir) => dir.clone(),
            None => std::env::var_os("OUT_DIR")
                .map(PathBuf::from)
                .ok_or(Error::NoOutDir)?,
        };
        let output = out_dir.join(self.file_name.as_deref().unwrap_or(DEFAULT_FILE_NAME));
        let code = crate::emit::generate(&project);
        write_if_changed(&output, &code)?;
        Ok(Compiled {
            output,
            tools: project.tools.len(),
            warnings,
        })
    }
}

/// Writes `content` unless the file already holds exactly that (no mtime churn).
pub(crate) fn write_if_changed(path: &Path, content: &str) -> Result<bool, Error> {
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
