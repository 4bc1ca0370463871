//! The ids of a session's requests awaiting their answers. JSON-RPC pairs an answer with its
//! request by id, and rmcp's session worker and service keep their bookkeeping by it: two
//! requests of one session with one id at once would have one answer go to the other's stream
//! (or be dropped), the other's stream and bookkeeping kept until the session closes. So a
//! request whose id is [taken](InFlight::take) already is refused before it reaches anything
//! that keeps it (a `-32600` error, [`duplicate`]); an id is free again once its request is
//! answered — reusing it then is valid JSON-RPC, and keeping every id a session ever used would
//! grow without bound.
//!
//! An id is held ([`Hold`]) by whatever still has its request: the call answered beside the
//! worker until it answers (or, cancelled, until its handler stops); a request handed to rmcp
//! by its message, which rmcp's service keeps until the handler returns, and by the stream of
//! its answer until the answer has gone through it (or the client let go of it).
//!
//! Owns the ids only; the session guard takes them and the streams let them go.

use std::collections::HashSet;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use futures_util::Stream;
use rmcp::model::{ClientJsonRpcMessage, GetExtensions, RequestId, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use serde::Deserialize;
use serde::de::IgnoredAny;

/// `ids`, whether or not a panic poisoned them (an insert or a removal is never half-done).
fn lock(ids: &Mutex<HashSet<RequestId>>) -> MutexGuard<'_, HashSet<RequestId>> {
    ids.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The ids of one session's requests awaiting their answers.
#[derive(Debug, Default)]
pub(super) struct InFlight {
    ids: Arc<Mutex<HashSet<RequestId>>>,
}

/// An id taken by a request awaiting its answer: free again once the last holder lets go.
pub(crate) type Hold = Arc<Taken>;

/// One taken id.
#[derive(Debug)]
pub(crate) struct Taken {
    ids: Arc<Mutex<HashSet<RequestId>>>,
    id: RequestId,
}

impl Drop for Taken {
    fn drop(&mut self) {
        lock(&self.ids).remove(&self.id);
    }
}

impl InFlight {
    /// Takes `id` for a request, unless another request of the session holds it.
    pub(super) fn take(&self, id: RequestId) -> Option<Hold> {
        if !lock(&self.ids).insert(id.clone()) {
            return None;
        }
        Some(Arc::new(Taken {
            ids: Arc::clone(&self.ids),
            id,
        }))
    }

    /// How many ids are taken.
    #[cfg(test)]
    fn len(&self) -> usize {
        lock(&self.ids).len()
    }
}

/// The id of the JSON-RPC request a request's body holds, as the transport's screening read
/// it (a plain call's is in its [`Plain`](crate::adapters::mcp::direct::Plain) instead).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AskedId(pub(crate) RequestId);

/// The id of the JSON-RPC request `body` holds: none for a notification, a response, or text
/// that is no request rmcp would take.
pub(crate) fn request_id(body: &[u8]) -> Option<AskedId> {
    #[derive(Deserialize)]
    struct Head {
        id: Option<RequestId>,
        method: Option<IgnoredAny>,
    }
    let head: Head = serde_json::from_slice(body).ok()?;
    head.method?;
    head.id.map(AskedId)
}

/// The `400` refusing a request whose id a request of its session awaiting its answer holds: a
/// JSON-RPC invalid request, with that id.
pub(super) fn duplicate(id: &RequestId) -> Response {
    let error = serde_json::json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {
            "code": -32600,
            "message": "Invalid Request: this session already has a request with this id \
                        awaiting its answer; give each request of a session an id of its own",
        },
    });
    let json = HeaderValue::from_static("application/json");
    (
        StatusCode::BAD_REQUEST,
        [(header::CONTENT_TYPE, json)],
        error.to_string(),
    )
        .into_response()
}

/// The hold `message` (a request rmcp serves) carries in its HTTP request's extensions, if any.
pub(super) fn held(message: &ClientJsonRpcMessage) -> Option<Hold> {
    let ClientJsonRpcMessage::Request(request) = message else {
        return None;
    };
    let parts = request
        .request
        .extensions()
        .get::<axum::http::request::Parts>()?;
    parts.extensions.get::<Hold>().cloned()
}

pin_project_lite::pin_project! {
    /// The stream of a request's answer, holding its id until the answer has gone through.
    pub(super) struct Answering<S> {
        #[pin]
        events: S,
        hold: Option<Hold>,
    }
}

impl<S> Answering<S> {
    pub(super) fn new(events: S, hold: Hold) -> Self {
        Self {
            events,
            hold: Some(hold),
        }
    }
}

impl<S: Stream<Item = ServerSseMessage>> Stream for Answering<S> {
    type Item = ServerSseMessage;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.project();
        let polled = this.events.poll_next(cx);
        match &polled {
            Poll::Ready(Some(event)) => {
                let answered = match event.message.as_deref() {
                    Some(ServerJsonRpcMessage::Response(response)) => Some(&response.id),
                    Some(ServerJsonRpcMessage::Error(error)) => error.id.as_ref(),
                    _ => None,
                };
                if answered.is_some_and(|id| this.hold.as_ref().is_some_and(|h| h.id == *id)) {
                    this.hold.take();
                }
            }
            Poll::Ready(None) => {
                this.hold.take();
            }
            Poll::Pending => {}
        }
        polled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_taken_once_until_its_last_holder_lets_go() {
        let in_flight = InFlight::default();
        let first = in_flight.take(RequestId::Number(79)).expect("free");
        assert!(in_flight.take(RequestId::Number(79)).is_none(), "taken");
        let other = in_flight.take(RequestId::String("79".into()));
        assert!(other.is_some(), "another id");
        let second_holder = Arc::clone(&first);
        drop(first);
        assert!(
            in_flight.take(RequestId::Number(79)).is_none(),
            "still held"
        );
        drop((second_holder, other));
        assert_eq!(in_flight.len(), 0, "nothing is left behind");
        assert!(
            in_flight.take(RequestId::Number(79)).is_some(),
            "free again"
        );
    }

    #[test]
    fn only_a_request_has_an_id_to_take() {
        let id = |body: &str| request_id(body.as_bytes()).map(|asked| asked.0);
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":79,"method":"tools/call","params":{"x":[1]}}"#),
            Some(RequestId::Number(79))
        );
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":"a","method":"ping"}"#),
            Some(RequestId::String("a".into()))
        );
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#), None);
        assert_eq!(id(r#"{"jsonrpc":"2.0","method":"notifications/x"}"#), None);
        assert_eq!(id("[1]"), None);
    }
}
