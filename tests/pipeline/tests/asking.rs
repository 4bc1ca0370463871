//! What a tool asks its user (`ask`, `confirm`) through the registry: a missing field asked
//! with its own schema, the answer validated like any argument and holding only what was asked,
//! a confirmation only when its condition holds, explain saying what would be asked, and a
//! continuation's state bound to its call.

use serde_json::{Value, json};
use toolspec::tasks::{Accept, Submitted};
use toolspec::user_input::{Continuation, InputRequired, InputResponse};
use toolspec::{AmbientContext, CallOptions, Registry, ToolResult};
use toolspec_test_pipeline::App;

/// Calls `jobs_schedule` through `registry` (whose key seals the states) with `args`,
/// continuing with `continuation`.
async fn schedule(
    registry: &Registry,
    args: Value,
    continuation: Option<Continuation>,
) -> Submitted {
    let tool = registry.get("jobs_schedule").expect("registered");
    let options = CallOptions {
        continuation,
        ..CallOptions::default()
    };
    tool.submit_with(args, &AmbientContext::new(), options, Accept::ResultsOnly)
        .await
}

fn asked(submitted: Submitted) -> InputRequired {
    match submitted {
        Submitted::Input(asked) => asked,
        other => panic!("not asked: {other:?}"),
    }
}

fn done(submitted: Submitted) -> ToolResult {
    match submitted {
        Submitted::Done(result) => result,
        other => panic!("not done: {other:?}"),
    }
}

/// The answer `content` to the form `key` of `asked`.
fn answer(asked: &InputRequired, key: &str, content: Value) -> Continuation {
    let Value::Object(content) = content else {
        panic!("an object")
    };
    let mut continuation = Continuation::confirm(asked.request_state.clone());
    continuation.responses.clear();
    continuation
        .responses
        .insert(key.into(), InputResponse::Accept(content));
    continuation
}

#[tokio::test]
async fn a_missing_field_is_asked_with_its_own_schema_and_its_answer_checked_like_an_argument() {
    let app = App::default();
    let registry = app.registry();
    let tool = registry.get("jobs_schedule").unwrap();
    // The model sees the asked fields as optional.
    let schema: Value = serde_json::from_str(&tool.descriptor().input_schema).unwrap();
    assert_eq!(schema["required"], json!(["name"]));

    let sizing = asked(schedule(&registry, json!({"name": "backup"}), None).await);
    assert_eq!(sizing.requests.len(), 1);
    assert_eq!(sizing.requests[0].key, "sizing");
    assert_eq!(
        sizing.requests[0].message,
        "How many workers, and is it urgent?"
    );
    assert_eq!(
        sizing.requests[0].schema,
        json!({
            "type": "object",
            "properties": {
                "workers": {
                    "type": "integer", "minimum": 1, "maximum": 8,
                    "description": "How many workers run it."
                },
                "urgent": { "type": "boolean" }
            },
            "required": ["workers", "urgent"]
        })
    );

    // An answer out of the field's range is refused where an argument would be.
    let wrong = answer(&sizing, "sizing", json!({"workers": 20, "urgent": false}));
    let refused = done(schedule(&registry, json!({"name": "backup"}), Some(wrong)).await);
    let error = refused.error().expect("refused");
    assert_eq!(error.code, "invalid_arguments");
    assert_eq!(
        error.details.as_ref().unwrap()["errors"][0]["field"],
        "/workers"
    );

    // A fitting answer runs it (two workers: no confirmation).
    let sizing = asked(schedule(&registry, json!({"name": "backup"}), None).await);
    let fits = answer(&sizing, "sizing", json!({"workers": 2, "urgent": true}));
    let ran = done(schedule(&registry, json!({"name": "backup"}), Some(fits)).await);
    assert_eq!(
        ran.value().unwrap()["scheduled"],
        "backup on 2 workers, urgently"
    );

    // Answered without a state: a form's fields are arguments like any other.
    let unsealed = Continuation {
        request_state: None,
        responses: answer(&sizing, "sizing", json!({"workers": 3, "urgent": false})).responses,
    };
    let ran = done(schedule(&registry, json!({"name": "nightly"}), Some(unsealed)).await);
    assert_eq!(ran.value().unwrap()["scheduled"], "nightly on 3 workers");
}

