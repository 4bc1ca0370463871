//! The OpenAI adapter: recorded Chat Completions and Responses API responses (fixtures/openai)
//! dispatched through `toolspec::openai`, answered with exact native messages; the declared
//! tools checked exactly for two tools and against OpenAI's rules for all.

use serde_json::{Value, json};
use toolspec::openai::{self, AssistantMessage, Dispatcher, FunctionCallItem, ToolCall};
use toolspec::{Caller, Registry};
use toolspec_test_providers::{customer, operator, registry, schema_nodes, tools};

macro_rules! fixture {
    ($path:literal) => {
        serde_json::from_str::<Value>(include_str!(concat!("../fixtures/openai/", $path)))
            .expect($path)
    };
}

/// Compact JSON of anything serializable.
macro_rules! to_json {
    ($value:expr) => {
        serde_json::to_string(&$value).expect("serializable")
    };
}

/// The assistant message of a recorded Chat Completions response.
fn message(response: &Value) -> AssistantMessage {
    serde_json::from_value(response["choices"][0]["message"].clone()).expect("an assistant message")
}

/// Answers every tool call of a recorded response as `caller`: the tool messages as JSON, and
/// the calls that reached the registry.
async fn chat(response: Value, caller: &Caller) -> (String, Vec<String>) {
    let (registry, recorder) = registry();
    let replies = Dispatcher::new(registry)
        .answer(&message(&response), caller)
        .await;
    (to_json!(replies), recorder.calls())
}

#[tokio::test]
async fn success_is_the_exposed_values_as_json_text() {
    let (registry, recorder) = registry();
    let openai = Dispatcher::new(registry);
    let replies = openai
        .answer(&message(&fixture!("chat_success.json")), &customer())
        .await;
    assert_eq!(
        to_json!(replies),
        r#"[{"role":"tool","tool_call_id":"call_Q3bV0eJ8mS2nLd7kHf1XcP4r","content":"{\"order_id\":1,\"customer_id\":7,\"status\":\"pending\"}"}]"#
    );
    let seen = recorder.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].tool, "orders_get");
    assert_eq!(seen[0].adapter.as_deref(), Some("openai"));
    assert_eq!(seen[0].caller.as_deref(), Some("customer-7"));
    assert_eq!(seen[0].arguments, json!({"order_id": 1}));
}

