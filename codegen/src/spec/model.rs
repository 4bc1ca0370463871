//! The spec model: what a tool spec, a types file and the project config say, after parsing
//! and before anything is derived from them. Every item keeps the span it came from.

use std::time::Duration;

use serde_json::{Number, Value};
use toolspec_vocab::membership::MembershipDefault;
use toolspec_vocab::settings::{SettingDecl, SettingValue};

use crate::yaml::Span;

/// A value with the source span it was read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Spanned<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub span: Span,
}

impl<T> Spanned<T> {
    /// Pairs a value with its span.
    pub fn new(value: T, span: Span) -> Self {
        Self { value, span }
    }
}

/// A field's type.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldType {
    /// `string`
    String,
    /// `integer` (i64)
    Integer,
    /// `number` (f64)
    Number,
    /// `boolean`
    Boolean,
    /// `uuid`
    Uuid,
    /// `date` (ISO 8601 calendar date)
    Date,
    /// `datetime` (RFC 3339 with offset)
    DateTime,
    /// `decimal` (exact, as a string on the wire)
    Decimal,
    /// `json`: any JSON value
    Json,
    /// `object` with `fields`
    Object(Vec<Field>),
    /// `array` with `items`
    Array(Box<Field>),
    /// `map` with `values` (string keys)
    Map(Box<Field>),
    /// A named type from a `types:` file.
    Named(String),
    /// `any_of`: a union; with `tag`, each variant is an object told apart by that property.
    AnyOf {
        /// The variants (for a tagged union, named by their tag value).
        variants: Vec<Variant>,
        /// The tag property of a tagged union.
        tag: Option<String>,
    },
    /// `shape`: a raw JSON Schema, inline or `{ file: … }`.
    Shape {
        /// The schema (for `file:`, `Null` until the project reads the file).
        schema: Value,
        /// `{ file: … }`: the path as written (relative to the spec) and where it is written.
        file: Option<Spanned<String>>,
        /// The Rust items typify generated for it (set while checking the project).
        rust: Option<String>,
    },
}

impl FieldType {
    /// The spelling of built-in scalar types, in the order help messages list them.
    pub const BUILTIN: &'static [&'static str] = &[
        "string", "integer", "number", "boolean", "uuid", "date", "datetime", "decimal", "json",
        "object", "array", "map",
    ];

    /// The JSON type this field type has on the wire, if it is one type.
    pub fn json_kind(&self) -> Option<&'static str> {
        Some(match self {
            Self::String | Self::Uuid | Self::Date | Self::DateTime | Self::Decimal => "string",
            Self::Integer => "integer",
            Self::Number => "number",
            Self::Boolean => "boolean",
            Self::Object(_) | Self::Map(_) => "object",
            Self::Array(_) => "array",
            Self::Json | Self::Named(_) | Self::AnyOf { .. } | Self::Shape { .. } => return None,
        })
    }

    /// The name used in messages (`string`, `object`, `Address`…).
    pub fn describe(&self) -> String {
        match self {
            Self::String => "string".into(),
            Self::Integer => "integer".into(),
            Self::Number => "number".into(),
            Self::Boolean => "boolean".into(),
            Self::Uuid => "uuid".into(),
            Self::Date => "date".into(),
            Self::DateTime => "datetime".into(),
            Self::Decimal => "decimal".into(),
            Self::Json => "json".into(),
            Self::Object(_) => "object".into(),
            Self::Array(_) => "array".into(),
            Self::Map(_) => "map".into(),
            Self::Named(n) => n.clone(),
            Self::AnyOf { .. } => "any_of".into(),
            Self::Shape { .. } => "shape".into(),
        }
    }
}

/// One variant of an `any_of`.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    /// The tag value (tagged unions) or a name derived from the variant's type.
    pub name: String,
    /// The variant's definition.
    pub field: Field,
}

/// A string `format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `email`
    Email,
    /// `uri`
    Uri,
    /// `hostname`
    Hostname,
    /// `ipv4`
    Ipv4,
    /// `ipv6`
    Ipv6,
}

