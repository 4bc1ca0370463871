//! The audit trail's data: one record per call of a tool whose `audit` policy is on, whatever
//! the adapter (MCP, function calling, rig, a direct `invoke`), and the questions it answers.
//!
//! A record holds who called what through which adapter, when and for how long, the trusted
//! ambient values and the arguments as received, the outcome (and the developer-facing
//! exception, for operators only), the exposed result and the call's trace id. Every value the
//! spec marks `sensitive` — in the input, the ambient values or the output, at any depth — is
//! stored as [`REDACTED`](crate::schema::sensitive::REDACTED) (`record`). [`AuditQuery`] says which
//! records to read (`query`); the trail that writes them is `trail`, over an
//! [`AuditSink`](crate::storage::AuditSink).

mod query;
mod record;

pub use query::{AuditOutcome, AuditPage, AuditQuery};
pub use record::{AuditEntry, AuditRecord, AuditState, ParseAuditError};
pub(crate) use record::{Call, Redact, json_text};
