//! A whole specs folder through every stage but emission: read, shapes resolved, analyzed,
//! derived. [`build`] runs the stages in order, each handing its data to the next; a
//! [`Project`] is what they produce together, with every problem of the run collected.

use std::collections::BTreeMap;

use serde_json::Value as Json;
use toolspec_vocab::Dialect;

use crate::analyze::membership::Binding;
use toolspec_vocab::settings::AdapterDecl;

use crate::diagnostic::{Diagnostic, Severity, render_all, render_summary};
use crate::shapes::Shapes;
use crate::source::{Source, Sources};
use crate::spec::{AuditConfig, ProjectConfig, ToolSpec, Types};

/// A checked tool, ready to emit.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// The spec.
    pub(crate) spec: ToolSpec,
    /// The canonical name.
    pub(crate) name: String,
    /// Module path segments below the tools module (`["orders", "cancel"]`).
    pub(crate) module: Vec<String>,
    /// Adapter memberships, sorted by adapter.
    pub(crate) bindings: Vec<Binding>,
    /// The description shown to models.
    pub(crate) description: String,
    /// Canonical input schema.
    pub(crate) input_schema: Json,
    /// Canonical output schema.
    pub(crate) output_schema: Json,
    /// Where the input holds `sensitive` values, if anywhere.
    pub(crate) sensitive_input: Option<Json>,
    /// Where the output holds `sensitive` values, if anywhere.
    pub(crate) sensitive_output: Option<Json>,
    /// Where the input schema's integers keep their own range (JSON pointers).
    pub(crate) own_ranges_input: Vec<String>,
    /// Where the output schema's integers keep their own range.
    pub(crate) own_ranges_output: Vec<String>,
    /// The input schema in each member dialect but `mcp` (the canonical schema itself); empty
    /// when the project has errors.
    pub(crate) dialects: BTreeMap<Dialect, Json>,
    /// A query tool's input schemas on each adapter that narrows it, by adapter.
    pub(crate) views: BTreeMap<String, Vec<(Dialect, Json)>>,
    /// The schema of each form of the tool's `ask:`, in order.
    pub(crate) forms: Vec<Json>,
}

/// A read and checked specs directory.
#[derive(Debug, Clone)]
pub struct Project {
    /// How the specs directory is shown in diagnostics (`specs`).
    pub(crate) display_root: String,
    /// The project's name (its crate's), when known: the OpenAPI document's title.
    pub(crate) name: Option<String>,
    /// The project config.
    pub(crate) config: ProjectConfig,
    /// Named types.
    pub(crate) types: Types,
    /// Tools, sorted by spec path.
    pub(crate) tools: Vec<Tool>,
    /// The Rust types of every `shape`.
    pub(crate) shapes: Shapes,
    /// Every file's text, for rendering diagnostics.
    pub(crate) sources: Sources,
    /// Errors and warnings.
    pub(crate) diagnostics: Vec<Diagnostic>,
}

impl Project {
    /// Whether any diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }

    /// The project's name (see [`Config::name`](crate::Config::name)), when known.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The project named `name` (the OpenAPI document's title).
    pub fn with_name(mut self, name: Option<String>) -> Self {
        self.name = name;
        self
    }

    /// The checked tools, sorted by spec path (a tool too broken to check is left out).
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }

    /// Every error and warning, in the order found.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    /// Every diagnostic rendered rustc-style against the files' texts (see [`render_all`]).
    pub fn render_diagnostics(&self) -> String {
        render_all(&self.diagnostics, &self.sources)
    }

    /// [`render_diagnostics`](Self::render_diagnostics) with the fallback warnings summed up
    /// in one line (see [`render_summary`]).
    pub fn render_diagnostics_summary(&self) -> String {
        render_summary(&self.diagnostics, &self.sources)
    }

    /// Every file's text, by display path.
    pub fn sources(&self) -> &Sources {
        &self.sources
    }

    /// How the specs folder is shown in diagnostics (`specs`).
    pub fn display_root(&self) -> &str {
        &self.display_root
    }

    /// Every adapter the project knows, built-in and custom, with the project's setting
    /// defaults applied, sorted by name.
    pub fn adapters(&self) -> impl Iterator<Item = &AdapterDecl> {
        self.config.adapters.iter().map(|a| &a.decl)
    }

    /// The adapter called `name`.
    pub fn adapter(&self, name: &str) -> Option<&AdapterDecl> {
        self.config.adapter(name).map(|a| &a.decl)
    }

    /// The project's `audit:`: every tool's default policy (the explain tool's) and the
    /// retention.
    pub fn audit(&self) -> AuditConfig {
        self.config.audit
    }

    /// The built-in explain tool's name, when the project offers it.
    pub fn explain_tool(&self) -> Option<&str> {
        self.config
            .explain_enabled
            .then_some(self.config.explain_name.as_str())
    }
}

