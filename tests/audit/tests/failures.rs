//! When the database cannot take records: calls go on and the failures are counted (the
//! default), unless the tool requires its record — then the call does not run at all: it
//! answers `unavailable` with a retry hint, the operator seeing the cause.

use serde_json::json;
use toolspec::{AmbientContext, Database, Registry};
use toolspec_test_audit::{MUST_RAN, Vault, tools};

/// A registry whose SQLite pool is already closed: every write fails.
async fn unreachable(dir: &tempfile::TempDir) -> Registry {
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(dir.path().join("audit.db"))
        .create_if_missing(true);
    let pool = sqlx::SqlitePool::connect_with(options)
        .await
        .expect("a SQLite file");
    pool.close().await;
    tools::registry(Vault, Database::sqlite(pool))
}

#[tokio::test]
async fn calls_go_on_and_the_failed_records_are_counted() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let registry = unreachable(&dir).await;
    let ambient = AmbientContext::new();
    let args = json!({"text": "a line", "secret": "hunter2"});
    for tool in ["vault_note", "vault_keep"] {
        let args = if tool == "vault_keep" {
            json!({"title": "t", "pin": "1", "contacts": [], "proof": {"kind": "token", "token": "x"}})
        } else {
            args.clone()
        };
        let ambient = if tool == "vault_keep" {
            AmbientContext::from([("session", "s")])
        } else {
            ambient.clone()
        };
        let result = registry
            .get(tool)
            .expect("registered")
            .invoke(args, &ambient)
            .await;
        assert!(result.is_ok(), "{tool}: {:?}", result.exception);
    }
    registry.flush_audit().await;
    let stats = registry.audit().expect("audit is on").stats();
    assert_eq!((stats.written, stats.failed), (0, 2), "{stats:?}");
}

#[tokio::test]
async fn a_call_whose_record_is_required_does_not_run_without_it() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let registry = unreachable(&dir).await;
    let ran = MUST_RAN.load(std::sync::atomic::Ordering::SeqCst);
    let result = registry
        .get("vault_must")
        .expect("registered")
        .invoke(json!({"text": "a line"}), &AmbientContext::new())
        .await;
    assert_eq!(
        result.to_model_json(),
        json!({
            "error": "unavailable",
            "message": "Could not note the line: Nothing was done, as the audit trail is unavailable; retry in 2 s.",
            "details": {"retry_after": 2}
        })
    );
    assert_eq!(
        MUST_RAN.load(std::sync::atomic::Ordering::SeqCst),
        ran,
        "the handler did not run"
    );
    let exception = result.exception.unwrap_or_default();
    assert!(
        exception.starts_with("the call's audit record could not be written before it ran: "),
        "{exception}"
    );
}
