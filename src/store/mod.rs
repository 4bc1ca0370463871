//! The example store's data: customers, a product catalogue and orders, in SQLite (a file, or
//! in memory) or PostgreSQL.
//!
//! [`Store`] owns the connections and speaks in the generated contract types
//! (`tools::types::Order`, `Money`, …) so handlers stay thin. Every statement is a static SQL
//! string with bound parameters, written once for both databases (`statements.rs`). Business outcomes that a tool reports as a declared error
//! (an unknown SKU, an order that already shipped…) come back as plain enum variants;
//! [`StoreError`] is reserved for what the model must never see (I/O, corrupt rows).
//!
//! Storage conventions: money is integer minor units with an ISO 4217 code; an order's lines all
//! share the order's currency; `orders.refunded` tracks how much of `orders.total` has been
//! refunded so far. Date-times are RFC 3339 text on SQLite and `TIMESTAMPTZ` on PostgreSQL, and
//! come back in UTC from either.

mod backend;
mod seed;
mod statements;

use std::fmt;
use std::time::Duration;

use chrono::{SecondsFormat, Utc};
use toolspec::types::{DateTime, FixedOffset};

pub use backend::Location;
pub use seed::SEED_COUNTS;

use backend::{Pool, Tx};
use statements::{LineRow, NewOrder, OrderRow};

use crate::tools::orders::cancel::Reason;
use crate::tools::orders::place::LinesItem;
use crate::tools::types::{Money, MoneyCurrency, Order, OrderLine, OrderStatus};

/// `at` to the second: stored timestamps carry no sub-second digits.
fn to_the_second(at: DateTime<Utc>) -> DateTime<FixedOffset> {
    let at = at.fixed_offset();
    DateTime::parse_from_rfc3339(&at.to_rfc3339_opts(SecondsFormat::Secs, true)).unwrap_or(at)
}

/// How long a statement waits for a database connection by default.
pub const DEFAULT_DB_TIMEOUT: Duration = Duration::from_secs(2);

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

// The driver's error is the cause (`source()`): the runtime shows the whole chain to the
// developer (`loading order 3: pool timed out…`) and finds there that the database could not
// be reached, answering `unavailable` rather than an internal error.
impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Database { doing, .. } => f.write_str(doing),
            Self::Invalid(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for StoreError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Database { source, .. } => Some(source),
            Self::Invalid(_) => None,
        }
    }
}

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
    /// What the store's own statements (its handlers') run on.
    pool: Pool,
    /// In a read-only deployment, the connections that may write, for the registry's records
    /// (audit, `once`, tasks): `pool` then only reads.
    records: Option<Pool>,
    /// Where it is, and how long a statement waits for a connection.
    location: Location,
    db_timeout: Duration,
}

impl Store {
    /// Opens the store at `location` — creating a SQLite file when missing — brings its schema
    /// up to date and seeds it when it has no customers. A statement waits at most
    /// [`DEFAULT_DB_TIMEOUT`] for a connection.
    pub async fn open(location: &Location) -> Result<Self, StoreError> {
        Self::open_with_timeout(location, DEFAULT_DB_TIMEOUT).await
    }

    /// [`open`](Self::open), a statement waiting at most `db_timeout` for a connection (to
    /// connect, on PostgreSQL): past it, the database counts as unreachable and the call that
    /// needed it answers `unavailable`.
    pub async fn open_with_timeout(
        location: &Location,
        db_timeout: Duration,
    ) -> Result<Self, StoreError> {
        let store = Self {
            pool: Pool::open(location, db_timeout).await?,
            records: None,
            location: location.clone(),
            db_timeout,
        };
        store.seed_if_empty().await?;
        Ok(store)
    }

    /// The database the query tools and `ref` fields read, and the registry records in.
    pub fn database(&self) -> toolspec::Database {
        self.records.as_ref().unwrap_or(&self.pool).database()
    }

    /// This store for a read-only deployment (`serve --read-only`): its own statements run on
    /// new connections to the same database that may only read, so that a handler that writes
    /// fails with the database's refusal and writes nothing; the registry keeps recording calls
    /// through this store's connections.
    pub async fn read_only(&self) -> Result<Self, StoreError> {
        Ok(Self {
            pool: Pool::open_read_only(&self.location, self.db_timeout).await?,
            records: Some(self.records.clone().unwrap_or_else(|| self.pool.clone())),
            location: self.location.clone(),
            db_timeout: self.db_timeout,
        })
    }

