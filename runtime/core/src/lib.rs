//! # toolspec-core — the call pipeline of spec'd LLM-agent tools, and its adapters
//!
//! Apps and generated code name this crate through the `toolspec` façade, which re-exports it
//! whole beside the storage over SQLite and PostgreSQL (`toolspec-sql`) and the JWT resource
//! server (`toolspec-jwt`). This crate owns:
//!
//! - [`Descriptor`]: everything known about a tool at build time (names per adapter,
//!   description, schemas as static JSON, hints, guards, error codes, settings overrides);
//! - [`Contract`] and [`Operation`]: the typed surface each generated tool implements;
//! - [`Registry`]: the tools of one crate with their handlers, looked up by name or by adapter,
//!   and every call's pipeline;
//! - [`storage`]: the seam of what durable state a call needs (`once`, `lock`, `ref` records,
//!   query tools, the audit trail), which a backend implements; `auth` (features `mcp`,
//!   `http`, `auth`): the seam of who an HTTP request comes from;
//! - the adapters, each behind its feature;
//! - [`settings`], [`Dialect`] and [`codes`]: the vocabulary shared with the build-time
//!   compiler (from `toolspec-vocab`).
//!
//! It depends on no database driver, SQL builder or JWT library.
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
//! - `schema` (keys, local `$ref`s, the one schema walker, and [`sensitive`]: where a tool's
//!   values are sensitive, and redaction);
//! - `model`, the runtime's data: what a tool is and what a call carries, asks and answers —
//!   [`descriptor`] (the vocabulary's one descriptor model, and everything a tool declares),
//!   [`project`], the caller and its ambient context, a handler's context and clock, results
//!   and errors, [`truncation`] (what an answer cut to fit its result cap says),
//!   [`user_input`] (what a call asks its user, and the answers), what a task is, what guards
//!   answer, the typed contract, hooks, [`rate`] (a tool's budget of calls per caller, and its
//!   calls in flight), [`request_state`] (what a round trip hands its client, sealed), the
//!   limits and the report of argument errors, and what an explanation holds, and the macros
//!   generated code calls;
//! - `audit_record`: what the audit trail records, and which records to read;
//! - [`storage`]: the traits a storage implements (availability, admission, records, queries,
//!   the audit sink, the task queue), the error it answers, the `once` and `lock` key;
//! - `durable`: what a call keeps in the storage — `once` (an idempotency key), `lock` (an
//!   advisory lock), and the audit trail's writer (`trail`); `query`: paging, a query tool's
//!   operation, `ref` records;
//! - `call`: one call as the pipeline carries it ([`CallOptions`], the mode, the answer) and
//!   the seam each tool fills;
//! - `registry`: the tools with their handlers, looked up by name and by adapter, and (its
//!   `catalog`) one adapter's members, each with its declaration and its registered tool;
//! - `pipeline`: the stages of every call, in one order, and explaining a call as the same
//!   stages in a mode; the argument checks they run (`checks`: screening and coercion, the
//!   schema); the built-in explain tool; the registry's call methods; tools defined
//!   at run time (`inline`: a handler over JSON);
//! - `worker`: the registry's task methods and the worker that runs stored tasks;
//! - [`docs`]: the tool catalog page people read (HTML or Markdown), of some descriptors;
//! - `adapters`: MCP, the HTTP API, function calling (OpenAI, Anthropic, Gemini) and rig, each
//!   behind its feature and re-exported here; nothing else depends on them;
//! - [`audit`]: the audit trail's public face (its records and the trail), [`inline`]: tools
//!   defined at run time, and [`tasks`]: durable tasks' (what a task is, reading and
//!   cancelling one), assembled here.
//!
//! Generated code names the runtime through `__private` only (hidden, no stability promise).

mod adapters;
mod audit_record;
mod call;
pub mod docs;
mod durable;
mod model;
mod pipeline;
mod query;
mod registry;
mod schema;
pub mod storage;

#[doc(hidden)]
pub use model::explain;
#[doc(hidden)]
pub use model::{descriptor, project};
pub use model::{rate, request_state, truncation, user_input};
pub use schema::sensitive;
mod worker;

#[cfg(feature = "anthropic")]
pub use adapters::anthropic;
#[cfg(feature = "auth")]
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

pub use call::options::{CallOptions, UndeclaredKeys};
pub use model::ambient::AmbientContext;
pub use model::caller::{Caller, Scopes};
pub use model::clock::Clock;
pub use model::context::{Context, Progress, ProgressUpdate};
#[doc(hidden)]
pub use model::contract::{BoxFuture, Contract, DeclaredError, Described, Operation, Outcome};
pub use model::descriptor::{Descriptor, SharedDescriptor};
pub use model::explain::explanation::{Explanation, GuardCheck};
pub use model::explain::status::{LockStatus, OnceStatus};
#[doc(hidden)]
pub use model::failure::UnknownVariant;
pub use model::failure::{Failure, ToolError, ToolResult};
pub use model::guard::{GuardFailure, Verdict};
#[doc(hidden)]
pub use model::guard::{GuardStop, NoError, StopReason};
pub use model::hooks::{CallInfo, Hook};
pub use model::limits::Limits;
pub use model::project::Project;
pub use model::registry_error::{CallerMismatch, RegistryError, UnknownTool};
#[doc(hidden)]
pub use model::report::Errors;
pub use model::report::FieldError;
#[doc(hidden)]
pub use registry::RegistryBuilder;
pub use registry::catalog::Selection;
pub use registry::{RegisteredTool, Registry};
pub use tokio_util::sync::CancellationToken;
pub use toolspec_vocab::auth::MissingScope;
pub use toolspec_vocab::codes::Code;
#[doc(hidden)]
pub use toolspec_vocab::settings;
pub use toolspec_vocab::{Dialect, codes};

