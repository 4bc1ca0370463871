//! The audit trail, `once` and `lock` through the store's binary: records are not lost on a
//! graceful shutdown, an answered call's record survives `kill -9` (`orders_place` is
//! `required`, which implies `sync`: its record is committed before the answer), and two processes on one PostgreSQL
//! database run a `once` tool's handler once for many concurrent duplicates, and a `lock`ed
//! tool's handler for one key never in two places at once.

use std::time::Duration;

use rmcp::model::ProtocolVersion;
use serde_json::{Value, json};

use crate::support::*;

#[tokio::test]
async fn every_call_answered_before_sigterm_is_recorded() {
    let scratch = Scratch::new();
    // 200 calls as fast as they answer: a load test, not a caller the rate limit is for.
    let server = HttpServer::start_with(&scratch, TOKENS, &["--no-rate-limit"], None).await;
    let client = server
        .client("ada-token", ProtocolVersion::V_2025_11_25)
        .await;
    const CALLS: usize = 200;
    for i in 0..CALLS {
        let order = 1 + (i % 4) as i64;
        let got = result(&client, "orders_get", json!({"order_id": order})).await;
        assert_eq!(got.is_error, Some(false), "{}", text(&got));
    }
    drop(client);
    let status = server.stop_with("-TERM").await;
    assert!(status.success(), "a graceful shutdown: {status}");
    let db = scratch.db().display().to_string();
    let recorded = records(&db, "orders_get").await;
    assert_eq!(
        recorded.len(),
        CALLS,
        "the queue was written before the exit"
    );
    assert!(recorded.iter().all(|r| r.caller.as_deref() == Some("ada")
        && r.adapter.as_deref() == Some("mcp")
        && r.outcome.as_deref() == Some("ok")
        && r.ambient == json!({"customer_id": 1})));
}

#[tokio::test]
async fn an_answered_calls_record_is_committed_before_its_answer_even_under_kill_9() {
    let scratch = Scratch::new();
    let db = scratch.db().display().to_string();
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(7, |d| u64::from(d.subsec_nanos()));
    let mut answered = 0;
    for round in 0..20u64 {
        // Orders placed as fast as they answer: a load test, not what a rate limit is for.
        let server = HttpServer::start_with(&scratch, TOKENS, &["--no-rate-limit"], None).await;
        let client = server
            .client("ada-token", ProtocolVersion::V_2025_11_25)
            .await;
        // A moment within the load, different each round and each run.
        let pause = Duration::from_millis(30 + (seed.wrapping_mul(round + 1) >> 7) % 300);
        answered += count_answers(&client, &server, pause).await;
        let recorded = records(&db, "orders_place").await.len();
        assert!(
            recorded >= answered,
            "round {round}: {recorded} records for {answered} answered calls"
        );
    }
    assert!(answered >= 20, "the load ran: {answered} answered calls");
    eprintln!("kill -9 in 20 rounds: {answered} answered calls, each recorded");
}

/// Places orders (whose records are committed before they answer) until the server is killed with `-9` after
/// `pause`; how many calls were answered.
async fn count_answers(client: &Client, server: &HttpServer, pause: Duration) -> usize {
    let killer = server.kill_after(pause);
    let mut answered = 0;
    loop {
        // A call the dead server never answers is not waited for long.
        let placed = tokio::time::timeout(
            Duration::from_secs(1),
            call(client, "orders_place", one_mug()),
        );
        match placed.await {
            Ok(Ok(answer)) if answer.is_error == Some(false) => answered += 1,
            Ok(Ok(answer)) => panic!("orders_place failed: {}", text(&answer)),
            Ok(Err(_)) | Err(_) => break,
        }
    }
    let _ = killer.await;
    answered
}

