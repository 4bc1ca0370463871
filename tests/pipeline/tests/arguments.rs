//! The argument half of the invoker: the model's `ambient_context` stripped, undeclared keys,
//! coercions, validation errors (all of them, by JSON pointer), and the trusted ambient context.

use std::sync::atomic::Ordering;

use serde_json::{Value, json};
use toolspec::{AmbientContext, ToolResult};
use toolspec_test_pipeline::App;

fn alice() -> AmbientContext {
    AmbientContext::from([("user_id", "alice")])
}

async fn call(tool: &str, args: Value) -> ToolResult {
    App::new()
        .registry()
        .invoke(tool, args, &alice())
        .await
        .expect("a tool of the registry")
}

/// The user-facing message of an `invalid_arguments` failure, checking the rest of the shape.
fn invalid(result: &ToolResult) -> &str {
    let error = result
        .error()
        .unwrap_or_else(|| panic!("expected invalid_arguments, got {:?}", result.outcome));
    assert_eq!(error.code, "invalid_arguments", "{result:?}");
    assert_eq!(result.message, error.message);
    assert_eq!(
        result.exception, None,
        "argument errors are the model's, not the developer's"
    );
    &error.message
}

fn coerce_base() -> Value {
    json!({
        "id": "67e55044-10b1-426f-9247-bb680e5fe0c8",
        "day": "2026-01-02",
        "at": "2026-01-02T03:04:05Z",
        "price": "9.99",
        "lines": [{ "sku": "ABC-1", "quantity": 1 }]
    })
}

/// Calls `kinds_coerce` with `key` set to `value` and returns what the handler received for it
/// (the typed input serialized back).
async fn coerced(key: &str, value: Value) -> Value {
    let mut args = coerce_base();
    args[key] = value;
    let result = call("kinds_coerce", args).await;
    assert!(result.is_ok(), "{key}: {result:?}");
    result.to_model_json()["echo"][key].clone()
}

#[tokio::test]
async fn a_model_cannot_set_the_ambient_context() {
    let result = call(
        "profile_update",
        json!({ "age": 30, "score": 1.5, "active": true, "ambient_context": { "user_id": "mallory" } }),
    )
    .await;
    assert_eq!(
        result.to_model_json(),
        json!({ "user_id": "alice", "age": 30, "score": 1.5, "active": true, "plan": "free", "nickname": null })
    );

    // Not as an argument of its own name either: ambient fields are not arguments.
    let result = call(
        "profile_update",
        json!({ "age": 30, "score": 1.5, "active": true, "user_id": "mallory" }),
    )
    .await;
    assert_eq!(
        invalid(&result),
        "Invalid arguments: `/user_id`: is not an argument of this tool (expected: age, score, active, plan, nickname)."
    );

    // An optional ambient field the adapter did not supply stays absent, whatever the model says.
    let registry = App::new().registry();
    let purge = registry.get("admin_purge").expect("admin_purge");
    let result = purge
        .invoke(
            json!({ "ambient_context": { "tenant": "evil" } }),
            &AmbientContext::new(),
        )
        .await;
    assert_eq!(
        result.to_model_json(),
        json!({ "purged": "mine", "tenant": null })
    );
    let result = purge
        .invoke(
            json!({ "scope": "all", "ambient_context": { "tenant": "evil" } }),
            &AmbientContext::from([("tenant", "acme")]),
        )
        .await;
    assert_eq!(
        result.to_model_json(),
        json!({ "purged": "all", "tenant": "acme" })
    );
}

#[tokio::test]
async fn ambient_fields_come_from_declared_keys_only() {
    let registry = App::new().registry();
    let args = json!({ "age": 1, "score": 0, "active": false });
    // A symbol-like key resolves too; keys no tool declares never matter.
    let ambient = AmbientContext::from([(":user_id", "bob"), ("role", "admin")]);
    let result = registry
        .invoke("profile_update", args, &ambient)
        .await
        .expect("tool");
    assert_eq!(result.value().expect("ok")["user_id"], "bob");
}

