//! The store's tools through `toolspec::http` with real HTTP requests: each outcome's status
//! and the one error shape, `GET` for read-only tools, explain, the listing, bearer tokens,
//! the body limit.

#[path = "support/orders.rs"]
mod orders;
#[path = "support/raw_http.rs"]
mod raw_http;

use std::sync::Arc;

use serde_json::{Value, json};
use toolspec::auth::BearerTokens;
use toolspec::gate::HostPolicy;
use toolspec::http::HttpApi;
use toolspec::request_state::{RequestState, StateKeys};
use toolspec::{Caller, Registry};

const TOKENS: &str = r#"{
  "ada-token": { "id": "ada", "ambient": { "customer_id": 1 },
                 "scopes": ["orders:read", "orders:write", "payments:refund"] },
  "grace-token": { "id": "grace", "ambient": { "customer_id": 2 }, "scopes": ["orders:read"] },
  "bob-token": { "id": "bob", "ambient": { "customer_id": 2 },
                 "scopes": ["orders:read", "orders:write"] }
}"#;

/// The keys the API's request states are sealed with (a test seals one of its own with them).
fn state_keys() -> &'static StateKeys {
    static KEYS: std::sync::OnceLock<StateKeys> = std::sync::OnceLock::new();
    KEYS.get_or_init(|| StateKeys::parse(&StateKeys::generate("test")).unwrap())
}

/// The API over the store on a fresh SQLite file, served on a loopback port.
struct Api {
    base: String,
    client: reqwest::Client,
    _dir: tempfile::TempDir,
}

impl Api {
    async fn start() -> Self {
        Self::start_with(|api| api).await
    }

    /// The API as `configure` leaves it.
    async fn start_with(configure: impl FnOnce(HttpApi) -> HttpApi) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let location = toolspec_store::Location::File(dir.path().join("store.db"));
        let store = toolspec_store::Store::open(&location).await.unwrap();
        let registry =
            toolspec_store::registry(store).with_request_state_keys(state_keys().clone());
        let registry: Arc<Registry> = Arc::new(registry);
        let tokens: BearerTokens = serde_json::from_str(TOKENS).unwrap();
        let api = HttpApi::new(registry, Caller::new("nobody"))
            .authenticator(tokens)
            .max_body_bytes(64 * 1024);
        let router = configure(api).router();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, router).await });
        Self {
            base,
            client: reqwest::Client::new(),
            _dir: dir,
        }
    }

    /// `POST path` with `body` as `token`: the status and the JSON answer.
    async fn post(
        &self,
        token: Option<&str>,
        path: &str,
        body: &str,
    ) -> (u16, Value, reqwest::header::HeaderMap) {
        let mut request = self
            .client
            .post(format!("{}{path}", self.base))
            .body(body.to_owned());
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        answer(request.send().await.unwrap()).await
    }

    /// `host:port`.
    fn address(&self) -> &str {
        self.base.trim_start_matches("http://")
    }

    async fn get(&self, token: &str, path: &str) -> (u16, Value, reqwest::header::HeaderMap) {
        let request = self
            .client
            .get(format!("{}{path}", self.base))
            .header("authorization", format!("Bearer {token}"));
        answer(request.send().await.unwrap()).await
    }
}

async fn answer(response: reqwest::Response) -> (u16, Value, reqwest::header::HeaderMap) {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, body, headers)
}

#[tokio::test]
async fn a_call_answers_200_with_the_exposed_values() {
    let api = Api::start().await;
    let (status, body, _) = api
        .post(Some("ada-token"), "/tools/orders_get", r#"{"order_id": 1}"#)
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (&body["order"]["id"], &body["order"]["status"]),
        (&json!(1), &json!("pending"))
    );
}

#[tokio::test]
async fn a_read_only_tool_answers_get_with_query_parameters_and_others_refuse_it() {
    let api = Api::start().await;
    let (status, body, _) = api
        .get("ada-token", "/tools/orders_search?status=pending&limit=5")
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        (&body["total"], &body["limit"], &body["records"][0]["id"]),
        (&json!(1), &json!(5), &json!(1))
    );
    let (status, body, headers) = api.get("ada-token", "/tools/orders_place").await;
    assert_eq!(
        (status, &body["error"]),
        (405, &json!("method_not_allowed"))
    );
    assert_eq!(headers["allow"], "POST");
    // Other methods: 405, and `Allow` says what the tool takes.
    for (path, allow) in [
        ("/tools/orders_place", "POST"),
        ("/tools/orders_search", "GET, HEAD, POST"),
    ] {
        let response = api
            .client
            .request(reqwest::Method::OPTIONS, format!("{}{path}", api.base))
            .header("authorization", "Bearer ada-token")
            .send()
            .await
            .unwrap();
        let (status, body, headers) = answer(response).await;
        assert_eq!(
            (status, &body["error"]),
            (405, &json!("method_not_allowed"))
        );
        assert_eq!(headers["allow"], allow, "{path}");
    }
}

