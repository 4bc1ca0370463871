//! What is known about a tool at build time, embedded as static data by the generated code: the
//! vocabulary's descriptor model (one definition for the compiler, the generated code, the
//! runtime and the CLI), re-exported, with everything it declares — each adapter's binding,
//! the error codes and guards, what a query tool (`kind: query`) and a `ref` field read (with
//! the query words: column types, filter operators), how the call's audit record is written,
//! `once` (an idempotency key) and `lock` (an advisory lock), and whether it runs as a durable
//! task (`task`).
//!
//! An app reads a descriptor ([`RegisteredTool::descriptor`](crate::RegisteredTool::descriptor));
//! only the compiler writes one.

pub use toolspec_vocab::audit::{AuditConfig, AuditPolicy, Durability};
pub use toolspec_vocab::descriptor::query::{
    FilterColumn, PageLimit, QueryDecl, QueryView, RecordColumn, RefDecl, ScopeColumn,
};
pub use toolspec_vocab::descriptor::{
    AdapterBinding, AskForm, Confirm, Descriptor, ErrorCode, Field, Guard, LockDecl, OnceDecl,
    RateLimit, ResultCap, TaskDecl, TaskSupport, Text, ToolKind,
};
pub use toolspec_vocab::query::{ColumnType, FilterOp};

#[doc(hidden)]
pub use toolspec_vocab::descriptor::DescriptorParts;
