//! Canonical JSON Schema 2020-12 derivation from the spec model.
//!
//! Objects list properties in spec order and close with `additionalProperties: false`; named
//! types become `$defs` (only those a schema reaches); ambient fields never appear. Keys are
//! written in one fixed order, so the same spec always gives the same bytes.
//!
//! Bounds are the spec's own, as written: an `integer` the spec leaves unbounded has no
//! `minimum` or `maximum`, though it is an `i64` in Rust. The range of `i64` is no constraint a
//! model or a client needs, and its ends lie past JavaScript's safe integers; the invoker
//! checks values against it (`toolspec`'s validator gives every `integer` the range), so
//! whatever a call passes decodes.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};

use crate::spec::{Field, FieldType, ToolSpec, Types};

/// Marks, while a schema is built, a subschema whose integers keep their own range rather
/// than the `i64` one of the generated types: a field with a `rust_type`, or a `shape` (its
/// Rust type is typify's). [`take_own_ranges`] removes every mark, so no published schema
/// carries one, and says where they were.
const OWN_RANGE: &str = "x-toolspec-own-range";

/// A canonical schema, and the JSON pointers of its subschemas whose integers keep their own
/// range (the runtime holds every other integer to `i64`).
pub struct Canonical {
    /// The schema.
    pub schema: Value,
    /// Where integers keep their own range, in pointer order.
    pub own_ranges: Vec<String>,
}

/// The model-facing input schema of a tool (ambient fields excluded).
pub fn input_schema(tool: &ToolSpec, types: &Types) -> Canonical {
    let fields: Vec<&Field> = tool.expects.iter().filter(|f| !f.ambient).collect();
    take_own_ranges(root_schema(&fields, types))
}

/// The output schema of a tool.
pub fn output_schema(tool: &ToolSpec, types: &Types) -> Canonical {
    let fields: Vec<&Field> = tool.exposes.iter().collect();
    take_own_ranges(root_schema(&fields, types))
}

/// The schema of one field, with `$defs` for the named types it reaches (for checking defaults).
#[cfg(test)]
pub fn standalone_field_schema(field: &Field, types: &Types) -> Value {
    let mut schema = field_schema(field);
    let defs = defs_for(std::slice::from_ref(&field), types);
    if let (Value::Object(map), false) = (&mut schema, defs.is_empty()) {
        map.insert("$defs".into(), Value::Object(defs));
    }
    take_own_ranges(schema).schema
}

/// `schema` without its [`OWN_RANGE`] marks, and where they were.
fn take_own_ranges(mut schema: Value) -> Canonical {
    let mut own_ranges = Vec::new();
    unmark(&mut schema, &mut String::new(), &mut own_ranges);
    own_ranges.sort();
    Canonical { schema, own_ranges }
}

