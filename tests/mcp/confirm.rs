//! Round trips over MCP with rmcp's own client: a destructive tool (`orders_cancel`,
//! `confirm:`) asks its user before it acts — by `elicitation/create` during the call on
//! 2025-11-25 sessions, by an `input_required` result and a retry with the sealed state on
//! 2026-07-28 — over stdio and streamable HTTP; a client that cannot be asked is refused, and
//! nothing runs on a declined, altered or replayed answer, on an accepted answer whose
//! `content` is not an object (refused alike on every path), on a question nobody answers
//! within its wait, nor on a state sent to a tool that asks nothing.

use std::collections::BTreeMap;

use rmcp::model::{CallToolResponse, ProtocolVersion};
use serde_json::{Value, json};

use crate::support::*;

const QUESTION: &str = "Cancel order 1 (now pending)? A cancelled order cannot be reopened.";

/// The status of order `id`, as customer 1 sees it through `client`.
async fn status(client: &Client, id: u64) -> Value {
    let got = result(client, "orders_get", json!({ "order_id": id })).await;
    got.structured_content.expect("structured content")["order"]["status"].clone()
}

/// `state` with one character of its sealed body changed.
fn altered(state: &str) -> String {
    let middle = state.len() - 20;
    let changed = if &state[middle..=middle] == "A" {
        "B"
    } else {
        "A"
    };
    format!("{}{changed}{}", &state[..middle], &state[middle + 1..])
}

/// Asks, then confirms or declines, over a session whose client answers as `recorder`.
async fn asked_then_answered(client: &Client, recorder: &Recorder) {
    // Declined: nothing is done; the call says so.
    recorder.answer(Answering::Decline);
    let declined = result(client, "orders_cancel", json!({ "order": 1 })).await;
    assert_eq!(declined.is_error, Some(true));
    assert_eq!(
        text(&declined),
        "Could not cancel the order: The user did not confirm the call: nothing was done."
    );
    assert_eq!(status(client, 1).await, "pending");
    // A call that fails its guards is never asked about.
    let guarded = result(client, "orders_cancel", json!({ "order": 4 })).await;
    assert_eq!(guarded.is_error, Some(true));
    assert_eq!(recorder.asked(), [QUESTION]);
    // Confirmed: it runs.
    recorder.answer(Answering::Accept(json!({})));
    let cancelled = result(client, "orders_cancel", json!({ "order": 1 })).await;
    assert_eq!(text(&cancelled), "Order 1 is now cancelled.");
    assert_eq!(recorder.asked(), [QUESTION, QUESTION]);
    assert_eq!(status(client, 1).await, "cancelled");
}

/// The store over stdio for customer 1, and a client on `version` that answers as told.
async fn on_stdio(scratch: &Scratch, version: ProtocolVersion) -> (Client, Recorder) {
    let recorder = Recorder::new(version);
    let db = scratch.db();
    let args = ["--as", "customer_id=1"];
    let (client, _log) = stdio_as(db.as_os_str(), &args, recorder.clone()).await;
    (client, recorder)
}

#[tokio::test]
async fn over_stdio_a_2025_11_25_session_is_asked_with_elicitation_create() {
    let scratch = Scratch::new();
    let (client, recorder) = on_stdio(&scratch, ProtocolVersion::V_2025_11_25).await;
    asked_then_answered(&client, &recorder).await;
}

#[tokio::test]
async fn over_stdio_a_2026_07_28_client_gets_input_required_and_retries_with_the_state() {
    let scratch = Scratch::new();
    // rmcp's client fulfils the input requests through its handler and retries.
    let (client, recorder) = on_stdio(&scratch, ProtocolVersion::V_2026_07_28).await;
    asked_then_answered(&client, &recorder).await;
}

#[tokio::test]
async fn over_http_both_revisions_are_asked() {
    let scratch = Scratch::new();
    let server = HttpServer::start(&scratch).await;
    for version in [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28] {
        let recorder = Recorder::new(version.clone());
        let client = server
            .client_as("ada-token", recorder.clone())
            .await
            .unwrap();
        recorder.answer(Answering::Decline);
        let declined = result(&client, "orders_cancel", json!({ "order": 1 })).await;
        assert_eq!(declined.is_error, Some(true), "{version:?}");
        assert_eq!(recorder.asked(), [QUESTION], "{version:?}");
        assert_eq!(status(&client, 1).await, "pending");
    }
    let recorder = Recorder::new(ProtocolVersion::V_2026_07_28);
    let client = server
        .client_as("ada-token", recorder.clone())
        .await
        .unwrap();
    let cancelled = result(&client, "orders_cancel", json!({ "order": 1 })).await;
    assert_eq!(text(&cancelled), "Order 1 is now cancelled.");
}

