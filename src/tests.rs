//! Every tool through the registry, the way an adapter calls it, over a real SQLite file and
//! (those in [`on_both_databases!`]) a real PostgreSQL database too.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tempfile::TempDir;
use toolspec::testing::{Called, Harness};
use toolspec::{AmbientContext, CallOptions, Caller, Progress, Registry, ToolResult};

use toolspec_test_postgres::Scratch;

use crate::store::{Location, Store};

/// Each named test, an `async fn(&Fixture)`, runs as `NAME::sqlite` on a SQLite file and as
/// `NAME::postgres` on a scratch PostgreSQL database.
macro_rules! on_both_databases {
    ($($test:ident),* $(,)?) => {$(
        mod $test {
            #[tokio::test]
            async fn sqlite() {
                super::Fixture::sqlite().await.run(super::$test).await;
            }

            #[tokio::test]
            async fn postgres() {
                if let Some(fixture) = super::Fixture::postgres().await {
                    fixture.run(super::$test).await;
                }
            }
        }
    )*};
}

on_both_databases!(
    customers_me_shows_the_callers_profile,
    an_unknown_customer_is_an_internal_error_with_a_developer_exception,
    a_call_without_the_ambient_customer_fails_without_touching_data,
    orders_get_returns_the_order_with_its_lines,
    orders_get_hides_other_customers_orders,
    orders_place_prices_from_the_catalogue_and_reports_progress,
    orders_place_names_every_unknown_sku_and_writes_nothing,
    orders_place_refuses_mixed_currencies,
    orders_place_guard_requires_an_active_customer,
    orders_cancel_cancels_a_pending_order_once,
    orders_cancel_refuses_orders_that_left_the_warehouse,
    orders_cancel_never_touches_or_reveals_another_customers_order,
    orders_cancel_rejects_an_undeclared_reason,
    orders_refund_defaults_to_the_whole_order,
    orders_refund_in_parts_up_to_the_total,
    orders_refund_too_much_on_a_fresh_order,
    orders_refund_only_delivered_orders_of_the_caller,
    orders_export_lists_the_callers_orders_in_order_with_progress,
    a_refund_of_nothing_changes_nothing,
    orders_search_filters_and_sorts_the_callers_orders_only,
    a_repeated_refund_runs_once_and_answers_alike,
    explain_reports_once_and_lock_without_taking_them,
    an_explanation_goes_through_the_callers_stages_and_is_no_call_of_its_tool,
    every_call_is_recorded_with_sensitive_values_redacted,
    a_handler_on_read_only_connections_that_writes_fails_and_writes_nothing,
);

/// New orders are placed at this time in tests.
const NOW: &str = "2026-03-01T12:00:00+01:00";

/// A seeded store and its registry under test, on a SQLite file in a fresh temp dir or in a
/// scratch PostgreSQL database.
struct Fixture {
    harness: Harness,
    store: Store,
    backing: Backing,
}

/// Where a fixture's data lives (dropped with it, or by [`Fixture::finish`]).
enum Backing {
    File(TempDir),
    Postgres(Scratch),
}

impl Fixture {
    async fn sqlite() -> Self {
        let dir = tempfile::tempdir().expect("a temp dir");
        let location = Location::File(dir.path().join("store.db"));
        Self::open(&location, Backing::File(dir)).await
    }

    /// `None` when no PostgreSQL server is configured (outside CI only).
    async fn postgres() -> Option<Self> {
        let scratch = Scratch::create(&toolspec_test_postgres::server_url()?).await;
        let location = Location::Postgres(scratch.url().to_owned());
        Some(Self::open(&location, Backing::Postgres(scratch)).await)
    }

    async fn open(location: &Location, backing: Backing) -> Self {
        let store = Store::open(location).await.expect("the store opens");
        Self {
            harness: Harness::new(crate::registry(store.clone())).at(NOW),
            store,
            backing,
        }
    }

    fn registry(&self) -> &Registry {
        self.harness.registry()
    }

    /// The SQLite file's folder.
    fn dir(&self) -> &std::path::Path {
        match &self.backing {
            Backing::File(dir) => dir.path(),
            Backing::Postgres(_) => panic!("a SQLite-only test runs on a file"),
        }
    }

    /// Runs `test` on this fixture, then drops its PostgreSQL database.
    async fn run(self, test: impl AsyncFnOnce(&Fixture)) {
        test(&self).await;
        self.store.close().await;
        if let Backing::Postgres(scratch) = self.backing {
            scratch.drop().await;
        }
    }

    /// Calls `tool` as a customer who confirms whatever the tool asks (`confirm`).
    async fn call(&self, tool: &str, args: Value, customer_id: i64) -> ToolResult {
        self.called(tool, args, customer_id).await.into_result()
    }

    /// [`call`](Self::call), as the harness answers it.
    async fn called(&self, tool: &str, args: Value, customer_id: i64) -> Called {
        let ambient = AmbientContext::from([("customer_id", customer_id)]);
        let customer = Caller::new(format!("customer {customer_id}")).with_ambient(ambient);
        let calls = self.harness.as_caller(&customer).confirming();
        calls.call(tool, args).await
    }

    /// Calls and expects success; returns the exposed values.
    async fn ok(&self, tool: &str, args: Value, customer_id: i64) -> Value {
        self.called(tool, args, customer_id).await.ok()
    }

