//! Field definitions: `expects`, `exposes`, object `fields`, array `items`, map `values`,
//! `any_of` variants and named types all share this grammar, and a field's type (a built-in or
//! named type, an object's `fields`, an array's `items`, a map's `values`, an `any_of` union or
//! a raw JSON Schema `shape`) holds fields in turn: the two read each other.

use serde_json::Value as Json;

use crate::diagnostic::kind::Kind;
use crate::read::constraints::{check_bounds, read_constraint, read_one_of};
use crate::read::field_key::{FieldKey, Place, misspelt_builtin};
use crate::read::query::read_ref;
use crate::read::reader::{Reader, Spellings, article, on_field, suggest};
use crate::read::yaml::{Node, Value};
use crate::rust_name;
use crate::schema_tree::{MAX_DEPTH, too_deep};
use crate::source::{Span, Spanned};
use crate::spec::{Field, FieldType, Variant};

/// Reads a map of field definitions (`expects`, `exposes`, `fields`).
pub fn read_fields(r: &mut Reader<'_>, node: &Node, what: &str, place: Place) -> Vec<Field> {
    if matches!(node.value, Value::Null) {
        return Vec::new();
    }
    let Some(entries) = r.map(node, what) else {
        if matches!(node.value, Value::Seq(_))
            && let Some(last) = r.diagnostics.last_mut()
        {
            last.help = Some(format!(
                "{what} maps each field name to its definition, like `order_id: {{ type: integer }}`"
            ));
        }
        return Vec::new();
    };
    let mut fields = Vec::new();
    let mut spellings = Spellings::new("fields", "the Rust field");
    for (key, def) in entries {
        let Some(name) = r.string(key, "a field name") else {
            continue;
        };
        if !is_field_name(&name) {
            r.report(
                r.error(
                    Kind::InvalidValue,
                    key.span,
                    format!("field name `{name}` is not an identifier"),
                )
                .with_label("not an identifier")
                .with_help("use letters, digits and underscores, starting with a letter"),
            );
            continue;
        }
        if !spellings.admit(r, &name, key.span, rust_name::value_name(&name)) {
            continue;
        }
        if let Some(field) = read_field(r, name, key.span, def, place) {
            fields.push(field);
        }
    }
    fields
}

/// Whether `name` can be a field name (`[A-Za-z_][A-Za-z0-9_]*`).
fn is_field_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn read_on(r: &mut Reader<'_>, node: &Node, place: Place, field: &mut Field) {
    let Some(value) = r.string(node, "`on`") else {
        return;
    };
    if value != "ambient_context" {
        let help = suggest(&value, ["ambient_context"]).map(|m| format!("did you mean `{m}`?"));
        r.report(
            r.error(
                Kind::UnknownName,
                node.span,
                format!("unknown `on` value `{value}`"),
            )
            .with_label("expected `ambient_context`")
            .with_help_opt(help),
        );
        return;
    }
    if place != Place::Expects {
        r.report(r.error(Kind::Conflict, node.span,
            "`on: ambient_context` is allowed on top-level `expects` fields only",).with_label("not a top-level input").with_help(if place == Place::Exposes {
            "ambient values are inputs: declare the field under `expects`".into()
        } else {
            format!(
                "declare `{}` as a top-level `expects` field; the handler receives it in `Ambient`",
                field.name
            )
        }));
        return;
    }
    field.ambient = true;
}

/// Reads one field definition (a map, or a type name as shorthand).
pub fn read_field(
    r: &mut Reader<'_>,
    name: String,
    span: Span,
    def: &Node,
    place: Place,
) -> Option<Field> {
    let mut field = Field::new(name, span, def.span);
    if let Value::Str(type_name) = &def.value {
        field.ty = read_type_name(r, type_name, def.span, None, place)?;
        return Some(field);
    }
    if def.get("type").and_then(Node::as_str) == Some("ref") {
        return read_ref(r, field.name, span, def, place == Place::Expects);
    }
    let entries = r.map(def, &format!("the definition of `{}`", field.name))?;
    let keys = r.section::<FieldKey>(entries, &format!("field `{}`", field.name));
    let typed = ["type", "any_of", "shape"]
        .iter()
        .any(|k| def.get(k).is_some());
    let ambient = def.get("on").and_then(Node::as_str) == Some("ambient_context");
    if !typed && ambient && place == Place::Expects {
        declared_ambient_type(r, &mut field, def)?;
    } else {
        read_type(r, &mut field, def, place)?;
    }
    // Before `default`, which an ambient field may not have.
    if let Some(node) = def.get("on") {
        read_on(r, node, place, &mut field);
    }
    for (key, key_node, node) in keys {
        read_attribute(r, key, key_node, node, place, &mut field);
    }
    if let Some(from) = field.from.as_ref().filter(|_| !field.ambient) {
        r.report(
            r.error(
                Kind::Conflict,
                from.span,
                format!("`from` on `{}`, which is not an ambient field", field.name),
            )
            .with_label("only with `on: ambient_context`")
            .with_help(
                "`from` names the key of the trusted context an `on: ambient_context` field \
                 takes its value from; add `on: ambient_context`, or remove `from`",
            ),
        );
    }
    check_bounds(r, def, &field);
    Some(field)
}

