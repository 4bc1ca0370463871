//! # toolspec — the runtime half of spec'd LLM-agent tools
//!
//! `toolspec-codegen` compiles YAML tool specs into typed Rust at build time; the code it
//! writes links against this crate and nothing else. This crate owns:
//!
//! - [`Descriptor`]: everything known about a tool at build time (names per adapter,
//!   description, schemas as static JSON, hints, guards, error codes, settings overrides);
//! - [`Contract`] and [`Operation`]: the typed surface each generated tool implements;
//! - [`Registry`]: the tools of one crate with their handlers, looked up by name or by adapter;
//! - [`settings`], [`Dialect`] and [`codes`]: the vocabulary shared with the build-time
//!   compiler (from `toolspec-vocab`), so a tool has the same settings, schema dialect and
//!   built-in error codes everywhere.
//!
//! ```ignore
//! toolspec::include_tools!(); // pub mod tools { … generated from specs/ … }
//! let registry = tools::registry(App::default());
//! for tool in registry.tools_for("mcp") { println!("{}", tool.name_for("mcp").unwrap()); }
//! ```
//!
//! ## Layout
//!
//! Each top-level module depends only on the ones listed before it (`tests/architecture`
//! checks it, and that this list names every one):
//!
//! - vocabulary and data: `ambient`, `descriptor` (the vocabulary's one descriptor model),
//!   `durable_decl` (what audit, `once` and `lock` declare), `project`, `query_decl` (what
//!   query tools and `ref` fields declare), `caller`, `context`, `failure`, `guard` (what
//!   guards answer), `contract`, `hooks`, `registry_error`, `macros` (the macros generated
//!   code calls);
//! - `schema` (keys, local `$ref`s, the one schema walker) and [`sensitive`] (where a tool's
//!   values are sensitive, and redaction);
//! - `checks`: the argument checks (screening and coercion, the schema, their reports, limits);
//! - [`explain`]: what an explanation holds, and the explain tool's published schemas;
//! - `database`: the app's [`Database`] (the `sqlite` and `postgres` features), toolspec's own
//!   tables, the breaker of a database that is down, the liveness of processes; [`audit`]:
//!   the audit trail; `durable`: `once` (an idempotency key) and `lock` (an advisory lock);
//!   `query`: the query engine of query tools and `ref` fields (SQL built with sea-query);
//! - `call`: one call as the pipeline carries it ([`CallOptions`], the mode, the answer) and
//!   the seam each tool fills;
//! - `registry`: the tools with their handlers, looked up by name and by adapter;
//! - `pipeline`: the stages of every call, in one order, and explaining a call as the same
//!   stages in a mode; the built-in explain tool; the registry's call methods;
//! - `catalog`: one adapter's members, each with its declaration and its registered tool;
//! - `adapters`: MCP, the HTTP API, function calling (OpenAI, Anthropic, Gemini) and rig, each
//!   behind its feature and re-exported here; nothing else depends on them.
//!
//! Generated code names the runtime through `__private` only (hidden, no stability promise).

mod adapters;
mod ambient;
pub mod audit;
mod call;
mod caller;
mod catalog;
mod checks;
mod context;
mod contract;
mod database;
mod descriptor;
mod durable;
mod durable_decl;
pub mod explain;
mod failure;
mod guard;
mod hooks;
mod macros;
mod pipeline;
mod project;
mod query;
mod query_decl;
mod registry;
mod registry_error;
mod schema;
pub mod sensitive;

#[cfg(feature = "anthropic")]
pub use adapters::anthropic;
#[cfg(any(feature = "mcp", feature = "http", feature = "jwt"))]
pub use adapters::auth;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
pub use adapters::calling;
#[cfg(any(feature = "mcp", feature = "http"))]
pub use adapters::gate;
#[cfg(feature = "gemini")]
pub use adapters::gemini;
#[cfg(feature = "http")]
pub use adapters::http;
#[cfg(feature = "mcp")]
pub use adapters::mcp;
#[cfg(feature = "openai")]
pub use adapters::openai;
#[cfg(feature = "rig")]
pub use adapters::rig;

