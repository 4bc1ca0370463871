//! rmcp's refusals in toolspec's shapes. rmcp's transport answers what it refuses of a
//! request's headers (`Accept`, `Content-Type`, `MCP-Protocol-Version`, `Mcp-Session-Id`), of
//! its method or of its body with a bare text, no `Content-Type`, sometimes quoting what the
//! request sent (an unknown `MCP-Protocol-Version`, verbatim). Here, every such answer gets the
//! error shape `{error, message}` as JSON, its message written from what the request sent
//! without quoting any of it; and rmcp's header mismatch (`-32020`, a JSON-RPC error with an
//! error status: MCP's own shape, kept: its code, id and data) whose message quotes one of the
//! request's MCP headers gets a message naming the header instead. rmcp still decides: nothing here refuses a request
//! or lets one through.
//!
//! Owns the answers of the layer right around rmcp's service; the routes' other layers answer
//! in the error shape themselves.

use axum::body::{Body, Bytes};
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use rmcp::model::{ErrorCode, ProtocolVersion};
use serde_json::Value;

use crate::adapters::gate::failure::{described, failure, reshaped, shown};

use super::framing::{JSON, SESSION_HEADER, is_json, is_of_type};

/// The protocol version header.
const VERSION_HEADER: &str = "mcp-protocol-version";

/// The most of a JSON-RPC error's body read to look at its message (rmcp's are far smaller).
const MAX_ERROR_BYTES: usize = 1 << 20;

/// The code and message of a session that does not exist for this caller (closed, expired,
/// never opened, or another caller's: alike).
const UNKNOWN_SESSION: (&str, &str) = (
    "unknown_session",
    "This session does not exist: it was closed or expired, or never was. Open a new one with \
     `initialize`.",
);

/// The `404` of a session that does not exist for this caller.
pub(super) fn unknown_session() -> Response {
    let (code, message) = UNKNOWN_SESSION;
    failure(StatusCode::NOT_FOUND, code, message)
}

/// Middleware, right around rmcp's service: its refusals given toolspec's shapes.
pub(super) async fn shape(request: Request, next: Next) -> Response {
    let asked = Asked::of(&request);
    let response = next.run(request).await;
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    if is_of_type(&response, JSON) {
        return quoting_nothing(response, &asked).await;
    }
    if status.is_server_error() {
        tracing::warn!(%status, "rmcp's transport failed to serve a request");
    }
    let (code, message) = asked.explain(status);
    let (parts, _) = response.into_parts();
    reshaped(parts, &code, &message)
}

/// What a request sent that rmcp judges, kept to explain its refusal.
struct Asked {
    method: Method,
    path: String,
    version: Version,
    session: bool,
    json: bool,
    /// The request's MCP headers, which an answer must not quote.
    headers: Vec<(HeaderName, HeaderValue)>,
}

/// What `MCP-Protocol-Version` says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    Absent,
    Known,
    Unknown,
    NotText,
}

impl Asked {
    fn of(request: &Request) -> Self {
        let headers = request.headers();
        let version = match headers.get(VERSION_HEADER).map(HeaderValue::to_str) {
            None => Version::Absent,
            Some(Err(_)) => Version::NotText,
            Some(Ok(text)) if known(text) => Version::Known,
            Some(Ok(_)) => Version::Unknown,
        };
        Self {
            method: request.method().clone(),
            path: shown(request.uri().path()),
            version,
            session: headers.contains_key(SESSION_HEADER),
            json: is_json(headers),
            headers: mcp_headers(headers),
        }
    }

