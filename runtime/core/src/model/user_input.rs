//! What a call asks its user before it can go on, and what comes back: a tool's `confirm`
//! (approve the call) and `ask` (forms for the fields a model left out) are asked as one
//! [`InputRequired`] — its requests, and the sealed request state to send back — and answered
//! by a [`Continuation`]: the same call again, with the state and a response to each request.
//!
//! The shapes follow MCP's elicitation (a request is a message and a flat schema; a response is
//! `accept` with the form's content, `decline` or `cancel`), so that MCP carries them as they
//! are; the HTTP API and the function-calling dispatcher carry the same data to the app.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value, json};
use toolspec_vocab::codes;

use crate::model::failure::{ToolError, ToolResult};

pub use toolspec_vocab::user_input::CONFIRM;

/// One thing a call asks its user.
#[derive(Debug, Clone, PartialEq)]
pub struct InputRequest {
    /// Its key: [`CONFIRM`], or the name of a form of the tool's `ask:`.
    pub key: String,
    /// What the user is asked.
    pub message: String,
    /// The form's schema: an object of the fields to fill in (none for a confirmation, which
    /// is answered by accepting or declining).
    pub schema: Value,
}

impl InputRequest {
    /// Whether this is the call's confirmation (rather than a form).
    pub fn is_confirmation(&self) -> bool {
        self.key == CONFIRM
    }
}

/// What a call answers when it needs its user's answers first: nothing was done.
#[derive(Debug, Clone, PartialEq)]
pub struct InputRequired {
    /// The tool asking (its canonical name).
    pub tool: String,
    /// What the user is asked, in order: the forms, or the confirmation.
    pub requests: Vec<InputRequest>,
    /// The sealed state to send back with the answers (opaque; single use).
    pub request_state: String,
    /// When the state stops being accepted.
    pub expires_at: DateTime<Utc>,
}

impl InputRequired {
    /// `{requests: {key: {message, schema}}, request_state, expires_at}`: what the HTTP API and
    /// the error's details carry.
    pub fn to_json(&self) -> Value {
        let requests: Map<String, Value> = self
            .requests
            .iter()
            .map(|r| {
                let request = json!({ "message": r.message, "schema": r.schema });
                (r.key.clone(), request)
            })
            .collect();
        json!({
            "requests": requests,
            "request_state": self.request_state,
            "expires_at": self.expires_at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        })
    }

    /// The call's answer as a result: `input_required`, saying what is asked, with
    /// [`to_json`](Self::to_json) as details (what the audit trail records of an asked call,
    /// and what [`RegisteredTool::invoke_with`](crate::RegisteredTool::invoke_with) answers).
    pub fn to_result(&self) -> ToolResult {
        let error = ToolError {
            code: codes::INPUT_REQUIRED.into(),
            message: format!(
                "This call needs its user's answer first ({}); nothing was done.",
                self.questions()
            ),
            details: Some(self.to_json()),
        };
        ToolResult::failed(error, None)
    }

    /// The answer where the user cannot be asked (`why`): `input_required`, saying what would
    /// have been asked, with the requests (not the state) as details.
    pub fn refusal(&self, why: &str) -> ToolResult {
        let mut details = self.to_json();
        if let Some(details) = details.as_object_mut() {
            details.remove("request_state");
            details.remove("expires_at");
        }
        let error = ToolError {
            code: codes::INPUT_REQUIRED.into(),
            message: format!(
                "This call needs its user's answer first ({}), and {why}; nothing was done.",
                self.questions()
            ),
            details: Some(details),
        };
        ToolResult::failed(error, None)
    }

    /// What is asked, in one line.
    fn questions(&self) -> String {
        let asked: Vec<&str> = self.requests.iter().map(|r| r.message.trim()).collect();
        asked.join(" ")
    }
}

/// The user's response to one request.
#[derive(Debug, Clone, PartialEq)]
pub enum InputResponse {
    /// Accepted: the form's content (empty for a confirmation).
    Accept(Map<String, Value>),
    /// Declined: the call does nothing.
    Decline,
    /// Dismissed without a choice: the call does nothing.
    Cancel,
}

