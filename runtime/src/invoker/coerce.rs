//! Wire-value coercion: what models commonly send in place of what the schema says, turned
//! into what it says before validation. Documented and deliberately small:
//!
//! - a string holding a number, where the schema wants an `integer` or `number` (`"42"` → `42`);
//!   for an `integer`, the string of any `i64`, or of an integral number below 2^53 in
//!   magnitude in any other spelling (`"3.0"`, `"1e2"`);
//! - a number without a fractional part within the `i64` range, where the schema wants an
//!   `integer` (`3.0` → `3`: the schema already accepts it, the typed `i64` would not);
//! - `"true"` / `"false"`, where it wants a `boolean`;
//! - a number, where it wants a `string` (`9.99` → `"9.99"`, e.g. for `decimal` fields);
//! - a `uuid` in any form the uuid crate reads (braced, URN, upper case) → hyphenated lower case;
//! - a `date-time` with a space instead of `T`, or a lower-case `z` → RFC 3339.
//!
//! Anything else is left alone for validation to judge.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::keys::Keys;

/// How deep coercion follows a value (and `$ref`s); deeper parts are left to validation.
const MAX_DEPTH: usize = 64;

/// Coerces `value` in place following `schema`; `root` resolves local `$ref`s.
///
/// Compiles a [`Coercion`] on every call: the invoker compiles one per tool, once.
pub fn coerce(value: &mut Value, schema: &Value, root: &Value) {
    Coercion::compile(schema, root).apply(value);
}

/// The coercions a schema allows, compiled once: only the parts of the schema where a value
/// may need coercion, `$ref`s resolved (a recursive type refers to itself by index).
#[derive(Debug, Clone)]
pub struct Coercion {
    root: Plan,
    /// The plans of `$ref` targets, by index.
    refs: Vec<Plan>,
}

/// What may need coercion in one schema node.
#[derive(Debug, Clone, Default)]
enum Plan {
    /// Nothing: any value is left as it is.
    #[default]
    Skip,
    /// The plan of a `$ref` target.
    Ref(usize),
    /// A node with a type (or subschemas).
    Node(Box<Node>),
}

#[derive(Debug, Clone, Default)]
struct Node {
    wants: Wants,
    /// A string `format` coercion normalizes.
    format: Option<StringFormat>,
    /// Object properties, in schema order (empty when none may need coercion).
    properties: Keys,
    /// Their plans, by position.
    plans: Vec<Plan>,
    /// Whether the node has `properties` (then `values` does not apply, as in the schema walk).
    has_properties: bool,
    /// The values of a map (`additionalProperties` as a schema).
    values: Option<Plan>,
    /// Array items.
    items: Option<Plan>,
}

#[derive(Debug, Clone, Copy, Default)]
struct Wants {
    integer: bool,
    number: bool,
    boolean: bool,
    string: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum StringFormat {
    Uuid,
    DateTime,
}

impl Coercion {
    /// Compiles the coercions of `schema`; `root` resolves local `$ref`s.
    pub fn compile(schema: &Value, root: &Value) -> Self {
        let mut compiler = Compiler {
            root,
            indices: HashMap::new(),
            refs: Vec::new(),
        };
        let plan = compiler.plan(schema, 0);
        Self {
            root: plan,
            refs: compiler.refs,
        }
    }

    /// Whether no value can ever need coercion under this schema.
    pub fn is_noop(&self) -> bool {
        matches!(self.root, Plan::Skip)
    }

    /// Coerces `value` in place.
    pub fn apply(&self, value: &mut Value) {
        self.apply_at(value, &self.root, 0);
    }