#[tokio::test]
async fn a_client_that_cannot_be_asked_is_refused_and_nothing_runs() {
    let scratch = Scratch::new();
    let db = scratch.db();
    let args = ["--as", "customer_id=1"];
    // 2025-11-25 without the capability: a tool error saying what it would ask.
    let recorder = Recorder::new(ProtocolVersion::V_2025_11_25).without_elicitation();
    let (client, _log) = stdio_as(db.as_os_str(), &args, recorder).await;
    let refused = result(&client, "orders_cancel", json!({ "order": 1 })).await;
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(
        text(&refused),
        format!(
            "This call needs its user's answer first ({QUESTION}), and this client cannot ask \
             its user (it did not declare the elicitation capability): use a client that can; \
             nothing was done."
        )
    );
    assert_eq!(status(&client, 1).await, "pending");
    // 2026-07-28 without it: the protocol's missing-capability error.
    let recorder = Recorder::new(ProtocolVersion::V_2026_07_28).without_elicitation();
    let (client, _log) = stdio_as(db.as_os_str(), &args, recorder).await;
    let missing = call(&client, "orders_cancel", json!({ "order": 1 })).await;
    assert_eq!(
        protocol_error(missing.unwrap_err()),
        (
            -32021,
            "This call asks its user first (a confirmation or a form): call it from a client \
             that declares the `elicitation` capability; this client does not."
                .to_owned()
        )
    );
    assert_eq!(status(&client, 1).await, "pending");
}

#[tokio::test]
async fn an_altered_or_replayed_state_is_an_invalid_params_error_and_nothing_runs() {
    let scratch = Scratch::new();
    let (client, _recorder) = on_stdio(&scratch, ProtocolVersion::V_2026_07_28).await;
    let asked = client
        .call_tool_once(params("orders_cancel", json!({ "order": 1 })))
        .await
        .unwrap();
    let CallToolResponse::InputRequired(asked) = asked else {
        panic!("not asked: {asked:?}");
    };
    let wire = serde_json::to_value(&asked).unwrap();
    assert_eq!(wire["resultType"], "input_required");
    assert_eq!(
        wire["inputRequests"]["confirm"],
        json!({
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": QUESTION,
                "requestedSchema": { "type": "object", "properties": {} }
            }
        })
    );
    let state = asked.request_state.clone().unwrap();
    let retry = |state: String| {
        let responses = BTreeMap::from([("confirm".to_owned(), json!({ "action": "accept" }))]);
        params("orders_cancel", json!({ "order": 1 }))
            .with_input_responses(responses)
            .with_request_state(state)
    };
    let altered = altered(&state);
    let refused = client.call_tool_once(retry(altered)).await.unwrap_err();
    let (code, message) = protocol_error(refused);
    assert_eq!(code, -32602);
    assert!(message.contains("altered"), "{message}");
    assert_eq!(status(&client, 1).await, "pending");
    // The state itself: confirmed, once.
    let done = client.call_tool_once(retry(state.clone())).await.unwrap();
    let CallToolResponse::Complete(done) = done else {
        panic!("not complete: {done:?}");
    };
    assert_eq!(text(&done), "Order 1 is now cancelled.");
    let replayed = client.call_tool_once(retry(state)).await.unwrap_err();
    let (code, message) = protocol_error(replayed);
    assert_eq!(code, -32602);
    assert!(message.contains("used already"), "{message}");

    // A tool that asks nothing opens no state: a retry of it is refused, nothing placed.
    let orders = || async {
        let found = result(&client, "orders_search", json!({})).await;
        found.structured_content.expect("structured content")["total"].clone()
    };
    let before = orders().await;
    let lines = json!({ "lines": [{ "sku": "MUG-001", "quantity": 1 }] });
    let garbage = params("orders_place", lines).with_request_state("garbage".to_owned());
    let refused = client.call_tool_once(garbage).await.unwrap_err();
    let (code, message) = protocol_error(refused);
    assert_eq!(code, -32602);
    assert!(message.contains("asks its user nothing"), "{message}");
    assert_eq!(orders().await, before);
}

