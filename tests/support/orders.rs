//! Many orders for one customer of the store, written straight into its SQLite file (the
//! store's own `orders_place` is rate limited): for tests of answers cut to fit a result cap.

use std::path::Path;

use chrono::DateTime;

/// Opens the store at `db` (seeding it when new), then adds `n` pending orders of one mug each
/// for `customer`, placed a minute apart from 2026-02-01.
pub async fn add_orders(db: &Path, customer: i64, n: i64) {
    let location = toolspec_store::Location::File(db.to_path_buf());
    let store = toolspec_store::Store::open(&location)
        .await
        .expect("the store opens");
    store.close().await;
    let url = format!("sqlite://{}", db.display());
    let pool = sqlx::SqlitePool::connect(&url)
        .await
        .expect("the store's file opens");
    let mut tx = pool.begin().await.expect("a transaction");
    let start = DateTime::parse_from_rfc3339("2026-02-01T00:00:00+00:00").expect("a date");
    for i in 0..n {
        let placed_at = start + chrono::Duration::minutes(i);
        let id: i64 = sqlx::query_scalar(
            "INSERT INTO orders (customer_id, status, currency, total, placed_at)
             VALUES ($1, 'pending', 'EUR', 0, $2) RETURNING id",
        )
        .bind(customer)
        .bind(placed_at)
        .fetch_one(&mut *tx)
        .await
        .expect("an order");
        sqlx::query(
            "INSERT INTO order_lines (order_id, position, sku, quantity, unit_price)
             SELECT $1, 0, sku, 1, price FROM products WHERE sku = 'MUG-001'",
        )
        .bind(id)
        .execute(&mut *tx)
        .await
        .expect("a line");
        sqlx::query("UPDATE orders SET total = (SELECT unit_price FROM order_lines WHERE order_id = $1) WHERE id = $1")
            .bind(id)
            .execute(&mut *tx)
            .await
            .expect("a total");
    }
    tx.commit().await.expect("the orders are written");
    pool.close().await;
}
