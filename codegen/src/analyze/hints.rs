//! A tool's hints: registered, listed once, and not contradicting each other.

use toolspec_vocab::hints;

use crate::diagnostic::kind::Kind;
use crate::read::hints::check_hint_list;
use crate::read::reader::Reader;
use crate::source::Spanned;
use crate::spec::{ProjectConfig, ToolSpec};

/// The spec's hints, and each adapter's own (`tool: { mcp: { hints: […] } }`): the same
/// rules for both.
pub fn check_hints(r: &mut Reader<'_>, spec: &ToolSpec, config: &ProjectConfig) {
    check_hint_list(r, &spec.hints, &config.hints);
    check_reads_only(r, &spec.hints, spec);
    for options in &spec.tool.options {
        if let Some(hints) = &options.hints {
            check_hint_list(r, hints, &config.hints);
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
