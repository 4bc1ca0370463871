//! Provider dialects: the JSON Schema each adapter's provider accepts, derived at build time
//! from every tool's canonical input schema (JSON Schema 2020-12).
//!
//! | dialect | used by | what changes |
//! |---|---|---|
//! | `mcp` | `mcp`, `http`, custom adapters | nothing: the canonical schema |
//! | `openai` | `openai` with `strict: false`, `rig` | objects get `properties`, arrays `items` |
//! | `openai-strict` | `openai` with `strict: true` | see [`openai`] |
//! | `anthropic` | `anthropic` with `strict: false` | nothing |
//! | `anthropic-strict` | `anthropic` with `strict: true` | see [`anthropic`] |
//! | `gemini` | `gemini` | see [`gemini`] |
//!
//! Each dialect is a pass over the schema tree ([`walk`] with a [`Visitor`]): a constraint the
//! dialect cannot express is removed and stated in the description of the schema it was on, as
//! a sentence ("Must be at most 500 characters."), and reported as a build warning at the spec
//! line of the field it came from; the invoker still validates calls against the canonical
//! schema, so nothing is loosened at run time. A schema a dialect cannot express at all (a map
//! in strict mode, recursion on Gemini, over OpenAI's strict limits…) is a build error — but
//! only for the dialects a tool is a member of ([`member_dialects`]).
//!
//! Decisions where the provider documentation is silent:
//! - `rig` hands its tool definitions to whichever provider it is configured with, in that
//!   provider's non-strict mode: it gets the `openai` dialect. `http` (OpenAPI 3.1 speaks JSON
//!   Schema 2020-12) and custom adapters get the canonical `mcp` dialect.
//! - Annotations a dialect does not list are not constraints: `examples` and `deprecated` are
//!   stated in the description ("Example: …", "Deprecated."), `title`, `$comment` and the like
//!   are dropped, all without a warning.
//! - Warnings are deduplicated per (dialect, spec location, keyword): a named type used by many
//!   tools warns once, at its own definition.
//! - The dialect pass runs only when the project has no other errors, so that a broken spec
//!   does not also report dialect errors that follow from it.
//! - Strict modes need a type on every schema and a closed object everywhere: a `json` field
//!   (any value), a `map` and an object without properties are errors there, not warnings.
//!   An open object with properties (possible in a `shape`) is closed, with a warning.
//! - OpenAI's "10 levels of nesting" counts objects, the tool's input being level 1 (the
//!   stricter reading).
//! - `openai-strict` makes optional properties nullable; its adapter must drop a `null` the
//!   model sends for a property whose canonical schema does not accept `null` ("not given")
//!   before validating. `gemini` sends numeric and boolean enums as strings; the invoker's
//!   coercion turns them back.
//! - Anthropic's per-request strict limits (20 tools, 24 optional parameters, 16 union
//!   parameters) are errors for one tool over them, and a warning when the strict tools of the
//!   project together exceed them (an adapter may send a subset per request).
//! - A dialect's schema may nest no deeper than the canonical one may ([`MAX_DEPTH`]): a
//!   deeper one (wrapped nulls, named types written out) is not expressible.
//! - Tool names: per-adapter `name:` overrides are checked where they are written; a
//!   canonical name passes every built-in rule except Gemini's first character (a letter or
//!   `_`), which [`check_names`] checks.

pub mod anthropic;
mod depth;
pub mod gemini;
pub mod mcp;
pub mod openai;

pub use depth::{MAX_DEPTH, too_deep};

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};
pub use toolspec_vocab::Dialect;
use toolspec_vocab::settings::Settings;

use crate::diagnostic::Diagnostic;
use crate::project::{Binding, Tool};
use crate::schema::{I64_MAX, I64_MIN, Types};
use crate::spec::model::{Field, FieldType, ProjectConfig, ToolSpec};
use crate::yaml::Span;

/// Derives `dialect` from a canonical input schema. Provider dialects leave out the
/// implicit `i64` bounds of integers ([`is_implicit_bound`]): no constraint of the spec's,
/// nothing a model can use, and tokens on every request; the invoker still enforces them.
pub fn derive(dialect: Dialect, canonical: &Value) -> Derived {
    let without_bounds;
    let canonical = if dialect == Dialect::Mcp {
        canonical
    } else {
        let mut schema = canonical.clone();
        drop_implicit_bounds(&mut schema);
        without_bounds = schema;
        &without_bounds
    };
    let mut derived = match dialect {
        Dialect::Mcp => mcp::derive(canonical),
        Dialect::OpenAi => openai::derive(canonical),
        Dialect::OpenAiStrict => openai::derive_strict(canonical),
        Dialect::Anthropic => anthropic::derive(canonical),
        Dialect::AnthropicStrict => anthropic::derive_strict(canonical),
        Dialect::Gemini => gemini::derive(canonical),
    };
    // A dialect may nest deeper than the canonical schema (wrapped nulls, written-out
    // named types): it too must stay within the limit.
    if derived.is_expressible()
        && let Some(path) = too_deep(&derived.schema, MAX_DEPTH)
    {
        derived.refusals.push(Refusal {
            path,
            reason: format!("it would nest more than {MAX_DEPTH} levels deep there"),
        });
    }
    derived
}

/// One step of a path through a schema, from the root to a subschema.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Seg {
    /// `properties/NAME`
    Prop(String),
    /// `items`
    Items,
    /// `additionalProperties` (a map's values)
    Values,
    /// `anyOf/N` or `oneOf/N` (also the Nth element under [`Seg::Keyword`])
    Branch(usize),
    /// `$defs/NAME` (or `definitions/NAME`)
    Def(String),
    /// Any other keyword holding subschemas (`not`, `allOf`, `prefixItems`…).
    Keyword(String),
}

