//! `examples/agent.rs` end to end, without network: the compiled example talks to a fake
//! OpenAI-compatible Chat Completions server in this process, which replies from a script and
//! records every request; the tools run on a real SQLite store in a temporary directory.

#[path = "support/fake_model.rs"]
mod fake_model;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::Duration;

use fake_model::{FakeOpenAi, offered, text, tool_calls, tool_messages, tool_result};
use serde_json::json;
use tokio::io::AsyncWriteExt;

/// How long one run of the example may take before the test fails.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

/// The compiled example: next to the store binary, where `cargo test` builds it; built with
/// `cargo build --example agent` (same target directory, profile and `tls` feature) when it
/// is missing or older than its sources (its own and the library's agent module).
fn example() -> &'static Path {
    static EXAMPLE: OnceLock<PathBuf> = OnceLock::new();
    EXAMPLE.get_or_init(|| {
        let profile_dir = Path::new(env!("CARGO_BIN_EXE_toolspec-store"))
            .parent()
            .expect("the store binary is in a profile directory");
        let path = profile_dir
            .join("examples")
            .join(format!("agent{}", std::env::consts::EXE_SUFFIX));
        // `cargo test` builds examples; `cargo test --test agent` does not, and may leave a
        // binary older than its sources.
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        let library = std::fs::read_dir(root.join("src/agent"))
            .expect("src/agent")
            .map(|entry| entry.expect("an entry of src/agent").path());
        let written = std::iter::once(root.join("examples/agent.rs"))
            .chain(library)
            .map(|source| modified(&source))
            .max()
            .flatten();
        if let (Some(built), Some(written)) = (modified(&path), written)
            && built >= written
        {
            return path;
        }
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut build = std::process::Command::new(cargo);
        build.args(["build", "--example", "agent", "--manifest-path"]);
        build.arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"));
        if profile_dir.ends_with("release") {
            build.arg("--release");
        }
        if cfg!(feature = "tls") {
            build.args(["--features", "tls"]);
        }
        if let Some(target_dir) = profile_dir.parent() {
            build.arg("--target-dir").arg(target_dir);
        }
        let status = build.status().expect("run cargo build --example agent");
        assert!(status.success(), "cargo build --example agent failed");
        assert!(path.exists(), "no example binary at {}", path.display());
        path
    })
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs the example with `args` in a fresh directory (its `store.db` seeded on first use),
/// `stdin` as its standard input, and no OpenAI settings from the environment but `env`.
async fn run(args: &[&str], stdin: &str) -> Run {
    run_with_env(args, stdin, &[]).await
}

