//! A tool's hints: registered, listed once, and not contradicting each other.

use toolspec_vocab::hints;

use crate::diagnostic::did_you_mean;
use crate::diagnostic::kind::Kind;
use crate::read::reader::Reader;
use crate::source::Spanned;
use crate::spec::{ProjectConfig, ToolSpec};

/// The spec's hints, and each adapter's own (`tool: { mcp: { hints: […] } }`): the same
/// rules for both.
pub fn check_hints(r: &mut Reader<'_>, spec: &ToolSpec, config: &ProjectConfig) {
    check_hint_list(r, &spec.hints, config);
    check_reads_only(r, &spec.hints, spec);
    for options in &spec.tool.options {
        if let Some(hints) = &options.hints {
            check_hint_list(r, hints, config);
            check_reads_only(r, hints, spec);
        }
    }
}

/// A tool hinted `read_only` declares nothing that only a tool that writes needs: `once`
/// (exactly once: a read may run again), `lock` (one at a time: reads do not conflict) or
/// `confirm` (the user approves what it will change). A read-only deployment serves it, so
/// the hint must hold.
fn check_reads_only(r: &mut Reader<'_>, list: &[Spanned<String>], spec: &ToolSpec) {
    let Some(hint) = list.iter().find(|h| h.value == hints::READ_ONLY) else {
        return;
    };
    let writers = [
        (
            "once",
            spec.once.is_some(),
            "runs a call exactly once per key",
        ),
        (
            "lock",
            spec.lock.is_some(),
            "keeps calls from running at once",
        ),
        (
            "confirm",
            spec.confirm.is_some(),
            "asks the user to approve a change",
        ),
    ];
    for (key, declared, what) in writers {
        if declared {
            r.report(
                r.error(
                    Kind::Conflict,
                    hint.span,
                    format!("a `read_only` tool declares `{key}`, which {what}"),
                )
                .with_label(format!("contradicts `{key}`"))
                .with_help(format!(
                    "a tool that only reads needs no `{key}`: remove it, or the `read_only` hint \
                     if the tool writes (a read-only deployment serves every `read_only` tool)"
                )),
            );
        }
    }
}

fn check_hint_list(r: &mut Reader<'_>, list: &[Spanned<String>], config: &ProjectConfig) {
    let mut seen: Vec<&str> = Vec::new();
    for hint in list {
        if !config.hints.contains(&hint.value) {
            let help = did_you_mean(&hint.value, config.hints.iter().map(String::as_str))
                .map(|m| format!("did you mean `{m}`?"))
                .unwrap_or_else(|| {
                    format!(
                        "known hints: {}; register more under `hints:` in toolspec.yaml",
                        config.hints.join(", ")
                    )
                });
            r.report(
                r.error(
                    Kind::UnknownName,
                    hint.span,
                    format!("unknown hint `{}`", hint.value),
                )
                .with_label("not a registered hint")
                .with_help(help),
            );
            continue;
        }
        if seen.contains(&hint.value.as_str()) {
            r.report(
                r.error(
                    Kind::NameClash,
                    hint.span,
                    format!("hint `{}` is listed twice", hint.value),
                )
                .with_label("duplicate"),
            );
            continue;
        }
        for contradiction in hints::CONTRADICTIONS {
            let [a, b] = contradiction.hints;
            let other = if hint.value == a {
                b
            } else if hint.value == b {
                a
            } else {
                continue;
            };
            if seen.contains(&other) {
                r.report(
                    r.error(
                        Kind::Conflict,
                        hint.span,
                        format!("contradictory hints: `{other}` and `{}`", hint.value),
                    )
                    .with_label(format!("contradicts `{other}`"))
                    .with_help(format!("{}: keep one of them", contradiction.reason)),
                );
            }
        }
        seen.push(&hint.value);
    }
}
