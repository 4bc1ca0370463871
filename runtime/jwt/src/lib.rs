//! # toolspec-jwt — an OAuth 2.1 resource server for toolspec's HTTP adapters
//!
//! [`JwtAuthenticator`] implements the core's
//! [`Authenticator`](toolspec_core::auth::Authenticator) seam: it checks bearer JWTs against
//! their issuer's keys (JWKS, fetched and cached by `keys`) with `jsonwebtoken`, and turns the
//! verified claims into a trusted caller (`claims`). Apps reach it as
//! `toolspec::auth::JwtAuthenticator` (the façade's `jwt` feature; `jwt-tls` for issuers
//! over HTTPS).
//!
//! ## Layout
//!
//! Each top-level module depends only on the ones listed before it:
//!
//! - `claims`: verified claims into a caller's id, scopes and ambient values;
//! - `keys`: the issuer's JWKS, fetched and cached;
//! - `authenticator`: the authenticator and its builder.

mod authenticator;
mod claims;
mod keys;

pub use authenticator::{JwtAuthenticator, JwtBuilder, JwtError, LEEWAY};
