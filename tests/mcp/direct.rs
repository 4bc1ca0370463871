//! Plain `tools/call` requests: over stdio (answered by rmcp's service loop, as every request
//! there) progress before the answer, and a call the client cancels left unanswered; over
//! stateless HTTP, where the transport answers them itself, the same status, type and message
//! as rmcp's service answers for the same request.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolspec::inline::{InlineContext, Spec};
use toolspec::mcp::McpServer;
use toolspec::{AmbientContext, Caller};

use crate::raw_http;
use crate::support::*;

/// A request line: `tools/call` of `name` with `arguments` (left out when `None`) and `meta`.
fn call(id: Value, name: &str, arguments: Option<Value>, meta: Option<Value>) -> String {
    let mut params = json!({ "name": name });
    if let Some(arguments) = arguments {
        params["arguments"] = arguments;
    }
    if let Some(meta) = meta {
        params["_meta"] = meta;
    }
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params }).to_string()
}

/// An answer with its request's id, and what differs between two orders placed one after the
/// other (their number and time), masked.
pub(crate) fn normalize(line: &str, id: &Value) -> String {
    let mut line = line.replacen(&format!("\"id\":{id}"), "\"id\":ID", 1);
    for order in 1..20 {
        line = line
            .replace(
                &format!(r#"{{"id":{order},"status""#),
                r#"{"id":N,"status""#,
            )
            .replace(&format!("Order {order} placed"), "Order N placed");
    }
    match line.split_once(r#""placed_at":""#) {
        Some((before, after)) if after.len() > 20 => {
            format!("{before}\"placed_at\":\"TIME{}", &after[20..])
        }
        _ => line,
    }
}

/// `slow_count`: counts to `to`, one step every `pace_ms`, reporting each step, until cancelled.
fn slow_count() -> Spec {
    Spec::json(
        "slow/count.yaml",
        json!({
            "description": "Count slowly.",
            "expects": {
                "to": { "type": "integer", "minimum": 1 },
                "pace_ms": { "type": "integer", "minimum": 1 }
            },
            "exposes": { "counted": { "type": "integer" } },
            "hints": ["read_only"]
        }),
    )
    .shared("toolspec.yaml", include_str!("../../specs/toolspec.yaml"))
    .shared("types.yaml", include_str!("../../specs/types.yaml"))
}

/// The store's registry, on a SQLite file in `dir`, with `slow_count`, whose handler reports
/// on the receiver how far it had counted when a call of it was cancelled.
pub(crate) async fn counting_registry(
    dir: &std::path::Path,
) -> (
    toolspec::Registry,
    tokio::sync::mpsc::UnboundedReceiver<i64>,
) {
    let (cancelled_tx, cancelled_rx) = tokio::sync::mpsc::unbounded_channel();
    let location = toolspec_store::Location::File(dir.join("store.db"));
    let store = toolspec_store::Store::open(&location).await.unwrap();
    let registry = toolspec_store::registry(store)
        .with_tool(
            slow_count().describe().expect("the spec compiles"),
            move |input: serde_json::Map<String, Value>, cx: InlineContext| {
                let cancelled = cancelled_tx.clone();
                async move {
                    let to = input["to"].as_i64().unwrap_or(0);
                    let pace = Duration::from_millis(input["pace_ms"].as_u64().unwrap_or(1));
                    for counted in 1..=to {
                        tokio::select! {
                            () = tokio::time::sleep(pace) => {}
                            () = cx.cancellation().cancelled() => {
                                let _ = cancelled.send(counted - 1);
                                return Ok(json!({ "counted": counted - 1 }));
                            }
                        }
                        cx.progress(counted as f64 / to as f64, format!("{counted}"));
                    }
                    Ok(json!({ "counted": to }))
                }
            },
        )
        .expect("the tool is added");
    (registry, cancelled_rx)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_comes_before_the_answer_and_a_cancelled_call_goes_unanswered() {
    let dir = tempfile::tempdir().unwrap();
    let (registry, mut cancelled_rx) = counting_registry(dir.path()).await;
    let server = McpServer::new(
        registry,
        Caller::new("ada").with_ambient(AmbientContext::from([("customer_id", 1)])),
    );
    let (client_input, server_input) = tokio::io::duplex(64 * 1024);
    let (server_output, client_output) = tokio::io::duplex(64 * 1024);
    let served = tokio::spawn(server.serve_on(server_input, server_output));
    let mut input = client_input;
    let mut output = BufReader::new(client_output).lines();
    let mut send = async |line: String| {
        input.write_all(line.as_bytes()).await.unwrap();
        input.write_all(b"\n").await.unwrap();
    };
    let mut next = async || -> Option<Value> {
        let line = tokio::time::timeout(PATIENCE, output.next_line())
            .await
            .expect("a line in time")
            .unwrap()?;
        Some(serde_json::from_str(&line).unwrap())
    };

    send(
        json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": { "name": "raw", "version": "0" } } })
        .to_string(),
    )
    .await;
    assert!(next().await.unwrap()["result"]["serverInfo"].is_object());
    send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }).to_string()).await;

    // Progress, in order, then the answer.
    let arguments = json!({ "to": 3, "pace_ms": 1 });
    send(call(
        json!(1),
        "slow_count",
        Some(arguments),
        Some(json!({ "progressToken": "p" })),
    ))
    .await;
    let mut seen = Vec::new();
    let answer = loop {
        let message = next().await.expect("a message");
        if message["method"] == "notifications/progress" {
            assert_eq!(message["params"]["progressToken"], "p");
            seen.push(message["params"]["message"].clone());
        } else {
            break message;
        }
    };
    assert_eq!(seen, ["1", "2", "3"]);
    assert_eq!(answer["id"], 1);
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({ "counted": 3 })
    );

    // Cancelled after its first step: the handler stops, and the call is never answered.
    let arguments = json!({ "to": 1000, "pace_ms": 20 });
    send(call(
        json!(2),
        "slow_count",
        Some(arguments),
        Some(json!({ "progressToken": 2 })),
    ))
    .await;
    let first = next().await.expect("a progress notification");
    assert_eq!(first["params"]["progressToken"], 2, "{first}");
    send(
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": { "requestId": 2, "reason": "changed my mind" } })
        .to_string(),
    )
    .await;
    let counted = tokio::time::timeout(PATIENCE, cancelled_rx.recv())
        .await
        .expect("the handler saw the cancellation")
        .unwrap();
    assert!(counted < 1000, "{counted}");
    // A later call is answered; once the input ends, the server has written all it will.
    send(call(
        json!(3),
        "slow_count",
        Some(json!({ "to": 1, "pace_ms": 1 })),
        None,
    ))
    .await;
    drop(input);
    let mut rest = Vec::new();
    while let Some(message) = next().await {
        rest.push(message);
    }
    assert!(
        rest.iter().all(|message| message["id"] != 2),
        "the cancelled call was answered: {rest:?}"
    );
    assert!(
        rest.iter().any(|message| message["id"] == 3),
        "the later call was not answered: {rest:?}"
    );
    served.await.unwrap().expect("the server stops cleanly");
}

