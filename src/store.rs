//! The example store's data: customers, a product catalogue and orders, in SQLite.
//!
//! [`Store`] owns a [`SqlitePool`] and speaks in the generated contract types
//! (`tools::types::Order`, `Money`, …) so handlers stay thin. Every query is a static SQL
//! string with bound parameters. Business outcomes that a tool reports as a declared error
//! (an unknown SKU, an order that already shipped…) come back as plain enum variants;
//! [`StoreError`] is reserved for what the model must never see (I/O, corrupt rows).
//!
//! Storage conventions: money is integer minor units with an ISO 4217 code; timestamps are
//! RFC 3339 text; an order's lines all share the order's currency; `orders.refunded` tracks
//! how much of `orders.total` has been refunded so far.

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use chrono::{SecondsFormat, Utc};
use sqlx::Row;
use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection, SqlitePool, SqlitePoolOptions};
use toolspec::types::{DateTime, FixedOffset};

use crate::tools::orders::cancel::Reason;
use crate::tools::orders::place::LinesItem;
use crate::tools::types::{Money, MoneyCurrency, Order, OrderLine, OrderStatus};

/// What the store's clock returns: the time an order is placed.
pub type Clock = fn() -> DateTime<FixedOffset>;

/// The system clock, to the second (stored timestamps carry no sub-second digits).
fn system_clock() -> DateTime<FixedOffset> {
    let now = Utc::now().fixed_offset();
    DateTime::parse_from_rfc3339(&now.to_rfc3339_opts(SecondsFormat::Secs, true)).unwrap_or(now)
}

/// A failure the model must not see: the database failed, or a row breaks the schema's rules.
#[derive(Debug)]
pub enum StoreError {
    /// A database operation failed; `doing` says which.
    Database {
        /// What the store was doing ("loading order 3").
        doing: String,
        /// The driver's error.
        source: sqlx::Error,
    },
    /// A stored value cannot be represented in the contract types, or a computed one
    /// is out of range.
    Invalid(String),
}

// The runtime records only `to_string()` of an internal failure, so `Display` carries the
// driver's message itself; `source()` stays `None` to avoid printing it twice in chains.
impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Database { doing, source } => write!(f, "{doing}: {source}"),
            Self::Invalid(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for StoreError {}

/// Attaches what the store was doing to a driver error.
trait Doing<T> {
    fn doing(self, what: impl FnOnce() -> String) -> Result<T, StoreError>;
}

impl<T> Doing<T> for Result<T, sqlx::Error> {
    fn doing(self, what: impl FnOnce() -> String) -> Result<T, StoreError> {
        self.map_err(|source| StoreError::Database {
            doing: what(),
            source,
        })
    }
}

/// A customer's profile.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Customer {
    pub id: i64,
    pub name: String,
    pub email: String,
    pub active: bool,
    /// Loyalty status; `None` when unknown.
    pub vip: Option<bool>,
}

/// An order's lines priced from the catalogue, ready to be written.
#[derive(Debug, Clone, PartialEq)]
pub struct Quote {
    pub currency: MoneyCurrency,
    /// The requested lines, in request order, with catalogue unit prices.
    pub lines: Vec<OrderLine>,
    /// Sum of quantity × unit price, in minor units of `currency`.
    pub total: i64,
}

/// The result of pricing requested lines against the catalogue.
#[derive(Debug, Clone, PartialEq)]
pub enum Quoted {
    Priced(Quote),
    /// These SKUs are not in the catalogue (each once, in request order).
    UnknownSkus(Vec<String>),
    /// The catalogue prices these lines in more than one currency (in first-seen order).
    MixedCurrencies(Vec<MoneyCurrency>),
}

/// The result of placing an order.
#[derive(Debug, Clone, PartialEq)]
pub enum PlaceOutcome {
    Placed(Order),
    /// The customer is unknown or inactive.
    CustomerInactive,
}

/// The result of cancelling an order.
#[derive(Debug, Clone, PartialEq)]
pub enum CancelOutcome {
    /// The order is cancelled now (or already was: cancelling is idempotent).
    Done(Order),
    /// The customer has no such order.
    NotFound,
    /// The order is past `pending` and cannot be cancelled.
    TooLate(OrderStatus),
}

