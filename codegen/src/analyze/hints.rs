//! A tool's hints: registered, listed once, and not contradicting each other.

use toolspec_vocab::hints;

use crate::diagnostic::did_you_mean;
use crate::read::reader::Reader;
use crate::spec::{ProjectConfig, ToolSpec};

pub fn check_hints(r: &mut Reader<'_>, spec: &ToolSpec, config: &ProjectConfig) {
    let mut seen: Vec<&str> = Vec::new();
    for hint in &spec.hints {
        if !config.hints.contains(&hint.value) {
            let help = did_you_mean(&hint.value, config.hints.iter().map(String::as_str))
                .map(|m| format!("did you mean `{m}`?"))
                .unwrap_or_else(|| {
                    format!(
                        "known hints: {}; register more under `hints:` in toolspec.yaml",
                        config.hints.join(", ")
                    )
                });
            let d = r.error(hint.span, format!("unknown hint `{}`", hint.value));
            d.label = Some("not a registered hint".into());
            d.help = Some(help);
            continue;
        }
        if seen.contains(&hint.value.as_str()) {
            r.error(hint.span, format!("hint `{}` is listed twice", hint.value))
                .label = Some("duplicate".into());
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
                let d = r.error(
                    hint.span,
                    format!("contradictory hints: `{other}` and `{}`", hint.value),
                );
                d.label = Some(format!("contradicts `{other}`"));
                d.help = Some(format!("{}: keep one of them", contradiction.reason));
            }
        }
        seen.push(&hint.value);
    }
}
