//! A `POST` to `/mcp` read and checked before anything serves it, in two steps. [`body`]: the
//! body within its bound (`413`; `408` when it does not arrive in time), the message's
//! screening (`super::super::wire`: JSON-RPC errors), and the scope challenge. [`read`], once
//! the session it names (if any) is known to be the caller's: `Accept` (JSON and SSE, `406`),
//! `Content-Type` (JSON, `415`), the message as MCP's type (`415`), and the protocol it is of.
//!
//! The protocol: `MCP-Protocol-Version` must be text naming a version this server knows
//! (`400`) — unless the request's `_meta` names its version itself; `initialize`'s header,
//! when given, the version its body asks for (`-32600`); a request of 2026-07-28 or later must
//! name its version in `_meta` (`-32602`), and a request that does must say the same in its
//! header (`-32020`). A request is of the sessions' protocols (before 2026-07-28, opened with
//! `initialize`) unless its `_meta` carries the per-request metadata of 2026-07-28 (its
//! version and the client's capabilities) or its version is 2026-07-28 or later.
//!
//! The standard headers of 2026-07-28 (SEP-2243), for a request whose `MCP-Protocol-Version`
//! is 2026-07-28 or later ([`standard_headers`]): `Mcp-Method` given once, the body's method;
//! `Mcp-Name`, for the methods that name something (a tool, a prompt, a resource, a task),
//! that name when the body gives it (Base64-wrapped as `=?base64?…?=` or not). A disagreement is MCP's header mismatch (`-32020`, `400`).
//! `Mcp-Param-*` headers mirror arguments a tool's schema marks for it: no toolspec schema
//! marks one yet, so none is read.
//!
//! Reads and refuses; `stateless` and `sessions` serve what passes.

use std::borrow::Cow;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::Request;
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use rmcp::model::{
    ClientCapabilities, ClientJsonRpcMessage, ClientRequest, ProtocolVersion, RequestId,
};
use serde::Deserialize;
use serde_json::Value;

use crate::adapters::gate::failure::failure;
use crate::model::limits::Limits;

use super::challenge::ScopeChallenge;
use super::framing::{VERSION_HEADER, accepts_json_and_sse, is_json, sole};
use super::refusals::{self, Disagreeing};

/// What reading a body needs.
#[derive(Clone)]
pub(super) struct Reading {
    pub(super) limits: Limits,
    pub(super) max_body_bytes: usize,
    /// Set when the server challenges callers without a tool's scopes.
    pub(super) challenge: Option<Arc<ScopeChallenge>>,
}

/// Reads `request`'s body (at most `max_body_bytes`) and screens its message; a refused one is
/// answered here.
pub(super) async fn body(request: Request, reading: &Reading) -> Result<(Parts, Bytes), Response> {
    use http_body_util::BodyExt;
    let (parts, body) = request.into_parts();
    let limited = http_body_util::Limited::new(body, reading.max_body_bytes);
    let bytes = match limited.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => {
            let message = format!(
                "A request body may hold at most {} bytes.",
                reading.max_body_bytes
            );
            return Err(failure(
                StatusCode::PAYLOAD_TOO_LARGE,
                "too_large",
                &message,
            ));
        }
        Err(e) => {
            tracing::debug!(error = %e, "a request body did not arrive");
            let message = "The request's body did not arrive in time.";
            return Err(failure(
                StatusCode::REQUEST_TIMEOUT,
                "request_timeout",
                message,
            ));
        }
    };
    if let Err(rejection) = super::super::wire::screen(&bytes, &reading.limits) {
        if rejection.is_silent() {
            return Err(StatusCode::ACCEPTED.into_response());
        }
        let status = if rejection.code == super::super::wire::PARSE_ERROR {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::OK
        };
        let json = [(header::CONTENT_TYPE, "application/json")];
        return Err((status, json, rejection.response().to_string()).into_response());
    }
    if let Some(forbidden) = reading
        .challenge
        .as_ref()
        .and_then(|challenge| challenge.check(&parts, &bytes))
    {
        return Err(forbidden);
    }
    Ok((parts, bytes))
}

