//! The adopting crate's tools work end to end through the registry.

use serde_json::json;
use toolspec::AmbientContext;

#[tokio::test]
async fn tools_run_through_the_registry() {
    let registry = toolspec_test_adopter::registry(1);
    assert_eq!(
        registry.tools().map(|t| t.name()).collect::<Vec<_>>(),
        ["explain", "math_add", "notes_create", "notes_delete"]
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

#[tokio::test]
async fn a_guard_fails_with_a_declared_code_and_hands_what_it_loaded_to_the_handler() {
    let registry = toolspec_test_adopter::registry(2);
    let (ada, bob) = (
        AmbientContext::from([("user", "ada")]),
        AmbientContext::from([("user", "bob")]),
    );
    let create = registry.get("notes_create").unwrap();
    create.invoke(json!({ "text": "ada's" }), &ada).await;
    create.invoke(json!({ "text": "bob's" }), &bob).await;

    let delete = registry.get("notes_delete").unwrap();
    let not_found = json!({ "error": "not_found", "message": "No such note." });
    // Someone else's note and a note that does not exist answer alike.
    let others = delete.invoke(json!({ "id": 2 }), &ada).await;
    assert_eq!(others.to_model_json(), not_found);
    let missing = delete.invoke(json!({ "id": 9 }), &ada).await;
    assert_eq!(missing.to_model_json(), not_found);
    // The handler deletes the note the guard found.
    let deleted = delete.invoke(json!({ "id": 1 }), &ada).await;
    assert_eq!(deleted.to_model_json(), json!({ "text": "ada's" }));
    let again = delete.invoke(json!({ "id": 1 }), &ada).await;
    assert_eq!(again.to_model_json(), not_found);
    let bobs = delete.invoke(json!({ "id": 2 }), &bob).await;
    assert_eq!(bobs.to_model_json(), json!({ "text": "bob's" }));
}

#[test]
fn descriptors_are_complete() {
    let create = &toolspec_test_adopter::tools::notes::create::DESCRIPTOR;
    assert_eq!(
        create.description,
        "Write a note for the current user.\nPreconditions: The notebook must have room.\nErrors: not_full."
    );
    assert_eq!(create.message.as_deref(), Some("Note {{ id }} saved."));
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
