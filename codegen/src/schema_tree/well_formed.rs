//! Whether a JSON value is a well-formed JSON Schema 2020-12: every keyword the runtime's
//! validator reads holds the kind of value the meta-schema gives it (a schema, a list of
//! schemas, a non-negative integer…), at any depth. Unknown keywords are annotations and pass.
//! `shape`s are checked with it before typify or the validator ever see them; patterns are
//! checked apart (`crate::pattern`), and so is depth (`too_deep`, which must pass first: this
//! walk recurses once per level).

use serde_json::{Map, Value};

/// What a keyword's value must be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A schema: an object or a boolean.
    Schema,
    /// A non-empty array of schemas.
    Schemas,
    /// An object whose values are schemas.
    SchemaMap,
    /// A whole number, 0 or more.
    Count,
    /// A number.
    Number,
    /// A number greater than 0.
    Positive,
    /// A string.
    Text,
    /// An array of distinct strings.
    Names,
    /// An object whose values are arrays of distinct strings.
    NamesMap,
    /// `true` or `false`.
    Flag,
    /// An array.
    List,
    /// A JSON type name, or a non-empty array of distinct ones.
    Type,
}

/// The keywords of the 2020-12 vocabularies (core, applicator, unevaluated, validation,
/// meta-data, format, content) with what each holds.
const KEYWORDS: &[(&str, Kind)] = &[
    ("$id", Kind::Text),
    ("$schema", Kind::Text),
    ("$ref", Kind::Text),
    ("$anchor", Kind::Text),
    ("$dynamicRef", Kind::Text),
    ("$dynamicAnchor", Kind::Text),
    ("$comment", Kind::Text),
    ("$defs", Kind::SchemaMap),
    ("definitions", Kind::SchemaMap),
    ("allOf", Kind::Schemas),
    ("anyOf", Kind::Schemas),
    ("oneOf", Kind::Schemas),
    ("not", Kind::Schema),
    ("if", Kind::Schema),
    ("then", Kind::Schema),
    ("else", Kind::Schema),
    ("dependentSchemas", Kind::SchemaMap),
    ("prefixItems", Kind::Schemas),
    ("items", Kind::Schema),
    ("contains", Kind::Schema),
    ("properties", Kind::SchemaMap),
    ("patternProperties", Kind::SchemaMap),
    ("additionalProperties", Kind::Schema),
    ("propertyNames", Kind::Schema),
    ("unevaluatedItems", Kind::Schema),
    ("unevaluatedProperties", Kind::Schema),
    ("type", Kind::Type),
    ("enum", Kind::List),
    ("multipleOf", Kind::Positive),
    ("maximum", Kind::Number),
    ("exclusiveMaximum", Kind::Number),
    ("minimum", Kind::Number),
    ("exclusiveMinimum", Kind::Number),
    ("maxLength", Kind::Count),
    ("minLength", Kind::Count),
    ("pattern", Kind::Text),
    ("maxItems", Kind::Count),
    ("minItems", Kind::Count),
    ("uniqueItems", Kind::Flag),
    ("maxContains", Kind::Count),
    ("minContains", Kind::Count),
    ("maxProperties", Kind::Count),
    ("minProperties", Kind::Count),
    ("required", Kind::Names),
    ("dependentRequired", Kind::NamesMap),
    ("title", Kind::Text),
    ("description", Kind::Text),
    ("deprecated", Kind::Flag),
    ("readOnly", Kind::Flag),
    ("writeOnly", Kind::Flag),
    ("examples", Kind::List),
    ("format", Kind::Text),
    ("contentEncoding", Kind::Text),
    ("contentMediaType", Kind::Text),
    ("contentSchema", Kind::Schema),
];

/// The JSON type names `type` may hold.
const TYPES: &[&str] = &[
    "null", "boolean", "object", "array", "number", "string", "integer",
];

