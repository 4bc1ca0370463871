//! `GET /docs`, the tool catalog page, served by the store's binary and asked for byte for
//! byte on a socket: with `--public-docs` a request without a token (a browser) gets the page
//! of the tools that need no scope, a token its caller's page, a refused token `401`, and a
//! token in the URL nothing; the page is the same whatever `Host` names the server (its curl
//! examples go to the listening address or `--docs-base-url`), each set of scopes gets its own;
//! and each caller — by its token, or without one by its address — has a budget of requests
//! (`--docs-rate-limit`), past which it is answered `429 rate_limited` with `Retry-After`.

use std::net::Ipv4Addr;

use crate::raw_http::{self, RawAnswer};
use crate::support::{HttpServer, Scratch, TOKENS};

/// The tokens of the HTTP tests, and one more caller with Grace's scopes and one with none.
const MORE_TOKENS: &str = r#"{
  "ada-token": { "id": "ada", "ambient": { "customer_id": 1 },
                 "scopes": ["orders:read", "orders:write", "payments:refund"] },
  "grace-token": { "id": "grace", "ambient": { "customer_id": 2 }, "scopes": ["orders:read"] },
  "alan-token": { "id": "alan", "ambient": { "customer_id": 3 }, "scopes": ["orders:read"] },
  "nobody-token": { "id": "nobody", "ambient": { "customer_id": 4 }, "scopes": [] }
}"#;

/// `GET path` of `server` with `Host` naming it as `host` (its port added), as `token` (none:
/// no `Authorization`), from `source` (none: any local address).
async fn get(
    server: &HttpServer,
    path: &str,
    host: &str,
    token: Option<&str>,
    source: Option<Ipv4Addr>,
) -> RawAnswer {
    let address = server.address();
    let port = address.rsplit_once(':').map(|(_, p)| p).unwrap_or_default();
    let host = format!("Host: {host}:{port}");
    let authorization = token.map(|t| format!("Authorization: Bearer {t}"));
    let mut headers = vec![host.as_str()];
    headers.extend(authorization.as_deref());
    raw_http::send_from(source, &address, "GET", path, &headers, "").await
}

/// The page `token` gets (none: without a token), asserting that it is one.
async fn page(server: &HttpServer, token: Option<&str>) -> String {
    let answer = get(server, "/docs", "127.0.0.1", token, None).await;
    assert_eq!(answer.status, 200, "{answer:#?}");
    assert_eq!(
        answer.header("content-type"),
        Some("text/html; charset=utf-8")
    );
    answer.body
}

/// Whether `page` has the section of `tool`.
fn shows(page: &str, tool: &str) -> bool {
    page.contains(&format!("<section class=\"tool\" id=\"tool-{tool}\""))
}

#[tokio::test]
async fn a_request_without_a_token_gets_the_public_page_only_when_the_server_serves_one() {
    let scratch = Scratch::new();
    let closed = HttpServer::start(&scratch).await;
    let refused = get(&closed, "/docs", "127.0.0.1", None, None).await;
    refused.assert_failure(401, "unauthorized");
    drop(closed);

    let server = HttpServer::start_with(&scratch, TOKENS, &["--public-docs"], None).await;
    let public = page(&server, None).await;
    // The tools that need no scope, said to be what a signed-out reader sees.
    assert!(shows(&public, "customers_me"), "{public}");
    assert!(shows(&public, "explain"));
    for scoped in [
        "orders_get",
        "orders_search",
        "orders_cancel",
        "orders_place",
    ] {
        assert!(!shows(&public, scoped), "{scoped} needs a scope");
        assert!(!public.contains(scoped), "{scoped} is not named either");
    }
    assert!(
        public.contains("You are not signed in: these are the tools that need no scope."),
        "{public}"
    );
    // A token gets its caller's page; a token the server refuses is not read as none.
    let grace = page(&server, Some("grace-token")).await;
    assert!(shows(&grace, "orders_get") && !shows(&grace, "orders_cancel"));
    assert!(!grace.contains("You are not signed in"));
    let ada = page(&server, Some("ada-token")).await;
    assert!(shows(&ada, "orders_cancel") && shows(&ada, "orders_place"));
    let forged = get(&server, "/docs", "127.0.0.1", Some("forged"), None).await;
    forged.assert_failure(401, "unauthorized");
    // A token is never read from the URL.
    for query in [
        "?access_token=ada-token",
        "?token=ada-token",
        "?bearer=ada-token",
    ] {
        let answer = get(&server, &format!("/docs{query}"), "127.0.0.1", None, None).await;
        assert_eq!(answer.status, 200);
        assert_eq!(answer.body, public, "{query}");
    }
}

