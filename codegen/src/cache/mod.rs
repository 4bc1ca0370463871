//! The compiler's cache, in a hidden folder beside the generated file
//! (`.toolspec_tools.rs.cache/` in `OUT_DIR`; hidden, so that the compiler never reads it as
//! part of a specs folder), which makes compiling a project again cheap when little or nothing
//! changed.
//!
//! - **Nothing changed.** A digest of everything a compile reads — each file of the specs
//!   folder (its path and bytes: specs, `toolspec.yaml`, `types:` files, shape files), the
//!   folders, the [`Config`](crate::config::Config)'s options and the compiler's identity
//!   ([`digest::compiler`]) — is recorded after each successful compile ([`state`]) with the
//!   generated file's identity as written. When both are found unchanged, no stage runs: the
//!   file is left as it is and the compile reports what the recorded one did (the number of
//!   tools, its warnings). A failed compile records nothing.
//! - **Some specs changed.** Every stage runs, but each tool's module, once formatted, is kept
//!   under the digest of everything its emission reads ([`module_keys`]): the tool as checked
//!   (its spec and all that was derived from it, compared through its `Debug` form), the
//!   project's shape types and the compiler's identity. A tool whose key is in the last
//!   compile's [`pack`] is not emitted again.
//!
//! Every entry is only ever the output of its key, so no entry can be stale; the pack is
//! rewritten with the modules of the last compile alone, and the record is replaced whole.

pub mod digest;
pub mod files;
pub mod pack;
pub mod state;

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use crate::cache::digest::{Digest, Hasher};
use crate::cache::pack::Pack;
use crate::cache::state::State;
use crate::diagnostic::Diagnostic;
use crate::project::Project;
use crate::source::Source;

/// What a compile took from the cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Reuse {
    /// Nothing the compile reads had changed since the last successful one, whose file was
    /// still as it left it: no stage ran and the file was left untouched.
    Unchanged,
    /// The stages ran: `reused` tool modules were taken as formatted by earlier compiles,
    /// `formatted` were emitted and formatted anew.
    Modules {
        /// Tool modules taken from the cache.
        reused: usize,
        /// Tool modules emitted and formatted.
        formatted: usize,
    },
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
    /// The compiler's identity.
    compiler: &'static str,
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
            compiler,
        })
    }

    fn state_path(&self) -> PathBuf {
        self.dir.join("state.json")
    }

    fn pack_path(&self) -> PathBuf {
        self.dir.join("modules.bin")
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

    /// The Rust source for `project` (what [`crate::emit::generate`] gives), each tool's module
    /// taken from the cache when it has it; the cache's modules are then those of this compile.
    ///
    /// The keys are computed and the modules found or formatted while the project's items are
    /// formatted, and the cache is written while the file is put together.
    pub fn generate(&self, project: &Project) -> (String, Reuse) {
        let pack = Pack::read(&self.pack_path());
        let modules = || {
            let keys = module_keys(project, self.compiler);
            let known: Vec<Option<&str>> = keys.iter().map(|key| pack.get(key)).collect();
            let reused = known.iter().flatten().count();
            (keys, reused, crate::emit::format_tools(project, &known))
        };
        let (sections, (keys, reused, modules)) =
            crate::parallel::join(|| crate::emit::sections(project), modules);
        let write_pack = || {
            if !pack.holds_exactly(&keys) {
                let texts: Vec<&str> = modules.iter().map(Cow::as_ref).collect();
                // A cache that cannot be written is no reason to fail the build: it is read
                // back whole or not at all.
                let _ = std::fs::create_dir_all(&self.dir)
                    .and_then(|()| pack::write(&self.pack_path(), &keys, &texts));
            }
        };
        let ((), code) = crate::parallel::join(write_pack, || {
            crate::emit::assemble(project, sections, &modules)
        });
        let formatted = keys.len() - reused;
        (code, Reuse::Modules { reused, formatted })
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

/// Each tool's key: the digest of everything emitting its module reads.
fn module_keys(project: &Project, compiler: &str) -> Vec<Digest> {
    let mut shapes = Hasher::new("toolspec-codegen shapes");
    shapes.debug(&project.shapes);
    let shapes = shapes.finish();
    crate::parallel::map(&project.tools, |tool| {
        let mut key = Hasher::new("toolspec-codegen tool module");
        key.str(compiler);
        key.bytes(&shapes);
        key.debug(tool);
        key.finish()
    })
}
