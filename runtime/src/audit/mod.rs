//! The audit trail: one record per call of a tool whose `audit` policy is on, whatever the
//! adapter (MCP, function calling, rig, a direct `invoke`), written into toolspec's own table
//! in the app's [`Database`](crate::Database).
//!
//! A record holds who called what through which adapter, when and for how long, the trusted
//! ambient values and the arguments as received, the outcome (and the developer-facing
//! exception, for operators only), the exposed result and the call's trace id. Every value the
//! spec marks `sensitive` — in the input, the ambient values or the output, at any depth — is
//! stored as [`REDACTED`](crate::sensitive::REDACTED) (`record`).
//!
//! Records go through a bounded queue to one writer per trail that writes them in batches
//! (`trail`): the call does not wait, unless its policy is `sync` (the record is committed
//! before the answer leaves) or `required` (the record is committed before the call runs —
//! the call does not run when it cannot be — and finished with the outcome before the answer
//! leaves). [`AuditTrail::flush`] waits for what is queued, for a graceful shutdown.
//! [`AuditTrail::reconcile`] closes what dead processes left open. `read` is the query API
//! over the stored records.

mod read;
mod record;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
mod sql;
mod trail;

pub use read::{AuditOutcome, AuditPage, AuditQuery};
pub use record::{AuditRecord, AuditState};
pub(crate) use record::{Call, Redact};
pub(crate) use trail::OpenRecord;
pub use trail::{AuditStats, AuditTrail};
