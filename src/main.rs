//! `toolspec-store` — the example store: a small order system over SQLite (or PostgreSQL) whose operations
//! are LLM-agent tools, compiled from the YAML specs in `specs/` by `build.rs`.
//!
//! ```text
//! toolspec-store tools                                      # list the tools
//! toolspec-store call orders_get '{"order_id": 1}' --as customer_id=1
//! toolspec-store explain orders_cancel '{"order": 4}' --as customer_id=1
//! toolspec-store --db shop.db init                          # drop, recreate and seed
//! toolspec-store --db postgres://localhost/shop tools       # any command, on PostgreSQL
//! toolspec-store serve --as customer_id=1                   # MCP over stdio
//! toolspec-store serve --http 127.0.0.1:8787                # MCP at /mcp, the HTTP API at /tools
//! toolspec-store serve --http 127.0.0.1:8787 --model-url http://localhost:11434/v1   # and POST /agent
//! toolspec-store serve --http 127.0.0.1:8787 --issuer https://auth.example.com --audience store
//!                                                           # the same, callers from JWTs
//! toolspec-store audit --tool orders_cancel --since 1h      # the recorded calls
//! toolspec-store call orders_export --task --wait --as customer_id=1   # as a durable task
//! toolspec-store tasks list                                 # the CLI's unfinished tasks
//! ```
//!
//! The database (`--db`, default `store.db` in the current directory) is created and
//! seeded on first use; `--db :memory:` gives a throwaway one, and a `postgres://` URL uses
//! that PostgreSQL database (its schema migrated and seeded on first use too).
//!
//! `call` exits with 0 when the tool succeeds, 1 when it fails (or the store cannot be
//! opened) and 2 on a usage error (unknown tool, arguments that are not JSON). `explain`
//! exits with 0 when the call could run and 1 when it could not.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use chrono::{DateTime, SecondsFormat, Utc};
use clap::{Parser, Subcommand};
use serde_json::Value;
use toolspec::audit::{AuditOutcome, AuditPage, AuditQuery, AuditState};
use toolspec::mcp::http::{ConnectionLimits, SessionLimits};
use toolspec::rate::RateLimit;
use toolspec::request_state::StateKeys;
use toolspec::{AmbientContext, CallOptions, Caller, Limits, MissingScope, Progress};

use toolspec_store::agent::route::AgentOptions;
use toolspec_store::{Location, Store, store, tools};

mod serve;
mod task_commands;

use serve::{DocsOptions, HttpOptions, serve_http, server, shutdown_signal};

#[derive(Debug, Parser)]
#[command(
    name = "toolspec-store",
    version,
    about = "The toolspec example store: order tools over SQLite or PostgreSQL."
)]
struct Cli {
    #[command(flatten)]
    database: DatabaseOptions,
    /// Also print the developer-facing exception and progress reports (on stderr).
    #[arg(long, short, global = true)]
    verbose: bool,
    #[command(subcommand)]
    command: Command,
}

/// Where the store's data lives, and how long a statement waits for it.
#[derive(Debug, Clone, clap::Args)]
struct DatabaseOptions {
    /// The database: a SQLite file, created and seeded on first use (`:memory:` for a
    /// throwaway one), or a `postgres://` URL, whose database is migrated and seeded on first
    /// use.
    #[arg(
        long,
        global = true,
        value_name = "PATH|URL",
        default_value = "store.db"
    )]
    db: Location,
    /// How many seconds a statement waits for a database connection (to connect, on
    /// PostgreSQL) before the database counts as unreachable: the call then answers
    /// `unavailable`, and while the database stays down calls that need it answer at once.
    #[arg(long, global = true, value_name = "SECONDS", default_value = "2", value_parser = seconds)]
    db_timeout: Duration,
}

