//! The outcome half of the invoker: guards, declared errors (headline, standalone), internal
//! errors and panics kept from the model, timeouts, cancellation, progress, success messages.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use toolspec::{
    AmbientContext, CallOptions, CancellationToken, Progress, ProgressUpdate, ToolResult,
    UnknownTool,
};
use toolspec_test_pipeline::App;

async fn call(app: &App, tool: &str, args: Value) -> ToolResult {
    app.registry()
        .invoke(tool, args, &AmbientContext::new())
        .await
        .expect("a tool of the registry")
}

/// Asserts a failure: what the model sees, the message, and the developer-only exception.
fn assert_failed(result: &ToolResult, model: Value, exception: Option<&str>) {
    assert_eq!(result.to_model_json(), model);
    assert_eq!(result.message, model["message"]);
    assert_eq!(result.exception.as_deref(), exception);
}

#[tokio::test]
async fn a_failing_guard_fails_the_call_with_its_name_and_description() {
    let app = App::new();
    let result = call(&app, "orders_cancel", json!({ "order_id": 13 })).await;
    assert_failed(
        &result,
        json!({ "error": "not_locked", "message": "Could not cancel the order: The order must not be locked." }),
        None,
    );
    // The first failing guard decides; later guards do not run.
    assert_eq!(app.probe.guard_calls.load(Ordering::SeqCst), 1);

    let result = call(&app, "orders_cancel", json!({ "order_id": 14 })).await;
    assert_failed(
        &result,
        json!({ "error": "in_business_hours", "message": "Could not cancel the order: Cancellations happen in business hours." }),
        None,
    );
    assert_eq!(app.probe.guard_calls.load(Ordering::SeqCst), 3);
    assert_eq!(
        app.probe.cancel_calls.load(Ordering::SeqCst),
        0,
        "the handler never ran"
    );
}

