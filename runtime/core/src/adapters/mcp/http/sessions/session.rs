//! One session: its state, the rmcp service that serves its requests, and where each message
//! the service sends goes.
//!
//! The session's rmcp service (`serve_server`, rmcp's public entry for a connection) runs over
//! a [`Worker`], this transport's implementation of rmcp's `Transport`: it receives the
//! messages the session's `POST`s carry, and hands every message the service sends to
//! [`Session::route`], which writes it into a stream: an answer into its request's stream
//! (which it ends), a progress notification into the stream of the request whose token it
//! carries, a request of the server's (a form, say) into the stream of the request it was made
//! for (`OriginatingRequestId`), anything else into the standalone stream (dropped when the
//! client opened none).
//!
//! A plain `tools/call` whose tool needs nothing of rmcp's peer is answered by the session
//! itself ([`Session::answer`]) into a stream of its own, through the same pipeline, without
//! the service's hand-overs between tasks.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::time::Instant;

use rmcp::RoleServer;
use rmcp::model::{
    CancelledNotificationParam, ClientJsonRpcMessage, GetExtensions, JsonRpcNotification,
    Notification, ProgressNotificationParam, ProgressToken, ProtocolVersion, RequestId,
    ServerJsonRpcMessage, ServerNotification, ServerResult,
};
use rmcp::service::OriginatingRequestId;
use rmcp::transport::Transport;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::adapters::mcp::McpServer;
use crate::adapters::mcp::direct::{self, Plain, Progress, Write};
use crate::adapters::mcp::listing::{Page, ToolsSlot};
use crate::model::caller::Caller;

use super::super::framing::Event;
use super::in_flight::{Hold, InFlight};
use super::streams::{Events, SessionStreams, Shared, lock};

/// Who a request comes from, as far as sessions care: the authenticated caller, or `None`
/// for the server's own caller (no authenticator).
pub(super) type Owner = Option<Arc<Caller>>;

/// One session.
pub(crate) struct Session {
    pub(super) id: Arc<str>,
    pub(super) owner: Owner,
    pub(super) state: Mutex<State>,
    /// The messages for the session's service.
    pub(super) to_service: mpsc::Sender<ClientJsonRpcMessage>,
    /// The ids of its requests awaiting their answers.
    pub(super) in_flight: InFlight,
    /// Cancelled when the session closes: its service stops, its direct calls are cancelled.
    pub(super) closed: CancellationToken,
}

/// What a session knows of itself.
pub(super) struct State {
    /// Whether its client sent `notifications/initialized`.
    pub(super) initialized: bool,
    /// The protocol it negotiated, once answered.
    pub(super) version: Option<ProtocolVersion>,
    /// When a request last named it.
    pub(super) last_request: Instant,
    pub(super) streams: SessionStreams,
    /// The requests the service has yet to answer, each with the stream its messages go to.
    awaiting: HashMap<RequestId, Awaiting>,
    /// The stream of each progress token of a request the service has yet to answer.
    progress: HashMap<ProgressToken, Shared>,
    /// The calls the session answers itself that are still running.
    running: HashMap<RequestId, (CancellationToken, Shared)>,
}

/// A request the service has yet to answer.
struct Awaiting {
    stream: Shared,
    progress: Option<ProgressToken>,
    /// Where a `tools/list`'s tools are handed over.
    slot: Option<ToolsSlot>,
    /// Its id, held until it is answered.
    _hold: Option<Hold>,
}

impl State {
    pub(super) fn new() -> Self {
        Self {
            initialized: false,
            version: None,
            last_request: Instant::now(),
            streams: SessionStreams::default(),
            awaiting: HashMap::new(),
            progress: HashMap::new(),
            running: HashMap::new(),
        }
    }

    /// A new stream for the request `id`, which the service answers: its progress (`token`)
    /// and its answer go there, a list's tools from `slot`; its id is held (`hold`) until
    /// then.
    pub(super) fn await_answer(
        &mut self,
        id: RequestId,
        token: Option<ProgressToken>,
        slot: Option<ToolsSlot>,
        hold: Option<Hold>,
    ) -> Shared {
        let stream = self.streams.open();
        if let Some(token) = &token {
            self.progress.insert(token.clone(), Arc::clone(&stream));
        }
        let awaiting = Awaiting {
            stream: Arc::clone(&stream),
            progress: token,
            slot,
            _hold: hold,
        };
        self.awaiting.insert(id, awaiting);
        stream
    }

    /// The request `id` was cancelled by its client: a call the session answers itself is
    /// cancelled; either way its stream ends unanswered.
    pub(super) fn cancel(&mut self, id: &RequestId) {
        if let Some((cancellation, stream)) = self.running.remove(id) {
            cancellation.cancel();
            self.streams.end(&stream, None);
        }
        if let Some(awaiting) = self.forget(id) {
            self.streams.end(&awaiting.stream, None);
        }
    }

    fn forget(&mut self, id: &RequestId) -> Option<Awaiting> {
        let awaiting = self.awaiting.remove(id)?;
        if let Some(token) = &awaiting.progress {
            self.progress.remove(token);
        }
        Some(awaiting)
    }

    /// Ends every stream and cancels every call the session answers itself.
    pub(super) fn close(&mut self) {
        for (_, (cancellation, _)) in self.running.drain() {
            cancellation.cancel();
        }
        self.awaiting.clear();
        self.progress.clear();
        self.streams.close();
    }
}

