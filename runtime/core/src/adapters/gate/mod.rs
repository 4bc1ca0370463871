//! The gate in front of every adapter served over HTTP (MCP's streamable HTTP, the HTTP API):
//! which `Host` and `Origin` a request may name ([`HostPolicy`]: DNS rebinding, other sites'
//! pages), checked once for every route an address serves, and the one error shape
//! `{error, message, details?}` of its refusals and of every failure a router answers without
//! a body (`failure`: an unknown path, a method a route does not take).
//!
//! Owns no route and knows no tool: the adapters put it in front of their routers.

pub(crate) mod failure;
pub(crate) mod host;

#[doc(hidden)]
pub use failure::failure;
pub use host::{HostPolicy, LOOPBACK_HOSTS, LOOPBACK_ORIGINS};
