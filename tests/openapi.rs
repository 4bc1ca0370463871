//! The HTTP API's OpenAPI 3.1 document: the store's and each codegen fixture's is well formed
//! (every reference resolves; `openapi-spec-validator` accepts it), the router serves the one
//! derived at build time, and `schemathesis` finds no request the store answers otherwise than
//! its document says.
//!
//! The Python tools come from the folder `TOOLSPEC_TEST_PYTHON_TOOLS` names (`.ci/run` makes a
//! venv with them); with `CI` set they are required, elsewhere their part is skipped with a
//! note.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use serde_json::Value;
use toolspec::auth::BearerTokens;
use toolspec::http::HttpApi;
use toolspec::{Caller, Registry};

/// The specs folders whose documents are checked: the store's and the codegen fixtures'.
const SPECS: &[&str] = &[
    "specs",
    "codegen/tests/golden/empty/specs",
    "codegen/tests/golden/fields/specs",
    "codegen/tests/golden/membership/specs",
    "codegen/tests/golden/shapes/specs",
];

/// The folder holding `openapi-spec-validator` and `schemathesis`: required when `CI` is set.
fn python_tools() -> Option<PathBuf> {
    match std::env::var_os("TOOLSPEC_TEST_PYTHON_TOOLS") {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ if std::env::var_os("CI").is_some() => {
            panic!("CI is set but TOOLSPEC_TEST_PYTHON_TOOLS is not: the OpenAPI tools must run")
        }
        _ => {
            eprintln!("TOOLSPEC_TEST_PYTHON_TOOLS is not set: skipping the Python tools");
            None
        }
    }
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `$ref` of `value`, as JSON pointers into the document.
fn references<'a>(value: &'a Value, out: &mut Vec<&'a str>) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(reference)) = map.get("$ref") {
                out.push(reference);
            }
            map.values().for_each(|v| references(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| references(v, out)),
        _ => {}
    }
}

