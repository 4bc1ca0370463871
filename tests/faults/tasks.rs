//! Durable tasks shared by two server processes on one PostgreSQL database: 200 refunds
//! enqueued as tasks through both, each run exactly once whichever process claimed it
//! (counted in the orders table and in the task rows); a task read through the replica that
//! did not store it; a task cancelled through one replica stopped on the other.

use std::time::Duration;

use futures_util::StreamExt;
use rmcp::model::{CancelTaskParams, ProtocolVersion, TaskStatus};
use serde_json::json;

use crate::support::{HttpServer, TOKENS, get_task, submit, tasks_client, until_ended};
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
