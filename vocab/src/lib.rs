//! # toolspec-vocab — the words toolspec's compiler and runtime share
//!
//! One home for every rule both sides of the build apply, so that a tool has the same name,
//! membership, settings and schema dialect at build time and at run time:
//!
//! - [`naming`]: canonical tool names and each transport's name rule;
//! - [`membership`]: which adapters a tool is a member of;
//! - [`settings`]: adapter settings and how a tool's effective values resolve;
//! - [`adapters`]: the built-in adapters and their settings;
//! - [`dialect`]: provider schema dialects, and which one a member is declared in;
//! - [`codes`]: the runtime's own error codes, which specs may not declare;
//! - [`hints`]: the semantic hints every project knows;
//! - [`http`]: the HTTP API's status for each kind of failure;
//! - [`explain`]: the schema of what the built-in `explain` tool answers;
//! - [`pointer`](mod@pointer): JSON pointer tokens;
//! - [`duration`]: durations in the words specs write them in;
//! - [`query`]: query tools' column types, filter operators and sorts;
//! - [`audit`] and [`auth`]: the project's audit policy and authorization;
//! - [`tasks`]: long-running tools as durable tasks, a tool's `task:` and the project's `tasks:`;
//! - [`rate`]: a tool's budget of calls per caller;
//! - [`result_cap`]: how large a tool's answer may get;
//! - [`user_input`]: what a tool asks its user (`confirm`, `ask`).
//!
//! This crate has no dependencies, so a build script gets these rules without the runtime.
//! Applications use them through `toolspec`; `toolspec-codegen` uses them directly.

pub mod adapters;
pub mod audit;
pub mod auth;
pub mod codes;
pub mod descriptor;
pub mod dialect;
pub mod duration;
pub mod explain;
pub mod hints;
pub mod http;
pub mod membership;
pub mod naming;
pub mod pointer;
pub mod query;
pub mod rate;
pub mod result_cap;
#[doc(hidden)]
pub mod settings;
pub mod tasks;
pub mod user_input;

pub use dialect::Dialect;
