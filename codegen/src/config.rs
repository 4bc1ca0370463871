//! The compiler's driver: [`Config`] reads a specs folder, runs the stages and writes the
//! generated file, printing what a build script should print.

use std::path::{Path, PathBuf};

use crate::cache::{Cache, Reuse};
use crate::diagnostic::{Diagnostic, Severity, fallback_summary, print_cargo_lines, render_all};
use crate::error::Error;
use crate::project::{self, Project};
use crate::read::folder::{self, Scanned};

/// The file name `toolspec::include_tools!()` includes from `OUT_DIR`.
pub const DEFAULT_FILE_NAME: &str = "toolspec_tools.rs";

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
    name: Option<String>,
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

    /// Names the project (its crate's name): the title of the HTTP API's OpenAPI document. A
    /// build script's compile takes the crate's `CARGO_PKG_NAME` unless given one; otherwise
    /// the document is titled `Tools`.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Reads and checks `specs_dir` without writing anything.
    pub fn load(&self, specs_dir: impl AsRef<Path>) -> Result<Project, Error> {
        self.read(specs_dir.as_ref()).map(|(project, _)| project)
    }

    fn read(&self, dir: &Path) -> Result<(Project, Vec<PathBuf>), Error> {
        let display = self.display(dir);
        let scanned = self.scan(dir, &display)?;
        let mut project =
            project::build(&scanned.sources, &scanned.dirs, &display).with_name(self.name.clone());
        project.diagnostics.extend(scanned.diagnostics);
        Ok((project, scanned.watched))
    }

    /// How `dir` is shown in diagnostics.
    fn display(&self, dir: &Path) -> String {
        self.display_root
            .clone()
            .unwrap_or_else(|| display_path(dir))
    }

    /// Reads `dir` (see [`folder`] for what is read, and how).
    fn scan(&self, dir: &Path, display: &str) -> Result<Scanned, Error> {
        let max = self.max_file_size.unwrap_or(folder::DEFAULT_MAX_FILE_SIZE);
        folder::scan(dir, display, max).map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })
    }

    /// Reads, checks and generates. The file is written only when its content changed.
    ///
    /// A cache beside the file (see [`Reuse`]) makes compiling again cheap: when nothing the
    /// compile reads changed since the last successful one into the same folder, and the file
    /// is as that one left it, no stage runs and the file is left untouched.
    ///
    /// A project whose `toolspec.yaml` says `contract_lock: required` fails to compile when its
    /// tools differ from `toolspec.lock` by a change that is breaking or needs review (see
    /// [`lock`](crate::lock)).
    pub fn compile(&self, specs_dir: impl AsRef<Path>) -> Result<Compiled, Error> {
        let dir = specs_dir.as_ref();
        let in_build_script =
            std::env::var_os("OUT_DIR").is_some() && std::env::var_os("CARGO").is_some();
        // A build script names the project after its crate.
        let name = self.name.clone().or_else(|| {
            in_build_script
                .then(|| std::env::var("CARGO_PKG_NAME").ok())
                .flatten()
        });
        let rerun = self.rerun_if_changed.unwrap_or(in_build_script);
        let mut lines = String::new();
        if rerun {
            lines.push_str(&format!("cargo::rerun-if-changed={}\n", dir.display()));
            lines.push_str(&format!("cargo::rerun-if-env-changed={VERBOSE_ENV}\n"));
            print_lines(&mut lines);
        }
        let display = self.display(dir);
        let mut scanned = self.scan(dir, &display)?;
        // The contract lock, which the build checks when the project requires it: what the
        // compile reads, so it is watched and in the cache's digest.
        let lock_path = dir.join(crate::lock::LOCK_FILE_NAME);
        let lock = std::fs::read_to_string(&lock_path).ok();
        if lock.is_some() {
            scanned.watched.push(lock_path);
        }
        if rerun {
            for path in &scanned.watched {
                lines.push_str(&format!("cargo::rerun-if-changed={}\n", path.display()));
            }
            print_lines(&mut lines);
        }
        let output = self
            .output_dir()
            .map(|out_dir| out_dir.join(self.output_name()));
        let options = format!("{self:?} named {name:?} shown as {display:?}, locked as {lock:?}");
        let cache = output
            .as_deref()
            .filter(|_| scanned.diagnostics.is_empty())
            .and_then(|output| Cache::new(output, &options, &scanned.sources, &scanned.dirs));
        if let (Some(output), Some(unchanged)) =
            (&output, cache.as_ref().and_then(Cache::unchanged))
        {
            if in_build_script {
                self.print_warnings(&unchanged.warnings);
            }
            return Ok(Compiled {
                output: output.clone(),
                tools: unchanged.tools,
                warnings: unchanged.warnings,
                reuse: Reuse::Unchanged,
            });
        }
        let mut project = project::build(&scanned.sources, &scanned.dirs, &display).with_name(name);
        project.diagnostics.extend(scanned.diagnostics);
        if !project.has_errors() {
            let drift = crate::lock::enforce(&project, lock.as_deref());
            project.diagnostics.extend(drift);
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
            self.print_warnings(&warnings);
        }
        let output = output.ok_or(Error::NoOutDir)?;
        let tools = project.tools.len();
        let code = crate::emit::generate(&project);
        // The project (all the stages' data) is freed on another thread while the file is
        // written.
        let ((), written) =
            crate::parallel::join(move || drop(project), || write_if_changed(&output, &code));
        written?;
        if let Some(cache) = &cache {
            cache.record(tools, &warnings);
        }
        Ok(Compiled {
            output,
            tools,
            warnings,
            reuse: Reuse::Rebuilt,
        })
    }

    /// Prints the warnings for cargo: fallbacks in one line unless asked for each
    /// (`TOOLSPEC_VERBOSE=1`).
    fn print_warnings(&self, warnings: &[Diagnostic]) {
        let verbose = self
            .verbose
            .unwrap_or_else(|| std::env::var_os(VERBOSE_ENV).is_some());
        let shown: Vec<&Diagnostic> = warnings
            .iter()
            .filter(|d| verbose || !d.is_fallback())
            .collect();
        print_cargo_lines("warning", &shown);
        if !verbose && let Some(line) = fallback_summary(warnings) {
            println!("cargo::warning={line} (or set {VERBOSE_ENV}=1 for the build)");
        }
    }

    /// The folder the file goes to: the one set, else `OUT_DIR`.
    fn output_dir(&self) -> Option<PathBuf> {
        match &self.out_dir {
            Some(dir) => Some(dir.clone()),
            None => std::env::var_os("OUT_DIR").map(PathBuf::from),
        }
    }

    fn output_name(&self) -> &str {
        self.file_name.as_deref().unwrap_or(DEFAULT_FILE_NAME)
    }
}

/// Prints `lines` (each ending in a newline) in one go, and empties them: a thousand spec
/// files are a thousand lines, which `println!` would write one system call each.
fn print_lines(lines: &mut String) {
    print!("{lines}");
    lines.clear();
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
    /// What the compile took from the cache of earlier ones.
    pub reuse: Reuse,
}
