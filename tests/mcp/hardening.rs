//! The store's binary against an attacker: slow and idle connections, other callers' sessions,
//! thousands of sessions, foreign pages, forgotten scopes, hostile arguments, broken lines.
//! Each test prints its figures (run with `--nocapture`); what it asserts is behaviour and
//! bounds on answers and resources, never a time.

use std::time::{Duration, Instant};

use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use crate::support::*;

/// The largest answer a hostile request may get.
const MAX_ANSWER: usize = 64 * 1024;

/// The protocol version the session tests speak.
const SESSIONS: &str = "2025-11-25";

fn initialize_body(id: u64) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {
            "protocolVersion": SESSIONS, "capabilities": {},
            "clientInfo": { "name": "raw", "version": "0" }
        }
    })
}

/// A `POST` to the MCP endpoint as `token`, in `session` when given.
async fn post(
    server: &HttpServer,
    token: &str,
    session: Option<&str>,
    body: &Value,
) -> reqwest::Response {
    post_raw(server, token, session, body.to_string(), &[]).await
}

async fn post_raw(
    server: &HttpServer,
    token: &str,
    session: Option<&str>,
    body: String,
    headers: &[(&str, &str)],
) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", format!("Bearer {token}"))
        .header("mcp-protocol-version", SESSIONS)
        .body(body);
    if let Some(session) = session {
        request = request.header("mcp-session-id", session);
    }
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.expect("an HTTP response")
}

async fn delete(server: &HttpServer, token: &str, session: &str) -> reqwest::StatusCode {
    reqwest::Client::new()
        .delete(&server.url)
        .header("authorization", format!("Bearer {token}"))
        .header("mcp-protocol-version", SESSIONS)
        .header("mcp-session-id", session)
        .send()
        .await
        .expect("an HTTP response")
        .status()
}

/// Opens a session as `token`: its id, or the refusal's status.
async fn open_session(server: &HttpServer, token: &str) -> Result<String, reqwest::StatusCode> {
    let response = post(server, token, None, &initialize_body(1)).await;
    if response.status() != 200 {
        return Err(response.status());
    }
    let id = response.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let _ = response.text().await;
    Ok(id)
}

/// Opens a session and finishes initializing it.
async fn initialized_session(server: &HttpServer, token: &str) -> String {
    let session = open_session(server, token).await.expect("a session");
    let done = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    let response = post(server, token, Some(&session), &done).await;
    assert_eq!(response.status(), 202, "notifications/initialized");
    session
}

/// The JSON-RPC messages of a response (plain JSON, or the `data:` lines of an SSE stream).
async fn messages(response: reqwest::Response) -> Vec<Value> {
    let text = response.text().await.expect("a body");
    if let Ok(value) = serde_json::from_str::<Value>(&text) {
        return vec![value];
    }
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str(data.trim()).ok())
        .collect()
}

