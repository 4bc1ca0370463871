//! OpenAI function calling (Chat Completions and Responses API `parameters`).
//!
//! - `openai` (`strict: false`): OpenAI takes the canonical schema as it is, except for two
//!   things it rejects outright even in non-strict mode: an object schema without
//!   `properties` ("object schema missing properties": a tool without parameters, a map) gets
//!   `properties: {}`, an array schema without `items` (only possible in a `shape`) gets
//!   `items: {}`.
//! - `openai-strict` (Structured Outputs): every object is closed (`additionalProperties:
//!   false`) and lists every property in `required`; an optional property becomes nullable
//!   (`["T", "null"]`, or `anyOf` with `{"type": "null"}`), so the model sends `null` for
//!   "not given" — an adapter drops such a `null` before validating, unless the canonical schema
//!   itself allows `null` there. `oneOf` becomes `anyOf`, `const` a one-value `enum`; keywords
//!   strict mode does not support (`minLength`, `maxLength`, `uniqueItems`, `default`, formats
//!   outside its list, …) are stated in the description instead. A `$ref` with siblings is
//!   replaced by the definition it names, merged with the siblings (as OpenAI's own SDK does).
//!   A map, an object without properties or a schema that accepts anything cannot be
//!   expressed; neither can a schema over the limits: more than [`MAX_PROPERTIES`] properties,
//!   objects nested more than [`MAX_DEPTH`] levels (the root object is level 1), or more than
//!   [`MAX_ENUM_VALUES`] enum values in all.

use serde_json::{Map, Value, json};

use crate::derive::dialect::pass::{Cx, Derived, Visitor, walk};
use crate::derive::dialect::rewrite::{
    close_object, const_to_enum, infer_enum_type, is_array, is_object, merge_over,
    one_of_to_any_of, put_after, put_first, refuse_any, restrict,
};
use crate::schema_tree::children::{children, for_each_child, nodes};
use crate::schema_tree::path::Seg;
use crate::schema_tree::refs::resolve_ref;
use toolspec_vocab::Dialect;

/// The `format`s strict mode supports.
pub const STRICT_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// At most this many object properties in one schema, in all.
pub const MAX_PROPERTIES: usize = 5000;
/// At most this many levels of nested objects (the root object is level 1).
pub const MAX_DEPTH: usize = 10;
/// At most this many enum values in one schema, in all.
pub const MAX_ENUM_VALUES: usize = 1000;

/// The keywords strict mode keeps (plus `description`).
const STRICT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "title",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

/// The `openai` dialect (`strict: false`).
pub fn derive(canonical: &Value) -> Derived {
    let mut schema = canonical.clone();
    let mut cx = Cx::new();
    walk(&mut schema, &mut NonStrict, &mut cx);
    cx.finish(schema)
}

struct NonStrict;

impl Visitor for NonStrict {
    fn enter(&mut self, node: &mut Map<String, Value>, _cx: &mut Cx) {
        if is_array(node) && !node.contains_key("items") && !node.contains_key("prefixItems") {
            node.insert("items".into(), json!({}));
        }
        if is_object(node) && !node.contains_key("properties") {
            put_after(node, "type", "properties", json!({}));
        }
    }
}

/// The `openai-strict` dialect.
pub fn derive_strict(canonical: &Value) -> Derived {
    let mut schema = canonical.clone();
    let mut cx = Cx::new();
    walk(&mut schema, &mut Strict, &mut cx);
    if !cx.has_refusals() {
        inline_ref_siblings(&mut schema);
        check_limits(&schema, &mut cx);
    }
    cx.finish(schema)
}

struct Strict;

impl Visitor for Strict {
    fn enter(&mut self, node: &mut Map<String, Value>, cx: &mut Cx) {
        one_of_to_any_of(node, cx);
        const_to_enum(node);
        infer_enum_type(node);
        if let Some(Value::String(format)) = node.get("format")
            && !STRICT_FORMATS.contains(&format.as_str())
        {
            cx.move_keyword(node, "format");
        }
        restrict(node, STRICT_KEYWORDS, cx);
        close_object(node, Dialect::OpenAiStrict, cx);
        refuse_any(node, Dialect::OpenAiStrict, cx);
    }

