//! What a failure of the database means for the call that met it: the database could not be
//! reached (the pool timed out or is closed, the connection broke, the server is shutting down
//! or refuses connections), so nothing the statement was part of happened and the call may be
//! retried; or something failed on a reachable database (a missing table, a broken constraint,
//! a value that does not decode), which is the developer's to fix.

use std::error::Error;

use crate::model::descriptor::Descriptor;
use crate::model::failure::{RETRY_UNAVAILABLE, ToolResult, error_chain};

/// The driver's error, or another cause.
type Cause = Box<dyn Error + Send + Sync + 'static>;

/// A failure of the storage, saying what it was doing; its cause is kept as its
/// [`source`](Error::source) (the driver's error: sqlx's, say), and rendered by
/// [`chain`](Self::chain) where an operator reads it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StorageError {
    /// The database could not be reached while `doing` something: nothing that was part of it
    /// happened; a call that met this answers `unavailable` (retry soon).
    #[error("{doing}")]
    Unreachable {
        /// What it was doing (`"claiming a once key"`).
        doing: String,
        /// Why, in the driver's words.
        #[source]
        source: Cause,
    },
    /// Something failed on a reachable database while `doing` something (a missing table, a
    /// statement that could not be built, a value that does not decode): the developer's.
    #[error("{doing}")]
    Failed {
        /// What it was doing.
        doing: String,
        /// Why, when there is more to say than `doing`.
        #[source]
        source: Option<Cause>,
    },
}

impl StorageError {
    /// The database could not be reached while `doing` something, for this `cause`.
    pub fn unreachable(doing: impl Into<String>, cause: impl Into<Cause>) -> Self {
        Self::Unreachable {
            doing: doing.into(),
            source: cause.into(),
        }
    }

    /// Something failed while `doing` something, for this `cause`.
    pub fn failed(doing: impl Into<String>, cause: impl Into<Cause>) -> Self {
        Self::Failed {
            doing: doing.into(),
            source: Some(cause.into()),
        }
    }

    /// Something failed, and `message` says all there is to say.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::Failed {
            doing: message.into(),
            source: None,
        }
    }

    /// The same failure, saying what it was part of (`"loading `order`"`).
    #[must_use]
    pub fn context(self, what: &str) -> Self {
        match self {
            Self::Unreachable { doing, source } => Self::Unreachable {
                doing: format!("{what}: {doing}"),
                source,
            },
            Self::Failed { doing, source } => Self::Failed {
                doing: format!("{what}: {doing}"),
                source,
            },
        }
    }

    /// Whether the database could not be reached.
    pub fn is_unreachable(&self) -> bool {
        matches!(self, Self::Unreachable { .. })
    }

    /// What it was doing, then each cause in turn (`"claiming a once key: pool timed out while
    /// waiting for an open connection"`): for logs and a call's developer-facing exception.
    pub fn chain(&self) -> String {
        error_chain(self)
    }

    /// What a call of `tool` that met this answers: `unavailable` (retry soon) when the
    /// database could not be reached, else an internal error; the developer sees why.
    pub(crate) fn answer(self, tool: &Descriptor) -> ToolResult {
        let exception = self.chain();
        match self.is_unreachable() {
            true => ToolResult::unavailable(tool, "the database", RETRY_UNAVAILABLE, exception),
            false => ToolResult::internal(tool, exception),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chain_names_what_it_was_doing_then_each_cause() {
        let io = std::io::Error::other("connection refused");
        let error = StorageError::unreachable("claiming a key", io).context("`refund`");
        assert!(error.is_unreachable());
        assert_eq!(error.to_string(), "`refund`: claiming a key");
        assert_eq!(
            error.chain(),
            "`refund`: claiming a key: connection refused"
        );
        let invalid = StorageError::invalid("a value does not decode");
        assert!(!invalid.is_unreachable());
        assert_eq!(invalid.chain(), "a value does not decode");
    }
}