async fn run_with_env(args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Run {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut command = tokio::process::Command::new(example());
    command
        .args(args)
        .current_dir(dir.path())
        .env_remove("OPENAI_BASE_URL")
        .env_remove("OPENAI_MODEL")
        .env_remove("OPENAI_API_KEY")
        .envs(env.iter().copied());
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start the example");
    let mut input = child.stdin.take().expect("stdin");
    input
        .write_all(stdin.as_bytes())
        .await
        .expect("write stdin");
    drop(input);
    let output = tokio::time::timeout(RUN_TIMEOUT, child.wait_with_output())
        .await
        .expect("the example finishes in time")
        .expect("the example's output");
    let run = Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    eprintln!("--- example stderr ---\n{}", run.stderr);
    run
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tool_call_runs_on_the_store_and_its_result_goes_back_to_the_model() {
    let (fake, base_url) = FakeOpenAi::start(vec![
        tool_calls(&[("call_1", "orders_get", json!({"order_id": 1}))]),
        text("Order 1 is pending: two mugs, 25.00 EUR in total."),
    ])
    .await;

    let run = run(
        &[
            "--base-url",
            &base_url,
            "--model",
            "fake-model",
            "What is in my order 1?",
        ],
        "",
    )
    .await;
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(
        run.stdout,
        "Order 1 is pending: two mugs, 25.00 EUR in total.\n"
    );
    assert!(
        run.stderr
            .contains(r#"tool call: orders_get {"order_id":1}"#),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(r#""status":"pending""#),
        "{}",
        run.stderr
    );

    let requests = fake.requests();
    assert_eq!(requests.len(), 2, "{requests:#?}");
    // No key: no `Authorization` header (what local servers expect).
    assert_eq!(fake.authorizations(), [None, None]);

    // The first request offers the store's rig tools, with their `openai` dialect schemas.
    let first = &requests[0];
    assert_eq!(first["model"], "fake-model");
    assert_eq!(
        offered(first),
        [
            "customers_me",
            "explain",
            "orders_cancel",
            "orders_export",
            "orders_get",
            "orders_place",
            "orders_refund",
            "orders_report",
            "orders_search",
            "task_status"
        ]
    );
    let get = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "orders_get")
        .unwrap();
    assert_eq!(
        get["function"]["parameters"],
        toolspec_store::tools::orders::get::DESCRIPTOR
            .dialect_json(toolspec::Dialect::OpenAi)
            .unwrap()
    );
    assert!(
        first["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "user" && m.to_string().contains("What is in my order 1?")),
        "{first:#}"
    );

    // The second carries the call and its result, read from the SQLite store.
    let second = &requests[1];
    let tools = tool_messages(second);
    assert_eq!(tools.len(), 1, "{second:#}");
    let order = &tool_result(&tools, "call_1")["order"];
    assert_eq!(order["id"], 1);
    assert_eq!(order["status"], "pending");
    assert_eq!(order["total"], json!({"amount": 2500, "currency": "EUR"}));
    assert_eq!(order["lines"][0]["sku"], "MUG-001");
    assert!(
        second["messages"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["role"] == "assistant" && m["tool_calls"][0]["id"] == "call_1"),
        "{second:#}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_model_cannot_choose_who_the_customer_is() {
    // The model tries to steer `customers_me` to customer 2, twice; only `--as` decides.
    let script = || {
        vec![
            tool_calls(&[
                (
                    "call_ctx",
                    "customers_me",
                    json!({"ambient_context": {"customer_id": 2}}),
                ),
                ("call_arg", "customers_me", json!({"customer_id": 2})),
            ]),
            text("You are who you are."),
        ]
    };

    for (as_customer, expected) in [
        (None, "Ada Lovelace"),
        (Some("customer_id=3"), "Alan Turing"),
    ] {
        let (fake, base_url) = FakeOpenAi::start(script()).await;
        let mut args = vec!["--base-url", base_url.as_str(), "Who am I?"];
        if let Some(entry) = as_customer {
            args.extend(["--as", entry]);
        }
        let run = run(&args, "").await;
        assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
        assert_eq!(run.stdout, "You are who you are.\n");

        let requests = fake.requests();
        assert_eq!(requests.len(), 2, "{requests:#?}");
        let tools = tool_messages(&requests[1]);
        // A model-sent `ambient_context` is dropped: the trusted context answers.
        assert_eq!(tool_result(&tools, "call_ctx")["name"], expected);
        // An undeclared argument is refused, naming it; it never selects a customer.
        let refused = tool_result(&tools, "call_arg");
        assert_eq!(refused["error"], "invalid_arguments", "{refused:#}");
        assert!(
            refused["message"].as_str().unwrap().contains("customer_id"),
            "{refused:#}"
        );
        assert!(
            !requests[1].to_string().contains("Grace Hopper"),
            "customer 2 leaked: {:#}",
            requests[1]
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_prompt_each_line_of_stdin_continues_the_conversation_with_settings_from_the_environment()
 {
    let (fake, base_url) = FakeOpenAi::start(vec![
        tool_calls(&[("call_1", "orders_get", json!({"order_id": 1}))]),
        text("Two mugs."),
        text("25.00 EUR."),
    ])
    .await;
    let run = run_with_env(
        &[],
        "What is in my order 1?\n\nAnd what does it cost?\n",
        &[
            ("OPENAI_BASE_URL", &base_url),
            ("OPENAI_MODEL", "env-model"),
            ("OPENAI_API_KEY", "sk-test"),
        ],
    )
    .await;
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(run.stdout, "Two mugs.\n25.00 EUR.\n");

    let requests = fake.requests();
    assert_eq!(requests.len(), 3, "{requests:#?}");
    assert!(requests.iter().all(|r| r["model"] == "env-model"));
    assert_eq!(
        fake.authorizations(),
        vec![Some("Bearer sk-test".to_owned()); 3]
    );
    // The second prompt's request carries the first exchange, tool result included.
    let third = requests[2].to_string();
    for part in [
        "What is in my order 1?",
        "Two mugs.",
        "And what does it cost?",
        "MUG-001",
    ] {
        assert!(third.contains(part), "{part} missing from {third}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failing_endpoint_is_reported_with_exit_status_1() {
    let (_fake, base_url) = FakeOpenAi::start(Vec::new()).await;
    let run = run(&["--base-url", &base_url, "--model", "m", "Hello?"], "").await;
    assert_eq!(run.code, Some(1), "stderr: {}", run.stderr);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr
            .contains(&format!("the model `m` at {base_url} did not answer")),
        "{}",
        run.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_settings_are_usage_errors() {
    let run_ = run(&["--base-url", "localhost:11434/v1", "Hi"], "").await;
    assert_eq!(run_.code, Some(2));
    assert!(
        run_.stderr.contains("must start with http://"),
        "{}",
        run_.stderr
    );

    let run_ = run(&["--as", "customer_id", "Hi"], "").await;
    assert_eq!(run_.code, Some(2));
    assert!(run_.stderr.contains("is not KEY=VALUE"), "{}", run_.stderr);

    // The official endpoint (the default) needs a key.
    #[cfg(feature = "tls")]
    {
        let run_ = run(&["Hi"], "").await;
        assert_eq!(run_.code, Some(2));
        assert!(run_.stderr.contains("OPENAI_API_KEY"), "{}", run_.stderr);
    }
    #[cfg(not(feature = "tls"))]
    {
        let run_ = run(&["Hi"], "").await;
        assert_eq!(run_.code, Some(2));
        assert!(run_.stderr.contains("--features tls"), "{}", run_.stderr);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn dex_scenario_find_my_pending_orders_and_cancel_the_oldest_one() {
    // The model searches with the query tool, checks the cancel with explain, then cancels
    // with the order as a `ref`; every tool result it reads comes from the database, scoped
    // to the customer of `--as` (customer 1 by default). The cancel asks the user first: the
    // model reads that the user is asked, the example asks on stderr and reads `y` on stdin,
    // the call goes on, and the model reads what it did.
    let (fake, base_url) = FakeOpenAi::start(vec![
        tool_calls(&[(
            "call_search",
            "orders_search",
            json!({"status": "pending", "sort": "placed_at", "limit": 1}),
        )]),
        tool_calls(&[(
            "call_explain",
            "explain",
            json!({"tool": "orders_cancel", "arguments": {"order": 1}}),
        )]),
        tool_calls(&[("call_cancel", "orders_cancel", json!({"order": 1}))]),
        text("Please confirm the cancellation of order 1."),
        text("I cancelled order 1, your oldest pending order."),
    ])
    .await;
    let run = run(
        &[
            "--base-url",
            &base_url,
            "Find my pending orders and cancel the oldest one.",
        ],
        "y\n",
    )
    .await;
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    assert_eq!(
        run.stdout,
        "Please confirm the cancellation of order 1.\n\
         I cancelled order 1, your oldest pending order.\n"
    );
    assert!(
        run.stderr
            .contains("Cancel order 1 (now pending)? A cancelled order cannot be reopened. [y/N]"),
        "{}",
        run.stderr
    );

    let requests = fake.requests();
    assert_eq!(requests.len(), 5, "{requests:#?}");
    let found = tool_result(&tool_messages(&requests[1]), "call_search").clone();
    assert_eq!(found["total"], 1, "{found:#}");
    assert_eq!(found["records"][0]["id"], 1);
    assert_eq!(found["records"][0]["status"], "pending");
    let explained = tool_result(&tool_messages(&requests[2]), "call_explain").clone();
    assert_eq!(explained["callable"], true, "{explained:#}");
    assert_eq!(
        explained["confirm"],
        "Cancel order 1 (now pending)? A cancelled order cannot be reopened."
    );
    let waiting = tool_result(&tool_messages(&requests[3]), "call_cancel").clone();
    assert_eq!(waiting["status"], "waiting_for_user", "{waiting:#}");
    // The last request carries what the confirmed call did.
    let last = requests[4].to_string();
    assert!(last.contains(r#"\"status\":\"cancelled\""#), "{last}");
    // Customer 2's pending order 5 never reaches the model.
    for request in &requests {
        let text = request.to_string();
        assert!(
            !text.contains("\"id\":5"),
            "another customer's order leaked: {text}"
        );
    }
}