/// The audit trail: one record per call of a tool whose `audit` policy is on, whatever the
/// adapter (MCP, function calling, rig, a direct `invoke`), written into the registry's
/// [`storage`] (the app's database).
///
/// A record holds who called what through which adapter, when and for how long, the trusted
/// ambient values and the arguments as received, the outcome (and the developer-facing
/// exception, for operators only), the exposed result and the call's trace id; every value the
/// spec marks `sensitive` is stored as [`REDACTED`](crate::schema::sensitive::REDACTED). Records go
/// through a bounded queue to one writer per trail that writes them in batches: the call does
/// not wait, unless its policy is `sync` or `required`. [`AuditTrail::flush`](audit::AuditTrail::flush)
/// waits for what is queued; [`AuditTrail::reconcile`](audit::AuditTrail::reconcile) closes what
/// dead processes left open; [`AuditQuery`](audit::AuditQuery) reads the stored records.
pub mod audit {
    pub use crate::audit_record::{
        AuditOutcome, AuditPage, AuditQuery, AuditRecord, AuditState, ParseAuditError,
    };
    pub use crate::durable::trail::{AuditStats, AuditTrail};
    #[doc(hidden)]
    pub use crate::{audit_record::AuditEntry, durable::trail::MAX_BATCH};
}

/// Tools defined at run time ([`Registry::with_tool`]): a descriptor the compiler built from a
/// spec the app holds (`toolspec::inline` builds it), handled by an [`InlineHandler`](inline::InlineHandler)
/// over JSON, through the same pipeline and adapters as a generated tool.
pub mod inline {
    pub use crate::pipeline::inline::{InlineContext, InlineError, InlineHandler};
}

/// Long-running tools as durable tasks: a call of a tool that declares `task:` is stored in
/// the registry's database and answered with a [`Task`](tasks::Task) handle when its caller
/// can take one ([`Accept`](tasks::Accept), [`RegisteredTool::submit_with`]); a worker on any
/// process sharing the database ([`Registry::start_tasks`]) runs it through the same pipeline
/// with its caller's stored identity and ambient context, and keeps the result for the caller
/// to read ([`Registry::task`]) until the task's retention passes. Reading or cancelling
/// another caller's task answers as an unknown id does ([`TaskError::Unknown`](tasks::TaskError::Unknown)).
pub mod tasks {
    pub use crate::model::task::{
        Accept, MalformedTaskId, Queued, Submitted, Task, TaskId, TaskStatus,
    };
    #[doc(hidden)]
    pub use crate::model::task::{POLL_INTERVAL, result_from_stored, stored_result, timestamp};
    #[doc(hidden)]
    pub use crate::worker::MAX_LISTED;
    pub use crate::worker::TaskError;
}

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

    pub use crate::model::context::Context;
    pub use crate::model::contract::{
        BoxFuture, Contract, DeclaredError, Described, NoGuard, Operation, Outcome,
    };
    pub use crate::model::descriptor::DescriptorParts;
    pub use crate::model::descriptor::{
        AdapterBinding, Descriptor, ErrorCode, Field, Guard, ToolKind,
    };
    pub use crate::model::descriptor::{
        AskForm, Confirm, RateLimit, ResultCap, TaskDecl, TaskSupport,
    };
    pub use crate::model::descriptor::{AuditConfig, AuditPolicy, Durability, LockDecl, OnceDecl};
    pub use crate::model::descriptor::{
        ColumnType, FilterColumn, FilterOp, PageLimit, QueryDecl, QueryView, RecordColumn, RefDecl,
        ScopeColumn,
    };
    pub use crate::model::failure::{Failure, UnknownVariant};
    pub use crate::model::guard::{GuardFailure, GuardStop, NoError, check as check_guard};
    pub use crate::model::project::TasksConfig;
    pub use crate::model::project::{ExplainConfig, Package, Project};
    pub use crate::query::operation::QueryOperation;
    pub use crate::registry::{Registry, generated_registry};
    pub use crate::types;
    pub use crate::{bind_handler, declared_errors, string_enum};
    pub use toolspec_vocab::Dialect;
    pub use toolspec_vocab::adapters::BUILTIN as BUILTIN_ADAPTERS;
    pub use toolspec_vocab::auth::{AuthConfig, ClaimMapping, MissingScope};
    pub use toolspec_vocab::naming::NameRule;
    pub use toolspec_vocab::settings::{self, SettingValue};

    /// The fast check of schemas, for the tests that every generated schema has one and the
    /// invoke benchmark's stages; beside the validator, for the fuzzer that compares them.
    pub use crate::pipeline::checks::fast::FastCheck;
    /// The pipeline's argument plan, for the invoke benchmark's stages.
    pub use crate::pipeline::checks::plan::ArgumentPlan;
    pub use crate::pipeline::checks::validate::fast_and_validator;
}