// Parsed once per run: the size of `Serve` does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    /// List the tools, sorted by name, with their titles and adapters.
    Tools,
    /// Call a tool the way an agent would, with a trusted ambient context.
    Call {
        /// The tool's name (see `tools`).
        tool: String,
        /// The arguments, a JSON object.
        #[arg(default_value = "{}")]
        args: String,
        /// A trusted ambient context entry, e.g. `customer_id=1`; the value is read as JSON
        /// when it parses and as a string otherwise. Repeatable.
        #[arg(long = "as", value_name = "KEY=VALUE", value_parser = parse_ambient)]
        ambient: Vec<(String, Value)>,
        /// Store the call as a durable task (a tool whose spec says `task:`) and print it: a
        /// server's worker on the same database runs it.
        #[arg(long)]
        task: bool,
        /// With `--task`: run it in this process and print it once it ended.
        #[arg(long, requires = "task")]
        wait: bool,
    },
    /// Read and cancel durable tasks.
    Tasks {
        #[command(subcommand)]
        command: task_commands::TasksCommand,
        /// Whose tasks: the CLI's own (`cli`) unless given.
        #[arg(long, default_value = "cli", global = true)]
        caller: String,
    },
    /// Check whether a call could run (arguments and guards) without running it.
    Explain {
        /// The tool's name (see `tools`).
        tool: String,
        /// The arguments, a JSON object.
        #[arg(default_value = "{}")]
        args: String,
        /// A trusted ambient context entry, as for `call`. Repeatable.
        #[arg(long = "as", value_name = "KEY=VALUE", value_parser = parse_ambient)]
        ambient: Vec<(String, Value)>,
    },
    /// Drop, recreate and seed the database.
    Init,
    /// Read the audit trail: the recorded calls, newest first.
    Audit {
        /// Only calls of this tool.
        #[arg(long)]
        tool: Option<String>,
        /// Only calls by this caller (`cli` for `call`, a token's caller over HTTP…).
        #[arg(long)]
        caller: Option<String>,
        /// Only calls with this outcome: `ok`, `failed` or an error code.
        #[arg(long)]
        outcome: Option<AuditOutcome>,
        /// Only records in this state: `started` (recorded before the call ran, no outcome
        /// yet), `finished`, or `interrupted` (the process running it died first).
        #[arg(long)]
        state: Option<AuditState>,
        /// Only calls started at or after this time (RFC 3339, e.g. `2026-12-01T00:00:00Z`),
        /// or this long ago (`30m`, `2h`, `7d`).
        #[arg(long, value_name = "TIME|AGO", value_parser = parse_since)]
        since: Option<DateTime<Utc>>,
        /// At most this many records.
        #[arg(long, default_value_t = 20)]
        limit: u64,
        /// Print the page as JSON rather than one line per call.
        #[arg(long)]
        json: bool,
    },
    /// Serve the tools: MCP on stdin/stdout, or over HTTP — MCP at `/mcp` and the HTTP API at
    /// `/tools`.
    Serve {
        /// Serve streamable HTTP on this address instead of stdio, e.g. `127.0.0.1:8787`.
        #[arg(long, value_name = "ADDR")]
        http: Option<SocketAddr>,
        /// HTTP only: the bearer tokens file, mapping each token to a caller (`id`,
        /// `ambient`, `scopes`); not read when JWTs are checked (`--issuer`).
        #[arg(
            long,
            value_name = "PATH",
            default_value = "tokens.json",
            requires = "http",
            conflicts_with = "issuer"
        )]
        tokens: PathBuf,
        #[command(flatten)]
        jwt: JwtOptions,
        /// HTTP only: also accept this `Host` (default: loopback names only). Repeatable.
        #[arg(long = "allow-host", value_name = "HOST", requires = "http")]
        allowed_hosts: Vec<String>,
        /// HTTP only: also accept requests from pages of this origin, e.g.
        /// `https://app.example.com` (`:*` for any port; default: this machine's pages only).
        /// Repeatable.
        #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
        allowed_origins: Vec<String>,
        #[command(flatten)]
        http_limits: HttpLimitOptions,
        #[command(flatten)]
        docs: DocsOptions,
        #[command(flatten)]
        agent: AgentOptions,
        /// Stdio only: the caller's trusted ambient context entry, as for `call`. Repeatable.
        #[arg(long = "as", value_name = "KEY=VALUE", value_parser = parse_ambient, conflicts_with = "http")]
        ambient: Vec<(String, Value)>,
        /// Stdio only: the caller holds only these scopes (default: every scope). Repeatable.
        #[arg(long = "scope", value_name = "SCOPE", conflicts_with = "http")]
        scopes: Vec<String>,
        #[command(flatten)]
        listing: ListingOptions,
        #[command(flatten)]
        limits: LimitOptions,
        /// The keys request states are sealed with (`id:key,…`, each key 32 bytes in base64;
        /// the first seals, every one opens): the same on every replica. Without them, a key
        /// made for this process (refused on PostgreSQL, which replicas share).
        #[arg(long, env = "TOOLSPEC_REQUEST_STATE_KEYS", value_name = "ID:KEY,…", hide_env_values = true, value_parser = parse_state_keys)]
        request_state_keys: Option<StateKeys>,
    },
}

