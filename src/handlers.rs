//! The store's tools: one generated `Handler` per spec, implemented for [`App`].
//!
//! Every handler is scoped by the trusted ambient `customer_id`: an order of another
//! customer is indistinguishable from one that does not exist (`not_found`). The SQL lives
//! in [`Store`]; this module maps its outcomes onto each tool's declared error codes.
//!
//! The guards of the write tools are previews that the runtime (and `explain`) run before a
//! call; the handler re-checks the same rule inside its write transaction, so such a guard
//! never has to be trusted alone. One that cannot reach the database therefore passes, and the
//! handler then reports the database failure as an internal error (with the cause in
//! `exception`) instead of the guard claiming a precondition that nobody could check.
//! `orders_get`'s guard is the lookup itself: it loads the order among the customer's own
//! (another customer's is `not_found`) and hands it to the handler; a database failure there
//! is an internal error naming the guard.

use serde_json::json;
use toolspec::Failure;

use crate::store::{CancelOutcome, PlaceOutcome, Quoted, RefundOutcome, Store};
use crate::tools::customers::me as customers_me;
use crate::tools::orders::{cancel, export, get, place, refund, report};
use crate::tools::types::{Money, Order, OrderStatus, StatusTotal};

/// The example store as a tool handler.
#[derive(Debug, Clone)]
pub struct App {
    store: Store,
}

impl App {
    /// Serves the tools from `store`.
    pub fn new(store: Store) -> Self {
        Self { store }
    }
}

impl customers_me::Handler for App {
    async fn call(
        &self,
        _input: customers_me::Input,
        cx: customers_me::Context<'_>,
    ) -> customers_me::Outcome {
        let id = cx.ambient().customer_id;
        // The spec declares no error code: an unknown customer means the trusted caller
        // passed a bad `customer_id`, which is the integrator's bug, not the model's.
        let customer = self
            .store
            .customer(id)
            .await?
            .ok_or_else(|| Failure::internal(format!("no customer has id {id}")))?;
        Ok(customers_me::Output {
            id: customer.id,
            name: customer.name,
            email: customer.email,
            active: customer.active,
            vip: customer.vip,
        })
    }
}

impl get::Handler for App {
    type Order = Order;

    async fn call(
        &self,
        _input: get::Input,
        loaded: get::Loaded<Self>,
        _cx: get::Context<'_>,
    ) -> get::Outcome {
        Ok(get::Output {
            order: loaded.order,
        })
    }

    /// Loads the order among the customer's own: another customer's is `not_found` too.
    async fn own_order(
        &self,
        input: &get::Input,
        cx: &get::Context<'_>,
    ) -> get::own_order::Outcome<Order> {
        let customer_id = cx.ambient().customer_id;
        let order = self.store.order(customer_id, input.order_id).await?;
        order.ok_or(get::own_order::Error::NotFound.into())
    }
}

impl place::Handler for App {
    /// Prices every line from the catalogue: what is charged and returned.
    async fn call(&self, input: place::Input, cx: place::Context<'_>) -> place::Outcome {
        let customer_id = cx.ambient().customer_id;
        cx.progress(0.0, "pricing the lines");
        let quote = match self.store.quote(&input.lines).await? {
            Quoted::Priced(quote) => quote,
            Quoted::UnknownSkus(skus) => {
                return Err(Failure::declared(place::Error::UnknownSku)
                    .with_details(json!({ "skus": skus })));
            }
            Quoted::MixedCurrencies(currencies) => {
                let currencies: Vec<&str> = currencies.iter().map(|c| c.as_str()).collect();
                return Err(Failure::declared(place::Error::MixedCurrencies)
                    .with_details(json!({ "currencies": currencies })));
            }
        };
        if cx.is_cancelled() {
            return Err(Failure::internal(
                "the call was cancelled before the order was written",
            ));
        }
        cx.progress(0.5, "reserving stock");
        let order = match self
            .store
            .place(customer_id, &quote, input.note.as_deref(), cx.now())
            .await?
        {
            PlaceOutcome::Placed(order) => order,
            // Only reachable when the account was deactivated after the guard ran.
            PlaceOutcome::CustomerInactive => {
                return Err(Failure::internal(format!(
                    "customer {customer_id} is unknown or inactive"
                )));
            }
        };
        cx.progress(1.0, "order placed");
        Ok(place::Output { order })
    }

    async fn customer_active(&self, _input: &place::Input, cx: &place::Context<'_>) -> bool {
        match self.store.customer(cx.ambient().customer_id).await {
            Ok(customer) => customer.is_some_and(|c| c.active),
            Err(_) => true, // the handler re-checks and reports the failure; see module docs
        }
    }
}

