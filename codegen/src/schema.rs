//! Canonical JSON Schema 2020-12 derivation from the spec model.
//!
//! Objects list properties in spec order and close with `additionalProperties: false`; named
//! types become `$defs` (only those a schema reaches); ambient fields never appear. Keys are
//! written in one fixed order, so the same spec always gives the same bytes.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value, json};

use crate::spec::model::{Field, FieldType, NamedType, ToolSpec};

/// The named types of a project, by name.
pub type Types = BTreeMap<String, NamedType>;

/// The model-facing input schema of a tool (ambient fields excluded).
pub fn input_schema(tool: &ToolSpec, types: &Types) -> Value {
    let fields: Vec<&Field> = tool.expects.iter().filter(|f| !f.ambient).collect();
    root_schema(&fields, types)
}

/// The output schema of a tool.
pub fn output_schema(tool: &ToolSpec, types: &Types) -> Value {
    let fields: Vec<&Field> = tool.exposes.iter().collect();
    root_schema(&fields, types)
}

/// The schema of one field, with `$defs` for the named types it reaches (for checking defaults).
pub fn standalone_field_schema(field: &Field, types: &Types) -> Value {
    let mut schema = field_schema(field);
    let defs = defs_for(std::slice::from_ref(&field), types);
    if let (Value::Object(map), false) = (&mut schema, defs.is_empty()) {
        map.insert("$defs".into(), Value::Object(defs));
    }
    schema
}

fn root_schema(fields: &[&Field], types: &Types) -> Value {
    let mut schema = object_schema(fields.iter().copied());
    let defs = defs_for(fields, types);
    if !defs.is_empty() {
        schema.insert("$defs".into(), Value::Object(defs));
    }
    Value::Object(schema)
}

fn object_schema<'a>(fields: impl Iterator<Item = &'a Field>) -> Map<String, Value> {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for field in fields {
        properties.insert(field.name.clone(), field_schema(field));
        if field.is_required() {
            required.push(Value::String(field.name.clone()));
        }
    }
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    if !properties.is_empty() {
        schema.insert("properties".into(), Value::Object(properties));
    }
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    schema.insert("additionalProperties".into(), json!(false));
    schema
}

/// The schema of one field (named types as `$ref`s).
pub fn field_schema(field: &Field) -> Value {
    let mut schema = type_schema(field);
    let c = &field.constraints;
    if let Some(values) = &field.one_of {
        let mut values = values.value.clone();
        if field.nullable && !values.contains(&Value::Null) {
            values.push(Value::Null);
        }
        schema.insert("enum".into(), Value::Array(values));
    }
    let mut put = |key: &str, value: Option<Value>| {
        if let Some(value) = value {
            schema.insert(key.into(), value);
        }
    };
    put("format", c.format.map(|f| json!(f.as_str())));
    put("pattern", c.pattern.as_ref().map(|p| json!(p.value)));
    put("minLength", c.min_length.map(Value::from));
    put("maxLength", c.max_length.map(Value::from));
    put("minimum", c.minimum.clone().map(Value::Number));
    put(
        "exclusiveMinimum",
        c.exclusive_minimum.clone().map(Value::Number),
    );
    put("maximum", c.maximum.clone().map(Value::Number));
    put(
        "exclusiveMaximum",
        c.exclusive_maximum.clone().map(Value::Number),
    );
    put("multipleOf", c.multiple_of.clone().map(Value::Number));
    put("minItems", c.min_items.map(Value::from));
    put("maxItems", c.max_items.map(Value::from));
    put("uniqueItems", c.unique_items.then_some(Value::Bool(true)));
    let mut schema = apply_nullable(field, schema);
    if let Some(description) = &field.description {
        schema.insert("description".into(), json!(description));
    }
    if let Some(default) = &field.default {
        schema.insert("default".into(), default.value.clone());
    }
    if !field.examples.is_empty() {
        schema.insert("examples".into(), Value::Array(field.examples.clone()));
    }
    if field.deprecated {
        schema.insert("deprecated".into(), json!(true));
    }
    Value::Object(schema)
}

