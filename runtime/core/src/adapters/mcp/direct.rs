//! A `tools/call` the HTTP transport answers without rmcp's service loop, for the calls that
//! need nothing of it: how a [plain](Plain) call of a session reads — with nothing in `_meta`
//! but a progress token (no per-request protocol metadata) and without a continuation — and
//! the message answering a call or a list, its result shaped for the protocol as MCP asks
//! (with rmcp's public helpers: cache hints and `resultType` on 2026-07-28, neither before).
//!
//! Everything else — a message that is not plain, a tool that needs the peer, any text this
//! reading cannot make sense of — goes to rmcp's service.

use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::FutureExt as _;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ErrorCode, ErrorData, JsonObject, ProgressToken,
    RequestId, ServerJsonRpcMessage, ServerResult,
};
use serde::Deserialize;

/// Writes one message to the client, whole, after those written before it (the transport's
/// output; failures are the transport's to log).
pub(crate) type Write =
    Arc<dyn Fn(ServerJsonRpcMessage) -> Pin<Box<dyn Future<Output = ()> + Send>> + Send + Sync>;

/// Where a call's progress goes: the client's token, and the output to write it to.
pub(crate) struct Progress {
    pub(crate) token: ProgressToken,
    pub(crate) write: Write,
}

/// A `tools/call` request that needs nothing of the session: `{"jsonrpc": "2.0", "id", "method":
/// "tools/call", "params": {"_meta": {"progressToken"}, "name", "arguments"}}` and no other
/// key, its arguments an object or null. `None` for anything else, which rmcp then reads and
/// judges.
#[derive(Clone)]
pub(crate) struct Plain {
    pub(crate) id: RequestId,
    pub(crate) progress_token: Option<ProgressToken>,
    /// Its parameters as rmcp reads them (`_meta` aside).
    pub(crate) params: CallToolRequestParams,
}

/// A JSON-RPC 2.0 request, its parameters read as `P`, and no other key.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Envelope<'a, P> {
    jsonrpc: &'a str,
    pub(crate) id: RequestId,
    method: &'a str,
    pub(crate) params: P,
}

impl<'a, P: Deserialize<'a>> Envelope<'a, P> {
    /// The `method` request `text` holds, if it is one whose parameters read as `P`.
    pub(crate) fn read(text: &'a [u8], method: &str) -> Option<Self> {
        let envelope: Self = serde_json::from_slice(text).ok()?;
        (envelope.jsonrpc == "2.0" && envelope.method == method).then_some(envelope)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(rename = "_meta", default)]
    meta: Option<Meta>,
    name: String,
    #[serde(default)]
    arguments: Option<JsonObject>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Meta {
    progress_token: Option<ProgressToken>,
}

impl Plain {
    /// The plain `tools/call` in `text` (screened already), if it is one.
    pub(crate) fn read(text: &[u8]) -> Option<Self> {
        let envelope: Envelope<'_, Params> = Envelope::read(text, "tools/call")?;
        let Params {
            meta,
            name,
            arguments,
        } = envelope.params;
        let mut params = CallToolRequestParams::new(name);
        params.arguments = arguments;
        Some(Self {
            id: envelope.id,
            progress_token: meta.and_then(|meta| meta.progress_token),
            params,
        })
    }
}

/// The message rmcp makes of a request's answer (a call's, a list's) — its request handler
/// shapes the result for the session's protocol (the `resultType` and non-object output of
/// 2026-07-28, or their absence before it), its service loop wraps it — in a session on a
/// `current` protocol or not.
pub(crate) fn message(
    id: RequestId,
    answered: Result<impl Into<ServerResult>, ErrorData>,
    current: bool,
) -> ServerJsonRpcMessage {
    match answered {
        Ok(response) => {
            let mut result = response.into();
            if current {
                result.fill_missing_cache_hints();
            } else {
                result.strip_result_type_for_legacy_peer();
                result.strip_non_object_output_for_legacy_peer();
            }
            ServerJsonRpcMessage::response(result, id)
        }
        Err(mut error) => {
            if current && error.code == ErrorCode::RESOURCE_NOT_FOUND {
                error.code = ErrorCode::INVALID_PARAMS;
            }
            ServerJsonRpcMessage::error(error, Some(id))
        }
    }
}

/// The message answering the request `id` with what `called` answers, in a session on a
/// `current` protocol or not (a panic of the pipeline itself fails the call, not the
/// connection).
pub(crate) async fn answered(
    id: RequestId,
    called: impl Future<Output = Result<CallToolResponse, ErrorData>>,
    current: bool,
) -> ServerJsonRpcMessage {
    let answered = match AssertUnwindSafe(called).catch_unwind().await {
        Ok(answered) => answered,
        Err(_) => {
            tracing::error!(%id, "a directly answered call panicked");
            Err(ErrorData::internal_error("the call failed", None))
        }
    };
    message(id, answered, current)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Option<Plain> {
        Plain::read(text.as_bytes())
    }

    #[test]
    fn a_call_with_a_name_arguments_and_a_progress_token_only_is_plain() {
        let plain = read(
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{"progressToken":"p"},"name":"t","arguments":{"a":1}}}"#,
        )
        .expect("plain");
        assert_eq!(plain.id, RequestId::Number(7));
        assert_eq!(
            plain.progress_token,
            Some(ProgressToken(RequestId::String("p".into())))
        );
        let params = plain.params;
        assert_eq!(params.name, "t");
        assert_eq!(
            params.arguments,
            serde_json::json!({"a": 1}).as_object().cloned()
        );
        for text in [
            r#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":null}}"#,
            r#"{"params":{"arguments":{},"name":"t"},"method":"tools/call","id":1,"jsonrpc":"2.0"}"#,
        ] {
            let plain = read(text).unwrap_or_else(|| panic!("plain: {text}"));
            assert_eq!(plain.params.name, "t", "{text}");
        }
    }

    #[test]
    fn anything_else_is_left_to_rmcp() {
        for text in [
            // Not a call, or not JSON-RPC 2.0, or a notification.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"t"}}"#,
            // More in `_meta` than a progress token: per-request protocol metadata, a task.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":true},"name":"t"}}"#,
            // A continuation, an unknown key, a key twice, a name that is not text.
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","requestState":"s"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","task":{}}}"#,
            r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"tools/call","params":{"name":"t"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"},"extra":1}"#,
            // Arguments that are not an object (the screening refuses them first).
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":[1]}}"#,
        ] {
            assert!(read(text).is_none(), "{text}");
        }
    }
}
