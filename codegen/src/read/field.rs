//! Field definitions: `expects`, `exposes`, object `fields`, array `items`, map `values`,
//! `any_of` variants and named types all share this grammar.

use crate::diagnostic::kind::Kind;
use crate::read::constraints::{check_bounds, read_constraint, read_one_of};
use crate::read::field_type::{read_type, read_type_name};
use crate::read::reader::{Reader, Spellings, section, suggest};
use crate::read::yaml::{Node, Value};
use crate::rust_name;
use crate::source::{Span, Spanned};
use crate::spec::Field;

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
    /// Whether the field is on the output side.
    pub fn output(self) -> bool {
        match self {
            Self::Expects => false,
            Self::Exposes => true,
            Self::Nested { output } | Self::Element { output } => output,
        }
    }
}

section! {
    /// The keys of a field definition, in the order help lists them.
    pub enum FieldKey {
        Type = "type",
        Description = "description",
        Examples = "examples",
        Deprecated = "deprecated",
        Optional = "optional",
        Nullable = "nullable",
        Default = "default",
        OneOf = "one_of",
        AnyOf = "any_of",
        Tag = "tag",
        Fields = "fields",
        Items = "items",
        Values = "values",
        MinLength = "min_length",
        MaxLength = "max_length",
        Pattern = "pattern",
        Format = "format",
        Minimum = "minimum",
        Maximum = "maximum",
        ExclusiveMinimum = "exclusive_minimum",
        ExclusiveMaximum = "exclusive_maximum",
        MultipleOf = "multiple_of",
        MinItems = "min_items",
        MaxItems = "max_items",
        UniqueItems = "unique_items",
        On = "on",
        Sensitive = "sensitive",
        RustType = "rust_type",
        Shape = "shape",
    }
}

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
    let entries = r.map(def, &format!("the definition of `{}`", field.name))?;
    let keys = r.section::<FieldKey>(entries, &format!("field `{}`", field.name));
    read_type(r, &mut field, def, place)?;
    // Before `default`, which an ambient field may not have.
    if let Some(node) = def.get("on") {
        read_on(r, node, place, &mut field);
    }
    for (key, _, node) in keys {
        read_attribute(r, key, node, place, &mut field);
    }
    check_bounds(r, def, &field);
    Some(field)
}

/// Reads the value of `key` into `field`, whose type is known.
fn read_attribute(r: &mut Reader<'_>, key: FieldKey, node: &Node, place: Place, field: &mut Field) {
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
        constraint => read_constraint(r, constraint, node, field),
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
