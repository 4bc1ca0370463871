//! What the transport answers a request it refuses before anything serves it: in the error
//! shape `{error, message}` for what HTTP refuses (its headers, its method, a session it names),
//! and as MCP's own JSON-RPC error, with the request's id and an error status, for what MCP
//! refuses of a message (its protocol version, a header that disagrees with its body). No
//! answer quotes what the request sent.
//!
//! Owns the refusals' codes and words; the request's reading (`request`) and the sessions
//! decide when each is given.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::model::{ErrorCode, ErrorData, ProtocolVersion, RequestId, ServerJsonRpcMessage};

use crate::adapters::gate::failure::failure;

use super::framing::json;

/// The `404` of a session that does not exist for this caller (closed, expired, never opened,
/// or another caller's: alike).
pub(super) fn unknown_session() -> Response {
    failure(
        StatusCode::NOT_FOUND,
        "unknown_session",
        "This session does not exist: it was closed or expired, or never was. Open a new one with \
         `initialize`.",
    )
}

/// The `400` of a request of a session that names none.
pub(super) fn session_required() -> Response {
    failure(
        StatusCode::BAD_REQUEST,
        "session_required",
        "This request belongs to a session: send the id `initialize` answered as \
         `Mcp-Session-Id` (a request without one must be `initialize`).",
    )
}

/// The `400` of an `MCP-Protocol-Version` that is not text, or names no version this server
/// knows.
pub(super) fn unsupported_version(not_text: bool) -> Response {
    let message = if not_text {
        format!(
            "`MCP-Protocol-Version` is not text: it must name a protocol version this server \
             speaks ({}).",
            versions()
        )
    } else {
        format!(
            "`MCP-Protocol-Version` names no protocol version this server speaks ({}).",
            versions()
        )
    };
    failure(
        StatusCode::BAD_REQUEST,
        "unsupported_protocol_version",
        &message,
    )
}

/// The protocol versions the transport knows, for a message.
fn versions() -> String {
    let known: Vec<&str> = (ProtocolVersion::KNOWN_VERSIONS.iter())
        .map(ProtocolVersion::as_str)
        .collect();
    known.join(", ")
}

/// The `406` of a request that does not accept what its answer may be.
pub(super) fn not_acceptable(get: bool) -> Response {
    let message = if get {
        "A GET of `/mcp` opens an event stream: its `Accept` must name `text/event-stream`."
    } else {
        "A POST to `/mcp` must accept both `application/json` and `text/event-stream` (`Accept`)."
    };
    failure(StatusCode::NOT_ACCEPTABLE, "not_acceptable", message)
}

/// The `415` of a body that is not JSON (`json`: it is, but no JSON-RPC message).
pub(super) fn unsupported_media_type(json: bool) -> Response {
    if json {
        return failure(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "invalid_request",
            "The body is JSON but no JSON-RPC message: a request (`jsonrpc`, `id`, `method`), a \
             notification (no `id`) or a response.",
        );
    }
    failure(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
        "A POST to `/mcp` sends its JSON-RPC message as `Content-Type: application/json`.",
    )
}

/// The `405` of a method `/mcp` does not take, listing those it does (the error shape is the
/// router's, given to every bodiless failure).
pub(super) fn method_not_allowed(allow: &'static str) -> Response {
    (
        StatusCode::METHOD_NOT_ALLOWED,
        [(header::ALLOW, HeaderValue::from_static(allow))],
    )
        .into_response()
}

/// The `500` of a request the server could not serve.
pub(super) fn internal() -> Response {
    failure(
        StatusCode::INTERNAL_SERVER_ERROR,
        "internal_error",
        "The server could not serve this request; try again.",
    )
}

/// Which MCP header disagrees with the request's body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Disagreeing {
    Version,
    Method,
    Name,
}

impl Disagreeing {
    /// What the header must say.
    fn message(self) -> &'static str {
        match self {
            Self::Version => {
                "`MCP-Protocol-Version` does not agree with the request: it must name a protocol \
                 version this server speaks, the one the request's `_meta` names (and \
                 `initialize`'s `protocolVersion`)."
            }
            Self::Method => "`Mcp-Method` must name the request's method, once.",
            Self::Name => {
                "`Mcp-Name` must be the name the request's params give (a tool's, for \
                 `tools/call`)."
            }
        }
    }
}

/// The `400` of a header at odds with the request's body: MCP's header mismatch (`-32020`),
/// with the request's id (none for a notification).
pub(super) fn header_mismatch(id: Option<RequestId>, header: Disagreeing) -> Response {
    let error = ErrorData::new(ErrorCode::HEADER_MISMATCH, header.message(), None);
    jsonrpc_error(StatusCode::BAD_REQUEST, id, error)
}

/// A `400` invalid request (`-32600`), with the request's id.
pub(super) fn invalid_request(id: Option<RequestId>, message: &'static str) -> Response {
    let error = ErrorData::new(ErrorCode::INVALID_REQUEST, message, None);
    jsonrpc_error(StatusCode::BAD_REQUEST, id, error)
}

/// The `400` of a request of protocol 2026-07-28 or later without the metadata each of its
/// requests carries (`-32602`).
pub(super) fn missing_meta(id: RequestId) -> Response {
    let error = ErrorData::invalid_params(
        "Invalid params: the request's `_meta` must name its protocol version \
         (`io.modelcontextprotocol/protocolVersion`) and the client's capabilities \
         (`io.modelcontextprotocol/clientCapabilities`).",
        None,
    );
    jsonrpc_error(StatusCode::BAD_REQUEST, Some(id), error)
}

/// `error` answering the request `id` as JSON, with `status`.
fn jsonrpc_error(status: StatusCode, id: Option<RequestId>, error: ErrorData) -> Response {
    let message = ServerJsonRpcMessage::error(error, id);
    match serde_json::to_vec(&message) {
        Ok(body) => json(status, body),
        Err(_) => internal(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn body(response: Response) -> serde_json::Value {
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        serde_json::from_slice(&bytes).unwrap()
    }

    #[tokio::test]
    async fn a_header_mismatch_is_mcps_error_with_the_requests_id() {
        let response = header_mismatch(Some(RequestId::Number(7)), Disagreeing::Method);
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        let answer = body(response).await;
        assert_eq!(answer["id"], 7);
        assert_eq!(answer["error"]["code"], -32020);
        let notification = body(header_mismatch(None, Disagreeing::Name)).await;
        assert_eq!(notification["id"], serde_json::Value::Null);
    }

    #[tokio::test]
    async fn an_unknown_version_is_refused_naming_those_known() {
        let answer = body(unsupported_version(false)).await;
        assert_eq!(answer["error"], "unsupported_protocol_version");
        assert!(
            answer["message"].as_str().unwrap().contains("2025-11-25"),
            "{answer}"
        );
    }
}
