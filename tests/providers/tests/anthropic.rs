//! The Anthropic adapter: recorded Messages API responses (fixtures/anthropic) dispatched
//! through `toolspec::anthropic`, answered with exact `tool_result` blocks; the declared tools
//! checked exactly for two tools and against Anthropic's rules for all.

use serde_json::{Value, json};
use toolspec::Caller;
use toolspec::anthropic::{self, Dispatcher, Message, ToolUse};
use toolspec_test_providers::{customer, operator, registry, schema_nodes, tools};

macro_rules! fixture {
    ($path:literal) => {
        serde_json::from_str::<Value>(include_str!(concat!("../fixtures/anthropic/", $path)))
            .expect($path)
    };
}

/// Compact JSON of anything serializable.
macro_rules! to_json {
    ($value:expr) => {
        serde_json::to_string(&$value).expect("serializable")
    };
}

/// Answers every `tool_use` block of a recorded response as `caller`: the `tool_result`
/// blocks as JSON, and the calls that reached the registry.
async fn answer(response: Value, caller: &Caller) -> (String, Vec<String>) {
    let (registry, recorder) = registry();
    let message: Message = serde_json::from_value(response).expect("a message");
    let results = Dispatcher::new(registry).answer(&message, caller).await;
    (to_json!(results), recorder.calls())
}

#[tokio::test]
async fn success_is_the_exposed_values_as_json_text() {
    let (registry, recorder) = registry();
    let message: Message = serde_json::from_value(fixture!("success.json")).unwrap();
    let results = Dispatcher::new(registry)
        .answer(&message, &customer())
        .await;
    assert_eq!(
        to_json!(results),
        r#"[{"type":"tool_result","tool_use_id":"toolu_01A09q90qw90lq917835lq9","content":"{\"order_id\":1,\"customer_id\":7,\"status\":\"pending\"}","is_error":false}]"#
    );
    let seen = recorder.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].adapter.as_deref(), Some("anthropic"));
    assert_eq!(seen[0].caller.as_deref(), Some("customer-7"));
    assert_eq!(seen[0].arguments, json!({"order_id": 1}));
}

