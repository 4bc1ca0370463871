//! The Gemini adapter: recorded `generateContent` responses (fixtures/gemini) dispatched
//! through `toolspec::gemini`, answered with exact `functionResponse` parts; the declarations
//! checked exactly for two tools and against Gemini's rules for all.

use serde_json::{Value, json};
use toolspec::Caller;
use toolspec::gemini::{self, Content, Dispatcher, FunctionCall};
use toolspec_test_providers::{customer, operator, registry, schema_nodes, tools};

macro_rules! fixture {
    ($path:literal) => {
        serde_json::from_str::<Value>(include_str!(concat!("../fixtures/gemini/", $path)))
            .expect($path)
    };
}

/// Compact JSON of anything serializable.
macro_rules! to_json {
    ($value:expr) => {
        serde_json::to_string(&$value).expect("serializable")
    };
}

/// The model turn of a recorded response.
fn content(response: &Value) -> Content {
    serde_json::from_value(response["candidates"][0]["content"].clone()).expect("a content")
}

/// Answers every function call of a recorded response as `caller`: the user turn as JSON,
/// and the calls that reached the registry.
async fn answer(response: Value, caller: &Caller) -> (String, Vec<String>) {
    let (registry, recorder) = registry();
    let turn = Dispatcher::new(registry)
        .answer(&content(&response), caller)
        .await;
    (to_json!(turn), recorder.calls())
}

#[tokio::test]
async fn success_is_the_exposed_values_as_output() {
    let (registry, recorder) = registry();
    let turn = Dispatcher::new(registry)
        .answer(&content(&fixture!("success.json")), &customer())
        .await;
    assert_eq!(
        to_json!(turn),
        r#"{"role":"user","parts":[{"functionResponse":{"name":"orders_get","response":{"output":{"order_id":1,"customer_id":7,"status":"pending"}}}}]}"#
    );
    let seen = recorder.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].adapter.as_deref(), Some("gemini"));
    assert_eq!(seen[0].caller.as_deref(), Some("customer-7"));
}

