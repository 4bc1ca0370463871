//! What a spec declares about the database-backed parts of a call: the audit trail's policy
//! (the project's `audit:`, a tool's own `audit:` over it) and an action's `once` and `lock`.

use std::time::Duration;

use crate::source::Spanned;

/// When a call's audit record is written, relative to the answer (`durability:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// Queued and written after the answer leaves (the default).
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

/// How one tool's calls are recorded, resolved: the project's `audit:` with the tool's own
/// over it, key by key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditPolicy {
    /// `enabled`: whether calls are recorded.
    pub enabled: bool,
    /// `durability`: when the record is written ([`Durability::Sync`] whenever `required`).
    pub durability: Durability,
    /// `required`: a call whose record cannot be written fails.
    pub required: bool,
}

impl AuditPolicy {
    /// Not recorded (the default).
    pub const OFF: Self = Self {
        enabled: false,
        durability: Durability::Async,
        required: false,
    };
}

/// The project's `audit:`: every tool's default policy, and how long records are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditConfig {
    /// The policy of a tool without its own `audit:`.
    pub policy: AuditPolicy,
    /// `retention`: records older than this are deleted; `None` keeps them forever.
    pub retention: Option<Duration>,
}

impl AuditConfig {
    /// No audit trail (the default).
    pub const OFF: Self = Self {
        policy: AuditPolicy::OFF,
        retention: None,
    };
}

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
