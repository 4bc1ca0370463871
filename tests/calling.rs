//! The store's query tool through each function-calling adapter: each declares it with the
//! filters and sorts its spec lets that adapter's model see (OpenAI's narrowed by
//! `except_filters` and `only_sorts`), and answers a call from the database, scoped to the
//! caller.

use std::sync::Arc;

use serde_json::{Value, json};
use toolspec::{AmbientContext, Caller, anthropic, gemini, openai};

async fn registry(dir: &tempfile::TempDir) -> Arc<toolspec::Registry> {
    let store =
        toolspec_store::Store::open(&toolspec_store::Location::File(dir.path().join("store.db")))
            .await
            .unwrap();
    Arc::new(toolspec_store::registry(store))
}

fn customer(id: i64) -> Caller {
    Caller::new(format!("customer-{id}")).with_ambient(AmbientContext::from([("customer_id", id)]))
}

fn declared<T: serde::Serialize>(
    tools: Vec<T>,
    name: &str,
    schema: &[&str],
) -> (Value, Vec<String>) {
    let tool = tools
        .into_iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .find(|t| {
            let named = t
                .get("function")
                .and_then(|f| f.get("name"))
                .or_else(|| t.get("name"));
            named == Some(&json!(name))
        })
        .unwrap_or_else(|| panic!("{name} is declared"));
    let mut at = &tool;
    for key in schema {
        at = &at[*key];
    }
    let properties = at["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    (tool, properties)
}

fn ids(page: &Value) -> Vec<i64> {
    page["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect()
}

#[tokio::test]
async fn openai_sees_the_narrowed_tool_and_calls_it() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir).await;
    let (tool, properties) = declared(
        openai::tools(&registry),
        "orders_search",
        &["function", "parameters"],
    );
    assert_eq!(
        properties,
        [
            "status",
            "placed_after",
            "placed_before",
            "total_min",
            "sort",
            "limit",
            "offset"
        ]
    );
    let sort = &tool["function"]["parameters"]["properties"]["sort"];
    let values = sort
        .get("enum")
        .or_else(|| sort["anyOf"][0].get("enum"))
        .unwrap();
    assert_eq!(values, &json!(["placed_at", "-placed_at"]));
    let description = tool["function"]["description"].as_str().unwrap();
    assert!(
        !description.contains("note_contains") && !description.contains("total (`-`"),
        "{description}"
    );

    let dispatcher = openai::Dispatcher::new(registry);
    let call = |arguments: Value| openai::ToolCall {
        id: "call_1".into(),
        kind: "function".into(),
        function: openai::FunctionCall {
            name: "orders_search".into(),
            arguments: arguments.to_string(),
        },
    };
    let answer = dispatcher
        .call(&call(json!({"sort": "total"})), &customer(1))
        .await;
    let page: Value = serde_json::from_str(&answer.content).unwrap();
    assert_eq!(
        ids(&page),
        [1, 2, 3, 4],
        "`total` is no sort on OpenAI: the default applies"
    );
    let answer = dispatcher
        .call(&call(json!({"note_contains": "x"})), &customer(1))
        .await;
    let error: Value = serde_json::from_str(&answer.content).unwrap();
    assert_eq!(
        error["error"], "invalid_params",
        "a filter OpenAI's model is not shown: {error}"
    );
}

#[tokio::test]
async fn anthropic_sees_every_filter_and_reads_the_callers_rows() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir).await;
    let (_, properties) = declared(
        anthropic::tools(&registry),
        "orders_search",
        &["input_schema"],
    );
    assert_eq!(
        properties,
        [
            "status",
            "placed_after",
            "placed_before",
            "total_min",
            "note_contains",
            "sort",
            "limit",
            "offset"
        ]
    );
    let dispatcher = anthropic::Dispatcher::new(registry);
    let call = anthropic::ToolUse {
        kind: "tool_use".into(),
        id: "toolu_1".into(),
        name: "orders_search".into(),
        input: json!({"sort": "-total", "limit": 2}),
    };
    let answer = dispatcher.call(&call, &customer(1)).await;
    assert!(!answer.is_error, "{}", answer.content);
    let page: Value = serde_json::from_str(&answer.content).unwrap();
    assert_eq!(ids(&page), [2, 1], "customer 1's two largest orders");
    assert_eq!(page["total"], 4);
}

#[tokio::test]
async fn gemini_sees_every_filter_and_reads_the_callers_rows() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir).await;
    let (_, properties) = declared(gemini::tools(&registry), "orders_search", &["parameters"]);
    assert_eq!(
        properties,
        [
            "status",
            "placed_after",
            "placed_before",
            "total_min",
            "note_contains",
            "sort",
            "limit",
            "offset"
        ]
    );
    let dispatcher = gemini::Dispatcher::new(registry);
    let call = gemini::FunctionCall {
        name: "orders_search".into(),
        id: None,
        args: Some(json!({"status": "pending"})),
    };
    let answer = dispatcher.call(&call, &customer(2)).await;
    let page = &answer.response["output"];
    assert_eq!(
        ids(page),
        [5],
        "customer 2's pending order: {}",
        answer.response
    );
}

#[tokio::test]
async fn a_call_through_each_adapter_is_recorded_under_that_adapter_and_caller() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir).await;
    let arguments = json!({"status": "pending"});
    let openai_call = openai::ToolCall {
        id: "call_1".into(),
        kind: "function".into(),
        function: openai::FunctionCall {
            name: "orders_search".into(),
            arguments: arguments.to_string(),
        },
    };
    openai::Dispatcher::new(Arc::clone(&registry))
        .call(&openai_call, &customer(1))
        .await;
    let anthropic_call = anthropic::ToolUse {
        kind: "tool_use".into(),
        id: "toolu_1".into(),
        name: "orders_search".into(),
        input: arguments.clone(),
    };
    anthropic::Dispatcher::new(Arc::clone(&registry))
        .call(&anthropic_call, &customer(2))
        .await;
    let gemini_call = gemini::FunctionCall {
        name: "orders_search".into(),
        id: None,
        args: Some(arguments.clone()),
    };
    gemini::Dispatcher::new(Arc::clone(&registry))
        .call(&gemini_call, &customer(3))
        .await;
    registry.flush_audit().await;
    let trail = registry.audit().expect("the store records calls");
    let query = toolspec::audit::AuditQuery {
        tool: Some("orders_search".into()),
        ..Default::default()
    };
    let page = query.read(trail.database()).await.unwrap();
    let mut seen: Vec<(Option<&str>, Option<&str>, &Value, &Value)> = page
        .records
        .iter()
        .map(|r| {
            (
                r.adapter.as_deref(),
                r.caller.as_deref(),
                &r.ambient,
                &r.arguments,
            )
        })
        .collect();
    seen.sort_by_key(|(adapter, ..)| *adapter);
    assert_eq!(
        seen,
        [
            (
                Some("anthropic"),
                Some("customer-2"),
                &json!({"customer_id": 2}),
                &arguments
            ),
            (
                Some("gemini"),
                Some("customer-3"),
                &json!({"customer_id": 3}),
                &arguments
            ),
            (
                Some("openai"),
                Some("customer-1"),
                &json!({"customer_id": 1}),
                &arguments
            ),
        ]
    );
}
