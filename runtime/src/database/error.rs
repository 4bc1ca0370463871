//! What a failed statement on the database means for the call that ran it: the database could
//! not be reached (the pool timed out or is closed, the connection broke, the server is
//! shutting down or refuses connections), so nothing the statement was part of happened and
//! the call may be retried; or the statement failed on a reachable database (a missing table,
//! a broken constraint), which is the developer's to fix.

use std::fmt;

use crate::descriptor::Descriptor;
use crate::failure::{RETRY_UNAVAILABLE, ToolResult};

/// A failed statement, with what it was doing (`"claiming a once key: pool timed out"`).
#[derive(Debug, Clone)]
pub(crate) struct DatabaseError {
    message: String,
    unreachable: bool,
}

impl DatabaseError {
    /// `error` of the driver, while `doing` something.
    #[cfg(any(feature = "sqlite", feature = "postgres"))]
    pub(crate) fn of(doing: &str, error: &sqlx::Error) -> Self {
        Self {
            message: format!("{doing}: {error}"),
            unreachable: unreachable(error),
        }
    }

    /// A failure that is not the database's reachability (a value that does not decode, a
    /// statement that could not be built).
    pub(crate) fn failed(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            unreachable: false,
        }
    }

    /// The same error, saying what it was part of (`"loading `order`"`).
    pub(crate) fn context(self, what: &str) -> Self {
        Self {
            message: format!("{what}: {}", self.message),
            ..self
        }
    }

    /// Whether the database could not be reached.
    pub(crate) fn is_unreachable(&self) -> bool {
        self.unreachable
    }

    /// What a call of `tool` that this failed answers: `unavailable` (retry soon) when the
    /// database could not be reached, else an internal error; the developer sees why.
    pub(crate) fn answer(self, tool: &Descriptor) -> ToolResult {
        match self.unreachable {
            true => ToolResult::unavailable(tool, "the database", RETRY_UNAVAILABLE, self.message),
            false => ToolResult::internal(tool, self.message),
        }
    }
}

impl fmt::Display for DatabaseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DatabaseError {}

/// Whether `error` says the database could not be reached rather than that a statement failed
/// on it: the pool gave no connection in time or is closed, the connection broke (I/O, TLS),
/// or PostgreSQL refused or dropped it (SQLSTATE class 08, connection exception; 57P01–57P03,
/// the server shutting down, crashed or starting).
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub(crate) fn unreachable(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => true,
        sqlx::Error::Tls(_) | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(e) => e.code().is_some_and(|code| {
            code.starts_with("08") || matches!(&*code, "57P01" | "57P02" | "57P03")
        }),
        _ => false,
    }
}

/// Whether some error in `error`'s chain of causes says a database could not be reached: a
/// driver's error (an app's handler using sqlx), or one of toolspec's own.
pub(crate) fn unreachable_in(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    // A chain that loops ends here.
    for _ in 0..32 {
        let Some(error) = cause else { break };
        #[cfg(any(feature = "sqlite", feature = "postgres"))]
        if let Some(e) = error.downcast_ref::<sqlx::Error>() {
            return unreachable(e);
        }
        if let Some(e) = error.downcast_ref::<DatabaseError>() {
            return e.is_unreachable();
        }
        cause = error.source();
    }
    false
}

#[cfg(all(test, any(feature = "sqlite", feature = "postgres")))]
mod tests {
    use super::*;

    /// An app's error with a driver error as its cause.
    #[derive(Debug)]
    struct Loading(sqlx::Error);

    impl fmt::Display for Loading {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("loading order 3")
        }
    }

    impl std::error::Error for Loading {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn a_timed_out_pool_or_a_broken_connection_is_unreachable_a_bad_statement_is_not() {
        assert!(unreachable(&sqlx::Error::PoolTimedOut));
        assert!(unreachable(&sqlx::Error::PoolClosed));
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        assert!(unreachable(&sqlx::Error::Io(refused)));
        assert!(!unreachable(&sqlx::Error::RowNotFound));
        assert!(!unreachable(&sqlx::Error::ColumnNotFound("id".into())));
    }

    #[test]
    fn the_cause_is_found_anywhere_in_the_chain() {
        assert!(unreachable_in(&Loading(sqlx::Error::PoolTimedOut)));
        assert!(!unreachable_in(&Loading(sqlx::Error::RowNotFound)));
        let ours = DatabaseError::of("claiming a key", &sqlx::Error::PoolTimedOut);
        assert!(unreachable_in(&ours));
        assert_eq!(
            ours.to_string(),
            "claiming a key: pool timed out while waiting for an open connection"
        );
        assert!(!unreachable_in(&DatabaseError::failed(
            "a value does not decode"
        )));
    }
}
