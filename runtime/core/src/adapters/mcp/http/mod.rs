//! Streamable HTTP for the MCP server: rmcp's `StreamableHttpService` mounted at `/mcp` in an
//! axum router, behind an [`Authenticator`] that turns each request into a
//! [`Caller`](crate::Caller) (or a `401`; `400` for ambiguous credentials). Requests of
//! protocol 2026-07-28 are served statelessly — a plain `tools/call` or `tools/list` answered
//! by the transport itself, as rmcp would answer it (`stateless`); older clients get sessions,
//! each bound to the caller that created it and bounded in number and life
//! ([`SessionLimits`]), whose plain calls are answered beside rmcp's session worker
//! (`sessions`). Every route the transport serves — MCP, the routes given to
//! [`with_routes`](HttpTransport::with_routes), the metadata — is behind one [`HostPolicy`]:
//! loopback `Host` and `Origin` headers only unless told otherwise. [`HttpTransport::serve`]
//! bounds every connection ([`ConnectionLimits`]: how many at once, how long a request may
//! take to arrive, how long a connection may idle) and sets `TCP_NODELAY`. When the
//! authenticator knows its protected resource, the resource's metadata document (RFC 9728) is
//! served beside `/mcp` and every `401` names it; when the server challenges callers without a
//! tool's scopes, a call of such a tool is answered `403` (`challenge`).
//!
//! ```ignore
//! let server = McpServer::new(registry, Caller::default());
//! let tokens: BearerTokens = serde_json::from_str(&std::fs::read_to_string("tokens.json")?)?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8787").await?;
//! HttpTransport::new(server).authenticator(tokens).serve(listener, CancellationToken::new()).await?;
//! ```
//!
//! Every answer of `/mcp` is MCP's (JSON-RPC, over JSON or SSE) or the error shape
//! `{error, message}` of every route (a refused token, a body too large, an unknown session,
//! and what rmcp's transport refuses with a bare text, `refusals`), quoting no header the
//! request sent.
//!
//! A transport only: it decides who is calling and serves the `McpServer` it is given, which
//! lists and calls; nothing here knows a tool.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;
use toolspec_vocab::auth::MissingScope;

mod challenge;
mod chunks;
mod connections;
mod framing;
mod refusals;
mod sessions;
mod stateless;

pub use connections::ConnectionLimits;
pub use sessions::SessionLimits;

use crate::adapters::auth::Authenticator;
use crate::adapters::gate::host::HostPolicy;

use crate::adapters::auth::authenticator::{self as auth, Refusal};
use crate::adapters::auth::resource::ProtectedResource;
use crate::adapters::gate::failure::{failure, shaped, unauthorized};

use super::McpServer;
use super::listing::ToolsSlot;
use chunks::Chunks;
use framing::{SESSION_HEADER, is_of_type};

/// Where the MCP endpoint is mounted.
pub const PATH: &str = "/mcp";

/// The MCP server over streamable HTTP.
pub struct HttpTransport {
    server: McpServer,
    authenticator: Option<Arc<dyn Authenticator>>,
    config: StreamableHttpServerConfig,
    /// Which `Host` and `Origin` every route accepts.
    policy: HostPolicy,
    connections: ConnectionLimits,
    sessions: SessionLimits,
    /// More routes served on the same address (an HTTP API, say), outside `/mcp`.
    routes: Option<axum::Router>,
}

impl HttpTransport {
    /// Serves `server` with rmcp's defaults (sessions for clients older than 2026-07-28),
    /// except that: a stateless request whose first answer is its result gets it as plain
    /// `application/json` rather than an SSE stream (one that reports progress first still
    /// streams); every route is served only to loopback hosts and, when a page sends the
    /// request (`Origin`), to pages on this machine ([`HostPolicy::loopback`]; `Origin: null`
    /// never); and connections and sessions are held to [`ConnectionLimits::DEFAULT`] and
    /// [`SessionLimits::DEFAULT`]. Without an [`authenticator`](Self::authenticator) every
    /// request runs as the server's own caller.
    pub fn new(server: McpServer) -> Self {
        Self {
            server,
            authenticator: None,
            config: StreamableHttpServerConfig::default().with_json_response(true),
            policy: HostPolicy::loopback(),
            connections: ConnectionLimits::DEFAULT,
            sessions: SessionLimits::DEFAULT,
            routes: None,
        }
    }