    /// Calls and expects a failure without an exception (a declared one); returns what the
    /// model sees.
    async fn err(&self, tool: &str, args: Value, customer_id: i64) -> Value {
        let called = self.called(tool, args, customer_id).await;
        let result = called.result();
        assert!(
            !result.is_ok(),
            "{tool} unexpectedly succeeded: {:?}",
            result.value()
        );
        assert_eq!(
            result.exception, None,
            "a declared failure has no exception"
        );
        called.to_model_json()
    }
}

fn order_1() -> Value {
    json!({
        "id": 1,
        "status": "pending",
        "lines": [{"sku": "MUG-001", "quantity": 2, "unit_price": {"amount": 1250, "currency": "EUR"}}],
        "total": {"amount": 2500, "currency": "EUR"},
        "placed_at": "2026-01-05T10:00:00Z",
    })
}

fn order_3(status: &str) -> Value {
    json!({
        "id": 3,
        "status": status,
        "lines": [
            {"sku": "STICKER-10", "quantity": 3, "unit_price": {"amount": 500, "currency": "USD"}},
            {"sku": "CABLE-USB-C", "quantity": 1, "unit_price": {"amount": 899, "currency": "USD"}},
        ],
        "total": {"amount": 2399, "currency": "USD"},
        "placed_at": "2025-12-20T21:45:00Z",
    })
}

fn not_found() -> Value {
    json!({"error": "not_found", "message": "No such order."})
}

/// Every schema of the store's tools (the query tools' and the built-in ones' too) has a fast
/// check: a valid call compiles no validator (see `docs/benchmarks.md`, "Peak memory of a
/// small server").
#[tokio::test]
async fn every_schema_has_a_fast_check() {
    let f = Fixture::sqlite().await;
    for tool in f.registry().tools() {
        let descriptor = tool.descriptor();
        for schema in [
            descriptor.input_schema_json(),
            descriptor.output_schema_json(),
        ] {
            let fast = toolspec::__private::FastCheck::compile(&schema);
            assert!(fast.is_some(), "{}: {schema}", descriptor.name);
        }
    }
}

#[tokio::test]
async fn every_tool_is_registered_on_its_adapters() {
    let f = Fixture::sqlite().await;
    let names: Vec<&str> = f.registry().tools().map(|t| t.name()).collect();
    assert_eq!(
        names,
        [
            "customers_me",
            "explain",
            "orders_cancel",
            "orders_export",
            "orders_get",
            "orders_place",
            "orders_refund",
            "orders_report",
            "orders_search",
            "task_status"
        ]
    );
    let http: Vec<&str> = f
        .registry()
        .tools_for("http")
        .iter()
        .map(|t| t.name())
        .collect();
    assert_eq!(
        http,
        [
            "customers_me",
            "explain",
            "orders_cancel",
            "orders_export",
            "orders_get",
            "orders_place",
            "orders_report",
            "orders_search"
        ]
    );
}

async fn customers_me_shows_the_callers_profile(f: &Fixture) {
    assert_eq!(
        f.ok("customers_me", json!({}), 1).await,
        json!({"id": 1, "name": "Ada Lovelace", "email": "ada@example.com", "active": true, "vip": true})
    );
    assert_eq!(
        f.ok("customers_me", json!({}), 2).await,
        json!({"id": 2, "name": "Grace Hopper", "email": "grace@example.com", "active": true, "vip": null})
    );
    assert_eq!(
        f.ok("customers_me", json!({}), 3).await,
        json!({"id": 3, "name": "Alan Turing", "email": "alan@example.com", "active": false, "vip": false})
    );
}

async fn an_unknown_customer_is_an_internal_error_with_a_developer_exception(f: &Fixture) {
    let result = f.call("customers_me", json!({}), 99).await;
    assert_eq!(
        result.to_model_json(),
        json!({"error": "internal_error", "message": "The tool failed unexpectedly."})
    );
    assert_eq!(result.exception.as_deref(), Some("no customer has id 99"));
}

async fn a_call_without_the_ambient_customer_fails_without_touching_data(f: &Fixture) {
    let result = f
        .registry()
        .get("orders_get")
        .expect("orders_get is registered")
        .invoke(json!({"order_id": 1}), &AmbientContext::new())
        .await;
    assert_eq!(
        result.error().map(|e| e.code.as_str()),
        Some("internal_error")
    );
    assert!(
        result
            .exception
            .as_deref()
            .is_some_and(|e| e.contains("customer_id")),
        "{:?}",
        result.exception
    );
}

async fn orders_get_returns_the_order_with_its_lines(f: &Fixture) {
    assert_eq!(
        f.ok("orders_get", json!({"order_id": 1}), 1).await,
        json!({"order": order_1()})
    );
    assert_eq!(
        f.ok("orders_get", json!({"order_id": 3}), 1).await,
        json!({"order": order_3("delivered")})
    );
}

