//! Diagnostics as a build script reports them to cargo.

use crate::diagnostic::message::Diagnostic;
use crate::diagnostic::render::{MAX_SHOWN, sort_key};
use crate::diagnostic::suggest::plural;

/// Prints [`cargo_lines`].
pub fn print_cargo_lines(kind: &str, diagnostics: &[&Diagnostic]) {
    for line in cargo_lines(kind, diagnostics) {
        println!("{line}");
    }
}

/// One `cargo::{kind}=` line for each of the first [`MAX_SHOWN`] diagnostics in the rendering's
/// order (by file and place) — where, what, and
/// the help — and one that counts the others. Cargo shows these lines first (and, for errors
/// of a build script that exits successfully, only them).
pub fn cargo_lines(kind: &str, diagnostics: &[&Diagnostic]) -> Vec<String> {
    let mut sorted = diagnostics.to_vec();
    sorted.sort_by(|a, b| sort_key(a).cmp(&sort_key(b)));
    let mut lines: Vec<String> = sorted
        .iter()
        .take(MAX_SHOWN)
        .map(|d| match &d.help {
            Some(help) => format!(
                "cargo::{kind}={} (help: {})",
                d.located_message(),
                help.replace(['\r', '\n'], " ")
            ),
            None => format!("cargo::{kind}={}", d.located_message()),
        })
        .collect();
    if let Some(hidden) = diagnostics.len().checked_sub(MAX_SHOWN)
        && hidden > 0
    {
        let more = plural(hidden, &format!("more {kind}"));
        lines.push(format!("cargo::{kind}=… and {more}"));
    }
    lines
}
