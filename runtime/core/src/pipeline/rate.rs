//! Stage: a call over its tool's budget for its caller, or beyond the caller's calls of the
//! tool in flight, answers `rate_limited` with when to retry, and nothing of it runs. The
//! permit an admitted call holds is its place among its caller's calls in flight, given back
//! when the call ends. A stored task's run is not limited again: its call was. A registry
//! whose budgets are shared spends them in its storage (`Admission::spend_budget`), falling
//! back to this process's when the storage cannot be reached.

use std::time::Duration;

use crate::call::Dispatch;
use crate::call::options::CallOptions;
use crate::model::failure::{ToolError, ToolResult};
use crate::model::rate::{Permit, Refusal};
use crate::registry::RegisteredTool;
use sha2::{Digest, Sha256};

/// The caller of the anonymous calls (no caller id): they share one budget.
static ANONYMOUS: String = String::new();

/// Admits the call of `tool` that `options` describes, or answers why not.
pub(crate) async fn admit(
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
    let refused = |refusal| refused(tool, options, caller, refusal);
    let permit = limiter.enter(caller).map_err(refused)?;
    let rules = tool.registry().rules();
    let shared = rules.storage.as_deref().filter(|_| rules.shared_budgets);
    let spent = match shared {
        None => limiter.spend(caller),
        Some(storage) => {
            let limit = limiter.limit();
            let interval = limit.refill().unwrap_or(limit.period());
            let key = budget_key(&tool.descriptor().name, caller);
            match storage.spend_budget(&key, interval, limit.burst).await {
                Ok(None) => Ok(()),
                Ok(Some(wait)) => Err(Refusal::TooFast(wait)),
                Err(e) => {
                    tracing::warn!(error = %e, "the shared rate budget cannot be read: this process's applies");
                    limiter.spend(caller)
                }
            }
        }
    };
    spent.map_err(refused)?;
    Ok(Some(permit))
}

/// The shared budget's key of `caller`'s calls of `tool`: a digest of both.
fn budget_key(tool: &str, caller: &str) -> String {
    let digest = Sha256::new()
        .chain_update(tool.as_bytes())
        .chain_update([0])
        .chain_update(caller.as_bytes())
        .finalize();
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The answer to a call `refusal` kept from running.
fn refused(
    tool: RegisteredTool<'_>,
    options: &CallOptions,
    caller: &str,
    refusal: Refusal,
) -> ToolResult {
    let descriptor = tool.descriptor();
    tracing::debug!(tool = &*descriptor.name, caller, ?refusal, "rate limited");
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
    ToolResult::failed(error, None)
}
