//! One call of the 5-field tool `profile_update` through the invoker (strip, check keys,
//! coerce, validate, deserialize, resolve ambient, call a trivial handler, serialize, check the
//! output, message) against plain serde of the same types (`from_value::<Input>` +
//! `to_value(&Output)`). Target: under 5 µs, and under 3× plain serde.
//!
//! `cargo bench -p toolspec-test-pipeline --bench invoke`

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use toolspec::AmbientContext;
use toolspec_test_pipeline::App;
use toolspec_test_pipeline::tools::profile::update::{Input, Output};

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
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let registry = App::new().registry();
    let tool = registry.get("profile_update").expect("tool");
    let ambient = AmbientContext::from([("user_id", "alice")]);

    // Same answer both ways, and the validators are compiled before measuring.
    let result = runtime.block_on(tool.invoke(args(), &ambient));
    assert_eq!(result.value(), Some(&plain_serde(args(), "alice")));

    let mut group = c.benchmark_group("profile_update");
    group.bench_function("plain_serde", |b| {
        b.iter_batched(
            args,
            |args| black_box(plain_serde(args, "alice")),
            BatchSize::SmallInput,
        )
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
    group.bench_function("block_on_only", |b| {
        b.iter(|| runtime.block_on(async { black_box(1) }))
    });
    group.finish();

    // A call through two guards that each hand the handler what they loaded.
    let archive = registry.get("notes_archive").expect("tool");
    let none = AmbientContext::new();
    assert!(
        runtime
            .block_on(archive.invoke(json!({ "note_id": 1 }), &none))
            .is_ok()
    );
    c.bench_function("notes_archive/invoke_two_loading_guards", |b| {
        b.iter_batched(
            || json!({ "note_id": 1 }),
            |args| black_box(runtime.block_on(archive.invoke(args, &none))),
            BatchSize::SmallInput,
        )
    });
}

/// The invoker's stages one by one, with the same inputs: where an `invoke` goes.
fn stages(c: &mut Criterion) {
    let registry = App::new().registry();
    let descriptor = registry.get("profile_update").expect("tool").descriptor();
    let input_schema = descriptor.input_schema_json();
    let output_schema = descriptor.output_schema_json();
    let compile = |schema: &Value| {
        jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
            .expect("schema")
    };
    let (input_validator, output_validator) = (compile(&input_schema), compile(&output_schema));
    let output = plain_serde(args(), "alice");

    let mut group = c.benchmark_group("stage");
    group.bench_function("clone_arguments", |b| {
        let args = args();
        b.iter(|| black_box(args.clone()))
    });
    // The argument plan (screening and coercion), compiled once per tool as the invoker does.
    let plan = toolspec::__private::ArgumentPlan::compile(&input_schema, &input_schema);
    group.bench_function("screen_and_coerce", |b| {
        b.iter_batched(
            args,
            |mut args| {
                plan.coerce(&mut args);
                args
            },
            BatchSize::SmallInput,
        )
    });
    group.bench_function("validate_input_iter_errors", |b| {
        let args = args();
        b.iter(|| black_box(input_validator.iter_errors(&args).count()))
    });
    // The fast check the pipeline asks first (the validator only for what it cannot prove).
    let fast =
        |schema: &Value| toolspec::__private::FastCheck::compile(schema).expect("fast check");
    let (fast_input, fast_output) = (fast(&input_schema), fast(&output_schema));
    assert!(fast_input.accepts(&args()) && fast_output.accepts(&output));
    group.bench_function("fast_check_input", |b| {
        let args = args();
        b.iter(|| black_box(fast_input.accepts(&args)))
    });
    group.bench_function("fast_check_output", |b| {
        b.iter(|| black_box(fast_output.accepts(&output)))
    });
    group.bench_function("validate_input_is_valid", |b| {
        let args = args();
        b.iter(|| black_box(input_validator.is_valid(&args)))
    });
    group.bench_function("validate_output_iter_errors", |b| {
        b.iter(|| black_box(output_validator.iter_errors(&output).count()))
    });
    group.bench_function("from_value_input", |b| {
        b.iter_batched(
            args,
            |args| serde_json::from_value::<Input>(args).expect("input"),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("to_value_output", |b| {
        let typed: Output = serde_json::from_value(output.clone()).expect("output");
        b.iter(|| serde_json::to_value(&typed).expect("output"))
    });
    group.finish();
}

criterion_group!(benches, bench, stages);
criterion_main!(benches);
