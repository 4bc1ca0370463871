//! Requests of protocol 2026-07-28, each standing alone: no session, the protocol version and
//! the client's capabilities in every request's `_meta`.
//!
//! A notification is accepted (`202`), a response refused (`400`: no request of the server's
//! awaits one). A request is answered as JSON when its first message is its answer, with the
//! status MCP gives its error (`400` for a refused protocol, capability or header, and for
//! `-32602` when the request's `_meta` was malformed; `404` for an unknown method; else
//! `200`); a request whose handler speaks first (progress, say) gets an SSE stream of its
//! messages, the answer last. Dropping the answer before its end (the client went away)
//! cancels the request.
//!
//! Who answers: a [plain](Plain) `tools/list`, and a plain `tools/call` whose tool needs
//! nothing of rmcp's peer (no task, nothing to ask its user), are answered by the server
//! directly — the list from the pages the listing prepared, the call through the pipeline.
//! Any other request is served by rmcp's service for that one request (`serve_directly`,
//! rmcp's public entry for a request without a session), given the protocol version the
//! request's header names.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::http::StatusCode;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use futures_util::{Stream, StreamExt as _};
use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientJsonRpcMessage, ErrorCode, GetExtensions,
    Implementation, InitializeRequestParams, JsonObject, ProgressToken, ProtocolVersion, RequestId,
    ServerJsonRpcMessage,
};
use rmcp::service::serve_directly_with_ct;
use rmcp::transport::OneshotTransport;
use serde::Deserialize;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::model::caller::Caller;

use super::super::McpServer;
use super::super::direct;
use super::super::listing::{Page, ToolsSlot};
use super::framing::{Event, Streams, VERSION_HEADER, json};
use super::refusals;
use super::request::{Kind, Read};

/// The request `read` (of `parts`, its body `body`) served as the module says.
pub(super) async fn serve(
    server: &McpServer,
    streams: &Streams,
    parts: Parts,
    body: &[u8],
    read: Read,
) -> Response {
    match read.kind {
        Kind::Notification => return StatusCode::ACCEPTED.into_response(),
        Kind::Response => {
            return refusals::invalid_request(
                None,
                "Invalid Request: a request without a session awaits no response from the \
                 client.",
            );
        }
        Kind::Initialize | Kind::Request => {}
    }
    let caller = Arc::clone(server.caller_in(Some(&parts.extensions)));
    if let Some(plain) = Plain::read(body)
        && plain.is_direct(server, &caller)
    {
        return plain.answer(server, caller, streams).await;
    }
    let request = match Read::message(body) {
        Ok(ClientJsonRpcMessage::Request(request)) => request,
        Ok(_) => return refusals::unsupported_media_type(true),
        Err(refused) => return refused,
    };
    let version = parts
        .headers
        .get(VERSION_HEADER)
        .and_then(|value| value.to_str().ok())
        .and_then(|text| serde_json::from_value(serde_json::Value::from(text)).ok())
        .unwrap_or(ProtocolVersion::V_2025_03_26);
    let mut peer =
        InitializeRequestParams::new(ClientCapabilities::default(), Implementation::default());
    peer.protocol_version = version;
    let mut request = request;
    request.request.extensions_mut().insert(parts);
    let (transport, mut messages) =
        OneshotTransport::<RoleServer>::new(ClientJsonRpcMessage::Request(request));
    let cancellation = CancellationToken::new();
    let service =
        serve_directly_with_ct(server.clone(), transport, Some(peer), cancellation.clone());
    tokio::spawn(async move {
        let _ = service.waiting().await;
    });
    // Dropped with the request when the client goes away: the handler is cancelled.
    let cancel_when_dropped = cancellation.clone().drop_guard();
    let first = tokio::select! {
        first = messages.recv() => first,
        () = streams.shutdown.cancelled() => None,
    };
    let Some(first) = first else {
        return refusals::internal();
    };
    let terminal = matches!(
        first,
        ServerJsonRpcMessage::Response(_) | ServerJsonRpcMessage::Error(_)
    );
    if terminal {
        // The whole reply: whatever the handler might still say could not be delivered.
        return whole(&first, read.meta_malformed);
    }
    cancel_when_dropped.disarm();
    let rest = futures_util::stream::poll_fn(move |cx| messages.poll_recv(cx));
    respond(streams, first, rest, cancellation)
}

/// A request that needs nothing of rmcp's service: `{"jsonrpc", "id", "method", "params"}` and
/// no other key, its `params` holding a call's `name` and `arguments` or a list's `cursor`,
/// and `_meta`: the protocol version (2026-07-28) and the client's capabilities, perhaps its
/// identity and a progress token, all well formed (a request whose metadata is not is rmcp's
/// to judge).
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