impl Session {
    /// Writes `message`, sent by the service, where it belongs (see the module).
    pub(super) fn route(&self, message: ServerJsonRpcMessage) {
        let mut state = lock(&self.state);
        let answered = match &message {
            ServerJsonRpcMessage::Response(response) => {
                if let ServerResult::InitializeResult(result) = &response.result {
                    state.version = Some(result.protocol_version.clone());
                }
                Some(&response.id)
            }
            ServerJsonRpcMessage::Error(error) => error.id.as_ref(),
            _ => None,
        };
        if let Some(id) = answered {
            let Some(Awaiting {
                stream,
                slot,
                _hold,
                ..
            }) = state.forget(id)
            else {
                tracing::debug!(%id, "an answer to a request no stream awaits");
                return;
            };
            // Its id is free once its answer can be read.
            drop(_hold);
            let event = match slot.as_ref().and_then(ToolsSlot::take) {
                Some(tools) => match Page::json(&message, &tools) {
                    Ok(text) => Event::text(String::from_utf8(text).unwrap_or_default()),
                    Err(e) => {
                        tracing::error!(error = %e, "a tools/list answer could not be serialized");
                        Event::message(&message)
                    }
                },
                None => Event::message(&message),
            };
            state.streams.end(&stream, Some(event));
            return;
        }
        let stream = match &message {
            ServerJsonRpcMessage::Notification(JsonRpcNotification {
                notification:
                    ServerNotification::ProgressNotification(Notification {
                        params: ProgressNotificationParam { progress_token, .. },
                        ..
                    }),
                ..
            }) => state.progress.get(progress_token),
            ServerJsonRpcMessage::Notification(JsonRpcNotification {
                notification:
                    ServerNotification::CancelledNotification(Notification {
                        params:
                            CancelledNotificationParam {
                                request_id: Some(id),
                                ..
                            },
                        ..
                    }),
                ..
            }) => state.awaiting.get(id).map(|awaiting| &awaiting.stream),
            ServerJsonRpcMessage::Request(request) => request
                .request
                .extensions()
                .get::<OriginatingRequestId>()
                .and_then(|originating| state.awaiting.get(&originating.0))
                .map(|awaiting| &awaiting.stream),
            _ => None,
        };
        let stream = stream.or_else(|| state.streams.standalone()).cloned();
        drop(state);
        match stream {
            Some(stream) => lock(&stream).write(Event::message(&message)),
            None => tracing::debug!("a message for a standalone stream no client opened"),
        }
    }

    /// The plain call `plain` by `caller`, answered by the session itself through `server`'s
    /// pipeline: polled here once, its stream whole when it answers at once (every check
    /// done, no I/O to wait for); else spawned, its stream fed as it goes and resumable. Its
    /// id is held (`hold`) until it has answered or, cancelled, its handler has stopped.
    pub(super) async fn answer(
        self: &Arc<Self>,
        server: &McpServer,
        plain: Plain,
        caller: Arc<Caller>,
        hold: Hold,
    ) -> Events {
        let stream = lock(&self.state).streams.open();
        let cancellation = self.closed.child_token();
        let progress = plain.progress_token.map(|token| Progress {
            token,
            write: writer(&stream),
        });
        let id = plain.id;
        let called =
            server
                .clone()
                .call_plain(plain.params, caller, cancellation.clone(), progress);
        let mut answering = Box::pin(direct::answered(id.clone(), called, false));
        let polled = std::future::poll_fn(|cx| Poll::Ready(answering.as_mut().poll(cx))).await;
        if let Poll::Ready(message) = polled {
            lock(&self.state)
                .streams
                .end(&stream, Some(Event::message(&message)));
            let held = lock(&stream).take_held();
            return Events::Ready(held.into_iter());
        }
        lock(&self.state)
            .running
            .insert(id.clone(), (cancellation, Arc::clone(&stream)));
        let events = lock(&stream).send_from_now();
        let session = Arc::clone(self);
        tokio::spawn(async move {
            let message = answering.await;
            // Its handler has stopped: whatever comes next, the id is the session's again.
            let _hold = hold;
            // A call the client cancelled (or whose session closed) is not answered.
            let mut state = lock(&session.state);
            if state.running.remove(&id).is_some() {
                state.streams.end(&stream, Some(Event::message(&message)));
            }
        });
        events
    }
}

/// Writes a call's progress notifications into its stream.
fn writer(stream: &Shared) -> Write {
    let stream = Arc::clone(stream);
    Arc::new(move |message| {
        lock(&stream).write(Event::message(&message));
        Box::pin(std::future::ready(()))
    })
}

/// The session's side of its rmcp service: what the service reads and where what it writes
/// goes.
pub(super) struct Worker {
    pub(super) from_client: mpsc::Receiver<ClientJsonRpcMessage>,
    pub(super) session: Arc<Session>,
}

impl Transport<RoleServer> for Worker {
    type Error = std::io::Error;

    fn send(
        &mut self,
        message: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.session.route(message);
        std::future::ready(Ok(()))
    }

    async fn receive(&mut self) -> Option<ClientJsonRpcMessage> {
        self.from_client.recv().await
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.from_client.close();
        Ok(())
    }
}
