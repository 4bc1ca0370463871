//! What is known about a tool at build time, embedded as static data by the generated code.
//!
//! Static data and lookups on it: nothing here parses arguments, calls a tool or knows a
//! registry. The built-in explain tool's descriptor embeds the constants of `crate::explain`.

use std::time::Duration;

use toolspec_vocab::Dialect;
use toolspec_vocab::settings::SettingValue;

use crate::durable_decl::{AuditPolicy, LockDecl, OnceDecl};
use crate::query_decl::{QueryDecl, QueryView, RefDecl};

/// The kind of a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// Runs a handler (`expects` → `exposes`).
    Action,
    /// Reads records from a database (`kind: query`): no handler.
    Query,
    /// The built-in explain tool.
    Explain,
}

/// One input field (`expects`), as the runtime needs to know it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// The field's key in the arguments (or in the ambient context).
    pub name: &'static str,
    /// Resolved from the trusted ambient context (`on: ambient_context`), never model input.
    pub ambient: bool,
    /// Redacted in audit records and logs.
    pub sensitive: bool,
    /// May be omitted by the caller (optional, or has a default).
    pub optional: bool,
}

/// A precondition checked before the handler runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Guard {
    /// Identifier; also the error code when the guard fails.
    pub name: &'static str,
    /// What must hold, shown to the model under "Preconditions".
    pub description: &'static str,
}

/// A declared error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ErrorCode {
    /// Identifier shown to the model.
    pub code: &'static str,
    /// The reason text.
    pub message: &'static str,
    /// Shown as is, without the tool's error headline.
    pub standalone: bool,
    /// The HTTP API's status for it, when the spec sets one (409 otherwise).
    pub http_status: Option<u16>,
}

/// A tool's membership in one adapter, with its name and setting overrides there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdapterBinding {
    /// The adapter (`mcp`, `openai`, a custom adapter…).
    pub adapter: &'static str,
    /// The tool's own name on this adapter; `None`: its canonical name (see
    /// [`Descriptor::name_for`]).
    pub name: Option<&'static str>,
    /// Per-tool setting overrides for this adapter, checked at build time.
    pub settings: &'static [(&'static str, SettingValue)],
    /// What a query tool shows this adapter's model, when the spec narrows it there.
    pub view: Option<&'static QueryView>,
}

impl AdapterBinding {
    /// A member of `adapter` under the tool's canonical name, with no setting of its own.
    pub const fn member(adapter: &'static str) -> Self {
        Self {
            adapter,
            name: None,
            settings: &[],
            view: None,
        }
    }
}

