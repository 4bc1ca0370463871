//! Gemini `FunctionDeclaration.parameters`: an OpenAPI 3.0 subset in which one unknown keyword
//! fails the whole request.
//!
//! - Named types are written out in place (no `$ref`); a type that contains itself cannot be
//!   expressed.
//! - Types are spelled `STRING`, `NUMBER`, `INTEGER`, `BOOLEAN`, `ARRAY`, `OBJECT`; `null` is
//!   `nullable: true` (a `["T", "null"]` type, or a union's `{"type": "null"}` branch, which
//!   marks the other branches nullable; a union left with one branch becomes that branch).
//! - `enum` holds strings only: the `null` of a nullable enum becomes `nullable`, and an enum of
//!   numbers or booleans becomes a `STRING` enum of their spellings (the description says so;
//!   the invoker turns `"2"` back into `2` where the canonical schema wants a number).
//! - `const` of a string is a one-value `enum`; `oneOf` becomes `anyOf`.
//! - Stated in the description instead: `exclusiveMinimum`, `exclusiveMaximum`,
//!   `multipleOf`, `uniqueItems`, other `const`s, a map's value schema
//!   (`additionalProperties`, which Gemini does not have: `false` is dropped silently) and
//!   anything else outside the subset.
//! - Objects list their properties in spec order in `propertyOrdering`.
//! - A tool without parameters has no `parameters` at all ([`Value::Null`]): Gemini rejects an
//!   `OBJECT` without properties there.

use serde_json::{Map, Value, json};

use crate::derive::dialect::pass::{Cx, Derived, Visitor, walk};
use crate::derive::dialect::rewrite::{
    common_type, const_to_enum, merge_over, one_of_to_any_of, put_after, put_first, restrict,
};
use crate::derive::dialect::text::{append_description, constraint_sentence, show};
use crate::schema_tree::children::for_each_child;
use crate::schema_tree::refs::{ref_name, resolve_ref};

use crate::derive::dialect::rewrite::is_well_formed;
use crate::schema_tree::Seg;

/// The keywords Gemini's schema subset has (plus `description`).
pub const KEYWORDS: &[&str] = &[
    "type",
    "format",
    "nullable",
    "enum",
    "items",
    "minItems",
    "maxItems",
    "properties",
    "required",
    "propertyOrdering",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "anyOf",
    "default",
];

/// Gemini's type names, by JSON Schema type.
pub const TYPES: &[(&str, &str)] = &[
    ("string", "STRING"),
    ("number", "NUMBER"),
    ("integer", "INTEGER"),
    ("boolean", "BOOLEAN"),
    ("array", "ARRAY"),
    ("object", "OBJECT"),
];

/// How many schema nodes writing out named types may produce before giving up.
const INLINE_BUDGET: usize = 50_000;

/// The `gemini` dialect.
pub fn derive(canonical: &Value) -> Derived {
    let mut cx = Cx::new();
    let mut schema = canonical.clone();
    let mut budget = INLINE_BUDGET;
    inline_refs(
        &mut schema,
        canonical,
        &mut Vec::new(),
        &mut cx,
        &mut budget,
    );
    if cx.has_refusals() {
        return cx.finish(Value::Null);
    }
    if let Value::Object(root) = &mut schema {
        root.remove("$defs");
        root.remove("definitions");
    }
    walk(&mut schema, &mut Gemini::default(), &mut cx);
    let has_parameters =
        matches!(schema.get("properties"), Some(Value::Object(p)) if !p.is_empty());
    if !has_parameters {
        schema = Value::Null;
    }
    cx.finish(schema)
}

/// Writes every `$ref` out in place (its siblings merged over the definition).
fn inline_refs(
    value: &mut Value,
    root: &Value,
    stack: &mut Vec<String>,
    cx: &mut Cx,
    budget: &mut usize,
) {
    let Value::Object(node) = value else { return };
    if *budget == 0 {
        cx.refuse_at(
            Vec::new(),
            "it is too large once its named types are written out in place, which gemini needs",
        );
        return;
    }
    *budget -= 1;
    if let Some(Value::String(reference)) = node.remove("$ref") {
        if reference == "#" || stack.contains(&reference) {
            cx.refuse(format!(
                "the type `{}` contains itself, and gemini has no `$ref` to express recursion",
                ref_name(&reference)
            ));
            return;
        }
        let Some(target) = resolve_ref(root, &reference) else {
            cx.refuse(format!(
                "its `$ref` `{reference}` cannot be resolved, and gemini needs every named type written out in place"
            ));
            return;
        };
        let siblings = std::mem::take(node);
        *node = merge_over(target, siblings);
        stack.push(reference);
        inline_refs(value, root, stack, cx, budget);
        stack.pop();
        return;
    }
    for_each_child(node, &mut |segs, child| {
        if matches!(segs.first(), Some(Seg::Def(_))) {
            return;
        }
        cx.push(segs);
        inline_refs(child, root, stack, cx, budget);
        cx.pop(segs.len());
    });
}

