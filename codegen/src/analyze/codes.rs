//! A tool's error codes and guard names: none reserved by toolspec, none used twice.

use std::collections::BTreeSet;

use toolspec_vocab::codes;

use crate::diagnostic::kind::Kind;
use crate::read::reader::Reader;
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
}
