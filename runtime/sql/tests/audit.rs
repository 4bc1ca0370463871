//! The audit table's insert on SQLite and PostgreSQL, through the core's `AuditSink` seam: a
//! batch of any size from 1 to a full one is written whole (padded up to one of the kept
//! statements' sizes, its empty rows skipped), every value as it was handed over, and a
//! finished record replaces the outcome of its opened one in place.

use chrono::{DateTime, SubsecRound, Utc};
use serde_json::json;
use serde_json::value::{RawValue, to_raw_value};
use toolspec_core::audit::{AuditEntry, AuditQuery, AuditState, MAX_BATCH};
use toolspec_core::storage::AuditSink;
use toolspec_sql::Database;
use uuid::Uuid;

fn raw(value: serde_json::Value) -> Box<RawValue> {
    to_raw_value(&value).expect("JSON")
}

fn parsed(text: &RawValue) -> serde_json::Value {
    serde_json::from_str(text.get()).expect("JSON")
}

/// A record of a call of `tool`, finished unless `state` says otherwise.
fn entry(tool: &str, i: usize, state: AuditState, at: DateTime<Utc>) -> AuditEntry {
    let finished = state == AuditState::Finished;
    AuditEntry {
        id: Uuid::now_v7(),
        started_at: at,
        duration_us: i as u64,
        tool: tool.into(),
        adapter: Some("mcp".into()),
        caller: i.is_multiple_of(2).then(|| format!("caller-{i}")),
        ambient: raw(json!({})),
        arguments: raw(json!({"n": i, "text": "it's \"quoted\" — ünïcode"})),
        state,
        outcome: finished.then(|| "ok".into()),
        message: None,
        exception: i.is_multiple_of(3).then(|| "an exception".into()),
        result: finished.then(|| raw(json!({"n": i}))),
        trace_id: format!("trace-{i}"),
        answers: None,
        replay_of: None,
        calls: 1,
    }
}

async fn every_batch_size_is_written_whole(db: Database) {
    db.prepare().await.expect("toolspec's tables");
    let at = Utc::now().trunc_subsecs(6);
    let mut sizes: Vec<usize> = (1..=20).collect();
    sizes.extend([97, 129, 193, MAX_BATCH]);
    for size in sizes {
        let tool = format!("tool_{size}");
        let batch: Vec<AuditEntry> = (0..size)
            .map(|i| entry(&tool, i, AuditState::Finished, at))
            .collect();
        db.write_audit(&batch).await.expect("the batch written");
        let query = AuditQuery {
            tool: Some(tool.clone()),
            limit: AuditQuery::MAX_LIMIT,
            ..AuditQuery::default()
        };
        let page = query.read(&db).await.expect("read back");
        assert_eq!(page.total, size as u64, "{size} records written");
        let mut read = page.records;
        read.sort_by_key(|r| r.duration_us);
        for (written, read) in batch.iter().zip(&read) {
            assert_eq!(read.id, written.id);
            assert_eq!(read.started_at, at);
            assert_eq!(read.caller, written.caller);
            assert_eq!(read.exception, written.exception);
            assert_eq!(read.trace_id, written.trace_id);
            assert_eq!(read.arguments, parsed(&written.arguments));
            assert_eq!(read.result, written.result.as_deref().map(parsed));
        }
    }

    // A `required` call's record, opened, then finished in place (in one batch with others).
    let opened = entry("tool_opened", 7, AuditState::Started, at);
    db.write_audit(std::slice::from_ref(&opened))
        .await
        .expect("opened");
    let mut finished = entry("tool_opened", 7, AuditState::Finished, at);
    finished.id = opened.id;
    let others = entry("tool_opened", 8, AuditState::Finished, at);
    db.write_audit(&[others, finished]).await.expect("finished");
    let query = AuditQuery {
        tool: Some("tool_opened".into()),
        ..AuditQuery::default()
    };
    let page = query.read(&db).await.expect("read back");
    assert_eq!(page.total, 2, "the opened record finished in place");
    let record = page
        .records
        .iter()
        .find(|r| r.id == opened.id)
        .expect("kept");
    assert_eq!(record.state, AuditState::Finished);
    assert_eq!(record.outcome.as_deref(), Some("ok"));
}

#[tokio::test]
async fn sqlite_every_batch_size_is_written_whole() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(dir.path().join("audit.db"))
        .create_if_missing(true);
    let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
    every_batch_size_is_written_whole(Database::sqlite(pool)).await;
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn postgres_every_batch_size_is_written_whole() {
    toolspec_test_postgres::with_scratch_pool(async |pool| {
        every_batch_size_is_written_whole(Database::postgres(pool)).await;
    })
    .await;
}