fn gemini_type(json_type: &str) -> Option<&'static str> {
    TYPES.iter().find(|(j, _)| *j == json_type).map(|(_, g)| *g)
}

fn is_null_schema(value: &Value) -> bool {
    match value.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(list)) => !list.is_empty() && list.iter().all(|t| t == "null"),
        _ => false,
    }
}

fn set_nullable(node: &mut Map<String, Value>) {
    put_after(node, "type", "nullable", Value::Bool(true));
}

/// Marks a union branch nullable: on its own type, or on every branch of a nested union.
fn set_nullable_branch(node: &mut Map<String, Value>) {
    if node.contains_key("type") || !node.contains_key("anyOf") {
        set_nullable(node);
    } else if let Some(Value::Array(branches)) = node.get_mut("anyOf") {
        for branch in branches.iter_mut() {
            if let Value::Object(branch) = branch {
                set_nullable_branch(branch);
            }
        }
    }
}

#[derive(Default)]
struct Gemini {
    /// Per node being visited: whether its union lost a `null` branch.
    nullable_union: Vec<bool>,
}

impl Gemini {
    fn types(&mut self, node: &mut Map<String, Value>, cx: &mut Cx) {
        if !is_well_formed(node) {
            cx.refuse(
                "its `type`, `enum` or `items` is not written the way gemini takes it (a type name or list of them, a list of values, one schema)",
            );
            return;
        }
        let mut names: Vec<String> = match node.get("type") {
            None => return,
            Some(Value::String(t)) => vec![t.clone()],
            Some(Value::Array(list)) => list
                .iter()
                .filter_map(|t| t.as_str().map(str::to_owned))
                .collect(),
            Some(_) => Vec::new(),
        };
        let had_null = names.iter().any(|t| t == "null");
        names.retain(|t| t != "null");
        let mut mapped = Vec::new();
        for name in &names {
            match gemini_type(name) {
                Some(g) => mapped.push(g),
                None => {
                    cx.refuse(format!("its type `{name}` has no gemini equivalent"));
                    return;
                }
            }
        }
        match mapped.as_slice() {
            [] => {
                cx.refuse("it only allows `null`, which gemini cannot express on its own");
            }
            [one] => {
                node.insert("type".into(), json!(one));
                if had_null {
                    set_nullable(node);
                }
            }
            several => {
                if node.contains_key("anyOf") {
                    cx.refuse(
                        "it has both a list of types and `anyOf`, which gemini cannot express",
                    );
                    return;
                }
                let branches: Vec<Value> = several.iter().map(|t| json!({ "type": t })).collect();
                node.remove("type");
                put_first(node, "anyOf", Value::Array(branches));
                if had_null && let Some(last) = self.nullable_union.last_mut() {
                    *last = true;
                }
            }
        }
    }

    fn enumeration(&mut self, node: &mut Map<String, Value>, cx: &mut Cx) {
        let Some(Value::Array(values)) = node.get("enum").cloned() else {
            return;
        };
        if values.contains(&Value::Null) {
            set_nullable(node);
        }
        let values: Vec<Value> = values.into_iter().filter(|v| !v.is_null()).collect();
        if values.iter().all(Value::is_string) {
            node.insert("enum".into(), Value::Array(values));
            if !node.contains_key("type") {
                put_first(node, "type", json!("STRING"));
            }
            return;
        }
        let noun = match common_type(&values) {
            Some("integer") => "integer",
            Some("number") => "number",
            Some("boolean") => "boolean",
            _ => "JSON value",
        };
        let spell = |v: &Value| match v {
            Value::String(s) => Value::String(s.clone()),
            other => Value::String(show(other)),
        };
        let strings: Vec<Value> = values.iter().map(spell).collect();
        node.insert("enum".into(), Value::Array(strings));
        put_first(node, "type", json!("STRING"));
        if let Some(default) = node
            .get("default")
            .filter(|d| !d.is_null() && !d.is_string())
        {
            let default = spell(default);
            node.insert("default".into(), default);
        }
        for keyword in ["minimum", "maximum"] {
            cx.move_keyword(node, keyword);
        }
        append_description(node, &format!("Sent as a string: the {noun} it spells."));
        cx.record(
            "enum",
            Some(format!(
                "cannot express the {noun} `enum` of `{{}}`; its values are sent as strings and the description says so"
            )),
        );
    }
}

