//! The store's tools served in-process as the store serves them — the HTTP API merged into MCP's
//! streamable HTTP transport on one loopback port — behind a `JwtAuthenticator` of the test
//! issuer: the challenges of every `401`, the protected resource metadata, the token's subject
//! reaching a tool as the customer, and what a caller without a tool's scopes meets under
//! `hide` and under `challenge`, on the HTTP API and on MCP.

use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use toolspec::auth::JwtBuilder;
use toolspec::http::HttpApi;
use toolspec::mcp::McpServer;
use toolspec::mcp::http::HttpTransport;
use toolspec::{Caller, CancellationToken, MissingScope, Registry};
use toolspec_store::tools;

use crate::answer::{Answer, send};
use crate::issuer::{AUDIENCE, Issuer, TestKey, now};

/// The store served on a loopback port with JWT auth, and a client for it.
struct Served {
    base: String,
    issuer: Issuer,
    key: TestKey,
    client: reqwest::Client,
    shutdown: CancellationToken,
    _dir: tempfile::TempDir,
}

impl Drop for Served {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

impl Served {
    async fn start(policy: MissingScope) -> Self {
        let key = TestKey::rsa_1();
        let issuer = Issuer::start(&[&key]).await;
        let dir = tempfile::tempdir().unwrap();
        let location = toolspec_store::Location::File(dir.path().join("store.db"));
        let store = toolspec_store::Store::open(&location).await.unwrap();
        let registry: Arc<Registry> = Arc::new(toolspec_store::registry(store));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let jwt = JwtBuilder::from_config(&tools::PROJECT.auth)
            .issuer(&issuer.url)
            .audience(AUDIENCE)
            .resource(&base)
            .build()
            .unwrap();
        let anonymous = Caller::new("anonymous").with_scopes(Vec::<String>::new());
        let api = HttpApi::new(Arc::clone(&registry), anonymous.clone())
            .authenticator(jwt.clone())
            .on_missing_scope(policy)
            .router();
        let transport = HttpTransport::new(McpServer::new(registry, anonymous))
            .with_routes(api)
            .authenticator(jwt)
            .on_missing_scope(policy);
        let shutdown = CancellationToken::new();
        tokio::spawn(transport.serve(listener, shutdown.clone()));
        Self {
            base,
            issuer,
            key,
            client: reqwest::Client::new(),
            shutdown,
            _dir: dir,
        }
    }

    fn token(&self, sub: &str, scope: &str) -> String {
        self.key.sign(&self.issuer.claims(sub, scope))
    }

    fn metadata_url(&self) -> String {
        format!("{}/.well-known/oauth-protected-resource", self.base)
    }

    async fn send(&self, request: reqwest::RequestBuilder, token: Option<&str>) -> Answer {
        send(request, token).await
    }

    async fn post(&self, path: &str, body: Value, token: Option<&str>) -> Answer {
        let request = self
            .client
            .post(format!("{}{path}", self.base))
            .body(body.to_string());
        self.send(request, token).await
    }

    async fn get(&self, path: &str, token: Option<&str>) -> Answer {
        let request = self.client.get(format!("{}{path}", self.base));
        self.send(request, token).await
    }

    /// A JSON-RPC `tools/call` POSTed to `/mcp`.
    async fn mcp_call(&self, tool: &str, arguments: Value, token: &str) -> Answer {
        let message = json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": { "name": tool, "arguments": arguments }
        });
        let request = self
            .client
            .post(format!("{}/mcp", self.base))
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25")
            .body(message.to_string());
        self.send(request, Some(token)).await
    }

    /// An rmcp client with `token`.
    async fn mcp_client(&self, token: &str) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
        let config = StreamableHttpClientTransportConfig::with_uri(format!("{}/mcp", self.base))
            .auth_header(token.to_owned());
        ().serve(StreamableHttpClientTransport::from_config(config))
            .await
            .expect("an MCP session")
    }
}

async fn tool_names(client: &rmcp::service::RunningService<rmcp::RoleClient, ()>) -> Vec<String> {
    let listed = client.list_tools(None).await.unwrap();
    listed
        .tools
        .into_iter()
        .map(|t| t.name.into_owned())
        .collect()
}