/// An ambient field written without a type: the project's declaration of its key (`from`,
/// or its name) gives it, and a description when it has none.
fn declared_ambient_type(r: &mut Reader<'_>, field: &mut Field, def: &Node) -> Option<()> {
    let key = def
        .get("from")
        .and_then(Node::as_str)
        .unwrap_or(&field.name)
        .to_owned();
    let Some(decl) = r.ambient.iter().find(|a| a.name.value == key) else {
        let declared: Vec<&str> = r.ambient.iter().map(|a| a.name.value.as_str()).collect();
        let close = suggest(&key, declared.iter().copied());
        r.report(
            r.error(
                Kind::MissingKey,
                field.span,
                format!(
                    "ambient field `{}` has no `type`, and the project declares no ambient `{key}`",
                    field.name
                ),
            )
            .with_label("missing `type`")
            .with_help(match close {
                Some(close) => format!("did you mean `from: {close}`? Or add `type:`"),
                None => format!(
                    "add `type:`, or declare `{key}` once for every tool under `ambient:` in \
                     `toolspec.yaml`"
                ),
            }),
        );
        return None;
    };
    field.ty = crate::read::query::field_type(decl.ty);
    if field.description.is_none() {
        field.description.clone_from(&decl.description);
    }
    Some(())
}

/// `from:` — the ambient key an `on: ambient_context` field takes its value from.
fn read_from(r: &mut Reader<'_>, node: &Node, field: &Field) -> Option<Spanned<String>> {
    let key = r.spanned_string(node, "`from`")?;
    if is_field_name(&key.value) {
        return Some(key);
    }
    r.report(
        r.error(
            Kind::InvalidValue,
            node.span,
            format!(
                "`from: {}` on `{}` is not a key name",
                key.value, field.name
            ),
        )
        .with_label("not an identifier")
        .with_help("name a key of the trusted context: letters, digits and underscores"),
    );
    None
}

/// Reads the value of `key` into `field`, whose type is known.
fn read_attribute(
    r: &mut Reader<'_>,
    key: FieldKey,
    key_node: &Node,
    node: &Node,
    place: Place,
    field: &mut Field,
) {
    let flag = |r: &mut Reader<'_>, what| r.bool(node, what).unwrap_or(false);
    match key {
        // Read with the type, or before the others.
        FieldKey::Type
        | FieldKey::AnyOf
        | FieldKey::Tag
        | FieldKey::Shape
        | FieldKey::Fields
        | FieldKey::Items
        | FieldKey::Values
        | FieldKey::On => {}
        FieldKey::From => {
            field.from = read_from(r, node, field);
        }
        FieldKey::Description => field.description = r.string(node, "`description`"),
        FieldKey::Examples => {
            if let Some(items) = r.seq(node, "`examples`") {
                field.examples = items.iter().map(Node::to_json).collect();
            }
        }
        FieldKey::Deprecated => field.deprecated = flag(r, "`deprecated`"),
        FieldKey::Sensitive => field.sensitive = flag(r, "`sensitive`"),
        FieldKey::Nullable => field.nullable = flag(r, "`nullable`"),
        FieldKey::Optional if matches!(place, Place::Element { .. }) => r.report(
            r.error(
                Kind::Conflict,
                node.span,
                "`optional` applies to named fields, not to items, values or variants",
            )
            .with_label("not allowed here"),
        ),
        FieldKey::Optional => field.optional = flag(r, "`optional`"),
        FieldKey::Default => read_default(r, node, place, field),
        FieldKey::RustType => read_rust_type(r, node, field),
        FieldKey::OneOf => field.one_of = read_one_of(r, node, &field.ty),
        constraint => read_constraint(r, constraint, key_node, node, field),
    }
}

/// `default:`, on an input that is not ambient.
fn read_default(r: &mut Reader<'_>, node: &Node, place: Place, field: &mut Field) {
    if place.output() {
        r.report(
            r.error(
                Kind::Conflict,
                node.span,
                "`default` applies to inputs (`expects`), not outputs",
            )
            .with_label("output field")
            .with_help("remove `default`: outputs are what the handler returns"),
        );
    } else if field.ambient {
        r.report(
            r.error(
                Kind::Default,
                node.span,
                format!("ambient field `{}` cannot have a default", field.name),
            )
            .with_label("default on an ambient field")
            .with_help(
                "ambient values come only from the trusted context; use `optional: true` if it may be absent",
            ),
        );
    } else {
        field.default = Some(Spanned::new(node.to_json(), node.span));
    }
}

/// `rust_type:`, a Rust type path.
fn read_rust_type(r: &mut Reader<'_>, node: &Node, field: &mut Field) {
    let Some(path) = r.spanned_string(node, "`rust_type`") else {
        return;
    };
    if syn::parse_str::<syn::TypePath>(&path.value).is_ok() {
        field.rust_type = Some(path);
        return;
    }
    r.report(
        r.error(
            Kind::InvalidValue,
            node.span,
            format!("`rust_type` `{}` is not a Rust type path", path.value),
        )
        .with_label("not a type path")
        .with_help("write a path such as `crate::money::Cents` or `std::net::IpAddr`"),
    );
}

/// The type of a field written as a map: from exactly one of `type`, `any_of` or `shape`;
/// `tag`, `fields`, `items` and `values` only where the type takes them. `None` when the field
/// has no usable type (reported).
fn read_type(r: &mut Reader<'_>, field: &mut Field, def: &Node, place: Place) -> Option<()> {
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

fn scalar_type(name: &str) -> Option<FieldType> {
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
fn read_type_name(
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
fn read_any_of(
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

fn read_shape(r: &mut Reader<'_>, node: &Node) -> Option<FieldType> {
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

/// The span of `key` itself (not its value) in the map `def`.
fn key_span(def: &Node, key: &str) -> Option<Span> {
    def.as_map()?
        .iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .map(|(k, _)| k.span)
}
