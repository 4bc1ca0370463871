//! A stateless `tools/call` or `tools/list` (protocol 2026-07-28) answered by the transport,
//! beside rmcp's streamable HTTP service, for the requests that need nothing of it.
//!
//! rmcp serves each stateless request by reading it into its message enum, serializing it
//! back to check the SEP-2243 headers against it, cloning the called tool's rmcp `Tool` for
//! its schema, and running a one-message service: a task for the service loop, another for
//! the handler, the answer handed back through a channel. For a call that takes microseconds
//! that is most of the server's work, and three threads woken.
//!
//! [`Plain::read`] takes a request only when every check rmcp makes of it is sure to pass —
//! `Accept` naming both media types (no parameters), a JSON `Content-Type`, no session,
//! `MCP-Protocol-Version` and `Mcp-Method` each given once and agreeing with the body, for a
//! call `Mcp-Name` too (for a list none), no `Mcp-Param-*` header (toolspec's schemas never
//! ask for one), and a body of exactly `{"jsonrpc", "id", "method", "params"}` whose `params`
//! hold a call's `name` and `arguments` or a list's `cursor`, and `_meta`: the protocol
//! version (2026-07-28) and the client's capabilities, perhaps its identity and a progress
//! token, all well formed. The server then answers a list, and a call whose tool needs no peer
//! (no task, nothing to ask), itself. The answer is the message rmcp's handler and service
//! loop make of the same request, with the HTTP status rmcp gives it, as plain JSON (a list's
//! tools the bytes the listing prepared); a call that reports progress before it answers
//! streams its progress and then its answer as SSE events, framed as rmcp frames them.
//! Anything else — answers configured as SSE, any doubt — goes to rmcp, which judges it as it
//! always has.
//!
//! The call is cancelled when its request or its stream is dropped (the client went away), as
//! rmcp's is. Unlike rmcp's, it is not cut short when the server shuts down: serving waits
//! for open connections, and the call is answered.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::http::{HeaderMap, StatusCode, header, request::Parts};
use axum::response::{IntoResponse, Response};
use futures_util::{Stream, StreamExt as _};
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ErrorCode, Implementation, JsonObject,
    ProgressToken, ProtocolVersion, RequestId, ServerJsonRpcMessage,
};
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use serde::Deserialize;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::model::caller::Caller;

use super::super::McpServer;
use super::super::direct;
use super::super::listing::ToolsSlot;
use super::chunks::Chunks;
use super::framing::{JSON, SESSION_HEADER, Streams, accepts_json_and_sse, is_json, sole};

/// The protocol whose requests are answered here (each carries its own metadata).
const PROTOCOL: &str = "2026-07-28";

/// A stateless request whose every check rmcp makes is sure to pass: a call or a list.
pub(super) struct Plain {
    id: RequestId,
    asked: Asked,
}

#[expect(
    clippy::large_enum_variant,
    reason = "read once per request and moved into its answer: boxing a call would cost an allocation"
)]
enum Asked {
    /// `tools/call`, and the token the client's progress notifications are to carry, if it
    /// asked for them.
    Call {
        params: CallToolRequestParams,
        progress_token: Option<ProgressToken>,
    },
    /// `tools/list`, from the page at `cursor`.
    List { cursor: Option<String> },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CallParams {
    #[serde(rename = "_meta")]
    meta: Meta,
    name: String,
    #[serde(default)]
    arguments: Option<JsonObject>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListParams {
    #[serde(rename = "_meta")]
    meta: Meta,
    #[serde(default)]
    cursor: Option<String>,
}

/// 2026-07-28's per-request metadata and nothing more: the protocol version and the
/// client's capabilities, perhaps its identity and a progress token, each read into the
/// type rmcp reads it as (a value rmcp would find malformed fails here: rmcp judges it).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Meta {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion")]
    protocol_version: ProtocolVersion,
    #[serde(rename = "io.modelcontextprotocol/clientCapabilities")]
    _client_capabilities: ClientCapabilities,
    #[serde(rename = "io.modelcontextprotocol/clientInfo", default)]
    _client_info: Option<Implementation>,
    #[serde(rename = "progressToken", default)]
    progress_token: Option<ProgressToken>,
}

impl Meta {
    /// Whether the request says it is of protocol 2026-07-28 (as its header does).
    fn is_current(&self) -> bool {
        self.protocol_version == ProtocolVersion::V_2026_07_28
    }
}

impl Plain {
    /// The plain request `parts` and `body` (screened already) make, if they make one.
    pub(super) fn read(parts: &Parts, body: &[u8]) -> Option<Self> {
        let headers = &parts.headers;
        if headers.contains_key(SESSION_HEADER)
            || !accepts_json_and_sse(headers)
            || !is_json(headers)
            || headers
                .keys()
                .any(|name| name.as_str().starts_with("mcp-param-"))
            || sole(headers, "mcp-protocol-version") != Some(PROTOCOL)
        {
            return None;
        }
        match sole(headers, "mcp-method")? {
            "tools/call" => Self::call(headers, body),
            "tools/list" => Self::list(headers, body),
            _ => None,
        }
    }

