//! End to end: the example store's binary serving its tools over MCP (stdio and streamable
//! HTTP), driven by rmcp's own client, on a real SQLite file per test.

mod audit;
mod hardening;
mod http;
mod query;
mod stdio;
mod support;