#[test]
fn every_document_is_valid_openapi() {
    let tools = python_tools();
    let dir = tempfile::tempdir().unwrap();
    for specs in SPECS {
        let project = toolspec_codegen::load(root().join(specs)).unwrap();
        assert!(
            !project.has_errors(),
            "{specs}: {}",
            project.render_diagnostics()
        );
        let document = project.openapi();
        assert_eq!(document["openapi"], "3.1.0");
        let mut refs = Vec::new();
        references(&document, &mut refs);
        for reference in refs {
            let pointer = reference.strip_prefix('#').unwrap_or(reference);
            assert!(
                document.pointer(pointer).is_some(),
                "{specs}: `{reference}` resolves to nothing"
            );
        }
        let members = project
            .tools()
            .iter()
            .filter(|t| t.bindings().iter().any(|b| b.adapter == "http"))
            .count();
        let operations = document["paths"]
            .as_object()
            .unwrap()
            .keys()
            .filter(|p| {
                p.starts_with("/tools/") && !p.ends_with("/explain") && !p.ends_with("/continue")
            })
            .count();
        assert_eq!(operations, members, "{specs}: one path per http member");
        let Some(tools) = &tools else { continue };
        let file = dir.path().join(format!("{}.json", specs.replace('/', "_")));
        std::fs::write(&file, serde_json::to_string_pretty(&document).unwrap()).unwrap();
        let out = Command::new(tools.join("openapi-spec-validator"))
            .arg(&file)
            .output()
            .expect("openapi-spec-validator runs");
        assert!(
            out.status.success(),
            "{specs}: openapi-spec-validator refused the document:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

const TOKENS: &str = r#"{
  "ada-token": { "id": "ada", "ambient": { "customer_id": 1 },
                 "scopes": ["orders:read", "orders:write", "payments:refund"] }
}"#;

/// The store's API on a fresh SQLite file, on a loopback port: its base URL.
async fn serve(dir: &Path) -> String {
    let location = toolspec_store::Location::File(dir.join("store.db"));
    let store = toolspec_store::Store::open(&location).await.unwrap();
    let registry: Arc<Registry> = Arc::new(toolspec_store::registry(store));
    let tokens: BearerTokens = serde_json::from_str(TOKENS).unwrap();
    let router = HttpApi::new(registry, Caller::new("nobody"))
        .authenticator(tokens)
        .router();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    base
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_router_serves_the_document_derived_at_build_time() {
    let dir = tempfile::tempdir().unwrap();
    let base = serve(dir.path()).await;
    // Public: a client reads it before it has a token.
    let response = reqwest::get(format!("{base}/openapi.json")).await.unwrap();
    assert_eq!(response.status().as_u16(), 200);
    assert_eq!(response.headers()["content-type"], "application/json");
    let served: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    // The build script titled it with the crate's name.
    assert_eq!(served["info"]["title"], "toolspec-store");
    let built = toolspec_codegen::Config::new()
        .name(env!("CARGO_PKG_NAME"))
        .load(root().join("specs"))
        .unwrap()
        .openapi();
    assert_eq!(served, built);
    let place = &served["paths"]["/tools/orders_place"]["post"];
    assert_eq!(place["operationId"], "orders_place");
    assert_eq!(
        place["security"],
        serde_json::json!([{"bearer": ["orders:write"]}])
    );
    let unprocessable = &place["responses"]["422"]["content"]["application/json"]["schema"];
    assert_eq!(
        unprocessable["properties"]["error"]["enum"],
        serde_json::json!(["invalid_arguments", "mixed_currencies", "unknown_sku"])
    );
    assert_eq!(
        place["responses"]["412"]["content"]["application/json"]["schema"]["properties"]["error"]["enum"],
        serde_json::json!(["customer_active"])
    );
    // A read-only tool also answers GET, with its scalar arguments as query parameters.
    let get = &served["paths"]["/tools/orders_get"]["get"];
    assert_eq!(get["parameters"][0]["name"], "order_id");
    assert_eq!(get["parameters"][0]["in"], "query");
    // A text filter of a query tool never holds NUL (the runtime refuses it): said, in the
    // query parameter and in the body alike.
    let search = &served["paths"]["/tools/orders_search"];
    let parameter = search["get"]["parameters"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "note_contains")
        .expect("a note_contains parameter");
    assert_eq!(parameter["schema"]["pattern"], "^[^\\u0000]*$");
    let body = &search["post"]["requestBody"]["content"]["application/json"]["schema"];
    let body = match body.get("$ref").and_then(|r| r.as_str()) {
        Some(reference) => &served["components"]["schemas"][reference.rsplit('/').next().unwrap()],
        None => body,
    };
    assert_eq!(
        body["properties"]["note_contains"]["pattern"],
        "^[^\\u0000]*$"
    );
    // Not a member of the http adapter: not in the document.
    assert!(served["paths"].get("/tools/orders_refund").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schemathesis_finds_nothing_the_document_does_not_say() {
    let Some(tools) = python_tools() else { return };
    let dir = tempfile::tempdir().unwrap();
    let base = serve(dir.path()).await;
    let config = root().join("tests/openapi/schemathesis.toml");
    let run = tokio::task::spawn_blocking(move || {
        Command::new(tools.join("schemathesis"))
            .arg("--no-color")
            .arg("--config-file")
            .arg(config)
            .args(["run", &format!("{base}/openapi.json")])
            .args(["--header", "Authorization: Bearer ada-token"])
            .args(["--max-examples", "25", "--seed", "1"])
            .output()
            .expect("schemathesis runs")
    })
    .await
    .unwrap();
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(run.status.success(), "schemathesis failed:\n{report}");
    let document = toolspec_codegen::load(root().join("specs"))
        .unwrap()
        .openapi();
    let operations: usize = document["paths"]
        .as_object()
        .unwrap()
        .values()
        .map(|item| item.as_object().unwrap().len())
        .sum();
    assert!(
        report.contains(&format!("Tested: {operations}")),
        "all {operations} operations were tested:\n{report}"
    );
}