#[tokio::test]
async fn a_business_failure_is_an_error_result_with_the_error_json() {
    let (results, calls) = answer(fixture!("business_failure.json"), &customer()).await;
    assert_eq!(
        results,
        r#"[{"type":"tool_result","tool_use_id":"toolu_01T1x1fJ34qAmk2tNTrN7Up6","content":"{\"error\":\"already_shipped\",\"message\":\"Could not cancel the order: The order has already shipped.\",\"details\":{\"shipped_on\":\"2026-03-01\"}}","is_error":true}]"#
    );
    assert_eq!(calls, [r#"orders_cancel {"order_id":2}"#]);
}

#[tokio::test]
async fn invalid_arguments_name_the_field() {
    let (results, _) = answer(fixture!("invalid_arguments.json"), &customer()).await;
    assert_eq!(
        results,
        r#"[{"type":"tool_result","tool_use_id":"toolu_01Vfk6J2YQnWx8sZ4cR7hE3p","content":"{\"error\":\"invalid_arguments\",\"message\":\"Invalid arguments: `/order_id`: \\\"first\\\" is not of type \\\"integer\\\".\",\"details\":{\"errors\":[{\"field\":\"/order_id\",\"message\":\"\\\"first\\\" is not of type \\\"integer\\\"\"}]}}","is_error":true}]"#
    );
}

#[tokio::test]
async fn unknown_and_out_of_scope_tools_are_error_results() {
    let (results, calls) = answer(fixture!("unknown_tool.json"), &customer()).await;
    assert_eq!(
        results,
        r#"[{"type":"tool_result","tool_use_id":"toolu_01Kq8mN3bV6cX9zL2jH5gF1d","content":"{\"error\":\"unknown_tool\",\"message\":\"There is no tool named `orders_delete`.\"}","is_error":true},{"type":"tool_result","tool_use_id":"toolu_01Pw4eR7tY1uI9oA3sD6fG2h","content":"{\"error\":\"unknown_tool\",\"message\":\"There is no tool named `admin_purge`.\"}","is_error":true}]"#
    );
    assert!(calls.is_empty(), "{calls:?}");
    let (results, _) = answer(fixture!("unknown_tool.json"), &operator()).await;
    assert!(
        results.ends_with(
            r#"{"type":"tool_result","tool_use_id":"toolu_01Pw4eR7tY1uI9oA3sD6fG2h","content":"{\"purged\":300}","is_error":false}]"#
        ),
        "{results}"
    );
}

#[tokio::test]
async fn present_as_message_answers_with_the_rendered_message_under_the_anthropic_name() {
    let (results, calls) = answer(fixture!("present_as_message.json"), &customer()).await;
    assert_eq!(
        results,
        r#"[{"type":"tool_result","tool_use_id":"toolu_01Jx7cV2bN5mQ8wE1rT4yU9i","content":"Order 5 is now cancelled.","is_error":false}]"#
    );
    assert_eq!(
        calls,
        [r#"orders_cancel {"order_id":5,"reason":"customer_request"}"#]
    );
    // The canonical name is not a tool on anthropic.
    let call: ToolUse = serde_json::from_value(json!({
        "type": "tool_use", "id": "toolu_x", "name": "orders_cancel", "input": {"order_id": 5}
    }))
    .unwrap();
    let result = Dispatcher::new(registry().0).call(&call, &customer()).await;
    assert_eq!(
        to_json!(result),
        r#"{"type":"tool_result","tool_use_id":"toolu_x","content":"{\"error\":\"unknown_tool\",\"message\":\"There is no tool named `orders_cancel`.\"}","is_error":true}"#
    );
}

#[tokio::test]
async fn the_ambient_context_comes_only_from_the_caller() {
    let (results, _) = answer(fixture!("ambient_in_input.json"), &customer()).await;
    assert_eq!(
        results,
        r#"[{"type":"tool_result","tool_use_id":"toolu_01Dz3fG6hJ9kL2qW5eR8tY1u","content":"{\"error\":\"invalid_arguments\",\"message\":\"Invalid arguments: `/customer_id`: is not an argument of this tool (expected: order_id).\",\"details\":{\"errors\":[{\"field\":\"/customer_id\",\"message\":\"is not an argument of this tool (expected: order_id)\"}]}}","is_error":true},{"type":"tool_result","tool_use_id":"toolu_01Mn6bV9cX2zL5kJ8hG1fD4s","content":"{\"order_id\":1,\"customer_id\":7,\"status\":\"pending\"}","is_error":false}]"#
    );
}

#[tokio::test]
async fn every_tool_use_block_is_answered_in_order() {
    let (results, calls) = answer(fixture!("parallel.json"), &customer()).await;
    assert_eq!(
        results,
        r#"[{"type":"tool_result","tool_use_id":"toolu_01Ab2Cd3Ef4Gh5Ij6Kl7Mn8O","content":"{\"order_id\":1,\"customer_id\":7,\"status\":\"pending\"}","is_error":false},{"type":"tool_result","tool_use_id":"toolu_01Pq9Rs8Tu7Vw6Xy5Za4Bc3D","content":"{\"ok\":true}","is_error":false},{"type":"tool_result","tool_use_id":"toolu_01Ef2Gh3Ij4Kl5Mn6Op7Qr8S","content":"{\"rounded\":2.35,\"digits\":2}","is_error":false}]"#
    );
    assert_eq!(
        calls,
        [
            r#"orders_get {"order_id":1}"#,
            r#"status_ping {}"#,
            r#"math_round {"value":2.345,"digits":2}"#
        ]
    );
}

#[tokio::test]
async fn the_message_survives_a_round_trip() {
    let response = fixture!("parallel.json");
    let message: Message = serde_json::from_value(response.clone()).unwrap();
    assert_eq!(serde_json::to_value(&message).unwrap(), response);
}

#[test]
fn tools_exactly() {
    let tools = anthropic::tools(&registry().0);
    let cancel = tools.iter().find(|t| t.name == "cancel_order").unwrap();
    assert_eq!(
        to_json!(cancel),
        r#"{"name":"cancel_order","description":"Cancel one of the current customer's orders.\nPreconditions: The order must not be locked.\nErrors: not_locked, already_shipped.","input_schema":{"type":"object","properties":{"order_id":{"type":"integer","description":"The order to cancel."},"reason":{"type":"string","enum":["customer_request","duplicate","fraud"]}},"required":["order_id"],"additionalProperties":false},"strict":true}"#
    );
    let get = tools.iter().find(|t| t.name == "orders_get").unwrap();
    assert_eq!(
        to_json!(get),
        r#"{"name":"orders_get","description":"Look up one of the current customer's orders.\nErrors: not_found.","input_schema":{"type":"object","properties":{"order_id":{"type":"integer","minimum":1,"description":"The order to look up."}},"required":["order_id"],"additionalProperties":false}}"#
    );
    assert_eq!(
        anthropic::wrap(&tools::orders::cancel::DESCRIPTOR).as_ref(),
        Some(cancel)
    );
    let explain = tools.iter().find(|t| t.name == "explain").unwrap();
    assert_eq!(
        to_json!(explain),
        r#"{"name":"explain","description":"Check whether another tool can be called with given arguments, without running it: returns every argument error and whether each of its preconditions holds.","input_schema":{"type":"object","properties":{"tool":{"type":"string","description":"The name of the tool to check."},"arguments":{"type":"object","description":"The arguments you would call it with."}},"required":["tool"],"additionalProperties":false}}"#
    );
}

#[test]
fn a_caller_sees_only_the_tools_its_scopes_cover() {
    let registry = registry().0;
    let names = |tools: Vec<anthropic::Tool>| -> Vec<String> {
        tools.into_iter().map(|t| t.name).collect()
    };
    assert_eq!(
        names(anthropic::tools_for(&registry, &customer())),
        [
            "cancel_order",
            "catalog_search",
            "explain",
            "math_round",
            "orders_get",
            "status_ping"
        ]
    );
    let dispatcher = Dispatcher::new(registry);
    assert_eq!(
        names(dispatcher.tools()),
        [
            "admin_purge",
            "cancel_order",
            "catalog_search",
            "explain",
            "math_round",
            "orders_get",
            "status_ping"
        ]
    );
    assert_eq!(
        names(dispatcher.tools_for(&Caller::new("nobody").with_scopes(Vec::<String>::new()))),
        ["catalog_search", "explain", "math_round", "status_ping"]
    );
}

/// Anthropic's rules (docs/providers.md), on every declared tool.
#[test]
fn every_tool_follows_anthropic_rules() {
    let tools = anthropic::tools(&registry().0);
    let mut names = Vec::new();
    for tool in &tools {
        let declared = serde_json::to_value(tool).unwrap();
        let keys: Vec<&String> = declared.as_object().unwrap().keys().collect();
        let expected: &[&str] = match tool.strict {
            Some(true) => &["name", "description", "input_schema", "strict"],
            Some(false) => panic!("{}: strict is sent only when on", tool.name),
            None => &["name", "description", "input_schema"],
        };
        assert_eq!(keys, expected, "{declared}");
        let name = &tool.name;
        assert!(
            (1..=64).contains(&name.len())
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            "{name}"
        );
        names.push(name.clone());
        assert_eq!(tool.input_schema["type"], "object", "{name}");
        if tool.strict != Some(true) {
            continue;
        }
        for node in schema_nodes(&tool.input_schema) {
            for keyword in [
                "minimum",
                "maximum",
                "exclusiveMinimum",
                "exclusiveMaximum",
                "multipleOf",
                "minLength",
                "maxLength",
                "maxItems",
            ] {
                assert!(!node.contains_key(keyword), "{name}: {keyword} in {node:?}");
            }
            if let Some(min_items) = node.get("minItems") {
                assert!(min_items == 0 || min_items == 1, "{name}: {node:?}");
            }
            if node.get("type") == Some(&json!("object")) {
                assert_eq!(
                    node.get("additionalProperties"),
                    Some(&json!(false)),
                    "{name}"
                );
            }
        }
    }
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(names, sorted, "sorted by name, no duplicates");
    let strict: Vec<&str> = tools
        .iter()
        .filter(|t| t.strict == Some(true))
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(strict, ["cancel_order"]);
}
