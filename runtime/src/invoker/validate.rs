//! Validation of arguments against a tool's canonical input schema, with every failing field
//! named by its JSON pointer in one user-facing message.

use serde::Serialize;
use serde_json::Value;

/// One failing field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldError {
    /// JSON pointer to the field (`/order_id`, `/lines/0/quantity`; `/` for the whole input).
    pub field: String,
    /// What is wrong with it.
    pub message: String,
}

/// Compiles a schema into a validator that also checks `format`s.
pub fn compile(schema: &Value) -> Result<jsonschema::Validator, String> {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .map_err(|e| e.to_string())
}

/// Every error of `instance` under `validator`, sorted by field.
pub fn errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<FieldError> {
    // The common case costs a yes/no check; errors are collected only when there are some.
    if validator.is_valid(instance) {
        return Vec::new();
    }
    let mut out: Vec<FieldError> = validator
        .iter_errors(instance)
        .map(|error| {
            let mut field = error.instance_path().to_string();
            if let jsonschema::error::ValidationErrorKind::Required { property } = error.kind() {
                if let Some(name) = property.as_str() {
                    field = format!("{field}/{}", escape_pointer(name));
                }
                return FieldError {
                    field,
                    message: "is required".into(),
                };
            }
            if field.is_empty() {
                field = "/".into();
            }
            FieldError {
                field,
                message: error.to_string(),
            }
        })
        .collect();
    out.sort_by(|a, b| a.field.cmp(&b.field).then(a.message.cmp(&b.message)));
    out.dedup();
    out
}

/// "Invalid arguments: `/order_id`: 0 is less than the minimum of 1; `/reason` is required."
pub fn summary(errors: &[FieldError]) -> String {
    format!("Invalid arguments: {}.", list(errors))
}

/// "`/order_id`: 0 is less than the minimum of 1; `/reason` is required"
pub fn list(errors: &[FieldError]) -> String {
    let parts: Vec<String> = errors
        .iter()
        .map(|e| {
            if e.message == "is required" {
                format!("`{}` is required", e.field)
            } else {
                format!("`{}`: {}", e.field, e.message)
            }
        })
        .collect();
    parts.join("; ")
}

/// One JSON pointer token: `~` as `~0`, `/` as `~1` (RFC 6901).
pub fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}