/// Everything the build knows about one tool.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Descriptor {
    /// The canonical, provider-safe name (`[a-z0-9_]`, 1–64 characters).
    pub name: &'static str,
    /// The spec file, relative to the specs directory (`orders/cancel.yaml`).
    pub spec: &'static str,
    /// The generated module path below the tools module (`orders::cancel`).
    pub module: &'static str,
    /// What kind of tool this is.
    pub kind: ToolKind,
    /// Display title.
    pub title: Option<&'static str>,
    /// The spec's own description.
    pub summary: &'static str,
    /// The description shown to models: the summary, then "Preconditions: …" and "Errors: …".
    pub description: &'static str,
    /// The spec's `version`.
    pub version: Option<u32>,
    /// Canonical JSON Schema 2020-12 of the model-facing input (ambient fields excluded).
    pub input_schema: &'static str,
    /// Canonical JSON Schema 2020-12 of the exposed output.
    pub output_schema: &'static str,
    /// The input schema in each provider dialect the tool is a member of, as JSON, sorted by
    /// dialect: `openai`, `openai-strict`, `anthropic`, `anthropic-strict`, `gemini` (never
    /// `mcp`: that is [`input_schema`](Self::input_schema)). Computed at build time, so
    /// adapters never derive them at run time. See [`Descriptor::dialect`].
    pub dialects: &'static [(Dialect, &'static str)],
    /// Every `expects` field in spec order, ambient ones included.
    pub fields: &'static [Field],
    /// Where the input (ambient fields included) holds `sensitive` values, at any depth: a
    /// schema-shaped map of the paths to them, as JSON; `None` when nothing is sensitive.
    /// Such values are never quoted in errors or logs.
    pub sensitive_input: Option<&'static str>,
    /// Where the output holds `sensitive` values (as for `sensitive_input`).
    pub sensitive_output: Option<&'static str>,
    /// Where the input schema's integers keep their own range (JSON pointers to the
    /// subschemas of `rust_type` fields and `shape`s); the pipeline holds every other integer
    /// to `i64`, the type the generated code holds it in.
    pub own_ranges_input: &'static [&'static str],
    /// Where the output schema's integers keep their own range.
    pub own_ranges_output: &'static [&'static str],
    /// Preconditions, in spec order.
    pub guards: &'static [Guard],
    /// The headline failures are composed with ("Headline: reason").
    pub error_headline: Option<&'static str>,
    /// Declared error codes, in spec order.
    pub errors: &'static [ErrorCode],
    /// Semantic hints (`read_only`, `destructive`, registered extras…), in spec order.
    pub hints: &'static [&'static str],
    /// The success message template (minijinja), if the spec has one.
    pub message: Option<&'static str>,
    /// How long a call may run.
    pub timeout: Option<Duration>,
    /// Free-form tags.
    pub tags: &'static [&'static str],
    /// Scopes a caller needs on authenticated transports.
    pub scopes: &'static [&'static str],
    /// The adapters this tool is a member of, sorted by adapter name.
    pub adapters: &'static [AdapterBinding],
    /// What a query tool reads (`kind: query`).
    pub query: Option<&'static QueryDecl>,
    /// The `ref` fields of `expects`: records loaded before the guards and the handler.
    pub refs: &'static [RefDecl],
    /// How calls are recorded in the audit trail (the project's `audit:`, then the tool's).
    pub audit: AuditPolicy,
    /// Dex's `once`: repeats within the ttl answer with the first result.
    pub once: Option<&'static OnceDecl>,
    /// Dex's `lock`: one call per key at a time, across processes.
    pub lock: Option<&'static LockDecl>,
}

impl Descriptor {
    /// The descriptor of the built-in explain tool, named `name` on every adapter in `adapters`,
    /// its calls recorded by the project's `audit` policy (the generated `EXPLAIN` static uses
    /// it).
    pub const fn explain(
        name: &'static str,
        adapters: &'static [AdapterBinding],
        audit: AuditPolicy,
    ) -> Self {
        Self {
            name,
            spec: "",
            module: "",
            kind: ToolKind::Explain,
            title: Some("Explain a call"),
            summary: toolspec_vocab::explain::DESCRIPTION,
            description: toolspec_vocab::explain::DESCRIPTION,
            version: None,
            input_schema: toolspec_vocab::explain::INPUT_SCHEMA,
            output_schema: toolspec_vocab::explain::OUTPUT_SCHEMA,
            fields: &[
                Field {
                    name: "tool",
                    ambient: false,
                    sensitive: false,
                    optional: false,
                },
                Field {
                    name: "arguments",
                    ambient: false,
                    sensitive: false,
                    optional: true,
                },
            ],
            sensitive_input: None,
            sensitive_output: None,
            own_ranges_input: &[],
            own_ranges_output: &[],
            guards: &[],
            error_headline: None,
            errors: &[],
            hints: &["read_only", "idempotent"],
            message: None,
            timeout: None,
            tags: &[],
            scopes: &[],
            adapters,
            dialects: toolspec_vocab::explain::DIALECTS,
            query: None,
            refs: &[],
            audit,
            once: None,
            lock: None,
        }
    }

