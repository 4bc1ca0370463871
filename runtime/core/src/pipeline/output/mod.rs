//! Stage: the handler's output is serialized within the tool's result cap (`capped`: lists
//! cut to fit, with a notice of the cut) and checked against the tool's output schema (a
//! mismatch is the developer's error, never shown), and the success message rendered from
//! the spec's template (the tool's default message when it has none or it fails).

mod capped;

use crate::model::descriptor::Descriptor;
use crate::model::failure::{ToolError, ToolResult};
use crate::model::limits::Limits;
use crate::pipeline::compiled::Compiled;
use crate::pipeline::output::capped::Refused;
use toolspec_vocab::result_cap::ResultCap;

/// The result of a call whose handler answered `output`.
pub(crate) fn succeed<T: serde::Serialize>(
    tool: &Descriptor,
    compiled: &Compiled,
    output: &T,
    limits: &Limits,
) -> ToolResult {
    let (value, truncated) = match tool.result_cap {
        None => match serde_json::to_value(output) {
            Ok(value) => (value, None),
            Err(e) => return does_not_serialize(tool, &e.to_string()),
        },
        Some(cap) => match capped::to_value(output, cap) {
            Ok(capped) => (capped.value, capped.truncation.map(Box::new)),
            Err(Refused::Invalid(e)) => return does_not_serialize(tool, &e),
            Err(Refused::TooLarge { bytes }) => {
                let why = format!("its JSON takes at least {bytes} bytes and no cut fits");
                return too_large(tool, cap, why);
            }
        },
    };
    let checked = compiled
        .output
        .errors(&value, limits, &compiled.sensitive_output);
    let errors = match checked {
        Ok(errors) => errors,
        Err(e) => {
            let why = format!("the output schema of `{}` does not compile: {e}", tool.name);
            return ToolResult::internal(tool, why);
        }
    };
    if let (false, Some(_), Some(cap)) = (errors.is_empty(), &truncated, tool.result_cap) {
        // Cut to fit, the answer lost what its schema requires (`minItems`, say).
        let listing = errors.listing();
        let why = format!("the cut answer does not match the output schema: {listing}");
        return too_large(tool, cap, why);
    }
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
        truncated,
    }
}

fn does_not_serialize(tool: &Descriptor, error: &str) -> ToolResult {
    ToolResult::internal(tool, format!("the output does not serialize: {error}"))
}

/// `result_too_large`: no cut of the output fits `cap` (`why`, for the developer).
fn too_large(tool: &Descriptor, cap: ResultCap, why: String) -> ToolResult {
    tracing::warn!(tool = &*tool.name, %why, "an answer over the result cap was refused");
    ToolResult::failed(ToolError::result_too_large(cap), Some(why))
}
