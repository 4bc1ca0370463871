//! Invalid-spec corpus: every folder under `tests/invalid/` holds a `specs/` directory that
//! must fail to compile, and an `expected.txt` with the exact rendered diagnostics (message,
//! `file:line:col`, source line, caret and help), as `toolspec check` would print them with the
//! specs directory shown as `specs`.
//!
//! Regenerate the expected files with `EXPECTORATE=overwrite cargo test -p toolspec-codegen
//! --test invalid`, then review every changed `expected.txt` by hand (`git diff`) before
//! committing it.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use toolspec_codegen::Config;
use toolspec_codegen::{MAX_SHOWN, Severity};

mod support;

/// How diagnostics show the specs directory.
const DISPLAY_ROOT: &str = "specs";

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/invalid")
}

/// Every case folder, sorted by name.
fn cases() -> Vec<(String, PathBuf)> {
    let mut out: Vec<(String, PathBuf)> = std::fs::read_dir(corpus_dir())
        .expect("tests/invalid exists")
        .map(|entry| entry.expect("readable entry"))
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_dir()))
        .map(|entry| {
            (
                entry.file_name().to_string_lossy().into_owned(),
                entry.path(),
            )
        })
        .collect();
    out.sort();
    out
}

/// Reads a case's specs the way `toolspec_codegen::load` does and renders its diagnostics.
/// Returns the rendering and the problems with it that do not depend on `expected.txt`.
fn run_case(case: &Path) -> (String, Vec<String>) {
    let project = Config::new()
        .display_root(DISPLAY_ROOT)
        .load(case.join("specs"))
        .expect("the case has a readable specs/ folder");
    let rendered = project.render_diagnostics();

    let mut problems = Vec::new();
    let errors: Vec<_> = project
        .diagnostics()
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    if errors.is_empty() {
        problems.push("no error reported".to_owned());
    }
    // Beyond MAX_SHOWN, the rendering counts the errors it leaves out.
    if project.diagnostics().len() > MAX_SHOWN {
        let hidden = project.diagnostics().len() - MAX_SHOWN;
        if !rendered.contains(&format!("\n… and {hidden} more ")) {
            problems.push(format!(
                "the rendering does not count the {hidden} left out"
            ));
        }
        return (rendered, problems);
    }
    for d in errors {
        if !d.file.starts_with(&format!("{DISPLAY_ROOT}/")) && d.file != DISPLAY_ROOT {
            problems.push(format!("`{}` is not shown below `{DISPLAY_ROOT}`", d.file));
        }
        if let Some(span) = d.span {
            let location = format!("{}:{}:{}", d.file, span.start.line, span.start.col);
            if !rendered.contains(&format!("--> {location}\n")) {
                problems.push(format!("the rendering does not point at `{location}`"));
            }
        }
    }
    (rendered, problems)
}

#[test]
fn every_invalid_spec_is_reported_exactly() {
    let cases = cases();
    assert!(
        cases.len() >= 45,
        "the corpus has only {} cases",
        cases.len()
    );
    let mut problems = Vec::new();
    let mut renderings = Vec::new();
    for (name, dir) in &cases {
        match catch_unwind(AssertUnwindSafe(|| run_case(dir))) {
            Ok((rendered, found)) => {
                problems.extend(found.into_iter().map(|p| format!("{name}: {p}")));
                renderings.push((dir.join("expected.txt"), rendered));
            }
            Err(_) => problems.push(format!("{name}: the compiler panicked")),
        }
    }
    assert!(
        problems.is_empty(),
        "{} problem(s) in {} invalid-spec cases:\n  {}",
        problems.len(),
        cases.len(),
        problems.join("\n  ")
    );
    for (expected, rendered) in renderings {
        expectorate::assert_contents(expected, &rendered);
    }
}

/// Damaged versions of every corpus file (cut off before a line, a line removed, a bracket,
/// quote or colon inserted) must be reported, never make the compiler panic.
#[test]
fn damaged_specs_never_panic() {
    let mut panics = Vec::new();
    for (name, case) in cases() {
        let (sources, dirs) = support::sources(&case.join("specs"));
        for (index, source) in sources.iter().enumerate() {
            let lines: Vec<&str> = source.text.split_inclusive('\n').collect();
            for at in 0..lines.len() {
                let (before, after) = (lines[..at].concat(), lines[at..].concat());
                let mut variants = vec![before.clone(), before.clone() + &lines[at + 1..].concat()];
                let content = after.trim_start_matches(' ');
                let indent = &after[..after.len() - content.len()];
                for insert in ["[", "{", "\"", ":", "- ", "\t"] {
                    variants.push(format!("{before}{indent}{insert}{content}"));
                }
                for text in variants {
                    let mut damaged = sources.clone();
                    damaged[index].text = text;
                    let run = catch_unwind(AssertUnwindSafe(|| {
                        let project = toolspec_codegen::analyze(&damaged, &dirs, DISPLAY_ROOT);
                        project.render_diagnostics()
                    }));
                    if run.is_err() {
                        panics.push(format!(
                            "{name}: {} damaged at line {}",
                            source.path,
                            at + 1
                        ));
                    }
                }
            }
        }
    }
    assert!(
        panics.is_empty(),
        "the compiler panicked:\n  {}",
        panics.join("\n  ")
    );
}

/// A build script that fails prints one `cargo::error=` line per error — its place, its message
/// and its help, which is what cargo shows — and one that says where to see them rendered.
#[test]
fn a_failed_build_says_each_error_on_one_line_with_its_help() {
    let out = tempfile::tempdir().expect("a temp dir");
    let case =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/invalid/150-every-error-in-one-build");
    let error = Config::new()
        .display_root(DISPLAY_ROOT)
        .out_dir(out.path())
        .emit_rerun_if_changed(false)
        .compile(case.join("specs"))
        .expect_err("the specs are invalid");
    let lines = error.cargo_lines();
    assert_eq!(lines.len(), 8, "{lines:#?}");
    assert_eq!(
        lines[0],
        "cargo::error=specs/loans/renew.yaml:7:15: `member` in `once.key` is not an `expects` \
         field of this tool (help: did you mean `member_id`?)"
    );
    assert!(
        lines[..7]
            .iter()
            .all(|l| l.starts_with("cargo::error=specs/loans/")),
        "{lines:#?}"
    );
    assert_eq!(
        lines[7],
        "cargo::error=toolspec: the specs have 7 errors; `toolspec check` on the specs folder \
         (or `cargo build -vv`) shows each with its source line"
    );
}