/// What a message is, as its head tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// `initialize`.
    Initialize,
    /// Any other request.
    Request,
    /// A notification.
    Notification,
    /// A response or an error, answering a request of the server's.
    Response,
}

/// A message's head read and checked, and the protocol it is of; the message itself is read
/// into MCP's type by whoever hands it to rmcp ([`Read::message`]), a plain request not at
/// all.
pub(super) struct Read {
    pub(super) kind: Kind,
    /// Of the sessions' protocols (before 2026-07-28).
    pub(super) legacy: bool,
    /// A request of 2026-07-28 or later whose `_meta` lacks what each of its requests carries
    /// (its version, the client's capabilities), or holds it malformed.
    pub(super) meta_malformed: bool,
}

impl Read {
    /// The message `body` holds, as MCP's type (`415` when it is no JSON-RPC message).
    #[expect(
        clippy::result_large_err,
        reason = "the refusal is the answer: built once, on the way out"
    )]
    pub(super) fn message(body: &[u8]) -> Result<ClientJsonRpcMessage, Response> {
        serde_json::from_slice(body).map_err(|_| refusals::unsupported_media_type(true))
    }
}

/// A message's head: what the checks read of it, borrowed from the body where it can be.
#[derive(Deserialize)]
struct Head<'a> {
    #[serde(default)]
    id: Option<RequestId>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    params: Option<Params<'a>>,
    #[serde(default)]
    result: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    error: Option<serde::de::IgnoredAny>,
}

/// What the checks read of a message's params: its `_meta`, what it names, and the version
/// `initialize` asks for.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Params<'a> {
    #[serde(rename = "_meta", borrow, default)]
    meta: Option<Meta<'a>>,
    #[serde(borrow, default)]
    name: Option<Named<'a>>,
    #[serde(borrow, default)]
    uri: Option<Named<'a>>,
    #[serde(borrow, default)]
    task_id: Option<Named<'a>>,
    #[serde(borrow, default)]
    protocol_version: Option<Named<'a>>,
}

/// A value that names something: text, or anything else (which names nothing).
#[derive(Deserialize)]
#[serde(untagged)]
enum Named<'a> {
    Text(#[serde(borrow)] Cow<'a, str>),
    Other(serde::de::IgnoredAny),
}

impl Named<'_> {
    fn text(&self) -> Option<&str> {
        match self {
            Self::Text(text) => Some(text),
            Self::Other(_) => None,
        }
    }
}

/// The per-request metadata of 2026-07-28: the version (text) and the client's capabilities
/// (read as MCP reads them: a value it cannot read is missing).
#[derive(Deserialize)]
struct Meta<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", borrow, default)]
    protocol_version: Option<Named<'a>>,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities", default)]
    client_capabilities: Option<Value>,
}

impl Meta<'_> {
    /// The version it names, if it names one as text.
    fn version(&self) -> Option<&str> {
        self.protocol_version.as_ref().and_then(Named::text)
    }

    /// Whether it carries everything 2026-07-28 asks of each request.
    fn is_whole(&self) -> bool {
        self.version().is_some()
            && self
                .client_capabilities
                .as_ref()
                .is_some_and(|c| ClientCapabilities::deserialize(c).is_ok())
    }
}

