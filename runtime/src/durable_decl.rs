//! What the build declares about the database-backed parts of a call: how its audit record is
//! written (the shared vocabulary's policy types), and `once` (an idempotency key) and `lock`
//! (an advisory lock), the vocabulary's descriptor model. Static data the generated code
//! writes; the audit trail (`crate::audit`) and the pipeline read it.

pub use crate::descriptor::{LockDecl, OnceDecl};
pub use toolspec_vocab::audit::{AuditConfig, AuditPolicy, Durability};