#[tokio::test]
async fn on_postgresql_replicas_share_their_keys_and_a_store_without_them_does_not_start() {
    let Some(server_url) = toolspec_test_postgres::server_url() else {
        return;
    };
    let database = toolspec_test_postgres::Scratch::create(&server_url).await;
    let url = std::ffi::OsStr::new(database.url());
    let scratch = Scratch::new();
    // Without keys: refused at start-up, saying why.
    let tokens = scratch.file("tokens.json", TOKENS);
    let refused = tokio::process::Command::new(binary())
        .arg("--db")
        .arg(url)
        .args(["serve", "--http", "127.0.0.1:0", "--tokens"])
        .arg(&tokens)
        .env_remove(STATE_KEYS)
        .output()
        .await
        .expect("the store runs");
    assert_eq!(refused.status.code(), Some(2));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("`orders_cancel`, `orders_refund` ask their user, and no request-state keys are configured"),
        "{said}"
    );
    // With the same keys on two replicas, a state one sealed is answered on the other, once.
    let first = HttpServer::start_on(url, &scratch, TOKENS, &[], None).await;
    let second = HttpServer::start_on(url, &scratch, TOKENS, &[], None).await;
    let asking = first
        .client_as("ada-token", Recorder::new(ProtocolVersion::V_2026_07_28))
        .await
        .unwrap();
    let asked = asking
        .call_tool_once(params("orders_cancel", json!({ "order": 1 })))
        .await
        .unwrap();
    let CallToolResponse::InputRequired(asked) = asked else {
        panic!("not asked: {asked:?}");
    };
    let answering = second
        .client_as("ada-token", Recorder::new(ProtocolVersion::V_2026_07_28))
        .await
        .unwrap();
    let responses = BTreeMap::from([("confirm".to_owned(), json!({ "action": "accept" }))]);
    let retry = params("orders_cancel", json!({ "order": 1 }))
        .with_input_responses(responses)
        .with_request_state(asked.request_state.clone().unwrap());
    let done = answering.call_tool_once(retry.clone()).await.unwrap();
    let CallToolResponse::Complete(done) = done else {
        panic!("not complete: {done:?}");
    };
    assert_eq!(text(&done), "Order 1 is now cancelled.");
    // Spent in the database both share: the first replica refuses it too.
    let replayed = asking.call_tool_once(retry).await.unwrap_err();
    assert!(protocol_error(replayed).1.contains("used already"));
}

/// The `elicitation/create` request the server sent in the SSE text `read`.
fn elicitation(read: &str) -> Value {
    sse_messages(read)
        .into_iter()
        .find(|message| message["method"] == "elicitation/create")
        .unwrap_or_else(|| panic!("an elicitation/create request: {read}"))
}

/// The JSON-RPC messages of the SSE text `read`.
fn sse_messages(read: &str) -> Vec<Value> {
    read.lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str(data).ok())
        .collect()
}

/// The answer to request `id` in the SSE text `read`.
fn answer_to(read: &str, id: u64) -> Value {
    sse_messages(read)
        .into_iter()
        .find(|message| message["id"] == id && message.get("method").is_none())
        .unwrap_or_else(|| panic!("an answer to {id}: {read}"))
}

/// The status of order `id`, as Ada reads it over the HTTP API of the store at `address`.
async fn status_over_http(address: &str, id: u64) -> Value {
    let path = format!("/tools/orders_get?order_id={id}");
    let headers = ["Authorization: Bearer ada-token"];
    let got = crate::raw_http::send_to(address, "GET", &path, &headers, "").await;
    got.json()["order"]["status"].clone()
}

