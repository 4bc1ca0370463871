//! No `sensitive` value — input, output or ambient, at any depth — ever reaches a stored audit
//! record, a log line or a span field: generated notes whose every sensitive value carries a
//! marker go through the registry with audit on (into a real SQLite file and, when configured,
//! a PostgreSQL database), with a subscriber capturing every event and span at TRACE level; the
//! marker must appear in none of them, while the values that are not sensitive do. Each note is
//! also explained: the explain tool's record holds the note's arguments redacted the same way.

use std::io::Write;
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use serde_json::{Value, json};
use toolspec::audit::AuditQuery;
use toolspec::{AmbientContext, CallOptions, Database, Registry};
use toolspec_test_audit::{Vault, tools};

/// Where the subscriber writes.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .expect("not poisoned")
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().expect("not poisoned")).into_owned()
    }
}

/// Text around a marker: what a secret looks like (quotes, spaces and Unicode included).
fn secret() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9 \"'<>{}é😀-]{0,12}".prop_map(|noise| format!("SECRET-{noise}-MARK"))
}

fn plain() -> impl Strategy<Value = String> {
    "[a-z]{1,12}".prop_map(|word| format!("plain-{word}"))
}

/// A note's arguments and ambient session: every sensitive value holds `SECRET-…-MARK`.
fn note() -> impl Strategy<Value = (Value, String)> {
    let contact =
        (plain(), secret()).prop_map(|(name, phone)| json!({"name": name, "phone": phone}));
    let label =
        (plain(), secret()).prop_map(|(shown, hidden)| json!({"shown": shown, "hidden": hidden}));
    let proof = prop_oneof![
        secret().prop_map(|s| json!({"kind": "password", "password": s})),
        secret().prop_map(|s| json!({"kind": "token", "token": s})),
    ];
    (
        prop_oneof![plain(), Just("refuse".to_owned())],
        secret(),
        proptest::collection::vec(contact, 0..4),
        proptest::collection::btree_map("[a-z]{1,6}", label, 0..3),
        proof,
        secret(),
    )
        .prop_map(|(title, pin, contacts, labels, proof, session)| {
            let args = json!({
                "title": title,
                "pin": pin,
                "contacts": contacts,
                "labels": labels,
                "proof": proof,
            });
            (args, session)
        })
}

fn sqlite_registry(dir: &tempfile::TempDir, runtime: &tokio::runtime::Runtime) -> Registry {
    let path = dir.path().join("audit.db");
    let options = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(&path)
        .create_if_missing(true);
    let pool = runtime
        .block_on(sqlx::SqlitePool::connect_with(options))
        .expect("a SQLite file");
    tools::registry(Vault, Database::sqlite(pool))
}

/// Runs `calls` through `registry`, then checks the trail and `captured`.
fn check(
    registry: &Registry,
    runtime: &tokio::runtime::Runtime,
    captured: &Captured,
    calls: &[(Value, String)],
) {
    runtime.block_on(async {
        for (args, session) in calls {
            let ambient = AmbientContext::from([("session", session.as_str())]);
            let options = CallOptions {
                adapter: Some("mcp".into()),
                caller: Some("tester".into()),
                ..CallOptions::default()
            };
            let result = registry
                .get("vault_keep")
                .expect("registered")
                .invoke_with(args.clone(), &ambient, options)
                .await;
            // The model sees its own values back (nothing is redacted in the answer).
            if args["title"] != "refuse" {
                assert!(
                    result.is_ok(),
                    "{:?} {:?}",
                    result.error(),
                    result.exception
                );
                assert_eq!(result.to_model_json()["pin"], args["pin"]);
            }
            let explained = registry
                .get("explain")
                .expect("registered")
                .invoke_with(
                    json!({"tool": "vault_keep", "arguments": args}),
                    &ambient,
                    CallOptions {
                        adapter: Some("mcp".into()),
                        ..CallOptions::default()
                    },
                )
                .await;
            assert!(explained.is_ok(), "{:?}", explained.error());
        }
        let trail = registry.audit().expect("audit is on");
        trail.flush().await;
        let query = AuditQuery {
            limit: AuditQuery::MAX_LIMIT,
            ..AuditQuery::default()
        };
        let page = query.read(trail.database()).await.expect("the trail reads");
        let stored = serde_json::to_string(&page.records).expect("serializes");
        assert!(
            !stored.contains("SECRET-"),
            "a sensitive value was stored: {stored}"
        );
        assert!(
            !stored.contains("-MARK"),
            "a sensitive value was stored: {stored}"
        );
        let (kept, explained): (Vec<_>, Vec<_>) =
            page.records.iter().partition(|r| r.tool == "vault_keep");
        // One explain record per call (the PostgreSQL cases share a database: at least these).
        assert_eq!(kept.len(), explained.len());
        assert!(kept.len() >= calls.len());
        for (args, _) in calls {
            let title = args["title"].as_str().expect("a title");
            let mentions = |records: &[&toolspec::audit::AuditRecord]| {
                records
                    .iter()
                    .filter(|r| r.arguments.to_string().contains(title))
                    .count()
            };
            assert!(
                mentions(&kept) > 0,
                "what is not sensitive is kept: {title}"
            );
            assert!(
                mentions(&explained) > 0,
                "an explained title is kept: {title}"
            );
        }
        assert!(
            kept.iter()
                .all(|r| r.ambient == json!({"session": "[redacted]"}))
        );
        assert!(
            explained
                .iter()
                .all(|r| r.arguments["arguments"]["pin"] == "[redacted]")
        );
    });
    let logs = captured.text();
    assert!(
        !logs.contains("SECRET-") && !logs.contains("-MARK"),
        "a sensitive value was logged: {logs}"
    );
    assert!(
        logs.contains("tool.call"),
        "the subscriber saw the calls' spans: {logs}"
    );
}

fn subscriber(captured: &Captured) -> impl tracing::Subscriber + Send + Sync {
    use tracing_subscriber::fmt::format::FmtSpan;
    let writer = captured.clone();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_span_events(FmtSpan::FULL)
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn sqlite_records_and_logs_hold_no_sensitive_value(calls in proptest::collection::vec(note(), 1..6)) {
        let captured = Captured::default();
        let _guard = tracing::subscriber::set_default(subscriber(&captured));
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
        let dir = tempfile::tempdir().expect("a temp dir");
        let registry = sqlite_registry(&dir, &runtime);
        check(&registry, &runtime, &captured, &calls);
    }
}

#[test]
fn postgres_records_and_logs_hold_no_sensitive_value() {
    let Some(server) = toolspec_test_postgres::server_url() else {
        return;
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let database = runtime.block_on(toolspec_test_postgres::Scratch::create(&server));
    let pool = runtime
        .block_on(sqlx::PgPool::connect(database.url()))
        .expect("PostgreSQL");
    let registry = tools::registry(Vault, Database::postgres(pool.clone()));
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 24,
        ..ProptestConfig::default()
    });
    runner
        .run(&proptest::collection::vec(note(), 1..6), |calls| {
            let captured = Captured::default();
            let _guard = tracing::subscriber::set_default(subscriber(&captured));
            check(&registry, &runtime, &captured, &calls);
            Ok(())
        })
        .expect("no sensitive value anywhere");
    drop(registry);
    runtime.block_on(pool.close());
    runtime.block_on(database.drop());
}
