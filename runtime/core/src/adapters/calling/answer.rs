//! What a function call answers, before a provider wraps it in its envelope ([`Answer`]: a
//! result, a failure, or the ticket of a call stored as a task), and
//! how arguments and calls arrive in a provider's message ([`parse_arguments`],
//! [`native_calls`]). Owns no dispatch: the core calls the pipeline, this module renders.

use serde_json::{Map, Value};

use crate::model::failure::{ToolError, ToolResult};
use crate::model::report::Errors;
use crate::model::report::invalid_arguments;
use toolspec_vocab::settings::PresentAs;

/// What one tool call answers, before a provider wraps it in its envelope.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// On success, the exposed values (a JSON object), or the rendered message (a JSON
    /// string) when the tool's `present_as` is `message`; on failure,
    /// `{"error": code, "message": …, "details": …}` (`details` only when there are some).
    pub content: Value,
    /// Whether the call failed.
    pub is_error: bool,
}

impl Answer {
    /// A call's result as the model sees it, presented as the tool's setting says.
    pub fn from_result(result: &ToolResult, present_as: PresentAs) -> Self {
        match (&result.outcome, result.presented(present_as)) {
            (Err(error), _) => Self::failure(error),
            (Ok(_), content) => Self {
                content: content.unwrap_or_default(),
                is_error: false,
            },
        }
    }

    /// A call stored as a task: its ticket, as the model reads it
    /// ([`Task::to_model_json`](crate::tasks::Task::to_model_json)).
    pub(crate) fn ticket(content: Value) -> Self {
        Self {
            content,
            is_error: false,
        }
    }

    /// A failure: `{"error": code, "message": …, "details": …}`.
    pub fn failure(error: &ToolError) -> Self {
        Self {
            content: serde_json::to_value(error).unwrap_or(Value::Null),
            is_error: true,
        }
    }

    /// A failed result's error (its message, never its exception).
    pub(crate) fn failure_of(result: &ToolResult) -> Self {
        match &result.outcome {
            Err(error) => Self::failure(error),
            Ok(_) => Self::from_result(result, PresentAs::Structured),
        }
    }

    /// The answer to a call of a tool that does not exist, or that the caller may not call:
    /// the same text in both cases, so that a caller cannot tell them apart.
    pub fn unknown_tool(name: &str) -> Self {
        Self::failure(&ToolError::unknown_tool(name))
    }

    /// The answer to arguments that are not JSON at all (`invalid_arguments`, as the pipeline
    /// reports argument errors).
    pub fn malformed_arguments(error: &serde_json::Error) -> Self {
        let errors = Errors::one("/", format!("the arguments are not valid JSON ({error})"));
        Self::from_result(&invalid_arguments(&errors), PresentAs::Structured)
    }

    /// The content as text: the message itself when it is one, else its JSON.
    pub fn text(&self) -> String {
        match &self.content {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        }
    }
}

/// Parses arguments a provider sends as a JSON string (OpenAI). An empty string means no
/// arguments; anything that is not JSON is an `invalid_arguments` answer.
#[doc(hidden)]
pub fn parse_arguments(text: &str) -> Result<Value, Answer> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Map::new()));
    }
    serde_json::from_str(text).map_err(|e| Answer::malformed_arguments(&e))
}

/// The native calls among `items` (already narrowed to calls of the provider's kind): those
/// that do not deserialize (a call without its id or name) cannot be answered and are skipped
/// with a warning naming `what`.
pub(crate) fn native_calls<'v, T: serde::de::DeserializeOwned>(
    items: impl IntoIterator<Item = &'v Value>,
    what: &str,
) -> Vec<T> {
    items
        .into_iter()
        .filter_map(|item| match T::deserialize(item) {
            Ok(call) => Some(call),
            Err(e) => {
                tracing::warn!(error = %e, "an unanswerable {what} is skipped");
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn malformed_arguments_are_invalid_arguments() {
        let answer = parse_arguments("{\"order_id\": 1").unwrap_err();
        assert!(answer.is_error);
        assert_eq!(
            answer.text(),
            r#"{"error":"invalid_arguments","message":"Invalid arguments: `/`: the arguments are not valid JSON (EOF while parsing an object at line 1 column 14).","details":{"errors":[{"field":"/","message":"the arguments are not valid JSON (EOF while parsing an object at line 1 column 14)"}]}}"#
        );
        assert_eq!(parse_arguments("  ").unwrap(), json!({}));
        assert_eq!(parse_arguments("[1]").unwrap(), json!([1]));
    }
}
