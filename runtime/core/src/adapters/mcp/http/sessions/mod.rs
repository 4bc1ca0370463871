//! MCP sessions (protocols before 2026-07-28): opened by `initialize`, named by
//! `Mcp-Session-Id` in every later request, bound to the caller that opened them, and bounded
//! — at most so many per caller and in all (`429` past either), a short life for one whose
//! client never sends `notifications/initialized`, and an end after
//! [`idle_timeout`](SessionLimits::idle_timeout) without a request.
//!
//! A request naming a session its caller does not own — to use it, cancel its calls or delete
//! it — is answered `404`, exactly as for a session that does not exist. Each session is
//! served by an rmcp service of its own (`session`), fed the messages of its `POST`s; each
//! request is answered on an SSE stream of its own (`streams`: numbered events, resumable with
//! `Last-Event-ID`), a notification or response with `202`. A `GET` opens the session's
//! standalone stream, or resumes a stream; `DELETE` closes the session.
//!
//! A request of a session takes its id until it is answered (`in_flight`): a second request
//! with an id the session's requests hold is refused (`400`, JSON-RPC `-32600`) before
//! anything keeps it.
//!
//! Owns the sessions' table and their HTTP; the transport (`super`) routes requests here.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ClientRequest, GetExtensions, GetMeta, JsonRpcRequest,
};
use rmcp::service::serve_server_with_ct;
use tokio::sync::mpsc;

use crate::adapters::gate::failure::failure;
use crate::adapters::mcp::McpServer;
use crate::adapters::mcp::direct::Plain;
use crate::adapters::mcp::listing::ToolsSlot;

use super::framing::{SESSION_HEADER, Streams, VERSION_HEADER, accepts_sse, sole};
use super::refusals::{self, method_not_allowed, session_required, unknown_session};
use super::request::{Kind, Read, header_version, is_current};

mod in_flight;
mod session;
mod streams;

use in_flight::{InFlight, duplicate};
use session::{Owner, Session, State, Worker};
use streams::{Events, lock};

/// How many messages of a session wait for its service before a `POST` waits for room.
const SERVICE_QUEUE: usize = 64;

/// Bounds on the sessions of older clients (protocols before 2026-07-28).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    /// The most sessions open at once, for all callers together.
    pub max_sessions: usize,
    /// The most sessions one caller may hold open.
    pub max_sessions_per_caller: usize,
    /// How long a new session may wait for the client's `notifications/initialized` before
    /// it is closed.
    pub init_timeout: Duration,
    /// How long a session may go without a request before it is closed.
    pub idle_timeout: Duration,
}

impl SessionLimits {
    /// The defaults: 1,024 sessions, 16 per caller, 10 s to finish initializing, 5 minutes
    /// idle.
    pub const DEFAULT: Self = Self {
        max_sessions: 1024,
        max_sessions_per_caller: 16,
        init_timeout: Duration::from_secs(10),
        idle_timeout: Duration::from_secs(300),
    };
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The transport's sessions.
pub(super) struct Sessions {
    table: Mutex<HashMap<Arc<str>, Arc<Session>>>,
    limits: SessionLimits,
    /// What serves the sessions' requests.
    server: McpServer,
    /// How the sessions' streams are sent; every session closes when the server shuts down.
    streams: Streams,
}

/// Who sends `parts`.
pub(super) fn owner(parts: &Parts) -> Owner {
    parts
        .extensions
        .get::<Arc<crate::model::caller::Caller>>()
        .cloned()
}

impl Sessions {
    /// Sessions held to `limits`, served by `server`, streamed as `streams` says.
    pub(super) fn new(limits: SessionLimits, server: McpServer, streams: Streams) -> Arc<Self> {
        Arc::new(Self {
            table: Mutex::new(HashMap::new()),
            limits,
            server,
            streams,
        })
    }