    /// Drops every table, then recreates and seeds them.
    pub async fn reset(&self) -> Result<(), StoreError> {
        self.pool.drop_tables().await?;
        self.pool.migrate().await?;
        self.seed_if_empty().await
    }

    async fn seed_if_empty(&self) -> Result<(), StoreError> {
        let mut tx = self.pool.write("seeding").await?;
        if tx.seed_if_empty().await? {
            tx.commit(|| "committing the seed data".into()).await
        } else {
            tx.finish().await
        }
    }

    /// The customer with `id`, if any.
    pub async fn customer(&self, id: i64) -> Result<Option<Customer>, StoreError> {
        let mut tx = self.pool.read("loading a customer").await?;
        let customer = tx.customer(id).await?;
        tx.finish().await?;
        Ok(customer)
    }

    /// Order `order_id` if it belongs to `customer_id`; another customer's order is `None`.
    pub async fn order(
        &self,
        customer_id: i64,
        order_id: i64,
    ) -> Result<Option<Order>, StoreError> {
        let mut tx = self.pool.read("loading an order").await?;
        let order = load_order(&mut tx, customer_id, order_id).await?;
        tx.finish().await?;
        Ok(order.map(|(order, _)| order))
    }

    /// The ids of `customer_id`'s orders in the order they were placed, only those in
    /// `status` when given.
    pub async fn order_ids(
        &self,
        customer_id: i64,
        status: Option<&str>,
    ) -> Result<Vec<i64>, StoreError> {
        let mut tx = self.pool.read("listing orders").await?;
        let ids = tx.order_ids(customer_id, status).await?;
        tx.finish().await?;
        Ok(ids)
    }

