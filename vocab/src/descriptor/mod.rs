//! What is known about a tool at build time: its [`Descriptor`], defined once for the compiler
//! that builds it (owned), the generated code that embeds it (`'static`, borrowed) and the
//! runtime and CLI that read it. Every text and list is a `Cow<'static, _>`, so one type serves
//! both; with the `bake` feature the compiler writes a descriptor into Rust by walking the value
//! (serde's derive), so a new field needs no emitter of its own.
//!
//! Data and lookups on it: nothing here parses a schema, calls a tool or knows a registry.

pub mod query;

use std::borrow::Cow;
use std::time::Duration;

use crate::audit::AuditPolicy;
use crate::dialect::Dialect;
pub use crate::rate::RateLimit;
pub use crate::result_cap::ResultCap;
use crate::settings::SettingValue;
pub use crate::tasks::{TaskDecl, TaskSupport};
use query::{QueryDecl, QueryView, RefDecl};

/// Text of a descriptor: borrowed from the generated code's statics, owned by the compiler.
pub type Text = Cow<'static, str>;

/// A list of a descriptor: borrowed from the generated code's statics, owned by the compiler.
pub type List<T> = Cow<'static, [T]>;

/// The kind of a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub enum ToolKind {
    /// Runs a handler (`expects` → `exposes`).
    Action,
    /// Reads records from a database (`kind: query`): no handler.
    Query,
    /// The built-in explain tool.
    Explain,
    /// The built-in task status tool: reads one of the caller's tasks.
    TaskStatus,
}

/// One input field (`expects`), as the runtime needs to know it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub struct Field {
    /// The field's key in the arguments (or in the ambient context).
    pub name: Text,
    /// Resolved from the trusted ambient context (`on: ambient_context`), never model input.
    pub ambient: bool,
    /// The ambient context's key an ambient field takes its value from (`from:`), when it is
    /// not the field's own name.
    pub from: Option<Text>,
    /// Redacted in audit records and logs.
    pub sensitive: bool,
    /// May be omitted by the caller (optional, or has a default).
    pub optional: bool,
}

impl Field {
    /// The ambient context's key the field's value comes from: `from`, or its name.
    pub fn context_key(&self) -> &str {
        self.from.as_deref().unwrap_or(&self.name)
    }
}

/// A precondition checked before the handler runs.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub struct Guard {
    /// Identifier; also the error code when the guard fails.
    pub name: Text,
    /// What must hold, shown to the model under "Preconditions".
    pub description: Text,
}

/// A declared error code.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub struct ErrorCode {
    /// Identifier shown to the model.
    pub code: Text,
    /// The reason text.
    pub message: Text,
    /// Shown as is, without the tool's error headline.
    pub standalone: bool,
    /// The HTTP API's status for it, when the spec sets one (409 otherwise).
    pub http_status: Option<u16>,
}

/// A tool's membership in one adapter, with its name and setting overrides there.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub struct AdapterBinding {
    /// The adapter (`mcp`, `openai`, a custom adapter…).
    pub adapter: Text,
    /// The tool's own name on this adapter; `None`: its canonical name (see
    /// [`Descriptor::name_for`]).
    pub name: Option<Text>,
    /// Per-tool setting overrides for this adapter, checked at build time.
    pub settings: List<(Text, SettingValue)>,
    /// What a query tool shows this adapter's model, when the spec narrows it there.
    pub view: Option<QueryView>,
    /// The tool's title on this adapter (`title:` in its options), when not the tool's own.
    pub title: Option<Text>,
    /// The composed description this adapter's model reads (`description:` in its options),
    /// when not the tool's own (a narrowed query tool's is its view's).
    pub description: Option<Text>,
    /// The tool's hints on this adapter (`hints:` in its options), when not the tool's own.
    pub hints: Option<List<Text>>,
}

impl AdapterBinding {
    /// A member of `adapter` under the tool's canonical name, with no setting of its own.
    pub const fn member(adapter: &'static str) -> Self {
        Self {
            adapter: Cow::Borrowed(adapter),
            name: None,
            settings: Cow::Borrowed(&[]),
            view: None,
            title: None,
            description: None,
            hints: None,
        }
    }
}

