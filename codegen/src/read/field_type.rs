//! A field's type: a built-in or named type (with an object's `fields`, an array's `items`, a
//! map's `values`), an `any_of` union, or a raw JSON Schema `shape`.

use serde_json::Value as Json;

use crate::diagnostic::kind::Kind;
use crate::read::field::{Place, is_field_name, read_field, read_fields};
use crate::read::reader::{Reader, article};
use crate::read::yaml::Node;
use crate::rust_name;
use crate::schema_tree::{MAX_DEPTH, too_deep};
use crate::source::Span;
use crate::spec::{Field, FieldType, Variant};

/// The type of a field written as a map: from exactly one of `type`, `any_of` or `shape`;
/// `tag`, `fields`, `items` and `values` only where the type takes them. `None` when the field
/// has no usable type (reported).
pub fn read_type(r: &mut Reader<'_>, field: &mut Field, def: &Node, place: Place) -> Option<()> {
    let sources: Vec<(&str, &Node)> = ["type", "any_of", "shape"]
        .into_iter()
        .filter_map(|k| Some((k, def.get(k)?)))
        .collect();
    let (source, node) = match sources.as_slice() {
        [] => {
            r.report(
                r.error(
                    Kind::MissingKey,
                    field.span,
                    format!("field `{}` has no `type`", field.name),
                )
                .with_label("missing `type`")
                .with_help(format!(
                    "add `type:`, one of {}, or a named type",
                    FieldType::BUILTIN.join(", ")
                )),
            );
            return None;
        }
        [(first, _), (second, node), ..] => {
            r.report(
                r.error(
                    Kind::Conflict,
                    node.span,
                    format!("field `{}` has both `{first}` and `{second}`", field.name),
                )
                .with_help("a field's type comes from exactly one of `type`, `any_of` or `shape`"),
            );
            return None;
        }
        [(source, node)] => (*source, *node),
    };
    field.type_span = node.span;
    field.ty = match source {
        "type" => {
            let type_name = r.string(node, "`type`")?;
            read_type_name(r, &type_name, node.span, Some(def), place)?
        }
        "any_of" => read_any_of(r, &field.name, node, def.get("tag"), place)?,
        _ => read_shape(r, node)?,
    };
    check_type_keys(r, field, def);
    Some(())
}

/// `tag` only with `any_of`; `fields`, `items` and `values` only on objects, arrays and maps.
fn check_type_keys(r: &mut Reader<'_>, field: &Field, def: &Node) {
    if let (Some(tag), None) = (def.get("tag"), def.get("any_of")) {
        r.report(
            r.error(
                Kind::Conflict,
                tag.span,
                "`tag` applies to `any_of` fields only",
            )
            .with_label("no `any_of` here"),
        );
    }
    let kind = field.ty.describe();
    for (key, needs) in [("fields", "object"), ("items", "array"), ("values", "map")] {
        if def.get(key).is_some() && kind != needs && !misspelt_builtin(&field.ty) {
            r.report(
                r.error(
                    Kind::Conflict,
                    key_span(def, key).unwrap_or(field.span),
                    format!("`{key}` applies to `{needs}` fields, not `{kind}`"),
                )
                .with_label(on_field(&kind))
                .with_help(format!("remove `{key}`, or make the field `type: {needs}`")),
            );
        }
    }
}

pub fn scalar_type(name: &str) -> Option<FieldType> {
    Some(match name {
        "string" => FieldType::String,
        "integer" => FieldType::Integer,
        "number" => FieldType::Number,
        "boolean" => FieldType::Boolean,
        "uuid" => FieldType::Uuid,
        "date" => FieldType::Date,
        "datetime" => FieldType::DateTime,
        "decimal" => FieldType::Decimal,
        "json" => FieldType::Json,
        _ => return None,
    })
}

