//! `POST /agent` end to end: the store's binary (`serve --http … --model-url …`) on a fresh
//! SQLite file, its model the scripted fake of `support/fake_model.rs`, driven with real HTTP
//! requests and bearer tokens: the reply and the tool calls, the token's caller as the only
//! source of the ambient context and scopes, and each failure's status.

#[path = "support/fake_model.rs"]
mod fake_model;

use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::Duration;

use fake_model::{FakeOpenAi, Reply, offered, text, tool_calls, tool_messages, tool_result};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

/// The example store's binary, built by cargo for this test.
const BINARY: &str = env!("CARGO_BIN_EXE_toolspec-store");

/// How long the server may take to start listening before the test fails.
const PATIENCE: Duration = Duration::from_secs(30);

const TOKENS: &str = r#"{
  "ada-token": { "id": "ada", "ambient": { "customer_id": 1 },
                 "scopes": ["orders:read", "orders:write", "payments:refund"] },
  "grace-token": { "id": "grace", "ambient": { "customer_id": 2 }, "scopes": ["orders:read"] }
}"#;

/// The store's binary serving HTTP on a loopback port, over its own database and tokens.
struct Server {
    base: String,
    client: reqwest::Client,
    child: tokio::process::Child,
    dir: tempfile::TempDir,
}

impl Server {
    /// `serve --http` with `args` after it (`--model-url …`); waits until it listens.
    async fn start(args: &[&str]) -> Self {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let tokens = dir.path().join("tokens.json");
        std::fs::write(&tokens, TOKENS).expect("write the tokens file");
        let mut child = tokio::process::Command::new(BINARY)
            .arg("--db")
            .arg(dir.path().join("store.db"))
            .args(["serve", "--http", "127.0.0.1:0", "--tokens"])
            .arg(&tokens)
            .args(args)
            .env_remove("OPENAI_API_KEY")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start the store binary");
        let mut lines = BufReader::new(child.stderr.take().expect("piped stderr")).lines();
        let base = tokio::time::timeout(PATIENCE, async {
            while let Some(line) = lines.next_line().await.expect("the server's stderr") {
                eprintln!("server: {line}");
                if let Some(url) = line.strip_prefix("HTTP API: ") {
                    return url.trim().trim_end_matches("/tools").to_owned();
                }
            }
            panic!("the server exited before listening");
        })
        .await
        .expect("the server listens in time");
        // Keep reading, so that the server never blocks on a full pipe.
        tokio::spawn(async move {
            while let Ok(Some(line)) = lines.next_line().await {
                eprintln!("server: {line}");
            }
        });
        Self {
            base,
            client: reqwest::Client::new(),
            child,
            dir,
        }
    }

    /// The store with `/agent` asking the model at `model_url`, and `args` besides.
    async fn with_model(model_url: &str, args: &[&str]) -> Self {
        let mut all = vec!["--model-url", model_url, "--model", "fake-model"];
        all.extend(args);
        Self::start(&all).await
    }

    /// `POST /agent` with `body` as `token`: the status, the JSON answer and the headers.
    async fn agent(
        &self,
        token: Option<&str>,
        body: &str,
    ) -> (u16, Value, reqwest::header::HeaderMap) {
        let mut request = self
            .client
            .post(format!("{}/agent", self.base))
            .header("content-type", "application/json")
            .body(body.to_owned());
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        let response = request.send().await.expect("an answer from /agent");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.expect("the answer's body");
        let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, body, headers)
    }

    /// Stops the server (SIGTERM: it writes the audit records still queued first), then
    /// reads its audit trail: how many calls of `tool` were recorded with each outcome.
    async fn recorded_calls(mut self, tool: &str) -> BTreeMap<String, u64> {
        let pid = self.child.id().expect("the server runs").to_string();
        let killed = tokio::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .await
            .expect("kill runs");
        assert!(killed.success());
        let exited = tokio::time::timeout(PATIENCE, self.child.wait()).await;
        assert!(
            exited
                .expect("the server exits")
                .expect("its status")
                .success()
        );
        let audit = tokio::process::Command::new(BINARY)
            .arg("--db")
            .arg(self.dir.path().join("store.db"))
            .args(["audit", "--json", "--limit", "1000", "--tool", tool])
            .output()
            .await
            .expect("audit runs");
        let page: Value = serde_json::from_slice(&audit.stdout).expect("the audit page as JSON");
        let mut outcomes = BTreeMap::new();
        for record in page["records"].as_array().expect("records") {
            let outcome = record["outcome"].as_str().unwrap_or("none").to_owned();
            *outcomes.entry(outcome).or_default() += 1;
        }
        outcomes
    }

    async fn ask(&self, token: &str, message: &str) -> (u16, Value) {
        let body = json!({ "message": message }).to_string();
        let (status, body, _) = self.agent(Some(token), &body).await;
        (status, body)
    }
}

