//! MCP sessions (protocols before 2026-07-28) bound to the caller that created them, and
//! bounded: at most so many per caller and in all, and a short life for a session whose
//! client never finishes initialization.
//!
//! rmcp's in-memory [`LocalSessionManager`] keeps the sessions; [`Sessions`] wraps it as the
//! transport's session manager and records who owns each one. The [`guard`] middleware,
//! which runs after authentication, answers any request that names a session its caller does
//! not own — to use it, cancel its calls or delete it — with `404 Not Found`, exactly as for a
//! session that does not exist; and it tells [`Sessions`] who is asking, so that a new
//! session can be bound to its caller (or refused when the caller has too many). A session
//! is closed when it has gone [`idle_timeout`](SessionLimits::idle_timeout) without a request.
//!
//! A plain `tools/call` of a session (its body marked by the transport's screening as
//! [`Plain`]) whose tool needs nothing of rmcp's peer is answered by the [`guard`], beside
//! rmcp's transport and the session's worker ([`beside`]), when every check rmcp's transport
//! makes of it is sure to pass: `Accept` naming JSON and SSE (bare media types), a JSON
//! `Content-Type`, the session named once, `MCP-Protocol-Version` given once and the version
//! the session negotiated (one before 2026-07-28: no per-request metadata to check), no
//! `Mcp-Method`, `Mcp-Name` or `Mcp-Param-*` header; in a session that finished initializing
//! and is still open. Everything else goes through rmcp's.
//!
//! Whichever answers it, a request of a session takes its id until it is answered
//! ([`in_flight`]): a second request with an id the session's requests hold is refused (`400`,
//! JSON-RPC `-32600`) before anything keeps it.
//!
//! Owns the sessions' bookkeeping; the transport (`super`) mounts it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::Response;
use futures_util::{Stream, StreamExt as _};
use rmcp::model::{
    ClientJsonRpcMessage, ClientNotification, ProtocolVersion, RequestId, ServerJsonRpcMessage,
    ServerResult,
};
use rmcp::transport::streamable_http_server::session::local::{
    self, LocalSessionManager, LocalSessionManagerError,
};
use rmcp::transport::streamable_http_server::session::{
    ServerSseMessage, SessionId, SessionManager,
};

use crate::adapters::mcp::McpServer;
use crate::adapters::mcp::direct::{self, Plain};
use crate::model::caller::Caller;

use crate::adapters::gate::failure::failure;

use super::framing::{SESSION_HEADER, Streams, accepts_json_and_sse, is_json, sole};
use super::refusals::unknown_session;

mod beside;
mod in_flight;

use beside::{Beside, lock};
use in_flight::{Answering, AskedId, Hold, InFlight, duplicate, held};

pub(crate) use in_flight::request_id;

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

/// Who a request comes from, as far as sessions care: the authenticated caller, or `None`
/// for the server's own caller (no authenticator).
type Owner = Option<Arc<Caller>>;

#[derive(Debug)]
struct Entry {
    owner: Owner,
    initialized: bool,
    /// The protocol it negotiated, once initialized.
    version: Option<ProtocolVersion>,
    /// When a request last named it.
    last_request: Instant,
    /// Its calls answered beside its worker.
    beside: Arc<Mutex<Beside>>,
    /// The ids of its requests awaiting their answers.
    in_flight: InFlight,
}

tokio::task_local! {
    /// The request being served: who sends it, and whether a session it asked for was
    /// refused for being one too many.
    static REQUEST: Asking;
}

#[derive(Debug)]
struct Asking {
    owner: Owner,
    refused: Mutex<Option<String>>,
}

/// Why a session was not created: the caller, or the server, has as many as allowed.
#[derive(Debug)]
#[non_exhaustive]
pub enum SessionError {
    /// A cap was reached.
    TooMany(String),
    /// rmcp's session manager failed.
    Local(LocalSessionManagerError),
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::TooMany(why) => f.write_str(why),
            Self::Local(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for SessionError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::TooMany(_) => None,
            Self::Local(e) => Some(e),
        }
    }
}