    /// Also serves `routes` on the same address and connections (under the same
    /// [`connection_limits`](Self::connection_limits) and [`HostPolicy`]): an app's HTTP API
    /// beside `/mcp`. They authenticate their requests themselves.
    pub fn with_routes(mut self, routes: axum::Router) -> Self {
        self.routes = Some(match self.routes.take() {
            Some(earlier) => earlier.merge(routes),
            None => routes,
        });
        self
    }

    /// Accepts requests from pages of these origins (`https://app.example.com` on its default
    /// port, `https://app.example.com:*` on any, `http://localhost:8080`) as well as from this
    /// machine's, on every route (see [`HostPolicy::allowed_origins`]).
    pub fn allowed_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.policy = self.policy.allowed_origins(origins);
        self
    }

    /// Holds connections to `limits` (see [`serve`](Self::serve)).
    pub fn connection_limits(mut self, limits: ConnectionLimits) -> Self {
        self.connections = limits;
        self
    }

    /// Holds the sessions of older clients to `limits`.
    pub fn session_limits(mut self, limits: SessionLimits) -> Self {
        self.sessions = limits;
        self
    }

    /// Caps request bodies at `bytes` (default 4 MiB); a larger one gets `413`.
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.config = self.config.with_max_request_body_bytes(bytes);
        self
    }

    /// Authenticates every request with `authenticator`; refused requests get `401`. When it
    /// knows its protected resource, the resource's metadata document is served too.
    pub fn authenticator(mut self, authenticator: impl Authenticator) -> Self {
        self.authenticator = Some(Arc::new(authenticator));
        self
    }

    /// What a caller without a tool's scopes meets (see [`McpServer::with_missing_scope`]):
    /// hidden tools, or listed ones whose calls are answered `403` `insufficient_scope`.
    pub fn on_missing_scope(mut self, policy: MissingScope) -> Self {
        self.server = self.server.with_missing_scope(policy);
        self
    }

    /// Accepts these `Host` values (hostnames or `host:port`) instead of loopback only, on
    /// every route (see [`HostPolicy::allowed_hosts`]).
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.policy = self.policy.allowed_hosts(hosts);
        self
    }

    /// Serves every route to the hosts and pages `policy` accepts (replacing what
    /// [`allowed_hosts`](Self::allowed_hosts) and [`allowed_origins`](Self::allowed_origins)
    /// said before).
    pub fn host_policy(mut self, policy: HostPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Adjusts rmcp's transport configuration (keep-alive, JSON responses, body limits…).
    /// Its `Host` and `Origin` settings are not used: the transport's [`HostPolicy`] checks
    /// them, for every route.
    pub fn configure(
        mut self,
        configure: impl FnOnce(StreamableHttpServerConfig) -> StreamableHttpServerConfig,
    ) -> Self {
        self.config = configure(self.config);
        self
    }

    /// An axum router of everything [`serve`](Self::serve) serves — MCP at [`PATH`], the
    /// routes given to [`with_routes`](Self::with_routes), the protected resource's metadata
    /// when the authenticator knows it — behind the [`HostPolicy`], every failure answered
    /// without a body (a path nothing is routed to, a method a route does not take) given the
    /// error shape `{error, message}`, to serve alone or merge
    /// into an app's router (the connection limits apply only through `serve`). An HTTP API
    /// with the same authenticator serves the same metadata: give it to `with_routes` rather
    /// than merging the two routers, which would both route that path.
    pub fn router(mut self) -> axum::Router {
        let policy = self.policy.clone();
        let routes = self.routes.take();
        let resource = self.resource();
        let mut router = self.mcp_router();
        if let Some(routes) = routes {
            router = router.merge(routes);
        }
        policy.guard(shaped(with_metadata(router, resource.as_ref())))
    }

    /// The protected resource the authenticator names.
    fn resource(&self) -> Option<ProtectedResource> {
        self.authenticator
            .as_ref()
            .and_then(|a| a.protected_resource())
            .cloned()
    }

    /// MCP at [`PATH`], behind authentication and the look at each message.
    fn mcp_router(self) -> axum::Router {
        let resource = self.resource();
        let screening = Screening {
            limits: *self.server.registry().limits(),
            max_body_bytes: self.config.max_request_body_bytes,
            json_response: self.config.json_response,
            challenge: challenge::ScopeChallenge::new(&self.server, resource.clone()).map(Arc::new),
            server: self.server.clone(),
            streams: framing::Streams {
                keep_alive: self.config.sse_keep_alive,
                shutdown: self.config.cancellation_token.clone(),
            },
        };
        let sessions = sessions::Sessions::new(
            self.sessions,
            self.server.clone(),
            self.config.legacy_session_mode,
            screening.streams.clone(),
        );
        let factory = self.server;
        // The host policy, in front of every route, has checked `Host` and `Origin`.
        let config = self
            .config
            .disable_allowed_hosts()
            .disable_allowed_origins();
        let service: StreamableHttpService<McpServer, sessions::SessionsHandle> =
            StreamableHttpService::new(
                move || Ok(factory.clone()),
                Arc::new(sessions::SessionsHandle(Arc::clone(&sessions))),
                config,
            );
        // Layers run outermost last: authentication, the look at the message, the session
        // guard, rmcp's refusals given toolspec's shapes, then MCP; on `/mcp` only (a path
        // nothing is routed to is no MCP request).
        let router = axum::Router::new()
            .nest_service(PATH, service)
            .route_layer(axum::middleware::from_fn(refusals::shape))
            .route_layer(axum::middleware::from_fn_with_state(
                sessions,
                sessions::guard,
            ))
            .route_layer(axum::middleware::from_fn_with_state(screening, screen));
        match self.authenticator {
            Some(authenticator) => router.route_layer(axum::middleware::from_fn_with_state(
                Authentication {
                    authenticator,
                    resource,
                },
                authenticate,
            )),
            None => router,
        }
    }

    /// Serves on `listener` until `shutdown` is cancelled, every connection held to the
    /// [`connection_limits`](Self::connection_limits) and given `TCP_NODELAY`; then waits a
    /// grace period for open connections to finish.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: CancellationToken,
    ) -> std::io::Result<()> {
        let limits = self.connections;
        let registry = Arc::clone(self.server.registry());
        self.server.start_tasks();
        let shutdown_token = shutdown.clone();
        let router = self
            .configure(|config| config.with_cancellation_token(shutdown_token))
            .router();
        let served = connections::serve(listener, router, limits, shutdown).await;
        // Every call is answered; what the audit trail holds is written before serving ends.
        registry.flush_audit().await;
        served
    }
}

