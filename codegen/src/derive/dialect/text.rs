//! What a dialect states in a description instead of its schema, as sentences.

use serde_json::{Map, Value};

/// Appends a sentence to a schema's description (creating it).
pub fn append_description(node: &mut Map<String, Value>, sentence: &str) {
    let text = match node.get("description") {
        Some(Value::String(existing)) => join_sentences(existing, sentence),
        _ => sentence.to_owned(),
    };
    node.insert("description".into(), Value::String(text));
}

/// Puts a sentence before a schema's description (creating it).
pub fn prepend_description(node: &mut Map<String, Value>, sentence: &str) {
    let text = match node.get("description") {
        Some(Value::String(existing)) => join_sentences(sentence, existing),
        _ => sentence.to_owned(),
    };
    node.insert("description".into(), Value::String(text));
}

/// "A" + "B." → "A. B."; "A." + "B." → "A. B.".
pub fn join_sentences(first: &str, second: &str) -> String {
    let first = first.trim_end();
    let second = second.trim();
    if first.is_empty() {
        return second.to_owned();
    }
    if second.is_empty() {
        return first.to_owned();
    }
    if first.ends_with(['.', '!', '?', ':']) {
        format!("{first} {second}")
    } else {
        format!("{first}. {second}")
    }
}

/// A JSON value as shown in a sentence (compact JSON: strings quoted).
pub fn show(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| value.to_string())
}

fn list(values: &[Value]) -> String {
    let shown: Vec<String> = values.iter().map(show).collect();
    match shown.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

fn plural(n: &Value, one: &str, many: &str) -> String {
    if n.as_u64() == Some(1) {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// How a `format` is stated in a description.
pub fn format_phrase(format: &str) -> String {
    match format {
        "date-time" => "a date and time (RFC 3339, like 2024-05-01T12:00:00Z)".into(),
        "date" => "a date (YYYY-MM-DD)".into(),
        "time" => "a time of day (RFC 3339, like 12:00:00Z)".into(),
        "duration" => "an ISO 8601 duration (like P3D)".into(),
        "email" => "an email address".into(),
        "hostname" => "a hostname".into(),
        "ipv4" => "an IPv4 address".into(),
        "ipv6" => "an IPv6 address".into(),
        "uuid" => "a UUID".into(),
        "uri" => "an absolute URI".into(),
        other => format!("in the `{other}` format"),
    }
}

/// The sentence that states a constraint keyword in a description (`None`: nothing to state,
/// like `uniqueItems: false`).
pub fn constraint_sentence(keyword: &str, value: &Value) -> Option<String> {
    Some(match keyword {
        "minLength" => format!(
            "Must be at least {}.",
            plural(value, "character", "characters")
        ),
        "maxLength" => format!(
            "Must be at most {}.",
            plural(value, "character", "characters")
        ),
        "pattern" => format!(
            "Must match the regular expression `{}`.",
            value.as_str().unwrap_or_default()
        ),
        "format" => format!(
            "Must be {}.",
            format_phrase(value.as_str().unwrap_or_default())
        ),
        "minimum" => format!("Must be at least {value}."),
        "maximum" => format!("Must be at most {value}."),
        "exclusiveMinimum" => format!("Must be greater than {value}."),
        "exclusiveMaximum" => format!("Must be less than {value}."),
        "multipleOf" => format!("Must be a multiple of {value}."),
        "minItems" => format!("Must have at least {}.", plural(value, "item", "items")),
        "maxItems" => format!("Must have at most {}.", plural(value, "item", "items")),
        "uniqueItems" if value == &Value::Bool(true) => "Items must be unique.".into(),
        "uniqueItems" => return None,
        "minProperties" => format!(
            "Must have at least {}.",
            plural(value, "property", "properties")
        ),
        "maxProperties" => format!(
            "Must have at most {}.",
            plural(value, "property", "properties")
        ),
        "default" => format!("Defaults to {}.", show(value)),
        "const" => format!("Must be exactly {}.", show(value)),
        "enum" => match value {
            Value::Array(values) => format!("Must be one of {}.", list(values)),
            other => format!("Must be one of {}.", show(other)),
        },
        "oneOf" => "Must match exactly one of the alternatives.".into(),
        "not" => format!("Must not match the schema {}.", show(value)),
        "allOf" => format!("Must match every schema of {}.", show(value)),
        "additionalProperties" => match value {
            Value::Bool(false) => return None,
            Value::Bool(true) => return None,
            other => format!(
                "An object with free-form string keys; every value must match the schema {}.",
                show(other)
            ),
        },
        other => format!("Must satisfy `{other}`: {}.", show(value)),
    })
}
