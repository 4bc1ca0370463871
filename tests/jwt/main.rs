//! JWT authorization end to end: a real test issuer (its metadata and JWKS served by axum on a
//! loopback port, RSA and EC keys from `keys/`), tokens signed with `jsonwebtoken`, checked by
//! `toolspec::auth::JwtAuthenticator` alone (`verify`), in front of the store's tools served
//! in-process over the HTTP API and MCP (`adapters`), by the store's binary (`binary`), and
//! behind an issuer too slow to answer in time (`slow`).

mod adapters;
mod answer;
mod binary;
mod issuer;
#[path = "../support/raw_http.rs"]
mod raw_http;
mod slow;
mod verify;
