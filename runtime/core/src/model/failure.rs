//! How a call fails and what it returns: [`Failure`] is what a handler returns on the error
//! path; [`ToolError`] is what the model is shown, built here for every built-in code
//! ([`codes`]: `unknown_tool`, `invalid_arguments`, `timeout`, `cancelled`, `internal_error`);
//! [`ToolResult`] is what every adapter turns into its transport's response.
//!
//! Plain data and text: nothing here runs a tool or knows an adapter.

use std::fmt;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolspec_vocab::codes;
use uuid::Uuid;

use crate::model::descriptor::{Descriptor, ToolKind};
use crate::model::truncation::Truncation;

/// When a call answered `unavailable` may be tried again: a database that is down is probed
/// every second, so by then a recovery has been noticed.
pub(crate) const RETRY_UNAVAILABLE: Duration = Duration::from_secs(2);

/// A generated `Error` enum: one variant per declared code.
#[doc(hidden)]
pub trait DeclaredError: std::fmt::Display + std::fmt::Debug + Send + Sync + 'static {
    /// The code shown to the model (`already_shipped`).
    fn code(&self) -> &str;
}

/// A handler's failure.
///
/// `?` on any `std::error::Error` gives [`Failure::Internal`], whose cause is logged for the
/// developer with every source below it (`outer: inner: root`, in the result's `exception`
/// too) but never shown to the model; the generated `Error` of each tool converts into
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

    /// `invalid_arguments`: the arguments' errors in one sentence, and the same as `details`.
    pub(crate) fn invalid_arguments(summary: String, details: Value) -> Self {
        Self {
            code: codes::INVALID_ARGUMENTS.into(),
            message: summary,
            details: Some(details),
        }
    }

    /// `query_failed`: a query tool's query failed; the cause is only in the exception.
    pub(crate) fn query_failed() -> Self {
        Self {
            code: codes::QUERY_FAILED.into(),
            message: "The query failed.".into(),
            details: None,
        }
    }

    /// `cancelled`: the client cancelled the call.
    pub(crate) fn cancelled() -> Self {
        Self {
            code: codes::CANCELLED.into(),
            message: "The call was cancelled.".into(),
            details: None,
        }
    }

    /// `timeout`: the tool's timeout passed (`reason` says which), under the tool's headline.
    pub(crate) fn timeout(headline: Option<&str>, reason: &str) -> Self {
        Self {
            code: codes::TIMEOUT.into(),
            message: compose_error(headline, reason, false),
            details: None,
        }
    }

    /// `locked`: a `lock`ed call waited its `wait` for another call with the same key.
    pub(crate) fn locked(headline: Option<&str>) -> Self {
        Self {
            code: codes::LOCKED.into(),
            message: compose_error(
                headline,
                "Another call with the same key is running; try again shortly.",
                false,
            ),
            details: None,
        }
    }

    /// `in_progress`: a call with the same `once` key is still running; retry after
    /// `retry_after` (in the details, in whole seconds).
    pub(crate) fn in_progress(headline: Option<&str>, retry_after: Duration) -> Self {
        let seconds = whole_seconds(retry_after);
        Self {
            code: codes::IN_PROGRESS.into(),
            message: compose_error(
                headline,
                &format!("The same call is still running; retry in {seconds} s for its answer."),
                false,
            ),
            details: Some(json!({ codes::RETRY_AFTER: seconds })),
        }
    }

    /// `unavailable`: what the call needs (`what`: "the database", "the audit trail") cannot
    /// be reached now, so nothing ran; retry after `retry_after` (in the details).
    pub(crate) fn unavailable(headline: Option<&str>, what: &str, retry_after: Duration) -> Self {
        let seconds = whole_seconds(retry_after);
        Self {
            code: codes::UNAVAILABLE.into(),
            message: compose_error(
                headline,
                &format!("Nothing was done, as {what} is unavailable; retry in {seconds} s."),
                false,
            ),
            details: Some(json!({ codes::RETRY_AFTER: seconds })),
        }
    }

    /// `rate_limited`: the caller is over the tool's budget, or has as many calls of it running
    /// as allowed (`why` says which); nothing ran; retry after `retry_after` (in the details).
    pub(crate) fn rate_limited(headline: Option<&str>, why: &str, retry_after: Duration) -> Self {
        let seconds = whole_seconds(retry_after);
        Self {
            code: codes::RATE_LIMITED.into(),
            message: compose_error(
                headline,
                &format!("{why}: nothing was done; retry in {seconds} s."),
                false,
            ),
            details: Some(json!({ codes::RETRY_AFTER: seconds })),
        }
    }

    /// `declined`: the user declined what the call asked (`what` says which): nothing was done.
    pub(crate) fn declined(headline: Option<&str>, what: &str) -> Self {
        Self {
            code: codes::DECLINED.into(),
            message: compose_error(headline, &format!("{what}: nothing was done."), false),
            details: None,
        }
    }

    /// `invalid_request_state`: the state sent back was refused (`why`, a clause such as
    /// "the request state was altered"): nothing was done.
    pub(crate) fn invalid_request_state(why: &str) -> Self {
        let mut chars = why.chars();
        let why: String = chars
            .next()
            .map(|first| first.to_uppercase().chain(chars).collect())
            .unwrap_or_default();
        Self {
            code: codes::INVALID_REQUEST_STATE.into(),
            message: format!("{why}; nothing was done: call the tool again."),
            details: None,
        }
    }

    /// `request_state_expired`: the state sent back has expired: nothing was done.
    pub(crate) fn request_state_expired() -> Self {
        Self {
            code: codes::REQUEST_STATE_EXPIRED.into(),
            message: "The request state has expired; nothing was done: call the tool again.".into(),
            details: None,
        }
    }

    /// `result_too_large`: the answer does not fit the tool's `cap` and cannot be cut to.
    pub(crate) fn result_too_large(cap: toolspec_vocab::result_cap::ResultCap) -> Self {
        let limit = crate::model::truncation::Limit::from(cap);
        Self {
            code: codes::RESULT_TOO_LARGE.into(),
            message: format!(
                "The answer is larger than this tool's cap ({cap}) and cannot be cut to fit: \
                 ask for less."
            ),
            details: Some(json!({ "limit": limit })),
        }
    }

    /// `internal_error`: the tool's headline only; the cause is for the developer.
    pub(crate) fn internal(headline: Option<&str>) -> Self {
        Self {
            code: codes::INTERNAL_ERROR.into(),
            message: headline
                .unwrap_or("The tool failed unexpectedly.")
                .to_owned(),
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
    /// Set when `once` answered with the recorded result of an earlier call with the same key:
    /// the id of that call's audit record (the nil id when it was not recorded). The call's
    /// own audit record keeps it as `replay_of`.
    pub replay_of: Option<Uuid>,
    /// Set when the exposed values were cut to fit the tool's result cap: what was cut (boxed:
    /// rare, and a result is moved often).
    pub truncated: Option<Box<Truncation>>,
}

impl ToolResult {
    /// An internal failure of `tool`: the model sees the headline (a query tool's
    /// `query_failed`), the developer `exception`, which is logged.
    pub(crate) fn internal(tool: &Descriptor, exception: String) -> Self {
        tracing::error!(tool = &*tool.name, exception = %exception, "tool failed");
        // Without a subscriber nobody would see why: say it on stderr (never stdout, the MCP
        // stdio stream).
        let unheard =
            tracing::dispatcher::get_default(|d| d.is::<tracing::subscriber::NoSubscriber>());
        if unheard {
            eprintln!("toolspec: tool `{}` failed: {exception}", tool.name);
        }
        let error = match tool.kind {
            ToolKind::Query => ToolError::query_failed(),
            _ => ToolError::internal(tool.error_headline.as_deref()),
        };
        Self::failed(error, Some(exception))
    }

    /// `unavailable`: what `tool`'s call needs (`what`) cannot be reached now, so nothing ran;
    /// the developer sees `exception`, which is logged.
    pub(crate) fn unavailable(
        tool: &Descriptor,
        what: &str,
        retry_after: Duration,
        exception: String,
    ) -> Self {
        tracing::warn!(tool = &*tool.name, exception = %exception, "tool call refused: {what} is unavailable");
        let error = ToolError::unavailable(tool.error_headline.as_deref(), what, retry_after);
        Self::failed(error, Some(exception))
    }

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
            replay_of: None,
            truncated: None,
        }
    }

    /// What a model reads of a successful call (`None` for a failed one), presented as the
    /// tool's `present_as` says: the exposed values, with the notice of a cut under
    /// [`ANSWER_KEY`](crate::model::truncation::ANSWER_KEY); or the rendered message, followed by the
    /// notice's sentence.
    pub fn presented(&self, present_as: toolspec_vocab::settings::PresentAs) -> Option<Value> {
        use toolspec_vocab::settings::PresentAs;
        let value = self.outcome.as_ref().ok()?;
        Some(match present_as {
            PresentAs::Structured => {
                crate::model::truncation::beside(value.clone(), self.truncated.as_deref())
            }
            PresentAs::Message => match &self.truncated {
                Some(notice) => Value::String(format!("{}\n{}", self.message, notice.sentence())),
                None => Value::String(self.message.clone()),
            },
        })
    }

    /// What a model sees: the exposed values (with the notice of a cut under
    /// [`ANSWER_KEY`](crate::model::truncation::ANSWER_KEY)), or `{error, message, details}`.
    pub fn to_model_json(&self) -> Value {
        match &self.outcome {
            Ok(value) => crate::model::truncation::beside(value.clone(), self.truncated.as_deref()),
            Err(error) => serde_json::to_value(error).unwrap_or(Value::Null),
        }
    }
}