    /// The code and message of rmcp's refusal, answered with `status`.
    fn explain(&self, status: StatusCode) -> (String, String) {
        let (code, message) = match status {
            StatusCode::BAD_REQUEST => match self.version {
                Version::NotText => (
                    "unsupported_protocol_version",
                    format!(
                        "`MCP-Protocol-Version` is not text: it must name a protocol version \
                         this server speaks ({}).",
                        versions()
                    ),
                ),
                Version::Unknown => (
                    "unsupported_protocol_version",
                    format!(
                        "`MCP-Protocol-Version` names no protocol version this server speaks \
                         ({}).",
                        versions()
                    ),
                ),
                _ if !self.session => (
                    "session_required",
                    "This request belongs to a session: send the id `initialize` answered as \
                     `Mcp-Session-Id` (a request without one must be `initialize`)."
                        .to_owned(),
                ),
                _ => (
                    "bad_request",
                    "The request's MCP headers were refused (`MCP-Protocol-Version`, \
                     `Mcp-Session-Id`)."
                        .to_owned(),
                ),
            },
            StatusCode::NOT_FOUND => (UNKNOWN_SESSION.0, UNKNOWN_SESSION.1.to_owned()),
            StatusCode::NOT_ACCEPTABLE if self.method == Method::GET => (
                "not_acceptable",
                "A GET of `/mcp` opens an event stream: its `Accept` must name \
                 `text/event-stream`."
                    .to_owned(),
            ),
            StatusCode::NOT_ACCEPTABLE => (
                "not_acceptable",
                "A POST to `/mcp` must accept both `application/json` and `text/event-stream` \
                 (`Accept`)."
                    .to_owned(),
            ),
            StatusCode::UNSUPPORTED_MEDIA_TYPE if self.json => (
                "invalid_request",
                "The body is JSON but no JSON-RPC message: a request (`jsonrpc`, `id`, \
                 `method`), a notification (no `id`) or a response."
                    .to_owned(),
            ),
            StatusCode::UNSUPPORTED_MEDIA_TYPE => (
                "unsupported_media_type",
                "A POST to `/mcp` sends its JSON-RPC message as `Content-Type: \
                 application/json`."
                    .to_owned(),
            ),
            status if status.is_server_error() => (
                "internal_error",
                "The server could not serve this request; try again.".to_owned(),
            ),
            status => return described(status, &self.method, &self.path),
        };
        (code.to_owned(), message)
    }

    /// The MCP header whose value `text` quotes, if any.
    fn quoted_in(&self, text: &str) -> Option<&HeaderName> {
        self.headers.iter().find_map(|(name, value)| {
            let value = String::from_utf8_lossy(value.as_bytes());
            let value = value.trim();
            (!value.is_empty() && text.contains(value)).then_some(name)
        })
    }
}

/// Whether rmcp knows protocol version `text`.
fn known(text: &str) -> bool {
    ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .any(|v| v.as_str() == text)
}

/// The protocol versions rmcp knows, for a message.
fn versions() -> String {
    let known: Vec<&str> = (ProtocolVersion::KNOWN_VERSIONS.iter())
        .map(ProtocolVersion::as_str)
        .collect();
    known.join(", ")
}

/// The headers rmcp judges and might quote: the protocol version, the session, the last event
/// id, and the standard headers of 2026-07-28 (`Mcp-Method`, `Mcp-Name`, `Mcp-Param-*`).
fn mcp_headers(headers: &HeaderMap) -> Vec<(HeaderName, HeaderValue)> {
    headers
        .iter()
        .filter(|(name, _)| {
            let name = name.as_str();
            name.starts_with("mcp-") || name == "last-event-id"
        })
        .map(|(name, value)| (name.clone(), value.clone()))
        .collect()
}

/// `response`, a JSON-RPC error rmcp answered with an error status, with a message that quotes
/// none of `asked`'s MCP headers.
async fn quoting_nothing(response: Response, asked: &Asked) -> Response {
    if asked.headers.is_empty() {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let bytes = match axum::body::to_bytes(body, MAX_ERROR_BYTES).await {
        Ok(bytes) => bytes,
        Err(e) => {
            tracing::warn!(error = %e, "rmcp's refusal could not be read");
            let (code, message) = asked.explain(StatusCode::INTERNAL_SERVER_ERROR);
            return failure(StatusCode::INTERNAL_SERVER_ERROR, &code, &message);
        }
    };
    let Some(rewritten) = rewritten(&bytes, asked) else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(rewritten))
}

