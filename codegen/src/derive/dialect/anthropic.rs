//! Anthropic Messages `input_schema`.
//!
//! - `anthropic` (`strict: false`): the canonical schema, unchanged (Anthropic takes JSON
//!   Schema; it refuses only a root that is not an object, which a tool's input never is).
//! - `anthropic-strict` (strict tool use): every object is closed; optional properties stay
//!   optional. Kept: basic types, `enum` of primitives, `const`, `anyOf`, local
//!   `$ref`/`$defs`, `default`, `format` from [`STRICT_FORMATS`], `pattern` (the compiler admits
//!   only patterns without lookaround or backreferences, which strict mode supports),
//!   `minItems` of 0 or 1. Stated in the description instead: `minimum`, `maximum`,
//!   `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `minLength`, `maxLength`,
//!   `maxItems`, `uniqueItems`, other formats, `oneOf` (which becomes
//!   `anyOf`); a `minItems` above 1 becomes `minItems: 1` with the real bound in the
//!   description. Not expressible: recursion, maps and schemas that accept anything, and a
//!   tool with more than [`MAX_OPTIONAL`] optional parameters or [`MAX_UNIONS`] parameters
//!   using `anyOf` or type lists (Anthropic's limits per request, so per tool too).

use serde_json::{Map, Value, json};

use crate::derive::dialect::pass::{Cx, Derived, Visitor, walk};
use crate::derive::dialect::rewrite::{
    close_object, find_recursion, one_of_to_any_of, refuse_any, restrict,
};
use crate::schema_tree::children::nodes;
use toolspec_vocab::Dialect;

/// The `format`s strict tool use supports.
pub const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

/// At most this many optional parameters per request in strict mode.
pub const MAX_OPTIONAL: usize = 24;
/// At most this many parameters using `anyOf` or type lists per request in strict mode.
pub const MAX_UNIONS: usize = 16;

/// The keywords strict mode keeps (plus `description`).
const STRICT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "title",
    "default",
    "format",
    "pattern",
    "minItems",
];

/// The `anthropic` dialect (`strict: false`): the canonical schema.
pub fn derive(canonical: &Value) -> Derived {
    Cx::new().finish(canonical.clone())
}

/// The `anthropic-strict` dialect.
pub fn derive_strict(canonical: &Value) -> Derived {
    let mut schema = canonical.clone();
    let mut cx = Cx::new();
    walk(&mut schema, &mut Strict, &mut cx);
    if let Some((path, name)) = find_recursion(&schema) {
        cx.refuse_at(
            path,
            format!("the type `{name}` contains itself, and anthropic-strict does not support recursive schemas"),
        );
    }
    if !cx.has_refusals() {
        let (optional, unions) = parameter_counts(&schema);
        if optional > MAX_OPTIONAL {
            cx.refuse_at(
                Vec::new(),
                format!(
                    "it has {optional} optional parameters, and anthropic-strict allows at most {MAX_OPTIONAL} per request"
                ),
            );
        }
        if unions > MAX_UNIONS {
            cx.refuse_at(
                Vec::new(),
                format!(
                    "it has {unions} parameters using `anyOf` or type lists, and anthropic-strict allows at most {MAX_UNIONS} per request"
                ),
            );
        }
    }
    cx.finish(schema)
}

/// (optional parameters, parameters using `anyOf` or a type list) of a schema, counting the
/// properties of every object in it (definitions included).
pub fn parameter_counts(schema: &Value) -> (usize, usize) {
    let mut optional = 0;
    let mut unions = 0;
    for (_, node) in nodes(schema) {
        let Some(Value::Object(properties)) = node.get("properties") else {
            continue;
        };
        let required: Vec<&str> = match node.get("required") {
            Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        for (name, property) in properties {
            if !required.contains(&name.as_str()) {
                optional += 1;
            }
            if property.get("anyOf").is_some()
                || matches!(property.get("type"), Some(Value::Array(_)))
            {
                unions += 1;
            }
        }
    }
    (optional, unions)
}

fn is_primitive(value: &Value) -> bool {
    !matches!(value, Value::Array(_) | Value::Object(_))
}

struct Strict;

impl Visitor for Strict {
    fn enter(&mut self, node: &mut Map<String, Value>, cx: &mut Cx) {
        one_of_to_any_of(node, cx);
        if let Some(Value::Array(values)) = node.get("enum")
            && !values.iter().all(is_primitive)
        {
            cx.move_keyword(node, "enum");
        }
        if node.get("const").is_some_and(|v| !is_primitive(v)) {
            cx.move_keyword(node, "const");
        }
        if let Some(Value::String(format)) = node.get("format")
            && !STRICT_FORMATS.contains(&format.as_str())
        {
            cx.move_keyword(node, "format");
        }
        if let Some(min) = node.get("minItems").and_then(Value::as_u64)
            && min > 1
        {
            node.insert("minItems".into(), json!(1));
            cx.state(
                node,
                "minItems",
                &format!("Must have at least {min} items."),
            );
        }
        restrict(node, STRICT_KEYWORDS, cx);
        close_object(node, Dialect::AnthropicStrict, cx);
        refuse_any(node, Dialect::AnthropicStrict, cx);
    }
}
