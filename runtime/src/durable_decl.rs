//! What the build declares about the database-backed parts of a call: how its audit record is
//! written (the shared vocabulary's policy types), and Dex's `once` and `lock`. Static data the
//! generated code writes; the audit trail (`crate::audit`) and the pipeline read it.

use std::time::Duration;

pub use toolspec_vocab::audit::{AuditConfig, AuditPolicy, Durability};

/// Dex's `once` on an action: a second call with the same key within `ttl` answers with the
/// first call's result without running again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OnceDecl {
    /// The `expects` fields whose values make the key (ambient and `ref` fields included), in
    /// spec order.
    pub key: &'static [&'static str],
    /// How long a result answers repeats.
    pub ttl: Duration,
}

/// Dex's `lock` on an action: calls with the same key run one at a time, across every process
/// on the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LockDecl {
    /// The `expects` fields whose values make the key, in spec order.
    pub key: &'static [&'static str],
    /// How long a call waits for the lock before failing with `locked`.
    pub wait: Duration,
}