fn unmark(node: &mut Value, pointer: &mut String, found: &mut Vec<String>) {
    match node {
        Value::Object(map) => {
            if map.remove(OWN_RANGE).is_some() {
                found.push(pointer.clone());
            }
            for (key, child) in map.iter_mut() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&toolspec_vocab::pointer::escape(key));
                unmark(child, pointer, found);
                pointer.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter_mut().enumerate() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&i.to_string());
                unmark(child, pointer, found);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
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
        // An asked field may be left out: the user is asked for it then.
        if field.is_required() && !field.asked {
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
    if field.rust_type.is_some() || matches!(field.ty, FieldType::Shape { .. }) {
        schema.insert(OWN_RANGE.into(), json!(true));
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
            schema.insert("pattern".into(), json!(crate::spec::field::DECIMAL_PATTERN));
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::project::build as analyze;
    use crate::source::Source;
    use toolspec_vocab::Dialect;

    const SPEC: &str = r#"
description: Integer bounds.
expects:
  any: { type: integer }
  small: { type: integer, minimum: 1, maximum: 10 }
  positive: { type: integer, minimum: 0 }
  below: { type: integer, exclusive_maximum: 100 }
  huge: { type: integer, minimum: -1e30, maximum: 1e30 }
  edge: { type: integer, maximum: 9223372036854775807 }
  choice: { type: integer, one_of: [1, 2] }
  maybe: { type: integer, nullable: true, optional: true }
  custom: { type: integer, rust_type: u64 }
  list: { type: array, items: integer }
  nested: { type: object, fields: { n: { type: integer } } }
exposes:
  count: { type: integer }
  sizes: { type: map, values: { type: integer, minimum: 0 } }
tool: { anthropic: { strict: true }, openai: { strict: true } }
"#;

    /// Every `minimum` and `maximum` in `schema`, by the path of its node.
    fn bounds_in(schema: &serde_json::Value, path: &str, out: &mut Vec<(String, String)>) {
        match schema {
            serde_json::Value::Object(map) => {
                for (key, value) in map {
                    if (key == "minimum" || key == "maximum") && value.is_number() {
                        out.push((format!("{path}/{key}"), value.to_string()));
                    } else {
                        bounds_in(value, &format!("{path}/{key}"), out);
                    }
                }
            }
            serde_json::Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    bounds_in(item, &format!("{path}/{i}"), out);
                }
            }
            _ => {}
        }
    }

    #[test]
    fn rust_types_and_shapes_keep_their_own_integer_range_unmarked() {
        let spec = "description: Wide.\nexpects:\n  \
            big: { type: integer, rust_type: u64 }\n  \
            plain: { type: integer }\n  \
            raw: { optional: true, shape: { type: integer, minimum: 0 } }\n  \
            rows: { type: array, items: { type: Row } }\n\
            exposes:\n  total: { type: integer, rust_type: u64, nullable: true }\n";
        let types = "types:\n  Row:\n    type: object\n    fields:\n      \
            id: { type: integer, rust_type: u128 }\n      n: { type: integer }\n";
        let project =
            crate::project::from_files(&[("notes/wide.yaml", spec), ("types.yaml", types)]);
        assert!(!project.has_errors(), "{}", project.render_diagnostics());
        let tool = &project.tools[0];
        assert_eq!(
            tool.own_ranges_input,
            [
                "/$defs/Row/properties/id",
                "/properties/big",
                "/properties/raw"
            ]
        );
        assert_eq!(tool.own_ranges_output, ["/properties/total"]);
        // The marks are the compiler's own: no published schema carries one.
        for schema in [&tool.input_schema, &tool.output_schema] {
            assert!(!schema.to_string().contains(super::OWN_RANGE), "{schema}");
        }
        assert_eq!(
            tool.input_schema["properties"]["big"],
            json!({ "type": "integer" })
        );
        let descriptor = tool.descriptor();
        assert_eq!(*descriptor.own_ranges_output, ["/properties/total"]);
    }

    #[test]
    fn published_schemas_carry_only_the_bounds_the_spec_wrote() {
        let project = analyze(
            &[Source {
                path: "bounds.yaml".into(),
                text: SPEC.into(),
            }],
            &[],
            "specs",
        );
        assert!(!project.has_errors(), "{}", project.render_diagnostics());
        let tool = &project.tools[0];
        let p = &tool.input_schema["properties"];
        let bounds = |name: &str| (p[name].get("minimum"), p[name].get("maximum"));
        assert_eq!(bounds("any"), (None, None));
        assert_eq!(p["any"], json!({ "type": "integer" }));
        assert_eq!(bounds("small"), (Some(&json!(1)), Some(&json!(10))));
        assert_eq!(bounds("positive"), (Some(&json!(0)), None));
        assert_eq!(bounds("below"), (None, None));
        assert_eq!(p["below"]["exclusiveMaximum"], json!(100));
        assert_eq!(bounds("huge"), (Some(&json!(-1e30)), Some(&json!(1e30))));
        assert_eq!(bounds("edge"), (None, Some(&json!(i64::MAX))), "as written");
        assert_eq!(p["maybe"], json!({ "type": ["integer", "null"] }));
        assert_eq!(p["list"]["items"], json!({ "type": "integer" }));

        // Every published schema: the canonical input (MCP's `inputSchema`) and output (its
        // `outputSchema`), and the input in every dialect (the member ones as embedded).
        let mut published = vec![
            ("input".to_owned(), tool.input_schema.clone()),
            ("output".to_owned(), tool.output_schema.clone()),
        ];
        for dialect in Dialect::ALL {
            let derived = crate::derive::dialect::derive(dialect, &tool.input_schema);
            assert!(
                derived.is_expressible(),
                "{dialect}: {:?}",
                derived.refusals
            );
            if let Some(embedded) = tool.dialects.get(&dialect) {
                assert_eq!(embedded, &derived.schema, "{dialect}");
            }
            published.push((dialect.name().to_owned(), derived.schema));
        }
        let written = |path: &str, value: &str| {
            let field = path.split('/').nth(2).unwrap_or_default();
            matches!(
                (field, path.rsplit('/').next(), value),
                ("small", Some("minimum"), "1")
                    | ("small", Some("maximum"), "10")
                    | ("positive" | "sizes", Some("minimum"), "0")
                    | ("huge", Some("minimum"), "-1e+30")
                    | ("huge", Some("maximum"), "1e+30")
                    | ("edge", Some("maximum"), "9223372036854775807")
            )
        };
        for (name, schema) in published {
            let mut found = Vec::new();
            bounds_in(&schema, "", &mut found);
            for (path, value) in &found {
                assert!(
                    written(path, value),
                    "{name}: {path} = {value} is no bound of the spec"
                );
            }
            // The spec's own bounds are kept where the dialect can express them.
            if name != "anthropic-strict" && name != "output" {
                assert!(
                    found.contains(&("/properties/small/minimum".to_owned(), "1".to_owned())),
                    "{name}: {found:?}"
                );
                assert!(
                    found.contains(&("/properties/edge/maximum".to_owned(), i64::MAX.to_string())),
                    "{name}: {found:?}"
                );
            }
        }
        assert_eq!(
            tool.output_schema["properties"]["sizes"]["additionalProperties"],
            json!({ "type": "integer", "minimum": 0 })
        );
        let strict = &tool.dialects[&Dialect::AnthropicStrict]["properties"];
        assert_eq!(strict["any"], json!({ "type": "integer" }));
        assert_eq!(
            strict["positive"],
            json!({ "type": "integer", "description": "Must be at least 0." })
        );
        let warnings: Vec<&str> = project
            .diagnostics
            .iter()
            .map(|d| d.message.as_str())
            .filter(|m| m.contains("imum"))
            .collect();
        assert_eq!(
            warnings,
            [
                "anthropic-strict cannot express `minimum` of `small`; it is stated in the description instead",
                "anthropic-strict cannot express `maximum` of `small`; it is stated in the description instead",
                "anthropic-strict cannot express `minimum` of `positive`; it is stated in the description instead",
                "anthropic-strict cannot express `exclusiveMaximum` of `below`; it is stated in the description instead",
                "anthropic-strict cannot express `minimum` of `huge`; it is stated in the description instead",
                "anthropic-strict cannot express `maximum` of `huge`; it is stated in the description instead",
                "anthropic-strict cannot express `maximum` of `edge`; it is stated in the description instead",
                "gemini cannot express `exclusiveMaximum` of `below`; it is stated in the description instead",
            ]
        );
    }

    #[test]
    fn the_decimal_pattern_admits_only_what_rust_decimal_reads() {
        let pattern = regex_lite(crate::spec::field::DECIMAL_PATTERN);
        let digits = |n: usize| "9".repeat(n);
        for ok in [
            "0".to_owned(),
            "-1.5".to_owned(),
            digits(28),
            format!("-{}.{}", digits(28), digits(40)),
            format!("0.{}1", "0".repeat(60)),
        ] {
            assert!(pattern(&ok), "{ok}");
        }
        for bad in [
            digits(29),
            "1.".into(),
            ".5".into(),
            "+1".into(),
            "1e5".into(),
        ] {
            assert!(!pattern(&bad), "{bad}");
        }
    }

    /// `^-?[0-9]{1,28}(\.[0-9]+)?$`, checked by hand (the codegen has no regex engine).
    fn regex_lite(pattern: &str) -> impl Fn(&str) -> bool {
        assert_eq!(pattern, r"^-?[0-9]{1,28}(\.[0-9]+)?$");
        |s: &str| {
            let s = s.strip_prefix('-').unwrap_or(s);
            let (int, fraction) = match s.split_once('.') {
                Some((i, f)) => (i, Some(f)),
                None => (s, None),
            };
            let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
            digits(int) && int.len() <= 28 && fraction.is_none_or(digits)
        }
    }
}
