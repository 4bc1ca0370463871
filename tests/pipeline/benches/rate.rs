//! The cost of admitting one call through a tool's rate limiter: the budget (governor's keyed
//! GCRA) and the calls in flight, for one caller and for 1,000 callers in turn, with a budget
//! large enough that every call passes (the common case). Goal: under 0.2 µs.
//!
//! `cargo bench -p toolspec-test-pipeline --bench rate`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use toolspec::rate::{Limiter, RateLimit};

fn bench(c: &mut Criterion) {
    let limit = RateLimit {
        calls: u32::MAX,
        period_ms: 1,
        burst: u32::MAX,
        in_flight: 16,
    };
    let limiter = Limiter::new(limit);
    let one = "customer-42".to_owned();
    c.bench_function("rate/admit_one_caller", |b| {
        b.iter(|| black_box(limiter.admit(black_box(&one)).expect("admitted")))
    });
    let callers: Vec<String> = (0..1000).map(|i| format!("customer-{i}")).collect();
    let mut next = callers.iter().cycle();
    c.bench_function("rate/admit_1000_callers", |b| {
        b.iter(|| {
            let caller = next.next().expect("cycles");
            black_box(limiter.admit(black_box(caller)).expect("admitted"))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
