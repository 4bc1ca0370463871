//! How a call's values are redacted for its record: as its tool redacts them — a tool of the
//! crate by its own spec, the explain tool by the tool it explains, the task status tool by
//! the tool whose result it reads. A tool of the crate's values are written as JSON text
//! through a redacted view, never copied; the built-in tools' are copied and redacted in place.

use serde_json::Value;
use serde_json::value::RawValue;

use crate::audit_record::json_text;
use crate::pipeline::{explain_tool, task_status_tool};
use crate::registry::{Imp, RegisteredTool};

/// A call's input (its arguments, or its ambient values) as it reaches `tool` through
/// `adapter`, as JSON text with its sensitive values redacted.
pub(crate) fn input(
    tool: RegisteredTool<'_>,
    adapter: Option<&str>,
    value: &Value,
) -> Box<RawValue> {
    match tool.imp() {
        Imp::Tool(stages) => json_text(&stages.sensitive_input().redacted(value)),
        Imp::Explain => {
            let mut copy = value.clone();
            explain_tool::redact_input(tool.registry(), adapter, &mut copy);
            json_text(&copy)
        }
        Imp::TaskStatus => json_text(value),
    }
}

/// `tool`'s exposed result as JSON text with its sensitive values redacted (an explanation
/// holds no value of the explained call but redacted ones).
pub(crate) fn output(tool: RegisteredTool<'_>, value: &Value) -> Box<RawValue> {
    match tool.imp() {
        Imp::Tool(stages) => json_text(&stages.sensitive_output().redacted(value)),
        Imp::Explain => json_text(value),
        Imp::TaskStatus => {
            let mut copy = value.clone();
            task_status_tool::redact_output(tool.registry(), &mut copy);
            json_text(&copy)
        }
    }
}