impl Tool {
    /// The canonical name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The spec file, relative to the specs folder (`orders/cancel.yaml`).
    pub fn spec_path(&self) -> &str {
        &self.spec.path
    }

    /// The adapters the tool is a member of, sorted by adapter, each with its name there.
    pub fn bindings(&self) -> &[Binding] {
        &self.bindings
    }

    /// The description models read.
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The canonical input schema (JSON Schema 2020-12, ambient fields left out).
    pub fn input_schema(&self) -> &Json {
        &self.input_schema
    }

    /// The canonical output schema.
    pub fn output_schema(&self) -> &Json {
        &self.output_schema
    }

    /// The input schema in `dialect`, when the tool is a member of it (`mcp`: always, the
    /// canonical schema).
    pub fn dialect(&self, dialect: Dialect) -> Option<&Json> {
        match dialect {
            Dialect::Mcp => Some(&self.input_schema),
            _ => self.dialects.get(&dialect),
        }
    }
}

/// A project from in-memory `(path, text)` files, for unit tests: the folders are the files'
/// own, diagnostics shown under `specs`.
#[cfg(test)]
pub(crate) fn from_files(files: &[(&str, &str)]) -> Project {
    let sources: Vec<Source> = files
        .iter()
        .map(|(path, text)| Source {
            path: (*path).to_owned(),
            text: (*text).to_owned(),
        })
        .collect();
    let mut dirs: Vec<String> = files
        .iter()
        .filter_map(|(p, _)| p.rsplit_once('/').map(|(d, _)| d.to_owned()))
        .collect();
    dirs.sort();
    dirs.dedup();
    build(&sources, &dirs, "specs")
}

/// Reads and checks a project from in-memory sources. `dirs` are the folders below the
/// specs directory (for `tool_roots`); `display_root` prefixes file paths in diagnostics.
pub fn build(sources: &[Source], dirs: &[String], display_root: &str) -> Project {
    let mut diagnostics = Vec::new();
    let mut read = crate::read::read(sources, dirs, display_root, &mut diagnostics);
    let shapes = crate::shapes::resolve(
        &mut read.specs,
        &mut read.types,
        &read.json_files,
        &mut diagnostics,
    );
    let types_module = match (read.types.is_empty(), shapes.is_empty()) {
        (false, _) => Some("the named types"),
        (true, false) => Some("the types of the shapes"),
        (true, true) => None,
    };
    let checked = crate::analyze::analyze(
        read.specs,
        &read.types,
        &read.config,
        types_module,
        &mut diagnostics,
    );
    let schemas = crate::derive::derive(&checked, &read.types, &read.config, &mut diagnostics);
    let tools = checked
        .into_iter()
        .zip(schemas)
        .map(|(tool, schemas)| Tool {
            spec: tool.spec,
            name: tool.name,
            module: tool.module,
            bindings: tool.bindings,
            description: tool.description,
            input_schema: schemas.input,
            output_schema: schemas.output,
            sensitive_input: schemas.sensitive_input,
            sensitive_output: schemas.sensitive_output,
            own_ranges_input: schemas.own_ranges_input,
            own_ranges_output: schemas.own_ranges_output,
            dialects: schemas.dialects,
            views: schemas.views,
            forms: schemas.forms,
        })
        .collect();
    Project {
        display_root: display_root.to_owned(),
        name: None,
        config: read.config,
        types: read.types,
        tools,
        shapes,
        sources: read.sources,
        diagnostics,
    }
}
