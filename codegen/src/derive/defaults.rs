//! Every `default:` fits its own field.

use serde_json::Value as Json;

use crate::derive::schema;
use crate::read::reader::Reader;
use crate::spec::visit::visit;
use crate::spec::{ToolSpec, Types};

/// Every `default:` must be valid under its own field's schema (type and constraints).
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
            let mut schema = schema::standalone_field_schema(field, types);
            if let Json::Object(map) = &mut schema {
                map.remove("default");
            }
            let validator = match crate::pattern::validator_options().build(&schema) {
                Ok(v) => v,
                Err(_) => continue, // an invalid pattern is reported where it is written
            };
            if let Some(error) = validator.iter_errors(&default.value).next() {
                let path = error.instance_path().to_string();
                let at = if path.is_empty() {
                    String::new()
                } else {
                    format!(" at `{path}`")
                };
                let d = r.error(
                    default.span,
                    format!(
                        "default of `{}` does not match the field{at}: {error}",
                        field.name
                    ),
                );
                let constraint = match error.kind().keyword() {
                    "enum" => Some("one_of"),
                    "minimum" => Some("minimum"),
                    "maximum" => Some("maximum"),
                    "exclusiveMinimum" => Some("exclusive_minimum"),
                    "exclusiveMaximum" => Some("exclusive_maximum"),
                    "multipleOf" => Some("multiple_of"),
                    "minLength" => Some("min_length"),
                    "maxLength" => Some("max_length"),
                    "pattern" => Some("pattern"),
                    "minItems" => Some("min_items"),
                    "maxItems" => Some("max_items"),
                    "uniqueItems" => Some("unique_items"),
                    _ => None,
                };
                d.label = Some(match constraint {
                    Some("one_of") if path.is_empty() => "not in `one_of`".into(),
                    Some(key) if path.is_empty() => format!("violates `{key}`"),
                    _ => format!("not a valid `{}`", field.ty.describe()),
                });
            }
        }
    }
}
