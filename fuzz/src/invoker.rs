//! The invoker's harness: the first byte picks a tool of the pipeline test crate, the rest is
//! its arguments as JSON; the call goes through `invoke` and through `explain`. The registry
//! holds only the crate's tools that answer at once and never fail on purpose (no slow,
//! waiting, crashing or panicking ones, which the built-in explain tool could otherwise
//! reach: libFuzzer counts even a caught panic as a crash). Whatever the arguments:
//!
//! - nothing panics;
//! - an answer or explanation stays within [`MAX_ANSWER`];
//! - no call fails with `internal_error`;
//! - a `sensitive` value (`hostile_place`'s `note` and `lines[].gift_message`, and the whole
//!   `card`) is never quoted back, nor in the developer-facing exception: when one holds the
//!   word [`SECRET`] (the seeds' do) and no other argument does, the word appears nowhere.

use std::sync::{Arc, OnceLock};

use serde_json::Value;
use toolspec::{AmbientContext, Registry};

/// The tools called, each answering without waiting on anything.
pub const TOOLS: &[&str] = &[
    "hostile_place",
    "kinds_coerce",
    "kinds_narrow",
    "profile_update",
    "admin_purge",
    "explain",
];

/// The bound on any answer (the input is at most a few KiB under libFuzzer's defaults).
pub const MAX_ANSWER: usize = 64 * 1024;

/// The word a sensitive value of the seeds holds, which no message of the invoker contains.
pub const SECRET: &str = "SECRET";

fn registry() -> &'static Registry {
    use toolspec_test_pipeline::tools::{self, admin, hostile, kinds, profile};
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let app = Arc::new(toolspec_test_pipeline::App::new());
        Registry::builder(&tools::PROJECT)
            .tool(hostile::place::Bound(Arc::clone(&app)))
            .tool(kinds::coerce::Bound(Arc::clone(&app)))
            .tool(kinds::narrow::Bound(Arc::clone(&app)))
            .tool(profile::update::Bound(Arc::clone(&app)))
            .tool(admin::purge::Bound(app))
            .explain(&tools::EXPLAIN)
            .build()
            .expect("the fuzzed tools make a registry")
    })
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a tokio runtime")
    })
}

/// The trusted context every tool of the crate resolves its ambient fields from.
fn ambient() -> AmbientContext {
    AmbientContext::new()
        .with("customer_id", 7)
        .with("user_id", "alice")
        .with("tenant", "acme")
}

/// One input: a tool and its arguments.
pub fn run(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let Ok(args) = serde_json::from_slice::<Value>(rest) else {
        return;
    };
    let tool = TOOLS[usize::from(which) % TOOLS.len()];
    let secret = holds_secret(tool, &args);
    let registry = registry();
    let ambient = ambient();
    let result = runtime()
        .block_on(registry.invoke(tool, args.clone(), &ambient))
        .expect("a tool of the registry");
    let answer = result.to_model_json().to_string();
    assert!(
        answer.len() <= MAX_ANSWER,
        "{tool}: a {}-byte answer",
        answer.len()
    );
    if let Some(error) = result.error() {
        assert_ne!(
            error.code, "internal_error",
            "{tool}: {:?}",
            result.exception
        );
    }
    if secret {
        assert!(
            !answer.contains(SECRET),
            "{tool} echoed a sensitive value: {answer}"
        );
        let exception = result.exception.as_deref().unwrap_or_default();
        assert!(
            !exception.contains(SECRET),
            "{tool}: a sensitive value in {exception}"
        );
    }
    let explained = runtime()
        .block_on(registry.explain(tool, args, &ambient))
        .expect("a tool of the registry");
    let explanation = serde_json::to_string(&explained).expect("an explanation serializes");
    assert!(
        explanation.len() <= MAX_ANSWER,
        "{tool}: a {}-byte explanation",
        explanation.len()
    );
    if secret {
        assert!(
            !explanation.contains(SECRET),
            "{tool} explained a sensitive value"
        );
    }
}

/// Whether `hostile_place`'s arguments hold [`SECRET`] in a sensitive value and nowhere else.
fn holds_secret(tool: &str, args: &Value) -> bool {
    if tool != "hostile_place" {
        return false;
    }
    let mut open = args.clone();
    let mut sensitive = Vec::new();
    if let Value::Object(map) = &mut open {
        sensitive.extend(map.remove("note"));
        sensitive.extend(map.remove("card"));
        if let Some(Value::Array(lines)) = map.get_mut("lines") {
            for line in lines.iter_mut().filter_map(Value::as_object_mut) {
                sensitive.extend(line.remove("gift_message"));
            }
        }
    }
    let in_sensitive = sensitive.iter().any(|v| v.to_string().contains(SECRET));
    in_sensitive && !open.to_string().contains(SECRET)
}