#[tokio::test]
async fn a_missing_ambient_field_is_a_developer_error() {
    let app = App::new();
    let registry = app.registry();
    let args = json!({ "age": 1, "score": 0, "active": false });

    let result = registry
        .invoke("profile_update", args.clone(), &AmbientContext::new())
        .await
        .expect("tool");
    assert_eq!(
        result.to_model_json(),
        json!({ "error": "internal_error", "message": "The tool failed unexpectedly." })
    );
    assert_eq!(result.message, "The tool failed unexpectedly.");
    assert_eq!(
        result.exception.as_deref(),
        Some("the adapter supplied no ambient `user_id`, which `profile_update` requires")
    );

    let result = registry
        .invoke(
            "profile_update",
            args,
            &AmbientContext::from([("user_id", 42)]),
        )
        .await
        .expect("tool");
    assert_eq!(
        result.to_model_json(),
        json!({ "error": "internal_error", "message": "The tool failed unexpectedly." })
    );
    assert_eq!(
        result.exception.as_deref(),
        Some(
            "the ambient context of `profile_update` does not resolve: invalid type: integer `42`, expected a string"
        )
    );
    assert_eq!(
        app.probe.profile_calls.load(Ordering::SeqCst),
        0,
        "the handler never ran"
    );
}

#[tokio::test]
async fn undeclared_keys_are_rejected_by_name() {
    let result = call(
        "profile_update",
        json!({ "age": 30, "score": 1.5, "active": true, "zzz": 1, "colour": "red" }),
    )
    .await;
    assert_eq!(
        invalid(&result),
        "Invalid arguments: \
         `/colour`: is not an argument of this tool (expected: age, score, active, plan, nickname); \
         `/zzz`: is not an argument of this tool (expected: age, score, active, plan, nickname)."
    );
    assert_eq!(
        result.to_model_json()["details"],
        json!({ "errors": [
            { "field": "/colour", "message": "is not an argument of this tool (expected: age, score, active, plan, nickname)" },
            { "field": "/zzz", "message": "is not an argument of this tool (expected: age, score, active, plan, nickname)" }
        ]})
    );

    // A tool without arguments says so.
    let result = call("admin_purge", json!({ "scope": "all", "force": true })).await;
    assert_eq!(
        invalid(&result),
        "Invalid arguments: `/force`: is not an argument of this tool (expected: scope)."
    );

    // Keys are JSON pointer tokens: `/` and `~` are escaped (RFC 6901).
    let result = call(
        "profile_update",
        json!({ "age": 1, "score": 1, "active": true, "a/b~c": 1 }),
    )
    .await;
    assert_eq!(
        invalid(&result),
        "Invalid arguments: `/a~1b~0c`: is not an argument of this tool (expected: age, score, active, plan, nickname)."
    );

    // Below the top level, each key an object's `additionalProperties: false` refuses is
    // named by its own pointer.
    let mut args = coerce_base();
    args["lines"][0]["colour"] = json!("red");
    let result = call("kinds_coerce", args).await;
    assert_eq!(
        invalid(&result),
        "Invalid arguments: `/lines/0/colour`: is not a field of this object (expected: sku, quantity, unit_price)."
    );
}

#[tokio::test]
async fn undeclared_keys_are_dropped_under_the_drop_policy() {
    let app = App::new();
    let registry = app.drop_registry();
    assert!(registry.project().drop_undeclared_keys);
    assert!(!app.registry().project().drop_undeclared_keys);
    let result = registry
        .invoke(
            "echo",
            json!({ "text": "hi", "loud": "true", "volume": 11, "ambient_context": { "x": 1 } }),
            &alice(),
        )
        .await
        .expect("tool");
    assert_eq!(result.to_model_json(), json!({ "text": "HI" }));
    assert_eq!(result.message, "echo succeeded.");

    let explanation = registry
        .explain("echo", json!({ "text": "hi", "volume": 11 }), &alice())
        .await
        .expect("tool");
    assert!(explanation.callable);
    assert_eq!(explanation.errors, []);

    // Dropping is not validating: what is left must still fit.
    let result = registry
        .invoke("echo", json!({ "volume": 11 }), &alice())
        .await
        .expect("tool");
    assert_eq!(invalid(&result), "Invalid arguments: `/text` is required.");
}

