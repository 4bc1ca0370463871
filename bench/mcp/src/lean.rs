//! A lean load generator for the HTTP transports: raw HTTP/1.1 on kept-alive connections, each
//! request's bytes written once before the run, each answer read to its end (JSON by its
//! length, SSE to its last chunk) and checked for the expected total. rmcp's client spends more
//! CPU per call than either server and shares the two cores with them, which holds both
//! servers' throughput near the client's; this one spends a fraction of that, so that what the
//! servers differ in shows in throughput.
//!
//! Each client is a connection (with a session of its own over 2025-11-25) making its calls one
//! after another: one client, 8, 16 (16 calls in flight), 50 at once; servers alternated
//! round by round; server CPU from `/proc`, the client's (this process's) too.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::{Server, Transport, UNIT_PRICE, cpu_time, median, memory_mb, spawn_http};

/// One client: a kept-alive connection, and what it has read but not yet used.
struct Conn {
    stream: TcpStream,
    read: Vec<u8>,
    /// The request it sends, whole.
    call: Vec<u8>,
}

impl Conn {
    /// A connection to `address` for `transport`: a session opened first over 2025-11-25.
    async fn open(address: &str, transport: Transport) -> anyhow::Result<Self> {
        let stream = TcpStream::connect(address).await?;
        stream.set_nodelay(true)?;
        let mut conn = Self {
            stream,
            read: Vec::new(),
            call: Vec::new(),
        };
        let session = match transport {
            Transport::HttpSession => Some(conn.open_session(address).await?),
            _ => None,
        };
        conn.call = call_request(address, transport, session.as_deref());
        Ok(conn)
    }

    /// `initialize` and `notifications/initialized`: the session's id.
    async fn open_session(&mut self, address: &str) -> anyhow::Result<String> {
        let initialize = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": { "name": "lean", "version": "0" },
            },
        });
        let request = post(address, &[], &initialize.to_string());
        let (head, _) = self.exchange(&request).await?;
        let session = head
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("mcp-session-id")
                    .then(|| value.trim().to_owned())
            })
            .context("no session id")?;
        let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        let headers = session_headers(&session);
        let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
        let request = post(address, &headers, &initialized.to_string());
        self.exchange(&request).await?;
        Ok(session)
    }

    /// One call, its answer checked.
    async fn call(&mut self) -> anyhow::Result<()> {
        let call = std::mem::take(&mut self.call);
        let answered = self.exchange(&call).await;
        self.call = call;
        let (_, body) = answered?;
        let expected = format!("\"total\":{}", 3 * UNIT_PRICE);
        anyhow::ensure!(
            memchr::memmem::find(&body, expected.as_bytes()).is_some(),
            "unexpected answer: {}",
            String::from_utf8_lossy(&body)
        );
        Ok(())
    }

    /// `request` written, its answer read whole: the head, and the body (chunks joined).
    async fn exchange(&mut self, request: &[u8]) -> anyhow::Result<(String, Vec<u8>)> {
        self.stream.write_all(request).await?;
        let end = loop {
            if let Some(end) = memchr::memmem::find(&self.read, b"\r\n\r\n") {
                break end;
            }
            self.fill().await?;
        };
        let head = String::from_utf8_lossy(&self.read[..end]).into_owned();
        self.read.drain(..end + 4);
        let header = |name: &str| {
            head.lines().find_map(|line| {
                let (n, v) = line.split_once(':')?;
                n.eq_ignore_ascii_case(name).then(|| v.trim().to_owned())
            })
        };
        let body = match header("content-length") {
            Some(length) => {
                let length: usize = length.parse()?;
                while self.read.len() < length {
                    self.fill().await?;
                }
                self.read.drain(..length).collect()
            }
            None if header("transfer-encoding").is_some_and(|v| v == "chunked") => {
                self.chunks().await?
            }
            None => Vec::new(),
        };
        Ok((head, body))
    }

    /// A chunked body, to its last chunk.
    async fn chunks(&mut self) -> anyhow::Result<Vec<u8>> {
        let mut body = Vec::new();
        loop {
            let line = loop {
                if let Some(line) = memchr::memmem::find(&self.read, b"\r\n") {
                    break line;
                }
                self.fill().await?;
            };
            let size_text = std::str::from_utf8(&self.read[..line])?;
            let size_text = size_text.split(';').next().unwrap_or_default().trim();
            let size = usize::from_str_radix(size_text, 16)?;
            while self.read.len() < line + 2 + size + 2 {
                self.fill().await?;
            }
            body.extend_from_slice(&self.read[line + 2..line + 2 + size]);
            self.read.drain(..line + 2 + size + 2);
            if size == 0 {
                return Ok(body);
            }
        }
    }

    async fn fill(&mut self) -> anyhow::Result<()> {
        let mut chunk = [0; 16 * 1024];
        let n = self.stream.read(&mut chunk).await?;
        anyhow::ensure!(n > 0, "the server closed the connection");
        self.read.extend_from_slice(&chunk[..n]);
        Ok(())
    }
}

