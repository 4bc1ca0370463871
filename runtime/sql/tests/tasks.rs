//! The task queue's statements on SQLite and PostgreSQL, through the core's `TaskQueue` seam:
//! a stored task is its owner's; one worker claims it at a time; a claim whose lease lapsed is
//! taken over (the first worker then finds it lost and writes nothing); a cancelled task tells
//! its worker; an owner at a bound is refused; a task past its retention reads as unknown and
//! is swept. Claims are fair: a worker claims only tasks of the tools it serves, an owner's
//! tasks run within its share (and its tool's `in_flight`), each owner's first waiting task
//! goes before any owner's second; a task no live worker serves reads as waiting for one; an owner's kept tasks and
//! kept bytes of results are bounded; a task cancelled before it ran is handed once to a worker
//! serving its tool, to record its end.

use std::time::Duration;

use chrono::Utc;
use serde_json::json;
use toolspec_core::ProgressUpdate;
use toolspec_core::storage::{
    Enqueued, NewTask, OwnerBound, Renewal, ServedTool, TaskEvent, TaskOutcome, TaskQueue,
    TasksConfig,
};
use toolspec_core::tasks::{Queued, TaskId, TaskStatus};
use toolspec_sql::Database;

/// A task of `owner` kept for `retention`.
fn task(owner: &str, retention: Duration) -> NewTask {
    task_of("export", owner, retention)
}