    /// The session `id` when `owner` owns it (a request of it has come now), else the `404`
    /// of a session that does not exist.
    #[expect(
        clippy::result_large_err,
        reason = "the refusal is the answer: built once, on the way out"
    )]
    pub(super) fn claim(&self, id: &str, owner: &Owner) -> Result<Arc<Session>, Response> {
        let session = lock(&self.table).get(id).cloned();
        match session {
            Some(session) if session.owner == *owner => {
                lock(&session.state).last_request = Instant::now();
                Ok(session)
            }
            _ => Err(unknown_session()),
        }
    }

    /// The session a request names (`Mcp-Session-Id`), claimed for its sender: `Ok(None)`
    /// when it names none.
    #[expect(
        clippy::result_large_err,
        reason = "the refusal is the answer: built once, on the way out"
    )]
    pub(super) fn named(&self, parts: &Parts) -> Result<Option<Arc<Session>>, Response> {
        let Some(id) = parts.headers.get(SESSION_HEADER) else {
            return Ok(None);
        };
        let id = id.to_str().unwrap_or_default();
        self.claim(id, &owner(parts)).map(Some)
    }

    /// Opens a session with `initialize` (`request`, of `parts`), served by a new rmcp service;
    /// its answer streamed, naming the session.
    pub(super) async fn open(
        self: &Arc<Self>,
        parts: Parts,
        mut request: JsonRpcRequest<ClientRequest>,
    ) -> Response {
        let owner = owner(&parts);
        let (to_service, from_client) = mpsc::channel(SERVICE_QUEUE);
        let id: Arc<str> = uuid::Uuid::new_v4().to_string().into();
        let session = Arc::new(Session {
            id: Arc::clone(&id),
            owner,
            state: Mutex::new(State::new()),
            to_service,
            in_flight: InFlight::default(),
            closed: self.streams.shutdown.child_token(),
        });
        if let Err(why) = self.admit(&session) {
            return failure(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_sessions",
                &format!("No new session: {why}."),
            );
        }
        let stream = lock(&session.state).await_answer(request.id.clone(), None, None, None);
        request.request.extensions_mut().insert(parts);
        if session
            .to_service
            .send(ClientJsonRpcMessage::Request(request))
            .await
            .is_err()
        {
            return refusals::internal();
        }
        let worker = Worker {
            from_client,
            session: Arc::clone(&session),
        };
        let server = self.server.clone();
        let closed = session.closed.clone();
        let sessions = Arc::downgrade(self);
        let served = Arc::clone(&id);
        tokio::spawn(async move {
            match serve_server_with_ct(server, worker, closed).await {
                Ok(running) => {
                    let _ = running.waiting().await;
                }
                Err(e) => tracing::debug!(error = %e, "a session did not initialize"),
            }
            if let Some(sessions) = sessions.upgrade() {
                sessions.close(&served);
            }
        });
        self.expire_uninitialized(Arc::clone(&id));
        self.expire_idle(Arc::clone(&id));
        let events = lock(&stream).send_from_now();
        let mut response = self.streams.respond(events);
        if let Ok(value) = HeaderValue::from_str(&id) {
            response.headers_mut().insert(SESSION_HEADER, value);
        }
        response
    }

    /// Records `session`, or refuses it for being one too many.
    fn admit(&self, session: &Arc<Session>) -> Result<(), String> {
        let mut table = lock(&self.table);
        if table.len() >= self.limits.max_sessions {
            return Err(format!(
                "the server has {} sessions open, as many as it allows",
                table.len()
            ));
        }
        let held = table.values().filter(|s| s.owner == session.owner).count();
        if held >= self.limits.max_sessions_per_caller {
            return Err(format!(
                "this caller has {held} sessions open, as many as one caller may; close one \
                 (DELETE) or let it expire"
            ));
        }
        table.insert(Arc::clone(&session.id), Arc::clone(session));
        Ok(())
    }

    /// Closes session `id`: its service stops, its streams end, its calls are cancelled.
    fn close(&self, id: &str) {
        let Some(session) = lock(&self.table).remove(id) else {
            return;
        };
        session.closed.cancel();
        lock(&session.state).close();
    }

    /// The message of kind `kind` (of `parts`, its body `body`) served in `session`.
    pub(super) async fn serve(
        &self,
        session: Arc<Session>,
        parts: Parts,
        body: &[u8],
        kind: Kind,
    ) -> Response {
        if matches!(kind, Kind::Request | Kind::Initialize)
            && let Some(plain) = Plain::read(body)
        {
            let Some(hold) = session.in_flight.take(plain.id.clone()) else {
                return duplicate(&plain.id);
            };
            let caller = Arc::clone(self.server.caller_in(Some(&parts.extensions)));
            if self.answers_itself(&session, &parts, &plain, &caller) {
                tracing::debug!(tool = %plain.params.name, "a session's call answered by the session");
                let events = session.answer(&self.server, plain, caller, hold).await;
                return self.streams.respond(events);
            }
            drop(hold);
        }
        let mut message = match Read::message(body) {
            Ok(message) => message,
            Err(refused) => return refused,
        };
        match &mut message {
            ClientJsonRpcMessage::Request(request) => {
                let Some(hold) = session.in_flight.take(request.id.clone()) else {
                    return duplicate(&request.id);
                };
                let token = request.request.get_meta().get_progress_token();
                let slot = matches!(request.request, ClientRequest::ListToolsRequest(_))
                    .then(ToolsSlot::default);
                let mut parts = parts;
                if let Some(slot) = &slot {
                    parts.extensions.insert(slot.clone());
                }
                parts.extensions.insert(Arc::clone(&hold));
                let stream =
                    lock(&session.state).await_answer(request.id.clone(), token, slot, Some(hold));
                request.request.extensions_mut().insert(parts);
                let events = lock(&stream).send_from_now();
                if session.to_service.send(message).await.is_err() {
                    return unknown_session();
                }
                self.streams.respond(events)
            }
            ClientJsonRpcMessage::Notification(notification) => {
                match &notification.notification {
                    ClientNotification::InitializedNotification(_) => {
                        lock(&session.state).initialized = true;
                    }
                    ClientNotification::CancelledNotification(cancelled) => {
                        if let Some(id) = &cancelled.params.request_id {
                            lock(&session.state).cancel(id);
                        }
                    }
                    _ => {}
                }
                notification.notification.extensions_mut().insert(parts);
                self.accept(&session, message).await
            }
            ClientJsonRpcMessage::Response(_) | ClientJsonRpcMessage::Error(_) => {
                self.accept(&session, message).await
            }
        }
    }

    /// `message` handed to `session`'s service: `202`.
    async fn accept(&self, session: &Session, message: ClientJsonRpcMessage) -> Response {
        if session.to_service.send(message).await.is_err() {
            return unknown_session();
        }
        StatusCode::ACCEPTED.into_response()
    }

    /// Whether `session` answers the plain call `plain` by `caller` itself: in a session that
    /// finished initializing, whose request names the protocol it negotiated (or none), of a
    /// tool that needs nothing of rmcp's peer (no task, nothing to ask).
    fn answers_itself(
        &self,
        session: &Session,
        parts: &Parts,
        plain: &Plain,
        caller: &crate::model::caller::Caller,
    ) -> bool {
        {
            let state = lock(&session.state);
            let Some(version) = state.version.as_ref().filter(|_| state.initialized) else {
                return false;
            };
            let header = sole(&parts.headers, VERSION_HEADER);
            if header.is_some_and(|header| header != version.as_str()) {
                return false;
            }
        }
        self.server.answers_directly(&plain.params.name, caller)
    }

    /// A `GET` of `/mcp`: the session's standalone stream, or a stream resumed after the event
    /// `Last-Event-ID` names.
    pub(super) fn get(&self, parts: &Parts) -> Response {
        let session = match self.named(parts) {
            Ok(session) => session,
            Err(refused) => return refused,
        };
        let headers = &parts.headers;
        if !accepts_sse(headers) {
            return refusals::not_acceptable(true);
        }
        match header_version(headers, false) {
            Err(refused) => return refused,
            Ok(Some(version)) if is_current(version) => return method_not_allowed("POST"),
            Ok(_) => {}
        }
        let Some(session) = session else {
            return session_required();
        };
        let last = headers
            .get("last-event-id")
            .and_then(|value| value.to_str().ok());
        let events = match last {
            Some(last) => {
                let resumed = lock(&session.state).streams.resume(last);
                resumed.unwrap_or(Events::Ready(Vec::new().into_iter()))
            }
            None => {
                let stream = lock(&session.state).streams.open_standalone();
                lock(&stream).send_from_now()
            }
        };
        self.streams.respond(events)
    }

    /// A `DELETE` of `/mcp`: the session it names closed.
    pub(super) fn delete(&self, parts: &Parts) -> Response {
        let session = match self.named(parts) {
            Ok(session) => session,
            Err(refused) => return refused,
        };
        match header_version(&parts.headers, false) {
            Err(refused) => return refused,
            Ok(Some(version)) if is_current(version) => return method_not_allowed("POST"),
            Ok(_) => {}
        }
        let Some(session) = session else {
            return session_required();
        };
        self.close(&session.id);
        StatusCode::ACCEPTED.into_response()
    }

    /// Closes session `id` once it has gone the idle timeout without a request.
    fn expire_idle(self: &Arc<Self>, id: Arc<str>) {
        let sessions = Arc::downgrade(self);
        let idle = self.limits.idle_timeout;
        tokio::spawn(async move {
            let mut wait = idle;
            loop {
                tokio::time::sleep(wait).await;
                let Some(sessions) = sessions.upgrade() else {
                    return;
                };
                let session = lock(&sessions.table).get(&id).cloned();
                let Some(session) = session else {
                    return;
                };
                let since = lock(&session.state).last_request.elapsed();
                if since >= idle {
                    tracing::debug!(session = %id, "closing a session idle for too long");
                    sessions.close(&id);
                    return;
                }
                wait = idle - since;
            }
        });
    }

    /// Closes session `id` unless its client finished initializing within the time allowed.
    fn expire_uninitialized(self: &Arc<Self>, id: Arc<str>) {
        let sessions = Arc::downgrade(self);
        let wait = self.limits.init_timeout;
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            let Some(sessions) = sessions.upgrade() else {
                return;
            };
            let session = lock(&sessions.table).get(&id).cloned();
            if session.is_some_and(|session| !lock(&session.state).initialized) {
                tracing::debug!(session = %id, "closing a session that never finished initializing");
                sessions.close(&id);
            }
        });
    }
}