/// The result of refunding an order.
#[derive(Debug, Clone, PartialEq)]
pub enum RefundOutcome {
    /// `amount` was refunded; `order` is the order afterwards.
    Done { order: Order, amount: Money },
    /// The customer has no such order.
    NotFound,
    /// Only delivered orders can be refunded.
    NotDelivered(OrderStatus),
    /// `requested` exceeds what is left to refund.
    TooMuch { requested: i64, refundable: Money },
}

/// The example store's database.
#[derive(Debug, Clone)]
pub struct Store {
    pool: SqlitePool,
    clock: Clock,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS customers (
    id     INTEGER PRIMARY KEY,
    name   TEXT    NOT NULL,
    email  TEXT    NOT NULL UNIQUE,
    active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    vip    INTEGER          CHECK (vip IN (0, 1))
);
CREATE TABLE IF NOT EXISTS products (
    sku      TEXT    PRIMARY KEY,
    name     TEXT    NOT NULL,
    price    INTEGER NOT NULL CHECK (price >= 0),
    currency TEXT    NOT NULL CHECK (currency IN ('EUR', 'USD', 'GBP'))
);
CREATE TABLE IF NOT EXISTS orders (
    id            INTEGER PRIMARY KEY,
    customer_id   INTEGER NOT NULL REFERENCES customers (id),
    status        TEXT    NOT NULL
                  CHECK (status IN ('pending', 'shipped', 'delivered', 'cancelled', 'refunded')),
    currency      TEXT    NOT NULL CHECK (currency IN ('EUR', 'USD', 'GBP')),
    total         INTEGER NOT NULL CHECK (total >= 0),
    refunded      INTEGER NOT NULL DEFAULT 0 CHECK (refunded >= 0 AND refunded <= total),
    note          TEXT,
    cancel_reason TEXT,
    placed_at     TEXT    NOT NULL
);
CREATE INDEX IF NOT EXISTS orders_by_customer ON orders (customer_id);
CREATE TABLE IF NOT EXISTS order_lines (
    order_id   INTEGER NOT NULL REFERENCES orders (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    sku        TEXT    NOT NULL REFERENCES products (sku),
    quantity   INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 100),
    unit_price INTEGER NOT NULL CHECK (unit_price >= 0),
    PRIMARY KEY (order_id, position)
);
";

const DROP: &str = "
DROP TABLE IF EXISTS order_lines;
DROP TABLE IF EXISTS orders;
DROP TABLE IF EXISTS products;
DROP TABLE IF EXISTS customers;
";

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

impl Store {
    /// The database the query tools read.
    pub fn database(&self) -> toolspec::Database {
        toolspec::Database::sqlite(self.pool.clone())
    }

    /// Opens (creating if missing) the database at `path` — `:memory:` for a private
    /// in-memory one — creates the schema and seeds it when it has no customers.
    pub async fn open(path: &Path) -> Result<Self, StoreError> {
        let shown = path.display().to_string();
        let (options, pool_options) = if path == Path::new(":memory:") {
            // Each connection to `:memory:` would get its own database: keep exactly one
            // connection, forever.
            let options = SqliteConnectOptions::from_str("sqlite::memory:")
                .doing(|| "configuring an in-memory database".into())?;
            let pool = SqlitePoolOptions::new()
                .max_connections(1)
                .min_connections(1)
                .idle_timeout(None)
                .max_lifetime(None);
            (options, pool)
        } else {
            let options = SqliteConnectOptions::new()
                .filename(path)
                .create_if_missing(true)
                .busy_timeout(Duration::from_secs(5));
            (options, SqlitePoolOptions::new().max_connections(4))
        };
        let pool = pool_options
            .connect_with(options.foreign_keys(true))
            .await
            .doing(|| format!("opening database {shown}"))?;
        let store = Self {
            pool,
            clock: system_clock,
        };
        store.create_schema().await?;
        store.seed_if_empty().await?;
        Ok(store)
    }

