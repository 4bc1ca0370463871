//! What the catalog shows of a schema: one row per field (nested objects as `order.id`,
//! array items as `lines[].sku`, named types followed), with its type and constraints in
//! words and whether it is `sensitive` (as the tool's sensitivity map says); and an example
//! value that the schema accepts, for the example calls.

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::schema::sensitive::Sensitivity;

/// The most rows one table shows, and how deep it goes: a hostile schema stays a page.
const MAX_ROWS: usize = 200;
const MAX_DEPTH: usize = 6;

/// One field of an input or output table.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FieldRow {
    /// `order.lines[].sku`.
    pub(crate) name: String,
    /// `integer`, `string (date-time)`, `array of object`…
    pub(crate) kind: String,
    pub(crate) required: bool,
    /// `≥ 1`, `at most 500 characters`, `one of: a, b`, `default: x`…
    pub(crate) constraints: String,
    /// Kept out of audit records, logs and error messages (`sensitive: true`, or inside such a
    /// value).
    pub(crate) sensitive: bool,
    pub(crate) description: String,
}

/// The rows of `schema` (an object's properties, and theirs, in order), each marked sensitive
/// where `sensitivity` (the tool's map for this schema) says so.
pub(crate) fn rows(schema: &Value, sensitivity: &Sensitivity) -> Vec<FieldRow> {
    let mut out = Vec::new();
    let mut walker = Walk {
        root: schema,
        sensitivity,
        pointer: Vec::new(),
        out: &mut out,
    };
    walker.walk(schema, "", 0);
    out
}

/// One walk of a schema's fields: where it is (the pointer an argument's value would have:
/// an item is `0`), and the rows so far.
struct Walk<'a> {
    root: &'a Value,
    sensitivity: &'a Sensitivity,
    pointer: Vec<String>,
    out: &'a mut Vec<FieldRow>,
}

impl Walk<'_> {
    fn walk(&mut self, schema: &Value, prefix: &str, depth: usize) {
        let root = self.root;
        let schema = resolve(root, schema);
        let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
            return;
        };
        let required: Vec<&str> = (schema.get("required").and_then(Value::as_array))
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        for (name, field) in properties {
            if self.out.len() >= MAX_ROWS || depth >= MAX_DEPTH {
                return;
            }
            let field = resolve(root, field);
            let path = format!("{prefix}{name}");
            self.pointer.push(name.clone());
            self.out.push(FieldRow {
                name: path.clone(),
                kind: kind(root, field),
                required: required.contains(&name.as_str()),
                constraints: constraints(field),
                sensitive: self.sensitivity.covers(&self.pointer),
                description: text(field, "description"),
            });
            self.walk(field, &format!("{path}."), depth + 1);
            if let Some(items) = field.get("items") {
                self.pointer.push("0".to_owned());
                self.walk(items, &format!("{path}[]."), depth + 1);
                self.pointer.pop();
            }
            self.pointer.pop();
        }
    }
}

/// A schema with its `$ref` into the root's `$defs` followed (a few steps at most).
fn resolve<'a>(root: &'a Value, mut schema: &'a Value) -> &'a Value {
    for _ in 0..8 {
        let found = (schema.get("$ref").and_then(Value::as_str))
            .and_then(|r| r.strip_prefix("#/$defs/"))
            .and_then(|name| root.get("$defs")?.get(name));
        match found {
            Some(found) => schema = found,
            None => break,
        }
    }
    schema
}

/// The type in words.
fn kind(root: &Value, schema: &Value) -> String {
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let nullable = types.contains(&"null");
    let mut named: Vec<String> = types
        .iter()
        .filter(|t| **t != "null")
        .map(|t| match (*t, schema.get("format"), schema.get("items")) {
            ("array", _, Some(items)) => format!("array of {}", kind(root, resolve(root, items))),
            (t, Some(Value::String(format)), _) => format!("{t} ({format})"),
            (t, _, _) => t.to_owned(),
        })
        .collect();
    if named.is_empty() {
        let variants = (schema.get("anyOf").or(schema.get("oneOf"))).and_then(Value::as_array);
        named = match variants {
            Some(variants) => vec![
                variants
                    .iter()
                    .map(|v| kind(root, resolve(root, v)))
                    .collect::<Vec<_>>()
                    .join(" or "),
            ],
            None => vec!["any JSON".to_owned()],
        };
    }
    let mut out = named.join(" or ");
    if nullable {
        out.push_str(" or null");
    }
    out
}

