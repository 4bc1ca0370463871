//! [`BearerTokens`]: static bearer tokens, each mapped to a caller (a tokens file).

use std::collections::HashMap;
use std::sync::Arc;

use axum::http::request::Parts;
use serde::Deserialize;

use crate::adapters::auth::authenticator::{Authenticator, Refusal, bearer_token};
use crate::model::caller::Caller;
use crate::model::contract::BoxFuture;

/// Bearer tokens, each mapped to a caller: `Authorization: Bearer <token>`. A request without
/// a known token is refused with a bare challenge (it does not say why).
///
/// Deserializes from a map of token → caller (see [`Caller`] for the caller's keys):
///
/// ```
/// let tokens: toolspec_core::auth::BearerTokens = serde_json::from_str(r#"{
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
        self.callers
            .get(bearer_token(request)?)
            .map(|caller| Caller::clone(caller))
    }
}

impl Authenticator for BearerTokens {
    fn authenticate<'a>(&'a self, request: &'a Parts) -> BoxFuture<'a, Result<Caller, Refusal>> {
        let caller = self.caller(request).ok_or_else(Refusal::unauthorized);
        Box::pin(std::future::ready(caller))
    }
}