/// HTTP only: callers from JWT access tokens (an OAuth 2.1 resource server) instead of the
/// tokens file. The issuer and audience default to the spec's `auth:`.
#[derive(Debug, Clone, clap::Args)]
struct JwtOptions {
    /// HTTP only: accept JWT access tokens from this issuer (an `http(s)://` URL whose
    /// metadata names its keys) instead of the tokens file.
    #[arg(long, value_name = "URL", requires = "http")]
    issuer: Option<String>,
    /// HTTP only: the audience (`aud`) every token must name.
    #[arg(long, value_name = "AUD", requires = "http")]
    audience: Option<String>,
    /// HTTP only: this server's resource identifier, advertised in its protected resource
    /// metadata (default: `http://ADDR` of the listening address).
    #[arg(long, value_name = "URL", requires = "http")]
    resource: Option<String>,
    /// HTTP only: fetch the issuer's keys (JWKS) from this URL rather than where its metadata
    /// says.
    #[arg(long, value_name = "URL", requires = "http")]
    jwks_url: Option<String>,
    /// HTTP only: what a caller without a tool's scopes meets — `hide` (the tool is unknown to
    /// it) or `challenge` (it is listed, and a call answers 403 naming the scopes); default:
    /// the spec's `auth: { on_missing_scope }`.
    #[arg(long, value_name = "hide|challenge", value_parser = parse_missing_scope, requires = "http")]
    on_missing_scope: Option<MissingScope>,
}

/// Parses `--request-state-keys`.
fn parse_state_keys(text: &str) -> Result<StateKeys, String> {
    StateKeys::parse(text).map_err(|e| e.to_string())
}

/// Parses `--on-missing-scope`.
fn parse_missing_scope(word: &str) -> Result<MissingScope, String> {
    MissingScope::parse(word).ok_or_else(|| format!("`{word}` is neither `hide` nor `challenge`"))
}

/// What one call may cost (every transport).
#[derive(Debug, Clone, Copy, clap::Args)]
struct LimitOptions {
    /// The most argument errors one answer lists (the rest are counted).
    #[arg(long, value_name = "N", default_value_t = Limits::DEFAULT.max_errors)]
    max_errors: usize,
    /// The most JSON values one call's arguments may hold.
    #[arg(long, value_name = "N", default_value_t = Limits::DEFAULT.max_values)]
    max_values: usize,
    /// How deep one call's arguments may nest.
    #[arg(long, value_name = "N", default_value_t = Limits::DEFAULT.max_depth)]
    max_depth: usize,
    /// Lift every tool's rate limit (for load tests; the specs' `rate_limit` otherwise).
    #[arg(long)]
    no_rate_limit: bool,
    /// Keep each caller's rate budgets in the database, shared by every replica on it (a
    /// statement per call), rather than in this process.
    #[arg(long, conflicts_with = "no_rate_limit")]
    shared_rate_limits: bool,
    /// Each caller's budget of task requests (reading, listing and cancelling its tasks over
    /// MCP and the HTTP API): N a second, or N every SECONDS, in bursts of N (default: twice
    /// the unfinished tasks a caller may have, a second; `--no-rate-limit` lifts it).
    #[arg(long, value_name = "N[/SECONDS]", value_parser = parse_task_request_limit, conflicts_with = "no_rate_limit")]
    task_request_limit: Option<RateLimit>,
    /// How long a call of an MCP session (before protocol 2026-07-28) waits for its client to
    /// answer a question it asks its user (`elicitation/create`); then it counts as dismissed.
    #[arg(long, value_name = "SECONDS", value_parser = seconds, default_value = "120")]
    elicitation_timeout: Duration,
}