/// 2026-07-28's per-request metadata and nothing more, each read into MCP's type.
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
    /// Whether the request says it is of protocol 2026-07-28.
    fn is_current(&self) -> bool {
        self.protocol_version == ProtocolVersion::V_2026_07_28
    }
}

impl Plain {
    /// The plain request `body` holds, if it holds one.
    pub(super) fn read(body: &[u8]) -> Option<Self> {
        if let Some(envelope) = direct::Envelope::<CallParams>::read(body, "tools/call") {
            let CallParams {
                meta,
                name,
                arguments,
            } = envelope.params;
            if !meta.is_current() {
                return None;
            }
            let mut params = CallToolRequestParams::new(name);
            params.arguments = arguments;
            let asked = Asked::Call {
                params,
                progress_token: meta.progress_token,
            };
            return Some(Self {
                id: envelope.id,
                asked,
            });
        }
        let envelope = direct::Envelope::<ListParams>::read(body, "tools/list")?;
        let ListParams { meta, cursor } = envelope.params;
        meta.is_current().then_some(Self {
            id: envelope.id,
            asked: Asked::List { cursor },
        })
    }

    /// Whether `server` answers this request by `caller` itself: a list always, a call when
    /// its tool needs no peer.
    fn is_direct(&self, server: &McpServer, caller: &Caller) -> bool {
        match &self.asked {
            Asked::Call { params, .. } => server.answers_directly(&params.name, caller),
            Asked::List { .. } => true,
        }
    }

    /// The request answered by `server` for `caller`.
    async fn answer(self, server: &McpServer, caller: Arc<Caller>, streams: &Streams) -> Response {
        match self.asked {
            Asked::Call {
                params,
                progress_token,
            } => call(self.id, params, progress_token, server, caller, streams).await,
            Asked::List { cursor } => list(self.id, cursor.as_deref(), server, &caller),
        }
    }
}

/// The page of `tools/list` at `cursor` for `caller`: its tools those the listing prepared.
fn list(id: RequestId, cursor: Option<&str>, server: &McpServer, caller: &Caller) -> Response {
    tracing::debug!("a stateless list answered by the transport");
    let slot = ToolsSlot::default();
    let listed = server.list(cursor, caller, true, Some(&slot));
    let message = direct::message(id, listed, true);
    let body = match slot.take() {
        Some(tools) => Page::json(&message, &tools),
        None => serde_json::to_vec(&message),
    };
    match body {
        Ok(body) => json(status(&message, false), body),
        Err(e) => {
            tracing::error!(error = %e, "a tools/list answer could not be serialized");
            refusals::internal()
        }
    }
}

/// The call run through `server`'s pipeline as `caller`: its result as JSON, or, when it
/// reports progress before it answers, an SSE stream of its progress and then its result.
async fn call(
    id: RequestId,
    params: CallToolRequestParams,
    progress_token: Option<ProgressToken>,
    server: &McpServer,
    caller: Arc<Caller>,
    streams: &Streams,
) -> Response {
    tracing::debug!(tool = %params.name, "a stateless call answered by the transport");
    let cancellation = CancellationToken::new();
    // Dropped with the request when the client goes away: the call is cancelled.
    let cancel_when_dropped = cancellation.clone().drop_guard();
    let server = server.clone();
    let Some(token) = progress_token else {
        let called = server.call_plain(params, caller, cancellation, None);
        return whole(&direct::answered(id, called, true).await, false);
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
            Err(_) => return whole(&answer, false),
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
    let rest = futures_util::stream::poll_fn(move |cx| reported.poll_recv(cx));
    respond(streams, first, rest, cancellation)
}

/// `first`, then what `rest` yields until it ends, as SSE events; the request is cancelled
/// with `cancellation` if the stream is dropped before its end.
fn respond(
    streams: &Streams,
    first: ServerJsonRpcMessage,
    rest: impl Stream<Item = ServerJsonRpcMessage> + Send + Unpin + 'static,
    cancellation: CancellationToken,
) -> Response {
    let events = Messages {
        first: Some(first),
        rest,
        cancellation: Some(cancellation),
    };
    streams.respond(events.map(|message| Event::message(&message)))
}

/// A request's messages: the first, then the rest until it has answered. Dropped before
/// then (the client went away), it cancels the request.
struct Messages<R> {
    first: Option<ServerJsonRpcMessage>,
    rest: R,
    cancellation: Option<CancellationToken>,
}

impl<R: Stream<Item = ServerJsonRpcMessage> + Unpin> Stream for Messages<R> {
    type Item = ServerJsonRpcMessage;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if let Some(first) = self.first.take() {
            return Poll::Ready(Some(first));
        }
        let next = self.rest.poll_next_unpin(cx);
        if let Poll::Ready(None) = next {
            self.cancellation = None;
        }
        next
    }
}

