//! Step-up authorization over MCP's streamable HTTP: when the server challenges
//! ([`MissingScope::Challenge`]), a `tools/call` naming a listed tool whose scopes the caller
//! lacks — directly, or through the explain tool — is answered `403 insufficient_scope` (the error shape) with
//! `WWW-Authenticate: Bearer error="insufficient_scope", scope="…"` before rmcp sees it, so the
//! client can ask for those scopes. Every other message goes on unchanged.

use std::borrow::Cow;
use std::sync::Arc;

use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::response::Response;
use serde::Deserialize;
use toolspec_vocab::auth::MissingScope;

use crate::adapters::auth::resource::{Challenge, ProtectedResource};
use crate::adapters::gate::failure::failure;
use crate::adapters::mcp::{ADAPTER, McpServer};
use crate::model::caller::Caller;
use crate::model::descriptor::Descriptor;

/// What the check needs: the server (its listing, registry and own caller) and the resource
/// its challenges name.
#[derive(Clone)]
pub(crate) struct ScopeChallenge {
    server: McpServer,
    resource: Option<ProtectedResource>,
}

/// The parts of a message the check reads (everything else is skipped unread).
#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow)]
    params: Option<Params<'a>>,
}

#[derive(Deserialize)]
struct Params<'a> {
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    arguments: Option<Arguments<'a>>,
}

#[derive(Deserialize)]
struct Arguments<'a> {
    #[serde(borrow, default, deserialize_with = "text_or_nothing")]
    tool: Option<Cow<'a, str>>,
}

/// A string, or nothing for any other value (the explain tool refuses it itself).
fn text_or_nothing<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Cow<'de, str>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Text<'a> {
        Text(#[serde(borrow)] Cow<'a, str>),
        Other(serde::de::IgnoredAny),
    }
    Ok(match Text::deserialize(deserializer)? {
        Text::Text(text) => Some(text),
        Text::Other(_) => None,
    })
}

impl ScopeChallenge {
    /// The check for `server`, when it challenges.
    pub(crate) fn new(server: &McpServer, resource: Option<ProtectedResource>) -> Option<Self> {
        (server.missing_scope() == MissingScope::Challenge).then(|| Self {
            server: server.clone(),
            resource,
        })
    }

    /// The `403` for a message (already screened: bounded in size and depth) that calls a
    /// tool the request's caller may not call; `None` for anything else.
    pub(crate) fn check(&self, parts: &Parts, body: &[u8]) -> Option<Response> {
        let caller: &Caller = parts
            .extensions
            .get::<Arc<Caller>>()
            .map(Arc::as_ref)
            .unwrap_or(&self.server.caller);
        if !matches!(caller.scopes, crate::model::caller::Scopes::Only(_)) {
            return None;
        }
        let message: Message<'_> = serde_json::from_slice(body).ok()?;
        if message.method.as_deref() != Some("tools/call") {
            return None;
        }
        let params = message.params?;
        let name = params.name?;
        let shared = &self.server.shared;
        let member = shared.listing.get(&name)?;
        if !caller.may_call(&member.descriptor) {
            return Some(self.forbidden(&name, &member.descriptor));
        }
        // `explain` naming a tool is a call of that tool's checks.
        let explain = member.tool(&shared.registry)?;
        if !explain.is_explain() {
            return None;
        }
        let target_name = params.arguments?.tool?;
        let target = shared
            .registry
            .find(ADAPTER, &target_name)
            .filter(|t| !t.is_explain())?;
        (!caller.may_call(target.descriptor()))
            .then(|| self.forbidden(&target_name, target.descriptor()))
    }

    fn forbidden(&self, name: &str, tool: &Descriptor) -> Response {
        let challenge = Challenge {
            error: Some("insufficient_scope"),
            scopes: Some(&tool.scopes),
            resource: self.resource.as_ref(),
            ..Challenge::default()
        };
        let message = format!(
            "Calling `{name}` needs the scopes {}; the token does not grant them all.",
            tool.scopes.join(", ")
        );
        let mut response = failure(StatusCode::FORBIDDEN, "insufficient_scope", &message);
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, challenge.header());
        response
    }
}
