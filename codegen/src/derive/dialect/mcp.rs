//! MCP `inputSchema`: the canonical JSON Schema 2020-12, unchanged. `http` (OpenAPI 3.1 speaks
//! JSON Schema 2020-12) and custom adapters use it too.

use serde_json::Value;

use crate::derive::dialect::pass::{Cx, Derived};

/// The canonical schema itself.
pub fn derive(canonical: &Value) -> Derived {
    Cx::new().finish(canonical.clone())
}
