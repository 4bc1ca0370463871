//! Every statement the store runs, one method of [`Tx`] each, written once for both backends
//! (see `backend.rs`). They speak in rows; `mod.rs` turns rows into the contract's types.

use chrono::{DateTime, FixedOffset, Utc};
use sqlx::Row;

use super::backend::{Tx, on_backend};
use super::{Customer, Doing, StoreError};

/// An order's own row.
pub(super) struct OrderRow {
    pub status: String,
    pub currency: String,
    pub total: i64,
    pub refunded: i64,
    pub placed_at: DateTime<Utc>,
}

/// One line of an order, as stored.
pub(super) struct LineRow {
    pub sku: String,
    pub quantity: i64,
    pub unit_price: i64,
}

/// The fields of a new order's row.
pub(super) struct NewOrder<'a> {
    pub customer_id: i64,
    pub currency: &'a str,
    pub total: i64,
    pub note: Option<&'a str>,
    pub placed_at: DateTime<FixedOffset>,
}

impl Tx {
    /// The customer with `id`, if any.
    pub(super) async fn customer(&mut self, id: i64) -> Result<Option<Customer>, StoreError> {
        on_backend!(&mut self.0, |tx| {
            let row =
                sqlx::query("SELECT id, name, email, active, vip FROM customers WHERE id = $1")
                    .bind(id)
                    .fetch_optional(&mut **tx)
                    .await
                    .doing(|| format!("loading customer {id}"))?;
            let read = || format!("reading customer {id}");
            row.map(|row| {
                Ok(Customer {
                    id: row.try_get("id").doing(read)?,
                    name: row.try_get("name").doing(read)?,
                    email: row.try_get("email").doing(read)?,
                    active: row.try_get("active").doing(read)?,
                    vip: row.try_get("vip").doing(read)?,
                })
            })
            .transpose()
        })
    }

    /// The catalogue's `(price, currency)` of `sku`, if it sells it.
    pub(super) async fn price(&mut self, sku: &str) -> Result<Option<(i64, String)>, StoreError> {
        on_backend!(&mut self.0, |tx| {
            let row = sqlx::query("SELECT price, currency FROM products WHERE sku = $1")
                .bind(sku)
                .fetch_optional(&mut **tx)
                .await
                .doing(|| format!("looking up product {sku}"))?;
            let read = || format!("reading the price of {sku}");
            row.map(|row| {
                Ok((
                    row.try_get("price").doing(read)?,
                    row.try_get("currency").doing(read)?,
                ))
            })
            .transpose()
        })
    }

    /// Order `order_id`'s row, if it belongs to `customer_id`.
    pub(super) async fn order_row(
        &mut self,
        customer_id: i64,
        order_id: i64,
    ) -> Result<Option<OrderRow>, StoreError> {
        on_backend!(&mut self.0, |tx| {
            let row = sqlx::query(
                "SELECT status, currency, total, refunded, placed_at FROM orders
                 WHERE id = $1 AND customer_id = $2",
            )
            .bind(order_id)
            .bind(customer_id)
            .fetch_optional(&mut **tx)
            .await
            .doing(|| format!("loading order {order_id}"))?;
            let read = || format!("reading order {order_id}");
            row.map(|row| {
                Ok(OrderRow {
                    status: row.try_get("status").doing(read)?,
                    currency: row.try_get("currency").doing(read)?,
                    total: row.try_get("total").doing(read)?,
                    refunded: row.try_get("refunded").doing(read)?,
                    placed_at: row.try_get("placed_at").doing(read)?,
                })
            })
            .transpose()
        })
    }

    /// Order `order_id`'s lines, in order.
    pub(super) async fn order_lines(&mut self, order_id: i64) -> Result<Vec<LineRow>, StoreError> {
        on_backend!(&mut self.0, |tx| {
            let rows = sqlx::query(
                "SELECT sku, quantity, unit_price FROM order_lines WHERE order_id = $1
                 ORDER BY position",
            )
            .bind(order_id)
            .fetch_all(&mut **tx)
            .await
            .doing(|| format!("loading the lines of order {order_id}"))?;
            let read = || format!("reading a line of order {order_id}");
            rows.iter()
                .map(|row| {
                    Ok(LineRow {
                        sku: row.try_get("sku").doing(read)?,
                        quantity: row.try_get("quantity").doing(read)?,
                        unit_price: row.try_get("unit_price").doing(read)?,
                    })
                })
                .collect()
        })
    }

