//! Faults injected into the store's binary and its database, on SQLite and PostgreSQL: an
//! audit table that refuses writes during a `required` call, `kill -9` under load (counting the
//! effects committed without a record), PostgreSQL stopped and started again mid-run, and a
//! `once` claim left by a killed process.

mod audit;
mod claims;
mod killed;
mod outage;
mod target;
mod tasks;

#[path = "../mcp/support.rs"]
#[allow(
    dead_code,
    reason = "the end-to-end suite's helpers, of which these tests use a few"
)]
mod support;