fn names(listing: &Value) -> Vec<&str> {
    listing["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn every_401_names_the_resource_metadata_and_says_why_a_token_was_refused() {
    let served = Served::start(MissingScope::Hide).await;
    let metadata = served.metadata_url();

    let document = served
        .get("/.well-known/oauth-protected-resource", None)
        .await;
    assert_eq!(document.status, 200);
    assert_eq!(
        document.body,
        json!({
            "resource": served.base,
            "authorization_servers": [served.issuer.url],
            "scopes_supported": ["orders:read", "orders:write", "payments:refund"],
            "bearer_methods_supported": ["header"],
        })
    );

    let none = served.post("/tools/customers_me", json!({}), None).await;
    assert_eq!(none.status, 401);
    assert_eq!(
        none.challenge,
        format!("Bearer resource_metadata=\"{metadata}\"")
    );
    assert_eq!(none.body["error"], "unauthorized");

    let mut expired = served.issuer.claims("1", "orders:read");
    expired["exp"] = json!(now() - 600);
    let expired = served.key.sign(&expired);
    let refused = served
        .post("/tools/customers_me", json!({}), Some(&expired))
        .await;
    assert_eq!(refused.status, 401);
    assert_eq!(
        refused.challenge,
        format!(
            "Bearer error=\"invalid_token\", error_description=\"the token has expired\", \
             resource_metadata=\"{metadata}\""
        )
    );
    assert_eq!(
        refused.body["message"],
        "The request needs a valid bearer token: the token has expired."
    );
    let listing = served.get("/tools", Some(&expired)).await;
    assert_eq!(listing.status, 401);

    let mcp = served.mcp_call("customers_me", json!({}), "garbage").await;
    assert_eq!(mcp.status, 401);
    assert!(
        mcp.challenge.starts_with(
            "Bearer realm=\"mcp\", error=\"invalid_token\", error_description=\"the token is not \
             a JWT"
        ),
        "{}",
        mcp.challenge
    );
    assert!(
        mcp.challenge
            .ends_with(&format!("resource_metadata=\"{metadata}\"")),
        "{}",
        mcp.challenge
    );
}

#[tokio::test]
async fn the_subject_reaches_the_tool_as_the_customer_and_an_unfit_one_is_refused() {
    let served = Served::start(MissingScope::Hide).await;
    for (sub, id) in [("1", 1), ("2", 2)] {
        let me = served
            .post(
                "/tools/customers_me",
                json!({}),
                Some(&served.token(sub, "")),
            )
            .await;
        assert_eq!(
            (me.status, &me.body["id"]),
            (200, &json!(id)),
            "{}",
            me.body
        );
    }
    // The model cannot name another customer: the ambient context is the token's.
    let spoofed = served
        .post(
            "/tools/customers_me",
            json!({"ambient_context": {"customer_id": 2}}),
            Some(&served.token("1", "")),
        )
        .await;
    assert_ne!(spoofed.body["id"], json!(2), "{}", spoofed.body);

    let unfit = served
        .post(
            "/tools/customers_me",
            json!({}),
            Some(&served.token("abc", "")),
        )
        .await;
    assert_eq!(unfit.status, 401);
    assert!(
        unfit.challenge.contains(
            "error_description=\"the token's `sub` claim does not fit the ambient `customer_id` \
             (integer): 'abc' is not an integer\""
        ),
        "{}",
        unfit.challenge
    );

    let client = served.mcp_client(&served.token("2", "orders:read")).await;
    let me = client
        .call_tool(CallToolRequestParams::new("customers_me"))
        .await
        .unwrap();
    assert_eq!(me.structured_content.unwrap()["id"], 2);
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn under_challenge_a_call_without_the_scopes_answers_403_naming_them() {
    let served = Served::start(MissingScope::Challenge).await;
    let metadata = served.metadata_url();
    let reader = served.token("1", "orders:read");

    let listing = served.get("/tools", Some(&reader)).await;
    assert!(
        names(&listing.body).contains(&"orders_cancel"),
        "{}",
        listing.body
    );

    for path in ["/tools/orders_cancel", "/tools/orders_cancel/explain"] {
        let refused = served.post(path, json!({"order": 1}), Some(&reader)).await;
        assert_eq!(refused.status, 403, "{path}: {}", refused.body);
        assert_eq!(
            refused.challenge,
            format!(
                "Bearer error=\"insufficient_scope\", scope=\"orders:write\", \
                 resource_metadata=\"{metadata}\""
            ),
            "{path}"
        );
        assert_eq!(refused.body["error"], "insufficient_scope");
    }
    let explained = served
        .post(
            "/tools/explain",
            json!({"tool": "orders_cancel", "arguments": {"order": 1}}),
            Some(&reader),
        )
        .await;
    assert_eq!(explained.status, 403, "{}", explained.body);
    let got = served
        .get("/tools/orders_get?order_id=1", Some(&reader))
        .await;
    assert_eq!(got.status, 200, "{}", got.body);
    let writer = served.token("1", "orders:read orders:write");
    let explained = served
        .post(
            "/tools/orders_cancel/explain",
            json!({"order": 1}),
            Some(&writer),
        )
        .await;
    assert_eq!(explained.status, 200, "{}", explained.body);

    // MCP: listed, and a call (or an explanation) of it is answered 403 before rmcp.
    let refund = json!({"order": 1, "amount": "1.00"});
    let refused = served
        .mcp_call("orders_refund", refund.clone(), &reader)
        .await;
    assert_eq!(refused.status, 403, "{}", refused.body);
    assert_eq!(
        refused.challenge,
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"orders:write payments:refund\", \
             resource_metadata=\"{metadata}\""
        )
    );
    let explained = served
        .mcp_call(
            "explain",
            json!({"tool": "orders_refund", "arguments": refund}),
            &reader,
        )
        .await;
    assert_eq!(explained.status, 403);
    assert!(
        explained
            .challenge
            .contains("scope=\"orders:write payments:refund\"")
    );

    let client = served.mcp_client(&reader).await;
    let listed = tool_names(&client).await;
    assert!(listed.contains(&"orders_refund".to_owned()), "{listed:?}");
    let got = client
        .call_tool(
            CallToolRequestParams::new("orders_get")
                .with_arguments(json!({"order_id": 1}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(got.structured_content.unwrap()["order"]["id"], 1);
    assert!(
        client
            .call_tool(CallToolRequestParams::new("orders_refund"))
            .await
            .is_err(),
        "rmcp's client sees the 403 as a failed request"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn under_hide_a_tool_without_the_scopes_is_unknown() {
    let served = Served::start(MissingScope::Hide).await;
    let reader = served.token("1", "orders:read");
    let listing = served.get("/tools", Some(&reader)).await;
    assert!(!names(&listing.body).contains(&"orders_cancel"));
    let refused = served
        .post("/tools/orders_cancel", json!({"order": 1}), Some(&reader))
        .await;
    assert_eq!(refused.status, 404, "{}", refused.body);
    assert_eq!(refused.body["error"], "unknown_tool");
    assert_eq!(refused.challenge, "");

    let client = served.mcp_client(&reader).await;
    assert!(
        !tool_names(&client)
            .await
            .contains(&"orders_refund".to_owned())
    );
    let error = client
        .call_tool(CallToolRequestParams::new("orders_refund"))
        .await
        .unwrap_err();
    match error {
        rmcp::ServiceError::McpError(data) => {
            assert_eq!(data.code.0, -32602);
            assert_eq!(data.message, "Unknown tool: orders_refund");
        }
        other => panic!("not a JSON-RPC error: {other}"),
    }
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn the_metadata_document_is_behind_the_same_host_policy_as_every_route() {
    let served = Served::start(MissingScope::Hide).await;
    let address = served.base.trim_start_matches("http://");
    let metadata = "/.well-known/oauth-protected-resource";
    let foreign =
        crate::raw_http::send(address, "GET", metadata, &["Host: evil.example"], "").await;
    foreign.assert_failure(403, "host_not_allowed");
    let nameless = crate::raw_http::send(address, "GET", metadata, &[], "").await;
    nameless.assert_failure(400, "invalid_host");
    let served_here =
        crate::raw_http::send(address, "GET", metadata, &[&format!("Host: {address}")], "").await;
    assert_eq!(served_here.status, 200, "{served_here:#?}");
    assert_eq!(served_here.json()["resource"], json!(served.base));
}
