//! A field's allowed values (`one_of`) and its constraints (lengths, `pattern`, `format`,
//! bounds, item counts), each checked against the field's type.

use serde_json::Value as Json;

use crate::diagnostic::did_you_mean;
use crate::diagnostic::kind::Kind;
use crate::read::field_key::{FieldKey, misspelt_builtin};
use crate::read::reader::{Reader, Section, article, on_field};
use crate::read::yaml::{Node, Value};
use crate::source::Spanned;
use crate::spec::{Field, FieldType, Format};

pub fn read_one_of(r: &mut Reader<'_>, node: &Node, ty: &FieldType) -> Option<Spanned<Vec<Json>>> {
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

/// Reads the constraint `key` into `field`: only where the field's type takes it (a
/// constraint on a type that does not take it is shown at its key).
pub fn read_constraint(
    r: &mut Reader<'_>,
    key: FieldKey,
    key_node: &Node,
    node: &Node,
    field: &mut Field,
) {
    let kind = field.ty.describe();
    let (applies, target) = match key {
        FieldKey::MinLength | FieldKey::MaxLength | FieldKey::Pattern | FieldKey::Format => {
            (kind == "string", "string")
        }
        FieldKey::Minimum
        | FieldKey::Maximum
        | FieldKey::ExclusiveMinimum
        | FieldKey::ExclusiveMaximum
        | FieldKey::MultipleOf => (kind == "integer" || kind == "number", "integer and number"),
        _ => (kind == "array", "array"),
    };
    let name = key.spelling();
    if !applies && !misspelt_builtin(&field.ty) {
        r.report(
            r.error(
                Kind::Conflict,
                key_node.span,
                format!("`{name}` applies to {target} fields, not `{kind}`"),
            )
            .with_label(on_field(&kind)),
        );
        return;
    }
    let what = format!("`{name}`");
    let c = &mut field.constraints;
    match key {
        FieldKey::MinLength => c.min_length = r.u64(node, &what),
        FieldKey::MaxLength => c.max_length = r.u64(node, &what),
        FieldKey::MinItems => c.min_items = r.u64(node, &what),
        FieldKey::MaxItems => c.max_items = r.u64(node, &what),
        FieldKey::UniqueItems => c.unique_items = r.bool(node, &what).unwrap_or(false),
        FieldKey::Minimum => c.minimum = r.number(node, &what),
        FieldKey::Maximum => c.maximum = r.number(node, &what),
        FieldKey::ExclusiveMinimum => c.exclusive_minimum = r.number(node, &what),
        FieldKey::ExclusiveMaximum => c.exclusive_maximum = r.number(node, &what),
        FieldKey::MultipleOf => c.multiple_of = read_multiple_of(r, node, &what),
        FieldKey::Format => c.format = read_format(r, node, &what),
        FieldKey::Pattern => c.pattern = read_pattern(r, node, &what),
        _ => {}
    }
}

/// `multiple_of`: a number greater than 0.
fn read_multiple_of(r: &mut Reader<'_>, node: &Node, what: &str) -> Option<serde_json::Number> {
    let n = r.number(node, what)?;
    if n.as_f64().is_some_and(|m| m <= 0.0) {
        r.report(
            r.error(
                Kind::InvalidValue,
                node.span,
                "`multiple_of` must be greater than 0",
            )
            .with_label("not positive"),
        );
        return None;
    }
    Some(n)
}

/// `format`: one of [`Format::NAMES`].
fn read_format(r: &mut Reader<'_>, node: &Node, what: &str) -> Option<Format> {
    let s = r.string(node, what)?;
    if let Some(format) = Format::parse(&s) {
        return Some(format);
    }
    let help = did_you_mean(&s, Format::NAMES.iter().copied())
        .map(|m| format!("did you mean `{m}`?"))
        .unwrap_or_else(|| format!("formats are: {}", Format::NAMES.join(", ")));
    r.report(
        r.error(
            Kind::UnknownName,
            node.span,
            format!("unknown format `{s}`"),
        )
        .with_label("not a known format")
        .with_help(help),
    );
    None
}

/// `pattern`: one the runtime's regex engine runs.
fn read_pattern(r: &mut Reader<'_>, node: &Node, what: &str) -> Option<Spanned<String>> {
    let p = r.spanned_string(node, what)?;
    match crate::pattern::check(&p.value) {
        Ok(()) => Some(p),
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
            None
        }
    }
}

pub fn check_bounds(r: &mut Reader<'_>, def: &Node, field: &Field) {
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
