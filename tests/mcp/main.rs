//! End to end: the example store's binary serving its tools over MCP (stdio and streamable
//! HTTP), driven by rmcp's own client, on a real SQLite file per test.

mod audit;
mod confirm;
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
mod result_cap;
mod stdio;
mod support;
mod tasks;
