//! The store's binary at its front door, on every route of one `serve --http` address (MCP,
//! the HTTP API, its OpenAPI document, the agent, and paths it does not serve), with requests
//! written byte for byte: a foreign `Host` or `Origin`, no `Host`, two `Host`s.

use serde_json::json;

use crate::fake_model::{FakeOpenAi, text};
use crate::raw_http::{self, RawAnswer};
use crate::support::*;

/// The store serving `/agent` too, its model a fake that answers two requests.
async fn store_with_agent(scratch: &Scratch) -> (HttpServer, std::sync::Arc<FakeOpenAi>) {
    let (fake, model_url) = FakeOpenAi::start(vec![text("Hello."), text("Hello again.")]).await;
    let args = ["--model-url", model_url.as_str(), "--model", "fake-model"];
    let server = HttpServer::start_with(scratch, TOKENS, &args, None).await;
    (server, fake)
}

/// Every route of the address, as `(method, path, body, status when served)`.
fn routes() -> Vec<(&'static str, &'static str, String, u16)> {
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": { "name": "raw", "version": "0" }
        }
    });
    vec![
        ("POST", "/mcp", initialize.to_string(), 200),
        ("GET", "/tools", String::new(), 200),
        (
            "POST",
            "/tools/orders_get",
            r#"{"order_id": 1}"#.into(),
            200,
        ),
        ("GET", "/openapi.json", String::new(), 200),
        ("POST", "/agent", r#"{"message": "Hello?"}"#.into(), 200),
        ("GET", "/no/such/path", String::new(), 404),
    ]
}

/// The headers of a request Ada's client would send, after whatever `Host` the test chose.
const ADA: [&str; 3] = [
    "Authorization: Bearer ada-token",
    "Content-Type: application/json",
    "Accept: application/json, text/event-stream",
];

async fn send_with(
    address: &str,
    first: &[&str],
    (method, path, body): (&str, &str, &str),
) -> RawAnswer {
    let headers: Vec<&str> = first.iter().chain(ADA.iter()).copied().collect();
    raw_http::send(address, method, path, &headers, body).await
}

#[tokio::test(flavor = "multi_thread")]
async fn every_route_refuses_a_foreign_host_or_origin_and_a_request_without_a_host() {
    let scratch = Scratch::new();
    let (server, fake) = store_with_agent(&scratch).await;
    let address = server.address();
    let port = address.rsplit(':').next().unwrap().to_owned();
    let loopback = format!("Host: {address}");
    let rebound = format!("Host: evil.example:{port}");
    for (method, path, body, served) in routes() {
        let request = (method, path, body.as_str());
        for host in ["Host: evil.example", rebound.as_str()] {
            let answer = send_with(&address, &[host], request).await;
            let message = answer.assert_failure(403, "host_not_allowed");
            assert!(
                message.contains("evil.example"),
                "{method} {path}: {message}"
            );
        }
        for origin in ["Origin: https://evil.example", "Origin: null"] {
            let answer = send_with(&address, &[&loopback, origin], request).await;
            answer.assert_failure(403, "origin_not_allowed");
        }
        let answer = send_with(&address, &[], request).await;
        let message = answer.assert_failure(400, "invalid_host");
        assert!(message.contains("no `Host`"), "{method} {path}: {message}");
        let twice = send_with(&address, &[&loopback, "Host: evil.example"], request).await;
        twice.assert_failure(400, "invalid_host");

        // This machine's name and its pages are served.
        let answer = send_with(&address, &[&loopback], request).await;
        assert_eq!(answer.status, served, "{method} {path}: {answer:#?}");
        let local_page = send_with(
            &address,
            &["Host: localhost", "Origin: http://localhost:6274"],
            request,
        )
        .await;
        assert_eq!(
            local_page.status, served,
            "{method} {path}: {local_page:#?}"
        );
    }
    // Only the two served `/agent` requests reached the model.
    assert_eq!(fake.requests().len(), 2, "{:#?}", fake.requests());
}

