//! Streamable HTTP for the MCP server: rmcp's `StreamableHttpService` mounted at `/mcp` in an
//! axum router, behind an [`Authenticator`] that turns each request into a [`Caller`] (or a
//! `401`). Requests of protocol 2026-07-28 are served statelessly, older clients get
//! sessions; only loopback `Host` headers are accepted unless told otherwise; accepted
//! connections get `TCP_NODELAY`.
//!
//! ```ignore
//! let server = McpServer::new(registry, Caller::default());
//! let tokens: BearerTokens = serde_json::from_str(&std::fs::read_to_string("tokens.json")?)?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8787").await?;
//! HttpTransport::new(server).authenticator(tokens).serve(listener, CancellationToken::new()).await?;
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde::Deserialize;
use tokio_util::sync::CancellationToken;

use super::McpServer;
use crate::caller::Caller;
use crate::contract::BoxFuture;

/// Where the MCP endpoint is mounted.
pub const PATH: &str = "/mcp";

/// Decides who an HTTP request comes from.
pub trait Authenticator: Send + Sync + 'static {
    /// The caller behind `request` (its method, URI and headers), or `None` to refuse it with
    /// `401 Unauthorized`.
    fn authenticate<'a>(&'a self, request: &'a Parts) -> BoxFuture<'a, Option<Caller>>;
}

/// Bearer tokens, each mapped to a caller: `Authorization: Bearer <token>`.
///
/// Deserializes from a map of token → caller (see [`Caller`] for the caller's keys):
///
/// ```
/// let tokens: toolspec::mcp::http::BearerTokens = serde_json::from_str(r#"{
///     "alice-token": { "id": "alice", "ambient": { "customer_id": 1 }, "scopes": ["orders:read"] }
/// }"#).unwrap();
/// assert_eq!(tokens.len(), 1);
/// ```
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(transparent)]
pub struct BearerTokens {
    callers: HashMap<String, Arc<Caller>>,
}

impl BearerTokens {
    /// No tokens: every request is refused.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a token for `caller`.
    pub fn with(mut self, token: impl Into<String>, caller: Caller) -> Self {
        self.callers.insert(token.into(), Arc::new(caller));
        self
    }

    /// How many tokens are known.
    pub fn len(&self) -> usize {
        self.callers.len()
    }

    /// Whether no token is known.
    pub fn is_empty(&self) -> bool {
        self.callers.is_empty()
    }

    fn caller(&self, request: &Parts) -> Option<Caller> {
        let value = request.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
        let (scheme, token) = value.split_once(' ')?;
        if !scheme.eq_ignore_ascii_case("bearer") {
            return None;
        }
        self.callers
            .get(token.trim())
            .map(|caller| Caller::clone(caller))
    }
}

impl Authenticator for BearerTokens {
    fn authenticate<'a>(&'a self, request: &'a Parts) -> BoxFuture<'a, Option<Caller>> {
        let caller = self.caller(request);
        Box::pin(std::future::ready(caller))
    }
}

/// The MCP server over streamable HTTP.
pub struct HttpTransport {
    server: McpServer,
    authenticator: Option<Arc<dyn Authenticator>>,
    config: StreamableHttpServerConfig,
}

impl HttpTransport {
    /// Serves `server` with rmcp's defaults (sessions for clients older than 2026-07-28,
    /// loopback hosts only), except that a stateless request whose first answer is its
    /// result gets it as plain `application/json` rather than an SSE stream (one that
    /// reports progress first still streams). Without an [`authenticator`](Self::authenticator)
    /// every request runs as the server's own caller.
    pub fn new(server: McpServer) -> Self {
        Self {
            server,
            authenticator: None,
            config: StreamableHttpServerConfig::default().with_json_response(true),
        }
    }

    /// Authenticates every request with `authenticator`; refused requests get `401`.
    pub fn authenticator(mut self, authenticator: impl Authenticator) -> Self {
        self.authenticator = Some(Arc::new(authenticator));
        self
    }

    /// Accepts these `Host` values (hostnames or `host:port`) instead of loopback only.
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.config = self.config.with_allowed_hosts(hosts);
        self
    }

    /// Adjusts rmcp's transport configuration (keep-alive, JSON responses, body limits…).
    pub fn configure(
        mut self,
        configure: impl FnOnce(StreamableHttpServerConfig) -> StreamableHttpServerConfig,
    ) -> Self {
        self.config = configure(self.config);
        self
    }

    /// An axum router serving MCP at [`PATH`], to serve alone or merge into an app's router.
    pub fn router(self) -> axum::Router {
        let server = self.server;
        let service: StreamableHttpService<McpServer, LocalSessionManager> =
            StreamableHttpService::new(move || Ok(server.clone()), Arc::default(), self.config);
        let router = axum::Router::new().nest_service(PATH, service);
        match self.authenticator {
            Some(authenticator) => router.layer(axum::middleware::from_fn_with_state(
                authenticator,
                authenticate,
            )),
            None => router,
        }
    }

    /// Serves on `listener` until `shutdown` is cancelled, with `TCP_NODELAY` on every
    /// connection.
    pub async fn serve(
        self,
        listener: tokio::net::TcpListener,
        shutdown: CancellationToken,
    ) -> std::io::Result<()> {
        use axum::serve::ListenerExt;
        let listener = listener.tap_io(|stream| {
            if let Err(e) = stream.set_nodelay(true) {
                tracing::debug!(error = %e, "could not set TCP_NODELAY");
            }
        });
        let shutdown_token = shutdown.clone();
        let router = self
            .configure(|config| config.with_cancellation_token(shutdown_token))
            .router();
        axum::serve(listener, router)
            .with_graceful_shutdown(async move { shutdown.cancelled_owned().await })
            .await
    }
}

/// Middleware: attaches the authenticated caller to the request, or answers `401`.
async fn authenticate(
    State(authenticator): State<Arc<dyn Authenticator>>,
    request: Request,
    next: Next,
) -> Response {
    let (mut parts, body) = request.into_parts();
    match authenticator.authenticate(&parts).await {
        Some(caller) => {
            parts.extensions.insert(Arc::new(caller));
            next.run(Request::from_parts(parts, body)).await
        }
        None => {
            let mut response = (
                StatusCode::UNAUTHORIZED,
                "401 Unauthorized: send `Authorization: Bearer <token>` with a known token.\n",
            )
                .into_response();
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"mcp\""),
            );
            response
        }
    }
}