/// A constraint a dialect states in a description instead of its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    /// Where the keyword was.
    pub path: Vec<Seg>,
    /// The canonical keyword (`maxLength`).
    pub keyword: String,
    /// What happened, when it is more than "stated in the description" (after "DIALECT ").
    pub what: Option<String>,
}

/// Why a dialect cannot express a schema at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// Where (empty: the whole schema).
    pub path: Vec<Seg>,
    /// Why, as a clause ("the type `Tree` contains itself…").
    pub reason: String,
}

/// A dialect's version of a schema.
#[derive(Debug, Clone, PartialEq)]
pub struct Derived {
    /// The schema; `Value::Null` when the provider wants no schema at all (a Gemini function
    /// without parameters carries no `parameters`). Meaningless when there are refusals.
    pub schema: Value,
    /// Constraints moved into descriptions, in walk order.
    pub moved: Vec<Moved>,
    /// Reasons the schema cannot be expressed (empty: it can).
    pub refusals: Vec<Refusal>,
}

impl Derived {
    /// Whether the dialect can express the schema.
    pub fn is_expressible(&self) -> bool {
        self.refusals.is_empty()
    }
}

/// The state of a dialect pass: where the walk is and what it found.
#[derive(Debug, Default)]
pub struct Cx {
    path: Vec<Seg>,
    moved: Vec<Moved>,
    refusals: Vec<Refusal>,
}

impl Cx {
    /// A fresh pass.
    pub fn new() -> Self {
        Self::default()
    }

    /// The path of the schema being visited.
    pub fn path(&self) -> &[Seg] {
        &self.path
    }

    /// Removes `keyword` from `node` and states it in the description; true if it was there.
    pub fn move_keyword(&mut self, node: &mut Map<String, Value>, keyword: &str) -> bool {
        let Some(value) = node.remove(keyword) else {
            return false;
        };
        if let Some(sentence) = constraint_sentence(keyword, &value) {
            append_description(node, &sentence);
            self.record(keyword, None);
        }
        true
    }

    /// States `sentence` in `node`'s description on behalf of `keyword` (already handled).
    pub fn state(&mut self, node: &mut Map<String, Value>, keyword: &str, sentence: &str) {
        append_description(node, sentence);
        self.record(keyword, None);
    }

    /// Records a moved keyword with its own account of what happened.
    pub fn record(&mut self, keyword: &str, what: Option<String>) {
        self.moved.push(Moved {
            path: self.path.clone(),
            keyword: keyword.to_owned(),
            what,
        });
    }

    /// The schema being visited cannot be expressed.
    pub fn refuse(&mut self, reason: impl Into<String>) {
        let path = self.path.clone();
        self.refuse_at(path, reason);
    }

    /// The schema at `path` cannot be expressed.
    pub fn refuse_at(&mut self, path: Vec<Seg>, reason: impl Into<String>) {
        let reason = reason.into();
        if !self
            .refusals
            .iter()
            .any(|r| r.path == path && r.reason == reason)
        {
            self.refusals.push(Refusal { path, reason });
        }
    }

    /// Whether anything was refused so far.
    pub fn has_refusals(&self) -> bool {
        !self.refusals.is_empty()
    }

    /// The result of the pass.
    pub fn finish(self, schema: Value) -> Derived {
        Derived {
            schema,
            moved: self.moved,
            refusals: self.refusals,
        }
    }

    fn push(&mut self, segs: &[Seg]) {
        self.path.extend(segs.iter().cloned());
    }

    fn pop(&mut self, n: usize) {
        self.path.truncate(self.path.len().saturating_sub(n));
    }
}

/// A dialect's rewrite of schema nodes, called by [`walk`] on every schema in the tree.
pub trait Visitor {
    /// Before the node's subschemas are visited: may rewrite or remove them.
    fn enter(&mut self, _node: &mut Map<String, Value>, _cx: &mut Cx) {}
    /// After the node's subschemas are visited.
    fn leave(&mut self, _node: &mut Map<String, Value>, _cx: &mut Cx) {}
}

/// Visits every schema below and including `schema`, depth first, keeping [`Cx::path`].
/// Boolean schemas become their object spelling first (`true` → `{}`, `false` →
/// `{"not": {}}`), so that visitors see every schema as an object.
pub fn walk(schema: &mut Value, visitor: &mut dyn Visitor, cx: &mut Cx) {
    if let Value::Bool(accept) = schema {
        *schema = if *accept {
            json!({})
        } else {
            json!({ "not": {} })
        };
    }
    let Value::Object(node) = schema else { return };
    visitor.enter(node, cx);
    for_each_child(node, &mut |segs, child| {
        cx.push(segs);
        walk(child, visitor, cx);
        cx.pop(segs.len());
    });
    visitor.leave(node, cx);
}

/// Calls `f` on every direct subschema of `node`, with the path steps leading to it.
pub fn for_each_child(node: &mut Map<String, Value>, f: &mut dyn FnMut(&[Seg], &mut Value)) {
    for (key, value) in node.iter_mut() {
        match (key.as_str(), value) {
            ("$defs" | "definitions", Value::Object(defs)) => {
                for (name, def) in defs.iter_mut() {
                    f(&[Seg::Def(name.clone())], def);
                }
            }
            ("properties", Value::Object(props)) => {
                for (name, prop) in props.iter_mut() {
                    f(&[Seg::Prop(name.clone())], prop);
                }
            }
            ("patternProperties" | "dependentSchemas", Value::Object(map)) => {
                for (name, sub) in map.iter_mut() {
                    f(&[Seg::Keyword(key.clone()), Seg::Prop(name.clone())], sub);
                }
            }
            ("additionalProperties", sub @ Value::Object(_)) => f(&[Seg::Values], sub),
            ("items", sub @ Value::Object(_)) => f(&[Seg::Items], sub),
            ("anyOf" | "oneOf", Value::Array(list)) => {
                for (i, sub) in list.iter_mut().enumerate() {
                    f(&[Seg::Branch(i)], sub);
                }
            }
            ("items" | "prefixItems" | "allOf", Value::Array(list)) => {
                for (i, sub) in list.iter_mut().enumerate() {
                    f(&[Seg::Keyword(key.clone()), Seg::Branch(i)], sub);
                }
            }
            (
                "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "propertyNames"
                | "unevaluatedProperties"
                | "unevaluatedItems"
                | "additionalItems",
                sub @ Value::Object(_),
            ) => f(&[Seg::Keyword(key.clone())], sub),
            _ => {}
        }
    }
}

