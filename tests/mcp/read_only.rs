//! A read-only deployment, `serve --read-only`: over stdio, over streamable HTTP and through
//! the HTTP API and its OpenAPI document, only the tools that read are listed, explained and
//! called; a writing tool is an unknown one everywhere.

use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};

use crate::support::*;

/// The store's tools that read: hinted `read_only`, the query tool, and explain.
const READING: [&str; 6] = [
    "customers_me",
    "explain",
    "orders_export",
    "orders_get",
    "orders_report",
    "orders_search",
];

/// What a client may do with a writing tool: nothing, as with a tool that does not exist.
async fn writers_are_unknown(client: &Client) {
    for writer in ["orders_cancel", "orders_place", "orders_refund"] {
        let refused = call(client, writer, json!({ "order": 1 }))
            .await
            .unwrap_err();
        assert_eq!(
            protocol_error(refused),
            (-32602, format!("Unknown tool: {writer}"))
        );
    }
    let explained = result(
        client,
        "explain",
        json!({ "tool": "orders_cancel", "arguments": { "order": 1 } }),
    )
    .await;
    assert_eq!(text(&explained), "There is no tool named `orders_cancel`.");
    let order = result(client, "orders_get", json!({ "order_id": 1 })).await;
    assert_eq!(order.is_error, Some(false), "{order:?}");
}

#[tokio::test]
async fn over_stdio_only_the_tools_that_read_are_served() {
    let scratch = Scratch::new();
    let args = ["--as", "customer_id=1", "--read-only"];
    let (client, _log) = stdio(&scratch, &args).await;
    assert_eq!(names(&client).await, READING);
    writers_are_unknown(&client).await;
}

#[tokio::test]
async fn over_http_mcp_and_the_http_api_only_the_tools_that_read_are_served() {
    let scratch = Scratch::new();
    let server = HttpServer::start_with(&scratch, TOKENS, &["--read-only"], None).await;
    let client = server
        .client("ada-token", ProtocolVersion::V_2025_11_25)
        .await;
    assert_eq!(names(&client).await, READING);
    writers_are_unknown(&client).await;

    let http = reqwest::Client::new();
    let base = format!("http://{}", server.address());
    let get = |path: &str| {
        http.get(format!("{base}{path}"))
            .bearer_auth("ada-token")
            .send()
    };
    let listed: Value = get("/tools").await.unwrap().json().await.unwrap();
    let mut listed: Vec<&str> = listed["tools"]
        .as_array()
        .expect("a list")
        .iter()
        .map(|t| t["name"].as_str().expect("a name"))
        .collect();
    listed.sort();
    assert_eq!(listed, READING);
    let document: Value = get("/openapi.json").await.unwrap().json().await.unwrap();
    let paths: Vec<&String> = document["paths"]
        .as_object()
        .expect("paths")
        .keys()
        .collect();
    assert!(
        paths.iter().any(|p| p.as_str() == "/tools/orders_get"),
        "{paths:?}"
    );
    assert!(
        !paths.iter().any(|p| p.contains("orders_cancel")),
        "{paths:?}"
    );
    assert!(
        !paths.iter().any(|p| p.contains("orders_place")),
        "{paths:?}"
    );
    let refused = http
        .post(format!("{base}/tools/orders_cancel"))
        .bearer_auth("ada-token")
        .json(&json!({ "order": 1 }))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 404);
}
