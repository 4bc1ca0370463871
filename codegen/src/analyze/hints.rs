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
    for options in &spec.tool.options {
        if let Some(hints) = &options.hints {
            check_hint_list(r, hints, config);
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
