//! Every `default:` fits its own field: its type, `one_of`, constraints and format, at any
//! depth through objects, lists, maps, unions and named types — checked over the spec model,
//! as the runtime's validator would check the value against the field's schema (and in its
//! words), so that decoding it into the generated type can never fail. Patterns run on the
//! runtime's engine ([`crate::pattern`]). A `shape` field takes no default: nothing here could
//! check it against an arbitrary schema, and a wrong one would fail when decoded.

use std::collections::BTreeSet;
use std::str::FromStr;

use serde_json::{Number, Value as Json};

use crate::diagnostic::kind::Kind;
use crate::pattern::Pattern;
use crate::read::reader::Reader;
use crate::spec::field::DECIMAL_PATTERN;
use crate::spec::visit::visit;
use crate::spec::{Constraints, Field, FieldType, Format, ToolSpec, Types, Variant};

/// Why a default does not fit, where (a JSON pointer into it), and the spec key it breaks.
struct Mismatch {
    pointer: String,
    message: String,
    key: Option<&'static str>,
}

type Checked = Result<(), Mismatch>;

/// Reports every `default:` of `spec`'s inputs that does not fit its field.
pub fn check_defaults(r: &mut Reader<'_>, spec: &ToolSpec, types: &Types) {
    for top in &spec.expects {
        let mut with_defaults = Vec::new();
        visit(top, &mut |f| {
            if f.default.is_some() {
                with_defaults.push(f);
            }
        });
        for field in with_defaults {
            let Some(default) = &field.default else {
                continue;
            };
            if matches!(field.ty, FieldType::Shape { .. }) && field.rust_type.is_none() {
                r.report(
                    r.error(
                        Kind::Default,
                        default.span,
                        format!("`shape` field `{}` cannot have a default", field.name),
                    )
                    .with_label("default on a `shape` field")
                    .with_help(
                        "make the field `optional: true` and use the default in the handler",
                    ),
                );
                continue;
            }
            let Err(mismatch) = fits(field, &default.value, types, &mut String::new()) else {
                continue;
            };
            let at = if mismatch.pointer.is_empty() {
                String::new()
            } else {
                format!(" at `{}`", mismatch.pointer)
            };
            r.report(
                r.error(
                    Kind::Default,
                    default.span,
                    format!(
                        "default of `{}` does not match the field{at}: {}",
                        field.name, mismatch.message
                    ),
                )
                .with_label(match mismatch.key {
                    Some("one_of") if mismatch.pointer.is_empty() => "not in `one_of`".into(),
                    Some(key) if mismatch.pointer.is_empty() => format!("violates `{key}`"),
                    _ => format!("not a valid `{}`", field.ty.describe()),
                }),
            );
        }
    }
}

/// Whether `value` fits `field`; `pointer` is where `value` sits in the default.
fn fits(field: &Field, value: &Json, types: &Types, pointer: &mut String) -> Checked {
    if field.nullable && value.is_null() {
        return Ok(());
    }
    fits_type(field, value, types, pointer)?;
    if let Some(one_of) = &field.one_of
        && !one_of.value.contains(value)
    {
        return Err(mismatch(
            pointer,
            not_one_of(value, &one_of.value),
            "one_of",
        ));
    }
    fits_constraints(&field.constraints, value, pointer)
}

