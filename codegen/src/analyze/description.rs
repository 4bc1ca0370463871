//! The description models read: the spec's own, then preconditions and error codes.

use crate::spec::ToolSpec;

/// The tool description models see: the spec's description, then the preconditions and the
/// error codes a call can fail with (guards first).
pub fn compose_description(spec: &ToolSpec) -> String {
    let mut text = spec.description.clone();
    if !spec.guards.is_empty() {
        let preconditions: Vec<String> = spec
            .guards
            .iter()
            .map(|g| sentence(&g.description))
            .collect();
        text.push_str("\nPreconditions: ");
        text.push_str(&preconditions.join(" "));
    }
    let codes: Vec<&str> = spec
        .guards
        .iter()
        .map(|g| g.name.value.as_str())
        .chain(spec.errors.iter().map(|e| e.code.value.as_str()))
        .collect();
    if !codes.is_empty() {
        text.push_str("\nErrors: ");
        text.push_str(&codes.join(", "));
        text.push('.');
    }
    text
}

fn sentence(text: &str) -> String {
    let text = text.trim();
    if text.ends_with(['.', '!', '?']) {
        text.to_owned()
    } else {
        format!("{text}.")
    }
}