/// `router`, with the resource's metadata document served in front of it (whatever
/// `router` serves at that path itself: an HTTP API merged in serves the same document).
fn with_metadata(router: axum::Router, resource: Option<&ProtectedResource>) -> axum::Router {
    match resource {
        Some(resource) => resource.router().fallback_service(router),
        None => router,
    }
}

/// What the look at each message needs.
#[derive(Clone)]
struct Screening {
    limits: crate::model::limits::Limits,
    max_body_bytes: usize,
    /// Whether a stateless request's result is answered as plain JSON (rmcp's setting).
    json_response: bool,
    /// Set when the server challenges callers without a tool's scopes.
    challenge: Option<Arc<challenge::ScopeChallenge>>,
    /// What answers a plain stateless request itself ([`stateless`]), and how a call's
    /// progress streams.
    server: McpServer,
    streams: framing::Streams,
}

/// Middleware: reads a `POST`'s body (at most `max_body_bytes`, else `413`; a body that does
/// not arrive in time gets `408`) and screens the message ([`super::wire`]) before rmcp parses
/// it; a refused one is answered with its JSON-RPC error (`400` for text that is not JSON).
/// A plain stateless `tools/list`, or `tools/call` whose tool needs no peer
/// ([`stateless::Plain`]), is answered here, when answers are plain JSON. Another stateless
/// `tools/list` answered as plain JSON is given a [`ToolsSlot`]: its tools are put into rmcp's
/// response as the bytes the listing prepared.
async fn screen(State(screening): State<Screening>, request: Request, next: Next) -> Response {
    use http_body_util::BodyExt;
    if request.method() != axum::http::Method::POST {
        return next.run(request).await;
    }
    let (mut parts, body) = request.into_parts();
    let limited = http_body_util::Limited::new(body, screening.max_body_bytes);
    let bytes = match limited.collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.is::<http_body_util::LengthLimitError>() => {
            let message = format!(
                "A request body may hold at most {} bytes.",
                screening.max_body_bytes
            );
            return failure(StatusCode::PAYLOAD_TOO_LARGE, "too_large", &message);
        }
        Err(e) => {
            tracing::debug!(error = %e, "a request body did not arrive");
            let message = "The request's body did not arrive in time.";
            return failure(StatusCode::REQUEST_TIMEOUT, "request_timeout", message);
        }
    };
    if let Err(rejection) = super::wire::screen(&bytes, &screening.limits) {
        if rejection.is_silent() {
            return StatusCode::ACCEPTED.into_response();
        }
        let status = if rejection.code == super::wire::PARSE_ERROR {
            StatusCode::BAD_REQUEST
        } else {
            StatusCode::OK
        };
        let json = [(header::CONTENT_TYPE, "application/json")];
        return (status, json, rejection.response().to_string()).into_response();
    }
    if let Some(forbidden) = screening
        .challenge
        .as_ref()
        .and_then(|challenge| challenge.check(&parts, &bytes))
    {
        return forbidden;
    }
    // A session's plain call may be answered by the session guard, beside rmcp (`sessions`);
    // the guard holds the id of any request of a session until it is answered.
    if parts.headers.contains_key(SESSION_HEADER) {
        match super::direct::Plain::read(&bytes) {
            Some(plain) => {
                parts.extensions.insert(plain);
            }
            None => {
                if let Some(id) = sessions::request_id(&bytes) {
                    parts.extensions.insert(id);
                }
            }
        }
    }
    if screening.json_response
        && let Some(plain) = stateless::Plain::read(&parts, &bytes)
    {
        let server = &screening.server;
        let caller = Arc::clone(server.caller_in(Some(&parts.extensions)));
        if plain.is_direct(server, &caller) {
            return plain.answer(server, caller, &screening.streams).await;
        }
    }
    // A list's tools go into rmcp's answer as the listing prepared them: a stateless one
    // answered as JSON once it is, a session's as its events go.
    let in_session = parts.headers.contains_key(SESSION_HEADER);
    let slot = ((screening.json_response || in_session) && lists_tools(&bytes)).then(|| {
        let slot = ToolsSlot::default();
        parts.extensions.insert(slot.clone());
        slot
    });
    let response = next
        .run(Request::from_parts(parts, axum::body::Body::from(bytes)))
        .await;
    match slot {
        Some(slot) if in_session => with_tools_in_events(response, slot),
        Some(slot) if slot.is_filled() => with_tools(response, &slot).await,
        _ => response,
    }
}

