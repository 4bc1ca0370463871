//! Who an HTTP request comes from, for every adapter served over HTTP (MCP's streamable HTTP,
//! the HTTP API): an [`Authenticator`] turns a request into a trusted [`Caller`](crate::Caller)
//! or refuses it with a [`Refusal`]; [`BearerTokens`] maps static tokens to callers, and
//! `toolspec-jwt`'s `JwtAuthenticator` (the `toolspec` façade's feature `jwt`) is an OAuth 2.1 resource server that checks signed
//! access tokens against their issuer's keys. A [`ProtectedResource`] is what a server tells
//! clients about itself (RFC 9728): served at its well-known address and named in every
//! `WWW-Authenticate` challenge.

pub(crate) mod authenticator;
mod bearer;
pub(crate) mod resource;

pub use authenticator::{Authenticator, Refusal};
#[doc(hidden)]
pub use authenticator::{authenticate, bearer_token};
pub use bearer::BearerTokens;
pub use resource::{InvalidResource, ProtectedResource, WELL_KNOWN};