#[tokio::test]
async fn allowed_hosts_and_origins_hold_on_every_route() {
    let scratch = Scratch::new();
    let args = [
        "--allow-host",
        "store.example",
        "--allow-origin",
        "https://app.example.com",
    ];
    let server = HttpServer::start_with(&scratch, TOKENS, &args, None).await;
    let address = server.address();
    for (method, path, body, served) in routes() {
        if path == "/agent" {
            continue;
        }
        let request = (method, path, body.as_str());
        let named = send_with(&address, &["Host: store.example"], request).await;
        assert_eq!(named.status, served, "{method} {path}: {named:#?}");
        let page = send_with(
            &address,
            &["Host: store.example", "Origin: https://app.example.com"],
            request,
        )
        .await;
        assert_eq!(page.status, served, "{method} {path}: {page:#?}");
        // Another port of an allowed origin is another origin.
        let other_port = send_with(
            &address,
            &[
                "Host: store.example",
                "Origin: https://app.example.com:8443",
            ],
            request,
        )
        .await;
        other_port.assert_failure(403, "origin_not_allowed");
        let other = send_with(&address, &["Host: other.example"], request).await;
        other.assert_failure(403, "host_not_allowed");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_failure_of_every_route_has_the_error_shape() {
    let scratch = Scratch::new();
    let (server, fake) = store_with_agent(&scratch).await;
    let address = server.address();
    let host = format!("Host: {address}");
    for (method, path) in [
        ("POST", "/tools/orders_get/"),
        ("GET", "/tools/"),
        ("GET", "/no/such/path"),
        ("POST", "/agent/"),
        ("GET", "/"),
        ("GET", "/.well-known/oauth-protected-resource"),
    ] {
        let answer = send_with(&address, &[&host], (method, path, "")).await;
        let message = answer.assert_failure(404, "unknown_path");
        assert!(message.contains(path), "{method} {path}: {message}");
        // Without a token too: nothing is there to authenticate for.
        let anonymous = raw_http::send(&address, method, path, &[&host], "").await;
        anonymous.assert_failure(404, "unknown_path");
    }
    for (method, path, allow) in [
        ("PUT", "/tools", "GET,HEAD"),
        ("GET", "/agent", "POST"),
        ("DELETE", "/agent", "POST"),
        ("POST", "/openapi.json", "GET,HEAD"),
        ("GET", "/tools/orders_get/explain", "POST"),
    ] {
        let answer = send_with(&address, &[&host], (method, path, "")).await;
        let message = answer.assert_failure(405, "method_not_allowed");
        assert!(
            message.contains(method) && message.contains(path),
            "{message}"
        );
        let allowed: Vec<&str> = answer
            .header("allow")
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .collect();
        assert_eq!(allowed.join(","), allow, "{method} {path}: {answer:#?}");
    }
    assert!(fake.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn ambiguous_credentials_are_refused_on_every_route_whichever_comes_first() {
    let scratch = Scratch::new();
    let (server, fake) = store_with_agent(&scratch).await;
    let address = server.address();
    let host = format!("Host: {address}");
    let common = [
        host.as_str(),
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
    ];
    let (ada, grace) = (
        "Authorization: Bearer ada-token",
        "Authorization: Bearer grace-token",
    );
    for (method, path, body, _) in routes() {
        if !matches!(path, "/mcp" | "/tools" | "/tools/orders_get" | "/agent") {
            continue;
        }
        for credentials in [
            vec![ada, grace],
            vec![grace, ada],
            vec![ada, "Authorization: Bearer ada-token, Bearer grace-token"],
            vec!["Authorization: Bearer grace-token, Bearer ada-token"],
        ] {
            let headers: Vec<&str> = common.iter().copied().chain(credentials.clone()).collect();
            let answer = raw_http::send(&address, method, path, &headers, &body).await;
            assert_eq!(
                answer.status, 400,
                "{method} {path} {credentials:?}: {answer:#?}"
            );
            let challenge = answer.header("www-authenticate").unwrap_or_default();
            assert!(
                challenge.contains("error=\"invalid_request\""),
                "{method} {path}: {challenge}"
            );
            if path == "/mcp" {
                assert!(challenge.starts_with("Bearer realm=\"mcp\""), "{challenge}");
                assert!(answer.body.contains("Authorization"), "{answer:#?}");
            } else {
                answer.assert_failure(400, "invalid_request");
            }
        }
    }
    assert!(
        fake.requests().is_empty(),
        "no ambiguous request reached the model"
    );
}