impl From<LocalSessionManagerError> for SessionError {
    fn from(e: LocalSessionManagerError) -> Self {
        Self::Local(e)
    }
}

/// The transport's session manager: rmcp's local sessions, each bound to its caller.
pub struct Sessions {
    local: LocalSessionManager,
    entries: Mutex<HashMap<SessionId, Entry>>,
    limits: SessionLimits,
    /// How the streams of calls answered beside the workers are primed, cached and kept.
    settings: beside::Settings,
    /// What answers plain calls beside the workers.
    server: McpServer,
    /// Whether rmcp's transport serves sessions at all (its `legacy_session_mode`).
    serves_sessions: bool,
    /// How the answers of calls answered beside the workers stream; their calls are
    /// cancelled when the server shuts down.
    streams: Streams,
}

impl std::fmt::Debug for Sessions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sessions")
            .field("entries", &self.entries)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl Sessions {
    /// Sessions held to `limits`, whose plain calls `server` answers beside the workers,
    /// streamed as `streams` says, when rmcp's transport `serves_sessions`.
    pub(crate) fn new(
        limits: SessionLimits,
        server: McpServer,
        serves_sessions: bool,
        streams: Streams,
    ) -> Arc<Self> {
        let mut local = LocalSessionManager::default();
        // Idle sessions are closed here, by their requests: the worker does not see those
        // answered beside it.
        local.session_config.keep_alive = None;
        local.session_config.init_timeout = Some(limits.init_timeout);
        Arc::new(Self {
            settings: beside::Settings::from(&local.session_config),
            local,
            entries: Mutex::new(HashMap::new()),
            limits,
            server,
            serves_sessions,
            streams,
        })
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, Entry>> {
        lock(&self.entries)
    }

    /// Whether `owner` owns session `id`; if so, a request of it has come now.
    fn claim(&self, id: &str, owner: &Owner) -> bool {
        match self.entries().get_mut(id) {
            Some(entry) if entry.owner == *owner => {
                entry.last_request = Instant::now();
                true
            }
            _ => false,
        }
    }

    /// Records a new session for the caller of the request being served, or refuses it.
    fn admit(&self, id: &SessionId) -> Result<(), String> {
        let owner = REQUEST
            .try_with(|asking| asking.owner.clone())
            .ok()
            .flatten();
        let mut entries = self.entries();
        if entries.len() >= self.limits.max_sessions {
            return Err(format!(
                "the server has {} sessions open, as many as it allows",
                entries.len()
            ));
        }
        let held = entries.values().filter(|e| e.owner == owner).count();
        if held >= self.limits.max_sessions_per_caller {
            return Err(format!(
                "this caller has {held} sessions open, as many as one caller may; close one \
                 (DELETE) or let it expire"
            ));
        }
        entries.insert(
            id.clone(),
            Entry {
                owner,
                initialized: false,
                version: None,
                last_request: Instant::now(),
                beside: Arc::new(Mutex::new(Beside::new(self.settings))),
                in_flight: InFlight::default(),
            },
        );
        Ok(())
    }

    /// Closes session `id` once it has gone the idle timeout without a request.
    fn expire_idle(self: &Arc<Self>, id: SessionId) {
        let sessions = Arc::downgrade(self);
        let idle = self.limits.idle_timeout;
        tokio::spawn(async move {
            let mut wait = idle;
            loop {
                tokio::time::sleep(wait).await;
                let Some(sessions) = sessions.upgrade() else {
                    return;
                };
                let Some(since) = sessions
                    .entries()
                    .get(&id)
                    .map(|e| e.last_request.elapsed())
                else {
                    return;
                };
                if since >= idle {
                    tracing::debug!(session = %id, "closing a session idle for too long");
                    let _ = sessions.close_session(&id).await;
                    return;
                }
                wait = idle - since;
            }
        });
    }

    /// Closes session `id` unless its client finished initializing within the time allowed.
    fn expire_uninitialized(self: &Arc<Self>, id: SessionId) {
        let sessions = Arc::downgrade(self);
        let wait = self.limits.init_timeout;
        tokio::spawn(async move {
            tokio::time::sleep(wait).await;
            let Some(sessions) = sessions.upgrade() else {
                return;
            };
            let stale = sessions.entries().get(&id).is_some_and(|e| !e.initialized);
            if stale {
                tracing::debug!(session = %id, "closing a session that never finished initializing");
                let _ = sessions.close_session(&id).await;
            }
        });
    }
}

/// The manager's handle as rmcp's transport holds it.
#[derive(Debug, Clone)]
pub struct SessionsHandle(pub(crate) Arc<Sessions>);

impl SessionManager for SessionsHandle {
    type Error = SessionError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let sessions = &self.0;
        let (id, transport) = sessions.local.create_session().await?;
        if let Err(why) = sessions.admit(&id) {
            let _ = sessions.local.close_session(&id).await;
            let _ = REQUEST.try_with(|asking| {
                *lock(&asking.refused) = Some(why.clone());
            });
            return Err(SessionError::TooMany(why));
        }
        sessions.expire_uninitialized(id.clone());
        sessions.expire_idle(id.clone());
        Ok((id, transport))
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        let response = self.0.local.initialize_session(id, message).await?;
        if let ServerJsonRpcMessage::Response(response) = &response
            && let ServerResult::InitializeResult(result) = &response.result
            && let Some(entry) = self.0.entries().get_mut(id)
        {
            entry.version = Some(result.protocol_version.clone());
        }
        Ok(response)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        Ok(self.0.entries().contains_key(id) && self.0.local.has_session(id).await?)
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.0.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        // The request's id is held until its answer has gone through its stream.
        let hold = held(&message);
        let events = self.0.local.create_stream(id, message).await?;
        Ok(match hold {
            Some(hold) => Answering::new(events, hold).left_stream(),
            None => events.right_stream(),
        })
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        if let ClientJsonRpcMessage::Notification(notification) = &message
            && let Some(entry) = self.0.entries().get_mut(id)
        {
            match &notification.notification {
                ClientNotification::InitializedNotification(_) => entry.initialized = true,
                ClientNotification::CancelledNotification(cancelled) => {
                    if let Some(request) = &cancelled.params.request_id {
                        lock(&entry.beside).cancel(request);
                    }
                }
                _ => {}
            }
        }
        Ok(self.0.local.accept_message(id, message).await?)
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(self.0.local.create_standalone_stream(id).await?)
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let beside = self
            .0
            .entries()
            .get(id)
            .map(|entry| Arc::clone(&entry.beside));
        let resumed = beside.and_then(|beside| lock(&beside).resume(&last_event_id));
        match resumed {
            Some(Ok(events)) => Ok(events.left_stream()),
            Some(Err(())) => Err(SessionError::Local(LocalSessionManagerError::SessionError(
                local::SessionError::InvalidEventId,
            ))),
            None => Ok(self.0.local.resume(id, last_event_id).await?.right_stream()),
        }
    }
}

