//! Hint lists, wherever one is written (a spec's `hints:`, an adapter's, the project's
//! `default_hints:`): each hint registered, listed once, none contradicting another; and the
//! project's default hints merged into an action's lists.

use toolspec_vocab::hints;

use crate::diagnostic::did_you_mean;
use crate::diagnostic::kind::Kind;
use crate::read::reader::Reader;
use crate::source::Spanned;

/// Reports every hint of `list` that is not one of the `known` (registered) ones, is listed
/// twice, or contradicts an earlier one.
pub fn check_hint_list(r: &mut Reader<'_>, list: &[Spanned<String>], known: &[String]) {
    let mut seen: Vec<&str> = Vec::new();
    for hint in list {
        if !known.contains(&hint.value) {
            let help = did_you_mean(&hint.value, known.iter().map(String::as_str))
                .map(|m| format!("did you mean `{m}`?"))
                .unwrap_or_else(|| {
                    format!(
                        "known hints: {}; register more under `hints:` in toolspec.yaml",
                        known.join(", ")
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

/// `list` with each of the project's `defaults` it neither lists nor contradicts (an action's
/// `hints:`, or an adapter's own): a default gives way to what a spec says.
pub fn with_default_hints(list: &mut Vec<Spanned<String>>, defaults: &[Spanned<String>]) {
    for default in defaults {
        let contradicted = hints::CONTRADICTIONS.iter().any(|c| {
            let [a, b] = c.hints;
            let other = match default.value.as_str() {
                h if h == a => b,
                h if h == b => a,
                _ => return false,
            };
            list.iter().any(|h| h.value == other)
        });
        if !contradicted && !list.iter().any(|h| h.value == default.value) {
            list.push(default.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Span;

    fn list(hints: &[&str]) -> Vec<Spanned<String>> {
        (hints.iter())
            .map(|h| Spanned::new((*h).to_owned(), Span::default()))
            .collect()
    }

    fn merged(spec: &[&str], defaults: &[&str]) -> Vec<String> {
        let mut hints = list(spec);
        with_default_hints(&mut hints, &list(defaults));
        hints.into_iter().map(|h| h.value).collect()
    }

    #[test]
    fn a_default_gives_way_to_the_hint_a_spec_lists_or_contradicts() {
        let defaults = ["closed_world", "idempotent"];
        assert_eq!(merged(&[], &defaults), ["closed_world", "idempotent"]);
        assert_eq!(
            merged(&["destructive"], &defaults),
            ["destructive", "closed_world", "idempotent"]
        );
        assert_eq!(
            merged(&["open_world"], &defaults),
            ["open_world", "idempotent"]
        );
        assert_eq!(
            merged(&["closed_world"], &defaults),
            ["closed_world", "idempotent"]
        );
    }
}
