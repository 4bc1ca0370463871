//! How a call's values are redacted for its record: as its tool redacts them — a tool of the
//! crate by its own spec, the explain tool by the tool it explains, the task status tool by
//! the tool whose result it reads.

use serde_json::Value;

use crate::pipeline::{explain_tool, task_status_tool};
use crate::registry::{Imp, RegisteredTool};

/// Redacts, in place, the sensitive values of a call's input (its arguments, or its ambient
/// values) as they reach `tool` through `adapter`.
pub(crate) fn input(tool: RegisteredTool<'_>, adapter: Option<&str>, value: &mut Value) {
    match tool.imp() {
        Imp::Tool(stages) => stages.redact_input(value),
        Imp::Explain => explain_tool::redact_input(tool.registry(), adapter, value),
        Imp::TaskStatus => {}
    }
}

/// Redacts, in place, the sensitive values of `tool`'s exposed result (an explanation holds
/// no value of the explained call but redacted ones).
pub(crate) fn output(tool: RegisteredTool<'_>, value: &mut Value) {
    match tool.imp() {
        Imp::Tool(stages) => stages.redact_output(value),
        Imp::Explain => {}
        Imp::TaskStatus => task_status_tool::redact_output(tool.registry(), value),
    }
}
