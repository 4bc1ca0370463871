//! A tool's error codes and guard names: none reserved by toolspec, none used twice; the
//! codes a guard may fail with (`errors:`) and those `tool: { http: { status: … } }` gives
//! statuses are declared codes.

use std::collections::BTreeSet;

use toolspec_vocab::codes;

use crate::diagnostic::did_you_mean;
use crate::diagnostic::kind::Kind;
use crate::read::reader::Reader;
use crate::source::Spanned;
use crate::spec::ToolSpec;

pub fn check_codes(r: &mut Reader<'_>, spec: &ToolSpec) {
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let guards = spec.guards.iter().map(|g| (&g.name, "guard"));
    let errors = spec.errors.iter().map(|e| (&e.code, "error"));
    for (code, what) in guards.chain(errors) {
        if codes::BUILTIN.contains(&code.value.as_str()) {
            let noun = if what == "guard" {
                "guard name"
            } else {
                "error code"
            };
            r.report(
                r.error(
                    Kind::Reserved,
                    code.span,
                    format!("{noun} `{}` is reserved by toolspec", code.value),
                )
                .with_label("reserved")
                .with_help(format!(
                    "toolspec reports `{}` itself; name this {what} after what went wrong",
                    code.value
                )),
            );
        }
    }
    for guard in &spec.guards {
        seen.insert(&guard.name.value);
    }
    for error in &spec.errors {
        if seen.contains(error.code.value.as_str()) {
            r.report(
                r.error(
                    Kind::Conflict,
                    error.code.span,
                    format!("error code `{}` is also a guard's name", error.code.value),
                )
                .with_label("clashes with a guard")
                .with_help("a failing guard already reports its own name as the error code"),
            );
        }
    }
    check_guard_errors(r, spec);
    check_statuses(r, spec);
}

/// Every code a guard lists under `errors:` is one of the tool's declared error codes.
fn check_guard_errors(r: &mut Reader<'_>, spec: &ToolSpec) {
    let declared = || spec.errors.iter().map(|e| e.code.value.as_str());
    for guard in &spec.guards {
        for code in &guard.errors {
            if declared().any(|c| c == code.value) {
                continue;
            }
            let help = if code.value == guard.name.value {
                "a guard fails with its own name without listing it: `errors` lists the tool's \
                 declared codes it may fail with instead"
                    .to_owned()
            } else if spec.guards.iter().any(|g| g.name.value == code.value) {
                format!(
                    "`{}` is another guard: only that guard fails with it",
                    code.value
                )
            } else {
                unknown_code_help(spec, &code.value)
            };
            let message = format!(
                "guard `{}` lists `{}`, which is not an error code of this tool",
                guard.name.value, code.value
            );
            report_undeclared(r, code, message, help);
        }
    }
}

/// The help for a code the tool does not declare: the likely one, or the ones it has.
fn unknown_code_help(spec: &ToolSpec, code: &str) -> String {
    let declared = || spec.errors.iter().map(|e| e.code.value.as_str());
    if let Some(m) = did_you_mean(code, declared()) {
        format!("did you mean `{m}`?")
    } else if spec.errors.is_empty() {
        "the tool declares no error codes (`errors:`)".to_owned()
    } else {
        let codes: Vec<_> = declared().map(|c| format!("`{c}`")).collect();
        format!("the tool's error codes are {}", codes.join(", "))
    }
}

/// Every code given an HTTP status is one of the tool's declared error codes.
fn check_statuses(r: &mut Reader<'_>, spec: &ToolSpec) {
    let declared = || spec.errors.iter().map(|e| e.code.value.as_str());
    let statuses = spec.tool.options.iter().flat_map(|o| &o.statuses);
    for (code, _) in statuses {
        if declared().any(|c| c == code.value) {
            continue;
        }
        let help = if spec.guards.iter().any(|g| g.name.value == code.value) {
            format!(
                "`{}` is a guard: a failed guard is always answered 412",
                code.value
            )
        } else {
            unknown_code_help(spec, &code.value)
        };
        let message = format!("`{}` is not an error code of this tool", code.value);
        report_undeclared(r, code, message, help);
    }
}

/// Reports `code`, named where the tool's declared codes are expected.
fn report_undeclared(r: &mut Reader<'_>, code: &Spanned<String>, message: String, help: String) {
    let d = r
        .error(Kind::UnknownName, code.span, message)
        .with_label("not declared in `errors`")
        .with_help(help);
    r.report(d);
}
