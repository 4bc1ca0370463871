//! A tool defined in Rust at run time, added to the store's registry: compiled from a spec
//! value with the store's `toolspec.yaml`, checked like a spec file (the same diagnostics),
//! served through the same pipeline — validation, the ambient context, declared errors, the
//! audit trail — over MCP (a real rmcp client), the HTTP API (real requests) and OpenAI;
//! a name another tool has is refused. A task that ends outside its tool's contract — a result
//! over what tasks keep, a task its workers gave up on, one cancelled before it ran — has its
//! audit outcome.

use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use toolspec::inline::{InlineContext, InlineError, Spec};
use toolspec::openai::{Dispatcher, ToolCall};
use toolspec::testing::Harness;
use toolspec::{AmbientContext, Caller, Descriptor, Registry, RegistryError, SharedDescriptor};

const PROJECT: &str = include_str!("../specs/toolspec.yaml");
const TYPES: &str = include_str!("../specs/types.yaml");

/// `orders_note`: the note on one of the caller's orders, from a map the handler holds.
fn note_spec() -> Spec {
    Spec::json(
        "orders/note.yaml",
        json!({
            "description": "Read the note on one of your orders.",
            "expects": {
                "order_id": { "type": "integer", "minimum": 1 },
                "customer_id": { "on": "ambient_context" }
            },
            "exposes": { "note": { "type": "string" } },
            "errors": { "codes": { "no_note": "The order has no note." } },
            "hints": ["read_only"]
        }),
    )
    .shared("toolspec.yaml", PROJECT)
    .shared("types.yaml", TYPES)
}

async fn store_registry(dir: &tempfile::TempDir) -> Registry {
    let location = toolspec_store::Location::File(dir.path().join("store.db"));
    let store = toolspec_store::Store::open(&location).await.unwrap();
    toolspec_store::registry(store)
}

/// The store's registry with `orders_note`.
async fn with_note(dir: &tempfile::TempDir) -> Registry {
    let note = note_spec().describe().expect("the spec compiles");
    store_registry(dir)
        .await
        .with_tool(note, read_note)
        .expect("the tool is added")
}

/// `orders_note`'s handler: the note on order 1, the caller's.
async fn read_note(
    input: serde_json::Map<String, Value>,
    cx: InlineContext,
) -> Result<Value, toolspec::Failure<InlineError>> {
    let mine = cx.ambient()["customer_id"] == 1;
    match (mine, input["order_id"].as_i64()) {
        (true, Some(1)) => Ok(json!({ "note": "Leave it at the door." })),
        _ => Err(cx.fail("no_note")),
    }
}

fn ada() -> Caller {
    Caller::new("ada").with_ambient(AmbientContext::from([("customer_id", 1)]))
}

#[tokio::test]
async fn an_inline_tool_runs_through_the_pipeline_with_its_checks() {
    let dir = tempfile::tempdir().unwrap();
    let harness = Harness::new(with_note(&dir).await).with_caller(ada());
    let note = harness
        .call("orders_note", json!({"order_id": 1}))
        .await
        .ok();
    assert_eq!(note, json!({"note": "Leave it at the door."}));
    let refused = harness
        .call("orders_note", json!({"order_id": 0}))
        .await
        .error("invalid_arguments");
    assert!(refused.message.contains("/order_id"), "{}", refused.message);
    let none = harness
        .call("orders_note", json!({"order_id": 2}))
        .await
        .error("no_note");
    assert_eq!(none.message, "The order has no note.");
    // The ambient field is no argument: a model cannot send it.
    harness
        .call("orders_note", json!({"order_id": 1, "customer_id": 2}))
        .await
        .error("invalid_arguments");
    // The store's project audits every call: the inline tool's too.
    let recorded: Vec<String> = harness
        .audit()
        .await
        .iter()
        .map(|r| r.tool.clone())
        .collect();
    assert_eq!(recorded.iter().filter(|t| *t == "orders_note").count(), 4);
    let descriptor = harness.registry().get("orders_note").unwrap().descriptor();
    assert_eq!(
        descriptor.description,
        "Read the note on one of your orders.\nErrors: no_note."
    );
}

