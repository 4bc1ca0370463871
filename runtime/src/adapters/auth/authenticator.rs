//! The [`Authenticator`] trait every HTTP adapter asks who a request comes from, and the
//! [`Refusal`] it answers when it will not say.

use axum::http::request::Parts;

use crate::adapters::auth::resource::ProtectedResource;
use crate::caller::Caller;
use crate::contract::BoxFuture;

/// Decides who an HTTP request comes from.
pub trait Authenticator: Send + Sync + 'static {
    /// The caller behind `request` (its method, URI and headers), or why it is refused with
    /// `401 Unauthorized`.
    fn authenticate<'a>(&'a self, request: &'a Parts) -> BoxFuture<'a, Result<Caller, Refusal>>;

    /// The protected resource the callers' tokens are for, when the authenticator knows it:
    /// the adapters then serve its metadata document (RFC 9728) and name it in every
    /// `WWW-Authenticate` challenge. `None` by default.
    fn protected_resource(&self) -> Option<&ProtectedResource> {
        None
    }
}

/// Why a request was refused: what the `401`'s `WWW-Authenticate: Bearer` challenge says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// `invalid_token` when a token was presented and refused; `None` when none was (or
    /// the authenticator does not say why).
    error: Option<&'static str>,
    description: Option<String>,
}

impl Refusal {
    /// No usable credentials, or an authenticator that does not say why: a bare challenge.
    pub fn unauthorized() -> Self {
        Self {
            error: None,
            description: None,
        }
    }

    /// A token was presented and refused (RFC 6750 `invalid_token`), for the reason given
    /// (sent to the client as `error_description`: name what was wrong with the token,
    /// nothing about the server).
    pub fn invalid_token(description: impl Into<String>) -> Self {
        Self {
            error: Some("invalid_token"),
            description: Some(description.into()),
        }
    }

    /// The RFC 6750 error code, if any (`invalid_token`).
    pub fn error(&self) -> Option<&'static str> {
        self.error
    }

    /// The reason given to the client, if any.
    pub fn description(&self) -> Option<&str> {
        self.description.as_deref()
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.error, &self.description) {
            (Some(error), Some(description)) => write!(f, "{error}: {description}"),
            (Some(error), None) => f.write_str(error),
            (None, Some(description)) => f.write_str(description),
            (None, None) => f.write_str("no usable credentials"),
        }
    }
}

/// The token of an `Authorization: Bearer <token>` header (the scheme in any case), if the
/// request has one.
pub fn bearer_token(request: &Parts) -> Option<&str> {
    let value = request
        .headers
        .get(axum::http::header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}
