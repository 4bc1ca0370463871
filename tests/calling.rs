//! The store's query tool through each function-calling adapter: each declares it with the
//! filters and sorts its spec lets that adapter's model see (OpenAI's narrowed by
//! `except_filters` and `only_sorts`), and answers a call from the database, scoped to the
//! caller.

use std::sync::Arc;

use serde_json::{Value, json};
use toolspec::{AmbientContext, Caller, anthropic, gemini, openai};

#[path = "support/orders.rs"]
mod orders;

async fn registry(dir: &tempfile::TempDir) -> Arc<toolspec::Registry> {
    let store =
        toolspec_store::Store::open(&toolspec_store::Location::File(dir.path().join("store.db")))
            .await
            .unwrap();
    Arc::new(toolspec_store::registry(store))
}

fn customer(id: i64) -> Caller {
    Caller::new(format!("customer-{id}")).with_ambient(AmbientContext::from([("customer_id", id)]))
}

fn declared<T: serde::Serialize>(
    tools: Vec<T>,
    name: &str,
    schema: &[&str],
) -> (Value, Vec<String>) {
    let tool = tools
        .into_iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .find(|t| {
            let named = t
                .get("function")
                .and_then(|f| f.get("name"))
                .or_else(|| t.get("name"));
            named == Some(&json!(name))
        })
        .unwrap_or_else(|| panic!("{name} is declared"));
    let mut at = &tool;
    for key in schema {
        at = &at[*key];
    }
    let properties = at["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    (tool, properties)
}

fn ids(page: &Value) -> Vec<i64> {
    page["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect()
}

#[tokio::test]
async fn openai_sees_the_narrowed_tool_and_calls_it() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir).await;
    let (tool, properties) = declared(
        openai::tools(&registry),
        "orders_search",
        &["function", "parameters"],
    );
    assert_eq!(
        properties,
        [
            "status",
            "placed_after",
            "placed_before",
            "total_min",
            "sort",
            "limit",
            "offset"
        ]
    );
    let sort = &tool["function"]["parameters"]["properties"]["sort"];
    let values = sort
        .get("enum")
        .or_else(|| sort["anyOf"][0].get("enum"))
        .unwrap();
    assert_eq!(values, &json!(["placed_at", "-placed_at"]));
    let description = tool["function"]["description"].as_str().unwrap();
    assert!(
        !description.contains("note_contains") && !description.contains("total (`-`"),
        "{description}"
    );

    let dispatcher = openai::Dispatcher::new(registry);
    let call = |arguments: Value| openai::ToolCall {
        id: "call_1".into(),
        kind: "function".into(),
        function: openai::FunctionCall {
            name: "orders_search".into(),
            arguments: arguments.to_string(),
        },
    };
    let answer = dispatcher
        .call(&call(json!({"sort": "total"})), &customer(1))
        .await;
    let page: Value = serde_json::from_str(&answer.content).unwrap();
    assert_eq!(
        ids(&page),
        [1, 2, 3, 4],
        "`total` is no sort on OpenAI: the default applies"
    );
    let answer = dispatcher
        .call(&call(json!({"note_contains": "x"})), &customer(1))
        .await;
    let error: Value = serde_json::from_str(&answer.content).unwrap();
    assert_eq!(
        error["error"], "invalid_arguments",
        "a filter OpenAI's model is not shown: {error}"
    );
}

#[tokio::test]
async fn anthropic_sees_every_filter_and_reads_the_callers_rows() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir).await;
    let (_, properties) = declared(
        anthropic::tools(&registry),
        "orders_search",
        &["input_schema"],
    );
    assert_eq!(
        properties,
        [
            "status",
            "placed_after",
            "placed_before",
            "total_min",
            "note_contains",
            "sort",
            "limit",
            "offset"
        ]
    );
    let dispatcher = anthropic::Dispatcher::new(registry);
    let call = anthropic::ToolUse {
        kind: "tool_use".into(),
        id: "toolu_1".into(),
        name: "orders_search".into(),
        input: json!({"sort": "-total", "limit": 2}),
    };
    let answer = dispatcher.call(&call, &customer(1)).await;
    assert!(!answer.is_error, "{}", answer.content);
    let page: Value = serde_json::from_str(&answer.content).unwrap();
    assert_eq!(ids(&page), [2, 1], "customer 1's two largest orders");
    assert_eq!(page["total"], 4);
}

