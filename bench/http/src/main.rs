//! One tool call over HTTP, two ways: through toolspec's HTTP API (`toolspec::http::HttpApi`,
//! the tool generated from `specs/catalog/quote.yaml`) and through a hand-written axum handler
//! doing the same work with serde types (no schema validation). Each server is this binary in
//! a child process on loopback, both served by `axum::serve` on a multi-threaded tokio runtime;
//! a keep-alive client drives them in alternating rounds, and each server's CPU time comes from
//! `/proc` (the on-CPU nanoseconds of all its threads).
//!
//! Then `GET /tools` and `GET /openapi.json` of APIs of 10 to 5,000 tools (copies of the tool
//! defined at run time under their own names), answered in this process by the API's router:
//! the time to answer, which is server CPU.
//!
//! ```text
//! cargo run --release -p toolspec-bench-http               # default sizes
//! cargo run --release -p toolspec-bench-http -- --calls 2000
//! cargo run --release -p toolspec-bench-http -- --calls 0  # the listings only
//! ```

use std::net::SocketAddr;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::{Parser, Subcommand, ValueEnum};
use futures_util::StreamExt;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use toolspec::Caller;
use toolspec::http::HttpApi;

toolspec::include_tools!();

use tools::catalog::quote;

#[derive(Debug, Parser)]
#[command(about = "HTTP benchmark: toolspec's HTTP API vs a hand-written axum handler.")]
struct Cli {
    /// Sequential calls measured per server (split into the rounds).
    #[arg(long, default_value_t = 10_000)]
    calls: usize,
    /// Rounds the calls are split into, alternating between the two servers.
    #[arg(long, default_value_t = 20)]
    rounds: usize,
    /// Calls kept in flight at once in the concurrent part of each round.
    #[arg(long, default_value_t = 16)]
    in_flight: usize,
    /// How many tools the listed APIs have (one listing measured for each).
    #[arg(long, value_delimiter = ',', default_value = "10,100,1000,5000")]
    list_tools: Vec<usize>,
    #[command(subcommand)]
    serve: Option<Serve>,
}

#[derive(Debug, Subcommand)]
enum Serve {
    /// Serve on `addr` (what the driver starts in a child process).
    Serve { server: Server, addr: SocketAddr },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Server {
    Toolspec,
    Axum,
}

impl Server {
    fn name(self) -> &'static str {
        match self {
            Self::Toolspec => "toolspec HttpApi",
            Self::Axum => "axum handler",
        }
    }
}

const UNIT_PRICE: i64 = 1250;

const BODY: &str = r#"{"sku": "MUG-001", "quantity": 3, "currency": "EUR"}"#;

// ---------------------------------------------------------------------------------------------
// The tool, twice.

/// toolspec's handler for the spec'd tool.
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

/// The same tool as a plain axum handler: serde in, serde out, nothing checked.
mod by_hand {
    use serde::{Deserialize, Serialize};

    #[derive(Debug, Clone, Copy, Default, Serialize, Deserialize)]
    pub enum Currency {
        #[default]
        #[serde(rename = "EUR")]
        Eur,
        #[serde(rename = "USD")]
        Usd,
        #[serde(rename = "GBP")]
        Gbp,
    }

    #[derive(Debug, Deserialize)]
    pub struct QuoteRequest {
        pub sku: String,
        pub quantity: i64,
        #[serde(default)]
        pub currency: Currency,
    }

    #[derive(Debug, Serialize)]
    pub struct Quote {
        pub sku: String,
        pub quantity: i64,
        pub total: i64,
        pub currency: Currency,
    }

