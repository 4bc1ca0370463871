//! Codegen over 1,000 generated specs: parse + validate + derive schemas + emit Rust, against
//! parsing the same YAML alone (saphyr-parser's event stream, and our spanned tree built from
//! it); the same specs compiled again from a folder with the cache of an earlier compile
//! (nothing changed, one spec changed); and checking hostile specs, whose cost must stay linear
//! in their size.
//!
//! `cargo bench -p toolspec-codegen --features unstable-internals --bench codegen`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use toolspec_codegen::{Source, analyze};

/// One realistic action spec: 5 inputs (one ambient, one enum with a default, one optional,
/// one named type), nested output, errors, guards, hints, message, tool options.
fn spec(i: usize) -> String {
    format!(
        r#"description: Operation number {i}, which changes a record.
title: Operation {i}
expects:
  record_id: {{ type: integer, minimum: 1, description: The record to change. }}
  mode:
    type: string
    one_of: [fast, careful, dry_run]
    default: careful
  note: {{ type: string, optional: true, max_length: 500, sensitive: true }}
  amount: {{ type: Money, optional: true }}
  customer_id: {{ type: integer, on: ambient_context }}
exposes:
  record:
    type: object
    fields:
      id: {{ type: integer }}
      status: {{ type: string, one_of: [open, closed] }}
      tags: {{ type: array, items: string }}
errors:
  headline: Could not change record
  codes:
    frozen: The record is frozen.
    not_found: {{ message: No such record., standalone: true }}
guards:
  not_closed: Record must be open.
hints: [idempotent, closed_world]
message: "Record {{{{ record.id }}}} is {{{{ record.status }}}}."
timeout: 30s
tags: [records]
tool:
  mcp: {{ present_as: message }}
"#
    )
}

fn sources(n: usize) -> (Vec<Source>, Vec<String>) {
    let mut sources = vec![Source {
        path: "types.yaml".into(),
        text: "types:\n  Money:\n    type: object\n    fields:\n      amount: { type: integer, minimum: 0 }\n      currency: { type: string, one_of: [EUR, USD] }\n".into(),
    }];
    let mut dirs = Vec::new();
    for i in 0..n {
        let dir = format!("area{:02}", i / 20);
        if !dirs.contains(&dir) {
            dirs.push(dir.clone());
        }
        sources.push(Source {
            path: format!("{dir}/op{i:04}.yaml"),
            text: spec(i),
        });
    }
    (sources, dirs)
}

fn bench(c: &mut Criterion) {
    let (sources, dirs) = sources(1000);
    let project = analyze(&sources, &dirs, "specs");
    assert!(
        !project.has_errors(),
        "benchmark specs must be valid: {:?}",
        project.diagnostics().first()
    );
    assert_eq!(project.tools().len(), 1000);

    let mut group = c.benchmark_group("1000 specs");
    group.sample_size(10);
    group.bench_function("parse only (saphyr-parser events)", |b| {
        b.iter(|| {
            for s in &sources {
                black_box(saphyr_parser::Parser::new_from_str(&s.text).count());
            }
        })
    });
    group.bench_function("parse only (spanned)", |b| {
        b.iter(|| {
            for s in &sources {
                black_box(toolspec_codegen::__internals::parse_yaml(&s.text));
            }
        })
    });
    group.bench_function("parse + validate + schemas", |b| {
        b.iter(|| black_box(analyze(&sources, &dirs, "specs")))
    });
    group.bench_function("parse + validate + schemas + emit", |b| {
        b.iter(|| {
            let project = analyze(&sources, &dirs, "specs");
            black_box(toolspec_codegen::generate(&project))
        })
    });
    group.finish();
}

/// One file that `toolspec check` reads and reports on (the diagnostics rendered).
fn check(text: &str) -> String {
    let sources = [Source {
        path: "hostile.yaml".into(),
        text: text.into(),
    }];
    let project = analyze(&sources, &[], "specs");
    project.render_diagnostics()
}

fn hostile(c: &mut Criterion) {
    let unknown_keys: String = std::iter::once("description: x\n".to_owned())
        .chain((0..10_000).map(|i| format!("k{i}: 1\n")))
        .collect();
    let maps: Vec<&str> = vec!["{a: 1}"; 80_000];
    let flow_maps = format!("description: x\nlist: [{}]\n", maps.join(", "));
    let tabs: String = std::iter::once("description: x\nexpects:\n".to_owned())
        .chain((0..300).map(|i| format!("  f{i}:\t{{ type:\tstring }}\n")))
        .collect();
    let mut group = c.benchmark_group("hostile specs");
    group.sample_size(10);
    group.bench_function("10,000 unknown keys", |b| {
        b.iter(|| black_box(check(&unknown_keys)))
    });
    group.bench_function("80,000 flow maps on one line", |b| {
        b.iter(|| black_box(check(&flow_maps)))
    });
    group.bench_function("300 tabs after colons", |b| {
        b.iter(|| black_box(check(&tabs)))
    });
    group.finish();
}

/// Writes the specs into `dir` as a specs folder.
fn write_specs(dir: &std::path::Path, sources: &[Source]) {
    for source in sources {
        let path = dir.join(&source.path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("a folder");
        }
        std::fs::write(path, &source.text).expect("written");
    }
}

/// Compiling a specs folder again through `Config::compile` (what a build script runs), with
/// the cache beside the generated file: nothing changed, and one spec of 1,000 changed.
fn rebuild(c: &mut Criterion) {
    let (sources, _) = sources(1000);
    let specs = tempfile::tempdir().expect("a temp dir");
    let out = tempfile::tempdir().expect("a temp dir");
    write_specs(specs.path(), &sources);
    let config = toolspec_codegen::Config::new()
        .out_dir(out.path())
        .display_root("specs")
        .emit_rerun_if_changed(false);
    let first = config.compile(specs.path()).expect("compiles");
    assert_eq!(first.tools, 1000);

    let mut group = c.benchmark_group("1000 specs, compiled again");
    group.sample_size(10);
    // For comparison: the same compile into an empty folder (every stage, the cache written).
    group.bench_function("first compile (empty output folder)", |b| {
        b.iter_batched(
            || tempfile::tempdir().expect("a temp dir"),
            |empty| {
                let config = toolspec_codegen::Config::new()
                    .out_dir(empty.path())
                    .display_root("specs")
                    .emit_rerun_if_changed(false);
                config.compile(specs.path()).expect("compiles");
                empty
            },
            criterion::BatchSize::PerIteration,
        )
    });
    group.bench_function("nothing changed", |b| {
        b.iter(|| {
            let compiled = config.compile(specs.path()).expect("compiles");
            assert_eq!(compiled.reuse, toolspec_codegen::Reuse::Unchanged);
        })
    });
    // Each run finds one spec changed since the run before: its description goes back and
    // forth between two texts.
    let changed = &sources[500];
    let path = specs.path().join(&changed.path);
    let texts = [
        changed
            .text
            .replacen("description: ", "description: Changed, ", 1),
        changed.text.clone(),
    ];
    let mut turn = 0;
    group.bench_function("one spec changed", |b| {
        b.iter_batched(
            || {
                std::fs::write(&path, &texts[turn % 2]).expect("written");
                turn += 1;
            },
            |()| {
                let compiled = config.compile(specs.path()).expect("compiles");
                assert_eq!(compiled.reuse, toolspec_codegen::Reuse::Rebuilt);
            },
            criterion::BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group!(benches, bench, rebuild, hostile);
criterion_main!(benches);