impl Format {
    /// Every format's spelling.
    pub const NAMES: &'static [&'static str] = &["email", "uri", "hostname", "ipv4", "ipv6"];

    /// Parses a spelling.
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "email" => Self::Email,
            "uri" => Self::Uri,
            "hostname" => Self::Hostname,
            "ipv4" => Self::Ipv4,
            "ipv6" => Self::Ipv6,
            _ => return None,
        })
    }

    /// The JSON Schema spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Email => "email",
            Self::Uri => "uri",
            Self::Hostname => "hostname",
            Self::Ipv4 => "ipv4",
            Self::Ipv6 => "ipv6",
        }
    }
}

/// Value constraints; which apply depends on the field's type.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Constraints {
    /// `min_length`
    pub min_length: Option<u64>,
    /// `max_length`
    pub max_length: Option<u64>,
    /// `pattern` (ECMA 262 regex, checked at build time)
    pub pattern: Option<Spanned<String>>,
    /// `format`
    pub format: Option<Format>,
    /// `minimum`
    pub minimum: Option<Number>,
    /// `maximum`
    pub maximum: Option<Number>,
    /// `exclusive_minimum`
    pub exclusive_minimum: Option<Number>,
    /// `exclusive_maximum`
    pub exclusive_maximum: Option<Number>,
    /// `multiple_of`
    pub multiple_of: Option<Number>,
    /// `min_items`
    pub min_items: Option<u64>,
    /// `max_items`
    pub max_items: Option<u64>,
    /// `unique_items`
    pub unique_items: bool,
}

/// One field of `expects`, `exposes`, an object's `fields`, an array's `items`, a map's
/// `values`, a named type or an `any_of` variant.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The key (`order_id`); for items, values and variants a descriptive name.
    pub name: String,
    /// Where the key (or the definition) is.
    pub span: Span,
    /// Where the `type:` value is (or the definition, for shorthand and `any_of`).
    pub type_span: Span,
    /// The type.
    pub ty: FieldType,
    /// Documentation.
    pub description: Option<String>,
    /// Example values.
    pub examples: Vec<Value>,
    /// Marked deprecated.
    pub deprecated: bool,
    /// May be omitted.
    pub optional: bool,
    /// May be null.
    pub nullable: bool,
    /// Used when omitted.
    pub default: Option<Spanned<Value>>,
    /// Allowed values.
    pub one_of: Option<Spanned<Vec<Value>>>,
    /// Constraints.
    pub constraints: Constraints,
    /// `on: ambient_context`
    pub ambient: bool,
    /// Redacted in audit records and logs.
    pub sensitive: bool,
    /// A Rust type path to use instead of the generated type.
    pub rust_type: Option<Spanned<String>>,
}

impl Field {
    /// Whether a caller must supply the field.
    pub fn is_required(&self) -> bool {
        !self.optional && self.default.is_none()
    }
}

/// A declared error code.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorDecl {
    /// The code.
    pub code: Spanned<String>,
    /// The reason text.
    pub message: String,
    /// Shown without the headline.
    pub standalone: bool,
}

/// A guard (precondition).
#[derive(Debug, Clone, PartialEq)]
pub struct GuardDecl {
    /// The guard's name (also its error code).
    pub name: Spanned<String>,
    /// What must hold.
    pub description: String,
}

/// The grant part of a `tool:` declaration.
#[derive(Debug, Clone, PartialEq)]
pub enum GrantDecl {
    /// Absent, or a map without its own grant.
    Default,
    /// `tool: true`
    All,
    /// `tool: false`
    OptOut,
    /// `tool: [mcp, openai]`
    Only(Vec<Spanned<String>>),
}

/// A per-adapter option bag (`tool: { mcp: { name: …, present_as: … } }`).
#[derive(Debug, Clone, PartialEq)]
pub struct AdapterOptions {
    /// The adapter.
    pub adapter: Spanned<String>,
    /// The tool's name on this adapter.
    pub name: Option<Spanned<String>>,
    /// Setting overrides, in spec order.
    pub settings: Vec<(Spanned<String>, Spanned<SettingValue>)>,
}