impl Sessions {
    async fn close_session(&self, id: &SessionId) -> Result<(), SessionError> {
        let entry = self.entries().remove(id);
        if let Some(entry) = entry {
            lock(&entry.beside).close();
        }
        Ok(self.local.close_session(id).await?)
    }

    /// Takes request id `request` in session `id` for a request awaiting its answer: `None`
    /// when another request of the session holds it; no hold for a session gone meanwhile.
    fn take(&self, id: &str, request: RequestId) -> Option<Option<Hold>> {
        match self.entries().get(id) {
            Some(entry) => entry.in_flight.take(request).map(Some),
            None => Some(None),
        }
    }

    /// `request`, of session `id`, answered beside rmcp's transport and the session's
    /// worker ([`beside`]) when it is a plain call whose tool needs nothing of rmcp's peer and
    /// every check rmcp's transport makes of it is sure to pass; else `None`, for rmcp. The
    /// call holds `hold`, its id, until it has answered.
    async fn answer_beside(
        &self,
        id: &str,
        request: &mut Request,
        hold: Option<&Hold>,
    ) -> Option<beside::Events> {
        if !self.serves_sessions || request.method() != axum::http::Method::POST {
            return None;
        }
        let plain = request.extensions().get::<Plain>()?;
        let headers = request.headers();
        let sure_to_pass = accepts_json_and_sse(headers)
            && is_json(headers)
            && sole(headers, SESSION_HEADER).is_some()
            && !headers.keys().any(|name| {
                let name = name.as_str();
                name == "mcp-method" || name == "mcp-name" || name.starts_with("mcp-param-")
            });
        if !sure_to_pass {
            return None;
        }
        let beside = {
            let entries = self.entries();
            let entry = entries.get(id).filter(|entry| entry.initialized)?;
            let version = entry.version.as_ref()?;
            let agreed = sole(headers, "mcp-protocol-version") == Some(version.as_str());
            if !agreed || direct::is_current(version) {
                return None;
            }
            Arc::clone(&entry.beside)
        };
        let caller = Arc::clone(self.server.caller_in(Some(request.extensions())));
        if !self.server.answers_directly(&plain.params.name, &caller)
            || !self.local.has_session(&SessionId::from(id)).await.ok()?
        {
            return None;
        }
        let hold = Arc::clone(hold?);
        let plain = request.extensions_mut().remove::<Plain>()?;
        tracing::debug!(tool = %plain.params.name, "a session's call answered beside its worker");
        let shutdown = &self.streams.shutdown;
        Some(beside::answer(&beside, &self.server, plain, caller, (shutdown, hold)).await)
    }
}