    /// Prices `lines` from the catalogue; the `unit_price` they carry is not read.
    pub async fn quote(&self, lines: &[LinesItem]) -> Result<Quoted, StoreError> {
        let mut tx = self.pool.read("pricing an order").await?;
        let mut unknown: Vec<String> = Vec::new();
        let mut currencies: Vec<MoneyCurrency> = Vec::new();
        let mut priced = Vec::with_capacity(lines.len());
        let mut total: i64 = 0;
        for line in lines {
            let Some((price, currency)) = tx.price(&line.sku).await? else {
                if !unknown.contains(&line.sku) {
                    unknown.push(line.sku.clone());
                }
                continue;
            };
            let currency = parse_currency(&currency).ok_or_else(|| {
                invalid(format!(
                    "product {} has unknown currency `{currency}`",
                    line.sku
                ))
            })?;
            if !currencies.contains(&currency) {
                currencies.push(currency);
            }
            total = line
                .quantity
                .checked_mul(price)
                .and_then(|line_total| total.checked_add(line_total))
                .ok_or_else(|| {
                    invalid(format!("the order total overflows at line {}", line.sku))
                })?;
            priced.push(OrderLine {
                sku: line.sku.clone(),
                quantity: line.quantity,
                unit_price: Money {
                    amount: price,
                    currency,
                },
            });
        }
        tx.finish().await?;
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

    /// Writes `quote` as a new pending order of `customer_id` placed `at`, in one transaction
    /// that re-checks the customer is active.
    pub async fn place(
        &self,
        customer_id: i64,
        quote: &Quote,
        note: Option<&str>,
        at: DateTime<Utc>,
    ) -> Result<PlaceOutcome, StoreError> {
        let mut tx = self.pool.write("placing an order").await?;
        match tx.customer(customer_id).await? {
            Some(customer) if customer.active => {}
            _ => return Ok(PlaceOutcome::CustomerInactive),
        }
        let new = NewOrder {
            customer_id,
            currency: quote.currency.as_str(),
            total: quote.total,
            note,
            placed_at: to_the_second(at),
        };
        let order_id = tx.insert_order(&new).await?;
        for (position, line) in quote.lines.iter().enumerate() {
            let line = LineRow {
                sku: line.sku.clone(),
                quantity: line.quantity,
                unit_price: line.unit_price.amount,
            };
            tx.insert_line(order_id, position, &line).await?;
        }
        let (order, _) = load_order(&mut tx, customer_id, order_id)
            .await?
            .ok_or_else(|| invalid(format!("order {order_id} vanished while it was placed")))?;
        tx.commit(|| format!("committing order {order_id}")).await?;
        Ok(PlaceOutcome::Placed(order))
    }

    /// Cancels order `order_id` of `customer_id` if it is still pending.
    pub async fn cancel(
        &self,
        customer_id: i64,
        order_id: i64,
        reason: Reason,
    ) -> Result<CancelOutcome, StoreError> {
        let mut tx = self.pool.write("cancelling an order").await?;
        // A second pass only when another call changed the order between our read and our
        // write (PostgreSQL; SQLite's writers queue): it is then past `pending`.
        for _ in 0..2 {
            let Some((order, _)) = load_order(&mut tx, customer_id, order_id).await? else {
                return Ok(CancelOutcome::NotFound);
            };
            match order.status {
                OrderStatus::Pending => {}
                OrderStatus::Cancelled => return Ok(CancelOutcome::Done(order)),
                status
                @ (OrderStatus::Shipped | OrderStatus::Delivered | OrderStatus::Refunded) => {
                    return Ok(CancelOutcome::TooLate(status));
                }
            }
            if tx
                .cancel_pending(customer_id, order_id, reason.as_str())
                .await?
            {
                tx.commit(|| format!("committing the cancellation of order {order_id}"))
                    .await?;
                let status = OrderStatus::Cancelled;
                return Ok(CancelOutcome::Done(Order { status, ..order }));
            }
        }
        Err(invalid(format!(
            "order {order_id} stayed pending but could not be cancelled"
        )))
    }

    /// Refunds `amount` (default: everything not yet refunded) of delivered order
    /// `order_id` of `customer_id`; the order becomes `refunded` once nothing is left.
    pub async fn refund(
        &self,
        customer_id: i64,
        order_id: i64,
        amount: Option<i64>,
    ) -> Result<RefundOutcome, StoreError> {
        let mut tx = self.pool.write("refunding an order").await?;
        // Each pass that loses a race to another refund (PostgreSQL) finds less left to
        // refund: the loop ends.
        loop {
            let Some((order, row)) = load_order(&mut tx, customer_id, order_id).await? else {
                return Ok(RefundOutcome::NotFound);
            };
            if order.status != OrderStatus::Delivered {
                return Ok(RefundOutcome::NotDelivered(order.status));
            }
            let refundable = row.total - row.refunded;
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
            if tx
                .add_refund(order_id, row.refunded, amount, status.as_str())
                .await?
            {
                tx.commit(|| format!("committing the refund of order {order_id}"))
                    .await?;
                let amount = Money {
                    amount,
                    currency: order.total.currency,
                };
                let order = Order { status, ..order };
                return Ok(RefundOutcome::Done { order, amount });
            }
        }
    }

    /// Closes every connection (waits for those in use).
    pub async fn close(&self) {
        self.pool.close().await;
        if let Some(records) = &self.records {
            records.close().await;
        }
    }
}

/// Order `order_id` of `customer_id` with its lines, and its row.
async fn load_order(
    tx: &mut Tx,
    customer_id: i64,
    order_id: i64,
) -> Result<Option<(Order, OrderRow)>, StoreError> {
    let Some(row) = tx.order_row(customer_id, order_id).await? else {
        return Ok(None);
    };
    let status = parse_status(&row.status, order_id)?;
    let currency = parse_currency(&row.currency).ok_or_else(|| {
        invalid(format!(
            "order {order_id} has unknown currency `{}`",
            row.currency
        ))
    })?;
    let lines = tx.order_lines(order_id).await?;
    let lines = lines
        .into_iter()
        .map(|line| OrderLine {
            sku: line.sku,
            quantity: line.quantity,
            unit_price: Money {
                amount: line.unit_price,
                currency,
            },
        })
        .collect();
    let order = Order {
        id: order_id,
        status,
        lines,
        total: Money {
            amount: row.total,
            currency,
        },
        placed_at: row.placed_at.fixed_offset(),
    };
    Ok(Some((order, row)))
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