/// Describing and adding inline tools over and over leaks nothing: `describe` keeps no copy,
/// the registry holds the descriptor while it serves the tool (a call's context and listings
/// share it), and the last registry holding it frees it when dropped.
#[tokio::test]
async fn an_inline_tool_s_descriptor_is_freed_with_the_last_registry_holding_it() {
    let dir = tempfile::tempdir().unwrap();
    for _ in 0..10 {
        let described: Arc<Descriptor> = note_spec().describe().expect("compiles").into();
        assert_eq!(Arc::strong_count(&described), 1, "describing keeps no copy");
        let freed = Arc::downgrade(&described);
        // Added to two registries: each holds it.
        let handle = SharedDescriptor::from(described);
        let (first, second) = (
            store_registry(&dir)
                .await
                .with_tool(handle.clone(), read_note),
            store_registry(&dir).await.with_tool(handle, read_note),
        );
        let harness = Harness::new(first.expect("added")).with_caller(ada());
        let read = harness.call("orders_note", json!({"order_id": 1})).await;
        assert_eq!(read.ok(), json!({"note": "Leave it at the door."}));
        let listing = toolspec::mcp::Listing::mcp(harness.registry());
        assert!(listing.get("orders_note").is_some());
        harness.audit().await; // what the call queued is written
        drop((harness, listing));
        assert!(
            freed.upgrade().is_some(),
            "the second registry still holds it"
        );
        drop(second);
        assert_eq!(freed.strong_count(), 0, "freed with the last registry");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_inline_tool_is_served_over_mcp_http_and_openai_like_a_generated_one() {
    let dir = tempfile::tempdir().unwrap();
    let registry = Arc::new(with_note(&dir).await);

    // MCP, to a real client over an in-memory pipe.
    let server = toolspec::mcp::McpServer::new(Arc::clone(&registry), ada());
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let running = server.serve(ours).await.expect("the server starts");
        let _ = running.waiting().await;
    });
    let client = ().serve(theirs).await.expect("an MCP session");
    let tools = client.list_tools(None).await.unwrap().tools;
    let listed = tools
        .iter()
        .find(|t| t.name == "orders_note")
        .expect("listed");
    assert_eq!(
        serde_json::to_value(&listed.input_schema).unwrap()["required"],
        json!(["order_id"])
    );
    assert_eq!(
        listed.annotations.as_ref().and_then(|a| a.read_only_hint),
        Some(true)
    );
    let params = CallToolRequestParams::new("orders_note")
        .with_arguments(json!({"order_id": 1}).as_object().unwrap().clone());
    let called = client.call_tool(params).await.unwrap();
    assert_eq!(
        called.structured_content,
        Some(json!({"note": "Leave it at the door."}))
    );
    client.cancel().await.unwrap();

    // The HTTP API, over real requests.
    let api = toolspec::http::HttpApi::new(Arc::clone(&registry), ada()).router();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, api).await });
    let http = reqwest::Client::new();
    let posted = http
        .post(format!("{base}/tools/orders_note"))
        .body(r#"{"order_id": 2}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status().as_u16(), 409);
    let body: Value = posted.json().await.unwrap();
    assert_eq!(body["error"], "no_note");
    let got = http
        .get(format!("{base}/tools/orders_note?order_id=1"))
        .send()
        .await
        .unwrap();
    assert_eq!(got.status().as_u16(), 200, "a read_only tool answers GET");

    // OpenAI function calling, in its dialect.
    let openai = Dispatcher::new(Arc::clone(&registry));
    let declared = serde_json::to_value(openai.tools()).unwrap();
    let note = declared
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "orders_note")
        .expect("declared to OpenAI");
    assert_eq!(
        note["function"]["parameters"]["additionalProperties"],
        false
    );
    let call: ToolCall = serde_json::from_value(json!({
        "id": "call_1", "type": "function",
        "function": {"name": "orders_note", "arguments": "{\"order_id\": 1}"}
    }))
    .unwrap();
    let reply = openai.call(&call, &ada()).await;
    assert_eq!(reply.content, r#"{"note":"Leave it at the door."}"#);
}

