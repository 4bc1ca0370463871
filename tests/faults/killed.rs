//! `kill -9` under load, counting what was committed without a record. Workers refund 1 of a
//! fresh delivered order each and place orders until the server is killed at a moment that
//! differs each round and each run; both tools are `audit: { required: true }`. Then every order
//! refunded in the database is matched with its record, and every order placed with a record
//! that names it or with one of the records opened before a call ran that never finished
//! (placing an order takes the same arguments every time, so an open record cannot say which
//! order it is): none may be left without one. Records the killed processes left `started` are
//! `interrupted` once a live process finds them dead.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, Instant};

use rmcp::model::ProtocolVersion;
use toolspec::audit::AuditState;

use crate::support::{HttpServer, TOKENS, call, one_mug};
use crate::target::{Backend, Target, code, refund};

/// The first of the delivered orders added for the refunds.
const FIRST: i64 = 100_000;

/// How many (one per refund at most).
const ORDERS: i64 = 4_000;

const ROUNDS: u64 = 12;

#[tokio::test]
async fn sqlite_kill_9_leaves_no_required_effect_without_its_record() {
    if let Some(target) = Target::new(Backend::Sqlite).await {
        kill_9_leaves_no_required_effect_without_its_record(target).await;
    }
}

#[tokio::test]
async fn postgres_kill_9_leaves_no_required_effect_without_its_record() {
    if let Some(target) = Target::new(Backend::Postgres).await {
        kill_9_leaves_no_required_effect_without_its_record(target).await;
    }
}

