//! Durable tasks over MCP's tasks extension, end to end: the store's `orders_export`
//! (`task: optional`) called by a client that declares the extension answers a task handle;
//! `tasks/get` gives its progress and then exactly the result a direct call gives; another
//! caller's task is an unknown one; `tasks/cancel` stops the handler; a server killed with
//! `-9` mid-task leaves the task to the next process on the database, which finishes it; a
//! flood of task requests (over MCP and the HTTP API alike) is refused past the caller's
//! budget, and polling many tasks at their interval stays within it. A client without the
//! extension is refused `orders_report` (`task: required`) with a message that says what it
//! needs.

use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolResponse, CancelTaskParams, GetTaskParams, GetTaskResult, ProtocolVersion, TaskPayload,
    TaskStatus,
};
use serde_json::{Value, json};

use crate::support::{
    Client, HttpServer, Scratch, TASK_PATIENCE, get_task as get, params, protocol_error, result,
    submit, tasks_client, until_ended,
};

/// Polls task `id`, working, until its handler's progress shows: the message.
async fn progressed(client: &Client, id: &str) -> String {
    let give_up = Instant::now() + TASK_PATIENCE;
    loop {
        let task = get(client, id).await;
        assert_eq!(task.task.status(), TaskStatus::Working, "{task:?}");
        // Before a worker starts it, the message says it waits.
        if let Some(message) = task.task.task.status_message.clone()
            && !message.starts_with("Waiting")
        {
            return message;
        }
        assert!(Instant::now() < give_up, "no progress reached tasks/get");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The tool result a completed task inlines.
fn completed(task: &GetTaskResult) -> &rmcp::model::JsonObject {
    match &task.task.payload {
        TaskPayload::Completed { result } => result,
        other => panic!("expected a completed task, got {other:?}"),
    }
}

#[tokio::test]
async fn a_task_answers_a_handle_then_exactly_what_a_direct_call_answers() {
    let scratch = Scratch::new();
    let server = HttpServer::start(&scratch).await;
    for version in [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28] {
        let direct = server.client("ada-token", version.clone()).await;
        let tasks = tasks_client(&server, "ada-token", version.clone()).await;
        let expected = result(&direct, "orders_export", json!({ "status": "delivered" })).await;

        let id = submit(&tasks, "orders_export", json!({ "status": "delivered" })).await;
        // Created durably: readable at once.
        let first = get(&tasks, &id).await;
        assert_eq!(first.task.task.task_id, id);
        let ended = until_ended(&tasks, &id).await;
        assert_eq!(ended.task.status(), TaskStatus::Completed, "{ended:?}");
        let inlined = completed(&ended);
        assert_eq!(
            Value::Object(inlined.clone())["structuredContent"],
            serde_json::to_value(&expected).unwrap()["structuredContent"],
            "{version:?}"
        );
        assert_eq!(
            Value::Object(inlined.clone())["content"],
            serde_json::to_value(&expected).unwrap()["content"]
        );
        assert!(
            ended.task.task.poll_interval_ms.is_none(),
            "an ended task is not polled"
        );

        // The same tool, called by a client without the extension, runs inline.
        let inline = direct
            .call_tool_once(params("orders_export", json!({ "status": "delivered" })))
            .await
            .expect("an answer");
        assert!(
            matches!(inline, CallToolResponse::Complete(_)),
            "{inline:?}"
        );
    }
}

#[tokio::test]
async fn a_required_task_refuses_a_client_without_the_extension_saying_what_it_needs() {
    let scratch = Scratch::new();
    let server = HttpServer::start(&scratch).await;
    for version in [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28] {
        let client = server.client("ada-token", version.clone()).await;
        let refused = client
            .call_tool_once(params("orders_report", json!({})))
            .await
            .expect_err("refused");
        let rmcp::service::ServiceError::McpError(error) = refused else {
            panic!("not a JSON-RPC error: {refused}");
        };
        assert_eq!(error.code.0, -32021, "{version:?}");
        // A client shows the message: it names what the client must declare.
        assert_eq!(
            error.message,
            "`orders_report` runs only as a durable task: call it from a client that declares \
             MCP's tasks extension (`io.modelcontextprotocol/tasks`) in its capabilities; this \
             client does not."
        );
        assert_eq!(
            error.data,
            Some(json!({
                "requiredCapabilities": { "extensions": { "io.modelcontextprotocol/tasks": {} } }
            }))
        );
    }
}

#[tokio::test]
async fn another_callers_task_answers_as_an_unknown_one() {
    let scratch = Scratch::new();
    let server = HttpServer::start(&scratch).await;
    let version = ProtocolVersion::V_2025_11_25;
    let ada = tasks_client(&server, "ada-token", version.clone()).await;
    let grace = tasks_client(&server, "grace-token", version).await;
    let id = submit(&ada, "orders_export", json!({})).await;

    let unknown = "0123456789abcdef0123456789abcdef";
    let of = |e| protocol_error(e);
    let theirs = of(grace.get_task(GetTaskParams::new(&id)).await.unwrap_err());
    let nobodys = of(grace
        .get_task(GetTaskParams::new(unknown))
        .await
        .unwrap_err());
    assert_eq!(theirs, nobodys);
    assert_eq!(theirs.0, -32602);
    let theirs = of(grace
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap_err());
    let nobodys = of(grace
        .cancel_task(CancelTaskParams::new(unknown))
        .await
        .unwrap_err());
    assert_eq!(theirs, nobodys);

    // A malformed id is refused before the database is asked, also as invalid params.
    for malformed in ["", "../../etc/passwd", "DROP TABLE toolspec_tasks"] {
        let (code, message) = of(ada
            .get_task(GetTaskParams::new(malformed))
            .await
            .unwrap_err());
        assert_eq!(code, -32602, "{malformed}");
        assert!(message.contains("not a task id"), "{message}");
    }

    // Grace's attempt cancelled nothing: Ada's export completes.
    let ended = until_ended(&ada, &id).await;
    assert_eq!(ended.task.status(), TaskStatus::Completed);
}

#[tokio::test]
async fn cancelling_a_task_stops_its_handler_and_is_idempotent() {
    let scratch = Scratch::new();
    let server = HttpServer::start(&scratch).await;
    let client = tasks_client(&server, "ada-token", ProtocolVersion::V_2025_11_25).await;
    // Four orders at a second each: the export runs four seconds unless cancelled.
    let id = submit(&client, "orders_export", json!({ "pace_ms": 1000 })).await;
    // Once it reports progress, the handler spends its time in the pause between orders.
    progressed(&client, &id).await;

    client
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .expect("an empty acknowledgement");
    let task = get(&client, &id).await;
    assert_eq!(task.task.status(), TaskStatus::Cancelled, "{task:?}");
    // The run was stopped by its cancellation (the handler's token fired), long before its
    // four seconds.
    let ended = server.log.wait_for(&["task ended", &id]).await;
    assert!(ended.contains("status=cancelled"), "{ended}");
    // Cancelling an ended task is acknowledged the same way, and changes nothing.
    client
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .expect("the same acknowledgement");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(get(&client, &id).await.task.status(), TaskStatus::Cancelled);
}

#[tokio::test]
async fn a_task_whose_server_was_killed_is_finished_by_the_next_process() {
    let scratch = Scratch::new();
    let server = HttpServer::start(&scratch).await;
    let client = tasks_client(&server, "ada-token", ProtocolVersion::V_2025_11_25).await;
    let id = submit(&client, "orders_export", json!({ "pace_ms": 1000 })).await;

    // Its progress reaches tasks/get while it runs.
    let message = progressed(&client, &id).await;
    assert!(message.starts_with("exported "), "{message}");
    drop(client);
    let status = server.stop_with("-9").await;
    assert!(!status.success(), "killed: {status:?}");

    let server = HttpServer::start(&scratch).await;
    let client = tasks_client(&server, "ada-token", ProtocolVersion::V_2025_11_25).await;
    let ended = until_ended(&client, &id).await;
    assert_eq!(ended.task.status(), TaskStatus::Completed, "{ended:?}");
    let inlined = Value::Object(completed(&ended).clone());
    assert_eq!(inlined["structuredContent"]["count"], json!(4), "{inlined}");

    let attempts = attempts(&scratch, &id).await;
    assert_eq!(
        attempts, 2,
        "run once by the killed process, once by the next"
    );
}

/// How many times task `id` was started, read from the store's SQLite file.
async fn attempts(scratch: &Scratch, id: &str) -> i64 {
    let url = format!("sqlite://{}", scratch.db().display());
    let pool = sqlx::SqlitePool::connect(&url)
        .await
        .expect("the store's file");
    sqlx::query_scalar("SELECT attempts FROM toolspec_tasks WHERE id = $1")
        .bind(id)
        .fetch_one(&pool)
        .await
        .expect("the task's row")
}

#[tokio::test]
async fn a_task_stored_over_http_survives_its_server_killed() {
    let scratch = Scratch::new();
    let server = HttpServer::start(&scratch).await;
    let base = server.url.trim_end_matches("/mcp").to_owned();
    let http = reqwest::Client::new();
    let stored = http
        .post(format!("{base}/tools/orders_export"))
        .bearer_auth("ada-token")
        .header("prefer", "respond-async")
        .body(r#"{"pace_ms": 1000}"#)
        .send()
        .await
        .expect("an answer");
    assert_eq!(stored.status(), 202);
    let location = stored.headers()["location"].to_str().unwrap().to_owned();
    server.log.wait_for(&["task started"]).await;
    let status = server.stop_with("-9").await;
    assert!(!status.success(), "killed: {status:?}");

    let server = HttpServer::start(&scratch).await;
    let base = server.url.trim_end_matches("/mcp").to_owned();
    let give_up = Instant::now() + TASK_PATIENCE;
    let task: Value = loop {
        let answer = http
            .get(format!("{base}{location}"))
            .bearer_auth("ada-token")
            .send()
            .await
            .expect("an answer");
        assert_eq!(answer.status(), 200);
        let task: Value = answer.json().await.expect("JSON");
        if task["status"] != "working" {
            break task;
        }
        assert!(Instant::now() < give_up, "never ended: {task}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(task["result"]["count"], json!(4), "{task}");
}

#[tokio::test]
async fn the_cli_stores_waits_for_lists_and_cancels_tasks() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let cli = |args: &[&str]| {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_toolspec-store"))
            .arg("--db")
            .arg(&db)
            .args(args)
            .output()
            .expect("the CLI runs");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        (
            output.status.code(),
            stdout,
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    };
    let (code, waited, _) = cli(&[
        "call",
        "orders_export",
        "--task",
        "--wait",
        "--as",
        "customer_id=1",
    ]);
    let waited: Value = serde_json::from_str(&waited).expect("the task as JSON");
    assert_eq!(
        (code, &waited["status"]),
        (Some(0), &json!("completed")),
        "{waited}"
    );
    assert_eq!(waited["result"]["count"], json!(4));

    let (code, stored, _) = cli(&[
        "call",
        "orders_export",
        r#"{"pace_ms": 1000}"#,
        "--task",
        "--as",
        "customer_id=1",
    ]);
    let stored: Value = serde_json::from_str(&stored).expect("the task as JSON");
    assert_eq!((code, &stored["status"]), (Some(0), &json!("working")));
    let id = stored["task_id"].as_str().unwrap();
    let (_, listed, _) = cli(&["tasks", "list"]);
    let listed: Value = serde_json::from_str(&listed).unwrap();
    assert_eq!(listed["tasks"][0]["task_id"], stored["task_id"], "{listed}");
    // Another caller's task is unknown to it.
    let (code, _, stderr) = cli(&["tasks", "get", id, "--caller", "mallory"]);
    assert_eq!(code, Some(2), "{stderr}");
    let (code, cancelled, _) = cli(&["tasks", "cancel", id]);
    let cancelled: Value = serde_json::from_str(&cancelled).unwrap();
    assert_eq!((code, &cancelled["status"]), (Some(0), &json!("cancelled")));
    let (code, _, stderr) = cli(&["tasks", "get", "not-an-id"]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("not a task id"), "{stderr}");
    // A tool that does not run as a task is a usage error.
    let (code, _, stderr) = cli(&[
        "call",
        "orders_get",
        r#"{"order_id": 1}"#,
        "--task",
        "--as",
        "customer_id=1",
    ]);
    assert_eq!(code, Some(2), "{stderr}");
}

#[tokio::test]
async fn over_stdio_a_task_runs_in_the_server_and_is_read_with_tasks_get() {
    let scratch = Scratch::new();
    let recorder = crate::support::Recorder::new(ProtocolVersion::V_2025_11_25).with_tasks();
    let (client, _log) = crate::support::stdio_as(
        scratch.db().as_os_str(),
        &["--as", "customer_id=1"],
        recorder,
    )
    .await;
    let id = submit(&client, "orders_export", json!({ "status": "delivered" })).await;
    let ended = until_ended(&client, &id).await;
    assert_eq!(ended.task.status(), TaskStatus::Completed, "{ended:?}");
    let inlined = Value::Object(completed(&ended).clone());
    assert_eq!(inlined["structuredContent"]["count"], json!(1), "{inlined}");
    // The server declared the extension in its initialize answer.
    let info = client.peer_info().expect("the server's info");
    assert!(
        info.capabilities.supports_tasks(),
        "{:?}",
        info.capabilities
    );
}

/// A request to the HTTP API of `server` as `token` (preferring a task, with `body` when it
/// posts): its status, `Retry-After` and body.
async fn api_with(
    client: &reqwest::Client,
    server: &HttpServer,
    (method, path): (reqwest::Method, &str),
    token: &str,
    body: &str,
) -> (u16, Option<String>, Value) {
    let url = format!("http://{}{path}", server.address());
    let response = client
        .request(method, url)
        .header("authorization", format!("Bearer {token}"))
        .header("prefer", "respond-async")
        .body(body.to_owned())
        .send()
        .await
        .expect("an answer");
    let status = response.status().as_u16();
    let retry = (response.headers().get("retry-after"))
        .map(|value| value.to_str().unwrap_or_default().to_owned());
    let body = response.json().await.unwrap_or(Value::Null);
    (status, retry, body)
}

/// [`api_with`] without a body.
async fn api(
    client: &reqwest::Client,
    server: &HttpServer,
    method: reqwest::Method,
    path: &str,
    token: &str,
) -> (u16, Option<String>, Value) {
    api_with(client, server, (method, path), token, "").await
}

/// Starts an export as Ada over the HTTP API of `server`, running about `seconds` (four orders
/// at a pace): its task id.
async fn export(client: &reqwest::Client, server: &HttpServer, seconds: u64) -> String {
    let body = json!({ "pace_ms": seconds * 250 }).to_string();
    let call = (reqwest::Method::POST, "/tools/orders_export");
    let (status, _, task) = api_with(client, server, call, "ada-token", &body).await;
    assert_eq!(status, 202, "{task}");
    task["task_id"].as_str().expect("a task id").to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_flood_of_task_requests_is_refused_past_the_callers_budget_with_when_to_retry() {
    let scratch = Scratch::new();
    // Twenty a minute: none refills while the test runs.
    let args = ["--task-request-limit", "20/60"];
    let server = HttpServer::start_with(&scratch, crate::support::TOKENS, &args, None).await;
    let http = reqwest::Client::new();
    let id = export(&http, &server, 2).await;
    let read = format!("/tasks/{id}");
    // Two hundred reads at once: the budget's twenty pass, the rest are refused, each saying
    // when to retry.
    let flood = (0..200).map(|_| api(&http, &server, reqwest::Method::GET, &read, "ada-token"));
    let answers = futures_util::future::join_all(flood).await;
    let passed = answers.iter().filter(|(status, ..)| *status == 200).count();
    let refused: Vec<_> = answers
        .iter()
        .filter(|(status, ..)| *status == 429)
        .collect();
    assert_eq!((passed, refused.len()), (20, 180), "{answers:?}");
    for (_, retry, body) in &refused {
        assert_eq!(body["error"], "rate_limited", "{body}");
        let seconds = body["details"]["retry_after"].as_u64().unwrap_or_default();
        assert!((1..=3).contains(&seconds), "{body}");
        assert_eq!(
            retry.as_deref(),
            Some(seconds.to_string().as_str()),
            "{body}"
        );
        let message = body["message"].as_str().unwrap_or_default();
        assert!(message.contains("task requests"), "{message}");
    }
    // Listing and cancelling spend the same budget; so does MCP's `tasks/get`, refused with a
    // JSON-RPC error that says when to retry.
    for (method, path) in [
        (reqwest::Method::GET, "/tasks"),
        (reqwest::Method::DELETE, read.as_str()),
    ] {
        let (status, _, body) = api(&http, &server, method, path, "ada-token").await;
        assert_eq!(
            (status, &body["error"]),
            (429, &json!("rate_limited")),
            "{path}: {body}"
        );
    }
    let mcp = tasks_client(&server, "ada-token", ProtocolVersion::V_2025_11_25).await;
    let refused = mcp.get_task(GetTaskParams::new(&id)).await.unwrap_err();
    let rmcp::ServiceError::McpError(error) = refused else {
        panic!("not a JSON-RPC error: {refused:?}");
    };
    assert_eq!(error.code.0, -32000, "{error:?}");
    let data = error.data.clone().unwrap_or_default();
    assert_eq!(data["code"], "rate_limited", "{error:?}");
    assert!(
        (1..=3).contains(&data["retry_after"].as_u64().unwrap_or_default()),
        "{error:?}"
    );
    assert!(error.message.contains("task requests"), "{error:?}");
    // Grace's budget is her own; and Ada's task ran on, untouched by the flood.
    let (status, _, body) = api(
        &http,
        &server,
        reqwest::Method::GET,
        "/tasks",
        "grace-token",
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let direct = server
        .client("ada-token", ProtocolVersion::V_2025_11_25)
        .await;
    let count = result(&direct, "orders_get", json!({ "order_id": 1 })).await;
    assert_eq!(count.is_error, Some(false));
}

#[tokio::test(flavor = "multi_thread")]
async fn polling_many_tasks_at_their_interval_stays_within_the_default_budget() {
    let scratch = Scratch::new();
    let server = HttpServer::start(&scratch).await;
    let http = reqwest::Client::new();
    let mcp = tasks_client(&server, "ada-token", ProtocolVersion::V_2025_11_25).await;
    let mut ids = Vec::new();
    for _ in 0..12 {
        ids.push(export(&http, &server, 1).await);
    }
    // Each task read at the interval it advertises, over both APIs, until every one ended.
    let mut reads = 0;
    loop {
        let mut working = 0;
        let mut interval = None;
        for (n, id) in ids.iter().enumerate() {
            let status = if n % 2 == 0 {
                let path = format!("/tasks/{id}");
                let (status, _, task) =
                    api(&http, &server, reqwest::Method::GET, &path, "ada-token").await;
                assert_eq!(status, 200, "{task}");
                interval = interval.or(task["poll_interval_ms"].as_u64());
                task["status"].as_str().unwrap_or_default().to_owned()
            } else {
                let task = get(&mcp, id).await;
                interval = interval.or(task.task.task.poll_interval_ms);
                format!("{:?}", task.task.status()).to_lowercase()
            };
            reads += 1;
            working += usize::from(status == "working");
        }
        let (status, _, listed) =
            api(&http, &server, reqwest::Method::GET, "/tasks", "ada-token").await;
        assert_eq!(status, 200, "{listed}");
        if working == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(interval.unwrap_or(1000))).await;
    }
    assert!(reads >= 24, "{reads} reads");
    // A burst well past what polling needs passes as well.
    let read = format!("/tasks/{}", ids[0]);
    let burst = (0..150).map(|_| api(&http, &server, reqwest::Method::GET, &read, "ada-token"));
    let answers = futures_util::future::join_all(burst).await;
    assert!(
        answers.iter().all(|(status, ..)| *status == 200),
        "{answers:?}"
    );
}