#[tokio::test]
async fn numeric_and_boolean_strings_are_coerced() {
    let result = call(
        "profile_update",
        json!({ "age": "42", "score": "2.5", "active": "true", "nickname": 5 }),
    )
    .await;
    assert_eq!(
        result.to_model_json(),
        json!({ "user_id": "alice", "age": 42, "score": 2.5, "active": true, "plan": "free", "nickname": "5" })
    );
    let result = call(
        "profile_update",
        json!({ "age": "3.0", "score": "-1e3", "active": "false" }),
    )
    .await;
    assert_eq!(
        result.to_model_json(),
        json!({ "user_id": "alice", "age": 3, "score": -1000.0, "active": false, "plan": "free", "nickname": null })
    );

    assert_eq!(coerced("count", json!("-7")).await, json!(-7));
    assert_eq!(coerced("ratio", json!("0.25")).await, json!(0.25));
    assert_eq!(coerced("flag", json!("false")).await, json!(false));
    assert_eq!(coerced("label", json!(12.5)).await, json!("12.5"));
    assert_eq!(coerced("price", json!(9.99)).await, json!("9.99"));
    assert_eq!(coerced("price", json!(12)).await, json!("12"));
    assert_eq!(coerced("tags", json!([1, "b"])).await, json!(["1", "b"]));
    assert_eq!(
        coerced(
            "lines",
            json!([{ "sku": "ABC", "quantity": "3", "unit_price": 1.5 }])
        )
        .await,
        json!([{ "sku": "ABC", "quantity": 3, "unit_price": "1.5" }])
    );
    assert_eq!(
        coerced(
            "address",
            json!({ "street": "Main St", "zip": 12345, "geo": { "lat": "52.5", "lng": "-13" } })
        )
        .await,
        json!({ "street": "Main St", "zip": "12345", "geo": { "lat": 52.5, "lng": -13.0 } })
    );
}

#[tokio::test]
async fn integral_numbers_are_integers() {
    // JSON Schema counts 3.0 as an integer, so the invoker must accept it for an `i64`.
    assert_eq!(coerced("count", json!(3.0)).await, json!(3));
    assert_eq!(coerced("count", json!(-0.0)).await, json!(0));
    let result = call(
        "profile_update",
        json!({ "age": 1e2, "score": 1, "active": true }),
    )
    .await;
    assert_eq!(result.value().expect("ok")["age"], json!(100));
}

#[tokio::test]
async fn uuids_in_any_common_form_are_coerced() {
    let canonical = json!("67e55044-10b1-426f-9247-bb680e5fe0c8");
    for form in [
        "67e55044-10b1-426f-9247-bb680e5fe0c8",
        "67E55044-10B1-426F-9247-BB680E5FE0C8",
        "{67e55044-10b1-426f-9247-bb680e5fe0c8}",
        "urn:uuid:67e55044-10b1-426f-9247-bb680e5fe0c8",
        "67e5504410b1426f9247bb680e5fe0c8",
    ] {
        assert_eq!(coerced("id", json!(form)).await, canonical, "{form}");
    }
}

#[tokio::test]
async fn datetimes_with_a_space_or_a_lower_case_z_are_coerced() {
    assert_eq!(
        coerced("at", json!("2026-01-02 03:04:05Z")).await,
        json!("2026-01-02T03:04:05Z")
    );
    assert_eq!(
        coerced("at", json!("2026-01-02 03:04:05z")).await,
        json!("2026-01-02T03:04:05Z")
    );
    assert_eq!(
        coerced("at", json!("2026-01-02 03:04:05.5+02:00")).await,
        json!("2026-01-02T03:04:05.500+02:00")
    );
    assert_eq!(
        coerced("when", json!("2026-01-02 03:04:05-01:30")).await,
        json!("2026-01-02T03:04:05-01:30")
    );
    assert_eq!(coerced("when", Value::Null).await, Value::Null);
    assert_eq!(
        coerced("day", json!("2024-02-29")).await,
        json!("2024-02-29")
    );
}

