//! What explain reports of a call's `once` and `lock` keys.

use serde::Serialize;
use serde_json::{Map, Value};

/// What explain says of a `once` key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OnceStatus {
    /// The key's fields and values (sensitive ones redacted).
    pub key: Map<String, Value>,
    /// `new` (a call would run), `running` (a call with this key runs now; a repeat would wait
    /// for its result) or `done` (a repeat answers with the recorded result).
    pub status: &'static str,
    /// When the recorded call finished (`done` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// Its outcome: `ok` or the error code (`done` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// Until when repeats answer with it (`done` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
}

/// What explain says of a `lock` key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LockStatus {
    /// The key's fields and values (sensitive ones redacted).
    pub key: Map<String, Value>,
    /// Whether a call holds the lock now.
    pub held: bool,
    /// How long a call waits for it, in milliseconds.
    pub wait_ms: u64,
}
