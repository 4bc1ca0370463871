//! The store's tools as rig `DynamicTool`s, executed by rig over a real SQLite file.

use std::sync::Arc;

use serde_json::json;
use toolspec::rig::rig_core::tool::{DynamicTool, ToolErrorKind};
use toolspec::{AmbientContext, Caller, Registry};
use toolspec_store::{Location, Store, tools};

#[path = "support/orders.rs"]
mod orders;

async fn registry(dir: &tempfile::TempDir) -> Arc<Registry> {
    let store = Store::open(&Location::File(dir.path().join("store.db")))
        .await
        .expect("the store opens");
    Arc::new(toolspec_store::registry(store))
}

/// The store's tools that only read: what a reader of orders, or a read-only deployment, is
/// offered.
const READERS: [&str; 7] = [
    "customers_me",
    "explain",
    "orders_export",
    "orders_get",
    "orders_report",
    "orders_search",
    "task_status",
];

fn ada() -> Arc<Caller> {
    Arc::new(Caller::new("ada").with_ambient(AmbientContext::from([("customer_id", 1)])))
}

fn find<'a>(tools: &'a [DynamicTool], name: &str) -> &'a DynamicTool {
    tools
        .iter()
        .find(|t| t.name().as_str() == name)
        .unwrap_or_else(|| panic!("no rig tool {name}"))
}

#[tokio::test]
async fn every_member_is_a_dynamic_tool_with_its_openai_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir).await;
    let tools = toolspec::rig::tools(&registry, &ada());
    let names: Vec<&str> = tools.iter().map(|t| t.name().as_str()).collect();
    assert_eq!(
        names,
        [
            "customers_me",
            "explain",
            "orders_cancel",
            "orders_export",
            "orders_get",
            "orders_place",
            "orders_refund",
            "orders_report",
            "orders_search",
            "task_status"
        ]
    );
    let get = find(&tools, "orders_get").definition();
    assert_eq!(get.description, tools::orders::get::DESCRIPTOR.description);
    assert_eq!(
        get.parameters,
        tools::orders::get::DESCRIPTOR
            .dialect_json(toolspec::Dialect::OpenAi)
            .unwrap()
    );
    assert_eq!(get.parameters["required"], json!(["order_id"]));
}

#[tokio::test]
async fn a_call_runs_through_the_invoker_with_the_callers_ambient_context() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir).await;
    let tools = toolspec::rig::tools(&registry, &ada());
    let output = find(&tools, "orders_get")
        .execute(json!({ "order_id": 1 }))
        .await
        .expect("success");
    let value = output.as_json().expect("JSON output");
    assert_eq!(value["order"]["id"], 1);
    assert_eq!(value["order"]["status"], "pending");

    // The model cannot choose the customer.
    let me = find(&tools, "customers_me")
        .execute(json!({ "ambient_context": { "customer_id": 2 } }))
        .await
        .expect("success");
    assert_eq!(me.as_json().unwrap()["name"], "Ada Lovelace");
}

#[tokio::test]
async fn failures_are_tool_errors_with_the_shared_model_output() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir).await;
    let tools = toolspec::rig::tools(&registry, &ada());

    let missing = find(&tools, "orders_get")
        .execute(json!({ "order_id": 999 }))
        .await
        .expect_err("a failure");
    assert_eq!(missing.kind(), ToolErrorKind::Other);
    assert_eq!(missing.code(), Some("not_found"));
    assert_eq!(
        missing.model_output().as_json(),
        Some(&json!({ "error": "not_found", "message": "No such order." }))
    );

    let invalid = find(&tools, "orders_get")
        .execute(json!({ "order_id": "first" }))
        .await
        .expect_err("a failure");
    assert_eq!(invalid.kind(), ToolErrorKind::InvalidArgs);
    assert_eq!(
        invalid.model_output().as_json().unwrap()["message"],
        "Invalid arguments: `/order_id`: \"first\" is not of type \"integer\"."
    );
}