#[tokio::test]
async fn other_values_are_not_coerced() {
    let result = call(
        "profile_update",
        json!({ "age": "4.5", "score": 1, "active": true }),
    )
    .await;
    assert_eq!(
        invalid(&result),
        "Invalid arguments: `/age`: \"4.5\" is not of type \"integer\"."
    );
    let result = call(
        "profile_update",
        json!({ "age": 4.5, "score": "NaN", "active": "yes" }),
    )
    .await;
    assert_eq!(
        invalid(&result),
        "Invalid arguments: `/active`: \"yes\" is not of type \"boolean\"; \
         `/age`: 4.5 is not of type \"integer\"; `/score`: \"NaN\" is not of type \"number\"."
    );
    let result = call(
        "profile_update",
        json!({ "age": 1, "score": "1e400", "active": "True" }),
    )
    .await;
    assert_eq!(
        invalid(&result),
        "Invalid arguments: `/active`: \"True\" is not of type \"boolean\"; `/score`: \"1e400\" is not of type \"number\"."
    );
    let result = call(
        "profile_update",
        json!({ "age": true, "score": [1], "active": 1 }),
    )
    .await;
    assert_eq!(
        invalid(&result),
        "Invalid arguments: `/active`: 1 is not of type \"boolean\"; `/age`: true is not of type \"integer\"; \
         `/score`: [1] is not of type \"number\"."
    );

    let mut args = coerce_base();
    args["id"] = json!("67e55044-10b1-426f-9247");
    args["at"] = json!("2026-01-02 03:04:05");
    args["day"] = json!("02.01.2026");
    args["flag"] = json!(1);
    let result = call("kinds_coerce", args).await;
    assert_eq!(
        invalid(&result),
        "Invalid arguments: `/at`: \"2026-01-02T03:04:05\" is not a \"date-time\"; \
         `/day`: \"02.01.2026\" is not a \"date\"; `/flag`: 1 is not of type \"boolean\"; \
         `/id`: \"67e55044-10b1-426f-9247\" is not a \"uuid\"."
    );
}

#[tokio::test]
async fn every_validation_error_is_listed_by_json_pointer() {
    let result = call(
        "profile_update",
        json!({ "age": 200, "score": "x", "active": "yes", "plan": "gold", "nickname": "a nickname too long" }),
    )
    .await;
    assert_eq!(
        invalid(&result),
        "Invalid arguments: `/active`: \"yes\" is not of type \"boolean\"; `/age`: 200 is greater than the maximum of 150; \
         `/nickname`: \"a nickname too long\" is longer than 12 characters; \
         `/plan`: \"gold\" is not one of \"free\", \"pro\" or \"team\"; `/score`: \"x\" is not of type \"number\"."
    );
    assert_eq!(
        result.to_model_json(),
        json!({
            "error": "invalid_arguments",
            "message": result.message,
            "details": { "errors": [
                { "field": "/active", "message": "\"yes\" is not of type \"boolean\"" },
                { "field": "/age", "message": "200 is greater than the maximum of 150" },
                { "field": "/nickname", "message": "\"a nickname too long\" is longer than 12 characters" },
                { "field": "/plan", "message": "\"gold\" is not one of \"free\", \"pro\" or \"team\"" },
                { "field": "/score", "message": "\"x\" is not of type \"number\"" }
            ]}
        })
    );
}

#[tokio::test]
async fn missing_required_fields_are_listed() {
    let result = call("profile_update", json!({ "score": 1 })).await;
    assert_eq!(
        invalid(&result),
        "Invalid arguments: `/active` is required; `/age` is required."
    );
    // No arguments at all (`null`) is an empty object.
    let result = call("profile_update", Value::Null).await;
    assert_eq!(
        invalid(&result),
        "Invalid arguments: `/active` is required; `/age` is required; `/score` is required."
    );
    let result = call("profile_update", json!([1, 2])).await;
    assert_eq!(
        invalid(&result),
        "Invalid arguments: `/`: arguments must be a JSON object, not a list."
    );
    let result = call("profile_update", json!("age=3")).await;
    assert_eq!(
        invalid(&result),
        "Invalid arguments: `/`: arguments must be a JSON object, not a string."
    );
}

