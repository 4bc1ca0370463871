//! How a difference of a tool's contract from its lock affects the tool's clients.

use std::fmt;

/// How a difference affects the tool's clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// A client written against the lock may fail.
    Breaking,
    /// Clients keep working, but someone must approve it (new surface, weaker guarantees).
    NeedsReview,
    /// Nothing a client relies on changed.
    Compatible,
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Breaking => "breaking",
            Self::NeedsReview => "needs review",
            Self::Compatible => "compatible",
        })
    }
}