    fn apply_at(&self, value: &mut Value, plan: &Plan, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let node = match plan {
            Plan::Skip => return,
            Plan::Ref(index) => return self.apply_at(value, &self.refs[*index], depth + 1),
            Plan::Node(node) => node,
        };
        let wants = node.wants;
        match value {
            Value::String(text) => {
                if let Some(coerced) = from_string(text, wants, node.format) {
                    *value = coerced;
                }
            }
            Value::Number(n) if n.is_f64() && wants.integer && !wants.number => {
                // JSON Schema counts `3.0` (and `1e2`) as integers; serde's `i64` does not.
                if let Some(f) = n.as_f64().filter(|f| {
                    f.fract() == 0.0 && (i64::MIN as f64..-(i64::MIN as f64)).contains(f)
                }) {
                    *value = Value::from(f as i64);
                }
            }
            Value::Number(n) if wants.string && !wants.number && !wants.integer => {
                *value = Value::String(n.to_string());
            }
            Value::Object(map) => self.apply_object(map, node, depth),
            Value::Array(items) => {
                if let Some(item) = &node.items {
                    for value in items {
                        self.apply_at(value, item, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }

    fn apply_object(&self, map: &mut Map<String, Value>, node: &Node, depth: usize) {
        if node.has_properties {
            if node.plans.is_empty() {
                return;
            }
            let mut next = 0;
            for (key, value) in map.iter_mut() {
                if let Some(i) = node.properties.find(key, next) {
                    self.apply_at(value, &node.plans[i], depth + 1);
                    next = i + 1;
                }
            }
        } else if let Some(values) = &node.values {
            for value in map.values_mut() {
                self.apply_at(value, values, depth + 1);
            }
        }
    }
}

struct Compiler<'a> {
    root: &'a Value,
    indices: HashMap<&'a str, usize>,
    refs: Vec<Plan>,
}

impl<'a> Compiler<'a> {
    fn plan(&mut self, schema: &'a Value, depth: usize) -> Plan {
        if depth > MAX_DEPTH {
            return Plan::Skip;
        }
        let Some(schema) = schema.as_object() else {
            return Plan::Skip;
        };
        if let Some(Value::String(reference)) = schema.get("$ref") {
            return self.reference(reference, depth);
        }
        if let Some(Value::Array(branches)) = schema.get("anyOf") {
            // Only coerce when exactly one branch accepts the coerced value's type.
            let mut rest = branches.iter().filter(|b| !is_null_schema(b));
            return match (rest.next(), rest.next()) {
                (Some(only), None) => self.plan(only, depth + 1),
                _ => Plan::Skip,
            };
        }
        let mut node = Node::default();
        for t in types_of(schema) {
            match t {
                "integer" => node.wants.integer = true,
                "number" => node.wants.number = true,
                "boolean" => node.wants.boolean = true,
                "string" => node.wants.string = true,
                _ => {}
            }
        }
        node.format = match schema.get("format").and_then(Value::as_str) {
            Some("uuid") => Some(StringFormat::Uuid),
            Some("date-time") => Some(StringFormat::DateTime),
            _ => None,
        };
        if let Some(Value::Object(properties)) = schema.get("properties") {
            node.has_properties = true;
            let plans: Vec<Plan> = properties
                .values()
                .map(|property| self.plan(property, depth + 1))
                .collect();
            if plans.iter().any(|p| !matches!(p, Plan::Skip)) {
                node.properties = Keys::new(properties.keys().cloned().collect());
                node.plans = plans;
            }
        } else if let Some(values) = schema.get("additionalProperties").filter(|v| v.is_object()) {
            node.values = Some(self.plan(values, depth + 1)).filter(|p| !matches!(p, Plan::Skip));
        }
        if let Some(items) = schema.get("items") {
            node.items = Some(self.plan(items, depth + 1)).filter(|p| !matches!(p, Plan::Skip));
        }
        let w = node.wants;
        let empty = !(w.integer || w.number || w.boolean || w.string)
            && node.plans.is_empty()
            && node.values.is_none()
            && node.items.is_none();
        if empty {
            Plan::Skip
        } else {
            Plan::Node(Box::new(node))
        }
    }

    fn reference(&mut self, reference: &'a str, depth: usize) -> Plan {
        if let Some(&index) = self.indices.get(reference) {
            return Plan::Ref(index);
        }
        let Some(target) = resolve(reference, self.root) else {
            return Plan::Skip;
        };
        let index = self.refs.len();
        self.refs.push(Plan::Skip);
        self.indices.insert(reference, index);
        let plan = self.plan(target, depth + 1);
        self.refs[index] = plan;
        Plan::Ref(index)
    }
}

fn from_string(text: &str, wants: Wants, format: Option<StringFormat>) -> Option<Value> {
    let trimmed = text.trim();
    if wants.string {
        return match format {
            Some(StringFormat::Uuid) => uuid::Uuid::parse_str(trimmed)
                .ok()
                .map(|u| Value::String(u.hyphenated().to_string()))
                .filter(|v| v.as_str() != Some(text)),
            Some(StringFormat::DateTime) => {
                let fixed = normalize_datetime(trimmed);
                (fixed != text).then_some(Value::String(fixed))
            }
            None => None,
        };
    }
    if wants.integer
        && let Ok(i) = trimmed.parse::<i64>()
    {
        return Some(Value::from(i));
    }
    let numeric = wants.number || wants.integer;
    let finite_text =
        !trimmed.eq_ignore_ascii_case("nan") && !trimmed.to_ascii_lowercase().contains("inf");
    if numeric
        && finite_text
        && let Ok(f) = trimmed.parse::<f64>()
        && f.is_finite()
    {
        if wants.integer && !wants.number {
            // "3.0" → 3 for integers, while the float is exact (below 2^53); "3.5" stays a
            // string and fails validation.
            if f.fract() == 0.0 && f.abs() < 9_007_199_254_740_992.0 {
                return Some(Value::from(f as i64));
            }
            return None;
        }
        return serde_json::Number::from_f64(f).map(Value::Number);
    }
    if wants.boolean {
        match trimmed {
            "true" => return Some(Value::Bool(true)),
            "false" => return Some(Value::Bool(false)),
            _ => {}
        }
    }
    None
}

fn normalize_datetime(text: &str) -> String {
    let mut out = text.to_owned();
    if out.len() > 10 && out.as_bytes().get(10) == Some(&b' ') {
        out.replace_range(10..11, "T");
    }
    if out.ends_with('z') {
        out.pop();
        out.push('Z');
    }
    out
}

fn types_of(schema: &Map<String, Value>) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn is_null_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("null")
}

/// Resolves `#/$defs/Name` (and any other local JSON pointer) against `root`.
pub fn resolve<'a>(reference: &str, root: &'a Value) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn run(value: Value, schema: Value) -> Value {
        let mut value = value;
        coerce(&mut value, &schema, &schema);
        value
    }

    #[test]
    fn numbers_booleans_and_strings() {
        let schema = json!({ "type": "object", "properties": {
            "i": { "type": "integer" }, "n": { "type": "number" }, "b": { "type": "boolean" },
            "s": { "type": "string" }, "opt": { "type": ["integer", "null"] }
        }});
        let out = run(
            json!({ "i": "42", "n": "2.5", "b": "true", "s": 9.99, "opt": "7" }),
            schema.clone(),
        );
        assert_eq!(
            out,
            json!({ "i": 42, "n": 2.5, "b": true, "s": "9.99", "opt": 7 })
        );
        let out = run(json!({ "i": "4.5", "b": "yes", "n": "NaN" }), schema);
        assert_eq!(
            out,
            json!({ "i": "4.5", "b": "yes", "n": "NaN" }),
            "not coercible: left for validation"
        );
    }

    #[test]
    fn refs_arrays_maps_and_formats() {
        let schema = json!({
            "type": "object",
            "properties": {
                "lines": { "type": "array", "items": { "$ref": "#/$defs/Line" } },
                "counts": { "type": "object", "additionalProperties": { "type": "integer" } },
                "id": { "type": "string", "format": "uuid" },
                "at": { "type": "string", "format": "date-time" }
            },
            "$defs": { "Line": { "type": "object", "properties": { "qty": { "type": "integer" } } } }
        });
        let out = run(
            json!({ "lines": [{ "qty": "3" }], "counts": { "a": "1" }, "id": "{67E55044-10B1-426F-9247-BB680E5FE0C8}", "at": "2026-01-02 03:04:05z" }),
            schema,
        );
        assert_eq!(
            out,
            json!({ "lines": [{ "qty": 3 }], "counts": { "a": 1 }, "id": "67e55044-10b1-426f-9247-bb680e5fe0c8", "at": "2026-01-02T03:04:05Z" })
        );
    }
}
