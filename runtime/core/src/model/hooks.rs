//! Hooks around calls: the seam the audit trail, rate limits and metrics plug into.
//!
//! The registry runs every hook around every call; a hook sees the descriptor, the arguments as
//! sent and the result, and may refuse a call before it runs, but never changes one.

use std::time::Duration;

use serde_json::Value;

use crate::model::descriptor::SharedDescriptor;
use crate::model::failure::{ToolError, ToolResult};

/// What a hook knows about a call.
#[derive(Debug, Clone, Copy)]
pub struct CallInfo<'a> {
    /// The tool (clone it to keep it past the call).
    pub tool: &'a SharedDescriptor,
    /// The adapter the call came through (`mcp`, `openai`…), if the caller said.
    pub adapter: Option<&'a str>,
    /// Who is calling (a user or client id), if the adapter knows.
    pub caller: Option<&'a str>,
    /// The arguments as the model sent them (before coercion).
    pub arguments: &'a Value,
    /// Whether the call is explained rather than made (`explain`): only its checks and guards
    /// run, and the result is the explanation.
    pub explaining: bool,
}

/// Runs before and after every call through the registry.
///
/// ```
/// use toolspec_core::{CallInfo, Hook, ToolResult};
/// struct Count(std::sync::atomic::AtomicUsize);
/// impl Hook for Count {
///     fn after(&self, _call: &CallInfo<'_>, _result: &ToolResult, _took: std::time::Duration) {
///         self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
///     }
/// }
/// ```
pub trait Hook: Send + Sync + 'static {
    /// Before anything else; an error refuses the call with that error (a rate limit, say).
    fn before(&self, call: &CallInfo<'_>) -> Result<(), ToolError> {
        let _ = call;
        Ok(())
    }

    /// After the call, with its result and how long it took.
    fn after(&self, call: &CallInfo<'_>, result: &ToolResult, took: Duration) {
        let _ = (call, result, took);
    }
}
