//! Fields: what `expects`, `exposes`, object `fields`, array `items`, map `values`, `any_of`
//! variants and named types declare.

use serde_json::{Number, Value};

use crate::source::{Span, Spanned};
use crate::spec::query::RefSpec;

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
    },
}

impl FieldType {
    /// The spelling of built-in scalar types, in the order help messages list them.
    pub const BUILTIN: &'static [&'static str] = &[
        "string", "integer", "number", "boolean", "uuid", "date", "datetime", "decimal", "json",
        "object", "array", "map",
    ];

    /// What a type name from another language means here: the built-in type to write
    /// instead, with how (`int` → `integer`; `enum` → a `string` with `one_of`).
    pub fn alias(name: &str) -> Option<&'static str> {
        Some(match name.to_ascii_lowercase().as_str() {
            "int" | "i8" | "i16" | "i32" | "i64" | "int32" | "int64" | "long" | "short" | "u8"
            | "u16" | "u32" | "u64" | "uint" | "usize" | "isize" | "bigint" => {
                "`integer` (a 64-bit signed integer)"
            }
            "float" | "double" | "f32" | "f64" | "real" | "float64" => {
                "`number` (or `decimal` for exact amounts)"
            }
            "bool" => "`boolean`",
            "str" | "text" | "varchar" | "char" => "`string`",
            "list" | "vec" | "seq" | "sequence" | "tuple" => "`array`, with `items:`",
            "dict" | "hash" | "hashmap" | "btreemap" | "dictionary" | "record" => {
                "`map`, with `values:` (or `object`, with `fields:`, for known keys)"
            }
            "timestamp" | "time" | "instant" | "timestamptz" => "`datetime` (RFC 3339)",
            "guid" => "`uuid`",
            "any" | "value" => "`json` (any JSON value)",
            "enum" => "`string` with `one_of: [..]` listing the values",
            "struct" => "`object`, with `fields:`",
            _ => return None,
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
    /// `from`: the ambient context's key an ambient field takes its value from, when it is
    /// not the field's own name.
    pub from: Option<Spanned<String>>,
    /// Redacted in audit records and logs.
    pub sensitive: bool,
    /// A Rust type path to use instead of the generated type.
    pub rust_type: Option<Spanned<String>>,
    /// `type: ref`: the record the key names (the field's own type is the key's).
    pub reference: Option<Box<RefSpec>>,
    /// Named by a form of the tool's `ask:`: required, but the user is asked for it when a
    /// model leaves it out (so the input schema does not require it).
    pub asked: bool,
}

impl Field {
    /// A field named `name` (written at `span`, its type at `type_span`), of type `json` and
    /// nothing else until its definition is read.
    pub fn new(name: String, span: Span, type_span: Span) -> Self {
        Field {
            name,
            span,
            type_span,
            ty: FieldType::Json,
            description: None,
            examples: Vec::new(),
            deprecated: false,
            optional: false,
            nullable: false,
            default: None,
            one_of: None,
            constraints: Constraints::default(),
            ambient: false,
            from: None,
            sensitive: false,
            rust_type: None,
            reference: None,
            asked: false,
        }
    }

    /// The ambient context's key an ambient field's value comes from: `from`, or its name.
    pub fn context_key(&self) -> &str {
        self.from.as_ref().map_or(&self.name, |from| &from.value)
    }

    /// Whether a caller must supply the field.
    pub fn is_required(&self) -> bool {
        !self.optional && self.default.is_none()
    }
}

/// The pattern every `decimal` string matches: what `rust_decimal` reads without error. It
/// holds 96 bits of digits (up to 79228162514264337593543950335), so at most 28 digits before
/// the point; a longer fraction is rounded to fit, never refused.
pub const DECIMAL_PATTERN: &str = r"^-?[0-9]{1,28}(\.[0-9]+)?$";
