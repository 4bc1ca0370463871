//! Stage: a call over its tool's budget for its caller, or beyond the caller's calls of the
//! tool in flight, answers `rate_limited` with when to retry, and nothing of it runs. The
//! permit an admitted call holds is its place among its caller's calls in flight, given back
//! when the call ends. A stored task's run is not limited again: its call was.

use std::time::Duration;

use crate::call::Dispatch;
use crate::call::options::CallOptions;
use crate::failure::{ToolError, ToolResult};
use crate::rate::{Permit, Refusal};
use crate::registry::RegisteredTool;

/// The caller of the anonymous calls (no caller id): they share one budget.
static ANONYMOUS: String = String::new();

/// Admits the call of `tool` that `options` describes, or answers why not.
pub(crate) fn admit(
    tool: RegisteredTool<'_>,
    options: &CallOptions,
    dispatch: Dispatch,
) -> Result<Option<Permit>, ToolResult> {
    let Some(limiter) = tool.limiter() else {
        return Ok(None);
    };
    if matches!(dispatch, Dispatch::Worker { .. }) {
        return Ok(None);
    }
    let caller = options.caller.as_ref().unwrap_or(&ANONYMOUS);
    match limiter.admit(caller) {
        Ok(permit) => Ok(Some(permit)),
        Err(refusal) => {
            let descriptor = tool.descriptor();
            tracing::debug!(
                tool = &*descriptor.name,
                caller = caller.as_str(),
                ?refusal,
                "rate limited"
            );
            let name = descriptor.name_for_call(options.adapter.as_deref());
            let (why, retry_after) = match refusal {
                Refusal::TooFast(wait) => (format!("You called `{name}` too often"), wait),
                Refusal::TooMany(running) => (
                    format!("{running} of your calls of `{name}` are already running"),
                    Duration::from_secs(1),
                ),
            };
            let headline = descriptor.error_headline.as_deref();
            let error = ToolError::rate_limited(headline, &why, retry_after);
            Err(ToolResult::failed(error, None))
        }
    }
}
