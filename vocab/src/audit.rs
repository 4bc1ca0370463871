//! The audit trail's policy, as specs declare it and the runtime follows it: when a call's
//! record is written ([`Durability`]), a tool's resolved [`AuditPolicy`], and the project's
//! [`AuditConfig`] (every tool's default and the retention).

use std::time::Duration;

/// When a call's audit record is written, relative to the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub enum Durability {
    /// Queued, written in a batch after the answer leaves (the default).
    Async,
    /// Committed before the answer leaves.
    Sync,
}

impl Durability {
    /// The spelling in specs (`async`, `sync`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Async => "async",
            Self::Sync => "sync",
        }
    }
}

/// How one tool's calls are recorded: the project's `audit:` with the tool's own `audit:`
/// over it, resolved at build time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "bake", derive(serde::Serialize))]
pub struct AuditPolicy {
    /// Whether calls of this tool are recorded.
    pub enabled: bool,
    /// When the record is written.
    pub durability: Durability,
    /// A call whose record cannot be written fails (closed) with an internal error. Implies
    /// [`Durability::Sync`].
    pub required: bool,
}

impl AuditPolicy {
    /// Not recorded.
    pub const OFF: Self = Self {
        enabled: false,
        durability: Durability::Async,
        required: false,
    };
}

/// The project's `audit:`: the default policy of every tool, and how long records are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditConfig {
    /// The policy a tool has unless its own `audit:` says otherwise.
    pub policy: AuditPolicy,
    /// Records older than this are deleted; `None` keeps them forever.
    pub retention: Option<Duration>,
}

impl AuditConfig {
    /// No audit trail.
    pub const OFF: Self = Self {
        policy: AuditPolicy::OFF,
        retention: None,
    };
}