#[tokio::test]
async fn guards_run_after_validation() {
    let app = App::new();
    let result = call(&app, "orders_cancel", json!({ "order_id": 0 })).await;
    assert_eq!(
        result.message,
        "Invalid arguments: `/order_id`: 0 is less than the minimum of 1."
    );
    assert_eq!(app.probe.guard_calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_panicking_guard_is_an_internal_error() {
    let app = App::new();
    let result = call(&app, "orders_cancel", json!({ "order_id": 66 })).await;
    assert_failed(
        &result,
        json!({ "error": "internal_error", "message": "Could not cancel the order" }),
        Some("guard `not_locked` panicked: the lock table is gone"),
    );
}

#[tokio::test]
async fn declared_errors_compose_with_the_headline() {
    let app = App::new();
    let result = call(&app, "orders_cancel", json!({ "order_id": 3 })).await;
    assert_failed(
        &result,
        json!({ "error": "already_shipped", "message": "Could not cancel the order: The order has already shipped." }),
        None,
    );
    // With details.
    let result = call(&app, "orders_cancel", json!({ "order_id": 2 })).await;
    assert_failed(
        &result,
        json!({
            "error": "already_shipped",
            "message": "Could not cancel the order: The order has already shipped.",
            "details": { "shipped_on": "2026-03-01" }
        }),
        None,
    );
}

#[tokio::test]
async fn standalone_errors_stand_alone() {
    let result = call(&App::new(), "orders_cancel", json!({ "order_id": 404 })).await;
    assert_failed(
        &result,
        json!({ "error": "not_found", "message": "No such order." }),
        None,
    );
}

#[tokio::test]
async fn internal_errors_show_the_headline_and_hide_the_cause() {
    let app = App::new();
    let result = call(&app, "orders_cancel", json!({ "order_id": 500 })).await;
    assert_failed(
        &result,
        json!({ "error": "internal_error", "message": "Could not cancel the order" }),
        Some("connection refused: db.internal:5432"),
    );
    // `?` on any error is internal too.
    let result = call(&app, "jobs_crash_loudly", json!({ "mode": "internal" })).await;
    assert_failed(
        &result,
        json!({ "error": "internal_error", "message": "The crash did not go to plan" }),
        Some("EACCES on /etc/secret"),
    );
}

#[tokio::test]
async fn internal_errors_without_a_headline_show_a_generic_sentence() {
    let app = App::new();
    let result = call(&app, "jobs_crash", json!({ "mode": "internal" })).await;
    assert_failed(
        &result,
        json!({ "error": "internal_error", "message": "The tool failed unexpectedly." }),
        Some("secret: /var/lib/app is full"),
    );
    // An output that breaks the output schema is the handler's bug, not the model's.
    let result = call(&app, "jobs_crash", json!({ "mode": "bad_output" })).await;
    assert_failed(
        &result,
        json!({ "error": "internal_error", "message": "The tool failed unexpectedly." }),
        Some(
            "the output does not match the output schema: `/code`: -1 is less than the minimum of 0",
        ),
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_is_survived() {
    let app = App::new();
    let registry = Arc::new(app.registry());
    let result = registry
        .invoke(
            "jobs_crash",
            json!({ "mode": "panic" }),
            &AmbientContext::new(),
        )
        .await
        .expect("tool");
    assert_failed(
        &result,
        json!({ "error": "internal_error", "message": "The tool failed unexpectedly." }),
        Some("the handler panicked: index out of bounds: the len is 0 but the index is 7"),
    );
    let result = registry
        .invoke(
            "jobs_crash_loudly",
            json!({ "mode": "panic" }),
            &AmbientContext::new(),
        )
        .await
        .expect("tool");
    assert_failed(
        &result,
        json!({ "error": "internal_error", "message": "The crash did not go to plan" }),
        Some("the handler panicked: boom"),
    );

    // The registry keeps serving, also from other tasks, also while others panic.
    let mut tasks = Vec::new();
    for i in 0..8 {
        let registry = Arc::clone(&registry);
        tasks.push(tokio::spawn(async move {
            let mode = if i % 2 == 0 { "panic" } else { "ok" };
            registry
                .invoke(
                    "jobs_crash",
                    json!({ "mode": mode }),
                    &AmbientContext::new(),
                )
                .await
                .expect("tool")
        }));
    }
    for (i, task) in tasks.into_iter().enumerate() {
        let result = task.await.expect("the task itself never panics");
        assert_eq!(result.is_ok(), i % 2 == 1, "{result:?}");
    }
    let result = registry
        .invoke(
            "jobs_crash",
            json!({ "mode": "ok" }),
            &AmbientContext::new(),
        )
        .await
        .expect("tool");
    assert_eq!(result.to_model_json(), json!({ "mode": "ok", "code": 0 }));
}

#[tokio::test]
async fn a_slow_handler_times_out() {
    let app = App::new();
    let result = call(&app, "jobs_slow", json!({ "millis": 2000 })).await;
    assert_failed(
        &result,
        json!({ "error": "timeout", "message": "The job did not finish: The call did not finish within 50ms." }),
        Some("timed out after 50ms"),
    );
    // The handler's token is cancelled, so work it handed off can stop.
    tokio::time::timeout(
        Duration::from_secs(5),
        app.probe.watcher_saw_cancel.notified(),
    )
    .await
    .expect("the watcher saw the token cancelled");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(
        !app.probe.slow_finished.load(Ordering::SeqCst),
        "the handler was stopped"
    );

    // Under the timeout, it answers.
    let result = call(&app, "jobs_slow", json!({ "millis": 5 })).await;
    assert_eq!(result.to_model_json(), json!({ "slept": 5 }));
    assert_eq!(result.message, "jobs_slow succeeded.");
}

/// Known bug: the token is cancelled only after the handler's future was dropped, so nothing
/// inside the handler (a drop guard, say) ever sees it cancelled on a timeout.
#[tokio::test]

async fn a_timed_out_handler_sees_its_token_cancelled() {
    let app = App::new();
    let result = call(&app, "jobs_slow", json!({ "millis": 2000 })).await;
    assert_eq!(result.error().map(|e| e.code.as_str()), Some("timeout"));
    assert!(app.probe.slow_dropped_cancelled.load(Ordering::SeqCst));
}

/// Starts `jobs_wait` and cancels its call from another task once the handler is waiting.
async fn cancel_a_waiting_call(app: &App) -> ToolResult {
    let registry = app.registry();
    let token = CancellationToken::new();
    let options = CallOptions {
        cancellation: token.clone(),
        ..CallOptions::default()
    };
    let probe = Arc::clone(&app.probe);
    let canceller = tokio::spawn(async move {
        probe.started.notified().await;
        token.cancel();
    });
    let result = registry
        .invoke_with("jobs_wait", json!({}), &AmbientContext::new(), options)
        .await
        .expect("tool");
    canceller.await.expect("canceller");
    result
}

#[tokio::test]
async fn cancellation_is_observed_by_the_handler() {
    let app = App::new();
    let result = cancel_a_waiting_call(&app).await;
    assert_failed(
        &result,
        json!({ "error": "cancelled", "message": "The call was cancelled." }),
        Some("cancelled by the client"),
    );
    // What the handler handed its token to sees the cancellation, and so does its drop guard.
    tokio::time::timeout(
        Duration::from_secs(5),
        app.probe.watcher_saw_cancel.notified(),
    )
    .await
    .expect("the watcher saw the token cancelled");
    assert!(app.probe.watcher_saw.load(Ordering::SeqCst));
    assert!(app.probe.wait_dropped_cancelled.load(Ordering::SeqCst));
}

/// Known bug: on cancellation the invoker drops the handler's future at once, so a handler
/// awaiting `cx.cancellation().cancelled()` never resumes to report or clean up.
#[tokio::test]

async fn a_handler_awaiting_cancellation_resumes() {
    let app = App::new();
    let result = cancel_a_waiting_call(&app).await;
    assert_eq!(result.error().map(|e| e.code.as_str()), Some("cancelled"));
    assert!(app.probe.handler_saw.load(Ordering::SeqCst));
}

#[tokio::test]
async fn a_call_cancelled_before_it_starts_never_runs_the_handler() {
    let app = App::new();
    let token = CancellationToken::new();
    token.cancel();
    let options = CallOptions {
        cancellation: token,
        ..CallOptions::default()
    };
    let result = app
        .registry()
        .invoke_with(
            "orders_cancel",
            json!({ "order_id": 7 }),
            &AmbientContext::new(),
            options,
        )
        .await
        .expect("tool");
    assert_failed(
        &result,
        json!({ "error": "cancelled", "message": "The call was cancelled." }),
        Some("cancelled by the client"),
    );
    assert_eq!(app.probe.cancel_calls.load(Ordering::SeqCst), 0);
    assert_eq!(
        app.probe.guard_calls.load(Ordering::SeqCst),
        0,
        "nor its guards"
    );
}

#[tokio::test]
async fn a_slow_guard_times_out() {
    let app = App::new();
    let result = call(&app, "jobs_guarded", json!({ "guard_millis": 2000 })).await;
    assert_failed(
        &result,
        json!({ "error": "timeout", "message": "The guarded job did not run: The call did not finish within 50ms." }),
        Some("timed out after 50ms"),
    );
    // The guard saw its token cancelled before it was dropped, and never finished.
    assert!(app.probe.guard_dropped_cancelled.load(Ordering::SeqCst));
    tokio::time::timeout(
        Duration::from_secs(5),
        app.probe.watcher_saw_cancel.notified(),
    )
    .await
    .expect("the watcher saw the token cancelled");
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(!app.probe.guard_finished.load(Ordering::SeqCst));
    assert_eq!(app.probe.guarded_calls.load(Ordering::SeqCst), 0);

    // Under the timeout, guard and handler answer.
    let result = call(&app, "jobs_guarded", json!({ "guard_millis": 5 })).await;
    assert_eq!(result.to_model_json(), json!({ "done": true }));
    assert_eq!(app.probe.guarded_calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_call_cancelled_during_a_guard_is_cancelled() {
    let app = App::new();
    let token = CancellationToken::new();
    let options = CallOptions {
        cancellation: token.clone(),
        ..CallOptions::default()
    };
    let probe = Arc::clone(&app.probe);
    let canceller = tokio::spawn(async move {
        probe.guard_started.notified().await;
        token.cancel();
    });
    // The guard would take 40ms, within the timeout; the cancellation comes first.
    let result = app
        .registry()
        .invoke_with(
            "jobs_guarded",
            json!({ "guard_millis": 40 }),
            &AmbientContext::new(),
            options,
        )
        .await
        .expect("tool");
    canceller.await.expect("canceller");
    assert_failed(
        &result,
        json!({ "error": "cancelled", "message": "The call was cancelled." }),
        Some("cancelled by the client"),
    );
    assert!(app.probe.guard_dropped_cancelled.load(Ordering::SeqCst));
    assert!(!app.probe.guard_finished.load(Ordering::SeqCst));
    assert_eq!(app.probe.guarded_calls.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn progress_reports_reach_the_caller() {
    let app = App::new();
    let seen: Arc<Mutex<Vec<ProgressUpdate>>> = Arc::default();
    let sink = Arc::clone(&seen);
    let options = CallOptions {
        progress: Progress::new(move |update| sink.lock().expect("lock").push(update)),
        ..CallOptions::default()
    };
    let result = app
        .registry()
        .invoke_with(
            "jobs_progress",
            json!({ "steps": 3 }),
            &AmbientContext::new(),
            options,
        )
        .await
        .expect("tool");
    assert_eq!(result.to_model_json(), json!({ "steps": 3 }));
    let seen = seen.lock().expect("lock").clone();
    assert_eq!(
        seen,
        [
            ProgressUpdate {
                fraction: 1.0 / 3.0,
                message: "step 1 of 3".into()
            },
            ProgressUpdate {
                fraction: 2.0 / 3.0,
                message: "step 2 of 3".into()
            },
            ProgressUpdate {
                fraction: 1.0,
                message: "step 3 of 3".into()
            },
        ]
    );
    // Without a sink, reports go nowhere.
    let result = call(&app, "jobs_progress", json!({ "steps": 2 })).await;
    assert!(result.is_ok());
}

#[tokio::test]
async fn the_message_template_is_rendered_from_the_output() {
    let app = App::new();
    let result = call(
        &app,
        "orders_cancel",
        json!({ "order_id": 7, "reason": "duplicate" }),
    )
    .await;
    assert_eq!(
        result.to_model_json(),
        json!({ "order_id": 7, "status": "cancelled", "reason": "duplicate" })
    );
    assert_eq!(result.message, "Order 7 is now cancelled (duplicate).");
    assert_eq!(result.exception, None);
    let result = call(&app, "jobs_progress", json!({ "steps": 4 })).await;
    assert_eq!(result.message, "Did 4 steps.");
}

#[tokio::test]
async fn without_a_template_the_message_names_the_tool() {
    let app = App::new();
    let args = json!({ "age": 1, "score": 0, "active": false });
    let result = app
        .registry()
        .invoke(
            "profile_update",
            args,
            &AmbientContext::from([("user_id", "u")]),
        )
        .await
        .expect("tool");
    assert_eq!(
        result.message, "Update profile succeeded.",
        "the title, when there is one"
    );
    let result = call(&app, "jobs_crash", json!({ "mode": "ok" })).await;
    assert_eq!(result.message, "jobs_crash succeeded.", "else the name");
}

#[tokio::test]
async fn unknown_tools_are_an_error_of_the_registry() {
    let registry = App::new().registry();
    let error = registry
        .invoke("orders_delete", json!({}), &AmbientContext::new())
        .await
        .expect_err("no such tool");
    assert_eq!(error, UnknownTool("orders_delete".into()));
    assert_eq!(error.to_string(), "unknown tool `orders_delete`");
}

#[tokio::test]
async fn tools_outside_an_adapter_are_unknown_through_it() {
    let registry = App::new().registry();
    assert_eq!(
        registry.get("admin_purge").expect("tool").name_for("http"),
        None
    );
    assert!(
        registry
            .tools_for("http")
            .iter()
            .all(|t| t.name() != "admin_purge")
    );
    assert!(
        registry
            .tools_for("mcp")
            .iter()
            .any(|t| t.name() == "admin_purge")
    );

    let through = |adapter: &str| CallOptions {
        adapter: Some(adapter.into()),
        ..CallOptions::default()
    };
    let error = registry
        .invoke_with(
            "admin_purge",
            json!({}),
            &AmbientContext::new(),
            through("http"),
        )
        .await
        .expect_err("not an http tool");
    assert_eq!(error, UnknownTool("admin_purge".into()));
    let result = registry
        .invoke_with(
            "admin_purge",
            json!({}),
            &AmbientContext::new(),
            through("mcp"),
        )
        .await
        .expect("tool");
    assert_eq!(
        result.to_model_json(),
        json!({ "purged": "mine", "tenant": null })
    );
}

#[tokio::test]
async fn a_guard_hands_what_it_loaded_to_the_handler() {
    let app = App::new();
    let result = call(&app, "notes_archive", json!({ "note_id": 1 })).await;
    assert_eq!(
        result.to_model_json(),
        json!({ "title": "Note 1", "pins": 0 })
    );
    // One lookup served the guard and the handler.
    assert_eq!(app.probe.note_lookups.load(Ordering::SeqCst), 1);
    assert_eq!(app.probe.archive_calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_guard_fails_with_a_code_its_spec_lists() {
    let app = App::new();
    // Someone else's note: `not_found`, standing alone as the spec says, not the guard's name.
    let result = call(&app, "notes_archive", json!({ "note_id": 2 })).await;
    assert_failed(
        &result,
        json!({ "error": "not_found", "message": "No such note." }),
        None,
    );
    // A declared code with details, composed with the headline like a handler's.
    let result = call(&app, "notes_archive", json!({ "note_id": 3 })).await;
    assert_failed(
        &result,
        json!({
            "error": "archived",
            "message": "Could not archive the note: The note is already archived.",
            "details": { "archived_on": "2026-11-30" }
        }),
        None,
    );
    // A guard answering with a `Result` may still just be unmet: its own name and description.
    let result = call(&app, "notes_archive", json!({ "note_id": 4 })).await;
    assert_failed(
        &result,
        json!({ "error": "unpinned", "message": "Could not archive the note: The note must not be pinned." }),
        None,
    );
    assert_eq!(
        app.probe.archive_calls.load(Ordering::SeqCst),
        0,
        "the handler never ran"
    );
}

#[tokio::test]
async fn a_guard_that_cannot_decide_is_an_internal_error_naming_it() {
    let app = App::new();
    let result = call(&app, "notes_archive", json!({ "note_id": 500 })).await;
    assert_failed(
        &result,
        json!({ "error": "internal_error", "message": "Could not archive the note" }),
        Some("guard `owns_note` failed: the notes table is gone"),
    );
    let result = call(&app, "notes_archive", json!({ "note_id": 66 })).await;
    assert_failed(
        &result,
        json!({ "error": "internal_error", "message": "Could not archive the note" }),
        Some("guard `owns_note` panicked: the notes index is corrupt"),
    );
    assert_eq!(app.probe.archive_calls.load(Ordering::SeqCst), 0);
}