/// A stateless `tools/call` request of protocol 2026-07-28 to `address` as `token` (none: no
/// `Authorization`): `tools/call` of `name` with `arguments` and the per-request metadata,
/// plus `extra_meta` in `_meta`.
async fn stateless_call(
    address: &str,
    token: Option<&str>,
    id: Value,
    name: &str,
    arguments: Option<Value>,
    extra_meta: &[(&str, Value)],
) -> raw_http::RawAnswer {
    let mut params = json!({ "name": name });
    if let Some(arguments) = arguments {
        params["arguments"] = arguments;
    }
    stateless(address, token, id, "tools/call", params, extra_meta).await
}

/// A stateless request of protocol 2026-07-28 to `address` as `token` (none: no
/// `Authorization`): `method` with `params`, the per-request metadata and `extra_meta` in
/// `_meta`, and the headers its method and name call for.
pub(crate) async fn stateless(
    address: &str,
    token: Option<&str>,
    id: Value,
    method: &str,
    mut params: Value,
    extra_meta: &[(&str, Value)],
) -> raw_http::RawAnswer {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "raw", "version": "0" },
    });
    for (key, value) in extra_meta {
        meta[key] = value.clone();
    }
    params["_meta"] = meta;
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
    let method = format!("Mcp-Method: {method}");
    let named = params["name"]
        .as_str()
        .map(|name| format!("Mcp-Name: {name}"));
    let headers: Vec<&str> = ["MCP-Protocol-Version: 2026-07-28", &method]
        .into_iter()
        .chain(named.as_deref())
        .collect();
    raw_http::post_mcp(address, token, &headers, &body.to_string()).await
}

