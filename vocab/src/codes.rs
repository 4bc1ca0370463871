//! The error codes the runtime itself fails a call with. A spec may not declare them (as an
//! error code or a guard name): a model must be able to tell what they mean.

/// The arguments do not fit the input schema (an action's fields or a query tool's filters,
/// limit, offset and sort alike).
pub const INVALID_ARGUMENTS: &str = "invalid_arguments";
/// The handler failed in a way it did not declare (or panicked); details are hidden.
pub const INTERNAL_ERROR: &str = "internal_error";
/// The handler ran past the tool's timeout.
pub const TIMEOUT: &str = "timeout";
/// The client cancelled the call.
pub const CANCELLED: &str = "cancelled";
/// No tool by that name (explain only; adapters answer unknown tools natively).
pub const UNKNOWN_TOOL: &str = "unknown_tool";

/// A query tool's query failed; the cause is in the developer-facing exception only.
pub const QUERY_FAILED: &str = "query_failed";

/// A `lock`ed tool waited longer than the lock's `wait` for another call with the same key.
pub const LOCKED: &str = "locked";

/// A call with the same `once` key is still running (its answer will be this call's): retry
/// after the `retry_after` seconds in the error's details.
pub const IN_PROGRESS: &str = "in_progress";

/// Something the call needs cannot be reached or written now — the database is down, or the
/// audit record a `required` tool must have cannot be written — so nothing ran: retry after
/// the `retry_after` seconds in the error's details.
pub const UNAVAILABLE: &str = "unavailable";

/// The tool runs only as a task, and this caller cannot take a task handle (an MCP client
/// without the tasks extension, an HTTP request without `Prefer: respond-async`).
pub const TASK_REQUIRED: &str = "task_required";

/// The caller is at one of the bounds of its tasks the project sets: as many unfinished tasks
/// as `tasks.per_caller` (retry once one of them ends), or as many kept tasks or bytes of kept
/// results as `tasks.kept_per_caller` and `tasks.kept_bytes_per_caller` (retry once the oldest
/// is deleted, its retention passed).
pub const TOO_MANY_TASKS: &str = "too_many_tasks";
/// The caller called the tool more often than its `rate_limit` allows, or has as many calls of
/// it running as allowed: nothing ran; retry after the `retry_after` seconds in the details.
pub const RATE_LIMITED: &str = "rate_limited";
/// No task of this caller has the id: it never existed, its retention passed, or it is another
/// caller's (which must look the same).
pub const UNKNOWN_TASK: &str = "unknown_task";

/// The call needs its user's answers — a confirmation, a form for fields the model left out —
/// and they were not given: nothing was done. The details hold the questions (`requests`) and
/// the sealed state to send back with the answers (`request_state`); a client that cannot ask
/// its user cannot call the tool.
pub const INPUT_REQUIRED: &str = "input_required";
/// The user declined the confirmation or a form the call asked for: nothing was done.
pub const DECLINED: &str = "declined";
/// The request state sent back is not one this server issued for this caller, tool and
/// arguments, was altered, or was used already: nothing was done; call the tool again.
pub const INVALID_REQUEST_STATE: &str = "invalid_request_state";
/// The request state sent back has expired: nothing was done; call the tool again.
pub const REQUEST_STATE_EXPIRED: &str = "request_state_expired";
/// The answer is larger than the tool's `result_cap` and cannot be cut to fit (one value
/// larger than the cap, or a cut the output schema refuses): ask for less.
pub const RESULT_TOO_LARGE: &str = "result_too_large";
/// The key of an error's details that says, in whole seconds, when a retry may succeed
/// (`in_progress`, `unavailable`); the HTTP API also sends it as `Retry-After`.
pub const RETRY_AFTER: &str = "retry_after";

/// A `ref` field's key names no record the caller may see. Specs may declare it (to word
/// its message); it is not reserved.
pub const NOT_FOUND: &str = "not_found";

/// Every built-in code.
pub const BUILTIN: &[&str] = &[
    INVALID_ARGUMENTS,
    INTERNAL_ERROR,
    TIMEOUT,
    CANCELLED,
    UNKNOWN_TOOL,
    QUERY_FAILED,
    LOCKED,
    IN_PROGRESS,
    UNAVAILABLE,
    TASK_REQUIRED,
    TOO_MANY_TASKS,
    UNKNOWN_TASK,
    RATE_LIMITED,
    INPUT_REQUIRED,
    DECLINED,
    INVALID_REQUEST_STATE,
    REQUEST_STATE_EXPIRED,
    RESULT_TOO_LARGE,
];