#[tokio::test]
async fn nested_fields_are_named_by_their_full_pointer() {
    let result = call(
        "kinds_coerce",
        json!({
            "id": "67e55044-10b1-426f-9247-bb680e5fe0c8",
            "day": "2026-02-30",
            "at": "2026-01-02T03:04:05+01:00",
            "price": "1,5",
            "lines": [{ "sku": "ABC", "quantity": 1 }, { "sku": "AB", "quantity": 0 }],
            "address": { "zip": "1", "geo": { "lat": 91, "lng": "east" } },
            "tags": ["ok", "much too long"]
        }),
    )
    .await;
    assert_eq!(
        invalid(&result),
        "Invalid arguments: `/address/geo/lat`: 91 is greater than the maximum of 90; \
         `/address/geo/lng`: \"east\" is not of type \"number\"; `/address/street` is required; \
         `/address/zip`: \"1\" does not match \"^[0-9]{5}$\"; `/day`: \"2026-02-30\" is not a \"date\"; \
         `/lines/1/quantity`: 0 is less than the minimum of 1; `/lines/1/sku`: \"AB\" is shorter than 3 characters; \
         `/price`: \"1,5\" does not match \"^-?[0-9]{1,28}(\\.[0-9]+)?$\"; \
         `/tags/1`: \"much too long\" is longer than 8 characters."
    );
    let result = call(
        "kinds_coerce",
        json!({ "id": "67e55044-10b1-426f-9247-bb680e5fe0c8", "lines": [] }),
    )
    .await;
    assert_eq!(
        invalid(&result),
        "Invalid arguments: `/at` is required; `/day` is required; `/lines`: [] has less than 1 item; `/price` is required."
    );
}

#[tokio::test]
async fn typed_values_reach_the_handler() {
    let mut args = coerce_base();
    args["when"] = json!("2026-06-01T12:00:00.250-07:00");
    args["color"] = json!("green");
    args["price"] = json!("-0.50");
    let result = call("kinds_coerce", args).await;
    assert_eq!(result.message, "kinds_coerce succeeded.");
    assert_eq!(
        result.to_model_json(),
        json!({ "echo": {
            "id": "67e55044-10b1-426f-9247-bb680e5fe0c8",
            "day": "2026-01-02",
            "at": "2026-01-02T03:04:05Z",
            "price": "-0.50",
            "color": "green",
            "when": "2026-06-01T12:00:00.250-07:00",
            "lines": [{ "sku": "ABC-1", "quantity": 1 }]
        }})
    );
}

/// Known gap: undeclared keys are reported alone; the other errors of the same call only show
/// up on the model's next attempt.
#[tokio::test]

async fn undeclared_keys_are_listed_with_the_other_errors() {
    let result = call("orders_cancel", json!({ "order_id": 0, "x": 1 })).await;
    assert_eq!(
        invalid(&result),
        "Invalid arguments: `/order_id`: 0 is less than the minimum of 1; \
         `/x`: is not an argument of this tool (expected: order_id, reason)."
    );
}

#[tokio::test]
async fn values_the_typed_input_refuses_are_named_by_their_pointer() {
    // `quantity` is published as an integer but decoded as a `u8` (`rust_type`): valid under
    // the schema, refused by the type, and named by its full pointer.
    let result = call(
        "kinds_narrow",
        json!({ "lines": [{ "sku": "a", "quantity": 1 }, { "sku": "b", "quantity": 300 }] }),
    )
    .await;
    assert_eq!(
        invalid(&result),
        "Invalid arguments: `/lines/1/quantity`: invalid value: integer `300`, expected u8."
    );
    assert_eq!(
        result.error().and_then(|e| e.details.clone()),
        Some(json!({ "errors": [{
            "field": "/lines/1/quantity",
            "message": "invalid value: integer `300`, expected u8"
        }] }))
    );
    let result = call(
        "kinds_narrow",
        json!({ "lines": [{ "sku": "a", "quantity": 255 }] }),
    )
    .await;
    assert_eq!(result.to_model_json(), json!({ "total": 255 }));
}

#[tokio::test]
async fn a_rust_type_keeps_its_own_integer_range() {
    // A `u64` count takes what a u64 holds, past i64's end, in arguments and in the output.
    let result = call("kinds_wide", json!({ "count": u64::MAX })).await;
    assert_eq!(result.to_model_json(), json!({ "count": u64::MAX }));
    // What it cannot hold, decoding refuses by name; an `i64` beside it keeps i64's range.
    let negative = call("kinds_wide", json!({ "count": -1 })).await;
    assert!(
        invalid(&negative).starts_with("Invalid arguments: `/count`: "),
        "{negative:?}"
    );
    let past = call("kinds_wide", json!({ "count": 1, "small": u64::MAX })).await;
    assert_eq!(
        invalid(&past),
        "Invalid arguments: `/small`: 18446744073709551615 is outside the integer range, \
         -9223372036854775808 to 9223372036854775807."
    );
}