/// An action's `once` (an idempotency key): a second call with the same key within the ttl
/// answers with the first call's result without running again.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub struct OnceDecl {
    /// The `expects` fields whose values make the key (ambient and `ref` fields included), in
    /// spec order.
    pub key: List<Text>,
    /// How long a result answers repeats, in milliseconds ([`ttl`](Self::ttl)).
    pub ttl_ms: u64,
}

impl OnceDecl {
    /// How long a result answers repeats.
    pub fn ttl(&self) -> Duration {
        Duration::from_millis(self.ttl_ms)
    }
}

/// An action's `lock` (an advisory lock): calls with the same key run one at a time, across
/// every process on the database.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub struct LockDecl {
    /// The `expects` fields whose values make the key, in spec order.
    pub key: List<Text>,
    /// How long a call waits for the lock before failing with `locked`, in milliseconds
    /// ([`wait`](Self::wait)).
    pub wait_ms: u64,
}

impl LockDecl {
    /// How long a call waits for the lock before failing with `locked`.
    pub fn wait(&self) -> Duration {
        Duration::from_millis(self.wait_ms)
    }
}

/// An action's `confirm`: before it acts, the user is asked to confirm the call (after its
/// arguments are checked and its guards pass, so that nobody is asked about a call that would
/// fail), when [`when`](Self::when) holds.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub struct Confirm {
    /// What the user is asked: a minijinja template over the call's arguments (with the
    /// records its `ref` fields loaded).
    pub message: Text,
    /// A minijinja expression over the same values: the user is asked only when it is true
    /// (always when there is none).
    pub when: Option<Text>,
}

/// One form of an action's `ask`: when a model leaves out all or some of its fields, the user
/// is asked to fill them in (an elicitation form), and the answers are checked like any
/// argument.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub struct AskForm {
    /// The form's name: the key of its request in a round trip.
    pub name: Text,
    /// What the user is asked.
    pub message: Text,
    /// The `expects` fields it asks for, in spec order.
    pub fields: List<Text>,
    /// The form's schema (JSON): an object of the fields, each as the tool's input schema has
    /// it, all required — within what elicitation forms can show.
    pub schema: Text,
}