impl cancel::Handler for App {
    async fn call(&self, input: cancel::Input, cx: cancel::Context<'_>) -> cancel::Outcome {
        let customer_id = cx.ambient().customer_id;
        match self
            .store
            .cancel(customer_id, input.order.id, input.reason)
            .await?
        {
            // Cancelling a cancelled order returns it unchanged (a second cancel is harmless);
            // normally the `not_cancelled` guard stops such a call first.
            CancelOutcome::Done(order) => Ok(cancel::Output { order }),
            CancelOutcome::NotFound => Err(cancel::Error::NotFound.into()),
            CancelOutcome::TooLate(status) => Err(Failure::declared(cancel::Error::AlreadyShipped)
                .with_details(json!({ "status": status.as_str() }))),
        }
    }

    /// The order is a `ref`: toolspec loaded it within the customer's scope before the
    /// guard runs (another customer's order is `not_found` before any guard).
    async fn not_cancelled(&self, input: &cancel::Input, _cx: &cancel::Context<'_>) -> bool {
        input.order.status != OrderStatus::Cancelled.as_str()
    }
}

impl refund::Handler for App {
    async fn call(&self, input: refund::Input, cx: refund::Context<'_>) -> refund::Outcome {
        let customer_id = cx.ambient().customer_id;
        // Operators (and the `lock` test) see each refund's span of time in the debug log.
        let (order_id, requested) = (input.order_id, input.amount);
        tracing::debug!(order_id, requested, "refund starts");
        let refunded = self.store.refund(customer_id, order_id, requested).await;
        tracing::debug!(order_id, requested, "refund ends");
        match refunded? {
            RefundOutcome::Done { order, amount } => Ok(refund::Output {
                order,
                refunded: amount,
            }),
            RefundOutcome::NotFound => Err(refund::Error::NotFound.into()),
            RefundOutcome::NotDelivered(status) => {
                Err(Failure::declared(refund::Error::NotDelivered)
                    .with_details(json!({ "status": status.as_str() })))
            }
            RefundOutcome::TooMuch {
                requested,
                refundable,
            } => Err(
                Failure::declared(refund::Error::TooMuch).with_details(json!({
                    "requested": requested,
                    "refundable": {
                        "amount": refundable.amount,
                        "currency": refundable.currency.as_str(),
                    },
                })),
            ),
        }
    }
}

impl export::Handler for App {
    /// Loads one order at a time, so a cancelled export stops between two orders; the
    /// cancellation is logged, since no one is left to read the result.
    async fn call(&self, input: export::Input, cx: export::Context<'_>) -> export::Outcome {
        let customer_id = cx.ambient().customer_id;
        let status = input.status.map(|s| s.as_str());
        let ids = self.store.order_ids(customer_id, status).await?;
        let total = ids.len();
        let pace = std::time::Duration::from_millis(input.pace_ms.unsigned_abs());
        let mut orders = Vec::with_capacity(total);
        for (done, id) in ids.into_iter().enumerate() {
            if cx.is_cancelled() {
                tracing::info!(customer_id, done, total, "export cancelled");
                return Err(Failure::internal(format!(
                    "cancelled after {done} of {total} orders"
                )));
            }
            // An order deleted since the listing is simply no longer exported.
            if let Some(order) = self.store.order(customer_id, id).await? {
                orders.push(order);
            }
            cx.progress(
                (done + 1) as f64 / total as f64,
                format!("exported {} of {total} orders", done + 1),
            );
            if !pace.is_zero() {
                tokio::select! {
                    _ = tokio::time::sleep(pace) => {}
                    _ = cx.cancellation().cancelled() => {}
                }
            }
        }
        Ok(export::Output {
            count: orders.len() as i64,
            orders,
        })
    }
}

impl report::Handler for App {
    /// Reads one order at a time, reporting progress after each, and adds them up per status
    /// and currency; a cancelled report stops between two orders.
    async fn call(&self, _input: report::Input, cx: report::Context<'_>) -> report::Outcome {
        let customer_id = cx.ambient().customer_id;
        let ids = self.store.order_ids(customer_id, None).await?;
        let total = ids.len();
        // (status, currency) → (orders, amount); both keys sort as the report lists them.
        let mut sums: std::collections::BTreeMap<(&str, &str), (i64, i64)> =
            std::collections::BTreeMap::new();
        let mut read = 0;
        for (done, id) in ids.into_iter().enumerate() {
            if cx.is_cancelled() {
                return Err(Failure::internal(format!(
                    "cancelled after {done} of {total} orders"
                )));
            }
            if let Some(order) = self.store.order(customer_id, id).await? {
                let key = (order.status.as_str(), order.total.currency.as_str());
                let sum = sums.entry(key).or_default();
                sum.0 += 1;
                sum.1 += order.total.amount;
                read += 1;
            }
            cx.progress(
                (done + 1) as f64 / total as f64,
                format!("read {} of {total} orders", done + 1),
            );
        }
        let mut totals = Vec::with_capacity(sums.len());
        for ((status, currency), (orders, amount)) in sums {
            totals.push(StatusTotal {
                status: status.parse().map_err(Failure::internal)?,
                orders,
                total: Money {
                    amount,
                    currency: currency.parse().map_err(Failure::internal)?,
                },
            });
        }
        Ok(report::Output {
            orders: read,
            totals,
        })
    }
}