/// The id of the JSON-RPC request a `POST` of a session carries, as the transport's screening
/// read it.
fn asked_id(request: &Request) -> Option<RequestId> {
    if request.method() != axum::http::Method::POST {
        return None;
    }
    let extensions = request.extensions();
    match extensions.get::<Plain>() {
        Some(plain) => Some(plain.id.clone()),
        None => extensions.get::<AskedId>().map(|asked| asked.0.clone()),
    }
}

/// Middleware, after authentication: a request that names a session its caller does not own
/// is answered `404 unknown_session`, as for an unknown session; a session refused for being
/// one too many is answered `429 too_many_sessions`.
pub(crate) async fn guard(
    State(sessions): State<Arc<Sessions>>,
    mut request: Request,
    next: Next,
) -> Response {
    let owner: Owner = request.extensions().get::<Arc<Caller>>().cloned();
    let named = request
        .headers()
        .get(SESSION_HEADER)
        .map(|id| id.to_str().unwrap_or_default().to_owned());
    if let Some(id) = &named
        && !sessions.claim(id, &owner)
    {
        return unknown_session();
    }
    // A request of the session takes its id until it is answered.
    let mut hold = None;
    if let Some(id) = &named
        && let Some(request_id) = asked_id(&request)
    {
        match sessions.take(id, request_id.clone()) {
            Some(taken) => hold = taken,
            None => return duplicate(&request_id),
        }
    }
    if let Some(id) = &named
        && let Some(events) = sessions
            .answer_beside(id, &mut request, hold.as_ref())
            .await
    {
        return sessions.streams.respond(events);
    }
    // Handed to rmcp: its message holds the id, and the stream of its answer.
    if let Some(hold) = hold {
        request.extensions_mut().insert(hold);
    }
    let asking = Asking {
        owner,
        refused: Mutex::new(None),
    };
    let (response, refused) = REQUEST
        .scope(asking, async {
            let response = next.run(request).await;
            let refused = REQUEST.with(|asking| lock(&asking.refused).take());
            (response, refused)
        })
        .await;
    match refused {
        Some(why) => failure(
            StatusCode::TOO_MANY_REQUESTS,
            "too_many_sessions",
            &format!("No new session: {why}."),
        ),
        None => response,
    }
}
