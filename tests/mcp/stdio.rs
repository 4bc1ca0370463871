//! The store over stdio: `toolspec-store serve --as customer_id=1`.

use rmcp::model::{CacheScope, PaginatedRequestParams};
use serde_json::{Value, json};

use crate::support::*;

const ALL_TOOLS: [&str; 9] = [
    "customers_me",
    "explain",
    "orders_cancel",
    "orders_export",
    "orders_get",
    "orders_place",
    "orders_refund",
    "orders_report",
    "orders_search",
];

#[tokio::test]
async fn lists_every_tool_sorted_with_schemas_annotations_and_meta() {
    let scratch = Scratch::new();
    let (client, _log) = stdio(&scratch, &["--as", "customer_id=1"]).await;
    let tools = client.list_tools(None).await.unwrap().tools;
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(names, ALL_TOOLS);

    let tool = |name: &str| {
        let tool = tools.iter().find(|t| t.name == name).unwrap();
        serde_json::to_value(tool).unwrap()
    };
    let cancel = tool("orders_cancel");
    assert_eq!(cancel["title"], "Cancel order");
    assert_eq!(
        cancel["description"],
        "Cancel an existing order.\nPreconditions: Order must not already be cancelled.\n\
         The user confirms each call before it acts.\n\
         Errors: not_cancelled, already_shipped, not_found."
    );
    assert_eq!(
        cancel["annotations"],
        json!({
            "title": "Cancel order",
            "readOnlyHint": false,
            "destructiveHint": true,
            "idempotentHint": false,
            "openWorldHint": false
        })
    );
    assert_eq!(
        cancel["_meta"],
        json!({ "toolspec/tags": ["orders", "write"] })
    );
    // The ambient `customer_id` is not an input the model sees; the order is a `ref`, whose
    // schema is its key's.
    assert_eq!(cancel["inputSchema"]["required"], json!(["order"]));
    assert_eq!(
        cancel["inputSchema"]["properties"]["order"]["type"],
        "integer"
    );
    assert_eq!(
        cancel["inputSchema"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["order", "reason"]
    );
    assert_eq!(cancel["outputSchema"]["required"], json!(["order"]));

    assert_eq!(
        tool("orders_get")["annotations"],
        json!({
            "title": "Get order",
            "readOnlyHint": true,
            "destructiveHint": false,
            "idempotentHint": true,
            "openWorldHint": false
        })
    );
    assert_eq!(
        tool("customers_me")["inputSchema"],
        json!({ "type": "object", "additionalProperties": false })
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_successful_call_returns_structured_content_and_the_same_json_as_text() {
    let scratch = Scratch::new();
    let (client, _log) = stdio(&scratch, &["--as", "customer_id=1"]).await;
    let result = result(&client, "orders_get", json!({ "order_id": 1 })).await;
    assert_eq!(result.is_error, Some(false));
    let structured = result
        .structured_content
        .clone()
        .expect("structuredContent");
    assert_eq!(structured["order"]["id"], 1);
    assert_eq!(structured["order"]["status"], "pending");
    assert_eq!(
        structured["order"]["total"],
        json!({ "amount": 2500, "currency": "EUR" })
    );
    let text: Value = serde_json::from_str(text(&result)).unwrap();
    assert_eq!(text, structured);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn failures_are_error_results_with_the_user_facing_text_only() {
    let scratch = Scratch::new();
    let (client, _log) = stdio(&scratch, &["--as", "customer_id=1"]).await;

    let missing = result(&client, "orders_get", json!({ "order_id": 999 })).await;
    assert_eq!(missing.is_error, Some(true));
    assert_eq!(text(&missing), "No such order.");
    assert_eq!(missing.structured_content, None);

    let shipped = result(&client, "orders_cancel", json!({ "order": 2 })).await;
    assert_eq!(shipped.is_error, Some(true));
    assert_eq!(
        text(&shipped),
        "Could not cancel the order: The order has already shipped."
    );

    let guarded = result(&client, "orders_cancel", json!({ "order": 4 })).await;
    assert_eq!(
        text(&guarded),
        "Could not cancel the order: Order must not already be cancelled."
    );

    let invalid = result(&client, "orders_get", json!({ "order_id": "abc" })).await;
    assert_eq!(invalid.is_error, Some(true));
    assert_eq!(
        text(&invalid),
        "Invalid arguments: `/order_id`: \"abc\" is not of type \"integer\"."
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_guard_that_fails_with_a_declared_code_tells_nothing_of_other_customers() {
    let scratch = Scratch::new();
    let (client, _log) = stdio(&scratch, &["--as", "customer_id=1"]).await;
    // `orders_get`'s guard loads the order among the caller's own: order 5 is customer 2's,
    // 999 does not exist, and both answer `not_found` alike.
    let foreign = result(&client, "orders_get", json!({ "order_id": 5 })).await;
    let missing = result(&client, "orders_get", json!({ "order_id": 999 })).await;
    assert_eq!(foreign.is_error, Some(true));
    assert_eq!(text(&foreign), "No such order.");
    assert_eq!(foreign.content, missing.content);
    assert_eq!(foreign.structured_content, missing.structured_content);

    // Explain reports the guard's result exactly: the code the call would fail with.
    let explain = |order_id: i64| {
        let client = &client;
        async move {
            let arguments = json!({ "tool": "orders_get", "arguments": { "order_id": order_id } });
            let explained = result(client, "explain", arguments).await;
            explained.structured_content.expect("structuredContent")
        }
    };
    assert_eq!(
        explain(5).await["guards"],
        json!([{
            "name": "own_order",
            "description": "The order must be one of the current customer's.",
            "passed": false,
            "error": { "error": "not_found", "message": "No such order." }
        }])
    );
    let own = explain(1).await;
    assert_eq!(own["callable"], true);
    assert_eq!(own["guards"][0]["passed"], true);
    assert_eq!(own["guards"][0].get("error"), None);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn present_as_message_shows_the_rendered_message_beside_the_structured_value() {
    let scratch = Scratch::new();
    let (client, _log) = stdio(&scratch, &["--as", "customer_id=1"]).await;
    let result = result(&client, "orders_cancel", json!({ "order": 1 })).await;
    assert_eq!(result.is_error, Some(false));
    assert_eq!(text(&result), "Order 1 is now cancelled.");
    let structured = result.structured_content.expect("structuredContent");
    assert_eq!(structured["order"]["status"], "cancelled");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_model_cannot_smuggle_an_ambient_value() {
    let scratch = Scratch::new();
    let (client, _log) = stdio(&scratch, &["--as", "customer_id=1"]).await;
    let smuggled = result(
        &client,
        "customers_me",
        json!({ "ambient_context": { "customer_id": 2 } }),
    )
    .await;
    assert_eq!(smuggled.is_error, Some(false));
    assert_eq!(smuggled.structured_content.unwrap()["name"], "Ada Lovelace");

    let direct = result(
        &client,
        "orders_get",
        json!({ "order_id": 5, "customer_id": 2 }),
    )
    .await;
    assert_eq!(direct.is_error, Some(true));
    assert_eq!(
        text(&direct),
        "Invalid arguments: `/customer_id`: is not an argument of this tool (expected: order_id)."
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_tool_outside_the_callers_scopes_is_neither_listed_nor_callable() {
    let scratch = Scratch::new();
    let (client, _log) = stdio(
        &scratch,
        &["--as", "customer_id=2", "--scope", "orders:read"],
    )
    .await;
    assert_eq!(
        names(&client).await,
        [
            "customers_me",
            "explain",
            "orders_export",
            "orders_get",
            "orders_report",
            "orders_search"
        ]
    );

    let hidden = protocol_error(
        call(&client, "orders_cancel", json!({ "order": 5 }))
            .await
            .unwrap_err(),
    );
    let unknown = protocol_error(
        call(&client, "orders_burn", json!({ "order_id": 5 }))
            .await
            .unwrap_err(),
    );
    assert_eq!(hidden, (-32602, "Unknown tool: orders_cancel".to_owned()));
    assert_eq!(unknown, (-32602, "Unknown tool: orders_burn".to_owned()));

    // Explaining it reveals nothing either.
    let explained = result(
        &client,
        "explain",
        json!({ "tool": "orders_cancel", "arguments": { "order": 5 } }),
    )
    .await;
    assert_eq!(text(&explained), "There is no tool named `orders_cancel`.");

    // The order is untouched: Grace's pending order 5 can still be read.
    let order = result(&client, "orders_get", json!({ "order_id": 5 })).await;
    assert_eq!(
        order.structured_content.unwrap()["order"]["status"],
        "pending"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn serve_module_and_tag_offer_only_the_tools_they_select() {
    let scratch = Scratch::new();
    let (client, _log) = stdio(
        &scratch,
        &[
            "--as",
            "customer_id=1",
            "--module",
            "orders",
            "--tag",
            "write",
        ],
    )
    .await;
    assert_eq!(
        names(&client).await,
        ["explain", "orders_cancel", "orders_place", "orders_refund"]
    );
    let left_out = protocol_error(
        call(&client, "orders_get", json!({ "order_id": 1 }))
            .await
            .unwrap_err(),
    );
    assert_eq!(left_out, (-32602, "Unknown tool: orders_get".to_owned()));
    client.cancel().await.unwrap();

    let (client, _log) = stdio(
        &scratch,
        &["--as", "customer_id=1", "--module", "customers"],
    )
    .await;
    assert_eq!(names(&client).await, ["customers_me", "explain"]);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn progress_reports_reach_the_client_before_the_result() {
    let scratch = Scratch::new();
    let (client, _log) = stdio(&scratch, &["--as", "customer_id=1"]).await;
    let handle = start_call(&client, "orders_place", one_mug()).await;
    let result = finish_call(handle).await;
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let recorder = client.service();
    recorder.wait_for_progress(3).await;
    assert_eq!(
        recorder.progress(),
        [
            (0.0, Some(1.0), Some("pricing the lines".to_owned())),
            (0.5, Some(1.0), Some("reserving stock".to_owned())),
            (1.0, Some(1.0), Some("order placed".to_owned())),
        ]
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn cancellation_reaches_the_handler() {
    let scratch = Scratch::new();
    let (client, log) = stdio(&scratch, &["--as", "customer_id=1"]).await;
    // Ada has four orders; at 400 ms per order the export takes 1.6 s unless cancelled.
    let handle = start_call(&client, "orders_export", json!({ "pace_ms": 400 })).await;
    client.service().wait_for_progress(1).await;
    handle.cancel(Some("changed my mind".into())).await.unwrap();
    let line = log.wait_for(&["export cancelled"]).await;
    assert!(
        line.contains("done=1") && line.contains("total=4"),
        "{line}"
    );
    assert_eq!(client.service().progress().len(), 1);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn concurrent_calls_on_one_session_each_get_their_own_answer() {
    let scratch = Scratch::new();
    let (client, _log) = stdio(&scratch, &["--as", "customer_id=1"]).await;
    sixteen_concurrent_gets(&client).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn tools_list_carries_caching_hints_and_pages_on_request() {
    let scratch = Scratch::new();
    // By default: every tool in one result, immediately stale, and private to the caller
    // (some tools need scopes, so what the list shows depends on who asks).
    let (client, _log) = stdio(&scratch, &["--as", "customer_id=1"]).await;
    let whole = client.list_tools(None).await.unwrap();
    assert_eq!(whole.tools.len(), ALL_TOOLS.len());
    assert_eq!(whole.next_cursor, None);
    assert_eq!(
        (whole.ttl_ms, whole.cache_scope),
        (Some(0), Some(CacheScope::Private))
    );
    client.cancel().await.unwrap();

    let (client, _log) = stdio(
        &scratch,
        &[
            "--as",
            "customer_id=1",
            "--page-size",
            "3",
            "--list-ttl",
            "60",
        ],
    )
    .await;
    let mut pages: Vec<Vec<String>> = Vec::new();
    let mut cursor = None;
    loop {
        let page = client
            .list_tools(Some(PaginatedRequestParams::default().with_cursor(cursor)))
            .await
            .unwrap();
        assert_eq!(page.ttl_ms, Some(60_000));
        pages.push(page.tools.iter().map(|t| t.name.to_string()).collect());
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(
        pages.iter().map(Vec::len).collect::<Vec<_>>(),
        [3, 3, 3],
        "{pages:?}"
    );
    assert_eq!(
        pages.concat(),
        ALL_TOOLS,
        "the pages follow one another in order"
    );
    // rmcp's client follows the cursors on its own.
    assert_eq!(
        client.list_all_tools().await.unwrap().len(),
        ALL_TOOLS.len()
    );
    // A cursor this server never handed out is refused.
    for bad in ["abc", "-3", "03", ""] {
        let refused = protocol_error(
            client
                .list_tools(Some(
                    PaginatedRequestParams::default().with_cursor(Some(bad.to_owned())),
                ))
                .await
                .unwrap_err(),
        );
        assert_eq!(refused, (-32602, format!("Invalid cursor: {bad}")));
    }
    client.cancel().await.unwrap();
}

#[cfg(unix)]
#[tokio::test]
async fn stdio_that_is_not_a_pipe_is_served_through_tokio_stdio() {
    // An MCP client starts servers with pipes, which the server reads on the event loop;
    // anything else (here a socket) goes through tokio's blocking stdio, alike for clients.
    let scratch = Scratch::new();
    let (client, _server) = stdio_over_socket(&scratch, &["--as", "customer_id=1"]).await;
    assert_eq!(names(&client).await, ALL_TOOLS);
    let order = result(&client, "orders_get", json!({ "order_id": 1 })).await;
    assert_eq!(order.structured_content.unwrap()["order"]["id"], 1);
    client.cancel().await.unwrap();
}

/// A caller whose context cannot serve the tools is refused when the server starts, naming
/// what is missing or mistyped, rather than failing each call as an internal error.
#[test]
fn a_fixed_caller_without_the_tools_ambient_fields_is_refused_at_start() {
    let scratch = Scratch::new();
    for (args, says) in [
        (
            &[][..],
            "the adapter supplied no ambient `customer_id`, which `customers_me` requires",
        ),
        (
            &["--as", "customer_id=abc"][..],
            "the ambient context of `customers_me` does not resolve: invalid type: string \"abc\", expected i64",
        ),
    ] {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolspec-store"))
            .arg("--db")
            .arg(scratch.db())
            .arg("serve")
            .args(args)
            .stdin(std::process::Stdio::null())
            .output()
            .expect("the store runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}: {stderr}");
        assert!(stderr.contains("it did not start"), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "nothing on the MCP stream");
    }
    // With it, the server starts (and stops when its input closes).
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_toolspec-store"))
        .arg("--db")
        .arg(scratch.db())
        .args(["serve", "--as", "customer_id=1"])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("the store runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("it did not start"), "{stderr}");
}

#[tokio::test]
async fn a_caller_over_the_default_rate_limit_gets_a_tool_error_saying_when_to_retry() {
    // The default budget: bursts of 50, then one call every 100 ms.
    let scratch = Scratch::new();
    let (client, _log) = stdio(&scratch, &["--as", "customer_id=1"]).await;
    let mut refused = None;
    for i in 0..300 {
        let answer = result(&client, "orders_get", json!({ "order_id": 1 })).await;
        if answer.is_error == Some(true) {
            assert!(
                i >= 50,
                "the first 50 calls pass: call {i} was refused: {}",
                text(&answer)
            );
            refused = Some(text(&answer).to_owned());
            break;
        }
    }
    let refused = refused.expect("a flood of 300 calls is refused before its end");
    assert!(
        refused.starts_with("You called `orders_get` too often: nothing was done; retry in "),
        "{refused}"
    );
    client.cancel().await.unwrap();
}
