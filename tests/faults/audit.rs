//! A `required` tool's record is committed before its call runs: while the audit table refuses
//! writes, `orders_refund` does nothing (no refund, its `once` key free) and answers
//! `unavailable` with a retry hint; the identical retry, once the table takes writes again,
//! refunds once. When only the outcome cannot be written, the refund that ran is answered as
//! it happened and its record stays `started`. `orders_place` (`required` too) places no order
//! while the table refuses its record.

use rmcp::model::ProtocolVersion;
use serde_json::json;
use toolspec::audit::AuditState;

use crate::support::{Client, HttpServer, TOKENS, one_mug, result, text};
use crate::target::{Backend, Sql, Target, code, error, refund};

#[tokio::test]
async fn sqlite_a_required_call_whose_record_cannot_be_written_does_not_run() {
    if let Some(target) = Target::new(Backend::Sqlite).await {
        a_required_call_whose_record_cannot_be_written_does_not_run(target).await;
    }
}

#[tokio::test]
async fn postgres_a_required_call_whose_record_cannot_be_written_does_not_run() {
    if let Some(target) = Target::new(Backend::Postgres).await {
        a_required_call_whose_record_cannot_be_written_does_not_run(target).await;
    }
}

/// The store on `target`'s database with a session of Ada's, once a call was recorded (then
/// toolspec's tables exist), and the test's own connection.
async fn served(target: &Target) -> (HttpServer, Client, Sql) {
    let db = std::ffi::OsStr::new(&target.db);
    let server = HttpServer::start_on(db, &target.scratch, TOKENS, &[], None).await;
    let client = server
        .client("ada-token", ProtocolVersion::V_2025_11_25)
        .await;
    let first = result(&client, "orders_get", json!({"order_id": 1})).await;
    assert_eq!(first.is_error, Some(false), "{}", text(&first));
    (server, client, target.connect().await)
}

async fn a_required_call_whose_record_cannot_be_written_does_not_run(target: Target) {
    let (server, client, sql) = served(&target).await;
    let refunded = || sql.integer("SELECT refunded FROM orders WHERE id = 3");
    let before = refunded().await;

    sql.refuse_audit_rows("TRUE").await;
    let refused = refund(&client, 3, 3).await;
    assert_eq!(code(&refused), "unavailable", "{}", text(&refused));
    assert_eq!(
        error(&refused),
        json!({
            "error": "unavailable",
            "message": "Could not refund the order: Nothing was done, as the audit trail is unavailable; retry in 2 s.",
            "details": {"retry_after": 2}
        })
    );
    assert_eq!(refunded().await, before, "nothing was refunded");
    let claims = sql
        .integer("SELECT COUNT(*) FROM toolspec_once WHERE tool = 'orders_refund'")
        .await;
    assert_eq!(claims, 0, "the `once` key is free");

    sql.accept_audit_rows().await;
    let retried = refund(&client, 3, 3).await;
    assert_eq!(code(&retried), "ok", "{}", text(&retried));
    assert_eq!(text(&retried), "Refunded 3 USD on order 3.");
    assert_eq!(refunded().await, before + 3, "refunded once");
    // Only the calls that got past their record are recorded: the round that asked the user to
    // confirm the refund, then the confirmed call that ran (newest first).
    let records = target.records("orders_refund").await;
    assert_eq!(records.len(), 2, "{records:#?}");
    assert_eq!(records[0].state, AuditState::Finished);
    assert_eq!(records[0].outcome.as_deref(), Some("ok"));
    assert_eq!(records[0].arguments, json!({"order_id": 3, "amount": 3}));
    assert_eq!(records[1].outcome.as_deref(), Some("input_required"));

    // The record is written before the refund, its outcome after: when only the outcome is
    // refused, the refund that ran answers as it happened and its record stays `started`.
    sql.refuse_audit_rows("NEW.state = 'finished'").await;
    let ran = refund(&client, 3, 4).await;
    assert_eq!(code(&ran), "ok", "{}", text(&ran));
    assert_eq!(refunded().await, before + 7);
    sql.accept_audit_rows().await;
    let records = target.records("orders_refund").await;
    assert_eq!(records.len(), 4, "{records:#?}");
    assert_eq!(records[0].arguments, json!({"order_id": 3, "amount": 4}));
    assert_eq!(
        (records[0].state, records[0].outcome.as_deref()),
        (AuditState::Started, None),
        "opened before the refund ran, its outcome refused"
    );

    sql.close().await;
    client.cancel().await.expect("the session ends");
    drop(server);
    target.finish().await;
}

#[tokio::test]
async fn sqlite_no_order_is_placed_while_its_record_cannot_be_written() {
    if let Some(target) = Target::new(Backend::Sqlite).await {
        no_order_is_placed_while_its_record_cannot_be_written(target).await;
    }
}

#[tokio::test]
async fn postgres_no_order_is_placed_while_its_record_cannot_be_written() {
    if let Some(target) = Target::new(Backend::Postgres).await {
        no_order_is_placed_while_its_record_cannot_be_written(target).await;
    }
}

/// `specs/orders/place.yaml` promises that no placed order goes unrecorded: its record is
/// committed before the order is placed, so a refused record places nothing.
async fn no_order_is_placed_while_its_record_cannot_be_written(target: Target) {
    let (server, client, sql) = served(&target).await;
    let orders = || sql.integer("SELECT COUNT(*) FROM orders");
    let before = orders().await;

    sql.refuse_audit_rows("TRUE").await;
    let refused = result(&client, "orders_place", one_mug()).await;
    assert_eq!(code(&refused), "unavailable", "{}", text(&refused));
    assert_eq!(
        error(&refused)["message"],
        "Could not place the order: Nothing was done, as the audit trail is unavailable; retry in 2 s."
    );
    assert_eq!(orders().await, before, "no order was placed");

    sql.accept_audit_rows().await;
    let placed = result(&client, "orders_place", one_mug()).await;
    assert_eq!(code(&placed), "ok", "{}", text(&placed));
    assert_eq!(orders().await, before + 1);
    let records = target.records("orders_place").await;
    assert_eq!(records.len(), 1, "only the call that ran: {records:#?}");
    assert_eq!(records[0].state, AuditState::Finished);
    let id = placed.structured_content.as_ref().unwrap()["order"]["id"].clone();
    assert_eq!(records[0].result.as_ref().unwrap()["order"]["id"], id);

    sql.close().await;
    client.cancel().await.expect("the session ends");
    drop(server);
    target.finish().await;
}
