//! What the last successful compile into an output folder recorded beside its file: the
//! digest of everything it read, the generated file as it left it, and what it reported (the
//! number of tools, the warnings), so that a compile that finds both unchanged can report the
//! same without running a stage.
//!
//! Stored as JSON. A record that cannot be read, or is not of this version, is no record.

use std::path::Path;

use serde_json::{Value, json};
use toolspec_vocab::Dialect;

use crate::diagnostic::{Diagnostic, Kind, Related, Severity};
use crate::source::{Pos, Span};

/// The record's format; another one is ignored.
const FORMAT: u64 = 1;

/// The last successful compile, as recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct State {
    /// The digest of its inputs (hexadecimal).
    pub inputs: String,
    /// The generated file's identity once written (`digest::file_identity`).
    pub output: String,
    /// How many tools it generated.
    pub tools: usize,
    /// Its warnings.
    pub warnings: Vec<Diagnostic>,
}

impl State {
    /// The record in `path`, if there is a readable one.
    pub fn read(path: &Path) -> Option<State> {
        let text = std::fs::read(path).ok()?;
        let value: Value = serde_json::from_slice(&text).ok()?;
        if value["format"].as_u64() != Some(FORMAT) {
            return None;
        }
        Some(State {
            inputs: value["inputs"].as_str()?.to_owned(),
            output: value["output"].as_str()?.to_owned(),
            tools: usize::try_from(value["tools"].as_u64()?).ok()?,
            warnings: value["warnings"]
                .as_array()?
                .iter()
                .map(diagnostic)
                .collect::<Option<_>>()?,
        })
    }

    /// The record as JSON text.
    pub fn to_json(&self) -> String {
        let warnings: Vec<Value> = self.warnings.iter().map(diagnostic_json).collect();
        json!({
            "format": FORMAT,
            "inputs": self.inputs,
            "output": self.output,
            "tools": self.tools,
            "warnings": warnings,
        })
        .to_string()
    }
}

fn diagnostic_json(d: &Diagnostic) -> Value {
    json!({
        "severity": match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        },
        "kind": d.kind.code(),
        "message": d.message,
        "file": d.file,
        "span": d.span.map(span_json),
        "label": d.label,
        "help": d.help,
        "notes": d.notes,
        "related": d.related.iter().map(|r| json!({
            "file": r.file,
            "span": span_json(r.span),
            "label": r.label,
        })).collect::<Vec<_>>(),
        "fallback": d.fallback.map(Dialect::name),
    })
}

fn diagnostic(value: &Value) -> Option<Diagnostic> {
    let text = |key: &str| value[key].as_str().map(str::to_owned);
    let optional = |key: &str| match &value[key] {
        Value::Null => Some(None),
        Value::String(s) => Some(Some(s.clone())),
        _ => None,
    };
    let severity = match value["severity"].as_str()? {
        "error" => Severity::Error,
        "warning" => Severity::Warning,
        _ => return None,
    };
    let span = match &value["span"] {
        Value::Null => None,
        span => Some(span_of(span)?),
    };
    let related = value["related"]
        .as_array()?
        .iter()
        .map(|r| {
            Some(Related {
                file: r["file"].as_str()?.to_owned(),
                span: span_of(&r["span"])?,
                label: r["label"].as_str()?.to_owned(),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let fallback = match &value["fallback"] {
        Value::Null => None,
        name => Some(Dialect::parse(name.as_str()?)?),
    };
    Some(Diagnostic {
        severity,
        kind: Kind::from_code(value["kind"].as_str()?)?,
        message: text("message")?,
        file: text("file")?,
        span,
        label: optional("label")?,
        help: optional("help")?,
        notes: value["notes"]
            .as_array()?
            .iter()
            .map(|n| n.as_str().map(str::to_owned))
            .collect::<Option<_>>()?,
        related,
        fallback,
    })
}

fn span_json(span: Span) -> Value {
    let pos = |p: Pos| json!([p.line, p.col, p.offset]);
    json!([pos(span.start), pos(span.end)])
}

fn span_of(value: &Value) -> Option<Span> {
    let pos = |v: &Value| {
        Some(Pos {
            line: u32::try_from(v[0].as_u64()?).ok()?,
            col: u32::try_from(v[1].as_u64()?).ok()?,
            offset: usize::try_from(v[2].as_u64()?).ok()?,
        })
    };
    Some(Span {
        start: pos(&value[0])?,
        end: pos(&value[1])?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_as_written() {
        let at = |line, col, offset| Pos { line, col, offset };
        let span = Span {
            start: at(3, 5, 40),
            end: at(3, 9, 44),
        };
        let state = State {
            inputs: "ab".repeat(32),
            output: "10 bytes, modified 1.000000002".into(),
            tools: 2,
            warnings: vec![
                Diagnostic::warning(Kind::Dialect, "specs/a.yaml", Some(span), "stated \"x\"")
                    .with_fallback(Dialect::Gemini)
                    .with_label("here")
                    .with_help("accept it")
                    .with_note("one\nnote")
                    .with_related("specs/b.yaml", span, "there"),
                Diagnostic::warning(Kind::Unused, "specs/c.yaml", None, "unused"),
            ],
        };
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = dir.path().join("state.json");
        std::fs::write(&path, state.to_json()).expect("written");
        assert_eq!(State::read(&path), Some(state.clone()));
        std::fs::write(
            &path,
            state.to_json().replace("\"format\":1", "\"format\":0"),
        )
        .expect("written");
        assert_eq!(State::read(&path), None, "another format is no record");
        std::fs::write(&path, "{").expect("written");
        assert_eq!(State::read(&path), None);
    }
}
