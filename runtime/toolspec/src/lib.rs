//! # toolspec — the runtime half of spec'd LLM-agent tools
//!
//! `toolspec-codegen` compiles YAML tool specs into typed Rust at build time; the code it
//! writes links against this crate and nothing else. This crate is a façade over three:
//!
//! - `toolspec-core`, re-exported here whole: [`Descriptor`] (everything known about a tool at
//!   build time), [`Contract`] and [`Operation`] (the typed surface each generated tool
//!   implements), the [`Registry`] and its call pipeline, explain, the [`storage`] and
//!   `auth` seams, and the adapters behind their features (`mcp`, `http`,
//!   `openai`, `anthropic`, `gemini`, `rig`);
//! - `toolspec-sql` (features `sqlite`, `postgres`): the app's [`Database`], which implements
//!   the storage seam for query tools, `ref` fields, the audit trail, `once` and `lock`;
//! - `toolspec-jwt` (feature `jwt`, `jwt-tls`): `auth::JwtAuthenticator`, an OAuth 2.1
//!   resource server.
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
//! - `auth` (the authenticators: the core's, and `JwtAuthenticator`), assembled from the crates
//!   above;
//! - `inline` (feature `inline`): specs compiled at run time, for tools defined in Rust;
//! - `testing` (feature `testing`): helpers for an app's tests, over the registry's public API;
//! - `__private`, the one door of generated code;
//! - [`guide`] (in the documentation only): the pages of the repository's `docs/`, one
//!   module each.
//!
//! Without a database backend [`Database`] is the core's `NoDatabase`, which has no values:
//! generated code naming it compiles, and a registry that needs a database cannot be built.

// The surface, named one by one: what an app names. The storage seam and the generated
// code's door are reachable, not shown (`#[doc(hidden)]`).
pub use toolspec_core::{
    AmbientContext, CallInfo, CallOptions, Caller, CallerMismatch, CancellationToken, Clock, Code,
    Context, Descriptor, Dialect, Explanation, Failure, FieldError, GuardCheck, GuardFailure, Hook,
    Limits, LockStatus, MissingScope, OnceStatus, Progress, ProgressUpdate, Project,
    RegisteredTool, Registry, RegistryError, Scopes, Selection, SharedDescriptor, ToolError,
    ToolResult, UndeclaredKeys, UnknownTool, Verdict, include_tools,
};
#[doc(hidden)]
pub use toolspec_core::{
    BoxFuture, Contract, DeclaredError, Described, Errors, GuardStop, NoError, Operation, Outcome,
    RegistryBuilder, StopReason, UnknownVariant, codes, descriptor, explain, project, settings,
    storage,
};
pub use toolspec_core::{
    audit, docs, rate, request_state, sensitive, tasks, truncation, types, user_input,
};

#[cfg(feature = "anthropic")]
pub use toolspec_core::anthropic;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
pub use toolspec_core::calling;
#[cfg(any(feature = "mcp", feature = "http"))]
pub use toolspec_core::gate;
#[cfg(feature = "gemini")]
pub use toolspec_core::gemini;
#[cfg(feature = "http")]
pub use toolspec_core::http;
#[cfg(not(feature = "inline"))]
pub use toolspec_core::inline;
#[cfg(feature = "mcp")]
pub use toolspec_core::mcp;
#[cfg(feature = "openai")]
pub use toolspec_core::openai;
#[cfg(feature = "rig")]
pub use toolspec_core::rig;

#[cfg(not(any(feature = "sqlite", feature = "postgres")))]
pub use toolspec_core::storage::NoDatabase as Database;
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub use toolspec_sql::Database;
/// Connection options that may only read, for the handlers of a read-only deployment
/// ([`Registry::read_only`]).
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub use toolspec_sql::read_only;
/// The sqlx [`Database`] is built on (features `sqlite`, `postgres`): build the app's pool with
/// this one, and no other version of sqlx is needed.
#[cfg(any(feature = "sqlite", feature = "postgres"))]
pub use toolspec_sql::sqlx;

/// Who an HTTP request comes from, for every adapter served over HTTP (MCP's streamable HTTP,
/// the HTTP API): an `Authenticator` turns a request into a trusted [`Caller`]
/// or refuses it with a `Refusal`; `BearerTokens` maps static tokens to callers, and
/// `JwtAuthenticator` (feature `jwt`) is an OAuth 2.1 resource server that checks signed access
/// tokens against their issuer's keys. A `ProtectedResource` is what a server tells clients
/// about itself (RFC 9728).
#[cfg(any(feature = "mcp", feature = "http", feature = "jwt"))]
pub mod auth {
    pub use toolspec_core::auth::*;
    #[cfg(feature = "jwt")]
    pub use toolspec_jwt::{JwtAuthenticator, JwtBuilder, JwtError, LEEWAY};
}

#[cfg(feature = "inline")]
pub mod inline;

#[cfg(feature = "testing")]
pub mod testing;

#[cfg(all(doc, not(doctest)))]
pub mod guide;

/// The one door of generated code (and of this workspace's benchmarks): every item the code
/// that `toolspec-codegen` writes names, so that the public paths above can change without
/// breaking it. Not part of the public API: no stability promise.
#[doc(hidden)]
pub mod __private {
    pub use crate::Database;
    pub use toolspec_core::__private::*;
}
