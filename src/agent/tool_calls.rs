//! The tool calls of an agent's run as they happen: the tool's name, the arguments the model
//! sent, and the result or the error the model was given back. Watches a run, never steers it.

use std::fmt;

use rig_agent::agent::{AgentHook, HookContext, OutcomeAction, OutcomeEvent};
use serde_json::{Value, json};

/// One tool call of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The tool's name, as the model called it.
    pub tool: String,
    /// The arguments the model sent (a string when they were not JSON).
    pub arguments: Value,
    /// What the model was given back: the tool's result, or its error (`{"error", "message",
    /// "details"?}`, the shape every adapter reports).
    pub outcome: Result<Value, Value>,
}

impl ToolCall {
    /// Whether the call was not run, being past a limit of the run
    /// ([`ToolCallLimits`](crate::agent::limits::ToolCallLimits)).
    pub fn refused_by_limit(&self) -> bool {
        matches!(&self.outcome, Err(error) if error["error"] == crate::agent::limits::CODE)
    }

    /// `{"tool", "arguments", "result"}`, or `"error"` in place of `"result"`.
    pub fn to_json(&self) -> Value {
        match &self.outcome {
            Ok(result) => json!({"tool": self.tool, "arguments": self.arguments, "result": result}),
            Err(error) => json!({"tool": self.tool, "arguments": self.arguments, "error": error}),
        }
    }

    /// A call continued outside the model's run (a confirmed one): `result` as the model is
    /// shown it.
    pub fn of_result(tool: String, arguments: Value, result: &toolspec::ToolResult) -> Self {
        let shown = result.to_model_json();
        let outcome = if result.is_ok() {
            Ok(shown)
        } else {
            Err(shown)
        };
        Self {
            tool,
            arguments,
            outcome,
        }
    }

    fn of(event: &OutcomeEvent<'_>, tool: &str) -> Self {
        let arguments = event.tool_args().unwrap_or("{}");
        let arguments =
            serde_json::from_str(arguments).unwrap_or_else(|_| Value::String(arguments.to_owned()));
        let outcome = match (event.outcome, event.tool_result()) {
            (Ok(_), Some(result)) => {
                let output = result.output();
                let value = match (output.as_json(), output.as_text()) {
                    (Some(value), _) => value.clone(),
                    (None, Some(text)) => Value::String(text.to_owned()),
                    (None, None) => Value::String(output.render()),
                };
                match result.status_name() {
                    "success" => Ok(value),
                    status => Err(as_error(status, value)),
                }
            }
            (Ok(_), None) => Err(json!({
                "error": "no_result",
                "message": "The tool call ended without a result."
            })),
            (Err(report), _) => Err(json!({"error": "failed", "message": report.to_string()})),
        };
        Self {
            tool: tool.to_owned(),
            arguments,
            outcome,
        }
    }
}

/// A failed call's output as the one error shape: toolspec's own errors already have it; rig's
/// (a skipped or refused call) are wrapped under their status.
fn as_error(status: &str, output: Value) -> Value {
    if output.get("error").is_some_and(Value::is_string) {
        return output;
    }
    let message = match output {
        Value::String(text) => text,
        other => other.to_string(),
    };
    json!({"error": status, "message": message})
}

impl fmt::Display for ToolCall {
    /// `tool call: NAME ARGUMENTS`, then `  -> RESULT` or `  -> error: ERROR` on a second line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tool call: {} {}\n  -> ", self.tool, self.arguments)?;
        match &self.outcome {
            Ok(result) => write!(f, "{result}"),
            Err(error) => write!(f, "error: {error}"),
        }
    }
}

/// An [`AgentHook`] handing each tool call of a run to `on_call` once it has its answer.
pub struct ToolCallHook<F> {
    on_call: F,
}

impl<F> ToolCallHook<F>
where
    F: Fn(ToolCall) + Send + Sync + 'static,
{
    /// The hook calling `on_call` with every tool call.
    pub fn new(on_call: F) -> Self {
        Self { on_call }
    }
}

impl<F> AgentHook for ToolCallHook<F>
where
    F: Fn(ToolCall) + Send + Sync + 'static,
{
    async fn on_outcome(&self, _cx: &HookContext, event: OutcomeEvent<'_>) -> OutcomeAction {
        if let Some(tool) = event.tool_name() {
            (self.on_call)(ToolCall::of(&event, tool));
        }
        OutcomeAction::proceed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_shows_as_json_and_as_a_line() {
        let ok = ToolCall {
            tool: "orders_get".into(),
            arguments: json!({"order_id": 1}),
            outcome: Ok(json!({"order": {"id": 1}})),
        };
        assert_eq!(
            ok.to_json(),
            json!({"tool": "orders_get", "arguments": {"order_id": 1}, "result": {"order": {"id": 1}}})
        );
        assert_eq!(
            ok.to_string(),
            "tool call: orders_get {\"order_id\":1}\n  -> {\"order\":{\"id\":1}}"
        );
        let failed = ToolCall {
            outcome: Err(json!({"error": "not_found", "message": "No order 9."})),
            ..ok
        };
        assert_eq!(failed.to_json()["error"]["error"], "not_found");
        assert!(failed.to_json().get("result").is_none());
        assert!(
            failed
                .to_string()
                .ends_with("-> error: {\"error\":\"not_found\",\"message\":\"No order 9.\"}")
        );
    }

    #[test]
    fn errors_outside_toolspec_get_the_one_shape() {
        assert_eq!(
            as_error("skipped", json!("not now")),
            json!({"error": "skipped", "message": "not now"})
        );
        let ours = json!({"error": "invalid_arguments", "message": "m"});
        assert_eq!(as_error("error", ours.clone()), ours);
    }
}
