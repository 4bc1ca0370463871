//! Streamable HTTP for the MCP server, owned by toolspec: `/mcp` in an axum router, behind an
//! [`Authenticator`] that turns each request into a [`Caller`](crate::Caller) (or a `401`;
//! `400` for ambiguous credentials). The transport reads and checks every request itself
//! (`request`: headers, body, protocol), and serves requests of protocol 2026-07-28 statelessly
//! (`stateless`) and older clients in sessions, each bound to the caller that created it and
//! bounded in number and life ([`SessionLimits`]) (`sessions`). rmcp is kept for MCP's types
//! and for its service loop, entered through its public API: `serve_directly` for a request
//! without a session, `serve_server` over this transport's own `Transport` for a session.
//! Every route the transport serves — MCP, the routes given to
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
//! `{error, message}` of every route (a refused token, a body too large, an unknown session, a
//! header refused: `refusals`), quoting no header the request sent.
//!
//! A transport only: it decides who is calling and serves the `McpServer` it is given, which
//! lists and calls; nothing here knows a tool.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use tokio_util::sync::CancellationToken;
use toolspec_vocab::auth::MissingScope;

mod challenge;
mod connections;
mod framing;
mod refusals;
mod request;
mod sessions;
mod stateless;

pub use connections::ConnectionLimits;
pub use sessions::SessionLimits;

use crate::adapters::auth::Authenticator;
use crate::adapters::gate::host::HostPolicy;

use crate::adapters::auth::authenticator::{self as auth, Refusal};
use crate::adapters::auth::resource::ProtectedResource;
use crate::adapters::gate::failure::{shaped, unauthorized};

use super::McpServer;
use request::{Kind, Read, Reading};
use sessions::Sessions;

/// Where the MCP endpoint is mounted.
pub const PATH: &str = "/mcp";

/// The MCP server over streamable HTTP.
pub struct HttpTransport {
    server: McpServer,
    authenticator: Option<Arc<dyn Authenticator>>,
    /// The largest request body read.
    max_body_bytes: usize,
    /// How often an idle event stream is sent a keep-alive comment.
    keep_alive: Option<Duration>,
    /// Ends every stream and session when the server shuts down.
    shutdown: CancellationToken,
    /// Which `Host` and `Origin` every route accepts.
    policy: HostPolicy,
    connections: ConnectionLimits,
    sessions: SessionLimits,
    /// More routes served on the same address (an HTTP API, say), outside `/mcp`.
    routes: Option<axum::Router>,
}

impl HttpTransport {
    /// Serves `server` (sessions for clients older than 2026-07-28): a stateless request whose
    /// first answer is its result gets it as plain `application/json` (one that reports
    /// progress first streams); every route is served only to loopback hosts and, when a page
    /// sends the request (`Origin`), to pages on this machine ([`HostPolicy::loopback`];
    /// `Origin: null` never); request bodies are read up to 4 MiB, idle event streams sent a
    /// keep-alive comment every 15 s; and connections and sessions are held to
    /// [`ConnectionLimits::DEFAULT`] and [`SessionLimits::DEFAULT`]. Without an
    /// [`authenticator`](Self::authenticator) every request runs as the server's own caller.
    pub fn new(server: McpServer) -> Self {
        Self {
            server,
            authenticator: None,
            max_body_bytes: MAX_BODY_BYTES,
            keep_alive: Some(Duration::from_secs(15)),
            shutdown: CancellationToken::new(),
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
        self.max_body_bytes = bytes;
        self
    }

    /// Sends an idle event stream a keep-alive comment this often (`None`: never).
    pub fn sse_keep_alive(mut self, interval: Option<Duration>) -> Self {
        self.keep_alive = interval;
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

    /// MCP at [`PATH`], behind authentication.
    fn mcp_router(self) -> axum::Router {
        let resource = self.resource();
        let streams = framing::Streams {
            keep_alive: self.keep_alive,
            shutdown: self.shutdown.clone(),
        };
        let mcp = Mcp {
            reading: Reading {
                limits: *self.server.registry().limits(),
                max_body_bytes: self.max_body_bytes,
                challenge: challenge::ScopeChallenge::new(&self.server, resource.clone())
                    .map(Arc::new),
            },
            sessions: Sessions::new(self.sessions, self.server.clone(), streams.clone()),
            server: self.server,
            streams,
        };
        let router = axum::Router::new()
            .route(PATH, axum::routing::any(serve_mcp))
            .with_state(Arc::new(mcp));
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
        let router = HttpTransport {
            shutdown: shutdown.clone(),
            ..self
        }
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

/// The largest request body read by default.
const MAX_BODY_BYTES: usize = 4 << 20;

/// What serves `/mcp`.
struct Mcp {
    server: McpServer,
    reading: Reading,
    sessions: Arc<Sessions>,
    streams: framing::Streams,
}

/// `/mcp`: a `POST` carries a message, a `GET` opens or resumes a session's stream, a `DELETE`
/// closes a session; any other method is refused (`405`).
async fn serve_mcp(State(mcp): State<Arc<Mcp>>, request: Request) -> Response {
    match *request.method() {
        Method::POST => post(&mcp, request).await,
        Method::GET => mcp.sessions.get(&request.into_parts().0),
        Method::DELETE => mcp.sessions.delete(&request.into_parts().0),
        _ => refusals::method_not_allowed("GET, POST, DELETE"),
    }
}

/// A message: read and checked (`request`), then served without a session (2026-07-28), in
/// the session it names, or, for `initialize`, in a new one.
async fn post(mcp: &Arc<Mcp>, request: Request) -> Response {
    let (parts, body) = match request::body(request, &mcp.reading).await {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    let session = match mcp.sessions.named(&parts) {
        Ok(session) => session,
        Err(refused) => return refused,
    };
    let read = match request::read(&parts, &body) {
        Ok(read) => read,
        Err(refused) => return refused,
    };
    if !read.legacy {
        return stateless::serve(&mcp.server, &mcp.streams, parts, &body, read).await;
    }
    match (session, read.kind) {
        (Some(session), kind) => mcp.sessions.serve(session, parts, &body, kind).await,
        (None, Kind::Initialize) => match Read::message(&body) {
            Ok(rmcp::model::ClientJsonRpcMessage::Request(request)) => {
                mcp.sessions.open(parts, request).await
            }
            Ok(_) => refusals::session_required(),
            Err(refused) => refused,
        },
        (None, _) => refusals::session_required(),
    }
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
