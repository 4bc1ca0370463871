//! The store over streamable HTTP: `toolspec-store serve --http 127.0.0.1:0 --tokens FILE`.

use rmcp::model::{CacheScope, ProtocolVersion};
use serde_json::json;

use crate::support::*;

/// `tools/list` as a raw HTTP request, with or without a token and with a chosen `Host`.
async fn raw_list(
    server: &HttpServer,
    token: Option<&str>,
    host: Option<&str>,
) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(&server.url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(
            json!({
                "jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": { "name": "raw", "version": "0" }
                }
            })
            .to_string(),
        );
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    if let Some(host) = host {
        request = request.header("host", host);
    }
    request.send().await.expect("an HTTP response")
}

#[tokio::test]
async fn requests_without_a_known_token_get_401() {
    let scratch = Scratch::new();
    let server = HttpServer::start(&scratch).await;
    for token in [None, Some("not-a-token")] {
        let response = raw_list(&server, token, None).await;
        assert_eq!(response.status(), 401, "token {token:?}");
        assert_eq!(
            response.headers()["www-authenticate"],
            "Bearer realm=\"mcp\""
        );
    }
    assert_eq!(
        raw_list(&server, Some("ada-token"), None).await.status(),
        200
    );
    // rmcp's client sees the refusal too.
    assert!(
        server
            .try_client("not-a-token", ProtocolVersion::V_2025_11_25)
            .await
            .is_err()
    );
}

#[tokio::test]
async fn only_loopback_hosts_are_served_by_default() {
    let scratch = Scratch::new();
    let server = HttpServer::start(&scratch).await;
    let response = raw_list(&server, Some("ada-token"), Some("attacker.example")).await;
    assert_eq!(response.status(), 403);
}

#[tokio::test]
async fn every_supported_protocol_version_lists_and_calls() {
    let scratch = Scratch::new();
    let server = HttpServer::start(&scratch).await;
    for version in [
        ProtocolVersion::V_2025_06_18,
        ProtocolVersion::V_2025_11_25,
        ProtocolVersion::V_2026_07_28,
    ] {
        let client = server.client("ada-token", version.clone()).await;
        let negotiated = client.peer_info().map(|info| info.protocol_version.clone());
        if version != ProtocolVersion::V_2026_07_28 {
            assert_eq!(negotiated, Some(version.clone()));
        }
        let listed = client.list_tools(None).await.unwrap();
        assert_eq!(listed.tools.len(), 9, "{version}");
        // 2026-07-28 requires caching hints on tools/list; older clients ignore them.
        assert_eq!(
            (listed.ttl_ms, listed.cache_scope),
            (Some(0), Some(CacheScope::Private)),
            "{version}"
        );
        let result = result(&client, "orders_get", json!({ "order_id": 3 })).await;
        assert_eq!(result.is_error, Some(false), "{version}");
        assert_eq!(result.structured_content.unwrap()["order"]["id"], 3);
        client.cancel().await.unwrap();
    }
}

#[tokio::test]
async fn the_token_decides_the_ambient_context_and_the_visible_tools() {
    let scratch = Scratch::new();
    let server = HttpServer::start(&scratch).await;
    let grace = server
        .client("grace-token", ProtocolVersion::V_2026_07_28)
        .await;
    assert_eq!(
        names(&grace).await,
        [
            "customers_me",
            "explain",
            "orders_export",
            "orders_get",
            "orders_report",
            "orders_search"
        ]
    );
    let me = result(
        &grace,
        "customers_me",
        json!({ "ambient_context": { "customer_id": 1 } }),
    )
    .await;
    assert_eq!(me.structured_content.unwrap()["name"], "Grace Hopper");
    let refused = protocol_error(
        call(&grace, "orders_cancel", json!({ "order": 5 }))
            .await
            .unwrap_err(),
    );
    assert_eq!(refused, (-32602, "Unknown tool: orders_cancel".to_owned()));
    // Ada's order 1 does not exist for Grace.
    let foreign = result(&grace, "orders_get", json!({ "order_id": 1 })).await;
    assert_eq!(text(&foreign), "No such order.");
    grace.cancel().await.unwrap();

    let ada = server
        .client("ada-token", ProtocolVersion::V_2025_11_25)
        .await;
    let cancelled = result(&ada, "orders_cancel", json!({ "order": 1 })).await;
    assert_eq!(text(&cancelled), "Order 1 is now cancelled.");
    ada.cancel().await.unwrap();
}

