//! The tree [`crate::read::yaml::parse`] returns: nodes that carry their value, their span and
//! whether they were quoted, and the error it reports. Knows nothing of how YAML is parsed.

use std::fmt;

use crate::source::{Pos, Span};

/// The value of a [`Node`].
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// `null`, `~` or nothing.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A decimal, `0x` or `0o` integer that fits in an `i64`.
    Int(i64),
    /// A floating-point number, `.inf` and `.nan` included.
    Float(f64),
    /// Any other scalar, and every quoted or block scalar.
    Str(String),
    /// A sequence, in source order.
    Seq(Vec<Node>),
    /// A mapping, entries in source order; keys are nodes so they keep their spans.
    Map(Vec<(Node, Node)>),
}

/// A YAML value with the span of the source text it was read from.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// Where the value is written. An alias has the span of the node it refers to.
    pub span: Span,
    /// Whether the scalar was written in single or double quotes.
    pub quoted: bool,
}

/// A YAML syntax error, or a document this module refuses (duplicate keys, several documents…).
#[derive(Debug, Clone, PartialEq)]
pub struct YamlError {
    /// What is wrong, without position.
    pub message: String,
    /// Where it is wrong; zero-width for syntax errors.
    pub span: Span,
}

impl fmt::Display for YamlError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Pos { line, col, .. } = self.span.start;
        write!(f, "{line}:{col}: {}", self.message)
    }
}

impl std::error::Error for YamlError {}

impl Node {
    /// The kind of value, as a word for messages: "null", "boolean", "integer", "number",
    /// "string", "list" or "map".
    pub fn kind(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Float(_) => "number",
            Value::Str(_) => "string",
            Value::Seq(_) => "list",
            Value::Map(_) => "map",
        }
    }

    /// The string, if this is a string.
    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The entries, if this is a map.
    pub fn as_map(&self) -> Option<&[(Node, Node)]> {
        match &self.value {
            Value::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The items, if this is a list.
    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// The value stored under the string key `key`, if this is a map that has one.
    /// Keys that are not strings (`1:`, `true:`) never match.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map()?
            .iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }

    /// The value as JSON. Non-finite floats become `null`; map keys that are not strings are
    /// written as their scalar text (`1`, `true`, `null`), or as compact JSON for list and map keys.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Value::Str(s) => J::String(s.clone()),
            Value::Seq(items) => J::Array(items.iter().map(Node::to_json).collect()),
            Value::Map(entries) => J::Object(
                entries
                    .iter()
                    .map(|(k, v)| (key_text(k), v.to_json()))
                    .collect(),
            ),
        }
    }
}

/// The text of a key as shown in JSON objects and messages.
pub fn key_text(key: &Node) -> String {
    match &key.value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) if f.is_nan() => ".nan".to_owned(),
        Value::Float(f) if f.is_infinite() => if *f > 0.0 { ".inf" } else { "-.inf" }.to_owned(),
        Value::Float(f) => {
            serde_json::Number::from_f64(*f).map_or_else(String::new, |n| n.to_string())
        }
        Value::Str(s) => s.clone(),
        Value::Seq(_) | Value::Map(_) => key.to_json().to_string(),
    }
}
