//! Arguments an attacker would send: far too many items, keys or errors, values far too long,
//! nested too deep, integers no float can hold, secrets in the wrong place. Every answer stays
//! small and quick, and no `sensitive` value is ever quoted back.
//!
//! The figures (answer size, time) are printed; run with `--nocapture` to see them. What the
//! tests assert is the bound on the answer, never a time.

use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};
use toolspec::{AmbientContext, ToolResult};
use toolspec_test_pipeline::App;

/// The bound on any answer to a hostile request.
const MAX_ANSWER: usize = 64 * 1024;

fn customer() -> AmbientContext {
    AmbientContext::from([("customer_id", 7)])
}

fn line() -> Value {
    json!({ "sku": "ABC-1", "quantity": 1 })
}

async fn place(args: Value) -> (ToolResult, Duration) {
    let registry = App::new().registry();
    let started = Instant::now();
    let result = registry
        .invoke("hostile_place", args, &customer())
        .await
        .expect("a tool of the registry");
    (result, started.elapsed())
}

/// The whole answer a model would see, as JSON text.
fn answer(result: &ToolResult) -> String {
    result.to_model_json().to_string()
}

/// Checks the answer is an `invalid_arguments` failure within [`MAX_ANSWER`], prints the
/// figures, and returns its message.
fn refused(what: &str, request: usize, result: &ToolResult, took: Duration) -> String {
    let error = result
        .error()
        .unwrap_or_else(|| panic!("{what}: expected a failure, got {:?}", result.outcome));
    assert_eq!(error.code, "invalid_arguments", "{what}: {}", error.message);
    let size = answer(result).len();
    eprintln!("{what}: {request} bytes in → {size} bytes out in {took:?}");
    assert!(size <= MAX_ANSWER, "{what}: a {size}-byte answer");
    error.message.clone()
}

fn many_lines(count: usize) -> Value {
    Value::Array(vec![json!({}); count])
}

#[tokio::test]
async fn an_array_far_past_max_items_is_refused_without_walking_its_items() {
    // 1.39 M empty objects: about 4 MiB of JSON.
    let args = json!({ "lines": many_lines(1_390_000) });
    let request = args.to_string().len();
    let (result, took) = place(args).await;
    let message = refused("1.39 M lines", request, &result, took);
    assert_eq!(
        message,
        "Invalid arguments: `/lines`: has 1390000 items, more than the 20 allowed."
    );
}

#[tokio::test]
async fn explaining_a_hostile_call_is_as_small() {
    let registry = App::new().registry();
    let args = json!({ "lines": many_lines(1_390_000) });
    let started = Instant::now();
    let explanation = registry
        .explain("hostile_place", args.clone(), &customer())
        .await
        .expect("a tool");
    let size = serde_json::to_string(&explanation).unwrap().len();
    eprintln!(
        "explain 1.39 M lines: {size} bytes out in {:?}",
        started.elapsed()
    );
    assert!(size <= MAX_ANSWER, "a {size}-byte explanation");
    assert_eq!(explanation.errors.len(), 1, "{:?}", explanation.errors);

    // The same through the built-in explain tool.
    let (result, took) = {
        let started = Instant::now();
        let result = registry
            .invoke(
                "explain",
                json!({ "tool": "hostile_place", "arguments": args }),
                &customer(),
            )
            .await
            .expect("the explain tool");
        (result, started.elapsed())
    };
    let size = answer(&result).len();
    eprintln!("the explain tool on 1.39 M lines: {size} bytes out in {took:?}");
    assert!(result.is_ok(), "{:?}", result.outcome);
    assert!(size <= MAX_ANSWER, "a {size}-byte answer");
}

#[tokio::test]
async fn every_item_wrong_gives_a_capped_list() {
    // Within `max_items`, every item wrong in three ways: 60 errors, only the first shown.
    let lines = vec![json!({ "sku": "x", "quantity": 0, "colour": "red" }); 20];
    let args = json!({ "lines": lines });
    let request = args.to_string().len();
    let (result, took) = place(args).await;
    let message = refused("20 bad lines", request, &result, took);
    let details = &result.error().unwrap().details.as_ref().unwrap();
    let listed = details["errors"].as_array().unwrap().len();
    assert_eq!(listed, 10, "{details}");
    assert_eq!(details["more_errors"], 50, "{details}");
    assert!(message.ends_with("; and 50 more errors."), "{message}");
}

#[tokio::test]
async fn undeclared_keys_are_named_up_to_a_cap() {
    // 3.5 MiB of undeclared keys.
    let mut args = Map::new();
    args.insert("lines".into(), json!([line()]));
    for i in 0..100_000 {
        args.insert(format!("undeclared_key_number_{i:012}"), json!(1));
    }
    let args = Value::Object(args);
    let request = args.to_string().len();
    let (result, took) = place(args).await;
    let message = refused("100,000 undeclared keys", request, &result, took);
    assert!(
        message.starts_with(
            "Invalid arguments: `/undeclared_key_number_000000000000`: is not an argument of this tool (expected: lines, note, tags, card, count, payload)"
        ),
        "{message}"
    );
    assert!(message.ends_with("; and 99990 more errors."), "{message}");
}