impl<R> Drop for Messages<R> {
    fn drop(&mut self) {
        if let Some(cancellation) = self.cancellation.take() {
            cancellation.cancel();
        }
    }
}

/// `message`, a request's whole reply, as JSON with the status MCP gives it.
fn whole(message: &ServerJsonRpcMessage, meta_malformed: bool) -> Response {
    match serde_json::to_vec(message) {
        Ok(body) => json(status(message, meta_malformed), body),
        Err(e) => {
            tracing::error!(error = %e, "an answer could not be serialized");
            refusals::internal()
        }
    }
}

/// The HTTP status of a request's answer: a result `200`; an error `400` when the protocol,
/// a capability or a header was refused, or when its parameters were refused for a malformed
/// `_meta`; `404` for an unknown method; else `200` (a tool's own errors among them).
fn status(message: &ServerJsonRpcMessage, meta_malformed: bool) -> StatusCode {
    let ServerJsonRpcMessage::Error(error) = message else {
        return StatusCode::OK;
    };
    match error.error.code {
        ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        | ErrorCode::HEADER_MISMATCH => StatusCode::BAD_REQUEST,
        ErrorCode::INVALID_PARAMS if meta_malformed => StatusCode::BAD_REQUEST,
        ErrorCode::METHOD_NOT_FOUND => StatusCode::NOT_FOUND,
        _ => StatusCode::OK,
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::ErrorData;

    use super::*;

    const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    fn body(meta: &str, rest: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"_meta":{meta},"name":"t"{rest}}}}}"#
        )
    }

    /// The tool and progress token of the plain call `text` holds.
    fn called(text: &str) -> Option<(String, Option<ProgressToken>)> {
        match Plain::read(text.as_bytes())?.asked {
            Asked::Call {
                params,
                progress_token,
            } => Some((params.name.to_string(), progress_token)),
            Asked::List { .. } => None,
        }
    }

    /// The cursor of the plain list `text` holds.
    fn listed(text: &str) -> Option<Option<String>> {
        match Plain::read(text.as_bytes())?.asked {
            Asked::List { cursor } => Some(cursor),
            Asked::Call { .. } => None,
        }
    }

    #[test]
    fn a_list_with_the_metadata_of_2026_07_28_only_is_plain() {
        let list = |params: &str| {
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{params}}}"#)
        };
        assert_eq!(listed(&list(&format!(r#"{{"_meta":{META}}}"#))), Some(None));
        assert_eq!(
            listed(&list(&format!(r#"{{"_meta":{META},"cursor":"2"}}"#))),
            Some(Some("2".into()))
        );
        assert_eq!(listed(&list("{}")), None, "no metadata");
        assert_eq!(
            listed(&list(&format!(r#"{{"_meta":{META},"extra":1}}"#))),
            None
        );
    }

    #[test]
    fn a_call_with_the_metadata_of_2026_07_28_only_is_plain() {
        assert_eq!(called(&body(META, "")), Some(("t".into(), None)));
        let with_token = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"progressToken":"p"}"#;
        assert_eq!(
            called(&body(with_token, r#","arguments":{"a":1}"#)),
            Some((
                "t".into(),
                Some(ProgressToken(RequestId::String("p".into())))
            ))
        );
        for text in [
            body(
                r#"{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}"#,
                "",
            ),
            body(
                r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#,
                "",
            ),
            body(META, r#","task":{}"#),
            body(META, r#","requestState":"s""#),
            body(
                r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.example/trace":"t"}"#,
                "",
            ),
        ] {
            assert!(called(&text).is_none(), "{text}");
        }
    }

    #[test]
    fn errors_get_the_status_mcp_gives_them() {
        let error = |code| ServerJsonRpcMessage::error(ErrorData::new(code, "x", None), None);
        assert_eq!(
            status(&error(ErrorCode::HEADER_MISMATCH), false),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            status(&error(ErrorCode::METHOD_NOT_FOUND), false),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            status(&error(ErrorCode::INVALID_PARAMS), false),
            StatusCode::OK
        );
        assert_eq!(
            status(&error(ErrorCode::INVALID_PARAMS), true),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            status(&error(ErrorCode::INTERNAL_ERROR), false),
            StatusCode::OK
        );
    }
}
