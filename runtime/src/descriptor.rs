//! What is known about a tool at build time, embedded as static data by the generated code: the
//! vocabulary's descriptor model (one definition for the compiler, the generated code, the
//! runtime and the CLI), re-exported.

pub use toolspec_vocab::descriptor::query::{
    FilterColumn, PageLimit, QueryDecl, QueryView, RecordColumn, RefDecl, ScopeColumn,
};
pub use toolspec_vocab::descriptor::{
    AdapterBinding, Descriptor, ErrorCode, Field, Guard, LockDecl, OnceDecl, Text, ToolKind,
};
