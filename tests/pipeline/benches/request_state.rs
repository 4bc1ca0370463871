//! Sealing and opening a request state (what a round trip hands its client and gets back):
//! XChaCha20-Poly1305 over the state's JSON, the argument digest (SHA-256 of canonical JSON),
//! base64url. A state of a typical call: five arguments, a little continuation data.
//!
//! `cargo bench -p toolspec-test-pipeline --bench request_state`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use toolspec::request_state::{RequestState, StateKeys};

fn bench(c: &mut Criterion) {
    let keys = StateKeys::parse(&StateKeys::generate("bench")).expect("a key");
    let args = json!({ "order_id": 1042, "reason": "duplicate", "refund": true, "amount": 2599, "note": "asked twice" });
    let now = 1_764_900_000_000;
    let data = json!({ "round": 1, "asked": ["confirm"] });
    let state = RequestState::new(
        "customer-42",
        "orders_cancel",
        &args,
        now,
        Duration::from_secs(600),
        data,
    );
    let sealed = keys.seal(&state);
    c.bench_function("request_state/seal", |b| {
        b.iter(|| black_box(keys.seal(black_box(&state))))
    });
    c.bench_function("request_state/open", |b| {
        b.iter(|| {
            let opened = keys.open(
                black_box(&sealed),
                "customer-42",
                "orders_cancel",
                &args,
                now,
            );
            black_box(opened.expect("opens"))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
