//! `tools/call` over MCP through toolspec's adapter, against the same tool written with rmcp's
//! own `#[tool]` macros, in one run: each server is this binary in a child process, driven by
//! rmcp's client over stdio, streamable HTTP with a session (2025-11-25) and stateless
//! streamable HTTP (2026-07-28), in alternating rounds, with each server's CPU time per call
//! (and the client's, this process's) and peak memory. Then 50 clients at once over each streamable HTTP transport against each
//! server (the shape of public MCP load tests: requests/s, mean and p99 latency, memory), and
//! the same calls from a lean raw-HTTP client (`lean`) whose own CPU stays out of the way. Over stdio a
//! third server is measured beside them, the floor (`floor`: a blocking serde-only loop). Then
//! `tools/list` of 10 to 5,000 tools (`listing`): in this process, whole and paged, and
//! served by a child process over each transport.
//!
//! ```text
//! cargo run --release -p toolspec-bench-mcp               # everything, default sizes
//! cargo run --release -p toolspec-bench-mcp -- --calls 500 # quicker
//! cargo run --release -p toolspec-bench-mcp -- --stdio-runtime current-thread
//! ```
//!
//! The tool (`catalog_quote`: sku, quantity, currency → total) does no I/O, so the figures are
//! the cost of the MCP layers: toolspec validates arguments and output against the schemas
//! and runs the invoker; the macro server deserializes with serde and validates nothing.

use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::{Parser, Subcommand, ValueEnum};
use futures_util::StreamExt;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, ClientConfig, ProtocolVersion, ServerCapabilities, ServerConfig,
};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{
    ClientServiceExt, Json, RoleClient, ServerHandler, ServiceExt, tool, tool_handler, tool_router,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use toolspec::mcp::McpServer;
use toolspec::mcp::http::{HttpTransport, SessionLimits};
use toolspec::{Caller, CancellationToken};

toolspec::include_tools!();

mod floor;
mod lean;
mod listing;

use tools::catalog::{order, quote};

#[derive(Debug, Parser)]
#[command(about = "MCP benchmark: toolspec's adapter vs an rmcp #[tool] macro server.")]
struct Cli {
    /// Sequential calls measured per server and transport.
    #[arg(long, default_value_t = 4000)]
    calls: usize,
    /// Rounds the calls are split into, alternating between the two servers.
    #[arg(long, default_value_t = 20)]
    rounds: usize,
    /// Calls kept in flight at once in the throughput run.
    #[arg(long, default_value_t = 16)]
    in_flight: usize,
    /// Tools in the `tools/list` measurements (one for each; `0`: none).
    #[arg(long, value_delimiter = ',', default_value = "10,100,1000,5000")]
    list_tools: Vec<usize>,
    /// Sessions at once in the many-clients run (0: none).
    #[arg(long, default_value_t = 50)]
    clients: usize,
    /// Calls each session makes in the many-clients run.
    #[arg(long, default_value_t = 200)]
    client_calls: usize,
    /// Calls per round from each group of clients (1, 16, 50) of the lean raw-HTTP client
    /// (0: no lean run).
    #[arg(long, default_value_t = 1000)]
    lean_calls: usize,
    /// Rounds of the lean run, alternating the servers.
    #[arg(long, default_value_t = 10)]
    lean_rounds: usize,
    /// Tools per page in the paged `tools/list` measurement.
    #[arg(long, default_value_t = 100)]
    page_size: usize,
    /// The tokio runtime both servers run on over stdio.
    #[arg(long, value_enum, default_value_t = Runtime::MultiThread)]
    stdio_runtime: Runtime,
    /// The transports the calls are measured over.
    #[arg(
        long,
        value_enum,
        value_delimiter = ',',
        default_value = "stdio,http-session,http-stateless"
    )]
    transports: Vec<Transport>,
    #[command(subcommand)]
    serve: Option<Serve>,
}