/// Parses `--task-request-limit` (`20`, `20/60`).
fn parse_task_request_limit(text: &str) -> Result<RateLimit, String> {
    let (calls, period) = text.split_once('/').unwrap_or((text, "1"));
    let calls = calls
        .trim()
        .parse::<u32>()
        .ok()
        .filter(|calls| *calls > 0)
        .ok_or_else(|| format!("`{calls}` is not a positive number of requests"))?;
    let period = seconds(period.trim())?;
    Ok(RateLimit {
        calls,
        period_ms: u64::try_from(period.as_millis()).unwrap_or(u64::MAX).max(1),
        burst: calls,
        in_flight: 0,
    })
}

impl LimitOptions {
    fn limits(self) -> Limits {
        Limits {
            max_errors: self.max_errors,
            max_values: self.max_values,
            max_depth: self.max_depth,
            ..Limits::DEFAULT
        }
    }
}

/// Bounds on HTTP connections and sessions (durations in seconds, fractions allowed).
#[derive(Debug, Clone, Copy, clap::Args)]
struct HttpLimitOptions {
    /// HTTP only: the most connections served at once (default: 1024, or what the open-file
    /// limit leaves).
    #[arg(long, value_name = "N", requires = "http")]
    max_connections: Option<usize>,
    /// HTTP only: how long a request's head may take to arrive (also how long a kept-alive
    /// connection waits for its next request).
    #[arg(long, value_name = "SECONDS", value_parser = seconds, default_value = "10", requires = "http")]
    header_timeout: Duration,
    /// HTTP only: how long a request's body may take to arrive.
    #[arg(long, value_name = "SECONDS", value_parser = seconds, default_value = "30", requires = "http")]
    request_timeout: Duration,
    /// HTTP only: how long a connection may make no progress while waiting on its client.
    #[arg(long, value_name = "SECONDS", value_parser = seconds, default_value = "60", requires = "http")]
    idle_timeout: Duration,
    /// HTTP only: the largest request body, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 4 << 20, requires = "http")]
    max_body_bytes: usize,
    /// HTTP only: the most sessions (clients before protocol 2026-07-28) open at once.
    #[arg(long, value_name = "N", default_value_t = SessionLimits::DEFAULT.max_sessions, requires = "http")]
    max_sessions: usize,
    /// HTTP only: the most sessions one caller may hold open.
    #[arg(long, value_name = "N", default_value_t = SessionLimits::DEFAULT.max_sessions_per_caller, requires = "http")]
    max_sessions_per_caller: usize,
    /// HTTP only: how long a new session may take to finish initializing.
    #[arg(long, value_name = "SECONDS", value_parser = seconds, default_value = "10", requires = "http")]
    session_init_timeout: Duration,
    /// HTTP only: how long a session may go unused before it is closed.
    #[arg(long, value_name = "SECONDS", value_parser = seconds, default_value = "300", requires = "http")]
    session_idle_timeout: Duration,
}

