//! Rewrites of schema nodes that several dialects share.

use crate::derive::dialect::pass::Cx;
use crate::derive::dialect::text::append_description;
use crate::derive::dialect::text::join_sentences;
use crate::derive::dialect::text::prepend_description;
use crate::derive::dialect::text::show;
use crate::schema_tree::Seg;
use crate::schema_tree::children;
use crate::schema_tree::ref_name;
use crate::schema_tree::resolve_ref;
use serde_json::{Map, Value, json};
use toolspec_vocab::Dialect;

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
/// [`ANNOTATIONS`], constraints moved into the description.
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