/// The direct subschemas of `node`, with the path steps leading to each (read-only
/// [`for_each_child`]).
pub fn children(node: &Map<String, Value>) -> Vec<(Vec<Seg>, &Value)> {
    let mut out = Vec::new();
    for (key, value) in node {
        match (key.as_str(), value) {
            ("$defs" | "definitions", Value::Object(defs)) => {
                out.extend(defs.iter().map(|(n, d)| (vec![Seg::Def(n.clone())], d)));
            }
            ("properties", Value::Object(props)) => {
                out.extend(props.iter().map(|(n, p)| (vec![Seg::Prop(n.clone())], p)));
            }
            ("patternProperties" | "dependentSchemas", Value::Object(map)) => {
                out.extend(
                    map.iter()
                        .map(|(n, p)| (vec![Seg::Keyword(key.clone()), Seg::Prop(n.clone())], p)),
                );
            }
            ("additionalProperties", sub @ Value::Object(_)) => out.push((vec![Seg::Values], sub)),
            ("items", sub @ Value::Object(_)) => out.push((vec![Seg::Items], sub)),
            ("anyOf" | "oneOf", Value::Array(list)) => {
                out.extend(
                    list.iter()
                        .enumerate()
                        .map(|(i, b)| (vec![Seg::Branch(i)], b)),
                );
            }
            ("items" | "prefixItems" | "allOf", Value::Array(list)) => {
                out.extend(
                    list.iter()
                        .enumerate()
                        .map(|(i, b)| (vec![Seg::Keyword(key.clone()), Seg::Branch(i)], b)),
                );
            }
            (
                "not"
                | "if"
                | "then"
                | "else"
                | "contains"
                | "propertyNames"
                | "unevaluatedProperties"
                | "unevaluatedItems"
                | "additionalItems",
                sub @ Value::Object(_),
            ) => out.push((vec![Seg::Keyword(key.clone())], sub)),
            _ => {}
        }
    }
    out
}

/// Every schema node below and including `schema`, with its path, depth first.
pub fn nodes(schema: &Value) -> Vec<(Vec<Seg>, &Map<String, Value>)> {
    fn go<'a>(
        value: &'a Value,
        path: &mut Vec<Seg>,
        out: &mut Vec<(Vec<Seg>, &'a Map<String, Value>)>,
    ) {
        let Value::Object(node) = value else { return };
        out.push((path.clone(), node));
        for (segs, child) in children(node) {
            let n = segs.len();
            path.extend(segs);
            go(child, path, out);
            path.truncate(path.len() - n);
        }
    }
    let mut out = Vec::new();
    go(schema, &mut Vec::new(), &mut out);
    out
}

/// Sets `key` in `node`: in place when present, else right after `anchor` (at the end when
/// `anchor` is absent too), so that related keywords stay together.
pub fn put_after(node: &mut Map<String, Value>, anchor: &str, key: &str, value: Value) {
    if let Some(slot) = node.get_mut(key) {
        *slot = value;
        return;
    }
    if !node.contains_key(anchor) {
        node.insert(key.to_owned(), value);
        return;
    }
    let old = std::mem::take(node);
    let mut value = Some(value);
    for (k, v) in old {
        let at_anchor = k == anchor;
        node.insert(k, v);
        if at_anchor && let Some(value) = value.take() {
            node.insert(key.to_owned(), value);
        }
    }
}

/// Sets `key` in `node`: in place when present, else first.
pub fn put_first(node: &mut Map<String, Value>, key: &str, value: Value) {
    if let Some(slot) = node.get_mut(key) {
        *slot = value;
        return;
    }
    let old = std::mem::take(node);
    node.insert(key.to_owned(), value);
    node.extend(old);
}

/// Gives an `enum` without a `type` the type its values share (with `"null"` when one is null).
pub fn infer_enum_type(node: &mut Map<String, Value>) {
    if node.contains_key("type") {
        return;
    }
    let Some(Value::Array(values)) = node.get("enum") else {
        return;
    };
    let Some(t) = common_type(values) else { return };
    let ty = if values.contains(&Value::Null) {
        json!([t, "null"])
    } else {
        json!(t)
    };
    put_first(node, "type", ty);
}

// ---------------------------------------------------------------------------------------------
// Helpers shared by the dialects.

/// Keywords that only document. A dialect without them states `examples` and `deprecated` in
/// the description and drops the rest, silently.
pub const ANNOTATIONS: &[&str] = &[
    "title",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$schema",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
];

/// Removes every keyword of `node` that `allowed` does not list: annotations as described by
/// [`ANNOTATIONS`], constraints moved into the description. (The implicit bounds of integers
/// are gone before any provider dialect runs: see [`Dialect::derive`].)
pub fn restrict(node: &mut Map<String, Value>, allowed: &[&str], cx: &mut Cx) {
    let keys: Vec<String> = node.keys().cloned().collect();
    for key in keys {
        if key == "description" || allowed.contains(&key.as_str()) {
            continue;
        }
        if ANNOTATIONS.contains(&key.as_str()) {
            drop_annotation(node, &key);
        } else {
            cx.move_keyword(node, &key);
        }
    }
}

