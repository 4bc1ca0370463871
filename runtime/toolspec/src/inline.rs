//! Tools defined at run time (feature `inline`): plugins, tools made from configuration, tools
//! a test needs. A [`Spec`] — YAML text, or a JSON value built in Rust — is compiled by the
//! same compiler `build.rs` runs, with the project's shared files (`toolspec.yaml`, `types:`
//! files), so the tool gets exactly the descriptor a spec file would: names on each adapter,
//! the composed description, canonical schemas and every provider's dialect, errors, hints,
//! scopes, settings — and the same diagnostics when it is wrong.
//! [`Registry::with_tool`](crate::Registry::with_tool) then serves it, with a handler over JSON,
//! through the same pipeline and adapters as a generated tool; a name another tool has is
//! refused there.
//!
//! ```ignore
//! let weather = Spec::json("weather/now.yaml", json!({
//!     "description": "The weather now in a city.",
//!     "expects": { "city": { "type": "string", "min_length": 1 } },
//!     "exposes": { "celsius": { "type": "number" } },
//!     "errors": { "codes": { "unknown_city": "No such city." } },
//! }))
//! .shared("toolspec.yaml", include_str!("../specs/toolspec.yaml"))
//! .describe()?;
//! let registry = tools::registry(app).with_tool(weather, |input, cx: InlineContext| async move {
//!     match input["city"].as_str() {
//!         Some("Oslo") => Ok(json!({ "celsius": -3.5 })),
//!         _ => Err(cx.fail("unknown_city")),
//!     }
//! })?;
//! ```

use std::fmt;

use serde_json::Value;
use toolspec_codegen::Source;

use crate::SharedDescriptor;
pub use toolspec_core::inline::{InlineContext, InlineError, InlineHandler};

/// A tool's spec, compiled at run time.
#[derive(Debug, Clone)]
pub struct Spec {
    path: String,
    text: String,
    shared: Vec<Source>,
}

impl Spec {
    /// The spec `text` (YAML, as a spec file holds it) at `path`, as the file would be below
    /// the specs folder: `weather/now.yaml` names the tool `weather_now`.
    pub fn yaml(path: &str, text: &str) -> Self {
        Self {
            path: path.to_owned(),
            text: text.to_owned(),
            shared: Vec::new(),
        }
    }

    /// The spec `document` built in Rust (the keys a spec file has, as JSON) at `path`.
    pub fn json(path: &str, document: Value) -> Self {
        // JSON is YAML: the compiler reads it as it reads a spec file.
        Self::yaml(path, &document.to_string())
    }

    /// Compiles the spec with the project's file `path` (`toolspec.yaml`, or a file of
    /// `types:`): give the ones the crate's specs folder has, so that membership, settings,
    /// ambient fields and named types are the same as for the crate's tools.
    pub fn shared(mut self, path: &str, text: &str) -> Self {
        self.shared.push(Source {
            path: path.to_owned(),
            text: text.to_owned(),
        });
        self
    }

    /// The tool's descriptor, as a build would bake it: the registry it is added to holds it,
    /// and it is freed with its last holder (nothing is leaked). `Err`: every diagnostic,
    /// rendered as a build shows them.
    pub fn describe(&self) -> Result<SharedDescriptor, SpecError> {
        let mut sources = self.shared.clone();
        sources.push(Source {
            path: self.path.clone(),
            text: self.text.clone(),
        });
        let mut dirs: Vec<String> = sources
            .iter()
            .filter_map(|s| s.path.rsplit_once('/').map(|(dir, _)| dir.to_owned()))
            .collect();
        dirs.sort();
        dirs.dedup();
        let project = toolspec_codegen::analyze(&sources, &dirs, "inline");
        if project.has_errors() {
            return Err(SpecError(project.render_diagnostics()));
        }
        let tool = project.tools().iter().find(|t| t.spec_path() == self.path);
        let Some(tool) = tool else {
            return Err(SpecError(format!(
                "`{}` is no tool spec (a `toolspec.yaml` or a file of `types:` is shared with \
                 `Spec::shared`)",
                self.path
            )));
        };
        Ok(tool.descriptor().into())
    }
}

/// Why a spec did not compile: its diagnostics, rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecError(String);

impl SpecError {
    /// The diagnostics, as a build renders them.
    pub fn rendered(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.trim_end())
    }
}

impl std::error::Error for SpecError {}