/// The one error shape: exactly `error` and `message`.
fn assert_failure(body: &Value, code: &str) {
    assert_eq!(body["error"], code, "{body:#}");
    assert!(
        body["message"].as_str().is_some_and(|m| !m.is_empty()),
        "{body:#}"
    );
    assert_eq!(body.as_object().map(|o| o.len()), Some(2), "{body:#}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_message_is_answered_with_the_reply_and_the_tool_calls_that_ran_on_the_store() {
    let (fake, model_url) = FakeOpenAi::start(vec![
        tool_calls(&[("call_1", "orders_get", json!({"order_id": 1}))]),
        text("Order 1 is pending: two mugs, 25.00 EUR in total."),
    ])
    .await;
    let server = Server::with_model(&model_url, &[]).await;

    let (status, body) = server.ask("ada-token", "What is in my order 1?").await;
    assert_eq!(status, 200, "{body:#}");
    assert_eq!(
        body["reply"],
        "Order 1 is pending: two mugs, 25.00 EUR in total."
    );
    let calls = body["tool_calls"].as_array().expect("tool_calls");
    assert_eq!(calls.len(), 1, "{body:#}");
    assert_eq!(calls[0]["tool"], "orders_get");
    assert_eq!(calls[0]["arguments"], json!({"order_id": 1}));
    let order = &calls[0]["result"]["order"];
    assert_eq!(
        (&order["id"], &order["status"]),
        (&json!(1), &json!("pending"))
    );
    assert_eq!(order["total"], json!({"amount": 2500, "currency": "EUR"}));
    assert!(calls[0].get("error").is_none(), "{body:#}");

    // The model was asked by name, offered Ada's tools, and given the same result.
    let requests = fake.requests();
    assert_eq!(requests.len(), 2, "{requests:#?}");
    assert_eq!(requests[0]["model"], "fake-model");
    assert_eq!(
        offered(&requests[0]),
        [
            "customers_me",
            "explain",
            "orders_cancel",
            "orders_export",
            "orders_get",
            "orders_place",
            "orders_refund",
            "orders_report",
            "orders_search",
            "task_status"
        ]
    );
    assert!(requests[0].to_string().contains("What is in my order 1?"));
    let sent = tool_result(&tool_messages(&requests[1]), "call_1").clone();
    assert_eq!(sent, calls[0]["result"]);
    // No key configured: no `Authorization` header to the model.
    assert_eq!(fake.authorizations(), [None, None]);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_tools_run_as_the_tokens_caller_whatever_the_model_sends() {
    // The model tries to reach customer 2's orders in every way it can name.
    let script = || {
        vec![
            tool_calls(&[
                ("by_argument", "orders_search", json!({"customer_id": 2})),
                (
                    "by_context",
                    "orders_search",
                    json!({"ambient_context": {"customer_id": 2}}),
                ),
                ("by_id", "orders_get", json!({"order_id": 5})),
                (
                    "me",
                    "customers_me",
                    json!({"ambient_context": {"customer_id": 2}}),
                ),
            ]),
            text("Done."),
        ]
    };
    let (fake, model_url) = FakeOpenAi::start(script()).await;
    let server = Server::with_model(&model_url, &[]).await;
    let (status, body) = server
        .ask("ada-token", "Show me customer 2's orders.")
        .await;
    assert_eq!(status, 200, "{body:#}");
    assert_eq!(body["reply"], "Done.");
    let calls = body["tool_calls"].as_array().expect("tool_calls");
    let call = |tool: &str, arguments: Value| {
        calls
            .iter()
            .find(|c| c["tool"] == tool && c["arguments"] == arguments)
            .unwrap_or_else(|| panic!("no call of {tool} with {arguments} in {body:#}"))
    };
    // An undeclared argument is refused (a query tool's filters are its parameters).
    let refused = &call("orders_search", json!({"customer_id": 2}))["error"];
    assert_eq!(refused["error"], "invalid_arguments", "{refused:#}");
    assert_eq!(
        refused["details"]["errors"][0]["field"], "/customer_id",
        "{refused:#}"
    );
    // A model-sent context is dropped: Ada's orders (1 to 4) answer, never order 5.
    let found = &call(
        "orders_search",
        json!({"ambient_context": {"customer_id": 2}}),
    )["result"];
    let ids: Vec<&Value> = found["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["id"])
        .collect();
    assert_eq!(
        ids,
        [&json!(1), &json!(2), &json!(3), &json!(4)],
        "{found:#}"
    );
    // Another customer's order does not exist for Ada.
    let missing = &call("orders_get", json!({"order_id": 5}))["error"];
    assert_eq!(missing["error"], "not_found", "{missing:#}");
    let me = &call(
        "customers_me",
        json!({"ambient_context": {"customer_id": 2}}),
    )["result"];
    assert_eq!(me["name"], "Ada Lovelace", "{me:#}");
    let everything = format!("{body} {:?}", fake.requests());
    assert!(
        !everything.contains("Grace Hopper"),
        "customer 2 leaked: {everything}"
    );
    assert!(
        !everything.contains("CABLE-USB-C\",\"quantity\":2"),
        "order 5 leaked: {everything}"
    );

    // Grace's token: her context, and only the tools her read-only scope reaches.
    let (fake, model_url) = FakeOpenAi::start(script()).await;
    let server = Server::with_model(&model_url, &[]).await;
    let (status, body) = server.ask("grace-token", "Who am I?").await;
    assert_eq!(status, 200, "{body:#}");
    let calls = body["tool_calls"].as_array().expect("tool_calls");
    let me = calls
        .iter()
        .find(|c| c["tool"] == "customers_me")
        .expect("customers_me");
    assert_eq!(me["result"]["name"], "Grace Hopper", "{body:#}");
    let mine = calls
        .iter()
        .find(|c| c["tool"] == "orders_get")
        .expect("orders_get");
    assert_eq!(mine["result"]["order"]["id"], 5, "{body:#}");
    let offered = offered(&fake.requests()[0]);
    assert!(offered.contains(&"orders_search".to_owned()), "{offered:?}");
    for write in ["orders_cancel", "orders_place", "orders_refund"] {
        assert!(
            !offered.contains(&write.to_owned()),
            "{write} offered to Grace: {offered:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_request_without_a_valid_token_gets_401_and_never_reaches_the_model() {
    let (fake, model_url) = FakeOpenAi::start(vec![text("Hello.")]).await;
    let server = Server::with_model(&model_url, &[]).await;
    let body = r#"{"message": "Hello?"}"#;
    for token in [None, Some("not-a-token")] {
        let (status, answer, headers) = server.agent(token, body).await;
        assert_eq!(status, 401, "{answer:#}");
        assert_failure(&answer, "unauthorized");
        let challenge = headers["www-authenticate"].to_str().unwrap();
        assert!(challenge.starts_with("Bearer"), "{challenge}");
    }
    assert!(fake.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_empty_oversized_or_malformed_message_gets_422() {
    let (fake, model_url) = FakeOpenAi::start(vec![text("Hello.")]).await;
    let server = Server::with_model(&model_url, &[]).await;
    let long = json!({ "message": "a".repeat(8 * 1024 + 1) }).to_string();
    for (body, says) in [
        ("{}", "needs a `message`"),
        (r#"{"message": ""}"#, "empty"),
        (r#"{"message": " \n\t "}"#, "empty"),
        (long.as_str(), "the most is 8192"),
        (r#"{"message": 42}"#, "must be a string"),
        (r#"["Hello?"]"#, "must be a JSON object"),
        ("Hello?", "not JSON"),
        ("", "not JSON"),
        (
            r#"{"message": "Hello?", "ambient": {"customer_id": 2}}"#,
            "unknown key `ambient`",
        ),
    ] {
        let (status, answer, _) = server.agent(Some("ada-token"), body).await;
        assert_eq!(status, 422, "{body:.80}: {answer:#}");
        assert_failure(&answer, "invalid_request");
        let message = answer["message"].as_str().unwrap();
        assert!(message.contains(says), "{body:.80}: {message}");
    }
    // A body past the limit is refused before it is read whole.
    let huge = json!({ "message": "a".repeat(100 * 1024) }).to_string();
    let (status, answer, _) = server.agent(Some("ada-token"), &huge).await;
    assert_eq!(status, 413, "{answer:#}");
    assert_failure(&answer, "too_large");
    assert!(fake.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failing_or_garbled_model_gets_502() {
    for reply in [
        Reply::Raw(
            500,
            r#"{"error": {"message": "overloaded", "type": "server_error"}}"#.into(),
        ),
        Reply::Raw(200, "this is not a chat completion".into()),
        Reply::Raw(200, r#"{"id": "x", "choices": []}"#.into()),
    ] {
        let (fake, model_url) = FakeOpenAi::scripted(vec![reply]).await;
        let server = Server::with_model(&model_url, &[]).await;
        let (status, body) = server.ask("ada-token", "Hello?").await;
        assert_eq!(status, 502, "{body:#}");
        assert_failure(&body, "model_failed");
        // The endpoint's address stays with the operator.
        assert!(!body.to_string().contains(&model_url), "{body:#}");
        assert_eq!(fake.requests().len(), 1);
    }
    // Nothing listening there at all.
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/v1", listener.local_addr().unwrap())
    };
    let server = Server::with_model(&closed, &[]).await;
    let (status, body) = server.ask("ada-token", "Hello?").await;
    assert_eq!(status, 502, "{body:#}");
    assert_failure(&body, "model_failed");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_past_its_model_calls_or_its_time_gets_504() {
    let again = |id: &str| tool_calls(&[(id, "customers_me", json!({}))]);
    let (fake, model_url) =
        FakeOpenAi::start(vec![again("c1"), again("c2"), again("c3"), text("Late.")]).await;
    let server = Server::with_model(&model_url, &["--agent-max-turns", "2"]).await;
    let (status, body) = server.ask("ada-token", "Who am I?").await;
    assert_eq!(status, 504, "{body:#}");
    assert_failure(&body, "turn_limit");
    assert!(
        body["message"].as_str().unwrap().contains("2 model calls"),
        "{body:#}"
    );
    assert_eq!(fake.requests().len(), 2);

    let (_fake, model_url) = FakeOpenAi::scripted(vec![Reply::Stall]).await;
    let server = Server::with_model(&model_url, &["--agent-timeout", "0.5"]).await;
    let (status, body) = server.ask("ada-token", "Who am I?").await;
    assert_eq!(status, 504, "{body:#}");
    assert_failure(&body, "timeout");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_model_url_there_is_no_agent() {
    let server = Server::start(&[]).await;
    let (status, _, _) = server
        .agent(Some("ada-token"), r#"{"message": "Hello?"}"#)
        .await;
    assert_eq!(status, 404);
    // The rest of the server is there.
    let tools = server
        .client
        .get(format!("{}/tools", server.base))
        .header("authorization", "Bearer ada-token")
        .send()
        .await
        .unwrap();
    assert_eq!(tools.status().as_u16(), 200);
}

/// An assistant reply calling `customers_me` `count` times, the calls `{prefix}0`, `{prefix}1`…
fn many_calls(prefix: &str, count: usize) -> Value {
    let ids: Vec<String> = (0..count).map(|i| format!("{prefix}{i}")).collect();
    let calls: Vec<(&str, &str, Value)> = ids
        .iter()
        .map(|id| (id.as_str(), "customers_me", json!({})))
        .collect();
    tool_calls(&calls)
}

/// The refusal a call past a limit gets: the one error shape, `tool_call_limit`.
fn assert_refused(refusal: &Value, says: &str) {
    assert_eq!(refusal["error"], "tool_call_limit", "{refusal:#}");
    let message = refusal["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("Not run: "), "{message}");
    assert!(message.contains(says), "{message}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_reply_with_a_hundred_tool_calls_runs_sixteen_and_the_model_is_told_why_not_the_rest() {
    let (fake, model_url) = FakeOpenAi::start(vec![many_calls("c", 100), text("Done.")]).await;
    let server = Server::with_model(&model_url, &[]).await;
    let (status, body) = server.ask("ada-token", "Who am I, a hundred times?").await;
    assert_eq!(status, 200, "{body:#}");
    assert_eq!(body["reply"], "Done.");
    let calls = body["tool_calls"].as_array().expect("tool_calls");
    assert_eq!(calls.len(), 100, "every call is in the record");
    for (i, call) in calls.iter().enumerate() {
        if i < 16 {
            assert_eq!(call["result"]["name"], "Ada Lovelace", "call {i}: {call:#}");
        } else {
            assert!(call.get("result").is_none(), "call {i} ran: {call:#}");
            assert_refused(&call["error"], "at most 16 tool calls of one reply run");
        }
    }
    // The model got an answer for each call: the refused ones say why.
    let requests = fake.requests();
    assert_eq!(requests.len(), 2);
    let answers = tool_messages(&requests[1]);
    assert_eq!(answers.len(), 100);
    assert_eq!(tool_result(&answers, "c15")["name"], "Ada Lovelace");
    assert_refused(
        tool_result(&answers, "c16"),
        "this is call 17 of this reply",
    );
    assert_eq!(tool_result(&answers, "c99"), &calls[99]["error"]);
    // Only the calls that ran reached the store; the trail shows the refused ones too.
    assert_eq!(
        server.recorded_calls("customers_me").await,
        BTreeMap::from([("ok".into(), 16), ("tool_call_limit".into(), 84)])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn tool_calls_are_bounded_per_reply_and_per_request_by_their_flags() {
    let (fake, model_url) =
        FakeOpenAi::start(vec![many_calls("a", 4), many_calls("b", 3), text("Done.")]).await;
    let limits = [
        "--agent-max-tool-calls-per-turn",
        "3",
        "--agent-max-tool-calls",
        "5",
    ];
    let server = Server::with_model(&model_url, &limits).await;
    let (status, body) = server.ask("ada-token", "Who am I?").await;
    assert_eq!(status, 200, "{body:#}");
    let calls = body["tool_calls"].as_array().expect("tool_calls");
    let ran: Vec<bool> = calls.iter().map(|c| c.get("result").is_some()).collect();
    assert_eq!(
        ran,
        [true, true, true, false, true, true, false],
        "{body:#}"
    );
    assert_refused(&calls[3]["error"], "at most 3 tool calls of one reply run");
    assert_refused(
        &calls[6]["error"],
        "5 tool calls have already run for this message",
    );
    let requests = fake.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(
        tool_result(&tool_messages(&requests[2]), "b2"),
        &calls[6]["error"]
    );
    assert_eq!(
        server.recorded_calls("customers_me").await,
        BTreeMap::from([("ok".into(), 5), ("tool_call_limit".into(), 2)])
    );

    // A limit of none is no limit the server takes.
    for flag in ["--agent-max-tool-calls-per-turn", "--agent-max-tool-calls"] {
        let output = tokio::process::Command::new(BINARY)
            .args([
                "serve",
                "--http",
                "127.0.0.1:0",
                "--model-url",
                &model_url,
                flag,
                "0",
            ])
            .output()
            .await
            .expect("the store runs");
        assert_eq!(output.status.code(), Some(2), "{flag} 0");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(flag), "{stderr}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_required_task_is_a_ticket_the_agent_waits_on_with_task_status() {
    // The model calls the report, gets a ticket, and reads the task with the id it was given.
    let read_the_ticket = |request: &Value| {
        let ticket = tool_result(&tool_messages(request), "call_1").clone();
        let id = ticket["task_id"].as_str().unwrap_or_default().to_owned();
        tool_calls(&[(
            "call_2",
            "task_status",
            json!({"task_id": id, "wait_seconds": 20}),
        )])
    };
    let (fake, model_url) = FakeOpenAi::scripted(vec![
        Reply::Message(tool_calls(&[("call_1", "orders_report", json!({}))])),
        Reply::From(read_the_ticket),
        Reply::Message(text("You placed 4 orders.")),
    ])
    .await;
    let server = Server::with_model(&model_url, &[]).await;

    let (status, body) = server.ask("ada-token", "How much have I spent?").await;
    assert_eq!(status, 200, "{body:#}");
    assert_eq!(body["reply"], "You placed 4 orders.");
    let calls = body["tool_calls"].as_array().expect("tool_calls");
    assert_eq!(calls.len(), 2, "{body:#}");
    let ticket = &calls[0]["result"];
    assert_eq!(ticket["status"], "working", "{body:#}");
    assert!(ticket["next"].as_str().unwrap().contains("`task_status`"));
    let task = &calls[1]["result"];
    assert_eq!(task["task_id"], ticket["task_id"], "{body:#}");
    assert_eq!(task["status"], "completed", "{body:#}");
    assert_eq!(task["result"]["orders"], 4, "{body:#}");
    assert_eq!(fake.requests().len(), 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_that_asks_the_customer_waits_in_the_reply_and_goes_on_with_their_answer() {
    let (fake, model_url) = FakeOpenAi::start(vec![
        tool_calls(&[("call_1", "orders_cancel", json!({"order": 1}))]),
        text("Please confirm: cancel order 1?"),
        text("Order 1 is cancelled."),
        text("That was done already."),
    ])
    .await;
    let server = Server::with_model(&model_url, &[]).await;
    let (status, body) = server.ask("ada-token", "Cancel my order 1.").await;
    assert_eq!(status, 200, "{body:#}");
    assert_eq!(body["reply"], "Please confirm: cancel order 1?");
    // The model read that the customer is asked; the client gets the question and the state.
    assert_eq!(
        body["tool_calls"][0]["result"]["status"], "waiting_for_user",
        "{body:#}"
    );
    let pending = body["pending"].as_array().expect("a pending call");
    assert_eq!(pending.len(), 1, "{body:#}");
    assert_eq!(pending[0]["tool"], "orders_cancel");
    assert_eq!(pending[0]["arguments"], json!({"order": 1}));
    assert_eq!(
        pending[0]["requests"]["confirm"]["message"],
        "Cancel order 1 (now pending)? A cancelled order cannot be reopened."
    );
    let state = pending[0]["request_state"].as_str().expect("the state");
    for request in fake.requests() {
        assert!(
            !request.to_string().contains(state),
            "the model saw the state"
        );
    }

    // The customer confirms: the call goes on, then the model reads what it did.
    let answers = json!({ "answers": [{
        "tool": "orders_cancel",
        "arguments": {"order": 1},
        "request_state": state,
        "responses": {"confirm": {"action": "accept"}},
    }]})
    .to_string();
    let (status, body, _) = server.agent(Some("ada-token"), &answers).await;
    assert_eq!(status, 200, "{body:#}");
    assert_eq!(body["reply"], "Order 1 is cancelled.");
    assert_eq!(
        body["tool_calls"][0]["result"]["order"]["status"],
        "cancelled"
    );
    assert!(body.get("pending").is_none(), "{body:#}");
    let told = fake.requests()[2].to_string();
    assert!(told.contains(r#"\"status\":\"cancelled\""#), "{told}");

    // The same answer again runs nothing: its state was used.
    let (status, body, _) = server.agent(Some("ada-token"), &answers).await;
    assert_eq!(status, 200, "{body:#}");
    assert_eq!(
        body["tool_calls"][0]["error"]["error"],
        "invalid_request_state"
    );
    // A malformed answer is refused before anything runs.
    let (status, body, _) = server
        .agent(
            Some("ada-token"),
            r#"{"answers": [{"tool": "orders_cancel"}]}"#,
        )
        .await;
    assert_eq!(status, 422, "{body:#}");
    assert_eq!(
        body["message"],
        "`answers[0]`: `request_state` must be the pending call's"
    );

    let recorded = server.recorded_calls("orders_cancel").await;
    let expected = [
        ("input_required", 1),
        ("invalid_request_state", 1),
        ("ok", 1),
    ];
    let expected: BTreeMap<String, u64> =
        expected.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    assert_eq!(recorded, expected);
}