/// Whether `keyword` of `node` is the bound an `integer` gets for its Rust type, `i64` (see
/// `schema::field_schema`): `minimum` of `i64::MIN` or `maximum` of `i64::MAX` on an integer
/// schema. It is no constraint of the spec's, so provider dialects drop it without stating
/// it or warning; the invoker still enforces it.
pub fn is_implicit_bound(node: &Map<String, Value>, keyword: &str) -> bool {
    let bound = match keyword {
        "minimum" => I64_MIN,
        "maximum" => I64_MAX,
        _ => return false,
    };
    types_of(node).contains(&"integer") && node.get(keyword).and_then(Value::as_i64) == Some(bound)
}

/// Removes every implicit `i64` bound ([`is_implicit_bound`]) below and including `schema`.
fn drop_implicit_bounds(schema: &mut Value) {
    let Value::Object(node) = schema else { return };
    for keyword in ["minimum", "maximum"] {
        if is_implicit_bound(node, keyword) {
            node.remove(keyword);
        }
    }
    for_each_child(node, &mut |_, child| drop_implicit_bounds(child));
}

/// Removes an annotation, keeping what a model can use (`examples`, `deprecated`) as text.
pub fn drop_annotation(node: &mut Map<String, Value>, key: &str) {
    match (key, node.remove(key)) {
        ("examples", Some(Value::Array(examples))) if !examples.is_empty() => {
            let shown: Vec<String> = examples.iter().map(show).collect();
            let label = if examples.len() == 1 {
                "Example"
            } else {
                "Examples"
            };
            append_description(node, &format!("{label}: {}.", shown.join(", ")));
        }
        ("deprecated", Some(Value::Bool(true))) => prepend_description(node, "Deprecated."),
        _ => {}
    }
}

/// Appends a sentence to a schema's description (creating it).
pub fn append_description(node: &mut Map<String, Value>, sentence: &str) {
    let text = match node.get("description") {
        Some(Value::String(existing)) => join_sentences(existing, sentence),
        _ => sentence.to_owned(),
    };
    node.insert("description".into(), Value::String(text));
}

/// Puts a sentence before a schema's description (creating it).
pub fn prepend_description(node: &mut Map<String, Value>, sentence: &str) {
    let text = match node.get("description") {
        Some(Value::String(existing)) => join_sentences(sentence, existing),
        _ => sentence.to_owned(),
    };
    node.insert("description".into(), Value::String(text));
}

/// "A" + "B." → "A. B."; "A." + "B." → "A. B.".
pub fn join_sentences(first: &str, second: &str) -> String {
    let first = first.trim_end();
    let second = second.trim();
    if first.is_empty() {
        return second.to_owned();
    }
    if second.is_empty() {
        return first.to_owned();
    }
    if first.ends_with(['.', '!', '?', ':']) {
        format!("{first} {second}")
    } else {
        format!("{first}. {second}")
    }
}

/// A JSON value as shown in a sentence (compact JSON: strings quoted).
pub fn show(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| value.to_string())
}

