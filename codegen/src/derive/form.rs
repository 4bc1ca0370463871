//! The schema of each form of an action's `ask:`: an object of the form's fields, each as the
//! tool's input schema has it, all required. A form is shown by the client (an MCP elicitation
//! form), which shows flat objects of strings, numbers, booleans and enums only, with few
//! constraints: a field that needs more is reported here, where its schema is known.

use serde_json::{Map, Value, json};

use crate::derive::schema::field_schema;
use crate::diagnostic::kind::Kind;
use crate::read::reader::{Reader, article};
use crate::spec::{AskSpec, Field};

/// The keys of a field's schema a form can show.
const SHOWN: [&str; 10] = [
    "type",
    "title",
    "description",
    "enum",
    "minLength",
    "maxLength",
    "format",
    "minimum",
    "maximum",
    "default",
];

/// The keys of a field's schema that only document it: left out of a form.
const DOCUMENTING: [&str; 2] = ["examples", "deprecated"];

/// The types a form can show.
const TYPES: [&str; 4] = ["string", "number", "integer", "boolean"];

/// The string formats a form can show.
const FORMATS: [&str; 4] = ["email", "uri", "date", "date-time"];

/// Each form's schema, in order (a form with a field it cannot show is reported, and its
/// schema left without that field).
pub fn form_schemas(r: &mut Reader<'_>, forms: &[AskSpec], expects: &[Field]) -> Vec<Value> {
    forms
        .iter()
        .map(|form| {
            let mut properties = Map::new();
            let mut required = Vec::new();
            for wanted in &form.fields {
                let Some(field) = expects.iter().find(|f| f.name == wanted.value) else {
                    continue;
                };
                if let Some(schema) = shown(r, form, field) {
                    properties.insert(field.name.clone(), schema);
                    required.push(json!(field.name));
                }
            }
            json!({ "type": "object", "properties": properties, "required": required })
        })
        .collect()
}

/// `field`'s schema as `form` shows it, or `None` (reported) when a form cannot show it.
fn shown(r: &mut Reader<'_>, form: &AskSpec, field: &Field) -> Option<Value> {
    let Value::Object(schema) = field_schema(field) else {
        return None;
    };
    let mut kept = Map::new();
    let mut unshown = None;
    for (key, value) in schema {
        if DOCUMENTING.contains(&key.as_str()) {
            continue;
        }
        let fits = match key.as_str() {
            "type" => value.as_str().is_some_and(|t| TYPES.contains(&t)),
            "format" => value.as_str().is_some_and(|f| FORMATS.contains(&f)),
            other => SHOWN.contains(&other),
        };
        if !fits {
            unshown.get_or_insert((key, value));
            continue;
        }
        kept.insert(key, value);
    }
    if !kept.contains_key("type") && unshown.is_none() {
        unshown = Some(("type".into(), Value::Null));
    }
    let Some((key, value)) = unshown else {
        return Some(Value::Object(kept));
    };
    let what = match key.as_str() {
        "type" | "$ref" | "anyOf" | "oneOf" => format!("{} value", article(&field.ty.describe())),
        "format" => format!("`format: {}`", value.as_str().unwrap_or("?")),
        _ => format!("`{key}`"),
    };
    r.report(
        r.error(
            Kind::Unsupported,
            field.span,
            format!(
                "form `{}` cannot ask for `{}`: an elicitation form cannot show {what}",
                form.name.value, field.name
            ),
        )
        .with_label("not shown in a form")
        .with_help(
            "a form shows strings (with `one_of`, `min_length`, `max_length`, formats `email` and \
             `uri`), `date`, `datetime`, numbers and integers (with `minimum`, `maximum`) and \
             booleans; take this field from the model only",
        ),
    );
    None
}