    fn leave(&mut self, node: &mut Map<String, Value>, _cx: &mut Cx) {
        if !is_object(node) {
            return;
        }
        let required: Vec<String> = match node.get("required") {
            Some(Value::Array(list)) => list
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            _ => Vec::new(),
        };
        if !node.contains_key("properties") {
            put_after(node, "type", "properties", json!({}));
        }
        let mut all = Vec::new();
        if let Some(Value::Object(properties)) = node.get_mut("properties") {
            for (name, property) in properties.iter_mut() {
                if !required.contains(name) {
                    make_nullable(property);
                }
                all.push(Value::String(name.clone()));
            }
        }
        put_after(node, "properties", "required", Value::Array(all));
    }
}

/// Whether a schema already accepts `null` (by type, union branch or enum value).
fn allows_null(node: &Map<String, Value>) -> bool {
    let by_type = match node.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(list)) => list.iter().any(|t| t == "null"),
        _ => false,
    };
    let by_branch = match node.get("anyOf") {
        Some(Value::Array(branches)) => branches
            .iter()
            .any(|b| matches!(b, Value::Object(b) if allows_null(b))),
        _ => false,
    };
    by_type || by_branch
}

/// An optional property of a strict object: `null` stands for "not given".
fn make_nullable(schema: &mut Value) {
    let Value::Object(node) = schema else { return };
    if allows_null(node) {
        return;
    }
    if let Some(Value::String(reference)) = node.remove("$ref") {
        let rest = std::mem::take(node);
        node.insert(
            "anyOf".into(),
            json!([{ "$ref": reference }, { "type": "null" }]),
        );
        node.extend(rest);
        return;
    }
    match node.get_mut("type") {
        Some(Value::String(t)) => {
            let t = t.clone();
            node.insert("type".into(), json!([t, "null"]));
        }
        Some(Value::Array(list)) => list.push(json!("null")),
        _ => {
            if let Some(Value::Array(branches)) = node.get_mut("anyOf") {
                branches.push(json!({ "type": "null" }));
            }
        }
    }
    if let Some(Value::Array(values)) = node.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
}

/// Strict mode allows no keyword beside a `$ref`: the definition is merged in place (its own
/// references stay references, so recursion still works); a reference that cannot be resolved
/// here is wrapped in a one-branch `anyOf`.
fn inline_ref_siblings(root: &mut Value) {
    fn go(value: &mut Value, root: &Value, depth: usize) {
        let Value::Object(node) = value else { return };
        if node.len() > 1
            && let Some(Value::String(reference)) = node.get("$ref").cloned()
        {
            node.remove("$ref");
            match resolve_ref(root, &reference) {
                Some(target) if reference != "#" && depth < 16 => {
                    let siblings = std::mem::take(node);
                    *node = merge_over(target, siblings);
                    go(value, root, depth + 1);
                    return;
                }
                _ => {
                    put_first(node, "anyOf", json!([{ "$ref": reference }]));
                }
            }
        }
        for_each_child(node, &mut |_, child| go(child, root, 0));
    }
    let snapshot = root.clone();
    go(root, &snapshot, 0);
}

fn check_limits(schema: &Value, cx: &mut Cx) {
    let all = nodes(schema);
    let properties: usize = all
        .iter()
        .filter_map(|(_, n)| match n.get("properties") {
            Some(Value::Object(p)) => Some(p.len()),
            _ => None,
        })
        .sum();
    if properties > MAX_PROPERTIES {
        cx.refuse_at(
            Vec::new(),
            format!(
                "it has {properties} object properties in all, and openai-strict allows at most {MAX_PROPERTIES}"
            ),
        );
    }
    let values: usize = all
        .iter()
        .filter_map(|(_, n)| match n.get("enum") {
            Some(Value::Array(v)) => Some(v.len()),
            _ => None,
        })
        .sum();
    if values > MAX_ENUM_VALUES {
        cx.refuse_at(
            Vec::new(),
            format!(
                "its enums have {values} values in all, and openai-strict allows at most {MAX_ENUM_VALUES}"
            ),
        );
    }
    if let Some(path) = too_deep(schema, schema, 0, &mut Vec::new(), &mut Vec::new()) {
        cx.refuse_at(
            path,
            format!(
                "it nests objects more than {MAX_DEPTH} levels deep (counting the tool's input as level 1), and openai-strict allows at most {MAX_DEPTH}"
            ),
        );
    }
}

