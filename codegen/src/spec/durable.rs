//! What a spec declares about the database-backed parts of a call: the audit trail's policy
//! (the project's `audit:`, a tool's own `audit:` over it) and an action's `once` and `lock`.

use std::time::Duration;

pub use toolspec_vocab::audit::{AuditConfig, AuditPolicy, Durability};

use crate::source::Spanned;

/// An action's `once:` — a repeat with the same key within `ttl` answers with the first
/// call's result.
#[derive(Debug, Clone, PartialEq)]
pub struct OnceSpec {
    /// `key`: top-level `expects` fields, in spec order, each once.
    pub key: Vec<Spanned<String>>,
    /// `ttl` (24 hours unless set).
    pub ttl: Duration,
}

/// An action's `lock:` — calls with the same key run one at a time.
#[derive(Debug, Clone, PartialEq)]
pub struct LockSpec {
    /// `key`: top-level `expects` fields, in spec order, each once.
    pub key: Vec<Spanned<String>>,
    /// `wait`: how long a call waits for the lock (5 seconds unless set).
    pub wait: Duration,
}