/// The message of a `POST` (`parts`, its body `body`), checked as the module says.
#[expect(
    clippy::result_large_err,
    reason = "the refusal is the answer: built once, on the way out"
)]
pub(super) fn read(parts: &Parts, body: &[u8]) -> Result<Read, Response> {
    let headers = &parts.headers;
    if !accepts_json_and_sse(headers) {
        return Err(refusals::not_acceptable(false));
    }
    if !is_json(headers) {
        return Err(refusals::unsupported_media_type(false));
    }
    let head = match serde_json::from_slice::<Head<'_>>(body) {
        Ok(head) => head,
        Err(_) => return Err(refusals::unsupported_media_type(true)),
    };
    let kind = match (&head.method, &head.id) {
        // `initialize` as MCP reads it (one without its params is any other request).
        (Some(method), Some(_)) if method == "initialize" => match Read::message(body)? {
            ClientJsonRpcMessage::Request(request)
                if matches!(request.request, ClientRequest::InitializeRequest(_)) =>
            {
                Kind::Initialize
            }
            _ => Kind::Request,
        },
        (Some(_), Some(_)) => Kind::Request,
        (Some(_), None) => Kind::Notification,
        (None, _) if head.result.is_some() || head.error.is_some() => Kind::Response,
        (None, _) => return Err(refusals::unsupported_media_type(true)),
    };
    let params = head.params.as_ref();
    let meta = params.and_then(|p| p.meta.as_ref());
    let request = matches!(kind, Kind::Request | Kind::Initialize);
    let meta_version = meta.and_then(Meta::version).filter(|_| request);
    let header = header_version(headers, meta_version.is_some())?;
    let id = head.id.clone().filter(|_| kind != Kind::Response);
    if kind == Kind::Initialize {
        let asked = params
            .and_then(|p| p.protocol_version.as_ref())
            .and_then(Named::text);
        if header.is_some_and(|header| Some(header) != asked) {
            return Err(refusals::invalid_request(
                id,
                "Invalid Request: `MCP-Protocol-Version` must be the version `initialize` asks \
                 for (`protocolVersion`).",
            ));
        }
        if header.is_some_and(is_current) {
            standard_headers(headers, &head, id)?;
        }
        return Ok(Read {
            kind,
            legacy: true,
            meta_malformed: false,
        });
    }
    if kind == Kind::Request {
        let discover = head.method.as_deref() == Some("server/discover");
        match (meta_version, header) {
            (None, header) if discover || header.is_some_and(is_current) => {
                return Err(refusals::missing_meta(
                    head.id.clone().unwrap_or(RequestId::Number(0)),
                ));
            }
            (Some(_), None) => return Err(refusals::header_mismatch(id, Disagreeing::Version)),
            (Some(meta), Some(header)) if meta != header => {
                return Err(refusals::header_mismatch(id, Disagreeing::Version));
            }
            _ => {}
        }
    }
    let per_request = kind == Kind::Request && meta.is_some_and(Meta::is_whole);
    let version = meta_version
        .or(header)
        .unwrap_or(ProtocolVersion::V_2025_03_26.as_str());
    let legacy = !per_request && !is_current(version);
    if header.is_some_and(is_current) {
        standard_headers(headers, &head, id)?;
    }
    Ok(Read {
        kind,
        legacy,
        meta_malformed: !legacy && !per_request,
    })
}

/// Whether protocol `version` is 2026-07-28 or later (ISO dates compare as text).
pub(super) fn is_current(version: &str) -> bool {
    version >= ProtocolVersion::V_2026_07_28.as_str()
}

/// What `MCP-Protocol-Version` says, when it is given: text naming a version this server
/// knows, or any version when the request names its own in `_meta` (that version is then
/// checked against it); `400` otherwise.
#[expect(
    clippy::result_large_err,
    reason = "the refusal is the answer: built once, on the way out"
)]
pub(super) fn header_version(
    headers: &HeaderMap,
    versioned_meta: bool,
) -> Result<Option<&str>, Response> {
    let Some(value) = headers.get(VERSION_HEADER) else {
        return Ok(None);
    };
    let Ok(text) = value.to_str() else {
        return Err(refusals::unsupported_version(true));
    };
    let known = ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .any(|version| version.as_str() == text);
    if !known && !versioned_meta {
        return Err(refusals::unsupported_version(false));
    }
    Ok(Some(text))
}

