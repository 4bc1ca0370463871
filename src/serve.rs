//! `serve`: the MCP server on stdio, or MCP, the HTTP API, the agent endpoint and the
//! protected resource metadata on one HTTP address, with bearer tokens or JWTs; and a graceful
//! shutdown on Ctrl-C or SIGTERM.

use std::net::SocketAddr;
use std::path::Path;

use anyhow::Context as _;

use toolspec::auth::BearerTokens;
use toolspec::auth::{Authenticator, JwtAuthenticator, JwtBuilder};
use toolspec::http::HttpApi;
use toolspec::mcp::McpServer;
use toolspec::mcp::http::{self, HttpTransport};
use toolspec::rate::RateLimit;
use toolspec::{Caller, CancellationToken};
use toolspec_store::agent::route::AgentOptions;
use toolspec_store::tools;

use crate::{HttpLimitOptions, JwtOptions, ListingOptions};

/// The store's MCP server, as `caller` unless a transport says otherwise.
pub(crate) fn server(
    registry: impl Into<std::sync::Arc<toolspec::Registry>>,
    listing: ListingOptions,
    caller: Caller,
) -> McpServer {
    let server = McpServer::new(registry, caller)
        .with_server_info("toolspec-store", env!("CARGO_PKG_VERSION"))
        .with_list_ttl(std::time::Duration::from_secs(listing.list_ttl))
        .select(&listing.selection());
    match listing.page_size {
        Some(size) => server.with_page_size(size.into()),
        None => server,
    }
}

/// How `serve --http` serves.
pub(crate) struct HttpOptions<'a> {
    pub(crate) tokens: &'a Path,
    pub(crate) jwt: JwtOptions,
    pub(crate) allowed_hosts: Vec<String>,
    pub(crate) allowed_origins: Vec<String>,
    pub(crate) limits: HttpLimitOptions,
    /// How long a session's call waits for its client to answer a question.
    pub(crate) elicitation_timeout: std::time::Duration,
    pub(crate) agent: AgentOptions,
    pub(crate) docs: DocsOptions,
}

/// How `GET /docs`, the tool catalog page, is served.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct DocsOptions {
    /// HTTP only: `GET /docs` without a token answers the public catalog (the tools that need
    /// no scope) rather than 401, so that a browser can open it; a token still gets its
    /// caller's page.
    #[arg(long, requires = "http")]
    public_docs: bool,
    /// HTTP only: how many requests for `/docs` a minute each caller may make (in bursts of as
    /// many; callers without a token counted by address).
    #[arg(long, value_name = "N", default_value_t = toolspec::http::DOCS_RATE_LIMIT.calls, value_parser = clap::value_parser!(u32).range(1..), requires = "http")]
    docs_rate_limit: u32,
    /// HTTP only: where the catalog's curl examples send requests (default: `http://ADDR` of
    /// the listening address).
    #[arg(long, value_name = "URL", requires = "http")]
    docs_base_url: Option<String>,
}

impl DocsOptions {
    /// `api` serving `/docs` as these options say, at `local` unless a base URL is given.
    fn apply(&self, api: HttpApi, local: SocketAddr) -> HttpApi {
        let per_minute = RateLimit {
            calls: self.docs_rate_limit,
            burst: self.docs_rate_limit,
            ..toolspec::http::DOCS_RATE_LIMIT
        };
        let base_url = match &self.docs_base_url {
            Some(url) => url.clone(),
            None => format!("http://{local}"),
        };
        api.public_docs(self.public_docs)
            .docs_rate_limit(Some(per_minute))
            .docs_base_url(&base_url)
    }
}

/// Serves MCP over streamable HTTP at `/mcp` and the HTTP API at `/tools` on one address until
/// Ctrl-C or SIGTERM; every request must carry a bearer token: a JWT of the issuer when one is
/// named (`--issuer`, or the spec's `auth:`), else one of the tokens file.
pub(crate) async fn serve_http(
    registry: toolspec::Registry,
    listing: ListingOptions,
    addr: SocketAddr,
    options: HttpOptions<'_>,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .with_context(|| format!("could not listen on {addr}"))?;
    let local = listener.local_addr()?;
    let auth = &tools::PROJECT.auth;
    let issuer = options
        .jwt
        .issuer
        .clone()
        .or(auth.issuer.map(str::to_owned));
    match issuer {
        Some(issuer) => {
            let jwt = jwt_authenticator(&options.jwt, issuer, local)?;
            let resource = jwt
                .protected_resource()
                .map(|r| r.metadata_url().to_owned());
            eprintln!(
                "Bearer JWTs of {} for the audience {}",
                jwt.issuer(),
                jwt.audience()
            );
            if let Some(url) = resource {
                eprintln!("Protected resource metadata: {url}");
            }
            // The keys are fetched now rather than by the first call (a failure is logged,
            // and tried again when a token needs them).
            tokio::spawn({
                let jwt = jwt.clone();
                async move { jwt.refresh_keys().await }
            });
            serve_authenticated(registry, listing, listener, options, jwt).await
        }
        None => {
            let jwt = &options.jwt;
            let stray = [
                ("--audience", jwt.audience.is_some()),
                ("--resource", jwt.resource.is_some()),
                ("--jwks-url", jwt.jwks_url.is_some()),
            ];
            if let Some((flag, _)) = stray.iter().find(|(_, given)| *given) {
                anyhow::bail!(
                    "{flag} is for checking JWTs, which needs the issuer: give --issuer URL (or \
                     name it in the spec's auth:)"
                );
            }
            let path = options.tokens;
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("could not read the tokens file {}", path.display()))?;
            let tokens: BearerTokens = serde_json::from_str(&text)
                .with_context(|| format!("{} is not a valid tokens file", path.display()))?;
            serve_authenticated(registry, listing, listener, options, tokens).await
        }
    }
}

