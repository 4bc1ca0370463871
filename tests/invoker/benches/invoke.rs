//! One call of the 5-field tool `profile_update` through the invoker (strip, check keys,
//! coerce, validate, deserialize, resolve ambient, call a trivial handler, serialize, check the
//! output, message) against plain serde of the same types (`from_value::<Input>` +
//! `to_value(&Output)`). Target: under 5 µs, and under 3× plain serde.
//!
//! `cargo bench -p toolspec-test-invoker --bench invoke`

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolspec::AmbientContext;
use toolspec_test_invoker::App;
use toolspec_test_invoker::tools::profile::update::{Input, Output};

fn args() -> Value {
    json!({ "age": 42, "score": 0.75, "active": true, "plan": "pro", "nickname": "ada" })
}

fn plain_serde(args: Value, user_id: &str) -> Value {
    let input: Input = serde_json::from_value(args).expect("input");
    let output = Output {
        user_id: user_id.to_owned(),
        age: input.age,
        score: input.score,
        active: input.active,
        plan: input.plan.as_str().to_owned(),
        nickname: input.nickname,
    };
    serde_json::to_value(&output).expect("output")
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let registry = App::new().registry();
    let tool = registry.get("profile_update").expect("tool");
    let ambient = AmbientContext::from([("user_id", "alice")]);

    // Same answer both ways, and the validators are compiled before measuring.
    let result = runtime.block_on(tool.invoke(args(), &ambient));
    assert_eq!(result.value(), Some(&plain_serde(args(), "alice")));

    let mut group = c.benchmark_group("profile_update");
    group.bench_function("plain_serde", |b| {
        b.iter_batched(args, |args| black_box(plain_serde(args, "alice")), BatchSize::SmallInput)
    });
    group.bench_function("invoke", |b| {
        b.iter_batched(
            args,
            |args| black_box(runtime.block_on(tool.invoke(args, &ambient))),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("invoke_coercing", |b| {
        let sloppy = || json!({ "age": "42", "score": "0.75", "active": "true", "plan": "pro", "nickname": "ada" });
        b.iter_batched(
            sloppy,
            |args| black_box(runtime.block_on(tool.invoke(args, &ambient))),
            BatchSize::SmallInput,
        )
    });
    // What `block_on` alone costs, to subtract from `invoke`.
    group.bench_function("block_on_only", |b| b.iter(|| runtime.block_on(async { black_box(1) })));
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
