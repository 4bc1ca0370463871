//! Field definitions: `expects`, `exposes`, object `fields`, array `items`, map `values`,
//! `any_of` variants and named types all share this grammar.

use serde_json::Value as Json;

use crate::diagnostic::did_you_mean;
use crate::diagnostic::kind::Kind;
use crate::read::reader::{Reader, Spellings, article, suggest};
use crate::read::yaml::{Node, Value};
use crate::rust_name;
use crate::schema_tree::{MAX_DEPTH, too_deep};
use crate::source::Span;
use crate::source::Spanned;
use crate::spec::{Constraints, Field, FieldType, Format, Variant};

/// Where a field definition stands; decides which keys it may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A top-level `expects` field.
    Expects,
    /// A top-level `exposes` field.
    Exposes,
    /// A field of a nested object (input or output side).
    Nested {
        /// Whether it is on the output side.
        output: bool,
    },
    /// An array's `items`, a map's `values`, an `any_of` variant, a named type.
    Element {
        /// Whether it is on the output side.
        output: bool,
    },
}

impl Place {
    fn output(self) -> bool {
        match self {
            Self::Expects => false,
            Self::Exposes => true,
            Self::Nested { output } | Self::Element { output } => output,
        }
    }
}

const FIELD_KEYS: &[&str] = &[
    "type",
    "description",
    "examples",
    "deprecated",
    "optional",
    "nullable",
    "default",
    "one_of",
    "any_of",
    "tag",
    "fields",
    "items",
    "values",
    "min_length",
    "max_length",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusive_minimum",
    "exclusive_maximum",
    "multiple_of",
    "min_items",
    "max_items",
    "unique_items",
    "on",
    "sensitive",
    "rust_type",
    "shape",
];

const STRING_KEYS: &[&str] = &["min_length", "max_length", "pattern", "format"];
const NUMBER_KEYS: &[&str] = &[
    "minimum",
    "maximum",
    "exclusive_minimum",
    "exclusive_maximum",
    "multiple_of",
];
const ARRAY_KEYS: &[&str] = &["min_items", "max_items", "unique_items"];

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
pub fn is_field_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
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

