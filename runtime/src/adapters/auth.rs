//! Who an HTTP request comes from, for every adapter served over HTTP (MCP's streamable HTTP,
//! the HTTP API): an [`Authenticator`] turns a request into a trusted [`Caller`] or refuses it;
//! [`BearerTokens`] maps static tokens to callers.

use std::collections::HashMap;
use std::sync::Arc;

use axum::http::header;
use axum::http::request::Parts;
use serde::Deserialize;

use crate::caller::Caller;
use crate::contract::BoxFuture;

/// Decides who an HTTP request comes from.
pub trait Authenticator: Send + Sync + 'static {
    /// The caller behind `request` (its method, URI and headers), or `None` to refuse it with
    /// `401 Unauthorized`.
    fn authenticate<'a>(&'a self, request: &'a Parts) -> BoxFuture<'a, Option<Caller>>;
}

/// Bearer tokens, each mapped to a caller: `Authorization: Bearer <token>`.
///
/// Deserializes from a map of token → caller (see [`Caller`] for the caller's keys):
///
/// ```
/// let tokens: toolspec::auth::BearerTokens = serde_json::from_str(r#"{
///     "alice-token": { "id": "alice", "ambient": { "customer_id": 1 }, "scopes": ["orders:read"] }
/// }"#).unwrap();
/// assert_eq!(tokens.len(), 1);
/// ```
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(transparent)]
pub struct BearerTokens {
    callers: HashMap<String, Arc<Caller>>,
}

impl BearerTokens {
    /// No tokens: every request is refused.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a token for `caller`.
    pub fn with(mut self, token: impl Into<String>, caller: Caller) -> Self {
        self.callers.insert(token.into(), Arc::new(caller));
        self
    }

    /// How many tokens are known.
    pub fn len(&self) -> usize {
        self.callers.len()
    }

    /// Whether no token is known.
    pub fn is_empty(&self) -> bool {
        self.callers.is_empty()
    }

    fn caller(&self, request: &Parts) -> Option<Caller> {
        let value = request.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
        let (scheme, token) = value.split_once(' ')?;
        if !scheme.eq_ignore_ascii_case("bearer") {
            return None;
        }
        self.callers
            .get(token.trim())
            .map(|caller| Caller::clone(caller))
    }
}

impl Authenticator for BearerTokens {
    fn authenticate<'a>(&'a self, request: &'a Parts) -> BoxFuture<'a, Option<Caller>> {
        let caller = self.caller(request);
        Box::pin(std::future::ready(caller))
    }
}
