//! Random calls of a query tool on SQLite and PostgreSQL: filter values full of SQL and LIKE
//! metacharacters, quotes, Unicode, long strings and values of the wrong type; random sorts
//! (known, hidden, unknown), limits and offsets; as every tenant, through an adapter that
//! narrows the tool or none. Every result equals the reference computed in Rust over the same
//! rows (`total` included), and no row of another tenant ever appears.

mod support;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Map, Value, json};
use support::{Fixture, NAMES, observed, reference};

/// A text filter value: a fixture name, a piece of one, or metacharacters.
fn text() -> impl Strategy<Value = Value> {
    prop_oneof![
        proptest::sample::select(NAMES).prop_map(|s| json!(s)),
        proptest::sample::select(NAMES).prop_map(|s| json!(s.chars().take(2).collect::<String>())),
        "[a-z%_\\\\'\"; -]{0,6}".prop_map(|s| json!(s)),
        Just(json!("x".repeat(1_200))),
        Just(json!("nul\u{0}inside")),
    ]
}

fn integer() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-200i64..10_200).prop_map(|n| json!(n)),
        Just(json!(i64::MIN)),
        Just(json!(i64::MAX))
    ]
}

/// A value of the wrong type for any filter.
fn wrong() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"x": 1})),
        Just(json!("not a number")),
        Just(json!([[1]]))
    ]
}

/// A value for the filter `name`: of its type (mostly) or of the wrong one.
fn value(name: &'static str) -> BoxedStrategy<Value> {
    let right: BoxedStrategy<Value> = match name {
        "name" | "name_not" | "name_contains" | "name_prefix" => text().boxed(),
        "category" => proptest::collection::vec(
            prop_oneof![
                proptest::sample::select(support::CATEGORIES).prop_map(|s| json!(s)),
                Just(json!("weapons")),
            ],
            0..3,
        )
        .prop_map(Value::from)
        .boxed(),
        "price_min" | "price_below" | "price_upto" | "price_over" => integer().boxed(),
        "weight_max" => (0.0f64..15_000.0).prop_map(|f| json!(f)).boxed(),
        "active" => any::<bool>().prop_map(|b| json!(b)).boxed(),
        "code" => (0u64..25)
            .prop_map(|n| json!(format!("00000000-0000-4000-8000-{n:012X}")))
            .boxed(),
        "day_from" => (1u32..=12, 1u32..=28)
            .prop_map(|(m, d)| json!(format!("2025-{m:02}-{d:02}")))
            .boxed(),
        "at_before" | "at_after" => (0i64..86_400 * 40, 0usize..4)
            .prop_map(|(s, o)| {
                let offsets = ["Z", "+02:00", "-05:00", "+05:30"];
                let at = chrono::DateTime::from_timestamp(1_767_225_600 + s, 0).expect("instant");
                let text = at.format("%Y-%m-%dT%H:%M:%S").to_string();
                // The same instant, written in another offset where asked.
                let shifted = match offsets[o] {
                    "Z" => format!("{text}Z"),
                    other => {
                        let east = match other {
                            "+02:00" => 7_200,
                            "-05:00" => -18_000,
                            _ => 19_800,
                        };
                        let offset = chrono::FixedOffset::east_opt(east).expect("offset");
                        at.with_timezone(&offset).to_rfc3339()
                    }
                };
                json!(shifted)
            })
            .boxed(),
        _ => proptest::collection::vec(1i64..105, 0..6)
            .prop_map(Value::from)
            .boxed(),
    };
    prop_oneof![9 => right, 1 => wrong()].boxed()
}

/// A whole call: tenant, adapter and arguments.
fn call() -> impl Strategy<Value = (i64, Option<&'static str>, Map<String, Value>)> {
    let filters: Vec<BoxedStrategy<Option<(String, Value)>>> = support::FILTERS
        .iter()
        .map(|f| {
            let name = f.name;
            proptest::option::weighted(0.15, value(name).prop_map(move |v| (name.to_owned(), v)))
                .boxed()
        })
        .collect();
    let sort = proptest::option::of(prop_oneof![
        proptest::sample::select(&["name", "price", "weight", "day", "at", "id"][..])
            .prop_flat_map(|s| prop_oneof![Just(s.to_owned()), Just(format!("-{s}"))]),
        Just("tenant_id".to_owned()),
        Just("-secret".to_owned()),
        Just("name; DROP TABLE items".to_owned()),
    ]);
    let limit = proptest::option::of(prop_oneof![
        (-5i64..60).prop_map(|n| json!(n)),
        (1i64..30).prop_map(|n| json!(n.to_string())),
        Just(json!("many")),
    ]);
    let offset = proptest::option::of(prop_oneof![
        (-3i64..60).prop_map(|n| json!(n)),
        Just(json!(1e3))
    ]);
    (
        1i64..=3,
        proptest::option::weighted(0.3, Just("openai")),
        filters,
        sort,
        limit,
        offset,
    )
        .prop_map(|(tenant, adapter, filters, sort, limit, offset)| {
            let mut args: Map<String, Value> = filters.into_iter().flatten().collect();
            if let Some(sort) = sort {
                args.insert("sort".into(), json!(sort));
            }
            if let Some(limit) = limit {
                args.insert("limit".into(), limit);
            }
            if let Some(offset) = offset {
                args.insert("offset".into(), offset);
            }
            (tenant, adapter, args)
        })
}

fn check(fixture: &Fixture, runtime: &tokio::runtime::Runtime, cases: u32) {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let pages = std::cell::Cell::new(0);
    runner
        .run(&call(), |(tenant, adapter, args)| {
            let result =
                runtime.block_on(fixture.call(&Value::Object(args.clone()), tenant, adapter));
            let got = observed(&result, &fixture.rows, tenant);
            let want = reference(&fixture.rows, &args, tenant, adapter);
            if matches!(got, support::Expected::Page { .. }) {
                pages.set(pages.get() + 1);
            }
            prop_assert_eq!(got, want, "arguments {}", Value::Object(args));
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    let pages = pages.get();
    assert!(
        pages > cases / 4,
        "most calls should run: only {pages} of {cases} did"
    );
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

#[test]
fn sqlite_results_equal_the_reference() {
    let runtime = runtime();
    let fixture = runtime.block_on(Fixture::sqlite());
    check(&fixture, &runtime, 400);
}

#[test]
fn postgres_results_equal_the_reference() {
    let Some(url) = support::postgres_url() else {
        return;
    };
    let runtime = runtime();
    let fixture = runtime.block_on(Fixture::postgres(&url));
    check(&fixture, &runtime, 400);
    runtime.block_on(fixture.finish());
}