/// A `tools/call` of `orders_cancel` for order 1, with JSON-RPC id `id`.
fn cancel_order_1(id: u64) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": { "name": "orders_cancel", "arguments": { "order": 1 } },
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_refuses_an_answer_whose_content_is_not_an_object_as_every_path_does() {
    use crate::sessions::{open_session_with, post, post_until_as, rest_of};
    let scratch = Scratch::new();
    let server = HttpServer::start(&scratch).await;
    let address = server.address();
    let ada = Some("ada-token");
    let session = open_session_with(&address, ada, json!({ "elicitation": {} })).await;
    for (n, content) in [json!("yes"), json!([1]), json!(true), json!(7)]
        .iter()
        .enumerate()
    {
        let id = 5 + n as u64;
        let (stream, read) = post_until_as(
            &address,
            ada,
            &session,
            &cancel_order_1(id),
            "elicitation/create",
        )
        .await;
        let asked = elicitation(&read);
        assert_eq!(asked["params"]["message"], QUESTION);
        if n == 0 {
            // While the call waits for its answer, its id is taken.
            let again = post(&address, ada, Some(&session), &cancel_order_1(id)).await;
            assert_eq!(again.status, 400, "{again:?}");
            assert_eq!(again.json()["error"]["code"], -32600, "{again:?}");
        }
        let answer = json!({
            "jsonrpc": "2.0", "id": asked["id"],
            "result": { "action": "accept", "content": content },
        });
        let posted = post(&address, ada, Some(&session), &answer).await;
        assert_eq!(posted.status, 202, "{posted:?}");
        let answered = answer_to(&rest_of(stream, read).await, id);
        assert_eq!(answered["error"]["code"], -32602, "{content}: {answered}");
        let message = answered["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("`confirm`: an accepted response's `content` must be an object"),
            "{content}: {message}"
        );
    }
    assert_eq!(status_over_http(&address, 1).await, "pending");

    // The HTTP API's continuation refuses the same answer with the same words.
    let headers = ["Authorization: Bearer ada-token"];
    let asked = crate::raw_http::send_to(
        &address,
        "POST",
        "/tools/orders_cancel",
        &headers,
        r#"{"order": 1}"#,
    )
    .await;
    assert_eq!(asked.status, 428, "{asked:?}");
    let state = asked.json()["details"]["request_state"].clone();
    let body = json!({
        "arguments": { "order": 1 }, "request_state": state,
        "responses": { "confirm": { "action": "accept", "content": "yes" } },
    });
    let path = "/tools/orders_cancel/continue";
    let refused =
        crate::raw_http::send_to(&address, "POST", path, &headers, &body.to_string()).await;
    let message = refused.assert_failure(422, "invalid_arguments");
    assert!(
        message.contains("`confirm`: an accepted response's `content` must be an object"),
        "{message}"
    );
    assert_eq!(status_over_http(&address, 1).await, "pending");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_question_nobody_answers_ends_its_call_declined_once_its_wait_is_over() {
    use crate::sessions::{open_session_with, post, post_until_as, rest_of};
    let scratch = Scratch::new();
    let args = ["--elicitation-timeout", "1"];
    let server = HttpServer::start_with(&scratch, TOKENS, &args, None).await;
    let address = server.address();
    let ada = Some("ada-token");
    let session = open_session_with(&address, ada, json!({ "elicitation": {} })).await;
    // The session's own stream, where the server's notifications go.
    let mut notifications = tokio::net::TcpStream::connect(&address).await.unwrap();
    let listen = format!(
        "GET /mcp HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer ada-token\r\n\
         Accept: text/event-stream\r\nMcp-Session-Id: {session}\r\n\
         MCP-Protocol-Version: 2025-11-25\r\n\r\n"
    );
    tokio::io::AsyncWriteExt::write_all(&mut notifications, listen.as_bytes())
        .await
        .unwrap();
    crate::raw_http::read_until(&mut notifications, "retry:").await;
    let started = std::time::Instant::now();
    let (stream, read) = post_until_as(
        &address,
        ada,
        &session,
        &cancel_order_1(9),
        "elicitation/create",
    )
    .await;
    let asked = elicitation(&read);
    // Nobody answers: a second later the call answers, and the question is withdrawn.
    let read = rest_of(stream, read).await;
    let waited = started.elapsed();
    assert!(
        waited >= std::time::Duration::from_millis(900) && waited < PATIENCE,
        "{waited:?}"
    );
    let told = crate::raw_http::read_until(&mut notifications, "notifications/cancelled").await;
    let withdrawn = sse_messages(&told)
        .into_iter()
        .find(|message| message["method"] == "notifications/cancelled")
        .unwrap_or_else(|| panic!("the question withdrawn: {told}"));
    assert_eq!(withdrawn["params"]["requestId"], asked["id"], "{told}");
    drop(notifications);
    let answered = answer_to(&read, 9);
    assert_eq!(answered["result"]["isError"], true, "{answered}");
    assert_eq!(
        answered["result"]["content"][0]["text"],
        "Could not cancel the order: The user did not confirm the call: nothing was done.",
    );
    // An answer that comes too late changes nothing.
    let late = json!({
        "jsonrpc": "2.0", "id": asked["id"],
        "result": { "action": "accept", "content": {} },
    });
    post(&address, ada, Some(&session), &late).await;
    assert_eq!(status_over_http(&address, 1).await, "pending");
    // The server says why.
    let log = server.log.text();
    assert!(log.contains("a question went without an answer"), "{log}");
}