#[tokio::test]
async fn a_business_failure_is_the_error_json_with_details() {
    let (replies, calls) = chat(fixture!("chat_business_failure.json"), &customer()).await;
    assert_eq!(
        replies,
        r#"[{"role":"tool","tool_call_id":"call_W9pN2xK4tR7cYb1mGv6ZsD3e","content":"{\"error\":\"already_shipped\",\"message\":\"Could not cancel the order: The order has already shipped.\",\"details\":{\"shipped_on\":\"2026-03-01\"}}"}]"#
    );
    // `reason: null` (strict mode's "not given") never reached the invoker.
    assert_eq!(calls, [r#"orders_cancel {"order_id":2}"#]);
}

#[tokio::test]
async fn a_failing_guard_and_an_internal_failure_show_no_exception() {
    let (replies, _) = chat(fixture!("chat_guard_failure.json"), &customer()).await;
    assert_eq!(
        replies,
        r#"[{"role":"tool","tool_call_id":"call_T1gC7yP3kE9sWm5nZq2LfV8b","content":"{\"error\":\"not_locked\",\"message\":\"Could not cancel the order: The order must not be locked.\"}"}]"#
    );
    let (replies, _) = chat(fixture!("chat_internal_failure.json"), &customer()).await;
    assert_eq!(
        replies,
        r#"[{"role":"tool","tool_call_id":"call_H5dJ8qL2wF6vXn3tBk9RmA1s","content":"{\"error\":\"internal_error\",\"message\":\"Could not cancel the order\"}"}]"#
    );
    assert!(!replies.contains("carrier"), "{replies}");
}

#[tokio::test]
async fn invalid_arguments_name_the_field() {
    let (replies, calls) = chat(fixture!("chat_invalid_arguments.json"), &customer()).await;
    assert_eq!(
        replies,
        r#"[{"role":"tool","tool_call_id":"call_M2rF6tY9bN3kQw8xCj5LpH7d","content":"{\"error\":\"invalid_arguments\",\"message\":\"Invalid arguments: `/order_id`: 0 is less than the minimum of 1.\",\"details\":{\"errors\":[{\"field\":\"/order_id\",\"message\":\"0 is less than the minimum of 1\"}]}}"}]"#
    );
    assert_eq!(calls, [r#"orders_get {"order_id":0}"#]);
}

#[tokio::test]
async fn malformed_argument_json_is_answered_without_calling_the_tool() {
    let (replies, calls) = chat(fixture!("chat_malformed_arguments.json"), &customer()).await;
    assert_eq!(
        replies,
        r#"[{"role":"tool","tool_call_id":"call_Z8kP1vB5nM7cRq3wTy6GdS2f","content":"{\"error\":\"invalid_arguments\",\"message\":\"Invalid arguments: `/`: the arguments are not valid JSON (EOF while parsing an object at line 1 column 14).\",\"details\":{\"errors\":[{\"field\":\"/\",\"message\":\"the arguments are not valid JSON (EOF while parsing an object at line 1 column 14)\"}]}}"}]"#
    );
    assert!(calls.is_empty(), "{calls:?}");
}

#[tokio::test]
async fn unknown_tools_out_of_scope_tools_and_canonical_names_look_alike() {
    let (replies, _) = chat(fixture!("chat_unknown_tool.json"), &customer()).await;
    assert_eq!(
        replies,
        r#"[{"role":"tool","tool_call_id":"call_A4sD9fG2hJ6kLz1xCv8BnM3q","content":"{\"error\":\"unknown_tool\",\"message\":\"There is no tool named `orders_delete`.\"}"}]"#
    );
    // `orders_cancel` is named `cancel_order` on openai: its canonical name is not a tool there.
    let (replies, _) = chat(fixture!("chat_canonical_name.json"), &customer()).await;
    assert_eq!(
        replies,
        r#"[{"role":"tool","tool_call_id":"call_E7rT2yU5iO9pAs3dFg6HjK1l","content":"{\"error\":\"unknown_tool\",\"message\":\"There is no tool named `orders_cancel`.\"}"}]"#
    );
    // The customer lacks the `admin` scope: the tool does not exist for them.
    let (replies, calls) = chat(fixture!("chat_out_of_scope.json"), &customer()).await;
    assert_eq!(
        replies,
        r#"[{"role":"tool","tool_call_id":"call_N6bV3cX8zL1kJh5gFd9SaP2o","content":"{\"error\":\"unknown_tool\",\"message\":\"There is no tool named `admin_purge`.\"}"}]"#
    );
    assert!(calls.is_empty(), "{calls:?}");
    // An unrestricted caller may call it.
    let (replies, _) = chat(fixture!("chat_out_of_scope.json"), &operator()).await;
    assert_eq!(
        replies,
        r#"[{"role":"tool","tool_call_id":"call_N6bV3cX8zL1kJh5gFd9SaP2o","content":"{\"purged\":300}"}]"#
    );
}

#[tokio::test]
async fn present_as_message_answers_with_the_rendered_message_under_the_openai_name() {
    let (replies, calls) = chat(fixture!("chat_present_as_message.json"), &customer()).await;
    assert_eq!(
        replies,
        r#"[{"role":"tool","tool_call_id":"call_R3eW8qT1yU6iOp2aSd7FgH4j","content":"Order 5 is now cancelled."}]"#
    );
    assert_eq!(
        calls,
        [r#"orders_cancel {"order_id":5,"reason":"duplicate"}"#]
    );
}

#[tokio::test]
async fn strict_mode_nulls_are_dropped_where_the_canonical_schema_refuses_null() {
    let (replies, calls) = chat(fixture!("chat_strict_nulls.json"), &customer()).await;
    assert_eq!(
        replies,
        r#"[{"role":"tool","tool_call_id":"call_L9kJ4hG7fD2sAq6wEr1TyU8i","content":"{\"query\":\"mug\",\"lines\":2,\"city\":\"Oslo\"}"}]"#
    );
    // `max_price`, the nested `zip` (behind a `$ref`) and each line's `gift_note` are dropped;
    // `cursor` is nullable in the spec, so its null stays.
    assert_eq!(
        calls,
        [
            r#"catalog_search {"query":"mug","cursor":null,"ship_to":{"city":"Oslo"},"lines":[{"sku":"MUG-1","quantity":2},{"sku":"MUG-2","quantity":1,"gift_note":"Happy birthday"}]}"#
        ]
    );
}

#[tokio::test]
async fn non_strict_tools_keep_their_nulls_for_validation() {
    let (registry, recorder) = registry();
    let call: ToolCall = serde_json::from_value(json!({
        "id": "call_1", "type": "function",
        "function": {"name": "math_round", "arguments": "{\"value\":1.25,\"digits\":null}"}
    }))
    .unwrap();
    let reply = Dispatcher::new(registry).call(&call, &customer()).await;
    assert_eq!(
        to_json!(reply),
        r#"{"role":"tool","tool_call_id":"call_1","content":"{\"error\":\"invalid_arguments\",\"message\":\"Invalid arguments: `/digits`: null is not of type \\\"integer\\\"; `/digits`: null is not one of 0, 1 or 2.\",\"details\":{\"errors\":[{\"field\":\"/digits\",\"message\":\"null is not of type \\\"integer\\\"\"},{\"field\":\"/digits\",\"message\":\"null is not one of 0, 1 or 2\"}]}}"}"#
    );
    assert_eq!(
        recorder.calls(),
        [r#"math_round {"value":1.25,"digits":null}"#]
    );
}

#[tokio::test]
async fn the_ambient_context_comes_only_from_the_caller() {
    let (replies, calls) = chat(fixture!("chat_ambient_in_arguments.json"), &customer()).await;
    assert_eq!(
        replies,
        r#"[{"role":"tool","tool_call_id":"call_P2oI7uY4tR9eWq1aSz6XcV3b","content":"{\"error\":\"invalid_arguments\",\"message\":\"Invalid arguments: `/customer_id`: is not an argument of this tool (expected: order_id).\",\"details\":{\"errors\":[{\"field\":\"/customer_id\",\"message\":\"is not an argument of this tool (expected: order_id)\"}]}}"},{"role":"tool","tool_call_id":"call_K8jH3gF6dS1aZx9cVb4NmQ7w","content":"{\"order_id\":1,\"customer_id\":7,\"status\":\"pending\"}"}]"#
    );
    assert_eq!(calls.len(), 2);
}

#[tokio::test]
async fn every_call_of_a_message_is_answered_in_order() {
    let (replies, calls) = chat(fixture!("chat_parallel.json"), &customer()).await;
    assert_eq!(
        replies,
        r#"[{"role":"tool","tool_call_id":"call_U1yT6rE3wQ8aSd2fGh9JkL5z","content":"{\"order_id\":1,\"customer_id\":7,\"status\":\"pending\"}"},{"role":"tool","tool_call_id":"call_C5vB9nM2xZ7lKj4hGf1DsA8q","content":"Order 5 is now cancelled."},{"role":"tool","tool_call_id":"call_I4uY8tR1eW6qAs3dFg9HjK2m","content":"{\"ok\":true}"},{"role":"tool","tool_call_id":"call_O7pL2kJ5hG9fDs1aQw6ErT3y","content":"{\"rounded\":2.35,\"digits\":2}"}]"#
    );
    assert_eq!(calls.len(), 4);
}

#[tokio::test]
async fn explain_drops_the_strict_nulls_of_the_explained_call() {
    let (replies, calls) = chat(fixture!("chat_explain.json"), &customer()).await;
    assert_eq!(
        replies,
        r#"[{"role":"tool","tool_call_id":"call_Y5tR8eW2qA6sD9fG3hJ1kL7z","content":"{\"tool\":\"orders_cancel\",\"callable\":false,\"errors\":[],\"guards\":[{\"name\":\"not_locked\",\"description\":\"The order must not be locked.\",\"passed\":false,\"error\":{\"error\":\"not_locked\",\"message\":\"Could not cancel the order: The order must not be locked.\"}}],\"result_cap\":{\"bytes\":1048576}}"}]"#
    );
    // The explanation passes through the hooks too, with the strict nulls dropped.
    assert_eq!(
        calls,
        [
            r#"explain {"tool":"cancel_order","arguments":{"order_id":13}}"#,
            r#"explained orders_cancel {"order_id":13}"#
        ]
    );
}

#[tokio::test]
async fn the_assistant_message_survives_a_round_trip() {
    let response = fixture!("chat_parallel.json");
    let message = message(&response);
    assert_eq!(
        serde_json::to_value(&message).unwrap(),
        response["choices"][0]["message"]
    );
}

#[tokio::test]
async fn responses_function_calls_get_function_call_outputs_in_order() {
    let response = fixture!("responses_calls.json");
    let (registry, recorder) = registry();
    let openai = Dispatcher::new(registry);
    let output = response["output"].as_array().unwrap();
    let replies = openai.answer_output(output, &customer()).await;
    assert_eq!(
        to_json!(replies),
        r#"[{"type":"function_call_output","call_id":"call_Fh2Jk9Lm4Nb7Vc1Xz6Qw3Er8","output":"{\"order_id\":1,\"customer_id\":7,\"status\":\"pending\"}"},{"type":"function_call_output","call_id":"call_Gt5Yu8Io1Pa4Sd7Fg2Hj9Kl3","output":"{\"error\":\"already_shipped\",\"message\":\"Could not cancel the order: The order has already shipped.\",\"details\":{\"shipped_on\":\"2026-03-01\"}}"},{"type":"function_call_output","call_id":"call_Bn6Mq2We5Rt8Yu1Io4Pa7Sd9","output":"{\"error\":\"invalid_arguments\",\"message\":\"Invalid arguments: `/`: the arguments are not valid JSON (EOF while parsing a value at line 1 column 12).\",\"details\":{\"errors\":[{\"field\":\"/\",\"message\":\"the arguments are not valid JSON (EOF while parsing a value at line 1 column 12)\"}]}}"},{"type":"function_call_output","call_id":"call_Zx3Cv6Bn9Mq2We5Rt8Yu1Io4","output":"{\"error\":\"unknown_tool\",\"message\":\"There is no tool named `orders_refund`.\"}"}]"#
    );
    assert_eq!(
        recorder.calls(),
        [
            r#"orders_get {"order_id":1}"#,
            r#"orders_cancel {"order_id":2,"reason":"fraud"}"#
        ]
    );
    // One item at a time, too.
    let item: FunctionCallItem = serde_json::from_value(output[1].clone()).unwrap();
    let reply = openai.call_function(&item, &customer()).await;
    assert_eq!(
        to_json!(reply),
        r#"{"type":"function_call_output","call_id":"call_Fh2Jk9Lm4Nb7Vc1Xz6Qw3Er8","output":"{\"order_id\":1,\"customer_id\":7,\"status\":\"pending\"}"}"#
    );
}

#[tokio::test]
async fn dispatch_runs_on_a_multi_threaded_runtime() {
    let (registry, _) = registry();
    let openai = Dispatcher::new(registry);
    let message = message(&fixture!("chat_success.json"));
    let replies = tokio::spawn(async move { openai.answer(&message, &customer()).await })
        .await
        .unwrap();
    assert_eq!(
        replies[0].content,
        r#"{"order_id":1,"customer_id":7,"status":"pending"}"#
    );
}

/// A fresh registry without the recorder.
fn plain() -> Registry {
    registry().0
}

#[test]
fn chat_tools_exactly() {
    let tools = openai::tools(&plain());
    let cancel = tools
        .iter()
        .find(|t| t.function.name == "cancel_order")
        .unwrap();
    assert_eq!(
        to_json!(cancel),
        r#"{"type":"function","function":{"name":"cancel_order","description":"Cancel one of the current customer's orders.\nPreconditions: The order must not be locked.\nErrors: not_locked, already_shipped.","parameters":{"type":"object","properties":{"order_id":{"type":"integer","description":"The order to cancel."},"reason":{"type":["string","null"],"enum":["customer_request","duplicate","fraud",null]}},"required":["order_id","reason"],"additionalProperties":false},"strict":true}}"#
    );
    let round = tools
        .iter()
        .find(|t| t.function.name == "math_round")
        .unwrap();
    assert_eq!(
        to_json!(round),
        r#"{"type":"function","function":{"name":"math_round","description":"Round a number to a few digits.","parameters":{"type":"object","properties":{"value":{"type":"number"},"digits":{"type":"integer","enum":[0,1,2],"default":0},"half_up":{"type":"boolean","default":true}},"required":["value"],"additionalProperties":false},"strict":false}}"#
    );
    // `wrap` of one descriptor is what the listing holds.
    assert_eq!(
        openai::wrap(&tools::orders::cancel::DESCRIPTOR).as_ref(),
        Some(cancel)
    );
    let names: Vec<&str> = tools.iter().map(|t| t.function.name.as_str()).collect();
    assert_eq!(
        names,
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
}

#[test]
fn responses_tools_are_the_flat_form_of_the_same_tools() {
    let registry = plain();
    let chat = openai::tools(&registry);
    let flat = openai::responses_tools(&registry);
    assert_eq!(chat.len(), flat.len());
    for (chat, flat) in chat.iter().zip(&flat) {
        let mut expected = serde_json::to_value(&chat.function).unwrap();
        let expected = expected.as_object_mut().unwrap();
        let mut with_type = serde_json::Map::new();
        with_type.insert("type".into(), json!("function"));
        with_type.extend(std::mem::take(expected));
        assert_eq!(
            serde_json::to_value(flat).unwrap(),
            Value::Object(with_type)
        );
    }
    assert_eq!(
        openai::wrap_responses(&tools::status::ping::DESCRIPTOR).map(|t| to_json!(t)),
        Some(r#"{"type":"function","name":"status_ping","description":"Check that the service answers.\nCall it before reporting an outage.","parameters":{"type":"object","properties":{},"required":[],"additionalProperties":false},"strict":true}"#.to_owned()),
        "OpenAI's model reads the sentence the spec appends for it"
    );
}

#[test]
fn each_provider_reads_the_description_its_adapter_gives() {
    use toolspec::{anthropic, gemini};
    let ping = &tools::status::ping::DESCRIPTOR;
    let described = |tool: Value| tool["description"].as_str().unwrap_or_default().to_owned();
    assert_eq!(
        described(serde_json::to_value(anthropic::wrap(ping)).unwrap()),
        "Answers whether the service is up."
    );
    assert_eq!(
        described(serde_json::to_value(gemini::wrap(ping)).unwrap()),
        "Check that the service answers.",
        "an adapter without its own keeps the spec's"
    );
    assert_eq!(ping.title_for("mcp"), Some("Health check"));
    assert!(ping.has_hint_for("mcp", "idempotent") && !ping.has_hint_for("openai", "idempotent"));
}

#[test]
fn a_caller_sees_only_the_tools_its_scopes_cover() {
    let registry = plain();
    let names = |tools: Vec<openai::ChatTool>| -> Vec<String> {
        tools.into_iter().map(|t| t.function.name).collect()
    };
    let visible = names(openai::tools_for(&registry, &customer()));
    assert_eq!(
        visible,
        [
            "cancel_order",
            "catalog_search",
            "explain",
            "math_round",
            "orders_get",
            "status_ping"
        ]
    );
    assert_eq!(names(openai::tools_for(&registry, &operator())).len(), 7);
    let openai = Dispatcher::new(registry);
    assert_eq!(names(openai.tools_for(&customer())), visible);
    let reading = Caller::new("reader").with_scopes(["orders:read"]);
    assert_eq!(
        names(openai.tools_for(&reading)),
        [
            "catalog_search",
            "explain",
            "math_round",
            "orders_get",
            "status_ping"
        ]
    );
    let flat: Vec<String> = openai
        .responses_tools_for(&reading)
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(flat, names(openai.tools_for(&reading)));
}

/// OpenAI's rules (docs/providers.md), on every declared tool.
#[test]
fn every_tool_follows_openai_rules() {
    let tools = openai::tools(&plain());
    let mut names = Vec::new();
    for tool in &tools {
        let declared = serde_json::to_value(tool).unwrap();
        let keys: Vec<&String> = declared["function"].as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            ["name", "description", "parameters", "strict"],
            "{declared}"
        );
        assert_eq!(tool.kind, "function");
        let name = &tool.function.name;
        assert!(
            (1..=64).contains(&name.len())
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            "{name}"
        );
        names.push(name.clone());
        let parameters = &tool.function.parameters;
        assert_eq!(parameters["type"], "object", "{name}");
        for node in schema_nodes(parameters) {
            if node.get("type") == Some(&json!("object")) {
                assert!(node.contains_key("properties"), "{name}: {node:?}");
            }
            if !tool.function.strict {
                continue;
            }
            for keyword in [
                "allOf",
                "not",
                "if",
                "then",
                "else",
                "dependentRequired",
                "dependentSchemas",
                "oneOf",
                "patternProperties",
                "prefixItems",
                "uniqueItems",
                "default",
                "minLength",
                "maxLength",
            ] {
                assert!(!node.contains_key(keyword), "{name}: {keyword} in {node:?}");
            }
            if node.contains_key("$ref") {
                assert_eq!(node.len(), 1, "{name}: siblings beside $ref in {node:?}");
            }
            if let Some(properties) = node.get("properties").and_then(Value::as_object) {
                assert_eq!(
                    node.get("additionalProperties"),
                    Some(&json!(false)),
                    "{name}"
                );
                let required: Vec<&str> = node["required"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r.as_str().unwrap())
                    .collect();
                let declared: Vec<&str> = properties.keys().map(String::as_str).collect();
                assert_eq!(required, declared, "{name}: every property is required");
            }
        }
    }
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(names, sorted, "sorted by name, no duplicates");
    // The strict setting: the project default (true), overridden by math_round; explain's
    // free-form arguments have no strict form.
    let strict: Vec<(&str, bool)> = tools
        .iter()
        .map(|t| (t.function.name.as_str(), t.function.strict))
        .collect();
    assert_eq!(
        strict,
        [
            ("admin_purge", true),
            ("cancel_order", true),
            ("catalog_search", true),
            ("explain", false),
            ("math_round", false),
            ("orders_get", true),
            ("status_ping", true)
        ]
    );
}

#[tokio::test]
async fn a_selection_declares_and_dispatches_the_tools_of_one_module_only() {
    let (registry, recorder) = registry();
    let math = Dispatcher::new(registry).select(&toolspec::Selection::all().in_module("math"));
    let names: Vec<String> = math
        .tools_for(&operator())
        .iter()
        .map(|t| {
            serde_json::to_value(t).unwrap()["function"]["name"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        names,
        ["explain", "math_round"],
        "math_mode is no openai member"
    );
    let call: ToolCall = serde_json::from_value(json!({
        "id": "call_1", "type": "function",
        "function": {"name": "status_ping", "arguments": "{}"}
    }))
    .unwrap();
    let reply = math.call(&call, &operator()).await;
    assert_eq!(
        reply.content,
        r#"{"error":"unknown_tool","message":"There is no tool named `status_ping`."}"#
    );
    assert!(recorder.calls().is_empty(), "nothing ran");
}