async fn orders_get_hides_other_customers_orders(f: &Fixture) {
    // Order 5 is customer 2's: customer 1 sees exactly what a missing order looks like.
    assert_eq!(
        f.err("orders_get", json!({"order_id": 5}), 1).await,
        not_found()
    );
    assert_eq!(
        f.err("orders_get", json!({"order_id": 999}), 1).await,
        not_found()
    );
    assert_eq!(
        f.err("orders_get", json!({"order_id": 1}), 2).await,
        not_found()
    );
    assert_eq!(
        f.ok("orders_get", json!({"order_id": 5}), 2).await["order"]["id"],
        5
    );
}

async fn orders_place_prices_from_the_catalogue_and_reports_progress(f: &Fixture) {
    let updates = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&updates);
    let ambient = AmbientContext::from([("customer_id", 2)]);
    let args = json!({
        "lines": [
            {"sku": "BOOK-RUST", "quantity": 1},
            {"sku": "MUG-001", "quantity": 3},
        ],
        "note": "Gift wrap, please.",
    });
    let result = f
        .registry()
        .get("orders_place")
        .expect("orders_place is registered")
        .invoke_with(
            args,
            &ambient,
            CallOptions {
                progress: Progress::new(move |u| {
                    sink.lock()
                        .expect("not poisoned")
                        .push((u.fraction, u.message))
                }),
                ..CallOptions::default()
            },
        )
        .await;
    let expected = json!({"order": {
        "id": 8,
        "status": "pending",
        "lines": [
            {"sku": "BOOK-RUST", "quantity": 1, "unit_price": {"amount": 3999, "currency": "EUR"}},
            {"sku": "MUG-001", "quantity": 3, "unit_price": {"amount": 1250, "currency": "EUR"}},
        ],
        "total": {"amount": 7749, "currency": "EUR"},
        "placed_at": "2026-03-01T11:00:00Z",
    }});
    assert_eq!(result.to_model_json(), expected);
    assert_eq!(
        *updates.lock().expect("not poisoned"),
        [
            (0.0, "pricing the lines".to_owned()),
            (0.5, "reserving stock".to_owned()),
            (1.0, "order placed".to_owned()),
        ]
    );
    // It is stored, and only its customer sees it.
    assert_eq!(
        f.ok("orders_get", json!({"order_id": 8}), 2).await,
        expected
    );
    assert_eq!(
        f.err("orders_get", json!({"order_id": 8}), 1).await,
        not_found()
    );
}

async fn orders_place_names_every_unknown_sku_and_writes_nothing(f: &Fixture) {
    let line = |sku: &str| json!({"sku": sku, "quantity": 1});
    let args = json!({"lines": [line("NOPE-1"), line("MUG-001"), line("NOPE-2"), line("NOPE-1")]});
    assert_eq!(
        f.err("orders_place", args, 1).await,
        json!({
            "error": "unknown_sku",
            "message": "Could not place the order: A product in the order does not exist.",
            "details": {"skus": ["NOPE-1", "NOPE-2"]},
        })
    );
    assert_eq!(
        f.err("orders_get", json!({"order_id": 8}), 1).await,
        not_found()
    );
}

async fn orders_place_refuses_mixed_currencies(f: &Fixture) {
    // Both lines claim EUR; the catalogue prices the cable in USD.
    let args = json!({"lines": [
        {"sku": "MUG-001", "quantity": 1},
        {"sku": "CABLE-USB-C", "quantity": 1},
    ]});
    assert_eq!(
        f.err("orders_place", args, 1).await,
        json!({
            "error": "mixed_currencies",
            "message": "Could not place the order: All lines of an order must use one currency.",
            "details": {"currencies": ["EUR", "USD"]},
        })
    );
}

async fn orders_place_guard_requires_an_active_customer(f: &Fixture) {
    let args = json!({"lines": [{"sku": "MUG-001", "quantity": 1}]});
    let refused = json!({
        "error": "customer_active",
        "message": "Could not place the order: The customer account must be active.",
    });
    assert_eq!(f.err("orders_place", args.clone(), 3).await, refused);
    assert_eq!(f.err("orders_place", args.clone(), 99).await, refused);
    assert_eq!(
        f.err("orders_get", json!({"order_id": 8}), 3).await,
        not_found()
    );
    assert_eq!(f.ok("orders_place", args, 1).await["order"]["id"], 8);
}

async fn orders_cancel_cancels_a_pending_order_once(f: &Fixture) {
    // Asked first: nothing is cancelled until the customer confirms.
    let ambient = AmbientContext::from([("customer_id", 1)]);
    let asked = f
        .registry()
        .invoke("orders_cancel", json!({"order": 1}), &ambient);
    let asked = asked.await.expect("a registered tool");
    let error = asked.error().expect("asked, not run");
    assert_eq!(error.code, "input_required");
    assert_eq!(
        error.details.as_ref().unwrap()["requests"]["confirm"]["message"],
        "Cancel order 1 (now pending)? A cancelled order cannot be reopened."
    );
    let untouched = f.ok("orders_get", json!({"order_id": 1}), 1).await;
    assert_eq!(untouched, json!({"order": order_1()}));
    let mut expected = order_1();
    expected["status"] = json!("cancelled");
    assert_eq!(
        f.ok(
            "orders_cancel",
            json!({"order": 1, "reason": "duplicate"}),
            1
        )
        .await,
        json!({"order": expected})
    );
    assert_eq!(
        f.ok("orders_get", json!({"order_id": 1}), 1).await,
        json!({"order": expected})
    );
    let again = json!({
        "error": "not_cancelled",
        "message": "Could not cancel the order: Order must not already be cancelled.",
    });
    assert_eq!(f.err("orders_cancel", json!({"order": 1}), 1).await, again);
    // Seeded order 4 was cancelled from the start.
    assert_eq!(f.err("orders_cancel", json!({"order": 4}), 1).await, again);
}