impl InputResponse {
    /// A response as MCP's elicitation answers it: `{action: accept|decline|cancel, content}`.
    pub fn from_json(value: &Value) -> Result<Self, ResponseError> {
        let Some(object) = value.as_object() else {
            return Err(ResponseError::NotAnObject);
        };
        match object.get("action").and_then(Value::as_str) {
            Some("accept") => match object.get("content") {
                None | Some(Value::Null) => Ok(Self::Accept(Map::new())),
                Some(Value::Object(content)) => Ok(Self::Accept(content.clone())),
                Some(_) => Err(ResponseError::ContentNotAnObject),
            },
            Some("decline") => Ok(Self::Decline),
            Some("cancel") => Ok(Self::Cancel),
            Some(other) => Err(ResponseError::UnknownAction(other.to_owned())),
            None => Err(ResponseError::NoAction),
        }
    }

    /// The response as MCP's elicitation answers it.
    pub fn to_json(&self) -> Value {
        match self {
            Self::Accept(content) => json!({ "action": "accept", "content": content }),
            Self::Decline => json!({ "action": "decline" }),
            Self::Cancel => json!({ "action": "cancel" }),
        }
    }
}

/// Why a value is not a response to an input request ([`InputResponse::from_json`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResponseError {
    /// Not an object.
    #[error("a response must be an object with an `action`")]
    NotAnObject,
    /// No `action`, or one that is not a string.
    #[error("a response needs an `action`: `accept`, `decline` or `cancel`")]
    NoAction,
    /// An `action` that is none of the three.
    #[error("unknown `action` `{0}`: expected `accept`, `decline` or `cancel`")]
    UnknownAction(String),
    /// An accepted response whose `content` is not an object.
    #[error("an accepted response's `content` must be an object")]
    ContentNotAnObject,
}

/// Why a value is not the responses of a [`Continuation`] ([`Continuation::from_json`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ContinuationError {
    /// The responses are not an object by request key.
    #[error("the responses must be an object, by request key")]
    NotAnObject,
    /// The response to request `key` is not one.
    #[error("response `{key}`: {error}")]
    Response {
        /// The request key.
        key: String,
        /// What is wrong with its response.
        error: ResponseError,
    },
}

/// The answers to an [`InputRequired`]: its request state and a response per request key.
///
/// Without a state, only forms can be answered (their fields are checked like any argument): a
/// confirmation counts only with the state of the round that asked it, bound to this caller,
/// tool and arguments, unexpired and unused.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Continuation {
    /// The sealed state the call answered, as sent back.
    pub request_state: Option<String>,
    /// The responses, by request key (a request left without one is asked again; a key that
    /// names no request is ignored).
    pub responses: BTreeMap<String, InputResponse>,
}

impl Continuation {
    /// The continuation of `request_state` with `responses` (`{key: {action, content}}`); an
    /// error naming the first response that is not one.
    pub fn from_json(
        request_state: Option<String>,
        responses: &Value,
    ) -> Result<Self, ContinuationError> {
        let responses = match responses {
            Value::Null => BTreeMap::new(),
            Value::Object(map) => map
                .iter()
                .map(|(key, value)| {
                    InputResponse::from_json(value)
                        .map(|response| (key.clone(), response))
                        .map_err(|error| ContinuationError::Response {
                            key: key.clone(),
                            error,
                        })
                })
                .collect::<Result<_, _>>()?,
            _ => return Err(ContinuationError::NotAnObject),
        };
        Ok(Self {
            request_state,
            responses,
        })
    }

    /// Confirms the call that answered `request_state`.
    pub fn confirm(request_state: impl Into<String>) -> Self {
        let mut responses = BTreeMap::new();
        responses.insert(CONFIRM.to_owned(), InputResponse::Accept(Map::new()));
        Self {
            request_state: Some(request_state.into()),
            responses,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn responses_read_as_mcp_answers_them() {
        let accepted = InputResponse::from_json(&json!({"action": "accept", "content": {"n": 1}}));
        let mut content = Map::new();
        content.insert("n".into(), json!(1));
        assert_eq!(accepted, Ok(InputResponse::Accept(content)));
        assert_eq!(
            InputResponse::from_json(&json!({"action": "decline"})),
            Ok(InputResponse::Decline)
        );
        assert_eq!(
            InputResponse::from_json(&json!(12345)),
            Err(ResponseError::NotAnObject)
        );
        assert_eq!(
            InputResponse::from_json(&json!({"action": "maybe"})),
            Err(ResponseError::UnknownAction("maybe".into()))
        );
        let wrong = Continuation::from_json(Some("s".into()), &json!({"a": {"action": 1}}));
        let error = wrong.unwrap_err();
        assert_eq!(
            error.to_string(),
            "response `a`: a response needs an `action`: `accept`, `decline` or `cancel`"
        );
        assert_eq!(
            error,
            ContinuationError::Response {
                key: "a".into(),
                error: ResponseError::NoAction
            }
        );
    }
}
