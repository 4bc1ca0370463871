//! Stage: a tool that needs scopes the caller lacks answers exactly as an unknown tool would,
//! so that a caller cannot tell a hidden tool from a missing one.

use crate::call::options::CallOptions;
use crate::model::descriptor::Descriptor;
use crate::model::failure::{ToolError, ToolResult};

/// The refusal of `tool` to a caller whose scopes (in `options`) lack the tool's.
pub(crate) fn refusal(tool: &Descriptor, options: &CallOptions) -> Option<ToolResult> {
    if options.scopes.allow_tool(tool) {
        return None;
    }
    tracing::debug!(
        tool = &*tool.name,
        caller = options.caller.as_deref(),
        "the caller lacks the tool's scopes"
    );
    let name = tool.name_for_call(options.adapter.as_deref());
    Some(ToolResult::failed(ToolError::unknown_tool(name), None))
}