/// `Ok` when `schema` is a well-formed JSON Schema; else where it is not and why
/// (``at `/properties/kind/type`: `text` is not a JSON type …``).
pub(crate) fn well_formed(schema: &Value) -> Result<(), String> {
    check_schema(schema, &mut String::new())
}

fn check_schema(schema: &Value, at: &mut String) -> Result<(), String> {
    match schema {
        Value::Bool(_) => Ok(()),
        Value::Object(node) => check_node(node, at),
        other => Err(wrong(at, "a schema must be an object or a boolean", other)),
    }
}

fn check_node(node: &Map<String, Value>, at: &mut String) -> Result<(), String> {
    for (keyword, value) in node {
        let Some((_, kind)) = KEYWORDS.iter().find(|(k, _)| k == keyword) else {
            continue;
        };
        let len = at.len();
        at.push('/');
        at.push_str(&toolspec_vocab::pointer::escape(keyword));
        check_value(*kind, keyword, value, at)?;
        at.truncate(len);
    }
    Ok(())
}

fn check_value(kind: Kind, keyword: &str, value: &Value, at: &mut String) -> Result<(), String> {
    let fails = |expected: &str| Err(wrong(at, &format!("`{keyword}` must be {expected}"), value));
    match kind {
        Kind::Schema => check_schema(value, at),
        Kind::Schemas => match value {
            Value::Array(items) if !items.is_empty() => {
                each(items.iter().enumerate(), at, |item, at| {
                    check_schema(item, at)
                })
            }
            _ => fails("a non-empty list of schemas"),
        },
        Kind::SchemaMap => match value {
            Value::Object(map) => each(map.iter(), at, check_schema),
            _ => fails("a map of schemas"),
        },
        Kind::Count => match value.as_f64() {
            Some(n) if n >= 0.0 && n.fract() == 0.0 => Ok(()),
            _ => fails("a whole number, 0 or more"),
        },
        Kind::Number => match value {
            Value::Number(_) => Ok(()),
            _ => fails("a number"),
        },
        Kind::Positive => match value.as_f64() {
            Some(n) if n > 0.0 => Ok(()),
            _ => fails("a number greater than 0"),
        },
        Kind::Text => match value {
            Value::String(_) => Ok(()),
            _ => fails("a string"),
        },
        Kind::Names => match value {
            Value::Array(items) if distinct_strings(items) => Ok(()),
            _ => fails("a list of distinct strings"),
        },
        Kind::NamesMap => match value {
            Value::Object(map) => each(map.iter(), at, |names, at| match names {
                Value::Array(items) if distinct_strings(items) => Ok(()),
                other => Err(wrong(
                    at,
                    "each entry must be a list of distinct strings",
                    other,
                )),
            }),
            _ => fails("a map of lists of property names"),
        },
        Kind::Flag => match value {
            Value::Bool(_) => Ok(()),
            _ => fails("`true` or `false`"),
        },
        Kind::List => match value {
            Value::Array(_) => Ok(()),
            _ => fails("a list"),
        },
        Kind::Type => {
            let is_type = |v: &Value| v.as_str().is_some_and(|t| TYPES.contains(&t));
            let ok = match value {
                Value::String(_) => is_type(value),
                Value::Array(items) => {
                    !items.is_empty() && items.iter().all(is_type) && distinct_strings(items)
                }
                _ => false,
            };
            if ok {
                Ok(())
            } else {
                fails(&format!(
                    "a JSON type ({}), or a list of them",
                    TYPES.join(", ")
                ))
            }
        }
    }
}

/// Runs `check` on each entry, the entry's key or index added to the path.
fn each<K: ToString, V>(
    entries: impl Iterator<Item = (K, V)>,
    at: &mut String,
    mut check: impl FnMut(V, &mut String) -> Result<(), String>,
) -> Result<(), String> {
    for (key, value) in entries {
        let len = at.len();
        at.push('/');
        at.push_str(&toolspec_vocab::pointer::escape(&key.to_string()));
        check(value, at)?;
        at.truncate(len);
    }
    Ok(())
}