/// Everything the build knows about one tool, baked into the generated code: an app reads it
/// through its methods ([`name`](Self::name), [`description`](Self::description),
/// [`input_schema`](Self::input_schema)…); the compiler builds it ([`Descriptor::baked`]).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(
    feature = "bake",
    derive(serde::Serialize),
    serde(rename = "Descriptor::baked")
)]
#[non_exhaustive]
pub struct Descriptor(#[doc(hidden)] pub DescriptorParts);

impl std::ops::Deref for Descriptor {
    type Target = DescriptorParts;

    fn deref(&self) -> &DescriptorParts {
        &self.0
    }
}

impl std::ops::DerefMut for Descriptor {
    fn deref_mut(&mut self) -> &mut DescriptorParts {
        &mut self.0
    }
}

/// What a [`Descriptor`] holds, field by field: the compiler's and the runtime's (the generated
/// code's door, not an app's).
#[doc(hidden)]
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub struct DescriptorParts {
    /// The canonical, provider-safe name (`[a-z0-9_]`, 1–64 characters).
    pub name: Text,
    /// The spec file, relative to the specs directory (`orders/cancel.yaml`).
    pub spec: Text,
    /// The generated module path below the tools module (`orders::cancel`).
    pub module: Text,
    /// What kind of tool this is.
    pub kind: ToolKind,
    /// Display title.
    pub title: Option<Text>,
    /// The spec's own description.
    pub summary: Text,
    /// The description shown to models: the summary, then "Preconditions: …" and "Errors: …".
    pub description: Text,
    /// The spec's `version`.
    pub version: Option<u32>,
    /// Canonical JSON Schema 2020-12 of the model-facing input (ambient fields excluded).
    pub input_schema: Text,
    /// Canonical JSON Schema 2020-12 of the exposed output.
    pub output_schema: Text,
    /// The input schema in each provider dialect the tool is a member of, as JSON, sorted by
    /// dialect: `openai`, `openai-strict`, `anthropic`, `anthropic-strict`, `gemini` (never
    /// `mcp`: that is [`input_schema`](Self::input_schema)). Computed at build time, so
    /// adapters never derive them at run time. See [`Descriptor::dialect`].
    pub dialects: List<(Dialect, Text)>,
    /// Every `expects` field in spec order, ambient ones included.
    pub fields: List<Field>,
    /// Where the input (ambient fields included) holds `sensitive` values, at any depth: a
    /// schema-shaped map of the paths to them, as JSON; `None` when nothing is sensitive.
    /// Such values are never quoted in errors or logs.
    pub sensitive_input: Option<Text>,
    /// Where the output holds `sensitive` values (as for `sensitive_input`).
    pub sensitive_output: Option<Text>,
    /// Where the input schema's integers keep their own range (JSON pointers to the
    /// subschemas of `rust_type` fields and `shape`s); the runtime holds every other integer
    /// to `i64`, the type the generated code holds it in.
    pub own_ranges_input: List<Text>,
    /// Where the output schema's integers keep their own range.
    pub own_ranges_output: List<Text>,
    /// Preconditions, in spec order.
    pub guards: List<Guard>,
    /// The headline failures are composed with ("Headline: reason").
    pub error_headline: Option<Text>,
    /// Declared error codes, in spec order.
    pub errors: List<ErrorCode>,
    /// Semantic hints (`read_only`, `destructive`, registered extras…), in spec order.
    pub hints: List<Text>,
    /// The success message template (minijinja), if the spec has one.
    pub message: Option<Text>,
    /// How long a call may run, in milliseconds ([`timeout`](Self::timeout)).
    pub timeout_ms: Option<u64>,
    /// Free-form tags.
    pub tags: List<Text>,
    /// Scopes a caller needs on authenticated transports.
    pub scopes: List<Text>,
    /// The adapters this tool is a member of, sorted by adapter name.
    pub adapters: List<AdapterBinding>,
    /// What a query tool reads (`kind: query`).
    pub query: Option<QueryDecl>,
    /// The `ref` fields of `expects`: records loaded before the guards and the handler.
    pub refs: List<RefDecl>,
    /// How calls are recorded in the audit trail (the project's `audit:`, then the tool's).
    pub audit: AuditPolicy,
    /// `once`: repeats within the ttl answer with the first result.
    pub once: Option<OnceDecl>,
    /// `lock`: one call per key at a time, across processes.
    pub lock: Option<LockDecl>,
    /// `task`: whether the tool may or must run as a durable task, and its task's bounds.
    pub task: Option<TaskDecl>,
    /// `rate_limit`: the budget of calls per caller (`None`: no limit).
    pub rate_limit: Option<RateLimit>,
    /// `result_cap`: how large an answer may get before it is cut (`None`: no cap).
    pub result_cap: Option<ResultCap>,
    /// `confirm`: the user is asked to confirm a call before it acts.
    pub confirm: Option<Confirm>,
    /// `ask`: the forms the user is asked to fill in for the fields a model left out, in spec
    /// order.
    pub ask: List<AskForm>,
}

/// The built-in explain tool's two input fields.
const EXPLAIN_FIELDS: &[Field] = &[
    Field {
        name: Cow::Borrowed("tool"),
        ambient: false,
        from: None,
        sensitive: false,
        optional: false,
    },
    Field {
        name: Cow::Borrowed("arguments"),
        ambient: false,
        from: None,
        sensitive: false,
        optional: true,
    },
];

/// The built-in task status tool's two input fields.
const TASK_STATUS_FIELDS: &[Field] = &[
    Field {
        name: Cow::Borrowed("task_id"),
        ambient: false,
        from: None,
        sensitive: false,
        optional: false,
    },
    Field {
        name: Cow::Borrowed("wait_seconds"),
        ambient: false,
        from: None,
        sensitive: false,
        optional: true,
    },
];

/// The built-in explain tool's hints (the task status tool's too).
const EXPLAIN_HINTS: &[Text] = &[Cow::Borrowed("read_only"), Cow::Borrowed("idempotent")];

impl Descriptor {
    /// The descriptor made of `parts` (what the generated code's statics are).
    #[doc(hidden)]
    pub const fn baked(parts: DescriptorParts) -> Self {
        Self(parts)
    }

    /// The canonical, provider-safe name (`[a-z0-9_]`, 1–64 characters).
    pub fn name(&self) -> &str {
        &self.0.name
    }

    /// The spec file it was compiled from, below the specs folder (empty for a built-in tool).
    pub fn spec(&self) -> &str {
        &self.0.spec
    }

    /// Its title, if the spec gives one.
    pub fn title(&self) -> Option<&str> {
        self.0.title.as_deref()
    }

    /// The spec's one-line summary.
    pub fn summary(&self) -> &str {
        &self.0.summary
    }

    /// The description a model reads, composed by the compiler (errors, guards, hints).
    pub fn description(&self) -> &str {
        &self.0.description
    }

    /// The spec's `version`, if it gives one.
    pub fn version(&self) -> Option<u32> {
        self.0.version
    }

    /// The canonical JSON Schema of its arguments.
    pub fn input_schema(&self) -> &str {
        &self.0.input_schema
    }

    /// The canonical JSON Schema of what it exposes.
    pub fn output_schema(&self) -> &str {
        &self.0.output_schema
    }

    /// Its tags.
    pub fn tags(&self) -> impl ExactSizeIterator<Item = &str> {
        self.0.tags.iter().map(|t| &**t)
    }

    /// The scopes a caller needs to call it.
    pub fn scopes(&self) -> impl ExactSizeIterator<Item = &str> {
        self.0.scopes.iter().map(|s| &**s)
    }

    /// The codes of the errors it declares.
    pub fn error_codes(&self) -> impl ExactSizeIterator<Item = &str> {
        self.0.errors.iter().map(|e| &*e.code)
    }

    /// The names of its guards, in the order they run.
    pub fn guard_names(&self) -> impl ExactSizeIterator<Item = &str> {
        self.0.guards.iter().map(|g| &*g.name)
    }

    /// The descriptor of the built-in explain tool, named `name` on every adapter in `adapters`,
    /// its calls recorded by the project's `audit` policy (the generated `EXPLAIN` static uses
    /// it).
    #[doc(hidden)]
    pub const fn explain(name: Text, adapters: List<AdapterBinding>, audit: AuditPolicy) -> Self {
        Self(DescriptorParts {
            name,
            spec: Cow::Borrowed(""),
            module: Cow::Borrowed(""),
            kind: ToolKind::Explain,
            title: Some(Cow::Borrowed("Explain a call")),
            summary: Cow::Borrowed(crate::explain::DESCRIPTION),
            description: Cow::Borrowed(crate::explain::DESCRIPTION),
            version: None,
            input_schema: Cow::Borrowed(crate::explain::INPUT_SCHEMA),
            output_schema: Cow::Borrowed(crate::explain::OUTPUT_SCHEMA),
            fields: Cow::Borrowed(EXPLAIN_FIELDS),
            sensitive_input: None,
            sensitive_output: None,
            own_ranges_input: Cow::Borrowed(&[]),
            own_ranges_output: Cow::Borrowed(&[]),
            guards: Cow::Borrowed(&[]),
            error_headline: None,
            errors: Cow::Borrowed(&[]),
            hints: Cow::Borrowed(EXPLAIN_HINTS),
            message: None,
            timeout_ms: None,
            tags: Cow::Borrowed(&[]),
            scopes: Cow::Borrowed(&[]),
            adapters,
            dialects: Cow::Borrowed(crate::explain::DIALECTS),
            query: None,
            refs: Cow::Borrowed(&[]),
            audit,
            once: None,
            lock: None,
            task: None,
            rate_limit: None,
            result_cap: None,
            confirm: None,
            ask: Cow::Borrowed(&[]),
        })
    }

    /// The descriptor of the built-in task status tool, named `name` on every adapter in
    /// `adapters`, with its input schema in each of `dialects` (which the compiler derives),
    /// its calls recorded by the project's `audit` policy (the generated `TASK_STATUS` static).
    #[doc(hidden)]
    pub fn task_status(
        name: Text,
        adapters: List<AdapterBinding>,
        audit: AuditPolicy,
        dialects: List<(Dialect, Text)>,
    ) -> Self {
        use crate::tasks::{TASK_SCHEMA, status_tool};
        Self(DescriptorParts {
            kind: ToolKind::TaskStatus,
            title: Some(Cow::Borrowed(status_tool::TITLE)),
            summary: Cow::Borrowed(status_tool::DESCRIPTION),
            description: Cow::Borrowed(status_tool::DESCRIPTION),
            input_schema: Cow::Borrowed(status_tool::INPUT_SCHEMA),
            output_schema: Cow::Borrowed(TASK_SCHEMA),
            fields: Cow::Borrowed(TASK_STATUS_FIELDS),
            dialects,
            ..Self::explain(name, adapters, audit).0
        })
    }

    /// How long a call may run.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout_ms.map(Duration::from_millis)
    }

    /// The name a call through `adapter` (or none: the canonical name) knows this tool by.
    pub fn name_for_call(&self, adapter: Option<&str>) -> &str {
        adapter.and_then(|a| self.name_for(a)).unwrap_or(&self.name)
    }

    /// This tool's binding to `adapter`, if it is a member.
    #[doc(hidden)]
    pub fn binding(&self, adapter: &str) -> Option<&AdapterBinding> {
        self.adapters.iter().find(|b| b.adapter == adapter)
    }

    /// Whether the tool is a member of `adapter`.
    pub fn is_member(&self, adapter: &str) -> bool {
        self.binding(adapter).is_some()
    }

    /// The tool's name on `adapter`, if it is a member.
    pub fn name_for(&self, adapter: &str) -> Option<&str> {
        self.binding(adapter)
            .map(|b| b.name.as_deref().unwrap_or(&self.name))
    }

    /// [`name_for`](Self::name_for), as the descriptor holds it: a clone, free for the generated
    /// code's statics, whose text is borrowed.
    #[doc(hidden)]
    pub fn name_text_for(&self, adapter: &str) -> Option<Text> {
        let binding = self.binding(adapter)?;
        Some(binding.name.clone().unwrap_or_else(|| self.name.clone()))
    }

    /// [`description_for`](Self::description_for), as the descriptor holds it (a clone, free
    /// for the generated code's statics).
    #[doc(hidden)]
    pub fn description_text_for(&self, adapter: &str) -> Text {
        Cow::Owned(self.description_for(adapter).to_owned())
    }

    /// The tool's title on `adapter`: its options' `title`, or the tool's own.
    pub fn title_for(&self, adapter: &str) -> Option<&str> {
        self.binding(adapter)
            .and_then(|b| b.title.as_deref())
            .or(self.title.as_deref())
    }

    /// The tool's hints on `adapter`: its options' `hints`, or the tool's own.
    #[doc(hidden)]
    pub fn hints_for(&self, adapter: &str) -> &[Text] {
        self.binding(adapter)
            .and_then(|b| b.hints.as_deref())
            .unwrap_or(&self.hints)
    }

    /// Whether calling the tool only reads, on every adapter: a query tool or a built-in one,
    /// or a tool hinted `read_only` whose hints on each adapter say so too. A read-only
    /// deployment serves these alone.
    pub fn is_read_only(&self) -> bool {
        let read_only = |hints: &[Text]| hints.iter().any(|h| h == crate::hints::READ_ONLY);
        match self.kind {
            ToolKind::Query | ToolKind::Explain | ToolKind::TaskStatus => true,
            ToolKind::Action => {
                read_only(&self.hints)
                    && self
                        .adapters
                        .iter()
                        .all(|b| b.hints.as_deref().is_none_or(read_only))
            }
        }
    }

    /// Whether the tool has `hint` on `adapter` (see [`hints_for`](Self::hints_for)).
    pub fn has_hint_for(&self, adapter: &str, hint: &str) -> bool {
        self.hints_for(adapter).iter().any(|h| h == hint)
    }

    /// The input schema in `dialect` as JSON text, if the tool is a member of it (see
    /// [`Dialect::for_member`]): `mcp` for every tool (the canonical
    /// [`input_schema`](Self::input_schema)), the others when they were derived for it.
    ///
    /// For `gemini` it is `null` when the tool takes no parameters: the function declaration
    /// then carries no `parameters` (Gemini rejects an `OBJECT` without properties).
    #[doc(hidden)]
    pub fn dialect(&self, dialect: Dialect) -> Option<&str> {
        if dialect == Dialect::Mcp {
            return Some(&self.input_schema);
        }
        self.dialects
            .iter()
            .find(|(d, _)| *d == dialect)
            .map(|(_, schema)| schema.as_ref())
    }

    /// What the tool shows `adapter`'s model when the spec narrows it there (query tools).
    #[doc(hidden)]
    pub fn view(&self, adapter: &str) -> Option<&QueryView> {
        self.binding(adapter).and_then(|b| b.view.as_ref())
    }

    /// The description `adapter`'s model reads: the narrowed one of a query tool the spec
    /// narrows there, the adapter's own (`description:` in its options), or
    /// [`description`](Self::description).
    pub fn description_for(&self, adapter: &str) -> &str {
        if let Some(view) = self.view(adapter) {
            return &view.description;
        }
        self.binding(adapter)
            .and_then(|b| b.description.as_deref())
            .unwrap_or(&self.description)
    }

    /// The input schema `adapter` declares the tool with, in `dialect`: the tool's
    /// [`dialect`](Self::dialect) schema, or the narrowed one of a query tool the spec narrows
    /// there.
    #[doc(hidden)]
    pub fn schema_for(&self, adapter: &str, dialect: Dialect) -> Option<&str> {
        match self.view(adapter) {
            Some(view) => view
                .schemas
                .iter()
                .find(|(d, _)| *d == dialect)
                .map(|(_, schema)| schema.as_ref()),
            None => self.dialect(dialect),
        }
    }

    /// The dialect and input schema `adapter` declares the tool with when its settings call
    /// for `wanted`: that dialect's schema ([`schema_for`](Self::schema_for)), or its
    /// non-strict form's when the tool has none in it (the explain tool is never strict), else
    /// the canonical one.
    #[doc(hidden)]
    pub fn declared_for(&self, adapter: &str, wanted: Dialect) -> (Dialect, &str) {
        [wanted, wanted.relaxed()]
            .into_iter()
            .find_map(|d| self.schema_for(adapter, d).map(|schema| (d, schema)))
            .unwrap_or((Dialect::Mcp, &self.input_schema))
    }

    /// Whether a call of the tool may ask its user something (`confirm`, `ask`).
    pub fn asks_user(&self) -> bool {
        self.confirm.is_some() || !self.ask.is_empty()
    }

    /// Whether the spec declares `hint`.
    pub fn has_hint(&self, hint: &str) -> bool {
        self.hints.iter().any(|h| h == hint)
    }

    /// The declared error code `code`, if any.
    #[doc(hidden)]
    pub fn error(&self, code: &str) -> Option<&ErrorCode> {
        self.errors.iter().find(|e| e.code == code)
    }

    /// The fields resolved from the ambient context.
    #[doc(hidden)]
    pub fn ambient_fields(&self) -> impl Iterator<Item = &Field> {
        self.fields.iter().filter(|f| f.ambient)
    }

    /// [`schema_for`](Self::schema_for), parsed.
    #[cfg(feature = "json")]
    #[doc(hidden)]
    pub fn schema_for_json(&self, adapter: &str, dialect: Dialect) -> Option<serde_json::Value> {
        self.schema_for(adapter, dialect).map(parse_embedded)
    }

    /// The input schema in `dialect`, parsed (see [`Descriptor::dialect`]).
    #[cfg(feature = "json")]
    #[doc(hidden)]
    pub fn dialect_json(&self, dialect: Dialect) -> Option<serde_json::Value> {
        self.dialect(dialect).map(parse_embedded)
    }

    /// The input schema, parsed.
    #[cfg(feature = "json")]
    #[doc(hidden)]
    pub fn input_schema_json(&self) -> serde_json::Value {
        parse_embedded(&self.input_schema)
    }

    /// The output schema, parsed.
    #[cfg(feature = "json")]
    #[doc(hidden)]
    pub fn output_schema_json(&self) -> serde_json::Value {
        parse_embedded(&self.output_schema)
    }

    /// Whether the tool exposes no value (an action without `exposes`): its output schema is an
    /// object without properties, which tells a client nothing.
    #[cfg(feature = "json")]
    pub fn exposes_nothing(&self) -> bool {
        self.output_schema_json()["properties"]
            .as_object()
            .is_some_and(serde_json::Map::is_empty)
    }
}

/// An embedded schema, parsed: the compiler serialized it itself, so a failure would mean a
/// corrupted build (`null` then).
#[cfg(feature = "json")]
fn parse_embedded(schema: &str) -> serde_json::Value {
    serde_json::from_str(schema).unwrap_or(serde_json::Value::Null)
}