#[tokio::test]
async fn a_body_must_be_a_json_object() {
    let api = Api::start().await;
    for (body, message) in [
        ("null", "The body must be a JSON object, not null."),
        ("[1, 2]", "The body must be a JSON object, not a list."),
        ("\"hi\"", "The body must be a JSON object, not a string."),
    ] {
        for path in ["/tools/orders_get", "/tools/orders_get/explain"] {
            let (status, answer, _) = api.post(Some("ada-token"), path, body).await;
            assert_eq!(status, 422, "{path} {body}: {answer}");
            assert_eq!(
                answer,
                json!({"error": "invalid_arguments", "message": message})
            );
        }
    }
}

#[tokio::test]
async fn each_kind_of_failure_has_its_status_and_the_one_error_shape() {
    let api = Api::start().await;
    let cases = [
        // invalid arguments
        (
            "ada-token",
            "/tools/orders_get",
            r#"{"order_id": "one"}"#,
            422,
            "invalid_arguments",
        ),
        (
            "ada-token",
            "/tools/orders_get",
            "{not json",
            422,
            "invalid_arguments",
        ),
        // a record the caller may not see, or that does not exist
        (
            "ada-token",
            "/tools/orders_get",
            r#"{"order_id": 999}"#,
            404,
            "not_found",
        ),
        // a failed guard: order 4 is cancelled already
        (
            "ada-token",
            "/tools/orders_cancel",
            r#"{"order": 4}"#,
            412,
            "not_cancelled",
        ),
        // a call that needs its user's confirmation first: order 2 passes the guards
        (
            "ada-token",
            "/tools/orders_cancel",
            r#"{"order": 2}"#,
            428,
            "input_required",
        ),
        // a declared error the spec answers otherwise (`tool: { http: { status: … } }`)
        (
            "ada-token",
            "/tools/orders_place",
            r#"{"lines": [{"sku": "NO-SUCH-SKU", "quantity": 1}]}"#,
            422,
            "unknown_sku",
        ),
        // unknown, and out of the caller's scopes: alike
        (
            "ada-token",
            "/tools/no_such_tool",
            "{}",
            404,
            "unknown_tool",
        ),
        (
            "grace-token",
            "/tools/orders_place",
            "{}",
            404,
            "unknown_tool",
        ),
        // not on the http adapter at all
        (
            "ada-token",
            "/tools/orders_refund",
            "{}",
            404,
            "unknown_tool",
        ),
    ];
    for (token, path, body, expected, code) in cases {
        let (status, answer, _) = api.post(Some(token), path, body).await;
        assert_eq!(
            (status, &answer["error"]),
            (expected, &json!(code)),
            "{path} {body}: {answer}"
        );
        assert!(answer["message"].is_string(), "{answer}");
    }
}

