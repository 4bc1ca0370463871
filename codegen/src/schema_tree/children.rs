//! The subschemas of a schema, each with the path steps that lead to it.

use serde_json::{Map, Value};

use crate::schema_tree::path::Seg;

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
