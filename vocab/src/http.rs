//! How the HTTP API answers a failed call: the status of each kind of failure, the one rule
//! both the runtime's router and the compiler's OpenAPI document follow, and which statuses a
//! spec may give its own error codes (`tool: { http: { status: { code: 409 } } }`).

use crate::codes;

/// A call's arguments do not fit (`invalid_arguments`).
pub const INVALID: u16 = 422;
/// No such tool for this caller (unknown or out of scope, alike), or a `ref` that finds no
/// record.
pub const NOT_FOUND: u16 = 404;
/// A guard failed.
pub const GUARD_FAILED: u16 = 412;
/// A declared error code, unless the spec gives it another status.
pub const DECLARED: u16 = 409;
/// A `lock`ed tool waited too long.
pub const LOCKED: u16 = 423;
/// A call with the same `once` key is still running (with `Retry-After`).
pub const IN_PROGRESS: u16 = 409;
/// The database or the audit trail cannot be reached now; nothing ran (with `Retry-After`).
pub const UNAVAILABLE: u16 = 503;
/// A tool that runs only as a task, called by a caller that cannot take a task handle.
pub const TASK_REQUIRED: u16 = 400;
/// The caller has as many unfinished tasks as allowed.
pub const TOO_MANY_TASKS: u16 = 429;
/// A caller over a tool's rate limit (with `Retry-After`).
pub const RATE_LIMITED: u16 = 429;
/// A call that needs its user's answers: the body's error holds the questions and the sealed
/// state to continue with (`POST /tools/{name}/continue`).
pub const INPUT_REQUIRED: u16 = 428;
/// The user declined what the call asked.
pub const DECLINED: u16 = 409;
/// A request state this server did not issue for this call, altered or used already.
pub const INVALID_REQUEST_STATE: u16 = 400;
/// A request state past its expiry.
pub const REQUEST_STATE_EXPIRED: u16 = 410;
/// A call stored as a task (`Location: /tasks/{id}`).
pub const ACCEPTED: u16 = 202;
/// The tool or the request ran out of time.
pub const TIMEOUT: u16 = 504;
/// The client went away (rarely seen: nobody is left to read it).
pub const CANCELLED: u16 = 408;
/// An internal failure (the headline only).
pub const INTERNAL: u16 = 500;
/// No valid credentials.
pub const UNAUTHORIZED: u16 = 401;
/// Valid credentials without a tool's scopes (when the project challenges instead of hiding).
pub const FORBIDDEN: u16 = 403;
/// A method the route does not take (`GET` of a tool that is not `read_only`).
pub const METHOD_NOT_ALLOWED: u16 = 405;
/// A body over the limit.
pub const PAYLOAD_TOO_LARGE: u16 = 413;

/// The status of a built-in error code (`None` for a tool's own codes and guards).
pub fn builtin_status(code: &str) -> Option<u16> {
    Some(match code {
        codes::INVALID_ARGUMENTS => INVALID,
        codes::UNKNOWN_TOOL | codes::NOT_FOUND | codes::UNKNOWN_TASK => NOT_FOUND,
        codes::TIMEOUT => TIMEOUT,
        codes::LOCKED => LOCKED,
        codes::IN_PROGRESS => IN_PROGRESS,
        codes::UNAVAILABLE => UNAVAILABLE,
        codes::CANCELLED => CANCELLED,
        codes::INTERNAL_ERROR | codes::QUERY_FAILED | codes::RESULT_TOO_LARGE => INTERNAL,
        codes::TASK_REQUIRED => TASK_REQUIRED,
        codes::TOO_MANY_TASKS => TOO_MANY_TASKS,
        codes::RATE_LIMITED => RATE_LIMITED,
        codes::INPUT_REQUIRED => INPUT_REQUIRED,
        codes::DECLINED => DECLINED,
        codes::INVALID_REQUEST_STATE => INVALID_REQUEST_STATE,
        codes::REQUEST_STATE_EXPIRED => REQUEST_STATE_EXPIRED,
        _ => return None,
    })
}

/// The status of a call that failed with `code`: the status the spec gives a declared code
/// (`declared` is `Some(its status)` for a declared code), else a built-in code's, else a
/// guard's 412, a declared code's 409, and 500 for anything else.
pub fn status(code: &str, declared: Option<Option<u16>>, guard: bool) -> u16 {
    match (declared, builtin_status(code)) {
        (Some(Some(status)), _) | (_, Some(status)) => status,
        _ if guard => GUARD_FAILED,
        (Some(None), None) => DECLARED,
        (None, None) => INTERNAL,
    }
}

/// Whether a spec may answer one of its error codes with `status`: a client error or a
/// server error, but not one the API answers for something else than the call's outcome
/// (credentials, scopes, methods, body size).
pub fn check_declared_status(status: u16) -> Result<(), StatusError> {
    match status {
        UNAUTHORIZED | FORBIDDEN | METHOD_NOT_ALLOWED | PAYLOAD_TOO_LARGE => {
            Err(StatusError::AnsweredByTheApi(status))
        }
        400..=599 => Ok(()),
        _ => Err(StatusError::NotAnError(status)),
    }
}

/// Why an error code may not be answered with a status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum StatusError {
    /// The API answers this status itself (credentials, scopes, methods, body size).
    AnsweredByTheApi(u16),
    /// Not a client (4xx) or server (5xx) error.
    NotAnError(u16),
}

impl std::fmt::Display for StatusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::AnsweredByTheApi(status) => write!(
                f,
                "the API answers {status} itself (credentials, scopes, methods and body size: 401, 403, 405, 413)"
            ),
            Self::NotAnError(_) => {
                f.write_str("an error code's status is a client (4xx) or server (5xx) error")
            }
        }
    }
}

impl std::error::Error for StatusError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_code_has_a_status() {
        for code in codes::BUILTIN {
            assert!(builtin_status(code).is_some(), "{code}");
        }
        assert_eq!(builtin_status(codes::NOT_FOUND), Some(404));
        assert_eq!(builtin_status("already_shipped"), None);
    }

    #[test]
    fn a_declared_status_wins_then_built_ins_guards_declared_codes() {
        assert_eq!(status("not_found", Some(Some(410)), false), 410);
        assert_eq!(status("not_found", Some(None), false), 404);
        assert_eq!(status("paid", None, true), 412);
        assert_eq!(status("already_shipped", Some(None), false), 409);
        assert_eq!(status("mystery", None, false), 500);
    }

    #[test]
    fn declared_statuses_are_errors_the_api_does_not_answer_itself() {
        assert!(check_declared_status(409).is_ok());
        assert!(check_declared_status(503).is_ok());
        for status in [200, 302, 401, 403, 405, 413, 600] {
            assert!(check_declared_status(status).is_err(), "{status}");
        }
    }
}
