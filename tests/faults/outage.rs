//! PostgreSQL stopped and started again mid-run, on a cluster of the test's own: while it is
//! down, calls answer `unavailable` with a retry hint — the first within the store's
//! `--db-timeout`, the next at once (the breaker knows it is down) — and the HTTP API answers
//! `503` with `Retry-After`; once it is back, calls succeed again without a restart.

use std::time::{Duration, Instant};

use rmcp::model::ProtocolVersion;
use serde_json::json;

use crate::support::{HttpServer, Scratch, TOKENS, result, text};
use crate::target::{code, error, refund};

#[tokio::test]
async fn postgres_stopped_mid_run_fails_fast_and_recovers() {
    let Some(cluster) = toolspec_test_postgres::Cluster::start() else {
        return;
    };
    let scratch = Scratch::new();
    let url = cluster.url();
    let server = HttpServer::start_on(
        std::ffi::OsStr::new(&url),
        &scratch,
        TOKENS,
        &["--db-timeout", "1"],
        None,
    )
    .await;
    let client = server
        .client("ada-token", ProtocolVersion::V_2025_11_25)
        .await;
    let api = format!("http://{}/tools/orders_search", server.address());
    let http = reqwest::Client::new();
    let search = || {
        http.post(&api)
            .bearer_auth("ada-token")
            .json(&json!({"status": "delivered"}))
            .send()
    };
    let up = result(&client, "orders_get", json!({"order_id": 1})).await;
    assert_eq!(up.is_error, Some(false), "{}", text(&up));
    assert_eq!(search().await.expect("the API answers").status(), 200);

    cluster.stop();
    // The first call finds it out: within the store's `--db-timeout` (1 s), not the pool's
    // default 30 s.
    let started = Instant::now();
    let first = result(&client, "orders_get", json!({"order_id": 1})).await;
    let first_took = started.elapsed();
    assert_eq!(code(&first), "unavailable", "{}", text(&first));
    assert_eq!(error(&first)["details"], json!({"retry_after": 2}));
    assert!(
        first_took < Duration::from_secs(5),
        "the first call waited {first_took:?}"
    );

    // Then every call that needs the database answers at once: a handler's, a query tool's,
    // a `required` record's.
    let mut took = Vec::new();
    for round in 0..5 {
        let started = Instant::now();
        let get = result(&client, "orders_get", json!({"order_id": 2})).await;
        let refused = refund(&client, 3, 1 + round).await;
        let searched = search().await.expect("the API answers");
        took.push(started.elapsed() / 3);
        assert_eq!(code(&get), "unavailable", "{}", text(&get));
        assert_eq!(code(&refused), "unavailable", "{}", text(&refused));
        assert_eq!(searched.status(), 503);
        assert_eq!(
            searched
                .headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok()),
            Some("2")
        );
        let body: serde_json::Value = searched.json().await.expect("the error shape");
        assert_eq!(body["error"], "unavailable");
    }
    let slowest = took.iter().max().copied().unwrap_or_default();
    assert!(
        slowest < Duration::from_secs(1),
        "calls while the database is known down took up to {slowest:?}"
    );

    cluster.resume();
    let back = Instant::now();
    loop {
        let answer = result(&client, "orders_get", json!({"order_id": 1})).await;
        if answer.is_error == Some(false) {
            break;
        }
        assert_eq!(code(&answer), "unavailable", "{}", text(&answer));
        assert!(
            back.elapsed() < Duration::from_secs(20),
            "the store did not recover within 20 s"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let recovered = back.elapsed();
    assert_eq!(search().await.expect("the API answers").status(), 200);
    assert_eq!(code(&refund(&client, 3, 10).await), "ok");
    eprintln!(
        "PostgreSQL down: the first call answered `unavailable` in {first_took:?}, the next ones in \
         {:?} to {slowest:?} per call; calls succeeded again {recovered:?} after it restarted",
        took.iter().min().copied().unwrap_or_default()
    );
    client.cancel().await.expect("the session ends");
    drop(server);
}