#[tokio::test]
async fn long_values_and_keys_are_quoted_only_in_part() {
    let huge = "A".repeat(1 << 20);
    let args =
        json!({ "lines": [{ "sku": huge, "quantity": 1 }], "tags": { "t": "x".repeat(100) } });
    let request = args.to_string().len();
    let (result, took) = place(args).await;
    let message = refused("a 1 MiB sku", request, &result, took);
    assert!(message.len() < 400, "{message}");
    assert!(
        message.contains(
            "`/lines/0/sku`: \"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA…\" (1048576 characters)"
        ),
        "{message}"
    );

    let mut args = Map::new();
    args.insert("lines".into(), json!([line()]));
    args.insert(format!("k{}", "e".repeat(1 << 20)), json!(1));
    let (result, took) = place(Value::Object(args)).await;
    let message = refused("a 1 MiB key", 1 << 20, &result, took);
    assert!(message.len() < 600, "{message}");
}

#[tokio::test]
async fn sensitive_values_are_never_quoted() {
    let secret = format!("SECRET-{}", "x".repeat(600));
    let args = json!({
        "lines": [{ "sku": "ABC-1", "quantity": 1, "gift_message": secret }],
        "note": secret,
        "card": { "number": "SECRET-4111", "pin-SECRET": 1234 },
    });
    let (result, took) = place(args).await;
    let message = refused("sensitive values", 0, &result, took);
    assert!(!answer(&result).contains("SECRET"), "{}", answer(&result));
    assert!(
        !format!("{result:?}").contains("SECRET"),
        "nor in the developer-facing parts"
    );
    // Below a sensitive value, even keys are data: a pointer stops at the value.
    assert_eq!(
        message,
        "Invalid arguments: `/card/…`: is not a field of this object (expected: number); \
         `/card/…`: the value does not match \"^[0-9]{16}$\"; \
         `/lines/0/gift_message`: the value is longer than 40 characters; \
         `/note`: the value is longer than 500 characters."
    );
}

#[tokio::test]
async fn integers_no_float_holds_exactly_are_refused() {
    // 9007199254740993 read as a float is 9007199254740992: refuse, never round.
    let args: Value = serde_json::from_str(
        r#"{ "lines": [{ "sku": "ABC-1", "quantity": 1 }], "count": 9007199254740993.0 }"#,
    )
    .unwrap();
    let (result, took) = place(args).await;
    let message = refused("2^53 + 1 as a float", 0, &result, took);
    assert_eq!(
        message,
        "Invalid arguments: `/count`: 9007199254740992.0 is not an exact integer (a number \
         with a fraction or an exponent is exact only below 2^53); send it without one."
    );
    // The same spelled as an integer is exact, and accepted.
    let args: Value = serde_json::from_str(
        r#"{ "lines": [{ "sku": "ABC-1", "quantity": 1 }], "count": 9007199254740993 }"#,
    )
    .unwrap();
    let (result, _) = place(args).await;
    assert!(result.is_ok(), "{:?}", result.outcome);
    // Below 2^53 a float is exact.
    let (result, _) = place(json!({ "lines": [line()], "count": 3.0 })).await;
    assert!(result.is_ok(), "{:?}", result.outcome);
    // One below i64's range reads as -2^63, the schema's own minimum: refused all the same
    // (schemathesis found it reaching a handler as a float).
    let args: Value = serde_json::from_str(
        r#"{ "lines": [{ "sku": "ABC-1", "quantity": 1 }], "count": -9223372036854775809 }"#,
    )
    .unwrap();
    let (result, took) = place(args).await;
    let message = refused("-2^63 - 1", 0, &result, took);
    assert!(message.contains("is not an exact integer"), "{message}");
}

#[tokio::test]
async fn arguments_nested_too_deep_are_refused() {
    // 120 levels: as deep as `serde_json` parses from text (128), past the invoker's 64.
    let text = format!("{}1{}", "[".repeat(120), "]".repeat(120));
    let payload: Value = serde_json::from_str(&text).unwrap();
    let args = json!({ "lines": [line()], "payload": payload });
    let (result, took) = place(args).await;
    let message = refused("120 levels", 0, &result, took);
    assert_eq!(
        message,
        "Invalid arguments: `/payload/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0`: is nested deeper than 64 levels."
    );
}

#[tokio::test]
async fn arguments_with_too_many_values_are_refused() {
    let payload = Value::Array(vec![json!(1); 200_000]);
    let args = json!({ "lines": [line()], "payload": payload });
    let request = args.to_string().len();
    let (result, took) = place(args).await;
    let message = refused("200,000 values", request, &result, took);
    assert_eq!(
        message,
        "Invalid arguments: `/`: holds more than 100000 values; send less at a time."
    );
}