#[tokio::test]
async fn requests_without_a_valid_token_are_401_and_bodies_are_bounded() {
    let api = Api::start().await;
    let (status, body, headers) = api
        .post(None, "/tools/orders_get", r#"{"order_id": 1}"#)
        .await;
    assert_eq!((status, &body["error"]), (401, &json!("unauthorized")));
    assert_eq!(headers["www-authenticate"], "Bearer");
    let (status, ..) = api
        .post(Some("forged"), "/tools/orders_get", r#"{"order_id": 1}"#)
        .await;
    assert_eq!(status, 401);
    let huge = format!(r#"{{"order_id": 1, "pad": "{}"}}"#, "x".repeat(100 * 1024));
    let (status, body, _) = api
        .post(Some("ada-token"), "/tools/orders_get", &huge)
        .await;
    assert_eq!((status, &body["error"]), (413, &json!("too_large")));
}

#[tokio::test]
async fn explain_and_the_listing_follow_the_caller() {
    let api = Api::start().await;
    let (status, body, _) = api
        .post(
            Some("ada-token"),
            "/tools/orders_cancel/explain",
            r#"{"order": 4}"#,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["callable"], false);
    assert_eq!(body["guards"][0]["passed"], false);
    assert_eq!(body["lock"]["key"], json!({"order": 4}));
    let names = |body: &Value| -> Vec<String> {
        body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let (_, ada, _) = api.get("ada-token", "/tools").await;
    let (_, grace, _) = api.get("grace-token", "/tools").await;
    assert!(names(&ada).contains(&"orders_place".to_owned()), "{ada}");
    assert!(
        !names(&grace).contains(&"orders_place".to_owned()),
        "{grace}"
    );
    assert!(
        !names(&ada).contains(&"orders_refund".to_owned()),
        "not an http member"
    );
}

#[tokio::test]
async fn served_alone_the_api_checks_host_and_origin_only_when_given_a_policy() {
    let ada = "Authorization: Bearer ada-token";
    // Without a policy (the default), the router checks neither header.
    let open = Api::start().await;
    let answer = raw_http::send(
        open.address(),
        "GET",
        "/tools",
        &["Host: evil.example", ada],
        "",
    )
    .await;
    assert_eq!(answer.status, 200, "{answer:#?}");

    let api = Api::start_with(|api| api.host_policy(HostPolicy::loopback())).await;
    let address = api.address();
    let loopback = format!("Host: {address}");
    for (method, path, body) in [
        ("GET", "/tools", ""),
        ("POST", "/tools/orders_get", r#"{"order_id": 1}"#),
        ("GET", "/openapi.json", ""),
        ("GET", "/no/such/path", ""),
    ] {
        let foreign =
            raw_http::send(address, method, path, &["Host: evil.example", ada], body).await;
        foreign.assert_failure(403, "host_not_allowed");
        let page = raw_http::send(
            address,
            method,
            path,
            &[&loopback, "Origin: https://evil.example", ada],
            body,
        )
        .await;
        page.assert_failure(403, "origin_not_allowed");
        let nameless = raw_http::send(address, method, path, &[ada], body).await;
        nameless.assert_failure(400, "invalid_host");
        let served = raw_http::send(address, method, path, &[&loopback, ada], body).await;
        assert!(
            !matches!(served.status, 400 | 403),
            "{method} {path}: {served:#?}"
        );
    }
}

#[tokio::test]
async fn every_failure_of_every_route_has_the_error_shape() {
    let api = Api::start().await;
    let address = api.address();
    let host = format!("Host: {address}");
    let ada = "Authorization: Bearer ada-token";
    // Paths nothing is routed to, a trailing slash included.
    for (method, path) in [
        ("POST", "/tools/orders_get/"),
        ("GET", "/tools/"),
        ("GET", "/no/such/path"),
        ("POST", "/tools/orders_get/explain/"),
        ("GET", "/"),
    ] {
        let answer = raw_http::send(address, method, path, &[&host, ada], "").await;
        let message = answer.assert_failure(404, "unknown_path");
        assert!(message.contains(path), "{method} {path}: {message}");
    }
    let slash = raw_http::send(address, "GET", "/tools/", &[&host, ada], "").await;
    assert!(
        slash.json()["message"]
            .as_str()
            .unwrap()
            .contains("`/tools`"),
        "{slash:#?}"
    );
    // Methods a route does not take: 405 with `Allow`.
    for (method, path, allow) in [
        ("PUT", "/tools", "GET,HEAD"),
        ("DELETE", "/tools", "GET,HEAD"),
        ("GET", "/tools/orders_get/explain", "POST"),
        ("POST", "/openapi.json", "GET,HEAD"),
    ] {
        let answer = raw_http::send(address, method, path, &[&host, ada], "").await;
        let message = answer.assert_failure(405, "method_not_allowed");
        assert!(
            message.contains(method) && message.contains(path),
            "{message}"
        );
        let allowed: Vec<String> = answer
            .header("allow")
            .unwrap_or_default()
            .split(',')
            .map(|m| m.trim().to_owned())
            .collect();
        assert_eq!(allowed.join(","), allow, "{method} {path}: {answer:#?}");
    }
    // A tool's own 405 keeps its words.
    let answer = raw_http::send(address, "PUT", "/tools/orders_place", &[&host, ada], "").await;
    answer.assert_failure(405, "method_not_allowed");
    assert_eq!(answer.header("allow"), Some("POST"));
}

#[tokio::test]
async fn ambiguous_credentials_are_refused_400_whichever_comes_first() {
    let api = Api::start().await;
    let address = api.address();
    let host = format!("Host: {address}");
    let (ada, grace) = (
        "Authorization: Bearer ada-token",
        "Authorization: Bearer grace-token",
    );
    let path = "/tools/orders_get";
    let body = r#"{"order_id": 1}"#;
    for headers in [
        vec![host.as_str(), ada, grace],
        vec![host.as_str(), grace, ada],
        vec![host.as_str(), ada, ada],
        vec![host.as_str(), ada, "Authorization: Bearer not-a-token"],
        vec![
            host.as_str(),
            "Authorization: Bearer ada-token, Bearer grace-token",
        ],
        vec![host.as_str(), "Authorization: Bearer ada-token,grace-token"],
    ] {
        let answer = raw_http::send(address, "POST", path, &headers, body).await;
        let message = answer.assert_failure(400, "invalid_request");
        assert!(message.contains("Authorization"), "{headers:?}: {message}");
        let challenge = answer.header("www-authenticate").unwrap_or_default();
        assert!(
            challenge.starts_with("Bearer error=\"invalid_request\", error_description=\""),
            "{headers:?}: {challenge}"
        );
        for method in ["GET", "POST"] {
            let other = raw_http::send(address, method, "/tools", &headers, "").await;
            assert_eq!(
                other.status,
                if method == "GET" { 400 } else { 405 },
                "{other:#?}"
            );
        }
    }
    let twice = raw_http::send(address, "POST", path, &[&host, ada, grace], body).await;
    assert!(
        twice
            .assert_failure(400, "invalid_request")
            .contains("2 `Authorization` headers")
    );
    // One header, one token: served.
    let one = raw_http::send(address, "POST", path, &[&host, ada], body).await;
    assert_eq!(one.status, 200, "{one:#?}");
}

impl Api {
    /// `method path` as `token` with one more `header`: the status, the JSON answer, headers.
    async fn send(
        &self,
        method: reqwest::Method,
        token: &str,
        path: &str,
        header: Option<(&str, &str)>,
        body: &str,
    ) -> (u16, Value, reqwest::header::HeaderMap) {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.base))
            .header("authorization", format!("Bearer {token}"))
            .body(body.to_owned());
        if let Some((name, value)) = header {
            request = request.header(name, value);
        }
        answer(request.send().await.unwrap()).await
    }

    /// Polls the task at `location` until it ends: its last answer.
    async fn until_ended(&self, token: &str, location: &str) -> Value {
        let give_up = std::time::Instant::now() + std::time::Duration::from_secs(30);
        loop {
            let (status, task, _) = self.get(token, location).await;
            assert_eq!(status, 200, "{task}");
            if task["status"] != "working" {
                return task;
            }
            assert!(std::time::Instant::now() < give_up, "never ended: {task}");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }
}

#[tokio::test]
async fn a_call_preferring_respond_async_is_a_task_read_and_cancelled_at_its_location() {
    let api = Api::start().await;
    let body = r#"{"status":"delivered"}"#;
    let (status, direct, _) = api
        .post(Some("ada-token"), "/tools/orders_export", body)
        .await;
    assert_eq!(status, 200, "{direct}");

    let prefer = Some(("prefer", "respond-async, wait=0"));
    let post = reqwest::Method::POST;
    let (status, task, headers) = api
        .send(
            post.clone(),
            "ada-token",
            "/tools/orders_export",
            prefer,
            body,
        )
        .await;
    assert_eq!(status, 202, "{task}");
    assert_eq!(task["status"], "working");
    assert_eq!(task["tool"], "orders_export");
    let id = task["task_id"].as_str().expect("an id").to_owned();
    let location = headers["location"].to_str().unwrap().to_owned();
    assert_eq!(location, format!("/tasks/{id}"));
    assert_eq!(headers["preference-applied"], "respond-async");

    let ended = api.until_ended("ada-token", &location).await;
    assert_eq!(ended["status"], "completed", "{ended}");
    assert_eq!(ended["result"], direct, "the result a direct call answers");
    assert!(ended.get("poll_interval_ms").is_none(), "{ended}");

    // Another caller's task is unknown to it, exactly as one that never existed.
    let (theirs, theirs_body, _) = api.get("grace-token", &location).await;
    let unknown = "/tasks/0123456789abcdef0123456789abcdef";
    let (nobodys, nobodys_body, _) = api.get("grace-token", unknown).await;
    assert_eq!(
        (theirs, &theirs_body),
        (404, &nobodys_body),
        "{theirs_body}"
    );
    assert_eq!(nobodys, 404);
    assert_eq!(theirs_body["error"], "unknown_task");
    let delete = reqwest::Method::DELETE;
    let (theirs, _, _) = api
        .send(delete.clone(), "grace-token", &location, None, "")
        .await;
    assert_eq!(theirs, 404);
    let (status, malformed, _) = api.get("ada-token", "/tasks/not-a-task").await;
    assert_eq!(
        (status, malformed["error"].as_str()),
        (400, Some("invalid_task_id"))
    );

    // A slow export, cancelled: the answer is the cancelled task; cancelling again changes
    // nothing.
    let slow = r#"{"pace_ms":1000}"#;
    let (status, task, headers) = api
        .send(post, "ada-token", "/tools/orders_export", prefer, slow)
        .await;
    assert_eq!(status, 202, "{task}");
    let location = headers["location"].to_str().unwrap().to_owned();
    let (status, listed, _) = api.get("ada-token", "/tasks").await;
    assert_eq!(status, 200);
    let listed: Vec<&Value> = listed["tasks"].as_array().unwrap().iter().collect();
    assert_eq!(listed.len(), 1, "only the unfinished one: {listed:?}");
    assert_eq!(listed[0]["task_id"], task["task_id"]);
    let (status, cancelled, _) = api
        .send(delete.clone(), "ada-token", &location, None, "")
        .await;
    assert_eq!(
        (status, cancelled["status"].as_str()),
        (200, Some("cancelled"))
    );
    let (status, again, _) = api.send(delete, "ada-token", &location, None, "").await;
    assert_eq!((status, again["status"].as_str()), (200, Some("cancelled")));
    let (_, listed, _) = api.get("ada-token", "/tasks").await;
    assert_eq!(listed["tasks"], json!([]));

    // Without the preference, the same tool answers inline.
    let (status, inline, _) = api
        .post(Some("ada-token"), "/tools/orders_export", body)
        .await;
    assert_eq!((status, &inline), (200, &direct));
}

#[tokio::test]
async fn a_caller_over_a_tools_rate_limit_is_429_with_retry_after_and_others_are_not() {
    // `orders_report` allows bursts of 5 per caller, then 6 a minute.
    let api = Api::start().await;
    for _ in 0..5 {
        let (status, task, _) = api
            .post(Some("ada-token"), "/tools/orders_report", "{}")
            .await;
        assert_eq!(status, 202, "{task}");
    }
    let (status, refused, headers) = api
        .post(Some("ada-token"), "/tools/orders_report", "{}")
        .await;
    assert_eq!(status, 429, "{refused}");
    assert_eq!(refused["error"], "rate_limited", "{refused}");
    let retry: u64 = headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!(
        (1..=10).contains(&retry),
        "a call refills every 10 s: {retry}"
    );
    assert_eq!(refused["details"]["retry_after"], retry);
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("nothing was done"),
        "{refused}"
    );
    // Explaining runs the guards: it spends the same budget.
    let (status, _, _) = api
        .post(Some("ada-token"), "/tools/orders_report/explain", "{}")
        .await;
    assert_eq!(status, 429);
    // Another caller has a budget of its own.
    let (status, task, _) = api
        .post(Some("grace-token"), "/tools/orders_report", "{}")
        .await;
    assert_eq!(status, 202, "{task}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_from_one_token_is_held_to_its_budget_while_another_is_served() {
    // The default budget (`orders_get` declares none): 100 calls per 10 s, bursts of 50.
    let api = Arc::new(Api::start().await);
    let flood_for = std::time::Duration::from_secs(10);
    let started = std::time::Instant::now();
    let flooders = (0..8).map(|_| {
        let api = Arc::clone(&api);
        tokio::spawn(async move {
            let (mut admitted, mut refused) = (0u32, 0u32);
            while started.elapsed() < flood_for {
                let body = r#"{"order_id": 1}"#;
                match api
                    .post(Some("ada-token"), "/tools/orders_get", body)
                    .await
                    .0
                {
                    200 => admitted += 1,
                    429 => refused += 1,
                    other => panic!("the flood got {other}"),
                }
            }
            (admitted, refused)
        })
    });
    let flooders: Vec<_> = flooders.collect();
    // Meanwhile another caller calls at a model's pace, and is never refused.
    let mut latencies = Vec::new();
    while started.elapsed() < flood_for {
        let sent = std::time::Instant::now();
        let (status, order, _) = api
            .post(
                Some("grace-token"),
                "/tools/orders_get",
                r#"{"order_id": 5}"#,
            )
            .await;
        latencies.push(sent.elapsed());
        assert_eq!(status, 200, "{order}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let (mut admitted, mut refused) = (0, 0);
    for flooder in flooders {
        let (a, r) = flooder.await.unwrap();
        admitted += a;
        refused += r;
    }
    // A burst of 50, then one call every 100 ms: about 150 in 10 s, however hard it pushes.
    assert!((100..=152).contains(&admitted), "admitted {admitted}");
    assert!(
        refused > admitted,
        "the flood was refused far more than served: {refused}"
    );
    latencies.sort();
    let p99 = latencies[latencies.len() * 99 / 100 - 1];
    let p50 = latencies[latencies.len() / 2];
    eprintln!(
        "flood: {admitted} admitted, {refused} refused; the other caller: {} calls, p50 {p50:?}, p99 {p99:?}",
        latencies.len()
    );
}

/// The order `id` as `ada` sees it.
async fn order_status(api: &Api, id: u64) -> Value {
    let body = json!({ "order_id": id }).to_string();
    let (_, order, _) = api
        .post(Some("ada-token"), "/tools/orders_get", &body)
        .await;
    order["order"]["status"].clone()
}

/// `POST /tools/orders_cancel/continue` as `token`: the call of order `order` with `state` and
/// `responses`.
async fn continue_cancel(
    api: &Api,
    token: &str,
    order: u64,
    state: &str,
    responses: Value,
) -> (u16, Value) {
    let body =
        json!({ "arguments": { "order": order }, "request_state": state, "responses": responses });
    let (status, answer, _) = api
        .post(
            Some(token),
            "/tools/orders_cancel/continue",
            &body.to_string(),
        )
        .await;
    (status, answer)
}

#[tokio::test]
async fn a_destructive_call_is_asked_then_confirmed_once_and_never_run_on_a_refused_state() {
    let api = Api::start().await;
    let ask = || api.post(Some("ada-token"), "/tools/orders_cancel", r#"{"order": 1}"#);
    // Asked once the order is loaded and the guards pass: 428, the question and the state.
    let (status, asked, _) = ask().await;
    assert_eq!(
        (status, &asked["error"]),
        (428, &json!("input_required")),
        "{asked}"
    );
    let confirm = &asked["details"]["requests"]["confirm"];
    assert_eq!(
        confirm["message"],
        "Cancel order 1 (now pending)? A cancelled order cannot be reopened."
    );
    assert_eq!(
        confirm["schema"],
        json!({ "type": "object", "properties": {} })
    );
    let state = asked["details"]["request_state"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(state.starts_with("v1.test."), "{state}");
    assert_eq!(order_status(&api, 1).await, "pending");
    let yes = json!({ "confirm": { "action": "accept" } });

    // Refused states run nothing (and leave the state unspent): altered, another caller's,
    // for other arguments.
    let middle = state.len() - 20;
    let changed = if &state[middle..=middle] == "A" {
        "B"
    } else {
        "A"
    };
    let altered = format!("{}{changed}{}", &state[..middle], &state[middle + 1..]);
    let refusals = [
        ("ada-token", 1, altered.as_str(), "was altered"),
        ("bob-token", 1, state.as_str(), "another caller"),
        (
            "ada-token",
            3,
            state.as_str(),
            "not those the request state was issued for",
        ),
    ];
    for (token, order, sealed, why) in refusals {
        let (status, refused) = continue_cancel(&api, token, order, sealed, yes.clone()).await;
        assert_eq!(status, 400, "{refused}");
        assert_eq!(refused["error"], "invalid_request_state");
        let message = refused["message"].as_str().unwrap();
        assert!(message.contains(why), "{message}");
    }
    assert_eq!(order_status(&api, 1).await, "pending");
    assert_eq!(order_status(&api, 3).await, "delivered");

    // Declined: nothing is done; the state is spent.
    let no = json!({ "confirm": { "action": "decline" } });
    let (status, declined) = continue_cancel(&api, "ada-token", 1, &state, no).await;
    assert_eq!(
        (status, &declined["error"]),
        (409, &json!("declined")),
        "{declined}"
    );
    assert_eq!(
        declined["message"],
        "Could not cancel the order: The user did not confirm the call: nothing was done."
    );
    assert_eq!(order_status(&api, 1).await, "pending");
    let (status, replayed) = continue_cancel(&api, "ada-token", 1, &state, yes.clone()).await;
    assert_eq!(
        (status, &replayed["error"]),
        (400, &json!("invalid_request_state"))
    );
    assert!(
        replayed["message"]
            .as_str()
            .unwrap()
            .contains("used already")
    );

    // Confirmed: it runs, once; its state cannot run it again.
    let (_, asked, _) = ask().await;
    let state = asked["details"]["request_state"]
        .as_str()
        .unwrap()
        .to_owned();
    let (status, cancelled) = continue_cancel(&api, "ada-token", 1, &state, yes.clone()).await;
    assert_eq!(status, 200, "{cancelled}");
    assert_eq!(cancelled["order"]["status"], "cancelled");
    let (status, again) = continue_cancel(&api, "ada-token", 1, &state, yes.clone()).await;
    assert_eq!(
        (status, &again["error"]),
        (400, &json!("invalid_request_state"))
    );
    // A confirmation never counts without the state of the round that asked it.
    let body = json!({ "arguments": { "order": 5 }, "responses": yes });
    let (status, unsealed, _) = api
        .post(
            Some("bob-token"),
            "/tools/orders_cancel/continue",
            &body.to_string(),
        )
        .await;
    assert_eq!(
        (status, &unsealed["error"]),
        (428, &json!("input_required")),
        "{unsealed}"
    );
}

#[tokio::test]
async fn an_expired_request_state_is_refused_410_and_nothing_runs() {
    let api = Api::start().await;
    // A state of these keys, issued to `ada` for this very call, twenty minutes ago: it opened
    // for fifteen.
    let now = chrono::Utc::now().timestamp_millis();
    let arguments = json!({ "order": 1, "reason": "customer_request" });
    let data = json!({ "asked": ["confirm"] });
    let ttl = std::time::Duration::from_secs(15 * 60);
    let issued = RequestState::new(
        "ada",
        "orders_cancel",
        &arguments,
        now - 20 * 60_000,
        ttl,
        data,
    );
    let state = state_keys().seal(&issued);
    let yes = json!({ "confirm": { "action": "accept" } });
    let (status, expired) = continue_cancel(&api, "ada-token", 1, &state, yes).await;
    assert_eq!(
        (status, &expired["error"]),
        (410, &json!("request_state_expired")),
        "{expired}"
    );
    assert_eq!(order_status(&api, 1).await, "pending");
}

#[tokio::test]
async fn an_answer_is_bounded_like_an_argument_and_its_record_keeps_what_was_asked() {
    let api = Api::start().await;
    let ask = || api.post(Some("ada-token"), "/tools/orders_cancel", r#"{"order": 1}"#);
    let state = |asked: &Value| {
        asked["details"]["request_state"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    // A confirmation's answer holding content is refused, and nothing runs.
    let (_, asked, _) = ask().await;
    let stuffed =
        json!({ "confirm": { "action": "accept", "content": { "x": "y".repeat(40_000) } } });
    let (status, refused) = continue_cancel(&api, "ada-token", 1, &state(&asked), stuffed).await;
    assert_eq!(
        (status, &refused["error"]),
        (422, &json!("invalid_arguments")),
        "{refused}"
    );
    assert_eq!(order_status(&api, 1).await, "pending");
    // Responses to requests nobody asked are ignored, and not recorded.
    let (_, asked, _) = ask().await;
    let answers = json!({
        "confirm": { "action": "accept" },
        "junk": { "action": "accept", "content": { "x": "y".repeat(40_000) } }
    });
    let (status, cancelled) = continue_cancel(&api, "ada-token", 1, &state(&asked), answers).await;
    assert_eq!(status, 200, "{cancelled}");
    // The records are written after the answers (the tool's audit is `async`).
    let records = records_at_least(&api, "orders_cancel", "ok", 1).await;
    let kept: Vec<&Value> = records.iter().filter_map(|r| r.answers.as_ref()).collect();
    let confirmed = json!({ "confirm": { "action": "accept", "content": {} } });
    assert_eq!(kept, [&confirmed]);
    let refused = records_at_least(&api, "orders_cancel", "invalid_arguments", 1).await;
    assert_eq!(
        refused[0].answers,
        Some(confirmed),
        "the record of the refused answer keeps none of its content"
    );
}

#[tokio::test]
async fn a_continuation_of_a_tool_that_asks_nothing_is_refused_and_nothing_runs() {
    let api = Api::start().await;
    let orders = || async {
        let (_, body, _) = api.get("ada-token", "/tools/orders_search").await;
        body["total"].clone()
    };
    let before = orders().await;
    // A genuine state, of another tool's round trip.
    let (_, asked, _) = api
        .post(Some("ada-token"), "/tools/orders_cancel", r#"{"order": 1}"#)
        .await;
    let cancel_state = asked["details"]["request_state"].as_str().unwrap();
    let lines = json!([{ "sku": "MUG-001", "quantity": 1 }]);
    let yes = json!({ "confirm": { "action": "accept" } });
    let bodies = [
        json!({ "arguments": { "lines": lines }, "request_state": "garbage" }),
        json!({ "arguments": { "lines": lines }, "request_state": cancel_state, "responses": yes }),
        json!({ "arguments": { "lines": lines }, "responses": yes }),
    ];
    for body in bodies {
        let (status, refused, _) = api
            .post(
                Some("ada-token"),
                "/tools/orders_place/continue",
                &body.to_string(),
            )
            .await;
        assert_eq!(
            (status, &refused["error"]),
            (400, &json!("invalid_request_state")),
            "{body}: {refused}"
        );
        assert_eq!(
            refused["message"],
            "`orders_place` asks its user nothing, so no request state of it opens; nothing \
             was done: call the tool again."
        );
    }
    assert_eq!(orders().await, before, "no order was placed");
    // The call itself places one.
    let body = json!({ "lines": lines }).to_string();
    let (status, placed, _) = api
        .post(Some("ada-token"), "/tools/orders_place", &body)
        .await;
    assert_eq!(status, 200, "{placed}");
    assert_ne!(orders().await, before);
}

#[tokio::test]
async fn a_continuation_body_is_checked_like_any_request() {
    let api = Api::start().await;
    let cases = [
        (r#"[]"#, "The body must be a JSON object, not a list."),
        (
            r#"{"request_state": 1}"#,
            "`request_state` must be a string.",
        ),
        (r#"{"arguments": 1}"#, "`arguments` must be an object."),
        (
            r#"{"extra": 1}"#,
            "Unknown key `extra`: a continuation has `arguments`, `request_state` and `responses`.",
        ),
        (
            r#"{"request_state": "x", "responses": {"confirm": {"action": "maybe"}}}"#,
            "`responses`: response `confirm`: unknown `action` `maybe`: expected `accept`, `decline` or `cancel`.",
        ),
    ];
    for (body, message) in cases {
        let (status, refused, _) = api
            .post(Some("ada-token"), "/tools/orders_cancel/continue", body)
            .await;
        assert_eq!(
            (status, &refused["message"]),
            (422, &json!(message)),
            "{body}"
        );
    }
    let (status, malformed, _) = api
        .post(
            Some("ada-token"),
            "/tools/orders_cancel/continue",
            r#"{"arguments": {"order": 1}, "request_state": "v1.nope"}"#,
        )
        .await;
    assert_eq!(
        (status, &malformed["error"]),
        (400, &json!("invalid_request_state"))
    );
}

#[tokio::test]
async fn a_selection_serves_the_tools_of_a_module_with_a_tag_and_documents_only_them() {
    let selection = toolspec::Selection::all()
        .in_module("orders")
        .tagged("read");
    let api = Api::start_with(|api| api.select(&selection)).await;
    let (_, listed, _) = api.get("ada-token", "/tools").await;
    let mut names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "explain",
            "orders_export",
            "orders_get",
            "orders_report",
            "orders_search"
        ],
        "the orders tools tagged read, and the built-in explain"
    );
    // Left out: as unknown as a tool that is not there, whatever the caller's scopes.
    let (status, body, _) = api
        .post(Some("ada-token"), "/tools/orders_cancel", r#"{"order": 1}"#)
        .await;
    assert_eq!(
        (status, &body["error"]),
        (404, &json!("unknown_tool")),
        "{body}"
    );
    let (status, _, _) = api
        .post(Some("ada-token"), "/tools/customers_me", "{}")
        .await;
    assert_eq!(status, 404, "another module");
    let (status, body, _) = api
        .post(Some("ada-token"), "/tools/orders_get", r#"{"order_id": 1}"#)
        .await;
    assert_eq!(status, 200, "{body}");
    let (_, document, _) = api.get("ada-token", "/openapi.json").await;
    let paths: Vec<&String> = document["paths"].as_object().unwrap().keys().collect();
    assert!(paths.iter().any(|p| *p == "/tools/orders_get"), "{paths:?}");
    assert!(
        !paths
            .iter()
            .any(|p| p.starts_with("/tools/orders_cancel") || p.starts_with("/tools/customers_me")),
        "{paths:?}"
    );
    assert!(
        paths.iter().any(|p| *p == "/tasks/{id}"),
        "other routes stay"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_past_its_result_cap_is_cut_with_the_notice_in_a_header_and_a_task() {
    let api = Api::start().await;
    orders::add_orders(&api._dir.path().join("store.db"), 1, 150).await;
    let (status, export, headers) = api
        .post(Some("ada-token"), "/tools/orders_export", "{}")
        .await;
    assert_eq!(status, 200, "{export}");
    assert_eq!(export["orders"].as_array().unwrap().len(), 100);
    assert_eq!(export["count"], 154);
    assert!(
        export.get("_truncated").is_none(),
        "the body is the exposed values"
    );
    let header = headers["toolspec-truncated"].to_str().unwrap();
    let notice: Value = serde_json::from_str(header).unwrap();
    let cut = json!([{"at": "/orders", "kept": 100, "total": 154, "by": "items"}]);
    assert_eq!(notice["cut"], cut);
    assert_eq!(notice["limit"], json!({"items": 100, "bytes": 262144}));

    // Run as a task, the result keeps its notice.
    let prefer = Some(("prefer", "respond-async, wait=0"));
    let post = reqwest::Method::POST;
    let path = "/tools/orders_export";
    let (status, task, headers) = api.send(post, "ada-token", path, prefer, "{}").await;
    assert_eq!(status, 202, "{task}");
    let location = headers["location"].to_str().unwrap().to_owned();
    let ended = api.until_ended("ada-token", &location).await;
    assert_eq!(ended["result"], export, "{ended}");
    assert_eq!(ended["truncated"], notice, "{ended}");

    // The document says it.
    let (_, document, _) = api.get("ada-token", "/openapi.json").await;
    let ok = &document["paths"]["/tools/orders_export"]["post"]["responses"]["200"];
    let said = ok["headers"]["Toolspec-Truncated"]["description"]
        .as_str()
        .unwrap();
    assert!(
        said.contains("256 KiB of JSON, 100 items per list"),
        "{said}"
    );
    assert!(document["components"]["schemas"]["Truncation"].is_object());
}

/// The records of `tool` ending with `outcome` in the store's database under `api`.
async fn records_of(api: &Api, tool: &str, outcome: &str) -> Vec<toolspec::audit::AuditRecord> {
    let location = toolspec_store::Location::File(api._dir.path().join("store.db"));
    let store = toolspec_store::Store::open(&location).await.unwrap();
    let query = toolspec::audit::AuditQuery {
        tool: Some(tool.to_owned()),
        outcome: Some(outcome.parse().unwrap()),
        limit: toolspec::audit::AuditQuery::MAX_LIMIT,
        ..toolspec::audit::AuditQuery::default()
    };
    let page = query.read(&store.database()).await.unwrap();
    store.close().await;
    page.records
}

/// The records of `tool` with `outcome` once there are at least `count` (or after five
/// seconds, whatever there are).
async fn records_at_least(
    api: &Api,
    tool: &str,
    outcome: &str,
    count: usize,
) -> Vec<toolspec::audit::AuditRecord> {
    let mut records = Vec::new();
    for _ in 0..50 {
        records = records_of(api, tool, outcome).await;
        if records.len() >= count {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    records
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_refusals_is_a_record_or_two_a_second() {
    let api = Arc::new(Api::start().await);
    // Over `orders_report`'s rate limit (Ada and Grace), from eight clients at once for two
    // seconds.
    let floods = [
        ("ada-token", "/tools/orders_report", 429, "rate_limited"),
        ("grace-token", "/tools/orders_report", 429, "rate_limited"),
    ];
    let started = chrono::Utc::now();
    let mut clients = tokio::task::JoinSet::new();
    for (token, path, status, _) in floods {
        for _ in 0..4 {
            let api = Arc::clone(&api);
            clients.spawn(async move {
                let mut refused = 0u64;
                let until = std::time::Instant::now() + std::time::Duration::from_secs(2);
                while std::time::Instant::now() < until {
                    let (got, _, _) = api.post(Some(token), path, "{}").await;
                    refused += u64::from(got == status);
                }
                (path, refused)
            });
        }
    }
    let mut refused = 0;
    while let Some(joined) = clients.join_next().await {
        refused += joined.unwrap().1;
    }
    let seconds = (chrono::Utc::now().timestamp() - started.timestamp() + 1) as usize;
    // Every refusal is counted, once its second is over.
    let mut records = Vec::new();
    for _ in 0..100 {
        records = records_of(&api, "orders_report", "rate_limited").await;
        if records.iter().map(|r| r.calls).sum::<u64>() == refused {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let counted: u64 = records.iter().map(|r| r.calls).sum();
    assert_eq!(counted, refused, "{records:#?}");
    println!(
        "{refused} refusals over {seconds} s of the clock: {} records",
        records.len()
    );
    // Two callers, two records at most per caller and second.
    assert!(
        records.len() <= 2 * 2 * seconds,
        "{} records for {refused} refusals over {seconds} s",
        records.len()
    );
    assert!(refused > 10 * records.len() as u64, "a flood: {refused}");
    for caller in ["ada", "grace"] {
        let theirs = records
            .iter()
            .filter(|r| r.caller.as_deref() == Some(caller));
        assert!(theirs.count() >= 2, "{caller}'s refusals");
    }
}