/// The JSON-RPC error `bytes` with its message replaced, when it is rmcp's header mismatch
/// (`-32020`) and quotes one of `asked`'s MCP headers. toolspec's own errors (a tool's name in
/// a `-32021`, which `Mcp-Name` carries too) quote nothing the request may not see.
fn rewritten(bytes: &Bytes, asked: &Asked) -> Option<String> {
    let mut message: Value = serde_json::from_slice(bytes).ok()?;
    let code = message.pointer("/error/code")?.as_i64()?;
    if code != i64::from(ErrorCode::HEADER_MISMATCH.0) {
        return None;
    }
    let text = message.pointer("/error/message")?.as_str()?;
    let header = asked.quoted_in(text)?;
    message["error"]["message"] = Value::String(disagreeing(header).to_owned());
    Some(message.to_string())
}

/// What a header rmcp found at odds with the request must say.
fn disagreeing(header: &HeaderName) -> &'static str {
    match header.as_str() {
        VERSION_HEADER => {
            "`MCP-Protocol-Version` does not agree with the request: it must name a protocol \
             version this server speaks, the one the request's `_meta` names (and \
             `initialize`'s `protocolVersion`)."
        }
        "mcp-method" => "`Mcp-Method` must name the request's method, once.",
        "mcp-name" => {
            "`Mcp-Name` must be the name the request's params give (a tool's, for \
                       `tools/call`)."
        }
        name if name.starts_with("mcp-param-") => {
            "An `Mcp-Param-*` header must carry the value of the argument it names."
        }
        _ => "An MCP header of the request does not agree with its body.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(headers: &[(&'static str, &[u8])]) -> Asked {
        let mut request = Request::new(Body::empty());
        for (name, value) in headers {
            let value = HeaderValue::from_bytes(value).unwrap();
            request.headers_mut().append(*name, value);
        }
        Asked::of(&request)
    }

    #[test]
    fn a_refusal_is_explained_without_quoting_the_request() {
        let hostile = asked(&[(VERSION_HEADER, b"<script>alert(1)</script>")]);
        let (code, message) = hostile.explain(StatusCode::BAD_REQUEST);
        assert_eq!(code, "unsupported_protocol_version");
        assert!(!message.contains("script"), "{message}");
        assert!(message.contains("2025-11-25"), "{message}");
        let binary = asked(&[(VERSION_HEADER, b"\xff\xfe")]);
        assert!(
            binary
                .explain(StatusCode::BAD_REQUEST)
                .1
                .contains("not text")
        );
        let no_session = asked(&[(VERSION_HEADER, b"2025-11-25")]);
        assert_eq!(
            no_session.explain(StatusCode::BAD_REQUEST).0,
            "session_required"
        );
    }

    #[test]
    fn a_json_rpc_error_quoting_a_header_names_it_instead() {
        let hostile = asked(&[("mcp-method", b"<i>x</i>"), (VERSION_HEADER, b"2026-07-28")]);
        let quoted = Bytes::from_static(
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Mcp-Method header `<i>x</i>` does not match body method `tools/list`"}}"#,
        );
        let answer: Value = serde_json::from_str(&rewritten(&quoted, &hostile).unwrap()).unwrap();
        assert_eq!(answer["id"], 1);
        assert_eq!(answer["error"]["code"], -32020);
        assert_eq!(
            answer["error"]["message"],
            "`Mcp-Method` must name the request's method, once."
        );
        let quoting_nothing = Bytes::from_static(
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"missing required Mcp-Name header"}}"#,
        );
        assert_eq!(rewritten(&quoting_nothing, &hostile), None);
        // Another error naming the tool `Mcp-Name` names is toolspec's own: kept.
        let named = asked(&[("mcp-name", b"orders_report")]);
        let own = Bytes::from_static(
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"`orders_report` runs only as a durable task"}}"#,
        );
        assert_eq!(rewritten(&own, &named), None);
    }
}