/// The `_meta` key only rmcp reads, which sends a call through rmcp's service.
const ONLY_RMCP_READS: (&str, Value) = ("io.example/trace", Value::Null);

#[tokio::test]
async fn a_plain_stateless_call_over_http_is_answered_as_rmcp_answers_it() {
    let scratch = Scratch::new();
    let server = HttpServer::start_with(&scratch, TOKENS, &["--verbose"], None).await;
    // Each case twice: plain, then with a key in `_meta` only rmcp reads, which sends it
    // through rmcp's service. grace may not place orders: for her the tool does not exist.
    let cases = [
        ("ada-token", "orders_get", Some(json!({ "order_id": 1 }))),
        ("ada-token", "orders_get", Some(json!({ "order_id": 999 }))),
        (
            "ada-token",
            "orders_get",
            Some(json!({ "order_id": "one" })),
        ),
        (
            "ada-token",
            "orders_get",
            Some(json!({ "order_id": 1, "customer_id": 2 })),
        ),
        ("ada-token", "orders_get", Some(Value::Null)),
        ("ada-token", "orders_get", None),
        (
            "ada-token",
            "explain",
            Some(json!({ "tool": "orders_get", "arguments": { "order_id": 1 } })),
        ),
        (
            "ada-token",
            "orders_place",
            Some(json!({ "lines": [{ "sku": "MUG-001", "quantity": 1 }] })),
        ),
        (
            "grace-token",
            "orders_place",
            Some(json!({ "lines": [{ "sku": "MUG-001", "quantity": 1 }] })),
        ),
        ("ada-token", "no_such_tool", Some(json!({}))),
    ];
    let address = server.address();
    for (n, (token, name, arguments)) in cases.iter().enumerate() {
        let (plain_id, rmcp_id) = (json!(100 + n), json!(format!("r{n}")));
        // Odd cases ask for progress (none of these tools reports any).
        let progress = [("progressToken", json!(n))];
        let asks = if n % 2 == 1 { &progress[..] } else { &[] };
        let through = [asks, &[ONLY_RMCP_READS]].concat();
        let plain = stateless_call(
            &address,
            Some(token),
            plain_id.clone(),
            name,
            arguments.clone(),
            asks,
        )
        .await;
        let through_rmcp = stateless_call(
            &address,
            Some(token),
            rmcp_id.clone(),
            name,
            arguments.clone(),
            &through,
        )
        .await;
        assert!(
            plain.body.contains(&format!("\"id\":{plain_id}")),
            "{plain:?}"
        );
        assert_eq!(plain.status, through_rmcp.status, "case {n}: {name}");
        assert_eq!(
            plain.header("content-type"),
            through_rmcp.header("content-type"),
            "case {n}: {name}"
        );
        assert_eq!(
            normalize(&plain.body, &plain_id),
            normalize(&through_rmcp.body, &rmcp_id),
            "case {n}: {name}"
        );
    }
    // Each plain call was answered by the transport, and only those.
    let log = server.log.text();
    let answered = log
        .matches("a stateless call answered by the transport")
        .count();
    assert_eq!(answered, cases.len(), "{log}");

    // A header that disagrees with the body goes to rmcp, which refuses it.
    let body = call(
        json!(1),
        "orders_get",
        Some(json!({ "order_id": 1 })),
        Some(json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        })),
    );
    let refused = raw_http::send_to(
        &server.address(),
        "POST",
        "/mcp",
        &[
            "Authorization: Bearer ada-token",
            "Accept: application/json, text/event-stream",
            "Content-Type: application/json",
            "MCP-Protocol-Version: 2026-07-28",
            "Mcp-Method: tools/call",
            "Mcp-Name: orders_place",
        ],
        &body,
    )
    .await;
    assert_eq!(refused.status, 400, "{refused:?}");
    assert_eq!(refused.json()["error"]["code"], -32020, "{refused:?}");
    assert_eq!(
        server
            .log
            .text()
            .matches("a stateless call answered by the transport")
            .count(),
        cases.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateless_call_that_reports_progress_streams_it_as_rmcp_does() {
    let dir = tempfile::tempdir().unwrap();
    let (registry, mut cancelled_rx) = counting_registry(dir.path()).await;
    let server = McpServer::new(registry, Caller::new("ada"));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let shutdown = toolspec::CancellationToken::new();
    let served = tokio::spawn(
        toolspec::mcp::http::HttpTransport::new(server).serve(listener, shutdown.clone()),
    );
    let arguments = Some(json!({ "to": 3, "pace_ms": 1 }));
    let progress = ("progressToken", json!("p"));
    let plain = stateless_call(
        &address,
        None,
        json!(1),
        "slow_count",
        arguments.clone(),
        std::slice::from_ref(&progress),
    )
    .await;
    let through_rmcp = stateless_call(
        &address,
        None,
        json!(1),
        "slow_count",
        arguments,
        &[progress, ONLY_RMCP_READS],
    )
    .await;
    assert_eq!(plain.status, 200, "{plain:?}");
    assert_eq!(plain.header("content-type"), Some("text/event-stream"));
    for name in ["content-type", "cache-control", "x-accel-buffering"] {
        assert_eq!(plain.header(name), through_rmcp.header(name), "{name}");
    }
    // Three progress events, then the answer, each `data: …` and a blank line.
    assert_eq!(plain.body.matches("data: ").count(), 4, "{}", plain.body);
    assert!(
        plain.body.contains(r#""progressToken":"p""#),
        "{}",
        plain.body
    );
    assert_eq!(plain.body, through_rmcp.body);

    // A client that goes away after the first progress event: the call is cancelled.
    let body = call(
        json!(2),
        "slow_count",
        Some(json!({ "to": 1000, "pace_ms": 20 })),
        Some(json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "progressToken": 2,
        })),
    );
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nAccept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: slow_count\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(&address).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    raw_http::read_until(&mut stream, "progressToken").await;
    drop(stream);
    let counted = tokio::time::timeout(PATIENCE, cancelled_rx.recv())
        .await
        .expect("the handler saw the cancellation")
        .unwrap();
    assert!(counted < 1000, "{counted}");
    shutdown.cancel();
    served.await.unwrap().expect("the server stops cleanly");
}