/// `duration` in whole seconds, rounded up, at least 1: how `retry_after` is said.
fn whole_seconds(duration: Duration) -> u64 {
    duration.as_millis().div_ceil(1000).max(1) as u64
}

/// Composes a user-facing failure text: "Headline: reason", or the reason alone when the
/// code is standalone or the tool has no headline.
pub(crate) fn compose_error(headline: Option<&str>, reason: &str, standalone: bool) -> String {
    match headline {
        Some(headline) if !standalone => format!("{headline}: {reason}"),
        _ => reason.to_owned(),
    }
}

/// The reason a `ref` field that names no record the caller may see fails with, when the
/// spec does not word `not_found` itself: `No such order.` for the field `order`.
pub(crate) fn not_found_reason(field: &str) -> String {
    format!("No such {field}.")
}

/// How many causes [`error_chain`] follows (a chain that loops ends there).
const MAX_CAUSES: usize = 32;

/// `error` and every cause below it, outermost first: `outer: inner: root`, as anyhow's
/// `{:#}` shows a chain. What the developer-facing exception of an internal failure holds.
pub(crate) fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut chain = error.to_string();
    let mut cause = error.source();
    for _ in 0..MAX_CAUSES {
        let Some(next) = cause else { break };
        chain.push_str(": ");
        chain.push_str(&next.to_string());
        cause = next.source();
    }
    chain
}

