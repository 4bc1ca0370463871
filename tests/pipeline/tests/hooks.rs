//! Hooks around calls: `before` may refuse a call, `after` sees every outcome and its duration.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;
use toolspec::{
    AmbientContext, CallInfo, CallOptions, Caller, Hook, SharedDescriptor, ToolError, ToolResult,
};
use toolspec_test_pipeline::App;

/// One call as the `after` hook saw it.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    tool: String,
    adapter: Option<String>,
    caller: Option<String>,
    arguments: serde_json::Value,
    outcome: Result<serde_json::Value, String>,
    took: Duration,
}

/// Refuses callers named `spammer`; records every call after it ends.
#[derive(Clone, Default)]
struct Recorder {
    seen: Arc<Mutex<Vec<Seen>>>,
    /// The tools called, kept past their calls.
    before: Arc<Mutex<Vec<SharedDescriptor>>>,
}

impl Hook for Recorder {
    fn before(&self, call: &CallInfo<'_>) -> Result<(), ToolError> {
        self.before.lock().expect("lock").push(call.tool.clone());
        if call.caller == Some("spammer") {
            return Err(ToolError {
                code: "rate_limited".into(),
                message: "Too many calls; try again in a minute.".into(),
                details: Some(json!({ "retry_after_s": 60 })),
            });
        }
        Ok(())
    }

    fn after(&self, call: &CallInfo<'_>, result: &ToolResult, took: Duration) {
        self.seen.lock().expect("lock").push(Seen {
            tool: call.tool.name.to_string(),
            adapter: call.adapter.map(str::to_owned),
            caller: call.caller.map(str::to_owned),
            arguments: call.arguments.clone(),
            outcome: result.outcome.clone().map_err(|e| e.code),
            took,
        });
    }
}

fn options(caller: &str) -> CallOptions {
    CallOptions::for_caller("mcp", &Caller::new(caller))
}

#[tokio::test]
async fn a_before_hook_refuses_a_call() {
    let app = App::new();
    let hook = Recorder::default();
    let registry = app.registry().with_hook(hook.clone());
    let result = registry
        .invoke_with(
            "orders_cancel",
            json!({ "order_id": 7 }),
            &AmbientContext::new(),
            options("spammer"),
        )
        .await
        .expect("tool");
    assert_eq!(
        result.to_model_json(),
        json!({
            "error": "rate_limited",
            "message": "Too many calls; try again in a minute.",
            "details": { "retry_after_s": 60 }
        })
    );
    assert_eq!(result.message, "Too many calls; try again in a minute.");
    assert_eq!(result.exception.as_deref(), Some("refused by a hook"));
    assert_eq!(
        app.probe.cancel_calls.load(Ordering::SeqCst),
        0,
        "the handler never ran"
    );
    assert_eq!(
        app.probe.guard_calls.load(Ordering::SeqCst),
        0,
        "nor its guards"
    );

    // The after hooks still see the refusal.
    let seen = hook.seen.lock().expect("lock").clone();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].outcome, Err("rate_limited".into()));
    assert_eq!(seen[0].caller.as_deref(), Some("spammer"));
}

#[tokio::test]
async fn an_after_hook_sees_every_outcome_and_its_duration() {
    let app = App::new();
    let hook = Recorder::default();
    let registry = app.registry().with_hook(hook.clone());
    let ambient = AmbientContext::new();
    let calls = [
        ("orders_cancel", json!({ "order_id": "7" })),
        ("orders_cancel", json!({ "order_id": 404 })),
        ("orders_cancel", json!({ "order_id": 0 })),
        ("jobs_slow", json!({ "millis": 20 })),
        ("jobs_slow", json!({ "millis": 1000 })),
        ("jobs_crash", json!({ "mode": "internal" })),
    ];
    for (tool, args) in &calls {
        registry
            .invoke_with(tool, args.clone(), &ambient, options("ada"))
            .await
            .expect("tool");
    }
    let seen = hook.seen.lock().expect("lock").clone();
    let outcomes: Vec<_> = (seen.iter())
        .map(|s| (s.tool.as_str(), s.outcome.clone()))
        .collect();
    assert_eq!(
        outcomes,
        [
            (
                "orders_cancel",
                Ok(json!({ "order_id": 7, "status": "cancelled", "reason": "customer_request" }))
            ),
            ("orders_cancel", Err("not_found".into())),
            ("orders_cancel", Err("invalid_arguments".into())),
            ("jobs_slow", Ok(json!({ "slept": 20 }))),
            ("jobs_slow", Err("timeout".into())),
            ("jobs_crash", Err("internal_error".into())),
        ]
    );
    // The arguments as the model sent them, before coercion.
    assert_eq!(seen[0].arguments, json!({ "order_id": "7" }));
    assert!(
        seen.iter()
            .all(|s| s.adapter.as_deref() == Some("mcp") && s.caller.as_deref() == Some("ada"))
    );
    assert!(
        seen[3].took >= Duration::from_millis(20),
        "{:?}",
        seen[3].took
    );
    assert!(
        seen[4].took >= Duration::from_millis(50),
        "{:?}",
        seen[4].took
    );
    assert!(
        seen[4].took < Duration::from_millis(1000),
        "{:?}",
        seen[4].took
    );
    let before = hook.before.lock().expect("lock");
    let before: Vec<&str> = before.iter().map(|tool| tool.name()).collect();
    assert_eq!(before, calls.map(|(tool, _)| tool));
}

#[tokio::test]
async fn hooks_run_in_order_and_the_first_refusal_wins() {
    #[derive(Clone)]
    struct Refuse(&'static str, Arc<Mutex<Vec<&'static str>>>);
    impl Hook for Refuse {
        fn before(&self, _call: &CallInfo<'_>) -> Result<(), ToolError> {
            self.1.lock().expect("lock").push(self.0);
            Err(ToolError {
                code: self.0.into(),
                message: format!("Refused by {}.", self.0),
                details: None,
            })
        }
    }
    let order = Arc::default();
    let registry = App::new()
        .registry()
        .with_hook(Refuse("first", Arc::clone(&order)))
        .with_hook(Refuse("second", Arc::clone(&order)));
    let result = registry
        .invoke(
            "jobs_crash",
            json!({ "mode": "ok" }),
            &AmbientContext::new(),
        )
        .await
        .expect("tool");
    assert_eq!(
        result.to_model_json(),
        json!({ "error": "first", "message": "Refused by first." })
    );
    assert_eq!(*order.lock().expect("lock"), ["first"]);
}
