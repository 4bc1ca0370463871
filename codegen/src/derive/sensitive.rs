//! Where a tool's values are `sensitive`, derived from the spec model for the runtime: a map
//! shaped like the schema that holds only the paths leading to a `sensitive` field (`true`
//! marks one), through `properties`, `items`, `additionalProperties` (a map's values),
//! `anyOf` (a union's variants) and `$ref`s into `$defs` (named types, which may be
//! recursive). The runtime's `toolspec::sensitive::Sensitivity` reads it; the same spec
//! always gives the same bytes.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use crate::spec::Types;
use crate::spec::{Field, FieldType, ToolSpec};

/// The map of a tool's input (every `expects` field, ambient ones included), or `None` when
/// nothing in it is sensitive.
pub fn input(tool: &ToolSpec, types: &Types) -> Option<Value> {
    root(tool.expects.iter(), types)
}

/// The map of a tool's output, or `None` when nothing in it is sensitive.
pub fn output(tool: &ToolSpec, types: &Types) -> Option<Value> {
    root(tool.exposes.iter(), types)
}

fn root<'a>(fields: impl Iterator<Item = &'a Field>, types: &Types) -> Option<Value> {
    let marked = marked_types(types);
    let mut map = object(fields, &marked)?;
    let mut defs = Map::new();
    let mut reached: Vec<String> = Vec::new();
    collect_refs(&Value::Object(map.clone()), &mut reached);
    while let Some(name) = reached.pop() {
        if defs.contains_key(&name) {
            continue;
        }
        if let Some(plan) = types.get(&name).and_then(|t| plan(&t.field, &marked)) {
            collect_refs(&plan, &mut reached);
            defs.insert(name, plan);
        }
    }
    if !defs.is_empty() {
        let mut sorted: Vec<(String, Value)> = defs.into_iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        map.insert("$defs".into(), Value::Object(sorted.into_iter().collect()));
    }
    Some(Value::Object(map))
}

/// `{"properties": {…}}` for the fields that lead to something sensitive, if any do.
fn object<'a>(
    fields: impl Iterator<Item = &'a Field>,
    marked: &BTreeSet<String>,
) -> Option<Map<String, Value>> {
    let properties: Map<String, Value> = fields
        .filter_map(|f| plan(f, marked).map(|p| (f.name.clone(), p)))
        .collect();
    if properties.is_empty() {
        return None;
    }
    let mut map = Map::new();
    map.insert("properties".into(), Value::Object(properties));
    Some(map)
}

/// The plan of one field, if anything in it is sensitive.
fn plan(field: &Field, marked: &BTreeSet<String>) -> Option<Value> {
    if field.sensitive {
        return Some(Value::Bool(true));
    }
    match &field.ty {
        FieldType::Object(fields) => object(fields.iter(), marked).map(Value::Object),
        FieldType::Array(items) => plan(items, marked).map(|p| json!({ "items": p })),
        FieldType::Map(values) => {
            plan(values, marked).map(|p| json!({ "additionalProperties": p }))
        }
        FieldType::Named(name) => marked
            .contains(name)
            .then(|| json!({ "$ref": format!("#/$defs/{name}") })),
        FieldType::AnyOf { variants, .. } => {
            let branches: Vec<Value> = variants
                .iter()
                .filter_map(|v| plan(&v.field, marked))
                .collect();
            (!branches.is_empty()).then(|| json!({ "anyOf": branches }))
        }
        _ => None,
    }
}

/// The named types that hold something sensitive, directly or through other named types:
/// the marks spread from the types with a sensitive field to the types that refer to them,
/// each type visited once (recursive types end; a chain of types costs its length).
fn marked_types(types: &Types) -> BTreeSet<String> {
    let mut referrers: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut marked = BTreeSet::new();
    let mut spreading = Vec::new();
    for (name, named) in types {
        let mut refs = Vec::new();
        crate::derive::schema::collect_named(&named.field, &mut refs);
        for target in refs {
            if let Some((target, _)) = types.get_key_value(&target) {
                referrers.entry(target).or_default().push(name);
            }
        }
        if plan(&named.field, &BTreeSet::new()).is_some() {
            marked.insert(name.clone());
            spreading.push(name.as_str());
        }
    }
    while let Some(name) = spreading.pop() {
        for referrer in referrers.get(name).into_iter().flatten() {
            if marked.insert((*referrer).to_owned()) {
                spreading.push(referrer);
            }
        }
    }
    marked
}

/// Pushes the names of the `$defs` a plan refers to.
fn collect_refs(plan: &Value, out: &mut Vec<String>) {
    match plan {
        Value::Object(map) => {
            if let Some(name) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
            {
                out.push(name.to_owned());
            }
            map.values().for_each(|v| collect_refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::project::build as analyze;
    use crate::source::Source;

    #[test]
    fn sensitive_fields_are_mapped_at_any_depth() {
        let sources = [
            Source {
                path: "types.yaml".into(),
                text: "types:\n  Card:\n    type: object\n    fields:\n      number: { type: string, sensitive: true }\n      brand: { type: string }\n  Tree:\n    type: object\n    fields:\n      secret: { type: string, sensitive: true }\n      children: { type: array, items: Tree }\n  Plain:\n    type: object\n    fields:\n      a: { type: string }\n".into(),
            },
            Source {
                path: "pay.yaml".into(),
                text: "description: Pay.\nexpects:\n  note: { type: string, sensitive: true }\n  cards: { type: map, values: Card }\n  tree: { type: Tree }\n  plain: { type: Plain }\n  lines:\n    type: array\n    items:\n      type: object\n      fields:\n        gift: { type: string, sensitive: true }\n        sku: { type: string }\n  token: { type: string, on: ambient_context, sensitive: true }\nexposes:\n  id: { type: integer }\ntool: { except: [gemini] }\n".into(),
            },
        ];
        let project = analyze(&sources, &[], "specs");
        assert!(!project.has_errors(), "{:?}", project.diagnostics);
        let tool = &project.tools[0];
        assert_eq!(
            super::input(&tool.spec, &project.types),
            Some(json!({
                "properties": {
                    "note": true,
                    "cards": { "additionalProperties": { "$ref": "#/$defs/Card" } },
                    "tree": { "$ref": "#/$defs/Tree" },
                    "lines": { "items": { "properties": { "gift": true } } },
                    "token": true
                },
                "$defs": {
                    "Card": { "properties": { "number": true } },
                    "Tree": { "properties": { "secret": true, "children": { "items": { "$ref": "#/$defs/Tree" } } } }
                }
            }))
        );
        assert_eq!(super::output(&tool.spec, &project.types), None);
    }
}