#[tokio::test]
async fn a_caller_sees_only_the_tools_its_scopes_allow() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir).await;
    let reader = Arc::new(
        Caller::new("grace")
            .with_ambient(AmbientContext::from([("customer_id", 2)]))
            .with_scopes(["orders:read"]),
    );
    let tools = toolspec::rig::tools(&registry, &reader);
    let names: Vec<&str> = tools.iter().map(|t| t.name().as_str()).collect();
    assert_eq!(names, READERS);
    // A tool wrapped for this caller anyway still refuses, as if it did not exist.
    let cancel = toolspec::rig::wrap(&registry, "orders_cancel", &reader).unwrap();
    let refused = cancel
        .execute(json!({ "order_id": 5 }))
        .await
        .expect_err("refused");
    assert_eq!(refused.kind(), ToolErrorKind::NotFound);
    assert_eq!(
        refused.model_output().as_json().unwrap()["message"],
        "There is no tool named `orders_cancel`."
    );
}

#[tokio::test]
async fn a_rig_call_is_recorded_under_rig() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir).await;
    let tools = toolspec::rig::tools(&registry, &ada());
    find(&tools, "orders_get")
        .execute(json!({ "order_id": 1 }))
        .await
        .expect("success");
    registry.flush_audit().await;
    let trail = registry.audit().expect("the store records calls");
    let page = toolspec::audit::AuditQuery::default()
        .read(trail.database())
        .await
        .expect("the trail reads");
    let record = &page.records[0];
    assert_eq!(
        (
            record.tool.as_str(),
            record.adapter.as_deref(),
            record.caller.as_deref()
        ),
        ("orders_get", Some("rig"), Some("ada"))
    );
    assert_eq!(
        record.result.as_ref().map(|r| &r["order"]["id"]),
        Some(&json!(1))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_required_task_answers_a_ticket_that_task_status_reads() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir).await;
    assert!(registry.start_tasks());
    let tools = toolspec::rig::tools(&registry, &ada());
    let ticket = find(&tools, "orders_report")
        .execute(json!({}))
        .await
        .expect("a ticket");
    let ticket = ticket.as_json().expect("JSON output").clone();
    assert_eq!(ticket["status"], "working", "{ticket}");
    let id = ticket["task_id"].as_str().unwrap();
    assert!(
        ticket["next"].as_str().unwrap().contains("`task_status`"),
        "{ticket}"
    );
    let task = find(&tools, "task_status")
        .execute(json!({ "task_id": id, "wait_seconds": 20 }))
        .await
        .expect("the task");
    let task = task.as_json().unwrap();
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(task["result"]["orders"], 4, "{task}");

    // Another caller's task is no task for it.
    let grace =
        Arc::new(Caller::new("grace").with_ambient(AmbientContext::from([("customer_id", 2)])));
    let theirs = toolspec::rig::tools(&registry, &grace);
    let unknown = find(&theirs, "task_status")
        .execute(json!({ "task_id": id }))
        .await
        .expect_err("unknown");
    assert_eq!(unknown.code(), Some("unknown_task"));
}

#[tokio::test]
async fn a_selection_offers_the_tools_of_a_tag_only() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir).await;
    let payments = toolspec::Selection::all().tagged("payments");
    let tools = toolspec::rig::selected(&registry, &ada(), &payments, None);
    let names: Vec<&str> = tools.iter().map(|t| t.name().as_str()).collect();
    assert_eq!(
        names,
        ["explain", "orders_refund", "task_status"],
        "built-ins stay"
    );
}

#[tokio::test]
async fn a_read_only_registry_offers_and_runs_only_the_tools_that_read() {
    let dir = tempfile::tempdir().unwrap();
    let location = Location::File(dir.path().join("store.db"));
    let store = Store::open(&location).await.unwrap();
    let registry = Arc::new(toolspec_store::registry(store).read_only());
    let tools = toolspec::rig::tools(&registry, &ada());
    let names: Vec<&str> = tools.iter().map(|t| t.name().as_str()).collect();
    assert_eq!(names, READERS);
    assert!(toolspec::rig::wrap(&registry, "orders_cancel", &ada()).is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_export_past_its_result_cap_is_cut_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    orders::add_orders(&dir.path().join("store.db"), 1, 150).await;
    let registry = registry(&dir).await;
    let tools = toolspec::rig::tools(&registry, &ada());
    let output = find(&tools, "orders_export")
        .execute(json!({}))
        .await
        .expect("success");
    let value = output.as_json().expect("JSON output");
    assert_eq!(value["orders"].as_array().unwrap().len(), 100);
    assert_eq!(
        value["_truncated"]["cut"],
        json!([{"at": "/orders", "kept": 100, "total": 154, "by": "items"}])
    );
}