/// The JWT resource server `serve --http` checks tokens with: the spec's claims mapping and
/// scopes, the flags' issuer, audience, resource (by default the listening address) and keys.
fn jwt_authenticator(
    options: &JwtOptions,
    issuer: String,
    local: SocketAddr,
) -> anyhow::Result<JwtAuthenticator> {
    let auth = &tools::PROJECT.auth;
    let audience = options
        .audience
        .clone()
        .or(auth.audience.map(str::to_owned))
        .context("checking JWTs needs the audience they must name: give --audience")?;
    let resource = options
        .resource
        .clone()
        .unwrap_or_else(|| format!("http://{local}"));
    let mut builder = JwtBuilder::from_config(auth)
        .issuer(issuer)
        .audience(audience)
        .resource(resource);
    if let Some(url) = &options.jwks_url {
        builder = builder.jwks_url(url);
    }
    builder
        .build()
        .context("could not set up JWT authentication")
}

/// [`serve_http`] with its authenticator.
async fn serve_authenticated<A: Authenticator + Clone>(
    registry: toolspec::Registry,
    listing: ListingOptions,
    listener: tokio::net::TcpListener,
    options: HttpOptions<'_>,
    authenticator: A,
) -> anyhow::Result<()> {
    let HttpOptions {
        jwt,
        allowed_hosts,
        allowed_origins,
        limits,
        elicitation_timeout,
        agent,
        docs,
        ..
    } = options;
    let local = listener.local_addr()?;
    // Nobody calls anonymously over HTTP: the authenticator supplies every caller.
    let anonymous = Caller::new("anonymous").with_scopes(Vec::<String>::new());
    let registry = std::sync::Arc::new(registry);
    let missing_scope = jwt
        .on_missing_scope
        .unwrap_or(tools::PROJECT.auth.on_missing_scope);
    let api = HttpApi::new(std::sync::Arc::clone(&registry), anonymous.clone())
        .select(&listing.selection())
        .authenticator(authenticator.clone())
        .on_missing_scope(missing_scope)
        .max_body_bytes(limits.max_body_bytes);
    let api = docs.apply(api, local).router();
    // `POST /agent` (with `--model-url`): the agent acting as each request's caller.
    let agent = agent.router(&registry, authenticator.clone());
    let agent = agent?;
    let serving_agent = agent.is_some();
    let api = agent.into_iter().fold(api, |api, agent| api.merge(agent));
    let server = server(registry, listing, anonymous).with_elicitation_timeout(elicitation_timeout);
    let mut transport = HttpTransport::new(server)
        .with_routes(api)
        .authenticator(authenticator)
        .on_missing_scope(missing_scope)
        .connection_limits(limits.connections())
        .session_limits(limits.sessions())
        .max_body_bytes(limits.max_body_bytes)
        .allowed_origins(allowed_origins);
    if !allowed_hosts.is_empty() {
        let loopback = toolspec::gate::LOOPBACK_HOSTS
            .iter()
            .map(|h| (*h).to_owned());
        transport = transport.allowed_hosts(loopback.chain(allowed_hosts));
    }
    let shutdown = shutdown_signal();
    tracing::info!("serving MCP at http://{local}{}", http::PATH);
    eprintln!("MCP endpoint: http://{local}{}", http::PATH);
    eprintln!("HTTP API: http://{local}/tools");
    eprintln!("Tool catalog: http://{local}/docs");
    if serving_agent {
        eprintln!("Agent: http://{local}/agent");
    }
    transport.serve(listener, shutdown).await?;
    Ok(())
}

/// Cancelled on Ctrl-C or SIGTERM: the server then stops taking calls, answers those it has,
/// and writes the audit records still queued before the process exits.
pub(crate) fn shutdown_signal() -> CancellationToken {
    let shutdown = CancellationToken::new();
    tokio::spawn({
        let shutdown = shutdown.clone();
        async move {
            #[cfg(unix)]
            let terminate = async {
                use tokio::signal::unix::{SignalKind, signal};
                match signal(SignalKind::terminate()) {
                    Ok(mut terminate) => {
                        terminate.recv().await;
                    }
                    Err(_) => std::future::pending::<()>().await,
                }
            };
            #[cfg(not(unix))]
            let terminate = std::future::pending::<()>();
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                () = terminate => {}
            }
            tracing::info!("shutting down");
            shutdown.cancel();
        }
    });
    shutdown
}
