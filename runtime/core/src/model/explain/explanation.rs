//! What the pipeline answers when asked whether a call could run, without running it: an
//! [`Explanation`] with the argument errors and each guard's result ([`GuardCheck`]). Plain
//! data, serialized as the built-in explain tool's output.

use crate::model::explain::status::{LockStatus, OnceStatus};
use crate::model::failure::ToolError;
use crate::model::report::{Errors, FieldError};
use crate::model::truncation::Limit;

/// A guard's result in an explanation.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct GuardCheck {
    /// The guard (also its error code).
    pub name: String,
    /// What must hold.
    pub description: String,
    /// Whether it holds; `None` when it was not checked (the arguments were too wrong, the
    /// timeout passed) or could not decide (it failed internally or panicked).
    pub passed: Option<bool>,
    /// What the call would fail with because of this guard: its own code and description
    /// when its precondition does not hold, or the declared code it failed with (with its
    /// details), or `internal_error` when it could not decide.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ToolError>,
}

/// Whether a call could run, without running it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Explanation {
    /// The tool.
    pub tool: String,
    /// Whether the call would get past validation and every guard.
    pub callable: bool,
    /// The argument errors: the first [`Limits::max_errors`](crate::model::limits::Limits::max_errors)
    /// in pointer order.
    pub errors: Vec<FieldError>,
    /// How many more argument errors there were.
    #[serde(skip_serializing_if = "is_zero")]
    pub more_errors: usize,
    /// Every guard's result, in spec order.
    pub guards: Vec<GuardCheck>,
    /// `once` (an idempotency key): whether a call with this key already ran (when, with which
    /// outcome).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub once: Option<OnceStatus>,
    /// `lock`: the key, and whether a call holds it now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lock: Option<LockStatus>,
    /// The forms the call would ask its user to fill in (`ask`), for the fields it lacks.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ask: Vec<AskedForm>,
    /// What the user would be asked to confirm (`confirm`), when the call gets past its guards
    /// and the confirmation's condition holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confirm: Option<String>,
    /// The tool's result cap: past it, an answer is cut (with a notice) or refused
    /// (`result_too_large`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_cap: Option<Limit>,
}

/// A form an explained call would ask its user to fill in.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct AskedForm {
    /// The form's name.
    pub form: String,
    /// What the user would be asked.
    pub message: String,
    /// The fields it asks for.
    pub fields: Vec<String>,
}

impl Explanation {
    /// The explanation as the explain tool answers it, for the tool asked about as `name`.
    pub(crate) fn to_result(&self, name: &str) -> crate::model::failure::ToolResult {
        let message = if self.callable {
            format!("`{name}` can be called with these arguments.")
        } else {
            format!("`{name}` cannot be called with these arguments.")
        };
        crate::model::failure::ToolResult {
            outcome: Ok(serde_json::to_value(self).unwrap_or(serde_json::Value::Null)),
            message,
            exception: None,
            replay_of: None,
            truncated: None,
        }
    }

    /// An explanation of `tool` that cannot be called because of `errors`.
    pub(crate) fn refused(tool: &str, errors: Errors) -> Self {
        Self {
            tool: tool.to_owned(),
            callable: false,
            errors: errors.list,
            more_errors: errors.more,
            guards: Vec::new(),
            once: None,
            lock: None,
            ask: Vec::new(),
            confirm: None,
            result_cap: None,
        }
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
