//! Requests of a session (protocol 2025-11-25). Plain `tools/call` requests, which the session
//! answers itself: the same status, type and events as the session's rmcp service answers, a
//! stream resumed with `Last-Event-ID` while open, progress streamed and a stream dropped
//! mid-call resumable, a call the client cancels left unanswered, and a session that is used
//! only through such calls kept open while it is used; a list with the tools a stateless
//! request lists; and a request whose id another request of the session still awaits its
//! answer with refused, whichever answers each.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;
use toolspec::Caller;
use toolspec::mcp::McpServer;
use toolspec::mcp::http::{HttpTransport, SessionLimits};

use crate::direct::{counting_registry, normalize};
use crate::raw_http::{self, RawAnswer};
use crate::support::*;

/// The protocol whose clients get sessions.
const PROTOCOL: &str = "2025-11-25";

/// The `_meta` key only rmcp reads, which sends a call through the session's worker.
const ONLY_RMCP_READS: (&str, Value) = ("io.example/trace", Value::Null);

/// A session with the server at `address`, as `token` (none: no `Authorization`): opened with
/// `initialize` and `notifications/initialized`. Its id.
pub(crate) async fn open_session(address: &str, token: Option<&str>) -> String {
    open_session_with(address, token, json!({})).await
}

/// [`open_session`] with a client declaring `capabilities`.
pub(crate) async fn open_session_with(
    address: &str,
    token: Option<&str>,
    capabilities: Value,
) -> String {
    let initialize = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": PROTOCOL,
            "capabilities": capabilities,
            "clientInfo": { "name": "raw", "version": "0" },
        },
    });
    let opened = post(address, token, None, &initialize).await;
    assert_eq!(opened.status, 200, "{opened:?}");
    let session = opened
        .header("mcp-session-id")
        .unwrap_or_else(|| panic!("a session: {opened:?}"))
        .to_owned();
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    let accepted = post(address, token, Some(&session), &initialized).await;
    assert_eq!(accepted.status, 202, "{accepted:?}");
    session
}

/// `message` posted to `address` as `token`, in `session` if given.
pub(crate) async fn post(
    address: &str,
    token: Option<&str>,
    session: Option<&str>,
    message: &Value,
) -> RawAnswer {
    post_text(address, token, session, &message.to_string()).await
}

/// `text` posted to `address` as `token`, in `session` if given, as it is.
async fn post_text(
    address: &str,
    token: Option<&str>,
    session: Option<&str>,
    text: &str,
) -> RawAnswer {
    let session = session.map(|id| format!("Mcp-Session-Id: {id}"));
    let version = format!("MCP-Protocol-Version: {PROTOCOL}");
    let headers: Vec<&str> = session
        .as_deref()
        .into_iter()
        .chain(session.is_some().then_some(version.as_str()))
        .collect();
    raw_http::post_mcp(address, token, &headers, text).await
}

/// A `tools/call` of `name` with `arguments` (left out when `None`) and `meta` in `_meta`
/// (none when empty).
fn call(id: Value, name: &str, arguments: Option<Value>, meta: &[(&str, Value)]) -> Value {
    let mut params = json!({ "name": name });
    if let Some(arguments) = arguments {
        params["arguments"] = arguments;
    }
    if !meta.is_empty() {
        params["_meta"] = meta
            .iter()
            .map(|(key, value)| ((*key).to_owned(), value.clone()))
            .collect::<serde_json::Map<_, _>>()
            .into();
    }
    json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params })
}

/// The events of an SSE body, each its lines; the stream number of each event id replaced
/// by `S` (each request's stream has its own).
fn events(body: &str) -> Vec<Vec<String>> {
    body.split("\n\n")
        .filter(|event| !event.trim().is_empty())
        .map(|event| {
            event
                .lines()
                .map(|line| match line.strip_prefix("id: ") {
                    Some(id) => format!("id: {}/S", id.split('/').next().unwrap_or_default()),
                    None => line.to_owned(),
                })
                .collect()
        })
        .collect()
}

