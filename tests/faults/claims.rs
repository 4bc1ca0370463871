//! A `once` claim left by a killed process: the process is frozen (`SIGSTOP`) while a refund
//! holds its claim, then killed (`SIGKILL`). The identical refund through another process
//! answers `in_progress` at once with a retry hint while the dead one may still look alive,
//! and runs — once — within seconds of its death, not after the claim's lease (minutes).

use std::time::{Duration, Instant};

use rmcp::model::ProtocolVersion;

use crate::support::{HttpServer, TOKENS, params};
use crate::target::{Backend, Target, code, error, refund};

#[tokio::test]
async fn sqlite_a_dead_processes_claim_lapses_within_seconds() {
    if let Some(target) = Target::new(Backend::Sqlite).await {
        a_dead_processes_claim_lapses_within_seconds(target).await;
    }
}

#[tokio::test]
async fn postgres_a_dead_processes_claim_lapses_within_seconds() {
    if let Some(target) = Target::new(Backend::Postgres).await {
        a_dead_processes_claim_lapses_within_seconds(target).await;
    }
}

async fn a_dead_processes_claim_lapses_within_seconds(target: Target) {
    let db = std::ffi::OsStr::new(&target.db);
    let sql = target.connect().await;
    let refunded = || sql.integer("SELECT refunded FROM orders WHERE id = 3");
    let before = refunded().await;
    // Each try refunds another amount (another key), until one is caught holding its claim.
    let mut caught = None;
    for amount in 1..=40 {
        let server = HttpServer::start_on(db, &target.scratch, TOKENS, &[], None).await;
        let client = server
            .client("ada-token", ProtocolVersion::V_2025_11_25)
            .await;
        let pid = server.pid().to_string();
        let call = tokio::spawn(async move {
            let _ = client
                .call_tool(params(
                    "orders_refund",
                    serde_json::json!({"order_id": 3, "amount": amount}),
                ))
                .await;
            client
        });
        let running =
            "SELECT COUNT(*) FROM toolspec_once WHERE tool = 'orders_refund' AND state = 'running'";
        let deadline = Instant::now() + Duration::from_secs(5);
        while sql.integer(running).await == 0 && Instant::now() < deadline && !call.is_finished() {}
        // Frozen first, so that it dies where it stood; read only once it is dead (a frozen
        // SQLite writer may hold the file's lock).
        signal("-STOP", &pid).await;
        server.stop_with("-KILL").await;
        let held = sql.integer(running).await == 1;
        call.abort();
        if held {
            caught = Some((amount, Instant::now()));
            break;
        }
        // Too late: that refund ran; its key is done, not held.
    }
    let (amount, killed) = caught.expect("a process was caught holding its claim");
    let refunded_so_far = refunded().await;

    // Another process, the same refund: `in_progress` at once while the dead one may look
    // alive, then it runs.
    let server = HttpServer::start_on(db, &target.scratch, TOKENS, &[], None).await;
    let client = server
        .client("ada-token", ProtocolVersion::V_2025_11_25)
        .await;
    let mut answers = Vec::new();
    let ran = loop {
        let asked = Instant::now();
        let answer = refund(&client, 3, amount).await;
        let took = asked.elapsed();
        assert!(
            took < Duration::from_secs(6),
            "a retry was held {took:?} by a dead process's claim"
        );
        match code(&answer).as_str() {
            "ok" => break answer,
            "in_progress" => {
                assert_eq!(
                    error(&answer)["details"],
                    serde_json::json!({"retry_after": 2})
                );
                answers.push(took);
            }
            other => panic!("the retry answered {other}: {:?}", error(&answer)),
        }
        assert!(
            killed.elapsed() < Duration::from_secs(25),
            "the dead process's claim did not lapse within 25 s"
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    };
    let lapsed = killed.elapsed();
    assert_eq!(code(&ran), "ok");
    assert_eq!(
        refunded().await,
        refunded_so_far + amount,
        "the refund ran once, after the dead claim lapsed"
    );
    assert!(refunded_so_far <= before + (1..=amount).sum::<i64>());
    eprintln!(
        "a claim of a killed process: {} retries answered `in_progress` (each within {:?}); the \
         refund ran {lapsed:?} after the kill",
        answers.len(),
        answers.iter().max().copied().unwrap_or_default()
    );
    client.cancel().await.expect("the session ends");
    drop(server);
    sql.close().await;
    target.finish().await;
}

async fn signal(signal: &str, pid: &str) {
    let sent = tokio::process::Command::new("kill")
        .args([signal, pid])
        .status()
        .await
        .expect("kill runs");
    assert!(sent.success(), "kill {signal} {pid}");
}