fn session_headers(session: &str) -> Vec<String> {
    vec![
        format!("Mcp-Session-Id: {session}"),
        "MCP-Protocol-Version: 2025-11-25".to_owned(),
    ]
}

/// A `POST /mcp` to `address` with `headers` and `body`, kept alive.
fn post(address: &str, headers: &[&str], body: &str) -> Vec<u8> {
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\n",
        body.len()
    );
    for header in headers {
        request += header;
        request += "\r\n";
    }
    request += "\r\n";
    request += body;
    request.into_bytes()
}

/// The `tools/call` of `catalog_quote` the bench makes, as `transport` sends it.
fn call_request(address: &str, transport: Transport, session: Option<&str>) -> Vec<u8> {
    let mut params = json!({
        "name": "catalog_quote",
        "arguments": { "sku": "MUG-001", "quantity": 3, "currency": "EUR" },
    });
    let mut headers = Vec::new();
    match (transport, session) {
        (Transport::HttpSession, Some(session)) => headers = session_headers(session),
        _ => {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            });
            headers.extend([
                "MCP-Protocol-Version: 2026-07-28".to_owned(),
                "Mcp-Method: tools/call".to_owned(),
                "Mcp-Name: catalog_quote".to_owned(),
            ]);
        }
    }
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params });
    let headers: Vec<&str> = headers.iter().map(String::as_str).collect();
    post(address, &headers, &body.to_string())
}

/// `calls` calls on each of `conns` at once: the calls per second, and each call's latency
/// added to `latencies`.
async fn drive(
    conns: &mut [Conn],
    calls: usize,
    latencies: &mut Vec<Duration>,
) -> anyhow::Result<f64> {
    let started = Instant::now();
    let driven = conns.iter_mut().map(|conn| async move {
        let mut latencies = Vec::with_capacity(calls);
        for _ in 0..calls {
            let call = Instant::now();
            conn.call().await?;
            latencies.push(call.elapsed());
        }
        anyhow::Ok(latencies)
    });
    for driven in futures_util::future::join_all(driven).await {
        latencies.extend(driven?);
    }
    Ok((conns.len() * calls) as f64 / started.elapsed().as_secs_f64())
}

/// One server's connections: a group of each size in [`CLIENTS`].
struct Served {
    _child: tokio::process::Child,
    pid: Option<u32>,
    groups: [Vec<Conn>; GROUPS],
    /// Throughputs of each group, round by round; server and client CPU over them.
    rates: [Vec<f64>; GROUPS],
    /// The latencies of each group's calls.
    latencies: [Vec<Duration>; GROUPS],
    cpu: Duration,
    client_cpu: Duration,
    calls: usize,
}

/// How many clients call at once in each group: one after another, 8 clients, 16 in flight,
/// 50 clients.
const CLIENTS: [usize; GROUPS] = [1, 8, 16, 50];
const GROUPS: usize = 4;