impl HttpLimitOptions {
    fn connections(&self) -> ConnectionLimits {
        ConnectionLimits {
            max_connections: self.max_connections,
            header_timeout: self.header_timeout,
            request_timeout: self.request_timeout,
            idle_timeout: self.idle_timeout,
            ..ConnectionLimits::DEFAULT
        }
    }

    fn sessions(&self) -> SessionLimits {
        SessionLimits {
            max_sessions: self.max_sessions,
            max_sessions_per_caller: self.max_sessions_per_caller,
            init_timeout: self.session_init_timeout,
            idle_timeout: self.session_idle_timeout,
        }
    }
}

/// Parses a number of seconds (`10`, `0.5`).
fn seconds(text: &str) -> Result<Duration, String> {
    text.parse::<f64>()
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("`{text}` is not a positive number of seconds"))
}

/// How `tools/list` answers, and which tools it lists.
#[derive(Debug, Clone, clap::Args)]
struct ListingOptions {
    /// Split `tools/list` into pages of this many tools (default: all in one result).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    page_size: Option<u16>,
    /// How many seconds clients may cache `tools/list` (`ttlMs`; default 0: re-fetch).
    #[arg(long, value_name = "SECONDS", default_value_t = 0)]
    list_ttl: u64,
    /// Serve only the tools of this module (a spec folder, e.g. `orders`), over MCP and the
    /// HTTP API (the built-in tools stay). Repeatable.
    #[arg(long = "module", value_name = "MODULE")]
    modules: Vec<String>,
    /// Serve only the tools with this tag (and of `--module`, when given). Repeatable.
    #[arg(long = "tag", value_name = "TAG")]
    tags: Vec<String>,
    /// A read-only deployment: serve only the tools that read (hinted `read_only`, query
    /// tools), their handlers on connections that may only read (calls are still recorded).
    #[arg(long)]
    read_only: bool,
}

impl ListingOptions {
    /// The tools `--module` and `--tag` select.
    fn selection(&self) -> toolspec::Selection {
        let selection = self
            .modules
            .iter()
            .fold(toolspec::Selection::all(), |s, m| s.in_module(m));
        self.tags.iter().fold(selection, |s, t| s.tagged(t))
    }
}

/// Logs to stderr (on stdio, stdout belongs to the MCP protocol): warnings, plus each tool
/// call when serving, plus everything of ours with `--verbose`.
fn init_logging(cli: &Cli) {
    use tracing::level_filters::LevelFilter;
    use tracing_subscriber::prelude::*;
    let ours = if cli.verbose {
        LevelFilter::DEBUG
    } else if matches!(cli.command, Command::Serve { .. }) {
        LevelFilter::INFO
    } else {
        LevelFilter::WARN
    };
    let filter = tracing_subscriber::filter::Targets::new()
        .with_default(LevelFilter::WARN)
        .with_target("toolspec", ours)
        .with_target("toolspec_store", ours);
    tracing_subscriber::registry()
        .with(
            tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(false),
        )
        .with(filter)
        .init();
}