#[derive(Debug, Subcommand)]
enum Serve {
    /// Serve (what the driver starts in a child process).
    Serve {
        server: Server,
        /// Streamable HTTP on this address instead of stdio.
        #[arg(long)]
        http: Option<SocketAddr>,
        /// toolspec only: also this many copies of `catalog_quote` under their own names
        /// (a large catalog, for its listing).
        #[arg(long, default_value_t = 0)]
        tools: usize,
        /// The tokio runtime it serves on.
        #[arg(long, value_enum, default_value_t = Runtime::MultiThread)]
        runtime: Runtime,
    },
}

/// A tokio runtime's flavour: `#[tokio::main]`'s default, or one thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Runtime {
    MultiThread,
    CurrentThread,
}

impl Runtime {
    fn build(self) -> std::io::Result<tokio::runtime::Runtime> {
        let mut builder = match self {
            Self::MultiThread => tokio::runtime::Builder::new_multi_thread(),
            Self::CurrentThread => tokio::runtime::Builder::new_current_thread(),
        };
        builder.enable_all().build()
    }

    fn arg(self) -> &'static str {
        match self {
            Self::MultiThread => "multi-thread",
            Self::CurrentThread => "current-thread",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Server {
    Toolspec,
    Macros,
    /// stdio only: a blocking serde-only loop (`floor`).
    Floor,
}

impl Server {
    fn name(self) -> &'static str {
        match self {
            Self::Toolspec => "toolspec",
            Self::Macros => "rmcp macros",
            Self::Floor => "floor",
        }
    }

    fn arg(self) -> &'static str {
        match self {
            Self::Toolspec => "toolspec",
            Self::Macros => "macros",
            Self::Floor => "floor",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Transport {
    Stdio,
    HttpSession,
    HttpStateless,
}

impl Transport {
    fn name(self) -> &'static str {
        match self {
            Self::Stdio => "stdio",
            Self::HttpSession => "HTTP 2025-11-25",
            Self::HttpStateless => "HTTP 2026-07-28",
        }
    }

    /// The servers measured over it: the floor only over stdio.
    fn servers(self) -> &'static [Server] {
        match self {
            Self::Stdio => &[Server::Toolspec, Server::Macros, Server::Floor],
            _ => &[Server::Toolspec, Server::Macros],
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The tool, twice.

/// toolspec's handler for the spec'd tools.
struct Catalog;

impl quote::Handler for Catalog {
    async fn call(&self, input: quote::Input, _cx: quote::Context<'_>) -> quote::Outcome {
        let currency = match input.currency {
            quote::Currency::Eur => quote::OutputCurrency::Eur,
            quote::Currency::Usd => quote::OutputCurrency::Usd,
            quote::Currency::Gbp => quote::OutputCurrency::Gbp,
        };
        Ok(quote::Output {
            total: input.quantity * UNIT_PRICE,
            sku: input.sku,
            quantity: input.quantity,
            currency,
        })
    }
}

impl order::Handler for Catalog {
    async fn call(&self, input: order::Input, _cx: order::Context<'_>) -> order::Outcome {
        let lines: Vec<tools::types::Line> = input
            .lines
            .into_iter()
            .map(|line| tools::types::Line {
                price: tools::types::Money {
                    amount: line.quantity * UNIT_PRICE,
                    currency: tools::types::MoneyCurrency::Eur,
                },
                sku: line.sku,
                quantity: line.quantity,
            })
            .collect();
        let amount = lines.iter().map(|line| line.price.amount).sum();
        Ok(order::Output {
            lines,
            total: tools::types::Money {
                amount,
                currency: tools::types::MoneyCurrency::Eur,
            },
        })
    }

    async fn not_empty(&self, input: &order::Input, _cx: &order::Context<'_>) -> bool {
        !input.lines.is_empty()
    }
}

/// What one unit costs, in minor units, in every server.
const UNIT_PRICE: i64 = 1250;

/// The same tool with rmcp's macros, written the way its documentation shows.
mod macros {
    use rmcp::schemars::JsonSchema;
    use serde::{Deserialize, Serialize};

    #[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, JsonSchema)]
    #[schemars(crate = "rmcp::schemars")]
    pub enum Currency {
        #[default]
        #[serde(rename = "EUR")]
        Eur,
        #[serde(rename = "USD")]
        Usd,
        #[serde(rename = "GBP")]
        Gbp,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[schemars(crate = "rmcp::schemars")]
    pub struct QuoteRequest {
        /// Stock keeping unit.
        pub sku: String,
        pub quantity: i64,
        #[serde(default)]
        pub currency: Currency,
    }

    #[derive(Debug, Serialize, JsonSchema)]
    #[schemars(crate = "rmcp::schemars")]
    pub struct Quote {
        pub sku: String,
        pub quantity: i64,
        /// Minor units.
        pub total: i64,
        pub currency: Currency,
    }
}

#[derive(Debug, Clone)]
struct MacroServer {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl MacroServer {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        name = "catalog_quote",
        description = "Price a quantity of one product in a currency."
    )]
    async fn quote(
        &self,
        Parameters(request): Parameters<macros::QuoteRequest>,
    ) -> Result<Json<macros::Quote>, String> {
        Ok(Json(macros::Quote {
            total: request.quantity * UNIT_PRICE,
            sku: request.sku,
            quantity: request.quantity,
            currency: request.currency,
        }))
    }
}

// The router is built once and kept, as rmcp's examples do (the default rebuilds it per call).
#[tool_handler(router = self.tool_router)]
impl ServerHandler for MacroServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

/// The spec'd tools, and `copies` more of `catalog_quote` defined at run time.
fn toolspec_server(copies: usize) -> anyhow::Result<McpServer> {
    // `catalog_order` takes its customer from the caller's ambient context, which a server with
    // one fixed caller (stdio) must give before it starts.
    let ambient = serde_json::Map::from_iter([("customer_id".to_owned(), 1.into())]);
    let mut registry = tools::registry(Catalog);
    for (descriptor, _) in listing::many_tools(copies, &[&quote::DESCRIPTOR]) {
        registry = registry.with_tool(descriptor, |_, _| async { Ok(Value::Null) })?;
    }
    Ok(McpServer::new(
        registry,
        Caller::new("bench").with_ambient(ambient.into()),
    ))
}

// ---------------------------------------------------------------------------------------------
// Serving (child process).

async fn serve(server: Server, http: Option<SocketAddr>, copies: usize) -> anyhow::Result<()> {
    match (server, http) {
        (Server::Floor, _) => anyhow::bail!("the floor is served over stdio, without a runtime"),
        (Server::Toolspec, None) => Ok(toolspec_server(copies)?.serve_stdio().await?),
        (Server::Macros, None) => {
            MacroServer::new()
                .serve(rmcp::transport::stdio())
                .await?
                .waiting()
                .await?;
            Ok(())
        }
        (server, Some(addr)) => {
            let listener = tokio::net::TcpListener::bind(addr).await?;
            eprintln!("listening on http://{}/mcp", listener.local_addr()?);
            match server {
                Server::Toolspec => {
                    // The many-clients runs open up to 67 sessions from one (unauthenticated)
                    // caller.
                    let limits = SessionLimits {
                        max_sessions_per_caller: 128,
                        ..SessionLimits::DEFAULT
                    };
                    HttpTransport::new(toolspec_server(copies)?)
                        .session_limits(limits)
                        .serve(listener, CancellationToken::new())
                        .await?
                }
                Server::Macros => {
                    // rmcp's own transport, mounted the way rmcp's examples do, with the
                    // same TCP_NODELAY as ours.
                    use axum::serve::ListenerExt;
                    let service: StreamableHttpService<MacroServer, LocalSessionManager> =
                        StreamableHttpService::new(
                            || Ok(MacroServer::new()),
                            Arc::default(),
                            StreamableHttpServerConfig::default(),
                        );
                    let router = axum::Router::new().nest_service("/mcp", service);
                    let listener = listener.tap_io(|tcp| {
                        let _ = tcp.set_nodelay(true);
                    });
                    axum::serve(listener, router).await?
                }
                Server::Floor => unreachable!("refused above"),
            }
            Ok(())
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Driving (parent process).

type Client = RunningService<RoleClient, ClientConfig>;

/// A server in a child process and a client connected to it.
struct Connection {
    client: Client,
    _child: Option<tokio::process::Child>,
    /// The server process, for its CPU time.
    pid: Option<u32>,
}

/// The on-CPU time of every thread of process `pid` so far, from the scheduler's statistics
/// (`/proc/PID/task/*/schedstat`, in nanoseconds; Linux). `None` elsewhere.
fn cpu_time(pid: Option<u32>) -> Option<Duration> {
    let tasks = std::fs::read_dir(format!("/proc/{}/task", pid?)).ok()?;
    let nanos = tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("schedstat")).ok())
        .filter_map(|stat| stat.split_whitespace().next()?.parse::<u64>().ok())
        .sum();
    Some(Duration::from_nanos(nanos))
}

/// `server` (with `copies` more tools, toolspec only) in a child process, and a client of it
/// over `transport`.
async fn connect(
    server: Server,
    transport: Transport,
    copies: usize,
    stdio_runtime: Runtime,
) -> anyhow::Result<Connection> {
    let exe = std::env::current_exe()?;
    if transport == Transport::Stdio {
        let mut command = tokio::process::Command::new(exe);
        command.args(["serve", server.arg(), "--tools", &copies.to_string()]);
        command.args(["--runtime", stdio_runtime.arg()]);
        let (process, _) = TokioChildProcess::builder(command)
            .stderr(Stdio::inherit())
            .spawn()?;
        let pid = process.id();
        let client = ClientConfig::default().serve(process).await?;
        return Ok(Connection {
            client,
            _child: None,
            pid,
        });
    }
    let (child, url) = spawn_http(server, copies).await?;
    let client = http_client(&url, transport).await?;
    Ok(Connection {
        pid: child.id(),
        client,
        _child: Some(child),
    })
}

/// `server` over HTTP in a child process, and its URL.
async fn spawn_http(
    server: Server,
    copies: usize,
) -> anyhow::Result<(tokio::process::Child, String)> {
    let exe = std::env::current_exe()?;
    let mut child = tokio::process::Command::new(exe)
        .args(["serve", server.arg(), "--http", "127.0.0.1:0"])
        .args(["--tools", &copies.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let mut lines = BufReader::new(child.stderr.take().context("stderr")?).lines();
    let url = loop {
        let line = lines
            .next_line()
            .await?
            .context("the server exited before listening")?;
        if let Some(url) = line.strip_prefix("listening on ") {
            break url.trim().to_owned();
        }
    };
    Ok((child, url))
}

/// A client of the server at `url`, over `transport` (one of the HTTP ones).
async fn http_client(url: &str, transport: Transport) -> anyhow::Result<Client> {
    let http = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url),
    );
    Ok(match transport {
        Transport::HttpStateless => {
            let mut info = ClientConfig::default();
            info.protocol_version = ProtocolVersion::V_2026_07_28;
            info.serve_with_lifecycle(
                http,
                rmcp::ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await?
        }
        _ => ClientConfig::default().serve(http).await?,
    })
}

/// A memory figure of process `pid` from `/proc/PID/status` (`VmHWM`: the peak resident
/// memory so far; `VmRSS`: now), in MB.
fn memory_mb(pid: Option<u32>, field: &str) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{}/status", pid?)).ok()?;
    let line = status.lines().find(|l| {
        l.strip_prefix(field)
            .is_some_and(|rest| rest.starts_with(':'))
    })?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

// ---------------------------------------------------------------------------------------------
// Many clients at once, in the shape of public MCP load tests: `clients` clients over
// streamable HTTP, each making its calls one after another.

/// Requests per second, mean and p99 latency, server CPU per call and peak memory of `server`
/// under `clients` clients over `transport` making `calls` calls each.
async fn load(
    server: Server,
    transport: Transport,
    clients: usize,
    calls: usize,
) -> anyhow::Result<String> {
    let (child, url) = spawn_http(server, 0).await?;
    let pid = child.id();
    let mut sessions = Vec::new();
    for _ in 0..clients {
        let client = http_client(&url, transport).await?;
        for _ in 0..20 {
            call_once(&client).await?;
        }
        sessions.push(client);
    }
    let cpu_before = cpu_time(pid);
    let started = Instant::now();
    let timed = sessions.iter().map(|client| async move {
        let mut latencies = Vec::with_capacity(calls);
        for _ in 0..calls {
            let call = Instant::now();
            call_once(client).await?;
            latencies.push(call.elapsed());
        }
        anyhow::Ok(latencies)
    });
    let results = futures_util::future::join_all(timed).await;
    let elapsed = started.elapsed();
    let cpu = cpu_time(pid)
        .zip(cpu_before)
        .map(|(a, b)| a.saturating_sub(b));
    let mut latencies = Vec::new();
    for result in results {
        latencies.extend(result?);
    }
    latencies.sort_unstable();
    let total = latencies.len();
    let mean = latencies.iter().sum::<Duration>().as_secs_f64() / total as f64;
    let p99 = latencies[(total * 99 / 100).min(total - 1)].as_secs_f64();
    let row = format!(
        "{:<12} {:>10.0} {:>10.2} {:>10.2} {:>14} {:>10}",
        server.name(),
        total as f64 / elapsed.as_secs_f64(),
        mean * 1e3,
        p99 * 1e3,
        cpu.map_or("n/a".into(), |cpu| format!(
            "{:.0}",
            cpu.as_secs_f64() * 1e6 / total as f64
        )),
        memory_mb(pid, "VmHWM").map_or("n/a".into(), |mb| format!("{mb:.1}")),
    );
    for client in sessions {
        let _ = client.cancel().await;
    }
    drop(child);
    Ok(row)
}

/// The many-clients run over each HTTP transport `--transports` names.
async fn run_load(cli: &Cli) -> anyhow::Result<()> {
    let http = [Transport::HttpSession, Transport::HttpStateless];
    for transport in http.into_iter().filter(|t| cli.transports.contains(t)) {
        println!(
            "{} clients over streamable HTTP ({}) at once, {} sequential tools/call each; \
             two runs per server, alternated\n",
            cli.clients,
            transport.name(),
            cli.client_calls
        );
        println!(
            "{:<12} {:>10} {:>10} {:>10} {:>14} {:>10}",
            "server", "requests/s", "mean ms", "p99 ms", "CPU µs/call", "peak MB"
        );
        for _ in 0..2 {
            for server in [Server::Toolspec, Server::Macros] {
                let row = load(server, transport, cli.clients, cli.client_calls).await?;
                println!("{row}");
            }
        }
        println!();
    }
    Ok(())
}

fn quote_call() -> CallToolRequestParams {
    let Value::Object(arguments) = json!({ "sku": "MUG-001", "quantity": 3, "currency": "EUR" })
    else {
        unreachable!()
    };
    CallToolRequestParams::new("catalog_quote").with_arguments(arguments)
}

/// One call, checked: both servers must answer the same total.
async fn call_once(client: &Client) -> anyhow::Result<()> {
    let result = client.call_tool(quote_call()).await?;
    let total = result
        .structured_content
        .as_ref()
        .and_then(|s| s.get("total"))
        .and_then(Value::as_i64);
    anyhow::ensure!(
        result.is_error != Some(true) && total == Some(3 * UNIT_PRICE),
        "unexpected result: {result:?}"
    );
    Ok(())
}

/// What one server did over one transport, summed over the rounds.
#[derive(Debug, Default)]
struct Tally {
    /// The server's CPU time over the measured calls, if known.
    cpu: Option<Duration>,
    /// This process's (the client's) CPU time over the same calls.
    client_cpu: Duration,
    latencies: Vec<Duration>,
    sequential: Duration,
    sequential_calls: usize,
    concurrent: Duration,
    concurrent_calls: usize,
}

impl Tally {
    fn p(&mut self, percent: usize) -> Duration {
        self.latencies.sort_unstable();
        self.latencies[(self.latencies.len() * percent / 100).min(self.latencies.len() - 1)]
    }

    fn sequential_per_s(&self) -> f64 {
        self.sequential_calls as f64 / self.sequential.as_secs_f64()
    }

    fn concurrent_per_s(&self) -> f64 {
        self.concurrent_calls as f64 / self.concurrent.as_secs_f64()
    }

    /// The server's CPU time per measured call, in µs, if known.
    fn cpu_per_call(&self) -> Option<f64> {
        self.cpu.map(|cpu| self.per_call(cpu))
    }

    /// `time` spread over the measured calls, in µs.
    fn per_call(&self, time: Duration) -> f64 {
        let calls = self.sequential_calls + self.concurrent_calls;
        time.as_secs_f64() * 1e6 / calls as f64
    }
}

/// Throughputs of one round: `calls` sequential calls, then twice as many `in_flight` at once.
async fn round(
    client: &Client,
    calls: usize,
    in_flight: usize,
    tally: &mut Tally,
) -> anyhow::Result<(f64, f64)> {
    let client_before = cpu_time(Some(std::process::id())).unwrap_or_default();
    let started = Instant::now();
    for _ in 0..calls {
        let call = Instant::now();
        call_once(client).await?;
        tally.latencies.push(call.elapsed());
    }
    let sequential = started.elapsed();
    let total = calls * 2;
    let started = Instant::now();
    let results: Vec<anyhow::Result<()>> = futures_util::stream::iter(0..total)
        .map(|_| call_once(client))
        .buffer_unordered(in_flight)
        .collect()
        .await;
    let concurrent = started.elapsed();
    results.into_iter().collect::<anyhow::Result<()>>()?;
    let client_after = cpu_time(Some(std::process::id())).unwrap_or_default();
    tally.client_cpu += client_after.saturating_sub(client_before);
    tally.sequential += sequential;
    tally.sequential_calls += calls;
    tally.concurrent += concurrent;
    tally.concurrent_calls += total;
    Ok((
        calls as f64 / sequential.as_secs_f64(),
        total as f64 / concurrent.as_secs_f64(),
    ))
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

async fn run_calls(cli: &Cli) -> anyhow::Result<()> {
    let per_round = cli.calls.div_ceil(cli.rounds).max(1);
    println!(
        "tools/call catalog_quote, both servers connected at once and measured in {} alternating rounds \
         of {per_round} sequential calls, then {} with {} in flight (after 200 warm-up calls each)\n",
        cli.rounds,
        per_round * 2,
        cli.in_flight
    );
    println!(
        "{:<16} {:<12} {:>9} {:>9} {:>12} {:>14} {:>18} {:>18} {:>8}",
        "transport",
        "server",
        "p50 µs",
        "p99 µs",
        "seq calls/s",
        format!("{}-way calls/s", cli.in_flight),
        "server CPU µs/call",
        "client CPU µs/call",
        "peak MB"
    );
    for &transport in &cli.transports {
        let servers = transport.servers();
        let mut connections = Vec::new();
        for &server in servers {
            let connection = connect(server, transport, 0, cli.stdio_runtime)
                .await
                .with_context(|| format!("{} over {}", server.name(), transport.name()))?;
            for _ in 0..200 {
                call_once(&connection.client).await?;
            }
            connections.push(connection);
        }
        let mut tallies: Vec<Tally> = servers.iter().map(|_| Tally::default()).collect();
        let cpu_before = connections
            .iter()
            .map(|c| cpu_time(c.pid))
            .collect::<Vec<_>>();
        let (mut sequential_ratios, mut concurrent_ratios) = (Vec::new(), Vec::new());
        for r in 0..cli.rounds {
            // Rotate who goes first, so that drift in the machine's load hits all alike.
            let mut rates = vec![(0.0, 0.0); servers.len()];
            for k in 0..servers.len() {
                let i = (r + k) % servers.len();
                rates[i] = round(
                    &connections[i].client,
                    per_round,
                    cli.in_flight,
                    &mut tallies[i],
                )
                .await
                .with_context(|| format!("round {r} over {}", transport.name()))?;
            }
            sequential_ratios.push(rates[0].0 / rates[1].0);
            concurrent_ratios.push(rates[0].1 / rates[1].1);
        }
        for ((tally, connection), before) in tallies.iter_mut().zip(&connections).zip(cpu_before) {
            tally.cpu = cpu_time(connection.pid)
                .zip(before)
                .map(|(after, before)| after.saturating_sub(before));
        }
        for ((server, tally), connection) in servers.iter().zip(&mut tallies).zip(&connections) {
            println!(
                "{:<16} {:<12} {:>9.0} {:>9.0} {:>12.0} {:>14.0} {:>18} {:>18.1} {:>8}",
                transport.name(),
                server.name(),
                tally.p(50).as_secs_f64() * 1e6,
                tally.p(99).as_secs_f64() * 1e6,
                tally.sequential_per_s(),
                tally.concurrent_per_s(),
                tally
                    .cpu_per_call()
                    .map_or("n/a".into(), |cpu| format!("{cpu:.1}")),
                tally.per_call(tally.client_cpu),
                memory_mb(connection.pid, "VmHWM").map_or("n/a".into(), |mb| format!("{mb:.1}"))
            );
        }
        println!(
            "{:<16} {:<12} ratio toolspec/macros (throughput, median of rounds): sequential {:.2}, {}-way {:.2}",
            transport.name(),
            "",
            median(sequential_ratios),
            cli.in_flight,
            median(concurrent_ratios)
        );
        if let (Some(toolspec), Some(floor)) = (
            tallies[0].cpu_per_call(),
            servers
                .iter()
                .position(|&s| s == Server::Floor)
                .and_then(|i| tallies[i].cpu_per_call()),
        ) {
            println!(
                "{:<16} {:<12} server CPU per call, toolspec/floor: {:.2}",
                transport.name(),
                "",
                toolspec / floor
            );
        }
        println!();
        for connection in connections {
            let _ = connection.client.cancel().await;
        }
    }
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    if let Some(Serve::Serve {
        server,
        http,
        tools,
        runtime,
    }) = cli.serve
    {
        if server == Server::Floor && http.is_none() {
            return floor::serve();
        }
        return runtime.build()?.block_on(serve(server, http, tools));
    }
    Runtime::MultiThread.build()?.block_on(drive(cli))
}

/// The driver: starts the servers, measures, prints.
async fn drive(cli: Cli) -> anyhow::Result<()> {
    if cli.calls > 0 {
        run_calls(&cli).await?;
    }
    if cli.clients > 0 {
        run_load(&cli).await?;
    }
    if cli.lean_calls > 0 {
        lean::run(&cli.transports, cli.lean_calls, cli.lean_rounds.max(1)).await?;
    }
    let counts: Vec<usize> = cli.list_tools.iter().copied().filter(|&n| n > 0).collect();
    for &count in &counts {
        listing::run_list(count, cli.page_size)?;
    }
    if !counts.is_empty() {
        listing::run_served_lists(&counts).await?;
    }
    Ok(())
}
