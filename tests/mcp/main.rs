//! End to end: the example store's binary serving its tools over MCP (stdio and streamable
//! HTTP), driven by rmcp's own client or line by line, on a real SQLite file per test (and
//! the store's registry served in the test's own process where a test adds a tool).

mod audit;
mod catalog;
mod confirm;
mod direct;
#[path = "../support/fake_model.rs"]
mod fake_model;
mod gate;
mod hardening;
mod http;
#[path = "../support/orders.rs"]
mod orders;
mod query;
#[path = "../support/raw_http.rs"]
mod raw_http;
mod read_only;
mod refusals;
mod result_cap;
mod sessions;
mod stdio;
mod support;
mod tasks;