/// The standard headers of 2026-07-28 checked against the message's `head` (a request `id`,
/// or a notification): `Mcp-Method` its method, `Mcp-Name` what it names. A response is not
/// checked.
#[expect(
    clippy::result_large_err,
    reason = "the refusal is the answer: built once, on the way out"
)]
fn standard_headers(
    headers: &HeaderMap,
    head: &Head<'_>,
    id: Option<RequestId>,
) -> Result<(), Response> {
    let Some(method) = head.method.as_deref() else {
        return Ok(());
    };
    let given = headers.get_all("mcp-method").iter().count();
    if method == "initialize" && given == 0 {
        return Ok(());
    }
    if sole(headers, "mcp-method") != Some(method) {
        return Err(refusals::header_mismatch(id, Disagreeing::Method));
    }
    let params = head.params.as_ref();
    let named = match method {
        "tools/call" | "prompts/get" => params.and_then(|p| p.name.as_ref()),
        "resources/read" | "resources/subscribe" | "resources/unsubscribe" => {
            params.and_then(|p| p.uri.as_ref())
        }
        "tasks/get" | "tasks/update" | "tasks/cancel" => params.and_then(|p| p.task_id.as_ref()),
        _ => return Ok(()),
    };
    // A request that names nothing (its params lack the name) has no name to agree with.
    let Some(named) = named else {
        return Ok(());
    };
    let agrees = sole(headers, "mcp-name")
        .and_then(unwrapped)
        .is_some_and(|name| named.text() == Some(name.as_ref()));
    if agrees {
        Ok(())
    } else {
        Err(refusals::header_mismatch(id, Disagreeing::Name))
    }
}

/// A header's value, Base64-unwrapped when it is given as `=?base64?…?=`.
fn unwrapped(value: &str) -> Option<Cow<'_, str>> {
    let Some(wrapped) = value
        .strip_prefix("=?base64?")
        .and_then(|rest| rest.strip_suffix("?="))
    else {
        return Some(Cow::Borrowed(value));
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(wrapped)
        .ok()?;
    String::from_utf8(bytes).ok().map(Cow::Owned)
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(*name, HeaderValue::from_str(value).unwrap());
        }
        headers
    }

    fn checked(pairs: &[(&'static str, &str)], body: &str) -> Result<(), StatusCode> {
        let head: Head<'_> = serde_json::from_str(body).unwrap();
        standard_headers(&headers(pairs), &head, Some(RequestId::Number(1)))
            .map_err(|response| response.status())
    }

    #[test]
    fn the_standard_headers_must_agree_with_the_body() {
        let call =
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"orders_get"}}"#;
        let method = ("mcp-method", "tools/call");
        assert_eq!(checked(&[method, ("mcp-name", "orders_get")], call), Ok(()));
        let wrapped = "=?base64?b3JkZXJzX2dldA==?=";
        assert_eq!(checked(&[method, ("mcp-name", wrapped)], call), Ok(()));
        for refused in [
            vec![method],
            vec![method, ("mcp-name", "orders_list")],
            vec![("mcp-method", "tools/list"), ("mcp-name", "orders_get")],
            vec![("mcp-method", "Tools/Call"), ("mcp-name", "orders_get")],
            vec![method, method, ("mcp-name", "orders_get")],
            vec![("mcp-name", "orders_get")],
        ] {
            assert_eq!(
                checked(&refused, call),
                Err(StatusCode::BAD_REQUEST),
                "{refused:?}"
            );
        }
        let nameless = r#"{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{}}"#;
        assert_eq!(
            checked(&[("mcp-method", "resources/subscribe")], nameless),
            Ok(())
        );
        let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        assert_eq!(checked(&[("mcp-method", "tools/list")], list), Ok(()));
        let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
        assert_eq!(checked(&[], initialize), Ok(()));
        assert_eq!(
            checked(&[("mcp-method", "tools/list")], initialize),
            Err(StatusCode::BAD_REQUEST)
        );
        let answer = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
        assert_eq!(checked(&[], answer), Ok(()));
    }

    #[test]
    fn a_version_header_names_a_known_version() {
        let known = headers(&[("mcp-protocol-version", "2025-11-25")]);
        assert_eq!(header_version(&known, false).ok(), Some(Some("2025-11-25")));
        let unknown = headers(&[("mcp-protocol-version", "1999-01-01")]);
        assert!(header_version(&unknown, false).is_err());
        assert_eq!(
            header_version(&unknown, true).ok(),
            Some(Some("1999-01-01")),
            "checked against `_meta` instead"
        );
        assert_eq!(header_version(&HeaderMap::new(), false).ok(), Some(None));
    }
}
