//! What the store's binary answers a request whose headers the MCP transport judges —
//! `MCP-Protocol-Version`, `Accept`, `Content-Type`, `Mcp-Session-Id`, `Last-Event-ID`,
//! `Mcp-Method`, `Mcp-Name` — holding hostile values (8 KiB long, HTML, bytes that are not
//! UTF-8, an attempt at a second header line), written byte for byte: every answer that is not
//! a success is the error shape `{error, message}` or MCP's JSON-RPC error, as JSON, and no
//! answer, on `/mcp` or any other route, quotes what the request sent.

use serde_json::{Value, json};

use crate::raw_http::{self, RawAnswer};
use crate::sessions::open_session;
use crate::support::*;

/// What every hostile value carries, and no answer may.
const MARK: &str = "ZQXJ";

/// The hostile values of a header, as bytes.
fn hostile() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        (
            "long",
            format!("{MARK}{}", "A".repeat(8 * 1024)).into_bytes(),
        ),
        (
            "html",
            format!("<script>alert('{MARK}')</script><b>{MARK}</b>").into_bytes(),
        ),
        ("not UTF-8", [MARK.as_bytes(), b"\xff\xfe\x80"].concat()),
    ]
}

/// A request of `method` `path` to `address` with `headers` (each `Name: value` as bytes, in
/// order, after `Host`) and `body`.
async fn send(
    address: &str,
    method: &str,
    path: &str,
    headers: &[Vec<u8>],
    body: &str,
) -> RawAnswer {
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: {address}\r\n").into_bytes();
    for header in headers {
        request.extend_from_slice(header);
        request.extend_from_slice(b"\r\n");
    }
    if !body.is_empty() {
        request.extend_from_slice(format!("Content-Length: {}\r\n", body.len()).as_bytes());
    }
    request.extend_from_slice(b"Connection: close\r\n\r\n");
    request.extend_from_slice(body.as_bytes());
    raw_http::exchange(address, &request).await
}

/// `Name: value`.
fn header(name: &str, value: &[u8]) -> Vec<u8> {
    [name.as_bytes(), b": ", value].concat()
}

/// Fails unless `answer` quotes nothing hostile: no mark in its body or headers, nothing that
/// was not UTF-8.
fn quotes_nothing(answer: &RawAnswer, what: &str) {
    assert!(!answer.body.contains(MARK), "{what}: {answer:#?}");
    assert!(!answer.body.contains('\u{fffd}'), "{what}: {answer:#?}");
    for (name, value) in &answer.headers {
        assert!(!value.contains(MARK), "{what}: header {name}: {answer:#?}");
    }
}

/// Fails unless `answer`, refused, is the error shape with `code` (returning its message), or
/// MCP's JSON-RPC error when `code` is a number.
fn refused_as(answer: &RawAnswer, status: u16, code: &str, what: &str) -> String {
    quotes_nothing(answer, what);
    if let Ok(number) = code.parse::<i64>() {
        assert_eq!(answer.status, status, "{what}: {answer:#?}");
        assert_eq!(answer.header("content-type"), Some("application/json"));
        let error = &answer.json()["error"];
        assert_eq!(error["code"], number, "{what}: {answer:#?}");
        return error["message"].as_str().unwrap_or_default().to_owned();
    }
    answer.assert_failure(status, code)
}

/// A request of protocol 2026-07-28 of `method` with `params`, its version in its `_meta`.
fn current(method: &str, mut params: Value) -> String {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": { "name": "raw", "version": "0" },
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params }).to_string()
}

