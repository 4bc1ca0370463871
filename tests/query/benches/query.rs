//! A query tool call against the hand-written sqlx query it stands for: the same page (20
//! records of one tenant, one status filter, sorted by date, the total counted) of a
//! 100,000-row SQLite table.
//!
//! `cargo bench -p toolspec-test-query --bench query`

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use sqlx::Row;
use toolspec::{AmbientContext, Database};

const ROWS: i64 = 100_000;

async fn seed(pool: &sqlx::SqlitePool) {
    sqlx::query(toolspec_test_query::schema(true))
        .execute(pool)
        .await
        .expect("schema");
    sqlx::query("CREATE INDEX items_by_tenant ON items (tenant_id, at)")
        .execute(pool)
        .await
        .expect("index");
    let mut tx = pool.begin().await.expect("transaction");
    for id in 1..=ROWS {
        let at = chrono::DateTime::from_timestamp(1_767_225_600 + id * 37, 0).expect("instant");
        sqlx::query("INSERT INTO items VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            .bind(id)
            .bind(id % 50)
            .bind(format!("item {id}"))
            .bind(["tools", "toys", "food"][(id % 3) as usize])
            .bind(id % 10_000)
            .bind((id % 7) as f64 / 3.0)
            .bind(id % 2 == 0)
            .bind(format!("00000000-0000-4000-8000-{id:012x}"))
            .bind("2026-01-01")
            .bind(at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
            .execute(&mut *tx)
            .await
            .expect("insert");
    }
    tx.commit().await.expect("commit");
}

/// The same page, written by hand with sqlx: the count, then the page, in one transaction.
async fn by_hand(pool: &sqlx::SqlitePool) -> (i64, Vec<serde_json::Value>) {
    let mut tx = pool.begin().await.expect("transaction");
    let rows = sqlx::query(
        "SELECT id, name, category, price, weight, active, code, day, at FROM items
         WHERE tenant_id = ? AND category IN (?) ORDER BY julianday(at) DESC, id LIMIT 20 OFFSET 20",
    )
    .bind(7i64)
    .bind("toys")
    .fetch_all(&mut *tx)
    .await
    .expect("page");
    let total: i64 =
        sqlx::query_scalar("SELECT COUNT(*) FROM items WHERE tenant_id = ? AND category IN (?)")
            .bind(7i64)
            .bind("toys")
            .fetch_one(&mut *tx)
            .await
            .expect("count");
    tx.rollback().await.expect("end");
    let records = rows
        .iter()
        .map(|r| {
            json!({
                "id": r.get::<i64, _>(0), "name": r.get::<String, _>(1), "category": r.get::<String, _>(2),
                "price": r.get::<i64, _>(3), "weight": r.get::<Option<f64>, _>(4), "active": r.get::<bool, _>(5),
                "code": r.get::<String, _>(6), "day": r.get::<String, _>(7), "at": r.get::<String, _>(8),
            })
        })
        .collect();
    (total, records)
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let dir = tempfile::tempdir().expect("temp dir");
    let url = format!(
        "sqlite://{}?mode=rwc",
        dir.path().join("bench.db").display()
    );
    let pool = runtime.block_on(async {
        let pool = sqlx::SqlitePool::connect(&url).await.expect("SQLite");
        seed(&pool).await;
        pool
    });
    let registry = toolspec_test_query::tools::registry(
        toolspec_test_query::Items,
        Database::sqlite(pool.clone()),
    );
    let tool = registry.get("items_search").expect("tool");
    let ambient = AmbientContext::from([("tenant", 7)]);
    let args = json!({"category": ["toys"], "limit": 20, "offset": 20, "sort": "-at"});
    let page = runtime.block_on(tool.invoke(args.clone(), &ambient));
    let (total, records) = runtime.block_on(by_hand(&pool));
    let page = page.outcome.expect("the tool call succeeds");
    assert_eq!(
        page["total"], total,
        "the tool and the hand-written query agree"
    );
    assert_eq!(
        page["records"].as_array().map(Vec::len),
        Some(records.len())
    );
    let mut group = c.benchmark_group("query_page_of_100k_rows");
    group.bench_function("tool_call", |b| {
        b.to_async(&runtime)
            .iter(|| tool.invoke(args.clone(), &ambient));
    });
    group.bench_function("hand_written_sqlx", |b| {
        b.to_async(&runtime).iter(|| by_hand(&pool));
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