    /// Uses `clock` for the time new orders are placed (tests pin it).
    #[cfg(test)]
    pub fn with_clock(mut self, clock: Clock) -> Self {
        self.clock = clock;
        self
    }

    /// Drops every table, then recreates and seeds them.
    pub async fn reset(&self) -> Result<(), StoreError> {
        sqlx::raw_sql(DROP)
            .execute(&self.pool)
            .await
            .doing(|| "dropping the store's tables".into())?;
        self.create_schema().await?;
        self.seed_if_empty().await
    }

    async fn create_schema(&self) -> Result<(), StoreError> {
        sqlx::raw_sql(SCHEMA)
            .execute(&self.pool)
            .await
            .doing(|| "creating the schema".into())?;
        Ok(())
    }

    async fn seed_if_empty(&self) -> Result<(), StoreError> {
        let mut tx = self
            .pool
            .begin_with("BEGIN IMMEDIATE")
            .await
            .doing(|| "starting to seed".into())?;
        let customers: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM customers")
            .fetch_one(&mut *tx)
            .await
            .doing(|| "counting customers".into())?;
        if customers > 0 {
            return Ok(());
        }
        for &(id, name, email, active, vip) in SEED_CUSTOMERS {
            sqlx::query(
                "INSERT INTO customers (id, name, email, active, vip) VALUES (?, ?, ?, ?, ?)",
            )
            .bind(id)
            .bind(name)
            .bind(email)
            .bind(active)
            .bind(vip)
            .execute(&mut *tx)
            .await
            .doing(|| format!("seeding customer {id}"))?;
        }
        for &(sku, name, price, currency) in SEED_PRODUCTS {
            sqlx::query("INSERT INTO products (sku, name, price, currency) VALUES (?, ?, ?, ?)")
                .bind(sku)
                .bind(name)
                .bind(price)
                .bind(currency)
                .execute(&mut *tx)
                .await
                .doing(|| format!("seeding product {sku}"))?;
        }
        for &(id, customer, status, currency, placed_at, lines) in SEED_ORDERS {
            sqlx::query(
                "INSERT INTO orders (id, customer_id, status, currency, total, placed_at)
                 VALUES (?, ?, ?, ?, 0, ?)",
            )
            .bind(id)
            .bind(customer)
            .bind(status)
            .bind(currency)
            .bind(placed_at)
            .execute(&mut *tx)
            .await
            .doing(|| format!("seeding order {id}"))?;
            for (position, &(sku, quantity)) in lines.iter().enumerate() {
                sqlx::query(
                    "INSERT INTO order_lines (order_id, position, sku, quantity, unit_price)
                     SELECT ?, ?, sku, ?, price FROM products WHERE sku = ?",
                )
                .bind(id)
                .bind(position as i64)
                .bind(quantity)
                .bind(sku)
                .execute(&mut *tx)
                .await
                .doing(|| format!("seeding line {position} of order {id}"))?;
            }
            sqlx::query(
                "UPDATE orders SET total = (SELECT COALESCE(SUM(quantity * unit_price), 0)
                 FROM order_lines WHERE order_id = orders.id) WHERE id = ?",
            )
            .bind(id)
            .execute(&mut *tx)
            .await
            .doing(|| format!("totalling seeded order {id}"))?;
        }
        tx.commit()
            .await
            .doing(|| "committing the seed data".into())
    }

    /// The customer with `id`, if any.
    pub async fn customer(&self, id: i64) -> Result<Option<Customer>, StoreError> {
        let mut conn = self.conn().await?;
        load_customer(&mut conn, id).await
    }

    /// Order `order_id` if it belongs to `customer_id`; another customer's order is `None`.
    pub async fn order(
        &self,
        customer_id: i64,
        order_id: i64,
    ) -> Result<Option<Order>, StoreError> {
        let mut conn = self.conn().await?;
        load_order(&mut conn, customer_id, order_id).await
    }

