//! The [`Authenticator`] trait every HTTP adapter asks who a request comes from, through
//! [`authenticate`] (which refuses ambiguous credentials first), and the [`Refusal`] it
//! answers when it will not say.

use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};

use crate::adapters::auth::resource::ProtectedResource;
use crate::model::caller::Caller;
use crate::model::contract::BoxFuture;

/// Decides who an HTTP request comes from. The adapters ask through [`authenticate`], which
/// refuses ambiguous credentials before an authenticator sees them.
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

/// Who `request` comes from, as `authenticator` says, once its credentials are unambiguous: a
/// request with more than one `Authorization` header, or a `Bearer` one holding more than one
/// token (`Bearer a, Bearer b`, as a proxy joins two headers), is refused with
/// [`Refusal::invalid_request`] (`400`) before the authenticator sees it, whichever credential
/// comes first. Every HTTP adapter authenticates through this.
#[doc(hidden)]
pub async fn authenticate(
    authenticator: &dyn Authenticator,
    request: &Parts,
) -> Result<Caller, Refusal> {
    if let Some(ambiguity) = ambiguity(request) {
        tracing::debug!(reason = %ambiguity, "ambiguous credentials were refused");
        return Err(Refusal::invalid_request(ambiguity));
    }
    authenticator.authenticate(request).await
}

/// What makes a request's credentials ambiguous, if anything.
fn ambiguity(request: &Parts) -> Option<String> {
    let mut values = request.headers.get_all(header::AUTHORIZATION).iter();
    let first = values.next()?;
    let count = 1 + values.count();
    if count > 1 {
        return Some(format!(
            "the request has {count} `Authorization` headers; send exactly one"
        ));
    }
    holds_several(first).then(|| {
        "the `Authorization` header holds more than one credential; send one `Bearer <token>`"
            .to_owned()
    })
}

/// Whether a `Bearer` credential holds a list (no token has a `,`).
fn holds_several(value: &HeaderValue) -> bool {
    let bytes = value.as_bytes();
    let bearer = bytes.len() > 6 && bytes[..6].eq_ignore_ascii_case(b"bearer") && bytes[6] == b' ';
    bearer && bytes.contains(&b',')
}

/// Why a request was refused: what the `401`'s (or `400`'s) `WWW-Authenticate: Bearer`
/// challenge says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// `invalid_token` when a token was presented and refused, `invalid_request` when the
    /// credentials were ambiguous; `None` when none was (or the authenticator does not say
    /// why).
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

    /// The request itself is malformed (RFC 6750 `invalid_request`, answered `400`): its
    /// credentials are ambiguous, for the reason given (sent to the client).
    pub fn invalid_request(description: impl Into<String>) -> Self {
        Self {
            error: Some("invalid_request"),
            description: Some(description.into()),
        }
    }

    /// The RFC 6750 error code, if any (`invalid_token`, `invalid_request`).
    pub fn error(&self) -> Option<&'static str> {
        self.error
    }

    /// The status that answers it: `400` for an `invalid_request`, else `401`.
    pub fn status(&self) -> StatusCode {
        match self.error {
            Some("invalid_request") => StatusCode::BAD_REQUEST,
            _ => StatusCode::UNAUTHORIZED,
        }
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
/// request has exactly one such header holding one token (never the first of several).
#[doc(hidden)]
pub fn bearer_token(request: &Parts) -> Option<&str> {
    if ambiguity(request).is_some() {
        return None;
    }
    let value = request.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(authorizations: &[&str]) -> Parts {
        let mut request = axum::http::Request::new(());
        for value in authorizations {
            request
                .headers_mut()
                .append(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        }
        request.into_parts().0
    }

    #[test]
    fn one_header_with_one_token_is_the_only_unambiguous_credential() {
        assert_eq!(ambiguity(&request(&["Bearer a"])), None);
        assert_eq!(ambiguity(&request(&[])), None);
        assert_eq!(ambiguity(&request(&["Basic YTpi"])), None);
        assert_eq!(
            ambiguity(&request(&["Digest a=1, b=2"])),
            None,
            "not ours to judge"
        );
        assert_eq!(
            ambiguity(&request(&["Bearer a", "Bearer b", "Bearer c"])).as_deref(),
            Some("the request has 3 `Authorization` headers; send exactly one")
        );
        assert!(ambiguity(&request(&["bearer a, Bearer b"])).is_some());
        assert!(ambiguity(&request(&["Bearer a,b"])).is_some());
        assert_eq!(bearer_token(&request(&["Bearer a"])), Some("a"));
        assert_eq!(bearer_token(&request(&["Bearer a", "Bearer b"])), None);
        assert_eq!(bearer_token(&request(&["Bearer a, Bearer b"])), None);
    }

    #[test]
    fn an_ambiguous_request_is_a_400_invalid_request() {
        let refusal = Refusal::invalid_request("two headers");
        assert_eq!(refusal.status(), StatusCode::BAD_REQUEST);
        assert_eq!(refusal.error(), Some("invalid_request"));
        assert_eq!(Refusal::unauthorized().status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            Refusal::invalid_token("x").status(),
            StatusCode::UNAUTHORIZED
        );
    }
}