#[tokio::test]
async fn a_business_failure_is_an_error_response() {
    let (turn, calls) = answer(fixture!("business_failure.json"), &customer()).await;
    assert_eq!(
        turn,
        r#"{"role":"user","parts":[{"functionResponse":{"name":"cancelOrder","response":{"error":{"error":"already_shipped","message":"Could not cancel the order: The order has already shipped.","details":{"shipped_on":"2026-03-01"}}}}}]}"#
    );
    assert_eq!(calls, [r#"orders_cancel {"order_id":2}"#]);
}

#[tokio::test]
async fn invalid_arguments_name_the_field() {
    let (turn, _) = answer(fixture!("invalid_arguments.json"), &customer()).await;
    assert_eq!(
        turn,
        r#"{"role":"user","parts":[{"functionResponse":{"name":"orders_get","response":{"error":{"error":"invalid_arguments","message":"Invalid arguments: `/order_id`: -4 is less than the minimum of 1.","details":{"errors":[{"field":"/order_id","message":"-4 is less than the minimum of 1"}]}}}}}]}"#
    );
}

#[tokio::test]
async fn unknown_out_of_scope_and_canonical_names_are_unknown_tools() {
    // `orders_cancel` is `cancelOrder` on gemini; `admin_purge` is not a gemini member at all.
    let (turn, calls) = answer(fixture!("unknown_tool.json"), &customer()).await;
    assert_eq!(
        turn,
        r#"{"role":"user","parts":[{"functionResponse":{"name":"orders_cancel","response":{"error":{"error":"unknown_tool","message":"There is no tool named `orders_cancel`."}}}},{"functionResponse":{"name":"admin_purge","response":{"error":{"error":"unknown_tool","message":"There is no tool named `admin_purge`."}}}}]}"#
    );
    assert!(calls.is_empty(), "{calls:?}");
    let (operator_turn, _) = answer(fixture!("unknown_tool.json"), &operator()).await;
    assert_eq!(operator_turn, turn);
}

#[tokio::test]
async fn out_of_scope_tools_answer_like_unknown_ones() {
    let call: FunctionCall =
        serde_json::from_value(json!({"name": "cancelOrder", "args": {"order_id": 5}})).unwrap();
    let reader = Caller::new("reader")
        .with_ambient(customer().ambient)
        .with_scopes(["orders:read"]);
    let response = Dispatcher::new(registry().0).call(&call, &reader).await;
    assert_eq!(
        to_json!(response),
        r#"{"name":"cancelOrder","response":{"error":{"error":"unknown_tool","message":"There is no tool named `cancelOrder`."}}}"#
    );
}

#[tokio::test]
async fn present_as_message_outputs_the_rendered_message_under_the_gemini_name() {
    let (turn, calls) = answer(fixture!("present_as_message.json"), &customer()).await;
    assert_eq!(
        turn,
        r#"{"role":"user","parts":[{"functionResponse":{"name":"cancelOrder","response":{"output":"Order 5 is now cancelled."}}}]}"#
    );
    assert_eq!(calls, [r#"orders_cancel {"order_id":5,"reason":"fraud"}"#]);
}

#[tokio::test]
async fn enums_sent_as_strings_are_restored_before_the_invoker() {
    let (turn, calls) = answer(fixture!("numeric_enum.json"), &customer()).await;
    assert_eq!(
        turn,
        r#"{"role":"user","parts":[{"functionResponse":{"name":"math_round","response":{"output":{"rounded":2.35,"digits":2}}}}]}"#
    );
    // Gemini sent `"2"`, the spelling its declaration offers; the invoker sees `2`.
    assert_eq!(calls, [r#"math_round {"value":2.345,"digits":2}"#]);
    // A spelling outside the enum is still refused, naming the canonical values.
    let call: FunctionCall =
        serde_json::from_value(json!({"name": "math_round", "args": {"value": 1, "digits": "3"}}))
            .unwrap();
    let response = Dispatcher::new(registry().0).call(&call, &customer()).await;
    assert_eq!(
        to_json!(response),
        r#"{"name":"math_round","response":{"error":{"error":"invalid_arguments","message":"Invalid arguments: `/digits`: 3 is not one of 0, 1 or 2.","details":{"errors":[{"field":"/digits","message":"3 is not one of 0, 1 or 2"}]}}}}"#
    );
}

#[tokio::test]
async fn spelled_values_of_json_enums_are_restored_at_any_depth() {
    // `mode` and `flags[]` are `json` fields: without a type, only the enum tells what
    // `"2.5"` and `"true"` stand for.
    let dispatcher = Dispatcher::new(registry().0);
    let call = |args: Value| -> FunctionCall {
        serde_json::from_value(json!({"name": "math_mode", "args": args})).unwrap()
    };
    let response = dispatcher
        .call(
            &call(json!({"mode": "2.5", "flags": ["true", "false"]})),
            &customer(),
        )
        .await;
    assert_eq!(
        to_json!(response),
        r#"{"name":"math_mode","response":{"output":{"mode":2.5,"flags":[true,false]}}}"#
    );
    // The explain tool's `arguments` are restored as the target tool's own.
    let explained = dispatcher
        .call(
            &serde_json::from_value(json!({"name": "explain",
                "args": {"tool": "math_mode", "arguments": {"mode": "3.5"}}}))
            .unwrap(),
            &customer(),
        )
        .await;
    assert_eq!(
        explained.response["output"]["callable"], true,
        "{explained:?}"
    );
    // What spells no value of the enum is left as sent, for validation to refuse.
    let refused = dispatcher
        .call(&call(json!({"mode": "4.5", "flags": ["yes"]})), &customer())
        .await;
    assert_eq!(
        refused.response["error"]["details"]["errors"],
        json!([
            {"field": "/flags/0", "message": "\"yes\" is not one of true or false"},
            {"field": "/mode", "message": "\"4.5\" is not one of 1.5, 2.5 or 3.5"}
        ])
    );
}

#[tokio::test]
async fn call_ids_are_echoed_and_calls_answered_in_order() {
    let (turn, _) = answer(fixture!("with_ids.json"), &customer()).await;
    assert_eq!(
        turn,
        r#"{"role":"user","parts":[{"functionResponse":{"name":"orders_get","id":"adc-7f3a9e21","response":{"output":{"order_id":1,"customer_id":7,"status":"pending"}}}},{"functionResponse":{"name":"status_ping","id":"adc-0b5c4d18","response":{"output":{"ok":true}}}}]}"#
    );
}

#[tokio::test]
async fn a_call_without_args_and_text_parts_beside_it() {
    let (turn, calls) = answer(fixture!("no_args.json"), &customer()).await;
    assert_eq!(
        turn,
        r#"{"role":"user","parts":[{"functionResponse":{"name":"status_ping","response":{"output":{"ok":true}}}}]}"#
    );
    assert_eq!(calls, ["status_ping null"]);
}

#[tokio::test]
async fn the_ambient_context_comes_only_from_the_caller() {
    let (turn, _) = answer(fixture!("ambient_in_args.json"), &customer()).await;
    assert_eq!(
        turn,
        r#"{"role":"user","parts":[{"functionResponse":{"name":"orders_get","response":{"error":{"error":"invalid_arguments","message":"Invalid arguments: `/customer_id`: is not an argument of this tool (expected: order_id).","details":{"errors":[{"field":"/customer_id","message":"is not an argument of this tool (expected: order_id)"}]}}}}},{"functionResponse":{"name":"orders_get","response":{"output":{"order_id":1,"customer_id":7,"status":"pending"}}}}]}"#
    );
}

#[tokio::test]
async fn the_model_turn_survives_a_round_trip() {
    let response = fixture!("success.json");
    let turn = content(&response);
    assert_eq!(
        serde_json::to_value(&turn).unwrap(),
        response["candidates"][0]["content"]
    );
}

#[test]
fn declarations_exactly() {
    let declarations = gemini::tools(&registry().0);
    let round = declarations
        .iter()
        .find(|d| d.name == "math_round")
        .unwrap();
    assert_eq!(
        to_json!(round),
        r#"{"name":"math_round","description":"Round a number to a few digits.","parameters":{"type":"OBJECT","properties":{"value":{"type":"NUMBER"},"digits":{"type":"STRING","enum":["0","1","2"],"default":"0","description":"Sent as a string: the integer it spells."},"half_up":{"type":"BOOLEAN","default":true}},"required":["value"],"propertyOrdering":["value","digits","half_up"]}}"#
    );
    let ping = declarations
        .iter()
        .find(|d| d.name == "status_ping")
        .unwrap();
    assert_eq!(
        to_json!(ping),
        r#"{"name":"status_ping","description":"Check that the service answers."}"#
    );
    assert_eq!(
        gemini::wrap(&tools::math::round::DESCRIPTOR).as_ref(),
        Some(round)
    );
    assert_eq!(gemini::wrap(&tools::admin::purge::DESCRIPTOR), None);
    let names: Vec<&str> = declarations.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "cancelOrder",
            "catalog_search",
            "explain",
            "math_mode",
            "math_round",
            "orders_get",
            "status_ping"
        ]
    );
    let reader = Caller::new("reader").with_scopes(["orders:read"]);
    let visible: Vec<String> = gemini::tools_for(&registry().0, &reader)
        .into_iter()
        .map(|d| d.name)
        .collect();
    assert_eq!(
        visible,
        [
            "catalog_search",
            "explain",
            "math_mode",
            "math_round",
            "orders_get",
            "status_ping"
        ]
    );
    let dispatcher = Dispatcher::new(registry().0);
    assert_eq!(dispatcher.tools(), declarations);
    assert_eq!(
        dispatcher
            .tools_for(&reader)
            .into_iter()
            .map(|d| d.name)
            .collect::<Vec<_>>(),
        visible
    );
}

/// Gemini's rules (docs/providers.md), on every declaration.
#[test]
fn every_declaration_follows_gemini_rules() {
    const KEYWORDS: &[&str] = &[
        "type",
        "format",
        "description",
        "nullable",
        "enum",
        "items",
        "minItems",
        "maxItems",
        "properties",
        "required",
        "propertyOrdering",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
        "anyOf",
        "default",
    ];
    const TYPES: &[&str] = &["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT"];
    let declarations = gemini::tools(&registry().0);
    let mut names = Vec::new();
    for declaration in &declarations {
        let declared = serde_json::to_value(declaration).unwrap();
        for key in declared.as_object().unwrap().keys() {
            assert!(
                ["name", "description", "parameters"].contains(&key.as_str()),
                "{declared}"
            );
        }
        let name = &declaration.name;
        let mut chars = name.chars();
        assert!(
            chars
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || "_.:-".contains(c))
                && name.len() <= 64,
            "{name}"
        );
        names.push(name.clone());
        let Some(parameters) = &declaration.parameters else {
            continue;
        };
        assert_eq!(parameters["type"], "OBJECT", "{name}");
        assert!(
            parameters["properties"]
                .as_object()
                .is_some_and(|p| !p.is_empty()),
            "{name}: a root OBJECT needs properties"
        );
        for node in schema_nodes(parameters) {
            for (key, value) in node {
                assert!(
                    KEYWORDS.contains(&key.as_str()),
                    "{name}: {key} in {node:?}"
                );
                if key == "type" {
                    assert!(
                        value.as_str().is_some_and(|t| TYPES.contains(&t)),
                        "{name}: {node:?}"
                    );
                }
                if key == "enum" {
                    assert!(
                        value.as_array().unwrap().iter().all(Value::is_string),
                        "{name}: {node:?}"
                    );
                }
            }
        }
    }
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(names, sorted, "sorted by name, no duplicates");
}
