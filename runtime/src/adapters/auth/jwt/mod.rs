//! The JWT resource server (feature `jwt`): [`JwtAuthenticator`] checks bearer tokens,
//! `keys` keeps the issuer's JWKS, `claims` turns verified claims into a caller.

mod authenticator;
mod claims;
mod keys;

pub use authenticator::{JwtAuthenticator, JwtBuilder, JwtError, LEEWAY};
