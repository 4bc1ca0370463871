//! The one error shape of everything served over HTTP but MCP's own messages:
//! `{"error": code, "message": …}` with its status, as JSON; the `401` of a refused request in
//! it; and the layer that gives it to the failures a router answers without a body (a path
//! nothing is routed to, a method a route does not take), keeping their status and headers
//! (`Allow`).

use axum::Router;
use axum::body::{Body, HttpBody as _};
use axum::extract::Request;
use axum::http::response::Parts;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::adapters::auth::authenticator::Refusal;
use crate::adapters::auth::resource::{Challenge, ProtectedResource};

/// `status` with the body `{"error": code, "message": message}`: for an app's own routes served
/// beside the adapters, so that their failures have the one shape too.
#[doc(hidden)]
pub fn failure(status: StatusCode, code: &str, message: &str) -> Response {
    let body = json!({"error": code, "message": message}).to_string();
    let json = HeaderValue::from_static("application/json");
    (status, [(header::CONTENT_TYPE, json)], body).into_response()
}

/// `401` for a request its authenticator refused (`400 invalid_request` for ambiguous
/// credentials), in the error shape, with the `WWW-Authenticate: Bearer` challenge saying why
/// (in `realm`, when given) and where the resource's metadata is: what every route served over
/// HTTP answers a refused request.
pub(crate) fn unauthorized(
    refusal: &Refusal,
    resource: Option<&ProtectedResource>,
    realm: Option<&'static str>,
) -> Response {
    let challenge = Challenge {
        realm,
        error: refusal.error(),
        description: refusal.description(),
        resource,
        ..Challenge::default()
    };
    let (code, message) = match (refusal.status(), refusal.description()) {
        (StatusCode::BAD_REQUEST, reason) => (
            "invalid_request",
            format!(
                "The request's credentials are ambiguous: {}.",
                reason.unwrap_or("send one bearer token")
            ),
        ),
        (_, Some(reason)) => (
            "unauthorized",
            format!("The request needs a valid bearer token: {reason}."),
        ),
        (_, None) => (
            "unauthorized",
            "The request needs a valid bearer token: send `Authorization: Bearer <token>`."
                .to_owned(),
        ),
    };
    let mut response = failure(refusal.status(), code, &message);
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, challenge.header());
    response
}

/// `router` with every failure it answers without a body given the error shape.
pub(crate) fn shaped(router: Router) -> Router {
    router.layer(axum::middleware::from_fn(shape))
}

/// Middleware: a `4xx` or `5xx` answer without a body (or a content type) gets the error
/// shape, naming what was asked for; any other answer goes out as it is.
async fn shape(request: Request, next: Next) -> Response {
    let method = request.method().clone();
    let path = shown(request.uri().path());
    let response = next.run(request).await;
    let status = response.status();
    let bodiless = response.body().size_hint().exact() == Some(0)
        && !response.headers().contains_key(header::CONTENT_TYPE);
    if !bodiless || !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let (code, message) = described(status, &method, &path);
    let (parts, _) = response.into_parts();
    reshaped(parts, &code, &message)
}

/// A response with `parts` (its status and headers, `Allow` say) and the error shape's body
/// `{"error": code, "message": message}` instead of its own.
pub(crate) fn reshaped(mut parts: Parts, code: &str, message: &str) -> Response {
    let body = json!({"error": code, "message": message}).to_string();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Response::from_parts(parts, Body::from(body))
}

/// The code and message of a bodiless failure of `method path` (a path as [`shown`]).
pub(crate) fn described(status: StatusCode, method: &Method, path: &str) -> (String, String) {
    match status {
        StatusCode::NOT_FOUND => {
            let trimmed = path.trim_end_matches('/');
            let message = if path.len() > 1 && path.ends_with('/') && !trimmed.is_empty() {
                format!("There is nothing at `{path}`: no path here ends with `/` (`{trimmed}`?).")
            } else {
                format!("There is nothing at `{path}`.")
            };
            ("unknown_path".to_owned(), message)
        }
        StatusCode::METHOD_NOT_ALLOWED => (
            "method_not_allowed".to_owned(),
            format!("`{path}` does not take {method}: `Allow` lists the methods it takes."),
        ),
        other => {
            let reason = other.canonical_reason().unwrap_or("Error");
            let code = reason.to_ascii_lowercase().replace([' ', '-'], "_");
            (code, format!("{method} `{path}`: {reason}."))
        }
    }
}

/// A path as a message shows it: at most 100 characters (a path is ASCII).
pub(crate) fn shown(path: &str) -> String {
    const MAX: usize = 100;
    match path.get(..MAX) {
        Some(head) if path.len() > MAX => format!("{head}…"),
        _ => path.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_bodiless_failure_says_what_was_asked_for() {
        let (code, message) = described(StatusCode::NOT_FOUND, &Method::GET, "/tools/");
        assert_eq!(code, "unknown_path");
        assert_eq!(
            message,
            "There is nothing at `/tools/`: no path here ends with `/` (`/tools`?)."
        );
        let (_, message) = described(StatusCode::NOT_FOUND, &Method::GET, "/");
        assert_eq!(message, "There is nothing at `/`.");
        let (code, message) = described(StatusCode::METHOD_NOT_ALLOWED, &Method::PUT, "/tools");
        assert_eq!(
            (code.as_str(), message.as_str()),
            (
                "method_not_allowed",
                "`/tools` does not take PUT: `Allow` lists the methods it takes."
            )
        );
        let (code, _) = described(StatusCode::PAYLOAD_TOO_LARGE, &Method::POST, "/x");
        assert_eq!(code, "payload_too_large");
        assert_eq!(shown(&"/a".repeat(80)).chars().count(), 101);
    }
}