/// Parses one `--as KEY=VALUE`.
fn parse_ambient(entry: &str) -> Result<(String, Value), String> {
    let (key, value) = entry
        .split_once('=')
        .ok_or_else(|| format!("`{entry}` is not KEY=VALUE"))?;
    let key = key.trim();
    if key.is_empty() {
        return Err(format!("`{entry}` has an empty key"));
    }
    let value = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_owned()));
    Ok((key.to_owned(), value))
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    // Logs go to stderr: on stdio, stdout belongs to the MCP protocol.
    init_logging(&cli);
    match run(cli).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Tools => {
            print!("{}", tool_listing());
            Ok(ExitCode::SUCCESS)
        }
        Command::Call {
            tool,
            args,
            ambient,
            task: true,
            wait,
        } => {
            let (args, ambient) = match request(&tool, &args, ambient) {
                Ok(request) => request,
                Err(code) => return Ok(code),
            };
            let store = open(&cli.database).await?;
            let registry = std::sync::Arc::new(toolspec_store::registry(store.clone()));
            let caller = Caller::new("cli");
            let submitted =
                task_commands::call_as_task(registry, &tool, args, &ambient, &caller, wait).await;
            store.close().await;
            submitted
        }
        Command::Call {
            tool,
            args,
            ambient,
            ..
        } => call(&cli.database, &tool, &args, ambient, cli.verbose).await,
        Command::Tasks { command, caller } => {
            let store = open(&cli.database).await?;
            let registry = toolspec_store::registry(store.clone());
            let ran = task_commands::run(&registry, command, &Caller::new(caller)).await;
            store.close().await;
            ran
        }
        Command::Explain {
            tool,
            args,
            ambient,
        } => explain(&cli.database, &tool, &args, ambient).await,
        Command::Serve {
            http,
            tokens,
            jwt,
            allowed_hosts,
            allowed_origins,
            http_limits,
            docs,
            agent,
            ambient,
            scopes,
            listing,
            limits,
            request_state_keys,
        } => {
            let mut store = open(&cli.database).await?;
            if listing.read_only {
                let reading = store.read_only().await;
                store = reading.context("could not open the store to read only")?;
            }
            let registry = toolspec_store::registry(store.clone()).with_limits(limits.limits());
            let registry = match listing.read_only {
                true => registry.read_only(),
                false => registry,
            };
            let registry = match (limits.no_rate_limit, limits.shared_rate_limits) {
                (true, _) => registry.with_rate_limit(None).with_task_request_limit(None),
                (false, true) => registry.with_shared_rate_limits(),
                (false, false) => registry,
            };
            let registry = match limits.task_request_limit {
                Some(limit) => registry.with_task_request_limit(Some(limit)),
                None => registry,
            };
            let registry = match request_state_keys {
                Some(keys) => registry.with_request_state_keys(keys),
                None => registry,
            };
            if let Err(e) = registry.check_request_state_keys() {
                eprintln!(
                    "error: {e}: pass --request-state-keys or set TOOLSPEC_REQUEST_STATE_KEYS"
                );
                store.close().await;
                return Ok(ExitCode::from(2));
            }
            // What a crash of an earlier process left without an outcome is closed now.
            if let Some(trail) = registry.audit() {
                match trail.reconcile().await {
                    Ok(0) => {}
                    Ok(count) => eprintln!(
                        "{count} recorded calls were left without an outcome by a process that \
                         died: they are `interrupted` now (`audit --state interrupted`)"
                    ),
                    Err(e) => eprintln!("warning: could not look for interrupted calls: {e}"),
                }
            }
            let served = match http {
                Some(addr) => {
                    let options = HttpOptions {
                        tokens: &tokens,
                        jwt,
                        allowed_hosts,
                        allowed_origins,
                        limits: http_limits,
                        elicitation_timeout: limits.elicitation_timeout,
                        agent,
                        docs,
                    };
                    serve_http(registry, listing, addr, options).await
                }
                None => {
                    let mut caller =
                        Caller::new("stdio").with_ambient(ambient.into_iter().collect());
                    if !scopes.is_empty() {
                        caller = caller.with_scopes(scopes);
                    }
                    server(registry, listing, caller)
                        .with_elicitation_timeout(limits.elicitation_timeout)
                        .serve_stdio_until(shutdown_signal())
                        .await
                        .map_err(Into::into)
                }
            };
            store.close().await;
            served.map(|()| ExitCode::SUCCESS)
        }
        Command::Audit {
            tool,
            caller,
            outcome,
            state,
            since,
            limit,
            json,
        } => {
            let query = AuditQuery {
                tool,
                caller,
                outcome,
                state,
                since,
                limit,
                ..AuditQuery::default()
            };
            let store = open(&cli.database).await?;
            let page = query
                .read(&store.database())
                .await
                .map_err(anyhow::Error::msg)
                .context("could not read the audit trail")?;
            store.close().await;
            if json {
                println!("{}", serde_json::to_string_pretty(&page)?);
            } else {
                print!("{}", audit_listing(&page));
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Init => {
            let store = open(&cli.database).await?;
            store
                .reset()
                .await
                .with_context(|| format!("could not reset {}", cli.database.db))?;
            store.close().await;
            let (customers, products, orders) = store::SEED_COUNTS;
            println!(
                "Seeded {}: {customers} customers, {products} products, {orders} orders.",
                cli.database.db
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// One line per tool: name, title and the adapters it is a member of, in aligned columns.
///
/// The listing reads the generated descriptors — the same statics the registry serves —
/// so listing needs no database.
fn tool_listing() -> String {
    let mut descriptors: Vec<_> = tools::TOOLS.to_vec();
    descriptors.sort_by_key(|d| &*d.name);
    let title = |d: &'static toolspec::Descriptor| d.title.as_deref().unwrap_or("");
    let name_width = descriptors.iter().map(|d| d.name.len()).max().unwrap_or(0);
    let title_width = descriptors
        .iter()
        .map(|d| title(d).len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for d in descriptors {
        let adapters: Vec<&str> = d.adapters.iter().map(|b| &*b.adapter).collect();
        out += &format!(
            "{:name_width$}  {:title_width$}  [{}]\n",
            d.name,
            title(d),
            adapters.join(", ")
        );
    }
    out
}

/// One line per record: when, how long, the tool, who through what, the outcome, the
/// arguments; then how many of how many were shown.
fn audit_listing(page: &AuditPage) -> String {
    let mut out = String::new();
    for r in &page.records {
        let by = match (&r.caller, &r.adapter) {
            (Some(caller), Some(adapter)) => format!("{caller} via {adapter}"),
            (Some(caller), None) => caller.clone(),
            (None, Some(adapter)) => format!("via {adapter}"),
            (None, None) => "-".to_owned(),
        };
        let took = format!("{:.1}ms", r.duration_us as f64 / 1000.0);
        // A call with no outcome shows where it stands instead; a record of refusals counted
        // together, how many.
        let mut outcome = r.outcome.as_deref().unwrap_or(r.state.as_str()).to_owned();
        if r.calls > 1 {
            outcome += &format!(" (×{})", r.calls);
        }
        out += &format!(
            "{}  {took:>9}  {}  {by}  {outcome}  {}\n",
            r.started_at.to_rfc3339_opts(SecondsFormat::Millis, true),
            r.tool,
            r.arguments
        );
    }
    out += &format!("{} of {} recorded calls\n", page.records.len(), page.total);
    out
}

/// `--since`: an RFC 3339 time, or a duration ago (`30m`, `2h`, `7d`).
fn parse_since(text: &str) -> Result<DateTime<Utc>, String> {
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Ok(at.to_utc());
    }
    let (number, unit) = text.split_at(text.trim_end_matches(char::is_alphabetic).len());
    let seconds = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => 0,
    };
    let ago = number
        .parse::<i64>()
        .ok()
        .filter(|_| seconds > 0)
        .and_then(|n| n.checked_mul(seconds))
        .and_then(chrono::TimeDelta::try_seconds)
        .ok_or_else(|| format!("`{text}` is neither an RFC 3339 time nor a duration like `2h`"))?;
    Ok(Utc::now() - ago)
}

/// Checks the tool name, parses the arguments and gathers the `--as` entries before any
/// database work; `Err` is the exit code of a usage error (already reported).
fn request(
    tool: &str,
    args: &str,
    ambient: Vec<(String, Value)>,
) -> Result<(Value, AmbientContext), ExitCode> {
    let known = tools::TOOLS
        .iter()
        .copied()
        .chain([&tools::EXPLAIN])
        .any(|d| d.name == tool);
    if !known {
        let names: Vec<&str> = tools::TOOLS.iter().map(|d| &*d.name).collect();
        eprintln!(
            "error: there is no tool `{tool}`; the tools are: {}, {}",
            names.join(", "),
            tools::EXPLAIN.name
        );
        return Err(ExitCode::from(2));
    }
    let args = serde_json::from_str(args).map_err(|e| {
        eprintln!("error: the arguments for `{tool}` are not valid JSON ({e}): {args}");
        ExitCode::from(2)
    })?;
    Ok((args, ambient.into_iter().collect()))
}

async fn explain(
    database: &DatabaseOptions,
    tool: &str,
    args: &str,
    ambient: Vec<(String, Value)>,
) -> anyhow::Result<ExitCode> {
    let (args, ambient) = match request(tool, args, ambient) {
        Ok(request) => request,
        Err(code) => return Ok(code),
    };
    let store = open(database).await?;
    let registry = toolspec_store::registry(store.clone());
    let explanation = registry.explain(tool, args, &ambient).await?;
    registry.flush_audit().await;
    store.close().await;
    println!("{}", serde_json::to_string_pretty(&explanation)?);
    Ok(if explanation.callable {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

async fn call(
    database: &DatabaseOptions,
    tool: &str,
    args: &str,
    ambient: Vec<(String, Value)>,
    verbose: bool,
) -> anyhow::Result<ExitCode> {
    let (args, ambient) = match request(tool, args, ambient) {
        Ok(request) => request,
        Err(code) => return Ok(code),
    };

    let store = open(database).await?;
    let registry = toolspec_store::registry(store.clone());
    let Some(registered) = registry.get(tool) else {
        anyhow::bail!("tool `{tool}` is described but not registered");
    };
    let progress = if verbose {
        Progress::new(|update| {
            eprintln!(
                "progress: {:>3.0}% {}",
                update.fraction * 100.0,
                update.message
            );
        })
    } else {
        Progress::ignore()
    };
    let options = CallOptions {
        caller: Some("cli".into()),
        progress,
        ..CallOptions::default()
    };
    let result = registered.invoke_with(args, &ambient, options).await;
    registry.flush_audit().await;
    store.close().await;

    println!("{}", serde_json::to_string_pretty(&result.to_model_json())?);
    if verbose && let Some(exception) = &result.exception {
        eprintln!("exception: {exception}");
    }
    match result.error() {
        None => Ok(ExitCode::SUCCESS),
        Some(error) => {
            eprintln!("error [{}]: {}", error.code, error.message);
            if error.code == toolspec::Code::TaskRequired {
                eprintln!("hint: call it with `--task` (and `--wait` to wait for its result)");
            }
            Ok(ExitCode::FAILURE)
        }
    }
}

async fn open(database: &DatabaseOptions) -> anyhow::Result<Store> {
    Store::open_with_timeout(&database.db, database.db_timeout)
        .await
        .context("could not open the store")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn ambient_entries_parse_as_json_or_strings() {
        assert_eq!(
            parse_ambient("customer_id=1"),
            Ok(("customer_id".into(), json!(1)))
        );
        assert_eq!(parse_ambient("vip=true"), Ok(("vip".into(), json!(true))));
        assert_eq!(
            parse_ambient("tenant=acme"),
            Ok(("tenant".into(), json!("acme")))
        );
        assert_eq!(parse_ambient("note=a=b"), Ok(("note".into(), json!("a=b"))));
        assert_eq!(parse_ambient("empty="), Ok(("empty".into(), json!(""))));
        assert!(parse_ambient("customer_id").is_err());
        assert!(parse_ambient("=1").is_err());
    }

    #[test]
    fn the_tool_listing_is_sorted_and_aligned() {
        let listing = crate::tool_listing();
        let lines: Vec<&str> = listing.lines().collect();
        assert_eq!(lines.len(), 8);
        assert_eq!(
            lines[1],
            "orders_cancel  Cancel order     [anthropic, gemini, http, mcp, openai, rig]"
        );
        assert_eq!(
            lines[5],
            "orders_refund  Refund order     [anthropic, gemini, mcp, openai, rig]"
        );
    }
}