/// The type part of a field's schema (before constraints and documentation).
fn type_schema(field: &Field) -> Map<String, Value> {
    let mut schema = Map::new();
    let string_format = |format: &str| {
        let mut m = Map::new();
        m.insert("type".into(), json!("string"));
        m.insert("format".into(), json!(format));
        m
    };
    match &field.ty {
        FieldType::String => {
            schema.insert("type".into(), json!("string"));
        }
        FieldType::Integer => {
            schema.insert("type".into(), json!("integer"));
        }
        FieldType::Number => {
            schema.insert("type".into(), json!("number"));
        }
        FieldType::Boolean => {
            schema.insert("type".into(), json!("boolean"));
        }
        FieldType::Uuid => return string_format("uuid"),
        FieldType::Date => return string_format("date"),
        FieldType::DateTime => return string_format("date-time"),
        FieldType::Decimal => {
            schema.insert("type".into(), json!("string"));
            schema.insert("pattern".into(), json!(DECIMAL_PATTERN));
        }
        FieldType::Json => {}
        FieldType::Object(fields) => return object_schema(fields.iter()),
        FieldType::Array(items) => {
            schema.insert("type".into(), json!("array"));
            schema.insert("items".into(), field_schema(items));
        }
        FieldType::Map(values) => {
            schema.insert("type".into(), json!("object"));
            schema.insert("additionalProperties".into(), field_schema(values));
        }
        FieldType::Named(name) => {
            schema.insert("$ref".into(), json!(format!("#/$defs/{name}")));
        }
        FieldType::AnyOf { variants, tag } => {
            let branches = variants
                .iter()
                .map(|v| match tag {
                    Some(tag) => tagged_variant(tag, &v.name, &v.field),
                    None => field_schema(&v.field),
                })
                .collect();
            schema.insert("anyOf".into(), Value::Array(branches));
        }
        FieldType::Shape { schema: raw, .. } => {
            if let Value::Object(map) = raw {
                return map.clone();
            }
        }
    }
    schema
}

/// The pattern every `decimal` string matches.
pub const DECIMAL_PATTERN: &str = r"^-?[0-9]+(\.[0-9]+)?$";

fn tagged_variant(tag: &str, value: &str, field: &Field) -> Value {
    let mut schema = field_schema(field);
    if let Value::Object(map) = &mut schema {
        let mut properties = Map::new();
        properties.insert(tag.into(), json!({ "const": value }));
        if let Some(Value::Object(existing)) = map.remove("properties") {
            properties.extend(existing);
        }
        let mut required = vec![json!(tag)];
        if let Some(Value::Array(existing)) = map.remove("required") {
            required.extend(existing);
        }
        // Rebuild in canonical key order: type, properties, required, the rest.
        let mut ordered = Map::new();
        ordered.insert("type".into(), map.remove("type").unwrap_or(json!("object")));
        ordered.insert("properties".into(), Value::Object(properties));
        ordered.insert("required".into(), Value::Array(required));
        ordered.extend(std::mem::take(map));
        *map = ordered;
    }
    schema
}

fn apply_nullable(field: &Field, mut schema: Map<String, Value>) -> Map<String, Value> {
    if !field.nullable || matches!(field.ty, FieldType::Json) {
        return schema;
    }
    match schema.get("type") {
        Some(Value::String(ty)) if !matches!(field.ty, FieldType::AnyOf { .. }) => {
            let ty = ty.clone();
            schema.insert("type".into(), json!([ty, "null"]));
            schema
        }
        _ => {
            let mut wrapper = Map::new();
            wrapper.insert(
                "anyOf".into(),
                json!([Value::Object(schema), { "type": "null" }]),
            );
            wrapper
        }
    }
}

/// `$defs` for every named type the fields reach, transitively, sorted by name.
fn defs_for(fields: &[&Field], types: &Types) -> Map<String, Value> {
    let mut reached = BTreeSet::new();
    let mut stack: Vec<String> = Vec::new();
    for field in fields {
        collect_named(field, &mut stack);
    }
    while let Some(name) = stack.pop() {
        if !reached.insert(name.clone()) {
            continue;
        }
        if let Some(named) = types.get(&name) {
            collect_named(&named.field, &mut stack);
        }
    }
    let mut defs = Map::new();
    for name in reached {
        if let Some(named) = types.get(&name) {
            let mut schema = field_schema(&named.field);
            if let Value::Object(map) = &mut schema {
                map.remove("default");
            }
            defs.insert(name, schema);
        }
    }
    defs
}

/// Pushes the named types a field refers to directly (not through other named types).
pub fn collect_named(field: &Field, out: &mut Vec<String>) {
    match &field.ty {
        FieldType::Named(name) => out.push(name.clone()),
        FieldType::Object(fields) => fields.iter().for_each(|f| collect_named(f, out)),
        FieldType::Array(inner) | FieldType::Map(inner) => collect_named(inner, out),
        FieldType::AnyOf { variants, .. } => {
            variants.iter().for_each(|v| collect_named(&v.field, out))
        }
        _ => {}
    }
}