/// The runtime's own error codes, as an app matches a result's: `error.code == Code::NotFound`
/// (each is the text of its constant in this module, which says what it means).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Code {
    /// [`INVALID_ARGUMENTS`]
    InvalidArguments,
    /// [`INTERNAL_ERROR`]
    InternalError,
    /// [`TIMEOUT`]
    Timeout,
    /// [`CANCELLED`]
    Cancelled,
    /// [`UNKNOWN_TOOL`]
    UnknownTool,
    /// [`QUERY_FAILED`]
    QueryFailed,
    /// [`LOCKED`]
    Locked,
    /// [`IN_PROGRESS`]
    InProgress,
    /// [`UNAVAILABLE`]
    Unavailable,
    /// [`TASK_REQUIRED`]
    TaskRequired,
    /// [`TOO_MANY_TASKS`]
    TooManyTasks,
    /// [`UNKNOWN_TASK`]
    UnknownTask,
    /// [`RATE_LIMITED`]
    RateLimited,
    /// [`INPUT_REQUIRED`]
    InputRequired,
    /// [`DECLINED`]
    Declined,
    /// [`INVALID_REQUEST_STATE`]
    InvalidRequestState,
    /// [`REQUEST_STATE_EXPIRED`]
    RequestStateExpired,
    /// [`RESULT_TOO_LARGE`]
    ResultTooLarge,
    /// [`NOT_FOUND`]
    NotFound,
}

impl Code {
    /// Every code: the runtime's own ([`BUILTIN`]), then `not_found`.
    pub const ALL: &[Code] = &[
        Self::InvalidArguments,
        Self::InternalError,
        Self::Timeout,
        Self::Cancelled,
        Self::UnknownTool,
        Self::QueryFailed,
        Self::Locked,
        Self::InProgress,
        Self::Unavailable,
        Self::TaskRequired,
        Self::TooManyTasks,
        Self::UnknownTask,
        Self::RateLimited,
        Self::InputRequired,
        Self::Declined,
        Self::InvalidRequestState,
        Self::RequestStateExpired,
        Self::ResultTooLarge,
        Self::NotFound,
    ];

    /// The code as results carry it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::InvalidArguments => INVALID_ARGUMENTS,
            Self::InternalError => INTERNAL_ERROR,
            Self::Timeout => TIMEOUT,
            Self::Cancelled => CANCELLED,
            Self::UnknownTool => UNKNOWN_TOOL,
            Self::QueryFailed => QUERY_FAILED,
            Self::Locked => LOCKED,
            Self::InProgress => IN_PROGRESS,
            Self::Unavailable => UNAVAILABLE,
            Self::TaskRequired => TASK_REQUIRED,
            Self::TooManyTasks => TOO_MANY_TASKS,
            Self::UnknownTask => UNKNOWN_TASK,
            Self::RateLimited => RATE_LIMITED,
            Self::InputRequired => INPUT_REQUIRED,
            Self::Declined => DECLINED,
            Self::InvalidRequestState => INVALID_REQUEST_STATE,
            Self::RequestStateExpired => REQUEST_STATE_EXPIRED,
            Self::ResultTooLarge => RESULT_TOO_LARGE,
            Self::NotFound => NOT_FOUND,
        }
    }

    /// The code `text` is, if it is one of these.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|code| code.as_str() == text)
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl PartialEq<Code> for str {
    fn eq(&self, code: &Code) -> bool {
        self == code.as_str()
    }
}

impl PartialEq<Code> for String {
    fn eq(&self, code: &Code) -> bool {
        self == code.as_str()
    }
}

impl PartialEq<Code> for &str {
    fn eq(&self, code: &Code) -> bool {
        *self == code.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_code_is_a_code_and_not_found_too() {
        let all: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        let mut expected = BUILTIN.to_vec();
        expected.push(NOT_FOUND);
        assert_eq!(all, expected);
        assert_eq!(Code::parse("locked"), Some(Code::Locked));
        let code = String::from(NOT_FOUND);
        assert!(code == Code::NotFound && *"locked" == Code::Locked);
    }
}