impl Visitor for Gemini {
    fn enter(&mut self, node: &mut Map<String, Value>, cx: &mut Cx) {
        one_of_to_any_of(node, cx);
        // A union's `null` branch: the other branches become nullable (in `leave`).
        let mut nullable_union = false;
        if let Some(Value::Array(branches)) = node.get_mut("anyOf") {
            let before = branches.len();
            branches.retain(|b| !is_null_schema(b));
            nullable_union = branches.len() != before;
            if branches.is_empty() {
                node.remove("anyOf");
                cx.refuse("it only allows `null`, which gemini cannot express on its own");
            }
        }
        self.nullable_union.push(nullable_union);
        match node.get("const") {
            Some(Value::String(_)) => const_to_enum(node),
            Some(_) => {
                cx.move_keyword(node, "const");
            }
            None => {}
        }
        self.types(node, cx);
        self.enumeration(node, cx);
        if let Some(values) = node.remove("additionalProperties")
            && let Some(sentence) = constraint_sentence("additionalProperties", &values)
            && !matches!(&values, Value::Object(m) if m.is_empty())
        {
            cx.state(node, "additionalProperties", &sentence);
        }
        node.remove("$defs");
        node.remove("definitions");
        restrict(node, KEYWORDS, cx);
    }

    fn leave(&mut self, node: &mut Map<String, Value>, _cx: &mut Cx) {
        let nullable_union = self.nullable_union.pop().unwrap_or(false);
        if nullable_union && let Some(Value::Array(branches)) = node.get_mut("anyOf") {
            for branch in branches.iter_mut() {
                if let Value::Object(branch) = branch {
                    set_nullable_branch(branch);
                }
            }
            if branches.len() == 1 {
                let branch = branches.remove(0);
                node.remove("anyOf");
                let rest = std::mem::take(node);
                *node = merge_over(&branch, rest);
            }
        }
        let ordering: Vec<Value> = match node.get("properties") {
            Some(Value::Object(p)) if !p.is_empty() => p.keys().map(|k| json!(k)).collect(),
            _ => Vec::new(),
        };
        if !ordering.is_empty() {
            if !node.contains_key("type") {
                put_first(node, "type", json!("OBJECT"));
            }
            let anchor = if node.contains_key("required") {
                "required"
            } else {
                "properties"
            };
            put_after(node, anchor, "propertyOrdering", Value::Array(ordering));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nullable_references_are_written_out() {
        let canonical = json!({
            "type": "object",
            "properties": {
                "home": { "anyOf": [{ "$ref": "#/$defs/A" }, { "type": "null" }], "description": "Where." },
                "size": { "type": "integer", "enum": [1, 2], "default": 1 },
                "ratio": { "type": ["number", "null"], "exclusiveMinimum": 0 },
            },
            "required": ["size"],
            "additionalProperties": false,
            "$defs": { "A": { "type": "object", "properties": { "zip": { "type": "string" } }, "additionalProperties": false, "description": "An address." } }
        });
        let derived = derive(&canonical);
        assert!(derived.is_expressible());
        let s = &derived.schema;
        assert_eq!(
            s["properties"]["home"],
            json!({
                "type": "OBJECT",
                "nullable": true,
                "properties": { "zip": { "type": "STRING" } },
                "propertyOrdering": ["zip"],
                "description": "Where. An address.",
            })
        );
        assert_eq!(s["properties"]["size"]["enum"], json!(["1", "2"]));
        assert_eq!(s["properties"]["size"]["default"], json!("1"));
        assert_eq!(
            s["properties"]["ratio"],
            json!({ "type": "NUMBER", "nullable": true, "description": "Must be greater than 0." })
        );
        assert_eq!(s["propertyOrdering"], json!(["home", "size", "ratio"]));
        assert!(s.get("$defs").is_none());
    }

    #[test]
    fn recursion_and_empty_inputs() {
        let recursive = json!({
            "type": "object",
            "properties": { "t": { "$ref": "#/$defs/T" } },
            "$defs": { "T": { "type": "object", "properties": { "c": { "type": "array", "items": { "$ref": "#/$defs/T" } } } } }
        });
        let derived = derive(&recursive);
        assert_eq!(derived.refusals.len(), 1);
        assert!(derived.refusals[0].reason.contains("`T` contains itself"));
        let empty = json!({ "type": "object", "additionalProperties": false });
        let derived = derive(&empty);
        assert!(derived.is_expressible());
        assert_eq!(derived.schema, Value::Null);
    }
}