/// The id of the last event of `body` that has one.
fn last_event_id(body: &str) -> String {
    body.lines()
        .rev()
        .find_map(|line| line.strip_prefix("id: "))
        .unwrap_or_else(|| panic!("an event id: {body}"))
        .to_owned()
}

/// The events of `session` after `last_event_id`, from `GET /mcp`.
async fn resume(address: &str, token: Option<&str>, session: &str, last: &str) -> RawAnswer {
    let authorization = token.map(|token| format!("Authorization: Bearer {token}"));
    let (session, last) = (
        format!("Mcp-Session-Id: {session}"),
        format!("Last-Event-ID: {last}"),
    );
    let version = format!("MCP-Protocol-Version: {PROTOCOL}");
    let headers: Vec<&str> = authorization
        .as_deref()
        .into_iter()
        .chain(["Accept: text/event-stream", &session, &version, &last])
        .collect();
    raw_http::send_to(address, "GET", "/mcp", &headers, "").await
}

#[tokio::test]
async fn a_plain_session_call_is_answered_as_the_sessions_service_answers_it() {
    let scratch = Scratch::new();
    let server = HttpServer::start_with(&scratch, TOKENS, &["--verbose"], None).await;
    let address = server.address();
    let sessions = [
        ("ada-token", open_session(&address, Some("ada-token")).await),
        (
            "grace-token",
            open_session(&address, Some("grace-token")).await,
        ),
    ];
    // Each case twice: plain, then with a key in `_meta` only rmcp reads, which sends it
    // through the session's worker. grace may not place orders: for her the tool does not
    // exist.
    let cases = [
        (0, "orders_get", Some(json!({ "order_id": 1 }))),
        (0, "orders_get", Some(json!({ "order_id": 999 }))),
        (0, "orders_get", Some(json!({ "order_id": "one" }))),
        (
            0,
            "orders_get",
            Some(json!({ "order_id": 1, "customer_id": 2 })),
        ),
        (0, "orders_get", None),
        (
            0,
            "explain",
            Some(json!({ "tool": "orders_get", "arguments": { "order_id": 1 } })),
        ),
        (
            0,
            "orders_place",
            Some(json!({ "lines": [{ "sku": "MUG-001", "quantity": 1 }] })),
        ),
        (
            1,
            "orders_place",
            Some(json!({ "lines": [{ "sku": "MUG-001", "quantity": 1 }] })),
        ),
        (0, "no_such_tool", Some(json!({}))),
    ];
    for (n, (who, name, arguments)) in cases.iter().enumerate() {
        let (token, session) = &sessions[*who];
        let (plain_id, rmcp_id) = (json!(100 + n), json!(format!("r{n}")));
        // Odd cases ask for progress (none of these tools reports any).
        let progress = [("progressToken", json!(n))];
        let asks = if n % 2 == 1 { &progress[..] } else { &[] };
        let through = [asks, &[ONLY_RMCP_READS]].concat();
        let ask = async |id: &Value, meta: &[(&str, Value)]| {
            let message = call(id.clone(), name, arguments.clone(), meta);
            post(&address, Some(token), Some(session), &message).await
        };
        let plain = ask(&plain_id, asks).await;
        let through_rmcp = ask(&rmcp_id, &through).await;
        assert_eq!(plain.status, 200, "case {n}: {plain:?}");
        assert_eq!(plain.status, through_rmcp.status, "case {n}: {name}");
        for header in ["content-type", "cache-control", "x-accel-buffering"] {
            assert_eq!(
                plain.header(header),
                through_rmcp.header(header),
                "case {n}: {name}"
            );
        }
        let plain_events = events(&normalize(&plain.body, &plain_id));
        assert_eq!(
            plain_events,
            events(&normalize(&through_rmcp.body, &rmcp_id)),
            "case {n}: {name}"
        );
        // The priming event (an id and `retry`), then the answer.
        assert_eq!(plain_events.len(), 2, "case {n}: {}", plain.body);
        assert!(
            plain.body.contains(&format!("\"id\":{plain_id}")),
            "{plain:?}"
        );
        // Once answered, a stream is not resumed: it is let go with its answer.
        if n == 0 {
            let first = |body: &str| {
                body.lines()
                    .find_map(|line| line.strip_prefix("id: "))
                    .unwrap()
                    .to_owned()
            };
            let again = resume(&address, Some(token), session, &first(&plain.body)).await;
            let again_rmcp =
                resume(&address, Some(token), session, &first(&through_rmcp.body)).await;
            assert_eq!((again.status, again.body.trim()), (200, ""), "{again:?}");
            assert_eq!(
                (again.status, &again.body),
                (again_rmcp.status, &again_rmcp.body)
            );
        }
    }
    // Each plain call was answered by the session, and only those.
    let log = server.log.text();
    let answered = log
        .matches("a session's call answered by the session")
        .count();
    assert_eq!(answered, cases.len(), "{log}");

    // A stream number that was never handed out resumes nothing.
    let (token, session) = &sessions[0];
    let never = resume(&address, Some(token), session, "0/9223372036854775999").await;
    assert_eq!((never.status, never.body.trim()), (200, ""), "{never:?}");

    // A plain call's headers are judged as any request's: another known protocol version
    // (answered, by the session's service), an unknown one (400), no SSE in `Accept` (406), a
    // `Mcp-Method` header that agrees (answered, by the session).
    let body = call(json!(7), "orders_get", Some(json!({ "order_id": 1 })), &[]).to_string();
    let session_header = format!("Mcp-Session-Id: {session}");
    let send = async |headers: &[&str]| {
        let all: Vec<&str> = ["Authorization: Bearer ada-token", &session_header]
            .into_iter()
            .chain(headers.iter().copied())
            .collect();
        raw_http::send_to(&address, "POST", "/mcp", &all, &body).await
    };
    let json_and_sse = "Accept: application/json, text/event-stream";
    let json = "Content-Type: application/json";
    let judged: [(&[&str], u16); 4] = [
        (
            &[json_and_sse, json, "MCP-Protocol-Version: 2025-06-18"],
            200,
        ),
        (
            &[json_and_sse, json, "MCP-Protocol-Version: 1999-01-01"],
            400,
        ),
        (
            &[
                "Accept: application/json",
                json,
                "MCP-Protocol-Version: 2025-11-25",
            ],
            406,
        ),
        (
            &[
                json_and_sse,
                json,
                "MCP-Protocol-Version: 2025-11-25",
                "Mcp-Method: tools/call",
            ],
            200,
        ),
    ];
    for (headers, status) in judged {
        let answer = send(headers).await;
        assert_eq!(answer.status, status, "{headers:?}: {answer:?}");
        if status == 200 {
            assert!(answer.body.contains(r#""result""#), "{answer:?}");
        }
    }
    let log = server.log.text();
    let answered = log
        .matches("a session's call answered by the session")
        .count();
    // The plain calls above, and the one whose `Mcp-Method` the session checked too.
    assert_eq!(answered, cases.len() + 1, "{log}");
}

#[tokio::test]
async fn a_session_list_carries_the_tools_a_stateless_list_carries() {
    let scratch = Scratch::new();
    let args = ["--verbose", "--page-size", "4"];
    let server = HttpServer::start_with(&scratch, TOKENS, &args, None).await;
    let address = server.address();
    for token in ["ada-token", "grace-token"] {
        let session = open_session(&address, Some(token)).await;
        // Page after page, each asked in the session (through its rmcp service, the tools
        // written from the listing's prepared page) and without one (by the transport).
        let mut cursor = Some(None);
        let mut pages = 0;
        while let Some(at) = cursor.take() {
            let params = match &at {
                Some(at) => json!({ "cursor": at }),
                None => json!({}),
            };
            let list =
                json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": params });
            let in_session = post(&address, Some(token), Some(&session), &list).await;
            assert_eq!(in_session.status, 200, "{in_session:?}");
            let data = in_session
                .body
                .lines()
                .filter_map(|line| line.strip_prefix("data: "))
                .find(|data| !data.is_empty())
                .expect("the list's event");
            let page: Value = serde_json::from_str(data).unwrap();
            let stateless = crate::direct::stateless(
                &address,
                Some(token),
                json!(7),
                "tools/list",
                params.clone(),
                &[],
            )
            .await
            .json();
            assert_eq!(page["id"], 7);
            for field in ["tools", "nextCursor"] {
                assert_eq!(
                    page["result"][field], stateless["result"][field],
                    "{token} at {at:?}: {field}"
                );
            }
            assert!(
                !page["result"]["tools"].as_array().unwrap().is_empty(),
                "{page}"
            );
            pages += 1;
            cursor = page["result"]["nextCursor"]
                .as_str()
                .map(|next| Some(next.to_owned()));
        }
        assert!(pages > 1, "the store's tools span pages of 4");
    }
}

/// The store's registry with `slow_count`, served over HTTP in this process with `limits`:
/// its address, and the receiver of how far cancelled calls had counted.
async fn counting_server(
    dir: &std::path::Path,
    limits: SessionLimits,
) -> (
    String,
    tokio::sync::mpsc::UnboundedReceiver<i64>,
    toolspec::CancellationToken,
) {
    let (registry, cancelled_rx) = counting_registry(dir).await;
    let server = McpServer::new(registry, Caller::new("ada"));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap().to_string();
    let shutdown = toolspec::CancellationToken::new();
    tokio::spawn(
        HttpTransport::new(server)
            .session_limits(limits)
            .serve(listener, shutdown.clone()),
    );
    (address, cancelled_rx, shutdown)
}

/// Writes `message` as a POST of `session` on a new connection to `address` and reads until
/// what was read contains `until`: the connection, and what it read.
async fn post_until(
    address: &str,
    session: &str,
    message: &Value,
    until: &str,
) -> (tokio::net::TcpStream, String) {
    post_until_as(address, None, session, message, until).await
}

/// [`post_until`] as `token` (none: no `Authorization`).
pub(crate) async fn post_until_as(
    address: &str,
    token: Option<&str>,
    session: &str,
    message: &Value,
    until: &str,
) -> (tokio::net::TcpStream, String) {
    let body = message.to_string();
    let authorization = token
        .map(|token| format!("Authorization: Bearer {token}\r\n"))
        .unwrap_or_default();
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\n{authorization}\
         Accept: application/json, text/event-stream\r\n\
         Content-Type: application/json\r\nMcp-Session-Id: {session}\r\n\
         MCP-Protocol-Version: {PROTOCOL}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let read = raw_http::read_until(&mut stream, until).await;
    (stream, read)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_streams_a_dropped_stream_resumes_and_a_cancelled_call_goes_unanswered() {
    let dir = tempfile::tempdir().unwrap();
    let (address, mut cancelled_rx, shutdown) =
        counting_server(dir.path(), SessionLimits::DEFAULT).await;
    let session = open_session(&address, None).await;

    // Progress, then the answer, as the worker streams them.
    let arguments = Some(json!({ "to": 3, "pace_ms": 1 }));
    let progress = ("progressToken", json!("p"));
    let ask = async |meta: &[(&str, Value)]| {
        let message = call(json!(1), "slow_count", arguments.clone(), meta);
        post(&address, None, Some(&session), &message).await
    };
    let plain = ask(std::slice::from_ref(&progress)).await;
    let through_rmcp = ask(&[progress.clone(), ONLY_RMCP_READS]).await;
    assert_eq!(plain.header("content-type"), Some("text/event-stream"));
    // The priming event, three progress events, then the answer.
    assert_eq!(events(&plain.body).len(), 5, "{}", plain.body);
    assert_eq!(events(&plain.body), events(&through_rmcp.body));

    // A client that goes away after the first progress event: the call goes on, and the
    // stream resumed from that event brings the rest and the answer.
    let counting = call(
        json!(2),
        "slow_count",
        Some(json!({ "to": 5, "pace_ms": 50 })),
        &[("progressToken", json!(2))],
    );
    let (stream, read) = post_until(&address, &session, &counting, "progressToken").await;
    drop(stream);
    let resumed = resume(&address, None, &session, &last_event_id(&read)).await;
    assert_eq!(resumed.status, 200, "{resumed:?}");
    assert!(
        resumed.body.contains(r#""counted":5"#),
        "the answer: {}",
        resumed.body
    );
    assert!(
        cancelled_rx.try_recv().is_err(),
        "the call was not cancelled"
    );

    // `notifications/cancelled`: the handler sees it, and the stream ends unanswered.
    let counting = call(
        json!(3),
        "slow_count",
        Some(json!({ "to": 1000, "pace_ms": 20 })),
        &[("progressToken", json!(3))],
    );
    let (stream, read) = post_until(&address, &session, &counting, "progressToken").await;
    let cancel = json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": { "requestId": 3, "reason": "enough" },
    });
    assert_eq!(
        post(&address, None, Some(&session), &cancel).await.status,
        202
    );
    let counted = tokio::time::timeout(PATIENCE, cancelled_rx.recv())
        .await
        .expect("the handler saw the cancellation")
        .unwrap();
    assert!(counted < 1000, "{counted}");
    let read = rest_of(stream, read).await;
    assert!(!read.contains(r#""result""#), "answered: {read}");
    // A cancelled stream is let go with its cancellation: resuming it gets nothing.
    let first = read
        .lines()
        .find_map(|line| line.strip_prefix("id: "))
        .expect("an event id");
    let resumed = resume(&address, None, &session, first).await;
    assert_eq!(
        (resumed.status, resumed.body.trim()),
        (200, ""),
        "{resumed:?}"
    );
    shutdown.cancel();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_used_only_through_calls_the_session_answers_stays_open_until_idle() {
    let dir = tempfile::tempdir().unwrap();
    let idle = Duration::from_millis(600);
    let limits = SessionLimits {
        idle_timeout: idle,
        ..SessionLimits::DEFAULT
    };
    let (address, _, shutdown) = counting_server(dir.path(), limits).await;
    let session = open_session(&address, None).await;
    let counting = call(
        json!(1),
        "slow_count",
        Some(json!({ "to": 1, "pace_ms": 1 })),
        &[],
    );
    // Used for three idle timeouts, a call every third of one: it stays open.
    for _ in 0..9 {
        let answer = post(&address, None, Some(&session), &counting).await;
        assert_eq!(answer.status, 200, "{answer:?}");
        assert!(answer.body.contains(r#""counted":1"#), "{answer:?}");
        tokio::time::sleep(idle / 3).await;
    }
    // Then left alone for twice that: it is gone.
    tokio::time::sleep(idle * 2).await;
    let gone = post(&address, None, Some(&session), &counting).await;
    assert_eq!(gone.status, 404, "{gone:?}");
    shutdown.cancel();
}

/// Reads what is left of `stream` until the server ends it: what it read, appended to `read`.
pub(crate) async fn rest_of(mut stream: tokio::net::TcpStream, mut read: String) -> String {
    let mut rest = Vec::new();
    tokio::time::timeout(
        PATIENCE,
        tokio::io::AsyncReadExt::read_to_end(&mut stream, &mut rest),
    )
    .await
    .expect("the stream ends")
    .unwrap();
    read += &String::from_utf8_lossy(&rest);
    read
}

/// How many events of the SSE text `read` answer request `id`.
fn answers_to(read: &str, id: &Value) -> usize {
    read.lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str::<Value>(data).ok())
        .filter(|message| message["id"] == *id && message.get("method").is_none())
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_id_in_flight_in_a_session_is_refused_and_free_again_once_answered() {
    let dir = tempfile::tempdir().unwrap();
    let (address, _, shutdown) = counting_server(dir.path(), SessionLimits::DEFAULT).await;
    let session = open_session(&address, None).await;
    let id = json!(79);
    let counting = |meta: &[(&str, Value)]| {
        let meta = [&[("progressToken", json!("p"))], meta].concat();
        call(
            id.clone(),
            "slow_count",
            Some(json!({ "to": 8, "pace_ms": 50 })),
            &meta,
        )
    };
    let quick = |meta: &[(&str, Value)]| {
        call(
            id.clone(),
            "slow_count",
            Some(json!({ "to": 1, "pace_ms": 1 })),
            meta,
        )
    };
    // Each way a call may go (answered by the session, or by its service) first, each way second.
    let ways: [&[(&str, Value)]; 2] = [&[], &[ONLY_RMCP_READS]];
    for first in ways {
        for second in ways {
            let case = format!("{first:?} then {second:?}");
            let (stream, read) =
                post_until(&address, &session, &counting(first), "progressToken").await;
            // While the first runs, its id is taken: the second is refused, and runs nothing.
            let refused = post(&address, None, Some(&session), &quick(second)).await;
            assert_eq!(refused.status, 400, "{case}: {refused:?}");
            assert_eq!(refused.header("content-type"), Some("application/json"));
            let error = refused.json();
            assert_eq!(error["id"], id, "{case}: {error}");
            assert_eq!(error["error"]["code"], -32600, "{case}: {error}");
            let message = error["error"]["message"].as_str().unwrap_or_default();
            assert!(message.contains("awaiting its answer"), "{case}: {message}");
            // The first is answered, once, on its own stream.
            let read = rest_of(stream, read).await;
            assert_eq!(answers_to(&read, &id), 1, "{case}: {read}");
            assert!(read.contains(r#""counted":8"#), "{case}: {read}");
            // Answered, the id is free again (JSON-RPC allows it): a call with it runs.
            let again = post(&address, None, Some(&session), &quick(second)).await;
            assert_eq!(again.status, 200, "{case}: {again:?}");
            assert_eq!(answers_to(&again.body, &id), 1, "{case}: {again:?}");
            assert!(again.body.contains(r#""counted":1"#), "{case}: {again:?}");
        }
    }
    // A cancelled call keeps its id until its handler has stopped; then it is free.
    let (stream, _) = post_until(&address, &session, &counting(&[]), "progressToken").await;
    let cancel = json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": { "requestId": 79, "reason": "enough" },
    });
    assert_eq!(
        post(&address, None, Some(&session), &cancel).await.status,
        202
    );
    drop(stream);
    let give_up = std::time::Instant::now() + PATIENCE;
    loop {
        let again = post(&address, None, Some(&session), &quick(&[])).await;
        if again.status == 200 {
            assert!(again.body.contains(r#""counted":1"#), "{again:?}");
            break;
        }
        assert_eq!(again.status, 400, "{again:?}");
        assert!(
            std::time::Instant::now() < give_up,
            "the id was never freed"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Ids are a session's own: another session may use 79 while this one does.
    let (stream, read) = post_until(&address, &session, &counting(&[]), "progressToken").await;
    let other = open_session(&address, None).await;
    let theirs = post(&address, None, Some(&other), &quick(&[])).await;
    assert_eq!(theirs.status, 200, "{theirs:?}");
    assert_eq!(answers_to(&rest_of(stream, read).await, &id), 1);
    shutdown.cancel();
}
