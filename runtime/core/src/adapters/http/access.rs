//! Who reaches which tool over the HTTP API: the `401` of a refused request (`400` when its
//! credentials are ambiguous), and for a caller
//! without a tool's scopes either the `404` of an unknown tool ([`MissingScope::Hide`]) or a
//! `403` naming the scopes to ask for ([`MissingScope::Challenge`]), each with its
//! `WWW-Authenticate: Bearer` challenge.

use axum::http::{StatusCode, header};
use axum::response::Response;
use serde_json::Value;
use toolspec_vocab::adapters::HTTP;
use toolspec_vocab::auth::MissingScope;

use crate::adapters::auth::authenticator::Refusal;
use crate::adapters::auth::resource::{Challenge, ProtectedResource};
use crate::adapters::gate::{self, failure::failure};
use crate::model::caller::Caller;
use crate::model::descriptor::Descriptor;
use crate::model::failure::ToolError;
use crate::registry::catalog::{Catalog, Member};
use crate::registry::{RegisteredTool, Registry};

/// What a lookup needs to know besides the tool's name and the caller.
#[derive(Clone, Copy)]
pub(crate) struct Access<'a, T> {
    pub(crate) catalog: &'a Catalog<T>,
    pub(crate) registry: &'a Registry,
    pub(crate) policy: MissingScope,
    pub(crate) resource: Option<&'a ProtectedResource>,
}

impl<'a, T> Access<'a, T> {
    /// The member `caller` reaches as `name`, with the registered tool a call of it goes to;
    /// else the answer: `404` for a tool that does not exist (or that the caller may not see,
    /// when the policy hides), `403` for one whose scopes the caller lacks when it challenges.
    #[allow(clippy::result_large_err)] // the refusal is the request's answer, made once
    pub(crate) fn lookup(
        &self,
        name: &str,
        caller: &Caller,
    ) -> Result<(&'a Member<T>, RegisteredTool<'a>), Response> {
        if let Some(found) = self.catalog.dispatch(self.registry, name, caller) {
            return Ok(found);
        }
        match self.catalog.get(name) {
            Some(member) if self.policy == MissingScope::Challenge => {
                Err(self.insufficient_scope(name, &member.descriptor))
            }
            _ => Err(unknown(name)),
        }
    }

    /// For a call of the explain tool, the `403` when the tool it names is one whose scopes
    /// the caller lacks and the policy challenges.
    pub(crate) fn explained(
        &self,
        tool: &RegisteredTool<'_>,
        args: &Value,
        caller: &Caller,
    ) -> Option<Response> {
        if self.policy != MissingScope::Challenge || !tool.is_explain() {
            return None;
        }
        let name = args.get("tool").and_then(Value::as_str)?;
        let target = self.registry.find(HTTP, name).filter(|t| !t.is_explain())?;
        (!caller.may_call(target.descriptor()))
            .then(|| self.insufficient_scope(name, target.descriptor()))
    }

    /// `403` with `error="insufficient_scope"` and every scope `tool` requires.
    fn insufficient_scope(&self, name: &str, tool: &Descriptor) -> Response {
        let challenge = Challenge {
            error: Some("insufficient_scope"),
            scopes: Some(&tool.scopes),
            resource: self.resource,
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

/// `401` for a refused request (`400 invalid_request` for ambiguous credentials), with the
/// challenge saying why and where the resource's metadata is: the API's own answer, for an
/// app's routes beside it to give the same.
#[doc(hidden)]
pub fn unauthorized(refusal: &Refusal, resource: Option<&ProtectedResource>) -> Response {
    gate::failure::unauthorized(refusal, resource, None)
}

/// `404` for a tool the caller does not know.
fn unknown(name: &str) -> Response {
    let error = ToolError::unknown_tool(name);
    failure(StatusCode::NOT_FOUND, &error.code, &error.message)
}