/// A task of `tool` of `owner` kept for `retention`.
fn task_of(tool: &str, owner: &str, retention: Duration) -> NewTask {
    let now = Utc::now();
    NewTask {
        id: TaskId::random(),
        owner: owner.into(),
        tool: tool.into(),
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

/// `per_caller` unfinished tasks per owner, the other bounds the defaults.
fn unfinished(per_caller: u32) -> TasksConfig {
    TasksConfig {
        per_caller,
        ..TasksConfig::DEFAULT
    }
}

/// Workers `names` serve `tools` (none with a bound in flight of its own).
async fn serving(db: &Database, names: &[&str], tools: &[&str]) {
    let tools: Vec<ServedTool<'_>> = tools
        .iter()
        .map(|name| ServedTool { name, in_flight: 0 })
        .collect();
    for worker in names {
        db.serve_tasks(worker, &tools).await.expect("served");
    }
}

async fn the_queue_keeps_its_promises(db: Database) {
    db.prepare().await.expect("migrated");
    let mut events = db.task_events();
    serving(&db, &["w1", "w2", "w3", "w4"], &["export"]).await;
    let claims = TasksConfig::DEFAULT;

    // Stored, and its owner's only.
    let stored = task("ada", Duration::from_secs(3600));
    assert_eq!(
        db.enqueue_task(&stored, &unfinished(2)).await.unwrap(),
        Enqueued::Stored
    );
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
    assert_eq!(
        db.enqueue_task(&second, &unfinished(2)).await.unwrap(),
        Enqueued::Stored
    );
    let third = task("ada", Duration::from_secs(3600));
    assert_eq!(
        db.enqueue_task(&third, &unfinished(2)).await.unwrap(),
        Enqueued::OwnerAtBound(OwnerBound::Unfinished)
    );
    assert!(
        db.read_task(&third.id, "ada").await.unwrap().is_none(),
        "not stored"
    );
    assert_eq!(db.list_tasks("ada", 10).await.unwrap().len(), 2);

    // One worker claims the oldest, with what the run needs; nobody else gets it.
    let lease = Duration::from_millis(300);
    let claimed = db
        .claim_task("w1", lease, &claims)
        .await
        .unwrap()
        .expect("a task");
    assert_eq!(claimed.task.id, stored.id);
    assert_eq!(claimed.attempt, 1);
    assert_eq!(claimed.task.ambient, json!({ "tenant": 7 }));
    assert_eq!(claimed.task.arguments, json!({ "month": "2026-11" }));
    assert_eq!(claimed.task.scopes, json!(["reports:read"]));
    let other = db
        .claim_task("w2", lease, &claims)
        .await
        .unwrap()
        .expect("the second");
    assert_eq!(other.task.id, second.id);
    assert!(
        db.claim_task("w3", lease, &claims).await.unwrap().is_none(),
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
        .claim_task("w3", Duration::from_secs(60), &claims)
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
            TaskEvent::Enqueued | TaskEvent::Ended => {}
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
    assert_eq!(
        db.enqueue_task(&brief, &unfinished(10)).await.unwrap(),
        Enqueued::Stored
    );
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        db.read_task(&brief.id, "ada").await.unwrap().is_none(),
        "past its retention"
    );
    assert!(db.delete_expired_tasks().await.unwrap() >= 1);
    assert!(
        db.claim_task("w4", lease, &claims).await.unwrap().is_none(),
        "swept, never run"
    );
}

/// Ends task `id`, claimed by `worker`, with a result of about `bytes` bytes.
async fn end(db: &Database, id: &TaskId, worker: &str, bytes: usize) {
    let done = TaskOutcome {
        status: TaskStatus::Completed,
        result: Some(json!({"value": {"text": "x".repeat(bytes)}, "message": "Done."})),
    };
    assert!(db.finish_task(id, worker, &done).await.unwrap(), "ended");
}

/// Who owns the task `worker` claims next (`None`: nothing to claim).
async fn next_owner(db: &Database, worker: &str, bounds: &TasksConfig) -> Option<(String, TaskId)> {
    let claimed = db
        .claim_task(worker, Duration::from_secs(60), bounds)
        .await
        .unwrap()?;
    Some((claimed.task.owner, claimed.task.id))
}

async fn claims_are_fair(db: Database) {
    db.prepare().await.expect("migrated");
    let hour = Duration::from_secs(3600);
    let bounds = TasksConfig {
        running_per_caller: 2,
        ..TasksConfig::DEFAULT
    };
    // Ada floods the queue first; Grace's one task comes after all of hers.
    let mut ada = Vec::new();
    for _ in 0..6 {
        let t = task("ada", hour);
        assert_eq!(
            db.enqueue_task(&t, &bounds).await.unwrap(),
            Enqueued::Stored
        );
        ada.push(t.id);
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let grace = task("grace", hour);
    assert_eq!(
        db.enqueue_task(&grace, &bounds).await.unwrap(),
        Enqueued::Stored
    );

    // Nobody serves `export` yet: every task waits for a process that does, and none is
    // claimed by a worker serving another tool.
    let read = db.read_task(&grace.id, "grace").await.unwrap().unwrap();
    assert_eq!(read.queued, Some(Queued::NoWorker));
    assert!(
        read.status_message()
            .unwrap()
            .contains("no running server serves `export`"),
        "{:?}",
        read.status_message()
    );
    serving(&db, &["reports"], &["report"]).await;
    assert_eq!(next_owner(&db, "reports", &bounds).await, None);

    // A worker that serves it takes Ada's oldest, then Grace's (she has none running), then
    // Ada's second; then Ada is at her share and nothing else waits.
    serving(&db, &["w"], &["export"]).await;
    let read = db.read_task(&grace.id, "grace").await.unwrap().unwrap();
    assert_eq!(read.queued, Some(Queued::ForWorker));
    assert_eq!(
        next_owner(&db, "w", &bounds).await,
        Some(("ada".into(), ada[0].clone()))
    );
    assert_eq!(
        next_owner(&db, "w", &bounds).await,
        Some(("grace".into(), grace.id.clone()))
    );
    assert_eq!(
        next_owner(&db, "w", &bounds).await,
        Some(("ada".into(), ada[1].clone()))
    );
    assert_eq!(
        next_owner(&db, "w", &bounds).await,
        None,
        "Ada is at her share"
    );
    let running = db.read_task(&ada[0], "ada").await.unwrap().unwrap();
    assert_eq!((running.queued, running.status_message()), (None, None));
    assert_eq!(
        db.read_task(&ada[2], "ada").await.unwrap().unwrap().queued,
        Some(Queued::ForWorker)
    );

    // One of hers ends: her next may start (another worker of the database claims it, as the
    // share is the database's).
    let mut events = db.task_events();
    end(&db, &ada[0], "w", 10).await;
    assert_eq!(events.recv().await.unwrap(), TaskEvent::Ended);
    serving(&db, &["v"], &["export"]).await;
    assert_eq!(
        next_owner(&db, "v", &bounds).await,
        Some(("ada".into(), ada[2].clone()))
    );
    assert_eq!(next_owner(&db, "v", &bounds).await, None);

    // A tool's `in_flight` bounds one owner's running tasks of it below the share.
    let wide = TasksConfig {
        running_per_caller: 10,
        ..TasksConfig::DEFAULT
    };
    let reports: Vec<NewTask> = (0..3).map(|_| task_of("report", "lin", hour)).collect();
    for t in &reports {
        assert_eq!(db.enqueue_task(t, &wide).await.unwrap(), Enqueued::Stored);
    }
    let bounded = [ServedTool {
        name: "report",
        in_flight: 2,
    }];
    db.serve_tasks("r", &bounded).await.unwrap();
    assert_eq!(
        next_owner(&db, "r", &wide).await.map(|o| o.0),
        Some("lin".into())
    );
    assert_eq!(
        next_owner(&db, "r", &wide).await.map(|o| o.0),
        Some("lin".into())
    );
    assert_eq!(
        next_owner(&db, "r", &wide).await,
        None,
        "two of lin's reports run"
    );

    // Below every share, a caller's backlog waits behind another's first task: each caller's
    // first waiting task goes before any caller's second.
    let backlog: Vec<NewTask> = (0..4).map(|_| task_of("export", "max", hour)).collect();
    for t in &backlog {
        assert_eq!(db.enqueue_task(t, &wide).await.unwrap(), Enqueued::Stored);
    }
    let max = |o: Option<(String, TaskId)>| o.map(|(owner, _)| owner);
    assert_eq!(max(next_owner(&db, "w", &wide).await), Some("max".into()));
    let newcomer = task_of("export", "nia", hour);
    assert_eq!(
        db.enqueue_task(&newcomer, &wide).await.unwrap(),
        Enqueued::Stored
    );
    assert_eq!(
        next_owner(&db, "w", &wide).await,
        Some(("nia".into(), newcomer.id.clone())),
        "Nia's first task before Max's second"
    );
    assert_eq!(max(next_owner(&db, "w", &wide).await), Some("max".into()));

    // A worker that stopped serves nothing: the report not claimed waits for one that does.
    db.stop_serving("r").await.unwrap();
    db.stop_serving("reports").await.unwrap();
    let mut queued = Vec::new();
    for t in &reports {
        queued.push(db.read_task(&t.id, "lin").await.unwrap().unwrap().queued);
    }
    queued.sort_by_key(|q| format!("{q:?}"));
    assert_eq!(queued, [None, None, Some(Queued::NoWorker)]);
}

async fn kept_tasks_are_bounded(db: Database) {
    db.prepare().await.expect("migrated");
    serving(&db, &["k"], &["export"]).await;
    let hour = Duration::from_secs(3600);
    let bounds = TasksConfig {
        kept_per_caller: 3,
        kept_bytes_per_caller: 10_000,
        ..TasksConfig::DEFAULT
    };
    // Three kept (one unfinished, two ended): a fourth is refused though only one is running.
    let mut ids = Vec::new();
    for _ in 0..3 {
        let t = task("kim", hour);
        assert_eq!(
            db.enqueue_task(&t, &bounds).await.unwrap(),
            Enqueued::Stored
        );
        ids.push(t.id);
    }
    for _ in 0..2 {
        let (_, id) = next_owner(&db, "k", &bounds).await.expect("a task");
        end(&db, &id, "k", 10).await;
    }
    let fourth = task("kim", hour);
    assert_eq!(
        db.enqueue_task(&fourth, &bounds).await.unwrap(),
        Enqueued::OwnerAtBound(OwnerBound::Kept)
    );
    assert_eq!(
        db.enqueue_task(&task("lea", hour), &bounds).await.unwrap(),
        Enqueued::Stored,
        "another caller's share"
    );

    // Kept bytes: one result of 12 kB puts Noor over 10 kB.
    let big = task("noor", hour);
    assert_eq!(
        db.enqueue_task(&big, &bounds).await.unwrap(),
        Enqueued::Stored
    );
    let claimed = loop {
        let (owner, id) = next_owner(&db, "k", &bounds).await.expect("a task");
        if owner == "noor" {
            break id;
        }
    };
    end(&db, &claimed, "k", 12_000).await;
    assert_eq!(
        db.enqueue_task(&task("noor", hour), &bounds).await.unwrap(),
        Enqueued::OwnerAtBound(OwnerBound::KeptBytes)
    );

    // Tasks past their retention count no more.
    let brief = TasksConfig {
        kept_per_caller: 1,
        ..TasksConfig::DEFAULT
    };
    let gone = task("oda", Duration::from_millis(100));
    assert_eq!(
        db.enqueue_task(&gone, &brief).await.unwrap(),
        Enqueued::Stored
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        db.enqueue_task(&task("oda", hour), &brief).await.unwrap(),
        Enqueued::Stored
    );
}

async fn a_cancelled_task_is_recorded_once(db: Database) {
    db.prepare().await.expect("migrated");
    serving(&db, &["c"], &["export"]).await;
    let hour = Duration::from_secs(3600);
    let bounds = TasksConfig::DEFAULT;
    let (first, second) = (task("ivy", hour), task("ivy", hour));
    for t in [&first, &second] {
        assert_eq!(db.enqueue_task(t, &bounds).await.unwrap(), Enqueued::Stored);
    }
    let (_, running) = next_owner(&db, "c", &bounds).await.expect("a task");
    let queued = if running == first.id { &second } else { &first };
    // Cancelled while a worker runs it: the run records its end; nothing is left to record.
    db.cancel_task(&running, "ivy").await.unwrap();
    assert!(
        db.claim_unrecorded("c", Duration::from_secs(60))
            .await
            .unwrap()
            .is_none()
    );
    // Cancelled before any worker ran it: a worker serving its tool claims it to record its
    // end, with what it stored; once recorded, it is not claimed again.
    db.cancel_task(&queued.id, "ivy").await.unwrap();
    serving(&db, &["other"], &["report"]).await;
    assert!(
        db.claim_unrecorded("other", Duration::from_secs(60))
            .await
            .unwrap()
            .is_none()
    );
    let unrecorded = db
        .claim_unrecorded("c", Duration::from_secs(60))
        .await
        .unwrap()
        .expect("the cancelled task");
    assert_eq!(unrecorded.task.id, queued.id);
    assert_eq!(unrecorded.task.arguments, json!({ "month": "2026-11" }));
    assert!(
        db.claim_unrecorded("c", Duration::from_secs(60))
            .await
            .unwrap()
            .is_none(),
        "claimed"
    );
    db.recorded(&queued.id, "c").await.unwrap();
    let read = db.read_task(&queued.id, "ivy").await.unwrap().unwrap();
    assert_eq!(read.status, TaskStatus::Cancelled);
    assert!(
        db.claim_unrecorded("c", Duration::from_millis(1))
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn sqlite_a_cancelled_task_is_recorded_once() {
    let (db, dir) = sqlite("cancelled").await;
    a_cancelled_task_is_recorded_once(db).await;
    let _ = std::fs::remove_dir_all(dir);
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn postgres_a_cancelled_task_is_recorded_once() {
    toolspec_test_postgres::with_scratch_pool(async |pool| {
        a_cancelled_task_is_recorded_once(Database::postgres(pool)).await;
    })
    .await;
}

/// A SQLite database in a scratch file named `name`, and its folder.
async fn sqlite(name: &str) -> (Database, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!("toolspec-sql-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(dir.join("tasks.db"))
        .create_if_missing(true);
    let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
    (Database::sqlite(pool), dir)
}

#[tokio::test]
async fn sqlite_claims_are_fair() {
    let (db, dir) = sqlite("fair").await;
    claims_are_fair(db).await;
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn sqlite_kept_tasks_are_bounded() {
    let (db, dir) = sqlite("kept").await;
    kept_tasks_are_bounded(db).await;
    let _ = std::fs::remove_dir_all(dir);
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn postgres_claims_are_fair() {
    toolspec_test_postgres::with_scratch_pool(async |pool| {
        claims_are_fair(Database::postgres(pool)).await;
    })
    .await;
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn postgres_kept_tasks_are_bounded() {
    toolspec_test_postgres::with_scratch_pool(async |pool| {
        kept_tasks_are_bounded(Database::postgres(pool)).await;
    })
    .await;
}

#[tokio::test]
async fn sqlite_the_queue_keeps_its_promises() {
    let (db, dir) = sqlite("tasks").await;
    the_queue_keeps_its_promises(db).await;
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
