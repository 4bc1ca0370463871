//! # toolspec-sql — toolspec's storage over SQLite and PostgreSQL
//!
//! [`Database`] is the app's database as toolspec uses it: an sqlx pool (SQLite with the
//! `sqlite` feature, PostgreSQL with `postgres`) that implements the core's
//! [`Storage`](toolspec_core::storage::Storage) seam. Query tools and `ref` fields read the
//! app's tables with SQL built by sea-query; the audit trail, `once` keys, SQLite's `lock`s
//! and durable tasks live in toolspec's own tables, created by their migrations the first time something needs
//! them. Apps reach it as `toolspec::Database` (the façade's `sqlite` and `postgres` features).
//!
//! ## Layout
//!
//! Each top-level module depends only on the ones listed before it:
//!
//! - `database`: the handle and its pool, toolspec's migrations, how values are kept, what a
//!   failed statement means, the breaker of a database that is down, the liveness of the
//!   processes sharing it;
//! - `query`: query tools' statements (`sql`), rows decoded into records (`rows`), and the
//!   reads run in one transaction (`execute`);
//! - `durable`: `once` keys (`once`) and `lock`s (`lock`), with their leases (`lease`);
//! - `audit`: the audit table's statements;
//! - `tasks`: the task queue's statements, and the events that wake workers (`events`: in
//!   the process, and on PostgreSQL `LISTEN`/`NOTIFY` between processes);
//! - `storage`: the core's traits, implemented by the [`Database`];
//! - `read_only`: connection options for handlers that may only read (a read-only deployment).

#[cfg(not(any(feature = "sqlite", feature = "postgres")))]
compile_error!("toolspec-sql needs a backend: enable its `sqlite` or `postgres` feature");

mod audit;
mod database;
mod durable;
mod query;
pub mod read_only;
mod storage;
mod tasks;

pub use database::Database;
/// The sqlx this crate is built on: an app builds its pool with this version
/// ([`Database::sqlite`], [`Database::postgres`] take its pools).
pub use sqlx;
