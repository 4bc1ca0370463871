//! The task queue's statements on SQLite and PostgreSQL, through the core's `TaskQueue` seam:
//! a stored task is its owner's; one worker claims it at a time; a claim whose lease lapsed is
//! taken over (the first worker then finds it lost and writes nothing); a cancelled task tells
//! its worker; an owner at the bound is refused; a task past its retention reads as unknown and
//! is swept.

use std::time::Duration;

use chrono::Utc;
use serde_json::json;
use toolspec_core::ProgressUpdate;
use toolspec_core::storage::{Enqueued, NewTask, Renewal, TaskEvent, TaskOutcome, TaskQueue};
use toolspec_core::tasks::{TaskId, TaskStatus};
use toolspec_sql::Database;

/// A task of `owner` kept for `retention`.
fn task(owner: &str, retention: Duration) -> NewTask {
    let now = Utc::now();
    NewTask {
        id: TaskId::random(),
        owner: owner.into(),
        tool: "export".into(),
        adapter: Some("mcp".into()),
        scopes: json!(["reports:read"]),
        ambient: json!({ "tenant": 7 }),
        arguments: json!({ "month": "2026-11" }),
        trace_id: Some("trace".into()),
        created_at: now,
        expires_at: now + chrono::Duration::from_std(retention).unwrap(),
        timeout: Duration::from_secs(60),
    }
}

async fn the_queue_keeps_its_promises(db: Database) {
    db.prepare().await.expect("migrated");
    let mut events = db.task_events();

    // Stored, and its owner's only.
    let stored = task("ada", Duration::from_secs(3600));
    assert_eq!(db.enqueue_task(&stored, 2).await.unwrap(), Enqueued::Stored);
    assert_eq!(events.recv().await.unwrap(), TaskEvent::Enqueued);
    let read = db
        .read_task(&stored.id, "ada")
        .await
        .unwrap()
        .expect("ada's task");
    assert_eq!(
        (read.status, read.attempts, read.result),
        (TaskStatus::Working, 0, None)
    );
    assert!(db.read_task(&stored.id, "grace").await.unwrap().is_none());
    assert!(db.cancel_task(&stored.id, "grace").await.unwrap().is_none());

    // An owner at the bound is refused; another owner is not.
    let second = task("ada", Duration::from_secs(3600));
    assert_eq!(db.enqueue_task(&second, 2).await.unwrap(), Enqueued::Stored);
    let third = task("ada", Duration::from_secs(3600));
    assert_eq!(
        db.enqueue_task(&third, 2).await.unwrap(),
        Enqueued::OwnerAtBound
    );
    assert!(
        db.read_task(&third.id, "ada").await.unwrap().is_none(),
        "not stored"
    );
    assert_eq!(db.list_tasks("ada", 10).await.unwrap().len(), 2);

    // One worker claims the oldest, with what the run needs; nobody else gets it.
    let lease = Duration::from_millis(300);
    let claimed = db.claim_task("w1", lease).await.unwrap().expect("a task");
    assert_eq!(claimed.task.id, stored.id);
    assert_eq!(claimed.attempt, 1);
    assert_eq!(claimed.task.ambient, json!({ "tenant": 7 }));
    assert_eq!(claimed.task.arguments, json!({ "month": "2026-11" }));
    assert_eq!(claimed.task.scopes, json!(["reports:read"]));
    let other = db
        .claim_task("w2", lease)
        .await
        .unwrap()
        .expect("the second");
    assert_eq!(other.task.id, second.id);
    assert!(
        db.claim_task("w3", lease).await.unwrap().is_none(),
        "nothing left"
    );

    // Renewing writes progress; past the lease another worker takes the task over, and the
    // first finds its claim lost.
    let progress = ProgressUpdate {
        fraction: 0.5,
        message: "half".into(),
    };
    let renewed = db
        .renew_task(&stored.id, "w1", lease, Some(&progress))
        .await
        .unwrap();
    assert_eq!(renewed, Renewal::Held);
    let read = db.read_task(&stored.id, "ada").await.unwrap().unwrap();
    assert_eq!(read.progress, Some(progress));
    tokio::time::sleep(Duration::from_millis(400)).await;
    let taken = db
        .claim_task("w3", Duration::from_secs(60))
        .await
        .unwrap()
        .expect("taken over");
    assert_eq!(
        (taken.task.id.clone(), taken.attempt),
        (stored.id.clone(), 2)
    );
    assert_eq!(
        db.renew_task(&stored.id, "w1", lease, None).await.unwrap(),
        Renewal::Lost
    );
    let late = TaskOutcome {
        status: TaskStatus::Completed,
        result: Some(json!({"value": 1, "message": "late"})),
    };
    assert!(
        !db.finish_task(&stored.id, "w1", &late).await.unwrap(),
        "a lost claim writes nothing"
    );

    // The holder ends it once; its arguments and ambient context are erased.
    let done = TaskOutcome {
        status: TaskStatus::Completed,
        result: Some(json!({"value": {"rows": 3}, "message": "Exported 3 rows."})),
    };
    assert!(db.finish_task(&stored.id, "w3", &done).await.unwrap());
    assert!(
        !db.finish_task(&stored.id, "w3", &done).await.unwrap(),
        "once"
    );
    let read = db.read_task(&stored.id, "ada").await.unwrap().unwrap();
    assert_eq!(read.status, TaskStatus::Completed);
    assert_eq!(read.result.unwrap().outcome, Ok(json!({"rows": 3})));

    // Cancelling tells the worker; cancelling an ended task changes nothing.
    let cancelled = db.cancel_task(&second.id, "ada").await.unwrap().unwrap();
    assert_eq!(cancelled.status, TaskStatus::Cancelled);
    loop {
        match events.recv().await.unwrap() {
            TaskEvent::Cancelled(id) => break assert_eq!(id, second.id),
            TaskEvent::Enqueued => {}
        }
    }
    assert_eq!(
        db.renew_task(&second.id, "w2", lease, None).await.unwrap(),
        Renewal::Cancelled
    );
    let ended = db.cancel_task(&stored.id, "ada").await.unwrap().unwrap();
    assert_eq!(
        ended.status,
        TaskStatus::Completed,
        "an ended task stays as it ended"
    );

    // Past its retention a task reads as unknown, and the sweep deletes it.
    let brief = task("ada", Duration::from_millis(200));
    assert_eq!(db.enqueue_task(&brief, 10).await.unwrap(), Enqueued::Stored);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        db.read_task(&brief.id, "ada").await.unwrap().is_none(),
        "past its retention"
    );
    assert!(db.delete_expired_tasks().await.unwrap() >= 1);
    assert!(
        db.claim_task("w4", lease).await.unwrap().is_none(),
        "swept, never run"
    );
}

#[tokio::test]
async fn sqlite_the_queue_keeps_its_promises() {
    let dir = std::env::temp_dir().join(format!("toolspec-sql-tasks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(dir.join("tasks.db"))
        .create_if_missing(true);
    let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
    the_queue_keeps_its_promises(Database::sqlite(pool)).await;
    let _ = std::fs::remove_dir_all(dir);
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn postgres_the_queue_keeps_its_promises() {
    toolspec_test_postgres::with_scratch_pool(async |pool| {
        the_queue_keeps_its_promises(Database::postgres(pool)).await;
    })
    .await;
}
