//! Why a compile failed.

use std::fmt;
use std::path::PathBuf;

use crate::diagnostic::{Diagnostic, Severity, print_cargo_lines};

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
    /// Prints the error for a build script (the diagnostics on stderr, one `cargo::error` line
    /// for each of the first [`crate::MAX_SHOWN`] errors) and exits with status 1.
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
