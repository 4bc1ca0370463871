//! The rows a new store starts with: three customers (one inactive), a catalogue in two
//! currencies, and orders in every status.

use chrono::DateTime;
use sqlx::Row;

use super::backend::{Backend, Tx, on_backend};
use super::{Doing, StoreError};

/// `(id, name, email, active, vip)`.
const SEED_CUSTOMERS: &[(i64, &str, &str, bool, Option<bool>)] = &[
    (1, "Ada Lovelace", "ada@example.com", true, Some(true)),
    (2, "Grace Hopper", "grace@example.com", true, None),
    (3, "Alan Turing", "alan@example.com", false, Some(false)),
];

/// `(sku, name, price in minor units, currency)`.
const SEED_PRODUCTS: &[(&str, &str, i64, &str)] = &[
    ("MUG-001", "Enamel mug", 1250, "EUR"),
    ("TEE-BLK-M", "T-shirt, black, M", 2000, "EUR"),
    ("BOOK-RUST", "The Rust Programming Language", 3999, "EUR"),
    ("STICKER-10", "Sticker pack (10)", 500, "USD"),
    ("CABLE-USB-C", "USB-C cable, 2 m", 899, "USD"),
];

/// `(id, customer, status, currency, placed_at, [(sku, quantity)])`; unit prices and totals
/// come from the catalogue.
type SeedOrder = (
    i64,
    i64,
    &'static str,
    &'static str,
    &'static str,
    &'static [(&'static str, i64)],
);
const SEED_ORDERS: &[SeedOrder] = &[
    (
        1,
        1,
        "pending",
        "EUR",
        "2026-01-05T10:00:00+00:00",
        &[("MUG-001", 2)],
    ),
    (
        2,
        1,
        "shipped",
        "EUR",
        "2026-01-03T09:30:00+01:00",
        &[("BOOK-RUST", 1)],
    ),
    (
        3,
        1,
        "delivered",
        "USD",
        "2025-12-20T16:45:00-05:00",
        &[("STICKER-10", 3), ("CABLE-USB-C", 1)],
    ),
    (
        4,
        1,
        "cancelled",
        "EUR",
        "2025-12-18T08:00:00+00:00",
        &[("TEE-BLK-M", 1)],
    ),
    (
        5,
        2,
        "pending",
        "USD",
        "2026-01-06T14:10:00+00:00",
        &[("CABLE-USB-C", 2)],
    ),
    (
        6,
        2,
        "delivered",
        "EUR",
        "2025-12-28T11:00:00+00:00",
        &[("TEE-BLK-M", 2), ("MUG-001", 1)],
    ),
    (
        7,
        3,
        "delivered",
        "EUR",
        "2025-11-30T12:00:00+00:00",
        &[("MUG-001", 1)],
    ),
];

/// How many rows a freshly seeded store holds: `(customers, products, orders)`.
pub const SEED_COUNTS: (usize, usize, usize) =
    (SEED_CUSTOMERS.len(), SEED_PRODUCTS.len(), SEED_ORDERS.len());

impl Tx {
    /// Writes the seed rows when the store has no customer yet; whether it did. Run in a
    /// writing transaction, so of two processes opening a new store only one seeds it.
    pub(super) async fn seed_if_empty(&mut self) -> Result<bool, StoreError> {
        if let Backend::Postgres(tx) = &mut self.0 {
            // PostgreSQL's writers do not queue up front as SQLite's do: take turns here.
            sqlx::query("LOCK TABLE customers IN SHARE ROW EXCLUSIVE MODE")
                .execute(&mut **tx)
                .await
                .doing(|| "locking the customers to seed".into())?;
        }
        on_backend!(&mut self.0, |tx| {
            let customers: i64 = sqlx::query("SELECT COUNT(*) AS n FROM customers")
                .fetch_one(&mut **tx)
                .await
                .and_then(|row| row.try_get("n"))
                .doing(|| "counting customers".into())?;
            if customers > 0 {
                return Ok(false);
            }
            for &(id, name, email, active, vip) in SEED_CUSTOMERS {
                sqlx::query(
                    "INSERT INTO customers (id, name, email, active, vip) VALUES ($1, $2, $3, $4, $5)",
                )
                .bind(id)
                .bind(name)
                .bind(email)
                .bind(active)
                .bind(vip)
                .execute(&mut **tx)
                .await
                .doing(|| format!("seeding customer {id}"))?;
            }
            for &(sku, name, price, currency) in SEED_PRODUCTS {
                sqlx::query(
                    "INSERT INTO products (sku, name, price, currency) VALUES ($1, $2, $3, $4)",
                )
                .bind(sku)
                .bind(name)
                .bind(price)
                .bind(currency)
                .execute(&mut **tx)
                .await
                .doing(|| format!("seeding product {sku}"))?;
            }
            for &(id, customer, status, currency, placed_at, lines) in SEED_ORDERS {
                let placed_at = DateTime::parse_from_rfc3339(placed_at)
                    .map_err(|e| StoreError::Invalid(format!("seed order {id}'s date: {e}")))?;
                sqlx::query(
                    "INSERT INTO orders (id, customer_id, status, currency, total, placed_at)
                     VALUES ($1, $2, $3, $4, 0, $5)",
                )
                .bind(id)
                .bind(customer)
                .bind(status)
                .bind(currency)
                .bind(placed_at)
                .execute(&mut **tx)
                .await
                .doing(|| format!("seeding order {id}"))?;
                for (position, &(sku, quantity)) in (0_i64..).zip(lines.iter()) {
                    sqlx::query(
                        "INSERT INTO order_lines (order_id, position, sku, quantity, unit_price)
                         SELECT $1, $2, sku, $3, price FROM products WHERE sku = $4",
                    )
                    .bind(id)
                    .bind(position)
                    .bind(quantity)
                    .bind(sku)
                    .execute(&mut **tx)
                    .await
                    .doing(|| format!("seeding line {position} of order {id}"))?;
                }
                sqlx::query(
                    "UPDATE orders SET total = (SELECT COALESCE(SUM(quantity * unit_price), 0)
                     FROM order_lines WHERE order_id = orders.id) WHERE id = $1",
                )
                .bind(id)
                .execute(&mut **tx)
                .await
                .doing(|| format!("totalling seeded order {id}"))?;
            }
            Ok::<_, StoreError>(())
        })?;
        if let Backend::Postgres(tx) = &mut self.0 {
            // The seed wrote its own ids: new rows continue after them.
            for (table, statement) in [
                (
                    "customers",
                    "SELECT setval(pg_get_serial_sequence('customers', 'id'), (SELECT MAX(id) FROM customers))",
                ),
                (
                    "orders",
                    "SELECT setval(pg_get_serial_sequence('orders', 'id'), (SELECT MAX(id) FROM orders))",
                ),
            ] {
                sqlx::query(statement)
                    .execute(&mut **tx)
                    .await
                    .doing(|| format!("moving the ids of {table} past the seed"))?;
            }
        }
        Ok(true)
    }
}
