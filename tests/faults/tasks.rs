//! Durable tasks shared by two server processes on one PostgreSQL database: 200 refunds
//! enqueued as tasks through both, each run exactly once whichever process claimed it
//! (counted in the orders table and in the task rows); a task read through the replica that
//! did not store it; a task cancelled through one replica stopped on the other.
//!
//! The queue is fair, on SQLite and PostgreSQL: one caller's slow tasks run within its share
//! while another caller's task goes ahead of its waiting ones, and a tool's `in_flight` bounds
//! one caller's running tasks of it. A replica runs only the tools it serves: a read-only
//! replica beside a writer never claims a refund; a refund no live process serves waits, and
//! says so, until a writer comes back and runs it; each run has its audit record.

use std::time::Duration;

use futures_util::StreamExt;
use rmcp::model::{CancelTaskParams, ProtocolVersion, TaskStatus};
use serde_json::json;

use crate::support::{
    Client, HttpServer, ServerLog, TASK_PATIENCE, TOKENS, get_task, submit, tasks_client,
    until_ended,
};
use crate::target::{Backend, Target};

/// The first of the delivered orders added for the refunds.
const FIRST: i64 = 300_000;
/// How many refunds are enqueued.
const TASKS: i64 = 200;

/// Stores a refund as a task; while Ada has as many unfinished tasks as the project allows
/// (100: on a busy machine the workers lag behind 16 submissions at a time), the call is
/// refused `too_many_tasks` and tried again a moment later.
async fn submit_within_bound(
    client: &crate::support::Client,
    arguments: serde_json::Value,
) -> String {
    loop {
        let answer = client
            .call_tool_once(crate::support::params("orders_refund", arguments.clone()))
            .await
            .expect("a tools/call answer");
        match answer {
            rmcp::model::CallToolResponse::Task(created) => return created.task.task_id,
            rmcp::model::CallToolResponse::Complete(result)
                if crate::target::code(&result) == "too_many_tasks" =>
            {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            other => panic!("expected a task handle, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn postgres_two_replicas_run_each_of_200_tasks_exactly_once() {
    let Some(target) = Target::new(Backend::Postgres).await else {
        return;
    };
    let sql = target.connect().await;
    sql.add_delivered_orders(FIRST, TASKS).await;
    let db = std::ffi::OsString::from(&target.db);
    // 200 refunds as fast as the replicas take them: a load test, without rate limits.
    let unlimited = ["--no-rate-limit"];
    let replicas = [
        HttpServer::start_on(&db, &target.scratch, TOKENS, &unlimited, None).await,
        HttpServer::start_on(&db, &target.scratch, TOKENS, &unlimited, None).await,
    ];
    let version = ProtocolVersion::V_2025_11_25;
    let clients = [
        tasks_client(&replicas[0], "ada-token", version.clone()).await,
        tasks_client(&replicas[1], "ada-token", version).await,
    ];

    // 200 refunds of one cent each, through both replicas, 16 at a time.
    let clients = &clients;
    let ids: Vec<(usize, String)> = futures_util::stream::iter(0..TASKS)
        .map(|i| async move {
            let through = (i % 2) as usize;
            let arguments = json!({ "order_id": FIRST + i, "amount": 1 });
            (
                through,
                submit_within_bound(&clients[through], arguments).await,
            )
        })
        .buffer_unordered(16)
        .collect()
        .await;
    // Each is read through the other replica: a task is the caller's, not the process's.
    for (through, id) in &ids {
        let ended = until_ended(&clients[1 - through], id).await;
        assert_eq!(ended.task.status(), TaskStatus::Completed, "{ended:?}");
    }

    let refunded = sql
        .integer(&format!(
            "SELECT COUNT(*) FROM orders WHERE id >= {FIRST} AND refunded = 1"
        ))
        .await;
    let total = sql
        .integer(&format!(
            "SELECT CAST(SUM(refunded) AS BIGINT) FROM orders WHERE id >= {FIRST}"
        ))
        .await;
    assert_eq!((refunded, total), (TASKS, TASKS), "each refund once");
    let runs = sql
        .integer(
            "SELECT CAST(SUM(attempts) AS BIGINT) FROM toolspec_tasks WHERE tool = 'orders_refund'",
        )
        .await;
    assert_eq!(runs, TASKS, "each task started once");
    // Both replicas' workers claimed some.
    for replica in &replicas {
        let started = replica.log.text().matches("task started").count();
        assert!(started > 0, "a replica ran none of the tasks");
    }

    // A slow export cancelled through the replica that does not run it stops on the one that
    // does (woken by NOTIFY, or at its next renewal).
    let id = submit(&clients[0], "orders_export", json!({ "pace_ms": 1000 })).await;
    let running = loop {
        if let Some(i) = (0..2).find(|&i| replicas[i].log.text().contains(&id)) {
            break i;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    clients[1 - running]
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .expect("acknowledged");
    let ended = replicas[running].log.wait_for(&["task ended", &id]).await;
    assert!(ended.contains("status=cancelled"), "{ended}");
    let task = get_task(&clients[running], &id).await;
    assert_eq!(task.task.status(), TaskStatus::Cancelled);

    drop(replicas);
    sql.close().await;
    target.finish().await;
}

#[tokio::test]
async fn postgres_down_refuses_new_tasks_at_once_and_a_stored_one_runs_once_it_is_back() {
    let Some(cluster) = toolspec_test_postgres::Cluster::start() else {
        return;
    };
    let scratch = crate::support::Scratch::new();
    let url = cluster.url();
    let server = HttpServer::start_on(
        std::ffi::OsStr::new(&url),
        &scratch,
        TOKENS,
        &["--db-timeout", "1"],
        None,
    )
    .await;
    let client = tasks_client(&server, "ada-token", ProtocolVersion::V_2025_11_25).await;
    // Four orders at a second each: running when the database stops.
    let id = submit(&client, "orders_export", json!({ "pace_ms": 1000 })).await;
    server.log.wait_for(&["task started", &id]).await;

    cluster.stop();
    // A new task cannot be stored: the call answers `unavailable` (a result, no handle), and
    // once the database is known down, at once.
    for _ in 0..3 {
        let started = std::time::Instant::now();
        let answer = client
            .call_tool_once(crate::support::params("orders_export", json!({})))
            .await
            .expect("an answer");
        let rmcp::model::CallToolResponse::Complete(result) = answer else {
            panic!("a task was stored with the database down: {answer:?}");
        };
        assert_eq!(crate::target::code(&result), "unavailable");
        assert!(started.elapsed() < Duration::from_secs(5));
    }
    // Reading a task is refused as unavailable, not as unknown.
    let refused = client
        .get_task(rmcp::model::GetTaskParams::new(&id))
        .await
        .expect_err("the queue is down");
    let (code, message) = crate::support::protocol_error(refused);
    assert_eq!(code, -32603);
    assert!(message.contains("unavailable"), "{message}");
    tokio::time::sleep(Duration::from_secs(2)).await;

    cluster.resume();
    // The stored task was not lost: its run met the database down and was deferred, and it
    // runs again once its claim lapses.
    let ended = until_ended(&client, &id).await;
    assert_eq!(ended.task.status(), TaskStatus::Completed, "{ended:?}");
    let inlined = match &ended.task.payload {
        rmcp::model::TaskPayload::Completed { result } => serde_json::Value::Object(result.clone()),
        other => panic!("{other:?}"),
    };
    assert_eq!(inlined["structuredContent"]["count"], json!(4), "{inlined}");
    drop(server);
}

/// The most of `ids` that ran at once, by the order of the server's "task started" and "task
/// ended" lines (a deferred run ends too).
fn most_at_once(log: &str, ids: &[String]) -> usize {
    let (mut running, mut most) = (0usize, 0usize);
    for line in log.lines() {
        if !ids.iter().any(|id| line.contains(id.as_str())) {
            continue;
        }
        if line.contains("task started") {
            running += 1;
            most = most.max(running);
        } else if line.contains("task ended") || line.contains("task deferred") {
            running = running.saturating_sub(1);
        }
    }
    most
}

/// How many runs of `tool` the server's log says it started.
fn starts(log: &ServerLog, tool: &str) -> usize {
    let text = log.text();
    let lines = text.lines();
    lines
        .filter(|line| line.contains("task started") && line.contains(tool))
        .count()
}

/// Waits until the servers' logs say they started `count` runs of `tool` between them.
async fn until_started(logs: &[&ServerLog], tool: &str, count: usize) {
    let give_up = std::time::Instant::now() + TASK_PATIENCE;
    while logs.iter().map(|log| starts(log, tool)).sum::<usize>() < count {
        assert!(
            std::time::Instant::now() < give_up,
            "fewer than {count} runs of {tool} started"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// How many of `records` are of refunds that ran (their result is the refund).
fn runs(records: &[toolspec::audit::AuditRecord]) -> usize {
    let refunded = |r: &&toolspec::audit::AuditRecord| {
        r.result
            .as_ref()
            .is_some_and(|v| v.get("refunded").is_some())
    };
    records.iter().filter(refunded).count()
}

/// Cancels each of `ids` (ended ones change nothing).
async fn cancel_all(client: &Client, ids: &[String]) {
    for id in ids {
        client
            .cancel_task(CancelTaskParams::new(id))
            .await
            .expect("acknowledged");
    }
}

/// Ada queues six slow exports (four orders at a second each), then Grace asks for her report
/// (milliseconds of work): Grace's report ends while some of Ada's exports have not started —
/// Ada runs at most her share at once (the store's `tasks.running_per_caller`: 3), and Grace's
/// task goes ahead of Ada's waiting ones. Then four of Ada's reports run at most two at once
/// (`orders_report`'s `in_flight`).
async fn one_caller_does_not_hold_the_queue(backend: Backend) {
    let Some(target) = Target::new(backend).await else {
        return;
    };
    let sql = target.connect().await;
    let db = std::ffi::OsString::from(&target.db);
    let server = HttpServer::start_on(&db, &target.scratch, TOKENS, &[], None).await;
    let version = ProtocolVersion::V_2025_11_25;
    let ada = tasks_client(&server, "ada-token", version.clone()).await;
    let grace = tasks_client(&server, "grace-token", version).await;

    let mut exports = Vec::new();
    for _ in 0..6 {
        exports.push(submit(&ada, "orders_export", json!({ "pace_ms": 1000 })).await);
    }
    // Ada's share runs.
    until_started(&[&server.log], "orders_export", 3).await;
    let report = submit(&grace, "orders_report", json!({})).await;
    let ended = until_ended(&grace, &report).await;
    assert_eq!(ended.task.status(), TaskStatus::Completed, "{ended:?}");
    let unstarted = sql
        .integer("SELECT COUNT(*) FROM toolspec_tasks WHERE owner = 'ada' AND attempts = 0")
        .await;
    assert!(
        unstarted >= 1,
        "Grace's report waited for all of Ada's exports to start"
    );
    let grace_message = get_task(&ada, &exports[5]).await;
    assert_eq!(
        grace_message.task.task.status_message.as_deref(),
        Some("Waiting for a worker to start it."),
        "Ada's last export waits, and says so"
    );
    // (A cancelled task leaves her share at once, before its handler has stopped: what ran
    // at once is read before.)
    let log = server.log.text();
    assert!(
        most_at_once(&log, &exports) <= 3,
        "more of Ada's exports ran at once than her share:\n{log}"
    );
    cancel_all(&ada, &exports).await;
    for id in &exports {
        until_ended(&ada, id).await;
    }

    // `orders_report` lets two of one caller's calls run at once: its tasks too.
    let mut reports = Vec::new();
    for _ in 0..4 {
        reports.push(submit(&ada, "orders_report", json!({})).await);
    }
    for id in &reports {
        let ended = until_ended(&ada, id).await;
        assert_eq!(ended.task.status(), TaskStatus::Completed, "{ended:?}");
    }
    let log = server.log.text();
    assert!(
        most_at_once(&log, &reports) <= 2,
        "more of Ada's reports ran at once than `in_flight: 2`:\n{log}"
    );
    drop(server);
    sql.close().await;
    target.finish().await;
}

#[tokio::test]
async fn sqlite_one_caller_does_not_hold_the_queue() {
    one_caller_does_not_hold_the_queue(Backend::Sqlite).await;
}

#[tokio::test]
async fn postgres_one_caller_does_not_hold_the_queue() {
    one_caller_does_not_hold_the_queue(Backend::Postgres).await;
}

/// Refunds (a tool a read-only replica does not serve) through a writer with a read-only
/// replica beside it: the replica claims none of them, each completes with the audit records
/// of the call that stored it and of its run. Then, with Ada's share taken by slow exports, a
/// refund waits on the writer; the writer is killed: the replica takes over the exports but
/// never the refund, which says that no running server serves it, until a writer comes back
/// and runs it.
async fn a_replica_runs_only_the_tools_it_serves(backend: Backend) {
    const REFUNDS: i64 = 12;
    let Some(target) = Target::new(backend).await else {
        return;
    };
    let sql = target.connect().await;
    sql.add_delivered_orders(FIRST, REFUNDS + 1).await;
    let db = std::ffi::OsString::from(&target.db);
    let writer = HttpServer::start_on(&db, &target.scratch, TOKENS, &[], None).await;
    let reader = HttpServer::start_on(&db, &target.scratch, TOKENS, &["--read-only"], None).await;
    let version = ProtocolVersion::V_2025_11_25;
    let through_writer = tasks_client(&writer, "ada-token", version.clone()).await;
    let through_reader = tasks_client(&reader, "ada-token", version.clone()).await;

    let mut refunds = Vec::new();
    for i in 0..REFUNDS {
        let arguments = json!({ "order_id": FIRST + i, "amount": 1 });
        refunds.push(submit(&through_writer, "orders_refund", arguments).await);
    }
    for id in &refunds {
        let ended = until_ended(&through_reader, id).await;
        assert_eq!(ended.task.status(), TaskStatus::Completed, "{ended:?}");
    }
    assert_eq!(
        starts(&reader.log, "orders_refund"),
        0,
        "the read-only replica started a refund:\n{}",
        reader.log.text()
    );
    // The call that asked its user, the one that stored it, and its run, each recorded with
    // its outcome.
    let records = target.records("orders_refund").await;
    assert_eq!(runs(&records), REFUNDS as usize, "{records:#?}");
    assert_eq!(records.len() as i64, 3 * REFUNDS, "{records:#?}");
    assert!(
        records
            .iter()
            .all(|r| matches!(r.outcome.as_deref(), Some("ok" | "input_required"))),
        "{records:#?}"
    );

    // Ada's share taken by slow exports (her orders at half a second each), a refund waits on
    // the writer for a place.
    let mut exports = Vec::new();
    for _ in 0..3 {
        exports.push(submit(&through_writer, "orders_export", json!({ "pace_ms": 500 })).await);
    }
    // (The replica serves exports too: some may run there.)
    until_started(&[&writer.log, &reader.log], "orders_export", 3).await;
    let last = json!({ "order_id": FIRST + REFUNDS, "amount": 1 });
    let waiting = submit(&through_writer, "orders_refund", last).await;
    let status = get_task(&through_reader, &waiting).await;
    assert_eq!(
        status.task.task.status_message.as_deref(),
        Some("Waiting for a worker to start it."),
        "{status:?}"
    );
    assert!(writer.stop_with("-9").await.code().is_none(), "killed");

    // Once the writer's process is found dead, the refund says no running server serves it.
    let give_up = std::time::Instant::now() + TASK_PATIENCE;
    let message = loop {
        let task = get_task(&through_reader, &waiting).await;
        assert_eq!(task.task.status(), TaskStatus::Working, "{task:?}");
        let message = task.task.task.status_message.clone().unwrap_or_default();
        if message.contains("no running server") {
            break message;
        }
        assert!(std::time::Instant::now() < give_up, "{task:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(
        message,
        "Waiting: no running server serves `orders_refund` tasks; it starts once one does."
    );
    // Ada's exports cancelled, her share is free: the replica's worker, woken, looks for
    // work, and still leaves the refund.
    cancel_all(&through_reader, &exports).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(starts(&reader.log, "orders_refund"), 0);
    let task = get_task(&through_reader, &waiting).await;
    assert_eq!(task.task.status(), TaskStatus::Working);
    assert_eq!(
        task.task.task.status_message.as_deref(),
        Some(message.as_str())
    );

    // A writer again: it runs the refund.
    let writer = HttpServer::start_on(&db, &target.scratch, TOKENS, &[], None).await;
    let ended = until_ended(&through_reader, &waiting).await;
    assert_eq!(ended.task.status(), TaskStatus::Completed, "{ended:?}");
    until_started(&[&writer.log], "orders_refund", 1).await;
    let records = target.records("orders_refund").await;
    assert_eq!(runs(&records), REFUNDS as usize + 1, "{records:#?}");
    drop((writer, reader));
    sql.close().await;
    target.finish().await;
}

#[tokio::test]
async fn sqlite_a_replica_runs_only_the_tools_it_serves() {
    a_replica_runs_only_the_tools_it_serves(Backend::Sqlite).await;
}

#[tokio::test]
async fn postgres_a_replica_runs_only_the_tools_it_serves() {
    a_replica_runs_only_the_tools_it_serves(Backend::Postgres).await;
}