async fn kill_9_leaves_no_required_effect_without_its_record(target: Target) {
    let sql = target.connect().await;
    sql.add_delivered_orders(FIRST, ORDERS).await;
    let seeded = sql
        .integer(&format!("SELECT MAX(id) FROM orders WHERE id < {FIRST}"))
        .await;
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(7, |d| u64::from(d.subsec_nanos()));
    let next = Arc::new(AtomicI64::new(FIRST));
    let mut answered = (0, 0);
    let mut rounds = 0;
    // At least `ROUNDS`, and enough for 20 answered refunds on a busy machine.
    while rounds < ROUNDS || answered.0 < 20 {
        assert!(rounds < 4 * ROUNDS, "the load barely ran: {answered:?}");
        let pause = Duration::from_millis(50 + (seed.wrapping_mul(rounds + 1) >> 7) % 400);
        let (refunds, places) = load_until_killed(&target, &next, pause).await;
        answered.0 += refunds;
        answered.1 += places;
        rounds += 1;
    }
    assert!(
        next.load(Ordering::SeqCst) < FIRST + ORDERS,
        "enough orders to refund"
    );

    // Every refunded order has a record: finished `ok`, or opened before the refund ran.
    let refunded: BTreeSet<i64> = sql
        .integers(&format!(
            "SELECT id FROM orders WHERE id >= {FIRST} AND refunded > 0"
        ))
        .await
        .into_iter()
        .collect();
    let records = target.records("orders_refund").await;
    let recorded: BTreeSet<i64> = records
        .iter()
        .filter(|r| r.state != AuditState::Finished || r.outcome.as_deref() == Some("ok"))
        .filter_map(|r| r.arguments["order_id"].as_i64())
        .collect();
    let unrecorded: Vec<&i64> = refunded.difference(&recorded).collect();
    assert!(
        unrecorded.is_empty(),
        "refunds committed without a record: {unrecorded:?}"
    );
    let open = records
        .iter()
        .filter(|r| r.state != AuditState::Finished)
        .count();

    // The orders placed (numbered past the seed, around the added ones): each has a finished
    // record naming it, or is one of those whose call was recorded before it ran and never
    // finished.
    let placed: BTreeSet<i64> = sql
        .integers(&format!(
            "SELECT id FROM orders
             WHERE id > {seeded} AND (id < {FIRST} OR id >= {FIRST} + {ORDERS})"
        ))
        .await
        .into_iter()
        .collect();
    let place_records = target.records("orders_place").await;
    let placed_recorded: BTreeSet<i64> = place_records
        .iter()
        .filter_map(|r| r.result.as_ref()?["order"]["id"].as_i64())
        .collect();
    let placed_open = place_records
        .iter()
        .filter(|r| r.state != AuditState::Finished)
        .count();
    let placed_unnamed = placed.difference(&placed_recorded).count();
    assert!(
        placed_unnamed <= placed_open,
        "{placed_unnamed} placed orders have no finished record, and only {placed_open} calls \
         were recorded without finishing: orders placed without a record"
    );
    eprintln!(
        "kill -9 in {rounds} rounds: {} refunds committed ({} answered), 0 without a record, {open} \
         recorded before they ran but never finished; {} orders placed ({} answered), \
         {placed_unnamed} of them by a call recorded before it ran that never finished \
         ({placed_open} such records), 0 without a record",
        refunded.len(),
        answered.0,
        placed.len(),
        answered.1,
    );

    // What the killed processes left open is closed by the next live one.
    let server = HttpServer::start_on(
        std::ffi::OsStr::new(&target.db),
        &target.scratch,
        TOKENS,
        &[],
        None,
    )
    .await;
    let client = server
        .client("ada-token", ProtocolVersion::V_2025_11_25)
        .await;
    let order = next.fetch_add(1, Ordering::SeqCst);
    assert_eq!(code(&refund(&client, order, 1).await), "ok");
    // Each killed process is found dead once its lapse has passed since its last beat: the
    // records of the last one (refunds' or placed orders') may be closed after the others.
    let deadline = Instant::now() + Duration::from_secs(40);
    for tool in ["orders_refund", "orders_place"] {
        loop {
            let records = target.records(tool).await;
            let started = records
                .iter()
                .filter(|r| r.state == AuditState::Started)
                .count();
            if started == 0 {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "{started} records of {tool} are still `started` 40 s after their processes \
                 were killed"
            );
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
    }
    let interrupted = target
        .records("orders_refund")
        .await
        .iter()
        .filter(|r| r.state == AuditState::Interrupted)
        .count();
    assert_eq!(interrupted, open, "every record left open is `interrupted`");
    let placing = target
        .records("orders_place")
        .await
        .iter()
        .filter(|r| r.state == AuditState::Interrupted)
        .count();
    assert_eq!(
        placing, placed_open,
        "every placing record left open is `interrupted`"
    );
    client.cancel().await.expect("the session ends");
    drop(server);
    sql.close().await;
    target.finish().await;
}

/// Refunds (four workers, a fresh order each time) and places orders (one worker) through a
/// new server until it is killed with `-9` after `pause`; how many of each were answered.
async fn load_until_killed(target: &Target, next: &Arc<AtomicI64>, pause: Duration) -> (u64, u64) {
    let db = std::ffi::OsStr::new(&target.db);
    // As fast as it can: the default rate limit (bursts of 50 per caller and tool) would
    // refuse some of the refunds, and every one must be answered as done.
    let server =
        HttpServer::start_on(db, &target.scratch, TOKENS, &["--no-rate-limit"], None).await;
    let client = Arc::new(
        server
            .client("ada-token", ProtocolVersion::V_2025_11_25)
            .await,
    );
    let killer = server.kill_after(pause);
    let refunders = (0..4).map(|_| {
        let (client, next) = (Arc::clone(&client), Arc::clone(next));
        tokio::spawn(async move {
            let mut answered = 0;
            loop {
                let order = next.fetch_add(1, Ordering::SeqCst);
                // A call the dead server never answers is not waited for long.
                let called =
                    tokio::time::timeout(Duration::from_secs(2), refund_call(&client, order));
                match called.await {
                    Ok(Some(refunded)) => {
                        if let Err(answer) = refunded {
                            panic!("refund of order {order} failed: {answer}");
                        }
                        answered += 1;
                    }
                    Ok(None) | Err(_) => return answered,
                }
            }
        })
    });
    let placer = {
        let client = Arc::clone(&client);
        tokio::spawn(async move {
            let mut answered = 0;
            loop {
                let placed = tokio::time::timeout(
                    Duration::from_secs(2),
                    call(&client, "orders_place", one_mug()),
                );
                match placed.await {
                    Ok(Ok(answer)) => {
                        assert_eq!(answer.is_error, Some(false), "orders_place failed");
                        answered += 1;
                    }
                    Ok(Err(_)) | Err(_) => return answered,
                }
            }
        })
    };
    let mut refunds = 0;
    for refunder in refunders {
        refunds += refunder.await.expect("a refunder");
    }
    let places = placer.await.expect("the placer");
    let _ = killer.await;
    drop(server);
    (refunds, places)
}

/// One refund of 1 of `order`: `Some(succeeded)`, or `None` when the server did not answer.
/// A refund of `order` (`None`: no answer came); `Err` the answer of a failed one.
async fn refund_call(client: &crate::support::Client, order: i64) -> Option<Result<(), String>> {
    let params = crate::support::params(
        "orders_refund",
        serde_json::json!({"order_id": order, "amount": 1}),
    );
    let answer = client.call_tool(params).await.ok()?;
    match answer.is_error {
        Some(false) => Some(Ok(())),
        _ => Some(Err(serde_json::to_string(&answer).unwrap_or_default())),
    }
}
