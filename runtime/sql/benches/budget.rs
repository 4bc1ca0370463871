//! The cost of a rate budget the replicas share (`serve --shared-rate-limits`): one spending,
//! one statement, on a SQLite file and — with `TOOLSPEC_TEST_POSTGRES_URL` — on PostgreSQL
//! over loopback; a budget large enough that every call passes.
//!
//! `cargo bench -p toolspec-sql --features postgres --bench budget`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use toolspec_core::storage::Admission as _;
use toolspec_sql::Database;

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let sqlite = runtime.block_on(async {
        let path = dir.path().join("budget.db");
        let options = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true);
        let pool = sqlx::SqlitePool::connect_with(options)
            .await
            .expect("SQLite");
        Database::sqlite(pool)
    });
    spend(c, &runtime, "budget/sqlite_file", &sqlite);
    if let Some(url) = std::env::var("TOOLSPEC_TEST_POSTGRES_URL")
        .ok()
        .filter(|u| !u.is_empty())
    {
        let (scratch, postgres) = runtime.block_on(async {
            let scratch = toolspec_test_postgres::Scratch::create(&url).await;
            let pool = sqlx::PgPool::connect(scratch.url())
                .await
                .expect("PostgreSQL");
            (scratch, Database::postgres(pool))
        });
        spend(c, &runtime, "budget/postgres", &postgres);
        runtime.block_on(scratch.drop());
    }
}

/// Spends calls of one budget on `database`, each admitted.
fn spend(c: &mut Criterion, runtime: &tokio::runtime::Runtime, name: &str, database: &Database) {
    let interval = Duration::from_nanos(1);
    c.bench_function(name, |b| {
        b.iter(|| {
            let spent = runtime.block_on(database.spend_budget("bench", interval, u32::MAX));
            black_box(spent.expect("spent").is_none())
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