/// Waits until `check` holds, for at most [`PATIENCE`].
async fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let started = Instant::now();
    while !check() {
        assert!(started.elapsed() < PATIENCE, "never: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// 80 connections to `server`: 60 that send nothing and 20 that trickle a request head one
/// byte at a time; they stay open until the server closes them.
async fn slow_connections(
    server: &HttpServer,
) -> (Vec<TcpStream>, Vec<tokio::task::JoinHandle<()>>) {
    let address = server.address();
    let mut silent = Vec::new();
    for _ in 0..60 {
        silent.push(TcpStream::connect(&address).await.expect("connect"));
    }
    let mut tricklers = Vec::new();
    for _ in 0..20 {
        let mut stream = TcpStream::connect(&address).await.expect("connect");
        tricklers.push(tokio::spawn(async move {
            let head = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaa";
            for byte in head.iter().cycle() {
                if stream.write_all(&[*byte]).await.is_err() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }));
    }
    (silent, tricklers)
}

#[tokio::test]
async fn slow_connections_never_lock_clients_out() {
    let scratch = Scratch::new();
    // 64 descriptors, as the attack on the old server had, and a header timeout far longer
    // than the test's patience: only making room for new clients can let one in.
    let args = ["--header-timeout", "120"];
    let server = HttpServer::start_with(&scratch, TOKENS, &args, Some(64)).await;
    let (_silent, _tricklers) = slow_connections(&server).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let during = server.open_descriptors();
    let started = Instant::now();
    for _ in 0..5 {
        let session = open_session(&server, "ada-token").await;
        assert!(session.is_ok(), "{session:?}");
    }
    eprintln!(
        "80 slow connections under a 64-descriptor limit ({during} descriptors open): five \
         clients served one after another in {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn slow_connections_hold_no_descriptor_past_the_header_timeout() {
    let scratch = Scratch::new();
    let server = HttpServer::start_with(&scratch, TOKENS, &["--header-timeout", "1"], None).await;
    let before = server.open_descriptors();
    let (silent, tricklers) = slow_connections(&server).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let during = server.open_descriptors();
    eventually("the slow connections' descriptors are released", || {
        server.open_descriptors() <= before + 1
    })
    .await;
    eprintln!(
        "80 slow connections: the server held {before} descriptors before, {during} during, \
         {} after the 1 s header timeout",
        server.open_descriptors()
    );
    for mut stream in silent {
        let mut byte = [0u8; 1];
        let read = tokio::time::timeout(PATIENCE, stream.read(&mut byte)).await;
        assert!(
            matches!(read, Ok(Ok(0)) | Ok(Err(_))),
            "a silent connection is closed by the server: {read:?}"
        );
    }
    for trickler in tricklers {
        tokio::time::timeout(PATIENCE, trickler)
            .await
            .expect("the trickled connection is cut")
            .unwrap();
    }
}

#[tokio::test]
async fn a_trickled_body_is_cut_at_the_request_timeout_and_an_idle_connection_is_closed() {
    let scratch = Scratch::new();
    let server = HttpServer::start_with(
        &scratch,
        TOKENS,
        &["--header-timeout", "1", "--request-timeout", "1"],
        None,
    )
    .await;
    let stream = TcpStream::connect(server.address()).await.unwrap();
    let (mut read, mut write) = stream.into_split();
    write
        .write_all(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ada-token\r\n\
              Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n\
              Content-Length: 1000\r\n\r\n{",
        )
        .await
        .unwrap();
    let started = Instant::now();
    let trickler = tokio::spawn(async move {
        while write.write_all(b" ").await.is_ok() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    let mut reply = Vec::new();
    tokio::time::timeout(PATIENCE, read.read_to_end(&mut reply))
        .await
        .expect("the trickled request is cut")
        .ok();
    trickler.abort();
    let reply = String::from_utf8_lossy(&reply);
    eprintln!(
        "a body trickled at 10 bytes/s was cut after {:?}: {}",
        started.elapsed(),
        reply.lines().next().unwrap_or("(closed without an answer)")
    );
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");

    // A kept-alive connection that sends nothing more is closed after the header timeout.
    let mut stream = TcpStream::connect(server.address()).await.unwrap();
    stream
        .write_all(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    let mut reader = BufReader::new(stream);
    let mut status = String::new();
    reader.read_line(&mut status).await.unwrap();
    assert!(status.starts_with("HTTP/1.1 401"), "{status}");
    let started = Instant::now();
    let mut rest = Vec::new();
    tokio::time::timeout(PATIENCE, reader.read_to_end(&mut rest))
        .await
        .expect("the idle connection is closed")
        .unwrap();
    eprintln!(
        "an idle kept-alive connection was closed after {:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_session_belongs_to_the_caller_that_created_it() {
    let scratch = Scratch::new();
    let server = HttpServer::start(&scratch).await;
    let ada = initialized_session(&server, "ada-token").await;
    let list = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" });
    assert_eq!(
        post(&server, "ada-token", Some(&ada), &list).await.status(),
        200
    );
    // Grace holds the id, and gets what an unknown session gets.
    let foreign = post(&server, "grace-token", Some(&ada), &list).await;
    assert_eq!(foreign.status(), 404);
    let body: serde_json::Value = foreign.json().await.unwrap();
    assert_eq!(body["error"], "unknown_session", "{body}");
    assert_eq!(delete(&server, "grace-token", &ada).await, 404);

    // Nor can she cancel Ada's running call.
    let export = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": { "name": "orders_export", "arguments": { "pace_ms": 300 } }
    });
    let running = tokio::spawn({
        let url = server.url.clone();
        let ada = ada.clone();
        async move {
            let response = reqwest::Client::new()
                .post(url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("authorization", "Bearer ada-token")
                .header("mcp-protocol-version", SESSIONS)
                .header("mcp-session-id", ada)
                .body(export.to_string())
                .send()
                .await
                .unwrap();
            messages(response).await
        }
    });
    tokio::time::sleep(Duration::from_millis(400)).await;
    let cancel = json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": { "requestId": 7, "reason": "not yours" }
    });
    assert_eq!(
        post(&server, "grace-token", Some(&ada), &cancel)
            .await
            .status(),
        404
    );
    let answers = running.await.unwrap();
    let result = answers
        .iter()
        .find(|m| m["id"] == 7)
        .unwrap_or_else(|| panic!("Ada's call was answered: {answers:?}"));
    assert_eq!(result["result"]["isError"], false, "{result}");
    assert_eq!(result["result"]["structuredContent"]["count"], 4);

    // Ada can end it; then, like any unknown session, it is 404, for DELETE too.
    assert_eq!(delete(&server, "ada-token", &ada).await, 202);
    assert_eq!(delete(&server, "ada-token", &ada).await, 404);
    assert_eq!(
        post(&server, "ada-token", Some(&ada), &list).await.status(),
        404
    );
    assert_eq!(delete(&server, "ada-token", "no-such-session").await, 404);
}

#[tokio::test]
async fn sessions_are_capped_per_caller_and_in_all_and_expire_until_initialized() {
    let scratch = Scratch::new();
    let args = [
        "--max-sessions-per-caller",
        "3",
        "--max-sessions",
        "5",
        "--session-init-timeout",
        "1",
    ];
    let server = HttpServer::start_with(&scratch, TOKENS, &args, None).await;
    for _ in 0..3 {
        assert!(open_session(&server, "ada-token").await.is_ok());
    }
    assert_eq!(
        open_session(&server, "ada-token").await,
        Err(reqwest::StatusCode::TOO_MANY_REQUESTS)
    );
    let refused = post(&server, "ada-token", None, &initialize_body(1)).await;
    let body: serde_json::Value = refused.json().await.unwrap();
    assert_eq!(body["error"], "too_many_sessions", "{body}");
    assert_eq!(
        body["message"],
        "No new session: this caller has 3 sessions open, as many as one caller may; close one \
         (DELETE) or let it expire."
    );
    // Grace has her own three, but the server holds five in all.
    for _ in 0..2 {
        assert!(open_session(&server, "grace-token").await.is_ok());
    }
    assert_eq!(
        open_session(&server, "grace-token").await,
        Err(reqwest::StatusCode::TOO_MANY_REQUESTS)
    );
    // None of them finished initializing: a second later they are gone, and room is made.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let session = initialized_session(&server, "ada-token").await;
    // An initialized session outlives the init timeout.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let list = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" });
    assert_eq!(
        post(&server, "ada-token", Some(&session), &list)
            .await
            .status(),
        200
    );
    // Stateless clients (2026-07-28) hold no session and are never refused for it.
    let client = server
        .client("ada-token", ProtocolVersion::V_2026_07_28)
        .await;
    assert_eq!(names(&client).await.len(), 9);
}

#[tokio::test]
async fn ten_thousand_initializations_leave_the_server_small() {
    let scratch = Scratch::new();
    // Nothing expires while the test runs: the cap alone bounds the sessions.
    let args = ["--session-init-timeout", "600"];
    let server = HttpServer::start_with(&scratch, TOKENS, &args, None).await;
    let before = server.rss_kib();
    let started = Instant::now();
    let client = reqwest::Client::new();
    let body = initialize_body(1).to_string();
    let mut opened = 0;
    let mut refused = 0;
    for round in 0..625 {
        let calls = (0..16).map(|_| {
            client
                .post(&server.url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("authorization", "Bearer grace-token")
                .body(body.clone())
                .send()
        });
        for response in futures_util::future::join_all(calls).await {
            match response.expect("an answer").status().as_u16() {
                200 => opened += 1,
                429 => refused += 1,
                other => panic!("round {round}: status {other}"),
            }
        }
    }
    let after = server.rss_kib();
    eprintln!(
        "10,000 initialize requests in {:?}: {opened} sessions opened, {refused} refused; \
         server RSS {before} KiB before, {after} KiB after",
        started.elapsed()
    );
    assert_eq!(opened, 16, "one caller holds at most 16 sessions");
    assert_eq!(refused, 10_000 - 16);
}

#[tokio::test]
async fn pages_of_other_origins_are_refused() {
    let scratch = Scratch::new();
    let server = HttpServer::start_with(
        &scratch,
        TOKENS,
        &["--allow-origin", "https://app.example.com"],
        None,
    )
    .await;
    let status = |origin: &'static str| {
        let server = &server;
        async move {
            post_raw(
                server,
                "ada-token",
                None,
                initialize_body(1).to_string(),
                &[("origin", origin)],
            )
            .await
            .status()
            .as_u16()
        }
    };
    assert_eq!(status("https://evil.example").await, 403);
    assert_eq!(status("null").await, 403);
    assert_eq!(
        status("http://localhost:6274").await,
        200,
        "a page on this machine"
    );
    assert_eq!(
        status("https://app.example.com").await,
        200,
        "an allowed origin"
    );
    assert_eq!(
        open_session(&server, "ada-token").await.map(|_| ()),
        Ok(()),
        "no Origin"
    );
}

#[tokio::test]
async fn a_token_without_scopes_holds_none() {
    let scratch = Scratch::new();
    let tokens = r#"{
      "forgot-token": { "id": "forgot", "ambient": { "customer_id": 1 } },
      "root-token": { "id": "root", "ambient": { "customer_id": 1 }, "scopes": "unrestricted" }
    }"#;
    let server = HttpServer::start_with(&scratch, tokens, &[], None).await;
    let forgot = server
        .client("forgot-token", ProtocolVersion::V_2026_07_28)
        .await;
    assert_eq!(
        names(&forgot).await,
        ["customers_me", "explain"],
        "only tools that require no scope"
    );
    let refund = call(&forgot, "orders_refund", json!({ "order_id": 3 })).await;
    assert_eq!(
        protocol_error(refund.unwrap_err()),
        (-32602, "Unknown tool: orders_refund".to_owned())
    );
    let root = server
        .client("root-token", ProtocolVersion::V_2026_07_28)
        .await;
    assert_eq!(names(&root).await.len(), 9);
}

/// `orders_place` with 1.39 M empty `lines` items: about 4 MiB of JSON.
fn hostile_place() -> Value {
    json!({
        "jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": { "name": "orders_place", "arguments": { "lines": vec![json!({}); 1_390_000] } }
    })
}

fn hostile_explain() -> Value {
    json!({
        "jsonrpc": "2.0", "id": 6, "method": "tools/call",
        "params": { "name": "explain", "arguments": {
            "tool": "orders_place", "arguments": { "lines": vec![json!({}); 1_390_000] }
        } }
    })
}

#[tokio::test]
async fn hostile_arguments_over_http_get_small_quick_answers() {
    let scratch = Scratch::new();
    let server = HttpServer::start(&scratch).await;
    for (what, body) in [
        ("orders_place", hostile_place()),
        ("explain", hostile_explain()),
    ] {
        let body = body.to_string();
        let size = body.len();
        let started = Instant::now();
        let response = post_raw(&server, "ada-token", None, body, &[]).await;
        let status = response.status();
        let answer = response.text().await.unwrap();
        eprintln!(
            "HTTP {what} with 1.39 M lines: {size} bytes in → {status}, {} bytes out in {:?}; \
             server peak RSS {} KiB",
            answer.len(),
            started.elapsed(),
            peak_rss_kib(server.pid())
        );
        assert!(answer.len() <= MAX_ANSWER);
        let error: Value = serde_json::from_str(&answer).expect("a JSON-RPC error");
        assert_eq!(error["error"]["code"], -32600, "{answer}");
    }
    // Undeclared keys by the hundred thousand, with the read-only token.
    let mut arguments = serde_json::Map::new();
    for i in 0..90_000 {
        arguments.insert(format!("undeclared_key_number_{i:012}"), json!(1));
    }
    let arguments = Value::Object(arguments);
    let size = arguments.to_string().len();
    let grace = server
        .client("grace-token", ProtocolVersion::V_2026_07_28)
        .await;
    let started = Instant::now();
    let refused = result(&grace, "orders_get", arguments).await;
    let answer = serde_json::to_string(&refused).unwrap();
    eprintln!(
        "HTTP orders_get with 90,000 undeclared keys (read-only token): {size} bytes in → {} \
         bytes out in {:?}",
        answer.len(),
        started.elapsed()
    );
    assert_eq!(refused.is_error, Some(true));
    assert!(answer.len() <= MAX_ANSWER, "{}", answer.len());
    assert!(
        text(&refused).ends_with("; and 89991 more errors."),
        "{}",
        text(&refused)
    );
}

#[tokio::test]
async fn broken_lines_on_stdio_are_answered_and_the_session_goes_on() {
    let scratch = Scratch::new();
    let mut stdio = RawStdio::start(&scratch).await;
    stdio
        .send(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list""#)
        .await;
    let answer = stdio.answer().await;
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert_eq!(answer["id"], Value::Null);

    stdio
        .send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"orders_get","arguments":[1]}}"#)
        .await;
    let answer = stdio.answer().await;
    assert_eq!(
        answer,
        json!({ "jsonrpc": "2.0", "id": 2, "error": { "code": -32602,
            "message": "Invalid params: `arguments` must be an object, not a list" } })
    );

    // 4 MiB of hostile arguments, then an over-long line: each answered, quickly and briefly.
    for (what, body) in [
        ("orders_place", hostile_place()),
        ("explain", hostile_explain()),
    ] {
        let line = body.to_string();
        let started = Instant::now();
        stdio.send(&line).await;
        let answer = stdio.answer().await;
        eprintln!(
            "stdio {what} with 1.39 M lines: {} bytes in → {} bytes out in {:?}; server peak RSS {} KiB",
            line.len(),
            answer.to_string().len(),
            started.elapsed(),
            peak_rss_kib(stdio.child.id().unwrap())
        );
        assert_eq!(answer["error"]["code"], -32600, "{answer}");
        assert!(answer.to_string().len() <= MAX_ANSWER);
    }
    stdio
        .send(&format!(
            r#"{{"jsonrpc":"2.0","id":9,"method":"x","params":"{}"}}"#,
            "a".repeat(5 << 20)
        ))
        .await;
    let answer = stdio.answer().await;
    assert_eq!(answer["error"]["code"], -32600, "{answer}");

    // The session goes on.
    stdio
        .send(r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"orders_get","arguments":{"order_id":1}}}"#)
        .await;
    let answer = stdio.answer().await;
    assert_eq!(answer["id"], 3);
    assert_eq!(
        answer["result"]["structuredContent"]["order"]["id"], 1,
        "{answer}"
    );
}

#[tokio::test]
async fn error_results_carry_their_code_and_details_but_never_a_sensitive_value() {
    let scratch = Scratch::new();
    let (client, log) = stdio(&scratch, &["--as", "customer_id=1"]).await;
    let failed = result(
        &client,
        "orders_place",
        json!({ "lines": [{ "sku": "NOPE-1", "quantity": 1 }] }),
    )
    .await;
    assert_eq!(failed.is_error, Some(true));
    assert_eq!(
        serde_json::to_value(&failed.meta).unwrap()["toolspec/error"],
        json!({
            "error": "unknown_sku",
            "message": "Could not place the order: A product in the order does not exist.",
            "details": { "skus": ["NOPE-1"] }
        })
    );
    // An over-long sensitive note is refused without being echoed: not to the model, not in
    // the server's log.
    let secret = format!("SECRET-{}", "x".repeat(600));
    let refused = result(
        &client,
        "orders_place",
        json!({ "lines": [{ "sku": "MUG-001", "quantity": 1 }], "note": secret }),
    )
    .await;
    assert_eq!(
        text(&refused),
        "Invalid arguments: `/note`: the value is longer than 500 characters."
    );
    assert!(!serde_json::to_string(&refused).unwrap().contains("SECRET"));
    // 2^53 + 1 sent as a float arrives as 2^53 (a Python client sends the same): refused as
    // inexact, never rounded into another order's id.
    let inexact = result(
        &client,
        "orders_get",
        json!({ "order_id": 9007199254740993.0 }),
    )
    .await;
    assert_eq!(
        text(&inexact),
        "Invalid arguments: `/order_id`: 9007199254740992.0 is not an exact integer (a number \
         with a fraction or an exponent is exact only below 2^53); send it without one."
    );
    log.wait_for(&["tool call failed", "invalid_arguments"])
        .await;
    client.cancel().await.unwrap();

    // The CLI's own output neither.
    let output = tokio::process::Command::new(binary())
        .arg("--db")
        .arg(scratch.db())
        .args(["call", "orders_place", "--as", "customer_id=1", "-v"])
        .arg(json!({ "lines": [{ "sku": "MUG-001", "quantity": 1 }], "note": format!("SECRET-{}", "x".repeat(600)) }).to_string())
        .output()
        .await
        .unwrap();
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        printed.contains("the value is longer than 500 characters"),
        "{printed}"
    );
    assert!(!printed.contains("SECRET"), "{printed}");
}