    /// The ids of `customer_id`'s orders in the order they were placed, only those in `status`
    /// when given.
    pub(super) async fn order_ids(
        &mut self,
        customer_id: i64,
        status: Option<&str>,
    ) -> Result<Vec<i64>, StoreError> {
        on_backend!(&mut self.0, |tx| {
            sqlx::query_scalar(
                "SELECT id FROM orders WHERE customer_id = $1 AND ($2 IS NULL OR status = $2)
                 ORDER BY id",
            )
            .bind(customer_id)
            .bind(status)
            .fetch_all(&mut **tx)
            .await
            .doing(|| format!("listing the orders of customer {customer_id}"))
        })
    }

    /// Writes a new pending order's row; its id.
    pub(super) async fn insert_order(&mut self, order: &NewOrder<'_>) -> Result<i64, StoreError> {
        on_backend!(&mut self.0, |tx| {
            sqlx::query_scalar(
                "INSERT INTO orders (customer_id, status, currency, total, note, placed_at)
                 VALUES ($1, 'pending', $2, $3, $4, $5) RETURNING id",
            )
            .bind(order.customer_id)
            .bind(order.currency)
            .bind(order.total)
            .bind(order.note)
            .bind(order.placed_at)
            .fetch_one(&mut **tx)
            .await
            .doing(|| format!("inserting an order for customer {}", order.customer_id))
        })
    }

    /// Writes line `position` of order `order_id`.
    pub(super) async fn insert_line(
        &mut self,
        order_id: i64,
        position: usize,
        line: &LineRow,
    ) -> Result<(), StoreError> {
        let position = i64::try_from(position).unwrap_or(i64::MAX);
        on_backend!(&mut self.0, |tx| {
            sqlx::query(
                "INSERT INTO order_lines (order_id, position, sku, quantity, unit_price)
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(order_id)
            .bind(position)
            .bind(&line.sku)
            .bind(line.quantity)
            .bind(line.unit_price)
            .execute(&mut **tx)
            .await
            .map(drop)
            .doing(|| {
                format!(
                    "inserting line {position} ({}) of order {order_id}",
                    line.sku
                )
            })
        })
    }

    /// Cancels order `order_id` of `customer_id` for `reason` if it is still pending; whether
    /// it was.
    pub(super) async fn cancel_pending(
        &mut self,
        customer_id: i64,
        order_id: i64,
        reason: &str,
    ) -> Result<bool, StoreError> {
        on_backend!(&mut self.0, |tx| {
            sqlx::query(
                "UPDATE orders SET status = 'cancelled', cancel_reason = $1
                 WHERE id = $2 AND customer_id = $3 AND status = 'pending'",
            )
            .bind(reason)
            .bind(order_id)
            .bind(customer_id)
            .execute(&mut **tx)
            .await
            .map(|done| done.rows_affected() == 1)
            .doing(|| format!("cancelling order {order_id}"))
        })
    }

    /// Records a refund of `amount` on delivered order `order_id` if exactly `refunded` was
    /// refunded before it and the refund fits the total, moving the order to `status`; whether
    /// it did.
    pub(super) async fn add_refund(
        &mut self,
        order_id: i64,
        refunded: i64,
        amount: i64,
        status: &str,
    ) -> Result<bool, StoreError> {
        on_backend!(&mut self.0, |tx| {
            sqlx::query(
                "UPDATE orders SET refunded = refunded + $1, status = $2
                 WHERE id = $3 AND status = 'delivered' AND refunded = $4
                   AND refunded + $1 <= total",
            )
            .bind(amount)
            .bind(status)
            .bind(order_id)
            .bind(refunded)
            .execute(&mut **tx)
            .await
            .map(|done| done.rows_affected() == 1)
            .doing(|| format!("recording a refund of {amount} on order {order_id}"))
        })
    }
}
