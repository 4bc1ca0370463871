//! End to end: the store's binary started with `serve --http … --issuer URL --audience AUD`
//! checks the test issuer's JWTs on `/tools…` and `/mcp`, serves its protected resource
//! metadata, and with `--on-missing-scope challenge` answers a call without the scopes `403`.

use std::process::Stdio;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::issuer::{AUDIENCE, Issuer, TestKey};

const BINARY: &str = env!("CARGO_BIN_EXE_toolspec-store");

/// The store's binary serving HTTP on a free loopback port.
struct Store {
    _process: tokio::process::Child,
    base: String,
    _dir: tempfile::TempDir,
}

impl Store {
    async fn start(issuer: &Issuer, args: &[&str]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let mut process = tokio::process::Command::new(BINARY)
            .arg("--db")
            .arg(dir.path().join("store.db"))
            .args(["serve", "--http", "127.0.0.1:0", "--issuer", &issuer.url])
            .args(["--audience", AUDIENCE])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start the store binary");
        let mut lines = BufReader::new(process.stderr.take().unwrap()).lines();
        let mut seen = Vec::new();
        let endpoint = tokio::time::timeout(Duration::from_secs(30), async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(url) = line.strip_prefix("MCP endpoint: ") {
                    return url.trim().to_owned();
                }
                seen.push(line);
            }
            panic!("the store exited; it said:\n{}", seen.join("\n"));
        })
        .await
        .expect("the store starts");
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let base = endpoint.trim_end_matches("/mcp").to_owned();
        Self {
            _process: process,
            base,
            _dir: dir,
        }
    }
}

async fn send(request: reqwest::RequestBuilder, token: Option<&str>) -> (u16, String, Value) {
    let answer = crate::answer::send(request, token).await;
    (answer.status, answer.challenge, answer.body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_checks_the_issuers_tokens_on_the_api_and_on_mcp() {
    let (rsa, ec) = (TestKey::rsa_1(), TestKey::ec_1());
    let issuer = Issuer::start(&[&rsa, &ec]).await;
    let store = Store::start(&issuer, &[]).await;
    let http = reqwest::Client::new();
    let metadata = format!("{}/.well-known/oauth-protected-resource", store.base);

    let (status, _, document) = send(http.get(&metadata), None).await;
    assert_eq!(status, 200);
    assert_eq!(document["resource"], json!(store.base));
    assert_eq!(document["authorization_servers"], json!([issuer.url]));
    assert_eq!(
        document["scopes_supported"],
        json!(["orders:read", "orders:write", "payments:refund"])
    );

    let me = format!("{}/tools/customers_me", store.base);
    let (status, challenge, _) = send(http.post(&me), None).await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge,
        format!("Bearer resource_metadata=\"{metadata}\"")
    );

    let ada = rsa.sign(&issuer.claims("1", "orders:read"));
    let (status, _, body) = send(http.post(&me), Some(&ada)).await;
    assert_eq!((status, &body["id"]), (200, &json!(1)), "{body}");
    let grace = ec.sign(&issuer.claims("2", "orders:read"));
    let order = format!("{}/tools/orders_get?order_id=1", store.base);
    let (status, _, body) = send(http.get(&order), Some(&grace)).await;
    assert_eq!(status, 404, "another customer's order: {body}");

    let unfit = rsa.sign(&issuer.claims("abc", "orders:read"));
    let (status, challenge, _) = send(http.post(&me), Some(&unfit)).await;
    assert_eq!(status, 401);
    assert!(
        challenge.contains("does not fit the ambient `customer_id`"),
        "{challenge}"
    );

    // MCP with the same token; the spec hides tools the token's scopes do not reach.
    let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", store.base))
        .auth_header(ada.clone());
    let client =
        ().serve(StreamableHttpClientTransport::from_config(config))
            .await
            .expect("an MCP session with a JWT");
    let me = client
        .call_tool(CallToolRequestParams::new("customers_me"))
        .await
        .unwrap();
    assert_eq!(me.structured_content.unwrap()["id"], 1);
    let listed = client.list_tools(None).await.unwrap();
    let names: Vec<&str> = listed.tools.iter().map(|t| t.name.as_ref()).collect();
    assert!(!names.contains(&"orders_cancel"), "{names:?}");
    client.cancel().await.unwrap();

    let (status, challenge, _) = send(
        http.post(format!("{}/mcp", store.base))
            .header("content-type", "application/json")
            .body("{}"),
        None,
    )
    .await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge,
        format!("Bearer realm=\"mcp\", resource_metadata=\"{metadata}\"")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_challenges_when_told_and_names_its_own_resource() {
    let rsa = TestKey::rsa_1();
    let issuer = Issuer::start(&[&rsa]).await;
    let args = [
        "--on-missing-scope",
        "challenge",
        "--resource",
        "https://store.example.com/",
    ];
    let store = Store::start(&issuer, &args).await;
    let http = reqwest::Client::new();
    let (status, _, document) = send(
        http.get(format!(
            "{}/.well-known/oauth-protected-resource",
            store.base
        )),
        None,
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(document["resource"], "https://store.example.com/");

    let reader = rsa.sign(&issuer.claims("1", "orders:read"));
    let (status, challenge, body) = send(
        http.post(format!("{}/tools/orders_cancel", store.base))
            .body(r#"{"order": 1}"#),
        Some(&reader),
    )
    .await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(
        challenge,
        "Bearer error=\"insufficient_scope\", scope=\"orders:write\", \
         resource_metadata=\"https://store.example.com/.well-known/oauth-protected-resource\""
    );
    let call = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": { "name": "orders_refund", "arguments": {"order": 1, "amount": "1.00"} }
    });
    let (status, challenge, _) = send(
        http.post(format!("{}/mcp", store.base))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(call.to_string()),
        Some(&reader),
    )
    .await;
    assert_eq!(status, 403);
    assert!(
        challenge.contains("scope=\"orders:write payments:refund\""),
        "{challenge}"
    );
}