/// Resolves a type name to a built-in type, reading `fields`/`items`/`values` as needed.
/// Any other name is taken as a named type, checked once every `types:` file is read.
pub fn read_type_name(
    r: &mut Reader<'_>,
    type_name: &str,
    span: Span,
    def: Option<&Node>,
    place: Place,
) -> Option<FieldType> {
    if let Some(ty) = scalar_type(type_name) {
        return Some(ty);
    }
    let output = place.output();
    let child = |key: &str| def.and_then(|d| d.get(key));
    let missing = |r: &mut Reader<'_>, key: &str| {
        r.report(r.error(Kind::MissingKey, span, format!("`{type_name}` fields need `{key}`")).with_label(format!("`{type_name}` without `{key}`")).with_help(match key {
            "fields" => "add `fields:` mapping each property to its definition, like `fields: { id: { type: integer } }`".into(),
            _ => format!("add `{key}:` with the type of each {}, like `{key}: {{ type: string }}`", if key == "items" { "item" } else { "value" }),
        }));
    };
    match type_name {
        "object" => match child("fields") {
            Some(node) => Some(FieldType::Object(read_fields(
                r,
                node,
                "`fields`",
                Place::Nested { output },
            ))),
            None => {
                missing(r, "fields");
                None
            }
        },
        "array" | "map" => {
            let key = if type_name == "array" {
                "items"
            } else {
                "values"
            };
            let Some(node) = child(key) else {
                missing(r, key);
                return None;
            };
            let element = read_field(
                r,
                key.to_owned(),
                node.span,
                node,
                Place::Element { output },
            )?;
            Some(if type_name == "array" {
                FieldType::Array(Box::new(element))
            } else {
                FieldType::Map(Box::new(element))
            })
        }
        _ => Some(FieldType::Named(type_name.to_owned())),
    }
}

/// `any_of:`: a list of variants, or with `tag:` a map from each tag value to an object.
pub fn read_any_of(
    r: &mut Reader<'_>,
    field: &str,
    node: &Node,
    tag: Option<&Node>,
    place: Place,
) -> Option<FieldType> {
    let element = Place::Element {
        output: place.output(),
    };
    match tag {
        Some(tag) => read_tagged(r, field, node, tag, element),
        None => read_untagged(r, field, node, element),
    }
}

/// `any_of:` with `tag:`: each variant is an object named by its tag value.
fn read_tagged(
    r: &mut Reader<'_>,
    field: &str,
    node: &Node,
    tag_node: &Node,
    element: Place,
) -> Option<FieldType> {
    let tag = r.string(tag_node, "`tag`")?;
    if !is_field_name(&tag) {
        r.report(
            r.error(
                Kind::InvalidValue,
                tag_node.span,
                format!("tag `{tag}` is not an identifier"),
            )
            .with_label("not an identifier"),
        );
        return None;
    }
    let Some(entries) = node.as_map() else {
        r.report(
            r.error(
                Kind::InvalidValue,
                node.span,
                "a tagged `any_of` must map each tag value to an object",
            )
            .with_label(format!("found {}", article(node.kind())))
            .with_help("write `any_of: { card: { type: object, fields: {…} }, … }`"),
        );
        return None;
    };
    let variants: Vec<Variant> = entries
        .iter()
        .filter_map(|(key, def)| read_tagged_variant(r, &tag, key, def, element))
        .collect();
    if variants.is_empty() {
        // Variants that were read but rejected are reported already.
        if entries.is_empty() {
            r.report(
                r.error(
                    Kind::MissingKey,
                    node.span,
                    format!("`any_of` of `{field}` has no variants"),
                )
                .with_label("empty"),
            );
        }
        return None;
    }
    Some(FieldType::AnyOf {
        variants,
        tag: Some(tag),
    })
}