/// The lean run over each HTTP transport `transports` names: `rounds` rounds, each giving
/// every server `calls` calls from each group of clients in [`CLIENTS`].
pub(crate) async fn run(
    transports: &[Transport],
    calls: usize,
    rounds: usize,
) -> anyhow::Result<()> {
    let http = [Transport::HttpSession, Transport::HttpStateless];
    for transport in http.into_iter().filter(|t| transports.contains(t)) {
        println!(
            "tools/call catalog_quote from a lean raw-HTTP client over {} (kept-alive \
             connections; {CLIENTS:?} clients), {rounds} rounds alternating the servers\n",
            transport.name()
        );
        let mut served = Vec::new();
        for server in [Server::Toolspec, Server::Macros] {
            let (child, url) = spawn_http(server, 0).await?;
            let address = url
                .trim_start_matches("http://")
                .trim_end_matches("/mcp")
                .to_owned();
            let mut groups: [Vec<Conn>; GROUPS] = Default::default();
            for (group, &clients) in groups.iter_mut().zip(&CLIENTS) {
                for _ in 0..clients {
                    let mut conn = Conn::open(&address, transport).await?;
                    conn.call().await?; // warm
                    group.push(conn);
                }
            }
            served.push(Served {
                pid: child.id(),
                _child: child,
                groups,
                rates: Default::default(),
                latencies: Default::default(),
                cpu: Duration::ZERO,
                client_cpu: Duration::ZERO,
                calls: 0,
            });
        }
        let mut ratios: [Vec<f64>; GROUPS] = Default::default();
        for _ in 0..rounds {
            let mut round = [[0.0; GROUPS]; 2];
            for (s, served) in served.iter_mut().enumerate() {
                let (cpu, client) = (cpu_time(served.pid), cpu_time(Some(std::process::id())));
                for (g, &clients) in CLIENTS.iter().enumerate() {
                    let per_client = (calls / clients).max(1);
                    let latencies = &mut served.latencies[g];
                    let rate = drive(&mut served.groups[g], per_client, latencies).await?;
                    served.rates[g].push(rate);
                    served.calls += per_client * clients;
                    round[s][g] = rate;
                }
                let after = cpu_time(served.pid).zip(cpu);
                served.cpu += after.map_or(Duration::ZERO, |(a, b)| a.saturating_sub(b));
                let client_after = cpu_time(Some(std::process::id())).zip(client);
                served.client_cpu += client_after.map_or(Duration::ZERO, |(a, b)| a - b);
            }
            for (g, ratios) in ratios.iter_mut().enumerate() {
                ratios.push(round[0][g] / round[1][g]);
            }
        }
        let mut header = format!("{:<16} {:<12}", "transport", "server");
        for clients in CLIENTS {
            header += &format!(" {:>12}", format!("{clients} client/s"));
        }
        println!(
            "{header} {:>18} {:>18}",
            "server CPU µs/call", "client CPU µs/call"
        );
        for (served, server) in served.iter().zip(["toolspec", "rmcp macros"]) {
            let per_call = |time: Duration| time.as_secs_f64() * 1e6 / served.calls as f64;
            let mut row = format!("{:<16} {:<12}", transport.name(), server);
            for rates in &served.rates {
                row += &format!(" {:>12.0}", median(rates.clone()));
            }
            println!(
                "{row} {:>18.1} {:>18.1}",
                per_call(served.cpu),
                per_call(served.client_cpu)
            );
        }
        let mut ratio = format!(
            "{:<16} ratio toolspec/macros (median of rounds):",
            transport.name()
        );
        for (clients, ratios) in CLIENTS.iter().zip(&ratios) {
            ratio += &format!(" {clients} client(s) {:.2},", median(ratios.clone()));
        }
        for (served, server) in served.iter_mut().zip(["toolspec", "rmcp macros"]) {
            let mut line = format!("{:<16} {server:<12} p50/p99:", transport.name());
            for (latencies, clients) in served.latencies.iter_mut().zip(CLIENTS) {
                latencies.sort_unstable();
                let at = |permille: usize| {
                    let i = (latencies.len() * permille / 1000).min(latencies.len() - 1);
                    latencies[i].as_secs_f64() * 1e3
                };
                line += &format!(" {clients} client(s) {:.2}/{:.2} ms,", at(500), at(990));
            }
            let largest = &served.latencies[GROUPS - 1];
            let mean = largest.iter().sum::<Duration>().as_secs_f64() / largest.len() as f64;
            println!(
                "{line} {} clients' mean {:.2} ms, peak {} MB",
                CLIENTS[GROUPS - 1],
                mean * 1e3,
                memory_mb(served.pid, "VmHWM").map_or("n/a".into(), |mb| format!("{mb:.1}")),
            );
        }
        let cpu_per_call = |served: &Served| served.cpu.as_secs_f64() / served.calls as f64;
        println!(
            "{ratio} server CPU {:.2}\n",
            cpu_per_call(&served[0]) / cpu_per_call(&served[1])
        );
    }
    Ok(())
}
