//! Stage: the handler's output is serialized and checked against the tool's output schema (a
//! mismatch is the developer's error, never shown), and the success message rendered from
//! the spec's template (the tool's default message when it has none or it fails).

use crate::checks::limits::Limits;
use crate::checks::validate;
use crate::descriptor::Descriptor;
use crate::failure::ToolResult;
use crate::pipeline::compiled::Compiled;

/// The result of a call whose handler answered `output`.
pub(crate) fn succeed<T: serde::Serialize>(
    tool: &'static Descriptor,
    compiled: &Compiled,
    output: &T,
    limits: &Limits,
) -> ToolResult {
    let value = match serde_json::to_value(output) {
        Ok(value) => value,
        Err(e) => return ToolResult::internal(tool, format!("the output does not serialize: {e}")),
    };
    let errors = validate::errors(&compiled.output, &value, limits, &compiled.sensitive_output);
    if !errors.is_empty() {
        return ToolResult::internal(
            tool,
            format!(
                "the output does not match the output schema: {}",
                errors.listing()
            ),
        );
    }
    let template = compiled
        .templates
        .as_ref()
        .and_then(|t| t.get_template("message").ok());
    let message = match template {
        Some(template) => match template.render(minijinja::value::Serde(&value)) {
            Ok(text) => text,
            Err(e) => {
                tracing::warn!(tool = &*tool.name, error = %e, "the success message does not render");
                compiled.default_message.clone()
            }
        },
        None => compiled.default_message.clone(),
    };
    ToolResult {
        outcome: Ok(value),
        message,
        exception: None,
        replay_of: None,
    }
}