async fn orders_cancel_refuses_orders_that_left_the_warehouse(f: &Fixture) {
    for (order_id, status) in [(2, "shipped"), (3, "delivered")] {
        assert_eq!(
            f.err("orders_cancel", json!({"order": order_id}), 1).await,
            json!({
                "error": "already_shipped",
                "message": "Could not cancel the order: The order has already shipped.",
                "details": {"status": status},
            })
        );
    }
}

async fn orders_cancel_never_touches_or_reveals_another_customers_order(f: &Fixture) {
    // Order 5 is customer 2's pending order.
    assert_eq!(
        f.err("orders_cancel", json!({"order": 5}), 1).await,
        not_found()
    );
    assert_eq!(
        f.ok("orders_get", json!({"order_id": 5}), 2).await["order"]["status"],
        "pending"
    );
    // Order 4 is customer 1's cancelled order: the guard does not give it away either.
    assert_eq!(
        f.err("orders_cancel", json!({"order": 4}), 2).await,
        not_found()
    );
    assert_eq!(
        f.err("orders_cancel", json!({"order": 999}), 2).await,
        not_found()
    );
}

async fn orders_cancel_rejects_an_undeclared_reason(f: &Fixture) {
    let result = f
        .call("orders_cancel", json!({"order": 1, "reason": "bored"}), 1)
        .await;
    assert_eq!(
        result.error().map(|e| e.code.as_str()),
        Some("invalid_arguments")
    );
    assert_eq!(
        f.ok("orders_get", json!({"order_id": 1}), 1).await["order"]["status"],
        "pending"
    );
}

async fn orders_refund_defaults_to_the_whole_order(f: &Fixture) {
    let whole =
        json!({"order": order_3("refunded"), "refunded": {"amount": 2399, "currency": "USD"}});
    assert_eq!(
        f.ok("orders_refund", json!({"order_id": 3}), 1).await,
        whole
    );
    // The same refund again is the first one (`once`); another finds nothing to refund.
    assert_eq!(
        f.ok("orders_refund", json!({"order_id": 3}), 1).await,
        whole
    );
    assert_eq!(
        f.err("orders_refund", json!({"order_id": 3, "amount": 1}), 1)
            .await,
        json!({
            "error": "not_delivered",
            "message": "Could not refund the order: Only delivered orders can be refunded.",
            "details": {"status": "refunded"},
        })
    );
}

async fn orders_refund_in_parts_up_to_the_total(f: &Fixture) {
    assert_eq!(
        f.ok("orders_refund", json!({"order_id": 3, "amount": 1000}), 1)
            .await,
        json!({"order": order_3("delivered"), "refunded": {"amount": 1000, "currency": "USD"}})
    );
    assert_eq!(
        f.err("orders_refund", json!({"order_id": 3, "amount": 1500}), 1)
            .await,
        json!({
            "error": "too_much",
            "message": "Could not refund the order: The refund is larger than what is left to refund.",
            "details": {"requested": 1500, "refundable": {"amount": 1399, "currency": "USD"}},
        })
    );
    assert_eq!(
        f.ok("orders_refund", json!({"order_id": 3, "amount": 1399}), 1)
            .await,
        json!({"order": order_3("refunded"), "refunded": {"amount": 1399, "currency": "USD"}})
    );
}

async fn orders_refund_too_much_on_a_fresh_order(f: &Fixture) {
    let refused = f
        .err("orders_refund", json!({"order_id": 3, "amount": 2400}), 1)
        .await;
    assert_eq!(refused["error"], "too_much");
    assert_eq!(refused["details"]["refundable"]["amount"], 2399);
    assert_eq!(
        f.ok("orders_get", json!({"order_id": 3}), 1).await,
        json!({"order": order_3("delivered")})
    );
}

async fn orders_refund_only_delivered_orders_of_the_caller(f: &Fixture) {
    for (order_id, status) in [(1, "pending"), (2, "shipped"), (4, "cancelled")] {
        assert_eq!(
            f.err("orders_refund", json!({"order_id": order_id}), 1)
                .await,
            json!({
                "error": "not_delivered",
                "message": "Could not refund the order: Only delivered orders can be refunded.",
                "details": {"status": status},
            })
        );
    }
    // Order 6 is customer 2's delivered order.
    assert_eq!(
        f.err("orders_refund", json!({"order_id": 6}), 1).await,
        not_found()
    );
    assert_eq!(
        f.err("orders_refund", json!({"order_id": 999}), 1).await,
        not_found()
    );
    assert_eq!(
        f.ok("orders_get", json!({"order_id": 6}), 2).await["order"]["status"],
        "delivered"
    );
}