#[tokio::test]
async fn two_processes_on_one_postgres_database_run_a_once_handler_once() {
    let Some(server_url) = toolspec_test_postgres::server_url() else {
        return;
    };
    let database = toolspec_test_postgres::Scratch::create(&server_url).await;
    let url = std::ffi::OsStr::new(database.url());
    let scratch = Scratch::new();
    // 51 refunds asked and confirmed make 102 calls of one tool by one caller: past its
    // bursts, which are not what this test is about.
    let unlimited = ["--no-rate-limit"];
    let first = HttpServer::start_on(url, &scratch, TOKENS, &unlimited, None).await;
    let second = HttpServer::start_on(url, &scratch, TOKENS, &unlimited, None).await;
    let clients = [
        first
            .client("ada-token", ProtocolVersion::V_2025_11_25)
            .await,
        second
            .client("ada-token", ProtocolVersion::V_2025_11_25)
            .await,
    ];
    // 50 copies of one refund of order 3 (2399 USD, delivered), half through each process.
    let calls = (0..50).map(|i| {
        let client = &clients[i % 2];
        async move {
            result(
                client,
                "orders_refund",
                json!({"order_id": 3, "amount": 1000}),
            )
            .await
        }
    });
    let answers: Vec<Value> = futures_util::future::join_all(calls)
        .await
        .into_iter()
        .map(|answer| {
            assert_eq!(answer.is_error, Some(false), "{}", text(&answer));
            answer.structured_content.expect("structured")
        })
        .collect();
    assert!(
        answers.iter().all(|a| *a == answers[0]),
        "every duplicate answers alike"
    );
    assert_eq!(
        answers[0]["refunded"],
        json!({"amount": 1000, "currency": "USD"})
    );
    // The handler ran once: 1,399 is left to refund.
    let explain = result(
        &clients[0],
        "orders_refund",
        json!({"order_id": 3, "amount": 1400}),
    )
    .await;
    assert_eq!(explain.is_error, Some(true));
    assert!(
        text(&explain).contains("larger than what is left"),
        "{}",
        text(&explain)
    );
    // Every call is recorded, duplicates included, each after the round that asked its user
    // to confirm it.
    let recorded = records(database.url(), "orders_refund").await;
    let asked = recorded
        .iter()
        .filter(|r| r.outcome.as_deref() == Some("input_required"))
        .count();
    assert_eq!((recorded.len(), asked), (102, 51));
    for client in clients {
        client.cancel().await.expect("the session ends");
    }
    drop((first, second));
    database.drop().await;
}

/// The `(start, end)` of each refund the server logged (at debug level), by amount.
fn refund_spans(
    log: &str,
) -> Vec<(
    u64,
    chrono::DateTime<chrono::FixedOffset>,
    chrono::DateTime<chrono::FixedOffset>,
)> {
    let mut starts = std::collections::HashMap::new();
    let mut spans = Vec::new();
    for line in log.lines() {
        let Some((time, rest)) = line.trim_start().split_once(' ') else {
            continue;
        };
        let Ok(at) = chrono::DateTime::parse_from_rfc3339(time) else {
            continue;
        };
        let amount = rest
            .split_once("requested=")
            .and_then(|(_, r)| r.split_whitespace().next())
            .and_then(|n| n.parse::<u64>().ok());
        let Some(amount) = amount else { continue };
        if rest.contains("refund starts") {
            starts.insert(amount, at);
        } else if rest.contains("refund ends")
            && let Some(start) = starts.remove(&amount)
        {
            spans.push((amount, start, at));
        }
    }
    spans
}