    /// The ids of `customer_id`'s orders in the order they were placed, only those in
    /// `status` when given.
    pub async fn order_ids(
        &self,
        customer_id: i64,
        status: Option<&str>,
    ) -> Result<Vec<i64>, StoreError> {
        let mut conn = self.conn().await?;
        sqlx::query_scalar(
            "SELECT id FROM orders WHERE customer_id = ? AND (?2 IS NULL OR status = ?2)
             ORDER BY id",
        )
        .bind(customer_id)
        .bind(status)
        .fetch_all(&mut *conn)
        .await
        .doing(|| format!("listing the orders of customer {customer_id}"))
    }

    /// Prices `lines` from the catalogue; the `unit_price` they carry is not read.
    pub async fn quote(&self, lines: &[LinesItem]) -> Result<Quoted, StoreError> {
        let mut conn = self.conn().await?;
        let mut unknown: Vec<String> = Vec::new();
        let mut currencies: Vec<MoneyCurrency> = Vec::new();
        let mut priced = Vec::with_capacity(lines.len());
        let mut total: i64 = 0;
        for line in lines {
            let row = sqlx::query("SELECT price, currency FROM products WHERE sku = ?")
                .bind(&line.sku)
                .fetch_optional(&mut *conn)
                .await
                .doing(|| format!("looking up product {}", line.sku))?;
            let Some(row) = row else {
                if !unknown.contains(&line.sku) {
                    unknown.push(line.sku.clone());
                }
                continue;
            };
            let price: i64 = row
                .try_get("price")
                .doing(|| format!("reading the price of {}", line.sku))?;
            let currency: String = row
                .try_get("currency")
                .doing(|| format!("reading the currency of {}", line.sku))?;
            let currency = parse_currency(&currency).ok_or_else(|| {
                invalid(format!(
                    "product {} has unknown currency `{currency}`",
                    line.sku
                ))
            })?;
            if !currencies.contains(&currency) {
                currencies.push(currency);
            }
            let amount = line
                .quantity
                .checked_mul(price)
                .and_then(|line_total| total.checked_add(line_total))
                .ok_or_else(|| {
                    invalid(format!("the order total overflows at line {}", line.sku))
                })?;
            total = amount;
            priced.push(OrderLine {
                sku: line.sku.clone(),
                quantity: line.quantity,
                unit_price: Money {
                    amount: price,
                    currency,
                },
            });
        }
        if !unknown.is_empty() {
            return Ok(Quoted::UnknownSkus(unknown));
        }
        match currencies.as_slice() {
            [currency] => Ok(Quoted::Priced(Quote {
                currency: *currency,
                lines: priced,
                total,
            })),
            [] => Err(invalid("an order needs at least one line".into())),
            _ => Ok(Quoted::MixedCurrencies(currencies)),
        }
    }

    /// Writes `quote` as a new pending order of `customer_id`, in one transaction that
    /// re-checks the customer is active.
    pub async fn place(
        &self,
        customer_id: i64,
        quote: &Quote,
        note: Option<&str>,
    ) -> Result<PlaceOutcome, StoreError> {
        let mut tx = self.begin_write("placing an order").await?;
        match load_customer(&mut tx, customer_id).await? {
            Some(customer) if customer.active => {}
            _ => return Ok(PlaceOutcome::CustomerInactive),
        }
        let placed_at = (self.clock)().to_rfc3339_opts(SecondsFormat::Secs, false);
        let order_id: i64 = sqlx::query_scalar(
            "INSERT INTO orders (customer_id, status, currency, total, note, placed_at)
             VALUES (?, 'pending', ?, ?, ?, ?) RETURNING id",
        )
        .bind(customer_id)
        .bind(quote.currency.as_str())
        .bind(quote.total)
        .bind(note)
        .bind(&placed_at)
        .fetch_one(&mut *tx)
        .await
        .doing(|| format!("inserting an order for customer {customer_id}"))?;
        for (position, line) in quote.lines.iter().enumerate() {
            sqlx::query(
                "INSERT INTO order_lines (order_id, position, sku, quantity, unit_price)
                 VALUES (?, ?, ?, ?, ?)",
            )
            .bind(order_id)
            .bind(position as i64)
            .bind(&line.sku)
            .bind(line.quantity)
            .bind(line.unit_price.amount)
            .execute(&mut *tx)
            .await
            .doing(|| {
                format!(
                    "inserting line {position} ({}) of order {order_id}",
                    line.sku
                )
            })?;
        }
        let order = load_order(&mut tx, customer_id, order_id)
            .await?
            .ok_or_else(|| invalid(format!("order {order_id} vanished while it was placed")))?;
        tx.commit()
            .await
            .doing(|| format!("committing order {order_id}"))?;
        Ok(PlaceOutcome::Placed(order))
    }