/// A string that is none of an enum's spec values (from a generated enum's `FromStr`).
#[derive(Debug, Clone, PartialEq, Eq)]
#[doc(hidden)]
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

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Disk;

    impl fmt::Display for Disk {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("the disk is full")
        }
    }

    impl std::error::Error for Disk {}

    #[derive(Debug)]
    struct Ledger(Disk);

    impl fmt::Display for Ledger {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("writing the ledger")
        }
    }

    impl std::error::Error for Ledger {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn an_error_chain_names_every_cause_outermost_first() {
        assert_eq!(
            error_chain(&Ledger(Disk)),
            "writing the ledger: the disk is full"
        );
        assert_eq!(error_chain(&Disk), "the disk is full");
        let Failure::<()>::Internal(boxed) = Failure::from(Ledger(Disk)) else {
            panic!("an internal failure");
        };
        assert_eq!(error_chain(&*boxed), "writing the ledger: the disk is full");
    }

    #[test]
    fn errors_compose_with_the_headline_unless_standalone() {
        assert_eq!(
            compose_error(Some("Could not cancel"), "Already shipped.", false),
            "Could not cancel: Already shipped."
        );
        assert_eq!(
            compose_error(Some("Could not cancel"), "No such order.", true),
            "No such order."
        );
        assert_eq!(
            compose_error(None, "No such order.", false),
            "No such order."
        );
    }
}
