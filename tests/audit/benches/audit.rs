//! What the audit trail costs: a call of a tool recorded after the answer (`vault_note`) against
//! the same call unrecorded (`vault_quiet`), and a call whose record is committed before it
//! runs and finished before it answers (`vault_must`, `required`), on a SQLite file; and how many records per second
//! the writer stores into SQLite and (with `TOOLSPEC_TEST_POSTGRES_URL`) PostgreSQL, with calls
//! coming from four tasks as fast as the invoker answers them.

use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
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
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(dir.path().join("audit.db"))
        .create_if_missing(true)
        .journal_mode(sqlx::sqlite::SqliteJournalMode::Wal);
    let pool = runtime
        .block_on(sqlx::SqlitePool::connect_with(options))
        .expect("a SQLite file");
    tools::registry(Vault, Database::sqlite(pool))
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
    group.finish();
    runtime.block_on(registry.flush_audit());
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
    started.elapsed()
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
    if let Ok(url) = std::env::var("TOOLSPEC_TEST_POSTGRES_URL")
        && !url.is_empty()
    {
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

criterion_group!(benches, overhead, writer);
criterion_main!(benches);