    /// Cancels order `order_id` of `customer_id` if it is still pending.
    pub async fn cancel(
        &self,
        customer_id: i64,
        order_id: i64,
        reason: Reason,
    ) -> Result<CancelOutcome, StoreError> {
        let mut tx = self.begin_write("cancelling an order").await?;
        let Some(order) = load_order(&mut tx, customer_id, order_id).await? else {
            return Ok(CancelOutcome::NotFound);
        };
        match order.status {
            OrderStatus::Pending => {}
            OrderStatus::Cancelled => return Ok(CancelOutcome::Done(order)),
            status @ (OrderStatus::Shipped | OrderStatus::Delivered | OrderStatus::Refunded) => {
                return Ok(CancelOutcome::TooLate(status));
            }
        }
        sqlx::query(
            "UPDATE orders SET status = 'cancelled', cancel_reason = ?
             WHERE id = ? AND customer_id = ? AND status = 'pending'",
        )
        .bind(reason.as_str())
        .bind(order_id)
        .bind(customer_id)
        .execute(&mut *tx)
        .await
        .doing(|| format!("cancelling order {order_id}"))?;
        let order = Order {
            status: OrderStatus::Cancelled,
            ..order
        };
        tx.commit()
            .await
            .doing(|| format!("committing the cancellation of order {order_id}"))?;
        Ok(CancelOutcome::Done(order))
    }

    /// Refunds `amount` (default: everything not yet refunded) of delivered order
    /// `order_id` of `customer_id`; the order becomes `refunded` once nothing is left.
    pub async fn refund(
        &self,
        customer_id: i64,
        order_id: i64,
        amount: Option<i64>,
    ) -> Result<RefundOutcome, StoreError> {
        let mut tx = self.begin_write("refunding an order").await?;
        let Some(order) = load_order(&mut tx, customer_id, order_id).await? else {
            return Ok(RefundOutcome::NotFound);
        };
        if order.status != OrderStatus::Delivered {
            return Ok(RefundOutcome::NotDelivered(order.status));
        }
        let already: i64 = sqlx::query_scalar("SELECT refunded FROM orders WHERE id = ?")
            .bind(order_id)
            .fetch_one(&mut *tx)
            .await
            .doing(|| format!("loading what was refunded on order {order_id}"))?;
        let refundable = order.total.amount - already;
        let amount = amount.unwrap_or(refundable);
        if amount > refundable {
            return Ok(RefundOutcome::TooMuch {
                requested: amount,
                refundable: Money {
                    amount: refundable,
                    currency: order.total.currency,
                },
            });
        }
        if amount < 1 {
            return Err(invalid(format!(
                "a refund must be at least 1 minor unit, got {amount} for order {order_id}"
            )));
        }
        let status = if amount == refundable {
            OrderStatus::Refunded
        } else {
            OrderStatus::Delivered
        };
        sqlx::query("UPDATE orders SET refunded = refunded + ?, status = ? WHERE id = ?")
            .bind(amount)
            .bind(status.as_str())
            .bind(order_id)
            .execute(&mut *tx)
            .await
            .doing(|| format!("recording a refund of {amount} on order {order_id}"))?;
        tx.commit()
            .await
            .doing(|| format!("committing the refund of order {order_id}"))?;
        Ok(RefundOutcome::Done {
            amount: Money {
                amount,
                currency: order.total.currency,
            },
            order: Order { status, ..order },
        })
    }

    async fn conn(&self) -> Result<sqlx::pool::PoolConnection<sqlx::Sqlite>, StoreError> {
        self.pool
            .acquire()
            .await
            .doing(|| "getting a database connection".into())
    }

