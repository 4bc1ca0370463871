//! The adopting crate's tools work end to end through the registry.

use serde_json::json;
use toolspec::AmbientContext;

#[tokio::test]
async fn tools_run_through_the_registry() {
    let registry = toolspec_test_adopter::registry(1);
    assert_eq!(
        registry.tools().map(|t| t.name()).collect::<Vec<_>>(),
        ["explain", "math_add", "notes_create"]
    );

    let add = registry.get("math_add").unwrap();
    let result = add.invoke(json!({ "a": 2 }), &AmbientContext::new()).await;
    assert_eq!(result.to_model_json(), json!({ "sum": 2 }));
    let overflow = add
        .invoke(json!({ "a": i64::MAX, "b": 1 }), &AmbientContext::new())
        .await;
    assert_eq!(
        overflow.to_model_json(),
        json!({ "error": "overflow", "message": "Could not add: The sum does not fit in 64 bits." })
    );

    let create = registry.get("notes_create").unwrap();
    let ambient = AmbientContext::from([("user", "ada")]);
    let first = create.invoke(json!({ "text": "hello" }), &ambient).await;
    assert_eq!(first.to_model_json(), json!({ "id": 1, "author": "ada" }));
    let full = create.invoke(json!({ "text": "again" }), &ambient).await;
    assert_eq!(
        full.to_model_json(),
        json!({ "error": "not_full", "message": "The notebook must have room." })
    );
}

#[test]
fn descriptors_are_complete() {
    let create = toolspec_test_adopter::tools::notes::create::DESCRIPTOR;
    assert_eq!(
        create.description,
        "Write a note for the current user.\nPreconditions: The notebook must have room.\nErrors: not_full."
    );
    assert_eq!(create.message, Some("Note {{ id }} saved."));
    assert_eq!(
        create.input_schema_json(),
        json!({
            "type": "object",
            "properties": {
                "text": { "type": "string", "minLength": 1, "maxLength": 200 },
                "pinned": { "type": "boolean", "default": false }
            },
            "required": ["text"],
            "additionalProperties": false
        })
    );
}

#[test]
fn a_missing_handler_does_not_compile() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
