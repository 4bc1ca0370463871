//! The adapters: each serves a registry's members of one adapter over one transport or
//! provider, behind its own cargo feature, and is re-exported at the crate root
//! (`toolspec::mcp`, `toolspec::http`, `toolspec::openai`, `toolspec::anthropic`,
//! `toolspec::gemini`, `toolspec::rig`, and `toolspec::calling`, the core the function-calling
//! ones share; `toolspec::auth`, who a request over HTTP comes from, and `toolspec::gate`,
//! which `Host` and `Origin` it may name and how a refusal looks, are shared by MCP and HTTP).
//!
//! Every adapter is built from the same blocks: a [`Catalog`](crate::registry::catalog::Catalog) of its
//! members, each with the adapter's own declaration of the tool (`wrap` declares one
//! descriptor), and calls dispatched to the member a caller knows by name, through the
//! registry's pipeline with [`CallOptions::for_caller`](crate::call::options::CallOptions::for_caller).
//! Adapters own their wire formats only: they never validate arguments, resolve ambient
//! values or render errors themselves, and no other module of the crate depends on them.

#[cfg(feature = "anthropic")]
pub mod anthropic;
#[cfg(feature = "auth")]
pub mod auth;
#[cfg(any(feature = "openai", feature = "anthropic", feature = "gemini"))]
pub mod calling;
#[cfg(any(feature = "mcp", feature = "http"))]
pub mod gate;
#[cfg(feature = "gemini")]
pub mod gemini;
#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "mcp")]
pub mod mcp;
#[cfg(feature = "openai")]
pub mod openai;
#[cfg(feature = "rig")]
pub mod rig;