async fn orders_export_lists_the_callers_orders_in_order_with_progress(f: &Fixture) {
    let all = f.ok("orders_export", json!({}), 1).await;
    assert_eq!(all["count"], 4);
    let ids: Vec<&Value> = all["orders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| &o["id"])
        .collect();
    assert_eq!(ids, [&json!(1), &json!(2), &json!(3), &json!(4)]);
    assert_eq!(all["orders"][0], order_1());

    let delivered = f
        .ok("orders_export", json!({"status": "delivered"}), 1)
        .await;
    assert_eq!(
        delivered,
        json!({"orders": [order_3("delivered")], "count": 1})
    );
    // Grace sees only her own two orders.
    assert_eq!(f.ok("orders_export", json!({}), 2).await["count"], 2);

    let reports = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = reports.clone();
    let options = toolspec::CallOptions {
        progress: toolspec::Progress::new(move |update| {
            sink.lock().unwrap().push((update.fraction, update.message));
        }),
        ..Default::default()
    };
    let ambient = AmbientContext::from([("customer_id", 2)]);
    let result = f
        .registry()
        .get("orders_export")
        .unwrap()
        .invoke_with(json!({}), &ambient, options)
        .await;
    assert_eq!(
        result.outcome.map(|v| v["count"].clone()).ok(),
        Some(json!(2))
    );
    assert_eq!(
        *reports.lock().unwrap(),
        [
            (0.5, "exported 1 of 2 orders".to_owned()),
            (1.0, "exported 2 of 2 orders".to_owned())
        ]
    );
}

#[tokio::test]
async fn the_store_persists_across_opens_and_reset_restores_the_seed() {
    let f = Fixture::sqlite().await;
    let location = Location::File(f.dir().join("store.db"));
    f.ok("orders_cancel", json!({"order": 1}), 1).await;

    let reopened = Store::open(&location).await.expect("the store reopens");
    let order = reopened.order(1, 1).await.expect("order 1 loads");
    assert_eq!(
        order.map(|o| o.status.as_str()),
        Some("cancelled"),
        "the change is on disk and reopening does not seed again"
    );

    reopened.reset().await.expect("the store resets");
    let order = reopened.order(1, 1).await.expect("order 1 loads");
    assert_eq!(order.map(|o| o.status.as_str()), Some("pending"));
    let customer = reopened.customer(3).await.expect("customer 3 loads");
    assert_eq!(customer.map(|c| c.active), Some(false));
}

#[tokio::test]
async fn an_in_memory_store_keeps_its_data_between_calls() {
    let store = Store::open(&Location::Memory)
        .await
        .expect("an in-memory store opens");
    let registry = crate::registry(store);
    let ambient = AmbientContext::from([("customer_id", 1)]);
    let tool = |name| registry.get(name).expect("registered");
    let placed = tool("orders_place")
        .invoke(
            json!({"lines": [{"sku": "TEE-BLK-M", "quantity": 1}]}),
            &ambient,
        )
        .await;
    assert!(placed.is_ok(), "{:?}", placed.exception);
    let got = tool("orders_get")
        .invoke(json!({"order_id": 8}), &ambient)
        .await;
    assert_eq!(got.to_model_json(), placed.to_model_json());
}

/// Runs `sql` on the fixture's database file behind the store's back.
async fn sabotage(f: &Fixture, sql: &'static str) {
    use sqlx::Connection as _;
    let path = f.dir().join("store.db");
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(&path)
        .foreign_keys(false);
    let mut conn = sqlx::SqliteConnection::connect_with(&options)
        .await
        .expect("a second connection opens");
    sqlx::raw_sql(sql)
        .execute(&mut conn)
        .await
        .expect("the sabotage runs");
    conn.close().await.expect("the connection closes");
}

#[tokio::test]
async fn a_database_failure_is_hidden_from_the_model_and_explained_to_the_developer() {
    let f = Fixture::sqlite().await;
    sabotage(&f, "DROP TABLE order_lines").await;
    let result = f.call("orders_get", json!({"order_id": 1}), 1).await;
    assert_eq!(
        result.to_model_json(),
        json!({"error": "internal_error", "message": "The tool failed unexpectedly."})
    );
    let exception = result.exception.unwrap_or_default();
    assert!(
        exception.starts_with("guard `own_order` failed: loading the lines of order 1: ")
            && exception.contains("no such table: order_lines"),
        "{exception}"
    );
}

#[tokio::test]
async fn a_guard_that_cannot_read_defers_to_the_handler() {
    let f = Fixture::sqlite().await;
    sabotage(&f, "DROP TABLE customers").await;
    let args = json!({"lines": [{"sku": "MUG-001", "quantity": 1}]});
    let result = f.call("orders_place", args, 1).await;
    // Not `customer_active`: the precondition could not be checked, so the model is not
    // told the account is inactive.
    assert_eq!(
        result.to_model_json(),
        json!({"error": "internal_error", "message": "Could not place the order"})
    );
    let exception = result.exception.unwrap_or_default();
    assert!(
        exception.contains("no such table: customers"),
        "{exception}"
    );
}

async fn a_refund_of_nothing_changes_nothing(f: &Fixture) {
    // The schema says `minimum: 1`; whoever rejects it (invoker or store), the order stays.
    let result = f
        .call("orders_refund", json!({"order_id": 3, "amount": 0}), 1)
        .await;
    assert!(!result.is_ok(), "{:?}", result.value());
    assert_eq!(
        f.ok("orders_get", json!({"order_id": 3}), 1).await,
        json!({"order": order_3("delivered")})
    );
}

#[tokio::test]
async fn the_mcp_server_looks_tools_up_as_its_own_caller() {
    use toolspec::Caller;
    use toolspec::mcp::McpServer;
    use toolspec::mcp::rmcp::ServerHandler;
    let fixture = Fixture::sqlite().await;
    let registry = Arc::new(fixture.harness.into_registry());
    let reader = Caller::new("grace").with_scopes(["orders:read"]);
    let server = McpServer::new(Arc::clone(&registry), reader);
    assert!(server.get_tool("orders_get").is_some());
    assert!(
        server.get_tool("orders_refund").is_none(),
        "a tool outside the caller's scopes is as unknown as a missing one"
    );
    assert!(server.get_tool("no_such_tool").is_none());
    let everyone = McpServer::new(registry, Caller::new("cli"));
    assert!(everyone.get_tool("orders_refund").is_some());
}

/// The ids of a query tool's page, in order.
fn ids(page: &Value) -> Vec<i64> {
    page["records"]
        .as_array()
        .map(|records| records.iter().filter_map(|r| r["id"].as_i64()).collect())
        .unwrap_or_default()
}

async fn orders_search_filters_and_sorts_the_callers_orders_only(f: &Fixture) {
    let all = f.ok("orders_search", json!({}), 1).await;
    assert_eq!(ids(&all), [1, 2, 3, 4], "newest first by default");
    assert_eq!(
        (&all["total"], &all["limit"], &all["offset"]),
        (&json!(4), &json!(20), &json!(0))
    );
    let search =
        async |args: Value, customer_id| ids(&f.ok("orders_search", args, customer_id).await);
    assert_eq!(search(json!({"status": "pending"}), 1).await, [1]);
    assert_eq!(search(json!({"status": "pending"}), 2).await, [5]);
    assert_eq!(search(json!({}), 2).await, [5, 6]);
    // Order 2 was placed at 09:30 in UTC+1, 08:30 UTC: bounds compare instants, not text.
    assert_eq!(
        search(json!({"placed_before": "2026-01-03T08:45:00Z"}), 1).await,
        [2, 3, 4]
    );
    assert_eq!(
        search(json!({"placed_after": "2026-01-01T00:00:00Z", "placed_before": "2026-01-03T08:30:00Z"}), 1).await,
        Vec::<i64>::new()
    );
    assert_eq!(
        search(json!({"total_min": 2400, "sort": "total"}), 1).await,
        [1, 2]
    );
    assert_eq!(
        search(json!({"sort": "-total", "limit": 2, "offset": 1}), 1).await,
        [1, 3]
    );
}

async fn a_repeated_refund_runs_once_and_answers_alike(f: &Fixture) {
    // Order 3 (2399 USD, delivered): the same refund sent twice at once runs once (`once`);
    // both callers get its answer.
    let refund = || f.ok("orders_refund", json!({"order_id": 3, "amount": 1000}), 1);
    let (first, second) = tokio::join!(refund(), refund());
    assert_eq!(first, second);
    assert_eq!(
        first["refunded"],
        json!({"amount": 1000, "currency": "USD"})
    );
    // Another amount is another refund; the repeat still answers with the first result.
    f.ok("orders_refund", json!({"order_id": 3, "amount": 500}), 1)
        .await;
    assert_eq!(refund().await, first);
    assert_eq!(
        f.err("orders_refund", json!({"order_id": 3, "amount": 900}), 1)
            .await["details"],
        json!({"requested": 900, "refundable": {"amount": 899, "currency": "USD"}})
    );
    // The trail tells the run from its replays: each replay names the record of the call
    // that ran (the refund's confirmation asked first: those records are `input_required`).
    let trail = f.registry().audit().expect("the store records calls");
    trail.flush().await;
    let page = toolspec::audit::AuditQuery {
        tool: Some("orders_refund".into()),
        ..Default::default()
    }
    .read(trail.database())
    .await
    .expect("the trail reads");
    let of_1000: Vec<_> = page
        .records
        .iter()
        .filter(|r| r.arguments["amount"] == 1000 && r.outcome.as_deref() == Some("ok"))
        .collect();
    let ran: Vec<_> = of_1000.iter().filter(|r| r.replay_of.is_none()).collect();
    assert_eq!(ran.len(), 1, "one call ran: {of_1000:#?}");
    let replays: Vec<_> = of_1000.iter().filter_map(|r| r.replay_of).collect();
    assert_eq!(replays, [ran[0].id, ran[0].id], "{of_1000:#?}");
    assert!(
        of_1000.iter().all(|r| r.result == ran[0].result),
        "a replay's result is the run's"
    );
}

async fn explain_reports_once_and_lock_without_taking_them(f: &Fixture) {
    let ambient = AmbientContext::from([("customer_id", 1)]);
    let args = json!({"order_id": 3, "amount": 1000});
    let explain = async || {
        let explanation = f
            .registry()
            .get("orders_refund")
            .expect("registered")
            .explain(args.clone(), &ambient)
            .await
            .expect("explained");
        serde_json::to_value(explanation).expect("serializes")
    };
    let before = explain().await;
    assert_eq!(
        before,
        json!({
            "tool": "orders_refund",
            "callable": true,
            "errors": [],
            "guards": [],
            "once": {"key": {"customer_id": 1, "order_id": 3, "amount": 1000}, "status": "new"},
            "lock": {"key": {"order_id": 3}, "held": false, "wait_ms": 5000},
            "confirm": "Refund 1000 minor units of order 3?",
            "result_cap": {"bytes": 1048576},
        })
    );
    f.ok("orders_refund", args.clone(), 1).await;
    let after = explain().await;
    let once = &after["once"];
    assert_eq!(
        (&once["status"], &once["outcome"]),
        (&json!("done"), &json!("ok"))
    );
    let at = once["at"].as_str().expect("when it ran");
    let until = once["expires_at"].as_str().expect("until when");
    let at = chrono::DateTime::parse_from_rfc3339(at).expect("RFC 3339");
    let until = chrono::DateTime::parse_from_rfc3339(until).expect("RFC 3339");
    assert_eq!(until - at, chrono::TimeDelta::hours(24), "the spec's ttl");
    assert_eq!(after["lock"]["held"], false);
}

/// Counts the calls and the explanations its hooks see.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<(String, bool)>>>);

impl toolspec::Hook for Seen {
    fn before(&self, call: &toolspec::CallInfo<'_>) -> Result<(), toolspec::ToolError> {
        let seen = (call.tool.name().to_owned(), call.explaining);
        self.0.lock().unwrap().push(seen);
        Ok(())
    }
}

async fn an_explanation_goes_through_the_callers_stages_and_is_no_call_of_its_tool(f: &Fixture) {
    let seen = Seen::default();
    let registry = crate::registry(f.store.clone()).with_hook(seen.clone());
    let ambient = AmbientContext::from([("customer_id", 1)]);
    let args = json!({"order_id": 3, "amount": 1000});
    let options = |scopes: &[&str]| CallOptions {
        scopes: toolspec::Scopes::only(scopes.iter().copied()),
        ..CallOptions::default()
    };
    // Scopes that could not call `orders_refund` cannot have it explained either: it is
    // unknown to them, as to a call.
    let refused = registry
        .explain_with(
            "orders_refund",
            args.clone(),
            &ambient,
            options(&["orders:read"]),
        )
        .await
        .expect("a tool of the registry");
    assert!(!refused.callable, "{refused:?}");
    assert!(
        refused.guards.iter().all(|g| g.passed.is_none()),
        "{refused:?}"
    );
    let called = registry
        .invoke_with(
            "orders_refund",
            args.clone(),
            &ambient,
            options(&["orders:read"]),
        )
        .await
        .expect("a tool of the registry");
    let unknown = called.error().expect("refused").clone();
    assert_eq!(unknown.code, "unknown_tool");
    assert_eq!(refused.errors[0].message, unknown.message, "{refused:?}");
    // With the scopes it needs, the same explanation passes.
    let all = ["orders:read", "orders:write", "payments:refund"];
    let explained = registry
        .explain_with("orders_refund", args.clone(), &ambient, options(&all))
        .await
        .expect("a tool of the registry");
    assert!(explained.callable, "{explained:?}");
    // The explain tool enters the pipeline again for the tool it explains.
    let through_the_tool = json!({"tool": "orders_refund", "arguments": args});
    let answered = registry
        .invoke_with("explain", through_the_tool, &ambient, options(&all))
        .await
        .expect("the explain tool");
    assert_eq!(
        answered.outcome.as_ref().expect("explained")["callable"],
        true
    );
    // What the scopes refused never reached the hooks; each explanation did, told apart from a
    // call.
    assert_eq!(
        *seen.0.lock().unwrap(),
        [
            ("orders_refund".to_owned(), true),
            ("explain".to_owned(), false),
            ("orders_refund".to_owned(), true),
        ],
    );
    // An explanation is no call of the tool it explains: of `orders_refund`, only the refused
    // call is recorded; the call of the explain tool is recorded as its own.
    let trail = registry.audit().expect("the store records calls");
    trail.flush().await;
    let page = toolspec::audit::AuditQuery::default()
        .read(trail.database())
        .await
        .expect("the trail reads");
    let recorded: Vec<(&str, Option<&str>)> = page
        .records
        .iter()
        .map(|r| (r.tool.as_str(), r.outcome.as_deref()))
        .collect();
    assert_eq!(
        recorded,
        [
            ("explain", Some("ok")),
            ("orders_refund", Some("unknown_tool"))
        ],
        "newest first: {:#?}",
        page.records
    );
}

async fn every_call_is_recorded_with_sensitive_values_redacted(f: &Fixture) {
    let note = "Leave it with the neighbour at number 42";
    let args = json!({"lines": [{"sku": "MUG-001", "quantity": 1}], "note": note});
    let placed = f.ok("orders_place", args, 2).await;
    let found = f.ok("orders_search", json!({"status": "pending"}), 2).await;
    assert!(
        found.to_string().contains(note),
        "the model sees its own note"
    );
    f.err("orders_get", json!({"order_id": 1}), 2).await;
    let trail = f.registry().audit().expect("the store records calls");
    trail.flush().await;
    let page = toolspec::audit::AuditQuery {
        caller: None,
        ..Default::default()
    }
    .read(trail.database())
    .await
    .expect("the trail reads");
    let tools: Vec<&str> = page.records.iter().map(|r| r.tool.as_str()).collect();
    assert_eq!(
        tools,
        ["orders_get", "orders_search", "orders_place"],
        "newest first"
    );
    let stored = serde_json::to_string(&page).expect("serializes");
    assert!(
        !stored.contains(note),
        "a sensitive value is never stored: {stored}"
    );
    let place = &page.records[2];
    assert_eq!(place.arguments["note"], "[redacted]");
    assert_eq!(place.ambient, json!({"customer_id": 2}));
    assert_eq!(place.outcome.as_deref(), Some("ok"));
    assert_eq!(
        place.result.as_ref().map(|r| &r["order"]["id"]),
        Some(&placed["order"]["id"])
    );
    assert_eq!(
        page.records[1]
            .result
            .as_ref()
            .map(|r| &r["records"][0]["note"]),
        Some(&json!("[redacted]"))
    );
    let get = &page.records[0];
    assert_eq!(
        (
            get.outcome.as_deref().unwrap_or_default(),
            get.message.as_deref()
        ),
        ("not_found", Some("No such order."))
    );
    assert_eq!(get.result, None);
    assert_eq!(get.trace_id, get.id.simple().to_string());
}

#[tokio::test]
async fn the_harness_calls_with_typed_input_and_reads_what_the_trail_recorded() {
    use crate::tools::orders::get;
    let f = Fixture::sqlite().await;
    let ada = Caller::new("ada").with_ambient(AmbientContext::from([("customer_id", 1)]));
    let calls = f.harness.as_caller(&ada);
    let got = calls
        .call_typed::<get::Tool>(&get::Input { order_id: 1 })
        .await
        .expect("order 1 is ada's");
    assert_eq!(got.order.id, 1);
    let missing = calls
        .call_typed::<get::Tool>(&get::Input { order_id: 999 })
        .await
        .expect_err("there is no order 999");
    assert_eq!(
        (missing.code.as_str(), missing.message.as_str()),
        ("not_found", "No such order.")
    );
    // Asked to confirm and not confirming, the call is asked, and nothing is done.
    let asked = calls.call("orders_cancel", json!({"order": 1})).await;
    let question = asked.asked().expect("the call asks to confirm");
    assert_eq!(question.requests[0].key, "confirm");
    let confirmed = calls
        .answer(
            question,
            json!({"order": 1}),
            &json!({"confirm": {"action": "accept"}}),
        )
        .await
        .ok();
    assert_eq!(confirmed["order"]["status"], "cancelled");
    let trail = f.harness.audit().await;
    let seen: Vec<(&str, Option<&str>, Option<&str>)> = trail
        .iter()
        .map(|r| (r.tool.as_str(), r.caller.as_deref(), r.outcome.as_deref()))
        .collect();
    assert_eq!(
        seen,
        [
            ("orders_cancel", Some("ada"), Some("ok")),
            ("orders_cancel", Some("ada"), Some("input_required")),
            ("orders_get", Some("ada"), Some("not_found")),
            ("orders_get", Some("ada"), Some("ok")),
        ],
        "newest first"
    );
}

/// The store of a read-only deployment: its handlers' connections may only read. A handler
/// that writes anyway (here a writing tool left in the registry, to reach one) fails loudly,
/// nothing is written, and the call is still recorded.
async fn a_handler_on_read_only_connections_that_writes_fails_and_writes_nothing(f: &Fixture) {
    let reading = f.store.read_only().await.expect("opens to read only");
    let harness = Harness::new(crate::registry(reading.clone())).at(NOW);
    let customer =
        Caller::new("customer 1").with_ambient(AmbientContext::from([("customer_id", 1)]));
    let calls = harness.as_caller(&customer).confirming();
    let before = f.store.order_ids(1, None).await.expect("orders");

    let args = json!({"lines": [{"sku": "MUG-001", "quantity": 1}]});
    let placed = calls.call("orders_place", args).await;
    let result = placed.result();
    assert_eq!(
        placed.to_model_json()["error"],
        "internal_error",
        "{:?}",
        result.value()
    );
    let why = result.exception.clone().expect("the developer sees why");
    assert!(
        why.contains("read-only") || why.contains("readonly") || why.contains("read only"),
        "the database's refusal: {why}"
    );
    let cancelled = calls.call("orders_cancel", json!({"order": 1})).await;
    assert_eq!(cancelled.to_model_json()["error"], "internal_error");

    // Nothing written: the same orders, order 1 still pending.
    assert_eq!(f.store.order_ids(1, None).await.expect("orders"), before);
    // Reads work, and the calls were recorded through the connections that may write.
    let order = calls.call("orders_get", json!({"order_id": 1})).await.ok();
    assert_eq!(order["order"]["status"], "pending");
    let trail = harness.registry().audit().expect("the store records calls");
    trail.flush().await;
    let page = toolspec::audit::AuditQuery::default()
        .read(trail.database())
        .await
        .expect("the trail reads");
    let tools: Vec<&str> = page.records.iter().map(|r| r.tool.as_str()).collect();
    // The cancellation twice: asked to confirm, then confirmed.
    let called = [
        "orders_get",
        "orders_cancel",
        "orders_cancel",
        "orders_place",
    ];
    assert_eq!(tools, called);
    reading.close().await;
}
