//! What the audit trail costs: a call of a tool recorded after the answer (`vault_note`) against
//! the same call unrecorded (`vault_quiet`), and a call whose record is committed before it
//! runs and finished before it answers (`vault_must`, `required`), on a SQLite file; how many
//! records per second the database's sink stores (batches of the writer's size, built
//! beforehand); and how many records per second the whole trail stores into SQLite and (with
//! `TOOLSPEC_TEST_POSTGRES_URL`) PostgreSQL, with calls coming from four tasks as fast as the
//! invoker answers them.

use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use serde_json::value::{RawValue, to_raw_value};
use toolspec::audit::{AuditEntry, AuditState};
use toolspec::storage::AuditSink;
use toolspec::{AmbientContext, Database, Registry};
use toolspec_test_audit::{Vault, tools};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

fn sqlite(runtime: &tokio::runtime::Runtime, dir: &tempfile::TempDir) -> Registry {
    tools::registry(Vault, sqlite_database(runtime, dir))
}

fn sqlite_database(runtime: &tokio::runtime::Runtime, dir: &tempfile::TempDir) -> Database {
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(dir.path().join("audit.db"))
        .create_if_missing(true)
        .journal_mode(sqlx::sqlite::SqliteJournalMode::Wal);
    let pool = runtime
        .block_on(sqlx::SqlitePool::connect_with(options))
        .expect("a SQLite file");
    Database::sqlite(pool)
}

fn overhead(c: &mut Criterion) {
    let runtime = runtime();
    let dir = tempfile::tempdir().expect("a temp dir");
    let registry = sqlite(&runtime, &dir);
    let ambient = AmbientContext::new();
    let args = json!({"text": "a line to keep", "secret": "hunter2"});
    let must = json!({"text": "a line to keep"});
    let mut group = c.benchmark_group("invoke");
    let tools = [
        ("audit off", "vault_quiet", &args),
        ("audit async", "vault_note", &args),
        ("audit required", "vault_must", &must),
    ];
    for (name, tool, args) in tools {
        let tool = registry.get(tool).expect("registered");
        group.bench_function(name, |b| {
            b.to_async(&runtime)
                .iter(|| tool.invoke(args.clone(), &ambient));
        });
    }
    // The caller's path of an `async` record: bursts of calls that fit in the writer's queue
    // and end before its linger does (so that it writes nothing during one, on the other
    // core), each burst written out before the next (untimed): what is timed is what a call
    // does for its record, not the writer's pace, which the next groups measure.
    let tool = registry.get("vault_note").expect("registered");
    group.bench_function("audit async, caller's path", |b| {
        b.to_async(&runtime).iter_custom(|iterations| {
            let (tool, ambient, args, registry) = (&tool, &ambient, &args, &registry);
            async move {
                let mut total = Duration::ZERO;
                let mut left = iterations;
                while left > 0 {
                    let burst = left.min(BURST);
                    let started = Instant::now();
                    for _ in 0..burst {
                        std::hint::black_box(tool.invoke(args.clone(), ambient).await);
                    }
                    total += started.elapsed();
                    registry.flush_audit().await;
                    left -= burst;
                }
                total
            }
        });
    });
    group.finish();
    runtime.block_on(registry.flush_audit());
    let stats = registry.audit().expect("an audit trail").stats();
    assert_eq!(stats.failed, 0, "every record written");
}

/// The calls of one burst: well within the writer's queue, so that none waits for room, and
/// made in well under the writer's linger (2 ms), so that it writes none of them meanwhile.
const BURST: u64 = 200;

/// `count` finished records of calls of `vault_note`, as the pipeline makes them.
fn records(count: usize) -> Vec<AuditEntry> {
    let raw = |value: serde_json::Value| -> Box<RawValue> { to_raw_value(&value).expect("JSON") };
    (0..count)
        .map(|i| AuditEntry {
            id: uuid::Uuid::now_v7(),
            started_at: chrono::Utc::now(),
            duration_us: 12,
            tool: "vault_note".into(),
            adapter: Some("mcp".into()),
            caller: Some("bench".into()),
            ambient: raw(json!({})),
            arguments: raw(json!({"text": format!("line {i}"), "secret": "[redacted]"})),
            state: AuditState::Finished,
            outcome: Some("ok".into()),
            message: None,
            exception: None,
            result: Some(raw(json!({"text": format!("line {i}")}))),
            trace_id: uuid::Uuid::now_v7().simple().to_string(),
            answers: None,
            replay_of: None,
            calls: 1,
        })
        .collect()
}

