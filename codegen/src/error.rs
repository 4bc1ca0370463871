//! Why a compile failed.

use std::fmt;
use std::path::PathBuf;

use crate::diagnostic::{Diagnostic, Severity, cargo_lines};

/// Why a compile failed.
#[derive(Debug)]
#[non_exhaustive]
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
    /// Ends a build script with the error: prints [`Error::cargo_lines`], and the full
    /// rendering on stderr, then exits with status 0. Cargo fails the build on the
    /// `cargo::error` lines alone, and shows only them — one per error, with its place and its
    /// help — rather than every line the script printed (`cargo build -vv` shows the rendering
    /// too, and `toolspec check` prints it with each source line).
    pub fn exit(self) -> ! {
        eprintln!("{self}");
        for line in self.cargo_lines() {
            println!("{line}");
        }
        std::process::exit(0)
    }

    /// What a build script prints for the error: a `cargo::error=` line for each of the first
    /// [`crate::MAX_SHOWN`] errors of the specs (`file:line:col: message (help: …)`), then one
    /// that says where to see them rendered; or one line for any other failure.
    pub fn cargo_lines(&self) -> Vec<String> {
        let Self::Specs { diagnostics, .. } = self else {
            let first = self.to_string();
            let first = first.lines().next().unwrap_or("toolspec failed");
            return vec![format!("cargo::error={first}")];
        };
        let errors: Vec<&Diagnostic> = diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .collect();
        let mut lines = cargo_lines("error", &errors);
        lines.push(format!(
            "cargo::error=toolspec: the specs have {}; `toolspec check` on the specs folder (or \
             `cargo build -vv`) shows each with its source line",
            crate::diagnostic::suggest::plural(errors.len(), "error")
        ));
        lines
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
