//! The store's LLM agent: rig's agent loop over an OpenAI-compatible Chat Completions endpoint,
//! with the store's tools (through `toolspec::rig`) called as one trusted caller.
//!
//! - [`model`]: the endpoint's settings, the agent built over them for a caller, and what a run
//!   that ended without an answer means;
//! - [`limits`]: how many tool calls one model reply and one run may make; the ones past them
//!   are not run, and the model is told why;
//! - [`tool_calls`]: the tool calls of a run, as they happen (name, arguments, result or error);
//! - [`approvals`]: the calls that wait for the customer's answer (a confirmation), answered
//!   to the client and continued on its next request;
//! - [`route`]: `POST /agent` of the store's HTTP server, each request run as the caller its
//!   bearer token names.
//!
//! `examples/agent.rs` and `toolspec-store serve --http … --model-url …` build their agents
//! here. Nothing here authenticates anyone: the route takes the server's authenticator.

pub mod approvals;
pub mod limits;
pub mod model;
pub mod route;
pub mod tool_calls;