    /// The name a call through `adapter` (or none: the canonical name) knows this tool by.
    pub fn name_for_call(&self, adapter: Option<&str>) -> &'static str {
        adapter.and_then(|a| self.name_for(a)).unwrap_or(self.name)
    }

    /// This tool's binding to `adapter`, if it is a member.
    pub fn binding(&self, adapter: &str) -> Option<&'static AdapterBinding> {
        self.adapters.iter().find(|b| b.adapter == adapter)
    }

    /// Whether the tool is a member of `adapter`.
    pub fn is_member(&self, adapter: &str) -> bool {
        self.binding(adapter).is_some()
    }

    /// The tool's name on `adapter`, if it is a member.
    pub fn name_for(&self, adapter: &str) -> Option<&'static str> {
        self.binding(adapter).map(|b| b.name.unwrap_or(self.name))
    }

    /// The input schema in `dialect` as JSON text, if the tool is a member of it (see
    /// [`Dialect::for_member`]): `mcp` for every tool (the canonical
    /// [`input_schema`](Self::input_schema)), the others when they were derived for it.
    ///
    /// For `gemini` it is `null` when the tool takes no parameters: the function declaration
    /// then carries no `parameters` (Gemini rejects an `OBJECT` without properties).
    pub fn dialect(&self, dialect: Dialect) -> Option<&'static str> {
        if dialect == Dialect::Mcp {
            return Some(self.input_schema);
        }
        self.dialects
            .iter()
            .find(|(d, _)| *d == dialect)
            .map(|(_, schema)| *schema)
    }

    /// What the tool shows `adapter`'s model when the spec narrows it there (query tools).
    pub fn view(&self, adapter: &str) -> Option<&'static QueryView> {
        self.binding(adapter).and_then(|b| b.view)
    }

    /// The description `adapter`'s model reads: [`description`](Self::description), or the
    /// narrowed one of a query tool the spec narrows there.
    pub fn description_for(&self, adapter: &str) -> &'static str {
        self.view(adapter)
            .map_or(self.description, |v| v.description)
    }

    /// The input schema `adapter` declares the tool with, in `dialect`: the tool's
    /// [`dialect`](Self::dialect) schema, or the narrowed one of a query tool the spec narrows
    /// there.
    pub fn schema_for(&self, adapter: &str, dialect: Dialect) -> Option<&'static str> {
        match self.view(adapter) {
            Some(view) => view
                .schemas
                .iter()
                .find(|(d, _)| *d == dialect)
                .map(|(_, schema)| *schema),
            None => self.dialect(dialect),
        }
    }

    /// [`schema_for`](Self::schema_for), parsed.
    pub fn schema_for_json(&self, adapter: &str, dialect: Dialect) -> Option<serde_json::Value> {
        self.schema_for(adapter, dialect).map(parse_embedded)
    }

    /// The input schema in `dialect`, parsed (see [`Descriptor::dialect`]).
    pub fn dialect_json(&self, dialect: Dialect) -> Option<serde_json::Value> {
        self.dialect(dialect).map(parse_embedded)
    }

    /// Whether the spec declares `hint`.
    pub fn has_hint(&self, hint: &str) -> bool {
        self.hints.contains(&hint)
    }

    /// The declared error code `code`, if any.
    pub fn error(&self, code: &str) -> Option<&'static ErrorCode> {
        self.errors.iter().find(|e| e.code == code)
    }

    /// The fields resolved from the ambient context.
    pub fn ambient_fields(&self) -> impl Iterator<Item = &'static Field> {
        self.fields.iter().filter(|f| f.ambient)
    }

    /// The input schema, parsed.
    pub fn input_schema_json(&self) -> serde_json::Value {
        parse_embedded(self.input_schema)
    }

    /// The output schema, parsed.
    pub fn output_schema_json(&self) -> serde_json::Value {
        parse_embedded(self.output_schema)
    }
}

fn parse_embedded(schema: &str) -> serde_json::Value {
    // The compiler serialized these schemas itself; a failure would mean a corrupted build.
    serde_json::from_str(schema).unwrap_or(serde_json::Value::Null)
}
