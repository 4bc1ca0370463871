//! Wire-value coercion: what models commonly send in place of what the schema says, turned
//! into what it says before validation. Documented and deliberately small:
//!
//! - a string holding a number, where the schema wants an `integer` or `number` (`"42"` → `42`);
//! - a number without a fractional part, where the schema wants an `integer` (`3.0` → `3`: the
//!   schema already accepts it, the typed `i64` would not);
//! - `"true"` / `"false"`, where it wants a `boolean`;
//! - a number, where it wants a `string` (`9.99` → `"9.99"`, e.g. for `decimal` fields);
//! - a `uuid` in any form the uuid crate reads (braced, URN, upper case) → hyphenated lower case;
//! - a `date-time` with a space instead of `T`, or a lower-case `z` → RFC 3339.
//!
//! Anything else is left alone for validation to judge.

use serde_json::{Map, Value};

/// Coerces `value` in place following `schema`; `root` resolves local `$ref`s.
pub fn coerce(value: &mut Value, schema: &Value, root: &Value) {
    coerce_at(value, schema, root, 0);
}

fn coerce_at(value: &mut Value, schema: &Value, root: &Value, depth: usize) {
    if depth > 64 {
        return;
    }
    let Some(schema) = schema.as_object() else {
        return;
    };
    if let Some(Value::String(reference)) = schema.get("$ref") {
        if let Some(target) = resolve(reference, root) {
            coerce_at(value, target, root, depth + 1);
        }
        return;
    }
    if let Some(Value::Array(branches)) = schema.get("anyOf") {
        // Only coerce when exactly one branch accepts the coerced value's type.
        if let [only] = branches
            .iter()
            .filter(|b| !is_null_schema(b))
            .collect::<Vec<_>>()
            .as_slice()
        {
            coerce_at(value, only, root, depth + 1);
        }
        return;
    }
    let types = types_of(schema);
    match value {
        Value::String(text) => {
            if let Some(coerced) = from_string(text, &types, schema) {
                *value = coerced;
            }
        }
        Value::Number(n)
            if n.is_f64() && types.contains(&"integer") && !types.contains(&"number") =>
        {
            // JSON Schema counts `3.0` (and `1e2`) as integers; serde's `i64` does not.
            if let Some(f) = n
                .as_f64()
                .filter(|f| f.fract() == 0.0 && (i64::MIN as f64..-(i64::MIN as f64)).contains(f))
            {
                *value = Value::from(f as i64);
            }
        }
        Value::Number(n)
            if types.contains(&"string")
                && !types.iter().any(|t| *t == "number" || *t == "integer") =>
        {
            *value = Value::String(n.to_string());
        }
        Value::Object(map) => coerce_object(map, schema, root, depth),
        Value::Array(items) => {
            if let Some(item_schema) = schema.get("items") {
                for item in items {
                    coerce_at(item, item_schema, root, depth + 1);
                }
            }
        }
        _ => {}
    }
}

fn coerce_object(
    map: &mut Map<String, Value>,
    schema: &Map<String, Value>,
    root: &Value,
    depth: usize,
) {
    if let Some(Value::Object(properties)) = schema.get("properties") {
        for (key, value) in map.iter_mut() {
            if let Some(property) = properties.get(key) {
                coerce_at(value, property, root, depth + 1);
            }
        }
    } else if let Some(values) = schema.get("additionalProperties").filter(|v| v.is_object()) {
        for value in map.values_mut() {
            coerce_at(value, values, root, depth + 1);
        }
    }
}

fn from_string(text: &str, types: &[&str], schema: &Map<String, Value>) -> Option<Value> {
    let trimmed = text.trim();
    if types.contains(&"string") {
        return match schema.get("format").and_then(Value::as_str) {
            Some("uuid") => uuid::Uuid::parse_str(trimmed)
                .ok()
                .map(|u| Value::String(u.hyphenated().to_string()))
                .filter(|v| v.as_str() != Some(text)),
            Some("date-time") => {
                let fixed = normalize_datetime(trimmed);
                (fixed != text).then_some(Value::String(fixed))
            }
            _ => None,
        };
    }
    if types.contains(&"integer")
        && let Ok(i) = trimmed.parse::<i64>()
    {
        return Some(Value::from(i));
    }
    let numeric = types.contains(&"number") || types.contains(&"integer");
    let finite_text =
        !trimmed.eq_ignore_ascii_case("nan") && !trimmed.to_ascii_lowercase().contains("inf");
    if numeric
        && finite_text
        && let Ok(f) = trimmed.parse::<f64>()
        && f.is_finite()
    {
        if types.contains(&"integer") && !types.contains(&"number") {
            // "3.0" → 3 for integers; "3.5" stays a string and fails validation.
            if f.fract() == 0.0 && f.abs() < 9.0e15 {
                return Some(Value::from(f as i64));
            }
            return None;
        }
        return serde_json::Number::from_f64(f).map(Value::Number);
    }
    if types.contains(&"boolean") {
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
