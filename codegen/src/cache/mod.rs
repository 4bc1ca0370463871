//! The compiler's cache, in a hidden folder beside the generated file
//! (`.toolspec_tools.rs.cache/` in `OUT_DIR`; hidden, so that the compiler never reads it as
//! part of a specs folder), which makes compiling an unchanged project again cheap.
//!
//! A digest of everything a compile reads — each file of the specs folder (its path and bytes:
//! specs, `toolspec.yaml`, `types:` files, shape files), the folders, the
//! [`Config`](crate::config::Config)'s options and the compiler's identity
//! ([`digest::compiler`]) — is recorded after each successful compile ([`state`]) with the
//! generated file's identity as written. When both are found unchanged, no stage runs: the
//! file is left as it is and the compile reports what the recorded one did (the number of
//! tools, its warnings). A failed compile records nothing, and the record is replaced whole.
//!
//! When anything changed, every stage runs: emitting is cheap next to the checks (a tool's
//! module is written as text), so keeping modules from one compile to the next saved less
//! than telling which could be kept cost.

pub mod digest;
pub mod files;
pub mod state;

use std::path::{Path, PathBuf};

use crate::cache::digest::Hasher;
use crate::cache::state::State;
use crate::diagnostic::Diagnostic;
use crate::source::Source;

/// What a compile took from the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reuse {
    /// Nothing the compile reads had changed since the last successful one, whose file was
    /// still as it left it: no stage ran and the file was left untouched.
    Unchanged,
    /// Something had changed (or there was no record of a compile): every stage ran.
    Rebuilt,
}

/// What the last compile reported, when nothing changed since.
pub struct Unchanged {
    /// How many tools the file holds.
    pub tools: usize,
    /// The warnings it found.
    pub warnings: Vec<Diagnostic>,
}

/// The cache of one generated file.
pub struct Cache {
    /// The generated file.
    output: PathBuf,
    /// The cache's folder.
    dir: PathBuf,
    /// The digest of this compile's inputs, in hexadecimal.
    inputs: String,
}

impl Cache {
    /// The cache of `output`, for a compile that reads `sources` and the folders `dirs` with
    /// `options` (every option that may change what it does, written out); `None` when the
    /// compiler cannot be identified (then nothing is cached).
    pub fn new(output: &Path, options: &str, sources: &[Source], dirs: &[String]) -> Option<Cache> {
        let compiler = digest::compiler()?;
        let mut name = std::ffi::OsString::from(".");
        name.push(output.file_name()?);
        name.push(".cache");
        let mut inputs = Hasher::new("toolspec-codegen inputs");
        inputs.str(compiler);
        inputs.str(options);
        inputs.number(sources.len() as u64);
        for source in sources {
            inputs.str(&source.path);
            inputs.str(&source.text);
        }
        inputs.number(dirs.len() as u64);
        for dir in dirs {
            inputs.str(dir);
        }
        Some(Cache {
            output: output.to_owned(),
            dir: output.with_file_name(name),
            inputs: digest::hex(&inputs.finish()),
        })
    }

    fn state_path(&self) -> PathBuf {
        self.dir.join("state.json")
    }

    /// What the last compile reported, if it read the same inputs and its file is as it left it.
    pub fn unchanged(&self) -> Option<Unchanged> {
        let state = State::read(&self.state_path())?;
        let output = digest::file_identity(&self.output)?;
        (state.inputs == self.inputs && state.output == output).then_some(Unchanged {
            tools: state.tools,
            warnings: state.warnings,
        })
    }

    /// Records a successful compile, once its file is written: its inputs, the file, and what
    /// it reports.
    pub fn record(&self, tools: usize, warnings: &[Diagnostic]) {
        let Some(output) = digest::file_identity(&self.output) else {
            let _ = std::fs::remove_file(self.state_path());
            return;
        };
        let state = State {
            inputs: self.inputs.clone(),
            output,
            tools,
            warnings: warnings.to_vec(),
        };
        let written = std::fs::create_dir_all(&self.dir)
            .and_then(|()| files::replace(&self.state_path(), state.to_json().as_bytes()));
        if written.is_err() {
            // No record rather than an old one beside a new file (which it would not match
            // anyway, the file's identity having changed).
            let _ = std::fs::remove_file(self.state_path());
        }
    }
}
