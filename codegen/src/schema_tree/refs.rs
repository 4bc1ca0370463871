//! Local `$ref`s: the subschema one points at, and the name it gives it.

use serde_json::Value;

/// Resolves a local `$ref` (`#`, `#/$defs/Name`, any JSON pointer below `#`) against `root`.
pub fn resolve_ref<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    root.pointer(pointer)
}

/// The name a `$ref` is shown with (`#/$defs/Tree` → `Tree`, `#` → the tool's input).
pub fn ref_name(reference: &str) -> String {
    match reference.rsplit_once('/') {
        Some((_, name)) if !name.is_empty() => toolspec_vocab::pointer::unescape(name),
        _ => "the tool's input".into(),
    }
}