#[tokio::test]
async fn two_processes_on_one_postgres_database_never_run_one_lock_key_twice_at_once() {
    let Some(server_url) = toolspec_test_postgres::server_url() else {
        return;
    };
    let database = toolspec_test_postgres::Scratch::create(&server_url).await;
    let url = std::ffi::OsStr::new(database.url());
    let scratch = Scratch::new();
    let first = HttpServer::start_on(url, &scratch, TOKENS, &["--verbose"], None).await;
    let second = HttpServer::start_on(url, &scratch, TOKENS, &["--verbose"], None).await;
    let clients = [
        first
            .client("ada-token", ProtocolVersion::V_2025_11_25)
            .await,
        second
            .client("ada-token", ProtocolVersion::V_2025_11_25)
            .await,
    ];
    // 40 different refunds of order 3 (1 to 40 minor units: 820 of its 2,399), all at once,
    // half through each process: `lock: { key: [order_id] }` runs them one at a time.
    const REFUNDS: u64 = 40;
    let calls = (1..=REFUNDS).map(|amount| {
        let client = &clients[(amount % 2) as usize];
        async move {
            result(
                client,
                "orders_refund",
                json!({"order_id": 3, "amount": amount}),
            )
            .await
        }
    });
    for answer in futures_util::future::join_all(calls).await {
        assert_eq!(answer.is_error, Some(false), "{}", text(&answer));
    }
    for client in clients {
        client.cancel().await.expect("the session ends");
    }
    // The last lines may still be on their way from the servers' stderr.
    let logged = |server: &HttpServer| refund_spans(&server.log.text());
    for _ in 0..50 {
        if (logged(&first).len() + logged(&second).len()) as u64 == REFUNDS {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut spans = logged(&first);
    let from_second = logged(&second);
    assert!(
        !spans.is_empty() && !from_second.is_empty(),
        "both processes ran refunds"
    );
    spans.extend(from_second);
    assert_eq!(
        spans.len() as u64,
        REFUNDS,
        "every refund's start and end are logged"
    );
    spans.sort_by_key(|&(_, start, _)| start);
    for pair in spans.windows(2) {
        let ((a, _, a_end), (b, b_start, _)) = (pair[0], pair[1]);
        assert!(
            a_end <= b_start,
            "refunds of {a} and {b} overlapped: {a} ended {a_end}, {b} started {b_start}"
        );
    }
    drop((first, second));
    database.drop().await;
}

#[tokio::test]
async fn the_audit_command_reads_what_the_call_command_recorded() {
    let scratch = Scratch::new();
    let run = |args: &[&str]| {
        std::process::Command::new(binary())
            .arg("--db")
            .arg(scratch.db())
            .args(args)
            .output()
            .expect("the store binary runs")
    };
    let called = run(&[
        "call",
        "orders_get",
        r#"{"order_id": 1}"#,
        "--as",
        "customer_id=1",
    ]);
    assert!(
        called.status.success(),
        "{}",
        String::from_utf8_lossy(&called.stderr)
    );
    let missing = run(&[
        "call",
        "orders_get",
        r#"{"order_id": 5}"#,
        "--as",
        "customer_id=1",
    ]);
    assert!(!missing.status.success());

    let listed = run(&["audit", "--json"]);
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let page: Value = serde_json::from_slice(&listed.stdout).expect("JSON");
    assert_eq!(page["total"], 2);
    let outcomes: Vec<(&str, &str, &Value)> = page["records"]
        .as_array()
        .expect("records")
        .iter()
        .map(|r| {
            (
                r["caller"].as_str().unwrap_or(""),
                r["outcome"].as_str().unwrap_or(""),
                &r["arguments"],
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            ("cli", "not_found", &json!({"order_id": 5})),
            ("cli", "ok", &json!({"order_id": 1})),
        ],
        "newest first"
    );
    let failed = run(&["audit", "--outcome", "failed", "--since", "1h"]);
    let text = String::from_utf8_lossy(&failed.stdout);
    assert!(
        text.contains("orders_get") && text.contains("not_found"),
        "{text}"
    );
    assert!(text.ends_with("1 of 1 recorded calls\n"), "{text}");
    let wrong = run(&["audit", "--since", "yesterday"]);
    assert!(!wrong.status.success());
    let message = String::from_utf8_lossy(&wrong.stderr);
    assert!(
        message.contains("`yesterday` is neither an RFC 3339 time nor a duration like `2h`"),
        "{message}"
    );
}