/// Whether the request is a `tools/list`.
fn lists_tools(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Method<'a> {
        #[serde(borrow)]
        method: std::borrow::Cow<'a, str>,
    }
    memchr::memmem::find(body, b"tools/list").is_some()
        && serde_json::from_slice::<Method>(body).is_ok_and(|m| m.method == "tools/list")
}

/// `response`, rmcp's SSE answer to a session's `tools/list`, with the tools from `slot` put
/// into the event that answers it.
fn with_tools_in_events(response: Response, slot: ToolsSlot) -> Response {
    if !is_of_type(&response, "text/event-stream") {
        // Refused before the session saw it (no such session, a bad header): no tools.
        return response;
    }
    let (parts, body) = response.into_parts();
    Response::from_parts(
        parts,
        axum::body::Body::new(chunks::ToolsInEvents::new(body, slot)),
    )
}

/// `response`, rmcp's JSON answer to a `tools/list`, with the tools from `slot` put in.
async fn with_tools(response: Response, slot: &ToolsSlot) -> Response {
    if !is_of_type(&response, "application/json") {
        // rmcp answers a stateless request's result as JSON when told to: not reached.
        tracing::error!("a stateless tools/list was not answered as JSON; its tools are missing");
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let bytes = match axum::body::to_bytes(body, usize::MAX).await {
        Ok(bytes) => Vec::from(bytes),
        Err(e) => {
            tracing::debug!(error = %e, "a tools/list response did not arrive");
            return StatusCode::INTERNAL_SERVER_ERROR.into_response();
        }
    };
    let chunks = slot.splice(bytes).into_chunks();
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, axum::body::Body::new(Chunks::from(chunks)))
}

/// Who authenticates requests, and the resource its challenges name.
#[derive(Clone)]
struct Authentication {
    authenticator: Arc<dyn Authenticator>,
    resource: Option<ProtectedResource>,
}

/// Middleware: attaches the authenticated caller to the request, or answers `401` (`400` for
/// ambiguous credentials).
async fn authenticate(
    State(authentication): State<Authentication>,
    request: Request,
    next: Next,
) -> Response {
    let (mut parts, body) = request.into_parts();
    match auth::authenticate(authentication.authenticator.as_ref(), &parts).await {
        Ok(caller) => {
            parts.extensions.insert(Arc::new(caller));
            next.run(Request::from_parts(parts, body)).await
        }
        Err(refusal) => refused(&refusal, authentication.resource.as_ref()),
    }
}

/// `401` (`400` for ambiguous credentials) in the error shape, with a challenge saying why
/// (when the authenticator says) and where the resource's metadata is (when it knows).
fn refused(refusal: &Refusal, resource: Option<&ProtectedResource>) -> Response {
    unauthorized(refusal, resource, Some("mcp"))
}