#[tokio::test]
async fn gemini_sees_every_filter_and_reads_the_callers_rows() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir).await;
    let (_, properties) = declared(gemini::tools(&registry), "orders_search", &["parameters"]);
    assert_eq!(
        properties,
        [
            "status",
            "placed_after",
            "placed_before",
            "total_min",
            "note_contains",
            "sort",
            "limit",
            "offset"
        ]
    );
    let dispatcher = gemini::Dispatcher::new(registry);
    let call = gemini::FunctionCall {
        name: "orders_search".into(),
        id: None,
        args: Some(json!({"status": "pending"})),
    };
    let answer = dispatcher.call(&call, &customer(2)).await;
    let page = &answer.response["output"];
    assert_eq!(
        ids(page),
        [5],
        "customer 2's pending order: {}",
        answer.response
    );
}

#[tokio::test]
async fn a_call_through_each_adapter_is_recorded_under_that_adapter_and_caller() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir).await;
    let arguments = json!({"status": "pending"});
    let openai_call = openai::ToolCall {
        id: "call_1".into(),
        kind: "function".into(),
        function: openai::FunctionCall {
            name: "orders_search".into(),
            arguments: arguments.to_string(),
        },
    };
    openai::Dispatcher::new(Arc::clone(&registry))
        .call(&openai_call, &customer(1))
        .await;
    let anthropic_call = anthropic::ToolUse {
        kind: "tool_use".into(),
        id: "toolu_1".into(),
        name: "orders_search".into(),
        input: arguments.clone(),
    };
    anthropic::Dispatcher::new(Arc::clone(&registry))
        .call(&anthropic_call, &customer(2))
        .await;
    let gemini_call = gemini::FunctionCall {
        name: "orders_search".into(),
        id: None,
        args: Some(arguments.clone()),
    };
    gemini::Dispatcher::new(Arc::clone(&registry))
        .call(&gemini_call, &customer(3))
        .await;
    registry.flush_audit().await;
    let trail = registry.audit().expect("the store records calls");
    let query = toolspec::audit::AuditQuery {
        tool: Some("orders_search".into()),
        ..Default::default()
    };
    let page = query.read(trail.database()).await.unwrap();
    let mut seen: Vec<(Option<&str>, Option<&str>, &Value, &Value)> = page
        .records
        .iter()
        .map(|r| {
            (
                r.adapter.as_deref(),
                r.caller.as_deref(),
                &r.ambient,
                &r.arguments,
            )
        })
        .collect();
    seen.sort_by_key(|(adapter, ..)| *adapter);
    assert_eq!(
        seen,
        [
            (
                Some("anthropic"),
                Some("customer-2"),
                &json!({"customer_id": 2}),
                &arguments
            ),
            (
                Some("gemini"),
                Some("customer-3"),
                &json!({"customer_id": 3}),
                &arguments
            ),
            (
                Some("openai"),
                Some("customer-1"),
                &json!({"customer_id": 1}),
                &arguments
            ),
        ]
    );
}