/// The constraints in words.
fn constraints(schema: &Value) -> String {
    let mut out: Vec<String> = Vec::new();
    let number = |key: &str| schema.get(key).filter(|v| v.is_number());
    for (key, words) in [
        ("minimum", "≥"),
        ("exclusiveMinimum", ">"),
        ("maximum", "≤"),
        ("exclusiveMaximum", "<"),
        ("multipleOf", "a multiple of"),
    ] {
        if let Some(v) = number(key) {
            out.push(format!("{words} {v}"));
        }
    }
    for (key, bound, unit) in [
        ("minLength", "at least", "character"),
        ("maxLength", "at most", "character"),
        ("minItems", "at least", "item"),
        ("maxItems", "at most", "item"),
    ] {
        if let Some(v) = number(key) {
            let plural = if v.as_u64() == Some(1) { "" } else { "s" };
            out.push(format!("{bound} {v} {unit}{plural}"));
        }
    }
    if schema.get("uniqueItems") == Some(&Value::Bool(true)) {
        out.push("items unique".to_owned());
    }
    if let Some(Value::String(pattern)) = schema.get("pattern") {
        out.push(format!("matches {pattern}"));
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        let listed: Vec<String> = values.iter().map(Value::to_string).collect();
        out.push(format!("one of: {}", listed.join(", ")));
    }
    if let Some(value) = schema.get("const") {
        out.push(format!("always {value}"));
    }
    if let Some(value) = schema.get("default") {
        out.push(format!("default: {value}"));
    }
    out.join("; ")
}

/// `schema[key]` as text (empty without one).
fn text(schema: &Value, key: &str) -> String {
    schema
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// A value `schema` accepts, for an example call: the field's own example or default where
/// it gives one, else its first allowed value, else one of its type within its bounds (an
/// object with its required properties only).
pub(crate) fn example(root: &Value, schema: &Value, depth: usize) -> Value {
    let schema = resolve(root, schema);
    if let Some(Value::Array(examples)) = schema.get("examples")
        && let Some(first) = examples.first()
    {
        return first.clone();
    }
    for key in ["default", "const"] {
        if let Some(value) = schema.get(key) {
            return value.clone();
        }
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|v| v.first())
    {
        return first.clone();
    }
    if depth >= MAX_DEPTH {
        return Value::Null;
    }
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(ts)) => (ts.iter().filter_map(Value::as_str))
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ => {
            let variants = (schema.get("anyOf").or(schema.get("oneOf"))).and_then(Value::as_array);
            return match variants.and_then(|v| v.first()) {
                Some(first) => example(root, first, depth + 1),
                None => Value::Null,
            };
        }
    };
    let lower = |key: &str| schema.get(key).and_then(Value::as_f64);
    match ty {
        "integer" => json!(lower("minimum").map_or(1, |m| m.ceil() as i64)),
        "number" => json!(lower("minimum").unwrap_or(1.5)),
        "boolean" => json!(true),
        "string" => Value::String(
            match schema.get("format").and_then(Value::as_str) {
                Some("date") => "2026-01-31",
                Some("date-time") => "2026-01-31T09:30:00Z",
                Some("uuid") => "0b7d6f64-5c1e-4c8e-9a57-3f2d1c0e9b8a",
                Some("email") => "ada@example.com",
                Some("uri") => "https://example.com/",
                _ => "text",
            }
            .to_owned(),
        ),
        "array" => {
            let count = lower("minItems").map_or(1, |n| n.max(1.0) as usize).min(3);
            let item = schema.get("items").cloned().unwrap_or(Value::Null);
            Value::Array(vec![example(root, &item, depth + 1); count])
        }
        "object" => {
            let mut object = Map::new();
            let required: Vec<&str> = (schema.get("required").and_then(Value::as_array))
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
                for (name, field) in properties
                    .iter()
                    .filter(|(n, _)| required.contains(&n.as_str()))
                {
                    object.insert(name.clone(), example(root, field, depth + 1));
                }
            }
            Value::Object(object)
        }
        _ => Value::Null,
    }
}