#[tokio::test]
async fn a_name_another_tool_has_and_a_wrong_spec_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let handler = |_: serde_json::Map<String, Value>, _: InlineContext| async { Ok(json!({})) };
    let taken = Spec::json("orders/get.yaml", json!({"description": "Another get."}))
        .shared("toolspec.yaml", PROJECT)
        .describe()
        .unwrap();
    let refused = store_registry(&dir).await.with_tool(taken, handler).err();
    assert!(
        matches!(&refused, Some(RegistryError::DuplicateName { adapter, name, .. }) if adapter.is_empty() && name == "orders_get"),
        "{refused:?}"
    );
    // Another canonical name, but OpenAI's name of an existing tool.
    let renamed = Spec::json(
        "weather/now.yaml",
        json!({"description": "The weather.", "tool": {"openai": {"name": "orders_get"}}}),
    )
    .shared("toolspec.yaml", PROJECT)
    .describe()
    .unwrap();
    let refused = store_registry(&dir).await.with_tool(renamed, handler).err();
    assert!(
        matches!(&refused, Some(RegistryError::DuplicateName { adapter, name, .. }) if adapter == "openai" && name == "orders_get"),
        "{refused:?}"
    );
    // A wrong spec: the diagnostics a build would print, pointing into it.
    let wrong = Spec::yaml(
        "weather/now.yaml",
        "description: The weather.\nexpects:\n  city: { type: strng }\n",
    )
    .describe()
    .unwrap_err();
    assert!(
        wrong.rendered().contains("unknown type `strng`")
            && wrong.rendered().contains("inline/weather/now.yaml:3:"),
        "{wrong}"
    );
    // What only generated code serves.
    let guarded = Spec::json(
        "weather/now.yaml",
        json!({"description": "The weather.", "guards": {"open": "The service must be open."}}),
    )
    .describe()
    .unwrap();
    let refused = store_registry(&dir).await.with_tool(guarded, handler).err();
    assert!(
        refused.is_some_and(|e| e.to_string().contains("has no guards")),
        "a guard needs a method"
    );
}

#[tokio::test]
async fn tools_added_one_by_one_are_each_found_by_every_name_they_have() {
    let dir = tempfile::tempdir().unwrap();
    let mut registry = store_registry(&dir).await;
    // Names that fall before, between and after the store's own tools.
    for name in ["zeta/last", "aaa/first", "orders/middle", "misc/other"] {
        let openai = format!("ai_{}", name.replace('/', "_"));
        let spec = Spec::json(
            &format!("{name}.yaml"),
            json!({"description": "A tool.", "tool": {"openai": {"name": openai}}}),
        )
        .shared("toolspec.yaml", PROJECT)
        .describe()
        .unwrap();
        registry = registry
            .with_tool(spec, |_, _| async { Ok(json!({})) })
            .expect("the tool is added");
    }
    let tools: Vec<_> = registry.tools().collect();
    assert!(tools.len() > 4);
    for tool in tools {
        let name = &*tool.descriptor().name;
        let found = registry.get(name).map(|t| &*t.descriptor().name);
        assert_eq!(found, Some(name));
        let on_openai = tool.descriptor().name_for("openai");
        if let Some(on_openai) = on_openai {
            let found = registry
                .find("openai", on_openai)
                .map(|t| &*t.descriptor().name);
            assert_eq!(found, Some(name), "{on_openai} on openai");
        }
    }
    let found = registry
        .find("openai", "ai_aaa_first")
        .map(|t| &*t.descriptor().name);
    assert_eq!(found, Some("aaa_first"));
}