fn list(values: &[Value]) -> String {
    let shown: Vec<String> = values.iter().map(show).collect();
    match shown.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

fn plural(n: &Value, one: &str, many: &str) -> String {
    if n.as_u64() == Some(1) {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// How a `format` is stated in a description.
pub fn format_phrase(format: &str) -> String {
    match format {
        "date-time" => "a date and time (RFC 3339, like 2024-05-01T12:00:00Z)".into(),
        "date" => "a date (YYYY-MM-DD)".into(),
        "time" => "a time of day (RFC 3339, like 12:00:00Z)".into(),
        "duration" => "an ISO 8601 duration (like P3D)".into(),
        "email" => "an email address".into(),
        "hostname" => "a hostname".into(),
        "ipv4" => "an IPv4 address".into(),
        "ipv6" => "an IPv6 address".into(),
        "uuid" => "a UUID".into(),
        "uri" => "an absolute URI".into(),
        other => format!("in the `{other}` format"),
    }
}

/// The sentence that states a constraint keyword in a description (`None`: nothing to state,
/// like `uniqueItems: false`).
pub fn constraint_sentence(keyword: &str, value: &Value) -> Option<String> {
    Some(match keyword {
        "minLength" => format!(
            "Must be at least {}.",
            plural(value, "character", "characters")
        ),
        "maxLength" => format!(
            "Must be at most {}.",
            plural(value, "character", "characters")
        ),
        "pattern" => format!(
            "Must match the regular expression `{}`.",
            value.as_str().unwrap_or_default()
        ),
        "format" => format!(
            "Must be {}.",
            format_phrase(value.as_str().unwrap_or_default())
        ),
        "minimum" => format!("Must be at least {value}."),
        "maximum" => format!("Must be at most {value}."),
        "exclusiveMinimum" => format!("Must be greater than {value}."),
        "exclusiveMaximum" => format!("Must be less than {value}."),
        "multipleOf" => format!("Must be a multiple of {value}."),
        "minItems" => format!("Must have at least {}.", plural(value, "item", "items")),
        "maxItems" => format!("Must have at most {}.", plural(value, "item", "items")),
        "uniqueItems" if value == &Value::Bool(true) => "Items must be unique.".into(),
        "uniqueItems" => return None,
        "minProperties" => format!(
            "Must have at least {}.",
            plural(value, "property", "properties")
        ),
        "maxProperties" => format!(
            "Must have at most {}.",
            plural(value, "property", "properties")
        ),
        "default" => format!("Defaults to {}.", show(value)),
        "const" => format!("Must be exactly {}.", show(value)),
        "enum" => match value {
            Value::Array(values) => format!("Must be one of {}.", list(values)),
            other => format!("Must be one of {}.", show(other)),
        },
        "oneOf" => "Must match exactly one of the alternatives.".into(),
        "not" => format!("Must not match the schema {}.", show(value)),
        "allOf" => format!("Must match every schema of {}.", show(value)),
        "additionalProperties" => match value {
            Value::Bool(false) => return None,
            Value::Bool(true) => return None,
            other => format!(
                "An object with free-form string keys; every value must match the schema {}.",
                show(other)
            ),
        },
        other => format!("Must satisfy `{other}`: {}.", show(value)),
    })
}

/// The JSON types a schema names in `type` (empty: none named).
pub fn types_of(node: &Map<String, Value>) -> Vec<&str> {
    match node.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether a schema describes an object (by `type`, or by having `properties`).
pub fn is_object(node: &Map<String, Value>) -> bool {
    types_of(node).contains(&"object") || node.contains_key("properties")
}

/// Whether a schema describes an array.
pub fn is_array(node: &Map<String, Value>) -> bool {
    types_of(node).contains(&"array")
}

/// Whether a schema says anything about its values' shape: a type, a reference, a union or a
/// value list. A schema without any accepts every JSON value.
pub fn constrains_shape(node: &Map<String, Value>) -> bool {
    ["type", "$ref", "anyOf", "oneOf", "enum", "const"]
        .iter()
        .any(|k| node.contains_key(*k))
}

/// The JSON type all `values` share, if they share one.
pub fn common_type(values: &[Value]) -> Option<&'static str> {
    let kind = |v: &Value| match v {
        Value::String(_) => Some("string"),
        Value::Bool(_) => Some("boolean"),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some("integer"),
        Value::Number(_) => Some("number"),
        _ => None,
    };
    let mut kinds = values.iter().filter(|v| !v.is_null()).map(kind);
    let first = kinds.next()??;
    let mut out = first;
    for k in kinds {
        match (out, k?) {
            (a, b) if a == b => {}
            ("integer", "number") | ("number", "integer") => out = "number",
            _ => return None,
        }
    }
    Some(out)
}

/// `const: V` → `enum: [V]` with the type of `V` (exact in every dialect with `enum`).
pub fn const_to_enum(node: &mut Map<String, Value>) {
    let Some(value) = node.remove("const") else {
        return;
    };
    if !node.contains_key("type")
        && let Some(t) = common_type(std::slice::from_ref(&value))
    {
        node.insert("type".into(), json!(t));
    }
    node.insert("enum".into(), Value::Array(vec![value]));
}

/// Renames `oneOf` to `anyOf`, stating the exclusivity in the description.
pub fn one_of_to_any_of(node: &mut Map<String, Value>, cx: &mut Cx) {
    if !node.contains_key("oneOf") {
        return;
    }
    if node.contains_key("anyOf") {
        cx.move_keyword(node, "oneOf");
        return;
    }
    if let Some(branches) = node.remove("oneOf") {
        node.insert("anyOf".into(), branches);
        cx.state(node, "oneOf", "Must match exactly one of the alternatives.");
    }
}

/// Strict dialects: every object closed with `additionalProperties: false`. An object with
/// free-form keys (a map, or no properties at all) cannot be expressed; an open object with
/// properties is closed, with a warning.
pub fn close_object(node: &mut Map<String, Value>, dialect: Dialect, cx: &mut Cx) {
    if !is_object(node) {
        return;
    }
    if types_of(node).is_empty() {
        node.insert("type".into(), json!("object"));
    }
    let has_properties = matches!(node.get("properties"), Some(Value::Object(p)) if !p.is_empty());
    match node.get("additionalProperties") {
        Some(Value::Bool(false)) => {}
        Some(Value::Object(values)) if !values.is_empty() => cx.refuse(format!(
            "it is a map (an object with free-form keys), and {dialect} needs `additionalProperties: false` on every object"
        )),
        _ if !has_properties => cx.refuse(format!(
            "it is an object with free-form keys, and {dialect} needs `additionalProperties: false` on every object"
        )),
        _ => cx.record(
            "additionalProperties",
            Some(
                "closes the open object `{}` with `additionalProperties: false`: the model can send only its listed properties"
                    .into(),
            ),
        ),
    }
    node.insert("additionalProperties".into(), Value::Bool(false));
}

/// The types JSON Schema knows.
pub const JSON_TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// Whether `type`, `enum` and `items` (when present) have the form JSON Schema gives them.
pub fn is_well_formed(node: &Map<String, Value>) -> bool {
    let known = |t: &Value| t.as_str().is_some_and(|t| JSON_TYPES.contains(&t));
    let type_ok = match node.get("type") {
        None => true,
        Some(t @ Value::String(_)) => known(t),
        Some(Value::Array(list)) => !list.is_empty() && list.iter().all(known),
        Some(_) => false,
    };
    let enum_ok = node.get("enum").is_none_or(Value::is_array);
    let items_ok = node
        .get("items")
        .is_none_or(|i| i.is_object() || i.is_boolean());
    type_ok && enum_ok && items_ok
}

/// Strict dialects need every schema to say what it accepts, in the usual form.
pub fn refuse_any(node: &Map<String, Value>, dialect: Dialect, cx: &mut Cx) {
    if !is_well_formed(node) {
        cx.refuse(format!(
            "its `type`, `enum` or `items` is not written the way {dialect} takes it (a type name or list of them, a list of values, one schema)"
        ));
    } else if !constrains_shape(node) {
        cx.refuse(format!(
            "it accepts any JSON value, and {dialect} needs a `type` on every schema"
        ));
    } else if is_array(node) && !node.contains_key("items") {
        cx.refuse(format!(
            "it is an array whose items can be anything, and {dialect} needs a schema for `items`"
        ));
    }
}

/// Resolves a local `$ref` (`#`, `#/$defs/Name`, any JSON pointer below `#`) against `root`.
pub fn resolve_ref<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

/// The name a `$ref` is shown with (`#/$defs/Tree` → `Tree`, `#` → the tool's input).
pub fn ref_name(reference: &str) -> String {
    match reference.rsplit_once('/') {
        Some((_, name)) if !name.is_empty() => name.replace("~1", "/").replace("~0", "~"),
        _ => "the tool's input".into(),
    }
}

/// The schema a reference stands for, with the reference's siblings merged over it: siblings
/// win, except that descriptions are joined (the site's first, then the target's).
pub fn merge_over(target: &Value, siblings: Map<String, Value>) -> Map<String, Value> {
    let mut out = match target {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    out.remove("$defs");
    out.remove("definitions");
    for (key, value) in siblings {
        match (key.as_str(), out.get("description"), &value) {
            ("description", Some(Value::String(inner)), Value::String(outer)) => {
                let joined = join_sentences(outer, inner);
                out.insert(key, Value::String(joined));
            }
            _ => {
                out.insert(key, value);
            }
        }
    }
    out
}

/// The first `$ref` that leads back into a schema it is inside of: its path and the name of
/// the type it refers to.
pub fn find_recursion(root: &Value) -> Option<(Vec<Seg>, String)> {
    fn go(
        value: &Value,
        root: &Value,
        stack: &mut Vec<String>,
        path: &mut Vec<Seg>,
        budget: &mut usize,
    ) -> Option<(Vec<Seg>, String)> {
        let Value::Object(node) = value else {
            return None;
        };
        *budget = budget.checked_sub(1)?;
        if let Some(Value::String(reference)) = node.get("$ref") {
            if stack.contains(reference) {
                return Some((path.clone(), ref_name(reference)));
            }
            if let Some(target) = resolve_ref(root, reference) {
                stack.push(reference.clone());
                let found = go(target, root, stack, path, budget);
                stack.pop();
                if found.is_some() {
                    return found;
                }
            }
        }
        for (segs, child) in children(node) {
            if matches!(segs.first(), Some(Seg::Def(_))) {
                continue;
            }
            let n = segs.len();
            path.extend(segs);
            let found = go(child, root, stack, path, budget);
            path.truncate(path.len() - n);
            if found.is_some() {
                return found;
            }
        }
        None
    }
    let mut budget = 100_000;
    go(
        root,
        root,
        &mut vec!["#".to_owned()],
        &mut Vec::new(),
        &mut budget,
    )
}

// ---------------------------------------------------------------------------------------------
// Tools: membership, diagnostics, native tool definitions.

/// The dialect a tool is shown in on `binding`'s adapter, by its effective settings there.
pub fn binding_dialect(binding: &Binding, config: &ProjectConfig) -> Dialect {
    match config.adapter(&binding.adapter) {
        Some(adapter) => Dialect::for_member(
            &binding.adapter,
            &Settings::new(&adapter.decl, &binding.settings),
        ),
        None => Dialect::Mcp,
    }
}

/// The dialects a tool is a member of: one per adapter binding, and always `mcp`.
pub fn member_dialects(tool: &Tool, config: &ProjectConfig) -> BTreeSet<Dialect> {
    let mut out: BTreeSet<Dialect> = tool
        .bindings
        .iter()
        .map(|b| binding_dialect(b, config))
        .collect();
    out.insert(Dialect::Mcp);
    out
}

/// Where a path through a tool's input schema is written in the specs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// Display path of the file.
    pub file: String,
    /// The field's key (None: the whole tool).
    pub span: Option<Span>,
    /// How the field is named in messages (`lines[].sku`, `Address.zip`).
    pub display: String,
}

/// Whether a nullable field's schema is wrapped as `anyOf: [SCHEMA, {type: null}]` (see
/// `schema::field_schema`) rather than given a `["T", "null"]` type.
fn wrapped(field: &Field) -> bool {
    if !field.nullable {
        return false;
    }
    match &field.ty {
        FieldType::AnyOf { .. } | FieldType::Named(_) => true,
        FieldType::Shape { schema, .. } => !matches!(schema.get("type"), Some(Value::String(_))),
        _ => false,
    }
}

/// Maps a path through `spec`'s canonical input schema back to the field it came from.
pub fn locate(spec: &ToolSpec, types: &Types, path: &[Seg]) -> Location {
    locate_in(&spec.file, &spec.expects, types, path)
}

/// Maps a path through the schema of the fields `roots` (written in `file`), or from a
/// definition (a path starting with [`Seg::Def`]), back to the field it came from.
pub fn locate_in(file: &str, roots: &[Field], types: &Types, path: &[Seg]) -> Location {
    struct State<'a> {
        file: String,
        display: String,
        field: Option<&'a Field>,
        pending: bool,
    }
    impl<'a> State<'a> {
        fn enter(&mut self, field: &'a Field) {
            self.field = Some(field);
            self.pending = wrapped(field);
        }
        fn extend(&mut self, seg: &Seg) {
            match seg {
                Seg::Prop(name) if self.display.is_empty() => self.display = name.clone(),
                Seg::Prop(name) => self.display = format!("{}.{name}", self.display),
                Seg::Items => self.display.push_str("[]"),
                Seg::Values => self.display.push_str(".*"),
                _ => {}
            }
        }
    }
    let mut state = State {
        file: file.to_owned(),
        display: String::new(),
        field: None,
        pending: false,
    };
    for seg in path {
        if let Seg::Def(name) = seg {
            if let Some(named) = types.get(name) {
                state.file = named.file.clone();
                state.display = name.clone();
                state.enter(&named.field);
            }
            continue;
        }
        if let Seg::Keyword(_) = seg {
            state.pending = false;
            continue;
        }
        let Some(mut field) = state.field else {
            state.extend(seg);
            if let Seg::Prop(name) = seg
                && let Some(f) = roots.iter().find(|f| !f.ambient && f.name == *name)
            {
                state.enter(f);
            }
            continue;
        };
        if state.pending {
            state.pending = false;
            if matches!(seg, Seg::Branch(_)) {
                continue;
            }
        }
        // Step into named types (a `$ref` site continues with the type's own schema).
        let mut hops = 0;
        while let FieldType::Named(name) = &field.ty
            && let Some(named) = types.get(name)
            && hops < 64
        {
            hops += 1;
            state.file = named.file.clone();
            state.display = name.clone();
            field = &named.field;
        }
        state.field = Some(field);
        if wrapped(field) && matches!(seg, Seg::Branch(_)) && hops > 0 {
            continue;
        }
        state.extend(seg);
        match (seg, &field.ty) {
            (Seg::Prop(name), FieldType::Object(fields)) => {
                if let Some(f) = fields.iter().find(|f| f.name == *name) {
                    state.enter(f);
                }
            }
            (Seg::Items, FieldType::Array(inner)) | (Seg::Values, FieldType::Map(inner)) => {
                state.enter(inner)
            }
            (Seg::Branch(i), FieldType::AnyOf { variants, .. }) => {
                if let Some(v) = variants.get(*i) {
                    state.enter(&v.field);
                }
            }
            _ => {}
        }
    }
    Location {
        file: state.file,
        span: state.field.map(|f| f.span),
        display: state.display,
    }
}

/// Anthropic's per-request limit of strict tools.
const ANTHROPIC_STRICT_TOOLS: usize = 20;

/// What makes two warnings the same: dialect, file, line and column, keyword, field.
type WarningKey = (Dialect, String, Option<(u32, u32)>, String, String);

/// Derives every tool's member dialects into [`Tool::dialects`]; constraints moved into
/// descriptions become warnings, schemas a member dialect cannot express become errors.
pub fn apply(
    tools: &mut [Tool],
    config: &ProjectConfig,
    types: &Types,
    diagnostics: &mut Vec<Diagnostic>,
) {
    // One warning per (dialect, place, keyword, field), noting every tool it concerns when the
    // place is in a types file.
    let mut warned: BTreeMap<WarningKey, usize> = BTreeMap::new();
    let mut warnings: Vec<(Diagnostic, Vec<String>)> = Vec::new();
    let mut anthropic_strict: Vec<(String, usize, usize)> = Vec::new();
    for tool in tools.iter_mut() {
        let mut dialects = BTreeMap::new();
        for dialect in member_dialects(tool, config) {
            let derived = derive(dialect, &tool.input_schema);
            for moved in &derived.moved {
                let at = locate(&tool.spec, types, &moved.path);
                let key = (
                    dialect,
                    at.file.clone(),
                    at.span.map(|s| (s.start.line, s.start.col)),
                    moved.keyword.clone(),
                    at.display.clone(),
                );
                let index = *warned.entry(key).or_insert_with(|| {
                    warnings.push((moved_warning(dialect, moved, &at, tool), Vec::new()));
                    warnings.len() - 1
                });
                let users = &mut warnings[index].1;
                if at.file != tool.spec.file && !users.contains(&tool.name) {
                    users.push(tool.name.clone());
                }
            }
            for refusal in &derived.refusals {
                let at = locate(&tool.spec, types, &refusal.path);
                diagnostics.push(refusal_error(dialect, refusal, &at, tool));
            }
            if dialect == Dialect::AnthropicStrict && derived.is_expressible() {
                let (optional, unions) = anthropic::parameter_counts(&derived.schema);
                anthropic_strict.push((tool.spec.file.clone(), optional, unions));
            }
            // `mcp` is the canonical schema itself: the descriptor does not repeat it.
            if derived.is_expressible() && dialect != Dialect::Mcp {
                dialects.insert(dialect, derived.schema);
            }
        }
        tool.dialects = dialects;
    }
    for (mut warning, users) in warnings {
        if !users.is_empty() {
            let quoted: Vec<String> = users.iter().map(|u| format!("`{u}`")).collect();
            let plural = if users.len() == 1 { "" } else { "s" };
            warning = warning.with_note(format!("used by tool{plural} {}", quoted.join(", ")));
        }
        diagnostics.push(warning);
    }
    if let Some((file, _, _)) = anthropic_strict.get(ANTHROPIC_STRICT_TOOLS) {
        diagnostics.push(
            Diagnostic::warning(
                file.clone(),
                None,
                format!(
                    "{} tools use Anthropic strict mode, but one request may carry at most {ANTHROPIC_STRICT_TOOLS} strict tools",
                    anthropic_strict.len()
                ),
            )
            .with_help("send a subset of the tools per request, or turn `strict` off for some of them"),
        );
    }
    let optional: usize = anthropic_strict.iter().map(|t| t.1).sum();
    let unions: usize = anthropic_strict.iter().map(|t| t.2).sum();
    if let Some((file, _, _)) = anthropic_strict.first()
        && anthropic_strict.len() > 1
        && (optional > anthropic::MAX_OPTIONAL || unions > anthropic::MAX_UNIONS)
    {
        diagnostics.push(
            Diagnostic::warning(
                file.clone(),
                None,
                format!(
                    "the tools in Anthropic strict mode have {optional} optional parameters and {unions} parameters with `anyOf` or type lists; one request may carry at most {} and {}",
                    anthropic::MAX_OPTIONAL,
                    anthropic::MAX_UNIONS
                ),
            )
            .with_help("send a subset of the tools per request, or turn `strict` off for some of them"),
        );
    }
}

fn moved_warning(dialect: Dialect, moved: &Moved, at: &Location, tool: &Tool) -> Diagnostic {
    let field = if at.display.is_empty() {
        format!("tool `{}`", tool.name)
    } else {
        format!("`{}`", at.display)
    };
    let message = match &moved.what {
        Some(what) => format!("{dialect} {}", what.replace("`{}`", &field)),
        None => format!(
            "{dialect} cannot express `{}` of {field}; it is stated in the description instead",
            moved.keyword
        ),
    };
    Diagnostic::warning(at.file.clone(), at.span, message)
}

fn refusal_error(dialect: Dialect, refusal: &Refusal, at: &Location, tool: &Tool) -> Diagnostic {
    let subject = if at.display.is_empty() {
        format!("tool `{}`", tool.name)
    } else {
        format!("`{}`", at.display)
    };
    let mut d = Diagnostic::error(
        at.file.clone(),
        at.span,
        format!(
            "{subject} cannot be expressed in {dialect}: {}",
            refusal.reason
        ),
    );
    if at.span.is_some() {
        d.label = Some(format!("not expressible in {dialect}"));
    }
    if at.file != tool.spec.file {
        let mode = if dialect.is_strict() {
            ", in strict mode"
        } else {
            ""
        };
        d = d.with_note(format!(
            "tool `{}` ({}) is a member of {}{mode}",
            tool.name,
            tool.spec.file,
            dialect.adapter()
        ));
    }
    let what = if at.display.is_empty() {
        "tool"
    } else {
        "field"
    };
    d.with_help(match dialect {
        Dialect::OpenAiStrict | Dialect::AnthropicStrict => format!(
            "change the {what}, or turn strict mode off for this tool: `tool: {{ {}: {{ strict: false }} }}`",
            dialect.adapter()
        ),
        _ => format!(
            "change the {what}, or leave the tool out of {0}: `tool: {{ except: [{0}] }}`",
            dialect.adapter()
        ),
    })
}

/// Adapter names that pass a tool's canonical name without checking it against their own rule:
/// reports every member whose (canonical) name the adapter's transport rejects. Per-adapter
/// `name:` overrides are checked where they are written.
pub fn check_names(tools: &[Tool], config: &ProjectConfig, diagnostics: &mut Vec<Diagnostic>) {
    for tool in tools {
        for binding in &tool.bindings {
            let overridden = tool
                .spec
                .tool
                .options
                .iter()
                .any(|o| o.adapter.value == binding.adapter && o.name.is_some());
            let Some(adapter) = config.adapter(&binding.adapter) else {
                continue;
            };
            if overridden {
                continue;
            }
            if let Err(reason) = adapter.decl.name_rule.check(&binding.name) {
                let span = tool.spec.name.as_ref().map(|n| n.span);
                let mut d = Diagnostic::error(
                    tool.spec.file.clone(),
                    span,
                    format!(
                        "tool name `{}` is not valid on adapter `{}`",
                        binding.name, binding.adapter
                    ),
                )
                .with_note(reason)
                .with_help(format!(
                    "give the tool another name there: `tool: {{ {}: {{ name: … }} }}`",
                    binding.adapter
                ));
                if span.is_some() {
                    d.label = Some(format!("rejected by `{}`", binding.adapter));
                }
                diagnostics.push(d);
            }
        }
    }
}

/// One tool's definition as `dialect`'s provider takes it in a request's `tools` field:
/// - `openai`, `openai-strict`: Chat Completions `{"type": "function", "function": {name,
///   description, parameters, strict}}`, `strict` always sent;
/// - `anthropic`: `{name, description, input_schema}`, plus `"strict": true` for
///   `anthropic-strict`;
/// - `gemini`: a `FunctionDeclaration` `{name, description, parameters}`, without
///   `parameters` when the tool takes none;
/// - `mcp`: `{name, title, description, inputSchema, outputSchema}`.
pub fn native_tool(dialect: Dialect, name: &str, tool: &Tool, parameters: &Value) -> Value {
    let description = &tool.description;
    match dialect {
        Dialect::OpenAi | Dialect::OpenAiStrict => json!({
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": parameters,
                "strict": dialect == Dialect::OpenAiStrict,
            }
        }),
        Dialect::Anthropic => json!({
            "name": name,
            "description": description,
            "input_schema": parameters,
        }),
        Dialect::AnthropicStrict => json!({
            "name": name,
            "description": description,
            "input_schema": parameters,
            "strict": true,
        }),
        Dialect::Gemini => {
            let mut out = Map::new();
            out.insert("name".into(), json!(name));
            out.insert("description".into(), json!(description));
            if !parameters.is_null() {
                out.insert("parameters".into(), parameters.clone());
            }
            Value::Object(out)
        }
        Dialect::Mcp => {
            let mut out = Map::new();
            out.insert("name".into(), json!(name));
            if let Some(title) = &tool.spec.title {
                out.insert("title".into(), json!(title));
            }
            out.insert("description".into(), json!(description));
            out.insert("inputSchema".into(), parameters.clone());
            out.insert("outputSchema".into(), tool.output_schema.clone());
            Value::Object(out)
        }
    }
}

/// The native tool definitions of every tool shown in `dialect` on its adapter (members of
/// `dialect.adapter()` whose `strict` setting selects this dialect), sorted by their name
/// there. Tools whose dialect was not derived (a project with errors) are left out.
pub fn native_tools(tools: &[Tool], config: &ProjectConfig, dialect: Dialect) -> Vec<Value> {
    let mut rows: Vec<(&str, Value)> = tools
        .iter()
        .filter_map(|tool| {
            let binding = tool
                .bindings
                .iter()
                .find(|b| b.adapter == dialect.adapter())?;
            if binding_dialect(binding, config) != dialect {
                return None;
            }
            let parameters = match dialect {
                Dialect::Mcp => &tool.input_schema,
                _ => tool.dialects.get(&dialect)?,
            };
            Some((
                binding.name.as_str(),
                native_tool(dialect, &binding.name, tool, parameters),
            ))
        })
        .collect();
    rows.sort_by(|a, b| a.0.cmp(b.0));
    rows.into_iter().map(|(_, v)| v).collect()
}
