//! Stages: the registry's [`Hook`]s before a call (any may refuse it) and after it (each sees
//! the result and how long the call took), and the call's log line.

use std::sync::Arc;
use std::time::Instant;

use crate::model::failure::ToolResult;
use crate::model::hooks::{CallInfo, Hook};

/// Runs every hook's `before`; the first refusal is the call's answer.
pub(crate) fn before(hooks: &[Arc<dyn Hook>], call: &CallInfo<'_>) -> Result<(), ToolResult> {
    for hook in hooks {
        if let Err(error) = hook.before(call) {
            return Err(ToolResult::failed(error, Some("refused by a hook".into())));
        }
    }
    Ok(())
}

/// Logs the call's outcome, then runs every hook's `after`.
pub(crate) fn after(
    hooks: &[Arc<dyn Hook>],
    call: &CallInfo<'_>,
    result: &ToolResult,
    started: Instant,
) {
    let took = started.elapsed();
    let took_us = u64::try_from(took.as_micros()).unwrap_or(u64::MAX);
    match result.error() {
        None => tracing::info!(tool = &*call.tool.name, took_us, "tool call succeeded"),
        Some(error) => {
            tracing::info!(tool = &*call.tool.name, code = %error.code, took_us, "tool call failed")
        }
    }
    for hook in hooks {
        hook.after(call, result, took);
    }
}
