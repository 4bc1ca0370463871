//! `lock` with `wait: 0s` refuses a second holder with `locked` while the first holds the key
//! (and explain says it is held), on SQLite and PostgreSQL; records past the project's
//! retention are deleted by the writer.

use std::time::Duration;

use serde_json::json;
use toolspec::audit::AuditQuery;
use toolspec::{AmbientContext, Database, Registry};
use toolspec_test_audit::{Vault, kept_tools, tools};

async fn sqlite(dir: &tempfile::TempDir) -> sqlx::SqlitePool {
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(dir.path().join("audit.db"))
        .create_if_missing(true)
        .busy_timeout(Duration::from_secs(5));
    sqlx::SqlitePool::connect_with(options)
        .await
        .expect("a SQLite file")
}

async fn a_held_shelf_is_locked_for_others(registry: &Registry) {
    let ambient = AmbientContext::new();
    let tool = registry.get("vault_hold").expect("registered");
    let holding = tool.invoke(json!({"shelf": "a", "millis": 600}), &ambient);
    let others = async {
        tokio::time::sleep(Duration::from_millis(150)).await;
        let refused = tool
            .invoke(json!({"shelf": "a", "millis": 0}), &ambient)
            .await;
        let other_shelf = tool
            .invoke(json!({"shelf": "b", "millis": 0}), &ambient)
            .await;
        let explained = tool
            .explain(json!({"shelf": "a", "millis": 0}), &ambient)
            .await
            .expect("explained");
        (refused, other_shelf, explained)
    };
    let (held, (refused, other_shelf, explained)) = tokio::join!(holding, others);
    assert!(held.is_ok(), "{:?}", held.exception);
    assert_eq!(
        refused.to_model_json(),
        json!({"error": "locked", "message": "Another call with the same key is running; try again shortly."})
    );
    assert!(
        other_shelf.is_ok(),
        "another key is not held: {:?}",
        other_shelf.exception
    );
    assert_eq!(
        serde_json::to_value(&explained.lock).expect("serializes"),
        json!({"key": {"shelf": "a"}, "held": true, "wait_ms": 0})
    );
    let after = tool
        .invoke(json!({"shelf": "a", "millis": 0}), &ambient)
        .await;
    assert!(
        after.is_ok(),
        "let go when the call ended: {:?}",
        after.exception
    );
    let explained = tool
        .explain(json!({"shelf": "a", "millis": 0}), &ambient)
        .await
        .expect("explained");
    assert_eq!(explained.lock.map(|l| l.held), Some(false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_lock_refuses_a_second_holder() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let registry = tools::registry(Vault, Database::sqlite(sqlite(&dir).await));
    a_held_shelf_is_locked_for_others(&registry).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_lock_refuses_a_second_holder() {
    let Some(server) = toolspec_test_postgres::server_url() else {
        return;
    };
    let database = toolspec_test_postgres::Scratch::create(&server).await;
    let pool = sqlx::PgPool::connect(database.url())
        .await
        .expect("PostgreSQL");
    let registry = tools::registry(Vault, Database::postgres(pool.clone()));
    a_held_shelf_is_locked_for_others(&registry).await;
    drop(registry);
    pool.close().await;
    database.drop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn records_past_the_retention_are_deleted() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let pool = sqlite(&dir).await;
    let database = Database::sqlite(pool);
    let registry = kept_tools::registry(Vault, database.clone());
    let tool = registry.get("vault_brief").expect("registered");
    let ambient = AmbientContext::new();
    assert!(
        tool.invoke(json!({"text": "gone soon"}), &ambient)
            .await
            .is_ok()
    );
    let count = || async {
        let page = AuditQuery::default().read(&database).await.expect("reads");
        page.total
    };
    assert_eq!(count().await, 1);
    // Retention 2 s: the writer sweeps every second; within a few the record is gone.
    let mut left = 1;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        left = count().await;
        if left == 0 {
            break;
        }
    }
    assert_eq!(left, 0, "the record outlived the retention");
}

/// `once` keeps what a handler answered, never a guard's answer — even a declared code: the
/// precondition may hold on the next try.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn once_keeps_a_handlers_answer_but_not_a_guards() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let registry = tools::registry(Vault, Database::sqlite(sqlite(&dir).await));
    let tool = registry.get("vault_claim").expect("registered");
    let ambient = AmbientContext::new();
    let closed = tool.invoke(json!({"ticket": 7}), &ambient).await;
    assert_eq!(
        closed.to_model_json(),
        json!({"error": "closed", "message": "The counter is closed for this ticket."})
    );
    toolspec_test_audit::open_counter(7);
    let claimed = tool.invoke(json!({"ticket": 7}), &ambient).await;
    assert_eq!(claimed.to_model_json(), json!({"ticket": 7}));
    let explained = tool
        .explain(json!({"ticket": 7}), &ambient)
        .await
        .expect("explained");
    let once = serde_json::to_value(&explained.once).expect("serializes");
    assert_eq!(
        (&once["status"], &once["outcome"]),
        (&json!("done"), &json!("ok"))
    );

    // A handler's declared error is kept: the repeat answers it without running again.
    toolspec_test_audit::open_counter(13);
    let gone = tool.invoke(json!({"ticket": 13}), &ambient).await;
    assert_eq!(gone.to_model_json()["error"], "gone");
    let explained = tool
        .explain(json!({"ticket": 13}), &ambient)
        .await
        .expect("explained");
    let once = serde_json::to_value(&explained.once).expect("serializes");
    assert_eq!(
        (&once["status"], &once["outcome"]),
        (&json!("done"), &json!("gone"))
    );
}