#[tokio::test]
async fn a_plain_stateless_list_over_http_is_answered_as_rmcp_answers_it() {
    let scratch = Scratch::new();
    let args = ["--verbose", "--page-size", "3", "--list-ttl", "60"];
    let server = HttpServer::start_with(&scratch, TOKENS, &args, None).await;
    let address = server.address();
    let mut lists = 0;
    for token in ["ada-token", "grace-token"] {
        // Page after page, each asked both ways; then a cursor the server did not hand out.
        let mut cursor = Some(None);
        while let Some(at) = cursor.take() {
            let params = match &at {
                Some(at) => json!({ "cursor": at }),
                None => json!({}),
            };
            let ask = async |id: &str, meta: &[(&str, Value)]| {
                stateless(
                    &address,
                    Some(token),
                    json!(id),
                    "tools/list",
                    params.clone(),
                    meta,
                )
                .await
            };
            let plain = ask("p", &[]).await;
            let through_rmcp = ask("r", &[ONLY_RMCP_READS]).await;
            lists += 1;
            assert_eq!(plain.status, 200, "{plain:?}");
            assert_eq!(plain.status, through_rmcp.status);
            assert_eq!(
                plain.header("content-type"),
                through_rmcp.header("content-type")
            );
            let mut through = through_rmcp.json();
            through["id"] = json!("p");
            assert_eq!(plain.json(), through, "{token} at {at:?}");
            let page = plain.json();
            assert!(
                !page["result"]["tools"].as_array().unwrap().is_empty(),
                "{page}"
            );
            cursor = page["result"]["nextCursor"]
                .as_str()
                .map(|next| Some(next.to_owned()));
        }
        assert!(lists > 2, "the store's tools span pages of 3");
        let params = json!({ "cursor": "two" });
        let plain = stateless(
            &address,
            Some(token),
            json!(1),
            "tools/list",
            params.clone(),
            &[],
        )
        .await;
        let through_rmcp = stateless(
            &address,
            Some(token),
            json!(1),
            "tools/list",
            params,
            &[ONLY_RMCP_READS],
        )
        .await;
        lists += 1;
        assert_eq!(plain.json()["error"]["code"], -32602, "{plain:?}");
        assert_eq!(
            (plain.status, plain.body),
            (through_rmcp.status, through_rmcp.body)
        );
    }
    let answered = server
        .log
        .text()
        .matches("a stateless list answered by the transport")
        .count();
    assert_eq!(answered, lists);
}