#[tokio::test]
async fn the_page_does_not_depend_on_the_host_and_each_set_of_scopes_has_its_own() {
    let scratch = Scratch::new();
    let server = HttpServer::start_with(&scratch, MORE_TOKENS, &["--public-docs"], None).await;
    let address = server.address();
    let mut pages = Vec::new();
    for host in ["127.0.0.1", "localhost", "127.0.0.1", "localhost"] {
        for token in ["grace-token", "ada-token", "nobody-token"] {
            let answer = get(&server, "/docs", host, Some(token), None).await;
            assert_eq!(answer.status, 200, "{answer:#?}");
            pages.push((host, token, answer.body));
        }
    }
    let of = |token: &str| -> Vec<&String> {
        (pages.iter())
            .filter(|(_, t, _)| *t == token)
            .map(|(_, _, page)| page)
            .collect()
    };
    for token in ["grace-token", "ada-token", "nobody-token"] {
        let seen = of(token);
        assert!(
            seen.iter().all(|page| *page == seen[0]),
            "{token}: one page whatever the Host"
        );
    }
    let (grace, ada, nobody) = (
        of("grace-token")[0],
        of("ada-token")[0],
        of("nobody-token")[0],
    );
    assert!(shows(grace, "orders_get") && !shows(grace, "orders_cancel"));
    assert!(shows(ada, "orders_cancel"));
    assert!(!shows(nobody, "orders_get") && shows(nobody, "customers_me"));
    assert!(grace != ada && grace != nobody && ada != nobody);
    // Another caller with Grace's scopes sees her page; the public page is the scope-less
    // one, said to be so.
    assert_eq!(&page(&server, Some("alan-token")).await, grace);
    let public = page(&server, None).await;
    assert_eq!(
        public.replace(
            "<p>You are not signed in: these are the tools that need no scope. Send a bearer token (an Authorization header) for the page of the tools you may call.</p>\n",
            ""
        ),
        *nobody
    );
    // Its curl examples go to the listening address, never to a Host the request named.
    let listening = format!(
        "curl -X POST http:&#x2f;&#x2f;{}&#x2f;tools&#x2f;",
        address.replace('/', "&#x2f;")
    );
    assert!(grace.contains(&listening), "{grace}");
    assert!(!grace.contains("localhost"), "{grace}");
    drop(server);

    // Or to where the server says it is.
    let told = ["--docs-base-url", "https://tools.example.com"];
    let server = HttpServer::start_with(&scratch, MORE_TOKENS, &told, None).await;
    let grace = page(&server, Some("grace-token")).await;
    assert!(
        grace.contains(
            "curl -X POST https:&#x2f;&#x2f;tools.example.com&#x2f;tools&#x2f;orders_get"
        ),
        "{grace}"
    );
}

#[tokio::test]
async fn each_caller_has_a_budget_for_the_page_and_callers_without_a_token_one_per_address() {
    let scratch = Scratch::new();
    let args = ["--public-docs", "--docs-rate-limit", "3"];
    let server = HttpServer::start_with(&scratch, MORE_TOKENS, &args, None).await;
    let from = |last: u8| Some(Ipv4Addr::new(127, 0, 0, last));
    // Three at once from one address, then `429` with when to retry (a minute's budget of 3:
    // one more in 20 s).
    for _ in 0..3 {
        let answer = get(&server, "/docs", "127.0.0.1", None, from(1)).await;
        assert_eq!(answer.status, 200);
    }
    let refused = get(&server, "/docs", "127.0.0.1", None, from(1)).await;
    let message = refused.assert_failure(429, "rate_limited");
    let retry: u64 = refused
        .header("retry-after")
        .expect("Retry-After")
        .parse()
        .unwrap();
    assert!((1..=20).contains(&retry), "{retry}");
    assert_eq!(
        message,
        format!("You asked for the tool catalog too often; retry in {retry} s.")
    );
    // Another address, and a caller with a token, have budgets of their own.
    let other = get(&server, "/docs", "127.0.0.1", None, from(2)).await;
    assert_eq!(other.status, 200, "{other:#?}");
    for _ in 0..3 {
        let answer = get(&server, "/docs", "127.0.0.1", Some("grace-token"), from(1)).await;
        assert_eq!(answer.status, 200);
    }
    // Grace's budget is hers whatever address she comes from.
    let spent = get(&server, "/docs", "127.0.0.1", Some("grace-token"), from(3)).await;
    spent.assert_failure(429, "rate_limited");
    let alan = get(&server, "/docs", "127.0.0.1", Some("alan-token"), from(1)).await;
    assert_eq!(alan.status, 200, "same scopes, another caller");
    // The rest of the API is not this budget's.
    let listing = get(&server, "/tools", "127.0.0.1", Some("grace-token"), from(1)).await;
    assert_eq!(listing.status, 200);
}