pub use ambient::AmbientContext;
pub use call::options::{CallOptions, UndeclaredKeys};
pub use caller::{Caller, Scopes};
pub use catalog::{Catalog, Member};
pub use checks::limits::Limits;
pub use checks::report::{Errors, FieldError};
pub use context::{Context, Progress, ProgressUpdate};
pub use contract::{BoxFuture, Contract, DeclaredError, NoGuard, Operation, Outcome};
pub use database::Database;
pub use descriptor::{AdapterBinding, Descriptor, ErrorCode, Field, Guard, ToolKind};
pub use durable_decl::{AuditConfig, AuditPolicy, Durability, LockDecl, OnceDecl};
pub use explain::explanation::{Explanation, GuardCheck};
pub use explain::status::{LockStatus, OnceStatus};
pub use failure::{Failure, ToolError, ToolResult, UnknownVariant};
pub use guard::{GuardFailure, GuardStop, NoError, StopReason, Verdict};
pub use hooks::{CallInfo, Hook};
pub use project::{ExplainConfig, Package, Project};
pub use query_decl::{
    ColumnType, FilterColumn, FilterOp, PageLimit, QueryDecl, QueryView, RecordColumn, RefDecl,
    ScopeColumn,
};
pub use registry::{RegisteredTool, Registry, RegistryBuilder};
pub use registry_error::{RegistryError, UnknownTool};
pub use tokio_util::sync::CancellationToken;
pub use toolspec_vocab::auth::{AuthConfig, ClaimMapping, MissingScope};
pub use toolspec_vocab::{Dialect, codes, settings};

/// Value types that spec field types map to (`uuid`, `date`, `datetime`, `decimal`).
pub mod types {
    pub use chrono::{DateTime, FixedOffset, NaiveDate};
    pub use rust_decimal::Decimal;
    pub use uuid::Uuid;
}

/// Pulls the code generated by `toolspec_codegen::compile` into the current module.
///
/// `toolspec::include_tools!()` declares `pub mod tools { … }`; pass a name to choose another
/// module name, and a file name when the build script set one with `Config::file_name`.
///
/// ```ignore
/// toolspec::include_tools!();               // pub mod tools
/// toolspec::include_tools!(agent_tools);    // pub mod agent_tools
/// ```
#[macro_export]
macro_rules! include_tools {
    () => {
        $crate::include_tools!(tools);
    };
    ($module:ident) => {
        $crate::include_tools!($module, "toolspec_tools.rs");
    };
    ($module:ident, $file:literal) => {
        // The generated file's one lint block.
        #[allow(
            clippy::all,
            clippy::pedantic,
            clippy::nursery,
            dead_code,
            missing_docs,
            unused_qualifications
        )]
        pub mod $module {
            include!(concat!(env!("OUT_DIR"), "/", $file));
        }
    };
}

/// The one door of generated code (and of this workspace's benchmarks): every item the code
/// that `toolspec-codegen` writes names, so that the public paths above can change without
/// breaking it. Not part of the public API: no stability promise.
#[doc(hidden)]
pub mod __private {
    pub use serde;
    pub use serde_json;

    /// Decodes a structured spec `default:` (a list, map or object). The compiler checked the
    /// value against the field's schema and type at build time, so decoding cannot fail.
    #[allow(clippy::expect_used)]
    pub fn default_from_json<T: serde::de::DeserializeOwned>(json: &str) -> T {
        serde_json::from_str(json).expect("spec default checked against its field at build time")
    }

    pub use crate::context::Context;
    pub use crate::contract::{BoxFuture, Contract, DeclaredError, NoGuard, Operation, Outcome};
    pub use crate::database::Database;
    pub use crate::descriptor::{AdapterBinding, Descriptor, ErrorCode, Field, Guard, ToolKind};
    pub use crate::durable_decl::{AuditConfig, AuditPolicy, Durability, LockDecl, OnceDecl};
    pub use crate::failure::{Failure, UnknownVariant};
    pub use crate::guard::{GuardFailure, GuardStop, NoError, check as check_guard};
    pub use crate::project::{ExplainConfig, Package, Project};
    pub use crate::query::operation::QueryOperation;
    pub use crate::query_decl::{
        ColumnType, FilterColumn, FilterOp, PageLimit, QueryDecl, QueryView, RecordColumn, RefDecl,
        ScopeColumn,
    };
    pub use crate::registry::{Registry, generated_registry};
    pub use crate::types;
    pub use crate::{bind_handler, declared_errors, string_enum};
    pub use toolspec_vocab::Dialect;
    pub use toolspec_vocab::adapters::BUILTIN as BUILTIN_ADAPTERS;
    pub use toolspec_vocab::auth::{AuthConfig, ClaimMapping, MissingScope};
    pub use toolspec_vocab::naming::NameRule;
    pub use toolspec_vocab::settings::{self, SettingValue};

    /// The pipeline's argument plan, for the invoke benchmark's stages.
    pub use crate::checks::plan::ArgumentPlan;
}