#[tokio::test(flavor = "multi_thread")]
async fn no_refusal_quotes_a_header_and_each_has_the_error_shape() {
    let scratch = Scratch::new();
    let server = HttpServer::start(&scratch).await;
    let address = server.address();
    let session = open_session(&address, Some("ada-token")).await;
    let auth = header("Authorization", b"Bearer ada-token");
    let json_and_sse = header("Accept", b"application/json, text/event-stream");
    let sse = header("Accept", b"text/event-stream");
    let json = header("Content-Type", b"application/json");
    let in_session = header("Mcp-Session-Id", session.as_bytes());
    let sessions = header("MCP-Protocol-Version", b"2025-11-25");
    let current_version = header("MCP-Protocol-Version", b"2026-07-28");
    let list = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" }).to_string();

    for (kind, value) in hostile() {
        let version = header("MCP-Protocol-Version", &value);
        let what = |case: &str| format!("{case} ({kind})");

        // An unknown version: 400, said without quoting it (the versions it speaks
        // instead), on every method that judges it.
        let post = [&auth, &json_and_sse, &json, &version].map(Clone::clone);
        let answer = send(&address, "POST", "/mcp", &post, &list).await;
        let message = refused_as(&answer, 400, "unsupported_protocol_version", &what("POST"));
        assert!(message.contains("2025-11-25"), "{message}");
        for method in ["GET", "DELETE"] {
            let headers = [&auth, &sse, &in_session, &version].map(Clone::clone);
            let answer = send(&address, method, "/mcp", &headers, "").await;
            refused_as(&answer, 400, "unsupported_protocol_version", &what(method));
        }
        // With a version in the request's `_meta` too, the answer is MCP's header mismatch
        // (-32020): kept, its message naming the header instead of quoting it.
        let listing = current("tools/list", json!({}));
        let answer = send(&address, "POST", "/mcp", &post, &listing).await;
        if kind != "not UTF-8" {
            let message = refused_as(&answer, 400, "-32020", &what("_meta"));
            assert!(message.contains("`MCP-Protocol-Version`"), "{message}");
        } else {
            quotes_nothing(&answer, &what("_meta"));
            assert_eq!(answer.status, 400, "{answer:#?}");
        }
        // The standard headers of 2026-07-28, at odds with the body.
        let call = current(
            "tools/call",
            json!({ "name": "orders_get", "arguments": {} }),
        );
        let calls = header("Mcp-Method", b"tools/call");
        for (name, with) in [("Mcp-Method", None), ("Mcp-Name", Some(&calls))] {
            let headers = [
                &auth,
                &json_and_sse,
                &json,
                &current_version,
                &header(name, &value),
            ];
            let headers: Vec<Vec<u8>> = headers.into_iter().chain(with).cloned().collect();
            let answer = send(&address, "POST", "/mcp", &headers, &call).await;
            quotes_nothing(&answer, &what(name));
            assert_eq!(answer.status, 400, "{name}: {answer:#?}");
            assert_eq!(answer.header("content-type"), Some("application/json"));
        }
        // A session nobody opened.
        let headers = [
            &auth,
            &json_and_sse,
            &json,
            &sessions,
            &header("Mcp-Session-Id", &value),
        ];
        let answer = send(&address, "POST", "/mcp", &headers.map(Clone::clone), &list).await;
        refused_as(&answer, 404, "unknown_session", &what("Mcp-Session-Id"));
        // `Accept` and `Content-Type` that are not MCP's.
        let headers = [
            &auth,
            &header("Accept", &value),
            &json,
            &sessions,
            &in_session,
        ];
        let answer = send(&address, "POST", "/mcp", &headers.map(Clone::clone), &list).await;
        refused_as(&answer, 406, "not_acceptable", &what("Accept"));
        let headers = [
            &auth,
            &json_and_sse,
            &header("Content-Type", &value),
            &sessions,
        ];
        let answer = send(&address, "POST", "/mcp", &headers.map(Clone::clone), &list).await;
        refused_as(
            &answer,
            415,
            "unsupported_media_type",
            &what("Content-Type"),
        );
        let headers = [&auth, &header("Accept", &value), &sessions, &in_session];
        let answer = send(&address, "GET", "/mcp", &headers.map(Clone::clone), "").await;
        refused_as(&answer, 406, "not_acceptable", &what("GET Accept"));
        // A `Last-Event-ID` no stream has: an empty stream (one that is
        // not text is no `Last-Event-ID`: it opens the session's own stream).
        if kind != "not UTF-8" {
            let last = header("Last-Event-ID", &value);
            let headers = [&auth, &sse, &sessions, &in_session, &last].map(Clone::clone);
            let answer = send(&address, "GET", "/mcp", &headers, "").await;
            quotes_nothing(&answer, &what("Last-Event-ID"));
            assert_eq!(answer.status, 200, "{answer:#?}");
        }
        // A token that is no token.
        let headers = [&header("Authorization", &[b"Bearer ", &value[..]].concat())];
        let answer = send(&address, "POST", "/mcp", &headers.map(Clone::clone), &list).await;
        refused_as(&answer, 401, "unauthorized", &what("Authorization"));

        // The other routes of the address judge none of these headers.
        let all = [
            &auth,
            &json_and_sse,
            &json,
            &version,
            &header("Mcp-Session-Id", &value),
        ];
        for (method, path, body, status) in [
            ("GET", "/tools", "", 200),
            ("POST", "/tools/orders_get", r#"{"order_id": 1}"#, 200),
            ("GET", "/openapi.json", "", 200),
            ("GET", "/no/such/path", "", 404),
        ] {
            let answer = send(&address, method, path, &all.map(Clone::clone), body).await;
            quotes_nothing(&answer, &what(path));
            assert_eq!(answer.status, status, "{path}: {answer:#?}");
        }
    }

    // Without a session: what the transport needs, said in the error shape.
    let headers = [&auth, &json_and_sse, &json, &sessions].map(Clone::clone);
    let answer = send(&address, "POST", "/mcp", &headers, &list).await;
    refused_as(&answer, 400, "session_required", "no session");
    // A method `/mcp` does not take, with what it takes.
    let answer = send(&address, "PUT", "/mcp", std::slice::from_ref(&auth), "").await;
    refused_as(&answer, 405, "method_not_allowed", "PUT");
    assert_eq!(answer.header("allow"), Some("GET, POST, DELETE"));
    // JSON that is no JSON-RPC message: not quoted either.
    let stray = json!({ "jsonrpc": format!("<b>{MARK}</b>"), "id": 1, "method": "x" });
    let headers = [&auth, &json_and_sse, &json, &sessions, &in_session].map(Clone::clone);
    let answer = send(&address, "POST", "/mcp", &headers, &stray.to_string()).await;
    refused_as(&answer, 415, "invalid_request", "stray JSON");
    // A second header line smuggled into a value is no header: the request is refused
    // before anything reads it, and nothing of it comes back.
    let smuggled = header("MCP-Protocol-Version", b"2025-11-25\r\n X-Injected: ZQXJ");
    let headers = [auth.clone(), json_and_sse.clone(), json.clone(), smuggled];
    let answer = send(&address, "POST", "/mcp", &headers, &list).await;
    quotes_nothing(&answer, "folded");
    assert_eq!(answer.status, 400, "{answer:#?}");
    assert!(answer.header("x-injected").is_none(), "{answer:#?}");

    // The session was never disturbed: a plain list still answers.
    let headers = [&auth, &json_and_sse, &json, &sessions, &in_session].map(Clone::clone);
    let answer = send(&address, "POST", "/mcp", &headers, &list).await;
    assert_eq!(answer.status, 200, "{answer:#?}");
    let data: Vec<Value> = (answer.body.lines())
        .filter_map(|line| line.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str(data).ok())
        .collect();
    assert!(
        data.iter().any(|m| m["result"]["tools"].is_array()),
        "{data:?}"
    );
}