/// A spec's `tool:` declaration.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDecl {
    /// The grant.
    pub grant: GrantDecl,
    /// Per-adapter option bags, in spec order.
    pub options: Vec<AdapterOptions>,
    /// Adapters removed.
    pub except: Vec<Spanned<String>>,
    /// Where `tool:` is (None when absent).
    pub span: Option<Span>,
}

/// One tool spec file.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The path below the specs directory, '/'-separated (`orders/cancel.yaml`).
    pub path: String,
    /// The path shown in diagnostics (`specs/orders/cancel.yaml`).
    pub file: String,
    /// `description`
    pub description: String,
    /// `title`
    pub title: Option<String>,
    /// `name`
    pub name: Option<Spanned<String>>,
    /// `version`
    pub version: Option<u32>,
    /// `expects`, in spec order.
    pub expects: Vec<Field>,
    /// `exposes`, in spec order.
    pub exposes: Vec<Field>,
    /// `errors.headline`
    pub headline: Option<String>,
    /// `errors.codes`
    pub errors: Vec<ErrorDecl>,
    /// `guards`
    pub guards: Vec<GuardDecl>,
    /// `hints`
    pub hints: Vec<Spanned<String>>,
    /// `message`
    pub message: Option<Spanned<String>>,
    /// `timeout`
    pub timeout: Option<Duration>,
    /// `tags`
    pub tags: Vec<String>,
    /// `scopes`
    pub scopes: Vec<String>,
    /// `tool`
    pub tool: ToolDecl,
}

impl ToolSpec {
    /// An empty spec, filled in later (lets checks run on borrowed specs in parallel and the
    /// owned spec move into its result afterwards).
    pub(crate) fn placeholder() -> Self {
        Self {
            path: String::new(),
            file: String::new(),
            description: String::new(),
            title: None,
            name: None,
            version: None,
            expects: Vec::new(),
            exposes: Vec::new(),
            headline: None,
            errors: Vec::new(),
            guards: Vec::new(),
            hints: Vec::new(),
            message: None,
            timeout: None,
            tags: Vec::new(),
            scopes: Vec::new(),
            tool: ToolDecl {
                grant: GrantDecl::Default,
                options: Vec::new(),
                except: Vec::new(),
                span: None,
            },
        }
    }
}

/// A named type from a `types:` file.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedType {
    /// The file it is defined in (display path).
    pub file: String,
    /// Its definition (`name` is the type's name).
    pub field: Field,
}

/// An adapter as configured in `toolspec.yaml`.
#[derive(Debug, Clone, PartialEq)]
pub struct AdapterConfig {
    /// The adapter's declaration with project defaults applied.
    pub decl: toolspec_vocab::settings::AdapterDecl,
    /// Normalized `tool_roots`.
    pub tool_roots: Vec<String>,
    /// Whether the project declared it as a custom adapter.
    pub custom: bool,
}

/// `specs/toolspec.yaml`.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectConfig {
    /// `naming.strip_prefixes`
    pub strip_prefixes: Vec<String>,
    /// Every hint a spec may use: core, adapters', and `hints:`.
    pub hints: Vec<String>,
    /// `membership.default`
    pub membership: MembershipDefault,
    /// Every adapter, built-in and custom, sorted by name.
    pub adapters: Vec<AdapterConfig>,
    /// `audit.enabled`
    pub audit: bool,
    /// `explain.enabled`
    pub explain_enabled: bool,
    /// `explain.name`
    pub explain_name: String,
    /// `invoker.undeclared_keys: drop`
    pub drop_undeclared_keys: bool,
}

impl ProjectConfig {
    /// The adapter called `name`.
    pub fn adapter(&self, name: &str) -> Option<&AdapterConfig> {
        self.adapters.iter().find(|a| a.decl.name == name)
    }

    /// Every adapter's name, sorted.
    pub fn adapter_names(&self) -> Vec<&str> {
        self.adapters.iter().map(|a| a.decl.name.as_ref()).collect()
    }

    /// The setting `setting` of adapter `adapter`.
    pub fn setting(&self, adapter: &str, setting: &str) -> Option<&SettingDecl> {
        self.adapter(adapter)?.decl.setting(setting)
    }
}