fn distinct_strings(items: &[Value]) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    items
        .iter()
        .all(|v| v.as_str().is_some_and(|s| seen.insert(s)))
}

/// ``at `/x`: why, found `value` ``, the value quoted only in part.
fn wrong(at: &str, why: &str, value: &Value) -> String {
    let mut shown = value.to_string();
    if shown.chars().count() > 40 {
        shown = shown.chars().take(39).collect::<String>() + "…";
    }
    let place = if at.is_empty() { "/" } else { at };
    format!("at `{place}`: {why}, found `{shown}`")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn schemas_of_every_shape_pass() {
        for schema in [
            json!(true),
            json!({}),
            json!({ "type": ["string", "null"], "minLength": 1, "x-extension": [1] }),
            json!({ "type": "object", "properties": { "a": { "$ref": "#/$defs/A" } },
                    "$defs": { "A": { "type": "array", "prefixItems": [true, { "type": "integer" }] } },
                    "required": ["a"], "dependentRequired": { "a": ["b"] }, "additionalProperties": false }),
        ] {
            assert_eq!(well_formed(&schema), Ok(()), "{schema}");
        }
    }

    #[test]
    fn the_verdicts_are_the_meta_schemas() {
        let schemas = [
            json!({}),
            json!(false),
            json!({ "type": "text" }),
            json!({ "type": ["string", "string"] }),
            json!({ "type": [] }),
            json!({ "minLength": 1.0 }),
            json!({ "minLength": 1.5 }),
            json!({ "maximum": "1" }),
            json!({ "multipleOf": -1 }),
            json!({ "required": "a" }),
            json!({ "required": [] }),
            json!({ "properties": { "a": 1 } }),
            json!({ "properties": [] }),
            json!({ "items": [{}] }),
            json!({ "prefixItems": [] }),
            json!({ "anyOf": [{}, 3] }),
            json!({ "enum": 3 }),
            json!({ "enum": [] }),
            json!({ "uniqueItems": "yes" }),
            json!({ "dependentRequired": { "a": [1] } }),
            json!({ "$defs": { "A": { "not": true } }, "$ref": "#/$defs/A" }),
            json!({ "format": 5 }),
            json!({ "deprecated": "no" }),
            json!({ "x-anything": { "type": 5 } }),
            json!({ "contentSchema": { "type": "string" } }),
        ];
        for schema in schemas {
            assert_eq!(
                well_formed(&schema).is_ok(),
                jsonschema::meta::is_valid(&schema),
                "{schema}"
            );
        }
    }

    #[test]
    fn malformed_keywords_are_named_with_their_place() {
        let cases = [
            (
                json!({ "properties": { "kind": { "type": "text" } } }),
                "at `/properties/kind/type`: `type` must be a JSON type",
            ),
            (
                json!({ "minLength": -1 }),
                "at `/minLength`: `minLength` must be a whole number, 0 or more, found `-1`",
            ),
            (
                json!({ "allOf": [] }),
                "at `/allOf`: `allOf` must be a non-empty list of schemas",
            ),
            (
                json!({ "items": 5 }),
                "at `/items`: a schema must be an object or a boolean, found `5`",
            ),
            (
                json!({ "prefixItems": 5 }),
                "at `/prefixItems`: `prefixItems` must be a non-empty list",
            ),
            (
                json!({ "required": ["a", "a"] }),
                "at `/required`: `required` must be a list of distinct strings",
            ),
            (
                json!({ "$defs": { "A": { "multipleOf": 0 } } }),
                "at `/$defs/A/multipleOf`: `multipleOf` must be a number greater than 0",
            ),
            (
                json!(7),
                "at `/`: a schema must be an object or a boolean, found `7`",
            ),
        ];
        for (schema, expected) in cases {
            let error = well_formed(&schema).unwrap_err();
            assert!(error.starts_with(expected), "{error}");
        }
    }
}