/// Reads one field definition (a map, or a type name as shorthand).
pub fn read_field(
    r: &mut Reader<'_>,
    name: String,
    span: Span,
    def: &Node,
    place: Place,
) -> Option<Field> {
    let mut field = Field {
        name,
        span,
        type_span: def.span,
        ty: FieldType::Json,
        description: None,
        examples: Vec::new(),
        deprecated: false,
        optional: false,
        nullable: false,
        default: None,
        one_of: None,
        constraints: Constraints::default(),
        ambient: false,
        sensitive: false,
        rust_type: None,
    };
    if let Value::Str(type_name) = &def.value {
        field.ty = read_type_name(r, type_name, def.span, None, place)?;
        return Some(field);
    }
    let entries = r.map(def, &format!("the definition of `{}`", field.name))?;
    r.check_keys(entries, FIELD_KEYS, &format!("field `{}`", field.name));
    let get = |key: &str| def.get(key);

    // The type: `type`, `any_of` or `shape`, exactly one.
    let sources: Vec<&str> = ["type", "any_of", "shape"]
        .into_iter()
        .filter(|k| get(k).is_some())
        .collect();
    if sources.len() > 1 {
        let second = get(sources[1]).map(|n| n.span).unwrap_or(def.span);
        r.report(
            r.error(
                Kind::Conflict,
                second,
                format!(
                    "field `{}` has both `{}` and `{}`",
                    field.name, sources[0], sources[1]
                ),
            )
            .with_help("a field's type comes from exactly one of `type`, `any_of` or `shape`"),
        );
        return None;
    }
    if let Some(node) = get("type") {
        field.type_span = node.span;
        let type_name = r.string(node, "`type`")?;
        field.ty = read_type_name(r, &type_name, node.span, Some(def), place)?;
    } else if let Some(node) = get("any_of") {
        field.type_span = node.span;
        field.ty = read_any_of(r, &field.name, node, def.get("tag"), place)?;
    } else if let Some(node) = get("shape") {
        field.type_span = node.span;
        field.ty = read_shape(r, node)?;
    } else {
        r.report(
            r.error(
                Kind::MissingKey,
                span,
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
    if get("tag").is_some() && get("any_of").is_none() {
        let tag_span = get("tag").map(|n| n.span).unwrap_or(span);
        r.report(
            r.error(
                Kind::Conflict,
                tag_span,
                "`tag` applies to `any_of` fields only",
            )
            .with_label("no `any_of` here"),
        );
    }
    for (key, needs) in [("fields", "object"), ("items", "array"), ("values", "map")] {
        if get(key).is_some() && field.ty.describe() != needs && !misspelt_builtin(&field.ty) {
            r.report(
                r.error(
                    Kind::Conflict,
                    key_span(def, key).unwrap_or(span),
                    format!(
                        "`{key}` applies to `{needs}` fields, not `{}`",
                        field.ty.describe()
                    ),
                )
                .with_label(on_field(&field.ty.describe()))
                .with_help(format!("remove `{key}`, or make the field `type: {needs}`")),
            );
        }
    }

    if let Some(n) = get("description") {
        field.description = r.string(n, "`description`");
    }
    if let Some(n) = get("examples")
        && let Some(items) = r.seq(n, "`examples`")
    {
        field.examples = items.iter().map(Node::to_json).collect();
    }
    if let Some(n) = get("deprecated") {
        field.deprecated = r.bool(n, "`deprecated`").unwrap_or(false);
    }
    if let Some(n) = get("sensitive") {
        field.sensitive = r.bool(n, "`sensitive`").unwrap_or(false);
    }
    if let Some(n) = get("nullable") {
        field.nullable = r.bool(n, "`nullable`").unwrap_or(false);
    }
    if let Some(n) = get("optional") {
        if matches!(place, Place::Element { .. }) {
            r.report(
                r.error(
                    Kind::Conflict,
                    n.span,
                    "`optional` applies to named fields, not to items, values or variants",
                )
                .with_label("not allowed here"),
            );
        } else {
            field.optional = r.bool(n, "`optional`").unwrap_or(false);
        }
    }
    if let Some(n) = get("on") {
        read_on(r, n, place, &mut field);
    }
    if let Some(n) = get("default") {
        if place.output() {
            r.report(
                r.error(
                    Kind::Conflict,
                    n.span,
                    "`default` applies to inputs (`expects`), not outputs",
                )
                .with_label("output field")
                .with_help("remove `default`: outputs are what the handler returns"),
            );
        } else if field.ambient {
            r.report(r.error(Kind::Default, n.span,
                format!("ambient field `{}` cannot have a default", field.name),).with_label("default on an ambient field").with_help("ambient values come only from the trusted context; use `optional: true` if it may be absent"));
        } else {
            field.default = Some(Spanned::new(n.to_json(), n.span));
        }
    }
    if let Some(n) = get("rust_type")
        && let Some(path) = r.spanned_string(n, "`rust_type`")
    {
        if syn::parse_str::<syn::TypePath>(&path.value).is_ok() {
            field.rust_type = Some(path);
        } else {
            r.report(
                r.error(
                    Kind::InvalidValue,
                    n.span,
                    format!("`rust_type` `{}` is not a Rust type path", path.value),
                )
                .with_label("not a type path")
                .with_help("write a path such as `crate::money::Cents` or `std::net::IpAddr`"),
            );
        }
    }
    if let Some(n) = get("one_of") {
        field.one_of = read_one_of(r, n, &field.ty);
    }
    read_constraints(r, def, &mut field);
    Some(field)
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

fn read_any_of(
    r: &mut Reader<'_>,
    field: &str,
    node: &Node,
    tag: Option<&Node>,
    place: Place,
) -> Option<FieldType> {
    let output = place.output();
    let element = Place::Element { output };
    if let Some(tag_node) = tag {
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
        let entries = match node.as_map() {
            Some(entries) => entries,
            None => {
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
            }
        };
        let mut variants = Vec::new();
        for (key, def) in entries {
            let Some(value) = r.string(key, "a tag value") else {
                continue;
            };
            let Some(variant) = read_field(r, value.clone(), key.span, def, element) else {
                continue;
            };
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
                        continue;
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
                    continue;
                }
            }
            variants.push(Variant {
                name: value,
                field: variant,
            });
        }
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
        return Some(FieldType::AnyOf {
            variants,
            tag: Some(tag),
        });
    }
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

fn read_one_of(r: &mut Reader<'_>, node: &Node, ty: &FieldType) -> Option<Spanned<Vec<Json>>> {
    let items = r.seq(node, "`one_of`")?;
    if items.is_empty() {
        r.report(
            r.error(
                Kind::MissingKey,
                node.span,
                "`one_of` needs at least one value",
            )
            .with_label("empty list"),
        );
        return None;
    }
    let kind_of = |n: &Node| match n.value {
        Value::Str(_) => Some("string"),
        Value::Int(_) => Some("integer"),
        Value::Float(_) => Some("number"),
        Value::Bool(_) => Some("boolean"),
        _ => None,
    };
    let first = kind_of(&items[0]);
    for item in items {
        let Some(kind) = kind_of(item) else {
            r.wrong_kind(item, "each `one_of` value", "a string, number or boolean");
            return None;
        };
        let numeric = |k: &str| k == "integer" || k == "number";
        let same = Some(kind) == first
            || (first.is_some_and(numeric) && numeric(kind) && first != Some("integer"));
        if !same {
            r.report(
                r.error(
                    Kind::InvalidValue,
                    item.span,
                    format!(
                        "`one_of` mixes types: {} and {}",
                        article(first.unwrap_or("?")),
                        article(kind)
                    ),
                )
                .with_label(format!("{} among {}s", article(kind), first.unwrap_or("?")))
                .with_help("all `one_of` values must have the field's type"),
            );
            return None;
        }
    }
    let first = first.unwrap_or("string");
    let fits = match ty {
        FieldType::String => first == "string",
        FieldType::Integer => first == "integer",
        FieldType::Number => first == "integer" || first == "number",
        FieldType::Boolean => first == "boolean",
        FieldType::Named(_) | FieldType::Json => true,
        _ => false,
    };
    if !fits {
        r.report(
            r.error(
                Kind::InvalidValue,
                node.span,
                format!(
                    "`one_of` of {} values does not fit a `{}` field",
                    first,
                    ty.describe()
                ),
            )
            .with_label(format!("{first} values"))
            .with_help(format!(
                "write {} values, or change the field's `type`",
                ty.describe()
            )),
        );
        return None;
    }
    let mut seen: Vec<Json> = Vec::new();
    for item in items {
        let value = item.to_json();
        if seen.contains(&value) {
            r.report(
                r.error(
                    Kind::NameClash,
                    item.span,
                    format!("`one_of` lists {value} twice"),
                )
                .with_label("duplicate"),
            );
            return None;
        }
        seen.push(value);
    }
    Some(Spanned::new(seen, node.span))
}

fn read_constraints(r: &mut Reader<'_>, def: &Node, field: &mut Field) {
    let kind = field.ty.describe();
    let applies = |key: &str| -> bool {
        match key {
            k if STRING_KEYS.contains(&k) => kind == "string",
            k if NUMBER_KEYS.contains(&k) => kind == "integer" || kind == "number",
            k if ARRAY_KEYS.contains(&k) => kind == "array",
            _ => true,
        }
    };
    let Some(entries) = def.as_map() else { return };
    for (key, node) in entries {
        let Some(key) = key.as_str() else { continue };
        let is_constraint =
            STRING_KEYS.contains(&key) || NUMBER_KEYS.contains(&key) || ARRAY_KEYS.contains(&key);
        if !is_constraint {
            continue;
        }
        if !applies(key) && !misspelt_builtin(&field.ty) {
            let target = if STRING_KEYS.contains(&key) {
                "string"
            } else if NUMBER_KEYS.contains(&key) {
                "integer and number"
            } else {
                "array"
            };
            r.report(
                r.error(
                    Kind::Conflict,
                    node.span,
                    format!("`{key}` applies to {target} fields, not `{kind}`"),
                )
                .with_label(on_field(&kind)),
            );
            continue;
        }
        let what = format!("`{key}`");
        let c = &mut field.constraints;
        match key {
            "min_length" => c.min_length = r.u64(node, &what),
            "max_length" => c.max_length = r.u64(node, &what),
            "min_items" => c.min_items = r.u64(node, &what),
            "max_items" => c.max_items = r.u64(node, &what),
            "unique_items" => c.unique_items = r.bool(node, &what).unwrap_or(false),
            "minimum" => c.minimum = r.number(node, &what),
            "maximum" => c.maximum = r.number(node, &what),
            "exclusive_minimum" => c.exclusive_minimum = r.number(node, &what),
            "exclusive_maximum" => c.exclusive_maximum = r.number(node, &what),
            "multiple_of" => {
                c.multiple_of = r.number(node, &what);
                if c.multiple_of
                    .as_ref()
                    .and_then(|n| n.as_f64())
                    .is_some_and(|m| m <= 0.0)
                {
                    r.report(
                        r.error(
                            Kind::InvalidValue,
                            node.span,
                            "`multiple_of` must be greater than 0",
                        )
                        .with_label("not positive"),
                    );
                    field.constraints.multiple_of = None;
                }
            }
            "format" => {
                if let Some(s) = r.string(node, &what) {
                    match Format::parse(&s) {
                        Some(f) => c.format = Some(f),
                        None => {
                            let help = did_you_mean(&s, Format::NAMES.iter().copied())
                                .map(|m| format!("did you mean `{m}`?"))
                                .unwrap_or_else(|| {
                                    format!("formats are: {}", Format::NAMES.join(", "))
                                });
                            r.report(
                                r.error(
                                    Kind::UnknownName,
                                    node.span,
                                    format!("unknown format `{s}`"),
                                )
                                .with_label("not a known format")
                                .with_help(help),
                            );
                        }
                    }
                }
            }
            "pattern" => {
                if let Some(p) = r.spanned_string(node, &what) {
                    match crate::pattern::check(&p.value) {
                        Ok(()) => c.pattern = Some(p),
                        Err(refusal) => {
                            r.report(
                                r.error(
                                    Kind::Pattern,
                                    node.span,
                                    format!("`pattern` `{}` {}", p.value, refusal.reason),
                                )
                                .with_label(refusal.label)
                                .with_help(refusal.help),
                            );
                        }
                    }
                }
            }
            _ => {}
        }
    }
    check_bounds(r, def, field);
}

/// "on an `integer` field"
fn on_field(kind: &str) -> String {
    let an = kind.starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']);
    format!("on {} `{kind}` field", if an { "an" } else { "a" })
}

/// A lower-case type name that is not built in: never a named type (those are UpperCamelCase),
/// so it is reported as an unknown type, and keys that depend on the type are not checked.
fn misspelt_builtin(ty: &FieldType) -> bool {
    matches!(ty, FieldType::Named(name) if !name.starts_with(|c: char| c.is_ascii_uppercase()))
}

/// The span of `key` itself (not its value) in the map `def`.
fn key_span(def: &Node, key: &str) -> Option<Span> {
    def.as_map()?
        .iter()
        .find(|(k, _)| k.as_str() == Some(key))
        .map(|(k, _)| k.span)
}

fn check_bounds(r: &mut Reader<'_>, def: &Node, field: &Field) {
    let c = &field.constraints;
    let pairs: [(&str, Option<f64>, &str, Option<f64>); 3] = [
        (
            "min_length",
            c.min_length.map(|v| v as f64),
            "max_length",
            c.max_length.map(|v| v as f64),
        ),
        (
            "minimum",
            c.minimum.as_ref().and_then(|n| n.as_f64()),
            "maximum",
            c.maximum.as_ref().and_then(|n| n.as_f64()),
        ),
        (
            "min_items",
            c.min_items.map(|v| v as f64),
            "max_items",
            c.max_items.map(|v| v as f64),
        ),
    ];
    for (lo_key, lo, hi_key, hi) in pairs {
        if let (Some(lo), Some(hi)) = (lo, hi)
            && lo > hi
        {
            let span = def.get(lo_key).map(|n| n.span).unwrap_or(field.span);
            r.report(
                r.error(
                    Kind::InvalidValue,
                    span,
                    format!("`{lo_key}` ({lo}) is greater than `{hi_key}` ({hi})"),
                )
                .with_label("no value can satisfy both"),
            );
        }
    }
}