    /// A transaction that takes the write lock up front, so two writers never deadlock
    /// upgrading read locks.
    async fn begin_write(
        &self,
        what: &'static str,
    ) -> Result<sqlx::Transaction<'static, sqlx::Sqlite>, StoreError> {
        self.pool
            .begin_with("BEGIN IMMEDIATE")
            .await
            .doing(|| format!("starting a transaction for {what}"))
    }

    /// Closes every connection (waits for those in use).
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

async fn load_customer(
    conn: &mut SqliteConnection,
    id: i64,
) -> Result<Option<Customer>, StoreError> {
    let row = sqlx::query("SELECT id, name, email, active, vip FROM customers WHERE id = ?")
        .bind(id)
        .fetch_optional(&mut *conn)
        .await
        .doing(|| format!("loading customer {id}"))?;
    let Some(row) = row else { return Ok(None) };
    let read = || format!("reading customer {id}");
    Ok(Some(Customer {
        id: row.try_get("id").doing(read)?,
        name: row.try_get("name").doing(read)?,
        email: row.try_get("email").doing(read)?,
        active: row.try_get("active").doing(read)?,
        vip: row.try_get("vip").doing(read)?,
    }))
}

async fn load_order(
    conn: &mut SqliteConnection,
    customer_id: i64,
    order_id: i64,
) -> Result<Option<Order>, StoreError> {
    let row = sqlx::query(
        "SELECT id, status, currency, total, placed_at FROM orders WHERE id = ? AND customer_id = ?",
    )
    .bind(order_id)
    .bind(customer_id)
    .fetch_optional(&mut *conn)
    .await
    .doing(|| format!("loading order {order_id}"))?;
    let Some(row) = row else { return Ok(None) };
    let read = || format!("reading order {order_id}");
    let status: String = row.try_get("status").doing(read)?;
    let currency: String = row.try_get("currency").doing(read)?;
    let total: i64 = row.try_get("total").doing(read)?;
    let placed_at: String = row.try_get("placed_at").doing(read)?;

    let status = parse_status(&status, order_id)?;
    let currency = parse_currency(&currency).ok_or_else(|| {
        invalid(format!(
            "order {order_id} has unknown currency `{currency}`"
        ))
    })?;
    let placed_at = DateTime::parse_from_rfc3339(&placed_at).map_err(|e| {
        invalid(format!(
            "order {order_id} has placed_at `{placed_at}`, which is not RFC 3339: {e}"
        ))
    })?;

    let rows = sqlx::query(
        "SELECT sku, quantity, unit_price FROM order_lines WHERE order_id = ? ORDER BY position",
    )
    .bind(order_id)
    .fetch_all(&mut *conn)
    .await
    .doing(|| format!("loading the lines of order {order_id}"))?;
    let read_line = || format!("reading a line of order {order_id}");
    let mut lines = Vec::with_capacity(rows.len());
    for row in rows {
        lines.push(OrderLine {
            sku: row.try_get("sku").doing(read_line)?,
            quantity: row.try_get("quantity").doing(read_line)?,
            unit_price: Money {
                amount: row.try_get("unit_price").doing(read_line)?,
                currency,
            },
        });
    }
    Ok(Some(Order {
        id: order_id,
        status,
        lines,
        total: Money {
            amount: total,
            currency,
        },
        placed_at,
    }))
}

fn invalid(what: String) -> StoreError {
    StoreError::Invalid(what)
}

fn parse_status(text: &str, order_id: i64) -> Result<OrderStatus, StoreError> {
    Ok(match text {
        "pending" => OrderStatus::Pending,
        "shipped" => OrderStatus::Shipped,
        "delivered" => OrderStatus::Delivered,
        "cancelled" => OrderStatus::Cancelled,
        "refunded" => OrderStatus::Refunded,
        _ => {
            return Err(invalid(format!(
                "order {order_id} has unknown status `{text}`"
            )));
        }
    })
}

fn parse_currency(text: &str) -> Option<MoneyCurrency> {
    match text {
        "EUR" => Some(MoneyCurrency::Eur),
        "USD" => Some(MoneyCurrency::Usd),
        "GBP" => Some(MoneyCurrency::Gbp),
        _ => None,
    }
}