#[tokio::test]
async fn progress_and_cancellation_over_http() {
    let scratch = Scratch::new();
    let server = HttpServer::start(&scratch).await;
    for version in [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28] {
        let client = server.client("ada-token", version.clone()).await;
        let placed = finish_call(start_call(&client, "orders_place", one_mug()).await).await;
        assert_eq!(placed.is_error, Some(false), "{version}: {placed:?}");
        client.service().wait_for_progress(3).await;
        assert_eq!(
            client
                .service()
                .progress()
                .iter()
                .map(|(progress, _, _)| *progress)
                .collect::<Vec<_>>(),
            [0.0, 0.5, 1.0],
            "{version}"
        );

        let export = start_call(&client, "orders_export", json!({ "pace_ms": 400 })).await;
        client.service().wait_for_progress(4).await;
        export.cancel(None).await.unwrap();
        client.cancel().await.unwrap();
    }
    // Each export was cancelled in its handler: after the first of Ada's five orders (four
    // seeded, one placed), then of six.
    for total in ["total=5", "total=6"] {
        let line = server.log.wait_for(&["export cancelled", total]).await;
        assert!(line.contains("done=1"), "{line}");
    }
}

#[tokio::test]
async fn concurrent_calls_on_one_session() {
    let scratch = Scratch::new();
    let server = HttpServer::start(&scratch).await;
    let client = server
        .client("ada-token", ProtocolVersion::V_2025_11_25)
        .await;
    sixteen_concurrent_gets(&client).await;
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn one_address_serves_the_same_tool_over_mcp_and_the_http_api_alike() {
    let scratch = Scratch::new();
    let server = HttpServer::start(&scratch).await;
    let client = server
        .client("grace-token", ProtocolVersion::V_2025_11_25)
        .await;
    let over_mcp = result(&client, "orders_search", json!({"sort": "total"})).await;
    let over_mcp = over_mcp.structured_content.expect("structured");
    let api = format!("http://{}/tools/orders_search", server.address());
    let http = reqwest::Client::new();
    let answer = http
        .post(&api)
        .header("authorization", "Bearer grace-token")
        .body(r#"{"sort": "total"}"#)
        .send()
        .await
        .expect("the HTTP API answers");
    assert_eq!(answer.status().as_u16(), 200);
    let over_http: serde_json::Value =
        serde_json::from_str(&answer.text().await.expect("a body")).expect("JSON");
    assert_eq!(over_http, over_mcp, "the same caller gets the same values");
    let refused = http
        .post(&api)
        .body("{}")
        .send()
        .await
        .expect("the HTTP API answers");
    assert_eq!(refused.status().as_u16(), 401);
    client.cancel().await.expect("the session ends");
}

/// How many of ten calls of `orders_report` through the HTTP API of `servers` (taken in turn)
/// are admitted (`202`: stored as a task) and how many refused (`429`).
async fn report_calls(servers: &[&HttpServer]) -> (usize, usize) {
    let http = reqwest::Client::new();
    let (mut admitted, mut refused) = (0, 0);
    for i in 0..10 {
        let server = servers[i % servers.len()];
        let status = http
            .post(format!("http://{}/tools/orders_report", server.address()))
            .header("authorization", "Bearer ada-token")
            .body("{}")
            .send()
            .await
            .expect("an answer")
            .status()
            .as_u16();
        match status {
            202 => admitted += 1,
            429 => refused += 1,
            other => panic!("orders_report answered {other}"),
        }
    }
    (admitted, refused)
}

#[tokio::test]
async fn on_postgresql_replicas_can_share_a_callers_rate_budget() {
    let Some(server_url) = toolspec_test_postgres::server_url() else {
        return;
    };
    // `orders_report` allows a caller bursts of 5 (then 6 a minute).
    let scratch = Scratch::new();
    let apart = toolspec_test_postgres::Scratch::create(&server_url).await;
    let url = std::ffi::OsStr::new(apart.url());
    let first = HttpServer::start_on(url, &scratch, TOKENS, &[], None).await;
    let second = HttpServer::start_on(url, &scratch, TOKENS, &[], None).await;
    // Each replica keeps its own budget: the caller gets a burst from each.
    assert_eq!(report_calls(&[&first, &second]).await, (10, 0));

    let shared = toolspec_test_postgres::Scratch::create(&server_url).await;
    let url = std::ffi::OsStr::new(shared.url());
    let flag = ["--shared-rate-limits"];
    let first = HttpServer::start_on(url, &scratch, TOKENS, &flag, None).await;
    let second = HttpServer::start_on(url, &scratch, TOKENS, &flag, None).await;
    // One budget in the database both share: one burst, whichever replica is called.
    assert_eq!(report_calls(&[&first, &second]).await, (5, 5));
}