    /// A `tools/call` whose `Mcp-Name` names its tool as given (a Base64-wrapped value starts
    /// with `=?`).
    fn call(headers: &HeaderMap, body: &[u8]) -> Option<Self> {
        let envelope: direct::Envelope<'_, CallParams> =
            direct::Envelope::read(body, "tools/call")?;
        let CallParams {
            meta,
            name,
            arguments,
        } = envelope.params;
        let named = sole(headers, "mcp-name")?;
        if named != name || named.starts_with("=?") || !meta.is_current() {
            return None;
        }
        let mut params = CallToolRequestParams::new(name);
        params.arguments = arguments;
        let asked = Asked::Call {
            params,
            progress_token: meta.progress_token,
        };
        Some(Self {
            id: envelope.id,
            asked,
        })
    }

    /// A `tools/list`, which names nothing (an `Mcp-Name` rmcp would not read is left to it).
    fn list(headers: &HeaderMap, body: &[u8]) -> Option<Self> {
        if headers.contains_key("mcp-name") {
            return None;
        }
        let envelope: direct::Envelope<'_, ListParams> =
            direct::Envelope::read(body, "tools/list")?;
        let ListParams { meta, cursor } = envelope.params;
        meta.is_current().then_some(Self {
            id: envelope.id,
            asked: Asked::List { cursor },
        })
    }

    /// Whether `server` answers this request by `caller` itself: a list always, a call when
    /// its tool needs no peer.
    pub(super) fn is_direct(&self, server: &McpServer, caller: &Caller) -> bool {
        match &self.asked {
            Asked::Call { params, .. } => server.answers_directly(&params.name, caller),
            Asked::List { .. } => true,
        }
    }

    /// The request answered by `server` for `caller`, as rmcp answers it.
    pub(super) async fn answer(
        self,
        server: &McpServer,
        caller: Arc<Caller>,
        streams: &Streams,
    ) -> Response {
        match self.asked {
            Asked::Call {
                params,
                progress_token,
            } => call(self.id, params, progress_token, server, caller, streams).await,
            Asked::List { cursor } => list(self.id, cursor.as_deref(), server, &caller),
        }
    }
}

/// The page of `tools/list` at `cursor` for `caller`: its tools the bytes the listing
/// prepared, the rest of the result serialized around them.
fn list(id: RequestId, cursor: Option<&str>, server: &McpServer, caller: &Caller) -> Response {
    tracing::debug!("a stateless list answered beside rmcp's service");
    let slot = ToolsSlot::default();
    let listed = server.list(cursor, caller, true, Some(&slot));
    json(direct::message(id, listed, true), Some(&slot))
}

/// The call run through `server`'s pipeline as `caller`, answered as rmcp answers it: its
/// result as JSON, or, when it reports progress before it answers, an SSE stream of its
/// progress and then its result (framed and kept alive as `streams` says).
async fn call(
    id: RequestId,
    params: CallToolRequestParams,
    progress_token: Option<ProgressToken>,
    server: &McpServer,
    caller: Arc<Caller>,
    streams: &Streams,
) -> Response {
    tracing::debug!(tool = %params.name, "a stateless call answered beside rmcp's service");
    let cancellation = CancellationToken::new();
    // Dropped with the request when the client goes away: the call is cancelled.
    let cancel_when_dropped = cancellation.clone().drop_guard();
    let server = server.clone();
    let Some(token) = progress_token else {
        let called = server.call_plain(params, caller, cancellation, None);
        return json(direct::answered(id, called, true).await, None);
    };
    let (notes, mut reported) = mpsc::unbounded_channel();
    let write: direct::Write = {
        let notes = notes.clone();
        Arc::new(move |note| {
            // The receiver lives as long as the request or its stream.
            let _ = notes.send(note);
            Box::pin(std::future::ready(()))
        })
    };
    let progress = direct::Progress { token, write };
    let called = server.call_plain(params, caller, cancellation.clone(), Some(progress));
    let mut called = Box::pin(direct::answered(id, called, true));
    let first = tokio::select! {
        biased;
        answer = &mut called => match reported.try_recv() {
            // Nothing reported: the answer is the whole reply.
            Err(_) => return json(answer, None),
            Ok(note) => {
                let _ = notes.send(answer);
                note
            }
        },
        Some(note) = reported.recv() => {
            tokio::spawn(async move {
                let answer = called.await;
                let _ = notes.send(answer);
            });
            note
        }
    };
    cancel_when_dropped.disarm();
    respond(streams, first, reported, cancellation)
}

/// `first`, then what `rest` receives until it closes, as SSE events framed and kept alive
/// as `streams` says; the call is cancelled with `cancellation` if the stream is dropped
/// before its end.
fn respond(
    streams: &Streams,
    first: ServerJsonRpcMessage,
    rest: mpsc::UnboundedReceiver<ServerJsonRpcMessage>,
    cancellation: CancellationToken,
) -> Response {
    let events = Events {
        first: Some(first),
        rest,
        cancellation: Some(cancellation),
    };
    streams.respond(events.map(ServerSseMessage::from_message))
}

/// A call's messages: the first, then the rest until the call has answered. Dropped before
/// then (the client went away), it cancels the call.
struct Events {
    first: Option<ServerJsonRpcMessage>,
    rest: mpsc::UnboundedReceiver<ServerJsonRpcMessage>,
    cancellation: Option<CancellationToken>,
}

impl Stream for Events {
    type Item = ServerJsonRpcMessage;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(first));
        }
        let next = self.rest.poll_recv(cx);
        if let Poll::Ready(None) = next {
            self.cancellation = None;
        }
        next
    }
}