/// One variant of a tagged union: an object without a field named like the tag.
fn read_tagged_variant(
    r: &mut Reader<'_>,
    tag: &str,
    key: &Node,
    def: &Node,
    element: Place,
) -> Option<Variant> {
    let value = r.string(key, "a tag value")?;
    let variant = read_field(r, value.clone(), key.span, def, element)?;
    match &variant.ty {
        FieldType::Object(fields) => {
            if let Some(clash) = fields.iter().find(|f| f.name == tag) {
                r.report(
                    r.error(
                        Kind::NameClash,
                        clash.span,
                        format!("field `{tag}` clashes with the union's tag"),
                    )
                    .with_label("same name as the tag"),
                );
                return None;
            }
        }
        other => {
            r.report(
                r.error(
                    Kind::InvalidValue,
                    variant.type_span,
                    format!(
                        "variant `{value}` of a tagged union must be an object, not `{}`",
                        other.describe()
                    ),
                )
                .with_label("not an object"),
            );
            return None;
        }
    }
    Some(Variant {
        name: value,
        field: variant,
    })
}

/// `any_of:` as a list: at least two variants, named after their types (`String`,
/// `Integer`, `Object2`).
fn read_untagged(
    r: &mut Reader<'_>,
    field: &str,
    node: &Node,
    element: Place,
) -> Option<FieldType> {
    let items = r.seq(node, "`any_of`")?;
    if items.len() < 2 {
        r.report(
            r.error(
                Kind::MissingKey,
                node.span,
                format!("`any_of` of `{field}` needs at least two variants"),
            )
            .with_label("fewer than two")
            .with_help("for a single type, write `type:` instead of `any_of`"),
        );
        return None;
    }
    let mut variants: Vec<Variant> = Vec::new();
    for item in items {
        let Some(variant) = read_field(r, "variant".into(), item.span, item, element) else {
            continue;
        };
        let base = rust_name::type_name(&variant.ty.describe());
        let mut name = base.clone();
        let mut n = 2;
        while variants.iter().any(|v| v.name == name) {
            name = rust_name::numbered(&base, n);
            n += 1;
        }
        variants.push(Variant {
            name,
            field: variant,
        });
    }
    Some(FieldType::AnyOf {
        variants,
        tag: None,
    })
}

pub fn read_shape(r: &mut Reader<'_>, node: &Node) -> Option<FieldType> {
    // `{ file: path/to/schema.json }`: read (and checked) once the whole project is.
    if let (Some(file), Some(entries)) = (node.get("file"), node.as_map()) {
        for (key, _) in entries.iter().filter(|(k, _)| k.as_str() != Some("file")) {
            r.report(
                r.error(
                    Kind::Shape,
                    key.span,
                    "`shape: { file: … }` takes no other keys",
                )
                .with_label("not allowed next to `file`"),
            );
        }
        let file = r.spanned_string(file, "`file`")?;
        return Some(FieldType::Shape {
            schema: Json::Null,
            file: Some(file),
        });
    }
    let schema = node.to_json();
    if !schema.is_object() {
        r.wrong_kind(node, "`shape`", "a JSON Schema object");
        return None;
    }
    // Checked before anything walks it (the meta-schema's validator, typify).
    if too_deep(&schema, MAX_DEPTH).is_some() {
        r.report(
            r.error(
                Kind::TooDeep,
                node.span,
                format!("`shape` nests more than {MAX_DEPTH} levels deep"),
            )
            .with_label("too deep"),
        );
        return None;
    }
    if let Err(e) = crate::schema_tree::well_formed(&schema) {
        r.report(
            r.error(
                Kind::Shape,
                node.span,
                format!("`shape` is not a valid JSON Schema: {e}"),
            )
            .with_label("invalid schema"),
        );
        return None;
    }
    Some(FieldType::Shape { schema, file: None })
}

/// A lower-case type name that is not built in: never a named type (those are UpperCamelCase),
/// so it is reported as an unknown type, and keys that depend on the type are not checked.
pub fn misspelt_builtin(ty: &FieldType) -> bool {
    matches!(ty, FieldType::Named(name) if !name.starts_with(|c: char| c.is_ascii_uppercase()))
}

/// "on an `integer` field"
pub fn on_field(kind: &str) -> String {
    let an = kind.starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']);
    format!("on {} `{kind}` field", if an { "an" } else { "a" })
}

/// The span of `key` itself (not its value) in the map `def`.
pub fn key_span(def: &Node, key: &str) -> Option<Span> {
    def.as_map()?
        .iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .map(|(k, _)| k.span)
}