#[tokio::test]
async fn an_answer_holds_only_what_was_asked() {
    let registry = App::default().registry();
    // A form's answer may not set what the form does not ask (here, another argument).
    let sizing = asked(schedule(&registry, json!({"name": "backup"}), None).await);
    let more = answer(
        &sizing,
        "sizing",
        json!({"workers": 2, "urgent": false, "name": "other"}),
    );
    let refused = done(schedule(&registry, json!({"name": "backup"}), Some(more)).await);
    let error = refused.error().expect("refused");
    assert_eq!(error.code, "invalid_arguments");
    assert_eq!(
        error.message,
        "Invalid arguments: `/responses/sizing/content/name`: it is not a field of the form \
         `sizing`."
    );
    // A confirmation's answer holds nothing.
    let args = json!({"name": "big", "workers": 6, "urgent": true});
    let confirm = asked(schedule(&registry, args.clone(), None).await);
    let mut stuffed = Continuation::confirm(confirm.request_state.clone());
    let padding = json!({ "note": "x".repeat(100_000) });
    let Value::Object(padding) = padding else {
        unreachable!()
    };
    stuffed
        .responses
        .insert("confirm".into(), InputResponse::Accept(padding));
    let refused = done(schedule(&registry, args, Some(stuffed)).await);
    let error = refused.error().expect("refused");
    assert_eq!(
        error.message,
        "Invalid arguments: `/responses/confirm/content/note`: a confirmation's answer holds \
         nothing."
    );
}

#[tokio::test]
async fn the_confirmation_is_asked_when_its_condition_holds_after_the_forms() {
    let registry = App::default().registry();
    // Round 1: the form. Round 2: six workers need a confirmation, with the answers carried.
    let sizing = asked(schedule(&registry, json!({"name": "rebuild"}), None).await);
    let six = answer(&sizing, "sizing", json!({"workers": 6, "urgent": false}));
    let confirm = asked(schedule(&registry, json!({"name": "rebuild"}), Some(six)).await);
    assert!(confirm.requests[0].is_confirmation());
    assert_eq!(
        confirm.requests[0].message,
        "Schedule rebuild on 6 workers?"
    );
    assert_ne!(confirm.request_state, sizing.request_state);
    // Round 3: confirmed, it runs with what round 1 answered.
    let yes = Continuation::confirm(confirm.request_state.clone());
    let ran = done(schedule(&registry, json!({"name": "rebuild"}), Some(yes)).await);
    assert_eq!(ran.value().unwrap()["scheduled"], "rebuild on 6 workers");

    // Sent by the model as arguments, six workers are asked about too; a confirmation without
    // the state of the round that asked it does not count.
    let args = json!({"name": "big", "workers": 6, "urgent": true});
    let confirm = asked(schedule(&registry, args.clone(), None).await);
    let mut unsealed = Continuation::confirm(String::new());
    unsealed.request_state = None;
    asked(schedule(&registry, args.clone(), Some(unsealed)).await);
    // A declined confirmation does nothing; its state is then spent.
    let mut no = Continuation::confirm(confirm.request_state.clone());
    no.responses
        .insert("confirm".into(), InputResponse::Decline);
    let declined = done(schedule(&registry, args.clone(), Some(no)).await);
    assert_eq!(declined.error().unwrap().code, "declined");
    let again = done(
        schedule(
            &registry,
            args,
            Some(Continuation::confirm(confirm.request_state)),
        )
        .await,
    );
    assert_eq!(again.error().unwrap().code, "invalid_request_state");
}

#[tokio::test]
async fn explain_says_what_a_call_would_ask() {
    let app = App::default();
    let registry = app.registry();
    let explain = async |args: Value| {
        let explained = registry
            .explain("jobs_schedule", args, &AmbientContext::new())
            .await
            .unwrap();
        serde_json::to_value(explained).unwrap()
    };
    let missing = explain(json!({"name": "x"})).await;
    assert_eq!(
        missing["ask"],
        json!([{
            "form": "sizing",
            "message": "How many workers, and is it urgent?",
            "fields": ["workers", "urgent"]
        }])
    );
    assert!(missing.get("confirm").is_none());
    let big = explain(json!({"name": "x", "workers": 5, "urgent": false})).await;
    assert_eq!(big["callable"], true);
    assert_eq!(big["confirm"], "Schedule x on 5 workers?");
    let small = explain(json!({"name": "x", "workers": 1, "urgent": false})).await;
    assert!(small.get("confirm").is_none(), "{small}");
    assert!(small.get("ask").is_none(), "{small}");
}