/// Records per second the database stores, in batches as large as the writer's.
fn sink(c: &mut Criterion) {
    let batch = toolspec::audit::MAX_BATCH;
    let runtime = runtime();
    let mut group = c.benchmark_group("audit sink");
    group.throughput(Throughput::Elements(batch as u64));
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut databases = vec![("sqlite", sqlite_database(&runtime, &dir))];
    let scratch = postgres_url().map(|url| {
        let scratch = runtime.block_on(toolspec_test_postgres::Scratch::create(&url));
        let pool = runtime
            .block_on(sqlx::PgPool::connect(scratch.url()))
            .expect("PostgreSQL");
        databases.push(("postgres", Database::postgres(pool)));
        scratch
    });
    for (name, database) in &databases {
        runtime
            .block_on(database.prepare())
            .expect("toolspec's tables");
        group.bench_function(*name, |b| {
            b.to_async(&runtime).iter_batched(
                || records(batch),
                |records| async move {
                    database.write_audit(&records).await.expect("written");
                },
                BatchSize::LargeInput,
            );
        });
    }
    group.finish();
    drop(databases);
    if let Some(scratch) = scratch {
        runtime.block_on(scratch.drop());
    }
}

fn postgres_url() -> Option<String> {
    std::env::var("TOOLSPEC_TEST_POSTGRES_URL")
        .ok()
        .filter(|url| !url.is_empty())
}

/// Calls `vault_note` `count` times from four tasks at once, then waits until every record is
/// written: when the writer is the slower side, its queue fills and the calls wait for it.
async fn record(registry: &Registry, count: u64) -> Duration {
    const TASKS: u64 = 4;
    let tool = registry.get("vault_note").expect("registered");
    let ambient = AmbientContext::new();
    let started = Instant::now();
    let tasks = (0..TASKS).map(|task| {
        let (tool, ambient) = (&tool, &ambient);
        async move {
            for i in 0..count / TASKS {
                let args = json!({"text": format!("line {task}/{i}"), "secret": "hunter2"});
                assert!(tool.invoke(args, ambient).await.is_ok());
            }
        }
    });
    futures_util::future::join_all(tasks).await;
    registry.flush_audit().await;
    let elapsed = started.elapsed();
    // A failed `async` write is only logged: a writer failing every batch would look fast.
    let stats = registry.audit().expect("an audit trail").stats();
    assert_eq!(stats.failed, 0, "every record written");
    elapsed
}

fn writer(c: &mut Criterion) {
    const RECORDS: u64 = 2_000;
    let runtime = runtime();
    let mut group = c.benchmark_group("audit writer");
    group.throughput(Throughput::Elements(RECORDS));
    group.sample_size(10);
    let dir = tempfile::tempdir().expect("a temp dir");
    let registry = sqlite(&runtime, &dir);
    group.bench_function("sqlite", |b| {
        b.to_async(&runtime).iter_custom(|iterations| {
            let registry = &registry;
            async move {
                let mut total = Duration::ZERO;
                for _ in 0..iterations {
                    total += record(registry, RECORDS).await;
                }
                total
            }
        });
    });
    if let Some(url) = postgres_url() {
        let database = runtime.block_on(toolspec_test_postgres::Scratch::create(&url));
        let pool = runtime
            .block_on(sqlx::PgPool::connect(database.url()))
            .expect("PostgreSQL");
        let registry = tools::registry(Vault, Database::postgres(pool.clone()));
        group.bench_function("postgres", |b| {
            b.to_async(&runtime).iter_custom(|iterations| {
                let registry = &registry;
                async move {
                    let mut total = Duration::ZERO;
                    for _ in 0..iterations {
                        total += record(registry, RECORDS).await;
                    }
                    total
                }
            });
        });
        drop(registry);
        runtime.block_on(pool.close());
        runtime.block_on(database.drop());
    }
    group.finish();
}

criterion_group!(benches, overhead, sink, writer);
criterion_main!(benches);