impl Drop for Events {
    fn drop(&mut self) {
        if let Some(cancellation) = self.cancellation.take() {
            cancellation.cancel();
        }
    }
}

/// `message`, a stateless request's whole reply, as JSON with the status rmcp gives it; a
/// list's tools put in from `slot`, as the bytes the listing prepared.
fn json(message: ServerJsonRpcMessage, slot: Option<&ToolsSlot>) -> Response {
    let status = status(&message);
    let text = match serde_json::to_vec(&message) {
        Ok(text) => text,
        Err(e) => {
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("Encounter an error when serialize json response: {e}"),
            )
                .into_response();
        }
    };
    let body = match slot {
        Some(slot) => axum::body::Body::new(Chunks::from(slot.splice(text).into_chunks())),
        None => axum::body::Body::from(text),
    };
    (status, [(header::CONTENT_TYPE, JSON)], body).into_response()
}

/// The HTTP status rmcp gives a stateless request's answer whose metadata was well formed: a
/// result `200`; an error `400` when the protocol or the headers were refused, `404` for an
/// unknown method, else `200`.
fn status(message: &ServerJsonRpcMessage) -> StatusCode {
    let ServerJsonRpcMessage::Error(error) = message else {
        return StatusCode::OK;
    };
    match error.error.code {
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        | ErrorCode::HEADER_MISMATCH => StatusCode::BAD_REQUEST,
        ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        _ => StatusCode::OK,
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::ErrorData;

    use super::*;

    const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    fn parts(headers: &[(&str, &str)]) -> Parts {
        let mut request = axum::http::Request::post("/mcp");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request.body(()).expect("a request").into_parts().0
    }

    const HEADERS: &[(&str, &str)] = &[
        ("accept", "application/json, text/event-stream"),
        ("content-type", "application/json"),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "t"),
    ];

    fn body(meta: &str, rest: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{meta},"name":"t"{rest}}}}}"#
        )
    }

    /// The tool and progress token of the plain call `parts` and `text` make.
    fn called(parts: &Parts, text: &str) -> Option<(String, Option<ProgressToken>)> {
        match Plain::read(parts, text.as_bytes())?.asked {
            Asked::Call {
                params,
                progress_token,
            } => Some((params.name.to_string(), progress_token)),
            Asked::List { .. } => None,
        }
    }

    /// The cursor of the plain list `headers` and `text` make.
    fn listed(headers: &[(&str, &str)], text: &str) -> Option<Option<String>> {
        match Plain::read(&parts(headers), text.as_bytes())?.asked {
            Asked::List { cursor } => Some(cursor),
            Asked::Call { .. } => None,
        }
    }

    #[test]
    fn a_list_with_the_metadata_and_headers_of_2026_07_28_only_is_plain() {
        let headers = [&HEADERS[..3], &[("mcp-method", "tools/list")]].concat();
        let list = |params: &str| {
            format!(r#"{{"jsonrpc":"2.0","id":"l","method":"tools/list","params":{params}}}"#)
        };
        let first = list(&format!(r#"{{"_meta":{META}}}"#));
        assert_eq!(listed(&headers, &first), Some(None));
        let next = list(&format!(r#"{{"_meta":{META},"cursor":"100"}}"#));
        assert_eq!(listed(&headers, &next), Some(Some("100".into())));
        // No metadata, more than it, a name rmcp would not read, a call's headers.
        for (headers, text) in [
            (&headers[..], list("{}")),
            (&headers[..], list(&format!(r#"{{"_meta":{META},"x":1}}"#))),
            (
                &[&headers[..], &[("mcp-name", "t")]].concat()[..],
                first.clone(),
            ),
            (HEADERS, first.clone()),
        ] {
            assert!(left(headers, &text), "{headers:?} {text}");
        }
    }

    #[test]
    fn a_call_with_the_metadata_and_headers_of_2026_07_28_only_is_plain() {
        for text in [
            body(META, r#","arguments":{"a":1}"#),
            body(META, ""),
            body(META, r#","arguments":null"#),
            body(
                r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}"#,
                "",
            ),
        ] {
            let (name, token) = called(&parts(HEADERS), &text).expect(&text);
            assert_eq!(name, "t", "{text}");
            assert!(token.is_none(), "{text}");
        }
        let asking = body(
            r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}"#,
            "",
        );
        let (_, token) = called(&parts(HEADERS), &asking).expect("plain");
        assert_eq!(token, Some(ProgressToken(RequestId::String("p".into()))));
        let mut headers = HEADERS.to_vec();
        headers[0] = ("accept", "text/event-stream");
        headers.push(("accept", "application/json"));
        headers[1] = ("content-type", "Application/JSON; charset=utf-8");
        assert!(Plain::read(&parts(&headers), body(META, "").as_bytes()).is_some());
    }

    /// Whether `headers` and `text` are left to rmcp.
    fn left(headers: &[(&str, &str)], text: &str) -> bool {
        Plain::read(&parts(headers), text.as_bytes()).is_none()
    }

    #[test]
    fn anything_else_is_left_to_rmcp() {
        let plain = body(META, "");
        // Headers rmcp reads: each changed, doubled or left out.
        for (n, (name, value)) in HEADERS.iter().enumerate() {
            let mut without = HEADERS.to_vec();
            without.remove(n);
            assert!(left(&without, &plain), "{name}");
            let mut doubled = HEADERS.to_vec();
            doubled.push((name, value));
            // rmcp reads every `Accept` and the first `Content-Type`: these may repeat.
            if !["accept", "content-type"].contains(name) {
                assert!(left(&doubled, &plain), "{name}");
            }
            let mut changed = HEADERS.to_vec();
            changed[n].1 = "text/plain";
            assert!(left(&changed, &plain), "{name}");
        }
        for extra in [
            ("accept", "application/json;q=0"),
            ("mcp-session-id", "s"),
            ("mcp-param-region", "eu"),
        ] {
            let mut headers = HEADERS.to_vec();
            headers.push(extra);
            assert!(left(&headers, &plain), "{extra:?}");
        }
        let mut named = HEADERS.to_vec();
        named[4].1 = "=?base64?dA==?=";
        assert!(left(&named, &plain));
        for text in [
            // Metadata missing, malformed, of another version, or holding more.
            body("{}", ""),
            body(
                r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#,
                "",
            ),
            body(
                r#"{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}"#,
                "",
            ),
            body(
                r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}"#,
                "",
            ),
            body(
                r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":"c"}"#,
                "",
            ),
            body(
                r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":true}"#,
                "",
            ),
            // A continuation, another method, another name than the header's.
            body(META, r#","requestState":"s""#),
            body(META, "").replace("tools/call", "tools/list"),
            body(META, "").replace(r#""name":"t""#, r#""name":"u""#),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}"#.into(),
        ] {
            assert!(left(HEADERS, &text), "{text}");
        }
    }

    #[test]
    fn errors_get_the_status_rmcp_gives_them() {
        let error = |code| {
            ServerJsonRpcMessage::error(ErrorData::new(code, "e", None), Some(RequestId::Number(1)))
        };
        assert_eq!(status(&error(ErrorCode::INVALID_PARAMS)), StatusCode::OK);
        assert_eq!(
            status(&error(ErrorCode::METHOD_NOT_FOUND)),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            status(&error(ErrorCode::HEADER_MISMATCH)),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(status(&error(ErrorCode::INTERNAL_ERROR)), StatusCode::OK);
    }
}
