//! What a call answers when a stage ends it: a `ref` that finds no record (`not_found`), a
//! declared code, a guard that stops the call (arguments refused are `invalid_arguments`, built
//! with the arguments' checks). Each builds the model's error from the descriptor; the stages
//! decide when.

use serde_json::Value;
use toolspec_vocab::codes;

use crate::model::descriptor::Descriptor;
use crate::model::failure::{ToolError, ToolResult, compose_error, error_chain, not_found_reason};
use crate::model::guard::{GuardStop, StopReason};

/// A `ref` field names no record the caller may see: `not_found`, with the message of the
/// spec's own `not_found` code when it declares one.
pub(crate) fn not_found(tool: &Descriptor, field: &str) -> ToolResult {
    let (message, standalone) = match tool.error(codes::NOT_FOUND) {
        Some(declared) => (declared.message.to_string(), declared.standalone),
        None => (not_found_reason(field), false),
    };
    let error = ToolError {
        code: codes::NOT_FOUND.into(),
        message: compose_error(tool.error_headline.as_deref(), &message, standalone),
        details: None,
    };
    ToolResult::failed(error, None)
}

/// A declared code's failure, as the model sees it: composed with the tool's headline unless
/// the code stands alone.
pub(crate) fn declared(
    tool: &Descriptor,
    code: &str,
    message: &str,
    details: Option<Value>,
) -> ToolResult {
    let standalone = tool.error(code).is_some_and(|e| e.standalone);
    let error = ToolError {
        code: code.to_owned(),
        message: compose_error(tool.error_headline.as_deref(), message, standalone),
        details,
    };
    ToolResult::failed(error, None)
}

/// What the call answers when a guard stops it: the guard's own code and description when
/// its precondition does not hold, the code it failed with as a handler's would be, an
/// internal error (naming the guard for the developer) when it broke.
pub(crate) fn stopped(tool: &Descriptor, stop: GuardStop) -> ToolResult {
    let Some(guard) = tool.guards.get(stop.guard) else {
        return ToolResult::internal(
            tool,
            format!(
                "guard number {} stopped the call, but the tool has {} guards",
                stop.guard,
                tool.guards.len()
            ),
        );
    };
    match stop.reason {
        StopReason::Unmet => ToolResult::failed(
            ToolError {
                code: guard.name.to_string(),
                message: compose_error(tool.error_headline.as_deref(), &guard.description, false),
                details: None,
            },
            None,
        ),
        StopReason::Declared {
            code,
            message,
            details,
        } => declared(tool, &code, &message, details),
        StopReason::Internal(e) => ToolResult::internal(
            tool,
            format!("guard `{}` failed: {}", guard.name, error_chain(&*e)),
        ),
        StopReason::Panicked(message) => {
            ToolResult::internal(tool, format!("guard `{}` panicked: {message}", guard.name))
        }
    }
}