/// `orders_bulky`: a task whose result is more than the store's tasks keep (1 MiB).
fn bulky_spec() -> Spec {
    Spec::json(
        "orders/bulky.yaml",
        json!({
            "description": "Export everything at once.",
            "expects": { "customer_id": { "on": "ambient_context" } },
            "exposes": { "text": { "type": "string" } },
            "hints": ["read_only"],
            "result_cap": "off",
            "task": "required"
        }),
    )
    .shared("toolspec.yaml", PROJECT)
    .shared("types.yaml", TYPES)
}

/// Polls task `id` of `caller` until it ends.
async fn ended(registry: &Registry, id: &str, caller: &Caller) -> toolspec::tasks::Task {
    for _ in 0..300 {
        let task = registry.task(id, caller).await.expect("the task reads");
        if task.status.is_terminal() {
            return task;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("task {id} never ended");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_that_fails_outside_its_contract_has_its_audit_outcome() {
    use toolspec::CallOptions;
    use toolspec::tasks::{Accept, Submitted, TaskStatus};

    let dir = tempfile::tempdir().unwrap();
    let bulky = bulky_spec().describe().expect("the spec compiles");
    let registry = store_registry(&dir)
        .await
        .with_tool(bulky, |_input, _cx: InlineContext| async move {
            Ok(json!({ "text": "x".repeat(1_100_000) }))
        })
        .expect("the tool is added");
    let registry = Arc::new(registry);
    let ada = ada();
    let submit = || async {
        let tool = registry.get("orders_bulky").unwrap();
        let options = CallOptions::for_caller("mcp", &ada);
        match tool
            .submit_with(json!({}), &ada.ambient, options, Accept::Tasks)
            .await
        {
            Submitted::Task(task) => task.id.to_string(),
            other => panic!("not stored as a task: {other:?}"),
        }
    };
    let (too_large, given_up) = (submit().await, submit().await);
    // Cancelled before any worker ran it: its end is recorded too.
    let cancelled = submit().await;
    let task = registry.cancel_task(&cancelled, &ada).await.unwrap();
    assert_eq!(task.status, TaskStatus::Cancelled);
    // The second was started five times already by workers that died.
    let url = format!("sqlite://{}", dir.path().join("store.db").display());
    let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
    sqlx::query("UPDATE toolspec_tasks SET attempts = 5 WHERE id = $1")
        .bind(&given_up)
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
    assert!(registry.start_tasks());

    for (id, exception) in [
        (
            &too_large,
            "over the project's `tasks.max_result_bytes` (1048576)",
        ),
        (&given_up, "started 5 times and never ended"),
    ] {
        let task = ended(&registry, id, &ada).await;
        assert_eq!(task.status, TaskStatus::Failed, "{task:?}");
        let error = task.result.as_ref().and_then(|r| r.error()).unwrap();
        assert_eq!(error.code, "internal_error");
        // Its run's record says how it ended, with the reason for operators.
        let reasons = recorded(&registry, "internal_error").await;
        assert!(reasons.iter().any(|r| r.contains(exception)), "{reasons:?}");
    }
    for _ in 0..100 {
        if !recorded(&registry, "cancelled").await.is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(
        recorded(&registry, "cancelled").await,
        ["cancelled before it ran"]
    );
}

/// The exceptions of the records of `orders_bulky` that ended with `code`.
async fn recorded(registry: &Registry, code: &str) -> Vec<String> {
    let trail = registry.audit().expect("the store audits");
    trail.flush().await;
    let query = toolspec::audit::AuditQuery {
        tool: Some("orders_bulky".into()),
        outcome: Some(toolspec::audit::AuditOutcome::Code(code.into())),
        limit: toolspec::audit::AuditQuery::MAX_LIMIT,
        ..toolspec::audit::AuditQuery::default()
    };
    let page = query.read(trail.database()).await.unwrap();
    page.records
        .iter()
        .filter_map(|r| r.exception.clone())
        .collect()
}