    pub async fn quote(axum::Json(request): axum::Json<QuoteRequest>) -> axum::Json<Quote> {
        axum::Json(Quote {
            total: request.quantity * super::UNIT_PRICE,
            sku: request.sku,
            quantity: request.quantity,
            currency: request.currency,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Serving (child process).

async fn serve(server: Server, addr: SocketAddr) -> anyhow::Result<()> {
    use axum::serve::ListenerExt;
    let router = match server {
        Server::Toolspec => HttpApi::new(tools::registry(Catalog), Caller::new("bench")).router(),
        Server::Axum => {
            axum::Router::new().route("/tools/catalog_quote", axum::routing::post(by_hand::quote))
        }
    };
    let listener = tokio::net::TcpListener::bind(addr).await?;
    eprintln!("listening on http://{}", listener.local_addr()?);
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router).await?;
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Driving (parent process).

/// A server in a child process.
struct Running {
    server: Server,
    url: String,
    pid: u32,
    _child: tokio::process::Child,
}

async fn start(server: Server) -> anyhow::Result<Running> {
    let which = match server {
        Server::Toolspec => "toolspec",
        Server::Axum => "axum",
    };
    let mut child = tokio::process::Command::new(std::env::current_exe()?)
        .args(["serve", which, "127.0.0.1:0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()?;
    let mut lines = BufReader::new(child.stderr.take().context("stderr")?).lines();
    let base = loop {
        let line = lines
            .next_line()
            .await?
            .context("the server exited before listening")?;
        if let Some(url) = line.strip_prefix("listening on ") {
            break url.trim().to_owned();
        }
    };
    Ok(Running {
        server,
        url: format!("{base}/tools/catalog_quote"),
        pid: child.id().context("the server's pid")?,
        _child: child,
    })
}

/// What a process has used so far.
#[derive(Debug, Clone, Copy, Default)]
struct Usage {
    /// On-CPU time, all threads.
    cpu: Duration,
    /// Times a thread was put on a CPU (wake-ups and preemptions).
    runs: u64,
}

impl std::ops::Sub for Usage {
    type Output = Self;

    fn sub(self, earlier: Self) -> Self {
        Self {
            cpu: self.cpu.saturating_sub(earlier.cpu),
            runs: self.runs.saturating_sub(earlier.runs),
        }
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, other: Self) {
        self.cpu += other.cpu;
        self.runs += other.runs;
    }
}

/// What process `pid` has used so far: the sums over its threads of
/// `/proc/PID/task/*/schedstat` (on-CPU nanoseconds, and how many times it ran). Linux only.
fn usage(pid: u32) -> Option<Usage> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut total = Usage::default();
    for task in tasks.flatten() {
        let stat = std::fs::read_to_string(task.path().join("schedstat")).ok()?;
        let mut fields = stat.split_whitespace().map(str::parse::<u64>);
        let (Some(Ok(ns)), Some(_), Some(Ok(runs))) = (fields.next(), fields.next(), fields.next())
        else {
            return None;
        };
        total.cpu += Duration::from_nanos(ns);
        total.runs += runs;
    }
    Some(total)
}

/// One call, checked: both servers must answer the same total.
async fn call_once(client: &reqwest::Client, url: &str) -> anyhow::Result<()> {
    let response = client
        .post(url)
        .header("content-type", "application/json")
        .body(BODY)
        .send()
        .await?;
    let status = response.status();
    let bytes = response.bytes().await?;
    let answer: Value = serde_json::from_slice(&bytes)?;
    anyhow::ensure!(
        status.is_success() && answer["total"] == 3 * UNIT_PRICE,
        "unexpected answer {status}: {answer}"
    );
    Ok(())
}

/// What one server did, summed over the rounds.
#[derive(Debug, Default)]
struct Tally {
    sequential_use: Usage,
    concurrent_use: Usage,
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

    fn per_call_us(usage: Usage, calls: usize) -> f64 {
        usage.cpu.as_secs_f64() * 1e6 / calls.max(1) as f64
    }

    fn runs_per_call(usage: Usage, calls: usize) -> f64 {
        usage.runs as f64 / calls.max(1) as f64
    }
}

/// One round on `server`: `calls` sequential calls on one kept-alive connection, then twice
/// as many with `in_flight` at once. Returns the server CPU per call of each part, in µs.
async fn round(
    client: &reqwest::Client,
    server: &Running,
    calls: usize,
    in_flight: usize,
    tally: &mut Tally,
) -> anyhow::Result<(f64, f64)> {
    let cpu = || usage(server.pid).context("the server's CPU time (/proc/PID/task/*/schedstat)");
    let before = cpu()?;
    let started = Instant::now();
    for _ in 0..calls {
        let call = Instant::now();
        call_once(client, &server.url).await?;
        tally.latencies.push(call.elapsed());
    }
    let sequential = started.elapsed();
    let middle = cpu()?;
    let total = calls * 2;
    let started = Instant::now();
    let results: Vec<anyhow::Result<()>> = futures_util::stream::iter(0..total)
        .map(|_| call_once(client, &server.url))
        .buffer_unordered(in_flight)
        .collect()
        .await;
    let concurrent = started.elapsed();
    let after = cpu()?;
    results.into_iter().collect::<anyhow::Result<()>>()?;
    let (sequential_cpu, concurrent_cpu) = (middle - before, after - middle);
    tally.sequential += sequential;
    tally.sequential_calls += calls;
    tally.sequential_use += sequential_cpu;
    tally.concurrent += concurrent;
    tally.concurrent_calls += total;
    tally.concurrent_use += concurrent_cpu;
    Ok((
        Tally::per_call_us(sequential_cpu, calls),
        Tally::per_call_us(concurrent_cpu, total),
    ))
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

async fn run(cli: &Cli) -> anyhow::Result<()> {
    let servers = [start(Server::Toolspec).await?, start(Server::Axum).await?];
    // One pool per server; each keeps its connections alive between calls.
    let clients: Vec<reqwest::Client> = servers
        .iter()
        .map(|_| reqwest::Client::builder().tcp_nodelay(true).build())
        .collect::<Result<_, _>>()?;
    for (server, client) in servers.iter().zip(&clients) {
        for _ in 0..500 {
            call_once(client, &server.url)
                .await
                .with_context(|| format!("warming up {}", server.server.name()))?;
        }
    }
    let per_round = cli.calls.div_ceil(cli.rounds).max(1);
    println!(
        "POST /tools/catalog_quote, {} alternating rounds of {per_round} sequential calls (one \
         kept-alive connection), then {} with {} in flight, after 500 warm-up calls each\n",
        cli.rounds,
        per_round * 2,
        cli.in_flight
    );
    let mut tallies = [Tally::default(), Tally::default()];
    let (mut sequential_ratios, mut concurrent_ratios) = (Vec::new(), Vec::new());
    for r in 0..cli.rounds {
        // Alternate who goes first, so that drift in the machine's load hits both alike.
        let order = if r % 2 == 0 { [0, 1] } else { [1, 0] };
        let mut cpu = [(0.0, 0.0); 2];
        for i in order {
            cpu[i] = round(
                &clients[i],
                &servers[i],
                per_round,
                cli.in_flight,
                &mut tallies[i],
            )
            .await
            .with_context(|| format!("round {r} on {}", servers[i].server.name()))?;
        }
        sequential_ratios.push(cpu[0].0 / cpu[1].0);
        concurrent_ratios.push(cpu[0].1 / cpu[1].1);
    }
    println!(
        "{:<17} {:>7} {:>7} {:>11} {:>11} {:>10} {:>10} {:>9} {:>9}",
        "server",
        "p50 µs",
        "p99 µs",
        "seq call/s",
        format!("{}-way /s", cli.in_flight),
        "CPU µs seq",
        format!("{}-way", cli.in_flight),
        "runs seq",
        format!("{}-way", cli.in_flight),
    );
    for (server, tally) in servers.iter().zip(&mut tallies) {
        let (seq, conc) = (tally.sequential_use, tally.concurrent_use);
        println!(
            "{:<17} {:>7.0} {:>7.0} {:>11.0} {:>11.0} {:>10.1} {:>10.1} {:>9.2} {:>9.2}",
            server.server.name(),
            tally.p(50).as_secs_f64() * 1e6,
            tally.p(99).as_secs_f64() * 1e6,
            tally.sequential_calls as f64 / tally.sequential.as_secs_f64(),
            tally.concurrent_calls as f64 / tally.concurrent.as_secs_f64(),
            Tally::per_call_us(seq, tally.sequential_calls),
            Tally::per_call_us(conc, tally.concurrent_calls),
            Tally::runs_per_call(seq, tally.sequential_calls),
            Tally::runs_per_call(conc, tally.concurrent_calls),
        );
    }
    let [ours, theirs] = &tallies;
    let overall = |ours: Usage, theirs: Usage| ours.cpu.as_secs_f64() / theirs.cpu.as_secs_f64();
    println!(
        "(CPU: the server's on-CPU time per call, all threads; runs: times one of its threads \
         was put on a CPU, per call)\n\nserver CPU per call, toolspec / axum (target ≤ 1.20): \
         sequential {:.2} (median of the rounds' ratios; {:.2} over all calls), {}-way {:.2} ({:.2})",
        median(sequential_ratios),
        overall(ours.sequential_use, theirs.sequential_use),
        cli.in_flight,
        median(concurrent_ratios),
        overall(ours.concurrent_use, theirs.concurrent_use),
    );
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    if let Some(Serve::Serve { server, addr }) = cli.serve {
        return serve(server, addr).await;
    }
    if cli.calls > 0 {
        run(&cli).await?;
    }
    for &count in &cli.list_tools {
        run_list(count).await?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Listings of many tools, in this process.

/// An API of `count` tools: copies of `catalog_quote` under their own names, defined at run
/// time (`Registry::with_tool`), which answer nothing (only their listing is measured).
fn many_tools(count: usize) -> anyhow::Result<toolspec::Registry> {
    use toolspec::descriptor::AdapterBinding;
    let mut registry = tools::registry(Catalog);
    for i in 0..count {
        let name: std::borrow::Cow<'static, str> = format!("catalog_quote_{i:04}").into();
        let adapters = vec![AdapterBinding::member("http")];
        let descriptor = toolspec::Descriptor::baked(toolspec::__private::DescriptorParts {
            name,
            adapters: adapters.into(),
            ..quote::DESCRIPTOR.clone().0
        });
        registry = registry.with_tool(descriptor, |_, _| async { Ok(Value::Null) })?;
    }
    Ok(registry)
}

/// Median and p99 of 200 answers to `GET path`, in milliseconds, and the body's size.
async fn timed_get(router: &axum::Router, path: &str) -> anyhow::Result<(f64, f64, usize)> {
    use tower::ServiceExt as _;
    let mut times = Vec::new();
    let mut bytes = 0;
    for _ in 0..200 {
        let request = axum::http::Request::get(path)
            .header("host", "localhost")
            .body(axum::body::Body::empty())?;
        let started = Instant::now();
        let response = router.clone().oneshot(request).await?;
        anyhow::ensure!(
            response.status().is_success(),
            "{path}: {}",
            response.status()
        );
        let body = axum::body::to_bytes(response.into_body(), usize::MAX).await?;
        times.push(started.elapsed().as_secs_f64() * 1e3);
        bytes = body.len();
    }
    times.sort_by(f64::total_cmp);
    Ok((times[times.len() / 2], times[times.len() * 99 / 100], bytes))
}

async fn run_list(count: usize) -> anyhow::Result<()> {
    let built = Instant::now();
    let router = HttpApi::new(many_tools(count)?, Caller::new("bench")).router();
    let built = built.elapsed();
    println!(
        "HTTP API of {} tools (built in {:.1} ms):",
        count + 1,
        built.as_secs_f64() * 1e3
    );
    for path in ["/tools", "/openapi.json"] {
        let (median, p99, bytes) = timed_get(&router, path).await?;
        println!(
            "  GET {path}: {} KB, median {median:.3} ms, p99 {p99:.3} ms",
            bytes / 1024
        );
    }
    Ok(())
}