/// What a function call answered, as JSON: OpenAI's and Anthropic's content, Gemini's output
/// (or error).
async fn ask(
    registry: &Arc<toolspec::Registry>,
    adapter: &str,
    name: &str,
    args: Value,
    caller: &Caller,
) -> Value {
    match adapter {
        "openai" => {
            let call = openai::ToolCall {
                id: "call_1".into(),
                kind: "function".into(),
                function: openai::FunctionCall {
                    name: name.into(),
                    arguments: args.to_string(),
                },
            };
            let answer = openai::Dispatcher::new(Arc::clone(registry))
                .call(&call, caller)
                .await;
            serde_json::from_str(&answer.content).unwrap()
        }
        "anthropic" => {
            let call = anthropic::ToolUse {
                kind: "tool_use".into(),
                id: "toolu_1".into(),
                name: name.into(),
                input: args,
            };
            let answer = anthropic::Dispatcher::new(Arc::clone(registry))
                .call(&call, caller)
                .await;
            serde_json::from_str(&answer.content).unwrap()
        }
        _ => {
            let call = gemini::FunctionCall {
                name: name.into(),
                id: None,
                args: Some(args),
            };
            let answer = gemini::Dispatcher::new(Arc::clone(registry))
                .call(&call, caller)
                .await;
            let response = answer.response;
            response
                .get("output")
                .or_else(|| response.get("error"))
                .unwrap()
                .clone()
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_required_task_answers_a_ticket_that_the_task_status_tool_reads_on_each_adapter() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir).await;
    assert!(registry.start_tasks(), "the store's worker runs its tasks");

    // The task status tool is offered where there is no task surface of its own.
    let names = |tools: Vec<Value>, key: &str| -> Vec<String> {
        tools
            .iter()
            .map(|t| t.pointer(key).and_then(Value::as_str).unwrap().to_owned())
            .collect()
    };
    let openai_tools: Vec<Value> = openai::tools(&registry)
        .into_iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .collect();
    assert!(names(openai_tools, "/function/name").contains(&"task_status".into()));
    let anthropic_tools: Vec<Value> = anthropic::tools(&registry)
        .into_iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .collect();
    assert!(names(anthropic_tools, "/name").contains(&"task_status".into()));
    let status = registry
        .get("task_status")
        .expect("the store has a task status tool");
    let on: Vec<&str> = status
        .descriptor()
        .adapters
        .iter()
        .map(|b| &*b.adapter)
        .collect();
    assert_eq!(
        on,
        ["anthropic", "gemini", "openai", "rig"],
        "not MCP nor HTTP: they have tasks of their own"
    );

    for adapter in ["openai", "anthropic", "gemini"] {
        let ticket = ask(&registry, adapter, "orders_report", json!({}), &customer(1)).await;
        assert_eq!(ticket["tool"], "orders_report", "{adapter}: {ticket}");
        assert_eq!(ticket["status"], "working", "{adapter}: {ticket}");
        let id = ticket["task_id"].as_str().unwrap().to_owned();
        let next = ticket["next"].as_str().unwrap();
        assert!(
            next.contains("`task_status`") && next.contains(&id),
            "{adapter}: {next}"
        );

        let read = json!({"task_id": id, "wait_seconds": 20});
        let task = ask(
            &registry,
            adapter,
            "task_status",
            read.clone(),
            &customer(1),
        )
        .await;
        assert_eq!(task["status"], "completed", "{adapter}: {task}");
        assert_eq!(task["result"]["orders"], 4, "{adapter}: {task}");
        let statuses: Vec<&str> = task["result"]["totals"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["status"].as_str().unwrap())
            .collect();
        assert_eq!(
            statuses,
            ["cancelled", "delivered", "pending", "shipped"],
            "{adapter}: {task}"
        );

        // Another caller's task is an unknown one; an id that is none is an argument error.
        let theirs = ask(&registry, adapter, "task_status", read, &customer(2)).await;
        assert_eq!(theirs["error"], "unknown_task", "{adapter}: {theirs}");
        let unknown = json!({"task_id": "0123456789abcdef0123456789abcdef"});
        let unknown = ask(&registry, adapter, "task_status", unknown, &customer(1)).await;
        assert_eq!(
            unknown, theirs,
            "{adapter}: another caller's task looks like no task"
        );
        let malformed = ask(
            &registry,
            adapter,
            "task_status",
            json!({"task_id": "x"}),
            &customer(1),
        )
        .await;
        assert_eq!(
            malformed["error"], "invalid_arguments",
            "{adapter}: {malformed}"
        );
    }

    // An optional task runs inline over function calling: the export answers its orders.
    let export = ask(
        &registry,
        "openai",
        "orders_export",
        json!({}),
        &customer(1),
    )
    .await;
    assert_eq!(export["count"], 4, "{export}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_worker_a_waiting_read_answers_the_task_still_working() {
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir).await;
    let ticket = ask(
        &registry,
        "openai",
        "orders_report",
        json!({}),
        &customer(1),
    )
    .await;
    let id = ticket["task_id"].as_str().unwrap();
    let started = std::time::Instant::now();
    let read = json!({"task_id": id, "wait_seconds": 1});
    let task = ask(&registry, "openai", "task_status", read, &customer(1)).await;
    assert_eq!(task["status"], "working", "{task}");
    assert!(
        started.elapsed() >= std::time::Duration::from_secs(1),
        "it waited"
    );
    assert!(task.get("result").is_none(), "{task}");
    let too_long = json!({"task_id": id, "wait_seconds": 31});
    let error = ask(&registry, "openai", "task_status", too_long, &customer(1)).await;
    assert_eq!(
        error["error"], "invalid_arguments",
        "wait_seconds is at most 30: {error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_over_the_rate_limit_answers_rate_limited_and_is_recorded_as_such() {
    // `orders_report` allows bursts of 5 per caller.
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir).await;
    for adapter in ["openai", "anthropic", "gemini", "openai", "anthropic"] {
        let ticket = ask(&registry, adapter, "orders_report", json!({}), &customer(1)).await;
        assert_eq!(ticket["status"], "working", "{adapter}: {ticket}");
    }
    for adapter in ["openai", "anthropic", "gemini"] {
        let refused = ask(&registry, adapter, "orders_report", json!({}), &customer(1)).await;
        assert_eq!(refused["error"], "rate_limited", "{adapter}: {refused}");
        let retry = refused["details"]["retry_after"].as_u64().unwrap();
        assert!((1..=10).contains(&retry), "{adapter}: {refused}");
    }
    let theirs = ask(
        &registry,
        "gemini",
        "orders_report",
        json!({}),
        &customer(2),
    )
    .await;
    assert_eq!(
        theirs["status"], "working",
        "another caller's budget: {theirs}"
    );

    registry.flush_audit().await;
    let trail = registry.audit().expect("the store records calls");
    let query = toolspec::audit::AuditQuery {
        tool: Some("orders_report".into()),
        ..Default::default()
    };
    let page = query.read(trail.database()).await.unwrap();
    let outcomes: Vec<(Option<&str>, Option<&str>, u64)> = page
        .records
        .iter()
        .map(|r| (r.caller.as_deref(), r.outcome.as_deref(), r.calls))
        .collect();
    // (Refusals of one caller within a second are counted together on a record or two.)
    let limited: u64 = outcomes
        .iter()
        .filter(|(_, outcome, _)| *outcome == Some("rate_limited"))
        .map(|(_, _, calls)| calls)
        .sum();
    assert_eq!(limited, 3, "each refusal is recorded as such: {outcomes:?}");
    let calls: u64 = outcomes.iter().map(|(_, _, calls)| calls).sum();
    assert_eq!(calls, 9, "every call is recorded: {outcomes:?}");
}

/// Customer 1's order `id`, as `orders_get` answers the app.
async fn order_status(registry: &toolspec::Registry, id: i64) -> Value {
    let got = registry
        .invoke_with(
            "orders_get",
            json!({ "order_id": id }),
            &customer(1).ambient,
            toolspec::CallOptions::for_caller("openai", &customer(1)),
        )
        .await
        .unwrap();
    got.value().unwrap()["order"]["status"].clone()
}

#[tokio::test]
async fn a_call_that_asks_its_user_goes_to_the_app_and_on_with_its_answer_never_the_models() {
    use toolspec::calling::Dispatched;
    use toolspec::user_input::{Continuation, InputResponse};
    let dir = tempfile::tempdir().unwrap();
    let registry = registry(&dir).await;
    let dispatcher = openai::Dispatcher::new(Arc::clone(&registry));
    let caller = customer(1);
    let call = |arguments: Value| openai::ToolCall {
        id: "call_1".into(),
        kind: "function".into(),
        function: openai::FunctionCall {
            name: "orders_cancel".into(),
            arguments: arguments.to_string(),
        },
    };
    let cancel = call(json!({ "order": 1 }));
    // The app is handed the question; the model is told nothing yet.
    let asked = match dispatcher.dispatch(&cancel, &caller, None).await {
        Dispatched::Ask(asked) => asked,
        Dispatched::Answer(message) => panic!("answered: {message:?}"),
    };
    assert_eq!(asked.tool, "orders_cancel");
    assert_eq!(asked.requests.len(), 1);
    assert!(asked.requests[0].is_confirmation());
    assert_eq!(
        asked.requests[0].message,
        "Cancel order 1 (now pending)? A cancelled order cannot be reopened."
    );
    assert_eq!(order_status(&registry, 1).await, "pending");

    // A plain call (an app that does not ask) tells the model, and does nothing.
    let plain = dispatcher.call(&cancel, &caller).await;
    let plain: Value = serde_json::from_str(&plain.content).unwrap();
    assert_eq!(plain["error"], "input_required");
    assert!(plain["details"].get("request_state").is_none(), "{plain}");
    // Nor can the model confirm by itself: an argument it invents is refused.
    let forged = dispatcher
        .call(&call(json!({ "order": 1, "confirm": true })), &caller)
        .await;
    let forged: Value = serde_json::from_str(&forged.content).unwrap();
    assert_eq!(forged["error"], "invalid_arguments");
    assert_eq!(order_status(&registry, 1).await, "pending");

    // The user declines: the model reads that nothing was done.
    let mut no = Continuation::confirm(asked.request_state.clone());
    no.responses
        .insert("confirm".into(), InputResponse::Decline);
    let Dispatched::Answer(declined) = dispatcher.dispatch(&cancel, &caller, Some(no)).await else {
        panic!("asked again");
    };
    let declined: Value = serde_json::from_str(&declined.content).unwrap();
    assert_eq!(declined["error"], "declined");
    assert_eq!(order_status(&registry, 1).await, "pending");

    // Asked again and confirmed: it runs, once.
    let Dispatched::Ask(asked) = dispatcher.dispatch(&cancel, &caller, None).await else {
        panic!("not asked");
    };
    let yes = Continuation::confirm(asked.request_state.clone());
    let Dispatched::Answer(done) = dispatcher
        .dispatch(&cancel, &caller, Some(yes.clone()))
        .await
    else {
        panic!("asked again");
    };
    let done: Value = serde_json::from_str(&done.content).unwrap();
    assert_eq!(done["order"]["status"], "cancelled");
    assert_eq!(order_status(&registry, 1).await, "cancelled");
    let Dispatched::Answer(replayed) = dispatcher.dispatch(&cancel, &caller, Some(yes)).await
    else {
        panic!("asked again");
    };
    let replayed: Value = serde_json::from_str(&replayed.content).unwrap();
    assert_eq!(replayed["error"], "invalid_request_state");

    // The trail shows each: asked, declined, asked, confirmed and run, refused.
    registry.flush_audit().await;
    let trail = registry.audit().expect("the store records calls");
    let query = toolspec::audit::AuditQuery {
        tool: Some("orders_cancel".into()),
        ..Default::default()
    };
    let mut page = query.read(trail.database()).await.unwrap();
    page.records.reverse();
    let outcomes: Vec<&str> = page
        .records
        .iter()
        .filter_map(|r| r.outcome.as_deref())
        .collect();
    assert_eq!(
        outcomes,
        [
            "input_required",
            "input_required",
            "invalid_arguments",
            "declined",
            "input_required",
            "ok",
            "invalid_request_state"
        ]
    );
    // The continued calls keep what the user answered: the confirmed one, the declined one.
    let answered: Vec<(&str, &Value)> = page
        .records
        .iter()
        .filter_map(|r| Some((r.outcome.as_deref()?, r.answers.as_ref()?)))
        .collect();
    let accepted = json!({ "confirm": { "action": "accept", "content": {} } });
    let declined = json!({ "confirm": { "action": "decline" } });
    assert_eq!(
        answered,
        [
            ("declined", &declined),
            ("ok", &accepted),
            ("invalid_request_state", &accepted)
        ]
    );
}

/// A read-only deployment through function calling: each adapter declares only the tools
/// that read, and a call of a writing tool is a call of an unknown one.
#[tokio::test]
async fn a_read_only_registry_declares_and_calls_only_the_tools_that_read() {
    let dir = tempfile::tempdir().unwrap();
    let store =
        toolspec_store::Store::open(&toolspec_store::Location::File(dir.path().join("store.db")))
            .await
            .unwrap();
    let registry = Arc::new(toolspec_store::registry(store).read_only());
    let names = |tools: Vec<Value>, at: &[&str]| -> Vec<String> {
        let mut names: Vec<String> = tools
            .iter()
            .map(|t| {
                at.iter()
                    .fold(t, |v, k| &v[*k])
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect();
        names.sort();
        names
    };
    let reading = [
        "customers_me",
        "explain",
        "orders_export",
        "orders_get",
        "orders_report",
        "orders_search",
        "task_status",
    ];
    assert_eq!(
        names(json(openai::tools(&registry)), &["function", "name"]),
        reading
    );
    assert_eq!(names(json(anthropic::tools(&registry)), &["name"]), reading);
    assert_eq!(names(json(gemini::tools(&registry)), &["name"]), reading);

    let dispatcher = openai::Dispatcher::new(registry);
    let call = openai::ToolCall {
        id: "call_1".into(),
        kind: "function".into(),
        function: openai::FunctionCall {
            name: "orders_cancel".into(),
            arguments: json!({"order": 1}).to_string(),
        },
    };
    let answer = dispatcher.call(&call, &customer(1)).await;
    let error: Value = serde_json::from_str(&answer.content).unwrap();
    assert_eq!(error["error"], "unknown_tool", "{error}");
}

/// Declarations as JSON.
fn json<T: serde::Serialize>(tools: Vec<T>) -> Vec<Value> {
    tools
        .into_iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_export_past_its_result_cap_is_cut_with_a_notice_on_every_provider() {
    // 4 seeded orders and 150 more: `orders_export` keeps 100 (its `result_cap`).
    let dir = tempfile::tempdir().unwrap();
    orders::add_orders(&dir.path().join("store.db"), 1, 150).await;
    let registry = registry(&dir).await;
    let tool = registry.get("orders_export").unwrap().descriptor();
    let schema: Value = serde_json::from_str(&tool.output_schema).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for adapter in ["openai", "anthropic", "gemini"] {
        let mut export = ask(&registry, adapter, "orders_export", json!({}), &customer(1)).await;
        let notice = export
            .as_object_mut()
            .and_then(|o| o.remove("_truncated"))
            .unwrap_or_else(|| panic!("{adapter}: no notice"));
        assert_eq!(
            notice,
            json!({
                "limit": {"items": 100, "bytes": 262144},
                "cut": [{"at": "/orders", "kept": 100, "total": 154, "by": "items"}],
            }),
            "{adapter}"
        );
        assert_eq!(export["orders"].as_array().unwrap().len(), 100, "{adapter}");
        assert_eq!(
            export["count"], 154,
            "{adapter}: the count is the whole export's"
        );
        assert!(validator.is_valid(&export), "{adapter}: {export}");
    }
}
