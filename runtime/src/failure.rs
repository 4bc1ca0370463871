//! How a call fails and what it returns: [`Failure`] is what a handler returns on the error
//! path; [`ToolResult`] is what every adapter turns into its transport's response.

use std::fmt;

use serde::Serialize;
use serde_json::Value;
use toolspec_vocab::codes;

/// A handler's failure.
///
/// `?` on any `std::error::Error` gives [`Failure::Internal`], whose cause is logged for the
/// developer but never shown to the model; the generated `Error` of each tool converts into
/// [`Failure::Declared`], which the model sees as `{error: code, message}`.
pub enum Failure<E> {
    /// A declared error code, with optional structured details for the model.
    Declared {
        /// The declared error.
        error: E,
        /// Extra data shown to the model with the error.
        details: Option<Value>,
    },
    /// Anything else: shown to the model only as the tool's error headline.
    Internal(Box<dyn std::error::Error + Send + Sync>),
}

impl<E> Failure<E> {
    /// A declared error.
    pub fn declared(error: E) -> Self {
        Self::Declared {
            error,
            details: None,
        }
    }

    /// Attaches details to a declared error (no effect on an internal one).
    pub fn with_details(self, details: impl Into<Value>) -> Self {
        match self {
            Self::Declared { error, .. } => Self::Declared {
                error,
                details: Some(details.into()),
            },
            internal => internal,
        }
    }

    /// An internal failure from any error (including `anyhow::Error` via `.into()`).
    pub fn internal(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        Self::Internal(error.into())
    }
}

impl<E, X> From<X> for Failure<E>
where
    X: std::error::Error + Send + Sync + 'static,
{
    fn from(error: X) -> Self {
        Self::Internal(Box::new(error))
    }
}

impl<E: fmt::Debug> fmt::Debug for Failure<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Declared { error, details } => f
                .debug_struct("Declared")
                .field("error", error)
                .field("details", details)
                .finish(),
            Self::Internal(e) => f.debug_tuple("Internal").field(&e.to_string()).finish(),
        }
    }
}

/// A user-facing error: what the model is shown.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolError {
    /// The error code (a declared code, a guard name, or a built-in code).
    #[serde(rename = "error")]
    pub code: String,
    /// "Headline: reason", or the reason alone for standalone codes.
    pub message: String,
    /// Structured details, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

impl ToolError {
    /// `unknown_tool`: no tool is named `name` — or none this caller may call, which must
    /// look the same.
    pub fn unknown_tool(name: &str) -> Self {
        Self {
            code: codes::UNKNOWN_TOOL.into(),
            message: format!("There is no tool named `{name}`."),
            details: None,
        }
    }
}

/// The result of one call, as every adapter receives it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The exposed values (JSON matching the output schema), or the user-facing error.
    pub outcome: Result<Value, ToolError>,
    /// Success text, or the error message.
    pub message: String,
    /// Developer-facing detail about a failure. Adapters never send it to a client.
    pub exception: Option<String>,
}

impl ToolResult {
    /// Whether the call succeeded.
    pub fn is_ok(&self) -> bool {
        self.outcome.is_ok()
    }

    /// The exposed values, on success.
    pub fn value(&self) -> Option<&Value> {
        self.outcome.as_ref().ok()
    }

    /// The user-facing error, on failure.
    pub fn error(&self) -> Option<&ToolError> {
        self.outcome.as_ref().err()
    }

    /// A failed result.
    pub fn failed(error: ToolError, exception: Option<String>) -> Self {
        Self {
            message: error.message.clone(),
            outcome: Err(error),
            exception,
        }
    }

    /// What a model sees: the exposed values, or `{error, message, details}`.
    pub fn to_model_json(&self) -> Value {
        match &self.outcome {
            Ok(value) => value.clone(),
            Err(error) => serde_json::to_value(error).unwrap_or(Value::Null),
        }
    }
}

/// Composes a user-facing failure text: "Headline: reason", or the reason alone when the
/// code is standalone or the tool has no headline.
///
/// ```
/// assert_eq!(toolspec::compose_error(Some("Could not cancel"), "Already shipped.", false),
///            "Could not cancel: Already shipped.");
/// assert_eq!(toolspec::compose_error(Some("Could not cancel"), "No such order.", true), "No such order.");
/// ```
pub fn compose_error(headline: Option<&str>, reason: &str, standalone: bool) -> String {
    match headline {
        Some(headline) if !standalone => format!("{headline}: {reason}"),
        _ => reason.to_owned(),
    }
}

/// A string that is none of an enum's spec values (from a generated enum's `FromStr`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVariant {
    enum_name: &'static str,
    value: String,
}

impl UnknownVariant {
    /// `value` is not a variant of `enum_name`.
    pub fn new(enum_name: &'static str, value: &str) -> Self {
        Self {
            enum_name,
            value: value.to_owned(),
        }
    }
}

impl fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` is not a valid {}", self.value, self.enum_name)
    }
}

impl std::error::Error for UnknownVariant {}
