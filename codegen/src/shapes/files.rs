//! The schemas of `shape: { file: … }`, read from the specs folder's JSON files, and every
//! shape's patterns checked against the runtime's regex engine.

use std::collections::BTreeMap;

use serde_json::Value as Json;

use crate::diagnostic::Diagnostic;
use crate::diagnostic::kind::Kind;
use crate::schema_tree::{MAX_DEPTH, nodes, too_deep};
use crate::source::{Pos, Span, Spanned};

/// Every `pattern` of the shape of `name` (and every `patternProperties` key) must run on the
/// runtime's regex engine: the canonical schema carries them to its validator.
pub fn check_patterns(
    name: &str,
    schema: &Json,
    owner: &str,
    span: Span,
    note: Option<&str>,
    diagnostics: &mut Vec<Diagnostic>,
) {
    for (_, node) in nodes(schema) {
        let mut patterns: Vec<(&str, &str)> = Vec::new();
        if let Some(Json::String(pattern)) = node.get("pattern") {
            patterns.push(("`pattern`", pattern));
        }
        if let Some(Json::Object(map)) = node.get("patternProperties") {
            patterns.extend(map.keys().map(|k| ("`patternProperties` key", k.as_str())));
        }
        for (what, pattern) in patterns {
            let Err(refusal) = crate::pattern::check(pattern) else {
                continue;
            };
            let mut d = Diagnostic::error(
                Kind::Pattern,
                owner,
                Some(span),
                format!(
                    "{what} `{pattern}` in the shape of `{name}` {}",
                    refusal.reason
                ),
            )
            .with_label(refusal.label)
            .with_help(refusal.help);
            if let Some(note) = note {
                d = d.with_note(note);
            }
            diagnostics.push(d);
        }
    }
}

/// Reads and checks the JSON Schema a `file:` names; returns its display path and the schema.
pub fn load(
    path: &Spanned<String>,
    owner: &str,
    json_files: &BTreeMap<String, String>,
) -> Result<(String, Json), Box<Diagnostic>> {
    let resolved = relative_to(owner, &path.value);
    if !path.value.ends_with(".json") {
        return Err(Box::new(
            Diagnostic::error(
                Kind::Shape,
                owner,
                Some(path.span),
                format!("shape file `{}` is not a `.json` file", path.value),
            )
            .with_label("not a `.json` file")
            .with_help("write the JSON Schema as JSON, in a file whose name ends in `.json`"),
        ));
    }
    let Some(text) = json_files.get(&resolved) else {
        let folder = match owner.rsplit_once('/') {
            Some((dir, _)) => format!(" (`{dir}`)"),
            None => String::new(),
        };
        return Err(Box::new(
            Diagnostic::error(Kind::Shape, owner,
                Some(path.span),
                format!("shape file `{resolved}` does not exist"),)
            .with_label("no such file")
            .with_help(format!(
                "`file:` is relative to the spec's folder{folder}, and the file must be a `.json` file in the specs directory"
            )),
        ));
    };
    let value: Json = serde_json::from_str(text).map_err(|e| {
        let message = e.to_string();
        let message = message
            .rsplit_once(" at line ")
            .map_or(message.as_str(), |(m, _)| m);
        Box::new(
            Diagnostic::error(
                Kind::Syntax,
                resolved.clone(),
                Some(json_span(text, e.line(), e.column())),
                format!("invalid JSON in shape file `{resolved}`: {message}"),
            )
            .with_label(message.to_owned())
            .with_related(owner, path.span, "read as a `shape` here"),
        )
    })?;
    if !value.is_object() {
        let found = match value {
            Json::Array(_) => "an array",
            Json::String(_) => "a string",
            Json::Number(_) => "a number",
            Json::Bool(_) => "a boolean",
            _ => "null",
        };
        return Err(Box::new(
            Diagnostic::error(
                Kind::Shape,
                owner,
                Some(path.span),
                format!("shape file `{resolved}` must hold a JSON Schema object, found {found}"),
            )
            .with_label("not a JSON Schema object"),
        ));
    }
    // Checked before anything walks it (the meta-schema's validator, typify).
    if too_deep(&value, MAX_DEPTH).is_some() {
        return Err(Box::new(
            Diagnostic::error(
                Kind::TooDeep,
                owner,
                Some(path.span),
                format!(
                    "shape file `{resolved}` nests more than {} levels deep",
                    MAX_DEPTH
                ),
            )
            .with_label("too deep"),
        ));
    }
    if let Err(e) = crate::schema_tree::well_formed(&value) {
        return Err(Box::new(
            Diagnostic::error(
                Kind::Shape,
                owner,
                Some(path.span),
                format!("shape file `{resolved}` is not a valid JSON Schema: {e}"),
            )
            .with_label("invalid schema"),
        ));
    }
    Ok((resolved, value))
}

/// `path` resolved against the folder of the display path `owner`, `.` and `..` applied.
pub fn relative_to(owner: &str, path: &str) -> String {
    let mut parts: Vec<&str> = match owner.rsplit_once('/') {
        Some((dir, _)) => dir.split('/').collect(),
        None => Vec::new(),
    };
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| !matches!(*p, "" | "." | "..")) => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts.join("/")
}

/// The span of one character at a serde_json error position (1-based line, 1-based byte
/// column; column 0 is before the first character).
pub fn json_span(text: &str, line: usize, column: usize) -> Span {
    let mut offset = 0;
    let mut rest = text;
    for _ in 1..line.max(1) {
        match rest.find('\n') {
            Some(i) => {
                offset += i + 1;
                rest = &rest[i + 1..];
            }
            None => break,
        }
    }
    let line_text = rest.split('\n').next().unwrap_or("");
    let mut byte = column.saturating_sub(1).min(line_text.len());
    while !line_text.is_char_boundary(byte) {
        byte -= 1;
    }
    let col = line_text[..byte].chars().count() + 1;
    let width = line_text[byte..].chars().next().map_or(0, char::len_utf8);
    let line = u32::try_from(line.max(1)).unwrap_or(u32::MAX);
    let col = u32::try_from(col).unwrap_or(u32::MAX);
    let pos = |col, offset| Pos { line, col, offset };
    Span {
        start: pos(col, offset + byte),
        end: pos(col + u32::from(width > 0), offset + byte + width),
    }
}