/// The path of the first object nested deeper than [`MAX_DEPTH`], following references (but
/// not into a definition already being followed).
fn too_deep(
    value: &Value,
    root: &Value,
    level: usize,
    path: &mut Vec<Seg>,
    stack: &mut Vec<String>,
) -> Option<Vec<Seg>> {
    let Value::Object(node) = value else {
        return None;
    };
    let level = if is_object(node) { level + 1 } else { level };
    if level > MAX_DEPTH {
        return Some(path.clone());
    }
    if let Some(Value::String(reference)) = node.get("$ref")
        && !stack.contains(reference)
        && let Some(target) = resolve_ref(root, reference)
    {
        stack.push(reference.clone());
        let found = too_deep(target, root, level, path, stack);
        stack.pop();
        if found.is_some() {
            return found;
        }
    }
    for (segs, child) in children(node) {
        if matches!(segs.first(), Some(Seg::Def(_))) {
            continue;
        }
        let n = segs.len();
        path.extend(segs);
        let found = too_deep(child, root, level, path, stack);
        path.truncate(path.len() - n);
        if found.is_some() {
            return found;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_properties_become_nullable_and_required() {
        let canonical = json!({
            "type": "object",
            "properties": {
                "a": { "type": "string", "maxLength": 5 },
                "b": { "type": "integer", "enum": [1, 2], "default": 1 },
                "c": { "$ref": "#/$defs/C", "description": "See C." },
            },
            "required": ["a"],
            "additionalProperties": false,
            "$defs": { "C": { "type": "object", "properties": { "x": { "type": "boolean" } }, "additionalProperties": false } }
        });
        let derived = derive_strict(&canonical);
        assert!(derived.is_expressible(), "{:?}", derived.refusals);
        let s = &derived.schema;
        assert_eq!(s["required"], json!(["a", "b", "c"]));
        assert_eq!(
            s["properties"]["a"],
            json!({ "type": "string", "description": "Must be at most 5 characters." })
        );
        assert_eq!(s["properties"]["b"]["type"], json!(["integer", "null"]));
        assert_eq!(s["properties"]["b"]["enum"], json!([1, 2, null]));
        assert_eq!(
            s["properties"]["c"]["anyOf"],
            json!([{ "$ref": "#/$defs/C" }, { "type": "null" }])
        );
        assert_eq!(s["$defs"]["C"]["required"], json!(["x"]));
        let keywords: Vec<&str> = derived.moved.iter().map(|m| m.keyword.as_str()).collect();
        assert_eq!(keywords, ["maxLength", "default"]);
    }

    #[test]
    fn limits_are_refused() {
        let mut inner = json!({ "type": "string" });
        for _ in 0..MAX_DEPTH {
            inner = json!({ "type": "object", "properties": { "x": inner }, "required": ["x"], "additionalProperties": false });
        }
        assert!(derive_strict(&inner).is_expressible());
        let deeper = json!({ "type": "object", "properties": { "x": inner }, "required": ["x"], "additionalProperties": false });
        let derived = derive_strict(&deeper);
        assert_eq!(derived.refusals.len(), 1);
        assert_eq!(derived.refusals[0].path.len(), MAX_DEPTH);
        let values: Vec<u32> = (0..=MAX_ENUM_VALUES as u32).collect();
        let many = json!({ "type": "object", "properties": { "n": { "type": "integer", "enum": values } }, "required": ["n"], "additionalProperties": false });
        assert!(
            derive_strict(&many).refusals[0]
                .reason
                .contains("1001 values")
        );
        let common = crate::derive::dialect::rewrite::common_type(&[json!(1), json!(2.5)]);
        assert_eq!(common, Some("number"));
    }
}