fn fits_type(field: &Field, value: &Json, types: &Types, pointer: &mut String) -> Checked {
    let not_of_type = |kind: &str| {
        Err(typed(
            pointer,
            format!(r#"{value} is not of type "{kind}""#),
        ))
    };
    match &field.ty {
        FieldType::String => value
            .as_str()
            .map_or_else(|| not_of_type("string"), |_| Ok(())),
        FieldType::Uuid => formatted(value, pointer, "uuid", |s| {
            s.len() == 36 && uuid::Uuid::parse_str(s).is_ok()
        }),
        FieldType::Date => formatted(value, pointer, "date", |s| {
            chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok() && s.len() == 10
        }),
        FieldType::DateTime => formatted(value, pointer, "date-time", |s| {
            chrono::DateTime::parse_from_rfc3339(s).is_ok()
        }),
        FieldType::Decimal => {
            let Some(text) = value.as_str() else {
                return not_of_type("string");
            };
            let decimal = Pattern::new(DECIMAL_PATTERN);
            if decimal.is_some_and(|p| p.is_match(text)) {
                Ok(())
            } else {
                Err(typed(
                    pointer,
                    format!(r#"{value} does not match "{DECIMAL_PATTERN}""#),
                ))
            }
        }
        FieldType::Integer => match value {
            Json::Number(n) if n.is_i64() => Ok(()),
            // The runtime's range of an `integer` (the published schema leaves it unsaid).
            Json::Number(n) if n.is_u64() && field.rust_type.is_none() => Err(typed(
                pointer,
                format!(
                    "{value} is outside the integer range, {} to {}",
                    i64::MIN,
                    i64::MAX
                ),
            )),
            Json::Number(n) if n.is_u64() => Ok(()),
            _ => not_of_type("integer"),
        },
        FieldType::Number => value
            .as_f64()
            .map_or_else(|| not_of_type("number"), |_| Ok(())),
        FieldType::Boolean => value
            .as_bool()
            .map_or_else(|| not_of_type("boolean"), |_| Ok(())),
        FieldType::Json | FieldType::Shape { .. } => Ok(()),
        FieldType::Named(name) => match types.get(name) {
            Some(named) => fits(&named.field, value, types, pointer),
            None => Ok(()), // reported as an unknown type
        },
        FieldType::Object(fields) => {
            let Json::Object(map) = value else {
                return not_of_type("object");
            };
            fits_object(fields, map, None, types, pointer)
        }
        FieldType::Array(items) => {
            let Json::Array(list) = value else {
                return not_of_type("array");
            };
            for (i, item) in list.iter().enumerate() {
                within(pointer, &i.to_string(), |pointer| {
                    fits(items, item, types, pointer)
                })?;
            }
            Ok(())
        }
        FieldType::Map(values) => {
            let Json::Object(map) = value else {
                return not_of_type("object");
            };
            for (key, item) in map {
                within(pointer, key, |pointer| fits(values, item, types, pointer))?;
            }
            Ok(())
        }
        FieldType::AnyOf { variants, tag } => {
            fits_union(variants, tag.as_deref(), value, types, pointer)
        }
    }
}

/// A union's value: the variant its tag names (a tagged union), else any variant.
fn fits_union(
    variants: &[Variant],
    tag: Option<&str>,
    value: &Json,
    types: &Types,
    pointer: &str,
) -> Checked {
    let chosen = match tag {
        Some(tag) => value
            .get(tag)
            .and_then(Json::as_str)
            .and_then(|name| variants.iter().find(|v| v.name == name))
            .is_some_and(|v| {
                let (FieldType::Object(fields), Json::Object(map)) = (&v.field.ty, value) else {
                    return false;
                };
                fits_object(fields, map, Some(tag), types, &mut pointer.to_owned()).is_ok()
            }),
        None => variants
            .iter()
            .any(|v| fits(&v.field, value, types, &mut pointer.to_owned()).is_ok()),
    };
    if chosen {
        Ok(())
    } else {
        Err(typed(
            pointer,
            format!("{value} is not valid under any of the schemas listed in the 'anyOf' keyword"),
        ))
    }
}

/// An object's fields: every key declared (`tag`, a union's tag, too), every required field
/// given, each given field fitting.
fn fits_object(
    fields: &[Field],
    map: &serde_json::Map<String, Json>,
    tag: Option<&str>,
    types: &Types,
    pointer: &mut String,
) -> Checked {
    let declared: BTreeSet<&str> = fields.iter().map(|f| f.name.as_str()).chain(tag).collect();
    if let Some(extra) = map.keys().find(|k| !declared.contains(k.as_str())) {
        return Err(typed(
            pointer,
            format!("Additional properties are not allowed ('{extra}' was unexpected)"),
        ));
    }
    for field in fields {
        match map.get(&field.name) {
            Some(value) => within(pointer, &field.name, |pointer| {
                fits(field, value, types, pointer)
            })?,
            None if field.is_required() => {
                return Err(typed(
                    pointer,
                    format!("\"{}\" is a required property", field.name),
                ));
            }
            None => {}
        }
    }
    Ok(())
}

/// A string in `format`, checked by `valid`.
fn formatted(value: &Json, pointer: &str, format: &str, valid: impl Fn(&str) -> bool) -> Checked {
    match value.as_str() {
        Some(text) if valid(text) => Ok(()),
        Some(_) => Err(typed(pointer, format!(r#"{value} is not a "{format}""#))),
        None => Err(typed(
            pointer,
            format!(r#"{value} is not of type "string""#),
        )),
    }
}

fn fits_constraints(c: &Constraints, value: &Json, pointer: &str) -> Checked {
    match value {
        Json::String(text) => fits_string(c, value, text, pointer),
        Json::Number(n) => fits_number(c, value, n, pointer),
        Json::Array(items) => fits_items(c, value, items, pointer),
        _ => Ok(()),
    }
}

/// `min_length`, `max_length` (in characters), `pattern` and `format`.
fn fits_string(c: &Constraints, value: &Json, text: &str, pointer: &str) -> Checked {
    let length = text.chars().count() as u64;
    if let Some(min) = c.min_length.filter(|min| length < *min) {
        let message = format!("{value} is shorter than {min} character{}", plural(min));
        return Err(mismatch(pointer, message, "min_length"));
    }
    if let Some(max) = c.max_length.filter(|max| length > *max) {
        let message = format!("{value} is longer than {max} character{}", plural(max));
        return Err(mismatch(pointer, message, "max_length"));
    }
    if let Some(pattern) = &c.pattern
        && Pattern::new(&pattern.value).is_some_and(|p| !p.is_match(text))
    {
        let message = format!(r#"{value} does not match "{}""#, pattern.value);
        return Err(mismatch(pointer, message, "pattern"));
    }
    if let Some(format) = c.format
        && !has_format(format, text)
    {
        let message = format!(r#"{value} is not a "{}""#, format.as_str());
        return Err(mismatch(pointer, message, "format"));
    }
    Ok(())
}

/// The four bounds, then `multiple_of`.
fn fits_number(c: &Constraints, value: &Json, n: &Number, pointer: &str) -> Checked {
    use std::cmp::Ordering::{Greater, Less};
    let bounds = [
        (
            &c.minimum,
            Less,
            true,
            "is less than the minimum of",
            "minimum",
        ),
        (
            &c.maximum,
            Greater,
            true,
            "is greater than the maximum of",
            "maximum",
        ),
        (
            &c.exclusive_minimum,
            Less,
            false,
            "is less than or equal to the minimum of",
            "exclusive_minimum",
        ),
        (
            &c.exclusive_maximum,
            Greater,
            false,
            "is greater than or equal to the maximum of",
            "exclusive_maximum",
        ),
    ];
    for (bound, beyond, inclusive, words, key) in bounds {
        let Some(bound) = bound else { continue };
        let broken = compare(n, bound).is_some_and(|o| o == beyond || (!inclusive && o.is_eq()));
        if broken {
            return Err(mismatch(pointer, format!("{value} {words} {bound}"), key));
        }
    }
    if let Some(m) = &c.multiple_of
        && !is_multiple(n, m)
    {
        return Err(mismatch(
            pointer,
            format!("{value} is not a multiple of {m}"),
            "multiple_of",
        ));
    }
    Ok(())
}

/// `min_items`, `max_items` and `unique_items`.
fn fits_items(c: &Constraints, value: &Json, items: &[Json], pointer: &str) -> Checked {
    let count = items.len() as u64;
    if let Some(min) = c.min_items.filter(|min| count < *min) {
        let message = format!("{value} has less than {min} item{}", plural(min));
        return Err(mismatch(pointer, message, "min_items"));
    }
    if let Some(max) = c.max_items.filter(|max| count > *max) {
        let message = format!("{value} has more than {max} item{}", plural(max));
        return Err(mismatch(pointer, message, "max_items"));
    }
    let repeated = || {
        items
            .iter()
            .enumerate()
            .any(|(i, a)| items[..i].contains(a))
    };
    if c.unique_items && repeated() {
        return Err(mismatch(
            pointer,
            format!("{value} has non-unique elements"),
            "unique_items",
        ));
    }
    Ok(())
}

/// Whether `text` is in `format`, as the validator checks it: an email address (RFC 5321, by
/// the `email_address` crate the validator uses), an absolute URI (RFC 3986), a host name
/// (RFC 1123 labels), an IPv4 address in dotted-quad form or an IPv6 address.
fn has_format(format: Format, text: &str) -> bool {
    match format {
        Format::Email => email_address::EmailAddress::from_str(text).is_ok(),
        Format::Uri => fluent_uri::Uri::parse(text).is_ok(),
        Format::Hostname => is_hostname(text),
        Format::Ipv4 => std::net::Ipv4Addr::from_str(text).is_ok(),
        Format::Ipv6 => std::net::Ipv6Addr::from_str(text).is_ok(),
    }
}

/// At most 253 characters of dot-separated labels, each 1–63 letters, digits and inner hyphens.
fn is_hostname(text: &str) -> bool {
    text.len() <= 253
        && text.split('.').all(|label| {
            (1..=63).contains(&label.len())
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

/// How two JSON numbers compare (exactly for integers).
fn compare(a: &Number, b: &Number) -> Option<std::cmp::Ordering> {
    match (a.as_i64(), b.as_i64(), a.as_u64(), b.as_u64()) {
        (Some(x), Some(y), _, _) => Some(x.cmp(&y)),
        (_, _, Some(x), Some(y)) => Some(x.cmp(&y)),
        _ => a.as_f64()?.partial_cmp(&b.as_f64()?),
    }
}

/// Whether `n` is a multiple of `m` (exactly for integers).
fn is_multiple(n: &Number, m: &Number) -> bool {
    match (n.as_i64(), m.as_i64()) {
        (Some(n), Some(m)) if m != 0 => n % m == 0,
        _ => match (n.as_f64(), m.as_f64()) {
            (Some(n), Some(m)) if m != 0.0 => {
                let q = n / m;
                (q - q.round()).abs() < 1e-9
            }
            _ => true,
        },
    }
}

/// `message` at `pointer`, breaking `key`.
fn mismatch(pointer: &str, message: String, key: &'static str) -> Mismatch {
    Mismatch {
        pointer: pointer.to_owned(),
        message,
        key: Some(key),
    }
}

/// `message` at `pointer`, about the value's type (no spec key).
fn typed(pointer: &str, message: String) -> Mismatch {
    Mismatch {
        pointer: pointer.to_owned(),
        message,
        key: None,
    }
}

/// "`v` is not one of `a`, `b` or `c`", as the runtime words it (every value, up to 25, then
/// how many more).
fn not_one_of(value: &Json, options: &[Json]) -> String {
    const MAX_LISTED: usize = 25;
    let shown: Vec<String> = options
        .iter()
        .take(MAX_LISTED)
        .map(ToString::to_string)
        .collect();
    let more = options.len().saturating_sub(MAX_LISTED);
    let list = match shown.as_slice() {
        _ if more > 0 => format!("{} and {more} more", shown.join(", ")),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
        [] => "nothing".to_owned(),
    };
    format!("{value} is not one of {list}")
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Runs `f` with `key` added to `pointer` (escaped as JSON pointers are).
fn within(pointer: &mut String, key: &str, f: impl FnOnce(&mut String) -> Checked) -> Checked {
    let len = pointer.len();
    pointer.push('/');
    pointer.push_str(&toolspec_vocab::pointer::escape(key));
    let result = f(pointer);
    pointer.truncate(len);
    result
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::derive::schema::standalone_field_schema;
    use crate::source::Source;

    /// Fields (as spec text) and defaults: each is checked by the compiler and, as a value of
    /// the field's schema, by the runtime's validator; the two must agree.
    const CASES: &[(&str, &str)] = &[
        ("{ type: string }", "x"),
        ("{ type: string }", "3"),
        ("{ type: string, min_length: 2, max_length: 3 }", "abcd"),
        ("{ type: string, min_length: 2 }", "a"),
        ("{ type: string, pattern: '^[a-z]+$' }", "abc"),
        ("{ type: string, pattern: '^[a-z]+$' }", "ab1"),
        ("{ type: string, pattern: '\\d{2}' }", "'x12'"),
        ("{ type: string, format: email }", "a@example.com"),
        ("{ type: string, format: email }", "not an email"),
        ("{ type: string, format: ipv4 }", "10.0.0.1"),
        ("{ type: string, format: ipv4 }", "10.0.0"),
        ("{ type: string, format: ipv6 }", "'::1'"),
        ("{ type: string, format: hostname }", "api.example.com"),
        ("{ type: string, format: hostname }", "-bad-.example"),
        ("{ type: string, format: uri }", "https://example.com/a?b=c"),
        ("{ type: string, one_of: [a, b] }", "c"),
        ("{ type: integer }", "7"),
        ("{ type: integer }", "7.5"),
        ("{ type: integer, minimum: 1, maximum: 10 }", "0"),
        ("{ type: integer, minimum: 1, maximum: 10 }", "11"),
        ("{ type: integer, exclusive_minimum: 1 }", "1"),
        ("{ type: integer, multiple_of: 5 }", "12"),
        ("{ type: integer, one_of: [1, 2] }", "2"),
        ("{ type: number, maximum: 1.5 }", "1.6"),
        ("{ type: number, multiple_of: 0.5 }", "2.5"),
        ("{ type: boolean }", "yes"),
        ("{ type: uuid }", "67e55044-10b1-426f-9247-bb680e5fe0c8"),
        ("{ type: uuid }", "67e5504410b1426f9247bb680e5fe0c8"),
        ("{ type: date }", "2026-02-28"),
        ("{ type: date }", "2026-02-30"),
        ("{ type: datetime }", "'2026-12-01T10:00:00+01:00'"),
        ("{ type: datetime }", "'2026-12-01 10:00'"),
        ("{ type: decimal }", "'12.50'"),
        ("{ type: decimal }", "'1e5'"),
        ("{ type: string, nullable: true }", "null"),
        (
            "{ type: array, items: { type: integer }, min_items: 2 }",
            "[1]",
        ),
        (
            "{ type: array, items: { type: integer }, max_items: 1 }",
            "[1, 2]",
        ),
        (
            "{ type: array, items: { type: integer }, unique_items: true }",
            "[1, 1]",
        ),
        ("{ type: array, items: { type: integer } }", "[1, x]"),
        (
            "{ type: map, values: { type: boolean } }",
            "{ a: true, b: 1 }",
        ),
        (
            "{ type: object, fields: { zip: { type: string, pattern: '^[0-9]{5}$' } } }",
            "{ zip: '1234' }",
        ),
        (
            "{ type: object, fields: { a: { type: integer } } }",
            "{ a: 1, b: 2 }",
        ),
        ("{ type: object, fields: { a: { type: integer } } }", "{}"),
        (
            "{ type: object, fields: { a: { type: integer, optional: true } } }",
            "{}",
        ),
        ("{ type: Money }", "{ amount: 5, currency: EUR }"),
        ("{ type: Money }", "{ amount: -5, currency: EUR }"),
        ("{ type: Money }", "{ amount: 5, currency: XXX }"),
        ("{ any_of: [{ type: integer }, { type: string }] }", "x"),
        ("{ any_of: [{ type: integer }, { type: boolean }] }", "x"),
        (
            "{ tag: kind, any_of: { card: { type: object, fields: { last4: { type: string } } } } }",
            "{ kind: card, last4: '4242' }",
        ),
        (
            "{ tag: kind, any_of: { card: { type: object, fields: { last4: { type: string } } } } }",
            "{ kind: iban, last4: '4242' }",
        ),
        ("{ type: json }", "{ anything: [1, 2] }"),
    ];

    const TYPES: &str = "types:\n  Money:\n    type: object\n    fields:\n      amount: { type: integer, minimum: 0 }\n      currency: { type: string, one_of: [EUR, USD] }\n";

    #[test]
    fn defaults_are_judged_as_the_runtime_validator_judges_their_values() {
        let mut disagreements = Vec::new();
        for (field, default) in CASES {
            let (open, _) = field.rsplit_once('}').expect("a flow map");
            let spec = format!("description: T.\nexpects:\n  f: {open}, default: {default} }}\n");
            let sources = [
                Source {
                    path: "t.yaml".into(),
                    text: spec,
                },
                Source {
                    path: "types.yaml".into(),
                    text: TYPES.into(),
                },
            ];
            let project = crate::project::build(&sources, &[], "specs");
            let refused = project
                .diagnostics
                .iter()
                .any(|d| d.message.starts_with("default of"));
            let other: Vec<_> = project
                .diagnostics
                .iter()
                .filter(|d| {
                    d.severity == crate::diagnostic::Severity::Error
                        && !d.message.starts_with("default of")
                })
                .collect();
            assert!(
                other.is_empty(),
                "{field} {default}: {}",
                project.render_diagnostics()
            );
            // The default as the spec wrote it, and the field's schema, by the runtime's validator.
            let node = crate::read::yaml::parse(default)
                .expect("a YAML value")
                .to_json();
            let spec_field = &project.tools[0].spec.expects[0];
            let mut schema = standalone_field_schema(spec_field, &project.types);
            schema.as_object_mut().map(|m| m.remove("default"));
            let validator = jsonschema::options()
                .should_validate_formats(true)
                .with_pattern_options(jsonschema::PatternOptions::regex())
                .build(&schema)
                .expect("the field's schema compiles");
            if validator.is_valid(&node) == refused {
                disagreements.push(format!(
                    "{field} default {default}: the compiler {} it, the validator {} it",
                    if refused { "refuses" } else { "accepts" },
                    if refused { "accepts" } else { "refuses" },
                ));
            }
        }
        assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
        assert!(json!(1).is_number());
    }
}
